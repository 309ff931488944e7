//! NeMo-Skills' output dirs (tests/fixtures/nemo_skills: `ns eval` runs with a stand-in model, see
//! its README), checked against NeMo-Skills' own `metrics.json`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::{assert_refused, copy_tree, fixture, pareval, temp_dir};
use crate::import_formats::{import_rows, info_words, json_file as json, row_outcome as outcome};

fn out() -> PathBuf {
    fixture("nemo_skills/out")
}

#[test]
fn output_dirs_give_nemo_skills_own_metrics() {
    let rows = import_rows("nemo-skills", &[&out()], &[], "nemo-skills-out");
    // model-a has two seeds; model-broken left only its -async file, which is not read.
    assert_eq!(rows.len(), 5 * 16);
    let mut sums: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for row in &rows {
        let entry = sums
            .entry(row["system"].as_str().expect("system").to_string())
            .or_default();
        entry.0 += outcome(row);
        entry.1 += 1.0;
    }
    assert_eq!(sums.len(), 4, "{sums:?}");
    for (system, mode) in [
        ("model-a", "pass@1[avg-of-2]"),
        ("model-b", "pass@1"),
        ("model-c-greedy", "pass@1"),
        ("model-d-chunked", "pass@1"),
    ] {
        let metrics = json(&out().join(system).join("eval-results/gsm8k/metrics.json"));
        let expected = metrics["gsm8k"][mode]["symbolic_correct"]
            .as_f64()
            .expect("symbolic_correct");
        let (sum, n) = sums[system];
        assert!(
            (100.0 * sum / n - expected).abs() < 1e-9,
            "{system}: {} against {expected}",
            100.0 * sum / n
        );
    }
    assert!(
        (sums["model-a"].0 - 25.0).abs() < 1e-12,
        "13 + 12 right over two seeds"
    );
    // Seeds are runs; tasks are the rows' ids, shared by every output dir.
    let a_runs: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|r| r["system"] == "model-a")
        .filter_map(|r| r["run"].as_str())
        .collect();
    assert_eq!(a_runs, ["0", "1"].into_iter().collect());
    assert!(rows.iter().any(|r| r["task"] == "gsm8k/toy-0"));
    assert!(rows.iter().all(|r| r["group"] == "gsm8k"));
    let words = info_words(&[out().to_str().expect("path")]);
    assert!(
        words.contains("read the 5 NeMo-Skills output files below it"),
        "{words}"
    );
    assert!(words.contains("the outcome is symbolic_correct"), "{words}");
}

#[test]
fn eval_results_is_read_as_its_benchmarks_beside_metrics_json() {
    // A standalone `ns summarize_results` writes eval-results/metrics.json: an aggregate, not a
    // result file.
    let results = out().join("model-a/eval-results");
    let words = info_words(&[results.to_str().expect("path")]);
    assert!(
        words.contains("read the 2 NeMo-Skills output files below it"),
        "{words}"
    );
}

#[test]
fn a_benchmark_folder_reads_its_seeds_beside_metrics_json() {
    // metrics.json is NeMo-Skills' aggregate, read beside the output files and never as a result.
    let bench = out().join("model-a/eval-results/gsm8k");
    let words = info_words(&[bench.to_str().expect("path")]);
    assert!(words.contains("systems 1"), "{words}");
    assert!(words.contains("seed 1"), "{words}");
}

