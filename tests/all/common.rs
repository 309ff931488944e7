//! Helpers shared by the integration tests: fixture paths, the public data folder, running the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Whether the tests run under CI (`CI=true`), where nothing they need may be missing.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// A test's requirement is missing: under CI that fails the test, elsewhere it prints a notice and the
/// caller skips (a fresh clone has no `../shared`, a bare machine may have no tmux).
pub fn missing(what: &str) {
    assert!(
        !in_ci(),
        "{what} is missing, and under CI=true a missing requirement fails instead of skipping"
    );
    println!("notice: {what} is missing; skipping the test");
}

/// `../shared/data`, or `None` (with a printed notice) when it is absent, as on a fresh clone. Under
/// `CI=true` an absent folder fails the calling test.
pub fn shared_data() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if root.is_dir() {
        Some(root)
    } else {
        missing(&format!("the public records folder {}", root.display()));
        None
    }
}

/// Runs the real `pareval` binary.
pub fn pareval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pareval"))
        .args(args)
        .output()
        .expect("run pareval")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts that a run was refused as bad input: exit code 2 and `needle` in its message.
pub fn assert_refused(output: &Output, needle: &str) {
    let message = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(message.contains(needle), "{message}");
}

/// A fresh temporary folder for one test. Most tests leave theirs behind (a failing one should, to
/// be looked at); the first call of a run removes those of earlier runs whose process is gone, so
/// at most the last run's stay.
pub fn temp_dir(name: &str) -> PathBuf {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(remove_folders_of_ended_runs);
    let dir = std::env::temp_dir().join(format!("pareval-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Removes `pareval-test-<pid>-…` folders whose process no longer runs (Linux: no /proc/<pid>; on
/// a system without /proc nothing is removed).
fn remove_folders_of_ended_runs() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("pareval-test-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Copies a folder and everything in it.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("folder").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn every_test_folder_name_is_used_once() {
    // `temp_dir` empties its folder, and tests run in parallel in one process: two tests given the
    // same name delete each other's files at random (two did, and failed one run in several).
    let mut seen = std::collections::BTreeMap::new();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/all");
    for entry in std::fs::read_dir(&folder).expect("tests/all").flatten() {
        let text = std::fs::read_to_string(entry.path()).expect("a test file");
        // Helpers that pass their name on to `temp_dir` count too.
        let calls = ["temp_dir(\"", "sample_plan(\""]
            .iter()
            .flat_map(|call| text.match_indices(call).map(move |(at, _)| at + call.len()));
        for start in calls {
            let rest = &text[start..];
            let name = &rest[..rest.find('"').expect("a closing quote")];
            if let Some(first) = seen.insert(name.to_string(), entry.file_name()) {
                panic!(
                    "temp_dir(\"{name}\") is used in {} and {}",
                    first.to_string_lossy(),
                    entry.file_name().to_string_lossy()
                );
            }
        }
    }
    assert!(seen.len() > 50, "{} names found", seen.len());
}

/// A record no proxy subset of the midrange band can use: ten systems, ten tasks every system
/// passes, then for each system s, s tasks that it alone passes. Under leave one system out every
/// training pass rate is 0, 1/9 or 1, outside the band's widest [0.15, 0.85]. Written as
/// `records.csv` in `dir`.
pub fn one_owner_records(dir: &Path) -> PathBuf {
    let records = dir.join("records.csv");
    let mut text = String::from("system,task,outcome\n");
    let mut owner = Vec::new();
    for s in 0..10 {
        owner.extend(std::iter::repeat_n(s, s));
    }
    for s in 0..10 {
        for t in 0..10 + owner.len() {
            let passed = t < 10 || owner[t - 10] == s;
            text.push_str(&format!("s{s},t{t},{}\n", u8::from(passed)));
        }
    }
    std::fs::write(&records, text).expect("write records");
    records
}

/// A record of systems A and B on 20 tasks and C on the first 10 only, so `--min-system-coverage
/// 0.9` leaves C out (2 systems and 2 directed pairs instead of 3 and 6). Written as `rows.csv` in
/// `dir`.
pub fn records_with_a_partial_system(dir: &Path) -> PathBuf {
    let mut rows = String::from("system,task,outcome\n");
    for i in 0..20 {
        rows.push_str(&format!("A,t{i},{}\nB,t{i},{}\n", i % 2, i % 3 / 2));
        if i < 10 {
            rows.push_str(&format!("C,t{i},1\n"));
        }
    }
    let path = dir.join("rows.csv");
    std::fs::write(&path, rows).expect("write records");
    path
}

/// Systems a and b on 20 tasks, each a run, with a second run of b on t1 and t2 that averages its
/// outcomes there to 0.5 (a: 1 on even tasks; b: 1 on multiples of 4). Written as `runs.csv`.
pub fn records_with_averaged_runs(dir: &Path) -> PathBuf {
    let mut text = String::from("system,task,run,outcome\n");
    for i in 0..20 {
        text.push_str(&format!(
            "a,t{i},0,{}\nb,t{i},0,{}\n",
            u8::from(i % 2 == 0),
            u8::from(i % 4 == 0)
        ));
    }
    text.push_str("b,t1,1,1\nb,t2,1,1\n");
    let path = dir.join("runs.csv");
    std::fs::write(&path, text).expect("write records");
    path
}

/// Text with its line breaks and runs of spaces as single spaces: wrapped notes read whole.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
