//! TheAgentCompany's evaluation results: one `eval_<task>.json` per task, written by the task's
//! evaluator (`checkpoints`, each `{total, result}`, and `final_score` `{total, result}`; newer runs
//! add `task_id`, `error` and `timestamp`), kept on the leaderboard as
//! `evaluation/<version>/<YYYYMMDD>_<submission>/results/eval_<task>.json` (TheAgentCompany/
//! experiments). Read as follows:
//!
//! - system: the submission folder (the one holding `results/`, less its `YYYYMMDD_` date), else the
//!   file's own folder; the files name no agent or model (`--system-name` sets another).
//! - task: `task_id`, else the file name less `eval_`; group: the task's role prefix (`admin`, `ds`,
//!   `finance`, `hr`, `pm`, `sde`, …), the part before its first `-`.
//! - outcome: full completion, `final_score.result` = `final_score.total` (the leaderboard's
//!   "resolved"); `--metric partial` gives the paper's partial completion score,
//!   0.5·result/total + 0.5·full. `final_score` is the evaluator's own total (some grant the
//!   remaining points when the final checkpoint passes), so the checkpoints are not re-added.
//! - status: an `error` that is not null is status error, with its score.

use std::path::Path;

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus};
use crate::data::error::LoadError;

/// The outcome `--metric` picks: full completion (the default) or the partial completion score.
const METRICS: [&str; 2] = ["resolved", "partial"];

/// Whether a JSON object is a TheAgentCompany evaluation result.
pub fn is_result(object: &serde_json::Map<String, Value>) -> bool {
    object.contains_key("checkpoints")
        && object
            .get("final_score")
            .and_then(Value::as_object)
            .is_some_and(|score| score.contains_key("total") && score.contains_key("result"))
}

/// The submission a result file belongs to: the folder holding its `results/` folder, less the
/// leaderboard's `YYYYMMDD_` date, else the file's own folder.
fn system_of(path: &Path) -> String {
    let folder = path
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let submission = if name(&folder) == "results" {
        folder.parent().map(name).unwrap_or_default()
    } else {
        name(&folder)
    };
    super::swebench::without_date(&submission).to_string()
}

/// A count of `final_score` (a number or a boolean, as checkpoints write them).
fn count(score: &Value, key: &str, file: &str) -> Result<f64, LoadError> {
    match score.get(key) {
        Some(Value::Number(n)) => n
            .as_f64()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| LoadError::new(file, format!("final_score.{key} is {n}"))),
        Some(Value::Bool(b)) => Ok(f64::from(u8::from(*b))),
        other => Err(LoadError::new(
            file,
            format!(
                "final_score.{key} is {}, not a count",
                super::value_or_missing(other)
            ),
        )),
    }
}

pub fn result(
    value: &Value,
    path: &Path,
    file: &str,
    metric: Option<&str>,
) -> Result<Imported, LoadError> {
    let metric = metric.unwrap_or(METRICS[0]);
    if !METRICS.contains(&metric) {
        return Err(LoadError::new(
            file,
            format!(
                "--metric {metric}: TheAgentCompany's outcomes are {}",
                METRICS.join(" or ")
            ),
        ));
    }
    let score = value
        .get("final_score")
        .ok_or_else(|| LoadError::new(file, "a TheAgentCompany result needs its final_score"))?;
    let (total, result) = (count(score, "total", file)?, count(score, "result", file)?);
    if total <= 0.0 || result > total {
        return Err(LoadError::new(
            file,
            format!("final_score {result} of {total}: not a score out of a positive total"),
        ));
    }
    let full = if result >= total { 1.0 } else { 0.0 };
    let outcome = if metric == "partial" {
        0.5 * result / total + 0.5 * full
    } else {
        full
    };
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let task = match value.get("task_id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        _ => stem.strip_prefix("eval_").unwrap_or(&stem).to_string(),
    };
    let error = value.get("error").filter(|e| !e.is_null());
    let group = task.split('-').next().unwrap_or(&task).to_string();
    let system = system_of(path);
    let mut source = format!("theagentcompany final_score {result} of {total}");
    if let Some(error) = error {
        source.push_str(&format!(", error: {error}"));
    }
    Ok(Imported::entries(
        vec![CanonicalRow {
            system,
            task,
            run: 0,
            outcome: Some(outcome),
            status: if error.is_some() {
                RowStatus::Error
            } else {
                RowStatus::Ok
            },
            group: Some(group),
            cost_usd: None,
            seconds: None,
            source,
        }],
        Vec::new(),
    ))
}

/// A folder's `eval_<task>.json` files, in path order.
fn eval_files(folder: &Path) -> Vec<std::path::PathBuf> {
    super::files_named(folder, |name| {
        name.starts_with("eval_") && name.ends_with(".json")
    })
}

/// Whether a folder holds TheAgentCompany's results (its first `eval_<task>.json` is one): read as
/// one result, so a submission's 175 files give one system and one note.
pub fn is_results_folder(folder: &Path) -> bool {
    super::first_file_is(&eval_files(folder), is_result)
}

/// Every result file of a results folder whose change `watch` must see.
pub fn tracked_files(folder: &Path) -> Vec<std::path::PathBuf> {
    eval_files(folder)
}

/// The rows of a results folder (every `eval_<task>.json` in it), the bytes read (for the content
/// hash) and the name messages use.
pub fn results_folder(
    folder: &Path,
    metric: Option<&str>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = folder.display().to_string();
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    for path in eval_files(folder) {
        let file = path.display().to_string();
        let (value, text) = super::read_member(
            &path,
            is_result,
            "a TheAgentCompany result (checkpoints and final_score {total, result})",
        )?;
        bytes.extend_from_slice(&text);
        rows.extend(result(&value, &path, &file, metric)?.rows);
    }
    let system = rows.first().map(|r| r.system.clone()).unwrap_or_default();
    let full = rows.iter().filter(|r| r.outcome == Some(1.0)).count();
    let notes = vec![format!(
        "{shown}: TheAgentCompany results, {} tasks of '{system}' (named after the submission folder; the files name no agent or model); the outcome is {} ({full} of {} fully completed)",
        rows.len(),
        if metric == Some("partial") {
            "the partial completion score 0.5·result/total + 0.5·full"
        } else {
            "full completion, final_score result = total"
        },
        rows.len()
    )];
    Ok((Imported::entries(rows, notes), bytes, shown))
}
