//! Humanity's Last Exam: `run_judge_results.py`'s judged files, written by HLE's own scripts
//! (`tests/fixtures/hle/`, whose README gives the figures the script printed).

use serde_json::Value;

use crate::common::{assert_refused, fixture, pareval, stderr, temp_dir};
use crate::import_formats::{import_rows, info_words, tally};

fn judged(model: &str) -> std::path::PathBuf {
    fixture("hle").join(format!("judged_hle_{model}.json.json"))
}

#[test]
fn hle_judgments_give_the_judge_s_verdict_per_question() {
    let rows = import_rows(
        "hle",
        &[&judged("stand-in-strong"), &judged("stand-in-weak")],
        &[],
        "hle-judged",
    );
    let counts = tally(&rows);
    // 119 judged each: the strong model's question whose judging failed and the weak model's
    // whose API call failed are not in the files.
    assert_eq!(counts["stand-in-strong"].rows, 119);
    assert_eq!(counts["stand-in-strong"].outcome_sum, 79.0);
    assert_eq!(counts["stand-in-weak"].rows, 119);
    assert_eq!(counts["stand-in-weak"].outcome_sum, 40.0);
    let row = rows
        .iter()
        .find(|r| r["system"] == "stand-in-strong" && r["outcome"] == "1")
        .expect("a right answer");
    assert!(
        row["source"]
            .as_str()
            .is_some_and(|s| s.contains("judged correct \"yes\", confidence 90")),
        "{row}"
    );
    let words = info_words(&[&judged("stand-in-strong").to_string_lossy()]);
    assert!(
        words.contains("read as hle (recognised by its keys)"),
        "{words}"
    );
    assert!(
        words.contains("only the 119 questions in the file are read"),
        "{words}"
    );
}

#[test]
fn hle_with_the_question_list_counts_what_the_file_lacks_as_the_script_does() {
    // run_judge_results.py's Accuracy divides by every question: strong 65.83%, weak 33.33%.
    let questions = fixture("hle").join("questions.csv");
    let rows = import_rows(
        "hle",
        &[&judged("stand-in-strong"), &judged("stand-in-weak")],
        &["--split", &questions.to_string_lossy()],
        "hle-split",
    );
    let counts = tally(&rows);
    for (model, right) in [("stand-in-strong", 79.0), ("stand-in-weak", 40.0)] {
        assert_eq!(counts[model].rows, 120);
        assert_eq!(counts[model].outcome_sum, right);
        assert_eq!(counts[model].statuses.get("error"), Some(&1));
    }
    assert_eq!(
        format!(
            "{:.2}",
            100.0 * counts["stand-in-strong"].outcome_sum / 120.0
        ),
        "65.83"
    );
    // The list's categories are the groups.
    let groups: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r["group"].as_str()).collect();
    assert_eq!(
        groups.into_iter().collect::<Vec<_>>(),
        ["Biology/Medicine", "Math", "Physics"]
    );
    // A list that does not hold a judged question is refused naming it.
    let short = temp_dir("hle-short").join("ids.txt");
    let text = std::fs::read_to_string(&questions).expect("questions");
    let ids: Vec<&str> = text
        .lines()
        .skip(1)
        .take(5)
        .map(|l| l.split(',').next().unwrap_or(""))
        .collect();
    std::fs::write(&short, ids.join("\n")).expect("write");
    let refused = pareval(&[
        "info",
        "--split",
        &short.to_string_lossy(),
        &judged("stand-in-weak").to_string_lossy(),
    ]);
    assert_refused(
        &refused,
        "114 judged questions are not in the question list",
    );
    // A list that is not a readable CSV, or lists a question twice, is refused naming the file.
    let bad = temp_dir("hle-bad-list").join("questions.csv");
    for (text, words) in [
        (
            "id,category\n\"abc\n",
            "cannot read the question list as CSV",
        ),
        (
            "id,category\nabc,Math\nabc,Physics\n",
            "question 'abc' is listed twice",
        ),
        ("task,category\nabc,Math\n", "with no id column"),
    ] {
        std::fs::write(&bad, text).expect("write");
        let refused = pareval(&[
            "info",
            "--split",
            &bad.to_string_lossy(),
            &judged("stand-in-weak").to_string_lossy(),
        ]);
        assert_refused(&refused, words);
        assert!(stderr(&refused).contains("questions.csv"));
    }
}

#[test]
fn hle_predictions_before_judging_and_odd_verdicts_are_refused_naming_them() {
    let predictions = fixture("hle").join("hle_stand-in-weak.json");
    assert_refused(
        &pareval(&["info", &predictions.to_string_lossy()]),
        "not judged yet: run hle_eval/run_judge_results.py --predictions hle_stand-in-weak.json and read the judged_hle_stand-in-weak.json.json it writes",
    );
    let dir = temp_dir("hle-odd");
    let mut value: Value =
        serde_json::from_slice(&std::fs::read(judged("stand-in-weak")).expect("judged"))
            .expect("json");
    let first = value
        .as_object()
        .and_then(|object| object.keys().nth(1))
        .expect("a key")
        .clone();
    value[&first]["judge_response"]["correct"] = Value::from(3);
    let odd = dir.join("judged_hle_odd.json.json");
    std::fs::write(&odd, value.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &odd.to_string_lossy()]),
        &format!("question {first}: judge_response.correct is 3, not \"yes\" or \"no\""),
    );
    // An entry carried over without a verdict counts wrong, as dump_metrics counts it.
    value[&first]
        .as_object_mut()
        .expect("entry")
        .remove("judge_response");
    std::fs::write(&odd, value.to_string()).expect("write");
    let rows = import_rows("hle", &[&odd], &[], "hle-unjudged");
    let row = rows
        .iter()
        .find(|r| r["task"] == first.as_str())
        .expect("the entry");
    assert_eq!(
        (row["outcome"].as_str(), row["status"].as_str()),
        (Some("0"), Some("error"))
    );
}
