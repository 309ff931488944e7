//! Inspect AI logs (`shared/formats/NOTES.md` §3): `.eval` zip archives (members DEFLATE or zstd;
//! `header.json`, else `_journal/start.json`, and `samples/*.json`) and `.json` logs. One row per
//! sample and epoch: the sample id is the task, epoch − 1 the run, `eval.model` the system, `eval.task`
//! the group; the outcome is one scorer's value (`--scorer`, default the first scorer of the results,
//! else of the first sample) by Inspect's own rule (C 1, P 0.5, I and N 0, numbers and booleans as
//! they are), refused outside [0, 1] unless `--score-scale MIN:MAX` maps the scorer's range onto it.

use std::collections::{HashMap, HashSet};
use std::io::{Cursor, Read};

use serde_json::Value;

use super::{CanonicalRow, ImportSettings, Imported, InspectTaskKey, RowStatus};
use crate::data::error::LoadError;

/// The log's header (`eval`, `results`, `status`, …), its samples and its reductions (each sample's
/// score reduced over its epochs, per scorer: all a log written without samples keeps of them).
pub struct Log {
    header: Value,
    samples: Vec<Value>,
    reductions: Vec<Value>,
    /// The run is still going: its status is `started`, or an archive has only its journal's start.
    running: bool,
    /// Samples that kept their score in the old single `score` field, read as the named scorer's.
    single_scores: Option<(usize, String)>,
}

/// The scorer key Inspect's reader files an old single `score` under when the results name none.
const SINGLE_SCORE_KEY: &str = "88F74D2C";

impl Log {
    /// Takes an older log's layout as Inspect's own reader migrates it: `results.scorer` and
    /// `results.metrics` (before `results.scores`) as one result, and a sample's single `score`
    /// (before `scores`) as the score of that result's scorer (or of [`SINGLE_SCORE_KEY`]). Such a
    /// log's scored samples were read as not attempted ("no scorer ran"), its mean 0.
    fn new(
        mut header: Value,
        mut samples: Vec<Value>,
        reductions: Vec<Value>,
        running: bool,
    ) -> Log {
        if let Some(results) = header.get_mut("results").and_then(Value::as_object_mut)
            && !results.contains_key("scores")
            && let Some(name) = results
                .get("scorer")
                .and_then(|scorer| scorer.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string)
        {
            let metrics = results.get("metrics").cloned().unwrap_or(Value::Null);
            results.insert(
                "scores".to_string(),
                serde_json::json!([{ "name": name, "scorer": name, "metrics": metrics }]),
            );
        }
        let name = header
            .get("results")
            .and_then(|r| r.get("scores")?.as_array()?.first()?.get("name")?.as_str())
            .unwrap_or(SINGLE_SCORE_KEY)
            .to_string();
        let mut migrated = 0usize;
        for sample in &mut samples {
            let Some(fields) = sample.as_object_mut() else {
                continue;
            };
            if fields.get("scores").is_none_or(Value::is_null)
                && let Some(score) = fields.remove("score").filter(|s| !s.is_null())
            {
                fields.insert("scores".to_string(), serde_json::json!({ &name: score }));
                migrated += 1;
            }
        }
        Log {
            header,
            samples,
            reductions,
            running,
            single_scores: (migrated > 0).then_some((migrated, name)),
        }
    }
}

/// A `.json` log: one object with `samples`. `samples` or `reductions` of another type than a list
/// (or null) is a damaged log: it was read as a log without samples, its per-sample times gone.
pub fn json_log(value: Value, file: &str) -> Result<Log, LoadError> {
    let list = |key: &str| match value.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items.clone()),
        Some(other) => Err(LoadError::new(
            file,
            format!("'{key}' is {}, not a list", super::json::shown(other)),
        )),
    };
    let samples = list("samples")?;
    let reductions = list("reductions")?;
    let running = value.get("status").and_then(Value::as_str) == Some("started");
    Ok(Log::new(value, samples, reductions, running))
}

/// Whether a parsed JSON object is an Inspect log: an `eval` naming its task and model, with samples,
/// reductions or results (a log written without samples, or read header-only and written back,
/// has only the last).
pub fn is_log(object: &serde_json::Map<String, Value>) -> bool {
    object
        .get("eval")
        .and_then(Value::as_object)
        .is_some_and(|eval| eval.contains_key("task") && eval.contains_key("model"))
        && ["samples", "reductions", "results", "status"]
            .iter()
            .any(|key| object.contains_key(*key))
}

