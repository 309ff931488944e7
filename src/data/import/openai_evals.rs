//! OpenAI Evals' record logs: `oaieval <completion_fn> <eval>` writes one JSON Lines file per run
//! (`--record_path`, by default `/tmp/evallogs/<run_id>_<completion_fn>_<eval>.jsonl`): a first
//! line `{"spec": …}` (`completion_fns`, `eval_name`, `base_eval`, `run_id`, `created_at`), then
//! the events of the samples, each `{run_id, event_id, sample_id, type, data, created_at}`
//! (`sampling`, `match` with `data.correct`, `metrics`, `error`, …), and a line
//! `{"final_report": …}`. The recorder writes events in batches (100 events or 10 s) from threads
//! that run samples at once, so events are in no sample order, and the final report is written
//! when the eval returns while the last batch is flushed at exit: it is often the second line, not
//! the last. Read as follows:
//!
//! - system: the first of `completion_fns` (the one under test; a model-graded eval's grader
//!   follows it, and is noted).
//! - task: `sample_id` (`<base_eval>.<split>.<index>`: the index is the sample's place in the
//!   eval's dataset, so runs of one eval share them); group: `base_eval`.
//! - run: a folder of logs numbers each (system, eval)'s runs by the spec's `created_at`, then
//!   `run_id`; a log given alone is run 0.
//! - outcome: the sample's `match` events' `correct` (their mean when one sample has several, as the
//!   eval's accuracy weighs them); without any `match` event in the log, its `metrics` events'
//!   `score` (a model-graded eval's); or `--metric KEY`: that key of the `metrics` events (numbers,
//!   booleans; `--score-scale MIN:MAX` maps a range onto [0, 1]).
//! - status: a sample with an `error` event is an error (outcome 0 when it has none); a sample
//!   logged without the outcome's event (or with a null score) is not attempted.
//! - The logs hold token counts, not dollars, and no per-sample duration: no cost or seconds.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, ImportSettings, Imported, RowStatus, counted, for_each_line};
use crate::data::error::LoadError;

/// The most keys a message lists of the `metrics` events.
const KEYS_NAMED: usize = 8;

/// Whether a JSON Lines line is an OpenAI Evals log's first: `{"spec": {completion_fns, eval_name, …}}`.
pub fn is_spec_line(object: &serde_json::Map<String, Value>) -> bool {
    object.len() == 1
        && object
            .get("spec")
            .and_then(Value::as_object)
            .is_some_and(|spec| {
                spec.get("completion_fns").is_some_and(Value::is_array)
                    && spec.contains_key("eval_name")
            })
}

/// A folder's `.jsonl` files, in path order.
fn jsonl_files(folder: &Path) -> Vec<PathBuf> {
    super::files_named(folder, |name| name.ends_with(".jsonl"))
}

/// Whether a file's first line is an OpenAI Evals spec line (read up to the first newline only).
fn starts_with_spec(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut line = Vec::new();
    std::io::BufReader::new(file)
        .read_until(b'\n', &mut line)
        .is_ok()
        && first_line_is_spec(&line)
}

/// Whether the first line of `bytes` is an OpenAI Evals spec line.
fn first_line_is_spec(bytes: &[u8]) -> bool {
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    serde_json::from_slice::<Value>(line)
        .ok()
        .and_then(|value| value.as_object().map(is_spec_line))
        .unwrap_or(false)
}

/// Whether a folder is a folder of OpenAI Evals logs (its first `.jsonl` file starts with a spec
/// line, as `/tmp/evallogs/` does): read as one result, so a system's runs of an eval are numbered
/// together.
pub fn is_logs_folder(folder: &Path) -> bool {
    folder.is_dir()
        && jsonl_files(folder)
            .first()
            .is_some_and(|first| starts_with_spec(first))
}

/// Every file of a logs folder whose change `watch` must see.
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    jsonl_files(folder)
}

/// What one sample's events showed.
#[derive(Default)]
struct Sample {
    /// The line and event id of its first event that carries the outcome (else of its first event).
    line: u64,
    event: String,
    outcome_line: Option<(u64, String)>,
    matches: u32,
    correct: f64,
    /// Values of the metric read (None: null).
    values: Vec<Option<f64>>,
    error: Option<String>,
}

/// Where a log's outcome comes from.
#[derive(Clone, Copy, PartialEq)]
enum Outcome<'a> {
    Match,
    Metric(&'a str),
}

/// One log, read.
struct Log {
    system: String,
    eval_name: String,
    created_at: String,
    run_id: String,
    rows: Vec<CanonicalRow>,
    lines: Vec<u64>,
    notes: Vec<String>,
}

