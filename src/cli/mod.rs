//! The command line: parses arguments, runs one command, and maps failures to exit codes
//! (0 success, 1 an unexpected failure, 2 bad input or usage). Output goes to any `impl Write` so that
//! tests can capture it; a closed pipe (e.g. `pareval info … | head`) counts as success.

pub mod args;
mod settings;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

use crate::data::write::{RecordWriter, write_frame};
use crate::data::{LoadOptions, load};
use crate::engine::detail::pair_detail;
use crate::engine::live::{LiveSettings, decide_live};
use crate::engine::record::Provenance;
use crate::engine::replay::replay_with_records;
use crate::engine::settings::{BootstrapMode, Fraction, Preset, parse_thresholds};
use crate::engine::{Control, Replay, replay};
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
}

impl From<io::Error> for CliError {
    fn from(error: io::Error) -> Self {
        CliError::Output(error)
    }
}

impl From<crate::data::LoadError> for CliError {
    fn from(error: crate::data::LoadError) -> Self {
        CliError::Input(error.to_string())
    }
}

/// Parses the process arguments, runs, and returns the exit code.
pub fn main_exit() -> ExitCode {
    let cli = match Cli::try_parse() {
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
    }
}

/// Runs one parsed command line, writing its output to `out`.
pub fn run(cli: Cli, out: &mut impl Write) -> Result<(), CliError> {
    match cli.command {
        Some(Command::Info(args)) => info(&args, out),
        Some(Command::Simulate(args)) => simulate_command(&args, out),
        Some(Command::Replay(args)) => replay_command(&args, out),
        Some(Command::Pair(args)) => pair_command(&args, out),
        Some(Command::Decide(args)) => decide_command(&args, out),
        Some(Command::Proxy(args)) => proxy_command(&args, out),
        Some(Command::Explore(args)) => {
            let options = args.load.options().map_err(CliError::Input)?;
            explore(&args.load.files, &options, &args.explore)
        }
        None => explore(&cli.files, &LoadOptions::default(), &cli.explore),
    }
}

fn info(args: &InfoArgs, out: &mut impl Write) -> Result<(), CliError> {
    let options = args.load.options().map_err(CliError::Input)?;
    let dataset = load(&args.load.files, &options)?;
    let report = InfoReport::new(&dataset);
    match args.format {
        TextOrJson::Text => report.write_text(out, TEXT_WIDTH)?,
        TextOrJson::Json => report.write_json(out)?,
    }
    Ok(())
}

