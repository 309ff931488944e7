//! Humanity's Last Exam (centerforaisafety/hle, `hle_eval/`): `run_model_predictions.py` writes
//! `hle_<model>.json`, one object keyed by question id (`{model, response, usage}`), and
//! `run_judge_results.py` copies each prediction the judge model graded into
//! `judged_<predictions file>.json` (so `judged_hle_<model>.json.json`) with its `judge_response`
//! (`correct_answer`, `model_answer`, `reasoning`, `correct`: "yes" or "no", `confidence`). Read as
//! its `dump_metrics` reads it:
//!
//! - system: the predictions' `model` (the endpoint name it was run with).
//! - task: the question id; group: none in the file (HLE's categories are in the dataset), or the
//!   `category` of `--split FILE`.
//! - outcome: 1 when `correct` holds "yes" (the script's own test), else 0; the judge's confidence
//!   in `source`. An entry the judge never answered (a prediction carried over without
//!   `judge_response`) is 0 with status error, as `dump_metrics` counts it wrong.
//! - `--split FILE`: the dataset's questions that were run (a CSV with an `id` column, e.g. the
//!   dataset's `id` and `category` saved as CSV, or one id per line). `dump_metrics` divides by
//!   every question of the dataset, so a question with no judged entry (the model's API call or
//!   the judge's failed; the script leaves both out of the file) is 0 with status error there too,
//!   and the mean is the script's Accuracy. Without it only the file's questions are read, noted.
//! - cost: none (the usage counts tokens); seconds: none.
//!
//! A predictions file that no judge has read yet is refused, naming the script that judges it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value};

use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// The first entry of an object keyed by question id, when every entry is an object.
fn first_entry(object: &Map<String, Value>) -> Option<&Map<String, Value>> {
    object.values().next()?.as_object()
}

/// Whether a JSON object is a judged HLE predictions file.
pub fn is_judged(object: &Map<String, Value>) -> bool {
    first_entry(object).is_some_and(|entry| {
        entry.contains_key("response")
            && entry
                .get("judge_response")
                .and_then(Value::as_object)
                .is_some_and(|judge| judge.contains_key("correct"))
    })
}

/// Why a file of HLE predictions that no judge has read is not read: the file to read instead.
pub fn ungraded_hint(object: &Map<String, Value>, path: &Path) -> Option<String> {
    let entry = first_entry(object)?;
    let predictions = ["model", "response", "usage"]
        .iter()
        .all(|key| entry.contains_key(*key))
        && !entry.contains_key("judge_response");
    predictions.then(|| {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!(
            "Humanity's Last Exam model predictions (hle_eval/run_model_predictions.py), not judged yet: run hle_eval/run_judge_results.py --predictions {name} and read the judged_{name}.json it writes"
        )
    })
}

