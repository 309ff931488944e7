//! Step-level records for early outcome prediction (SPEC §11): a steps table (`system, task, run, step`
//! and optional `action, role, observation_chars, is_error, tokens_in, tokens_out, text, cost_usd,
//! seconds`), an outcomes table (`system, task, run, outcome, steps`) and an optional systems table
//! (`system` with `scaffold`, `model`), in any format `read` reads and with `--col` renames. Every check
//! names the file, the column, the line and the value: steps not numbered 1 … T without gaps, duplicate
//! steps, a trajectory with steps but no outcome (or the reverse), an outcome whose `steps` disagrees
//! with the steps table, counts that are not numbers. Nothing is dropped or changed silently.

use std::collections::HashMap;
use std::path::Path;

use super::columns::{Cell, ColumnMap, cell_text, column_list, for_each_cell};
use super::error::{LoadError, Offenders, Pos, quote};
use super::read::{RawTable, read_table};
use super::records::Interner;
use super::side::SideTable;
use crate::dataset::InputFile;
use crate::early::running::RunKey;
use crate::early::trajectories::{StepFields, SystemInfo};
use crate::early::{Step, Trajectories, Trajectory};

/// Columns of the steps table pareval knows (a `--col` target among them renames a step column).
pub const STEP_COLUMNS: [&str; 13] = [
    "system",
    "task",
    "run",
    "step",
    "action",
    "role",
    "observation_chars",
    "is_error",
    "tokens_in",
    "tokens_out",
    "text",
    "cost_usd",
    "seconds",
];

/// Columns of the outcomes table.
pub const OUTCOME_COLUMNS: [&str; 5] = ["system", "task", "run", "outcome", "steps"];

/// Reads and checks the steps and outcomes tables (and a systems table), into trajectories in the
/// outcomes table's order.
pub fn load_trajectories(
    steps_path: &Path,
    outcomes_path: &Path,
    systems_path: Option<&Path>,
    columns: &ColumnMap,
) -> Result<Trajectories, LoadError> {
    let mut steps_table = read_table(steps_path)?;
    let mut outcomes_table = read_table(outcomes_path)?;
    check_col_sources(columns, &[&steps_table, &outcomes_table])?;
    columns.apply_known(&mut steps_table.frame, &steps_table.file, &STEP_COLUMNS)?;
    columns.apply_known(
        &mut outcomes_table.frame,
        &outcomes_table.file,
        &OUTCOME_COLUMNS,
    )?;
    let mut systems = Interner::default();
    let mut tasks = Interner::default();
    let outcomes = read_outcomes(&outcomes_table, &mut systems, &mut tasks)?;
    let (steps, fields) = read_steps(&steps_table, &mut systems, &mut tasks)?;
    let trajectories = join(
        &steps_table,
        &outcomes_table,
        steps,
        outcomes,
        (&systems.names, &tasks.names),
    )?;
    // Systems, tasks and trajectories in a canonical order (by name), not the files' row order:
    // the early predictor's folds, calibration and inner splits are drawn over them, and the same
    // trajectories written in another row order (a harness that finishes runs in another order)
    // gave other figures (Terminal-Bench, loao, τ 0.75: 68.7% coverage in one order, 0% in another).
    let (names, task_names, trajectories) =
        canonical_order(systems.names, tasks.names, trajectories);
    let mut inputs = vec![input(&steps_table), input(&outcomes_table)];
    let mut infos: Vec<SystemInfo> = names
        .iter()
        .map(|name| SystemInfo {
            name: name.clone(),
            ..SystemInfo::default()
        })
        .collect();
    if let Some(path) = systems_path {
        let table = read_table(path)?;
        let side = SideTable::read(&table, "system")?;
        let scaffold = side.column("scaffold");
        let model = side.column("model");
        for (row, key) in side.keys.iter().enumerate() {
            if let Some(info) = infos.iter_mut().find(|info| &info.name == key) {
                info.scaffold = scaffold.and_then(|c| c[row].clone());
                info.model = model.and_then(|c| c[row].clone());
            }
        }
        inputs.push(input(&table));
    }
    Ok(Trajectories {
        systems: infos,
        tasks: task_names,
        trajectories,
        fields,
        inputs,
    })
}

