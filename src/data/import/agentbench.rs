//! AgentBench's runs (THUDM/AgentBench, the v0.2 framework of its task servers and assigner): the
//! assigner appends one line per sample to `<output>/<agent>/<task>/runs.jsonl` as the sample ends
//! (`{"index", "error", "info", "output": {"index", "status", "result", "history"}, "time":
//! {"timestamp", "str"}}`), a failed attempt to `error.jsonl` beside it (`error` set: START_FAILED,
//! INTERACT_FAILED, AGENT_FAILED, NETWORK_ERROR), and `overall.json` once every sample is in (only
//! aggregates: it is not read). Read as follows:
//!
//! - files: an output folder (`outputs/<timestamp>`), an agent's or a task's folder below it (the
//!   layout: `runs.jsonl` in `<agent>/<task>/`), or one `runs.jsonl` (recognised by its keys), whose
//!   `error.jsonl` is read with it.
//! - system: the agent's folder (the assignment's agent name); task: `<task>/<index>` (the task's
//!   folder, `os-std`, `webshop-std`, …, and the sample's index, a number or a string); group: the
//!   task's folder.
//! - outcome: the task's own per-sample score in `output.result`, as its `calculate_overall` reads
//!   it: `result` (os: true/false; alfworld: the reward), `reward` (webshop), `progress` (ltp, its
//!   main metric), `Player_<llm_idx>_wins` (avalon); `--metric KEY` reads another number or
//!   true/false of `result`. A task whose result holds no score (dbbench's answers and kg's
//!   predictions are scored against the task's data, m2w's against its targets, and so is every
//!   custom task that keeps a string) is refused with what its result holds.
//! - status: `completed` and the agent's failures (`agent context limit`, `agent validation
//!   failed`, `agent invalid action`, `task limit reached`) are outcomes, 0 without a score, as the
//!   overall counts them; `task error` and `unknown` (the task server failed) → error, with the
//!   score when there is one, else 0; `running` → not attempted. A sample whose every attempt failed
//!   (in `error.jsonl` only) → error scored 0, noted, as a harness failure counted as the agent's
//!   (`--exclude-errors` leaves them out).
//! - A sample written twice (a rerun into the same folder) → the first line, as the assigner's
//!   resume takes it, noted. No cost or seconds (the time written is the sample's end only).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, for_each_line, value_or_missing};
use crate::data::error::LoadError;

/// The file the assigner appends finished samples to.
const RUNS_FILE: &str = "runs.jsonl";

/// The file it appends failed attempts to, beside [`RUNS_FILE`].
const ERRORS_FILE: &str = "error.jsonl";

/// How far below a given folder the `<agent>/<task>/runs.jsonl` files lie.
const TREE_DEPTH: usize = 2;

/// The statuses of a sample that ran to an end the agent is answerable for.
const AGENT_ENDS: [&str; 5] = [
    "completed",
    "agent context limit",
    "agent validation failed",
    "agent invalid action",
    "task limit reached",
];

/// The statuses of a sample whose task server failed.
const TASK_FAILURES: [&str; 2] = ["task error", "unknown"];

/// Whether a JSON Lines line is one the assigner writes.
pub fn is_line(object: &serde_json::Map<String, Value>) -> bool {
    ["index", "error", "info", "output", "time"]
        .iter()
        .all(|key| object.contains_key(*key))
}

/// Whether a file is the `error.jsonl` or `overall.json` of a task folder whose `runs.jsonl` is
/// read (the failed attempts are read with it; the overall is aggregates only).
pub fn is_companion(path: &Path, name: &str) -> bool {
    matches!(name, ERRORS_FILE | "overall.json")
        && path
            .parent()
            .is_some_and(|folder| folder.join(RUNS_FILE).is_file())
}

/// The `runs.jsonl` files of a tree, down to [`TREE_DEPTH`] folders, whose first line is the
/// assigner's, in path order (with `first_only`, at most one).
fn runs_files(folder: &Path, first_only: bool) -> Vec<PathBuf> {
    let candidate = |folder: &Path| {
        Some(folder.join(RUNS_FILE)).filter(|file| file.is_file() && starts_as_runs(file))
    };
    let mut found = Vec::new();
    super::files_in_tree(
        folder,
        TREE_DEPTH,
        first_only,
        &candidate,
        &|_| false,
        &mut found,
    );
    found.sort();
    found
}

