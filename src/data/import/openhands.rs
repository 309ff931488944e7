//! OpenHands evaluation output (`output.jsonl`, V0 and V1), as described in `shared/formats/NOTES.md`
//! §7. The outcome is the graded `test_result.report.resolved`, the top-level `report` that
//! OpenHands' `update_output_with_eval.py` merges into `output.jsonl`, or (V1, which never merges)
//! the SWE-bench harness report `swebench-eval` moves beside it as `output.report.json`; inference
//! output without any grade has no outcome and is refused, not read as failures.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::time::epoch_seconds;
use super::{CanonicalRow, Imported, RowStatus, text_field};
use crate::data::error::LoadError;

/// The repository of a SWE-bench style id `<owner>__<repo>-<number>`: cut at the last `-`, `__` → `/`
/// (NOTES §1c); None for ids of another shape.
pub fn swebench_repo(id: &str) -> Option<String> {
    let (head, number) = id.rsplit_once('-')?;
    let (owner, repo) = head.split_once("__")?;
    (!owner.is_empty() && !repo.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
        .then(|| format!("{owner}/{repo}"))
}

/// `metadata.agent_class / model` (V0 `llm_config.model`, V1 `llm.model`).
fn system(metadata: Option<&Value>) -> Option<String> {
    let metadata = metadata?;
    let agent = metadata.get("agent_class").and_then(Value::as_str);
    let model = ["llm_config", "llm"]
        .iter()
        .find_map(|key| metadata.get(*key)?.get("model")?.as_str());
    match (agent, model) {
        (Some(agent), Some(model)) => Some(format!("{agent} / {model}")),
        (Some(name), None) | (None, Some(name)) => Some(name.to_string()),
        (None, None) => None,
    }
}

/// Wall time from the first to the last event timestamp (OpenHands records no duration).
fn seconds(line: &Value) -> Option<f64> {
    let times: Vec<f64> = line
        .get("history")?
        .as_array()?
        .iter()
        .filter_map(|event| event.get("timestamp")?.as_str().and_then(epoch_seconds))
        .collect();
    let first = times.iter().copied().reduce(f64::min)?;
    let last = times.iter().copied().reduce(f64::max)?;
    (times.len() >= 2).then_some(last - first)
}

/// An instance's grade from a SWE-bench run report: outcome and status.
type Grade = (f64, RowStatus);

/// A report beside the output: its file name and each listed instance's grade.
type GradesBeside = (String, HashMap<String, Grade>);

/// The SWE-bench harness report OpenHands V1's `swebench-eval` moves beside the output as
/// `<stem>.report.json` (V1 never merges the grades into `output.jsonl`): its file name and each
/// listed instance's grade (resolved 1; unresolved and empty patches 0; evaluation errors 0 with
/// status error). None when there is no such report.
fn report_beside(file: &str) -> Result<Option<GradesBeside>, LoadError> {
    let path = Path::new(file);
    let Some(stem) = path.file_stem() else {
        return Ok(None);
    };
    let name = format!("{}.report.json", stem.to_string_lossy());
    let report_path = path.with_file_name(&name);
    let Ok(bytes) = std::fs::read(&report_path) else {
        return Ok(None);
    };
    let shown = report_path.display().to_string();
    let report: Value = serde_json::from_slice(&bytes)
        .map_err(|e| LoadError::new(&shown, format!("not JSON: {e}")))?;
    let mut grades = HashMap::new();
    for (key, grade) in [
        ("resolved_ids", (1.0, RowStatus::Ok)),
        ("error_ids", (0.0, RowStatus::Error)),
        ("unresolved_ids", (0.0, RowStatus::Ok)),
        ("empty_patch_ids", (0.0, RowStatus::Ok)),
    ] {
        let ids = match report.get(key) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(ids)) => ids,
            Some(other) => {
                return Err(LoadError::new(
                    &shown,
                    format!("'{key}' must be a list of instance ids, found {other}"),
                ));
            }
        };
        for id in ids {
            let id = id.as_str().ok_or_else(|| {
                LoadError::new(
                    &shown,
                    format!("'{key}' must list instance ids, found {id}"),
                )
            })?;
            // The first list an id is in decides (as the run report importer reads it).
            grades.entry(id.to_string()).or_insert(grade);
        }
    }
    Ok(Some((name, grades)))
}

