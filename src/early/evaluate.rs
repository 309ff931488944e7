//! The EarlyEval evaluation (SPEC §11): for every fold of a protocol, fit the featurizer and both
//! models on the training trajectories, predict every prefix of the test trajectories, then for every τ
//! of the sweep apply the halting rule and measure coverage, accuracy, each model's precision, the
//! steps (and tokens) eliminated, each system's resolve rate early against full, the agreement of the
//! early leaderboard with the full one, and the AUC of both models on the test prefixes.

use rayon::prelude::*;
use serde::Serialize;

use super::features::{FeatureSettings, Featurizer};
use super::halting::{Fired, Halt, Thresholds, halt};
use super::metrics::auc;
use super::model::{ModelError, ModelSettings, OutcomeModels};
use super::protocol::{Protocol, ProtocolError, folds};
use super::target::{Grouping, InnerCurves, InnerError, inner_curves};
use super::trajectories::Trajectories;
use crate::proxy::stats::{kendall_tau_b as kendall, ranks, spearman};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EarlyError {
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    #[error("fold '{fold}': {error}")]
    Model { fold: String, error: ModelError },
    #[error("fold '{fold}': {error}")]
    Inner { fold: String, error: InnerError },
    #[error("stopped before every fold was trained")]
    Stopped,
}

/// One system's resolve rate on the full and on the early outcomes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemRates {
    pub system: String,
    pub full: f64,
    pub early: f64,
    pub delta_pp: f64,
    pub trajectories: usize,
    pub halted: usize,
}

/// The metrics at one τ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TauResult {
    pub protocol: &'static str,
    pub tau: f64,
    pub coverage: f64,
    pub accuracy: Option<f64>,
    pub success_precision: Option<f64>,
    pub failure_precision: Option<f64>,
    /// Halts by each model (the larger probability decides when both fire).
    pub success_halts: usize,
    pub failure_halts: usize,
    pub steps_saved: f64,
    pub tokens_in_saved: Option<f64>,
    pub tokens_out_saved: Option<f64>,
    pub auc_success: Option<f64>,
    pub auc_failure: Option<f64>,
    pub spearman: Option<f64>,
    pub kendall: Option<f64>,
    pub exact_rank_share: f64,
    pub mean_abs_delta_pp: f64,
    pub max_abs_delta_pp: f64,
    pub pair_agreement: Option<f64>,
    pub systems: Vec<SystemRates>,
}

/// Each test trajectory's calibrated probabilities at its prefixes, pooled over folds.
pub struct Predictions {
    /// Indexed like `Trajectories::trajectories`; `None` for a trajectory no fold tested.
    pub success: Vec<Option<Vec<f64>>>,
    pub failure: Vec<Option<Vec<f64>>>,
    /// Fold names, in order.
    pub folds: Vec<String>,
    /// The fold (index into `folds`) that tested each trajectory.
    pub fold_of: Vec<Option<u32>>,
    /// Per fold, the operating curves of its training side's inner split (when asked for: they
    /// choose thresholds by target precision without reading the fold's test trajectories).
    pub inner: Vec<Option<InnerCurves>>,
}

impl Predictions {
    /// Trajectory `i`'s probabilities at its prefixes and the fold that tested it (None: untested).
    pub fn tested(&self, i: usize) -> Option<(&[f64], &[f64], u32)> {
        match (&self.success[i], &self.failure[i], self.fold_of[i]) {
            (Some(s), Some(f), Some(fold)) => Some((s.as_slice(), f.as_slice(), fold)),
            _ => None,
        }
    }
}

/// Trains and predicts every fold of the protocol.
pub fn predict(
    data: &Trajectories,
    protocol: Protocol,
    features: FeatureSettings,
    model: ModelSettings,
) -> Result<Predictions, EarlyError> {
    predict_watched(data, protocol, features, model, false, &|_, _| true)
}

