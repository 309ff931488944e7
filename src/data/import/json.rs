//! Lenient JSON for harness files: Python's `json.dump` writes `NaN`, `Infinity` and `-Infinity`
//! tokens, which are not JSON. Outside strings they are read as null (missing), and counted so the
//! loader can say how many it met; everything else must be strict JSON.

use serde_json::Value;

use crate::data::error::LoadError;

/// Parses `bytes` as JSON with Python's non-finite tokens read as null; returns the value and the
/// number of such tokens.
pub fn parse_lenient(bytes: &[u8], file: &str) -> Result<(Value, usize), LoadError> {
    parse_placed(bytes, file, |e| {
        format!("line {}, column {}", e.line(), e.column())
    })
}

/// [`parse_lenient`] for one line of a JSON Lines file, whose caller names the line: the message
/// gives the column only.
pub fn parse_lenient_line(bytes: &[u8], file: &str) -> Result<(Value, usize), LoadError> {
    parse_placed(bytes, file, |e| format!("column {}", e.column()))
}

/// `bytes` without a UTF-8 byte order mark at their start (a file saved by a Windows editor): it
/// is no JSON or YAML, and with it a harness file or its side file went unrecognised.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

fn parse_placed(
    bytes: &[u8],
    file: &str,
    place: fn(&serde_json::Error) -> String,
) -> Result<(Value, usize), LoadError> {
    let text = std::str::from_utf8(without_bom(bytes))
        .map_err(|_| LoadError::new(file, "the file is not UTF-8 text"))?;
    let (cleaned, replaced) = without_non_finite(text);
    let value = serde_json::from_str(&cleaned).map_err(|e| {
        // serde_json ends its message with " at line L column C": the place is given once, first.
        let message = e.to_string();
        let what = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(what, _)| what);
        LoadError::new(file, format!("not valid JSON at {}: {what}", place(&e)))
    })?;
    Ok((value, replaced))
}

/// The text with Python's non-finite tokens outside strings read as `null`, and how many there were.
pub fn without_non_finite(text: &str) -> (std::borrow::Cow<'_, str>, usize) {
    // Most files have no such token: then the text is parsed as it is, without a rewritten copy.
    if text.contains("NaN") || text.contains("Infinity") {
        replace_non_finite(text)
    } else {
        (std::borrow::Cow::Borrowed(text), 0)
    }
}

/// `NaN`, `Infinity` and `-Infinity` outside strings replaced by `null`.
fn replace_non_finite(text: &str) -> (std::borrow::Cow<'_, str>, usize) {
    const TOKENS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];
    let mut out = String::with_capacity(text.len());
    let mut replaced = 0;
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if let Some(token) = TOKENS.iter().find(|t| rest.starts_with(**t)) {
            out.push_str("null");
            replaced += 1;
            rest = &rest[token.len()..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    (std::borrow::Cow::Owned(out), replaced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_non_finite_tokens_read_as_null_outside_strings() {
        let (value, replaced) = parse_lenient(
            br#"{"a": NaN, "b": [Infinity, -Infinity, 1.5], "c": "NaN stays text", "d": "x\"NaN"}"#,
            "f.json",
        )
        .expect("lenient");
        assert_eq!(replaced, 3);
        assert_eq!(value["a"], Value::Null);
        assert_eq!(value["b"], serde_json::json!([null, null, 1.5]));
        assert_eq!(value["c"], "NaN stays text");
        assert_eq!(value["d"], "x\"NaN");
        let error =
            parse_lenient(b"{\"a\": nan}", "f.json").expect_err("lowercase is not Python's");
        assert_eq!(
            error.to_string(),
            "f.json: not valid JSON at line 1, column 8: expected ident"
        );
        // One line of a JSON Lines file: its caller names the line, the message the column once.
        let error = parse_lenient_line(b"{\"a\": 1,}", "f.jsonl").expect_err("trailing comma");
        assert_eq!(
            error.to_string(),
            "f.jsonl: not valid JSON at column 9: trailing comma"
        );
    }
}
