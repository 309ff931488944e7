//! Importers: the result files evaluation harnesses write (`shared/formats/NOTES.md` describes each),
//! read into the canonical record table, which then goes through every check of the loader. An
//! importer maps the native fields to `system, task, run, outcome, status` and, where the file has
//! them, `group`, `cost_usd`, `seconds`; `source` says where each row came from, with the native run
//! index when it differs from the 0-based `run`. Errors the harness scored as failures keep their
//! outcome with status `error`, so `--exclude-errors` can tell them apart.
//!
//! Formats: `swebench` (leaderboard `results.json`, v2 and pre-v2, against the split's instance
//! list, and the harness's run report), `inspect` (`.eval` archives and `.json` logs), `lm-eval`
//! (`samples_<task>_<date>.jsonl` with its results file), `tau-bench` (v1 `EnvRunResult` arrays),
//! `tau2` (`Results` with `simulations`), `terminal-bench` (Terminal-Bench 1 `results.json`, with
//! `run_metadata.json` beside it), `harbor` (job and trial folders), `openhands` (V0/V1
//! `output.jsonl` with the graded `test_result.report`), `helm` (run folders), `evalplus` and
//! `bigcodebench` (`*eval_results.json`), `metr` (`runs.jsonl`), `aider` (benchmark run folders),
//! `lighteval` (details Parquet files), `hal` (`<run_id>_UPLOAD.json`), `osworld` (result folders
//! of `<domain>/<example_id>/result.txt`), `appworld` (`evaluations/<dataset>.json`), `mle-bench`
//! (`<timestamp>_grading_report.json`), `agentlab` (study folders of experiment folders with
//! `summary_info.json`), `theagentcompany` (`eval_<task>.json` results folders), `bfcl` (the
//! Berkeley Function Calling Leaderboard's score files, read with their result files),
//! `promptfoo` (`promptfoo eval`'s JSON and JSON Lines outputs), `deepeval` (`test_run_*.json`
//! files and their results folder), `agentdojo` (a logdir of run files), `openai-evals`
//! (`oaieval`'s record logs, one or a folder of them), `livebench` (`ground_truth_judgment.jsonl`
//! files, one or a tree of them), `evalscope` (review files, one or an output folder),
//! `alpaca-eval` (`annotations.json`, one or a results tree), `livecodebench`
//! (`…_eval_all.json`, one or its `output/` folder), `mt-bench` (FastChat's
//! `model_judgment/<judge>_single.jsonl` and `_pair.jsonl`), `arena-hard` (Arena-Hard-Auto's
//! `model_judgment/<judge>/<model>.jsonl`), `human-eval` (openai/human-eval's
//! `<samples>_results.jsonl`), `opencompass` (`results/<model>/<dataset>.json` with per-sample
//! details, one or a run's folder), `agentbench` (AgentBench v0.2's `runs.jsonl` trees), `hle`
//! (Humanity's Last Exam's `judged_hle_<model>.json.json`), `wildbench` (WildBench's
//! `score.v2/eval=<judge>/<model>.json`), `swebench-pro` (SWE-Bench Pro's `eval_results.json`) and
//! `arc-agi` (arc-agi-benchmarking's scoring `results.json`), `vlmevalkit` (VLMEvalKit's
//! per-question `.xlsx`/`.tsv` evaluation files, one or a work dir, model or run folder),
//! `mcpmark` (MCPMark's `<exp>/<model>__<service>/run-N/<category>__<task>/meta.json` folders),
//! `balrog` (BALROG's run folders of `<env>/<task>/<task>_run_NN.json` episode results),
//! `verifiers` (Prime Intellect's `vf-eval`: `results.jsonl` with `metadata.json`, or v1's
//! `traces.jsonl`) and `nemo-skills` (NeMo-Skills' `eval-results/<benchmark>/output-rs<seed>.jsonl`).
//! Without `--from` a
//! `.json`, `.jsonl` or `.eval` file, a lighteval details file, or a run folder is recognised by
//! its keys or layout (a `.jsonl` file by its first line only, so canonical JSON Lines are parsed
//! once).

mod agentbench;
mod agentdojo;
mod agentlab;
mod aider;
mod alpaca_eval;
mod appworld;
mod arc_agi;
mod arena_hard;
mod balrog;
mod bfcl;
mod deep_layout;
mod deepeval;
mod evalplus;
mod evalscope;
mod hal;
mod hal_db;
mod harbor;
mod helm;
mod hle;
mod human_eval;
mod inspect;
mod json;
mod lighteval;
mod livebench;
mod livecodebench;
mod lm_eval;
mod mcpmark;
mod metr;
mod mlebench;
mod mt_bench;
mod nemo_skills;
mod openai_evals;
mod opencompass;
mod openhands;
mod osworld;
mod promptfoo;
mod swebench;
pub use swebench::split_file;
mod swebench_board;
mod swebench_logs;
mod swebench_pro;
mod tau;
mod terminal_bench;
mod theagentcompany;
mod time;
mod verifiers;
mod vlmevalkit;
mod wildbench;

use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde_json::Value;

use super::error::LoadError;
use super::read::{Positions, RawTable, sha256_hex};
use crate::engine::settings::{SettingError, parse_name};

/// The native formats pareval imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImportFormat {
    TauBench,
    Tau2,
    TerminalBench,
    Harbor,
    OpenHands,
    SweBench,
    SweBenchLeaderboard,
    LmEval,
    Inspect,
    EvalPlus,
    BigCodeBench,
    Helm,
    Metr,
    Aider,
    LightEval,
    Hal,
    OsWorld,
    AppWorld,
    MleBench,
    AgentLab,
    TheAgentCompany,
    Bfcl,
    Promptfoo,
    DeepEval,
    AgentDojo,
    OpenAiEvals,
    LiveBench,
    EvalScope,
    AlpacaEval,
    LiveCodeBench,
    MtBench,
    ArenaHard,
    HumanEval,
    OpenCompass,
    AgentBench,
    Hle,
    WildBench,
    SweBenchPro,
    ArcAgi,
    VlmEvalKit,
    McpMark,
    Balrog,
    Verifiers,
    NemoSkills,
}

impl ImportFormat {
    pub const ALL: [ImportFormat; 44] = [
        ImportFormat::Helm,
        ImportFormat::SweBench,
        ImportFormat::SweBenchLeaderboard,
        ImportFormat::Inspect,
        ImportFormat::LmEval,
        ImportFormat::TauBench,
        ImportFormat::Tau2,
        ImportFormat::TerminalBench,
        ImportFormat::Harbor,
        ImportFormat::OpenHands,
        ImportFormat::EvalPlus,
        ImportFormat::BigCodeBench,
        ImportFormat::Metr,
        ImportFormat::Aider,
        ImportFormat::LightEval,
        ImportFormat::Hal,
        ImportFormat::OsWorld,
        ImportFormat::AppWorld,
        ImportFormat::MleBench,
        ImportFormat::AgentLab,
        ImportFormat::TheAgentCompany,
        ImportFormat::Bfcl,
        ImportFormat::Promptfoo,
        ImportFormat::DeepEval,
        ImportFormat::AgentDojo,
        ImportFormat::OpenAiEvals,
        ImportFormat::LiveBench,
        ImportFormat::EvalScope,
        ImportFormat::AlpacaEval,
        ImportFormat::LiveCodeBench,
        ImportFormat::MtBench,
        ImportFormat::ArenaHard,
        ImportFormat::HumanEval,
        ImportFormat::OpenCompass,
        ImportFormat::AgentBench,
        ImportFormat::Hle,
        ImportFormat::WildBench,
        ImportFormat::SweBenchPro,
        ImportFormat::ArcAgi,
        ImportFormat::VlmEvalKit,
        ImportFormat::McpMark,
        ImportFormat::Balrog,
        ImportFormat::Verifiers,
        ImportFormat::NemoSkills,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ImportFormat::TauBench => "tau-bench",
            ImportFormat::Tau2 => "tau2",
            ImportFormat::TerminalBench => "terminal-bench",
            ImportFormat::Harbor => "harbor",
            ImportFormat::OpenHands => "openhands",
            ImportFormat::SweBench => "swebench",
            ImportFormat::SweBenchLeaderboard => "swebench-leaderboard",
            ImportFormat::LmEval => "lm-eval",
            ImportFormat::Inspect => "inspect",
            ImportFormat::EvalPlus => "evalplus",
            ImportFormat::BigCodeBench => "bigcodebench",
            ImportFormat::Helm => "helm",
            ImportFormat::Metr => "metr",
            ImportFormat::Aider => "aider",
            ImportFormat::LightEval => "lighteval",
            ImportFormat::Hal => "hal",
            ImportFormat::OsWorld => "osworld",
            ImportFormat::AppWorld => "appworld",
            ImportFormat::MleBench => "mle-bench",
            ImportFormat::AgentLab => "agentlab",
            ImportFormat::TheAgentCompany => "theagentcompany",
            ImportFormat::Bfcl => "bfcl",
            ImportFormat::Promptfoo => "promptfoo",
            ImportFormat::DeepEval => "deepeval",
            ImportFormat::AgentDojo => "agentdojo",
            ImportFormat::OpenAiEvals => "openai-evals",
            ImportFormat::LiveBench => "livebench",
            ImportFormat::EvalScope => "evalscope",
            ImportFormat::AlpacaEval => "alpaca-eval",
            ImportFormat::LiveCodeBench => "livecodebench",
            ImportFormat::MtBench => "mt-bench",
            ImportFormat::ArenaHard => "arena-hard",
            ImportFormat::HumanEval => "human-eval",
            ImportFormat::OpenCompass => "opencompass",
            ImportFormat::AgentBench => "agentbench",
            ImportFormat::Hle => "hle",
            ImportFormat::WildBench => "wildbench",
            ImportFormat::SweBenchPro => "swebench-pro",
            ImportFormat::ArcAgi => "arc-agi",
            ImportFormat::VlmEvalKit => "vlmevalkit",
            ImportFormat::McpMark => "mcpmark",
            ImportFormat::Balrog => "balrog",
            ImportFormat::Verifiers => "verifiers",
            ImportFormat::NemoSkills => "nemo-skills",
        }
    }

    pub fn parse(text: &str) -> Result<Self, SettingError> {
        // lmms-eval, lm-eval's fork for multimodal models, writes lm-eval's sample lines.
        if text.trim().to_ascii_lowercase().replace('_', "-") == "lmms-eval" {
            return Ok(ImportFormat::LmEval);
        }
        parse_name(text, "format", &ImportFormat::ALL, ImportFormat::name)
    }

    /// The format of a JSON Lines file whose first line is `first`, if any.
    fn detect_line(first: &Value) -> Option<Self> {
        let object = first.as_object()?;
        if object.contains_key("system") {
            return None;
        }
        if metr::is_run(object) {
            return Some(ImportFormat::Metr);
        }
        if verifiers::is_rollout(object) || verifiers::is_episode(object) {
            return Some(ImportFormat::Verifiers);
        }
        if nemo_skills::is_output_line(object) {
            return Some(ImportFormat::NemoSkills);
        }
        if agentbench::is_line(object) {
            return Some(ImportFormat::AgentBench);
        }
        if promptfoo::is_result(object) {
            return Some(ImportFormat::Promptfoo);
        }
        if openai_evals::is_spec_line(object) {
            return Some(ImportFormat::OpenAiEvals);
        }
        if livebench::is_judgment_line(object) {
            return Some(ImportFormat::LiveBench);
        }
        if human_eval::is_result_line(object) {
            return Some(ImportFormat::HumanEval);
        }
        if arena_hard::is_judgment_line(object) {
            return Some(ImportFormat::ArenaHard);
        }
        if mt_bench::is_single_line(object) || mt_bench::is_pair_line(object) {
            return Some(ImportFormat::MtBench);
        }
        if evalscope::is_review_line(object) {
            return Some(ImportFormat::EvalScope);
        }
        if object.contains_key("instance_id")
            && (object.contains_key("test_result") || object.contains_key("metadata"))
        {
            return Some(ImportFormat::OpenHands);
        }
        (object.contains_key("doc_id")
            && (object.contains_key("filtered_resps") || object.contains_key("doc_hash")))
        .then_some(ImportFormat::LmEval)
    }

    /// The format whose keys the parsed file has, if any (the canonical JSON array has `system`).
    fn detect(value: &Value) -> Option<Self> {
        match value {
            Value::Array(items) => {
                if wildbench::is_score_file(value) {
                    return Some(ImportFormat::WildBench);
                }
                if alpaca_eval::is_annotations(value) {
                    return Some(ImportFormat::AlpacaEval);
                }
                if livecodebench::is_eval_all(value) {
                    return Some(ImportFormat::LiveCodeBench);
                }
                let first = items.first()?.as_object()?;
                (first.contains_key("task_id")
                    && first.contains_key("reward")
                    && !first.contains_key("system"))
                .then_some(ImportFormat::TauBench)
            }
            Value::Object(object) => {
                if swebench_pro::is_eval_results(value) {
                    return Some(ImportFormat::SweBenchPro);
                }
                if arc_agi::is_results(object) {
                    return Some(ImportFormat::ArcAgi);
                }
                if object.contains_key("info")
                    && (object.contains_key("simulations")
                        || object.contains_key("simulation_index"))
                {
                    return Some(ImportFormat::Tau2);
                }
                if swebench_board::looks_like(object) {
                    return Some(ImportFormat::SweBenchLeaderboard);
                }
                if swebench::looks_like(object) {
                    return Some(ImportFormat::SweBench);
                }
                if (object.contains_key("eval") && object.contains_key("samples"))
                    || inspect::is_log(object)
                {
                    return Some(ImportFormat::Inspect);
                }
                if harbor::is_trial(object) || harbor::is_job(object) {
                    return Some(ImportFormat::Harbor);
                }
                if aider::is_results(object) {
                    return Some(ImportFormat::Aider);
                }
                if hal::is_upload(object) {
                    return Some(ImportFormat::Hal);
                }
                if appworld::is_evaluation(object) {
                    return Some(ImportFormat::AppWorld);
                }
                if mlebench::is_report(object) {
                    return Some(ImportFormat::MleBench);
                }
                if theagentcompany::is_result(object) {
                    return Some(ImportFormat::TheAgentCompany);
                }
                if promptfoo::is_output(object) {
                    return Some(ImportFormat::Promptfoo);
                }
                if deepeval::is_test_run(object) {
                    return Some(ImportFormat::DeepEval);
                }
                if agentdojo::is_run(object) {
                    return Some(ImportFormat::AgentDojo);
                }
                if mcpmark::is_meta(object) {
                    return Some(ImportFormat::McpMark);
                }
                if balrog::is_episode(object) {
                    return Some(ImportFormat::Balrog);
                }
                if opencompass::is_results(object) {
                    return Some(ImportFormat::OpenCompass);
                }
                if hle::is_judged(object) {
                    return Some(ImportFormat::Hle);
                }
                match evalplus::shape(object) {
                    Some(evalplus::Shape::BigCodeBench) => return Some(ImportFormat::BigCodeBench),
                    Some(_) => return Some(ImportFormat::EvalPlus),
                    None => {}
                }
                let first = object.get("results")?.as_array()?.first()?.as_object()?;
                (first.contains_key("trial_name") && first.contains_key("is_resolved"))
                    .then_some(ImportFormat::TerminalBench)
            }
            _ => None,
        }
    }
}

