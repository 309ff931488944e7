//! Typed record rows: every record file's columns checked and parsed into plain vectors (one entry per
//! row of every file, in input order), with names interned. This is where SPEC §1's per-value checks
//! live (outcome in [0,1], cost and seconds ≥ 0, run ≥ 0, status words, dates, non-empty names). Checks
//! that need several rows at once (duplicate keys, conflicting groups) belong to `assemble`.

use std::collections::HashMap;

use polars::prelude::*;

use super::columns::{self, Cell, cell_text, for_each_cell, format_number};
use super::error::{LoadError, Offenders, Pos, prints_unseen, quote};
use super::options::LoadOptions;
use super::read::RawTable;

/// Strings to dense ids, in order of first appearance.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    ids: HashMap<String, u32>,
    pub names: Vec<String>,
}

impl Interner {
    pub fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.ids.insert(name.to_string(), id);
        self.names.push(name.to_string());
        id
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }
}

/// How a run ended (SPEC §1 `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Error,
    NotAttempted,
}

/// A text column read per row, e.g. `group` or a task attribute: `None` where the cell is empty.
#[derive(Debug, Clone, Default)]
pub struct TextColumn {
    pub values: Vec<Option<u32>>,
    pub dict: Interner,
    /// The files (indices into [`Rows::files`]) without this column: their rows say nothing of it,
    /// where an empty cell says the row has no value.
    pub absent_in: Vec<u32>,
}

impl TextColumn {
    fn pad_to(&mut self, len: usize) {
        self.values.resize(len, None);
    }
}

/// All record rows of all files, checked and typed.
#[derive(Debug, Default)]
pub struct Rows {
    pub files: Vec<String>,
    /// SHA-256 of each file.
    pub hashes: Vec<String>,
    /// (file index, position in that file) of every row.
    pub origin: Vec<(u32, Pos)>,
    pub systems: Interner,
    pub system: Vec<u32>,
    pub benchmarks: Interner,
    /// Task keys are unique per benchmark; `task_names` and `task_benchmark` are indexed by task id.
    task_keys: Interner,
    pub task_names: Vec<String>,
    pub task_benchmark: Vec<u32>,
    pub task: Vec<u32>,
    /// NaN where a `not_attempted` row has no outcome.
    pub outcome: Vec<f64>,
    pub run: Vec<u32>,
    /// NaN where missing.
    pub cost: Vec<f64>,
    pub seconds: Vec<f64>,
    pub status: Vec<Status>,
    pub has_benchmark: bool,
    pub has_cost: bool,
    pub has_seconds: bool,
    pub has_run: bool,
    pub has_status: bool,
    /// `group` and every column pareval has no meaning for, by name, in order of first appearance.
    pub attributes: Vec<(String, TextColumn)>,
    pub scaffold: TextColumn,
    pub model: TextColumn,
    pub submitted: TextColumn,
    /// What reading the files chose and the loader reports (run ids numbered, …).
    pub notes: Vec<String>,
    /// The `--ignore-col` columns some file had (the others are named in a note: a typo would
    /// leave the column in).
    pub ignored_found: std::collections::BTreeSet<String>,
    /// The `--col` source columns some file had, with that file's columns (a source no file has is
    /// a typo: the file's own column of the target's name would be read in its place).
    pub col_sources_found: std::collections::BTreeSet<String>,
    /// The first file's name and columns, for the message about a source no file has.
    pub first_columns: Option<(String, String)>,
    /// Each row's `source` (an importer's "where it came from"), kept only when the loader keeps
    /// task origins (`LoadOptions::task_origins`): a row gathered from several files has no line.
    pub source: Option<TextColumn>,
}

impl Rows {
    pub fn len(&self) -> usize {
        self.system.len()
    }

    /// Where row `row` stands, with the file named when it is not `relative_to`.
    pub fn place(&self, row: usize, relative_to: &str) -> String {
        let (file, pos) = self.origin[row];
        let name = &self.files[file as usize];
        if name == relative_to {
            pos.to_string()
        } else {
            format!("{name} {pos}")
        }
    }

