//! LiveCodeBench's graded outputs: `lcb_runner.runner.main --evaluate` writes
//! `output/<model_repr>/Scenario.<scenario>_<n>_<temperature>_eval_all.json`, one record per problem
//! (`question_id`, `platform`, `contest_date`, `difficulty`, the `n` sampled `code_list`, their
//! `graded_list` of booleans, `pass@1`, and per sample `metadata` with the test harness's
//! `error_code` and `error_message`), beside `…_eval.json` (the aggregate, not read). Read as
//! follows:
//!
//! - system: the model folder (`model_repr`, the name LiveCodeBench's leaderboard shows); a model
//!   folder with results of several scenarios or settings: `<model> · <scenario>_<n>_<temperature>`.
//! - task: `question_id` (with `/<test_id>` for test output prediction; `id` for code execution);
//!   group: `difficulty` (easy, medium, hard), else `platform`.
//! - run: the sample's place in `graded_list` (n samples per problem: a problem's pass@1 is the mean
//!   of its runs); outcome: the sample passed every test. A failing sample's harness message
//!   (wrong answer, time limit, runtime error) is in `source`; all are plain failures, as
//!   LiveCodeBench counts them.
//! - A folder of them (LiveCodeBench's `output/`, or one model's folder) is read as one result.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

const EVAL_ALL: &str = "_eval_all.json";

/// Whether a parsed file is LiveCodeBench's graded outputs (an array of problems with a
/// `graded_list`).
pub fn is_eval_all(value: &Value) -> bool {
    value
        .as_array()
        .and_then(|records| records.first())
        .and_then(Value::as_object)
        .is_some_and(|first| {
            first.get("graded_list").is_some_and(Value::is_array)
                && (first.contains_key("question_id") || first.contains_key("id"))
        })
}

/// A folder's `*_eval_all.json` files, in path order.
fn eval_all_in(folder: &Path) -> Vec<PathBuf> {
    super::files_named(folder, |name| name.ends_with(EVAL_ALL))
}

/// The graded files of a folder: its own (a model's folder) and its subfolders' (`output/`).
fn eval_all_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = eval_all_in(folder);
    for sub in super::subfolders(folder) {
        files.extend(eval_all_in(&sub));
    }
    files.sort();
    files
}

/// Whether a folder holds LiveCodeBench's graded outputs: read as one result.
pub fn is_tree(folder: &Path) -> bool {
    folder.is_dir() && !eval_all_files(folder).is_empty()
}

/// Every file of a tree whose change `watch` must see.
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    eval_all_files(folder)
}

/// Whether `name` (lower case) is the aggregate LiveCodeBench writes beside a graded file.
pub fn is_aggregate_beside(path: &Path, name: &str) -> bool {
    name.strip_suffix("_eval.json").is_some_and(|stem| {
        path.parent()
            .is_some_and(|folder| folder.join(format!("{stem}{EVAL_ALL}")).is_file())
    })
}

/// The model folder's name and the file's setting (`Scenario.codegeneration_10_0.2`).
fn model_and_setting(path: &Path) -> (String, String) {
    let model = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let setting = name.strip_suffix(EVAL_ALL).unwrap_or(&name);
    let setting = setting.strip_prefix("Scenario.").unwrap_or(setting);
    (model, setting.to_string())
}

