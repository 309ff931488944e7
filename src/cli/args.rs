//! Command-line arguments (clap) and their conversion into validated library settings. This is the only
//! place raw flags exist; the library never sees them.

use std::path::PathBuf;

use std::collections::BTreeSet;

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

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
sample run) in the explorer, as `pareval explore` does, with every option of it (the load options such \
as --from, --split and --col included).";

#[derive(Debug, Parser)]
#[command(name = "pareval", version, about = ABOUT, long_about = LONG_ABOUT, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Record files to open (default: the bundled sample run sample_runs/swe_repair.csv).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub explore: ExploreFlags,
}

impl Cli {
    /// Parses a command line as [`Parser::try_parse_from`] does, and keeps which flags it gave (see
    /// [`Given`]) in the policy flags of the commands that note a flag their policy does not read.
    pub fn try_parse_given<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = Cli::command().try_get_matches_from(args)?;
        let mut cli = Cli::from_arg_matches(&matches)?;
        let given = Given::from_matches(&matches);
        match &mut cli.command {
            Some(Command::Replay(args)) => args.policy.given = given,
            Some(Command::Pair(args)) => args.policy.given = given,
            Some(Command::Decide(args)) => args.live.given = given,
            Some(Command::Watch(args)) => args.live.given = given,
            Some(Command::Serve(args)) => args.live.given = given,
            Some(Command::Run(args)) => args.live.given = given,
            _ => {}
        }
        Ok(cli)
    }
}

/// The flags written on the command line, by clap id (the field's name, e.g. `bet_cap`). A flag with
/// a default cannot otherwise be told from one left out, and a note that a flag is not used should
/// name only the flags the user wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given(BTreeSet<String>);

impl Given {
    /// The flags of `matches` and of its subcommand (where a subcommand's flattened flags are) that
    /// came from the command line rather than a default.
    pub fn from_matches(matches: &ArgMatches) -> Given {
        let mut given = BTreeSet::new();
        let mut level = Some(matches);
        while let Some(matches) = level {
            for id in matches.ids() {
                if matches.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
                {
                    given.insert(id.as_str().to_string());
                }
            }
            level = matches.subcommand().map(|(_, sub)| sub);
        }
        Given(given)
    }

    /// Whether the flag of this clap id was written on the command line.
    pub fn has(&self, id: &str) -> bool {
        self.0.contains(id)
    }
}

/// A `--thresholds` list: a leading minus is welcome (a non-inferiority margin), the next flag is
/// not (`--thresholds --orders 10` took '--orders' for the list and '10' for a file).
fn threshold_list(text: &str) -> Result<String, String> {
    if text.starts_with("--") {
        Err(format!(
            "'{text}' is a flag, not a list of thresholds: give them in percentage points, e.g. --thresholds -5,0,5"
        ))
    } else {
        Ok(text.to_string())
    }
}

/// Explorer options, for `pareval [FILE…]` and `pareval explore`.
#[derive(Debug, Args, Default)]
pub struct ExploreFlags {
    /// Config file (default: $XDG_CONFIG_HOME/pareval/config.toml, else the platform's config folder).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Reopen a saved session (its settings, seed and view; its files, read with the load flags it was
    /// saved with, and its early view's trajectories: files, load flags, --steps, --outcomes and
    /// the --early-* flags beside it are refused).
    #[arg(long, value_name = "FILE")]
    pub session: Option<PathBuf>,
    /// Enable the mouse: click or drag the budget slider, scroll the pair table.
    #[arg(long)]
    pub mouse: bool,
    /// Open with this policy preset (as the config's `preset`; `p` switches it inside).
    #[arg(long, value_name = "NAME", conflicts_with = "session")]
    pub preset: Option<String>,
    /// Open with these thresholds in percentage points (as the config's `thresholds`; a negative one
    /// is a non-inferiority margin).
    #[arg(
        long,
        value_name = "PP,…",
        conflicts_with = "session",
        allow_hyphen_values = true,
        value_parser = threshold_list
    )]
    pub thresholds: Option<String>,
    /// Orders per directed pair (as the config's `orders`).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        conflicts_with = "session"
    )]
    pub orders: Option<u32>,
    /// Bootstrap tails: exact or mc:B (as the config's `bootstrap`).
    #[arg(long, value_name = "MODE", conflicts_with = "session")]
    pub bootstrap: Option<String>,
    /// Step-level trajectories for the early-outcome view (SPEC §11 steps table; with --outcomes).
    /// Without record files, the outcomes table is also the record the other views replay. Not
    /// with --session, which reopens its own.
    // Refused beside --session before the pairing with --outcomes is checked: --steps alone
    // beside it was told to add --outcomes, then refused.
    #[arg(
        long,
        value_name = "FILE",
        requires = "outcomes",
        conflicts_with = "session"
    )]
    pub steps: Option<PathBuf>,
    /// The trajectories' outcomes table (system, task, run, outcome, steps; with --steps).
    #[arg(
        long,
        value_name = "FILE",
        requires = "steps",
        conflicts_with = "session"
    )]
    pub outcomes: Option<PathBuf>,
    /// Protocol of the early-outcome view: loao, loso, no-same-model, task-folds (default as in
    /// `pareval early`).
    // Each early-view flag conflicts with --session itself: clap drops a requirement (here
    // --steps) that conflicts with an argument given, so beside --session it was silently unread.
    #[arg(
        long,
        value_name = "NAME",
        requires = "steps",
        conflicts_with = "session"
    )]
    pub early_protocol: Option<String>,
    /// Trees per model in the early-outcome view.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        default_value_t = 50,
        requires = "steps",
        conflicts_with = "session"
    )]
    pub early_trees: usize,
    /// The early-outcome view also chooses τ_s and τ_f by this target precision on each fold's
    /// training side and shows what they achieve on the test folds (as `early --target-precision`;
    /// training fits three more models per fold).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "P",
        requires = "steps",
        conflicts_with = "session"
    )]
    pub early_target: Option<f64>,
}