/// Systems and tasks sorted by name (indices remapped), and trajectories by system, task and run
/// (runs numerically where both are numbers, as `10` follows `9`).
fn canonical_order(
    systems: Vec<String>,
    tasks: Vec<String>,
    mut trajectories: Vec<Trajectory>,
) -> (Vec<String>, Vec<String>, Vec<Trajectory>) {
    fn sorted(names: Vec<String>) -> (Vec<String>, Vec<u32>) {
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|&a, &b| names[a].cmp(&names[b]));
        let mut new_index = vec![0u32; names.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new as u32;
        }
        let sorted = order.iter().map(|&old| names[old].clone()).collect();
        (sorted, new_index)
    }
    let (systems, system_index) = sorted(systems);
    let (tasks, task_index) = sorted(tasks);
    for trajectory in &mut trajectories {
        trajectory.system = system_index[trajectory.system as usize];
        trajectory.task = task_index[trajectory.task as usize];
    }
    let run_order = |a: &str, b: &str| match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.cmp(b),
    };
    trajectories.sort_by(|a, b| {
        (a.system, a.task)
            .cmp(&(b.system, b.task))
            .then_with(|| run_order(&a.run, &b.run))
    });
    (systems, tasks, trajectories)
}

/// A steps table without outcomes (the trajectories of a run still going), checked as
/// [`load_trajectories`] checks steps: numbered 1 … T per trajectory, each once.
pub struct StepsFile {
    /// Each trajectory and its steps so far, in the order of its first row.
    pub trajectories: Vec<(RunKey, Vec<Step>)>,
    /// The optional step columns the file has (whether or not they hold values).
    pub columns: StepFields,
    pub input: InputFile,
}

/// The step columns a set of column names carries.
pub fn step_columns(names: &[&str]) -> StepFields {
    let has = |name: &str| names.contains(&name);
    StepFields {
        action: has("action"),
        observation_chars: has("observation_chars"),
        is_error: has("is_error"),
        tokens: has("tokens_in") || has("tokens_out"),
        tokens_in: has("tokens_in"),
        tokens_out: has("tokens_out"),
        text: has("text"),
        cost: has("cost_usd"),
        seconds: has("seconds"),
    }
}

/// A `--col` rename of a steps or outcomes column whose source none of `tables` has is a typo: the
/// table's own column of the target's name (or none) would be read in its place without a word.
fn check_col_sources(columns: &ColumnMap, tables: &[&RawTable]) -> Result<(), LoadError> {
    for (target, source) in columns.renames() {
        let ours = STEP_COLUMNS.contains(&target) || OUTCOME_COLUMNS.contains(&target);
        if ours
            && !tables
                .iter()
                .any(|t| t.frame.get_column_index(source).is_some())
            && let Some(first) = if STEP_COLUMNS.contains(&target) {
                tables.first()
            } else {
                tables.last()
            }
        {
            return Err(LoadError::new(
                &first.file,
                format!(
                    "--col {target}={source}: no {} has a column '{source}' (its columns: {})",
                    if tables.len() > 1 {
                        "table"
                    } else {
                        "steps table"
                    },
                    column_list(&first.frame)
                ),
            ));
        }
    }
    Ok(())
}

