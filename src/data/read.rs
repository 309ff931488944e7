//! Readers by file extension: CSV, TSV, JSON Lines, JSON arrays and Parquet, with `.gz` for the text
//! formats. Each file becomes one polars `DataFrame` plus the position (line, record or row) of every
//! row, so that later checks can point at the exact place of a bad value. This module only reads: it
//! neither renames nor validates columns.
//!
//! Text formats are read with every column as a string (no type inference), so a value is never
//! reinterpreted before the checks see it exactly as the user wrote it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Cursor, Read};
use std::num::NonZeroUsize;
use std::path::Path;

use polars::prelude::*;

use super::error::{LoadError, Pos};

/// The input formats pareval reads, chosen by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Tsv,
    JsonLines,
    JsonArray,
    Parquet,
}

/// How rows map back to places in the file.
#[derive(Debug, Clone)]
pub enum Positions {
    /// 1-based starting line of each row.
    Lines(Vec<u64>),
    /// The n-th element of a JSON array.
    Records,
    /// The n-th row of a Parquet file.
    Rows,
}

impl Positions {
    pub fn at(&self, row: usize) -> Pos {
        match self {
            Positions::Lines(lines) => lines
                .get(row)
                .map_or(Pos::Row(row as u64 + 1), |&line| Pos::Line(line)),
            Positions::Records => Pos::Record(row as u64 + 1),
            Positions::Rows => Pos::Row(row as u64 + 1),
        }
    }
}

/// One file as read: its rows and where each row stands.
pub struct RawTable {
    /// The path as the user gave it, used in every message about this file.
    pub file: String,
    pub frame: DataFrame,
    pub positions: Positions,
    /// SHA-256 of the file's bytes as stored (before decompression), in hex.
    pub sha256: String,
    /// JSON record fields' values that the reader turned into another kind (see [`UnusualValue`]):
    /// the loader refuses them in the columns it reads.
    pub unusual: Vec<UnusualValue>,
}

/// Chooses the format from the file name; `.gz` may follow a text format's extension.
pub fn detect_format(path: &Path) -> Result<(Format, bool), LoadError> {
    if path.is_dir() {
        return Err(LoadError::new(
            path.display().to_string(),
            "is a folder; name a file here",
        ));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let (stem, gzip) = match name.strip_suffix(".gz") {
        Some(stem) => (stem.to_string(), true),
        None => (name.clone(), false),
    };
    let format = match stem.rsplit('.').next() {
        Some("csv") if stem.contains('.') => Format::Csv,
        Some("tsv") | Some("tab") if stem.contains('.') => Format::Tsv,
        Some("jsonl") | Some("ndjson") if stem.contains('.') => Format::JsonLines,
        Some("json") if stem.contains('.') => Format::JsonArray,
        Some("parquet") | Some("pq") if stem.contains('.') && !gzip => Format::Parquet,
        _ => {
            return Err(LoadError::new(
                path.display().to_string(),
                "unknown file type; pareval reads .csv, .tsv, .jsonl, .ndjson, .json and .parquet \
                 (text formats may be gzip-compressed: .csv.gz, .tsv.gz, .jsonl.gz)",
            ));
        }
    };
    Ok((format, gzip))
}

/// Reads one file into a frame. Every failure names the file.
pub fn read_table(path: &Path) -> Result<RawTable, LoadError> {
    // Only a live read finds no table without an error.
    read_table_as(path, None).and_then(|(table, _)| {
        table.ok_or_else(|| LoadError::new(path.display().to_string(), "the file is empty"))
    })
}

/// [`read_table`] for a file a live run is still writing: a last line the harness has not finished
/// (see [`unfinished_last_line`]) is set aside, and the note saying so is returned with the table.
/// With `whole_too`, a last line with no line end is set aside even when it looks whole. A file
/// with no rows yet (empty, or only its header: a run that has just begun) is no error: `None`
/// when there is nothing to read (no header either), else the header's empty table, whose columns
/// are still checked; the note says so.
pub fn read_live_table(
    path: &Path,
    whole_too: bool,
) -> Result<(Option<RawTable>, Option<String>), LoadError> {
    read_table_as(path, Some(whole_too))
}

/// `live`: None for a finished file; Some(whole_too) for a live one ([`read_live_table`]).
fn read_table_as(
    path: &Path,
    live: Option<bool>,
) -> Result<(Option<RawTable>, Option<String>), LoadError> {
    let file = path.display().to_string();
    // A path that is not there is named as such before its name is judged: a mistyped log folder
    // has no extension either, and "unknown file type" sent users looking at the formats.
    if !path.exists() {
        return Err(LoadError::new(
            path.display().to_string(),
            "no such file or folder",
        ));
    }
    let (format, gzip) = detect_format(path)?;
    let raw = read_bytes(path, &file)?;
    let sha256 = sha256_hex(&raw);
    // polars' JSON reader panics on gzip bytes ("activate 'decompress' feature"), and the other
    // readers call them not UTF-8: a compressed file that kept its plain name is told so.
    if !gzip && raw.starts_with(&[0x1f, 0x8b]) {
        return Err(LoadError::new(
            &file,
            "is gzip-compressed, but its name does not end in .gz: a harness's result file must be decompressed (gunzip), since importers read a file as the harness wrote it; a record table is read compressed when named so (records.csv.gz)",
        ));
    }
    let mut bytes = if gzip { gunzip(&raw, &file)? } else { raw };
    let mut note = None;
    if let Some(whole_too) = live {
        if let Some((cut, line)) = unfinished_last_line(&bytes, format) {
            bytes.truncate(cut);
            note = Some(format!(
                "{file}: line {line} is not finished yet (no line end, and short of a record): left out until the harness ends it"
            ));
        } else if whole_too && let Some((cut, line)) = last_line_without_end(&bytes, format) {
            bytes.truncate(cut);
            note = Some(format!(
                "{file}: line {line} has no line end and is not a valid record yet: left out until the harness ends it"
            ));
        }
    }
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        if live.is_some() {
            let note = note.unwrap_or_else(|| {
                format!("{file}: no rows yet (the file is empty): nothing read from it")
            });
            return Ok((None, Some(note)));
        }
        return Err(LoadError::new(&file, "the file is empty"));
    }
    let plain = |(frame, positions)| (frame, positions, Vec::new());
    // The checks above and in each reader catch what polars was seen to panic on; should it panic on
    // anything else, the file is refused all the same rather than the process ended.
    let (frame, positions, unusual) = super::damaged::unless_damaged(&file, "the file", || {
        Ok(match format {
            Format::Csv => plain(read_delimited(&bytes, b',', &file)?),
            Format::Tsv => plain(read_delimited(&bytes, b'\t', &file)?),
            Format::JsonLines => read_json(bytes, JsonFormat::JsonLines, &file)?,
            Format::JsonArray => read_json(bytes, JsonFormat::Json, &file)?,
            Format::Parquet => plain(read_parquet(bytes, &file)?),
        })
    })?;
    if frame.height() == 0 {
        if live.is_some() {
            // An empty JSON list has no columns to check.
            let note = note.unwrap_or_else(|| {
                format!("{file}: no rows yet (only its header): nothing read from it")
            });
            let table = (frame.width() > 0).then_some(RawTable {
                file,
                frame,
                positions,
                sha256,
                unusual,
            });
            return Ok((table, Some(note)));
        }
        return Err(LoadError::new(
            &file,
            "the file has no records (only a header or an empty list)",
        ));
    }
    Ok((
        Some(RawTable {
            file,
            frame,
            positions,
            sha256,
            unusual,
        }),
        note,
    ))
}

