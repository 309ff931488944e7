//! OpenCompass's evaluation results: `opencompass` (`run.py`) writes, per run,
//! `<work_dir>/<YYYYMMDD_HHMMSS>/results/<model abbr>/<dataset abbr>.json` (`OpenICLEvalTask`,
//! `mmengine.dump`) beside `predictions/` (the model's answers, not graded), `summary/` (the
//! headline table) and `logs/`. With `--dump-eval-details` (the default) the file holds the
//! evaluator's figures (`accuracy`, …) and per-sample `details`, in one of two shapes:
//!
//! - **grouped** (OpenCompass ≥ 0.4, `BaseEvaluator.evaluate`): a list with one entry per dataset
//!   example, `example_abbr` = `<subdivision>_<idx>` (the dataset's abbreviation, with the split for
//!   a dataset of several, and the example's index in it), and every field the evaluator gave per
//!   sample as a list over the `n` replicas of the example (`correct: [true, false, …]`);
//! - **formatted** (`OpenICLEvalTask.format_details`, older releases and evaluators that give no
//!   details): an object of `"0"`, `"1"`, … entries in the order of the predictions, with `type`
//!   `GEN` or `PPL` (a PPL entry's `correct` is OpenCompass's own prediction = reference).
//!
//! Read as follows:
//!
//! - system: the model folder under `results/` (the model's `abbr`); a file given alone: its
//!   folder, noted.
//! - task: `example_abbr` (grouped), or `<dataset>_<entry>` (formatted); group: the dataset (the
//!   file's name), so each dataset of a suite (MMLU's 57 subjects) is a group.
//! - run: the replica (`n` > 1 gives every example `n` runs, whose mean is the example's score).
//! - outcome: the sample's `correct`, else `is_correct`, else `cascade_correct` (the fields
//!   OpenCompass itself counts for G-Pass@k), true 1 and false 0; `--metric KEY` reads another
//!   per-sample field (a number in [0, 1], or `--score-scale MIN:MAX`); null → not attempted, and
//!   so is an example whose entry lacks the field (an evaluator that skipped it). Numbered entries
//!   with no correctness (an evaluator that gives no details, `AccEvaluator` above all) are read as
//!   `predictions == references`, its rule, only where that gives the file's own accuracy; an LLM
//!   judge's details (`GenericLLMEvaluator`, the judge's reply in `prediction`) by OpenCompass's
//!   own grading of the reply, its first `A` or `B`, likewise.
//! - numbered entries of n replicas: the dataset was repeated n times before numbering, so entry i
//!   is example i mod size; n comes from the figures' `(n runs average)`, or, since an evaluator
//!   without details returns its last replica's figures unnamed, from the prompts' period.
//! - Each file's mean is checked against its own headline (`accuracy`, else `score`, named
//!   `… (n runs average)` for n > 1; for replicas the figures do not name, the last replica's, the
//!   only one such a file reports), and a difference is noted. A file with no per-sample outcome
//!   (written with `--dump-eval-details False`, an evaluator whose figure is not exact match, a
//!   judge whose grades are not A/B, or a sampling run's rollouts) is refused
//!   alone, and left out of a folder with a note saying why; datasets with predictions but no
//!   results yet (a run still evaluating) are noted.
//! - A run folder (the one holding `results/`), its `results/`, or one model's folder under it is
//!   read as one result (and followed by `watch` as results land).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{CanonicalRow, Imported, RowStatus, counted, metric_number, on_outcome_scale};
use crate::data::error::LoadError;

/// The per-sample fields OpenCompass counts as a sample's correctness, in the order it tries them.
const OUTCOME_FIELDS: [&str; 3] = ["correct", "is_correct", "cascade_correct"];

/// The folder OpenCompass writes graded results to, and the one of ungraded answers beside it.
const RESULTS: &str = "results";
const PREDICTIONS: &str = "predictions";

/// How far (relative) a file's headline may lie from 100 × the mean of its details before a note
/// says so: the evaluator computes it in its own floating-point order (100 × correct / count, or
/// the mean of the replicas' figures), which differs from pareval's mean by rounding only.
const HEADLINE_SLACK: f64 = 1e-6;

/// The two shapes of `details`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Grouped,
    Formatted,
}

fn shape(object: &Map<String, Value>) -> Option<Shape> {
    match object.get("details")? {
        Value::Array(entries) => entries
            .first()?
            .as_object()?
            .contains_key("example_abbr")
            .then_some(Shape::Grouped),
        Value::Object(entries) => (entries
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t == "GEN" || t == "PPL")
            && entries.contains_key("0"))
        .then_some(Shape::Formatted),
        _ => None,
    }
}