pub fn load_steps(path: &Path, columns: &ColumnMap) -> Result<StepsFile, LoadError> {
    let mut table = read_table(path)?;
    check_col_sources(columns, &[&table])?;
    columns.apply_known(&mut table.frame, &table.file, &STEP_COLUMNS)?;
    let mut systems = Interner::default();
    let mut tasks = Interner::default();
    let (by_trajectory, _) = read_steps(&table, &mut systems, &mut tasks)?;
    let mut trajectories: Vec<(usize, RunKey, Vec<Step>)> = by_trajectory
        .into_iter()
        .map(|((system, task, run), steps)| {
            let first = steps.iter().map(|s| s.1).min().unwrap_or(0);
            let key = RunKey {
                system: systems.names[system as usize].clone(),
                task: tasks.names[task as usize].clone(),
                run,
            };
            (first, key, steps.into_iter().map(|(_, _, s)| s).collect())
        })
        .collect();
    trajectories.sort_unstable_by_key(|t| t.0);
    let names: Vec<&str> = table
        .frame
        .get_column_names()
        .into_iter()
        .map(|n| n.as_str())
        .collect();
    Ok(StepsFile {
        columns: step_columns(&names),
        trajectories: trajectories
            .into_iter()
            .map(|(_, key, steps)| (key, steps))
            .collect(),
        input: input(&table),
    })
}

/// One step of a followed steps file (a CSV row or JSON object by column name): its trajectory, its
/// number and the step, with the loader's rules for each value (the message names the column and
/// the value; the caller adds file and line).
pub fn step_from_fields(
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<(RunKey, usize, Step), String> {
    let key = |name: &str| {
        get(name)
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| format!("column '{name}' is empty"))
    };
    let (system, task, run) = (key("system")?, key("task")?, key("run")?);
    // Keyed as the outcome rows' runs are (see `read_keys`).
    let run = super::run_key(&run)?;
    let number = |name: &str, whole: bool| -> Result<Option<f64>, String> {
        let Some(text) = get(name).filter(|t| !t.trim().is_empty()) else {
            return Ok(None);
        };
        match text.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 && (!whole || x.fract() == 0.0) => Ok(Some(x)),
            _ => Err(format!(
                "column '{name}' must hold {} ≥ 0, not '{text}'",
                if whole { "whole numbers" } else { "numbers" }
            )),
        }
    };
    let step = match number("step", true)? {
        Some(x) if x >= 1.0 => x as usize,
        other => {
            return Err(format!(
                "column 'step' must count from 1, not '{}'",
                other.map_or("<empty>".to_string(), |x| x.to_string())
            ));
        }
    };
    let is_error = match get("is_error").map(|t| t.trim().to_ascii_lowercase()) {
        None => None,
        Some(t) => match t.as_str() {
            "" => None,
            "1" | "true" | "yes" => Some(true),
            "0" | "false" | "no" => Some(false),
            _ => {
                return Err(format!(
                    "column 'is_error' must be 1/0, true/false, yes/no or empty, not '{t}'"
                ));
            }
        },
    };
    let text = |name: &str| get(name).filter(|t| !t.is_empty());
    Ok((
        RunKey { system, task, run },
        step,
        Step {
            action: text("action"),
            role: text("role"),
            observation_chars: number("observation_chars", true)?,
            is_error,
            tokens_in: number("tokens_in", true)?,
            tokens_out: number("tokens_out", true)?,
            text: text("text"),
            cost_usd: number("cost_usd", false)?,
            seconds: number("seconds", false)?,
        },
    ))
}

fn input(table: &RawTable) -> InputFile {
    InputFile {
        path: table.file.clone(),
        rows: table.frame.height(),
        sha256: table.sha256.clone(),
    }
}

/// The key columns of a table (system, task, run), interned, with an error for empty cells.
pub(super) struct Keys {
    pub(super) system: Vec<u32>,
    pub(super) task: Vec<u32>,
    pub(super) run: Vec<String>,
    pub(super) positions: Vec<Pos>,
}

pub(super) fn required<'a>(
    table: &'a RawTable,
    name: &str,
) -> Result<&'a polars::prelude::Column, LoadError> {
    table.frame.column(name).map_err(|_| {
        LoadError::new(
            &table.file,
            format!(
                "missing required column '{name}' (columns found: {})",
                column_list(&table.frame)
            ),
        )
    })
}

