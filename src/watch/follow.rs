//! Following result files while a harness writes them (issue 12): a CSV or JSON Lines file that grows
//! by appended rows (read by [`Tail`]: only what is new, partial last lines wait (until the writer
//! has ended: `run`'s harness exited), a shrunk or replaced
//! file is read anew), a harness's own result file, or a folder to which result files are added.
//! Every complete line becomes an outcome row or, when it cannot be read, a problem naming the file,
//! the line and the value; nothing is dropped silently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::tail::{Fields, LineFormat, Tail, TailEvent};
use crate::data::LoadOptions;

/// One outcome row read from a followed file.
#[derive(Debug, Clone, PartialEq)]
pub struct OutcomeRow {
    pub system: String,
    pub task: String,
    pub run: String,
    pub outcome: f64,
    /// The run's status is `error` (a harness failure, often scored 0): read as its outcome, as a
    /// live run must (SPEC §9c: leaving it out would wait on it for ever or pick tasks by outcome),
    /// and counted so the screen and `decide` can say how many there are.
    pub errored: bool,
}

/// A run's key as the loader reads it (moved to the data layer, where the trajectory readers use
/// it too).
pub use crate::data::run_key;

/// What one poll found.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A row, with the file and line it came from.
    Row {
        file: String,
        line: u64,
        row: OutcomeRow,
    },
    /// A line that could not be read: file, line number (0: the file as a whole), what is wrong.
    Bad {
        file: String,
        line: u64,
        message: String,
    },
    /// A run due on a task but not finished (`serve`'s `"runs"`: the epochs a harness said each task
    /// gets): the system's task is not finished, and so not read, until every run due on it is in.
    Due {
        file: String,
        system: String,
        task: String,
        run: String,
    },
    /// Everything the file said before is withdrawn and it is read anew: it shrank or was replaced
    /// (`rewritten` false), or a harness rewrote its own result file, as harnesses do while they run
    /// (`rewritten` true: expected, so not worth a notice).
    Reread { file: String, rewritten: bool },
    /// A last line has had no line end for a while (see [`TailEvent::Waiting`]): not read yet.
    Waiting {
        file: String,
        line: u64,
        open_quote: bool,
    },
}

/// Where a [`Event::Bad`] stands, as its message begins: "f.csv, line 22", or "f.csv" for a problem
/// of the file as a whole (line 0).
pub fn bad_place(file: &str, line: u64) -> String {
    if line == 0 {
        file.to_string()
    } else {
        format!("{file}, line {line}")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Canonical rows appended line by line (CSV, TSV or JSON Lines).
    Appended(LineFormat),
    /// A harness's own result file (or run folder), read whole by the importers once it stops
    /// changing, and again whenever it changes; a file no importer recognises that the loader reads
    /// (gzip-compressed rows, a JSON array, Parquet) is read whole as canonical rows the same way.
    Native,
    /// A JSON Lines file with no complete first line yet (a harness has not written it): canonical
    /// rows or a harness's own lines, told at the first poll that finds its first line written.
    Undecided,
}

/// How a path is followed: CSV or TSV rows; JSON Lines rows when the first line has `system`,
/// `task` and `outcome` (else the file is a harness's own JSON Lines, e.g. OpenHands'
/// output.jsonl); a harness result file (.json, .eval, a lighteval details .parquet) or run folder,
/// or any other file the loader reads (read whole); None for anything else.
fn kind_of(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    if name.ends_with(".csv") {
        Some(Kind::Appended(LineFormat::Csv))
    } else if name.ends_with(".tsv") || name.ends_with(".tab") {
        Some(Kind::Appended(LineFormat::Tsv))
    } else if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
        // Only a complete first line tells (an absent or half-written one does not); the rest of
        // the file, which may be large, is not read here.
        let Some(first) = first_complete_line(path) else {
            return Some(Kind::Undecided);
        };
        let canonical = serde_json::from_str::<serde_json::Value>(&first).is_ok_and(|v| {
            ["system", "task", "outcome"]
                .iter()
                .all(|k| v.get(k).is_some())
        });
        Some(if canonical {
            Kind::Appended(LineFormat::JsonLines)
        } else {
            Kind::Native
        })
    } else if name.ends_with(".json")
        || name.ends_with(".eval")
        || path.is_dir()
        || crate::data::import::is_lighteval_details(path)
        || crate::data::read::detect_format(path).is_ok()
    {
        Some(Kind::Native)
    } else {
        None
    }
}

/// A file's first line when it is complete (ends in a newline), else None; bytes that are not
/// UTF-8 are replaced, so such a file is told (and its reader says what is wrong).
fn first_complete_line(path: &Path) -> Option<String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(file)
        .read_until(b'\n', &mut line)
        .ok()?;
    // Without a byte order mark, as the tail reads the line.
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&line);
    line.strip_suffix(b"\n")
        .map(|first| String::from_utf8_lossy(first).into_owned())
}

/// The tail's line format of a kind (a file read whole has no tail to speak of: CSV, unused).
fn line_format(kind: Kind) -> LineFormat {
    match kind {
        Kind::Appended(format) => format,
        Kind::Native | Kind::Undecided => LineFormat::Csv,
    }
}

/// How many polls in a row a native result may keep changing before it is read all the same (at two
/// polls a second, every two seconds).
const READ_WHILE_CHANGING: u32 = 4;

/// One followed file.
#[derive(Debug)]
pub struct FileFollower {
    path: PathBuf,
    kind: Kind,
    /// CSV and JSON Lines rows.
    tail: Tail,
    /// Native files: the (length, modified) last seen, and the one last read.
    seen: Option<(u64, Option<std::time::SystemTime>)>,
    read: Option<(u64, Option<std::time::SystemTime>)>,
    /// Polls in a row that found the native result changed since the one before and not read.
    changing: u32,
    /// How harness result files are read (`--metric`, `--aider-tries`, …).
    options: Arc<LoadOptions>,
}

impl FileFollower {
    pub fn new(path: &Path) -> Result<Self, String> {
        Self::with_options(path, Arc::default())
    }

