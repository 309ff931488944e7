//! MLE-bench grading reports (`mlebench grade`: `grade_jsonl` in openai/mle-bench's `grade.py` writes
//! `<output-dir>/<timestamp>_grading_report.json`): totals and `competition_reports`, one per graded
//! submission, in the order the submissions were listed, with the medal flags
//! (`CompetitionReport.to_dict` in `grade_helpers.py`). Read as follows:
//!
//! - system: the report names no agent, model or seed. When the folder of run groups holds the
//!   leaderboard's `run_group_experiments.csv` (experiment id, run group) and it lists the report's
//!   run group, the experiment names the system and its run groups' seeds are its runs, in the order
//!   MLE-bench's own aggregation reads them (run groups by name, then each competition's repeats);
//!   else the folder it lies in (`run_agent.py` keeps every seed of a run group in
//!   `runs/<run group>/`, and the report is graded there). `--system-name` sets another.
//! - task: `competition_id`; group: the competition's complexity (`low` = MLE-bench Lite, `medium`,
//!   `high`, from `experiments/splits/`), none for a competition outside the 75.
//! - run: the seeds of a run group are graded in one report, so a competition listed k times is runs
//!   0 … k − 1, in the report's order.
//! - outcome: `any_medal` (the leaderboard's headline), or another flag by `--metric`
//!   (`gold_medal`, `silver_medal`, `bronze_medal`, `above_median`); the raw score is not an
//!   outcome (its scale and direction differ by competition).
//! - status: a submission that is missing or that the grader rejected (`valid_submission` false,
//!   score null) is 0 with status error, as the leaderboard counts it failed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// MLE-bench's 75 competitions and their complexity (`experiments/splits/{low,medium,high}.txt` of
/// openai/mle-bench at 783b15a).
const SPLITS: &str = include_str!("../../../assets/mlebench_splits.csv");

/// The flags a report gives per competition that can be an outcome (`--metric`).
const FLAGS: [&str; 5] = [
    "any_medal",
    "gold_medal",
    "silver_medal",
    "bronze_medal",
    "above_median",
];

/// Whether a parsed file is an MLE-bench grading report.
pub fn is_report(object: &Map<String, Value>) -> bool {
    object
        .get("competition_reports")
        .and_then(Value::as_array)
        .and_then(|reports| reports.first())
        .is_some_and(|first| {
            first.get("competition_id").is_some() && first.get("any_medal").is_some()
        })
}

/// Whether a file name is one of a grading report (`*grading_report*.json`, as MLE-bench's own
/// aggregation globs them).
pub fn is_report_name(name: &str) -> bool {
    name.contains("grading_report") && name.ends_with(".json")
}

/// The leaderboard's map of run groups to experiments, in the folder of run groups (read beside
/// the reports, never as records).
pub const EXPERIMENTS_FILE: &str = "run_group_experiments.csv";

/// Where a report stands among its experiment's run groups: the experiment, how many run groups it
/// has, and how many times each competition was graded in the run groups before this one.
struct Experiment {
    name: String,
    run_groups: usize,
    earlier: HashMap<String, u32>,
}

/// The single top-level grading report of a run group folder (MLE-bench's aggregation refuses a
/// run group with several), None when it has none.
fn report_of(run_group: &Path) -> Result<Option<PathBuf>, LoadError> {
    let mut reports = super::files_named(run_group, is_report_name);
    if reports.len() > 1 {
        return Err(LoadError::new(
            run_group.display().to_string(),
            format!(
                "a run group of an experiment in {EXPERIMENTS_FILE} holds {} grading reports (a re-grade?); MLE-bench's aggregation reads one: keep one",
                reports.len()
            ),
        ));
    }
    Ok(reports.pop())
}

/// The experiment of the run group a report lies in, from `run_group_experiments.csv` beside the
/// run groups; None when there is no such file (or it is a Git LFS pointer, noted) or it does not
/// list the run group.
fn experiment_of(report: &Path, notes: &mut Vec<String>) -> Result<Option<Experiment>, LoadError> {
    let absolute = std::fs::canonicalize(report).unwrap_or_else(|_| report.to_path_buf());
    let Some(run_group) = absolute.parent() else {
        return Ok(None);
    };
    let Some(runs) = run_group.parent() else {
        return Ok(None);
    };
    let table = runs.join(EXPERIMENTS_FILE);
    let Ok(text) = std::fs::read_to_string(&table) else {
        return Ok(None);
    };
    if super::refuse_lfs_pointer(&table).is_err() {
        notes.push(format!(
            "{}: a Git LFS pointer (git lfs pull fetches it): run groups are named by their folders",
            table.display()
        ));
        return Ok(None);
    }
    let pairs: Vec<(&str, &str)> = text
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with("experiment_id"))
        .filter_map(|line| line.split_once(','))
        .map(|(experiment, group)| (experiment.trim(), group.trim()))
        .collect();
    let own = run_group
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let Some(name) = pairs
        .iter()
        .find(|(_, group)| Some(*group) == own.as_deref())
        .map(|(experiment, _)| experiment.to_string())
    else {
        return Ok(None);
    };
    let mut groups: Vec<&str> = pairs
        .iter()
        .filter(|(experiment, _)| *experiment == name)
        .map(|(_, group)| *group)
        .collect();
    groups.sort_unstable();
    groups.dedup();
    let mut earlier: HashMap<String, u32> = HashMap::new();
    for group in groups
        .iter()
        .take_while(|group| Some(**group) != own.as_deref())
    {
        let Some(path) = report_of(&runs.join(group))? else {
            continue;
        };
        let file = path.display().to_string();
        let bytes = std::fs::read(&path)
            .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
        let (value, _) = super::json::parse_lenient(&bytes, &file)?;
        for report in value
            .get("competition_reports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(id) = report.get("competition_id").and_then(Value::as_str) {
                *earlier.entry(id.to_string()).or_insert(0) += 1;
            }
        }
    }
    Ok(Some(Experiment {
        name,
        run_groups: groups.len(),
        earlier,
    }))
}

