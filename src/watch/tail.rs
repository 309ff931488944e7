//! The tail of one CSV or JSON Lines file that a harness appends to: each poll reads only the bytes
//! added since the last one; a partly written last line waits for its newline; a file that shrank,
//! was replaced (another inode) or was rewritten in place (a harness that writes its whole table
//! again, as pandas' `to_csv` does: the bytes already read differ, whatever the size) is read again
//! from the start, with a notice. A last line without a line end is named once the file has not
//! changed for a while, and read once the writer has ended. Each complete line
//! becomes named fields (a CSV header's columns, a JSON object's keys) or a problem with its line
//! number. Shared by `watch` (outcome rows) and `halt --follow` (steps).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// One line's cells by name; a missing or empty cell is None.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields {
    cells: Vec<(String, Option<String>)>,
}

impl Fields {
    /// Cells by name as read from a whole file (a missing or empty cell is None).
    pub fn from_cells(cells: Vec<(String, Option<String>)>) -> Self {
        let cells = cells
            .into_iter()
            .map(|(name, value)| (name, value.filter(|v| !v.is_empty())))
            .collect();
        Fields { cells }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.cells
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// The field names the line has (JSON Lines: the object's keys, null ones included).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.cells.iter().map(|(n, _)| n.as_str())
    }

    /// Whether the line has the field at all (even empty).
    pub fn has(&self, name: &str) -> bool {
        self.cells.iter().any(|(n, _)| n == name)
    }
}

/// What one poll of a tail found, in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum TailEvent {
    /// A CSV file's header line: its column names.
    Header {
        line: u64,
        columns: Vec<String>,
    },
    Record {
        line: u64,
        fields: Fields,
    },
    Bad {
        line: u64,
        message: String,
    },
    /// The file shrank or was replaced: what it said before is withdrawn and it is read anew.
    Reread,
    /// The last line has had no line end for [`WAITING_POLLS`] polls of an unchanged file: it is
    /// not read until it has one or the writer has ended (said once per record). `open_quote`:
    /// the record has line ends, inside a quoted field that is not closed yet.
    Waiting {
        line: u64,
        open_quote: bool,
    },
}

/// Polls in a row of an unchanged file after which a last line without a line end is named (two
/// seconds at two polls a second). Harnesses write lines whole, so a line left so long may be the
/// file's last, written without a line end; it is still not read, since a writer that flushes
/// its buffer mid-line (Python's block buffering) leaves a cut line that can look whole ("0" of
/// "0.5"), and a live decision on it could not be taken back.
pub const WAITING_POLLS: u32 = 4;

/// What the followers say of a [`TailEvent::Waiting`] line.
pub fn waiting_message(file: &str, line: u64, open_quote: bool) -> String {
    if open_quote {
        format!(
            "{file}, line {line} starts a record whose quoted field is not closed yet: left unread until it is (a quote opened by mistake holds every later row)"
        )
    } else {
        format!(
            "{file}, line {line} has no line end yet: left unread until it gets one (a line cut mid-write can look whole)"
        )
    }
}

/// How a followed file's lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFormat {
    /// Comma-separated with a header line (RFC 4180 quoting).
    Csv,
    /// Tab-separated with a header line (quoted as the loader reads .tsv).
    Tsv,
    /// One JSON object per line.
    JsonLines,
}

#[derive(Debug)]
pub struct Tail {
    path: PathBuf,
    format: LineFormat,
    offset: u64,
    identity: Option<(u64, u64)>,
    /// When the file last changed, and the SHA-256 state of the bytes read so far (`offset` of
    /// them): when it changes again, those bytes are checked before more are read.
    modified: Option<std::time::SystemTime>,
    read_so_far: Sha256,
    /// Bytes after the last newline: a line still being written.
    partial: Vec<u8>,
    /// Polls in a row that found the file unchanged while `partial` held a line.
    quiet_polls: u32,
    /// The line of the record last named as waiting (named once).
    announced: Option<u64>,
    /// The writer has ended (`pareval run`'s harness exited): a last line without a line end is
    /// the file's last, and is read.
    writer_ended: bool,
    header: Option<Vec<String>>,
    line: u64,
}

impl Tail {
    /// A tail of rows in `format`.
    pub fn new(path: &Path, format: LineFormat) -> Self {
        Tail {
            path: path.to_path_buf(),
            format,
            offset: 0,
            identity: None,
            modified: None,
            read_so_far: Sha256::new(),
            partial: Vec::new(),
            quiet_polls: 0,
            announced: None,
            writer_ended: false,
            header: None,
            line: 0,
        }
    }