/// Whether a file's first line is one the assigner writes (an empty one is not yet: METR names its
/// runs file the same; until a line lands a folder is followed as its files, and the file is read
/// by its keys then).
fn starts_as_runs(path: &Path) -> bool {
    use std::io::BufRead;
    // The first line only: `watch` asks this of every runs file at each poll, and a sample's line
    // carries its whole history.
    let mut line = Vec::new();
    let read = std::fs::File::open(path)
        .and_then(|file| std::io::BufReader::new(file).read_until(b'\n', &mut line));
    if read.is_err() {
        return false;
    }
    let mut first = None;
    let _ = for_each_line(&line, "", true, |_, value| {
        first = Some(value);
        Ok(())
    });
    first
        .as_ref()
        .and_then(Value::as_object)
        .is_some_and(is_line)
}

/// Whether a folder is an AgentBench output folder, or an agent's or a task's folder of one.
pub fn is_tree(folder: &Path) -> bool {
    folder.is_dir() && !runs_files(folder, true).is_empty()
}

/// Every file of a tree whose change `watch` must see: each task's runs and failed attempts.
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    runs_files(folder, false)
        .into_iter()
        .flat_map(|runs| {
            let errors = runs.with_file_name(ERRORS_FILE);
            std::iter::once(runs).chain(errors.is_file().then_some(errors))
        })
        .collect()
}

/// The agent and the task of a `runs.jsonl`, from its folders.
fn agent_and_task(path: &Path) -> (String, String) {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let name = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let task = absolute.parent();
    (name(task.and_then(Path::parent)), name(task))
}

/// A sample's index as text (a number in most tasks, a string in os).
fn index_of(line: &Value) -> Result<String, String> {
    match line.get("index") {
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        other => Err(format!(
            "index is {}, not a sample's index",
            value_or_missing(other)
        )),
    }
}

/// The per-sample score in a result, as the task's overall reads it (or `metric` of it): Ok(None)
/// when the result holds no score.
fn score(result: &Value, metric: Option<&str>) -> Result<Option<f64>, String> {
    // `what` names the value in a message: "result", or "result.reward".
    let number = |what: &str, value: &Value| match value {
        Value::Bool(b) => Ok(Some(f64::from(u8::from(*b)))),
        Value::Number(n) => match n.as_f64() {
            Some(x) if (0.0..=1.0).contains(&x) => Ok(Some(x)),
            _ => Err(format!("{what} is {n}, outside [0, 1]")),
        },
        other => Err(format!("{what} is {other}, not a number or true/false")),
    };
    let Value::Object(fields) = result else {
        return match result {
            Value::Bool(_) | Value::Number(_) => number("result", result),
            _ => Ok(None),
        };
    };
    if let Some(key) = metric {
        return match fields.get(key) {
            Some(value) => number(&format!("result.{key}"), value),
            None => Err(format!(
                "result has no '{key}' (--metric); its keys: {} (--metric applies to every task read: give the folders of the tasks that have it)",
                keys_of(fields)
            )),
        };
    }
    for key in ["result", "reward", "progress"] {
        if let Some(value) = fields.get(key).filter(|v| v.is_boolean() || v.is_number()) {
            return number(&format!("result.{key}"), value);
        }
    }
    // Avalon: the agent plays one seat; whether that seat's side won.
    if let Some(seat) = fields.get("llm_idx").and_then(Value::as_u64) {
        let key = format!("Player_{seat}_wins");
        if let Some(value) = fields.get(&key) {
            return number(&format!("result.{key}"), value);
        }
    }
    Ok(None)
}

/// A result's keys, for a message.
fn keys_of(fields: &serde_json::Map<String, Value>) -> String {
    let keys: Vec<&str> = fields.keys().map(String::as_str).collect();
    if keys.is_empty() {
        "none".to_string()
    } else {
        keys.join(", ")
    }
}

/// What a result holds, for the refusal of a task that keeps no score.
fn described(result: &Value) -> String {
    match result {
        Value::Object(fields) => format!("an object with {}", keys_of(fields)),
        Value::String(_) => "a string".to_string(),
        Value::Array(_) => "a list".to_string(),
        other => other.to_string(),
    }
}

