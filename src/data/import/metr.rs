//! METR's time-horizon runs (`runs.jsonl`, `all_runs.jsonl` of METR/eval-analysis-public): one line
//! per agent run, already long-format. Read as METR's analysis code reads them:
//!
//! - system: `alias` (METR's model identity; `model` is not unique per alias); `human` baseline
//!   runs are a system too, as in the file.
//! - task: `task_id`; group: `task_family` (METR's weights treat families as the unit).
//! - run: the (alias, task)'s runs numbered by `started_at`, then `run_id` (1 to 96 runs each).
//! - outcome: `score_binarized` (what the time horizon is fitted on), or `--metric score_cont`
//!   (`score` in the 2025 files) when it lies in [0, 1].
//! - status: a run with `fatal_error_from` is kept with its score, as METR's fits keep it, and
//!   marked error, so `--exclude-errors` can leave it out.
//! - seconds: `human_minutes` × 60, the task's human time (the length the horizon is measured in);
//!   cost: `generation_cost` (`dollar_equivalent` in the 2025 files).

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, text_field};
use crate::data::error::LoadError;

/// Whether a JSON Lines line is a METR run.
pub fn is_run(object: &serde_json::Map<String, Value>) -> bool {
    ["alias", "task_id", "score_binarized", "run_id"]
        .iter()
        .all(|key| object.contains_key(*key))
}

/// One line, read; the run number is given once every line is in.
struct Line {
    row: CanonicalRow,
    started_at: f64,
    run_id: String,
}

/// The rows of a METR runs file (`lines`: 1-based line number and value).
pub fn runs(
    lines: &[(u64, Value)],
    file: &str,
    metric: Option<&str>,
) -> Result<Imported, LoadError> {
    let metric = metric.unwrap_or("score_binarized");
    let mut read = Vec::with_capacity(lines.len());
    let mut errors = 0usize;
    // A run is one line: the same line written again (a file concatenated twice) is read once and
    // noted; another line with the same run_id is refused (it was counted as one more run).
    let mut seen: std::collections::HashMap<(String, String, String), (u64, &Value)> =
        std::collections::HashMap::new();
    let mut repeated = 0usize;
    for (index, (number, line)) in lines.iter().enumerate() {
        let at = |what: String| LoadError::new(file, format!("line {number}: {what}"));
        let field =
            |key: &str| text_field(line, key, file, index).map_err(|_| at(format!("no {key}")));
        let system = field("alias")?;
        let task = field("task_id")?;
        let run_id = field("run_id")?;
        match seen.entry((system.clone(), task.clone(), run_id.clone())) {
            std::collections::hash_map::Entry::Occupied(first) => {
                let (first_line, first_value) = *first.get();
                if first_value == line {
                    repeated += 1;
                    continue;
                }
                return Err(at(format!(
                    "run {run_id} of {system} on {task} is also on line {first_line}, with other values: a run is one line"
                )));
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert((*number, line));
            }
        }
        let outcome = match line.get(metric) {
            Some(Value::Number(value)) => value.as_f64(),
            Some(Value::Bool(value)) => Some(f64::from(u8::from(*value))),
            None | Some(Value::Null) => None,
            Some(other) => return Err(at(format!("{metric} must be a number, found {other}"))),
        };
        if let Some(value) = outcome
            && !(0.0..=1.0).contains(&value)
        {
            return Err(at(format!(
                "{metric} is {value}, outside [0, 1] (the outcome is a score in [0, 1]; score_binarized is)"
            )));
        }
        let fatal = line
            .get("fatal_error_from")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        errors += usize::from(fatal.is_some());
        let number_of = |key: &str| super::json::amount(line, key);
        read.push(Line {
            row: CanonicalRow {
                system,
                task,
                run: 0,
                outcome,
                status: match (outcome, fatal) {
                    (None, _) => RowStatus::NotAttempted,
                    (Some(_), Some(_)) => RowStatus::Error,
                    (Some(_), None) => RowStatus::Ok,
                },
                group: line
                    .get("task_family")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                cost_usd: number_of("generation_cost").or_else(|| number_of("dollar_equivalent")),
                seconds: number_of("human_minutes").map(|minutes| minutes * 60.0),
                source: format!(
                    "metr run {run_id}{}",
                    fatal.map_or(String::new(), |from| format!(", fatal error from {from}"))
                ),
            },
            started_at: number_of("started_at").unwrap_or(f64::INFINITY),
            run_id,
        });
    }
    // Runs of an (alias, task) numbered by start, then id: the same file gives the same numbers.
    let mut order: Vec<usize> = (0..read.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&read[a], &read[b]);
        (&a.row.system, &a.row.task)
            .cmp(&(&b.row.system, &b.row.task))
            .then(a.started_at.total_cmp(&b.started_at))
            .then(a.run_id.cmp(&b.run_id))
    });
    let mut previous: Option<(String, String)> = None;
    let mut run = 0u32;
    for index in order {
        let key = (read[index].row.system.clone(), read[index].row.task.clone());
        run = if previous.as_ref() == Some(&key) {
            run + 1
        } else {
            0
        };
        previous = Some(key);
        read[index].row.run = run;
    }
    let mut notes = vec![format!(
        "{file}: outcome = {metric}; runs numbered within each (alias, task) by started_at, then run_id; seconds = human_minutes × 60 (the task's human time, not the run's)"
    )];
    if repeated > 0 {
        notes.push(format!(
            "{file}: {repeated} line{} repeat{} an earlier line word for word (the same run_id): read once",
            if repeated == 1 { "" } else { "s" },
            if repeated == 1 { "s" } else { "" }
        ));
    }
    if errors > 0 {
        notes.push(format!(
            "{file}: {} a fatal_error_from: kept with their score, as METR's fits keep them, with status error",
            counted(errors, "run has", "runs have")
        ));
    }
    let line_numbers = lines.iter().map(|(number, _)| *number).collect();
    Ok(Imported {
        rows: read.into_iter().map(|line| line.row).collect(),
        notes,
        lines: Some(line_numbers),
    })
}
