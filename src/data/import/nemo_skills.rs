//! NVIDIA's NeMo-Skills (`ns eval`): per benchmark, `<output_dir>/eval-results/<benchmark>/`
//! holds `output.jsonl` (greedy) or `output-rs<seed>.jsonl` (`<benchmark>:N`, one file a seed),
//! each line a dataset row with the model's `generation` and the evaluator's verdicts, in the
//! dataset's order; `metrics.json` beside them is `ns summarize_results`' aggregate (not read).
//! Read as follows:
//!
//! - files: an output dir, its `eval-results/`, a folder of output dirs, a benchmark folder or one
//!   output file (recognised by the keys: `generation`, or IFEval's `response` with
//!   `strict_eval`, with a verdict).
//! - system: the output dir's name (the folder holding `eval-results/`): NeMo-Skills writes the
//!   model's name nowhere in its results.
//! - task: `<benchmark>/<id>` where every line has a distinct `id` (IFEval's: `key`), else
//!   `<benchmark>/<row>` (the 0-based line: `summarize_results` matches seeds by line too); group:
//!   `subset_for_metrics` where written (NeMo-Skills reports its subsets apart), else the benchmark.
//! - run: the seed of `output-rs<seed>.jsonl` (0 for `output.jsonl`).
//! - outcome: the verdict NeMo-Skills' metrics average, by the name its `metrics.json` gives it
//!   (`--metric`): `symbolic_correct` (math and multiple choice; `is_correct` before July 2025),
//!   `judge_correct` (`judgement` saying "Judgement: Yes"), `both_correct`, `any_correct`,
//!   `passing_base_tests` and `passing_plus_tests` (evalplus), `accuracy` (LiveCodeBench's
//!   `graded_list`, BigCodeBench's `status`, infilling's `passed`), `issues_resolved`
//!   (SWE-bench), `prompt_strict_accuracy` and `prompt_loose_accuracy` (IFEval and IFBench, whose
//!   lines hold the model's text as `response` and Google's checks as `strict_eval` and
//!   `loose_eval`: a prompt counts when it follows all its instructions); by default the first of
//!   these a line has. The instruction-level accuracies pool the instructions of all prompts, so
//!   they are no mean over tasks and are not read.
//! - status: a line with an `error` (a generation that failed under `enable_soft_fail`) keeps its
//!   verdict (false) with status error; while a seed is still being generated (its
//!   `output-rs<seed>.jsonl-async` beside the files), every line is not attempted, as the running
//!   seed would change the tasks' means. seconds: `generation_time`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// The verdicts read, by their `metrics.json` names, in the order the default takes them.
const METRICS: [&str; 10] = [
    "symbolic_correct",
    "judge_correct",
    "both_correct",
    "any_correct",
    "passing_base_tests",
    "passing_plus_tests",
    "accuracy",
    "issues_resolved",
    "prompt_strict_accuracy",
    "prompt_loose_accuracy",
];

/// The folder `ns eval` writes its results into, inside an output dir.
const RESULTS: &str = "eval-results";

/// Whether a JSON Lines line is one of NeMo-Skills' output lines: a generation with a verdict (the
/// instruction-following benchmarks write the generation as `response`).
pub fn is_output_line(object: &serde_json::Map<String, Value>) -> bool {
    let generated = object.contains_key("generation")
        || (object.contains_key("response") && object.contains_key("strict_eval"));
    generated
        && !object.contains_key("system")
        && [
            "symbolic_correct",
            "judgement",
            "is_correct",
            "graded_list",
            "passed",
            "swe-bench-metrics",
            "strict_eval",
        ]
        .iter()
        .any(|key| object.contains_key(*key))
}

/// `output.jsonl` (seed 0) or `output-rs<seed>.jsonl`: the seed.
fn seed_of(name: &str) -> Option<u32> {
    if name == "output.jsonl" {
        return Some(0);
    }
    name.strip_prefix("output-rs")?
        .strip_suffix(".jsonl")?
        .parse()
        .ok()
}

/// Whether a file in a folder is read beside the output files: `ns summarize_results`'
/// `metrics.json`, in a benchmark's folder or in `eval-results/` itself.
pub fn is_companion(path: &Path, name: &str) -> bool {
    name == "metrics.json"
        && path
            .parent()
            .is_some_and(|folder| name_of(folder) == RESULTS || !outputs_in(folder).is_empty())
}

