//! OpenCompass's results on a run folder OpenCompass's own infer and eval tasks wrote
//! (`tests/fixtures/opencompass/`, see its README): the figures each file's own headline gives,
//! the shapes of `details`, the files left out, a run still evaluating, and `watch`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{assert_refused, copy_tree, fixture, pareval, temp_dir};
use crate::import_formats::{import_rows, info_words, rows_once_read, tally};

fn run_folder() -> PathBuf {
    fixture("opencompass/run/20261205_170000")
}

fn text(row: &Value, key: &str) -> String {
    row[key].as_str().unwrap_or("").to_string()
}

/// A copy of the run folder to change.
fn run_copy(name: &str) -> PathBuf {
    let copy = temp_dir(name).join("20261205_170000");
    copy_tree(&run_folder(), &copy);
    copy
}

fn edit_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut value: Value =
        serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json");
    edit(&mut value);
    std::fs::write(path, serde_json::to_string_pretty(&value).expect("json")).expect("write");
}

#[test]
fn an_opencompass_run_gives_each_example_as_a_task_and_each_replica_as_a_run() {
    let run = run_folder();
    let rows = import_rows("opencompass", &[&run], &[], "opencompass-run");
    // Two models × (arith-easy: 40 examples, 1 replica; arith-hard: 30 examples, 3 replicas;
    // arith-acc: 25 examples, 2 replicas; arith-judged: 30 examples).
    assert_eq!(rows.len(), 2 * (40 + 30 * 3 + 25 * 2 + 30));
    let tallied = tally(&rows);
    // The files' own headlines: standin-70 accuracy 80.0 on arith-easy (32 of 40) and score
    // (3 runs average) 78.89 on arith-hard (71 of 90); standin-50 50.0 (20) and 51.11 (46).
    // arith-acc (AccEvaluator, no details): predictions equal to references, 37 of 50 and 25 of
    // 50, whose last replicas give the files' accuracy 68.0 and 52.0; arith-judged (an LLM judge):
    // its correct_count, 19 and 16 of 30 (README of the fixture).
    assert_eq!(
        (
            tallied["standin-70"].tasks,
            tallied["standin-70"].outcome_sum
        ),
        (125, 32.0 + 71.0 + 37.0 + 19.0)
    );
    assert_eq!(tallied["standin-50"].outcome_sum, 20.0 + 46.0 + 25.0 + 16.0);
    // The judge's replies with no grade (its not_attempted_count, 2 and 4): 0, status error.
    assert_eq!(tallied["standin-70"].statuses.get("error"), Some(&2));
    assert_eq!(tallied["standin-50"].statuses.get("error"), Some(&4));
    assert!(
        rows.iter()
            .filter(|r| text(r, "status") == "error")
            .all(|r| text(r, "source").ends_with("the judge gave no grade")
                && r["group"] == "arith-judged")
    );
    let replicas: Vec<String> = rows
        .iter()
        .filter(|r| r["system"] == "standin-70" && r["task"] == "arith-hard_5")
        .map(|r| format!("{}:{}", text(r, "run"), text(r, "group")))
        .collect();
    assert_eq!(replicas, ["0:arith-hard", "1:arith-hard", "2:arith-hard"]);
    // Numbered entries repeating their prompts every 25 are two replicas of 25 examples.
    let acc: Vec<String> = rows
        .iter()
        .filter(|r| r["system"] == "standin-70" && r["task"] == "arith-acc_3")
        .map(|r| text(r, "run"))
        .collect();
    assert_eq!(acc, ["0", "1"]);
    let words = info_words(&[&run.to_string_lossy()]);
    for said in [
        "read as opencompass (recognised by its layout)",
        "OpenCompass results of 8 dataset files (250 examples, 420 samples); outcome: 'correct' in 4, 'predictions == references' in 2, 'the judge's grade (its first A or B)' in 2",
        "read by OpenCompass's rule, the first A (correct) or B (incorrect) in the judge's reply, which gives each such file's own accuracy: standin-50/arith-judged.json (4 with no grade: 0, status error), standin-70/arith-judged.json (2 with no grade: 0, status error)",
        "read as predictions == references, AccEvaluator's rule, which gives each such file's own accuracy: standin-50/arith-acc.json, standin-70/arith-acc.json",
        "read as replicas of the first",
        "standin-50/arith-acc.json 2, standin-70/arith-acc.json 2",
        "checked against 100 × the mean of its details: 8 of 8 agree",
        // An evaluator whose figure is not exact match: no outcome can be told from its details.
        "left out, with no per-sample outcome: standin-50/arith-lenient.json (its details hold no per-sample correctness, and predictions == references gives 40.0000, not its 'accuracy' 100.0000 (the evaluator is not AccEvaluator's exact match))",
    ] {
        assert!(words.contains(said), "{said}\n{words}");
    }
    // Its results/ folder and one model's folder are read the same way.
    let results = run.join("results");
    assert_eq!(
        import_rows("opencompass", &[&results], &[], "opencompass-results").len(),
        420
    );
    let model = results.join("standin-50");
    assert!(
        info_words(&[&model.to_string_lossy()])
            .contains("read as opencompass (recognised by its layout)")
    );
    assert_eq!(
        import_rows("opencompass", &[&model], &[], "opencompass-model").len(),
        210
    );
}

