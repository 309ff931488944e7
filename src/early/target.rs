//! Operating points by target precision (issue 21): τ_s and τ_f chosen separately, on the training
//! side only, as the smallest thresholds whose halts reached precision P on an inner split. The
//! training trajectories are split into [`INNER_FOLDS`] folds grouped as the protocol groups them (by
//! system, scaffold, model or task), models are fitted on the other inner folds, and each held-out
//! trajectory gives, per model, its highest probability over its prefixes and whether a halt by that
//! model would be right. That list is the model's [`OperatingCurve`]: for any τ, the model alone halts
//! exactly the trajectories whose highest probability reaches τ, so precision at every τ is read off it.

use serde::{Deserialize, Serialize};

use super::features::{FeatureSettings, Featurizer};
use super::halting::Thresholds;
use super::model::{ModelError, ModelSettings, OutcomeModels};
use super::protocol::Protocol;
use super::trajectories::{Trajectories, Trajectory};
use crate::engine::streams::StreamKey;

/// Folds of the inner split (fewer when the training side has fewer groups).
pub const INNER_FOLDS: usize = 3;

/// What the inner split keeps together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grouping {
    System,
    Scaffold,
    Model,
    Task,
}

impl Grouping {
    /// The grouping of a protocol's folds: what it holds out, it keeps together.
    pub fn of(protocol: Protocol) -> Self {
        match protocol {
            Protocol::Loao => Grouping::System,
            Protocol::Loso => Grouping::Scaffold,
            Protocol::NoSameModel => Grouping::Model,
            Protocol::TaskFolds => Grouping::Task,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Grouping::System => "system",
            Grouping::Scaffold => "scaffold",
            Grouping::Model => "model",
            Grouping::Task => "task",
        }
    }

    fn key(self, data: &Trajectories, t: &Trajectory) -> String {
        let info = &data.systems[t.system as usize];
        match self {
            Grouping::System => info.name.clone(),
            Grouping::Scaffold => info.scaffold.clone().unwrap_or_else(|| info.name.clone()),
            Grouping::Model => info.model.clone().unwrap_or_else(|| info.name.clone()),
            Grouping::Task => data.tasks[t.task as usize].clone(),
        }
    }
}

/// One model's halts on held-out trajectories at every threshold at once: (highest calibrated
/// probability over the trajectory's prefixes, whether a halt by this model is right), highest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OperatingCurve {
    pub points: Vec<(f64, bool)>,
}

impl OperatingCurve {
    fn new(mut points: Vec<(f64, bool)>) -> Self {
        points.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        OperatingCurve { points }
    }

    /// The smallest threshold τ in (0.5, 1] at which the model's halts reach `precision`: the
    /// trajectories whose highest probability is ≥ τ are right at least that often. None: no
    /// threshold reaches it (the model never halts).
    pub fn threshold(&self, precision: f64) -> Option<f64> {
        let (mut right, mut halts) = (0usize, 0usize);
        let mut chosen = None;
        let mut i = 0;
        while i < self.points.len() {
            let value = self.points[i].0;
            // Every trajectory with this highest probability halts at τ = value, so they enter together.
            while i < self.points.len() && self.points[i].0 == value {
                halts += 1;
                right += usize::from(self.points[i].1);
                i += 1;
            }
            if value <= 0.5 {
                break;
            }
            if right as f64 >= precision * halts as f64 - 1e-9 {
                chosen = Some(value);
            }
        }
        chosen
    }

    /// How many held-out trajectories halt at τ and how many of those are right.
    pub fn at(&self, tau: f64) -> (usize, usize) {
        let halted = self.points.iter().take_while(|p| p.0 >= tau);
        halted.fold((0, 0), |(n, r), p| (n + 1, r + usize::from(p.1)))
    }
}

/// The inner split's curves of both models, and how the split was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InnerCurves {
    /// The grouping used (task when the protocol's grouping has a single group on the training side).
    pub grouping: Grouping,
    pub folds: usize,
    /// Inner folds whose training part could not be fitted (one outcome only): their held-out
    /// trajectories are not on the curves.
    pub unfit_folds: usize,
    /// Held-out trajectories with at least one prefix.
    pub trajectories: usize,
    pub success: OperatingCurve,
    pub failure: OperatingCurve,
}

impl InnerCurves {
    /// τ_s and τ_f for a target precision; a model that cannot reach it gets τ = ∞ (never halts).
    pub fn thresholds(&self, precision: f64) -> Thresholds {
        Thresholds {
            success: self.success.threshold(precision).unwrap_or(f64::INFINITY),
            failure: self.failure.threshold(precision).unwrap_or(f64::INFINITY),
        }
    }
}

/// Why the inner split could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InnerError {
    #[error("the training side has a single task, so it cannot be split to choose thresholds")]
    OneGroup,
    #[error("inner split: {0}")]
    Model(#[from] ModelError),
}

