//! DeepEval's test runs: with `DEEPEVAL_RESULTS_FOLDER` set (or `evaluate(…, results_folder=…)`),
//! each `evaluate()` or `deepeval test run` writes `test_run_<YYYYMMDD_HHMMSS>.json` (`_2`, `_3`, …
//! within one second), the `TestRun` model: `testCases` and `conversationalTestCases` (each with
//! `name`, `success`, `metricsData` of `{name, score, success, threshold, error}`, `tokenCost`,
//! `completionTime`, `tags`, `metadata`), `hyperparameters`, `identifier`, `testPassed`,
//! `testFailed`, `metricsScores`; DeepEval also keeps the latest in `.deepeval/`
//! (`.latest_run_full.json`, and `.latest_test_run.json`, which wraps it in `testRunData`), read
//! the same.
//! Read as follows:
//!
//! - system: the run's `identifier` (`deepeval test run --identifier`), else its `hyperparameters`
//!   (`model=gpt-4o, prompt=v2`: what DeepEval compares runs by), else the file's name.
//! - task: the test case's `name` (DeepEval names unnamed ones `test_case_<i>` by position); a name
//!   twice in one run is refused, since which is which cannot be told.
//! - run: a results folder's test runs of one system, in file (time) order; one file is run 0.
//! - outcome: the test case's `success` (every metric passed its threshold: DeepEval's pass), or
//!   `--metric NAME`: that metric's `score` (outside [0, 1] refused).
//! - status: a metric that raised (`error`, kept when `ignore_errors` is on) makes the test case an
//!   error: with outcome 0 for `success` (DeepEval counts it failed), not attempted for `--metric`
//!   of the metric that raised (it has no score).
//! - group: the test case's `metadata` `group` or `category`, else its one tag; cost: `tokenCost`;
//!   seconds: `completionTime` (the system's; `runDuration` and `evaluationCost` are the metrics').

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, value_or_missing};
use crate::data::error::LoadError;

/// The metadata keys a test case's group is taken from, in order.
const GROUP_KEYS: [&str; 2] = ["group", "category"];

/// Whether a JSON object is a DeepEval test run, or DeepEval's `.latest_test_run.json`, which
/// wraps one in `testRunData`.
pub fn is_test_run(object: &serde_json::Map<String, Value>) -> bool {
    let bare = |object: &serde_json::Map<String, Value>| {
        object.get("testCases").is_some_and(Value::is_array)
            && (object.contains_key("testPassed") || object.contains_key("metricsScores"))
    };
    bare(object)
        || object
            .get("testRunData")
            .and_then(Value::as_object)
            .is_some_and(bare)
}

/// The test run itself (unwrapped from `.latest_test_run.json`'s `testRunData`).
fn unwrapped(value: &Value) -> &Value {
    value.get("testRunData").unwrap_or(value)
}

/// A folder's `test_run_*.json` files, in path (time) order.
fn test_run_files(folder: &Path) -> Vec<PathBuf> {
    super::files_named(folder, |name| {
        name.starts_with("test_run_") && name.ends_with(".json")
    })
}

/// Whether a folder is a DeepEval results folder (its first `test_run_*.json` is a test run): read as
/// one result, so one system's runs are numbered together.
pub fn is_results_folder(folder: &Path) -> bool {
    super::first_file_is(&test_run_files(folder), is_test_run)
}

/// Every file of a results folder whose change `watch` must see.
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    test_run_files(folder)
}

/// The system a test run is of, and where the name came from.
fn system_of(value: &Value, path: &Path) -> (String, &'static str) {
    if let Some(identifier) = value
        .get("identifier")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        return (identifier.to_string(), "identifier");
    }
    if let Some(hyper) = value
        .get("hyperparameters")
        .and_then(Value::as_object)
        .filter(|h| !h.is_empty())
    {
        let parts: Vec<String> = hyper
            .iter()
            .map(|(key, v)| match v {
                Value::String(s) => format!("{key}={s}"),
                other => format!("{key}={other}"),
            })
            .collect();
        return (parts.join(", "), "hyperparameters");
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (stem, "file name")
}