/// [`predict`], telling `watch(folds done, folds)` before each fold and after the last; it stops
/// with [`EarlyError::Stopped`] when `watch` returns false (the explorer's training thread). With
/// `inner`, every fold also fits its training side's inner split (for `--target-precision`).
pub fn predict_watched(
    data: &Trajectories,
    protocol: Protocol,
    features: FeatureSettings,
    model: ModelSettings,
    inner: bool,
    watch: &dyn Fn(usize, usize) -> bool,
) -> Result<Predictions, EarlyError> {
    let n = data.trajectories.len();
    let mut out = Predictions {
        success: vec![None; n],
        failure: vec![None; n],
        folds: Vec::new(),
        fold_of: vec![None; n],
        inner: Vec::new(),
    };
    let all = folds(data, protocol, model.seed)?;
    let total = all.len();
    for (done, fold) in all.into_iter().enumerate() {
        if !watch(done, total) {
            return Err(EarlyError::Stopped);
        }
        let train: Vec<_> = fold.train.iter().map(|&i| &data.trajectories[i]).collect();
        let featurizer = Featurizer::fit(&train, features);
        let models =
            OutcomeModels::fit(featurizer, &train, model).map_err(|error| EarlyError::Model {
                fold: fold.name.clone(),
                error,
            })?;
        let width = models.featurizer.names().len();
        // Each test trajectory is scored on its own, so they run in parallel (gathered in order).
        let scored: Vec<(Vec<f64>, Vec<f64>)> = fold
            .test
            .par_iter()
            .map(|&i| {
                let rows: Vec<f64> = models
                    .featurizer
                    .prefixes(&data.trajectories[i].steps)
                    .concat();
                (
                    models.success.probabilities(&rows, width),
                    models.failure.probabilities(&rows, width),
                )
            })
            .collect();
        let fold_index = out.folds.len() as u32;
        for (&i, (success, failure)) in fold.test.iter().zip(scored) {
            out.success[i] = Some(success);
            out.failure[i] = Some(failure);
            out.fold_of[i] = Some(fold_index);
        }
        let curves = inner
            .then(|| inner_curves(data, &fold.train, Grouping::of(protocol), features, model))
            .transpose()
            .map_err(|error| EarlyError::Inner {
                fold: fold.name.clone(),
                error,
            })?;
        out.inner.push(curves);
        out.folds.push(fold.name);
    }
    watch(total, total);
    Ok(out)
}

fn ratio(numerator: usize, denominator: usize) -> Option<f64> {
    (denominator > 0).then(|| numerator as f64 / denominator as f64)
}

/// One tested trajectory at one τ (or at the thresholds its fold chose for a target precision):
/// where it halted, which model fired and what it was scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HaltRecord {
    /// The sweep's τ (both models), or None for a target precision's halts.
    pub tau: Option<f64>,
    /// The target precision P whose per-fold thresholds halted it (`--target-precision`).
    pub target_precision: Option<f64>,
    /// The thresholds it halted by: τ_s and τ_f (the sweep's τ twice, or the fold's choice for P;
    /// +∞ where no threshold reaches P, so that model never fires).
    pub tau_success: f64,
    pub tau_failure: f64,
    pub system: String,
    pub task: String,
    pub run: String,
    pub steps: usize,
    /// The prefix length where it halted (None: it ran to the end).
    pub halted_at: Option<usize>,
    /// `success` or `failure`, and that model's calibrated probability there.
    pub model: Option<&'static str>,
    pub probability: Option<f64>,
    /// The early outcome (1/0 when halted, else the true one) and the true outcome.
    pub predicted: f64,
    pub outcome: f64,
    pub steps_saved: usize,
    /// Tokens of the steps not run (None when the logs have no tokens).
    pub tokens_saved: Option<f64>,
}

/// One prefix of one tested trajectory: both calibrated probabilities after `step` of `steps` steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PredictionRow<'a> {
    pub fold: &'a str,
    pub system: &'a str,
    pub task: &'a str,
    pub run: &'a str,
    pub step: usize,
    pub steps: usize,
    pub success: f64,
    pub failure: f64,
    pub outcome: f64,
}

/// Every prefix of every tested trajectory, in trajectory order then step order.
pub fn prediction_rows<'a>(
    data: &'a Trajectories,
    predictions: &'a Predictions,
) -> Vec<PredictionRow<'a>> {
    let mut out = Vec::new();
    for (i, t) in data.trajectories.iter().enumerate() {
        let Some((s, f, fold)) = predictions.tested(i) else {
            continue;
        };
        for (k, (&success, &failure)) in s.iter().zip(f).enumerate() {
            out.push(PredictionRow {
                fold: &predictions.folds[fold as usize],
                system: &data.systems[t.system as usize].name,
                task: &data.tasks[t.task as usize],
                run: &t.run,
                step: k + 1,
                steps: t.len(),
                success,
                failure,
                outcome: t.outcome,
            });
        }
    }
    out
}

