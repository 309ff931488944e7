//! The command line: parses arguments, runs one command, and maps failures to exit codes
//! (0 success, 1 an unexpected failure, 2 bad input or usage). Output goes to any `impl Write` so that
//! tests can capture it; a closed pipe (e.g. `pareval info … | head`) counts as success.

pub mod args;
mod halt;
mod run;
mod serve;
mod settings;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::data::import::ImportFormat;
use crate::data::write::{RecordWriter, write_simulated};
use crate::data::{LoadOptions, load};
use crate::engine::live::{LiveSettings, decide_live};
use crate::engine::settings::{BootstrapMode, BudgetMeasure, Fraction, Preset, parse_thresholds};
use crate::engine::walk::detail::pair_detail;
use crate::engine::walk::record::Provenance;
use crate::engine::walk::replay::{RecordSink, ReplayOptions};
use crate::engine::{Control, Replay, replay};
use crate::report::Render;
use crate::report::info::InfoReport;
use crate::report::replay::ReplayReport;
use crate::simulate::simulate;
use args::{
    Cli, Command, DecideArgs, InfoArgs, OutputFormat, PairArgs, ProxyArgs, ReplayArgs,
    SimulateArgs, TextOrJson,
};

/// Width of text reports: readable in an 80-column terminal.
pub const TEXT_WIDTH: usize = 80;

/// The sample run opened when no file is given, in the source tree this binary was built from.
pub const SAMPLE_RUN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample_runs/swe_repair.csv");

/// Why a command failed.
#[derive(Debug)]
pub enum CliError {
    /// Bad input or settings: the message says what and where. Exit code 2.
    Input(String),
    /// Writing the output failed. Exit code 1 (0 for a closed pipe).
    Output(io::Error),
    /// A child's exit status, passed on (`run` when the harness ends with an error first).
    Status(u8),
}

impl From<io::Error> for CliError {
    fn from(error: io::Error) -> Self {
        CliError::Output(error)
    }
}

/// Errors that mean bad input or settings: each converts to [`CliError::Input`] (exit code 2) with
/// its own message, so commands use `?` on them.
trait BadInput: std::error::Error {}

impl<E: BadInput> From<E> for CliError {
    fn from(error: E) -> Self {
        CliError::Input(error.to_string())
    }
}

impl BadInput for crate::engine::settings::SettingError {}
impl BadInput for crate::engine::ReplayError {}
impl BadInput for crate::data::error::WriteError {}
impl BadInput for crate::tui::config::ConfigError {}
impl BadInput for crate::tui::TuiError {}
impl BadInput for crate::data::ColumnMapError {}
impl BadInput for crate::simulate::SimError {}
impl BadInput for crate::proxy::ProxyError {}
impl BadInput for crate::data::LoadError {}

/// The process arguments, with `explore` put before those of a bare `pareval FILE… [OPTIONS]`: the
/// bare form is the explorer, so it takes the explorer's load options too (`--from`, `--split`,
/// `--col`, …), which clap would otherwise refuse as unexpected.
fn arguments() -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(first) = args.get(1).map(|a| a.to_string_lossy().into_owned()) {
        let asks_for_help = ["-h", "--help", "-V", "--version", "help"].contains(&first.as_str());
        let command = <Cli as clap::CommandFactory>::command();
        let names_a_command = command
            .get_subcommands()
            .any(|sub| sub.get_name() == first || sub.get_all_aliases().any(|a| a == first));
        if !asks_for_help && !names_a_command {
            args.insert(1, "explore".into());
        }
    }
    args
}