    /// Checks and appends the rows of one record file.
    /// `file_benchmark`: the benchmark of every row when the file has no `benchmark` column (the
    /// `--benchmark-per-file` option passes the file's name).
    pub fn add_table(
        &mut self,
        mut table: RawTable,
        options: &LoadOptions,
        file_benchmark: Option<&str>,
    ) -> Result<(), LoadError> {
        let file = table.file.clone();
        for (_, source) in options.columns.renames() {
            if table.frame.get_column_index(source).is_some() {
                self.col_sources_found.insert(source.to_string());
            }
        }
        if self.first_columns.is_none() {
            self.first_columns = Some((file.clone(), columns::column_list(&table.frame)));
        }
        refuse_unusual_values(&table, options)?;
        options.columns.apply(&mut table.frame, &file)?;
        for name in &options.ignore_columns {
            // A column this file lacks is simply not there to leave out.
            if table.frame.drop_in_place(name).is_ok() {
                self.ignored_found.insert(name.clone());
            }
        }
        let frame = &table.frame;
        for required in [columns::SYSTEM, columns::TASK, columns::OUTCOME] {
            if frame.get_column_index(required).is_none() {
                return Err(missing_column(frame, &file, required));
            }
        }
        let start = self.len();
        let height = frame.height();
        let file_index = self.files.len() as u32;
        self.files.push(file.clone());
        self.hashes.push(table.sha256.clone());
        self.origin
            .extend((0..height).map(|row| (file_index, table.positions.at(row))));
        let at = |row: usize| table.positions.at(row);

        let status = self.read_status(frame, &file, &at)?;
        let mut systems = match &options.system_name {
            // `--system-name`: every row is that system, whatever the column says.
            Some(name) if frame.get_column_index(columns::SYSTEM).is_some() => {
                vec![name.clone(); height]
            }
            _ => read_names(frame, columns::SYSTEM, &file, &at)?,
        };
        key_systems(&mut systems, frame, &options.system_key, &file)?;
        let tasks = read_names(frame, columns::TASK, &file, &at)?;
        let benchmarks = match (frame.column(columns::BENCHMARK), file_benchmark) {
            (Ok(column), _) => {
                self.has_benchmark = true;
                Some(read_optional_text(column, &file)?)
            }
            (Err(_), Some(name)) => {
                self.has_benchmark = true;
                Some(vec![Some(name.to_string()); frame.height()])
            }
            (Err(_), None) => None,
        };
        let outcome = read_outcome(frame, &status, &file, &at)?;
        // A row not attempted has no outcome: one written there is not read, and said so.
        let mut unread = (0..height)
            .filter(|&row| status[row] == Status::NotAttempted && !outcome[row].is_nan());
        if let Some(first) = unread.next() {
            let more = unread.count();
            self.notes.push(format!(
                "{file}: {} with status not_attempted {} an outcome (first {}: {}), not read: a run not attempted has none",
                if more == 0 {
                    "1 row".to_string()
                } else {
                    format!("{} rows", more + 1)
                },
                if more == 0 { "carries" } else { "carry" },
                at(first),
                format_number(outcome[first])
            ));
        }
        let cost = self.read_amount(frame, columns::COST, &file, &at)?;
        let seconds = self.read_amount(frame, columns::SECONDS, &file, &at)?;
        let run = self.read_run(frame, &file, &at, &systems, &tasks)?;

        for row in 0..height {
            self.system.push(self.systems.id(&systems[row]));
            let bench = match &benchmarks {
                Some(values) => self.benchmarks.id(values[row].as_deref().unwrap_or("")),
                None => self.benchmarks.id(""),
            };
            let key = if benchmarks.is_some() {
                format!("{bench}\u{1f}{}", tasks[row])
            } else {
                tasks[row].clone()
            };
            let before = self.task_keys.len();
            let task = self.task_keys.id(&key);
            if self.task_keys.len() > before {
                self.task_names.push(tasks[row].clone());
                self.task_benchmark.push(bench);
            }
            self.task.push(task);
        }
        self.status.extend(status);
        self.outcome.extend(outcome);
        self.cost.extend(cost);
        self.seconds.extend(seconds);
        self.run.extend(run);

        self.read_system_attributes(frame, &file, &at, start)?;
        self.read_task_attributes(frame, &file, start)?;
        if options.task_origins.is_some() {
            let target = self.source.get_or_insert_with(TextColumn::default);
            target.pad_to(start);
            // Only a message reads it, and `info` reads a table whose `source` holds what is no
            // text (a list): such a column is passed over, not refused.
            if let Ok(column) = frame.column(columns::SOURCE)
                && append_text(target, column, &file).is_err()
            {
                target.values.truncate(start);
            }
            target.pad_to(start + height);
        }
        Ok(())
    }

