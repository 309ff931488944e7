//! `pareval plan`: seeded plans from task lists and records, the quotas every prefix meets, neyman
//! from a reference record, cheap-first, bad input; and `decide --plan` reading a plan in position
//! order whatever the row order of the file.

use std::path::{Path, PathBuf};

use crate::common::{assert_refused, pareval, stderr, stdout, temp_dir};

fn sample(name: &str) -> String {
    format!("{}/sample_runs/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// 40 tasks in three groups of 24, 12 and 4, with costs.
fn task_list(dir: &Path) -> PathBuf {
    let mut text = String::from("task,group,cost_usd\n");
    for i in 0..40 {
        let group = match i % 10 {
            0..=5 => "big",
            6..=8 => "mid",
            _ => "small",
        };
        text.push_str(&format!("task-{i:02},{group},{}\n", (i * 7) % 13));
    }
    let path = dir.join("tasks.csv");
    std::fs::write(&path, text).expect("write");
    path
}

/// The plan file's rows as (position, task, group).
fn read_plan(path: &Path) -> Vec<(usize, String, String)> {
    std::fs::read_to_string(path)
        .expect("plan")
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            (
                cells[0].parse().expect("position"),
                cells[1].to_string(),
                cells[2].to_string(),
            )
        })
        .collect()
}