/// Whether a parsed JSON object is an OpenCompass results file with per-sample details.
pub fn is_results(object: &Map<String, Value>) -> bool {
    shape(object).is_some()
}

/// What a JSON object is when it is one of OpenCompass's files with no per-sample outcome: its
/// predictions (`{"0": {"origin_prompt", "prediction", …}, …}`) or a results file written without
/// details (`--dump-eval-details False`); None for anything else.
pub fn ungraded_hint(object: &Map<String, Value>) -> Option<String> {
    let first = object.get("0").and_then(Value::as_object);
    if first.is_some_and(|entry| {
        entry.contains_key("origin_prompt") && entry.contains_key("prediction")
    }) && object.keys().all(|key| key.parse::<u64>().is_ok())
    {
        return Some(
            "OpenCompass's predictions (the model's answers, not graded): its eval task writes results/<model>/<dataset>.json beside predictions/ (read as opencompass), or give the run's folder".to_string(),
        );
    }
    let headline = object
        .keys()
        .any(|key| key == "accuracy" || key.starts_with("accuracy ("));
    let figures_only = object
        .values()
        .all(|value| value.is_number() || value.is_string());
    (headline && figures_only).then(|| {
        "an evaluator's figures with no per-sample details (OpenCompass writes its results/<model>/<dataset>.json so when run with --dump-eval-details False): run the eval again with details to read each sample".to_string()
    })
}

/// The model folders of a results folder: its subfolders holding `.json` files.
fn model_folders(results: &Path) -> Vec<PathBuf> {
    super::subfolders(results)
        .into_iter()
        .filter(|folder| !json_files(folder).is_empty())
        .collect()
}

fn json_files(folder: &Path) -> Vec<PathBuf> {
    super::files_named(folder, |name| name.ends_with(".json"))
}

/// How many of a `results/` folder's files are looked at to recognise it (a file written without
/// details may come first).
const FILES_SNIFFED: usize = 8;

/// How much of a file's beginning is looked at: the evaluator's figures come before `details`, and
/// a few dozen of them (G-Pass@k per threshold) fit many times over.
const SNIFF_BYTES: u64 = 64 * 1024;

/// Whether a file begins as an OpenCompass results file with details: `"details"` followed by an
/// entry's `"example_abbr"`, or by `format_details`' `"type": "GEN"` or `"PPL"` (its first key).
fn starts_like_results(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path)
        .and_then(|file| file.take(SNIFF_BYTES).read_to_end(&mut head))
        .is_ok();
    let text = String::from_utf8_lossy(&head);
    let Some(at) = text.find("\"details\"").filter(|_| read) else {
        return false;
    };
    let rest = &text[at..];
    if rest.contains("\"example_abbr\"") {
        return true;
    }
    // `"type"`, a colon, then the kind, whatever the spacing.
    rest.match_indices("\"type\"").any(|(i, key)| {
        let value = rest[i + key.len()..].trim_start();
        value.strip_prefix(':').is_some_and(|v| {
            let v = v.trim_start();
            v.starts_with("\"GEN\"") || v.starts_with("\"PPL\"")
        })
    })
}

/// What a path stands for: the results folder, its model folders read, and whether the path is
/// one model's folder.
struct Layout {
    results: PathBuf,
    models: Vec<PathBuf>,
    one_model: bool,
}

/// The layout of a run folder (holding `results/`), of `results/` itself, or of one model's folder
/// under it (`.` too: the path is made absolute first).
fn layout(path: &Path) -> Option<Layout> {
    if !path.is_dir() {
        return None;
    }
    let path = &std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let named_results = path.file_name().is_some_and(|n| n == RESULTS);
    let parent_is_results = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == RESULTS);
    let (results, models, one_model) = if path.join(RESULTS).is_dir() {
        let results = path.join(RESULTS);
        let models = model_folders(&results);
        (results, models, false)
    } else if named_results {
        (path.to_path_buf(), model_folders(path), false)
    } else if parent_is_results && !json_files(path).is_empty() {
        (path.parent()?.to_path_buf(), vec![path.to_path_buf()], true)
    } else {
        return None;
    };
    // Known by its files' beginnings (not by a `predictions/` beside it, which another tool's run
    // may have too), so another tool's `results/` is left alone; no file is parsed: `watch` asks
    // this at every poll.
    let recognised = models
        .iter()
        .flat_map(|m| json_files(m))
        .take(FILES_SNIFFED)
        .any(|file| starts_like_results(&file));
    recognised.then_some(Layout {
        results,
        models,
        one_model,
    })
}

