//! MT-Bench's judgments (FastChat's `llm_judge`): `gen_judgment.py` appends one JSON line per
//! judgment to `data/<bench>/model_judgment/<judge>_single.jsonl` (`--mode single`) or
//! `<judge>_pair.jsonl` (`pairwise-baseline`, `pairwise-all`), in no order when it judges in
//! parallel, and `show_result.py` averages them. Read as `show_result.py` reads them:
//!
//! - single: system `model`; outcome `score` (the judge's rating, 1–10) on the outcome's scale,
//!   score / 10 (`--score-scale MIN:MAX` maps another range); a score of −1 (the judge's reply had
//!   no rating, which `show_result.py` leaves out), or one outside the scale, is not attempted.
//! - pair: `g1_winner` and `g2_winner` (the judge asked with the answers in both orders): a win of
//!   `model_1` when both name it, a loss when both name `model_2`, a tie (0.5) when either says tie
//!   or they disagree, as `show_result.py`'s adjusted win rate counts them; an `error` in either is
//!   not attempted. The system is `model_1` when every judgment is against one `model_2` (the
//!   baseline, noted); otherwise (`pairwise-all`) each opponent is its own system
//!   `<model_1> vs <model_2>`, since an outcome against one opponent is not one against another.
//! - task: `<question_id>-t<turn>`: each turn a task, as the averages count them (the second turn
//!   continues the first turn's conversation); group: the question's `category` from the
//!   `question.jsonl` beside `model_judgment/` (none, noted, without it).
//! - one judge model (`judge[0]`): the most common, or `--metric JUDGE`; others are noted as left
//!   out. A (model, question, turn) judged again (`gen_judgment.py` appends when rerun) is a further
//!   run, numbered in file order: runs are averaged, where `show_result.py` counts each line.
//! - No cost or seconds (the judgments have neither).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, for_each_line, value_or_missing};
use crate::data::error::LoadError;

/// The range of MT-Bench's ratings ("on a scale of 1 to 10"), mapped onto [0, 1] as score / 10.
const DEFAULT_SCALE: (f64, f64) = (0.0, 10.0);

/// The question file `gen_judgment.py` read, beside the `model_judgment/` folder.
const QUESTION_FILE: &str = "question.jsonl";

/// Whether a JSON Lines line is an MT-Bench single-answer judgment.
pub fn is_single_line(object: &serde_json::Map<String, Value>) -> bool {
    ["question_id", "model", "judge", "score"]
        .iter()
        .all(|key| object.contains_key(*key))
}

/// Whether a JSON Lines line is an MT-Bench pairwise judgment.
pub fn is_pair_line(object: &serde_json::Map<String, Value>) -> bool {
    [
        "question_id",
        "model_1",
        "model_2",
        "g1_winner",
        "g2_winner",
        "judge",
    ]
    .iter()
    .all(|key| object.contains_key(*key))
}

/// The kind of judgments a file holds, from its first line: Some(true) pairwise, Some(false)
/// single-answer, None for a file that is not MT-Bench's.
fn judgment_kind(path: &Path) -> Option<bool> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let mut first = String::new();
    std::io::BufReader::new(file).read_line(&mut first).ok()?;
    let value: Value = serde_json::from_str(first.trim()).ok()?;
    let object = value.as_object()?;
    if is_pair_line(object) {
        Some(true)
    } else {
        is_single_line(object).then_some(false)
    }
}

/// A single-answer and a pairwise judgments file among the files read together (as a
/// `model_judgment/` folder holds them): their rows would be two measures of the same (model,
/// question, turn), so they are refused together, naming both.
pub fn refuse_mixed_modes(files: &[PathBuf]) -> Result<(), LoadError> {
    match mixed_modes(files) {
        Some((single, pair)) => Err(mixed_modes_error(&single, &pair)),
        None => Ok(()),
    }
}

/// Why a single-answer file and a pairwise file are not read together.
pub fn mixed_modes_error(single: &Path, pair: &Path) -> LoadError {
    LoadError::new(
        single.display().to_string(),
        format!(
            "MT-Bench single-answer ratings, read together with {}, pairwise win rates: the two measure the same (model, question, turn) differently; read one of the files",
            pair.display()
        ),
    )
}