/// Every tested trajectory's halting at every τ, τ by τ in trajectory order, then at every target
/// precision (each fold's τ_s and τ_f chosen on its training side), P by P; a precision whose
/// thresholds some fold could not choose (no inner split) has no records.
pub fn halting_records(
    data: &Trajectories,
    predictions: &Predictions,
    taus: &[f64],
    precisions: &[f64],
) -> Vec<HaltRecord> {
    let mut out = Vec::new();
    for &tau in taus {
        halts_at(data, predictions, &mut out, (Some(tau), None), &|_| {
            Thresholds::both(tau)
        });
    }
    for &precision in precisions {
        let Some(by_fold) = predictions
            .inner
            .iter()
            .map(|c| c.as_ref().map(|c| c.thresholds(precision)))
            .collect::<Option<Vec<Thresholds>>>()
        else {
            continue;
        };
        halts_at(
            data,
            predictions,
            &mut out,
            (None, Some(precision)),
            &|fold| by_fold[fold as usize],
        );
    }
    out
}

/// The halting records of every tested trajectory at the thresholds `thresholds` gives its fold,
/// labelled (τ, P).
fn halts_at(
    data: &Trajectories,
    predictions: &Predictions,
    out: &mut Vec<HaltRecord>,
    (tau, target_precision): (Option<f64>, Option<f64>),
    thresholds: &dyn Fn(u32) -> Thresholds,
) {
    for (i, t) in data.trajectories.iter().enumerate() {
        let Some((s, f, fold)) = predictions.tested(i) else {
            continue;
        };
        let chosen = thresholds(fold);
        let h = halt(s, f, chosen, t.len(), t.outcome);
        out.push(HaltRecord {
            tau,
            target_precision,
            tau_success: chosen.success,
            tau_failure: chosen.failure,
            system: data.systems[t.system as usize].name.clone(),
            task: data.tasks[t.task as usize].clone(),
            run: t.run.clone(),
            steps: t.len(),
            halted_at: h.fired.map(|_| h.steps_run),
            model: h.fired.map(|(m, _)| match m {
                Fired::Success => "success",
                Fired::Failure => "failure",
            }),
            probability: h.fired.map(|(_, p)| p),
            predicted: h.outcome,
            outcome: t.outcome,
            steps_saved: t.len() - h.steps_run,
            tokens_saved: data.fields.tokens.then(|| {
                t.steps[h.steps_run..]
                    .iter()
                    .map(|s| s.tokens_in.unwrap_or(0.0) + s.tokens_out.unwrap_or(0.0))
                    .sum()
            }),
        });
    }
}

