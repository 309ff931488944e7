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
//!
//! Releases: LiveBench adds questions in releases and retires old ones; each task's
//! `question.jsonl` (beside its `model_judgment/`) dates them (`livebench_release_date`,
//! `livebench_removal_date`, empty while in use). The leaderboard of a release reads the questions
//! released on or before it and not removed by it (`show_livebench_result.py
//! --livebench-release-option`). `--split RELEASE` reads that release the same way, leaving the
//! other judgments out with a note; without it every judgment is read, and a note counts those of
//! questions LiveBench has removed.

use std::collections::{BTreeMap, HashMap};
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
    let candidate = |folder: &Path| {
        Some(folder.join(JUDGMENT_FOLDER).join(JUDGMENT_FILE)).filter(|file| file.is_file())
    };
    let walk = |folder: &Path, found: &mut Vec<PathBuf>| {
        let skip = |sub: &Path| sub.file_name().is_some_and(|n| n == JUDGMENT_FOLDER);
        super::files_in_tree(folder, TREE_DEPTH, first_only, &candidate, &skip, found);
    };
    let mut found = Vec::new();
    walk(folder, &mut found);
    let bench = folder.join(BENCH_FOLDER);
    if (found.is_empty() || !first_only) && bench.is_dir() {
        walk(&bench, &mut found);
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

/// The file beside a task's `model_judgment/` that dates its questions.
const QUESTION_FILE: &str = "question.jsonl";

/// A question's release and removal dates (`YYYY-MM-DD`; removal empty while in use).
struct Dates {
    released: String,
    removed: String,
}

/// A task's question file: each question's dates, and the file's bytes.
type QuestionFile = (HashMap<String, Dates>, Vec<u8>);

/// The question file of the task whose judgment file is `judgments` (None when the task has none).
fn question_dates(judgments: &Path) -> Result<Option<QuestionFile>, LoadError> {
    let Some(path) = judgments
        .parent()
        .and_then(Path::parent)
        .map(|task| task.join(QUESTION_FILE))
        .filter(|path| path.is_file())
    else {
        return Ok(None);
    };
    let file = path.display().to_string();
    let bytes = std::fs::read(&path)
        .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
    let mut dates = HashMap::new();
    for_each_line(&bytes, &file, false, |_, line| {
        let text = |key: &str| match line.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            None | Some(Value::Null) => Ok(String::new()),
            Some(other) => Err(format!("{key} is {other}, not a date")),
        };
        let question = text("question_id")?;
        if question.is_empty() {
            return Err("question_id is missing".to_string());
        }
        let released = text("livebench_release_date")?;
        let removed = text("livebench_removal_date")?;
        dates.insert(question, Dates { released, removed });
        Ok(())
    })?;
    Ok(Some((dates, bytes)))
}

/// Why a question is not in `release` (None when it is): released after it, or removed by it.
fn outside(dates: &Dates, release: &str) -> Option<&'static str> {
    if dates.released.as_str() > release {
        Some("released after it")
    } else if !dates.removed.is_empty() && dates.removed.as_str() <= release {
        Some("removed by it")
    } else {
        None
    }
}

/// A release as `--split` names it: a date `YYYY-MM-DD`.
fn release_of(split: &str) -> Result<&str, String> {
    let text = split.trim();
    let bytes = text.as_bytes();
    let shaped = bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        });
    if shaped {
        Ok(text)
    } else {
        Err(format!(
            "--split '{split}' is not a LiveBench release: give its date, YYYY-MM-DD (e.g. 2024-11-25)"
        ))
    }
}

/// What the question files said of the judgments read.
#[derive(Default)]
struct Releases {
    /// With `--split`: judgments left out, by why.
    left_out: std::collections::BTreeMap<&'static str, usize>,
    /// Judgments of questions LiveBench marks removed (read without `--split`).
    removed: usize,
}

/// Applies a release (or, without one, counts judgments of removed questions) to the rows `from`
/// on of `read`, which came from the judgment file at `path`. Returns the bytes of the question
/// file it read (they decide which rows stay, so a tree's content hash takes them in).
fn apply_release(
    read: &mut Read,
    from: usize,
    path: &Path,
    release: Option<&str>,
    releases: &mut Releases,
) -> Result<Vec<u8>, LoadError> {
    let Some((dates, question_bytes)) = question_dates(path)? else {
        if release.is_some() {
            return Err(LoadError::new(
                path.display().to_string(),
                format!(
                    "--split reads one LiveBench release, which the task's {QUESTION_FILE} dates, and there is none beside its {JUDGMENT_FOLDER}/"
                ),
            ));
        }
        return Ok(Vec::new());
    };
    let Some(release) = release else {
        releases.removed += read.rows[from..]
            .iter()
            .filter(|row| dates.get(&row.task).is_some_and(|d| !d.removed.is_empty()))
            .count();
        return Ok(question_bytes);
    };
    let keep: Vec<bool> = read.rows[from..]
        .iter()
        .map(|row| {
            let why = match dates.get(&row.task) {
                Some(dated) => outside(dated, release),
                None => Some("not in its question file"),
            };
            if let Some(why) = why {
                *releases.left_out.entry(why).or_default() += 1;
                // The counts of the notes are of the judgments read.
                read.failed -= usize::from(row.status == RowStatus::Error);
                read.left_out -= usize::from(row.status == RowStatus::NotAttempted);
            }
            why.is_none()
        })
        .collect();
    retain_from(&mut read.rows, from, &keep);
    retain_from(&mut read.lines, from, &keep);
    Ok(question_bytes)
}

