//! `pareval replay`, `pair` and `decide` end to end: output formats and their contract fields, decision
//! records whose counts reproduce the aggregates, the pair drill-down and the live decision.

use std::collections::HashMap;

use crate::common::{assert_refused, pareval, shared_data, stderr, stdout, temp_dir};

fn sample(name: &str) -> String {
    format!("{}/sample_runs/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn replay_json_keeps_the_contract_fields() {
    let output = pareval(&[
        "replay",
        &sample("swe_repair.csv"),
        "--orders",
        "20",
        "--bootstrap",
        "exact",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let results = json["results"].as_array().expect("results");
    assert_eq!(results.len(), 3);
    for (block, threshold) in results.iter().zip([0.0, 5.0, 10.0]) {
        assert_eq!(block["preset"], "primary");
        assert_eq!(block["threshold_pp"], threshold);
        assert_eq!(block["orders"], 20);
        assert_eq!(block["pairs"], 380);
        assert!(
            block["min_sufficient_budget"].is_number() || block["min_sufficient_budget"].is_null()
        );
        let rows = block["rows"].as_array().expect("rows");
        assert_eq!(rows.len(), 19);
        for row in rows {
            for field in [
                "budget",
                "coverage_failure",
                "unresolved",
                "unresolved_lo",
                "unresolved_hi",
            ] {
                let value = row[field].as_f64().unwrap_or_else(|| panic!("{field}"));
                assert!((0.0..=1.0).contains(&value), "{field} = {value}");
            }
            for field in ["fpr", "frr"] {
                assert!(
                    row[field].is_null()
                        || (0.0..=1.0).contains(&row[field].as_f64().expect("rate"))
                );
            }
            assert!(row["sufficient"].is_boolean());
            let (lo, hi, u) = (
                row["unresolved_lo"].as_f64().unwrap(),
                row["unresolved_hi"].as_f64().unwrap(),
                row["unresolved"].as_f64().unwrap(),
            );
            assert!(lo <= u + 1e-12 && u <= hi + 1e-12, "{lo} {u} {hi}");
        }
    }
}

#[test]
fn replay_text_csv_and_markdown_carry_the_same_numbers() {
    let args = [
        "replay",
        &sample("app_use.csv"),
        "--orders",
        "10",
        "--preset",
        "primary,forced-uniform",
        "--thresholds",
        "5",
    ];
    let text = stdout(&pareval(&[&args[..], &["--format", "text"]].concat()));
    let csv = stdout(&pareval(&[&args[..], &["--format", "csv"]].concat()));
    let markdown = stdout(&pareval(&[&args[..], &["--format", "markdown"]].concat()));
    let json: serde_json::Value =
        serde_json::from_slice(&pareval(&[&args[..], &["--format", "json"]].concat()).stdout)
            .expect("json");
    assert!(
        text.contains("primary: stratified order, coverage gate on, bootstrap (mc:200, a = 0.05)"),
        "{text}"
    );
    assert!(text.contains("forced-uniform: uniform order, coverage gate off, forced"));
    assert_eq!(csv.lines().count(), 1 + 2 * 19);
    // Each CSV line names its policy: the preset's name alone did not tell two runs apart whose
    // --rule or --bootstrap overrode it.
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let cells = |line: &str| line.split(',').map(str::to_string).collect::<Vec<_>>();
    let first = cells(csv.lines().nth(1).expect("a primary line"));
    let last = cells(csv.lines().last().expect("a forced-uniform line"));
    for (name, primary, forced) in [
        ("order", "stratified", "uniform"),
        ("coverage_gate", "true", "false"),
        ("rule", "bootstrap", "forced"),
        ("bootstrap", "mc:200", ""),
        // Forced reads no tail (its records say none, and now its results too: it said 0.05).
        ("tail", "0.05", ""),
        ("seed", "0", "0"),
    ] {
        assert_eq!(first[column(name)], primary, "{name}");
        assert_eq!(last[column(name)], forced, "{name}");
    }
    assert!(markdown.contains("### forced-uniform — 5 pp"));
    for block in json["results"].as_array().expect("results") {
        let line = pareval::report::replay::ReplayReport::summary_line(
            &serde_json::from_value(block.clone()).expect("block"),
        );
        assert!(text.contains(&line), "{line}");
        assert!(markdown.contains(&line), "{line}");
    }
}

#[test]
fn decision_records_reproduce_the_aggregates() {
    let dir = temp_dir("records");
    for ext in ["jsonl", "csv", "parquet"] {
        let records = dir.join(format!("r.{ext}"));
        let output = pareval(&[
            "replay",
            &sample("domains_cost.csv"),
            "--orders",
            "4",
            "--thresholds",
            "0,5",
            "--bootstrap",
            "exact",
            "--records",
            &records.to_string_lossy(),
            "--format",
            "json",
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(records.metadata().expect("records written").len() > 0);
        if ext != "jsonl" {
            continue;
        }
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
        // Count false promotions, abstentions and cases per (threshold, budget) from the records.
        let mut counts: HashMap<(String, String), (u32, u32, u32)> = HashMap::new();
        for line in std::fs::read_to_string(&records).expect("read").lines() {
            let record: serde_json::Value = serde_json::from_str(line).expect("record");
            let key = (
                record["threshold_pp"].to_string(),
                record["budget"].to_string(),
            );
            let entry = counts.entry(key).or_default();
            entry.0 += 1;
            entry.1 += u32::from(record["action"] == "abstain");
            entry.2 += u32::from(record["action"] == "promote" && record["completed"] == "reject");
            assert!(
                record["provenance"]["files"][0]["sha256"]
                    .as_str()
                    .expect("hash")
                    .len()
                    == 64
            );
        }
        for block in json["results"].as_array().expect("results") {
            for row in block["rows"].as_array().expect("rows") {
                let key = (block["threshold_pp"].to_string(), row["budget"].to_string());
                let (cases, abstain, false_promotions) = counts[&key];
                assert_eq!(cases, row["cases"].as_u64().expect("cases") as u32);
                assert_eq!(abstain, row["abstain"].as_u64().expect("abstain") as u32);
                assert_eq!(
                    false_promotions,
                    row["false_promotions"].as_u64().expect("fp") as u32
                );
            }
        }
    }
    let csv = std::fs::read_to_string(dir.join("r.csv")).expect("csv");
    assert!(csv.starts_with("tested,baseline,threshold_pp,rule,tail,bootstrap_mode"));
    assert_eq!(csv.lines().count(), 1 + 90 * 4 * 19 * 2);
}

/// Every field of a JSON decision record has its CSV and Parquet column with the same value: §9a's
/// bet scale and a family's `family`, `adjust`, `family_size` and `family_evidence` were only in the
/// JSON records (and a §9a record's statistic read `anytime` in CSV, `stratified` in JSON).
#[test]
fn replay_results_name_the_coverage_share_and_the_bets_their_construction_reads() {
    // The share and §9a's bet scale were in the policy's words only (two runs that differed in them
    // were labelled "(modified)" alike), and the cap showed under §9a, which does not read it.
    let sample = sample("swe_repair.csv");
    let json = |extra: &[&str]| -> serde_json::Value {
        let args = [
            &[
                "replay",
                &sample,
                "--orders",
                "2",
                "--thresholds",
                "0",
                "--format",
                "json",
            ][..],
            extra,
        ]
        .concat();
        let output = pareval(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        serde_json::from_slice(&output.stdout).expect("json")
    };
    let stratified = json(&[
        "--preset",
        "anytime",
        "--coverage-share",
        "0.5",
        "--bet-min",
        "0.2",
    ]);
    let block = &stratified["results"][0];
    assert_eq!(block["coverage_share"], 0.5, "{block}");
    assert_eq!(block["bet_scale"], serde_json::json!([0.2, 0.9]), "{block}");
    assert!(block["bet_cap"].is_null(), "{block}");
    let uniform = json(&["--preset", "anytime-uniform"]);
    let block = &uniform["results"][0];
    assert_eq!(block["bet_cap"], 0.5, "{block}");
    assert!(block["bet_scale"].is_null(), "{block}");
    assert_eq!(block["coverage_share"], 1.0, "{block}");
    let csv = stdout(&pareval(&[
        "replay",
        &sample,
        "--orders",
        "2",
        "--thresholds",
        "0",
        "--preset",
        "anytime",
        "--coverage-share",
        "0.5",
        "--format",
        "csv",
    ]));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let row: Vec<&str> = lines.next().expect("row").split(',').collect();
    let cell = |name: &str| row[header.iter().position(|h| *h == name).expect(name)];
    assert_eq!(
        (
            cell("coverage_share"),
            cell("bet_cap"),
            cell("bet_scale_min"),
            cell("bet_scale_max")
        ),
        ("0.5", "", "0.1", "0.9")
    );
}

#[test]
fn a_replay_that_fails_leaves_the_records_file_as_it_was() {
    // A --pairs-at off the grid was refused after the whole replay had written its records, and
    // an error found during the replay emptied a file that was there.
    let dir = temp_dir("records-on-failure");
    let records = dir.join("r.jsonl");
    let path = records.to_string_lossy().into_owned();
    let sample = sample("swe_repair.csv");
    let off_grid = pareval(&[
        "replay",
        &sample,
        "--orders",
        "3",
        "--records",
        &path,
        "--pairs-at",
        "0.33",
    ]);
    assert_eq!(off_grid.status.code(), Some(2), "{}", stderr(&off_grid));
    assert!(!records.exists(), "a failed replay left {path}");
    std::fs::write(&records, "precious\n").expect("write");
    let no_pair = pareval(&[
        "replay",
        &sample,
        "--orders",
        "3",
        "--records",
        &path,
        "--min-shared",
        "100000",
    ]);
    assert_eq!(no_pair.status.code(), Some(2), "{}", stderr(&no_pair));
    assert_eq!(
        std::fs::read_to_string(&records).expect("read"),
        "precious\n"
    );
    // A replay that succeeds replaces it, and leaves nothing else in the folder.
    let ok = pareval(&["replay", &sample, "--orders", "3", "--records", &path]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let text = std::fs::read_to_string(&records).expect("read");
    assert!(
        text.starts_with("{\"tested\""),
        "{}",
        &text[..text.len().min(200)]
    );
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["r.jsonl"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn csv_and_parquet_records_carry_every_field_of_the_json_records() {
    use polars::prelude::*;
    let dir = temp_dir("records-fields");
    let write = |ext: &str| {
        let records = dir.join(format!("r.{ext}"));
        let output = pareval(&[
            "replay",
            &sample("domains_cost.csv"),
            "--preset",
            "anytime",
            "--family",
            "tested",
            "--adjust",
            "holm",
            "--orders",
            "2",
            "--thresholds",
            "5",
            "--records",
            &records.to_string_lossy(),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        records
    };
    let json_path = write("jsonl");
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&json_path)
            .expect("read")
            .lines()
            .next()
            .expect("a record"),
    )
    .expect("record");
    let csv = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(write("csv")))
        .expect("reader")
        .finish()
        .expect("csv");
    let parquet = ParquetReader::new(std::fs::File::open(write("parquet")).expect("open"))
        .finish()
        .expect("parquet");
    // Each JSON field, by the column that carries it.
    let mut expected: Vec<(String, serde_json::Value)> = Vec::new();
    for (key, value) in first.as_object().expect("object") {
        match key.as_str() {
            "bet_scale" => {
                expected.push(("bet_scale_min".into(), value[0].clone()));
                expected.push(("bet_scale_max".into(), value[1].clone()));
            }
            "statistic" => {
                expected.push(("statistic".into(), value["kind"].clone()));
                expected.push(("lambda_promote".into(), value["log_promote"].clone()));
                expected.push(("p_reject".into(), value["p_reject"].clone()));
            }
            "provenance" => expected.push(("program".into(), value["program"].clone())),
            "coverage_groups" | "missing_groups" => expected.push((key.clone(), value.clone())),
            _ => expected.push((key.clone(), value.clone())),
        }
    }
    assert!(
        first["bet_scale"].is_array() && first["family_size"].is_u64(),
        "{first}"
    );
    for frame in [&csv, &parquet] {
        for (column, value) in &expected {
            let cell = frame
                .column(column)
                .unwrap_or_else(|_| panic!("no column {column}"))
                .get(0)
                .expect("cell");
            if matches!(column.as_str(), "coverage_groups" | "missing_groups") {
                continue;
            }
            let same = match (value, &cell) {
                (serde_json::Value::Null, AnyValue::Null) => true,
                (serde_json::Value::String(text), cell) => cell.get_str() == Some(text.as_str()),
                (serde_json::Value::Bool(b), AnyValue::Boolean(c)) => b == c,
                (serde_json::Value::Number(n), cell) => cell.extract::<f64>() == n.as_f64(),
                _ => false,
            };
            assert!(same, "{column}: JSON {value}, column {cell:?}");
        }
    }
}

/// `--bootstrap exact` on outcomes off a lattice resamples (SPEC §6: it falls back and says so): the
/// headers said "exact" in text, Markdown and the JSON policy while the records said mc.
#[test]
fn an_exact_bootstrap_that_falls_back_is_named_as_it_ran() {
    let dir = temp_dir("exact-fallback");
    let path = dir.join("thirds.csv");
    let mut rows = String::from("system,task,outcome\n");
    for t in 0..12 {
        rows.push_str(&format!(
            "A,t{t},{}\n",
            if t % 3 == 0 { "0.3333" } else { "1" }
        ));
        rows.push_str(&format!("B,t{t},{}\n", if t % 2 == 0 { "0" } else { "1" }));
    }
    std::fs::write(&path, rows).expect("write");
    let file = path.to_string_lossy();
    let run = |format: &str| {
        let out = pareval(&[
            "replay",
            &file,
            "--bootstrap",
            "exact",
            "--orders",
            "3",
            "--thresholds",
            "0",
            "--grid",
            "0.5",
            "--format",
            format,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let text = run("text");
    assert!(
        text.starts_with(
            "primary: stratified order, coverage gate on, bootstrap (mc:200, a = 0.05)"
        ),
        "{text}"
    );
    assert!(
        crate::common::flat(&text).contains(
            "--bootstrap exact needs outcomes on a lattice; these are off one, so the bootstrap resampled (mc:200)"
        ),
        "{text}"
    );
    let markdown = run("markdown");
    assert!(
        markdown.contains("bootstrap (mc:200, a = 0.05)") && !markdown.contains("(exact,"),
        "{markdown}"
    );
    let json: serde_json::Value = serde_json::from_str(&run("json")).expect("json");
    let block = &json["results"][0];
    assert!(
        block["policy"]
            .as_str()
            .expect("policy")
            .contains("bootstrap (mc:200"),
        "{block}"
    );
    assert_eq!(
        block["bootstrap"],
        "exact unavailable (outcomes off a lattice): mc:200"
    );
}

/// `--looks` under per-look monitoring changed nothing, yet the header said "(modified)" and the
/// JSON `looks: every`: refused, naming the monitoring it needs.
#[test]
fn looks_under_per_look_monitoring_are_refused() {
    let sample = sample("swe_repair.csv");
    assert_refused(
        &pareval(&["replay", &sample, "--looks", "every", "--orders", "2"]),
        "--looks every applies under sequential monitoring (--monitor sequential)",
    );
    let watched = pareval(&[
        "replay",
        &sample,
        "--monitor",
        "sequential",
        "--looks",
        "every",
        "--orders",
        "2",
    ]);
    assert_eq!(watched.status.code(), Some(0), "{}", stderr(&watched));
}

#[test]
fn pair_explains_one_case_in_text_and_json() {
    let tested = "ReAct (cirrus-1)";
    let baseline = "CodeAct (ember-1)";
    let args = [
        "pair",
        &sample("swe_repair.csv"),
        "--tested",
        tested,
        "--baseline",
        baseline,
        "--budget",
        "0.1",
        "--orders",
        "30",
        "--order-index",
        "2",
    ];
    let output = pareval(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(json["tested"], tested);
    assert_eq!(json["order_index"], 2);
    assert_eq!(json["records"].as_array().expect("records").len(), 3);
    let record = &json["records"][0];
    assert_eq!(record["observed"], 15);
    assert_eq!(record["total"], 150);
    assert_eq!(
        record["coverage_groups"].as_array().expect("groups").len(),
        12
    );
    assert_eq!(json["order_steps"].as_array().expect("steps").len(), 19);
    let shares = &json["rates"][0][1];
    let sum = shares["promote"].as_f64().unwrap()
        + shares["reject"].as_f64().unwrap()
        + shares["abstain"].as_f64().unwrap();
    assert!((sum - 1.0).abs() < 1e-12);
    let text = stdout(&pareval(&args));
    assert!(
        text.contains("order 2 of 30, budget 10%: 15 of 150 tasks observed"),
        "{text}"
    );
    assert!(text.contains(&record["reason"].as_str().expect("reason").to_string()));
    // The cross-checks sit beside the rule, on the same 15 observed tasks.
    let check = &json["cross_check"];
    assert_eq!(check["tasks"], 15);
    let cells = ["both", "only_tested", "only_baseline", "neither"]
        .map(|k| check[k].as_u64().expect("count"));
    assert_eq!(cells.iter().sum::<u64>(), 15);
    assert!(
        text.contains("cross-check on the 15 observed tasks"),
        "{text}"
    );
    assert!(text.contains("Newcombe 95% interval for Δ"), "{text}");
    // The policy line names the bootstrap's tails, as replay's header does: the two modes give
    // different tails, and the line read "rule bootstrap (a = 0.05)" for both.
    assert!(text.contains("rule bootstrap (mc:200, a = 0.05)"), "{text}");
    let exact = stdout(&pareval(&[&args[..], &["--bootstrap", "exact"]].concat()));
    assert!(
        exact.contains("rule bootstrap (exact, a = 0.05)"),
        "{exact}"
    );
    // A watched pair says how it is watched in words.
    for (looks, words) in [
        ("every", "(a look after every task)"),
        ("grid", "(a look at every budget)"),
    ] {
        let text = stdout(&pareval(
            &[&args[..], &["--monitor", "sequential", "--looks", looks]].concat(),
        ));
        assert!(
            text.contains(&format!(
                "monitor   sequential {words}, first decision kept"
            )),
            "{text}"
        );
    }

    let unknown = pareval(&[
        "pair",
        &sample("swe_repair.csv"),
        "--tested",
        "ReAct",
        "--baseline",
        baseline,
    ]);
    assert_refused(&unknown, "did you mean 'ReAct (atlas-1)'");
}

#[test]
fn decide_continues_then_decides_and_refuses_unplanned_tasks() {
    let dir = temp_dir("decide");
    let plan = dir.join("plan.csv");
    let mut text = String::from("task,group\n");
    for i in 0..40 {
        text.push_str(&format!(
            "t{i},{}\n",
            if i % 2 == 0 { "web" } else { "cli" }
        ));
    }
    std::fs::write(&plan, text).expect("plan");
    // The plan's first 16 tasks, 8 of each group (a live decision reads the plan's finished prefix).
    let outcomes = dir.join("so_far.csv");
    let mut text = String::from("system,task,outcome\n");
    for i in 0..16 {
        text.push_str(&format!("new,t{i},1\nold,t{i},{}\n", u8::from(i % 4 == 0)));
    }
    std::fs::write(&outcomes, &text).expect("outcomes");
    let run = |budget: &str| {
        let output = pareval(&[
            "decide",
            &outcomes.to_string_lossy(),
            "--plan",
            &plan.to_string_lossy(),
            "--tested",
            "new",
            "--baseline",
            "old",
            "--budget",
            budget,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        serde_json::from_slice::<serde_json::Value>(&output.stdout).expect("json")
    };
    let early = run("0.5");
    assert_eq!(early["action"], "continue");
    assert_eq!(early["observed"], 16);
    assert_eq!(early["total"], 40);
    let at_limit = run("0.4");
    assert_eq!(at_limit["action"], "promote", "{}", at_limit["reason"]);
    // A plan without an `order` column is its rows' own order: not a random sample, and said so.
    assert_eq!(at_limit["order"], "file");
    assert_eq!(
        at_limit["validity"],
        "descriptive (the plan's order is not a random sample)"
    );
    assert_eq!(
        at_limit["provenance"]["files"]
            .as_array()
            .expect("files")
            .len(),
        2
    );

    // The anytime rule has no limit to wait for: it reads the outcomes in plan order and decides once a
    // wealth crosses 1/a (12 wins and 4 ties of 16 against 0 pp); at 50 pp the evidence is not there yet.
    let anytime = pareval(&[
        "decide",
        &outcomes.to_string_lossy(),
        "--plan",
        &plan.to_string_lossy(),
        "--tested",
        "new",
        "--baseline",
        "old",
        "--budget",
        "0.9",
        "--rule",
        "anytime",
        "--thresholds",
        "0,50",
    ]);
    assert_eq!(anytime.status.code(), Some(0), "{}", stderr(&anytime));
    let records: Vec<serde_json::Value> = stdout(&anytime)
        .lines()
        .map(|line| serde_json::from_str(line).expect("json"))
        .collect();
    assert_eq!(records[0]["action"], "promote", "{}", records[0]["reason"]);
    assert_eq!(records[0]["statistic"]["kind"], "anytime");
    assert!(records[0]["statistic"]["p_promote"].as_f64().expect("p") <= 0.05);
    assert_eq!(records[1]["action"], "continue", "{}", records[1]["reason"]);
    assert_eq!(records[1]["monitor"], "sequential");

    // The unplanned task is named with its first row's line.
    let t99_line = text.lines().count() + 1;
    std::fs::write(&outcomes, text + "new,t99,1\nold,t99,0\n").expect("outcomes");
    let output = pareval(&[
        "decide",
        &outcomes.to_string_lossy(),
        "--plan",
        &plan.to_string_lossy(),
        "--tested",
        "new",
        "--baseline",
        "old",
        "--budget",
        "0.4",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "error: {}: tasks with outcomes are not in the plan: 't99' ({} line {}) (outcomes of new, old in {})\n",
            plan.display(),
            outcomes.display(),
            t99_line,
            outcomes.display()
        )
    );
}

#[test]
fn replay_runs_on_real_records_in_every_output_format() {
    let Some(root) = shared_data() else { return };
    let path = root.join("hal_taubench/records.csv");
    for format in ["text", "csv", "json", "markdown"] {
        let output = pareval(&[
            "replay",
            &path.to_string_lossy(),
            "--orders",
            "20",
            "--format",
            format,
        ]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{format}: {}",
            stderr(&output)
        );
        assert!(!output.stdout.is_empty());
    }
    let cost = root.join("swebench_verified_bash_only/records.csv");
    let output = pareval(&[
        "replay",
        &cost.to_string_lossy(),
        "--orders",
        "5",
        "--preset",
        "cost-aware,cost-forced",
        "--budget-by",
        "cost",
        "--thresholds",
        "0",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output)
            .contains("note: cost-aware: the cost order is not a random sample of the tasks")
    );
    assert!(!stdout(&output).contains("note: primary"));
}

#[test]
fn proxy_json_keeps_the_contract_fields_and_sweeps_budgets() {
    let output = pareval(&[
        "proxy",
        &sample("multi_bench.csv"),
        "--method",
        "midrange-k,random,greedy-k",
        "--protocol",
        "loao,loso,temporal",
        "--budget",
        "0.1:0.3:0.1",
        "--seeds",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let results = json["results"].as_array().expect("results");
    assert_eq!(results.len(), 3 * 3 * 3);
    for result in results {
        for field in ["method", "protocol", "budget", "size", "mae_pp"] {
            assert!(!result[field].is_null(), "{field}");
        }
        for field in ["spearman", "kendall", "r2", "pair_accuracy"] {
            assert!(result.get(field).is_some(), "{field}");
        }
        let systems = result["systems"].as_array().expect("systems");
        // Every system is predicted once, except under the temporal protocol: only systems with at least
        // three earlier submissions.
        if result["protocol"] == "temporal" {
            assert!(!systems.is_empty() && systems.len() < 14);
        } else {
            assert_eq!(systems.len(), 14);
        }
        assert!(systems.iter().all(|s| s["system"].is_string()
            && s["predicted"].is_number()
            && s["actual"].is_number()));
    }
    assert_eq!(results[0]["budget"], 0.1);
    assert_eq!(results[0]["size"], 24, "k = ⌈0.1 · 240⌉");
    let random = results
        .iter()
        .find(|r| r["method"] == "random")
        .expect("random");
    assert_eq!(random["seeds"], 3);
    assert!(random["spearman_sd"].is_number());
}

#[test]
fn proxy_text_fits_80_columns() {
    // Eleven columns (97 cells) and a 114-cell legend wrapped every line of an 80-column terminal.
    let output = pareval(&["proxy", &sample("swe_repair.csv")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    for line in text.lines() {
        assert!(pareval::format::cells(line) <= 80, "{line}\n{text}");
    }
    for column in ["ρ", "τ-b", "R²", "MAE pp", "pairs", "ρ mean", "agree 0pp"] {
        assert!(text.contains(column), "{column}: {text}");
    }
}

#[test]
fn proxy_protocols_say_which_column_they_need() {
    let output = pareval(&["proxy", &sample("swe_repair.csv"), "--protocol", "loso"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: protocol 'loso' needs a 'scaffold' for every system\n"
    );
    let output = pareval(&["proxy", &sample("swe_repair.csv"), "--protocol", "temporal"]);
    assert_eq!(
        stderr(&output),
        "error: protocol 'temporal' needs a 'submitted date' for every system\n"
    );
    let output = pareval(&["proxy", &sample("swe_repair.csv"), "--method", "best"]);
    assert!(
        stderr(&output)
            .starts_with("error: --method: method 'best' is not one of random, midrange")
    );
}

#[test]
fn proxy_runs_every_method_under_every_protocol_on_hal_records() {
    let Some(root) = shared_data() else { return };
    let path = root.join("hal/taubench_airline.csv");
    let output = pareval(&[
        "proxy",
        &path.to_string_lossy(),
        "--method",
        "random,midrange,midrange-k,easiest-k,hardest-k,stratified-k,greedy-k",
        "--protocol",
        "loao,within-scaffold,loso,split,temporal",
        "--splits",
        "10",
        "--seeds",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(json["results"].as_array().expect("results").len(), 35);
}

#[test]
fn pace_predicts_one_benchmark_from_the_others() {
    let output = pareval(&[
        "proxy",
        &sample("multi_bench.csv"),
        "--target",
        "bench-2",
        "--pace-size",
        "20,60",
        "--seeds",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let results = json["results"].as_array().expect("results");
    let methods: Vec<&str> = results
        .iter()
        .map(|r| r["method"].as_str().expect("method"))
        .collect();
    assert_eq!(
        methods,
        ["pace", "random-instances", "pace", "random-instances"]
    );
    assert_eq!(results[0]["size"], 20);
    assert_eq!(
        json["tasks"], 180,
        "the source pool is the other three benchmarks"
    );
    for result in results {
        assert_eq!(result["systems"].as_array().expect("systems").len(), 14);
        assert!(result["mae_pp"].is_number() && result["spearman"].is_number());
    }
    let output = pareval(&["proxy", &sample("multi_bench.csv"), "--target", "bench-9"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: --target 'bench-9' is not a benchmark here; benchmarks: bench-1, bench-2, bench-3, bench-4\n"
    );
}

#[test]
fn proxy_says_when_a_subset_tells_no_training_system_apart() {
    // The midrange band is empty in every fold.
    let records = crate::common::one_owner_records(&temp_dir("proxy-constant-subsets"));
    let output = pareval(&[
        "proxy",
        &records.to_string_lossy(),
        "--method",
        "midrange,random",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    // The notes wrap at the terminal's width: read them with the line breaks as spaces.
    let flat = crate::common::flat(&text);
    assert!(
        text.lines()
            .filter(|l| l.starts_with("midrange"))
            .all(|l| !l.contains("-1.000")),
        "no ρ of a constant predictor: {text}"
    );
    assert!(
        flat.contains("note: midrange at 25% (loao): in every fold the subset is empty"),
        "{text}"
    );
    let output = pareval(&[
        "proxy",
        &records.to_string_lossy(),
        "--method",
        "midrange",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let row = &json["results"][0];
    assert_eq!(
        (row["folds"].as_u64(), row["constant_folds"].as_u64()),
        (Some(10), Some(10))
    );
    assert!(row["spearman"].is_null(), "{row}");
    assert_eq!(json["notes"].as_array().map(Vec::len), Some(1));
    // A table pasted elsewhere keeps the note that explains its dashes.
    let markdown = stdout(&pareval(&[
        "proxy",
        &records.to_string_lossy(),
        "--method",
        "midrange",
        "--format",
        "markdown",
    ]));
    assert!(
        markdown.contains("| midrange | loao | 25% | 0 | - | - | - |")
            && markdown
                .contains("\nNote: midrange at 25% (loao): in every fold the subset is empty"),
        "{markdown}"
    );
}

#[test]
fn pace_says_how_many_components_the_training_models_allow() {
    let output = pareval(&[
        "proxy",
        &sample("multi_bench.csv"),
        "--target",
        "bench-2",
        "--pace-size",
        "20",
        "--seeds",
        "1",
        "--pace-components",
        "40",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let flat = crate::common::flat(&text);
    assert!(
        flat.contains(
            "note: --pace-components 40 asks more SVD components than the 13 training models of \
             each fold allow: at most 12 are used"
        ),
        "{text}"
    );
}

/// A Pace C above the source pool was read as the pool without a word, and two such Cs printed the
/// same row twice: one row at the pool's size, with a note naming the Cs.
#[test]
fn pace_sizes_above_the_pool_are_one_row_with_a_note() {
    let output = pareval(&[
        "proxy",
        &sample("multi_bench.csv"),
        "--target",
        "bench-2",
        "--pace-size",
        "20,5000,9000",
        "--seeds",
        "1",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let rows_at_pool = text
        .lines()
        .filter(|line| line.starts_with("pace ") && line.contains(" 180 "))
        .count();
    assert_eq!(rows_at_pool, 2, "one row in each table: {text}");
    assert!(
        crate::common::flat(&text).contains(
            "note: --pace-size 5000,9000 asks more than the 180 source instances every model has: read as 180, the whole pool (one row)"
        ),
        "{text}"
    );
}

/// `proxy --target` (Pace) read none of the within-benchmark flags and the Pace flags do nothing
/// without it: a mix exited 0 without a word. Refused by clap (exit 2), naming both flags.
#[test]
fn proxy_leaves_out_what_no_pair_can_give_and_reports_a_mean_subset_size() {
    // Five systems split 80/20 hold out one a round: there is no pair to agree on, and the agreement
    // read 0.000 (the JSON 0.0) beside dashes nobody explained.
    let dir = temp_dir("proxy-pairless");
    let records = dir.join("five.csv");
    let mut csv = String::from("system,task,outcome\n");
    for s in 0..5 {
        for t in 0..20 {
            csv.push_str(&format!(
                "s{s},t{t:02},{}\n",
                u8::from((t * 7 + s * 3) % 10 < 2 + s)
            ));
        }
    }
    std::fs::write(&records, csv).expect("write");
    let path = records.to_string_lossy();
    let args = [
        "proxy",
        &path,
        "--protocol",
        "split",
        "--method",
        "midrange-k",
    ];
    let output = pareval(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let row = &json["results"][0];
    assert_eq!(row["decision_agreement"], serde_json::json!([]), "{row}");
    let note = "split: each round holds out 1 system, so there is no pair of held-out systems";
    assert!(json["notes"].to_string().contains(note), "{json}");
    let text = stdout(&pareval(&args));
    assert!(!text.contains("0.000"), "{text}");
    assert!(crate::common::flat(&text).contains(note), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
    // A record of several benchmarks is read as one (its full score the mean over all of them):
    // said, with the way to read one.
    let multi = concat!(env!("CARGO_MANIFEST_DIR"), "/sample_runs/multi_bench.csv");
    let pooled = "the record holds 4 benchmarks ('bench-1', 'bench-2', 'bench-3', 'bench-4'), read here as one: each system's full score is its mean over all 240 tasks";
    let text = crate::common::flat(&stdout(&pareval(&["proxy", multi])));
    assert!(text.contains(pooled), "{text}");
    // A CSV table has no place for notes: they go to standard error (they were dropped).
    let csv = pareval(&["proxy", multi, "--format", "csv"]);
    assert!(
        stderr(&csv).contains(&format!("note: {pooled}")),
        "{}",
        stderr(&csv)
    );
    assert!(
        stdout(&csv).starts_with("method,protocol,"),
        "{}",
        stdout(&csv)
    );
    let one = ["proxy", multi, "--keep-groups", "benchmark=bench-1"];
    let text = stdout(&pareval(&one));
    assert!(!text.contains("benchmarks"), "{text}");
    // midrange chooses its own size per fold: the mean over the folds (82.9 tasks of GAIA's 164 read
    // as 82 and a share of 0.5, truncated).
    let Some(data) = crate::common::shared_data() else {
        return;
    };
    let gaia = data.join("hal/gaia.csv");
    let output = pareval(&[
        "proxy",
        &gaia.to_string_lossy(),
        "--method",
        "midrange",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let row = &json["results"][0];
    let tasks = json["tasks"].as_f64().expect("tasks");
    let share = row["task_share"].as_f64().expect("share");
    assert_eq!(row["size"], 83, "{row}");
    assert!((share * tasks - 82.906).abs() < 0.001, "{share} of {tasks}");
}

#[test]
fn proxy_flags_of_the_other_mode_are_refused() {
    let multi = sample("multi_bench.csv");
    for (extra, needle) in [
        (
            vec!["--target", "bench-2", "--method", "random"],
            "'--target <BENCHMARK>' cannot be used with '--method",
        ),
        (
            vec!["--target", "bench-2", "--budget", "0.5"],
            "cannot be used with",
        ),
        (vec!["--pace-size", "20"], "--target <BENCHMARK>"),
        (vec!["--source", "bench-1"], "--target <BENCHMARK>"),
    ] {
        let mut args = vec!["proxy", multi.as_str()];
        args.extend(extra.iter().copied());
        assert_refused(&pareval(&args), needle);
    }
}

#[test]
fn pace_reads_benchmarks_from_separate_files() {
    let Some(root) = shared_data() else { return };
    let normal = root.join("hal/appworld_test_normal.csv");
    let challenge = root.join("hal/appworld_test_challenge.csv");
    let output = pareval(&[
        "proxy",
        &normal.to_string_lossy(),
        &challenge.to_string_lossy(),
        "--benchmark-per-file",
        "--target",
        "appworld_test_challenge",
        "--pace-size",
        "25",
        "--seeds",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(
        json["tasks"], 168,
        "the source pool is the other file's tasks"
    );
    assert_eq!(json["systems"], 14);
}

/// `--degenerate`: the bootstrap with no discordant task abstains by default and, with `literal`,
/// decides as the plain bootstrap does; the setting is in every result block and decision record.
#[test]
fn the_degenerate_setting_is_named_in_results_and_records() {
    let sample = format!("{}/sample_runs/swe_repair.csv", env!("CARGO_MANIFEST_DIR"));
    let dir = temp_dir("degenerate");
    let json = |extra: &[&str]| -> serde_json::Value {
        let records = dir.join(format!("records{}.jsonl", extra.len()));
        let records_path = records.to_string_lossy().to_string();
        let mut args = vec![
            "replay",
            &sample,
            "--orders",
            "6",
            "--thresholds",
            "0",
            "--bootstrap",
            "exact",
            "--format",
            "json",
            "--records",
            &records_path,
        ];
        args.extend_from_slice(extra);
        let output = pareval(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let first = std::fs::read_to_string(&records).expect("records");
        let record: serde_json::Value =
            serde_json::from_str(first.lines().next().expect("a record")).expect("record JSON");
        let mut report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
        report["first_record"] = record;
        report
    };
    let plain = json(&[]);
    let literal = json(&["--degenerate", "literal"]);
    assert_eq!(plain["results"][0]["degenerate"], "abstain");
    assert_eq!(plain["first_record"]["degenerate"], "abstain");
    assert_eq!(literal["results"][0]["degenerate"], "literal");
    assert_eq!(literal["first_record"]["degenerate"], "literal");
    assert_eq!(literal["results"][0]["preset"], "primary (modified)");
    // Small budgets meet all-tie prefixes: literal decides some of them, so it abstains less.
    let abstain = |report: &serde_json::Value| -> u64 {
        report["results"][0]["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .filter_map(|r| r["abstain"].as_u64())
            .sum()
    };
    assert!(
        abstain(&literal) < abstain(&plain),
        "{} vs {}",
        abstain(&literal),
        abstain(&plain)
    );
    let bad = pareval(&["replay", &sample, "--degenerate", "maybe"]);
    assert_refused(
        &bad,
        "--degenerate: degenerate 'maybe' is not one of abstain, literal",
    );
}

#[test]
fn a_budget_by_seconds_says_which_pairs_and_systems_it_left_out() {
    // Terminal-Bench core: three of the 13 systems have no seconds, so 36 directed pairs (those three
    // tested against the twelve others) have no shared task with the tested system's seconds.
    let Some(root) = crate::common::shared_data() else {
        return;
    };
    let path = root.join("terminal_bench_core/records.csv");
    let path = path.to_string_lossy();
    let json = pareval(&[
        "replay",
        &path,
        "--budget-by",
        "seconds",
        "--orders",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(value["results"][0]["pairs"], 120);
    let notes: Vec<&str> = value["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    let note = notes
        .iter()
        .find(|n| n.contains("budget by seconds"))
        .unwrap_or_else(|| panic!("no note on the left-out pairs: {notes:?}"));
    assert!(note.contains("36 directed pairs left out"), "{note}");
    assert!(
        note.contains("no seconds at all: 20250902_orchestrator_claude-4-sonnet"),
        "{note}"
    );
    let text = stdout(&pareval(&[
        "replay",
        &path,
        "--budget-by",
        "seconds",
        "--orders",
        "5",
    ]));
    assert!(
        text.contains("note: primary: budget by seconds: 36 directed pairs left out"),
        "{text}"
    );
    // By pair-seconds (both systems need seconds) the note names that measure (it said "budget by
    // seconds").
    let text = stdout(&pareval(&[
        "replay",
        &path,
        "--budget-by",
        "pair-seconds",
        "--orders",
        "5",
    ]));
    assert!(
        text.contains("note: primary: budget by pair-seconds: 66 directed pairs left out"),
        "{text}"
    );
    // By tasks nothing is left out, and nothing is said.
    let tasks = stdout(&pareval(&["replay", &path, "--orders", "5"]));
    assert!(!tasks.contains("left out"), "{tasks}");
}

/// The forced rule at half and all of the budget, no gate, three orders, 0 pp: what the spent-share
/// tests replay.
const HALF_AND_WHOLE_FORCED: [&str; 10] = [
    "--rule",
    "forced",
    "--coverage",
    "off",
    "--grid",
    "0.5,1",
    "--orders",
    "3",
    "--thresholds",
    "0",
];

#[test]
fn a_pair_cost_budget_spends_both_systems_cost() {
    let dir = crate::common::temp_dir("pair-cost-spent");
    let path = dir.join("records.csv");
    // A's tasks cost 1 each; B's cost nothing but the last, 8: the pair's costs are 1, 1, 1, 9.
    let mut text = String::from("system,task,outcome,cost_usd\n");
    for (i, b_cost) in [0.0, 0.0, 0.0, 8.0].iter().enumerate() {
        text.push_str(&format!("A,t{i},1,1\nB,t{i},{},{b_cost}\n", i % 2));
    }
    std::fs::write(&path, text).expect("write");
    let path = path.to_string_lossy();
    let json = pareval(
        &[
            "replay",
            path.as_ref(),
            "--order",
            "pair-cost",
            "--budget-by",
            "pair-cost",
        ]
        .iter()
        .chain(&HALF_AND_WHOLE_FORCED)
        .chain(&["--format", "json"])
        .copied()
        .collect::<Vec<_>>(),
    );
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    let rows = value["results"][0]["rows"].as_array().expect("rows");
    // Half the pair's 12 is the three tasks of pair cost 1: a quarter of the pair's cost, for both
    // directed pairs (the tested system's own cost would give A 3/4 and B 0, a mean of 3/8).
    let spent = rows[0]["cost_spent"].as_f64().expect("share");
    assert!((spent - 0.25).abs() < 1e-12, "{}", rows[0]);
}

#[test]
fn budget_rows_carry_the_share_of_the_tested_systems_cost_and_seconds_spent() {
    let dir = crate::common::temp_dir("cost-spent");
    let path = dir.join("records.csv");
    // The tested system A's tasks cost 1, 2, 3 and 4 (seconds 10× that); B's cost nothing known.
    let mut text = String::from("system,task,outcome,cost_usd,seconds\n");
    for (i, cost) in [1.0, 2.0, 3.0, 4.0].iter().enumerate() {
        text.push_str(&format!(
            "A,t{i},1,{cost},{}\nB,t{i},{},,\n",
            cost * 10.0,
            i % 2
        ));
    }
    std::fs::write(&path, text).expect("write");
    let path = path.to_string_lossy();
    let args = ["replay", path.as_ref(), "--order", "cost"]
        .iter()
        .chain(&HALF_AND_WHOLE_FORCED)
        .copied()
        .collect::<Vec<_>>();
    let json = pareval(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    // Pair A → B, cheap first: half the tasks are the two cheapest, 3 of A's 10; the pair B → A has
    // no cost for its tested system, so it has no share and the mean is A → B's alone.
    let rows = value["results"][0]["rows"].as_array().expect("rows");
    let spent = |b: usize, key: &str| rows[b][key].as_f64().expect("share");
    assert!((spent(0, "cost_spent") - 0.3).abs() < 1e-12, "{}", rows[0]);
    assert!(
        (spent(0, "seconds_spent") - 0.3).abs() < 1e-12,
        "{}",
        rows[0]
    );
    assert!((spent(1, "cost_spent") - 1.0).abs() < 1e-12, "{}", rows[1]);
    let text = stdout(&pareval(&args));
    assert!(text.contains("cost spent"), "{text}");
    let csv = stdout(&pareval(&[&args[..], &["--format", "csv"]].concat()));
    assert!(
        csv.lines()
            .next()
            .unwrap_or("")
            .contains(",cost_spent,seconds_spent,"),
        "{csv}"
    );
    // Budgets by tasks in a random order: the share is in JSON, not in the text table.
    let uniform = stdout(&pareval(&[
        "replay", &path, "--order", "uniform", "--orders", "3",
    ]));
    assert!(!uniform.contains("cost spent"), "{uniform}");
}

#[test]
fn a_cost_budget_over_a_pair_that_costs_nothing_is_refused_not_read_whole() {
    let dir = temp_dir("zero-cost-budget");
    let path = dir.join("free.csv");
    let mut text = String::from("system,task,outcome,cost_usd\n");
    for t in 0..20 {
        text.push_str(&format!("A,t{t},{},0\nB,t{t},{},0\n", t % 2, (t / 2) % 2));
    }
    std::fs::write(&path, &text).expect("write");
    let path = path.to_string_lossy().into_owned();
    assert_refused(
        &pareval(&["replay", &path, "--budget-by", "cost", "--orders", "2"]),
        "--budget-by cost: the pair 'A' vs 'B' has a total cost of 0 over its 20 shared tasks, so a share of it names no budget (use --budget-by tasks)",
    );
    // The same record by tasks replays.
    let output = pareval(&["replay", &path, "--orders", "2"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn decide_sets_aside_a_last_line_the_harness_has_not_finished_and_info_refuses_it() {
    let dir = temp_dir("decide-unfinished");
    let plan = dir.join("plan.csv");
    let mut text = String::from("task,group\n");
    for i in 0..20 {
        text.push_str(&format!("t{i},g{}\n", i % 2));
    }
    std::fs::write(&plan, text).expect("plan");
    let outcomes = dir.join("so_far.csv");
    let mut text = String::from("system,task,outcome\n");
    for i in 0..10 {
        text.push_str(&format!("new,t{i},1\nold,t{i},0\n"));
    }
    let whole = text.clone();
    // The harness is writing line 22 as pareval reads the file: cut inside a field, or right after
    // a separator (every field there, the last still empty).
    let cut_after_comma = dir.join("cut_after_comma.csv");
    std::fs::write(&cut_after_comma, format!("{text}new,t1,")).expect("outcomes");
    text.push_str("new,t1");
    std::fs::write(&outcomes, &text).expect("outcomes");
    let outcomes = outcomes.to_string_lossy().into_owned();
    let decide = |file: &str| {
        pareval(&[
            "decide",
            file,
            "--plan",
            &plan.to_string_lossy(),
            "--tested",
            "new",
            "--baseline",
            "old",
            "--budget",
            "0.5",
            "--format",
            "json",
        ])
    };
    let output = decide(&outcomes);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("line 22 is not finished yet (no line end, and short of a record)"),
        "{}",
        stderr(&output)
    );
    // The same decision as on the file without the unfinished line.
    let finished = dir.join("finished.csv");
    std::fs::write(&finished, &whole).expect("finished");
    let decisions = |output: &std::process::Output| -> Vec<(String, String)> {
        stdout(output)
            .lines()
            .map(|line| {
                let record: serde_json::Value = serde_json::from_str(line).expect("a record");
                (record["action"].to_string(), record["observed"].to_string())
            })
            .collect()
    };
    let expected = decisions(&decide(&finished.to_string_lossy()));
    assert!(!expected.is_empty());
    assert_eq!(decisions(&output), expected);
    let output = decide(&cut_after_comma.to_string_lossy());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("line 22 is not finished yet"));
    assert_eq!(decisions(&output), expected);
    // A record file read whole (info, replay) is never cut short: the line is refused.
    assert_refused(
        &pareval(&["info", &outcomes]),
        "line 22 has 2 fields but the header has 3",
    );
}

/// `--keep-groups` restricts the record to some groups, as the explorer's group filter does: a
/// comma list or one flag per label, several columns all holding, and every mistake named.
#[test]
fn keep_groups_restricts_the_record_to_the_groups_named() {
    let info = |extra: &[&str]| {
        let file = sample("multi_bench.csv");
        let mut args = vec!["info", &file, "--format", "json"];
        args.extend_from_slice(extra);
        let output = pareval(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
        json["n_tasks"].as_u64().expect("tasks")
    };
    assert_eq!(info(&[]), 240);
    assert_eq!(info(&["--keep-groups", "benchmark=bench-1,bench-2"]), 120);
    // The groups left with no task are gone from the record, not counted with 0 tasks.
    let file = sample("multi_bench.csv");
    let kept = pareval(&[
        "info",
        &file,
        "--format",
        "json",
        "--keep-groups",
        "benchmark=bench-1,bench-2",
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&kept)).expect("json");
    assert_eq!(json["group_columns"]["benchmark"], 2, "{json}");
    let text = stdout(&pareval(&[
        "info",
        &file,
        "--keep-groups",
        "benchmark=bench-1,bench-2",
    ]));
    assert!(
        text.contains("benchmark (2 groups)") && !text.contains("bench-3"),
        "{text}"
    );
    assert_eq!(
        info(&[
            "--keep-groups",
            "benchmark=bench-1",
            "--keep-groups",
            "benchmark=bench-2"
        ]),
        120
    );
    // Two columns: a task must be in both.
    let both = info(&[
        "--keep-groups",
        "benchmark=bench-1",
        "--keep-groups",
        "group=split-1",
    ]);
    assert!(both > 0 && both < 60, "{both}");
    let file = sample("multi_bench.csv");
    assert_refused(
        &pareval(&["info", &file, "--keep-groups", "suite=x"]),
        "'suite' is not a group column of the record (its group columns: group, benchmark)",
    );
    assert_refused(
        &pareval(&["info", &file, "--keep-groups", "benchmark=bench-9"]),
        "column 'benchmark' has no group 'bench-9' (its groups: bench-1, bench-2, bench-3, bench-4)",
    );
    assert_refused(
        &pareval(&["info", &file, "--keep-groups", "bench-1"]),
        "'bench-1' is not COLUMN=LABEL",
    );
}

/// `replay`, `pair` and `proxy` say on stderr what the loader noted (here the tasks
/// `--keep-groups` kept), as `decide` does; their stdout stays the report.
#[test]
fn the_reports_say_what_the_loader_noted_on_stderr() {
    let file = sample("multi_bench.csv");
    let keep = ["--keep-groups", "benchmark=bench-1"];
    let commands: [Vec<&str>; 3] = [
        vec!["replay", &file, "--orders", "2", "--format", "json"],
        vec![
            "pair",
            &file,
            "--tested",
            "ReAct (delta-1)",
            "--baseline",
            "ReAct (cirrus-1)",
            "--orders",
            "2",
            "--format",
            "json",
        ],
        vec!["proxy", &file, "--seeds", "2", "--format", "json"],
    ];
    for mut args in commands {
        args.extend_from_slice(&keep);
        let output = pareval(&args);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        assert!(
            stderr(&output)
                .contains("note: kept the 60 of 240 tasks in benchmark=bench-1 (--keep-groups)"),
            "{args:?}: {}",
            stderr(&output)
        );
        let _: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("stdout is JSON");
    }
}

/// With outcomes between 0 and 1 (runs averaged) the group table's columns count who scored more,
/// and say so: "only A" would claim the baseline failed a task it half solved.
#[test]
fn pair_s_group_table_says_who_is_ahead_when_runs_are_averaged() {
    let dir = crate::common::temp_dir("pair-averaged");
    let path = crate::common::records_with_averaged_runs(&dir);
    let file = path.to_string_lossy().to_string();
    let pair = |tested: &str, baseline: &str| {
        let output = pareval(&[
            "pair",
            &file,
            "--tested",
            tested,
            "--baseline",
            baseline,
            "--budget",
            "0.5",
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    };
    let text = pair("a", "b");
    assert!(
        text.contains("2 of them have an outcome between 0 and 1")
            && text.contains("tie ≥ ½  A ahead  B ahead  tie < ½"),
        "{text}"
    );
    assert!(!text.contains("only A"), "{text}");
    // a: 1 on even tasks; b: 1 on multiples of 4, 0.5 on t1 and t2. A ahead on t2, t6, t10, t14,
    // t18 (1 against 0.5 or 0); B ahead on t1 (0 against 0.5); ties at 1 on t0, t4, …, t16.
    assert!(
        text.contains("all tasks     20        5        5        1        9"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A rule flag that no replayed policy reads (`--bootstrap` under the anytime rule, `--bet-cap`
/// under §9a, `--coverage-share` with the gate off) changed nothing without a word: a user who wrote
/// it expected it to. Noted on stderr, naming the flag and the policy's setting; the output stays
/// the bytes of the same replay without the flag, and a flag left at its default is not named.
#[test]
fn rule_flags_no_policy_reads_are_noted() {
    let sample = sample("swe_repair.csv");
    let base = [
        "replay", &sample, "--orders", "5", "--preset", "anytime", "--format", "csv",
    ];
    let plain = pareval(&base);
    assert!(plain.status.success(), "{}", stderr(&plain));
    assert!(
        !stderr(&plain).contains("is not used"),
        "{}",
        stderr(&plain)
    );
    let mut with_flags = base.to_vec();
    with_flags.extend([
        "--bootstrap",
        "mc:50",
        "--bet-cap",
        "0.3",
        "--degenerate",
        "literal",
    ]);
    let noted = pareval(&with_flags);
    assert!(noted.status.success(), "{}", stderr(&noted));
    // Byte for byte, the label too (it said "anytime (modified)").
    assert!(
        stdout(&noted) == stdout(&plain),
        "the flags changed the output"
    );
    let notes = stderr(&noted);
    for flag in ["--bootstrap", "--bet-cap", "--degenerate"] {
        assert!(
            notes.contains(&format!("note: {flag} is not used: it sets"))
                && notes.contains("here the rule is anytime §9a (stratified order)"),
            "{flag}: {notes}"
        );
    }
    // --bet-min is §9a's own: read, so not named.
    let mut read = base.to_vec();
    read.extend(["--bet-min", "0.2"]);
    let read = pareval(&read);
    assert!(read.status.success(), "{}", stderr(&read));
    assert!(!stderr(&read).contains("is not used"), "{}", stderr(&read));
    // With several presets a flag is named only when none reads it.
    let several = pareval(&[
        "replay",
        &sample,
        "--orders",
        "5",
        "--preset",
        "primary,anytime-uniform",
        "--bet-cap",
        "0.3",
        "--bet-min",
        "0.2",
        "--coverage",
        "off",
        "--coverage-share",
        "0.5",
    ]);
    assert!(several.status.success(), "{}", stderr(&several));
    let notes = stderr(&several);
    assert!(!notes.contains("--bet-cap is not used"), "{notes}");
    assert!(
        notes.contains(
            "note: --bet-min is not used: it sets the §9a anytime rule's bet scale (stratified orders), and no policy here reads it (primary (modified): the rule is bootstrap; anytime-uniform (modified): the rule is anytime §9 (uniform order))"
        ),
        "{notes}"
    );
    // The share is read with the gate off too: the coverage-failure rate counts by its quotas.
    assert!(!notes.contains("--coverage-share"), "{notes}");
    // Forced reads no tail; the flag written at its default value is still named (it was written).
    let forced = pareval(&[
        "replay", &sample, "--orders", "2", "--rule", "forced", "--tail", "0.05",
    ]);
    assert!(
        stderr(&forced).contains("note: --tail is not used: it sets the tail cutoff a of every rule but forced, and here the rule is forced"),
        "{}",
        stderr(&forced)
    );
}

/// A negative threshold is a non-inferiority margin (SPEC §2: any value allowed; it was refused as
/// outside [0, 100)): at −5 pp a system at most 5 pp worse is promoted. The completed decisions
/// follow Δ_full > δ, mirror the reverse pair's at +5 pp, and adding the margin changes no row of
/// the other thresholds, under the bootstrap and §9a alike.
#[test]
fn a_negative_threshold_is_a_non_inferiority_margin() {
    let sample = sample("swe_repair.csv");
    for preset in ["primary", "anytime"] {
        let json = |thresholds: &str| -> serde_json::Value {
            let output = pareval(&[
                "replay",
                &sample,
                "--preset",
                preset,
                "--orders",
                "6",
                "--thresholds",
                thresholds,
                "--pairs-at",
                "0.5",
                "--format",
                "json",
            ]);
            assert!(output.status.success(), "{}", stderr(&output));
            serde_json::from_slice(&output.stdout).expect("json")
        };
        let with_margin = json("-5,0,5");
        let without = json("0,5");
        let pairs = with_margin["pairs_at"][0]["pairs"]
            .as_array()
            .expect("pairs");
        let completed: HashMap<(String, String, i64), (f64, String)> = pairs
            .iter()
            .map(|p| {
                (
                    (
                        p["tested"].as_str().expect("tested").to_string(),
                        p["baseline"].as_str().expect("baseline").to_string(),
                        p["threshold_pp"].as_f64().expect("pp") as i64,
                    ),
                    (
                        p["delta_full"].as_f64().expect("delta"),
                        p["completed"].as_str().expect("completed").to_string(),
                    ),
                )
            })
            .collect();
        let mut margins = 0;
        for ((tested, baseline, pp), (delta, decision)) in &completed {
            if *pp != -5 {
                continue;
            }
            margins += 1;
            let promotes = *delta > -0.05 + 1e-9;
            assert_eq!(decision, if promotes { "promote" } else { "reject" });
            let (_, reverse) = &completed[&(baseline.clone(), tested.clone(), 5)];
            if (delta + 0.05).abs() > 1e-9 {
                assert_eq!(promotes, reverse == "reject", "{tested} vs {baseline}");
            }
        }
        assert_eq!(margins, 380);
        // Some pair is promoted at −5 pp and rejected at 0 pp: the margin changes decisions.
        assert!(completed.iter().any(|((t, b, pp), (_, d))| *pp == -5
            && d == "promote"
            && completed[&(t.clone(), b.clone(), 0)].1 == "reject"));
        let rows = |v: &serde_json::Value| -> Vec<serde_json::Value> {
            v["results"]
                .as_array()
                .expect("results")
                .iter()
                .filter(|r| r["threshold_pp"].as_f64() != Some(-5.0))
                .map(|r| r["rows"].clone())
                .collect()
        };
        assert_eq!(rows(&with_margin), rows(&without), "{preset}");
    }
    // Out of range either way: a difference of scores lies in [−1, 1].
    assert_refused(
        &pareval(&["replay", &sample, "--thresholds", "-100,0"]),
        "threshold '-100' must be in (-100, 100) percentage points",
    );
    // A value may start with a minus, but the next flag is no list ('--orders' was taken for one,
    // and '10' then for a file).
    assert_refused(
        &pareval(&["replay", &sample, "--thresholds", "--orders", "10"]),
        "'--orders' is a flag, not a list of thresholds",
    );
}

/// A scaffold protocol holds a system out only where at least two systems remain to train on, so
/// within a scaffold a system without two scaffold mates was never predicted, and the figures were
/// over fewer systems than the record has, unsaid: a note names them. And a method given twice
/// printed its rows twice (now refused), and a budget of 1.5 was told "[0, 1]" where 0 was "(0, 1]".
#[test]
fn proxy_names_systems_its_protocol_never_predicts() {
    let dir = temp_dir("proxy-unpredicted");
    let path = dir.join("records.csv");
    let mut text = String::from("system,task,outcome,scaffold\n");
    for (s, (system, scaffold)) in [("a", "X"), ("b", "X"), ("c", "X"), ("d", "Y"), ("e", "Z")]
        .iter()
        .enumerate()
    {
        for t in 0..12 {
            text.push_str(&format!(
                "{system},t{t},{},{scaffold}\n",
                (t * (s + 2) / 5) % 2
            ));
        }
    }
    std::fs::write(&path, text).expect("write");
    let path = path.display().to_string();
    let output = pareval(&[
        "proxy",
        &path,
        "--protocol",
        "within-scaffold,loso",
        "--method",
        "random",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let flat = crate::common::flat(&stdout(&output));
    assert!(
        flat.contains("note: within-scaffold: 2 of 5 systems are not predicted, no fold having at least 2 systems to train on without them ('d', 'e'); its figures are over the other 3 systems"),
        "{flat}"
    );
    // Leaving a scaffold out keeps at least two systems to train on here: every one is predicted.
    assert!(!flat.contains("note: loso:"), "{flat}");
    assert_refused(
        &pareval(&["proxy", &path, "--method", "random,midrange,random"]),
        "--method: 'random' is listed twice",
    );
    for budget in ["1.5", "0"] {
        assert_refused(
            &pareval(&["proxy", &path, "--budget", budget]),
            &format!("budget '{budget}' must be in (0, 1]"),
        );
    }
}

/// One system with an outcome on one task of fifty left the proxy one task: its subset was the
/// whole (one-task) benchmark and printed ρ 1.000 with only "49 tasks left out" to go by. The notes
/// now name the system with the fewest tasks and say that such a subset is the benchmark itself.
#[test]
fn proxy_names_the_system_that_leaves_tasks_out() {
    let dir = temp_dir("proxy-sparse-system");
    let path = dir.join("records.csv");
    let mut text = String::from("system,task,outcome\n");
    for s in 0..4 {
        for t in 0..20 {
            text.push_str(&format!("s{s},t{t},{}\n", (t * (s + 1) / 3) % 2));
        }
    }
    text.push_str("sparse,t0,1\n");
    std::fs::write(&path, text).expect("write");
    let output = pareval(&["proxy", &path.display().to_string(), "--method", "random"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let flat = crate::common::flat(&stdout(&output));
    assert!(
        flat.contains("5 systems · 1 task with an outcome"),
        "{flat}"
    );
    assert!(
        flat.contains("note: 19 of 20 tasks are left out, as some system has no outcome on them; the fewest: 'sparse' with 1 task (--min-system-coverage F leaves out systems with less than that share of the tasks)"),
        "{flat}"
    );
    assert!(
        flat.contains("note: at 25% the subset holds all 1 tasks every system has: it is the benchmark itself, so its figures say nothing of a proxy"),
        "{flat}"
    );
    // Over a sweep every budget from the first is the benchmark too.
    let swept = pareval(&[
        "proxy",
        &path.display().to_string(),
        "--method",
        "random",
        "--budget",
        "0.05:0.95:0.05",
    ]);
    assert!(
        crate::common::flat(&stdout(&swept)).contains("note: from 5% the subset holds all 1 tasks"),
        "{}",
        stdout(&swept)
    );
    // A size given as a count is named as one ("at the subset holds" had lost its budget).
    let sized = pareval(&[
        "proxy",
        &path.display().to_string(),
        "--method",
        "random",
        "--size",
        "1",
    ]);
    assert!(
        crate::common::flat(&stdout(&sized))
            .contains("note: at --size 1 the subset holds all 1 tasks"),
        "{}",
        stdout(&sized)
    );
}
