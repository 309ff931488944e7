//! Step-level records (SPEC §11): the real BALROG and Terminal-Bench tables load with the counts their
//! README gives, and every bad input names its file, line and value.

use pareval::data::ColumnMap;
use pareval::data::trajectories::load_trajectories;

use crate::common::{fixture, shared_data};

fn load(steps: &str, outcomes: &str) -> Result<pareval::early::Trajectories, String> {
    load_trajectories(
        &fixture(&format!("trajectories/{steps}")),
        &fixture(&format!("trajectories/{outcomes}")),
        None,
        &ColumnMap::default(),
    )
    .map_err(|e| e.to_string())
}

#[test]
fn a_small_record_loads_in_step_order_with_its_fields() {
    let t = load("steps_ok.csv", "outcomes_ok.csv").expect("load");
    assert_eq!(t.trajectories.len(), 3);
    assert_eq!(t.steps(), 6);
    assert_eq!(t.successes(), 1);
    let first = &t.trajectories[0];
    assert_eq!(first.len(), 3);
    assert_eq!(first.steps[2].action.as_deref(), Some("pytest"));
    assert_eq!(first.steps[2].is_error, Some(true));
    assert_eq!(first.steps[1].observation_chars, Some(800.0));
    assert_eq!(t.trajectories[1].steps[0].is_error, None);
    assert!(t.fields.action && t.fields.is_error && t.fields.text && !t.fields.tokens);
}

#[test]
fn a_run_spelled_two_ways_is_one_run_as_the_records_loader_reads_it() {
    // The steps say "00" and " 0", the outcomes "0" and "0.0": one run each, as the records loader,
    // `decide` and `watch` key runs; a fraction is refused, naming its line.
    let dir = crate::common::temp_dir("trajectory-run-keys");
    let steps = dir.join("steps.csv");
    let outcomes = dir.join("outcomes.csv");
    std::fs::write(
        &steps,
        "system,task,run,step,action\na,t1,00,1,ls\na,t1, 0,2,pytest\nb,t1,1,1,ls\n",
    )
    .expect("steps");
    std::fs::write(
        &outcomes,
        "system,task,run,outcome,steps\na,t1,0,1,2\nb,t1,1.0,0,1\n",
    )
    .expect("outcomes");
    let t = load_trajectories(&steps, &outcomes, None, &ColumnMap::default()).expect("load");
    assert_eq!(t.trajectories.len(), 2);
    assert_eq!(t.trajectories[0].len(), 2);
    assert_eq!(t.trajectories[0].run, "0");
    assert_eq!(t.trajectories[1].run, "1");
    std::fs::write(&outcomes, "system,task,run,outcome,steps\na,t1,0.5,1,2\n").expect("outcomes");
    let error = load_trajectories(&steps, &outcomes, None, &ColumnMap::default())
        .expect_err("a fractional run")
        .to_string();
    assert!(
        error.ends_with(
            "outcomes.csv: column 'run' must hold whole numbers ≥ 0 or run ids: '0.5' on line 2"
        ),
        "{error}"
    );
}

