//! promptfoo's eval results: `promptfoo eval -o results.json` (and `promptfoo export`) write
//! `{evalId, results: {version: 3, results: [...], prompts: [...], stats}, config, metadata}`;
//! `-o results.jsonl` writes the same results one a line. Each result is one call of one provider
//! with one prompt on one test case: `provider` (`id`, `label`), `prompt` (`label`), `vars`,
//! `testCase` (`description`, `vars`, `metadata`), `testIdx`, `promptIdx`, `success`, `score`,
//! `failureReason` (0 none, 1 an assertion failed, 2 an error), `error`, `latencyMs`, `cost`.
//! Read as follows:
//!
//! - system: the provider's `label`, else its `id`; a provider run with several prompts is a system
//!   per prompt (`<provider> · <prompt label>`), as promptfoo's table gives each its column.
//! - task: the test case. `testIdx` is not: promptfoo numbers a row per test, repeat
//!   (`--repeat N`) and combination of list-valued vars, so a task is the test's `description`
//!   (with its `vars` where two tests share a description), else its `vars`.
//! - run: a (system, task)'s results in `testIdx` order (the repeats).
//! - outcome: `success` (promptfoo's pass: every assertion passed), or `--metric score`: the
//!   weighted assertion score, when in [0, 1].
//! - status: `failureReason` 2 (the provider or a grader raised) → error with outcome 0, as
//!   promptfoo counts it not passed; an assertion failure (1) is a plain 0, though promptfoo writes
//!   its reason in `error` too.
//! - group: the test's `metadata` `group`, else `category`, else `pluginId` (red teaming's plugin),
//!   named in a note; cost: `cost` (USD); seconds: `latencyMs` / 1000 (none for a cached response).
//!
//! Version 2 outputs (promptfoo before mid-2024: `{results: {version: 2, results, stats, table},
//! config, shareableUrl}`) have neither `testIdx` nor `testCase` in their results, and keep a result's
//! test only in the `table`: a row per test (and repeat, and combination of list-valued vars), with
//! the test (`description`, `vars`, `metadata`) and an output per column (`pass`, `score`,
//! `gradingResult`, `latencyMs`, `cost`), the columns being each prompt × provider
//! (`head.prompts[*].provider`, its label or id). They are read from the table: a row's place is its
//! run order, a failed output without a grading result is the provider's error, and columns whose
//! provider kept no label (a `file://` provider's label was dropped then) take the labels of the
//! output's `config.providers`, in the writer's column order (each prompt, then each provider).
//!
//! A red-teaming eval writes tens of thousands of results with their prompts and responses: the
//! results are read into typed records of the fields above only, so memory follows the results,
//! not the JSON (an output is recognised by its first key, `evalId`, before it is parsed).

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny};
use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, value_or_missing};
use crate::data::error::LoadError;

/// The metadata keys a test's group is taken from, in order.
const GROUP_KEYS: [&str; 3] = ["group", "category", "pluginId"];

/// The failure reason promptfoo gives a result whose provider or grader raised.
const FAILURE_ERROR: u64 = 2;

/// Whether one result (a JSON Lines line, or an entry) is promptfoo's.
pub fn is_result(object: &serde_json::Map<String, Value>) -> bool {
    ["testIdx", "promptIdx", "provider", "success"]
        .iter()
        .all(|key| object.contains_key(*key))
}

/// Whether a JSON file is promptfoo's output (`results.results` of results, or version 2's
/// `results.table` beside them).
pub fn is_output(object: &serde_json::Map<String, Value>) -> bool {
    let results = object.get("results");
    let version_2 = results
        .and_then(|r| r.get("version"))
        .and_then(Value::as_u64)
        == Some(2)
        && results
            .and_then(|r| r.get("table"))
            .and_then(|t| t.get("head"))
            .is_some();
    version_2 || is_results_output(object)
}

/// Whether `results.results` holds promptfoo's results (or none).
fn is_results_output(object: &serde_json::Map<String, Value>) -> bool {
    object
        .get("results")
        .and_then(|r| r.get("results"))
        .and_then(Value::as_array)
        .is_some_and(|results| {
            results
                .first()
                .and_then(Value::as_object)
                .is_none_or(is_result)
        })
}