pub(super) fn read_keys(
    table: &RawTable,
    systems: &mut Interner,
    tasks: &mut Interner,
) -> Result<Keys, LoadError> {
    let positions: Vec<Pos> = (0..table.frame.height())
        .map(|row| table.positions.at(row))
        .collect();
    let mut texts: Vec<Vec<String>> = Vec::new();
    for name in ["system", "task", "run"] {
        let column = required(table, name)?;
        let mut values = Vec::with_capacity(table.frame.height());
        let mut empty = Offenders::default();
        for_each_cell(column, &table.file, |row, cell| {
            let text = match cell {
                Cell::Null => String::new(),
                other => cell_text(other),
            };
            if text.trim().is_empty() {
                empty.push(|| positions[row].to_string());
            }
            values.push(text);
        })?;
        empty.into_result_on(&table.file, &format!("column '{name}' is empty"))?;
        texts.push(values);
    }
    // Runs keyed as the records loader and the live readers key them ("0", "00" and "0.0" are one
    // run), so that a steps file and an outcomes file, or a harness's rows, agree however they spell
    // a run.
    let mut bad = Offenders::default();
    let run = texts
        .pop()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(row, text)| {
            super::run_key(&text).unwrap_or_else(|_| {
                bad.push(|| format!("{} on {}", quote(&text), positions[row]));
                text
            })
        })
        .collect();
    bad.into_result(
        &table.file,
        "column 'run' must hold whole numbers ≥ 0 or run ids",
    )?;
    let task = texts
        .pop()
        .unwrap_or_default()
        .iter()
        .map(|t| tasks.id(t))
        .collect();
    let system = texts
        .pop()
        .unwrap_or_default()
        .iter()
        .map(|s| systems.id(s))
        .collect();
    Ok(Keys {
        system,
        task,
        run,
        positions,
    })
}