/// Whether a folder is an OpenCompass run, its `results/`, or a model's folder under it.
pub fn is_tree(path: &Path) -> bool {
    layout(path).is_some()
}

/// Every results file of a tree, whose change `watch` must see.
pub fn tracked_files(path: &Path) -> Vec<PathBuf> {
    layout(path)
        .map(|found| found.models.iter().flat_map(|m| json_files(m)).collect())
        .unwrap_or_default()
}

/// What to give instead of an LLM judge's replies given alone (see [`is_judge_output`]).
pub fn judge_output_hint(path: &Path) -> Option<String> {
    judged_dataset(path).map(|base| {
        format!(
            "an LLM judge's replies, which OpenCompass's GenericLLMEvaluator and CascadeEvaluator write beside the results they grade: give {base}.json beside it (or the run's folder), whose details are read by the judge's grades"
        )
    })
}

/// The dataset whose results an LLM judge's replies file belongs to: `GenericLLMEvaluator` writes
/// `<dataset>_replica<k>.json` beside `<dataset>.json`, `CascadeEvaluator` its judge's
/// `<dataset>_llm_judge_replica<k>.json`. None for any other file.
fn judged_dataset(path: &Path) -> Option<String> {
    let name = dataset_of(path);
    let (base, k) = name.rsplit_once("_replica")?;
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let base = base.strip_suffix("_llm_judge").unwrap_or(base);
    path.with_file_name(format!("{base}.json"))
        .is_file()
        .then(|| base.to_string())
}

/// Whether a file is an LLM judge's replies beside the results it grades: read through those.
fn is_judge_output(path: &Path) -> bool {
    judged_dataset(path).is_some()
}

/// The file's name less `.json`: the dataset's abbreviation.
fn dataset_of(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.strip_suffix(".json").unwrap_or(&name).to_string()
}

/// The folder a file lies in: its model's abbreviation.
fn model_of(path: &Path) -> String {
    super::folder_name(path).unwrap_or_else(|| "unnamed".to_string())
}

/// What one results file gave.
struct FileRead {
    rows: Vec<CanonicalRow>,
    /// Examples whose entry lacks the outcome field, read as not attempted.
    without_outcome: usize,
    /// Replies of an LLM judge with no grade in them (read as 0, status error).
    ungraded: usize,
    /// The replicas of numbered entries, when only their prompts' period told them.
    by_period: Option<u64>,
    examples: usize,
    /// What the outcome was read from.
    field: Reading,
    /// The file's headline and 100 × the mean of the graded rows, when it has one to check.
    headline: Option<(String, f64, f64)>,
}

/// The outcome of numbered entries that carry no correctness: the entry's `predictions` equal its
/// `references` (both written as text by `format_details`), which is how `AccEvaluator`, the
/// evaluator of most of OpenCompass's multiple-choice configurations, scores a sample. Read only
/// where it gives the file's own accuracy.
const MATCHED: &str = "predictions == references";

/// The outcome of an LLM judge's details (`GenericLLMEvaluator` with OpenCompass's
/// `generic_llmjudge_postprocess`): the judge's reply (`prediction`) graded as OpenCompass grades
/// it, by the first `A` (correct) or `B` (incorrect) in it; a reply with neither counts as not
/// correct (OpenCompass's `not_attempted_count`: the judge gave no grade), kept as 0 with status
/// error. Read only where it gives the file's own accuracy (a judge configured with other tags
/// does not).
const JUDGED: &str = "the judge's grade (its first A or B)";

/// What a file's outcomes are read from.
#[derive(Debug, Clone, PartialEq)]
enum Reading {
    /// A per-sample field: `correct`, `is_correct`, `cascade_correct` or `--metric`'s.
    Field(String),
    /// [`MATCHED`]: AccEvaluator's rule on numbered entries with no correctness.
    Matched,
    /// [`JUDGED`]: an LLM judge's replies, graded by OpenCompass's rule.
    Judged,
}

impl Reading {
    /// How notes and messages name it.
    fn name(&self) -> &str {
        match self {
            Reading::Field(field) => field,
            Reading::Matched => MATCHED,
            Reading::Judged => JUDGED,
        }
    }

    /// For a rule that is not the evaluator's own outcome: how the headline check names it, and
    /// what the evaluator is not when the check fails.
    fn rule(&self) -> Option<(&'static str, &'static str)> {
        match self {
            Reading::Field(_) => None,
            Reading::Matched => Some(("predictions == references", "AccEvaluator's exact match")),
            Reading::Judged => Some((
                "the judge's first A or B",
                "a judge graded A/B as generic_llmjudge_postprocess reads it",
            )),
        }
    }
}

