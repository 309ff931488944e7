//! BALROG's results (tests/fixtures/balrog: run folders written by BALROG's own `eval.py` with
//! stand-in models, see its README), checked against BALROG's own figures: each environment's
//! `<env>_summary.json` and the run's `summary.json`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::{assert_refused, copy_tree, fixture, pareval, stderr, temp_dir};
use crate::import_formats::{import_rows, info_words, json_file as json};

const GOOD: &str = "2026-12-06_08-15-01_naive_standin-good";
const BAD: &str = "2026-12-06_08-15-42_naive_standin-bad";

fn results() -> PathBuf {
    fixture("balrog/results")
}

fn number(row: &Value, key: &str) -> f64 {
    row[key]
        .as_str()
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The rows' mean outcome and count per (system, group).
fn by_group(rows: &[Value]) -> BTreeMap<(String, String), (f64, usize)> {
    let mut sums: BTreeMap<(String, String), (f64, usize)> = BTreeMap::new();
    for row in rows {
        let key = (
            row["system"].as_str().expect("system").to_string(),
            row["group"].as_str().expect("group").to_string(),
        );
        let entry = sums.entry(key).or_default();
        entry.0 += number(row, "outcome");
        entry.1 += 1;
    }
    sums.into_iter()
        .map(|(key, (sum, n))| (key, (sum / n as f64, n)))
        .collect()
}

#[test]
fn a_folder_of_runs_gives_balrogs_own_summaries() {
    let rows = import_rows("balrog", &[&results()], &[], "balrog-results");
    // Two models, 24 episodes each: BabyAI 5 tasks, TextWorld 3, BabaIsAI 3, Crafter 1, two
    // episodes of each.
    assert_eq!(rows.len(), 48);
    let means = by_group(&rows);
    for run in [GOOD, BAD] {
        let summary = json(&results().join(run).join("summary.json"));
        let environments = summary["environments"].as_object().expect("environments");
        assert_eq!(environments.len(), 4, "{run}");
        let mut of_envs = 0.0;
        for (env, figures) in environments {
            let env_summary = json(
                &results()
                    .join(run)
                    .join(env)
                    .join(format!("{env}_summary.json")),
            );
            let (mean, n) = means[&(run.to_string(), env.clone())];
            assert_eq!(
                n as u64,
                env_summary["episodes_played"].as_u64().expect("episodes"),
                "{run} {env}"
            );
            let percentage = env_summary["progression_percentage"]
                .as_f64()
                .expect("percentage");
            assert!(
                (100.0 * mean - percentage).abs() < 1e-9,
                "{run} {env}: {mean} against {percentage}"
            );
            assert_eq!(
                figures["progression_percentage"],
                env_summary["progression_percentage"]
            );
            of_envs += 100.0 * mean;
        }
        // BALROG's overall figure averages the environments.
        let average = summary["average_progress"].as_f64().expect("average");
        assert!((of_envs / 4.0 - average).abs() < 1e-9, "{run}: {average}");
    }
    // The good model's figures, so a summary read wrongly on both sides cannot pass.
    assert!((means[&(GOOD.to_string(), "babyai".to_string())].0 - 0.4).abs() < 1e-12);
    let crafter = means[&(GOOD.to_string(), "crafter".to_string())].0;
    assert!((crafter - 1.0 / 22.0).abs() < 1e-12, "{crafter}");
    // A task named with a slash loses its shared first segment; runs are the episodes' numbers.
    let tasks: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r["task"].as_str()).collect();
    for task in [
        "babaisai/goto_win",
        "babyai/goto",
        "babyai/pick_up_seq_go_to",
        "textworld/coin_collector",
        "crafter/default",
    ] {
        assert!(tasks.contains(task), "{task} in {tasks:?}");
    }
    assert!(
        rows.iter().all(|r| r["run"] == "0" || r["run"] == "1"),
        "runs 0 and 1"
    );
    let words = info_words(&[results().to_str().expect("path")]);
    assert!(
        words.contains("read as balrog (recognised by its layout)"),
        "{words}"
    );
    assert!(
        words.contains("2 episodes have partial progression (between 0 and 1) in crafter"),
        "{words}"
    );
}