/// Whether `path` is a delimited or JSON Lines file whose last line has no line end and looks whole
/// (a live reader reads it; one cut mid-write can look so).
pub fn ends_in_a_whole_looking_line(path: &Path) -> bool {
    let Ok((format, false)) = detect_format(path) else {
        return false;
    };
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    last_line_without_end(&bytes, format).is_some()
        && unfinished_last_line(&bytes, format).is_none()
}

/// Where the last line of a delimited or JSON Lines file starts and its number, when it has no line
/// end and holds more than white space.
fn last_line_without_end(text: &[u8], format: Format) -> Option<(usize, u64)> {
    if text.ends_with(b"\n") || matches!(format, Format::JsonArray | Format::Parquet) {
        return None;
    }
    // A JSON Lines file's first line is a record, and a harness may be caught writing it; a
    // delimited file's first line is its header.
    let start = match text.iter().rposition(|&b| b == b'\n') {
        Some(end) => end + 1,
        None if format == Format::JsonLines => 0,
        None => return None,
    };
    if text[start..].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some((
        start,
        text.iter().filter(|&&b| b == b'\n').count() as u64 + 1,
    ))
}

/// Where a live file's last line starts and its number, when the harness has not finished writing
/// it: it has no line end, and it is short of a record (a delimited line with fewer fields than the
/// header, an open quote, or an empty last field, which is how a line cut right after a separator
/// reads; a JSON Lines line that is not yet JSON). A last line without a line end that is a whole
/// record is kept: many writers end their files so.
fn unfinished_last_line(text: &[u8], format: Format) -> Option<(usize, u64)> {
    let (start, line) = last_line_without_end(text, format)?;
    let last = &text[start..];
    let separator = match format {
        Format::Csv => b',',
        Format::Tsv => b'\t',
        Format::JsonLines => {
            let unfinished = serde_json::from_slice::<serde_json::Value>(last).is_err();
            return unfinished.then_some((start, line));
        }
        Format::JsonArray | Format::Parquet => return None,
    };
    let header_end = text.iter().position(|&b| b == b'\n')?;
    // Field count, whether a quote is still open, and whether the last field is empty.
    let fields = |line: &[u8]| {
        let mut in_quotes = false;
        let mut count = 1;
        let mut last_field_empty = true;
        for &b in line {
            match b {
                b'"' => {
                    in_quotes = !in_quotes;
                    last_field_empty = false;
                }
                b if b == separator && !in_quotes => {
                    count += 1;
                    last_field_empty = true;
                }
                // The first half of a CR LF line end is not a value.
                b'\r' => {}
                _ => last_field_empty = false,
            }
        }
        (count, in_quotes, last_field_empty)
    };
    let (header, _, _) = fields(&text[..header_end]);
    let (count, open_quote, last_field_empty) = fields(last);
    (open_quote || count < header || last_field_empty).then_some((start, line))
}

/// The SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn read_bytes(path: &Path, file: &str) -> Result<Vec<u8>, LoadError> {
    let mut handle =
        File::open(path).map_err(|e| LoadError::new(file, format!("cannot open the file: {e}")))?;
    let mut bytes = Vec::new();
    handle
        .read_to_end(&mut bytes)
        .map_err(|e| LoadError::new(file, format!("cannot read the file: {e}")))?;
    Ok(bytes)
}