/// The first single-answer and the first pairwise judgments file among `files`, when both are
/// there.
pub fn mixed_modes(files: &[PathBuf]) -> Option<(PathBuf, PathBuf)> {
    let judgments = |pairwise: bool| {
        files
            .iter()
            // FastChat's names (<judge>_single.jsonl, <judge>_pair.jsonl): other files are not
            // opened here.
            .filter(|path| {
                path.file_name().is_some_and(|name| {
                    let name = name.to_string_lossy();
                    name.ends_with("_single.jsonl") || name.ends_with("_pair.jsonl")
                })
            })
            .find(|path| judgment_kind(path) == Some(pairwise))
    };
    Some((judgments(false)?.clone(), judgments(true)?.clone()))
}

/// What a judgment says of its (first) model.
enum Verdict {
    /// A rating on the judge's scale (−1: none).
    Score(f64),
    /// The two orders' winners.
    Pair { g1: String, g2: String },
}

/// One line of a judgments file.
struct Judgment {
    line: u64,
    judge: String,
    prompt: String,
    question: String,
    turn: u64,
    model: String,
    /// The opponent of a pairwise judgment.
    opponent: Option<String>,
    verdict: Verdict,
}

fn text(line: &Value, key: &str) -> Result<String, String> {
    match line.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        other => Err(format!("{key} is {}", value_or_missing(other))),
    }
}

/// Reads one line; `pairwise` is the kind of the file's first judgment.
fn judgment(number: u64, line: &Value, pairwise: bool) -> Result<Judgment, String> {
    let object = line
        .as_object()
        .ok_or_else(|| format!("{line} is not a JSON object"))?;
    if is_pair_line(object) != pairwise {
        return Err(format!(
            "a {} judgment in a file of {} judgments (FastChat writes each mode to its own file)",
            if pairwise {
                "single-answer"
            } else {
                "pairwise"
            },
            if pairwise {
                "pairwise"
            } else {
                "single-answer"
            }
        ));
    }
    let (judge, prompt) = match line.get("judge") {
        Some(Value::Array(parts)) if !parts.is_empty() => (
            parts[0]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("judge is {}, not [model, prompt]", parts[0]))?,
            parts
                .get(1)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        ),
        other => {
            return Err(format!(
                "judge is {}, not [model, prompt]",
                value_or_missing(other)
            ));
        }
    };
    let question = text(line, "question_id")?;
    // A pairwise judgment by a single-answer judge has no turn: FastChat judges the first.
    let turn = match line.get("turn") {
        None | Some(Value::Null) => 1,
        Some(value) => value
            .as_u64()
            .filter(|&t| t >= 1)
            .ok_or_else(|| format!("turn is {value}, not a turn number 1, 2, …"))?,
    };
    let (model, opponent, verdict) = if pairwise {
        let winner = |key: &str| match line.get(key) {
            Some(Value::String(s))
                if ["model_1", "model_2", "tie", "error"].contains(&s.as_str()) =>
            {
                Ok(s.clone())
            }
            other => Err(format!(
                "{key} is {}, not model_1, model_2, tie or error",
                value_or_missing(other)
            )),
        };
        (
            text(line, "model_1")?,
            Some(text(line, "model_2")?),
            Verdict::Pair {
                g1: winner("g1_winner")?,
                g2: winner("g2_winner")?,
            },
        )
    } else {
        let score = match line.get("score") {
            Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            // NaN/Infinity read as missing: no rating.
            Some(Value::Null) => -1.0,
            other => return Err(format!("score is {}", value_or_missing(other))),
        };
        (text(line, "model")?, None, Verdict::Score(score))
    };
    Ok(Judgment {
        line: number,
        judge,
        prompt,
        question,
        turn,
        model,
        opponent,
        verdict,
    })
}

/// The question file's categories: question id → category, and the file's name for the notes.
struct Categories {
    of_question: HashMap<String, String>,
    file: String,
}

