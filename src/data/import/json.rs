//! Lenient JSON for harness files: Python's `json.dump` writes `NaN`, `Infinity` and `-Infinity`
//! tokens, which are not JSON. Outside strings they are read as null (missing), and counted so the
//! loader can say how many it met; everything else must be strict JSON.

use serde_json::Value;

use crate::data::error::LoadError;

/// Parses `bytes` as JSON with Python's non-finite tokens read as null; returns the value and the
/// number of such tokens.
pub fn parse_lenient(bytes: &[u8], file: &str) -> Result<(Value, usize), LoadError> {
    // As the record loader says it: serde's "EOF while parsing a value" at column 0 named no fault.
    if without_bom(bytes).iter().all(u8::is_ascii_whitespace) {
        return Err(LoadError::new(file, "the file is empty"));
    }
    if let Some((line, key)) = repeated_key(without_bom(bytes)) {
        return Err(LoadError::new(
            file,
            format!("line {line}: {}", repeated(&key)),
        ));
    }
    parse_placed(bytes, file, |e| {
        format!("line {}, column {}", e.line(), e.column())
    })
}

/// What a key written twice in one object is told.
fn repeated(key: &str) -> String {
    format!(
        "the key \"{key}\" appears twice in one object; which of its values is meant cannot be told (keep one)"
    )
}

/// The first key written twice in one object, at any depth, with its line (1-based). Objects
/// with many keys (a results map keyed by task) are checked through a set.
pub fn repeated_key(text: &[u8]) -> Option<(u64, String)> {
    use std::collections::HashSet;
    /// An open object's keys: the first few in a list, all of them in a set past that.
    type Keys<'a> = (Vec<&'a [u8]>, HashSet<&'a [u8]>);
    // One entry per open object or array (None for an array).
    let mut open: Vec<Option<Keys<'_>>> = Vec::new();
    let mut line = 1u64;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'\n' => line += 1,
            b'{' => open.push(Some((Vec::new(), HashSet::new()))),
            b'[' => open.push(None),
            b'}' | b']' => {
                open.pop();
            }
            b'"' => {
                let start = i + 1;
                // The loader's record scan skips strings the same way.
                let (after, newlines) = crate::data::read::string_end(text, start);
                // `after` is just past the closing quote, or the text's end without one.
                let end = if after > start && text[after - 1] == b'"' {
                    after - 1
                } else {
                    after
                };
                let key = &text[start..end];
                let is_key = text[(end + 1).min(text.len())..]
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    == Some(&b':');
                if is_key && let Some(Some((few, many))) = open.last_mut() {
                    let seen = if many.is_empty() {
                        few.contains(&key)
                    } else {
                        many.contains(key)
                    };
                    if seen {
                        return Some((line, String::from_utf8_lossy(key).into_owned()));
                    }
                    if many.is_empty() && few.len() < 32 {
                        few.push(key);
                    } else {
                        many.extend(few.drain(..));
                        many.insert(key);
                    }
                }
                line += newlines;
                i = end + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// [`parse_lenient`] for one line of a JSON Lines file, whose caller names the line: the message
/// gives the column only.
pub fn parse_lenient_line(bytes: &[u8], file: &str) -> Result<(Value, usize), LoadError> {
    if let Some((_, key)) = repeated_key(without_bom(bytes)) {
        return Err(LoadError::new(file, repeated(&key)));
    }
    parse_placed(bytes, file, |e| format!("column {}", e.column()))
}

/// A JSON value as a message shows it: its text, cut at 40 characters (a list or an object where
/// a scalar belongs can be a whole sample).
pub fn shown(value: &Value) -> String {
    value.to_string().chars().take(40).collect()
}

/// An amount (a cost or a duration) at `key` of `object`: None when absent or null. A string that
/// holds a number ("12.5", as some writers quote them) is that number (NOTES §8); a value that is
/// no number (another string, a list, a boolean) comes back as NaN, so the import's check of
/// amounts reads it as unknown and says so instead of dropping it unseen.
pub fn amount(object: &Value, key: &str) -> Option<f64> {
    match object.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.trim().parse().unwrap_or(f64::NAN)),
        Some(value) => Some(value.as_f64().unwrap_or(f64::NAN)),
    }
}