/// The complexity of each of MLE-bench's 75 competitions.
fn complexity() -> HashMap<&'static str, &'static str> {
    SPLITS
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(','))
        .collect()
}

pub fn report(
    value: &Value,
    path: &Path,
    file: &str,
    metric: Option<&str>,
) -> Result<Imported, LoadError> {
    let flag = metric.unwrap_or(FLAGS[0]);
    if !FLAGS.contains(&flag) {
        return Err(LoadError::new(
            file,
            format!(
                "--metric '{flag}': an MLE-bench report's outcome is one of {}",
                FLAGS.join(", ")
            ),
        ));
    }
    let reports = value
        .get("competition_reports")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            LoadError::new(
                file,
                "an MLE-bench report needs a 'competition_reports' array",
            )
        })?;
    let folder = super::folder_name(path).unwrap_or_else(|| "mle-bench".to_string());
    let mut table_notes = Vec::new();
    let experiment = experiment_of(path, &mut table_notes)?;
    let earlier = |competition: &str| {
        experiment
            .as_ref()
            .and_then(|e| e.earlier.get(competition).copied())
            .unwrap_or(0)
    };
    let system = experiment
        .as_ref()
        .map_or_else(|| folder.clone(), |e| e.name.clone());
    let complexity = complexity();
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut rows = Vec::with_capacity(reports.len());
    let (mut missing, mut invalid, mut outside) = (0usize, 0usize, 0usize);
    for (index, report) in reports.iter().enumerate() {
        let competition = super::text_field(report, "competition_id", file, index)?;
        let boolean = |key: &str| -> Result<bool, LoadError> {
            report.get(key).and_then(Value::as_bool).ok_or_else(|| {
                LoadError::new(
                    file,
                    format!(
                        "entry {} ({competition}): '{key}' must be true or false, found {}",
                        index + 1,
                        report.get(key).map_or("none".to_string(), Value::to_string)
                    ),
                )
            })
        };
        let valid = boolean("valid_submission")?;
        let exists = boolean("submission_exists")?;
        let outcome = if boolean(flag)? { 1.0 } else { 0.0 };
        let run = seen
            .entry(competition.clone())
            .or_insert_with(|| earlier(&competition));
        let detail = if valid {
            String::new()
        } else if exists {
            invalid += 1;
            ", the grader rejected the submission".to_string()
        } else {
            missing += 1;
            ", no submission".to_string()
        };
        let group = complexity.get(competition.as_str()).map(|c| c.to_string());
        outside += usize::from(group.is_none());
        rows.push(CanonicalRow {
            system: system.clone(),
            task: competition.clone(),
            run: *run,
            outcome: Some(outcome),
            status: if valid {
                RowStatus::Ok
            } else {
                RowStatus::Error
            },
            group,
            cost_usd: None,
            seconds: None,
            source: format!("mle-bench report entry {}{detail}", index + 1),
        });
        *run += 1;
    }
    let seeds = seen
        .iter()
        .map(|(competition, &after)| after - earlier(competition))
        .max()
        .unwrap_or(0);
    let named = match &experiment {
        Some(e) => format!(
            "the system is experiment '{}' of {EXPERIMENTS_FILE} beside its run group '{folder}' (one of its {}; their seeds are runs, in MLE-bench's order)",
            e.name,
            counted(e.run_groups, "run group", "run groups")
        ),
        None => format!(
            "it names no agent or model, so the system is its folder '{system}' (a run group)"
        ),
    };
    let mut notes = table_notes;
    notes.push(format!(
        "{file}: MLE-bench grading report; {named}; --system-name sets another; the outcome is {flag}{}",
        if seeds > 1 {
            format!(
                "; competitions graded up to {seeds} times (a run group's seeds) are runs, in the report's order"
            )
        } else {
            String::new()
        }
    ));
    let failed: Vec<String> = [
        (
            missing,
            counted(missing, "submission is missing", "submissions are missing"),
        ),
        (
            invalid,
            counted(invalid, "submission was", "submissions were") + " rejected by the grader",
        ),
    ]
    .into_iter()
    .filter(|(count, _)| *count > 0)
    .map(|(_, text)| text)
    .collect();
    if !failed.is_empty() {
        notes.push(format!(
            "{file}: {}: 0, status error (the leaderboard counts them failed)",
            failed.join(", ")
        ));
    }
    if outside > 0 {
        notes.push(format!(
            "{file}: {} not among MLE-bench's 75 competitions: no complexity group",
            counted(
                outside,
                "report is of a competition",
                "reports are of competitions"
            )
        ));
    }
    Ok(Imported::entries(rows, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_splits_give_the_75_competitions_their_complexity() {
        let complexity = complexity();
        assert_eq!(complexity.len(), 75);
        let count = |c: &str| complexity.values().filter(|v| **v == c).count();
        assert_eq!((count("low"), count("medium"), count("high")), (22, 38, 15));
        assert_eq!(complexity["aerial-cactus-identification"], "low");
    }
}
