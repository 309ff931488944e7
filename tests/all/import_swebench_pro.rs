//! SWE-Bench Pro's `eval_results.json` (tests/fixtures/swebench_pro: two real leaderboard runs).

use serde_json::Value;

use crate::common::{assert_refused, fixture, pareval, temp_dir};
use crate::import_formats::{import_rows, info_words, tally};

const CLAUDE: &str = "claude-45sonnet-10132025";
const KIMI: &str = "kimi-k2-instruct-10132025";

fn results_of(run: &str) -> std::path::PathBuf {
    fixture("swebench_pro/traj")
        .join(run)
        .join("eval_results.json")
}

#[test]
fn eval_results_give_each_run_its_instances_and_repositories() {
    let rows = import_rows(
        "swebench-pro",
        &[&results_of(CLAUDE), &results_of(KIMI)],
        &[],
        "swebench-pro-runs",
    );
    let tallies = tally(&rows);
    // The fixture's README: 319 of 730 and 202 of 729 (Python's json).
    assert_eq!(
        (tallies[CLAUDE].rows, tallies[CLAUDE].outcome_sum),
        (730, 319.0)
    );
    assert_eq!(
        (tallies[KIMI].rows, tallies[KIMI].outcome_sum),
        (729, 202.0)
    );
    let mut groups = std::collections::BTreeMap::<&str, usize>::new();
    for row in rows.iter().filter(|r| r["system"] == CLAUDE) {
        *groups
            .entry(row["group"].as_str().expect("group"))
            .or_default() += 1;
    }
    assert_eq!(groups.len(), 11, "{groups:?}");
    assert_eq!(groups["ansible/ansible"], 96);
    assert_eq!(groups["element-hq/element-web"], 55);
    // Recognised by its keys, in a folder of runs too, each named after its folder.
    let words = info_words(&[&fixture("swebench_pro/traj").to_string_lossy()]);
    assert!(words.contains("systems 2"), "{words}");
    assert!(
        words.contains("read as swebench-pro (recognised by its keys)"),
        "{words}"
    );
    assert!(
        words.contains(&format!("it is named after its folder, '{CLAUDE}'")),
        "{words}"
    );
}

#[test]
fn a_split_scores_the_instances_a_run_has_no_result_for_and_refuses_strangers() {
    let dir = temp_dir("swebench-pro-split");
    let claude: Value =
        serde_json::from_slice(&std::fs::read(results_of(CLAUDE)).expect("file")).expect("JSON");
    let ids: Vec<&str> = claude
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    // The split as the dataset exports it: a CSV with an instance_id column.
    let split = dir.join("split.csv");
    std::fs::write(
        &split,
        format!("instance_id,repo\n{}\n", ids.join(",x\n") + ",x"),
    )
    .expect("split");
    let rows = import_rows(
        "swebench-pro",
        &[&results_of(KIMI)],
        &["--split", &split.to_string_lossy()],
        "swebench-pro-split-rows",
    );
    let tallies = tally(&rows);
    assert_eq!(
        (tallies[KIMI].rows, tallies[KIMI].outcome_sum),
        (730, 202.0)
    );
    let unevaluated: Vec<&str> = rows
        .iter()
        .filter(|r| r["source"] == "swebench-pro not evaluated (no patch)")
        .map(|r| r["task"].as_str().expect("task"))
        .collect();
    assert_eq!(
        unevaluated,
        [
            "instance_qutebrowser__qutebrowser-ff1c025ad3210506fc76e1f604d8c8c27637d88e-v363c8a7e5ccdf6968fc7ab84a2053ac78036691d"
        ]
    );
    // The CSV swe_bench_pro_eval.py takes (--raw_sample_path): quoted fields hold commas, quotes
    // and line breaks (before_repo_set_cmd), which a reader by lines took for ids.
    let raw = dir.join("raw_sample.csv");
    let mut text = String::from("repo,instance_id,before_repo_set_cmd,fail_to_pass\n");
    for id in &ids {
        text.push_str(&format!(
            "x/y,{id},\"git reset --hard abc\ngit clean -fd, then \"\"checkout\"\"\",\"['test_a', 'test_b']\"\n"
        ));
    }
    std::fs::write(&raw, text).expect("raw sample");
    let rows = import_rows(
        "swebench-pro",
        &[&results_of(KIMI)],
        &["--split", &raw.to_string_lossy()],
        "swebench-pro-raw-sample",
    );
    assert_eq!(rows.len(), 730);
    // A run's instance outside the split is refused, named.
    let short = dir.join("short.txt");
    std::fs::write(&short, ids[..700].join("\n")).expect("split");
    let refused = pareval(&[
        "info",
        &results_of(CLAUDE).to_string_lossy(),
        "--split",
        &short.to_string_lossy(),
    ]);
    assert_refused(&refused, "30 listed instances are not in");
    let not_a_file = pareval(&[
        "info",
        &results_of(CLAUDE).to_string_lossy(),
        "--split",
        "verified",
    ]);
    assert_refused(
        &not_a_file,
        "SWE-Bench Pro's split is a file of its instance ids",
    );
}

#[test]
fn an_output_dir_is_read_through_its_results_and_a_result_that_is_not_a_boolean_is_refused() {
    let dir = temp_dir("swebench-pro-output").join("my-run");
    // The script's output_dir: eval_results.json beside one folder per instance with the tests'
    // statuses (`<prefix>_output.json`), the patch and the logs.
    for instance in ["instance_a__b-1", "instance_c__d-2"] {
        let folder = dir.join(instance);
        std::fs::create_dir_all(&folder).expect("folder");
        std::fs::write(
            folder.join("_output.json"),
            r#"{"tests": [{"name": "test_x", "status": "PASSED"}]}"#,
        )
        .expect("output");
        std::fs::write(folder.join("_patch.diff"), "diff --git a/x b/x\n").expect("patch");
    }
    std::fs::copy(results_of(KIMI), dir.join("eval_results.json")).expect("copy");
    let words = info_words(&[&dir.to_string_lossy()]);
    assert!(words.contains("systems 1"), "{words}");
    assert!(
        words
            .contains("left out its 2 instance folders (SWE-Bench Pro's per-instance test outputs"),
        "{words}"
    );
    assert!(!words.contains("not read"), "{words}");
    // A value the script never writes.
    let mut results: Value =
        serde_json::from_slice(&std::fs::read(results_of(KIMI)).expect("file")).expect("JSON");
    let first = results
        .as_object()
        .and_then(|o| o.keys().next().cloned())
        .expect("an instance");
    results[&first] = Value::Null;
    let broken = dir.parent().expect("parent").join("broken.json");
    std::fs::write(&broken, results.to_string()).expect("write");
    let refused = pareval(&["info", "--from", "swebench-pro", &broken.to_string_lossy()]);
    assert_refused(
        &refused,
        &format!("instance '{first}' is null, not true or false"),
    );
}