    fn read_status(
        &mut self,
        frame: &DataFrame,
        file: &str,
        at: &dyn Fn(usize) -> Pos,
    ) -> Result<Vec<Status>, LoadError> {
        let Ok(column) = frame.column(columns::STATUS) else {
            return Ok(vec![Status::Ok; frame.height()]);
        };
        self.has_status = true;
        let mut out = Vec::with_capacity(frame.height());
        let mut bad = Offenders::default();
        for_each_cell(column, file, |row, cell| {
            let status = match cell {
                Cell::Null => Some(Status::Ok),
                Cell::Text(text) => match text.trim().to_ascii_lowercase().as_str() {
                    "" | "ok" => Some(Status::Ok),
                    "error" => Some(Status::Error),
                    "not_attempted" => Some(Status::NotAttempted),
                    _ => None,
                },
                _ => None,
            };
            out.push(status.unwrap_or(Status::Ok));
            if status.is_none() {
                bad.push(|| format!("status {} on {}", quote(&cell_text(cell)), at(row)));
            }
        })?;
        bad.into_result(
            file,
            "column 'status' must be ok, error or not_attempted (any case)",
        )?;
        Ok(out)
    }

    /// `cost_usd` or `seconds`: empty means unknown; a value must be a finite number ≥ 0.
    fn read_amount(
        &mut self,
        frame: &DataFrame,
        name: &str,
        file: &str,
        at: &dyn Fn(usize) -> Pos,
    ) -> Result<Vec<f64>, LoadError> {
        let Ok(column) = frame.column(name) else {
            return Ok(vec![f64::NAN; frame.height()]);
        };
        let mut out = Vec::with_capacity(frame.height());
        let mut bad = Offenders::default();
        let mut present = false;
        for_each_cell(column, file, |row, cell| {
            let value = match cell {
                Cell::Null => Some(f64::NAN),
                Cell::Text(text) if text.trim().is_empty() => Some(f64::NAN),
                Cell::Text(text) => text
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0),
                Cell::Number(x) => Some(x).filter(|x| x.is_finite() && *x >= 0.0),
                Cell::Bool(_) => None,
            };
            match value {
                Some(x) => {
                    present |= !x.is_nan();
                    out.push(x);
                }
                None => {
                    out.push(f64::NAN);
                    bad.push(|| format!("{name} {} on {}", quote(&cell_text(cell)), at(row)));
                }
            }
        })?;
        bad.into_result(
            file,
            &format!("column '{name}' must hold a number ≥ 0 or be empty"),
        )?;
        if present {
            if name == columns::COST {
                self.has_cost = true;
            } else {
                self.has_seconds = true;
            }
        }
        Ok(out)
    }

    /// The 0-based run of every row: whole numbers as they are; a column of run ids (any value that
    /// is text other than a number, or a whole number past u32) numbered 0, 1, … within each (system,
    /// task) of the file in the ids' order (numbers by value first, then text), with a note.
    /// Fractions and negative numbers are refused.
    fn read_run(
        &mut self,
        frame: &DataFrame,
        file: &str,
        at: &dyn Fn(usize) -> Pos,
        systems: &[String],
        tasks: &[String],
    ) -> Result<Vec<u32>, LoadError> {
        let Ok(column) = frame.column(columns::RUN) else {
            return Ok(vec![0; frame.height()]);
        };
        self.has_run = true;
        let mut out = Vec::with_capacity(frame.height());
        let mut ids: Vec<String> = Vec::with_capacity(frame.height());
        let mut id_example: Option<String> = None;
        let mut bad = Offenders::default();
        for_each_cell(column, file, |row, cell| {
            // Some(number), or None for text that is no number at all (an id) or a boolean.
            let number = match cell {
                Cell::Null => Some(0.0),
                Cell::Text(text) if text.trim().is_empty() => Some(0.0),
                Cell::Text(text) => text.trim().parse::<f64>().ok(),
                Cell::Number(x) => Some(x),
                Cell::Bool(_) => None,
            };
            ids.push(cell_text(cell).trim().to_string());
            match number {
                Some(x) if x.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&x) => {
                    out.push(x as u32);
                }
                // A whole number this large is an id, not a count of runs.
                Some(x) if x.fract() == 0.0 && x > 0.0 => {
                    id_example.get_or_insert_with(|| cell_text(cell));
                    out.push(0);
                }
                None if matches!(cell, Cell::Text(_)) => {
                    id_example.get_or_insert_with(|| cell_text(cell).trim().to_string());
                    out.push(0);
                }
                _ => {
                    out.push(0);
                    bad.push(|| format!("run {} on {}", quote(&cell_text(cell)), at(row)));
                }
            }
        })?;
        bad.into_result(
            file,
            "column 'run' must hold a whole number ≥ 0, a run id, or be empty",
        )?;
        let Some(example) = id_example else {
            return Ok(out);
        };
        // An id given twice for one (system, task) is a duplicate key: told with the id as written
        // (numbered, both rows would read "run 0").
        let mut first_row: std::collections::HashMap<(&str, &str, &str), usize> =
            std::collections::HashMap::new();
        let mut repeated = Offenders::default();
        for row in 0..ids.len() {
            let key = (
                systems[row].as_str(),
                tasks[row].as_str(),
                ids[row].as_str(),
            );
            match first_row.get(&key) {
                Some(&earlier) => repeated.push(|| {
                    format!(
                        "({}, {}, run {}) on {} and {}",
                        quote(key.0),
                        quote(key.1),
                        quote(key.2),
                        at(earlier),
                        at(row)
                    )
                }),
                None => {
                    first_row.insert(key, row);
                }
            }
        }
        repeated.into_result(file, "duplicate (system, task, run) keys")?;
        // Run ids: each (system, task)'s distinct ids in sorted order are its runs 0, 1, ….
        let mut by_pair: std::collections::HashMap<(&str, &str), Vec<&str>> =
            std::collections::HashMap::new();
        for row in 0..ids.len() {
            by_pair
                .entry((systems[row].as_str(), tasks[row].as_str()))
                .or_default()
                .push(ids[row].as_str());
        }
        // Numbers by value before any other id, other ids as text: "2" comes before "10".
        let order = |a: &&str, b: &&str| match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) => x.total_cmp(&y).then_with(|| a.cmp(b)),
            (Ok(_), Err(_)) => std::cmp::Ordering::Less,
            (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
            (Err(_), Err(_)) => a.cmp(b),
        };
        for list in by_pair.values_mut() {
            list.sort_unstable_by(order);
            list.dedup();
        }
        for (row, slot) in out.iter_mut().enumerate() {
            let list = &by_pair[&(systems[row].as_str(), tasks[row].as_str())];
            *slot = list
                .binary_search_by(|probe| order(probe, &ids[row].as_str()))
                .unwrap_or(0) as u32;
        }
        self.notes.push(format!(
            "{file}: column 'run' holds run ids (such as {}), not run numbers: each (system, task)'s runs are numbered 0, 1, … in the ids' order (numbers by value, then text)",
            quote(&example)
        ));
        Ok(out)
    }

    fn read_system_attributes(
        &mut self,
        frame: &DataFrame,
        file: &str,
        at: &dyn Fn(usize) -> Pos,
        start: usize,
    ) -> Result<(), LoadError> {
        for (name, target) in [
            (columns::SCAFFOLD, &mut self.scaffold),
            (columns::MODEL, &mut self.model),
        ] {
            target.pad_to(start);
            if let Ok(column) = frame.column(name) {
                append_text(target, column, file)?;
            }
            target.pad_to(start + frame.height());
        }
        self.submitted.pad_to(start);
        if let Ok(column) = frame.column(columns::SUBMITTED) {
            let mut bad = Offenders::default();
            for_each_cell(column, file, |row, cell| {
                let value = match cell {
                    Cell::Null => Ok(None),
                    Cell::Text(text) if text.trim().is_empty() => Ok(None),
                    Cell::Text(text) => parse_date(text.trim()).map(Some).ok_or(()),
                    _ => Err(()),
                };
                match value {
                    Ok(date) => self
                        .submitted
                        .values
                        .push(date.map(|d| self.submitted.dict.id(&d))),
                    Err(()) => {
                        self.submitted.values.push(None);
                        bad.push(|| {
                            format!("submitted {} on {}", quote(&cell_text(cell)), at(row))
                        });
                    }
                }
            })?;
            bad.into_result(
                file,
                "column 'submitted' must hold a date YYYY-MM-DD or be empty",
            )?;
        }
        self.submitted.pad_to(start + frame.height());
        Ok(())
    }

    /// `group` and every column without a meaning of its own are read as text per row; `assemble`
    /// later decides which of them are constant per task and so are candidate group columns.
    fn read_task_attributes(
        &mut self,
        frame: &DataFrame,
        file: &str,
        start: usize,
    ) -> Result<(), LoadError> {
        let this_file = self.files.len().saturating_sub(1) as u32;
        for column in frame.columns() {
            let name = column.name().as_str();
            if name != columns::GROUP && columns::KNOWN.contains(&name) {
                continue;
            }
            let index = match self.attributes.iter().position(|(n, _)| n == name) {
                Some(index) => index,
                None => {
                    // Every file read before this one lacks the column.
                    let column = TextColumn {
                        absent_in: (0..this_file).collect(),
                        ..TextColumn::default()
                    };
                    self.attributes.push((name.to_string(), column));
                    self.attributes.len() - 1
                }
            };
            let target = &mut self.attributes[index].1;
            target.pad_to(start);
            append_text(target, column, file)?;
        }
        let len = self.len();
        for (name, column) in &mut self.attributes {
            if frame.column(name).is_err() {
                column.absent_in.push(this_file);
            }
            column.pad_to(len);
        }
        Ok(())
    }
}

