//! Aider's benchmark runs (`benchmark/benchmark.py`): a run folder `<YYYY-MM-DD-HH-MM-SS>--<name>/`
//! holding one folder per exercise, each with the `.aider.results.json` the benchmark writes when the
//! exercise ends: polyglot runs `<language>/exercises/practice/<exercise>/`, the older Python edit
//! benchmark `<exercise>/`. Read as `summarize_results` reads them:
//!
//! - system: the run folder's name (aider's `dirname`, which its leaderboard keys runs by): runs of
//!   one model with other prompts or settings are other systems. Every file of a run must name the
//!   same model, edit format and editor model; a run mixing them is refused, naming both files.
//! - task: `<language>/<exercise>` (exercise names repeat across languages), or the exercise in the
//!   Python edit benchmark; group: the language.
//! - outcome: passed within the first K tries (`--aider-tries`, default 2: `pass_rate_2`, the
//!   leaderboard's headline): `tests_outcomes` ends with true and has at most K entries.
//! - status: a file holding `{"exception": …}` is completed and failed (outcome 0, error); an empty
//!   `tests_outcomes` (`--no-unit-tests`) and an exercise folder without a results file (not run yet,
//!   or the benchmark stopped) are not attempted — aider leaves both out of its denominator.
//! - cost: `cost`; seconds: `duration` (the model's and the edits' time, without the tests').

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// The tries of the leaderboard's headline, pass_rate_2.
pub const HEADLINE_TRIES: u32 = 2;

/// The file aider writes in each exercise folder.
pub const RESULTS: &str = ".aider.results.json";

/// Whether a parsed file is one exercise's results.
pub fn is_results(object: &serde_json::Map<String, Value>) -> bool {
    object.contains_key("testcase") && object.contains_key("tests_outcomes")
}

/// The exercise folders of a run as (task, group, folder): polyglot languages' practice exercises,
/// else the run's own subfolders (the Python edit benchmark).
fn exercises(run: &Path) -> Vec<(String, String, PathBuf)> {
    let languages: Vec<PathBuf> = super::subfolders(run)
        .into_iter()
        .filter(|folder| folder.join("exercises/practice").is_dir())
        .collect();
    let name = |path: &Path| {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if languages.is_empty() {
        return super::subfolders(run)
            .into_iter()
            .map(|folder| (name(&folder), "python".to_string(), folder))
            .collect();
    }
    languages
        .iter()
        .flat_map(|language| {
            let language_name = name(language);
            super::subfolders(&language.join("exercises/practice"))
                .into_iter()
                .map(move |folder| {
                    (
                        format!("{language_name}/{}", name(&folder)),
                        language_name.clone(),
                        folder,
                    )
                })
        })
        .collect()
}

/// The results files of a run's exercises (those written so far).
pub fn results_files(run: &Path) -> Vec<PathBuf> {
    exercises(run)
        .into_iter()
        .map(|(_, _, folder)| folder.join(RESULTS))
        .filter(|file| file.is_file())
        .collect()
}

/// Whether a folder is an aider run: an exercise folder with results, in either layout (aider's
/// own globs: `*/.aider.results.json`, `*/exercises/practice/*/.aider.results.json`).
pub fn is_run_folder(folder: &Path) -> bool {
    folder.is_dir()
        && super::subfolders(folder).iter().any(|child| {
            child.join(RESULTS).is_file()
                || super::subfolders(&child.join("exercises/practice"))
                    .iter()
                    .any(|exercise| exercise.join(RESULTS).is_file())
        })
}

/// The run folder of one exercise's results file: four folders up in a polyglot run, two in the
/// edit benchmark.
pub fn run_of_results_file(path: &Path) -> PathBuf {
    let exercise = path.parent().unwrap_or(Path::new("."));
    let practice = exercise.parent();
    let polyglot = practice.is_some_and(|p| p.ends_with("exercises/practice"));
    let up = if polyglot { 4 } else { 1 };
    exercise
        .ancestors()
        .nth(up)
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The settings every file of a run must share, as (key, value) for messages.
fn settings_of(value: &Value) -> Vec<(&'static str, String)> {
    ["model", "edit_format", "editor_model", "editor_edit_format"]
        .into_iter()
        .filter_map(|key| {
            value.get(key).filter(|v| !v.is_null()).map(|v| {
                (
                    key,
                    v.as_str().map_or_else(|| v.to_string(), str::to_string),
                )
            })
        })
        .collect()
}

/// The (outcome, status, source detail) of one exercise's results.
fn outcome(
    value: &Value,
    tries: u32,
    file: &str,
) -> Result<(Option<f64>, RowStatus, String), LoadError> {
    if let Some(exception) = value.get("exception") {
        let first = exception
            .as_str()
            .and_then(|text| text.lines().rev().find(|l| !l.trim().is_empty()))
            .unwrap_or("")
            .chars()
            .take(80)
            .collect::<String>();
        return Ok((Some(0.0), RowStatus::Error, format!(", exception {first}")));
    }
    let outcomes = match value.get("tests_outcomes") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_bool().ok_or_else(|| {
                    LoadError::new(
                        file,
                        format!("tests_outcomes holds {item}, not true or false"),
                    )
                })
            })
            .collect::<Result<Vec<bool>, LoadError>>()?,
        // `{}`: aider skips it as not completed.
        None if value.as_object().is_some_and(|o| o.is_empty()) => Vec::new(),
        other => {
            return Err(LoadError::new(
                file,
                format!(
                    "tests_outcomes must be a list of true/false, found {}",
                    other.map_or("nothing".to_string(), Value::to_string)
                ),
            ));
        }
    };
    let Some(&last) = outcomes.last() else {
        return Ok((None, RowStatus::NotAttempted, ", no tests run".to_string()));
    };
    let passed = last && outcomes.len() <= tries as usize;
    Ok((
        Some(if passed { 1.0 } else { 0.0 }),
        RowStatus::Ok,
        format!(
            ", tests {}",
            outcomes
                .iter()
                .map(|&o| if o { "pass" } else { "fail" })
                .collect::<Vec<_>>()
                .join(" ")
        ),
    ))
}

