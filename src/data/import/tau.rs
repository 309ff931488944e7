//! tau-bench v1 (`EnvRunResult` arrays) and tau2-bench (`Results` with `simulations`), as described in
//! `shared/formats/NOTES.md` §6.

use std::path::Path;

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, number_field, text_field};
use crate::data::error::LoadError;

/// tau-bench v1 writes no system name: the file name's `<agent>-<model>-<temperature>` part is used
/// (`tool-calling-gpt-4o-0.0_range_0-50_user-…` → `tool-calling-gpt-4o`), else the file's stem.
fn system_from_file_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let head = stem.split("_range_").next().unwrap_or(&stem);
    match head.rsplit_once('-') {
        Some((name, temperature)) if temperature.parse::<f64>().is_ok() && head != stem => {
            name.to_string()
        }
        _ => head.to_string(),
    }
}

pub fn tau_bench(value: &Value, path: &Path, file: &str) -> Result<Imported, LoadError> {
    let entries = value.as_array().ok_or_else(|| {
        LoadError::new(file, "a tau-bench file must hold a JSON array of results")
    })?;
    let system = system_from_file_name(path);
    let mut rows = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let task = text_field(entry, "task_id", file, index)?;
        let outcome = number_field(entry, "reward", file, index)?
            .ok_or_else(|| LoadError::new(file, format!("entry {} has no reward", index + 1)))?;
        let trial = match number_field(entry, "trial", file, index)? {
            Some(t) if t >= 0.0 && t.fract() == 0.0 => t as u32,
            None => 0,
            Some(t) => {
                return Err(LoadError::new(
                    file,
                    format!("entry {}: trial '{t}' is not a whole number ≥ 0", index + 1),
                ));
            }
        };
        // An exception is written as reward 0 with info.error: an error, not a failure.
        let error = entry
            .get("info")
            .and_then(|info| info.get("error"))
            .filter(|e| !e.is_null());
        rows.push(CanonicalRow {
            system: system.clone(),
            task,
            run: trial,
            outcome: Some(outcome),
            status: if error.is_some() {
                RowStatus::Error
            } else {
                RowStatus::Ok
            },
            group: None,
            cost_usd: None,
            seconds: None,
            source: format!("tau-bench entry {}, trial {trial}", index + 1),
        });
    }
    Ok(Imported {
        rows,
        notes: vec![format!(
            "{file}: tau-bench files name no system; '{system}' is taken from the file name"
        )],
        lines: None,
    })
}

pub fn tau2(value: &Value, file: &str) -> Result<Imported, LoadError> {
    let info = value
        .get("info")
        .ok_or_else(|| LoadError::new(file, "a tau2 file needs 'info'"))?;
    let agent = info.get("agent_info");
    let implementation = agent
        .and_then(|a| a.get("implementation"))
        .and_then(Value::as_str)
        .ok_or_else(|| LoadError::new(file, "a tau2 file needs info.agent_info.implementation"))?;
    let system = match agent.and_then(|a| a.get("llm")).and_then(Value::as_str) {
        Some(llm) => format!("{implementation} / {llm}"),
        None => implementation.to_string(),
    };
    let group = info
        .get("environment_info")
        .and_then(|e| e.get("domain_name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let simulations = value
        .get("simulations")
        .and_then(Value::as_array)
        .ok_or_else(|| LoadError::new(file, "a tau2 file needs a 'simulations' array"))?;
    let mut rows = Vec::with_capacity(simulations.len());
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for (index, simulation) in simulations.iter().enumerate() {
        let task = text_field(simulation, "task_id", file, index)?;
        let order = seen.entry(task.clone()).or_insert(0);
        let run = match number_field(simulation, "trial", file, index)? {
            Some(t) if t >= 0.0 && t.fract() == 0.0 => t as u32,
            // No trial index: the order of the task's simulations in the file.
            None => *order,
            Some(t) => {
                return Err(LoadError::new(
                    file,
                    format!(
                        "simulation {}: trial '{t}' is not a whole number ≥ 0",
                        index + 1
                    ),
                ));
            }
        };
        *order += 1;
        let reward = match simulation.get("reward_info") {
            None | Some(Value::Null) => None,
            Some(reward_info) => number_field(reward_info, "reward", file, index)?,
        };
        let termination = simulation
            .get("termination_reason")
            .and_then(Value::as_str)
            .unwrap_or("");
        let errored = reward.is_none() || matches!(termination, "agent_error" | "user_error");
        rows.push(CanonicalRow {
            system: system.clone(),
            task,
            run,
            // A simulation without a reward was not scored; the harness counts it as 0.
            outcome: Some(reward.unwrap_or(0.0)),
            status: if errored {
                RowStatus::Error
            } else {
                RowStatus::Ok
            },
            group: group.clone(),
            cost_usd: number_field(simulation, "agent_cost", file, index)?,
            seconds: number_field(simulation, "duration", file, index)?,
            source: format!(
                "tau2 simulation {}, trial {run}{}",
                simulation.get("id").and_then(Value::as_str).unwrap_or("?"),
                if termination.is_empty() {
                    String::new()
                } else {
                    format!(", {termination}")
                }
            ),
        });
    }
    Ok(Imported::entries(rows, Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tau_bench_system_names_come_from_the_file_name() {
        let name = |n: &str| system_from_file_name(Path::new(n));
        assert_eq!(
            name("tool-calling-gpt-4o-0.0_range_0-50_user-gpt-4o-llm_0618150115.json"),
            "tool-calling-gpt-4o"
        );
        assert_eq!(
            name("assertions-agent-none-0.1_range_80-90_user-none-llm_0618150115.json"),
            "assertions-agent-none"
        );
        assert_eq!(name("gpt-4o-airline.json"), "gpt-4o-airline");
    }
}
