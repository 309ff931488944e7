//! `pareval run`: starts a harness in its own process group, follows the files it writes with
//! `watch`'s follower and live state (so the decisions are `decide`'s), and ends the harness once
//! every pair is decided: SIGINT to its process group, SIGTERM after the grace period, SIGKILL after
//! as long again. Every exit path (decided, the harness ending first, pareval interrupted, an error
//! while following) leaves no process of the harness's group behind.

use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{CliError, LiveSetup, args, write_decisions};
use crate::watch::follow::{Event, Followed};
use crate::watch::state::Baselines;

/// Set by SIGINT or SIGTERM sent to pareval itself: the harness is in its own process group, so a
/// Ctrl-C at the terminal reaches only pareval, which then ends the harness before it exits.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

fn catch_interrupts() {
    let handler = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// Sends `signal` to every process of the group led by `child` (none left: nothing happens).
fn signal_group(child: &Child, signal: libc::c_int) {
    if let Ok(group) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill has no memory effects; a negative pid addresses the process group we made.
        unsafe {
            libc::kill(-group, signal);
        }
    }
}

/// Waits up to `limit` for the harness (the group's leader) to exit.
fn wait_for_leader(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().ok().flatten() {
            return Some(status);
        }
        if start.elapsed() >= limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Ends the harness's process group: SIGINT, then SIGTERM after `grace`, then SIGKILL after as long
/// again. Once the leader has exited, whatever it left in its group gets SIGKILL (zombies, which a
/// container's init may never reap, ignore it). Returns the leader's status and the signal that
/// ended it.
fn end_harness(child: &mut Child, grace: Duration) -> (Option<ExitStatus>, &'static str) {
    for (signal, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        signal_group(child, signal);
        if let Some(status) = wait_for_leader(child, grace) {
            signal_group(child, libc::SIGKILL);
            return (Some(status), name);
        }
    }
    signal_group(child, libc::SIGKILL);
    (child.wait().ok(), "SIGKILL")
}

/// The exit code a harness's status stands for (128 + signal when a signal ended it).
fn exit_code(status: ExitStatus) -> u8 {
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        (None, None) => 1,
    }
}

/// The harness's process group, ended on every exit path: dropped while any process of the group is
/// left (an error while following, a failed write), it is killed and reaped.
struct Harness(Child);

impl Drop for Harness {
    fn drop(&mut self) {
        signal_group(&self.0, libc::SIGKILL);
        let _ = self.0.wait();
    }
}

/// How the watched run ended.
enum Ending {
    Decided,
    HarnessExited(ExitStatus),
    Interrupted,
}

pub(crate) fn run_command(args: &args::RunArgs, out: &mut impl Write) -> Result<(), CliError> {
    let setup = LiveSetup::new(&args.live, &args.budget)?;
    let grace = args
        .grace
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            CliError::Input(format!(
                "--grace: '{}' is not a number of seconds ≥ 0",
                args.grace
            ))
        })?;
    let mut followed = Followed::new(&args.files).map_err(CliError::Input)?;
    let mut state = setup.state(&args.live.tested);
    let (program, rest) = args
        .command
        .split_first()
        .ok_or_else(|| CliError::Input("no harness command after --".to_string()))?;
    catch_interrupts();
    let mut harness = Harness(
        Command::new(program)
            .args(rest)
            .process_group(0)
            .spawn()
            .map_err(|e| CliError::Input(format!("cannot start the harness '{program}': {e}")))?,
    );
    let child = &mut harness.0;
    let started = Instant::now();
    eprintln!(
        "pareval run: started {} (process group {}); following {}",
        args.command.join(" "),
        child.id(),
        followed.describe()
    );
    let mut shown_notices = 0;
    let mut look = |followed: &mut Followed, state: &mut crate::watch::state::WatchState| {
        let events = followed.poll();
        for event in &events {
            if let Event::Bad {
                file,
                line,
                message,
            } = event
            {
                eprintln!("pareval run: {file}, line {line}: {message} (skipped)");
            }
        }
        state.apply(events);
        for notice in &state.notices[shown_notices..] {
            eprintln!("pareval run: {notice}");
        }
        shown_notices = state.notices.len();
    };
    let ending = loop {
        look(&mut followed, &mut state);
        if state.decided() {
            break Ending::Decided;
        }
        if INTERRUPTED.load(Ordering::SeqCst) {
            break Ending::Interrupted;
        }
        if let Some(status) = child.try_wait()? {
            // A harness's own result file is read once it has stopped changing between two polls.
            for _ in 0..3 {
                std::thread::sleep(crate::watch::POLL);
                look(&mut followed, &mut state);
            }
            break Ending::HarnessExited(status);
        }
        std::thread::sleep(crate::watch::POLL);
    };
    let (status, how) = match ending {
        Ending::HarnessExited(status) => (Some(status), "it ended by itself"),
        Ending::Decided | Ending::Interrupted => {
            let (status, signal) = end_harness(child, grace);
            (status, signal)
        }
    };
    let records: Vec<_> = state
        .pairs
        .iter()
        .flat_map(|p| p.records.iter().cloned())
        .collect();
    let several = !matches!(&setup.baselines, Baselines::Named(names) if names.len() == 1);
    write_decisions(
        out,
        args.format,
        &records,
        setup.plan.order_named,
        setup.settings.reading,
        several,
    )?;
    let finished = state.finished_tasks(&args.live.tested);
    let total = setup.plan.tasks.len();
    let elapsed = started.elapsed().as_secs_f64();
    match ending {
        Ending::Decided => eprintln!(
            "pareval run: decided after {elapsed:.1} s; the harness was ended ({how}); {} finished {finished} of {total} planned tasks, {} not run",
            args.live.tested,
            total - finished
        ),
        Ending::Interrupted => eprintln!(
            "pareval run: interrupted after {elapsed:.1} s; the harness was ended ({how}); {} finished {finished} of {total} planned tasks",
            args.live.tested
        ),
        Ending::HarnessExited(_) => eprintln!(
            "pareval run: the harness ended before every pair was decided ({elapsed:.1} s); {} finished {finished} of {total} planned tasks",
            args.live.tested
        ),
    }
    out.flush()?;
    match (ending, status) {
        (Ending::Decided, _) => Ok(()),
        (Ending::Interrupted, _) => Err(CliError::Status(130)),
        (Ending::HarnessExited(status), _) if status.success() => Ok(()),
        (Ending::HarnessExited(status), _) => {
            eprintln!(
                "pareval run: the harness exited with status {} ({how})",
                exit_code(status)
            );
            Err(CliError::Status(exit_code(status)))
        }
    }
}