fn replay_command(args: &ReplayArgs, out: &mut impl Write) -> Result<(), CliError> {
    let options = args.load.options().map_err(CliError::Input)?;
    let dataset = load(&args.load.files, &options)?;
    let named = settings::replay_settings(&args.policy, &dataset).map_err(CliError::Input)?;
    let control = Control::default();
    let mut replays = Vec::new();
    let mut writer = args
        .records
        .as_deref()
        .map(RecordWriter::create)
        .transpose()
        .map_err(CliError::Input)?;
    for item in named {
        let result = match &mut writer {
            Some(writer) => replay_with_records(&dataset, &item.settings, &control, |records| {
                writer.write(&records)
            }),
            None => replay(&dataset, &item.settings, &control),
        }
        .map_err(|e| CliError::Input(e.to_string()))?;
        replays.push((item.label, result));
    }
    if let Some(writer) = writer {
        writer.finish().map_err(CliError::Input)?;
    }
    let labelled: Vec<(String, &Replay)> = replays
        .iter()
        .map(|(label, r)| (label.clone(), r))
        .collect();
    let report = ReplayReport::new(&labelled);
    match args.format {
        OutputFormat::Text => report.write_text(out, TEXT_WIDTH)?,
        OutputFormat::Csv => report.write_csv(out)?,
        OutputFormat::Json => report.write_json(out)?,
        OutputFormat::Markdown => report.write_markdown(out)?,
    }
    Ok(())
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
            let lower = name.to_lowercase();
            let close: Vec<String> = dataset
                .systems
                .iter()
                .filter(|s| {
                    s.name.to_lowercase().contains(&lower) || lower.contains(&s.name.to_lowercase())
                })
                .take(5)
                .map(|s| format!("'{}'", s.name))
                .collect();
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

fn pair_command(args: &PairArgs, out: &mut impl Write) -> Result<(), CliError> {
    let options = args.load.options().map_err(CliError::Input)?;
    let dataset = load(&args.load.files, &options)?;
    let mut named = settings::replay_settings(&args.policy, &dataset).map_err(CliError::Input)?;
    if named.len() != 1 {
        return Err(CliError::Input("pair takes one --preset".to_string()));
    }
    let settings = named.remove(0).settings;
    let tested = system_index(&dataset, &args.tested, "--tested")?;
    let baseline = system_index(&dataset, &args.baseline, "--baseline")?;
    let budget = Fraction::parse(&args.budget, "--budget").map_err(CliError::Input)?;
    if budget.0 == 0 {
        return Err(CliError::Input("--budget must be above 0".to_string()));
    }
    let detail = pair_detail(
        &dataset,
        &settings,
        tested,
        baseline,
        args.order_index,
        budget,
    )
    .map_err(|e| CliError::Input(e.to_string()))?;
    match args.format {
        TextOrJson::Text => crate::report::pair::write_text(&detail, out, TEXT_WIDTH)?,
        TextOrJson::Json => crate::report::pair::write_json(&detail, out)?,
    }
    Ok(())
}

fn decide_command(args: &DecideArgs, out: &mut impl Write) -> Result<(), CliError> {
    let options = LoadOptions {
        columns: crate::data::ColumnMap::parse(&args.columns).map_err(CliError::Input)?,
        ..LoadOptions::default()
    };
    let dataset = load(&args.files, &options)?;
    let plan = crate::data::load_plan(&args.plan, args.group_col.as_deref())?;
    let tested = system_index(&dataset, &args.tested, "--tested")?;
    let baseline = system_index(&dataset, &args.baseline, "--baseline")?;
    let index: std::collections::HashMap<&str, usize> = plan
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    let mut outcomes = [vec![None; plan.tasks.len()], vec![None; plan.tasks.len()]];
    let mut unplanned = Vec::new();
    for (slot, system) in [tested, baseline].into_iter().enumerate() {
        for (t, name) in dataset.tasks.iter().enumerate() {
            let Some(value) = dataset.outcome(system, t) else {
                continue;
            };
            match index.get(name.as_str()) {
                Some(&i) => outcomes[slot][i] = Some(value),
                None => unplanned.push(format!("'{name}'")),
            }
        }
    }
    if !unplanned.is_empty() {
        unplanned.sort();
        unplanned.dedup();
        let more = unplanned.len().saturating_sub(5);
        unplanned.truncate(5);
        return Err(CliError::Input(format!(
            "{}: tasks with outcomes are not in the plan: {}{}",
            args.plan.display(),
            unplanned.join(", "),
            if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            }
        )));
    }
    let bootstrap = BootstrapMode::parse(&args.bootstrap).map_err(CliError::Input)?;
    let tail = Fraction::parse(&args.tail, "--tail").map_err(CliError::Input)?;
    let mut policy = Preset::parse(&args.preset)
        .map_err(CliError::Input)?
        .policy(bootstrap, tail);
    settings::apply_overrides(
        &mut policy,
        args.rule.as_deref(),
        args.coverage.as_deref(),
        bootstrap,
    )
    .map_err(CliError::Input)?;
    let budget = Fraction::parse(&args.budget, "--budget").map_err(CliError::Input)?;
    if budget.0 == 0 {
        return Err(CliError::Input("--budget must be above 0".to_string()));
    }
    let live = LiveSettings {
        policy,
        thresholds: parse_thresholds(&args.thresholds)
            .map_err(|e| CliError::Input(format!("--thresholds: {e}")))?,
        seed: args.seed,
        budget,
    };
    let mut inputs = dataset.inputs.clone();
    inputs.push(crate::dataset::InputFile {
        path: args.plan.display().to_string(),
        rows: plan.tasks.len(),
        sha256: plan.sha256.clone(),
    });
    let provenance = Provenance::new(&inputs);
    let records = decide_live(
        &plan.plan,
        (&args.tested, &args.baseline),
        &outcomes[0],
        &outcomes[1],
        &live,
        &provenance,
    );
    match args.format {
        TextOrJson::Json => {
            for record in &records {
                serde_json::to_writer(&mut *out, record).map_err(|e| CliError::Output(e.into()))?;
                writeln!(out)?;
            }
        }
        TextOrJson::Text => {
            for record in &records {
                writeln!(
                    out,
                    "{} pp: {} ({} of {} planned tasks observed, coverage {})",
                    crate::engine::settings::trim_number(record.threshold_pp),
                    record.action.name(),
                    record.observed,
                    record.total,
                    record.coverage.name()
                )?;
                writeln!(out, "  {}", record.reason)?;
            }
        }
    }
    Ok(())
}