/// The rows of an aider run folder (or of the run of one `.aider.results.json`), the bytes read
/// (for the content hash) and the name messages use.
pub fn run(path: &Path, tries: u32) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let single = path.is_file();
    let run = if single {
        run_of_results_file(path)
    } else {
        path.to_path_buf()
    };
    let absolute = std::fs::canonicalize(&run).unwrap_or_else(|_| run.clone());
    let system = absolute
        .file_name()
        .map_or("aider".to_string(), |n| n.to_string_lossy().into_owned());
    let shown = run.display().to_string();
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    let mut first_settings: Option<(Vec<(&'static str, String)>, String)> = None;
    let (mut not_run, mut exceptions) = (0usize, 0usize);
    let wanted: Vec<(String, String, PathBuf)> = if single {
        let exercise = path.parent().unwrap_or(Path::new("."));
        exercises(&run)
            .into_iter()
            .filter(|(_, _, folder)| folder == exercise)
            .collect()
    } else {
        exercises(&run)
    };
    for (task, language, folder) in wanted {
        let results = folder.join(RESULTS);
        let file = results.display().to_string();
        let (outcome, status, detail, cost, seconds) = if results.is_file() {
            let text = std::fs::read(&results)
                .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
            let (value, _) = super::json::parse_lenient(&text, &file)?;
            bytes.extend_from_slice(&text);
            if value.get("exception").is_none() && value.as_object().is_some_and(|o| !o.is_empty())
            {
                let settings = settings_of(&value);
                match &first_settings {
                    None => first_settings = Some((settings, file.clone())),
                    Some((first, first_file)) if *first != settings => {
                        return Err(LoadError::new(
                            &shown,
                            format!(
                                "one aider run mixes settings: {first_file} has {}, {file} has {} (runs of other settings are other run folders, other systems)",
                                describe(first),
                                describe(&settings)
                            ),
                        ));
                    }
                    Some(_) => {}
                }
            }
            let (outcome, status, detail) = outcome(&value, tries, &file)?;
            exceptions += usize::from(status == RowStatus::Error);
            let number = |key: &str| super::json::amount(&value, key);
            (outcome, status, detail, number("cost"), number("duration"))
        } else {
            not_run += 1;
            (
                None,
                RowStatus::NotAttempted,
                ", no results file".to_string(),
                None,
                None,
            )
        };
        rows.push(CanonicalRow {
            system: system.clone(),
            task,
            run: 0,
            outcome,
            status,
            group: Some(language),
            cost_usd: cost,
            seconds,
            source: format!("aider {}{detail}", folder.display()),
        });
    }
    let mut notes = vec![format!(
        "{shown}: aider run '{system}'{}; outcome 1 when the tests pass within the first {tries} tries (--aider-tries)",
        first_settings
            .as_ref()
            .map_or(String::new(), |(settings, _)| format!(
                " ({})",
                describe(settings)
            ))
    )];
    if not_run > 0 {
        notes.push(format!(
            "{shown}: {} no {RESULTS} (not run yet, or the run stopped): not attempted, as aider leaves them out",
            counted(not_run, "exercise folder has", "exercise folders have")
        ));
    }
    if exceptions > 0 {
        notes.push(format!(
            "{shown}: {} in an exception: failed, status error",
            counted(exceptions, "exercise ended", "exercises ended")
        ));
    }
    Ok((Imported::entries(rows, notes), bytes, shown))
}

fn describe(settings: &[(&str, String)]) -> String {
    settings
        .iter()
        .map(|(key, value)| format!("{key} {value}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tries_count_as_the_leaderboard_counts_them() {
        let read = |json: &str, tries| {
            let value: Value = serde_json::from_str(json).expect("json");
            outcome(&value, tries, "f").expect("read").0
        };
        assert_eq!(read(r#"{"tests_outcomes":[true]}"#, 1), Some(1.0));
        assert_eq!(read(r#"{"tests_outcomes":[false,true]}"#, 1), Some(0.0));
        assert_eq!(read(r#"{"tests_outcomes":[false,true]}"#, 2), Some(1.0));
        assert_eq!(read(r#"{"tests_outcomes":[false,false]}"#, 2), Some(0.0));
        assert_eq!(read(r#"{"tests_outcomes":[]}"#, 2), None);
        assert_eq!(read(r#"{}"#, 2), None);
        assert_eq!(
            read(r#"{"exception":"Traceback\nValueError: x\n"}"#, 2),
            Some(0.0)
        );
    }

    #[test]
    fn the_run_of_a_results_file_is_found_in_both_layouts() {
        assert_eq!(
            run_of_results_file(Path::new(
                "b/2025-01-01--x/go/exercises/practice/bob/.aider.results.json"
            )),
            PathBuf::from("b/2025-01-01--x")
        );
        assert_eq!(
            run_of_results_file(Path::new(
                "b/2024-09-18--y/zebra-puzzle/.aider.results.json"
            )),
            PathBuf::from("b/2024-09-18--y")
        );
    }
}
