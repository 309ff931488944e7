//! The real binary in a real terminal (tmux): start, wait for the screen, move the slider, switch a
//! threshold set and the order, open a drill-down, export the view, quit; then check the exit status,
//! that the terminal settings are as before (raw mode left) and that the screen left the explorer.
//! Skipped with a notice when tmux is not installed, except under `CI=true`, where that fails (`.ci/run`
//! installs it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{missing, shared_data, temp_dir};

/// tmux on a server of this test process's own (`-L`, no configuration file): a developer's tmux
/// sessions, options and `kill-server` neither reach these sessions nor are changed by them (the
/// escape-time below is a server option).
fn tmux_command() -> Command {
    let mut command = Command::new("tmux");
    command
        .args(["-L", &format!("pareval-e2e-{}", std::process::id())])
        .args(["-f", "/dev/null"]);
    command
}

fn tmux(args: &[&str]) -> String {
    let output = tmux_command().args(args).output().expect("run tmux");
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
        let status = tmux_command()
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

    fn resize(&self, width: u16, height: u16) {
        tmux(&[
            "resize-window",
            "-t",
            &self.name,
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
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
    // The four files as one path with their extensions, whole on the status line.
    session.wait_for(".{csv,json,md,svg}");
    let exported = exported_files(&session.dir);
    assert_eq!(exported.len(), 4, "{exported:?}");
    assert!(exported.iter().any(|n| n.ends_with(".svg")));
    // Too small to draw the views: keys other than q do nothing unseen (no second export).
    session.resize(60, 15);
    session.wait_for("terminal too small");
    session.keys("e");
    session.resize(120, 40);
    session.wait_for("directed pairs at 30%");
    assert_eq!(exported_files(&session.dir).len(), 4);
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
}

#[test]
fn a_signal_ends_the_explorer_with_the_terminal_restored() {
    if !tmux_available() {
        return;
    }
    // `kill` (SIGTERM) left the terminal raw, in the alternate screen, with the mouse reported and
    // the cursor hidden: the default action ended the process before any restoring.
    for (label, signal, code) in [("term", "TERM", 143), ("hup", "HUP", 129)] {
        let session = Session::start(&format!("signal-{label}"), &["--mouse"]);
        session.wait_for("directed pairs at 25% · 0 pp · 380 of 380");
        let pareval = explorer_pid(&session);
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &pareval])
            .status()
            .expect("kill");
        assert!(killed.success());
        assert_eq!(session.wait_exit(), format!("EXIT={code}"));
        assert_restored(&session);
        let modes = tmux(&[
            "display",
            "-p",
            "-t",
            &session.name,
            "#{alternate_on} #{mouse_any_flag} #{cursor_flag}",
        ]);
        assert_eq!(modes.trim(), "0 0 1", "alternate screen, mouse, cursor");
    }
    // Its terminal gone with no signal reaching it (the tmux session killed under a shell that
    // passes on no SIGHUP): it leaves, where crossterm's poll spun on the hung-up terminal for
    // ever at a full core.
    let session = Session::start("hung-up", &[]);
    session.wait_for("directed pairs at 25% · 0 pp · 380 of 380");
    let pareval = explorer_pid(&session);
    let _ = tmux(&["kill-session", "-t", &session.name]);
    assert_ends(&pareval);
}

/// Waits until process `pid` has ended (gone, or a zombie nobody reaps), failing after 10 s.
fn assert_ends(pid: &str) {
    let started = Instant::now();
    while Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "))
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "process {pid} still runs after its terminal went"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The explorer's process id: the child of the tmux pane's shell.
fn explorer_pid(session: &Session) -> String {
    let shell = tmux(&["display", "-p", "-t", &session.name, "#{pane_pid}"]);
    let children = Command::new("pgrep")
        .args(["-P", shell.trim()])
        .output()
        .expect("pgrep");
    String::from_utf8_lossy(&children.stdout)
        .lines()
        .next()
        .expect("the explorer's process")
        .trim()
        .to_string()
}

#[test]
fn a_click_on_an_overlay_does_not_move_the_slider_beneath() {
    if !tmux_available() {
        return;
    }
    let session = Session::start("mouse-overlay", &["--mouse"]);
    session.wait_for("directed pairs at 25% · 0 pp · 380 of 380");
    let click = |column: u16| {
        // SGR mouse reports of a left press and release on the slider's row (the fourth).
        for event in [
            format!("\x1b[<0;{column};4M"),
            format!("\x1b[<0;{column};4m"),
        ] {
            tmux(&["send-keys", "-t", &session.name, "-l", &event]);
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    session.keys("Enter");
    session.wait_for("budget 25% · Esc closes");
    click(30);
    click(100);
    let screen = session.wait_for("Esc closes");
    assert!(screen.contains("budget 25% · Esc closes"), "{screen}");
    // Without the overlay the same click moves the budget.
    session.keys("Escape");
    click(100);
    session.wait_for("budget   80%");
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
    // Ctrl-C is an interrupt, as a shell reports one (it exited 0 like q).
    session.keys("C-c");
    assert_eq!(session.wait_exit(), "EXIT=130");
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
    // Below chance on held-out trajectories (AUC 0.47): the chart says so first.
    session.wait_for("⚠ AUC near chance");
    session.keys("Home");
    session.wait_for("resolve rate per system at τ 0.55");
    session.keys("Enter");
    session.wait_for("calibrated probabilities by step");
    session.keys("Escape");
    // A session saved here reopens the early view: its trajectories, training settings and τ.
    session.keys("w");
    session.wait_for("session saved to");
    session.keys("Tab");
    session.wait_for("directed pairs at 25%");
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
    let saved = session.dir.join("pareval-session.json");
    let text = std::fs::read_to_string(&saved).expect("session");
    assert!(text.contains("\"trees\": 10"), "{text}");
    let saved = saved.to_string_lossy().into_owned();
    let reopened = Session::start("early-again", &["--session", &saved]);
    reopened.wait_for("2 systems · 2 directed pairs · 78 tasks");
    reopened.wait_for("halting vs τ · loao · 10 trees · AUC");
    reopened.wait_for("resolve rate per system at τ 0.55");
    reopened.keys("q");
    assert_eq!(reopened.wait_exit(), "EXIT=0");
}

/// AppWorld rows of two systems, grouped by task in the order of a stratified plan.
fn appworld_in_plan_order(dir: &Path, systems: [&str; 2]) -> Option<(PathBuf, Vec<Vec<String>>)> {
    let root = shared_data()?;
    let records = root.join("hal_appworld/records.csv");
    let plan = dir.join("plan.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_pareval"))
        .args(["plan", &records.to_string_lossy(), "--seed", "3", "--out"])
        .arg(&plan)
        .output()
        .expect("plan");
    assert!(out.status.success());
    let order: Vec<String> = std::fs::read_to_string(&plan)
        .expect("plan")
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).expect("task").to_string())
        .collect();
    let text = std::fs::read_to_string(&records).expect("records");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).expect("column");
    let (system, task, run, outcome) = (
        column("system"),
        column("task"),
        column("run"),
        column("outcome"),
    );
    let mut by_task: std::collections::HashMap<String, Vec<String>> = Default::default();
    for line in lines {
        // The columns read here come before any quoted field of this record.
        let cells: Vec<&str> = line.split(',').collect();
        if systems.contains(&cells[system]) {
            by_task
                .entry(cells[task].to_string())
                .or_default()
                .push(format!(
                    "{},{},{},{}",
                    cells[system], cells[task], cells[run], cells[outcome]
                ));
        }
    }
    let rows = order
        .iter()
        .map(|t| by_task.remove(t).unwrap_or_default())
        .collect();
    Some((plan, rows))
}