/// What one task's files gave.
#[derive(Default)]
struct Read {
    rows: Vec<CanonicalRow>,
    /// The line of each row read from a runs file (rows of error.jsonl have none).
    lines: Vec<u64>,
    /// Samples written again after their first line.
    again: usize,
    /// Samples whose task server failed, by status.
    task_failures: BTreeMap<String, usize>,
    /// Samples in error.jsonl only, by error.
    failed_attempts: BTreeMap<String, usize>,
    /// Agent failures without a score, read as 0.
    unscored_failures: usize,
    /// Last lines cut short (a live reader leaves them for later; read once, left out), noted.
    cut_lines: Vec<String>,
}

/// Reads one task's `runs.jsonl` (its bytes) and the `error.jsonl` beside it into `read`; returns
/// the error file's bytes (for the content hash) and the count of non-finite numbers read as null.
fn read_task(
    bytes: &[u8],
    path: &Path,
    file: &str,
    metric: Option<&str>,
    live: bool,
    read: &mut Read,
) -> Result<(Vec<u8>, usize), LoadError> {
    let (agent, task) = agent_and_task(path);
    // A sample every attempt of which failed: the assigner wrote it to error.jsonl only.
    let failed_attempt = |index: &str, error: &str| CanonicalRow {
        system: agent.clone(),
        task: format!("{task}/{index}"),
        run: 0,
        outcome: Some(0.0),
        status: RowStatus::Error,
        group: Some(task.clone()),
        cost_usd: None,
        seconds: None,
        source: format!("agentbench {agent}/{task} index {index} ({error}, error.jsonl)"),
    };
    let mut seen: HashSet<String> = HashSet::new();
    let non_finite = for_each_line(bytes, file, false, |number, line| {
        let index = index_of(&line)?;
        // A failed attempt's line (error.jsonl given as the file itself): its output is pydantic's
        // default TaskOutput (status running, no result), and a retry's line is the same failure.
        if let Some(error) = line.get("error").and_then(Value::as_str) {
            if seen.insert(index.clone()) {
                *read.failed_attempts.entry(error.to_string()).or_default() += 1;
                read.rows.push(failed_attempt(&index, error));
                read.lines.push(number);
            }
            return Ok(());
        }
        if !seen.insert(index.clone()) {
            read.again += 1;
            return Ok(());
        }
        let output = line.get("output").filter(|o| o.is_object());
        let status = output
            .and_then(|o| o.get("status"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let result = output.and_then(|o| o.get("result")).unwrap_or(&Value::Null);
        let scored = score(result, metric)?;
        let (outcome, row_status) = if AGENT_ENDS.contains(&status) {
            match scored {
                Some(x) => (Some(x), RowStatus::Ok),
                None if status == "completed" => {
                    return Err(format!(
                        "{task}'s result holds no per-sample score (it is {}): AgentBench scores such a task against its own data (dbbench's answers, kg's predictions, m2w's targets) in overall.json, which keeps only aggregates; --metric KEY reads a number or true/false of the result",
                        described(result)
                    ));
                }
                None => {
                    read.unscored_failures += 1;
                    (Some(0.0), RowStatus::Ok)
                }
            }
        } else if TASK_FAILURES.contains(&status) {
            *read.task_failures.entry(status.to_string()).or_default() += 1;
            (Some(scored.unwrap_or(0.0)), RowStatus::Error)
        } else if status == "running" {
            (None, RowStatus::NotAttempted)
        } else {
            return Err(format!(
                "output.status is {}, not one of AgentBench's sample statuses",
                value_or_missing(output.and_then(|o| o.get("status")))
            ));
        };
        read.rows.push(CanonicalRow {
            system: agent.clone(),
            task: format!("{task}/{index}"),
            run: 0,
            outcome,
            status: row_status,
            group: Some(task.clone()),
            cost_usd: None,
            seconds: None,
            source: format!("agentbench {agent}/{task} index {index} ({status})"),
        });
        read.lines.push(number);
        Ok(())
    })?;
    let errors_path = path.with_file_name(ERRORS_FILE);
    let errors = if errors_path.is_file() && errors_path != path {
        std::fs::read(&errors_path).map_err(|e| {
            LoadError::new(
                errors_path.display().to_string(),
                format!("cannot read the file: {e}"),
            )
        })?
    } else {
        Vec::new()
    };
    let errors_file = errors_path.display().to_string();
    // The assigner appends a failed attempt as it happens: a reader may meet its line half written.
    let whole =
        super::without_cut_last_line(&errors, &errors_file, live, true, &mut read.cut_lines);
    for_each_line(whole, &errors_file, false, |_, line| {
        let index = index_of(&line)?;
        if !seen.insert(index.clone()) {
            return Ok(());
        }
        let error = line
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("an error");
        *read.failed_attempts.entry(error.to_string()).or_default() += 1;
        read.rows.push(failed_attempt(&index, error));
        Ok(())
    })?;
    Ok((errors, non_finite))
}

/// The notes of what was read.
fn notes(shown: &str, read: &Read) -> Vec<String> {
    let distinct = |of: &dyn Fn(&CanonicalRow) -> &str| {
        read.rows
            .iter()
            .map(of)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    let agents = distinct(&|row| row.system.as_str());
    let tasks = distinct(&|row| row.group.as_deref().unwrap_or(""));
    let mut notes = vec![format!(
        "{shown}: AgentBench runs of {} on {} (system: the agent's folder; task: <task>/<index>, group: the task's folder)",
        counted(agents, "agent", "agents"),
        counted(tasks, "task", "tasks")
    )];
    notes.extend(read.cut_lines.iter().cloned());
    let listed = |counts: &BTreeMap<String, usize>| {
        counts
            .iter()
            .map(|(what, n)| format!("{what} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !read.task_failures.is_empty() {
        notes.push(format!(
            "{shown}: samples where the task server failed, {} ({}), read as errors with their score, or 0 (a harness failure counted as the agent's; --exclude-errors leaves them out of the averages)",
            read.task_failures.values().sum::<usize>(),
            listed(&read.task_failures)
        ));
    }
    if !read.failed_attempts.is_empty() {
        notes.push(format!(
            "{shown}: samples only in error.jsonl (every attempt failed), {} ({}), read as errors scored 0 (a harness failure counted as the agent's; --exclude-errors leaves them out of the averages)",
            read.failed_attempts.values().sum::<usize>(),
            listed(&read.failed_attempts)
        ));
    }
    if read.unscored_failures > 0 {
        notes.push(format!(
            "{shown}: samples the agent ended without a score (context limit, invalid action, round limit, …), {}, read as 0, as AgentBench's overall counts them",
            read.unscored_failures
        ));
    }
    if read.again > 0 {
        notes.push(format!(
            "{shown}: samples written again after their first line (a rerun into the same folder), {}: the first is read, as the assigner's resume reads it",
            read.again
        ));
    }
    notes
}

/// Reads one `runs.jsonl` (its bytes), with the `error.jsonl` beside it.
pub fn runs(
    bytes: &[u8],
    path: &Path,
    file: &str,
    metric: Option<&str>,
    live: bool,
) -> Result<(Imported, usize), LoadError> {
    let mut read = Read::default();
    let (_, non_finite) = read_task(bytes, path, file, metric, live, &mut read)?;
    let notes = notes(file, &read);
    // Rows of the runs file are placed by their line; with rows of error.jsonl too, by source.
    let by_line = read.lines.len() == read.rows.len();
    Ok((
        Imported {
            rows: read.rows,
            notes,
            lines: by_line.then_some(read.lines),
        },
        non_finite,
    ))
}

/// Reads every task of an output folder (or of an agent's or task's folder), its files' bytes
/// joined for the content hash, and the folder as the file the rows came from.
pub fn tree(
    folder: &Path,
    metric: Option<&str>,
    live: bool,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = folder.display().to_string();
    // Every runs file with something in it, not only those whose first line reads as a sample: one
    // whose first line is broken was left out with all its samples, without a word (a broken line
    // further down was refused, naming it).
    let mut files = Vec::new();
    let written = |folder: &Path| {
        Some(folder.join(RUNS_FILE))
            .filter(|file| std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.len() > 0))
    };
    super::files_in_tree(folder, TREE_DEPTH, false, &written, &|_| false, &mut files);
    files.sort();
    let mut read = Read::default();
    let mut bytes = Vec::new();
    for path in &files {
        let file = path.display().to_string();
        let text = std::fs::read(path)
            .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
        // The assigner appends a sample's line as the sample ends: a reader may meet it half
        // written (live: left for a later read), or a stopped run's last write cut short.
        let whole = super::without_cut_last_line(&text, &file, live, true, &mut read.cut_lines);
        let (errors, _) = read_task(whole, path, &file, metric, live, &mut read)?;
        bytes.extend_from_slice(&text);
        bytes.extend_from_slice(&errors);
    }
    let notes = notes(&shown, &read);
    // Rows of several files: placed by their source (agent, task and index), not by a line.
    Ok((Imported::entries(read.rows, notes), bytes, shown))
}
