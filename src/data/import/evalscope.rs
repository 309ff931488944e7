//! EvalScope's review files (ModelScope's evaluation framework, native backend): each
//! `evalscope eval` (or `run_task`) writes `<work_dir>/<YYYYMMDD_HHMMSS>/` with
//! `reviews/<model>/<benchmark>_<subset>.jsonl` (one line per scored sample: `index`, `target`,
//! `messages`, and `sample_score` = `{score: {value: {metric: number}, status, main_score_name, …},
//! sample_id, group_id, generation_index, …}`), `predictions/`, `reports/<model>/<benchmark>.json`
//! (with an `execution_summary` of the samples requested, succeeded and errored) and `configs/`.
//! Read as follows:
//!
//! - system: the model folder under `reviews/` (the model name EvalScope writes there); a review
//!   file given alone elsewhere: its assistant messages' `model`, else the file's name (noted).
//! - group: the file's `<benchmark>_<subset>`; task: `<benchmark>_<subset>/<group_id>` (the
//!   dataset sample; `sample_id`, then `index`, when there is no `group_id`).
//! - run: `generation_index` (`repeats` > 1 samples each question that often; EvalScope 1.0 to 1.10
//!   write none, and a question's repeats, one `group_id` under consecutive `sample_id`s, are its
//!   runs in `sample_id` order); a work folder of
//!   several invocations numbers each (model, task)'s runs by invocation time, then generation.
//!   While a benchmark has no report yet, a question with fewer scored samples than `repeats` is
//!   not attempted so far (the repeats to come would change its mean).
//! - outcome: the score's `main_score_name` value (else its first), or `--metric KEY` (numbers and
//!   booleans; `--score-scale MIN:MAX` maps a range onto [0, 1]).
//! - status: a score whose `status` is not usable (`transport_error`, `parse_error`,
//!   `invalid_session`, `excluded`: EvalScope drops the sample from the metric instead of scoring
//!   0) or that lacks the metric is not attempted; `fallback` and `degraded` scores count, noted.
//!   A sample whose model call failed under `ignore_errors` is written nowhere: the report's
//!   `execution_summary` counts them, and the note says how many are missing.
//! - seconds: the assistant messages' `perf_metrics.latency` summed (the model's time); no cost
//!   (EvalScope counts tokens).
//! - A sample (the same generation, or without one the same `sample_id`) scored twice in one file
//!   (a resumed run appends): the last line, as EvalScope's
//!   cache keeps it; noted.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, ImportSettings, Imported, RowStatus, counted, for_each_line};
use crate::data::error::LoadError;

const REVIEWS: &str = "reviews";
const REPORTS: &str = "reports";

/// Score statuses whose value enters EvalScope's aggregates (`ScoreStatus.is_usable`).
const USABLE: [&str; 3] = ["success", "fallback", "degraded"];

/// Whether a JSON Lines line is an EvalScope review: `index` and `sample_score.score`.
pub fn is_review_line(object: &serde_json::Map<String, Value>) -> bool {
    object.contains_key("index")
        && object
            .get("sample_score")
            .and_then(|s| s.get("score"))
            .is_some_and(Value::is_object)
}

/// Whether a folder is one invocation's output folder (it has `reviews/` of model folders).
fn is_invocation(folder: &Path) -> bool {
    let reviews = folder.join(REVIEWS);
    reviews.is_dir()
        && super::subfolders(&reviews)
            .iter()
            .any(|model| !review_files_in(model).is_empty())
}

/// A model folder's review files, in path order.
fn review_files_in(model: &Path) -> Vec<PathBuf> {
    super::files_named(model, |name| name.ends_with(".jsonl"))
}

/// The invocations a folder holds: itself, or its subfolders that are (EvalScope's `work_dir`).
fn invocations(folder: &Path) -> Vec<PathBuf> {
    if is_invocation(folder) {
        return vec![folder.to_path_buf()];
    }
    super::subfolders(folder)
        .into_iter()
        .filter(|sub| is_invocation(sub))
        .collect()
}

/// Whether a folder is EvalScope output (one invocation's folder, or a work folder of them): read
/// as one result.
pub fn is_outputs(folder: &Path) -> bool {
    folder.is_dir() && !invocations(folder).is_empty()
}