/// The harness formats pareval reads, for a message about a file it does not recognise.
pub fn formats_read() -> String {
    format!(
        "pareval reads {}, each recognised by its keys or named with --from FORMAT; other records need the columns system, task, outcome (--col NAME=COLUMN maps them)",
        ImportFormat::ALL.map(ImportFormat::name).join(", ")
    )
}

/// What a JSON Lines file is when its first line is a harness's samples or model answers, written
/// before grading: which graded file pareval reads instead (None for anything else).
fn ungraded_hint(first: &Value) -> Option<String> {
    let object = first.as_object()?;
    let has = |keys: &[&str]| keys.iter().all(|key| object.contains_key(*key));
    // Only the keys those writers use: a file with any other (an outcome a --col mapping names)
    // is left to the canonical reader.
    let only = |keys: &[&str]| object.keys().all(|key| keys.contains(&key.as_str()));
    if !only(&[
        "task_id",
        "completion",
        "solution",
        "question_id",
        "answer_id",
        "model_id",
        "choices",
        "tstamp",
        "uid",
        "ans_id",
        "model",
        "messages",
        "metadata",
    ]) {
        return None;
    }
    if has(&["task_id"]) && (has(&["completion"]) || has(&["solution"])) {
        return Some(
            "code samples with no results yet (task_id and completion or solution): human-eval's evaluate_functional_correctness writes <samples>_results.jsonl (read as human-eval), EvalPlus's evalplus.evaluate <samples>_eval_results.json (read as evalplus)"
                .to_string(),
        );
    }
    if has(&["question_id", "model_id", "choices"]) {
        return Some(
            "model answers in FastChat's format (model_answer/ of MT-Bench or LiveBench), not judgments: MT-Bench's gen_judgment.py writes model_judgment/<judge>_single.jsonl or _pair.jsonl (read as mt-bench), LiveBench's gen_ground_truth_judgment.py model_judgment/ground_truth_judgment.jsonl (read as livebench)"
                .to_string(),
        );
    }
    if has(&["uid", "model", "messages"]) {
        return Some(
            "Arena-Hard-Auto model answers (model_answer/), not judgments: gen_judgment.py writes model_judgment/<judge>/<model>.jsonl (read as arena-hard)"
                .to_string(),
        );
    }
    None
}

/// The one message for a JSON object of no format pareval reads, naming its first keys.
fn unknown_object(file: &str, object: &serde_json::Map<String, Value>) -> LoadError {
    let mut keys: Vec<String> = object.keys().take(8).map(|k| format!("'{k}'")).collect();
    if object.len() > keys.len() {
        keys.push(format!("… ({} keys)", object.len()));
    }
    LoadError::new(
        file,
        format!(
            "not a result file pareval reads: a JSON object with keys {} ({})",
            keys.join(", "),
            formats_read()
        ),
    )
}

/// Choices some formats need: the SWE-bench split of a leaderboard results.json, the lm-eval filter.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportSettings<'a> {
    pub split: Option<&'a str>,
    pub filter: Option<&'a str>,
    /// The Inspect scorer whose value is the outcome (default: the first).
    pub scorer: Option<&'a str>,
    /// An Inspect scorer's range (MIN, MAX), mapped onto [0, 1].
    pub score_scale: Option<(f64, f64)>,
    /// The system every row of the file belongs to (`--system-name`), whatever the file says.
    pub system_name: Option<&'a str>,
    /// The key of an Inspect score that is a dict of values (`--score-key`).
    pub score_key: Option<&'a str>,
    /// How an Inspect sample becomes a task key (`--inspect-task-key`).
    pub inspect_task_key: InspectTaskKey,
    /// Which EvalPlus tests decide a sample (`--evalplus-tests`).
    pub evalplus_tests: EvalPlusTests,
    /// The stat (HELM) or metric whose value is the outcome (`--metric`).
    pub metric: Option<&'a str>,
    /// An aider exercise passes when its tests pass within this many tries (`--aider-tries`;
    /// None: 2, the leaderboard's pass_rate_2).
    pub aider_tries: Option<u32>,
    /// Where the importers mark the options above they read (bits of [`ImportSettings::OPTIONS`]),
    /// when the caller wants to know which a format passed over: the importers read them through
    /// the accessors of the same names.
    pub read: Option<&'a std::cell::Cell<u8>>,
    /// The file is a live run's, still being written (`decide`, `watch`, `serve`, `run`): a JSON
    /// Lines file's last line that has no line end and is not JSON yet is set aside, as the loader
    /// sets aside a record table's unfinished last line.
    pub live: bool,
    /// See [`crate::data::LoadOptions::against_streamed_means`].
    pub against_streamed_means: bool,
}

impl<'a> ImportSettings<'a> {
    /// The options an importer may read, by flag, in the order of their bits.
    pub const OPTIONS: [&'static str; 7] = [
        "--split",
        "--filter",
        "--scorer",
        "--score-scale",
        "--score-key",
        "--metric",
        "--aider-tries",
    ];

    fn mark(&self, option: usize) {
        if let Some(read) = self.read {
            read.set(read.get() | (1 << option));
        }
    }

    pub fn split(&self) -> Option<&'a str> {
        self.mark(0);
        self.split
    }

    pub fn filter(&self) -> Option<&'a str> {
        self.mark(1);
        self.filter
    }

    pub fn scorer(&self) -> Option<&'a str> {
        self.mark(2);
        self.scorer
    }

    pub fn score_scale(&self) -> Option<(f64, f64)> {
        self.mark(3);
        self.score_scale
    }

    pub fn score_key(&self) -> Option<&'a str> {
        self.mark(4);
        self.score_key
    }

    pub fn metric(&self) -> Option<&'a str> {
        self.mark(5);
        self.metric
    }

    pub fn aider_tries(&self) -> Option<u32> {
        self.mark(6);
        self.aider_tries
    }

    /// Which of the options given (`given`: set or not, in [`ImportSettings::OPTIONS`]'s order)
    /// no importer read: their flags.
    pub fn unread(&self, given: [bool; 7]) -> Vec<&'static str> {
        let read = self.read.map_or(u8::MAX, std::cell::Cell::get);
        Self::OPTIONS
            .iter()
            .enumerate()
            .filter(|&(bit, _)| given[bit] && read & (1 << bit) == 0)
            .map(|(_, &flag)| flag)
            .collect()
    }
}

pub use evalplus::EvalPlusTests;

/// How an Inspect sample becomes a task key. Sample ids are unique only within an Inspect task, so
/// the logs of an eval set (several tasks) need the task in the key; a single eval's logs keep the
/// sample id, which is what a plan drawn from the dataset's ids holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InspectTaskKey {
    /// `<eval.task>/<sample id>` for a log written by an eval set (`eval.eval_set_id`), else the id.
    #[default]
    Auto,
    /// The sample id.
    Id,
    /// `<eval.task>/<sample id>`.
    TaskId,
}

impl InspectTaskKey {
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "auto" => Ok(InspectTaskKey::Auto),
            "id" => Ok(InspectTaskKey::Id),
            "task-id" | "task/id" => Ok(InspectTaskKey::TaskId),
            other => Err(format!(
                "--inspect-task-key: '{other}' is not auto, id or task-id"
            )),
        }
    }
}

/// Outcome status of one canonical row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowStatus {
    Ok,
    Error,
    /// Run but not graded, or never run: no outcome.
    NotAttempted,
}

impl RowStatus {
    /// Ok for a row with an outcome, not attempted for one without (formats with no error state).
    fn graded(outcome: Option<f64>) -> Self {
        if outcome.is_some() {
            RowStatus::Ok
        } else {
            RowStatus::NotAttempted
        }
    }
}

/// A row whose task has runs still to come, while the harness runs: the task's outcome is the
/// mean of its runs, which those to come would change, and a live decision must not read a value
/// that later rows change (SPEC §9c). Not attempted so far; its source keeps what it scored.
fn hold_for_runs_to_come(row: &mut CanonicalRow, runs: &str) {
    let scored = row.outcome.map_or("nothing".to_string(), |o| o.to_string());
    row.source.push_str(&format!(
        ", waits for the task's other {runs} (scored {scored})"
    ));
    row.outcome = None;
    row.status = RowStatus::NotAttempted;
}

/// A run's side file as JSON (its metadata or configuration), read past a byte order mark:
/// Ok(None) when there is no such file, Err(why) when it is there but cannot be read as JSON.
fn side_json(path: &Path) -> Result<Option<Value>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
    serde_json::from_slice(json::without_bom(&bytes))
        .map(Some)
        .map_err(|e| format!("is not JSON ({e})"))
}

/// A run's planned number of runs per task (attempts, trials, rollouts) at `key` of `object`, by
/// which a reader holds the tasks with runs to come (SPEC §9c): None when absent or null. A value
/// that is no whole number ≥ 1 is named in a note (`whose` says where the key is) and read as
/// none, so a reader falls back to what it can count itself and says so.
fn planned_count(object: &Value, key: &str, whose: &str, notes: &mut Vec<String>) -> Option<u64> {
    match object.get(key) {
        None | Some(Value::Null) => None,
        Some(value) => value.as_u64().filter(|&n| n >= 1).or_else(|| {
            notes.push(unread_plan(
                whose,
                &format!("gives {key} {value}, not a whole number ≥ 1"),
            ));
            None
        }),
    }
}

/// The note of a plan's count that could not be read: which tasks still have runs to come is
/// unknown, so the runs in so far are read as they are.
fn unread_plan(whose: &str, why: &str) -> String {
    format!(
        "{whose} {why}: which tasks still have runs to come cannot be told, so each task's runs in so far are read as its outcome (while the run goes on, runs to come would change it)"
    )
}

