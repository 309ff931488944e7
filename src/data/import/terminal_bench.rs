//! Terminal-Bench 1 runs (`tb run`): `results.json` (`BenchmarkResults`) with `run_metadata.json`
//! beside it, as described in `shared/formats/NOTES.md` §4a.

use std::path::Path;

use serde_json::Value;

use super::time::seconds_between;
use super::{CanonicalRow, Imported, RowStatus, text_field};
use crate::data::error::LoadError;

/// The attempt k of a trial name `<task>.<k>-of-<n>[.<run id>]`, 1-based.
fn attempt(trial_name: &str, task: &str) -> Option<u32> {
    let rest = trial_name.strip_prefix(task)?.strip_prefix('.')?;
    let (k, _) = rest.split_once("-of-")?;
    k.parse().ok().filter(|&k| k >= 1)
}

/// The system from `run_metadata.json` beside the results (agent and model), else the folder's name.
fn system(path: &Path, notes: &mut Vec<String>, file: &str) -> String {
    let folder = path.parent().unwrap_or(Path::new("."));
    let metadata = std::fs::read(folder.join("run_metadata.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
    let field = |key: &str| {
        metadata
            .as_ref()
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match (field("agent_name"), field("model_name")) {
        (Some(agent), Some(model)) => format!("{agent} / {model}"),
        (Some(agent), None) => agent,
        (None, _) => {
            let name = folder
                .file_name()
                .map_or("terminal-bench".to_string(), |n| {
                    n.to_string_lossy().into_owned()
                });
            notes.push(format!(
                "{file}: no run_metadata.json with an agent_name beside it; the system is named after the folder, '{name}'"
            ));
            name
        }
    }
}

pub fn results(value: &Value, path: &Path, file: &str) -> Result<Imported, LoadError> {
    let results = value
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            LoadError::new(
                file,
                "a Terminal-Bench results.json needs a 'results' array",
            )
        })?;
    let mut notes = Vec::new();
    let system = system(path, &mut notes, file);
    let mut attempts_seen: std::collections::HashMap<String, u32> =
        std::collections::HashMap::new();
    let mut rows = Vec::with_capacity(results.len());
    for (index, trial) in results.iter().enumerate() {
        let task = text_field(trial, "task_id", file, index)?;
        let trial_name = trial
            .get("trial_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let order = attempts_seen.entry(task.clone()).or_insert(0);
        // k-of-n is 1-based; without it, the order of the task's trials in the file.
        let run = attempt(trial_name, &task).map_or(*order, |k| k - 1);
        *order += 1;
        let (outcome, status) = match trial.get("is_resolved") {
            Some(Value::Bool(true)) => (1.0, RowStatus::Ok),
            Some(Value::Bool(false)) => (0.0, RowStatus::Ok),
            // Never reached test parsing: the harness counts it unresolved; it is an error.
            None | Some(Value::Null) => (0.0, RowStatus::Error),
            Some(other) => {
                return Err(LoadError::new(
                    file,
                    format!(
                        "entry {}: is_resolved must be true, false or null, found {other}",
                        index + 1
                    ),
                ));
            }
        };
        let seconds = seconds_between(trial, "trial_started_at", "trial_ended_at");
        let failure = trial
            .get("failure_mode")
            .and_then(Value::as_str)
            .filter(|mode| status == RowStatus::Error || !matches!(*mode, "unset" | "none"));
        rows.push(CanonicalRow {
            system: system.clone(),
            task,
            run,
            outcome: Some(outcome),
            status,
            group: None,
            cost_usd: None,
            seconds,
            source: format!(
                "terminal-bench trial {trial_name}{}",
                failure.map_or(String::new(), |mode| format!(", failure mode {mode}"))
            ),
        });
    }
    Ok(Imported::entries(rows, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_read_from_trial_names() {
        assert_eq!(
            attempt("hello-world.2-of-2.2025-01-01__00-00-00", "hello-world"),
            Some(2)
        );
        assert_eq!(
            attempt("reshard-c4-data.3-of-5", "reshard-c4-data"),
            Some(3)
        );
        assert_eq!(attempt("other.1-of-1", "hello-world"), None);
        assert_eq!(attempt("hello-world.0-of-1", "hello-world"), None);
    }
}
