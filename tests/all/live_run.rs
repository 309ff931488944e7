//! The live readers of a real run (issue 27): plan-prefix reading in `decide`'s records, `decide` on a
//! folder as `watch` reads it, `plan --ids`, `serve`'s JSON Lines protocol, and `pareval run` ending a
//! harness that ignores its first SIGINT.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{assert_refused, pareval, stderr, stdout, temp_dir};

/// A plan of `n` tasks t000…, one group, in file order.
fn write_plan(dir: &Path, n: usize) -> String {
    let mut text = String::from("task\n");
    for i in 0..n {
        text.push_str(&format!("t{i:03}\n"));
    }
    let path = dir.join("plan.csv");
    std::fs::write(&path, text).expect("plan");
    path.display().to_string()
}

/// A task list of `n` tasks q00, q01, … in `groups` groups dealt in turn, for `pareval plan`.
fn write_task_list(dir: &Path, n: usize, groups: usize) -> std::path::PathBuf {
    let mut text = String::from("task,group\n");
    for i in 0..n {
        text.push_str(&format!("q{i:02},g{}\n", i % groups));
    }
    let path = dir.join("tasks.csv");
    std::fs::write(&path, text).expect("tasks");
    path
}

/// A refused request's error message ("" for a reply that is not an error).
fn error(reply: &Value) -> &str {
    reply["error"].as_str().unwrap_or_default()
}

/// `pareval run OUT --plan PLAN --tested new --baseline old` followed by `rest` (options, `--`, the
/// harness).
fn run_new_against_old(out: &Path, plan: &str, rest: &[&str]) -> std::process::Output {
    let out = out.display().to_string();
    let mut args = vec![
        "run",
        &out,
        "--plan",
        plan,
        "--tested",
        "new",
        "--baseline",
        "old",
    ];
    args.extend_from_slice(rest);
    pareval(&args)
}