/// Reads one log (`run`: its run number).
fn read_log(
    bytes: &[u8],
    file: &str,
    settings: &ImportSettings<'_>,
    run: u32,
) -> Result<Log, LoadError> {
    let at = |line: u64, what: String| LoadError::new(file, format!("line {line}: {what}"));
    let mut spec: Option<(u64, Value)> = None;
    let mut report: Option<Value> = None;
    let mut samples: HashMap<String, Sample> = HashMap::new();
    let mut metric_keys: BTreeMap<String, usize> = BTreeMap::new();
    let mut any_match = false;
    let mut other_lines = 0usize;
    let mut bad_value: Option<(u64, String)> = None;
    // The metric read from the `metrics` events: --metric, else `score` (used when no match event).
    let metric = settings.metric().unwrap_or("score");
    for_each_line(bytes, file, false, |number, value| {
        let Some(object) = value.as_object() else {
            return Err(format!("{value} is not a JSON object"));
        };
        if object.contains_key("spec") {
            if let Some((first, _)) = &spec {
                return Err(format!(
                    "a second spec (the first is line {first}): two runs in one file; each oaieval run writes its own"
                ));
            }
            spec = Some((number, object["spec"].clone()));
            return Ok(());
        }
        if let Some(final_report) = object.get("final_report") {
            report = Some(final_report.clone());
            return Ok(());
        }
        let (Some(kind), Some(sample_id)) = (object.get("type"), object.get("sample_id")) else {
            other_lines += 1;
            return Ok(());
        };
        let kind = kind
            .as_str()
            .ok_or_else(|| format!("the event's type is {kind}, not text"))?;
        let sample_id = match sample_id {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            other => return Err(format!("the event's sample_id is {other}")),
        };
        let event = object
            .get("event_id")
            .map(|id| id.to_string())
            .unwrap_or_else(|| "?".to_string());
        let data = object.get("data").unwrap_or(&Value::Null);
        let sample = samples.entry(sample_id).or_insert_with(|| Sample {
            line: number,
            event: event.clone(),
            ..Sample::default()
        });
        match kind {
            "match" => {
                let correct = match data.get("correct") {
                    Some(Value::Bool(b)) => *b,
                    other => {
                        return Err(format!(
                            "a match event's data.correct is {}",
                            super::value_or_missing(other)
                        ));
                    }
                };
                any_match = true;
                sample.matches += 1;
                sample.correct += f64::from(u8::from(correct));
                sample.outcome_line.get_or_insert((number, event));
            }
            "metrics" => {
                if let Some(data) = data.as_object() {
                    for key in data.keys() {
                        *metric_keys.entry(key.clone()).or_default() += 1;
                    }
                    if let Some(value) = data.get(metric) {
                        match super::metric_number(value) {
                            Ok(value) => {
                                sample.values.push(value);
                                sample.outcome_line.get_or_insert((number, event));
                            }
                            // A score that is no number matters only if it is the outcome (a log
                            // with match events reads those).
                            Err(why) => {
                                bad_value
                                    .get_or_insert((number, format!("metrics {metric}: {why}")));
                            }
                        }
                    }
                }
            }
            "error" => {
                // record_error writes the exception's type and message (not its msg argument).
                let part = |key: &str| data.get(key).and_then(Value::as_str).unwrap_or("");
                let message = match (part("type"), part("message")) {
                    ("", "") => "an error event".to_string(),
                    (kind, "") => kind.to_string(),
                    ("", message) => message.to_string(),
                    (kind, message) => format!("{kind}: {message}"),
                };
                sample.error.get_or_insert(message);
            }
            _ => {}
        }
        Ok(())
    })?;
    let Some((spec_line, spec)) = spec else {
        return Err(LoadError::new(
            file,
            "no spec line: an OpenAI Evals log starts with {\"spec\": …} naming its completion functions and eval",
        ));
    };
    let text = |key: &str| spec.get(key).and_then(Value::as_str).map(str::to_string);
    let completion_fns: Vec<String> = spec
        .get("completion_fns")
        .and_then(Value::as_array)
        .map(|fns| {
            fns.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let Some((system, others)) = completion_fns.split_first() else {
        return Err(at(
            spec_line,
            "the spec names no completion function (completion_fns is empty)".to_string(),
        ));
    };
    let eval_name =
        text("eval_name").ok_or_else(|| at(spec_line, "the spec has no eval_name".to_string()))?;
    let base_eval = text("base_eval").unwrap_or_else(|| {
        eval_name
            .split('.')
            .next()
            .unwrap_or(&eval_name)
            .to_string()
    });
    let run_id = text("run_id").unwrap_or_default();
    let outcome = match settings.metric() {
        Some(key) => Outcome::Metric(key),
        None if any_match => Outcome::Match,
        None => Outcome::Metric("score"),
    };
    if let (Outcome::Metric(_), Some((line, why))) = (outcome, bad_value) {
        return Err(at(line, why));
    }
    if let Outcome::Metric(key) = outcome
        && !metric_keys.contains_key(key)
    {
        let keys: Vec<&str> = metric_keys
            .keys()
            .take(KEYS_NAMED)
            .map(String::as_str)
            .collect();
        let why = if settings.metric().is_some() {
            format!("no metrics event has '{key}'")
        } else {
            "no match event, and no metrics event has a score".to_string()
        };
        return Err(LoadError::new(
            file,
            format!(
                "{why} (its metrics events have {}): name the key that is the outcome with --metric",
                if keys.is_empty() {
                    "none: the log has no metrics events".to_string()
                } else {
                    keys.join(", ")
                }
            ),
        ));
    }
    let mut ordered: Vec<(String, Sample)> = samples.into_iter().collect();
    ordered.sort_by_key(|(_, sample)| {
        sample
            .outcome_line
            .as_ref()
            .map_or(sample.line, |(line, _)| *line)
    });
    let mut rows = Vec::with_capacity(ordered.len());
    let mut lines = Vec::with_capacity(ordered.len());
    let (mut several, mut ungraded, mut errors, mut nulls) = (0usize, 0usize, 0usize, 0usize);
    let mut graded_sum = 0.0;
    let mut graded_count = 0usize;
    for (sample_id, sample) in ordered {
        let (line, event) = sample
            .outcome_line
            .clone()
            .unwrap_or((sample.line, sample.event.clone()));
        let mut value = match outcome {
            Outcome::Match if sample.matches > 0 => {
                several += usize::from(sample.matches > 1);
                graded_sum += sample.correct;
                graded_count += sample.matches as usize;
                Some(sample.correct / f64::from(sample.matches))
            }
            Outcome::Match => None,
            Outcome::Metric(key) => {
                several += usize::from(sample.values.len() > 1);
                let read: Vec<f64> = sample.values.iter().flatten().copied().collect();
                nulls += usize::from(!sample.values.is_empty() && read.is_empty());
                if read.is_empty() {
                    None
                } else {
                    graded_sum += read.iter().sum::<f64>();
                    graded_count += read.len();
                    let mean = read.iter().sum::<f64>() / read.len() as f64;
                    Some(
                        super::on_outcome_scale(
                            mean,
                            settings.score_scale(),
                            &format!("sample {sample_id}: metrics {key}"),
                        )
                        .map_err(|e| at(line, e))?,
                    )
                }
            }
        };
        let status = match (&sample.error, value) {
            (Some(_), _) => {
                errors += 1;
                value.get_or_insert(0.0);
                RowStatus::Error
            }
            (None, Some(_)) => RowStatus::Ok,
            (None, None) => {
                ungraded += 1;
                RowStatus::NotAttempted
            }
        };
        let mut source = format!("openai-evals run {run_id} event {event}");
        if let Some(message) = &sample.error {
            source.push_str(&format!(", error: {message}"));
        }
        rows.push(CanonicalRow {
            system: system.clone(),
            task: sample_id,
            run,
            outcome: value,
            status,
            group: Some(base_eval.clone()),
            cost_usd: None,
            seconds: None,
            source,
        });
        lines.push(line);
    }
    let mut read_as = match outcome {
        Outcome::Match => "each sample's match events' correct".to_string(),
        Outcome::Metric(key) => format!("the metrics events' {key}"),
    };
    if let (Outcome::Metric(_), Some((low, high))) = (outcome, settings.score_scale()) {
        read_as.push_str(&format!(", mapped from [{low}, {high}] onto [0, 1]"));
    }
    let mut notes = vec![format!(
        "{file}: OpenAI Evals run {run_id} of '{system}' on {eval_name} ({}); the outcome is {read_as}",
        counted(rows.len(), "sample", "samples")
    )];
    if !others.is_empty() {
        notes.push(format!(
            "{file}: the system is the first completion function, '{system}'; the run also named {} (a model-graded eval's grader)",
            others.join(", ")
        ));
    }
    let reported = match outcome {
        Outcome::Match => "accuracy",
        Outcome::Metric(key) => key,
    };
    match &report {
        None => notes.push(format!(
            "{file}: no final report: the run stopped before its end (it crashed, or is still running); the samples it logged are read, and those it never reached are not listed (the log does not name them)"
        )),
        Some(report) => {
            if let (Some(said), true) = (
                report.get(reported).and_then(Value::as_f64),
                graded_count > 0 && settings.score_scale().is_none(),
            ) {
                let mean = graded_sum / graded_count as f64;
                if (said - mean).abs() > 1e-9 {
                    notes.push(format!(
                        "{file}: its final report says {reported} {said}, but its events give {mean}: events are missing from the log"
                    ));
                }
            }
        }
    }
    if several > 0 {
        notes.push(format!(
            "{file}: {} more than one outcome event: their mean is the outcome",
            counted(several, "sample has", "samples have")
        ));
    }
    if ungraded > 0 {
        notes.push(format!(
            "{file}: {} logged without {}: not attempted",
            counted(ungraded, "sample was", "samples were"),
            if nulls > 0 {
                format!("a value ({nulls} with a null {reported})")
            } else {
                format!("its outcome's event ({reported})")
            }
        ));
    }
    if errors > 0 {
        notes.push(format!(
            "{file}: {} an error event: status error (outcome 0 where nothing was graded)",
            counted(errors, "sample has", "samples have")
        ));
    }
    if other_lines > 0 {
        notes.push(format!(
            "{file}: {} neither the spec, an event nor the final report: left out",
            counted(other_lines, "line is", "lines are")
        ));
    }
    Ok(Log {
        system: system.clone(),
        eval_name,
        created_at: text("created_at").unwrap_or_default(),
        run_id,
        rows,
        lines,
        notes,
    })
}

/// The rows of one log, given alone (run 0).
pub fn log_file(
    bytes: &[u8],
    file: &str,
    settings: &ImportSettings<'_>,
) -> Result<Imported, LoadError> {
    let log = read_log(bytes, file, settings, 0)?;
    Ok(Imported {
        rows: log.rows,
        notes: log.notes,
        lines: Some(log.lines),
    })
}

/// The rows of a folder of logs (every `.jsonl` file in it, each an OpenAI Evals log; a system's
/// runs of an eval numbered by the spec's `created_at`, then `run_id`), the bytes read (for the
/// content hash) and the name messages use.
pub fn logs_folder(
    folder: &Path,
    settings: &ImportSettings<'_>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = folder.display().to_string();
    let mut logs = Vec::new();
    let mut bytes = Vec::new();
    let mut cut = Vec::new();
    for path in jsonl_files(folder) {
        let file = path.display().to_string();
        let text = std::fs::read(&path)
            .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
        // The bytes are read already: their first line decides, not a second open of the file.
        if !first_line_is_spec(&text) {
            return Err(LoadError::new(
                &file,
                format!(
                    "not an OpenAI Evals log (its first line is not {{\"spec\": …}}), in a folder of them ({shown}): move it out, or give the logs one by one"
                ),
            ));
        }
        // Read as run 0 first: the numbers are given once every log's spec is known.
        let whole = super::without_cut_last_line(&text, &file, settings.live, false, &mut cut);
        logs.push((file.clone(), read_log(whole, &file, settings, 0)?));
        bytes.extend_from_slice(&text);
    }
    logs.sort_by(|(_, a), (_, b)| {
        (&a.system, &a.eval_name, &a.created_at, &a.run_id).cmp(&(
            &b.system,
            &b.eval_name,
            &b.created_at,
            &b.run_id,
        ))
    });
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut runs: HashMap<(String, String), u32> = HashMap::new();
    let mut run_ids: HashMap<String, String> = HashMap::new();
    let mut reruns = 0usize;
    for (file, log) in logs {
        if !log.run_id.is_empty()
            && let Some(first) = run_ids.insert(log.run_id.clone(), file.clone())
        {
            return Err(LoadError::new(
                &file,
                format!(
                    "run {} again (first in {first}): the same run twice; keep one copy",
                    log.run_id
                ),
            ));
        }
        let run = runs.entry((log.system, log.eval_name)).or_default();
        reruns += usize::from(*run > 0);
        rows.extend(
            log.rows
                .into_iter()
                .map(|row| CanonicalRow { run: *run, ..row }),
        );
        *run += 1;
        notes.extend(log.notes);
    }
    if reruns > 0 {
        notes.insert(
            0,
            format!(
                "{shown}: {} of a completion function on an eval read before: each (completion function, eval)'s runs numbered by the spec's created_at, then run_id",
                counted(reruns, "log is a rerun", "logs are reruns")
            ),
        );
    }
    notes.extend(cut);
    // Rows of several files: placed by their source (run id and event), not by a line number.
    Ok((Imported::entries(rows, notes), bytes, shown))
}
