//! Following steps files while a harness appends to them (issue 21), for `halt --follow` and
//! `watch --early`: each file's [`Tail`] (partial lines wait, a shrunk or replaced file is read anew),
//! every complete row parsed by the loader's rules for step values and pushed into the
//! [`Scoreboard`] of running trajectories. A CSV header without a step column the model was trained
//! on stops the follower (nothing it would score could be trusted); a bad row, a step out of order
//! or a trajectory that appears in two files is news with file and line, and the rest goes on.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::tail::{Tail, TailEvent};
use crate::data::ColumnMap;
use crate::data::trajectories::{STEP_COLUMNS, step_columns, step_from_fields};
use crate::early::halting::Thresholds;
use crate::early::running::{Change, HaltRow, RunKey, Scoreboard};
use crate::early::saved::Predictor;

/// What one poll found, in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum StepsNews {
    /// A trajectory seen for the first time, or one that just halted: its row now.
    Changed { change: Change, row: HaltRow },
    /// A line or step that could not be taken: file, line, what is wrong.
    Problem(String),
    /// A file shrank or was replaced; its trajectories are read again from the start.
    Reread(String),
}

pub struct StepsFollower {
    files: Vec<(String, Tail)>,
    /// Which file each trajectory came from (a trajectory lives in one file).
    origin: HashMap<RunKey, usize>,
    pub board: Scoreboard,
    predictor: Arc<Predictor>,
    columns: ColumnMap,
}

/// `--follow` reads appended CSV rows or JSON Lines objects.
pub fn is_json_lines(path: &Path) -> Result<bool, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if name.ends_with(".csv") {
        Ok(false)
    } else if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
        Ok(true)
    } else {
        Err(format!(
            "{}: steps are followed in .csv or .jsonl files that a harness appends to",
            path.display()
        ))
    }
}

impl StepsFollower {
    pub fn new(
        paths: &[PathBuf],
        predictor: Arc<Predictor>,
        thresholds: Thresholds,
        columns: ColumnMap,
    ) -> Result<Self, String> {
        let mut files = Vec::new();
        for path in paths {
            files.push((
                path.display().to_string(),
                Tail::new(path, is_json_lines(path)?),
            ));
        }
        Ok(StepsFollower {
            files,
            origin: HashMap::new(),
            board: Scoreboard::new(predictor.clone(), thresholds),
            predictor,
            columns,
        })
    }

    /// One poll of every file. Err: a file's header lacks a column the model needs.
    pub fn poll(&mut self) -> Result<Vec<StepsNews>, String> {
        let mut news = Vec::new();
        for f in 0..self.files.len() {
            let mut events = Vec::new();
            self.files[f].1.poll(&mut events);
            for event in events {
                self.take(f, event, &mut news)?;
            }
        }
        Ok(news)
    }

    fn take(
        &mut self,
        f: usize,
        event: TailEvent,
        news: &mut Vec<StepsNews>,
    ) -> Result<(), String> {
        let name = &self.files[f].0;
        match event {
            TailEvent::Reread => {
                self.board.retain(|key| self.origin.get(key) != Some(&f));
                self.origin.retain(|_, at| *at != f);
                news.push(StepsNews::Reread(name.clone()));
            }
            TailEvent::Bad { line, message } => {
                news.push(StepsNews::Problem(format!(
                    "{name}, line {line}: {message}"
                )));
            }
            TailEvent::Header {
                line,
                columns: names,
            } => {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let present: Vec<&str> = STEP_COLUMNS
                    .iter()
                    .copied()
                    .filter(|c| names.contains(&self.columns.source_of(c)) || names.contains(c))
                    .collect();
                self.predictor
                    .check_columns(step_columns(&present), &format!("{name}, line {line}"))?;
            }
            TailEvent::Record { line, fields } => {
                let columns = &self.columns;
                let get = |column: &str| {
                    fields
                        .get(columns.source_of(column))
                        .or_else(|| fields.get(column))
                        .map(str::to_string)
                };
                let (key, number, step) = match step_from_fields(&get) {
                    Ok(parsed) => parsed,
                    Err(message) => {
                        news.push(StepsNews::Problem(format!(
                            "{name}, line {line}: {message}"
                        )));
                        return Ok(());
                    }
                };
                match self.origin.get(&key) {
                    Some(&other) if other != f => {
                        news.push(StepsNews::Problem(format!(
                            "{name}, line {line}: trajectory {key} is also in {}; this step is not scored",
                            self.files[other].0
                        )));
                        return Ok(());
                    }
                    Some(_) => {}
                    None => {
                        self.origin.insert(key.clone(), f);
                    }
                }
                match self.board.push(key, number, step) {
                    Err(message) => {
                        news.push(StepsNews::Problem(format!(
                            "{name}, line {line}: {message}"
                        )));
                    }
                    Ok((Change::Nothing, _)) => {}
                    Ok((change, at)) => news.push(StepsNews::Changed {
                        change,
                        row: self.board.runs[at].row(),
                    }),
                }
            }
        }
        Ok(())
    }
}