#[test]
fn a_stratified_plan_covers_every_group_at_every_prefix_and_is_seeded() {
    let dir = temp_dir("plan-stratified");
    let list = task_list(&dir);
    let list = list.to_string_lossy();
    let write = |seed: &str, name: &str| {
        let path = dir.join(name);
        let out = pareval(&[
            "plan",
            &list,
            "--seed",
            seed,
            "--out",
            &path.to_string_lossy(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stdout(&out).contains("plan of 40 tasks"),
            "{}",
            stdout(&out)
        );
        path
    };
    let (first, again, other) = (
        write("3", "a.csv"),
        write("3", "b.csv"),
        write("4", "c.csv"),
    );
    assert_eq!(
        std::fs::read(&first).expect("a"),
        std::fs::read(&again).expect("b")
    );
    let rows = read_plan(&first);
    assert_ne!(rows, read_plan(&other), "another seed, another order");
    assert_eq!(
        rows.iter().map(|r| r.0).collect::<Vec<_>>(),
        (1..=40).collect::<Vec<_>>()
    );
    let mut tasks: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    tasks.sort();
    tasks.dedup();
    assert_eq!(tasks.len(), 40, "every task once");
    // Every prefix where the quotas are feasible (they sum to at most k) meets them.
    let groups = [("big", 24), ("mid", 12), ("small", 4)];
    for k in 1..=40u32 {
        let quota = |size| pareval::engine::coverage::quota(k, size, 40);
        if groups.iter().map(|&(_, n)| quota(n)).sum::<u32>() > k {
            continue;
        }
        for (group, size) in groups {
            let have = rows[..k as usize].iter().filter(|r| r.2 == group).count() as u32;
            assert!(
                have >= quota(size),
                "{group} at {k}: {have} < {}",
                quota(size)
            );
        }
    }
}

#[test]
fn plans_from_records_neyman_and_cheap_first() {
    let dir = temp_dir("plan-kinds");
    let records = sample("swe_repair.csv");
    // A records file: its tasks and group column are taken; JSON summary.
    let out = pareval(&["plan", &records, "--order", "uniform", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let info = pareval(&["info", &records, "--format", "json"]);
    let info: serde_json::Value = serde_json::from_str(&stdout(&info)).expect("info");
    assert_eq!(
        json["tasks"].as_array().map(Vec::len),
        info["n_tasks"].as_u64().map(|n| n as usize)
    );
    assert_eq!(json["order"], "uniform");
    assert_eq!(json["random_sample"], true);
    // Neyman needs the reference record's spreads.
    assert_refused(
        &pareval(&["plan", &records, "--order", "neyman"]),
        "--reference",
    );
    let out = pareval(&[
        "plan",
        &records,
        "--order",
        "neyman",
        "--reference",
        &records,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("neyman spreads σ_g"),
        "{}",
        stdout(&out)
    );
    // Cheap-first: costs never fall along the plan, and the summary says it is not a random sample.
    let list = task_list(&dir);
    let path = dir.join("cheap.jsonl");
    let out = pareval(&[
        "plan",
        &list.to_string_lossy(),
        "--order",
        "cheap-first",
        "--out",
        &path.to_string_lossy(),
    ]);
    assert!(
        stdout(&out).contains("not a random sample"),
        "{}",
        stdout(&out)
    );
    let costs: Vec<f64> = std::fs::read_to_string(&path)
        .expect("plan")
        .lines()
        .map(|l| {
            let row: serde_json::Value = serde_json::from_str(l).expect("row");
            row["cost_usd"].as_f64().expect("cost")
        })
        .collect();
    assert_eq!(costs.len(), 40);
    assert!(costs.windows(2).all(|w| w[0] <= w[1]), "{costs:?}");
}

#[test]
fn bad_task_lists_are_refused() {
    let dir = temp_dir("plan-bad");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        path.to_string_lossy().into_owned()
    };
    let duplicate = write("dup.csv", "task,group\na,x\nb,x\na,y\n");
    assert_refused(
        &pareval(&["plan", &duplicate]),
        "task 'a' on line 2 and line 4",
    );
    let cost = write("cost.csv", "task,cost_usd\na,1\nb,cheap\n");
    assert_refused(&pareval(&["plan", &cost]), "'cheap' on line 3");
    let plain = write("plain.csv", "task\na\nb\n");
    assert_refused(
        &pareval(&["plan", &plain, "--group-col", "repo"]),
        "no column 'repo'",
    );
    assert_refused(
        &pareval(&["plan", &plain, "--order", "sorted"]),
        "'sorted' is not one of",
    );
    assert_refused(
        &pareval(&["plan", &plain, "--order", "cheap-first"]),
        "neither",
    );
}

#[test]
fn decide_reads_a_plan_in_position_order() {
    let dir = temp_dir("plan-decide");
    let records = sample("swe_repair.csv");
    let plan = dir.join("plan.csv");
    let out = pareval(&[
        "plan",
        &records,
        "--out",
        &plan.to_string_lossy(),
        "--seed",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The same plan with its rows reversed: positions, not row order, give the order.
    let text = std::fs::read_to_string(&plan).expect("plan");
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.remove(0);
    lines.reverse();
    let reversed = dir.join("reversed.csv");
    std::fs::write(&reversed, format!("{header}\n{}\n", lines.join("\n"))).expect("write");
    let info = pareval(&["info", &records, "--format", "json"]);
    let info: serde_json::Value = serde_json::from_str(&stdout(&info)).expect("info");
    let system = |i: usize| {
        info["systems"][i]["system"]
            .as_str()
            .expect("name")
            .to_string()
    };
    let (tested, baseline) = (system(0), system(1));
    let decide = |plan: &Path| {
        let out = pareval(&[
            "decide",
            &records,
            "--plan",
            &plan.to_string_lossy(),
            "--tested",
            &tested,
            "--baseline",
            &baseline,
            "--budget",
            "0.5",
            "--rule",
            "anytime",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let record: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("record");
        (
            record["action"].clone(),
            record["statistic"].clone(),
            record["observed"].clone(),
        )
    };
    assert_eq!(decide(&plan), decide(&reversed));
    // A position column that does not number the tasks 1 … N is refused.
    let broken = dir.join("broken.csv");
    let decide_broken = || {
        pareval(&[
            "decide",
            &records,
            "--plan",
            &broken.to_string_lossy(),
            "--tested",
            &tested,
            "--baseline",
            &baseline,
            "--budget",
            "0.5",
        ])
    };
    std::fs::write(&broken, text.replacen("\n1,", "\n7,", 1)).expect("write");
    assert_refused(&decide_broken(), "column 'position' must number the tasks");
    // A position given twice names both lines and the position no row has.
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let at = header
        .iter()
        .position(|c| *c == "position")
        .expect("position");
    let mut twice = String::from(lines[0]);
    for (i, line) in lines[1..].iter().enumerate() {
        let mut fields: Vec<&str> = line.split(',').collect();
        if i == 4 {
            fields[at] = "9";
        }
        twice.push('\n');
        twice.push_str(&fields.join(","));
    }
    twice.push('\n');
    std::fs::write(&broken, twice).expect("write");
    assert_refused(
        &decide_broken(),
        "each once (no row has position 5): '9' on line 10 (also on line 6)",
    );
}

/// AppWorld's first 200 tasks of a stratified plan, as the outcomes so far of a live run.
fn appworld_so_far(dir: &Path) -> Option<(String, String)> {
    let root = crate::common::shared_data()?;
    let records = root.join("hal_appworld/records.csv");
    let plan = dir.join("plan.csv");
    let out = pareval(&[
        "plan",
        &records.to_string_lossy(),
        "--seed",
        "3",
        "--out",
        &plan.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first: std::collections::HashSet<String> = read_plan(&plan)
        .into_iter()
        .take(200)
        .map(|r| r.1)
        .collect();
    let text = std::fs::read_to_string(&records).expect("records");
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    let task_column = header.split(',').position(|c| c == "task").expect("task");
    let mut kept = vec![header.to_string()];
    // The record has no quoted commas before the task column (checked by the count below).
    kept.extend(
        lines
            .filter(|l| first.contains(l.split(',').nth(task_column).unwrap_or("")))
            .map(str::to_string),
    );
    assert!(kept.len() > 200 * 10, "{} rows", kept.len());
    let so_far = dir.join("so_far.csv");
    std::fs::write(&so_far, kept.join("\n") + "\n").expect("write");
    Some((
        so_far.to_string_lossy().into_owned(),
        plan.to_string_lossy().into_owned(),
    ))
}

#[test]
fn decide_adjusts_a_tested_system_against_several_baselines() {
    let dir = temp_dir("decide-family");
    let Some((so_far, plan)) = appworld_so_far(&dir) else {
        return;
    };
    let tested = "FullCodeRefl (gpt-4o-2024-05-13)";
    let baselines = [
        "ReAct (gpt-4o-2024-05-13)",
        "PlanExec (gpt-4o-2024-05-13)",
        "IPFunCall (gpt-4o-2024-05-13)",
    ];
    let decide = |extra: &[&str]| -> Vec<serde_json::Value> {
        let mut args = vec![
            "decide", &so_far, "--plan", &plan, "--tested", tested, "--budget", "1", "--rule",
            "anytime",
        ];
        args.extend(extra);
        let out = pareval(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).expect("record"))
            .collect()
    };
    let joined = baselines.join(",");
    let unadjusted = decide(&["--baseline", &joined, "--adjust", "none"]);
    let holm = decide(&["--baseline", &joined]);
    assert_eq!((unadjusted.len(), holm.len()), (3, 3));
    for (i, baseline) in baselines.iter().enumerate() {
        // Unadjusted, each baseline decides as it would alone.
        let alone = decide(&["--baseline", baseline]);
        for field in ["action", "statistic", "observed", "estimate"] {
            assert_eq!(unadjusted[i][field], alone[0][field], "{baseline} {field}");
        }
        assert_eq!(holm[i]["family"], "tested");
        assert_eq!(holm[i]["adjust"], "holm");
        assert_eq!(holm[i]["family_size"], 3);
        // Holm decides a pair only if its own test would.
        if holm[i]["action"] != "continue" {
            assert_eq!(holm[i]["action"], alone[0]["action"]);
        }
    }
    // At 200 of 585 tasks the ReAct baseline is rejected alone: the plan is stratified, so the §9a
    // test decides, its Λ⁻ past ln(1/a) = ln 20, and it stops there. In the family of three it goes on
    // to ln(3/a) instead (a statistic frozen at 1/a could never meet Holm's 0.05/3), so Holm rejects
    // with p ≤ 0.05/3.
    let wealth = |r: &serde_json::Value| r["statistic"]["log_reject"].as_f64().expect("Λ⁻").exp();
    assert_eq!(unadjusted[0]["statistic"]["kind"], "stratified");
    assert_eq!(unadjusted[0]["action"], "reject", "{}", unadjusted[0]);
    assert!(wealth(&unadjusted[0]) >= 20.0, "{}", unadjusted[0]);
    assert_eq!(holm[0]["action"], "reject", "{}", holm[0]);
    assert!(wealth(&holm[0]) >= 3.0 / 0.05, "{}", holm[0]);
    assert!(holm[0]["family_evidence"].as_f64() <= Some(0.05 / 3.0));
    // PlanExec is behind by less: not rejected alone, and not in the family.
    assert_eq!(holm[1]["action"], "continue", "{}", holm[1]);
    // Every other system as a baseline.
    let everyone = decide(&["--family", "tested", "--thresholds", "0,5"]);
    assert_eq!(everyone.len(), 13 * 2);
    let out = pareval(&[
        "decide",
        &so_far,
        "--plan",
        &plan,
        "--tested",
        tested,
        "--baseline",
        &joined,
        "--budget",
        "1",
        "--rule",
        "anytime",
        "--format",
        "text",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("vs ReAct (gpt-4o-2024-05-13), 0 pp: reject"),
        "{text}"
    );
    assert!(
        text.contains("at most 385 more tasks in the plan"),
        "{text}"
    );
    assert!(text.contains("holm over a family of 3"), "{text}");
    // Refusals.
    let refuse = |extra: &[&str], needle: &str| {
        let mut args = vec![
            "decide", &so_far, "--plan", &plan, "--tested", tested, "--budget", "1",
        ];
        args.extend(extra);
        assert_refused(&pareval(&args), needle);
    };
    refuse(&["--family", "all"], "is not 'tested'");
    refuse(
        &["--family", "tested", "--baseline", baselines[0]],
        "leave out --baseline",
    );
    refuse(&["--baseline", tested], "is the tested system");
    refuse(
        &["--baseline", &joined, "--adjust", "sometimes"],
        "sometimes",
    );
}

/// `watch` on a folder: a harness's run folder copied in is read whole once it stops changing (its
/// rows are the importer's), and read again, with a notice, when it changes.
#[test]
fn a_watched_folder_reads_a_harness_run_folder_added_to_it() {
    use pareval::watch::follow::{Event, Followed};
    let Some(root) = crate::common::shared_data() else {
        return;
    };
    let source = root.join("../formats/terminal_bench/orchestrator_claude-4.1-opus/results.json");
    if !source.exists() {
        crate::common::missing(&format!("{}", source.display()));
        return;
    }
    let dir = temp_dir("watch-folder");
    let mut followed = Followed::new(std::slice::from_ref(&dir)).expect("followed");
    assert!(followed.poll().is_empty());
    let run = dir.join("orchestrator_claude-4.1-opus");
    std::fs::create_dir_all(&run).expect("run folder");
    std::fs::copy(&source, run.join("results.json")).expect("copy");
    let rows = |events: &[Event]| {
        events
            .iter()
            .filter(|e| matches!(e, Event::Row { .. }))
            .count()
    };
    // First seen: it may still be being written, so it waits one poll.
    assert_eq!(rows(&followed.poll()), 0);
    let events = followed.poll();
    // `pareval import terminal-bench` writes 400 rows (80 tasks × 5 runs), every one with an outcome.
    assert_eq!(
        rows(&events),
        400,
        "{:?}",
        events.iter().find(|e| !matches!(e, Event::Row { .. }))
    );
    assert!(followed.poll().is_empty(), "read once");
    // Rewritten (a harness updating its results): read again from the start.
    let text = std::fs::read_to_string(run.join("results.json")).expect("read");
    std::fs::write(run.join("results.json"), format!("{text}\n")).expect("rewrite");
    followed.poll();
    let events = followed.poll();
    assert!(
        matches!(events.first(), Some(Event::Reread { .. })),
        "{:?}",
        events.first()
    );
    assert_eq!(rows(&events), 400);
    // A JSON file no harness wrote is named, not skipped silently.
    std::fs::write(dir.join("notes.json"), "{\"hello\": 1}").expect("notes");
    followed.poll();
    let events = followed.poll();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Bad { file, .. } if file.ends_with("notes.json"))),
        "{events:?}"
    );
}

#[test]
fn plans_are_drawn_from_a_harness_s_own_results_too() {
    let dir = temp_dir("plan-native");
    // A Harbor job folder (its tasks) and an Inspect log (its samples, grouped by the Inspect task).
    let job = format!(
        "{}/tests/fixtures/harbor/jobs/2026-05-14__10-02-33",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = dir.join("plan.csv");
    let output = pareval(&["plan", &job, "--out", &out.to_string_lossy()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let mut tasks: Vec<String> = read_plan(&out).into_iter().map(|(_, t, _)| t).collect();
    tasks.sort();
    assert_eq!(tasks, ["fix-git", "regex-log"]);
    let folder = format!(
        "{}/tests/fixtures/inspect_eval_set",
        env!("CARGO_MANIFEST_DIR")
    );
    let output = pareval(&["plan", &folder, "--out", &out.to_string_lossy()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let planned = read_plan(&out);
    assert_eq!(planned.len(), 10);
    assert!(
        planned
            .iter()
            .any(|(_, t, g)| t == "beta/q4" && g == "beta"),
        "{planned:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_task_list_group_literally_called_none_is_not_merged_with_tasks_without_one() {
    let dir = temp_dir("plan-literal-none");
    let path = dir.join("tasks.csv");
    std::fs::write(&path, "task,group\na,(none)\nb,\nc,x\nd,(none)\n").expect("write");
    let output = pareval(&["plan", &path.to_string_lossy(), "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let plan: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert_eq!(
        plan["groups"],
        serde_json::json!([["(no value)", 1], ["(none)", 2], ["x", 1]])
    );
}

/// `plan --reference` under an order other than neyman was read and passed over, and cheap-first
/// put tasks without a cost last, both without a word: each is noted on stderr now.
#[test]
fn plan_notes_a_reference_it_does_not_read_and_tasks_without_a_cost() {
    let dir = temp_dir("plan-notes");
    let list = dir.join("tasks.csv");
    std::fs::write(&list, "task,group,cost_usd\na,x,1\nb,x,\nc,y,2\nd,y,\n").expect("write");
    let list = list.display().to_string();
    let output = pareval(&[
        "plan",
        &list,
        "--order",
        "cheap-first",
        "--reference",
        "sample_runs/swe_repair.csv",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let notes = stderr(&output);
    assert!(
        notes.contains("note: --reference 'sample_runs/swe_repair.csv' is not read: only --order neyman takes each group's spread from a reference record, and this plan's order is cheap-first"),
        "{notes}"
    );
    assert!(
        notes.contains(
            "note: 2 of 4 tasks have no cost_usd: cheap-first puts them last, in name order"
        ),
        "{notes}"
    );
    // Not read, so a reference that is no record is no error either.
    let quiet = pareval(&["plan", &list, "--reference", "/nonexistent/ref.csv"]);
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    assert!(
        !stderr(&quiet).contains("no cost_usd"),
        "{}",
        stderr(&quiet)
    );
}
