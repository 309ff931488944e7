//! The classifiers of SPEC §11: a success model and a failure model, gradient-boosted trees
//! (`forust-ml`) on the prefix features of one training fold, each with a Platt calibrator. Training
//! leaves out trajectories shorter than `min_steps`, weighs every prefix 1/(T − 1) so that each
//! trajectory has equal mass, and keeps 20% of the training trajectories (all prefixes of a trajectory
//! on one side, chosen by a seeded hash) to fit the calibrators. Under log loss the failure model's
//! trees are the success model's mirrored, so they are grown once (see [`negated`]).

use forust_ml::data::Matrix;
use forust_ml::gradientbooster::GradientBooster;
use forust_ml::objective::ObjectiveType;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::features::Featurizer;
use super::trajectories::Trajectory;
use crate::engine::streams::StreamKey;

/// How the trees are grown and the training set is built.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelSettings {
    pub iterations: usize,
    pub learning_rate: f32,
    pub max_depth: usize,
    /// Trajectories with fewer steps are not trained on (they are still predicted).
    pub min_steps: usize,
    /// Share of training trajectories held out for calibration.
    pub calibration_share: f64,
    pub seed: u64,
}

impl Default for ModelSettings {
    fn default() -> Self {
        ModelSettings {
            iterations: 50,
            learning_rate: 0.1,
            max_depth: 6,
            min_steps: 10,
            calibration_share: 0.2,
            seed: 0,
        }
    }
}

/// Why a model could not be trained.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error(
        "no training trajectory has {min_steps} steps or more (the longest has {longest}): lower --min-steps, e.g. --min-steps {suggest}"
    )]
    NoTrainingData {
        min_steps: usize,
        longest: usize,
        suggest: usize,
    },
    /// Every training trajectory has fewer than two steps: no --min-steps can help.
    #[error(
        "every training trajectory has at most {longest} step: a prefix model needs trajectories of 2 steps or more (one prefix before the outcome), whatever --min-steps says"
    )]
    TooShort { longest: usize },
    #[error("the training trajectories all end the same way, so there is nothing to learn")]
    OneOutcome,
    /// The trajectories left for the trees once the calibration share is held out are of one
    /// outcome (few trajectories): the trees' base score is infinite and no model is learnt.
    #[error(
        "the {fit} trajectories left for the trees once a calibration share is held out all end the same way, so there is nothing to learn (too few trajectories; another --seed holds out others)"
    )]
    OneOutcomeAfterSplit { fit: usize },
    #[error("gradient boosting failed: {0}")]
    Boosting(String),
}

/// Platt scaling: P(y = 1 | s) = 1 / (1 + exp(−(a·s + b))) on a model's raw score s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Platt {
    pub a: f64,
    pub b: f64,
}

impl Platt {
    /// Fits a and b by Newton's method on the weighted log loss, with Platt's smoothed targets
    /// ((N₊ + 1)/(N₊ + 2) for positives, 1/(N₋ + 2) for negatives) so that a separable sample does
    /// not drive the slope to infinity.
    pub fn fit(scores: &[f64], labels: &[bool], weights: &[f64]) -> Self {
        let positives: f64 = labels
            .iter()
            .zip(weights)
            .filter(|(l, _)| **l)
            .map(|(_, w)| w)
            .sum();
        let negatives: f64 = weights.iter().sum::<f64>() - positives;
        let hi = (positives + 1.0) / (positives + 2.0);
        let lo = 1.0 / (negatives + 2.0);
        let (mut a, mut b) = (1.0, 0.0);
        for _ in 0..100 {
            // Gradient and Hessian of Σ w·loss(a·s + b).
            let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for ((&s, &l), &w) in scores.iter().zip(labels).zip(weights) {
                let target = if l { hi } else { lo };
                let p = sigmoid(a * s + b);
                let (d, h) = (w * (p - target), w * p * (1.0 - p));
                ga += d * s;
                gb += d;
                haa += h * s * s;
                hab += h * s;
                hbb += h;
            }
            // A small ridge keeps the step defined when every score is equal.
            let (haa, hbb) = (haa + 1e-12, hbb + 1e-12);
            let det = haa * hbb - hab * hab;
            if det.abs() < 1e-300 {
                break;
            }
            let da = (hbb * ga - hab * gb) / det;
            let db = (haa * gb - hab * ga) / det;
            a -= da;
            b -= db;
            if da.abs() < 1e-12 && db.abs() < 1e-12 {
                break;
            }
        }
        Platt { a, b }
    }