/// A `.eval` archive.
pub fn eval_archive(bytes: &[u8], file: &str) -> Result<Log, LoadError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| LoadError::new(file, format!("not a readable .eval (zip) archive: {e}")))?;
    let names: Vec<String> = archive
        .file_names()
        .filter_map(Result::ok)
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
        .map(|n| n.into_owned())
        .collect();
    let mut member = |name: &str| -> Result<Option<Value>, LoadError> {
        let mut entry = match archive.by_name(name) {
            Ok(entry) => entry,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(LoadError::new(file, format!("member {name}: {e}"))),
        };
        let mut text = Vec::new();
        entry
            .read_to_end(&mut text)
            .map_err(|e| LoadError::new(file, format!("member {name} cannot be read: {e}")))?;
        let (value, _) = super::json::parse_lenient(&text, &format!("{file}:{name}"))?;
        Ok(Some(value))
    };
    // A finished log has header.json; a crashed or running one only its journal start.
    let finished = member("header.json")?;
    let running = finished.is_none()
        || finished
            .as_ref()
            .and_then(|h| h.get("status"))
            .and_then(Value::as_str)
            == Some("started");
    let header = match finished {
        Some(header) => header,
        None => member("_journal/start.json")?.ok_or_else(|| {
            LoadError::new(
                file,
                "the archive has neither header.json nor _journal/start.json (not an Inspect .eval log, or an unknown layout)",
            )
        })?,
    };
    let mut samples = Vec::with_capacity(names.len());
    for name in names {
        if let Some(sample) = member(&name)? {
            samples.push(sample);
        }
    }
    let reductions = match member("reductions.json")? {
        Some(Value::Array(reductions)) => reductions,
        _ => Vec::new(),
    };
    Ok(Log::new(header, samples, reductions, running))
}

/// Whether a score is a grade (C, P, I, N, yes/no, true/false) rather than a number: Inspect's
/// `value_to_float` puts grades on [0, 1] itself, so `--score-scale` maps only numbers (a correct
/// sample's "C" read as 0.1 on a 0:10 scale was a silent change).
fn is_grade(value: &Value, key: Option<&str>) -> bool {
    match (value, key) {
        (Value::Object(values), Some(key)) => values.get(key).is_some_and(|v| is_grade(v, None)),
        (Value::Bool(_), _) => true,
        (Value::String(text), _) => text.trim().parse::<f64>().is_err(),
        _ => false,
    }
}

/// Inspect's `value_to_float` for the values a converter may take; a dict's value is the one under
/// `key` (`--score-key`); other values are refused.
fn score(value: &Value, key: Option<&str>) -> Result<Option<f64>, String> {
    if let Value::Object(values) = value {
        let keys = || values.keys().cloned().collect::<Vec<_>>().join(", ");
        return match key {
            Some(key) => match values.get(key) {
                Some(inner) => score(inner, None),
                None => Err(format!(
                    "the score is a dict without '{key}' (its keys: {})",
                    keys()
                )),
            },
            None => Err(format!(
                "the score is a dict of several values (keys: {}); --score-key KEY picks one",
                keys()
            )),
        };
    }
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(f64::from(u8::from(*b)))),
        Value::Number(n) => Ok(n.as_f64()),
        Value::String(text) => match text.trim() {
            "C" => Ok(Some(1.0)),
            "P" => Ok(Some(0.5)),
            "I" | "N" => Ok(Some(0.0)),
            other => match other.to_lowercase().as_str() {
                "yes" | "true" => Ok(Some(1.0)),
                "no" | "false" => Ok(Some(0.0)),
                _ => other
                    .parse::<f64>()
                    .map(Some)
                    .map_err(|_| format!("score '{other}' is not C, P, I, N, yes, no or a number")),
            },
        },
        other => Err(format!("score {other} is a list, not one value")),
    }
}

/// Samples made from a log's reductions, so that they read as samples do: per sample id (in the order
/// first met), its reduced score under each scorer, as `{id, epoch: 1, scores: {scorer: {value}}}`.
struct ReducedSamples {
    samples: Vec<Value>,
    /// (scorer, reducer) per reduction (Inspect's default reducer is the mean).
    reducers: Vec<(String, String)>,
}

