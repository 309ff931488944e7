//! `watch --early MODEL --steps FILE` (issue 21): beside the anytime decisions, the runs a saved early
//! predictor could halt now. The steps files are followed like the outcome files
//! ([`StepsFollower`]); a trajectory is still running until its outcome row arrives in the followed
//! outcome files (same system, task and run). The panel lists the running trajectories that reached a
//! threshold (which model, at which step, its probability, the steps run since), and the joint saving
//! so far: tasks of the plan not run yet × steps run after a halting point inside the trajectories
//! that completed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::steps::{StepsFollower, StepsNews};
use crate::data::ColumnMap;
use crate::early::halting::Thresholds;
use crate::early::running::{HaltRow, RunKey};
use crate::early::saved::Predictor;

pub struct EarlyWatch {
    follower: StepsFollower,
    pub model: String,
    pub thresholds: Thresholds,
    /// The latest problem with a steps row (file, line, value).
    pub problem: Option<String>,
    /// Halts as they happened, newest last.
    pub notices: Vec<String>,
}

/// What the early panel shows.
#[derive(Debug, Clone, PartialEq)]
pub struct EarlySummary {
    /// Trajectories with steps so far, and how many of them have an outcome.
    pub followed: usize,
    pub completed: usize,
    /// Running trajectories past a halting point: they could be halted now (latest halts first).
    pub halt_now: Vec<HaltRow>,
    /// Completed trajectories that had passed a halting point.
    pub completed_halted: usize,
    /// Steps run after a halting point inside the completed trajectories, as a share of their steps.
    pub steps_not_run_inside: Option<f64>,
    /// Planned tasks without any outcome yet, as a share of the plan.
    pub tasks_not_run: f64,
    /// 1 − (1 − tasks not run) × (1 − steps not run inside).
    pub joint_saving: Option<f64>,
}

impl EarlyWatch {
    /// A panel for a loaded predictor (`model` names its file) following `steps`.
    pub fn new(
        model: &Path,
        predictor: Arc<Predictor>,
        steps: &[PathBuf],
        columns: ColumnMap,
    ) -> Result<Self, String> {
        let thresholds = predictor.thresholds(None, None);
        Ok(EarlyWatch {
            follower: StepsFollower::new(steps, predictor, thresholds, columns)?,
            model: model.display().to_string(),
            thresholds,
            problem: None,
            notices: Vec::new(),
        })
    }

    /// One poll of the steps files; whether anything changed. Err: a header lacks a column the
    /// model needs (said in the status bar; the panel stops).
    pub fn poll(&mut self) -> bool {
        let news = match self.follower.poll() {
            Ok(news) => news,
            Err(message) => {
                self.problem = Some(format!("✗ {message}"));
                return true;
            }
        };
        let changed = !news.is_empty();
        for item in news {
            match item {
                StepsNews::Changed { row, .. } => {
                    if let (Some(step), Some(p)) = (row.halt_step, row.halt_probability) {
                        self.notices.push(format!(
                            "early: {} on {} run {} could halt ({} at step {step}, p {p:.2})",
                            row.system, row.task, row.run, row.action
                        ));
                    }
                }
                StepsNews::Problem(message) => {
                    self.problem = Some(format!("✗ {message} (skipped)"));
                }
                StepsNews::Reread(file) => self.notices.push(format!(
                    "{file} shrank or was replaced: its steps are read again"
                )),
                StepsNews::Waiting(message) => self.notices.push(message),
            }
        }
        changed
    }

    /// The panel's figures, given which trajectories have an outcome and how many planned tasks
    /// have any outcome.
    pub fn summary(
        &self,
        completed: &HashSet<RunKey>,
        observed_tasks: usize,
        planned: usize,
    ) -> EarlySummary {
        let runs = &self.follower.board.runs;
        let (mut done, mut done_halted, mut steps, mut after) = (0, 0, 0, 0);
        let mut halt_now: Vec<HaltRow> = Vec::new();
        for run in runs {
            if completed.contains(&run.key) {
                done += 1;
                done_halted += usize::from(run.halted.is_some());
                steps += run.steps();
                after += run.steps_after_halt();
            } else if run.halted.is_some() {
                halt_now.push(run.row());
            }
        }
        halt_now.sort_by_key(|r| std::cmp::Reverse(r.steps_after_halt));
        let inside = (steps > 0).then(|| after as f64 / steps as f64);
        let tasks_not_run = if planned == 0 {
            0.0
        } else {
            1.0 - observed_tasks.min(planned) as f64 / planned as f64
        };
        EarlySummary {
            followed: runs.len(),
            completed: done,
            halt_now,
            completed_halted: done_halted,
            steps_not_run_inside: inside,
            tasks_not_run,
            joint_saving: inside.map(|s| 1.0 - (1.0 - tasks_not_run) * (1.0 - s)),
        }
    }
}
