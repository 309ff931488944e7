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
//!   so is an example whose entry lacks the field (an evaluator that skipped it).
//! - Each file's mean is checked against its own headline (`accuracy`, else `score`, named
//!   `… (n runs average)` for n > 1), and a difference is noted. A file with no per-sample outcome (written with
//!   `--dump-eval-details False`, an LLM judge's details that hold only the judge's reply, or a
//!   sampling run's rollouts) is refused alone, and left out of a folder with a note naming it;
//!   datasets with predictions but no results yet (a run still evaluating) are noted.
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
    // OpenCompass writes `predictions/` beside `results/`; a `results/` copied elsewhere is known
    // by its files' beginnings, so another tool's `results/` is left alone. Neither parses a
    // file: `watch` asks this at every poll.
    let beside_predictions = results
        .parent()
        .is_some_and(|run| run.join(PREDICTIONS).is_dir());
    let recognised = beside_predictions
        || models
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
    examples: usize,
    /// The per-sample field read.
    field: String,
    /// The file's headline and 100 × the mean of the graded rows, when it has one to check.
    headline: Option<(String, f64, f64)>,
}

/// The field a file's samples are read by: `--metric`, else the first of [`OUTCOME_FIELDS`] some
/// entry has; Err says what the entries hold instead.
fn outcome_field(
    entries: &[(String, &Map<String, Value>)],
    metric: Option<&str>,
) -> Result<String, String> {
    let has = |key: &str| entries.iter().any(|(_, entry)| entry.contains_key(key));
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
            .flat_map(|(_, entry)| entry.keys().map(String::as_str))
            .collect::<HashSet<&str>>()
            .into_iter()
            .collect();
        keys.sort_unstable();
        let wanted = match metric {
            Some(key) => format!("'{key}' (--metric)"),
            None => format!(
                "{} (the evaluator gave none, or an LLM judge's details hold only its reply; --metric KEY reads another per-sample field)",
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
    let Some(shape) = shape(object) else {
        let empty = match object.get("details") {
            Some(Value::Array(list)) => list.is_empty(),
            Some(Value::Object(map)) => map.keys().all(|key| key == "type"),
            _ => false,
        };
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
    // (task, entry) in the file's order.
    let mut entries: Vec<(String, &Map<String, Value>)> = Vec::new();
    match (shape, object.get("details")) {
        (Shape::Grouped, Some(Value::Array(list))) => {
            for (index, entry) in list.iter().enumerate() {
                let at = |what: String| LoadError::new(file, format!("details[{index}]: {what}"));
                let entry = entry
                    .as_object()
                    .ok_or_else(|| at(format!("{entry} is not an object")))?;
                let task = match entry.get("example_abbr") {
                    Some(Value::String(s)) if !s.is_empty() => s.clone(),
                    other => {
                        return Err(at(format!(
                            "example_abbr is {}",
                            super::value_or_missing(other)
                        )));
                    }
                };
                entries.push((task, entry));
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
                let entry = entry.as_object().ok_or_else(|| {
                    LoadError::new(file, format!("details['{key}']: {entry} is not an object"))
                })?;
                numbered.push((index, entry));
            }
            numbered.sort_by_key(|(index, _)| *index);
            entries.extend(
                numbered
                    .into_iter()
                    .map(|(index, entry)| (format!("{dataset}_{index}"), entry)),
            );
        }
        _ => return Ok(Err("its details are empty".to_string())),
    }
    let field = match outcome_field(&entries, metric) {
        Ok(field) => field,
        Err(why) => return Ok(Err(why)),
    };
    let mut seen: HashSet<&str> = HashSet::new();
    let mut rows = Vec::new();
    let mut without_outcome = 0;
    for (task, entry) in &entries {
        if !seen.insert(task.as_str()) {
            return Err(LoadError::new(
                file,
                format!("details: example '{task}' is listed twice"),
            ));
        }
        let source = |run: usize| format!("opencompass {dataset}.json {task} replica {run}");
        let row = |run: usize, outcome: Option<f64>| CanonicalRow {
            system: system.to_string(),
            task: task.clone(),
            run: run as u32,
            outcome,
            status: RowStatus::graded(outcome),
            group: Some(dataset.to_string()),
            cost_usd: None,
            seconds: None,
            source: source(run),
        };
        let at = |run: usize, why: String| {
            LoadError::new(
                file,
                format!("details: example '{task}', replica {run}: '{field}' {why}"),
            )
        };
        match entry.get(field.as_str()) {
            None => {
                without_outcome += 1;
                rows.push(row(0, None));
            }
            Some(Value::Array(replicas)) => {
                for (run, value) in replicas.iter().enumerate() {
                    let outcome = sample_outcome(value, metric, scale).map_err(|e| at(run, e))?;
                    rows.push(row(run, outcome));
                }
            }
            Some(value) => {
                let outcome = sample_outcome(value, metric, scale).map_err(|e| at(0, e))?;
                rows.push(row(0, outcome));
            }
        }
    }
    // The evaluator's own figure (`accuracy`, else `score`, named `… (n runs average)` for n > 1),
    // for the default fields (a --metric field has no headline).
    let headline = if metric.is_none() {
        ["accuracy", "score"]
            .iter()
            .find_map(|name| {
                object
                    .iter()
                    .find(|(key, _)| key.as_str() == *name || key.starts_with(&format!("{name} (")))
            })
            .and_then(|(key, value)| Some((key.clone(), value.as_f64()?)))
            .and_then(|(key, figure)| {
                let graded: Vec<f64> = rows.iter().filter_map(|r| r.outcome).collect();
                (!graded.is_empty()).then(|| {
                    let mean = 100.0 * graded.iter().sum::<f64>() / graded.len() as f64;
                    (key, figure, mean)
                })
            })
    } else {
        None
    };
    Ok(Ok(FileRead {
        rows,
        without_outcome,
        examples: entries.len(),
        field,
        headline,
    }))
}

/// The notes of the files read: fields, examples lacking the field, headlines that disagree.
fn read_notes(shown: &str, reads: &[(String, FileRead)], notes: &mut Vec<String>) {
    let mut fields: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, read) in reads {
        *fields.entry(read.field.as_str()).or_default() += 1;
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
    let lacking: Vec<String> = reads
        .iter()
        .filter(|(_, r)| r.without_outcome > 0)
        .map(|(file, r)| format!("{file} {}", r.without_outcome))
        .collect();
    if !lacking.is_empty() {
        notes.push(format!(
            "{shown}: examples whose details lack the outcome field (the evaluator skipped them) are not attempted: {}",
            lacking.join(", ")
        ));
    }
    let (mut agree, mut differ) = (0usize, Vec::new());
    for (file, read) in reads {
        if let Some((key, figure, mean)) = &read.headline {
            if (figure - mean).abs() <= HEADLINE_SLACK * (1.0 + figure.abs()) {
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