#[test]
fn bad_trajectory_tables_name_file_line_and_value() {
    let dir = "tests/fixtures/trajectories";
    let cases = [
        (
            "steps_gap.csv",
            "outcomes_ok.csv",
            format!(
                "{dir}/steps_gap.csv: steps must be numbered 1 … T without gaps: (a, t1, run 0) jumps to step 3 on line 3 (step 2 is missing)"
            ),
        ),
        (
            "steps_duplicate.csv",
            "outcomes_ok.csv",
            format!(
                "{dir}/steps_duplicate.csv: a step may appear once per trajectory: step 2 of (a, t1, run 0) on line 3 and line 4"
            ),
        ),
        (
            "steps_orphan.csv",
            "outcomes_ok.csv",
            format!(
                "{dir}/steps_orphan.csv: trajectories with steps but no outcome in {dir}/outcomes_ok.csv: (c, t9, run 0) from line 8"
            ),
        ),
        (
            "steps_bad_count.csv",
            "outcomes_ok.csv",
            format!(
                "{dir}/steps_bad_count.csv: column 'observation_chars' must hold whole numbers ≥ 0: 'lots' on line 3"
            ),
        ),
        (
            "steps_ok.csv",
            "outcomes_missing_steps.csv",
            format!(
                "{dir}/outcomes_missing_steps.csv: trajectories with an outcome but no steps in {dir}/steps_ok.csv: (b, t2, run 0) on line 5"
            ),
        ),
        // The message listed 1/0 and true/false, though yes/no is read too.
        (
            "steps_bad_flag.csv",
            "outcomes_ok.csv",
            format!(
                "{dir}/steps_bad_flag.csv: column 'is_error' must be 1/0, true/false, yes/no or empty: 'maybe' on line 3"
            ),
        ),
        (
            "steps_ok.csv",
            "outcomes_wrong_count.csv",
            format!(
                "{dir}/outcomes_wrong_count.csv: column 'steps' disagrees with the steps table: line 3 says 5 steps, the steps table has 2 ({dir}/steps_ok.csv)"
            ),
        ),
        (
            "steps_ok.csv",
            "outcomes_bad_steps.csv",
            format!(
                "{dir}/outcomes_bad_steps.csv: column 'steps' must hold whole numbers ≥ 0: 'three' on line 2"
            ),
        ),
        (
            "steps_ok.csv",
            "outcomes_out_of_range.csv",
            format!(
                "{dir}/outcomes_out_of_range.csv: column 'outcome' must be in [0, 1]: 'nan' on line 2, '1.5' on line 3"
            ),
        ),
        (
            "steps_ok.csv",
            "outcomes_duplicate.csv",
            format!(
                "{dir}/outcomes_duplicate.csv: a trajectory (system, task, run) may have one outcome: (a, t1, run 0) on line 2 and line 5"
            ),
        ),
    ];
    for (steps, outcomes, expected) in cases {
        let message = load(steps, outcomes).expect_err(steps);
        // The fixture paths are absolute; compare from the repository-relative part on.
        let shown = message.replace(&format!("{}/", env!("CARGO_MANIFEST_DIR")), "");
        assert_eq!(shown, expected, "{steps} + {outcomes}");
    }
}

#[test]
fn the_public_trajectories_load_with_their_readme_counts() {
    let (Some(balrog), Some(terminal)) = (load_public("balrog"), load_public("terminal_bench"))
    else {
        return;
    };
    assert_eq!(
        (
            balrog.systems.len(),
            balrog.tasks.len(),
            balrog.trajectories.len()
        ),
        (15, 56, 3630)
    );
    assert_eq!((balrog.successes(), balrog.steps()), (1022, 271_313));
    assert_eq!(
        balrog.trajectories.iter().filter(|t| t.len() < 10).count(),
        446
    );
    assert_eq!(
        (
            terminal.systems.len(),
            terminal.tasks.len(),
            terminal.trajectories.len()
        ),
        (2, 78, 543)
    );
    assert_eq!((terminal.successes(), terminal.steps()), (216, 16_980));
    assert!(!terminal.fields.tokens && terminal.fields.action);
}