fn proxy_command(args: &ProxyArgs, out: &mut impl Write) -> Result<(), CliError> {
    use crate::proxy::{Method, Protocol, ProxyMatrix, evaluate, folds};
    use crate::report::proxy::{ProxyReport, ProxyRow};
    let options = args.load.options().map_err(CliError::Input)?;
    let dataset = load(&args.load.files, &options)?;
    let group = args
        .group_col
        .clone()
        .or_else(|| dataset.group_column("group").map(|c| c.name.clone()));
    if let Some(target) = &args.target {
        return pace_command(args, &dataset, target, group.as_deref(), out);
    }
    let matrix = ProxyMatrix::new(&dataset, group.as_deref()).map_err(CliError::Input)?;
    let methods = args
        .method
        .iter()
        .map(|m| Method::parse(m.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CliError::Input(format!("--method: {e}")))?;
    let protocols = args
        .protocol
        .iter()
        .map(|p| Protocol::parse(p.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CliError::Input(format!("--protocol: {e}")))?;
    let sizes: Vec<(Option<f64>, usize)> = match args.size {
        Some(k) if k == 0 || k > matrix.n_tasks => {
            return Err(CliError::Input(format!(
                "--size '{k}' must be between 1 and the {} usable tasks",
                matrix.n_tasks
            )));
        }
        Some(k) => vec![(None, k)],
        None => crate::engine::settings::parse_grid(&args.budget)
            .map_err(|e| CliError::Input(format!("--budget: {e}")))?
            .iter()
            .map(|b| {
                (
                    Some(b.value()),
                    (u64::from(b.0) * matrix.n_tasks as u64).div_ceil(10_000) as usize,
                )
            })
            .collect(),
    };
    if args.seeds == 0 || args.splits == 0 {
        return Err(CliError::Input(
            "--seeds and --splits must be at least 1".to_string(),
        ));
    }
    let mut rows = Vec::new();
    for &protocol in &protocols {
        let rounds = folds(&matrix, protocol, args.splits, args.seed).map_err(CliError::Input)?;
        let largest = sizes.iter().map(|&(_, k)| k).max().unwrap_or(1);
        let paths = methods
            .contains(&Method::GreedyK)
            .then(|| crate::proxy::greedy_paths(&matrix, &rounds, largest));
        for &(budget, size) in &sizes {
            for &method in &methods {
                if method == Method::Random {
                    let runs: Vec<_> = (0..args.seeds)
                        .map(|s| {
                            evaluate(
                                &matrix,
                                method,
                                protocol,
                                size,
                                budget,
                                &rounds,
                                args.seed + u64::from(s),
                                None,
                            )
                        })
                        .collect();
                    let mean = |f: &dyn Fn(&crate::proxy::ProxyResult) -> Option<f64>| -> (Option<f64>, Option<f64>) {
                        let values: Vec<f64> = runs.iter().filter_map(f).collect();
                        if values.is_empty() {
                            return (None, None);
                        }
                        let m = values.iter().sum::<f64>() / values.len() as f64;
                        let sd = (values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / values.len() as f64).sqrt();
                        (Some(m), Some(sd))
                    };
                    let mut result = runs[0].clone();
                    let (spearman, spearman_sd) = mean(&|r| r.spearman);
                    let (mae, mae_sd) = mean(&|r| Some(r.mae_pp));
                    result.spearman = spearman;
                    result.mae_pp = mae.unwrap_or(0.0);
                    result.kendall = mean(&|r| r.kendall).0;
                    result.r2 = mean(&|r| r.r2).0;
                    result.pair_accuracy = mean(&|r| r.pair_accuracy).0;
                    result.subset_mean_spearman = mean(&|r| r.subset_mean_spearman).0;
                    result.decision_agreement = (0..3)
                        .map(|i| {
                            mean(&|r| r.decision_agreement.get(i).copied())
                                .0
                                .unwrap_or(0.0)
                        })
                        .collect();
                    rows.push(ProxyRow {
                        result,
                        seeds: Some(args.seeds),
                        spearman_sd,
                        mae_pp_sd: mae_sd,
                    });
                } else {
                    let result = evaluate(
                        &matrix,
                        method,
                        protocol,
                        size,
                        budget,
                        &rounds,
                        args.seed,
                        paths.as_deref(),
                    );
                    rows.push(ProxyRow {
                        result,
                        seeds: None,
                        spearman_sd: None,
                        mae_pp_sd: None,
                    });
                }
            }
        }
    }
    let report = ProxyReport {
        tasks: matrix.n_tasks,
        tasks_left_out: matrix.left_out,
        systems: matrix.systems.len(),
        results: rows,
    };
    match args.format {
        OutputFormat::Text => report.write_text(out, TEXT_WIDTH)?,
        OutputFormat::Csv => report.write_csv(out)?,
        OutputFormat::Json => report.write_json(out)?,
        OutputFormat::Markdown => report.write_markdown(out)?,
    }
    Ok(())
}

/// `proxy --target`: Pace's cross-benchmark prediction under leave-one-model-out, at every C of
/// `--pace-size`, against random source instances of the same size.
fn pace_command(
    args: &ProxyArgs,
    dataset: &crate::dataset::Dataset,
    target: &str,
    group: Option<&str>,
    out: &mut impl Write,
) -> Result<(), CliError> {
    use crate::proxy::pace::{PaceData, PaceSettings, predict, predict_random};
    use crate::proxy::{ProxyMatrix, ProxyResult, SystemPrediction};
    use crate::report::proxy::{ProxyReport, ProxyRow};
    let matrix = ProxyMatrix::new(dataset, group).map_err(CliError::Input)?;
    // Benchmark of every kept task: the benchmark column when it names several, else the group column.
    let (labels, of_task): (Vec<String>, Vec<u32>) = if dataset.benchmarks.len() > 1 {
        let column = ProxyMatrix::new(dataset, Some("benchmark")).map_err(CliError::Input)?;
        // Group ids index the benchmark group column's (sorted) labels, not the order of appearance.
        let labels = dataset
            .group_column("benchmark")
            .map(|c| c.labels.clone())
            .unwrap_or_default();
        (labels, column.groups)
    } else {
        match group.and_then(|g| dataset.group_column(g)) {
            Some(column) => (column.labels.clone(), matrix.groups.clone()),
            None => {
                return Err(CliError::Input(
                    "--target needs a benchmark column or a group column naming benchmarks"
                        .to_string(),
                ));
            }
        }
    };
    let find = |name: &str| labels.iter().position(|l| l == name).map(|i| i as u32);
    let target_id = find(target).ok_or_else(|| {
        CliError::Input(format!(
            "--target '{target}' is not a benchmark here; benchmarks: {}",
            labels.join(", ")
        ))
    })?;
    let sources: Vec<u32> = if args.source.is_empty() {
        (0..labels.len() as u32)
            .filter(|&b| b != target_id)
            .collect()
    } else {
        args.source
            .iter()
            .map(|s| {
                find(s.trim()).ok_or_else(|| {
                    CliError::Input(format!(
                        "--source '{s}' is not a benchmark here; benchmarks: {}",
                        labels.join(", ")
                    ))
                })
            })
            .collect::<Result<_, _>>()?
    };
    if sources.contains(&target_id) {
        return Err(CliError::Input(
            "--source must not include the --target benchmark".to_string(),
        ));
    }
    let source_tasks: Vec<usize> = (0..matrix.n_tasks)
        .filter(|&t| sources.contains(&of_task[t]))
        .collect();
    let target_tasks: Vec<usize> = (0..matrix.n_tasks)
        .filter(|&t| of_task[t] == target_id)
        .collect();
    if source_tasks.is_empty() || target_tasks.is_empty() {
        return Err(CliError::Input(
            "the target or the source pool has no task every model has".to_string(),
        ));
    }
    let models = matrix.systems.len();
    let (scores, n_tasks) = (&matrix.x, matrix.n_tasks);
    let pick = |tasks: &[usize]| -> Vec<f64> {
        (0..models)
            .flat_map(|m| tasks.iter().map(move |&t| scores[m * n_tasks + t]))
            .collect()
    };
    let (source, target_scores) = (pick(&source_tasks), pick(&target_tasks));
    let data = PaceData {
        models,
        sources: source_tasks.len(),
        source: &source,
        target: &target_scores,
        targets: target_tasks.len(),
    };
    let actual: Vec<f64> = (0..models)
        .map(|m| {
            target_scores[m * target_tasks.len()..(m + 1) * target_tasks.len()]
                .iter()
                .sum::<f64>()
                / target_tasks.len() as f64
        })
        .collect();
    let mut rows = Vec::new();
    for &size in &args.pace_size {
        if size == 0 {
            return Err(CliError::Input(
                "--pace-size values must be at least 1".to_string(),
            ));
        }
        let settings = PaceSettings {
            size,
            local_share: args.pace_local_share,
            lambda: args.pace_lambda,
            components: args.pace_components.max(1),
            bootstrap: args.pace_bootstrap.max(1),
            alpha: PaceSettings::default().alpha,
            seed: args.seed,
        };
        let pace: Vec<f64> = (0..models)
            .map(|m| {
                predict(
                    &data,
                    &(0..models).filter(|&o| o != m).collect::<Vec<_>>(),
                    m,
                    &settings,
                )
            })
            .collect();
        let random_runs: Vec<Vec<f64>> = (0..args.seeds)
            .map(|s| {
                (0..models)
                    .map(|m| {
                        predict_random(
                            &data,
                            &(0..models).filter(|&o| o != m).collect::<Vec<_>>(),
                            m,
                            size,
                            args.seed + u64::from(s),
                        )
                    })
                    .collect()
            })
            .collect();
        let result_for = |name: &'static str, predicted: &[f64]| -> ProxyResult {
            let systems: Vec<SystemPrediction> = (0..models)
                .map(|m| SystemPrediction {
                    system: matrix.systems[m].clone(),
                    predicted: predicted[m],
                    actual: actual[m],
                    subset_mean: f64::NAN,
                })
                .collect();
            ProxyResult {
                method: name,
                protocol: "loao",
                budget: None,
                size: size.min(source_tasks.len()),
                spearman: crate::proxy::stats::spearman(predicted, &actual),
                kendall: crate::proxy::stats::kendall_tau_b(predicted, &actual),
                r2: crate::proxy::stats::r_squared(predicted, &actual),
                mae_pp: crate::proxy::stats::mean_absolute_error(predicted, &actual) * 100.0,
                pair_accuracy: crate::proxy::stats::pairwise_accuracy(predicted, &actual),
                subset_mean_spearman: None,
                decision_agreement: Vec::new(),
                task_share: size.min(source_tasks.len()) as f64 / source_tasks.len() as f64,
                cost_share: None,
                rounds: 1,
                systems,
            }
        };
        rows.push(ProxyRow {
            result: result_for("pace", &pace),
            seeds: None,
            spearman_sd: None,
            mae_pp_sd: None,
        });
        let mean_prediction: Vec<f64> = (0..models)
            .map(|m| {
                random_runs.iter().map(|r| r[m]).sum::<f64>() / random_runs.len().max(1) as f64
            })
            .collect();
        let mut random = result_for("random-instances", &mean_prediction);
        let metric_over_seeds = |f: &dyn Fn(&[f64]) -> Option<f64>| -> (Option<f64>, Option<f64>) {
            let values: Vec<f64> = random_runs.iter().filter_map(|r| f(r)).collect();
            if values.is_empty() {
                return (None, None);
            }
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            (
                Some(mean),
                Some(
                    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64)
                        .sqrt(),
                ),
            )
        };
        // Metrics of the random baseline are averaged over seeds (not computed on the averaged prediction).
        let (spearman, spearman_sd) =
            metric_over_seeds(&|p| crate::proxy::stats::spearman(p, &actual));
        let (mae, mae_sd) = metric_over_seeds(&|p| {
            Some(crate::proxy::stats::mean_absolute_error(p, &actual) * 100.0)
        });
        random.spearman = spearman;
        random.mae_pp = mae.unwrap_or(0.0);
        random.kendall = metric_over_seeds(&|p| crate::proxy::stats::kendall_tau_b(p, &actual)).0;
        random.r2 = metric_over_seeds(&|p| crate::proxy::stats::r_squared(p, &actual)).0;
        random.pair_accuracy =
            metric_over_seeds(&|p| crate::proxy::stats::pairwise_accuracy(p, &actual)).0;
        rows.push(ProxyRow {
            result: random,
            seeds: Some(args.seeds),
            spearman_sd,
            mae_pp_sd: mae_sd,
        });
    }
    let report = ProxyReport {
        tasks: source_tasks.len(),
        tasks_left_out: matrix.left_out,
        systems: models,
        results: rows,
    };
    match args.format {
        OutputFormat::Text => report.write_text(out, TEXT_WIDTH)?,
        OutputFormat::Csv => report.write_csv(out)?,
        OutputFormat::Json => report.write_json(out)?,
        OutputFormat::Markdown => report.write_markdown(out)?,
    }
    Ok(())
}