    /// A follower that reads harness result files with the import choices of `options`.
    pub fn with_options(path: &Path, options: Arc<LoadOptions>) -> Result<Self, String> {
        let kind = kind_of(path).ok_or_else(|| {
            format!(
                "{}: watch follows appended .csv, .tsv and .jsonl rows, other files the loader reads (.json, .parquet, .gz), harness result files (.json, .jsonl, .eval) and folders",
                path.display()
            )
        })?;
        Ok(FileFollower {
            path: path.to_path_buf(),
            kind,
            tail: Tail::new(path, line_format(kind)),
            seen: None,
            read: None,
            changing: 0,
            options,
        })
    }

    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// Reads what was appended since the last poll (nothing when the file is unchanged or absent).
    pub fn poll(&mut self, out: &mut Vec<Event>) {
        if self.kind == Kind::Undecided {
            match kind_of(&self.path) {
                Some(Kind::Undecided) | None => return,
                Some(kind) => {
                    self.kind = kind;
                    self.tail = Tail::new(&self.path, line_format(kind));
                }
            }
        }
        if self.kind == Kind::Native {
            self.poll_native(out);
            return;
        }
        let mut lines = Vec::new();
        self.tail.poll(&mut lines);
        for event in lines {
            match event {
                TailEvent::Reread => out.push(Event::Reread {
                    file: self.name(),
                    rewritten: false,
                }),
                TailEvent::Bad { line, message } => out.push(self.bad(line, message)),
                TailEvent::Header { line, columns } => {
                    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
                    if let Some(lacking) = lacks_row_columns(&names) {
                        out.push(self.bad(line, format!("the header {lacking}")));
                    }
                }
                TailEvent::Record { line, fields } => out.extend(self.row(line, &fields)),
                TailEvent::Waiting { line, open_quote } => out.push(Event::Waiting {
                    file: self.name(),
                    line,
                    open_quote,
                }),
            }
        }
    }

    /// A harness's result file: read whole once it has stopped changing between two polls (a harness
    /// may write it in several goes), again, with a notice, whenever it changes after that. A result
    /// that keeps changing (a run folder whose episodes end more often than the polls come: an
    /// AgentLab study or OSWorld results with many workers, a tau2 file rewritten after each
    /// simulation) is read every [`READ_WHILE_CHANGING`] polls all the same, so a live decision is
    /// not held back until the harness pauses; a read that fails then may have caught a file half
    /// written and is tried again at the next poll instead of being reported.
    fn poll_native(&mut self, out: &mut Vec<Event>) {
        let Some(stamp) = crate::data::import::change_stamp(&self.path) else {
            return;
        };
        let stable = self.seen == Some(stamp);
        self.seen = Some(stamp);
        if self.read == Some(stamp) {
            self.changing = 0;
            return;
        }
        if !stable {
            self.changing += 1;
            if self.changing < READ_WHILE_CHANGING {
                return;
            }
        }
        let imported = crate::data::import::import_recognised_with(
            &self.path,
            &self.options.import_settings(),
        );
        // A file no harness wrote that the loader reads (rows compressed, a JSON array, Parquet).
        let canonical =
            matches!(imported, Ok(None)) && crate::data::read::detect_format(&self.path).is_ok();
        let canonical_rows = canonical.then(|| canonical_fields(&self.path));
        // Half written, a file may fail to parse or not be recognised yet.
        let read = matches!(imported, Ok(Some(_))) || matches!(canonical_rows, Some(Ok(_)));
        if !stable && !read {
            return;
        }
        self.changing = 0;
        if self.read.is_some() {
            out.push(Event::Reread {
                file: self.name(),
                rewritten: true,
            });
        }
        self.read = Some(stamp);
        if let Some(rows) = canonical_rows {
            match rows {
                Ok(rows) => out.extend(rows.iter().filter_map(|(line, f)| self.row(*line, f))),
                Err(why) => out.push(Event::Bad {
                    file: self.name(),
                    line: 0,
                    message: format!(
                        "not a result file of a harness pareval reads (pareval import --help lists them), nor records: {why}"
                    ),
                }),
            }
            return;
        }
        match imported {
            Ok(Some((_, imported))) => {
                for (i, row) in imported.rows.into_iter().enumerate() {
                    // Rows never attempted carry no outcome: nothing to observe yet.
                    let Some(outcome) = row.outcome else {
                        continue;
                    };
                    out.push(Event::Row {
                        file: self.name(),
                        line: imported
                            .lines
                            .as_ref()
                            .and_then(|l| l.get(i).copied())
                            .unwrap_or(i as u64 + 1),
                        row: OutcomeRow {
                            system: row.system,
                            task: row.task,
                            run: row.run.to_string(),
                            outcome,
                            errored: row.status == crate::data::import::RowStatus::Error,
                        },
                    });
                }
            }
            Ok(None) => out.push(Event::Bad {
                file: self.name(),
                line: 0,
                message: "not a result file of a harness pareval reads (pareval import --help lists them)"
                    .to_string(),
            }),
            // The error names the file (and a line of it, where it has one): said once.
            Err(error) => out.push(Event::Bad {
                file: self.name(),
                line: 0,
                message: if error.file == self.name() {
                    error.message
                } else {
                    error.to_string()
                },
            }),
        }
    }

    fn bad(&self, line: u64, message: String) -> Event {
        Event::Bad {
            file: self.name(),
            line,
            message,
        }
    }

    /// The event of one canonical row: None for a run with status `not_attempted`, a missing cell
    /// as the loader reads it (whatever its outcome field holds).
    fn row(&self, line: u64, fields: &Fields) -> Option<Event> {
        let trimmed = |name: &str| fields.get(name).map(str::trim).filter(|v| !v.is_empty());
        // Names as written, as `decide` and the loader read them: trimmed here, ' t1' matched the
        // plan's t1 and a run was ended on rows `decide` refuses. Values are trimmed where the
        // loader parses them (status, outcome, run).
        let named = |name: &str| fields.get(name).filter(|v| !v.trim().is_empty());
        let (Some(system), Some(task)) = (named("system"), named("task")) else {
            return Some(self.bad(line, "system and task must not be empty".to_string()));
        };
        let status = trimmed("status").map(str::to_ascii_lowercase);
        match status.as_deref() {
            None | Some("ok" | "error") => {}
            Some("not_attempted") => return None,
            Some(_) => {
                let status = trimmed("status").unwrap_or_default();
                return Some(self.bad(
                    line,
                    format!(
                        "status '{status}' of {system} on {task} is not ok, error or not_attempted"
                    ),
                ));
            }
        }
        let text = trimmed("outcome").unwrap_or_default();
        let value = match text.to_ascii_lowercase().as_str() {
            "true" => Some(1.0),
            "false" => Some(0.0),
            other => other.parse::<f64>().ok(),
        };
        let run = match run_key(trimmed("run").unwrap_or_default()) {
            Ok(run) => run,
            Err(message) => return Some(self.bad(line, format!("{message} ({system} on {task})"))),
        };
        Some(match value {
            Some(outcome) if (0.0..=1.0).contains(&outcome) => Event::Row {
                file: self.name(),
                line,
                row: OutcomeRow {
                    system: system.to_string(),
                    task: task.to_string(),
                    run,
                    outcome,
                    errored: status.as_deref() == Some("error"),
                },
            },
            _ => self.bad(
                line,
                format!("outcome '{text}' of {system} on {task} is not a number in [0, 1]"),
            ),
        })
    }
}

