//! The saved early predictor end to end (issue 21): `early --save-model`, `halt` on finished and on
//! growing steps files (the same answers), the refusals (not a model, another version, a file cut
//! short, a steps file without a column the model learned from, steps out of order), target
//! precision in `early`'s JSON, and the shared Terminal-Bench trajectories played back as a growing
//! file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{assert_refused, fixture, pareval, shared_data, stderr, stdout, temp_dir};

/// Three systems × 24 tasks: successes run tests and see fewer errors. Returns (steps, outcomes).
fn synthetic(dir: &Path) -> (PathBuf, PathBuf) {
    let mut steps = String::from("system,task,run,step,action,observation_chars,is_error,text\n");
    let mut outcomes = String::from("system,task,run,outcome,steps\n");
    let mut state: u64 = 12345;
    let mut draw = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    for system in 0..3 {
        for task in 0..24 {
            let success = draw(4) < 1 + system;
            let length = 5 + draw(8);
            for k in 1..=length {
                let d = draw(10);
                let action = if success && d < 6 {
                    "pytest -q"
                } else {
                    "ls -la"
                };
                let error = u8::from(!success && d < 7);
                steps.push_str(&format!(
                    "sys{system},task{task},0,{k},{action},{},{error},step {k}\n",
                    d * 100 + k
                ));
            }
            outcomes.push_str(&format!(
                "sys{system},task{task},0,{},{length}\n",
                u8::from(success)
            ));
        }
    }
    let (s, o) = (dir.join("steps.csv"), dir.join("outcomes.csv"));
    std::fs::write(&s, steps).expect("steps");
    std::fs::write(&o, outcomes).expect("outcomes");
    (s, o)
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Trains and saves a small model on the synthetic trajectories.
fn saved_model(dir: &Path) -> (PathBuf, PathBuf) {
    let (steps, outcomes) = synthetic(dir);
    let model = dir.join("model.json");
    let out = pareval(&[
        "early",
        &text(&steps),
        &text(&outcomes),
        "--save-model",
        &text(&model),
        "--no-sweep",
        "--trees",
        "8",
        "--min-steps",
        "2",
        "--save-tau",
        "0.7",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("saved model:"), "{}", stdout(&out));
    (model, steps)
}

#[test]
fn halt_scores_a_finished_and_a_growing_steps_file_alike() {
    let dir = temp_dir("halt-follow");
    let (model, steps) = saved_model(&dir);
    let batch = pareval(&["halt", &text(&model), &text(&steps), "--format", "csv"]);
    assert!(batch.status.success(), "{}", stderr(&batch));
    let batch = stdout(&batch);
    let rows: Vec<&str> = batch.lines().skip(1).collect();
    assert_eq!(rows.len(), 72, "one row per trajectory");
    assert!(rows.iter().any(|r| r.contains("halt ")), "{batch}");
    // The same steps appended in chunks (the last line written in two goes) while --follow reads.
    let growing = dir.join("growing.csv");
    let all = std::fs::read_to_string(&steps).expect("steps");
    let (header, body) = all.split_once('\n').expect("header");
    std::fs::write(&growing, format!("{header}\n")).expect("header");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pareval"))
        .args(["halt", &text(&model), &text(&growing), "--follow"])
        .args(["--format", "jsonl", "--idle-exit", "1.5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start halt --follow");
    let lines: Vec<&str> = body.lines().collect();
    for chunk in lines.chunks(150) {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&growing)
            .expect("open");
        let text = chunk.join("\n") + "\n";
        let (a, b) = text.split_at(text.len() - 5);
        file.write_all(a.as_bytes()).expect("append");
        file.flush().expect("flush");
        std::thread::sleep(Duration::from_millis(120));
        file.write_all(b.as_bytes()).expect("append");
        std::thread::sleep(Duration::from_millis(120));
    }
    // A repeated step: named with file and line, the trajectory scored no further.
    let repeat = format!("{}\n", lines[0]);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&growing)
        .expect("open")
        .write_all(repeat.as_bytes())
        .expect("append");
    let started = Instant::now();
    let output = loop {
        if child.try_wait().expect("wait").is_some() {
            break child.wait_with_output().expect("output");
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "halt --follow never stopped"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    // The repeated line is refused in a finished file; a follow that met it ends as that does,
    // exit 2 naming it, after the answers it gave meanwhile (it ended 0 without a word).
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let followed = stdout(&output);
    let problems = stderr(&output);
    assert!(
        problems.contains(&format!(
            "{}, line {}: (sys0, task0, run 0) repeats step 1",
            text(&growing),
            lines.len() + 2
        )),
        "{problems}"
    );
    assert!(
        problems
            .contains("error: 1 line or step of the followed files was not scored (the first: "),
        "{problems}"
    );
    // Each trajectory printed when first seen and once more if it halts later; the latest line of
    // each is its state at the end, equal to the batch answer.
    let mut last: std::collections::BTreeMap<(String, String), serde_json::Value> =
        std::collections::BTreeMap::new();
    let mut printed = 0;
    for line in followed.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json line");
        printed += 1;
        last.insert(
            (
                v["system"].as_str().unwrap_or("").to_string(),
                v["task"].as_str().unwrap_or("").to_string(),
            ),
            v,
        );
    }
    assert_eq!(last.len(), 72);
    let halts = rows.iter().filter(|r| r.contains(",halt ")).count();
    assert!((72..=72 + halts).contains(&printed), "{printed}");
    for row in &rows {
        let cells: Vec<&str> = row.split(',').collect();
        let v = &last[&(cells[0].to_string(), cells[1].to_string())];
        assert_eq!(v["action"], cells[6], "{row}");
        assert_eq!(
            v["halt_step"]
                .as_u64()
                .map(|s| s.to_string())
                .unwrap_or_default(),
            cells[7],
            "{row}"
        );
        if cells[6] == "continue" {
            // A trajectory that never halts is printed once, at its first step.
            assert_eq!(v["steps"], 1, "{row}");
        }
    }
}

#[test]
fn halt_follow_reads_a_last_line_without_a_line_end_once_idle() {
    // A steps file whose last line (a new trajectory's first step) has no line end, as a writer that
    // joins its lines with "\n" leaves it: `halt` on the file reads it, and `halt --follow` named it
    // while it waited and read it when --idle-exit took the writer to have ended (it never did).
    let dir = temp_dir("halt-last-line");
    let (model, steps) = saved_model(&dir);
    let file = dir.join("unended.csv");
    let all = std::fs::read_to_string(&steps).expect("steps");
    std::fs::write(&file, format!("{all}sys9,late,0,1,ls -la,100,0,step 1")).expect("write");
    let batch = stdout(&pareval(&[
        "halt",
        &text(&model),
        &text(&file),
        "--format",
        "csv",
    ]));
    assert_eq!(batch.lines().count(), 1 + 73, "{batch}");
    let followed = pareval(&[
        "halt",
        &text(&model),
        &text(&file),
        "--follow",
        "--format",
        "jsonl",
        "--idle-exit",
        "3",
    ]);
    assert!(followed.status.success(), "{}", stderr(&followed));
    let lines = stdout(&followed);
    assert!(
        lines.lines().any(|l| l.contains("\"task\":\"late\"")),
        "{lines}"
    );
    assert!(
        stderr(&followed).contains(&format!(
            "note: {}, line {} has no line end yet: left unread until it gets one",
            text(&file),
            all.lines().count() + 1
        )),
        "{}",
        stderr(&followed)
    );
}

#[test]
fn halt_lists_trajectories_by_name_whatever_the_steps_file_s_order() {
    // It listed them in the file's order: the order a harness finished them in.
    let dir = temp_dir("halt-order");
    let (model, steps) = saved_model(&dir);
    let all = std::fs::read_to_string(&steps).expect("steps");
    let (header, body) = all.split_once('\n').expect("header");
    let mut rows: Vec<&str> = body.lines().collect();
    // Trajectories in reverse order of task and system, each one's steps kept in order.
    rows.sort_by_key(|row| {
        let cells: Vec<&str> = row.splitn(3, ',').collect();
        std::cmp::Reverse((cells[1].to_string(), cells[0].to_string()))
    });
    let shuffled = dir.join("reordered.csv");
    std::fs::write(&shuffled, format!("{header}\n{}\n", rows.join("\n"))).expect("write");
    for format in ["csv", "jsonl", "text"] {
        let run = |path: &Path| {
            let out = pareval(&["halt", &text(&model), &text(path), "--format", format]);
            assert!(out.status.success(), "{}", stderr(&out));
            stdout(&out).replace(&text(path), "FILE")
        };
        assert_eq!(run(&steps), run(&shuffled), "{format}");
    }
}

#[test]
fn halt_refuses_what_it_cannot_score() {
    let dir = temp_dir("halt-refusals");
    let (model, steps) = saved_model(&dir);
    let text_of = std::fs::read_to_string(&model).expect("model");
    let cut = dir.join("cut.json");
    std::fs::write(&cut, &text_of[..text_of.len() / 3]).expect("cut");
    assert_refused(
        &pareval(&["halt", &text(&cut), &text(&steps)]),
        "ends early",
    );
    let newer = dir.join("newer.json");
    std::fs::write(
        &newer,
        text_of.replacen("\"version\":1", "\"version\":7", 1),
    )
    .expect("newer");
    assert_refused(
        &pareval(&["halt", &text(&newer), &text(&steps)]),
        "model file version 7",
    );
    assert_refused(
        &pareval(&["halt", &text(&steps), &text(&steps)]),
        "not a pareval early model",
    );
    // A tree dropped from the failure model: the file parses, its fitted parts no longer match.
    let mut value: serde_json::Value = serde_json::from_str(&text_of).expect("json");
    value["failure"]["booster"]["trees"]
        .as_array_mut()
        .expect("trees")
        .pop();
    let pruned = dir.join("pruned.json");
    std::fs::write(&pruned, value.to_string()).expect("pruned");
    let output = pareval(&["halt", &text(&pruned), &text(&steps)]);
    assert_refused(&output, "the model file is damaged: its fitted parts");
    assert!(
        stderr(&output).contains("pruned.json"),
        "{}",
        stderr(&output)
    );
    // A steps file without the error flag the model learned from.
    let all = std::fs::read_to_string(&steps).expect("steps");
    let without: String = all
        .lines()
        .map(|l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells.remove(6);
            cells.join(",") + "\n"
        })
        .collect();
    let no_flag = dir.join("no_flag.csv");
    std::fs::write(&no_flag, without).expect("no flag");
    assert_refused(
        &pareval(&["halt", &text(&model), &text(&no_flag)]),
        "trained on steps with is_error, which this file lacks (rename a column with --col is_error=NAME)",
    );
    // A misspelled --col source (the file has the target column): refused, read whole or followed.
    for follow in [false, true] {
        let mut args = vec!["halt", "--col", "is_error=is_eror"];
        let (model_text, steps_text) = (text(&model), text(&steps));
        args.extend([model_text.as_str(), steps_text.as_str()]);
        if follow {
            args.push("--follow");
        }
        assert_refused(&pareval(&args), "--col is_error=is_eror:");
    }
    // A gap in the step numbers: file, trajectory and line.
    let gap = dir.join("gap.csv");
    let mut lines: Vec<&str> = all.lines().collect();
    lines.remove(2);
    std::fs::write(&gap, lines.join("\n") + "\n").expect("gap");
    assert_refused(
        &pareval(&["halt", &text(&model), &text(&gap)]),
        "(sys0, task0, run 0) jumps to step 3",
    );
    // Followed, the gap is named when the follow ends, and so ends it: exit 2.
    assert_refused(
        &pareval(&[
            "halt",
            &text(&model),
            &text(&gap),
            "--follow",
            "--idle-exit",
            "0.5",
        ]),
        &format!(
            "{}, line 3: (sys0, task0, run 0) jumps to step 3 (step 2 is missing)",
            text(&gap)
        ),
    );
    // Two steps written out of order: a finished file is scored in step order, and a followed
    // one now ends where it does (it abandoned the trajectory as 'continue', exit 0).
    let swapped = dir.join("swapped.csv");
    let mut lines: Vec<&str> = all.lines().collect();
    lines.swap(2, 3);
    std::fs::write(&swapped, lines.join("\n") + "\n").expect("swapped");
    let summary = |extra: &[&str]| {
        let mut args = vec!["halt".to_string(), text(&model), text(&swapped)];
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = pareval(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(
            !stderr(&output).contains("not scored"),
            "{}",
            stderr(&output)
        );
        stdout(&output)
            .lines()
            .last()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(summary(&["--follow", "--idle-exit", "0.5"]), summary(&[]));
    // A path that never appears ends the follow with exit 2 (it ended 0 in silence).
    let typo = dir.join("stpes.csv");
    assert_refused(
        &pareval(&[
            "halt",
            &text(&model),
            &text(&typo),
            "--follow",
            "--idle-exit",
            "0.5",
        ]),
        "stpes.csv never appeared: nothing was read from it",
    );
    // Ctrl-C, the README's way to stop following: the closing count, then 128 + SIGINT (the
    // signal ended the process before it printed anything).
    let child = Command::new(env!("CARGO_BIN_EXE_pareval"))
        .args(["halt", &text(&model), &text(&steps), "--follow"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start halt --follow");
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let output = child.wait_with_output().expect("output");
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(
        stdout(&output)
            .lines()
            .last()
            .is_some_and(|l| l.contains("trajectories: ") && l.contains("halt failure")),
        "{}",
        stdout(&output)
    );
    assert_refused(
        &pareval(&["halt", &text(&model), &text(&steps), "--tau", "0.3"]),
        "--tau: '0.3' must be in (0.5, 1]",
    );
    // An unknown system is scored, with a note.
    let renamed = dir.join("renamed.csv");
    std::fs::write(&renamed, all.replace("sys0,", "newcomer,")).expect("renamed");
    let out = pareval(&["halt", &text(&model), &text(&renamed)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not among the model's 3 training systems (newcomer)"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("72 trajectories:"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn early_reports_target_precision_per_model_in_json() {
    let dir = temp_dir("halt-early-target");
    let (steps, outcomes) = synthetic(&dir);
    let out = pareval(&[
        "early",
        &text(&steps),
        &text(&outcomes),
        "--trees",
        "8",
        "--min-steps",
        "2",
        "--tau",
        "0.8,0.9",
        "--target-precision",
        "0.8,0.9",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let results = v["results"].as_array().expect("results");
    for r in results {
        let halted = r["success_halts"].as_u64().expect("count")
            + r["failure_halts"].as_u64().expect("count");
        let coverage = r["coverage"].as_f64().expect("coverage");
        assert_eq!(halted, (coverage * 72.0).round() as u64, "{r}");
    }
    let targets = v["target"].as_array().expect("target");
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[0]["precision"], 0.8);
    let folds = targets[0]["folds"].as_array().expect("folds");
    assert_eq!(folds.len(), 3);
    assert_eq!(folds[0]["grouping"], "system");
    for model in ["success", "failure"] {
        let m = &targets[0][model];
        assert!(
            m["halts"].as_u64().is_some() && m["steps_saved"].as_f64().is_some(),
            "{m}"
        );
    }
}

/// The shared Terminal-Bench trajectories: a model saved on them scores every one of their
/// trajectories, and halting by a target nobody can reach never halts.
#[test]
fn halt_on_the_shared_terminal_bench_trajectories() {
    let Some(root) = shared_data() else {
        return;
    };
    let tb = root.join("trajectories/terminal_bench");
    let dir = temp_dir("halt-tb");
    let model = dir.join("tb.json");
    let out = pareval(&[
        "early",
        &text(&tb.join("steps.csv")),
        &text(&tb.join("outcomes.csv")),
        "--save-model",
        &text(&model),
        "--no-sweep",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = pareval(&["halt", &text(&model), &text(&tb.join("steps.csv"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text_out = stdout(&out);
    // The header counts the trajectories the model learned from, as `early --save-model` said it
    // (490 of 543 are long enough); it said "trained on 543".
    assert!(
        text_out.contains("halt: model trained on 490 of 543 trajectories of 2 systems"),
        "{text_out}"
    );
    let summary = text_out.lines().last().expect("summary");
    assert!(
        summary.starts_with("543 trajectories: 0 halt success, "),
        "{summary}"
    );
    let out = pareval(&[
        "halt",
        &text(&model),
        &text(&tb.join("steps.csv")),
        "--target-precision",
        "1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("target precision 1 on the saved inner split"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn early_checks_its_output_files_before_it_fits_anything() {
    // On BALROG the fit takes minutes; an unwritable --records or --save-model was found after it.
    let steps = text(&fixture("trajectories/steps_ok.csv"));
    let outcomes = text(&fixture("trajectories/outcomes_ok.csv"));
    for (flag, path, said) in [
        (
            "--records",
            "/nonexistent/halts.csv",
            "the folder /nonexistent does not exist",
        ),
        (
            "--save-model",
            "/nonexistent/m.model",
            "the folder /nonexistent does not exist",
        ),
        (
            "--predictions",
            "predictions.xlsx",
            "predictions.xlsx: unknown file type",
        ),
    ] {
        let output = pareval(&["early", &steps, &outcomes, flag, path]);
        assert_refused(&output, said);
    }
}

/// A model's check of a steps file's columns counts only those its feature families read: a model
/// without the textual and milestone families never reads `text`, and refused a file without it
/// ("trained on steps with text, which this file lacks"); one with them still refuses it.
#[test]
fn halt_asks_only_for_the_columns_the_model_s_families_read() {
    let dir = temp_dir("halt-columns-read");
    let (steps, outcomes) = synthetic(&dir);
    let train = |name: &str, without: &str| {
        let model = dir.join(name);
        let out = pareval(&[
            "early",
            &text(&steps),
            &text(&outcomes),
            "--save-model",
            &text(&model),
            "--no-sweep",
            "--trees",
            "8",
            "--min-steps",
            "2",
            "--without",
            without,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        model
    };
    let no_text_families = train("no_text.json", "textual,milestones");
    let with_text = train("with_text.json", "actions");
    // The steps without their text column.
    let all = std::fs::read_to_string(&steps).expect("steps");
    let cut: String = all
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_string() + "\n")
        .collect();
    let textless = dir.join("textless.csv");
    std::fs::write(&textless, cut).expect("textless");
    let scored = pareval(&["halt", &text(&no_text_families), &text(&textless)]);
    assert!(scored.status.success(), "{}", stderr(&scored));
    // The same answers as on the file with its text, which that model never reads.
    let full = pareval(&["halt", &text(&no_text_families), &text(&steps)]);
    assert_eq!(stdout(&scored), stdout(&full));
    assert_refused(
        &pareval(&["halt", &text(&with_text), &text(&textless)]),
        "trained on steps with text, which this file lacks",
    );
}

/// What `early` found only after training, or never: a folder named by --save-model (found after
/// the sweep, the records already written), the sweep's outputs and settings beside --no-sweep (left
/// unread, exit 0), a τ given twice (records `replay --early` then refused).
#[test]
fn early_refuses_before_training_what_it_would_not_write_or_read() {
    let dir = temp_dir("early-refusals");
    let (steps, outcomes) = synthetic(&dir);
    let (steps, outcomes) = (text(&steps), text(&outcomes));
    let folder = dir.join("models");
    std::fs::create_dir(&folder).expect("folder");
    let records = text(&dir.join("records.csv"));
    assert_refused(
        &pareval(&[
            "early",
            &steps,
            &outcomes,
            "--records",
            &records,
            "--save-model",
            &text(&folder),
        ]),
        "--save-model names a folder; give a file's path",
    );
    assert!(
        !dir.join("records.csv").exists(),
        "nothing written before the refusal"
    );
    let model = text(&dir.join("m.model"));
    for (flag, value) in [
        ("--records", records.as_str()),
        ("--tau", "0.8"),
        ("--delta", "5"),
    ] {
        assert_refused(
            &pareval(&[
                "early",
                &steps,
                &outcomes,
                "--save-model",
                &model,
                "--no-sweep",
                flag,
                value,
            ]),
            &format!("the argument '--no-sweep' cannot be used with '{flag}"),
        );
    }
    assert_refused(
        &pareval(&[
            "early",
            &steps,
            &outcomes,
            "--save-model",
            &model,
            "--no-sweep",
            "--format",
            "csv",
        ]),
        "--no-sweep prints the saved model's summary as text or json",
    );
    assert_refused(
        &pareval(&["early", &steps, &outcomes, "--tau", "0.65,0.65"]),
        "--tau: 0.65 is given twice",
    );
    assert!(!dir.join("m.model").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `halt --follow` said nothing of systems the model never trained on, where `halt` on the finished
/// file notes them (the README promises both).
#[test]
fn halt_follow_notes_systems_the_model_never_trained_on() {
    let dir = temp_dir("halt-follow-unknown");
    let (model, steps) = saved_model(&dir);
    let text_of = std::fs::read_to_string(&steps).expect("steps");
    let other: String = text_of
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                line.to_string()
            } else {
                line.replacen("sys0", "other", 1)
            }
        })
        .filter(|line| !line.starts_with("sys") || line.starts_with("system,"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let path = dir.join("other.csv");
    std::fs::write(&path, other).expect("write");
    let output = pareval(&[
        "halt",
        &text(&model),
        &text(&path),
        "--follow",
        "--idle-exit",
        "0.5",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("1 system(s) not among the model's 3 training systems (other)"),
        "{}",
        stderr(&output)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Few trajectories: once the calibration share is held out, a fold's trees may see one outcome
/// only, and `early` stopped with an internal message ("copying the success model: invalid type:
/// null, expected f64"). It says what happened and what helps.
#[test]
fn early_says_when_a_fold_s_trees_see_one_outcome() {
    let dir = temp_dir("early-one-outcome-fold");
    let mut steps = String::from("system,task,run,step,action,is_error\n");
    let mut outcomes = String::from("system,task,run,outcome,steps\n");
    for system in ["A", "B", "C"] {
        for task in 0..4 {
            let success = task == 0;
            for step in 1..=10 {
                let (action, error) = if success { ("pytest", 0) } else { ("ls", 1) };
                steps.push_str(&format!("{system},t{task},0,{step},{action},{error}\n"));
            }
            outcomes.push_str(&format!("{system},t{task},0,{},10\n", u8::from(success)));
        }
    }
    let (s, o) = (dir.join("steps.csv"), dir.join("outcomes.csv"));
    std::fs::write(&s, steps).expect("steps");
    std::fs::write(&o, outcomes).expect("outcomes");
    assert_refused(
        &pareval(&["early", &text(&s), &text(&o)]),
        "trajectories left for the trees once a calibration share is held out all end the same way",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// halt lists runs by number, as early does: as text, run 10 came before run 2.
#[test]
fn halt_lists_runs_by_number() {
    let dir = temp_dir("halt-run-order");
    let (model, steps) = saved_model(&dir);
    let text_of = std::fs::read_to_string(&steps).expect("steps");
    let mut lines = text_of.lines();
    let mut runs = String::from(lines.next().expect("header"));
    runs.push('\n');
    let first: Vec<&str> = lines.filter(|l| l.starts_with("sys0,task0,0,")).collect();
    for run in ["10", "2"] {
        for line in &first {
            runs.push_str(&line.replacen("sys0,task0,0,", &format!("sys0,task0,{run},"), 1));
            runs.push('\n');
        }
    }
    let path = dir.join("runs.csv");
    std::fs::write(&path, runs).expect("write");
    let output = pareval(&["halt", &text(&model), &text(&path), "--format", "csv"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let listed: Vec<String> = stdout(&output)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).expect("run").to_string())
        .collect();
    assert_eq!(listed, ["2", "10"]);
    let _ = std::fs::remove_dir_all(&dir);
}
