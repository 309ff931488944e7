//! `replay --early`: early-stopped outcomes observed, the completed record as the truth, budgets by
//! steps and the savings (SPEC §11 "With replay"), on a hand-made record and on Terminal-Bench.

use std::path::{Path, PathBuf};

use crate::common::{assert_refused, pareval, shared_data, stderr, stdout, temp_dir};

/// 2 systems × 20 tasks, one run each: A solves tasks 0–14, B tasks 0–4 (Δ_full = 50 pp).
fn record(dir: &Path) -> PathBuf {
    let mut text = String::from("system,task,outcome\n");
    for t in 0..20 {
        text.push_str(&format!("A,t{t:02},{}\n", u8::from(t < 15)));
        text.push_str(&format!("B,t{t:02},{}\n", u8::from(t < 5)));
    }
    let path = dir.join("record.csv");
    std::fs::write(&path, text).expect("write record");
    path
}

/// Halting records at τ 0.9 for the record above: every run has 10 steps; `halt` runs stop after 4
/// steps with the outcome `early(system, task)`, the others run to the end with the true outcome.
fn halts(dir: &Path, name: &str, halt: bool, early: impl Fn(&str, u32) -> u8) -> PathBuf {
    let mut text = String::from(
        "tau,system,task,run,steps,halted_at,model,probability,predicted,outcome,steps_saved,tokens_saved\n",
    );
    for t in 0..20u32 {
        for (system, solved) in [("A", t < 15), ("B", t < 5)] {
            let truth = u8::from(solved);
            if halt {
                let predicted = early(system, t);
                let model = if predicted == 1 { "success" } else { "failure" };
                text.push_str(&format!(
                    "0.9,{system},t{t:02},0,10,4,{model},0.95,{predicted},{truth},6,\n"
                ));
            } else {
                text.push_str(&format!(
                    "0.9,{system},t{t:02},0,10,,,,{truth},{truth},0,\n"
                ));
            }
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write halts");
    path
}

fn json_rows(args: &[&str]) -> Vec<serde_json::Value> {
    let out = pareval(args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    json["results"][0]["rows"].as_array().expect("rows").clone()
}

#[test]
fn early_outcomes_without_halts_replay_exactly_as_the_record() {
    let dir = temp_dir("early-none");
    let record = record(&dir);
    let none = halts(&dir, "none.csv", false, |_, _| 0);
    let (record, none) = (record.to_string_lossy(), none.to_string_lossy());
    let common = ["replay", &record, "--format", "json", "--orders", "50"];
    let plain = json_rows(&common);
    let mut with_early = common.to_vec();
    with_early.extend(["--early", &none]);
    let early = json_rows(&with_early);
    assert_eq!(plain.len(), early.len());
    for (p, e) in plain.iter().zip(&early) {
        for field in ["fpr", "frr", "unresolved", "promote_rate", "mean_observed"] {
            assert_eq!(p[field], e[field], "{field}");
        }
        assert!(p["joint_saving"].is_null(), "no savings without --early");
        // Nothing stopped early: no step is saved inside the tasks that ran, and the joint saving
        // is the share of tasks not run.
        assert_eq!(e["steps_not_run_inside"].as_f64(), Some(0.0));
        let tasks_not_run = 1.0 - e["mean_observed"].as_f64().expect("observed") / 20.0;
        assert!((e["tasks_not_run"].as_f64().expect("tasks") - tasks_not_run).abs() < 1e-12);
        assert!((e["joint_saving"].as_f64().expect("joint") - tasks_not_run).abs() < 1e-12);
    }
}

#[test]
fn wrong_early_outcomes_are_judged_against_the_full_record() {
    let dir = temp_dir("early-wrong");
    let record = record(&dir);
    // Every run halts after 4 of 10 steps with the wins on tasks 5–14 moved from A to B, so the early
    // record has B ahead by 50 pp where the truth has A ahead by 50 pp.
    let wrong = halts(&dir, "wrong.csv", true, |system, t| {
        u8::from(if system == "A" { t < 5 } else { t < 15 })
    });
    let (record, wrong) = (record.to_string_lossy(), wrong.to_string_lossy());
    let rows = json_rows(&[
        "replay",
        &record,
        "--early",
        &wrong,
        "--format",
        "json",
        "--orders",
        "50",
        "--thresholds",
        "0",
    ]);
    let last = rows.last().expect("rows");
    // A → B promotes on the full record and is rejected early; B → A the other way round.
    assert_eq!(last["frr"].as_f64(), Some(1.0), "{last}");
    assert_eq!(last["fpr"].as_f64(), Some(1.0), "{last}");
    for row in &rows {
        // Each run consumed 4 of its 10 steps.
        assert!((row["steps_not_run_inside"].as_f64().expect("inside") - 0.6).abs() < 1e-12);
        let observed = row["mean_observed"].as_f64().expect("observed");
        let joint = 1.0 - 0.4 * observed / 20.0;
        assert!((row["joint_saving"].as_f64().expect("joint") - joint).abs() < 1e-12);
    }
    // Text and Markdown say where the observed outcomes came from and show the savings.
    for format in ["text", "markdown"] {
        let out = pareval(&["replay", &record, "--early", &wrong, "--format", format]);
        let text = stdout(&out);
        assert!(text.contains("early-stopped at τ 0.9"), "{text}");
        assert!(text.contains("joint saving"), "{text}");
    }
    let out = pareval(&["replay", &record, "--early", &wrong, "--format", "csv"]);
    let csv = stdout(&out);
    assert!(
        csv.lines()
            .next()
            .expect("header")
            .contains(",tasks_not_run,steps_not_run_inside,joint_saving,cost_spent,seconds_spent,")
    );
    // A budget in steps: the total is what the early-stopped runs consumed.
    let rows = json_rows(&[
        "replay",
        &record,
        "--early",
        &wrong,
        "--budget-by",
        "pair-steps",
        "--format",
        "json",
        "--orders",
        "20",
    ]);
    assert!(rows.iter().all(|r| r["joint_saving"].as_f64() > Some(0.6)));
}

#[test]
fn halting_records_that_do_not_fit_the_record_are_refused() {
    let dir = temp_dir("early-bad");
    let record = record(&dir);
    let record = record.to_string_lossy();
    let good = halts(&dir, "good.csv", true, |system, t| {
        u8::from(if system == "A" { t < 15 } else { t < 5 })
    });
    let text = std::fs::read_to_string(&good).expect("read");
    let write = |name: &str, body: String| {
        let path = dir.join(name);
        std::fs::write(&path, body).expect("write");
        path.to_string_lossy().into_owned()
    };
    // A second τ: the file must be narrowed to one.
    let mut two = text.clone();
    two.push_str(
        &text
            .lines()
            .skip(1)
            .map(|l| format!("{}\n", l.replacen("0.9,", "0.95,", 1)))
            .collect::<String>(),
    );
    let two = write("two.csv", two);
    assert_refused(
        &pareval(&["replay", &record, "--early", &two]),
        "several τ (0.9, 0.95)",
    );
    assert_eq!(
        pareval(&["replay", &record, "--early", &two, "--early-tau", "0.95"])
            .status
            .code(),
        Some(0)
    );
    assert_refused(
        &pareval(&["replay", &record, "--early", &two, "--early-tau", "0.8"]),
        "no halting records at τ 0.8",
    );
    // A full outcome that disagrees with the record (A on t00 is a win in the record).
    let flipped = write(
        "flipped.csv",
        text.replacen(
            "0.9,A,t00,0,10,4,success,0.95,1,1,6",
            "0.9,A,t00,0,10,4,success,0.95,1,0,6",
            1,
        ),
    );
    assert_refused(
        &pareval(&["replay", &record, "--early", &flipped]),
        "'A' on 't00': 1 runs, mean outcome 0 here",
    );
    // A record cell without a halting record, and a trajectory of another record.
    let missing = write(
        "missing.csv",
        text.lines()
            .filter(|l| !l.contains(",B,t19,"))
            .map(|l| format!("{l}\n"))
            .collect(),
    );
    assert_refused(
        &pareval(&["replay", &record, "--early", &missing]),
        "'B' on 't19'",
    );
    let other = write("other.csv", format!("{text}0.9,C,t00,0,10,,,,1,1,0,\n"));
    assert_refused(
        &pareval(&["replay", &record, "--early", &other]),
        "'C' on 't00' (line 42)",
    );
    let duplicate = write(
        "duplicate.csv",
        format!("{text}{}\n", text.lines().nth(1).expect("row")),
    );
    assert_refused(
        &pareval(&["replay", &record, "--early", &duplicate]),
        "one halting record",
    );
    // A saving larger than the run.
    let saved = write(
        "saved.csv",
        text.replacen(",10,4,success,0.95,1,1,6", ",10,4,success,0.95,1,1,12", 1),
    );
    assert_refused(
        &pareval(&["replay", &record, "--early", &saved]),
        "steps_saved 12",
    );
    // Budgets: steps need --early; cost and seconds are not known for early-stopped runs.
    assert_refused(
        &pareval(&["replay", &record, "--budget-by", "steps"]),
        "--early",
    );
    let good = good.to_string_lossy();
    assert_refused(
        &pareval(&["replay", &record, "--early", &good, "--budget-by", "cost"]),
        "budget counts tasks or steps",
    );
}

#[test]
fn terminal_bench_halting_records_feed_the_replay() {
    let Some(root) = shared_data() else { return };
    let dir = root.join("trajectories/terminal_bench");
    let (steps, outcomes) = (
        dir.join("steps.csv").to_string_lossy().into_owned(),
        dir.join("outcomes.csv").to_string_lossy().into_owned(),
    );
    let work = temp_dir("early-tb");
    let halts = work.join("halts.csv").to_string_lossy().into_owned();
    let out = pareval(&[
        "early",
        &steps,
        &outcomes,
        "--trees",
        "5",
        "--tau",
        "0.6",
        "--records",
        &halts,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The protocol table (12 columns, 140 cells whole) comes in blocks that fit 80 columns, each led
    // by protocol and τ.
    let text = crate::common::stdout(&out);
    for line in text.lines().filter(|line| !line.starts_with("wrote")) {
        assert!(pareval::format::cells(line) <= 80, "{line}\n{text}");
    }
    let blocks = text
        .lines()
        .filter(|line| line.starts_with("  protocol") && line.contains(" τ "))
        .count();
    assert_eq!(blocks, 2, "{text}");
    assert!(text.contains("pairs agree"), "{text}");
    // Below chance on held-out trajectories (AUC 0.47 here): the report says halts follow noise.
    assert!(
        crate::common::flat(&text)
            .contains("⚠ near chance (AUC below 0.6): the models barely tell"),
        "{text}"
    );
    let rows = json_rows(&[
        "replay", &outcomes, "--early", &halts, "--format", "json", "--orders", "50",
    ]);
    assert_eq!(rows.len(), 19);
    for row in &rows {
        let inside = row["steps_not_run_inside"].as_f64().expect("inside");
        let (tasks, joint) = (
            row["tasks_not_run"].as_f64().expect("tasks"),
            row["joint_saving"].as_f64().expect("joint"),
        );
        assert!((0.0..1.0).contains(&inside) && (0.0..1.0).contains(&tasks));
        // 1 − joint = run / all ≤ run / (full steps of the tasks that ran) = 1 − inside.
        assert!(joint >= inside - 1e-12 && joint <= 1.0);
    }
}

#[test]
fn halting_records_of_a_target_precision_are_read_with_early_target() {
    let dir = temp_dir("early-target");
    let record = record(&dir);
    // The sweep's τ 0.9 rows (nothing halts) and, as `early --records --target-precision 0.8`
    // writes them, rows at P 0.8 (no τ; each fold's τ_s, τ_f) that halt A and B the wrong way round.
    let none = halts(&dir, "none.csv", false, |_, _| 0);
    let wrong = halts(&dir, "wrong.csv", true, |system, t| {
        u8::from(if system == "A" { t < 5 } else { t < 15 })
    });
    let mut text = std::fs::read_to_string(&none)
        .expect("none")
        .replace(
            "tau,system",
            "tau,target_precision,tau_success,tau_failure,system",
        )
        .replace("\n0.9,", "\n0.9,,0.9,0.9,");
    for line in std::fs::read_to_string(&wrong)
        .expect("wrong")
        .lines()
        .skip(1)
    {
        text.push_str(&line.replacen("0.9,", ",0.8,0.93,0.88,", 1));
        text.push('\n');
    }
    let both = dir.join("both.csv");
    std::fs::write(&both, text).expect("write");
    let (record, both) = (record.to_string_lossy(), both.to_string_lossy());
    let common = [
        "replay",
        &record,
        "--early",
        &both,
        "--format",
        "json",
        "--orders",
        "50",
        "--thresholds",
        "0",
    ];
    // τ 0.9 is the file's only τ (the target rows carry none): nothing halts, nothing is wrong.
    let plain = json_rows(&common);
    assert_eq!(plain.last().expect("rows")["frr"].as_f64(), Some(0.0));
    let target = json_rows(&[&common[..], &["--early-target", "0.8"]].concat());
    let last = target.last().expect("rows");
    assert_eq!(last["frr"].as_f64(), Some(1.0), "{last}");
    let out = pareval(&["replay", &record, "--early", &both, "--early-target", "0.8"]);
    assert!(
        stdout(&out).contains("early-stopped at target precision 0.8"),
        "{}",
        stdout(&out)
    );
    assert_refused(
        &pareval(&[
            "replay",
            &record,
            "--early",
            &both,
            "--early-target",
            "0.95",
        ]),
        "no halting records at target precision 0.95 (the file has 0.8",
    );
}