/// "lacks system, task (it has …)" when `names` lack a column every outcome row needs; one wording for
/// an appended file's header and a file read whole.
fn lacks_row_columns(names: &[&str]) -> Option<String> {
    let missing: Vec<&str> = ["system", "task", "outcome"]
        .into_iter()
        .filter(|needed| !names.contains(needed))
        .collect();
    (!missing.is_empty())
        .then(|| format!("lacks {} (it has {})", missing.join(", "), names.join(", ")))
}

/// A canonical records file read whole by the loader's reader (any format it reads), each row's
/// cells as text under their column names, with its line (or record, or row) number, so that
/// [`FileFollower::row`] reads it exactly as an appended line.
fn canonical_fields(path: &Path) -> Result<Vec<(u64, Fields)>, String> {
    use crate::data::error::Pos;
    use polars::prelude::DataType;
    let table = crate::data::read::read_table(path).map_err(|error| error.message)?;
    let frame = &table.frame;
    let wanted = ["system", "task", "outcome", "run", "status"];
    let mut columns = Vec::new();
    for name in wanted {
        let Ok(column) = frame.column(name) else {
            continue;
        };
        let text = column
            .cast(&DataType::String)
            .map_err(|error| format!("column {name}: {error}"))?;
        columns.push((name, text));
    }
    let names: Vec<&str> = frame
        .get_column_names()
        .iter()
        .map(|name| name.as_str())
        .collect();
    if let Some(lacking) = lacks_row_columns(&names) {
        return Err(format!("the file {lacking}"));
    }
    let mut rows = Vec::with_capacity(frame.height());
    for index in 0..frame.height() {
        let mut cells = Vec::with_capacity(columns.len());
        for (name, column) in &columns {
            let value = column.str().ok().and_then(|text| text.get(index));
            cells.push((name.to_string(), value.map(str::to_string)));
        }
        let line = match table.positions.at(index) {
            Pos::Line(n) | Pos::Record(n) | Pos::Row(n) => n,
        };
        rows.push((line, Fields::from_cells(cells)));
    }
    Ok(rows)
}

/// Refuses a path followed twice, as the loader refuses a file read twice: named twice (in any
/// spelling), or a file named beside a folder that holds it. `decide` on the same paths refused
/// them, and `run`'s records lost the outcome files' hashes.
fn refuse_a_path_twice(paths: &[PathBuf]) -> Result<(), String> {
    let whole = |path: &PathBuf| path.canonicalize().unwrap_or_else(|_| path.clone());
    let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::with_capacity(paths.len());
    for path in paths {
        let this = whole(path);
        if let Some((_, earlier)) = seen.iter().find(|(other, _)| {
            *other == this
                || (other.is_dir()
                    && !crate::data::import::is_run_folder(other)
                    && this.starts_with(other))
                || (this.is_dir()
                    && !crate::data::import::is_run_folder(&this)
                    && other.starts_with(&this))
        }) {
            return Err(format!(
                "{}: the file is read twice (beside {}: named twice, or named beside a folder that holds it): each file is read once; name it once",
                path.display(),
                earlier.display()
            ));
        }
        seen.push((this, path));
    }
    Ok(())
}

/// Everything watched: files, and folders whose new result files are followed as they appear.
pub struct Followed {
    files: BTreeMap<PathBuf, FileFollower>,
    folders: Vec<PathBuf>,
    /// The files followed because a folder held them (not named on their own).
    found: std::collections::BTreeSet<PathBuf>,
    options: Arc<LoadOptions>,
    /// The writers have ended (`run`'s harness exited): a last line without a line end is read.
    writers_ended: bool,
    presence: Presence,
}

/// How long a followed path may be absent before it is said (a harness creates its output in its
/// first seconds).
pub const MISSING_AFTER: std::time::Duration = std::time::Duration::from_secs(5);

/// The paths a follower was given, when following began, and which of them existed at its last
/// look: what to say of a path that never appears (a typo in the path read as a run with no
/// outcomes yet) or goes.
#[derive(Debug)]
pub struct Presence {
    given: Vec<PathBuf>,
    started: std::time::Instant,
    present: std::collections::BTreeSet<PathBuf>,
    /// Paths that existed at some look: one gone since never "has not appeared".
    seen: std::collections::BTreeSet<PathBuf>,
    said_missing: bool,
}

impl Presence {
    pub fn new(paths: &[PathBuf]) -> Self {
        let present: std::collections::BTreeSet<PathBuf> =
            paths.iter().filter(|p| p.exists()).cloned().collect();
        Presence {
            given: paths.to_vec(),
            started: std::time::Instant::now(),
            seen: present.clone(),
            present,
            said_missing: false,
        }
    }

    /// Notes which of the paths exist now (for [`Presence::never_seen`]), saying nothing: a caller
    /// whose follower is out of its reach (`run` on `watch`'s screen) looks at every poll itself.
    pub fn look(&mut self) {
        for path in &self.given {
            if !self.seen.contains(path) && path.exists() {
                self.seen.insert(path.clone());
            }
        }
    }

    /// The paths given that never existed at any look (a path read and then removed is not one).
    pub fn never_seen(&self) -> Vec<PathBuf> {
        self.given
            .iter()
            .filter(|p| !p.exists() && !self.seen.contains(*p))
            .cloned()
            .collect()
    }

    /// What to say since the last call, once each: the paths still absent [`MISSING_AFTER`] into the
    /// following, one that was there and is gone (its rows stay read), and one that appears after it
    /// was said missing or gone.
    pub fn notices(&mut self) -> Vec<String> {
        let mut notices = Vec::new();
        for path in &self.given {
            let here = path.exists();
            let was = self.present.contains(path);
            if here && !was {
                self.present.insert(path.clone());
                self.seen.insert(path.clone());
                if self.said_missing {
                    notices.push(format!("{} is there now", path.display()));
                }
            } else if !here && was {
                self.present.remove(path);
                notices.push(format!(
                    "{} is gone (removed or moved): the rows read from it stay, and it is read again if it comes back",
                    path.display()
                ));
            }
        }
        if !self.said_missing && self.started.elapsed() >= MISSING_AFTER {
            self.said_missing = true;
            for path in self.never_seen() {
                notices.push(format!(
                    "{} has not appeared after {} s (is the path the one the harness writes?)",
                    path.display(),
                    MISSING_AFTER.as_secs()
                ));
            }
        }
        notices
    }
}

