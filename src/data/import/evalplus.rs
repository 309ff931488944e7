//! EvalPlus and BigCodeBench `*eval_results.json` files: `{"date", "hash"?, "eval": {task_id: …}}`,
//! as `evalplus.evaluate` and `bigcodebench.evaluate` write them. Read from their writers (EvalPlus
//! 0.1.0 to git main of 2025-08, BigCodeBench 0.1 to 0.2.5):
//!
//! - EvalPlus ≥ 0.2.1: each task a list of samples `{base_status, plus_status, …}` with statuses
//!   `pass`, `fail`, `timeout` (the whole test process killed); `plus_status` is null in a
//!   `--base-only` run. A sample passes HumanEval+/MBPP+ (the leaderboard's headline) only when base
//!   *and* plus pass (`evaluate.py`: `base_status == plus_status == "pass"`).
//! - EvalPlus 0.1.1–0.2.0: each task `{"nfiles", "base": [[status, details]…], "plus": […]}` with
//!   statuses `success`, `failed`, `timed out`.
//! - BigCodeBench: each task a list of samples `{status, details, …}`.
//!
//! The files never name the model: EvalPlus puts it in the path (`<model>_<backend>_temp_<T>` + the
//! suffix), BigCodeBench in the file name before `--bigcodebench`, so the system comes from the name,
//! with a note. Samples of a task are its runs, in the file's order (the writer sorts by completion
//! id). Failing test inputs (which hold integers of any width) are never read.

use std::path::Path;

use serde_json::{Map, Value};

use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// Which of EvalPlus's test suites decides a sample (`--evalplus-tests`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EvalPlusTests {
    /// Base and plus tests both pass (HumanEval+, MBPP+: the leaderboard's headline).
    #[default]
    Plus,
    /// The original benchmark's base tests alone (HumanEval, MBPP).
    Base,
}

impl EvalPlusTests {
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "plus" => Ok(EvalPlusTests::Plus),
            "base" => Ok(EvalPlusTests::Base),
            other => Err(format!("--evalplus-tests: '{other}' is not plus or base")),
        }
    }
}

/// Which harness wrote an `eval` map, told by its first task's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    EvalPlus,
    EvalPlusLegacy,
    BigCodeBench,
}

/// The shape of a parsed file, if it is one of these (an object whose `eval` maps tasks to samples).
pub fn shape(object: &Map<String, Value>) -> Option<Shape> {
    if object.contains_key("samples") {
        // An Inspect log also has `eval`.
        return None;
    }
    let (_, first) = object.get("eval")?.as_object()?.iter().next()?;
    match first {
        Value::Array(samples) => {
            let sample = samples.first()?.as_object()?;
            if sample.contains_key("base_status") {
                Some(Shape::EvalPlus)
            } else if sample.contains_key("status") && sample.contains_key("task_id") {
                Some(Shape::BigCodeBench)
            } else {
                None
            }
        }
        Value::Object(task) if task.contains_key("base") => Some(Shape::EvalPlusLegacy),
        _ => None,
    }
}

/// The system a file belongs to, from its path (the files never name it), and the note saying so.
fn system_from_path(path: &Path, shape: Shape, file: &str) -> (String, String) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let folder = || super::folder_name(path).unwrap_or_else(|| "unnamed".to_string());
    let (system, from) = if shape == Shape::BigCodeBench {
        match name.split_once("--bigcodebench") {
            Some((model, _)) if !model.is_empty() => (model.to_string(), "the file name"),
            _ => (
                folder(),
                "the folder (the file name has no '<model>--bigcodebench')",
            ),
        }
    } else {
        let stem = name
            .strip_suffix("eval_results.json")
            .unwrap_or(name.trim_end_matches(".json"))
            .trim_end_matches(['_', '.']);
        // `samples.jsonl` gives `samples_eval_results.json`, and a folder of samples its
        // `eval_results.json`: the model is then the folder's name.
        if stem.is_empty() || stem == "samples" {
            (folder(), "the folder")
        } else {
            (stem.replace("--", "/"), "the file name")
        }
    };
    let note = format!(
        "{file}: the file does not name its model; the system is named after {from}, '{system}' (--system-name sets another)"
    );
    (system, note)
}

/// Counts of samples read otherwise than pass/fail, for the notes.
#[derive(Default)]
struct Tally {
    timeouts: usize,
    base_only: usize,
    samples: usize,
}