#[test]
fn an_opencompass_results_file_alone_is_named_after_its_folder() {
    let file = run_folder().join("results/standin-70/arith-hard.json");
    let words = info_words(&[&file.to_string_lossy()]);
    for said in [
        "read as opencompass (recognised by its keys)",
        "the system is named after the folder the file is in, 'standin-70'",
        "the group after the file, 'arith-hard'",
        "1 of 1 agree",
    ] {
        assert!(words.contains(said), "{said}\n{words}");
    }
    // The judge's replies beside a judged file are read through it; alone, they name it.
    let replies = run_folder().join("results/standin-70/arith-judged_replica0.json");
    assert_refused(
        &pareval(&["info", &replies.to_string_lossy()]),
        "arith-judged_replica0.json: an LLM judge's replies, which OpenCompass's GenericLLMEvaluator and CascadeEvaluator write beside the results they grade: give arith-judged.json beside it",
    );
    // CascadeEvaluator's judge writes `<dataset>_llm_judge_replica<k>.json`: read through the
    // results too, so a folder holding one reads the same rows and leaves nothing more out.
    let copy = run_copy("opencompass-cascade-judge");
    let model = copy.join("results/standin-70");
    std::fs::copy(&replies, model.join("arith-easy_llm_judge_replica0.json")).expect("copy");
    let words = info_words(&[&model.to_string_lossy()]);
    assert!(
        !words.contains("llm_judge")
            && words.contains("OpenCompass results of 4 dataset files (125 examples, 210 samples)"),
        "{words}"
    );
    // A file whose details hold no outcome is refused alone, saying why.
    let bare = run_folder().join("results/standin-70/arith-lenient.json");
    assert_refused(
        &pareval(&["info", &bare.to_string_lossy()]),
        "arith-lenient.json: an OpenCompass results file, but its details hold no per-sample correctness, and predictions == references gives 80.0000, not its 'accuracy' 100.0000",
    );
    // With --metric, the field it names is what is asked for (here one they lack).
    assert_refused(
        &pareval(&["info", &bare.to_string_lossy(), "--metric", "hit"]),
        "its details hold no per-sample 'hit' (--metric); their fields: origin_prediction, predictions, prompt, references",
    );
    // --metric reads another per-sample field; one that is not a score is refused naming the
    // example and the replica.
    assert_refused(
        &pareval(&["info", &file.to_string_lossy(), "--metric", "pred"]),
        "arith-hard.json: details: example 'arith-hard_0', replica 0: 'pred' \"1000\" is not a number",
    );
    assert_refused(
        &pareval(&["info", &file.to_string_lossy(), "--metric", "f1"]),
        "its details hold no per-sample 'f1' (--metric); their fields: answer, correct, example_abbr, pred",
    );
}