impl ExploreFlags {
    /// The flags that set what the explorer's config sets, as config keys (checked by the config's
    /// own rules when applied).
    pub fn config_keys(&self) -> Result<crate::tui::config::ConfigFile, String> {
        let thresholds = match &self.thresholds {
            None => None,
            Some(text) => Some(
                text.split(',')
                    .map(|pp| {
                        pp.trim().parse::<f64>().map_err(|_| {
                            format!(
                                "--thresholds: '{}' is not a number of percentage points",
                                pp.trim()
                            )
                        })
                    })
                    .collect::<Result<Vec<f64>, String>>()?,
            ),
        };
        Ok(crate::tui::config::ConfigFile {
            preset: self.preset.clone(),
            thresholds,
            orders: self.orders,
            bootstrap: self.bootstrap.clone(),
            ..Default::default()
        })
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open records in the interactive explorer (the same as `pareval FILE…`).
    #[command(
        long_about = "Open records in the interactive explorer: scrub a budget slider, switch thresholds, \
        group columns, task orders and policies, and watch the unresolved-rate curves, per-pair decisions and \
        coverage gaps redraw while a background worker replays. With --steps and --outcomes it adds the \
        early-outcome view (and, without record files, replays the outcomes table). Press ? inside for the keys.",
        mut_arg("files", |a| a.required(false))
    )]
    Explore(ExploreArgs),
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
    /// Replay completed records as if every evaluation had stopped early (the paper's tables).
    #[command(
        long_about = "Replay completed records as if every evaluation had stopped early. For every directed \
        pair, order and budget of the grid, the policy decides promote, reject or abstain at that budget; the \
        decisions are checked against the completed record. Prints, per preset and threshold, the minimum \
        sufficient budget and a per-budget table of false promotion (FPR) and false rejection (FRR) rates \
        conditional on the completed decision, coverage failure, and the unresolved rate with its 95% interval."
    )]
    Replay(ReplayArgs),
    /// Why did one directed pair promote, reject or abstain? The full decision record of one case.
    #[command(
        long_about = "The full decision record of one case (tested, baseline, order index, budget) in words \
        and as JSON: the coverage table with the missing groups, the margin against the threshold, the tails \
        against the cutoff; the action at every budget of the grid for that order; and the shares of actions over \
        all orders."
    )]
    Pair(PairArgs),
    /// Proxy benchmarks: which task subsets predict the full score, and how well.
    #[command(
        long_about = "Choose a subset of tasks on training systems only, predict each held-out system's full \
        score from its outcomes on the subset (ridge regression, alpha = 1), and report Spearman, Kendall tau-b, R², \
        MAE in percentage points, pairwise ranking accuracy and the agreement of the proxy's pair decisions with the \
        completed record, under leave-one-system-out, within-scaffold, leave-one-scaffold-out, random 80/20 splits \
        or a temporal expanding window. Uses the tasks every system has an outcome for."
    )]
    Proxy(ProxyArgs),
    /// Early outcome prediction inside a task: halt each run once its outcome is predictable.
    #[command(
        long_about = "Early outcome prediction inside a task (SPEC §11): from a steps table and an outcomes \
        table, train a success and a failure model (gradient-boosted trees on prefix features, Platt-calibrated) \
        on each fold of a protocol, halt each test trajectory at the first prefix where either model's probability \
        reaches τ, and report coverage, accuracy, each model's precision and AUC, the steps eliminated and how \
        the early leaderboard agrees with the full one, for every τ."
    )]
    Early(EarlyArgs),
    /// Score running trajectories with a saved early predictor: halt success, halt failure or continue.
    #[command(
        long_about = "Score trajectories that are still running with a predictor saved by `pareval early … \
        --save-model FILE`: for every (system, task, run) in the steps files, both calibrated probabilities after \
        its last step so far and the action (halt success, halt failure or continue; a trajectory halts at the \
        first step where a probability reaches its threshold). --follow keeps reading the files as a harness \
        appends steps and prints each new action once."
    )]
    Halt(HaltArgs),
    /// Watch a live run: follow the outcome files and redraw the decisions as rows arrive.
    #[command(
        long_about = "The explorer's live mode. Follows outcome files while a harness writes them (appended \
        CSV or JSON Lines rows, or a folder to which such files are added; polled twice a second, a partly \
        written line waits for its newline (named after two seconds), a truncated or replaced file is read \
        again) and redraws, per \
        baseline, the running estimate with its anytime band against δ, both wealths, the coverage so far \
        and the action, with a notice when a pair decides. The decisions are `decide`'s on the same rows. \
        --replay RECORDS plays a completed record through the same screen in plan order."
    )]
    Watch(WatchArgs),
    /// Plan a live run: the seeded order in which a harness should run the tasks.
    #[command(
        long_about = "Draw the order in which a harness should run the tasks of a live evaluation, with the \
        replay's own order builder: uniform, stratified (every prefix meets the groups' coverage quotas), neyman \
        (shares by each group's spread in a --reference record) or cheap-first (by cost, then seconds; not a \
        random sample). From a task list (a task column and optionally group, cost_usd, seconds) or a records \
        file (its tasks are taken). --out writes position, task, group, cost and the settings; `decide` reads \
        the file as its --plan (N, groups and order)."
    )]
    Plan(PlanArgs),
    /// Decide a live run: one decision record from the outcomes of two systems so far.
    #[command(
        long_about = "The live service contract for fixed-horizon policies. Given the planned task list \
        (--plan: a task column and optionally a group column; it fixes N and the groups), the budget limit and \
        the outcome records of two systems so far, write one decision record per threshold: continue before the \
        limit; promote, reject or abstain at it. A fixed-horizon rule is valid only when read once, at its limit."
    )]
    Decide(DecideArgs),
    /// The live service for a harness integration: JSON Lines requests in, decisions out.
    #[command(
        long_about = "One long-running process that a harness integration (integrations/inspect) talks to: \
        one JSON request a line on standard input, exactly one JSON reply a line on standard output. \
        {\"op\":\"plan\"} gives the task ids in plan order; {\"op\":\"check\",\"tasks\":[…]} the ids not in \
        the plan and the planned ids not given; {\"op\":\"outcome\",\"system\":…,\"task\":…,\"run\":…,\"outcome\":…} \
        takes one finished sample and answers the state after it (decided, usable and finished counts, what \
        the prefix waits on, each pair's action, a summary); {\"op\":\"decide\"} adds the full decision \
        records. The decisions are `watch`'s and `decide`'s on the same rows. FILE… are completed records of \
        the baseline (its last full run); a baseline may instead stream its outcomes too."
    )]
    Serve(ServeArgs),
    /// Run a harness and end it once every pair is decided.
    #[command(
        long_about = "Starts COMMAND (after --) in its own process group, follows the files and folders named \
        as `watch` does, and once every pair is decided at every threshold ends the harness (SIGINT to its \
        process group, SIGTERM after --grace seconds, SIGKILL after as long again), prints the decision \
        records and how many planned tasks were not run, and exits 0. When the harness ends first, its exit \
        status is passed on (after the records read so far)."
    )]
    Run(RunArgs),
    /// Read a harness's result files and write the canonical record table.
    #[command(
        long_about = "Read the result files an evaluation harness wrote (swebench, swebench-leaderboard, inspect, lm-eval (also lmms-eval), tau-bench, tau2, terminal-bench, \
        harbor, openhands, helm, evalplus, bigcodebench, metr, aider, lighteval, hal, osworld, appworld, mle-bench, agentlab, theagentcompany, bfcl, promptfoo, deepeval, agentdojo, openai-evals, livebench, evalscope, alpaca-eval, livecodebench, mt-bench, arena-hard, human-eval, opencompass, agentbench, hle, wildbench, swebench-pro, arc-agi, vlmevalkit, mcpmark, balrog, verifiers, nemo-skills) and write the canonical record table (system, task, run, outcome, status, source, and group, \
        cost_usd, seconds where the files have them) to --out, in the format its extension names (.csv, .jsonl, \
        .parquet, …). The rows pass every check of the loader first. Errors the harness scored as failures keep \
        their outcome with status error."
    )]
    Import(ImportArgs),
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The native format, then the result files. The format may be left out where the files'
    /// keys show it, as `info` recognises them (one format for all the files), or given as
    /// `--from FORMAT`: swebench, swebench-leaderboard, inspect, lm-eval (also lmms-eval), tau-bench, tau2,
    /// terminal-bench, harbor, openhands, helm, evalplus, bigcodebench, metr, aider, lighteval, hal,
    /// osworld, appworld, mle-bench, agentlab, theagentcompany, bfcl, promptfoo, deepeval,
    /// agentdojo, openai-evals, livebench, evalscope, alpaca-eval, livecodebench, mt-bench, arena-hard, human-eval, opencompass, agentbench, hle, wildbench, swebench-pro, arc-agi, vlmevalkit, mcpmark, balrog, verifiers, nemo-skills.
    /// Result files: a Terminal-Bench run folder is accepted for its results.json, a Harbor job or
    /// trial folder for its result.json, a HELM run or suite folder, a HAL or aider run folder, an
    /// OSWorld result folder, an AgentLab study folder, a HAL leaderboard database, a
    /// TheAgentCompany results folder, a BFCL project, score or model folder, a DeepEval results
    /// folder, an AgentDojo logdir, an AgentBench output, agent or task folder.
    #[arg(value_name = "[FORMAT] PATH", required = true)]
    pub items: Vec<PathBuf>,
    /// The native format, as the other commands name it (instead of the first word).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Output file; the extension picks the format.
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,
    #[command(flatten)]
    pub import: ImportFlags,
}

