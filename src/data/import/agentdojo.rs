//! AgentDojo's runs (prompt injections against tool-using agents): its `TraceLogger` writes one
//! JSON file per task run, `<logdir>/<pipeline>/<suite>/<user_task>/<attack>/<injection_task>.json`
//! (`none/none.json` without an attack), rewriting it as the run goes and adding `utility`,
//! `security` and `duration` when it ends. Each holds `suite_name`, `pipeline_name`,
//! `user_task_id`, `injection_task_id`, `attack_type`, `messages`, `error`. Read as follows:
//!
//! - files: a logdir, a pipeline's or a suite's folder below it, or one file (recognised by the
//!   keys); AgentDojo first runs each injection task alone (`<suite>/injection_task_<n>/none/`: can
//!   the agent do it at all?), and those runs are not user tasks: left out, noted.
//! - system: the pipeline (its model and defence, `gpt-4o-2024-05-13-tool_filter`); a run under an
//!   attack is `<pipeline> · <attack>`, since utility under attack is another measurement.
//! - task: `<suite>/<user_task>`, or `<suite>/<user_task>/<injection_task>` under an attack;
//!   group: the suite (banking, slack, travel, workspace).
//! - outcome: `utility` (the user's task done), or `--metric security`: 1 − `security` for a run
//!   under an attack, whether the agent resisted the injection (AgentDojo's `security` is true when
//!   the injection's goal was reached, so higher stays better); runs without an attack are left out
//!   then (their `security` is always true).
//! - status: an `error` (AgentDojo logs the provider's context-length and server errors and scores
//!   the run utility false, security true) → error with that score; no `utility` yet (running, or
//!   stopped) → not attempted. seconds: `duration`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus};
use crate::data::error::LoadError;

/// How deep below a given folder run files lie (a logdir's `<pipeline>/<suite>/<task>/<attack>/`).
const DEEPEST: usize = 4;

/// Whether a JSON object is one of AgentDojo's run files.
pub fn is_run(object: &serde_json::Map<String, Value>) -> bool {
    ["suite_name", "pipeline_name", "user_task_id", "messages"]
        .iter()
        .all(|key| object.contains_key(*key))
}

/// The `.json` files under a folder down to [`DEEPEST`] levels that `keep` takes, in path order
/// (dot entries left out); with `first_only`, stops at the first.
fn json_files(
    folder: &Path,
    depth: usize,
    keep: &dyn Fn(&Path) -> bool,
    first_only: bool,
    found: &mut Vec<PathBuf>,
) {
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(folder) {
        Ok(entries) => entries
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .collect(),
        Err(_) => return,
    };
    entries.sort();
    for path in entries {
        if first_only && !found.is_empty() {
            return;
        }
        if path.is_dir() {
            if depth < DEEPEST {
                json_files(&path, depth + 1, keep, first_only, found);
            }
        } else if path.extension().is_some_and(|e| e == "json") && keep(&path) {
            found.push(path);
        }
    }
}

/// Whether a file is named as AgentDojo names its run files: `none.json` or
/// `injection_task_<n>.json` in `<user_task or injection_task>/<attack>/`.
fn named_as_run(path: &Path) -> bool {
    let name = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let file = name(Some(path));
    let task = name(path.parent().and_then(Path::parent));
    (file == "none.json" || (file.starts_with("injection_task_") && file.ends_with(".json")))
        && (task.starts_with("user_task_") || task.starts_with("injection_task_"))
}

/// Whether a folder is an AgentDojo logdir, or a folder below one: its first file named as a run
/// file (in path order, a few levels down) is one. Only such names are opened, so a folder of
/// other JSON (an Inspect log folder) is never parsed to tell.
pub fn is_logdir(folder: &Path) -> bool {
    if !folder.is_dir() {
        return false;
    }
    let mut first = Vec::new();
    json_files(folder, 0, &named_as_run, true, &mut first);
    super::first_file_is(&first, is_run)
}

/// Every run file of a logdir whose change `watch` must see.
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    json_files(folder, 0, &|_| true, false, &mut files);
    files
}

/// What one run file gives: its row, or why it is left out.
enum Read {
    Row(Box<CanonicalRow>),
    InjectionAlone,
    NoAttack,
}