/// The rows of one graded file of `system`, and how many samples failed.
fn read_file(
    value: &Value,
    file: &str,
    system: &str,
    setting: &str,
) -> Result<(Vec<CanonicalRow>, usize), LoadError> {
    let records = value
        .as_array()
        .ok_or_else(|| LoadError::new(file, "not a JSON array of graded problems"))?;
    let mut rows = Vec::new();
    let mut failed = 0usize;
    for (index, record) in records.iter().enumerate() {
        let at = |what: String| LoadError::new(file, format!("entry {}: {what}", index + 1));
        let text = |key: &str| match record.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let task = match (text("question_id"), text("test_id"), text("id")) {
            (Some(question), Some(test), _) => format!("{question}/{test}"),
            (Some(question), None, _) => question,
            (None, _, Some(id)) => id,
            (None, _, None) => return Err(at("no question_id or id".to_string())),
        };
        let graded = record
            .get("graded_list")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                at(format!(
                    "graded_list is {}",
                    super::value_or_missing(record.get("graded_list"))
                ))
            })?;
        let metadata = record.get("metadata").and_then(Value::as_array);
        for (run, grade) in graded.iter().enumerate() {
            let passed = match grade {
                Value::Bool(b) => *b,
                Value::Number(n) if n.as_f64() == Some(0.0) || n.as_f64() == Some(1.0) => {
                    n.as_f64() == Some(1.0)
                }
                other => {
                    return Err(at(format!(
                        "graded_list[{run}] is {other}, not true or false"
                    )));
                }
            };
            failed += usize::from(!passed);
            let mut source = format!("livecodebench {setting} entry {} sample {run}", index + 1);
            // The harness's message for a failing sample (metadata entries are JSON text).
            let message = metadata
                .and_then(|m| m.get(run))
                .and_then(|m| match m {
                    Value::String(s) => serde_json::from_str::<Value>(s).ok(),
                    other => Some(other.clone()),
                })
                .and_then(|m| {
                    m.get("error_message")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
            if let (false, Some(message)) = (passed, message) {
                source.push_str(&format!(": {message}"));
            }
            rows.push(CanonicalRow {
                system: system.to_string(),
                task: task.clone(),
                run: run as u32,
                outcome: Some(f64::from(u8::from(passed))),
                status: RowStatus::Ok,
                group: text("difficulty").or_else(|| text("platform")),
                cost_usd: None,
                seconds: None,
                source,
            });
        }
    }
    Ok((rows, failed))
}

/// The note of a read.
fn note(shown: &str, systems: &[String], rows: usize) -> String {
    format!(
        "{shown}: LiveCodeBench graded outputs of {} ({}); each sample is a run, its outcome whether it passed every test (a problem's pass@1 is the mean of its runs)",
        systems.join(", "),
        counted(rows, "sample", "samples")
    )
}

/// The rows of one graded file given alone (its system the model folder it is in).
pub fn eval_all(value: &Value, path: &Path, file: &str) -> Result<Imported, LoadError> {
    let (model, setting) = model_and_setting(path);
    let (rows, _) = read_file(value, file, &model, &setting)?;
    let notes = vec![note(file, std::slice::from_ref(&model), rows.len())];
    Ok(Imported::entries(rows, notes))
}

/// The rows of a folder of graded files, the bytes read (for the content hash) and the name
/// messages use.
pub fn tree(folder: &Path) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = folder.display().to_string();
    let files = eval_all_files(folder);
    // Models with more than one graded file: their systems name the setting.
    let mut per_model: BTreeMap<String, usize> = BTreeMap::new();
    for file in &files {
        *per_model.entry(model_and_setting(file).0).or_default() += 1;
    }
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    let mut systems = Vec::new();
    for path in &files {
        let file = path.display().to_string();
        let (value, text) = super::read_value_member(
            path,
            is_eval_all,
            "LiveCodeBench's graded outputs (an array of problems with graded_list)",
        )?;
        let (model, setting) = model_and_setting(path);
        let system = if per_model[&model] > 1 {
            format!("{model} · {setting}")
        } else {
            model
        };
        let (read, _) = read_file(&value, &file, &system, &setting)?;
        rows.extend(read);
        systems.push(system);
        bytes.extend_from_slice(&text);
    }
    let mut notes = vec![note(&shown, &systems, rows.len())];
    if per_model.values().any(|&n| n > 1) {
        notes.push(format!(
            "{shown}: a model folder with graded outputs of several scenarios or settings: each is a system of its own, named `<model> · <scenario>_<n>_<temperature>`"
        ));
    }
    Ok((Imported::entries(rows, notes), bytes, shown))
}