/// Choices some harness formats need; shared by `import` and every command that loads records.
#[derive(Debug, Args)]
pub struct ImportFlags {
    /// The SWE-bench split a leaderboard results.json is scored against: lite, verified, or a file
    /// of the split's instance ids (one per line, or a CSV with an instance_id column) for any other
    /// (default: from metadata.yaml, the folder names, or the one split holding every listed
    /// instance); for swebench.com's leaderboards.json, the board read (bash-only, Verified, …;
    /// default: the first with per-instance results); for OSWorld, a test set file
    /// (evaluation_examples/test_all.json: domain → example ids) whose tasks without an example
    /// folder are read as not attempted; for LiveBench, a release (its date, e.g. 2024-11-25): the
    /// questions released on or before it and not removed by it, as its leaderboard reads them; for
    /// Humanity's Last Exam, a file of the dataset's questions that were run (a CSV with an id
    /// column and, for groups, category; or one id per line) whose questions without a judged
    /// entry are read as errors scored 0, as its Accuracy counts them; for SWE-Bench Pro (and a
    /// SWE-bench or Multi-SWE-bench run report), a file of the split's instance ids whose instances
    /// the file does not list are read as 0, as a leaderboard scores them; for ARC-AGI, a task list
    /// (one task id per line) whose tasks without a submission are read as 0.
    #[arg(long, value_name = "SPLIT")]
    pub split: Option<String>,
    /// The lm-eval (or lmms-eval) filter whose sample lines are read (default: none when present,
    /// else the first).
    #[arg(long, value_name = "FILTER")]
    pub filter: Option<String>,
    /// The Inspect scorer whose value is the outcome (default: the log's first scorer).
    #[arg(long, value_name = "SCORER")]
    pub scorer: Option<String>,
    /// An Inspect scorer's, OpenAI Evals, EvalScope or OpenCompass metric's, or a verifiers reward's range MIN:MAX, mapped onto [0, 1] (scores
    /// outside [0, 1] are refused without it; Inspect's grades C, P, I, yes/no stay on [0, 1]); MT-Bench's and WildBench's ratings' range (default 0:10).
    #[arg(long, value_name = "MIN:MAX")]
    pub score_scale: Option<String>,
    /// The system of every row of the files given, whatever they say (any format): for a harness
    /// file that names its system wrongly or not at all.
    #[arg(long, value_name = "NAME")]
    pub system_name: Option<String>,
    /// The key of an Inspect score whose value is a dict (e.g. "Step Correctness"); without it such a
    /// score is refused with its keys. For an lmms-eval metric whose per-sample value is a dict:
    /// the key holding its score (default `score`).
    #[arg(long, value_name = "KEY")]
    pub score_key: Option<String>,
    /// How an Inspect sample becomes a task: auto (`<task>/<sample id>` for an eval set's logs,
    /// whose sample ids repeat across tasks; the sample id otherwise), id, or task-id.
    #[arg(long, value_name = "auto|id|task-id", default_value = "auto")]
    pub inspect_task_key: String,
    /// Which EvalPlus tests decide a sample: plus (base and plus tests both pass: HumanEval+,
    /// MBPP+, the leaderboard's headline) or base (the original benchmark's tests).
    #[arg(long, value_name = "plus|base", default_value = "plus")]
    pub evalplus_tests: String,
    /// The per-instance stat whose value is the outcome (HELM: default the scenario's main metric
    /// from HELM's schemas, e.g. exact_match; lighteval: default the task's first metric; MLE-bench:
    /// any_medal, or gold_medal, silver_medal, bronze_medal, above_median; lm-eval and lmms-eval: a
    /// metric of the sample lines, e.g. acc_norm (default acc, else exact_match, else the line's first
    /// listed metric; lmms-eval: the task's first configured metric with a per-sample score); TheAgentCompany:
    /// resolved, full completion, or partial, the paper's partial completion score; promptfoo:
    /// success, or score, the weighted assertion score; DeepEval: a metric's name, its score;
    /// AgentDojo: utility, or security, whether the agent resisted the injection; OpenAI Evals: a
    /// key of the metrics events, e.g. f1_score; EvalScope: a key of the scores' values; AlpacaEval: the annotator of a results tree; MT-Bench: the judge model; OpenCompass: a per-sample
    /// field of the details, default correct, is_correct or cascade_correct; AgentBench: a number or
    /// true/false of a sample's result, default result, reward, progress or the agent's seat's win).
    #[arg(long, value_name = "NAME")]
    pub metric: Option<String>,
    /// An aider exercise passes when its tests pass within this many tries (2: pass_rate_2, the
    /// leaderboard's headline; 1: the first try).
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub aider_tries: u32,
}

impl LiveArgs {
    /// The `--baseline` names: each value split at its commas, `\,` standing for a comma inside a
    /// name (a system named "old, v2" could not be given: it was split into 'old' and ' v2'), each
    /// name trimmed. A name given twice is refused: it was kept twice, a family of 3 for two
    /// baselines, and the adjusted decisions moved.
    pub fn baseline_names(&self) -> Result<Vec<String>, super::CliError> {
        let names: Vec<String> = self
            .baseline
            .iter()
            .flat_map(|raw| split_names(raw))
            .collect();
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(super::CliError::Input(format!(
                    "--baseline: '{name}' is named twice (a baseline is one comparison; name each once)"
                )));
            }
        }
        Ok(names)
    }

    /// How the live commands load records and read harness files: the column names, the columns left
    /// out or keying systems, and the import choices (`--metric`, `--aider-tries`, …), the same for
    /// `decide`, `watch`, `serve` and `run`.
    pub fn load_options(&self) -> Result<LoadOptions, super::CliError> {
        let mut options = LoadOptions {
            columns: crate::data::ColumnMap::parse(&self.columns)?,
            ignore_columns: self.ignore_columns.clone(),
            system_key: self.system_key.clone(),
            live: true,
            runs: self.declared_runs()?,
            ..LoadOptions::default()
        };
        self.import.apply(&mut options)?;
        Ok(options)
    }

    /// `--runs`, read.
    pub fn declared_runs(&self) -> Result<crate::data::DeclaredRuns, super::CliError> {
        crate::data::DeclaredRuns::parse(&self.runs)
            .map_err(|message| super::CliError::Input(format!("--runs: {message}")))
    }
}