#[test]
fn metric_success_reads_whether_progression_is_one() {
    let rows = import_rows(
        "balrog",
        &[&results().join(GOOD)],
        &["--metric", "success"],
        "balrog-success",
    );
    let means = by_group(&rows);
    // Crafter's partial progression (1/22) is no success; BabyAI's binary one is unchanged.
    assert_eq!(means[&(GOOD.to_string(), "crafter".to_string())].0, 0.0);
    assert!((means[&(GOOD.to_string(), "babyai".to_string())].0 - 0.4).abs() < 1e-12);
    let refused = pareval(&[
        "info",
        results().to_str().expect("path"),
        "--from",
        "balrog",
        "--metric",
        "score",
    ]);
    assert_refused(
        &refused,
        "--metric score: BALROG's outcomes are progression or success",
    );
}

#[test]
fn started_episodes_of_a_stopped_run_are_not_attempted() {
    // SIGTERM left pickup_run_02.csv empty (unflushed); SIGINT left goto_run_01.csv with four
    // steps. Neither has a result; neither run wrote its summary.json, so the finished episodes
    // of those tasks wait too (the task's outcome is the mean of all its episodes).
    for (folder, task, held, read) in [
        ("balrog/killed", "babyai/pickup", 2, 3),
        ("balrog/interrupted", "babyai/goto", 1, 0),
    ] {
        let rows = import_rows("balrog", &[&fixture(folder)], &[], "balrog-stopped");
        let waiting: Vec<&Value> = rows
            .iter()
            .filter(|r| r["status"] == "not_attempted")
            .collect();
        assert_eq!(waiting.len(), 1 + held, "{folder}");
        assert!(waiting.iter().all(|r| r["task"] == task), "{folder}");
        assert_eq!(rows.len() - waiting.len(), read, "{folder}");
        let words = info_words(&[fixture(folder).to_str().expect("path")]);
        assert!(
            words.contains("1 episode has steps and no result yet (running, or crashed"),
            "{words}"
        );
        assert!(
            words.contains(&format!(
                "the run has no summary.json yet (running, or stopped): {held} finished episode"
            )),
            "{words}"
        );
    }
}

#[test]
fn summaries_are_pointed_to_their_run_folder_and_summary_only_runs_are_named() {
    let good = results().join(GOOD);
    let output = pareval(&["info", good.join("summary.json").to_str().expect("path")]);
    assert_refused(&output, "BALROG's summary of a run");
    assert!(stderr(&output).contains(&format!("give its run folder {}", good.display())));
    let env = pareval(&[
        "info",
        good.join("babyai/babyai_summary.json")
            .to_str()
            .expect("path"),
    ]);
    assert_refused(&env, "BALROG's summary of an environment");
    // A folder of runs where one holds only its summaries (the leaderboard's older submissions).
    let root = temp_dir("balrog-summary-only");
    copy_tree(&results(), &root);
    let only = root.join("2024_naive_summary-only");
    std::fs::create_dir_all(&only).expect("folder");
    std::fs::copy(good.join("summary.json"), only.join("summary.json")).expect("copy");
    let words = info_words(&[root.to_str().expect("path")]);
    assert!(
        words.contains("1 run folder holds only BALROG's summaries, no episode results: not read"),
        "{words}"
    );
    assert!(words.contains("2024_naive_summary-only"), "{words}");
    let alone = pareval(&["info", only.to_str().expect("path"), "--from", "balrog"]);
    assert_refused(&alone, "its run folder holds no episode results");
}

