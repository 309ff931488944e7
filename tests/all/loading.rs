//! Every accepted format and loader option, on small hand-made files whose answers are worked out by hand.

use std::path::PathBuf;

use pareval::data::{ColumnMap, LoadOptions, load};
use pareval::dataset::Dataset;

use crate::common::{fixture, temp_dir};

fn load_one(path: PathBuf) -> Dataset {
    load(std::slice::from_ref(&path), &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// tiny.csv by hand: alpha t1=1 t2=0 t3=1; beta t1=0 t2=0 t3=(1+0)/2 over runs 0 and 1.
fn assert_tiny(dataset: &Dataset) {
    assert_eq!(dataset.n_rows, 7);
    assert_eq!(
        dataset
            .systems
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["alpha", "beta"]
    );
    assert_eq!(dataset.tasks, ["t1", "t2", "t3"]);
    assert_eq!(dataset.outcome_row(0), [1.0, 0.0, 1.0]);
    assert_eq!(dataset.outcome_row(1), [0.0, 0.0, 0.5]);
    assert_eq!(dataset.runs, [1, 1, 1, 1, 1, 2]);
    // Cost averages over the runs that have one: beta t3 has only run 1's 0.25.
    let cost = dataset.cost.as_ref().expect("cost present");
    assert!((cost[5] - 0.25).abs() < 1e-12);
    assert!((cost[0] - 0.10).abs() < 1e-12);
    // alpha t3 has no seconds; beta t3 averages 25 and 35.
    let seconds = dataset.seconds.as_ref().expect("seconds present");
    assert!(seconds[2].is_nan());
    assert!((seconds[5] - 30.0).abs() < 1e-12);
    assert_eq!(dataset.cost_rows, 6);
    assert_eq!(dataset.seconds_rows, 6);
    let group = dataset.group_column("group").expect("group column");
    assert_eq!(group.labels, ["repo-a", "repo-b"]);
    assert_eq!(group.of_task, [0, 0, 1]);
    assert_eq!(dataset.systems[1].runs, 2);
    assert_eq!(dataset.directed_pairs(), [(0, 1), (1, 0)]);
}

#[test]
fn csv_tsv_jsonl_json_and_bom_csv_give_the_same_dataset() {
    for name in ["tiny.csv", "tiny.tsv", "tiny.jsonl", "tiny.json", "bom.csv"] {
        let dataset = load_one(fixture(&format!("good/{name}")));
        assert_tiny(&dataset);
    }
}

#[test]
fn parquet_and_gzip_written_by_pareval_read_back_identically() {
    let dir = temp_dir("formats");
    let reference = load_one(fixture("good/tiny.csv"));
    let csv_bytes = std::fs::read(fixture("good/tiny.csv")).expect("read tiny.csv");
    for name in [
        "tiny.parquet",
        "tiny.csv.gz",
        "tiny.tsv.gz",
        "tiny.jsonl.gz",
        "tiny.json",
    ] {
        let frame_source = fixture("good/tiny.csv");
        let mut frame = polars_frame(&frame_source);
        let target = dir.join(name);
        pareval::data::write::write_frame(&mut frame, &target).expect("write");
        let dataset = load_one(target);
        assert_eq!(dataset.outcome, reference.outcome, "{name}");
        assert_eq!(dataset.runs, reference.runs, "{name}");
        assert_eq!(dataset.group_columns, reference.group_columns, "{name}");
    }
    // A gzip file made by another tool (concatenated members are allowed too).
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, &csv_bytes).expect("gzip");
    let gz = dir.join("other.csv.gz");
    std::fs::write(&gz, encoder.finish().expect("finish")).expect("write gz");
    assert_eq!(load_one(gz).outcome, reference.outcome);
}

fn polars_frame(csv: &std::path::Path) -> polars::prelude::DataFrame {
    use polars::prelude::*;
    CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(csv.to_path_buf()))
        .expect("reader")
        .finish()
        .expect("frame")
}

