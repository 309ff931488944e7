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

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus};
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

/// Whether a JSON file is promptfoo's output (`results.results` of results).
pub fn is_output(object: &serde_json::Map<String, Value>) -> bool {
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

/// The results of an output file, with their place (entry number from 1), borrowed from it (an
/// output of tens of thousands of results is large: it is not copied).
pub fn output_results<'a>(
    value: &'a Value,
    file: &str,
) -> Result<Vec<(u64, &'a Value)>, LoadError> {
    let results = value
        .get("results")
        .and_then(|r| r.get("results"))
        .and_then(Value::as_array)
        .ok_or_else(|| LoadError::new(file, "a promptfoo output needs results.results"))?;
    Ok(results
        .iter()
        .enumerate()
        .map(|(i, r)| (i as u64 + 1, r))
        .collect())
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

/// The rows of promptfoo's results (`results`: each with its line, or entry, number from 1).
/// `lines` says whether the numbers are lines of a JSON Lines file.
pub fn rows(
    results: &[(u64, &Value)],
    file: &str,
    metric: Option<&str>,
    lines: bool,
) -> Result<Imported, LoadError> {
    let metric = metric.unwrap_or("success");
    if !matches!(metric, "success" | "score") {
        return Err(LoadError::new(
            file,
            format!("--metric {metric}: promptfoo's outcomes are success (the default) or score"),
        ));
    }
    let place = if lines { "line" } else { "result" };
    let mut read = Vec::with_capacity(results.len());
    for (number, result) in results {
        let at = |what: String| LoadError::new(file, format!("{place} {number}: {what}"));
        let provider = match result.get("provider") {
            Some(Value::String(id)) => Some(id.clone()),
            Some(object) => text(object.get("label")).or_else(|| text(object.get("id"))),
            None => None,
        }
        .ok_or_else(|| at("no provider label or id".to_string()))?;
        let prompt = result
            .get("prompt")
            .and_then(|p| text(p.get("label")).or_else(|| text(p.get("raw"))))
            .unwrap_or_default();
        let test = result.get("testCase");
        let description = test.and_then(|t| text(t.get("description")));
        let vars = result
            .get("vars")
            .or_else(|| test.and_then(|t| t.get("vars")))
            .map(Value::to_string)
            .unwrap_or_else(|| "{}".to_string());
        let test_idx = result
            .get("testIdx")
            .and_then(Value::as_u64)
            .ok_or_else(|| at("no testIdx".to_string()))?;
        let failure = result.get("failureReason").and_then(Value::as_u64);
        // Before failureReason (2024), an error without a grading result was the provider's.
        let error = failure == Some(FAILURE_ERROR)
            || (failure.is_none()
                && result.get("error").is_some_and(|e| !e.is_null())
                && result.get("gradingResult").is_none_or(Value::is_null));
        let outcome = if metric == "score" && !error {
            let score = result
                .get("score")
                .and_then(Value::as_f64)
                .ok_or_else(|| at(format!("score is {}", shown(result.get("score")))))?;
            if !(0.0..=1.0).contains(&score) {
                return Err(at(format!(
                    "score is {score}, outside [0, 1] (assertion weights can take it there): read success instead"
                )));
            }
            score
        } else {
            match result.get("success") {
                Some(Value::Bool(true)) => 1.0,
                Some(Value::Bool(false)) => 0.0,
                other => return Err(at(format!("success is {}", shown(other)))),
            }
        };
        let metadata = test
            .and_then(|t| t.get("metadata"))
            .or_else(|| result.get("metadata"));
        let group = GROUP_KEYS
            .iter()
            .find_map(|&key| text(metadata.and_then(|m| m.get(key))).map(|g| (g, key)));
        let cached = result
            .get("response")
            .and_then(|r| r.get("cached"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let seconds = result
            .get("latencyMs")
            .and_then(Value::as_f64)
            .filter(|ms| ms.is_finite() && *ms >= 0.0 && !cached)
            .map(|ms| ms / 1000.0);
        let cost = result
            .get("cost")
            .and_then(Value::as_f64)
            .filter(|c| c.is_finite() && *c >= 0.0);
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
            source: format!("promptfoo testIdx {}", r.test_idx),
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
            ", a test's repeats its runs in testIdx order"
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
            "{file}: {errors} result{} where the provider or a grader raised (failureReason 2): status error, outcome 0 (promptfoo counts them not passed)",
            if errors == 1 { "" } else { "s" }
        ));
    }
    Ok(Imported {
        rows,
        notes,
        lines: lines.then(|| results.iter().map(|(n, _)| *n).collect()),
    })
}

fn shown(value: Option<&Value>) -> String {
    value.map_or("missing".to_string(), Value::to_string)
}
