//! LiveBench's judgments: `gen_ground_truth_judgment.py` appends one JSON line per (question,
//! model) to `data/live_bench/<category>/<task>/model_judgment/ground_truth_judgment.jsonl`:
//! `question_id`, `task`, `model`, `score` (in [0, 1]; partial credit in some tasks), `tstamp`,
//! `category`, and where they apply `eval_status` (`api_error`, `token_exhaustion`: the answer
//! failed and is scored 0 without grading; `eval_error`: the grader raised), `error`, `error_msg`,
//! `subtask`, `answer_id`. It then rewrites the file keeping the last line of each (question,
//! model), sorted. Read as LiveBench's `show_livebench_result.py` reads them:
//!
//! - system: `model`; task: `question_id` (unique across LiveBench); group: `category`; run 0.
//! - outcome: `score`; a score of −1 (which the leaderboard leaves out), or none (NaN in a download
//!   of the public judgments), is not attempted.
//! - status: a failed answer or grader (`eval_status` `api_error`, `token_exhaustion` or
//!   `eval_error`, or an `error`) keeps its score, 0, as the leaderboard counts it, with status
//!   error, so `--exclude-errors` can leave it out.
//! - A (question, model) judged twice in one file (appended again, before the rewrite): the last
//!   line counts, as LiveBench's rewrite keeps it; noted.
//! - No cost or seconds (the judgments have neither).
//!
//! A folder holding such files below it (LiveBench's `data/` or `data/live_bench/`, a category's
//! or a task's folder) is read as one result: every `model_judgment/ground_truth_judgment.jsonl`
//! in it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, for_each_line};
use crate::data::error::LoadError;

/// The file LiveBench writes a task's judgments to, in the task's `model_judgment/` folder.
const JUDGMENT_FILE: &str = "ground_truth_judgment.jsonl";
const JUDGMENT_FOLDER: &str = "model_judgment";

/// How many folder levels below a folder its judgment files are looked for: a task folder holds
/// `model_judgment/` itself, a category folder one level down, LiveBench's `live_bench/` folder
/// two. A folder named `live_bench` inside (LiveBench's `data/`) is looked into the same way; no
/// deeper walk, since any folder given to pareval is asked this.
const TREE_DEPTH: usize = 2;
const BENCH_FOLDER: &str = "live_bench";

/// The `eval_status` values of an answer or a grading that failed (scored 0 without a grade).
const FAILED_STATUSES: [&str; 3] = ["api_error", "token_exhaustion", "eval_error"];

/// Whether a JSON Lines line is a LiveBench judgment.
pub fn is_judgment_line(object: &serde_json::Map<String, Value>) -> bool {
    ["question_id", "model", "score", "task", "category"]
        .iter()
        .all(|key| object.contains_key(*key))
}

/// The judgment files below a folder, in path order (up to [`TREE_DEPTH`] levels, and as many in
/// its `live_bench` folder; dot folders left out); with `first_only`, the search stops at the first.
fn judgment_files(folder: &Path, first_only: bool) -> Vec<PathBuf> {
    fn walk(folder: &Path, depth: usize, first_only: bool, found: &mut Vec<PathBuf>) {
        let candidate = folder.join(JUDGMENT_FOLDER).join(JUDGMENT_FILE);
        if candidate.is_file() {
            found.push(candidate);
            if first_only {
                return;
            }
        }
        if depth == 0 {
            return;
        }
        for sub in super::subfolders(folder) {
            if sub.file_name().is_some_and(|n| n == JUDGMENT_FOLDER) {
                continue;
            }
            walk(&sub, depth - 1, first_only, found);
            if first_only && !found.is_empty() {
                return;
            }
        }
    }
    let mut found = Vec::new();
    walk(folder, TREE_DEPTH, first_only, &mut found);
    let bench = folder.join(BENCH_FOLDER);
    if (found.is_empty() || !first_only) && bench.is_dir() {
        walk(&bench, TREE_DEPTH, first_only, &mut found);
    }
    found.sort();
    found.dedup();
    found
}

/// Whether a folder holds LiveBench judgment files below it: read as one result.
pub fn is_tree(folder: &Path) -> bool {
    folder.is_dir() && !judgment_files(folder, true).is_empty()
}

/// Every file of a judgments tree whose change `watch` must see.
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    judgment_files(folder, false)
}

/// What one file gave: its rows (each with its line) and counts for the notes.
#[derive(Default)]
struct Read {
    rows: Vec<CanonicalRow>,
    lines: Vec<u64>,
    replaced: usize,
    failed: usize,
    left_out: usize,
}