/// The early predictor's folds, calibration and inner splits are drawn over the trajectories: in
/// the outcomes table's row order they were, so the same trajectories written in another order gave
/// other figures (Terminal-Bench loao τ 0.75: 68.7% coverage in the file's order, other figures
/// shuffled; BALROG differed at every τ). They are loaded in a canonical order now.
#[test]
fn early_figures_do_not_follow_the_files_row_order() {
    let Some(root) = crate::common::shared_data() else {
        return;
    };
    let dir = crate::common::temp_dir("early-row-order");
    for name in ["terminal_bench", "balrog"] {
        let source = root.join("trajectories").join(name);
        // Both tables' rows shuffled (a fixed permutation: every 7th row first, and so on).
        let shuffled = |file: &str| {
            let text = std::fs::read_to_string(source.join(file)).expect("read");
            let mut lines = text.lines();
            let header = lines.next().expect("header");
            let rows: Vec<&str> = lines.collect();
            let mut out = vec![header];
            for start in 0..7 {
                out.extend(rows.iter().skip(start).step_by(7));
            }
            let path = dir.join(format!("{name}-{file}"));
            std::fs::write(&path, out.join("\n") + "\n").expect("write");
            path
        };
        let (steps, outcomes) = (shuffled("steps.csv"), shuffled("outcomes.csv"));
        let original = load_public(name).expect("loaded");
        let reordered =
            load_trajectories(&steps, &outcomes, None, &ColumnMap::default()).expect(name);
        assert_eq!(reordered.systems, original.systems, "{name}");
        assert_eq!(reordered.tasks, original.tasks, "{name}");
        assert!(reordered.trajectories == original.trajectories, "{name}");
        // And so the figures (Terminal-Bench: a second's training).
        if name == "terminal_bench" {
            let early = |steps: &std::path::Path, outcomes: &std::path::Path| {
                let out = crate::common::pareval(&[
                    "early",
                    &steps.display().to_string(),
                    &outcomes.display().to_string(),
                    "--tau",
                    "0.75,0.95,0.99",
                ]);
                assert!(out.status.success(), "{}", crate::common::stderr(&out));
                crate::common::stdout(&out)
            };
            assert_eq!(
                early(&steps, &outcomes),
                early(&source.join("steps.csv"), &source.join("outcomes.csv"))
            );
        }
    }
}

#[test]
fn real_prefixes_never_read_past_step_k() {
    use pareval::early::features::{FeatureSettings, Featurizer};
    for name in ["balrog", "terminal_bench"] {
        let Some(data) = load_public(name) else {
            return;
        };
        // Leave the first system out: fit on the others, featurize the held-out system.
        let train: Vec<_> = data.trajectories.iter().filter(|t| t.system != 0).collect();
        let held_out: Vec<_> = data.trajectories.iter().filter(|t| t.system == 0).collect();
        let started = std::time::Instant::now();
        let featurizer = Featurizer::fit(&train, FeatureSettings::default());
        let fitted = started.elapsed();
        let width = featurizer.names().len();
        let mut prefixes = 0;
        for (i, traj) in held_out.iter().enumerate() {
            let all = featurizer.prefixes(&traj.steps);
            prefixes += all.len();
            assert!(
                all.iter()
                    .all(|v| v.len() == width && v.iter().all(|x| x.is_finite()))
            );
            // Cut a few real trajectories at every k: the same vector.
            if i % 25 == 0 {
                for (k, vector) in all.iter().enumerate() {
                    assert_eq!(
                        vector,
                        &featurizer.prefix(&traj.steps[..=k], k + 1),
                        "{name} k {k}"
                    );
                }
            }
        }
        println!(
            "{name}: {width} features; fit on {} trajectories in {:.2?}; {prefixes} held-out prefixes in {:.2?}",
            train.len(),
            fitted,
            started.elapsed() - fitted
        );
        assert!(prefixes > 0);
    }
}

fn load_public(name: &str) -> Option<pareval::early::Trajectories> {
    let root = shared_data()?;
    let dir = root.join("trajectories").join(name);
    Some(
        load_trajectories(
            &dir.join("steps.csv"),
            &dir.join("outcomes.csv"),
            None,
            &ColumnMap::default(),
        )
        .expect(name),
    )
}