/// Whether a file starts as promptfoo's output does (`{"evalId": …`, its first key): such a file is
/// read into typed records at once, never whole into JSON values.
pub fn looks_like_output(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 256];
    let Ok(read) = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)) else {
        return false;
    };
    let text = String::from_utf8_lossy(&head[..read]);
    text.trim_start()
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with("\"evalId\""))
}

/// promptfoo's output file, as far as it is read.
#[derive(Deserialize)]
struct Output {
    results: OutputResults,
    config: Option<Config>,
}

#[derive(Deserialize)]
struct OutputResults {
    version: Option<u64>,
    results: Vec<Record>,
    /// Version 2's table (later versions write none).
    table: Option<Table>,
}

/// The eval's configuration, as far as version 2's columns need it.
#[derive(Deserialize)]
struct Config {
    providers: Option<Value>,
}

/// Version 2's table: a column per prompt × provider, a row per test (and repeat).
#[derive(Deserialize)]
struct Table {
    head: TableHead,
    body: Vec<TableRow>,
}

#[derive(Deserialize)]
struct TableHead {
    prompts: Vec<TableColumn>,
}

#[derive(Deserialize)]
struct TableColumn {
    provider: Option<String>,
    label: Option<String>,
    display: Option<String>,
}

#[derive(Deserialize)]
struct TableRow {
    test: Option<TestCase>,
    outputs: Vec<Option<TableOutput>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TableOutput {
    pass: Option<bool>,
    score: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    grading_result: bool,
    latency_ms: Option<f64>,
    cost: Option<f64>,
}

/// One result, as far as it is read (its prompt text, response and grading are skipped).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    provider: Option<Provider>,
    prompt: Option<PromptLabel>,
    vars: Option<Value>,
    test_case: Option<TestCase>,
    test_idx: Option<u64>,
    success: Option<Value>,
    score: Option<Value>,
    failure_reason: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    error: bool,
    #[serde(default, deserialize_with = "present")]
    grading_result: bool,
    latency_ms: Option<f64>,
    cost: Option<f64>,
    response: Option<Response>,
}

/// A provider: its id alone (older files), or its id and label.
#[derive(Deserialize)]
#[serde(untagged)]
enum Provider {
    Id(String),
    Labelled {
        id: Option<String>,
        label: Option<String>,
    },
}

#[derive(Deserialize)]
struct PromptLabel {
    label: Option<String>,
}

#[derive(Deserialize, Clone)]
struct TestCase {
    description: Option<String>,
    vars: Option<Value>,
    metadata: Option<serde_json::Map<String, Value>>,
}

#[derive(Deserialize)]
struct Response {
    cached: Option<bool>,
}

/// Whether a field holds something other than null (its value skipped unparsed).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    Ok(Option::<IgnoredAny>::deserialize(deserializer)?.is_some())
}

/// The rows of promptfoo's output file (`-o results.json`, or `promptfoo export`).
pub fn output(bytes: &[u8], file: &str, metric: Option<&str>) -> Result<Imported, LoadError> {
    let output: Output = serde_json::from_slice(bytes).map_err(|e| {
        LoadError::new(
            file,
            format!(
                "not promptfoo's output (results.results of results): {e} (line {}, column {})",
                e.line(),
                e.column()
            ),
        )
    })?;
    if output.results.version == Some(2)
        && let Some(table) = output.results.table
    {
        let providers = output.config.and_then(|c| c.providers);
        let (results, columns_note) = table_records(table, providers.as_ref(), file)?;
        let mut imported = rows(results, file, metric, Place::TableRow)?;
        imported.notes.extend(columns_note);
        return Ok(imported);
    }
    let results: Vec<(u64, Record)> = output
        .results
        .results
        .into_iter()
        .enumerate()
        .map(|(i, r)| (i as u64 + 1, r))
        .collect();
    rows(results, file, metric, Place::Result)
}

