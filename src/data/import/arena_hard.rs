//! Arena-Hard-Auto's judgments: `gen_judgment.py` appends one JSON line per question to
//! `data/<bench>/model_judgment/<judge>/<model>.jsonl`: `uid` (v0.1: `question_id`), `category`,
//! `judge`, `model`, `baseline` (v2; v0.1's is gpt-4-0314 and unnamed) and `games`, the judge's
//! two verdicts: game 1 with the baseline's answer as A and the model's as B, game 2 the other way
//! round, each `{score: "A>>B" | "A>B" | "A=B" | "B>A" | "B>>A", judgment, prompt}`, or null when
//! the judge's API gave up. Read as `show_result.py`'s `load_judgments` reads them:
//!
//! - system: `model`; the baseline is noted (per category: v2 judges hard prompts against
//!   o3-mini and creative writing against gemini-2.0-flash), not a system.
//! - task: `uid` (or `question_id`); group: `category` (none, noted, in v0.1's lines).
//! - outcome: the model's share of the question's verdicts, a strong one (`>>`) counting three
//!   times (`load_judgments`' weight 3): a win 1, a tie 0.5, a loss 0, from both games. A question
//!   with a null game or score, which `show_result.py` leaves out, or a label it does not know, is
//!   not attempted (noted).
//! - `show_result.py` pools every verdict of a model, so a question weighs by its verdicts (2 to
//!   6); the pooled figure is noted beside pareval's mean over questions.
//! - A question judged again in one file is a further run, numbered in file order (noted).
//! - No cost or seconds.
//!
//! A judge's folder (every model's file) is read as any folder of result files is.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted, for_each_line, value_or_missing};
use crate::data::error::LoadError;

/// How many times a strong verdict (`A>>B`) counts, as `show_result.py`'s `load_judgments`.
const STRONG_WEIGHT: f64 = 3.0;

/// Whether a JSON Lines line is an Arena-Hard-Auto judgment.
pub fn is_judgment_line(object: &serde_json::Map<String, Value>) -> bool {
    ["model", "judge", "games"]
        .iter()
        .all(|key| object.contains_key(*key))
        && (object.contains_key("uid") || object.contains_key("question_id"))
}

/// The model's verdicts in one game, as (weight, score for the model): `model_is_a` in game 2.
fn verdicts(label: &str, model_is_a: bool) -> Option<(f64, f64)> {
    let (weight, a_score) = match label {
        "A>>B" | "B<<A" => (STRONG_WEIGHT, 1.0),
        "A>B" | "B<A" => (1.0, 1.0),
        "A=B" | "B=A" => (1.0, 0.5),
        "A<B" | "B>A" => (1.0, 0.0),
        "A<<B" | "B>>A" => (STRONG_WEIGHT, 0.0),
        _ => return None,
    };
    Some((weight, if model_is_a { a_score } else { 1.0 - a_score }))
}

/// What one judgment line gives: the outcome, or why there is none.
enum Read {
    Outcome {
        outcome: f64,
        verdicts: f64,
    },
    /// A game or its score is null (the judge's API gave up).
    NoVerdict,
    /// A label `show_result.py` has no score for.
    UnknownLabel(String),
}

/// The model's weighted share of a question's two games.
fn read_games(games: &[Value]) -> Result<Read, String> {
    if games.len() != 2 {
        return Err(format!(
            "games has {} entries, not the two orders Arena-Hard judges",
            games.len()
        ));
    }
    let (mut weight, mut won) = (0.0, 0.0);
    // Game 1: the baseline's answer is A, the model's B; game 2 swaps them.
    for (game, model_is_a) in games.iter().zip([false, true]) {
        let label = match game {
            Value::Null => return Ok(Read::NoVerdict),
            Value::Object(fields) => match fields.get("score") {
                None | Some(Value::Null) => return Ok(Read::NoVerdict),
                Some(Value::String(label)) => label.clone(),
                Some(other) => return Err(format!("a game's score is {other}, not a label")),
            },
            other => return Err(format!("a game is {other}, not an object")),
        };
        match verdicts(&label, model_is_a) {
            Some((w, score)) => {
                weight += w;
                won += w * score;
            }
            None => return Ok(Read::UnknownLabel(label)),
        }
    }
    Ok(Read::Outcome {
        outcome: won / weight,
        verdicts: weight,
    })
}

/// Per model and category (`show_result.py` ranks each category against its own baseline): the
/// pooled verdicts it averages and pareval's question outcomes, as sums and counts.
#[derive(Default)]
struct Pooled {
    verdict_sum: f64,
    verdicts: f64,
    outcome_sum: f64,
    questions: usize,
}