#[test]
fn watch_follows_a_growing_file_and_decides_as_decide_does() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir("watch-data");
    let (tested, baseline) = (
        "FullCodeRefl (gpt-4o-2024-05-13)",
        "ReAct (gpt-4o-2024-05-13)",
    );
    let Some((plan, tasks)) = appworld_in_plan_order(&dir, [tested, baseline]) else {
        return;
    };
    let live = dir.join("live.csv");
    std::fs::write(&live, "system,task,run,outcome\n").expect("header");
    let (live_text, plan_text) = (
        live.to_string_lossy().into_owned(),
        plan.to_string_lossy().into_owned(),
    );
    let session = Session::start(
        "watch",
        &[
            "watch",
            &live_text,
            "--plan",
            &plan_text,
            "--tested",
            tested,
            "--baseline",
            baseline,
        ],
    );
    session.wait_for("0 rows read");
    let append = |rows: &[Vec<String>]| {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&live)
            .expect("open");
        for task in rows {
            for row in task {
                writeln!(file, "{row}").expect("append");
            }
        }
    };
    // `decide` on the same prefix, as (observed, action).
    let decide = |k: usize| {
        let prefix = dir.join(format!("prefix-{k}.csv"));
        let mut text = String::from("system,task,run,outcome\n");
        for row in tasks[..k].iter().flatten() {
            text.push_str(row);
            text.push('\n');
        }
        std::fs::write(&prefix, text).expect("prefix");
        let out = Command::new(env!("CARGO_BIN_EXE_pareval"))
            .args(["decide", &prefix.to_string_lossy(), "--plan", &plan_text])
            .args([
                "--tested",
                tested,
                "--baseline",
                baseline,
                "--budget",
                "1",
                "--rule",
                "anytime",
            ])
            .output()
            .expect("decide");
        let record: serde_json::Value = serde_json::from_slice(&out.stdout).expect("decide record");
        (
            record["observed"].as_u64().expect("observed"),
            record["action"].as_str().expect("action").to_string(),
        )
    };
    // A harness writing: chunks of tasks in plan order, then the screen is read at each count.
    let mut written = 0;
    // The plan is stratified, so the §9a test decides (at 142; §9 under a uniform plan would be
    // held back by the coverage gate).
    for k in [30, 90, 141, 142] {
        append(&tasks[written..k]);
        written = k;
        let screen = session.wait_for(&format!("{k} of 585"));
        let row = screen
            .lines()
            .find(|l| l.contains(baseline) && l.contains(&format!("{k} of 585")))
            .expect("the pair's row");
        let (observed, action) = decide(k);
        assert_eq!(observed, k as u64);
        assert!(
            row.contains(&action),
            "decide says {action} at {k}; the screen shows:\n{screen}"
        );
    }
    let screen = session.wait_for("at 0 pp: reject after 142 of 585 tasks");
    assert!(
        screen.contains("stratified order") && screen.contains("anytime-valid (stratified plan)"),
        "{screen}"
    );
    // A bad row is shown with file and line, and the view keeps following.
    let bad_line = 2 + tasks[..142].iter().map(Vec::len).sum::<usize>();
    append(&[vec![format!(
        "{tested},{},0,oops",
        tasks[142][0].split(',').nth(1).expect("task")
    )]]);
    session.wait_for(&format!("line {bad_line}: outcome 'oops'"));
    append(&tasks[142..152]);
    let screen = session.wait_for("152 of 585");
    // Later rows do not move the look that decided: the focused pair's line names it.
    assert!(screen.contains("reject after 142 tasks"), "{screen}");
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
}

