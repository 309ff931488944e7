//! MMMU's own rule for one lmms-eval `mmmu_acc` sample (`{id, subdomain, question_type, answer,
//! parsed_pred}`), which lmms-eval scores only in its aggregation (`evaluate_mmmu`, after MMMU's
//! `eval_utils.py`): a multiple-choice prediction is right when it equals the answer (or one of a
//! list of answers); an open one when one of its candidates holds a normalised answer (a string
//! answer inside a predicted string, a number equal to a predicted number). The answer is
//! normalised as MMMU does: a number (commas dropped, as Python's `float` reads it) rounded to two
//! places, else the lower-cased text, a single character padded with a space on either side.
//!
//! lmms-eval's versions wrote `parsed_pred` three ways, and each is judged as the evaluate_mmmu of
//! its time did: before February 2025 the one response's prediction (a letter, or the open
//! question's candidate list); since then a list with one prediction per response (the line then
//! also has `mmmu_acc_pass_at_k`), right when any is; and from 0.4 to 0.7.2 an open question's
//! prediction was kept as a string, which evaluate_mmmu reads character by character, so no open
//! question could be right: such samples are read as it scored them, and flagged for a note.

use serde_json::{Map, Value};

/// The judgement of one sample.
pub(super) struct Judged {
    pub correct: bool,
    /// An open question whose predictions are strings (lmms-eval 0.4–0.7.2): scored wrong by the
    /// character-by-character reading.
    pub unscorable_open: bool,
}

/// An answer after MMMU's `normalize_str`.
#[derive(Debug, PartialEq)]
enum Normal {
    Text(String),
    Number(f64),
}

/// Python's `float(text)`, for the texts MMMU's `check_is_number` tries: surrounding whitespace,
/// a sign, `inf`/`nan`, and underscores between digits are Python's; Rust's parser takes the rest.
fn python_float(text: &str) -> Option<f64> {
    let text = text.trim();
    let bytes = text.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let underscores_ok = bytes
        .iter()
        .enumerate()
        .all(|(i, b)| *b != b'_' || (i > 0 && digit(i - 1) && digit(i + 1)));
    if !underscores_ok {
        return None;
    }
    text.replace('_', "").parse::<f64>().ok()
}

/// Python's `round(x, 2)`: the exact binary value rounded half to even, as Rust's formatting does.
fn round_to_hundredths(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.2}").parse().unwrap_or(x)
}

/// MMMU's `normalize_str`.
fn normalize(answer: &str) -> Vec<Normal> {
    let answer = answer.trim();
    if let Some(number) = python_float(&answer.replace(',', "")) {
        return vec![Normal::Number(round_to_hundredths(number))];
    }
    let lower = answer.to_lowercase();
    if lower.chars().count() == 1 {
        vec![
            Normal::Text(format!(" {lower}")),
            Normal::Text(format!("{lower} ")),
        ]
    } else {
        vec![Normal::Text(lower)]
    }
}

/// What Python's `for x in value` walks: a list's items, a string's characters; None where Python
/// would raise.
fn python_items(value: &Value) -> Option<Vec<Value>> {
    match value {
        Value::Array(items) => Some(items.clone()),
        Value::String(text) => Some(text.chars().map(|c| Value::String(c.into())).collect()),
        _ => None,
    }
}

/// Python's `==` on JSON values (numbers by value, 1 == 1.0).
fn python_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// MMMU's `eval_multi_choice`.
fn multi_choice(gold: &Value, prediction: &Value) -> bool {
    match gold {
        Value::Array(answers) => answers.iter().any(|a| python_equal(a, prediction)),
        _ => python_equal(gold, prediction),
    }
}

/// MMMU's `eval_open`; None where Python would raise (an answer that is not text).
fn open(gold: &Value, prediction: &Value) -> Option<bool> {
    let normals: Vec<Normal> = match gold {
        Value::Array(answers) => {
            let mut all = Vec::new();
            for answer in answers {
                all.extend(normalize(answer.as_str()?));
            }
            all
        }
        other => normalize(other.as_str()?),
    };
    for candidate in python_items(prediction)? {
        let found = match &candidate {
            Value::String(text) => normals.iter().any(|normal| match normal {
                Normal::Text(answer) => text.contains(answer.as_str()),
                Normal::Number(_) => false,
            }),
            Value::Number(n) => normals
                .iter()
                .any(|normal| matches!(normal, Normal::Number(x) if Some(*x) == n.as_f64())),
            _ => false,
        };
        if found {
            return Some(true);
        }
    }
    Some(false)
}

