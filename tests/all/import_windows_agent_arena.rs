//! WindowsAgentArena's results, read by the `osworld` importer (tests/fixtures/osworld/
//! windows_agent_arena: written by WAA's own run.py with the VM and the model stubbed).

use serde_json::Value;

use crate::common::fixture;
use crate::import_formats::{import_rows, info_words};

#[test]
fn trials_are_runs_of_one_system_and_errors_carry_their_exception() {
    let root = fixture("osworld/windows_agent_arena");
    let results = root.join("results");
    let split = root.join("test_fixture.json");
    let rows = import_rows(
        "osworld",
        &[&results],
        &["--split", &split.to_string_lossy()],
        "waa-rows",
    );
    let systems: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r["system"].as_str()).collect();
    // The trial level is a run, not part of the model's name.
    assert_eq!(
        systems.into_iter().collect::<Vec<_>>(),
        ["gpt-4o (pyautogui, a11y_tree)"]
    );
    let of = |run: &str, task_start: &str| -> &Value {
        rows.iter()
            .find(|r| {
                r["run"] == run
                    && r["task"]
                        .as_str()
                        .is_some_and(|t| t.starts_with(task_start))
            })
            .unwrap_or_else(|| panic!("run {run} {task_start}"))
    };
    assert_eq!(of("0", "notepad/366de66e")["outcome"], "1");
    assert_eq!(of("0", "notepad/a7d4b6c5")["outcome"], "0");
    assert_eq!(of("0", "chrome/06fe7178")["outcome"], "0.5");
    assert_eq!(of("1", "notepad/366de66e")["outcome"], "1");
    // Trial 1 ran the notepad domain only: the test set's other tasks are not attempted there.
    assert_eq!(of("1", "chrome/06fe7178")["status"], "not_attempted");
    let errored = of("0", "libreoffice_calc/0bf05a7d");
    assert_eq!(
        (&errored["outcome"], &errored["status"]),
        (&Value::from("0"), &Value::from("error"))
    );
    assert!(
        errored["source"]
            .as_str()
            .is_some_and(|s| s.contains("simulated: VM server connection reset")),
        "{errored}"
    );
    // The reset line (step 0, no action) is not an action: the notepad example took three
    // actions one second apart (20261206@050935 … 050937).
    let timed = of("0", "notepad/366de66e");
    assert_eq!(timed["seconds"], "2", "{timed}");
    let words = info_words(&[&results.to_string_lossy()]);
    assert!(words.contains("WindowsAgentArena's layout"), "{words}");
    assert!(
        words.contains("counts a result.txt of False as 1.0"),
        "{words}"
    );
}
