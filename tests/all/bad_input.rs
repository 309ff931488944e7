//! Every malformed file in tests/fixtures/bad is refused with its exact message (file, column, quoted
//! values, line numbers), by the library and by the binary with exit code 2 and no panic.

use pareval::data::{LoadOptions, load};

use crate::common::{fixture, pareval, stderr};

/// (file under tests/fixtures/bad, the message after "<file>: ").
const CASES: &[(&str, &str)] = &[
    (
        "lfs_pointer.csv",
        "line 1: a Git LFS pointer, not the file itself (2933 bytes, oid sha256:00255b17c43b2d5f4a1cbd1d2cbc4bf5f8d3b5c6c9f2a4b2d0a3e5c4f6b7a8c9): the repository keeps it in Git LFS; fetch it with `git lfs pull` and read it again",
    ),
    (
        "lfs_pointer.json",
        "line 1: a Git LFS pointer, not the file itself (4 bytes, oid sha256:5717e7c840171019a4eeab5b79a7f894a4986eaff93d04ec5b12c9a189f594bf): the repository keeps it in Git LFS; fetch it with `git lfs pull` and read it again",
    ),
    (
        "missing_outcome_column.csv",
        "missing required column 'outcome' (columns found: 'system', 'task', 'group')",
    ),
    (
        "trajectory_steps.csv",
        "missing required column 'outcome' (columns found: 'system', 'task', 'run', 'step', 'role', 'action'); it looks like a step-level trajectories table: give it as --steps with its outcomes table as --outcomes (explore, early)",
    ),
    (
        "outcome_not_number.csv",
        "column 'outcome' must hold a number in [0, 1] (or true/false): outcome 'abc' on line 3",
    ),
    (
        "outcome_nan.csv",
        "column 'outcome' must hold a number in [0, 1] (or true/false): outcome 'NaN' on line 3",
    ),
    (
        "outcome_out_of_range.csv",
        "column 'outcome' must hold a number in [0, 1] (or true/false): outcome '1.7' on line 2, outcome '-0.2' on line 4",
    ),
    (
        "outcome_empty.csv",
        "column 'outcome' is empty (allowed only with status not_attempted) on line 3",
    ),
    (
        "outcome_range.json",
        "column 'outcome' must hold a number in [0, 1] (or true/false): outcome '2' on record 2",
    ),
    (
        "integer_wider_than_64_bits.json",
        "line 3: the integer 123456789012345678901234567890 is outside the signed 64-bit range, which the JSON reader cannot hold (write it as a string or a float)",
    ),
    (
        // It fits u64, and polars' JSON reader panicked on it (it inferred Int128).
        "integer_past_i64.jsonl",
        "line 2: the integer 9223372036854775808 is outside the signed 64-bit range, which the JSON reader cannot hold (write it as a string or a float)",
    ),
    (
        // The reader kept the first value (outcome 1) without a word.
        "repeated_json_key.jsonl",
        "line 2: the key \"outcome\" appears twice in one record; which of its values is meant cannot be told (keep one)",
    ),
    (
        "repeated_json_key.json",
        "line 3: the key \"task\" appears twice in one object; which of its values is meant cannot be told (keep one)",
    ),
    (
        // polars said only "failed to determine supertype of struct[3] and struct[3]".
        "list_deep_in_file.jsonl",
        "cannot parse the file as JSON: line 201: field 'outcome' holds a list ([1]) where line 1 holds a plain value (0); a column holds one kind of value",
    ),
    (
        // A damaged footer gave the table 63 rows over columns of 4: the loader read past their end
        // and panicked.
        "damaged_footer_rows.parquet",
        "the Parquet file is damaged: column 'system' holds 4 values where the file says it has 63 rows",
    ),
    (
        // polars' reader panicked on the damaged metadata ("thrift bool field").
        "damaged_thrift.parquet",
        "the Parquet file is damaged: its reader could not make sense of it (thrift bool field)",
    ),
    (
        // lighteval's details, read by polars, which panicked on a damaged page.
        "details_damaged_range.parquet",
        "the lighteval details file is damaged: its reader could not make sense of it (range end index 18446744073709550514 out of range for slice of length 16076)",
    ),
    (
        // polars' JSON reader panicked ("activate 'decompress' feature").
        "gzip_under_a_json_name.json",
        "is gzip-compressed, but its name does not end in .gz: a harness's result file must be decompressed (gunzip), since importers read a file as the harness wrote it; a record table is read compressed when named so (records.csv.gz)",
    ),
    (
        // polars' reader overflowed its stack at 100,000 levels and took minutes at 1,000.
        "nested_too_deep.jsonl",
        "line 2: lists and objects nested more than 128 deep, which records never need and the JSON reader cannot take",
    ),
    (
        // "number out of range at line 2 column 34", without the number.
        "number_past_f64.jsonl",
        "line 2: the number 1e400 is past the largest 64-bit float (about 1.8e308)",
    ),
    (
        // Read as a system named "[]", compared with every other system.
        "system_is_a_list.jsonl",
        "line 3: field 'system' holds a list ([]); pareval reads `system` as a plain value (the JSON reader would have turned it into its text)",
    ),
    (
        // Read as $1 without a word.
        "cost_is_a_boolean.jsonl",
        "line 2: field 'cost_usd' holds a boolean (true); pareval reads `cost_usd` as a number (the JSON reader would have turned it into 1 or 0)",
    ),
    (
        // polars was built without decimals, and panicked reading one.
        "decimal_outcome.parquet",
        "column 'outcome' is a decimal (Decimal(5, 2)), which pareval's Parquet reader does not take: write it as a double or a 32- or 64-bit integer",
    ),
    (
        "outcome_word.jsonl",
        "column 'outcome' must hold a number in [0, 1] (or true/false): outcome 'yes' on line 2",
    ),
    (
        "multiline_then_bad.csv",
        "column 'outcome' must hold a number in [0, 1] (or true/false): outcome '2' on line 5",
    ),
    (
        "negative_cost.csv",
        "column 'cost_usd' must hold a number ≥ 0 or be empty: cost_usd '-0.5' on line 3",
    ),
    (
        "cost_not_number.csv",
        "column 'cost_usd' must hold a number ≥ 0 or be empty: cost_usd '12 USD' on line 2",
    ),
    (
        "negative_seconds.csv",
        "column 'seconds' must hold a number ≥ 0 or be empty: seconds '-3' on line 3",
    ),
    (
        "bad_run.csv",
        "column 'run' must hold a whole number ≥ 0, a run id, or be empty: run '1.5' on line 2, run '-1' on line 3",
    ),
    (
        "bad_status.csv",
        "column 'status' must be ok, error or not_attempted (any case): status 'failed' on line 3",
    ),
    (
        "bad_date.csv",
        "column 'submitted' must hold a date YYYY-MM-DD or be empty: submitted '2025-13-01' on line 2",
    ),
    ("empty_system.csv", "column 'system' is empty on line 3"),
    // A name that prints as another made a second task (or system) no table could tell apart.
    (
        "invisible_task.csv",
        "column 'task' holds a control character or a mark of no width (a NUL, a byte order mark where two files were joined), so the name would print as another: 't\\0x' on line 3",
    ),
    (
        "invisible_task.jsonl",
        "column 'task' holds a control character or a mark of no width (a NUL, a byte order mark where two files were joined), so the name would print as another: 't\\0x' on line 2",
    ),
    (
        "joined_bom.csv",
        "column 'system' holds a control character or a mark of no width (a NUL, a byte order mark where two files were joined), so the name would print as another: '\\u{feff}B' on line 3",
    ),
    (
        "duplicate_keys.csv",
        "duplicate (system, task, run) keys: ('A', 't1', run 0) on line 2 and line 4",
    ),
    (
        "duplicate_run_ids.csv",
        "duplicate (system, task, run) keys: ('A', 't1', run 'x') on line 2 and line 3",
    ),
    (
        "conflicting_groups.csv",
        "task 't1' has group 'repo-a' on line 2 but 'repo-c' on line 4; a task's group must be the same on every row",
    ),
    (
        "scaffold_conflict.csv",
        "a system's scaffold must be the same on every row (to keep each scaffold as its own system use --system-key system,scaffold; to leave the column out, --ignore-col scaffold): system 'A' has scaffold 'ReAct' on line 2 but 'PlanExec' on line 3",
    ),
    ("empty.csv", "the file is empty"),
    (
        "header_only.csv",
        "the file has no records (only a header or an empty list)",
    ),
    (
        "semicolon.csv",
        "missing required column 'system' (columns found: 'system;task;outcome'); the header looks ';'-separated, \
         but .csv files are read as comma-separated and .tsv files as tab-separated",
    ),
    (
        "utf16.csv",
        "the file is UTF-16 encoded; pareval reads UTF-8 (save the file as UTF-8)",
    ),
    (
        "ragged.csv",
        "cannot parse the file: line 3 has 4 fields but the header has 3",
    ),
    (
        "short_row.csv",
        "cannot parse the file: line 3 has 2 fields but the header has 4",
    ),
    (
        "repeated_column.csv",
        "the header (line 1) names the column 'outcome' more than once",
    ),
    (
        "quote_inside_field.csv",
        "cannot parse the file: line 3: a quote inside an unquoted field (quote the whole field and write the quote twice: \"a\"\"b\")",
    ),
    (
        "text_after_quote.csv",
        "cannot parse the file: line 2: text follows the closing quote of a quoted field (a quote inside a quoted field is written twice: \"a\"\"b\")",
    ),
    (
        "old_mac_line_ends.csv",
        "cannot parse the file: the lines end with a carriage return alone (old Mac line ends); save the file with LF or CRLF line ends",
    ),
    (
        "cr_cr_lf.csv",
        "cannot parse the file: line 1 ends with two carriage returns before its line feed (\\r\\r\\n); save the file with LF or CRLF line ends",
    ),
    (
        "unclosed_quote.csv",
        "cannot parse the file: a quoted field that starts on line 4 is never closed",
    ),
    (
        "broken.jsonl",
        "cannot parse the file as JSON: line 2: EOF while parsing a value (column 36)",
    ),
    (
        "not_gzip.csv.gz",
        "the file is not valid gzip: invalid gzip header",
    ),
    (
        "truncated.parquet",
        "cannot read the Parquet file: parquet: File out of specification: The file must end with PAR1",
    ),
    (
        "records.xlsx",
        "unknown file type; pareval reads .csv, .tsv, .jsonl, .ndjson, .json and .parquet \
         (text formats may be gzip-compressed: .csv.gz, .tsv.gz, .jsonl.gz)",
    ),
];

