//! lmms-eval's `--log_samples` output (tests/fixtures/lmms_eval: written by lmms-eval 0.7.3's own
//! CLI with two stand-in models, see its README and make/run.sh), read by the lm-eval importer:
//! lmms-eval's naming, its tasks' configured metrics, and its per-sample dict metrics.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{assert_refused, fixture, pareval, temp_dir};
use crate::import_formats::{import_rows, info_words};

fn model_folder(model: &str) -> PathBuf {
    fixture("lmms_eval/out").join(format!("stand-in__{model}"))
}

/// The one file of a model folder whose name ends with `suffix`.
fn file_ending(folder: &Path, suffix: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
        .expect("the model folder")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().ends_with(suffix))
        .collect();
    assert_eq!(found.len(), 1, "{suffix} in {}", folder.display());
    found.remove(0)
}

/// lmms-eval's own figure for a task's metric, from the results file beside the samples.
fn lmms_figure(folder: &Path, task: &str, metric: &str) -> f64 {
    let results: Value =
        serde_json::from_slice(&std::fs::read(file_ending(folder, "_results.json")).expect("read"))
            .expect("JSON");
    results["results"][task][format!("{metric},none")]
        .as_f64()
        .unwrap_or_else(|| panic!("{task} {metric}"))
}

/// Mean outcome per (system, task), the task being the part of the row's task before its `/`.
fn means(rows: &[Value]) -> BTreeMap<(String, String), f64> {
    let mut sums: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
    for row in rows {
        let task = row["task"].as_str().expect("task");
        let (task, _doc) = task.split_once('/').expect("<task>/<doc_id>");
        let outcome: f64 = row["outcome"]
            .as_str()
            .and_then(|v| v.parse().ok())
            .expect("an outcome");
        let entry = sums
            .entry((
                row["system"].as_str().expect("system").to_string(),
                task.to_string(),
            ))
            .or_default();
        entry.0 += outcome;
        entry.1 += 1.0;
    }
    sums.into_iter()
        .map(|(key, (sum, count))| (key, sum / count))
        .collect()
}

fn suite_files() -> Vec<PathBuf> {
    ["p80", "p50"]
        .iter()
        .flat_map(|model| {
            let folder = model_folder(model);
            [
                file_ending(&folder, "_samples_standin_vqa.jsonl"),
                file_ending(&folder, "_samples_standin_mme.jsonl"),
            ]
        })
        .collect()
}

#[test]
fn lmms_eval_samples_give_lmms_evals_own_figures() {
    let files = suite_files();
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let rows = import_rows("lmms-eval", &paths, &[], "lmms-eval-suite");
    assert_eq!(rows.len(), 2 * (20 + 16));
    let read = means(&rows);
    for (model, system) in [("p80", "stand-in/p80"), ("p50", "stand-in/p50")] {
        let folder = model_folder(model);
        let mean = |task: &str| read[&(system.to_string(), task.to_string())];
        // A scalar metric, and MME's kind: a dict per sample whose `score` lmms-eval's
        // aggregation sums (×100).
        assert_eq!(
            mean("standin_vqa"),
            lmms_figure(&folder, "standin_vqa", "exact_match")
        );
        let mme = lmms_figure(&folder, "standin_mme", "standin_score");
        assert!((mean("standin_mme") * 100.0 - mme).abs() < 1e-9, "{model}");
    }
    // The group is the suite listing the tasks (group_subtasks).
    assert!(
        rows.iter().all(|r| r["group"] == "standin_suite"),
        "{rows:?}"
    );
    assert!(
        rows.iter()
            .any(|r| r["source"] == "lmms-eval standin_mme doc 3, filter none, standin_score"),
        "{rows:?}"
    );
    // The task's second configured metric, chosen (--metric names one metric for every file given).
    let mme: Vec<&Path> = paths
        .iter()
        .copied()
        .filter(|p| p.to_string_lossy().ends_with("standin_mme.jsonl"))
        .collect();
    let said_yes = import_rows(
        "lmms-eval",
        &mme,
        &["--metric", "standin_said_yes"],
        "lmms-eval-said-yes",
    );
    let said_yes = means(&said_yes);
    for (model, system) in [("p80", "stand-in/p80"), ("p50", "stand-in/p50")] {
        let figure = lmms_figure(&model_folder(model), "standin_mme", "standin_said_yes");
        let read = said_yes[&(system.to_string(), "standin_mme".to_string())];
        assert!(
            (read - figure).abs() < 1e-9,
            "{model}: {read} against {figure}"
        );
    }
    // Recognised without --from, and the choice named.
    let file = files[1].to_string_lossy().to_string();
    let words = info_words(&[&file]);
    assert!(
        words.contains(
            "metric 'standin_score' read (the first of standin_mme's configured metrics with a per-sample score; also scored: standin_said_yes); --metric chooses"
        ),
        "{words}"
    );
}

