//! Early-stopped outcomes for the replay (`replay --early FILE`): reads the halting records that
//! `pareval early --records` writes (one row per trajectory and τ), keeps one τ, checks them against
//! the loaded record and turns the record's observed outcomes into the early ones. The completed
//! record stays the truth. Every mismatch is an error naming the file, the line and the value: a
//! trajectory of another record, a record cell the halting records miss, runs or full outcomes that
//! disagree with the record.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::error::{LoadError, Offenders, quote};
use super::read::read_table;
use super::records::Interner;
use super::trajectories::{numbers, read_keys, required};
use crate::dataset::{Dataset, EarlyOutcomes};

/// Columns of the halting records that the replay reads.
const COLUMNS: [&str; 8] = [
    "tau",
    "system",
    "task",
    "run",
    "steps",
    "steps_saved",
    "predicted",
    "outcome",
];

/// The same τ when two values differ by less than this (τ are written as typed, e.g. 0.95).
const TAU_TOLERANCE: f64 = 1e-9;

/// Which halting records of a file to read: at a τ (the file's only one when None), or at a target
/// precision (`early --records` with `--target-precision`: each fold's own τ_s and τ_f).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EarlyChoice {
    pub tau: Option<f64>,
    pub target_precision: Option<f64>,
}

/// Replaces the dataset's observed outcomes by the early ones of `path` at the records `choice`
/// picks, keeping the completed outcomes as the truth.
pub fn apply_early(
    dataset: &mut Dataset,
    path: &Path,
    choice: EarlyChoice,
) -> Result<(), LoadError> {
    let table = read_table(path)?;
    let file = table.file.clone();
    for name in COLUMNS {
        required(&table, name)?;
    }
    let (mut systems, mut tasks) = (Interner::default(), Interner::default());
    let keys = read_keys(&table, &mut systems, &mut tasks)?;
    let column = |name: &str, whole: bool| -> Result<Vec<Option<f64>>, LoadError> {
        Ok(numbers(&table, name, whole, &keys.positions)?.unwrap_or_default())
    };
    let taus = column("tau", false)?;
    // Files written before the target-precision records have no such column.
    let targets = match numbers(&table, "target_precision", false, &keys.positions) {
        Ok(Some(values)) => values,
        _ => vec![None; taus.len()],
    };
    let steps = column("steps", true)?;
    let saved = column("steps_saved", true)?;
    let predicted = column("predicted", false)?;
    let outcome = column("outcome", false)?;

    let mut found: Vec<f64> = taus.iter().flatten().copied().collect();
    found.sort_by(f64::total_cmp);
    found.dedup_by(|a, b| (*a - *b).abs() < TAU_TOLERANCE);
    let listing = || {
        found
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let close =
        |value: Option<f64>, wanted: f64| value.is_some_and(|v| (v - wanted).abs() < TAU_TOLERANCE);
    let (rows, label, chosen) = if let Some(precision) = choice.target_precision {
        let rows: Vec<usize> = (0..targets.len())
            .filter(|&row| close(targets[row], precision))
            .collect();
        if rows.is_empty() {
            let mut found: Vec<f64> = targets.iter().flatten().copied().collect();
            found.sort_by(f64::total_cmp);
            found.dedup_by(|a, b| (*a - *b).abs() < TAU_TOLERANCE);
            return Err(LoadError::new(
                &file,
                format!(
                    "no halting records at target precision {precision} (the file has {}; write them with early --records … --target-precision P)",
                    if found.is_empty() {
                        "none".to_string()
                    } else {
                        found
                            .iter()
                            .map(|p| p.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            ));
        }
        (
            rows,
            format!("target precision {precision}"),
            (None, Some(precision)),
        )
    } else {
        let tau = match (choice.tau, found.as_slice()) {
            (Some(tau), _) if found.iter().any(|t| (t - tau).abs() < TAU_TOLERANCE) => tau,
            (Some(tau), _) => {
                return Err(LoadError::new(
                    &file,
                    format!(
                        "no halting records at τ {tau} (the file has τ {})",
                        listing()
                    ),
                ));
            }
            (None, [only]) => *only,
            (None, []) => {
                return Err(LoadError::new(
                    &file,
                    "no halting records (column 'tau' is empty)",
                ));
            }
            (None, _) => {
                return Err(LoadError::new(
                    &file,
                    format!(
                        "the file has halting records at several τ ({}); choose one with --early-tau",
                        listing()
                    ),
                ));
            }
        };
        let rows: Vec<usize> = (0..taus.len())
            .filter(|&row| close(taus[row], tau))
            .collect();
        (rows, format!("τ {tau}"), (Some(tau), None))
    };

    // Each row on its own: counts and outcomes in range.
    let mut bad = Offenders::default();
    for &row in &rows {
        let at = &keys.positions[row];
        match (steps[row], saved[row], predicted[row], outcome[row]) {
            (Some(t), Some(s), Some(p), Some(y)) if t >= 1.0 && s < t && p <= 1.0 && y <= 1.0 => {}
            (t, s, p, y) => bad.push(|| {
                let show = |x: Option<f64>| x.map_or("<empty>".to_string(), |x| x.to_string());
                format!(
                    "steps {}, steps_saved {}, predicted {}, outcome {} on {at}",
                    show(t),
                    show(s),
                    show(p),
                    show(y)
                )
            }),
        }
    }
    bad.into_result(
        &file,
        "each halting record needs steps ≥ 1, steps_saved < steps, predicted and outcome in [0, 1]",
    )?;

    // Rows onto the record's cells.
    let system_index: HashMap<&str, usize> = dataset
        .systems
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let task_index: HashMap<&str, usize> = dataset
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    let n_tasks = dataset.n_tasks();
    let cells = dataset.outcome.len();
    let (mut count, mut sum_predicted, mut sum_outcome) =
        (vec![0u32; cells], vec![0.0; cells], vec![0.0; cells]);
    let (mut sum_run, mut sum_full) = (vec![0.0; cells], vec![0.0; cells]);
    let mut unknown = Offenders::default();
    let mut duplicates = Offenders::default();
    let mut seen: HashSet<(u32, u32, &str)> = HashSet::new();
    let mut halted = 0;
    for &row in &rows {
        let (system, task) = (
            &systems.names[keys.system[row] as usize],
            &tasks.names[keys.task[row] as usize],
        );
        let at = &keys.positions[row];
        if !seen.insert((keys.system[row], keys.task[row], keys.run[row].as_str())) {
            duplicates.push(|| {
                format!(
                    "run {} of {} on {}, {at}",
                    quote(&keys.run[row]),
                    quote(system),
                    quote(task)
                )
            });
            continue;
        }
        let (Some(&s), Some(&t)) = (
            system_index.get(system.as_str()),
            task_index.get(task.as_str()),
        ) else {
            unknown.push(|| format!("{} on {} ({at})", quote(system), quote(task)));
            continue;
        };
        let cell = s * n_tasks + t;
        let (t_steps, t_saved) = (steps[row].unwrap_or(1.0), saved[row].unwrap_or(0.0));
        count[cell] += 1;
        sum_predicted[cell] += predicted[row].unwrap_or(0.0);
        sum_outcome[cell] += outcome[row].unwrap_or(0.0);
        sum_run[cell] += t_steps - t_saved;
        sum_full[cell] += t_steps;
        halted += usize::from(t_saved > 0.0);
    }
    duplicates.into_result(
        &file,
        &format!("a trajectory may have one halting record at {label}"),
    )?;
    unknown.into_result(
        &file,
        "halting records of a system or task the record does not have (were they made from another record?)",
    )?;

    // Cell by cell against the record: the same runs and the same full outcome.
    let mut missing = Offenders::default();
    let mut disagree = Offenders::default();
    for (cell, &full) in dataset.outcome.iter().enumerate() {
        let name = || {
            format!(
                "{} on {}",
                quote(&dataset.systems[cell / n_tasks].name),
                quote(&dataset.tasks[cell % n_tasks])
            )
        };
        let n = count[cell];
        if full.is_nan() {
            continue;
        }
        if n == 0 {
            missing.push(name);
            continue;
        }
        let mean = sum_outcome[cell] / f64::from(n);
        if n != dataset.runs[cell] || (mean - full).abs() > 1e-9 {
            disagree.push(|| {
                format!(
                    "{}: {n} runs, mean outcome {mean} here; {} runs, mean outcome {full} in the record",
                    name(),
                    dataset.runs[cell]
                )
            });
        }
    }
    missing.into_result(
        &file,
        &format!("no halting record at {label} for a record cell"),
    )?;
    disagree.into_result(
        &file,
        "the halting records' full outcomes disagree with the record",
    )?;

    let truth = dataset.outcome.clone();
    let average = |sums: &[f64]| -> Vec<f64> {
        sums.iter()
            .zip(&count)
            .zip(&truth)
            .map(|((&sum, &n), full)| {
                if full.is_nan() {
                    f64::NAN
                } else {
                    sum / f64::from(n)
                }
            })
            .collect()
    };
    dataset.outcome = average(&sum_predicted);
    let (steps_run, steps_full) = (average(&sum_run), average(&sum_full));
    dataset.early = Some(EarlyOutcomes {
        file,
        tau: chosen.0,
        target_precision: chosen.1,
        truth,
        steps_run,
        steps_full,
        trajectories: rows.len(),
        halted,
    });
    Ok(())
}
