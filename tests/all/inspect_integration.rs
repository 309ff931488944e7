//! The Inspect AI integration (`integrations/inspect`, Python) against this build's `pareval serve`:
//! its pytest suite runs whole Inspect evals with stand-in models. Skipped with a notice when python3,
//! pytest or inspect-ai is missing; under `CI=true` that fails instead (`.ci/run` installs them).

use std::path::Path;
use std::process::Command;

use crate::common::missing;

/// Whether `python3` can import `module`.
fn importable(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_inspect_integration_s_tests_pass_against_this_build() {
    for module in ["pytest", "inspect_ai"] {
        if !importable(module) {
            missing(&format!(
                "python3 with {module} (pip install inspect-ai pytest)"
            ));
            return;
        }
    }
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/inspect");
    let output = Command::new("python3")
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::DeprecationWarning",
        ])
        .arg(package.join("tests"))
        .env("PAREVAL_BIN", env!("CARGO_BIN_EXE_pareval"))
        .env("PYTHONPATH", package.join("src"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&package)
        .output()
        .expect("run pytest");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{said}");
    // Every test ran: none skipped (a skip would hide a missing binary).
    assert!(!said.contains("skipped"), "{said}");
    println!("{}", said.lines().last().unwrap_or_default());
}
