//! Side tables (a task table or a system table): one row per key, every other column read as text.
//! This module checks the key column (present, non-empty, unique) and hands out the attribute
//! columns; the joins themselves are in `assemble`.

use std::collections::HashMap;

use super::columns::{Cell, cell_text, column_list, for_each_cell};
use super::error::{LoadError, Offenders, Pos, quote};
use super::read::RawTable;

/// The groups of a task table: the group column used (None: one group), the sorted labels and each
/// row's label index.
pub struct TaskGroups {
    pub column: Option<String>,
    pub labels: Vec<String>,
    pub label_of: Vec<u32>,
}

pub struct SideTable {
    pub keys: Vec<String>,
    pub positions: Vec<Pos>,
    columns: Vec<(String, Vec<Option<String>>)>,
}

impl SideTable {
    /// Reads a side table keyed by `key` (`task` or `system`).
    pub fn read(table: &RawTable, key: &str) -> Result<Self, LoadError> {
        let file = &table.file;
        let frame = &table.frame;
        let key_column = frame.column(key).map_err(|_| {
            LoadError::new(
                file,
                format!(
                    "missing required column '{key}' (columns found: {})",
                    column_list(frame)
                ),
            )
        })?;
        let positions: Vec<Pos> = (0..frame.height())
            .map(|row| table.positions.at(row))
            .collect();
        let mut keys = Vec::with_capacity(frame.height());
        let mut empty = Offenders::default();
        for_each_cell(key_column, file, |row, cell| {
            let text = match cell {
                Cell::Null => String::new(),
                Cell::Text(text) => text.to_string(),
                other => cell_text(other),
            };
            if text.trim().is_empty() {
                empty.push(|| positions[row].to_string());
            }
            keys.push(text);
        })?;
        empty.into_result_on(file, &format!("column '{key}' is empty"))?;
        let mut first: HashMap<&str, usize> = HashMap::new();
        let mut duplicates = Offenders::default();
        for (row, name) in keys.iter().enumerate() {
            if let Some(&earlier) = first.get(name.as_str()) {
                duplicates.push(|| {
                    format!(
                        "{key} {} on {} and {}",
                        quote(name),
                        positions[earlier],
                        positions[row]
                    )
                });
            } else {
                first.insert(name, row);
            }
        }
        duplicates.into_result(file, &format!("a {key} may have one row only"))?;
        let mut columns = Vec::new();
        for column in frame.columns() {
            if column.name().as_str() == key {
                continue;
            }
            let mut values = Vec::with_capacity(frame.height());
            for_each_cell(column, file, |_, cell| {
                values.push(match cell {
                    Cell::Null => None,
                    Cell::Text(text) if text.trim().is_empty() => None,
                    Cell::Text(text) => Some(text.to_string()),
                    other => Some(cell_text(other)),
                });
            })?;
            columns.push((column.name().to_string(), values));
        }
        Ok(SideTable {
            keys,
            positions,
            columns,
        })
    }

    /// The values of one attribute column, by row.
    pub fn column(&self, name: &str) -> Option<&[Option<String>]> {
        self.columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// Puts the rows in the order of a `position` column (1 … N, each once; a plan from `pareval
    /// plan`), when there is one; otherwise the file's order stands.
    pub fn sort_by_position(&mut self, file: &str) -> Result<(), LoadError> {
        let Some(values) = self.column("position") else {
            return Ok(());
        };
        let n = self.keys.len();
        let mut at: Vec<Option<usize>> = vec![None; n];
        let mut bad = Offenders::default();
        for (row, value) in values.iter().enumerate() {
            let text = value.as_deref().unwrap_or("<empty>");
            let parsed = value
                .as_deref()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|p| (1..=n).contains(p));
            match parsed {
                // A position given twice names both lines: either may be the mistake.
                Some(p) => match at[p - 1] {
                    Some(first) => bad.push(|| {
                        format!(
                            "{} on {} (also on {})",
                            quote(text),
                            self.positions[row],
                            self.positions[first]
                        )
                    }),
                    None => at[p - 1] = Some(row),
                },
                None => bad.push(|| format!("{} on {}", quote(text), self.positions[row])),
            }
        }
        if !bad.is_empty() {
            // The positions no row holds point at where the slip is.
            let missing: Vec<String> = (1..=n)
                .filter(|&p| at[p - 1].is_none())
                .map(|p| p.to_string())
                .collect();
            let shown = missing.len().min(5);
            let rest = if missing.len() > shown {
                format!(" and {} more", missing.len() - shown)
            } else {
                String::new()
            };
            let problem = format!(
                "column 'position' must number the tasks 1 … {n}, each once (no row has {} {}{rest})",
                if missing.len() == 1 {
                    "position"
                } else {
                    "positions"
                },
                missing[..shown].join(", ")
            );
            bad.into_result(file, &problem)?;
        }
        let order: Vec<usize> = at.into_iter().flatten().collect();
        self.keys = order.iter().map(|&r| self.keys[r].clone()).collect();
        self.positions = order.iter().map(|&r| self.positions[r]).collect();
        for (_, column) in &mut self.columns {
            *column = order.iter().map(|&r| column[r].clone()).collect();
        }
        Ok(())
    }