#[test]
fn a_dict_metric_with_no_score_is_refused_saying_what_to_do() {
    let mmmu = file_ending(&model_folder("p80"), "_samples_standin_mmmu.jsonl");
    let file = mmmu.to_string_lossy().to_string();
    let refused = pareval(&["info", &file]);
    assert_refused(
        &refused,
        "line 1: metric 'standin_mmmu_acc' is an object (answer, id, parsed_pred) with no numeric 'score' (lmms-eval scores it in its aggregation); --score-key names a numeric key of it",
    );
    // A dict whose verdict sits under another key (MathVista's true_false): the message names
    // its numeric keys, and --score-key reads one.
    let dir = temp_dir("lmms-eval-true-false");
    let mathvista = dir.join("20250101_000000_samples_mathvista_testmini.jsonl");
    std::fs::write(
        &mathvista,
        concat!(
            r#"{"doc_id": 0, "target": "2", "filtered_resps": "2", "doc_hash": "a", "gpt_eval_score": {"question_id": "1", "answer": "2", "extraction": "2", "true_false": true}}"#,
            "\n",
            r#"{"doc_id": 1, "target": "5", "filtered_resps": "4", "doc_hash": "b", "gpt_eval_score": {"question_id": "2", "answer": "5", "extraction": "4", "true_false": false}}"#,
            "\n"
        ),
    )
    .expect("write");
    let mathvista_file = mathvista.to_string_lossy().to_string();
    assert_refused(
        &pareval(&["info", &mathvista_file]),
        "--score-key names a numeric key of it (true_false)",
    );
    let rows = import_rows(
        "lmms-eval",
        &[&mathvista],
        &["--score-key", "true_false"],
        "lmms-eval-true-false-rows",
    );
    let read: Vec<&str> = rows
        .iter()
        .map(|r| r["outcome"].as_str().expect("outcome"))
        .collect();
    assert_eq!(read, ["1", "0"]);
    // A key that holds text is no score either.
    let text = pareval(&["info", &file, "--score-key", "parsed_pred"]);
    assert_refused(&text, "with no numeric 'parsed_pred'");
    // The output path holding it is refused too, naming the file (never read without the task).
    let folder = fixture("lmms_eval/out").to_string_lossy().to_string();
    assert_refused(
        &pareval(&["info", &folder]),
        "_samples_standin_mmmu.jsonl: line 1",
    );
    let unknown = pareval(&["info", &file, "--metric", "acc"]);
    assert_refused(
        &unknown,
        "--metric 'acc' is not a metric of the file's lines; theirs: standin_mmmu_acc",
    );
}