#[test]
fn opencompass_details_are_checked_against_the_file_s_own_headline() {
    let run = run_copy("opencompass-headline");
    let file = run.join("results/standin-70/arith-easy.json");
    // One sample's correctness flipped: 31 of 40, while the file still says 80.0.
    edit_json(&file, |value| {
        value["details"][0]["correct"][0] = Value::Bool(false);
    });
    let words = info_words(&[&file.to_string_lossy()]);
    assert!(
        words.contains("0 of 1 agree (the evaluator's figure is not the mean of its samples: arith-easy.json: 'accuracy' 80.0000, 100 × the mean of its details 77.5000)"),
        "{words}"
    );
    // A numeric per-sample field by --metric (scores in [0, 1]; --score-scale maps another range).
    edit_json(&file, |value| {
        for entry in value["details"].as_array_mut().expect("details") {
            entry["f1"] = serde_json::json!([50]);
        }
    });
    let path = file.to_string_lossy();
    assert_refused(
        &pareval(&["info", &path, "--metric", "f1"]),
        "'f1' 'f1' is 50, outside [0, 1]; --score-scale MIN:MAX maps its range onto [0, 1]",
    );
    let rows = import_rows(
        "opencompass",
        &[&file],
        &["--metric", "f1", "--score-scale", "0:100"],
        "opencompass-metric",
    );
    assert_eq!(rows.len(), 40);
    assert!(rows.iter().all(|r| text(r, "outcome") == "0.5"));
}

#[test]
fn an_llm_judge_graded_otherwise_is_not_read_by_opencompass_s_rule() {
    // A judge configured with other tags (replies "yes"/"no"): the first A or B no longer gives
    // the file's accuracy, so no outcome is read from it.
    let run = run_copy("opencompass-judge-tags");
    let file = run.join("results/standin-70/arith-judged.json");
    edit_json(&file, |value| {
        for entry in value["details"].as_array_mut().expect("details") {
            let reply = entry["prediction"][0].as_str().unwrap_or("").to_string();
            entry["prediction"][0] = Value::from(if reply == "A" { "yes" } else { "no" });
        }
    });
    assert_refused(
        &pareval(&["info", &file.to_string_lossy()]),
        "arith-judged.json: an OpenCompass results file, but its details hold no per-sample correctness, and the judge's first A or B gives 0.0000, not its 'accuracy' 63.3333 (the evaluator is not a judge graded A/B as generic_llmjudge_postprocess reads it)",
    );
}

#[test]
fn opencompass_formatted_details_of_older_releases_and_ppl_runs_are_read() {
    // OpenICLEvalTask.format_details: numbered entries with a type; a PPL entry's `correct` is
    // OpenCompass's prediction == reference.
    let dir = temp_dir("opencompass-formatted").join("results/llama-7b");
    std::fs::create_dir_all(&dir).expect("folder");
    let file = dir.join("ARC-c.json");
    let details = serde_json::json!({
        "accuracy": 50.0,
        "details": {
            "type": "PPL",
            "0": {"origin_prediction": {"A": {"prompt": "q0 A"}}, "predictions": "A", "references": "A", "correct": true},
            "1": {"origin_prediction": {"A": {"prompt": "q1 A"}}, "predictions": "B", "references": "C", "correct": false},
            "10": {"origin_prediction": {"A": {"prompt": "q10 A"}}, "predictions": "D", "references": "D", "correct": true},
            "2": {"origin_prediction": {"A": {"prompt": "q2 A"}}, "predictions": "D", "references": "A", "correct": false}
        }
    });
    std::fs::write(&file, details.to_string()).expect("write");
    let rows = import_rows("opencompass", &[&file], &[], "opencompass-formatted-rows");
    let tasks: Vec<String> = rows
        .iter()
        .map(|r| format!("{}={}", text(r, "task"), text(r, "outcome")))
        .collect();
    assert_eq!(tasks, ["ARC-c_0=1", "ARC-c_1=0", "ARC-c_2=0", "ARC-c_10=1"]);
    assert!(rows.iter().all(|r| r["system"] == "llama-7b"));
    // An entry that is not numbered as OpenCompass numbers them is refused naming it.
    let mut odd = details.clone();
    odd["details"]["x"] = serde_json::json!({"correct": true});
    std::fs::write(&file, odd.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &file.to_string_lossy()]),
        "ARC-c.json: details: entry 'x' is not numbered as OpenCompass numbers them",
    );
}

