//! WildBench's per-sample scores: excerpts of its public score files
//! (`tests/fixtures/wildbench/`, whose README gives the figures).

use serde_json::Value;

use crate::common::{assert_refused, fixture, pareval, temp_dir};
use crate::import_formats::{import_rows, info_words, tally};

fn scores(model: &str) -> std::path::PathBuf {
    fixture("wildbench")
        .join("eval_results/v2.0625/score.v2/eval=gpt-4o-2024-05-13")
        .join(format!("{model}.json"))
}

#[test]
fn wildbench_scores_are_the_judge_s_ratings_over_ten_per_session() {
    let folder = scores("gemma-2b-it")
        .parent()
        .expect("folder")
        .to_path_buf();
    let rows = import_rows("wildbench", &[&folder], &[], "wildbench-folder");
    let counts = tally(&rows);
    let close = |got: f64, want: f64| (got - want).abs() < 1e-9;
    // Σ score 159 and 181 over the same 30 sessions: the leaderboard's score is the mean × 10.
    assert_eq!(
        (counts["gemma-2b-it"].rows, counts["gemma-2b-it"].tasks),
        (30, 30)
    );
    assert!(close(counts["gemma-2b-it"].outcome_sum, 15.9));
    assert!(close(counts["gemma-7b-it"].outcome_sum, 18.1));
    let words = info_words(&[&folder.to_string_lossy()]);
    assert!(
        words.contains("read as wildbench (recognised by its keys)"),
        "{words}"
    );
    assert!(
        words.contains("WildBench scores (WB-Score) of gemma-2b-it by gpt-4o-2024-05-13"),
        "{words}"
    );
    assert!(
        words.contains("the entries' model_test is google/gemma-2b-it"),
        "{words}"
    );
    assert!(
        words.contains("pairs 2 directed (median 30 shared tasks)"),
        "{words}"
    );
}

#[test]
fn wildbench_ratings_off_the_scale_or_not_numbers_are_refused_naming_the_entry() {
    let dir = temp_dir("wildbench-bad");
    let entries: Value =
        serde_json::from_slice(&std::fs::read(scores("gemma-7b-it")).expect("read")).expect("json");
    for (rating, words) in [
        (
            Value::from("11"),
            "entry 2: score is 11, off the scale 0–10",
        ),
        (
            Value::from("n/a"),
            "entry 2: score is \"n/a\", not a rating",
        ),
    ] {
        let mut bad = entries.clone();
        bad[1]["score"] = rating;
        let file = dir.join("model.json");
        std::fs::write(&file, bad.to_string()).expect("write");
        assert_refused(&pareval(&["info", &file.to_string_lossy()]), words);
    }
    // Sonnet-judged files keep the rating in parsed_result only; a session scored twice is a
    // further run.
    let mut sonnet = entries.clone();
    let list = sonnet.as_array_mut().expect("entries");
    for entry in list.iter_mut() {
        entry.as_object_mut().expect("entry").remove("score");
    }
    let again = list[0].clone();
    list.push(again);
    let file = dir.join("sonnet-judged.json");
    std::fs::write(&file, sonnet.to_string()).expect("write");
    let rows = import_rows("wildbench", &[&file], &[], "wildbench-sonnet");
    assert_eq!(rows.len(), 31);
    assert_eq!(rows.iter().filter(|r| r["run"] == "1").count(), 1);
    // A 1–10 scale read as 0–1 with --score-scale 1:10.
    let scaled = import_rows(
        "wildbench",
        &[&scores("gemma-7b-it")],
        &["--score-scale", "1:10"],
        "wildbench-scaled",
    );
    let sum: f64 = scaled
        .iter()
        .map(|r| {
            r["outcome"]
                .as_str()
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0)
        })
        .sum();
    assert!((sum - (181.0 - 30.0) / 9.0).abs() < 1e-9, "{sum}");
}