/// Every review file of an output folder, as (invocation, model, file).
fn review_files(folder: &Path) -> Vec<(PathBuf, String, PathBuf)> {
    let mut files = Vec::new();
    for invocation in invocations(folder) {
        for model in super::subfolders(&invocation.join(REVIEWS)) {
            let name = model
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            for file in review_files_in(&model) {
                files.push((invocation.clone(), name.clone(), file));
            }
        }
    }
    files
}

/// Every file of an output folder whose change `watch` must see (reviews and reports).
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = review_files(folder)
        .into_iter()
        .map(|(_, _, f)| f)
        .collect();
    for invocation in invocations(folder) {
        for model in super::subfolders(&invocation.join(REPORTS)) {
            files.extend(super::files_named(&model, |name| name.ends_with(".json")));
        }
    }
    files
}

/// What one file gave, with counts for the notes.
#[derive(Default)]
struct Read {
    rows: Vec<CanonicalRow>,
    lines: Vec<u64>,
    /// Per row, the generation it is (for numbering runs across invocations).
    generations: Vec<u32>,
    unusable: BTreeMap<String, usize>,
    counted_anyway: BTreeMap<String, usize>,
    missing_metric: usize,
    again: usize,
    /// The keys the scores' values have (for the message when `--metric` names none of them).
    keys: std::collections::BTreeSet<String>,
}

