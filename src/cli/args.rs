//! Command-line arguments (clap) and their conversion into validated library settings. This is the only
//! place raw flags exist; the library never sees them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::data::{ColumnMap, LoadOptions};
use crate::simulate::{GroupStyle, SimConfig};

const ABOUT: &str =
    "Replay completed agent-benchmark records as if each evaluation had stopped early.";

const LONG_ABOUT: &str = "\
pareval answers 'is the new agent better than the old one by the margin we need, can we stop, or do we \
need more tasks?' by replaying completed public leaderboard records as if each evaluation had stopped \
early, under a decision policy fixed in advance.

Records are rows of system × task × run with an outcome in [0, 1] (CSV, TSV, JSON Lines, JSON array or \
Parquet; .gz for the text formats). With no subcommand, pareval opens the given records (or the bundled \
sample run) in the explorer.";

#[derive(Debug, Parser)]
#[command(name = "pareval", version, about = ABOUT, long_about = LONG_ABOUT, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Record files to open (default: the bundled sample run sample_runs/swe_repair.csv).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Summarise records: systems, tasks, group columns, cost and time, directed pairs.
    #[command(
        long_about = "Summarise records: systems with their task coverage, mean score, runs and cost or \
        time per pass; tasks; candidate group columns with their group sizes; whether cost and seconds are present; \
        directed pairs and their median shared overlap; and everything the loader reported. --format json gives \
        the same numbers for scripts."
    )]
    Info(InfoArgs),
    /// Write synthetic records from a seeded generative model (see `pareval simulate --help`).
    #[command(
        long_about = "Write synthetic records from a documented, seeded generative model: system ability \
        (scaffold + model + submission date), task difficulty and discrimination, per-group effects and system × \
        group interactions, optional repeated runs, cost and seconds per task and system, several benchmarks per \
        file. The same options and seed give the same file. The output format follows the extension (.csv, .tsv, \
        .jsonl, .json, .parquet, .csv.gz, …). The data are synthetic: use them for demos, tests and benchmarks."
    )]
    Simulate(SimulateArgs),
}

/// How records are read; shared by every command that loads records.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Record files (CSV, TSV, JSON Lines, JSON array, Parquet; .gz for text formats). Several files are concatenated.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,

    /// Read pareval column TARGET from the file's column SOURCE, e.g. --col system=agent_name --col outcome=resolved.
    #[arg(long = "col", value_name = "TARGET=SOURCE")]
    pub columns: Vec<String>,

    /// Task side table: a `task` column plus attribute columns (e.g. difficulty), joined by task; each attribute becomes a group column.
    #[arg(long = "tasks", value_name = "FILE")]
    pub task_table: Option<PathBuf>,

    /// System side table: a `system` column plus scaffold, model, submitted, joined by system.
    #[arg(long = "systems", value_name = "FILE")]
    pub system_table: Option<PathBuf>,

    /// Leave runs with status `error` out of the averages (by default they keep their outcome, usually 0).
    #[arg(long)]
    pub exclude_errors: bool,

    /// Drop systems whose outcomes cover less than this fraction of the tasks (e.g. 0.95).
    #[arg(long, value_name = "FRACTION")]
    pub min_system_coverage: Option<f64>,

    /// Leave out directed pairs that share fewer tasks than this (e.g. 80).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub min_shared: usize,
}

impl LoadArgs {
    pub fn options(&self) -> Result<LoadOptions, String> {
        Ok(LoadOptions {
            columns: ColumnMap::parse(&self.columns)?,
            task_table: self.task_table.clone(),
            system_table: self.system_table.clone(),
            exclude_errors: self.exclude_errors,
            min_system_coverage: self.min_system_coverage,
            min_shared: self.min_shared,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextOrJson {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub load: LoadArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GroupStyleArg {
    Repo,
    Difficulty,
    Domain,
    Split,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Output file; the extension picks the format (.csv, .tsv, .jsonl, .json, .parquet, .csv.gz, .tsv.gz, .jsonl.gz).
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,
    /// Number of systems.
    #[arg(long, default_value_t = 20)]
    pub systems: usize,
    /// Tasks per benchmark.
    #[arg(long, default_value_t = 200)]
    pub tasks: usize,
    /// Task groups per benchmark (0 writes no group column).
    #[arg(long, default_value_t = 12)]
    pub groups: usize,
    /// How group labels look.
    #[arg(long, value_enum, default_value_t = GroupStyleArg::Repo)]
    pub group_style: GroupStyleArg,
    /// Standard deviation of the per-group difficulty shift.
    #[arg(long, default_value_t = 0.8)]
    pub group_effect: f64,
    /// Benchmarks in the file (more than one adds a `benchmark` column).
    #[arg(long, default_value_t = 1)]
    pub benchmarks: usize,
    /// Repeated runs per system and task (more than one adds a `run` column).
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Distinct scaffolds among the systems.
    #[arg(long, default_value_t = 4)]
    pub scaffolds: usize,
    /// Write a per-run `cost_usd` column.
    #[arg(long)]
    pub cost: bool,
    /// Write a per-run `seconds` column.
    #[arg(long)]
    pub seconds: bool,
    /// Outcomes in [0, 1] with partial credit instead of 0/1.
    #[arg(long)]
    pub partial_credit: bool,
    /// Probability that a run is not attempted (adds a `status` column).
    #[arg(long, default_value_t = 0.0)]
    pub missing: f64,
    /// Write scaffold, model and submitted columns.
    #[arg(long)]
    pub attributes: bool,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl SimulateArgs {
    pub fn config(&self) -> Result<SimConfig, String> {
        let config = SimConfig {
            systems: self.systems,
            tasks: self.tasks,
            groups: self.groups,
            group_style: match self.group_style {
                GroupStyleArg::Repo => GroupStyle::Repo,
                GroupStyleArg::Difficulty => GroupStyle::Difficulty,
                GroupStyleArg::Domain => GroupStyle::Domain,
                GroupStyleArg::Split => GroupStyle::Split,
            },
            benchmarks: self.benchmarks,
            runs: self.runs,
            scaffolds: self.scaffolds,
            group_effect: self.group_effect,
            cost: self.cost,
            seconds: self.seconds,
            partial_credit: self.partial_credit,
            missing: self.missing,
            attributes: self.attributes,
            seed: self.seed,
        };
        config.validate()?;
        Ok(config)
    }
}
