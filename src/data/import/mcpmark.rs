//! MCPMark's results (eval-sys/mcpmark: agents against MCP servers for a filesystem, GitHub, Notion,
//! Playwright and Postgres). Its pipeline writes one folder per task run,
//! `results/<exp>/<model_slug>__<service>/run-N/<category>__<task>/`: `messages.json` and
//! `execution.log` from the start, `meta.json` once the run ends (`task_name`, `model_name`,
//! `reasoning_effort`, `mcp`, `execution_result` {`success`, `error_message`, …},
//! `agent_execution_time`, `token_usage`, `turn_count`), and `run-N/summary.json` per run. Read as
//! follows:
//!
//! - files: an experiment folder (its `<model>__<service>` folders), one of those, a `run-N` folder, a
//!   task folder, or one `meta.json` (recognised by the layout, or the keys).
//! - system: the model slug of the `<model>__<service>` folder (the model with its reasoning effort:
//!   what MCPMark's aggregator compares); outside that layout `model_name`, with `reasoning_effort`
//!   when it is not the default.
//! - task: `<service>/<category>__<task>`; group: the service (with its task suite, `filesystem-easy`,
//!   as the easy suite's tasks are others); `supabase` and `insforge`, two backends of the
//!   Postgres tasks, are read as `postgres`, as the aggregator reads them.
//! - run: N − 1 of `run-N` (`--k` runs of one experiment).
//! - outcome: `execution_result.success` (the aggregator's pass@1 counts it).
//! - status: a failure whose error the aggregator takes for an infrastructure error, to be run
//!   again (rate limits, quotas, an unavailable or overloaded service: it marks such a model
//!   invalid) → error with outcome 0; a task folder with no `meta.json` yet (running, or the run
//!   was killed) → not attempted, and while a run has no `summary.json`, so are the ended runs of a
//!   task with a run to come (its mean would change). seconds: `agent_execution_time` (the agent's part; the task's
//!   set-up and verification are `task_execution_time`). No cost: MCPMark prices the token counts
//!   with a table of its own.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus};
use crate::data::error::LoadError;

/// What MCPMark's aggregator takes for an infrastructure error (lower case, matched inside the
/// error message; MCPMark's `src/errors.py`): such a failed run is to be run again, not the
/// agent's failure.
const RETRYABLE: [&str; 11] = [
    "ratelimit",
    "agent execution failed",
    "unavailable",
    "internal server error",
    "network error",
    "quota",
    "account balance",
    "mcp network error",
    "state duplication error",
    "thought_signature",
    "overloaded.",
];