/// The rows of one test run (`run`: its run number), and whether the system came from the file name.
pub fn test_run(
    value: &Value,
    path: &Path,
    file: &str,
    metric: Option<&str>,
    run: u32,
) -> Result<(Vec<CanonicalRow>, &'static str), LoadError> {
    let value = unwrapped(value);
    let (system, named_by) = system_of(value, path);
    let mut rows = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for key in ["testCases", "conversationalTestCases"] {
        let Some(cases) = value.get(key).and_then(Value::as_array) else {
            continue;
        };
        for (index, case) in cases.iter().enumerate() {
            let at =
                |what: String| LoadError::new(file, format!("{key} entry {}: {what}", index + 1));
            let name = case
                .get("name")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .ok_or_else(|| at("no name".to_string()))?
                .to_string();
            if let Some(first) = seen.insert(name.clone(), index + 1) {
                return Err(at(format!(
                    "test case '{name}' again (first as entry {first}): name the test cases apart"
                )));
            }
            let metrics = case
                .get("metricsData")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let raised = |m: &Value| m.get("error").is_some_and(|e| !e.is_null());
            let errored = metrics.iter().any(raised);
            let (outcome, status) = match metric {
                None => {
                    let passed = match case.get("success") {
                        Some(Value::Bool(b)) => *b,
                        other => {
                            return Err(at(format!("success is {}", value_or_missing(other))));
                        }
                    };
                    let status = if errored {
                        RowStatus::Error
                    } else {
                        RowStatus::Ok
                    };
                    (Some(f64::from(u8::from(passed))), status)
                }
                Some(wanted) => {
                    let found = metrics
                        .iter()
                        .find(|m| m.get("name").and_then(Value::as_str) == Some(wanted))
                        .ok_or_else(|| {
                            let names: Vec<&str> = metrics
                                .iter()
                                .filter_map(|m| m.get("name").and_then(Value::as_str))
                                .collect();
                            at(format!(
                                "no metric '{wanted}' (it has {})",
                                if names.is_empty() {
                                    "none".to_string()
                                } else {
                                    names.join(", ")
                                }
                            ))
                        })?;
                    if raised(found) {
                        (None, RowStatus::NotAttempted)
                    } else {
                        let score = found
                            .get("score")
                            .and_then(Value::as_f64)
                            .ok_or_else(|| at(format!("metric '{wanted}' has no score")))?;
                        if !(0.0..=1.0).contains(&score) {
                            return Err(at(format!(
                                "metric '{wanted}' scored {score}, outside [0, 1]"
                            )));
                        }
                        let status = if errored {
                            RowStatus::Error
                        } else {
                            RowStatus::Ok
                        };
                        (Some(score), status)
                    }
                }
            };
            let metadata = case.get("metadata");
            let group = GROUP_KEYS
                .iter()
                .find_map(|key| {
                    metadata
                        .and_then(|m| m.get(*key))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .or_else(|| match case.get("tags").and_then(Value::as_array) {
                    Some(tags) if tags.len() == 1 => tags[0].as_str().map(str::to_string),
                    _ => None,
                });
            let number = |key: &str| super::json::amount(case, key);
            let failed: Vec<&str> = metrics
                .iter()
                .filter(|m| m.get("success") == Some(&Value::Bool(false)))
                .filter_map(|m| m.get("name").and_then(Value::as_str))
                .collect();
            let mut source = format!("deepeval {key} entry {}", index + 1);
            if !failed.is_empty() {
                source.push_str(&format!(", failed: {}", failed.join(", ")));
            }
            rows.push(CanonicalRow {
                system: system.clone(),
                task: name,
                run,
                outcome,
                status,
                group,
                cost_usd: number("tokenCost"),
                seconds: number("completionTime"),
                source,
            });
        }
    }
    Ok((rows, named_by))
}

/// The note of a read: its test runs and systems, where the names came from, and the outcome.
fn note(
    shown: &str,
    runs: usize,
    rows: &[CanonicalRow],
    named_by: &BTreeMap<String, &str>,
    metric: Option<&str>,
) -> String {
    let systems: Vec<String> = named_by
        .iter()
        .map(|(system, by)| format!("'{system}' (its {by})"))
        .collect();
    let errors = rows.iter().filter(|r| r.status != RowStatus::Ok).count();
    format!(
        "{shown}: DeepEval test run{} ({} test cases) of {}; the outcome is {}{}",
        if runs == 1 {
            String::new()
        } else {
            format!("s, {runs} of them")
        },
        rows.len(),
        systems.join(", "),
        metric.map_or(
            "each test case's success (every metric passed)".to_string(),
            |m| { format!("metric '{m}''s score") }
        ),
        if errors > 0 {
            format!(
                "; {} where a metric raised: status error (not attempted for the metric that raised)",
                counted(errors, "test case", "test cases")
            )
        } else {
            String::new()
        }
    )
}

/// The rows of one test run file, given alone (run 0).
pub fn test_run_file(
    value: &Value,
    path: &Path,
    file: &str,
    metric: Option<&str>,
) -> Result<Imported, LoadError> {
    let (rows, by) = test_run(value, path, file, metric, 0)?;
    let named_by = rows
        .first()
        .map(|r| BTreeMap::from([(r.system.clone(), by)]))
        .unwrap_or_default();
    let notes = vec![note(file, 1, &rows, &named_by, metric)];
    Ok(Imported::entries(rows, notes))
}

/// The rows of a results folder (every `test_run_*.json` in it; a system's runs numbered in file
/// order), the bytes read (for the content hash) and the name messages use.
pub fn results_folder(
    folder: &Path,
    metric: Option<&str>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = folder.display().to_string();
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    let mut runs: HashMap<String, u32> = HashMap::new();
    let mut named_by = BTreeMap::new();
    let files = test_run_files(folder);
    for path in &files {
        let file = path.display().to_string();
        let (value, text) = super::read_member(
            path,
            is_test_run,
            "a DeepEval test run (testCases with testPassed or metricsScores)",
        )?;
        let (system, _) = system_of(unwrapped(&value), path);
        let run = runs.entry(system).or_default();
        let (read, by) = test_run(&value, path, &file, metric, *run)?;
        *run += 1;
        if let Some(first) = read.first() {
            named_by.insert(first.system.clone(), by);
        }
        rows.extend(read);
        bytes.extend_from_slice(&text);
    }
    let notes = vec![note(&shown, files.len(), &rows, &named_by, metric)];
    Ok((Imported::entries(rows, notes), bytes, shown))
}