/// The questions of `--split FILE`: each id with its category, when the file has one.
fn split_questions(split: &str) -> Result<Vec<(String, Option<String>)>, LoadError> {
    let text = std::fs::read_to_string(split)
        .map_err(|e| LoadError::new(split, format!("cannot read the question list: {e}")))?;
    let header = text.lines().next().unwrap_or_default();
    let columns: Vec<&str> = header.split(',').map(str::trim).collect();
    let questions: Vec<(String, Option<String>)> = if columns.contains(&"id") {
        // A CSV (the dataset's columns may hold quoted commas): read by polars.
        let frame = crate::data::read::text_csv(&text).map_err(|e| {
            LoadError::new(
                split,
                format!(
                    "cannot read the question list as CSV (an id column; category for groups): {}",
                    crate::data::read::polars_message(&e)
                ),
            )
        })?;
        let text_column = |name: &str| -> Result<Option<Vec<Option<String>>>, LoadError> {
            let Ok(column) = frame.column(name) else {
                return Ok(None);
            };
            let values = column
                .str()
                .map_err(|e| LoadError::new(split, format!("column {name}: {e}")))?;
            Ok(Some(values.iter().map(|v| v.map(str::to_string)).collect()))
        };
        let ids = text_column("id")?.unwrap_or_default();
        let categories = text_column("category")?;
        let mut questions = Vec::with_capacity(ids.len());
        for (row, id) in ids.into_iter().enumerate() {
            let id = id.filter(|id| !id.trim().is_empty()).ok_or_else(|| {
                LoadError::new(split, format!("line {}: no question id", row + 2))
            })?;
            let category = categories
                .as_ref()
                .and_then(|c| c[row].clone())
                .filter(|c| !c.is_empty());
            questions.push((id.trim().to_string(), category));
        }
        questions
    } else if columns.len() > 1 {
        return Err(LoadError::new(
            split,
            format!(
                "line 1: the question list's columns are {}, with no id column (HLE's question ids; category, if given, becomes the group)",
                columns.join(", ")
            ),
        ));
    } else {
        let mut questions = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let id = line.trim();
            if id.is_empty() {
                continue;
            }
            if id.contains(|c: char| c.is_whitespace() || "{}[]\"',:".contains(c)) {
                return Err(LoadError::new(
                    split,
                    format!(
                        "line {}: '{id}' is not a question id (the list is one id per line, or a CSV with an id column)",
                        index + 1
                    ),
                ));
            }
            questions.push((id.to_string(), None));
        }
        questions
    };
    if questions.is_empty() {
        return Err(LoadError::new(split, "the question list is empty"));
    }
    let mut seen = BTreeSet::new();
    if let Some((twice, _)) = questions.iter().find(|(id, _)| !seen.insert(id.as_str())) {
        return Err(LoadError::new(
            split,
            format!("question '{twice}' is listed twice"),
        ));
    }
    Ok(questions)
}

/// What the judge said of one entry: the outcome, and its words for `source`.
fn verdict(entry: &Map<String, Value>) -> Result<Option<(f64, String)>, String> {
    let Some(judge) = entry.get("judge_response") else {
        return Ok(None);
    };
    let judge = judge
        .as_object()
        .ok_or_else(|| format!("judge_response is {judge}, not an object"))?;
    let correct = match judge.get("correct") {
        // dump_metrics: `"yes" in judge_response["correct"]`.
        Some(Value::String(text)) => text.contains("yes"),
        Some(Value::Bool(flag)) => *flag,
        other => {
            return Err(format!(
                "judge_response.correct is {}, not \"yes\" or \"no\"",
                super::value_or_missing(other)
            ));
        }
    };
    let confidence = judge
        .get("confidence")
        .map(|c| format!(", confidence {c}"))
        .unwrap_or_default();
    let said = judge
        .get("correct")
        .map(|c| c.to_string())
        .unwrap_or_default();
    Ok(Some((
        if correct { 1.0 } else { 0.0 },
        format!("judged correct {said}{confidence}"),
    )))
}