/// Holds ([`hold_for_runs_to_come`]) the rows with an outcome of every (system, task) that has
/// fewer rows than `planned` (rows that ended without an outcome count as ended); the rows and
/// the tasks held.
fn hold_tasks_short_of(rows: &mut [CanonicalRow], planned: u64, runs: &str) -> (usize, usize) {
    // Which rows to hold, from the counts by (system, task) read off the rows as they are.
    let (short, tasks) = {
        let mut ended: std::collections::HashMap<(&str, &str), u64> =
            std::collections::HashMap::new();
        for row in rows.iter() {
            *ended.entry((&row.system, &row.task)).or_default() += 1;
        }
        let short: Vec<bool> = rows
            .iter()
            .map(|row| row.outcome.is_some() && ended[&(&row.system[..], &row.task[..])] < planned)
            .collect();
        let tasks = rows
            .iter()
            .zip(&short)
            .filter(|(_, short)| **short)
            .map(|(row, _)| (&row.system[..], &row.task[..]))
            .collect::<std::collections::HashSet<_>>()
            .len();
        (short, tasks)
    };
    for (row, _) in rows.iter_mut().zip(&short).filter(|(_, short)| **short) {
        hold_for_runs_to_come(row, runs);
    }
    (short.iter().filter(|&&s| s).count(), tasks)
}

/// One canonical row as an importer builds it.
#[derive(Debug, Clone, PartialEq)]
pub struct CanonicalRow {
    pub system: String,
    pub task: String,
    pub run: u32,
    /// None only for a row not attempted.
    pub outcome: Option<f64>,
    pub status: RowStatus,
    pub group: Option<String>,
    pub cost_usd: Option<f64>,
    pub seconds: Option<f64>,
    /// Where the row came from: the format, the entry and the native run index.
    pub source: String,
}

/// What an importer read from one file.
pub struct Imported {
    pub rows: Vec<CanonicalRow>,
    /// What the loader should report (the system name's origin, tokens read as missing, …).
    pub notes: Vec<String>,
    /// The 1-based line of each row, for JSON Lines files (else rows are entries of the file).
    pub lines: Option<Vec<u64>>,
}

impl Imported {
    /// Rows of a JSON Lines file, each placed by its line.
    fn by_line(rows: Vec<CanonicalRow>, notes: Vec<String>, lines: Vec<u64>) -> Self {
        Imported {
            rows,
            notes,
            lines: Some(lines),
        }
    }

    /// Rows that are entries of a JSON file (placed by entry, not by line).
    fn entries(rows: Vec<CanonicalRow>, notes: Vec<String>) -> Self {
        Imported {
            rows,
            notes,
            lines: None,
        }
    }
}

/// The file an importer reads for `path`: a folder is a Terminal-Bench run (its `results.json`) or a
/// Harbor job or trial (its `result.json`).
pub fn native_file(path: &Path) -> PathBuf {
    if helm::is_run_folder(path) {
        return path.join("per_instance_stats.json");
    }
    if let Some(upload) = path.is_dir().then(|| hal::upload_in(path)).flatten() {
        return upload;
    }
    if path.is_dir() {
        let harbor = path.join("result.json");
        if !path.join("results.json").exists() && harbor.is_file() {
            return harbor;
        }
        path.join("results.json")
    } else {
        path.to_path_buf()
    }
}

/// Whether a folder is read as one result (a Terminal-Bench run, a Harbor job or trial, a HELM run,
/// a HAL run, an aider run) rather than as a folder of result files.
pub fn is_run_folder(path: &Path) -> bool {
    path.is_dir()
        && (path.join("results.json").is_file()
            || path.join("result.json").is_file()
            || helm::is_run_folder(path)
            || hal::upload_in(path).is_some()
            || aider::is_run_folder(path)
            || osworld::is_results_tree(path)
            || agentlab::is_study(path)
            || theagentcompany::is_results_folder(path)
            || deepeval::is_results_folder(path)
            || openai_evals::is_logs_folder(path)
            || swebench_logs::is_logs(path)
            || bfcl::is_tree(path)
            || livebench::is_tree(path)
            || evalscope::is_outputs(path)
            || alpaca_eval::is_tree(path)
            || livecodebench::is_tree(path)
            || opencompass::is_tree(path)
            || agentbench::is_tree(path)
            || vlmevalkit::is_tree(path)
            || mcpmark::is_results_tree(path)
            || balrog::is_results_tree(path)
            // Last: it may walk a few levels down before it finds a file named as AgentDojo's.
            || agentdojo::is_logdir(path))
}

/// What changes when a result is rewritten or grows (size, last change): of its file, or, for an
/// aider run or an OSWorld result folder, of all its exercises' (examples') files together. `watch`
/// reads a result again when this changes.
pub fn change_stamp(path: &Path) -> Option<(u64, Option<std::time::SystemTime>)> {
    let together = if aider::is_run_folder(path) {
        Some(aider::results_files(path))
    } else if osworld::is_results_tree(path) {
        Some(osworld::tracked_files(path))
    } else if agentlab::is_study(path) {
        Some(agentlab::tracked_files(path))
    } else if theagentcompany::is_results_folder(path) {
        Some(theagentcompany::tracked_files(path))
    } else if deepeval::is_results_folder(path) {
        Some(deepeval::tracked_files(path))
    } else if openai_evals::is_logs_folder(path) {
        Some(openai_evals::tracked_files(path))
    } else if swebench_logs::is_logs(path) {
        Some(swebench_logs::tracked_files(path))
    } else if bfcl::is_tree(path) {
        Some(bfcl::tracked_files(path))
    } else if livebench::is_tree(path) {
        Some(livebench::tracked_files(path))
    } else if evalscope::is_outputs(path) {
        Some(evalscope::tracked_files(path))
    } else if alpaca_eval::is_tree(path) {
        Some(alpaca_eval::tracked_files(path))
    } else if livecodebench::is_tree(path) {
        Some(livecodebench::tracked_files(path))
    } else if opencompass::is_tree(path) {
        Some(opencompass::tracked_files(path))
    } else if agentbench::is_tree(path) {
        Some(agentbench::tracked_files(path))
    } else if vlmevalkit::is_tree(path) {
        Some(vlmevalkit::tracked_files(path))
    } else if mcpmark::is_results_tree(path) {
        Some(mcpmark::tracked_files(path))
    } else if balrog::is_results_tree(path) {
        Some(balrog::tracked_files(path))
    } else if agentdojo::is_logdir(path) {
        Some(agentdojo::tracked_files(path))
    } else {
        None
    };
    if let Some(files) = together {
        let mut stamp = (0u64, None);
        for file in files {
            let meta = std::fs::metadata(&file).ok()?;
            stamp.0 += meta.len() + 1;
            stamp.1 = stamp.1.max(meta.modified().ok());
        }
        return Some(stamp);
    }
    let meta = std::fs::metadata(native_file(path)).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

/// What a folder holds that is read: its result files (.csv and .jsonl rows, a harness's .json,
/// .jsonl or .eval files), its run folders ([`is_run_folder`]) and the results of its submission
/// folders ([`submission_folders`]), in path order, leaving out dot files and files read beside
/// another ([`is_companion`]); when there are none, those of its lm-eval model folders
/// ([`model_folders`]), else the files of a harness's deeper layout ([`deep_layout::deep_layout`]).
/// `watch` follows these as they appear; `decide` and every other loader read
/// them once, so all read the same files.
pub fn folder_entries(folder: &Path) -> Vec<PathBuf> {
    let mut entries = own_entries(folder);
    // An AppWorld experiment given itself is read through its `evaluations/` (it was refused as
    // holding no result files, though its parent folder was read so).
    if entries.is_empty()
        && let Some(reports) = appworld::evaluations_in(folder)
    {
        return reports;
    }
    entries.extend(
        submission_folders(folder)
            .into_iter()
            .flat_map(|(_, results)| results),
    );
    if !entries.is_empty() {
        entries.sort();
        return entries;
    }
    // None of its own: its model folders are read (without listing it again).
    let models: Vec<PathBuf> = lm_eval_model_folders(folder)
        .into_iter()
        .flat_map(|model| own_entries(&model))
        .collect();
    if !models.is_empty() {
        return models;
    }
    // Nor those: a harness folder whose result files lie further down (lighteval's output folder,
    // a FastChat or Arena-Hard-Auto bench folder).
    // Or AppWorld experiments named by a path (`outputs/react/openai/gpt-4o/dev/evaluations/`).
    deep_layout::deep_layout(folder)
        .map(|layout| layout.files)
        .unwrap_or_else(|| appworld::reports_below(folder, APPWORLD_DEPTH))
}

/// How far below a folder AppWorld experiments named by a path are looked for (agent, provider,
/// model and dataset, and one more).
const APPWORLD_DEPTH: usize = 5;

/// Whether a folder is one that lm-eval writes for a model under `--output_path`
/// (`<output_path>/<model>/samples_<task>_<date>.jsonl`, beside `results_<date>.json`; lmms-eval's
/// `<date>_samples_<task>.jsonl` beside `<date>_results.json`).
fn is_lm_eval_model_folder(folder: &Path) -> bool {
    std::fs::read_dir(folder).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            let name = entry.file_name().to_string_lossy().to_lowercase();
            lm_eval::is_samples_name(&name) && entry.path().is_file()
        })
    })
}

/// A folder's files whose lower-case name passes `named`, in path order (none when it cannot be
/// read): how importers find the file a run folder is read through.
pub(super) fn files_named(folder: &Path, named: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| {
                    path.is_file()
                        && path
                            .file_name()
                            .is_some_and(|n| named(&n.to_string_lossy().to_lowercase()))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Whether the first of `files` is a JSON object that `is` takes: how a folder of one harness's
/// per-task or per-run files is recognised without reading them all.
pub(super) fn first_file_is(
    files: &[PathBuf],
    is: impl Fn(&serde_json::Map<String, Value>) -> bool,
) -> bool {
    files.first().is_some_and(|file| {
        std::fs::read(file)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .and_then(|value| value.as_object().map(&is))
            .unwrap_or(false)
    })
}

/// One file of a folder read as one result: its parsed JSON and its bytes (for the content hash),
/// refused naming the file when `is` does not take its object (`what` says what it should be).
pub(super) fn read_member(
    path: &Path,
    is: impl Fn(&serde_json::Map<String, Value>) -> bool,
    what: &str,
) -> Result<(Value, Vec<u8>), LoadError> {
    read_value_member(path, |value| value.as_object().is_some_and(&is), what)
}

/// [`read_member`] for a file whose JSON need not be an object (AlpacaEval's and LiveCodeBench's
/// are arrays).
pub(super) fn read_value_member(
    path: &Path,
    is: impl Fn(&Value) -> bool,
    what: &str,
) -> Result<(Value, Vec<u8>), LoadError> {
    let file = path.display().to_string();
    let text = std::fs::read(path)
        .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
    let (value, _) = json::parse_lenient(&text, &file)?;
    if !is(&value) {
        return Err(LoadError::new(&file, format!("not {what}")));
    }
    Ok((value, text))
}

/// The files `candidate` finds in a folder and in its subfolders down to `depth` levels (dot
/// folders and those `skip` takes left out), appended to `found` in walk order; with `first_only`,
/// the walk stops at the first. For the harnesses that lay one result file out per task folder.
pub(super) fn files_in_tree(
    folder: &Path,
    depth: usize,
    first_only: bool,
    candidate: &dyn Fn(&Path) -> Option<PathBuf>,
    skip: &dyn Fn(&Path) -> bool,
    found: &mut Vec<PathBuf>,
) {
    if let Some(file) = candidate(folder) {
        found.push(file);
        if first_only {
            return;
        }
    }
    if depth == 0 {
        return;
    }
    for sub in subfolders(folder).into_iter().filter(|sub| !skip(sub)) {
        files_in_tree(&sub, depth - 1, first_only, candidate, skip, found);
        if first_only && !found.is_empty() {
            return;
        }
    }
}

/// A folder's subfolders in path order, leaving out dot folders (a regrade's copies, a tool's cache).
pub(super) fn subfolders(folder: &Path) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| {
                    path.is_dir()
                        && !path
                            .file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                })
                .collect()
        })
        .unwrap_or_default();
    folders.sort();
    folders
}

/// The subfolders a folder is read as when its own top level holds no result file: its lm-eval
/// model folders, in path order. lm-eval's `--output_path` is such a folder, one subfolder per
/// model, and a team compares the models in it; any other folder of folders is refused naming them.
pub fn model_folders(folder: &Path) -> Vec<PathBuf> {
    if !own_entries(folder).is_empty() || !submission_folders(folder).is_empty() {
        return Vec::new();
    }
    lm_eval_model_folders(folder)
}

