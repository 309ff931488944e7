//! The formats of issue 28 on real public files (and, where none is public, on files the harness's
//! own code wrote), in `tests/fixtures/<format>/` with a README naming each file's source and the
//! figures an independent reading of it gives; these tests reproduce those figures through
//! `pareval import` and `pareval info`, and check the refusals.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{assert_refused, copy_tree, fixture, flat, pareval, stderr, stdout, temp_dir};

/// A row of an imported JSON Lines table with its numbers (run, outcome, cost, seconds) as the text
/// the CSV table holds ("0", "0.25"): the importers' tests compare the canonical values, whichever
/// format carried them (JSON Lines has the numbers as numbers since they were text there; that is
/// checked in `import::imported_tables_in_typed_formats_hold_numbers_as_numbers`).
pub fn as_canonical_text(mut row: Value) -> Value {
    for key in ["run", "outcome", "cost_usd", "seconds"] {
        let text = match &row[key] {
            Value::Number(n) if n.is_u64() || n.is_i64() => n.to_string(),
            Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), |x| x.to_string()),
            _ => continue,
        };
        row[key] = Value::from(text);
    }
    row
}

/// The canonical rows `pareval import FORMAT PATH… [extra]` writes, as JSON objects (their numbers
/// as the canonical text: see [`as_canonical_text`]).
pub fn import_rows(format: &str, paths: &[&Path], extra: &[&str], name: &str) -> Vec<Value> {
    let out = temp_dir(name).join("rows.jsonl");
    let mut args = vec!["import".to_string(), format.to_string()];
    args.extend(paths.iter().map(|p| p.to_string_lossy().into_owned()));
    args.extend(["--out".to_string(), out.to_string_lossy().into_owned()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = pareval(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    std::fs::read_to_string(&out)
        .expect("read the import")
        .lines()
        .map(|line| as_canonical_text(serde_json::from_str(line).expect("a JSON line")))
        .collect()
}

/// A JSON file a test compares with (a harness's own figures).
pub fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON")
}

/// An imported row's outcome (NaN where it has none).
pub fn row_outcome(row: &Value) -> f64 {
    row["outcome"]
        .as_str()
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The rows `watch` reads from a followed path once some arrive (polling every 0.1 s for up to five
/// seconds).
pub fn rows_once_read(followed: &mut pareval::watch::follow::Followed) -> usize {
    let mut events = Vec::new();
    for _ in 0..50 {
        events.extend(followed.poll());
        if events
            .iter()
            .any(|e| matches!(e, pareval::watch::follow::Event::Row { .. }))
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    events
        .iter()
        .filter(|e| matches!(e, pareval::watch::follow::Event::Row { .. }))
        .count()
}

/// Per system: (rows, distinct tasks, sum of outcomes, rows of each status).
#[derive(Debug, Default, PartialEq)]
pub struct Tally {
    pub rows: usize,
    pub tasks: usize,
    pub outcome_sum: f64,
    pub statuses: BTreeMap<String, usize>,
}

pub fn tally(rows: &[Value]) -> BTreeMap<String, Tally> {
    let mut tasks: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    let mut out: BTreeMap<String, Tally> = BTreeMap::new();
    for row in rows {
        let system = row["system"].as_str().expect("system").to_string();
        let entry = out.entry(system.clone()).or_default();
        entry.rows += 1;
        entry.outcome_sum += row["outcome"]
            .as_str()
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0);
        *entry
            .statuses
            .entry(row["status"].as_str().expect("status").to_string())
            .or_default() += 1;
        tasks
            .entry(system)
            .or_default()
            .insert(row["task"].as_str().expect("task").to_string());
    }
    for (system, entry) in &mut out {
        entry.tasks = tasks[system].len();
    }
    out
}

/// `pareval info ARGS…` (which must succeed), its output's words joined by single spaces (the notes
/// are wrapped to the terminal's width).
pub fn info_words(args: &[&str]) -> String {
    let mut all = vec!["info"];
    all.extend(args);
    let info = pareval(&all);
    assert_eq!(info.status.code(), Some(0), "{}", stderr(&info));
    stdout(&info)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn evalplus_files_give_the_leaderboard_s_base_and_plus_counts() {
    let root = fixture("evalplus");
    let llama = root.join("llama3-exp/results");
    let rows = import_rows(
        "evalplus",
        &[
            &llama.join("70B-instruct-base/samples_eval_results.json"),
            &llama.join("8b-instruct-base/samples_eval_results.json"),
        ],
        &[],
        "evalplus-llama",
    );
    let counts = tally(&rows);
    // The systems are the folders: the files never name their model.
    assert_eq!(counts["70B-instruct-base"].rows, 164);
    assert_eq!(counts["70B-instruct-base"].outcome_sum, 116.0);
    // HumanEval/9 of the 8B file fails base and passes plus: plus alone would count 91.
    assert_eq!(counts["8b-instruct-base"].outcome_sum, 90.0);
    let base = tally(&import_rows(
        "evalplus",
        &[
            &llama.join("70B-instruct-base/samples_eval_results.json"),
            &llama.join("8b-instruct-base/samples_eval_results.json"),
        ],
        &["--evalplus-tests", "base"],
        "evalplus-llama-base",
    ));
    assert_eq!(base["70B-instruct-base"].outcome_sum, 127.0);
    assert_eq!(base["8b-instruct-base"].outcome_sum, 98.0);

    // Several samples of a task are its runs; a timeout is a failure with status error.
    let uneven = root.join("CodeCoR/results/samples_codecot_eval_results.json");
    let rows = import_rows("evalplus", &[&uneven], &[], "evalplus-uneven");
    let counts = tally(&rows);
    let codecot = &counts["samples_codecot"];
    assert_eq!(
        (codecot.rows, codecot.tasks, codecot.outcome_sum),
        (165, 164, 103.0)
    );
    assert_eq!(codecot.statuses.get("error"), Some(&1));
    assert!(
        rows.iter().any(|r| r["run"] == "1"),
        "a second sample is run 1"
    );

    // MBPP+ with a failing input wider than 64 bits (polars' JSON reader panicked on it).
    let mbpp = root.join("CodeCoR/results/output_self-planning_eval_results.json");
    let words = info_words(&[&mbpp.to_string_lossy()]);
    assert!(
        words.contains("read as evalplus (recognised by its keys)"),
        "{words}"
    );
    let counts = tally(&import_rows("evalplus", &[&mbpp], &[], "evalplus-mbpp"));
    assert_eq!(
        (
            counts["output_self-planning"].tasks,
            counts["output_self-planning"].outcome_sum
        ),
        (399, 116.0)
    );

    // A --base-only run is read on its base tests, and says so.
    let metagpt = root.join("MetaGPT/samples_eval_results.json");
    let words = info_words(&[&metagpt.to_string_lossy()]);
    assert!(words.contains("--base-only run"), "{words}");
    let counts = tally(&import_rows(
        "evalplus",
        &[&metagpt],
        &[],
        "evalplus-base-only",
    ));
    assert_eq!(
        (counts["MetaGPT"].rows, counts["MetaGPT"].outcome_sum),
        (168, 147.0)
    );

    // EvalPlus 0.1.1–0.2.0 files (nfiles, base/plus lists of [status, details]).
    let legacy = root.join("Evaluate_LLM_Evalplus/phi_1_samples_eval_results.json");
    let counts = tally(&import_rows("evalplus", &[&legacy], &[], "evalplus-legacy"));
    assert_eq!(counts["phi_1_samples"].outcome_sum, 68.0);
    let counts = tally(&import_rows(
        "evalplus",
        &[&legacy],
        &["--evalplus-tests", "base"],
        "evalplus-legacy-base",
    ));
    assert_eq!(counts["phi_1_samples"].outcome_sum, 78.0);
}

#[test]
fn bigcodebench_files_are_read_by_status_and_their_summaries_are_left_beside_them() {
    let folder = fixture("evalplus/bigcodebench/haozhe");
    // The folder holds the eval results and the `_pass_at_k.json` summary: only the first is read.
    let words = info_words(&[&folder.to_string_lossy()]);
    assert!(words.contains("read as bigcodebench"), "{words}");
    assert!(words.contains("checkpoint-800--main"), "{words}");
    let rows = import_rows("bigcodebench", &[&folder], &[], "bcb");
    let counts = tally(&rows);
    assert_eq!(counts["checkpoint-800--main"].rows, 148);
    // The summary beside it says pass@1 0.02027 = 3/148.
    assert_eq!(counts["checkpoint-800--main"].outcome_sum, 3.0);
    let eval_results = std::fs::read_dir(&folder)
        .expect("folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("_eval_results.json"))
        .expect("the eval results");
    let wrong = pareval(&[
        "info",
        "--from",
        "evalplus",
        &eval_results.to_string_lossy(),
    ]);
    assert_refused(&wrong, "read it with --from bigcodebench");
    // A model's file of another split beside it names the model alike: the collision says why and
    // the way out (it was a bare list of duplicate keys).
    let splits = temp_dir("bcb-splits");
    let name = eval_results
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    std::fs::copy(&eval_results, splits.join(&name)).expect("copy");
    std::fs::copy(
        &eval_results,
        splits.join(name.replace("hard-complete", "hard-instruct")),
    )
    .expect("copy");
    assert_refused(
        &pareval(&["info", &splits.to_string_lossy()]),
        "BigCodeBench writes a file per model and split (complete, instruct), subset (full, hard) and calibration, each naming the model alike: read one split's files at a time",
    );
}

#[test]
fn helm_run_folders_read_the_main_metric_on_the_main_split() {
    let public = fixture("helm/public");
    let rows = import_rows("helm", &[&public], &[], "helm-public");
    let counts = tally(&rows);
    // gpt2: MMLU philosophy's 9 test instances (exact_match 1) and NarrativeQA's 4 (f1_score
    // 0.69697); the valid instance of each is not a task of the main split.
    let gpt2 = &counts["openai/gpt2"];
    assert_eq!((gpt2.rows, gpt2.tasks), (13, 13));
    assert!(
        (gpt2.outcome_sum - (1.0 + 0.696_969_696_969_697)).abs() < 1e-9,
        "{}",
        gpt2.outcome_sum
    );
    // HellaSwag's main split is valid (HELM's classic schema).
    let pythia = &counts["eleutherai/pythia-1b-v0"];
    assert_eq!((pythia.rows, pythia.outcome_sum), (10, 3.0));
    let task = |prefix: &str| {
        rows.iter()
            .any(|r| r["task"].as_str().is_some_and(|t| t.starts_with(prefix)))
    };
    assert!(task(
        "mmlu:subject=philosophy,method=multiple_choice_joint/id"
    ));
    assert!(task("narrative_qa/id"));
    assert!(
        rows.iter().all(|r| r["seconds"].as_str().is_some()),
        "inference_runtime is the seconds"
    );
    let groups: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r["group"].as_str()).collect();
    assert_eq!(
        groups.into_iter().collect::<Vec<_>>(),
        ["hellaswag", "mmlu", "narrative_qa"]
    );
    let words = info_words(&[&public.to_string_lossy()]);
    assert!(
        words.contains("1 instance of another split than test"),
        "{words}"
    );

    // --metric names another stat; one outside [0, 1] is refused naming the file and the value.
    let quasi = tally(&import_rows(
        "helm",
        &[&public],
        &["--metric", "quasi_exact_match"],
        "helm-quasi",
    ));
    assert_eq!(quasi["eleutherai/pythia-1b-v0"].rows, 10);
    let tokens = pareval(&[
        "info",
        &public.to_string_lossy(),
        "--metric",
        "num_prompt_tokens",
    ]);
    assert_refused(&tokens, "num_prompt_tokens is");
    assert!(
        stderr(&tokens).contains("per_instance_stats.json"),
        "{}",
        stderr(&tokens)
    );
}

#[test]
fn a_helm_suite_keeps_perturbed_copies_and_summaries_out_and_train_trials_as_runs() {
    let suite = fixture("helm/generated/gen-v1");
    let words = info_words(&[&suite.to_string_lossy()]);
    assert!(
        words.contains("6 entries of perturbed instances"),
        "{words}"
    );
    let rows = import_rows("helm", &[&suite], &[], "helm-suite");
    let counts = tally(&rows);
    // model1: 5 instances of the plain run + 3 instances × 2 train trials of the augmented run.
    assert_eq!(
        (counts["simple/model1"].rows, counts["simple/model1"].tasks),
        (11, 8)
    );
    assert_eq!(
        (counts["simple/model2"].rows, counts["simple/model2"].tasks),
        (5, 5)
    );
    assert!(rows.iter().any(|r| r["run"] == "1"));
    // The two models share the plain run's tasks, so they are a pair.
    let shared = rows
        .iter()
        .filter(|r| r["system"] == "simple/model2")
        .all(|r| {
            rows.iter()
                .any(|o| o["system"] == "simple/model1" && o["task"] == r["task"])
        });
    assert!(shared);
}

#[test]
fn broken_helm_folders_and_unknown_json_name_the_file() {
    let dir = temp_dir("helm-broken");
    let run = dir.join("mmlu:subject=x,model=m");
    std::fs::create_dir_all(&run).expect("dir");
    let public = fixture("helm/public/narrative_qa:model=openai_gpt2");
    std::fs::copy(public.join("run_spec.json"), run.join("run_spec.json")).expect("copy");
    let stats = std::fs::read(public.join("per_instance_stats.json")).expect("stats");
    std::fs::write(
        run.join("per_instance_stats.json"),
        &stats[..stats.len() / 2],
    )
    .expect("write");
    let output = pareval(&["info", &run.to_string_lossy()]);
    assert_refused(&output, "not a HELM per_instance_stats.json");
    assert!(stderr(&output).contains("mmlu:subject=x,model=m/per_instance_stats.json"));

    // An instance without the main stat (HELM drops NaN stats) is not attempted, with a note.
    let mut entries: Vec<serde_json::Value> = serde_json::from_slice(&stats).expect("json");
    let first = entries[0]["stats"].as_array_mut().expect("stats");
    first.retain(|stat| stat["name"]["name"] != "f1_score");
    std::fs::write(
        run.join("per_instance_stats.json"),
        serde_json::to_vec(&entries).expect("json"),
    )
    .expect("write");
    let words = info_words(&[&run.to_string_lossy()]);
    assert!(words.contains("1 instance has no f1_score stat"), "{words}");
    let rows = import_rows("helm", &[&run], &[], "helm-missing");
    assert_eq!(
        tally(&rows)["openai/gpt2"].statuses.get("not_attempted"),
        Some(&1)
    );

    // The same run twice in one folder (a rerun) is refused naming both, with the reason.
    let again = dir.join("mmlu:subject=x,model=m,rerun");
    std::fs::create_dir_all(&again).expect("dir");
    for name in ["run_spec.json", "per_instance_stats.json"] {
        std::fs::copy(run.join(name), again.join(name)).expect("copy");
    }
    let output = pareval(&["info", &dir.to_string_lossy()]);
    assert_refused(&output, "duplicate (system, task, run) keys");
    assert!(
        stderr(&output).contains("two HELM runs of one model on one scenario"),
        "{}",
        stderr(&output)
    );
    std::fs::remove_dir_all(&again).expect("remove");

    // A JSON object of no format pareval reads: one message naming the file and the formats.
    let unknown = dir.join("results_2025.json");
    std::fs::write(&unknown, r#"{"results": {"gsm8k": {}}, "config": {}}"#).expect("write");
    let output = pareval(&["info", &unknown.to_string_lossy()]);
    assert_refused(&output, "not a result file pareval reads");
    for name in ["helm", "evalplus", "bigcodebench", "inspect", "lm-eval"] {
        assert!(stderr(&output).contains(name), "{}", stderr(&output));
    }
    assert!(stderr(&output).contains("results_2025.json"));
}

/// Σ `score` of o1's lines in the METR fixture (Python's reading).
const O1_SCORE_SUM: f64 = 29.301_884;

#[test]
fn metr_runs_are_read_by_alias_with_runs_numbered_by_start() {
    let old = fixture("metr/all_runs_2025-02-27_5_families.jsonl");
    let rows = import_rows("metr", &[&old], &[], "metr-2025");
    let counts = tally(&rows);
    let expected = [
        ("Claude 3 Opus", 75, 23.0),
        ("Claude 3.5 Sonnet (New)", 45, 30.0),
        ("Claude 3.5 Sonnet (Old)", 86, 31.0),
        ("GPT-4 0314", 40, 10.0),
        ("GPT-4 Turbo", 77, 18.0),
        ("GPT-4o", 75, 18.0),
        ("davinci-002", 5, 0.0),
        ("gpt-3.5-turbo-instruct", 30, 2.0),
        ("human", 35, 23.0),
        ("o1", 104, 19.0),
        ("o1-preview", 39, 24.0),
    ];
    assert_eq!(counts.len(), expected.len());
    for (alias, rows, passes) in expected {
        assert_eq!(
            (counts[alias].rows, counts[alias].outcome_sum),
            (rows, passes),
            "{alias}"
        );
    }
    let errors: usize = counts
        .values()
        .map(|t| t.statuses.get("error").copied().unwrap_or(0))
        .sum();
    assert_eq!(errors, 255, "fatal_error_from runs are errors, kept");
    // o1's 64 runs of one task are numbered 0..63 by start; the numbers are the same on a re-read.
    let o1_max = rows
        .iter()
        .filter(|r| r["system"] == "o1")
        .filter_map(|r| r["run"].as_str()?.parse::<u32>().ok())
        .max();
    assert_eq!(o1_max, Some(63));
    assert_eq!(rows, import_rows("metr", &[&old], &[], "metr-2025-again"));
    // Seconds are the task's human minutes × 60; the group is the family.
    let fix = rows
        .iter()
        .find(|r| r["task"] == "ai_rd_fix_embedding/main")
        .expect("a row");
    assert_eq!(fix["seconds"], "33396");
    assert_eq!(fix["group"], "ai_rd_fix_embedding");
    // --metric reads another field, when it is a score in [0, 1]; one that is not is refused
    // naming the line.
    let continuous = tally(&import_rows(
        "metr",
        &[&old],
        &["--metric", "score"],
        "metr-score",
    ));
    assert!((continuous["o1"].outcome_sum - O1_SCORE_SUM).abs() < 1e-6);
    let refused = pareval(&["info", &old.to_string_lossy(), "--metric", "human_minutes"]);
    assert_refused(&refused, "human_minutes is");
    assert!(stderr(&refused).contains("line "), "{}", stderr(&refused));

    // The 2026 schema, recognised by its keys.
    let new = fixture("metr/runs_th1-1_excerpt.jsonl");
    let words = info_words(&[&new.to_string_lossy()]);
    assert!(
        words.contains("read as metr (recognised by its keys)"),
        "{words}"
    );
    let counts = tally(&import_rows("metr", &[&new], &[], "metr-2026"));
    assert_eq!(
        (
            counts["Claude 3 Opus (Inspect)"].rows,
            counts["Claude 3 Opus (Inspect)"].outcome_sum
        ),
        (24, 0.0)
    );
    let sonnet = &counts["Claude 3.5 Sonnet (New) (Inspect)"];
    assert_eq!((sonnet.rows, sonnet.outcome_sum), (23, 23.0));
}

/// Copies one exercise's real results file into `to/<exercise>/` (or under a language's
/// `exercises/practice/`), so a test can build the layouts aider writes.
fn place_aider_results(run: &Path, exercise: &str, to: &Path) {
    std::fs::create_dir_all(to).expect("exercise folder");
    std::fs::copy(
        run.join(exercise).join(".aider.results.json"),
        to.join(".aider.results.json"),
    )
    .expect("copy");
}

#[test]
fn aider_runs_give_the_leaderboard_s_pass_rates_and_tell_runs_of_one_model_apart() {
    let root = fixture("aider");
    let rows = import_rows("aider", &[&root], &[], "aider-runs");
    let counts = tally(&rows);
    // Aider's own --stats for these runs: pass_rate_2 72.2 and 77.4 of 133, $5.0914 and $4.5056.
    let first = &counts["2024-09-18-00-34-01--claude-sonnet-test"];
    let second = &counts["2024-09-18-13-00-15--claude-sonnet-test"];
    assert_eq!((first.rows, first.outcome_sum), (133, 96.0));
    assert_eq!((second.rows, second.outcome_sum), (133, 103.0));
    let cost: f64 = rows
        .iter()
        .filter(|r| r["system"] == "2024-09-18-00-34-01--claude-sonnet-test")
        .filter_map(|r| r["cost_usd"].as_str()?.parse::<f64>().ok())
        .sum();
    assert!((cost - 5.0914).abs() < 5e-5, "{cost}");
    // pass_rate_1: 51.1 and 54.9.
    let first_try = tally(&import_rows(
        "aider",
        &[&root],
        &["--aider-tries", "1"],
        "aider-tries-1",
    ));
    assert_eq!(
        first_try["2024-09-18-00-34-01--claude-sonnet-test"].outcome_sum,
        68.0
    );
    assert_eq!(
        first_try["2024-09-18-13-00-15--claude-sonnet-test"].outcome_sum,
        73.0
    );
    let words = info_words(&[&root.to_string_lossy()]);
    assert!(
        words.contains("read as aider (recognised by its layout)"),
        "{words}"
    );
    assert!(words.contains("edit_format diff"), "{words}");
}

#[test]
fn an_aider_polyglot_run_keys_tasks_by_language_and_counts_what_did_not_run() {
    let real = fixture("aider/2024-09-18-00-34-01--claude-sonnet-test");
    let dir = temp_dir("aider-polyglot");
    let run = dir.join("2025-02-01-10-00-00--polyglot");
    let practice = |language: &str, exercise: &str| {
        run.join(language).join("exercises/practice").join(exercise)
    };
    // The polyglot layout, built from real results files (no public polyglot run has its
    // per-exercise files); one exercise not run yet, one that ended in an exception.
    place_aider_results(&real, "bob", &practice("python", "bob"));
    place_aider_results(&real, "wordy", &practice("python", "wordy"));
    place_aider_results(&real, "bob", &practice("go", "bob"));
    std::fs::create_dir_all(practice("rust", "bob")).expect("not run yet");
    std::fs::create_dir_all(practice("java", "hangman")).expect("exception");
    std::fs::write(
        practice("java", "hangman").join(".aider.results.json"),
        r#"{"exception": "Traceback (most recent call last):\nTimeoutError: x\n"}"#,
    )
    .expect("write");
    let rows = import_rows("aider", &[&run], &[], "aider-polyglot-rows");
    let mut tasks: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["task"].as_str().expect("task"),
                r["group"].as_str().expect("group"),
                r["status"].as_str().expect("status"),
            )
        })
        .collect();
    tasks.sort();
    assert_eq!(
        tasks,
        [
            ("go/bob", "go", "ok"),
            ("java/hangman", "java", "error"),
            ("python/bob", "python", "ok"),
            ("python/wordy", "python", "ok"),
            ("rust/bob", "rust", "not_attempted"),
        ]
    );
    // One exercise's file on its own is that exercise of its run.
    let single = import_rows(
        "aider",
        &[&practice("go", "bob").join(".aider.results.json")],
        &[],
        "aider-single",
    );
    assert_eq!(single.len(), 1);
    assert_eq!(single[0]["system"], "2025-02-01-10-00-00--polyglot");
    assert_eq!(single[0]["task"], "go/bob");
    let words = info_words(&[&run.to_string_lossy()]);
    assert!(
        words.contains("1 exercise folder has no .aider.results.json"),
        "{words}"
    );
    assert!(
        words.contains("1 exercise ended in an exception"),
        "{words}"
    );

    // One run folder mixing edit formats is refused, naming both files.
    let mixed = dir.join("2025-02-02-10-00-00--mixed");
    place_aider_results(&real, "bob", &mixed.join("bob"));
    let other = mixed.join("wordy");
    std::fs::create_dir_all(&other).expect("dir");
    let text = std::fs::read_to_string(real.join("wordy/.aider.results.json")).expect("read");
    std::fs::write(
        other.join(".aider.results.json"),
        text.replace("\"edit_format\": \"diff\"", "\"edit_format\": \"whole\""),
    )
    .expect("write");
    let refused = pareval(&["info", &mixed.to_string_lossy()]);
    assert_refused(&refused, "one aider run mixes settings");
    assert!(
        stderr(&refused).contains("edit_format whole"),
        "{}",
        stderr(&refused)
    );
    // A truncated results file names the file.
    std::fs::write(other.join(".aider.results.json"), &text[..text.len() / 2]).expect("write");
    let refused = pareval(&["info", &mixed.to_string_lossy()]);
    assert_refused(&refused, "wordy/.aider.results.json");
}

/// The one lighteval details file of `folder` whose name holds `task`.
fn details_file(folder: &Path, task: &str) -> std::path::PathBuf {
    let date = std::fs::read_dir(folder)
        .expect("model folder")
        .flatten()
        .next()
        .expect("a date folder")
        .path();
    std::fs::read_dir(&date)
        .expect("date folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains(task))
        .expect("the details file")
}

#[test]
fn lighteval_docs_of_two_splits_sharing_ids_are_kept_apart() {
    // A task with two evaluation splits (lsat_qa, babi_qa: validation and test) numbers each
    // split's docs from 0, so its details repeat every id with the same metrics. Each repeat was
    // merged into the first as if it were another sampling method's row: 7 docs became 4.
    use polars::prelude::*;
    let model = fixture("lighteval").join("v0.13.0/details/toy-org/dummy-model");
    let one_split = details_file(&model, "toy_mc");
    let frame = ParquetReader::new(std::fs::File::open(&one_split).expect("open"))
        .finish()
        .expect("frame");
    let mut two_splits = frame.vstack(&frame).expect("stack");
    let date = temp_dir("lighteval-split-details")
        .join("details/toy-org/dummy-model")
        .join(one_split.parent().and_then(Path::file_name).expect("date"));
    std::fs::create_dir_all(&date).expect("dir");
    let file = date.join(one_split.file_name().expect("name"));
    ParquetWriter::new(std::fs::File::create(&file).expect("create"))
        .finish(&mut two_splits)
        .expect("write");
    let rows = import_rows("lighteval", &[&file], &[], "lighteval-two-splits");
    let mut tasks: Vec<&str> = rows.iter().filter_map(|r| r["task"].as_str()).collect();
    tasks.sort_unstable();
    assert_eq!(
        tasks,
        [
            "toy_mc|1/0",
            "toy_mc|1/0#2",
            "toy_mc|1/1",
            "toy_mc|1/1#2",
            "toy_mc|1/2",
            "toy_mc|1/2#2"
        ]
    );
    let words = info_words(&[&file.to_string_lossy()]);
    assert!(
        words.contains("3 ids name several docs (rows giving the same metric): a task with several evaluation splits numbers each split's docs from 0"),
        "{words}"
    );
}

#[test]
fn lighteval_details_of_every_schema_era_read_one_metric_per_sample() {
    let root = fixture("lighteval");
    let new = root.join("v0.13.0/details/toy-org/dummy-model");
    let date = std::fs::read_dir(&new)
        .expect("dir")
        .flatten()
        .next()
        .expect("date")
        .path();
    let rows = import_rows("lighteval", &[&date], &[], "lighteval-013");
    let counts = tally(&rows);
    // 3 docs per task; the mixed task's 6 rows (one per sampling method) are 3 samples.
    let dummy = &counts["toy-org/dummy-model"];
    assert_eq!((dummy.rows, dummy.tasks, dummy.outcome_sum), (9, 9, 0.0));
    assert!(
        rows.iter()
            .any(|r| r["task"] == "toy_mixed|0/1" && r["group"] == "toy_mixed|0")
    );
    // Its acc values come from the second row of each doc: merged, none missing.
    let mixed = details_file(&new, "toy_mixed");
    let acc = tally(&import_rows(
        "lighteval",
        &[&mixed],
        &["--metric", "acc"],
        "lighteval-acc",
    ));
    assert_eq!(acc["toy-org/dummy-model"].statuses.get("ok"), Some(&3));
    let words = info_words(&[&mixed.to_string_lossy()]);
    assert!(words.contains("6 rows merged into 3 samples"), "{words}");
    // A metric the file lacks is refused with the ones it has.
    let refused = pareval(&[
        "info",
        &details_file(&new, "toy_gen").to_string_lossy(),
        "--metric",
        "acc",
    ]);
    assert_refused(&refused, "the file's numeric metrics are em, f1");

    // Two models' files of one task pair up by doc id.
    let edited = details_file(&root.join("v0.13.0/details/toy-org/edited-model"), "toy_mc");
    let pair = tally(&import_rows(
        "lighteval",
        &[&details_file(&new, "toy_mc"), &edited],
        &[],
        "lighteval-pair",
    ));
    assert_eq!(
        (
            pair["toy-org/edited-model"].tasks,
            pair["toy-org/edited-model"].outcome_sum
        ),
        (3, 2.0)
    );

    // Flat columns (0.10) and Python reprs (0.7) have no id: the query's hash keys a sample, so
    // the same docs get the same tasks in both.
    let tasks_of = |version: &str| -> Vec<String> {
        let file = details_file(
            &root.join(version).join("details/toy-org/dummy-model"),
            "toy_mc",
        );
        let mut tasks: Vec<String> =
            import_rows("lighteval", &[&file], &[], &format!("lighteval-{version}"))
                .iter()
                .map(|r| r["task"].as_str().expect("task").to_string())
                .collect();
        tasks.sort();
        tasks
    };
    let flat = tasks_of("v0.10.0");
    assert_eq!(flat.len(), 3);
    assert!(
        flat.iter().all(|t| t.starts_with("custom|toy_mc|1/q")),
        "{flat:?}"
    );
    assert_eq!(flat, tasks_of("v0.7.0"));
}

#[test]
fn a_parquet_named_like_details_holding_records_is_read_as_records() {
    let dir = temp_dir("lighteval-not");
    // Canonical records written as Parquet under a lighteval-like name.
    let parquet = dir.join("details_x_2025-01-01T00-00-00.parquet");
    let metr = fixture("metr/runs_th1-1_excerpt.jsonl");
    let written = pareval(&[
        "import",
        "metr",
        &metr.to_string_lossy(),
        "--out",
        &parquet.to_string_lossy(),
    ]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    // Without --from it is read as the records it holds; with it, refused naming its columns.
    let words = info_words(&[&parquet.to_string_lossy()]);
    assert!(words.contains("(47 rows)"), "{words}");
    let output = pareval(&["info", "--from", "lighteval", &parquet.to_string_lossy()]);
    assert_refused(&output, "not a lighteval details file");
    assert!(
        stderr(&output).contains("system, task, run, outcome"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn hal_uploads_count_as_hal_s_leaderboard_and_keep_errors_and_empty_patches() {
    let results = fixture("hal/results");
    // Run folders also hold the raw results and the time lines: read through the upload only.
    let rows = import_rows("hal", &[&results.join("taubench_airline")], &[], "hal-tau");
    let counts = tally(&rows);
    let gpt = &counts["HAL Generalist Agent (gpt-4.1-2025-04-14)"];
    assert_eq!((gpt.rows, gpt.outcome_sum), (7, 3.0));
    assert_eq!(gpt.statuses.get("error"), Some(&1), "ERROR: string");
    assert_eq!(
        gpt.statuses.get("not_attempted"),
        Some(&1),
        "traced, never graded"
    );
    let claude = &counts["Tau Bench Tool Calling (claude-3-7-sonnet-20250219)"];
    assert_eq!((claude.rows, claude.outcome_sum), (6, 2.0));
    assert_eq!(claude.statuses.get("error"), Some(&1), "TIMEOUT string");
    let words = info_words(&[&results.join("taubench_airline").to_string_lossy()]);
    assert!(
        words.contains("read as hal (recognised by its layout)"),
        "{words}"
    );

    let one = |bench: &str| {
        let rows = import_rows("hal", &[&results.join(bench)], &[], &format!("hal-{bench}"));
        (
            rows.clone(),
            tally(&rows)
                .remove("HAL Generalist Agent (gpt-4.1-2025-04-14)")
                .expect("system"),
        )
    };
    let (rows, swe) = one("swebench_verified_mini");
    assert_eq!((swe.rows, swe.outcome_sum), (6, 2.0));
    let empty = rows
        .iter()
        .find(|r| r["task"] == "django__django-11885")
        .expect("empty patch");
    assert_eq!(
        (empty["outcome"].as_str(), empty["status"].as_str()),
        (Some("0"), Some("ok"))
    );
    let error = rows
        .iter()
        .find(|r| r["task"] == "django__django-11951")
        .expect("error");
    assert_eq!(error["status"], "error");
    let (_, gaia) = one("gaia");
    assert_eq!((gaia.rows, gaia.outcome_sum), (5, 2.0));
    let (rows, core) = one("corebench_hard");
    assert_eq!((core.rows, core.outcome_sum), (3, 1.0));
    assert_eq!(core.statuses.get("error"), Some(&1));
    assert!(rows.iter().all(|r| r["group"] == "corebench_hard"));

    // An upload without success lists (hal-harness's own test fixtures) is graded by its rewards;
    // one that grades nothing is refused naming the file.
    let dir = temp_dir("hal-lists");
    let upload = dir.join("x_UPLOAD.json");
    std::fs::write(
        &upload,
        r#"{"config": {"agent_name": "a", "benchmark_name": "taubench_airline"}, "results": {"costs": {"0": 0.5}},
            "raw_eval_results": {"0": {"reward": 1.0}, "1": {"reward": 0.0}}}"#,
    )
    .expect("write");
    let rows = import_rows("hal", &[&upload], &[], "hal-rewards");
    assert_eq!(tally(&rows)["a"].outcome_sum, 1.0);
    assert!(rows.iter().any(|r| r["cost_usd"] == "0.5"));
    std::fs::write(
        &upload,
        r#"{"config": {"agent_name": "a"}, "results": {}, "raw_eval_results": {}}"#,
    )
    .expect("write");
    let refused = pareval(&["info", &upload.to_string_lossy()]);
    assert_refused(&refused, "the upload grades no task");
}

#[test]
fn the_swebench_leaderboard_file_gives_each_entry_s_per_instance_results() {
    // tests/fixtures/swebench_leaderboard: swebench.com's data/leaderboards.json, reduced to nine of
    // its entries (README). Its default board is the first with per-instance results (bash-only).
    let file = fixture("swebench_leaderboard/leaderboards.json");
    let rows = import_rows("swebench-leaderboard", &[&file], &[], "board-default");
    let tallies = tally(&rows);
    let opus = &tallies["Claude 4.5 Opus medium (20251101)"];
    assert_eq!((opus.rows, opus.tasks, opus.outcome_sum), (500, 500, 372.0));
    let sonnet = &tallies["Claude 3.7 Sonnet (20250219)"];
    assert_eq!((sonnet.rows, sonnet.outcome_sum), (500, 51.0));
    assert_eq!(tallies.len(), 2, "{tallies:?}");
    let cost: f64 = rows
        .iter()
        .filter(|r| r["system"] == "Claude 4.5 Opus medium (20251101)")
        .map(|r| {
            r["cost_usd"]
                .as_str()
                .and_then(|v| v.parse::<f64>().ok())
                .expect("cost")
        })
        .sum();
    assert!((cost - 360.6225).abs() < 1e-3, "{cost}");
    assert_eq!(rows[0]["group"], "astropy/astropy");
    // The same outcomes and costs, instance by instance, as shared/data's SWE-bench record, derived
    // from this file by a script of its own (where the entry is named by its folder).
    if let Some(data) = crate::common::shared_data() {
        let record = std::fs::read_to_string(data.join("swebench_verified_bash_only/records.csv"))
            .expect("the SWE-bench record");
        let shared: BTreeMap<&str, (f64, f64)> = record
            .lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split(',').collect();
                (fields[0] == "20251124_mini-v1.16.0_claude-opus-4-5-20251101").then(|| {
                    let number = |i: usize| fields[i].parse::<f64>().expect("a number");
                    (fields[1], (number(2), number(4)))
                })
            })
            .collect();
        let imported: BTreeMap<&str, (f64, f64)> = rows
            .iter()
            .filter(|r| r["system"] == "Claude 4.5 Opus medium (20251101)")
            .map(|r| {
                let number = |key: &str| r[key].as_str().and_then(|v| v.parse::<f64>().ok());
                let task = r["task"].as_str().expect("task");
                (
                    task,
                    (
                        number("outcome").expect("outcome"),
                        number("cost_usd").expect("cost"),
                    ),
                )
            })
            .collect();
        assert_eq!(shared.len(), 500);
        assert_eq!(imported, shared);
    }
    // Recognised by its keys; the boards not read, the entries without per-instance results and the
    // entry whose results disagree with its headline are named.
    let words = info_words(&[&file.to_string_lossy()]);
    for note in [
        "leaderboards.json: read as swebench-leaderboard (recognised by its keys)",
        "read board 'bash-only'; boards with per-instance results: bash-only (2 entries), Verified (1 entry) (--split NAME reads another)",
        "board 'bash-only': 1 entry with a headline score only (no per-instance results) not read: 'GPT-4.1 (2025-04-14)'",
        "board 'bash-only', entry 'Claude 3.7 Sonnet (20250219)': its per-instance results resolve 51 of 500 (10.2%), its headline says 52.8%; read as listed",
    ] {
        assert!(words.contains(note), "{note}\n{words}");
    }
    assert!(
        !words.contains("Claude 4.5 Opus medium (20251101)':"),
        "{words}"
    );
    // Another board by --split, in any case; a board of headline scores only, or none of that name,
    // is refused naming the boards.
    let rows = import_rows(
        "swebench-leaderboard",
        &[&file],
        &["--split", "verified"],
        "board-v",
    );
    let tallies = tally(&rows);
    let mini = &tallies["mini-SWE-agent + GPT-5 mini (2025-08-07) (medium reasoning)"];
    assert_eq!(
        (tallies.len(), mini.rows, mini.outcome_sum),
        (1, 500, 299.0)
    );
    let path = file.to_string_lossy();
    assert_refused(
        &pareval(&["info", &path, "--split", "Lite"]),
        "board 'Lite' holds headline scores only, no per-instance results (boards with per-instance results: bash-only (2 entries), Verified (1 entry))",
    );
    assert_refused(
        &pareval(&["info", &path, "--split", "full"]),
        "--split 'full': the file has no such board (its boards: bash-only, Test, Verified, Lite, Multimodal)",
    );
}

#[test]
fn swebench_leaderboard_entries_of_one_name_and_best_of_n_entries_are_noted() {
    let file = fixture("swebench_leaderboard/leaderboards.json");
    let mut board: Value =
        serde_json::from_slice(&std::fs::read(&file).expect("fixture")).expect("JSON");
    // A second entry of the Opus name (another folder), tagged best-of-N.
    let entries = board["leaderboards"][0]["results"]
        .as_array_mut()
        .expect("entries");
    let mut again = entries[0].clone();
    again["folder"] = Value::from("20251201_opus_again");
    again["tags"] = serde_json::json!(["System: Attempts - 2+"]);
    entries.push(again);
    let dir = temp_dir("board-names");
    let copy = dir.join("leaderboards.json");
    std::fs::write(&copy, serde_json::to_vec(&board).expect("JSON")).expect("write");
    let words = info_words(&[&copy.to_string_lossy()]);
    for expected in [
        "systems 3",
        "board 'bash-only' has 2 entries named 'Claude 4.5 Opus medium (20251101)'; this one is 'Claude 4.5 Opus medium (20251101) (20251201_opus_again)'",
        "this one is 'Claude 4.5 Opus medium (20251101) (20251124_mini-v1.16.0_claude-opus-4-5-20251101)'",
        "entry 'Claude 4.5 Opus medium (20251101) (20251201_opus_again)' is tagged 'System: Attempts - 2+': a best-of-N (pass@k) submission",
    ] {
        assert!(words.contains(expected), "{expected}\n{words}");
    }
    // An instance whose `resolved` is not true or false is refused, naming the entry and instance.
    board["leaderboards"][0]["results"][1]["per_instance_details"]["astropy__astropy-12907"]["resolved"] =
        Value::from(1);
    std::fs::write(&copy, serde_json::to_vec(&board).expect("JSON")).expect("write");
    assert_refused(
        &pareval(&["info", &copy.to_string_lossy()]),
        "board 'bash-only', entry 'Claude 3.7 Sonnet (20250219)', instance 'astropy__astropy-12907': 'resolved' is 1, not true or false",
    );
    // So is a cost that is not a number.
    let instance = &mut board["leaderboards"][0]["results"][1]["per_instance_details"]["astropy__astropy-12907"];
    instance["resolved"] = Value::from(true);
    instance["cost"] = Value::from("n/a");
    std::fs::write(&copy, serde_json::to_vec(&board).expect("JSON")).expect("write");
    assert_refused(
        &pareval(&["info", &copy.to_string_lossy()]),
        "board 'bash-only', entry 'Claude 3.7 Sonnet (20250219)', instance 'astropy__astropy-12907': 'cost' is \"n/a\", not a number",
    );
}

#[test]
fn multi_swebench_harness_reports_are_read_with_their_repositories_and_split() {
    // tests/fixtures/multi_swebench/harness: two `<output_dir>/final_report.json` written by
    // Multi-SWE-bench's own FinalReport (make_fixture.py), on ten real instances of two repositories.
    let root = fixture("multi_swebench/harness");
    let strong = root.join("agent-strong/output/final_report.json");
    let weak = root.join("agent-weak/output/final_report.json");
    let rows = import_rows(
        "swebench",
        &[&weak],
        &["--system-name", "agent-weak"],
        "multi-swebench-weak",
    );
    let tallies = tally(&rows);
    let weak_tally = &tallies["agent-weak"];
    assert_eq!((weak_tally.rows, weak_tally.outcome_sum), (10, 2.0));
    assert_eq!(weak_tally.statuses.get("error"), Some(&1));
    // The harness's ids are `<org>/<repo>:pr-<number>`: the repository is the group.
    let groups: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r["group"].as_str()).collect();
    assert_eq!(
        groups.into_iter().collect::<Vec<_>>(),
        ["alibaba/fastjson2", "elastic/logstash"]
    );
    let words = info_words(&[&strong.to_string_lossy()]);
    assert!(
        words.contains("Multi-SWE-bench's run report (final_report.json in its output_dir) stores no system name; it is named after its folder, 'output'"),
        "{words}"
    );
    // Two runs' output folders of one name name one system: refused, saying how to tell them apart.
    let both = pareval(&["info", &strong.to_string_lossy(), &weak.to_string_lossy()]);
    assert_refused(&both, "import each with --system-name");
    // A report lists only the instances given predictions: --split FILE adds the split's others as
    // 0 (as a leaderboard scores them), and refuses a listed instance outside the split.
    let dir = temp_dir("multi-swebench-split");
    let report: Value =
        serde_json::from_slice(&std::fs::read(&weak).expect("report")).expect("JSON");
    let mut ids: Vec<String> = report["submitted_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|id| id.as_str().expect("id").to_string())
        .collect();
    ids.extend([
        "elastic/logstash:pr-13997".to_string(),
        "elastic/logstash:pr-14000".to_string(),
    ]);
    let split = dir.join("split.txt");
    std::fs::write(&split, ids.join("\n")).expect("split");
    let rows = import_rows(
        "swebench",
        &[&weak],
        &["--split", &split.to_string_lossy()],
        "multi-swebench-split-rows",
    );
    let tallies = tally(&rows);
    assert_eq!(
        (tallies["output"].rows, tallies["output"].outcome_sum),
        (12, 2.0)
    );
    let unsubmitted: Vec<&str> = rows
        .iter()
        .filter(|r| r["source"] == "swebench not submitted")
        .map(|r| r["task"].as_str().expect("task"))
        .collect();
    assert_eq!(
        unsubmitted,
        ["elastic/logstash:pr-13997", "elastic/logstash:pr-14000"]
    );
    let short = dir.join("short.txt");
    std::fs::write(&short, "elastic/logstash:pr-13997\n").expect("split");
    let refused = pareval(&[
        "info",
        &weak.to_string_lossy(),
        "--split",
        &short.to_string_lossy(),
    ]);
    assert_refused(&refused, "10 listed instances are not in the");
}

#[test]
fn multi_swebench_leaderboard_submissions_are_read_as_run_reports() {
    // tests/fixtures/multi_swebench: three submissions of multi-swe-bench/experiments' SWE-bench-java
    // Verified split, whose results/results.json is the harness's run report with its resolved ids
    // under `resolved`, and metadata.yaml a top-level `name:`; index.json sits beside them.
    let split = fixture("multi_swebench/evaluation/java/verified");
    let rows = import_rows("swebench", &[&split], &[], "multi-swebench");
    let tallies = tally(&rows);
    let chat = &tallies["SWE-agent + deepseek-chat-v2"];
    assert_eq!((chat.rows, chat.outcome_sum), (91, 9.0));
    assert_eq!(chat.statuses.get("error"), Some(&1));
    let gpt4o = &tallies["SWE-agent + gpt-4o-2024-05-13"];
    assert_eq!((gpt4o.rows, gpt4o.outcome_sum), (91, 6.0));
    assert_eq!(gpt4o.statuses.get("not_attempted"), Some(&6));
    let mini = &tallies["SWE-agent + gpt-4o-mini-2024-07-18"];
    assert_eq!((mini.rows, mini.outcome_sum), (91, 1.0));
    assert_eq!(mini.statuses.get("not_attempted"), Some(&90));
    assert_eq!(tallies.len(), 3);
    let groups: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r["group"].as_str()).collect();
    assert!(groups.contains("apache/dubbo"), "{groups:?}");
    // The split folder is read as its submissions, its index.json left beside them.
    let words = info_words(&[&split.to_string_lossy()]);
    assert!(words.contains("systems 3"), "{words}");
    assert!(words.contains("read its 3 subfolders of runs"), "{words}");
    assert!(!words.contains("index.json"), "{words}");
    // Two submissions whose metadata give one name are two systems, each with its folder.
    let copy_split = temp_dir("multi-swebench-names").join("verified");
    for (from, to) in [
        (
            "20240825_SWE-agent_deepseek-chat-v2",
            "20240825_SWE-agent_deepseek-chat-v2",
        ),
        (
            "20240825_SWE-agent_deepseek-chat-v2",
            "20240901_SWE-agent_deepseek-chat-v2-again",
        ),
    ] {
        let folder = copy_split.join(to).join("results");
        std::fs::create_dir_all(&folder).expect("folder");
        std::fs::copy(
            split.join(from).join("metadata.yaml"),
            copy_split.join(to).join("metadata.yaml"),
        )
        .expect("copy");
        std::fs::copy(
            split.join(from).join("results/results.json"),
            folder.join("results.json"),
        )
        .expect("copy");
    }
    let words = info_words(&[&copy_split.to_string_lossy()]);
    assert!(words.contains("systems 2"), "{words}");
    assert!(
        words.contains("the system is 'SWE-agent + deepseek-chat-v2 (20240901_SWE-agent_deepseek-chat-v2-again)'"),
        "{words}"
    );
    // A report that lists fewer ids than its total_instances says so.
    let mut report: Value = serde_json::from_slice(
        &std::fs::read(
            split.join("20240825_SWE-agent_gpt-4o-mini-2024-07-18/results/results.json"),
        )
        .expect("report"),
    )
    .expect("JSON");
    report["incomplete_ids"] = serde_json::json!([]);
    let copy = temp_dir("multi-swebench-short").join("20240825_SWE-agent_gpt-4o-mini.json");
    std::fs::write(&copy, serde_json::to_vec(&report).expect("JSON")).expect("write");
    let words = info_words(&[&copy.to_string_lossy()]);
    assert!(
        words.contains("the report lists 1 of its 91 instances (total_instances); the others have no row, so the system covers 1 of 91"),
        "{words}"
    );
    // Submitted ids agree with shared/data's record, derived from the same files by a script of
    // its own (which scores every instance not submitted 0).
    if let Some(data) = crate::common::shared_data() {
        let record = std::fs::read_to_string(data.join("swebench_java_verified/records.csv"))
            .expect("the Java record");
        let shared: BTreeMap<&str, f64> = record
            .lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split(',').collect();
                (fields[0] == "20240825_SWE-agent_gpt-4o-2024-05-13")
                    .then(|| (fields[1], fields[2].parse::<f64>().expect("outcome")))
            })
            .collect();
        assert_eq!(shared.len(), 91);
        for row in rows
            .iter()
            .filter(|r| r["system"] == "SWE-agent + gpt-4o-2024-05-13")
        {
            let task = row["task"].as_str().expect("task");
            let outcome = row["outcome"]
                .as_str()
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0);
            assert_eq!(shared[task], outcome, "{task}");
        }
    }
}

#[test]
fn a_hal_results_folder_is_read_as_its_benchmarks_runs() {
    // hal-harness writes results/<benchmark>/<run_id>/: given results/, every benchmark's runs are
    // read (each benchmark folder holds runs only), as given one by one.
    let results = fixture("hal/results");
    let one_by_one: Vec<String> = [
        "corebench_hard",
        "gaia",
        "swebench_verified_mini",
        "taubench_airline",
    ]
    .iter()
    .map(|benchmark| results.join(benchmark).to_string_lossy().into_owned())
    .collect();
    let args: Vec<&str> = one_by_one.iter().map(String::as_str).collect();
    let given = info_words(&args);
    let words = info_words(&[&results.to_string_lossy()]);
    for figures in ["systems 2", "tasks 21", "cost on 11 of 27 rows"] {
        assert!(given.contains(figures), "{given}");
        assert!(words.contains(figures), "{words}");
    }
    assert!(
        words.contains("results: read its 4 subfolders of runs corebench_hard/, gaia/, swebench_verified_mini/, taubench_airline/"),
        "{words}"
    );
}

#[test]
fn a_harness_file_saved_with_a_byte_order_mark_is_recognised() {
    // It was not: "missing required column 'system'" named the file's own keys as records' columns.
    let dir = temp_dir("harness-bom");
    let plain = fixture("tau2").join("json_run").join("results.json");
    let marked = dir.join("results.json");
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(std::fs::read(&plain).expect("fixture"));
    std::fs::write(&marked, bytes).expect("write");
    let rows = |path: &Path| import_rows("tau2", &[path], &[], "harness-bom-rows");
    assert_eq!(rows(&marked), rows(&plain));
    let info = pareval(&["info", &marked.to_string_lossy()]);
    assert_eq!(info.status.code(), Some(0), "{}", stderr(&info));
}

#[test]
fn tau2_dir_format_runs_are_read_through_their_simulation_index() {
    // tau2-bench's dir format (voice runs' default, or `tau2 convert-results --to dir`): results.json holds the run's
    // info and a `simulation_index` (one summary per simulation, rewritten after each), the
    // simulations themselves lie in simulations/<id>.json beside it. Written by tau2's own
    // checkpoint code, with the same eight simulations in its monolithic format beside it: both read
    // to the same rows.
    let root = fixture("tau2");
    let dir_rows = import_rows("tau2", &[&root.join("dir_run")], &[], "tau2-dir");
    let json_rows = import_rows("tau2", &[&root.join("json_run")], &[], "tau2-json");
    assert_eq!(dir_rows, json_rows);
    let by_task_run = |rows: &[Value]| -> BTreeMap<(String, String), (Value, String)> {
        rows.iter()
            .map(|row| {
                (
                    (
                        row["task"].as_str().unwrap().to_string(),
                        row["run"].as_str().unwrap().to_string(),
                    ),
                    (
                        row["outcome"].clone(),
                        row["status"].as_str().unwrap().to_string(),
                    ),
                )
            })
            .collect()
    };
    let read = by_task_run(&dir_rows);
    let expect = |task: &str, run: &str, outcome: Value, status: &str| {
        assert_eq!(
            read[&(format!("airline/{task}"), run.to_string())],
            (outcome, status.to_string()),
            "task {task} run {run}"
        );
    };
    // agent_stop 1, user_stop 0, max_steps 0 (the agent's failure), infrastructure_error (never
    // ran: tau2 leaves it out of its metrics), unexpected_error (an error, its 0 kept),
    // context_window_exceeded 0.
    expect("0", "0", Value::from("1"), "ok");
    expect("0", "1", Value::from("0"), "ok");
    expect("1", "0", Value::from("0"), "ok");
    expect("1", "1", Value::Null, "not_attempted");
    expect("2", "1", Value::from("0"), "error");
    expect("3", "0", Value::from("0"), "ok");
    assert_eq!(dir_rows[7]["cost_usd"], "0.08");
    assert_eq!(dir_rows[7]["seconds"], "67");
    assert_eq!(dir_rows[0]["group"], "airline");
    assert_eq!(dir_rows[0]["system"], "llm_agent / stand-in-model");
    let words = info_words(&[&root.join("dir_run").to_string_lossy()]);
    assert!(
        words.contains("1 simulation ended in infrastructure_error: read as not attempted"),
        "{words}"
    );

    // Mid-write: a simulation's file lands just before its index entry, and a file may be gone; the
    // index is what is read, and both are said.
    let work = temp_dir("tau2-dir-format");
    let run = work.join("run");
    copy_tree(&root.join("dir_run"), &run);
    std::fs::copy(
        run.join("simulations/sim-07.json"),
        run.join("simulations/sim-08.json"),
    )
    .expect("copy");
    std::fs::remove_file(run.join("simulations/sim-00.json")).expect("remove");
    std::fs::write(run.join("simulations/.sim_tmp.json"), "{").expect("a temporary file");
    assert_eq!(import_rows("tau2", &[&run], &[], "tau2-dir-mid"), dir_rows);
    let words = info_words(&[&run.to_string_lossy()]);
    for note in [
        "1 simulation of its simulation_index has no file in",
        "(sim-00); read from the index",
        "1 simulation file in",
        "is not in its simulation_index yet (sim-08): not read",
    ] {
        assert!(words.contains(note), "{note}: {words}");
    }

    // `watch` follows a dir-format run as tau2 rewrites its index after each simulation.
    let live = work.join("live");
    copy_tree(&root.join("dir_run"), &live);
    let meta = live.join("results.json");
    let full: Value =
        serde_json::from_str(&std::fs::read_to_string(&meta).expect("read")).expect("json");
    let mut partial = full.clone();
    partial["simulation_index"]
        .as_array_mut()
        .expect("an index")
        .truncate(3);
    std::fs::write(&meta, partial.to_string()).expect("write");
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&live)).expect("followed");
    let rows = |followed: &mut pareval::watch::follow::Followed| {
        let mut events = followed.poll();
        events.extend(followed.poll());
        events
            .iter()
            .filter(|e| matches!(e, pareval::watch::follow::Event::Row { .. }))
            .count()
    };
    // Task 0's two trials and task 1's first: task 1 waits for its second trial (num_trials 2),
    // whose reward would change its mean.
    assert_eq!(rows(&mut followed), 2);
    std::fs::write(&meta, full.to_string()).expect("write");
    // A native file is read once it stops changing: poll until it has been read again.
    let mut again = 0;
    for _ in 0..50 {
        again += rows(&mut followed);
        if again > 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // Eight simulations, one never ran (not attempted: no outcome to observe).
    assert_eq!(again, 7);

    // A simulation file, or the simulations/ folder, given on its own: the run folder is named.
    for given in [run.join("simulations/sim-01.json"), run.join("simulations")] {
        assert_refused(
            &pareval(&["info", &given.to_string_lossy()]),
            &format!(
                "one simulation of a tau2 run in its dir format: give the run's folder {} (or its results.json)",
                run.display()
            ),
        );
    }

    // No index (tau2's loader then reads the folder): the simulation files are read.
    std::fs::remove_file(run.join("simulations/sim-08.json")).expect("remove");
    std::fs::remove_file(run.join("simulations/.sim_tmp.json")).expect("remove");
    std::fs::copy(
        root.join("dir_run/simulations/sim-00.json"),
        run.join("simulations/sim-00.json"),
    )
    .expect("copy");
    let meta = run.join("results.json");
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&meta).expect("read")).expect("json");
    value["simulation_index"] = Value::Null;
    std::fs::write(&meta, value.to_string()).expect("write");
    assert_eq!(
        import_rows("tau2", &[&run], &[], "tau2-dir-files"),
        dir_rows
    );
    assert!(
        info_words(&[&run.to_string_lossy()])
            .contains("tau2 dir format without a simulation_index: read its 8 simulation files in"),
    );
    // A broken simulation file is named; no folder at all is refused naming what is missing.
    std::fs::write(run.join("simulations/sim-03.json"), "[1, 2]").expect("write");
    assert_refused(
        &pareval(&["info", &run.to_string_lossy()]),
        "sim-03.json: a tau2 simulation file holds one SimulationRun object, found an array",
    );
    std::fs::remove_dir_all(run.join("simulations")).expect("remove");
    assert_refused(
        &pareval(&["info", &run.to_string_lossy()]),
        "results.json: a tau2 file needs a 'simulations' array, or a 'simulation_index' (tau2's dir format, with the simulations in simulations/ beside it, which is not there)",
    );
    value["simulation_index"] = Value::from("sim-00");
    std::fs::write(&meta, value.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &run.to_string_lossy()]),
        "'simulation_index' must be an array, found a string",
    );

    // tau2 keeps runs under data/simulations/<run>/: that folder is read as its runs, whatever the
    // format, and no run's simulation files are read as results of their own.
    let simulations = work.join("simulations");
    copy_tree(&root.join("dir_run"), &simulations.join("voice_run"));
    copy_tree(&root.join("json_run"), &simulations.join("text_run"));
    let text = simulations.join("text_run/results.json");
    let renamed = std::fs::read_to_string(&text)
        .expect("read")
        .replace("stand-in-model", "other-model");
    std::fs::write(&text, renamed).expect("write");
    let words = info_words(&[&simulations.to_string_lossy()]);
    assert!(words.contains("systems 2"), "{words}");
    for run in [
        "text_run/results.json (8 rows)",
        "voice_run/results.json (8 rows)",
    ] {
        assert!(words.contains(run), "{run}: {words}");
    }

    // tau2 numbers each domain's tasks from 0: one model's runs on two domains are one system
    // whose tasks the domain keeps apart (airline's "0" is not retail's "0").
    let domains = work.join("domains");
    copy_tree(&root.join("json_run"), &domains.join("airline"));
    copy_tree(&root.join("json_run"), &domains.join("retail"));
    let retail = domains.join("retail/results.json");
    let text = std::fs::read_to_string(&retail).expect("read").replace(
        "\"domain_name\": \"airline\"",
        "\"domain_name\": \"retail\"",
    );
    std::fs::write(&retail, text).expect("write");
    let rows = import_rows("tau2", &[&domains], &[], "tau2-domains");
    let tallies = tally(&rows);
    assert_eq!(
        (tallies.len(), tallies["llm_agent / stand-in-model"].tasks),
        (1, 8)
    );
    assert!(
        rows.iter()
            .any(|r| r["task"] == "retail/0" && r["group"] == "retail")
    );
}