    /// The task groups of a task table (a plan, a task list) under a group-column setting (absent:
    /// `group` when there is one; "none": one group): the column used, the sorted labels (tasks without
    /// a value share [`crate::dataset::no_group_label`]) and each row's label index. `what` names the table
    /// in the error for a missing column.
    pub fn groups(
        &self,
        group_column: Option<&str>,
        table: &RawTable,
        what: &str,
    ) -> Result<TaskGroups, LoadError> {
        let column = match group_column {
            Some(crate::dataset::ONE_GROUP) => None,
            Some(name) => Some(name.to_string()),
            None => self.column("group").map(|_| "group".to_string()),
        };
        let values: Vec<Option<String>> = match &column {
            Some(name) => self
                .column(name)
                .ok_or_else(|| {
                    LoadError::new(
                        &table.file,
                        format!(
                            "{what} has no column '{name}' (columns: {}; --group-col none for one group)",
                            column_list(&table.frame)
                        ),
                    )
                })?
                .to_vec(),
            None => vec![None; self.keys.len()],
        };
        let no_value = crate::dataset::no_group_label(values.iter().flatten().map(String::as_str));
        let text = |v: &Option<String>| v.clone().unwrap_or_else(|| no_value.clone());
        let mut labels: Vec<String> = values.iter().map(text).collect();
        labels.sort();
        labels.dedup();
        let label_of = values
            .iter()
            .map(|v| labels.binary_search(&text(v)).unwrap_or(0) as u32)
            .collect();
        Ok(TaskGroups {
            column,
            labels,
            label_of,
        })
    }

    /// The one value a column holds on every row (a plan's `order` and `seed`), with the line of its
    /// first row; None without the column. Rows that disagree, or a row left empty, are refused.
    pub fn single_value(
        &self,
        file: &str,
        name: &str,
    ) -> Result<Option<(String, String)>, LoadError> {
        let Some(values) = self.column(name) else {
            return Ok(None);
        };
        let Some((first, line)) = values
            .iter()
            .zip(&self.positions)
            .find_map(|(v, line)| v.clone().map(|v| (v, line.to_string())))
        else {
            return Ok(None);
        };
        for (value, at) in values.iter().zip(&self.positions) {
            if value.as_deref() != Some(first.as_str()) {
                return Err(LoadError::new(
                    file,
                    format!(
                        "column '{name}' must hold one value for the whole plan: {} on {at}, {} on {}",
                        quote(value.as_deref().unwrap_or("<empty>")),
                        quote(&first),
                        line
                    ),
                ));
            }
        }
        Ok(Some((first, line)))
    }

    /// Every attribute column, in file order.
    pub fn attributes(&self) -> impl Iterator<Item = (&str, &[Option<String>])> {
        self.columns.iter().map(|(n, v)| (n.as_str(), v.as_slice()))
    }
}