#[test]
fn watch_replays_a_completed_record_with_pause_and_step() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir("watch-replay");
    let Some(root) = shared_data() else { return };
    let records = root.join("hal_appworld/records.csv");
    let plan = dir.join("plan.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_pareval"))
        .args(["plan", &records.to_string_lossy(), "--seed", "3", "--out"])
        .arg(&plan)
        .output()
        .expect("plan");
    assert!(out.status.success());
    let session = Session::start(
        "replay",
        &[
            "watch",
            "--replay",
            &records.to_string_lossy(),
            "--plan",
            &plan.to_string_lossy(),
            "--tested",
            "FullCodeRefl (gpt-4o-2024-05-13)",
            "--baseline",
            "ReAct (gpt-4o-2024-05-13),PlanExec (gpt-4o-2024-05-13)",
            "--speed",
            "100x",
        ],
    );
    session.wait_for("replaying");
    session.wait_for("reject after");
    session.keys("Space");
    let paused = session.wait_for("paused");
    let at = |screen: &str| {
        screen
            .split("task ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok())
            .expect("task count")
    };
    let before = at(&paused);
    session.keys("Right");
    session.wait_for(&format!("task {} of 585", before + 1));
    session.keys("r");
    session.wait_for("task 0 of 585");
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
    // Its terminal gone with no signal reaching it: the screen ends too (it spun in crossterm's
    // poll at a full core, for ever).
    let (records_text, plan_text) = (records.to_string_lossy(), plan.to_string_lossy());
    let one_baseline = [
        "watch",
        "--replay",
        &records_text,
        "--plan",
        &plan_text,
        "--tested",
        "FullCodeRefl (gpt-4o-2024-05-13)",
        "--baseline",
        "ReAct (gpt-4o-2024-05-13)",
    ];
    let watching = Session::start("replay-hung-up", &one_baseline);
    watching.wait_for("replaying");
    let pareval = explorer_pid(&watching);
    let _ = tmux(&["kill-session", "-t", &watching.name]);
    assert_ends(&pareval);
    // `kill` (SIGTERM) left the terminal raw, in the alternate screen, with the cursor hidden (the
    // default action ended watch before any restoring): it ends as the explorer does, 128 + 15.
    let killed = Session::start("replay-term", &one_baseline);
    killed.wait_for("replaying");
    let pareval = explorer_pid(&killed);
    assert!(
        Command::new("kill")
            .args(["-TERM", &pareval])
            .status()
            .expect("kill")
            .success()
    );
    assert_eq!(killed.wait_exit(), "EXIT=143");
    assert_restored(&killed);
    let modes = tmux(&[
        "display",
        "-p",
        "-t",
        &killed.name,
        "#{alternate_on} #{cursor_flag}",
    ]);
    assert_eq!(modes.trim(), "0 1", "alternate screen, cursor");
    // Ctrl-C, a key in the raw terminal, is the interrupt it stands for: 130 (it exited 0 like q).
    let interrupted = Session::start("replay-ctrl-c", &one_baseline);
    interrupted.wait_for("replaying");
    interrupted.keys("C-c");
    assert_eq!(interrupted.wait_exit(), "EXIT=130");
    assert_restored(&interrupted);
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

/// `w` makes a missing export folder, as `e` does (it failed with "No such file or directory").
#[test]
fn a_session_is_saved_into_an_export_folder_that_does_not_exist_yet() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir("e2e-new-export-folder");
    let folder = dir.join("new/sub");
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!("export_dir = \"{}\"\n", folder.to_string_lossy()),
    )
    .expect("write");
    let config = config.to_string_lossy().into_owned();
    let session = Session::start("session-new-folder", &["--config", &config]);
    session.wait_for("directed pairs at 25%");
    session.keys("w");
    session.wait_for("session saved to");
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert!(folder.join("pareval-session.json").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--preset`, `--thresholds`, `--orders` and `--bootstrap` open the explorer with those settings,
/// over the config's; a bad value stops before the terminal is touched, naming the flag.
#[test]
fn the_explorer_opens_with_the_policy_flags_given() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir("e2e-policy-flags-config");
    let config = dir.join("config.toml");
    std::fs::write(&config, "preset = \"paired-normal\"\norders = 30\n").expect("write");
    let config = config.to_string_lossy().into_owned();
    let session = Session::start(
        "policy-flags",
        &[
            "--config",
            &config,
            "--preset",
            "anytime",
            "--thresholds",
            "0,5",
            "--orders",
            "20",
        ],
    );
    session.wait_for("anytime · thresholds 0/5 pp · 20 orders");
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
    let bad = Session::start("policy-flags-bad", &["--thresholds", "0,five"]);
    assert_eq!(bad.wait_exit(), "EXIT=2");
    bad.wait_for("--thresholds: 'five' is not a number of percentage points");
    assert_restored(&bad);
}

/// A strong and a weak system on a 400-task list in 4 groups, rows in the plan's order.
fn strong_and_weak_rows(plan: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(plan).expect("plan");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let task = header.iter().position(|c| *c == "task").expect("task");
    lines
        .map(|l| l.split(',').nth(task).expect("task").to_string())
        .enumerate()
        .flat_map(|(i, t)| {
            // 80% against 50%: a 30 pp difference.
            let strong = u8::from(i % 5 != 0);
            let weak = u8::from(i % 2 == 0);
            [
                format!("strong,{t},0,{strong}"),
                format!("weak,{t},0,{weak}"),
            ]
        })
        .collect()
}

#[test]
fn watch_decides_on_a_drawn_stratified_plan_and_names_a_uniform_one() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir("watch-plans");
    let tasks = dir.join("tasks.csv");
    let mut text = String::from("task,group\n");
    for i in 0..400 {
        text.push_str(&format!("t{i:03},g{}\n", i % 4));
    }
    std::fs::write(&tasks, text).expect("tasks");
    let bin = env!("CARGO_BIN_EXE_pareval");
    for order in ["stratified", "uniform"] {
        let plan = dir.join(format!("plan-{order}.csv"));
        let out = Command::new(bin)
            .args([
                "plan",
                &tasks.to_string_lossy(),
                "--order",
                order,
                "--seed",
                "2",
            ])
            .args(["--out", &plan.to_string_lossy()])
            .output()
            .expect("plan");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows = strong_and_weak_rows(&plan);
        let live = dir.join(format!("live-{order}.csv"));
        std::fs::write(&live, "system,task,run,outcome\n").expect("header");
        let (live_text, plan_text) = (
            live.to_string_lossy().into_owned(),
            plan.to_string_lossy().into_owned(),
        );
        let session = Session::start(
            &format!("plans-{order}"),
            &[
                "watch",
                &live_text,
                "--plan",
                &plan_text,
                "--tested",
                "strong",
                "--baseline",
                "weak",
            ],
        );
        session.wait_for("0 rows read");
        // The harness writes the first 200 tasks of 400, 20 at a time.
        for chunk in rows[..400].chunks(40) {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&live)
                .expect("open");
            for row in chunk {
                writeln!(file, "{row}").expect("append");
            }
            drop(file);
            std::thread::sleep(Duration::from_millis(150));
        }
        let screen = session.wait_for("200 of 400");
        if order == "stratified" {
            assert!(
                screen.contains("stratified order")
                    && screen.contains("§9a")
                    && screen.contains("anytime-valid (stratified plan)"),
                "{screen}"
            );
            // Decided well before the plan ends: the notice says after how many tasks.
            let notice = screen
                .lines()
                .find(|l| l.contains("strong vs weak at 0 pp: promote after"))
                .unwrap_or_else(|| panic!("no promote notice:\n{screen}"));
            let after: u32 = notice
                .split("promote after ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse().ok())
                .expect("a count");
            assert!(after <= 200, "{notice}");
        } else {
            assert!(
                screen.contains("uniform order")
                    && screen.contains("anytime §9")
                    && screen.contains("anytime-valid (uniform plan)"),
                "{screen}"
            );
        }
        session.keys("q");
        assert_eq!(session.wait_exit(), "EXIT=0");
        assert_restored(&session);
    }
}

/// `watch --early`: the shared Terminal-Bench trajectories, a model saved on them, and a harness that
/// has written the steps of the plan's first 40 tasks and the outcomes of its first 20. The panel
/// counts what `halt` says of the same steps.
#[test]
fn watch_shows_the_runs_a_saved_predictor_could_halt() {
    if !tmux_available() {
        return;
    }
    let Some(root) = shared_data() else {
        return;
    };
    let tb = root.join("trajectories/terminal_bench");
    let dir = temp_dir("watch-early");
    let bin = env!("CARGO_BIN_EXE_pareval");
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let (model, plan) = (dir.join("tb.model"), dir.join("plan.csv"));
    for args in [
        vec![
            "early".to_string(),
            path(&tb.join("steps.csv")),
            path(&tb.join("outcomes.csv")),
            "--save-model".into(),
            path(&model),
            "--no-sweep".into(),
        ],
        vec![
            "plan".into(),
            path(&tb.join("outcomes.csv")),
            "--out".into(),
            path(&plan),
        ],
    ] {
        let out = Command::new(bin).args(&args).output().expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let planned: Vec<String> = std::fs::read_to_string(&plan)
        .expect("plan")
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).expect("task").to_string())
        .collect();
    let in_first = |n: usize, task: &str| planned[..n].iter().any(|t| t == task);
    let steps_text = std::fs::read_to_string(tb.join("steps.csv")).expect("steps");
    let mut lines = steps_text.lines();
    let header = lines.next().expect("header");
    let written: Vec<&str> = lines
        .filter(|l| in_first(40, l.split(',').nth(1).unwrap_or("")))
        .collect();
    let subset = dir.join("subset.csv");
    std::fs::write(&subset, format!("{header}\n{}\n", written.join("\n"))).expect("subset");
    let halt = Command::new(bin)
        .args(["halt", &path(&model), &path(&subset), "--format", "csv"])
        .output()
        .expect("halt");
    let halt_rows = String::from_utf8_lossy(&halt.stdout).into_owned();
    let rows: Vec<Vec<&str>> = halt_rows
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let completed = rows.iter().filter(|r| in_first(20, r[1])).count();
    let halt_now = rows
        .iter()
        .filter(|r| !in_first(20, r[1]) && r[6].starts_with("halt"))
        .count();
    let outcomes_text = std::fs::read_to_string(tb.join("outcomes.csv")).expect("outcomes");
    let outcome_rows: Vec<String> = outcomes_text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| in_first(20, c[1]))
        .map(|c| format!("{},{},{},{}", c[0], c[1], c[2], c[4]))
        .collect();
    let (live, steps) = (dir.join("live.csv"), dir.join("steps.csv"));
    std::fs::write(&live, "system,task,run,outcome\n").expect("live");
    std::fs::write(&steps, format!("{header}\n")).expect("steps");
    let session = Session::start(
        "watch-early",
        &[
            "watch",
            &path(&live),
            "--plan",
            &path(&plan),
            "--tested",
            "20250711_openhands_claude-4-sonnet",
            "--baseline",
            "20250825_swe-agent-mini_claude-4-sonnet",
            "--early",
            &path(&model),
            "--steps",
            &path(&steps),
        ],
    );
    session.wait_for("early halting");
    session.wait_for("0 trajectories followed");
    let append = |file: &Path, text: String| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(file)
            .expect("open");
        f.write_all(text.as_bytes()).expect("append");
    };
    for chunk in written.chunks(2000) {
        append(&steps, chunk.join("\n") + "\n");
        std::thread::sleep(Duration::from_millis(100));
    }
    append(&live, outcome_rows.join("\n") + "\n");
    let expected = format!(
        "{} trajectories followed, {completed} completed",
        rows.len()
    );
    let screen = session.wait_for(&expected);
    assert!(
        screen.contains(&format!("halt now: {halt_now} running")),
        "halt says {halt_now} running trajectories could halt:\n{screen}"
    );
    assert!(screen.contains("joint saving so far"), "{screen}");
    assert!(
        screen.contains("replay --early shows what its errors do"),
        "{screen}"
    );
    // A bad steps row reaches the status bar with its file and line.
    append(&steps, "x,y,0,zero,assistant,a,,,,,\n".to_string());
    session.wait_for(&format!("line {}: column 'step'", written.len() + 2));
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
}

/// A slow harness for `pareval run`: a strong and a weak system's rows in plan order, `pause` seconds
/// apart; it would take minutes to finish on its own.
fn slow_harness(dir: &Path, pause: &str) -> (PathBuf, PathBuf) {
    let mut plan = String::from("task\n");
    for i in 0..200 {
        plan.push_str(&format!("t{i:03}\n"));
    }
    let plan_path = dir.join("plan.csv");
    std::fs::write(&plan_path, plan).expect("plan");
    let script = format!(
        r#"echo "$$" > harness.pid
echo "system,task,outcome" > out.csv
for i in $(seq 0 199); do
  t=$(printf 't%03d' "$i")
  echo "new,$t,1" >> out.csv
  echo "old,$t,$((i % 3 == 0 ? 1 : 0))" >> out.csv
  echo "ran $t"
  sleep {pause}
done
echo "finished all"
"#
    );
    let harness = dir.join("harness.sh");
    std::fs::write(&harness, script).expect("harness");
    (plan_path, harness)
}

/// `pareval run --screen` around [`slow_harness`] (rows `pause` seconds apart).
fn run_screen_args(dir: &Path, pause: &str) -> Vec<String> {
    let (plan, harness) = slow_harness(dir, pause);
    [
        "run",
        "out.csv",
        "--plan",
        &plan.to_string_lossy(),
        "--tested",
        "new",
        "--baseline",
        "old",
        "--screen",
        "--harness-log",
        "harness.log",
        "--",
        "bash",
        &harness.to_string_lossy(),
    ]
    .map(str::to_string)
    .to_vec()
}

#[test]
fn run_on_the_screen_ends_the_harness_once_decided_or_when_the_user_quits() {
    if !tmux_available() {
        return;
    }
    // Decided: the screen closes by itself, the records follow on the terminal, exit 0.
    let dir = temp_dir("run-screen-setup");
    let args = run_screen_args(&dir, "0.3");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let session = Session::start("run-screen", &args);
    session.wait_for("pareval watch");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
    let screen = session.screen();
    assert!(screen.contains("0 pp: promote"), "{screen}");
    let log = std::fs::read_to_string(session.dir.join("harness.log")).expect("harness log");
    assert!(log.contains("ran t0"), "{log}");
    assert!(!log.contains("finished all"), "{log}");
    drop(session);

    // q on the screen: the harness is ended too, and the exit status says the user stopped it.
    let args = run_screen_args(&dir, "2");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let session = Session::start("run-screen-quit", &args);
    session.wait_for("pareval watch");
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=130");
    assert_restored(&session);
    let log = std::fs::read_to_string(session.dir.join("harness.log")).expect("harness log");
    assert!(!log.contains("finished all"), "{log}");
    let pid = std::fs::read_to_string(session.dir.join("harness.pid")).expect("harness pid");
    assert!(
        !Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "the harness {} is still running",
        pid.trim()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A task table named by a relative --tasks is kept absolute and hashed: kept as typed, a session
/// reopened from another folder read that folder's table of the same name (3 groups became 2)
/// without a word, and an edited table was not named either.
#[test]
fn a_saved_session_keeps_its_task_table_absolute_and_names_it_when_changed() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir("e2e-task-table");
    crate::common::records_with_a_partial_system(&dir);
    let tasks = dir.join("tasks.csv");
    let table = |levels: usize| {
        let mut text = String::from("task,difficulty\n");
        for i in 0..20 {
            text.push_str(&format!("t{i},level{}\n", i % levels));
        }
        text
    };
    std::fs::write(&tasks, table(3)).expect("write tasks");
    let name = dir
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let first = Session::start(
        "session-tasks",
        &[
            "explore",
            &format!("../{name}/rows.csv"),
            "--tasks",
            &format!("../{name}/tasks.csv"),
        ],
    );
    first.wait_for("6 directed pairs · 20 tasks");
    first.keys("w");
    first.wait_for("session saved to");
    first.keys("q");
    assert_eq!(first.wait_exit(), "EXIT=0");
    let saved = first.dir.join("pareval-session.json");
    let text = std::fs::read_to_string(&saved).expect("session");
    let absolute = tasks.canonicalize().expect("tasks").display().to_string();
    assert!(text.contains(&format!("--tasks={absolute}")), "{text}");
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert!(
        json["inputs"]
            .as_array()
            .expect("inputs")
            .iter()
            .any(|input| input["path"] == absolute.as_str()),
        "{text}"
    );
    let saved = saved.to_string_lossy().into_owned();
    std::fs::write(&tasks, table(2)).expect("edit tasks");
    let changed = Session::start("session-tasks-changed", &["--session", &saved]);
    changed.wait_for(&format!(
        "⚠ since the session was saved: {absolute} changed"
    ));
    changed.keys("q");
    assert_eq!(changed.wait_exit(), "EXIT=0");
    assert_restored(&changed);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A session saved from an explorer opened with load flags reopens the same records: the flags are
/// kept with the files (without them the reopened explorer would show the third system).
#[test]
fn a_saved_session_reopens_its_files_with_their_load_flags() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir("e2e-session-records");
    let file = crate::common::records_with_a_partial_system(&dir);
    // Given relative to the explorer's folder: the session keeps it absolute, so that it reopens
    // from anywhere (it was written as given, and failed elsewhere).
    let relative = format!(
        "../{}/rows.csv",
        dir.file_name().expect("name").to_string_lossy()
    );
    let first = Session::start(
        "session-flags",
        &["explore", &relative, "--min-system-coverage", "0.9"],
    );
    first.wait_for("2 systems · 2 directed pairs · 20 tasks");
    first.keys("w");
    first.wait_for("session saved to");
    first.keys("q");
    assert_eq!(first.wait_exit(), "EXIT=0");
    let saved = first.dir.join("pareval-session.json");
    let text = std::fs::read_to_string(&saved).expect("session");
    assert!(text.contains("--min-system-coverage=0.9"), "{text}");
    let absolute = file.canonicalize().expect("file").display().to_string();
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(json["files"][0], absolute.as_str(), "{text}");
    assert_eq!(json["inputs"][0]["path"], absolute.as_str(), "{text}");
    let saved = saved.to_string_lossy().into_owned();
    let reopened = Session::start("session-flags-again", &["--session", &saved]);
    reopened.wait_for("2 systems · 2 directed pairs · 20 tasks");
    assert!(!reopened.screen().contains("since the session was saved"));
    reopened.keys("q");
    assert_eq!(reopened.wait_exit(), "EXIT=0");
    assert_restored(&reopened);
    // A file changed since: the session opens, and the status bar says its figures may differ.
    let mut rows = std::fs::read_to_string(&file).expect("rows");
    rows = rows.replacen("A,t0,0", "A,t0,1", 1);
    std::fs::write(&file, rows).expect("write");
    let changed = Session::start("session-changed", &["--session", &saved]);
    changed.wait_for(&format!(
        "⚠ since the session was saved: {absolute} changed"
    ));
    changed.keys("q");
    assert_eq!(changed.wait_exit(), "EXIT=0");
    // Files or load flags beside a session would be passed over: refused.
    let refused = crate::common::pareval(&["--session", &saved, &absolute]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        crate::common::stderr(&refused)
            .contains("reopens the files it was saved with; give no FILE beside it"),
        "{}",
        crate::common::stderr(&refused)
    );
    let refused = crate::common::pareval(&["--session", &saved, "--min-shared", "3"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        crate::common::stderr(&refused).contains("--min-shared=3 cannot be used with it"),
        "{}",
        crate::common::stderr(&refused)
    );
    // Trajectories beside it: their outcomes became the records in place of the session's.
    let refused = crate::common::pareval(&[
        "--session",
        &saved,
        "--steps",
        "/nonexistent/steps.csv",
        "--outcomes",
        "/nonexistent/outcomes.csv",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        crate::common::stderr(&refused)
            .contains("the argument '--session <FILE>' cannot be used with:\n  --steps <FILE>\n  --outcomes <FILE>"),
        "{}",
        crate::common::stderr(&refused)
    );
}

/// `watch` on a path that never appears (a typo) and on a file that is removed while it is read: the
/// screen said "following … · 0 rows read" for ever, and kept a removed file's rows without a word.
/// `run` says both on stderr; the screen says them among its notices.
#[test]
fn watch_says_when_a_followed_path_never_appears_or_goes() {
    if !tmux_available() {
        return;
    }
    let dir = temp_dir("watch-missing-path");
    let plan = dir.join("plan.csv");
    let bin = env!("CARGO_BIN_EXE_pareval");
    let drawn = Command::new(bin)
        .args(["plan", "sample_runs/swe_repair.csv", "--out"])
        .arg(&plan)
        .output()
        .expect("plan");
    assert!(drawn.status.success());
    let live = dir.join("live.csv");
    std::fs::write(&live, "system,task,outcome\n").expect("live");
    let typo = dir.join("liev.csv");
    let (live_text, typo_text, plan_text) = (
        live.to_string_lossy().into_owned(),
        typo.to_string_lossy().into_owned(),
        plan.to_string_lossy().into_owned(),
    );
    let session = Session::start(
        "watch-missing",
        &[
            "watch",
            &live_text,
            &typo_text,
            "--plan",
            &plan_text,
            "--tested",
            "CodeAct (atlas-1)",
            "--baseline",
            "CodeAct (borealis-1)",
        ],
    );
    session.wait_for("following");
    session.wait_for("liev.csv has not appeared after 5 s");
    std::fs::remove_file(&live).expect("remove");
    session.wait_for("live.csv is gone");
    session.keys("q");
    assert_eq!(session.wait_exit(), "EXIT=0");
    assert_restored(&session);
}