#[test]
fn osworld_result_folders_are_read_by_their_layout() {
    // OSWorld writes <result_dir>/<action_space>/<observation_type>/<model>/<domain>/<id>/ with
    // traj.jsonl and, once evaluated, result.txt; result folders side by side are runs. Real
    // folders: three gpt-4o runs of one task (0.0, interrupted, 0.0) and two upstream examples
    // that ended in an error.
    let root = fixture("osworld");
    let traces = import_rows("osworld", &[&root.join("traces")], &[], "osworld-traces");
    let read: Vec<(String, String, Value, String)> = traces
        .iter()
        .map(|row| {
            (
                row["system"].as_str().unwrap().to_string(),
                row["run"].as_str().unwrap().to_string(),
                row["outcome"].clone(),
                row["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let system = "gpt-4o (pyautogui, screenshot_a11y_tree)".to_string();
    assert_eq!(
        read,
        [
            (system.clone(), "0".into(), Value::from("0"), "ok".into()),
            (
                system.clone(),
                "1".into(),
                Value::Null,
                "not_attempted".into()
            ),
            (system.clone(), "2".into(), Value::from("0"), "ok".into()),
        ]
    );
    assert_eq!(
        traces[0]["task"],
        "libreoffice_calc/163789f0-c895-4a50-8207-17cbdd56ec38"
    );
    assert_eq!(traces[0]["group"], "libreoffice_calc");
    // Seconds from the first action's timestamp to the last one's (09:22:57 to 09:27:10, and
    // 23:50:45 to 23:55:44); the interrupted run has no outcome, so no time.
    let seconds: Vec<&Value> = traces.iter().map(|row| &row["seconds"]).collect();
    assert_eq!(
        seconds,
        [&Value::from("253"), &Value::Null, &Value::from("299")]
    );
    let words = info_words(&[&root.join("traces/20250130-1").to_string_lossy()]);
    assert!(
        words.contains(
            "seconds for 1 example of 1: from the first action's action_timestamp to the last one's"
        ),
        "{words}"
    );
    // One result folder given alone keeps its run among those beside it.
    let alone = import_rows(
        "osworld",
        &[&root.join("traces/20250204-1")],
        &[],
        "osworld-alone",
    );
    assert_eq!(alone[0]["run"], "2");
    let failed = import_rows("osworld", &[&root.join("results")], &[], "osworld-failed");
    assert_eq!(failed.len(), 2);
    for row in &failed {
        assert_eq!(row["system"], "gpt-4-vision-preview (pyautogui, som)");
        assert_eq!(
            (row["outcome"].as_str(), row["status"].as_str()),
            (Some("0"), Some("error"))
        );
        assert!(
            row["source"]
                .as_str()
                .unwrap()
                .contains("no result.txt: Time limit exceeded in chrome/"),
            "{row}"
        );
    }
    // The model's folder (or any folder below the observation type) reads the same rows.
    let model = root.join("results/pyautogui/som/gpt-4-vision-preview");
    assert_eq!(
        import_rows("osworld", &[&model], &[], "osworld-model").len(),
        2
    );
    let words = info_words(&[&root.to_string_lossy()]);
    for figure in ["systems 2", "tasks 3"] {
        assert!(words.contains(figure), "{figure}: {words}");
    }
    for note in [
        "2 examples ended in an error with no result.txt (the first: Time limit exceeded in chrome/7b6c7e24-c58a-49fc-a5bb-d57b80e5b4c3): 0, status error",
        "1 example folder has neither result.txt nor an error (running, or the run stopped; a resumed run repeats them): not attempted",
    ] {
        assert!(words.contains(note), "{note}: {words}");
    }

    // A test set (OSWorld's own test_small.json, 39 tasks, the two errored chrome examples among
    // them) makes each run's unstarted tasks not attempted, so what a partial run skipped shows.
    let test_small = fixture("osworld_test_sets/test_small.json");
    let split = ["--split", &*test_small.to_string_lossy()].map(str::to_string);
    let split: Vec<&str> = split.iter().map(String::as_str).collect();
    let planned = import_rows(
        "osworld",
        &[&root.join("results")],
        &split,
        "osworld-test-set",
    );
    assert_eq!(planned.len(), 39);
    let unstarted = planned
        .iter()
        .filter(|r| r["status"] == "not_attempted")
        .count();
    assert_eq!(unstarted, 37);
    assert_eq!(
        planned
            .iter()
            .filter(|r| r["group"] == "multi_apps")
            .count(),
        17
    );
    // The traces' task is in no test set: kept, noted; each of the three runs misses all 39.
    let traces_planned = import_rows(
        "osworld",
        &[&root.join("traces")],
        &split,
        "osworld-test-set-traces",
    );
    assert_eq!(traces_planned.len(), 3 + 3 * 39);
    let traces_path = root.join("traces").to_string_lossy().into_owned();
    let words = info_words(&[split[0], split[1], &traces_path]);
    assert!(
        words.contains("1 example is not in the test set"),
        "{words}"
    );
    let bad_set = temp_dir("osworld-bad-test-set").join("test_all.json");
    std::fs::write(&bad_set, r#"{"chrome": "bb5e4c0d"}"#).expect("write");
    assert_refused(
        &pareval(&[
            "info",
            "--split",
            &bad_set.to_string_lossy(),
            &root.join("results").to_string_lossy(),
        ]),
        "test_all.json: domain 'chrome': a list of example ids, found \"bb5e4c0d\"",
    );

    // Partial scores and booleans; a model name with a slash is two folders.
    let work = temp_dir("osworld-layout");
    let finished = root.join(
        "traces/20250130-1/pyautogui/screenshot_a11y_tree/gpt-4o/libreoffice_calc/163789f0-c895-4a50-8207-17cbdd56ec38",
    );
    let results = work.join("results");
    let model = results.join("pyautogui/screenshot/ByteDance-Seed/UI-TARS-1.5-7B");
    for (id, score) in [("a", "0.5\n"), ("b", "True\n"), ("c", "1\n")] {
        let example = model.join("chrome").join(id);
        copy_tree(&finished, &example);
        std::fs::write(example.join("result.txt"), score).expect("write");
    }
    let rows = import_rows("osworld", &[&results], &[], "osworld-partial");
    let outcomes: Vec<&str> = rows
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["0.5", "1", "1"]);
    assert_eq!(
        rows[0]["system"],
        "ByteDance-Seed/UI-TARS-1.5-7B (pyautogui, screenshot)"
    );
    // Without --from the folder is recognised by its layout.
    assert!(
        info_words(&[&results.to_string_lossy()])
            .contains("read as osworld (recognised by its layout)")
    );
    // `watch` follows a result folder: an example counts once its result.txt is written.
    let pending = model.join("chrome/d");
    copy_tree(&finished, &pending);
    std::fs::remove_file(pending.join("result.txt")).expect("remove");
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&results)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 3);
    std::fs::write(pending.join("result.txt"), "1.0\n").expect("write");
    assert_eq!(rows_once_read(&mut followed), 4);
    // A score that is not one is refused, naming the file.
    std::fs::write(pending.join("result.txt"), "None\n").expect("write");
    assert_refused(
        &pareval(&["info", &results.to_string_lossy()]),
        "chrome/d/result.txt: line 1: 'None' is not a score (OSWorld writes a number in [0, 1], or True or False)",
    );
    // An example's own file is read as its example; any other file is not OSWorld's.
    std::fs::write(pending.join("result.txt"), "1.0\n").expect("write");
    let one = import_rows(
        "osworld",
        &[&pending.join("result.txt")],
        &[],
        "osworld-one-file",
    );
    assert_eq!((one.len(), one[0]["task"].as_str()), (1, Some("chrome/d")));
    assert_refused(
        &pareval(&[
            "info",
            "--from",
            "osworld",
            &root.join("README.md").to_string_lossy(),
        ]),
        "README.md: no OSWorld example folder here",
    );
}

#[test]
fn appworld_evaluation_reports_give_task_goal_completion() {
    // `appworld evaluate` writes experiments/outputs/<experiment>/evaluations/<dataset>.json; a real
    // report of ten tasks, three of them solved.
    let outputs = fixture("appworld/experiments/outputs");
    let report = outputs.join("MetaCognition/evaluations/agent_arena_eval.json");
    let rows = import_rows("appworld", &[&report], &[], "appworld-rows");
    let tallies = tally(&rows);
    let tally = &tallies["MetaCognition"];
    assert_eq!((tally.rows, tally.tasks, tally.outcome_sum), (10, 10, 3.0));
    assert_eq!(tally.statuses["ok"], 10);
    let solved: Vec<&str> = rows
        .iter()
        .filter(|r| r["outcome"] == "1")
        .map(|r| r["task"].as_str().unwrap())
        .collect();
    assert_eq!(solved, ["5e27cd7_2", "ba46d91_2", "dbc0276_3"]);
    let groups = |d: &str| rows.iter().filter(|r| r["group"] == d).count();
    assert_eq!(
        (
            groups("difficulty 1"),
            groups("difficulty 2"),
            groups("difficulty 3")
        ),
        (3, 3, 4)
    );
    // The outputs folder reads every experiment through its evaluations/, as given one by one.
    let words = info_words(&[&outputs.to_string_lossy()]);
    assert!(
        words.contains("agent_arena_eval: 3 of 10 tasks succeeded, task goal completion 30.0% as the report's aggregate"),
        "{words}"
    );

    // AppWorld 0.2: experiment names hold slashes, tasks may carry their cost.
    let work = temp_dir("appworld-layout");
    let experiment = work.join("experiments/outputs/simplified_react_code_agent/deepseek/v3/dev10");
    std::fs::create_dir_all(experiment.join("evaluations")).expect("folder");
    let copy = experiment.join("evaluations/dev10.json");
    std::fs::copy(&report, &copy).expect("copy");
    let usage = |task: &str, text: &str| {
        let folder = experiment.join("tasks").join(task).join("misc");
        std::fs::create_dir_all(&folder).expect("folder");
        std::fs::write(folder.join("usage.json"), text).expect("write");
    };
    usage(
        "5e27cd7_2",
        r#"{"tokens": {"output": 10}, "cost": {"input_cache_miss": 0.25, "input_cache_hit": 0.0, "input_cache_write": 0.0, "output": 0.5}}"#,
    );
    usage("ba46d91_2", "{}");
    let rows = import_rows("appworld", &[&copy], &[], "appworld-slashes");
    assert_eq!(
        rows[0]["system"],
        "simplified_react_code_agent/deepseek/v3/dev10"
    );
    // The experiment folder itself, and the outputs folder above such path-named experiments, are
    // read through the evaluations below them (both were refused as holding no result files).
    for folder in [experiment.clone(), work.join("experiments/outputs")] {
        let read = import_rows("appworld", &[&folder], &[], "appworld-folders");
        assert_eq!(read.len(), 10, "{}", folder.display());
        assert_eq!(
            read[0]["system"],
            "simplified_react_code_agent/deepseek/v3/dev10"
        );
    }
    // A folder of records that also holds an `evaluations/` of other JSON is no experiment: its
    // records are read (a first cut took it for one and refused the JSON).
    let records = temp_dir("appworld-not-an-experiment");
    std::fs::create_dir_all(records.join("evaluations")).expect("folder");
    std::fs::write(records.join("evaluations/summary.json"), r#"{"note": 1}"#).expect("write");
    std::fs::write(
        records.join("rows.csv"),
        "system,task,outcome\na,t1,1\nb,t1,0\n",
    )
    .expect("write");
    let words = info_words(&[records.to_str().expect("path")]);
    assert!(
        words.contains("2 systems") || words.contains("systems 2"),
        "{words}"
    );
    let task = |id: &str| rows.iter().find(|r| r["task"] == id).expect("a task");
    assert_eq!(task("5e27cd7_2")["cost_usd"], "0.75");
    // An empty usage file is an unknown cost, not a free task.
    let empty = task("ba46d91_2");
    assert!(empty.get("cost_usd").is_none_or(Value::is_null), "{empty}");
    // An older report says passes_fully; an aggregate that disagrees is said; a success that is
    // not a boolean is refused, naming the task.
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&copy).expect("read")).expect("json");
    let first = value["individual"]["5e27cd7_2"]
        .as_object_mut()
        .expect("a task");
    let success = first.remove("success").expect("success");
    first.insert("passes_fully".to_string(), success);
    value["aggregate"]["task_goal_completion"] = Value::from(40.0);
    std::fs::write(&copy, value.to_string()).expect("write");
    assert_eq!(
        tally_of(&import_rows("appworld", &[&copy], &[], "appworld-legacy")),
        3.0
    );
    assert!(
        info_words(&[&copy.to_string_lossy()])
            .contains("task goal completion 30.0%, but the report's aggregate says 40%"),
    );
    value["individual"]["ba46d91_2"]["success"] = Value::from("yes");
    std::fs::write(&copy, value.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &copy.to_string_lossy()]),
        "dev10.json: task 'ba46d91_2' has no boolean 'success' (found \"yes\")",
    );
}

