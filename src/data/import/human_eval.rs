//! HumanEval's results: openai/human-eval's `evaluate_functional_correctness SAMPLES` runs every
//! sample of `SAMPLES` (`{task_id, completion}` lines, n per problem) against its problem's tests
//! and writes `<SAMPLES>_results.jsonl`: the same lines in the same order with `result`
//! (`passed`, `failed: <exception>` or `timed out`) and `passed`. Other code benchmarks reuse the
//! harness and its file (HumanEval-X, MultiPL-E's HumanEval ports). Read as its pass@k reads them:
//!
//! - system: the file never names its model: the samples file's name (`<model>.jsonl_results.jsonl`
//!   gives `<model>`), or its folder for `samples.jsonl_results.jsonl` (the README's name), noted;
//!   `--system-name` sets another.
//! - task: `task_id`; run: the sample's place among its problem's samples in the file (the
//!   harness gives the k-th sample of a problem in the file the k-th result), so pass@1 is the mean
//!   of a problem's runs.
//! - outcome: `passed`; a sample that `timed out` keeps its 0 with status error (the harness
//!   counts it failed); the failure's message is in `source`.
//! - No group, cost or seconds.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, for_each_line, value_or_missing};
use crate::data::error::LoadError;

/// The harness's suffix on the samples file's name.
const RESULTS_SUFFIX: &str = "_results.jsonl";

/// The samples file name human-eval's README uses, which names no model.
const GENERIC_STEM: &str = "samples";

/// The longest failure message kept in a row's source.
const MESSAGE_CHARS: usize = 120;

/// Whether a JSON Lines line is a graded HumanEval sample.
pub fn is_result_line(object: &serde_json::Map<String, Value>) -> bool {
    ["task_id", "completion", "result", "passed"]
        .iter()
        .all(|key| object.contains_key(*key))
}

/// Whether a file is the samples file a results file beside it was graded from
/// (`samples.jsonl` beside `samples.jsonl_results.jsonl`): read through its results, not alone.
pub fn is_samples_beside(path: &Path) -> bool {
    path.file_name().is_some_and(|name| {
        let mut results = name.to_os_string();
        results.push(RESULTS_SUFFIX);
        path.with_file_name(results).is_file()
    })
}

/// The system of a results file, from its path, and the note saying so.
fn system_from_path(path: &Path, file: &str) -> (String, String) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let samples = name.strip_suffix(RESULTS_SUFFIX).unwrap_or(&name);
    let stem = [".jsonl.gz", ".jsonl", ".json"]
        .iter()
        .find_map(|ext| samples.strip_suffix(ext))
        .unwrap_or(samples);
    let (system, from) = if stem.is_empty() || stem == GENERIC_STEM {
        (
            super::folder_name(path).unwrap_or_else(|| "unnamed".to_string()),
            "its folder",
        )
    } else {
        (stem.to_string(), "the samples file")
    };
    (
        system.clone(),
        format!(
            "{file}: HumanEval results do not name their model; the system is named after {from}, '{system}' (--system-name sets another)"
        ),
    )
}

/// The rows of one results file.
pub fn results(bytes: &[u8], path: &Path, file: &str) -> Result<(Imported, usize), LoadError> {
    let (system, name_note) = system_from_path(path, file);
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let mut samples_of: HashMap<String, u32> = HashMap::new();
    let mut timed_out = 0;
    let non_finite = for_each_line(bytes, file, false, |number, line| {
        let task = match line.get("task_id") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            other => return Err(format!("task_id is {}", value_or_missing(other))),
        };
        let passed = match line.get("passed") {
            Some(Value::Bool(passed)) => *passed,
            other => {
                return Err(format!(
                    "passed is {}, not true or false",
                    value_or_missing(other)
                ));
            }
        };
        let result = match line.get("result") {
            Some(Value::String(result)) => result.as_str(),
            other => return Err(format!("result is {}", value_or_missing(other))),
        };
        let timeout = result == "timed out";
        let shown: String = result.chars().take(MESSAGE_CHARS).collect();
        // The harness sets `passed` from `result` ("passed"); the two disagreeing is an edited or
        // damaged line, read as `passed` without a word before.
        let failed = timeout || result.starts_with("failed");
        if (passed && failed) || (!passed && result == "passed") {
            return Err(format!(
                "passed is {passed} but result is \"{shown}\": the harness sets one from the other"
            ));
        }
        timed_out += usize::from(timeout);
        let this_run = super::next_run(&mut samples_of, task.clone());
        rows.push(CanonicalRow {
            system: system.clone(),
            task,
            run: this_run,
            outcome: Some(f64::from(u8::from(passed))),
            status: if timeout {
                RowStatus::Error
            } else {
                RowStatus::Ok
            },
            group: None,
            cost_usd: None,
            seconds: None,
            source: format!("human-eval line {number}: {shown}"),
        });
        lines.push(number);
        Ok(())
    })?;
    let most = samples_of.values().copied().max().unwrap_or(0);
    let least = samples_of.values().copied().min().unwrap_or(0);
    let mut notes = vec![
        name_note,
        format!(
            "{file}: HumanEval results of {} with {} each (a problem's samples are its runs: pass@1 is their mean)",
            counted(samples_of.len(), "problem", "problems"),
            if most == least {
                counted(most as usize, "sample", "samples")
            } else {
                format!("{least} to {most} samples")
            }
        ),
    ];
    if timed_out > 0 {
        notes.push(format!(
            "{file}: {} timed out: 0 with status error, as the harness counts it failed",
            counted(timed_out, "sample", "samples")
        ));
    }
    Ok((Imported::by_line(rows, notes, lines), non_finite))
}
