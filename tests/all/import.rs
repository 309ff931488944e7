//! Importers on the real harness files in `../shared/formats/`: `pareval import` and `pareval info
//! --from` reproduce, for every tau-bench, tau2 and Terminal-Bench file there, the figures its
//! `expected.json` entry states (read from that file, not copied here); and bad native input stops with
//! exit code 2 naming the file and entry.

use std::path::Path;

use serde_json::Value;

use crate::common::{
    assert_refused, copy_tree, fixture, flat, pareval, shared_data, stderr, stdout, temp_dir,
};

/// The canonical rows `pareval import` writes, as JSON objects.
fn imported_rows(format: &str, file: &Path, out: &Path) -> Vec<Value> {
    let output = pareval(&[
        "import",
        format,
        &file.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    std::fs::read_to_string(out)
        .expect("read the import")
        .lines()
        .map(|line| {
            crate::import_formats::as_canonical_text(
                serde_json::from_str(line).expect("a JSON line"),
            )
        })
        .collect()
}

/// `pareval info PATH` (which must succeed), its output's words joined by single spaces (the notes
/// are wrapped to the terminal's width).
fn info_words(path: &str) -> String {
    crate::import_formats::info_words(&[path])
}

fn number(row: &Value, key: &str) -> Option<f64> {
    row[key].as_str().and_then(|v| v.parse().ok())
}

/// `shared/formats/expected.json`: the figures an importer must reproduce, per file.
fn expected_figures(formats: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(formats.join("expected.json")).expect("expected.json"))
        .expect("expected.json is JSON")
}

#[test]
fn imports_reproduce_the_expected_figures_of_every_real_file() {
    let Some(data) = shared_data() else { return };
    let formats = data.join("../formats");
    let expected = expected_figures(&formats);
    let dir = temp_dir("import");
    let mut checked = 0;
    for (key, want) in expected.as_object().expect("an object") {
        let format = match key.split('/').next() {
            Some(folder) if folder.starts_with("swebench_") && folder != "swebench_ids" => {
                "swebench"
            }
            Some("lm_eval") => "lm-eval",
            Some("inspect_eval" | "inspect_json") => "inspect",
            Some("tau_bench") => "tau-bench",
            Some("tau2_bench") => "tau2",
            Some("terminal_bench") => "terminal-bench",
            _ => continue,
        };
        let file = formats.join(key);
        let out = dir.join(format!("{checked}.jsonl"));
        let rows = imported_rows(format, &file, &out);
        let count = |f: &dyn Fn(&Value) -> bool| rows.iter().filter(|r| f(r)).count() as u64;
        let ok = |r: &Value| r["status"] == "ok";
        let sum = |key: &str| rows.iter().filter_map(|r| number(r, key)).sum::<f64>();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        // lm-eval entries count lines: one filter, so one row a line.
        let want_rows = want["rows"].as_u64().or(want["lines"].as_u64());
        assert_eq!(Some(rows.len() as u64), want_rows, "{key}: rows");
        let tasks: std::collections::BTreeSet<&str> =
            rows.iter().filter_map(|r| r["task"].as_str()).collect();
        if let Some(want_tasks) = want["tasks"].as_u64().or(want["distinct_ids"].as_u64()) {
            assert_eq!(tasks.len() as u64, want_tasks, "{key}: tasks");
        }
        // Pre-v2 SWE-bench: the zeros are split by why.
        let zero_parts: u64 = [
            "outcome_0_applied_not_resolved",
            "outcome_0_no_apply",
            "absent_from_all_lists(no prediction)",
        ]
        .iter()
        .filter_map(|k| want[*k].as_u64())
        .sum();
        if zero_parts > 0 {
            assert_eq!(
                count(&|r| ok(r) && number(r, "outcome") == Some(0.0)),
                zero_parts,
                "{key}: zeros"
            );
        }
        let errors = count(&|r| r["status"] == "error");
        for (field, value) in want.as_object().expect("an entry") {
            match field.as_str() {
                "outcome_1" => assert_eq!(
                    Some(count(&|r| number(r, "outcome") == Some(1.0))),
                    value.as_u64(),
                    "{key}: {field}"
                ),
                "outcome_0_ok" => assert_eq!(
                    Some(count(&|r| ok(r) && number(r, "outcome") == Some(0.0))),
                    value.as_u64(),
                    "{key}: {field}"
                ),
                "status_error"
                | "status_error(is_resolved null)"
                | "status_error_no_logs"
                | "status_error(install_fail|reset_failed|test_errored|test_timeout, not resolved)" =>
                {
                    assert_eq!(Some(errors), value.as_u64(), "{key}: {field}")
                }
                "status_not_attempted" => assert_eq!(
                    Some(count(&|r| r["status"] == "not_attempted")),
                    value.as_u64(),
                    "{key}: {field}"
                ),
                "of_which_empty_patch" => assert_eq!(
                    Some(count(&|r| {
                        r["source"]
                            .as_str()
                            .is_some_and(|s| s.contains("empty patch"))
                    })),
                    value.as_u64(),
                    "{key}: {field}"
                ),
                "mean_outcome_over_300" => assert!(
                    close(sum("outcome") / 300.0, value.as_f64().expect("mean")),
                    "{key}: {field}"
                ),
                "groups" => {
                    let groups: std::collections::BTreeSet<&str> =
                        rows.iter().filter_map(|r| r["group"].as_str()).collect();
                    assert_eq!(Some(groups.len() as u64), value.as_u64(), "{key}: {field}");
                }
                "run(0-based)" => assert!(
                    rows.iter()
                        .all(|r| r["run"].as_str() == Some(value.to_string().as_str())),
                    "{key}: {field}"
                ),
                "error_task_ids" => {
                    // tau-bench's task is `<environment>/<task_id>`; the figures give the id.
                    let ids: Vec<String> = rows
                        .iter()
                        .filter(|r| r["status"] == "error")
                        .filter_map(|r| r["task"].as_str())
                        .map(|task| task.rsplit('/').next().unwrap_or(task).to_string())
                        .collect();
                    let want: Vec<String> = value
                        .as_array()
                        .expect("ids")
                        .iter()
                        .map(|v| v.to_string().trim_matches('"').to_string())
                        .collect();
                    assert_eq!(ids, want, "{key}: {field}");
                }
                "trial_values" | "trials" => {
                    let runs: std::collections::BTreeSet<u64> = rows
                        .iter()
                        .filter_map(|r| r["run"].as_str()?.parse().ok())
                        .collect();
                    let want: std::collections::BTreeSet<u64> = value
                        .as_array()
                        .expect("runs")
                        .iter()
                        .filter_map(Value::as_u64)
                        .collect();
                    assert_eq!(runs, want, "{key}: {field}");
                }
                "runs(0-based)" => {
                    for (run, n) in value.as_object().expect("runs") {
                        let seen = count(&|r| r["run"].as_str() == Some(run.as_str()));
                        assert_eq!(Some(seen), n.as_u64(), "{key}: run {run}");
                    }
                }
                "system" => assert!(rows.iter().all(|r| r["system"] == *value), "{key}: system"),
                "group" => {
                    // lm-eval lists the parent groups; the row's group is the one that holds the task.
                    let group = value.as_array().and_then(|g| g.first()).unwrap_or(value);
                    assert!(rows.iter().all(|r| r["group"] == *group), "{key}: group")
                }
                "system(eval.model)" => {
                    assert!(rows.iter().all(|r| r["system"] == *value), "{key}: system")
                }
                "task(eval.task)" => {
                    assert!(rows.iter().all(|r| r["group"] == *value), "{key}: group")
                }
                "epochs" => {
                    let runs: std::collections::BTreeSet<u64> = rows
                        .iter()
                        .filter_map(|r| r["run"].as_str()?.parse().ok())
                        .collect();
                    let want: std::collections::BTreeSet<u64> = value
                        .as_array()
                        .expect("epochs")
                        .iter()
                        .filter_map(|e| Some(e.as_u64()? - 1))
                        .collect();
                    assert_eq!(runs, want, "{key}: {field}");
                }
                "default_scorer(first key)" => assert!(
                    rows.iter()
                        .all(|r| r["source"].as_str().is_some_and(|s| s
                            .ends_with(&format!("scorer {}", value.as_str().unwrap_or_default())))),
                    "{key}: {field}"
                ),
                "errors" => assert_eq!(Some(errors), value.as_u64(), "{key}: {field}"),
                "rows_with_total_time" => assert_eq!(
                    Some(
                        rows.iter()
                            .filter(|r| number(r, "seconds").is_some())
                            .count() as u64
                    ),
                    value.as_u64(),
                    "{key}: {field}"
                ),
                "rows_with_cost" => assert_eq!(
                    Some(
                        rows.iter()
                            .filter(|r| number(r, "cost_usd").is_some())
                            .count() as u64
                    ),
                    value.as_u64(),
                    "{key}: {field}"
                ),
                "not_attempted_vs_sample_ids" => assert_eq!(
                    Some(count(&|r| r["status"] == "not_attempted")),
                    value.as_u64(),
                    "{key}: {field}"
                ),
                "system(model_name)" => {
                    assert!(rows.iter().all(|r| r["system"] == *value), "{key}: system")
                }
                "docs" => {
                    let task = want["task"].as_str().expect("task");
                    let docs: Vec<String> = value
                        .as_array()
                        .expect("docs")
                        .iter()
                        .map(|d| format!("{task}/{d}"))
                        .collect();
                    let seen: Vec<String> = rows
                        .iter()
                        .filter_map(|r| r["task"].as_str().map(str::to_string))
                        .collect();
                    assert_eq!(seen, docs, "{key}: docs");
                }
                "filters" | "metric" => {
                    let names: Vec<String> = match value {
                        Value::Array(items) => items
                            .iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect(),
                        other => vec![other.as_str().unwrap_or_default().to_string()],
                    };
                    assert!(
                        rows.iter().all(|r| names
                            .iter()
                            .any(|n| r["source"].as_str().is_some_and(|s| s.contains(n.as_str())))),
                        "{key}: {field}"
                    );
                }
                "sum_outcome" => assert!(
                    close(sum("outcome"), value.as_f64().expect("sum")),
                    "{key}: {field}"
                ),
                "mean_outcome" => assert!(
                    close(
                        sum("outcome") / rows.len() as f64,
                        value.as_f64().expect("mean")
                    ),
                    "{key}: {field}"
                ),
                "sum_agent_cost_usd" => assert!(
                    close(sum("cost_usd"), value.as_f64().expect("cost")),
                    "{key}: {field}"
                ),
                "sum_seconds(duration)" | "sum_seconds" => assert!(
                    (sum("seconds") - value.as_f64().expect("seconds")).abs() < 0.01,
                    "{key}: {field} {} vs {value}",
                    sum("seconds")
                ),
                "rows_with_seconds" => assert_eq!(
                    Some(
                        rows.iter()
                            .filter(|r| number(r, "seconds").is_some())
                            .count() as u64
                    ),
                    value.as_u64(),
                    "{key}: {field}"
                ),
                _ => {}
            }
        }
        // `info --from` reports the same rows and errors, and without --from the file is recognised
        // by its keys.
        let path = file.to_string_lossy();
        let from = pareval(&["info", &path, "--from", format, "--format", "json"]);
        assert_eq!(from.status.code(), Some(0), "{key}: {}", stderr(&from));
        let from: Value = serde_json::from_slice(&from.stdout).expect("info JSON");
        let info = pareval(&["info", &path, "--format", "json"]);
        assert_eq!(info.status.code(), Some(0), "{key}: {}", stderr(&info));
        let info: Value = serde_json::from_slice(&info.stdout).expect("info JSON");
        assert_eq!(
            from["systems"], info["systems"],
            "{key}: the same either way"
        );
        assert_eq!(Some(rows.len() as u64), info["n_rows"].as_u64(), "{key}");
        let errored: u64 = info["systems"]
            .as_array()
            .expect("systems")
            .iter()
            .filter_map(|s| s["errored"].as_u64())
            .sum();
        assert_eq!(errored, errors, "{key}");
        assert!(
            info["notes"].as_array().expect("notes").iter().any(|n| n
                .as_str()
                .is_some_and(|n| n.contains(&format!("read as {format}")))),
            "{key}: the detected format is named"
        );
        checked += 1;
    }
    assert_eq!(
        checked, 27,
        "six SWE-bench, six Inspect, eight lm-eval, two tau-bench, three tau2 and two Terminal-Bench files"
    );
}

/// One tau-bench v1 entry: `policy` the system message's first line (None: no system message),
/// `actions` the task's ground-truth tool names; `error` writes an exception's entry (no task, an
/// empty trajectory), as tau-bench's `run.py` does.
fn tau_entry(task: u32, reward: f64, policy: Option<&str>, actions: &[&str], error: bool) -> Value {
    if error {
        return serde_json::json!({"task_id": task, "reward": 0.0, "trial": 0,
            "info": {"error": "boom", "traceback": "…"}, "traj": []});
    }
    let mut traj = vec![serde_json::json!({"role": "user", "content": "Hi"})];
    if let Some(policy) = policy {
        traj.insert(
            0,
            serde_json::json!({"role": "system", "content": format!("{policy}\n\nThe current time is …")}),
        );
    }
    let actions: Vec<Value> = actions
        .iter()
        .map(|name| serde_json::json!({"name": name, "kwargs": {}}))
        .collect();
    serde_json::json!({"task_id": task, "reward": reward, "trial": 0, "traj": traj,
        "info": {"task": {"user_id": "u", "actions": actions, "instruction": "…", "outputs": []},
                 "source": "user", "reward_info": {"reward": reward}}})
}

#[test]
fn tau_bench_keeps_its_two_environments_apart() {
    // run.py writes both environments' runs of one model under one name, and both number their
    // tasks from 0: retail task 0 and airline task 0 must stay two tasks.
    let dir = temp_dir("tau-bench-environments");
    let name =
        |range: &str| format!("tool-calling-gpt-4o-0.0_range_{range}_user-gpt-4o-llm_0101.json");
    let airline = serde_json::json!([
        tau_entry(
            0,
            1.0,
            Some("# Airline Agent Policy"),
            &["book_reservation"],
            false
        ),
        tau_entry(1, 0.0, None, &[], true),
    ]);
    let retail = serde_json::json!([
        tau_entry(
            0,
            0.0,
            None,
            &["get_user_details", "exchange_delivered_order_items"],
            false
        ),
        tau_entry(1, 1.0, Some("# Retail agent policy"), &[], false),
    ]);
    std::fs::write(dir.join(name("0-2")), airline.to_string()).expect("write");
    std::fs::write(dir.join(name("0--1")), retail.to_string()).expect("write");
    // The imports are written beside the folders read, not into them.
    let out = temp_dir("tau-bench-environments-out");
    let rows = imported_rows("tau-bench", &dir, &out.join("both.jsonl"));
    let keys: std::collections::BTreeSet<(String, String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["task"].as_str().unwrap_or("").to_string(),
                r["group"].as_str().unwrap_or("").to_string(),
                r["status"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let want: std::collections::BTreeSet<(String, String, String)> = [
        ("airline/0", "airline", "ok"),
        ("airline/1", "airline", "error"),
        ("retail/0", "retail", "ok"),
        ("retail/1", "retail", "ok"),
    ]
    .iter()
    .map(|(t, g, s)| (t.to_string(), g.to_string(), s.to_string()))
    .collect();
    assert_eq!(keys, want);
    // Entries that show nothing take the file name's environment (tau-bench's own
    // `historical_trajectories/<model>-<env>.json`), else keep their bare ids, said in a note.
    let named = dir.join("named");
    std::fs::create_dir_all(&named).expect("mkdir");
    let silent = serde_json::json!([tau_entry(3, 1.0, None, &[], false)]);
    std::fs::write(named.join("sonnet-35-new-retail.json"), silent.to_string()).expect("write");
    let rows = imported_rows("tau-bench", &named, &out.join("named.jsonl"));
    assert_eq!(rows[0]["task"], "retail/3");
    // The system is the model, less the environment its file name ends in: a model's airline and
    // retail files are one system (they were 'sonnet-35-new-airline' and '…-retail').
    assert_eq!(rows[0]["system"], "sonnet-35-new");
    std::fs::write(
        named.join("sonnet-35-new-airline.json"),
        serde_json::json!([tau_entry(
            3,
            0.0,
            Some("# Airline Agent Policy"),
            &[],
            false
        )])
        .to_string(),
    )
    .expect("write");
    let rows = imported_rows("tau-bench", &named, &out.join("named2.jsonl"));
    let systems: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r["system"].as_str()).collect();
    assert_eq!(systems.into_iter().collect::<Vec<_>>(), ["sonnet-35-new"]);
    assert_eq!(rows.len(), 2);
    let bare = dir.join("bare");
    std::fs::create_dir_all(&bare).expect("mkdir");
    std::fs::write(bare.join(name("3-4")), silent.to_string()).expect("write");
    let rows = imported_rows("tau-bench", &bare, &out.join("bare.jsonl"));
    assert_eq!(rows[0]["task"], "3");
    assert!(info_words(&bare.to_string_lossy()).contains("tasks keep their bare ids and no group"));
    // A file mixing both environments reads each entry as it shows; one showing neither is refused.
    let mixed = dir.join("mixed.json");
    let entries = serde_json::json!([
        tau_entry(0, 1.0, Some("# Airline Agent Policy"), &[], false),
        tau_entry(0, 1.0, Some("# Retail agent policy"), &[], false),
        tau_entry(5, 0.0, None, &[], true),
    ]);
    std::fs::write(&mixed, entries.to_string()).expect("write");
    let output = pareval(&["info", &mixed.to_string_lossy(), "--from", "tau-bench"]);
    assert_refused(
        &output,
        "entry 3: the file holds entries of both tau-bench environments",
    );
}

#[test]
fn malformed_native_files_name_the_file_and_entry() {
    let dir = temp_dir("import-bad");
    let cases: [(&str, &str, &str); 15] = [
        (
            "tau-bench",
            r#"[{"task_id": 1, "reward": 1.0, "trial": 0}, {"task_id": 2, "trial": 0}]"#,
            "entry 2 has no reward (missing, null, NaN or Infinity",
        ),
        (
            "tau-bench",
            r#"[{"task_id": 1, "reward": NaN, "trial": 0}]"#,
            "entry 1 has no reward (missing, null, NaN or Infinity",
        ),
        // Infinity is read as a missing value, as NaN is: the message named only NaN and null.
        (
            "tau-bench",
            r#"[{"task_id": 1, "reward": Infinity, "trial": 0}]"#,
            "entry 1 has no reward (missing, null, NaN or Infinity",
        ),
        // A list where an entry belongs was "entry 2 has no usable 'task_id' (missing)".
        (
            "tau-bench",
            r#"[{"task_id": 1, "reward": 1.0, "trial": 0}, [1, 2]]"#,
            "entry 2 is [1,2], not an object (a tau-bench result)",
        ),
        // An empty harness file was "not valid JSON at line 1, column 0".
        ("tau2", "", "the file is empty"),
        // A reward_info that is no object was read as no reward (status error, without a word).
        (
            "tau2",
            r#"{"info": {"agent_info": {"implementation": "a"}}, "simulations": [{"task_id": "1", "trial": 0, "reward_info": "bad"}]}"#,
            "simulation 1: reward_info is \"bad\", not an object holding the reward",
        ),
        // Samples that are no list were read as a log without samples.
        (
            "inspect",
            r#"{"status": "success", "eval": {"model": "m", "task": "t"}, "samples": "nope"}"#,
            "'samples' is \"nope\", not a list",
        ),
        (
            "tau-bench",
            r#"{"task_id": 1}"#,
            "a tau-bench file must hold a JSON array of results",
        ),
        (
            "tau2",
            r#"{"info": {"agent_info": {"implementation": "a"}}, "simulations": [{"task_id": "1", "trial": -1, "reward_info": {"reward": 1}}]}"#,
            "simulation 1: trial '-1' is not a whole number from 0 to 2³² − 1",
        ),
        // A trial past 32 bits was written as run 4294967295 (its source said so too), and a
        // task id past 64 bits as task '1.2345678901234568e29'.
        (
            "tau-bench",
            r#"[{"task_id": 1, "reward": 1.0, "trial": 1099511627776}]"#,
            "entry 1: trial '1099511627776' is not a whole number from 0 to 2³² − 1",
        ),
        (
            "tau-bench",
            r#"[{"task_id": 123456789012345678901234567890, "reward": 1.0, "trial": 0}]"#,
            "entry 1: 'task_id' 1.2345678901234568e+29 is a whole number too large to read exactly",
        ),
        (
            "terminal-bench",
            r#"{"results": [{"trial_name": "t.1-of-1", "task_id": "t", "is_resolved": "yes"}]}"#,
            "entry 1: is_resolved must be true, false or null",
        ),
        ("tau2", "[1, 2", "not valid JSON"),
        // A list where a sample belongs was "line 2: no doc_id".
        (
            "lm-eval",
            "{\"doc_id\": 0, \"target\": \"a\", \"filter\": \"none\", \"metrics\": [\"acc\"], \"acc\": 1}\n[1, 2, 3]\n",
            "line 2: [1,2,3] is not an object (a sample)",
        ),
        (
            "swebench",
            r#"{"schema_version": 3, "resolved_ids": ["a__b-1"], "submitted_ids": ["a__b-1"]}"#,
            "run report schema_version 3 is newer than this importer knows (2)",
        ),
    ];
    for (i, (format, text, message)) in cases.iter().enumerate() {
        // lm-eval writes its samples as JSON Lines, named samples_<task>_<date>.jsonl.
        let path = match *format {
            "lm-eval" => dir.join(format!("samples_bad{i}_2025-01-01T00-00-00.jsonl")),
            _ => dir.join(format!("bad{i}.json")),
        };
        std::fs::write(&path, text).expect("write");
        let output = pareval(&["info", &path.to_string_lossy(), "--from", format]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{format}: {}",
            stderr(&output)
        );
        let said = stderr(&output);
        assert!(
            said.contains(&path.to_string_lossy().to_string()) && said.contains(message),
            "{format}: {said}"
        );
    }
    // Outcomes the loader refuses are refused in native files too, with the entry.
    let path = dir.join("reward.json");
    std::fs::write(&path, r#"[{"task_id": 1, "reward": 2.5, "trial": 0}]"#).expect("write");
    let output = pareval(&["info", &path.to_string_lossy()]);
    assert_refused(&output, "outcome '2.5' on record 1");
    // An unknown format is a usage error that lists the formats.
    let output = pareval(&["info", &path.to_string_lossy(), "--from", "nonesuch"]);
    assert_refused(&output, "tau-bench, tau2, terminal-bench");
    // Python's NaN tokens read as missing values, counted in the notes.
    let nan = dir.join("nan.json");
    std::fs::write(
        &nan,
        r#"{"info": {"agent_info": {"implementation": "a", "llm": "m"}}, "simulations": [{"id": "s", "task_id": "1", "trial": 0, "agent_cost": NaN, "duration": 3.0, "reward_info": {"reward": 1.0}}, {"id": "t", "task_id": "2", "trial": 0, "agent_cost": 0.5, "duration": Infinity, "reward_info": {"reward": 0.0}}]}"#,
    )
    .expect("write");
    let output = pareval(&["info", &nan.to_string_lossy(), "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let info: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(info["cost_rows"], 1);
    assert_eq!(info["seconds_rows"], 1);
    assert!(
        info["notes"]
            .to_string()
            .contains("2 NaN/Infinity tokens read as missing values")
    );
    // Canonical JSON arrays are still read as records.
    let canonical = dir.join("canonical.json");
    std::fs::write(
        &canonical,
        r#"[{"system": "a", "task": "t1", "outcome": 1}, {"system": "b", "task": "t1", "outcome": 0}]"#,
    )
    .expect("write");
    let output = pareval(&["info", &canonical.to_string_lossy(), "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stdout(&output).contains("read as"));
}

/// OpenHands `output.jsonl`: the public file is inference output only: imported with its 3 rows not
/// attempted until graded, with a note (it was refused, where expected.json lists its 3 rows); the
/// same file with graded reports merged in imports with the figures of expected.json (system, the
/// errored instance, costs of 0.0 read as unknown, seconds from the history).
#[test]
fn openhands_output_needs_grades_and_then_reproduces_the_expected_figures() {
    let Some(data) = shared_data() else { return };
    let formats = data.join("../formats");
    let expected = expected_figures(&formats);
    let want = &expected["openhands/output.jsonl"];
    let real = formats.join("openhands/output.jsonl");
    let dir = temp_dir("openhands");
    let ungraded = imported_rows("openhands", &real, &dir.join("ungraded.jsonl"));
    assert_eq!(Some(ungraded.len() as u64), want["rows"].as_u64());
    assert_eq!(want["with_report"].as_u64(), Some(0));
    for row in &ungraded {
        assert_eq!(row["system"], want["system"]);
        // pareval's error rows keep an outcome (SPEC §1); the errored instance left a patch, which
        // waits for its grade like the others, its error kept in `source`.
        assert_eq!(row["status"], "not_attempted", "{row}");
        assert!(
            row["outcome"].is_null() && row["cost_usd"].is_null(),
            "{row}"
        );
        let seconds = want["seconds_from_history"][row["task"].as_str().expect("task")]
            .as_f64()
            .expect("seconds");
        assert!((number(row, "seconds").expect("seconds") - seconds).abs() < 1e-3);
    }
    let errored = want["status_error"][0].as_str().expect("id");
    assert!(
        ungraded.iter().any(|r| r["task"] == errored
            && r["source"]
                .as_str()
                .is_some_and(|s| s.contains("error: RuntimeError"))),
        "{ungraded:?}"
    );
    let info = pareval(&["info", &real.to_string_lossy()]);
    assert_eq!(info.status.code(), Some(0), "{}", stderr(&info));
    assert!(
        flat(&stdout(&info)).contains(
            "this is inference output only, so its 3 instances are not attempted until graded"
        ),
        "{}",
        stdout(&info)
    );

    // Grade every line (resolved on the first only) as OpenHands' eval_infer would merge it.
    let graded: Vec<String> = std::fs::read_to_string(&real)
        .expect("read")
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut value: Value = serde_json::from_str(line).expect("line");
            value["test_result"]["report"] = serde_json::json!({
                "empty_generation": false, "resolved": i == 0, "failed_apply_patch": false,
                "error_eval": false, "test_timeout": false
            });
            value.to_string()
        })
        .collect();
    let path = dir.join("output.jsonl");
    std::fs::write(&path, graded.join("\n") + "\n").expect("write");
    let rows = imported_rows("openhands", &path, &dir.join("rows.jsonl"));
    assert_eq!(Some(rows.len() as u64), want["rows"].as_u64());
    assert!(rows.iter().all(|r| r["system"] == want["system"]));
    let errors: Vec<&str> = rows
        .iter()
        .filter(|r| r["status"] == "error")
        .filter_map(|r| r["task"].as_str())
        .collect();
    let want_errors: Vec<&str> = want["status_error"]
        .as_array()
        .expect("ids")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(errors, want_errors);
    assert!(
        rows.iter().all(|r| r["cost_usd"].is_null()),
        "0.0 is not priced"
    );
    for (task, seconds) in want["seconds_from_history"].as_object().expect("seconds") {
        let row = rows.iter().find(|r| r["task"] == *task).expect("row");
        assert!(
            (number(row, "seconds").expect("seconds") - seconds.as_f64().expect("s")).abs() < 1e-3,
            "{task}"
        );
    }
    assert!(rows.iter().all(|r| r["group"] == "ponylang/ponyc"));
    assert_eq!(
        rows.iter()
            .filter(|r| number(r, "outcome") == Some(1.0))
            .count(),
        1
    );
    // Recognised by its first line, and an ungraded line is not attempted, not a failure.
    let mut partly = graded.clone();
    partly[2] = std::fs::read_to_string(&real)
        .expect("read")
        .lines()
        .nth(2)
        .expect("third line")
        .to_string();
    let path = dir.join("partly.jsonl");
    std::fs::write(&path, partly.join("\n") + "\n").expect("write");
    let info = pareval(&["info", &path.to_string_lossy(), "--format", "json"]);
    assert_eq!(info.status.code(), Some(0), "{}", stderr(&info));
    let info: Value = serde_json::from_slice(&info.stdout).expect("json");
    assert_eq!(info["systems"][0]["not_attempted"], 1);
    assert!(
        info["notes"]
            .to_string()
            .contains("read as openhands (recognised by its keys)")
    );
}

/// A leaderboard results.json needs its split: named with --split, or the one shipped split holding
/// every listed id; ids outside the split and unknown splits are refused.
#[test]
fn swebench_leaderboard_results_are_read_against_their_split() {
    let dir = temp_dir("swebench-split");
    let path = dir.join("results.json");
    // An instance in both Lite and Verified: the split must be named.
    std::fs::write(
        &path,
        r#"{"resolved": ["astropy__astropy-12907"], "no_generation": [], "no_logs": []}"#,
    )
    .expect("write");
    let file = path.to_string_lossy().to_string();
    let ambiguous = pareval(&["info", &file]);
    assert_refused(&ambiguous, "--split lite or --split verified");
    for (split, rows) in [("lite", 300), ("verified", 500)] {
        let output = pareval(&["info", &file, "--split", split, "--format", "json"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let info: Value = serde_json::from_slice(&output.stdout).expect("json");
        assert_eq!(info["n_rows"], rows, "{split}");
        assert_eq!(
            info["systems"][0]["mean_outcome"],
            1.0 / f64::from(rows),
            "{split}"
        );
    }
    let unknown = pareval(&["info", &file, "--split", "full"]);
    assert_refused(
        &unknown,
        "--split 'full' is neither a shipped instance list (lite, verified, bash-only) nor a file listing the split's instance ids",
    );
    // An id outside the named split is refused, naming it.
    std::fs::write(
        &path,
        r#"{"resolved": ["nobody__nothing-1"], "no_generation": [], "no_logs": []}"#,
    )
    .expect("write");
    let outside = pareval(&["info", &file, "--split", "lite"]);
    assert_refused(
        &outside,
        "1 listed instances are not in the lite split, e.g. 'nobody__nothing-1'",
    );
}

/// lm-eval: one line per doc and filter; one filter is read (the first seen without `none`, or
/// `--filter`), and a metric that is not a score is refused with its line.
#[test]
fn lm_eval_reads_one_filter_and_refuses_non_scores() {
    let dir = temp_dir("lm-eval");
    let path = dir.join("samples_gsm8k_2025-01-01T00-00-00.jsonl");
    let line = |doc: u32, filter: &str, score: &str| {
        format!(
            r#"{{"doc_id": {doc}, "doc": {{}}, "target": "2", "filtered_resps": ["2"], "filter": "{filter}", "metrics": ["exact_match"], "doc_hash": "aa", "exact_match": {score}}}"#
        )
    };
    let text = [
        line(0, "strict-match", "1.0"),
        line(0, "flexible-extract", "1.0"),
        line(1, "strict-match", "0.0"),
        line(1, "flexible-extract", "1.0"),
    ]
    .join("\n");
    std::fs::write(&path, text + "\n").expect("write");
    let file = path.to_string_lossy().to_string();
    let mean = |args: &[&str]| {
        let output = pareval(&[&["info", &file, "--format", "json"][..], args].concat());
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let info: Value = serde_json::from_slice(&output.stdout).expect("json");
        assert_eq!(info["n_rows"], 2, "one row a doc");
        info["systems"][0]["mean_outcome"].as_f64().expect("mean")
    };
    assert_eq!(mean(&[]), 0.5, "strict-match, the first filter");
    assert_eq!(mean(&["--filter", "flexible-extract"]), 1.0);
    let bogus = pareval(&["info", &file, "--filter", "none"]);
    assert_refused(
        &bogus,
        "--filter 'none' is not in the file; its filters: strict-match, flexible-extract",
    );
    std::fs::write(&path, line(0, "none", "[0.1, 0.2]") + "\n").expect("write");
    let corpus = pareval(&["info", &file]);
    assert_refused(
        &corpus,
        "line 1: metric 'exact_match' is [0.1,0.2], not a score",
    );
}

/// Inspect: the scorer is chosen with --scorer; a scorer outside [0, 1] is refused unless
/// --score-scale maps its range; a truncated .eval archive and an unknown scorer exit 2.
#[test]
fn inspect_scorers_and_scales_are_chosen_not_guessed() {
    let Some(data) = shared_data() else { return };
    let bash = data.join("../formats/inspect_eval/bash_2.eval");
    let file = bash.to_string_lossy().to_string();
    let mean = |args: &[&str]| -> Result<f64, String> {
        let output = pareval(&[&["info", &file, "--format", "json"][..], args].concat());
        if output.status.code() != Some(0) {
            return Err(stderr(&output));
        }
        let info: Value = serde_json::from_slice(&output.stdout).expect("json");
        Ok(info["systems"][0]["mean_outcome"].as_f64().expect("mean"))
    };
    assert_eq!(
        mean(&[]),
        Ok(0.2),
        "main_task_correctness, the first scorer"
    );
    let refused = mean(&["--scorer", "max_sus_scorer"]).expect_err("8 to 10 is not a score");
    assert!(
        refused.contains("scorer 'max_sus_scorer' gave 8, outside [0, 1]; --score-scale MIN:MAX"),
        "{refused}"
    );
    // max_sus_scorer's values 8-10 on a 0-10 scale.
    let scaled = mean(&["--scorer", "max_sus_scorer", "--score-scale", "0:10"]).expect("scaled");
    assert!((0.8..=1.0).contains(&scaled), "{scaled}");
    // Grades are on [0, 1] by Inspect's own rule: a scale maps numbers only (a "C" read as 0.1
    // took the mean from 0.2 to 0.02 without a word), and a note says so.
    assert_eq!(mean(&["--score-scale", "0:10"]), Ok(0.2), "C/I grades kept");
    let graded = temp_dir("inspect_grades_scaled").join("out.csv");
    let output = pareval(&[
        "import",
        "inspect",
        &file,
        "--score-scale",
        "0:10",
        "--out",
        &graded.to_string_lossy(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = String::from_utf8_lossy(&output.stdout).to_string() + &stderr(&output);
    assert!(
        said.contains("--score-scale 0:10 maps numeric scores only: 5 grades of scorer 'main_task_correctness'"),
        "{said}"
    );
    let unknown = mean(&["--scorer", "accuracy"]).expect_err("no such scorer");
    assert!(
        unknown.contains("--scorer 'accuracy' is not a scorer of the log; its scorers: "),
        "{unknown}"
    );
    let bad_scale = mean(&["--score-scale", "10:0"]).expect_err("MIN < MAX");
    assert!(
        bad_scale.contains("--score-scale '10:0' must be MIN:MAX with MIN < MAX"),
        "{bad_scale}"
    );
    // A truncated archive is refused, naming the file.
    let dir = temp_dir("inspect");
    let cut = dir.join("cut.eval");
    let bytes = std::fs::read(&bash).expect("read");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("write");
    let output = pareval(&["info", &cut.to_string_lossy()]);
    assert_refused(&output, "cut.eval: not a readable .eval (zip) archive");
}

/// `.eval` archives written with INSPECT_USE_ZSTD have zstd members: the same log re-packed with every
/// member zstd-compressed reads the same.
#[test]
fn inspect_archives_with_zstd_members_read_the_same() {
    use std::io::{Read, Write};
    let Some(data) = shared_data() else { return };
    let bash = data.join("../formats/inspect_eval/bash_2.eval");
    let mut source = zip::ZipArchive::new(std::fs::File::open(&bash).expect("open")).expect("zip");
    let dir = temp_dir("inspect-zstd");
    let packed = dir.join("zstd.eval");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&packed).expect("create"));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Zstd);
    for index in 0..source.len() {
        let mut member = source.by_index(index).expect("member");
        let name = member.name().expect("member name").into_owned();
        let mut bytes = Vec::new();
        member.read_to_end(&mut bytes).expect("read member");
        writer.start_file(name, options).expect("start");
        writer.write_all(&bytes).expect("write member");
    }
    writer.finish().expect("finish");
    let mean = |path: &std::path::Path| {
        let output = pareval(&["info", &path.to_string_lossy(), "--format", "json"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let info: Value = serde_json::from_slice(&output.stdout).expect("json");
        (
            info["n_rows"].clone(),
            info["systems"][0]["mean_outcome"].clone(),
        )
    };
    assert_eq!(mean(&packed), mean(&bash));
    let mut check = zip::ZipArchive::new(std::fs::File::open(&packed).expect("open")).expect("zip");
    let member = check.by_index(0).expect("member");
    assert_eq!(member.compression(), zip::CompressionMethod::Zstd);
}

#[test]
fn run_reports_in_one_folder_are_named_after_their_files() {
    // Two harness run reports side by side (`<model>.<run_id>.json`, the model's '/' as '__'), as the
    // harness writes them into one evaluations folder: two systems, not one named after the folder.
    let Some(data) = shared_data() else { return };
    let formats = data.join("../formats");
    let dir = temp_dir("run-reports").join("evaluations");
    std::fs::create_dir_all(&dir).expect("folder");
    let reports = [
        (
            "zhikuncode_20260525/results.json",
            "openai__gpt-4o.run1.json",
        ),
        (
            "tdad_exp011/baseline.eval.json",
            "anthropic__claude-3.5.run2.json",
        ),
    ];
    let mut paths = Vec::new();
    for (source, name) in reports {
        let path = dir.join(name);
        std::fs::copy(formats.join("swebench_harness_report").join(source), &path).expect("copy");
        paths.push(path.to_string_lossy().into_owned());
    }
    let out = pareval(&["info", &paths[0], &paths[1], "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    let mut systems: Vec<String> = json["systems"]
        .as_array()
        .expect("systems")
        .iter()
        .map(|s| s["system"].as_str().expect("name").to_string())
        .collect();
    systems.sort();
    assert_eq!(systems, ["anthropic/claude-3.5.run2", "openai/gpt-4o.run1"]);
    // A copy renamed to a bare word keeps its folder's name.
    let renamed = formats.join("swebench_harness_report/zhikuncode_20260525/results.json");
    let out = pareval(&["info", &renamed.to_string_lossy(), "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["systems"][0]["system"], "zhikuncode_20260525");
}

#[test]
fn sb_cli_reports_are_named_after_their_run_ids() {
    // sb-cli (SWE-bench's cloud evaluation) keeps every run's report in one folder,
    // `sb-cli-reports/<subset>__<split>__<run_id>.json`, with a `.response.json` beside each: the
    // folder reads as one system a run, and a report fetched while instances were still pending
    // evaluation has those not attempted, not failed.
    let Some(data) = shared_data() else { return };
    let source = data.join("../formats/swebench_harness_report/zhikuncode_20260525/results.json");
    let report: Value =
        serde_json::from_slice(&std::fs::read(&source).expect("report")).expect("json");
    let dir = temp_dir("sb-cli").join("sb-cli-reports");
    std::fs::create_dir_all(&dir).expect("folder");
    std::fs::write(
        dir.join("swe-bench_verified__test__run-a.json"),
        report.to_string(),
    )
    .expect("write");
    // The second run's report, fetched with 20 resolved instances still pending.
    let mut pending = report.clone();
    let resolved: Vec<Value> = report["resolved_ids"].as_array().expect("ids").clone();
    let held: Vec<Value> = resolved[..20].to_vec();
    pending["resolved_ids"] = Value::from(resolved[20..].to_vec());
    let completed: Vec<Value> = report["completed_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .filter(|id| !held.contains(id))
        .cloned()
        .collect();
    pending["completed_ids"] = Value::from(completed);
    pending["pending_instances"] = Value::from(20);
    std::fs::write(
        dir.join("swe-bench_verified__test__run-b.json"),
        pending.to_string(),
    )
    .expect("write");
    std::fs::write(
        dir.join("swe-bench_verified__test__run-b.response.json"),
        r#"{"run_id": "run-b"}"#,
    )
    .expect("write");
    let out = pareval(&["info", &dir.to_string_lossy(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let systems: Vec<(String, u64, u64)> = json["systems"]
        .as_array()
        .expect("systems")
        .iter()
        .map(|s| {
            (
                s["system"].as_str().expect("name").to_string(),
                s["not_attempted"].as_u64().expect("count"),
                s["errored"].as_u64().expect("count"),
            )
        })
        .collect();
    let errored = report["error_ids"].as_array().expect("ids").len() as u64;
    assert_eq!(
        systems,
        [
            ("run-a".to_string(), 0, errored),
            ("run-b".to_string(), 20, errored)
        ]
    );
    let notes = json["notes"].to_string();
    assert!(
        notes.contains("20 instances were still pending evaluation"),
        "{notes}"
    );
    // Fetched again without --overwrite, sb-cli writes `<run_id>-1.json` beside the first fetch:
    // the latest fetch is read, as the same run.
    std::fs::write(
        dir.join("swe-bench_verified__test__run-b-1.json"),
        report.to_string(),
    )
    .expect("write");
    let out = pareval(&["info", &dir.to_string_lossy(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let systems: Vec<(&str, u64)> = json["systems"]
        .as_array()
        .expect("systems")
        .iter()
        .map(|s| {
            (
                s["system"].as_str().expect("name"),
                s["not_attempted"].as_u64().expect("n"),
            )
        })
        .collect();
    assert_eq!(systems, [("run-a", 0), ("run-b", 0)]);
    let notes = json["notes"].to_string();
    assert!(notes.contains("sb-cli's fetch 2 of run 'run-b'"), "{notes}");
    // The same report without sb-cli's pending count: its submitted ids without a result are
    // evaluation errors, as the harness's own reports have them.
    pending["pending_instances"] = Value::from(0);
    // Its counts as a harness writes them, its lists' lengths (a report whose counts disagree with
    // its lists is refused).
    for (count, list) in [
        ("resolved_instances", "resolved_ids"),
        ("completed_instances", "completed_ids"),
    ] {
        let listed = pending[list].as_array().expect("ids").len();
        pending[count] = Value::from(listed);
    }
    let plain = temp_dir("sb-cli-done").join("swe-bench_verified__test__run-c.json");
    std::fs::write(&plain, pending.to_string()).expect("write");
    let out = pareval(&["info", &plain.to_string_lossy(), "--format", "json"]);
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["systems"][0]["system"], "run-c");
    assert_eq!(json["systems"][0]["errored"], errored + 20);
}

#[test]
fn a_run_report_whose_lists_disagree_with_its_counts_is_refused() {
    // A missing unresolved_ids read its instances as evaluation errors; a resolved id that was not
    // submitted added a task the report does not have. Both went by without a word.
    let Some(data) = shared_data() else { return };
    let source = data.join("../formats/swebench_harness_report/zhikuncode_20260525/results.json");
    let report: Value =
        serde_json::from_slice(&std::fs::read(&source).expect("report")).expect("json");
    let dir = temp_dir("swebench-inconsistent");
    let mut cut = report.clone();
    cut.as_object_mut()
        .expect("object")
        .remove("unresolved_ids");
    let cut_path = dir.join("cut.json");
    std::fs::write(&cut_path, cut.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &cut_path.to_string_lossy()]),
        "has no 'unresolved_ids' where 'unresolved_instances' says 108",
    );
    // A list that is there but short still names its length.
    let mut short = report.clone();
    short["unresolved_ids"]
        .as_array_mut()
        .expect("ids")
        .truncate(100);
    let short_path = dir.join("short.json");
    std::fs::write(&short_path, short.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &short_path.to_string_lossy()]),
        "'unresolved_ids' lists 100 instances where 'unresolved_instances' says 108",
    );
    let mut extra = report.clone();
    extra["resolved_ids"][0] = Value::from("nobody__nothing-1");
    let extra_path = dir.join("extra.json");
    std::fs::write(&extra_path, extra.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &extra_path.to_string_lossy()]),
        "'resolved_ids' lists nobody__nothing-1, which is not in 'submitted_ids'",
    );
    // A resolved instance also in another list of results, with the counts raised to match: it
    // was read from the first list (resolved) without a word.
    let resolved = report["resolved_ids"][0]
        .as_str()
        .expect("an id")
        .to_string();
    let with_resolved = |list: &str, count: &str| {
        let mut changed = report.clone();
        changed[list]
            .as_array_mut()
            .expect("ids")
            .push(Value::from(resolved.clone()));
        let raised = changed[count].as_u64().expect("a count") + 1;
        changed[count] = Value::from(raised);
        let path = dir.join(format!("twice_{list}.json"));
        std::fs::write(&path, changed.to_string()).expect("write");
        pareval(&["info", &path.to_string_lossy()])
    };
    assert_refused(
        &with_resolved("unresolved_ids", "unresolved_instances"),
        &format!(
            "{resolved} is in both 'resolved_ids' and 'unresolved_ids': the report disagrees with itself"
        ),
    );
    // Twice in its own list: one row, and a note.
    let listed_twice = with_resolved("resolved_ids", "resolved_instances");
    assert_eq!(
        listed_twice.status.code(),
        Some(0),
        "{}",
        stderr(&listed_twice)
    );
    let words = flat(&stdout(&listed_twice));
    assert!(
        words.contains(&format!(
            "'resolved_ids' lists {resolved} twice (read once; the report's count for that list counts it twice)"
        )),
        "{words}"
    );
}

#[test]
fn an_lm_eval_output_path_is_read_as_its_model_folders() {
    // lm-eval writes `<output_path>/<model>/samples_<task>_<date>.jsonl` beside
    // `results_<date>.json`. Given the output path of two models' runs, the loader reads both
    // model folders, as it reads them given one by one, and says so.
    let Some(data) = shared_data() else { return };
    let run = data.join("../formats/lm_eval/eval_mmlu_pro_plus");
    let output_path = temp_dir("lm-eval-output-path").join("out");
    // `watch` follows the output path as lm-eval fills it: nothing at first, then the model
    // folders' samples as they are written.
    std::fs::create_dir_all(&output_path).expect("folders");
    let mut followed = pareval::watch::follow::Followed::new(std::slice::from_ref(&output_path))
        .expect("followed");
    assert!(followed.poll().is_empty());
    for (model, stamp) in [
        ("gemma-3-12b-it-base", "2025-10-14T14-44-39.372006"),
        ("gemma3_12b_u2", "2025-10-14T15-11-56.507865"),
    ] {
        let folder = output_path.join(model);
        std::fs::create_dir_all(&folder).expect("folders");
        for entry in std::fs::read_dir(&run).expect("the lm-eval run").flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.contains(stamp) {
                std::fs::copy(entry.path(), folder.join(&name)).expect("copy");
            }
        }
    }
    // (A harness's file is read once two polls see it unchanged, as for any folder.)
    let mut events = followed.poll();
    events.extend(followed.poll());
    let rows = events
        .iter()
        .filter(|e| matches!(e, pareval::watch::follow::Event::Row { .. }))
        .count();
    assert_eq!(rows, 18, "{events:?}");
    let given_one_by_one = crate::import_formats::info_words(&[
        &output_path.join("gemma-3-12b-it-base").to_string_lossy(),
        &output_path.join("gemma3_12b_u2").to_string_lossy(),
    ]);
    let words = info_words(&output_path.to_string_lossy());
    for figures in [
        "systems 2",
        "tasks 9",
        "pairs 2 directed (median 9 shared tasks)",
    ] {
        assert!(given_one_by_one.contains(figures), "{given_one_by_one}");
        assert!(words.contains(figures), "{words}");
    }
    assert!(
        words.contains(
            "out: its top level holds no result file; read its lm-eval model folders gemma-3-12b-it-base/, gemma3_12b_u2/ (lm-eval writes one per model under --output_path)"
        ),
        "{words}"
    );
    // A result file of its own at the top level: the model folders are named, not read.
    std::fs::copy(
        data.join("../formats/lm_eval/samples_gsm8k_2025-09-09T13-31-53.431753.jsonl"),
        output_path.join("samples_gsm8k_2025-09-09T13-31-53.431753.jsonl"),
    )
    .expect("copy");
    let words = info_words(&output_path.to_string_lossy());
    assert!(words.contains("gemma3_12b_u2: not read"), "{words}");
    assert!(!words.contains("read its lm-eval model folders"), "{words}");
}

#[test]
fn a_folder_names_the_subfolders_it_does_not_read() {
    // shared/formats/swebench_harness_report holds two experiments, each in a folder of its own:
    // one a run folder (its results.json), one not (baseline.eval.json). Given the parent, the
    // loader reads the first and names the second with its file, rather than dropping it silently.
    let Some(data) = shared_data() else { return };
    let reports = data.join("../formats/swebench_harness_report");
    let words = info_words(&reports.to_string_lossy());
    assert!(
        words.contains("zhikuncode_20260525/results.json: read as swebench"),
        "{words}"
    );
    assert!(
        words.contains("tdad_exp011: not read: a folder that is not a run of a harness pareval reads, holding 1 result file (baseline.eval.json); give it, or its files, to read them"),
        "{words}"
    );
    // `import` gives the same note, and counts the files it read.
    let out_dir = temp_dir("unread-subfolders");
    let out = out_dir.join("reports.csv");
    let output = pareval(&[
        "import",
        "swebench",
        &reports.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    let text = stdout(&output);
    assert!(output.status.success(), "{}", stderr(&output));
    // The one run read is a run folder (its results.json): named a folder.
    assert!(text.contains("from 1 swebench folder to"), "{text}");
    assert!(text.contains("tdad_exp011: not read"), "{text}");
    // A folder whose only results lie in subfolders is refused naming them (a folder of pictures
    // holds no result file and is not named).
    let top = out_dir.join("experiments");
    let deep = top.join("exp1").join("reports");
    std::fs::create_dir_all(&deep).expect("folders");
    std::fs::create_dir_all(top.join("plots")).expect("folders");
    std::fs::write(top.join("plots").join("curve.png"), b"png").expect("write");
    std::fs::copy(
        reports.join("tdad_exp011/baseline.eval.json"),
        deep.join("openai__gpt-4o.run1.json"),
    )
    .expect("copy");
    std::fs::copy(
        reports.join("tdad_exp011/baseline.eval.json"),
        deep.join("anthropic__claude-3.5.run2.json"),
    )
    .expect("copy");
    // A folder given to `import` counts the files read in it, not the one path given.
    let output = pareval(&[
        "import",
        "swebench",
        &deep.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("wrote 1000 rows (2 systems, 500 tasks) from 2 swebench files"),
        "{}",
        stdout(&output)
    );
    let output = pareval(&["info", &top.to_string_lossy()]);
    assert_refused(
        &output,
        "the folder holds no result files yet (.csv, .jsonl, .json, .eval, .parquet, or the run and output folders of the harnesses pareval reads (pareval import --help lists them), and subfolders holding only such runs); result files lie in its subfolders exp1/ (2 files): give those folders, or their files",
    );
    assert!(!stderr(&output).contains("plots"), "{}", stderr(&output));
}

#[test]
fn an_openhands_output_folder_is_read_through_its_output_jsonl() {
    // OpenHands V0 writes <model>_maxiter_<N>/ with metadata.json and output.jsonl; grading adds
    // output.swebench_eval.jsonl (eval_infer's lines, graded in test_result.report) or the
    // SWE-bench report.json, and update_output_with_eval.py merges the grades into output.jsonl as a
    // top-level `report` (keeping output.jsonl.bak). Built from the real inference output.
    let Some(data) = shared_data() else { return };
    let real = data.join("../formats/openhands/output.jsonl");
    let run = temp_dir("openhands-folder").join("model-z_maxiter_100_N_v0.15");
    std::fs::create_dir_all(&run).expect("folder");
    let lines: Vec<Value> = std::fs::read_to_string(&real)
        .expect("read")
        .lines()
        .map(|line| serde_json::from_str(line).expect("line"))
        .collect();
    let status = |i: usize| {
        serde_json::json!({"empty_generation": false, "resolved": i == 0,
            "failed_apply_patch": false, "error_eval": false, "test_timeout": false})
    };
    let write = |name: &str, lines: Vec<Value>| {
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(run.join(name), text.join("\n") + "\n").expect("write");
    };
    write("output.jsonl", lines.clone());
    let metadata = lines[0]["metadata"].clone();
    std::fs::write(run.join("metadata.json"), metadata.to_string()).expect("metadata");
    let evaluated: Vec<Value> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut line = line.clone();
            line["test_result"]["report"] = status(i);
            line
        })
        .collect();
    write("output.swebench_eval.jsonl", evaluated);
    // Graded but not merged: the folder's output.jsonl is refused, naming the graded copy (the
    // grades are there; read alone it would be nothing scored).
    assert_refused(
        &pareval(&["info", &run.to_string_lossy()]),
        "its graded copy output.swebench_eval.jsonl lies beside it: import that file, or merge it into this one with OpenHands' update_output_with_eval.py",
    );
    // Merged: every file of the folder but output.jsonl is left beside it, and the grades are read
    // from the top-level report.
    std::fs::rename(run.join("output.jsonl"), run.join("output.jsonl.bak")).expect("backup");
    let merged: Vec<Value> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut line = line.clone();
            line["report"] = status(i);
            line
        })
        .collect();
    write("output.jsonl", merged);
    let first = lines[0]["instance_id"].as_str().expect("id");
    std::fs::write(
        run.join("report.json"),
        serde_json::json!({"total_instances": 3, "submitted_instances": 3,
            "resolved_ids": [first], "submitted_ids": [first], "unresolved_ids": []})
        .to_string(),
    )
    .expect("report");
    let out = pareval(&["info", &run.to_string_lossy(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["systems"].as_array().map(Vec::len), Some(1), "{json}");
    assert_eq!(json["systems"][0]["rows"], 3);
    assert!(
        json["systems"][0]["mean_outcome"]
            .as_f64()
            .is_some_and(|m| (m - 1.0 / 3.0).abs() < 1e-9)
    );
    let words = info_words(&run.to_string_lossy());
    assert!(
        words.contains("3 graded reports read from the lines' top-level 'report', as OpenHands' update_output_with_eval.py merges them in"),
        "{words}"
    );

    // OpenHands V1 (OpenHands/benchmarks) never merges: swebench-eval writes the predictions as
    // output.swebench.jsonl, moves the harness's report beside the output as output.report.json,
    // and writes cost_report.jsonl (one indented JSON object); critic attempts sit beside it too.
    let v1 = temp_dir("openhands-v1").join("eval_outputs");
    std::fs::create_dir_all(&v1).expect("folder");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(v1.join("output.jsonl"), text.join("\n") + "\n").expect("write");
    std::fs::write(
        v1.join("output.critic_attempt_1.jsonl"),
        text.join("\n") + "\n",
    )
    .expect("write");
    std::fs::write(v1.join("metadata.json"), metadata.to_string()).expect("metadata");
    let ids: Vec<&str> = lines
        .iter()
        .map(|line| line["instance_id"].as_str().expect("id"))
        .collect();
    let predictions: Vec<String> = ids
        .iter()
        .map(|id| {
            serde_json::json!({"instance_id": id, "model_patch": "", "model_name_or_path": "OpenHands"})
                .to_string()
        })
        .collect();
    std::fs::write(
        v1.join("output.swebench.jsonl"),
        predictions.join("\n") + "\n",
    )
    .expect("write");
    std::fs::write(
        v1.join("output.report.json"),
        serde_json::json!({"total_instances": 500, "submitted_instances": 3,
            "resolved_ids": [ids[0]], "unresolved_ids": [ids[1]], "error_ids": [],
            "empty_patch_ids": [], "submitted_ids": ids})
        .to_string(),
    )
    .expect("report");
    std::fs::write(
        v1.join("cost_report.jsonl"),
        "{\n  \"directory\": \"eval_outputs\",\n  \"summary\": {\"total_cost\": 0.0}\n}\n",
    )
    .expect("cost report");
    let rows = crate::import_formats::import_rows("openhands", &[&v1], &[], "openhands-v1-rows");
    let outcome = |id: &str| {
        let row = rows.iter().find(|r| r["task"] == id).expect("row");
        (
            row["outcome"].as_str().map(str::to_string),
            row["status"].as_str().map(str::to_string),
        )
    };
    assert_eq!(rows.len(), 3);
    assert_eq!(
        outcome(ids[0]),
        (Some("1".to_string()), Some("ok".to_string()))
    );
    assert_eq!(
        outcome(ids[1]),
        (Some("0".to_string()), Some("ok".to_string()))
    );
    assert_eq!(outcome(ids[2]).1.as_deref(), Some("not_attempted"));
    let words = info_words(&v1.to_string_lossy());
    assert!(
        words.contains("graded by output.report.json beside it (the SWE-bench harness report OpenHands' swebench-eval moves there)"),
        "{words}"
    );
    assert!(words.contains("systems 1"), "{words}");
    // The report grades one line per instance: an output with several attempts of one instance
    // is refused rather than graded by it.
    let doubled = format!("{}\n{}\n", text.join("\n"), text[0]);
    std::fs::write(v1.join("output.jsonl"), doubled).expect("write");
    assert_refused(
        &pareval(&["info", &v1.to_string_lossy()]),
        "has several lines (attempts), but output.report.json grades one per instance",
    );
}

#[test]
fn a_swebench_split_folder_is_read_as_its_submissions() {
    // SWE-bench/experiments keeps one folder per submission under `evaluation/<split>/`, each with
    // its `results/results.json` and `metadata.yaml`; given the split folder, the loader reads every
    // submission, as it reads them given one by one, and says so.
    let Some(data) = shared_data() else { return };
    let formats = data.join("../formats");
    let split = temp_dir("swebench-split-folder").join("lite");
    let first = split.join("20260520_zhikuncode");
    let second = split.join("20260601_other_agent");
    copy_tree(&formats.join("swebench_experiments_v2"), &first);
    copy_tree(&formats.join("swebench_experiments_v2"), &second);
    let metadata = std::fs::read_to_string(second.join("metadata.yaml")).expect("metadata");
    std::fs::write(
        second.join("metadata.yaml"),
        metadata.replace("name: ZhikunCode", "name: Other Agent"),
    )
    .expect("metadata");
    let given_one_by_one =
        crate::import_formats::info_words(&[&first.to_string_lossy(), &second.to_string_lossy()]);
    let words = info_words(&split.to_string_lossy());
    for figures in [
        "systems 2",
        "tasks 300",
        "pairs 2 directed (median 300 shared tasks)",
        "Other Agent 300 0.463",
        "ZhikunCode 300 0.463",
    ] {
        assert!(given_one_by_one.contains(figures), "{given_one_by_one}");
        assert!(words.contains(figures), "{words}");
    }
    assert!(
        words.contains("lite: read its 2 subfolders of runs 20260520_zhikuncode/, 20260601_other_agent/ (each holds runs"),
        "{words}"
    );
    // A submission's own results/resolved_by_repo.json is never read as a record.
    assert!(!words.contains("resolved_by_repo"), "{words}");
    // The graded runs of one submission (`acr-run-N/new_eval_results/report.json`) are its runs:
    // 54 + 57 + 57 resolved of 3 × 300 (shared/formats/expected.json).
    let runs = formats.join("swebench_experiments_prev2");
    let out = pareval(&["info", &runs.to_string_lossy(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let system = &json["systems"][0];
    assert_eq!(json["systems"].as_array().map(Vec::len), Some(1), "{json}");
    assert_eq!(system["system"], "acr");
    assert_eq!(system["runs"], 3, "{system}");
    assert_eq!(system["rows"], 900, "{system}");
    let mean = system["mean_outcome"].as_f64().expect("mean");
    assert!((mean - 168.0 / 900.0).abs() < 1e-9, "{mean}");
    // Two submissions of one name (a team's later entry) are two systems, each with its folder.
    let again = split.join("20260610_zhikuncode_v2");
    copy_tree(&formats.join("swebench_experiments_v2"), &again);
    let words = info_words(&split.to_string_lossy());
    assert!(words.contains("systems 3"), "{words}");
    assert!(
        words.contains("ZhikunCode (20260520_zhikuncode) 300"),
        "{words}"
    );
    assert!(
        words.contains("ZhikunCode (20260610_zhikuncode_v2) 300"),
        "{words}"
    );
    assert!(
        words.contains("metadata.yaml names the system 'ZhikunCode', as does 20260610_zhikuncode_v2 beside it; the system is 'ZhikunCode (20260520_zhikuncode)'"),
        "{words}"
    );
    std::fs::remove_dir_all(&again).expect("remove");
    // `watch` follows a split folder as submissions land in it.
    let mut followed =
        pareval::watch::follow::Followed::new(std::slice::from_ref(&split)).expect("followed");
    let mut events = followed.poll();
    events.extend(followed.poll());
    let rows = |events: &[pareval::watch::follow::Event]| {
        events
            .iter()
            .filter(|e| matches!(e, pareval::watch::follow::Event::Row { .. }))
            .count()
    };
    assert_eq!(rows(&events), 600);
    copy_tree(
        &formats.join("swebench_experiments_v2"),
        &split.join("20260701_third"),
    );
    let third = split.join("20260701_third/metadata.yaml");
    let metadata = std::fs::read_to_string(&third).expect("metadata");
    std::fs::write(&third, metadata.replace("name: ZhikunCode", "name: Third")).expect("write");
    let mut events = followed.poll();
    events.extend(followed.poll());
    assert_eq!(rows(&events), 300);
}

#[test]
fn a_swebench_results_file_can_be_scored_against_an_instance_list_file() {
    // Only Lite and Verified ship with pareval; a submission to any other split (SWE-bench's full
    // test set, multimodal, …) is scored against a file of the split's instance ids (--split FILE):
    // a CSV with an instance_id column, or one id per line. Checked on the Lite list in
    // shared/formats against the shipped Lite.
    let Some(data) = shared_data() else { return };
    let formats = data.join("../formats");
    let submission = formats.join("swebench_experiments_v2");
    let list = formats.join("swebench_ids/swebench_lite_test_300.csv");
    let shipped = info_words(&submission.to_string_lossy());
    // Its metadata.yaml is read (the system's name): not among the files left out.
    assert!(
        shipped.contains("ZhikunCode") && !shipped.contains("left out 1 file"),
        "{shipped}"
    );
    let from_csv = crate::import_formats::info_words(&[
        &submission.to_string_lossy(),
        "--split",
        &list.to_string_lossy(),
    ]);
    assert!(
        from_csv.contains("scored against the 300 instances listed in"),
        "{from_csv}"
    );
    let dir = temp_dir("swebench-split-file");
    let ids: Vec<String> = std::fs::read_to_string(&list)
        .expect("list")
        .lines()
        .skip(1)
        .map(|line| line.split(',').next().expect("id").to_string())
        .collect();
    let plain = dir.join("ids.txt");
    std::fs::write(&plain, ids.join("\n") + "\n").expect("write");
    let from_text = crate::import_formats::info_words(&[
        &submission.to_string_lossy(),
        "--split",
        &plain.to_string_lossy(),
    ]);
    for words in [&from_csv, &from_text] {
        for figures in ["tasks 300", "ZhikunCode 300 0.463"] {
            assert!(shipped.contains(figures), "{shipped}");
            assert!(words.contains(figures), "{words}");
        }
    }
    // A list that leaves out a listed instance, or names one twice, is refused naming it.
    let short = dir.join("short.txt");
    std::fs::write(&short, ids[1..].join("\n")).expect("write");
    let output = pareval(&[
        "info",
        &submission.to_string_lossy(),
        "--split",
        &short.to_string_lossy(),
    ]);
    assert_refused(&output, "listed instances are not in the");
    let twice = dir.join("twice.txt");
    std::fs::write(&twice, format!("{}\n{}\n", ids.join("\n"), ids[0])).expect("write");
    let output = pareval(&[
        "info",
        &submission.to_string_lossy(),
        "--split",
        &twice.to_string_lossy(),
    ]);
    assert_refused(&output, &format!("instance '{}' is listed twice", ids[0]));
}

#[test]
fn a_running_terminal_bench_run_waits_on_tasks_with_attempts_to_come() {
    // The real 5-attempt run of shared/formats as `tb run` leaves it while running: run_metadata.json
    // without end_time, and results.json lacking the last attempts of some tasks. Those tasks'
    // attempts in so far would be read as their outcomes, which the rest would change.
    let Some(data) = shared_data() else { return };
    let source = data.join("../formats/terminal_bench/orchestrator_claude-4.1-opus");
    let run = temp_dir("tb-running").join("orchestrator");
    copy_tree(&source, &run);
    let mut metadata: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.join("run_metadata.json")).expect("read"))
            .expect("JSON");
    metadata["end_time"] = serde_json::Value::Null;
    // A count that is no whole number is named, and the trials' names ("k-of-5") count instead.
    metadata["n_attempts"] = serde_json::json!("five");
    std::fs::write(run.join("run_metadata.json"), metadata.to_string()).expect("write");
    let mut results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.join("results.json")).expect("read"))
            .expect("JSON");
    let trials = results["results"].as_array_mut().expect("results");
    let first_task = trials[0]["task_id"].as_str().expect("task").to_string();
    // Drop one attempt of the first task.
    let at = trials
        .iter()
        .rposition(|t| t["task_id"] == first_task.as_str())
        .expect("an attempt");
    trials.remove(at);
    let kept = trials.len();
    std::fs::write(run.join("results.json"), results.to_string()).expect("write");
    let rows = crate::import_formats::import_rows(
        "terminal-bench",
        &[&run.join("results.json")],
        &[],
        "tb-running-rows",
    );
    assert_eq!(rows.len(), kept);
    let waiting: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["status"] == "not_attempted")
        .collect();
    assert_eq!(waiting.len(), 4, "the first task's four attempts in");
    assert!(waiting.iter().all(|r| r["task"] == first_task.as_str()));
    let words = crate::import_formats::info_words(&[run.to_str().expect("path")]);
    assert!(
        words.contains("the run is going (run_metadata.json has no end_time): 4 trials of tasks with fewer than its 5 attempts are not attempted so far"),
        "{words}"
    );
    assert!(
        words.contains("its run_metadata.json gives n_attempts \"five\", not a whole number ≥ 1: which tasks still have runs to come cannot be told"),
        "{words}"
    );
}

#[test]
fn a_terminal_bench_leaderboard_folder_is_read_as_its_submissions() {
    // laude-institute/terminal-bench-leaderboard keeps `results/<dataset>/<submission>/`: a run
    // folder holding every attempt (`<task>.k-of-5`), or a folder of runs of one attempt each
    // (`<run>/results.json`, or `<date>_results.json` files), and its run_metadata.json often names
    // the agent only. Built here from the real runs in shared/formats/terminal_bench.
    let Some(data) = shared_data() else { return };
    let runs = data.join("../formats/terminal_bench");
    let dataset = temp_dir("tb-leaderboard").join("terminal-bench-core@0.1.1");
    let orchestrator = runs.join("orchestrator_claude-4.1-opus");
    let mini = runs.join("swe-agent-mini_2025-08-15__19-28-24");
    copy_tree(&orchestrator, &dataset.join("20250906_orchestrator"));
    copy_tree(&orchestrator, &dataset.join("20250907_orchestrator_again"));
    copy_tree(&mini, &dataset.join("20250815_mini/2025-08-15__16-23-45"));
    copy_tree(&mini, &dataset.join("20250815_mini/2025-08-15__19-28-24"));
    // Two runs of a submission are not byte for byte one file (a copy of one run is refused):
    // each has its own run id.
    let second = dataset.join("20250815_mini/2025-08-15__16-23-45/results.json");
    std::fs::write(&second, other_run_id(&second, "2025-08-15__16-23-45")).expect("results");
    let goose = dataset.join("20250829_goose");
    std::fs::create_dir_all(&goose).expect("folder");
    for date in [
        "2025-08-27__22-13-13",
        "2025-08-29__07-37-19",
        "2025-08-29__09-03-09",
    ] {
        std::fs::write(
            goose.join(format!("{date}_results.json")),
            other_run_id(&mini.join("results.json"), date),
        )
        .expect("copy");
    }
    let out = pareval(&["info", &dataset.to_string_lossy(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut systems: Vec<(String, u64, u64)> = json["systems"]
        .as_array()
        .expect("systems")
        .iter()
        .map(|s| {
            let name = s["system"].as_str().expect("name").to_string();
            (
                name,
                s["runs"].as_u64().expect("runs"),
                s["rows"].as_u64().expect("rows"),
            )
        })
        .collect();
    systems.sort();
    assert_eq!(
        systems,
        [
            ("20250829_goose".to_string(), 3, 240),
            (
                "LeadArchitectAgent (20250906_orchestrator)".to_string(),
                5,
                400
            ),
            (
                "LeadArchitectAgent (20250907_orchestrator_again)".to_string(),
                5,
                400
            ),
            (
                "mini-swe-agent / anthropic/claude-sonnet-4-0".to_string(),
                2,
                160
            ),
        ]
    );
    let words = info_words(&dataset.to_string_lossy());
    for note in [
        "terminal-bench-core@0.1.1: read its 2 subfolders of runs 20250815_mini/, 20250829_goose/",
        "20250815_mini/: 2 runs of 'mini-swe-agent / anthropic/claude-sonnet-4-0' (one attempt per task each), numbered 0–1 in path order",
        "20250829_goose/: 3 runs of one attempt per task each, numbered 0–2 in path order, with no run_metadata.json naming an agent; the system is named after the folder, '20250829_goose'",
        "run_metadata.json names the system 'LeadArchitectAgent', as does another submission beside it; the system is 'LeadArchitectAgent (20250907_orchestrator_again)'",
    ] {
        assert!(words.contains(note), "{note}\n{words}");
    }
    // Once per submission, not once per run.
    assert_eq!(
        words.matches("runs of 'mini-swe-agent").count(),
        1,
        "{words}"
    );
    // A submission given alone is read the same way: its runs numbered, its name kept apart from
    // the submissions beside it.
    let words = info_words(&dataset.join("20250906_orchestrator").to_string_lossy());
    assert!(
        words.contains("LeadArchitectAgent (20250906_orchestrator) 80"),
        "{words}"
    );
    let words = info_words(&goose.to_string_lossy());
    assert!(words.contains("20250829_goose 80 0.075 3"), "{words}");
    // One run of a submission given alone, by a relative path, keeps its number among the runs
    // beside it and says so (the second was run 1 without a word; a run given as `r1` named its
    // folder "/").
    for given in ["2025-08-15__19-28-24", "./2025-08-15__19-28-24"] {
        let second = std::process::Command::new(env!("CARGO_BIN_EXE_pareval"))
            .args(["import", "terminal-bench", given, "--out"])
            .arg(dataset.join("second.csv"))
            .current_dir(dataset.join("20250815_mini"))
            .output()
            .expect("import");
        assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
        assert!(
            stdout(&second).contains(
                "note: 20250815_mini/: 2 runs of 'mini-swe-agent / anthropic/claude-sonnet-4-0' (one attempt per task each), numbered 0–1 in path order"
            ),
            "{given}: {}",
            stdout(&second)
        );
    }
    // A run of the same agent whose metadata names another model string is another system, and
    // the submission says so (the real leaderboard's swe-agent-mini runs do this).
    let other = dataset.join("20250815_mini/2025-08-16__10-00-00");
    copy_tree(&mini, &other);
    let metadata = std::fs::read_to_string(other.join("run_metadata.json")).expect("metadata");
    std::fs::write(
        other.join("run_metadata.json"),
        metadata.replace(
            "anthropic/claude-sonnet-4-0",
            "anthropic/claude-sonnet-4-20250514",
        ),
    )
    .expect("metadata");
    let words = info_words(&dataset.join("20250815_mini").to_string_lossy());
    assert!(words.contains("systems 2"), "{words}");
    assert!(
        words.contains("20250815_mini/: runs beside it of the same agent name another model in run_metadata.json ('mini-swe-agent / anthropic/claude-sonnet-4-20250514'); they are read as another system"),
        "{words}"
    );
    // The leaderboard's `results/` one level up: the dataset folder holds submissions that are
    // folders of runs, so it is no submission itself (it was read as one, its two orchestrator
    // runs alone, the other submissions left out without a word); given alone it is refused,
    // naming it.
    let results = dataset.parent().expect("results").to_path_buf();
    assert_refused(
        &pareval(&["info", &results.to_string_lossy()]),
        "result files lie in its subfolders terminal-bench-core@0.1.1/",
    );
    // Beside a dataset folder that is one submission's run, that run is read and the other named.
    copy_tree(
        &orchestrator,
        &results.join("terminal-bench-core:0.1.1/20250906_orchestrator"),
    );
    let words = info_words(&results.to_string_lossy());
    assert!(words.contains("systems 1"), "{words}");
    assert!(
        words.contains("terminal-bench-core@0.1.1: not read: a folder that is not a run of a harness pareval reads, holding"),
        "{words}"
    );
}

#[test]
fn a_note_names_eight_folders_then_counts_the_rest() {
    // A folder of many experiments, none of them a run pareval reads, is refused naming the first
    // eight subfolders and counting the rest, not with hundreds of names.
    let Some(data) = shared_data() else { return };
    let report = data.join("../formats/swebench_harness_report/tdad_exp011/baseline.eval.json");
    let top = temp_dir("many-experiments").join("experiments");
    for index in 0..11 {
        let folder = top.join(format!("exp{index:02}")).join("reports");
        std::fs::create_dir_all(&folder).expect("folders");
        std::fs::copy(&report, folder.join("baseline.eval.json")).expect("copy");
    }
    let output = pareval(&["info", &top.to_string_lossy()]);
    assert_refused(
        &output,
        "result files lie in its subfolders exp00/ (1 file), exp01/ (1 file), exp02/ (1 file), exp03/ (1 file), exp04/ (1 file), exp05/ (1 file), exp06/ (1 file), exp07/ (1 file), … and 3 more: give those folders, or their files",
    );
}

#[test]
fn lm_eval_finds_an_aggregate_file_named_after_the_output_path() {
    // `--output_path run.json` makes lm-eval write `run_<date>.json`, not `results_<date>.json`,
    // beside the samples files: the system and the subtasks' parent group still come from it.
    let Some(data) = shared_data() else { return };
    let source = data.join("../formats/lm_eval/eval_mmlu_pro_plus");
    let dir = temp_dir("lm-eval-stem");
    let date = "2025-10-14T15-11-56.507865";
    let samples = format!("samples_mmlu_pro_plus_health_{date}.jsonl");
    std::fs::copy(source.join(&samples), dir.join(&samples)).expect("samples");
    std::fs::copy(
        source.join(format!("results_{date}.json")),
        dir.join(format!("my_eval_{date}.json")),
    )
    .expect("results");
    let out = pareval(&[
        "info",
        &dir.join(&samples).to_string_lossy(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        json["systems"][0]["system"],
        "/workspace/gemma-3-12b-it-base"
    );
    // The parent group listed in the aggregate's group_subtasks, not the task itself.
    assert_eq!(json["groups"][0]["sizes"][0]["group"], "mmlu_pro_plus");
    let text = json.to_string();
    assert!(
        text.contains(&format!("the aggregate results are my_eval_{date}.json")),
        "{text}"
    );
    // Without any aggregate file the folder names the system, and the note says what was looked for.
    std::fs::remove_file(dir.join(format!("my_eval_{date}.json"))).expect("remove");
    let out = pareval(&[
        "info",
        &dir.join(&samples).to_string_lossy(),
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_ne!(
        json["systems"][0]["system"],
        "/workspace/gemma-3-12b-it-base"
    );
    assert_eq!(
        json["groups"][0]["sizes"][0]["group"],
        "mmlu_pro_plus_health"
    );
    assert!(json.to_string().contains("nor <stem>_"), "{json}");
}

#[test]
fn swebench_counts_instead_of_lists_and_best_of_n_submissions_are_noted() {
    let Some(data) = shared_data() else { return };
    let source = data.join("../formats/swebench_experiments_v2");
    let dir = temp_dir("swebench-older").join("20250101_agent");
    std::fs::create_dir_all(dir.join("results")).expect("folder");
    // An older results.json: no_generation and no_logs as counts; a best-of-2 submission.
    let mut results: serde_json::Value = serde_json::from_slice(
        &std::fs::read(source.join("results/results.json")).expect("results"),
    )
    .expect("json");
    results["no_generation"] = serde_json::json!(20);
    results["no_logs"] = serde_json::json!(29);
    std::fs::write(dir.join("results/results.json"), results.to_string()).expect("write");
    let metadata = std::fs::read_to_string(source.join("metadata.yaml")).expect("metadata");
    std::fs::write(
        dir.join("metadata.yaml"),
        metadata.replace("attempts: 1", "attempts: \"2\""),
    )
    .expect("write");
    let path = dir.join("results/results.json");
    let out = pareval(&["info", &path.to_string_lossy(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let notes = json["notes"].to_string();
    assert!(
        notes.contains("'no_generation' is a count (20), not a list of instance ids"),
        "{notes}"
    );
    assert!(notes.contains("'no_logs' is a count (29)"), "{notes}");
    assert!(notes.contains("attempts '2': a best-of-N"), "{notes}");
    // The resolved list still decides every instance of the split.
    assert_eq!(json["n_rows"], 300);
}

#[test]
fn leaderboard_folders_differing_in_the_date_keep_their_whole_names_and_system_name_sets_one() {
    // Two submissions of one team in a split folder, without metadata.yaml: stripping the date
    // prefix would give both the system 'agent' and their rows would collide.
    let Some(data) = shared_data() else { return };
    let source = data.join("../formats/swebench_experiments_v2/results/results.json");
    let split = temp_dir("swebench-dated");
    let mut files = Vec::new();
    for folder in ["20240101_agent", "20240301_agent", "20240501_other"] {
        let results = split.join(folder).join("results");
        std::fs::create_dir_all(&results).expect("folder");
        std::fs::copy(&source, results.join("results.json")).expect("copy");
        files.push(results.join("results.json").to_string_lossy().into_owned());
    }
    let out = pareval(&["info", &files[0], &files[1], &files[2], "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut systems: Vec<String> = json["systems"]
        .as_array()
        .expect("systems")
        .iter()
        .map(|s| s["system"].as_str().expect("name").to_string())
        .collect();
    systems.sort();
    // The lone 'other' keeps the short name.
    assert_eq!(systems, ["20240101_agent", "20240301_agent", "other"]);
    assert!(
        json["notes"]
            .to_string()
            .contains("'agent' would also name 20240301_agent beside it"),
        "{}",
        json["notes"]
    );
    // --system-name names the system of the files given, native or canonical.
    let out = pareval(&[
        "info",
        &files[2],
        "--system-name",
        "Other Team v2",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["systems"][0]["system"], "Other Team v2");
    assert!(json["notes"].to_string().contains("the file says 'other'"));
    let csv = split.join("rows.csv");
    std::fs::write(&csv, "system,task,outcome\nx,t1,1\nx,t2,0\n").expect("csv");
    let out = pareval(&[
        "info",
        &csv.to_string_lossy(),
        &files[2],
        "--system-name",
        "same",
        "--format",
        "json",
    ]);
    // Both files now name one system, whose rows on distinct tasks merge.
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["n_systems"], 1, "{json}");
}

#[test]
fn an_inspect_sample_s_epoch_that_is_no_whole_number_from_1_is_refused() {
    // The epoch is the run: a bad one was read as epoch 1 without a word, taking its place.
    let dir = temp_dir("inspect-epoch");
    let log = |epoch: serde_json::Value| {
        let path = dir.join("log.json");
        let value = serde_json::json!({
            "status": "success",
            "eval": {"model": "openai/gpt-4o", "task": "arith",
                     "dataset": {"sample_ids": [1, 2]}, "config": {"epochs": 2}},
            "samples": [
                {"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}},
                {"id": 1, "epoch": epoch, "scores": {"match": {"value": "I"}}}
            ]
        });
        std::fs::write(&path, value.to_string()).expect("write");
        pareval(&["info", &path.to_string_lossy(), "--from", "inspect"])
    };
    for (bad, shown) in [
        (serde_json::json!("x"), "\"x\""),
        (serde_json::json!(-1), "-1"),
        (serde_json::json!(0), "0"),
        (serde_json::json!({}), "{}"),
        (serde_json::json!(1.5), "1.5"),
    ] {
        let out = log(bad);
        assert_refused(
            &out,
            &format!("sample 2 (id 1): epoch {shown} is not a whole number from 1 to 10000"),
        );
    }
    let good = log(serde_json::json!(2));
    assert_eq!(good.status.code(), Some(0), "{}", stderr(&good));
    // A sample's epoch past the bound: every sample of the dataset would get that many
    // not-attempted rows.
    assert_refused(
        &log(serde_json::json!(4_000_000_000u64)),
        "epoch 4000000000 is not a whole number from 1 to 10000",
    );
    // The planned epochs of a damaged header: 10^18 was cut to 2,808,348,672 and the rows filled
    // the memory (no answer in 20 s, gigabytes); refused naming the field.
    let planned = |epochs: Value| {
        let path = dir.join("planned.json");
        let value = serde_json::json!({
            "status": "success",
            "eval": {"model": "openai/gpt-4o", "task": "arith",
                     "dataset": {"sample_ids": [1, 2]}, "config": {"epochs": epochs}},
            "samples": [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}]
        });
        std::fs::write(&path, value.to_string()).expect("write");
        pareval(&["info", &path.to_string_lossy(), "--from", "inspect"])
    };
    assert_refused(
        &planned(serde_json::json!(1_000_000_000_000_000_000u64)),
        "eval.config.epochs: epoch 1000000000000000000 is not a whole number from 1 to 10000 (planned epochs)",
    );
    assert_eq!(planned(serde_json::json!(2)).status.code(), Some(0));
    assert_eq!(planned(Value::Null).status.code(), Some(0));
    // Within the bound, over a large dataset: still millions of rows (10,000 epochs of 200
    // samples took 1.3 GB from a 32 KB log). Refused by the product.
    let path = dir.join("wide.json");
    let ids: Vec<u32> = (1..=200).collect();
    let value = serde_json::json!({
        "status": "success",
        "eval": {"model": "openai/gpt-4o", "task": "arith",
                 "dataset": {"sample_ids": ids}, "config": {"epochs": 10_000}},
        "samples": [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}]
    });
    std::fs::write(&path, value.to_string()).expect("write");
    assert_refused(
        &pareval(&["info", &path.to_string_lossy(), "--from", "inspect"]),
        "10000 epochs of 200 dataset samples plan 2000000 sample runs, more than pareval reads from one log (1000000)",
    );
}

#[test]
fn an_inspect_sample_without_a_score_is_noted_and_scores_of_another_shape_are_refused() {
    // In a finished log a sample with no score of the scorer read became not attempted without a
    // word, and scores written as a list or a string were read the same way.
    let dir = temp_dir("inspect-sample-scores");
    let log = |second: serde_json::Value| {
        let path = dir.join("log.json");
        let mut sample = serde_json::json!({"id": 2, "epoch": 1});
        if !second.is_null() {
            sample["scores"] = second;
        }
        let value = serde_json::json!({
            "status": "success",
            "eval": {"model": "openai/gpt-4o", "task": "arith",
                     "dataset": {"sample_ids": [1, 2]}},
            "samples": [
                {"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}},
                sample
            ]
        });
        std::fs::write(&path, value.to_string()).expect("write");
        pareval(&["info", &path.to_string_lossy(), "--from", "inspect"])
    };
    for unscored in [
        serde_json::Value::Null,
        serde_json::json!({}),
        serde_json::json!({"match": {"value": null}}),
    ] {
        let out = log(unscored.clone());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let words = flat(&stdout(&out));
        assert!(
            words.contains("1 sample without error holds no score of scorer 'match' (or an unscored NaN): not attempted, as Inspect's metrics leave it out (the first, sample 2, epoch 1)"),
            "{unscored}: {words}"
        );
    }
    for (damaged, shown) in [
        (serde_json::json!([]), "[]"),
        (serde_json::json!("C"), "\"C\""),
        (serde_json::json!(1), "1"),
    ] {
        assert_refused(
            &log(damaged),
            &format!("sample 2 (id 2): scores is {shown}, not an object of scores by scorer"),
        );
    }
}

/// An older Inspect log keeps a sample's score in the single field `score` and its results as
/// `scorer` and `metrics` (before `scores`): its scored samples were read as not attempted, the note
/// said no scorer ran, and the mean was 0. Read as Inspect's own reader migrates it: the same rows
/// as the log in today's layout, with a note. (NOTES.md §3, and audit K.)
#[test]
fn an_older_inspect_log_s_single_score_field_is_read_as_inspect_migrates_it() {
    let dir = temp_dir("inspect-single-score");
    let samples = serde_json::json!([
        {"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}, "total_time": 3.2},
        {"id": 1, "epoch": 2, "scores": {"match": {"value": "I"}}, "total_time": 2.7},
        {"id": "b", "epoch": 1, "scores": {"match": {"value": 1}}, "total_time": 4.0},
        {"id": "b", "epoch": 2, "error": {"message": "RateLimitError", "traceback": "..."}}
    ]);
    let today = serde_json::json!({
        "version": 2, "status": "success",
        "eval": {"task": "toy_qa", "model": "openai/model-z",
                 "dataset": {"samples": 2, "sample_ids": [1, "b"]}, "config": {"epochs": 2}},
        "results": {"total_samples": 4, "completed_samples": 3,
                    "scores": [{"name": "match", "scorer": "match",
                                "metrics": {"accuracy": {"name": "accuracy", "value": 0.67}}}]},
        "samples": samples
    });
    let mut older = today.clone();
    older["results"] = serde_json::json!({
        "total_samples": 4, "completed_samples": 3,
        "scorer": {"name": "match", "params": {}},
        "metrics": {"accuracy": {"name": "accuracy", "value": 0.67}}
    });
    for sample in older["samples"].as_array_mut().expect("samples") {
        if let Some(scores) = sample.as_object_mut().and_then(|s| s.remove("scores")) {
            sample["score"] = scores["match"].clone();
        }
    }
    // Only the samples in the old layout (results in today's) read the same too.
    let mut samples_only = older.clone();
    samples_only["results"] = today["results"].clone();
    let import = |name: &str, log: &serde_json::Value| {
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, log.to_string()).expect("write");
        let out = dir.join(format!("{name}.csv"));
        let output = pareval(&[
            "import",
            "inspect",
            &path.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let rows: Vec<String> = std::fs::read_to_string(&out)
            .expect("csv")
            .lines()
            .map(|line| line.split(',').take(5).collect::<Vec<_>>().join(","))
            .collect();
        (rows, stdout(&output))
    };
    let (expected, _) = import("today", &today);
    assert!(
        expected.contains(&"openai/model-z,1,0,1,ok".to_string()),
        "{expected:?}"
    );
    for (name, log) in [("older", &older), ("samples_only", &samples_only)] {
        let (rows, notes) = import(name, log);
        assert_eq!(rows, expected, "{name}");
        assert!(
            notes.contains("3 samples keep the score in the single `score` field of Inspect logs before `scores`: read as the score of scorer 'match'"),
            "{name}: {notes}"
        );
        assert!(!notes.contains("no scorer ran"), "{name}: {notes}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn inspect_failed_runs_dict_scores_and_odd_values_are_read_or_named() {
    let dir = temp_dir("inspect-edge");
    let write = |name: &str, value: serde_json::Value| -> String {
        let path = dir.join(name);
        std::fs::write(&path, value.to_string()).expect("write");
        path.to_string_lossy().into_owned()
    };
    // A run that failed before any scorer ran: two samples errored, the dataset has four.
    let failed = write(
        "failed.json",
        serde_json::json!({
            "status": "error",
            "eval": {"model": "openai/gpt-4o", "task": "popularity",
                     "dataset": {"sample_ids": [1, 2, 3, 4]}, "config": {"epochs": 1}},
            "samples": [
                {"id": 1, "epoch": 1, "error": {"message": "rate limit"}},
                {"id": 2, "epoch": 1, "error": {"message": "timeout"}}
            ]
        }),
    );
    let out = pareval(&["info", &failed, "--from", "inspect", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let system = &json["systems"][0];
    assert_eq!(
        (system["errored"].as_u64(), system["not_attempted"].as_u64()),
        (Some(2), Some(2)),
        "{system}"
    );
    assert!(
        json["notes"]
            .to_string()
            .contains("no scorer ran (the eval's status is 'error')")
    );
    // A run stopped as samples ran (Ctrl-C, `pareval run` ending the harness): a sample cancelled
    // before it was scored is not attempted, not a failure; one scored first keeps its score; any
    // other error is still an error.
    let cancelled = write(
        "cancelled.json",
        serde_json::json!({
            "status": "cancelled",
            "eval": {"model": "m", "task": "t",
                     "dataset": {"sample_ids": [1, 2, 3, 4, 5]}, "config": {"epochs": 1}},
            "samples": [
                {"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}},
                {"id": 2, "epoch": 1,
                 "error": {"message": "CancelledError(\"Cancelled via cancel scope 7f9dc741d620\")"}},
                {"id": 3, "epoch": 1, "error": {"message": "RuntimeError('boom')"}},
                {"id": 4, "epoch": 1, "scores": {"match": {"value": "I"}},
                 "error": {"message": "CancelledError()"}}
            ]
        }),
    );
    let out = pareval(&["info", &cancelled, "--from", "inspect", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let system = &json["systems"][0];
    assert_eq!(
        (
            system["errored"].as_u64(),
            system["not_attempted"].as_u64(),
            system["mean_outcome"].as_f64()
        ),
        (Some(1), Some(2), Some(1.0 / 3.0)),
        "{system}"
    );
    assert!(
        json["notes"]
            .to_string()
            .contains("1 sample was cancelled before it was scored"),
        "{}",
        json["notes"]
    );
    // A finished run with no scorer and no error: nothing to read, and the refusal says so (a run
    // still going is read as not attempted so far: an_inspect_log_of_a_run_just_started_…).
    let empty = write(
        "empty.json",
        serde_json::json!({"status": "success", "eval": {"model": "m", "task": "t"},
                           "samples": [{"id": 1, "epoch": 1}]}),
    );
    assert_refused(
        &pareval(&["info", &empty, "--from", "inspect"]),
        "no scorer in the log (no results, no sample scores) and no errored sample",
    );
    // A dict-valued score: refused with its keys, read with --score-key.
    let dict = write(
        "dict.json",
        serde_json::json!({"status": "success", "eval": {"model": "m", "task": "t"},
            "samples": [{"id": 1, "epoch": 1, "scores": {"judge": {"value":
                {"Problem Correctness": 1, "Step Correctness": 0.4}}}}]}),
    );
    assert_refused(
        &pareval(&["info", &dict, "--from", "inspect"]),
        "sample 1 (id 1): scorer 'judge': the score is a dict of several values (keys: Problem Correctness, Step Correctness); --score-key KEY picks one",
    );
    let out = pareval(&[
        "info",
        &dict,
        "--from",
        "inspect",
        "--score-key",
        "Step Correctness",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["systems"][0]["mean_outcome"], 0.4);
    // A score outside [0, 1] names the scorer and the way out.
    let big = write(
        "big.json",
        serde_json::json!({"status": "success", "eval": {"model": "m", "task": "t"},
            "samples": [{"id": 1, "epoch": 1, "scores": {"points": {"value": 8}}}]}),
    );
    assert_refused(
        &pareval(&["info", &big, "--from", "inspect"]),
        "sample 1 (id 1): scorer 'points' gave 8, outside [0, 1]; --score-scale MIN:MAX",
    );
    // An early writer's one-element lists: said, rather than "needs eval.model".
    let lists = write(
        "lists.json",
        serde_json::json!({"status": ["success"], "eval": {"model": ["m"], "task": ["t"]},
            "samples": []}),
    );
    assert_refused(
        &pareval(&["info", &lists, "--from", "inspect"]),
        "eval.model is [\"m\"], not a model name (every scalar of this log is a one-element list",
    );
}

/// system, task, run, outcome, status, cost, seconds.
type HarborRow = (
    &'static str,
    &'static str,
    &'static str,
    Option<f64>,
    &'static str,
    Option<f64>,
    f64,
);

#[test]
fn a_running_harbor_job_waits_on_tasks_with_attempts_to_come() {
    // The 0.26 job (n_attempts 2) while it runs: one fix-git trial still going (its folder has
    // config.json and no result.json yet) and the job's result.json without finished_at. fix-git's
    // ended trial alone would be read as the task's outcome, which the other attempt would change.
    let root = temp_dir("harbor-running");
    let job = root.join("2026-05-14__10-02-33");
    crate::common::copy_tree(
        &crate::common::fixture("harbor/jobs/2026-05-14__10-02-33"),
        &job,
    );
    std::fs::remove_file(job.join("fix-git__bR8vN2e/result.json")).expect("remove");
    let mut result: serde_json::Value =
        serde_json::from_slice(&std::fs::read(job.join("result.json")).expect("read"))
            .expect("JSON");
    result["finished_at"] = serde_json::Value::Null;
    std::fs::write(job.join("result.json"), result.to_string()).expect("write");
    let rows = crate::import_formats::import_rows("harbor", &[&job], &[], "harbor-running-rows");
    let fix_git: Vec<&serde_json::Value> = rows.iter().filter(|r| r["task"] == "fix-git").collect();
    assert_eq!(fix_git.len(), 1);
    assert_eq!(fix_git[0]["status"], "not_attempted");
    // regex-log has both attempts ended: read as before.
    let regex: Vec<&serde_json::Value> = rows.iter().filter(|r| r["task"] == "regex-log").collect();
    assert_eq!(regex.len(), 2);
    assert!(regex.iter().any(|r| r["status"] == "error"));
    let words = crate::import_formats::info_words(&[job.to_str().expect("path")]);
    assert!(
        words.contains("the job is running (no finished_at): 1 ended trial of tasks with fewer than its 2 attempts ended is not attempted so far"),
        "{words}"
    );
    // The job's config.json saved with a byte order mark still gives its count.
    let config = job.join("config.json");
    let original = std::fs::read(&config).expect("read");
    std::fs::write(&config, [b"\xef\xbb\xbf".as_slice(), &original].concat()).expect("write");
    let words = crate::import_formats::info_words(&[job.to_str().expect("path")]);
    assert!(
        words.contains(
            "1 ended trial of tasks with fewer than its 2 attempts ended is not attempted so far"
        ),
        "{words}"
    );
    // A count that cannot be read is said, not taken as one attempt unseen.
    let mut bent: serde_json::Value = serde_json::from_slice(&original).expect("JSON");
    bent["n_attempts"] = serde_json::json!("two");
    std::fs::write(&config, bent.to_string()).expect("write");
    let words = crate::import_formats::info_words(&[job.to_str().expect("path")]);
    assert!(
        words.contains("the job is running, but ")
            && words.contains("config.json gives n_attempts \"two\", not a whole number ≥ 1: which tasks still have runs to come cannot be told, so each task's runs in so far are read as its outcome"),
        "{words}"
    );
    std::fs::write(&config, b"{\"n_attempts\": 2,").expect("write");
    let words = crate::import_formats::info_words(&[job.to_str().expect("path")]);
    assert!(
        words.contains("config.json is not JSON (EOF while parsing"),
        "{words}"
    );
}

/// Harbor keeps a job's results per agent, model and dataset: a job over two datasets was pooled
/// into one system, and a task named alike in both read as two runs of one task. Each trial is now
/// the system `agent__model__dataset`, from the job's config (so a running job's names hold while
/// only one dataset's trials have landed, and a trial read alone is named as in its folder); a job
/// of one dataset keeps `agent__model`, so its systems pair with a two-dataset job's on their tasks.
#[test]
fn a_harbor_job_over_two_datasets_is_one_system_per_dataset() {
    let root = temp_dir("harbor-two-datasets");
    let job = root.join("2026-05-14__10-02-33");
    crate::common::copy_tree(
        &crate::common::fixture("harbor/jobs/2026-05-14__10-02-33"),
        &job,
    );
    let edit = |path: &std::path::Path, change: &dyn Fn(&mut serde_json::Value)| {
        let mut value: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
        change(&mut value);
        std::fs::write(path, value.to_string()).expect("write");
    };
    // The job runs a second dataset, local, whose fix-git is another task of the same name: the
    // second fix-git trial ran that one.
    edit(&job.join("config.json"), &|config| {
        config["datasets"]
            .as_array_mut()
            .expect("datasets")
            .push(serde_json::json!({"path": "/data/git-tasks", "name": null}));
    });
    edit(&job.join("fix-git__bR8vN2e/result.json"), &|trial| {
        trial["source"] = serde_json::json!("git-tasks");
        trial["config"]["task"]["source"] = serde_json::json!("git-tasks");
    });
    let rows = crate::import_formats::import_rows("harbor", &[&job], &[], "harbor-two-rows");
    let cells: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["system"].as_str().expect("system").to_string(),
                r["task"].as_str().expect("task").to_string(),
                r["run"].to_string(),
            )
        })
        .collect();
    let tb = "terminus-2__claude-sonnet-4-5__terminal-bench";
    let git = "terminus-2__claude-sonnet-4-5__git-tasks";
    for (system, task, run) in [
        (git, "fix-git", "0"),
        (tb, "fix-git", "0"),
        (tb, "regex-log", "0"),
        (tb, "regex-log", "1"),
    ] {
        assert!(
            cells.contains(&(system.to_string(), task.to_string(), format!("\"{run}\""))),
            "{system} {task} {run} in {cells:?}"
        );
    }
    assert_eq!(rows.len(), 4, "{cells:?}");
    let words = crate::import_formats::info_words(&[job.to_str().expect("path")]);
    assert!(
        words.contains("the job's config.json plans 2 datasets (/data/git-tasks, terminal-bench): as Harbor keeps its results, each agent and model is one system per dataset, named agent__model__dataset by the dataset its trials name"),
        "{words}"
    );
    // Read from inside the trial's folder (`result.json`, no folder above it as written), a trial
    // is named as in its job folder too.
    let out = root.join("inside.csv");
    let inside = std::process::Command::new(env!("CARGO_BIN_EXE_pareval"))
        .args(["import", "harbor", "result.json", "--out"])
        .arg(&out)
        .current_dir(job.join("fix-git__bR8vN2e"))
        .output()
        .expect("run");
    assert_eq!(inside.status.code(), Some(0), "{}", stderr(&inside));
    let written = std::fs::read_to_string(&out).expect("rows");
    assert!(written.contains(git), "{written}");
    // Only the first dataset's trials in so far: named by dataset already, from the config.
    std::fs::remove_dir_all(job.join("fix-git__bR8vN2e")).expect("remove");
    let rows = crate::import_formats::import_rows("harbor", &[&job], &[], "harbor-two-rows-early");
    assert!(rows.iter().all(|r| r["system"] == tb), "{rows:?}");
    // A trial read alone is named as in its job folder.
    let alone = job.join("fix-git__Xk3pQ7m/result.json");
    let rows =
        crate::import_formats::import_rows("harbor", &[&alone], &[], "harbor-two-rows-alone");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["system"], tb);
    // A job of one local dataset, its path a link (or `.`): its trials name the folder the path
    // resolves to, which is not the path's last part, and it is still one dataset.
    edit(&job.join("config.json"), &|config| {
        config["datasets"] = serde_json::json!([{"path": "/links/tb", "name": null}]);
    });
    let rows = crate::import_formats::import_rows("harbor", &[&job], &[], "harbor-two-rows-link");
    assert!(
        rows.iter()
            .all(|r| r["system"] == "terminus-2__claude-sonnet-4-5"),
        "{rows:?}"
    );
    // A job config that cannot be read is named in a note, for a trial read alone too.
    std::fs::write(
        job.join("config.json"),
        "{\"job_name\": \"x\", \"datasets\": [",
    )
    .expect("write");
    let words = crate::import_formats::info_words(&[alone.to_str().expect("path")]);
    assert!(
        words.contains("the job's config.json is not JSON"),
        "{words}"
    );
    // The job of one dataset is named as before.
    let single = crate::common::fixture("harbor/jobs/2026-05-14__10-02-33");
    let rows = crate::import_formats::import_rows("harbor", &[&single], &[], "harbor-two-rows-one");
    assert!(
        rows.iter()
            .all(|r| r["system"] == "terminus-2__claude-sonnet-4-5"),
        "{rows:?}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn two_harbor_jobs_of_one_agent_and_model_name_the_collision_and_the_way_out() {
    // A rerun of a job (another job folder, same agent, model and tasks) collided on every trial
    // with only the keys listed: the message did not say why nor what to do.
    let jobs = temp_dir("harbor-two-jobs").join("jobs");
    let first = jobs.join("2026-05-14__10-02-33");
    let again = jobs.join("2026-05-15__09-00-00");
    for job in [&first, &again] {
        crate::common::copy_tree(
            &crate::common::fixture("harbor/jobs/2026-05-14__10-02-33"),
            job,
        );
    }
    let config = again.join("config.json");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replace("2026-05-14__10-02-33", "2026-05-15__09-00-00"),
    )
    .expect("write");
    let out = pareval(&["info", jobs.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains("('terminus-2__claude-sonnet-4-5', 'fix-git', run 0)")
            && said.contains("two jobs of one agent and model, a rerun in a new job folder or jobs on datasets that share task names, name one system")
            && said.contains("import each with --system-name and read the CSVs together"),
        "{said}"
    );
    // Each job alone is read.
    for job in [&first, &again] {
        let rows = crate::import_formats::import_rows("harbor", &[job], &[], "harbor-two-jobs-one");
        assert_eq!(rows.len(), 4, "{rows:?}");
    }
    // Two trials of one job given one by one: each is attempt 0; the hint says to give the job.
    let trials = [
        first.join("fix-git__bR8vN2e"),
        first.join("fix-git__Xk3pQ7m"),
    ];
    let said = stderr(&pareval(&[
        "info",
        trials[0].to_str().expect("path"),
        trials[1].to_str().expect("path"),
    ]));
    assert!(
        said.contains(
            "a job's trials given one by one, or beside their job's folder, are each read alone, so give the job's folder alone"
        ),
        "{said}"
    );
    // A Harbor job colliding with a record table (two Harbor jobs of other systems beside it):
    // no Harbor hint, the collision is not between Harbor reads.
    let table = temp_dir("harbor-two-jobs-table").join("extra.csv");
    std::fs::write(
        &table,
        "system,task,outcome\nterminus-2__claude-sonnet-4-5,fix-git,1\n",
    )
    .expect("write");
    let other = crate::common::fixture("harbor/jobs/2025-11-20__14-31-07");
    let refused_without_hint = |table: &Path| {
        let out = pareval(&[
            "info",
            first.to_str().expect("path"),
            other.to_str().expect("path"),
            table.to_str().expect("path"),
        ]);
        let said = stderr(&out);
        assert!(
            out.status.code() == Some(2)
                && said.contains("duplicate")
                && !said.contains("Harbor names"),
            "{said}"
        );
    };
    refused_without_hint(&table);
    // The table imported from two jobs of other systems, read with those jobs: every collision is
    // a job against the table (the hint came, matching the jobs' names in the message).
    let both = temp_dir("harbor-two-jobs-both").join("both.csv");
    let imported = pareval(&[
        "import",
        first.to_str().expect("path"),
        other.to_str().expect("path"),
        "--out",
        both.to_str().expect("path"),
    ]);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    refused_without_hint(&both);
}

#[test]
fn harbor_job_folders_import_with_harbor_s_own_error_policy() {
    let dir = temp_dir("harbor");
    let jobs = crate::common::fixture("harbor/jobs");
    // (system, task, run, outcome, status, cost, seconds), as an independent reading of the files
    // with Harbor's error table gave them.
    let expected: [(&str, &str, &str, &[HarborRow]); 2] = [
        (
            "2025-11-20__14-31-07",
            "harbor",
            "0.1.45",
            &[
                (
                    "claude-code__claude-opus-4-1",
                    "build-cython-ext",
                    "0",
                    Some(0.0),
                    "ok",
                    Some(1.7315),
                    421.0,
                ),
                (
                    "claude-code__claude-opus-4-1",
                    "fix-git",
                    "0",
                    Some(1.0),
                    "error",
                    Some(4.1022),
                    947.9,
                ),
                (
                    "claude-code__claude-opus-4-1",
                    "regex-log",
                    "0",
                    None,
                    "not_attempted",
                    Some(5.2871),
                    469.2,
                ),
            ],
        ),
        (
            "2026-05-14__10-02-33",
            "harbor",
            "0.26",
            &[
                (
                    "terminus-2__claude-sonnet-4-5",
                    "fix-git",
                    "0",
                    Some(1.0),
                    "ok",
                    Some(0.3187),
                    262.1,
                ),
                (
                    "terminus-2__claude-sonnet-4-5",
                    "fix-git",
                    "1",
                    Some(0.0),
                    "ok",
                    Some(0.2461),
                    204.3,
                ),
                (
                    "terminus-2__claude-sonnet-4-5",
                    "regex-log",
                    "0",
                    Some(0.0),
                    "error",
                    Some(0.9934),
                    949.2,
                ),
                (
                    "terminus-2__claude-sonnet-4-5",
                    "regex-log",
                    "1",
                    None,
                    "not_attempted",
                    None,
                    608.0,
                ),
            ],
        ),
    ];
    for (job, format, version, rows) in expected {
        let folder = jobs.join(job);
        let out = dir.join(format!("{job}.jsonl"));
        let imported = imported_rows(format, &folder, &out);
        assert_eq!(imported.len(), rows.len(), "Harbor {version}: {imported:?}");
        for (row, &(system, task, run, outcome, status, cost, seconds)) in imported.iter().zip(rows)
        {
            assert_eq!(row["system"], system, "{row}");
            assert_eq!(row["task"], task, "{row}");
            assert_eq!(row["run"], run, "{row}");
            assert_eq!(number(row, "outcome"), outcome, "{row}");
            assert_eq!(row["status"], status, "{row}");
            assert_eq!(number(row, "cost_usd"), cost, "{row}");
            let read = number(row, "seconds").expect("seconds");
            assert!((read - seconds).abs() < 1e-6, "{row}");
        }
    }
    // Recognised by its keys without --from; the trials without a valid reward are named in a note,
    // counted by exception.
    let said = info_words(&jobs.join("2026-05-14__10-02-33").to_string_lossy());
    assert!(
        said.contains("read as harbor (recognised by its layout)"),
        "{said}"
    );
    assert!(
        said.contains("1 trials without a valid reward (EnvironmentStartTimeoutError 1)"),
        "{said}"
    );
    // A trial still running (a folder without result.json) is noted, not counted.
    let running = dir.join("job");
    copy_dir(&jobs.join("2026-05-14__10-02-33"), &running);
    std::fs::create_dir_all(running.join("build-x__a1b2c3d")).expect("trial");
    std::fs::write(running.join("build-x__a1b2c3d/config.json"), "{}").expect("config");
    let said = info_words(&running.to_string_lossy());
    assert!(
        said.contains("1 trial folders have no result.json yet"),
        "{said}"
    );
    // A reward outside [0, 1] names the trial's file and the value.
    let trial = running.join("fix-git__Xk3pQ7m/result.json");
    let text = std::fs::read_to_string(&trial).expect("trial");
    std::fs::write(
        &trial,
        text.replacen("\"reward\": 1.0", "\"reward\": 7.0", 1),
    )
    .expect("write");
    assert_refused(
        &pareval(&["info", &running.to_string_lossy()]),
        "fix-git__Xk3pQ7m/result.json: the verifier's reward 7.0 is not a number in [0, 1]",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

#[test]
fn an_inspect_eval_set_folder_keys_tasks_by_inspect_task() {
    let folder = crate::common::fixture("inspect_eval_set");
    let folder_text = folder.to_string_lossy().to_string();
    let dir = temp_dir("eval-set");
    let out = dir.join("rows.jsonl");
    // A folder of logs is its .eval files; Inspect's own listings (logs.json, eval-set.json) are not
    // records.
    let rows = imported_rows("inspect", &folder, &out);
    assert_eq!(rows.len(), 10);
    let mut tasks: Vec<String> = rows
        .iter()
        .map(|r| r["task"].as_str().expect("task").to_string())
        .collect();
    tasks.sort();
    assert_eq!(tasks[..2], ["alpha/q1", "alpha/q2"]);
    assert_eq!(tasks.iter().filter(|t| t.starts_with("beta/")).count(), 4);
    let said = info_words(&folder_text);
    assert!(
        said.contains("written by an eval set (eval.eval_set_id)"),
        "{said}"
    );
    // Keyed by the sample id alone, the two tasks collide, and the message says what to do.
    assert_refused(
        &pareval(&["info", &folder_text, "--inspect-task-key", "id"]),
        "--inspect-task-key task-id keys them <task>/<sample id>",
    );
    // Logs of different tasks and models from separate evals (no eval set): the shared ids meet as
    // one task with two groups, and the message says what to do.
    let log = |model: &str, task: &str| {
        serde_json::json!({"status": "success", "eval": {"model": model, "task": task},
                           "results": {"scores": [{"name": "match"}]},
                           "samples": [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}]})
    };
    let separate = dir.join("separate");
    std::fs::create_dir_all(&separate).expect("separate");
    std::fs::write(separate.join("a.json"), log("m1", "alpha").to_string()).expect("a");
    std::fs::write(separate.join("b.json"), log("m2", "beta").to_string()).expect("b");
    let separate_text = separate.to_string_lossy().to_string();
    assert_refused(
        &pareval(&["info", &separate_text]),
        "--inspect-task-key task-id keys them <task>/<sample id>",
    );
    let keyed = pareval(&["info", &separate_text, "--inspect-task-key", "task-id"]);
    assert_eq!(keyed.status.code(), Some(0), "{}", stderr(&keyed));
    assert!(stdout(&keyed).contains("tasks     2"), "{}", stdout(&keyed));
    assert_refused(
        &pareval(&["info", &folder_text, "--inspect-task-key", "name"]),
        "--inspect-task-key: 'name' is not auto, id or task-id",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_inspect_log_of_a_run_just_started_is_all_not_attempted_not_refused() {
    let log = crate::common::fixture("inspect_running/running.eval");
    let dir = temp_dir("inspect-running");
    let rows = imported_rows("inspect", &log, &dir.join("rows.jsonl"));
    assert_eq!(rows.len(), 40);
    assert!(
        rows.iter().all(|r| r["status"] == "not_attempted"),
        "{rows:?}"
    );
    let said = info_words(&log.to_string_lossy());
    assert!(
        said.contains("the eval is still running and no sample has been scored yet"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn import_never_writes_over_one_of_its_own_input_files() {
    let dir = temp_dir("import-over-input");
    let input = dir.join("run.jsonl_results.jsonl");
    std::fs::copy(
        fixture("human_eval/stand-in-strong.jsonl_results.jsonl"),
        &input,
    )
    .expect("copy");
    let before = std::fs::read(&input).expect("read");
    let input_text = input.to_string_lossy().into_owned();
    // The same file by another spelling of its path.
    let other_spelling = dir.join(".").join("run.jsonl_results.jsonl");
    let output = pareval(&[
        "import",
        "human-eval",
        &input_text,
        "--out",
        &other_spelling.to_string_lossy(),
    ]);
    assert_refused(
        &output,
        &format!("--out names a file this command reads ({input_text})"),
    );
    assert_eq!(std::fs::read(&input).expect("read"), before);
}

#[test]
fn a_running_inspect_log_holds_a_sample_until_all_its_epochs_are_in() {
    // Inspect runs the epochs one after the other: while the eval runs, a sample with only some of
    // its epochs in has no outcome yet (the mean of all of them is its outcome), so a live reader
    // does not take a value the later epochs change. Once the eval is over, the epochs that ran
    // are the sample's outcome, as before.
    let dir = temp_dir("inspect-running-epochs");
    let sample = |id: &str, epoch: u32, value: &str| serde_json::json!({"id": id, "epoch": epoch, "scores": {"match": {"value": value}}});
    let mut log = serde_json::json!({
        "version": 2,
        "status": "started",
        "eval": {
            "task": "t",
            "model": "m/a",
            "dataset": {"sample_ids": ["q1", "q2", "q3"]},
            "config": {"epochs": 2}
        },
        "samples": [sample("q1", 1, "C"), sample("q2", 1, "I"), sample("q1", 2, "I")]
    });
    let running = dir.join("running.json");
    std::fs::write(&running, log.to_string()).expect("log");
    log["status"] = "success".into();
    let done = dir.join("done.json");
    std::fs::write(&done, log.to_string()).expect("log");
    let outcome_of = |rows: &[serde_json::Value], task: &str, run: &str| {
        rows.iter()
            .find(|r| r["task"] == task && r["run"] == run)
            .map(|r| (r["outcome"].clone(), r["status"].clone()))
            .expect("row")
    };
    let rows = imported_rows("inspect", &running, &dir.join("running.jsonl"));
    assert_eq!(outcome_of(&rows, "q1", "0"), ("1".into(), "ok".into()));
    assert_eq!(outcome_of(&rows, "q1", "1"), ("0".into(), "ok".into()));
    assert_eq!(
        outcome_of(&rows, "q2", "0"),
        (serde_json::Value::Null, "not_attempted".into())
    );
    let held = rows
        .iter()
        .find(|r| r["task"] == "q2" && r["run"] == "0")
        .expect("q2");
    assert!(
        held["source"]
            .as_str()
            .is_some_and(|s| s.ends_with("waits for its other epochs (scored 0)")),
        "{held}"
    );
    let said = info_words(&running.to_string_lossy());
    assert!(
        said.contains("the eval is still running: 1 finished epoch of samples whose other epochs have not finished is not attempted so far"),
        "{said}"
    );
    let rows = imported_rows("inspect", &done, &dir.join("done.jsonl"));
    assert_eq!(outcome_of(&rows, "q2", "0"), ("0".into(), "ok".into()));
    // Over, but q2's second epoch was stopped early (pareval's early stopping): it never ran, so
    // q2's first epoch is not its outcome either (`decide` read such samples as finished and called
    // the decision certain).
    log["results"] = serde_json::json!({"early_stopping": {
        "manager": "pareval", "early_stops": [{"id": "q2", "epoch": 2}]
    }});
    let stopped = dir.join("stopped.json");
    std::fs::write(&stopped, log.to_string()).expect("log");
    let rows = imported_rows("inspect", &stopped, &dir.join("stopped.jsonl"));
    assert_eq!(
        outcome_of(&rows, "q2", "0"),
        (serde_json::Value::Null, "not_attempted".into())
    );
    assert_eq!(outcome_of(&rows, "q1", "0"), ("1".into(), "ok".into()));
    let said = info_words(&stopped.to_string_lossy());
    assert!(
        said.contains(
            "1 finished epoch of samples whose other epochs were stopped early is not attempted"
        ),
        "{said}"
    );
    // One stop, in the singular ("1 samples were stopped early").
    assert!(
        said.contains("1 sample was stopped early by pareval (results.early_stopping)"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_two_swebench_formats_named_for_each_other_are_read_as_what_they_are() {
    // SWE-bench/experiments' submission results.json under the leaderboard's format name, and
    // swebench.com's leaderboards.json under the submission's: read, noted, not refused.
    let Some(data) = shared_data() else { return };
    let submission = data.join("../formats/swebench_experiments_v2/results/results.json");
    let out = temp_dir("swebench-named").join("rows.csv");
    let read = pareval(&[
        "import",
        "swebench-leaderboard",
        &submission.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    let text = stdout(&read);
    assert!(text.contains("wrote 300 rows"), "{text}");
    assert!(
        text.contains("named swebench-leaderboard but a SWE-bench submission's results.json"),
        "{text}"
    );
    let board = crate::common::fixture("swebench_leaderboard/leaderboards.json");
    let words = info_words_from("swebench", &board);
    assert!(
        words.contains(
            "named swebench but swebench.com's leaderboards.json: read as swebench-leaderboard"
        ),
        "{words}"
    );
}

fn info_words_from(format: &str, path: &std::path::Path) -> String {
    crate::import_formats::info_words(&["--from", format, &path.to_string_lossy()])
}

#[test]
fn inspect_logs_without_samples_read_their_reductions_and_dict_scores_their_keys() {
    let folder = crate::common::fixture("inspect_no_samples");
    let path = |name: &str| folder.join(name).to_string_lossy().to_string();
    let dir = temp_dir("inspect-no-samples");
    // Written with --no-log-samples: each sample's mean over its two epochs, from the reductions,
    // one row a sample, and their mean is the log's own result (by_epoch mean 0.65625).
    for name in ["no_samples.eval", "no_samples.json"] {
        let rows = imported_rows("inspect", &folder.join(name), &dir.join("rows.jsonl"));
        assert_eq!(rows.len(), 8, "{name}");
        assert!(rows.iter().all(|r| r["run"] == "0"), "{name}");
        let outcomes: Vec<f64> = rows.iter().filter_map(|r| number(r, "outcome")).collect();
        assert_eq!(outcomes.len(), 8, "{name}");
        assert_eq!(outcomes.iter().sum::<f64>() / 8.0, 0.65625, "{name}");
        assert!(
            outcomes.iter().all(|&o| o == 0.5 || o == 0.75),
            "{outcomes:?}"
        );
        let said = info_words(&path(name));
        assert!(said.contains("pareval_test/p60 8 0.656 1"), "{said}");
        assert!(
            said.contains("the log keeps no samples (written with --no-log-samples), only each sample's score reduced over its 2 epochs (by_epoch: mean)"),
            "{said}"
        );
    }
    // Read header-only and written back: the samples' scores are gone, and the log is refused
    // (it used to read as 8 samples not attempted), recognised without --from too.
    for args in [
        vec!["info", "--from", "inspect"],
        vec!["info"],
        vec!["import", "inspect"],
    ] {
        let mut args = args;
        let file = path("header_only.json");
        args.push(&file);
        let out = dir.join("refused.jsonl").to_string_lossy().to_string();
        if args[0] == "import" {
            args.extend(["--out", &out]);
        }
        assert_refused(
            &pareval(&args),
            "header_only.json: the log holds no samples and no reductions (read header-only and written back, or trimmed): its results count 16 completed samples (by_epoch mean 0.65625)",
        );
    }
    // A scorer whose value is a dict: the log's first result names its key, which is read
    // (side_task_success, accuracy 0.375 in the log); --scorer names another key, or the scorer
    // with --score-key.
    let dict = path("dict_scorer.eval");
    let said = info_words(&dict);
    assert!(said.contains("pareval_test/p60 8 0.375"), "{said}");
    assert!(
        said.contains("scorer 'two_tasks' scores a dict, one result per key (side_task_success, main_task_success): its 'side_task_success' read, the log's first result"),
        "{said}"
    );
    for args in [
        vec!["--scorer", "main_task_success"],
        vec!["--scorer", "two_tasks", "--score-key", "main_task_success"],
    ] {
        let mut all = vec![dict.as_str()];
        all.extend(args);
        let said = crate::import_formats::info_words(&all);
        assert!(said.contains("pareval_test/p60 8 0.625"), "{said}");
    }
    assert_refused(
        &pareval(&["info", &dict, "--scorer", "two_tasks"]),
        "the score is a dict of several values (keys: main_task_success, side_task_success); --score-key KEY picks one",
    );
    // An eval cancelled before any sample finished: nothing was run, so nothing is a failure.
    let said = info_words(&path("cancelled_before_any.eval"));
    assert!(
        said.contains("no scorer ran (the eval's status is 'cancelled')"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_lm_eval_task_run_again_in_one_model_folder_is_a_further_run() {
    // lm-eval adds samples_<task>_<date>.jsonl and results_<date>.json to the model's folder at each
    // invocation, so a model folder where a task was evaluated twice holds both (it was refused as
    // the same docs twice). Built from a real gsm8k run in shared/formats/lm_eval.
    let Some(data) = shared_data() else { return };
    let source = data.join("../formats/lm_eval");
    let first = "2025-09-09T13-31-53.431753";
    let folder = temp_dir("lm-eval-again").join("gemma3__12b-u1");
    std::fs::create_dir_all(&folder).expect("folder");
    for date in [first, "2025-09-10T08-00-00.000000"] {
        std::fs::copy(
            source.join(format!("samples_gsm8k_{first}.jsonl")),
            folder.join(format!("samples_gsm8k_{date}.jsonl")),
        )
        .expect("samples");
        std::fs::copy(
            source.join(format!("results_{first}.json")),
            folder.join(format!("results_{date}.json")),
        )
        .expect("results");
    }
    let out = pareval(&["info", &folder.to_string_lossy(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let system = &json["systems"][0];
    assert_eq!(system["runs"], 2, "{system}");
    assert_eq!(
        (&system["rows"], &system["tasks"]),
        (&Value::from(6), &Value::from(3))
    );
    let words = info_words(&folder.to_string_lossy());
    assert!(
        words.contains("run 1 of gsm8k: 1 earlier samples file of the task and model beside it"),
        "{words}"
    );
    // Two models' runs copied into one folder are two systems, each with its one run.
    let words = info_words(&source.to_string_lossy());
    assert!(!words.contains("run 1 of gsm8k"), "{words}");
    assert!(words.contains("systems 2"), "{words}");
}

/// lm-eval's aggregate results file given alone (each task's metrics, no sample's outcome) got the
/// generic "not a result file pareval reads" listing its keys, or with --from lm-eval "line 1: EOF
/// while parsing"; the message now says what it is and which files to give.
#[test]
fn an_lm_eval_results_file_alone_says_to_give_its_samples() {
    let folder = crate::common::fixture("lm_eval_unnamed_filters");
    let results = folder.join("results_2024-11-21T17-58-00.556850.json");
    for extra in [&[][..], &["--from", "lm-eval"][..]] {
        let mut args = vec!["info", results.to_str().expect("path")];
        args.extend(extra);
        crate::common::assert_refused(
            &pareval(&args),
            &format!(
                "lm-eval's aggregate results (each task's metrics, no sample's outcome): pareval reads the samples_<task>_<date>.jsonl files lm-eval writes beside it with --log_samples; give its folder {} (1 samples file beside it)",
                folder.display()
            ),
        );
    }
    let alone = temp_dir("lm-eval-results-alone");
    std::fs::copy(&results, alone.join("results.json")).expect("copy");
    crate::common::assert_refused(
        &pareval(&["info", alone.join("results.json").to_str().expect("path")]),
        "none is beside it: run lm-eval with --log_samples",
    );
}

#[test]
fn lm_eval_lines_without_a_filter_name_are_the_configured_filters_in_order() {
    // lm-eval 0.4.5 wrote one line per filter and doc with no `filter` field: the two filters' lines
    // of one doc were refused as the same (system, task, run) twice.
    let folder = crate::common::fixture("lm_eval_unnamed_filters");
    let path = folder.to_string_lossy().to_string();
    let said = info_words(&path);
    assert!(said.contains("gpt-4o 3 0.000 1"), "{said}");
    assert!(
        said.contains("its lines name no filter (lm-eval wrote one line per filter and doc, filter by filter): a doc's lines are read as the filters strict-match, get-answer of the task's filter_list, in order"),
        "{said}"
    );
    assert!(
        said.contains("filter 'strict-match' read of 2 (strict-match, get-answer)"),
        "{said}"
    );
    // The results file's exact_match,get-answer is 0.333: docs 0, 1, 2 give 1, 0, 0.
    let said = crate::import_formats::info_words(&[&path, "--filter", "get-answer"]);
    assert!(said.contains("gpt-4o 3 0.333 1"), "{said}");
    let rows = imported_rows(
        "lm-eval",
        &folder,
        &temp_dir("lm-eval-filters").join("rows.jsonl"),
    );
    assert_eq!(rows.len(), 3);
    assert!(
        rows.iter().all(|r| r["source"]
            .as_str()
            .is_some_and(|s| s.contains("filter strict-match"))),
        "{rows:?}"
    );
}

#[test]
fn side_files_saved_with_a_byte_order_mark_still_name_the_system() {
    // A BOM in front of a Terminal-Bench run's run_metadata.json (or a SWE-bench submission's
    // metadata.yaml) made it unreadable: the system took the folder's name, with a note blaming a
    // missing agent_name.
    let Some(data) = shared_data() else { return };
    let run = data.join("../formats/terminal_bench/orchestrator_claude-4.1-opus");
    let dir = temp_dir("side-file-bom");
    let copy = dir.join("orchestrator_claude-4.1-opus");
    copy_tree(&run, &copy);
    let metadata = copy.join("run_metadata.json");
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(std::fs::read(&metadata).expect("metadata"));
    std::fs::write(&metadata, bytes).expect("write");
    let words = info_words(&copy.to_string_lossy());
    assert!(words.contains("LeadArchitectAgent 80 0.397"), "{words}");
    assert!(!words.contains("agent_name"), "{words}");
}

/// The README's `pareval import` examples on `shared/formats` print what the README shows: each
/// line under a command is in that command's output (the `wrote` and `note:` lines on stdout, an
/// `error:` on stderr), with the same exit (0, or 2 for an `error:`). The commands run as the
/// README gives them, in a shell (its globs) from the checkout and then from `../shared/formats` after
/// its `cd`, writing into a temporary folder.
#[test]
fn the_readme_s_import_examples_print_what_it_shows() {
    let Some(data) = shared_data() else { return };
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let start = readme.find("$ pareval import tau2 ").expect("the example");
    let block = &readme[start
        ..readme[start..]
            .find("```")
            .map_or(readme.len(), |e| start + e)];
    let dir = temp_dir("readme_import_examples");
    let mut examples: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in block.lines() {
        match line.strip_prefix("$ ") {
            Some(command) => examples.push((command, Vec::new())),
            None => examples.last_mut().expect("a command first").1.push(line),
        }
    }
    assert!(examples.len() >= 7, "{examples:?}");
    let mut at = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for (command, shown) in examples {
        if command == "cd ../shared/formats" {
            // The README's ../shared is the one the tests read.
            at = data.join("../formats");
            continue;
        }
        let command = command.strip_prefix("pareval ").expect("a pareval command");
        // The written file goes to the temporary folder, under the name the README gives.
        let out = command.rsplit(' ').next().expect("--out FILE");
        let command = command.replace(&format!("--out {out}"), "--out \"$OUT\"");
        let command = command.replace(
            "../shared/formats/",
            &format!("{}/", data.join("../formats").display()),
        );
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("\"$PAREVAL\" {command}"))
            .current_dir(&at)
            .env("PAREVAL", env!("CARGO_BIN_EXE_pareval"))
            .env("OUT", dir.join(out))
            .output()
            .expect("sh");
        let refused = shown.iter().any(|line| line.starts_with("error: "));
        let printed = if refused {
            stderr(&output)
        } else {
            stdout(&output)
        }
        .replace(&dir.join(out).display().to_string(), out);
        assert_eq!(
            output.status.code(),
            Some(if refused { 2 } else { 0 }),
            "{command}: {printed}"
        );
        for line in shown.iter().filter(|line| !line.is_empty()) {
            assert!(
                printed.lines().any(|printed| printed == *line),
                "{command}: the README's line\n{line}\nis not in what it printed:\n{printed}"
            );
        }
    }
}

/// A harness's result file compressed with gzip: importers read files as the harness wrote them, and
/// it said "the file is not UTF-8 text" (no hint to decompress it).
#[test]
fn a_gzip_compressed_harness_file_is_refused_saying_to_decompress_it() {
    use std::io::Write;
    let Some(data) = shared_data() else { return };
    let tau2 = data.join("../formats/tau2_bench/airline_gemini2_5_flash_10tasks_2t.json");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder
        .write_all(&std::fs::read(&tau2).expect("tau2"))
        .expect("gzip");
    let dir = temp_dir("harness-gz");
    let packed = dir.join("tau2.json.gz");
    std::fs::write(&packed, encoder.finish().expect("gzip")).expect("write");
    let out = dir.join("out.csv");
    assert_refused(
        &pareval(&[
            "import",
            "tau2",
            &packed.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
        ]),
        "tau2.json.gz: is gzip-compressed: a harness's result file is read as the harness wrote it, so decompress it first (gunzip)",
    );
    // Without the format it is read as a record table, whose missing column was all it said.
    assert_refused(
        &pareval(&["info", &packed.to_string_lossy()]),
        "a harness's result file compressed with gzip is not read through its importer: decompress it (gunzip)",
    );
}

/// A format choice the importer does not read (a --split given to tau2, a mistyped --metric for a
/// format without metrics) changed nothing without a word: import names it; one it reads is not
/// named.
#[test]
fn import_notes_the_format_choices_its_importer_does_not_read() {
    let Some(data) = shared_data() else { return };
    let dir = temp_dir("import-unread-choices");
    let out = dir.join("out.csv").to_string_lossy().into_owned();
    let tau2 = data
        .join("../formats/tau2_bench/airline_gemini2_5_flash_10tasks_2t.json")
        .to_string_lossy()
        .into_owned();
    let output = pareval(&[
        "import", "tau2", &tau2, "--split", "lite", "--metric", "f1", "--out", &out,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = stdout(&output);
    for flag in ["--split", "--metric"] {
        assert!(
            said.contains(&format!(
                "note: {flag} is not read by the tau2 importer: it changed nothing"
            )),
            "{said}"
        );
    }
    // Every command that loads records says so too (the choices are the loader's), and of a record
    // table, which no importer reads.
    let info = pareval(&["info", "--from", "tau2", "--split", "lite", &tau2]);
    assert!(
        stdout(&info).contains("--split is not read by the tau2 importer: it changed nothing"),
        "{}",
        stdout(&info)
    );
    let replay = pareval(&[
        "replay",
        "sample_runs/swe_repair.csv",
        "--metric",
        "f1",
        "--orders",
        "2",
    ]);
    assert!(
        stderr(&replay).contains(
            "--metric is not read: no file here is read through an importer, so it changed nothing"
        ),
        "{}",
        stderr(&replay)
    );
    let inspect = data
        .join("../formats/inspect_eval/bash_2.eval")
        .to_string_lossy()
        .into_owned();
    let output = pareval(&[
        "import",
        "inspect",
        &inspect,
        "--scorer",
        "max_sus_scorer",
        "--score-scale",
        "0:10",
        "--out",
        &out,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        !stdout(&output).contains("is not read by"),
        "{}",
        stdout(&output)
    );
}

/// JSON Lines, JSON and Parquet carry types: the canonical table wrote every column as text there
/// ("run": "2", "outcome": "0"), which pandas or polars read as strings. Numbers are numbers now,
/// a missing one null, and the table reads back with the same figures.
#[test]
fn imported_tables_in_typed_formats_hold_numbers_as_numbers() {
    let dir = temp_dir("import-typed-output");
    let file = dir.join("tau2.json");
    std::fs::write(
        &file,
        r#"{"info": {"agent_info": {"implementation": "a", "llm": "m"}}, "simulations": [{"id": "s", "task_id": "1", "trial": 0, "agent_cost": NaN, "duration": 3.0, "reward_info": {"reward": 1.0}}, {"id": "t", "task_id": "2", "trial": 1, "agent_cost": 0.5, "duration": 2.5, "reward_info": {"reward": 0.25}}]}"#,
    )
    .expect("tau2");
    let out = dir.join("out.jsonl");
    let output = pareval(&[
        "import",
        "tau2",
        &file.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = std::fs::read_to_string(&out).expect("out");
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(rows[0]["run"], Value::from(0));
    assert_eq!(rows[0]["outcome"], Value::from(1.0));
    assert_eq!(rows[0]["cost_usd"], Value::Null);
    assert_eq!(rows[1]["run"], Value::from(1));
    assert_eq!(rows[1]["outcome"], Value::from(0.25));
    assert_eq!(rows[1]["seconds"], Value::from(2.5));
    let info = pareval(&["info", &out.to_string_lossy(), "--format", "json"]);
    let info: Value = serde_json::from_slice(&info.stdout).expect("info");
    assert_eq!(info["systems"][0]["mean_outcome"], Value::from(0.625));
}

/// SWE-bench's leaderboard results.json that disagrees with itself (an instance resolved and never
/// evaluated) was read as resolved without a word; an id twice in 'resolved', or a file without its
/// 'no_logs' list, went by in silence too. Run reports were already held to this.
#[test]
fn a_swebench_results_json_that_disagrees_with_itself_is_refused_and_odd_lists_are_noted() {
    let Some(data) = shared_data() else { return };
    let source = data.join("../formats/swebench_experiments_v2");
    let dir = temp_dir("swebench-v2-lists");
    let edited = |name: &str, edit: &dyn Fn(&mut Value)| {
        let folder = dir.join(name);
        copy_tree(&source, &folder);
        let path = folder.join("results/results.json");
        let mut value: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
        edit(&mut value);
        std::fs::write(&path, value.to_string()).expect("write");
        folder.to_string_lossy().into_owned()
    };
    let out = dir.join("out.csv").to_string_lossy().into_owned();
    let both = edited("both", &|v| {
        let first = v["resolved"][0].clone();
        v["no_logs"].as_array_mut().expect("no_logs").push(first);
    });
    assert_refused(
        &pareval(&["import", "swebench", &both, "--out", &out]),
        "lists 1 resolved instance also under 'no_logs' (the first: 'astropy__astropy-12907'): the file disagrees with itself",
    );
    let twice = edited("twice", &|v| {
        let first = v["resolved"][0].clone();
        v["resolved"].as_array_mut().expect("resolved").push(first);
    });
    let output = pareval(&["import", "swebench", &twice, "--out", &out]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains(
            "1 id is listed twice in 'resolved' (the first: 'astropy__astropy-12907'); each is read once"
        ),
        "{}",
        stdout(&output)
    );
    let without = edited("without", &|v| {
        v.as_object_mut().expect("object").remove("no_logs");
    });
    let output = pareval(&["import", "swebench", &without, "--out", &out]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("no 'no_logs' list (SWE-bench's results.json has one)"),
        "{}",
        stdout(&output)
    );
}

/// NOTES §7's fixture: an instance that ended in an error with no patch (`test_result: {}`) has no
/// report; it was read as not attempted, which left it out of the mean (1.0 where it is 0.5). It is
/// a failure with status error; and `metrics: null` is not "accumulated_cost 0".
#[test]
fn an_openhands_instance_that_errored_without_a_patch_is_a_failure_with_status_error() {
    let dir = temp_dir("openhands-errored");
    let path = dir.join("output.jsonl");
    let graded = r#"{"instance_id": "a__x-1", "test_result": {"git_patch": "diff --git a/f b/f", "report": {"empty_generation": false, "resolved": true, "failed_apply_patch": false, "error_eval": false, "test_timeout": false}}, "metadata": {"agent_class": "CodeActAgent", "llm_config": {"model": "litellm_proxy/model-z"}, "max_iterations": 100}, "history": [], "metrics": {"accumulated_cost": 0.57, "costs": [], "response_latencies": []}, "error": null}"#;
    let timed_out = r#"{"instance_id": "b__y-3", "test_result": {}, "metadata": {"agent_class": "CodeActAgent", "llm_config": {"model": "litellm_proxy/model-z"}, "max_iterations": 100}, "history": [], "metrics": null, "error": "Timeout after 7200 seconds"}"#;
    std::fs::write(&path, format!("{graded}\n{timed_out}\n")).expect("write");
    let rows = imported_rows("openhands", &path, &dir.join("rows.jsonl"));
    let row = rows.iter().find(|r| r["task"] == "b__y-3").expect("row");
    assert_eq!(
        (number(row, "outcome"), row["status"].as_str()),
        (Some(0.0), Some("error"))
    );
    let words = info_words(&path.to_string_lossy());
    assert!(
        words.contains("ended in an error with neither a patch nor a graded report"),
        "{words}"
    );
    assert!(!words.contains("accumulated_cost 0"), "{words}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_openhands_output_caught_mid_line_is_read_up_to_that_line_by_a_live_reader() {
    // OpenHands appends one line per instance; a long one can be caught half written. `decide`
    // (as `watch`) leaves that line for later; `import` of the file, which will not change, leaves
    // it out with a note (the last write of a run stopped mid-line: the whole file was refused).
    let dir = temp_dir("openhands-mid-line");
    let line = |id: &str, model: &str, resolved: bool| {
        format!(
            r#"{{"instance_id": "{id}", "test_result": {{"git_patch": "diff --git a/f b/f", "report": {{"empty_generation": false, "resolved": {resolved}, "failed_apply_patch": false, "error_eval": false, "test_timeout": false}}}}, "metadata": {{"agent_class": "CodeActAgent", "llm_config": {{"model": "litellm_proxy/{model}"}}, "max_iterations": 100}}, "history": [], "metrics": {{"accumulated_cost": 0.5}}, "error": null}}"#
        )
    };
    let mut files = Vec::new();
    for (model, resolved) in [("model-a", true), ("model-b", false)] {
        let folder = dir.join(format!("{model}_maxiter_100_N_v0.15"));
        std::fs::create_dir_all(&folder).expect("folder");
        let cut = line("r__p-3", model, resolved);
        let text = format!(
            "{}\n{}\n{}",
            line("r__p-1", model, resolved),
            line("r__p-2", model, resolved),
            &cut[..cut.len() / 2]
        );
        let path = folder.join("output.jsonl");
        std::fs::write(&path, text).expect("write");
        files.push(path.to_string_lossy().into_owned());
    }
    let plan = dir.join("plan.csv");
    std::fs::write(
        &plan,
        "position,task,order,seed\n1,r__p-1,uniform,0\n2,r__p-2,uniform,0\n3,r__p-3,uniform,0\n",
    )
    .expect("plan");
    let plan = plan.to_string_lossy().into_owned();
    let decide = || {
        pareval(&[
            "decide",
            &files[0],
            &files[1],
            "--plan",
            &plan,
            "--tested",
            "CodeActAgent / litellm_proxy/model-a",
            "--baseline",
            "CodeActAgent / litellm_proxy/model-b",
            "--rule",
            "anytime",
        ])
    };
    let decided = decide();
    let notes = stderr(&decided);
    assert_eq!(decided.status.code(), Some(0), "{notes}");
    assert!(
        notes.contains("output.jsonl: line 3 is not finished yet (no line end, and not JSON yet): left out until the harness ends it"),
        "{notes}"
    );
    let record: Value = serde_json::from_str(stdout(&decided).trim()).expect("record");
    assert_eq!(record["observed"], 2, "{record}");
    let out = dir.join("rows.csv");
    let imported = pareval(&[
        "import",
        "openhands",
        &files[0],
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    assert!(
        stdout(&imported).contains("output.jsonl: line 3, the last, is cut short (no line end, and not JSON): the last write of a run stopped mid-line, left out"),
        "{}",
        stdout(&imported)
    );
    let rows = std::fs::read_to_string(&out).expect("rows");
    assert_eq!(rows.lines().count(), 3, "{rows}");
    // A whole last line without a line end is read, NaN and all (Python's json writes NaN, and
    // lm-eval ends its files without a line end): a strict check left it out for ever.
    for (file, resolved) in files.iter().zip([true, false]) {
        let whole = line(
            "r__p-3",
            if resolved { "model-a" } else { "model-b" },
            resolved,
        )
        .replace(r#""error": null"#, r#""error": null, "extra": NaN"#);
        let text = std::fs::read_to_string(file).expect("read");
        let kept = text.rsplit_once('\n').map(|(lines, _)| lines).unwrap_or("");
        std::fs::write(file, format!("{kept}\n{whole}")).expect("write");
    }
    let decided = decide();
    assert_eq!(decided.status.code(), Some(0), "{}", stderr(&decided));
    assert!(
        !stderr(&decided).contains("not finished yet"),
        "{}",
        stderr(&decided)
    );
    let record: Value = serde_json::from_str(stdout(&decided).trim()).expect("record");
    assert_eq!(record["observed"], 3, "{record}");
}

#[test]
fn an_inspect_log_without_samples_reduced_by_another_reducer_than_the_mean_is_named_and_refused_by_serve()
 {
    // The same log as written with --no-log-samples, its scores reduced by max over the 2 epochs:
    // a live decision would compare that max with a streamed system's mean (the integration
    // rejected a stronger model so).
    let folder = crate::common::fixture("inspect_no_samples");
    let dir = temp_dir("inspect-reduced-max");
    let mut log: Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join("no_samples.json")).expect("log"),
    )
    .expect("json");
    log["reductions"][0]["reducer"] = Value::from("max");
    let path = dir.join("max.json");
    std::fs::write(&path, log.to_string()).expect("write");
    let said = info_words(&path.to_string_lossy());
    assert!(
        said.contains(
            "scorer 'by_epoch' keeps each sample's max over its 2 epochs, not their mean"
        ),
        "{said}"
    );
    let plan = dir.join("plan.csv");
    let tasks: Vec<String> = (1..=8).map(|i| format!("{i},q{i},uniform,0")).collect();
    std::fs::write(
        &plan,
        format!("position,task,order,seed\n{}\n", tasks.join("\n")),
    )
    .expect("plan");
    let rows = dir.join("new.csv");
    std::fs::write(&rows, "system,task,outcome,group\nnew,q1,1,unlogged\n").expect("rows");
    let (rows, path_text, plan) = (
        rows.to_string_lossy().into_owned(),
        path.to_string_lossy().into_owned(),
        plan.to_string_lossy().into_owned(),
    );
    let decide = || {
        pareval(&[
            "decide",
            &rows,
            &path_text,
            "--plan",
            &plan,
            "--tested",
            "new",
            "--baseline",
            "pareval_test/p60",
            "--rule",
            "anytime",
        ])
    };
    let serve = || {
        pareval(&[
            "serve",
            "--plan",
            &plan,
            "--tested",
            "new",
            "--baseline",
            "pareval_test/p60",
            &path_text,
        ])
    };
    let alike = "compare it only with logs kept without samples and reduced alike (a log with its samples is read as their mean, whatever its reducer)";
    // decide reads it with the note: the other system's log may be reduced alike.
    let decided = decide();
    assert_eq!(decided.status.code(), Some(0), "{}", stderr(&decided));
    assert!(
        stderr(&decided).contains(&format!("not their mean, which is what pareval reads for a system whose samples are logged or streamed: {alike}")),
        "{}",
        stderr(&decided)
    );
    // serve compares it with a system whose outcomes stream in as means: refused.
    assert_refused(
        &serve(),
        "a live decision against it would compare a max with the streamed system's mean",
    );
    // Reduced by the mean (the log as written), it is read without a word, by serve too.
    log["reductions"][0]["reducer"] = Value::from("mean");
    std::fs::write(&path, log.to_string()).expect("write");
    let decided = decide();
    assert_eq!(decided.status.code(), Some(0), "{}", stderr(&decided));
    assert!(!stderr(&decided).contains(alike), "{}", stderr(&decided));
    let served = serve();
    assert_eq!(served.status.code(), Some(0), "{}", stderr(&served));
}

/// A Terminal-Bench results.json with its `id` set to `run_id`: another run's file, as each run
/// writes its own (the leaderboard tests build several runs from one real run).
fn other_run_id(results: &Path, run_id: &str) -> String {
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(results).expect("results")).expect("json");
    value["id"] = Value::String(run_id.to_string());
    value.to_string()
}

/// A Terminal-Bench run copied beside its original was numbered as a second run of its system:
/// every trial and error counted twice, "runs 2" for one run. A results.json holding the same bytes
/// (its run id included) as one read before, for the same systems, is refused naming it; the copy
/// read alone is read, and two real runs are runs 0 and 1.
#[test]
fn a_copy_of_a_terminal_bench_run_is_not_read_as_a_second_run() {
    let Some(data) = shared_data() else { return };
    let real = data.join("../formats/terminal_bench/swe-agent-mini_2025-08-15__19-28-24");
    let dir = temp_dir("terminal-bench-copy");
    let (a, b) = (dir.join("runs/a"), dir.join("runs/b"));
    copy_tree(&real, &a);
    copy_tree(&real, &b);
    let import = |paths: &[&Path]| {
        let mut args = vec!["import".to_string(), "terminal-bench".to_string()];
        args.extend(paths.iter().map(|p| p.to_string_lossy().to_string()));
        args.extend([
            "--out".to_string(),
            dir.join("out.csv").to_string_lossy().to_string(),
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        pareval(&args)
    };
    let refused = import(&[&a, &b]);
    assert_refused(&refused, "holds the same bytes as ");
    assert!(
        stderr(&refused)
            .contains("for the same systems, its run id included: a copy of one run would count its every row twice"),
        "{}",
        stderr(&refused)
    );
    // The copy alone is one run (it was refused for the original beside it, unread).
    let alone = import(&[&b]);
    assert_eq!(alone.status.code(), Some(0), "{}", stderr(&alone));
    // Another run of the same system: its own file.
    std::fs::write(
        b.join("results.json"),
        other_run_id(&b.join("results.json"), "2025-08-16__10-00-00"),
    )
    .expect("results");
    let output = import(&[&a, &b]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("2 runs of 'mini-swe-agent / anthropic/claude-sonnet-4-0' (one attempt per task each), numbered 0–1 in path order"),
        "{}",
        stdout(&output)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `import` takes the format as its first word, as `--from FORMAT` (the other commands' spelling),
/// or from the files' keys (as `info` recognises them); a format written as a folder name writes
/// it is read as its name. It needed the first word ("required arguments were not provided"),
/// refused `--from` and `tau_bench`, and a file given twice got hints about folder names.
#[test]
fn import_recognises_the_format_or_takes_it_as_from_and_refuses_a_file_twice() {
    let Some(data) = shared_data() else { return };
    let tau = data.join("../formats/tau_bench/gpt-4o-airline.json");
    let inspect = data.join("../formats/inspect_eval/log_streaming.eval");
    let (tau, inspect) = (tau.to_string_lossy(), inspect.to_string_lossy());
    let dir = temp_dir("import-format");
    let out = |name: &str| dir.join(name).to_string_lossy().to_string();
    let written = |args: &[&str]| {
        let output = pareval(args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        (
            stdout(&output),
            std::fs::read_to_string(args[args.len() - 1]).expect("written"),
        )
    };
    let (_, named) = written(&["import", "tau-bench", &tau, "--out", &out("named.csv")]);
    let (report, alone) = written(&["import", &tau, "--out", &out("alone.csv")]);
    assert_eq!(alone, named);
    assert!(
        report.contains("read as tau-bench (recognised by its keys)"),
        "{report}"
    );
    let (_, from) = written(&[
        "import",
        "--from",
        "tau-bench",
        &tau,
        "--out",
        &out("from.csv"),
    ]);
    assert_eq!(from, named);
    let (_, loose) = written(&["import", "tau_bench", &tau, "--out", &out("loose.csv")]);
    assert_eq!(loose, named);
    assert!(pareval::data::import::ImportFormat::parse("LMMS_EVAL").is_ok());
    for (args, said) in [
        (
            vec!["import", "inpsect", &inspect, "--out", &out("x.csv")],
            "format 'inpsect' is not one of",
        ),
        (
            vec!["import", "missing/results.json", "--out", &out("x.csv")],
            "missing/results.json: no such file or folder",
        ),
        (
            vec!["import", &tau, &inspect, "--out", &out("x.csv")],
            "reads as tau-bench and",
        ),
        (
            vec!["import", "tau-bench", &tau, &tau, "--out", &out("x.csv")],
            "the file is read twice (named twice, or named beside a folder that holds it)",
        ),
        (vec!["info", &tau, &tau], "the file is read twice"),
        (
            vec![
                "import",
                "tau-bench",
                "--from",
                "tau-bench",
                &tau,
                "--out",
                &out("x.csv"),
            ],
            "the format is named twice, as the first word (tau-bench) and by --from tau-bench",
        ),
        (
            vec!["import", "tau-bench", "--out", &out("x.csv")],
            "import needs the result files after the format",
        ),
    ] {
        assert_refused(&pareval(&args), said);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An Inspect `.eval` archive renamed (`log.zip`, no extension) is read when the format is named:
/// it said "the file is not UTF-8 text"; another format named on a zip says it is one.
#[test]
fn a_renamed_inspect_archive_is_read_when_the_format_is_named() {
    let Some(data) = shared_data() else { return };
    let real = data.join("../formats/inspect_eval/log_streaming.eval");
    let dir = temp_dir("inspect-renamed");
    let import = |format: &str, path: &Path, out: &str| {
        pareval(&[
            "import",
            format,
            &path.to_string_lossy(),
            "--out",
            &dir.join(out).to_string_lossy(),
        ])
    };
    let original = import("inspect", &real, "original.csv");
    assert_eq!(original.status.code(), Some(0), "{}", stderr(&original));
    let expected = std::fs::read_to_string(dir.join("original.csv")).expect("csv");
    for name in ["log.zip", "log"] {
        let renamed = dir.join(name);
        std::fs::copy(&real, &renamed).expect("copy");
        let output = import("inspect", &renamed, "renamed.csv");
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        let written = std::fs::read_to_string(dir.join("renamed.csv")).expect("csv");
        // The same rows but for the file named in each row's source.
        let rows = |text: &str| -> Vec<String> {
            text.lines()
                .map(|l| l.split(',').take(5).collect::<Vec<_>>().join(","))
                .collect()
        };
        assert_eq!(rows(&written), rows(&expected), "{name}");
    }
    assert_refused(
        &import("tau2", &dir.join("log.zip"), "x.csv"),
        "the file is a zip archive, not JSON text (an Inspect .eval log is one",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Terminal-Bench trial time that is no timestamp, or that ends before it starts, was dropped
/// without the note the README promises for amounts that are no number ≥ 0.
#[test]
fn a_terminal_bench_trial_time_that_cannot_be_read_is_noted() {
    let Some(data) = shared_data() else { return };
    let real = data.join("../formats/terminal_bench/swe-agent-mini_2025-08-15__19-28-24");
    let dir = temp_dir("tb-times");
    for (key, value, said) in [
        (
            "trial_started_at",
            "yesterday",
            "1 row's seconds is no number ≥ 0 and is read as unknown (the first, ",
        ),
        (
            "trial_ended_at",
            "2020-01-01T00:00:00+00:00",
            "1 row's seconds is no number ≥ 0 and is read as unknown (the first, ",
        ),
    ] {
        let run = dir.join(format!("{key}/2025-08-15__19-28-24"));
        copy_tree(&real, &run);
        let results = run.join("results.json");
        let mut value_json: Value =
            serde_json::from_str(&std::fs::read_to_string(&results).expect("results"))
                .expect("json");
        value_json["results"][0][key] = Value::String(value.to_string());
        std::fs::write(&results, value_json.to_string()).expect("write");
        let output = pareval(&["info", &run.to_string_lossy(), "--format", "json"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let info: Value = serde_json::from_slice(&output.stdout).expect("json");
        let notes = info["notes"].to_string();
        assert!(notes.contains(said), "{key}: {notes}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// lm-eval sample metrics written as text ("1.0") are those numbers, and a doc whose metric is NaN
/// or null is not attempted with a note (NOTES.md §8); both refused the whole file ("not a score
/// (corpus-level metrics …)", "has no value").
#[test]
fn lm_eval_metrics_written_as_text_are_read_and_nan_is_not_attempted() {
    let Some(data) = shared_data() else { return };
    let name = "samples_gsm8k_2025-09-09T13-31-53.431753.jsonl";
    let real = data.join("../formats/lm_eval").join(name);
    let dir = temp_dir("lm-eval-values");
    let lines: Vec<Value> = std::fs::read_to_string(&real)
        .expect("samples")
        .lines()
        .map(|line| serde_json::from_str(line).expect("line"))
        .collect();
    let write = |folder: &str, edit: &dyn Fn(usize, &mut Value)| {
        let path = dir.join(folder).join(name);
        std::fs::create_dir_all(path.parent().expect("folder")).expect("folder");
        let text: Vec<String> = lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let mut line = line.clone();
                edit(i, &mut line);
                line.to_string()
            })
            .collect();
        std::fs::write(&path, text.join("\n") + "\n").expect("write");
        path
    };
    let rows = |path: &Path, out: &str| imported_rows("lm-eval", path, &dir.join(out));
    let original = rows(&real, "original.jsonl");
    let as_text = write("text", &|_, line| {
        let value = line["exact_match"].as_f64().expect("exact_match");
        line["exact_match"] = Value::String(format!("{value:.1}"));
    });
    let outcomes = |rows: &[Value]| -> Vec<Option<f64>> {
        rows.iter().map(|r| number(r, "outcome")).collect()
    };
    assert_eq!(outcomes(&rows(&as_text, "text.jsonl")), outcomes(&original));
    let nan = write("nan", &|i, line| {
        if i == 1 {
            line["exact_match"] = Value::Null;
        }
    });
    let read = rows(&nan, "nan.jsonl");
    assert_eq!(read[1]["status"], "not_attempted", "{:?}", read[1]);
    assert_eq!(outcomes(&read)[0], outcomes(&original)[0]);
    let info = pareval(&["info", &nan.to_string_lossy(), "--from", "lm-eval"]);
    assert!(
        flat(&stdout(&info))
            .contains("1 doc of gsm8k has no value of the metric (NaN or null): not attempted, left out of the mean (the first, line 2)"),
        "{}",
        stdout(&info)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// tau-bench: a fork's file whose every trial is its task_id (one trial per task, "runs 10") and
/// entries with no trial (read as trial 0) are said, not passed over.
#[test]
fn tau_bench_trials_written_as_task_ids_or_missing_are_noted() {
    let Some(data) = shared_data() else { return };
    let formats = data.join("../formats/tau_bench");
    let fork = std::fs::read_dir(&formats)
        .expect("folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("assertions-agent-none"))
        .expect("the fork's file");
    let words = |args: &[&str]| {
        let output = pareval(args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        flat(&stdout(&output))
    };
    let said = words(&["info", &fork.to_string_lossy()]);
    assert!(
        said.contains("every entry's trial equals its task_id and every task has one entry"),
        "{said}"
    );
    let upstream = formats.join("gpt-4o-airline.json");
    assert!(!words(&["info", &upstream.to_string_lossy()]).contains("every entry's trial"));
    let dir = temp_dir("tau-trials");
    let mut entries: Value =
        serde_json::from_str(&std::fs::read_to_string(&upstream).expect("read")).expect("json");
    entries[0]["trial"] = Value::Null;
    let without = dir.join("model-airline.json");
    std::fs::write(&without, entries.to_string()).expect("write");
    let said = words(&["info", &without.to_string_lossy(), "--from", "tau-bench"]);
    assert!(
        said.contains("1 entry has no trial (missing or null): read as trial 0"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two lm-eval samples files of one task in a folder without results files are read as runs of
/// one system named after the folder: no file names their model, and the note now says that was
/// assumed (it said "of the task and model" as fact, for two models' files).
#[test]
fn lm_eval_files_without_a_results_file_say_their_model_was_assumed() {
    let Some(data) = shared_data() else { return };
    let formats = data.join("../formats/lm_eval");
    let dir = temp_dir("lm-eval-no-results").join("two_models");
    std::fs::create_dir_all(&dir).expect("folder");
    for name in [
        "samples_gsm8k_2025-09-09T13-31-53.431753.jsonl",
        "samples_gsm8k_2025-09-09T13-42-42.857006.jsonl",
    ] {
        std::fs::copy(formats.join(name), dir.join(name)).expect("copy");
    }
    let output = pareval(&["info", &dir.to_string_lossy(), "--from", "lm-eval"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = flat(&stdout(&output));
    assert!(
        said.contains("1 earlier samples file of the task (no results file names their model: they are taken for one model's"),
        "{said}"
    );
    // With the results files beside them, each file names its model.
    for name in [
        "results_2025-09-09T13-31-53.431753.json",
        "results_2025-09-09T13-42-42.857006.json",
    ] {
        std::fs::copy(formats.join(name), dir.join(name)).expect("copy");
    }
    let output = pareval(&["info", &dir.to_string_lossy(), "--from", "lm-eval"]);
    assert!(
        !stdout(&output).contains("no results file names"),
        "{}",
        stdout(&output)
    );
    let _ = std::fs::remove_dir_all(dir.parent().expect("temp"));
}

/// A format named on a file of the other JSON kind than its name says (a tau2 run saved as .jsonl,
/// an OpenHands output as .json) is read as the format writes it, noted: both were refused ("tau2
/// results are JSON files, not JSON Lines", "trailing characters at line 2").
#[test]
fn a_named_format_reads_its_json_kind_whatever_the_extension() {
    let Some(data) = shared_data() else { return };
    let formats = data.join("../formats");
    let dir = temp_dir("json-kind");
    for (format, real, renamed, said) in [
        (
            "tau2",
            formats.join("tau2_bench/airline_gemini2_5_flash_10tasks_2t.json"),
            "run.jsonl",
            "read as one JSON document, as tau2 writes its results, though its name ends in .jsonl",
        ),
        (
            "openhands",
            formats.join("openhands/output.jsonl"),
            "output.json",
            "read as JSON Lines, as openhands writes its results, though its name does not end in .jsonl",
        ),
    ] {
        let copy = dir.join(renamed);
        std::fs::copy(&real, &copy).expect("copy");
        let original = imported_rows(format, &real, &dir.join("original.jsonl"));
        let read = imported_rows(format, &copy, &dir.join("renamed.jsonl"));
        let key = |rows: &[Value]| -> Vec<String> {
            rows.iter()
                .map(|r| {
                    format!(
                        "{} {} {} {}",
                        r["task"], r["run"], r["outcome"], r["status"]
                    )
                })
                .collect()
        };
        assert_eq!(key(&read), key(&original), "{format}");
        let output = pareval(&[
            "import",
            format,
            &copy.to_string_lossy(),
            "--out",
            &dir.join("x.csv").to_string_lossy(),
        ]);
        assert!(
            stdout(&output).contains(said),
            "{format}: {}",
            stdout(&output)
        );
    }
    // With no format named, a .jsonl that is one JSON document is recognised by its keys (it said
    // "EOF while parsing a list" of line 1).
    let tau = dir.join("gpt-4o-airline.jsonl");
    std::fs::copy(formats.join("tau_bench/gpt-4o-airline.json"), &tau).expect("copy");
    let output = pareval(&["info", &tau.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = flat(&stdout(&output));
    assert!(
        said.contains("read as tau-bench (recognised by its keys)"),
        "{said}"
    );
    assert!(
        said.contains("read as one JSON document, though its name ends in .jsonl"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