/// The sum of the outcomes of rows.
fn tally_of(rows: &[Value]) -> f64 {
    tally(rows).values().map(|t| t.outcome_sum).sum()
}

#[test]
fn mlebench_grading_reports_give_medals_per_competition_and_seed() {
    // `mlebench grade` writes <output-dir>/<timestamp>_grading_report.json; two real reports.
    let root = fixture("mlebench");
    let its = root.join("ITS-bench/output/2025-05-07T12-59-41-GMT_grading_report.json");
    let rows = import_rows("mle-bench", &[&its], &[], "mlebench-its");
    let read: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["task"].as_str().unwrap(),
                r["outcome"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
                r["group"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            ("denoising-dirty-documents", "0", "error", "low"),
            ("aerial-cactus-identification", "0", "ok", "low"),
            ("leaf-classification", "0", "ok", "low"),
        ]
    );
    assert_eq!(rows[0]["system"], "output");
    // Another medal flag by --metric; the raw score is not one.
    let above = import_rows(
        "mle-bench",
        &[&its],
        &["--metric", "above_median"],
        "mlebench-above",
    );
    let outcomes: Vec<&str> = above
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["0", "1", "0"]);
    assert_refused(
        &pareval(&["info", &its.to_string_lossy(), "--metric", "score"]),
        "--metric 'score': an MLE-bench report's outcome is one of any_medal, gold_medal, silver_medal, bronze_medal, above_median",
    );
    let group = root.join("pumpkin-mle-bench/runs/2026-05-18T19-44-26-UTC_run-group_aide");
    let words = info_words(&[&group.to_string_lossy()]);
    assert!(
        words.contains("so the system is its folder '2026-05-18T19-44-26-UTC_run-group_aide'"),
        "{words}"
    );

    // A run group: the seeds are one report's repeated competitions, its metadata.json and run
    // folders (with their Kaggle submission CSVs) lie beside it and are not read.
    let work = temp_dir("mlebench-run-group");
    let run_group = work.join("runs/2024-09-19T20-07-15-GMT_run-group_aide");
    std::fs::create_dir_all(run_group.join("aerial-cactus-identification_0b1c/submission"))
        .expect("folder");
    std::fs::write(
        run_group.join("aerial-cactus-identification_0b1c/submission/submission.csv"),
        "id,has_cactus\n1,0.9\n",
    )
    .expect("write");
    std::fs::write(
        run_group.join("metadata.json"),
        r#"{"run_group": "2024-09-19T20-07-15-GMT_run-group_aide", "runs": {}}"#,
    )
    .expect("write");
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&its).expect("read")).expect("json");
    let reports = value["competition_reports"]
        .as_array_mut()
        .expect("reports");
    let mut second = reports.clone();
    second[1]["any_medal"] = Value::from(true);
    second[2]["competition_id"] = Value::from("my-own-competition");
    reports.extend(second);
    std::fs::write(
        run_group.join("2024-09-19T20-07-15-GMT_grading_report.json"),
        value.to_string(),
    )
    .expect("write");
    let rows = import_rows("mle-bench", &[&run_group], &[], "mlebench-seeds");
    let runs: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["task"].as_str().unwrap(),
                r["run"].as_str().unwrap(),
                r["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        runs,
        [
            ("denoising-dirty-documents", "0", "0"),
            ("aerial-cactus-identification", "0", "0"),
            ("leaf-classification", "0", "0"),
            ("denoising-dirty-documents", "1", "0"),
            ("aerial-cactus-identification", "1", "1"),
            ("my-own-competition", "0", "0"),
        ]
    );
    assert!(rows[5].get("group").is_none_or(Value::is_null));
    let words = info_words(&[&work.join("runs").to_string_lossy()]);
    for note in [
        "competitions graded up to 2 times (a run group's seeds) are runs, in the report's order",
        "2 submissions are missing: 0, status error",
        "1 report is of a competition not among MLE-bench's 75 competitions",
    ] {
        assert!(words.contains(note), "{note}: {words}");
    }
    assert!(!words.contains("not read"), "{words}");

    // The leaderboard's run_group_experiments.csv beside the run groups: an experiment's run
    // groups (listed in any order) are one system, their seeds its runs in MLE-bench's order (run
    // groups by name); a run group it does not list keeps its folder's name.
    let runs = work.join("leaderboard/runs");
    for group in ["g1", "g2", "g3"] {
        std::fs::create_dir_all(runs.join(group)).expect("folder");
        std::fs::copy(
            &its,
            runs.join(group)
                .join("2025-05-07T12-59-41-GMT_grading_report.json"),
        )
        .expect("copy");
    }
    std::fs::write(
        runs.join("run_group_experiments.csv"),
        "experiment_id,run_group\nexp-a,g2\nexp-a,g1\n",
    )
    .expect("write");
    let rows = import_rows("mle-bench", &[&runs], &[], "mlebench-experiments");
    let of = |system: &str| -> Vec<(String, String)> {
        rows.iter()
            .filter(|r| r["system"] == system)
            .map(|r| {
                (
                    r["task"].as_str().unwrap().to_string(),
                    r["run"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(of("exp-a").len(), 6);
    assert!(of("exp-a").contains(&("leaf-classification".to_string(), "1".to_string())));
    assert_eq!(of("g3").len(), 3);
    // A run group given alone keeps its run among the experiment's.
    let alone = import_rows(
        "mle-bench",
        &[&runs.join("g2")],
        &[],
        "mlebench-experiment-alone",
    );
    assert!(
        alone
            .iter()
            .all(|r| r["run"] == "1" && r["system"] == "exp-a")
    );
    assert!(
        info_words(&[&runs.join("g1").to_string_lossy()])
            .contains("the system is experiment 'exp-a' of run_group_experiments.csv beside its run group 'g1' (one of its 2 run groups"),
    );
    // A re-graded run group of an experiment is refused, as MLE-bench's aggregation refuses it.
    std::fs::copy(
        &its,
        runs.join("g1/2025-05-08T00-00-00-GMT_grading_report.json"),
    )
    .expect("copy");
    assert_refused(
        &pareval(&["info", &runs.join("g2").to_string_lossy()]),
        "g1: a run group of an experiment in run_group_experiments.csv holds 2 grading reports",
    );
}

#[test]
fn an_agentlab_task_waits_while_one_of_its_seeds_has_not_ended() {
    // The mini agent's order-ipad-pro task has two seeds; with the second still running (no
    // summary_info.json yet), the first alone would be read as the task's outcome (1), which the
    // second (0) changes to 0.5.
    let study = temp_dir("agentlab-seed-running").join("study");
    copy_tree(&fixture("agentlab/study"), &study);
    std::fs::remove_file(study.join(
        "2026-12-04_15-56-18_GenericAgent-gpt-4o-mini-2024-07-18_on_workarena.servicenow.order-ipad-pro_24/summary_info.json",
    ))
    .expect("remove");
    let rows = import_rows("agentlab", &[&study], &[], "agentlab-seed-running-rows");
    let task: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            r["system"] == "GenericAgent-gpt-4o-mini-2024-07-18"
                && r["task"] == "workarena.servicenow.order-ipad-pro"
        })
        .collect();
    assert_eq!(task.len(), 2);
    assert!(
        task.iter().all(|r| r["status"] == "not_attempted"),
        "{task:?}"
    );
    // The other agent's seed of that task ended and has no other: read as before.
    assert!(
        rows.iter()
            .any(|r| r["system"] == "GenericAgent-openai_gpt-4o-2024-08-06"
                && r["task"] == "workarena.servicenow.order-ipad-pro"
                && r["outcome"] == "1")
    );
    let words = info_words(&[study.to_str().expect("path")]);
    assert!(
        words.contains("1 ended experiment of tasks with a seed not ended is not attempted so far"),
        "{words}"
    );
}

#[test]
fn an_agentlab_study_of_browsergym_0_x_names_and_costs_is_read() {
    // BrowserGym 0.x (August 2024, as AgentLab's own tests/data/test_study) ended an experiment's
    // folder with six hex digits of a uuid, and AgentLab then summed the cost as
    // cum_openai_total_cost: the study was refused as holding no result files.
    let fixture_study = fixture("agentlab/study");
    let new = "2026-12-04_15-56-17_GenericAgent-openai_gpt-4o-2024-08-06_on_workarena.servicenow.order-ipad-pro_13";
    let study = temp_dir("agentlab-browsergym-0x").join("study");
    let old = study
        .join("2024-08-01_10-20-52_GenericAgent_on_workarena.servicenow.order-ipad-pro_13_e6d2d5");
    crate::common::copy_tree(&fixture_study.join(new), &old);
    let summary = old.join("summary_info.json");
    let mut value: Value = json_file(&summary);
    let object = value.as_object_mut().expect("summary");
    object.remove("stats.cum_effective_cost");
    object.remove("stats.cum_cost");
    object.insert("stats.cum_openai_total_cost".to_string(), Value::from(0.25));
    std::fs::write(&summary, value.to_string()).expect("write");
    let rows = import_rows("agentlab", &[&study], &[], "agentlab-browsergym-0x-rows");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["system"], "GenericAgent");
    assert_eq!(rows[0]["task"], "workarena.servicenow.order-ipad-pro");
    assert_eq!(rows[0]["cost_usd"], "0.25");
}

#[test]
fn agentlab_studies_are_read_by_their_layout() {
    // BrowserGym's own ExpArgs wrote this study (tests/fixtures/agentlab/write_fixture.py): one
    // folder per episode, `<date>_<agent>_on_<task>_<seed>/`, with summary_info.json once it ended.
    let study = fixture("agentlab/study");
    let rows = import_rows("agentlab", &[&study], &[], "agentlab-study");
    let read: Vec<(&str, &str, &str, Option<&str>, &str)> = rows
        .iter()
        .map(|row| {
            (
                row["system"].as_str().unwrap(),
                row["task"].as_str().unwrap(),
                row["run"].as_str().unwrap(),
                row["outcome"].as_str(),
                row["status"].as_str().unwrap(),
            )
        })
        .collect();
    let (mini, gpt) = (
        "GenericAgent-gpt-4o-mini-2024-07-18",
        "GenericAgent-openai_gpt-4o-2024-08-06",
    );
    assert_eq!(
        read,
        [
            (mini, "webarena.310", "0", Some("0"), "ok"),
            (mini, "webarena.311", "0", Some("0"), "error"),
            (
                mini,
                "webarena_verified.279.0.2",
                "0",
                None,
                "not_attempted"
            ),
            // Two seeds of one task: runs in the order the episodes started.
            (
                mini,
                "workarena.servicenow.order-ipad-pro",
                "0",
                Some("1"),
                "ok"
            ),
            (
                mini,
                "workarena.servicenow.order-ipad-pro",
                "1",
                Some("0"),
                "ok"
            ),
            (gpt, "webarena.310", "0", Some("1"), "ok"),
            // The relaunch's `_`-prefixed folder (reward 1) is left out, as AgentLab leaves it out.
            (gpt, "webarena.311", "0", Some("0"), "ok"),
            (gpt, "webarena_verified.279.0.2", "0", Some("1"), "ok"),
            (
                gpt,
                "workarena.servicenow.order-ipad-pro",
                "0",
                Some("1"),
                "ok"
            ),
        ]
    );
    // The benchmark is the group; cost is the LLM tracker's sum, seconds the steps' env + agent time.
    assert_eq!(rows[5]["group"], "webarena");
    assert_eq!(rows[7]["group"], "webarena_verified");
    assert_eq!(
        (rows[5]["cost_usd"].as_str(), rows[5]["seconds"].as_str()),
        (Some("0.03"), Some("11.25"))
    );
    assert!(
        rows[1]["source"]
            .as_str()
            .unwrap()
            .contains("TimeoutError: Page.goto: Timeout 30000ms exceeded."),
        "{}",
        rows[1]
    );
    let words = info_words(&[&study.to_string_lossy()]);
    for note in [
        "read as agentlab (recognised by its layout)",
        "1 experiment has no summary_info.json (not run yet, or running): not attempted",
        "1 experiment folder has a name starting with _ or . (a relaunch moves the episode it repeats aside so): left out",
    ] {
        assert!(words.contains(note), "{note}: {words}");
    }
    // One experiment's folder, or its summary file, reads as that experiment.
    let one =
        study.join("2026-12-04_15-56-17_GenericAgent-openai_gpt-4o-2024-08-06_on_webarena.310_11");
    for path in [one.clone(), one.join("summary_info.json")] {
        let rows = import_rows("agentlab", &[&path], &[], "agentlab-one");
        assert_eq!(
            (rows.len(), rows[0]["task"].as_str()),
            (1, Some("webarena.310"))
        );
    }

    // `watch` follows a study as it runs: an episode counts once its summary is written.
    let live = temp_dir("agentlab-live").join("study");
    copy_tree(&study, &live);
    let waiting = live.join(
        "2026-12-04_15-56-18_GenericAgent-gpt-4o-mini-2024-07-18_on_webarena_verified.279.0.2_25",
    );
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&live)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 8);
    std::fs::write(
        waiting.join("summary_info.json"),
        r#"{"n_steps": 1, "cum_reward": 1, "cum_raw_reward": 1, "err_msg": null, "stack_trace": null, "stats.cum_steps": 2, "terminated": true, "truncated": false}"#,
    )
    .expect("write");
    assert_eq!(rows_once_read(&mut followed), 9);
    // A reward outside [0, 1] is refused, naming the file.
    std::fs::write(
        waiting.join("summary_info.json"),
        r#"{"n_steps": 1, "cum_reward": 2.0, "err_msg": null}"#,
    )
    .expect("write");
    assert_refused(
        &pareval(&["info", &live.to_string_lossy()]),
        "webarena_verified.279.0.2_25/summary_info.json: cum_reward 2 is not in [0, 1]",
    );
    // An experiment folder renamed away from AgentLab's pattern is left out with a note.
    std::fs::remove_file(waiting.join("summary_info.json")).expect("remove");
    std::fs::rename(&waiting, live.join("renamed")).expect("rename");
    let words = info_words(&[&live.to_string_lossy()]);
    assert!(
        words.contains("1 experiment folder has a name that is not AgentLab's"),
        "{words}"
    );
}

