//! Helpers shared by the integration tests: fixture paths, the public data folder, running the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// `../shared/data`, or `None` (with a printed notice) when it is absent, as on a fresh clone.
pub fn shared_data() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if root.is_dir() {
        Some(root)
    } else {
        println!(
            "notice: {} is absent; skipping the test on public records",
            root.display()
        );
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

/// A fresh temporary folder for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pareval-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}