#[test]
fn a_results_tree_is_followed_as_episodes_land() {
    // watch's stamp of a BALROG folder changes when an episode's result is written.
    let root = temp_dir("balrog-stamp");
    copy_tree(&fixture("balrog/interrupted"), &root);
    let before = pareval::data::import::change_stamp(&root).expect("a stamp");
    let steps = std::fs::read_dir(&root)
        .expect("run folder")
        .flatten()
        .next()
        .expect("the run")
        .path()
        .join("babyai/BabyAI-MixedTrainLocal-v0/goto/BabyAI-MixedTrainLocal-v0");
    std::fs::copy(
        steps.join("goto_run_00.json"),
        steps.join("goto_run_01.json"),
    )
    .expect("copy");
    let after = pareval::data::import::change_stamp(&root).expect("a stamp");
    assert_ne!(before, after);
    let words = info_words(&[root.to_str().expect("path")]);
    assert!(!words.contains("no result yet"), "{words}");
}

/// A copy of the two runs with one episode of the good run's first planned task still running:
/// its result is gone, its steps file stays (as BALROG leaves an episode it has not finished).
fn runs_with_an_episode_running(name: &str) -> (PathBuf, PathBuf) {
    let root = temp_dir(name);
    copy_tree(&results(), &root);
    let goto = root
        .join(GOOD)
        .join("babyai/BabyAI-MixedTrainLocal-v0/goto/BabyAI-MixedTrainLocal-v0");
    std::fs::remove_file(goto.join("goto_run_01.json")).expect("remove the result");
    assert!(goto.join("goto_run_01.csv").is_file());
    // A run going on has written no summaries yet.
    std::fs::remove_file(root.join(GOOD).join("summary.json")).expect("remove the summary");
    let plan = root.join("plan.csv");
    let tasks = [
        "babyai/goto",
        "babaisai/goto_win",
        "textworld/coin_collector",
        "crafter/default",
        "babyai/open",
        "babaisai/make_win",
        "textworld/the_cooking_game",
        "babyai/pickup",
        "babaisai/two_room-goto_win",
        "textworld/treasure_hunter",
        "babyai/putnext",
        "babyai/pick_up_seq_go_to",
    ];
    std::fs::write(&plan, format!("task\n{}\n", tasks.join("\n"))).expect("plan");
    (root, plan)
}

#[test]
fn a_task_with_an_episode_still_running_is_waited_on() {
    // Its finished episode alone would be read as the task's outcome, and the episode still
    // running would change it afterwards (SPEC §9c): the prefix stops there instead.
    let (root, plan) = runs_with_an_episode_running("balrog-running-decide");
    let decide = || {
        pareval(&[
            "decide",
            root.to_str().expect("path"),
            "--plan",
            plan.to_str().expect("path"),
            "--tested",
            GOOD,
            "--baseline",
            BAD,
            "--rule",
            "anytime",
            "--format",
            "text",
        ])
    };
    let output = decide();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = crate::common::stdout(&output);
    assert!(text.contains("0 of 12 planned tasks read"), "{text}");
    assert!(
        text.contains(&format!("waiting on babyai/goto for {GOOD}")),
        "{text}"
    );
    // With the run finished (its summary.json written), an episode that never wrote its result
    // crashed: the task keeps the episode that finished, as BALROG's summaries keep it.
    std::fs::copy(
        results().join(GOOD).join("summary.json"),
        root.join(GOOD).join("summary.json"),
    )
    .expect("copy the summary");
    let output = decide();
    let text = crate::common::stdout(&output);
    assert!(text.contains("12 of 12 planned tasks read"), "{text}");
}

#[test]
fn import_names_run_folders_as_folders() {
    // A BALROG run folder is read whole: `import` says how many folders it read, not "files".
    let dir = temp_dir("balrog-import-words");
    let out = dir.join("balrog.csv").display().to_string();
    let folder = results().display().to_string();
    let output = pareval(&["import", "balrog", &folder, "--out", &out]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = crate::common::stdout(&output);
    assert!(
        text.starts_with("wrote 48 rows (2 systems, 12 tasks) from 1 balrog folder to"),
        "{text}"
    );
    let runs: Vec<String> = std::fs::read_dir(results())
        .expect("runs")
        .map(|entry| entry.expect("entry").path().display().to_string())
        .collect();
    let mut args = vec!["import", "balrog"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--out", &out]);
    let text = crate::common::stdout(&pareval(&args));
    assert!(text.contains("from 2 balrog folders to"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
