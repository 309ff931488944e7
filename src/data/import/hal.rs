//! HAL uploads (`results/<benchmark>/<run_id>/<run_id>_UPLOAD.json`), as hal-harness's
//! `BaseBenchmark.process_results` writes them: `config` (agent, benchmark, run id, agent args),
//! `results` (the benchmark's metrics with `successful_tasks`/`failed_tasks`, or `passed_tasks`, and
//! `latencies`), `raw_eval_results` (the benchmark's own grading), `wall_clock_times`,
//! `task_metrics`. Read as HAL's leaderboard counts a run:
//!
//! - system: `config.agent_name` (with `agent_args.model_name` when the name does not hold it);
//!   group: `config.benchmark_name`; run: 0 (HAL repeats a run under another run id).
//! - outcome: 1 for a successful task, 0 for a failed one; a task whose `raw_eval_results` entry
//!   carries a numeric `reward` in [0, 1] (tau-bench, whose accuracy is the mean reward) has that.
//! - status: an entry that is a string (`"ERROR: …"`, `"TIMEOUT after N seconds"`: the agent failed)
//!   or has an `error` is a failure with status error; SWE-bench's `error_ids` too. SWE-bench's
//!   `empty_patch_ids` are in neither list: unresolved, 0, as SWE-bench counts them, with a note. A
//!   task HAL traced but never graded (in `latencies` or `raw_logging_results` only) is not attempted.
//! - seconds: `wall_clock_times`, else `latencies[t].total_time` (first to last model call); cost:
//!   the agent's own per-task `estimated_cost`/`cost` (`task_metrics`, `raw_eval_results`) or
//!   `results.costs`; `total_cost` covers the run only and is noted.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// Whether a parsed file is a HAL upload.
pub fn is_upload(object: &Map<String, Value>) -> bool {
    let config = object
        .get("config")
        .and_then(Value::as_object)
        .is_some_and(|config| {
            config.contains_key("agent_name") || config.contains_key("benchmark_name")
        });
    object.contains_key("raw_eval_results")
        && ((object.contains_key("results") && config)
            || object.contains_key("raw_logging_results"))
}

/// The upload of a HAL run folder (`<run_id>_UPLOAD.json`), if the folder holds one.
pub fn upload_in(folder: &std::path::Path) -> Option<std::path::PathBuf> {
    let mut uploads = super::files_named(folder, |name| name.ends_with("_upload.json"));
    // One run, one upload: a folder of several is a folder of files, read one by one.
    (uploads.len() == 1).then(|| uploads.remove(0))
}