#[test]
fn a_running_opencompass_run_says_what_is_answered_but_not_graded_and_is_followed() {
    let run = run_copy("opencompass-live");
    let graded = run.join("results/standin-50/arith-hard.json");
    let kept = std::fs::read(&graded).expect("read");
    std::fs::remove_file(&graded).expect("remove");
    // A dataset being answered in parts, and one being answered now.
    let predictions = run.join("predictions/standin-50");
    std::fs::copy(
        predictions.join("arith-easy.json"),
        predictions.join("arith-more_0.json"),
    )
    .expect("copy");
    std::fs::copy(
        predictions.join("arith-easy.json"),
        predictions.join("tmp_arith-new.json"),
    )
    .expect("copy");
    let words = info_words(&[&run.to_string_lossy()]);
    assert!(
        words.contains("answered but not graded yet (predictions/ without results/: a run still evaluating): standin-50/arith-hard, standin-50/arith-more, standin-50/arith-new"),
        "{words}"
    );
    // `watch` follows the run: a dataset's samples count once its results file is written.
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&run)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 210 + 40 + 50 + 30);
    std::fs::write(&graded, kept).expect("write");
    // The run is read again whole, now with standin-50's 90 samples of arith-hard.
    assert_eq!(rows_once_read(&mut followed), 420);
}

