//! WildBench's per-sample scores (allenai/WildBench, WB-Score): the checklist judge's ratings of
//! one model, `eval_results/<version>/score.v2/eval=<judge>/<model>.json`, a JSON array of
//! `{session_id, parsed_result: {strengths, weaknesses, score}, meta_data, model_test, score,
//! model_output}` with `score` a rating from 1 to 10 as text. Read as the leaderboard's own
//! `leaderboard/data_dir/_create_tables.py score` reads them:
//!
//! - system: the file's name less `.json` (the leaderboard's `model`); the `model_test` it names
//!   (`Magpie-Align/Llama-3-8B-WildChat`) is noted when it differs.
//! - task: `session_id`; group: none in the file (the categories are the dataset's tags, noted).
//! - outcome: `score` (else `parsed_result.score`, as the Sonnet-judged files keep it) / 10, so
//!   the mean is the leaderboard's `score` / 10 (its `adjusted_score` is (score − 5) · 2);
//!   `--score-scale MIN:MAX` maps another range. Every entry counts, truncated and empty outputs
//!   too, as the leaderboard's score counts them; a rating that is not a number, or off the scale,
//!   is refused naming the entry (the leaderboard's script stops there too).
//! - a session scored twice in one file is a further run, in file order, noted.
//! - No cost (the judge's usage counts tokens) or seconds.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, on_outcome_scale};
use crate::data::error::LoadError;

/// The range of WildBench's ratings ("a score from 1 to 10"), mapped onto [0, 1] as score / 10.
const DEFAULT_SCALE: (f64, f64) = (0.0, 10.0);

/// Whether a parsed JSON value is a WildBench score file (checked on its first entry).
pub fn is_score_file(value: &Value) -> bool {
    value
        .as_array()
        .and_then(|entries| entries.first())
        .and_then(Value::as_object)
        .is_some_and(|entry| {
            entry.contains_key("session_id")
                && entry.contains_key("model_output")
                && (entry.contains_key("score")
                    || entry
                        .get("parsed_result")
                        .is_some_and(|parsed| parsed.get("score").is_some()))
        })
}

/// An entry's rating: `score`, else `parsed_result.score`, a number or a number as text.
fn rating(entry: &Value) -> Result<f64, String> {
    let value = entry
        .get("score")
        .or_else(|| entry.get("parsed_result").and_then(|p| p.get("score")));
    let number = match value {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(text)) => text.trim().parse::<f64>().ok(),
        _ => None,
    };
    number
        .filter(|n| n.is_finite())
        .ok_or_else(|| format!("score is {}, not a rating", super::value_or_missing(value)))
}

/// The rows of one score file.
pub fn scores(
    value: &Value,
    path: &Path,
    file: &str,
    score_scale: Option<(f64, f64)>,
) -> Result<Imported, LoadError> {
    let entries = value
        .as_array()
        .ok_or_else(|| LoadError::new(file, "a WildBench score file is a JSON array of entries"))?;
    let system = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .map(|name| name.strip_suffix(".json").unwrap_or(&name).to_string())
        .unwrap_or_default();
    let scale = score_scale.unwrap_or(DEFAULT_SCALE);
    let mut rows = Vec::with_capacity(entries.len());
    let mut runs: HashMap<String, u32> = HashMap::new();
    let mut tested: Vec<String> = Vec::new();
    let mut judge_errors = 0usize;
    for (index, entry) in entries.iter().enumerate() {
        let at = |message: String| LoadError::new(file, format!("entry {}: {message}", index + 1));
        let session = match entry.get("session_id") {
            Some(Value::String(id)) if !id.is_empty() => id.clone(),
            other => {
                return Err(at(format!(
                    "session_id is {}",
                    super::value_or_missing(other)
                )));
            }
        };
        let score = rating(entry).map_err(&at)?;
        let outcome = on_outcome_scale(score, Some(scale), "score").map_err(&at)?;
        if !(0.0..=1.0).contains(&outcome) {
            return Err(at(format!(
                "score is {score}, off the scale {}–{} (--score-scale MIN:MAX sets another)",
                scale.0, scale.1
            )));
        }
        if let Some(model) = entry
            .get("model_test")
            .or_else(|| entry.get("generator"))
            .and_then(Value::as_str)
            && !tested.iter().any(|m| m == model)
        {
            tested.push(model.to_string());
        }
        judge_errors += usize::from(
            entry
                .get("meta_data")
                .and_then(|m| m.get("error"))
                .is_some_and(|e| !e.is_null()),
        );
        let run = super::next_run(&mut runs, session.clone());
        rows.push(CanonicalRow {
            system: system.clone(),
            task: session,
            run,
            outcome: Some(outcome),
            status: RowStatus::Ok,
            group: None,
            cost_usd: None,
            seconds: None,
            source: format!("wildbench entry {}: score {score}", index + 1),
        });
    }
    // WildBench names the judge only by the folder: eval=<judge>.
    let judge = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("eval="))
        .map_or_else(
            || {
                "a judge the file does not name (WildBench names it by the folder eval=<judge>)"
                    .to_string()
            },
            str::to_string,
        );
    let mut notes = vec![format!(
        "{file}: WildBench scores (WB-Score) of {system} by {judge}; outcome = score / {} on the scale {}–{}, so the mean × 10 is the leaderboard's score (its adjusted score is (score − 5) · 2); every entry counts, truncated outputs too, as the leaderboard counts them; the task categories are the dataset's tags (allenai/WildBench v2), not in the file: --tasks FILE joins them",
        scale.1 - scale.0,
        scale.0,
        scale.1
    )];
    if tested.iter().any(|model| *model != system) {
        notes.push(format!(
            "{file}: the system is the file's name, as the leaderboard names it; the entries' model_test is {}",
            tested.join(", ")
        ));
    }
    let again = rows.iter().filter(|row| row.run > 0).count();
    if again > 0 {
        notes.push(format!(
            "{file}: {} scored again in the file: further runs, in file order",
            counted(again, "session was", "sessions were")
        ));
    }
    if judge_errors > 0 {
        notes.push(format!(
            "{file}: {} an error in meta_data beside its score: the score kept, as the leaderboard keeps it",
            counted(judge_errors, "entry has", "entries have")
        ));
    }
    Ok(Imported::entries(rows, notes))
}