/// The rows of one judgments file (one model's, as Arena-Hard writes them, or any of its lines).
pub fn judgments(bytes: &[u8], file: &str) -> Result<(Imported, usize), LoadError> {
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let mut runs: HashMap<(String, String), u32> = HashMap::new();
    let mut baselines: BTreeMap<String, String> = BTreeMap::new();
    let mut judges: Vec<String> = Vec::new();
    let mut pooled: BTreeMap<(String, String), Pooled> = BTreeMap::new();
    let (mut no_verdict, mut uncategorised) = (0, 0);
    let mut unknown: Vec<(u64, String)> = Vec::new();
    let non_finite = for_each_line(bytes, file, false, |number, line| {
        let text = |key: &str| match line.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            other => Err(format!("{key} is {}", value_or_missing(other))),
        };
        let model = text("model")?;
        let question = text("uid").or_else(|_| text("question_id"))?;
        let judge = text("judge")?;
        if !judges.contains(&judge) {
            judges.push(judge);
        }
        let category = line
            .get("category")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_string);
        uncategorised += usize::from(category.is_none());
        if let Some(baseline) = line.get("baseline").and_then(Value::as_str) {
            baselines.insert(
                category.clone().unwrap_or_else(|| "all".to_string()),
                baseline.to_string(),
            );
        }
        let games = match line.get("games") {
            Some(Value::Array(games)) => games,
            other => return Err(format!("games is {}", value_or_missing(other))),
        };
        let read = read_games(games)?;
        let labels: Vec<&str> = games
            .iter()
            .map(|g| g.get("score").and_then(Value::as_str).unwrap_or("null"))
            .collect();
        let outcome = match read {
            Read::Outcome { outcome, verdicts } => {
                let key = (model.clone(), category.clone().unwrap_or_default());
                let entry = pooled.entry(key).or_default();
                entry.verdict_sum += outcome * verdicts;
                entry.verdicts += verdicts;
                entry.outcome_sum += outcome;
                entry.questions += 1;
                Some(outcome)
            }
            Read::NoVerdict => {
                no_verdict += 1;
                None
            }
            Read::UnknownLabel(label) => {
                unknown.push((number, label));
                None
            }
        };
        let this_run = super::next_run(&mut runs, (model.clone(), question.clone()));
        rows.push(CanonicalRow {
            system: model,
            task: question,
            run: this_run,
            status: RowStatus::graded(outcome),
            outcome,
            group: category,
            cost_usd: None,
            seconds: None,
            source: format!("arena-hard line {number}: {}", labels.join(", ")),
        });
        lines.push(number);
        Ok(())
    })?;

    let mut systems: Vec<&str> = rows.iter().map(|r| r.system.as_str()).collect();
    systems.sort_unstable();
    systems.dedup();
    let systems = systems.len();
    let mut notes = vec![format!(
        "{file}: Arena-Hard-Auto judgments by {} of {}; the outcome is the model's share of the question's two verdicts against the baseline{}, a strong one counting {STRONG_WEIGHT} times",
        judges.join(", "),
        counted(systems, "model", "models"),
        if baselines.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                baselines
                    .iter()
                    .map(|(category, baseline)| format!("{category}: {baseline}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    )];
    if !pooled.is_empty() {
        notes.push(format!(
            "{file}: show_result.py pools a category's verdicts, so a question weighs by its verdicts (2 to 6): {}",
            pooled
                .iter()
                .map(|((model, category), p)| format!(
                    "{model}{}{} {:.4} pooled, {:.4} over {}",
                    if category.is_empty() { "" } else { " on " },
                    category,
                    p.verdict_sum / p.verdicts,
                    p.outcome_sum / p.questions as f64,
                    counted(p.questions, "question", "questions")
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let repeated = rows.iter().filter(|r| r.run > 0).count();
    if repeated > 0 {
        notes.push(format!(
            "{file}: {}: further runs, averaged per task",
            counted(
                repeated,
                "question was judged again",
                "questions were judged again"
            )
        ));
    }
    if no_verdict > 0 {
        notes.push(format!(
            "{file}: {} a null game or score (the judge's API gave up), which show_result.py leaves out: not attempted",
            counted(no_verdict, "question has", "questions have")
        ));
    }
    if let Some((line, label)) = unknown.first() {
        notes.push(format!(
            "{file}: {} a verdict label show_result.py has no score for (first: line {line}, '{label}'): not attempted",
            counted(unknown.len(), "question has", "questions have")
        ));
    }
    if uncategorised > 0 {
        notes.push(format!(
            "{file}: {} no category (Arena-Hard v0.1 writes none): no group",
            counted(uncategorised, "judgment has", "judgments have")
        ));
    }
    Ok((Imported::by_line(rows, notes, lines), non_finite))
}