/// Whether a JSON object is one of MCPMark's `meta.json` files.
pub fn is_meta(object: &serde_json::Map<String, Value>) -> bool {
    object.contains_key("task_name")
        && object.contains_key("mcp")
        && object
            .get("execution_result")
            .is_some_and(|result| result.get("success").is_some())
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `run-N`'s N.
fn run_number(name: &str) -> Option<u32> {
    name.strip_prefix("run-")?
        .parse::<u32>()
        .ok()
        .filter(|n| *n >= 1)
}

/// Whether a folder is a task run's: named `<category>__<task>` and holding what MCPMark writes in
/// it (`meta.json`, or `execution.log` and `messages.json` while it runs).
fn is_task_folder(folder: &Path) -> bool {
    name_of(folder).contains("__")
        && ["meta.json", "execution.log", "messages.json"]
            .iter()
            .any(|file| folder.join(file).is_file())
}

fn subfolders(folder: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.is_dir() && !name_of(path).starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Whether a folder is a `run-N` folder of task folders.
fn is_run_folder(folder: &Path) -> bool {
    run_number(&name_of(folder)).is_some() && subfolders(folder).iter().any(|f| is_task_folder(f))
}

/// Whether a folder is a `<model>__<service>` folder of run folders.
fn is_model_folder(folder: &Path) -> bool {
    name_of(folder).contains("__") && subfolders(folder).iter().any(|f| is_run_folder(f))
}

/// Whether a folder is MCPMark's: an experiment, a `<model>__<service>` folder, a run or a task
/// folder, its first `meta.json` one of MCPMark's (only files so named are opened).
pub fn is_results_tree(folder: &Path) -> bool {
    if !folder.is_dir() {
        return false;
    }
    let shaped = is_task_folder(folder)
        || is_run_folder(folder)
        || is_model_folder(folder)
        || subfolders(folder).iter().any(|f| is_model_folder(f));
    shaped && super::first_file_is(&Vec::from_iter(first_meta(folder)), is_meta)
}

/// Walks the task folders below a folder of MCPMark's layout (down to an experiment's), in path
/// order, until `visit` says stop (false); whether it was stopped.
fn walk_tasks(folder: &Path, visit: &mut dyn FnMut(&Path) -> bool) -> bool {
    if is_task_folder(folder) {
        return !visit(folder);
    }
    let (inner, is_task): (fn(&Path) -> bool, bool) = if is_run_folder(folder) {
        (is_task_folder, true)
    } else if is_model_folder(folder) {
        (is_run_folder, false)
    } else {
        (is_model_folder, false)
    };
    for sub in subfolders(folder).into_iter().filter(|f| inner(f)) {
        let stopped = if is_task {
            !visit(&sub)
        } else {
            walk_tasks(&sub, visit)
        };
        if stopped {
            return true;
        }
    }
    false
}

/// The task folders below a folder of MCPMark's layout, in path order.
fn task_folders(folder: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk_tasks(folder, &mut |task| {
        found.push(task.to_path_buf());
        true
    });
    found
}

/// The first `meta.json` below a folder (the walk stops there: recognising a folder must not
/// read a whole experiment, as `watch` asks at every poll).
fn first_meta(folder: &Path) -> Option<PathBuf> {
    let mut first = None;
    walk_tasks(folder, &mut |task| {
        let meta = task.join("meta.json");
        if meta.is_file() {
            first = Some(meta);
        }
        first.is_none()
    });
    first
}

/// Every file whose change `watch` must see: each task folder's `meta.json`, or its
/// `execution.log` before the meta lands (so a started task shows as not attempted).
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    task_folders(folder)
        .into_iter()
        .filter_map(|task| {
            ["meta.json", "execution.log", "messages.json"]
                .iter()
                .map(|file| task.join(file))
                .find(|path| path.is_file())
        })
        .collect()
}

/// The service as the aggregator reads it: `supabase` and `insforge` back the Postgres tasks.
fn service_read(service: &str) -> (String, bool) {
    match service {
        "supabase" | "insforge" => ("postgres".to_string(), true),
        "playwright_webarena" => ("playwright".to_string(), false),
        other => (other.to_string(), false),
    }
}

/// Where a task folder sits in MCPMark's layout: (model slug, service, run index), when its
/// parents are a `run-N` folder and a `<model>__<service>` folder.
fn placed(task: &Path) -> Option<(String, String, u32)> {
    let run = task.parent()?;
    let number = run_number(&name_of(run))?;
    let model_folder = name_of(run.parent()?);
    let (model, service) = model_folder.split_once("__")?;
    (!model.is_empty() && !service.is_empty())
        .then(|| (model.to_string(), service.to_string(), number - 1))
}

/// Tallies for the notes.
#[derive(Default)]
struct Counts {
    retryable: usize,
    running: usize,
    moved_backends: usize,
    outside_layout: usize,
}

/// One task folder's row.
fn task_row(
    task: &Path,
    counts: &mut Counts,
    bytes: &mut Vec<u8>,
) -> Result<CanonicalRow, LoadError> {
    let meta_path = task.join("meta.json");
    let shown = meta_path.display().to_string();
    let meta = if meta_path.is_file() {
        let text = std::fs::read(&meta_path)
            .map_err(|e| LoadError::new(&shown, format!("cannot read the file: {e}")))?;
        let (value, _) = super::json::parse_lenient(&text, &shown)?;
        if !value.as_object().is_some_and(is_meta) {
            return Err(LoadError::new(
                &shown,
                "not an MCPMark meta.json (task_name, mcp and execution_result.success)",
            ));
        }
        bytes.extend_from_slice(&text);
        Some(value)
    } else {
        None
    };
    let text = |key: &str| {
        meta.as_ref()
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let (system, service, run) = match placed(task) {
        Some(found) => found,
        None => {
            counts.outside_layout += 1;
            let model = text("model_name").ok_or_else(|| {
                LoadError::new(
                    &shown,
                    "an MCPMark meta.json outside its layout needs its model_name",
                )
            })?;
            let system = match text("reasoning_effort") {
                Some(effort) if effort != "default" => format!("{model} ({effort})"),
                _ => model,
            };
            let service = text("mcp")
                .ok_or_else(|| LoadError::new(&shown, "an MCPMark meta.json needs its mcp"))?;
            (system, service, 0)
        }
    };
    let (group, moved) = service_read(&service);
    counts.moved_backends += usize::from(moved);
    let name = match text("task_name") {
        Some(name) => name,
        None => name_of(task),
    };
    let source = format!("mcpmark {} run {}", meta_path.display(), run + 1);
    let Some(meta) = meta else {
        counts.running += 1;
        return Ok(CanonicalRow {
            system,
            task: format!("{group}/{name}"),
            run,
            outcome: None,
            status: RowStatus::NotAttempted,
            group: Some(group),
            cost_usd: None,
            seconds: None,
            source: format!("{source}: no meta.json yet (running, or stopped)"),
        });
    };
    let result = &meta["execution_result"];
    let success = match result.get("success") {
        Some(Value::Bool(b)) => *b,
        other => {
            return Err(LoadError::new(
                &shown,
                format!(
                    "execution_result.success is {}, not true or false",
                    other.map_or("missing".to_string(), Value::to_string)
                ),
            ));
        }
    };
    let error = result
        .get("error_message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    let retryable = !success && RETRYABLE.iter().any(|pattern| error.contains(pattern));
    counts.retryable += usize::from(retryable);
    let seconds = match meta.get("agent_execution_time") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => {
            return Err(LoadError::new(
                &shown,
                format!("agent_execution_time is {other}, not a number of seconds"),
            ));
        }
    };
    Ok(CanonicalRow {
        system,
        task: format!("{group}/{name}"),
        run,
        outcome: Some(f64::from(u8::from(success))),
        status: if retryable {
            RowStatus::Error
        } else {
            RowStatus::Ok
        },
        group: Some(group),
        cost_usd: None,
        seconds,
        source,
    })
}

/// The rows of an MCPMark folder (or one `meta.json`); the bytes read (for the content hash) and
/// the name messages use.
pub fn results(path: &Path) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = path.display().to_string();
    let tasks = if path.is_dir() {
        task_folders(path)
    } else {
        vec![path.parent().unwrap_or(Path::new(".")).to_path_buf()]
    };
    if tasks.is_empty() {
        return Err(LoadError::new(
            &shown,
            "no MCPMark task folder (<exp>/<model>__<service>/run-N/<category>__<task>/meta.json) below it",
        ));
    }
    let mut counts = Counts::default();
    let mut bytes = Vec::new();
    let mut rows = Vec::new();
    for task in &tasks {
        rows.push(task_row(task, &mut counts, &mut bytes)?);
    }
    let short_runs = short_runs(&rows);
    let held = hold_tasks_with_runs_to_come(&tasks, &mut rows);
    let mut notes = vec![format!(
        "{shown}: MCPMark, {}; systems are the model slugs (with the reasoning effort), tasks <service>/<category>__<task>, runs run-N; the outcome is execution_result.success; no cost (MCPMark prices the token counts with its own table)",
        super::counted(rows.len(), "task run", "task runs")
    )];
    for (count, one, many, what) in [
        (
            counts.retryable,
            "failed run",
            "failed runs",
            "whose error MCPMark's aggregator takes for an infrastructure error (rate limit, quota, unavailable or overloaded service, …), to be run again: status error, outcome 0",
        ),
        (
            counts.running,
            "task folder",
            "task folders",
            "with no meta.json yet (running, or the run was stopped): not attempted",
        ),
        (
            counts.moved_backends,
            "run",
            "runs",
            "on the supabase or insforge backend read as postgres tasks, as MCPMark's aggregator reads them",
        ),
        (
            counts.outside_layout,
            "meta.json",
            "meta.json files",
            "outside <model>__<service>/run-N/: system from model_name, run 0",
        ),
    ] {
        if count > 0 {
            notes.push(format!(
                "{shown}: {} {what}",
                super::counted(count, one, many)
            ));
        }
    }
    if held > 0 {
        notes.push(format!(
            "{shown}: a run-N folder has no summary.json yet (running, or stopped): {} of tasks with a run still to come {} not attempted so far (a task's outcome is the mean of its runs)",
            super::counted(held, "ended task run", "ended task runs"),
            if held == 1 { "is" } else { "are" }
        ));
    }
    // MCPMark's aggregator counts a run missing tasks as incomplete (its pass@1 divides by every
    // task): such runs are named, as the rows hold only the tasks the run reached.
    for (system, run, have, of) in short_runs {
        notes.push(format!(
            "{shown}: {system}'s run-{} holds {have} of the {of} tasks its other runs hold (MCPMark's aggregator takes it for incomplete; the missing ones are not in the records)",
            run + 1
        ));
    }
    Ok((Imported::entries(rows, notes), bytes, shown))
}

/// MCPMark runs `--k` runs one after another (every model finishes run-N before run-N+1) and
/// writes `run-N/summary.json` when a run ends. While a model's latest run has none, a task with
/// fewer ended runs than the model's runs so far has one to come, which would change its mean
/// (SPEC §9c): its ended runs are not attempted so far. How many runs are planned (`--k`) is not
/// on disk, so the stretch between two runs cannot be told. Returns how many rows were held.
fn hold_tasks_with_runs_to_come(tasks: &[PathBuf], rows: &mut [CanonicalRow]) -> usize {
    use std::collections::{BTreeMap, BTreeSet};
    let mut runs: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    let mut going: BTreeSet<String> = BTreeSet::new();
    for task in tasks {
        if let (Some((model, _, run)), Some(run_folder)) = (placed(task), task.parent()) {
            if !run_folder.join("summary.json").is_file() {
                going.insert(model.clone());
            }
            runs.entry(model).or_default().insert(run);
        }
    }
    let mut ended: BTreeMap<(String, String), usize> = BTreeMap::new();
    for row in rows.iter().filter(|row| row.outcome.is_some()) {
        *ended
            .entry((row.system.clone(), row.task.clone()))
            .or_default() += 1;
    }
    let mut held = 0;
    for row in rows.iter_mut() {
        let planned = runs.get(&row.system).map_or(0, BTreeSet::len);
        let done = ended
            .get(&(row.system.clone(), row.task.clone()))
            .copied()
            .unwrap_or(0);
        if row.outcome.is_some() && going.contains(&row.system) && done < planned {
            super::hold_for_runs_to_come(row, "runs");
            held += 1;
        }
    }
    held
}

/// The runs of a system holding fewer tasks than its runs together: (system, run, tasks held,
/// tasks of all its runs), in system and run order.
fn short_runs(rows: &[CanonicalRow]) -> Vec<(String, u32, usize, usize)> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut tasks: BTreeMap<&str, BTreeMap<u32, BTreeSet<&str>>> = BTreeMap::new();
    for row in rows {
        tasks
            .entry(row.system.as_str())
            .or_default()
            .entry(row.run)
            .or_default()
            .insert(row.task.as_str());
    }
    let mut short = Vec::new();
    for (system, runs) in &tasks {
        let all: BTreeSet<&str> = runs.values().flatten().copied().collect();
        for (run, held) in runs {
            if held.len() < all.len() {
                short.push((system.to_string(), *run, held.len(), all.len()));
            }
        }
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_services_are_read_as_the_aggregator_reads_them() {
        assert_eq!(run_number("run-1"), Some(1));
        assert_eq!(run_number("run-0"), None);
        assert_eq!(run_number("run-x"), None);
        assert_eq!(service_read("supabase"), ("postgres".to_string(), true));
        assert_eq!(
            service_read("filesystem-easy"),
            ("filesystem-easy".to_string(), false)
        );
        let task = Path::new("results/exp/gpt-5-high__notion/run-2/online_resume__layout");
        assert_eq!(
            placed(task),
            Some(("gpt-5-high".to_string(), "notion".to_string(), 1))
        );
        assert_eq!(placed(Path::new("somewhere/task__x")), None);
    }
}
