//! lm-evaluation-harness `--log_samples` output (`shared/formats/NOTES.md` §2): one
//! `samples_<task>_<date>.jsonl` per task, with `results_<date>.json` beside it. A line holds one doc
//! under one filter; one filter is read (`--filter`, default `none` when present, else the first
//! seen), and its `acc` (else `exact_match`, else the line's first listed metric) is the outcome.

use std::path::Path;

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus};
use crate::data::error::LoadError;

/// The aggregate results file of a samples file's invocation, parsed: `results_<date>.json`, or,
/// when lm-eval's `--output_path` ended in `.json`, `<stem>_<date>.json` (the samples files then sit in
/// that file's folder), found by its date suffix; a note names the second kind.
fn aggregate_file(folder: &Path, date: &str, file: &str, notes: &mut Vec<String>) -> Option<Value> {
    let parse = |path: &Path| -> Option<Value> {
        let bytes = std::fs::read(path).ok()?;
        super::json::parse_lenient(&bytes, file)
            .ok()
            .map(|(value, _)| value)
            .filter(|v| v.get("results").is_some() || v.get("model_name").is_some())
    };
    if let Some(value) = parse(&folder.join(format!("results_{date}.json"))) {
        return Some(value);
    }
    let suffix = format!("_{date}.json");
    let mut candidates: Vec<std::path::PathBuf> = std::fs::read_dir(folder)
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.ends_with(&suffix) && !n.starts_with("samples_") && n.len() > suffix.len()
            })
        })
        .collect();
    // Sorted, so the same folder always gives the same file.
    candidates.sort();
    let (path, value) = candidates
        .iter()
        .find_map(|p| parse(p).map(|value| (p, value)))?;
    notes.push(format!(
        "{file}: the aggregate results are {} (lm-eval's --output_path ended in .json)",
        path.file_name()?.to_string_lossy()
    ));
    Some(value)
}

/// (task, date) of a samples file name `samples_<task>_<YYYY-MM-DDTHH-MM-SS[.ffffff]>.jsonl`.
fn task_and_date(name: &str) -> Option<(&str, &str)> {
    let stem = name.strip_prefix("samples_")?.strip_suffix(".jsonl")?;
    let (task, date) = stem.rsplit_once('_')?;
    let looks_like_date = date.len() >= 19
        && date.as_bytes()[4] == b'-'
        && date.as_bytes()[10] == b'T'
        && date[..4].chars().all(|c| c.is_ascii_digit());
    (looks_like_date && !task.is_empty()).then_some((task, date))
}

/// The metric read as the outcome of a line: `acc`, else `exact_match`, else the first listed one.
fn metric_of(line: &Value) -> Option<String> {
    ["acc", "exact_match"]
        .iter()
        .find(|m| line.get(**m).is_some())
        .map(|m| m.to_string())
        .or_else(|| {
            line.get("metrics")?
                .as_array()?
                .first()?
                .as_str()
                .map(str::to_string)
        })
}

/// What one sample line contributes, kept instead of the line's whole JSON (docs and prompts are large).
struct Line {
    number: u64,
    doc: String,
    filter: String,
    /// The metric and its score, or why the line has none.
    score: Result<(String, f64), String>,
}

/// Reads sample lines one at a time (see [`super::for_each_line`]); [`Reader::finish`] builds the rows.
#[derive(Default)]
pub struct Reader {
    lines: Vec<Line>,
}

impl Reader {
    pub fn line(&mut self, number: u64, line: &Value) -> Result<(), String> {
        let doc = match line.get("doc_id") {
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.clone(),
            _ => return Err("no doc_id".to_string()),
        };
        let filter = line
            .get("filter")
            .and_then(Value::as_str)
            .unwrap_or("none")
            .to_string();
        let score = match metric_of(line) {
            None => Err("no metric on the line".to_string()),
            Some(metric) => match line.get(&metric) {
                Some(Value::Bool(b)) => Ok((metric, f64::from(u8::from(*b)))),
                Some(Value::Number(n)) => Ok((metric, n.as_f64().unwrap_or(f64::NAN))),
                Some(Value::Null) | None => {
                    Err(format!("metric '{metric}' has no value (NaN or missing)"))
                }
                Some(other) => Err(format!(
                    "metric '{metric}' is {other}, not a score (corpus-level metrics have no per-doc score)"
                )),
            },
        };
        self.lines.push(Line {
            number,
            doc,
            filter,
            score,
        });
        Ok(())
    }