impl ImportFlags {
    /// Fills the import choices of `options`.
    pub fn apply(&self, options: &mut LoadOptions) -> Result<(), super::CliError> {
        options.split = self.split.clone();
        options.filter = self.filter.clone();
        options.scorer = self.scorer.clone();
        if self
            .system_name
            .as_deref()
            .is_some_and(|name| name.trim().is_empty())
        {
            return Err(super::CliError::Input(
                "--system-name must name a system (it is empty)".to_string(),
            ));
        }
        options.system_name = self.system_name.clone();
        options.score_key = self.score_key.clone();
        options.metric = self.metric.clone();
        // Given only when not the default (2, the leaderboard's): the importers read None as it,
        // and the loader notes a choice given that no importer read.
        options.aider_tries = (self.aider_tries != 2).then_some(self.aider_tries);
        options.inspect_task_key =
            crate::data::import::InspectTaskKey::parse(&self.inspect_task_key)
                .map_err(super::CliError::Input)?;
        options.evalplus_tests = crate::data::import::EvalPlusTests::parse(&self.evalplus_tests)
            .map_err(super::CliError::Input)?;
        options.score_scale = self
            .score_scale
            .as_deref()
            .map(parse_score_scale)
            .transpose()
            .map_err(super::CliError::Input)?;
        Ok(())
    }
}

/// `MIN:MAX` with MIN < MAX, both finite.
pub fn parse_score_scale(text: &str) -> Result<(f64, f64), String> {
    let bad = || format!("--score-scale '{text}' must be MIN:MAX with MIN < MAX (e.g. 0:10)");
    let (low, high) = text.split_once(':').ok_or_else(bad)?;
    let (low, high): (f64, f64) = (
        low.trim().parse().map_err(|_| bad())?,
        high.trim().parse().map_err(|_| bad())?,
    );
    if low.is_finite() && high.is_finite() && low < high {
        Ok((low, high))
    } else {
        Err(bad())
    }
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
    #[arg(long, allow_negative_numbers = true, value_name = "FRACTION")]
    pub min_system_coverage: Option<f64>,

    /// Leave out directed pairs that share fewer tasks than this (e.g. 80).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        default_value_t = 1
    )]
    pub min_shared: usize,

    /// Treat each file without a `benchmark` column as one benchmark named after the file (for
    /// cross-benchmark proxies from separate files).
    #[arg(long)]
    pub benchmark_per_file: bool,
    /// Read the files as a harness's native results: swebench, swebench-leaderboard, inspect,
    /// lm-eval, tau-bench, tau2, terminal-bench, harbor, openhands, helm, evalplus, bigcodebench, metr,
    /// aider, lighteval, hal, osworld, appworld, mle-bench, agentlab, theagentcompany, bfcl, promptfoo, deepeval, agentdojo, openai-evals, livebench, evalscope, alpaca-eval, livecodebench, mt-bench, arena-hard, human-eval, opencompass, agentbench, hle, wildbench, swebench-pro, arc-agi, vlmevalkit, mcpmark, balrog, verifiers, nemo-skills (default: canonical records, or a native .json, .jsonl or .eval file
    /// recognised by its keys).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    #[command(flatten)]
    pub import: ImportFlags,
    /// Leave these columns out of the records (repeat or separate by commas), e.g. a scaffold column that
    /// differs between a system's rows.
    #[arg(long = "ignore-col", value_name = "COLUMN", value_delimiter = ',')]
    pub ignore_columns: Vec<String>,
    /// Columns that identify a system, starting with system: `system,scaffold` makes each scaffold of a
    /// system its own system, named "system (scaffold)".
    #[arg(long, value_name = "system,COLUMN,…", value_delimiter = ',')]
    pub system_key: Vec<String>,
    /// Keep only the tasks of these groups of a group column, e.g. group=django,flask (the explorer's
    /// group filter, G); repeated for another column, a task must be in both.
    #[arg(long, value_name = "COLUMN=LABEL,…")]
    pub keep_groups: Vec<String>,
}

impl LoadArgs {
    /// The load flags as the command line spells them, those that differ from their defaults, in
    /// one `--flag=value` token each: what a session keeps and an exported command passes so that
    /// they load the same records as the explorer did ([`load_args_from`] reads them back).
    pub fn flags(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut valued = |flag: &str, value: &str| out.push(format!("--{flag}={value}"));
        for column in &self.columns {
            valued("col", column);
        }
        if let Some(path) = &self.task_table {
            valued("tasks", &path.display().to_string());
        }
        if let Some(path) = &self.system_table {
            valued("systems", &path.display().to_string());
        }
        if let Some(fraction) = self.min_system_coverage {
            valued("min-system-coverage", &fraction.to_string());
        }
        if self.min_shared != 1 {
            valued("min-shared", &self.min_shared.to_string());
        }
        if let Some(format) = &self.from {
            valued("from", format);
        }
        if !self.ignore_columns.is_empty() {
            valued("ignore-col", &self.ignore_columns.join(","));
        }
        if !self.system_key.is_empty() {
            valued("system-key", &self.system_key.join(","));
        }
        for groups in &self.keep_groups {
            valued("keep-groups", groups);
        }
        let import = &self.import;
        let optional = [
            ("split", &import.split),
            ("filter", &import.filter),
            ("scorer", &import.scorer),
            ("score-scale", &import.score_scale),
            ("system-name", &import.system_name),
            ("score-key", &import.score_key),
            ("metric", &import.metric),
        ];
        for (flag, value) in optional {
            if let Some(value) = value {
                valued(flag, value);
            }
        }
        if import.inspect_task_key != "auto" {
            valued("inspect-task-key", &import.inspect_task_key);
        }
        if import.evalplus_tests != "plus" {
            valued("evalplus-tests", &import.evalplus_tests);
        }
        if import.aider_tries != 2 {
            valued("aider-tries", &import.aider_tries.to_string());
        }
        if self.exclude_errors {
            out.push("--exclude-errors".to_string());
        }
        if self.benchmark_per_file {
            out.push("--benchmark-per-file".to_string());
        }
        out
    }

    pub fn options(&self) -> Result<LoadOptions, super::CliError> {
        let from = self
            .from
            .as_deref()
            .map(crate::data::import::ImportFormat::parse)
            .transpose()
            .map_err(|e| super::CliError::Input(format!("--from: {e}")))?;
        let mut options = LoadOptions {
            from,
            columns: ColumnMap::parse(&self.columns)?,
            task_table: self.task_table.clone(),
            system_table: self.system_table.clone(),
            exclude_errors: self.exclude_errors,
            min_system_coverage: self.min_system_coverage,
            min_shared: self.min_shared,
            benchmark_per_file: self.benchmark_per_file,
            ignore_columns: self.ignore_columns.clone(),
            system_key: self.system_key.clone(),
            keep_groups: self.keep_groups.clone(),
            ..LoadOptions::default()
        };
        self.import.apply(&mut options)?;
        Ok(options)
    }
}

/// The load flags alone, to read back what [`LoadArgs::flags`] wrote.
#[derive(Debug, Parser)]
#[command(name = "load", no_binary_name = true)]
pub struct LoadOnly {
    #[command(flatten)]
    pub load: LoadArgs,
}