#[test]
fn rows_without_ids_are_tasks_by_line_and_a_missing_verdict_is_refused() {
    let root = temp_dir("nemo-skills-lines");
    let bench = root.join("run/eval-results/gsm8k");
    copy_tree(&out().join("model-b/eval-results/gsm8k"), &bench);
    let file = bench.join("output-rs0.jsonl");
    let text = std::fs::read_to_string(&file).expect("read");
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("line"))
        .collect();
    for line in &mut lines {
        line.as_object_mut().expect("object").remove("id");
    }
    let write = |lines: &[Value]| {
        let body: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(&file, body.join("\n") + "\n").expect("write");
    };
    write(&lines);
    let rows = import_rows("nemo-skills", &[&file], &[], "nemo-skills-lines-rows");
    assert_eq!(rows[0]["task"], "gsm8k/0");
    assert_eq!(rows[15]["task"], "gsm8k/15");
    assert_eq!(rows[0]["system"], "run");
    lines[4]
        .as_object_mut()
        .expect("object")
        .remove("symbolic_correct");
    write(&lines);
    let output = pareval(&["info", file.to_str().expect("path")]);
    assert_refused(&output, "line 5: no symbolic_correct verdict");
    let asked = pareval(&[
        "info",
        out().join("model-b").to_str().expect("path"),
        "--from",
        "nemo-skills",
        "--metric",
        "pass@1",
    ]);
    assert_refused(
        &asked,
        "--metric pass@1: NeMo-Skills' verdicts are symbolic_correct",
    );
}

#[test]
fn a_seed_still_being_generated_holds_the_finished_ones() {
    // model-a's second seed still running: NeMo-Skills appends its lines to output-rs1.jsonl-async
    // and writes output-rs1.jsonl when it ends. Seed 0's lines alone would be read as the tasks'
    // outcomes, which seed 1 would change.
    let root = temp_dir("nemo-skills-going");
    let bench = root.join("model-a/eval-results/gsm8k");
    copy_tree(&out().join("model-a/eval-results/gsm8k"), &bench);
    let text = std::fs::read_to_string(bench.join("output-rs1.jsonl")).expect("read");
    std::fs::remove_file(bench.join("output-rs1.jsonl")).expect("remove");
    std::fs::remove_file(bench.join("output-rs1.jsonl.done")).expect("remove");
    let some: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(bench.join("output-rs1.jsonl-async"), some.join("\n") + "\n").expect("write");
    let rows = import_rows(
        "nemo-skills",
        &[&root.join("model-a")],
        &[],
        "nemo-skills-going-rows",
    );
    assert_eq!(rows.len(), 16);
    assert!(rows.iter().all(|r| r["status"] == "not_attempted"));
    let words = info_words(&[root.join("model-a").to_str().expect("path")]);
    assert!(
        words.contains("output-rs1.jsonl-async beside it"),
        "{words}"
    );
}

#[test]
fn ifeval_lines_give_the_prompt_level_accuracies_of_nemo_skills() {
    // IFEval's lines hold the model's text as `response` and Google's checks as `strict_eval` and
    // `loose_eval`; each prompt is a task keyed by the dataset's `key`, each seed a run.
    let folder = fixture("nemo_skills/out_ifeval");
    for (metric, extra) in [
        ("prompt_strict_accuracy", &[][..]),
        (
            "prompt_loose_accuracy",
            &["--metric", "prompt_loose_accuracy"][..],
        ),
    ] {
        let rows = import_rows("nemo-skills", &[&folder], extra, "nemo-skills-ifeval");
        assert_eq!(rows.len(), 2 * 2 * 8, "{metric}");
        for system in ["model-good", "model-bad"] {
            let mine: Vec<&Value> = rows.iter().filter(|r| r["system"] == system).collect();
            let mean = 100.0 * mine.iter().map(|r| outcome(r)).sum::<f64>() / mine.len() as f64;
            let metrics = json(&folder.join(system).join("eval-results/ifeval/metrics.json"));
            let expected = metrics["ifeval"]["pass@1[avg-of-2]"][metric]
                .as_f64()
                .expect("a prompt-level accuracy");
            assert!(
                (mean - expected).abs() < 1e-9,
                "{system} {metric}: {mean} against NeMo-Skills' {expected}"
            );
        }
        assert!(rows.iter().any(|r| r["task"] == "ifeval/8"), "{metric}");
    }
    // The notes name the key and the metric, and why the instruction-level accuracies are not read.
    let words = info_words(&[folder.to_str().expect("path")]);
    assert!(
        words.contains("tasks <benchmark>/<key>; the outcome is prompt_strict_accuracy"),
        "{words}"
    );
    assert!(
        words.contains("the instruction-level accuracies pool the instructions of all prompts"),
        "{words}"
    );
}