/// The output files below a folder holding NeMo-Skills results (an output dir, its
/// `eval-results/`, or a folder of output dirs): those of every benchmark, in path order.
pub fn files_below(folder: &Path) -> Vec<PathBuf> {
    let results: Vec<PathBuf> = if name_of(folder) == RESULTS {
        vec![folder.to_path_buf()]
    } else if folder.join(RESULTS).is_dir() {
        vec![folder.join(RESULTS)]
    } else {
        super::subfolders(folder)
            .into_iter()
            .map(|f| f.join(RESULTS))
            .filter(|f| f.is_dir())
            .collect()
    };
    let mut files = Vec::new();
    for results in results {
        // A benchmark's folder, or a group's folder of benchmarks.
        for bench in super::subfolders(&results) {
            files.extend(outputs_in(&bench));
            for inner in super::subfolders(&bench) {
                files.extend(outputs_in(&inner));
            }
        }
    }
    files.sort();
    files
}

/// A benchmark folder's output files (chunks left out: they are merged into their seed's file).
fn outputs_in(folder: &Path) -> Vec<PathBuf> {
    super::files_named(folder, |name| seed_of(name).is_some())
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Where an output file sits: (system, benchmark), from `<output_dir>/eval-results/[<group>/]<benchmark>/`.
fn placed(file: &Path) -> (Option<String>, String) {
    let bench_folder = file.parent().unwrap_or(Path::new("."));
    let benchmark = name_of(bench_folder);
    let mut folder = bench_folder.parent();
    while let Some(f) = folder {
        if name_of(f) == RESULTS {
            return (f.parent().map(name_of).filter(|n| !n.is_empty()), benchmark);
        }
        folder = f.parent();
    }
    (None, benchmark)
}

/// True for "Judgement: Yes…", as NeMo-Skills' `is_correct_judgement` reads a judge's text (a
/// text without a verdict is false).
fn judged_yes(judgement: &str) -> bool {
    judgement
        .rsplit_once("Judgement:")
        .is_some_and(|(_, verdict)| verdict.trim().to_lowercase().starts_with("yes"))
}

fn truth(value: Option<&Value>) -> Option<bool> {
    match value? {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_f64().map(|x| x != 0.0),
        _ => None,
    }
}

/// A line's verdict under one metric, as NeMo-Skills' metrics classes compute it (None: the line
/// does not have it).
fn verdict(line: &Value, metric: &str) -> Option<bool> {
    let symbolic = truth(line.get("symbolic_correct"));
    let judge = line
        .get("judgement")
        .and_then(Value::as_str)
        .map(judged_yes);
    match metric {
        "symbolic_correct" => symbolic,
        "judge_correct" => judge,
        // Both verdicts must be there, as NeMo-Skills computes these only then.
        "both_correct" => Some(symbolic? && judge?),
        "any_correct" => Some(symbolic? || judge?),
        "passing_base_tests" => truth(line.get("is_correct")),
        "passing_plus_tests" => truth(line.get("is_correct-plus")),
        "accuracy" => line
            .get("graded_list")
            .and_then(Value::as_array)
            .and_then(|list| truth(list.first()))
            .or_else(|| {
                line.get("status")
                    .and_then(Value::as_str)
                    .map(|status| status == "pass")
            })
            .or_else(|| truth(line.get("passed"))),
        "issues_resolved" => truth(
            line.get("swe-bench-metrics")
                .and_then(|m| m.get("resolved")),
        ),
        // IFMetrics' prompt-level score: every instruction of the prompt followed.
        "prompt_strict_accuracy" => truth(
            line.get("strict_eval")
                .and_then(|e| e.get("follow_all_instructions")),
        ),
        "prompt_loose_accuracy" => truth(
            line.get("loose_eval")
                .and_then(|e| e.get("follow_all_instructions")),
        ),
        _ => None,
    }
}

/// The metric a file is read by: the one asked for, or the first its first line has (math's
/// `is_correct` before July 2025 read as `symbolic_correct`).
fn metric_of(first: &Value, asked: Option<&str>) -> Result<&'static str, String> {
    if let Some(asked) = asked {
        return METRICS
            .iter()
            .find(|m| **m == asked)
            .copied()
            .ok_or_else(|| {
                format!(
                    "--metric {asked}: NeMo-Skills' verdicts are {}",
                    METRICS.join(", ")
                )
            });
    }
    if first.get("symbolic_correct").is_none()
        && first.get("is_correct").is_some()
        && first.get("predicted_answer").is_some()
    {
        return Ok("symbolic_correct");
    }
    METRICS
        .iter()
        .find(|m| verdict(first, m).is_some())
        .copied()
        .ok_or_else(|| "the first line has none of NeMo-Skills' verdicts".to_string())
}

