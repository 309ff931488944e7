//! MCPMark's results (tests/fixtures/mcpmark: an experiment written by MCPMark's own pipeline with a
//! stand-in model, see its README), checked against MCPMark's own figures: each run's
//! `summary.json` and the pass@1 of its `aggregate_specific_results.py`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::{copy_tree, fixture, temp_dir};
use crate::import_formats::{import_rows, info_words, json_file as json, row_outcome as outcome};

fn experiment() -> PathBuf {
    fixture("mcpmark/results/fixture")
}

const MODELS: [&str; 2] = ["stand-in-strong-high", "stand-in-weak-0-5"];

#[test]
fn an_experiment_gives_mcpmarks_own_pass_rates() {
    let rows = import_rows("mcpmark", &[&experiment()], &[], "mcpmark-experiment");
    assert_eq!(rows.len(), 2 * 2 * 12, "two models, two runs, twelve tasks");
    // Successes per model and run, against each run's summary.json.
    let mut successes: BTreeMap<(String, String), f64> = BTreeMap::new();
    for row in &rows {
        let key = (
            row["system"].as_str().expect("system").to_string(),
            row["run"].as_str().expect("run").to_string(),
        );
        *successes.entry(key).or_default() += outcome(row);
    }
    for model in MODELS {
        for run in ["0", "1"] {
            let summary = json(&experiment().join(format!(
                "{model}__filesystem/run-{}/summary.json",
                run.parse::<u32>().expect("run") + 1
            )));
            assert_eq!(
                successes[&(model.to_string(), run.to_string())],
                summary["successful_tasks"].as_f64().expect("successes"),
                "{model} run {run}"
            );
        }
        // pass@1 over the runs, as MCPMark's aggregator gives it.
        let aggregate = json(&fixture(&format!(
            "mcpmark/aggregate_specific/{model}__filesystem.json"
        )));
        let pass1 = aggregate["pass@1"]["avg"].as_f64().expect("pass@1");
        let mean = rows
            .iter()
            .filter(|r| r["system"] == model)
            .map(outcome)
            .sum::<f64>()
            / 24.0;
        assert!(
            (mean - pass1).abs() < 5e-5,
            "{model}: {mean} against {pass1}"
        );
    }
    let find = |task: &str, system: &str, run: &str| {
        rows.iter()
            .find(|r| r["task"] == task && r["system"] == system && r["run"] == run)
            .unwrap_or_else(|| panic!("{task} {system} {run}"))
    };
    // The rate-limited run is the harness's failure (MCPMark's aggregator runs it again); running out
    // of turns is the agent's.
    let limited = find(
        "filesystem/student_database__english_talent",
        "stand-in-weak-0-5",
        "1",
    );
    assert_eq!(limited["status"], "error", "{limited}");
    assert_eq!(outcome(limited), 0.0);
    let turns = find(
        "filesystem/folder_structure__structure_analysis",
        "stand-in-strong-high",
        "0",
    );
    assert_eq!(turns["status"], "ok", "{turns}");
    assert_eq!(outcome(turns), 0.0);
    // The agent's time, from meta.json.
    let meta = json(&experiment().join(
        "stand-in-strong-high__filesystem/run-1/folder_structure__structure_analysis/meta.json",
    ));
    let seconds: f64 = turns["seconds"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("seconds");
    assert_eq!(
        seconds,
        meta["agent_execution_time"].as_f64().expect("time")
    );
    assert!(rows.iter().all(|r| r["group"] == "filesystem"));
    let words = info_words(&[&experiment().to_string_lossy()]);
    assert!(
        words.contains("read as mcpmark (recognised by its layout)"),
        "{words}"
    );
    assert!(
        words.contains(
            "1 failed run whose error MCPMark's aggregator takes for an infrastructure error"
        ),
        "{words}"
    );
}

#[test]
fn a_run_in_progress_shows_its_started_task_as_not_attempted() {
    let live = fixture("mcpmark/results_live/fixture");
    let rows = import_rows("mcpmark", &[&live], &[], "mcpmark-live");
    assert_eq!(
        rows.len(),
        10,
        "nine finished tasks and the one it was killed in"
    );
    let started: Vec<&Value> = rows
        .iter()
        .filter(|r| r["status"] == "not_attempted")
        .collect();
    assert_eq!(started.len(), 1, "{rows:?}");
    assert_eq!(started[0]["task"], "filesystem/papers__find_math_paper");
    let words = info_words(&[&live.to_string_lossy()]);
    assert!(
        words.contains(
            "1 task folder with no meta.json yet (running, or the run was stopped): not attempted"
        ),
        "{words}"
    );
}

#[test]
fn one_meta_file_is_read_in_its_layout_or_by_its_model_name() {
    let meta = experiment()
        .join("stand-in-strong-high__filesystem/run-2/file_context__uppercase/meta.json");
    let rows = import_rows("mcpmark", &[&meta], &[], "mcpmark-one");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["system"], "stand-in-strong-high");
    assert_eq!(rows[0]["run"], "1");
    // Copied out of its layout: the model and its reasoning effort from the file, run 0.
    let alone = temp_dir("mcpmark-alone").join("meta.json");
    std::fs::copy(&meta, &alone).expect("copy");
    let rows = import_rows("mcpmark", &[&alone], &[], "mcpmark-alone-rows");
    assert_eq!(rows[0]["system"], "stand-in-strong (high)");
    assert_eq!(rows[0]["run"], "0");
    assert_eq!(rows[0]["task"], "filesystem/file_context__uppercase");
    // Recognised by its keys without --from.
    let words = info_words(&[&alone.to_string_lossy()]);
    assert!(
        words.contains("read as mcpmark (recognised by its keys)"),
        "{words}"
    );
}