#[test]
fn hal_leaderboard_databases_give_each_run_s_listed_tasks() {
    // Real rows of HAL's leaderboard databases (hal-frontend's preprocessed_traces/*.db; see
    // tests/fixtures/hal_db/write_fixture.py): five SWE-bench Verified Mini runs of three agents,
    // two of them run twice, and two ColBench runs scored without task lists.
    let swe = fixture("hal_db/swebench_verified_mini.db");
    let rows = import_rows("hal", &[&swe], &[], "hal-db");
    assert_eq!(rows.len(), 249);
    let mut runs: BTreeMap<(String, String), usize> = BTreeMap::new();
    for row in &rows {
        *runs
            .entry((
                row["system"].as_str().unwrap().to_string(),
                row["run"].as_str().unwrap().to_string(),
            ))
            .or_default() += 1;
    }
    let opus = "SWE-Agent (Claude Opus 4.1 (August 2025))".to_string();
    assert_eq!(runs.len(), 5);
    assert_eq!(runs.get(&(opus.clone(), "1".to_string())), Some(&50));
    assert_eq!(
        rows[0]["group"].as_str().map(|g| g.contains('/')),
        Some(true)
    );
    // Without --from the database is recognised; the shared records converted from the same
    // databases hold the same outcomes for these runs.
    let words = info_words(&[&swe.to_string_lossy()]);
    assert!(words.contains("read as hal"), "{words}");
    assert!(words.contains("5 runs of 3 agents"), "{words}");
    if let Some(data) = crate::common::shared_data() {
        let text =
            std::fs::read_to_string(data.join("hal/swebench_verified_mini.csv")).expect("csv");
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        let at = |name: &str| header.iter().position(|h| *h == name).expect("column");
        let (system, task, outcome, run) = (at("system"), at("task"), at("outcome"), at("run"));
        let systems: std::collections::BTreeSet<&str> =
            rows.iter().map(|r| r["system"].as_str().unwrap()).collect();
        let mut shared: Vec<(String, String, String, String)> = Vec::new();
        for line in lines {
            // No field of these rows holds a comma (names, ids, sources): the line splits plainly.
            let fields: Vec<&str> = line.split(',').collect();
            if systems.contains(fields[system]) {
                shared.push((
                    fields[system].to_string(),
                    fields[task].to_string(),
                    fields[run].to_string(),
                    fields[outcome].to_string(),
                ));
            }
        }
        let mut ours: Vec<(String, String, String, String)> = rows
            .iter()
            .map(|r| {
                (
                    r["system"].as_str().unwrap().to_string(),
                    r["task"].as_str().unwrap().to_string(),
                    r["run"].as_str().unwrap().to_string(),
                    r["outcome"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        shared.sort();
        ours.sort();
        assert_eq!(ours, shared);
    }
    // A database whose runs list no task is refused alone, and left out of a folder, noted.
    let colbench = fixture("hal_db/colbench_frontend_design.db");
    assert_refused(
        &pareval(&["info", &colbench.to_string_lossy()]),
        "no run of table parsed_results lists its tasks (2 runs;",
    );
    let words = info_words(&[&fixture("hal_db").to_string_lossy()]);
    assert!(
        words.contains(
            "left out colbench_frontend_design.db (HAL leaderboard database whose runs list no task"
        ),
        "{words}"
    );
    // Malformed databases name the file, the run and the column.
    let dir = temp_dir("hal-db-bad");
    let bad = dir.join("bad.db");
    let connection = rusqlite::Connection::open(&bad).expect("db");
    connection
        .execute_batch(
            "create table parsed_results (agent_name text, date text, run_id text, successful_tasks text, failed_tasks text);
             insert into parsed_results values ('A', '2025-01-01', 'r1', '[''t1'', ''t2''', '[]');",
        )
        .expect("rows");
    drop(connection);
    assert_refused(
        &pareval(&["info", &bad.to_string_lossy()]),
        "bad.db: run r1: successful_tasks: not a list: '['t1', 't2''",
    );
    let other = dir.join("other.db");
    rusqlite::Connection::open(&other)
        .and_then(|c| c.execute_batch("create table notes (text text);"))
        .expect("db");
    assert_refused(
        &pareval(&["info", &other.to_string_lossy()]),
        "other.db: an SQLite database without a parsed_results table",
    );
    // In a folder, a database that is not HAL's is left out like any file that is not a result.
    let mixed = temp_dir("hal-db-folder");
    std::fs::copy(&swe, mixed.join("swebench_verified_mini.db")).expect("copy");
    std::fs::copy(&other, mixed.join("cache.db")).expect("copy");
    assert!(info_words(&[&mixed.to_string_lossy()]).contains("systems 3"));
    let both = dir.join("both.db");
    rusqlite::Connection::open(&both)
        .and_then(|c| {
            c.execute_batch(
                "create table parsed_results (agent_name text, date text, run_id text, successful_tasks text, failed_tasks text);
                 insert into parsed_results values ('A', '2025-01-01', 'r1', '[''t1'']', '[''t1'']');",
            )
        })
        .expect("db");
    assert_refused(
        &pareval(&["info", &both.to_string_lossy()]),
        "run r1: task 't1' is listed twice",
    );
}

#[test]
fn theagentcompany_results_give_full_completion_or_the_partial_score() {
    // Real result files of two leaderboard submissions (TheAgentCompany/experiments), the older
    // format (checkpoints and final_score only) and the newer (task_id, error, timestamp).
    let root = fixture("theagentcompany");
    let aria = root.join("20260430_ARIA-deepseek-v3.2/results");
    let iris = root.join("20260625_IRIS-GraphAgent-gpt-5.4-2026-03-05/results");
    let outcomes = |rows: &[Value]| -> Vec<(String, String, String)> {
        rows.iter()
            .map(|r| {
                (
                    r["task"].as_str().unwrap().to_string(),
                    r["outcome"].as_str().unwrap().to_string(),
                    r["group"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let rows = import_rows("theagentcompany", &[&aria, &iris], &[], "tac");
    assert!(
        rows[..4]
            .iter()
            .all(|r| r["system"] == "ARIA-deepseek-v3.2")
    );
    assert!(
        rows[4..]
            .iter()
            .all(|r| r["system"] == "IRIS-GraphAgent-gpt-5.4-2026-03-05")
    );
    let read = outcomes(&rows);
    let want = |task: &str, outcome: &str, group: &str| {
        (task.to_string(), outcome.to_string(), group.to_string())
    };
    assert_eq!(
        read,
        [
            want("admin-make-spreadsheet", "0", "admin"),
            want("ds-merge-multiple-sheets", "0", "ds"),
            want("finance-invoice-matching", "0", "finance"),
            want("sde-create-sqlite-database", "1", "sde"),
            want("admin-make-spreadsheet", "1", "admin"),
            want("ds-merge-multiple-sheets", "1", "ds"),
            want("finance-invoice-matching", "1", "finance"),
            // final_score is the evaluator's (2 of 8), not the checkpoints' sum (1).
            want("sde-create-sqlite-database", "0", "sde"),
        ]
    );
    // The paper's partial completion score: 0.5·result/total + 0.5·full.
    let partial = import_rows(
        "theagentcompany",
        &[&aria, &iris],
        &["--metric", "partial"],
        "tac-p",
    );
    let scores: Vec<String> = outcomes(&partial).into_iter().map(|(_, o, _)| o).collect();
    assert_eq!(scores, ["0.2", "0.25", "0.4", "1", "1", "1", "1", "0.125"]);
    // Without --from: a results folder, a submission folder, the folder of submissions and one
    // file are recognised.
    for path in [&root, &aria.parent().unwrap().to_path_buf()] {
        let words = info_words(&[&path.to_string_lossy()]);
        assert!(
            words.contains("read as theagentcompany (recognised by its layout)"),
            "{words}"
        );
    }
    let words = info_words(&[&root.to_string_lossy()]);
    assert!(
        words.contains("systems 2") && words.contains("tasks 4"),
        "{words}"
    );
    // The leaderboard's version folder, whose submissions keep a README, screenshots and
    // trajectories beside results/, reads every submission.
    let version = temp_dir("tac-leaderboard").join("1.0.0");
    for submission in [aria.parent().unwrap(), iris.parent().unwrap()] {
        let copy = version.join(submission.file_name().unwrap());
        copy_tree(submission, &copy);
        std::fs::write(copy.join("README.md"), "# submission\n").expect("readme");
        std::fs::create_dir_all(copy.join("screenshots/task")).expect("screenshots");
        std::fs::write(copy.join("screenshots/task/0001.jpg"), "jpg").expect("screenshot");
        std::fs::create_dir_all(copy.join("trajectories")).expect("trajectories");
        std::fs::write(copy.join("trajectories/task.md"), "# steps\n").expect("trajectory");
    }
    let words = info_words(&[&version.to_string_lossy()]);
    assert!(
        words.contains("systems 2") && words.contains("tasks 4"),
        "{words}"
    );
    // `watch` follows a results folder as a run writes it: a task counts once its file lands.
    let live = temp_dir("tac-live").join("20260101_live/results");
    std::fs::create_dir_all(&live).expect("live");
    for task in ["admin-make-spreadsheet", "ds-merge-multiple-sheets"] {
        let name = format!("eval_{task}.json");
        std::fs::copy(iris.join(&name), live.join(&name)).expect("copy");
    }
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&live)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 2);
    let name = "eval_finance-invoice-matching.json";
    std::fs::copy(iris.join(name), live.join(name)).expect("copy");
    assert_eq!(rows_once_read(&mut followed), 3);
    let one = aria.join("eval_finance-invoice-matching.json");
    let rows = import_rows("theagentcompany", &[&one], &[], "tac-one");
    assert_eq!(
        (
            rows.len(),
            rows[0]["task"].as_str(),
            rows[0]["system"].as_str()
        ),
        (
            1,
            Some("finance-invoice-matching"),
            Some("ARIA-deepseek-v3.2")
        )
    );
    // An error is status error; a score out of no total, or an unknown metric, is refused.
    let dir = temp_dir("tac-bad").join("20260101_bad/results");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("eval_hr-x.json"),
        r#"{"task_id": "hr-x", "checkpoints": [], "error": "container crashed", "final_score": {"total": 2, "result": 0}}"#,
    )
    .expect("write");
    let rows = import_rows("theagentcompany", &[&dir], &[], "tac-error");
    assert_eq!(
        (rows[0]["status"].as_str(), rows[0]["system"].as_str()),
        (Some("error"), Some("bad"))
    );
    assert_refused(
        &pareval(&["info", &dir.to_string_lossy(), "--metric", "score"]),
        "--metric score: TheAgentCompany's outcomes are resolved or partial",
    );
    std::fs::write(
        dir.join("eval_hr-x.json"),
        r#"{"checkpoints": [], "final_score": {"total": 0, "result": 0}}"#,
    )
    .expect("write");
    assert_refused(
        &pareval(&["info", &dir.to_string_lossy()]),
        "eval_hr-x.json: final_score 0 of 0: not a score out of a positive total",
    );
}

/// (system, task) → (outcome, status, group, seconds) of imported rows.
fn bfcl_rows(rows: &[Value]) -> BTreeMap<(String, String), (String, String, String, String)> {
    let text = |r: &Value, key: &str| r[key].as_str().unwrap_or("").to_string();
    rows.iter()
        .map(|r| {
            (
                (text(r, "system"), text(r, "task")),
                (
                    text(r, "outcome"),
                    text(r, "status"),
                    text(r, "group"),
                    text(r, "seconds"),
                ),
            )
        })
        .collect()
}

#[test]
fn bfcl_score_files_are_read_with_their_results_every_unlisted_entry_passing() {
    // Files bfcl-eval's own writer and checkers wrote (v4), and real leaderboard files of 2024.
    let root = fixture("bfcl");
    let v4 = root.join("v4");
    let rows = import_rows("bfcl", &[&v4], &[], "bfcl-v4");
    assert_eq!(rows.len(), 38);
    let read = bfcl_rows(&rows);
    let failed = |system: &str| -> Vec<String> {
        read.iter()
            .filter(|((s, _), (outcome, ..))| s == system && outcome == "0")
            .map(|((_, task), _)| task.clone())
            .collect()
    };
    assert_eq!(
        failed("gpt-4o-2024-11-20"),
        [
            "multi_turn_base_0",
            "multi_turn_base_2",
            "simple_python_3",
            "simple_python_8"
        ]
    );
    assert_eq!(
        failed("gpt-4o-mini-2024-07-18"),
        [
            "irrelevance_1",
            "irrelevance_4",
            "multi_turn_base_0",
            "multi_turn_base_1",
            "simple_python_1",
            "simple_python_4",
            "simple_python_7"
        ]
    );
    let row = |system: &str, task: &str| read[&(system.to_string(), task.to_string())].clone();
    let want = |outcome: &str, status: &str, group: &str, seconds: &str| {
        (
            outcome.to_string(),
            status.to_string(),
            group.to_string(),
            seconds.to_string(),
        )
    };
    assert_eq!(
        row("gpt-4o-2024-11-20", "simple_python_0"),
        want("1", "ok", "simple_python", "0.5")
    );
    // Multi-turn latencies are per turn and step: summed.
    assert_eq!(
        row("gpt-4o-2024-11-20", "multi_turn_base_2"),
        want("0", "ok", "multi_turn_base", "6.25")
    );
    // BFCL's record of an exception during generation: graded a failure, status error.
    assert_eq!(
        row("gpt-4o-mini-2024-07-18", "simple_python_7"),
        want("0", "error", "simple_python", "")
    );
    // Without --from: the project folder, its score folder, a model's score folder (v4's group
    // folders below it), a group folder and one score file are recognised; BFCL's data_*.csv
    // tables in score/ are not rows.
    let score = v4.join("score");
    let model = score.join("gpt-4o-2024-11-20");
    for (path, systems, tasks) in [
        (v4.clone(), 2, 19),
        (score.clone(), 2, 19),
        (model.clone(), 1, 19),
        (model.join("non_live"), 1, 16),
        (model.join("non_live/BFCL_v4_irrelevance_score.json"), 1, 6),
    ] {
        let words = info_words(&[&path.to_string_lossy()]);
        assert!(
            words.contains("read as bfcl (recognised by its")
                && !words.contains("no score file yet")
                && words.contains(&format!("systems {systems} "))
                && words.contains(&format!("tasks {tasks} ")),
            "{}: {words}",
            path.display()
        );
    }
    let words = info_words(&[&v4.to_string_lossy()]);
    assert!(
        words.contains("BFCL scores of 2 models over 3 categories (38 entries")
            && words.contains("1 entry is BFCL's record of an exception during generation"),
        "{words}"
    );

    // v4's agentic categories, a memory backend's files a level deeper (agentic/memory/kv).
    let agentic = import_rows("bfcl", &[&root.join("v4_agentic")], &[], "bfcl-agentic");
    let read_agentic = bfcl_rows(&agentic);
    for category in ["memory_kv", "web_search_base"] {
        let outcomes: Vec<&str> = read_agentic
            .iter()
            .filter(|(_, (_, _, group, _))| group == category)
            .map(|(_, (outcome, ..))| outcome.as_str())
            .collect();
        assert_eq!(outcomes, ["1", "0", "1", "0"], "{category}");
    }
    assert!(read_agentic.contains_key(&(
        "gpt-4o-2024-11-20".to_string(),
        "memory_kv_1-customer-1".to_string()
    )));

    // 2024's leaderboard files: failures numbered from 1 in the result file's order.
    let old = root.join("leaderboard_2024");
    let rows = import_rows("bfcl", &[&old], &[], "bfcl-2024");
    let read = bfcl_rows(&rows);
    let tallied = tally(&rows);
    assert_eq!(tallied["gpt-4o-2024-05-13-FC"].outcome_sum, 96.0);
    assert_eq!(tallied["Nexusflow-Raven-v2"].outcome_sum, 95.0);
    let raven_failed: Vec<&str> = read
        .iter()
        .filter(|((s, _), (o, ..))| s == "Nexusflow-Raven-v2" && o == "0")
        .map(|((_, t), _)| t.as_str())
        .collect();
    assert_eq!(
        raven_failed,
        [
            "executable_simple_15",
            "executable_simple_24",
            "executable_simple_40",
            "executable_simple_41",
            "executable_simple_55"
        ]
    );
    let seconds: f64 = rows
        .iter()
        .filter(|r| r["system"] == "gpt-4o-2024-05-13-FC")
        .map(|r| r["seconds"].as_str().unwrap().parse::<f64>().unwrap())
        .sum();
    assert!((seconds - 74.7148).abs() < 1e-3, "{seconds}");
    let words = info_words(&[&old.to_string_lossy()]);
    assert!(
        words.contains("2 score files number the failed entries from 1"),
        "{words}"
    );
    // July 2024: the result lines carry `idx` from 0 and no id (they were refused); the tasks are
    // <category>_<idx>, and the failures numbered from 1 fall on idx − 1.
    let july = root.join("leaderboard_2024_07");
    let rows = import_rows("bfcl", &[&july], &[], "bfcl-2024-07");
    assert_eq!(rows.len(), 50);
    assert_eq!(tally(&rows)["gpt-4-turbo-2024-04-09-FC"].outcome_sum, 44.0);
    let failed: Vec<String> = bfcl_rows(&rows)
        .into_iter()
        .filter(|(_, (o, ..))| o == "0")
        .map(|((_, t), _)| t)
        .collect();
    let expected: Vec<String> = [17, 26, 41, 43, 45, 46]
        .iter()
        .map(|i| format!("executable_multiple_function_{i}"))
        .collect();
    assert_eq!(failed, expected);
    let words = info_words(&[&july.to_string_lossy()]);
    assert!(
        words.contains("1 result file numbers their entries by 'idx' from 0 (BFCL before August 2024 wrote no id): tasks named <category>_<idx>"),
        "{words}"
    );
    // Answers out of id order: bfcl-eval numbered them sorted by id (from 2024-11-24), or in file
    // order (before); the failures' prompt ids tell which, and both read the same failures.
    let raven_in = |copy: &Path| {
        let folder = |side: &str| copy.join(format!("{side}-BFCL/Nexusflow-Raven-v2"));
        (
            folder("result").join("gorilla_openfunctions_v1_test_executable_simple_result.json"),
            folder("score").join("executable_simple_score.json"),
        )
    };
    let failed_of = |copy: &Path, name: &str| -> Vec<String> {
        bfcl_rows(&import_rows("bfcl", &[copy], &[], name))
            .into_iter()
            .filter(|((s, _), (o, ..))| s == "Nexusflow-Raven-v2" && o == "0")
            .map(|((_, t), _)| t)
            .collect()
    };
    let sorted = temp_dir("bfcl-2024-reversed");
    copy_tree(&old, &sorted);
    let (result, score) = raven_in(&sorted);
    let lines: Vec<String> = std::fs::read_to_string(&result)
        .expect("result")
        .lines()
        .rev()
        .map(str::to_string)
        .collect();
    std::fs::write(&result, lines.join("\n")).expect("write");
    assert_eq!(failed_of(&sorted, "bfcl-2024-id-order"), raven_failed);
    // The same answers graded in file order: each failure's place counted in the reversed file.
    let graded = std::fs::read_to_string(&score).expect("score");
    let renumbered: Vec<String> = graded
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                return line.to_string();
            }
            let mut failure: Value = serde_json::from_str(line).expect("failure");
            let place = failure["id"].as_u64().expect("numbered");
            failure["id"] = Value::from(100 - place + 1);
            failure.to_string()
        })
        .collect();
    std::fs::write(&score, renumbered.join("\n")).expect("write");
    assert_eq!(failed_of(&sorted, "bfcl-2024-file-order"), raven_failed);
    let words = info_words(&[&sorted.to_string_lossy()]);
    assert!(
        words.contains("1 in file order, as their failures' prompt ids show"),
        "{words}"
    );
}

#[test]
fn bfcl_files_that_cannot_say_which_entries_passed_are_refused_naming_them() {
    let v4 = fixture("bfcl").join("v4");
    let model = "gpt-4o-2024-11-20";
    // The answers alone: not graded.
    let answers = v4.join(format!(
        "result/{model}/non_live/BFCL_v4_simple_python_result.json"
    ));
    assert_refused(
        &pareval(&["info", &answers.to_string_lossy()]),
        "a BFCL result file: the model's answers, not their grades; run `bfcl evaluate`",
    );
    // A score folder whose result folder is not beside it: the passes are unknown.
    let alone = temp_dir("bfcl-score-alone");
    copy_tree(&v4.join("score"), &alone.join("score"));
    assert_refused(
        &pareval(&["info", &alone.to_string_lossy()]),
        "its result file is not there",
    );
    // Answers generated again after grading (one more entry), and a failure the results lack.
    let copy = temp_dir("bfcl-regenerated");
    copy_tree(&v4, &copy);
    let result = copy.join(format!(
        "result/{model}/non_live/BFCL_v4_simple_python_result.json"
    ));
    let mut text = std::fs::read_to_string(&result).expect("result");
    text.push_str("{\"id\": \"simple_python_10\", \"result\": \"[f(x=1)]\", \"latency\": 1.0}\n");
    std::fs::write(&result, &text).expect("write");
    assert_refused(
        &pareval(&["info", &copy.to_string_lossy()]),
        "it graded 10 entries (8 correct, 2 failures listed), but",
    );
    let kept: Vec<&str> = text
        .lines()
        .filter(|line| !line.contains("\"simple_python_3\""))
        .collect();
    std::fs::write(&result, kept.join("\n")).expect("write");
    assert_refused(
        &pareval(&["info", &copy.to_string_lossy()]),
        "failed entry 'simple_python_3' is not in",
    );
    // A result file with no score file yet (not graded) is left out, noted.
    let ungraded = temp_dir("bfcl-ungraded");
    copy_tree(&v4, &ungraded);
    let live = ungraded.join(format!("result/{model}/live"));
    std::fs::create_dir_all(&live).expect("live folder");
    std::fs::write(
        live.join("BFCL_v4_live_simple_result.json"),
        "{\"id\": \"live_simple_0-0-0\", \"result\": \"[f(x=1)]\", \"latency\": 1.0}\n",
    )
    .expect("write");
    let words = info_words(&[&ungraded.to_string_lossy()]);
    assert!(
        words.contains("1 result file of these models has no score file yet")
            && words.contains("BFCL_v4_live_simple_result.json")
            && words.contains("tasks 19 "),
        "{words}"
    );
}

#[test]
fn promptfoo_results_give_each_provider_s_passes_with_repeats_as_runs() {
    // Files promptfoo 0.120.27 wrote itself, on stand-in providers.
    let root = fixture("promptfoo");
    let json = root.join("repeat/results.json");
    let lines = root.join("repeat/results.jsonl");
    let rows = import_rows("promptfoo", &[&json], &[], "promptfoo-json");
    assert_eq!(rows.len(), 32);
    // promptfoo's own counts: strong-agent 11 passed of 16, weak-agent 4 passed and 2 errors.
    let tallied = tally(&rows);
    assert_eq!(tallied["strong-agent"].outcome_sum, 11.0);
    assert_eq!(tallied["weak-agent"].outcome_sum, 4.0);
    assert_eq!(tallied["weak-agent"].statuses.get("error"), Some(&2));
    assert_eq!(tallied["strong-agent"].tasks, 8);
    // A task is the test case, not promptfoo's testIdx (one per test and repeat): its repeats
    // are runs 0 and 1.
    let errored: Vec<(String, String)> = rows
        .iter()
        .filter(|r| r["status"] == "error")
        .map(|r| {
            (
                r["task"].as_str().unwrap().to_string(),
                r["run"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        errored,
        [
            ("sum 3".to_string(), "0".to_string()),
            ("sum 3".to_string(), "1".to_string())
        ]
    );
    let seconds: f64 = rows
        .iter()
        .filter(|r| r["system"] == "strong-agent")
        .map(|r| r["seconds"].as_str().unwrap().parse::<f64>().unwrap())
        .sum();
    assert!((seconds - 0.058).abs() < 1e-9, "{seconds}");
    assert!(
        rows.iter()
            .all(|r| r["cost_usd"] == "0.0015" || r["status"] == "error")
    );
    let groups: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["group"].as_str().unwrap()).collect();
    assert_eq!(
        groups.into_iter().collect::<Vec<_>>(),
        ["easy", "hard", "medium"]
    );
    // The JSON Lines output holds the same results.
    let from_lines = import_rows("promptfoo", &[&lines], &[], "promptfoo-jsonl");
    let key = |r: &Value| {
        [
            "system", "task", "run", "outcome", "status", "group", "seconds",
        ]
        .map(|k| r[k].as_str().unwrap_or("").to_string())
    };
    let mut a: Vec<_> = rows.iter().map(key).collect();
    let mut b: Vec<_> = from_lines.iter().map(key).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    // Recognised without --from, both shapes.
    for path in [&json, &lines] {
        let words = info_words(&[&path.to_string_lossy()]);
        assert!(
            words.contains("read as promptfoo (recognised by its keys)")
                && words.contains("2 results where the provider or a grader raised"),
            "{words}"
        );
    }
}

#[test]
fn promptfoo_version_2_outputs_are_read_from_their_table() {
    // promptfoo 0.58.0's own output (results version 2) of the repeat/ config: no testIdx or
    // testCase in its results, its providers' labels dropped from the columns.
    let v2 = fixture("promptfoo").join("v2/results.json");
    let rows = import_rows("promptfoo", &[&v2], &[], "promptfoo-v2");
    assert_eq!(rows.len(), 32);
    let tallied = tally(&rows);
    // promptfoo's own column metrics: 12 passed of 16, and 4 of 16 with 2 errors.
    assert_eq!(
        (
            tallied["strong-agent"].tasks,
            tallied["strong-agent"].outcome_sum
        ),
        (8, 12.0)
    );
    assert_eq!(tallied["weak-agent"].outcome_sum, 4.0);
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    let errored: Vec<String> = rows
        .iter()
        .filter(|r| field(r, "status") == "error")
        .map(|r| {
            format!(
                "{} {} {}",
                field(r, "system"),
                field(r, "task"),
                field(r, "run")
            )
        })
        .collect();
    assert_eq!(errored, ["weak-agent sum 3 0", "weak-agent sum 3 1"]);
    let first = rows
        .iter()
        .find(|r| r["system"] == "strong-agent" && r["task"] == "sum 0" && r["run"] == "0")
        .expect("a result");
    assert_eq!(
        ["group", "cost_usd", "source"].map(|k| field(first, k)),
        ["easy", "0.0015", "promptfoo table row 1"]
    );
    let words = info_words(&[&v2.to_string_lossy()]);
    assert!(
        words.contains("read as promptfoo (recognised by its keys)")
            && words
                .contains("the systems are config.providers' labels in promptfoo's column order")
            && words.contains("its runs in table row order"),
        "{words}"
    );
    // Without the labels in config.providers, the shared column is numbered.
    let mut value: Value =
        serde_json::from_slice(&std::fs::read(&v2).expect("read")).expect("json");
    value["config"]["providers"] = serde_json::json!(["file://../stand_in.js"]);
    let dir = temp_dir("promptfoo-v2-edited");
    let unlabelled = dir.join("results.json");
    std::fs::write(&unlabelled, value.to_string()).expect("write");
    let rows = import_rows("promptfoo", &[&unlabelled], &[], "promptfoo-v2-unlabelled");
    let systems: std::collections::BTreeSet<String> =
        rows.iter().map(|r| field(r, "system")).collect();
    assert_eq!(
        systems.into_iter().collect::<Vec<_>>(),
        ["file://../stand_in.js", "file://../stand_in.js #2"]
    );
    // A row whose outputs do not match the columns is refused with its row.
    value["results"]["table"]["body"][3]["outputs"]
        .as_array_mut()
        .expect("outputs")
        .pop();
    std::fs::write(&unlabelled, value.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &unlabelled.to_string_lossy()]),
        "results.json: table row 4: 1 outputs for 2 columns",
    );
}

#[test]
fn promptfoo_prompts_are_systems_and_tests_of_one_description_stay_apart() {
    let file = fixture("promptfoo").join("prompts/results.json");
    let rows = import_rows("promptfoo", &[&file], &[], "promptfoo-prompts");
    let read: BTreeMap<(String, String), String> = rows
        .iter()
        .map(|r| {
            (
                (
                    r["system"].as_str().unwrap().to_string(),
                    r["task"].as_str().unwrap().to_string(),
                ),
                r["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = |system: &str, task: &str| read[&(system.to_string(), task.to_string())].clone();
    for prompt in ["terse", "spelled-out"] {
        let system = format!("strong-agent · {prompt}");
        assert_eq!(want(&system, "sum 12"), "0");
        assert_eq!(want(&system, r#"twin {"a":9,"b":4}"#), "1");
        assert_eq!(want(&system, r#"twin {"a":2,"b":2}"#), "0");
        assert_eq!(want(&system, r#"{"a":5,"b":5}"#), "1");
    }
    // --metric score: the weighted assertions' score (the right-format half of sum 12).
    let scored = import_rows(
        "promptfoo",
        &[&file],
        &["--metric", "score"],
        "promptfoo-score",
    );
    let sum12: Vec<&str> = scored
        .iter()
        .filter(|r| r["task"] == "sum 12")
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(sum12, ["0.25", "0.25"]);
    // A score outside [0, 1] and a result without success are refused naming the place.
    let copy = temp_dir("promptfoo-bad");
    let text = std::fs::read_to_string(&file).expect("results");
    let mut value: Value = serde_json::from_str(&text).expect("json");
    value["results"]["results"][2]["score"] = Value::from(3.0);
    let bad = copy.join("results.json");
    std::fs::write(&bad, value.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &bad.to_string_lossy(), "--metric", "score"]),
        "result 3: score is 3, outside [0, 1]",
    );
    value["results"]["results"][4]
        .as_object_mut()
        .unwrap()
        .remove("success");
    std::fs::write(&bad, value.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &bad.to_string_lossy()]),
        "result 5: success is missing",
    );
}

#[test]
fn a_harness_amount_that_is_no_number_at_least_zero_is_read_as_unknown_with_a_note() {
    // METR: a cost written as text and a negative human time; DeepEval: a −1 cost and a text time.
    // Before, the text was dropped unseen and the negative time refused the whole file.
    let dir = temp_dir("amounts-no-number");
    let lines: Vec<String> = std::fs::read_to_string(fixture("metr/runs_th1-1_excerpt.jsonl"))
        .expect("read the METR excerpt")
        .lines()
        .map(str::to_string)
        .collect();
    let mut bent = lines.clone();
    bent[1] = bent[1].replacen("\"generation_cost\":0.0", "\"generation_cost\":\"n/a\"", 1);
    let minutes = bent[2].find("\"human_minutes\":").expect("human_minutes");
    let end = minutes + bent[2][minutes..].find(',').expect("a comma");
    bent[2].replace_range(minutes..end, "\"human_minutes\":-1");
    assert_ne!(bent, lines);
    let metr = dir.join("runs.jsonl");
    std::fs::write(&metr, bent.join("\n") + "\n").expect("write");
    let out = dir.join("metr.jsonl");
    let output = pareval(&[
        "import",
        "metr",
        metr.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = flat(&format!("{}{}", stdout(&output), stderr(&output)));
    assert!(
        said.contains("1 row's cost is no number ≥ 0 and is read as unknown (the first, metr run "),
        "{said}"
    );
    assert!(
        said.contains(
            "1 row's seconds is no number ≥ 0 and is read as unknown (the first, metr run "
        ) && said.contains(": -60)"),
        "{said}"
    );
    let rows: Vec<Value> = std::fs::read_to_string(&out)
        .expect("read")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    assert_eq!(rows.len(), lines.len(), "no row is dropped");
    let unknown = |field: &str| rows.iter().filter(|r| r[field].is_null()).count();
    let clean = import_rows(
        "metr",
        &[&fixture("metr/runs_th1-1_excerpt.jsonl")],
        &[],
        "amounts-clean",
    );
    let clean_unknown = |field: &str| clean.iter().filter(|r| r[field].is_null()).count();
    assert_eq!(unknown("cost_usd"), clean_unknown("cost_usd") + 1);
    assert_eq!(unknown("seconds"), clean_unknown("seconds") + 1);

    let results = dir.join("deepeval");
    copy_tree(&fixture("deepeval/results"), &results);
    let run = results.join("test_run_20261204_182437.json");
    let text = std::fs::read_to_string(&run).expect("read");
    let text = text
        .replacen("\"tokenCost\": 0.0015", "\"tokenCost\": -1", 1)
        .replacen(
            "\"completionTime\": 0.6",
            "\"completionTime\": \"0.6 s\"",
            1,
        );
    std::fs::write(&run, text).expect("write");
    let output = pareval(&["info", results.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = flat(&format!("{}{}", stdout(&output), stderr(&output)));
    assert!(
        said.contains("1 row's cost is no number ≥ 0 and is read as unknown (the first, deepeval "),
        "{said}"
    );
    assert!(said.contains(": -1)"), "{said}");
    assert!(
        said.contains(
            "1 row's seconds is no number ≥ 0 and is read as unknown (the first, deepeval "
        ),
        "{said}"
    );
    assert!(said.contains(": no number)"), "{said}");
}

#[test]
fn deepeval_test_runs_are_systems_by_hyperparameters_with_a_folder_s_runs_in_time_order() {
    // Test runs DeepEval 4.3.1's own evaluate() wrote, on stand-in systems and metrics.
    let root = fixture("deepeval");
    let results = root.join("results");
    let rows = import_rows("deepeval", &[&results], &[], "deepeval-folder");
    assert_eq!(rows.len(), 24);
    let strong = "model=strong-model, prompt version=v1";
    let weak = "model=weak-model, prompt version=v1";
    let tallied = tally(&rows);
    assert_eq!(tallied[strong].rows, 16);
    assert_eq!(tallied[strong].outcome_sum, 12.0);
    assert_eq!(tallied[weak].outcome_sum, 2.0);
    assert_eq!(tallied[weak].statuses.get("error"), Some(&1));
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    // The strong system's two test runs are its runs 0 and 1, in file (time) order.
    let runs: std::collections::BTreeSet<String> = rows
        .iter()
        .filter(|r| r["system"] == strong)
        .map(|r| field(r, "run"))
        .collect();
    assert_eq!(runs.into_iter().collect::<Vec<_>>(), ["0", "1"]);
    let sum3 = rows
        .iter()
        .find(|r| r["system"] == weak && r["task"] == "sum 3")
        .expect("sum 3");
    assert_eq!(
        ["outcome", "status", "group", "cost_usd", "seconds"].map(|k| field(sum3, k)),
        ["0", "error", "easy", "0.0015", "0.8"]
    );
    // --metric NAME: that metric's score; the metric that raised has none (not attempted), and a
    // test case where another metric raised keeps the score with status error.
    let exact = import_rows(
        "deepeval",
        &[&results],
        &["--metric", "Exact Sum"],
        "deepeval-exact",
    );
    let row = |rows: &[Value], task: &str| -> [String; 2] {
        let r = rows
            .iter()
            .find(|r| r["system"] == weak && r["task"] == task)
            .expect("row");
        [field(r, "outcome"), field(r, "status")]
    };
    assert_eq!(row(&exact, "sum 3"), ["", "not_attempted"]);
    let brevity = import_rows(
        "deepeval",
        &[&results],
        &["--metric", "Brevity"],
        "deepeval-brevity",
    );
    assert_eq!(row(&brevity, "sum 3"), ["0.25", "error"]);
    // Recognised without --from: the folder, one file, and DeepEval's own latest copy.
    let words = info_words(&[&results.to_string_lossy()]);
    assert!(
        words.contains("read as deepeval (recognised by its layout)")
            && words.contains("DeepEval test runs, 3 of them (24 test cases)")
            && words.contains("(its hyperparameters)"),
        "{words}"
    );
    let latest = root.join(".deepeval/.latest_test_run.json");
    let words = info_words(&[&latest.to_string_lossy()]);
    assert!(
        words.contains("read as deepeval (recognised by its keys)")
            && words.contains("systems 1 ")
            && words.contains("tasks 8 "),
        "{words}"
    );
    // Two test runs of one system given one by one collide, with the way out named.
    let first = results.join("test_run_20261204_182437.json");
    let third = results.join("test_run_20261204_182442.json");
    assert_refused(
        &pareval(&["info", &first.to_string_lossy(), &third.to_string_lossy()]),
        "give their results folder",
    );
    assert_refused(
        &pareval(&["info", &first.to_string_lossy(), "--metric", "Faithfulness"]),
        "no metric 'Faithfulness' (it has Exact Sum, Brevity)",
    );
    // A name twice in one run cannot be told apart.
    let copy = temp_dir("deepeval-twice");
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&first).expect("run")).expect("json");
    value["testCases"][1]["name"] = Value::from("sum 0");
    let twice = copy.join("test_run_twice.json");
    std::fs::write(&twice, value.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &twice.to_string_lossy()]),
        "testCases entry 2: test case 'sum 0' again (first as entry 1)",
    );
}

#[test]
fn agentdojo_runs_give_utility_or_resistance_per_pipeline_and_attack() {
    // Runs AgentDojo 0.1.35's own benchmark functions and TraceLogger wrote, stand-in pipelines.
    let runs = fixture("agentdojo").join("runs");
    let rows = import_rows("agentdojo", &[&runs], &[], "agentdojo-utility");
    // 2 pipelines × (6 user tasks + 6 × 2 attacked pairs); the injection tasks run alone are out.
    assert_eq!(rows.len(), 36);
    let tallied = tally(&rows);
    let careful = "local-stand-in-careful";
    let gullible = "local-stand-in-gullible";
    let attacked = |p: &str| format!("{p} · important_instructions");
    assert_eq!(tallied[careful].outcome_sum, 5.0);
    assert_eq!(tallied[gullible].outcome_sum, 4.0);
    assert_eq!(tallied[&attacked(careful)].outcome_sum, 10.0);
    assert_eq!(tallied[&attacked(gullible)].outcome_sum, 8.0);
    assert!(
        rows.iter().all(|r| r["group"] == "banking"
            && !r["task"].as_str().unwrap().contains("/injection_task_0/"))
    );
    assert!(
        rows.iter()
            .any(|r| r["task"] == "banking/user_task_3/injection_task_0")
    );
    // --metric security: whether the agent resisted, under the attack only.
    let resisted = import_rows(
        "agentdojo",
        &[&runs],
        &["--metric", "security"],
        "agentdojo-security",
    );
    let tallied = tally(&resisted);
    assert_eq!(tallied.len(), 2);
    assert_eq!(tallied[&attacked(careful)].outcome_sum, 12.0);
    let mut reached: Vec<&str> = resisted
        .iter()
        .filter(|r| r["system"] == attacked(gullible).as_str() && r["outcome"] == "0")
        .map(|r| r["task"].as_str().unwrap())
        .collect();
    reached.sort();
    assert_eq!(
        reached,
        [
            "banking/user_task_0/injection_task_0",
            "banking/user_task_2/injection_task_1",
            "banking/user_task_3/injection_task_0",
            "banking/user_task_5/injection_task_1"
        ]
    );
    // Recognised without --from: the logdir, a suite folder below it, one file.
    let words = info_words(&[&runs.to_string_lossy()]);
    assert!(
        words.contains("read as agentdojo (recognised by its layout)")
            && words.contains("4 runs of an injection task alone"),
        "{words}"
    );
    let one = runs.join(format!(
        "{gullible}/banking/user_task_0/important_instructions/injection_task_0.json"
    ));
    let words = info_words(&[&one.to_string_lossy()]);
    assert!(
        words.contains("read as agentdojo (recognised by its keys)"),
        "{words}"
    );
    // A run still going (no utility yet) is not attempted; a logged provider error is an error
    // with AgentDojo's score.
    let copy = temp_dir("agentdojo-live");
    copy_tree(&runs, &copy.join("runs"));
    let edit = |relative: &str, change: &dyn Fn(&mut Value)| {
        let path = copy.join("runs").join(relative);
        let mut value: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("run")).expect("json");
        change(&mut value);
        std::fs::write(&path, value.to_string()).expect("write");
    };
    edit(
        &format!("{careful}/banking/user_task_1/none/none.json"),
        &|v| {
            let object = v.as_object_mut().unwrap();
            object.remove("utility");
            object.remove("security");
        },
    );
    edit(
        &format!("{careful}/banking/user_task_3/none/none.json"),
        &|v| {
            v["error"] = Value::from("context_length_exceeded");
            v["utility"] = Value::from(false);
        },
    );
    let rows = import_rows("agentdojo", &[&copy.join("runs")], &[], "agentdojo-edited");
    let status = |task: &str| {
        let r = rows
            .iter()
            .find(|r| r["system"] == careful && r["task"] == task)
            .expect("row");
        [
            r["outcome"].as_str().unwrap_or("").to_string(),
            r["status"].as_str().unwrap().to_string(),
        ]
    };
    assert_eq!(status("banking/user_task_1"), ["", "not_attempted"]);
    assert_eq!(status("banking/user_task_3"), ["0", "error"]);
    // `watch` follows a logdir: a run counts once AgentDojo writes its utility into its file.
    let mut followed =
        pareval::watch::follow::Followed::new(&[copy.join("runs")]).expect("followed");
    let before = rows_once_read(&mut followed);
    edit(
        &format!("{careful}/banking/user_task_1/none/none.json"),
        &|v| {
            v["utility"] = Value::from(true);
            v["security"] = Value::from(true);
        },
    );
    let after = rows_once_read(&mut followed);
    assert_eq!((before, after), (35, 36));
    assert_refused(
        &pareval(&["info", &runs.to_string_lossy(), "--metric", "asr"]),
        "--metric asr: AgentDojo's outcomes are utility (the default) or security",
    );
}

#[test]
fn swebench_evaluation_logs_are_read_while_the_harness_grades() {
    // A grading run in progress, written by the SWE-bench harness's own report, logger and
    // run-metadata code.
    let logs = fixture("swebench_logs").join("logs/run_evaluation");
    let rows = import_rows("swebench", &[&logs], &[], "swebench-logs");
    let read: BTreeMap<(String, String), [String; 2]> = rows
        .iter()
        .map(|r| {
            let f = |k: &str| r[k].as_str().unwrap_or("").to_string();
            ((f("system"), f("task")), [f("outcome"), f("status")])
        })
        .collect();
    // Named as the run report the harness writes at the end: <model>.<run_id>, '__' read as '/'.
    let a = "stand-in/agent-a.live-demo";
    let b = "stand-in/agent-b.live-demo";
    let at = |system: &str, task: &str| read[&(system.to_string(), task.to_string())].clone();
    let is = |outcome: &str, status: &str| [outcome.to_string(), status.to_string()];
    assert_eq!(at(a, "django__django-11133"), is("1", "ok"));
    assert_eq!(at(a, "sympy__sympy-20590"), is("0", "ok"));
    assert_eq!(at(b, "django__django-11133"), is("0", "ok"));
    assert_eq!(at(b, "pytest-dev__pytest-5221"), is("0", "error"));
    assert_eq!(at(a, "sphinx-doc__sphinx-8721"), is("", "not_attempted"));
    let tallied = tally(&rows);
    assert_eq!((tallied[a].outcome_sum, tallied[b].outcome_sum), (3.0, 2.0));
    // Recognised by its layout at each level; a model's folder alone is one system.
    for (path, systems) in [
        (logs.clone(), 2),
        (logs.join("live-demo"), 2),
        (logs.join("live-demo/stand-in__agent-b"), 1),
    ] {
        let words = info_words(&[&path.to_string_lossy()]);
        assert!(
            words.contains("read as swebench (recognised by its layout)")
                && words.contains(&format!("systems {systems} ")),
            "{}: {words}",
            path.display()
        );
    }
    // With the split's instance list, instances a run has not started are rows, not attempted.
    let split_dir = temp_dir("swebench-logs-split");
    let split = split_dir.join("ids.txt");
    std::fs::write(
        &split,
        "astropy__astropy-12907\ndjango__django-11099\ndjango__django-11133\npytest-dev__pytest-5221\nsphinx-doc__sphinx-8721\nsympy__sympy-20590\nflask__flask-4045\nrequests__requests-2317\n",
    )
    .expect("split");
    let split_arg = split.to_string_lossy().into_owned();
    let rows = import_rows(
        "swebench",
        &[&logs],
        &["--split", &split_arg],
        "swebench-logs-split-rows",
    );
    let unstarted: Vec<String> = rows
        .iter()
        .filter(|r| {
            r["source"]
                .as_str()
                .is_some_and(|s| s.ends_with("not started (in --split, no log folder)"))
        })
        .map(|r| {
            format!(
                "{} {} {} {}",
                r["system"].as_str().unwrap_or(""),
                r["task"].as_str().unwrap_or(""),
                r["status"].as_str().unwrap_or(""),
                r["group"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        unstarted,
        [
            format!("{a} flask__flask-4045 not_attempted flask/flask"),
            format!("{a} requests__requests-2317 not_attempted requests/requests"),
            format!("{b} flask__flask-4045 not_attempted flask/flask"),
            format!("{b} requests__requests-2317 not_attempted requests/requests"),
        ]
    );
    let words = info_words(&[&logs.to_string_lossy(), "--split", &split_arg]);
    assert!(
        words.contains("4 (system, instance) pairs of the split's 8 instances not started yet"),
        "{words}"
    );
    assert_refused(
        &pareval(&["info", &logs.to_string_lossy(), "--split", "nonesuch"]),
        "--split 'nonesuch' is neither a shipped instance list",
    );
    // `watch` follows the run: an instance counts once its report lands.
    let copy = temp_dir("swebench-logs-live");
    copy_tree(&fixture("swebench_logs").join("logs"), &copy.join("logs"));
    let live = copy.join("logs/run_evaluation");
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&live)).expect("followed");
    let before = rows_once_read(&mut followed);
    let graded = live.join("live-demo/stand-in__agent-a/django__django-11099/report.json");
    let report = std::fs::read_to_string(&graded)
        .expect("report")
        .replace("django__django-11099", "sphinx-doc__sphinx-8721");
    std::fs::write(
        live.join("live-demo/stand-in__agent-a/sphinx-doc__sphinx-8721/report.json"),
        report,
    )
    .expect("write");
    let after = rows_once_read(&mut followed);
    assert_eq!((before, after), (10, 11));
    // swebench 5's infra_failure flag (an environment fault in the test log): status error, 0.
    let flagged = live.join("live-demo/stand-in__agent-a/pytest-dev__pytest-5221/report.json");
    let mut report: Value =
        serde_json::from_str(&std::fs::read_to_string(&flagged).expect("report")).expect("json");
    report["pytest-dev__pytest-5221"]["infra_failure"] = Value::from(true);
    report["pytest-dev__pytest-5221"]["infra_failure_reason"] = Value::from("docker_daemon");
    std::fs::write(&flagged, report.to_string()).expect("write");
    let rows = import_rows("swebench", &[&live], &[], "swebench-logs-infra");
    let flagged_row = rows
        .iter()
        .find(|r| r["system"] == a && r["task"] == "pytest-dev__pytest-5221")
        .expect("row");
    assert_eq!(
        [&flagged_row["outcome"], &flagged_row["status"]],
        [&Value::from("0"), &Value::from("error")]
    );
    // The run report the harness writes at the end says the same through infra_failure_ids.
    let final_report = temp_dir("swebench-infra-report").join("stand-in__agent-a.live-demo.json");
    let shared = crate::common::shared_data();
    if let Some(shared) = shared {
        let original = shared
            .parent()
            .expect("shared")
            .join("formats/swebench_harness_report/zhikuncode_20260525/results.json");
        let mut value: Value =
            serde_json::from_str(&std::fs::read_to_string(&original).expect("report"))
                .expect("json");
        let unresolved = value["unresolved_ids"][0].clone();
        value["infra_failure_ids"] = Value::from(vec![unresolved.clone()]);
        std::fs::write(&final_report, value.to_string()).expect("write");
        let rows = import_rows("swebench", &[&final_report], &[], "swebench-infra-rows");
        let row = rows.iter().find(|r| r["task"] == unresolved).expect("row");
        assert_eq!(row["status"], "error");
        assert_eq!(row["outcome"], "0");
        assert_eq!(
            rows.iter().filter(|r| r["status"] == "error").count(),
            1 + value["error_ids"].as_array().map_or(0, Vec::len)
        );
    }
    // A leaderboard submission's logs/<instance>/ copies are not a run (no run.json, not under
    // run_evaluation): the submission's results are read, as before.
    let submission = temp_dir("swebench-logs-submission").join("20240101_agent");
    copy_tree(
        &logs.join("live-demo/stand-in__agent-a"),
        &submission.join("logs"),
    );
    let output = pareval(&["info", &submission.to_string_lossy()]);
    assert!(
        !stdout(&output).contains("read as swebench (recognised by its layout)"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn openai_evals_logs_give_each_sample_s_match_with_a_folder_s_reruns_numbered_in_time() {
    // Record logs OpenAI Evals 3.0.1's own oaieval wrote, with stand-in completion functions.
    let logs = fixture("openai_evals").join("evallogs");
    let rows = import_rows("openai-evals", &[&logs], &[], "openai-evals-folder");
    assert_eq!(rows.len(), 173);
    let tallied = tally(&rows);
    // standin-80: arith twice (22 and 20 of 30) and the model-graded arith-qa (score 9 of 12).
    assert_eq!(
        (
            tallied["standin-80"].rows,
            tallied["standin-80"].outcome_sum
        ),
        (72, 51.0)
    );
    assert_eq!(tallied["standin-50"].outcome_sum, 40.0);
    // The crashed run: the 11 samples it logged, 7 right.
    assert_eq!(
        (
            tallied["standin-crash"].rows,
            tallied["standin-crash"].outcome_sum
        ),
        (11, 7.0)
    );
    // record_error samples: status error with outcome 0 (the final report's 17/23 leaves them out).
    let flaky = &tallied["standin-flaky"];
    assert_eq!((flaky.rows, flaky.outcome_sum), (30, 17.0));
    assert_eq!(flaky.statuses.get("error"), Some(&7));
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    let failed = rows
        .iter()
        .find(|r| r["task"] == "arith-careful.dev.5")
        .expect("a failed sample");
    assert_eq!(
        ["outcome", "status", "group"].map(|k| field(failed, k)),
        ["0", "error", "arith-careful"]
    );
    assert!(field(failed, "source").contains("TimeoutError: stand-in: no answer in time"));
    // standin-80's two arith logs are its runs 0 and 1 in created_at order (22, then 20 right).
    let run_sum = |run: &str| -> f64 {
        rows.iter()
            .filter(|r| r["system"] == "standin-80" && r["group"] == "arith" && r["run"] == run)
            .map(|r| field(r, "outcome").parse::<f64>().expect("outcome"))
            .sum()
    };
    assert_eq!((run_sum("0"), run_sum("1")), (22.0, 20.0));
    let words = info_words(&[&logs.to_string_lossy()]);
    assert!(
        words.contains("read as openai-evals (recognised by its layout)")
            && words.contains("1 log is a rerun")
            && words.contains("the run also named standin-grader")
            && words.contains("no final report: the run stopped before its end"),
        "{words}"
    );
    // One log alone is recognised by its first line; --metric reads a key of its metrics events.
    let fuzzy = logs.join("261204195901FH757WDQ_standin-50_arith-fuzzy.jsonl");
    let words = info_words(&[&fuzzy.to_string_lossy()]);
    assert!(
        words.contains("read as openai-evals (recognised by its keys)")
            && words.contains("tasks 30 "),
        "{words}"
    );
    let f1 = import_rows(
        "openai-evals",
        &[&fuzzy],
        &["--metric", "f1_score"],
        "openai-evals-f1",
    );
    assert_eq!(tally(&f1)["standin-50"].outcome_sum, 20.0);
    assert_refused(
        &pareval(&["info", &fuzzy.to_string_lossy(), "--metric", "bleu"]),
        "no metrics event has 'bleu' (its metrics events have accuracy, f1_score)",
    );
    // Two logs of one completion function and eval given one by one collide, the way out named.
    let first = logs.join("261204195850U6KU3HC4_standin-80_arith.jsonl");
    let second = logs.join("261204195854PB2MQW4A_standin-80_arith.jsonl");
    assert_refused(
        &pareval(&["info", &first.to_string_lossy(), &second.to_string_lossy()]),
        "give their folder",
    );
    // A model-graded score outside [0, 1] is refused with its line, or mapped with --score-scale.
    let graded = logs.join("261204195905WSLOLTHA_standin-80,standin-grader_arith-qa.jsonl");
    let copy = temp_dir("openai-evals-scale");
    let scaled = copy.join("graded.jsonl");
    let text = std::fs::read_to_string(&graded).expect("log");
    std::fs::write(&scaled, text.replace("\"score\": 1.0", "\"score\": 5.0")).expect("write");
    assert_refused(
        &pareval(&["info", &scaled.to_string_lossy()]),
        "metrics score is 5, outside [0, 1]; --score-scale MIN:MAX",
    );
    let mapped = import_rows(
        "openai-evals",
        &[&scaled],
        &["--score-scale", "0:5"],
        "openai-evals-mapped",
    );
    assert_eq!(tally(&mapped)["standin-80"].outcome_sum, 9.0);
    // A log without its spec line is refused under --from, naming the file.
    let headless = copy.join("headless.jsonl");
    let body: Vec<&str> = text.lines().skip(1).collect();
    std::fs::write(&headless, body.join("\n")).expect("write");
    assert_refused(
        &pareval(&[
            "info",
            &headless.to_string_lossy(),
            "--from",
            "openai-evals",
        ]),
        "headless.jsonl: no spec line",
    );
    // A run killed mid-write leaves its last line cut short: read without it, with a note (the
    // whole log was refused), giving the rows of the log that ends before it.
    let fuzzy_text = std::fs::read_to_string(&fuzzy).expect("log");
    let lines: Vec<&str> = fuzzy_text.lines().collect();
    let whole = lines[..50].join("\n") + "\n";
    let cut = copy.join("cut.jsonl");
    std::fs::write(&cut, format!("{whole}{}", &lines[50][..40])).expect("write");
    let ended = copy.join("ended.jsonl");
    std::fs::write(&ended, &whole).expect("write");
    let words = info_words(&[&cut.to_string_lossy()]);
    assert!(
        words.contains("line 51, the last, is cut short (no line end, and not JSON): the last write of a run stopped mid-line, left out"),
        "{words}"
    );
    assert_eq!(
        import_rows("openai-evals", &[&cut], &[], "openai-evals-cut"),
        import_rows("openai-evals", &[&ended], &[], "openai-evals-ended")
    );
    // So in a folder of logs, read by its layout (it refused the folder).
    let logs_copy = temp_dir("openai-evals-cut-folder").join("evallogs");
    crate::common::copy_tree(&logs, &logs_copy);
    std::fs::write(
        logs_copy.join(fuzzy.file_name().expect("name")),
        format!("{whole}{}", &lines[50][..40]),
    )
    .expect("write");
    let words = info_words(&[&logs_copy.to_string_lossy()]);
    assert!(
        words.contains("read as openai-evals (recognised by its layout)")
            && words.contains("line 51, the last, is cut short"),
        "{words}"
    );
    // A file that is nothing but a cut line is refused with its reason (not "holds no results").
    let only = copy.join("only.jsonl");
    std::fs::write(&only, &lines[0][..40]).expect("write");
    assert_refused(
        &pareval(&["info", "--from", "openai-evals", &only.to_string_lossy()]),
        "line 1: not valid JSON",
    );
    // `watch` follows the logs folder: a finished run's log counts once it is written.
    let live = temp_dir("openai-evals-live").join("evallogs");
    std::fs::create_dir_all(&live).expect("folder");
    std::fs::copy(&fuzzy, live.join(fuzzy.file_name().expect("name"))).expect("copy");
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&live)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 30);
    std::fs::copy(&graded, live.join(graded.file_name().expect("name"))).expect("copy");
    assert_eq!(rows_once_read(&mut followed), 42);
}

/// The strong stand-in model's judgments in the LiveBench fixture: 16 questions, 11.6 points.
fn assert_the_strong_stand_in_s_judgments(tallied: &BTreeMap<String, Tally>) {
    let strong = &tallied["stand-in-strong"];
    assert_eq!((strong.rows, strong.tasks), (16, 16));
    assert!(
        (strong.outcome_sum - 11.6).abs() < 1e-9,
        "{}",
        strong.outcome_sum
    );
}

/// LiveBench's leaderboard lowercases model names before it groups the judgments, and its judge
/// writes a model under the name it was asked for: one model judged as `Stand-In-Strong` in one task
/// and `stand-in-strong` in another was two systems, each with part of the questions. Every model is
/// named in lower case, as the leaderboard names it; a question judged under two spellings counts
/// both judgments, as runs.
#[test]
fn livebench_model_names_alike_but_for_case_are_one_model() {
    let copy = temp_dir("livebench-case");
    crate::common::copy_tree(&fixture("livebench").join("data"), &copy.join("data"));
    let tasks = copy.join("data/live_bench");
    let language =
        tasks.join("language/plot_unscrambling/model_judgment/ground_truth_judgment.jsonl");
    let text = std::fs::read_to_string(&language).expect("judgments");
    std::fs::write(
        &language,
        text.replace("\"stand-in-strong\"", "\"Stand-In-Strong\""),
    )
    .expect("write");
    let rows = import_rows(
        "livebench",
        &[&copy.join("data")],
        &[],
        "livebench-case-rows",
    );
    let tallied = tally(&rows);
    assert_eq!(tallied.len(), 2, "{:?}", tallied.keys().collect::<Vec<_>>());
    assert_the_strong_stand_in_s_judgments(&tallied);
    // One of its reasoning questions judged again under a third spelling: two runs of it.
    let reasoning =
        tasks.join("reasoning/web_of_lies_v2/model_judgment/ground_truth_judgment.jsonl");
    let text = std::fs::read_to_string(&reasoning).expect("judgments");
    let line = text
        .lines()
        .find(|l| l.contains("\"stand-in-strong\""))
        .expect("a judgment of the strong model");
    let mut again: Value = serde_json::from_str(line).expect("json");
    again["model"] = Value::from("STAND-IN-STRONG");
    std::fs::write(&reasoning, format!("{text}{again}\n")).expect("write");
    let rows = import_rows(
        "livebench",
        &[&copy.join("data")],
        &[],
        "livebench-case-twice",
    );
    let twice: Vec<&Value> = rows
        .iter()
        .filter(|r| r["system"] == "stand-in-strong" && r["task"] == again["question_id"])
        .collect();
    assert_eq!(twice.len(), 2);
    assert_eq!(
        twice.iter().map(|r| r["run"].clone()).collect::<Vec<_>>(),
        [Value::from("0"), Value::from("1")]
    );
    let words = info_words(&[&copy.join("data").to_string_lossy()]);
    assert!(
        words.contains("model names are read in lower case, as LiveBench's leaderboard groups them: STAND-IN-STRONG and Stand-In-Strong as stand-in-strong; 1 question was judged under two spellings: each judgment is a run"),
        "{words}"
    );
    // A task file cut mid-line (its judge killed) in the tree: read without that line, noted.
    let cut_text = std::fs::read_to_string(&language).expect("judgments");
    let cut_at = cut_text.trim_end().rfind('\n').expect("lines") + 1;
    let cut_tree = temp_dir("livebench-case-cut");
    crate::common::copy_tree(&copy.join("data"), &cut_tree.join("data"));
    let cut_file = cut_tree.join(language.strip_prefix(&copy).expect("inside"));
    std::fs::write(&cut_file, &cut_text[..cut_at + 30]).expect("write");
    let words = info_words(&[&cut_tree.join("data").to_string_lossy()]);
    assert!(
        words.contains("read as livebench (recognised by its layout)")
            && words.contains("the last, is cut short"),
        "{words}"
    );
    // Every read names it alike: a file alone, and the task files given one by one (a name that
    // depended on the rows read split the model between two systems).
    let rows = import_rows("livebench", &[&language], &[], "livebench-case-alone");
    assert!(
        rows.iter().all(|r| r["system"] != "Stand-In-Strong"),
        "{rows:?}"
    );
    let rows = import_rows(
        "livebench",
        &[&reasoning, &language],
        &[],
        "livebench-case-files",
    );
    let tallied = tally(&rows);
    assert_eq!(tallied.len(), 2, "{:?}", tallied.keys().collect::<Vec<_>>());
    assert_eq!(tallied["stand-in-strong"].tasks, 16);
}

#[test]
fn livebench_judgments_give_each_model_s_scores_by_category_from_a_file_or_the_tree() {
    // Judgments LiveBench's own gen_ground_truth_judgment.py wrote for stand-in models' answers.
    let data = fixture("livebench").join("data");
    let rows = import_rows("livebench", &[&data], &[], "livebench-tree");
    assert_eq!(rows.len(), 32);
    let tallied = tally(&rows);
    assert_the_strong_stand_in_s_judgments(&tallied);
    let weak = &tallied["stand-in-weak"];
    assert!(
        (weak.outcome_sum - 8.0).abs() < 1e-9,
        "{}",
        weak.outcome_sum
    );
    assert_eq!(weak.statuses.get("error"), Some(&1));
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    let failed = rows
        .iter()
        .find(|r| field(r, "status") == "error")
        .expect("the API failure");
    assert_eq!(
        ["system", "task", "outcome", "group"].map(|k| field(failed, k)),
        ["stand-in-weak", "ee18c44655e00b02", "0", "reasoning"]
    );
    assert!(field(failed, "source").contains("web_of_lies_v2 line 20, api_error"));
    // Partial credit stays as LiveBench scored it.
    assert!(
        rows.iter()
            .any(|r| field(r, "outcome") == "0.6" && r["group"] == "language")
    );
    let words = info_words(&[&data.to_string_lossy()]);
    assert!(
        words.contains("read as livebench (recognised by its layout)")
            && words.contains("LiveBench judgments from 2 task files of 2 models"),
        "{words}"
    );
    // One task's file alone is recognised by its keys.
    let judged =
        data.join("live_bench/reasoning/web_of_lies_v2/model_judgment/ground_truth_judgment.jsonl");
    let words = info_words(&[&judged.to_string_lossy()]);
    assert!(
        words.contains("read as livebench (recognised by its keys)") && words.contains("tasks 10 "),
        "{words}"
    );
    // A (question, model) judged again before LiveBench rewrites the file: the last line counts.
    let copy = temp_dir("livebench-again");
    let again = copy.join("ground_truth_judgment.jsonl");
    let text = std::fs::read_to_string(&judged).expect("judgments");
    let first: Value = serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    let mut rejudged = first.clone();
    rejudged["score"] = Value::from(0);
    std::fs::write(&again, format!("{text}{rejudged}\n")).expect("write");
    let rows = import_rows("livebench", &[&again], &[], "livebench-again-rows");
    assert_eq!(rows.len(), 20);
    let row = rows
        .iter()
        .find(|r| r["system"] == first["model"] && r["task"] == first["question_id"])
        .expect("the question judged twice");
    assert_eq!(field(row, "outcome"), "0");
    let words = info_words(&[&again.to_string_lossy()]);
    assert!(
        words.contains("1 (question, model) was judged again"),
        "{words}"
    );
    // `watch` follows the tree: a task's judgments count once its file is written.
    let live = temp_dir("livebench-live").join("data");
    let task = |category: &str, task: &str| {
        Path::new("live_bench")
            .join(category)
            .join(task)
            .join("model_judgment")
    };
    let reasoning = task("reasoning", "web_of_lies_v2");
    std::fs::create_dir_all(live.join(&reasoning)).expect("folder");
    std::fs::copy(
        &judged,
        live.join(&reasoning).join("ground_truth_judgment.jsonl"),
    )
    .expect("copy");
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&live)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 20);
    let language = task("language", "plot_unscrambling");
    std::fs::create_dir_all(live.join(&language)).expect("folder");
    std::fs::copy(
        data.join(&language).join("ground_truth_judgment.jsonl"),
        live.join(&language).join("ground_truth_judgment.jsonl"),
    )
    .expect("copy");
    assert_eq!(rows_once_read(&mut followed), 32);
    // A score outside [0, 1] is refused with its line.
    let bad = copy.join("bad.jsonl");
    let mut wrong = first;
    wrong["score"] = Value::from(60);
    std::fs::write(&bad, format!("{wrong}\n")).expect("write");
    assert_refused(
        &pareval(&["info", &bad.to_string_lossy()]),
        "bad.jsonl: line 1: score is 60, outside [0, 1]",
    );
}

#[test]
fn a_livebench_judgment_file_with_no_judgment_is_named() {
    // Its task's rows were simply absent (a whole category, 32 rows became 12) with the notes of a
    // full read.
    let data = temp_dir("livebench-unjudged").join("data");
    copy_tree(&fixture("livebench").join("data"), &data);
    let judgments =
        data.join("live_bench/reasoning/web_of_lies_v2/model_judgment/ground_truth_judgment.jsonl");
    std::fs::write(&judgments, "").expect("empty");
    let words = info_words(&[&data.to_string_lossy()]);
    assert!(
        words.contains(&format!(
            "1 judgment file holds no judgment (the first: {}): its task has no row",
            judgments.display()
        )),
        "{words}"
    );
}

#[test]
fn livebench_reads_one_release_as_its_leaderboard_does() {
    // The fixture's questions dated as LiveBench dates them: two plot_unscrambling questions
    // released 2024-11-25, one removed on 2024-08-31 (the rest released 2024-06-24, in use).
    let data = temp_dir("livebench-releases").join("data");
    copy_tree(&fixture("livebench").join("data"), &data);
    // The tree's content hash takes in the question files too: their dates decide which rows stay.
    let tree_hash = || {
        let output = pareval(&["info", &data.to_string_lossy(), "--format", "json"]);
        let json: Value = serde_json::from_slice(&output.stdout).expect("json");
        json["files"][0]["sha256"]
            .as_str()
            .expect("sha256")
            .to_string()
    };
    let undated = tree_hash();
    let questions = data.join("live_bench/language/plot_unscrambling/question.jsonl");
    let text = std::fs::read_to_string(&questions).expect("questions");
    let mut lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("json"))
        .collect();
    lines[0]["livebench_release_date"] = Value::from("2024-11-25");
    lines[1]["livebench_release_date"] = Value::from("2024-11-25");
    lines[2]["livebench_removal_date"] = Value::from("2024-08-31");
    let removed = lines[2]["question_id"].as_str().expect("id").to_string();
    let later = lines[0]["question_id"].as_str().expect("id").to_string();
    let dated: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&questions, dated).expect("write");
    assert_ne!(tree_hash(), undated, "the question files' dates changed");
    let path = data.to_string_lossy().into_owned();
    // Every judgment without --split, with a note on those of removed questions.
    let words = info_words(&[&path]);
    assert!(
        words.contains("tasks 16 ")
            && words.contains("2 judgments are of questions LiveBench has removed"),
        "{words}"
    );
    // Release 2024-08-31: the later questions are not in it yet, the removed one is gone.
    let rows = import_rows("livebench", &[&data], &["--split", "2024-08-31"], "lb-0831");
    assert_eq!(rows.len(), 2 * 13);
    assert!(
        rows.iter()
            .all(|r| r["task"] != removed.as_str() && r["task"] != later.as_str())
    );
    let words = info_words(&[&path, "--split", "2024-08-31"]);
    assert!(
        words.contains("6 judgments left out (4 released after it, 2 removed by it)"),
        "{words}"
    );
    // Before the removal the question is in; a later release takes the new questions.
    assert_eq!(
        import_rows("livebench", &[&data], &["--split", "2024-07-26"], "lb-0726").len(),
        2 * 14
    );
    assert_eq!(
        import_rows("livebench", &[&data], &["--split", "2024-11-25"], "lb-1125").len(),
        2 * 15
    );
    assert_refused(
        &pareval(&["info", &path, "--split", "november"]),
        "--split 'november' is not a LiveBench release: give its date, YYYY-MM-DD",
    );
    // A release needs the dates: a task without its question file is refused, named.
    std::fs::remove_file(&questions).expect("remove");
    assert_refused(
        &pareval(&["info", &path, "--split", "2024-08-31"]),
        "ground_truth_judgment.jsonl: --split reads one LiveBench release, which the task's question.jsonl dates, and there is none",
    );
}

#[test]
fn an_evalscope_sample_waits_for_its_repeats_while_the_review_phase_goes_on() {
    // The weak model's invocation (repeats: 3) while its review phase runs: no report yet, and the
    // arith review file holds its first five lines (scored in the order they finished): question
    // 0's three repeats, and one each of questions 1 and 2, which would be read alone.
    let invocation = temp_dir("evalscope-reviewing").join("20261204_202131");
    copy_tree(&fixture("evalscope/outputs/20261204_202131"), &invocation);
    std::fs::remove_file(invocation.join("reports/stand-in-weak/general_mcq.json"))
        .expect("remove");
    let arith = invocation.join("reviews/stand-in-weak/general_mcq_arith.jsonl");
    let text = std::fs::read_to_string(&arith).expect("read");
    let first: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&arith, first.join("\n") + "\n").expect("write");
    let rows = import_rows("evalscope", &[&invocation], &[], "evalscope-reviewing-rows");
    assert_eq!(rows.len(), 5 + 30);
    let waiting: Vec<&Value> = rows
        .iter()
        .filter(|r| r["status"] == "not_attempted")
        .collect();
    assert_eq!(waiting.len(), 2, "{waiting:?}");
    let words = info_words(&[invocation.to_str().expect("path")]);
    assert!(
        words.contains("2 scored samples of 2 tasks with fewer than the 3 repeats planned are not attempted so far"),
        "{words}"
    );
    // Killed with its sixth line half written: read without it, noted (the folder was refused).
    let sixth = text.lines().nth(5).expect("a sixth line");
    std::fs::write(&arith, first.join("\n") + "\n" + &sixth[..30]).expect("write");
    assert_eq!(
        import_rows("evalscope", &[&invocation], &[], "evalscope-reviewing-cut").len(),
        5 + 30
    );
    let words = info_words(&[invocation.to_str().expect("path")]);
    assert!(words.contains("line 6, the last, is cut short"), "{words}");
    std::fs::write(&arith, first.join("\n") + "\n").expect("write");
    // A repeats count that is no whole number is named, not taken as one unseen.
    let config = invocation.join("configs/task_config.yaml");
    let yaml = std::fs::read_to_string(&config).expect("read");
    assert!(yaml.contains("\nrepeats: 3\n"), "{yaml}");
    std::fs::write(
        &config,
        yaml.replace("\nrepeats: 3\n", "\nrepeats: three\n"),
    )
    .expect("write");
    let words = info_words(&[invocation.to_str().expect("path")]);
    assert!(
        words.contains("task_config.yaml gives repeats 'three', not a whole number ≥ 1: which tasks still have runs to come cannot be told"),
        "{words}"
    );
}

#[test]
fn evalscope_repeats_without_generation_index_are_runs_not_rescores() {
    // EvalScope 1.0 to 1.10 write no generation_index: a question's repeats share its group_id
    // under consecutive sample_ids. Each was read as the same sample scored again, the last line
    // kept: 78 rows became 26 and the mean was one repeat's.
    let invocation = temp_dir("evalscope-no-generation").join("20261204_202131");
    copy_tree(&fixture("evalscope/outputs/20261204_202131"), &invocation);
    let reviews = invocation.join("reviews/stand-in-weak");
    for entry in std::fs::read_dir(&reviews).expect("reviews") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        let lines: Vec<String> = text
            .lines()
            .map(|line| {
                let mut value: Value = serde_json::from_str(line).expect("json");
                let score = value["sample_score"].as_object_mut().expect("sample_score");
                assert!(score.remove("generation_index").is_some(), "{line}");
                value.to_string()
            })
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    }
    let key = |r: &Value| {
        (
            r["task"].as_str().unwrap_or("").to_string(),
            r["run"].to_string(),
            r["outcome"].to_string(),
        )
    };
    let mut old: Vec<_> = import_rows("evalscope", &[&invocation], &[], "evalscope-no-gen")
        .iter()
        .map(key)
        .collect();
    let mut new: Vec<_> = import_rows(
        "evalscope",
        &[&fixture("evalscope/outputs/20261204_202131")],
        &[],
        "evalscope-with-gen",
    )
    .iter()
    .map(key)
    .collect();
    old.sort();
    new.sort();
    assert_eq!(old.len(), 78);
    assert_eq!(old, new);
    // A repeat scored again (a resumed run appends its line) is still one run, the last line kept.
    let arith = reviews.join("general_mcq_arith.jsonl");
    let text = std::fs::read_to_string(&arith).expect("read");
    let first = text.lines().next().expect("a line").to_string();
    std::fs::write(&arith, format!("{text}{first}\n")).expect("write");
    let rows = import_rows("evalscope", &[&invocation], &[], "evalscope-no-gen-again");
    assert_eq!(rows.len(), 78);
    let words = info_words(&[invocation.to_str().expect("path")]);
    assert!(words.contains("1 sample was scored again"), "{words}");
}

#[test]
fn a_tau2_task_planned_without_a_simulation_yet_is_not_attempted() {
    // tau2 writes the run's tasks before its first simulation; one not simulated yet (a run going
    // on, or stopped) had no row and no word, where tau2's resume counts it as remaining.
    let run = temp_dir("tau2-planned").join("results.json");
    let mut value: Value = json_file(&fixture("tau2/json_run/results.json"));
    let mut planned = value["tasks"][0].clone();
    planned["id"] = Value::from("planned-only");
    value["tasks"].as_array_mut().expect("tasks").push(planned);
    std::fs::write(&run, value.to_string()).expect("write");
    let rows = import_rows("tau2", &[&run], &[], "tau2-planned-rows");
    let waiting: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            r["task"]
                .as_str()
                .is_some_and(|t| t.ends_with("/planned-only"))
        })
        .collect();
    assert_eq!(waiting.len(), 1, "{rows:?}");
    assert_eq!(waiting[0]["status"], "not_attempted");
    let words = info_words(&[run.to_str().expect("path")]);
    assert!(
        words.contains("1 task the run plans (its tasks) has no simulation yet"),
        "{words}"
    );
}

#[test]
fn a_tau2_trial_count_that_is_no_whole_number_is_named() {
    let run = temp_dir("tau2-trials-unread").join("results.json");
    let mut value: Value = json_file(&fixture("tau2/json_run/results.json"));
    value["info"]["num_trials"] = Value::from("2");
    std::fs::write(&run, value.to_string()).expect("write");
    let words = info_words(&[run.to_str().expect("path")]);
    assert!(
        words.contains("its info gives num_trials \"2\", not a whole number ≥ 1: which tasks still have runs to come cannot be told"),
        "{words}"
    );
}

#[test]
fn evalscope_outputs_give_each_review_s_main_score_with_generations_and_invocations_as_runs() {
    // Outputs EvalScope 1.14.1's own run_task wrote against a stand-in OpenAI-compatible server.
    let outputs = fixture("evalscope").join("outputs");
    let rows = import_rows("evalscope", &[&outputs], &[], "evalscope-outputs");
    assert_eq!(rows.len(), 151);
    let tallied = tally(&rows);
    assert_eq!(
        (
            tallied["stand-in-strong"].rows,
            tallied["stand-in-strong"].outcome_sum
        ),
        (52, 44.0)
    );
    assert_eq!(
        (
            tallied["stand-in-weak"].rows,
            tallied["stand-in-weak"].tasks
        ),
        (78, 26)
    );
    assert_eq!(tallied["stand-in-weak"].outcome_sum, 42.0);
    assert_eq!(
        (
            tallied["stand-in-flaky"].rows,
            tallied["stand-in-flaky"].outcome_sum
        ),
        (21, 14.0)
    );
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    // Generations are runs; two invocations of one model are its runs in folder time order.
    let runs = |system: &str| -> std::collections::BTreeSet<String> {
        rows.iter()
            .filter(|r| r["system"] == system && r["task"] == "general_mcq_arith/0")
            .map(|r| field(r, "run"))
            .collect()
    };
    assert_eq!(
        runs("stand-in-weak").into_iter().collect::<Vec<_>>(),
        ["0", "1", "2"]
    );
    assert_eq!(
        runs("stand-in-strong").into_iter().collect::<Vec<_>>(),
        ["0", "1"]
    );
    let sample = rows
        .iter()
        .find(|r| r["system"] == "stand-in-flaky" && r["task"] == "general_mcq_logic/1")
        .expect("a sample");
    assert_eq!(field(sample, "group"), "general_mcq_logic");
    assert!(field(sample, "seconds").parse::<f64>().expect("seconds") > 0.0);
    let words = info_words(&[&outputs.to_string_lossy()]);
    assert!(
        words.contains("read as evalscope (recognised by its layout)")
            && words.contains("4 invocations")
            && words.contains("5 samples errored (arith 1, logic 4) under ignore_errors"),
        "{words}"
    );
    // One review file alone: recognised by its keys, named by its model folder.
    let weak = outputs.join("20261204_202131/reviews/stand-in-weak/general_mcq_arith.jsonl");
    let words = info_words(&[&weak.to_string_lossy()]);
    assert!(
        words.contains("read as evalscope (recognised by its keys)")
            && words.contains("system 'stand-in-weak' (its model folder)")
            && words.contains("tasks 16 "),
        "{words}"
    );
    assert_refused(
        &pareval(&["info", &weak.to_string_lossy(), "--metric", "f1"]),
        "no score has 'f1' (their values have accuracy)",
    );
    // A score EvalScope leaves out of its metrics is not attempted; a resumed run's second score
    // of a sample replaces the first.
    let copy = temp_dir("evalscope-status");
    let edited = copy.join("general_mcq_arith.jsonl");
    let text = std::fs::read_to_string(&weak).expect("reviews");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut first: Value = serde_json::from_str(&lines[0]).expect("json");
    first["sample_score"]["score"]["status"] = Value::from("parse_error");
    lines[0] = first.to_string();
    let mut again: Value = serde_json::from_str(&lines[1]).expect("json");
    again["sample_score"]["score"]["value"]["accuracy"] = Value::from(1.0);
    lines.push(again.to_string());
    std::fs::write(&edited, lines.join("\n") + "\n").expect("write");
    let rows = import_rows("evalscope", &[&edited], &[], "evalscope-status-rows");
    assert_eq!(rows.len(), 48);
    let words = info_words(&[&edited.to_string_lossy()]);
    assert!(
        words.contains("scores EvalScope leaves out of its metrics (1 parse_error): not attempted")
            && words.contains("1 sample was scored again"),
        "{words}"
    );
    // A score outside [0, 1] is refused with its line, or mapped with --score-scale.
    let mut wide: Value = serde_json::from_str(text.lines().next().expect("line")).expect("json");
    wide["sample_score"]["score"]["value"]["accuracy"] = Value::from(4.0);
    let scaled = copy.join("wide.jsonl");
    std::fs::write(&scaled, format!("{wide}\n")).expect("write");
    assert_refused(
        &pareval(&["info", &scaled.to_string_lossy()]),
        "wide.jsonl: line 1: score accuracy is 4, outside [0, 1]",
    );
    let mapped = import_rows(
        "evalscope",
        &[&scaled],
        &["--score-scale", "0:5"],
        "evalscope-mapped",
    );
    assert_eq!(field(&mapped[0], "outcome"), "0.8");
}

#[test]
fn alpaca_eval_annotations_give_win_rates_against_the_reference_for_one_annotator() {
    // Real public AlpacaEval annotations (30 instructions of each file).
    let results = fixture("alpaca_eval").join("results");
    let rows = import_rows("alpaca-eval", &[&results], &[], "alpaca-eval-tree");
    assert_eq!(rows.len(), 60);
    let tallied = tally(&rows);
    assert!((tallied["alpaca-7b"].outcome_sum - 0.214665).abs() < 1e-6);
    assert!((tallied["text_davinci_003"].outcome_sum - 0.024162).abs() < 1e-6);
    assert_eq!(tallied["alpaca-7b"].tasks, 30);
    let words = info_words(&[&results.to_string_lossy()]);
    assert!(
        words.contains("read as alpaca-eval (recognised by its layout)")
            && words.contains("(gpt4_1106_preview): a win rate against it")
            && words.contains("left out alpaca_eval_gpt4 (1 file)")
            && words.contains("koala 6"),
        "{words}"
    );
    // Another annotator: a draw written as 0 counts as 1.5, a null preference is not attempted.
    let first = import_rows(
        "alpaca-eval",
        &[&results],
        &["--metric", "alpaca_eval_gpt4"],
        "alpaca-eval-v1",
    );
    let cocktail = &tally(&first)["LMCocktail-10.7B-v1"];
    assert_eq!(cocktail.rows, 33);
    assert_eq!(cocktail.outcome_sum, 29.5);
    assert_eq!(cocktail.statuses.get("not_attempted"), Some(&2));
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    // Each row names its file: in a folder of many, "entry 31" alone named none.
    let draws: Vec<&Value> = first
        .iter()
        .filter(|r| field(r, "source").ends_with(" entry 31"))
        .collect();
    let draw = draws
        .iter()
        .find(|r| {
            field(r, "source").starts_with("alpaca-eval ")
                && field(r, "source")
                    .contains("LMCocktail-10.7B-v1/alpaca_eval_gpt4/annotations.json")
        })
        .expect("the draw");
    assert_eq!(field(draw, "outcome"), "0.5");
    assert_refused(
        &pareval(&["info", &results.to_string_lossy(), "--metric", "chatgpt"]),
        "no annotations by 'chatgpt' (its annotator folders: alpaca_eval_gpt4, weighted_alpaca_eval_gpt4_turbo)",
    );
    // One file, and one model's folder, read alone.
    let file = results.join("alpaca-7b/weighted_alpaca_eval_gpt4_turbo/annotations.json");
    let words = info_words(&[&file.to_string_lossy()]);
    assert!(
        words.contains("read as alpaca-eval (recognised by its keys)")
            && words.contains("tasks 30 "),
        "{words}"
    );
    let model = import_rows(
        "alpaca-eval",
        &[&results.join("text_davinci_003")],
        &[],
        "alpaca-eval-model",
    );
    assert_eq!(model.len(), 30);
    // An instruction judged twice for one model cannot be told apart.
    let copy = temp_dir("alpaca-eval-twice");
    let mut records: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("file")).expect("json");
    let again = records[0].clone();
    records.as_array_mut().expect("array").push(again);
    let twice = copy.join("annotations.json");
    std::fs::write(&twice, records.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &twice.to_string_lossy(), "--from", "alpaca-eval"]),
        "entry 31: its instruction again (first as entry 1)",
    );
}

