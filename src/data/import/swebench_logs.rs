//! The SWE-bench harness's evaluation logs, as they fill while `run_evaluation` grades:
//! `logs/run_evaluation/<run_id>/<model>/<instance_id>/`, where `run_instance` creates the folder
//! and its `run_instance.log` when it starts an instance and writes `report.json` (`{<instance_id>:
//! {patch_is_None, patch_exists, patch_successfully_applied, resolved, tests_status}}`) once the
//! instance is graded; the run report (`<model>.<run_id>.json`) comes only at the end. So a team
//! can follow a grading run, and `pareval run` can end it once decided. Read as follows:
//!
//! - files: `logs/run_evaluation/`, a run's folder (`<run_id>/`, with the harness's `run.json`) or a
//!   model's folder below it; recognised by the layout.
//! - system: `<model>.<run_id>` with the model's `__` read as `/`: the name the run report gets when
//!   the run ends, so the live rows and the final report are one system.
//! - task: the instance id; group: its repository.
//! - outcome: `report.json`'s `resolved` (an empty patch or one that did not apply is unresolved);
//!   an instance with a log and no report whose log holds the harness's error (`Error in evaluating
//!   model for …`, or a traceback) → 0 with status error, as the run report's `error_ids`; with
//!   neither → not attempted (being graded now). A report swebench 5 flags `infra_failure` (an
//!   environment fault found in the test log, still unresolved in its counts) → 0 with status
//!   error, as the run report's `infra_failure_ids`.
//! - `--split` (lite, verified, or a file of instance ids): the split's instances a run has not
//!   started yet (no folder) are rows too, not attempted, so the coverage views show what a partial
//!   run skipped; started instances outside the split are kept, noted.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, subfolders, value_or_missing};
use crate::data::error::LoadError;

const REPORT: &str = "report.json";
const LOG: &str = "run_instance.log";
/// How many instance folders are looked at to tell a model's folder (the harness makes them all
/// alike).
const LOOKED_AT: usize = 3;

/// Whether a folder is one instance's: the harness's log, or a report of its shape (one key, the
/// instance id, holding `resolved`).
fn is_instance(folder: &Path) -> bool {
    if folder.join(LOG).is_file() {
        return true;
    }
    let report = folder.join(REPORT);
    let small = std::fs::metadata(&report).is_ok_and(|m| m.is_file() && m.len() < 1 << 20);
    small
        && std::fs::read(&report)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .and_then(|value| {
                let object = value.as_object()?;
                (object.len() == 1).then(|| object.values().next()?.get("resolved").cloned())?
            })
            .is_some()
}

/// Whether a folder holds instance folders (its first few).
fn holds_instances(folder: &Path) -> bool {
    subfolders(folder)
        .iter()
        .take(LOOKED_AT)
        .any(|instance| is_instance(instance))
}

/// Whether a folder is a run's: the harness's `run.json` in it, or its place in
/// `logs/run_evaluation/` (older harnesses write no `run.json`). A leaderboard submission's
/// `logs/<instance>/` copies are not a run (their submission's results file is read instead).
fn placed_as_run(folder: &Path) -> bool {
    folder.join("run.json").is_file()
        || folder
            .canonicalize()
            .ok()
            .and_then(|p| {
                p.parent()
                    .and_then(Path::file_name)
                    .map(|n| n == "run_evaluation")
            })
            .unwrap_or(false)
}

/// Whether a folder is a run's folder holding a model's instances.
fn is_run(folder: &Path) -> bool {
    placed_as_run(folder)
        && subfolders(folder)
            .iter()
            .take(LOOKED_AT)
            .any(|model| holds_instances(model))
}

/// Whether a folder is one model's folder of a run.
fn is_model_folder(folder: &Path) -> bool {
    holds_instances(folder)
        && folder
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(placed_as_run))
            .unwrap_or(false)
}

/// Whether a folder is the harness's evaluation logs: `logs/run_evaluation/`, a run's folder or a
/// model's folder.
pub fn is_logs(folder: &Path) -> bool {
    folder.is_dir()
        && (is_model_folder(folder)
            || is_run(folder)
            || (folder.file_name().is_some_and(|n| n == "run_evaluation")
                && subfolders(folder).iter().any(|run| is_run(run))))
}

/// The model folders under a logs folder, with their run ids.
fn model_folders(folder: &Path) -> Vec<(PathBuf, String)> {
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if is_model_folder(folder) {
        let run_id = folder
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(name))
            .unwrap_or_default();
        return vec![(folder.to_path_buf(), run_id)];
    }
    let runs = if is_run(folder) {
        vec![folder.to_path_buf()]
    } else {
        subfolders(folder)
            .into_iter()
            .filter(|r| is_run(r))
            .collect()
    };
    runs.iter()
        .flat_map(|run| {
            let run_id = name(run);
            subfolders(run)
                .into_iter()
                .filter(|m| is_model_folder(m))
                .map(move |m| (m, run_id.clone()))
        })
        .collect()
}

/// Every log and report of a logs folder, whose change `watch` must see.
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    model_folders(folder)
        .into_iter()
        .flat_map(|(model, _)| subfolders(&model))
        .flat_map(|instance| [instance.join(REPORT), instance.join(LOG)])
        .filter(|f| f.is_file())
        .collect()
}

/// Whether an instance's log holds the harness's evaluation error.
fn log_has_error(log: &Path) -> bool {
    std::fs::read_to_string(log).is_ok_and(|text| {
        text.contains("Error in evaluating model for")
            || text.contains("Traceback (most recent call last)")
    })
}