/// A run that holds fewer tasks than its system's other runs (MCPMark's aggregator takes it for
/// incomplete) is named in a note.
#[test]
fn a_run_missing_tasks_is_named() {
    let copy = temp_dir("mcpmark-short-run").join("fixture");
    copy_tree(&experiment(), &copy);
    let gone = copy.join("stand-in-weak-0-5__filesystem/run-2/papers__author_folders");
    std::fs::remove_dir_all(&gone).expect("remove a task of run 2");
    let words = info_words(&[&copy.to_string_lossy()]);
    assert!(
        words.contains("stand-in-weak-0-5's run-2 holds 11 of the 12 tasks its other runs hold"),
        "{words}"
    );
    let whole = info_words(&[&experiment().to_string_lossy()]);
    assert!(!whole.contains("tasks its other runs hold"), "{whole}");
}

#[test]
fn a_task_waits_while_its_next_run_is_to_come() {
    // The weak model's run-2 while it goes on: no summary.json yet, one task without its meta.json
    // (running) and one not started (no folder). Their run-1 outcomes alone would be read, and
    // run-2's would change the means.
    let root = temp_dir("mcpmark-run-going");
    let model = root.join("stand-in-weak-0-5__filesystem");
    copy_tree(&experiment().join("stand-in-weak-0-5__filesystem"), &model);
    let run2 = model.join("run-2");
    std::fs::remove_file(run2.join("summary.json")).expect("remove");
    let mut tasks: Vec<PathBuf> = std::fs::read_dir(&run2)
        .expect("run-2")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    tasks.sort();
    std::fs::remove_file(tasks[0].join("meta.json")).expect("remove");
    std::fs::remove_dir_all(&tasks[1]).expect("remove");
    let rows = import_rows("mcpmark", &[&root], &[], "mcpmark-run-going-rows");
    let waiting: Vec<&Value> = rows
        .iter()
        .filter(|r| r["status"] == "not_attempted")
        .collect();
    // run-2's running task, and run-1's rows of both tasks.
    assert_eq!(waiting.len(), 3, "{waiting:?}");
    assert_eq!(rows.len(), 2 * 12 - 1);
    let words = info_words(&[root.to_str().expect("path")]);
    assert!(
        words.contains(
            "2 ended task runs of tasks with a run still to come are not attempted so far"
        ),
        "{words}"
    );
}