fn gunzip(raw: &[u8], file: &str) -> Result<Vec<u8>, LoadError> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(raw)
        .read_to_end(&mut out)
        .map_err(|e| LoadError::new(file, format!("the file is not valid gzip: {e}")))?;
    Ok(out)
}

/// Text must be UTF-8; a UTF-8 byte-order mark (as spreadsheet exports write) is skipped, since it is
/// not part of the data, while UTF-16 is refused with a message that says how to fix it.
fn strip_bom<'a>(bytes: &'a [u8], file: &str) -> Result<&'a [u8], LoadError> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        Ok(&bytes[3..])
    } else if bytes.starts_with(&[0xFE, 0xFF]) || bytes.starts_with(&[0xFF, 0xFE]) {
        Err(LoadError::new(
            file,
            "the file is UTF-16 encoded; pareval reads UTF-8 (save the file as UTF-8)",
        ))
    } else {
        Ok(bytes)
    }
}

fn read_delimited(
    bytes: &[u8],
    separator: u8,
    file: &str,
) -> Result<(DataFrame, Positions), LoadError> {
    let text = strip_bom(bytes, file)?;
    if let Err(e) = std::str::from_utf8(text) {
        let line = 1 + text[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        return Err(LoadError::new(
            file,
            format!("the file is not valid UTF-8 (first bad byte on line {line})"),
        ));
    }
    // The scan comes first: polars fills a row with too few fields with nulls (and turns a blank
    // line into a row of nulls), so a short row would load with its last columns silently empty.
    let records = scan_delimited(text, separator)
        .map_err(|detail| LoadError::new(file, format!("cannot parse the file: {detail}")))?;
    let frame = CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(0))
        .map_parse_options(|options| options.with_separator(separator))
        .into_reader_with_file_handle(Cursor::new(text))
        .finish()
        .map_err(|e| {
            LoadError::new(
                file,
                format!("cannot parse the file: {}", polars_message(&e)),
            )
        })?;
    refuse_repeated_columns(&frame, file)?;
    let rows: Vec<&DelimitedRecord> = records.iter().skip(1).collect();
    let lines = |rows: &mut dyn Iterator<Item = &&DelimitedRecord>| -> Vec<u64> {
        rows.map(|record| record.line).collect()
    };
    let filled: Vec<&&DelimitedRecord> = rows.iter().filter(|record| !record.blank).collect();
    if rows.len() == frame.height() && filled.len() < rows.len() {
        // A blank line holds no record: the row of nulls polars made of it is left out.
        let keep: BooleanChunked = rows.iter().map(|record| Some(!record.blank)).collect();
        let frame = frame.filter(&keep).map_err(|e| {
            LoadError::new(
                file,
                format!("cannot parse the file: {}", polars_message(&e)),
            )
        })?;
        return Ok((frame, Positions::Lines(lines(&mut filled.into_iter()))));
    }
    let positions = if filled.len() == frame.height() {
        Positions::Lines(lines(&mut filled.into_iter()))
    } else {
        Positions::Rows
    };
    Ok((frame, positions))
}

/// A record of a delimited file as the scan found it: the line it starts on and whether it is a
/// blank line (no byte but a carriage return).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DelimitedRecord {
    line: u64,
    blank: bool,
}

/// The records of a delimited file (the header first), each with its 1-based starting line; quoted
/// fields may span lines. Refuses, naming the line, a record whose field count differs from the
/// header's, a quote that never closes and line ends a reader would misread (a carriage return
/// alone, or two before a line feed, which leave the last field with a hidden `\r`).
fn scan_delimited(text: &[u8], separator: u8) -> Result<Vec<DelimitedRecord>, String> {
    if !text.contains(&b'\n') && text.iter().filter(|&&b| b == b'\r').count() > 1 {
        return Err(
            "the lines end with a carriage return alone (old Mac line ends); save the \
             file with LF or CRLF line ends"
                .to_string(),
        );
    }
    let mut records = Vec::new();
    let mut header_fields: Option<usize> = None;
    let mut line = 1u64;
    let mut record_line = 1u64;
    let mut fields = 1usize;
    let mut in_quotes = false;
    // At the start of a field, and just after the quote that closed a quoted field.
    let mut field_start = true;
    let mut after_close = false;
    let mut blank = true;
    let mut end_record = |fields: usize, record_line: u64, blank: bool| -> Result<(), String> {
        if !blank {
            match header_fields {
                None => header_fields = Some(fields),
                Some(n) if n != fields => {
                    return Err(format!(
                        "line {record_line} has {fields} fields but the header has {n}"
                    ));
                }
                Some(_) => {}
            }
        }
        // Blank lines before the header are no record at all.
        if header_fields.is_some() {
            records.push(DelimitedRecord {
                line: record_line,
                blank,
            });
        }
        Ok(())
    };
    for (at, &byte) in text.iter().enumerate() {
        if in_quotes {
            match byte {
                b'"' => {
                    in_quotes = false;
                    after_close = true;
                }
                b'\n' => line += 1,
                _ => {}
            }
            continue;
        }
        if after_close {
            after_close = false;
            match byte {
                // A doubled quote inside a quoted field.
                b'"' => {
                    in_quotes = true;
                    continue;
                }
                b'\n' | b'\r' => {}
                b if b == separator => {}
                _ => {
                    return Err(format!(
                        "line {line}: text follows the closing quote of a quoted field (a quote \
                         inside a quoted field is written twice: \"a\"\"b\")"
                    ));
                }
            }
        }
        match byte {
            b'"' if field_start => {
                in_quotes = true;
                field_start = false;
                blank = false;
            }
            b'"' => {
                return Err(format!(
                    "line {line}: a quote inside an unquoted field (quote the whole field and \
                     write the quote twice: \"a\"\"b\")"
                ));
            }
            b'\n' => {
                if at >= 2 && text[at - 2..at] == *b"\r\r" {
                    return Err(format!(
                        "line {line} ends with two carriage returns before its line feed \
                         (\\r\\r\\n); save the file with LF or CRLF line ends"
                    ));
                }
                end_record(fields, record_line, blank)?;
                fields = 1;
                blank = true;
                field_start = true;
                line += 1;
                record_line = line;
            }
            b'\r' => {}
            b if b == separator => {
                fields += 1;
                blank = false;
                field_start = true;
            }
            _ => {
                blank = false;
                field_start = false;
            }
        }
    }
    if in_quotes {
        return Err(format!(
            "a quoted field that starts on line {record_line} is never closed"
        ));
    }
    if !blank {
        end_record(fields, record_line, blank)?;
    }
    Ok(records)
}