/// A folder's subfolders that lm-eval wrote for a model (whatever the folder holds itself).
fn lm_eval_model_folders(folder: &Path) -> Vec<PathBuf> {
    subfolders(folder)
        .into_iter()
        .filter(|path| !is_run_folder(path) && is_lm_eval_model_folder(path))
        .collect()
}

/// A folder's subfolders that are leaderboard submissions, each with the results read for it, in
/// path order: a SWE-bench submission (`evaluation/<split>/<submission>/` of SWE-bench/experiments,
/// read through its `results/results.json`, or `new_eval_results/report.json` of a graded run), an
/// AppWorld experiment (`experiments/outputs/<experiment>/`, read through its `evaluations/`), or a
/// folder of runs (every result in it a harness's run folder, or a file named `…results.json`: a
/// Terminal-Bench leaderboard submission's `<run>/results.json` or `<date>_results.json` files; or
/// an MLE-bench run group's `…grading_report….json`).
/// Leaderboard repositories keep one such folder per submission beside the ones that are runs.
pub fn submission_folders(folder: &Path) -> Vec<(PathBuf, Vec<PathBuf>)> {
    subfolders(folder)
        .into_iter()
        .filter(|path| !is_run_folder(path) && !is_lm_eval_model_folder(path))
        .filter_map(|path| submission_results(&path).map(|results| (path, results)))
        .collect()
}

/// The results read for a submission folder ([`submission_folders`]), None for any other folder.
fn submission_results(folder: &Path) -> Option<Vec<PathBuf>> {
    if let Some(results) = swebench::submission_results(folder) {
        return Some(vec![results]);
    }
    if let Some(reports) = appworld::evaluations_in(folder) {
        return Some(reports);
    }
    let own = own_entries(folder);
    let mut run_group = false;
    let runs_only = own.iter().all(|path| {
        is_run_folder(path)
            || (path.is_file()
                && path.file_name().is_some_and(|n| {
                    let name = n.to_string_lossy().to_lowercase();
                    run_group |= mlebench::is_report_name(&name);
                    name.ends_with("results.json") || mlebench::is_report_name(&name)
                }))
    });
    if own.is_empty() || !runs_only {
        return None;
    }
    // A folder one level up (a leaderboard's folder of submissions, some of them folders of runs)
    // is no submission: its subfolders that are not runs would be left out without a word. An
    // MLE-bench run group's other subfolders are the runs its report grades.
    let hidden = |path: &Path| {
        path.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
    };
    let results_elsewhere = subfolders(folder).iter().any(|sub| {
        !is_run_folder(sub) && !hidden(sub) && {
            let mut found = Vec::new();
            result_files_below(sub, UNREAD_DEPTH, &mut found);
            !found.is_empty()
        }
    });
    (run_group || !results_elsewhere).then_some(own)
}

/// A folder's own result files and run folders ([`folder_entries`] without its model folders).
fn own_entries(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    // `helm-summarize` writes its tables beside a suite's run folders.
    let helm_suite = paths.iter().any(|path| helm::is_run_folder(path));
    let mut paths: Vec<PathBuf> = paths
        .into_iter()
        .filter(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            let companion =
                is_companion(path, &name) || (helm_suite && helm::is_suite_summary(&name));
            !name.starts_with('.')
                && !companion
                && if path.is_dir() {
                    is_run_folder(path)
                } else {
                    is_result_file(path)
                }
        })
        .collect();
    paths.sort();
    paths
}

/// Whether a file's extension is one a folder's result files have: every format the loader reads
/// on its own (`.tsv`, the gzip-compressed text formats too), Inspect's `.eval` and HAL databases.
fn is_result_file(path: &Path) -> bool {
    ["csv", "jsonl", "ndjson", "json", "eval", "parquet"]
        .iter()
        .any(|extension| has_extension(path, extension))
        || crate::data::read::detect_format(path).is_ok()
        || (is_database_name(path)
            && hal_db::is_database(path)
            && hal_db::lists_tasks(path) == Some(true))
}

fn is_database_name(path: &Path) -> bool {
    ["db", "sqlite", "sqlite3"]
        .iter()
        .any(|extension| has_extension(path, extension))
}

/// A folder's HAL databases that list no task (every run scored otherwise): left out of it, noted.
fn databases_without_tasks(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            is_database_name(path)
                && hal_db::is_database(path)
                && hal_db::lists_tasks(path) == Some(false)
        })
        .collect();
    found.sort();
    found
}

/// How deep [`unread_subfolders`] looks for result files below a subfolder, and how many it names.
const UNREAD_DEPTH: usize = 4;
const UNREAD_NAMED: usize = 3;

/// The subfolders of a folder that [`folder_entries`] leaves out (they are not runs of a harness
/// pareval reads) although result files lie in them or below: per subfolder, in path order, the
/// number of such files (to a depth of [`UNREAD_DEPTH`]) and the first few by path. A folder of
/// experiments, each in a folder of its own, is read as nothing but its top-level files, so a
/// loader says what it left out rather than dropping it in silence.
pub fn unread_subfolders(folder: &Path) -> Vec<(PathBuf, usize, Vec<PathBuf>)> {
    // An MLE-bench run group's subfolders are the runs its grading report grades (their
    // submission CSVs are Kaggle predictions, not records).
    if own_entries(folder).iter().any(|path| {
        path.file_name()
            .is_some_and(|n| mlebench::is_report_name(&n.to_string_lossy().to_lowercase()))
    }) {
        return Vec::new();
    }
    if swebench_pro_output(folder) {
        return Vec::new();
    }
    let models = model_folders(folder);
    if models.is_empty() && deep_layout_read(folder).is_some() {
        return Vec::new();
    }
    let submissions: Vec<PathBuf> = submission_folders(folder)
        .into_iter()
        .map(|(submission, _)| submission)
        .collect();
    subfolders(folder)
        .into_iter()
        .filter(|path| !is_run_folder(path) && !models.contains(path))
        .filter(|path| !submissions.contains(path))
        .filter_map(|subfolder| {
            let mut found = Vec::new();
            result_files_below(&subfolder, UNREAD_DEPTH, &mut found);
            found.sort();
            let count = found.len();
            found.truncate(UNREAD_NAMED);
            (count > 0).then_some((subfolder, count, found))
        })
        .collect()
}

/// The result files in a folder and its subfolders to `depth` levels (1: its own), dot files and
/// folders left out, in the order the folders list them.
fn result_files_below(folder: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for path in entries.flatten().map(|entry| entry.path()) {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            if depth > 1 {
                result_files_below(&path, depth - 1, found);
            }
        } else if is_result_file(&path) {
            found.push(path);
        }
    }
}

/// The name of the folder a result file lies in (its real path's parent, so `./results.json`
/// names the working folder), for harnesses that store no system name; `fallback` without one.
pub(super) fn folder_of_file(path: &Path, fallback: &str) -> String {
    path.canonicalize()
        .ok()
        .as_deref()
        .and_then(Path::parent)
        .or_else(|| path.parent())
        .and_then(Path::file_name)
        .map_or_else(
            || fallback.to_string(),
            |name| name.to_string_lossy().into_owned(),
        )
}

/// Whether a folder is a SWE-Bench Pro run's `output_dir`: its `eval_results.json` scores the
/// instances, and each instance's folder holds the evaluation's working files (`_output.json`
/// with the tests' statuses, the patch, the logs), which are not read.
fn swebench_pro_output(folder: &Path) -> bool {
    own_entries(folder)
        .iter()
        .any(|path| swebench_pro::is_eval_results_file(path))
}

/// The notes a loader gives for a folder's subfolders: the [`submission_folders`] it read, the
/// [`model_folders`] it read in place of its own files, then each of its [`unread_subfolders`].
pub fn unread_subfolder_notes(folder: &Path) -> Vec<String> {
    let models = model_folders(folder);
    let read_models = (!models.is_empty()).then(|| {
        format!(
            "{}: its top level holds no result file; read its lm-eval model folder{} {} (lm-eval writes one per model under --output_path)",
            folder.display(),
            if models.len() == 1 { "" } else { "s" },
            folder_names(&models)
        )
    });
    let submissions: Vec<PathBuf> = submission_folders(folder)
        .into_iter()
        .map(|(submission, _)| submission)
        .collect();
    let read_submissions = (!submissions.is_empty()).then(|| {
        format!(
            "{}: read its {} subfolder{} of runs {} (each holds runs or results files only, as leaderboards keep one per submission; a SWE-bench submission through its results/results.json, an AppWorld experiment through its evaluations/)",
            folder.display(),
            submissions.len(),
            if submissions.len() == 1 { "" } else { "s" },
            folder_names(&submissions)
        )
    });
    let databases = databases_without_tasks(folder);
    let left_databases = (!databases.is_empty()).then(|| {
        let names: Vec<String> = databases
            .iter()
            .map(|path| path.file_name().unwrap_or_default().to_string_lossy().into_owned())
            .collect();
        format!(
            "{}: left out {} (HAL leaderboard database{} whose runs list no task: the benchmark is scored otherwise)",
            folder.display(),
            names.join(", "),
            if names.len() == 1 { "" } else { "s" }
        )
    });
    let instance_folders = if swebench_pro_output(folder) {
        subfolders(folder).len()
    } else {
        0
    };
    let left_instances = (instance_folders > 0).then(|| {
        format!(
            "{}: left out its {instance_folders} instance folder{} (SWE-Bench Pro's per-instance test outputs, patches and logs, which its eval_results.json scores)",
            folder.display(),
            if instance_folders == 1 { "" } else { "s" }
        )
    });
    let read_deeper = models
        .is_empty()
        .then(|| deep_layout_read(folder))
        .flatten()
        .map(|layout| layout.note(folder));
    read_models
        .into_iter()
        .chain(read_deeper)
        .chain(read_submissions)
        .chain(left_databases)
        .chain(left_instances)
        .chain(unread_files_note(folder))
        .chain(unread_subfolders(folder).into_iter().map(unread_note))
        .collect()
}

/// How many files a note names before it counts the rest.
const FILES_NAMED: usize = 5;

