//! ARC-AGI scoring `results.json` (tests/fixtures/arc_agi: written by arc-agi-benchmarking's scorer).

use serde_json::Value;

use crate::common::{assert_refused, fixture, pareval, temp_dir};
use crate::import_formats::{import_rows, info_words, tally};

fn results_of(model: &str) -> std::path::PathBuf {
    fixture("arc_agi/results").join(model).join("results.json")
}

fn number(row: &Value, key: &str) -> f64 {
    row[key]
        .as_str()
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

#[test]
fn scores_costs_and_seconds_are_the_scorers() {
    let rows = import_rows(
        "arc-agi",
        &[&results_of("stand-in-strong"), &results_of("stand-in-weak")],
        &[],
        "arc-agi-rows",
    );
    let tallies = tally(&rows);
    // The scorer printed 4.50/6 and 1.50/6 (a task with two test pairs scores 0.5 for one).
    assert_eq!(
        (
            tallies["stand-in-strong"].rows,
            tallies["stand-in-strong"].outcome_sum
        ),
        (6, 4.5)
    );
    assert_eq!(
        (
            tallies["stand-in-weak"].rows,
            tallies["stand-in-weak"].outcome_sum
        ),
        (6, 1.5)
    );
    let of = |system: &str, key: &str| -> f64 {
        rows.iter()
            .filter(|r| r["system"] == system)
            .map(|r| number(r, key))
            .sum()
    };
    assert!((of("stand-in-strong", "cost_usd") - 0.644).abs() < 1e-9);
    assert!((of("stand-in-weak", "cost_usd") - 0.322).abs() < 1e-9);
    assert!((of("stand-in-strong", "seconds") - 148.0).abs() < 1e-9);
    let half = rows
        .iter()
        .find(|r| r["system"] == "stand-in-weak" && r["task"] == "b2c3d4e5")
        .expect("task b2c3d4e5");
    assert_eq!(number(half, "outcome"), 0.5);
    let words = info_words(&[&fixture("arc_agi/results").to_string_lossy()]);
    assert!(words.contains("systems 2"), "{words}");
    assert!(words.contains("read as arc-agi"), "{words}");
    assert!(
        words.contains("it is named after its folder (the scorer's results dir), 'stand-in-weak'"),
        "{words}"
    );
}

#[test]
fn a_task_list_scores_the_tasks_without_a_submission_and_bad_entries_are_refused() {
    let dir = temp_dir("arc-agi-split");
    let list = dir.join("tasks.txt");
    std::fs::write(
        &list,
        "00576224\n66e6c45b\na1b2c3d4\nb2c3d4e5\nc3d4e5f6\nd4e5f6a7\ne5f6a7b8\n",
    )
    .expect("list");
    let rows = import_rows(
        "arc-agi",
        &[&results_of("stand-in-weak")],
        &["--split", &list.to_string_lossy()],
        "arc-agi-split-rows",
    );
    let tallies = tally(&rows);
    assert_eq!(
        (
            tallies["stand-in-weak"].rows,
            tallies["stand-in-weak"].outcome_sum
        ),
        (7, 1.5)
    );
    let missing = rows
        .iter()
        .find(|r| r["task"] == "e5f6a7b8")
        .expect("the task without a submission");
    assert_eq!(missing["source"], "arc-agi no submission");
    let short = dir.join("short.txt");
    std::fs::write(&short, "00576224\n").expect("list");
    let refused = pareval(&[
        "info",
        &results_of("stand-in-weak").to_string_lossy(),
        "--split",
        &short.to_string_lossy(),
    ]);
    assert_refused(&refused, "5 listed tasks are not in the");
    // A submission (attempts, not scored yet) says how to score it.
    let submission = fixture("arc_agi/submissions/stand-in-weak/66e6c45b.json");
    let refused = pareval(&["info", &submission.to_string_lossy()]);
    assert_refused(
        &refused,
        "it looks like an ARC-AGI submission (one task's attempts, not scored)",
    );
    // A score the scorer cannot write.
    let mut results: Value =
        serde_json::from_slice(&std::fs::read(results_of("stand-in-weak")).expect("results"))
            .expect("JSON");
    results["task_results"]["66e6c45b"]["score"] = Value::from(2);
    let broken = dir.join("results.json");
    std::fs::write(&broken, results.to_string()).expect("write");
    let refused = pareval(&["info", &broken.to_string_lossy()]);
    assert_refused(
        &refused,
        "task '66e6c45b': score is 2, not a share in [0, 1]",
    );
}
