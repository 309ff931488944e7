//! ARC-AGI scoring results (arcprize/arc-agi-benchmarking): its scorer (`python -m
//! arc_agi_benchmarking.scoring --results_dir DIR`) writes `DIR/results.json` with the totals and
//! `task_results`, one entry per task it found a submission for: `score` (the share of the task's
//! test pairs that any attempt solved), `cost` (the attempts' total, USD), `attempts`, tokens and
//! `duration` (the attempts' seconds from their timestamps, summed).
//!
//! - system: the file's folder (the results dir), noted; `--system-name` names it otherwise.
//! - task: the task id; outcome: `score` (in [0, 1]; anything else is refused naming the task);
//!   `cost_usd` = `cost`, `seconds` = `duration`; no group.
//! - The scorer counts only the tasks with a submission file: `--split FILE` (the task list, one
//!   id per line, as the repository's `data/<set>/task_lists/*.txt`) adds the list's other tasks as
//!   0, as the leaderboard scores a task with no answer, and refuses a scored task outside it.

use std::path::Path;

use serde_json::{Map, Value};

use super::{CanonicalRow, Imported, RowStatus};
use crate::data::error::LoadError;

/// Whether a parsed JSON object is the scorer's `results.json`.
pub fn is_results(object: &Map<String, Value>) -> bool {
    object.get("task_results").is_some_and(Value::is_object)
        && object.contains_key("total_tasks")
        && (object.contains_key("avg_cost_per_task") || object.contains_key("total_attempts"))
}

/// A task entry's number at `key`: None when absent or null, an error when it is not a number ≥ 0.
fn amount(entry: &Value, key: &str) -> Result<Option<f64>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_f64()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(Some)
            .ok_or_else(|| format!("{key} is {value}, not a number ≥ 0")),
    }
}

/// The rows of one `results.json`.
pub fn results(
    value: &Value,
    path: &Path,
    file: &str,
    split: Option<&str>,
) -> Result<Imported, LoadError> {
    let tasks = value
        .get("task_results")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            LoadError::new(
                file,
                "not an ARC-AGI scoring results.json (task_results: task id → score, cost, duration)",
            )
        })?;
    let system = super::folder_of_file(path, "arc-agi");
    let mut notes = vec![format!(
        "{file}: ARC-AGI's results.json stores no system name; it is named after its folder (the scorer's results dir), '{system}'"
    )];
    let mut rows = Vec::with_capacity(tasks.len());
    for (task, entry) in tasks {
        let at = |message: String| LoadError::new(file, format!("task '{task}': {message}"));
        let score = match entry.get("score") {
            Some(score) => score
                .as_f64()
                .filter(|s| (0.0..=1.0).contains(s))
                .ok_or_else(|| at(format!("score is {score}, not a share in [0, 1]")))?,
            None => return Err(at("no score".to_string())),
        };
        let attempts = entry.get("attempts").and_then(Value::as_u64);
        rows.push(CanonicalRow {
            system: system.clone(),
            task: task.clone(),
            run: 0,
            outcome: Some(score),
            status: RowStatus::Ok,
            group: None,
            cost_usd: amount(entry, "cost").map_err(&at)?,
            seconds: amount(entry, "duration").map_err(&at)?,
            source: match attempts {
                Some(n) => format!("arc-agi score ({n} attempts)"),
                None => "arc-agi score".to_string(),
            },
        });
    }
    if let Some(total) = value.get("total_tasks").and_then(Value::as_u64)
        && total != tasks.len() as u64
    {
        notes.push(format!(
            "{file}: total_tasks says {total}, task_results holds {}",
            tasks.len()
        ));
    }
    if let Some(split) = split {
        let (listed, unscored) = super::swebench::unscored_in_split(
            split,
            tasks.keys(),
            |task| tasks.contains_key(task),
            file,
            "tasks",
            "ARC-AGI's split is a task list (one task id per line)",
        )?;
        notes.push(format!(
            "{file}: scored against the {listed} tasks listed in {split} (--split){}",
            match unscored.len() {
                0 => String::new(),
                missing =>
                    format!("; the scorer found no submission for {missing} of them: read as 0"),
            }
        ));
        for task in unscored {
            rows.push(CanonicalRow {
                system: system.clone(),
                task,
                run: 0,
                outcome: Some(0.0),
                status: RowStatus::Ok,
                group: None,
                cost_usd: None,
                seconds: None,
                source: "arc-agi no submission".to_string(),
            });
        }
    }
    rows.sort_by(|a, b| a.task.cmp(&b.task));
    Ok(Imported::entries(rows, notes))
}