/// The note for a folder's own files that are not read: neither a result file (by extension) nor
/// read beside one, nor hidden (a `d.csv.bak`, a `README.md`): said, so that a file meant as
/// records and named otherwise is not left out in silence. Only for a folder read through its own
/// files (a harness's run folder is read by its importer, which knows its files).
fn unread_files_note(folder: &Path) -> Option<String> {
    if is_run_folder(folder) || own_entries(folder).is_empty() {
        return None;
    }
    let databases = databases_without_tasks(folder);
    let mut unread: Vec<String> = std::fs::read_dir(folder)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && !databases.contains(path))
        .filter(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            !name.starts_with('.') && !is_result_file(path) && !is_companion(path, &name)
        })
        .map(|path| {
            path.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    if unread.is_empty() {
        return None;
    }
    unread.sort();
    let count = unread.len();
    let mut named: Vec<String> = unread.into_iter().take(FILES_NAMED).collect();
    if count > FILES_NAMED {
        named.push(format!("… and {} more", count - FILES_NAMED));
    }
    Some(format!(
        "{}: left out {count} file{} whose name is no format pareval reads ({}); a records file ends in .csv, .tsv, .jsonl, .ndjson, .json or .parquet (text formats also .gz)",
        folder.display(),
        if count == 1 { "" } else { "s" },
        named.join(", ")
    ))
}

/// The deeper layout a folder is read through ([`folder_entries`]): only when it holds no result
/// file, submission or model folder of its own.
fn deep_layout_read(folder: &Path) -> Option<deep_layout::DeepLayout> {
    if !own_entries(folder).is_empty() || !submission_folders(folder).is_empty() {
        return None;
    }
    deep_layout::deep_layout(folder)
}

/// How many folders a note names before it counts the rest.
const FOLDERS_NAMED: usize = 8;

/// Folders' names for a note (`a/, b/`), the first [`FOLDERS_NAMED`] and then how many more: a
/// leaderboard's split folder holds hundreds of submissions.
fn folder_names(folders: &[PathBuf]) -> String {
    let mut names: Vec<String> = folders
        .iter()
        .take(FOLDERS_NAMED)
        .map(|folder| {
            format!(
                "{}/",
                folder.file_name().unwrap_or_default().to_string_lossy()
            )
        })
        .collect();
    if folders.len() > FOLDERS_NAMED {
        names.push(format!("… and {} more", folders.len() - FOLDERS_NAMED));
    }
    names.join(", ")
}

/// The note for one of [`unread_subfolders`].
fn unread_note((subfolder, count, named): (PathBuf, usize, Vec<PathBuf>)) -> String {
    let names: Vec<String> = named
        .iter()
        .map(|file| {
            file.strip_prefix(&subfolder)
                .unwrap_or(file)
                .display()
                .to_string()
        })
        .collect();
    let more = if count > named.len() { ", …" } else { "" };
    format!(
        "{}: not read: a folder that is not a run of a harness pareval reads, holding {count} result file{} ({}{more}); give it, or its files, to read them",
        subfolder.display(),
        if count == 1 { "" } else { "s" },
        names.join(", ")
    )
}

/// Whether a file in a folder is read beside another rather than on its own (`name` lower case):
/// Inspect's listings of a log folder (`logs.json`, `eval-set.json`), BigCodeBench's summary beside
/// its eval results (`…_pass_at_k.json`), lm-eval's aggregate `results_<date>.json` beside its
/// `samples_<task>_<date>.jsonl` files (lmms-eval's `<date>_results.json`), a HAL run's raw results and time lines beside its upload,
/// a Multi-SWE-bench split's `index.json` beside its submission folders, MLE-bench's
/// `run_group_experiments.csv` beside its run groups and `metadata.json` in each, an OpenHands output
/// folder's other files beside its `output.jsonl` (metadata, reports, derived copies, V1's critic
/// attempts and cost report), sb-cli's `.response.json` beside its report and the earlier fetches
/// of a report fetched again, a HumanEval samples file beside its `_results.jsonl`, and the
/// `question.jsonl` of a FastChat or LiveBench bench folder beside its `model_judgment/` (the
/// questions the judgments are read with, not results), and a SWE-bench/experiments submission's
/// `metadata.yaml` (its system's name and split).
fn is_companion(path: &Path, name: &str) -> bool {
    let lm_eval_aggregate = || {
        lm_eval::is_aggregate_name(name)
            && path
                .parent()
                .and_then(|f| std::fs::read_dir(f).ok())
                .is_some_and(|entries| {
                    entries.flatten().any(|entry| {
                        let other = entry.file_name().to_string_lossy().to_lowercase();
                        lm_eval::is_samples_name(&other)
                    })
                })
    };
    // Multi-SWE-bench's split folder keeps its instance index beside the submission folders.
    let split_index = || {
        name == "index.json"
            && path
                .parent()
                .is_some_and(|folder| !submission_folders(folder).is_empty())
    };
    // An OpenHands output folder: beside output.jsonl (one line per instance, read with its grades),
    // its metadata, the SWE-bench reports (V0 report.json; V1 output.report.json, read through
    // output.jsonl), the predictions and graded copies derived from it (output.swebench.jsonl,
    // output.swebench_eval.jsonl), V1's critic attempts and cost report.
    let beside = |other: &str| path.parent().is_some_and(|f| f.join(other).is_file());
    let openhands_companion = || {
        let derived = name != "output.jsonl"
            && (name.starts_with("output.")
                || matches!(name, "metadata.json" | "report.json" | "cost_report.jsonl"));
        (derived && beside("output.jsonl"))
            || name
                .strip_suffix(".swebench_eval.jsonl")
                .is_some_and(|stem| beside(&format!("{stem}.jsonl")))
    };
    // An MLE-bench run group keeps its metadata.json beside the grading report.
    let run_group_metadata = || {
        name == "metadata.json"
            && path
                .parent()
                .and_then(|f| std::fs::read_dir(f).ok())
                .is_some_and(|entries| {
                    entries.flatten().any(|entry| {
                        mlebench::is_report_name(
                            &entry.file_name().to_string_lossy().to_lowercase(),
                        )
                    })
                })
    };
    // A SWE-bench/experiments submission's metadata.yaml names its system and split (read).
    let submission_metadata = || {
        matches!(name, "metadata.yaml" | "metadata.yml")
            && path
                .parent()
                .is_some_and(|folder| swebench::submission_results(folder).is_some())
    };
    let judged_questions = || {
        name == "question.jsonl"
            && path
                .parent()
                .is_some_and(|f| f.join("model_judgment").is_dir())
    };
    matches!(
        name,
        "logs.json" | "eval-set.json" | mlebench::EXPERIMENTS_FILE
    ) || run_group_metadata()
        || submission_metadata()
        || judged_questions()
        || name.ends_with("_pass_at_k.json")
        || split_index()
        || openhands_companion()
        || lm_eval_aggregate()
        || hal::is_run_companion(path, name)
        || livecodebench::is_aggregate_beside(path, name)
        || human_eval::is_samples_beside(path)
        || agentbench::is_companion(path, name)
        || verifiers::is_companion(path, name)
        || nemo_skills::is_companion(path, name)
        || sb_cli_response(name).is_some_and(|report| beside(&report))
        || swebench::sb_cli_superseded(path)
}

/// sb-cli's `<subset>__<split>__<run_id>.response.json`, written beside the report of that run with
/// what the server sent besides the report: the report's own file name.
fn sb_cli_response(name: &str) -> Option<String> {
    let stem = name.strip_suffix(".response.json")?;
    let report = format!("{stem}.json");
    swebench::sb_cli_report_name(&report)
        .is_some()
        .then_some(report)
}

/// A Git LFS pointer's first line: a repository that keeps a file in LFS checks out this text in
/// its place until `git lfs pull` fetches it.
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/";

/// Refuses a file that is a Git LFS pointer rather than the file (leaderboard repositories keep
/// their result files in LFS): the parser's own message would be a puzzle, and the rows are not
/// there to read.
/// A harness's result file compressed with gzip: the importers read files as the harness wrote
/// them (it said "the file is not UTF-8 text", and `info` on it "missing required column"), so it
/// is refused saying what to do. Record tables are read compressed by the loader (`.csv.gz`, …).
fn refuse_compressed(path: &Path) -> Result<(), LoadError> {
    use std::io::Read;
    if !path.is_file() {
        return Ok(());
    }
    let mut head = Vec::with_capacity(2);
    let read = std::fs::File::open(path).and_then(|file| file.take(2).read_to_end(&mut head));
    if read.is_ok() && head == [0x1f, 0x8b] {
        return Err(LoadError::new(
            path.display().to_string(),
            "is gzip-compressed: a harness's result file is read as the harness wrote it, so decompress it first (gunzip); only record tables (.csv.gz, .jsonl.gz, …) are read compressed",
        ));
    }
    Ok(())
}

pub fn refuse_lfs_pointer(path: &Path) -> Result<(), LoadError> {
    use std::io::Read;
    if !path.is_file() {
        return Ok(());
    }
    let mut head = Vec::with_capacity(256);
    let read = std::fs::File::open(path).and_then(|file| file.take(256).read_to_end(&mut head));
    if read.is_err() || !head.starts_with(LFS_POINTER) {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&head);
    let field = |key: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(key).map(str::trim))
            .unwrap_or("?")
            .to_string()
    };
    Err(LoadError::new(
        path.display().to_string(),
        format!(
            "line 1: a Git LFS pointer, not the file itself ({} bytes, oid {}): the repository keeps it in Git LFS; fetch it with `git lfs pull` and read it again",
            field("size "),
            field("oid ")
        ),
    ))
}

/// The files read for the paths given: a file as it is, a run folder ([`is_run_folder`]) as it is,
/// any other folder as its [`folder_entries`] (an empty one is refused, naming it).
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() && !is_run_folder(path) {
            // An unreadable folder would list as empty, and be told it holds no result files.
            if let Err(error) = std::fs::read_dir(path) {
                return Err(LoadError::new(
                    path.display().to_string(),
                    format!("cannot read the folder: {error}"),
                ));
            }
            let entries = folder_entries(path);
            if entries.is_empty() {
                let mut message = "the folder holds no result files yet (.csv, .jsonl, .json, .eval, .parquet, or the run and output folders of the harnesses pareval reads (pareval import --help lists them), and subfolders holding only such runs)".to_string();
                let unread = unread_subfolders(path);
                let mut below: Vec<String> = unread
                    .iter()
                    .take(FOLDERS_NAMED)
                    .map(|(subfolder, count, _)| {
                        let name = subfolder.file_name().unwrap_or_default().to_string_lossy();
                        format!(
                            "{name}/ ({count} file{})",
                            if *count == 1 { "" } else { "s" }
                        )
                    })
                    .collect();
                if unread.len() > FOLDERS_NAMED {
                    below.push(format!("… and {} more", unread.len() - FOLDERS_NAMED));
                }
                if !below.is_empty() {
                    message.push_str(&format!(
                        "; result files lie in its subfolders {}: give those folders, or their files",
                        below.join(", ")
                    ));
                }
                return Err(LoadError::new(path.display().to_string(), message));
            }
            files.extend(entries);
        } else {
            files.push(path.clone());
        }
    }
    mt_bench::refuse_mixed_modes(&files)?;
    deep_layout::refuse_several_judges(&files)?;
    Ok(files)
}

/// A folder's MT-Bench single-answer and pairwise judgment files when it holds both (they are not
/// read together), and why: what `watch` leaves out of a folder it follows, saying so.
pub fn mixed_judgments(files: &[PathBuf]) -> Option<(PathBuf, PathBuf, LoadError)> {
    let (single, pair) = mt_bench::mixed_modes(files)?;
    let why = mt_bench::mixed_modes_error(&single, &pair);
    Some((single, pair, why))
}

/// A folder's Arena-Hard-Auto judgment files when they come from several judges (they are not
/// read together), and why: what `watch` leaves out of a folder it follows, saying so.
pub fn several_judges(files: &[PathBuf]) -> Option<(Vec<PathBuf>, LoadError)> {
    deep_layout::several_judges(files)
}

/// Whether a file is a lighteval details file (`details_<task>_<date>.parquet`).
pub fn is_lighteval_details(path: &Path) -> bool {
    lighteval::is_details(path)
}

/// Whether `path` may hold a native file: a `.json`, `.jsonl` or `.eval` file, a folder, a
/// lighteval details Parquet file or an SQLite database (HAL's leaderboard; never CSV).
pub fn may_be_native(path: &Path) -> bool {
    path.is_dir()
        || is_json(path)
        || is_json_lines(path)
        || has_extension(path, "eval")
        || lighteval::is_details(path)
        || hal_db::is_database(path)
        || vlmevalkit::is_result_file(path)
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
}

fn is_json(path: &Path) -> bool {
    has_extension(path, "json")
}

fn is_json_lines(path: &Path) -> bool {
    has_extension(path, "jsonl") || has_extension(path, "ndjson")
}

/// Calls `visit` with each non-empty line of a JSON Lines file (1-based number, value), Python's
/// non-finite tokens read as null; returns the count of such tokens. With `first_only`, just the first.
/// Values are visited one at a time, so a large file is never held as JSON values at once.
fn for_each_line(
    bytes: &[u8],
    file: &str,
    first_only: bool,
    mut visit: impl FnMut(u64, Value) -> Result<(), String>,
) -> Result<usize, LoadError> {
    let mut non_finite = 0;
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line_number = index as u64 + 1;
        let at = |what: String| LoadError::new(file, format!("line {line_number}: {what}"));
        let (value, replaced) = json::parse_lenient_line(line, file).map_err(|e| at(e.message))?;
        non_finite += replaced;
        visit(line_number, value).map_err(at)?;
        if first_only {
            break;
        }
    }
    Ok(non_finite)
}

/// Where a harness's JSON Lines file's last line starts and its number, when a live reader should
/// leave it for later: it has no line end, and the importers' own reading (which takes NaN and
/// Infinity, as Python's json writes them) does not read it yet. A whole last line without a line
/// end is read: lm-eval ends its samples files so (a strict check set aside a finished line
/// holding NaN, for ever).
fn unfinished_json_line(text: &[u8]) -> Option<(usize, u64)> {
    if text.ends_with(b"\n") {
        return None;
    }
    let start = text
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |end| end + 1);
    let last = &text[start..];
    if last.iter().all(u8::is_ascii_whitespace) || json::parse_lenient_line(last, "").is_ok() {
        return None;
    }
    Some((
        start,
        text.iter().filter(|&&b| b == b'\n').count() as u64 + 1,
    ))
}