fn missing_column(frame: &DataFrame, file: &str, required: &str) -> LoadError {
    let names = frame.get_column_names();
    let mut message = format!(
        "missing required column '{required}' (columns found: {})",
        columns::column_list(frame)
    );
    if names.len() == 1 {
        let header = names[0].as_str();
        if let Some(sep) = [';', '\t', '|', ',']
            .into_iter()
            .find(|c| header.contains(*c))
        {
            let shown = if sep == '\t' {
                "tab".to_string()
            } else {
                format!("'{sep}'")
            };
            message.push_str(&format!(
                "; the header looks {shown}-separated, but .csv files are read as comma-separated and .tsv files as tab-separated"
            ));
        }
    }
    // A step-level trajectories table (SPEC §11) given as records: say where it goes.
    let has = |column: &str| names.iter().any(|n| n.as_str() == column);
    if required == columns::OUTCOME && has("step") && (has("action") || has("role")) {
        message.push_str(
            "; it looks like a step-level trajectories table: give it as --steps with its outcomes table as --outcomes (explore, early)",
        );
    }
    // An ARC-AGI submission (a task's attempts, per test pair) is scored by its own scorer.
    if has("attempt_1") && !has("outcome") {
        message.push_str(
            "; it looks like an ARC-AGI submission (one task's attempts, not scored): score the submissions folder with arc-agi-benchmarking's scorer (python -m arc_agi_benchmarking.scoring --results_dir DIR) and read DIR/results.json (arc-agi)",
        );
    }
    let lower = file.to_lowercase();
    if [".json", ".jsonl", ".ndjson"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        message.push_str(&format!(
            "; nor is it a harness result file pareval recognises ({})",
            super::import::formats_read()
        ));
    }
    // A harness's JSON compressed with gzip is read as a record table, never through its importer
    // (importers read a file as the harness wrote it): the missing column was all it said.
    if [".json.gz", ".jsonl.gz", ".ndjson.gz"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        message.push_str(
            "; a harness's result file compressed with gzip is not read through its importer: decompress it (gunzip) and read it again",
        );
    }
    LoadError::new(file, message)
}