/// Parses the process arguments, runs, and returns the exit code.
pub fn main_exit() -> ExitCode {
    let cli = match Cli::try_parse_given(arguments()) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match run(cli, &mut out).and_then(|()| out.flush().map_err(CliError::from)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(CliError::Output(error)) => {
            eprintln!("error: cannot write the output: {error}");
            ExitCode::from(1)
        }
        Err(CliError::Input(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
        Err(CliError::Status(code)) => ExitCode::from(code),
    }
}

/// Writes a report in the chosen format.
fn emit(report: &impl Render, format: OutputFormat, out: &mut impl Write) -> Result<(), CliError> {
    match format {
        OutputFormat::Text => report.write_text(out, TEXT_WIDTH)?,
        OutputFormat::Csv => report.write_csv(out)?,
        OutputFormat::Json => report.write_json(out)?,
        OutputFormat::Markdown => report.write_markdown(out)?,
    }
    Ok(())
}

/// Runs one parsed command line, writing its output to `out`.
pub fn run(cli: Cli, out: &mut impl Write) -> Result<(), CliError> {
    match cli.command {
        Some(Command::Info(args)) => info(&args, out),
        Some(Command::Simulate(args)) => simulate_command(&args, out),
        Some(Command::Replay(args)) => replay_command(&args, out),
        Some(Command::Pair(args)) => pair_command(&args, out),
        Some(Command::Plan(args)) => plan_command(&args, out),
        Some(Command::Watch(args)) => watch_command(&args),
        Some(Command::Decide(args)) => decide_command(&args, out),
        Some(Command::Serve(args)) => serve::serve_command(&args, &mut io::stdin().lock(), out),
        Some(Command::Run(args)) => run::run_command(&args, out),
        Some(Command::Import(args)) => import_command(&args, out),
        Some(Command::Proxy(args)) => proxy_command(&args, out),
        Some(Command::Early(args)) => early_command(&args, out),
        Some(Command::Halt(args)) => halt::halt_command(&args, out),
        Some(Command::Explore(args)) => explore(&args.load.files, Some(&args.load), &args.explore),
        None => explore(&cli.files, None, &cli.explore),
    }
}

fn info(args: &InfoArgs, out: &mut impl Write) -> Result<(), CliError> {
    let options = args.load.options()?;
    let dataset = load(&args.load.files, &options)?;
    let report = InfoReport::new(&dataset);
    match args.format {
        TextOrJson::Text => report.write_text(out, TEXT_WIDTH)?,
        TextOrJson::Json => report.write_json(out)?,
    }
    Ok(())
}

/// Loads the records and says on stderr what the loader noted (the format each file was read as,
/// runs read as not attempted or scored 0, systems or pairs left out, tasks kept), as `decide` does:
/// the report on stdout stays what a script reads, and nothing is changed without a word.
fn load_noted(
    files: &[PathBuf],
    options: &LoadOptions,
) -> Result<crate::dataset::Dataset, CliError> {
    let dataset = load(files, options)?;
    for note in &dataset.notes {
        eprintln!("note: {note}");
    }
    Ok(dataset)
}

fn replay_command(args: &ReplayArgs, out: &mut impl Write) -> Result<(), CliError> {
    let options = args.load.options()?;
    if let Some(path) = &args.records {
        let inputs: Vec<PathBuf> = args
            .load
            .files
            .iter()
            .cloned()
            .chain(options.task_table.clone())
            .chain(options.system_table.clone())
            .chain(args.early.clone())
            .collect();
        crate::data::write::refuse_overwriting(&[("--records", path)], &inputs)?;
    }
    let mut dataset = load_noted(&args.load.files, &options)?;
    if let Some(path) = &args.early {
        let choice = crate::data::halts::EarlyChoice {
            tau: args.early_tau,
            target_precision: args.early_target,
        };
        crate::data::halts::apply_early(&mut dataset, path, choice)?;
    }
    let named = settings::replay_settings(&args.policy, &dataset)?;
    // --pairs-at is checked against the grid before the replays (it was checked after them, so a
    // budget off the grid cost the whole replay to refuse).
    let pairs_at = match &args.pairs_at {
        Some(text) => {
            let budget = Fraction::parse(text, "--pairs-at")?;
            let grid = named
                .first()
                .map(|item| item.settings.grid.clone())
                .unwrap_or_default();
            let index = grid.iter().position(|&b| b == budget).ok_or_else(|| {
                CliError::Input(format!(
                    "--pairs-at '{text}' is not a budget of the grid ({})",
                    grid.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
            Some(index)
        }
        None => None,
    };
    let control = Control::default();
    let mut replays = Vec::new();
    let mut writer = args
        .records
        .as_deref()
        .map(RecordWriter::create)
        .transpose()?;
    for item in named {
        let with_records = writer.is_some();
        let mut sink = |records: Vec<crate::engine::walk::record::DecisionRecord>| match &mut writer
        {
            Some(writer) => writer.write(&records).map_err(|e| e.to_string()),
            None => Ok(()),
        };
        let records: Option<&mut RecordSink<'_>> = with_records.then_some(&mut sink);
        let options = ReplayOptions {
            records,
            ..ReplayOptions::default()
        };
        let result = replay(&dataset, &item.settings, &control, options)?;
        replays.push((item.label, result));
    }
    if let Some(writer) = writer {
        writer.finish()?;
    }
    let labelled: Vec<(String, &Replay)> = replays
        .iter()
        .map(|(label, r)| (label.clone(), r))
        .collect();
    let mut report = ReplayReport::new(&labelled);
    report.early = dataset
        .early
        .as_ref()
        .map(crate::report::replay::EarlySource::of);
    if let Some(index) = pairs_at {
        report = report.with_pairs_at(&labelled, index);
    }
    emit(&report, args.format, out)
}

/// The index of a system by its exact name, or an error listing close names.
fn system_index(
    dataset: &crate::dataset::Dataset,
    name: &str,
    flag: &str,
) -> Result<usize, CliError> {
    dataset
        .systems
        .iter()
        .position(|s| s.name == name)
        .ok_or_else(|| {
            let close = close_system_names(dataset, name, flag);
            CliError::Input(format!(
                "{flag} '{name}' is not a system of the records{}",
                if close.is_empty() {
                    String::new()
                } else {
                    format!("; did you mean {}?", close.join(", "))
                }
            ))
        })
}

/// Up to five systems whose names hold `name` or are held by it (case aside), quoted as `flag`
/// takes them: what a mistyped name most likely meant.
fn close_system_names(dataset: &crate::dataset::Dataset, name: &str, flag: &str) -> Vec<String> {
    let lower = name.to_lowercase();
    dataset
        .systems
        .iter()
        .filter(|s| {
            s.name.to_lowercase().contains(&lower) || lower.contains(&s.name.to_lowercase())
        })
        .take(5)
        // As the flag takes it: `--baseline` splits at commas, so a comma in a name is `\,`.
        .map(|s| match flag {
            "--baseline" => format!("'{}'", s.name.replace(',', "\\,")),
            _ => format!("'{}'", s.name),
        })
        .collect()
}

fn pair_command(args: &PairArgs, out: &mut impl Write) -> Result<(), CliError> {
    let options = args.load.options()?;
    let dataset = load_noted(&args.load.files, &options)?;
    // The steps of early-stopped runs come from replay's --early, which pair does not take: the
    // setting's own message told a pair user to give it.
    if let Ok(measure @ (BudgetMeasure::Steps | BudgetMeasure::PairSteps)) =
        BudgetMeasure::parse(&args.policy.budget_by)
    {
        return Err(CliError::Input(format!(
            "--budget-by {}: budgets in steps read the steps of early-stopped runs, which only replay takes (replay RECORDS --early HALTS); pair budgets by tasks, cost or seconds",
            measure.name()
        )));
    }
    let mut named = settings::replay_settings(&args.policy, &dataset)?;
    if named.len() != 1 {
        return Err(CliError::Input("pair takes one --preset".to_string()));
    }
    let settings = named.remove(0).settings;
    let tested = system_index(&dataset, &args.tested, "--tested")?;
    let baseline = system_index(&dataset, &args.baseline, "--baseline")?;
    if baseline == tested {
        return Err(CliError::Input(format!(
            "--baseline: '{}' is the tested system; a pair is two systems",
            args.baseline
        )));
    }
    let budget = Fraction::parse_budget(&args.budget, "--budget")?;
    let detail = pair_detail(
        &dataset,
        &settings,
        tested,
        baseline,
        args.order_index,
        budget,
    )?;
    match args.format {
        TextOrJson::Text => crate::report::pair::write_text(&detail, out, TEXT_WIDTH)?,
        TextOrJson::Json => crate::report::pair::write_json(&detail, out)?,
    }
    Ok(())
}

fn decide_command(args: &DecideArgs, out: &mut impl Write) -> Result<(), CliError> {
    let mut options = args.live.load_options()?;
    // A task missing from the plan is named with the row it stands on, one of the systems decided
    // on (all of them under --family tested without --baseline).
    let baselines = args.live.baseline_names()?;
    options.task_origins = Some(if baselines.is_empty() {
        Vec::new()
    } else {
        std::iter::once(args.live.tested.clone())
            .chain(baselines)
            .collect()
    });
    let decided = match decide_records(args, &options) {
        Ok(decided) => decided,
        // A writer that flushed its buffer mid-line can leave a last line that looks whole (the
        // right count of fields) and is not ("test_chal" of "test_challenge"): where the files
        // were refused, each file that ends in such a line is read again with that line set
        // aside, and if that is read, the refusal is said beside the note that sets it aside.
        Err(CliError::Input(refused)) => {
            let files = crate::data::import::expand_paths(&args.files).unwrap_or_default();
            let mut retried = None;
            for file in files
                .iter()
                .filter(|f| crate::data::read::ends_in_a_whole_looking_line(f))
            {
                options.set_aside_last_line_of = Some(file.clone());
                if let Ok(mut decided) = decide_records(args, &options) {
                    decided.notes.push(format!(
                        "read with that line, the files were refused: {refused}"
                    ));
                    retried = Some(decided);
                    break;
                }
            }
            match retried {
                Some(decided) => decided,
                None => return Err(CliError::Input(refused)),
            }
        }
        Err(other) => return Err(other),
    };
    for note in &decided.notes {
        eprintln!("note: {note}");
    }
    write_decisions(
        out,
        args.format,
        &decided.records,
        decided.order_note.as_deref(),
        decided.reading,
        decided.several,
    )
}

/// What `decide` prints: its records and the notes for stderr.
struct Decided {
    records: Vec<crate::engine::walk::record::DecisionRecord>,
    notes: Vec<String>,
    order_note: Option<String>,
    reading: crate::engine::live::Reading,
    several: bool,
}

/// `decide`'s records on the files as `options` read them.
fn decide_records(args: &DecideArgs, options: &LoadOptions) -> Result<Decided, CliError> {
    let mut notes = Vec::new();
    // A folder of logs is read as its result files, as `watch` follows them (inside `load`).
    let dataset = load(&args.files, options)?;
    let (plan, plan_note) = load_live_plan(&args.live)?;
    notes.extend(plan_note);
    // A named system without rows yet (a run that has just started) has no outcomes: the pair
    // continues, as `watch` and `serve` wait for its rows, and a note says so. A name close to one
    // that has rows is taken for a typo and refused (under --family tested the real system would
    // otherwise become a baseline).
    let mut named = |name: &str, flag: &str| -> Result<(String, Option<usize>), CliError> {
        match system_index(&dataset, name, flag) {
            Ok(s) => Ok((name.to_string(), Some(s))),
            Err(refused) if !close_system_names(&dataset, name, flag).is_empty() => Err(refused),
            Err(_) => {
                notes.push(format!(
                    "{flag} '{name}' has no rows in the outcome files yet: read as no outcomes (a live run waits for its rows)"
                ));
                Ok((name.to_string(), None))
            }
        }
    };
    let tested = named(&args.live.tested, "--tested")?;
    let baselines: Vec<(String, Option<usize>)> = match args.live.family.as_deref() {
        Some("tested") if args.live.baseline.is_empty() => (0..dataset.n_systems())
            .filter(|&s| Some(s) != tested.1)
            .map(|s| (dataset.systems[s].name.clone(), Some(s)))
            .collect(),
        Some("tested") => {
            return Err(CliError::Input(
                "--family tested takes every other system as a baseline: leave out --baseline"
                    .to_string(),
            ));
        }
        Some(other) => {
            return Err(CliError::Input(format!(
                "--family: '{other}' is not 'tested' (a live decision is one tested system against its baselines)"
            )));
        }
        None => args
            .live
            .baseline_names()?
            .iter()
            .map(|name| named(name, "--baseline"))
            .collect::<Result<_, _>>()?,
    };
    if baselines.is_empty() {
        return Err(CliError::Input(
            "no baseline: the outcome files hold only the tested system".to_string(),
        ));
    }
    if baselines.iter().any(|(name, _)| *name == tested.0) {
        return Err(CliError::Input(format!(
            "--baseline: '{}' is the tested system",
            args.live.tested
        )));
    }
    let index: std::collections::HashMap<&str, usize> = plan
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    let systems: Vec<(String, Option<usize>)> = std::iter::once(tested).chain(baselines).collect();
    let mut outcomes = vec![vec![None; plan.tasks.len()]; systems.len()];
    let mut unplanned = Vec::new();
    for (slot, system) in systems.iter().enumerate() {
        let Some(system) = system.1 else {
            continue;
        };
        for (t, name) in dataset.tasks.iter().enumerate() {
            let Some(value) = dataset.outcome(system, t) else {
                continue;
            };
            match index.get(name.as_str()) {
                Some(&i) => outcomes[slot][i] = Some(value),
                None => unplanned.push((name.as_str(), dataset.systems[system].name.as_str())),
            }
        }
    }
    if !unplanned.is_empty() {
        // Which systems' outcomes and which files they came from, so the stray rows can be found.
        let mut owners: Vec<&str> = unplanned.iter().map(|&(_, system)| system).collect();
        owners.sort_unstable();
        owners.dedup();
        let files: Vec<String> = dataset.inputs.iter().map(|f| f.path.clone()).collect();
        let mut unplanned: Vec<&str> = unplanned.into_iter().map(|(task, _)| task).collect();
        unplanned.sort_unstable();
        unplanned.dedup();
        // An Inspect eval set's logs are read as <task>/<sample id>, and a plan drawn from the
        // sample ids does not name them so.
        let prefixed = unplanned.iter().all(|name| {
            name.split_once('/')
                .is_some_and(|(_, id)| index.contains_key(id))
        });
        let more = unplanned.len().saturating_sub(5);
        let shown: Vec<String> = unplanned
            .iter()
            .take(5)
            .map(|n| match dataset.task_origins.get(*n) {
                Some(origin) => format!("'{n}' ({origin})"),
                None => format!("'{n}'"),
            })
            .collect();
        return Err(CliError::Input(format!(
            "{}: tasks with outcomes are not in the plan: {}{} (outcomes of {} in {}){}",
            args.live.plan.display(),
            shown.join(", "),
            if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            },
            owners.join(", "),
            files.join(", "),
            if prefixed {
                "; what follows each one's '/' is a planned task: an Inspect eval set's logs are read as <task>/<sample id>, and --inspect-task-key id reads the sample ids"
            } else {
                ""
            }
        )));
    }
    let several = systems.len() > 2;
    let live = live_settings(&args.live, &plan, args.budget.as_deref(), several, None)?;
    notes.extend(live_rule_notes(&args.live, &live.policy));
    let mut inputs = dataset.inputs.clone();
    inputs.push(crate::dataset::InputFile {
        path: args.live.plan.display().to_string(),
        rows: plan.tasks.len(),
        sha256: plan.sha256.clone(),
    });
    let provenance = Provenance::new(&inputs);
    let records = if several {
        let family: Vec<(&str, Vec<Option<f64>>)> = systems[1..]
            .iter()
            .zip(&outcomes[1..])
            .map(|((name, _), o)| (name.as_str(), o.clone()))
            .collect();
        crate::engine::live::decide_live_family(
            &plan.plan,
            &systems[0].0,
            &outcomes[0],
            &family,
            &live,
            &provenance,
        )
    } else {
        decide_live(
            &plan.plan,
            (&systems[0].0, &systems[1].0),
            &outcomes[0],
            &outcomes[1],
            &live,
            &provenance,
        )
    };
    // What the loader set aside or chose (a line the harness has not finished, the format read) goes
    // to stderr: stdout stays the decision records a script reads.
    notes.extend(dataset.notes.iter().cloned());
    if let Some(note) = plan.group_disagreements(&dataset) {
        notes.push(format!("{}: {note}", args.live.plan.display()));
    }
    // Errored runs are read as their outcomes (a live run cannot leave them out, SPEC §9c): say how
    // many, as `watch` and `serve` do.
    let errored: Vec<String> = systems
        .iter()
        .filter_map(|&(ref name, s)| s.map(|s| (name, dataset.systems[s].errored)))
        .filter(|&(_, errored)| errored > 0)
        .map(|(name, errored)| format!("{name} {errored}"))
        .collect();
    if !errored.is_empty() {
        notes.push(format!(
            "runs with status error, read as their outcomes (a harness failure counts as the agent's unless the harness runs it again): {}",
            errored.join(", ")
        ));
    }
    Ok(Decided {
        records,
        notes,
        order_note: plan.order_note.clone(),
        reading: live.reading,
        several,
    })
}

/// Live decision records as `decide` prints them: JSON Lines, or text with the plan's order, what
/// the guarantee rests on and what it reads, then each record's action, counts, reason and evidence.
fn write_decisions(
    out: &mut impl Write,
    format: TextOrJson,
    records: &[crate::engine::walk::record::DecisionRecord],
    order_note: Option<&str>,
    reading: crate::engine::live::Reading,
    several: bool,
) -> Result<(), CliError> {
    match format {
        TextOrJson::Json => {
            for record in records {
                serde_json::to_writer(&mut *out, record).map_err(|e| CliError::Output(e.into()))?;
                writeln!(out)?;
            }
        }
        TextOrJson::Text => {
            if let Some(first) = records.first() {
                writeln!(
                    out,
                    "plan order {}{}; {}; {}; {}",
                    first.order,
                    order_note.map_or(String::new(), |note| format!(" ({note})")),
                    first.construction.unwrap_or(first.rule),
                    first.validity,
                    match reading {
                        crate::engine::live::Reading::PlanPrefix => {
                            "reads the plan's finished prefix (SPEC §9c)"
                        }
                        crate::engine::live::Reading::Finished => {
                            "reads every finished task (--reading finished): descriptive"
                        }
                    }
                )?;
            }
            for record in records {
                writeln!(
                    out,
                    "{}{} pp: {} ({} of {} planned tasks read{}{}, coverage {})",
                    if several {
                        format!("vs {}, ", record.baseline)
                    } else {
                        String::new()
                    },
                    crate::format::trim_number(record.threshold_pp),
                    record.action.name(),
                    record.observed,
                    record.total,
                    match record.finished {
                        Some(finished) if finished > record.observed => {
                            format!(", {finished} finished")
                        }
                        _ => String::new(),
                    },
                    // A decision made before this look names the look that made it.
                    if record.made_at() < record.observed {
                        format!(", decided at {}", record.made_at())
                    } else {
                        String::new()
                    },
                    record.coverage_words()
                )?;
                if let Some(waiting) = record
                    .waiting_on
                    .as_ref()
                    .filter(|_| record.action == crate::engine::rules::Action::Continue)
                {
                    writeln!(out, "  {}", waiting.describe())?;
                    if record.finished.is_some_and(|f| f > record.observed) {
                        writeln!(
                            out,
                            "  (the tasks finished after it wait; if it will never finish, run it again or \
                             record its outcome, e.g. 0 for a failure)"
                        )?;
                    }
                }
                writeln!(out, "  {}", record.reason)?;
                if let Some(then) = &record.reason_at_decision {
                    writeln!(
                        out,
                        "  at the look that decided ({}): {then}",
                        record.made_at()
                    )?;
                }
                match record.statistic {
                    crate::engine::rules::Statistic::Anytime {
                        wealth_promote,
                        wealth_reject,
                        p_promote,
                        p_reject,
                    } => writeln!(
                        out,
                        "  wealth promote {wealth_promote:.3} (p {}), reject {wealth_reject:.3} (p {})",
                        crate::format::p_value(p_promote),
                        crate::format::p_value(p_reject)
                    )?,
                    crate::engine::rules::Statistic::Stratified {
                        log_promote,
                        log_reject,
                        p_promote,
                        p_reject,
                    } => writeln!(
                        out,
                        "  Λ promote {log_promote:.3} (p {}), reject {log_reject:.3} (p {}), against ln(1/a) = {:.3}",
                        crate::format::p_value(p_promote),
                        crate::format::p_value(p_reject),
                        (1.0 / record.tail.unwrap_or(0.05)).ln()
                    )?,
                    _ => {}
                }
                if record.action == crate::engine::rules::Action::Continue {
                    writeln!(
                        out,
                        "  at most {} more tasks in the plan",
                        record.total - record.observed
                    )?;
                }
            }
        }
    }
    Ok(())
}

/// The rule, thresholds and budget of a live decision (`decide`, `watch`); `several` baselines make a
/// family (adjusted with holm unless --adjust says otherwise); `default_rule` applies when neither --rule
/// nor --preset is given. The order is the plan's own (its `order` column; `file` without one), never the
/// preset's: it decides which anytime construction applies and what the guarantee rests on. An
/// anytime rule has no horizon, so without `budget` it reads the whole plan; a fixed-horizon rule
/// needs one.
fn live_settings(
    live: &args::LiveArgs,
    plan: &crate::data::Plan,
    budget: Option<&str>,
    several: bool,
    default_rule: Option<&str>,
) -> Result<LiveSettings, CliError> {
    let bootstrap = BootstrapMode::parse(&live.bootstrap)?;
    let tail = settings::fraction_within(&live.tail, "--tail", settings::OPEN_UNIT)?;
    let mut policy = Preset::parse(&live.preset)?.policy(bootstrap, tail);
    policy.order = plan.order;
    let adjust = live
        .adjust
        .as_deref()
        .unwrap_or(if several { "holm" } else { "none" });
    let flags = settings::RuleOverrides {
        // A preset written on the command line brings its own rule, as in `decide`.
        rule: live
            .rule
            .as_deref()
            .or(default_rule.filter(|_| !live.given.has("preset"))),
        tuning: &live.tuning,
        monitor: None,
        looks: None,
        family: if several { "tested" } else { "pair" },
        adjust,
    };
    settings::apply_overrides(&mut policy, &flags, bootstrap)?;
    let budget = match budget {
        Some(text) => Fraction::parse_budget(text, "--budget")?,
        None if policy.rule.is_anytime() => Fraction::ONE,
        None => {
            return Err(CliError::Input(format!(
                "--budget is needed: the {} rule is fixed-horizon, valid only when read once at its limit (the anytime rule needs none: --rule anytime, which watch, serve, run and pareval-inspect take by default)",
                policy.rule.name()
            )));
        }
    };
    Ok(LiveSettings {
        policy,
        thresholds: parse_thresholds(&live.thresholds).map_err(settings::flag("--thresholds"))?,
        seed: live_seed(live.seed, plan)?,
        budget,
        reading: crate::engine::live::Reading::parse(&live.reading)
            .map_err(|e| CliError::Input(format!("--reading: {e}")))?,
    })
}

/// A live command's plan, checked against the draw it names: rows of a uniform or stratified plan
/// that are not what `pareval plan` draws from its tasks, groups and seed (an edited plan, a group
/// changed or read through another `--group-col`) are read as the `file` order, so the decisions
/// say descriptive rather than anytime-valid; the note returned says why.
fn load_live_plan(live: &args::LiveArgs) -> Result<(crate::data::Plan, Option<String>), CliError> {
    let mut plan = crate::data::load_plan(&live.plan, live.group_col.as_deref())?;
    let mut note = None;
    if let Some(why) = crate::plan::not_its_draw(&plan) {
        note = Some(format!(
            "{}: {why}: its rows are read as the order itself (file), and the decisions are descriptive, since a guarantee rests on the draw",
            live.plan.display()
        ));
        plan.order_note = Some(format!(
            "its rows are not the {} draw of its seed: read as the order itself, descriptive; see the note",
            plan.order.name()
        ));
        plan.order = crate::engine::OrderKind::File;
    }
    Ok((plan, note))
}

/// The rule flags of a live command that its policy does not read ([`settings::unused_rule_flags`]).
fn live_rule_notes(live: &args::LiveArgs, policy: &crate::engine::Policy) -> Vec<String> {
    settings::unused_rule_flags(&live.given, &[(live.preset.as_str(), policy)])
}

/// A live decision's seed: the plan's, which drew its order and which its records name (SPEC §8),
/// also seeding mc resamples; `--seed` for a plan that names none (a `file` plan), else 0.
fn live_seed(flag: Option<u64>, plan: &crate::data::Plan) -> Result<u64, CliError> {
    match (flag, plan.seed) {
        (Some(flag), Some(drawn)) if flag != drawn => Err(CliError::Input(format!(
            "--seed {flag}: the plan was drawn with seed {drawn}, and a live decision's records name the plan's seed (its mc resamples draw from it too): leave --seed out"
        ))),
        (flag, drawn) => Ok(drawn.or(flag).unwrap_or(0)),
    }
}

/// What `watch`, `serve` and `run` share: the plan, the systems compared, the settings and the
/// plan's provenance entry.
pub(crate) struct LiveSetup {
    pub plan: crate::data::Plan,
    pub baselines: crate::watch::state::Baselines,
    pub settings: LiveSettings,
    pub inputs: Vec<crate::dataset::InputFile>,
    /// `--runs`: the runs each task gets.
    pub runs: crate::data::DeclaredRuns,
    /// What the reading of the settings has to say (a plan that is not its seed's draw, rule flags
    /// the policy does not read): on stderr when read, and among watch's notices.
    pub notes: Vec<String>,
}

impl LiveSetup {
    /// `watch`'s reading of the live options (the anytime rule unless --rule says otherwise).
    pub(crate) fn new(live: &args::LiveArgs, budget: Option<&str>) -> Result<Self, CliError> {
        use crate::watch::state::Baselines;
        let (plan, plan_note) = load_live_plan(live)?;
        let baselines = match (live.family.as_deref(), live.baseline.is_empty()) {
            (Some("tested"), true) => Baselines::Everyone,
            (Some("tested"), false) => {
                return Err(CliError::Input(
                    "--family tested takes every other system as a baseline: leave out --baseline"
                        .to_string(),
                ));
            }
            (Some(other), _) => {
                return Err(CliError::Input(format!(
                    "--family: '{other}' is not 'tested' (a live decision is one tested system against its baselines)"
                )));
            }
            (None, _) => {
                let names: Vec<String> = live.baseline_names()?;
                if names.contains(&live.tested) {
                    return Err(CliError::Input(format!(
                        "--baseline: '{}' is the tested system",
                        live.tested
                    )));
                }
                Baselines::Named(names)
            }
        };
        let several = !matches!(&baselines, Baselines::Named(names) if names.len() == 1);
        let settings = live_settings(live, &plan, budget, several, Some("anytime"))?;
        let mut notes: Vec<String> = plan_note.into_iter().collect();
        notes.extend(live_rule_notes(live, &settings.policy));
        for note in &notes {
            eprintln!("note: {note}");
        }
        let inputs = vec![crate::dataset::InputFile {
            path: live.plan.display().to_string(),
            rows: plan.tasks.len(),
            sha256: plan.sha256.clone(),
        }];
        Ok(LiveSetup {
            plan,
            baselines,
            settings,
            inputs,
            runs: live.declared_runs()?,
            notes,
        })
    }

    /// An empty live state of these settings, with `inputs` as its provenance.
    pub(crate) fn state(&self, tested: &str) -> crate::watch::state::WatchState {
        crate::watch::state::WatchState::new(
            self.plan.plan.clone(),
            tested.to_string(),
            self.baselines.clone(),
            self.settings.clone(),
            Provenance::new(&self.inputs),
        )
        .with_runs(self.runs.clone())
        .with_notices(&self.notes)
    }
}

/// `pareval watch`: the live screen on followed files or a replayed record.
fn watch_command(args: &args::WatchArgs) -> Result<(), CliError> {
    let mut setup = LiveSetup::new(&args.live, args.budget.as_deref())?;
    let source = match &args.replay {
        Some(path) => {
            let options = args.live.load_options()?;
            let dataset = load(std::slice::from_ref(path), &options)?;
            setup.inputs.extend(dataset.inputs.clone());
            crate::watch::Source::Replay {
                tasks: replay_rows(&dataset, &setup.plan, path)?,
                speed: parse_speed(&args.speed)?,
                label: path.display().to_string(),
            }
        }
        None => crate::watch::Source::Follow(
            args.files.clone(),
            std::sync::Arc::new(args.live.load_options()?),
        ),
    };
    // One --col list serves the outcome files and the steps files.
    let known: Vec<&str> = crate::data::KNOWN_COLUMNS
        .iter()
        .chain(&crate::data::trajectories::STEP_COLUMNS)
        .copied()
        .collect();
    let step_columns = crate::data::ColumnMap::parse_with(&args.live.columns, &known)?;
    // Loaded, and the steps files checked, before the screen opens: a model that does not load is a
    // plain error, exit 2. A replay's restart builds a fresh panel on the same predictor.
    let predictor = args
        .early
        .as_deref()
        .map(crate::early::saved::Predictor::load)
        .transpose()?
        .map(std::sync::Arc::new);
    let early = |model: &Path, predictor: &std::sync::Arc<crate::early::saved::Predictor>| {
        crate::watch::early::EarlyWatch::new(
            model,
            predictor.clone(),
            &args.steps,
            step_columns.clone(),
        )
    };
    if let (Some(model), Some(predictor)) = (&args.early, &predictor) {
        early(model, predictor).map_err(CliError::Input)?;
    }
    let fresh = || {
        let state = setup.state(&args.live.tested);
        match (args.early.as_deref(), &predictor) {
            (Some(model), Some(predictor)) => match early(model, predictor) {
                Ok(panel) => state.with_early(panel),
                Err(_) => state,
            },
            _ => state,
        }
    };
    let until = crate::watch::Until {
        decided: args.exit_when_decided,
        stop: None,
        writers_ended: None,
    };
    crate::watch::run(source, &fresh, until).map_err(watch_error)?;
    // Ended by a signal: 128 + its number, as the explorer (the terminal is restored).
    crate::signals::received().map_or(Ok(()), |signal| {
        Err(CliError::Status(crate::signals::exit_status(signal)))
    })
}

/// A failure of the live screen as the command line reports it.
fn watch_error(error: crate::watch::WatchError) -> CliError {
    match error {
        crate::watch::WatchError::Input(message) => CliError::Input(message),
        other => CliError::Input(other.to_string()),
    }
}

/// A completed record's rows in plan order, one list per planned task (every system's run-averaged
/// outcome); tasks outside the plan are refused as in `decide`.
fn replay_rows(
    dataset: &crate::dataset::Dataset,
    plan: &crate::data::Plan,
    path: &Path,
) -> Result<Vec<Vec<crate::watch::follow::OutcomeRow>>, CliError> {
    let index = dataset.task_indices();
    let planned: std::collections::HashSet<&str> = plan.tasks.iter().map(String::as_str).collect();
    let unplanned: Vec<&str> = dataset
        .tasks
        .iter()
        .map(String::as_str)
        .filter(|t| !planned.contains(t))
        .take(5)
        .collect();
    if !unplanned.is_empty() {
        return Err(CliError::Input(format!(
            "{}: tasks of the record are not in the plan: {}",
            path.display(),
            unplanned.join(", ")
        )));
    }
    Ok(plan
        .tasks
        .iter()
        .map(|task| {
            index.get(task.as_str()).map_or(Vec::new(), |&t| {
                (0..dataset.n_systems())
                    .filter_map(|s| {
                        dataset
                            .outcome(s, t)
                            .map(|outcome| crate::watch::follow::OutcomeRow {
                                system: dataset.systems[s].name.clone(),
                                task: task.clone(),
                                run: String::new(),
                                outcome,
                                // A completed record's cell is its runs' mean: watch --replay
                                // plays outcomes, not statuses.
                                errored: false,
                            })
                    })
                    .collect()
            })
        })
        .collect())
}

/// `10x`, `10` or `0.5x`: planned tasks per second.
fn parse_speed(text: &str) -> Result<f64, CliError> {
    text.trim()
        .trim_end_matches('x')
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .ok_or_else(|| CliError::Input(format!("--speed: '{text}' is not a speed like 10x")))
}

fn proxy_command(args: &ProxyArgs, out: &mut impl Write) -> Result<(), CliError> {
    use crate::proxy::pace::{PaceQuestion, PaceSettings, leave_one_model_out};
    use crate::proxy::{
        Method, Protocol, ProxyMatrix, ProxySettings, SubsetSizes, evaluate_protocols,
    };
    let options = args.load.options()?;
    let dataset = load_noted(&args.load.files, &options)?;
    let group = dataset
        .resolve_group_column(args.group_col.as_deref())
        .map_err(|e| CliError::Input(format!("--group-col: {e}")))?;
    let report = if let Some(target) = &args.target {
        let question = PaceQuestion {
            target: target.clone(),
            sources: args.source.clone(),
            sizes: args.pace_size.clone(),
            seeds: args.seeds,
        };
        let settings = PaceSettings {
            local_share: args.pace_local_share,
            lambda: args.pace_lambda,
            components: args.pace_components,
            bootstrap: args.pace_bootstrap,
            seed: args.seed,
            ..PaceSettings::default()
        };
        leave_one_model_out(&dataset, group.as_deref(), &question, &settings)?
    } else {
        let matrix = ProxyMatrix::new(&dataset, group.as_deref())?;
        // Each list item parsed, an error prefixed by its flag.
        fn parse_list<T: PartialEq>(
            items: &[String],
            flag: &str,
            parse: impl Fn(&str) -> Result<T, crate::proxy::ProxyError>,
        ) -> Result<Vec<T>, CliError> {
            let parsed = items
                .iter()
                .map(|item| parse(item.trim()))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| CliError::Input(format!("{flag}: {e}")))?;
            // A name given twice printed its rows twice.
            if let Some(i) = (1..parsed.len()).find(|&i| parsed[..i].contains(&parsed[i])) {
                return Err(CliError::Input(format!(
                    "{flag}: '{}' is listed twice",
                    items[i].trim()
                )));
            }
            Ok(parsed)
        }
        let methods = parse_list(&args.method, "--method", Method::parse)?;
        let protocols = parse_list(&args.protocol, "--protocol", Protocol::parse)?;
        let sizes = match args.size {
            Some(k) => SubsetSizes::Count(k),
            None => SubsetSizes::Budgets(
                crate::engine::settings::parse_grid(&args.budget)
                    .map_err(settings::flag("--budget"))?,
            ),
        };
        let settings = ProxySettings {
            seeds: args.seeds,
            splits: args.splits,
            seed: args.seed,
        };
        evaluate_protocols(&matrix, &methods, &protocols, &sizes, &settings, &|| false)?
    };
    // Text, Markdown and JSON carry the notes that explain a row's blanks; a CSV table has no place
    // for them, so they go to standard error (they were dropped).
    if args.format == OutputFormat::Csv {
        for note in &report.notes {
            eprintln!("note: {note}");
        }
    }
    emit(&report, args.format, out)
}

fn early_command(args: &args::EarlyArgs, out: &mut impl Write) -> Result<(), CliError> {
    use crate::early::evaluate::sweep;
    use crate::early::features::FeatureSettings;
    use crate::early::model::ModelSettings;
    use crate::early::protocol::Protocol;
    // Checked before the trajectories are read and the folds trained.
    let delta = crate::engine::settings::Threshold::from_pp(args.delta)
        .map_err(settings::flag("--delta"))?
        .delta();
    let known: Vec<&str> = crate::data::trajectories::STEP_COLUMNS
        .iter()
        .chain(&crate::data::trajectories::OUTCOME_COLUMNS)
        .copied()
        .collect();
    let columns = crate::data::ColumnMap::parse_with(&args.col, &known)?;
    // The output files are checked before the folds are fitted (minutes on a large record), not
    // found unwritable after, nor found to have been written over the trajectories.
    let outputs: Vec<(&str, &std::path::Path)> = [
        ("--records", &args.records),
        ("--predictions", &args.predictions),
        ("--save-model", &args.save_model),
    ]
    .into_iter()
    .filter_map(|(flag, path)| path.as_deref().map(|path| (flag, path)))
    .collect();
    let inputs: Vec<std::path::PathBuf> = [&args.steps, &args.outcomes]
        .into_iter()
        .cloned()
        .chain(args.systems.clone())
        .collect();
    if args.no_sweep
        && matches!(
            args.format,
            args::OutputFormat::Csv | args::OutputFormat::Markdown
        )
    {
        return Err(CliError::Input(
            "--no-sweep prints the saved model's summary as text or json; csv and markdown are the sweep's tables".to_string(),
        ));
    }
    crate::data::write::refuse_overwriting(&outputs, &inputs)?;
    // A folder named as an output was found only after training (minutes on BALROG).
    crate::data::write::refuse_unwritable(&outputs)?;
    for (path, table) in [
        (&args.records, true),
        (&args.predictions, true),
        (&args.save_model, false),
    ] {
        if let Some(path) = path {
            writable_output(path, table)?;
        }
    }
    let data = crate::data::trajectories::load_trajectories(
        &args.steps,
        &args.outcomes,
        args.systems.as_deref(),
        &columns,
    )?;
    let protocol = match &args.protocol {
        Some(name) => Protocol::parse(name).map_err(settings::flag("--protocol"))?,
        None => Protocol::default_for(&data),
    };
    // The systems table groups systems by scaffold or model: the other protocols never read it.
    if args.systems.is_some() && matches!(protocol, Protocol::Loao | Protocol::TaskFolds) {
        eprintln!(
            "note: --systems is read by the loso and no-same-model protocols; under {} it changes nothing",
            protocol.name()
        );
    }
    let mut taus = Vec::new();
    for item in args.tau.split(',') {
        let tau: f64 = item
            .trim()
            .parse()
            .map_err(|_| CliError::Input(format!("--tau: '{}' is not a number", item.trim())))?;
        if !crate::early::halting::is_threshold(tau) {
            return Err(CliError::Input(format!(
                "--tau: '{tau}' must be in (0.5, 1]"
            )));
        }
        // Each τ gives one halting record per trajectory, and `replay --early` reads one a τ.
        if taus.contains(&tau) {
            return Err(CliError::Input(format!("--tau: {tau} is given twice")));
        }
        taus.push(tau);
    }
    let mut features = FeatureSettings {
        seed: args.seed,
        ..FeatureSettings::default()
    };
    for family in &args.without {
        match family.trim() {
            "behavioral" => features.behavioral = false,
            "actions" => features.actions = false,
            "milestones" => features.milestones = false,
            "textual" => features.textual = false,
            other => {
                return Err(CliError::Input(format!(
                    "--without: '{other}' is not one of behavioral, actions, milestones, textual"
                )));
            }
        }
    }
    // With every family left out a model has no feature: it predicted nothing ("AUC -", every τ
    // 0%) and --save-model wrote a file halt then called damaged.
    if !(features.behavioral || features.actions || features.milestones || features.textual) {
        return Err(CliError::Input(
            "--without leaves out every feature family (behavioral, actions, milestones, textual): a model needs at least one".to_string(),
        ));
    }
    if args.trees == 0 {
        return Err(CliError::Input("--trees must be at least 1".to_string()));
    }
    let model = ModelSettings {
        iterations: args.trees,
        min_steps: args.min_steps,
        seed: args.seed,
        ..ModelSettings::default()
    };
    if let Some(p) = args
        .target_precision
        .iter()
        .find(|p| !(**p > 0.0 && **p <= 1.0))
    {
        return Err(CliError::Input(format!(
            "--target-precision: '{p}' must be in (0, 1]"
        )));
    }
    if !crate::early::halting::is_threshold(args.save_tau) {
        return Err(CliError::Input(format!(
            "--save-tau: '{}' must be in (0.5, 1]",
            args.save_tau
        )));
    }
    if args.no_sweep {
        // clap lets --no-sweep through only with --save-model.
        let Some(path) = &args.save_model else {
            return Err(CliError::Input(
                "--no-sweep needs --save-model FILE".to_string(),
            ));
        };
        let summary = save_model(&data, protocol, features, model, args, path)?;
        match args.format {
            args::OutputFormat::Json => {
                serde_json::to_writer_pretty(&mut *out, &summary).map_err(io::Error::from)?;
                writeln!(out)?;
            }
            // CSV and Markdown are refused above.
            _ => summary.write_text(out)?,
        }
        return Ok(());
    }
    let predictions = crate::early::evaluate::predict_watched(
        &data,
        protocol,
        features,
        model,
        !args.target_precision.is_empty(),
        &|_, _| true,
    )
    .map_err(|e| CliError::Input(e.to_string()))?;
    if let Some(path) = &args.records {
        let records = crate::early::evaluate::halting_records(
            &data,
            &predictions,
            &taus,
            &args.target_precision,
        );
        crate::data::write::write_halting_records(&records, path)?;
    }
    if let Some(path) = &args.predictions {
        let rows = crate::early::evaluate::prediction_rows(&data, &predictions);
        crate::data::write::write_predictions(&rows, path)?;
    }
    let target = args
        .target_precision
        .iter()
        .filter_map(|&p| crate::early::evaluate::target_result(&data, &predictions, protocol, p))
        .collect();
    let report = crate::report::early::EarlyReport {
        trajectories: data.trajectories.len(),
        systems: data.systems.len(),
        results: sweep(&data, &predictions, protocol, &taus, delta),
        folds: predictions.folds,
        target,
        saved: args
            .save_model
            .as_deref()
            .map(|path| save_model(&data, protocol, features, model, args, path))
            .transpose()?,
    };
    emit(&report, args.format, out)
}

/// Whether `path` can be an output file: its folder exists and, for a table, its name says a
/// format pareval writes.
fn writable_output(path: &Path, table: bool) -> Result<(), CliError> {
    if table {
        crate::data::read::detect_format(path).map_err(|e| CliError::Input(e.to_string()))?;
    }
    if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty())
        && !folder.is_dir()
    {
        return Err(CliError::Input(format!(
            "{}: cannot write the file: the folder {} does not exist",
            path.display(),
            folder.display()
        )));
    }
    Ok(())
}

/// Trains the predictor on every trajectory and writes it (`early --save-model`).
fn save_model(
    data: &crate::early::Trajectories,
    protocol: crate::early::protocol::Protocol,
    features: crate::early::features::FeatureSettings,
    model: crate::early::model::ModelSettings,
    args: &args::EarlyArgs,
    path: &std::path::Path,
) -> Result<crate::report::early::SavedSummary, CliError> {
    use crate::early::saved::{Predictor, ThresholdChoice};
    let choice = match args.target_precision.first() {
        Some(&p) => ThresholdChoice::TargetPrecision(p),
        None => ThresholdChoice::Tau(args.save_tau),
    };
    let predictor = Predictor::train(data, protocol, features, model, choice)
        .map_err(|e| CliError::Input(e.to_string()))?;
    let text = predictor.to_json().map_err(CliError::Input)?;
    crate::data::write::write_whole(path, text.as_bytes())
        .map_err(|e| CliError::Input(format!("{}: cannot write the model: {e}", path.display())))?;
    let info = &predictor.info;
    Ok(crate::report::early::SavedSummary {
        path: path.display().to_string(),
        bytes: text.len(),
        trajectories: info.training.trajectories,
        trained_on: info.training.trained_on,
        tau_success: info.thresholds.success,
        tau_failure: info.thresholds.failure,
        target_precision: info.thresholds.target_precision,
        inner_grouping: info.inner.grouping.name(),
        inner_folds: info.inner.folds,
    })
}

fn plan_command(args: &args::PlanArgs, out: &mut impl Write) -> Result<(), CliError> {
    use crate::plan::{PlanOrder, draw_plan};
    let order = PlanOrder::parse(&args.order).map_err(|e| CliError::Input(e.to_string()))?;
    let list = crate::data::task_list::load_task_list(&args.tasks, args.group_col.as_deref())?;
    // Only neyman reads a reference record: under another order it changed nothing, unsaid.
    let reference = match (&args.reference, order) {
        (Some(path), PlanOrder::Neyman) => {
            Some(load(std::slice::from_ref(path), &LoadOptions::default())?)
        }
        (Some(path), _) => {
            eprintln!(
                "note: --reference {} is not read: only --order neyman takes each group's spread from a reference record, and this plan's order is {}",
                crate::data::error::quote(&path.display().to_string()),
                order.name()
            );
            None
        }
        (None, _) => None,
    };
    if order == PlanOrder::CheapFirst {
        // Tasks without the cost (or, with no cost column, the seconds) go last, in name order.
        let (key, name) = match (&list.cost, &list.seconds) {
            (Some(cost), _) => (Some(cost), "cost_usd"),
            (None, Some(seconds)) => (Some(seconds), "seconds"),
            (None, None) => (None, ""),
        };
        let unknown = key.map_or(0, |values| values.iter().filter(|v| v.is_nan()).count());
        if unknown > 0 {
            eprintln!(
                "note: {unknown} of {} tasks {} no {name}: cheap-first puts them last, in name order",
                list.tasks.len(),
                if unknown == 1 { "has" } else { "have" }
            );
        }
    }
    let plan = draw_plan(&list, order, args.seed, reference.as_ref())
        .map_err(|e| CliError::Input(e.to_string()))?;
    let outputs: Vec<(&str, &std::path::Path)> = [("--out", &args.out), ("--ids", &args.ids)]
        .into_iter()
        .filter_map(|(flag, path)| path.as_deref().map(|path| (flag, path)))
        .collect();
    let inputs: Vec<std::path::PathBuf> = std::iter::once(args.tasks.clone())
        .chain(args.reference.clone())
        .collect();
    crate::data::write::refuse_overwriting(&outputs, &inputs)?;
    crate::data::write::refuse_unwritable(&outputs)?;
    if let Some(path) = &args.out {
        crate::data::write::write_plan(&plan, path)?;
    }
    if let Some(path) = &args.ids
        && let Err(error) = crate::data::write::write_plan_ids(&plan, path)
    {
        // A plan without the ids list the harness was to run would be taken for a whole output.
        if let Some(plan_path) = &args.out {
            let _ = std::fs::remove_file(plan_path);
        }
        return Err(error.into());
    }
    match args.format {
        args::TextOrJson::Json => {
            let text = serde_json::to_string_pretty(&plan)
                .map_err(|e| CliError::Input(format!("cannot encode the plan: {e}")))?;
            writeln!(out, "{text}")?;
        }
        args::TextOrJson::Text => {
            crate::report::plan::write_plan_text(&plan, args.out.as_deref(), out)?
        }
    }
    Ok(())
}

/// `import`'s format and files: `FORMAT FILE…`, `--from FORMAT FILE…`, or `FILE…` alone, whose
/// format is the one their keys show (None here: the caller recognises it). A first word that is
/// neither a format nor a path there is a mistyped format, refused with the formats' names; one that
/// is a format is the format, a folder of its name is written `./openhands`.
fn import_format_and_files(
    args: &args::ImportArgs,
) -> Result<(Option<ImportFormat>, Vec<std::path::PathBuf>), CliError> {
    let mut files = args.items.clone();
    let named = match &args.from {
        Some(from) => {
            let first = &files[0];
            if !first.exists()
                && first
                    .to_str()
                    .is_some_and(|f| ImportFormat::parse(f).is_ok())
            {
                return Err(CliError::Input(format!(
                    "the format is named twice, as the first word ({}) and by --from {from}: with --from every word is a file; leave one out",
                    first.display()
                )));
            }
            Some(ImportFormat::parse(from)?)
        }
        None => {
            let first = &files[0];
            match first.to_str().map(ImportFormat::parse) {
                // A format name is the format, though a folder of that name is there (the
                // formats' own folders are often named so), unless it is the only word.
                Some(Ok(format)) if files.len() > 1 || !first.exists() => {
                    files.remove(0);
                    Some(format)
                }
                Some(Err(error)) if !first.exists() => {
                    let looks_like_a_path = first
                        .to_str()
                        .is_some_and(|text| text.contains(['/', '.', '\\']));
                    return Err(if looks_like_a_path {
                        CliError::Input(format!(
                            "{}: no such file or folder (import reads FORMAT FILE…, or FILE… whose format their keys show)",
                            first.display()
                        ))
                    } else {
                        error.into()
                    });
                }
                _ => None,
            }
        }
    };
    if files.is_empty() {
        return Err(CliError::Input(
            "import needs the result files after the format: pareval import FORMAT FILE… --out OUT"
                .to_string(),
        ));
    }
    Ok((named, files))
}

/// The one format the files' keys show (each folder's files read as the loader expands them), or
/// why not: a file no format is recognised in, or two formats.
fn recognised_format(
    files: &[std::path::PathBuf],
    settings: &crate::data::import::ImportSettings<'_>,
) -> Result<ImportFormat, CliError> {
    let mut seen: Option<(ImportFormat, std::path::PathBuf)> = None;
    for file in crate::data::import::expand_paths(files)? {
        let Some((_, format, _)) = crate::data::import::read_native(&file, None, settings)? else {
            return Err(CliError::Input(format!(
                "{}: no harness's format is recognised by its keys; name it: pareval import FORMAT FILE… (pareval import --help lists them)",
                file.display()
            )));
        };
        match &seen {
            Some((earlier, path)) if *earlier != format => {
                return Err(CliError::Input(format!(
                    "{} reads as {} and {} as {}: one import writes one format's files; import each on its own",
                    path.display(),
                    earlier.name(),
                    file.display(),
                    format.name()
                )));
            }
            Some(_) => {}
            None => seen = Some((format, file)),
        }
    }
    seen.map(|(format, _)| format)
        .ok_or_else(|| CliError::Input("no result file to import".to_string()))
}

fn import_command(args: &args::ImportArgs, out: &mut impl Write) -> Result<(), CliError> {
    let (named, files) = import_format_and_files(args)?;
    let mut options = LoadOptions {
        from: named,
        ..LoadOptions::default()
    };
    args.import.apply(&mut options)?;
    let format = match named {
        Some(format) => format,
        None => recognised_format(&files, &options.import_settings())?,
    };
    // An --out left by an earlier import inside a folder read now would be read as one of the
    // harness's files ("out.csv: not valid JSON"): refused before reading, as an --out that is a
    // file read is.
    crate::data::write::refuse_overwriting(&[("--out", &args.out)], &files)?;
    // Written into a folder it reads, the table would be read back as one of the harness's files by
    // the next import of that folder ("out.csv: not valid JSON"): refused the first time already.
    let out_folder = args
        .out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."))
        .canonicalize()
        .ok();
    if let Some(folder) = files.iter().filter(|f| f.is_dir()).find(|f| {
        f.canonicalize()
            .ok()
            .zip(out_folder.as_ref())
            .is_some_and(|(read, out)| out.starts_with(read))
    }) {
        return Err(CliError::Input(format!(
            "{}: --out is inside {}, a folder this command reads: the next import of the folder would read the table as one of the harness's files; write it elsewhere",
            args.out.display(),
            folder.display()
        )));
    }
    // Every check of the loader first: what is written always loads.
    let dataset = load(&files, &options)?;
    let (rows, files, folders) =
        crate::data::write::write_imported(&files, format, &options.import_settings(), &args.out)?;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    writeln!(
        out,
        "wrote {} ({}, {}) from {} to {}",
        plural(rows, "row"),
        plural(dataset.n_systems(), "system"),
        plural(dataset.n_tasks(), "task"),
        // A run folder (BALROG, HELM, Harbor, …) is read whole: named a folder, not a file.
        match (files, folders) {
            (files, 0) => plural(files, &format!("{} file", format.name())),
            (0, folders) => plural(folders, &format!("{} folder", format.name())),
            (files, folders) => format!(
                "{} and {}",
                plural(files, &format!("{} file", format.name())),
                plural(folders, "folder")
            ),
        },
        args.out.display()
    )?;
    for note in &dataset.notes {
        writeln!(out, "note: {note}")?;
    }
    Ok(())
}

fn simulate_command(args: &SimulateArgs, out: &mut impl Write) -> Result<(), CliError> {
    let config = args.config()?;
    // Systems take the scaffolds in turn, so fewer systems than scaffolds leave some unused: said,
    // as the option reads "distinct scaffolds among the systems".
    if config.scaffolds > config.systems {
        eprintln!(
            "note: --scaffolds {}: the {} systems take {} of them, one each",
            config.scaffolds, config.systems, config.systems
        );
    }
    let records = simulate(&config);
    let rows = write_simulated(&records, &config, &args.out)?;
    writeln!(
        out,
        "wrote {} rows ({} systems × {} tasks × {} benchmarks × {} runs) to {}",
        rows,
        config.systems,
        config.tasks,
        config.benchmarks,
        config.runs,
        args.out.display()
    )?;
    Ok(())
}

/// The bundled sample run: in the checkout the binary was built from, else in `sample_runs/` of
/// the working folder (a binary copied elsewhere, run from a checkout), else beside the binary.
fn sample_run() -> Result<PathBuf, CliError> {
    let relative = Path::new("sample_runs").join("swe_repair.csv");
    let beside_binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|folder| folder.join(&relative)));
    let places: Vec<PathBuf> = [Some(PathBuf::from(SAMPLE_RUN)), Some(relative.clone())]
        .into_iter()
        .chain([beside_binary])
        .flatten()
        .collect();
    first_file(&places)
}

/// The first of `places` that is a file, or an error naming them all.
fn first_file(places: &[PathBuf]) -> Result<PathBuf, CliError> {
    places
        .iter()
        .find(|place| place.is_file())
        .cloned()
        .ok_or_else(|| {
            CliError::Input(format!(
                "no file given, and the bundled sample run is in none of {}: give a record file",
                places
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

/// Opens the explorer on `files` read with `load`'s options, a session's files read with the load
/// flags it was saved with, or the bundled sample run.
fn explore(
    files: &[PathBuf],
    load: Option<&args::LoadArgs>,
    flags: &args::ExploreFlags,
) -> Result<(), CliError> {
    let config = crate::tui::config::load_config(flags.config.as_deref())?;
    // --preset, --thresholds, --orders and --bootstrap over the config's keys.
    let config =
        crate::tui::config::with_flags(config, flags.config_keys().map_err(CliError::Input)?)
            .map_err(CliError::Input)?;
    let session = flags
        .session
        .as_deref()
        .map(crate::tui::config::load_session)
        .transpose()?;
    let early = match (&flags.steps, &flags.outcomes) {
        (Some(steps), Some(outcomes)) => Some(early_job(&crate::tui::config::EarlySource {
            steps: steps.display().to_string(),
            outcomes: outcomes.display().to_string(),
            protocol: flags.early_protocol.clone(),
            trees: flags.early_trees,
            target: flags.early_target,
            tau: None,
        })?),
        // A session's early view comes back with its files; what is wrong with it names the
        // session and its key (it read as a flag's mistake: "--early-trees must be at least 1").
        _ if files.is_empty() => session
            .as_ref()
            .and_then(|s| s.early.as_ref())
            .map(|source| {
                early_job(source)
                    .map_err(|error| in_session(flags.session.as_deref(), "early", error))
            })
            .transpose()?,
        _ => None,
    };
    // The early view needs trajectories: a session saved on it without them opened the main view.
    if let Some(session) = &session
        && session.view.tab == crate::tui::app::Tab::Early
        && early.is_none()
    {
        return Err(in_session(
            flags.session.as_deref(),
            "view.tab",
            CliError::Input(
                "'early' needs trajectories: the session's 'early' (steps and outcomes) or --steps and --outcomes".into(),
            ),
        ));
    }
    let given = match load {
        Some(args) => (args.options()?, args.flags()),
        None => (LoadOptions::default(), Vec::new()),
    };
    // A session reopens its own files with the load flags it was saved with: files or load flags
    // given beside it would be passed over (or replace its files) without a word.
    if let Some(path) = &flags.session {
        let shown = path.display();
        if !files.is_empty() {
            return Err(CliError::Input(format!(
                "--session {shown} reopens the files it was saved with; give no FILE beside it (given: {})",
                files
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        if !given.1.is_empty() {
            return Err(CliError::Input(format!(
                "--session {shown} reopens its files with the load flags it was saved with; {} cannot be used with it",
                given.1.join(" ")
            )));
        }
    }
    let (files, (options, load_flags)): (Vec<PathBuf>, _) = if !files.is_empty() {
        (files.to_vec(), given)
    } else if let Some(outcomes) = &flags.outcomes {
        // The trajectories' outcomes are a record too (system, task, run, outcome).
        (vec![outcomes.clone()], given)
    } else if let Some(session) = &session {
        if session.files.is_empty() {
            return Err(in_session(
                flags.session.as_deref(),
                "files",
                CliError::Input(
                    "lists no file: a session reopens the records it was saved with".into(),
                ),
            ));
        }
        // The session's files as they were read: the same load flags give the same records.
        let args = args::load_args_from(&session.files, &session.load_flags).map_err(|error| {
            CliError::Input(format!(
                "{}: the session's load flags ({}): {error}",
                flags.session.as_deref().unwrap_or(Path::new("")).display(),
                session.load_flags.join(" ")
            ))
        })?;
        (
            session.files.iter().map(PathBuf::from).collect(),
            (args.options()?, session.load_flags.clone()),
        )
    } else {
        (vec![sample_run()?], given)
    };
    let dataset = crate::data::load(&files, &options).map_err(|error| {
        let error = CliError::from(error);
        // The session's own files (none given beside it, no trajectories' outcomes read instead).
        if session.is_some() && flags.outcomes.is_none() {
            in_session(flags.session.as_deref(), "files", error)
        } else {
            error
        }
    })?;
    if let (Some(session), Some(path)) = (&session, &flags.session) {
        session
            .check(&dataset)
            .map_err(|message| CliError::Input(format!("{}: {message}", path.display())))?;
    }
    let mouse = flags.mouse || config.mouse;
    let early_sources = early.as_ref().map(|(job, _)| &job.sources[..]);
    let side_inputs = side_inputs(&options, &files, early_sources);
    crate::tui::run(crate::tui::ExploreOptions {
        dataset: std::sync::Arc::new(dataset),
        files: files.iter().map(|f| f.display().to_string()).collect(),
        load_flags,
        config,
        session,
        mouse,
        early,
        side_inputs,
    })
    .map_err(CliError::from)?
    // Ended by a signal: the shell's convention, 128 + its number (the terminal is restored).
    .map_or(Ok(()), |signal| {
        Err(CliError::Status(crate::signals::exit_status(signal)))
    })
}

/// An error in what a session reopens, named as the session file's key ("s.json: key 'early':
/// --early-trees must be at least 1").
fn in_session(session: Option<&Path>, key: &str, error: CliError) -> CliError {
    match (session, error) {
        (Some(path), CliError::Input(message)) => {
            CliError::Input(format!("{}: key '{key}': {message}", path.display()))
        }
        (_, other) => other,
    }
}

/// The files read beside the records, hashed for a session so that a reopened one names a change
/// (a folder of steps is not): the task and system tables, a `--split` file of instance ids, the
/// early view's steps and outcomes (its outcomes only when they are not the records themselves).
fn side_inputs(
    options: &LoadOptions,
    records: &[PathBuf],
    early_sources: Option<&[String]>,
) -> Vec<crate::dataset::InputFile> {
    let split = options
        .split
        .as_deref()
        .and_then(crate::data::import::split_file);
    let early = early_sources
        .unwrap_or_default()
        .iter()
        .map(PathBuf::from)
        .filter(|path| !records.contains(path));
    [
        options.task_table.clone(),
        options.system_table.clone(),
        split,
    ]
    .into_iter()
    .flatten()
    .chain(early)
    .filter_map(|path| {
        let bytes = std::fs::read(&path).ok()?;
        Some(crate::dataset::InputFile {
            path: path.display().to_string(),
            rows: 0,
            sha256: crate::data::read::sha256_hex(&bytes),
        })
    })
    .collect()
}

/// The explorer's early-outcome job: the trajectories loaded and checked up front (bad input stops
/// the explorer from opening, with the same message as `pareval early`), trained in the background.
fn early_job(
    source: &crate::tui::config::EarlySource,
) -> Result<(crate::tui::early::EarlyJob, String), CliError> {
    use crate::early::protocol::Protocol;
    let data = crate::data::trajectories::load_trajectories(
        Path::new(&source.steps),
        Path::new(&source.outcomes),
        None,
        &crate::data::ColumnMap::default(),
    )?;
    let protocol = match &source.protocol {
        Some(name) => Protocol::parse(name).map_err(settings::flag("--early-protocol"))?,
        None => Protocol::default_for(&data),
    };
    if source.trees == 0 {
        return Err(CliError::Input(
            "--early-trees must be at least 1".to_string(),
        ));
    }
    if let Some(p) = source.target
        && !(p > 0.0 && p <= 1.0)
    {
        return Err(CliError::Input(format!(
            "--early-target: '{p}' must be in (0, 1]"
        )));
    }
    // The protocol's refusals (one system under loao, no scaffold under loso) before the screen opens.
    crate::early::protocol::folds(&data, protocol, 0)
        .map_err(|e| CliError::Input(e.to_string()))?;
    let describe = format!(
        "{} trajectories of {} systems, {}, {} trees per model{}",
        data.trajectories.len(),
        data.systems.len(),
        protocol.name(),
        source.trees,
        source.target.map_or(String::new(), |p| format!(
            ", thresholds also by target precision {p} (an inner split per fold)"
        ))
    );
    let job = crate::tui::early::EarlyJob {
        data: std::sync::Arc::new(data),
        protocol,
        features: crate::early::features::FeatureSettings::default(),
        model: crate::early::model::ModelSettings {
            iterations: source.trees,
            ..crate::early::model::ModelSettings::default()
        },
        delta: 0.0,
        target: source.target,
        sources: [source.steps.clone(), source.outcomes.clone()],
    };
    Ok((job, describe))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_run_is_the_first_place_that_holds_it() {
        let sample = PathBuf::from(SAMPLE_RUN);
        let gone = PathBuf::from("/nonexistent/sample_runs/swe_repair.csv");
        // A binary whose build checkout is gone finds the sample in a later place.
        assert_eq!(
            first_file(&[gone.clone(), sample.clone()]).expect("found"),
            sample
        );
        let Err(CliError::Input(message)) = first_file(&[gone.clone(), gone]) else {
            panic!("no place holds it");
        };
        assert!(
            message.contains("/nonexistent/sample_runs/swe_repair.csv"),
            "{message}"
        );
    }

    /// A session hashes every file read beside the records: a `--split` list of instance ids and
    /// the early view's outcomes were read and not hashed, so an edited one reopened without a word.
    /// A shipped split's name is no file, and outcomes that are the records are hashed as records.
    #[test]
    fn a_session_hashes_the_split_list_and_the_early_outcomes() {
        let dir = std::env::temp_dir().join(format!("pareval-side-inputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let split = dir.join("ids.txt");
        let steps = dir.join("steps.csv");
        let outcomes = dir.join("outcomes.csv");
        let records = dir.join("rows.csv");
        for (path, text) in [
            (&split, "a\nb\n"),
            (&steps, "steps\n"),
            (&outcomes, "outcomes\n"),
            (&records, "rows\n"),
        ] {
            std::fs::write(path, text).expect("write");
        }
        let sources = [steps.display().to_string(), outcomes.display().to_string()];
        let options = LoadOptions {
            split: Some(split.display().to_string()),
            ..LoadOptions::default()
        };
        let paths = |inputs: Vec<crate::dataset::InputFile>| -> Vec<String> {
            inputs.into_iter().map(|input| input.path).collect()
        };
        let hashed = side_inputs(&options, std::slice::from_ref(&records), Some(&sources));
        assert_eq!(
            paths(hashed.clone()),
            vec![
                split.display().to_string(),
                sources[0].clone(),
                sources[1].clone()
            ]
        );
        assert!(hashed.iter().all(|input| input.sha256.len() == 64));
        // The outcomes as the records (the explorer opened on trajectories alone).
        let hashed = side_inputs(&options, std::slice::from_ref(&outcomes), Some(&sources));
        assert_eq!(
            paths(hashed),
            vec![split.display().to_string(), sources[0].clone()]
        );
        let named = LoadOptions {
            split: Some("lite".to_string()),
            ..LoadOptions::default()
        };
        assert!(side_inputs(&named, &[records], None).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