#[test]
fn livecodebench_graded_outputs_give_each_sample_as_a_run_of_its_problem() {
    // Graded outputs LiveCodeBench's own runner code and test harness wrote for stand-in models.
    let output = fixture("livecodebench").join("output");
    let rows = import_rows("livecodebench", &[&output], &[], "livecodebench-tree");
    assert_eq!(rows.len(), 36);
    let tallied = tally(&rows);
    assert_eq!(
        (
            tallied["StandIn-Strong"].rows,
            tallied["StandIn-Strong"].tasks
        ),
        (18, 6)
    );
    assert_eq!(tallied["StandIn-Strong"].outcome_sum, 16.0);
    assert_eq!(tallied["StandIn-Weak"].outcome_sum, 7.0);
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    let timed_out = rows
        .iter()
        .find(|r| r["system"] == "StandIn-Weak" && r["task"] == "abc305_a" && r["run"] == "0")
        .expect("the sample that timed out");
    assert_eq!(
        ["outcome", "status", "group"].map(|k| field(timed_out, k)),
        ["0", "ok", "hard"]
    );
    assert!(field(timed_out, "source").ends_with("sample 0: Time Limit Exceeded"));
    let words = info_words(&[&output.to_string_lossy()]);
    assert!(
        words.contains("read as livecodebench (recognised by its layout)")
            && words.contains("easy 2, hard 2, medium 2"),
        "{words}"
    );
    // One graded file alone (recognised by its keys), and a model's folder, whose aggregate
    // `_eval.json` beside it is not read.
    let weak = output.join("StandIn-Weak");
    let file = weak.join("Scenario.codegeneration_3_0.2_eval_all.json");
    let words = info_words(&[&file.to_string_lossy()]);
    assert!(
        words.contains("read as livecodebench (recognised by its keys)")
            && words.contains("tasks 6 "),
        "{words}"
    );
    assert_eq!(
        import_rows("livecodebench", &[&weak], &[], "livecodebench-model").len(),
        18
    );
    // A second setting of one model is a system of its own.
    let copy = temp_dir("livecodebench-settings").join("output");
    copy_tree(&output, &copy);
    std::fs::copy(
        copy.join("StandIn-Weak/Scenario.codegeneration_3_0.2_eval_all.json"),
        copy.join("StandIn-Weak/Scenario.codegeneration_3_0.8_eval_all.json"),
    )
    .expect("copy");
    let rows = import_rows(
        "livecodebench",
        &[&copy],
        &[],
        "livecodebench-settings-rows",
    );
    let systems: std::collections::BTreeSet<String> =
        rows.iter().map(|r| field(r, "system")).collect();
    assert!(
        systems.contains("StandIn-Weak · codegeneration_3_0.8")
            && systems.contains("StandIn-Weak · codegeneration_3_0.2"),
        "{systems:?}"
    );
    // A grade that is not true or false is refused with its entry.
    let bad = temp_dir("livecodebench-bad").join("bad_eval_all.json");
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("file")).expect("json");
    value[2]["graded_list"][1] = Value::from("maybe");
    std::fs::write(&bad, value.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &bad.to_string_lossy()]),
        "entry 3: graded_list[1] is \"maybe\", not true or false",
    );
}