/// The rows of one output file, and the non-finite numbers replaced while parsing.
pub fn output(
    bytes: &[u8],
    file_path: &Path,
    file: &str,
    asked: Option<&str>,
) -> Result<(Imported, usize), LoadError> {
    let name = name_of(file_path);
    let seed = seed_of(&name);
    let (system, benchmark) = placed(file_path);
    let mut lines = Vec::new();
    let non_finite = super::for_each_line(bytes, file, false, |number, value| {
        lines.push((number, value));
        Ok(())
    })?;
    let Some((_, first)) = lines.first() else {
        return Err(LoadError::new(file, "no output lines"));
    };
    let metric =
        metric_of(first, asked).map_err(|why| LoadError::new(file, format!("line 1: {why}")))?;
    // Old math files (before July 2025) hold the symbolic verdict as is_correct.
    let legacy_math = metric == "symbolic_correct" && first.get("symbolic_correct").is_none();
    // Ids name tasks only when every line has a distinct one (IFEval's dataset keys its prompts by
    // `key`).
    let id_field = if first.get("id").is_none() && first.get("key").is_some() {
        "key"
    } else {
        "id"
    };
    let ids: Vec<Option<String>> = lines
        .iter()
        .map(|(_, line)| match line.get(id_field) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
        .collect();
    let distinct: std::collections::HashSet<&String> = ids.iter().flatten().collect();
    let by_id = distinct.len() == lines.len();
    // Seeds still being generated (or crashed) write `output-rs<seed>.jsonl-async` until they end:
    // a task's outcome is its mean over the seeds, which theirs would change (SPEC §9c), so the
    // finished seeds' lines wait too.
    let going: Vec<String> = file_path
        .parent()
        .map(|folder| {
            super::files_named(folder, |n| {
                n.starts_with("output") && n.ends_with(".jsonl-async")
            })
        })
        .unwrap_or_default()
        .iter()
        .map(|f| name_of(f))
        .collect();
    let mut rows = Vec::with_capacity(lines.len());
    let mut numbers = Vec::with_capacity(lines.len());
    let mut errors = 0usize;
    for (position, (number, line)) in lines.iter().enumerate() {
        let at = |what: String| LoadError::new(file, format!("line {number}: {what}"));
        let value = if legacy_math {
            truth(line.get("is_correct"))
        } else {
            verdict(line, metric)
        };
        let outcome = value.ok_or_else(|| at(format!("no {metric} verdict")))?;
        let failed = line
            .get("error")
            .is_some_and(|e| !e.is_null() && e.as_str() != Some(""));
        errors += usize::from(failed);
        let key = if by_id {
            ids[position].clone().unwrap_or_default()
        } else {
            position.to_string()
        };
        let group = line
            .get("subset_for_metrics")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map_or_else(|| benchmark.clone(), str::to_string);
        let held = !going.is_empty();
        rows.push(CanonicalRow {
            system: system.clone().unwrap_or_else(|| "nemo-skills".to_string()),
            task: format!("{benchmark}/{key}"),
            run: seed.unwrap_or(0),
            outcome: (!held).then_some(f64::from(u8::from(outcome))),
            status: if held {
                RowStatus::NotAttempted
            } else if failed {
                RowStatus::Error
            } else {
                RowStatus::Ok
            },
            group: Some(group),
            cost_usd: None,
            seconds: super::json::amount(line, "generation_time"),
            source: format!("nemo-skills {file} line {number}"),
        });
        numbers.push(*number);
    }
    let mut notes = vec![format!(
        "{file}: NeMo-Skills, {} of {benchmark}{}; system {}; tasks <benchmark>/{}; the outcome is {metric}{}",
        counted(rows.len(), "line", "lines"),
        seed.map_or(String::new(), |s| format!(", seed {s}")),
        match &system {
            Some(name) => format!("{name} (the output dir: NeMo-Skills writes no model name)"),
            None => "nemo-skills (no eval-results/ folder above the file: --system-name names it)"
                .to_string(),
        },
        if by_id {
            if id_field == "key" { "<key>" } else { "<id>" }
        } else {
            "<row> (the 0-based line; seeds are matched by line, as summarize_results matches them)"
        },
        if legacy_math {
            " (written is_correct before July 2025)"
        } else {
            ""
        }
    )];
    if metric.starts_with("prompt_") {
        notes.push(format!(
            "{file}: {metric} is IFMetrics' prompt-level score (every instruction followed); the instruction-level accuracies pool the instructions of all prompts, no mean over tasks, and are not read{}",
            if metric == "prompt_strict_accuracy" {
                " (--metric prompt_loose_accuracy reads the loose check)"
            } else {
                ""
            }
        ));
    }
    if !going.is_empty() {
        notes.push(format!(
            "{file}: {} beside it (a seed still being generated, or crashed): the tasks' outcomes are their means over the seeds, so this seed's lines are not attempted until it ends",
            going.join(", ")
        ));
    }
    if seed.is_none() {
        notes.push(format!(
            "{file}: not named output.jsonl or output-rs<seed>.jsonl: run 0"
        ));
    }
    if errors > 0 {
        notes.push(format!(
            "{file}: {} an error (a failed generation): kept with its verdict, status error",
            counted(errors, "line has", "lines have")
        ));
    }
    Ok((Imported::by_line(rows, notes, numbers), non_finite))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seeds_come_from_the_file_names() {
        assert_eq!(seed_of("output.jsonl"), Some(0));
        assert_eq!(seed_of("output-rs3.jsonl"), Some(3));
        assert_eq!(seed_of("output-rs0_chunk_1.jsonl"), None);
        assert_eq!(seed_of("output-rs0.jsonl-async"), None);
        let (system, bench) = placed(Path::new(
            "runs/qwen/eval-results/math/aime24/output-rs1.jsonl",
        ));
        assert_eq!(
            (system.as_deref(), bench.as_str()),
            (Some("qwen"), "aime24")
        );
    }

    #[test]
    fn verdicts_are_read_as_nemo_skills_metrics_read_them() {
        let math = json!({"generation": "…", "symbolic_correct": true, "judgement": "Reasoning. Judgement: No", "predicted_answer": "4"});
        assert_eq!(verdict(&math, "symbolic_correct"), Some(true));
        assert_eq!(verdict(&math, "judge_correct"), Some(false));
        assert_eq!(verdict(&math, "both_correct"), Some(false));
        assert_eq!(verdict(&math, "any_correct"), Some(true));
        assert_eq!(verdict(&math, "passing_base_tests"), None);
        assert!(judged_yes("Judgement: yes, it matches"));
        assert!(!judged_yes("no verdict here"));
        let evalplus = json!({"generation": "…", "is_correct": true, "is_correct-plus": false});
        assert_eq!(metric_of(&evalplus, None), Ok("passing_base_tests"));
        assert_eq!(verdict(&evalplus, "passing_plus_tests"), Some(false));
        let old_math = json!({"generation": "…", "is_correct": false, "predicted_answer": "3"});
        assert_eq!(metric_of(&old_math, None), Ok("symbolic_correct"));
        let lcb = json!({"generation": "…", "graded_list": [true]});
        assert_eq!(verdict(&lcb, "accuracy"), Some(true));
        let bcb = json!({"generation": "…", "status": "fail"});
        assert_eq!(verdict(&bcb, "accuracy"), Some(false));
        let swe = json!({"generation": "…", "swe-bench-metrics": {"resolved": true}});
        assert_eq!(metric_of(&swe, None), Ok("issues_resolved"));
        assert!(metric_of(&math, Some("pass@1")).is_err());
        let ifeval = json!({"response": "…", "key": 3,
            "strict_eval": {"follow_all_instructions": false, "follow_instruction_list": [false, true]},
            "loose_eval": {"follow_all_instructions": true, "follow_instruction_list": [true, true]}});
        assert_eq!(metric_of(&ifeval, None), Ok("prompt_strict_accuracy"));
        assert_eq!(verdict(&ifeval, "prompt_strict_accuracy"), Some(false));
        assert_eq!(verdict(&ifeval, "prompt_loose_accuracy"), Some(true));
        assert!(is_output_line(ifeval.as_object().expect("an object")));
    }
}
