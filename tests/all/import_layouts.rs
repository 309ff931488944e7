//! Harness output folders whose result files lie several levels down (lighteval's `--output-dir`,
//! FastChat and Arena-Hard-Auto bench folders): the folder a user names is read as those files,
//! noted, and a model evaluated again by lighteval is a further run rather than a clash.

use std::path::{Path, PathBuf};

use crate::common::{assert_refused, copy_tree, fixture, pareval, stderr, temp_dir};
use crate::import_formats::{import_rows, info_words, rows_once_read, tally};

/// The one date folder under a lighteval model folder.
fn date_folder(model: &Path) -> PathBuf {
    std::fs::read_dir(model)
        .expect("model folder")
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.is_dir())
        .expect("a date folder")
}

#[test]
fn a_lighteval_output_folder_is_read_through_its_details_files() {
    // lighteval --output-dir writes details/<org>/<model>/<date>/details_<task>_<date>.parquet.
    let output = fixture("lighteval").join("v0.13.0");
    let rows = import_rows("lighteval", &[&output], &[], "lighteval-output-dir");
    let counts = tally(&rows);
    assert_eq!(counts["toy-org/dummy-model"].rows, 9);
    assert_eq!(counts["toy-org/edited-model"].rows, 3);
    // Any folder on the way down reads the same files, and says where it found them.
    for folder in [output.join("details"), output.join("details/toy-org")] {
        assert_eq!(
            import_rows("lighteval", &[&folder], &[], "lighteval-down").len(),
            12
        );
    }
    let words = info_words(&[&output.to_string_lossy()]);
    assert!(
        words.contains("its top level holds no result file; read the 4 lighteval details files below it, in details/toy-org/dummy-model/"),
        "{words}"
    );
    // Recognised without --from too, and not said to be left unread.
    assert!(words.contains("read as lighteval"), "{words}");
    assert!(!words.contains("not read"), "{words}");
}

#[test]
fn a_lighteval_model_evaluated_again_is_a_further_run() {
    // A second invocation on the same model and tasks writes a second date folder.
    let output = temp_dir("lighteval-rerun");
    copy_tree(&fixture("lighteval").join("v0.13.0"), &output);
    let model = output.join("details/toy-org/dummy-model");
    let first = date_folder(&model);
    let first_name = first
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let later = "2026-12-03T00-00-00.000000";
    std::fs::create_dir(model.join(later)).expect("date folder");
    for entry in std::fs::read_dir(&first).expect("files").flatten() {
        let name = entry
            .file_name()
            .to_string_lossy()
            .replace(&first_name, later);
        // Only two of the three tasks are run again.
        if !name.contains("toy_mixed") {
            std::fs::copy(entry.path(), model.join(later).join(name)).expect("copy");
        }
    }
    let rows = import_rows("lighteval", &[&output], &[], "lighteval-rerun-rows");
    let runs = |task: &str| -> Vec<String> {
        let mut runs: Vec<String> = rows
            .iter()
            .filter(|r| r["system"] == "toy-org/dummy-model" && r["task"] == task)
            .map(|r| r["run"].as_str().unwrap_or("").to_string())
            .collect();
        runs.sort();
        runs
    };
    assert_eq!(runs("toy_gen|0/0"), ["0", "1"]);
    assert_eq!(runs("toy_mixed|0/0"), ["0"]);
    let words = info_words(&[&output.to_string_lossy()]);
    assert!(
        words.contains(
            "run 1 of 'toy-org/dummy-model' on toy_gen|0: 1 earlier date folder of the model holds toy_gen|0 too"
        ),
        "{words}"
    );
    // The later folder given alone is still its model's second run.
    let alone = import_rows("lighteval", &[&model.join(later)], &[], "lighteval-later");
    assert!(alone.iter().all(|r| r["run"] == "1"), "{alone:?}");
}

#[test]
fn a_bench_folder_is_read_through_its_judgments() {
    // Arena-Hard-Auto: data/<bench>/model_judgment/<judge>/<model>.jsonl beside question.jsonl and
    // the answers, which are not results.
    let bench = fixture("arena_hard").join("data/arena-hard-v2.0");
    for folder in [bench.clone(), bench.join("model_judgment")] {
        let rows = import_rows("arena-hard", &[&folder], &[], "arena-hard-bench");
        assert_eq!(rows.len(), 18);
    }
    let words = info_words(&[&bench.to_string_lossy()]);
    assert!(
        words.contains("read the 2 judgment files (Arena-Hard-Auto's model_judgment/<judge>/<model>.jsonl) below it, in model_judgment/stand-in-judge/"),
        "{words}"
    );
    // A second judge's folder: refused naming both, not a clash of keys.
    let two = temp_dir("arena-hard-two-judges");
    copy_tree(&bench, &two);
    copy_tree(
        &two.join("model_judgment/stand-in-judge"),
        &two.join("model_judgment/other-judge"),
    );
    let refused = pareval(&["info", &two.to_string_lossy()]);
    assert_refused(
        &refused,
        "Arena-Hard-Auto judgments of 2 judges (other-judge/, stand-in-judge/)",
    );
    assert!(stderr(&refused).contains("give one judge's folder"));

    // FastChat's MT-Bench: data/mt_bench/model_judgment/<judge>_<mode>.jsonl.
    let mt = temp_dir("mt-bench-bench");
    copy_tree(&fixture("mt_bench").join("data/mt_bench"), &mt);
    std::fs::remove_file(mt.join("model_judgment/gpt-4_pair.jsonl")).expect("one mode");
    let rows = import_rows("mt-bench", &[&mt], &[], "mt-bench-bench-rows");
    assert_eq!(rows.len(), 64);
    // Its questions give the groups, as with the judgments file itself.
    assert!(
        rows.iter()
            .all(|r| r["group"].as_str().is_some_and(|g| !g.is_empty()))
    );
}

#[test]
fn a_watched_bench_folder_follows_judgments_as_they_appear_and_stops_at_a_second_judge() {
    use pareval::watch::follow::{Event, Followed};
    let source = fixture("arena_hard").join("data/arena-hard-v2.0");
    // The bench folder before any judgment.
    let bench = temp_dir("arena-hard-watch").join("arena-hard-v2.0");
    std::fs::create_dir_all(&bench).expect("folder");
    let mut followed = Followed::new(std::slice::from_ref(&bench)).expect("followed");
    assert!(
        !followed
            .poll()
            .iter()
            .any(|e| matches!(e, Event::Row { .. }))
    );
    // gen_judgment.py starts writing one judge's folder: its rows are read.
    let judge = bench.join("model_judgment/stand-in-judge");
    std::fs::create_dir_all(&judge).expect("folder");
    std::fs::copy(
        source.join("model_judgment/stand-in-judge/strong.jsonl"),
        judge.join("strong.jsonl"),
    )
    .expect("copy");
    assert_eq!(rows_once_read(&mut followed), 9);
    // A second judge's folder: neither is read, and the problem says why.
    copy_tree(&judge, &bench.join("model_judgment/other-judge"));
    let events = followed.poll();
    assert!(
        events.iter().any(|e| matches!(e, Event::Bad { message, .. }
            if message.contains("judgments of 2 judges") && message.contains("give one judge's folder"))),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| matches!(e, Event::Reread { .. })),
        "{events:?}"
    );
    assert!(!events.iter().any(|e| matches!(e, Event::Row { .. })));
}