/// An optional column read cell by cell with `parse` (`Err` marks a bad value); absent → `None`. Bad
/// values are reported together under `problem`, with their lines.
fn optional_column<T>(
    table: &RawTable,
    name: &str,
    positions: &[Pos],
    problem: &str,
    parse: impl Fn(Cell<'_>) -> Result<Option<T>, ()>,
) -> Result<Option<Vec<Option<T>>>, LoadError> {
    let Ok(column) = table.frame.column(name) else {
        return Ok(None);
    };
    let mut values = Vec::with_capacity(table.frame.height());
    let mut bad = Offenders::default();
    for_each_cell(column, &table.file, |row, cell| match parse(cell) {
        Ok(value) => values.push(value),
        Err(()) => {
            bad.push(|| format!("{} on {}", quote(&cell_text(cell)), positions[row]));
            values.push(None);
        }
    })?;
    bad.into_result(&table.file, problem)?;
    Ok(Some(values))
}

/// An optional number column: finite values ≥ 0 (`whole` asks for whole numbers), empty cells None.
pub(super) fn numbers(
    table: &RawTable,
    name: &str,
    whole: bool,
    positions: &[Pos],
) -> Result<Option<Vec<Option<f64>>>, LoadError> {
    let problem = format!(
        "column '{name}' must hold {} ≥ 0",
        if whole { "whole numbers" } else { "numbers" }
    );
    numbers_up_to(table, name, whole, f64::INFINITY, positions, &problem)
}

/// [`numbers`] at most `most`, refused with `problem` (one message for every value outside the
/// range, a word or NaN alike).
fn numbers_up_to(
    table: &RawTable,
    name: &str,
    whole: bool,
    most: f64,
    positions: &[Pos],
    problem: &str,
) -> Result<Option<Vec<Option<f64>>>, LoadError> {
    optional_column(table, name, positions, problem, |cell| {
        let value = match cell {
            Cell::Null => return Ok(None),
            Cell::Text(text) if text.trim().is_empty() => return Ok(None),
            Cell::Text(text) => text.trim().parse::<f64>().map_err(|_| ())?,
            Cell::Number(x) => x,
            Cell::Bool(_) => return Err(()),
        };
        if !value.is_finite() || value < 0.0 || value > most || (whole && value.fract() != 0.0) {
            return Err(());
        }
        Ok(Some(value))
    })
}

fn texts(
    table: &RawTable,
    name: &str,
    positions: &[Pos],
) -> Result<Option<Vec<Option<String>>>, LoadError> {
    optional_column(table, name, positions, "", |cell| {
        Ok(match cell {
            Cell::Null | Cell::Text("") => None,
            other => Some(cell_text(other)),
        })
    })
}

/// The error flag: 1/0, true/false, yes/no, or empty when the log does not tell.
fn flags(
    table: &RawTable,
    name: &str,
    positions: &[Pos],
) -> Result<Option<Vec<Option<bool>>>, LoadError> {
    let problem = format!("column '{name}' must be 1/0, true/false, yes/no or empty");
    optional_column(table, name, positions, &problem, |cell| match cell {
        Cell::Null => Ok(None),
        Cell::Bool(b) => Ok(Some(b)),
        Cell::Number(x) if x == 0.0 || x == 1.0 => Ok(Some(x == 1.0)),
        Cell::Text(text) => match text.trim().to_ascii_lowercase().as_str() {
            "" => Ok(None),
            "1" | "true" | "yes" => Ok(Some(true)),
            "0" | "false" | "no" => Ok(Some(false)),
            _ => Err(()),
        },
        Cell::Number(_) => Err(()),
    })
}

/// Refuses empty cells and values below 1 of a whole-number column (a step number or a count).
fn at_least_one(
    values: &[Option<f64>],
    positions: &[Pos],
    file: &str,
    problem: &str,
) -> Result<(), LoadError> {
    let mut bad = Offenders::default();
    for (row, value) in values.iter().enumerate() {
        // Counts are kept as 32-bit numbers: a larger one would be cut to 4294967295 and a message
        // would then quote a number the file does not hold.
        if value.is_none_or(|x| !(1.0..=f64::from(u32::MAX)).contains(&x)) {
            bad.push(|| {
                format!(
                    "{} on {}",
                    quote(&value.map_or("<empty>".to_string(), |x| x.to_string())),
                    positions[row]
                )
            });
        }
    }
    bad.into_result(file, problem)
}

/// One outcomes row.
struct OutcomeRow {
    system: u32,
    task: u32,
    run: String,
    outcome: f64,
    steps: u32,
    position: Pos,
}

fn read_outcomes(
    table: &RawTable,
    systems: &mut Interner,
    tasks: &mut Interner,
) -> Result<Vec<OutcomeRow>, LoadError> {
    let keys = read_keys(table, systems, tasks)?;
    required(table, "outcome")?;
    required(table, "steps")?;
    let in_unit = "column 'outcome' must be in [0, 1]";
    let outcome =
        numbers_up_to(table, "outcome", false, 1.0, &keys.positions, in_unit)?.unwrap_or_default();
    let steps = numbers(table, "steps", true, &keys.positions)?.unwrap_or_default();
    let mut bad = Offenders::default();
    for (row, value) in outcome.iter().enumerate() {
        if value.is_none() {
            bad.push(|| format!("<empty> on {}", keys.positions[row]));
        }
    }
    bad.into_result(&table.file, in_unit)?;
    at_least_one(
        &steps,
        &keys.positions,
        &table.file,
        "column 'steps' must give each trajectory's number of steps (1 to 4294967295)",
    )?;
    let mut seen: HashMap<(u32, u32, &str), usize> = HashMap::new();
    let mut duplicates = Offenders::default();
    for row in 0..keys.run.len() {
        let key = (keys.system[row], keys.task[row], keys.run[row].as_str());
        if let Some(&first) = seen.get(&key) {
            duplicates.push(|| {
                format!(
                    "({}, {}, run {}) on {} and {}",
                    systems.names[keys.system[row] as usize],
                    tasks.names[keys.task[row] as usize],
                    keys.run[row],
                    keys.positions[first],
                    keys.positions[row]
                )
            });
        } else {
            seen.insert(key, row);
        }
    }
    duplicates.into_result(
        &table.file,
        "a trajectory (system, task, run) may have one outcome",
    )?;
    Ok((0..keys.run.len())
        .map(|row| OutcomeRow {
            system: keys.system[row],
            task: keys.task[row],
            run: keys.run[row].clone(),
            outcome: outcome[row].unwrap_or(0.0),
            steps: steps[row].unwrap_or(0.0) as u32,
            position: keys.positions[row],
        })
        .collect())
}

/// The steps of each trajectory, keyed by (system, task, run): (step number, row, step).
type StepsByTrajectory = HashMap<(u32, u32, String), Vec<(u32, usize, Step)>>;

fn read_steps(
    table: &RawTable,
    systems: &mut Interner,
    tasks: &mut Interner,
) -> Result<(StepsByTrajectory, StepFields), LoadError> {
    let keys = read_keys(table, systems, tasks)?;
    required(table, "step")?;
    let positions = &keys.positions;
    let step = numbers(table, "step", true, positions)?.unwrap_or_default();
    at_least_one(
        &step,
        positions,
        &table.file,
        "column 'step' must count from 1 (to at most 4294967295)",
    )?;
    let action = texts(table, "action", positions)?;
    let role = texts(table, "role", positions)?;
    let text = texts(table, "text", positions)?;
    let observation = numbers(table, "observation_chars", true, positions)?;
    let tokens_in = numbers(table, "tokens_in", true, positions)?;
    let tokens_out = numbers(table, "tokens_out", true, positions)?;
    let cost = numbers(table, "cost_usd", false, positions)?;
    let seconds = numbers(table, "seconds", false, positions)?;
    let is_error = flags(table, "is_error", positions)?;
    let any = |column: &Option<Vec<Option<f64>>>| {
        column
            .as_ref()
            .is_some_and(|c| c.iter().any(Option::is_some))
    };
    let fields = StepFields {
        action: action
            .as_ref()
            .is_some_and(|c| c.iter().any(Option::is_some)),
        observation_chars: any(&observation),
        is_error: is_error
            .as_ref()
            .is_some_and(|c| c.iter().any(Option::is_some)),
        tokens: any(&tokens_in) || any(&tokens_out),
        tokens_in: any(&tokens_in),
        tokens_out: any(&tokens_out),
        text: text.as_ref().is_some_and(|c| c.iter().any(Option::is_some)),
        cost: any(&cost),
        seconds: any(&seconds),
    };
    let at = |column: &Option<Vec<Option<f64>>>, row: usize| column.as_ref().and_then(|c| c[row]);
    let mut by_trajectory: StepsByTrajectory = HashMap::new();
    for row in 0..keys.run.len() {
        let step_value = Step {
            action: action.as_ref().and_then(|c| c[row].clone()),
            role: role.as_ref().and_then(|c| c[row].clone()),
            observation_chars: at(&observation, row),
            is_error: is_error.as_ref().and_then(|c| c[row]),
            tokens_in: at(&tokens_in, row),
            tokens_out: at(&tokens_out, row),
            text: text.as_ref().and_then(|c| c[row].clone()),
            cost_usd: at(&cost, row),
            seconds: at(&seconds, row),
        };
        by_trajectory
            .entry((keys.system[row], keys.task[row], keys.run[row].clone()))
            .or_default()
            .push((step[row].unwrap_or(0.0) as u32, row, step_value));
    }
    // Steps 1 … T in order, each once.
    let mut duplicates = Offenders::default();
    let mut gaps = Offenders::default();
    let (system_names, task_names) = (&systems.names, &tasks.names);
    let name = |key: &(u32, u32, String)| {
        format!(
            "({}, {}, run {})",
            system_names[key.0 as usize], task_names[key.1 as usize], key.2
        )
    };
    // Report in file order (by each trajectory's first row), so the first message names the first
    // offending line.
    let mut order: Vec<(usize, (u32, u32, String))> = by_trajectory
        .iter()
        .map(|(key, steps)| (steps.first().map_or(0, |s| s.1), key.clone()))
        .collect();
    order.sort_unstable();
    for (_, key) in &order {
        let Some(steps) = by_trajectory.get_mut(key) else {
            continue;
        };
        steps.sort_by_key(|(number, row, _)| (*number, *row));
        for pair in steps.windows(2) {
            if pair[0].0 == pair[1].0 {
                duplicates.push(|| {
                    format!(
                        "step {} of {} on {} and {}",
                        pair[0].0,
                        name(key),
                        positions[pair[0].1],
                        positions[pair[1].1]
                    )
                });
            }
        }
        let mut expected = 1;
        for (number, row, _) in steps.iter() {
            if *number > expected {
                gaps.push(|| {
                    format!(
                        "{} jumps to step {number} on {} (step {expected} is missing)",
                        name(key),
                        positions[*row]
                    )
                });
                break;
            }
            expected = number + 1;
        }
    }
    duplicates.into_result(&table.file, "a step may appear once per trajectory")?;
    gaps.into_result(&table.file, "steps must be numbered 1 … T without gaps")?;
    Ok((by_trajectory, fields))
}

/// Pairs every outcome with its steps; a trajectory on one side only, or a count that disagrees, is an
/// error naming the row.
fn join(
    steps_table: &RawTable,
    outcomes_table: &RawTable,
    mut steps: StepsByTrajectory,
    outcomes: Vec<OutcomeRow>,
    (system_names, task_names): (&[String], &[String]),
) -> Result<Vec<Trajectory>, LoadError> {
    let mut without_steps = Offenders::default();
    let mut disagree = Offenders::default();
    let mut trajectories = Vec::with_capacity(outcomes.len());
    for row in outcomes {
        let key = (row.system, row.task, row.run.clone());
        match steps.remove(&key) {
            None => without_steps.push(|| {
                format!(
                    "({}, {}, run {}) on {}",
                    system_names[row.system as usize],
                    task_names[row.task as usize],
                    row.run,
                    row.position
                )
            }),
            Some(list) => {
                if list.len() as u32 != row.steps {
                    disagree.push(|| {
                        format!(
                            "{} says {} steps, the steps table has {} ({})",
                            row.position,
                            row.steps,
                            list.len(),
                            steps_table.file
                        )
                    });
                }
                trajectories.push(Trajectory {
                    system: row.system,
                    task: row.task,
                    run: row.run,
                    outcome: row.outcome,
                    steps: list.into_iter().map(|(_, _, step)| step).collect(),
                });
            }
        }
    }
    without_steps.into_result(
        &outcomes_table.file,
        &format!(
            "trajectories with an outcome but no steps in {}",
            steps_table.file
        ),
    )?;
    disagree.into_result(
        &outcomes_table.file,
        "column 'steps' disagrees with the steps table",
    )?;
    if !steps.is_empty() {
        // Each named as the other direction names them: (system, task, run) and where it starts.
        let mut first_rows: Vec<(usize, &(u32, u32, String))> = steps
            .iter()
            .filter_map(|(key, list)| list.iter().map(|s| s.1).min().map(|row| (row, key)))
            .collect();
        first_rows.sort_unstable_by_key(|&(row, _)| row);
        let mut orphans = Offenders::default();
        for (row, (system, task, run)) in first_rows {
            orphans.push(|| {
                format!(
                    "({}, {}, run {run}) from {}",
                    system_names[*system as usize],
                    task_names[*task as usize],
                    steps_table.positions.at(row)
                )
            });
        }
        orphans.into_result(
            &steps_table.file,
            &format!(
                "trajectories with steps but no outcome in {}",
                outcomes_table.file
            ),
        )?;
    }
    Ok(trajectories)
}