/// The rows of one judged file.
pub fn judged(
    value: &Value,
    path: &Path,
    file: &str,
    split: Option<&str>,
) -> Result<Imported, LoadError> {
    let object = value
        .as_object()
        .ok_or_else(|| LoadError::new(file, "not an object of judged predictions"))?;
    let mut models: BTreeMap<String, usize> = BTreeMap::new();
    let mut verdicts: Vec<(String, Option<(f64, String)>)> = Vec::with_capacity(object.len());
    for (id, entry) in object {
        let entry = entry.as_object().ok_or_else(|| {
            LoadError::new(file, format!("question {id}: the entry is not an object"))
        })?;
        if let Some(model) = entry.get("model").and_then(Value::as_str) {
            *models.entry(model.to_string()).or_default() += 1;
        }
        let said =
            verdict(entry).map_err(|e| LoadError::new(file, format!("question {id}: {e}")))?;
        verdicts.push((id.clone(), said));
    }
    let system = match models.len() {
        1 => models.keys().next().cloned().unwrap_or_default(),
        0 => system_from_name(path),
        _ => {
            let named: Vec<String> = models
                .iter()
                .map(|(model, n)| format!("{model} ({n})"))
                .collect();
            return Err(LoadError::new(
                file,
                format!(
                    "the entries name {} models ({}): a predictions file is one model's",
                    models.len(),
                    named.join(", ")
                ),
            ));
        }
    };
    let mut notes = vec![format!(
        "{file}: Humanity's Last Exam judgments of {system}: 1 when the judge's `correct` says yes, as run_judge_results.py counts it"
    )];
    let questions = split.map(split_questions).transpose()?;
    let categories: BTreeMap<&str, Option<&str>> = questions
        .iter()
        .flatten()
        .map(|(id, category)| (id.as_str(), category.as_deref()))
        .collect();
    if let Some(questions) = &questions {
        let outside: Vec<&String> = verdicts
            .iter()
            .map(|(id, _)| id)
            .filter(|id| !categories.contains_key(id.as_str()))
            .collect();
        if let Some(first) = outside.first() {
            return Err(LoadError::new(
                file,
                format!(
                    "{} judged questions are not in the question list {} (--split), e.g. '{first}'",
                    outside.len(),
                    split.unwrap_or_default()
                ),
            ));
        }
        notes.push(format!(
            "{file}: scored against the {} questions listed in {} (--split){}",
            questions.len(),
            split.unwrap_or_default(),
            if categories.values().any(Option::is_some) {
                "; group = their category"
            } else {
                ""
            }
        ));
    } else {
        notes.push(format!(
            "{file}: only the {} questions in the file are read: run_judge_results.py divides by every question of the dataset, counting a question the model's or the judge's call failed on as wrong; --split FILE (the dataset's id and category columns as CSV) reads those as errors and takes the categories as groups",
            verdicts.len()
        ));
    }
    let group_of = |id: &str| categories.get(id).copied().flatten().map(str::to_string);
    let mut rows = Vec::with_capacity(verdicts.len());
    let mut unjudged = 0usize;
    let judged_ids: BTreeSet<&str> = verdicts.iter().map(|(id, _)| id.as_str()).collect();
    for (id, said) in &verdicts {
        let (outcome, status, source) = match said {
            Some((outcome, words)) => (
                *outcome,
                RowStatus::graded(Some(*outcome)),
                format!("hle {words}"),
            ),
            None => {
                unjudged += 1;
                (
                    0.0,
                    RowStatus::Error,
                    "hle no judge_response: counted wrong".to_string(),
                )
            }
        };
        rows.push(CanonicalRow {
            system: system.clone(),
            task: id.clone(),
            run: 0,
            outcome: Some(outcome),
            status,
            group: group_of(id),
            cost_usd: None,
            seconds: None,
            source,
        });
    }
    let mut missing = 0usize;
    for (id, category) in questions.iter().flatten() {
        if judged_ids.contains(id.as_str()) {
            continue;
        }
        missing += 1;
        rows.push(CanonicalRow {
            system: system.clone(),
            task: id.clone(),
            run: 0,
            outcome: Some(0.0),
            status: RowStatus::Error,
            group: category.clone(),
            cost_usd: None,
            seconds: None,
            source: "hle no judged entry (the model's or the judge's call failed, or the question was not run): counted wrong".to_string(),
        });
    }
    if unjudged > 0 {
        notes.push(format!(
            "{file}: {} no judge_response: 0 with status error, as dump_metrics counts it wrong (rerun the judge)",
            counted(unjudged, "entry has", "entries have")
        ));
    }
    if missing > 0 {
        notes.push(format!(
            "{file}: {} of the question list {} no judged entry: 0 with status error, as the script's Accuracy counts {}",
            counted(missing, "question", "questions"),
            if missing == 1 { "has" } else { "have" },
            if missing == 1 { "it" } else { "them" }
        ));
    }
    Ok(Imported::entries(rows, notes))
}

/// The model of a file whose entries do not name it: `judged_hle_<model>.json.json` less its parts.
fn system_from_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut stem = name.as_str();
    while let Some(shorter) = stem.strip_suffix(".json") {
        stem = shorter;
    }
    let stem = stem.strip_prefix("judged_").unwrap_or(stem);
    stem.strip_prefix("hle_").unwrap_or(stem).to_string()
}
