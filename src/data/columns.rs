//! Column names and the `--col target=source` mapping, plus typed access to one polars column whatever
//! its physical type (text formats arrive as strings, JSON and Parquet with their own types). This
//! module owns the vocabulary of known columns; it does not decide what a value means.

use polars::prelude::*;

use super::error::LoadError;

pub const SYSTEM: &str = "system";
pub const TASK: &str = "task";
pub const OUTCOME: &str = "outcome";
pub const GROUP: &str = "group";
pub const COST: &str = "cost_usd";
pub const SECONDS: &str = "seconds";
pub const RUN: &str = "run";
pub const BENCHMARK: &str = "benchmark";
pub const SCAFFOLD: &str = "scaffold";
pub const MODEL: &str = "model";
pub const SUBMITTED: &str = "submitted";
pub const SOURCE: &str = "source";
pub const STATUS: &str = "status";

/// Every column name with a meaning of its own (SPEC §1). Other columns are candidate task attributes.
pub const KNOWN: [&str; 13] = [
    SYSTEM, TASK, OUTCOME, GROUP, COST, SECONDS, RUN, BENCHMARK, SCAFFOLD, MODEL, SUBMITTED,
    SOURCE, STATUS,
];

/// User-given renames: pareval's column name ← the file's column name.
/// A `--col` item that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--col '{item}'{problem}")]
pub struct ColumnMapError {
    pub item: String,
    pub problem: MappingProblem,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MappingProblem {
    #[error(" must look like TARGET=SOURCE, e.g. system=agent_name")]
    NotAPair,
    /// The target, and the columns this table knows (a steps table's are not the records').
    #[error(": '{0}' is not a pareval column (one of {1})")]
    UnknownTarget(String, String),
    #[error(": the source column name is empty")]
    EmptySource,
    #[error(": '{0}' is mapped twice")]
    MappedTwice(String),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnMap {
    pairs: Vec<(String, String)>,
}

impl ColumnMap {
    /// Parses `target=source` items, e.g. `system=agent_name`.
    pub fn parse(items: &[String]) -> Result<Self, ColumnMapError> {
        Self::parse_with(items, &KNOWN)
    }

    /// [`ColumnMap::parse`] for tables with other known columns (the step-level tables).
    pub fn parse_with(items: &[String], known: &[&str]) -> Result<Self, ColumnMapError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for item in items {
            let bad = |problem| ColumnMapError {
                item: item.clone(),
                problem,
            };
            let Some((target, source)) = item.split_once('=') else {
                return Err(bad(MappingProblem::NotAPair));
            };
            let (target, source) = (target.trim(), source.trim());
            if !known.contains(&target) {
                return Err(bad(MappingProblem::UnknownTarget(
                    target.to_string(),
                    known.join(", "),
                )));
            }
            if source.is_empty() {
                return Err(bad(MappingProblem::EmptySource));
            }
            if pairs.iter().any(|(t, _)| t == target) {
                return Err(bad(MappingProblem::MappedTwice(target.to_string())));
            }
            pairs.push((target.to_string(), source.to_string()));
        }
        Ok(ColumnMap { pairs })
    }

    /// Renames the mapped columns of one file. A mapping whose source column is absent is skipped only
    /// when the file already has the target column (several files may spell a column differently).
    pub fn apply(&self, frame: &mut DataFrame, file: &str) -> Result<(), LoadError> {
        for (target, source) in &self.pairs {
            let has_source = frame.get_column_index(source).is_some();
            let has_target = frame.get_column_index(target).is_some();
            match (has_source, has_target) {
                (true, false) => {
                    frame.rename(source, target.as_str().into()).map_err(|e| {
                        LoadError::new(file, format!("cannot rename column '{source}': {e}"))
                    })?;
                }
                (true, true) if source != target => {
                    return Err(LoadError::new(
                        file,
                        format!(
                            "--col {target}={source}: the file has both a '{source}' and a '{target}' column"
                        ),
                    ));
                }
                (false, false) => {
                    return Err(LoadError::new(
                        file,
                        format!(
                            "--col {target}={source}: the file has no column '{source}' (columns: {})",
                            column_list(frame)
                        ),
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The (target, source) pairs whose source is another name than the target.
    pub fn renames(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs
            .iter()
            .filter(|(t, s)| t != s)
            .map(|(t, s)| (t.as_str(), s.as_str()))
    }

    /// The column a reader should look up for pareval's column `target`: its `--col` source, or the
    /// name itself.
    pub fn source_of<'a>(&'a self, target: &'a str) -> &'a str {
        self.pairs
            .iter()
            .find(|(t, _)| t == target)
            .map_or(target, |(_, source)| source.as_str())
    }

    /// Renames, in a side table, the mapped columns among `targets` whose source column is present;
    /// side tables may already use pareval's names, so an absent source is not an error here.
    pub fn apply_known(
        &self,
        frame: &mut DataFrame,
        file: &str,
        targets: &[&str],
    ) -> Result<(), LoadError> {
        for (target, source) in &self.pairs {
            if !targets.contains(&target.as_str()) || frame.get_column_index(source).is_none() {
                continue;
            }
            // Both columns present: which one is meant cannot be told, as in the records loader
            // (the mapping used to be passed over, and the file's own column read).
            if frame.get_column_index(target).is_some() {
                if source != target {
                    return Err(LoadError::new(
                        file,
                        format!(
                            "--col {target}={source}: the file has both a '{source}' and a '{target}' column"
                        ),
                    ));
                }
                continue;
            }
            frame.rename(source, target.as_str().into()).map_err(|e| {
                LoadError::new(file, format!("cannot rename column '{source}': {e}"))
            })?;
        }
        Ok(())
    }
}

/// The file's column names, quoted, for messages.
pub fn column_list(frame: &DataFrame) -> String {
    frame
        .get_column_names()
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One cell of a column as the checks see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    Null,
    Text(&'a str),
    Number(f64),
    Bool(bool),
}

/// 2^53: every whole number of smaller magnitude is exact as an `f64`.
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// Visits every cell of a column in row order. Strings stay strings (so messages quote them as
/// written), numbers of any width become `f64` (whole-number columns with a value past 2^53 their
/// exact decimal texts), booleans stay booleans, durations become seconds, anything else (dates, …)
/// is shown as polars prints it.
pub fn for_each_cell(
    column: &Column,
    file: &str,
    mut visit: impl FnMut(usize, Cell<'_>),
) -> Result<(), LoadError> {
    let fail = |e: PolarsError| {
        LoadError::new(file, format!("cannot read column '{}': {e}", column.name()))
    };
    match column.dtype() {
        DataType::String => {
            for (row, value) in column.str().map_err(fail)?.iter().enumerate() {
                visit(row, value.map_or(Cell::Null, Cell::Text));
            }
        }
        DataType::Boolean => {
            for (row, value) in column.bool().map_err(fail)?.iter().enumerate() {
                visit(row, value.map_or(Cell::Null, Cell::Bool));
            }
        }
        dtype if dtype.is_primitive_numeric() => {
            let floats = column.cast(&DataType::Float64).map_err(fail)?;
            let floats = floats.f64().map_err(fail)?;
            // Whole numbers past 2^53 would be rounded as floats (two task ids 9007199254740992
            // and …993 would meet as one): such a column is read as the exact decimal texts.
            if dtype.is_integer() && floats.iter().flatten().any(|x| x.abs() >= EXACT_INTEGERS) {
                let text = column.cast(&DataType::String).map_err(fail)?;
                for (row, value) in text.str().map_err(fail)?.iter().enumerate() {
                    visit(row, value.map_or(Cell::Null, Cell::Text));
                }
            } else {
                for (row, value) in floats.iter().enumerate() {
                    visit(row, value.map_or(Cell::Null, Cell::Number));
                }
            }
        }
        DataType::Null => {
            for row in 0..column.len() {
                visit(row, Cell::Null);
            }
        }
        // A duration (Parquet's, e.g. pandas' timedelta written by pyarrow) is read in seconds: what
        // a `seconds` column means. Its physical values count the unit.
        DataType::Duration(unit) => {
            let per_second = match unit {
                TimeUnit::Milliseconds => 1e3,
                TimeUnit::Microseconds => 1e6,
                TimeUnit::Nanoseconds => 1e9,
            };
            let counts = column
                .to_physical_repr()
                .cast(&DataType::Float64)
                .map_err(fail)?;
            for (row, value) in counts.f64().map_err(fail)?.iter().enumerate() {
                visit(
                    row,
                    value.map_or(Cell::Null, |x| Cell::Number(x / per_second)),
                );
            }
        }
        _ => {
            let text = column.cast(&DataType::String).map_err(|_| {
                LoadError::new(
                    file,
                    format!(
                        "column '{}' has type {} which pareval cannot read",
                        column.name(),
                        column.dtype()
                    ),
                )
            })?;
            for (row, value) in text.str().map_err(fail)?.iter().enumerate() {
                visit(row, value.map_or(Cell::Null, Cell::Text));
            }
        }
    }
    Ok(())
}

/// A cell shown the way the user wrote it, for messages.
pub fn cell_text(cell: Cell<'_>) -> String {
    match cell {
        Cell::Null => "<empty>".to_string(),
        Cell::Text(s) => s.to_string(),
        Cell::Number(x) => format_number(x),
        Cell::Bool(b) => b.to_string(),
    }
}

/// Numbers from typed formats used as names (e.g. integer task ids in Parquet) print without ".0".
pub fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}