/// The metrics at each τ from the pooled predictions; `delta` is the pair-decision threshold (a
/// difference of resolve rates, 0.05 = 5 pp).
pub fn sweep(
    data: &Trajectories,
    predictions: &Predictions,
    protocol: Protocol,
    taus: &[f64],
    delta: f64,
) -> Vec<TauResult> {
    let tested: Vec<usize> = (0..data.trajectories.len())
        .filter(|&i| predictions.success[i].is_some())
        .collect();
    // The AUC of each model over every test prefix does not depend on τ.
    let (mut scores_s, mut scores_f, mut labels) = (Vec::new(), Vec::new(), Vec::new());
    for &i in &tested {
        let success = data.trajectories[i].success();
        for (s, f) in predictions.success[i]
            .iter()
            .flatten()
            .zip(predictions.failure[i].iter().flatten())
        {
            scores_s.push(*s);
            scores_f.push(*f);
            labels.push(success);
        }
    }
    let failed: Vec<bool> = labels.iter().map(|l| !l).collect();
    let (auc_success, auc_failure) = (auc(&scores_s, &labels), auc(&scores_f, &failed));
    let tokens =
        |pick: fn(&super::trajectories::Step) -> Option<f64>| data.fields.tokens.then_some(pick);
    taus.iter()
        .map(|&tau| {
            let halts: Vec<(usize, Halt)> = tested
                .iter()
                .map(|&i| {
                    let t = &data.trajectories[i];
                    let empty = Vec::new();
                    let (s, f) = (
                        predictions.success[i].as_ref().unwrap_or(&empty),
                        predictions.failure[i].as_ref().unwrap_or(&empty),
                    );
                    (i, halt(s, f, Thresholds::both(tau), t.len(), t.outcome))
                })
                .collect();
            let halted: Vec<&(usize, Halt)> =
                halts.iter().filter(|(_, h)| h.fired.is_some()).collect();
            let correct = |fired: Option<Fired>| {
                halted
                    .iter()
                    .filter(|(i, h)| {
                        fired.is_none_or(|f| h.fired.map(|x| x.0) == Some(f))
                            && (h.outcome >= 0.5) == data.trajectories[*i].success()
                    })
                    .count()
            };
            let fired = |f: Fired| {
                halted
                    .iter()
                    .filter(|(_, h)| h.fired.map(|x| x.0) == Some(f))
                    .count()
            };
            let total_steps: usize = halts.iter().map(|(i, _)| data.trajectories[*i].len()).sum();
            let saved_steps: usize = halts
                .iter()
                .map(|(i, h)| data.trajectories[*i].len() - h.steps_run)
                .sum();
            let saved_share = |pick: fn(&super::trajectories::Step) -> Option<f64>| {
                let (mut all, mut saved) = (0.0, 0.0);
                for (i, h) in &halts {
                    for (k, step) in data.trajectories[*i].steps.iter().enumerate() {
                        let value = pick(step).unwrap_or(0.0);
                        all += value;
                        if k >= h.steps_run {
                            saved += value;
                        }
                    }
                }
                (all > 0.0).then(|| saved / all)
            };
            let systems: Vec<SystemRates> = data
                .systems
                .iter()
                .enumerate()
                .filter_map(|(s, info)| {
                    let own: Vec<&(usize, Halt)> = halts
                        .iter()
                        .filter(|(i, _)| data.trajectories[*i].system as usize == s)
                        .collect();
                    if own.is_empty() {
                        return None;
                    }
                    let n = own.len() as f64;
                    let full = own
                        .iter()
                        .filter(|(i, _)| data.trajectories[*i].success())
                        .count() as f64
                        / n;
                    let early = own.iter().filter(|(_, h)| h.outcome >= 0.5).count() as f64 / n;
                    Some(SystemRates {
                        system: info.name.clone(),
                        full,
                        early,
                        delta_pp: 100.0 * (early - full),
                        trajectories: own.len(),
                        halted: own.iter().filter(|(_, h)| h.fired.is_some()).count(),
                    })
                })
                .collect();
            let full: Vec<f64> = systems.iter().map(|s| s.full).collect();
            let early: Vec<f64> = systems.iter().map(|s| s.early).collect();
            let (rank_full, rank_early) = (ranks(&full), ranks(&early));
            let same_rank = rank_full
                .iter()
                .zip(&rank_early)
                .filter(|(a, b)| a == b)
                .count();
            let mut agree = 0;
            let mut pairs = 0;
            for a in 0..systems.len() {
                for b in 0..systems.len() {
                    if a != b {
                        pairs += 1;
                        agree += usize::from(
                            (full[a] - full[b] > delta + 1e-9)
                                == (early[a] - early[b] > delta + 1e-9),
                        );
                    }
                }
            }
            let abs: Vec<f64> = systems.iter().map(|s| s.delta_pp.abs()).collect();
            TauResult {
                protocol: protocol.name(),
                tau,
                coverage: ratio(halted.len(), halts.len()).unwrap_or(0.0),
                accuracy: ratio(correct(None), halted.len()),
                success_precision: ratio(correct(Some(Fired::Success)), fired(Fired::Success)),
                failure_precision: ratio(correct(Some(Fired::Failure)), fired(Fired::Failure)),
                success_halts: fired(Fired::Success),
                failure_halts: fired(Fired::Failure),
                steps_saved: ratio(saved_steps, total_steps).unwrap_or(0.0),
                tokens_in_saved: tokens(|s| s.tokens_in).and_then(saved_share),
                tokens_out_saved: tokens(|s| s.tokens_out).and_then(saved_share),
                auc_success,
                auc_failure,
                spearman: spearman(&full, &early),
                kendall: kendall(&full, &early),
                exact_rank_share: ratio(same_rank, systems.len()).unwrap_or(0.0),
                mean_abs_delta_pp: if abs.is_empty() {
                    0.0
                } else {
                    abs.iter().sum::<f64>() / abs.len() as f64
                },
                max_abs_delta_pp: abs.iter().copied().fold(0.0, f64::max),
                pair_agreement: ratio(agree, pairs),
                systems,
            }
        })
        .collect()
}

/// One model's halts on the test folds at the thresholds a target precision chose.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelAtTarget {
    pub halts: usize,
    /// Halts as a share of the tested trajectories.
    pub coverage: f64,
    /// Share of its halts that were right (None without a halt).
    pub precision: Option<f64>,
    /// Steps this model's halts left unrun, as a share of every tested trajectory's steps.
    pub steps_saved: f64,
}

