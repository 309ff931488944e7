//! VLMEvalKit's per-question evaluation files (tests/fixtures/vlmevalkit: a work dir written by
//! VLMEvalKit's own inference, evaluation and `dump`, see its make_fixture.py; expected.json holds
//! the per-question scores VLMEvalKit's own code gives, hit_calculate included).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{assert_refused, fixture, pareval, temp_dir};
use crate::import_formats::{import_rows, info_words, row_outcome as outcome};

fn outputs() -> PathBuf {
    fixture("vlmevalkit/outputs")
}

fn expected() -> Value {
    serde_json::from_slice(&std::fs::read(fixture("vlmevalkit/expected.json")).expect("expected"))
        .expect("JSON")
}

/// Every question's outcome against VLMEvalKit's own per-question score in expected.json.
fn assert_scores(rows: &[Value], model: &str, run: &str, dataset: &str) {
    let expected = &expected()["runs"][model][run][dataset];
    let per_row = expected["per_row"].as_array().expect("per_row");
    let read: Vec<&Value> = rows
        .iter()
        .filter(|r| r["system"] == model && r["group"] == dataset)
        .collect();
    assert_eq!(read.len(), per_row.len(), "{model} {dataset}");
    for pair in per_row {
        let (index, score) = (
            pair[0].as_i64().expect("index"),
            pair[1].as_f64().expect("score"),
        );
        let task = format!("{dataset}/{index}");
        let row = read
            .iter()
            .find(|r| r["task"] == task.as_str())
            .unwrap_or_else(|| panic!("{model} {task}"));
        assert!((outcome(row) - score).abs() < 1e-6, "{model} {task}: {row}");
    }
    let mean = read.iter().map(|r| outcome(r)).sum::<f64>() / read.len() as f64 * 100.0;
    let headline = expected["mean_x100"].as_f64().expect("mean");
    assert!(
        (mean - headline).abs() < 1e-5,
        "{model} {dataset}: {mean} against {headline}"
    );
}

#[test]
fn a_work_dir_gives_vlmevalkits_own_scores_of_each_datasets_latest_run() {
    let rows = import_rows("vlmevalkit", &[&outputs()], &[], "vlmevalkit-rows");
    assert_eq!(rows.len(), 168);
    for model in ["ModelA-7B", "Qwen2-VL-2B-Instruct_test"] {
        for dataset in ["POPE", "DocVQA_VAL", "ChartQA_TEST", "OCRBench"] {
            assert_scores(&rows, model, "T20260518-142530", dataset);
        }
    }
    // ModelA's MMBench was evaluated again with PRED_FORMAT=tsv: the model folder links both
    // files, and the newer run's is read.
    assert_scores(&rows, "ModelA-7B", "T20260519-101500", "MMBench_DEV_EN");
    assert_scores(
        &rows,
        "Qwen2-VL-2B-Instruct_test",
        "T20260518-142530",
        "MMBench_DEV_EN",
    );
    let mmbench = rows
        .iter()
        .find(|r| r["system"] == "ModelA-7B" && r["task"] == "MMBench_DEV_EN/0")
        .expect("MMBench_DEV_EN/0");
    assert_eq!(
        mmbench["source"],
        "vlmevalkit:ModelA-7B_MMBench_DEV_EN_exact_matching_result#0"
    );
    let words = info_words(&[&outputs().to_string_lossy()]);
    assert!(words.contains("read as vlmevalkit"), "{words}");
    assert!(words.contains("2 models on 5 datasets"), "{words}");
    // OCRBench keeps only its headline: its predictions are scored by its rule and checked.
    assert!(
        words.contains("its predictions are scored by VLMEvalKit's own rule (an answer found in the prediction), 15 hits as its"),
        "{words}"
    );
    assert!(
        !words.contains("predictions with no per-question"),
        "{words}"
    );
    assert!(
        words.contains("ModelA-7B_MMBench_DEV_EN_exact_matching_result.xlsx: left out for"),
        "{words}"
    );
    assert!(words.contains("its 2 run folders are left out"), "{words}");
}