/// The grade OpenCompass reads in a judge's reply: the first `A` or `B` in it.
fn judge_grade(reply: &str) -> Option<bool> {
    reply.chars().find_map(|c| match c {
        'A' => Some(true),
        'B' => Some(false),
        _ => None,
    })
}

/// One entry of `details`: its task, its replica when the entry is one sample (numbered entries),
/// and its fields.
struct Entry<'a> {
    task: String,
    run: Option<u32>,
    fields: &'a Map<String, Value>,
}

/// The evaluator's own figure: `accuracy`, else `score`, named `… (n runs average)` when n > 1.
fn headline_of(object: &Map<String, Value>) -> Option<(String, f64)> {
    ["accuracy", "score"]
        .iter()
        .find_map(|name| {
            object
                .iter()
                .find(|(key, _)| key.as_str() == *name || key.starts_with(&format!("{name} (")))
        })
        .and_then(|(key, value)| Some((key.clone(), value.as_f64()?)))
}

/// The replica count n a file's figures name (`accuracy (4 runs average)`), else 1.
fn replicas_named(object: &Map<String, Value>) -> u32 {
    object
        .keys()
        .find_map(|key| {
            let (_, tail) = key.rsplit_once(" (")?;
            tail.strip_suffix(" runs average)")?.parse::<u32>().ok()
        })
        .filter(|&n| n > 0)
        .unwrap_or(1)
}

/// How many replicas numbered entries hold: the count the figures name, else the period of the
/// entries' prompts. An evaluator that gives no details returns its last replica's figures
/// unnamed (`BaseEvaluator.evaluate`), so a run with n > 1 says so only by repeating its prompts:
/// entry i and entry i + size are one example's replicas. 1 when neither says more.
fn replicas_of(
    numbered: &[(u64, &Map<String, Value>)],
    object: &Map<String, Value>,
    gapless: bool,
) -> u64 {
    let named = u64::from(replicas_named(object));
    if named > 1 {
        return named;
    }
    fn prompt(fields: &Map<String, Value>) -> Option<&Value> {
        fields
            .get("prompt")
            .or_else(|| fields.get("origin_prediction"))
            .filter(|v| match v {
                Value::String(text) => !text.is_empty(),
                Value::Object(map) => !map.is_empty(),
                Value::Array(list) => !list.is_empty(),
                Value::Null => false,
                _ => true,
            })
    }
    // Replicas are numbered on from the first: 0 … n·size − 1 with no gap.
    if !gapless {
        return 1;
    }
    let count = numbered.len();
    (1..count)
        .filter(|period| count.is_multiple_of(*period))
        .find(|&period| {
            (0..count).all(|i| {
                let (here, there) = (prompt(numbered[i].1), prompt(numbered[i % period].1));
                here.is_some() && here == there
            })
        })
        .map_or(1, |period| (count / period) as u64)
}

/// Whether two values agree within the slack a headline is checked with.
fn agrees(figure: f64, mean: f64) -> bool {
    (figure - mean).abs() <= HEADLINE_SLACK * (1.0 + figure.abs())
}