/// `bytes` without a UTF-8 byte order mark at their start (a file saved by a Windows editor): it
/// is no JSON or YAML, and with it a harness file or its side file went unrecognised.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

/// The first bytes of a zip archive (an Inspect `.eval` log).
pub const ZIP_MAGIC: &[u8] = b"PK\x03\x04";

fn parse_placed(
    bytes: &[u8],
    file: &str,
    place: fn(&serde_json::Error) -> String,
) -> Result<(Value, usize), LoadError> {
    let text = std::str::from_utf8(without_bom(bytes)).map_err(|_| {
        LoadError::new(
            file,
            if bytes.starts_with(ZIP_MAGIC) {
                "the file is a zip archive, not JSON text (an Inspect .eval log is one: read it with the format inspect)"
            } else {
                "the file is not UTF-8 text"
            },
        )
    })?;
    let (cleaned, replaced) = without_non_finite(text);
    let value = serde_json::from_str(&cleaned).map_err(|e| {
        // serde_json ends its message with " at line L column C": the place is given once, first.
        let message = e.to_string();
        let what = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(what, _)| what);
        // serde says "number out of range" without the number (1e400 in a reward): it is named.
        let what = match number_at(&cleaned, e.line(), e.column()) {
            Some(number) if what == "number out of range" => {
                format!("the number {number} is past the largest 64-bit float (about 1.8e308)")
            }
            _ => what.to_string(),
        };
        LoadError::new(file, format!("not valid JSON at {}: {what}", place(&e)))
    })?;
    Ok((value, replaced))
}

/// The number written around byte `column` (1-based, as serde counts) of line `line`, if any.
fn number_at(text: &str, line: usize, column: usize) -> Option<&str> {
    let line = text.lines().nth(line.checked_sub(1)?)?.as_bytes();
    let at = column.min(line.len()).checked_sub(1)?;
    let is_number = |b: &u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-');
    let start = line[..=at]
        .iter()
        .rposition(|b| !is_number(b))
        .map_or(0, |i| i + 1);
    let end = at + line[at..].iter().take_while(|b| is_number(b)).count();
    (start < end)
        .then(|| std::str::from_utf8(&line[start..end]).ok())
        .flatten()
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
    fn a_key_written_twice_in_any_object_is_found() {
        assert_eq!(
            repeated_key(br#"{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}"#),
            None
        );
        assert_eq!(
            repeated_key(b"{\"a\": 1,\n \"b\": {\"x\": \"a\", \"x\": 2}}"),
            Some((2, "x".to_string()))
        );
        // A string value that reads like a key, an escaped quote, many keys (through the set).
        assert_eq!(repeated_key(br#"{"k": "a", "a": "k\"", "z": 0}"#), None);
        let many: Vec<String> = (0..100).map(|i| format!("\"t{i}\": {i}")).collect();
        let map = format!("{{{}}}", many.join(", "));
        assert_eq!(repeated_key(map.as_bytes()), None);
        let twice = format!("{{{}, \"t7\": 0}}", many.join(", "));
        assert_eq!(repeated_key(twice.as_bytes()), Some((1, "t7".to_string())));
        let error = parse_lenient(b"{\"passed\": true, \"passed\": false}", "f.json")
            .expect_err("repeated");
        assert!(
            error
                .to_string()
                .starts_with("f.json: line 1: the key \"passed\" appears twice in one object"),
            "{error}"
        );
    }

    #[test]
    fn a_number_past_f64_and_a_byte_order_mark() {
        let error = parse_lenient(b"{\"reward\": 1,\n \"x\": -2.5e400}", "f.json")
            .expect_err("out of range");
        let message = error.to_string();
        assert!(
            message.starts_with("f.json: not valid JSON at line 2, column ")
                && message.ends_with(
                    ": the number -2.5e400 is past the largest 64-bit float (about 1.8e308)"
                ),
            "{message}"
        );
        let (value, _) = parse_lenient(b"\xef\xbb\xbf{\"a\": 1}", "f.json").expect("BOM");
        assert_eq!(value["a"], 1);
        // An empty harness file said "not valid JSON at line 1, column 0: EOF while parsing".
        for empty in [&b""[..], b"\n  \n", b"\xef\xbb\xbf"] {
            let error = parse_lenient(empty, "f.json").expect_err("empty");
            assert_eq!(error.to_string(), "f.json: the file is empty");
        }
    }

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