/// The names of version 2's columns: each column's provider (label or id), and where two columns
/// of one prompt share it, the labels of `config.providers` in the writer's column order (every
/// provider for each prompt), else a number; with a note saying which.
fn column_systems(
    columns: &[TableColumn],
    providers: Option<&Value>,
    file: &str,
) -> (Vec<(String, String)>, Option<String>) {
    let prompt_of = |c: &TableColumn| {
        c.label
            .clone()
            .or_else(|| c.display.clone())
            .unwrap_or_default()
    };
    let mut named: Vec<(String, String)> = columns
        .iter()
        .map(|c| (c.provider.clone().unwrap_or_default(), prompt_of(c)))
        .collect();
    let shared = |named: &[(String, String)]| {
        named
            .iter()
            .enumerate()
            .any(|(i, n)| named[..i].contains(n))
    };
    if !shared(&named) {
        return (named, None);
    }
    let labels: Vec<Option<String>> = providers
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|p| text(p.get("label")))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if !labels.is_empty()
        && columns.len().is_multiple_of(labels.len())
        && labels.iter().all(Option::is_some)
    {
        let relabelled: Vec<(String, String)> = named
            .iter()
            .enumerate()
            .map(|(c, (_, prompt))| {
                let label = labels[c % labels.len()].clone().unwrap_or_default();
                (label, prompt.clone())
            })
            .collect();
        if !shared(&relabelled) {
            return (
                relabelled,
                Some(format!(
                    "{file}: its columns name no provider labels (their providers share an id); the systems are config.providers' labels in promptfoo's column order"
                )),
            );
        }
    }
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for name in &mut named {
        let count = seen.entry(name.clone()).or_default();
        *count += 1;
        if *count > 1 {
            name.0 = format!("{} #{count}", name.0);
        }
    }
    (
        named,
        Some(format!(
            "{file}: columns share a provider and a prompt, and config.providers does not tell them apart: later columns are numbered (#2, …)"
        )),
    )
}

/// Version 2's results read from its table, numbered by row, and a note on the columns' names.
type TableResults = (Vec<(u64, Record)>, Option<String>);

/// Version 2's table as results: a result per row and column, the row's place its testIdx.
fn table_records(
    table: Table,
    providers: Option<&Value>,
    file: &str,
) -> Result<TableResults, LoadError> {
    let (systems, note) = column_systems(&table.head.prompts, providers, file);
    let mut results = Vec::new();
    for (row_index, row) in table.body.into_iter().enumerate() {
        let number = row_index as u64 + 1;
        if row.outputs.len() != systems.len() {
            return Err(LoadError::new(
                file,
                format!(
                    "table row {number}: {} outputs for {} columns",
                    row.outputs.len(),
                    systems.len()
                ),
            ));
        }
        for (output, (system, prompt)) in row.outputs.into_iter().zip(&systems) {
            // A column this row was not run with (promptfoo's providerPromptMap) has no output.
            let Some(output) = output else { continue };
            results.push((
                number,
                Record {
                    provider: Some(Provider::Labelled {
                        id: None,
                        label: Some(system.clone()),
                    }),
                    prompt: Some(PromptLabel {
                        label: Some(prompt.clone()),
                    }),
                    vars: row.test.as_ref().and_then(|t| t.vars.clone()),
                    test_case: row.test.clone(),
                    test_idx: Some(row_index as u64),
                    success: output.pass.map(Value::Bool),
                    score: output.score,
                    failure_reason: None,
                    // A failed output with no grading result: the provider raised.
                    error: output.pass == Some(false),
                    grading_result: output.grading_result,
                    latency_ms: output.latency_ms,
                    cost: output.cost,
                    response: None,
                },
            ));
        }
    }
    Ok((results, note))
}

/// The rows of promptfoo's JSON Lines output (`-o results.jsonl`, a result a line).
pub fn lines(bytes: &[u8], file: &str, metric: Option<&str>) -> Result<Imported, LoadError> {
    let mut results = Vec::new();
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let number = index as u64 + 1;
        let record: Record = serde_json::from_slice(line).map_err(|e| {
            LoadError::new(
                file,
                format!(
                    "line {number}: not a promptfoo result: {e} (column {})",
                    e.column()
                ),
            )
        })?;
        results.push((number, record));
    }
    rows(results, file, metric, Place::Line)
}