/// The rows of a logs folder, the bytes read (for the content hash) and the name messages use.
pub fn results(
    folder: &Path,
    split: Option<&str>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = folder.display().to_string();
    let mut split_notes = Vec::new();
    let split_ids = split
        .map(|split| super::swebench::split_instances(split, &shown, &mut split_notes))
        .transpose()?;
    let (mut not_started, mut outside) = (0, 0);
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    let (mut graded, mut grading, mut errors, mut infra) = (0, 0, 0, 0);
    let mut systems = Vec::new();
    for (model, run_id) in model_folders(folder) {
        let model_name = model
            .file_name()
            .map(|n| n.to_string_lossy().replace("__", "/"))
            .unwrap_or_default();
        let system = format!("{model_name}.{run_id}");
        systems.push(system.clone());
        let first_row = rows.len();
        for instance in subfolders(&model) {
            let folder_id = instance
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let report = instance.join(REPORT);
            let (id, outcome, status, why) = if report.is_file() {
                let file = report.display().to_string();
                let text = std::fs::read(&report)
                    .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
                let (value, _) = super::json::parse_lenient(&text, &file)?;
                bytes.extend_from_slice(&text);
                let (id, entry) = value
                    .as_object()
                    .filter(|o| o.len() == 1)
                    .and_then(|o| o.iter().next())
                    .ok_or_else(|| {
                        LoadError::new(
                            &file,
                            "not the harness's instance report ({<instance_id>: {resolved, …}})",
                        )
                    })?;
                let resolved = match entry.get("resolved") {
                    Some(Value::Bool(b)) => *b,
                    other => {
                        return Err(LoadError::new(
                            &file,
                            format!(
                                "'{id}' resolved is {}, not true or false",
                                value_or_missing(other)
                            ),
                        ));
                    }
                };
                let flag = |key: &str| entry.get(key).and_then(Value::as_bool);
                graded += 1;
                // swebench 5 flags an environment fault it found in the test log (#586); the
                // instance stays unresolved in its counts, but it is not the agent's failure.
                let (status, why) = if resolved {
                    (RowStatus::Ok, "resolved".to_string())
                } else if flag("infra_failure") == Some(true) {
                    infra += 1;
                    let reason = entry
                        .get("infra_failure_reason")
                        .and_then(Value::as_str)
                        .unwrap_or("no reason given");
                    (
                        RowStatus::Error,
                        format!("likely infrastructure failure ({reason})"),
                    )
                } else if flag("patch_is_None") == Some(true) || flag("patch_exists") == Some(false)
                {
                    (RowStatus::Ok, "empty patch".to_string())
                } else if flag("patch_successfully_applied") == Some(false) {
                    (RowStatus::Ok, "patch did not apply".to_string())
                } else {
                    (RowStatus::Ok, "unresolved".to_string())
                };
                (id.clone(), Some(f64::from(u8::from(resolved))), status, why)
            } else if log_has_error(&instance.join(LOG)) {
                errors += 1;
                (
                    folder_id,
                    Some(0.0),
                    RowStatus::Error,
                    "evaluation error".to_string(),
                )
            } else {
                grading += 1;
                (
                    folder_id,
                    None,
                    RowStatus::NotAttempted,
                    "being graded".to_string(),
                )
            };
            rows.push(CanonicalRow {
                system: system.clone(),
                group: super::openhands::swebench_repo(&id),
                task: id,
                run: 0,
                outcome,
                status,
                cost_usd: None,
                seconds: None,
                source: format!("swebench run_evaluation log: {why}"),
            });
        }
        // With the split's instance list, the instances this run has not started are rows too
        // (not attempted), so the coverage views show what a partial run skipped.
        if let Some(ids) = &split_ids {
            let started: std::collections::HashSet<String> =
                rows[first_row..].iter().map(|r| r.task.clone()).collect();
            let listed: std::collections::HashSet<&String> = ids.iter().collect();
            outside += started.iter().filter(|id| !listed.contains(id)).count();
            for id in ids.iter().filter(|id| !started.contains(*id)) {
                not_started += 1;
                rows.push(CanonicalRow {
                    system: system.clone(),
                    group: super::openhands::swebench_repo(id),
                    task: id.clone(),
                    run: 0,
                    outcome: None,
                    status: RowStatus::NotAttempted,
                    cost_usd: None,
                    seconds: None,
                    source: "swebench run_evaluation log: not started (in --split, no log folder)"
                        .to_string(),
                });
            }
        }
    }
    let mut notes = vec![format!(
        "{shown}: the SWE-bench harness's evaluation logs of {}: {graded} instances graded (report.json){}{}; systems are named <model>.<run_id> ('__' read as '/'), as the run report the harness writes at the end",
        systems
            .iter()
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join(", "),
        if grading > 0 {
            format!(", {grading} being graded (a log, no report yet: not attempted)")
        } else {
            String::new()
        },
        if errors > 0 {
            format!(", {errors} with the harness's evaluation error in their log (status error, 0)")
        } else {
            String::new()
        }
    )];
    if infra > 0 {
        notes.push(format!(
            "{shown}: {infra} instances the harness flags as likely infrastructure failures (infra_failure in their report: environment faults it still counts unresolved): status error with 0, so --exclude-errors can leave them out of a replay's averages"
        ));
    }
    notes.extend(split_notes);
    if let Some(ids) = &split_ids {
        notes.push(format!(
            "{shown}: {not_started} (system, instance) pairs of the split's {} instances not started yet (no log folder): not attempted{}",
            ids.len(),
            if outside > 0 {
                format!("; {outside} started instances are not in the split, kept")
            } else {
                String::new()
            }
        ));
    }
    if rows.is_empty() {
        notes.push(format!("{shown}: no instance started yet"));
    }
    Ok((Imported::entries(rows, notes), bytes, shown))
}
