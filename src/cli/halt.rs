//! `pareval halt MODEL STEPS…` (issue 21): load a saved early predictor, score every running
//! trajectory of the steps files and print its action; `--follow` keeps reading the files as a
//! harness appends steps (the watch follower's tail: partial lines wait, a shrunk or replaced file is
//! read anew, a bad line is named with file and line on stderr) and prints each new action once.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::CliError;
use super::args::{HaltArgs, HaltFormat};
use crate::data::ColumnMap;
use crate::data::trajectories::{STEP_COLUMNS, load_steps};
use crate::early::halting::Thresholds;
use crate::early::running::{HaltRow, RunKey, RunState, Scoreboard};
use crate::early::saved::Predictor;
use crate::watch::steps::{StepsFollower, StepsNews};

/// How often `--follow` looks at the files.
const POLL: Duration = Duration::from_millis(200);

pub fn halt_command(args: &HaltArgs, out: &mut impl Write) -> Result<(), CliError> {
    for (flag, value, low) in [
        ("--tau", args.tau, 0.5),
        ("--target-precision", args.target_precision, 0.0),
    ] {
        if let Some(x) = value
            && !(x > low && x <= 1.0)
        {
            return Err(CliError::Input(format!(
                "{flag}: '{x}' must be in ({low}, 1]"
            )));
        }
    }
    // NaN or an infinity waited for ever, a negative time ended at once.
    if let Some(seconds) = args.idle_exit
        && !(seconds.is_finite() && seconds >= 0.0)
    {
        return Err(CliError::Input(format!(
            "--idle-exit: '{seconds}' is not a number of seconds ≥ 0"
        )));
    }
    let predictor = Arc::new(Predictor::load(&args.model)?);
    let thresholds = predictor.thresholds(args.tau, args.target_precision);
    let columns = ColumnMap::parse_with(&args.col, &STEP_COLUMNS)?;
    let source = threshold_source(&predictor, args);
    if args.follow {
        return follow(args, predictor, thresholds, columns, &source, out);
    }
    let mut board = Scoreboard::new(predictor.clone(), thresholds);
    let mut origin: HashMap<RunKey, String> = HashMap::new();
    for path in &args.steps {
        let file = load_steps(path, &columns)?;
        predictor
            .check_columns(file.columns, &file.input.path)
            .map_err(CliError::Input)?;
        for (key, steps) in file.trajectories {
            if let Some(other) = origin.insert(key.clone(), file.input.path.clone()) {
                return Err(CliError::Input(format!(
                    "{}: trajectory {key} is also in {other}",
                    file.input.path
                )));
            }
            for (i, step) in steps.into_iter().enumerate() {
                board
                    .push(key.clone(), i + 1, step)
                    .map_err(|e| CliError::Input(format!("{}: {e}", file.input.path)))?;
            }
        }
    }
    note_unknown_systems(&predictor, &board.runs);
    // By system, task and run, as `early` lists trajectories: the steps file's row order is the
    // order its harness finished them in, and the same steps listed otherwise gave other bytes.
    let mut runs = std::mem::take(&mut board.runs);
    // Runs by number, as `early` orders them (as text, run 10 came before run 2).
    fn order(r: &RunState) -> (&str, &str, (bool, u64, &str)) {
        (
            &r.key.system,
            &r.key.task,
            crate::watch::state::run_order(&r.key.run),
        )
    }
    runs.sort_by(|a, b| order(a).cmp(&order(b)));
    match args.format {
        HaltFormat::Text => {
            writeln!(out, "{}", header(&predictor, &source, thresholds))?;
            write_table(out, &runs)?;
            writeln!(out, "{}", summary(&runs.iter().collect::<Vec<_>>()))?;
        }
        HaltFormat::Jsonl => {
            for run in &runs {
                write_jsonl(out, &run.row())?;
            }
        }
        HaltFormat::Csv => {
            writeln!(out, "{CSV_HEADER}")?;
            for run in &runs {
                write_csv(out, &run.row())?;
            }
        }
    }
    Ok(())
}

/// Where the thresholds come from, for the header.
fn threshold_source(predictor: &Predictor, args: &HaltArgs) -> String {
    match (args.tau, args.target_precision) {
        (Some(_), _) => "--tau".to_string(),
        (None, Some(p)) => format!(
            "target precision {p} on the saved inner split by {}",
            predictor.info.inner.grouping.name()
        ),
        (None, None) => match predictor.info.thresholds.target_precision {
            Some(p) => format!("saved, target precision {p}"),
            None => "saved".to_string(),
        },
    }
}