#[test]
fn an_lmms_eval_output_path_is_read_as_its_model_folders() {
    // lmms-eval's output path without the task whose metric has no per-sample score: each model's
    // folder is read, `<date>_results.json` beside the samples as their companion, not a file.
    let out = temp_dir("lmms-eval-output-path").join("out");
    for model in ["p80", "p50"] {
        let from = model_folder(model);
        let to = out.join(from.file_name().expect("name"));
        std::fs::create_dir_all(&to).expect("mkdir");
        for entry in std::fs::read_dir(&from).expect("read").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.contains("standin_mmmu") {
                std::fs::copy(entry.path(), to.join(&name)).expect("copy");
            }
        }
    }
    let words = info_words(&[&out.to_string_lossy()]);
    assert!(words.contains("systems 2"), "{words}");
    assert!(words.contains("tasks 36"), "{words}");
    assert!(words.contains("read its lm-eval model folders"), "{words}");
    // lmms-eval writes an empty model_name when its model_args name no model it knows: the folder
    // names the system then, noted.
    let p50 = out.join("stand-in__p50");
    let results_path = file_ending(&p50, "_results.json");
    let mut results: Value =
        serde_json::from_slice(&std::fs::read(&results_path).expect("read")).expect("JSON");
    results["model_name"] = Value::String(String::new());
    std::fs::write(&results_path, results.to_string()).expect("write");
    let words = info_words(&[&out.to_string_lossy()]);
    assert!(
        words.contains(
            "with a model_name beside it; the system is named after the folder, 'stand-in__p50'"
        ),
        "{words}"
    );
    assert!(words.contains("stand-in__p50"), "{words}");
}

#[test]
fn an_lmms_eval_limit_run_is_noted() {
    let folder = fixture("lmms_eval/out_limit/stand-in__p80");
    let file = file_ending(&folder, "_samples_standin_vqa.jsonl");
    let words = info_words(&[&file.to_string_lossy()]);
    assert!(
        words.contains(
            "standin_vqa was run with --limit (10 of 20 docs); the others are not in the records"
        ),
        "{words}"
    );
    assert!(words.contains("tasks 10"), "{words}");
    assert!(
        !words.contains("the results file says were evaluated"),
        "{words}"
    );
}

/// A samples file holding fewer docs than its results file says were evaluated (a copy cut short)
/// was read without a word, its mean no longer the results' aggregate.
#[test]
fn a_samples_file_short_of_the_docs_evaluated_is_noted() {
    let folder = fixture("lmms_eval/out_limit/stand-in__p80");
    let dir = temp_dir("lm-eval-cut-samples");
    for entry in std::fs::read_dir(&folder).expect("read").flatten() {
        std::fs::copy(entry.path(), dir.join(entry.file_name())).expect("copy");
    }
    let file = file_ending(&dir, "_samples_standin_vqa.jsonl");
    let text = std::fs::read_to_string(&file).expect("samples");
    let kept: Vec<&str> = text.lines().take(7).collect();
    std::fs::write(&file, kept.join("\n") + "\n").expect("cut");
    let words = info_words(&[&file.to_string_lossy()]);
    assert!(
        words.contains("7 of the 10 docs the results file says were evaluated for standin_vqa are in the samples file"),
        "{words}"
    );
}

/// `--metric` chooses lm-eval's metric too (it was left unread before: `acc` always won).
#[test]
fn lm_eval_reads_the_metric_asked_for() {
    let dir = temp_dir("lm-eval-metric");
    let path = dir.join("samples_arc_easy_2025-01-01T00-00-00.jsonl");
    let line = |doc: u32, acc: f64, norm: f64| {
        format!(
            r#"{{"doc_id": {doc}, "doc": {{}}, "target": 0, "filtered_resps": [], "filter": "none", "metrics": ["acc", "acc_norm"], "doc_hash": "aa", "acc": {acc}, "acc_norm": {norm}}}"#
        )
    };
    let text = [line(0, 1.0, 0.0), line(1, 0.0, 0.0), line(2, 1.0, 1.0)].join("\n");
    std::fs::write(&path, text + "\n").expect("write");
    let file = path.to_string_lossy().to_string();
    let mean = |extra: &[&str]| {
        let rows = import_rows("lm-eval", &[Path::new(&file)], extra, "lm-eval-metric-rows");
        let read = means(&rows);
        assert_eq!(read.len(), 1, "{read:?}");
        read.into_values().next().expect("one mean")
    };
    assert!((mean(&[]) - 2.0 / 3.0).abs() < 1e-12);
    assert!((mean(&["--metric", "acc_norm"]) - 1.0 / 3.0).abs() < 1e-12);
}

