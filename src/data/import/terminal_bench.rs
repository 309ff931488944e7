//! Terminal-Bench 1 runs (`tb run`): `results.json` (`BenchmarkResults`) with `run_metadata.json`
//! beside it, as described in `shared/formats/NOTES.md` §4a.

use std::path::Path;

use serde_json::Value;

use super::time::seconds_between;
use super::{CanonicalRow, Imported, RowStatus, text_field};
use crate::data::error::LoadError;

/// The attempt k of a trial name `<task>.<k>-of-<n>[.<run id>]`, 1-based (the harness numbers a
/// task's n attempts 1 to n); None for a name without that shape, an error for one whose k is not
/// one of 1 ..= n (a run index made of it would be wrong).
fn attempt(trial_name: &str, task: &str) -> Result<Option<u32>, String> {
    let Some(rest) = trial_name
        .strip_prefix(task)
        .and_then(|rest| rest.strip_prefix('.'))
    else {
        return Ok(None);
    };
    let Some((k, n)) = rest.split_once("-of-") else {
        return Ok(None);
    };
    let n = n.split('.').next().unwrap_or_default();
    match (k.parse::<u32>(), n.parse::<u32>()) {
        (Ok(k), Ok(n)) if (1..=n).contains(&k) => Ok(Some(k)),
        _ => Err(format!(
            "trial_name '{trial_name}' does not number its attempt k-of-n with 1 ≤ k ≤ n"
        )),
    }
}

/// The `run_metadata.json` in `folder`, parsed.
fn run_metadata(folder: &Path) -> Option<Value> {
    super::side_json(&folder.join("run_metadata.json"))
        .ok()
        .flatten()
}

/// `agent / model` (or the agent alone) of the `run_metadata.json` in `folder`, if it names an agent.
fn metadata_name(folder: &Path) -> Option<String> {
    let metadata = run_metadata(folder)?;
    let field = |key: &str| {
        metadata
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match (field("agent_name")?, field("model_name")) {
        (agent, Some(model)) => Some(format!("{agent} / {model}")),
        (agent, None) => Some(agent),
    }
}

/// The name of a folder or file (its last component).
fn last_name(path: &Path) -> String {
    path.file_name().map_or("terminal-bench".to_string(), |n| {
        n.to_string_lossy().into_owned()
    })
}

/// Whether a file's name is a Terminal-Bench run's results (`results.json`, or a copy renamed with a
/// prefix, `<date>_results.json`, as some leaderboard submissions keep their runs).
fn is_results_name(name: &str) -> bool {
    name.to_lowercase().ends_with("results.json")
}

/// The Terminal-Bench runs in a folder, by path: its subfolders that hold a `results.json`, and its
/// own files named like one ([`is_results_name`]).
fn runs_in(folder: &Path) -> Vec<std::path::PathBuf> {
    let mut runs: Vec<std::path::PathBuf> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| {
                    let name = last_name(path);
                    !name.starts_with('.')
                        && if path.is_dir() {
                            path.join("results.json").is_file()
                        } else {
                            is_results_name(&name)
                        }
                })
                .collect()
        })
        .unwrap_or_default();
    runs.sort();
    runs
}

/// The folder whose `run_metadata.json` describes a run (its folder, or a run file's folder).
fn run_metadata_folder(run: &Path) -> &Path {
    if run.is_dir() {
        run
    } else {
        run.parent().unwrap_or(Path::new("."))
    }
}

/// Where one run's rows belong: its system, and the offset of its runs.
struct RunPlace {
    system: String,
    offset: u32,
}

