//! Load errors: one type whose message names the file, the column, the offending values (quoted) and
//! where they stand (1-based lines for text formats). This module owns the wording; callers only build
//! errors through its helpers, so every message reads the same way.

use std::fmt;

/// Where a record came from inside its file: a 1-based line of a text file, the n-th element of a JSON
/// array, or the n-th row of a Parquet file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pos {
    Line(u64),
    Record(u64),
    Row(u64),
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pos::Line(n) => write!(f, "line {n}"),
            Pos::Record(n) => write!(f, "record {n}"),
            Pos::Row(n) => write!(f, "row {n}"),
        }
    }
}

/// A failure to write an output file: the file and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct WriteError {
    pub file: String,
    pub message: String,
}

impl WriteError {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        WriteError {
            file: file.into(),
            message: message.into(),
        }
    }
}

/// At most this many offending rows are quoted in one message; the rest are counted.
pub const MAX_QUOTED: usize = 5;

/// A failure to load input. `Display` gives the whole user-facing message, starting with the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct LoadError {
    /// The file as the user named it (or a description such as "input" when several files are involved).
    pub file: String,
    pub message: String,
}

impl LoadError {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        LoadError {
            file: file.into(),
            message: message.into(),
        }
    }
}

/// Collects offending values of one check so that the error can quote the first few and count the rest.
#[derive(Debug, Default)]
pub struct Offenders {
    quoted: Vec<String>,
    total: usize,
}

impl Offenders {
    pub fn push(&mut self, item: impl FnOnce() -> String) {
        if self.quoted.len() < MAX_QUOTED {
            self.quoted.push(item());
        }
        self.total += 1;
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// "outcome '1.7' on line 12, outcome 'x' on line 15 (and 3 more rows)"
    pub fn listing(&self) -> String {
        let mut text = self.quoted.join(", ");
        let more = self.total - self.quoted.len();
        if more > 0 {
            text.push_str(&format!(
                " (and {more} more {})",
                if more == 1 { "row" } else { "rows" }
            ));
        }
        text
    }

    /// Like [`Offenders::into_result`] for problems that read "… is empty on line 3, line 9".
    pub fn into_result_on(self, file: &str, problem: &str) -> Result<(), LoadError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(LoadError::new(
                file,
                format!("{problem} on {}", self.listing()),
            ))
        }
    }

    /// Turns the collected offenders into an error, or `Ok` when there were none.
    pub fn into_result(self, file: &str, problem: &str) -> Result<(), LoadError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(LoadError::new(
                file,
                format!("{problem}: {}", self.listing()),
            ))
        }
    }
}

/// A control character (a NUL, a line end), a mark of no width (a byte order mark, a zero-width
/// space) or a mark of writing direction (U+202E turns what follows it around): printed, it is
/// unseen or moves the terminal's cursor or the text around it.
pub fn prints_unseen(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{feff}' | '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with every character that [`prints_unseen`] written as its escape (`\r`, `\u{1b}`).
pub fn escape_unseen(text: &str) -> String {
    text.chars()
        .map(|c| {
            if prints_unseen(c) {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Quotes a value for a message, shortening very long ones so that a message stays readable; a
/// control character or a mark of no width is written as its escape (`\0`, `\u{feff}`), since
/// printed raw it is unseen or moves the terminal's cursor.
pub fn quote(value: &str) -> String {
    const LIMIT: usize = 60;
    if value.chars().count() > LIMIT {
        let head: String = value.chars().take(LIMIT).collect();
        format!("'{}…'", escape_unseen(&head))
    } else {
        format!("'{}'", escape_unseen(value))
    }
}
