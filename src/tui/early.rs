//! The explorer's early-outcome view (SPEC §11): the job the training thread runs (every fold of the
//! protocol, then the τ sweep on a fine grid), what it reports, and the view's state: the τ slider,
//! the selected system, and the drill-down of one trajectory. Everything the view draws at a τ is
//! computed once when training ends, so moving the slider only indexes into it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use crate::early::evaluate::{
    Predictions, TargetResult, TauResult, predict_watched, sweep, target_result,
};
use crate::early::features::FeatureSettings;
use crate::early::halting::{Halt, Thresholds, halt};
use crate::early::model::ModelSettings;
use crate::early::protocol::Protocol;
use crate::early::saved::{Predictor, ThresholdChoice};
use crate::early::trajectories::Trajectories;

/// The slider's τ: 0.55, 0.56, …, 0.99.
pub fn tau_grid() -> Vec<f64> {
    (55..=99).map(|i| f64::from(i) / 100.0).collect()
}

/// The slider starts at τ = 0.95, the SPEC's headline threshold.
const START_TAU: f64 = 0.95;

/// What to train.
#[derive(Clone)]
pub struct EarlyJob {
    pub data: Arc<Trajectories>,
    pub protocol: Protocol,
    pub features: FeatureSettings,
    pub model: ModelSettings,
    /// The pair-decision threshold of the leaderboard agreement (0.05 = 5 pp).
    pub delta: f64,
    /// A target precision: each fold also fits its training side's inner split to choose τ_s and τ_f.
    pub target: Option<f64>,
    /// The steps and outcomes files as given, which the view's exported command reads.
    pub sources: [String; 2],
}

/// The trained predictions and the sweep over [`tau_grid`].
pub struct EarlyResult {
    pub data: Arc<Trajectories>,
    pub protocol: Protocol,
    pub trees: usize,
    /// The model's other settings the exported command passes when they are not the defaults.
    pub min_steps: usize,
    pub seed: u64,
    pub predictions: Predictions,
    pub taus: Vec<f64>,
    pub sweep: Vec<TauResult>,
    /// Halting by the target precision on the test folds (with [`EarlyJob::target`]).
    pub target: Option<TargetResult>,
    /// The target precision asked for, and the job's files (for the exported command).
    pub target_precision: Option<f64>,
    pub sources: [String; 2],
}

/// What the training thread reports, and the saving thread's word (the status bar's line).
#[derive(Clone)]
pub enum EarlyEvent {
    Progress { done: usize, total: usize },
    Finished(Result<Arc<EarlyResult>, String>),
    Saved(Result<String, String>),
}

/// Trains the predictor on every trajectory (as `early --save-model` does) with the thresholds
/// `choice` sets, and writes it to `path`; says what was saved.
pub fn save_model(job: &EarlyJob, choice: ThresholdChoice, path: &Path) -> Result<String, String> {
    let predictor = Predictor::train(&job.data, job.protocol, job.features, job.model, choice)
        .map_err(|e| e.to_string())?;
    let text = predictor.to_json()?;
    crate::data::write::write_whole(path, text.as_bytes())
        .map_err(|e| format!("{}: cannot write the model: {e}", path.display()))?;
    let thresholds = &predictor.info.thresholds;
    // No threshold reaches a target precision: that model never fires.
    let shown = |t: Option<f64>| {
        t.filter(|t| t.is_finite())
            .map_or("never".to_string(), |t| format!("{t:.3}"))
    };
    Ok(format!(
        "✓ early predictor saved to {} (τ_s {}, τ_f {}; pareval halt MODEL, watch --early)",
        path.display(),
        shown(thresholds.success),
        shown(thresholds.failure)
    ))
}

/// Runs [`save_model`] on its own thread and reports its word.
pub fn spawn_save(
    job: EarlyJob,
    choice: ThresholdChoice,
    path: PathBuf,
    report: impl Fn(EarlyEvent) + Send + 'static,
) -> bool {
    std::thread::Builder::new()
        .name("pareval-early-save".to_string())
        .spawn(move || report(EarlyEvent::Saved(save_model(&job, choice, &path))))
        .is_ok()
}

/// Trains every fold and sweeps τ; `watch(done, total)` hears each fold and may stop the job.
pub fn compute(
    job: &EarlyJob,
    watch: &dyn Fn(usize, usize) -> bool,
) -> Result<EarlyResult, String> {
    let predictions = predict_watched(
        &job.data,
        job.protocol,
        job.features,
        job.model,
        job.target.is_some(),
        watch,
    )
    .map_err(|e| e.to_string())?;
    let taus = tau_grid();
    let sweep = sweep(&job.data, &predictions, job.protocol, &taus, job.delta);
    let target = job
        .target
        .and_then(|p| target_result(&job.data, &predictions, job.protocol, p));
    Ok(EarlyResult {
        data: job.data.clone(),
        protocol: job.protocol,
        trees: job.model.iterations,
        min_steps: job.model.min_steps,
        seed: job.model.seed,
        predictions,
        taus,
        sweep,
        target,
        target_precision: job.target,
        sources: job.sources.clone(),
    })
}