/// The load arguments of `files` with `flags` as [`LoadArgs::flags`] wrote them (a session's).
pub fn load_args_from(files: &[String], flags: &[String]) -> Result<LoadArgs, String> {
    let load = LoadOnly::try_parse_from(files.iter().chain(flags))
        .map(|only| only.load)
        .map_err(|error| {
            // --help or --version print the parser's own help as an "error", whose first line
            // was this module's doc comment.
            use clap::error::ErrorKind;
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                return "--help and --version are no load flags".to_string();
            }
            // clap's first line says what is wrong; its usage and help lines name a parser the
            // user never typed.
            let text = error.to_string();
            let first = text.lines().next().unwrap_or_default();
            first.strip_prefix("error: ").unwrap_or(first).to_string()
        })?;
    // A file among the flags (a hand-edited session's) was read as one more file and passed
    // over: the session opens its own `files`.
    if let Some(stray) = load
        .files
        .get(files.len()..)
        .and_then(|extra| extra.first())
    {
        return Err(format!(
            "'{}' is no load flag; the files are the session's 'files'",
            stray.display()
        ));
    }
    Ok(load)
}

#[derive(Debug, Args)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub explore: ExploreFlags,
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
pub enum OutputFormat {
    Text,
    Csv,
    Json,
    Markdown,
}

/// The rule's tuning and the coverage gate: what `replay`, `pair`, the explorer and the live
/// commands share beside the preset and the rule.
#[derive(Debug, Args)]
pub struct RuleTuning {
    /// The anytime rule's bet cap c: no task can cost more than this share of the wealth.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "C",
        default_value = "0.5"
    )]
    pub bet_cap: String,
    /// The stratified anytime rule's (SPEC §9a) least bet scale c_min.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "C",
        default_value = "0.1"
    )]
    pub bet_min: String,
    /// The stratified anytime rule's (SPEC §9a) largest bet scale c_max.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "C",
        default_value = "0.9"
    )]
    pub bet_max: String,
    /// Override the preset's coverage gate.
    #[arg(long, value_name = "on|off")]
    pub coverage: Option<String>,
    /// The coverage share q (SPEC §9a): the gate asks for r_g = max(1, min(n_g, ⌊q·k·n_g/N⌋)) tasks of
    /// each group; 1 is the paper's rule, below 1 lets a uniform plan's decisions through sooner (the
    /// gate only delays decisions, so validity is unchanged).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "Q",
        default_value = "1"
    )]
    pub coverage_share: String,
    /// The bootstrap with no discordant task: abstain (default) or literal (the plain bootstrap, which
    /// then rejects for thresholds ≥ 0).
    #[arg(long, value_name = "abstain|literal", default_value = "abstain")]
    pub degenerate: String,
}

/// The policy and replay settings shared by `replay`, `pair` and the explorer.
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// Policy preset(s): primary, forced-uniform, forced-group, paired-normal, neyman, serfling, cost-forced,
    /// cost-aware, anytime (stratified order, the §9a anytime rule, watched after every task), anytime-uniform
    /// (uniform order, the §9 anytime rule) and peeking (primary
    /// watched sequentially at the grid's budgets: the invalid negative control). Several
    /// (comma-separated or repeated) are replayed side by side.
    #[arg(
        long,
        value_name = "NAME",
        value_delimiter = ',',
        default_value = "primary"
    )]
    pub preset: Vec<String>,
    /// Override the preset's task order: uniform, stratified, neyman, cost, pair-cost, file.
    #[arg(long, value_name = "ORDER")]
    pub order: Option<String>,
    /// Override the preset's rule: bootstrap, paired-normal, serfling, forced, anytime.
    #[arg(long, value_name = "RULE")]
    pub rule: Option<String>,
    #[command(flatten)]
    pub tuning: RuleTuning,
    /// Override the preset's monitoring: per-look (each budget a separate stopping point fixed in
    /// advance) or sequential (watched at every look, first decision kept).
    #[arg(long, value_name = "per-look|sequential")]
    pub monitor: Option<String>,
    /// Where a sequential monitor looks: every (after every task) or grid (at the grid's budgets).
    #[arg(long, value_name = "every|grid")]
    pub looks: Option<String>,
    /// Directed pairs decided together: pair (each alone), tested (a tested system against every
    /// baseline) or all.
    #[arg(long, value_name = "pair|tested|all", default_value = "pair")]
    pub family: String,
    /// Multiplicity adjustment over the family at each budget: none, bonferroni, holm, bh, e-bh.
    #[arg(long, value_name = "METHOD", default_value = "none")]
    pub adjust: String,
    /// Thresholds in percentage points; a negative one is a non-inferiority margin (−2: promote a
    /// system at most 2 pp worse).
    #[arg(
        long,
        value_name = "PP,…",
        default_value = "0,5,10",
        allow_hyphen_values = true,
        value_parser = threshold_list
    )]
    pub thresholds: String,
    /// Orders per directed pair.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        default_value_t = 500
    )]
    pub orders: u32,
    /// Random seed for orders and bootstrap resamples.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    pub seed: u64,
    /// Bootstrap tails: exact (B → ∞, without sampling) or mc:B (B resamples; mc alone means 200).
    #[arg(long, value_name = "MODE", default_value = "mc:200")]
    pub bootstrap: String,
    /// Tail cutoff a for the bootstrap, paired-normal and Serfling rules.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "A",
        default_value = "0.05"
    )]
    pub tail: String,
    /// Budget grid: a list (0.1,0.25,0.5) or a range START:STOP:STEP.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "GRID",
        default_value = "0.05:0.95:0.05"
    )]
    pub grid: String,
    /// What a budget counts: tasks, seconds, pair-seconds, cost, pair-cost, steps, pair-steps (steps with --early).
    #[arg(long, value_name = "MEASURE", default_value = "tasks")]
    pub budget_by: String,
    /// Group column for coverage and group-aware orders ("none" for one group). Default: `group` when present.
    #[arg(long, value_name = "COLUMN")]
    pub group_col: Option<String>,
    /// Target for the conditional false promotion and false rejection rates.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "F",
        default_value = "0.05"
    )]
    pub alpha: String,
    /// Target for the coverage-failure rate.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "F",
        default_value = "0.05"
    )]
    pub gamma: String,
    /// Target for the unresolved (abstain) rate.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "F",
        default_value = "0.25"
    )]
    pub eta: String,
    /// Which of these flags the command line wrote ([`Cli::try_parse_given`]).
    #[arg(skip)]
    pub given: Given,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Early-stopped outcomes: the halting records of `pareval early --records` for this record. The
    /// observed outcomes become the early ones, the truth stays the record's, budgets may count steps
    /// (--budget-by steps or pair-steps), and the savings are reported.
    #[arg(long, value_name = "FILE")]
    pub early: Option<PathBuf>,
    /// The τ of the halting records to read (needed when the file holds several).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "TAU",
        requires = "early"
    )]
    pub early_tau: Option<f64>,
    /// Read the halting records of a target precision instead (`early --records … --target-precision
    /// P`: each fold's own τ_s and τ_f).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "P",
        requires = "early",
        conflicts_with = "early_tau"
    )]
    pub early_target: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Also write every decision record (JSON Lines, CSV or Parquet by extension).
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// Also report every pair (shares of orders promoting, rejecting, abstaining, wrong) and how often
    /// each group is missed at this budget of the grid: the explorer's tables. CSV output is then the
    /// pair table.
    #[arg(long, value_name = "B", allow_negative_numbers = true)]
    pub pairs_at: Option<String>,
}