/// The field a file's samples are read by: `--metric`, else the first of [`OUTCOME_FIELDS`] some
/// entry has; Err says what the entries hold instead.
fn outcome_field(entries: &[Entry<'_>], metric: Option<&str>) -> Result<String, String> {
    let has = |key: &str| entries.iter().any(|entry| entry.fields.contains_key(key));
    let chosen = match metric {
        Some(key) => has(key).then(|| key.to_string()),
        None => OUTCOME_FIELDS
            .iter()
            .find(|key| has(key))
            .map(|key| key.to_string()),
    };
    chosen.ok_or_else(|| {
        let mut keys: Vec<&str> = entries
            .iter()
            .flat_map(|entry| entry.fields.keys().map(String::as_str))
            .collect::<HashSet<&str>>()
            .into_iter()
            .collect();
        keys.sort_unstable();
        let wanted = match metric {
            Some(key) => format!("'{key}' (--metric)"),
            None => format!(
                "{} (the evaluator gave none; --metric KEY reads another per-sample field)",
                OUTCOME_FIELDS.join(", ")
            ),
        };
        format!(
            "its details hold no per-sample {wanted}; their fields: {}",
            keys.join(", ")
        )
    })
}

/// One sample's value of the outcome field as an outcome (None: not scored).
fn sample_outcome(
    value: &Value,
    metric: Option<&str>,
    scale: Option<(f64, f64)>,
) -> Result<Option<f64>, String> {
    let number = metric_number(value)?;
    match (number, metric) {
        (None, _) => Ok(None),
        (Some(v), Some(key)) => on_outcome_scale(v, scale, &format!("'{key}'")).map(Some),
        (Some(v), None) if v == 0.0 || v == 1.0 => Ok(Some(v)),
        (Some(v), None) => Err(format!("{v} is not true or false")),
    }
}

/// The entries of `details` in the file's order, and the replica count when it was told from the
/// prompts' period alone (see [`replicas_of`]).
fn entries_of<'a>(
    object: &'a Map<String, Value>,
    shape: Shape,
    file: &str,
    dataset: &str,
) -> Result<(Vec<Entry<'a>>, Option<u64>), LoadError> {
    let mut entries = Vec::new();
    let mut by_period = None;
    match (shape, object.get("details")) {
        (Shape::Grouped, Some(Value::Array(list))) => {
            for (index, entry) in list.iter().enumerate() {
                let at = |what: String| LoadError::new(file, format!("details[{index}]: {what}"));
                let fields = entry
                    .as_object()
                    .ok_or_else(|| at(format!("{entry} is not an object")))?;
                let task = match fields.get("example_abbr") {
                    Some(Value::String(s)) if !s.is_empty() => s.clone(),
                    other => {
                        return Err(at(format!(
                            "example_abbr is {}",
                            super::value_or_missing(other)
                        )));
                    }
                };
                entries.push(Entry {
                    task,
                    run: None,
                    fields,
                });
            }
        }
        (Shape::Formatted, Some(Value::Object(map))) => {
            let mut numbered = Vec::new();
            for (key, entry) in map {
                if key == "type" {
                    continue;
                }
                let index: u64 = key.parse().map_err(|_| {
                    LoadError::new(
                        file,
                        format!(
                            "details: entry '{key}' is not numbered as OpenCompass numbers them"
                        ),
                    )
                })?;
                let fields = entry.as_object().ok_or_else(|| {
                    LoadError::new(file, format!("details['{key}']: {entry} is not an object"))
                })?;
                numbered.push((index, fields));
            }
            numbered.sort_by_key(|(index, _)| *index);
            // With n replicas the dataset was repeated n times before the entries were numbered:
            // entry i is example i mod size, replica i / size.
            let gapless = numbered
                .iter()
                .zip(0u64..)
                .all(|((index, _), i)| *index == i);
            let n = replicas_of(&numbered, object, gapless);
            let count = numbered.len() as u64;
            if !count.is_multiple_of(n) {
                return Err(LoadError::new(
                    file,
                    format!(
                        "details: {count} numbered entries cannot be {n} replicas of the same examples (its figures name {n} runs)"
                    ),
                ));
            }
            let size = count / n;
            if n > 1 && !gapless {
                return Err(LoadError::new(
                    file,
                    format!(
                        "details: its figures name {n} runs, but its entries are not numbered 0 to {} with no gap, as OpenCompass numbers replicas",
                        count - 1
                    ),
                ));
            }
            if n > 1 && u64::from(replicas_named(object)) != n {
                by_period = Some(n);
            }
            for (index, fields) in numbered {
                // One replica's entries keep their own numbers (a gap stays a gap).
                let (example, run) = if n > 1 {
                    (index % size, index / size)
                } else {
                    (index, 0)
                };
                entries.push(Entry {
                    task: format!("{dataset}_{example}"),
                    run: Some(run as u32),
                    fields,
                });
            }
        }
        _ => {}
    }
    Ok((entries, by_period))
}