pub fn results(
    value: &Value,
    path: &Path,
    file: &str,
    tests: EvalPlusTests,
) -> Result<Imported, LoadError> {
    let object = value.as_object();
    let shape = object.and_then(shape).ok_or_else(|| {
        LoadError::new(
            file,
            "not an EvalPlus or BigCodeBench eval_results.json (an 'eval' object mapping each task id to its samples, with base_status/plus_status or status)",
        )
    })?;
    let tasks = object
        .and_then(|o| o.get("eval"))
        .and_then(Value::as_object)
        .ok_or_else(|| LoadError::new(file, "'eval' must map task ids to samples"))?;
    let (system, system_note) = system_from_path(path, shape, file);
    let harness = if shape == Shape::BigCodeBench {
        "bigcodebench"
    } else {
        "evalplus"
    };
    let mut rows = Vec::new();
    let mut tally = Tally::default();
    for (task, value) in tasks {
        let samples = task_samples(value, shape, task, file)?;
        for (index, sample) in samples.into_iter().enumerate() {
            tally.samples += 1;
            let passed = sample_outcome(&sample, shape, tests, &mut tally).map_err(|what| {
                LoadError::new(file, format!("task {task}, sample {index}: {what}"))
            })?;
            rows.push(CanonicalRow {
                system: system.clone(),
                task: task.clone(),
                run: u32::try_from(index).unwrap_or(u32::MAX),
                outcome: Some(if passed.pass { 1.0 } else { 0.0 }),
                status: if passed.timeout {
                    RowStatus::Error
                } else {
                    RowStatus::Ok
                },
                group: None,
                cost_usd: None,
                seconds: None,
                source: format!("{harness} {task} sample {index}"),
            });
        }
    }
    // The writer sorts keys by when each task finished; the task ids' order reads better.
    rows.sort_by(|a, b| natural_order(&a.task, &b.task).then(a.run.cmp(&b.run)));
    let mut notes = vec![system_note];
    let suite = match (shape, tests) {
        (Shape::BigCodeBench, _) => "the sample's status is pass".to_string(),
        (_, EvalPlusTests::Plus) if tally.base_only == tally.samples => {
            "base tests only: the file is a --base-only run (plus_status null), so it says nothing of the plus tests".to_string()
        }
        (_, EvalPlusTests::Plus) => "base and plus tests both pass (EvalPlus's headline, HumanEval+/MBPP+; --evalplus-tests base for the base tests)".to_string(),
        (_, EvalPlusTests::Base) => "base tests (--evalplus-tests base)".to_string(),
    };
    notes.push(format!("{file}: outcome 1 when {suite}"));
    if tally.timeouts > 0 {
        notes.push(format!(
            "{file}: {} out (the harness killed the test process): outcome 0, status error",
            counted(tally.timeouts, "sample timed", "samples timed")
        ));
    }
    Ok(Imported::entries(rows, notes))
}

/// One sample as the fields its outcome is read from.
struct Sample {
    base: Value,
    plus: Value,
}

/// The samples of one task, whatever the shape.
fn task_samples(
    value: &Value,
    shape: Shape,
    task: &str,
    file: &str,
) -> Result<Vec<Sample>, LoadError> {
    let bad = |what: &str| LoadError::new(file, format!("task {task}: {what}"));
    match shape {
        Shape::EvalPlus | Shape::BigCodeBench => {
            let samples = value
                .as_array()
                .ok_or_else(|| bad("the samples must be a list"))?;
            let (base_key, plus_key) = if shape == Shape::BigCodeBench {
                ("status", "")
            } else {
                ("base_status", "plus_status")
            };
            samples
                .iter()
                .enumerate()
                .map(|(index, sample)| {
                    let field = |key: &str| sample.get(key).cloned();
                    Ok(Sample {
                        base: field(base_key)
                            .ok_or_else(|| bad(&format!("sample {index} has no '{base_key}'")))?,
                        plus: field(plus_key).unwrap_or(Value::Null),
                    })
                })
                .collect()
        }
        Shape::EvalPlusLegacy => {
            let first_status = |key: &str| -> Result<Vec<Value>, LoadError> {
                match value.get(key) {
                    None | Some(Value::Null) => Ok(Vec::new()),
                    Some(Value::Array(entries)) => entries
                        .iter()
                        .map(|entry| {
                            entry.get(0).cloned().ok_or_else(|| {
                                bad(&format!("'{key}' entries must be [status, details]"))
                            })
                        })
                        .collect(),
                    Some(_) => Err(bad(&format!("'{key}' must be a list"))),
                }
            };
            let base = first_status("base")?;
            let plus = first_status("plus")?;
            if !plus.is_empty() && plus.len() != base.len() {
                return Err(bad(&format!(
                    "{} base results but {} plus results",
                    base.len(),
                    plus.len()
                )));
            }
            Ok(base
                .into_iter()
                .enumerate()
                .map(|(index, base)| Sample {
                    base,
                    plus: plus.get(index).cloned().unwrap_or(Value::Null),
                })
                .collect())
        }
    }
}