/// The categories of the question file beside a judgments file's `model_judgment/` folder, or
/// None when there is no such file.
fn categories(file_path: &Path) -> Result<Option<Categories>, LoadError> {
    let Some(bench) = file_path.parent().and_then(Path::parent) else {
        return Ok(None);
    };
    let path = bench.join(QUESTION_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let shown = path.display().to_string();
    let bytes = std::fs::read(&path)
        .map_err(|e| LoadError::new(&shown, format!("cannot read the file: {e}")))?;
    let mut categories = HashMap::new();
    for_each_line(&bytes, &shown, false, |_, line| {
        let question = text(&line, "question_id")?;
        let category = text(&line, "category")?;
        categories.insert(question, category);
        Ok(())
    })?;
    Ok(Some(Categories {
        of_question: categories,
        file: shown,
    }))
}

/// The judge model read: `wanted`, or the one most lines name (the first seen on a tie).
fn chosen_judge(
    judgments: &[Judgment],
    wanted: Option<&str>,
    file: &str,
) -> Result<String, LoadError> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for judgment in judgments {
        match counts.iter_mut().find(|(name, _)| *name == judgment.judge) {
            Some((_, count)) => *count += 1,
            None => counts.push((judgment.judge.clone(), 1)),
        }
    }
    match wanted {
        Some(name) if counts.iter().any(|(judge, _)| judge == name) => Ok(name.to_string()),
        Some(name) => Err(LoadError::new(
            file,
            format!(
                "--metric {name}: no judgment by that judge; the judges are {}",
                counts
                    .iter()
                    .map(|(judge, _)| judge.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
        None => Ok(counts
            .iter()
            .fold(None::<&(String, usize)>, |best, entry| match best {
                Some(best) if best.1 >= entry.1 => Some(best),
                _ => Some(entry),
            })
            .map(|(judge, _)| judge.clone())
            .unwrap_or_default()),
    }
}

/// The rows of one judgments file (`--metric` picks the judge, `--score-scale` the ratings' range).
pub fn judgments(
    bytes: &[u8],
    file_path: &Path,
    file: &str,
    wanted_judge: Option<&str>,
    score_scale: Option<(f64, f64)>,
) -> Result<(Imported, usize), LoadError> {
    let mut pairwise = None;
    let mut read = Vec::new();
    let non_finite = for_each_line(bytes, file, false, |number, line| {
        let is_pair = *pairwise.get_or_insert_with(|| line.as_object().is_some_and(is_pair_line));
        read.push(judgment(number, &line, is_pair)?);
        Ok(())
    })?;
    let pairwise = pairwise.unwrap_or(false);
    let judge = chosen_judge(&read, wanted_judge, file)?;
    let other_judges = read.iter().filter(|j| j.judge != judge).count();
    read.retain(|j| j.judge == judge);
    let categories = categories(file_path)?;
    let mut opponents: Vec<&str> = read.iter().filter_map(|j| j.opponent.as_deref()).collect();
    opponents.sort_unstable();
    opponents.dedup();
    let one_baseline = opponents.len() == 1;
    let (low, high) = score_scale.unwrap_or(DEFAULT_SCALE);

    let mut rows = Vec::with_capacity(read.len());
    let mut lines = Vec::with_capacity(read.len());
    let mut runs: HashMap<(String, String), u32> = HashMap::new();
    let (mut no_rating, mut off_scale, mut errors, mut uncategorised) = (0, 0, 0, 0);
    let mut first_off_scale = None;
    for j in &read {
        let system = match (&j.opponent, one_baseline) {
            (Some(opponent), false) => format!("{} vs {opponent}", j.model),
            _ => j.model.clone(),
        };
        let task = format!("{}-t{}", j.question, j.turn);
        let this_run = super::next_run(&mut runs, (system.clone(), task.clone()));
        let outcome = match &j.verdict {
            Verdict::Score(score) if *score == -1.0 || score.is_nan() => {
                no_rating += 1;
                None
            }
            Verdict::Score(score) => {
                let mapped = (score - low) / (high - low);
                if (0.0..=1.0).contains(&mapped) {
                    Some(mapped)
                } else {
                    off_scale += 1;
                    first_off_scale.get_or_insert((j.line, *score));
                    None
                }
            }
            Verdict::Pair { g1, g2 } if g1 == "error" || g2 == "error" => {
                errors += 1;
                None
            }
            Verdict::Pair { g1, g2 } if g1 == "tie" || g1 != g2 => Some(0.5),
            Verdict::Pair { g1, .. } => Some(if g1 == "model_1" { 1.0 } else { 0.0 }),
        };
        let group = match &categories {
            Some(known) => {
                let category = known.of_question.get(&j.question).cloned();
                uncategorised += usize::from(category.is_none());
                category
            }
            None => None,
        };
        let mut source = format!("mt-bench {} line {}", j.prompt, j.line);
        if let Some(opponent) = &j.opponent {
            source.push_str(&format!(" against {opponent}"));
        }
        rows.push(CanonicalRow {
            system,
            task,
            run: this_run,
            status: RowStatus::graded(outcome),
            outcome,
            group,
            cost_usd: None,
            seconds: None,
            source,
        });
        lines.push(j.line);
    }

    let mut systems: Vec<&str> = rows.iter().map(|r| r.system.as_str()).collect();
    systems.sort_unstable();
    systems.dedup();
    let mut notes = vec![if pairwise {
        format!(
            "{file}: MT-Bench pairwise judgments by {judge} of {}; the outcome is a win 1, a tie or a split verdict 0.5, a loss 0 (show_result.py's adjusted win rate), {}",
            counted(systems.len(), "system", "systems"),
            if one_baseline {
                format!("each against the baseline {}", opponents[0])
            } else {
                format!(
                    "each against one opponent: a system per (model_1, model_2), as {} opponents are judged",
                    opponents.len()
                )
            }
        )
    } else {
        format!(
            "{file}: MT-Bench single-answer judgments by {judge} of {}; the outcome is the rating mapped from [{low}, {high}] onto [0, 1]",
            counted(systems.len(), "model", "models")
        )
    }];
    notes.push(format!(
        "{file}: each turn of a question is a task <question_id>-t<turn>, as show_result.py averages them{}",
        match &categories {
            Some(known) => format!("; the group is its category from {}", known.file),
            None => format!(
                "; no {QUESTION_FILE} beside model_judgment/, so no categories as groups"
            ),
        }
    ));
    if other_judges > 0 {
        notes.push(format!(
            "{file}: left out {} by other judges than {judge} (--metric JUDGE reads another)",
            counted(other_judges, "judgment", "judgments")
        ));
    }
    let repeated = rows.iter().filter(|r| r.run > 0).count();
    if repeated > 0 {
        notes.push(format!(
            "{file}: {} again (gen_judgment.py appends when rerun): further runs, averaged per task, where show_result.py counts every line",
            counted(repeated, "judgment repeats an earlier one", "judgments repeat earlier ones")
        ));
    }
    if no_rating > 0 {
        notes.push(format!(
            "{file}: {} score -1 (the judge's reply had no [[rating]]), which show_result.py leaves out: not attempted",
            counted(no_rating, "judgment has", "judgments have")
        ));
    }
    if let Some((line, score)) = first_off_scale {
        notes.push(format!(
            "{file}: {} a rating outside [{low}, {high}] (first: line {line}, score {score}): not attempted; --score-scale MIN:MAX sets the range",
            counted(off_scale, "judgment has", "judgments have")
        ));
    }
    if errors > 0 {
        notes.push(format!(
            "{file}: {} an error verdict in either order, which show_result.py leaves out: not attempted",
            counted(errors, "pairwise judgment has", "pairwise judgments have")
        ));
    }
    if uncategorised > 0 {
        notes.push(format!(
            "{file}: {} of questions missing from {QUESTION_FILE}: no group",
            counted(uncategorised, "judgment is", "judgments are")
        ));
    }
    Ok((Imported::by_line(rows, notes, lines), non_finite))
}