#[derive(Debug, Args)]
pub struct PairArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// The tested system (A).
    #[arg(long, value_name = "SYSTEM")]
    pub tested: String,
    /// The baseline system (B).
    #[arg(long, value_name = "SYSTEM")]
    pub baseline: String,
    /// The budget of the case (joins the grid if it is not on it).
    #[arg(
        long,
        value_name = "B",
        allow_negative_numbers = true,
        default_value = "0.25"
    )]
    pub budget: String,
    /// Which of the pair's orders (0-based).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "R",
        default_value_t = 0
    )]
    pub order_index: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
}

#[derive(Debug, Args)]
pub struct EarlyArgs {
    /// The steps table: system, task, run, step and optional action, role, observation_chars,
    /// is_error, tokens_in, tokens_out, text, cost_usd, seconds.
    pub steps: PathBuf,
    /// The outcomes table: system, task, run, outcome, steps.
    pub outcomes: PathBuf,
    /// A systems table (system, scaffold, model) for the loso and no-same-model protocols.
    #[arg(long, value_name = "FILE")]
    pub systems: Option<PathBuf>,
    /// Rename columns: --col target=source (repeatable).
    #[arg(long = "col", value_name = "TARGET=SOURCE")]
    pub col: Vec<String>,
    /// loao (leave one system out), loso (leave one scaffold out), no-same-model, task-folds. Default:
    /// loao, or task-folds for a single system.
    #[arg(long)]
    pub protocol: Option<String>,
    /// Halting thresholds τ (τ_s = τ_f), one or a list.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "TAU,…",
        default_value = "0.75,0.8,0.85,0.9,0.95,0.99"
    )]
    pub tau: String,
    /// Trees per model (on BALROG: 50 trees AUC 0.83 in about 100 s; 100 trees 0.835 in about 150 s).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        default_value_t = 50
    )]
    pub trees: usize,
    /// Trajectories shorter than this are left out of training.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "T",
        default_value_t = 10
    )]
    pub min_steps: usize,
    /// Switch feature families off: behavioral, actions, milestones, textual (comma-separated).
    #[arg(long, value_name = "FAMILY,…", value_delimiter = ',')]
    pub without: Vec<String>,
    /// Write one row per tested trajectory and τ (halting step, model that fired, its probability,
    /// predicted and true outcome, steps and tokens saved) to FILE (.csv, .jsonl, .parquet, …).
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// Write both calibrated probabilities at every prefix of every tested trajectory (fold, system,
    /// task, run, step, steps, p_success, p_failure, outcome) to FILE.
    #[arg(long, value_name = "FILE")]
    pub predictions: Option<PathBuf>,
    /// Pair-decision threshold for the leaderboard agreement, in percentage points.
    #[arg(
        long,
        value_name = "PP",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub delta: f64,
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    pub seed: u64,
    /// Also choose τ_s and τ_f separately on each fold's training side (an inner split grouped as the
    /// protocol groups) as the smallest thresholds whose halts reach precision P there, and report what
    /// they achieve on the test folds; one P or a list. With --save-model, the saved thresholds are
    /// chosen the same way on all trajectories, for the first P.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "P,…",
        value_delimiter = ','
    )]
    pub target_precision: Vec<f64>,
    /// Train on every trajectory and save the predictor (features, both models, calibrators,
    /// thresholds, the inner split's operating curves, the training data's hashes) to FILE, for
    /// `pareval halt` and `watch --early`.
    #[arg(long, value_name = "FILE")]
    pub save_model: Option<PathBuf>,
    /// With --save-model: the τ saved for both models when no --target-precision is given (with
    /// one, the saved thresholds are chosen by it: the two are refused together).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "TAU",
        default_value_t = 0.95,
        requires = "save_model",
        conflicts_with = "target_precision"
    )]
    pub save_tau: f64,
    /// With --save-model: skip the protocol's sweep and only train and save (the sweep's outputs
    /// and settings are refused beside it, rather than left unread).
    #[arg(
        long,
        requires = "save_model",
        conflicts_with_all = ["records", "predictions", "tau", "delta"]
    )]
    pub no_sweep: bool,
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HaltFormat {
    Text,
    Jsonl,
    Csv,
}

#[derive(Debug, Args)]
pub struct HaltArgs {
    /// A predictor saved by `pareval early … --save-model FILE`.
    pub model: PathBuf,
    /// Steps tables of running trajectories (system, task, run, step and the step columns the model
    /// was trained with); with --follow, .csv, .tsv or .jsonl files a harness appends to.
    #[arg(required = true)]
    pub steps: Vec<PathBuf>,
    /// Halt when either probability reaches τ (both models), instead of the saved thresholds.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "TAU",
        conflicts_with = "target_precision"
    )]
    pub tau: Option<f64>,
    /// Choose τ_s and τ_f from the saved inner split as the smallest thresholds whose halts reached
    /// precision P there (a model that never reached it never halts).
    #[arg(long, allow_negative_numbers = true, value_name = "P")]
    pub target_precision: Option<f64>,
    /// Keep reading the files as steps are appended, and print each trajectory's action when it is
    /// first seen and when it halts (Ctrl-C stops).
    #[arg(long)]
    pub follow: bool,
    /// With --follow: stop after this many seconds without a new line (for scripts); a last line
    /// still without a line end is then read as the file's last.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "SECONDS",
        requires = "follow"
    )]
    pub idle_exit: Option<f64>,
    /// Rename columns: --col target=source (repeatable).
    #[arg(long = "col", value_name = "TARGET=SOURCE")]
    pub col: Vec<String>,
    #[arg(long, value_enum, default_value_t = HaltFormat::Text)]
    pub format: HaltFormat,
}