    /// The writer has ended: from the next poll on, a last line without a line end is read as
    /// the file's last line (as the loader, and so `decide`, reads a file that ends so).
    pub fn writer_ended(&mut self) {
        self.writer_ended = true;
    }

    /// Reads what was appended since the last poll (nothing when the file is unchanged or absent).
    pub fn poll(&mut self, out: &mut Vec<TailEvent>) {
        let Ok(meta) = std::fs::metadata(&self.path) else {
            return;
        };
        let identity = file_identity(&meta);
        let replaced = self.identity.is_some_and(|id| id != identity);
        let modified = meta.modified().ok();
        let changed = modified != self.modified;
        if replaced
            || meta.len() < self.offset
            || (changed && self.offset > 0 && !self.read_bytes_unchanged())
        {
            out.push(TailEvent::Reread);
            self.offset = 0;
            self.read_so_far = Sha256::new();
            self.partial.clear();
            self.quiet_polls = 0;
            self.announced = None;
            self.header = None;
            self.line = 0;
        }
        self.identity = Some(identity);
        self.modified = modified;
        if meta.len() == self.offset {
            let waiting = !self.partial.iter().all(u8::is_ascii_whitespace);
            if waiting && !self.writer_ended {
                self.quiet_polls += 1;
                // Once per record: a quoted field that grows over several polls was named again.
                let line = self.line + 1;
                if self.quiet_polls >= WAITING_POLLS && self.announced != Some(line) {
                    self.announced = Some(line);
                    out.push(TailEvent::Waiting {
                        line,
                        open_quote: self.partial.contains(&b'\n'),
                    });
                }
            }
        } else if self.read_appended(out).is_none() {
            return;
        }
        if self.writer_ended && !self.partial.is_empty() {
            let last = std::mem::take(&mut self.partial);
            self.take_line(&last, out);
        }
    }

    /// Reads the bytes appended since the last poll and takes every line they complete; None when
    /// the file could not be read (the next poll tries again).
    fn read_appended(&mut self, out: &mut Vec<TailEvent>) -> Option<()> {
        let mut file = std::fs::File::open(&self.path).ok()?;
        file.seek(SeekFrom::Start(self.offset)).ok()?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        self.offset += bytes.len() as u64;
        self.read_so_far.update(&bytes);
        self.partial.extend_from_slice(&bytes);
        self.quiet_polls = 0;
        let ends = record_ends(&self.partial, self.separator());
        let Some(&last_end) = ends.last() else {
            return Some(());
        };
        let complete: Vec<u8> = self.partial.drain(..=last_end).collect();
        let mut start = 0;
        for end in ends {
            self.take_line(&complete[start..end], out);
            start = end + 1;
        }
        Some(())
    }

    /// The separator of a delimited format (None for JSON Lines, whose strings hold no newline).
    fn separator(&self) -> Option<u8> {
        match self.format {
            LineFormat::Csv => Some(b','),
            LineFormat::Tsv => Some(b'\t'),
            LineFormat::JsonLines => None,
        }
    }

    /// Takes one record (without its newline; a quoted CSV cell may hold line ends): counted by
    /// its lines, read unless blank, and named by its first line.
    fn take_line(&mut self, raw: &[u8], out: &mut Vec<TailEvent>) {
        // A UTF-8 byte order mark (Excel's "CSV UTF-8", PowerShell) is not part of the first
        // column's name, as the loader reads it: `\u{feff}system` made every row lack `system`.
        let raw = match raw.strip_prefix(b"\xef\xbb\xbf") {
            Some(rest) if self.line == 0 => rest,
            _ => raw,
        };
        let first = self.line + 1;
        self.line += 1 + raw.iter().filter(|&&b| b == b'\n').count() as u64;
        let text = String::from_utf8_lossy(raw);
        let text = text.trim_end_matches('\r');
        if !text.trim().is_empty() {
            out.push(self.read_line(first, text));
        }
    }