/// A harness's JSON Lines file that a folder reader reads itself, less a last line cut short (no
/// line end, and not JSON), as [`parse_file`] reads such a file given alone: a live reader leaves
/// the line for later, a read once leaves it out (the last write of a run stopped mid-line), each
/// with a note; read once, a file that is nothing but that line keeps it, to be refused with its
/// reason, unless `by_name` (the reader knows the file by its name and place, as AgentBench's
/// `runs.jsonl` and `error.jsonl`: a run stopped while its first sample was being written).
fn without_cut_last_line<'a>(
    text: &'a [u8],
    file: &str,
    live: bool,
    by_name: bool,
    notes: &mut Vec<String>,
) -> &'a [u8] {
    let Some((start, line)) = unfinished_json_line(text).filter(|&(start, _)| {
        live || by_name || !text[..start].iter().all(u8::is_ascii_whitespace)
    }) else {
        return text;
    };
    notes.push(if live {
        format!(
            "{file}: line {line} is not finished yet (no line end, and not JSON yet): left out until the harness ends it"
        )
    } else {
        format!(
            "{file}: line {line}, the last, is cut short (no line end, and not JSON): the last write of a run stopped mid-line, left out"
        )
    });
    &text[..start]
}

/// One native file, parsed.
struct Parsed {
    file: String,
    sha256: String,
    format: ImportFormat,
    imported: Imported,
}

