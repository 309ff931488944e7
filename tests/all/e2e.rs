//! The real binary in a real terminal (tmux): start, wait for the screen, move the slider, switch a
//! threshold set and the order, open a drill-down, export the view, quit; then check the exit status,
//! that the terminal settings are as before (raw mode left) and that the screen left the explorer.
//! Skipped with a notice when tmux is not installed, except under `CI=true`, where that fails (`.ci/run`
//! installs it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{missing, shared_data, temp_dir};

fn tmux(args: &[&str]) -> String {
    let output = Command::new("tmux").args(args).output().expect("run tmux");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn tmux_available() -> bool {
    let available = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        missing("tmux (for the end-to-end terminal test)");
    }
    available
}

struct Session {
    name: String,
    dir: PathBuf,
}

impl Session {
    /// Starts `pareval ARGS` in a detached 120×40 tmux session; the shell records `stty` before and after
    /// and the exit status.
    fn start(label: &str, args: &[&str]) -> Session {
        let dir = temp_dir(&format!("e2e-{label}"));
        let name = format!("pareval-e2e-{}-{label}", std::process::id());
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let script = format!(
            "stty -g > before.txt; '{}' {}; status=$?; stty -g > after.txt; echo EXIT=$status > exit.txt; echo EXIT=$status; sleep 60",
            env!("CARGO_BIN_EXE_pareval"),
            quoted.join(" ")
        );
        let dir_text = dir.to_string_lossy().into_owned();
        let _ = tmux(&["kill-session", "-t", &name]);
        let status = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                "120",
                "-y",
                "40",
                "-c",
                &dir_text,
                &script,
            ])
            .env("NO_COLOR", "1")
            .status()
            .expect("start tmux");
        assert!(status.success());
        // tmux waits 500 ms after Escape for a sequence by default; keys are sent one by one here.
        let _ = tmux(&["set-option", "-s", "escape-time", "0"]);
        Session { name, dir }
    }

    fn screen(&self) -> String {
        tmux(&["capture-pane", "-p", "-t", &self.name])
    }

    /// Waits until the screen shows `text` (or fails after 30 s, printing the screen).
    fn wait_for(&self, text: &str) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "waited for {text:?}; the screen shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn keys(&self, keys: &str) {
        tmux(&["send-keys", "-t", &self.name, keys]);
        // Separate key presses: an Escape followed at once by a letter reads as Alt+letter.
        std::thread::sleep(Duration::from_millis(250));
    }

    fn wait_exit(&self) -> String {
        let path = self.dir.join("exit.txt");
        let started = Instant::now();
        while !path.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "pareval did not exit; the screen shows:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(Duration::from_millis(200));
        std::fs::read_to_string(path)
            .expect("exit status")
            .trim()
            .to_string()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = tmux(&["kill-session", "-t", &self.name]);
    }
}

fn assert_restored(session: &Session) {
    let before = std::fs::read_to_string(session.dir.join("before.txt")).expect("stty before");
    let after = std::fs::read_to_string(session.dir.join("after.txt")).expect("stty after");
    assert_eq!(before, after, "terminal settings were not restored");
    let screen = session.wait_for("EXIT=");
    assert!(
        !screen.contains("directed pairs at"),
        "the explorer's screen is still shown:\n{screen}"
    );
}

fn exported_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.starts_with("pareval-export-"))
        .collect();
    names.sort();
    names
}

#[test]
fn the_explorer_runs_in_a_real_terminal_on_the_sample_run() {
    if !tmux_available() {
        return;
    }
    let session = Session::start("sample", &[]);
    session.wait_for("directed pairs at 25% · 0 pp · 380 of 380");
    session.keys("Right");
    session.wait_for("budget   30%");
    session.keys("t");
    session.wait_for("thresholds 0 pp");
    session.keys("o");
    session.wait_for("neyman order");
    session.wait_for("directed pairs at 30% · 0 pp · 380 of 380");
    session.keys("Enter");
    session.wait_for("Esc closes");
    session.keys("Escape");
    session.keys("e");
    session.wait_for("✓ exported");
    let exported = exported_files(&session.dir);
    assert_eq!(exported.len(), 4, "{exported:?}");
    assert!(exported.iter().any(|n| n.ends_with(".svg")));
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
}

#[test]
fn the_explorer_runs_on_a_real_record() {
    if !tmux_available() {
        return;
    }
    let Some(root) = shared_data() else { return };
    let path = root
        .join("hal_taubench/records.csv")
        .canonicalize()
        .expect("path");
    let path = path.to_string_lossy().into_owned();
    let session = Session::start("real", &["explore", &path]);
    session.wait_for("7 systems · 42 directed pairs · 165 tasks · group group (2 groups)");
    session.wait_for("directed pairs at 25% · 0 pp · 42 of 42");
    session.keys("Tab");
    session.wait_for("coverage gaps under the stratified order");
    session.keys("Tab");
    session.wait_for("proxy benchmark at budget 25%: midrange-k under loao");
    session.wait_for("pair decisions at 0 pp: proxy right");
    session.keys("Tab");
    session.keys("End");
    session.wait_for("budget   95%");
    session.keys("C-c");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
}

#[test]
fn the_early_view_trains_on_real_trajectories_in_a_real_terminal() {
    if !tmux_available() {
        return;
    }
    let Some(root) = shared_data() else { return };
    let dir = root
        .join("trajectories/terminal_bench")
        .canonicalize()
        .expect("path");
    let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let (steps, outcomes) = (file("steps.csv"), file("outcomes.csv"));
    let session = Session::start(
        "early",
        &[
            "explore",
            "--steps",
            &steps,
            "--outcomes",
            &outcomes,
            "--early-trees",
            "10",
        ],
    );
    // The outcomes table is the record of the other views; the early view opens first and trains.
    session.wait_for("2 systems · 2 directed pairs · 78 tasks");
    session.wait_for("resolve rate per system at τ 0.95");
    session.keys("Home");
    session.wait_for("resolve rate per system at τ 0.55");
    session.keys("Enter");
    session.wait_for("calibrated probabilities by step");
    session.keys("Escape");
    session.keys("Tab");
    session.wait_for("directed pairs at 25%");
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
}

#[test]
fn a_bad_config_stops_before_the_terminal_is_touched() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir("e2e-bad-config-file");
    let config = dir.join("bad.toml");
    std::fs::write(&config, "preset = \"fastest\"\n").expect("write");
    let config = config.to_string_lossy().into_owned();
    let session = Session::start("config", &["--config", &config]);
    assert_eq!(session.wait_exit(), "EXIT=2");
    let screen = session.wait_for("key 'preset'");
    assert!(
        screen.contains("bad.toml: key 'preset': preset 'fastest' is not one of"),
        "{screen}"
    );
    assert_restored(&session);
}