#[test]
fn held_out_systems_are_predicted_well_above_chance() {
    use pareval::early::features::{FeatureSettings, Featurizer};
    use pareval::early::metrics::auc;
    use pareval::early::model::{ModelSettings, OutcomeModels};
    let Some(data) = load_public("balrog") else {
        return;
    };
    // Leave the first system out; 30 trees keep the test short (the default is 100).
    let train: Vec<_> = data.trajectories.iter().filter(|t| t.system != 0).collect();
    let test: Vec<_> = data.trajectories.iter().filter(|t| t.system == 0).collect();
    let featurizer = Featurizer::fit(&train, FeatureSettings::default());
    let settings = ModelSettings {
        iterations: 30,
        ..ModelSettings::default()
    };
    let models = OutcomeModels::fit(featurizer, &train, settings).expect("models");
    let width = models.featurizer.names().len();
    let mut rows = Vec::new();
    let mut success = Vec::new();
    for traj in &test {
        for vector in models.featurizer.prefixes(&traj.steps) {
            rows.extend(vector);
            success.push(traj.success());
        }
    }
    let p_success = models.success.probabilities(&rows, width);
    let p_failure = models.failure.probabilities(&rows, width);
    let failed: Vec<bool> = success.iter().map(|s| !s).collect();
    let (a_s, a_f) = (
        auc(&p_success, &success).expect("both classes"),
        auc(&p_failure, &failed).expect("both classes"),
    );
    println!("held-out AUC: success {a_s:.3}, failure {a_f:.3}");
    assert!(a_s > 0.8 && a_f > 0.8, "success {a_s}, failure {a_f}");
    assert!(
        p_success
            .iter()
            .chain(&p_failure)
            .all(|p| (0.0..=1.0).contains(p))
    );
}

#[test]
fn models_give_the_same_bits_on_one_and_four_threads() {
    use pareval::early::features::{FeatureSettings, Featurizer};
    use pareval::early::model::{ModelSettings, OutcomeModels};
    let Some(data) = load_public("terminal_bench") else {
        return;
    };
    let train: Vec<_> = data.trajectories.iter().filter(|t| t.system != 0).collect();
    let test = data
        .trajectories
        .iter()
        .find(|t| t.system == 0)
        .expect("a test trajectory");
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| {
                let featurizer = Featurizer::fit(&train, FeatureSettings::default());
                let settings = ModelSettings {
                    iterations: 20,
                    ..ModelSettings::default()
                };
                let models = OutcomeModels::fit(featurizer, &train, settings).expect("models");
                let width = models.featurizer.names().len();
                let rows: Vec<f64> = models.featurizer.prefixes(&test.steps).concat();
                (
                    models.success.probabilities(&rows, width),
                    models.failure.probabilities(&rows, width),
                    (models.success.platt.a, models.success.platt.b),
                )
            })
    };
    assert_eq!(run(1), run(4));
}

/// The whole evaluation (every fold's featurizer and models, every prediction, the τ sweep) gives
/// the same bits on one and on four threads.
#[test]
fn the_whole_sweep_gives_the_same_bits_on_one_and_four_threads() {
    use pareval::early::evaluate::{predict, sweep};
    use pareval::early::features::FeatureSettings;
    use pareval::early::model::ModelSettings;
    use pareval::early::protocol::Protocol;
    let Some(data) = load_public("terminal_bench") else {
        return;
    };
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| {
                let settings = ModelSettings {
                    iterations: 10,
                    ..ModelSettings::default()
                };
                let predictions =
                    predict(&data, Protocol::Loao, FeatureSettings::default(), settings)
                        .expect("predict");
                let results = sweep(&data, &predictions, Protocol::Loao, &[0.6, 0.75], 0.0);
                let bits = |p: &[Option<Vec<f64>>]| -> Vec<u64> {
                    p.iter().flatten().flatten().map(|x| x.to_bits()).collect()
                };
                (
                    bits(&predictions.success),
                    bits(&predictions.failure),
                    format!("{results:?}"),
                )
            })
    };
    let (one, four) = (run(1), run(4));
    assert!(!one.0.is_empty());
    assert_eq!(one, four);
}