/// Whether a sample passed, and whether it timed out.
struct Verdict {
    pass: bool,
    timeout: bool,
}

/// One status as (passed, timed out); the writers' words of every version.
fn status(value: &Value, key: &str) -> Result<(bool, bool), String> {
    match value.as_str() {
        Some("pass" | "success") => Ok((true, false)),
        Some("fail" | "failed") => Ok((false, false)),
        Some("timeout" | "timed out") => Ok((false, true)),
        _ => Err(format!(
            "{key} {value} is not pass, fail or timeout (nor success, failed, timed out)"
        )),
    }
}

fn sample_outcome(
    sample: &Sample,
    shape: Shape,
    tests: EvalPlusTests,
    tally: &mut Tally,
) -> Result<Verdict, String> {
    let (base_pass, base_timeout) = status(&sample.base, "status")?;
    let verdict = if shape == Shape::BigCodeBench || tests == EvalPlusTests::Base {
        Verdict {
            pass: base_pass,
            timeout: base_timeout,
        }
    } else if sample.plus.is_null() {
        tally.base_only += 1;
        Verdict {
            pass: base_pass,
            timeout: base_timeout,
        }
    } else {
        let (plus_pass, plus_timeout) = status(&sample.plus, "plus status")?;
        Verdict {
            pass: base_pass && plus_pass,
            timeout: base_timeout || plus_timeout,
        }
    };
    tally.timeouts += usize::from(verdict.timeout);
    Ok(verdict)
}

/// Task ids by their text with runs of digits compared as numbers (`HumanEval/2` before
/// `HumanEval/10`).
fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    let split = |text: &str| -> (String, Option<u64>) {
        let digits = text.len() - text.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (head, tail) = text.split_at(text.len() - digits);
        (head.to_string(), tail.parse().ok())
    };
    let (head_a, number_a) = split(a);
    let (head_b, number_b) = split(b);
    head_a
        .cmp(&head_b)
        .then(number_a.cmp(&number_b))
        .then(a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_sort_by_their_numbers() {
        let mut ids = vec!["HumanEval/10", "HumanEval/2", "Mbpp/2", "HumanEval/1"];
        ids.sort_by(|a, b| natural_order(a, b));
        assert_eq!(
            ids,
            ["HumanEval/1", "HumanEval/2", "HumanEval/10", "Mbpp/2"]
        );
    }

    #[test]
    fn systems_come_from_the_path_as_each_writer_names_it() {
        let system = |path: &str, shape| system_from_path(Path::new(path), shape, "f").0;
        assert_eq!(
            system(
                "r/humaneval/meta-llama--Llama-3-8B_vllm_temp_0.0_eval_results.json",
                Shape::EvalPlus
            ),
            "meta-llama/Llama-3-8B_vllm_temp_0.0"
        );
        assert_eq!(
            system("r/x_temp_0.2.eval_results.json", Shape::EvalPlus),
            "x_temp_0.2"
        );
        assert_eq!(
            system("runs/70B/samples_eval_results.json", Shape::EvalPlus),
            "70B"
        );
        assert_eq!(
            system("runs/phi/eval_results.json", Shape::EvalPlusLegacy),
            "phi"
        );
        assert_eq!(
            system(
                "h/Qwen2.5-Coder-7B-Instruct--main--bigcodebench-hard-instruct--vllm-0-1-sanitized_calibrated_eval_results.json",
                Shape::BigCodeBench
            ),
            "Qwen2.5-Coder-7B-Instruct--main"
        );
    }

    #[test]
    fn unknown_statuses_are_refused() {
        assert!(status(&Value::from("pass"), "s").is_ok_and(|s| s == (true, false)));
        assert!(status(&Value::from("timed out"), "s").is_ok_and(|s| s == (false, true)));
        assert!(status(&Value::from("passed"), "s").is_err());
        assert!(status(&Value::Null, "s").is_err());
    }
}