/// Fits the inner folds on `train` (indices into `data.trajectories`, the training side only) and
/// returns both models' curves on the held-out trajectories.
pub fn inner_curves(
    data: &Trajectories,
    train: &[usize],
    grouping: Grouping,
    features: FeatureSettings,
    model: ModelSettings,
) -> Result<InnerCurves, InnerError> {
    let distinct = |grouping: Grouping| {
        let mut keys: Vec<String> = train
            .iter()
            .map(|&i| grouping.key(data, &data.trajectories[i]))
            .collect();
        keys.sort();
        keys.dedup();
        keys
    };
    let (grouping, mut keys) = match distinct(grouping) {
        keys if keys.len() >= 2 => (grouping, keys),
        _ => (Grouping::Task, distinct(Grouping::Task)),
    };
    if keys.len() < 2 {
        return Err(InnerError::OneGroup);
    }
    // Groups in a seeded order, dealt round-robin: every inner fold gets a group, and the split is
    // a function of the groups and the seed, not of the input order.
    keys.sort_by_key(|key| {
        StreamKey::new(model.seed, "inner-split")
            .str(key)
            .rng()
            .next_u64()
    });
    let folds = INNER_FOLDS.min(keys.len());
    let fold_of_key = |key: &str| keys.iter().position(|k| k == key).map(|p| p % folds);
    let fold_of: Vec<Option<usize>> = train
        .iter()
        .map(|&i| fold_of_key(&grouping.key(data, &data.trajectories[i])))
        .collect();
    let (mut success, mut failure) = (Vec::new(), Vec::new());
    let mut unfit = Vec::new();
    for f in 0..folds {
        let in_fold = |(_, fold): &(&usize, &Option<usize>)| **fold == Some(f);
        let pairs = || train.iter().zip(&fold_of);
        let held: Vec<usize> = pairs().filter(in_fold).map(|(&i, _)| i).collect();
        let fit: Vec<&Trajectory> = pairs()
            .filter(|pair| !in_fold(pair))
            .map(|(&i, _)| &data.trajectories[i])
            .collect();
        let featurizer = Featurizer::fit(&fit, features);
        let models = match OutcomeModels::fit(featurizer, &fit, model) {
            Ok(models) => models,
            // An inner fold whose training part has one outcome (or none long enough) leaves its
            // held-out trajectories off the curves; the others still choose.
            Err(
                error @ (ModelError::OneOutcome
                | ModelError::NoTrainingData { .. }
                | ModelError::TooShort { .. }),
            ) => {
                unfit.push(error);
                continue;
            }
            Err(error) => return Err(error.into()),
        };
        let width = models.featurizer.names().len();
        for i in held {
            let t = &data.trajectories[i];
            if t.len() < 2 {
                continue;
            }
            let rows: Vec<f64> = models.featurizer.prefixes(&t.steps).concat();
            let highest = |p: Vec<f64>| p.into_iter().fold(f64::NEG_INFINITY, f64::max);
            success.push((
                highest(models.success.probabilities(&rows, width)),
                t.success(),
            ));
            failure.push((
                highest(models.failure.probabilities(&rows, width)),
                !t.success(),
            ));
        }
    }
    if unfit.len() == folds
        && let Some(error) = unfit.pop()
    {
        return Err(error.into());
    }
    Ok(InnerCurves {
        grouping,
        folds,
        unfit_folds: unfit.len(),
        trajectories: success.len(),
        success: OperatingCurve::new(success),
        failure: OperatingCurve::new(failure),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_is_the_smallest_that_reaches_the_precision() {
        // Highest probabilities with rightness: 0.99 ✓, 0.95 ✓, 0.9 ✗, 0.8 ✓, 0.7 ✗, 0.6 ✗.
        let curve = OperatingCurve::new(vec![
            (0.7, false),
            (0.99, true),
            (0.9, false),
            (0.95, true),
            (0.8, true),
            (0.6, false),
        ]);
        // Precision from the top: 1, 1, 2/3, 3/4, 3/5, 1/2.
        assert_eq!(curve.threshold(0.75), Some(0.8));
        assert_eq!(curve.threshold(0.7), Some(0.8));
        assert_eq!(curve.threshold(0.6), Some(0.7));
        assert_eq!(curve.threshold(1.0), Some(0.95));
        assert_eq!(curve.threshold(0.5), Some(0.6));
        assert_eq!(curve.at(0.8), (4, 3));
        // A model whose best halt is wrong never reaches 100%.
        let wrong_top = OperatingCurve::new(vec![(0.99, false), (0.9, true)]);
        assert_eq!(wrong_top.threshold(1.0), None);
        assert_eq!(wrong_top.threshold(0.5), Some(0.9));
        // Ties enter together; nothing at or below 0.5 is a threshold.
        let ties = OperatingCurve::new(vec![(0.9, true), (0.9, false), (0.4, true)]);
        assert_eq!(ties.threshold(0.6), None);
        assert_eq!(ties.threshold(0.5), Some(0.9));
        assert_eq!(OperatingCurve::default().threshold(0.9), None);
        let curves = InnerCurves {
            grouping: Grouping::System,
            folds: 2,
            unfit_folds: 0,
            trajectories: 3,
            success: ties,
            failure: curve,
        };
        let t = curves.thresholds(0.75);
        assert_eq!((t.success, t.failure), (f64::INFINITY, 0.8));
    }
}