/// Reads one judgments file into `read`.
fn read_file(bytes: &[u8], file: &str, read: &mut Read) -> Result<usize, LoadError> {
    // (model, question) → index of its row in this file.
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let first_row = read.rows.len();
    let non_finite = for_each_line(bytes, file, false, |number, line| {
        let text = |key: &str| match line.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            other => Err(format!("{key} is {}", super::value_or_missing(other))),
        };
        let model = text("model")?;
        let question = text("question_id")?;
        let task = text("task")?;
        let category = text("category")?;
        // A null score (NaN in a download of the public judgments) has no outcome, as -1.
        let score = match line.get("score") {
            Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            Some(Value::Bool(b)) => f64::from(u8::from(*b)),
            Some(Value::Null) => -1.0,
            other => return Err(format!("score is {}", super::value_or_missing(other))),
        };
        let status_text = line
            .get("eval_status")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let error = line
            .get("error")
            .filter(|e| !e.is_null() && *e != &Value::Bool(false));
        let failed = status_text.is_some_and(|s| FAILED_STATUSES.contains(&s)) || error.is_some();
        let (outcome, status) = if score == -1.0 {
            (None, RowStatus::NotAttempted)
        } else if (0.0..=1.0).contains(&score) {
            let status = if failed {
                RowStatus::Error
            } else {
                RowStatus::Ok
            };
            (Some(score), status)
        } else {
            return Err(format!(
                "score is {score}, outside [0, 1] (LiveBench scores each question in [0, 1], or -1 to leave it out)"
            ));
        };
        let mut source = format!("livebench {task}");
        if let Some(subtask) = line.get("subtask").and_then(Value::as_str) {
            source.push_str(&format!(" ({subtask})"));
        }
        source.push_str(&format!(" line {number}"));
        if let Some(status) = status_text {
            source.push_str(&format!(", {status}"));
        }
        if let Some(message) = line
            .get("error_msg")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            source.push_str(&format!(": {message}"));
        }
        let row = CanonicalRow {
            system: model.clone(),
            task: question.clone(),
            run: 0,
            outcome,
            status,
            group: Some(category),
            cost_usd: None,
            seconds: None,
            source,
        };
        match seen.get(&(model.clone(), question.clone())) {
            // Judged again: the last line counts (LiveBench's rewrite keeps it).
            Some(&index) => {
                read.rows[index] = row;
                read.lines[index] = number;
                read.replaced += 1;
            }
            None => {
                seen.insert((model, question), read.rows.len());
                read.rows.push(row);
                read.lines.push(number);
            }
        }
        Ok(())
    })?;
    for row in &read.rows[first_row..] {
        read.failed += usize::from(row.status == RowStatus::Error);
        read.left_out += usize::from(row.status == RowStatus::NotAttempted);
    }
    Ok(non_finite)
}

/// The notes of a read (`shown`: the file or folder).
fn notes(shown: &str, files: usize, read: &Read) -> Vec<String> {
    let mut systems: Vec<&str> = read.rows.iter().map(|r| r.system.as_str()).collect();
    systems.sort_unstable();
    systems.dedup();
    let mut notes = vec![format!(
        "{shown}: LiveBench judgments{} of {}; the outcome is score, the group category",
        if files > 1 {
            format!(" from {files} task files")
        } else {
            String::new()
        },
        counted(systems.len(), "model", "models")
    )];
    if read.replaced > 0 {
        notes.push(format!(
            "{shown}: {} again: the last line counts, as LiveBench's rewrite of the file keeps it",
            counted(
                read.replaced,
                "(question, model) was judged",
                "(question, model) pairs were judged"
            )
        ));
    }
    if read.failed > 0 {
        notes.push(format!(
            "{shown}: {} or grader failed (eval_status api_error, token_exhaustion or eval_error, or an error): kept with score 0, as the leaderboard counts them, with status error",
            counted(read.failed, "judgment whose answer", "judgments whose answer")
        ));
    }
    if read.left_out > 0 {
        notes.push(format!(
            "{shown}: {} score -1 (which the leaderboard leaves out) or none: not attempted",
            counted(read.left_out, "judgment has", "judgments have")
        ));
    }
    notes
}

/// The rows of one judgments file.
pub fn judgments(bytes: &[u8], file: &str) -> Result<(Imported, usize), LoadError> {
    let mut read = Read::default();
    let non_finite = read_file(bytes, file, &mut read)?;
    let notes = notes(file, 1, &read);
    Ok((
        Imported {
            rows: read.rows,
            notes,
            lines: Some(read.lines),
        },
        non_finite,
    ))
}

/// The rows of every judgments file below a folder, the bytes read (for the content hash) and the
/// name messages use.
pub fn tree(folder: &Path) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = folder.display().to_string();
    let files = judgment_files(folder, false);
    let mut read = Read::default();
    let mut bytes = Vec::new();
    for path in &files {
        let file = path.display().to_string();
        let text = std::fs::read(path)
            .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
        read_file(&text, &file, &mut read)?;
        bytes.extend_from_slice(&text);
    }
    let notes = notes(&shown, files.len(), &read);
    // Rows of several files: placed by their source (task and line), not by a line number.
    Ok((Imported::entries(read.rows, notes), bytes, shown))
}