pub fn output(lines: &[(u64, Value)], file: &str) -> Result<Imported, LoadError> {
    let graded_by_report = lines.iter().all(|(_, line)| {
        line.get("test_result")
            .and_then(|t| t.get("report"))
            .is_none()
            && line.get("report").is_none()
    });
    let beside = if graded_by_report {
        report_beside(file)?
    } else {
        None
    };
    if let Some((name, _)) = &beside {
        // The report grades one line per instance (output.jsonl keeps the selected attempt).
        let mut seen = HashSet::new();
        if let Some((line_number, line)) = lines.iter().find(|(_, line)| {
            line.get("instance_id")
                .and_then(Value::as_str)
                .is_some_and(|id| !seen.insert(id.to_string()))
        }) {
            return Err(LoadError::new(
                file,
                format!(
                    "line {line_number}: instance '{}' has several lines (attempts), but {name} grades one per instance; import the output that holds one line per instance",
                    line.get("instance_id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                ),
            ));
        }
    }
    let mut rows = Vec::with_capacity(lines.len());
    let mut graded = 0;
    let mut merged = 0;
    let mut zero_cost = 0;
    let mut errored_unreported = 0;
    for (index, (line_number, line)) in lines.iter().enumerate() {
        let at = |what: String| LoadError::new(file, format!("line {line_number}: {what}"));
        let task = text_field(line, "instance_id", file, index)
            .map_err(|_| at("no instance_id".to_string()))?;
        let system = system(line.get("metadata"))
            .ok_or_else(|| at("no metadata.agent_class or model to name the system".to_string()))?;
        // eval_infer grades into test_result.report (output.swebench_eval.jsonl, V1); OpenHands'
        // update_output_with_eval.py merges the grades back into output.jsonl as a top-level
        // `report`.
        let nested = line.get("test_result").and_then(|t| t.get("report"));
        let report = nested.or_else(|| line.get("report").filter(|r| r.is_object()));
        let report_key = if nested.is_some() {
            "test_result.report"
        } else {
            "report"
        };
        let error = line
            .get("error")
            .and_then(Value::as_str)
            .filter(|e| !e.is_empty());
        let flag = |key: &str| report.and_then(|r| r.get(key)).and_then(Value::as_bool);
        let patched = line
            .get("test_result")
            .and_then(|t| t.get("git_patch"))
            .and_then(Value::as_str)
            .is_some_and(|patch| !patch.trim().is_empty());
        let from_report = beside.as_ref().map(|(_, grades)| grades.get(task.as_str()));
        let (outcome, status) = match (report, flag("resolved")) {
            (None, _) if from_report.is_some() => match from_report.flatten() {
                Some(&(outcome, status)) => {
                    graded += 1;
                    let status = if error.is_some() {
                        RowStatus::Error
                    } else {
                        status
                    };
                    (Some(outcome), status)
                }
                None if error.is_some() && !patched => {
                    errored_unreported += 1;
                    (Some(0.0), RowStatus::Error)
                }
                None => (None, RowStatus::NotAttempted),
            },
            (Some(_), Some(resolved)) => {
                graded += 1;
                if nested.is_none() {
                    merged += 1;
                }
                let errored = error.is_some() || flag("error_eval") == Some(true);
                (
                    Some(f64::from(u8::from(resolved))),
                    if errored {
                        RowStatus::Error
                    } else {
                        RowStatus::Ok
                    },
                )
            }
            (Some(_), None) => {
                return Err(at(format!("{report_key} has no boolean 'resolved'")));
            }
            // A run that ended in an error with no patch (a timeout, a crash: `test_result`
            // empty) has no report; it failed, as SWE-bench grades an instance without a patch,
            // so it reads as 0 with status error (NOTES §7: `error` non-null → error), not as never
            // attempted, which would leave it out of the mean. One that left a patch (it hit its
            // iteration limit) waits for its grade like any other.
            (None, _) if error.is_some() && !patched => {
                errored_unreported += 1;
                (Some(0.0), RowStatus::Error)
            }
            (None, _) => (None, RowStatus::NotAttempted),
        };
        // Cost 0.0 with no per-call costs means "not priced" (a proxy), not free.
        let costs_listed = line
            .get("metrics")
            .and_then(|m| m.get("costs"))
            .and_then(Value::as_array)
            .is_some_and(|c| !c.is_empty());
        let cost = line
            .get("metrics")
            .and_then(|m| super::json::amount(m, "accumulated_cost"))
            .filter(|&c| c != 0.0 || costs_listed);
        if cost.is_none() && line.get("metrics").is_some_and(|m| !m.is_null()) {
            zero_cost += 1;
        }
        let run = match line.get("attempt").and_then(Value::as_u64) {
            Some(attempt) if attempt >= 1 => attempt as u32 - 1,
            _ => 0,
        };
        rows.push(CanonicalRow {
            system,
            group: swebench_repo(&task),
            task,
            run,
            outcome,
            status,
            cost_usd: cost,
            seconds: seconds(line),
            source: format!(
                "openhands line {line_number}{}{}",
                if outcome.is_none() {
                    ", not graded"
                } else {
                    ""
                },
                error.map_or(String::new(), |e| format!(
                    ", error: {}",
                    e.chars().take(80).collect::<String>()
                ))
            ),
        });
    }
    // Inference output only (no line graded): imported with every instance not attempted until it
    // is graded (expected.json's OpenHands file: 3 rows, none scored), not refused; a run's
    // output.jsonl is written so while it runs, before eval_infer grades it. With its graded copy
    // beside it (eval_infer writes <stem>.swebench_eval.jsonl) the grades are there: refused,
    // naming the copy, rather than read as nothing scored.
    let ungraded_note = if graded == 0 {
        let path = Path::new(file);
        if let Some(name) = path
            .file_stem()
            .map(|stem| format!("{}.swebench_eval.jsonl", stem.to_string_lossy()))
            .filter(|name| path.with_file_name(name).is_file())
        {
            return Err(LoadError::new(
                file,
                format!(
                    "no line has a graded report (test_result.report, or the top-level report OpenHands' update_output_with_eval.py merges in), and its graded copy {name} lies beside it: import that file, or merge it into this one with OpenHands' update_output_with_eval.py"
                ),
            ));
        }
        Some(format!(
            "{file}: no line has a graded report (test_result.report, or the top-level report OpenHands' update_output_with_eval.py merges in): this is inference output only, so its {} instances are not attempted until graded{}; grade it (for SWE-bench, OpenHands' eval_infer) and import the graded file",
            rows.len() - errored_unreported,
            if errored_unreported > 0 {
                format!(" (but the {errored_unreported} that ended in an error with no patch)")
            } else {
                String::new()
            }
        ))
    } else {
        None
    };
    let mut notes = Vec::new();
    if let Some((name, _)) = &beside {
        notes.push(format!(
            "{file}: graded by {name} beside it (the SWE-bench harness report OpenHands' swebench-eval moves there)"
        ));
    }
    if merged > 0 {
        notes.push(format!(
            "{file}: {merged} graded reports read from the lines' top-level 'report', as OpenHands' update_output_with_eval.py merges them in"
        ));
    }
    if errored_unreported > 0 {
        notes.push(format!(
            "{file}: {errored_unreported} of {} instances ended in an error with neither a patch nor a graded report (a timeout or crash): read as 0 with status error, as SWE-bench grades an instance without a patch (replay's --exclude-errors leaves them out)",
            rows.len()
        ));
    }
    if let Some(note) = ungraded_note {
        notes.push(note);
    } else if graded + errored_unreported < rows.len() {
        notes.push(format!(
            "{file}: {} of {} instances have no graded report and are not attempted",
            rows.len() - graded - errored_unreported,
            rows.len()
        ));
    }
    if zero_cost > 0 {
        notes.push(format!(
            "{file}: {zero_cost} instances report accumulated_cost 0 without per-call costs (not priced); their cost is unknown"
        ));
    }
    Ok(Imported {
        rows,
        notes,
        lines: Some(lines.iter().map(|(n, _)| *n).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repositories_from_swebench_ids() {
        assert_eq!(
            swebench_repo("django__django-11099").as_deref(),
            Some("django/django")
        );
        assert_eq!(
            swebench_repo("scikit-learn__scikit-learn-10297").as_deref(),
            Some("scikit-learn/scikit-learn")
        );
        assert_eq!(
            swebench_repo("ponylang__ponyc-4595").as_deref(),
            Some("ponylang/ponyc")
        );
        assert_eq!(swebench_repo("org/repo:pr-123"), None);
        assert_eq!(swebench_repo("plain-task"), None);
    }
}