#[test]
fn several_files_are_concatenated() {
    let dir = temp_dir("concat");
    let first = dir.join("a.csv");
    let second = dir.join("b.jsonl");
    std::fs::write(&first, "system,task,outcome\nA,t1,1\nA,t2,0\n").expect("write");
    std::fs::write(
        &second,
        "{\"system\":\"B\",\"task\":\"t1\",\"outcome\":0}\n{\"system\":\"B\",\"task\":\"t2\",\"outcome\":1}\n",
    )
    .expect("write");
    let dataset = load(&[first, second], &LoadOptions::default()).expect("load");
    assert_eq!(dataset.n_systems(), 2);
    assert_eq!(dataset.outcome, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(
        dataset.inputs.iter().map(|f| f.rows).collect::<Vec<_>>(),
        [2, 2]
    );
}

#[test]
fn column_mapping_renames_columns() {
    let options = LoadOptions {
        columns: ColumnMap::parse(&[
            "system=agent_name".into(),
            "task=instance_id".into(),
            "outcome=resolved".into(),
        ])
        .expect("parse"),
        ..LoadOptions::default()
    };
    let dataset = load(&[fixture("good/renamed.csv")], &options).expect("load");
    assert_eq!(dataset.outcome, [1.0, 0.0, 1.0, 1.0]);
    assert_eq!(dataset.tasks, ["t1", "t2"]);
}

#[test]
fn a_column_mapping_whose_source_no_file_has_is_refused_not_skipped() {
    // Files may spell a column differently, so a file that has the target column skips the
    // mapping; but a source that no file has is a typo, and the file's own column would be read.
    let dir = temp_dir("col-typo");
    let both = dir.join("both.csv");
    std::fs::write(&both, "system,task,outcome,resolved\na,t1,0,1\nb,t1,1,0\n").expect("write");
    let renamed = fixture("good/renamed.csv");
    let options = |items: &[&str]| LoadOptions {
        columns: ColumnMap::parse(&items.iter().map(|i| i.to_string()).collect::<Vec<_>>())
            .expect("parse"),
        ..LoadOptions::default()
    };
    let error = load(std::slice::from_ref(&both), &options(&["outcome=resolvd"]))
        .expect_err("a typo")
        .to_string();
    assert!(
        error.contains("--col outcome=resolvd: no record file has a column 'resolvd'"),
        "{error}"
    );
    assert!(error.starts_with(&both.display().to_string()), "{error}");
    // The mapping used by one file and skipped by another that has the target is fine.
    let plain = dir.join("plain.csv");
    std::fs::write(&plain, "system,task,outcome\nc,t1,1\n").expect("write");
    let dataset = load(
        &[renamed, plain],
        &options(&["system=agent_name", "task=instance_id", "outcome=resolved"]),
    )
    .expect("load");
    assert_eq!(dataset.n_systems(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn column_mapping_rejects_bad_items() {
    use pareval::data::MappingProblem;
    let problem = |items: &[&str]| {
        let items: Vec<String> = items.iter().map(|i| i.to_string()).collect();
        ColumnMap::parse(&items).unwrap_err()
    };
    let not_a_pair = problem(&["system"]);
    assert_eq!(not_a_pair.problem, MappingProblem::NotAPair);
    assert!(not_a_pair.to_string().contains("TARGET=SOURCE"));
    let unknown = problem(&["name=agent"]);
    assert_eq!(
        unknown.problem,
        MappingProblem::UnknownTarget("name".to_string(), pareval::data::KNOWN_COLUMNS.join(", "))
    );
    assert!(
        unknown
            .to_string()
            .contains("'name' is not a pareval column")
    );
    let twice = problem(&["system=a", "system=b"]);
    assert_eq!(twice.problem, MappingProblem::MappedTwice("system".into()));
    assert!(twice.to_string().contains("mapped twice"));
}

#[test]
fn status_booleans_and_multiline_fields() {
    let dataset = load_one(fixture("good/status.csv"));
    // alpha: t1 true, t2 false (error, kept), t3 1; beta: t1 and t2 not attempted, t3 0 (error, kept).
    assert_eq!(dataset.outcome_row(0), [1.0, 0.0, 1.0]);
    let beta = dataset.outcome_row(1);
    assert!(beta[0].is_nan() && beta[1].is_nan());
    assert_eq!(beta[2], 0.0);
    assert_eq!(
        (dataset.systems[0].errored, dataset.systems[0].not_attempted),
        (1, 0)
    );
    assert_eq!(
        (dataset.systems[1].errored, dataset.systems[1].not_attempted),
        (1, 2)
    );
    // `note` differs between the rows of one task, so it is not a task attribute.
    assert!(dataset.group_column("note").is_none());
    assert_eq!(dataset.unused_columns, ["note"]);

    let excluded = load(
        &[fixture("good/status.csv")],
        &LoadOptions {
            exclude_errors: true,
            ..LoadOptions::default()
        },
    )
    .expect("load");
    assert!(excluded.outcome_row(0)[1].is_nan());
    assert!(excluded.outcome_row(1)[2].is_nan());
    assert!(
        excluded
            .notes
            .iter()
            .any(|n| n == "2 errored runs left out of the averages (--exclude-errors)")
    );
}

#[test]
fn task_and_system_tables_are_joined() {
    let options = LoadOptions {
        task_table: Some(fixture("good/tasks.csv")),
        system_table: Some(fixture("good/systems.csv")),
        ..LoadOptions::default()
    };
    let dataset = load(&[fixture("good/tiny.csv")], &options).expect("load");
    let difficulty = dataset.group_column("difficulty").expect("difficulty");
    assert_eq!(difficulty.labels, ["easy", "hard"]);
    assert_eq!(difficulty.of_task, [0, 1, 1]);
    assert_eq!(
        dataset.group_column("domain").expect("domain").of_task,
        [1, 1, 0]
    );
    assert_eq!(dataset.systems[0].scaffold.as_deref(), Some("ReAct"));
    assert_eq!(dataset.systems[1].submitted.as_deref(), Some("2025-04-02"));
    assert!(
        dataset.notes.iter().any(
            |n| n.contains("3 of 3 tasks matched; 1 of its rows name tasks not in the records")
        ),
        "{:?}",
        dataset.notes
    );
}

#[test]
fn min_system_coverage_drops_systems_and_says_which() {
    let dir = temp_dir("coverage");
    let path = dir.join("r.csv");
    std::fs::write(
        &path,
        "system,task,outcome\nA,t1,1\nA,t2,1\nA,t3,0\nA,t4,1\nB,t1,0\nB,t2,1\nB,t3,1\nC,t1,1\n",
    )
    .expect("write");
    let options = LoadOptions {
        min_system_coverage: Some(0.75),
        ..LoadOptions::default()
    };
    let dataset = load(&[path], &options).expect("load");
    assert_eq!(
        dataset
            .systems
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["A", "B"]
    );
    assert_eq!(dataset.outcome.len(), 8);
    assert!(
        dataset.notes.iter().any(|n| n
            == "1 system below 75.0% task coverage left out (--min-system-coverage): C (25.0%)"),
        "{:?}",
        dataset.notes
    );
}

#[test]
fn min_shared_leaves_out_pairs_with_small_overlaps() {
    let dir = temp_dir("shared");
    let path = dir.join("r.csv");
    std::fs::write(
        &path,
        "system,task,outcome\nA,t1,1\nA,t2,1\nA,t3,0\nB,t1,0\nB,t2,1\nB,t3,1\nC,t1,1\n",
    )
    .expect("write");
    let options = LoadOptions {
        min_shared: 2,
        ..LoadOptions::default()
    };
    let dataset = load(std::slice::from_ref(&path), &options).expect("load");
    assert_eq!(dataset.directed_pairs(), [(0, 1), (1, 0)]);
    assert!(dataset.notes.iter().any(
        |n| n == "4 of 6 directed pairs left out for sharing fewer than 2 tasks (--min-shared)"
    ));
    // A system with no outcome shares no task: it was never a pair, and is not counted as one left
    // out ("10 of 12"); nor is "no directed pair shares a task" said when pairs share too few.
    std::fs::write(
        &path,
        "system,task,outcome,status\nA,t1,1,ok\nA,t2,1,ok\nA,t3,0,ok\nB,t1,0,ok\nB,t2,1,ok\nB,t3,1,ok\nC,t1,1,ok\nD,t1,,not_attempted\n",
    )
    .expect("write");
    let dataset = load(std::slice::from_ref(&path), &options).expect("load");
    assert!(
        dataset
            .notes
            .iter()
            .any(|n| n
                == "4 of 6 directed pairs left out for sharing fewer than 2 tasks (--min-shared)"),
        "{:?}",
        dataset.notes
    );
    let too_many =
        crate::common::pareval(&["replay", &path.display().to_string(), "--min-shared", "5"]);
    assert_eq!(too_many.status.code(), Some(2));
    assert!(
        crate::common::stderr(&too_many)
            .contains("no directed pair shares at least 5 tasks (--min-shared 5)"),
        "{}",
        crate::common::stderr(&too_many)
    );
}

#[test]
fn benchmark_column_keys_tasks_per_benchmark_and_is_a_group_column() {
    let dir = temp_dir("bench");
    let path = dir.join("r.csv");
    std::fs::write(
        &path,
        "system,task,outcome,benchmark\nA,t1,1,x\nA,t1,0,y\nB,t1,0,x\nB,t1,1,y\n",
    )
    .expect("write");
    let dataset = load_one(path);
    assert_eq!(dataset.n_tasks(), 2);
    assert_eq!(dataset.benchmarks, ["x", "y"]);
    assert_eq!(
        dataset
            .group_column("benchmark")
            .expect("benchmark")
            .of_task,
        [0, 1]
    );
}

#[test]
fn row_order_does_not_change_the_matrix_up_to_task_and_system_order() {
    let dir = temp_dir("order");
    let path = dir.join("r.csv");
    std::fs::write(
        &path,
        "system,task,outcome\nB,t2,1\nA,t1,0\nA,t2,1\nB,t1,1\n",
    )
    .expect("write");
    let dataset = load_one(path);
    assert_eq!(dataset.systems[0].name, "B");
    assert_eq!(dataset.tasks, ["t2", "t1"]);
    assert_eq!(dataset.outcome(1, 1), Some(0.0));
}

#[test]
fn benchmark_per_file_names_each_files_benchmark_after_the_file() {
    let dir = temp_dir("per-file");
    let first = dir.join("alpha.csv");
    let second = dir.join("beta.csv.gz");
    std::fs::write(&first, "system,task,outcome\nA,t1,1\nB,t1,0\n").expect("write");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, b"system,task,outcome\nA,t1,0\nB,t1,1\n")
        .expect("gzip");
    std::fs::write(&second, encoder.finish().expect("finish")).expect("write");
    // Without the option the two files are one benchmark and t1 has two runs per system.
    let together = load(&[first.clone(), second.clone()], &LoadOptions::default())
        .expect_err("duplicate keys");
    assert!(
        together
            .to_string()
            .contains("duplicate (system, task, run) keys"),
        "{together}"
    );
    let options = LoadOptions {
        benchmark_per_file: true,
        ..LoadOptions::default()
    };
    let dataset = load(&[first, second], &options).expect("load");
    assert_eq!(dataset.benchmarks, ["alpha", "beta"]);
    assert_eq!(dataset.n_tasks(), 2);
    assert_eq!(
        dataset
            .group_column("benchmark")
            .expect("benchmark column")
            .labels,
        ["alpha", "beta"]
    );
}

/// A system whose scaffold differs between rows stops loading with a message naming both ways out;
/// `--ignore-col scaffold` loads it without the column, `--system-key system,scaffold` as two systems.
#[test]
fn a_scaffold_that_differs_within_a_system_has_two_ways_out() {
    let path = fixture("bad/scaffold_conflict.csv");
    let error = load(std::slice::from_ref(&path), &LoadOptions::default()).expect_err("conflict");
    assert!(
        error.message.contains("--system-key system,scaffold"),
        "{error}"
    );
    assert!(error.message.contains("--ignore-col scaffold"), "{error}");

    let ignored = LoadOptions {
        ignore_columns: vec!["scaffold".to_string()],
        ..LoadOptions::default()
    };
    let dataset = load(std::slice::from_ref(&path), &ignored).expect("ignored");
    assert_eq!(dataset.systems.len(), 1);
    assert_eq!(dataset.systems[0].scaffold, None);
    assert_eq!(dataset.n_tasks(), 2);

    let keyed = LoadOptions {
        system_key: vec!["system".to_string(), "scaffold".to_string()],
        ..LoadOptions::default()
    };
    let dataset = load(std::slice::from_ref(&path), &keyed).expect("keyed");
    let systems: Vec<(&str, Option<&str>)> = dataset
        .systems
        .iter()
        .map(|s| (s.name.as_str(), s.scaffold.as_deref()))
        .collect();
    assert_eq!(
        systems,
        [
            ("A (ReAct)", Some("ReAct")),
            ("A (PlanExec)", Some("PlanExec"))
        ]
    );
    // Each variant keeps its own outcome: t1 = 1 for ReAct, t2 = 0 for PlanExec.
    assert_eq!(dataset.outcome(0, 0), Some(1.0));
    assert_eq!(dataset.outcome(1, 1), Some(0.0));
}

#[test]
fn ignored_and_key_columns_are_checked() {
    let path = fixture("good/tiny.csv");
    let message = |options: LoadOptions| {
        load(std::slice::from_ref(&path), &options)
            .expect_err("refused")
            .to_string()
    };
    assert!(
        message(LoadOptions {
            ignore_columns: vec!["outcome".to_string()],
            ..LoadOptions::default()
        })
        .contains("--ignore-col 'outcome': a required column cannot be left out")
    );
    assert!(
        message(LoadOptions {
            system_key: vec!["group".to_string()],
            ..LoadOptions::default()
        })
        .contains("--system-key 'group' must start with system")
    );
    assert!(
        message(LoadOptions {
            system_key: vec!["system".to_string(), "scaffold".to_string()],
            ..LoadOptions::default()
        })
        .contains("tiny.csv: --system-key names column 'scaffold', which the file does not have")
    );
    // Ignoring a column the file lacks changes nothing; ignoring `group` drops that group column.
    let options = LoadOptions {
        ignore_columns: vec!["group".to_string(), "not_there".to_string()],
        ..LoadOptions::default()
    };
    let dataset = load(std::slice::from_ref(&path), &options).expect("load");
    assert!(dataset.group_column("group").is_none());
    assert_eq!(dataset.n_rows, 7);
    // … but a column no file has is named, so that a typo does not pass unseen.
    assert!(
        dataset.notes.contains(
            &"--ignore-col 'not_there': no file has this column, so nothing was left out"
                .to_string()
        ),
        "{:?}",
        dataset.notes
    );
    assert!(!dataset.notes.iter().any(|n| n.contains("'group': no file")));
}

#[test]
fn blank_lines_hold_no_record_and_later_lines_keep_their_numbers() {
    let dir = temp_dir("blank-lines");
    let path = dir.join("blank.csv");
    std::fs::write(&path, "system,task,outcome\nA,t1,1\n\nB,t1,0\r\n\n\n").expect("write");
    let dataset = load_one(path.clone());
    assert_eq!(dataset.n_rows, 2);
    assert_eq!(dataset.n_systems(), 2);
    // A bad value after a blank line is told on its own line.
    std::fs::write(&path, "system,task,outcome\nA,t1,1\n\nB,t1,7\n").expect("write");
    let message = load(&[path], &LoadOptions::default())
        .expect_err("refused")
        .to_string();
    assert!(message.ends_with("outcome '7' on line 4"), "{message}");
}

#[test]
fn json_lines_whose_outcomes_turn_from_numbers_to_booleans_load_every_value() {
    let dir = temp_dir("jsonl-mixed");
    let path = dir.join("mixed.jsonl");
    let mut text: String = (0..150)
        .map(|i| {
            format!(
                "{{\"system\": \"A\", \"task\": \"t{i}\", \"outcome\": {}}}\n",
                i % 2
            )
        })
        .collect();
    text.push_str("{\"system\": \"B\", \"task\": \"t0\", \"outcome\": true}\n");
    text.push_str("{\"system\": \"B\", \"task\": \"t1\", \"outcome\": false}\n");
    std::fs::write(&path, text).expect("write");
    let dataset = load_one(path);
    assert_eq!(dataset.n_rows, 152);
    let b = dataset
        .systems
        .iter()
        .position(|s| s.name == "B")
        .expect("B");
    let task = |name: &str| dataset.tasks.iter().position(|t| t == name).expect("task");
    assert_eq!(dataset.outcome(b, task("t0")), Some(1.0));
    assert_eq!(dataset.outcome(b, task("t1")), Some(0.0));
}

#[test]
fn a_run_column_of_ids_is_numbered_within_each_system_and_task() {
    let dir = crate::common::temp_dir("run-ids");
    let path = dir.join("runs.csv");
    std::fs::write(
        &path,
        "system,task,run,outcome\nA,t1,run-b,1\nA,t1,run-a,0\nA,t2,run-b,1\nB,t1,9000000000,0\nB,t1,12,1\nB,t1,2,1\n",
    )
    .expect("write");
    let dataset = pareval::data::load(
        std::slice::from_ref(&path),
        &pareval::data::LoadOptions::default(),
    )
    .expect("run ids load");
    // A on t1: run-a is run 0, run-b run 1, so the mean is (0 + 1) / 2 either way; the counts show
    // every run was kept.
    let a = dataset
        .systems
        .iter()
        .position(|s| s.name == "A")
        .expect("A");
    let t1 = dataset.tasks.iter().position(|t| t == "t1").expect("t1");
    assert_eq!(dataset.outcome(a, t1), Some(0.5));
    // B on t1: three ids, two of them numbers (one too wide for a run number): three runs.
    let b = dataset
        .systems
        .iter()
        .position(|s| s.name == "B")
        .expect("B");
    assert_eq!(dataset.systems[b].runs, 3);
    assert_eq!(dataset.outcome(b, t1), Some(2.0 / 3.0));
    assert!(
        dataset
            .notes
            .iter()
            .any(|n| n.contains("column 'run' holds run ids (such as 'run-b')")),
        "{:?}",
        dataset.notes
    );
    // Fractions are still refused.
    std::fs::write(&path, "system,task,run,outcome\nA,t1,run-b,1\nA,t1,1.5,0\n").expect("write");
    let error = pareval::data::load(
        std::slice::from_ref(&path),
        &pareval::data::LoadOptions::default(),
    )
    .expect_err("a fraction is no run");
    assert!(error.to_string().contains("run '1.5' on line 3"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn whole_number_task_ids_past_2_to_the_53_stay_apart() {
    // Read as floats, 9007199254740993 became …992: two systems' different tasks met as one shared
    // task, and the plan printed an id no file had.
    let dir = crate::common::temp_dir("big-ids");
    let path = dir.join("ids.jsonl");
    std::fs::write(
        &path,
        "{\"system\":\"A\",\"task\":9007199254740993,\"outcome\":1}\n{\"system\":\"B\",\"task\":9007199254740992,\"outcome\":0}\n{\"system\":\"A\",\"task\":7,\"outcome\":1}\n",
    )
    .expect("write");
    let path_text = path.to_string_lossy().to_string();
    let info = crate::common::pareval(&["info", &path_text]);
    assert_eq!(
        info.status.code(),
        Some(0),
        "{}",
        crate::common::stderr(&info)
    );
    assert!(crate::common::stdout(&info).contains("tasks     3"));
    let plan = crate::common::stdout(&crate::common::pareval(&["plan", &path_text]));
    for id in ["9007199254740993", "9007199254740992", " 7\n"] {
        assert!(plan.contains(id), "{id}\n{plan}");
    }
}

#[test]
fn an_outcome_on_a_row_not_attempted_is_named_not_dropped_in_silence() {
    let dir = crate::common::temp_dir("na-outcome");
    let path = dir.join("na.csv");
    std::fs::write(
        &path,
        "system,task,outcome,status\nA,t1,1,not_attempted\nA,t2,0,ok\nB,t1,,not_attempted\nB,t2,0,not_attempted\n",
    )
    .expect("write");
    let said = crate::import_formats::info_words(&[&path.to_string_lossy()]);
    assert!(
        said.contains("2 rows with status not_attempted carry an outcome (first line 2: 1), not read: a run not attempted has none"),
        "{said}"
    );
}

#[test]
fn systems_apart_only_by_spaces_at_their_ends_are_named() {
    // "A" and "A " are two systems that print alike: a note says which, with their spaces shown.
    let dir = crate::common::temp_dir("spaced-systems");
    let path = dir.join("spaced.csv");
    std::fs::write(&path, "system,task,outcome\nA,t1,1\n\"A \",t1,0\nB,t1,1\n").expect("write");
    let said = crate::import_formats::info_words(&[&path.to_string_lossy()]);
    assert!(said.contains("systems 3"), "{said}");
    assert!(
        said.contains("systems whose names differ only in spaces at their ends are read as different systems: \"A\" and \"A \""),
        "{said}"
    );
    // Task ids likewise (" t1" and "t1" are two tasks, so the pair shared one of three, unsaid);
    // one id in two benchmarks is not such a pair.
    let tasks = dir.join("spaced-tasks.csv");
    std::fs::write(
        &tasks,
        "system,task,outcome,benchmark\nA,t1,1,x\nB, t1,0,x\nA,t2,0,x\nB,t2,1,x\nA,t2,0,y\nB,t2,1,y\n",
    )
    .expect("write");
    let said = crate::import_formats::info_words(&[&tasks.to_string_lossy()]);
    assert!(
        said.contains("tasks whose names differ only in spaces at their ends are read as different tasks: \" t1\" and \"t1\" (if"),
        "{said}"
    );
    assert!(!said.contains("\"t2\" and"), "{said}");
}

#[test]
fn a_group_literally_called_none_stays_apart_from_the_tasks_without_a_group() {
    // "(none)" is how pareval labels tasks with no group; a column that has that very value keeps
    // it as its own group and labels the tasks without a value "(no value)", with a note.
    let dir = crate::common::temp_dir("literal-none-group");
    let path = dir.join("none.csv");
    std::fs::write(
        &path,
        "system,task,outcome,group\nA,t1,1,(none)\nA,t2,1,\nA,t3,0,x\nB,t1,0,(none)\nB,t2,0,\nB,t3,0,x\n",
    )
    .expect("write");
    let dataset = load_one(path.clone());
    let column = dataset.group_column("group").expect("group column");
    assert_eq!(column.labels, ["(none)", "x", "(no value)"]);
    assert_eq!(column.sizes(), [1, 1, 1]);
    let said = crate::import_formats::info_words(&[&path.to_string_lossy()]);
    assert!(
        said.contains("group column 'group': '(none)' is one of its values, so the tasks with no value there form the group '(no value)'"),
        "{said}"
    );
    // Without the literal value the label stays "(none)" and nothing is said.
    let plain = dir.join("plain.csv");
    std::fs::write(
        &plain,
        "system,task,outcome,group\nA,t1,1,\nA,t3,0,x\nB,t1,0,\nB,t3,0,x\n",
    )
    .expect("write");
    let column = load_one(plain).group_columns[0].clone();
    assert_eq!(column.labels, ["x", "(none)"]);
}

#[test]
fn a_parquet_duration_column_is_read_in_seconds() {
    // pandas' timedelta, written by pyarrow as duration[ns]: it was refused as "type duration[ns]
    // which pareval cannot read" (and a duration[s] column was named as duration[ms]).
    let dataset = load_one(fixture("good/seconds_duration.parquet"));
    let seconds = dataset.seconds.as_ref().expect("seconds");
    let a = dataset
        .systems
        .iter()
        .position(|s| s.name == "A")
        .expect("A");
    let b = dataset
        .systems
        .iter()
        .position(|s| s.name == "B")
        .expect("B");
    let t1 = dataset.tasks.iter().position(|t| t == "t1").expect("t1");
    let t2 = dataset.tasks.iter().position(|t| t == "t2").expect("t2");
    let at = |s: usize, t: usize| seconds[s * dataset.n_tasks() + t];
    assert_eq!(at(a, t1), 1.5);
    assert_eq!(at(a, t2), 90.0);
    assert!(at(b, t1).is_nan());
    assert_eq!(at(b, t2), 0.00025);
}

#[test]
fn a_folder_reads_every_format_the_loader_reads_and_names_the_files_it_leaves_out() {
    // The .tsv and gzip-compressed files of a folder were passed over in silence (a quarter of its
    // rows gone), as were files of other names.
    use std::io::Write;
    let dir = crate::common::temp_dir("folder-formats");
    std::fs::write(dir.join("a.csv"), "system,task,outcome\nA,t1,1\nB,t1,0\n").expect("write");
    std::fs::write(dir.join("b.tsv"), "system\ttask\toutcome\nC\tt1\t1\n").expect("write");
    let gzip = |name: &str, text: &str| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(text.as_bytes()).expect("gzip");
        std::fs::write(dir.join(name), encoder.finish().expect("gzip")).expect("write");
    };
    gzip("c.csv.gz", "system,task,outcome\nD,t1,1\n");
    gzip(
        "d.jsonl.gz",
        "{\"system\":\"E\",\"task\":\"t1\",\"outcome\":0}\n",
    );
    std::fs::write(dir.join("e.csv.bak"), "system,task,outcome\nF,t1,1\n").expect("write");
    std::fs::write(dir.join("README.md"), "runs of the week\n").expect("write");
    std::fs::write(dir.join(".hidden.csv"), "not read\n").expect("write");
    let dataset = load_one(dir.clone());
    let mut systems: Vec<&str> = dataset.systems.iter().map(|s| s.name.as_str()).collect();
    systems.sort();
    assert_eq!(systems, ["A", "B", "C", "D", "E"]);
    assert!(
        dataset.notes.iter().any(|n| n.ends_with(
            "left out 2 files whose name is no format pareval reads (README.md, e.csv.bak); a records file ends in .csv, .tsv, .jsonl, .ndjson, .json or .parquet (text formats also .gz)"
        )),
        "{:?}",
        dataset.notes
    );
}

/// The lines of a CSV with its data rows in reverse order (the header first).
fn reversed_rows(text: &str) -> String {
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    let mut rows: Vec<&str> = lines.collect();
    rows.reverse();
    std::iter::once(header)
        .chain(rows)
        .map(|line| format!("{line}\n"))
        .collect()
}

#[test]
fn figures_do_not_follow_the_order_the_rows_are_listed_in() {
    // Sums were taken in the files' row order: a task's runs (0.1 + 0.2 + 0.3 against 0.3 + 0.2 +
    // 0.1) and `info`'s sums over a system's tasks gave other last bits, its JSON listed systems as
    // they first appeared, and a budget's note named systems so.
    let dir = crate::common::temp_dir("rows-listed-otherwise");
    let forward = "system,task,run,outcome,seconds\n\
        A,t1,0,0.1,\nA,t1,1,0.2,\nA,t1,2,0.3,\nA,t2,0,0.7,\nA,t3,0,0.6,\n\
        B,t1,0,0.3,\nB,t2,0,0.1,\nB,t3,0,0.2,\n\
        C,t1,0,1,5\nC,t2,0,0,4\nC,t3,0,1,3\n\
        D,t1,0,0.1,\nD,t1,1,0.2,\nD,t1,2,0.3,\n";
    let (one, two) = (dir.join("forward.csv"), dir.join("reversed.csv"));
    std::fs::write(&one, forward).expect("write");
    std::fs::write(&two, reversed_rows(forward)).expect("write");
    let same = |args: &[&str]| {
        let run = |file: &std::path::Path| {
            let file = file.to_string_lossy().into_owned();
            let mut all = vec![args[0], file.as_str()];
            all.extend_from_slice(&args[1..]);
            let out = crate::common::pareval(&all);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).replace(&file, "FILE")
        };
        let (a, b) = (run(&one), run(&two));
        // The file's hash differs with its bytes.
        let masked = |text: &str| {
            text.lines()
                .filter(|line| !line.contains("sha256"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(masked(&a), masked(&b), "{args:?}");
        a
    };
    let info = same(&["info", "--format", "json"]);
    // D's one task: its runs in run order, (0.1 + 0.2 + 0.3) / 3.
    assert!(
        info.contains("\"mean_outcome\": 0.20000000000000004"),
        "{info}"
    );
    same(&["info"]);
    same(&[
        "pair",
        "--tested",
        "A",
        "--baseline",
        "B",
        "--format",
        "json",
    ]);
    let note = same(&[
        "replay",
        "--budget-by",
        "seconds",
        "--orders",
        "2",
        "--thresholds",
        "0",
        "--format",
        "json",
    ]);
    assert!(note.contains("no seconds at all: A, B, D"), "{note}");
}

#[test]
fn a_not_attempted_placeholder_is_filled_by_its_runs_row_and_real_repeats_are_still_refused() {
    let dir = temp_dir("placeholders");
    // A harness lists its runs as not attempted and appends each one's row as it ends; t3 waits.
    let path = dir.join("live.csv");
    std::fs::write(
        &path,
        "system,task,outcome,status\nA,t1,,not_attempted\nA,t2,,not_attempted\nA,t3,,not_attempted\nA,t2,0,ok\nA,t1,1,ok\nA,t2,,not_attempted\n",
    )
    .expect("write");
    let dataset = load_one(path);
    assert_eq!(dataset.outcome(0, 0), Some(1.0));
    assert_eq!(dataset.outcome(0, 1), Some(0.0));
    assert_eq!(dataset.outcome(0, 2), None);
    assert_eq!(
        dataset.systems[0].not_attempted, 1,
        "t3 alone is still to come"
    );
    let note = dataset
        .notes
        .iter()
        .find(|n| n.contains("placeholders"))
        .expect("a note counts the placeholders");
    assert!(
        note.starts_with("3 rows with status not_attempted share")
            && note.contains("('A', 't1', run 0) on line 2 and line 6"),
        "{note}"
    );
    // Two rows that both hold an outcome are still two answers for one run.
    let twice = dir.join("twice.csv");
    std::fs::write(
        &twice,
        "system,task,outcome,status\nA,t1,,not_attempted\nA,t1,1,ok\nA,t1,0,ok\n",
    )
    .expect("write");
    let error = load(&[twice], &LoadOptions::default()).expect_err("refused");
    assert!(
        error.to_string().contains(
            "duplicate (system, task, run) keys: ('A', 't1', run 0) on line 3 and line 4"
        ),
        "{error}"
    );
}

#[test]
fn an_importer_s_runs_not_attempted_are_no_placeholders_for_another_evaluation() {
    // An Inspect eval stopped before any sample ran (its samples not attempted) and rows of another
    // evaluation of the same model: two evaluations of it, refused as before, not one filled in.
    let dir = temp_dir("importer-not-attempted");
    let other = dir.join("other.csv");
    std::fs::write(
        &other,
        "system,task,outcome,group\nanthropic/claude-3-5-sonnet-latest,511704,1,bash_task\n",
    )
    .expect("write");
    let log = fixture("inspect_no_samples").join("cancelled_before_any.eval");
    // Also read live after a file with no rows yet, which adds no table: which files an importer
    // read is counted per table read.
    let empty = dir.join("empty.csv");
    std::fs::write(&empty, "").expect("write");
    let live = LoadOptions {
        live: true,
        ..LoadOptions::default()
    };
    for (files, options) in [
        (vec![log.clone(), other.clone()], LoadOptions::default()),
        (vec![empty, log, other], live),
    ] {
        let error = load(&files, &options).expect_err("two evaluations");
        assert!(
            error
                .to_string()
                .contains("duplicate (system, task, run) keys: ('anthropic/claude-3-5-sonnet-latest', '511704', run 0)"),
            "{error}"
        );
    }
}

/// A file without a column says nothing of it; an empty cell in a file with the column says the
/// row has no value, which still conflicts with another row's value for the same task.
#[test]
fn a_file_without_the_group_column_takes_its_tasks_groups_from_the_others() {
    let dir = temp_dir("absent-group");
    let bare = dir.join("bare.csv");
    let grouped = dir.join("grouped.csv");
    let blank = dir.join("blank.csv");
    std::fs::write(&bare, "system,task,outcome\nA,t1,1\nA,t2,0\nA,t3,1\n").expect("bare");
    std::fs::write(
        &grouped,
        "system,task,outcome,group,note\nB,t1,0,x,n1\nB,t2,1,y,n2\n",
    )
    .expect("grouped");
    std::fs::write(&blank, "system,task,outcome,group\nC,t1,1,\n").expect("blank");
    let dataset =
        load(&[bare.clone(), grouped.clone()], &LoadOptions::default()).expect("read together");
    let groups = dataset.group_column("group").expect("group column");
    let label = |task: &str| {
        let t = dataset.tasks.iter().position(|n| n == task).expect(task);
        groups.labels[groups.of_task[t] as usize].clone()
    };
    assert_eq!(
        (label("t1"), label("t2")),
        ("x".to_string(), "y".to_string())
    );
    // t3 has rows only in the file without the column: no group, as before.
    assert!(label("t3").contains("no"), "{}", label("t3"));
    assert!(
        dataset.notes.iter().any(|n| n.contains(
            "bare.csv has no column 'group': the tasks' groups are read from the files that have it"
        )),
        "{:?}",
        dataset.notes
    );
    assert!(
        dataset.notes.iter().any(|n| n.contains(
            "bare.csv has no column 'note': the tasks' values of 'note' (a group column) are read from the files that have it"
        )),
        "{:?}",
        dataset.notes
    );
    // The other order of the files reads the same groups (the column first seen in a later file).
    let swapped =
        load(&[grouped.clone(), bare.clone()], &LoadOptions::default()).expect("read together");
    let swapped_groups = swapped.group_column("group").expect("group column");
    let t1 = swapped.tasks.iter().position(|n| n == "t1").expect("t1");
    assert_eq!(
        swapped_groups.labels[swapped_groups.of_task[t1] as usize],
        "x"
    );
    // An empty cell is a row with no group: it conflicts with another row's group.
    let error = load(&[grouped, blank], &LoadOptions::default()).expect_err("conflict");
    assert!(
        error.message.contains("task 't1' has group 'x' on")
            && error.message.contains("but no group on"),
        "{}",
        error.message
    );
    let _ = std::fs::remove_dir_all(&dir);
}