#[test]
fn mt_bench_judgments_give_ratings_or_wins_per_turn_with_categories_as_groups() {
    // Judgments FastChat's own gen_judgment.py (fschat 0.2.36) wrote with a stand-in judge.
    let bench = fixture("mt_bench").join("data/mt_bench");
    let single = bench.join("model_judgment/gpt-4_single.jsonl");
    let rows = import_rows("mt-bench", &[&single], &[], "mt-bench-single");
    assert_eq!(rows.len(), 64);
    let tallied = tally(&rows);
    let close = |got: f64, want: f64| (got - want).abs() < 1e-9;
    // show_result.py: strong 7.75, weak 4.516129 over its 31 rated turns.
    let strong = &tallied["strong"];
    assert_eq!((strong.rows, strong.tasks), (32, 32));
    assert!(close(strong.outcome_sum, 24.8), "{}", strong.outcome_sum);
    let weak = &tallied["weak"];
    assert!(
        close(weak.outcome_sum / 31.0, 0.4516129032258065),
        "{}",
        weak.outcome_sum
    );
    assert_eq!(weak.statuses.get("not_attempted"), Some(&1));
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    let unrated = rows
        .iter()
        .find(|r| field(r, "status") == "not_attempted")
        .expect("the turn the judge did not rate");
    assert_eq!(
        ["system", "task", "group"].map(|k| field(unrated, k)),
        ["weak", "92-t1", "roleplay"]
    );
    let turn_two = rows
        .iter()
        .find(|r| r["system"] == "strong" && r["task"] == "111-t2")
        .expect("a second turn");
    assert_eq!(field(turn_two, "group"), "math");
    assert!(field(turn_two, "source").contains("single-math-v1-multi-turn line"));
    let words = info_words(&[&single.to_string_lossy()]);
    assert!(
        words.contains("read as mt-bench (recognised by its keys)")
            && words.contains("MT-Bench single-answer judgments by gpt-4 of 2 models")
            && words.contains("1 judgment has score -1")
            && words.contains("the group is its category from"),
        "{words}"
    );
    // --score-scale 1:10 maps a rating of 1 to 0 and 10 to 1.
    let rescaled = import_rows(
        "mt-bench",
        &[&single],
        &["--score-scale", "1:10"],
        "mt-bench-rescaled",
    );
    assert!(close(
        tally(&rescaled)["strong"].outcome_sum,
        (7.75 - 1.0) / 9.0 * 32.0
    ));

    // Pairwise against a baseline: show_result.py's adjusted win rates 0.765625 and 0.171875.
    let pair = bench.join("model_judgment/gpt-4_pair.jsonl");
    let rows = import_rows("mt-bench", &[&pair], &[], "mt-bench-pair");
    let tallied = tally(&rows);
    assert_eq!(tallied.keys().collect::<Vec<_>>(), ["strong", "weak"]);
    assert!(close(tallied["strong"].outcome_sum, 0.765625 * 32.0));
    assert!(close(tallied["weak"].outcome_sum, 0.171875 * 32.0));
    let words = info_words(&[&pair.to_string_lossy()]);
    assert!(
        words.contains("MT-Bench pairwise judgments by gpt-4 of 2 systems")
            && words.contains("each against the baseline gpt-3.5-turbo"),
        "{words}"
    );
    // model_judgment/ holds both: the two measures of a (model, question, turn) are refused
    // together, naming both files.
    assert_refused(
        &pareval(&["info", &bench.join("model_judgment").to_string_lossy()]),
        "gpt-4_single.jsonl: MT-Bench single-answer ratings, read together with",
    );
    // FastChat's bench folder: its question.jsonl is what the judgments are read with, not a
    // record, so the folder is read as its model_judgment/ files (here both modes: refused so).
    assert_refused(
        &pareval(&["info", &bench.to_string_lossy()]),
        "gpt-4_single.jsonl: MT-Bench single-answer ratings, read together with",
    );
    // Pairwise between all models: a system per opponent (strong won 14 of 16 as model_1 and
    // weak none, show_result.py's 0.875 and 0.0); no question file beside, so no groups.
    let all = fixture("mt_bench").join("pairwise_all/model_judgment/gpt-4_pair.jsonl");
    let rows = import_rows("mt-bench", &[&all], &[], "mt-bench-all");
    let tallied = tally(&rows);
    assert_eq!(
        tallied.keys().collect::<Vec<_>>(),
        [
            "strong vs gpt-3.5-turbo",
            "strong vs weak",
            "weak vs gpt-3.5-turbo"
        ]
    );
    assert!(close(
        tallied["strong vs gpt-3.5-turbo"].outcome_sum + tallied["strong vs weak"].outcome_sum,
        14.0
    ));
    assert!(close(tallied["weak vs gpt-3.5-turbo"].outcome_sum, 0.0));
    assert!(rows.iter().all(|r| field(r, "group").is_empty()));
    let words = info_words(&[&all.to_string_lossy()]);
    assert!(
        words.contains("a system per (model_1, model_2), as 2 opponents are judged")
            && words.contains("no question.jsonl beside model_judgment/"),
        "{words}"
    );

    // Rerun: a judgment appended again is a further run; another judge's lines are left out
    // unless --metric names that judge.
    let copy = temp_dir("mt-bench-again").join("model_judgment");
    std::fs::create_dir_all(&copy).expect("folder");
    let again = copy.join("gpt-4_single.jsonl");
    let text = std::fs::read_to_string(&single).expect("judgments");
    let first: Value = serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    let mut other_judge = first.clone();
    other_judge["judge"] = serde_json::json!(["gpt-4o", "single-v1"]);
    other_judge["score"] = Value::from(2);
    std::fs::write(&again, format!("{text}{first}\n{other_judge}\n")).expect("write");
    let rows = import_rows("mt-bench", &[&again], &[], "mt-bench-again-rows");
    assert_eq!(rows.len(), 65);
    let task = format!("{}-t{}", first["question_id"], first["turn"]);
    let runs: Vec<String> = rows
        .iter()
        .filter(|r| r["system"] == first["model"] && field(r, "task") == task)
        .map(|r| field(r, "run"))
        .collect();
    assert_eq!(runs, ["0", "1"]);
    let words = info_words(&[&again.to_string_lossy()]);
    assert!(
        words.contains("1 judgment repeats an earlier one")
            && words.contains("left out 1 judgment by other judges than gpt-4"),
        "{words}"
    );
    let rows = import_rows(
        "mt-bench",
        &[&again],
        &["--metric", "gpt-4o"],
        "mt-bench-other-judge",
    );
    assert_eq!(rows.len(), 1);
    assert_eq!(field(&rows[0], "outcome"), "0.2");
    assert_refused(
        &pareval(&["info", &again.to_string_lossy(), "--metric", "claude"]),
        "--metric claude: no judgment by that judge; the judges are gpt-4, gpt-4o",
    );

    // `watch` follows the file as gen_judgment.py appends to it.
    let live = temp_dir("mt-bench-live").join("gpt-4_single.jsonl");
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&live, format!("{}\n", lines[..10].join("\n"))).expect("write");
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&live)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 10);
    // A harness's own file is read whole again when it changes (the unrated turn has no outcome).
    std::fs::write(&live, format!("{}\n", lines.join("\n"))).expect("write");
    assert_eq!(rows_once_read(&mut followed), 63);

    // A model answers file (what gen_judgment.py reads) is refused naming the judgments instead.
    let answers = copy.join("strong.jsonl");
    std::fs::write(
        &answers,
        "{\"question_id\": 81, \"answer_id\": \"a\", \"model_id\": \"strong\", \"choices\": [{\"index\": 0, \"turns\": [\"x\", \"y\"]}], \"tstamp\": 1.0}\n",
    )
    .expect("write");
    assert_refused(
        &pareval(&["info", &answers.to_string_lossy()]),
        "strong.jsonl: model answers in FastChat's format (model_answer/ of MT-Bench or LiveBench), not judgments",
    );
    // A watched model_judgment/ folder that comes to hold both modes stops reading either and
    // says why (the single file's rows are withdrawn).
    let judged = temp_dir("mt-bench-watch-both").join("model_judgment");
    std::fs::create_dir_all(&judged).expect("folder");
    std::fs::copy(&single, judged.join("gpt-4_single.jsonl")).expect("copy");
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&judged)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 63);
    std::fs::copy(&pair, judged.join("gpt-4_pair.jsonl")).expect("copy");
    let events = followed.poll();
    assert!(
        events.iter().any(
            |e| matches!(e, pareval::watch::follow::Event::Bad { message, .. }
            if message.contains("pairwise win rates") && message.contains("read one of the files"))
        ),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, pareval::watch::follow::Event::Reread { .. })),
        "{events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, pareval::watch::follow::Event::Row { .. })),
        "{events:?}"
    );
    // Bad lines are refused with their line: a turn that is not a number, a pairwise line in a
    // single-answer file.
    let bad = copy.join("bad.jsonl");
    let mut wrong = first.clone();
    wrong["turn"] = Value::from("two");
    std::fs::write(&bad, format!("{first}\n{wrong}\n")).expect("write");
    assert_refused(
        &pareval(&["info", &bad.to_string_lossy()]),
        "bad.jsonl: line 2: turn is \"two\", not a turn number",
    );
    let pair_line = std::fs::read_to_string(&pair).expect("pair");
    let pair_line = pair_line.lines().next().expect("a pair line");
    std::fs::write(&bad, format!("{first}\n{pair_line}\n")).expect("write");
    assert_refused(
        &pareval(&["info", &bad.to_string_lossy()]),
        "bad.jsonl: line 2: a pairwise judgment in a file of single-answer judgments",
    );
}