    pub fn finish(
        self,
        path: &Path,
        file: &str,
        filter: Option<&str>,
    ) -> Result<Imported, LoadError> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (task, date) = task_and_date(&name).ok_or_else(|| {
            LoadError::new(
                file,
                "an lm-eval samples file is named samples_<task>_<date>.jsonl (the task comes from the name)",
            )
        })?;
        let folder = path.parent().unwrap_or(Path::new("."));
        let mut notes = Vec::new();
        let results = aggregate_file(folder, date, file, &mut notes);
        let system = match results
            .as_ref()
            .and_then(|r| r.get("model_name").and_then(Value::as_str))
        {
            Some(model) => model.to_string(),
            None => {
                let name = folder
                    .file_name()
                    .map_or("lm-eval".to_string(), |n| n.to_string_lossy().into_owned());
                notes.push(format!(
                    "{file}: no results_{date}.json (nor <stem>_{date}.json) with a model_name beside it; the system is named after the folder, '{name}'"
                ));
                name
            }
        };
        // The group: the parent group listing the task, else the task itself.
        let group = results
            .as_ref()
            .and_then(|r| r.get("group_subtasks")?.as_object())
            .and_then(|groups| {
                groups.iter().find_map(|(group, tasks)| {
                    tasks
                        .as_array()?
                        .iter()
                        .any(|t| t.as_str() == Some(task))
                        .then(|| group.clone())
                })
            })
            .unwrap_or_else(|| task.to_string());
        let mut filters: Vec<&str> = Vec::new();
        for line in &self.lines {
            if !filters.contains(&line.filter.as_str()) {
                filters.push(&line.filter);
            }
        }
        let chosen = match filter {
            Some(f) if filters.contains(&f) => f.to_string(),
            Some(f) => {
                return Err(LoadError::new(
                    file,
                    format!(
                        "--filter '{f}' is not in the file; its filters: {}",
                        filters.join(", ")
                    ),
                ));
            }
            None if filters.contains(&"none") => "none".to_string(),
            None => filters
                .first()
                .map_or("none".to_string(), |f| f.to_string()),
        };
        if filters.len() > 1 {
            notes.push(format!(
                "{file}: filter '{chosen}' read of {} ({}); --filter chooses",
                filters.len(),
                filters.join(", ")
            ));
        }
        let mut rows = Vec::new();
        let mut numbers = Vec::new();
        for line in self.lines.iter().filter(|l| l.filter == chosen) {
            let (metric, outcome) = line
                .score
                .clone()
                .map_err(|what| LoadError::new(file, format!("line {}: {what}", line.number)))?;
            numbers.push(line.number);
            rows.push(CanonicalRow {
                system: system.clone(),
                task: format!("{task}/{}", line.doc),
                run: 0,
                outcome: Some(outcome),
                status: RowStatus::Ok,
                group: Some(group.clone()),
                cost_usd: None,
                seconds: None,
                source: format!("lm-eval {task} doc {}, filter {chosen}, {metric}", line.doc),
            });
        }
        if let Some((original, effective)) = results
            .as_ref()
            .and_then(|r| r.get("n-samples")?.get(task))
            .and_then(|n| Some((n.get("original")?.as_u64()?, n.get("effective")?.as_u64()?)))
            .filter(|(original, effective)| effective < original)
        {
            notes.push(format!(
                "{file}: {task} was run with --limit ({effective} of {original} docs); the others are not in the records"
            ));
        }
        Ok(Imported {
            rows,
            notes,
            lines: Some(numbers),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_and_dates_from_file_names() {
        assert_eq!(
            task_and_date("samples_mmlu_pro_plus_chemistry_2025-10-14T14-44-39.372006.jsonl"),
            Some(("mmlu_pro_plus_chemistry", "2025-10-14T14-44-39.372006"))
        );
        assert_eq!(
            task_and_date("samples_gsm8k_2025-09-09T13-31-53.431753.jsonl"),
            Some(("gsm8k", "2025-09-09T13-31-53.431753"))
        );
        assert_eq!(task_and_date("output.jsonl"), None);
        assert_eq!(task_and_date("samples_gsm8k_latest.jsonl"), None);
    }
}