/// Reads `path` as `format`, or as the format its keys show when `format` is None; `Ok(None)` when no
/// format is given and none is recognised.
fn parse_file(
    path: &Path,
    format: Option<ImportFormat>,
    settings: &ImportSettings<'_>,
) -> Result<Option<Parsed>, LoadError> {
    let file_path = native_file(path);
    refuse_lfs_pointer(&file_path)?;
    if format.is_some() {
        refuse_compressed(&file_path)?;
    }
    let helm_run = file_path
        .file_name()
        .is_some_and(|name| name == "per_instance_stats.json")
        && helm::run_folder_of(&file_path)
            .join("run_spec.json")
            .is_file();
    let aider_results = path.file_name().is_some_and(|name| name == aider::RESULTS);
    if format == Some(ImportFormat::Aider)
        || (format.is_none() && (aider_results || aider::is_run_folder(path)))
    {
        let (imported, bytes, file) = aider::run(
            path,
            settings.aider_tries().unwrap_or(aider::HEADLINE_TRIES),
        )?;
        return finish_parsed(imported, ImportFormat::Aider, file, &bytes, 0, settings).map(Some);
    }
    if format == Some(ImportFormat::OsWorld) || (format.is_none() && osworld::is_results_tree(path))
    {
        let (imported, bytes, file) = osworld::results(path, settings.split())?;
        return finish_parsed(imported, ImportFormat::OsWorld, file, &bytes, 0, settings).map(Some);
    }
    if format == Some(ImportFormat::AgentLab)
        || (format.is_none() && (agentlab::is_study(path) || agentlab::is_summary_file(path)))
    {
        let (imported, bytes, file) = agentlab::results(path)?;
        return finish_parsed(imported, ImportFormat::AgentLab, file, &bytes, 0, settings)
            .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::TheAgentCompany))
        && path.is_dir()
        && theagentcompany::is_results_folder(path)
    {
        let (imported, bytes, file) = theagentcompany::results_folder(path, settings.metric())?;
        return finish_parsed(
            imported,
            ImportFormat::TheAgentCompany,
            file,
            &bytes,
            0,
            settings,
        )
        .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::DeepEval))
        && path.is_dir()
        && deepeval::is_results_folder(path)
    {
        let (imported, bytes, file) = deepeval::results_folder(path, settings.metric())?;
        return finish_parsed(imported, ImportFormat::DeepEval, file, &bytes, 0, settings)
            .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::OpenAiEvals))
        && openai_evals::is_logs_folder(path)
    {
        let (imported, bytes, file) = openai_evals::logs_folder(path, settings)?;
        return finish_parsed(
            imported,
            ImportFormat::OpenAiEvals,
            file,
            &bytes,
            0,
            settings,
        )
        .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::AlpacaEval)) && alpaca_eval::is_tree(path) {
        let (imported, bytes, file) = alpaca_eval::tree(path, settings.metric())?;
        return finish_parsed(
            imported,
            ImportFormat::AlpacaEval,
            file,
            &bytes,
            0,
            settings,
        )
        .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::LiveCodeBench)) && livecodebench::is_tree(path) {
        let (imported, bytes, file) = livecodebench::tree(path)?;
        return finish_parsed(
            imported,
            ImportFormat::LiveCodeBench,
            file,
            &bytes,
            0,
            settings,
        )
        .map(Some);
    }
    if format == Some(ImportFormat::VlmEvalKit)
        || (format.is_none() && (vlmevalkit::is_tree(path) || vlmevalkit::is_result_file(path)))
    {
        let (imported, bytes, file) = if path.is_dir() {
            vlmevalkit::tree(path)?
        } else {
            vlmevalkit::file(path)?
        };
        return finish_parsed(
            imported,
            ImportFormat::VlmEvalKit,
            file,
            &bytes,
            0,
            settings,
        )
        .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::OpenCompass)) && opencompass::is_tree(path) {
        let (imported, bytes, file) =
            opencompass::tree(path, settings.metric(), settings.score_scale())?;
        return finish_parsed(
            imported,
            ImportFormat::OpenCompass,
            file,
            &bytes,
            0,
            settings,
        )
        .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::EvalScope)) && evalscope::is_outputs(path) {
        let (imported, bytes, file) = evalscope::outputs(path, settings)?;
        return finish_parsed(imported, ImportFormat::EvalScope, file, &bytes, 0, settings)
            .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::AgentBench)) && agentbench::is_tree(path) {
        let (imported, bytes, file) = agentbench::tree(path, settings.metric(), settings.live)?;
        return finish_parsed(
            imported,
            ImportFormat::AgentBench,
            file,
            &bytes,
            0,
            settings,
        )
        .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::LiveBench)) && livebench::is_tree(path) {
        let (imported, bytes, file) = livebench::tree(path, settings.split(), settings.live)?;
        return finish_parsed(imported, ImportFormat::LiveBench, file, &bytes, 0, settings)
            .map(Some);
    }
    if matches!(format, None | Some(ImportFormat::SweBench)) && swebench_logs::is_logs(path) {
        let (imported, bytes, file) = swebench_logs::results(path, settings.split())?;
        return finish_parsed(imported, ImportFormat::SweBench, file, &bytes, 0, settings)
            .map(Some);
    }
    if (format == Some(ImportFormat::McpMark) && path.is_dir())
        || (format.is_none() && mcpmark::is_results_tree(path))
    {
        let (imported, bytes, file) = mcpmark::results(path)?;
        return finish_parsed(imported, ImportFormat::McpMark, file, &bytes, 0, settings).map(Some);
    }
    if (format == Some(ImportFormat::Balrog) && path.is_dir())
        || (format.is_none() && balrog::is_results_tree(path))
    {
        let (imported, bytes, file) = balrog::results(path, settings.metric())?;
        return finish_parsed(imported, ImportFormat::Balrog, file, &bytes, 0, settings).map(Some);
    }
    if (format == Some(ImportFormat::AgentDojo) && path.is_dir())
        || (format.is_none() && agentdojo::is_logdir(path))
    {
        let (imported, bytes, file) = agentdojo::results(path, settings.metric())?;
        return finish_parsed(imported, ImportFormat::AgentDojo, file, &bytes, 0, settings)
            .map(Some);
    }
    if format == Some(ImportFormat::Bfcl)
        || (format.is_none() && (bfcl::is_score_file(path) || bfcl::is_tree(path)))
    {
        let (imported, bytes, file) = bfcl::results(path)?;
        return finish_parsed(imported, ImportFormat::Bfcl, file, &bytes, 0, settings).map(Some);
    }
    if format.is_none() && bfcl::is_result_file(path) {
        return Err(LoadError::new(
            path.display().to_string(),
            "a BFCL result file: the model's answers, not their grades; run `bfcl evaluate` and give its score folder (score/<model>/…) or the project folder holding score/ and result/",
        ));
    }
    if matches!(format, None | Some(ImportFormat::Hal)) && hal_db::is_database(&file_path) {
        let (imported, bytes, file) = hal_db::leaderboard(&file_path)?;
        return finish_parsed(imported, ImportFormat::Hal, file, &bytes, 0, settings).map(Some);
    }
    if format == Some(ImportFormat::LightEval)
        || (format.is_none() && lighteval::is_details(&file_path))
    {
        let file = file_path.display().to_string();
        let bytes = std::fs::read(&file_path)
            .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
        // polars' Parquet reader panics on some damaged files (a struct's children, a page range).
        let details =
            crate::data::damaged::unless_damaged(&file, "the lighteval details file", || {
                lighteval::details(&bytes, &file_path, &file, settings.metric())
            })?;
        return match details {
            Ok(imported) => {
                finish_parsed(imported, ImportFormat::LightEval, file, &bytes, 0, settings)
                    .map(Some)
            }
            // Named like details but holding records: the canonical reader's.
            Err(_) if format.is_none() => Ok(None),
            Err(why) => Err(LoadError::new(&file, why)),
        };
    }
    if format == Some(ImportFormat::Helm) || (format.is_none() && helm_run) {
        let (imported, bytes, file) =
            helm::run(&helm::run_folder_of(&file_path), settings.metric())?;
        return finish_parsed(imported, ImportFormat::Helm, file, &bytes, 0, settings).map(Some);
    }
    let file = file_path.display().to_string();
    let stored = std::fs::read(&file_path)
        .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
    // A UTF-8 byte order mark (a file saved by a Windows editor) is not JSON: with it no harness
    // file was recognised, and the canonical reader's "missing column 'system'" blamed the rest.
    let bytes: &[u8] = json::without_bom(&stored);
    // An Inspect archive renamed (`log.zip`, no extension) is read as one when the format is named.
    let archive = has_extension(&file_path, "eval")
        || (format == Some(ImportFormat::Inspect) && bytes.starts_with(json::ZIP_MAGIC));
    // A format named on a file of the other JSON kind than its extension says (a tau2 file saved as
    // .jsonl, lm-eval samples as .json): read as that format writes them, noted (both were
    // refused: "tau2 results are JSON files", "trailing characters at line 2").
    let extension_lines = is_json_lines(&file_path);
    // `--from lm-eval` given its aggregate results file (one JSON document, not lines): what it is
    // and which files to give, where reading it as lines said "EOF while parsing" of line 1.
    if format == Some(ImportFormat::LmEval) && !extension_lines && one_json_document(bytes) {
        let hint = serde_json::from_slice::<Value>(json::without_bom(bytes))
            .ok()
            .and_then(|value| {
                value
                    .as_object()
                    .and_then(|object| lm_eval::aggregate_hint(object, &file_path))
            });
        if let Some(hint) = hint {
            return Err(LoadError::new(&file, hint));
        }
    }
    let read_as_lines = match format {
        Some(named) if extension_lines && !reads_json_lines(named) => false,
        Some(named) if !extension_lines && JSON_LINES_ONLY.contains(&named) => true,
        // No format named: a `.jsonl` whose first line is no JSON but whose whole text is one
        // JSON document (a tau-bench array saved as .jsonl) is read as that document, recognised
        // by its keys (it said "EOF while parsing a list" of line 1).
        None if extension_lines && one_json_document(bytes) => false,
        _ => extension_lines,
    };
    let kind_note = (read_as_lines != extension_lines).then(|| {
        let whose = format.map_or(String::new(), |named| {
            format!(", as {} writes its results", named.name())
        });
        if read_as_lines {
            format!("{file}: read as JSON Lines{whose}, though its name does not end in .jsonl")
        } else {
            format!("{file}: read as one JSON document{whose}, though its name ends in .jsonl")
        }
    });
    let (imported, format, non_finite) = if archive {
        if format.is_some_and(|f| f != ImportFormat::Inspect) {
            return Err(LoadError::new(
                &file,
                "a .eval file is an Inspect log; read it with --from inspect",
            ));
        }
        let log = inspect::eval_archive(bytes, &file)?;
        (
            inspect::rows(&log, &file, settings)?,
            ImportFormat::Inspect,
            0,
        )
    } else if read_as_lines {
        // A harness appending a line per result may be caught mid-line (a long trajectory is
        // written in several goes): a live reader leaves that line for a later read. Read once,
        // such a line is the last write of a run that was stopped mid-line (killed, or out of
        // disk): left out with a note, where the whole file was refused.
        let mut cut = Vec::new();
        let bytes = without_cut_last_line(bytes, &file, settings.live, false, &mut cut);
        let format = match format {
            Some(format) => format,
            None => {
                // Only the first line decides, so canonical JSON Lines are not parsed twice.
                let mut first = None;
                let _ = for_each_line(bytes, &file, true, |_, value| {
                    first = Some(value);
                    Ok(())
                });
                match first.as_ref().and_then(ImportFormat::detect_line) {
                    Some(format) => format,
                    // A harness's input or ungraded output: say which file to give instead.
                    None => match first.as_ref().and_then(ungraded_hint) {
                        Some(hint) => return Err(LoadError::new(&file, hint)),
                        None => return Ok(None),
                    },
                }
            }
        };
        let (imported, non_finite) = match format {
            ImportFormat::OpenHands | ImportFormat::Metr => {
                let mut lines = Vec::new();
                let non_finite = for_each_line(bytes, &file, false, |number, value| {
                    lines.push((number, value));
                    Ok(())
                })?;
                let imported = if format == ImportFormat::Metr {
                    metr::runs(&lines, &file, settings.metric())?
                } else {
                    openhands::output(&lines, &file)?
                };
                (imported, non_finite)
            }
            // Typed lines: a red-teaming eval's prompts and responses are never held as values.
            ImportFormat::Promptfoo => (promptfoo::lines(bytes, &file, settings.metric())?, 0),
            ImportFormat::OpenAiEvals => (openai_evals::log_file(bytes, &file, settings)?, 0),
            ImportFormat::LiveBench => {
                livebench::judgments(bytes, &file_path, &file, settings.split())?
            }
            ImportFormat::ArenaHard => arena_hard::judgments(bytes, &file)?,
            ImportFormat::AgentBench => {
                agentbench::runs(bytes, &file_path, &file, settings.metric(), settings.live)?
            }
            ImportFormat::HumanEval => human_eval::results(bytes, &file_path, &file)?,
            ImportFormat::Verifiers => verifiers::read(
                bytes,
                &file_path,
                &file,
                settings.metric(),
                settings.score_scale(),
            )?,
            ImportFormat::NemoSkills => {
                nemo_skills::output(bytes, &file_path, &file, settings.metric())?
            }
            ImportFormat::MtBench => mt_bench::judgments(
                bytes,
                &file_path,
                &file,
                settings.metric(),
                settings.score_scale(),
            )?,
            ImportFormat::EvalScope => (
                evalscope::review_file(bytes, &file_path, &file, settings)?,
                0,
            ),
            ImportFormat::LmEval => {
                let mut reader = lm_eval::Reader::default();
                let non_finite = for_each_line(bytes, &file, false, |number, value| {
                    reader.line(number, &value)
                })?;
                (reader.finish(&file_path, &file, settings)?, non_finite)
            }
            other => {
                return Err(LoadError::new(
                    &file,
                    format!("{} results are JSON files, not JSON Lines", other.name()),
                ));
            }
        };
        let mut imported = imported;
        imported.notes.extend(cut);
        (imported, format, non_finite)
    } else if format == Some(ImportFormat::Promptfoo)
        || (format.is_none() && promptfoo::looks_like_output(&file_path))
    {
        (
            promptfoo::output(bytes, &file, settings.metric())?,
            ImportFormat::Promptfoo,
            0,
        )
    } else {
        let (value, non_finite) = match json::parse_lenient(bytes, &file) {
            Ok(parsed) => parsed,
            // Without --from a file that is not JSON is not ours to judge: the canonical reader
            // says why. A run folder's own results file is ours (the canonical reader would only
            // say the folder is one).
            // Nor is a JSON file with a key written twice, whatever wrote it: which value is meant
            // cannot be told, so it is refused here rather than read as records without the key.
            Err(_)
                if format.is_none()
                    && !path.is_dir()
                    && json::repeated_key(json::without_bom(bytes)).is_none() =>
            {
                return Ok(None);
            }
            Err(error) => return Err(error),
        };
        let Some(format) = format.or_else(|| ImportFormat::detect(&value)) else {
            // Canonical JSON records are an array: an object is a harness file of another kind.
            return match value.as_object() {
                Some(object) if tau::is_simulation(object) => Err(LoadError::new(
                    &file,
                    format!(
                        "one simulation of a tau2 run in its dir format: give the run's folder{} (or its results.json), whose simulation_index is read for every simulation",
                        tau::run_folder_of(&file_path)
                            .map(|run| format!(" {}", run.display()))
                            .unwrap_or_default()
                    ),
                )),
                Some(object) => Err(
                    match opencompass::judge_output_hint(&file_path)
                        .or_else(|| opencompass::ungraded_hint(object))
                        .or_else(|| hle::ungraded_hint(object, &file_path))
                        .or_else(|| balrog::summary_hint(object, &file_path))
                        .or_else(|| lm_eval::aggregate_hint(object, &file_path))
                    {
                        Some(hint) => LoadError::new(&file, hint),
                        None => unknown_object(&file, object),
                    },
                ),
                None => Ok(None),
            };
        };
        // The two SWE-bench formats are easily named for each other (a submission's results.json
        // of SWE-bench/experiments, swebench.com's leaderboards.json): a file that is plainly the
        // other one is read as it, noted.
        let named = format;
        let format = match (format, value.as_object()) {
            (ImportFormat::SweBenchLeaderboard, Some(object))
                if !swebench_board::looks_like(object) && swebench::looks_like(object) =>
            {
                ImportFormat::SweBench
            }
            (ImportFormat::SweBench, Some(object))
                if !swebench::looks_like(object) && swebench_board::looks_like(object) =>
            {
                ImportFormat::SweBenchLeaderboard
            }
            _ => format,
        };
        let mut imported = match format {
            ImportFormat::TauBench => tau::tau_bench(&value, &file_path, &file)?,
            ImportFormat::Tau2 => tau::tau2(&value, &file_path, &file)?,
            ImportFormat::TerminalBench => terminal_bench::results(&value, &file_path, &file)?,
            ImportFormat::Harbor => match value.as_object() {
                Some(object) if harbor::is_job(object) => {
                    harbor::job(file_path.parent().unwrap_or(Path::new(".")), &file)?
                }
                Some(object) if harbor::is_trial(object) => harbor::trial_file(&value, &file)?,
                _ => {
                    return Err(LoadError::new(
                        &file,
                        "not a Harbor job's or trial's result.json (a job has 'n_total_trials' or 'stats', a trial 'trial_name' and 'task_name')",
                    ));
                }
            },
            ImportFormat::SweBench => {
                swebench::results(&value, &file_path, &file, settings.split())?
            }
            ImportFormat::SweBenchLeaderboard => {
                swebench_board::results(&value, &file, settings.split())?
            }
            ImportFormat::Inspect => {
                let log = inspect::json_log(value, &file)?;
                inspect::rows(&log, &file, settings)?
            }
            ImportFormat::EvalPlus | ImportFormat::BigCodeBench => {
                let shape = value.as_object().and_then(evalplus::shape);
                let bigcodebench = shape == Some(evalplus::Shape::BigCodeBench);
                if shape.is_some() && bigcodebench != (format == ImportFormat::BigCodeBench) {
                    return Err(LoadError::new(
                        &file,
                        format!(
                            "this is a{} file; read it with --from {}",
                            if bigcodebench {
                                " BigCodeBench"
                            } else {
                                "n EvalPlus"
                            },
                            if bigcodebench {
                                "bigcodebench"
                            } else {
                                "evalplus"
                            }
                        ),
                    ));
                }
                evalplus::results(&value, &file_path, &file, settings.evalplus_tests)?
            }
            ImportFormat::Helm
            | ImportFormat::LightEval
            | ImportFormat::OsWorld
            | ImportFormat::AgentLab
            | ImportFormat::Bfcl => read_before_parsing(format, &file)?,
            ImportFormat::Hal => hal::upload(&value, &file)?,
            ImportFormat::AppWorld => appworld::evaluation(&value, &file_path, &file)?,
            ImportFormat::MleBench => {
                mlebench::report(&value, &file_path, &file, settings.metric())?
            }
            ImportFormat::TheAgentCompany => {
                theagentcompany::result(&value, &file_path, &file, settings.metric())?
            }
            // An output that does not start with its evalId (rewritten by another tool).
            ImportFormat::Promptfoo => promptfoo::output(bytes, &file, settings.metric())?,
            ImportFormat::DeepEval => {
                deepeval::test_run_file(&value, &file_path, &file, settings.metric())?
            }
            ImportFormat::AgentDojo => agentdojo::results(&file_path, settings.metric())?.0,
            ImportFormat::McpMark => mcpmark::results(&file_path)?.0,
            ImportFormat::Balrog => balrog::results(&file_path, settings.metric())?.0,
            ImportFormat::AlpacaEval => alpaca_eval::annotations(&value, &file)?,
            ImportFormat::WildBench => {
                wildbench::scores(&value, &file_path, &file, settings.score_scale())?
            }
            ImportFormat::SweBenchPro => {
                swebench_pro::results(&value, &file_path, &file, settings.split())?
            }
            ImportFormat::ArcAgi => arc_agi::results(&value, &file_path, &file, settings.split())?,
            ImportFormat::VlmEvalKit => {
                return Err(LoadError::new(
                    &file,
                    "not a VLMEvalKit per-question file (<model>_<dataset>_<judge>_result, _auxmatch or _results .xlsx/.tsv/.json) nor a work dir, model or run folder holding them",
                ));
            }
            ImportFormat::Hle => match value.as_object() {
                Some(object) if !hle::is_judged(object) => {
                    return Err(LoadError::new(
                        &file,
                        hle::ungraded_hint(object, &file_path).unwrap_or_else(|| {
                            "not a judged HLE predictions file (an object keyed by question id whose entries hold response and judge_response)".to_string()
                        }),
                    ));
                }
                _ => hle::judged(&value, &file_path, &file, settings.split())?,
            },
            ImportFormat::LiveCodeBench => livecodebench::eval_all(&value, &file_path, &file)?,
            ImportFormat::OpenCompass => match value.as_object() {
                Some(object) => opencompass::results(
                    object,
                    &file_path,
                    &file,
                    settings.metric(),
                    settings.score_scale(),
                )?,
                None => {
                    return Err(LoadError::new(
                        &file,
                        "an OpenCompass results file is a JSON object (results/<model>/<dataset>.json)",
                    ));
                }
            },
            // A renamed copy of one exercise's results, recognised by its keys.
            ImportFormat::Aider => {
                aider::run(
                    &file_path,
                    settings.aider_tries().unwrap_or(aider::HEADLINE_TRIES),
                )?
                .0
            }
            ImportFormat::OpenHands
            | ImportFormat::LmEval
            | ImportFormat::Metr
            | ImportFormat::OpenAiEvals
            | ImportFormat::LiveBench
            | ImportFormat::MtBench
            | ImportFormat::ArenaHard
            | ImportFormat::HumanEval
            | ImportFormat::EvalScope
            | ImportFormat::Verifiers
            | ImportFormat::NemoSkills
            | ImportFormat::AgentBench => {
                return Err(LoadError::new(
                    &file,
                    format!(
                        "{} results are JSON Lines ({}), one record per line",
                        format.name(),
                        match format {
                            ImportFormat::OpenHands => "output.jsonl",
                            ImportFormat::Metr => "runs.jsonl",
                            ImportFormat::OpenAiEvals => "<run_id>_<completion_fn>_<eval>.jsonl",
                            ImportFormat::LiveBench => "model_judgment/ground_truth_judgment.jsonl",
                            ImportFormat::MtBench =>
                                "model_judgment/<judge>_single.jsonl or _pair.jsonl",
                            ImportFormat::ArenaHard => "model_judgment/<judge>/<model>.jsonl",
                            ImportFormat::HumanEval => "<samples>.jsonl_results.jsonl",
                            ImportFormat::EvalScope => "reviews/<model>/<benchmark>_<subset>.jsonl",
                            ImportFormat::AgentBench => "<output>/<agent>/<task>/runs.jsonl",
                            ImportFormat::Verifiers =>
                                "results.jsonl beside metadata.json; v1: traces.jsonl",
                            ImportFormat::NemoSkills =>
                                "eval-results/<benchmark>/output-rs<seed>.jsonl",
                            _ =>
                                "samples_<task>_<date>.jsonl; lmms-eval: <date>_samples_<task>.jsonl",
                        }
                    ),
                ));
            }
        };
        if format != named {
            imported.notes.insert(
                0,
                format!(
                    "{file}: named {} but {}: read as {}",
                    named.name(),
                    if format == ImportFormat::SweBench {
                        "a SWE-bench submission's results.json or the harness's run report"
                    } else {
                        "swebench.com's leaderboards.json"
                    },
                    format.name()
                ),
            );
        }
        (imported, format, non_finite)
    };
    let mut imported = imported;
    imported.notes.extend(kind_note);
    finish_parsed(imported, format, file, &stored, non_finite, settings).map(Some)
}