/// `pareval decide OUTCOMES --plan PLAN --tested A --baseline B --rule anytime` followed by `extra`.
fn decide_anytime(
    outcomes: &str,
    plan: &str,
    (tested, baseline): (&str, &str),
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "decide",
        outcomes,
        "--plan",
        plan,
        "--tested",
        tested,
        "--baseline",
        baseline,
        "--rule",
        "anytime",
    ];
    args.extend_from_slice(extra);
    pareval(&args)
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn decide_reads_the_plan_s_finished_prefix_and_names_what_it_waits_on() {
    let dir = temp_dir("prefix-decide");
    let plan = write_plan(&dir, 40);
    // B has every task; A has 0..10 and 12..30, not t010 and t011: ten tasks are usable, 28 finished.
    let mut rows = String::from("system,task,outcome\n");
    for i in 0..40 {
        rows.push_str(&format!("B,t{i:03},0\n"));
    }
    for i in (0..30).filter(|i| !(10..12).contains(i)) {
        rows.push_str(&format!("A,t{i:03},1\n"));
    }
    let outcomes = dir.join("so_far.csv");
    std::fs::write(&outcomes, rows).expect("rows");
    let outcomes = outcomes.display().to_string();
    // Without --rule, decide takes the primary preset's bootstrap, which needs a budget: the message
    // says so and names the rule the live commands take by default.
    assert_refused(
        &pareval(&[
            "decide",
            &outcomes,
            "--plan",
            &plan,
            "--tested",
            "A",
            "--baseline",
            "B",
        ]),
        "--budget is needed: the bootstrap rule is fixed-horizon, valid only when read once at its limit (the anytime rule needs none: --rule anytime, which watch, serve, run and pareval-inspect take by default)",
    );
    let args = |reading: &str| {
        vec![
            "decide".to_string(),
            outcomes.clone(),
            "--plan".into(),
            plan.clone(),
            "--tested".into(),
            "A".into(),
            "--baseline".into(),
            "B".into(),
            "--rule".into(),
            "anytime".into(),
            "--reading".into(),
            reading.into(),
        ]
    };
    let run = |reading: &str| {
        let args = args(reading);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = pareval(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        json_lines(&stdout(&output)).remove(0)
    };
    let prefix = run("prefix");
    assert_eq!(prefix["reading"], "plan-prefix");
    assert_eq!(prefix["observed"], 10);
    assert_eq!(prefix["finished"], 28);
    assert_eq!(prefix["waiting_on"]["task"], "t010");
    assert_eq!(prefix["waiting_on"]["systems"][0], "A");
    assert!(
        prefix["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("10 usable of 28 finished (waiting on t010 for A)")),
        "{}",
        prefix["reason"]
    );
    let finished = run("finished");
    assert_eq!(finished["reading"], "finished");
    assert_eq!(finished["observed"], 28);
    assert!(
        finished["validity"]
            .as_str()
            .is_some_and(|v| v.starts_with("descriptive")),
        "{}",
        finished["validity"]
    );
    // The text names both counts and the blocker.
    let mut text_args = args("prefix");
    text_args.extend(["--format".into(), "text".into()]);
    let text_args: Vec<&str> = text_args.iter().map(String::as_str).collect();
    let text = stdout(&pareval(&text_args));
    assert!(
        text.contains("10 of 40 planned tasks read, 28 finished"),
        "{text}"
    );
    assert!(text.contains("waiting on t010 for A"), "{text}");
    assert!(text.contains("reads the plan's finished prefix"), "{text}");
    // A reading that is neither is refused.
    let mut bad = args("everything");
    bad.truncate(bad.len());
    let bad: Vec<&str> = bad.iter().map(String::as_str).collect();
    assert_refused(&pareval(&bad), "--reading: 'everything' is not a reading");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn before_the_first_usable_row_the_gate_waits_rather_than_calls_coverage_infeasible() {
    let dir = temp_dir("first-rows");
    // Four groups, t000 first; A has finished t001 only, so the plan's prefix is empty.
    let mut text = String::from("task,group\n");
    for i in 0..40 {
        text.push_str(&format!("t{i:03},g{}\n", i % 4));
    }
    let plan = dir.join("grouped_plan.csv");
    std::fs::write(&plan, text).expect("plan");
    let mut rows = String::from("system,task,outcome\nA,t001,1\n");
    for i in 0..40 {
        rows.push_str(&format!("B,t{i:03},0\n"));
    }
    let outcomes = dir.join("so_far.csv");
    std::fs::write(&outcomes, rows).expect("rows");
    // `decide` on the rows so far against `plan`, in `format` (json or text).
    let decide_on = |plan: &Path, format: &str| {
        let output = decide_anytime(
            &outcomes.display().to_string(),
            &plan.display().to_string(),
            ("A", "B"),
            &["--format", format],
        );
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    };
    let decide_as = |format: &str| decide_on(&plan, format);
    let decide = || json_lines(&decide_as("json")).remove(0);
    let record = decide();
    assert_eq!(record["observed"], 0);
    assert_eq!(record["action"], "continue");
    assert_eq!(record["reason_code"], "coverage");
    let reason = record["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains(
            "no task observed yet; the coverage gate needs a task in each of the 4 groups"
        ),
        "{reason}"
    );
    assert!(!reason.contains("infeasible"), "{reason}");
    // A plan of one group needs just a task.
    let ungrouped = write_plan(&dir, 40);
    let one_group = json_lines(&decide_on(Path::new(&ungrouped), "json")).remove(0);
    assert_eq!(
        one_group["reason"],
        "0 usable of 1 finished (waiting on t000 for A); no task observed yet; the coverage gate needs a task"
    );
    let text = decide_as("text");
    assert!(
        text.contains("0 pp: continue (0 of 40 planned tasks read, 1 finished, coverage waiting for the first task)"),
        "{text}"
    );
    // Once rows arrive from fewer groups than the gate needs, it is named infeasible as before.
    let mut rows = String::from("system,task,outcome\nA,t000,1\nA,t001,1\n");
    for i in 0..40 {
        rows.push_str(&format!("B,t{i:03},0\n"));
    }
    std::fs::write(&outcomes, rows).expect("rows");
    let record = decide();
    assert_eq!(record["observed"], 2);
    let reason = record["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("coverage infeasible with 2 tasks observed: 4 groups each need one"),
        "{reason}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn decide_reads_a_folder_as_watch_follows_it() {
    let dir = temp_dir("decide-folder");
    let plan = write_plan(&dir, 20);
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).expect("logs");
    let mut a = String::from("system,task,outcome\n");
    let mut b = String::from("system,task,outcome\n");
    for i in 0..20 {
        a.push_str(&format!("A,t{i:03},1\n"));
        b.push_str(&format!("B,t{i:03},0\n"));
    }
    std::fs::write(logs.join("a.csv"), a).expect("a");
    std::fs::write(logs.join("notes.txt"), "not a result file").expect("notes");
    std::fs::write(logs.join("b.csv"), b).expect("b");
    let logs = logs.display().to_string();
    let output = pareval(&[
        "decide",
        &logs,
        "--plan",
        &plan,
        "--tested",
        "A",
        "--baseline",
        "B",
        "--rule",
        "anytime",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let record = json_lines(&stdout(&output)).remove(0);
    assert_eq!(record["observed"], 20);
    assert_eq!(record["action"], "promote");
    // An empty folder is named.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("empty");
    assert_refused(
        &pareval(&[
            "decide",
            &empty.display().to_string(),
            "--plan",
            &plan,
            "--tested",
            "A",
            "--baseline",
            "B",
        ]),
        "the folder holds no result files yet",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_ids_lists_the_tasks_in_plan_order() {
    let dir = temp_dir("plan-ids");
    let tasks = write_task_list(&dir, 30, 3);
    let out = dir.join("plan.csv");
    let ids = dir.join("ids.txt");
    let output = pareval(&[
        "plan",
        &tasks.display().to_string(),
        "--seed",
        "4",
        "--out",
        &out.display().to_string(),
        "--ids",
        &ids.display().to_string(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let listed: Vec<String> = std::fs::read_to_string(&ids)
        .expect("ids")
        .lines()
        .map(str::to_string)
        .collect();
    let plan = std::fs::read_to_string(&out).expect("plan");
    let mut header = plan.lines().next().expect("header").split(',');
    let task_col = header.position(|c| c == "task").expect("task column");
    let planned: Vec<String> = plan
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(task_col).expect("task").to_string())
        .collect();
    assert_eq!(listed, planned);
    assert_eq!(listed.len(), 30);
    // Not the file's order: the stratified plan interleaves the groups.
    assert_ne!(listed[..3], ["q00", "q01", "q02"]);
    // An --ids (or --out) that cannot be written is refused before either file is: the plan was
    // written and left behind, the error a bare "No such file or directory" naming no flag.
    for (plan_at, ids_at, said) in [
        (
            dir.join("p2.csv"),
            dir.join("nowhere").join("ids.txt"),
            format!(
                "--ids: the folder {} does not exist (nothing was written)",
                dir.join("nowhere").display()
            ),
        ),
        (
            dir.join("p3.csv"),
            dir.clone(),
            "--ids names a folder; give a file's path".to_string(),
        ),
        (
            dir.join("nowhere").join("p4.csv"),
            dir.join("ids4.txt"),
            format!(
                "--out: the folder {} does not exist (nothing was written)",
                dir.join("nowhere").display()
            ),
        ),
    ] {
        let refused = pareval(&[
            "plan",
            &tasks.display().to_string(),
            "--out",
            &plan_at.display().to_string(),
            "--ids",
            &ids_at.display().to_string(),
        ]);
        assert_refused(&refused, &said);
        assert!(!plan_at.exists(), "{} left behind", plan_at.display());
        assert!(!dir.join("ids4.txt").exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_live_decision_names_the_seed_its_plan_was_drawn_with() {
    let dir = temp_dir("plan-seed");
    let tasks = write_task_list(&dir, 40, 2);
    let plan = dir.join("plan.csv").display().to_string();
    let output = pareval(&[
        "plan",
        &tasks.display().to_string(),
        "--seed",
        "3",
        "--out",
        &plan,
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let mut rows = String::from("system,task,outcome\n");
    for i in 0..40 {
        rows.push_str(&format!("new,q{i:02},1\nold,q{i:02},0\n"));
    }
    let outcomes = dir.join("so_far.csv");
    std::fs::write(&outcomes, rows).expect("rows");
    let outcomes = outcomes.display().to_string();
    let decide = |extra: &[&str]| {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        decide_anytime(&outcomes, &plan, ("new", "old"), &args)
    };
    // The record names the order's seed (SPEC §8), not a default of 0.
    for extra in [&[][..], &["--seed", "3"][..]] {
        let output = decide(extra);
        assert!(output.status.success(), "{}", stderr(&output));
        let records = json_lines(&stdout(&output));
        assert!(!records.is_empty());
        assert!(records.iter().all(|r| r["seed"] == 3), "{records:?}");
    }
    assert_refused(
        &decide(&["--seed", "5"]),
        "--seed 5: the plan was drawn with seed 3",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A system whose name holds a comma could not be a baseline: `--baseline` split it in two, and the
/// error suggested the same name again. `\,` is a comma inside a name, and the suggestion says so.
#[test]
fn a_baseline_named_with_a_comma_is_written_with_an_escaped_comma() {
    let dir = temp_dir("baseline-comma");
    let plan = write_plan(&dir, 3);
    let rows = dir.join("rows.csv");
    std::fs::write(
        &rows,
        "system,task,outcome\nnew,t000,1\n\"old, v2\",t000,0\nnew,t001,1\n\"old, v2\",t001,0\n",
    )
    .expect("rows");
    let rows = rows.display().to_string();
    // Split at its comma, the name is two systems, one close to a system with rows: refused as a
    // typo, naming what was meant.
    let split = decide_anytime(&rows, &plan, ("new", "old, v2"), &[]);
    assert_refused(
        &split,
        "--baseline 'old' is not a system of the records; did you mean 'old\\, v2'?",
    );
    let escaped = decide_anytime(&rows, &plan, ("new", "old\\, v2"), &["--format", "text"]);
    assert_eq!(escaped.status.code(), Some(0), "{}", stderr(&escaped));
    assert!(stdout(&escaped).contains("0 pp: "), "{}", stdout(&escaped));
    // Several baselines still split at commas.
    assert_eq!(
        pareval::cli::args::split_names("a, b\\, c,d"),
        ["a", "b, c", "d"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A refused request leaves nothing behind: a second outcome carrying `runs` registered those runs
/// as due (a later request with its own count was refused as "4 runs said due, after 3"). And −0.0
/// after 0 is the same outcome, not a second one.
#[test]
fn serve_keeps_nothing_of_a_refused_outcome_and_reads_minus_zero_as_zero() {
    let dir = temp_dir("serve-refused");
    let plan = write_plan(&dir, 3);
    let replies = serve_replies(
        &["--plan", &plan, "--tested", "new", "--baseline", "old"],
        &[
            r#"{"op":"outcome","system":"new","task":"t000","run":0,"outcome":0.5,"runs":4}"#,
            r#"{"op":"outcome","system":"new","task":"t000","run":0,"outcome":1,"runs":3}"#,
            r#"{"op":"outcome","system":"new","task":"t000","run":1,"outcome":1,"runs":4}"#,
            r#"{"op":"outcome","system":"old","task":"t001","run":0,"outcome":0}"#,
            r#"{"op":"outcome","system":"old","task":"t001","run":0,"outcome":-0.0}"#,
        ],
    );
    assert!(
        error(&replies[1]).contains("a second outcome"),
        "{}",
        replies[1]
    );
    assert_eq!(replies[2]["ok"], true, "{}", replies[2]);
    assert_eq!(replies[4]["ok"], true, "{}", replies[4]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_refuses_a_request_key_its_op_does_not_read_and_names_a_bad_id_s_key() {
    let dir = temp_dir("serve-keys");
    let plan = write_plan(&dir, 3);
    let replies = serve_replies(
        &["--plan", &plan, "--tested", "new", "--baseline", "old"],
        &[
            r#"{"op":"decide","threshold":5}"#,
            r#"{"op":"plan","order":"uniform"}"#,
            r#"{"op":"check","tasks":["t000"],"task":["t001"]}"#,
            r#"{"op":"decide"}"#,
            r#"{"op":"check","tasks":["t000"]}"#,
            r#"{"op":"outcome","system":"new","task":"t000","run":null,"outcome":1}"#,
            r#"{"op":"check","tasks":["t000",true]}"#,
        ],
    );
    // A bad id is named with its key (the message said only "null is not an id").
    assert!(
        error(&replies[5]).contains("outcome \"run\": null is not an id"),
        "{}",
        replies[5]
    );
    assert!(
        error(&replies[6]).contains("check \"tasks\": true is not an id"),
        "{}",
        replies[6]
    );
    // A threshold sent to decide was passed over: the reply was the command line's policy.
    assert!(
        error(&replies[0]).contains("decide: 'threshold' is not one of its keys (op)"),
        "{}",
        replies[0]
    );
    assert!(
        error(&replies[1]).contains("plan: 'order' is not one of its keys (op)"),
        "{}",
        replies[1]
    );
    assert!(
        error(&replies[2]).contains("check: 'task' is not one of its keys (op, tasks)"),
        "{}",
        replies[2]
    );
    assert_eq!(replies[3]["ok"], true, "{}", replies[3]);
    assert_eq!(
        replies[4]["missing"],
        serde_json::json!(["t001", "t002"]),
        "{}",
        replies[4]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_answers_json_lines_and_decides_as_decide_does() {
    let dir = temp_dir("serve");
    let plan = write_plan(&dir, 60);
    // The baseline's completed run: fails everything.
    let mut base = String::from("system,task,outcome\n");
    for i in 0..60 {
        base.push_str(&format!("old,t{i:03},0\n"));
    }
    let baseline = dir.join("baseline.csv");
    std::fs::write(&baseline, base).expect("baseline");
    let mut requests = vec![
        r#"{"op":"plan"}"#.to_string(),
        r#"{"op":"check","tasks":["t000","t001","nope"]}"#.to_string(),
        // t001 arrives before t000: it waits.
        r#"{"op":"outcome","system":"new","task":"t001","run":0,"outcome":1}"#.to_string(),
        r#"{"op":"outcome","system":"new","task":"elsewhere","run":0,"outcome":1}"#.to_string(),
        r#"{"op":"outcome","system":"new","task":"t001","run":0,"outcome":0}"#.to_string(),
        r#"{"op":"outcome","system":"new","task":"t002","outcome":1.5}"#.to_string(),
        // The same outcome again (a retrying integration) is taken once; an unknown system is not.
        r#"{"op":"outcome","system":"new","task":"t001","run":0,"outcome":1}"#.to_string(),
        r#"{"op":"outcome","system":"other","task":"t001","run":0,"outcome":1}"#.to_string(),
        "not json".to_string(),
        // A run left out is run 0, as `decide` reads an empty run: a second outcome, not a new run.
        r#"{"op":"outcome","system":"new","task":"t001","outcome":0}"#.to_string(),
        r#"{"op":"outcome","system":"new","task":"t001","run":0.0,"outcome":1}"#.to_string(),
        r#"{"op":"outcome","system":"new","task":"t002","run":-1,"outcome":1}"#.to_string(),
        // Two values for one key: refused, where serde_json kept the last.
        r#"{"op":"outcome","system":"new","task":"t040","run":0,"outcome":1,"outcome":0}"#
            .to_string(),
    ];
    for i in (0..30).filter(|&i| i != 1) {
        requests.push(format!(
            r#"{{"op":"outcome","system":"new","task":"t{i:03}","run":"0","outcome":true}}"#
        ));
    }
    requests.push(r#"{"op":"decide"}"#.to_string());
    let baseline_text = baseline.display().to_string();
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let replies = serve_replies(
        &[
            &baseline_text,
            "--plan",
            &plan,
            "--tested",
            "new",
            "--baseline",
            "old",
        ],
        &requests,
    );
    assert_eq!(replies[0]["total"], 60);
    assert_eq!(replies[0]["tested"], "new");
    assert_eq!(replies[0]["baselines"][0], "old");
    assert_eq!(replies[0]["tasks"][0], "t000");
    assert_eq!(replies[1]["unplanned"], serde_json::json!(["nope"]));
    assert_eq!(replies[1]["missing"].as_array().map(Vec::len), Some(58));
    assert_eq!(replies[2]["usable"], 0);
    assert_eq!(replies[2]["finished"], 1);
    assert_eq!(replies[2]["waiting_on"]["task"], "t000");
    assert_eq!(replies[2]["decided"], false);
    assert_eq!(replies[3]["ok"], false);
    assert!(error(&replies[3]).contains("'elsewhere' is not in the plan"));
    assert!(error(&replies[4]).contains("a second outcome"));
    assert!(error(&replies[5]).contains("not a number in [0, 1]"));
    assert_eq!(replies[6]["ok"], true);
    assert_eq!(replies[6]["finished"], 1);
    assert!(error(&replies[7]).contains("'other' is neither the tested system"));
    assert!(error(&replies[8]).contains("not a JSON object"));
    assert!(
        error(&replies[9]).contains("a second outcome for run '0' of new on t001"),
        "{}",
        replies[9]
    );
    assert_eq!(replies[10]["ok"], true);
    assert_eq!(replies[10]["finished"], 1);
    assert!(
        error(&replies[11])
            .contains("run '-1' is not a whole number ≥ 0 or a run id (new on t002)"),
        "{}",
        replies[11]
    );
    assert_eq!(
        error(&replies[12]),
        "the key \"outcome\" appears twice in the request"
    );
    let last = replies.last().expect("decide");
    assert_eq!(last["decided"], true, "{last}");
    assert_eq!(last["actions"][0]["action"], "promote");
    let record = &last["records"][0];
    assert_eq!(record["reading"], "plan-prefix");
    // The decision came before the 30th task; the summary names its look and what was read since.
    let at = record["decided_at"]
        .as_u64()
        .expect("a final decision names its look");
    assert!(at < 30, "{record}");
    assert_eq!(last["actions"][0]["decided_at"], at, "{last}");
    let summary = last["summary"].as_str().expect("summary");
    assert!(
        summary.contains(&format!(
            "promote after {at} of 60 planned tasks (seen at 30; "
        )),
        "{summary}"
    );
    // The same rows through `decide` give the same record.
    let mut rows = String::from("system,task,run,outcome\n");
    for i in 0..30 {
        rows.push_str(&format!("new,t{i:03},0,1\n"));
    }
    let so_far = dir.join("so_far.csv");
    std::fs::write(&so_far, rows).expect("rows");
    let so_far_text = so_far.display().to_string();
    let decide_args = [
        "decide",
        so_far_text.as_str(),
        baseline_text.as_str(),
        "--plan",
        &plan,
        "--tested",
        "new",
        "--baseline",
        "old",
        "--rule",
        "anytime",
    ];
    let decided = pareval(&decide_args);
    let from_decide = json_lines(&stdout(&decided)).remove(0);
    // The text says where the decision was made too.
    let text = stdout(&pareval(
        &[&decide_args[..], &["--format", "text"]].concat(),
    ));
    assert!(
        text.contains(&format!(
            "promote (30 of 60 planned tasks read, decided at {at}, coverage ok)"
        )),
        "{text}"
    );
    for key in [
        "action",
        "observed",
        "decided_at",
        "statistic",
        "reason",
        "estimate",
        "reason_at_decision",
    ] {
        assert_eq!(record[key], from_decide[key], "{key}");
    }
    // Why it decided at that look (its own statistic there), beside the current look's reason: the
    // summary gives the former, the text both.
    let then = record["reason_at_decision"]
        .as_str()
        .expect("an earlier decision says why it was made");
    assert!(then.starts_with("promote: "), "{then}");
    assert_ne!(then, record["reason"].as_str().expect("reason"), "{record}");
    assert!(
        summary.ends_with(&format!("(seen at 30; {then})")),
        "{summary}"
    );
    assert!(
        text.contains(&format!("  at the look that decided ({at}): {then}")),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_ends_a_harness_that_ignores_its_first_sigint() {
    let dir = temp_dir("run");
    let plan = write_plan(&dir, 200);
    let out = dir.join("out.csv");
    let log = dir.join("harness.log");
    // A harness that appends a strong and a weak system's rows slowly, ignores the first SIGINT
    // (and notes it), and would take 40 s to finish on its own.
    let script = format!(
        r#"trap 'echo "interrupted" >> {log}' INT
echo "$$" > {log}
echo "harness speaking"
echo "system,task,outcome" > {out}
for i in $(seq 0 199); do
  t=$(printf 't%03d' "$i")
  echo "new,$t,1" >> {out}
  echo "old,$t,0" >> {out}
  sleep 0.2
done
echo "finished" >> {log}
"#,
        log = log.display(),
        out = out.display()
    );
    let harness = dir.join("harness.sh");
    std::fs::write(&harness, script).expect("script");
    let started = std::time::Instant::now();
    let harness_text = harness.display().to_string();
    let output = run_new_against_old(&out, &plan, &["--grace", "1", "--", "bash", &harness_text]);
    let elapsed = started.elapsed().as_secs_f64();
    let text = stdout(&output);
    assert!(output.status.success(), "{}\n{text}", stderr(&output));
    assert!(text.contains("0 pp: promote"), "{text}");
    // Standard output is the records alone; the harness's own output went to standard error.
    assert!(
        stderr(&output).contains("harness speaking"),
        "{}",
        stderr(&output)
    );
    assert!(!text.contains("harness speaking"), "{text}");
    let note = stderr(&output);
    assert!(note.contains("the harness was ended (SIGTERM, "), "{note}");
    assert!(note.contains("not run"), "{note}");
    // The count is of what the harness had finished when it was ended (it went on writing rows
    // through the grace period), not of what was read at the decision.
    let written = std::fs::read_to_string(&out)
        .expect("out")
        .lines()
        .filter(|l| l.starts_with("new,"))
        .count();
    assert!(
        note.contains(&format!("new finished {written} of 200 planned tasks ("))
            && note.contains(" when pareval decided), "),
        "{written} written: {note}"
    );
    assert!(
        elapsed < 30.0,
        "run took {elapsed:.1} s: the harness was not ended"
    );
    let log_text = std::fs::read_to_string(&log).expect("log");
    assert!(log_text.contains("interrupted"), "{log_text}");
    assert!(!log_text.contains("finished"), "{log_text}");
    // Nothing of the harness's process group is left.
    let pid = log_text.lines().next().expect("pid").trim().to_string();
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the harness {pid} is still there"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A harness that finished its last task in the poll that decided is not said to have been ended
/// by a signal: it had ended by itself (it used to read "the harness was ended (SIGINT)").
#[test]
fn run_says_when_the_harness_had_ended_by_itself_before_the_decision() {
    let dir = temp_dir("run-done");
    let plan = write_plan(&dir, 60);
    let out = dir.join("out.csv");
    // Every row at once (moved into place as the harness's last act), then exit 0.
    let script = format!(
        r#"{{ echo "system,task,outcome"
for i in $(seq 0 59); do t=$(printf 't%03d' "$i"); echo "new,$t,1"; echo "old,$t,0"; done
}} > {out}.part
mv {out}.part {out}
"#,
        out = out.display()
    );
    let harness = dir.join("harness.sh");
    std::fs::write(&harness, script).expect("script");
    let harness_text = harness.display().to_string();
    let output = run_new_against_old(
        &out,
        &plan,
        &["--rule", "anytime", "--", "bash", &harness_text],
    );
    let note = stderr(&output);
    assert!(output.status.success(), "{note}");
    assert!(
        stdout(&output).contains("0 pp: promote"),
        "{}",
        stdout(&output)
    );
    assert!(
        note.contains("decided after")
            && note.contains("; the harness had ended by itself; new finished 60 of 60"),
        "{note}"
    );
    assert!(!note.contains("was ended (SIG"), "{note}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A harness that failed by itself in the poll that decided: its status was lost ("the harness had
/// ended by itself", exit 0, a SIGKILL from the kernel's out-of-memory killer not named). It is
/// named and passed on, as when the harness ends first; the decision is written all the same. And
/// "decided after" is the decision's time, not the time the harness took to end under its grace.
#[test]
fn run_passes_on_a_harness_s_failure_in_the_poll_that_decided() {
    let dir = temp_dir("run-done-failed");
    let plan = write_plan(&dir, 60);
    let out = dir.join("out.csv");
    let rows = |last: &str| {
        format!(
            r#"{{ echo "system,task,outcome"
for i in $(seq 0 59); do t=$(printf 't%03d' "$i"); echo "new,$t,1"; echo "old,$t,0"; done
}} > {out}.part
mv {out}.part {out}
{last}
"#,
            out = out.display()
        )
    };
    for (last, code, said) in [
        (
            "exit 3",
            3,
            "; the harness had ended by itself with status 3;",
        ),
        (
            "kill -KILL $$",
            137,
            "; the harness had been killed by SIGKILL, not by pareval;",
        ),
    ] {
        let _ = std::fs::remove_file(&out);
        let harness = dir.join("harness.sh");
        std::fs::write(&harness, rows(last)).expect("script");
        let harness_text = harness.display().to_string();
        let output = run_new_against_old(
            &out,
            &plan,
            &["--rule", "anytime", "--", "bash", &harness_text],
        );
        let note = stderr(&output);
        assert!(
            stdout(&output).contains("0 pp: promote"),
            "{last}: {}",
            stdout(&output)
        );
        // The harness may be seen ending before the rows are read (then it "ended before every
        // pair was decided"); either way its status is passed on.
        assert_eq!(output.status.code(), Some(code), "{last}: {note}");
        assert!(
            note.contains(said) || note.contains("the harness ended before every pair"),
            "{last}: {note}"
        );
    }
    // A harness that ignores SIGINT and ends on SIGTERM: the decision came at once, the end after
    // the grace period.
    let _ = std::fs::remove_file(&out);
    let harness = dir.join("stubborn.sh");
    std::fs::write(&harness, format!("trap '' INT\n{}sleep 30\n", rows(""))).expect("script");
    let harness_text = harness.display().to_string();
    let output = run_new_against_old(
        &out,
        &plan,
        &[
            "--rule",
            "anytime",
            "--grace",
            "2",
            "--",
            "bash",
            &harness_text,
        ],
    );
    let note = stderr(&output);
    assert!(output.status.success(), "{note}");
    let decided_after: f64 = note
        .split("decided after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|secs| secs.parse().ok())
        .expect("decided after");
    assert!(decided_after < 2.0, "{note}");
    assert!(
        note.contains("the harness was ended (SIGTERM, 2."),
        "{note}"
    );
    // A grace past Duration's range is refused (it panicked).
    let output = run_new_against_old(&out, &plan, &["--grace", "1e20", "--", "true"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--grace: '1e20' is not a number of seconds"),
        "{}",
        stderr(&output)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A harness script (its path) that writes four tasks' rows of `new` and `old` to `out`, three wins
/// and a tie for `new`, with or without a line end after the last row.
fn four_task_harness(dir: &Path, out: &Path, last_line_end: bool) -> String {
    let rows = "system,task,outcome\\nold,t000,0\\nnew,t000,1\\nold,t001,0\\nnew,t001,1\\nold,t002,1\\nnew,t002,1\\nold,t003,0\\nnew,t003,1";
    let end = if last_line_end { "\\n" } else { "" };
    let harness = dir.join("harness.sh");
    std::fs::write(
        &harness,
        format!("printf '{rows}{end}' > {}\n", out.display()),
    )
    .expect("script");
    harness.display().to_string()
}

#[test]
fn run_reads_the_last_line_a_harness_left_without_a_line_end() {
    // Rows joined by "\n" with none after the last (a common way to write a file): the follower
    // waits for a line end that never comes, so the last row went unread and the run ended
    // undecided. Once the harness has exited, its last line is its last and is read.
    let dir = temp_dir("run-last-line");
    let plan = write_plan(&dir, 4);
    let out = dir.join("out.csv");
    let harness = four_task_harness(&dir, &out, false);
    let output = run_new_against_old(
        &out,
        &plan,
        &[
            "--rule",
            "anytime",
            "--thresholds",
            "50",
            "--",
            "sh",
            &harness,
        ],
    );
    let note = stderr(&output);
    assert!(note.contains("new finished 4 of 4"), "{note}");
    // Three wins and a tie: Δ = 75 pp, past a 50 pp threshold for certain once all four are read;
    // with three read, a loss on the fourth would have left 25 pp.
    assert!(
        stdout(&output).contains("50 pp: promote"),
        "{}",
        stdout(&output)
    );
    assert!(
        note.contains("decided after") && note.contains("the harness had ended by itself"),
        "{note}"
    );
    assert!(output.status.success(), "{note}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run --format json` named only the plan in its records' provenance, where `decide` names the
/// outcome files with their SHA-256 (SPEC §8): the outcome files are now named as the harness left
/// them, with the hashes `decide` gives the same files.
#[test]
fn run_records_name_the_outcome_files_with_their_hashes() {
    let dir = temp_dir("run-provenance");
    let plan = write_plan(&dir, 4);
    let out = dir.join("out.csv");
    let harness = four_task_harness(&dir, &out, true);
    let output = run_new_against_old(
        &out,
        &plan,
        &[
            "--rule", "anytime", "--format", "json", "--", "sh", &harness,
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let ran = json_lines(&stdout(&output));
    let decided = decide_anytime(
        &out.display().to_string(),
        &plan,
        ("new", "old"),
        &["--format", "json"],
    );
    assert!(decided.status.success(), "{}", stderr(&decided));
    let decided = json_lines(&stdout(&decided));
    let files = |record: &Value| -> Vec<(String, String)> {
        record["provenance"]["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().expect("path").to_string(),
                    f["sha256"].as_str().expect("sha256").to_string(),
                )
            })
            .collect()
    };
    let outcome_entry = |record: &Value| {
        files(record)
            .into_iter()
            .find(|(path, _)| path.ends_with("out.csv"))
    };
    let from_run = outcome_entry(&ran[0]).expect("run names out.csv");
    assert_eq!(Some(from_run), outcome_entry(&decided[0]));
    assert!(
        files(&ran[0])
            .iter()
            .any(|(path, _)| path.ends_with("plan.csv"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_ends_the_harness_at_a_fixed_horizon_limit_whatever_the_rule_decided_there() {
    // Two systems that trade wins: the bootstrap abstains at the limit (20 of 200 tasks at budget
    // 0.1), and a fixed-horizon rule reads nothing after it, so the harness is ended there rather
    // than left to run the 180 tasks the decision never reads.
    let dir = temp_dir("run-limit");
    let plan = write_plan(&dir, 200);
    let out = dir.join("out.csv");
    let script = format!(
        r#"echo "system,task,outcome" > {out}
for i in $(seq 0 199); do
  t=$(printf 't%03d' "$i")
  echo "new,$t,$((i % 2))" >> {out}
  echo "old,$t,$(((i + 1) % 2))" >> {out}
  sleep 0.1
done
"#,
        out = out.display()
    );
    let harness = dir.join("harness.sh");
    std::fs::write(&harness, script).expect("script");
    let harness_text = harness.display().to_string();
    let started = std::time::Instant::now();
    let output = run_new_against_old(
        &out,
        &plan,
        &[
            "--rule",
            "bootstrap",
            "--budget",
            "0.1",
            "--grace",
            "1",
            "--",
            "bash",
            &harness_text,
        ],
    );
    let elapsed = started.elapsed().as_secs_f64();
    let text = stdout(&output);
    assert!(output.status.success(), "{}\n{text}", stderr(&output));
    assert!(
        text.contains("0 pp: abstain (20 of 200 planned tasks read"),
        "{text}"
    );
    let note = stderr(&output);
    assert!(note.contains("the harness was ended"), "{note}");
    assert!(note.contains("not run"), "{note}");
    assert!(
        elapsed < 15.0,
        "run took {elapsed:.1} s: the harness was not ended at the limit"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_passes_on_a_harness_s_error() {
    let dir = temp_dir("run-error");
    let plan = write_plan(&dir, 10);
    let out = dir.join("out.csv");
    let output = run_new_against_old(
        &out,
        &plan,
        &["--", "bash", "-c", "echo 'no such task' >&2; exit 3"],
    );
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("the harness exited with status 3"),
        "{}",
        stderr(&output)
    );
    // A harness a signal killed has no status of its own: it was called "exited with status 137".
    let killed = run_new_against_old(&out, &plan, &["--", "bash", "-c", "kill -9 $$"]);
    assert_eq!(killed.status.code(), Some(137), "{}", stderr(&killed));
    assert!(
        stderr(&killed).contains("the harness was killed by SIGKILL, not by pareval; pareval exits with 137, as a shell reports it"),
        "{}",
        stderr(&killed)
    );
    assert_refused(
        &run_new_against_old(&out, &plan, &["--", "/no/such/harness"]),
        "cannot start the harness '/no/such/harness'",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A signal to pareval ends the harness before pareval exits, 128 + the signal: SIGHUP (a closed
/// terminal or SSH session) left the harness running in its own process group, and SIGTERM exited
/// 130 as though it were a Ctrl-C.
#[test]
fn a_signal_to_run_ends_the_harness_and_exits_128_plus_the_signal() {
    let dir = temp_dir("run-signals");
    let plan = write_plan(&dir, 10);
    for (signal, code) in [("HUP", 129), ("TERM", 143)] {
        let out = dir.join(format!("out-{signal}.csv"));
        let pid_file = dir.join(format!("harness-{signal}.pid"));
        let harness = format!("echo $$ > '{}'; sleep 300", pid_file.display());
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_pareval"))
            .args([
                "run",
                &out.display().to_string(),
                "--plan",
                &plan,
                "--tested",
                "new",
                "--baseline",
                "old",
                "--grace",
                "1",
                "--",
                "bash",
                "-c",
                &harness,
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run");
        let started = std::time::Instant::now();
        while !pid_file.exists() || std::fs::read_to_string(&pid_file).expect("pid").is_empty() {
            assert!(
                started.elapsed().as_secs() < 20,
                "the harness did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let harness_pid = std::fs::read_to_string(&pid_file)
            .expect("pid")
            .trim()
            .to_string();
        let killed = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        let output = child.wait_with_output().expect("wait");
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(code), "{said}");
        assert!(said.contains(&format!("stopped by SIG{signal}")), "{said}");
        assert!(
            !Path::new(&format!("/proc/{harness_pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{harness_pid}/stat"))
                    .is_ok_and(|s| s.contains(") Z ")),
            "the harness {harness_pid} still runs after SIG{signal}: {said}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_harness_that_ends_undecided_leaving_unreadable_lines_gives_exit_2() {
    // The harness wrote an outcome that is not a number where the prefix waits; it exited 0, and
    // pareval said the line but exited 0 too, as though the run had nothing wrong with it.
    let dir = temp_dir("run-unreadable");
    let plan = write_plan(&dir, 10);
    let out = dir.join("out.csv");
    std::fs::write(&out, "system,task,outcome\nold,t000,0\nnew,t000,1\n").expect("write");
    let harness = format!(
        "sleep 0.5; printf 'new,t001,abc\\nold,t001,0\\n' >> '{}'",
        out.display()
    );
    let output = run_new_against_old(&out, &plan, &["--", "bash", "-c", &harness]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains(
            "out.csv, line 4: outcome 'abc' of new on t001 is not a number in [0, 1] (skipped)"
        ),
        "{said}"
    );
    assert!(
        said.contains("1 line of the files could not be read and was left out (the first: "),
        "{said}"
    );
    assert!(
        said.contains("with lines pareval could not read: exit 2"),
        "{said}"
    );
    // The records read so far are still printed.
    assert!(stdout(&output).contains("continue"), "{}", stdout(&output));
    // A second outcome for a run (other than the first) and a task not in the plan were left out of
    // the decisions without a word, and the run exited 0: each is named, counted, and exit 2.
    std::fs::write(&out, "system,task,outcome\nold,t000,0\nnew,t000,1\n").expect("write");
    let harness = format!(
        "sleep 0.5; printf 'new,t000,0\nnew,zz,1\n' >> '{}'",
        out.display()
    );
    let output = run_new_against_old(&out, &plan, &["--", "bash", "-c", &harness]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("out.csv, line 4: a second outcome for run '0' of new on t000 (skipped)"),
        "{said}"
    );
    assert!(
        said.contains("out.csv, line 5: task 'zz' is not in the plan (skipped)"),
        "{said}"
    );
    assert!(
        said.contains("2 rows of the files were left out of the decisions (the first: "),
        "{said}"
    );
    assert!(
        said.contains("with rows pareval left out of the decisions: exit 2"),
        "{said}"
    );
    // A followed path the harness never wrote (a typo) read as a run with no outcomes yet: exit 0.
    let typo = dir.join("out_typo.csv");
    let output = run_new_against_old(&typo, &plan, &["--", "true"]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("out_typo.csv never appeared: the harness wrote nothing there"),
        "{said}"
    );
    // A path the harness wrote and then moved away was read: not named as one that never appeared
    // (the end of the run tested only whether it existed then).
    let moved = dir.join("moved.csv");
    let harness = format!(
        "printf 'system,task,outcome\\nnew,t000,1\\n' > '{0}'; sleep 1; mv '{0}' '{0}.done'",
        moved.display()
    );
    let output = run_new_against_old(&moved, &plan, &["--", "bash", "-c", &harness]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(!said.contains("never appeared"), "{said}");
    assert!(
        said.contains("moved.csv is gone (removed or moved)"),
        "{said}"
    );
    // While the harness runs, a path still absent after five seconds is said then, not only at
    // the end of a run that could never decide.
    let output = run_new_against_old(&typo, &plan, &["--", "sleep", "6"]);
    let said = stderr(&output);
    assert!(
        said.contains(
            "out_typo.csv has not appeared after 5 s (is the path the one the harness writes?)"
        ),
        "{said}"
    );
    let at = |text: &str| {
        said.find(text)
            .unwrap_or_else(|| panic!("{text:?} in {said}"))
    };
    assert!(
        at("has not appeared after 5 s") < at("never appeared"),
        "{said}"
    );
    // The same harness writing a good line ends as before: exit 0.
    std::fs::write(&out, "system,task,outcome\nold,t000,0\nnew,t000,1\n").expect("write");
    let harness = format!("sleep 0.5; printf 'new,t001,1\\n' >> '{}'", out.display());
    let output = run_new_against_old(&out, &plan, &["--", "bash", "-c", &harness]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_ends_an_agentlab_study_whose_episodes_end_faster_than_the_looks() {
    // An AgentLab study with many workers: every experiment folder is prepared first, then
    // summaries land twenty a second, faster than `run` looks (twice a second). The study keeps
    // changing until the end, so a reader that waits for it to settle would decide only once the
    // harness had finished; it is read every two seconds instead, and the harness is ended early.
    let dir = temp_dir("run-agentlab");
    let plan = write_plan(&dir, 200);
    let baseline = dir.join("old.csv");
    let mut rows = String::from("system,task,outcome\n");
    for i in 0..200 {
        rows.push_str(&format!("old,t{i:03},0\n"));
    }
    std::fs::write(&baseline, rows).expect("baseline");
    let live = dir.join("live");
    std::fs::create_dir_all(&live).expect("live");
    let log = dir.join("harness.log");
    let script = format!(
        r#"study={live}/2026-01-01_00-00-00_new_on_plan
mkdir -p "$study"
for i in $(seq 0 199); do
  t=$(printf 't%03d' "$i")
  mkdir -p "$study/2026-01-01_00-00-00_new_on_${{t}}_$i"
  echo stand-in > "$study/2026-01-01_00-00-00_new_on_${{t}}_$i/exp_args.pkl"
done
for i in $(seq 0 199); do
  t=$(printf 't%03d' "$i")
  echo '{{"n_steps": 1, "cum_reward": 1, "err_msg": null, "stack_trace": null, "terminated": true, "truncated": false}}' > "$study/2026-01-01_00-00-00_new_on_${{t}}_$i/summary_info.json"
  sleep 0.05
done
echo finished > {log}
"#,
        live = live.display(),
        log = log.display()
    );
    let harness = dir.join("harness.sh");
    std::fs::write(&harness, script).expect("script");
    let (live_text, baseline_text, harness_text) = (
        live.display().to_string(),
        baseline.display().to_string(),
        harness.display().to_string(),
    );
    let output = pareval(&[
        "run",
        &live_text,
        &baseline_text,
        "--plan",
        &plan,
        "--tested",
        "new",
        "--baseline",
        "old",
        "--grace",
        "1",
        "--",
        "bash",
        &harness_text,
    ]);
    let text = stdout(&output);
    assert!(output.status.success(), "{}\n{text}", stderr(&output));
    assert!(text.contains("0 pp: promote"), "{text}");
    let note = stderr(&output);
    assert!(note.contains("the harness was ended"), "{note}");
    assert!(
        note.contains("not run") && !note.contains(", 0 not run"),
        "{note}"
    );
    assert!(!log.exists(), "the harness finished: {note}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `pareval serve` over `args`, fed `input` whole: its output once its input has ended.
fn serve_output(args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pareval"))
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    let output = child.wait_with_output().expect("serve output");
    assert!(output.status.success(), "{}", stderr(&output));
    output
}

/// `pareval serve` over `args`, fed `requests` line by line: its replies, one a request.
fn serve_replies(args: &[&str], requests: &[&str]) -> Vec<Value> {
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let output = serve_output(args, input.as_bytes());
    let replies = json_lines(&stdout(&output));
    assert_eq!(replies.len(), requests.len(), "one reply a request");
    replies
}

#[test]
fn errored_runs_are_read_as_their_outcomes_and_said_by_serve_and_decide() {
    let dir = temp_dir("errored-runs");
    let plan = write_plan(&dir, 10);
    let replies = serve_replies(
        &["--plan", &plan, "--tested", "new", "--baseline", "old"],
        &[
            r#"{"op":"outcome","system":"old","task":"t000","run":0,"outcome":1}"#,
            r#"{"op":"outcome","system":"new","task":"t000","run":0,"outcome":0,"status":"error"}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":0,"outcome":0,"status":"skipped"}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":0,"outcome":1,"status":"OK"}"#,
            r#"{"op":"decide"}"#,
        ],
    );
    assert_eq!(
        replies[0]["errored"],
        serde_json::json!({}),
        "{}",
        replies[0]
    );
    assert_eq!(
        replies[1]["errored"],
        serde_json::json!({"new": 1}),
        "{}",
        replies[1]
    );
    assert!(
        error(&replies[2]).contains(r#"status of new on t001: "skipped" is not "ok" or "error""#),
        "{}",
        replies[2]
    );
    assert_eq!(replies[4]["errored"], serde_json::json!({"new": 1}));
    // Read as its outcome: t000 is read, new a point behind.
    let record = &replies[4]["records"][0];
    assert_eq!(record["observed"], 1, "{record}");
    assert!(
        (record["estimate"].as_f64().expect("estimate") + 1.0).abs() < 1e-12,
        "{record}"
    );
    // decide says so on stderr, and reads the same.
    let outcomes = dir.join("outcomes.csv");
    std::fs::write(
        &outcomes,
        "system,task,outcome,status\nold,t000,1,ok\nnew,t000,0,error\n",
    )
    .expect("outcomes");
    let output = pareval(&[
        "decide",
        &outcomes.to_string_lossy(),
        "--plan",
        &plan,
        "--tested",
        "new",
        "--baseline",
        "old",
        "--rule",
        "anytime",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "note: runs with status error, read as their outcomes (a harness failure counts as the agent's unless the harness runs it again): new 1"
        ),
        "{}",
        stderr(&output)
    );
    let decided: Value =
        serde_json::from_str(stdout(&output).lines().next().expect("a record")).expect("json");
    assert_eq!(decided["observed"], 1);
    assert_eq!(decided["estimate"], record["estimate"]);
    // The baseline's completed records given to serve: their errored runs are counted too (each
    // preloaded row is a task's mean, which had lost its status).
    let baseline = dir.join("baseline.csv");
    std::fs::write(
        &baseline,
        "system,task,run,outcome,status
old,t000,0,0,error
old,t000,1,1,ok
old,t001,0,0,error
",
    )
    .expect("baseline");
    let replies = serve_replies(
        &[
            &baseline.to_string_lossy(),
            "--plan",
            &plan,
            "--tested",
            "new",
            "--baseline",
            "old",
        ],
        &[r#"{"op":"outcome","system":"new","task":"t000","run":0,"outcome":0,"status":"error"}"#],
    );
    assert_eq!(
        replies[0]["errored"],
        serde_json::json!({"new": 1, "old": 2}),
        "{}",
        replies[0]
    );
    // `run`, following the file a harness writes, says it as it ends.
    let out = dir.join("out.csv");
    let (outcomes_text, out_text) = (outcomes.display().to_string(), out.display().to_string());
    let harness = ["--rule", "anytime", "--", "cp", &outcomes_text, &out_text];
    let output = run_new_against_old(&out, &plan, &harness);
    assert!(
        stderr(&output).contains(
            "pareval run: runs with status error, read as their outcomes (a harness failure counts as the agent's unless the harness runs it again): new 1"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn serve_reads_a_task_once_every_run_said_due_is_in() {
    // Inspect runs epochs one after the other: with "runs" each task waits for all of them, and its
    // outcome is their mean (one epoch alone would be read as the task's outcome, and the later
    // epochs would change a value the anytime sequence already took).
    let dir = temp_dir("serve-runs");
    let plan = write_plan(&dir, 10);
    let replies = serve_replies(
        &["--plan", &plan, "--tested", "new", "--baseline", "old"],
        &[
            r#"{"op":"outcome","system":"old","task":"t000","run":0,"outcome":0,"runs":2}"#,
            r#"{"op":"outcome","system":"new","task":"t000","run":0,"outcome":1,"runs":2}"#,
            r#"{"op":"outcome","system":"old","task":"t000","run":1,"outcome":0,"runs":2}"#,
            r#"{"op":"outcome","system":"new","task":"t000","run":1,"outcome":0,"runs":2}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":2,"outcome":1,"runs":2}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":"a","outcome":1,"runs":2}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":0,"outcome":1,"runs":0}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":0,"outcome":1,"runs":2}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":1,"outcome":1,"runs":3}"#,
            r#"{"op":"decide"}"#,
        ],
    );
    let counts = |r: &Value| (r["usable"].clone(), r["finished"].clone());
    assert_eq!(counts(&replies[1]), (0.into(), 0.into()), "{}", replies[1]);
    assert_eq!(counts(&replies[2]), (0.into(), 0.into()), "{}", replies[2]);
    assert_eq!(counts(&replies[3]), (1.into(), 1.into()), "{}", replies[3]);
    assert!(
        error(&replies[4])
            .contains("run '2' of new on t001 is not one of the 2 runs said due (0 to 1)"),
        "{}",
        replies[4]
    );
    assert!(error(&replies[5]).contains("run 'a'"), "{}", replies[5]);
    assert!(
        error(&replies[6]).contains("\"runs\": 0 is not a whole number from 1 to 1000"),
        "{}",
        replies[6]
    );
    assert_eq!(replies[7]["ok"], true);
    assert!(
        error(&replies[8]).contains("new on t001: 3 runs said due, after 2"),
        "{}",
        replies[8]
    );
    let record = &replies[9]["records"][0];
    assert_eq!(record["observed"], 1);
    assert_eq!(record["waiting_on"]["task"], "t001", "{record}");
    // new's t000 is the mean of its two runs: half a point over old's 0.
    assert!(
        (record["estimate"].as_f64().expect("estimate") - 0.5).abs() < 1e-12,
        "{record}"
    );
    // A run sent without "runs" is held to the count said before for its task (run 1 after
    // "runs":1 was taken, changed a task already read and turned a decision back to continue);
    // with no count said, a second run of a task read on its first is refused the same way.
    let replies = serve_replies(
        &["--plan", &plan, "--tested", "new", "--baseline", "old"],
        &[
            r#"{"op":"outcome","system":"new","task":"t000","run":0,"outcome":1,"runs":1}"#,
            r#"{"op":"outcome","system":"new","task":"t000","run":1,"outcome":0}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":0,"outcome":1}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":1,"outcome":0}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":0,"outcome":1}"#,
            r#"{"op":"outcome","system":"new","task":"t002","run":0,"outcome":0,"stauts":"error"}"#,
            r#"{"op":"outcome","system":"new","task":"t001","run":1,"outcome":0,"runs":2}"#,
        ],
    );
    // A misspelt key was passed over (the errored run counted as ok).
    assert!(
        error(&replies[5]).contains(
            "outcome: 'stauts' is not one of its keys (op, system, task, run, outcome, runs, status)"
        ),
        "{}",
        replies[5]
    );
    // Nor may runs be said due once a run of the task came without them.
    assert!(
        error(&replies[6])
            .contains("new on t001: runs said due after its run '0' came with no \"runs\""),
        "{}",
        replies[6]
    );
    assert!(
        error(&replies[1])
            .contains("run '1' of new on t000 is not one of the 1 runs said due (0 to 0)"),
        "{}",
        replies[1]
    );
    assert!(
        error(&replies[3]).contains("run '1' of new on t001: its run '0' came with no \"runs\" and was read as the task's outcome"),
        "{}",
        replies[3]
    );
    // The same outcome sent again for the first run is still taken once.
    assert_eq!(replies[4]["ok"], true, "{}", replies[4]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn live_readers_take_a_row_s_status_as_the_loader_does() {
    // A row with status not_attempted is a missing cell, whatever its outcome says: `decide` (the
    // loader) always read it so, and `run` (following the file as `watch` does) counted it as an
    // outcome. A status that is none of the three is a bad line in both.
    let dir = temp_dir("live-status");
    let plan = write_plan(&dir, 20);
    let mut rows = String::from("system,task,outcome,status\n");
    for i in 0..20 {
        rows.push_str(&format!("old,t{i:03},0,ok\n"));
    }
    for i in 0..10 {
        let status = match i {
            3 => "not_attempted",
            5 => "ERROR",
            _ => "",
        };
        rows.push_str(&format!("new,t{i:03},1,{status}\n"));
    }
    let written = dir.join("written.csv");
    let written_text = written.display().to_string();
    let out = dir.join("out.csv");
    let out_text = out.display().to_string();
    let live = ["--rule", "anytime", "--format", "json"];
    let decide = |file: &str| {
        let mut args = vec!["decide", file, "--plan", &plan, "--tested", "new"];
        args.extend(["--baseline", "old"]);
        args.extend(live);
        pareval(&args)
    };
    let run = || {
        let _ = std::fs::remove_file(&out);
        let harness = ["--", "cp", written_text.as_str(), out_text.as_str()];
        run_new_against_old(&out, &plan, &[&live[..], &harness[..]].concat())
    };
    std::fs::write(&written, &rows).expect("rows");
    for output in [decide(&written_text), run()] {
        assert!(output.status.success(), "{}", stderr(&output));
        let record = json_lines(&stdout(&output)).remove(0);
        assert_eq!(record["observed"], 3, "{record}");
        assert_eq!(record["waiting_on"]["task"], "t003", "{record}");
        assert_eq!(record["action"], "continue", "{record}");
    }
    std::fs::write(&written, rows.replace("new,t007,1,", "new,t007,1,skipped")).expect("rows");
    assert_refused(&decide(&written_text), "status 'skipped' on line 29");
    let said = stderr(&run());
    assert!(
        said.contains("line 29: status 'skipped' of new on t007 is not ok, error or not_attempted"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn decide_waits_on_a_json_lines_file_whose_only_line_is_being_written() {
    // A cut second line was waited for, but a first line caught mid-write refused the file ("cannot
    // parse the file as JSON: line 1: EOF while parsing"), so a run's first poll could fail.
    let dir = temp_dir("first-line-cut");
    let plan = write_plan(&dir, 3);
    let file = dir.join("rows.jsonl");
    std::fs::write(&file, "{\"system\":\"A\",\"ta").expect("rows");
    let out = decide_anytime(&file.display().to_string(), &plan, ("A", "B"), &[]);
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains(
            "rows.jsonl: line 1 is not finished yet (no line end, and short of a record)"
        ),
        "{said}"
    );
    // Read once (info), the cut line is refused, as a record table's is.
    assert_refused(
        &pareval(&["info", &file.display().to_string()]),
        "cannot parse the file as JSON",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn decide_names_an_unplanned_task_by_a_row_of_the_systems_it_decides_on() {
    let dir = temp_dir("unplanned-origin");
    let plan = write_plan(&dir, 3);
    // The task's first row is another system's: the row named is the tested system's (it named
    // line 2, C's row, beside "outcomes of A, B").
    let file = dir.join("rows.csv");
    std::fs::write(&file, "system,task,outcome\nC,x9,1\nA,x9,1\nB,x9,0\n").expect("rows");
    let file_text = file.display().to_string();
    assert_refused(
        &decide_anytime(&file_text, &plan, ("A", "B"), &[]),
        &format!("not in the plan: 'x9' ({file_text} line 3) (outcomes of A, B in {file_text})"),
    );
    // Rows an importer gathers from several files (an AgentBench output folder: each task's
    // runs.jsonl and error.jsonl) have no line: their source says where they came from (it said
    // "<folder> record 1", which no file holds).
    let outputs = crate::common::fixture("agentbench/outputs/2024-05-01-12-00-00");
    let outputs_text = outputs.display().to_string();
    let said = stderr(&decide_anytime(
        &outputs_text,
        &plan,
        ("gpt-4-0613", "gpt-3.5-turbo-0613"),
        &[],
    ));
    assert!(
        said.contains(&format!(
            "'ltp-std/0' ({outputs_text}: agentbench gpt-3.5-turbo-0613/ltp-std index 0 (completed))"
        )) && !said.contains(" record 1)"),
        "{said}"
    );
    // A record file whose `source` holds lists, which info and replay read (the column is no
    // known one they use): decide read it for the origins and refused the file.
    let listed = dir.join("listed.jsonl");
    std::fs::write(
        &listed,
        "{\"system\":\"A\",\"task\":\"t000\",\"outcome\":1,\"source\":[\"log1\"]}\n{\"system\":\"B\",\"task\":\"t000\",\"outcome\":0,\"source\":[\"log2\"]}\n",
    )
    .expect("rows");
    let decided = decide_anytime(&listed.display().to_string(), &plan, ("A", "B"), &[]);
    assert_eq!(decided.status.code(), Some(0), "{}", stderr(&decided));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn decide_says_when_unplanned_tasks_are_planned_ones_behind_a_prefix() {
    // An Inspect eval set's logs are read as <task>/<sample id>; a plan of the sample ids then
    // names none of them, and the refusal says which option reads the ids.
    let dir = temp_dir("prefixed-tasks");
    let plan = write_plan(&dir, 10);
    let mut rows = String::from("system,task,outcome\n");
    for i in 0..10 {
        rows.push_str(&format!("new,suite/t{i:03},1\nold,suite/t{i:03},0\n"));
    }
    let file = dir.join("rows.csv");
    std::fs::write(&file, &rows).expect("rows");
    let file_text = file.display().to_string();
    let decide = || decide_anytime(&file_text, &plan, ("new", "old"), &[]);
    assert_refused(
        &decide(),
        &format!(
            "tasks with outcomes are not in the plan: 'suite/t000' ({file_text} line 2), 'suite/t001' ({file_text} line 4), 'suite/t002' ({file_text} line 6), 'suite/t003' ({file_text} line 8), 'suite/t004' ({file_text} line 10) (and 5 more) (outcomes of new, old in {file_text}); what follows each one's '/' is a planned task: an Inspect eval set's logs are read as <task>/<sample id>, and --inspect-task-key id reads the sample ids"
        ),
    );
    // Tasks that are simply not planned get no such hint.
    std::fs::write(&file, rows.replace("suite/t009", "elsewhere")).expect("rows");
    let said = stderr(&decide());
    assert!(
        said.contains(&format!("'elsewhere' ({file_text} line 20)"))
            && !said.contains("--inspect-task-key"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn live_commands_take_the_loader_s_column_choices_their_errors_name() {
    // A system whose scaffold column changes half-way: the loader refuses it and names
    // --ignore-col and --system-key, which the live commands must then take.
    let dir = temp_dir("decide-ignore-col");
    let plan = write_plan(&dir, 20);
    let mut rows = String::from("system,task,outcome,scaffold\n");
    for i in 0..20 {
        let scaffold = if i < 10 { "s1" } else { "s2" };
        rows.push_str(&format!("A,t{i:03},1,{scaffold}\nB,t{i:03},0,s1\n"));
    }
    let file = dir.join("rows.csv");
    std::fs::write(&file, rows).expect("rows");
    let file = file.display().to_string();
    let decide = |extra: &[&str]| {
        let mut args = vec!["decide", &file, "--plan", &plan, "--rule", "anytime"];
        args.extend_from_slice(extra);
        pareval(&args)
    };
    assert_refused(
        &decide(&["--tested", "A", "--baseline", "B"]),
        "--ignore-col scaffold",
    );
    let output = decide(&[
        "--tested",
        "A",
        "--baseline",
        "B",
        "--ignore-col",
        "scaffold",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let record = json_lines(&stdout(&output)).remove(0);
    assert_eq!(record["observed"], 20);
    assert_eq!(record["action"], "promote");
    // Keyed by scaffold, "A (s1)" has finished the plan's first 10 tasks only.
    let output = decide(&[
        "--tested",
        "A (s1)",
        "--baseline",
        "B (s1)",
        "--system-key",
        "system,scaffold",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let record = json_lines(&stdout(&output)).remove(0);
    assert_eq!(record["observed"], 10);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn decide_reads_a_task_once_every_declared_run_has_ended() {
    let dir = temp_dir("declared-runs");
    let plan = write_plan(&dir, 6);
    // A runs each task three times: t000 and t001 have all three, t002 one (a success so far), t003
    // four. B's completed record has one run a task.
    let mut rows = String::from("system,task,run,outcome,status\n");
    for (task, outcomes) in [
        ("t000", &[1, 1, 0][..]),
        ("t001", &[1, 0, 1]),
        ("t002", &[1]),
        ("t003", &[1, 1, 1, 1]),
    ] {
        for (run, outcome) in outcomes.iter().enumerate() {
            rows.push_str(&format!("A,{task},{run},{outcome},ok\n"));
        }
    }
    // An errored run has ended too: t004's one errored run leaves two to come.
    rows.push_str("A,t004,0,0,error\n");
    for i in 0..6 {
        rows.push_str(&format!("B,t{i:03},0,0,ok\n"));
    }
    let outcomes = dir.join("so_far.csv");
    std::fs::write(&outcomes, rows).expect("rows");
    let outcomes = outcomes.display().to_string();
    let decide = |runs: &[&str]| decide_anytime(&outcomes, &plan, ("A", "B"), runs);
    // Undeclared, t002's first run is read as the task's outcome: 5 tasks usable.
    let undeclared = decide(&[]);
    assert!(undeclared.status.success(), "{}", stderr(&undeclared));
    assert_eq!(json_lines(&stdout(&undeclared))[0]["observed"], 5);
    // Declared, the prefix stops at t002, which waits for its other two runs.
    let declared = decide(&["--runs", "3,B=1"]);
    assert!(declared.status.success(), "{}", stderr(&declared));
    let record = json_lines(&stdout(&declared)).remove(0);
    assert_eq!(record["observed"], 2);
    assert_eq!(record["waiting_on"]["task"], "t002");
    assert_eq!(record["waiting_on"]["systems"][0], "A");
    let notes = stderr(&declared);
    assert!(
        notes.contains("--runs: 2 tasks of 'A' wait for the rest of their 3 runs, not read until every run has ended (e.g. 't002' with 1 ended)"),
        "{notes}"
    );
    assert!(
        notes.contains("--runs: 1 task of 'A' has more ended runs than the 3 declared, and all are read (e.g. 't003' with 4)"),
        "{notes}"
    );
    // Every system at 3 holds B's whole completed record, and the note says how to declare it.
    let everyone = decide(&["--runs", "3"]);
    assert!(everyone.status.success(), "{}", stderr(&everyone));
    assert_eq!(json_lines(&stdout(&everyone))[0]["observed"], 0);
    assert!(
        stderr(&everyone).contains("6 tasks of 'B' wait for the rest of their 3 runs, not read until every run has ended (e.g. 't000' with 1 ended); none has all 3 yet (a completed record with fewer runs per task is declared on its own: --runs B=N)"),
        "{}",
        stderr(&everyone)
    );
    assert_refused(
        &decide(&["--runs", "0"]),
        "--runs: '0' is not N or SYSTEM=N",
    );
    assert_refused(
        &decide(&["--runs", "A=2,A=3"]),
        "--runs: A's runs are declared twice",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_answers_a_request_that_is_not_utf8_and_goes_on() {
    // Such a line ended the service ("cannot write the output"), and later requests had no reply.
    let dir = temp_dir("serve-utf8");
    let plan = write_plan(&dir, 10);
    let output = serve_output(
        &["--plan", &plan, "--tested", "new", "--baseline", "old"],
        b"{\"op\":\"plan\"}\n\xff\xfe bad\n{\"op\":\"plan\"}\n",
    );
    let replies = json_lines(&stdout(&output));
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(replies[1]["ok"], false);
    assert!(
        replies[1]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("the request is not UTF-8 text")),
        "{replies:?}"
    );
    assert_eq!(replies[2]["ok"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn decide_says_when_the_outcome_files_group_planned_tasks_otherwise() {
    // The plan's groups are read (coverage follows them), and the decision can move with them: a
    // record whose group column disagrees was passed over without a word.
    let dir = temp_dir("plan-groups");
    let plan = dir.join("plan.csv");
    std::fs::write(&plan, "task,group\nt0,a\nt1,b\nt2,a\nt3,b\n").expect("plan");
    let mut rows = String::from("system,task,outcome,group\n");
    for (task, group) in [("t0", "a"), ("t1", "b"), ("t2", "b"), ("t3", "a")] {
        rows.push_str(&format!("A,{task},1,{group}\nB,{task},0,{group}\n"));
    }
    let outcomes = dir.join("outcomes.csv");
    std::fs::write(&outcomes, rows).expect("outcomes");
    let output = decide_anytime(
        &outcomes.to_string_lossy(),
        &plan.to_string_lossy(),
        ("A", "B"),
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("the plan's column 'group' puts 2 planned tasks in other groups than the outcome files do (first 't2': the plan's 'a', the files' 'b'); the plan's groups are read"),
        "{}",
        stderr(&output)
    );
    // Files that agree with the plan: no such note.
    let agreeing = dir.join("agreeing.csv");
    std::fs::write(
        &agreeing,
        "system,task,outcome,group\nA,t0,1,a\nB,t0,0,a\nA,t1,1,b\nB,t1,0,b\n",
    )
    .expect("outcomes");
    let output = decide_anytime(
        &agreeing.to_string_lossy(),
        &plan.to_string_lossy(),
        ("A", "B"),
        &[],
    );
    assert!(
        !stderr(&output).contains("other groups"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_decision_under_a_uniform_plan_stands_while_coverage_drifts_as_the_readme_says() {
    // The README's AppWorld example: a seed-3 uniform plan, the plan's first n tasks of three
    // gpt-4o systems. The pair is rejected at 94 and the decision stands at 191 and 194, where the
    // counts drift below the quotas; in the Holm family ReAct is rejected at 116, PlanExec at 202.
    let Some(data) = crate::common::shared_data() else {
        return;
    };
    let records = data.join("hal_appworld/records.csv");
    let dir = temp_dir("uniform-plan-drift");
    let plan = dir.join("plan.csv");
    let made = pareval(&[
        "plan",
        records.to_str().expect("utf-8"),
        "--order",
        "uniform",
        "--seed",
        "3",
        "--out",
        plan.to_str().expect("utf-8"),
    ]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let planned: Vec<String> = std::fs::read_to_string(&plan)
        .expect("plan")
        .lines()
        .skip(1)
        .map(|line| line.split(',').nth(1).expect("task").to_string())
        .collect();
    let text = std::fs::read_to_string(&records).expect("records");
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    let rows: Vec<&str> = lines.collect();
    let systems = [
        "FullCodeRefl (gpt-4o-2024-05-13)",
        "ReAct (gpt-4o-2024-05-13)",
        "PlanExec (gpt-4o-2024-05-13)",
    ];
    let prefix = |n: usize| {
        let tasks: std::collections::HashSet<&str> =
            planned[..n].iter().map(String::as_str).collect();
        let mut text = format!("{header}\n");
        for row in &rows {
            let mut cells = row.split(',');
            let system = cells.next().expect("system");
            let task = cells.next().expect("task");
            if systems.contains(&system.trim_matches('"')) && tasks.contains(task) {
                text.push_str(row);
                text.push('\n');
            }
        }
        let path = dir.join(format!("so_far_{n}.csv"));
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let plan = plan.display().to_string();
    let record = |n: usize, baselines: &str| -> Vec<Value> {
        let output = decide_anytime(
            &prefix(n),
            &plan,
            (systems[0], baselines),
            &["--format", "json"],
        );
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        json_lines(&stdout(&output))
    };
    for (n, coverage) in [
        (94, true),
        (191, false),
        (192, true),
        (194, false),
        (202, true),
    ] {
        let records = record(n, systems[1]);
        let pair = &records[0];
        assert_eq!(pair["action"], "reject", "{n}: {pair}");
        assert_eq!(pair["decided_at"], 94, "{n}: {pair}");
        assert_eq!(
            pair["coverage"],
            if coverage { "ok" } else { "missing" },
            "{n}: {pair}"
        );
        let kept = pair["reason"]
            .as_str()
            .expect("reason")
            .contains("kept from the look at 94 tasks, where coverage was ok (it is missing now)");
        assert_eq!(kept, !coverage, "{n}: {pair}");
    }
    let family = format!("{},{}", systems[1], systems[2]);
    for (n, planexec) in [(194, None), (202, Some(202)), (400, Some(202))] {
        let records = record(n, &family);
        assert_eq!(records[0]["decided_at"], 116, "{n}: {}", records[0]);
        match planexec {
            None => assert_eq!(records[1]["action"], "continue", "{n}: {}", records[1]),
            Some(at) => {
                assert_eq!(records[1]["action"], "reject", "{n}: {}", records[1]);
                assert_eq!(records[1]["decided_at"], at, "{n}: {}", records[1]);
            }
        }
    }
}

#[test]
fn run_names_rows_it_compares_with_nothing_and_a_compared_system_with_no_row() {
    // --tested New where the harness writes "new": every row went by without a word, the pair never
    // decided, and the run exited 0 as if it had ended well.
    let dir = temp_dir("run-misspelt");
    let plan = write_plan(&dir, 10);
    let mut rows = String::from("system,task,outcome\n");
    for i in 0..10 {
        rows.push_str(&format!("new,t{i:03},1\nold,t{i:03},0\n"));
    }
    let outcomes = dir.join("outcomes.csv");
    std::fs::write(&outcomes, rows).expect("outcomes");
    let out = dir.join("out.csv");
    let (outcomes_text, out_text) = (outcomes.display().to_string(), out.display().to_string());
    let output = pareval(&[
        "run",
        &out_text,
        "--plan",
        &plan,
        "--tested",
        "New",
        "--baseline",
        "old",
        "--",
        "cp",
        &outcomes_text,
        &out_text,
    ]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("pareval run: rows of 'new' are read and compared with nothing: it is neither the tested system 'New' nor a baseline (old): did you mean --tested 'new'?"),
        "{said}"
    );
    assert!(
        said.contains("pareval run: no row of 'New' was read; the files hold rows of 'new'"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A plan whose rows are not the draw its order and seed name (rows swapped, a group changed, the
/// tasks sorted so that the tested system's wins come first, or its groups read through another
/// `--group-col`) was read as that draw and labelled anytime-valid: a cherry-picked plan promoted
/// a system that is no better on the completed record. Its rows are now read as the order itself,
/// descriptive, with a note; the plan as drawn keeps its label.
#[test]
fn a_plan_that_is_not_its_seed_s_draw_is_read_as_descriptive() {
    let dir = temp_dir("plan-not-its-draw");
    let plan = dir.join("plan.csv");
    let drawn = pareval(&[
        "plan",
        "sample_runs/swe_repair.csv",
        "--seed",
        "1",
        "--out",
        &plan.display().to_string(),
    ]);
    assert!(drawn.status.success(), "{}", stderr(&drawn));
    let text = std::fs::read_to_string(&plan).expect("plan");
    let header = text.lines().next().expect("header").to_string();
    let rows: Vec<Vec<String>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    let write = |name: &str, rows: &[Vec<String>]| {
        let mut out = header.clone() + "\n";
        for (i, row) in rows.iter().enumerate() {
            let mut row = row.clone();
            row[0] = (i + 1).to_string();
            out += &(row.join(",") + "\n");
        }
        let path = dir.join(name);
        std::fs::write(&path, out).expect("edited plan");
        path.display().to_string()
    };
    // The pair is even on the completed record (Δ = −0.7 pp); put the tasks the tested system
    // wins first.
    let (tested, baseline) = ("ToolCall (delta-1)", "ToolCall (cirrus-1)");
    let records = std::fs::read_to_string("sample_runs/swe_repair.csv").expect("records");
    let outcome = |system: &str, task: &str| -> f64 {
        records
            .lines()
            .find(|l| l.starts_with(&format!("{system},{task},")))
            .and_then(|l| l.split(',').nth(2))
            .and_then(|v| v.parse().ok())
            .expect("an outcome")
    };
    let mut cherry = rows.clone();
    cherry.sort_by_key(|row| {
        let wins = outcome(tested, &row[1]) > outcome(baseline, &row[1]);
        !wins
    });
    let mut swapped = rows.clone();
    swapped.swap(0, 1);
    let mut regrouped = rows.clone();
    let other = rows
        .iter()
        .map(|row| row[2].clone())
        .find(|g| *g != rows[7][2])
        .expect("two groups");
    regrouped[7][2] = other;
    let edited = [
        ("cherry.csv", cherry, vec![]),
        ("swapped.csv", swapped, vec![]),
        ("regrouped.csv", regrouped, vec![]),
        ("drawn.csv", rows.clone(), vec!["--group-col", "none"]),
    ];
    let decide = |plan: &str, extra: &[&str]| {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        decide_anytime(
            "sample_runs/swe_repair.csv",
            plan,
            (tested, baseline),
            &args,
        )
    };
    let honest = decide(&plan.display().to_string(), &[]);
    assert!(honest.status.success(), "{}", stderr(&honest));
    assert!(!stderr(&honest).contains("draw"), "{}", stderr(&honest));
    let record = &json_lines(&stdout(&honest))[0];
    assert_eq!(record["validity"], "anytime-valid (stratified plan)");
    assert_eq!(record["order"], "stratified");
    for (name, rows, extra) in &edited {
        let path = write(name, rows);
        let output = decide(&path, extra);
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        assert!(
            stderr(&output).contains("the plan's rows are not the stratified draw of seed 1"),
            "{name}: {}",
            stderr(&output)
        );
        let record = &json_lines(&stdout(&output))[0];
        assert_eq!(record["order"], "file", "{name}");
        assert!(
            record["validity"]
                .as_str()
                .is_some_and(|v| v.starts_with("descriptive")),
            "{name}: {}",
            record["validity"]
        );
        if *name == "cherry.csv" {
            // What the label protects against: the cherry-picked rows promote at once.
            assert_eq!(record["action"], "promote", "{record}");
        }
        // serve reads the plan as decide does.
        let mut args = vec![
            "--plan",
            path.as_str(),
            "--tested",
            tested,
            "--baseline",
            baseline,
        ];
        args.extend_from_slice(extra);
        let served = serve_output(&args, b"{\"op\":\"decide\"}\n");
        assert!(
            stderr(&served).contains("the plan's rows are not the stratified draw of seed 1"),
            "{name}: {}",
            stderr(&served)
        );
        let reply = &json_lines(&stdout(&served))[0];
        assert_eq!(reply["records"][0]["order"], "file", "{name}");
    }
    // run says it once (its notices repeated the setup's notes on stderr).
    let swapped = dir.join("swapped.csv").display().to_string();
    let out = dir.join("run-out.csv").display().to_string();
    let ran = pareval(&[
        "run",
        &out,
        "--plan",
        &swapped,
        "--tested",
        tested,
        "--baseline",
        baseline,
        "--",
        "true",
    ]);
    assert_eq!(
        stderr(&ran)
            .matches("the plan's rows are not the stratified draw of seed 1")
            .count(),
        1,
        "{}",
        stderr(&ran)
    );
}

/// A budget under the anytime rule (watch's, serve's and run's default) was written into the records
/// and otherwise ignored: the run read past it and the harness went on spending. It now caps what is
/// read, an undecided pair abstains at the limit, and `run` ends the harness there.
#[test]
fn run_ends_a_harness_at_the_budget_limit_under_the_anytime_rule() {
    let dir = temp_dir("run-anytime-budget");
    let plan = write_plan(&dir, 40);
    let out = dir.join("out.csv");
    // Two systems that tie on every task: no anytime test crosses.
    let script = format!(
        r#"echo "system,task,outcome" > {out}
for i in $(seq 0 39); do
  t=$(printf 't%03d' "$i")
  echo "new,$t,$((i % 2))" >> {out}
  echo "old,$t,$((i % 2))" >> {out}
  sleep 0.1
done
"#,
        out = out.display()
    );
    let harness = dir.join("harness.sh");
    std::fs::write(&harness, script).expect("script");
    let harness_text = harness.display().to_string();
    let output = run_new_against_old(
        &out,
        &plan,
        &[
            "--budget",
            "0.25",
            "--format",
            "json",
            "--",
            "sh",
            &harness_text,
        ],
    );
    let note = stderr(&output);
    assert!(output.status.success(), "{note}");
    let records = json_lines(&stdout(&output));
    assert_eq!(records.len(), 1, "{note}");
    assert_eq!(records[0]["rule"], "anytime");
    assert_eq!(records[0]["action"], "abstain", "{}", records[0]["reason"]);
    assert_eq!(records[0]["observed"], 10);
    assert!(note.contains("the harness was ended"), "{note}");
    // Not "decided": the run reached its budget limit with an abstain.
    assert!(
        note.contains("pareval run: reached its budget limit with an abstain after"),
        "{note}"
    );
    let rows = std::fs::read_to_string(&out).expect("rows").lines().count();
    assert!(rows < 81, "the harness wrote all {rows} lines");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--preset` written on a live command's line brings its rule, in run, watch and serve as in
/// decide (they put the anytime rule in its place, so the same preset decided differently).
#[test]
fn a_live_commands_preset_brings_its_own_rule() {
    let dir = temp_dir("live-preset-rule");
    let plan = write_plan(&dir, 4);
    let out = dir.join("out.csv");
    let harness = four_task_harness(&dir, &out, true);
    let run = run_new_against_old(
        &out,
        &plan,
        &[
            "--preset", "primary", "--budget", "1", "--format", "json", "--", "sh", &harness,
        ],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let decide = pareval(&[
        "decide",
        &out.display().to_string(),
        "--plan",
        &plan,
        "--tested",
        "new",
        "--baseline",
        "old",
        "--preset",
        "primary",
        "--budget",
        "1",
    ]);
    for output in [&run, &decide] {
        let records = json_lines(&stdout(output));
        assert_eq!(records[0]["rule"], "bootstrap", "{}", stdout(output));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A writer that flushed mid-line can leave a last line with the right count of fields that is cut
/// short ("g" of "ga"): decide refused the whole file on it (exit 2) where watch waits for the line
/// end. It now sets that line aside with a note giving the refusal; a file refused for another line
/// is still refused.
#[test]
fn decide_sets_aside_a_whole_looking_last_line_the_files_are_refused_on() {
    let dir = temp_dir("decide-cut-last-line");
    let plan = dir.join("plan.csv");
    std::fs::write(&plan, "task,group\nt000,ga\nt001,ga\nt002,gb\n").expect("plan");
    let plan = plan.display().to_string();
    let out = dir.join("out.csv");
    let rows = "system,task,outcome,group\nold,t000,1,ga\nnew,t000,1,ga\nold,t001,0,ga\n";
    std::fs::write(&out, format!("{rows}new,t001,1,g")).expect("rows");
    let out_text = out.display().to_string();
    // Another file that ends without a line end in a whole record keeps it.
    let other = dir.join("other.csv");
    std::fs::write(&other, "system,task,outcome,group\nold,t002,1,gb").expect("other");
    let output = pareval(&[
        "decide",
        &out_text,
        &other.display().to_string(),
        "--plan",
        &plan,
        "--tested",
        "new",
        "--baseline",
        "old",
        "--rule",
        "anytime",
    ]);
    let note = stderr(&output);
    assert!(output.status.success(), "{note}");
    assert!(!note.contains("other.csv: line"), "{note}");
    let output = decide_anytime(&out_text, &plan, ("new", "old"), &[]);
    let note = stderr(&output);
    assert!(output.status.success(), "{note}");
    assert!(
        note.contains("line 5 has no line end and is not a valid record yet")
            && note.contains("has group 'ga' on line 4 but 'g' on line 5"),
        "{note}"
    );
    let records = json_lines(&stdout(&output));
    assert_eq!(records[0]["observed"], 1);
    assert_eq!(records[0]["action"], "continue");
    // The line ended: read, and t001 is in.
    std::fs::write(&out, format!("{rows}new,t001,1,ga\n")).expect("rows");
    let output = decide_anytime(&out_text, &plan, ("new", "old"), &[]);
    assert_eq!(json_lines(&stdout(&output))[0]["observed"], 2);
    // A refusal the last line does not cause stands.
    std::fs::write(
        &out,
        "system,task,outcome,group\nold,t000,1,ga\nnew,t000,1,gb\nold,t001,0,ga\nnew,t001,1,ga",
    )
    .expect("rows");
    assert_refused(
        &decide_anytime(&out_text, &plan, ("new", "old"), &[]),
        "has group 'ga' on line 2 but 'gb' on line 3",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// At a run's start the tested system may have no row yet while its baseline has some: decide
/// refused ("--tested 'new' is not a system of the records", exit 2) where watch and serve
/// continue. It continues, with 0 read, and says so.
#[test]
fn decide_continues_when_a_named_system_has_no_rows_yet() {
    let dir = temp_dir("decide-no-rows-yet");
    let plan = write_plan(&dir, 3);
    let rows = dir.join("rows.csv");
    std::fs::write(&rows, "system,task,outcome\nold,t000,1\n").expect("rows");
    let output = decide_anytime(&rows.display().to_string(), &plan, ("new", "old"), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("--tested 'new' has no rows in the outcome files yet: read as no outcomes"),
        "{}",
        stderr(&output)
    );
    let records = json_lines(&stdout(&output));
    assert_eq!(
        (
            records[0]["action"].as_str(),
            records[0]["observed"].as_u64()
        ),
        (Some("continue"), Some(0))
    );
    assert_eq!(
        records[0]["waiting_on"]["systems"],
        serde_json::json!(["new"])
    );
    // A name close to one with rows is a typo, refused as before.
    std::fs::write(&rows, "system,task,outcome\nold,t000,1\nnew-agent,t000,1\n").expect("rows");
    assert_refused(
        &decide_anytime(&rows.display().to_string(), &plan, ("new", "old"), &[]),
        "--tested 'new' is not a system of the records; did you mean 'new-agent'?",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn decide_reads_a_file_with_no_rows_yet_as_none_and_still_checks_its_header() {
    // A run that has just begun: one system's file holds only its header, another is empty.
    let dir = temp_dir("decide-header-only");
    let plan = write_plan(&dir, 3);
    let new = dir.join("new.csv");
    let old = dir.join("old.csv");
    let empty = dir.join("later.csv");
    std::fs::write(&new, "system,task,outcome\n").expect("rows");
    std::fs::write(&old, "system,task,outcome\nold,t000,1\n").expect("rows");
    std::fs::write(&empty, "").expect("rows");
    let (new_file, others) = (
        new.display().to_string(),
        [old.display().to_string(), empty.display().to_string()],
    );
    let others: Vec<&str> = others.iter().map(String::as_str).collect();
    let output = decide_anytime(&new_file, &plan, ("new", "old"), &others);
    let notes = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{notes}");
    for note in [
        "new.csv: no rows yet (only its header): nothing read from it",
        "later.csv: no rows yet (the file is empty): nothing read from it",
    ] {
        assert!(notes.contains(note), "{note}: {notes}");
    }
    let records = json_lines(&stdout(&output));
    assert_eq!(
        (
            records[0]["action"].as_str(),
            records[0]["observed"].as_u64()
        ),
        (Some("continue"), Some(0))
    );
    // Its header is still read: a column missing there is missing from the rows to come.
    std::fs::write(&new, "system,task,score\n").expect("rows");
    assert_refused(
        &decide_anytime(&new_file, &plan, ("new", "old"), &others),
        "missing required column 'outcome'",
    );
    // Records read as finished still refuse a file with no rows: serve's baseline records (a
    // completed run; it said "its systems are" and named none), and info.
    std::fs::write(&new, "system,task,outcome\n").expect("rows");
    assert_refused(
        &pareval(&[
            "serve",
            "--plan",
            &plan,
            "--tested",
            "old",
            "--baseline",
            "new",
            &new_file,
        ]),
        "new.csv: no rows: a baseline's records are its completed run",
    );
    assert_refused(
        &pareval(&["info", &new.display().to_string()]),
        "the file has no records (only a header or an empty list)",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The usual set-up of a team's own harness: it writes `system,task,outcome,run` (no `group`), and
/// the baseline is its completed record, which has one. `run` and `watch` decided on such files, and
/// `decide` on the files `run` left refused them ("task 'airline/12' has group no group … but
/// 'airline'"), so `run`'s records lost the outcome files' hashes too. A file without the column
/// says nothing of it: the groups are read from the files that have it, with a note. Real records:
/// HAL's TAU-bench, o1 against gpt-4o-mini.
#[test]
fn outcome_files_without_the_group_column_are_read_beside_a_record_with_it() {
    let Some(data) = crate::common::shared_data() else {
        return;
    };
    let record = data.join("hal_taubench/records.csv");
    let text = std::fs::read_to_string(&record).expect("records");
    let tested = "TAU-bench ToolCalling (o1-2024-12-17 med.)";
    let baseline = "TAU-bench ToolCalling (gpt-4o-mini-2024-07-18)";
    let dir = temp_dir("no-group-column");
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    let columns: Vec<&str> = header.split(',').collect();
    let at = |name: &str| columns.iter().position(|c| *c == name).expect(name);
    let mut base = format!("{header}\n");
    let mut bare = String::from("system,task,outcome,run\n");
    let mut grouped = String::from("system,task,outcome,run,group\n");
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        if cells[0] == baseline {
            base.push_str(&format!("{line}\n"));
        } else if cells[0] == tested {
            let (task, outcome, run) = (cells[at("task")], cells[at("outcome")], cells[at("run")]);
            bare.push_str(&format!("{tested},{task},{outcome},{run}\n"));
            grouped.push_str(&format!(
                "{tested},{task},{outcome},{run},{}\n",
                cells[at("group")]
            ));
        }
    }
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect(name);
        path.display().to_string()
    };
    let (base, bare, grouped) = (
        write("base.csv", &base),
        write("bare.csv", &bare),
        write("grouped.csv", &grouped),
    );
    let plan = dir.join("plan.csv").display().to_string();
    let planned = pareval(&[
        "plan",
        &record.display().to_string(),
        "--seed",
        "7",
        "--out",
        &plan,
    ]);
    assert!(planned.status.success(), "{}", stderr(&planned));
    let decide = |outcomes: &str| {
        let output = pareval(&[
            "decide",
            outcomes,
            &base,
            "--plan",
            &plan,
            "--tested",
            tested,
            "--baseline",
            baseline,
            "--rule",
            "anytime",
            "--format",
            "json",
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        output
    };
    let without = decide(&bare);
    assert!(
        stderr(&without).contains(
            "bare.csv has no column 'group': the tasks' groups are read from the files that have it"
        ),
        "{}",
        stderr(&without)
    );
    // The decision is the one read with the groups written into the outcome file.
    let with = json_lines(&stdout(&decide(&grouped)));
    let without = json_lines(&stdout(&without));
    for (a, b) in with.iter().zip(&without) {
        assert_eq!(a["action"], b["action"]);
        assert_eq!(a["decided_at"], b["decided_at"]);
        assert_eq!(a["statistic"], b["statistic"]);
    }
    assert_eq!(with[0]["action"], "promote", "{:?}", with[0]);
    // `run` on a harness writing the bare file: its records name the outcome files with hashes.
    let out = dir.join("out.csv");
    let ran = pareval(&[
        "run",
        &out.display().to_string(),
        &base,
        "--plan",
        &plan,
        "--tested",
        tested,
        "--baseline",
        baseline,
        "--format",
        "json",
        "--",
        "sh",
        "-c",
        &format!("cp '{bare}' '{}'; sleep 30", out.display()),
    ]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    assert!(
        !stderr(&ran).contains("the records name the plan only"),
        "{}",
        stderr(&ran)
    );
    let ran = json_lines(&stdout(&ran));
    let files = ran[0]["provenance"]["files"].as_array().expect("files");
    assert!(
        files.iter().any(
            |f| f["path"].as_str().is_some_and(|p| p.ends_with("out.csv"))
                && f["sha256"].is_string()
        ),
        "{files:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `serve` reads systems and tasks as written, as `decide`, `watch` and `run` do: it trimmed them, so
/// a planned task ' t1' could never be sent ("task 't1' is not in the plan") and a 't2 ' or an 'A '
/// was taken for 't2' and 'A'. A run id and a status are trimmed, as the loader parses them.
#[test]
fn serve_reads_names_as_written() {
    let dir = temp_dir("serve-names");
    let plan = dir.join("plan.csv");
    std::fs::write(&plan, "task\n\" t1\"\nt2\n").expect("plan");
    let plan = plan.display().to_string();
    let replies = serve_replies(
        &["--plan", &plan, "--tested", "A", "--baseline", "B"],
        &[
            r#"{"op":"outcome","system":"A","task":" t1","run":" 0 ","outcome":1,"status":" ok"}"#,
            r#"{"op":"outcome","system":"A","task":"t2 ","outcome":1}"#,
            r#"{"op":"outcome","system":"A ","task":"t2","outcome":1}"#,
            r#"{"op":"check","tasks":[" t1","t2"]}"#,
        ],
    );
    assert_eq!(replies[0]["ok"], true, "{}", replies[0]);
    assert!(
        error(&replies[1]).contains("task 't2 ' is not in the plan"),
        "{}",
        replies[1]
    );
    assert!(
        error(&replies[2]).contains("system 'A ' is neither the tested system (A)"),
        "{}",
        replies[2]
    );
    assert_eq!(
        replies[3]["missing"],
        serde_json::json!([]),
        "{}",
        replies[3]
    );
    assert_eq!(
        replies[3]["unplanned"],
        serde_json::json!([]),
        "{}",
        replies[3]
    );
    // A byte order mark before the first request is skipped, as the loader skips one (it said "not
    // a JSON object … column 1").
    let output = serve_output(
        &["--plan", &plan, "--tested", "A", "--baseline", "B"],
        "\u{feff}{\"op\":\"plan\"}\n".as_bytes(),
    );
    let reply: Value = serde_json::from_slice(&output.stdout).expect("reply");
    assert_eq!(reply["ok"], true, "{reply}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A baseline named twice was kept twice: a family of 3 for two baselines, the adjusted decisions
/// moved (AppWorld's ReAct reject from look 171 to 173). Refused, by every live command.
#[test]
fn a_baseline_named_twice_is_refused() {
    let dir = temp_dir("baseline-twice");
    let plan = write_plan(&dir, 4);
    let rows = dir.join("rows.csv");
    std::fs::write(
        &rows,
        "system,task,outcome\nnew,t000,1\nold,t000,0\nolder,t000,0\n",
    )
    .expect("rows");
    let rows = rows.display().to_string();
    let said = "--baseline: 'old' is named twice";
    for args in [
        vec![
            "decide",
            &rows,
            "--plan",
            &plan,
            "--tested",
            "new",
            "--baseline",
            "old,older,old",
        ],
        vec![
            "serve",
            "--plan",
            &plan,
            "--tested",
            "new",
            "--baseline",
            "old",
            "--baseline",
            "old",
        ],
        vec![
            "run",
            &rows,
            "--plan",
            &plan,
            "--tested",
            "new",
            "--baseline",
            "old, old",
            "--",
            "true",
        ],
    ] {
        let output = pareval(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(said),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `watch` and `run` refuse a path followed twice, as the loader refuses a file read twice: `run`
/// decided on a file named twice and its records then lost the outcome files' hashes ("the file is
/// given twice"), where `decide` on the same paths refused them.
#[test]
fn live_followers_refuse_a_path_given_twice() {
    let dir = temp_dir("follow-twice");
    let plan = write_plan(&dir, 4);
    let rows = dir.join("rows.csv");
    std::fs::write(&rows, "system,task,outcome\nnew,t000,1\nold,t000,0\n").expect("rows");
    let rows = rows.display().to_string();
    let folder = dir.display().to_string();
    for files in [
        [rows.as_str(), rows.as_str()],
        [folder.as_str(), rows.as_str()],
    ] {
        let mut args = vec!["run", files[0], files[1]];
        args.extend([
            "--plan",
            &plan,
            "--tested",
            "new",
            "--baseline",
            "old",
            "--",
            "true",
        ]);
        let output = pareval(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{files:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("the file is read twice (beside "),
            "{files:?}: {}",
            stderr(&output)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