fn copy_tree(from: &Path, to: &Path, links: bool) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("read folder").flatten() {
        let (path, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().expect("file type");
        if kind.is_symlink() {
            if links {
                std::fs::copy(&path, &target).expect("copy a linked file");
            }
        } else if kind.is_dir() {
            copy_tree(&path, &target, links);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

#[test]
fn a_model_folder_without_links_reads_each_dataset_from_its_newest_run() {
    let dir = temp_dir("vlmevalkit-unlinked");
    let model = dir.join("ModelA-7B");
    copy_tree(&outputs().join("ModelA-7B"), &model, false);
    let rows = import_rows("vlmevalkit", &[&model], &[], "vlmevalkit-unlinked-rows");
    assert_eq!(rows.len(), 84);
    assert_scores(&rows, "ModelA-7B", "T20260519-101500", "MMBench_DEV_EN");
    assert_scores(&rows, "ModelA-7B", "T20260518-142530", "DocVQA_VAL");
    // One run folder alone, given by its path: the model comes from the folder above it.
    let run = outputs().join("ModelA-7B/T20260518-142530");
    let rows = import_rows("vlmevalkit", &[&run], &[], "vlmevalkit-run-rows");
    assert_eq!(rows.len(), 84);
    assert_scores(&rows, "ModelA-7B", "T20260518-142530", "MMBench_DEV_EN");
}

#[test]
fn a_json_run_and_broken_files_are_refused_naming_file_row_and_value() {
    // PRED_FORMAT=json: VLMEvalKit's own evaluation fails on its json predictions.
    let json_run = fixture("vlmevalkit/json_run");
    let refused = pareval(&["info", &json_run.to_string_lossy()]);
    assert_refused(
        &refused,
        "VLMEvalKit cannot evaluate predictions written with PRED_FORMAT=json",
    );
    let dir = temp_dir("vlmevalkit-broken");
    let run = dir.join("ModelA-7B/T20260519-101500");
    copy_tree(&outputs().join("ModelA-7B/T20260519-101500"), &run, false);
    let tsv = run.join("ModelA-7B_MMBench_DEV_EN_exact_matching_result.tsv");
    let text = std::fs::read_to_string(&tsv).expect("tsv");
    // The first question's hit (the second-to-last field of its record) set to 2.
    let broken = text.replacen("\"0\"\t\"1\"\t\"Succeed", "\"0\"\t\"2\"\t\"Succeed", 1);
    assert_ne!(broken, text);
    std::fs::write(&tsv, &broken).expect("write");
    let refused = pareval(&["info", &tsv.to_string_lossy()]);
    assert_refused(
        &refused,
        "row 2: index 0: hit is '2', not 0/1 or True/False",
    );
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("exact_matching_result.tsv"),
        "the error names the file"
    );
    // A failed inference keeps the score VLMEvalKit gave it, with status error.
    let failed = text.replacen(
        "\"dev\"\t\"B\"\t\"0\"",
        "\"dev\"\t\"Failed to obtain answer\"\t\"0\"",
        1,
    );
    assert_ne!(failed, text);
    std::fs::write(&tsv, &failed).expect("write");
    let rows = import_rows("vlmevalkit", &[&tsv], &[], "vlmevalkit-failed-rows");
    let errors: Vec<&Value> = rows.iter().filter(|r| r["status"] == "error").collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["task"], "MMBench_DEV_EN/0");
    // A damaged workbook, and a file moved out of its model's folder.
    let xlsx = outputs().join("ModelA-7B/T20260518-142530/ModelA-7B_POPE_auxmatch.xlsx");
    let bytes = std::fs::read(&xlsx).expect("xlsx");
    let torn = run.join("ModelA-7B_POPE_auxmatch.xlsx");
    std::fs::write(&torn, &bytes[..bytes.len() / 2]).expect("write");
    let refused = pareval(&[
        "import",
        "vlmevalkit",
        &torn.to_string_lossy(),
        "--out",
        "x.csv",
    ]);
    assert_refused(&refused, "cannot read the xlsx workbook");
    let elsewhere = dir.join("somewhere");
    std::fs::create_dir_all(&elsewhere).expect("folder");
    let moved = elsewhere.join("ModelA-7B_POPE_auxmatch.xlsx");
    std::fs::write(&moved, &bytes).expect("write");
    let refused = pareval(&["info", &moved.to_string_lossy()]);
    assert_refused(&refused, "does not start with its model 'somewhere_'");
    // Canonical records in a .tsv named like a VLMEvalKit file stay canonical records.
    let records = elsewhere.join("my_results.tsv");
    std::fs::write(&records, "system\ttask\toutcome\na\tt1\t1\nb\tt1\t0\n").expect("write");
    let words = info_words(&[&records.to_string_lossy()]);
    assert!(words.contains("systems 2"), "{words}");
}

#[test]
fn ocrbench_predictions_are_checked_against_the_final_score_written_beside_them() {
    let dir = temp_dir("vlmevalkit-ocrbench");
    let run = dir.join("ModelA-7B/T20260518-142530");
    copy_tree(&outputs().join("ModelA-7B/T20260518-142530"), &run, false);
    let score = run.join("ModelA-7B_OCRBench_score.json");
    let mut written: Value =
        serde_json::from_slice(&std::fs::read(&score).expect("score")).expect("JSON");
    written["Final Score"] = Value::from(16);
    std::fs::write(&score, written.to_string()).expect("write");
    let words = info_words(&[&run.to_string_lossy()]);
    assert!(
        words.contains("give 15 hits, but its") && words.contains("says Final Score 16"),
        "{words}"
    );
    // Predictions never evaluated (no _score.json) are not scored: named as not evaluated.
    std::fs::remove_file(&score).expect("remove");
    let rows = import_rows("vlmevalkit", &[&run], &[], "vlmevalkit-ocrbench-rows");
    assert_eq!(rows.len(), 64);
    let words = info_words(&[&run.to_string_lossy()]);
    assert!(
        words.contains("predictions with no per-question evaluation file")
            && words.contains("ModelA-7B: OCRBench"),
        "{words}"
    );
}
