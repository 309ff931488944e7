//! The command line: parses arguments, runs one command, and maps failures to exit codes
//! (0 success, 1 an unexpected failure, 2 bad input or usage). Output goes to any `impl Write` so that
//! tests can capture it; a closed pipe (e.g. `pareval info … | head`) counts as success.

pub mod args;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

use crate::data::{LoadOptions, load};
use crate::report::info::InfoReport;
use crate::simulate::{simulate, write_frame};
use args::{Cli, Command, InfoArgs, SimulateArgs, TextOrJson};

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
        None => open_default(&cli.files, out),
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

/// `pareval` without a subcommand. The explorer is not built yet, so this prints the summary of the
/// records it would open and says so, rather than pretending to be an explorer.
fn open_default(files: &[PathBuf], out: &mut impl Write) -> Result<(), CliError> {
    let files: Vec<PathBuf> = if files.is_empty() {
        vec![Path::new(SAMPLE_RUN).to_path_buf()]
    } else {
        files.to_vec()
    };
    let dataset = load(&files, &LoadOptions::default())?;
    InfoReport::new(&dataset).write_text(out, TEXT_WIDTH)?;
    writeln!(out)?;
    writeln!(
        out,
        "The interactive explorer is not built yet; this is the summary of the records it will open."
    )?;
    writeln!(out, "See `pareval --help` for the commands available now.")?;
    Ok(())
}