fn simulate_command(args: &SimulateArgs, out: &mut impl Write) -> Result<(), CliError> {
    let config = args.config().map_err(CliError::Input)?;
    let records = simulate(&config);
    let mut frame = records
        .to_frame(&config)
        .map_err(|e| CliError::Input(format!("cannot build the records: {e}")))?;
    write_frame(&mut frame, &args.out).map_err(CliError::Input)?;
    writeln!(
        out,
        "wrote {} rows ({} systems × {} tasks × {} benchmarks × {} runs) to {}",
        frame.height(),
        config.systems,
        config.tasks,
        config.benchmarks,
        config.runs,
        args.out.display()
    )?;
    Ok(())
}

/// Opens the explorer on `files`, a session's files, or the bundled sample run.
fn explore(
    files: &[PathBuf],
    options: &LoadOptions,
    flags: &args::ExploreFlags,
) -> Result<(), CliError> {
    let config =
        crate::tui::config::load_config(flags.config.as_deref()).map_err(CliError::Input)?;
    let session = flags
        .session
        .as_deref()
        .map(crate::tui::config::load_session)
        .transpose()
        .map_err(CliError::Input)?;
    let files: Vec<PathBuf> = if !files.is_empty() {
        files.to_vec()
    } else if let Some(session) = &session {
        session.files.iter().map(PathBuf::from).collect()
    } else {
        vec![Path::new(SAMPLE_RUN).to_path_buf()]
    };
    let dataset = load(&files, options)?;
    let mouse = flags.mouse || config.mouse;
    crate::tui::run(crate::tui::ExploreOptions {
        dataset: std::sync::Arc::new(dataset),
        files: files.iter().map(|f| f.display().to_string()).collect(),
        config,
        session,
        mouse,
    })
    .map_err(CliError::Input)
}