#[derive(Debug, Args)]
pub struct ProxyArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    /// Selection methods: random, midrange, midrange-k, easiest-k, hardest-k, stratified-k, greedy-k.
    #[arg(
        long,
        value_name = "METHOD,…",
        value_delimiter = ',',
        default_value = "midrange-k,random,greedy-k",
        conflicts_with = "target"
    )]
    pub method: Vec<String>,
    /// Protocols: loao, within-scaffold, loso, split, temporal.
    #[arg(
        long,
        value_name = "PROTOCOL,…",
        value_delimiter = ',',
        default_value = "loao",
        conflicts_with = "target"
    )]
    pub protocol: Vec<String>,
    /// Subset size as a share of tasks: one budget (0.25), a list or a sweep START:STOP:STEP.
    #[arg(
        long,
        value_name = "B",
        allow_hyphen_values = true,
        default_value = "0.25",
        conflicts_with = "target"
    )]
    pub budget: String,
    /// Subset size as a task count (instead of --budget).
    #[arg(long, value_name = "K", conflicts_with_all = ["budget", "target"])]
    pub size: Option<usize>,
    /// Seeds of the random method (the spread over seeds is reported).
    #[arg(long, allow_negative_numbers = true, default_value_t = 10)]
    pub seeds: u32,
    /// Random 80/20 splits of the split protocol.
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = 100,
        conflicts_with = "target"
    )]
    pub splits: u32,
    /// Seed for splits and random and stratified selection.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    pub seed: u64,
    /// Group column for stratified-k (default: group when present).
    #[arg(long, value_name = "COLUMN")]
    pub group_col: Option<String>,
    /// Cross-benchmark prediction (Pace): the benchmark whose mean score is predicted. Benchmarks are the
    /// `benchmark` column's values, or the group column's when there is none.
    #[arg(long, value_name = "BENCHMARK")]
    pub target: Option<String>,
    /// Benchmarks whose instances form the source pool (default: every other benchmark).
    #[arg(
        long,
        value_name = "BENCHMARK,…",
        value_delimiter = ',',
        requires = "target"
    )]
    pub source: Vec<String>,
    /// Pace: source instances per new model (C), one or more.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "C,…",
        value_delimiter = ',',
        default_value = "25,50,100,200",
        requires = "target"
    )]
    pub pace_size: Vec<usize>,
    /// Pace: share of C for the local (|Spearman|) subset.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "Q",
        default_value_t = 0.5,
        requires = "target"
    )]
    pub pace_local_share: f64,
    /// Pace: ensemble weight λ of the local prediction.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "L",
        default_value_t = 0.5,
        requires = "target"
    )]
    pub pace_lambda: f64,
    /// Pace: SVD components.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "N",
        default_value_t = 5,
        requires = "target"
    )]
    pub pace_components: usize,
    /// Pace: bootstrap resamples of the target instances.
    #[arg(
        long,
        value_name = "B",
        allow_negative_numbers = true,
        default_value_t = 50,
        requires = "target"
    )]
    pub pace_bootstrap: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The task list (task and optional group, cost_usd, seconds columns) or a records file.
    #[arg(value_name = "FILE")]
    pub tasks: PathBuf,
    /// uniform, stratified, neyman (with --reference), cheap-first.
    #[arg(long, value_name = "ORDER", default_value = "stratified")]
    pub order: String,
    /// Group column for the coverage quotas ("none" for one group). Default: `group` when present.
    #[arg(long, value_name = "COLUMN")]
    pub group_col: Option<String>,
    /// A completed record whose per-group spread of outcomes sets neyman's shares.
    #[arg(long, value_name = "FILE")]
    pub reference: Option<PathBuf>,
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    pub seed: u64,
    /// Write the plan (.csv, .jsonl, .json, .parquet, …): position, task, group, cost_usd, seconds,
    /// order, seed, group_column.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also write the task ids in plan order, one a line, for a harness option that takes a list
    /// (inspect eval --sample-id, the SWE-bench harness's --instance_ids, Harbor's task filters).
    #[arg(long, value_name = "FILE")]
    pub ids: Option<PathBuf>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
}

#[derive(Debug, Args)]
pub struct DecideArgs {
    /// Outcome records so far (any loader format; other systems' rows are ignored).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub live: LiveArgs,
    /// The budget limit as a fraction of the planned tasks: nothing after the plan's first ⌈b·N⌉
    /// is read (needed by fixed-horizon rules; the anytime rule reads the whole plan without it,
    /// and with it abstains at the limit where no test has crossed).
    #[arg(long, value_name = "B", allow_negative_numbers = true)]
    pub budget: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TextOrJson::Json)]
    pub format: TextOrJson,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Completed records of the baseline (any format `decide` reads; folders as `watch` reads them).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub live: LiveArgs,
    /// The budget limit as a fraction of the planned tasks: nothing after the plan's first ⌈b·N⌉
    /// is read (needed by fixed-horizon rules; the anytime rule reads the whole plan without it,
    /// and with it abstains at the limit where no test has crossed).
    #[arg(long, value_name = "B", allow_negative_numbers = true)]
    pub budget: Option<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Outcome files and folders the harness writes (as `watch` follows them), and completed records
    /// of the baseline.
    #[arg(value_name = "FILE|FOLDER", required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub live: LiveArgs,
    /// The budget limit as a fraction of the planned tasks: nothing after the plan's first ⌈b·N⌉
    /// is read (needed by fixed-horizon rules; the anytime rule reads the whole plan without it,
    /// and with it abstains at the limit where no test has crossed).
    #[arg(long, value_name = "B", allow_negative_numbers = true)]
    pub budget: Option<String>,
    /// Seconds the harness has to end after SIGINT before SIGTERM (and as long again before SIGKILL).
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "S",
        default_value = "10"
    )]
    pub grace: String,
    /// Output format of the closing records.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
    /// Follow the run on `watch`'s screen (q ends the harness too); the harness's output goes to
    /// --harness-log.
    #[arg(long)]
    pub screen: bool,
    /// Where the harness's output goes with --screen (default: pareval-run-<pid>.log in the temporary
    /// folder).
    #[arg(long, value_name = "FILE", requires = "screen")]
    pub harness_log: Option<PathBuf>,
    /// The harness's command line.
    #[arg(value_name = "COMMAND", last = true, required = true)]
    pub command: Vec<String>,
}