/// The rows of one results file's details; the inner Err says why the file has no per-sample
/// outcome (refused alone, left out of a folder).
fn read_details(
    object: &Map<String, Value>,
    file: &str,
    system: &str,
    dataset: &str,
    metric: Option<&str>,
    scale: Option<(f64, f64)>,
) -> Result<Result<FileRead, String>, LoadError> {
    let empty = match object.get("details") {
        Some(Value::Array(list)) => list.is_empty(),
        Some(Value::Object(map)) => map.keys().all(|key| key == "type"),
        _ => false,
    };
    let Some(shape) = shape(object).filter(|_| !empty) else {
        let why = if empty {
            "its details are empty (no sample was scored)"
        } else if object.contains_key("details") {
            "its details are in no shape OpenCompass writes (a list of entries with example_abbr, or numbered entries with a type)"
        } else if object.keys().any(|k| k.ends_with("rollout results")) {
            "a sampling run's rollouts (token counts), with no per-sample score"
        } else {
            "no per-sample details (OpenCompass writes them unless --dump-eval-details False)"
        };
        return Ok(Err(why.to_string()));
    };
    let (entries, by_period) = entries_of(object, shape, file, dataset)?;
    let headline = headline_of(object);
    let field = match outcome_field(&entries, metric) {
        Ok(field) => Reading::Field(field),
        // Numbered entries of an evaluator that gave no details (AccEvaluator's): its rule, where
        // it reproduces the file's accuracy.
        Err(_)
            if metric.is_none()
                && shape == Shape::Formatted
                && entries.iter().all(|e| {
                    e.fields.contains_key("predictions") && e.fields.contains_key("references")
                }) =>
        {
            Reading::Matched
        }
        // An LLM judge's details: its replies, with the counts of get_final_results beside them.
        Err(_)
            if metric.is_none()
                && shape == Shape::Grouped
                && ["correct_count", "incorrect_count", "not_attempted_count"]
                    .iter()
                    .all(|key| object.contains_key(*key))
                && entries.iter().all(|e| e.fields.contains_key("prediction")) =>
        {
            Reading::Judged
        }
        Err(why) => return Ok(Err(why)),
    };
    let mut ungraded = 0usize;
    let mut seen: HashSet<(&str, Option<u32>)> = HashSet::new();
    let mut rows = Vec::new();
    let mut without_outcome = 0;
    for entry in &entries {
        let task = &entry.task;
        if !seen.insert((task.as_str(), entry.run)) {
            return Err(LoadError::new(
                file,
                format!("details: example '{task}' is listed twice"),
            ));
        }
        let row = |run: u32, outcome: Option<f64>| CanonicalRow {
            system: system.to_string(),
            task: task.clone(),
            run,
            outcome,
            status: RowStatus::graded(outcome),
            group: Some(dataset.to_string()),
            cost_usd: None,
            seconds: None,
            source: format!("opencompass {dataset}.json {task} replica {run}"),
        };
        let at = |run: u32, why: String| {
            LoadError::new(
                file,
                format!(
                    "details: example '{task}', replica {run}: '{}' {why}",
                    field.name()
                ),
            )
        };
        if field == Reading::Matched {
            let matched = entry.fields.get("predictions") == entry.fields.get("references");
            rows.push(row(
                entry.run.unwrap_or(0),
                Some(f64::from(u8::from(matched))),
            ));
            continue;
        }
        if field == Reading::Judged {
            let replies = match entry.fields.get("prediction") {
                Some(Value::Array(replies)) => replies.iter().collect::<Vec<_>>(),
                Some(reply) => vec![reply],
                None => Vec::new(),
            };
            for (run, reply) in (0u32..).zip(replies) {
                let Value::String(reply) = reply else {
                    return Err(at(run, format!("{reply} is not the judge's reply")));
                };
                let grade = judge_grade(reply);
                ungraded += usize::from(grade.is_none());
                let mut judged = row(run, Some(f64::from(u8::from(grade == Some(true)))));
                if grade.is_none() {
                    judged.status = RowStatus::Error;
                    judged.source.push_str(": the judge gave no grade");
                }
                rows.push(judged);
            }
            continue;
        }
        match (entry.fields.get(field.name()), entry.run) {
            (None, run) => {
                without_outcome += 1;
                rows.push(row(run.unwrap_or(0), None));
            }
            (Some(Value::Array(replicas)), None) => {
                for (run, value) in (0u32..).zip(replicas) {
                    let outcome = sample_outcome(value, metric, scale).map_err(|e| at(run, e))?;
                    rows.push(row(run, outcome));
                }
            }
            (Some(value), run) => {
                let run = run.unwrap_or(0);
                let outcome = sample_outcome(value, metric, scale).map_err(|e| at(run, e))?;
                rows.push(row(run, outcome));
            }
        }
    }
    // The evaluator's own figure against the mean of what was read (a --metric field has none).
    // Replicas whose figures do not name them are numbered entries of an evaluator that gave no
    // details, whose figures are its last replica's alone.
    let last_run = rows.iter().map(|r| r.run).max().unwrap_or(0);
    let last_only = by_period.is_some();
    let graded: Vec<f64> = rows
        .iter()
        .filter(|r| !last_only || r.run == last_run)
        .filter_map(|r| r.outcome)
        .collect();
    let mean =
        (!graded.is_empty()).then(|| 100.0 * graded.iter().sum::<f64>() / graded.len() as f64);
    let checked = match (metric, headline, mean) {
        (None, Some((key, figure)), Some(mean)) => Some((key, figure, mean)),
        _ => None,
    };
    if let Some((rule, unlike)) = field.rule() {
        // Not the evaluator's own outcome: read only where it gives the evaluator's figure.
        let says = match (&checked, mean) {
            (Some((_, figure, mean)), _) if agrees(*figure, *mean) => None,
            (Some((key, figure, mean)), _) => Some(format!(
                "its details hold no per-sample correctness, and {rule} gives {mean:.4}, not its '{key}' {figure:.4} (the evaluator is not {unlike})"
            )),
            (None, _) => Some(format!(
                "its details hold no per-sample correctness, and no accuracy to check {rule} against"
            )),
        };
        if let Some(why) = says {
            return Ok(Err(why));
        }
    }
    let examples = entries
        .iter()
        .map(|e| e.task.as_str())
        .collect::<HashSet<_>>()
        .len();
    Ok(Ok(FileRead {
        rows,
        without_outcome,
        ungraded,
        by_period,
        examples,
        field,
        headline: checked,
    }))
}