fn tau_text(tau: f64) -> String {
    if tau.is_finite() {
        format!("{tau:.4}")
    } else {
        "never".to_string()
    }
}

fn header(predictor: &Predictor, source: &str, thresholds: Thresholds) -> String {
    let training = &predictor.info.training;
    format!(
        "halt: model trained on {} of {} trajectories of {} systems (data {}); τ_s {}, τ_f {} ({source})",
        training.trained_on,
        training.trajectories,
        training.systems.len(),
        &training.data_sha256[..12.min(training.data_sha256.len())],
        tau_text(thresholds.success),
        tau_text(thresholds.failure),
    )
}

fn note_unknown_systems<'a>(predictor: &Predictor, runs: impl IntoIterator<Item = &'a RunState>) {
    let known = &predictor.info.training.systems;
    let mut unknown: Vec<&str> = runs
        .into_iter()
        .map(|r| r.key.system.as_str())
        .filter(|s| !known.iter().any(|k| k == s))
        .collect();
    unknown.sort_unstable();
    unknown.dedup();
    if !unknown.is_empty() {
        eprintln!(
            "note: {} system(s) not among the model's {} training systems ({}): the precision to expect on them is what early measured on held-out systems (leave one system out), and only if their steps are like the training data's (a model trained on another benchmark, whose actions and texts it never saw, has no such figure)",
            unknown.len(),
            known.len(),
            unknown.join(", ")
        );
    }
}

fn write_table(out: &mut impl Write, runs: &[RunState]) -> std::io::Result<()> {
    use crate::report::table::{Align, render};
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            let row = r.row();
            vec![
                row.system.clone(),
                row.task.clone(),
                row.run.clone(),
                row.steps.to_string(),
                format!("{:.3}", row.p_success),
                format!("{:.3}", row.p_failure),
                action_text(&row),
            ]
        })
        .collect();
    let header = [
        "system",
        "task",
        "run",
        "steps",
        "p success",
        "p failure",
        "action",
    ];
    let mut align = vec![Align::Left; 3];
    align.extend([Align::Right; 3]);
    align.push(Align::Left);
    write!(out, "{}", render(&header, &align, &rows, 160, 2))
}

fn action_text(row: &HaltRow) -> String {
    match (row.halt_step, row.halt_probability) {
        (Some(step), Some(p)) => format!(
            "{} at step {step} (p {p:.3}; {} steps after it)",
            row.action, row.steps_after_halt
        ),
        _ => row.action.to_string(),
    }
}

fn summary(runs: &[&RunState]) -> String {
    let count = |action: &str| runs.iter().filter(|r| r.action() == action).count();
    let after: usize = runs.iter().map(|r| r.steps_after_halt()).sum();
    format!(
        "{} {}: {} halt success, {} halt failure, {} continue; {after} {} run after a halting point",
        runs.len(),
        if runs.len() == 1 {
            "trajectory"
        } else {
            "trajectories"
        },
        count("halt success"),
        count("halt failure"),
        count("continue"),
        if after == 1 { "step was" } else { "steps were" },
    )
}

const CSV_HEADER: &str =
    "system,task,run,steps,p_success,p_failure,action,halt_step,halt_probability,steps_after_halt";

fn write_csv(out: &mut impl Write, row: &HaltRow) -> std::io::Result<()> {
    use crate::format::csv_field;
    let o = |x: Option<String>| x.unwrap_or_default();
    writeln!(
        out,
        "{},{},{},{},{},{},{},{},{},{}",
        csv_field(&row.system),
        csv_field(&row.task),
        csv_field(&row.run),
        row.steps,
        row.p_success,
        row.p_failure,
        row.action,
        o(row.halt_step.map(|s| s.to_string())),
        o(row.halt_probability.map(|p| p.to_string())),
        row.steps_after_halt
    )
}

fn write_jsonl(out: &mut impl Write, row: &HaltRow) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, row)?;
    writeln!(out)
}