/// What `decide` and `watch` share: the plan, the systems compared and the rule.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// The planned task list: a `task` column and optionally group columns (and `position`, as
    /// `pareval plan` writes).
    #[arg(long, value_name = "FILE")]
    pub plan: PathBuf,
    /// Group column of the plan for the coverage rule ("none" for one group). Default: `group` when present.
    #[arg(long, value_name = "COLUMN")]
    pub group_col: Option<String>,
    /// The tested system (A).
    #[arg(long, value_name = "SYSTEM")]
    pub tested: String,
    /// The baseline system (B), or several (comma-separated or repeated; a comma inside a name is
    /// written `\,`): the tested system is then decided against each of them as one family,
    /// adjusted with --adjust.
    #[arg(long, value_name = "SYSTEM,…", required_unless_present = "family")]
    pub baseline: Vec<String>,
    /// `tested`: every other system of the outcome files is a baseline (one family).
    #[arg(long, value_name = "tested")]
    pub family: Option<String>,
    /// Adjustment over the family of baselines at each look (SPEC §9b): none, bonferroni, holm, bh,
    /// e-bh. Default: holm with several baselines.
    #[arg(long, value_name = "METHOD")]
    pub adjust: Option<String>,
    /// Policy preset (its order is the live run's own; only the coverage gate and rule apply).
    #[arg(long, value_name = "NAME", default_value = "primary")]
    pub preset: String,
    /// Override the preset's rule: bootstrap, paired-normal, serfling, forced, anytime (watch, serve
    /// and run: anytime unless --rule or --preset is given).
    #[arg(long, value_name = "RULE")]
    pub rule: Option<String>,
    #[command(flatten)]
    pub tuning: RuleTuning,
    /// Thresholds in percentage points (one record each; a negative one is a non-inferiority
    /// margin).
    #[arg(
        long,
        value_name = "PP,…",
        default_value = "0",
        allow_hyphen_values = true,
        value_parser = threshold_list
    )]
    pub thresholds: String,
    /// Bootstrap tails: exact or mc:B.
    #[arg(long, value_name = "MODE", default_value = "exact")]
    pub bootstrap: String,
    /// Tail cutoff a.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "A",
        default_value = "0.05"
    )]
    pub tail: String,
    /// Random seed: the one the records name and mc resamples draw from. Default: the plan's `seed`
    /// (the order's seed, as the records name it; SPEC §8), else 0; another seed than a plan's is
    /// refused.
    #[arg(long, allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// Read record columns from other names, e.g. --col system=agent_name.
    #[arg(long = "col", value_name = "TARGET=SOURCE")]
    pub columns: Vec<String>,
    /// Leave these columns out of the rows (repeat or separate by commas), e.g. a scaffold column
    /// that differs between a system's rows.
    #[arg(long = "ignore-col", value_name = "COLUMN", value_delimiter = ',')]
    pub ignore_columns: Vec<String>,
    /// Columns that identify a system, starting with system: `system,scaffold` makes each scaffold
    /// of a system its own system, named "system (scaffold)" (as --tested and --baseline then name it).
    #[arg(long, value_name = "system,COLUMN,…", value_delimiter = ',')]
    pub system_key: Vec<String>,
    /// Which finished outcomes the rule reads (SPEC §9c): `prefix`, the longest prefix of the plan
    /// both systems have finished (valid whatever the harness's concurrency), or `finished`, every
    /// finished task with the gaps skipped (descriptive: a harness that runs tasks at once and
    /// takes longer on failures finishes the quick outcomes first).
    #[arg(long, value_name = "prefix|finished", default_value = "prefix")]
    pub reading: String,
    /// How many runs each task gets (`N`, every system) or a system's tasks get (`SYSTEM=N`; repeat
    /// or separate by commas): a task's outcome is the mean of its runs, so a task with fewer ended
    /// runs is not read until the rest have ended (SPEC §9c). For files that do not say how many
    /// runs are coming (a CSV, OpenAI Evals logs, OSWorld run folders); a completed baseline with
    /// fewer runs is declared on its own, e.g. --runs 3,baseline=1.
    #[arg(long, value_name = "N|SYSTEM=N", value_delimiter = ',')]
    pub runs: Vec<String>,
    #[command(flatten)]
    pub import: ImportFlags,
    /// Which of these flags the command line wrote ([`Cli::try_parse_given`]).
    #[arg(skip)]
    pub given: Given,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Outcome files a harness is writing (.csv, .tsv or .jsonl with system, task, outcome and
    /// optionally run; rows are appended; .gz, .json arrays and .parquet are read whole as they
    /// change), harness result files, or folders to which such files are added.
    #[arg(value_name = "FILE|FOLDER", required_unless_present = "replay")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub live: LiveArgs,
    /// The budget limit as a fraction of the planned tasks: nothing after the plan's first ⌈b·N⌉
    /// is read (needed by fixed-horizon rules; the anytime rule reads the whole plan without it,
    /// and with it abstains at the limit where no test has crossed).
    #[arg(long, value_name = "B", allow_negative_numbers = true)]
    pub budget: Option<String>,
    /// Play a completed record through the screen in plan order instead (for demonstrations).
    #[arg(long, value_name = "RECORDS", conflicts_with = "files")]
    pub replay: Option<PathBuf>,
    /// Replay speed: planned tasks per second (10x = ten tasks a second).
    #[arg(long, value_name = "N[x]", default_value = "10x")]
    pub speed: String,
    /// A saved early predictor (`pareval early … --save-model FILE`): show the runs it could halt
    /// now and the joint saving so far, from the steps files of --steps.
    #[arg(long, value_name = "MODEL", requires = "steps")]
    pub early: Option<PathBuf>,
    /// Steps files the harness appends to (.csv, .tsv or .jsonl, one or more), for --early.
    #[arg(long, value_name = "FILE", requires = "early", num_args = 1..)]
    pub steps: Vec<PathBuf>,
    /// Close the screen and exit 0 once every pair is decided at every threshold (for scripts).
    #[arg(long)]
    pub exit_when_decided: bool,
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
    #[arg(long, allow_negative_numbers = true, default_value_t = 20)]
    pub systems: usize,
    /// Tasks per benchmark.
    #[arg(long, allow_negative_numbers = true, default_value_t = 200)]
    pub tasks: usize,
    /// Task groups per benchmark (0 writes no group column).
    #[arg(long, allow_negative_numbers = true, default_value_t = 12)]
    pub groups: usize,
    /// How group labels look.
    #[arg(long, value_enum, default_value_t = GroupStyleArg::Repo)]
    pub group_style: GroupStyleArg,
    /// Standard deviation of the per-group difficulty shift.
    #[arg(long, default_value_t = 0.8, allow_negative_numbers = true)]
    pub group_effect: f64,
    /// Benchmarks in the file (more than one adds a `benchmark` column).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    pub benchmarks: usize,
    /// Repeated runs per system and task (more than one adds a `run` column).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    pub runs: usize,
    /// Distinct scaffolds among the systems, taken in turn (fewer systems leave some unused, noted;
    /// at most the larger of the systems' count and 1,000).
    #[arg(long, allow_negative_numbers = true, default_value_t = 4)]
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
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.0)]
    pub missing: f64,
    /// Write scaffold, model and submitted columns.
    #[arg(long)]
    pub attributes: bool,
    /// Random seed.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    pub seed: u64,
}

impl SimulateArgs {
    pub fn config(&self) -> Result<SimConfig, crate::simulate::SimError> {
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

/// One `--baseline` value's names: split at commas that are not written `\,`; `\,` is a comma.
pub fn split_names(raw: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut name = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                name.push(',');
                chars.next();
            }
            ',' => names.push(std::mem::take(&mut name)),
            c => name.push(c),
        }
    }
    names.push(name);
    names.into_iter().map(|n| n.trim().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn load_flags_read_back_to_the_same_arguments_and_cover_every_flag() {
        let given = [
            "a.csv",
            "b.csv",
            "--col",
            "system=agent",
            "--col",
            "outcome=resolved",
            "--tasks",
            "t.csv",
            "--systems",
            "s.csv",
            "--exclude-errors",
            "--min-system-coverage",
            "0.95",
            "--min-shared",
            "80",
            "--benchmark-per-file",
            "--from",
            "inspect",
            "--split",
            "verified",
            "--filter",
            "strict-match",
            "--scorer",
            "match",
            "--score-scale=-1:1",
            "--system-name",
            "a, b",
            "--score-key",
            "Step Correctness",
            "--inspect-task-key",
            "id",
            "--evalplus-tests",
            "base",
            "--metric",
            "f1",
            "--aider-tries",
            "1",
            "--ignore-col",
            "scaffold,model",
            "--system-key",
            "system,scaffold",
            "--keep-groups",
            "group=a, b",
            "--keep-groups",
            "level=hard",
        ];
        // Every flag of the parser is given a value other than its default here, so a flag added
        // later fails below until `flags` writes it.
        for arg in LoadOnly::command().get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            let flag = format!("--{long}");
            assert!(
                long == "help"
                    || given
                        .iter()
                        .any(|g| *g == flag || g.starts_with(&format!("{flag}="))),
                "{flag} is not in the test"
            );
        }
        let parsed = LoadOnly::try_parse_from(given).expect("parse").load;
        let files: Vec<String> = parsed
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        let back = load_args_from(&files, &parsed.flags()).expect("read back");
        assert_eq!(format!("{back:?}"), format!("{parsed:?}"));
        let plain = LoadOnly::try_parse_from(["a.csv"]).expect("parse").load;
        assert!(plain.flags().is_empty(), "{:?}", plain.flags());
        let refused = load_args_from(&files, &["--min-shared=many".to_string()]).unwrap_err();
        assert_eq!(
            refused,
            "invalid value 'many' for '--min-shared <N>': invalid digit found in string"
        );
        // A hand-edited session's --help printed this parser's doc comment as the error, and a
        // file among its flags was passed over.
        let help = load_args_from(&files, &["--help".to_string()]).unwrap_err();
        assert_eq!(help, "--help and --version are no load flags");
        let stray = load_args_from(&files, &["b.csv".to_string()]).unwrap_err();
        assert!(stray.starts_with("'b.csv' is no load flag"), "{stray}");
    }
}
