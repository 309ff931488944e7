//! `pareval run`: starts a harness in its own process group, follows the files it writes with
//! `watch`'s follower and live state (so the decisions are `decide`'s), headless or on `watch`'s
//! screen (`--screen`, the harness's output then going to a log file), and ends the harness once
//! every pair is decided (or the user quits the screen): SIGINT to its process group, SIGTERM after the grace period, SIGKILL after
//! as long again. Every exit path (decided, the harness ending first, pareval interrupted, an error
//! while following) leaves no process of the harness's group behind.

use std::io::{IsTerminal, Write};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::{CliError, LiveSetup, args, write_decisions};
use crate::watch::Source;
use crate::watch::follow::{Event, Followed, Presence};
use crate::watch::state::{Baselines, WatchState};

/// Whether a signal pareval catches was sent to it (SIGINT, SIGTERM, SIGHUP unless ignored; on
/// `watch`'s screen SIGQUIT too): the harness is in its own process group, so a Ctrl-C at the
/// terminal reaches only pareval, which then ends the harness before it exits.
fn interrupted() -> bool {
    crate::signals::received().is_some()
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
/// container's init may never reap, ignore it). Returns the leader's status and what ended it: the
/// signal, or "itself" when it had exited before pareval's decision was in (a fast harness can
/// finish its last task in the same poll that decides).
fn end_harness(child: &mut Child, grace: Duration) -> (Option<ExitStatus>, &'static str) {
    if let Some(status) = child.try_wait().ok().flatten() {
        signal_group(child, libc::SIGKILL);
        return (Some(status), "itself");
    }
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

/// A signal's name for the harness's end: SIGKILL and SIGSEGV besides the ones pareval catches.
fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGKILL => "SIGKILL".to_string(),
        libc::SIGSEGV => "SIGSEGV".to_string(),
        libc::SIGABRT => "SIGABRT".to_string(),
        other => crate::signals::name(other),
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

/// Looks after the harness has ended, so that a result file it wrote last is read (a harness's
/// own file is read once it has not changed between two looks).
const FINAL_LOOKS: usize = 3;

/// What `run` says of a system whose rows it reads and compares with nothing, with the flag that
/// would compare it when its name differs from a compared one only in case.
fn uncompared_note(state: &WatchState, system: &str) -> String {
    let named = match &state.baselines {
        Baselines::Named(names) => names.clone(),
        Baselines::Everyone => Vec::new(),
    };
    let hint = if system.eq_ignore_ascii_case(&state.tested) {
        format!(": did you mean --tested '{system}'?")
    } else if named.iter().any(|b| b.eq_ignore_ascii_case(system)) {
        format!(": did you mean --baseline '{system}'?")
    } else {
        String::new()
    };
    format!(
        "rows of '{system}' are read and compared with nothing: it is neither the tested system '{}' nor a baseline ({}){hint}",
        state.tested,
        named.join(", ")
    )
}

/// How the watched run ended.
enum Ending {
    Decided,
    HarnessExited(ExitStatus),
    Interrupted,
}

/// Follows the run without a screen (new decisions and bad rows on standard error) until every
/// pair is decided, pareval is interrupted or the harness ends.
fn follow_headless(
    args: &args::RunArgs,
    setup: &LiveSetup,
    mut followed: Followed,
    presence: &mut Presence,
    child: &mut Child,
) -> Result<(WatchState, Ending), CliError> {
    let mut state = setup.state(&args.live.tested);
    // The setup's notes were said on stderr as the settings were read: not again.
    let mut shown_notices = setup.notes.len();
    // Rows read but left out (a second outcome for a run, a task not in the plan): each named once,
    // as bad lines are (they went by without a word, and the decision read the first outcome).
    let mut shown_skipped: std::collections::HashSet<String> = std::collections::HashSet::new();
    // Systems whose rows are read and compared with nothing (a misspelt --tested): each named once.
    let mut shown_uncompared: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut look = |followed: &mut Followed, state: &mut WatchState| {
        let events = followed.poll();
        // Only the rows this poll read are new: each system compared with nothing is named once.
        for event in &events {
            if let Event::Row { row, .. } = event
                && !state.compares(&row.system)
                && shown_uncompared.insert(row.system.clone())
            {
                eprintln!("pareval run: {}", uncompared_note(state, &row.system));
            }
        }
        for event in &events {
            if let Event::Bad {
                file,
                line,
                message,
            } = event
            {
                eprintln!(
                    "pareval run: {}: {message} (skipped)",
                    crate::watch::follow::bad_place(file, *line)
                );
            }
        }
        state.apply(events);
        for skipped in &state.skipped_rows {
            if shown_skipped.insert(skipped.clone()) {
                eprintln!("pareval run: {}", skipped.trim_start_matches("✗ "));
            }
        }
        for notice in &state.notices[shown_notices..] {
            eprintln!("pareval run: {notice}");
        }
        shown_notices = state.notices.len();
    };
    // A followed path still absent a while into the run is said then, not only at its end (a typo
    // in the path waited on a run that could never decide), and so is one that goes.
    let ending = loop {
        look(&mut followed, &mut state);
        presence.look();
        if state.decided() {
            break Ending::Decided;
        }
        for notice in followed.presence_notices() {
            eprintln!("pareval run: {notice}");
        }
        if interrupted() {
            break Ending::Interrupted;
        }
        if let Some(status) = child.try_wait()? {
            // A harness's own result file is read once it has stopped changing between two polls,
            // and a last line it left without a line end is its last.
            followed.writers_ended();
            for _ in 0..FINAL_LOOKS {
                std::thread::sleep(crate::watch::POLL);
                look(&mut followed, &mut state);
                presence.look();
            }
            // Decided by what the harness wrote last: a decision, as the screen ends it.
            break if state.decided() {
                Ending::Decided
            } else {
                Ending::HarnessExited(status)
            };
        }
        std::thread::sleep(crate::watch::POLL);
    };
    Ok((state, ending))
}

/// Follows the run on `watch`'s screen until every pair is decided, the user quits (q), pareval is
/// interrupted or the harness ends (the screen stays for a few more looks, so that its last rows
/// are read).
fn follow_on_screen(
    args: &args::RunArgs,
    setup: &LiveSetup,
    presence: &mut Presence,
    child: &mut Child,
) -> Result<(WatchState, Ending), CliError> {
    let fresh = || setup.state(&args.live.tested);
    let exited: std::cell::Cell<Option<ExitStatus>> = std::cell::Cell::new(None);
    let mut looks_since = 0;
    let mut stop = || {
        // Asked once a look: what the screen's own follower saw of the paths is out of reach.
        presence.look();
        if interrupted() {
            return true;
        }
        if exited.get().is_none() {
            exited.set(child.try_wait().ok().flatten());
        }
        looks_since += usize::from(exited.get().is_some());
        looks_since > FINAL_LOOKS
    };
    let ended = || exited.get().is_some();
    let until = crate::watch::Until {
        decided: true,
        stop: Some(&mut stop),
        writers_ended: Some(&ended),
    };
    let options = std::sync::Arc::new(args.live.load_options()?);
    let state = crate::watch::run(Source::Follow(args.files.clone(), options), &fresh, until)
        .map_err(super::watch_error)?;
    let ending = match exited.get() {
        _ if state.decided() => Ending::Decided,
        Some(status) => Ending::HarnessExited(status),
        None => Ending::Interrupted,
    };
    Ok((state, ending))
}

/// A command line as a shell would take it back: words of plain characters as they are, others in
/// single quotes (`bash -c 'sleep 1; echo done'` read as five words when joined with spaces).
fn shell_words(words: &[String]) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c);
    words
        .iter()
        .map(|word| {
            if !word.is_empty() && word.chars().all(plain) {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The outcome files (and completed baseline records) as the harness left them, each with its
/// SHA-256, as `decide` names them.
fn outcome_files(
    args: &args::RunArgs,
) -> Result<Vec<crate::engine::walk::record::FileHash>, String> {
    // The options were read at the start already; a failure here has its message.
    let options = args.live.load_options().map_err(|error| match error {
        CliError::Input(message) => message,
        other => format!("{other:?}"),
    })?;
    let dataset = crate::data::load(&args.files, &options).map_err(|e| e.to_string())?;
    Ok(dataset
        .inputs
        .iter()
        .map(|f| crate::engine::walk::record::FileHash {
            path: f.path.clone(),
            sha256: f.sha256.clone(),
        })
        .collect())
}

/// How many planned tasks `tested` finished by the time the harness was ended, read afresh from the
/// files as the harness left them: it finishes what it was running while it is ended (Inspect
/// scores a sample already answered, a shell loop writes its row), so the count at the decision
/// understates what ran. None when the files cannot be followed again.
fn finished_when_ended(args: &args::RunArgs, setup: &LiveSetup) -> Option<usize> {
    let options = std::sync::Arc::new(args.live.load_options().ok()?);
    let mut followed = Followed::with_options(&args.files, options).ok()?;
    let mut state = setup.state(&args.live.tested);
    followed.writers_ended();
    // The harness has exited, so nothing changes between these looks: a folder's files are found
    // at the first and a harness's own file is read once it is the same at two.
    for _ in 0..=FINAL_LOOKS {
        state.apply(followed.poll());
    }
    Some(state.finished_tasks(&args.live.tested))
}

pub(crate) fn run_command(args: &args::RunArgs, out: &mut impl Write) -> Result<(), CliError> {
    let setup = LiveSetup::new(&args.live, args.budget.as_deref())?;
    let grace = args
        .grace
        .trim()
        .parse::<f64>()
        .ok()
        // try_: a finite number past Duration's range (1e20) panicked in from_secs_f64.
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| {
            CliError::Input(format!(
                "--grace: '{}' is not a number of seconds ≥ 0 that a duration holds",
                args.grace
            ))
        })?;
    let followed =
        Followed::with_options(&args.files, std::sync::Arc::new(args.live.load_options()?))
            .map_err(CliError::Input)?;
    let (program, rest) = args
        .command
        .split_first()
        .ok_or_else(|| CliError::Input("no harness command after --".to_string()))?;
    // With the screen, the harness's output goes to a file: it would tear the screen apart.
    let harness_log = if args.screen {
        if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
            return Err(CliError::Input(
                "--screen needs an interactive terminal; leave it out to follow the run headless"
                    .to_string(),
            ));
        }
        let path = args.harness_log.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!("pareval-run-{}.log", std::process::id()))
        });
        let inputs: Vec<std::path::PathBuf> = args
            .files
            .iter()
            .cloned()
            .chain(std::iter::once(args.live.plan.clone()))
            .collect();
        crate::data::write::refuse_overwriting(&[("--harness-log", &path)], &inputs)?;
        let file = std::fs::File::create(&path).map_err(|e| {
            CliError::Input(format!(
                "{}: cannot write the harness's log: {e}",
                path.display()
            ))
        })?;
        Some((path, file))
    } else {
        None
    };
    crate::signals::catch(&crate::signals::INTERRUPT);
    // A closed terminal or SSH session (SIGHUP) left the harness running in its own group.
    crate::signals::catch_unless_ignored(&[libc::SIGHUP]);
    let mut command = Command::new(program);
    command.args(rest).process_group(0);
    if let Some((_, file)) = &harness_log {
        command
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file.try_clone()?);
    } else {
        // Standard output carries the records alone (`--format json > records.jsonl`): what the
        // harness prints goes to standard error, beside pareval's own progress lines.
        command.stdout(std::io::stderr().as_fd().try_clone_to_owned()?);
    }
    let mut harness = Harness(
        command
            .spawn()
            .map_err(|e| CliError::Input(format!("cannot start the harness '{program}': {e}")))?,
    );
    let child = &mut harness.0;
    let started = Instant::now();
    let announce = format!(
        "pareval run: started {} (process group {}); following {}",
        shell_words(&args.command),
        child.id(),
        followed.describe()
    );
    // Which followed paths ever existed: one the harness wrote and then removed is not a typo.
    let mut presence = Presence::new(&args.files);
    let (state, ending) = if harness_log.is_some() {
        follow_on_screen(args, &setup, &mut presence, child)?
    } else {
        eprintln!("{announce}");
        follow_headless(args, &setup, followed, &mut presence, child)?
    };
    presence.look();
    // The decision's time (or the interruption's): ending the harness may take its grace periods,
    // which "decided after" counted (5.6 s for a decision in 0.5 s under --grace 5).
    let followed_for = started.elapsed().as_secs_f64();
    if let Some((path, _)) = &harness_log {
        eprintln!("{announce}; its output is in {}", path.display());
    }
    let (status, how) = match ending {
        Ending::HarnessExited(status) => (Some(status), "it ended by itself"),
        Ending::Decided | Ending::Interrupted => end_harness(child, grace),
    };
    let ending_took = started.elapsed().as_secs_f64() - followed_for;
    let mut records: Vec<_> = state
        .pairs
        .iter()
        .flat_map(|p| p.records.iter().cloned())
        .collect();
    // SPEC §8: a record names its input files with a content hash. The follower read the outcome
    // files piece by piece, so they are hashed as the harness left them: what `decide` on them
    // reads, and it keeps the same decision. The plan's entry was there from the start.
    match outcome_files(args) {
        Ok(files) => {
            for record in &mut records {
                record.provenance.files.extend(files.iter().cloned());
            }
        }
        Err(error) => eprintln!(
            "pareval run: the records name the plan only: the outcome files could not be read whole for their hashes ({error})"
        ),
    }
    let several = !matches!(&setup.baselines, Baselines::Named(names) if names.len() == 1);
    write_decisions(
        out,
        args.format,
        &records,
        setup.plan.order_note.as_deref(),
        setup.settings.reading,
        several,
    )?;
    // As `decide` and the screen say it: errored runs counted in the decisions.
    if let Some(note) = state.errored_note() {
        eprintln!("pareval run: {note}");
    }
    let unreadable = state.unreadable_note();
    if let Some(note) = &unreadable {
        eprintln!("pareval run: {note}");
    }
    let skipped = state.skipped_note();
    if let Some(note) = &skipped {
        eprintln!("pareval run: {note}");
    }
    // A path nothing was ever written to (a typo, or a harness writing elsewhere) read as a run
    // with no outcomes yet, and an undecided run exited 0. One written and then removed (a harness
    // that moves its log when it ends) was read, and is not named.
    let missing = presence.never_seen();
    for path in &missing {
        eprintln!(
            "pareval run: {} never appeared: the harness wrote nothing there (is the path the one it writes?)",
            path.display()
        );
    }
    let at_decision = state.finished_tasks(&args.live.tested);
    let finished = match ending {
        Ending::HarnessExited(_) => at_decision,
        Ending::Decided | Ending::Interrupted => {
            finished_when_ended(args, &setup).map_or(at_decision, |n| n.max(at_decision))
        }
    };
    let then = if finished == at_decision {
        String::new()
    } else {
        format!(" ({at_decision} when pareval decided)")
    };
    let total = setup.plan.tasks.len();
    let elapsed = followed_for;
    let ended = match status {
        // Ended by itself in the poll that decided: its status is named (a crash or the kernel's
        // out-of-memory killer read as "had ended by itself" and exit 0).
        Some(status) if how == "itself" && !status.success() => match status.signal() {
            Some(signal) => format!(
                "the harness had been killed by {}, not by pareval",
                signal_name(signal)
            ),
            None => format!(
                "the harness had ended by itself with status {}",
                exit_code(status)
            ),
        },
        _ if how == "itself" => "the harness had ended by itself".to_string(),
        _ if ending_took >= 0.1 => {
            format!("the harness was ended ({how}, {ending_took:.1} s later)")
        }
        _ => format!("the harness was ended ({how})"),
    };
    // Every pair's last word, an abstain at the budget limit included: the run ends "decided" only
    // where each is a promote or reject.
    let all_final = state
        .pairs
        .iter()
        .all(|p| p.records.iter().all(|r| r.action.is_final()));
    let outcome = if all_final {
        "decided"
    } else {
        "reached its budget limit with an abstain"
    };
    match ending {
        Ending::Decided => eprintln!(
            "pareval run: {outcome} after {elapsed:.1} s; {ended}; {} finished {finished} of {total} planned tasks{then}, {} not run",
            args.live.tested,
            total.saturating_sub(finished)
        ),
        Ending::Interrupted => eprintln!(
            "pareval run: stopped by {} after {elapsed:.1} s; {ended}; {} finished {finished} of {total} planned tasks",
            crate::signals::received().map_or("the user".to_string(), crate::signals::name),
            args.live.tested
        ),
        Ending::HarnessExited(_) => eprintln!(
            "pareval run: the harness ended before every pair was decided ({elapsed:.1} s); {} finished {finished} of {total} planned tasks",
            args.live.tested
        ),
    }
    out.flush()?;
    match (ending, status) {
        // A harness that had failed by itself when the decision came: its status is passed on,
        // as when it ends first (the decision is written all the same).
        (Ending::Decided, Some(status)) if how == "itself" && !status.success() => {
            Err(CliError::Status(exit_code(status)))
        }
        (Ending::Decided, _) => Ok(()),
        // 128 + the signal that stopped pareval (`q` on the screen reads as Ctrl-C: 130).
        (Ending::Interrupted, _) => Err(CliError::Status(
            crate::signals::received().map_or(130, crate::signals::exit_status),
        )),
        // A harness that ended well but left lines pareval could not read has not given what the
        // decision waited on: bad input, exit 2 (a decided run read past none of them it needed).
        (Ending::HarnessExited(status), _) if status.success() => {
            // Rows of other systems and none of a compared one: a name given wrong (exit 0 let
            // a run that could never decide pass as one that ended well).
            let unmatched = state.compared_without_rows();
            let uncompared = state.uncompared_systems();
            if !unmatched.is_empty() && !uncompared.is_empty() {
                let quoted = |names: &[String]| {
                    names
                        .iter()
                        .map(|s| format!("'{s}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                eprintln!(
                    "pareval run: no row of {} was read; the files hold rows of {}",
                    quoted(&unmatched),
                    quoted(&uncompared)
                );
            }
            let why = if !unmatched.is_empty() && !uncompared.is_empty() {
                Some("no row of a system it compares")
            } else if unreadable.is_some() {
                Some("lines pareval could not read")
            } else if skipped.is_some() {
                Some("rows pareval left out of the decisions")
            } else if !missing.is_empty() {
                Some("a followed path that never appeared")
            } else {
                None
            };
            match why {
                None => Ok(()),
                Some(why) => {
                    eprintln!(
                        "pareval run: the harness ended before every pair was decided, with {why}: exit 2"
                    );
                    Err(CliError::Status(2))
                }
            }
        }
        (Ending::HarnessExited(status), _) => {
            // A harness a signal killed has no exit status of its own: "status 137" read as one.
            match status.signal() {
                Some(signal) => eprintln!(
                    "pareval run: the harness was killed by {}, not by pareval; pareval exits with {}, as a shell reports it",
                    signal_name(signal),
                    exit_code(status)
                ),
                None => eprintln!(
                    "pareval run: the harness exited with status {} ({how})",
                    exit_code(status)
                ),
            }
            Err(CliError::Status(exit_code(status)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::shell_words;

    #[test]
    fn the_started_line_quotes_the_words_a_shell_would_split() {
        let words = |list: &[&str]| list.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            shell_words(&words(&["bash", "harness.sh", "--out=x.csv"])),
            "bash harness.sh --out=x.csv"
        );
        // Joined with spaces this read as five words; and a quote inside is kept.
        assert_eq!(
            shell_words(&words(&["bash", "-c", "sleep 1; echo it's done", ""])),
            "bash -c 'sleep 1; echo it'\\''s done' ''"
        );
    }
}