/// A JSON list or object in a field read as a plain value (a name, a run, an amount, a status,
/// a date; `source` is kept as text), or a boolean where a run or an amount is read: the JSON
/// reader turned it into its text ("[]" a system of its own) or into 1 or 0 (a cost of `true` read
/// as $1), so it is refused with its line and value. The outcome is left to its own reader: a
/// boolean outcome is documented (1 and 0), and a list there never reads as a number.
fn refuse_unusual_values(table: &RawTable, options: &LoadOptions) -> Result<(), LoadError> {
    let read_as_plain = columns::KNOWN
        .iter()
        .filter(|c| ![columns::SOURCE, columns::OUTCOME].contains(c))
        .map(|c| (options.columns.source_of(c), *c))
        .chain(
            options
                .system_key
                .iter()
                .map(|c| (c.as_str(), "system key")),
        );
    for (source, target) in read_as_plain {
        let numeric = [columns::COST, columns::SECONDS, columns::RUN].contains(&target);
        let found = table
            .unusual
            .iter()
            .find(|u| u.key == source && (u.kind != "a boolean" || numeric));
        if let Some(value) = found {
            let read = if numeric { "a number" } else { "a plain value" };
            return Err(LoadError::new(
                &table.file,
                format!(
                    "line {}: field '{source}' holds {} ({}); pareval reads `{target}` as {read} (the JSON reader would have turned it into {})",
                    value.line,
                    value.kind,
                    value.shown,
                    if value.kind == "a boolean" {
                        "1 or 0"
                    } else {
                        "its text"
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a name holds a character that does not print as itself: a control character (a NUL) or
/// a mark of no width (a byte order mark left by joining two files, a zero-width space). Two
/// names that differ by one print alike, so a task would be two tasks on screen and in every table.
fn holds_invisible(name: &str) -> bool {
    // Most names are ASCII without control bytes: a byte scan settles them.
    name.bytes()
        .any(|b| b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2 || b == 0xef)
        && name.chars().any(prints_unseen)
}

/// `system` and `task`: every row needs a non-empty name that prints as itself.
fn read_names(
    frame: &DataFrame,
    name: &str,
    file: &str,
    at: &dyn Fn(usize) -> Pos,
) -> Result<Vec<String>, LoadError> {
    let column = frame
        .column(name)
        .map_err(|e| LoadError::new(file, e.to_string()))?;
    let mut out = Vec::with_capacity(frame.height());
    let mut bad = Offenders::default();
    let mut unseen = Offenders::default();
    for_each_cell(column, file, |row, cell| {
        let text = match cell {
            Cell::Null => String::new(),
            Cell::Text(text) => text.to_string(),
            other => cell_text(other),
        };
        if text.trim().is_empty() {
            bad.push(|| at(row).to_string());
        } else if holds_invisible(&text) {
            unseen.push(|| format!("{} on {}", quote(&text), at(row)));
        }
        out.push(text);
    })?;
    bad.into_result_on(file, &format!("column '{name}' is empty"))?;
    unseen.into_result(
        file,
        &format!(
            "column '{name}' holds a control character or a mark of no width (a NUL, a byte order mark where two files were joined), so the name would print as another"
        ),
    )?;
    Ok(out)
}

/// `outcome`: a number in [0,1] (true/false accepted); empty only where the run was not attempted.
fn read_outcome(
    frame: &DataFrame,
    status: &[Status],
    file: &str,
    at: &dyn Fn(usize) -> Pos,
) -> Result<Vec<f64>, LoadError> {
    let column = frame
        .column(columns::OUTCOME)
        .map_err(|e| LoadError::new(file, e.to_string()))?;
    let mut out = Vec::with_capacity(frame.height());
    let mut bad = Offenders::default();
    let mut empty = Offenders::default();
    for_each_cell(column, file, |row, cell| {
        let parsed = match cell {
            Cell::Null => None,
            Cell::Text(text) if text.trim().is_empty() => None,
            Cell::Text(text) => {
                let text = text.trim();
                Some(match text.to_ascii_lowercase().as_str() {
                    "true" => Some(1.0),
                    "false" => Some(0.0),
                    _ => text.parse::<f64>().ok(),
                })
            }
            Cell::Number(x) => Some(Some(x)),
            Cell::Bool(b) => Some(Some(if b { 1.0 } else { 0.0 })),
        };
        match parsed {
            None => {
                out.push(f64::NAN);
                if status[row] != Status::NotAttempted {
                    empty.push(|| at(row).to_string());
                }
            }
            Some(Some(x)) if (0.0..=1.0).contains(&x) => out.push(x),
            Some(_) => {
                out.push(f64::NAN);
                bad.push(|| format!("outcome {} on {}", quote(&cell_text(cell)), at(row)));
            }
        }
    })?;
    bad.into_result(
        file,
        "column 'outcome' must hold a number in [0, 1] (or true/false)",
    )?;
    empty.into_result_on(
        file,
        "column 'outcome' is empty (allowed only with status not_attempted)",
    )?;
    Ok(out)
}

/// Names each row's system by its `system` value and the values of the other key columns:
/// "name (value, …)", the values a row lacks left out ("name" when it has none).
fn key_systems(
    systems: &mut [String],
    frame: &DataFrame,
    key: &[String],
    file: &str,
) -> Result<(), LoadError> {
    let extra = match key {
        [] => return Ok(()),
        [first, extra @ ..] if first == columns::SYSTEM => extra,
        _ => {
            return Err(LoadError::new(
                file,
                format!(
                    "--system-key '{}' must start with system (e.g. system,scaffold)",
                    key.join(",")
                ),
            ));
        }
    };
    let mut values = Vec::with_capacity(extra.len());
    for name in extra {
        let column = frame.column(name).map_err(|_| {
            LoadError::new(
                file,
                format!("--system-key names column '{name}', which the file does not have"),
            )
        })?;
        values.push(read_optional_text(column, file)?);
    }
    for (row, system) in systems.iter_mut().enumerate() {
        let parts: Vec<&str> = values.iter().filter_map(|v| v[row].as_deref()).collect();
        if !parts.is_empty() {
            *system = format!("{system} ({})", parts.join(", "));
        }
    }
    Ok(())
}

fn read_optional_text(column: &Column, file: &str) -> Result<Vec<Option<String>>, LoadError> {
    let mut out = Vec::with_capacity(column.len());
    for_each_cell(column, file, |_, cell| {
        out.push(match cell {
            Cell::Null => None,
            Cell::Text(text) if text.trim().is_empty() => None,
            Cell::Text(text) => Some(text.to_string()),
            other => Some(cell_text(other)),
        });
    })?;
    Ok(out)
}

fn append_text(target: &mut TextColumn, column: &Column, file: &str) -> Result<(), LoadError> {
    for_each_cell(column, file, |_, cell| {
        let value = match cell {
            Cell::Null => None,
            Cell::Text(text) if text.trim().is_empty() => None,
            Cell::Text(text) => Some(target.dict.id(text)),
            other => Some(target.dict.id(&cell_text(other))),
        };
        target.values.push(value);
    })
}

/// A calendar date `YYYY-MM-DD`; an ISO date-time (`YYYY-MM-DD HH:MM:SS` or with `T`) keeps its date,
/// since a submission date is what the temporal protocol compares.
pub fn parse_date(text: &str) -> Option<String> {
    let date = match text.len() {
        10 => text,
        n if n > 10 && matches!(text.as_bytes()[10], b' ' | b'T') => &text[..10],
        _ => return None,
    };
    let bytes = date.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && bytes[4] == b'-' && digits(5..7) && bytes[7] == b'-' && digits(8..10)) {
        return None;
    }
    let year: u32 = date[0..4].parse().ok()?;
    let month: u32 = date[5..7].parse().ok()?;
    let day: u32 = date[8..10].parse().ok()?;
    let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days_in_month).contains(&day).then(|| date.to_string())
}

/// The key a row's run is told apart by, as the loader reads a run column: no run or an empty one
/// is run 0, a whole number is itself however it is spelled ("0", "00", "0.0"), other text is an id
/// as written, and a fraction or a negative number is refused, as the loader refuses it. So a
/// harness that names run 0 on one line and leaves it out on the next gives one run two outcomes,
/// which is refused as `decide` refuses it, not averaged as two runs. A steps file's run column is
/// read so too, so that `watch --early` finds a trajectory's outcome however either file spells it.
pub fn run_key(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok("0".to_string());
    }
    match text.parse::<f64>() {
        Ok(x) if x.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&x) => {
            Ok((x as u32).to_string())
        }
        // A whole number past u32 is an id, as the loader reads it.
        Ok(x) if x.fract() == 0.0 && x > 0.0 => Ok(text.to_string()),
        Ok(_) => Err(format!(
            "run '{text}' is not a whole number ≥ 0 or a run id"
        )),
        Err(_) => Ok(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_keyed_as_the_loader_reads_it() {
        for spelling in ["", " ", "0", "00", "0.0"] {
            assert_eq!(run_key(spelling), Ok("0".to_string()), "{spelling:?}");
        }
        assert_eq!(run_key(" 3 "), Ok("3".to_string()));
        assert_eq!(run_key("seed-7"), Ok("seed-7".to_string()));
        assert_eq!(run_key("99999999999"), Ok("99999999999".to_string()));
        // Refused as the loader refuses them.
        assert!(run_key("1.5").is_err());
        assert!(run_key("-1").is_err());
    }

    #[test]
    fn dates_are_checked_for_real_calendar_days() {
        assert_eq!(parse_date("2025-02-28").as_deref(), Some("2025-02-28"));
        assert_eq!(parse_date("2024-02-29").as_deref(), Some("2024-02-29"));
        assert_eq!(parse_date("2025-02-29"), None);
        assert_eq!(parse_date("2025-13-01"), None);
        assert_eq!(parse_date("2025-04-31"), None);
        assert_eq!(parse_date("2025-1-01"), None);
        assert_eq!(
            parse_date("2025-10-14T08:30:00").as_deref(),
            Some("2025-10-14")
        );
        assert_eq!(
            parse_date("2025-10-14 08:30").as_deref(),
            Some("2025-10-14")
        );
        assert_eq!(parse_date("14/10/2025"), None);
    }
}