fn follow(
    args: &HaltArgs,
    predictor: Arc<Predictor>,
    thresholds: Thresholds,
    columns: ColumnMap,
    source: &str,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let header_line = header(&predictor, source, thresholds);
    let mut follower = StepsFollower::new(&args.steps, Arc::clone(&predictor), thresholds, columns)
        .map_err(CliError::Input)?;
    match args.format {
        HaltFormat::Text => writeln!(out, "{header_line}")?,
        HaltFormat::Csv => writeln!(out, "{CSV_HEADER}")?,
        HaltFormat::Jsonl => {}
    }
    out.flush()?;
    let mut last_line = Instant::now();
    let mut idle = false;
    // A file whose columns lack one the model needs: at the start an error (exit 2); a file that
    // appears or is replaced so later is named and left unread until replaced, and the other files
    // go on (it stopped them all).
    let poll = |follower: &mut StepsFollower, first: bool| match follower.poll() {
        Ok(news) => Ok(news),
        Err(message) if !first => {
            eprintln!("error: {message} (not read until it is replaced)");
            Ok(Vec::new())
        }
        Err(message) => Err(CliError::Input(message)),
    };
    // Ctrl-C (the README's way to stop following) or a kill ends the loop, not the process: the
    // closing count is printed, then the exit status is 128 + the signal's number.
    crate::signals::catch(&crate::signals::SCREEN);
    // Lines and steps not scored: counted, the first named again at the end (a finished file with
    // them is refused, so a follow that met them ends with exit 2).
    let mut unscored = 0usize;
    let mut first_unscored: Option<String> = None;
    let mut first = true;
    while !idle && crate::signals::received().is_none() {
        let lines_before = follower.lines_read;
        let mut news = poll(&mut follower, first)?;
        first = false;
        // Idle time counts from the last line read, printed or not (a step that changes no action
        // prints nothing); a last line still waiting for its line end is no line read.
        if follower.lines_read == lines_before {
            idle = args
                .idle_exit
                .is_some_and(|idle| last_line.elapsed().as_secs_f64() >= idle);
            if idle {
                // The writers are taken to have ended: a last line without a line end is their
                // last, read as the loader reads a file that ends so (it was never read).
                follower.writers_ended();
                news.extend(poll(&mut follower, false)?);
            }
        } else {
            last_line = Instant::now();
        }
        for item in news {
            match item {
                StepsNews::Changed { row, .. } => write_followed(out, args.format, &row)?,
                StepsNews::Problem(message) => {
                    eprintln!("{message}");
                    unscored += 1;
                    first_unscored.get_or_insert(message);
                }
                StepsNews::Reread(file) => eprintln!(
                    "note: {file} shrank or was replaced: its trajectories are read again from the start"
                ),
                StepsNews::Waiting(message) => eprintln!("note: {message}"),
            }
        }
        for notice in follower.presence.notices() {
            eprintln!("note: {notice}");
        }
        out.flush()?;
        if !idle {
            std::thread::sleep(POLL);
        }
    }
    // Steps that came before their turn and whose turn never came: the gap a finished file is
    // refused for.
    for gap in follower.gaps() {
        eprintln!("{gap}");
        unscored += 1;
        first_unscored.get_or_insert(gap);
    }
    if args.format == HaltFormat::Text {
        let runs: Vec<&RunState> = follower.all_runs().collect();
        writeln!(out, "{}", summary(&runs))?;
    }
    // As a finished file's scoring says it (the README's promise for both).
    note_unknown_systems(&predictor, follower.all_runs());
    out.flush()?;
    if let Some(signal) = crate::signals::received() {
        return Err(CliError::Status(crate::signals::exit_status(signal)));
    }
    // A path read and then removed is no typo: only those never seen are named.
    let never: Vec<String> = follower
        .presence
        .never_seen()
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    if !never.is_empty() {
        return Err(CliError::Input(format!(
            "{} never appeared: nothing was read from it (is the path the one the harness writes?)",
            never.join(", ")
        )));
    }
    match first_unscored {
        Some(first) => Err(CliError::Input(format!(
            "{unscored} line{} or step{} of the followed files {} not scored (the first: {first})",
            if unscored == 1 { "" } else { "s" },
            if unscored == 1 { "" } else { "s" },
            if unscored == 1 { "was" } else { "were" },
        ))),
        None => Ok(()),
    }
}

fn write_followed(out: &mut impl Write, format: HaltFormat, row: &HaltRow) -> std::io::Result<()> {
    match format {
        HaltFormat::Jsonl => write_jsonl(out, row),
        HaltFormat::Csv => write_csv(out, row),
        HaltFormat::Text => match (row.halt_step, row.halt_probability) {
            (Some(step), Some(p)) => writeln!(
                out,
                "{} {} run {}: {} at step {step} (p {p:.3})",
                row.system, row.task, row.run, row.action
            ),
            _ => writeln!(
                out,
                "{} {} run {}: continue at step {} (p success {:.3}, p failure {:.3})",
                row.system, row.task, row.run, row.steps, row.p_success, row.p_failure
            ),
        },
    }
}