#[test]
fn every_bad_file_has_its_exact_message() {
    for (name, expected) in CASES {
        let path = fixture(&format!("bad/{name}"));
        let error = load(std::slice::from_ref(&path), &LoadOptions::default()).expect_err(name);
        assert_eq!(
            error.to_string(),
            format!("{}: {expected}", path.display()),
            "{name}"
        );
    }
}

#[test]
fn every_file_in_the_bad_folder_is_covered() {
    let dir = fixture("bad");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("bad fixtures")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut covered: Vec<String> = CASES.iter().map(|(n, _)| n.to_string()).collect();
    covered.sort();
    assert_eq!(names, covered);
    assert!(names.len() >= 15);
}

#[test]
fn the_binary_exits_2_with_the_message_and_never_panics() {
    for (name, expected) in CASES {
        let path = fixture(&format!("bad/{name}"));
        let path_text = path.to_string_lossy().into_owned();
        let output = pareval(&["info", &path_text]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        assert_eq!(
            stderr(&output),
            format!("error: {path_text}: {expected}\n"),
            "{name}"
        );
        assert!(output.stdout.is_empty(), "{name}");
    }
}

#[test]
fn a_path_that_is_not_there_is_named_as_missing_not_as_an_unknown_type() {
    // A mistyped log folder has no extension either: "unknown file type" sent users looking at
    // the formats, not at the path.
    for args in [
        vec!["info", "/nonexistent/logs"],
        vec![
            "decide",
            "/nonexistent/logs",
            "--plan",
            "/nonexistent/plan.csv",
            "--tested",
            "a",
            "--baseline",
            "b",
        ],
    ] {
        let output = pareval(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr(&output),
            "error: /nonexistent/logs: no such file or folder\n",
            "{args:?}"
        );
    }
    // A file about to be written is not there yet: its name is what is judged.
    let output = pareval(&["simulate", "--out", "/nonexistent/records.xlsx"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("/nonexistent/records.xlsx: unknown file type"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn messages_quote_at_most_five_rows_and_count_the_rest() {
    let dir = crate::common::temp_dir("many-bad");
    let path = dir.join("many.csv");
    let mut text = String::from("system,task,outcome\n");
    for i in 0..8 {
        text.push_str(&format!("A,t{i},{}\n", 2 + i));
    }
    std::fs::write(&path, text).expect("write");
    let error =
        load(std::slice::from_ref(&path), &LoadOptions::default()).expect_err("bad outcomes");
    assert!(
        error.to_string().ends_with(
            "outcome '2' on line 2, outcome '3' on line 3, outcome '4' on line 4, outcome '5' on line 5, \
             outcome '6' on line 6 (and 3 more rows)"
        ),
        "{error}"
    );
}

#[test]
fn side_table_problems_name_the_side_table() {
    let dir = crate::common::temp_dir("side");
    let tasks = dir.join("tasks.csv");
    std::fs::write(&tasks, "task,difficulty\nt1,easy\nt1,hard\n").expect("write");
    let options = LoadOptions {
        task_table: Some(tasks.clone()),
        ..LoadOptions::default()
    };
    let error = load(&[fixture("good/tiny.csv")], &options).expect_err("duplicate task");
    assert_eq!(
        error.to_string(),
        format!(
            "{}: a task may have one row only: task 't1' on line 2 and line 3",
            tasks.display()
        )
    );

    let systems = dir.join("systems.csv");
    std::fs::write(&systems, "system,submitted\nalpha,March\n").expect("write");
    let options = LoadOptions {
        system_table: Some(systems.clone()),
        ..LoadOptions::default()
    };
    let error = load(&[fixture("good/tiny.csv")], &options).expect_err("bad date");
    assert_eq!(
        error.to_string(),
        format!(
            "{}: the system table disagrees with the records or holds a bad date: submitted 'March' on line 2",
            systems.display()
        )
    );
}

#[test]
fn proxy_on_too_few_systems_says_how_many_it_needs_and_has() {
    let dir = crate::common::temp_dir("proxy-one-system");
    let file = dir.join("one.csv");
    std::fs::write(&file, "system,task,outcome\na,t1,1\na,t2,0\na,t3,1\n").expect("write");
    let output = pareval(&["proxy", &file.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: proxy predictions need at least 3 systems; the records hold 1\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn proxy_refuses_more_seeds_splits_or_resamples_than_it_can_hold() {
    // 4294967295 seeds aborted on an allocation of a terabyte (exit 134).
    let records = concat!(env!("CARGO_MANIFEST_DIR"), "/sample_runs/multi_bench.csv");
    for (extra, said) in [
        (
            vec!["--method", "random", "--seeds", "4294967295"],
            "--seeds must be at most 100000",
        ),
        (
            vec!["--protocol", "split", "--splits", "4294967295"],
            "--splits must be at most 100000",
        ),
        (
            vec!["--target", "bench-1", "--seeds", "100001"],
            "--seeds must be at most 100000",
        ),
        (
            vec!["--target", "bench-1", "--pace-bootstrap", "4294967295"],
            "--pace-bootstrap must be at most 100000",
        ),
    ] {
        let args = [&["proxy", records][..], &extra[..]].concat();
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
}

#[test]
fn pair_refuses_a_budget_in_steps_naming_the_command_that_reads_them() {
    // Its message said to give --early, which pair refuses as an unknown argument.
    let records = concat!(env!("CARGO_MANIFEST_DIR"), "/sample_runs/swe_repair.csv");
    let output = pareval(&[
        "pair",
        records,
        "--tested",
        "a",
        "--baseline",
        "b",
        "--budget-by",
        "steps",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "--budget-by steps: budgets in steps read the steps of early-stopped runs, which only replay takes (replay RECORDS --early HALTS)"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_negative_number_reaches_the_check_that_names_the_range() {
    // clap took "-0.2" for an option and said "unexpected argument '-0' found".
    let records = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample_runs/swe_repair.csv"
    ));
    let records = records.to_string_lossy();
    for (args, said) in [
        (
            vec!["proxy", records.as_ref(), "--budget", "-0.2"],
            "--budget: budget '-0.2' must be in (0, 1]",
        ),
        (
            vec![
                "simulate",
                "--out",
                "/nonexistent/x.csv",
                "--group-effect",
                "-1",
            ],
            "--group-effect '-1' must be a number ≥ 0",
        ),
        (
            vec![
                "pair",
                records.as_ref(),
                "--tested",
                "a",
                "--baseline",
                "b",
                "--eta",
                "-1",
            ],
            "--eta '-1' must be in [0, 1]",
        ),
        (
            vec![
                "simulate",
                "--out",
                "/nonexistent/x.csv",
                "--missing",
                "-0.1",
            ],
            "--missing '-0.1' must be in [0, 1)",
        ),
        (
            vec![
                "proxy",
                records.as_ref(),
                "--target",
                "x",
                "--pace-lambda",
                "-0.1",
            ],
            "--pace-lambda '-0.1' must be in [0, 1]",
        ),
        (
            vec!["replay", records.as_ref(), "--grid", "-0.1"],
            "--grid: budget '-0.1' must be in (0, 1]",
        ),
        // A list or a range that starts with a negative number is no single number to clap.
        (
            vec!["replay", records.as_ref(), "--grid", "-0.1:0.5:0.1"],
            "--grid: grid start '-0.1' must be in [0, 1]",
        ),
        (
            vec!["proxy", records.as_ref(), "--budget", "-0.1,0.5"],
            "--budget: budget '-0.1' must be in (0, 1]",
        ),
        // Whole-number flags name their range too ("unexpected argument '-5' found" suggested
        // "-- -5", which would read it as a file).
        (
            vec!["replay", records.as_ref(), "--orders", "-5"],
            "invalid value '-5' for '--orders <N>'",
        ),
        (
            vec!["simulate", "--out", "/nonexistent/x.csv", "--systems", "-1"],
            "invalid value '-1' for '--systems",
        ),
    ] {
        let output = pareval(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let message = stderr(&output);
        assert!(message.contains(said), "{args:?}: {message}");
        assert!(
            !message.contains("unexpected argument"),
            "{args:?}: {message}"
        );
    }
}

#[test]
fn a_list_in_a_field_pareval_does_not_read_is_kept_and_one_in_a_renamed_key_field_is_refused() {
    let dir = crate::common::temp_dir("unusual-json-values");
    let file = dir.join("agents.jsonl");
    std::fs::write(
        &file,
        "{\"agent\":\"A\",\"task\":\"t1\",\"outcome\":1,\"tags\":[\"x\"]}\n{\"agent\":{\"name\":\"B\"},\"task\":\"t1\",\"outcome\":0,\"tags\":\"y\"}\n",
    )
    .expect("write");
    let path = file.to_string_lossy().into_owned();
    let refused = pareval(&["info", &path, "--col", "system=agent"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains(
            "line 2: field 'agent' holds an object ({\"name\":\"B\"}); pareval reads `system` as a plain value"
        ),
        "{}",
        stderr(&refused)
    );
    // `agent` left unread (a `system` column of its own): the lists in `tags` and `agent` are no
    // field pareval reads, so the file loads.
    std::fs::write(
        &file,
        "{\"system\":\"A\",\"task\":\"t1\",\"outcome\":1,\"tags\":[\"x\"]}\n{\"system\":\"B\",\"task\":\"t1\",\"outcome\":0,\"tags\":\"y\"}\n",
    )
    .expect("write");
    let read = pareval(&["info", &path]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
}

#[test]
fn a_run_folder_whose_results_file_is_broken_names_the_file_and_the_fault() {
    // It said only "<folder>: is a folder; name a file here".
    let dir = crate::common::temp_dir("broken-run-folder");
    let run = dir.join("run-2025-08-15");
    std::fs::create_dir_all(&run).expect("folder");
    std::fs::write(
        run.join("results.json"),
        "{\"results\": [{\"task_id\": \"a\"",
    )
    .expect("write");
    let out = pareval(&["info", &run.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!(
            "{}: not valid JSON at line 1, column 28: EOF while parsing an object",
            run.join("results.json").display()
        )),
        "{}",
        stderr(&out)
    );
}