#[test]
fn arena_hard_judgments_give_each_question_s_weighted_share_against_the_baseline() {
    // Judgments Arena-Hard-Auto's own gen_judgment.py wrote with a stand-in judge; a judge's folder
    // holds one file per model.
    let judge = fixture("arena_hard").join("data/arena-hard-v2.0/model_judgment/stand-in-judge");
    let rows = import_rows("arena-hard", &[&judge], &[], "arena-hard-folder");
    assert_eq!(rows.len(), 18);
    let tallied = tally(&rows);
    let close = |got: f64, want: f64| (got - want).abs() < 1e-9;
    assert_eq!((tallied["strong"].rows, tallied["strong"].tasks), (9, 9));
    assert!(close(tallied["strong"].outcome_sum, 8.75));
    assert!(close(tallied["weak"].outcome_sum, 2.25));
    assert_eq!(tallied["weak"].statuses.get("not_attempted"), Some(&1));
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    // A close call split between the orders, a slight win for the baseline in one and a tie in
    // the other: (0 + 0.5) / 2; a strong win in both: 1.
    let split = rows
        .iter()
        .find(|r| r["system"] == "weak" && r["task"] == "a760ab00b7964567")
        .expect("a split verdict");
    assert_eq!(field(split, "outcome"), "0.25");
    assert_eq!(field(split, "group"), "hard_prompt");
    assert!(field(split, "source").contains("A>B, A=B"));
    // A tie with the model's answer second, a slight win with it first: (0.5 + 1) / 2.
    let tie_and_win = rows
        .iter()
        .find(|r| r["system"] == "weak" && r["task"] == "6c0f28a0ece24a03")
        .expect("a tie");
    assert_eq!(field(tie_and_win, "outcome"), "0.75");
    let words = info_words(&[&judge.to_string_lossy()]);
    // show_result.py's pooled means per category, the leaderboard's figures.
    assert!(
        words.contains("read as arena-hard (recognised by its keys)")
            && words.contains(
                "(creative_writing: gemini-2.0-flash-001, hard_prompt: o3-mini-2025-01-31)"
            )
            && words.contains("strong on hard_prompt 0.9750 pooled, 0.9583 over 6 questions")
            && words.contains("weak on creative_writing 0.0625 pooled")
            && words.contains("1 question has a null game or score"),
        "{words}"
    );

    // Arena-Hard v0.1's lines: question_id, no category or baseline.
    let dir = temp_dir("arena-hard-v01");
    let text = std::fs::read_to_string(judge.join("strong.jsonl")).expect("judgments");
    let mut old = String::new();
    for line in text.lines().take(3) {
        let mut value: Value = serde_json::from_str(line).expect("json");
        let object = value.as_object_mut().expect("an object");
        let uid = object.remove("uid").expect("uid");
        object.insert("question_id".to_string(), uid);
        object.remove("category");
        object.remove("baseline");
        old.push_str(&format!("{value}\n"));
    }
    let v01 = dir.join("gpt-4-0613.jsonl");
    std::fs::write(&v01, &old).expect("write");
    let rows = import_rows("arena-hard", &[&v01], &[], "arena-hard-v01-rows");
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| field(r, "group").is_empty()));
    let words = info_words(&[&v01.to_string_lossy()]);
    assert!(
        words.contains("3 judgments have no category (Arena-Hard v0.1 writes none)"),
        "{words}"
    );

    // A label show_result.py has no score for is not attempted, named; a question judged again is
    // a further run.
    let first: Value = serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    let mut odd = first.clone();
    odd["games"][0]["score"] = Value::from("A>>>B");
    // A strong verdict counts three times: a strong win as B (game 1) and a slight loss as A
    // (game 2) give 3 / 4, not 1 / 2.
    let mut mixed = first.clone();
    mixed["uid"] = Value::from("mixed");
    mixed["games"][0]["score"] = Value::from("B>>A");
    mixed["games"][1]["score"] = Value::from("B>A");
    let odd_file = dir.join("odd.jsonl");
    std::fs::write(&odd_file, format!("{text}{odd}\n{mixed}\n")).expect("write");
    let rows = import_rows("arena-hard", &[&odd_file], &[], "arena-hard-odd");
    assert_eq!(rows.len(), 11);
    let weighted = rows.iter().find(|r| r["task"] == "mixed").expect("mixed");
    assert_eq!(field(weighted, "outcome"), "0.75");
    let again = rows
        .iter()
        .find(|r| r["task"] == first["uid"] && field(r, "run") == "1")
        .expect("the question judged again");
    assert_eq!(field(again, "status"), "not_attempted");
    let words = info_words(&[&odd_file.to_string_lossy()]);
    assert!(
        words.contains("1 question has a verdict label show_result.py has no score for (first: line 10, 'A>>>B')")
            && words.contains("1 question was judged again"),
        "{words}"
    );

    // `watch` follows a judge's folder as a model's file appears.
    let live = temp_dir("arena-hard-live");
    std::fs::copy(judge.join("strong.jsonl"), live.join("strong.jsonl")).expect("copy");
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&live)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 9);
    std::fs::copy(judge.join("weak.jsonl"), live.join("weak.jsonl")).expect("copy");
    assert_eq!(rows_once_read(&mut followed), 8);

    // A model answers file is refused naming the judgments instead.
    let answers = dir.join("answers.jsonl");
    std::fs::write(
        &answers,
        "{\"uid\": \"e5e49adefcd44788\", \"ans_id\": \"a\", \"model\": \"strong\", \"messages\": [], \"tstamp\": 1.0}\n",
    )
    .expect("write");
    assert_refused(
        &pareval(&["info", &answers.to_string_lossy()]),
        "answers.jsonl: Arena-Hard-Auto model answers (model_answer/), not judgments",
    );
    // Games that are not the two orders are refused with their line.
    let mut three = first;
    three["games"]
        .as_array_mut()
        .expect("games")
        .push(Value::Null);
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, format!("{three}\n")).expect("write");
    assert_refused(
        &pareval(&["info", &bad.to_string_lossy()]),
        "bad.jsonl: line 1: games has 3 entries, not the two orders Arena-Hard judges",
    );
}