/// The thresholds one fold's training side chose.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FoldTarget {
    pub fold: String,
    /// What the inner split kept together, and in how many folds.
    pub grouping: &'static str,
    pub inner_folds: usize,
    /// None: the model did not reach the target on the inner split and never halts in this fold.
    pub tau_success: Option<f64>,
    pub tau_failure: Option<f64>,
}

/// Halting by target precision, measured on the test folds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetResult {
    pub protocol: &'static str,
    pub precision: f64,
    pub folds: Vec<FoldTarget>,
    pub success: ModelAtTarget,
    pub failure: ModelAtTarget,
    pub coverage: f64,
    pub accuracy: Option<f64>,
    pub steps_saved: f64,
}

/// One model's thresholds over the folds of a target: the lowest and highest finite τ, and the
/// folds where it never halts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TauSpread {
    pub range: Option<(f64, f64)>,
    pub never: usize,
    pub folds: usize,
}

impl TargetResult {
    /// The spread of τ_s (`success`) or τ_f over the folds.
    pub fn spread(&self, success: bool) -> TauSpread {
        let taus: Vec<Option<f64>> = self
            .folds
            .iter()
            .map(|f| {
                if success {
                    f.tau_success
                } else {
                    f.tau_failure
                }
            })
            .collect();
        let finite = || taus.iter().flatten().copied();
        TauSpread {
            range: finite().reduce(f64::min).zip(finite().reduce(f64::max)),
            never: taus.iter().filter(|t| t.is_none()).count(),
            folds: taus.len(),
        }
    }
}

fn finite(tau: f64) -> Option<f64> {
    tau.is_finite().then_some(tau)
}

