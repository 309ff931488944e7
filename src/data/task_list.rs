//! Task lists for `pareval plan`: a table with a `task` column and optional `group` (or another group
//! column), `cost_usd` and `seconds` columns, one row per task; or a records file (it has `system` and
//! `outcome` columns), whose tasks, group columns and mean cost and seconds per task are taken. A
//! duplicate task, a missing group column or a cost that is not a number ≥ 0 is refused with the file,
//! line and value.

use std::path::Path;

use super::error::{LoadError, Offenders, quote};
use super::read::read_table;
use super::side::SideTable;
use crate::dataset::{Dataset, NO_GROUP};

/// The tasks to plan, in the file's order.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskList {
    pub file: String,
    pub sha256: String,
    pub tasks: Vec<String>,
    /// The group column used (None: every task in one group) and each task's label index.
    pub group_column: Option<String>,
    pub labels: Vec<String>,
    pub label_of: Vec<u32>,
    /// Per task, NaN where unknown; None when the file has no such column.
    pub cost: Option<Vec<f64>>,
    pub seconds: Option<Vec<f64>>,
    /// Whether the tasks were taken from a records file.
    pub from_records: bool,
}

/// Reads a task list or takes the tasks of a records file; `group_column` as in the replay (absent:
/// `group` when present; "none": one group).
pub fn load_task_list(path: &Path, group_column: Option<&str>) -> Result<TaskList, LoadError> {
    // A folder, or a harness's own result file (the baseline's last full run, say), is records.
    let native = path.is_dir()
        || (super::import::may_be_native(path)
            && super::import::import_recognised(path).is_ok_and(|found| found.is_some()));
    if native {
        let dataset = super::load(&[path.to_path_buf()], &super::LoadOptions::default())?;
        let hashes: String = dataset.inputs.iter().map(|f| f.sha256.as_str()).collect();
        let sha256 = match dataset.inputs.as_slice() {
            [one] => one.sha256.clone(),
            _ => super::read::sha256_hex(hashes.as_bytes()),
        };
        return from_records(&dataset, group_column, &path.display().to_string(), &sha256);
    }
    let table = read_table(path)?;
    let has = |name: &str| table.frame.column(name).is_ok();
    if has("system") && has("outcome") {
        let dataset = super::load(&[path.to_path_buf()], &super::LoadOptions::default())?;
        return from_records(&dataset, group_column, &table.file, &table.sha256);
    }
    let side = SideTable::read(&table, "task")?;
    let groups = side.groups(group_column, &table, "the task list")?;
    let numbers = |name: &str| -> Result<Option<Vec<f64>>, LoadError> {
        let Some(cells) = side.column(name) else {
            return Ok(None);
        };
        let mut bad = Offenders::default();
        let values = cells
            .iter()
            .enumerate()
            .map(|(row, cell)| match cell {
                None => f64::NAN,
                Some(text) => match text.trim().parse::<f64>() {
                    Ok(x) if x.is_finite() && x >= 0.0 => x,
                    _ => {
                        bad.push(|| format!("{} on {}", quote(text), side.positions[row]));
                        f64::NAN
                    }
                },
            })
            .collect();
        bad.into_result(
            &table.file,
            &format!("column '{name}' must hold numbers ≥ 0"),
        )?;
        Ok(Some(values))
    };
    Ok(TaskList {
        file: table.file.clone(),
        sha256: table.sha256.clone(),
        tasks: side.keys.clone(),
        group_column: groups.column,
        labels: groups.labels,
        label_of: groups.label_of,
        cost: numbers("cost_usd")?,
        seconds: numbers("seconds")?,
        from_records: false,
    })
}

fn from_records(
    dataset: &Dataset,
    group_column: Option<&str>,
    file: &str,
    sha256: &str,
) -> Result<TaskList, LoadError> {
    let column = dataset
        .resolve_group_column(group_column)
        .map_err(|e| LoadError::new(file, e.to_string()))?;
    let (labels, label_of) = match column.as_deref().and_then(|c| dataset.group_column(c)) {
        Some(c) => (c.labels.clone(), c.of_task.clone()),
        None => (vec![NO_GROUP.to_string()], vec![0; dataset.n_tasks()]),
    };
    // A task's cost is the mean of the systems' run-averaged costs (what one more system would spend),
    // summed over the systems by name so that the bits do not follow the files' row order.
    let systems = dataset.systems_by_name();
    let per_task = |matrix: &Option<Vec<f64>>| {
        matrix.as_ref().map(|m| {
            (0..dataset.n_tasks())
                .map(|t| {
                    let known: Vec<f64> = systems
                        .iter()
                        .map(|&s| m[s * dataset.n_tasks() + t])
                        .filter(|x| !x.is_nan())
                        .collect();
                    if known.is_empty() {
                        f64::NAN
                    } else {
                        known.iter().sum::<f64>() / known.len() as f64
                    }
                })
                .collect()
        })
    };
    Ok(TaskList {
        file: file.to_string(),
        sha256: sha256.to_string(),
        tasks: dataset.tasks.clone(),
        group_column: column,
        labels,
        label_of,
        cost: per_task(&dataset.cost),
        seconds: per_task(&dataset.seconds),
        from_records: true,
    })
}