/// polars renames a repeated header name to `name_duplicated_N`: two columns of one name would make
/// every later check read the first and quietly ignore the other, so the file is refused.
fn refuse_repeated_columns(frame: &DataFrame, file: &str) -> Result<(), LoadError> {
    let names: Vec<&str> = frame
        .get_column_names()
        .iter()
        .map(|n| n.as_str())
        .collect();
    for name in &names {
        if let Some((base, number)) = name.rsplit_once("_duplicated_")
            && number.parse::<u32>().is_ok()
            && names.contains(&base)
        {
            return Err(LoadError::new(
                file,
                format!("the header (line 1) names the column '{base}' more than once"),
            ));
        }
    }
    Ok(())
}

/// Names the first JSON Lines line that is not valid JSON, or where a JSON array stops being valid.
fn diagnose_json(text: &[u8], json_lines: bool) -> Option<String> {
    if json_lines {
        text.split(|&b| b == b'\n')
            .enumerate()
            .find_map(|(i, line)| {
                if !line.iter().any(|b| !matches!(b, b' ' | b'\t' | b'\r')) {
                    return None;
                }
                match serde_json::from_slice::<serde_json::Value>(line) {
                    Ok(serde_json::Value::Object(_)) => None,
                    Ok(_) => Some(format!("line {} is not a JSON object", i + 1)),
                    Err(e) => Some(format!(
                        "line {}: {}",
                        i + 1,
                        strip_position(&e.to_string())
                    )),
                }
            })
    } else {
        match serde_json::from_slice::<serde_json::Value>(text) {
            Err(e) => Some(e.to_string()),
            Ok(serde_json::Value::Array(items)) => items
                .iter()
                .position(|item| !item.is_object())
                .map(|i| format!("record {} is not a JSON object", i + 1)),
            Ok(_) => Some(
                "the file must hold a JSON array of objects (use .jsonl for one object per line)"
                    .to_string(),
            ),
        }
    }
}