/// Runs the job on its own thread, reporting progress and the result; it stops between folds once
/// `stop` is set (the explorer quit).
pub fn spawn(
    job: EarlyJob,
    stop: Arc<AtomicBool>,
    report: impl Fn(EarlyEvent) + Send + Sync + 'static,
) -> Option<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("pareval-early".to_string())
        .spawn(move || {
            let watch = |done: usize, total: usize| {
                report(EarlyEvent::Progress { done, total });
                !stop.load(Ordering::Relaxed)
            };
            let outcome = compute(&job, &watch).map(Arc::new);
            if !stop.load(Ordering::Relaxed) {
                report(EarlyEvent::Finished(outcome));
            }
        })
        .ok()
}

/// Where training stands.
pub enum EarlyStatus {
    Training { done: usize, total: usize },
    Ready(Arc<EarlyResult>),
    Failed(String),
}

/// The view's state.
pub struct EarlyPanel {
    pub status: EarlyStatus,
    /// Index into [`tau_grid`].
    pub tau: usize,
    /// The selected row of the per-system table.
    pub selected: usize,
    /// The drill-down: which of the selected system's tested trajectories is shown.
    pub drill: Option<usize>,
    /// What is trained, for the header (protocol, trees, files).
    pub describe: String,
}

impl EarlyPanel {
    pub fn new(describe: String) -> Self {
        let grid = tau_grid();
        EarlyPanel {
            status: EarlyStatus::Training { done: 0, total: 0 },
            tau: grid
                .iter()
                .position(|&t| (t - START_TAU).abs() < 1e-9)
                .unwrap_or(0),
            selected: 0,
            drill: None,
            describe,
        }
    }

    pub fn on_event(&mut self, event: EarlyEvent) {
        self.status = match event {
            EarlyEvent::Progress { done, total } => match self.status {
                EarlyStatus::Training { .. } => EarlyStatus::Training { done, total },
                // A late progress report never hides a result.
                _ => return,
            },
            EarlyEvent::Finished(Ok(result)) => EarlyStatus::Ready(result),
            EarlyEvent::Finished(Err(error)) => EarlyStatus::Failed(error),
            // The app puts the saving thread's word in the status bar.
            EarlyEvent::Saved(_) => return,
        };
    }

    pub fn result(&self) -> Option<&EarlyResult> {
        match &self.status {
            EarlyStatus::Ready(result) => Some(result),
            _ => None,
        }
    }

    pub fn tau_value(&self) -> f64 {
        tau_grid().get(self.tau).copied().unwrap_or(START_TAU)
    }

    /// The metrics at the slider's τ.
    pub fn current(&self) -> Option<&TauResult> {
        self.result().and_then(|r| r.sweep.get(self.tau))
    }

    /// Moves the τ cursor by `step` (clamped), or to an end.
    pub fn move_tau(&mut self, step: isize) {
        let last = tau_grid().len() as isize - 1;
        self.tau = (self.tau as isize + step).clamp(0, last) as usize;
    }

    pub fn set_tau(&mut self, index: usize) {
        self.tau = index.min(tau_grid().len() - 1);
    }

    fn systems(&self) -> usize {
        self.current().map_or(0, |c| c.systems.len())
    }

    /// Up and down: the system row, or in the drill-down the trajectory.
    pub fn select(&mut self, step: isize) {
        match self.drill {
            Some(index) => {
                let count = self.drill_trajectories().len();
                if count > 0 {
                    self.drill = Some((index as isize + step).rem_euclid(count as isize) as usize);
                }
            }
            None => {
                let last = self.systems().saturating_sub(1) as isize;
                self.selected = (self.selected as isize + step).clamp(0, last.max(0)) as usize;
            }
        }
    }

    pub fn open_drill(&mut self) {
        if self.current().is_some() && !self.drill_trajectories().is_empty() {
            self.drill = Some(0);
        }
    }

    /// The tested trajectories of the selected system (indices into the trajectories), halted ones
    /// first at the current τ so that the drill-down opens on a trajectory where something happened.
    pub fn drill_trajectories(&self) -> Vec<usize> {
        let (Some(result), Some(current)) = (self.result(), self.current()) else {
            return Vec::new();
        };
        let Some(name) = current
            .systems
            .get(self.selected)
            .map(|s| s.system.as_str())
        else {
            return Vec::new();
        };
        let tau = self.tau_value();
        let mut list: Vec<(bool, usize)> = result
            .data
            .trajectories
            .iter()
            .enumerate()
            .filter(|(i, t)| {
                result.data.systems[t.system as usize].name == name
                    && result.predictions.success[*i].is_some()
            })
            .map(|(i, _)| (halting(result, i, tau).fired.is_none(), i))
            .collect();
        list.sort();
        list.into_iter().map(|(_, i)| i).collect()
    }

    /// The trajectory the drill-down shows.
    pub fn drilled(&self) -> Option<usize> {
        let index = self.drill?;
        self.drill_trajectories().get(index).copied()
    }
}

/// Where trajectory `i` halts at τ.
pub fn halting(result: &EarlyResult, i: usize, tau: f64) -> Halt {
    let t = &result.data.trajectories[i];
    let empty = Vec::new();
    halt(
        result.predictions.success[i].as_ref().unwrap_or(&empty),
        result.predictions.failure[i].as_ref().unwrap_or(&empty),
        Thresholds::both(tau),
        t.len(),
        t.outcome,
    )
}