/// The judgement of an object shaped as lmms-eval's `mmmu_acc` sample, or None for any other
/// object (or one MMMU's code could not judge). `per_response`: `parsed_pred` holds one prediction
/// per response (lmms-eval since February 2025).
pub(super) fn judged(fields: &Map<String, Value>, per_response: bool) -> Option<Judged> {
    if !["id", "question_type", "answer", "parsed_pred"]
        .iter()
        .all(|key| fields.contains_key(*key))
    {
        return None;
    }
    let is_open = fields.get("question_type")?.as_str()? != "multiple-choice";
    let gold = fields.get("answer")?;
    let parsed = fields.get("parsed_pred")?;
    let judge = |prediction: &Value| -> Option<bool> {
        if is_open {
            open(gold, prediction)
        } else {
            Some(multi_choice(gold, prediction))
        }
    };
    let predictions = if per_response {
        python_items(parsed)?
    } else {
        vec![parsed.clone()]
    };
    let mut correct = false;
    for prediction in &predictions {
        if judge(prediction)? {
            correct = true;
            break;
        }
    }
    let unscorable_open = is_open
        && per_response
        && !predictions.is_empty()
        && predictions.iter().all(Value::is_string);
    Some(Judged {
        correct,
        unscorable_open,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn judge(sample: Value, per_response: bool) -> Option<bool> {
        judged(sample.as_object().expect("object"), per_response).map(|j| j.correct)
    }

    #[test]
    fn answers_are_normalised_as_mmmu_does() {
        assert_eq!(normalize(" 1,200 "), vec![Normal::Number(1200.0)]);
        assert_eq!(normalize("3.456"), vec![Normal::Number(3.46)]);
        assert_eq!(
            normalize("0.125"),
            vec![Normal::Number(0.12)],
            "half to even"
        );
        assert_eq!(
            normalize("A"),
            vec![
                Normal::Text(" a".to_string()),
                Normal::Text("a ".to_string())
            ]
        );
        assert_eq!(normalize("Blue"), vec![Normal::Text("blue".to_string())]);
        assert_eq!(normalize("1_000"), vec![Normal::Number(1000.0)]);
        assert_eq!(normalize("1__0"), vec![Normal::Text("1__0".to_string())]);
    }

    #[test]
    fn each_of_lmms_evals_shapes_is_judged_as_its_evaluate_mmmu_did() {
        let mc = |parsed: Value| json!({"id": "validation_Art_1", "subdomain": "Art", "question_type": "multiple-choice", "answer": "B", "parsed_pred": parsed});
        assert_eq!(judge(mc(json!("B")), false), Some(true));
        assert_eq!(
            judge(mc(json!(["A", "B"])), true),
            Some(true),
            "any response"
        );
        assert_eq!(judge(mc(json!(["A"])), true), Some(false));
        let open = |gold: Value, parsed: Value| json!({"id": "validation_Math_2", "subdomain": "Math", "question_type": "open", "answer": gold, "parsed_pred": parsed});
        // Before February 2025: one response's candidates.
        assert_eq!(
            judge(open(json!("1,200"), json!(["1200 m", 1200.0])), false),
            Some(true)
        );
        assert_eq!(judge(open(json!("12"), json!([12.5])), false), Some(false));
        // Since: a list per response.
        assert_eq!(
            judge(open(json!("blue"), json!([["it is blue"]])), true),
            Some(true)
        );
        assert_eq!(
            judge(open(json!(["7", "8"]), json!([[8.0]])), true),
            Some(true)
        );
        // 0.4–0.7.2: a string per response, read character by character: never right.
        let collapsed = open(json!("12"), json!(["12.0"]));
        let judged = judged(collapsed.as_object().expect("object"), true).expect("judged");
        assert!(!judged.correct && judged.unscorable_open);
        // Not MMMU's shape, or an answer MMMU's code could not read.
        assert_eq!(judge(json!({"score": 1}), true), None);
        assert_eq!(judge(open(json!(12), json!([[12.0]])), true), None);
    }
}