/// Adds `<shown>: <what>: <items>` to `notes` when there are items.
fn push_listing(notes: &mut Vec<String>, shown: &str, what: &str, items: Vec<String>) {
    if !items.is_empty() {
        notes.push(format!("{shown}: {what}: {}", items.join(", ")));
    }
}

/// The notes of the files read: fields, examples lacking the field, headlines that disagree.
fn read_notes(shown: &str, reads: &[(String, FileRead)], notes: &mut Vec<String>) {
    let mut fields: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, read) in reads {
        *fields.entry(read.field.name()).or_default() += 1;
    }
    let examples: usize = reads.iter().map(|(_, r)| r.examples).sum();
    let samples: usize = reads.iter().map(|(_, r)| r.rows.len()).sum();
    notes.push(format!(
        "{shown}: OpenCompass results of {} ({}, {}); outcome: {} (a replica of an example is a run)",
        counted(reads.len(), "dataset file", "dataset files"),
        counted(examples, "example", "examples"),
        counted(samples, "sample", "samples"),
        fields
            .iter()
            .map(|(field, n)| format!("'{field}' in {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let listed = |keep: &dyn Fn(&FileRead) -> Option<String>| -> Vec<String> {
        reads
            .iter()
            .filter_map(|(file, read)| keep(read).map(|tail| format!("{file}{tail}")))
            .collect()
    };
    push_listing(
        notes,
        shown,
        &format!(
            "details with no per-sample correctness (an evaluator that gives none, such as AccEvaluator, most multiple-choice configurations' own) read as {MATCHED}, AccEvaluator's rule, which gives each such file's own accuracy"
        ),
        listed(&|r| (r.field == Reading::Matched).then(String::new)),
    );
    push_listing(
        notes,
        shown,
        "an LLM judge's details (GenericLLMEvaluator) read by OpenCompass's rule, the first A (correct) or B (incorrect) in the judge's reply, which gives each such file's own accuracy",
        listed(&|r| {
            (r.field == Reading::Judged).then(|| match r.ungraded {
                0 => String::new(),
                n => format!(" ({n} with no grade: 0, status error)"),
            })
        }),
    );
    push_listing(
        notes,
        shown,
        "numbered entries whose prompts repeat, read as replicas of the first (OpenCompass repeats a dataset n times, and an evaluator without details reports only the last replica's figures, which its mean was checked against)",
        listed(&|r| r.by_period.map(|n| format!(" {n}"))),
    );
    push_listing(
        notes,
        shown,
        "examples whose details lack the outcome field (the evaluator skipped them) are not attempted",
        listed(&|r| (r.without_outcome > 0).then(|| format!(" {}", r.without_outcome))),
    );
    let (mut agree, mut differ) = (0usize, Vec::new());
    for (file, read) in reads {
        if let Some((key, figure, mean)) = &read.headline {
            if agrees(*figure, *mean) {
                agree += 1;
            } else {
                differ.push(format!(
                    "{file}: '{key}' {figure:.4}, 100 × the mean of its details {mean:.4}"
                ));
            }
        }
    }
    if agree + differ.len() > 0 {
        let mut note = format!(
            "{shown}: each file's headline (accuracy or score) checked against 100 × the mean of its details: {} of {} agree",
            agree,
            agree + differ.len()
        );
        if !differ.is_empty() {
            note.push_str(&format!(
                " (the evaluator's figure is not the mean of its samples: {})",
                differ.join("; ")
            ));
        }
        notes.push(note);
    }
}

/// The rows of one results file given alone (its system the folder it is in).
pub fn results(
    object: &Map<String, Value>,
    path: &Path,
    file: &str,
    metric: Option<&str>,
    scale: Option<(f64, f64)>,
) -> Result<Imported, LoadError> {
    let system = model_of(path);
    let dataset = dataset_of(path);
    let read = read_details(object, file, &system, &dataset, metric, scale)?
        .map_err(|why| LoadError::new(file, format!("an OpenCompass results file, but {why}")))?;
    let mut notes = vec![format!(
        "{file}: the system is named after the folder the file is in, '{system}' (OpenCompass's results/<model abbr>/), and the group after the file, '{dataset}'"
    )];
    let reads = vec![(format!("{dataset}.json"), read)];
    read_notes(file, &reads, &mut notes);
    let rows = reads.into_iter().flat_map(|(_, read)| read.rows).collect();
    Ok(Imported::entries(rows, notes))
}

/// The rows of a run folder, its `results/` or a model's folder, the bytes read (for the content
/// hash) and the name messages use.
pub fn tree(
    path: &Path,
    metric: Option<&str>,
    scale: Option<(f64, f64)>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = path.display().to_string();
    let Layout {
        results,
        models,
        one_model,
    } = layout(path).ok_or_else(|| {
        LoadError::new(
            &shown,
            "not an OpenCompass run (a folder with results/<model>/<dataset>.json)",
        )
    })?;
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    let mut reads = Vec::new();
    // Files with no per-sample outcome, by why.
    let mut left_out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut graded: HashSet<(String, String)> = HashSet::new();
    for model in &models {
        let system = model
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for file_path in json_files(model) {
            if is_judge_output(&file_path) {
                continue;
            }
            let file = file_path.display().to_string();
            let (value, text) = super::read_member(
                &file_path,
                |_| true,
                "an OpenCompass results file (a JSON object)",
            )?;
            let empty = Map::new();
            let object = value.as_object().unwrap_or(&empty);
            let dataset = dataset_of(&file_path);
            graded.insert((system.clone(), dataset.clone()));
            bytes.extend_from_slice(&text);
            match read_details(object, &file, &system, &dataset, metric, scale)? {
                Ok(read) => reads.push((format!("{system}/{dataset}.json"), read)),
                Err(why) => left_out
                    .entry(why)
                    .or_default()
                    .push(format!("{system}/{dataset}.json")),
            }
        }
    }
    let left_out: Vec<String> = left_out
        .into_iter()
        .map(|(why, files)| format!("{} ({why})", files.join(", ")))
        .collect();
    if reads.is_empty() {
        return Err(LoadError::new(
            &shown,
            format!(
                "OpenCompass results with no per-sample outcome in any file: {}",
                left_out.join("; ")
            ),
        ));
    }
    let mut notes = Vec::new();
    read_notes(&shown, &reads, &mut notes);
    if !left_out.is_empty() {
        notes.push(format!(
            "{shown}: left out, with no per-sample outcome: {}",
            left_out.join("; ")
        ));
    }
    let only_model = models
        .first()
        .and_then(|m| m.file_name())
        .filter(|_| one_model);
    let pending = ungraded(&results, only_model, &graded);
    if !pending.is_empty() {
        notes.push(format!(
            "{shown}: answered but not graded yet (predictions/ without results/: a run still evaluating): {}",
            pending.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    for (_, read) in reads {
        rows.extend(read.rows);
    }
    Ok((Imported::entries(rows, notes), bytes, shown))
}

/// The datasets a run has answered (`predictions/<model>/<dataset>.json`, or the parts
/// `<dataset>_<k>.json` and `tmp_…` files of one being answered) that `results/` does not grade
/// yet, as `<model>/<dataset>`; only `model`'s when given.
fn ungraded(
    results: &Path,
    model: Option<&std::ffi::OsStr>,
    graded: &HashSet<(String, String)>,
) -> std::collections::BTreeSet<String> {
    let Some(predictions) = results.parent().map(|run| run.join(PREDICTIONS)) else {
        return Default::default();
    };
    let mut pending = std::collections::BTreeSet::new();
    for folder in super::subfolders(&predictions) {
        if model.is_some_and(|m| folder.file_name() != Some(m)) {
            continue;
        }
        let system = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for file in json_files(&folder) {
            let name = dataset_of(&file);
            let name = name.strip_prefix("tmp_").unwrap_or(&name).to_string();
            // A dataset answered in parts writes `<dataset>_0.json`, `<dataset>_1.json`, ….
            let whole = name
                .rsplit_once('_')
                .filter(|(_, k)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
                .map(|(base, _)| base.to_string());
            let is_graded = |dataset: &str| graded.contains(&(system.clone(), dataset.to_string()));
            if is_graded(&name) || whole.as_deref().is_some_and(is_graded) {
                continue;
            }
            pending.insert(format!("{system}/{}", whole.unwrap_or(name)));
        }
    }
    pending
}