impl ReducedSamples {
    fn from_reductions(reductions: &[Value], file: &str) -> Result<Self, LoadError> {
        let mut ids: Vec<Value> = Vec::new();
        let mut scores: Vec<serde_json::Map<String, Value>> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut reducers = Vec::new();
        for reduction in reductions {
            let scorer = reduction
                .get("scorer")
                .and_then(Value::as_str)
                .ok_or_else(|| LoadError::new(file, "a reduction names no scorer"))?;
            let reducer = reduction
                .get("reducer")
                .and_then(Value::as_str)
                .unwrap_or("mean");
            reducers.push((scorer.to_string(), reducer.to_string()));
            let listed = reduction.get("samples").and_then(Value::as_array);
            for sample in listed.into_iter().flatten() {
                let id = sample.get("sample_id").filter(|id| id_text(id).is_some());
                let id = id.ok_or_else(|| {
                    LoadError::new(
                        file,
                        format!("a reduced score of scorer '{scorer}' names no sample_id"),
                    )
                })?;
                let key = id_text(id).unwrap_or_default();
                let at = *index.entry(key).or_insert_with(|| {
                    ids.push(id.clone());
                    scores.push(serde_json::Map::new());
                    ids.len() - 1
                });
                let value = sample.get("value").cloned().unwrap_or(Value::Null);
                scores[at].insert(scorer.to_string(), serde_json::json!({ "value": value }));
            }
        }
        let samples = ids
            .into_iter()
            .zip(scores)
            .map(|(id, scores)| serde_json::json!({ "id": id, "epoch": 1, "scores": scores }))
            .collect();
        Ok(ReducedSamples { samples, reducers })
    }

    fn epochs(header: &Value) -> u64 {
        header
            .get("eval")
            .and_then(|e| e.get("config")?.get("epochs")?.as_u64())
            .unwrap_or(1)
    }

    /// Where `scorer`'s scores were reduced over several epochs by another reducer than the mean
    /// (max, mode, pass_at_k, …): (reducer, epochs). pareval reads a logged or streamed sample's
    /// epochs as their mean, so such a value is not what it reads for another system.
    fn not_a_mean(&self, scorer: &str, header: &Value) -> Option<(&str, u64)> {
        let epochs = Self::epochs(header);
        let (_, reducer) = self.reducers.iter().find(|(name, _)| name == scorer)?;
        (epochs > 1 && reducer != "mean").then_some((reducer.as_str(), epochs))
    }