    /// Whether the file still begins with the bytes read so far (an unreadable file counts as
    /// unchanged: the next poll tries again).
    fn read_bytes_unchanged(&self) -> bool {
        let Ok(file) = std::fs::File::open(&self.path) else {
            return true;
        };
        let mut now = Sha256::new();
        let mut prefix = file.take(self.offset);
        let mut buffer = vec![0u8; 64 * 1024];
        let mut taken = 0u64;
        loop {
            match prefix.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    now.update(&buffer[..n]);
                    taken += n as u64;
                }
                Err(_) => return true,
            }
        }
        taken == self.offset && now.finalize() == self.read_so_far.clone().finalize()
    }

    fn read_line(&mut self, line: u64, text: &str) -> TailEvent {
        if self.format == LineFormat::JsonLines {
            // serde_json keeps the last value of a repeated key without a word; the loader refuses
            // such a record, and so does the live reader (the line is named and skipped).
            if let Some(key) = crate::data::read::repeated_key(text.as_bytes()) {
                return TailEvent::Bad {
                    line,
                    message: format!("the key \"{key}\" appears twice in this record"),
                };
            }
            let value: serde_json::Value = match serde_json::from_str(text) {
                Ok(value) => value,
                Err(error) => {
                    return TailEvent::Bad {
                        line,
                        message: format!("not a JSON object: {error}"),
                    };
                }
            };
            let Some(object) = value.as_object() else {
                return TailEvent::Bad {
                    line,
                    message: "not a JSON object".to_string(),
                };
            };
            // A list or object where a name, run or outcome is read would become its text (a
            // system named "[]"), as the loader refuses it.
            for key in ["system", "task", "run", "outcome", "status"] {
                if let Some(nested) = object.get(key).filter(|v| v.is_array() || v.is_object()) {
                    let shown: String = nested.to_string().chars().take(40).collect();
                    return TailEvent::Bad {
                        line,
                        message: format!(
                            "field '{key}' holds {} ({shown}); pareval reads `{key}` as a plain value",
                            if nested.is_array() {
                                "a list"
                            } else {
                                "an object"
                            }
                        ),
                    };
                }
            }
            let cells = object
                .iter()
                .map(|(name, v)| {
                    let text = match v {
                        serde_json::Value::String(s) => (!s.is_empty()).then(|| s.clone()),
                        serde_json::Value::Null => None,
                        other => Some(other.to_string()),
                    };
                    (name.clone(), text)
                })
                .collect();
            return TailEvent::Record {
                line,
                fields: Fields { cells },
            };
        }
        let separator = if self.format == LineFormat::Tsv {
            '\t'
        } else {
            ','
        };
        let (cells, open_quote) = split_delimited(text, separator);
        if open_quote {
            // Only a writer that ended leaves one: a record waits for its closing quote.
            return TailEvent::Bad {
                line,
                message: "a quoted field is never closed".to_string(),
            };
        }
        let Some(header) = &self.header else {
            // Names as written, as the loader reads them (' task' is no `task` column there either).
            let columns: Vec<String> = cells;
            self.header = Some(columns.clone());
            return TailEvent::Header { line, columns };
        };
        if cells.len() != header.len() {
            return TailEvent::Bad {
                line,
                message: format!(
                    "{} fields where the header has {}",
                    cells.len(),
                    header.len()
                ),
            };
        }
        let cells = header
            .iter()
            .zip(cells)
            // Cells as written (a step's action keeps its spaces); readers trim what they parse.
            .map(|(name, cell)| (name.clone(), (!cell.is_empty()).then_some(cell)))
            .collect();
        TailEvent::Record {
            line,
            fields: Fields { cells },
        }
    }
}

#[cfg(unix)]
fn file_identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn file_identity(meta: &std::fs::Metadata) -> (u64, u64) {
    (
        0,
        meta.created()
            .map_or(0, |t| t.elapsed().map_or(0, |d| d.as_secs())),
    )
}

/// Where the records in `bytes` end: each newline outside a quoted field (every newline for JSON
/// Lines, `separator` None). A field is quoted when a quote opens it (RFC 4180, as
/// [`split_delimited`] reads it), and a newline inside it is part of the field, as the loader
/// reads a cell spanning lines (an agent's reply, a traceback).
fn record_ends(bytes: &[u8], separator: Option<u8>) -> Vec<usize> {
    let Some(separator) = separator else {
        return bytes
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .map(|(i, _)| i)
            .collect();
    };
    let mut ends = Vec::new();
    let (mut quoted, mut cell_start) = (false, true);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if quoted {
            if b == b'"' {
                if bytes.get(i + 1) == Some(&b'"') {
                    i += 1;
                } else {
                    quoted = false;
                }
            }
        } else if b == b'"' && cell_start {
            quoted = true;
            cell_start = false;
        } else if b == separator {
            cell_start = true;
        } else if b == b'\n' {
            ends.push(i);
            cell_start = true;
        } else if b != b'\r' {
            cell_start = false;
        }
        i += 1;
    }
    ends
}