/// One run file's row (`security`: `--metric security`).
fn run(value: &Value, file: &str, security: bool) -> Result<Read, LoadError> {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty() && *s != "none")
            .map(str::to_string)
    };
    let need = |key: &str| {
        text(key).ok_or_else(|| LoadError::new(file, format!("an AgentDojo run needs its {key}")))
    };
    let suite = need("suite_name")?;
    let pipeline = need("pipeline_name")?;
    let user_task = need("user_task_id")?;
    let attack = text("attack_type");
    let injection = text("injection_task_id");
    if attack.is_none() && user_task.starts_with("injection_task_") {
        return Ok(Read::InjectionAlone);
    }
    if security && attack.is_none() {
        return Ok(Read::NoAttack);
    }
    let flag = |key: &str| match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(LoadError::new(
            file,
            format!("{key} is {other}, not true or false"),
        )),
    };
    let measured = if security {
        flag("security")?.map(|compromised| !compromised)
    } else {
        flag("utility")?
    };
    let error = value.get("error").filter(|e| !e.is_null());
    let (system, task) = match (&attack, &injection) {
        (Some(attack), Some(injection)) => (
            format!("{pipeline} · {attack}"),
            format!("{suite}/{user_task}/{injection}"),
        ),
        (Some(attack), None) => (
            format!("{pipeline} · {attack}"),
            format!("{suite}/{user_task}"),
        ),
        (None, _) => (pipeline, format!("{suite}/{user_task}")),
    };
    let status = match (measured, error) {
        (None, _) => RowStatus::NotAttempted,
        (Some(_), Some(_)) => RowStatus::Error,
        (Some(_), None) => RowStatus::Ok,
    };
    let mut source = "agentdojo".to_string();
    if let Some(error) = error.and_then(Value::as_str) {
        source.push_str(&format!(", error: {}", crate::format::shorten(error, 80)));
    }
    Ok(Read::Row(Box::new(CanonicalRow {
        system,
        task,
        run: 0,
        outcome: measured.map(|m| f64::from(u8::from(m))),
        status,
        group: Some(suite),
        cost_usd: None,
        seconds: super::json::amount(value, "duration"),
        source,
    })))
}

/// The rows of run files: a logdir (or a folder below one), or one file; the bytes read (for the
/// content hash) and the name messages use.
pub fn results(
    path: &Path,
    metric: Option<&str>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = path.display().to_string();
    let security = match metric {
        None | Some("utility") => false,
        Some("security") => true,
        Some(other) => {
            return Err(LoadError::new(
                &shown,
                format!(
                    "--metric {other}: AgentDojo's outcomes are utility (the default) or security"
                ),
            ));
        }
    };
    let files = if path.is_dir() {
        tracked_files(path)
    } else {
        vec![path.to_path_buf()]
    };
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    let (mut alone, mut no_attack, mut other_files) = (0, 0, 0);
    for file_path in &files {
        let file = file_path.display().to_string();
        let text = std::fs::read(file_path)
            .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
        let (value, _) = super::json::parse_lenient(&text, &file)?;
        if !value.as_object().is_some_and(is_run) {
            // A logdir keeps nothing else, but a folder given may: named in the note.
            other_files += 1;
            continue;
        }
        match run(&value, &file, security)? {
            Read::Row(row) => rows.push(*row),
            Read::InjectionAlone => alone += 1,
            Read::NoAttack => no_attack += 1,
        }
        bytes.extend_from_slice(&text);
    }
    let running = rows
        .iter()
        .filter(|r| r.status == RowStatus::NotAttempted)
        .count();
    let errors = rows.iter().filter(|r| r.status == RowStatus::Error).count();
    let mut notes = vec![format!(
        "{shown}: AgentDojo runs, {} of them; systems are the pipelines (with the attack for runs under one), tasks <suite>/<user task>[/<injection task>]; the outcome is {}",
        rows.len(),
        if security {
            "1 − security: whether the agent resisted the injection"
        } else {
            "utility: the user's task done"
        }
    )];
    // What was left out or marked, each said when it happened.
    for (count, what) in [
        (
            alone,
            "runs of an injection task alone (AgentDojo's check that the agent can do it) left out: they are not user tasks",
        ),
        (
            no_attack,
            "runs without an attack left out (--metric security is measured under an attack only)",
        ),
        (
            running,
            "runs without a result yet (running, or stopped): not attempted",
        ),
        (
            errors,
            "runs where AgentDojo logged an error (the provider's context length or server): status error, with AgentDojo's score",
        ),
        (
            other_files,
            "other .json files below it are not AgentDojo runs: not read",
        ),
    ] {
        if count > 0 {
            notes.push(format!("{shown}: {count} {what}"));
        }
    }
    Ok((Imported::entries(rows, notes), bytes, shown))
}
