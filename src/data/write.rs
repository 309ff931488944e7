//! Writing tables: simulated record files (for `simulate`) and decision records (for `replay
//! --records`), in the format the extension names. Parquet goes through polars; JSON Lines and CSV
//! stream as they come.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use polars::prelude::*;

use super::error::WriteError;
use super::read::{Format, detect_format};
use crate::engine::rules::Statistic;
use crate::engine::walk::record::DecisionRecord;
use crate::simulate::{SimConfig, SimRecords};

/// Writes a frame in the format its extension names (the same extensions the loader reads). The file
/// is built in memory and written at once, so a failed write never leaves half a file unreported.
pub fn write_frame(frame: &mut DataFrame, path: &Path) -> Result<(), WriteError> {
    use std::io::Write;

    use crate::data::read::{Format, detect_format};
    let shown = path.display().to_string();
    let (format, gzip) = detect_format(path).map_err(|e| WriteError::new(e.file, e.message))?;
    let mut bytes: Vec<u8> = Vec::new();
    let result = match format {
        Format::Csv => CsvWriter::new(&mut bytes).finish(frame),
        Format::Tsv => CsvWriter::new(&mut bytes)
            .with_separator(b'\t')
            .finish(frame),
        Format::JsonLines => JsonWriter::new(&mut bytes)
            .with_json_format(JsonFormat::JsonLines)
            .finish(frame),
        Format::JsonArray => JsonWriter::new(&mut bytes)
            .with_json_format(JsonFormat::Json)
            .finish(frame),
        Format::Parquet => ParquetWriter::new(&mut bytes).finish(frame).map(|_| ()),
    };
    result.map_err(|e| WriteError::new(&shown, format!("cannot encode the records: {e}")))?;
    if gzip {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder
            .write_all(&bytes)
            .and_then(|_| encoder.finish())
            .map(|b| bytes = b)
            .map_err(|e| WriteError::new(&shown, format!("cannot compress: {e}")))?;
    }
    write_whole(path, &bytes)
        .map_err(|e| WriteError::new(&shown, format!("cannot write the file: {e}")))
}

/// Writes `bytes` to `path` whole or not at all: into a hidden file beside it, renamed over it once
/// written, so that a failure (a full disk) neither leaves a cut file under the name asked for nor
/// destroys the file that was there (a saved model, the records of an earlier run). A link keeps
/// pointing where it did: the file it names is the one replaced, with its permissions. What is no
/// regular file (a pipe, /dev/stdout, a link to nothing yet) and a folder where no file can be
/// made beside the target (a writable file in a read-only folder) are written in place, as before.
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let existing = std::fs::metadata(path);
    let in_place = match &existing {
        Ok(meta) => !meta.is_file(),
        // A link whose target does not exist yet is written through, creating the target.
        Err(_) => std::fs::symlink_metadata(path).is_ok(),
    };
    if in_place {
        return std::fs::write(path, bytes);
    }
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let partial = partial_path(&target);
    if let Err(error) = std::fs::write(&partial, bytes) {
        let _ = std::fs::remove_file(&partial);
        return match error.kind() {
            std::io::ErrorKind::PermissionDenied => std::fs::write(path, bytes),
            _ => Err(error),
        };
    }
    let written = File::open(&partial)
        .and_then(|f| f.sync_all())
        .and_then(|()| replace_with(&partial, &target));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

/// Gives the written `partial` file `target`'s name, and the permissions `target` had (a file
/// kept private stays so): the last step of every whole write ([`write_whole`], [`RecordWriter`]).
fn replace_with(partial: &Path, target: &Path) -> std::io::Result<()> {
    if let Ok(meta) = std::fs::metadata(target) {
        std::fs::set_permissions(partial, meta.permissions())?;
    }
    std::fs::rename(partial, target)
}