/// Names the first record whose value in some field is a list or an object where an earlier record
/// has a plain value there, or the other way round (polars' reader fails on it with a message about
/// supertypes or structs that names neither the line nor the field).
fn mixed_value_kinds(text: &[u8], json_lines: bool) -> Option<String> {
    use serde_json::Value;
    let kind = |value: &Value| match value {
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
        _ => "a plain value",
    };
    let records: Vec<(String, serde_json::Map<String, Value>)> = if json_lines {
        text.split(|&b| b == b'\n')
            .enumerate()
            .filter_map(|(i, line)| match serde_json::from_slice(line) {
                Ok(Value::Object(map)) => Some((format!("line {}", i + 1), map)),
                _ => None,
            })
            .collect()
    } else {
        match serde_json::from_slice(text) {
            Ok(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .filter_map(|(i, item)| match item {
                    Value::Object(map) => Some((format!("record {}", i + 1), map)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut first_seen: HashMap<&str, (&str, &Value)> = HashMap::new();
    for (place, map) in &records {
        for (key, value) in map.iter().filter(|(_, v)| !v.is_null()) {
            let (first_place, first_value) = *first_seen
                .entry(key.as_str())
                .or_insert((place.as_str(), value));
            if kind(first_value) != kind(value) {
                return Some(format!(
                    "{place}: field '{key}' holds {} ({}) where {first_place} holds {} ({}); a column holds one kind of value",
                    kind(value),
                    shortened(value),
                    kind(first_value),
                    shortened(first_value)
                ));
            }
        }
    }
    None
}

/// A JSON value as text, cut after 40 characters.
fn shortened(value: &serde_json::Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// serde_json appends " at line 1 column 41"; within a single JSON line only the column is useful.
fn strip_position(message: &str) -> String {
    match message.rsplit_once(" at line 1 column ") {
        Some((head, column)) => format!("{head} (column {column})"),
        None => message.to_string(),
    }
}

fn read_json(
    bytes: Vec<u8>,
    format: JsonFormat,
    file: &str,
) -> Result<(DataFrame, Positions, Vec<UnusualValue>), LoadError> {
    let text = strip_bom(&bytes, file)?;
    let json_lines = matches!(format, JsonFormat::JsonLines);
    let positions = match format {
        JsonFormat::JsonLines => Positions::Lines(json_line_numbers(text)),
        JsonFormat::Json => Positions::Records,
    };
    // polars' JSON reader panics on an integer outside i64 (it infers Int128, which it cannot hold,
    // for one past i64::MAX as for one wider than 64 bits): such a file is refused first, naming
    // the line and the value.
    // A key written twice in one record would keep one of its values without a word: refused too.
    let record_depth = if json_lines { 1 } else { 2 };
    let scan = json_scan(text, record_depth);
    match scan.trap {
        Some((line, JsonTrap::WideInteger(token))) => {
            return Err(LoadError::new(
                file,
                format!(
                    "line {line}: the integer {token} is outside the signed 64-bit range, which the JSON reader cannot hold (write it as a string or a float)"
                ),
            ));
        }
        Some((line, JsonTrap::RepeatedKey(key))) => {
            return Err(LoadError::new(
                file,
                format!(
                    "line {line}: the key \"{key}\" appears twice in one record; which of its values is meant cannot be told (keep one)"
                ),
            ));
        }
        Some((line, JsonTrap::HugeNumber(token))) => {
            return Err(LoadError::new(
                file,
                format!(
                    "line {line}: the number {token} is past the largest 64-bit float (about 1.8e308)"
                ),
            ));
        }
        Some((line, JsonTrap::TooDeep)) => {
            return Err(LoadError::new(
                file,
                format!(
                    "line {line}: lists and objects nested more than {DEEPEST_JSON} deep, which records never need and the JSON reader cannot take"
                ),
            ));
        }
        None => {}
    }
    let parse = |text: &[u8], format: JsonFormat| {
        JsonReader::new(Cursor::new(text))
            .with_json_format(format)
            // Infer from every record: a value of another type deep in the file must not be turned into null.
            .infer_schema_len(NonZeroUsize::new(usize::MAX))
            .finish()
    };
    let refused = |e: PolarsError| {
        let detail = diagnose_json(text, json_lines)
            .or_else(|| mixed_value_kinds(text, json_lines))
            .unwrap_or_else(|| polars_message(&e));
        LoadError::new(file, format!("cannot parse the file as JSON: {detail}"))
    };
    let frame = match parse(text, format) {
        Ok(frame) => frame,
        // The JSON Lines reader fails on a column whose values change type along the file (numbers,
        // then true); the array reader takes the same records and keeps every value.
        Err(_) if json_lines && diagnose_json(text, true).is_none() => {
            parse(&json_lines_as_array(text), JsonFormat::Json).map_err(refused)?
        }
        Err(e) => return Err(refused(e)),
    };
    Ok((frame, positions, scan.unusual))
}

/// What the JSON reader would get wrong in silence or panic on, found before it reads the file.
#[derive(Debug, PartialEq)]
enum JsonTrap {
    /// An integer literal outside strings that does not fit i64 (polars panics on it).
    WideInteger(String),
    /// A key written twice in one record (the reader keeps one of the values without a word).
    RepeatedKey(String),
    /// Arrays and objects nested deeper than [`DEEPEST_JSON`].
    TooDeep,
    /// A number past the largest 64-bit float (the readers said "number out of range" without it).
    HugeNumber(String),
}

/// Deepest nesting of arrays and objects the record reader takes: polars' JSON reader slows as a
/// power of the depth (21 s at 600 levels) and overflows its stack on 100,000; serde, which the
/// harness readers use, stops at 128.
const DEEPEST_JSON: usize = 128;

/// The first [`JsonTrap`] of a JSON text, with its line (1-based). Records are the objects at
/// `record_depth` (1 for JSON Lines, 2 inside a JSON array); only their own keys are compared.
fn json_trap(text: &[u8], record_depth: usize) -> Option<(u64, JsonTrap)> {
    json_scan(text, record_depth).trap
}

/// A record field's value that the JSON reader turns into something else without a word: a list
/// or an object among plain values becomes its text ("[]" a system's name), a boolean among
/// numbers becomes 1 or 0 (a cost of `true` read as $1).
#[derive(Debug, Clone, PartialEq)]
pub struct UnusualValue {
    pub key: String,
    pub line: u64,
    /// "a list", "an object" or "a boolean".
    pub kind: &'static str,
    /// The value as written, cut after 40 characters.
    pub shown: String,
}

/// What one pass over a JSON text found: the first trap, and the first value of each unusual kind
/// (see [`UnusualValue`]) of each record key.
#[derive(Debug, Default)]
struct JsonScan {
    trap: Option<(u64, JsonTrap)>,
    unusual: Vec<UnusualValue>,
}

/// The unusual kind of the value that starts at `start` (after a key's colon), if it is one.
fn unusual_kind(text: &[u8], start: usize) -> Option<&'static str> {
    let first = text[start..].iter().find(|b| !b.is_ascii_whitespace())?;
    match first {
        b'[' => Some("a list"),
        b'{' => Some("an object"),
        b't' | b'f' => Some("a boolean"),
        _ => None,
    }
}

/// The value written at `start` (a list or object to its closing bracket, a word to its end), cut
/// after 40 characters.
fn shown_value(text: &[u8], start: usize) -> String {
    let start = start
        + text[start..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    let mut end = start;
    let mut depth = 0usize;
    while end < text.len() {
        match text[end] {
            b'"' => {
                end = string_end(text, end + 1).0;
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth > 0 => depth -= 1,
            b if depth == 0 && !b.is_ascii_alphanumeric() => break,
            _ => {}
        }
        end += 1;
        if depth == 0 {
            // A closed list or object ends here; a word goes on to its last letter.
            if matches!(text[end - 1], b']' | b'}') {
                break;
            }
        }
    }
    let value = String::from_utf8_lossy(&text[start..end]);
    match value.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &value[..cut]),
        None => value.into_owned(),
    }
}

fn json_scan(text: &[u8], record_depth: usize) -> JsonScan {
    let mut scan = JsonScan::default();
    let mut line = 1u64;
    let mut depth = 0usize;
    let mut keys: Vec<&[u8]> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'\n' => line += 1,
            b'{' | b'[' => {
                depth += 1;
                if depth > DEEPEST_JSON {
                    scan.trap = Some((line, JsonTrap::TooDeep));
                    return scan;
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth < record_depth {
                    keys.clear();
                }
            }
            b'"' => {
                let (end, newlines) = string_end(text, i + 1);
                let at_line = line;
                line += newlines;
                let next = text[end..].iter().find(|b| !b.is_ascii_whitespace());
                if depth == record_depth && next == Some(&b':') {
                    let key = &text[i + 1..end.saturating_sub(1).max(i + 1)];
                    if keys.contains(&key) {
                        let shown = String::from_utf8_lossy(key).into_owned();
                        scan.trap = Some((at_line, JsonTrap::RepeatedKey(shown)));
                        return scan;
                    }
                    keys.push(key);
                    let value = end
                        + text[end..]
                            .iter()
                            .position(|&b| b == b':')
                            .map_or(0, |at| at + 1);
                    if let Some(kind) = unusual_kind(text, value) {
                        let name = String::from_utf8_lossy(key);
                        if !scan.unusual.iter().any(|u| u.kind == kind && u.key == name) {
                            scan.unusual.push(UnusualValue {
                                key: name.into_owned(),
                                line: at_line,
                                kind,
                                shown: shown_value(text, value),
                            });
                        }
                    }
                }
                i = end;
                continue;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < text.len()
                    && matches!(text[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                let token = String::from_utf8_lossy(&text[start..i]);
                let integer = !token.contains(['.', 'e', 'E']);
                if integer && token.parse::<i64>().is_err() && token != "-" {
                    scan.trap = Some((line, JsonTrap::WideInteger(token.into_owned())));
                    return scan;
                }
                if !integer && token.parse::<f64>().is_ok_and(f64::is_infinite) {
                    scan.trap = Some((line, JsonTrap::HugeNumber(token.into_owned())));
                    return scan;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    scan
}

/// The first key written twice in one JSON object given as its own line (a followed JSON Lines
/// file's line, which the live readers parse one at a time), if any.
pub fn repeated_key(line: &[u8]) -> Option<String> {
    match json_trap(line, 1) {
        Some((_, JsonTrap::RepeatedKey(key))) => Some(key),
        _ => None,
    }
}

/// Where the string that starts after an opening quote at `start` ends (just past its closing
/// quote, or the text's end if it has none), and the line breaks inside it.
pub(crate) fn string_end(text: &[u8], start: usize) -> (usize, u64) {
    let mut newlines = 0;
    let mut escaped = false;
    for (offset, &b) in text[start..].iter().enumerate() {
        match (escaped, b) {
            (true, _) => escaped = false,
            (false, b'\\') => escaped = true,
            (false, b'"') => return (start + offset + 1, newlines),
            _ => {}
        }
        if b == b'\n' {
            newlines += 1;
        }
    }
    (text.len(), newlines)
}

/// The objects of a JSON Lines file as one JSON array (blank lines left out, as the reader does).
fn json_lines_as_array(text: &[u8]) -> Vec<u8> {
    let mut array = Vec::with_capacity(text.len() + 2);
    array.push(b'[');
    let lines = text
        .split(|&b| b == b'\n')
        .filter(|line| line.iter().any(|b| !matches!(b, b' ' | b'\t' | b'\r')));
    for (i, line) in lines.enumerate() {
        if i > 0 {
            array.push(b',');
        }
        array.extend_from_slice(line);
    }
    array.push(b']');
    array
}

/// Line numbers of the non-blank lines of a JSON Lines file (polars skips blank lines the same way).
fn json_line_numbers(text: &[u8]) -> Vec<u64> {
    text.split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, line)| line.iter().any(|b| !matches!(b, b' ' | b'\t' | b'\r')))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

fn read_parquet(bytes: Vec<u8>, file: &str) -> Result<(DataFrame, Positions), LoadError> {
    // polars panics on some damaged files (a corrupt thrift field, a struct's children, a page
    // range) where it should refuse them.
    let frame = super::damaged::unless_damaged(file, "the Parquet file", || {
        read_parquet_frame(bytes, file)
    })?;
    // A damaged footer can give the table more rows than its columns hold (the loader then read
    // past a column's end).
    if let Some(short) = frame
        .columns()
        .iter()
        .find(|column| column.len() != frame.height())
    {
        return Err(LoadError::new(
            file,
            format!(
                "the Parquet file is damaged: column '{}' holds {} values where the file says it has {} rows",
                short.name(),
                short.len(),
                frame.height()
            ),
        ));
    }
    Ok((frame, Positions::Rows))
}

fn read_parquet_frame(bytes: Vec<u8>, file: &str) -> Result<DataFrame, LoadError> {
    let mut reader = ParquetReader::new(Cursor::new(bytes));
    let schema = reader.schema().map_err(|e| {
        LoadError::new(
            file,
            format!("cannot read the Parquet file: {}", polars_message(&e)),
        )
    })?;
    // This build of polars reads neither decimals (it panics on them) nor 8- and 16-bit integers
    // (it refuses them without naming the column): such a column is named first.
    for (name, field) in schema.iter() {
        let unread = match field.dtype() {
            ArrowDataType::Decimal(..)
            | ArrowDataType::Decimal32(..)
            | ArrowDataType::Decimal64(..)
            | ArrowDataType::Decimal256(..) => Some("a decimal"),
            ArrowDataType::Int8
            | ArrowDataType::Int16
            | ArrowDataType::UInt8
            | ArrowDataType::UInt16 => Some("an 8- or 16-bit integer"),
            _ => None,
        };
        if let Some(kind) = unread {
            return Err(LoadError::new(
                file,
                format!(
                    "column '{name}' is {kind} ({:?}), which pareval's Parquet reader does not take: write it as a double or a 32- or 64-bit integer",
                    field.dtype()
                ),
            ));
        }
    }
    reader.finish().map_err(|e| {
        LoadError::new(
            file,
            format!("cannot read the Parquet file: {}", polars_message(&e)),
        )
    })
}

/// A CSV text read with every column as text: a list a format reads beside its results (HLE's
/// questions, a split's instance ids), whose quoted fields may hold commas and line breaks; the
/// caller words the errors.
pub(crate) fn text_csv(text: &str) -> PolarsResult<DataFrame> {
    CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(0))
        .into_reader_with_file_handle(Cursor::new(text.as_bytes()))
        .finish()
}

/// The first line of a polars error, without its internal context, for a message a user can read.
pub(crate) fn polars_message(error: &PolarsError) -> String {
    let text = error.to_string();
    let first = text.lines().next().unwrap_or("").trim();
    if first.is_empty() {
        text
    } else {
        first.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide_integer(text: &[u8]) -> Option<(u64, String)> {
        match json_trap(text, 2) {
            Some((line, JsonTrap::WideInteger(token))) => Some((line, token)),
            _ => None,
        }
    }

    #[test]
    fn integers_outside_i64_are_found_outside_strings_only() {
        assert_eq!(
            wide_integer(b"[1, -2, 9223372036854775807, -9223372036854775808, 1e400, 2.5]"),
            None
        );
        // One past i64::MAX fits u64, and polars' reader still panics on it (it infers Int128).
        assert_eq!(
            wide_integer(b"[1,\n 9223372036854775808]"),
            Some((2, "9223372036854775808".to_string()))
        );
        assert_eq!(
            wide_integer(b"{\"a\": \"123456789012345678901234567890\",\n \"b\": [-123456789012345678901234567890]}"),
            Some((2, "-123456789012345678901234567890".to_string()))
        );
        assert_eq!(
            wide_integer(b"{\"k\\\"\": 18446744073709551616}"),
            Some((1, "18446744073709551616".to_string()))
        );
    }

    #[test]
    fn unusual_values_are_found_once_per_key_with_their_line_and_text() {
        let lines = b"{\"s\":\"A\",\"c\":0.5,\"m\":{\"k\":[1,\"]\"]}}\n{\"s\":[],\"c\":true,\"m\":{}}\n{\"s\":[2],\"c\" : false}\n";
        let found: Vec<(String, u64, &str, String)> = json_scan(lines, 1)
            .unusual
            .into_iter()
            .map(|u| (u.key, u.line, u.kind, u.shown))
            .collect();
        let expected = [
            ("m", 1, "an object", "{\"k\":[1,\"]\"]}"),
            ("s", 2, "a list", "[]"),
            ("c", 2, "a boolean", "true"),
        ];
        assert_eq!(
            found,
            expected.map(|(k, l, kind, v)| (k.to_string(), l, kind, v.to_string()))
        );
        // Values inside a record's lists and objects are not the record's fields.
        let nested = b"[{\"s\":\"A\",\"m\":{\"flag\":true}}]";
        let keys: Vec<String> = json_scan(nested, 2)
            .unusual
            .into_iter()
            .map(|u| u.key)
            .collect();
        assert_eq!(keys, ["m"]);
        // A long value is cut after 40 characters.
        let long = format!("{{\"s\":[{}]}}", "1,".repeat(30) + "1");
        let shown = &json_scan(long.as_bytes(), 1).unusual[0].shown;
        assert_eq!(shown.chars().count(), 41, "{shown}");
        assert!(shown.ends_with('…'));
    }

    #[test]
    fn a_key_repeated_within_a_record_is_found_and_other_repeats_are_not() {
        let repeated = |text: &[u8], depth| match json_trap(text, depth) {
            Some((line, JsonTrap::RepeatedKey(key))) => Some((line, key)),
            _ => None,
        };
        let lines =
            b"{\"task\":\"t1\",\"outcome\":1}\n{\"task\":\"t2\",\"outcome\":1,\"outcome\":0}\n";
        assert_eq!(repeated(lines, 1), Some((2, "outcome".to_string())));
        // The same key in two records, in nested objects, or as a value is no repeat.
        let fine = b"{\"a\":\"a\",\"m\":{\"a\":1},\"l\":[{\"a\":1},{\"a\":2}]}\n{\"a\":\"x:\"}\n";
        assert_eq!(json_trap(fine, 1), None);
        // In a JSON array the records sit one level down; a string with a line break and an escaped
        // quote keeps the line count right.
        let array = b"[{\"a\":\"x\\\"\ny\",\"b\":1},\n {\"b\":1, \"b\" : 2}]";
        assert_eq!(repeated(array, 2), Some((3, "b".to_string())));
        assert_eq!(json_trap(array, 1), None);
    }

    fn scanned(text: &[u8], separator: u8) -> Result<Vec<(u64, bool)>, String> {
        scan_delimited(text, separator)
            .map(|records| records.iter().map(|r| (r.line, r.blank)).collect())
    }

    #[test]
    fn the_scan_finds_record_lines_across_quoted_newlines_and_marks_blank_lines() {
        let text = b"a,b\n1,\"x\ny\"\n\n2,z\r\n3,w";
        assert_eq!(
            scanned(text, b','),
            Ok(vec![
                (1, false),
                (2, false),
                (4, true),
                (5, false),
                (6, false)
            ])
        );
    }

    #[test]
    fn the_scan_refuses_short_and_long_rows_open_quotes_and_stray_carriage_returns() {
        let refused = |text: &[u8]| scanned(text, b',').err();
        assert_eq!(
            refused(b"a,b\n1,2\n1,2,3\n").as_deref(),
            Some("line 3 has 3 fields but the header has 2")
        );
        assert_eq!(
            refused(b"a,b,c\n1,2,3\n1,2\n").as_deref(),
            Some("line 3 has 2 fields but the header has 3")
        );
        assert_eq!(
            refused(b"a,b,c\n1,2,3\n1,2").as_deref(),
            Some("line 3 has 2 fields but the header has 3")
        );
        assert_eq!(
            refused(b"a,b\n1,2\n\"3,4\n").as_deref(),
            Some("a quoted field that starts on line 3 is never closed")
        );
        assert!(refused(b"a,b\r1,2\r3,4\r").is_some_and(|m| m.contains("carriage return alone")));
        assert!(refused(b"a,b\r\r\n1,2\r\r\n").is_some_and(|m| m.starts_with("line 1 ends")));
        assert_eq!(scanned(b"a\tb\n1\t2\n", b'\t').map(|r| r.len()), Ok(2));
        assert!(refused(b"a,b\n1,x\"y\n").is_some_and(|m| m.starts_with("line 2: a quote inside")));
        assert!(refused(b"a,b\n1,\"x\"y\n").is_some_and(|m| m.starts_with("line 2: text follows")));
        assert_eq!(
            scanned(b"a,b\n1,\"x\"\"y\"\n", b',').map(|r| r.len()),
            Ok(2)
        );
    }

    #[test]
    fn a_live_file_s_unfinished_last_line_is_found_and_a_whole_one_kept() {
        let csv = |text: &[u8]| unfinished_last_line(text, Format::Csv);
        // Cut mid-record: set aside from where the line starts.
        assert_eq!(csv(b"system,task,outcome\nA,t1,1\nA,t"), Some((27, 3)));
        assert_eq!(csv(b"a,b\n1,\"x"), Some((4, 2)));
        // Cut right after a separator: every field is there but the last is still empty.
        assert_eq!(csv(b"system,task,outcome\nA,t1,1\nA,t2,"), Some((27, 3)));
        assert_eq!(
            csv(b"system,task,outcome\r\nA,t1,1\r\nA,t2,\r"),
            Some((29, 3))
        );
        assert_eq!(csv(b"a,b\n1,\"\""), None);
        // A whole record without a line end, a finished file, a header alone: kept.
        assert_eq!(csv(b"system,task,outcome\nA,t1,1\nA,t2,0"), None);
        assert_eq!(csv(b"system,task,outcome\nA,t1,1\n"), None);
        assert_eq!(csv(b"system,task,outcome"), None);
        let jsonl = |text: &[u8]| unfinished_last_line(text, Format::JsonLines);
        assert_eq!(jsonl(b"{\"a\": 1}\n{\"a\": "), Some((9, 2)));
        assert_eq!(jsonl(b"{\"a\": 1}\n{\"a\": 2}"), None);
        assert_eq!(unfinished_last_line(b"[{\"a\"", Format::JsonArray), None);
    }

    #[test]
    fn formats_follow_the_extension() {
        let format = |name: &str| detect_format(Path::new(name)).map_err(|e| e.message);
        assert_eq!(format("r.CSV"), Ok((Format::Csv, false)));
        assert_eq!(format("r.tsv.gz"), Ok((Format::Tsv, true)));
        assert_eq!(format("r.ndjson"), Ok((Format::JsonLines, false)));
        assert_eq!(format("r.json"), Ok((Format::JsonArray, false)));
        assert_eq!(format("r.parquet"), Ok((Format::Parquet, false)));
        assert!(format("r.parquet.gz").is_err());
        assert!(format("csv").is_err());
    }
}