/// An lmms-eval task's `score_key` setting names the key of its dict metric that holds the score
/// (lmms-eval's standard errors read it there); `--score-key` overrides it.
#[test]
fn an_lmms_eval_tasks_score_key_is_read() {
    let from = model_folder("p80");
    let to = temp_dir("lmms-eval-score-key").join("stand-in__p80");
    std::fs::create_dir_all(&to).expect("mkdir");
    let samples = file_ending(&from, "_samples_standin_mme.jsonl");
    let results = file_ending(&from, "_results.json");
    let text = std::fs::read_to_string(&samples).expect("read");
    let renamed = text.replace("\"score\": ", "\"correct\": ");
    assert_ne!(text, renamed);
    let samples_to = to.join(samples.file_name().expect("name"));
    std::fs::write(&samples_to, renamed).expect("write");
    let mut config: Value =
        serde_json::from_slice(&std::fs::read(&results).expect("read")).expect("JSON");
    config["configs"]["standin_mme"]["score_key"] = Value::String("correct".to_string());
    std::fs::write(
        to.join(results.file_name().expect("name")),
        config.to_string(),
    )
    .expect("write");
    let rows = import_rows("lmms-eval", &[&samples_to], &[], "lmms-eval-score-key-rows");
    let figure = lmms_figure(&from, "standin_mme", "standin_score");
    let read = means(&rows)[&("stand-in/p80".to_string(), "standin_mme".to_string())];
    assert!(
        (read * 100.0 - figure).abs() < 1e-9,
        "{read} against {figure}"
    );
    let file = samples_to.to_string_lossy().to_string();
    // Under another key the dict metric has no score: the task's next configured metric is read,
    // and the note says why.
    let words = info_words(&[&file, "--score-key", "score"]);
    assert!(
        words.contains("metric 'standin_said_yes' read (the first of standin_mme's configured metrics with a per-sample score; 'standin_score' has no per-sample score"),
        "{words}"
    );
}

/// MMMU's samples, which lmms-eval scores only in its aggregation, judged by MMMU's rule: every
/// doc as lmms-eval's own evaluate_mmmu judged it (expected.json) and its mmmu_acc.
#[test]
fn mmmu_samples_are_judged_as_lmms_evals_evaluate_mmmu_judges_them() {
    let out = fixture("lmms_eval/out_mmmu");
    let expected: Value =
        serde_json::from_slice(&std::fs::read(out.join("expected.json")).expect("read"))
            .expect("JSON");
    for (folder, system) in [
        ("stand-in__p80", "stand-in/p80"),
        ("stand-in__p50", "stand-in/p50"),
    ] {
        let rows = import_rows("lmms-eval", &[&out.join(folder)], &[], "lmms-eval-mmmu");
        let wanted = expected[folder]["correct"].as_object().expect("correct");
        assert_eq!(rows.len(), wanted.len(), "{folder}");
        for row in &rows {
            assert_eq!(row["system"], system);
            let doc = row["task"]
                .as_str()
                .and_then(|t| t.strip_prefix("standin_mmmu_real/"))
                .expect("task");
            let outcome = row["outcome"].as_str().expect("outcome");
            let right = wanted[doc].as_bool().expect("verdict");
            assert_eq!(outcome == "1", right, "{folder} doc {doc}: {row}");
        }
        let mean = means(&rows)[&(system.to_string(), "standin_mmmu_real".to_string())];
        let figure = expected[folder]["mmmu_acc"].as_f64().expect("mmmu_acc");
        assert!(
            (mean - figure).abs() < 1e-5,
            "{folder}: {mean} against {figure}"
        );
    }
    let words = info_words(&[&out.join("stand-in__p80").to_string_lossy()]);
    assert!(
        words.contains("24 MMMU samples (mmmu_acc) judged by MMMU's own rule"),
        "{words}"
    );
}