/// The rows of a JSON Lines file `pareval` wrote.
fn json_lines_file(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .expect("a written file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect()
}

#[test]
fn pareval_early_reports_every_tau_and_refuses_bad_input() {
    use crate::common::{assert_refused, pareval, stdout};
    let steps = fixture("trajectories/steps_gap.csv");
    let outcomes = fixture("trajectories/outcomes_ok.csv");
    assert_refused(
        &pareval(&[
            "early",
            &steps.to_string_lossy(),
            &outcomes.to_string_lossy(),
        ]),
        "steps must be numbered 1 … T without gaps",
    );
    let Some(root) = shared_data() else { return };
    let dir = root.join("trajectories/terminal_bench");
    let (steps, outcomes) = (dir.join("steps.csv"), dir.join("outcomes.csv"));
    let (steps, outcomes) = (steps.to_string_lossy(), outcomes.to_string_lossy());
    assert_refused(
        &pareval(&["early", &steps, &outcomes, "--protocol", "loso"]),
        "needs a 'scaffold' for every system",
    );
    assert_refused(
        &pareval(&["early", &steps, &outcomes, "--tau", "0.3"]),
        "--tau: '0.3' must be in (0.5, 1]",
    );
    // A systems table under a protocol that never reads it, and a saved τ beside a target
    // precision that chooses the saved thresholds instead: both went by in silence.
    let systems = crate::common::temp_dir("early-systems-unread").join("systems.csv");
    std::fs::write(
        &systems,
        "system,scaffold,model\n20250711_openhands_claude-4-sonnet,openhands,claude-4-sonnet\n20250825_swe-agent-mini_claude-4-sonnet,mini,claude-4-sonnet\n",
    )
    .expect("systems");
    let noted = pareval(&[
        "early",
        &steps,
        &outcomes,
        "--systems",
        &systems.to_string_lossy(),
        "--trees",
        "5",
        "--tau",
        "0.9",
    ]);
    assert_eq!(noted.status.code(), Some(0));
    assert!(
        crate::common::stderr(&noted).contains(
            "note: --systems is read by the loso and no-same-model protocols; under loao it changes nothing"
        ),
        "{}",
        crate::common::stderr(&noted)
    );
    let saved = crate::common::temp_dir("early-save-tau-and-target").join("m.json");
    assert_refused(
        &pareval(&[
            "early",
            &steps,
            &outcomes,
            "--save-model",
            &saved.to_string_lossy(),
            "--no-sweep",
            "--save-tau",
            "0.8",
            "--target-precision",
            "0.6",
        ]),
        "'--save-tau <TAU>' cannot be used with '--target-precision <P,…>'",
    );
    // Every feature family left out: a model of no feature (it wrote a file halt called damaged).
    assert_refused(
        &pareval(&[
            "early",
            &steps,
            &outcomes,
            "--without",
            "textual,behavioral,actions,milestones",
        ]),
        "--without leaves out every feature family",
    );
    // Markdown is the whole report as tables a renderer draws: every row of a table has the header
    // row's count of cells (an unescaped `|Δ|` gave the header 16 over a 12-cell rule), and the
    // AUC, the per-system table and the target-precision lines are there as in text.
    let markdown = pareval(&[
        "early",
        &steps,
        &outcomes,
        "--trees",
        "10",
        "--tau",
        "0.6",
        "--target-precision",
        "0.6",
        "--format",
        "markdown",
    ]);
    assert_eq!(markdown.status.code(), Some(0));
    let markdown = stdout(&markdown);
    let cells = |line: &str| line.replace("\\|", "").matches('|').count();
    let mut tables = 0;
    let lines: Vec<&str> = markdown.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("|---") {
            tables += 1;
            let header = cells(lines[i - 1]);
            assert_eq!(cells(line), header, "{markdown}");
            for row in lines[i + 1..].iter().take_while(|l| l.starts_with('|')) {
                assert_eq!(cells(row), header, "{row}");
            }
        }
    }
    assert_eq!(tables, 2, "{markdown}");
    for part in [
        "AUC on test prefixes",
        "mean \\|Δ\\| pp",
        "Resolve rate per system at τ = 0.6",
        "target precision 60%",
    ] {
        assert!(markdown.contains(part), "{part}: {markdown}");
    }
    let out = pareval(&[
        "early", &steps, &outcomes, "--trees", "10", "--tau", "0.6,0.9", "--format", "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::common::stderr(&out)
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let results = json["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for r in results {
        assert_eq!(r["protocol"], "loao");
        assert!(
            r["coverage"]
                .as_f64()
                .is_some_and(|c| (0.0..=1.0).contains(&c))
        );
        assert!(r["tokens_in_saved"].is_null(), "no tokens in these logs");
        assert_eq!(r["systems"].as_array().expect("systems").len(), 2);
    }
    // A lower τ halts at least as many trajectories.
    assert!(results[0]["coverage"].as_f64() >= results[1]["coverage"].as_f64());
    // Per-trajectory records agree with the table: halted rows over trajectories is the coverage.
    let dir = crate::common::temp_dir("early-records");
    let records = dir.join("halts.jsonl");
    let predictions = dir.join("predictions.jsonl");
    let out = pareval(&[
        "early",
        &steps,
        &outcomes,
        "--trees",
        "10",
        "--tau",
        "0.6",
        "--records",
        &records.to_string_lossy(),
        "--predictions",
        &predictions.to_string_lossy(),
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::common::stderr(&out)
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let rows: Vec<serde_json::Value> = json_lines_file(&records);
    assert_eq!(rows.len(), 543);
    let halted = rows.iter().filter(|r| !r["halted_at"].is_null()).count();
    let coverage = json["results"][0]["coverage"].as_f64().expect("coverage");
    assert!((halted as f64 / 543.0 - coverage).abs() < 1e-12);
    for row in &rows {
        let (steps, saved) = (
            row["steps"].as_u64().expect("steps"),
            row["steps_saved"].as_u64().expect("saved"),
        );
        match row["halted_at"].as_u64() {
            Some(k) => assert_eq!(saved, steps - k),
            None => assert_eq!((saved, &row["predicted"]), (0, &row["outcome"])),
        }
    }
    // Per-step probabilities: one row per prefix k = 1 … T−1; the halting records are read off them
    // (the first prefix where a model reaches τ halts, and nothing reaches τ in a trajectory that ran
    // to the end).
    let prefixes: Vec<serde_json::Value> = json_lines_file(&predictions);
    let all_steps: u64 = rows
        .iter()
        .map(|r| r["steps"].as_u64().expect("steps"))
        .sum();
    assert_eq!(prefixes.len() as u64, all_steps - 543);
    let key = |r: &serde_json::Value| format!("{}|{}|{}", r["system"], r["task"], r["run"]);
    let mut by_trajectory: std::collections::HashMap<String, Vec<(f64, f64)>> =
        std::collections::HashMap::new();
    for p in &prefixes {
        let list = by_trajectory.entry(key(p)).or_default();
        assert_eq!(
            p["step"].as_u64(),
            Some(list.len() as u64 + 1),
            "steps in order"
        );
        list.push((
            p["p_success"].as_f64().expect("p"),
            p["p_failure"].as_f64().expect("p"),
        ));
    }
    for row in &rows {
        let probabilities = by_trajectory.get(&key(row)).map_or(&[][..], Vec::as_slice);
        let fires = |(s, f): &(f64, f64)| *s >= 0.6 || *f >= 0.6;
        let first = probabilities.iter().position(fires);
        assert_eq!(
            first.map(|k| k as u64 + 1),
            row["halted_at"].as_u64(),
            "{}",
            key(row)
        );
        if let Some(k) = first {
            let (s, f) = probabilities[k];
            assert_eq!(row["probability"].as_f64(), Some(s.max(f)));
        }
    }
    // Records at a target precision (each fold's own τ_s and τ_f) reproduce its line of the table.
    let target_records = dir.join("target.jsonl");
    let out = pareval(&[
        "early",
        &steps,
        &outcomes,
        "--trees",
        "10",
        "--tau",
        "0.9",
        "--target-precision",
        "0.6",
        "--records",
        &target_records.to_string_lossy(),
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::common::stderr(&out)
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let target = &json["target"][0];
    let rows: Vec<serde_json::Value> = json_lines_file(&target_records)
        .into_iter()
        .filter(|r: &serde_json::Value| r["target_precision"].as_f64() == Some(0.6))
        .collect();
    assert_eq!(rows.len(), 543);
    assert!(rows.iter().all(|r| r["tau"].is_null()));
    let halted: Vec<&serde_json::Value> =
        rows.iter().filter(|r| !r["halted_at"].is_null()).collect();
    let coverage = target["coverage"].as_f64().expect("coverage");
    assert!(coverage > 0.0, "{target}");
    assert!((halted.len() as f64 / 543.0 - coverage).abs() < 1e-12);
    let right = halted
        .iter()
        .filter(|r| (r["predicted"].as_f64() >= Some(0.5)) == (r["outcome"].as_f64() >= Some(0.5)))
        .count();
    let accuracy = target["accuracy"].as_f64().expect("accuracy");
    assert!((right as f64 / halted.len() as f64 - accuracy).abs() < 1e-12);
    for format in ["text", "csv", "markdown"] {
        let out = pareval(&[
            "early", &steps, &outcomes, "--trees", "5", "--format", format,
        ]);
        assert_eq!(out.status.code(), Some(0), "{format}");
        assert!(stdout(&out).contains("loao"), "{format}");
    }
}

#[test]
fn short_trajectories_name_the_min_steps_setting_that_trains_on_them() {
    use crate::common::{assert_refused, pareval, temp_dir};
    // MINT-style: at most 5 steps per trajectory, three systems, outcomes that depend on the actions.
    let dir = temp_dir("early-short");
    let mut steps = String::from("system,task,run,step,action,observation_chars,is_error,text\n");
    let mut outcomes = String::from("system,task,run,outcome,steps\n");
    for (s, system) in ["a", "b", "c"].iter().enumerate() {
        for t in 0..30 {
            let len = 2 + (t + s) % 4;
            let success = (t * 7 + s * 3) % 3 != 0;
            for k in 1..=len {
                let action = if success && k == len {
                    "submit"
                } else {
                    "think"
                };
                steps.push_str(&format!(
                    "{system},t{t},0,{k},{action},{},{},step {k}\n",
                    100 * k,
                    u8::from(!success && k > 1)
                ));
            }
            outcomes.push_str(&format!("{system},t{t},0,{},{len}\n", u8::from(success)));
        }
    }
    let (steps_path, outcomes_path) = (dir.join("steps.csv"), dir.join("outcomes.csv"));
    std::fs::write(&steps_path, steps).expect("steps");
    std::fs::write(&outcomes_path, outcomes).expect("outcomes");
    let (steps, outcomes) = (
        steps_path.to_string_lossy(),
        outcomes_path.to_string_lossy(),
    );
    assert_refused(
        &pareval(&["early", &steps, &outcomes, "--trees", "5"]),
        "no training trajectory has 10 steps or more (the longest has 5): lower --min-steps, e.g. --min-steps 5",
    );
    // One-step trajectories no --min-steps can help: it said "no training trajectory has 1 steps
    // or more (the longest has 1): lower --min-steps, e.g. --min-steps 2".
    let fixture = |name: &str| crate::common::fixture(&format!("trajectories/{name}"));
    assert_refused(
        &pareval(&[
            "early",
            &fixture("steps_ok.csv").to_string_lossy(),
            &fixture("outcomes_ok.csv").to_string_lossy(),
            "--min-steps",
            "1",
        ]),
        "every training trajectory has at most 1 step: a prefix model needs trajectories of 2 steps or more (one prefix before the outcome), whatever --min-steps says",
    );
    let trained = pareval(&[
        "early",
        &steps,
        &outcomes,
        "--trees",
        "5",
        "--min-steps",
        "2",
    ]);
    assert_eq!(
        trained.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&trained.stderr)
    );
}

#[test]
fn a_column_mapping_whose_source_neither_table_has_is_refused() {
    // With both tables holding `outcome` and `is_error`, a misspelled source used to leave the
    // tables' own columns in its place without a word.
    use pareval::data::trajectories::{OUTCOME_COLUMNS, STEP_COLUMNS};
    let known: Vec<&str> = STEP_COLUMNS
        .iter()
        .chain(&OUTCOME_COLUMNS)
        .copied()
        .collect();
    let with = |items: &[&str]| {
        load_trajectories(
            &fixture("trajectories/steps_ok.csv"),
            &fixture("trajectories/outcomes_ok.csv"),
            None,
            &ColumnMap::parse_with(
                &items.iter().map(|i| i.to_string()).collect::<Vec<_>>(),
                &known,
            )
            .expect("parse"),
        )
        .map_err(|e| e.to_string())
    };
    let error = with(&["is_error=is_eror"]).expect_err("a typo");
    assert!(
        error.contains("steps_ok.csv: --col is_error=is_eror: no table has a column 'is_eror'"),
        "{error}"
    );
    let error = with(&["outcome=resolvd"]).expect_err("a typo");
    assert!(
        error.contains("outcomes_ok.csv: --col outcome=resolvd: no table has a column 'resolvd'"),
        "{error}"
    );
    assert!(with(&["is_error=is_error"]).is_ok());
}

#[test]
fn a_column_mapping_whose_target_the_table_already_has_is_refused_not_passed_over() {
    // `--col is_error=observation_chars` on a steps table with both columns read the table's own
    // is_error, and the mapping was passed over without a word.
    let columns = |spec: &str| {
        ColumnMap::parse_with(
            &[spec.to_string()],
            &pareval::data::trajectories::STEP_COLUMNS
                .iter()
                .chain(&pareval::data::trajectories::OUTCOME_COLUMNS)
                .copied()
                .collect::<Vec<_>>(),
        )
        .expect("a mapping")
    };
    let load_with = |spec: &str| {
        load_trajectories(
            &fixture("trajectories/steps_ok.csv"),
            &fixture("trajectories/outcomes_ok.csv"),
            None,
            &columns(spec),
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    let refused = load_with("is_error=observation_chars").unwrap_err();
    assert!(
        refused.ends_with(
            "--col is_error=observation_chars: the file has both a 'observation_chars' and a 'is_error' column"
        ),
        "{refused}"
    );
    // A target the steps tables know is named among their columns, not the records'.
    let unknown = ColumnMap::parse_with(
        &["foo=is_error".to_string()],
        &pareval::data::trajectories::STEP_COLUMNS,
    )
    .unwrap_err()
    .to_string();
    assert!(
        unknown.contains("'foo' is not a pareval column (one of "),
        "{unknown}"
    );
    assert!(unknown.contains("is_error"), "{unknown}");
    let refused = load_with("steps=run").unwrap_err();
    assert!(
        refused.ends_with("--col steps=run: the file has both a 'run' and a 'steps' column"),
        "{refused}"
    );
}

#[test]
fn counts_past_32_bits_are_refused_as_written_not_cut_to_4294967295() {
    // A step or steps count past 2³² was cut to 4294967295, and the message then quoted that
    // number ("jumps to step 4294967295"), which the file does not hold.
    let dir = crate::common::temp_dir("huge-counts");
    let steps = dir.join("steps.csv");
    let outcomes = dir.join("outcomes.csv");
    std::fs::write(
        &steps,
        "system,task,run,step\na,t1,0,1\na,t1,0,2\na,t1,0,4294967296\n",
    )
    .expect("write");
    std::fs::write(&outcomes, "system,task,run,outcome,steps\na,t1,0,1,3\n").expect("write");
    let load = || {
        load_trajectories(&steps, &outcomes, None, &ColumnMap::default())
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let refused = load().unwrap_err();
    assert!(
        refused.ends_with(
            "column 'step' must count from 1 (to at most 4294967295): '4294967296' on line 4"
        ),
        "{refused}"
    );
    std::fs::write(
        &steps,
        "system,task,run,step\na,t1,0,1\na,t1,0,2\na,t1,0,3\n",
    )
    .expect("write");
    std::fs::write(
        &outcomes,
        "system,task,run,outcome,steps\na,t1,0,1,99999999999\n",
    )
    .expect("write");
    let refused = load().unwrap_err();
    assert!(
        refused.ends_with(
            "column 'steps' must give each trajectory's number of steps (1 to 4294967295): '99999999999' on line 2"
        ),
        "{refused}"
    );
}
