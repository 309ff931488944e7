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

/// A fresh temporary folder for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pareval-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}
