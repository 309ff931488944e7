//! Holding the rows of tasks that have fewer ended runs than `--runs` declares (see
//! [`super::declared_runs`]): their rows become not attempted so far, and the notes say how many
//! tasks of each system wait, so nothing is dropped without a word.

use std::collections::HashMap;

use super::declared_runs::DeclaredRuns;
use super::records::{Rows, Status};

/// What holding found for one system.
#[derive(Default)]
struct Held {
    /// Tasks held, and the one with the fewest ended runs (task id, ended).
    tasks: usize,
    fewest: Option<(u32, u32)>,
    /// Tasks with more ended runs than declared (all read), and the one with the most.
    over: usize,
    most: Option<(u32, u32)>,
    /// Tasks with every declared run ended.
    complete: usize,
}

/// Holds, as not attempted so far, the rows of every (system, task) with at least one ended run and
/// fewer than the system's declared runs (an ended run has an outcome or an error; a row not
/// attempted is a run still to come). Nothing is dropped: the notes name per system how many tasks
/// wait and for what, the tasks with more ended runs than declared (read whole), and declared
/// systems with no rows.
pub(super) fn hold_short_tasks(rows: &mut Rows, declared: &DeclaredRuns) -> Vec<String> {
    let mut notes = Vec::new();
    if declared.is_empty() {
        return notes;
    }
    let runs_of: Vec<Option<u32>> = rows
        .systems
        .names
        .iter()
        .map(|name| declared.for_system(name))
        .collect();
    let mut ended: HashMap<(u32, u32), u32> = HashMap::new();
    for row in 0..rows.len() {
        if rows.status[row] != Status::NotAttempted {
            *ended.entry((rows.system[row], rows.task[row])).or_default() += 1;
        }
    }
    let mut held: Vec<Held> = runs_of.iter().map(|_| Held::default()).collect();
    for (&(system, task), &count) in &ended {
        let Some(runs) = runs_of[system as usize] else {
            continue;
        };
        let found = &mut held[system as usize];
        if count < runs {
            found.tasks += 1;
            if found.fewest.is_none_or(|(t, c)| (count, task) < (c, t)) {
                found.fewest = Some((task, count));
            }
        } else {
            found.complete += 1;
            if count > runs {
                found.over += 1;
                // The most ended runs, the first task among equals (the map's order is not fixed).
                if found
                    .most
                    .is_none_or(|(t, c)| count > c || (count == c && task < t))
                {
                    found.most = Some((task, count));
                }
            }
        }
    }
    for row in 0..rows.len() {
        let (system, task) = (rows.system[row], rows.task[row]);
        if rows.status[row] == Status::NotAttempted {
            continue;
        }
        if let Some(runs) = runs_of[system as usize]
            && ended[&(system, task)] < runs
        {
            rows.status[row] = Status::NotAttempted;
        }
    }
    let task_name = |task: u32| rows.task_names[task as usize].as_str();
    for (system, found) in held.iter().enumerate() {
        let Some(runs) = runs_of[system] else {
            continue;
        };
        let name = &rows.systems.names[system];
        if let Some((task, count)) = found.fewest {
            let none_complete = if found.complete == 0 {
                format!(
                    "; none has all {runs} yet (a completed record with fewer runs per task is declared on its own: --runs {name}=N)"
                )
            } else {
                String::new()
            };
            let (tasks, wait) = if found.tasks == 1 {
                ("task", "waits for the rest of its")
            } else {
                ("tasks", "wait for the rest of their")
            };
            notes.push(format!(
                "--runs: {} {tasks} of '{name}' {wait} {runs} runs, not read until every run has ended (e.g. '{}' with {count} ended){none_complete}",
                found.tasks,
                task_name(task),
            ));
        }
        if let Some((task, count)) = found.most {
            let (tasks, have) = if found.over == 1 {
                ("task", "has")
            } else {
                ("tasks", "have")
            };
            notes.push(format!(
                "--runs: {} {tasks} of '{name}' {have} more ended runs than the {runs} declared, and all are read (e.g. '{}' with {count})",
                found.over,
                task_name(task),
            ));
        }
    }
    for system in declared.named() {
        if !rows.systems.names.iter().any(|name| name == system) {
            notes.push(format!(
                "--runs: no rows of '{system}' so far (its runs are declared)"
            ));
        }
    }
    notes
}