/// What a result's number counts: a line of a JSON Lines file, an entry of `results.results`, or
/// a row of version 2's table.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Line,
    Result,
    TableRow,
}

/// A text field, or a number written as text.
fn text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// One result, read; its task name and run are given once every result is in.
struct Read {
    system: String,
    provider: String,
    prompt: String,
    description: Option<String>,
    vars: String,
    test_idx: u64,
    outcome: f64,
    error: bool,
    group: Option<(String, &'static str)>,
    cost: Option<f64>,
    seconds: Option<f64>,
}

/// The rows of promptfoo's results (each with its line, entry or table row number from 1).
fn rows(
    results: Vec<(u64, Record)>,
    file: &str,
    metric: Option<&str>,
    place: Place,
) -> Result<Imported, LoadError> {
    let metric = metric.unwrap_or("success");
    if !matches!(metric, "success" | "score") {
        return Err(LoadError::new(
            file,
            format!("--metric {metric}: promptfoo's outcomes are success (the default) or score"),
        ));
    }
    let lines = place == Place::Line;
    let place_name = match place {
        Place::Line => "line",
        Place::Result => "result",
        Place::TableRow => "table row",
    };
    let numbers: Vec<u64> = results.iter().map(|(n, _)| *n).collect();
    let mut read = Vec::with_capacity(results.len());
    for (number, result) in results {
        let at = |what: String| LoadError::new(file, format!("{place_name} {number}: {what}"));
        let provider = match result.provider {
            Some(Provider::Id(id)) => Some(id).filter(|id| !id.is_empty()),
            Some(Provider::Labelled { id, label }) => label
                .filter(|l| !l.is_empty())
                .or(id.filter(|i| !i.is_empty())),
            None => None,
        }
        .ok_or_else(|| at("no provider label or id".to_string()))?;
        let prompt = result.prompt.and_then(|p| p.label).unwrap_or_default();
        let (description, test_vars, metadata) = match result.test_case {
            Some(test) => (
                test.description.filter(|d| !d.is_empty()),
                test.vars,
                test.metadata,
            ),
            None => (None, None, None),
        };
        let vars = result
            .vars
            .or(test_vars)
            .map(|v| v.to_string())
            .unwrap_or_else(|| "{}".to_string());
        let test_idx = result
            .test_idx
            .ok_or_else(|| at("no testIdx".to_string()))?;
        let failure = result.failure_reason;
        // Before failureReason (2024), an error without a grading result was the provider's.
        let error = failure == Some(FAILURE_ERROR)
            || (failure.is_none() && result.error && !result.grading_result);
        let outcome = if metric == "score" && !error {
            let score = result
                .score
                .as_ref()
                .and_then(Value::as_f64)
                .ok_or_else(|| {
                    at(format!(
                        "score is {}",
                        value_or_missing(result.score.as_ref())
                    ))
                })?;
            if !(0.0..=1.0).contains(&score) {
                return Err(at(format!(
                    "score is {score}, outside [0, 1] (assertion weights can take it there): read success instead"
                )));
            }
            score
        } else {
            match result.success {
                Some(Value::Bool(true)) => 1.0,
                Some(Value::Bool(false)) => 0.0,
                other => {
                    return Err(at(format!(
                        "success is {}",
                        value_or_missing(other.as_ref())
                    )));
                }
            }
        };
        let group = GROUP_KEYS
            .iter()
            .find_map(|&key| text(metadata.as_ref().and_then(|m| m.get(key))).map(|g| (g, key)));
        let cached = result.response.and_then(|r| r.cached).unwrap_or(false);
        let seconds = result.latency_ms.filter(|_| !cached).map(|ms| ms / 1000.0);
        let cost = result.cost;
        read.push(Read {
            system: provider.clone(),
            provider,
            prompt,
            description,
            vars,
            test_idx,
            outcome,
            error,
            group,
            cost,
            seconds,
        });
    }
    // A provider run with several prompts: a system per prompt.
    let mut prompts: HashMap<&str, Vec<&str>> = HashMap::new();
    for r in &read {
        let seen = prompts.entry(r.provider.as_str()).or_default();
        if !seen.contains(&r.prompt.as_str()) {
            seen.push(r.prompt.as_str());
        }
    }
    let several: Vec<String> = prompts
        .iter()
        .filter(|(_, p)| p.len() > 1)
        .map(|(provider, _)| provider.to_string())
        .collect();
    for r in &mut read {
        if several.contains(&r.provider) {
            r.system = format!("{} · {}", r.provider, r.prompt);
        }
    }
    // A task per test: its description, with its vars where descriptions repeat.
    let mut vars_of: HashMap<&str, Vec<&str>> = HashMap::new();
    for r in &read {
        if let Some(description) = &r.description {
            let seen = vars_of.entry(description.as_str()).or_default();
            if !seen.contains(&r.vars.as_str()) {
                seen.push(r.vars.as_str());
            }
        }
    }
    let task_of = |r: &Read| match &r.description {
        Some(d) if vars_of.get(d.as_str()).is_some_and(|v| v.len() == 1) => d.clone(),
        Some(d) => format!("{d} {}", r.vars),
        None => r.vars.clone(),
    };
    let tasks: Vec<String> = read.iter().map(task_of).collect();
    // Runs: a (system, task)'s results in testIdx order.
    let mut order: Vec<usize> = (0..read.len()).collect();
    order.sort_by_key(|&i| read[i].test_idx);
    let mut runs = vec![0u32; read.len()];
    let mut counts: HashMap<(&str, &str), u32> = HashMap::new();
    for &i in &order {
        let count = counts
            .entry((read[i].system.as_str(), tasks[i].as_str()))
            .or_default();
        runs[i] = *count;
        *count += 1;
    }
    let repeated = counts.values().any(|&c| c > 1);
    let mut group_keys: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &read {
        if let Some((_, key)) = &r.group {
            *group_keys.entry(key).or_default() += 1;
        }
    }
    let errors = read.iter().filter(|r| r.error).count();
    let rows: Vec<CanonicalRow> = read
        .iter()
        .zip(tasks)
        .zip(&runs)
        .map(|((r, task), &run)| CanonicalRow {
            system: r.system.clone(),
            task,
            run,
            outcome: Some(if r.error { 0.0 } else { r.outcome }),
            status: if r.error {
                RowStatus::Error
            } else {
                RowStatus::Ok
            },
            group: r.group.as_ref().map(|(g, _)| g.clone()),
            cost_usd: r.cost,
            seconds: r.seconds,
            source: match place {
                Place::TableRow => format!("promptfoo table row {}", r.test_idx + 1),
                _ => format!("promptfoo testIdx {}", r.test_idx),
            },
        })
        .collect();
    let mut notes = vec![format!(
        "{file}: promptfoo results, {} of them; systems are the providers' labels{}, tasks the test cases (their description, else their vars){}; the outcome is {}",
        rows.len(),
        if several.is_empty() {
            ""
        } else {
            " (with the prompt's label for a provider run with several prompts)"
        },
        if repeated {
            if place == Place::TableRow {
                ", a test's repeats its runs in table row order"
            } else {
                ", a test's repeats its runs in testIdx order"
            }
        } else {
            ""
        },
        if metric == "score" {
            "the assertions' weighted score"
        } else {
            "success (every assertion passed)"
        }
    )];
    if !group_keys.is_empty() {
        let keys: Vec<String> = group_keys
            .iter()
            .map(|(key, n)| format!("metadata.{key} ({n})"))
            .collect();
        notes.push(format!(
            "{file}: groups from each test's {}{}",
            keys.join(", "),
            if group_keys.values().sum::<usize>() < rows.len() {
                "; results of tests with none have no group"
            } else {
                ""
            }
        ));
    }
    if errors > 0 {
        notes.push(format!(
            "{file}: {} where the provider or a grader raised ({}): status error, outcome 0 (promptfoo counts them not passed)",
            counted(errors, "result", "results"),
            if place == Place::TableRow {
                "failed with no grading result"
            } else {
                "failureReason 2"
            }
        ));
    }
    Ok(Imported {
        rows,
        notes,
        lines: lines.then_some(numbers),
    })
}