impl Read {
    /// Refuses a `--metric` that no score has, naming the keys they have.
    fn check_metric(&self, shown: &str, metric: Option<&str>) -> Result<(), LoadError> {
        match metric {
            Some(wanted) if !self.keys.contains(wanted) => Err(LoadError::new(
                shown,
                format!(
                    "no score has '{wanted}' (their values have {})",
                    self.keys.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// Reads one review file of `system` (its rows' group is `stem`).
fn read_file(
    bytes: &[u8],
    file: &str,
    stem: &str,
    system: &str,
    settings: &ImportSettings<'_>,
    read: &mut Read,
) -> Result<(), LoadError> {
    // A line is a (question, generation): keyed by its generation_index, or, in the releases that
    // write none (EvalScope 1.0 to 1.10: `repeats` copies a question under consecutive sample_ids
    // sharing its group_id), by its sample_id, numbered into runs once the file is read.
    let mut seen: HashMap<(String, Generation), usize> = HashMap::new();
    let mut unnumbered: Vec<(usize, String, SampleOrder)> = Vec::new();
    for_each_line(bytes, file, false, |number_of_line, line| {
        let sample = line
            .get("sample_score")
            .ok_or_else(|| "no sample_score".to_string())?;
        let score = sample
            .get("score")
            .ok_or_else(|| "sample_score has no score".to_string())?;
        let id = ["group_id", "sample_id"]
            .iter()
            .find_map(|key| match sample.get(*key) {
                Some(Value::Number(n)) => Some(n.to_string()),
                Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                _ => None,
            })
            .or_else(|| line.get("index").map(Value::to_string))
            .ok_or_else(|| "no group_id, sample_id or index".to_string())?;
        let generation_index = sample
            .get("generation_index")
            .and_then(Value::as_u64)
            .map(|g| g as u32);
        let sample_id = sample
            .get("sample_id")
            .filter(|_| sample.get("group_id").is_some());
        let generation = match (generation_index, sample_id) {
            (Some(g), _) => Generation::Index(g),
            (None, Some(id)) => Generation::Sample(SampleOrder::of(id)),
            (None, None) => Generation::Index(0),
        };
        let values = score.get("value").and_then(Value::as_object);
        // The keys are only for the message when --metric names none of them.
        if let Some(wanted) = settings.metric()
            && !read.keys.contains(wanted)
        {
            read.keys
                .extend(values.into_iter().flat_map(|v| v.keys().cloned()));
        }
        let key = settings.metric().map(str::to_string).or_else(|| {
            score
                .get("main_score_name")
                .and_then(Value::as_str)
                .filter(|name| values.is_some_and(|v| v.contains_key(*name)))
                .map(str::to_string)
                .or_else(|| values.and_then(|v| v.keys().next().cloned()))
        });
        let status = score
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("success")
            .to_string();
        let raw = key.as_deref().and_then(|k| values.and_then(|v| v.get(k)));
        let mut outcome = match raw {
            Some(value) => super::metric_number(value)
                .map_err(|e| format!("score {}: {e}", key.as_deref().unwrap_or_default()))?,
            None => None,
        };
        if let Some(value) = outcome {
            let what = format!("score {}", key.as_deref().unwrap_or_default());
            outcome = Some(super::on_outcome_scale(
                value,
                settings.score_scale(),
                &what,
            )?);
        }
        let usable = USABLE.contains(&status.as_str());
        let row_status = if !usable {
            *read.unusable.entry(status.clone()).or_default() += 1;
            outcome = None;
            RowStatus::NotAttempted
        } else if outcome.is_none() {
            read.missing_metric += 1;
            RowStatus::NotAttempted
        } else {
            if status != "success" {
                *read.counted_anyway.entry(status.clone()).or_default() += 1;
            }
            RowStatus::Ok
        };
        let latency: f64 = line
            .get("messages")
            .and_then(Value::as_array)
            .map(|messages| {
                messages
                    .iter()
                    .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
                    .filter_map(|m| m.get("perf_metrics")?.get("latency")?.as_f64())
                    .sum()
            })
            .unwrap_or(0.0);
        let mut source = format!("evalscope {stem} line {number_of_line}");
        if status != "success" {
            source.push_str(&format!(", status {status}"));
        }
        let row = CanonicalRow {
            system: system.to_string(),
            task: format!("{stem}/{id}"),
            run: generation_index.unwrap_or(0),
            outcome,
            status: row_status,
            group: Some(stem.to_string()),
            cost_usd: None,
            seconds: (latency > 0.0).then_some(latency),
            source,
        };
        match seen.get(&(id.clone(), generation.clone())) {
            Some(&index) => {
                read.rows[index] = row;
                read.lines[index] = number_of_line;
                read.again += 1;
            }
            None => {
                if let Generation::Sample(order) = &generation {
                    unnumbered.push((read.rows.len(), id.clone(), order.clone()));
                }
                seen.insert((id, generation), read.rows.len());
                read.generations.push(row.run);
                read.rows.push(row);
                read.lines.push(number_of_line);
            }
        }
        Ok(())
    })?;
    // A question's repeats without generation_index: runs 0, 1, … in sample_id order (the order
    // EvalScope gave them), whatever order the concurrent reviews were written in.
    unnumbered.sort_by(|a, b| (&a.1, &a.2).cmp(&(&b.1, &b.2)));
    let mut previous: Option<&str> = None;
    let mut run = 0u32;
    for (index, question, _) in &unnumbered {
        run = if previous == Some(question.as_str()) {
            run + 1
        } else {
            0
        };
        previous = Some(question);
        read.rows[*index].run = run;
        read.generations[*index] = run;
    }
    Ok(())
}

/// What tells a question's generations apart: EvalScope's generation_index, or (releases without
/// it) the sample_id of each repeat.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Generation {
    Index(u32),
    Sample(SampleOrder),
}

/// A sample_id as it sorts: numbers by value, before any text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum SampleOrder {
    Number(u64),
    Text(String),
}

impl SampleOrder {
    fn of(id: &Value) -> SampleOrder {
        match id {
            Value::Number(n) => n
                .as_u64()
                .map_or_else(|| SampleOrder::Text(n.to_string()), SampleOrder::Number),
            Value::String(s) => SampleOrder::Text(s.clone()),
            other => SampleOrder::Text(other.to_string()),
        }
    }
}

/// The notes of a read (`shown`: the file or folder).
fn notes(shown: &str, read: &Read, metric: Option<&str>) -> Vec<String> {
    let mut notes = vec![format!(
        "{shown}: EvalScope reviews ({}); the outcome is {}",
        counted(read.rows.len(), "scored sample", "scored samples"),
        metric.map_or(
            "each score's main value (main_score_name)".to_string(),
            |m| { format!("each score's '{m}'") }
        )
    )];
    let listed = |counts: &BTreeMap<String, usize>| {
        counts
            .iter()
            .map(|(status, n)| format!("{n} {status}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !read.unusable.is_empty() {
        notes.push(format!(
            "{shown}: scores EvalScope leaves out of its metrics ({}): not attempted",
            listed(&read.unusable)
        ));
    }
    if !read.counted_anyway.is_empty() {
        notes.push(format!(
            "{shown}: scores EvalScope counts though not a plain success ({}): kept",
            listed(&read.counted_anyway)
        ));
    }
    if read.missing_metric > 0 {
        notes.push(format!(
            "{shown}: {} no value for the metric: not attempted",
            counted(read.missing_metric, "score has", "scores have")
        ));
    }
    if read.again > 0 {
        notes.push(format!(
            "{shown}: {} again (a resumed run appends): the last line counts, as EvalScope's cache keeps it",
            counted(read.again, "sample was scored", "samples were scored")
        ));
    }
    notes
}

/// The system of a review file given alone: its model folder under `reviews/`, else the model
/// its assistant messages name, else the file's name; and where the name came from.
fn system_of_file(path: &Path, bytes: &[u8]) -> (String, &'static str) {
    let parent = path.parent();
    if let Some(model) = parent.and_then(Path::file_name)
        && parent
            .and_then(Path::parent)
            .and_then(Path::file_name)
            .is_some_and(|n| n == REVIEWS)
    {
        return (model.to_string_lossy().into_owned(), "model folder");
    }
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let named = serde_json::from_slice::<Value>(first)
        .ok()
        .and_then(|line| {
            line.get("messages")?
                .as_array()?
                .iter()
                .find_map(|m| m.get("model")?.as_str().map(str::to_string))
        });
    match named {
        Some(model) => (model, "assistant messages' model"),
        None => (
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            "file name",
        ),
    }
}

fn stem_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The rows of one review file given alone.
pub fn review_file(
    bytes: &[u8],
    path: &Path,
    file: &str,
    settings: &ImportSettings<'_>,
) -> Result<Imported, LoadError> {
    let (system, by) = system_of_file(path, bytes);
    let mut read = Read::default();
    read_file(bytes, file, &stem_of(path), &system, settings, &mut read)?;
    read.check_metric(file, settings.metric())?;
    let mut notes = notes(file, &read, settings.metric());
    notes.push(format!("{file}: system '{system}' (its {by})"));
    Ok(Imported {
        rows: read.rows,
        notes,
        lines: Some(read.lines),
    })
}

/// The repeats each sample of a review file is still to get, when its benchmark has no report
/// yet: EvalScope appends a review line as each sample is scored, in the order they finish, and
/// writes `reports/<model>/<benchmark>.json` when the benchmark is done; `repeats` (top level of
/// `configs/task_config.yaml`) samples each question that often. None when the benchmark is
/// done, or each question is sampled once; Err(why) when `repeats` is there and no whole number.
fn repeats_to_come(invocation: &Path, model: &str, review: &Path) -> Result<Option<u64>, String> {
    let stem = stem_of(review);
    let reported = super::files_named(&invocation.join(REPORTS).join(model), |name| {
        name.strip_suffix(".json").is_some_and(|benchmark| {
            stem == benchmark || stem.starts_with(&format!("{benchmark}_"))
        })
    });
    if !reported.is_empty() {
        return Ok(None);
    }
    let Ok(config) = std::fs::read_to_string(invocation.join("configs/task_config.yaml")) else {
        return Ok(None);
    };
    match config
        .lines()
        .find_map(|line| line.strip_prefix("repeats:"))
    {
        None => Ok(None),
        Some(text) => match text.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Some(n).filter(|&n| n > 1)),
            _ => Err(format!(
                "gives repeats '{}', not a whole number ≥ 1",
                text.trim()
            )),
        },
    }
}

/// The samples a report's `execution_summary` counts as errored (written nowhere), per subset.
fn errored_in_report(report: &Path) -> Option<(u64, String)> {
    let value: Value = serde_json::from_slice(&std::fs::read(report).ok()?).ok()?;
    let summary = value.get("execution_summary")?;
    let errored = summary.get("errored")?.as_u64()?;
    if errored == 0 {
        return None;
    }
    let subsets: Vec<String> = summary
        .get("subsets")
        .and_then(Value::as_object)
        .map(|subsets| {
            subsets
                .iter()
                .filter_map(|(name, s)| {
                    let n = s.get("errored")?.as_u64()?;
                    (n > 0).then(|| format!("{name} {n}"))
                })
                .collect()
        })
        .unwrap_or_default();
    Some((errored, subsets.join(", ")))
}

/// The rows of an output folder (one invocation, or a work folder of them), the bytes read (for
/// the content hash) and the name messages use.
pub fn outputs(
    folder: &Path,
    settings: &ImportSettings<'_>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = folder.display().to_string();
    let mut read = Read::default();
    // Per row: its invocation's place in time order (the folders are named by time).
    let mut invocation_of = Vec::new();
    let mut bytes = Vec::new();
    let mut held_notes = Vec::new();
    let files = review_files(folder);
    let mut invocation_names: Vec<&PathBuf> = files.iter().map(|(i, _, _)| i).collect();
    invocation_names.sort();
    invocation_names.dedup();
    for (invocation, model, path) in &files {
        let file = path.display().to_string();
        let text = std::fs::read(path)
            .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
        let before = read.rows.len();
        let whole =
            super::without_cut_last_line(&text, &file, settings.live, false, &mut held_notes);
        read_file(whole, &file, &stem_of(path), model, settings, &mut read)?;
        let repeats = repeats_to_come(invocation, model, path).unwrap_or_else(|why| {
            let config = invocation.join("configs/task_config.yaml");
            let whose = format!("{file}: no report for it yet, and {}", config.display());
            held_notes.push(super::unread_plan(&whose, &why));
            None
        });
        if let Some(repeats) = repeats {
            let (held, tasks) =
                super::hold_tasks_short_of(&mut read.rows[before..], repeats, "repeats");
            if held > 0 {
                held_notes.push(format!(
                    "{file}: no report for it yet (its review phase is going, or stopped): {} of {} with fewer than the {repeats} repeats planned {} not attempted so far (a task's outcome is the mean of its repeats)",
                    counted(held, "scored sample", "scored samples"),
                    counted(tasks, "task", "tasks"),
                    if held == 1 { "is" } else { "are" }
                ));
            }
        }
        let place = invocation_names
            .iter()
            .position(|name| *name == invocation)
            .unwrap_or(0);
        invocation_of.extend(std::iter::repeat_n(place, read.rows.len() - before));
        bytes.extend_from_slice(&text);
    }
    read.check_metric(&shown, settings.metric())?;
    let mut notes = notes(&shown, &read, settings.metric());
    notes.extend(held_notes);
    if invocation_names.len() > 1 {
        // Runs of a (model, task) in time order: invocation, then generation.
        let mut order: Vec<usize> = (0..read.rows.len()).collect();
        order.sort_by(|&a, &b| {
            let (ra, rb) = (&read.rows[a], &read.rows[b]);
            (&ra.system, &ra.task, invocation_of[a], read.generations[a]).cmp(&(
                &rb.system,
                &rb.task,
                invocation_of[b],
                read.generations[b],
            ))
        });
        let mut previous: Option<(String, String)> = None;
        let mut run = 0u32;
        for index in order {
            let key = (
                read.rows[index].system.clone(),
                read.rows[index].task.clone(),
            );
            run = if previous.as_ref() == Some(&key) {
                run + 1
            } else {
                0
            };
            previous = Some(key);
            read.rows[index].run = run;
        }
        notes.push(format!(
            "{shown}: {} invocations: each (model, task)'s runs numbered by invocation (folder time), then generation",
            invocation_names.len()
        ));
    }
    for invocation in &invocation_names {
        for model in super::subfolders(&invocation.join(REPORTS)) {
            for report in super::files_named(&model, |name| name.ends_with(".json")) {
                if let Some((errored, subsets)) = errored_in_report(&report) {
                    notes.push(format!(
                        "{}: {} errored ({subsets}) under ignore_errors: EvalScope wrote no review for {}, so {} not listed",
                        report.display(),
                        counted(errored as usize, "sample", "samples"),
                        if errored == 1 { "it" } else { "them" },
                        if errored == 1 { "it is" } else { "they are" }
                    ));
                }
            }
        }
    }
    Ok((Imported::entries(read.rows, notes), bytes, shown))
}