#[test]
fn human_eval_results_give_each_sample_as_a_run_named_after_the_samples_file() {
    // Results openai/human-eval's own evaluate_functional_correctness wrote for two stand-ins.
    let root = fixture("human_eval");
    let rows = import_rows("human-eval", &[&root], &[], "human-eval-folder");
    assert_eq!(rows.len(), 60);
    let tallied = tally(&rows);
    assert_eq!(
        (
            tallied["stand-in-strong"].rows,
            tallied["stand-in-strong"].tasks,
            tallied["stand-in-strong"].outcome_sum
        ),
        (30, 10, 24.0)
    );
    // The harness's pass@1: 0.4333 = 13 / 30.
    assert_eq!(tallied["stand-in-weak"].outcome_sum, 13.0);
    assert_eq!(tallied["stand-in-weak"].statuses.get("error"), Some(&1));
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_string();
    let runs: Vec<String> = rows
        .iter()
        .filter(|r| r["system"] == "stand-in-weak" && r["task"] == "HumanEval/3")
        .map(|r| {
            format!(
                "{}:{}:{}",
                field(r, "run"),
                field(r, "outcome"),
                field(r, "status")
            )
        })
        .collect();
    assert_eq!(runs, ["0:0:ok", "1:0:error", "2:0:ok"]);
    let timed_out = rows
        .iter()
        .find(|r| field(r, "status") == "error")
        .expect("the sample that looped");
    assert!(field(timed_out, "source").ends_with("timed out"));
    let file = root.join("stand-in-weak.jsonl_results.jsonl");
    let words = info_words(&[&file.to_string_lossy()]);
    assert!(
        words.contains("read as human-eval (recognised by its keys)")
            && words.contains("the system is named after the samples file, 'stand-in-weak'")
            && words.contains("HumanEval results of 10 problems with 3 samples each")
            && words.contains("1 sample timed out"),
        "{words}"
    );
    // samples.jsonl_results.jsonl (the harness's README's name) is named after its folder, and
    // the samples file beside it, which has no results, is not read as one.
    let run = temp_dir("human-eval-run").join("codegen-7b");
    std::fs::create_dir_all(&run).expect("folder");
    std::fs::copy(&file, run.join("samples.jsonl_results.jsonl")).expect("copy");
    let text = std::fs::read_to_string(&file).expect("results");
    let samples: String = text
        .lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).expect("json");
            format!(
                "{}\n",
                serde_json::json!({"task_id": value["task_id"], "completion": value["completion"]})
            )
        })
        .collect();
    std::fs::write(run.join("samples.jsonl"), samples).expect("samples");
    let rows = import_rows("human-eval", &[&run], &[], "human-eval-generic");
    assert_eq!(rows.len(), 30);
    // The samples file alone is refused naming the file the harness writes from it.
    assert_refused(
        &pareval(&["info", &run.join("samples.jsonl").to_string_lossy()]),
        "samples.jsonl: code samples with no results yet (task_id and completion or solution): human-eval's evaluate_functional_correctness writes <samples>_results.jsonl",
    );
    assert!(rows.iter().all(|r| r["system"] == "codegen-7b"));
    // A file of the user's own with more keys is the canonical reader's, mapped by --col.
    let own = run.join("own.jsonl");
    std::fs::write(
        &own,
        "{\"task_id\": \"HumanEval/0\", \"completion\": \"x\", \"model\": \"m\", \"score\": 1}\n",
    )
    .expect("write");
    let info = pareval(&[
        "info",
        &own.to_string_lossy(),
        "--col",
        "system=model",
        "--col",
        "task=task_id",
        "--col",
        "outcome=score",
    ]);
    assert_eq!(info.status.code(), Some(0), "{}", stderr(&info));
    std::fs::remove_file(&own).expect("remove");
    // A result that is not a boolean is refused with its line.
    let bad = run.join("bad.jsonl_results.jsonl");
    std::fs::write(
        &bad,
        text.replacen("\"passed\": false", "\"passed\": \"no\"", 1),
    )
    .expect("write");
    assert_refused(
        &pareval(&["info", &bad.to_string_lossy()]),
        "bad.jsonl_results.jsonl: line 1: passed is \"no\", not true or false",
    );
}

#[test]
fn agentbench_outputs_give_each_agent_s_task_scores_with_failed_attempts_as_errors() {
    // Written with AgentBench v0.2's own types and its assigner's line (make_fixture.py): two
    // agents on os-std (string indices), webshop-std (rewards) and ltp-std (progress).
    let root = fixture("agentbench").join("outputs/2024-05-01-12-00-00");
    let rows = import_rows("agentbench", &[&root], &[], "agentbench-tree");
    assert_eq!(rows.len(), 28);
    let tallied = tally(&rows);
    let gpt4 = &tallied["gpt-4-0613"];
    let gpt35 = &tallied["gpt-3.5-turbo-0613"];
    // gpt-4: os 5 of 7 passed (one sample failed to start first, then ran), webshop 1 + 0.5 + 0 +
    // 0.75 (sample 201's first line, not the 0.9 it was written again with), ltp 0.5 + 1 + 0.
    assert_eq!((gpt4.rows, gpt4.outcome_sum), (14, 4.0 + 2.25 + 1.5));
    // gpt-3.5: os 1 of 7 (its last sample only in error.jsonl, every attempt INTERACT_FAILED),
    // webshop 0.5 + 0.25 + 0 + 1, ltp 0.25 + 0.5 + 0.
    assert_eq!((gpt35.rows, gpt35.outcome_sum), (14, 1.0 + 1.75 + 0.75));
    assert_eq!(gpt4.statuses["error"], 1, "{:?}", gpt4.statuses);
    assert_eq!(gpt35.statuses["error"], 2, "{:?}", gpt35.statuses);
    let row = |system: &str, task: &str| {
        rows.iter()
            .find(|r| r["system"] == system && r["task"] == task)
            .unwrap_or_else(|| panic!("{system} {task}"))
    };
    let failed = row("gpt-3.5-turbo-0613", "os-std/std-001-stock-00006");
    assert_eq!(
        (failed["status"].as_str(), failed["outcome"].as_str()),
        (Some("error"), Some("0"))
    );
    assert!(
        failed["source"]
            .as_str()
            .expect("source")
            .contains("INTERACT_FAILED, error.jsonl")
    );
    let unknown = row("gpt-4-0613", "os-std/std-001-stock-00005");
    assert_eq!(unknown["status"], "error");
    assert_eq!(row("gpt-4-0613", "webshop-std/201")["outcome"], "0.5");
    assert_eq!(row("gpt-4-0613", "ltp-std/1")["group"], "ltp-std");
    // Recognised by its layout, and the notes say what was read.
    let path = root.to_string_lossy().into_owned();
    let words = info_words(&[&path]);
    for said in [
        "read as agentbench (recognised by its layout)",
        "AgentBench runs of 2 agents on 3 tasks",
        "samples where the task server failed, 2 (unknown 2)",
        "samples only in error.jsonl (every attempt failed), 1 (INTERACT_FAILED 1)",
        "samples written again after their first line (a rerun into the same folder), 1",
    ] {
        assert!(words.contains(said), "{said}: {words}");
    }
    // One runs.jsonl, recognised by its keys, is read with the error.jsonl beside it.
    let one = root.join("gpt-3.5-turbo-0613/os-std/runs.jsonl");
    let words = info_words(&[&one.to_string_lossy()]);
    assert!(
        words.contains("read as agentbench (recognised by its keys)")
            && words.contains("tasks 7 ")
            && words.contains("(INTERACT_FAILED 1)"),
        "{words}"
    );
    // error.jsonl given alone: its samples are failed attempts, each once, not samples running.
    let errors = root.join("gpt-3.5-turbo-0613/os-std/error.jsonl");
    let failed = import_rows("agentbench", &[&errors], &[], "ab-errors");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(
        (failed[0]["status"].as_str(), failed[0]["outcome"].as_str()),
        (Some("error"), Some("0"))
    );
    // A task's folder is a tree too; --metric reads another number of the result, and is refused
    // for a task whose result lacks it.
    let ltp_folder = root.join("gpt-4-0613/ltp-std");
    let accuracy = import_rows(
        "agentbench",
        &[&ltp_folder],
        &["--metric", "accuracy"],
        "ab-metric",
    );
    let ltp: Vec<&Value> = accuracy
        .iter()
        .filter(|r| r["group"] == "ltp-std")
        .collect();
    assert_eq!(ltp.len(), 3);
    assert!(ltp.iter().all(|r| r["outcome"] == "0.4"), "{ltp:?}");
    let agent = root.join("gpt-4-0613").to_string_lossy().into_owned();
    assert_refused(
        &pareval(&["info", &agent, "--metric", "accuracy"]),
        "os-std/runs.jsonl: line 1: result has no 'accuracy' (--metric); its keys: file, index_in_file, result",
    );
    // A score outside [0, 1] is refused with its file, line and value.
    let odd = temp_dir("ab-odd").join("gpt-4-0613/webshop-std");
    std::fs::create_dir_all(&odd).expect("folder");
    let text = std::fs::read_to_string(root.join("gpt-4-0613/webshop-std/runs.jsonl"))
        .expect("runs")
        .replacen("\"reward\": 0.5", "\"reward\": 1.5", 1);
    std::fs::write(odd.join("runs.jsonl"), text).expect("write");
    assert_refused(
        &pareval(&["info", &odd.to_string_lossy()]),
        "webshop-std/runs.jsonl: line 2: result.reward is 1.5, outside [0, 1]",
    );
    // A task whose result keeps no score (dbbench's answers) is refused, with what it holds.
    let dbbench = fixture("agentbench").join("dbbench");
    assert_refused(
        &pareval(&["info", &dbbench.to_string_lossy()]),
        "dbbench-std/runs.jsonl: line 1: dbbench-std's result holds no per-sample score (it is an object with answer, error, type)",
    );
}

#[test]
fn an_agentbench_runs_file_whose_first_line_is_broken_is_refused_not_left_out() {
    // It was left out with all its samples (28 rows became 25), where a broken later line was
    // refused naming it.
    let source = fixture("agentbench").join("outputs");
    let copy = temp_dir("agentbench-broken-first").join("outputs");
    copy_tree(&source, &copy);
    let runs = copy.join("2024-05-01-12-00-00/gpt-4-0613/os-std/runs.jsonl");
    let text = std::fs::read_to_string(&runs).expect("runs");
    std::fs::write(&runs, format!("{{\"index\": 0, \"output\"\n{text}")).expect("write");
    let out = pareval(&["info", &copy.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!("{}: line 1: ", runs.display())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_agentbench_runs_file_or_error_file_cut_mid_line_is_read_without_that_line() {
    // A run stopped mid-write leaves its last line cut short: the folder was refused (other
    // harnesses' JSON Lines leave such a line out with a note), and while the run goes a `watch`
    // of the folder stopped at every half-written sample.
    let source = fixture("agentbench").join("outputs");
    let copy = temp_dir("agentbench-cut-last").join("outputs");
    copy_tree(&source, &copy);
    let root = copy.join("2024-05-01-12-00-00");
    let runs = root.join("gpt-4-0613/webshop-std/runs.jsonl");
    let errors = root.join("gpt-3.5-turbo-0613/os-std/error.jsonl");
    for file in [&runs, &errors] {
        let text = std::fs::read_to_string(file).expect("file");
        let first = text.lines().next().expect("a line");
        std::fs::write(file, format!("{text}{}", &first[..first.len() / 2])).expect("write");
    }
    // A task whose first failed attempt was being written when the run stopped: error.jsonl is
    // nothing but a cut line. Known by its name, it is left out too (the folder was refused).
    let lone = root.join("gpt-4-0613/ltp-std/error.jsonl");
    std::fs::write(&lone, "{\"index\": \"std-9").expect("write");
    let lines_in = |file: &Path| std::fs::read_to_string(file).expect("file").lines().count();
    let rows = import_rows("agentbench", &[&root], &[], "agentbench-cut-rows");
    assert_eq!(rows.len(), 28);
    let words = info_words(&[&root.to_string_lossy()]);
    for file in [&runs, &errors, &lone] {
        let said = format!(
            "{}: line {}, the last, is cut short (no line end, and not JSON): the last write of a run stopped mid-line, left out",
            file.display(),
            lines_in(file)
        );
        assert!(words.contains(&said), "{said}: {words}");
    }
    // One runs.jsonl given alone reads the error.jsonl beside it the same way.
    let alone = root.join("gpt-3.5-turbo-0613/os-std/runs.jsonl");
    let words = info_words(&[&alone.to_string_lossy()]);
    assert!(
        words.contains(&format!(
            "{}: line {}, the last, is cut short",
            errors.display(),
            lines_in(&errors)
        )),
        "{words}"
    );
}

#[test]
fn a_metr_run_written_twice_is_read_once_and_one_with_other_values_refused() {
    // The same run_id was one more run (3 runs became 4) without a word.
    let text = std::fs::read_to_string(fixture("metr/runs_th1-1_excerpt.jsonl")).expect("metr");
    let first = text.lines().next().expect("a line");
    let dir = temp_dir("metr-repeated-run");
    let (again, other) = (dir.join("again.jsonl"), dir.join("other.jsonl"));
    std::fs::write(&again, format!("{text}{first}\n")).expect("write");
    let mut changed: Value = serde_json::from_str(first).expect("json");
    changed["started_at"] = serde_json::json!(1);
    std::fs::write(&other, format!("{text}{changed}\n")).expect("write");
    let rows = |path: &Path| import_rows("metr", &[path], &[], "metr-repeated-rows").len();
    assert_eq!(
        rows(&again),
        rows(&fixture("metr/runs_th1-1_excerpt.jsonl"))
    );
    let words = info_words(&[&again.to_string_lossy()]);
    assert!(
        words.contains("1 line repeats an earlier line word for word (the same run_id): read once"),
        "{words}"
    );
    let refused = pareval(&["info", &other.to_string_lossy()]);
    assert_refused(
        &refused,
        "is also on line 1, with other values: a run is one line",
    );
}

#[test]
fn an_osworld_trajectory_cut_short_gives_no_seconds_and_says_so() {
    // A traj.jsonl cut mid-line gave the span of the lines before the cut (136 s for 253) without
    // a word.
    let run = temp_dir("osworld-cut-trajectory").join("20250130-1");
    copy_tree(&fixture("osworld").join("traces/20250130-1"), &run);
    let trajectory = run.join(
        "pyautogui/screenshot_a11y_tree/gpt-4o/libreoffice_calc/163789f0-c895-4a50-8207-17cbdd56ec38/traj.jsonl",
    );
    let text = std::fs::read_to_string(&trajectory).expect("trajectory");
    let lines: Vec<&str> = text.lines().collect();
    let cut = format!("{}\n{}", lines[..8].join("\n"), &lines[8][..40]);
    std::fs::write(&trajectory, cut).expect("write");
    let words = info_words(&[&run.to_string_lossy()]);
    assert!(
        words.contains(&format!(
            "1 example has no seconds: its traj.jsonl cannot be read whole (the first: {} line 9)",
            trajectory.display()
        )),
        "{words}"
    );
}

#[test]
fn a_harness_file_with_a_key_written_twice_is_refused() {
    // serde kept the last value without a word: a sample `"passed": true, "passed": false` read as
    // failed, an instance listed true and false read as false.
    let text = std::fs::read_to_string(fixture("human_eval/stand-in-weak.jsonl_results.jsonl"))
        .expect("results");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[2] = lines[2].replacen("\"passed\": ", "\"passed\": true, \"passed\": ", 1);
    let file = temp_dir("human-eval-repeated-key").join("m.jsonl_results.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    let path = file.to_string_lossy();
    assert_refused(
        &pareval(&["info", &path, "--from", "human-eval"]),
        "line 3: the key \"passed\" appears twice in one object",
    );
    assert_refused(&pareval(&["info", &path]), "appears twice");
    // `passed` and `result` disagreeing (the harness sets one from the other) was read as `passed`.
    let mut contradicting: Vec<String> = text.lines().map(str::to_string).collect();
    contradicting[0] = contradicting[0].replacen("\"passed\": false", "\"passed\": true", 1);
    let edited = temp_dir("human-eval-contradiction").join("m.jsonl_results.jsonl");
    std::fs::write(&edited, contradicting.join("\n") + "\n").expect("write");
    assert_refused(
        &pareval(&["info", &edited.to_string_lossy(), "--from", "human-eval"]),
        "line 1: passed is true but result is \"failed: \": the harness sets one from the other",
    );
    // A JSON harness file too, recognised by its keys: the SWE-bench run report in the fixtures.
    let report = temp_dir("report-repeated-key").join("report.json");
    std::fs::write(
        &report,
        r#"{"resolved_ids": ["a__b-1"], "unresolved_ids": ["a__b-2"], "submitted_ids": ["a__b-1", "a__b-2"], "resolved_ids": []}"#,
    )
    .expect("write");
    assert_refused(
        &pareval(&["info", &report.to_string_lossy()]),
        "line 1: the key \"resolved_ids\" appears twice in one object",
    );
}

#[test]
fn agentbench_outputs_are_followed_as_samples_land() {
    // `watch` follows an output folder: each task's runs.jsonl and error.jsonl as they grow.
    let source = fixture("agentbench").join("outputs/2024-05-01-12-00-00");
    let live = temp_dir("agentbench-live").join("2024-05-01-12-00-00");
    let task = live.join("gpt-4-0613/os-std");
    std::fs::create_dir_all(&task).expect("folder");
    let lines = std::fs::read_to_string(source.join("gpt-4-0613/os-std/runs.jsonl")).expect("runs");
    let lines: Vec<&str> = lines.lines().collect();
    std::fs::write(task.join("runs.jsonl"), format!("{}\n", lines[0])).expect("write");
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&live)).expect("followed");
    assert_eq!(rows_once_read(&mut followed), 1);
    std::fs::write(
        task.join("runs.jsonl"),
        format!("{}\n{}\n", lines[0], lines[1]),
    )
    .expect("write");
    assert_eq!(rows_once_read(&mut followed), 2);
    // A sample's line caught half written is left for a later read; the one before it is read.
    std::fs::write(
        task.join("runs.jsonl"),
        format!(
            "{}\n{}\n{}\n{}",
            lines[0],
            lines[1],
            lines[2],
            &lines[3][..lines[3].len() / 2]
        ),
    )
    .expect("write");
    assert_eq!(rows_once_read(&mut followed), 3);
    std::fs::write(
        task.join("runs.jsonl"),
        format!("{}\n{}\n{}\n{}\n", lines[0], lines[1], lines[2], lines[3]),
    )
    .expect("write");
    assert_eq!(rows_once_read(&mut followed), 4);
    // A failed attempt of another sample counts once it is in error.jsonl.
    std::fs::copy(
        source.join("gpt-3.5-turbo-0613/os-std/error.jsonl"),
        task.join("error.jsonl"),
    )
    .expect("copy");
    assert_eq!(rows_once_read(&mut followed), 5);
}

/// A tau2 cost or duration written as a string was refused ("'duration' must be a number") where
/// the README says a cost or time that is no number is read as unknown with a note, as other
/// importers do; the outcome and the rest of the row are kept.
#[test]
fn a_tau2_cost_or_duration_that_is_no_number_is_read_as_unknown_with_a_note() {
    let dir = temp_dir("tau2-string-amounts");
    let plain = fixture("tau2").join("json_run").join("results.json");
    let mut run: Value = json_file(&plain);
    run["simulations"][0]["duration"] = Value::from("n/a");
    run["simulations"][0]["agent_cost"] = Value::from("none");
    // A string that holds a number is that number.
    run["simulations"][1]["duration"] = Value::from(" 12.5");
    let edited = dir.join("results.json");
    std::fs::write(&edited, run.to_string()).expect("write");
    let rows = import_rows("tau2", &[&edited], &[], "tau2-string-amounts-rows");
    let before = import_rows("tau2", &[&plain], &[], "tau2-plain-amounts-rows");
    assert_eq!(rows.len(), before.len());
    let unknown = rows.iter().filter(|r| r["seconds"].is_null()).count();
    assert_eq!(
        unknown,
        before.iter().filter(|r| r["seconds"].is_null()).count() + 1
    );
    let seconds = |r: &Value| r["seconds"].as_str().and_then(|v| v.parse::<f64>().ok());
    assert!(rows.iter().any(|r| seconds(r) == Some(12.5)), "{rows:?}");
    let outcomes = |rows: &[Value]| {
        rows.iter()
            .map(row_outcome)
            .map(f64::to_bits)
            .collect::<Vec<_>>()
    };
    assert_eq!(outcomes(&rows), outcomes(&before));
    let info = pareval(&["info", &edited.to_string_lossy(), "--format", "json"]);
    assert_eq!(info.status.code(), Some(0), "{}", stderr(&info));
    let info: Value = serde_json::from_str(&stdout(&info)).expect("json");
    let words = info["notes"].to_string();
    assert!(
        words.contains("seconds is no number ≥ 0 and is read as unknown"),
        "{words}"
    );
    assert!(
        words.contains("cost is no number ≥ 0 and is read as unknown"),
        "{words}"
    );
}