/// The system and run offset of the run whose results are `path`. A run folder's `run_metadata.json`
/// names the system (agent and model). A leaderboard submission keeps several runs of one attempt each
/// in a folder (`<submission>/<run>/results.json`, or `<date>_results.json` files): such runs of one
/// system are numbered in path order, and a system with no metadata is named after the submission's
/// folder. A run that holds several attempts per task (`<task>.<k>-of-<n>`) is a submission on its
/// own. When another submission beside it gives the same name (the metadata often names the agent
/// only), the system keeps its folder: `name (folder)`.
fn place(path: &Path, attempts: u32, notes: &mut Vec<String>, file: &str) -> RunPlace {
    // Whole paths, so that a relative one still has the folders above it.
    let path = &path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let run =
        if is_results_name(&last_name(path)) && last_name(path).to_lowercase() != "results.json" {
            path.to_path_buf()
        } else {
            path.parent().unwrap_or(Path::new(".")).to_path_buf()
        };
    let container = run.parent().unwrap_or(Path::new(".")).to_path_buf();
    let named = metadata_name(run_metadata_folder(&run));
    let same: Vec<std::path::PathBuf> = runs_in(&container)
        .into_iter()
        .filter(|other| metadata_name(run_metadata_folder(other)) == named)
        .collect();
    let grouped = attempts == 1 && same.len() > 1 && same.contains(&run);
    let (submission, offset) = if grouped {
        let position = same.iter().position(|other| *other == run).unwrap_or(0);
        (container.clone(), position as u32)
    } else {
        (run.clone(), 0)
    };
    // A submission's runs are noted once, with its first run, naming the folder.
    let shown_folder = {
        let shown = Path::new(file);
        let folder = if run == *path {
            shown.parent()
        } else {
            shown.parent().and_then(Path::parent)
        };
        // A run given as `r1` or `./r1` has the folder above it as "" or "." (shown as "/" and
        // "./"): the container's name then.
        folder
            .filter(|f| !f.as_os_str().is_empty() && *f != Path::new("."))
            .map_or_else(|| last_name(&container), |f| f.display().to_string())
    };
    // The submission's notes are made with each of its runs read, in the same words, so that a run
    // read alone says how it was numbered too (the loader keeps one of identical notes).
    let first = offset == 0;
    let runs = same.len();
    let Some(name) = named else {
        let name = if grouped {
            last_name(&container)
        } else {
            last_name(run_metadata_folder(&run))
        };
        if !grouped {
            notes.push(format!(
                "{file}: no run_metadata.json with an agent_name beside it; the system is named after the folder, '{name}'"
            ));
        } else {
            notes.push(format!(
                "{shown_folder}/: {runs} runs of one attempt per task each, numbered 0–{} in path order, with no run_metadata.json naming an agent; the system is named after the folder, '{name}'",
                runs - 1
            ));
        }
        return RunPlace {
            system: name,
            offset,
        };
    };
    // Another submission beside this one with the same name: runs beside it holding several attempts
    // each, or (for a submission folder of runs) a folder beside the submission holding such runs.
    let shared = if grouped {
        let beside = container.parent().unwrap_or(Path::new("."));
        std::fs::read_dir(beside)
            .map(|entries| {
                entries.flatten().map(|entry| entry.path()).any(|other| {
                    other.is_dir()
                        && other != container
                        && (metadata_name(&other).as_ref() == Some(&name)
                            || runs_in(&other).iter().any(|r| {
                                metadata_name(run_metadata_folder(r)).as_ref() == Some(&name)
                            }))
                })
            })
            .unwrap_or(false)
    } else {
        same.iter().any(|other| *other != run)
    };
    let system = if shared {
        format!("{name} ({})", last_name(&submission))
    } else {
        name.clone()
    };
    let noted = if grouped {
        shown_folder.clone() + "/"
    } else {
        file.to_string()
    };
    if shared && (first || grouped) {
        notes.push(format!(
            "{noted}: run_metadata.json names the system '{name}', as does another submission beside it; the system is '{system}' (--system-name sets another)"
        ));
    }
    if grouped {
        notes.push(format!(
            "{noted}: {runs} runs of '{system}' (one attempt per task each), numbered 0–{} in path order",
            runs - 1
        ));
    }
    // Runs beside it of the same agent whose metadata names another model are another system: say
    // so, as a submission's runs that disagree on the model string are easily taken for one system.
    if first && attempts == 1 {
        let agent = metadata_agent(run_metadata_folder(&run));
        let mut others: Vec<String> = runs_in(&container)
            .iter()
            .map(|other| run_metadata_folder(other))
            .filter(|other| agent.is_some() && metadata_agent(other) == agent)
            .filter_map(metadata_name)
            .filter(|other| *other != name)
            .collect();
        others.sort();
        others.dedup();
        if !others.is_empty() {
            notes.push(format!(
                "{noted}: runs beside it of the same agent name another model in run_metadata.json ({}); they are read as another system",
                others.iter().map(|o| format!("'{o}'")).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    RunPlace { system, offset }
}

/// The `agent_name` of the `run_metadata.json` in `folder`.
fn metadata_agent(folder: &Path) -> Option<String> {
    run_metadata(folder)?
        .get("agent_name")?
        .as_str()
        .map(str::to_string)
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
    // The attempts per task the run holds (n of `<task>.<k>-of-<n>`; 1 without).
    let attempts = results
        .iter()
        .filter_map(|trial| {
            let name = trial.get("trial_name").and_then(Value::as_str)?;
            let task = trial.get("task_id").and_then(Value::as_str)?;
            let rest = name.strip_prefix(task)?.strip_prefix('.')?;
            let (_, n) = rest.split_once("-of-")?;
            n.split('.').next()?.parse::<u32>().ok()
        })
        .max()
        .unwrap_or(1);
    let RunPlace { system, offset } = place(path, attempts, &mut notes, file);
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
        let attempt = attempt(trial_name, &task)
            .map_err(|message| LoadError::new(file, format!("entry {}: {message}", index + 1)))?;
        let run = offset + attempt.map_or(*order, |k| k - 1);
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
    hold_tasks_with_attempts_to_come(path, attempts, &mut rows, &mut notes, file);
    Ok(Imported::entries(rows, notes))
}

/// `tb run` rewrites `results.json` after every trial and sets `end_time` in
/// `run_metadata.json` only when the run ends: while it runs, a task with fewer trials than
/// `n_attempts` has attempts to come, which would change its mean (SPEC §9c), so its trials are
/// not attempted so far. Without a `run_metadata.json` (a leaderboard's copy) the run is done.
fn hold_tasks_with_attempts_to_come(
    path: &Path,
    attempts: u32,
    rows: &mut [CanonicalRow],
    notes: &mut Vec<String>,
    file: &str,
) {
    let Some(metadata) = run_metadata(run_metadata_folder(path)) else {
        return;
    };
    if metadata.get("end_time").is_some_and(|end| !end.is_null()) {
        return;
    }
    let whose = format!("{file}: its run_metadata.json");
    let planned = super::planned_count(&metadata, "n_attempts", &whose, notes)
        .unwrap_or(1)
        .max(u64::from(attempts));
    if planned < 2 {
        return;
    }
    let (held, _) = super::hold_tasks_short_of(rows, planned, "attempts");
    if held > 0 {
        notes.push(format!(
            "{file}: the run is going (run_metadata.json has no end_time): {} of tasks with fewer than its {planned} attempts {} not attempted so far (a task's outcome is the mean of its attempts)",
            super::counted(held, "trial", "trials"),
            if held == 1 { "is" } else { "are" }
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_read_from_trial_names() {
        assert_eq!(
            attempt("hello-world.2-of-2.2025-01-01__00-00-00", "hello-world"),
            Ok(Some(2))
        );
        assert_eq!(
            attempt("reshard-c4-data.3-of-5", "reshard-c4-data"),
            Ok(Some(3))
        );
        assert_eq!(attempt("other.1-of-1", "hello-world"), Ok(None));
        assert_eq!(attempt("hello-world.weird", "hello-world"), Ok(None));
        for wrong in [
            "hello-world.0-of-1",
            "hello-world.6-of-5",
            "hello-world.x-of-2",
        ] {
            assert!(attempt(wrong, "hello-world").is_err(), "{wrong}");
        }
    }
}