    pub fn probability(&self, score: f64) -> f64 {
        sigmoid(self.a * score + self.b)
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// One calibrated classifier (saved as forust-ml's own serde form of the trees and the calibrator).
#[derive(Serialize, Deserialize)]
pub struct Calibrated {
    booster: GradientBooster,
    pub platt: Platt,
}

impl Calibrated {
    /// Calibrated probabilities of the rows (row-major, `width` features each).
    pub fn probabilities(&self, rows: &[f64], width: usize) -> Vec<f64> {
        let n = rows.len() / width.max(1);
        let columns = column_major(rows, n, width);
        let matrix = Matrix::new(&columns, n, width);
        self.booster
            .predict(&matrix, false)
            .into_iter()
            .map(|s| self.platt.probability(s))
            .collect()
    }

    /// Checks that the trees can be walked on rows of `width` features: every split reads a
    /// feature below `width` and every child comes after its node in its tree (forust grows them
    /// so), so that a damaged file that no hash covers is refused rather than ending the process
    /// on an index out of bounds, or looping.
    pub fn check_trees(&self, width: usize) -> Result<(), String> {
        for (t, tree) in self.booster.trees.iter().enumerate() {
            if tree.nodes.is_empty() {
                return Err(format!("tree {t} has no nodes"));
            }
            for (i, node) in tree.nodes.iter().enumerate() {
                if node.is_leaf {
                    continue;
                }
                if node.split_feature >= width {
                    return Err(format!(
                        "tree {t}, node {i} splits on feature {} of {width}",
                        node.split_feature
                    ));
                }
                for child in [node.left_child, node.right_child, node.missing_node] {
                    if child <= i || child >= tree.nodes.len() {
                        return Err(format!(
                            "tree {t}, node {i} has child {child} (nodes {}..{})",
                            i + 1,
                            tree.nodes.len()
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

fn column_major(rows: &[f64], n: usize, width: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * width];
    for r in 0..n {
        for c in 0..width {
            out[c * n + r] = rows[r * width + c];
        }
    }
    out
}

/// The success and failure models of one fold, and the featurizer they read.
pub struct OutcomeModels {
    pub featurizer: Featurizer,
    pub success: Calibrated,
    pub failure: Calibrated,
}

/// The prefixes of some trajectories as one row-major matrix, with each row's trajectory, label and
/// weight 1/(T − 1).
struct TrainingRows {
    rows: Vec<f64>,
    success: Vec<bool>,
    weights: Vec<f64>,
}

fn training_rows(featurizer: &Featurizer, trajectories: &[&Trajectory]) -> TrainingRows {
    let mut out = TrainingRows {
        rows: Vec::new(),
        success: Vec::new(),
        weights: Vec::new(),
    };
    // Featurized in parallel, gathered in trajectory order: the same rows on any thread count.
    let vectors: Vec<Vec<Vec<f64>>> = trajectories
        .par_iter()
        .map(|traj| featurizer.prefixes(&traj.steps))
        .collect();
    for (traj, prefixes) in trajectories.iter().zip(vectors) {
        let weight = 1.0 / (traj.len() - 1) as f64;
        for vector in prefixes {
            out.rows.extend(vector);
            out.success.push(traj.success());
            out.weights.push(weight);
        }
    }
    out
}

/// Grows the trees of one model on its 0/1 targets.
fn grow(
    matrix: &Matrix<f64>,
    labels: &[f64],
    weights: &[f64],
    settings: ModelSettings,
) -> Result<GradientBooster, ModelError> {
    let mut booster = GradientBooster::default()
        .set_objective_type(ObjectiveType::LogLoss)
        .set_iterations(settings.iterations)
        .set_learning_rate(settings.learning_rate)
        .set_max_depth(settings.max_depth)
        .set_seed(settings.seed)
        // Row-wise fill from a tiled copy of the binned data: 2.3× faster on BALROG's 244k
        // prefixes × 173 features, sums independent of the thread count.
        .set_tiled_histograms(true);
    booster
        .fit(matrix, labels, weights, None)
        .map_err(|e| ModelError::Boosting(e.to_string()))?;
    Ok(booster)
}

/// The failure model: the success model with its base score and every node's value negated.
///
/// Under log loss the failure target 1 − y is the success problem mirrored: the boosting starts
/// from the negated base score (the log-odds of 1 − ȳ), every row's gradient p − y changes sign
/// while its hessian p·(1 − p) stays, so each split's gain G²/(H + λ) is the same, the same splits
/// are chosen, and each leaf's value −G/(H + λ) is negated; the failure model's score is the
/// success model's negated, exactly (negation is exact in floating point, and so is the sum of
/// negated terms). Growing its trees again would double the training (half of `early`'s time) to
/// get the same trees up to rounding. forust's booster has no `Clone`; its serde form copies it
/// bit for bit (`to_value` keeps the numbers, no text in between).
fn negated(booster: &GradientBooster) -> Result<GradientBooster, ModelError> {
    let copy = serde_json::to_value(booster)
        .and_then(serde_json::from_value::<GradientBooster>)
        .map_err(|e| ModelError::Boosting(format!("copying the success model: {e}")));
    let mut copy = copy?;
    copy.base_score = -copy.base_score;
    for tree in &mut copy.trees {
        for node in &mut tree.nodes {
            node.weight_value = -node.weight_value;
        }
    }
    Ok(copy)
}

impl OutcomeModels {
    /// Both calibrated probabilities (success, failure) of one prefix's feature vector.
    pub fn score(&self, vector: &[f64]) -> (f64, f64) {
        let width = vector.len();
        let one = |model: &Calibrated| model.probabilities(vector, width).first().copied();
        (
            one(&self.success).unwrap_or(f64::NAN),
            one(&self.failure).unwrap_or(f64::NAN),
        )
    }

    /// Trains both models on the training fold: the featurizer and the trees on 80% of the
    /// trajectories (of at least `min_steps` steps), the calibrators on the other 20%. The trees
    /// are grown once, for success; the failure model's are their mirror ([`negated`]).
    pub fn fit(
        featurizer: Featurizer,
        train: &[&Trajectory],
        settings: ModelSettings,
    ) -> Result<Self, ModelError> {
        let usable: Vec<&Trajectory> = train
            .iter()
            .copied()
            .filter(|t| t.len() >= settings.min_steps.max(2))
            .collect();
        if usable.is_empty() {
            let longest = train.iter().map(|t| t.len()).max().unwrap_or(0);
            // Two steps are the fewest a prefix model can learn from (one prefix, one outcome):
            // "no trajectory has 1 steps or more (the longest has 1)" contradicted itself.
            if longest < 2 {
                return Err(ModelError::TooShort { longest });
            }
            return Err(ModelError::NoTrainingData {
                min_steps: settings.min_steps.max(2),
                longest,
                suggest: longest,
            });
        }
        if usable.iter().all(|t| t.success()) || !usable.iter().any(|t| t.success()) {
            return Err(ModelError::OneOutcome);
        }
        // Calibration trajectories by a seeded hash of their identity, so the split is a function of
        // the data and the seed, not of the input order.
        let held = |t: &Trajectory| {
            let draw = StreamKey::new(settings.seed, "calibration-split")
                .u64(u64::from(t.system))
                .u64(u64::from(t.task))
                .str(&t.run)
                .rng()
                .next_u64();
            crate::engine::rules::stats::unit(draw) < settings.calibration_share
        };
        let (calibration, fit): (Vec<&Trajectory>, Vec<&Trajectory>) =
            usable.iter().copied().partition(|t| held(t));
        // One outcome among them gave an infinite base score, found only when the model was
        // copied ("invalid type: null, expected f64").
        if fit.iter().all(|t| t.success()) || !fit.iter().any(|t| t.success()) {
            return Err(ModelError::OneOutcomeAfterSplit { fit: fit.len() });
        }
        let width = featurizer.names().len();
        let fit_rows = training_rows(&featurizer, &fit);
        let calibration_rows = training_rows(&featurizer, &calibration);
        let n = fit_rows.success.len();
        let columns = column_major(&fit_rows.rows, n, width);
        let matrix = Matrix::new(&columns, n, width);
        let labels: Vec<f64> = fit_rows
            .success
            .iter()
            .map(|&s| f64::from(u8::from(s)))
            .collect();
        let booster = grow(&matrix, &labels, &fit_rows.weights, settings)?;
        let failure_booster = negated(&booster)?;
        let calibration_scores = (!calibration_rows.success.is_empty()).then(|| {
            let cal_n = calibration_rows.success.len();
            let cal_columns = column_major(&calibration_rows.rows, cal_n, width);
            booster.predict(&Matrix::new(&cal_columns, cal_n, width), false)
        });
        // Each model's calibrator is fitted on its own scores and target (the failure model's
        // scores are the success model's negated, its target the other outcome).
        let calibrate = |booster: GradientBooster, sign: f64, positive: bool| -> Calibrated {
            let mut model = Calibrated {
                booster,
                platt: Platt { a: 1.0, b: 0.0 },
            };
            if let Some(scores) = &calibration_scores {
                let scores: Vec<f64> = scores.iter().map(|s| sign * s).collect();
                let labels: Vec<bool> = calibration_rows
                    .success
                    .iter()
                    .map(|&s| s == positive)
                    .collect();
                model.platt = Platt::fit(&scores, &labels, &calibration_rows.weights);
            }
            model
        };
        let success = calibrate(booster, 1.0, true);
        let failure = calibrate(failure_booster, -1.0, false);
        Ok(OutcomeModels {
            featurizer,
            success,
            failure,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platt_recovers_a_known_logistic_curve() {
        // Scores on a grid with P(y = 1 | s) = σ(2s − 1), as expected counts out of 1,000 per score.
        let mut scores = Vec::new();
        let mut labels = Vec::new();
        let mut weights = Vec::new();
        for i in 0..=40 {
            let s = -2.0 + 0.1 * f64::from(i);
            let p = sigmoid(2.0 * s - 1.0);
            scores.extend([s, s]);
            labels.extend([true, false]);
            weights.extend([1000.0 * p, 1000.0 * (1.0 - p)]);
        }
        let platt = Platt::fit(&scores, &labels, &weights);
        // The smoothed targets move the answer by about 1/N; N = 41,000.
        assert!((platt.a - 2.0).abs() < 0.01, "{platt:?}");
        assert!((platt.b + 1.0).abs() < 0.01, "{platt:?}");
    }

    #[test]
    fn platt_stays_finite_on_a_separable_sample() {
        let platt = Platt::fit(
            &[-1.0, -0.5, 0.5, 1.0],
            &[false, false, true, true],
            &[1.0; 4],
        );
        assert!(platt.a.is_finite() && platt.b.is_finite());
        assert!(platt.probability(1.0) < 1.0 && platt.probability(-1.0) > 0.0);
        assert!(platt.probability(1.0) > 0.5 && platt.probability(-1.0) < 0.5);
    }

    /// Rows of three features with a noisy logistic target, and weights that vary.
    fn noisy_rows(n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut columns = vec![0.0; 3 * n];
        let (mut labels, mut weights) = (Vec::new(), Vec::new());
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for r in 0..n {
            for c in 0..3 {
                columns[c * n + r] = next() * 4.0 - 2.0;
            }
            let z = 1.5 * columns[r] - columns[n + r] + 0.5 * columns[2 * n + r] * columns[r];
            labels.push(f64::from(u8::from(next() < sigmoid(z))));
            weights.push(0.5 + next());
        }
        (columns, labels, weights)
    }

    #[test]
    fn the_mirrored_failure_model_is_the_one_grown_for_failure() {
        let n = 2_000;
        let (columns, labels, weights) = noisy_rows(n);
        let matrix = Matrix::new(&columns, n, 3);
        let settings = ModelSettings::default();
        let success = grow(&matrix, &labels, &weights, settings).unwrap();
        let flipped: Vec<f64> = labels.iter().map(|y| 1.0 - y).collect();
        let grown = grow(&matrix, &flipped, &weights, settings).unwrap();
        let mirrored = negated(&success).unwrap();
        let (s, g, m) = (
            success.predict(&matrix, false),
            grown.predict(&matrix, false),
            mirrored.predict(&matrix, false),
        );
        // Exactly the success score negated …
        assert!(s.iter().zip(&m).all(|(s, m)| *m == -*s));
        // … and the failure model that growing trees for the failure target gives, up to the
        // rounding of f32 gradient sums (a base score or leaf left unnegated is off by far more).
        let most = g
            .iter()
            .zip(&m)
            .map(|(g, m)| (g - m).abs())
            .fold(0.0, f64::max);
        assert!(most < 1e-9, "largest score difference {most}");
        assert!(s.iter().map(|s| s.abs()).fold(0.0, f64::max) > 0.5);
    }
}