impl Followed {
    /// Files must be result files by their extension (they may not exist yet); any other path is a
    /// folder, which may not exist yet either (a harness creates its log folder when it starts).
    pub fn new(paths: &[PathBuf]) -> Result<Self, String> {
        Self::with_options(paths, Arc::default())
    }

    /// [`Followed::new`] reading harness result files with the import choices of `options`.
    pub fn with_options(paths: &[PathBuf], options: Arc<LoadOptions>) -> Result<Self, String> {
        refuse_a_path_twice(paths)?;
        let mut followed = Followed {
            files: BTreeMap::new(),
            folders: Vec::new(),
            found: std::collections::BTreeSet::new(),
            options,
            writers_ended: false,
            presence: Presence::new(paths),
        };
        for path in paths {
            let folder = if path.exists() {
                path.is_dir() && !crate::data::import::is_run_folder(path)
            } else {
                kind_of(path).is_none()
            };
            if folder {
                followed.folders.push(path.clone());
            } else {
                let follower = FileFollower::with_options(path, followed.options.clone())?;
                followed.files.insert(path.clone(), follower);
            }
        }
        Ok(followed)
    }

    /// What to say of the paths given since the last call ([`Presence::notices`]).
    pub fn presence_notices(&mut self) -> Vec<String> {
        self.presence.notices()
    }

    /// The paths given that never existed while they were followed ([`Presence::never_seen`]).
    pub fn never_seen(&self) -> Vec<PathBuf> {
        self.presence.never_seen()
    }

    /// The followed paths, for the header: each folder with the count of result files found in it
    /// (a harness's log folder fills with long file names, which would push the rest of the header
    /// off the screen), then the files named on their own.
    pub fn describe(&self) -> String {
        let inside = |file: &Path, folder: &Path| file.starts_with(folder);
        let folders = self.folders.iter().map(|folder| {
            if self.files.contains_key(folder) {
                // A folder that turned out to be one result (a run, a folder of logs).
                return format!("{}/ (one result)", folder.display());
            }
            match self.files.keys().filter(|f| inside(f, folder)).count() {
                0 => format!("{}/", folder.display()),
                1 => format!("{}/ (1 file)", folder.display()),
                n => format!("{}/ ({n} files)", folder.display()),
            }
        });
        let named = self
            .files
            .keys()
            .filter(|f| !self.folders.iter().any(|folder| inside(f, folder)))
            .map(|f| f.display().to_string());
        folders.chain(named).collect::<Vec<_>>().join(", ")
    }

    /// One poll of every file (and every folder's new files), in path order. A file a folder no
    /// longer reads on its own though it is still there (sb-cli's report once a later fetch of the
    /// run lands beside it, or a file that became another's companion) is withdrawn: its rows go,
    /// and the file that took its place is read instead of being a second outcome of the same runs.
    pub fn poll(&mut self) -> Vec<Event> {
        let mut withdrawn = Vec::new();
        for folder in &self.folders {
            // A folder that turned out to be one run (a Harbor job, a Terminal-Bench run) once the
            // harness wrote its result file is followed as one result, not as its trial folders.
            if crate::data::import::is_run_folder(folder) {
                if !self.files.contains_key(folder)
                    && let Ok(follower) = FileFollower::with_options(folder, self.options.clone())
                {
                    // Files followed on their own before the folder showed what it is (a log
                    // caught before its first line was written) are now read through it: their
                    // rows go, or they would count twice.
                    let inside: Vec<PathBuf> = self
                        .found
                        .iter()
                        .filter(|path| path.starts_with(folder))
                        .cloned()
                        .collect();
                    for path in inside {
                        self.found.remove(&path);
                        if let Some(follower) = self.files.remove(&path) {
                            withdrawn.push(Event::Reread {
                                file: follower.name(),
                                rewritten: true,
                            });
                        }
                    }
                    self.files.insert(folder.clone(), follower);
                }
                continue;
            }
            let mut entries = crate::data::import::folder_entries(folder);
            // Two measures of the same runs (MT-Bench's ratings and win rates) are not followed
            // together: neither is read, and the problem line says why, poll after poll.
            if let Some((single, pair, why)) = crate::data::import::mixed_judgments(&entries) {
                entries.retain(|path| *path != single && *path != pair);
                withdrawn.push(Event::Bad {
                    file: why.file.clone(),
                    line: 0,
                    message: why.message,
                });
            }
            // Nor Arena-Hard-Auto's judgments of two judges (the same models on the same questions).
            if let Some((judged, why)) = crate::data::import::several_judges(&entries) {
                entries.retain(|path| !judged.contains(path));
                withdrawn.push(Event::Bad {
                    file: why.file.clone(),
                    line: 0,
                    message: why.message,
                });
            }
            let left: Vec<PathBuf> = self
                .found
                .iter()
                .filter(|path| path.starts_with(folder) && path.exists() && !entries.contains(path))
                .cloned()
                .collect();
            for path in left {
                self.found.remove(&path);
                if let Some(follower) = self.files.remove(&path) {
                    withdrawn.push(Event::Reread {
                        file: follower.name(),
                        rewritten: true,
                    });
                }
            }
            for path in entries {
                if !self.files.contains_key(&path)
                    && let Ok(follower) = FileFollower::with_options(&path, self.options.clone())
                {
                    self.found.insert(path.clone());
                    self.files.insert(path, follower);
                }
            }
        }
        let mut events = withdrawn;
        for follower in self.files.values_mut() {
            if self.writers_ended {
                follower.tail.writer_ended();
            }
            follower.poll(&mut events);
        }
        events
    }

