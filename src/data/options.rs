//! The choices of one load ([`LoadOptions`]): column mapping, side tables, filters, the native
//! format and its import choices. Shared by the assembler and the record reader.

use std::path::PathBuf;

use super::columns::ColumnMap;

/// Everything that shapes how records are loaded.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    pub columns: ColumnMap,
    /// A task side table (`task` + attribute columns), joined by task.
    pub task_table: Option<PathBuf>,
    /// A system side table (`system` + `scaffold`, `model`, `submitted`), joined by system.
    pub system_table: Option<PathBuf>,
    /// Leave runs with status `error` out of the averages instead of keeping their outcome.
    pub exclude_errors: bool,
    /// Drop systems whose outcomes cover less than this fraction of the tasks.
    pub min_system_coverage: Option<f64>,
    /// Leave out directed pairs with fewer shared tasks.
    pub min_shared: usize,
    /// Files without a `benchmark` column hold one benchmark each, named after the file.
    pub benchmark_per_file: bool,
    /// Columns left out of every file before anything is checked (`--ignore-col`).
    pub ignore_columns: Vec<String>,
    /// `COLUMN=LABEL[,LABEL…]`: only the tasks of these groups are kept, after everything else
    /// (`--keep-groups`, the explorer's group filter as a flag).
    pub keep_groups: Vec<String>,
    /// Read every file as this native format (`--from`); None reads canonical records, or a native
    /// file recognised by its keys.
    pub from: Option<super::import::ImportFormat>,
    /// The SWE-bench split a leaderboard `results.json` is scored against (`lite`, `verified`), or
    /// the board of swebench.com's `leaderboards.json` (`bash-only`, `Verified`, …).
    pub split: Option<String>,
    /// The lm-eval filter whose lines are read (default `none`, else the first seen).
    pub filter: Option<String>,
    /// The Inspect scorer whose value is the outcome (default: the first).
    pub scorer: Option<String>,
    /// An Inspect scorer's range, mapped onto [0, 1] (`--score-scale MIN:MAX`).
    pub score_scale: Option<(f64, f64)>,
    /// Columns that, after `system`, tell systems apart (`--system-key system,scaffold`): a system is
    /// named "system (value, …)" by the values of these columns on its rows.
    pub system_key: Vec<String>,
    /// The system of every row of the files given (`--system-name`), whatever they say.
    pub system_name: Option<String>,
    /// The key of an Inspect score that is a dict of values (`--score-key`).
    pub score_key: Option<String>,
    /// How an Inspect sample becomes a task key (`--inspect-task-key`).
    pub inspect_task_key: super::import::InspectTaskKey,
    /// Which EvalPlus tests decide a sample (`--evalplus-tests`).
    pub evalplus_tests: super::import::EvalPlusTests,
    /// The stat (HELM) or metric whose value is the outcome (`--metric`).
    pub metric: Option<String>,
    /// An aider exercise passes when its tests pass within this many tries (`--aider-tries`;
    /// None: 2).
    pub aider_tries: Option<u32>,
    /// The files are a live run's, still being written (`decide`, `watch`, `serve`, `run`): a last
    /// line the harness has not finished (no line end, and short of a record) is set aside with a
    /// note rather than refused, as `watch` waits for it.
    pub live: bool,
    /// With `live`: this file's last line, if it has no line end, is set aside even when it looks
    /// whole (`decide` reads so again when the files were refused: a writer that flushed mid-line
    /// left a record that looks whole but is not, e.g. a group cut short).
    pub set_aside_last_line_of: Option<std::path::PathBuf>,
    /// Keep where each task's first row with an outcome stands ([`crate::dataset::Dataset::task_origins`]),
    /// among the rows of these systems (all when empty), for a message after loading that names
    /// rows (`decide`'s tasks missing from the plan, among the systems it decides on); None: not kept.
    pub task_origins: Option<Vec<String>>,
    /// The runs each task of a live run gets (`--runs`): a task with fewer ended runs waits.
    pub runs: super::declared_runs::DeclaredRuns,
    /// The rows read are compared with systems whose outcomes stream in as the means of their
    /// epochs (`serve`'s baseline records): a log that keeps only scores reduced otherwise (max,
    /// pass_at_k) is refused rather than noted.
    pub against_streamed_means: bool,
}

impl LoadOptions {
    /// The choices the native importers read.
    pub fn import_settings(&self) -> super::import::ImportSettings<'_> {
        super::import::ImportSettings {
            split: self.split.as_deref(),
            filter: self.filter.as_deref(),
            scorer: self.scorer.as_deref(),
            score_scale: self.score_scale,
            system_name: self.system_name.as_deref(),
            score_key: self.score_key.as_deref(),
            inspect_task_key: self.inspect_task_key,
            evalplus_tests: self.evalplus_tests,
            metric: self.metric.as_deref(),
            aider_tries: self.aider_tries,
            read: None,
            live: self.live,
            against_streamed_means: self.against_streamed_means,
        }
    }
}