#[test]
fn opencompass_files_with_no_sample_outcome_are_refused_naming_what_to_give() {
    let predictions = run_folder().join("predictions/standin-70/arith-easy.json");
    assert_refused(
        &pareval(&["info", &predictions.to_string_lossy()]),
        "arith-easy.json: OpenCompass's predictions (the model's answers, not graded): its eval task writes results/<model>/<dataset>.json",
    );
    let dir = temp_dir("opencompass-no-details").join("results/m");
    std::fs::create_dir_all(&dir).expect("folder");
    let figures = dir.join("gsm8k.json");
    std::fs::write(&figures, r#"{"accuracy": 71.5}"#).expect("write");
    assert_refused(
        &pareval(&["info", &figures.to_string_lossy()]),
        "gsm8k.json: an evaluator's figures with no per-sample details (OpenCompass writes its results/<model>/<dataset>.json so when run with --dump-eval-details False)",
    );
}

#[test]
fn a_results_folder_copied_alone_is_known_by_its_files_beginnings() {
    // No predictions/ beside it, and a file written without details first in path order.
    let results = temp_dir("opencompass-copied").join("results");
    let model = results.join("standin-70");
    std::fs::create_dir_all(&model).expect("folder");
    let from = run_folder().join("results/standin-70");
    // (What `--dump-eval-details False` writes: the figures alone.)
    std::fs::write(model.join("a-figures.json"), r#"{"accuracy": 70.0}"#).expect("write");
    std::fs::copy(from.join("arith-hard.json"), model.join("arith-hard.json")).expect("copy");
    let words = info_words(&[&results.to_string_lossy()]);
    assert!(
        words.contains("read as opencompass (recognised by its layout)")
            && words.contains("left out, with no per-sample outcome: standin-70/a-figures.json (no per-sample details (OpenCompass writes them unless --dump-eval-details False))"),
        "{words}"
    );
    // Another tool's results/ of JSON files is not taken for OpenCompass's.
    let other = temp_dir("opencompass-other").join("results");
    std::fs::create_dir_all(other.join("m")).expect("folder");
    std::fs::write(
        other.join("m/run.json"),
        r#"{"details": {"note": "type GEN"}, "system": "x"}"#,
    )
    .expect("write");
    // Nor is it with a predictions/ folder beside it, as OpenCompass's run has.
    std::fs::create_dir_all(other.parent().expect("parent").join("predictions/m")).expect("folder");
    assert_refused(
        &pareval(&["info", &other.parent().expect("parent").to_string_lossy()]),
        "the folder holds no result files yet",
    );
    // (Read as any folder: its results lie in a subfolder, which it names.)
    assert_refused(
        &pareval(&["info", &other.to_string_lossy()]),
        "results: the folder holds no result files yet",
    );
}

#[test]
fn opencompass_numbered_replicas_are_told_by_their_figures_or_their_prompts() {
    let dir = temp_dir("opencompass-replicas").join("results/m");
    std::fs::create_dir_all(&dir).expect("folder");
    let file = dir.join("qa.json");
    let entry = |q: usize, right: bool| serde_json::json!({"prompt": format!("question {q}"), "predictions": if right { "x" } else { "y" }, "references": "x"});
    // Two replicas of three questions (2 of 3 right, then 1 of 3), the figures naming them: the
    // mean of both, 50.
    let mut details = serde_json::json!({"type": "GEN"});
    for (i, right) in [true, false, true, true, false, false]
        .into_iter()
        .enumerate()
    {
        details[i.to_string()] = entry(i % 3, right);
    }
    let named = serde_json::json!({"accuracy (2 runs average)": 50.0, "details": details.clone()});
    std::fs::write(&file, named.to_string()).expect("write");
    let rows = import_rows("opencompass", &[&file], &[], "opencompass-replicas-named");
    let got: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{}/{}={}",
                text(r, "task"),
                text(r, "run"),
                text(r, "outcome")
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "qa_0/0=1", "qa_1/0=0", "qa_2/0=1", "qa_0/1=1", "qa_1/1=0", "qa_2/1=0"
        ]
    );
    // Unnamed (an evaluator without details reports its last replica, 1 of 3): told by the
    // prompts' period and checked against the last replica.
    let unnamed = serde_json::json!({"accuracy": 33.333333333333336, "details": details.clone()});
    std::fs::write(&file, unnamed.to_string()).expect("write");
    assert_eq!(
        import_rows("opencompass", &[&file], &[], "opencompass-replicas-unnamed"),
        rows
    );
    // Read as six questions instead, the mean (3 of 6) would not be that figure: refused.
    let mut distinct = details.clone();
    for i in 0..6 {
        distinct[i.to_string()]["prompt"] = Value::String(format!("question {i}"));
    }
    std::fs::write(
        &file,
        serde_json::json!({"accuracy": 33.333333333333336, "details": distinct}).to_string(),
    )
    .expect("write");
    assert_refused(
        &pareval(&["info", &file.to_string_lossy()]),
        "predictions == references gives 50.0000, not its 'accuracy' 33.3333",
    );
    // Named replicas whose entries have a gap cannot be told apart.
    let mut gap = details;
    gap["7"] = gap["5"].clone();
    gap.as_object_mut().expect("object").remove("5");
    std::fs::write(
        &file,
        serde_json::json!({"accuracy (2 runs average)": 50.0, "details": gap}).to_string(),
    )
    .expect("write");
    assert_refused(
        &pareval(&["info", &file.to_string_lossy()]),
        "qa.json: details: its figures name 2 runs, but its entries are not numbered 0 to 5 with no gap",
    );
}