/// Keeps the items of `items` before `from`, and of those from `from` on the ones `keep` marks.
fn retain_from<T>(items: &mut Vec<T>, from: usize, keep: &[bool]) {
    let mut index = 0usize;
    items.retain(|_| {
        index += 1;
        index <= from || keep.get(index - 1 - from).copied().unwrap_or(true)
    });
}

/// The notes of what the question files said.
fn release_notes(shown: &str, release: Option<&str>, releases: &Releases) -> Vec<String> {
    let mut notes = Vec::new();
    match release {
        Some(release) => {
            let left: usize = releases.left_out.values().sum();
            let why: Vec<String> = releases
                .left_out
                .iter()
                .map(|(why, n)| format!("{n} {why}"))
                .collect();
            notes.push(format!(
                "{shown}: LiveBench release {release} (--split): its questions, released on or before it and not removed by it, as its leaderboard reads them; {} left out{}",
                counted(left, "judgment", "judgments"),
                if why.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", why.join(", "))
                }
            ));
        }
        None if releases.removed > 0 => notes.push(format!(
            "{shown}: {} of questions LiveBench has removed (livebench_removal_date), which the leaderboards of later releases leave out: --split RELEASE reads one release as its leaderboard does",
            counted(releases.removed, "judgment is", "judgments are")
        )),
        None => {}
    }
    notes
}

/// LiveBench's leaderboard lowercases the model names before it groups the judgments
/// (`show_livebench_result.py`), and its judge writes a model under the name it was asked for, so one
/// model can be judged as `GPT-4o` in one task and `gpt-4o` in another. Every model is named in lower
/// case, as the leaderboard names it, whichever files are read and whichever rows a release keeps
/// (a name that depended on them split one model's rows between two systems, or renamed it in the
/// middle of a live read). A question judged under two spellings keeps both judgments, as the
/// leaderboard's mean does: its runs, in the order first read. Returns the note, when a name had
/// capitals.
fn lower_case_models(rows: &mut [CanonicalRow], shown: &str) -> Option<String> {
    let mut renamed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut runs: HashMap<(String, String), u32> = HashMap::new();
    let mut twice = 0usize;
    for row in rows.iter_mut() {
        let lower = row.system.to_lowercase();
        if lower != row.system {
            let names = renamed.entry(lower.clone()).or_default();
            if !names.contains(&row.system) {
                names.push(std::mem::take(&mut row.system));
            }
            row.system = lower;
        }
        let run = runs
            .entry((row.system.clone(), row.task.clone()))
            .or_insert(0);
        row.run = *run;
        twice += usize::from(*run == 1);
        *run += 1;
    }
    if renamed.is_empty() {
        return None;
    }
    let merged: Vec<String> = renamed
        .iter_mut()
        .map(|(lower, names)| {
            names.sort_unstable();
            format!("{} as {lower}", names.join(" and "))
        })
        .collect();
    let mut note = format!(
        "{shown}: model names are read in lower case, as LiveBench's leaderboard groups them: {}",
        merged.join("; ")
    );
    if twice > 0 {
        note.push_str(&format!(
            "; {} under two spellings: each judgment is a run",
            counted(twice, "question was judged", "questions were judged")
        ));
    }
    Some(note)
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

/// The rows of one judgments file (read for one release with `split`).
pub fn judgments(
    bytes: &[u8],
    path: &Path,
    file: &str,
    split: Option<&str>,
) -> Result<(Imported, usize), LoadError> {
    let release = split
        .map(release_of)
        .transpose()
        .map_err(|why| LoadError::new(file, why))?;
    let mut read = Read::default();
    let non_finite = read_file(bytes, file, &mut read)?;
    let mut releases = Releases::default();
    apply_release(&mut read, 0, path, release, &mut releases)?;
    let merged = lower_case_models(&mut read.rows, file);
    let mut notes = notes(file, 1, &read);
    notes.extend(merged);
    notes.extend(release_notes(file, release, &releases));
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
pub fn tree(
    folder: &Path,
    split: Option<&str>,
    live: bool,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = folder.display().to_string();
    let release = split
        .map(release_of)
        .transpose()
        .map_err(|why| LoadError::new(&shown, why))?;
    let files = judgment_files(folder, false);
    let mut read = Read::default();
    let mut bytes = Vec::new();
    let mut releases = Releases::default();
    // Judgment files with no judgment in them: their tasks have no row, which a note must say (the
    // notes counted them among the files read, and a whole category went by without a word).
    let mut unjudged: Vec<String> = Vec::new();
    let mut cut = Vec::new();
    for path in &files {
        let file = path.display().to_string();
        let text = std::fs::read(path)
            .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
        let from = read.rows.len();
        let whole = super::without_cut_last_line(&text, &file, live, false, &mut cut);
        read_file(whole, &file, &mut read)?;
        if read.rows.len() == from {
            unjudged.push(file.clone());
        }
        let questions = apply_release(&mut read, from, path, release, &mut releases)?;
        bytes.extend_from_slice(&text);
        bytes.extend_from_slice(&questions);
    }
    let merged = lower_case_models(&mut read.rows, &shown);
    let mut notes = notes(&shown, files.len(), &read);
    notes.extend(merged);
    notes.extend(cut);
    if let Some(first) = unjudged.first() {
        notes.push(format!(
            "{shown}: {} no judgment (the first: {first}): {} no row (not judged yet? gen_ground_truth_judgment.py writes them)",
            counted(unjudged.len(), "judgment file holds", "judgment files hold"),
            if unjudged.len() == 1 { "its task has" } else { "their tasks have" }
        ));
    }
    notes.extend(release_notes(&shown, release, &releases));
    // Rows of several files: placed by their source (task and line), not by a line number.
    Ok((Imported::entries(read.rows, notes), bytes, shown))
}