/// A planned task list for a live decision, with the plan file's hash for provenance.
pub struct Plan {
    pub plan: crate::engine::live::LivePlan,
    /// The plan's group column (None: one group).
    pub group_column: Option<String>,
    pub tasks: Vec<String>,
    pub sha256: String,
    /// The order the plan was drawn in (its `order` column; `file` when it has none) and its seed.
    pub order: crate::engine::OrderKind,
    /// Why the plan's rows are read as the order itself (`file`) when they are: no order column, or
    /// rows that are not the draw their order and seed name (see `crate::plan::not_its_draw`).
    pub order_note: Option<String>,
    pub seed: Option<u64>,
}

impl Plan {
    /// A note when the outcome files put planned tasks in other groups than the plan does (in a
    /// column of the plan's group column's name, holding two groups or more among them): the plan's
    /// groups are the ones read, as they were fixed before the run, and coverage follows them, so a
    /// disagreement is said, not passed over.
    pub fn group_disagreements(&self, dataset: &crate::dataset::Dataset) -> Option<String> {
        let name = self.group_column.as_deref()?;
        let column = dataset.group_column(name)?;
        let index = dataset.task_indices();
        // Files that put every planned task in one group (an Inspect log's group is its eval's
        // task) say nothing about the plan's groups.
        let mut recorded_labels = self
            .tasks
            .iter()
            .filter_map(|task| index.get(task.as_str()))
            .map(|&t| column.of_task[t]);
        let first_label = recorded_labels.next()?;
        if recorded_labels.all(|label| label == first_label) {
            return None;
        }
        let mut differing = self.tasks.iter().enumerate().filter_map(|(i, task)| {
            let t = *index.get(task.as_str())?;
            let planned = &self.plan.labels[self.plan.groups[i] as usize];
            let recorded = &column.labels[column.of_task[t] as usize];
            (planned != recorded).then_some((task, planned, recorded))
        });
        let (task, planned, recorded) = differing.next()?;
        let more = differing.count();
        Some(format!(
            "the plan's column '{name}' puts {} in other groups than the outcome files do (first '{task}': the plan's '{planned}', the files' '{recorded}'); the plan's groups are read (it fixed them before the run), and the coverage rule follows them",
            if more == 0 {
                "1 planned task".to_string()
            } else {
                format!("{} planned tasks", more + 1)
            }
        ))
    }
}

/// Reads a plan: a `task` column (one row per planned task) and, for coverage, the group column
/// `group_column` (default `group` when present; "none" for one group).
pub fn load_plan(path: &std::path::Path, group_column: Option<&str>) -> Result<Plan, LoadError> {
    let table = super::read::read_table(path)?;
    let mut side = SideTable::read(&table, "task")?;
    side.sort_by_position(&table.file)?;
    let groups = side.groups(group_column, &table, "the plan")?;
    let order = side.single_value(&table.file, "order")?;
    let (order, order_named) = match order {
        None => (crate::engine::OrderKind::File, false),
        Some((text, line)) => {
            // `pareval plan` writes cheap-first for the replay's cost order.
            let kind = match text.trim() {
                "cheap-first" => Ok(crate::engine::OrderKind::Cost),
                other => crate::engine::OrderKind::parse(other),
            };
            let kind = kind.map_err(|_| {
                LoadError::new(
                    &table.file,
                    format!(
                        "column 'order' on {line}: {} is not one of uniform, stratified, neyman, cheap-first, cost, pair-cost, file",
                        quote(&text)
                    ),
                )
            })?;
            (kind, true)
        }
    };
    let seed = match side.single_value(&table.file, "seed")? {
        None => None,
        Some((text, line)) => Some(text.trim().parse::<u64>().map_err(|_| {
            LoadError::new(
                &table.file,
                format!(
                    "column 'seed' on {line}: {} is not a whole number",
                    quote(&text)
                ),
            )
        })?),
    };
    Ok(Plan {
        order,
        order_note: (!order_named)
            .then(|| "the plan has no order column: its rows are the order".to_string()),
        seed,
        group_column: groups.column.clone(),
        plan: crate::engine::live::LivePlan {
            tasks: side.keys.clone(),
            groups: groups.label_of,
            labels: groups.labels,
        },
        tasks: side.keys,
        sha256: table.sha256,
    })
}