/// Splits one delimited record (RFC 4180 quoting; a quoted field may hold line ends), and says
/// whether a quoted field was left open.
fn split_delimited(line: &str, separator: char) -> (Vec<String>, bool) {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if cell.is_empty() => quoted = true,
            (c, false) if c == separator => cells.push(std::mem::take(&mut cell)),
            (c, _) => cell.push(c),
        }
    }
    cells.push(cell);
    (cells, quoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_file(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pareval-tail-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        dir.join("rows.csv")
    }

    fn append(path: &Path, text: &str) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open");
        file.write_all(text.as_bytes()).expect("write");
    }

    fn records(events: &[TailEvent]) -> Vec<(u64, Option<String>)> {
        events
            .iter()
            .filter_map(|e| match e {
                TailEvent::Record { line, fields } => {
                    Some((*line, fields.get("text").map(str::to_string)))
                }
                _ => None,
            })
            .collect()
    }

    /// A quoted cell may span lines (Python's csv module writes an agent's reply so): the record
    /// waits for its closing quote and newline, is read whole, and later lines keep their numbers.
    /// It was split at every newline: the first part read with its text cut, the rest refused.
    #[test]
    fn a_quoted_cell_spanning_lines_is_one_record() {
        let path = temp_file("multiline");
        let _ = std::fs::remove_file(&path);
        append(&path, "step,text\n1,\"I will run the tests.\n");
        let mut tail = Tail::new(&path, LineFormat::Csv);
        let mut events = Vec::new();
        tail.poll(&mut events);
        assert!(records(&events).is_empty(), "{events:?}");
        append(&path, "Then, \"\"carefully\"\", fix it.\"\n2,ok\n");
        tail.poll(&mut events);
        assert_eq!(
            records(&events),
            [
                (
                    2,
                    Some("I will run the tests.\nThen, \"carefully\", fix it.".to_string())
                ),
                (4, Some("ok".to_string()))
            ]
        );
        assert!(!events.iter().any(|e| matches!(e, TailEvent::Bad { .. })));
        // A writer that ended inside a quoted cell left a record that is not whole.
        append(&path, "3,\"never closed\n");
        tail.writer_ended();
        let mut ended = Vec::new();
        tail.poll(&mut ended);
        tail.poll(&mut ended);
        assert!(
            ended.iter().any(|e| matches!(e, TailEvent::Bad { line: 5, message } if message.contains("never closed"))),
            "{ended:?}"
        );
        let _ = std::fs::remove_dir_all(path.parent().expect("dir"));
    }

    /// A record whose quoted field is still open is named once, as such, however often the field
    /// grows (it was named as "no line end yet", again after each growth).
    #[test]
    fn a_record_with_an_open_quoted_field_is_named_once_as_such() {
        let path = temp_file("open-quote");
        let _ = std::fs::remove_file(&path);
        append(&path, "step,text\n1,\"first line\nsecond");
        let mut tail = Tail::new(&path, LineFormat::Csv);
        let waiting = |tail: &mut Tail| {
            let mut events = Vec::new();
            for _ in 0..WAITING_POLLS + 2 {
                tail.poll(&mut events);
            }
            events
                .into_iter()
                .filter_map(|e| match e {
                    TailEvent::Waiting { line, open_quote } => Some((line, open_quote)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(waiting(&mut tail), [(2, true)]);
        append(&path, " line\nthird");
        assert_eq!(waiting(&mut tail), []);
        assert!(waiting_message("f.csv", 2, true).contains("quoted field is not closed yet"));
        let _ = std::fs::remove_dir_all(path.parent().expect("dir"));
    }

    #[test]
    fn record_ends_skip_newlines_inside_quoted_fields_only() {
        let text = b"a,\"x\ny\",b\nc,d\"e\nf\n";
        // The quote in `d"e` does not open a field (it is not at a cell's start).
        assert_eq!(record_ends(text, Some(b',')), [9, 15, 17]);
        assert_eq!(record_ends(text, None), [4, 9, 15, 17]);
    }
}