/// Whether two paths name one file: the same path once resolved (`./a/../b`, a symbolic link), or
/// the same file under two names (a hard link: one device and inode). Paths that do not exist yet
/// name no file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (resolved(a), resolved(b)) {
        (Some(x), Some(y)) if x == y => true,
        _ => match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.is_file() && x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        },
    }
}

/// A path resolved: itself canonical when it exists, else its folder's canonical path and its name
/// (so that `out.csv` and `./out.csv`, not written yet, are one).
fn resolved(path: &Path) -> Option<std::path::PathBuf> {
    if let Ok(path) = path.canonicalize() {
        return Some(path);
    }
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.canonicalize().ok()?,
        _ => std::env::current_dir().ok()?,
    };
    Some(folder.join(path.file_name()?))
}

/// Refuses an output (with its flag) that cannot be written where it is named: a folder, or a file
/// in a folder that does not exist. A command with two outputs checks both before writing either,
/// so that one is not left without the other.
pub fn refuse_unwritable(outputs: &[(&str, &Path)]) -> Result<(), WriteError> {
    for (flag, path) in outputs {
        let file = path.display().to_string();
        if path.is_dir() {
            return Err(WriteError::new(
                &file,
                format!("{flag} names a folder; give a file's path"),
            ));
        }
        if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty())
            && !folder.is_dir()
        {
            return Err(WriteError::new(
                &file,
                format!(
                    "{flag}: the folder {} does not exist (nothing was written)",
                    folder.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses outputs (each with its flag) that would write over a file the command reads (`inputs`;
/// a folder stands for the files in it) or over another output: the input is often the only copy
/// of a run, and of two outputs on one file one would be lost without a word.
pub fn refuse_overwriting(
    outputs: &[(&str, &Path)],
    inputs: &[std::path::PathBuf],
) -> Result<(), WriteError> {
    let mut read: Vec<std::path::PathBuf> = Vec::new();
    for input in inputs {
        read.push(input.clone());
        if input.is_dir() {
            read.extend(
                super::import::expand_paths(std::slice::from_ref(input)).unwrap_or_default(),
            );
        }
    }
    for (i, &(flag, path)) in outputs.iter().enumerate() {
        let shown = path.display().to_string();
        if let Some(input) = read.iter().find(|input| same_file(path, input)) {
            return Err(WriteError::new(
                &shown,
                format!(
                    "{flag} names a file this command reads ({}); write it to another file",
                    input.display()
                ),
            ));
        }
        let earlier = outputs[..i]
            .iter()
            .find(|(_, other)| same_file(path, other));
        if let Some((other_flag, _)) = earlier {
            return Err(WriteError::new(
                &shown,
                format!("{other_flag} and {flag} name the same file; give each its own"),
            ));
        }
    }
    Ok(())
}

/// Reads `files` as `format` (a folder as the files in it) and writes their canonical rows, one
/// table, to `path`; returns the rows and how many files and run folders (read whole) were read.
/// The caller has refused a `path` that is one of them ([`refuse_overwriting`], before reading).
pub fn write_imported(
    files: &[std::path::PathBuf],
    format: super::import::ImportFormat,
    settings: &super::import::ImportSettings<'_>,
    path: &Path,
) -> Result<(usize, usize, usize), WriteError> {
    let out = path.display().to_string();
    let mut rows = Vec::new();
    let files =
        super::import::expand_paths(files).map_err(|e| WriteError::new(&out, e.to_string()))?;
    for file in &files {
        let imported = super::import::import_file(file, format, settings)
            .map_err(|e| WriteError::new(&out, e.to_string()))?;
        rows.extend(imported.rows);
    }
    // One table: a column some file lacks (cost, seconds, group) is empty on its rows.
    let frame = super::import::canonical_frame(&rows).and_then(|frame| typed_for(frame, path));
    let written = write_built(frame, path)?;
    let folders = files.iter().filter(|file| file.is_dir()).count();
    Ok((written, files.len() - folders, folders))
}

/// The canonical table with its numbers as numbers for a format that has types (JSON, JSON Lines,
/// Parquet): run, outcome, cost and seconds were written as text there ("run": "2"), which a
/// reader such as pandas takes as strings. The text is each number's shortest exact form, so the
/// cast keeps its bits; CSV and TSV keep the text as it is.
fn typed_for(mut frame: DataFrame, path: &Path) -> PolarsResult<DataFrame> {
    if !matches!(
        detect_format(path),
        Ok((Format::JsonLines | Format::JsonArray | Format::Parquet, _))
    ) {
        return Ok(frame);
    }
    for (name, dtype) in [
        ("run", DataType::UInt32),
        ("outcome", DataType::Float64),
        ("cost_usd", DataType::Float64),
        ("seconds", DataType::Float64),
    ] {
        if let Ok(column) = frame.column(name) {
            let typed = column.strict_cast(&dtype)?;
            frame.with_column(typed)?;
        }
    }
    Ok(frame)
}

/// Writes the per-trajectory halting records of `pareval early --records` in the format the extension
/// names; returns the rows written.
pub fn write_halting_records(
    records: &[crate::early::evaluate::HaltRecord],
    path: &Path,
) -> Result<usize, WriteError> {
    let text = |f: fn(&crate::early::evaluate::HaltRecord) -> String| {
        records.iter().map(f).collect::<Vec<String>>()
    };
    let int = |f: fn(&crate::early::evaluate::HaltRecord) -> Option<usize>| {
        records
            .iter()
            .map(|r| f(r).map(|v| v as i64))
            .collect::<Vec<Option<i64>>>()
    };
    let number = |f: fn(&crate::early::evaluate::HaltRecord) -> Option<f64>| {
        records.iter().map(f).collect::<Vec<Option<f64>>>()
    };
    let columns: Vec<Column> = vec![
        Column::new("tau".into(), number(|r| r.tau)),
        Column::new("target_precision".into(), number(|r| r.target_precision)),
        // +∞ (no threshold reaches P: the model never fires) is written as empty.
        Column::new(
            "tau_success".into(),
            number(|r| Some(r.tau_success).filter(|t| t.is_finite())),
        ),
        Column::new(
            "tau_failure".into(),
            number(|r| Some(r.tau_failure).filter(|t| t.is_finite())),
        ),
        Column::new("system".into(), text(|r| r.system.clone())),
        Column::new("task".into(), text(|r| r.task.clone())),
        Column::new("run".into(), text(|r| r.run.clone())),
        Column::new("steps".into(), int(|r| Some(r.steps))),
        Column::new("halted_at".into(), int(|r| r.halted_at)),
        Column::new(
            "model".into(),
            records
                .iter()
                .map(|r| r.model.map(str::to_string))
                .collect::<Vec<Option<String>>>(),
        ),
        Column::new("probability".into(), number(|r| r.probability)),
        Column::new("predicted".into(), number(|r| Some(r.predicted))),
        Column::new("outcome".into(), number(|r| Some(r.outcome))),
        Column::new("steps_saved".into(), int(|r| Some(r.steps_saved))),
        Column::new("tokens_saved".into(), number(|r| r.tokens_saved)),
    ];
    write_columns(columns, path)
}

/// Writes the per-prefix probabilities of `pareval early --predictions` in the format the extension
/// names; returns the rows written.
pub fn write_predictions(
    rows: &[crate::early::evaluate::PredictionRow<'_>],
    path: &Path,
) -> Result<usize, WriteError> {
    use crate::early::evaluate::PredictionRow;
    let text =
        |f: for<'r> fn(&'r PredictionRow<'_>) -> &'r str| rows.iter().map(f).collect::<Vec<&str>>();
    let int =
        |f: fn(&PredictionRow<'_>) -> usize| rows.iter().map(|r| f(r) as i64).collect::<Vec<i64>>();
    let number = |f: fn(&PredictionRow<'_>) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
    let columns: Vec<Column> = vec![
        Column::new("fold".into(), text(|r| r.fold)),
        Column::new("system".into(), text(|r| r.system)),
        Column::new("task".into(), text(|r| r.task)),
        Column::new("run".into(), text(|r| r.run)),
        Column::new("step".into(), int(|r| r.step)),
        Column::new("steps".into(), int(|r| r.steps)),
        Column::new("p_success".into(), number(|r| r.success)),
        Column::new("p_failure".into(), number(|r| r.failure)),
        Column::new("outcome".into(), number(|r| r.outcome)),
    ];
    write_columns(columns, path)
}

/// Writes a plan of `pareval plan --out` in the format the extension names; returns the rows written.
/// The plan's task ids in plan order, one a line, for harness options that take a list of ids
/// (`inspect eval --sample-id`, the SWE-bench harness's `--instance_ids`, Harbor's task filters). An id
/// with a line break cannot be listed that way and is refused.
pub fn write_plan_ids(plan: &crate::plan::Plan, path: &Path) -> Result<usize, WriteError> {
    let file = path.display().to_string();
    let mut text = String::new();
    for row in &plan.tasks {
        if row.task.contains(['\n', '\r']) {
            return Err(WriteError::new(
                &file,
                format!(
                    "task '{}' (plan position {}) holds a line break, so the ids cannot be listed one a line for a harness",
                    row.task.escape_debug(),
                    row.position
                ),
            ));
        }
        text.push_str(&row.task);
        text.push('\n');
    }
    write_whole(path, text.as_bytes())
        .map_err(|e| WriteError::new(&file, format!("cannot write the ids: {e}")))?;
    Ok(plan.tasks.len())
}

pub fn write_plan(plan: &crate::plan::Plan, path: &Path) -> Result<usize, WriteError> {
    let rows = &plan.tasks;
    let n = rows.len();
    let columns: Vec<Column> = vec![
        Column::new(
            "position".into(),
            rows.iter().map(|r| r.position as i64).collect::<Vec<i64>>(),
        ),
        Column::new(
            "task".into(),
            rows.iter().map(|r| r.task.as_str()).collect::<Vec<&str>>(),
        ),
        Column::new(
            "group".into(),
            rows.iter().map(|r| r.group.as_str()).collect::<Vec<&str>>(),
        ),
        Column::new(
            "cost_usd".into(),
            rows.iter()
                .map(|r| r.cost_usd)
                .collect::<Vec<Option<f64>>>(),
        ),
        Column::new(
            "seconds".into(),
            rows.iter().map(|r| r.seconds).collect::<Vec<Option<f64>>>(),
        ),
        Column::new("order".into(), vec![plan.order.name(); n]),
        Column::new("seed".into(), vec![plan.seed; n]),
        Column::new(
            "group_column".into(),
            vec![plan.group_column.as_deref().unwrap_or("none"); n],
        ),
    ];
    write_columns(columns, path)
}

/// Builds a frame from equal-length columns and writes it to `path`; returns the rows written.
fn write_columns(columns: Vec<Column>, path: &Path) -> Result<usize, WriteError> {
    write_built(DataFrame::new_infer_height(columns), path)
}

/// Writes a frame just built to `path` (a failed build is reported for that file); returns the rows.
fn write_built(frame: PolarsResult<DataFrame>, path: &Path) -> Result<usize, WriteError> {
    let mut frame = frame.map_err(|e| {
        WriteError::new(
            path.display().to_string(),
            format!("cannot build the records: {e}"),
        )
    })?;
    write_frame(&mut frame, path)?;
    Ok(frame.height())
}

/// Writes simulated records to `path` in the format its extension names; returns the rows written.
pub fn write_simulated(
    records: &SimRecords,
    config: &SimConfig,
    path: &Path,
) -> Result<usize, WriteError> {
    write_built(simulated_frame(records, config), path)
}

/// Simulated records as a frame with only the columns the config asked for.
fn simulated_frame(records: &SimRecords, config: &SimConfig) -> PolarsResult<DataFrame> {
    let mut columns: Vec<Column> = vec![
        Column::new("system".into(), &records.system),
        Column::new("task".into(), &records.task),
        Column::new("outcome".into(), &records.outcome),
    ];
    if config.groups > 0 {
        columns.push(Column::new("group".into(), &records.group));
    }
    if config.cost {
        columns.push(Column::new("cost_usd".into(), &records.cost_usd));
    }
    if config.seconds {
        columns.push(Column::new("seconds".into(), &records.seconds));
    }
    if config.runs > 1 {
        columns.push(Column::new("run".into(), &records.run));
    }
    if config.benchmarks > 1 {
        columns.push(Column::new("benchmark".into(), &records.benchmark));
    }
    if config.missing > 0.0 {
        columns.push(Column::new("status".into(), &records.status));
    }
    if config.attributes {
        columns.push(Column::new("scaffold".into(), &records.scaffold));
        columns.push(Column::new("model".into(), &records.model));
        columns.push(Column::new("submitted".into(), &records.submitted));
    }
    DataFrame::new_infer_height(columns)
}

/// One flat cell of a decision record, for CSV and Parquet.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Text(Option<String>),
    Number(Option<f64>),
    Int(Option<i64>),
    Bool(Option<bool>),
}

/// A decision record as named flat cells; nested parts (the coverage table) become JSON text.
fn flatten(record: &DecisionRecord) -> Vec<(&'static str, Cell)> {
    let (kind, r_promote, r_reject, se, p_promote, p_reject, t) = match record.statistic {
        Statistic::None => ("none", None, None, None, None, None, None),
        Statistic::Bootstrap {
            r_promote,
            r_reject,
            ..
        } => (
            "bootstrap",
            Some(r_promote),
            Some(r_reject),
            None,
            None,
            None,
            None,
        ),
        Statistic::PairedNormal {
            se,
            p_promote,
            p_reject,
        } => (
            "paired_normal",
            None,
            None,
            Some(se),
            Some(p_promote),
            Some(p_reject),
            None,
        ),
        Statistic::Serfling { t } => ("serfling", None, None, None, None, None, Some(t)),
        // The anytime p-values fill the p columns; the wealths have their own. The kind is the
        // JSON record's (`statistic.kind`).
        Statistic::Anytime {
            p_promote,
            p_reject,
            ..
        }
        | Statistic::Stratified {
            p_promote,
            p_reject,
            ..
        } => (
            if matches!(record.statistic, Statistic::Stratified { .. }) {
                "stratified"
            } else {
                "anytime"
            },
            None,
            None,
            None,
            Some(p_promote),
            Some(p_reject),
            None,
        ),
    };
    // §9a's e-values exp(Λ) fill the wealth columns, and Λ has its own.
    let (wealth_promote, wealth_reject) = match record.statistic.anytime_evidence() {
        Some((up, down, _, _)) => (Some(up), Some(down)),
        None => (None, None),
    };
    let (log_promote, log_reject) = match record.statistic {
        Statistic::Stratified {
            log_promote,
            log_reject,
            ..
        } => (Some(log_promote), Some(log_reject)),
        _ => (None, None),
    };
    let text = |s: &str| Cell::Text(Some(s.to_string()));
    vec![
        ("tested", text(&record.tested)),
        ("baseline", text(&record.baseline)),
        ("threshold_pp", Cell::Number(Some(record.threshold_pp))),
        ("rule", text(record.rule)),
        ("tail", Cell::Number(record.tail)),
        (
            "bootstrap_mode",
            Cell::Text(record.bootstrap_mode.map(str::to_string)),
        ),
        (
            "bootstrap_resamples",
            Cell::Int(record.bootstrap_resamples.map(i64::from)),
        ),
        ("coverage_gate", Cell::Bool(Some(record.coverage_gate))),
        ("coverage_share", Cell::Number(Some(record.coverage_share))),
        ("degenerate", text(record.degenerate)),
        ("bet_cap", Cell::Number(record.bet_cap)),
        // Every field of the JSON record has its column (§9a's bet scale and a family's verdict
        // were only in JSON and Parquet's reason text).
        (
            "bet_scale_min",
            Cell::Number(record.bet_scale.map(|[min, _]| min)),
        ),
        (
            "bet_scale_max",
            Cell::Number(record.bet_scale.map(|[_, max]| max)),
        ),
        ("monitor", text(record.monitor)),
        ("looks", text(record.looks)),
        ("validity", text(record.validity)),
        (
            "construction",
            Cell::Text(record.construction.map(str::to_string)),
        ),
        ("decided_at", Cell::Int(record.decided_at.map(i64::from))),
        ("family", text(record.family)),
        ("adjust", text(record.adjust)),
        ("family_size", Cell::Int(record.family_size.map(i64::from))),
        ("family_evidence", Cell::Number(record.family_evidence)),
        ("order", text(record.order)),
        ("order_index", Cell::Int(record.order_index.map(i64::from))),
        ("seed", Cell::Int(Some(record.seed as i64))),
        ("budget_measure", text(record.budget_measure)),
        ("budget", Cell::Number(Some(record.budget))),
        ("observed", Cell::Int(Some(i64::from(record.observed)))),
        ("total", Cell::Int(Some(i64::from(record.total)))),
        ("coverage", text(record.coverage.name())),
        ("missing_groups", text(&record.missing_groups.join(";"))),
        (
            "coverage_groups",
            Cell::Text(serde_json::to_string(&record.coverage_groups).ok()),
        ),
        ("estimate", Cell::Number(Some(record.estimate))),
        ("statistic", text(kind)),
        ("r_promote", Cell::Number(r_promote)),
        ("r_reject", Cell::Number(r_reject)),
        ("se", Cell::Number(se)),
        ("p_promote", Cell::Number(p_promote)),
        ("p_reject", Cell::Number(p_reject)),
        ("t", Cell::Number(t)),
        ("wealth_promote", Cell::Number(wealth_promote)),
        ("lambda_promote", Cell::Number(log_promote)),
        ("lambda_reject", Cell::Number(log_reject)),
        ("wealth_reject", Cell::Number(wealth_reject)),
        ("action", text(record.action.name())),
        (
            "reason_code",
            Cell::Text(
                serde_json::to_value(record.reason_code)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string)),
            ),
        ),
        ("reason", text(&record.reason)),
        (
            "completed",
            Cell::Text(record.completed.map(|a| a.name().to_string())),
        ),
        ("delta_full", Cell::Number(record.delta_full)),
        ("agrees", Cell::Bool(record.agrees)),
        (
            "input_files",
            text(
                &record
                    .provenance
                    .files
                    .iter()
                    .map(|f| format!("{}:{}", f.path, f.sha256))
                    .collect::<Vec<_>>()
                    .join(";"),
            ),
        ),
        ("program", text(&record.provenance.program)),
    ]
}

fn csv_text(cell: &Cell) -> String {
    let quote = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    match cell {
        Cell::Text(Some(s)) => quote(s),
        Cell::Number(Some(x)) => x.to_string(),
        Cell::Int(Some(x)) => x.to_string(),
        Cell::Bool(Some(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// Writes decision records as they arrive: JSON Lines and CSV stream to the file; Parquet collects the
/// columns and writes them at `finish` (so it holds every record in memory). The records go to a
/// hidden file beside the one named, which takes its name only at `finish`: a replay that fails
/// (bad input found after the first records, a `--pairs-at` off the grid) left a whole-looking
/// records file behind, or emptied the one that was there. Dropped unfinished, the writer removes
/// its file.
pub struct RecordWriter {
    sink: Sink,
    partial: std::path::PathBuf,
    target: std::path::PathBuf,
    finished: bool,
}

/// The hidden file beside `target` that records are written to until they are whole: the same
/// folder (so the rename is not a copy) and the same extension (Parquet is written by its name).
fn partial_path(target: &Path) -> std::path::PathBuf {
    let name = target
        .file_name()
        .map_or_else(|| "records".into(), |n| n.to_string_lossy().into_owned());
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name.as_str(), ""));
    target.with_file_name(format!(
        ".{stem}.pareval-partial-{}.{extension}",
        std::process::id()
    ))
}

impl Drop for RecordWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

enum Sink {
    JsonLines(BufWriter<File>, String),
    Csv {
        out: BufWriter<File>,
        file: String,
        header_written: bool,
    },
    Parquet {
        path: std::path::PathBuf,
        columns: Vec<(&'static str, Vec<Cell>)>,
    },
    /// Finished: what it held is written.
    Done,
}

impl RecordWriter {
    pub fn create(path: &Path) -> Result<Self, WriteError> {
        let shown = path.display().to_string();
        let (format, gzip) = detect_format(path).map_err(|e| WriteError::new(e.file, e.message))?;
        if gzip {
            return Err(WriteError::new(
                &shown,
                "decision records are written uncompressed (.jsonl, .csv or .parquet)",
            ));
        }
        // A link keeps pointing where it did: the file it names is the one replaced.
        let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let partial = partial_path(&target);
        let create = || {
            File::create(&partial)
                .map(BufWriter::new)
                .map_err(|e| WriteError::new(&shown, format!("cannot create the file: {e}")))
        };
        let sink = match format {
            Format::JsonLines => Sink::JsonLines(create()?, shown),
            Format::Csv => Sink::Csv {
                out: create()?,
                file: shown,
                header_written: false,
            },
            Format::Parquet => Sink::Parquet {
                path: partial.clone(),
                columns: Vec::new(),
            },
            Format::Tsv | Format::JsonArray => {
                return Err(WriteError::new(
                    &shown,
                    "decision records are written as .jsonl, .csv or .parquet",
                ));
            }
        };
        Ok(RecordWriter {
            sink,
            partial,
            target,
            finished: false,
        })
    }

    pub fn write(&mut self, records: &[DecisionRecord]) -> Result<(), WriteError> {
        match &mut self.sink {
            Sink::Done => {}
            Sink::JsonLines(out, file) => {
                for record in records {
                    serde_json::to_writer(&mut *out, record)
                        .map_err(|e| WriteError::new(file.as_str(), e.to_string()))?;
                    out.write_all(b"\n")
                        .map_err(|e| WriteError::new(file.as_str(), e.to_string()))?;
                }
            }
            Sink::Csv {
                out,
                file,
                header_written,
            } => {
                for record in records {
                    let cells = flatten(record);
                    if !*header_written {
                        let header: Vec<&str> = cells.iter().map(|(name, _)| *name).collect();
                        writeln!(out, "{}", header.join(","))
                            .map_err(|e| WriteError::new(file.as_str(), e.to_string()))?;
                        *header_written = true;
                    }
                    let line: Vec<String> = cells.iter().map(|(_, cell)| csv_text(cell)).collect();
                    writeln!(out, "{}", line.join(","))
                        .map_err(|e| WriteError::new(file.as_str(), e.to_string()))?;
                }
            }
            Sink::Parquet { columns, .. } => {
                for record in records {
                    let cells = flatten(record);
                    if columns.is_empty() {
                        columns.extend(cells.iter().map(|(name, _)| (*name, Vec::new())));
                    }
                    for ((_, column), (_, cell)) in columns.iter_mut().zip(cells) {
                        column.push(cell);
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes what is held and gives the records their file's name.
    pub fn finish(mut self) -> Result<(), WriteError> {
        let sink = std::mem::replace(&mut self.sink, Sink::Done);
        // Named as the file asked for (the hidden one is never the user's).
        Self::complete(sink)
            .map_err(|e| WriteError::new(self.target.display().to_string(), e.message))?;
        replace_with(&self.partial, &self.target).map_err(|e| {
            WriteError::new(
                self.target.display().to_string(),
                format!("cannot write the file: {e}"),
            )
        })?;
        self.finished = true;
        Ok(())
    }

    fn complete(sink: Sink) -> Result<(), WriteError> {
        match sink {
            Sink::Done => Ok(()),
            Sink::JsonLines(mut out, file) | Sink::Csv { mut out, file, .. } => out
                .flush()
                .map_err(|e| WriteError::new(file.as_str(), e.to_string())),
            Sink::Parquet { path, columns } => {
                let series: Vec<Column> = columns
                    .into_iter()
                    .map(|(name, cells)| match cells.first() {
                        Some(Cell::Number(_)) => Column::new(
                            name.into(),
                            cells
                                .iter()
                                .map(|c| if let Cell::Number(x) = c { *x } else { None })
                                .collect::<Vec<_>>(),
                        ),
                        Some(Cell::Int(_)) => Column::new(
                            name.into(),
                            cells
                                .iter()
                                .map(|c| if let Cell::Int(x) = c { *x } else { None })
                                .collect::<Vec<_>>(),
                        ),
                        Some(Cell::Bool(_)) => Column::new(
                            name.into(),
                            cells
                                .iter()
                                .map(|c| if let Cell::Bool(x) = c { *x } else { None })
                                .collect::<Vec<_>>(),
                        ),
                        _ => Column::new(
                            name.into(),
                            cells
                                .into_iter()
                                .map(|c| if let Cell::Text(x) = c { x } else { None })
                                .collect::<Vec<_>>(),
                        ),
                    })
                    .collect();
                let mut frame = DataFrame::new_infer_height(series)
                    .map_err(|e| WriteError::new(path.display().to_string(), e.to_string()))?;
                write_frame(&mut frame, &path)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failed write (here the hidden file cannot be made; a full disk in practice) leaves the
    /// file that was there as it was, where `std::fs::write` had cut it, and leaves nothing beside.
    #[test]
    fn a_failed_whole_write_keeps_the_old_file() {
        let dir = std::env::temp_dir().join(format!("pareval-write-whole-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let target = dir.join("saved.model");
        std::fs::write(&target, "the old model").expect("old");
        write_whole(&target, b"a new model").expect("written");
        assert_eq!(
            std::fs::read_to_string(&target).expect("read"),
            "a new model"
        );
        let blocker = partial_path(&std::fs::canonicalize(&target).expect("canonical"));
        std::fs::create_dir(&blocker).expect("a folder where the hidden file goes");
        assert!(write_whole(&target, b"cut sh").is_err());
        assert_eq!(
            std::fs::read_to_string(&target).expect("read"),
            "a new model"
        );
        std::fs::remove_dir(&blocker).expect("blocker");
        let left: Vec<_> = std::fs::read_dir(&dir).expect("list").collect();
        assert_eq!(left.len(), 1, "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The file replaced keeps its permissions, and a link to a file not made yet is written
    /// through (renamed over, the link became a plain file).
    #[test]
    fn a_whole_write_keeps_permissions_and_writes_through_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("pareval-write-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let private = dir.join("private.csv");
        std::fs::write(&private, "old").expect("old");
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).expect("mode");
        write_whole(&private, b"new").expect("written");
        let mode = std::fs::metadata(&private)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // Decision records, streamed to their hidden file, replace it the same way.
        let records = dir.join("records.jsonl");
        std::fs::write(&records, "").expect("old records");
        std::fs::set_permissions(&records, std::fs::Permissions::from_mode(0o600)).expect("mode");
        RecordWriter::create(&records)
            .and_then(RecordWriter::finish)
            .expect("records");
        let mode = std::fs::metadata(&records)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let link = dir.join("link.csv");
        std::os::unix::fs::symlink(dir.join("target.csv"), &link).expect("link");
        write_whole(&link, b"through").expect("written");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("target.csv")).expect("target"),
            "through"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