/// Whether `bytes`, named as JSON Lines, are one JSON document instead: the first non-empty line is
/// no JSON value on its own, and the whole text is one.
fn one_json_document(bytes: &[u8]) -> bool {
    let first = bytes
        .split(|&b| b == b'\n')
        .find(|line| !line.trim_ascii().is_empty());
    first.is_some_and(|line| serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err())
        && serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}

/// The formats whose results are JSON Lines only (their JSON reader refuses them).
const JSON_LINES_ONLY: [ImportFormat; 12] = [
    ImportFormat::OpenHands,
    ImportFormat::LmEval,
    ImportFormat::Metr,
    ImportFormat::OpenAiEvals,
    ImportFormat::LiveBench,
    ImportFormat::MtBench,
    ImportFormat::ArenaHard,
    ImportFormat::HumanEval,
    ImportFormat::EvalScope,
    ImportFormat::Verifiers,
    ImportFormat::NemoSkills,
    ImportFormat::AgentBench,
];

/// Whether the JSON Lines reader reads `format`: those above, and promptfoo's, which writes either.
fn reads_json_lines(format: ImportFormat) -> bool {
    JSON_LINES_ONLY.contains(&format) || format == ImportFormat::Promptfoo
}

/// HELM runs, lighteval details, OSWorld results and AgentLab studies are read before any JSON is
/// parsed: a path that gets here is not one.
fn read_before_parsing(format: ImportFormat, file: &str) -> Result<Imported, LoadError> {
    Err(LoadError::new(
        file,
        match format {
            ImportFormat::Helm => {
                "HELM results are run folders (run_spec.json with per_instance_stats.json) or a suite folder of them"
            }
            ImportFormat::AgentLab => {
                "AgentLab results are study folders (<study>/<YYYY-MM-DD_HH-MM-SS>_<agent>_on_<task>_<seed>/ with exp_args.pkl and summary_info.json)"
            }
            ImportFormat::Bfcl => {
                "BFCL results are score files (score/<model>/<group>/BFCL_v4_<category>_score.json) read with their result files"
            }
            ImportFormat::OsWorld => {
                "OSWorld results are folders (<result_dir>/<action_space>/<observation_type>/<model>/<domain>/<example_id>/ with result.txt and traj.jsonl)"
            }
            _ => {
                "lighteval details are Parquet files (details/<model>/<date>/details_<task>_<date>.parquet)"
            }
        },
    ))
}

/// What every importer's rows go through: none is refused, the NaN tokens read are noted, costs
/// and seconds that are no number ≥ 0 are read as unknown with a note, `--system-name` renames.
fn finish_parsed(
    mut imported: Imported,
    format: ImportFormat,
    file: String,
    bytes: &[u8],
    non_finite: usize,
    settings: &ImportSettings<'_>,
) -> Result<Parsed, LoadError> {
    if imported.rows.is_empty() {
        return Err(LoadError::new(
            &file,
            format!("the {} file holds no results", format.name()),
        ));
    }
    if non_finite > 0 {
        imported.notes.push(format!(
            "{file}: {non_finite} NaN/Infinity tokens read as missing values"
        ));
    }
    imported
        .notes
        .extend(unknown_amounts(&mut imported.rows, &file));
    if let Some(name) = settings.system_name {
        rename_systems(&mut imported, name, &file);
    }
    Ok(Parsed {
        file,
        sha256: sha256_hex(bytes),
        format,
        imported,
    })
}

/// Costs and seconds that are no number ≥ 0 (a harness's −1 for "not measured", a string where a
/// number belongs) are read as unknown, as an empty cell is; the note counts them per field and
/// names the first, so nothing is dropped unseen.
fn unknown_amounts(rows: &mut [CanonicalRow], file: &str) -> Vec<String> {
    let mut notes = Vec::new();
    for field in ["cost", "seconds"] {
        let mut unknown = 0;
        let mut first = None;
        for row in rows.iter_mut() {
            let amount = if field == "cost" {
                &mut row.cost_usd
            } else {
                &mut row.seconds
            };
            if let Some(value) = amount.filter(|v| !(v.is_finite() && *v >= 0.0)) {
                unknown += 1;
                first.get_or_insert_with(|| {
                    let shown = if value.is_nan() {
                        "no number".to_string()
                    } else {
                        value.to_string()
                    };
                    format!("{}: {shown}", row.source)
                });
                *amount = None;
            }
        }
        if let Some(first) = first {
            notes.push(format!(
                "{file}: {} {field} is no number ≥ 0 and is read as unknown (the first, {first})",
                counted(unknown, "row's", "rows'")
            ));
        }
    }
    notes
}

/// Every row's system becomes `name` (`--system-name`), with a note naming what the file said.
fn rename_systems(imported: &mut Imported, name: &str, file: &str) {
    let mut said: Vec<String> = imported.rows.iter().map(|r| r.system.clone()).collect();
    said.sort();
    said.dedup();
    for row in &mut imported.rows {
        row.system = name.to_string();
    }
    imported.notes.push(format!(
        "{file}: --system-name names its system '{name}' (the file says {})",
        said.iter()
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
}

/// The canonical rows of a native result file (or Terminal-Bench run folder) in whatever format its
/// keys show, with that format's name; `Ok(None)` when no format is recognised (`pareval watch`'s
/// folders).
pub fn import_recognised(path: &Path) -> Result<Option<(&'static str, Imported)>, LoadError> {
    Ok(parse_file(path, None, &ImportSettings::default())?
        .map(|parsed| (parsed.format.name(), parsed.imported)))
}

/// [`import_recognised`] with the import choices of `settings` (`--metric`, `--aider-tries`, …),
/// as the live followers read a harness's files.
pub fn import_recognised_with(
    path: &Path,
    settings: &ImportSettings<'_>,
) -> Result<Option<(&'static str, Imported)>, LoadError> {
    Ok(parse_file(path, None, settings)?.map(|parsed| (parsed.format.name(), parsed.imported)))
}

/// Reads one native file (or Terminal-Bench run folder) as `format`.
pub fn import_file(
    path: &Path,
    format: ImportFormat,
    settings: &ImportSettings<'_>,
) -> Result<Imported, LoadError> {
    parse_file(path, Some(format), settings)?
        .map(|parsed| parsed.imported)
        .ok_or_else(|| LoadError::new(path.display().to_string(), "nothing read"))
}

/// [`import_file`] as the loader's table (with the format and the notes), or `Ok(None)` when no
/// format is given and none is recognised (the caller reads the file as canonical records).
pub fn read_native(
    path: &Path,
    format: Option<ImportFormat>,
    settings: &ImportSettings<'_>,
) -> Result<Option<(RawTable, ImportFormat, Vec<String>)>, LoadError> {
    let Some(parsed) = parse_file(path, format, settings)? else {
        return Ok(None);
    };
    let frame = canonical_frame(&parsed.imported.rows)
        .map_err(|e| LoadError::new(&parsed.file, format!("cannot build the records: {e}")))?;
    let positions = match parsed.imported.lines.clone() {
        Some(lines) => Positions::Lines(lines),
        None => Positions::Records,
    };
    let table = RawTable {
        file: parsed.file,
        frame,
        positions,
        sha256: parsed.sha256,
        unusual: Vec::new(),
    };
    Ok(Some((table, parsed.format, parsed.imported.notes)))
}

/// One cell of a canonical row as text (None: empty).
type Cell = dyn Fn(&CanonicalRow) -> Option<String>;

/// The rows as a frame of text columns (as the loader reads text formats); optional columns only when
/// some row has a value.
pub fn canonical_frame(rows: &[CanonicalRow]) -> PolarsResult<DataFrame> {
    let text = |f: &Cell| -> Vec<Option<String>> { rows.iter().map(f).collect() };
    let mut columns = vec![
        Column::new("system".into(), text(&|r| Some(r.system.clone()))),
        Column::new("task".into(), text(&|r| Some(r.task.clone()))),
        Column::new("run".into(), text(&|r| Some(r.run.to_string()))),
        Column::new(
            "outcome".into(),
            text(&|r| r.outcome.map(|o| o.to_string())),
        ),
        Column::new(
            "status".into(),
            text(&|r| {
                Some(match r.status {
                    RowStatus::Ok => "ok".to_string(),
                    RowStatus::Error => "error".to_string(),
                    RowStatus::NotAttempted => "not_attempted".to_string(),
                })
            }),
        ),
        Column::new("source".into(), text(&|r| Some(r.source.clone()))),
    ];
    let optional: [(&str, &Cell); 3] = [
        ("group", &|r| r.group.clone()),
        ("cost_usd", &|r| r.cost_usd.map(|c| c.to_string())),
        ("seconds", &|r| r.seconds.map(|s| s.to_string())),
    ];
    for (name, value) in optional {
        let values = text(value);
        if values.iter().any(Option::is_some) {
            columns.push(Column::new(name.into(), values));
        }
    }
    DataFrame::new_infer_height(columns)
}

/// A field's value as a message quotes it, or "missing".
fn value_or_missing(value: Option<&Value>) -> String {
    value.map_or("missing".to_string(), Value::to_string)
}

/// A metric's value as an outcome: a number, or a boolean as 0/1 (None for null).
fn metric_number(value: &Value) -> Result<Option<f64>, String> {
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(f64::from(u8::from(*b)))),
        Value::Number(n) => n
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{n} is not a number pareval reads")),
        other => Err(format!("{other} is not a number")),
    }
}

/// A score on the outcome's scale: mapped from `--score-scale MIN:MAX` onto [0, 1] when one is
/// given, else refused outside [0, 1] (`what` names the score in the message).
fn on_outcome_scale(value: f64, scale: Option<(f64, f64)>, what: &str) -> Result<f64, String> {
    match scale {
        Some((low, high)) => Ok((value - low) / (high - low)),
        None if !(0.0..=1.0).contains(&value) => Err(format!(
            "{what} is {value}, outside [0, 1]; --score-scale MIN:MAX maps its range onto [0, 1]"
        )),
        None => Ok(value),
    }
}

/// The name of the folder a file lies in (a bare file name's is the working directory's), for
/// formats whose files do not name their system.
fn folder_name(path: &Path) -> Option<String> {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    absolute
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
}

/// The run of the next row of `key` (a system and task) in file order: 0 for its first, then 1, …
/// (formats whose repeats are just written again).
fn next_run<K: std::hash::Hash + Eq>(runs: &mut std::collections::HashMap<K, u32>, key: K) -> u32 {
    let count = runs.entry(key).or_insert(0);
    *count += 1;
    *count - 1
}

/// "1 entry", "3 entries": a count for a note.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A JSON number as the id text it was written as, or None for a whole number past 64 bits: the
/// JSON reader holds it as the nearest f64, so 123456789012345678901234567890 would become task
/// '1.2345678901234568e29' (ids are never rounded through a float).
fn id_number_text(number: &serde_json::Number) -> Option<String> {
    match number.as_f64() {
        Some(x) if number.is_f64() && x.fract() == 0.0 && x.abs() >= 2f64.powi(53) => None,
        _ => Some(number.to_string()),
    }
}

/// A required field of entry `index` as text (numbers and strings both: ids are ints in some files).
fn text_field(entry: &Value, key: &str, file: &str, index: usize) -> Result<String, LoadError> {
    match entry.get(key) {
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Number(number)) => id_number_text(number).ok_or_else(|| {
            LoadError::new(
                file,
                format!(
                    "entry {}: '{key}' {number} is a whole number too large to read exactly (past 64 bits); write it as a string",
                    index + 1
                ),
            )
        }),
        other => Err(LoadError::new(
            file,
            format!(
                "entry {} has no usable '{key}' ({})",
                index + 1,
                other.map_or("missing".to_string(), |v| format!("found {v}"))
            ),
        )),
    }
}

/// An optional number (null, absent or NaN: None); anything else that is not a number is an error.
fn number_field(
    entry: &Value,
    key: &str,
    file: &str,
    index: usize,
) -> Result<Option<f64>, LoadError> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => Ok(number.as_f64()),
        Some(other) => Err(LoadError::new(
            file,
            format!(
                "entry {}: '{key}' must be a number, found {other}",
                index + 1
            ),
        )),
    }
}