    /// The writers have ended (the harness exited): from the next poll on, a file's last line
    /// without a line end is its last and is read, as the loader (and `decide`) reads it.
    pub fn writers_ended(&mut self) {
        self.writers_ended = true;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_path_that_was_there_and_went_is_gone_not_missing() {
        // A file read and then removed said "has not appeared after 5 s" (a typo's words) too.
        let dir = std::env::temp_dir().join(format!("pareval-presence-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let (there, typo) = (dir.join("out.csv"), dir.join("otu.csv"));
        std::fs::write(&there, "system,task,outcome\n").expect("write");
        let mut presence = Presence::new(&[there.clone(), typo.clone()]);
        assert!(presence.notices().is_empty());
        std::fs::remove_file(&there).expect("remove");
        presence.started -= MISSING_AFTER;
        let notices = presence.notices();
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert!(notices[0].ends_with("out.csv is gone (removed or moved): the rows read from it stay, and it is read again if it comes back"));
        assert!(notices[1].contains("otu.csv has not appeared after 5 s"));
        assert!(presence.notices().is_empty(), "once each");
        std::fs::write(&there, "system,task,outcome\n").expect("write");
        assert_eq!(presence.notices().len(), 1, "its return is said");
        let _ = std::fs::remove_dir_all(&dir);
    }

    use super::*;

    fn rows(events: &[Event]) -> Vec<(String, f64)> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Row { row, .. } => Some((row.task.clone(), row.outcome)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_column() {
        // `decide` read such files; the follower took the header's first name as "\u{feff}system",
        // refused every row for lacking `system`, and `run` never decided.
        let dir = std::env::temp_dir().join(format!("pareval-follow-bom-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let csv = dir.join("bom.csv");
        // The mark written on its own first, as a slow writer may leave it.
        std::fs::write(&csv, b"\xef\xbb").expect("write");
        let mut follower = FileFollower::new(&csv).expect("follower");
        let mut events = Vec::new();
        follower.poll(&mut events);
        use std::io::Write;
        std::fs::OpenOptions::new()
            .append(true)
            .open(&csv)
            .expect("open")
            .write_all(b"\xbfsystem,task,outcome\r\nA,t1,1\r\n")
            .expect("append");
        follower.poll(&mut events);
        assert_eq!(rows(&events), [("t1".to_string(), 1.0)], "{events:?}");
        let jsonl = dir.join("bom.jsonl");
        std::fs::write(
            &jsonl,
            b"\xef\xbb\xbf{\"system\":\"A\",\"task\":\"t2\",\"outcome\":0}\n",
        )
        .expect("write");
        let mut follower = FileFollower::new(&jsonl).expect("follower");
        assert_eq!(follower.kind, Kind::Appended(LineFormat::JsonLines));
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert_eq!(rows(&events), [("t2".to_string(), 0.0)], "{events:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_last_line_without_a_line_end_is_named_while_it_waits_and_read_once_the_writer_ended() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-end-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("out.csv");
        std::fs::write(&path, "system,task,outcome\nA,t1,1\nA,t2,0").expect("write");
        let mut followed = Followed::new(std::slice::from_ref(&path)).expect("followed");
        let mut events = Vec::new();
        for _ in 0..=super::super::tail::WAITING_POLLS + 2 {
            events.extend(followed.poll());
        }
        // Named once, after the polls that found the file unchanged; not read.
        let waiting = Event::Waiting {
            file: path.display().to_string(),
            line: 3,
            open_quote: false,
        };
        assert_eq!(
            events.iter().filter(|e| **e == waiting).count(),
            1,
            "{events:?}"
        );
        assert_eq!(rows(&events), [("t1".to_string(), 1.0)]);
        followed.writers_ended();
        let last = followed.poll();
        assert_eq!(rows(&last), [("t2".to_string(), 0.0)], "{last:?}");
        assert!(followed.poll().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Names are read as written, as `decide` and the loader read them: a header ' task' is no
    /// `task` column and a task ' t1' is not the plan's t1. The follower trimmed both, so `run`
    /// promoted and ended a harness on rows `decide` refuses. Values the loader trims when it
    /// parses them (outcome, status) are still trimmed.
    #[test]
    fn names_are_read_as_written_and_values_trimmed_as_the_loader_does() {
        let dir =
            std::env::temp_dir().join(format!("pareval-follow-spaces-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let padded = dir.join("padded.csv");
        std::fs::write(&padded, "system, task, outcome\nA, t1, 1\n").expect("write");
        let mut follower = FileFollower::new(&padded).expect("follower");
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert!(
            events.iter().any(|e| matches!(e, Event::Bad { line: 1, message, .. } if message.starts_with("the header"))),
            "{events:?}"
        );
        let values = dir.join("values.csv");
        std::fs::write(&values, "system,task,outcome,status\nA, t1, 1, ok\n").expect("write");
        let mut follower = FileFollower::new(&values).expect("follower");
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert_eq!(rows(&events), [(" t1".to_string(), 1.0)], "{events:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_list_where_a_name_is_read_is_a_bad_line_not_a_system() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-list-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("out.jsonl");
        std::fs::write(
            &path,
            "{\"system\":\"A\",\"task\":\"t1\",\"outcome\":1}\n{\"system\":[],\"task\":\"t1\",\"outcome\":0}\n",
        )
        .expect("write");
        let mut follower = FileFollower::new(&path).expect("follower");
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert_eq!(rows(&events), [("t1".to_string(), 1.0)]);
        assert!(
            events.contains(&Event::Bad {
                file: path.display().to_string(),
                line: 2,
                message:
                    "field 'system' holds a list ([]); pareval reads `system` as a plain value"
                        .to_string(),
            })
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn appended_rows_are_read_once_and_a_partial_line_waits() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("out.csv");
        std::fs::write(&path, "system,task,outcome\nA,t1,1\nA,t2,0").expect("write");
        let mut follower = FileFollower::new(&path).expect("follower");
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert_eq!(rows(&events), [("t1".to_string(), 1.0)]);
        // The rest of line 3 and a bad line 4.
        let append = |text: &str| {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .expect("open");
            file.write_all(text.as_bytes()).expect("append");
        };
        append("\nA,t3,maybe\nA,\"t,4\",1\n");
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert_eq!(
            rows(&events),
            [("t2".to_string(), 0.0), ("t,4".to_string(), 1.0)]
        );
        assert!(events.contains(&Event::Bad {
            file: path.display().to_string(),
            line: 4,
            message: "outcome 'maybe' of A on t3 is not a number in [0, 1]".to_string(),
        }));
        // Nothing new: nothing read.
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert!(events.is_empty());
        // Truncated and rewritten: read again from the start, with a notice.
        std::fs::write(&path, "system,task,outcome\nB,t9,1\n").expect("rewrite");
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert!(matches!(events[0], Event::Reread { .. }), "{events:?}");
        assert_eq!(rows(&events), [("t9".to_string(), 1.0)]);
        // Rewritten in place to the same size (a harness writing its whole table again), and then
        // to a longer one: the bytes read before changed, so it is read again too (it was not:
        // the old outcome stayed on screen, or the old rows stayed with the new tail).
        let rewrite = |text: &str, seconds: u64| {
            std::fs::write(&path, text).expect("rewrite");
            let file = std::fs::File::options()
                .write(true)
                .open(&path)
                .expect("open");
            let when = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
            file.set_modified(when).expect("set the time");
        };
        rewrite("system,task,outcome\nB,t9,0\n", 1_000_000);
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert!(matches!(events[0], Event::Reread { .. }), "{events:?}");
        assert_eq!(rows(&events), [("t9".to_string(), 0.0)]);
        rewrite("system,task,outcome\nB,t8,1\nB,t9,1\n", 2_000_000);
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert!(matches!(events[0], Event::Reread { .. }), "{events:?}");
        assert_eq!(
            rows(&events),
            [("t8".to_string(), 1.0), ("t9".to_string(), 1.0)]
        );
        // Appended to (the bytes read before unchanged): only the new row, no notice.
        rewrite("system,task,outcome\nB,t8,1\nB,t9,1\nB,t7,0\n", 3_000_000);
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(rows(&events), [("t7".to_string(), 0.0)]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_row_with_status_error_is_read_as_its_outcome_and_marked() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-e-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let csv = dir.join("out.csv");
        std::fs::write(
            &csv,
            "system,task,outcome,status\nA,t1,1,ok\nA,t2,0,error\nA,t3,0,ERROR\nA,t4,,not_attempted\nA,t5,1,\n",
        )
        .expect("write");
        let jsonl = dir.join("out.jsonl");
        std::fs::write(
            &jsonl,
            "{\"system\":\"B\",\"task\":\"t1\",\"outcome\":0,\"status\":\"error\"}\n",
        )
        .expect("write");
        let mut marked = Vec::new();
        for path in [&csv, &jsonl] {
            let mut events = Vec::new();
            FileFollower::new(path).expect("follower").poll(&mut events);
            marked.extend(events.iter().filter_map(|e| match e {
                Event::Row { row, .. } => Some((row.task.clone(), row.outcome, row.errored)),
                _ => None,
            }));
        }
        assert_eq!(
            marked,
            [
                ("t1".to_string(), 1.0, false),
                ("t2".to_string(), 0.0, true),
                ("t3".to_string(), 0.0, true),
                ("t5".to_string(), 1.0, false),
                ("t1".to_string(), 0.0, true),
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_json_lines_file_followed_before_it_exists_is_told_by_its_first_line() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-u-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        // A harness's own lines (LiveBench's judgments), written after the follower started.
        let native = dir.join("ground_truth_judgment.jsonl");
        let mut follower = FileFollower::new(&native).expect("follower");
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert!(events.is_empty());
        // Half a first line tells nothing yet.
        std::fs::write(&native, "{\"question_id\": \"q1\", \"model\"").expect("half");
        follower.poll(&mut events);
        assert!(events.is_empty(), "{events:?}");
        std::fs::write(
            &native,
            "{\"question_id\": \"q1\", \"model\": \"m\", \"score\": 1, \"task\": \"t\", \"category\": \"c\"}\n",
        )
        .expect("write");
        for _ in 0..3 {
            follower.poll(&mut events);
        }
        assert_eq!(rows(&events), [("q1".to_string(), 1.0)], "{events:?}");
        // Canonical rows written later are still rows.
        let canonical = dir.join("rows.jsonl");
        let mut follower = FileFollower::new(&canonical).expect("follower");
        follower.poll(&mut Vec::new());
        std::fs::write(
            &canonical,
            "{\"system\":\"A\",\"task\":\"t1\",\"outcome\":1}\n",
        )
        .expect("write");
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert_eq!(rows(&events), [("t1".to_string(), 1.0)]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn json_lines_and_booleans() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-j-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("out.jsonl");
        std::fs::write(
            &path,
            "{\"system\":\"A\",\"task\":\"t1\",\"outcome\":true}\n{\"system\":\"A\",\"task\":\"t2\",\"outcome\":0.5,\"run\":2}\nnot json\n{\"system\":\"A\",\"task\":\"t3\",\"outcome\":1,\"outcome\":0}\n",
        )
        .expect("write");
        let mut follower = FileFollower::new(&path).expect("follower");
        let mut events = Vec::new();
        follower.poll(&mut events);
        assert_eq!(
            rows(&events),
            [("t1".to_string(), 1.0), ("t2".to_string(), 0.5)]
        );
        assert!(matches!(&events[2], Event::Bad { line: 3, .. }));
        // A key written twice: its line is named, not read with one of the two values.
        assert!(
            matches!(&events[3], Event::Bad { line: 4, message, .. } if message == "the key \"outcome\" appears twice in this record"),
            "{events:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_result_that_keeps_changing_is_read_every_few_polls() {
        // A harness rewriting its result file before every poll (tau-bench v1 checkpoints after
        // each task) is still read while it runs; a read that catches it half written is tried
        // again, and only a file that stays broken is reported.
        let dir = std::env::temp_dir().join(format!("pareval-follow-c-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("run.json");
        let write = |n: u32| {
            let entries: Vec<String> = (0..n)
                .map(|t| format!(r#"{{"task_id": {t}, "reward": 1.0, "trial": 0}}"#))
                .collect();
            std::fs::write(&path, format!("[{}]", entries.join(", "))).expect("write");
        };
        let mut follower = FileFollower::new(&path).expect("follower");
        let mut events = Vec::new();
        for n in 1..READ_WHILE_CHANGING {
            write(n);
            follower.poll(&mut events);
        }
        assert!(events.is_empty(), "{events:?}");
        std::fs::write(&path, r#"[{"task_id": 0, "rew"#).expect("half written");
        follower.poll(&mut events);
        assert!(events.is_empty(), "{events:?}");
        write(5);
        follower.poll(&mut events);
        assert_eq!(rows(&events).len(), 5);
        events.clear();
        std::fs::write(&path, "[1, 2").expect("broken");
        follower.poll(&mut events);
        assert!(events.is_empty(), "{events:?}");
        follower.poll(&mut events);
        assert!(
            events.iter().any(|e| matches!(e, Event::Bad { .. })),
            "{events:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn files_followed_before_their_folder_showed_it_is_one_result_are_withdrawn() {
        // oaieval creates its log and writes the spec line a moment later: a poll in between finds a
        // .jsonl file of its own; once the first line is there the folder is one result (a folder
        // of logs) and the file's rows come through it alone, not twice.
        let dir = std::env::temp_dir().join(format!("pareval-follow-o-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let log = dir.join("2612041957512TLNPRIA_standin-80_arith.jsonl");
        std::fs::write(&log, "").expect("created, not written yet");
        let mut followed = Followed::new(std::slice::from_ref(&dir)).expect("followed");
        assert!(rows(&followed.poll()).is_empty());
        let spec = r#"{"spec": {"completion_fns": ["standin-80"], "eval_name": "arith.dev.v0", "base_eval": "arith", "split": "dev", "run_id": "2612041957512TLNPRIA", "created_at": "2026-12-04 19:57:51"}}"#;
        let event = |id: u32, sample: u32, correct: bool| {
            format!(
                r#"{{"run_id": "2612041957512TLNPRIA", "event_id": {id}, "sample_id": "arith.dev.{sample}", "type": "match", "data": {{"correct": {correct}}}, "created_at": "2026-12-04 19:57:52"}}"#
            )
        };
        std::fs::write(
            &log,
            [spec.to_string(), event(0, 3, true), event(1, 7, false)].join("\n") + "\n",
        )
        .expect("the run's log");
        let mut events = Vec::new();
        for _ in 0..3 {
            events.extend(followed.poll());
        }
        let withdrawn = log.display().to_string();
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Reread { file, .. } if *file == withdrawn)),
            "{events:?}"
        );
        assert!(followed.describe().ends_with("/ (one result)"));
        let mut read = rows(&events);
        read.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            read,
            [
                ("arith.dev.3".to_string(), 1.0),
                ("arith.dev.7".to_string(), 0.0)
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_report_fetched_again_replaces_the_earlier_fetch() {
        // sb-cli writes each fetch of a run's report beside the last (`…__r.json`, then
        // `…__r-1.json`): the earlier one is withdrawn, and the later one's rows are not second
        // outcomes of the same runs.
        let dir = std::env::temp_dir().join(format!("pareval-follow-s-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let report = |resolved: &str, pending: u32| {
            format!(
                r#"{{"schema_version": 2, "total_instances": 2, "submitted_ids": ["a__b-1", "a__b-2"], "resolved_ids": [{resolved}], "unresolved_ids": [], "error_ids": [], "empty_patch_ids": [], "incomplete_ids": [], "pending_instances": {pending}}}"#
            )
        };
        let first = dir.join("swe-bench_verified__test__r.json");
        std::fs::write(&first, report(r#""a__b-1""#, 1)).expect("first fetch");
        let mut followed = Followed::new(std::slice::from_ref(&dir)).expect("followed");
        let mut events = Vec::new();
        for _ in 0..3 {
            events.extend(followed.poll());
        }
        assert_eq!(rows(&events), [("a__b-1".to_string(), 1.0)]);
        std::fs::write(
            dir.join("swe-bench_verified__test__r-1.json"),
            report(r#""a__b-1", "a__b-2""#, 0),
        )
        .expect("second fetch");
        let mut events = Vec::new();
        for _ in 0..3 {
            events.extend(followed.poll());
        }
        let withdrawn = first.display().to_string();
        assert!(
            matches!(&events[0], Event::Reread { file, .. } if *file == withdrawn),
            "{events:?}"
        );
        assert_eq!(
            rows(&events),
            [("a__b-1".to_string(), 1.0), ("a__b-2".to_string(), 1.0)]
        );
        assert!(
            followed.describe().ends_with("(1 file)"),
            "{}",
            followed.describe()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_folder_s_new_files_are_followed_as_they_appear() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-d-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let mut followed = Followed::new(std::slice::from_ref(&dir)).expect("followed");
        assert!(followed.poll().is_empty());
        std::fs::write(dir.join("a.csv"), "system,task,outcome\nA,t1,1\n").expect("a");
        std::fs::write(dir.join("notes.txt"), "not a result file").expect("notes");
        assert_eq!(rows(&followed.poll()), [("t1".to_string(), 1.0)]);
        std::fs::write(
            dir.join("b.jsonl"),
            "{\"system\":\"B\",\"task\":\"t1\",\"outcome\":0}\n",
        )
        .expect("b");
        assert_eq!(rows(&followed.poll()), [("t1".to_string(), 0.0)]);
        assert!(followed.poll().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_folder_s_files_in_every_format_the_loader_reads_are_followed() {
        // A folder read whole reads .tsv, gzip-compressed rows, JSON arrays and Parquet; a followed
        // folder passed them over without a word (only .csv and .jsonl were followed).
        let dir = std::env::temp_dir().join(format!("pareval-follow-f-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let gzip = |text: &str| {
            use std::io::Write;
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            encoder.write_all(text.as_bytes()).expect("gzip");
            encoder.finish().expect("gzip")
        };
        std::fs::write(dir.join("a.tsv"), "system\ttask\toutcome\nA\tt1\t1\n").expect("a");
        std::fs::write(dir.join("b.csv.gz"), gzip("system,task,outcome\nA,t2,0\n")).expect("b");
        std::fs::write(
            dir.join("c.jsonl.gz"),
            gzip("{\"system\":\"A\",\"task\":\"t3\",\"outcome\":1}\n"),
        )
        .expect("c");
        std::fs::write(
            dir.join("d.json"),
            "[{\"system\":\"A\",\"task\":\"t4\",\"outcome\":true},{\"system\":\"A\",\"task\":\"t5\",\"outcome\":2}]",
        )
        .expect("d");
        let mut frame = polars::df!(
            "system" => ["A"], "task" => ["t6"], "outcome" => [0.5], "status" => ["error"]
        )
        .expect("frame");
        let mut parquet = Vec::new();
        polars::prelude::ParquetWriter::new(&mut parquet)
            .finish(&mut frame)
            .expect("parquet");
        std::fs::write(dir.join("e.parquet"), parquet).expect("e");
        let mut followed = Followed::new(std::slice::from_ref(&dir)).expect("followed");
        // Files read whole are read once they stop changing: a second poll.
        let mut events = followed.poll();
        events.extend(followed.poll());
        let mut read = rows(&events);
        read.sort_by(|x, y| x.0.cmp(&y.0));
        let expected = [
            ("t1", 1.0),
            ("t2", 0.0),
            ("t3", 1.0),
            ("t4", 1.0),
            ("t6", 0.5),
        ];
        assert_eq!(
            read,
            expected.map(|(t, o)| (t.to_string(), o)),
            "{events:?}"
        );
        assert!(events.iter().any(|e| matches!(e, Event::Row { row, .. }
            if row.task == "t6" && row.errored)));
        assert!(
            events.contains(&Event::Bad {
                file: dir.join("d.json").display().to_string(),
                line: 2,
                message: "outcome '2' of A on t5 is not a number in [0, 1]".to_string(),
            }),
            "{events:?}"
        );
        // Appended .tsv rows are read as they come; nothing is read twice.
        use std::io::Write;
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join("a.tsv"))
            .expect("open")
            .write_all(b"B\t\"t,7\"\t0\n")
            .expect("append");
        let events = followed.poll();
        assert_eq!(rows(&events), [("t,7".to_string(), 0.0)], "{events:?}");
        assert!(followed.poll().is_empty());
        assert_eq!(followed.describe(), format!("{}/ (5 files)", dir.display()));
        // A JSON file that is neither a harness's nor records is named, with what it lacks.
        std::fs::write(dir.join("f.json"), "[{\"model\":\"A\"}]").expect("f");
        let mut events = followed.poll();
        events.extend(followed.poll());
        let Some(Event::Bad { message, .. }) = events.first() else {
            panic!("{events:?}");
        };
        assert!(
            message.ends_with("nor records: the file lacks system, task, outcome (it has model)"),
            "{message}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_header_counts_a_folder_s_files_and_names_files_given_on_their_own() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-h-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let logs = dir.join("logs");
        std::fs::create_dir_all(&logs).expect("dir");
        let named = dir.join("live.csv");
        let mut followed = Followed::new(&[logs.clone(), named.clone()]).expect("followed");
        let header = |n: &str| format!("{}/{n}, {}", logs.display(), named.display());
        assert_eq!(followed.describe(), header(""));
        std::fs::write(logs.join("a.csv"), "system,task,outcome\nA,t1,1\n").expect("a");
        followed.poll();
        assert_eq!(followed.describe(), header(" (1 file)"));
        std::fs::write(logs.join("b.csv"), "system,task,outcome\nB,t1,0\n").expect("b");
        followed.poll();
        assert_eq!(followed.describe(), header(" (2 files)"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_harbor_job_folder_is_followed_as_one_result() {
        let jobs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/harbor/jobs");
        let job = jobs.join("2026-05-14__10-02-33");
        let mut followed = Followed::new(std::slice::from_ref(&job)).expect("followed");
        // The job's result.json is read once it has not changed between two looks.
        assert!(followed.poll().is_empty());
        let events = followed.poll();
        // Four trials, one of them without a valid reward (not attempted: no row to observe).
        let mut read: Vec<(String, String)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Row { row, .. } => Some((row.task.clone(), row.run.clone())),
                _ => None,
            })
            .collect();
        read.sort();
        assert_eq!(
            read,
            [
                ("fix-git".to_string(), "0".to_string()),
                ("fix-git".to_string(), "1".to_string()),
                ("regex-log".to_string(), "0".to_string()),
            ]
        );
        // Following the folder of jobs finds the job as a run folder too, and nothing else there.
        assert_eq!(crate::data::import::folder_entries(&jobs).len(), 2);
    }

    #[test]
    fn a_folder_that_does_not_exist_yet_is_followed_once_it_appears() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-later-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let logs = dir.join("logs");
        let mut followed = Followed::new(std::slice::from_ref(&logs)).expect("followed");
        assert!(followed.poll().is_empty());
        std::fs::create_dir_all(&logs).expect("logs");
        std::fs::write(logs.join("a.csv"), "system,task,outcome\nA,t1,1\n").expect("a");
        assert_eq!(rows(&followed.poll()), [("t1".to_string(), 1.0)]);
        // A Harbor job folder created later is read as one job, not trial by trial.
        let job = dir.join("job");
        let mut followed = Followed::new(std::slice::from_ref(&job)).expect("followed");
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/harbor/jobs/2026-05-14__10-02-33");
        copy_tree(&fixture, &job);
        assert!(followed.poll().is_empty());
        let mut read: Vec<(String, f64)> = rows(&followed.poll());
        read.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        assert_eq!(
            read,
            [
                ("fix-git".to_string(), 0.0),
                ("fix-git".to_string(), 1.0),
                ("regex-log".to_string(), 0.0),
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_aider_run_folder_is_read_again_as_exercises_finish() {
        let dir = std::env::temp_dir().join(format!("pareval-follow-aider-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/aider/2024-09-18-00-34-01--claude-sonnet-test");
        let run = dir.join("2025-01-01-00-00-00--live");
        // The benchmark copies every exercise first; results appear as exercises end.
        for exercise in ["bob", "zebra-puzzle", "wordy"] {
            std::fs::create_dir_all(run.join(exercise)).expect("exercise");
        }
        let results = ".aider.results.json";
        let copy = |exercise: &str| {
            std::fs::copy(
                fixture.join(exercise).join(results),
                run.join(exercise).join(results),
            )
            .expect("copy")
        };
        copy("bob");
        let mut followed = Followed::new(std::slice::from_ref(&dir)).expect("followed");
        assert!(followed.poll().is_empty());
        let first = rows(&followed.poll());
        assert_eq!(first.len(), 1, "{first:?}");
        assert_eq!(first[0].0, "bob");
        copy("zebra-puzzle");
        assert!(followed.poll().is_empty());
        let again = followed.poll();
        assert!(again.iter().any(|e| matches!(e, Event::Reread { .. })));
        let mut tasks: Vec<String> = rows(&again).into_iter().map(|(task, _)| task).collect();
        tasks.sort();
        assert_eq!(tasks, ["bob", "zebra-puzzle"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_lighteval_details_folder_is_followed_file_by_file() {
        let model = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/lighteval/v0.13.0/details/toy-org/dummy-model");
        let date = std::fs::read_dir(&model)
            .expect("model")
            .flatten()
            .next()
            .expect("date")
            .path();
        let mut followed = Followed::new(std::slice::from_ref(&date)).expect("followed");
        assert!(followed.poll().is_empty());
        // Three tasks of three docs each (the mixed task's six rows are three samples).
        assert_eq!(rows(&followed.poll()).len(), 9);
    }

    #[test]
    fn harness_files_are_read_with_the_import_choices_given() {
        let run = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/aider/2024-09-18-00-34-01--claude-sonnet-test");
        let passes = |options: LoadOptions| {
            let mut followed =
                Followed::with_options(std::slice::from_ref(&run), Arc::new(options))
                    .expect("followed");
            assert!(followed.poll().is_empty());
            let rows = rows(&followed.poll());
            assert_eq!(rows.len(), 133);
            rows.iter().filter(|(_, outcome)| *outcome == 1.0).count()
        };
        // aider's pass_rate_2 (the default) and, with --aider-tries 1, pass_rate_1.
        assert_eq!(passes(LoadOptions::default()), 96);
        let first_try = LoadOptions {
            aider_tries: Some(1),
            ..LoadOptions::default()
        };
        assert_eq!(passes(first_try), 68);
    }

    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
            let target = to.join(entry.file_name());
            if entry.path().is_dir() {
                copy_tree(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).expect("copy");
            }
        }
    }
}