    fn note(&self, file: &str, header: &Value) -> String {
        let epochs = Self::epochs(header);
        let unlogged = header
            .get("eval")
            .and_then(|e| e.get("config")?.get("log_samples")?.as_bool())
            == Some(false);
        format!(
            "{file}: the log keeps no samples{}, only each sample's score reduced over its {epochs} epoch{} ({}): one row a sample, read as run 0; a dataset sample with no reduced score (errored, or not run: such a log cannot tell which) is not attempted",
            if unlogged {
                " (written with --no-log-samples)"
            } else {
                ""
            },
            if epochs == 1 { "" } else { "s" },
            self.reducers
                .iter()
                .map(|(scorer, reducer)| format!("{scorer}: {reducer}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Refuses a finished log with neither samples nor reductions whose results count completed samples
/// (a log read header-only and written back, or trimmed): its per-sample scores are gone, and
/// reading its dataset's samples as not attempted would say the eval ran none of them.
fn refuse_without_samples(header: &Value, file: &str) -> Result<(), LoadError> {
    let results = header.get("results");
    let completed = results
        .and_then(|r| r.get("completed_samples"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if completed == 0 {
        return Ok(());
    }
    let headline = results
        .and_then(|r| r.get("scores")?.as_array()?.first())
        .and_then(|score| {
            let name = score.get("name")?.as_str()?;
            let (metric, value) = score.get("metrics")?.as_object()?.iter().next()?;
            Some(format!(" ({name} {metric} {})", value.get("value")?))
        })
        .unwrap_or_default();
    Err(LoadError::new(
        file,
        format!(
            "the log holds no samples and no reductions (read header-only and written back, or trimmed): its results count {completed} completed samples{headline} but keep no sample's score, and pareval reads one outcome per sample; give the log as Inspect wrote it"
        ),
    ))
}

/// The scorer whose values are read (None: no scorer in the log), the key read from a dict-valued
/// score, and a note when that key comes from the log's results. Inspect's results hold one entry
/// per key of a scorer whose value is a dict with a metric list per key (`name` the key, `scorer`
/// the scorer's own name, by which the samples' `scores` are keyed), so the first result, or a
/// `--scorer` naming such a key, is read as that scorer's key.
fn choose_scorer(
    header: &Value,
    samples: &[Value],
    settings: &ImportSettings<'_>,
    file: &str,
) -> (Option<String>, Option<String>, Option<String>) {
    let results: Vec<(String, String)> = header
        .get("results")
        .and_then(|r| r.get("scores"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|score| {
            let name = score.get("name")?.as_str()?.to_string();
            let scorer = score
                .get("scorer")
                .and_then(Value::as_str)
                .map_or_else(|| name.clone(), str::to_string);
            Some((name, scorer))
        })
        .collect();
    let sample_scorers: HashSet<&str> = samples
        .iter()
        .filter_map(|s| s.get("scores")?.as_object())
        .flat_map(|scores| scores.keys().map(String::as_str))
        .collect();
    let given_key = settings.score_key().map(str::to_string);
    let wanted = settings
        .scorer()
        .map(str::to_string)
        .or_else(|| results.first().map(|(name, _)| name.clone()))
        .or_else(|| {
            samples
                .iter()
                .find_map(|s| s.get("scores")?.as_object()?.keys().next().cloned())
        });
    let Some(wanted) = wanted else {
        return (None, given_key, None);
    };
    let keyed_scorer = results
        .iter()
        .find(|(name, scorer)| {
            *name == wanted
                && *scorer != wanted
                && !sample_scorers.contains(wanted.as_str())
                && (sample_scorers.is_empty() || sample_scorers.contains(scorer.as_str()))
        })
        .map(|(_, scorer)| scorer.clone());
    let Some(scorer) = keyed_scorer else {
        return (Some(wanted), given_key, None);
    };
    let key = given_key.unwrap_or_else(|| wanted.clone());
    let keys: Vec<&str> = results
        .iter()
        .filter(|(_, s)| *s == scorer)
        .map(|(name, _)| name.as_str())
        .collect();
    let note = format!(
        "{file}: scorer '{scorer}' scores a dict, one result per key ({}): its '{key}' read{} (--scorer KEY reads another key)",
        keys.join(", "),
        if settings.scorer().is_none() {
            ", the log's first result"
        } else {
            ""
        }
    );
    (Some(scorer), Some(key), Some(note))
}

fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

pub fn rows(log: &Log, file: &str, settings: &ImportSettings<'_>) -> Result<Imported, LoadError> {
    let eval = log
        .header
        .get("eval")
        .ok_or_else(|| LoadError::new(file, "an Inspect log needs 'eval'"))?;
    let system = match eval.get("model") {
        Some(Value::String(model)) => model.clone(),
        Some(other) => {
            return Err(LoadError::new(
                file,
                format!(
                    "eval.model is {other}, not a model name{}",
                    if other.as_array().is_some_and(|a| a.len() == 1) {
                        " (every scalar of this log is a one-element list, as an early writer stored them; --system-name names the system, but the log's other fields cannot be read either)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        None => return Err(LoadError::new(file, "an Inspect log needs eval.model")),
    };
    let group = eval.get("task").and_then(Value::as_str).map(str::to_string);
    let errored = |sample: &Value| sample.get("error").is_some_and(|e| !e.is_null());
    // A sample interrupted because the eval was stopped (Ctrl-C, `pareval run` ending the harness,
    // an operator's cancel): Inspect records the cancellation as the sample's error, its message the
    // exception's repr (`CancelledError(…)` under asyncio, `Cancelled(…)` under trio). The agent
    // did not fail it; it was not let finish.
    let cancelled = |sample: &Value| {
        sample
            .get("error")
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .is_some_and(|m| m.starts_with("CancelledError(") || m.starts_with("Cancelled("))
    };
    // A run still going (`status` started) may have scored nothing yet: every sample is not attempted
    // so far, which a live reader waits on rather than refuses.
    let running = log.running;
    // A log written without samples (`--no-log-samples`) keeps only each sample's score reduced over
    // its epochs: those are its outcomes, one a sample.
    let reduced = match log.samples.is_empty() && !log.reductions.is_empty() {
        true => Some(ReducedSamples::from_reductions(&log.reductions, file)?),
        false => None,
    };
    let samples: &[Value] = reduced.as_ref().map_or(&log.samples, |r| &r.samples);
    if samples.is_empty() && !running {
        refuse_without_samples(&log.header, file)?;
    }
    let (scorer, score_key, dict_note) = choose_scorer(&log.header, samples, settings, file);
    // An eval cancelled or failed before any scorer ran: the samples it did not finish are not
    // attempted (a folder of logs often holds such a stopped run beside the finished ones).
    let stopped_unscored = matches!(
        log.header.get("status").and_then(Value::as_str),
        Some("cancelled" | "error")
    );
    let scorer = match scorer {
        Some(scorer) => scorer,
        // A failed or cancelled run may end before any scorer ran: its errored samples are
        // still errors, and the rest of the dataset was not attempted.
        None if running || stopped_unscored || samples.iter().any(errored) => String::new(),
        None => {
            return Err(LoadError::new(
                file,
                "no scorer in the log (no results, no sample scores) and no errored sample: nothing to read as outcomes",
            ));
        }
    };
    let unscored = scorer.is_empty();
    let mut rows = Vec::with_capacity(samples.len());
    let mut seen: HashSet<(String, u32)> = HashSet::new();
    let mut scorers: Vec<String> = Vec::new();
    let mut cancelled_samples = 0;
    let mut errored_unscored = 0usize;
    // Grades left on Inspect's own [0, 1] under --score-scale.
    let mut grades_unscaled = 0usize;
    // Samples that ended without error and hold no score of the scorer read: the first, and how many.
    let mut without_score: Option<String> = None;
    let mut without_score_count = 0usize;
    for (index, sample) in samples.iter().enumerate() {
        let at = |what: String| LoadError::new(file, format!("sample {}: {what}", index + 1));
        let id = sample
            .get("id")
            .and_then(id_text)
            .ok_or_else(|| at("no id".to_string()))?;
        // Named by its id too: "sample 5" alone sent a reader to the fifth sample of the log, while
        // its id (574105, say) is what Inspect's viewer and the dataset show.
        let at =
            |what: String| LoadError::new(file, format!("sample {} (id {id}): {what}", index + 1));
        let epoch = epoch_of(sample.get("epoch")).map_err(&at)?;
        // Inspect writes a sample's scores as an object by scorer (or null before scoring): any
        // other value is a damaged log, not a sample without a score.
        let scores = match sample.get("scores") {
            None | Some(Value::Null) => None,
            Some(Value::Object(scores)) => Some(scores),
            Some(other) => {
                return Err(at(format!(
                    "scores is {}, not an object of scores by scorer",
                    super::json::shown(other)
                )));
            }
        };
        for name in scores.into_iter().flat_map(|s| s.keys()) {
            if !scorers.contains(name) {
                scorers.push(name.clone());
            }
        }
        let value = scores
            .and_then(|s| s.get(&scorer))
            .map(|s| s.get("value").unwrap_or(&Value::Null));
        let mut outcome = match value {
            Some(value) => score(value, score_key.as_deref())
                .map_err(|e| at(format!("scorer '{scorer}': {e}")))?,
            None => None,
        };
        let grade = value.is_some_and(|value| is_grade(value, score_key.as_deref()));
        match (outcome, settings.score_scale()) {
            (Some(_), Some(_)) if grade => grades_unscaled += 1,
            (Some(v), Some((low, high))) => outcome = Some((v - low) / (high - low)),
            (Some(v), None) if !(0.0..=1.0).contains(&v) => {
                return Err(at(format!(
                    "scorer '{scorer}' gave {v}, outside [0, 1]; --score-scale MIN:MAX maps the scorer's range onto [0, 1]"
                )));
            }
            _ => {}
        }
        let cancelled = cancelled(sample);
        let errored = errored(sample) && !cancelled;
        cancelled_samples += usize::from(cancelled && outcome.is_none());
        if !unscored && !errored && !cancelled && outcome.is_none() {
            without_score.get_or_insert_with(|| format!("sample {id}, epoch {epoch}"));
            without_score_count += 1;
        }
        let status = match (errored, outcome) {
            (true, _) => RowStatus::Error,
            // Scored before the cancellation reached it: the score stands.
            (false, Some(_)) => RowStatus::Ok,
            // Unscored (NaN), no score from this scorer, or cancelled before it was scored: excluded,
            // as Inspect's metrics do.
            (false, None) => RowStatus::NotAttempted,
        };
        // An errored sample without a score is scored 0, as Inspect's metrics count it.
        if status == RowStatus::Error && outcome.is_none() {
            outcome = Some(0.0);
            errored_unscored += 1;
        }
        let costs: Option<Vec<f64>> = sample
            .get("model_usage")
            .and_then(Value::as_object)
            .filter(|usage| !usage.is_empty())
            .map(|usage| {
                usage
                    .values()
                    .map(|u| super::json::amount(u, "total_cost"))
                    .collect::<Option<Vec<f64>>>()
            })
            .unwrap_or(None);
        let place = match &reduced {
            Some(_) => format!("inspect reduced score of sample {id} (over its epochs)"),
            None => format!("inspect sample {}, epoch {epoch}", index + 1),
        };
        seen.insert((id.clone(), epoch));
        rows.push(CanonicalRow {
            system: system.clone(),
            task: id,
            run: epoch - 1,
            outcome,
            status,
            group: group.clone(),
            cost_usd: costs.map(|c| c.iter().sum()),
            seconds: super::json::amount(sample, "total_time"),
            source: format!(
                "{place}, {}{}",
                if unscored {
                    "no scorer".to_string()
                } else if let Some(key) = &score_key {
                    format!("scorer {scorer}, key {key}")
                } else {
                    format!("scorer {scorer}")
                },
                if errored {
                    ", error"
                } else if cancelled {
                    ", cancelled"
                } else {
                    ""
                }
            ),
        });
    }
    if !scorers.is_empty() && !scorers.contains(&scorer) {
        return Err(LoadError::new(
            file,
            format!(
                "--scorer '{scorer}' is not a scorer of the log; its scorers: {}",
                scorers.join(", ")
            ),
        ));
    }
    let mut notes: Vec<String> = dict_note.into_iter().collect();
    if let Some((count, name)) = &log.single_scores {
        notes.push(format!(
            "{file}: {count} {} the score in the single `score` field of Inspect logs before `scores`: read as the score of scorer '{name}', as Inspect's reader migrates it",
            if *count == 1 { "sample keeps" } else { "samples keep" }
        ));
    }
    if let (Some((low, high)), 1..) = (settings.score_scale(), grades_unscaled) {
        notes.push(format!(
            "{file}: --score-scale {low}:{high} maps numeric scores only: {grades_unscaled} {} of scorer '{scorer}' (C, P, I, N, yes/no, true/false) {} on [0, 1] by Inspect's own rule and kept there",
            if grades_unscaled == 1 { "grade" } else { "grades" },
            if grades_unscaled == 1 { "is" } else { "are" },
        ));
    }
    if let Some(reduced) = &reduced {
        notes.push(reduced.note(file, &log.header));
        if let Some((reducer, epochs)) = reduced.not_a_mean(&scorer, &log.header) {
            let why = format!(
                "scorer '{scorer}' keeps each sample's {reducer} over its {epochs} epochs, not their mean, which is what pareval reads for a system whose samples are logged or streamed"
            );
            // `serve` compares a baseline log with a system whose outcomes stream in as means: a
            // max against a mean decides on the reducer, not on the systems (the integration
            // rejected a stronger model so). Elsewhere both systems may be reduced alike: noted.
            if settings.against_streamed_means {
                return Err(LoadError::new(
                    file,
                    format!(
                        "{why}: a live decision against it would compare a {reducer} with the streamed system's mean; log the eval's samples (drop --no-log-samples) or reduce by the mean (--epochs-reducer mean)"
                    ),
                ));
            }
            notes.push(format!(
                "{file}: {why}: compare it only with logs kept without samples and reduced alike (a log with its samples is read as their mean, whatever its reducer)"
            ));
        }
    }
    let log_samples = eval
        .get("config")
        .and_then(|c| c.get("log_samples"))
        .and_then(Value::as_bool);
    if running && samples.is_empty() && log_samples == Some(false) {
        notes.push(format!(
            "{file}: the eval runs with samples not logged (--no-log-samples): Inspect writes no sample's score until the eval ends, so nothing can be read before then"
        ));
    }
    if unscored && running && rows.is_empty() {
        notes.push(format!(
            "{file}: the eval is still running and no sample has been scored yet: its samples are not attempted so far"
        ));
    } else if unscored {
        let errors = rows.iter().filter(|r| r.status == RowStatus::Error).count();
        notes.push(format!(
            "{file}: no scorer ran (the eval's status is '{}'): {errors} errored samples are errors, the dataset's other samples not attempted",
            log.header
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
        ));
    }
    if errored_unscored > 0 && !unscored {
        notes.push(format!(
            "{file}: {errored_unscored} errored {} without a score scored 0 (a harness failure counted as the agent's; --exclude-errors leaves errored runs out of the averages of info, replay, pair, proxy and the explorer, while a live run reads them as their outcomes)",
            if errored_unscored == 1 { "sample" } else { "samples" },
        ));
    }
    if let Some(first) = &without_score {
        notes.push(format!(
            "{file}: {without_score_count} {} without error {} no score of scorer '{scorer}' (or an unscored NaN): not attempted, as Inspect's metrics leave {} out (the first, {first})",
            if without_score_count == 1 { "sample" } else { "samples" },
            if without_score_count == 1 { "holds" } else { "hold" },
            if without_score_count == 1 { "it" } else { "them" },
        ));
    }
    if cancelled_samples > 0 {
        notes.push(format!(
            "{file}: {cancelled_samples} {} cancelled before {} scored (the eval was stopped as {} ran): not attempted, not failures",
            if cancelled_samples == 1 { "sample was" } else { "samples were" },
            if cancelled_samples == 1 { "it was" } else { "they were" },
            if cancelled_samples == 1 { "it" } else { "they" },
        ));
    }
    if scorers.len() > 1 {
        notes.push(format!(
            "{file}: scorer '{scorer}' read of {} ({}); --scorer chooses",
            scorers.len(),
            scorers.join(", ")
        ));
    }
    // Samples of the dataset with no sample record for some epoch were not attempted; ids whose type
    // differs from the samples' (an R-written log) cannot be matched, so the check is skipped then.
    let sample_ids: Vec<String> = eval
        .get("dataset")
        .and_then(|d| d.get("sample_ids"))
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(id_text).collect())
        .unwrap_or_default();
    // Reductions hold one score a sample, whatever the epochs: run 0.
    let epochs = match &reduced {
        Some(_) => 1,
        None => match eval.get("config").and_then(|c| c.get("epochs")) {
            Some(planned) if !planned.is_null() => epoch_of(Some(planned)).map_err(|what| {
                LoadError::new(file, format!("eval.config.epochs: {what} (planned epochs)"))
            })?,
            _ => seen.iter().map(|(_, e)| *e).max().unwrap_or(1),
        },
    };
    // Every planned (sample, epoch) without a record becomes a row: a damaged count of epochs
    // within the bound, over a large dataset, still made millions (10,000 × 200 ids: 1.3 GB from
    // a 32 KB log).
    let planned_runs = sample_ids.len() as u64 * u64::from(epochs);
    if planned_runs > MOST_PLANNED_SAMPLE_RUNS {
        return Err(LoadError::new(
            file,
            format!(
                "{epochs} epochs of {} dataset samples plan {planned_runs} sample runs, more than pareval reads from one log ({MOST_PLANNED_SAMPLE_RUNS}): is eval.config.epochs or a sample's epoch damaged?",
                sample_ids.len()
            ),
        ));
    }
    // Samples an early-stopping manager skipped (`results.early_stopping`): planned but not run,
    // never failures.
    let stopping = log
        .header
        .get("results")
        .and_then(|r| r.get("early_stopping"));
    let manager = stopping
        .and_then(|s| s.get("manager"))
        .and_then(Value::as_str)
        .unwrap_or("early stopping");
    let mut stopped: HashSet<(String, u32)> = HashSet::new();
    let stops = stopping
        .and_then(|s| s.get("early_stops"))
        .and_then(Value::as_array);
    for (index, stop) in stops.into_iter().flatten().enumerate() {
        let Some(id) = stop.get("id").and_then(id_text) else {
            continue;
        };
        let epoch = epoch_of(stop.get("epoch")).map_err(|what| {
            LoadError::new(
                file,
                format!("results.early_stopping.early_stops[{index}]: {what}"),
            )
        })?;
        stopped.insert((id, epoch));
    }
    let not_run = |id: &str, epoch: u32| CanonicalRow {
        system: system.clone(),
        task: id.to_string(),
        run: epoch - 1,
        outcome: None,
        status: RowStatus::NotAttempted,
        group: group.clone(),
        cost_usd: None,
        seconds: None,
        source: if stopped.contains(&(id.to_string(), epoch)) {
            format!("inspect sample {id}, epoch {epoch}, stopped early by {manager}")
        } else if reduced.is_some() {
            format!("inspect dataset sample {id}, no reduced score (errored or not run)")
        } else {
            format!("inspect dataset sample {id}, epoch {epoch}, no sample record")
        },
    };
    // With no sample read yet (a run just started) there is nothing to match against: the list
    // is taken as it is.
    let matched = seen.is_empty()
        || sample_ids
            .iter()
            .any(|id| seen.iter().any(|(s, _)| s == id));
    if matched {
        for id in &sample_ids {
            for epoch in 1..=epochs {
                if !seen.contains(&(id.clone(), epoch)) {
                    rows.push(not_run(id, epoch));
                }
            }
        }
    } else if !stopped.is_empty() {
        // No usable dataset list: the stopped samples are still known to be planned and not run.
        let mut listed: Vec<&(String, u32)> =
            stopped.iter().filter(|k| !seen.contains(*k)).collect();
        listed.sort();
        for (id, epoch) in listed {
            rows.push(not_run(id, *epoch));
        }
    }
    // While the eval runs, a sample whose other epochs are still to come has no outcome yet: its
    // outcome is the mean over all its epochs, and Inspect runs the epochs one after the other, so
    // reading the first epochs alone would take a value the later ones change. So has a sample
    // whose other epochs an early-stopping manager skipped, once the eval has ended: they never
    // ran, and the mean of the rest is not the sample's outcome (`decide` on such logs read those
    // samples as finished and called the decision certain).
    if (running || !stopped.is_empty()) && epochs > 1 {
        let waiting: HashSet<String> = rows
            .iter()
            .filter(|r| {
                r.status == RowStatus::NotAttempted
                    && (running || stopped.contains(&(r.task.clone(), r.run + 1)))
            })
            .map(|r| r.task.clone())
            .collect();
        let mut held = 0usize;
        for row in rows.iter_mut() {
            if row.status != RowStatus::NotAttempted && waiting.contains(&row.task) {
                let scored = row.outcome.map_or("nothing".to_string(), |o| o.to_string());
                row.source
                    .push_str(&format!(", waits for its other epochs (scored {scored})"));
                row.outcome = None;
                row.status = RowStatus::NotAttempted;
                held += 1;
            }
        }
        if held > 0 && running {
            notes.push(format!(
                "{file}: the eval is still running: {held} finished {} of samples whose other epochs have not finished {} not attempted so far (a sample's outcome is the mean of its {epochs} epochs)",
                if held == 1 { "epoch" } else { "epochs" },
                if held == 1 { "is" } else { "are" },
            ));
        } else if held > 0 {
            notes.push(format!(
                "{file}: {held} finished {} of samples whose other epochs were stopped early {} not attempted (a sample's outcome is the mean of its {epochs} epochs, and those never ran)",
                if held == 1 { "epoch" } else { "epochs" },
                if held == 1 { "is" } else { "are" },
            ));
        }
    }
    if !stopped.is_empty() {
        notes.push(format!(
            "{file}: {} {} stopped early by {manager} (results.early_stopping): planned but not run, read as not attempted",
            stopped.len(),
            if stopped.len() == 1 { "sample was" } else { "samples were" }
        ));
    }
    if !matched && !sample_ids.is_empty() {
        notes.push(format!(
            "{file}: eval.dataset.sample_ids do not match the samples' ids; samples not run cannot be listed"
        ));
    }
    if let Some(status) = log.header.get("status").and_then(Value::as_str)
        && status != "success"
    {
        notes.push(format!("{file}: the eval's status is '{status}'"));
    }
    let eval_set = eval
        .get("eval_set_id")
        .and_then(Value::as_str)
        .is_some_and(|id| !id.is_empty());
    let keyed_by_task = match settings.inspect_task_key {
        InspectTaskKey::Auto => eval_set,
        InspectTaskKey::Id => false,
        InspectTaskKey::TaskId => true,
    };
    if keyed_by_task {
        let task = group.as_deref().ok_or_else(|| {
            LoadError::new(
                file,
                "the log names no eval.task, so its tasks cannot be <task>/<sample id>",
            )
        })?;
        for row in &mut rows {
            row.task = format!("{task}/{}", row.task);
        }
        if settings.inspect_task_key == InspectTaskKey::Auto {
            notes.push(format!(
                "{file}: written by an eval set (eval.eval_set_id), whose sample ids repeat across tasks: tasks are <task>/<sample id> (--inspect-task-key id keeps the ids)"
            ));
        }
    }
    Ok(Imported::entries(rows, notes))
}

/// A sample's epoch as Inspect writes it (a whole number from 1; absent in logs that ran one): any
/// other value is refused, since the epoch is the run (an epoch read as 1 would take another
/// epoch's place).
fn epoch_of(value: Option<&Value>) -> Result<u32, String> {
    let Some(value) = value else {
        return Ok(1);
    };
    value
        .as_u64()
        .and_then(|e| u32::try_from(e).ok())
        .filter(|&e| (1..=MOST_EPOCHS).contains(&e))
        .ok_or_else(|| {
            format!(
                "epoch {} is not a whole number from 1 to {MOST_EPOCHS}",
                super::json::shown(value)
            )
        })
}

/// The most epochs a log may plan or a sample may name: a task is read as one row per epoch, and
/// every planned epoch of a sample without a record becomes a not-attempted row, so a damaged
/// count (10^18 was cut to 2,808,348,672 and filled gigabytes with such rows) is refused.
const MOST_EPOCHS: u32 = 10_000;

/// The most (sample, epoch) runs one log may plan: samples × epochs, each a row.
const MOST_PLANNED_SAMPLE_RUNS: u64 = 1_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_follow_inspects_value_to_float() {
        let s = |v: Value| score(&v, None);
        assert_eq!(s(Value::from("C")), Ok(Some(1.0)));
        assert_eq!(s(Value::from("P")), Ok(Some(0.5)));
        assert_eq!(s(Value::from("N")), Ok(Some(0.0)));
        assert_eq!(s(Value::from("Yes")), Ok(Some(1.0)));
        assert_eq!(s(Value::from("0.25")), Ok(Some(0.25)));
        assert_eq!(s(Value::from(true)), Ok(Some(1.0)));
        assert_eq!(s(Value::from(8)), Ok(Some(8.0)));
        assert_eq!(s(Value::Null), Ok(None));
        assert!(s(Value::from("maybe")).is_err());
        assert!(s(serde_json::json!([1, 2])).is_err());
        let dict = serde_json::json!({"Problem Correctness": 1, "Step Correctness": 0.4});
        let message = score(&dict, None).unwrap_err();
        assert!(
            message.contains("keys: Problem Correctness, Step Correctness"),
            "{message}"
        );
        assert!(message.contains("--score-key"), "{message}");
        assert_eq!(score(&dict, Some("Step Correctness")), Ok(Some(0.4)));
        assert!(
            score(&dict, Some("Other"))
                .unwrap_err()
                .contains("without 'Other'")
        );
    }
}