/// Applies each fold's thresholds for `precision` (chosen on its training side's inner split) to its
/// test trajectories. None when the predictions carry no inner curves.
pub fn target_result(
    data: &Trajectories,
    predictions: &Predictions,
    protocol: Protocol,
    precision: f64,
) -> Option<TargetResult> {
    let thresholds: Vec<Thresholds> = predictions
        .inner
        .iter()
        .map(|c| c.as_ref().map(|c| c.thresholds(precision)))
        .collect::<Option<Vec<_>>>()?;
    let folds = predictions
        .folds
        .iter()
        .zip(&predictions.inner)
        .zip(&thresholds)
        .map(|((fold, curves), t)| FoldTarget {
            fold: fold.clone(),
            grouping: curves.as_ref().map_or("", |c| c.grouping.name()),
            inner_folds: curves.as_ref().map_or(0, |c| c.folds),
            tau_success: finite(t.success),
            tau_failure: finite(t.failure),
        })
        .collect();
    let (mut tested, mut total_steps) = (0usize, 0usize);
    // Per model: halts, right halts, steps saved.
    let mut counts = [(0usize, 0usize, 0usize); 2];
    for (i, t) in data.trajectories.iter().enumerate() {
        let Some((s, f, fold)) = predictions.tested(i) else {
            continue;
        };
        tested += 1;
        total_steps += t.len();
        let h = halt(s, f, thresholds[fold as usize], t.len(), t.outcome);
        if let Some((model, _)) = h.fired {
            let slot = &mut counts[usize::from(model == Fired::Failure)];
            slot.0 += 1;
            slot.1 += usize::from((h.outcome >= 0.5) == t.success());
            slot.2 += t.len() - h.steps_run;
        }
    }
    let at = |(halts, right, saved): (usize, usize, usize)| ModelAtTarget {
        halts,
        coverage: ratio(halts, tested).unwrap_or(0.0),
        precision: ratio(right, halts),
        steps_saved: ratio(saved, total_steps).unwrap_or(0.0),
    };
    let [success, failure] = counts;
    Some(TargetResult {
        protocol: protocol.name(),
        precision,
        folds,
        coverage: ratio(success.0 + failure.0, tested).unwrap_or(0.0),
        accuracy: ratio(success.1 + failure.1, success.0 + failure.0),
        steps_saved: ratio(success.2 + failure.2, total_steps).unwrap_or(0.0),
        success: at(success),
        failure: at(failure),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::early::trajectories::{Step, StepFields, SystemInfo, Trajectory};

    #[test]
    fn the_proxy_rank_correlations_serve_here_too() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        // x = 1,2,3,4; y = 1,3,2,4: d² = 0+1+1+0 = 2, ρ = 1 − 6·2/(4·15) = 0.8.
        assert!(
            (spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).expect("rho") - 0.8).abs()
                < 1e-12
        );
        // Same data: 5 concordant, 1 discordant of 6 pairs → τ = 4/6.
        assert!(
            (kendall(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).expect("tau") - 4.0 / 6.0).abs()
                < 1e-12
        );
        assert_eq!(spearman(&[1.0, 1.0], &[0.0, 1.0]), None);
    }

    #[test]
    fn target_thresholds_never_read_a_test_fold() {
        use crate::early::saved::tests::{small_settings, synthetic};
        let (features, model) = small_settings();
        let data = synthetic();
        let run = |data: &Trajectories| {
            predict_watched(data, Protocol::Loao, features, model, true, &|_, _| true)
                .expect("predict")
        };
        let before = run(&data);
        // Fold 0 tests system 0: change everything about its trajectories (outcomes and steps).
        let mut changed = data.clone();
        for t in changed.trajectories.iter_mut().filter(|t| t.system == 0) {
            t.outcome = 1.0 - t.outcome;
            t.steps.truncate(2);
        }
        let after = run(&changed);
        assert_eq!(before.folds[0], "sys0");
        assert!(before.inner[0].is_some());
        assert_eq!(
            before.inner[0], after.inner[0],
            "fold 0's thresholds read its test trajectories"
        );
        // The other folds train on system 0, so theirs move: the check above can fail.
        assert_ne!(before.inner[1], after.inner[1]);
        let target = target_result(&data, &before, Protocol::Loao, 0.8).expect("target");
        assert_eq!(target.folds.len(), 3);
        assert_eq!(
            target.success.halts + target.failure.halts,
            (target.coverage * data.trajectories.len() as f64).round() as usize
        );
    }

    /// Two systems, hand-made probabilities: the metrics worked out by hand.
    #[test]
    fn the_sweep_counts_a_tiny_case_by_hand() {
        let traj = |system: u32, steps: usize, outcome: f64| Trajectory {
            system,
            task: 0,
            run: format!("{system}-{steps}"),
            outcome,
            steps: vec![Step::default(); steps],
        };
        let data = Trajectories {
            systems: vec![
                SystemInfo {
                    name: "a".into(),
                    ..SystemInfo::default()
                },
                SystemInfo {
                    name: "b".into(),
                    ..SystemInfo::default()
                },
            ],
            tasks: vec!["t".into()],
            // a: success (10 steps), failure (10); b: failure (4).
            trajectories: vec![traj(0, 10, 1.0), traj(0, 10, 0.0), traj(1, 4, 0.0)],
            fields: StepFields::default(),
            inputs: Vec::new(),
        };
        let mut success = vec![vec![0.5; 9], vec![0.5; 9], vec![0.2; 3]];
        let mut failure = vec![vec![0.5; 9], vec![0.5; 9], vec![0.2; 3]];
        // a's success halts correctly at k = 2; a's failure is called a success at k = 5 (wrong); b
        // runs to the end.
        success[0][1] = 0.95;
        success[1][4] = 0.96;
        failure[2][0] = 0.1;
        let predictions = Predictions {
            success: success.into_iter().map(Some).collect(),
            failure: failure.into_iter().map(Some).collect(),
            folds: vec!["all".into()],
            fold_of: vec![Some(0); 3],
            inner: vec![None],
        };
        let result = &sweep(&data, &predictions, Protocol::Loao, &[0.9], 0.0)[0];
        assert_eq!(result.coverage, 2.0 / 3.0);
        assert_eq!(result.accuracy, Some(0.5));
        assert_eq!(result.success_precision, Some(0.5));
        assert_eq!(result.failure_precision, None);
        // Steps eliminated: (10 − 2) + (10 − 5) + 0 of 24.
        assert_eq!(result.steps_saved, 13.0 / 24.0);
        // a: full 1/2, early 2/2 → +50 pp; b: 0 → 0.
        assert_eq!(result.systems[0].delta_pp, 50.0);
        assert_eq!(result.systems[1].delta_pp, 0.0);
        assert_eq!(
            (result.mean_abs_delta_pp, result.max_abs_delta_pp),
            (25.0, 50.0)
        );
        // Both orders agree: a above b on full and early, so both directed pairs agree.
        assert_eq!(result.pair_agreement, Some(1.0));
        assert_eq!(result.exact_rank_share, 1.0);
        assert_eq!(result.tokens_in_saved, None);
    }
}