/// Whether a file beside an upload is one of its run's other files (the raw `<run_id>.json`, the
/// wall-clock and raw-submission lines), read through the upload.
pub fn is_run_companion(path: &std::path::Path, name: &str) -> bool {
    if name.ends_with("_wall_clock_times.jsonl") || name.ends_with("_raw_submissions.jsonl") {
        return true;
    }
    if !name.ends_with(".json") || name.ends_with("_upload.json") {
        return false;
    }
    // `<run_id>.json` beside `<run_id>_UPLOAD.json`, as HAL names them (one look, not a listing).
    match (path.file_stem(), path.parent()) {
        (Some(stem), Some(folder)) => folder
            .join(format!("{}_UPLOAD.json", stem.to_string_lossy()))
            .is_file(),
        _ => false,
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| match item {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

fn number(value: Option<&Value>) -> Option<f64> {
    value.and_then(Value::as_f64)
}

/// One task's state, filled from the parts of the upload that mention it.
#[derive(Default)]
struct Task {
    outcome: Option<f64>,
    status: Option<RowStatus>,
    detail: Option<String>,
}

pub fn upload(value: &Value, file: &str) -> Result<Imported, LoadError> {
    let bad = |what: &str| LoadError::new(file, what.to_string());
    let object = value
        .as_object()
        .ok_or_else(|| bad("a HAL upload is a JSON object"))?;
    let config = object.get("config").and_then(Value::as_object);
    let text = |key: &str| {
        config
            .and_then(|c| c.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let model = config
        .and_then(|c| c.get("agent_args"))
        .and_then(|a| a.get("model_name").or_else(|| a.get("model")))
        .and_then(Value::as_str);
    let system = match (text("agent_name"), model) {
        (Some(agent), Some(model)) if !agent.contains(model) => format!("{agent} ({model})"),
        (Some(agent), _) => agent.to_string(),
        (None, Some(model)) => model.to_string(),
        (None, None) => text("run_id")
            .map(str::to_string)
            .ok_or_else(|| bad("the upload's config names no agent_name, model or run_id"))?,
    };
    let benchmark = text("benchmark_name").map(str::to_string);
    let results = object.get("results").and_then(Value::as_object);
    let result = |key: &str| results.and_then(|r| r.get(key));
    let raw = object.get("raw_eval_results");
    let mut tasks: BTreeMap<String, Task> = BTreeMap::new();
    let successful = {
        let mut listed = strings(result("successful_tasks"));
        listed.extend(strings(result("passed_tasks")));
        listed
    };
    for id in &successful {
        tasks.entry(id.clone()).or_default().outcome = Some(1.0);
    }
    for id in strings(result("failed_tasks")) {
        tasks.entry(id).or_default().outcome = Some(0.0);
    }
    let lists = !tasks.is_empty();
    let mut notes = Vec::new();
    // A SWE-bench run report: its error and empty-patch ids say more than the two lists.
    let report = raw
        .and_then(Value::as_object)
        .filter(|r| r.contains_key("resolved_ids") || r.contains_key("empty_patch_ids"));
    if let Some(report) = report {
        for id in strings(report.get("error_ids")) {
            let task = tasks.entry(id).or_default();
            task.outcome = Some(0.0);
            task.status = Some(RowStatus::Error);
            task.detail = Some("harness error".to_string());
        }
        let empty = strings(report.get("empty_patch_ids"));
        for id in &empty {
            let task = tasks.entry(id.clone()).or_default();
            if task.outcome.is_none() {
                task.outcome = Some(0.0);
                task.detail = Some("empty patch".to_string());
            }
        }
        if !empty.is_empty() {
            notes.push(format!(
                "{file}: {} of the SWE-bench report (in neither of HAL's lists): unresolved, 0, as SWE-bench counts them",
                counted(empty.len(), "empty patch", "empty patches")
            ));
        }
    } else if let Some(entries) = raw.and_then(Value::as_object) {
        for (id, entry) in entries {
            // Entries of tasks HAL lists, or, without lists, every entry (the graded tasks).
            if lists && !tasks.contains_key(id) {
                continue;
            }
            let task = tasks.entry(id.clone()).or_default();
            match entry {
                Value::String(message) => {
                    task.outcome = Some(0.0);
                    task.status = Some(RowStatus::Error);
                    task.detail = Some(message.chars().take(80).collect());
                }
                Value::Object(fields) => {
                    if let Some(reward) = number(fields.get("reward"))
                        && (0.0..=1.0).contains(&reward)
                    {
                        task.outcome = Some(reward);
                    }
                    if fields.get("error").is_some_and(|e| !e.is_null() && e != "") {
                        task.status = Some(RowStatus::Error);
                        task.outcome = task.outcome.or(Some(0.0));
                        task.detail = fields
                            .get("error")
                            .map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_string))
                            .map(|e| e.chars().take(80).collect());
                    }
                }
                _ => {}
            }
        }
    }
    if tasks.is_empty() {
        return Err(bad(
            "the upload grades no task: no successful_tasks, passed_tasks or failed_tasks, and no raw_eval_results keyed by task",
        ));
    }
    // Traced by HAL but never graded: ran, no result.
    let traced: Vec<String> = [
        result("latencies"),
        object.get("raw_logging_results"),
        object.get("wall_clock_times"),
    ]
    .into_iter()
    .flatten()
    .filter_map(Value::as_object)
    .flat_map(|m| m.keys().cloned())
    .collect();
    let mut ungraded = 0usize;
    for id in traced {
        if let std::collections::btree_map::Entry::Vacant(slot) = tasks.entry(id) {
            ungraded += 1;
            slot.insert(Task {
                detail: Some("traced, never graded".to_string()),
                ..Task::default()
            });
        }
    }
    if ungraded > 0 {
        notes.push(format!(
            "{file}: {} in HAL's traces but in no result: not attempted",
            counted(ungraded, "task is", "tasks are")
        ));
    }
    let seconds_of = |id: &str| {
        number(object.get("wall_clock_times").and_then(|w| w.get(id))).or_else(|| {
            let latency = result("latencies").and_then(|l| l.get(id))?;
            number(latency.get("total_time")).or_else(|| latency.as_f64())
        })
    };
    let cost_of = |id: &str| {
        let metrics = object.get("task_metrics").and_then(|m| m.get(id));
        number(metrics.and_then(|m| m.get("estimated_cost")))
            .or_else(|| {
                let entry = raw.and_then(|r| r.get(id));
                number(entry.and_then(|e| e.get("cost"))).or_else(|| {
                    number(
                        entry
                            .and_then(|e| e.get("metrics"))
                            .and_then(|m| m.get("estimated_cost")),
                    )
                })
            })
            .or_else(|| number(result("costs").and_then(|c| c.get(id))))
    };
    let mut rows = Vec::with_capacity(tasks.len());
    let mut errors = 0usize;
    for (id, task) in tasks {
        let status = match (task.outcome, task.status) {
            (None, _) => RowStatus::NotAttempted,
            (Some(_), Some(status)) => status,
            (Some(_), None) => RowStatus::Ok,
        };
        errors += usize::from(status == RowStatus::Error);
        rows.push(CanonicalRow {
            system: system.clone(),
            task: id.clone(),
            run: 0,
            outcome: task.outcome,
            status,
            group: benchmark.clone(),
            cost_usd: cost_of(&id),
            seconds: seconds_of(&id),
            source: format!(
                "hal {}{}",
                text("run_id").unwrap_or("upload"),
                task.detail.map_or(String::new(), |d| format!(", {d}"))
            ),
        });
    }
    notes.insert(
        0,
        format!(
            "{file}: HAL run {} of {}: outcome 1 for successful_tasks, 0 for failed_tasks{}",
            text("run_id").unwrap_or("?"),
            benchmark.as_deref().unwrap_or("?"),
            if raw.and_then(|r| r.as_object()).is_some_and(|r| {
                r.values()
                    .any(|v| v.get("reward").is_some_and(Value::is_number))
            }) {
                " (a task's reward where its raw result has one)"
            } else {
                ""
            }
        ),
    );
    if errors > 0 {
        notes.push(format!(
            "{file}: {} (an agent error or timeout, or a harness error): 0, status error",
            counted(
                errors,
                "task failed with an error",
                "tasks failed with an error"
            )
        ));
    }
    if rows.iter().all(|r| r.cost_usd.is_none())
        && let Some(total) = number(object.get("total_cost").or(result("total_cost")))
    {
        notes.push(format!(
            "{file}: no per-task cost; the run's total_cost is ${total:.4} (HAL prices only the models in its table)"
        ));
    }
    Ok(Imported::entries(rows, notes))
}
