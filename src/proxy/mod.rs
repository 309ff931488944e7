//! Proxy benchmarks (SPEC §10, within one benchmark): choose a subset of tasks on *training systems only*,
//! map a held-out system's outcomes on the subset to its full score, and measure how well the subset
//! predicts scores, ranks and pair decisions. Plain matrices in, plain results out: no polars, no I/O.
//!
//! The matrix keeps the tasks every system has an outcome for (ridge needs complete rows); the number
//! left out is reported. The full score of a system is its mean over those tasks.

mod error;
mod evaluation;
pub mod pace;
pub mod stats;

pub use error::ProxyError;
pub use evaluation::{
    ProxyEvaluation, ProxyRow, ProxySettings, SubsetSizes, evaluate_protocols, proxy_curve,
};

use serde::Serialize;

use crate::dataset::Dataset;
use crate::engine::streams::StreamKey;
use stats::{Ridge, kendall_tau_b, mean_absolute_error, pairwise_accuracy, r_squared, spearman};

/// Ridge penalty (SPEC §10).
pub const RIDGE_ALPHA: f64 = 1.0;
/// Thresholds (pp) at which proxy pair decisions are compared with completed-record decisions.
pub const DECISION_THRESHOLDS_PP: [f64; 3] = [0.0, 5.0, 10.0];

/// Task selection methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Random,
    Midrange,
    MidrangeK,
    EasiestK,
    HardestK,
    StratifiedK,
    GreedyK,
}

impl Method {
    pub const ALL: [Method; 7] = [
        Method::Random,
        Method::Midrange,
        Method::MidrangeK,
        Method::EasiestK,
        Method::HardestK,
        Method::StratifiedK,
        Method::GreedyK,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::Random => "random",
            Method::Midrange => "midrange",
            Method::MidrangeK => "midrange-k",
            Method::EasiestK => "easiest-k",
            Method::HardestK => "hardest-k",
            Method::StratifiedK => "stratified-k",
            Method::GreedyK => "greedy-k",
        }
    }

    pub fn parse(text: &str) -> Result<Self, ProxyError> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == text)
            .ok_or_else(|| {
                ProxyError::UnknownMethod(
                    text.to_string(),
                    Method::ALL.map(Method::name).join(", "),
                )
            })
    }
}

/// Evaluation protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// Leave one system out.
    Loao,
    /// Leave one out among the systems of the held-out system's scaffold.
    WithinScaffold,
    /// Leave one scaffold out.
    Loso,
    /// Random 80/20 splits of systems.
    Split,
    /// Expanding window over submission dates.
    Temporal,
}

impl Protocol {
    pub const ALL: [Protocol; 5] = [
        Protocol::Loao,
        Protocol::WithinScaffold,
        Protocol::Loso,
        Protocol::Split,
        Protocol::Temporal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::Loao => "loao",
            Protocol::WithinScaffold => "within-scaffold",
            Protocol::Loso => "loso",
            Protocol::Split => "split",
            Protocol::Temporal => "temporal",
        }
    }

    pub fn parse(text: &str) -> Result<Self, ProxyError> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.name() == text)
            .ok_or_else(|| {
                ProxyError::UnknownProtocol(
                    text.to_string(),
                    Protocol::ALL.map(Protocol::name).join(", "),
                )
            })
    }
}

/// The complete systems × tasks matrix a proxy works on.
pub struct ProxyMatrix {
    pub systems: Vec<String>,
    pub scaffolds: Vec<Option<String>>,
    pub submitted: Vec<Option<String>>,
    pub n_tasks: usize,
    /// Row-major outcomes.
    pub x: Vec<f64>,
    /// Group of each kept task (0 without a group column).
    pub groups: Vec<u32>,
    /// Mean cost of each kept task over systems (None without cost).
    pub task_cost: Option<Vec<f64>>,
    pub full: Vec<f64>,
    /// Tasks of the record left out because some system lacks them.
    pub left_out: usize,
    /// When tasks are left out: how many, and the system with the fewest tasks, which a reader
    /// would otherwise have to find (one system with one task left one task of 50).
    pub coverage_note: Option<String>,
    /// The record's benchmarks, when it holds several: the within-benchmark evaluation reads their
    /// tasks as one benchmark (SPEC §10 is one benchmark's matrix), which went unsaid.
    pub pooled_note: Option<String>,
}

impl ProxyMatrix {
    /// The matrix of a record; `group_column` is a resolved name (see
    /// [`Dataset::resolve_group_column`]): one that is not a candidate is an error, never one group.
    pub fn new(dataset: &Dataset, group_column: Option<&str>) -> Result<Self, ProxyError> {
        let n_sys = dataset.n_systems();
        if n_sys < 3 {
            return Err(ProxyError::TooFewSystems(n_sys));
        }
        let group_column = match group_column {
            Some(name) => dataset.resolve_group_column(Some(name))?,
            None => None,
        };
        let group_column = group_column.and_then(|name| dataset.group_column(&name));
        // Systems by name and tasks by (benchmark, name): the samples, splits and sums below then do
        // not follow the order the files list their rows in.
        let systems = dataset.systems_by_name();
        let keep: Vec<usize> = dataset
            .tasks_in_canonical_order()
            .into_iter()
            .map(|t| t as usize)
            .filter(|&t| (0..n_sys).all(|s| dataset.outcome(s, t).is_some()))
            .collect();
        if keep.is_empty() {
            return Err(ProxyError::NoCompleteTask);
        }
        let x: Vec<f64> = systems
            .iter()
            .flat_map(|&s| {
                keep.iter()
                    .map(move |&t| dataset.outcome(s, t).unwrap_or(0.0))
            })
            .collect();
        let k = keep.len();
        let full = (0..n_sys)
            .map(|s| x[s * k..(s + 1) * k].iter().sum::<f64>() / k as f64)
            .collect();
        let groups = match group_column {
            Some(column) => keep.iter().map(|&t| column.of_task[t]).collect(),
            None => vec![0; k],
        };
        let task_cost = dataset.cost.as_ref().map(|cost| {
            keep.iter()
                .map(|&t| {
                    let values: Vec<f64> = systems
                        .iter()
                        .map(|&s| cost[s * dataset.n_tasks() + t])
                        .filter(|c| !c.is_nan())
                        .collect();
                    if values.is_empty() {
                        0.0
                    } else {
                        values.iter().sum::<f64>() / values.len() as f64
                    }
                })
                .collect()
        });
        let info = |s: &usize| &dataset.systems[*s];
        let coverage_note = (k < dataset.n_tasks()).then(|| {
            let covered = |s: usize| {
                (0..dataset.n_tasks())
                    .filter(|&t| dataset.outcome(s, t).is_some())
                    .count()
            };
            let (fewest, count) = systems
                .iter()
                .map(|&s| (s, covered(s)))
                .min_by_key(|&(s, count)| (count, info(&s).name.clone()))
                .unwrap_or((0, 0));
            format!(
                "{} of {} tasks are left out, as some system has no outcome on them; the fewest: {} with {count} task{} (--min-system-coverage F leaves out systems with less than that share of the tasks)",
                dataset.n_tasks() - k,
                dataset.n_tasks(),
                crate::data::error::quote(&info(&fewest).name),
                if count == 1 { "" } else { "s" }
            )
        });
        let pooled_note = (dataset.benchmarks.len() > 1).then(|| {
            let names: Vec<String> = dataset
                .benchmarks
                .iter()
                .take(5)
                .map(|b| crate::data::error::quote(b))
                .collect();
            let more = if dataset.benchmarks.len() > 5 { ", …" } else { "" };
            format!(
                "the record holds {} benchmarks ({}{more}), read here as one: each system's full score is its mean over all {k} tasks (--keep-groups benchmark=NAME reads one benchmark; --target NAME predicts one from the others)",
                dataset.benchmarks.len(),
                names.join(", ")
            )
        });
        Ok(ProxyMatrix {
            systems: systems.iter().map(|s| info(s).name.clone()).collect(),
            scaffolds: systems.iter().map(|s| info(s).scaffold.clone()).collect(),
            submitted: systems.iter().map(|s| info(s).submitted.clone()).collect(),
            n_tasks: k,
            x,
            groups,
            task_cost,
            full,
            left_out: dataset.n_tasks() - k,
            coverage_note,
            pooled_note,
        })
    }

    fn value(&self, system: usize, task: usize) -> f64 {
        self.x[system * self.n_tasks + task]
    }

    /// Pass rate of every task over the training systems.
    fn pass_rates(&self, train: &[usize]) -> Vec<f64> {
        (0..self.n_tasks)
            .map(|t| train.iter().map(|&s| self.value(s, t)).sum::<f64>() / train.len() as f64)
            .collect()
    }
}

/// The tasks `method` selects from training systems only. `size` is k (ignored by `midrange`, which
/// takes its own band).
pub fn select(
    matrix: &ProxyMatrix,
    train: &[usize],
    method: Method,
    size: usize,
    seed: u64,
) -> Vec<usize> {
    let n = matrix.n_tasks;
    let size = size.clamp(1, n);
    let rates = matrix.pass_rates(train);
    let by_key = |key: &dyn Fn(usize) -> f64| -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
        order.truncate(size);
        order.sort_unstable();
        order
    };
    match method {
        Method::Random => {
            let mut order: Vec<usize> = (0..n).collect();
            StreamKey::new(seed, "proxy-random")
                .rng()
                .shuffle_prefix(&mut order, size);
            let mut chosen = order[..size].to_vec();
            chosen.sort_unstable();
            chosen
        }
        Method::Midrange => midrange_band(&rates).1,
        Method::MidrangeK => by_key(&|t| rates[t] * (1.0 - rates[t])),
        Method::EasiestK => by_key(&|t| rates[t]),
        Method::HardestK => by_key(&|t| -rates[t]),
        Method::StratifiedK => stratified(matrix, size, seed),
        Method::GreedyK => greedy(matrix, train, size),
    }
}

/// The mid-range band: tasks whose training pass rate is in [0.30, 0.70], widened to [0.25, 0.75] and
/// then [0.15, 0.85] while fewer than 10% of tasks qualify. Returns the band used and the tasks.
pub fn midrange_band(rates: &[f64]) -> ((f64, f64), Vec<usize>) {
    let bands = [(0.30, 0.70), (0.25, 0.75), (0.15, 0.85)];
    let mut result = ((0.0, 0.0), Vec::new());
    for band in bands {
        let tasks: Vec<usize> = (0..rates.len())
            .filter(|&t| rates[t] >= band.0 - 1e-12 && rates[t] <= band.1 + 1e-12)
            .collect();
        let enough = tasks.len() as f64 >= 0.1 * rates.len() as f64;
        result = (band, tasks);
        if enough {
            break;
        }
    }
    result
}

/// k tasks allocated to groups in proportion to their size (largest remainders), random within a group.
fn stratified(matrix: &ProxyMatrix, size: usize, seed: u64) -> Vec<usize> {
    let groups = matrix
        .groups
        .iter()
        .copied()
        .max()
        .map_or(1, |g| g as usize + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); groups];
    for (t, &g) in matrix.groups.iter().enumerate() {
        members[g as usize].push(t);
    }
    let n = matrix.n_tasks as f64;
    let exact: Vec<f64> = members
        .iter()
        .map(|m| m.len() as f64 * size as f64 / n)
        .collect();
    let mut quota: Vec<usize> = exact.iter().map(|e| e.floor() as usize).collect();
    let mut order: Vec<usize> = (0..groups).collect();
    order.sort_by(|&a, &b| {
        (exact[b] - exact[b].floor())
            .total_cmp(&(exact[a] - exact[a].floor()))
            .then(a.cmp(&b))
    });
    let mut missing = size - quota.iter().sum::<usize>();
    for &g in order.iter().cycle().take(groups * 2) {
        if missing == 0 {
            break;
        }
        if quota[g] < members[g].len() {
            quota[g] += 1;
            missing -= 1;
        }
    }
    let mut rng = StreamKey::new(seed, "proxy-stratified").rng();
    let mut chosen = Vec::with_capacity(size);
    for (g, list) in members.iter_mut().enumerate() {
        rng.shuffle_prefix(list, quota[g]);
        chosen.extend_from_slice(&list[..quota[g].min(list.len())]);
    }
    chosen.sort_unstable();
    chosen
}

/// Forward selection maximising the training Spearman correlation between the subset mean and the full
/// score; ties go to the lower task index. The path is nested, so one run serves every smaller k.
pub fn greedy_path(matrix: &ProxyMatrix, train: &[usize], size: usize) -> Vec<usize> {
    let full: Vec<f64> = train.iter().map(|&s| matrix.full[s]).collect();
    let mut sums = vec![0.0; train.len()];
    let mut used = vec![false; matrix.n_tasks];
    let mut path = Vec::with_capacity(size);
    let mut candidate = vec![0.0; train.len()];
    for _ in 0..size.min(matrix.n_tasks) {
        let mut best: Option<(f64, usize)> = None;
        for (t, _) in used.iter().enumerate().filter(|(_, used)| !**used) {
            for (i, &s) in train.iter().enumerate() {
                candidate[i] = sums[i] + matrix.value(s, t);
            }
            let score = spearman(&candidate, &full).unwrap_or(-2.0);
            if best.is_none_or(|(b, _)| score > b + 1e-12) {
                best = Some((score, t));
            }
        }
        let Some((_, t)) = best else { break };
        used[t] = true;
        for (i, &s) in train.iter().enumerate() {
            sums[i] += matrix.value(s, t);
        }
        path.push(t);
    }
    path
}

fn greedy(matrix: &ProxyMatrix, train: &[usize], size: usize) -> Vec<usize> {
    let mut chosen = greedy_path(matrix, train, size);
    chosen.sort_unstable();
    chosen
}

/// One held-out evaluation: which systems train and which are predicted.
pub struct Fold {
    pub train: Vec<usize>,
    pub test: Vec<usize>,
}

/// The folds of a protocol; an error says which column it needs.
pub fn folds(
    matrix: &ProxyMatrix,
    protocol: Protocol,
    splits: u32,
    seed: u64,
) -> Result<Vec<Vec<Fold>>, ProxyError> {
    let n = matrix.systems.len();
    let all: Vec<usize> = (0..n).collect();
    let need = |column: &'static str, present: bool| {
        if present {
            Ok(())
        } else {
            Err(ProxyError::MissingAttribute {
                protocol: protocol.name(),
                column,
            })
        }
    };
    let one_round = |folds: Vec<Fold>| vec![folds];
    match protocol {
        Protocol::Loao => Ok(one_round(
            all.iter()
                .map(|&s| Fold {
                    train: all.iter().copied().filter(|&o| o != s).collect(),
                    test: vec![s],
                })
                .collect(),
        )),
        Protocol::WithinScaffold => {
            need("scaffold", matrix.scaffolds.iter().all(Option::is_some))?;
            let folds: Vec<Fold> = all
                .iter()
                .filter_map(|&s| {
                    let train: Vec<usize> = all
                        .iter()
                        .copied()
                        .filter(|&o| o != s && matrix.scaffolds[o] == matrix.scaffolds[s])
                        .collect();
                    (train.len() >= 2).then(|| Fold {
                        train,
                        test: vec![s],
                    })
                })
                .collect();
            if folds.is_empty() {
                return Err(ProxyError::TooFewForProtocol {
                    protocol: protocol.name(),
                    need: "a scaffold with at least 3 systems",
                });
            }
            Ok(one_round(folds))
        }
        Protocol::Loso => {
            need("scaffold", matrix.scaffolds.iter().all(Option::is_some))?;
            let mut scaffolds: Vec<&Option<String>> = matrix.scaffolds.iter().collect();
            scaffolds.sort();
            scaffolds.dedup();
            if scaffolds.len() < 2 {
                return Err(ProxyError::TooFewForProtocol {
                    protocol: protocol.name(),
                    need: "at least 2 scaffolds",
                });
            }
            let folds = scaffolds
                .iter()
                .map(|scaffold| Fold {
                    train: all
                        .iter()
                        .copied()
                        .filter(|&o| matrix.scaffolds[o] != **scaffold)
                        .collect(),
                    test: all
                        .iter()
                        .copied()
                        .filter(|&o| matrix.scaffolds[o] == **scaffold)
                        .collect(),
                })
                .filter(|f| f.train.len() >= 2)
                .collect();
            Ok(one_round(folds))
        }
        Protocol::Split => Ok((0..splits)
            .map(|round| {
                let mut order = all.clone();
                StreamKey::new(seed, "proxy-split")
                    .u64(u64::from(round))
                    .rng()
                    .shuffle(&mut order);
                let test_size = (n as f64 * 0.2).round().max(1.0) as usize;
                let (test, train) = order.split_at(test_size);
                vec![Fold {
                    train: train.to_vec(),
                    test: test.to_vec(),
                }]
            })
            .collect()),
        Protocol::Temporal => {
            need(
                "submitted date",
                matrix.submitted.iter().all(Option::is_some),
            )?;
            let mut order = all.clone();
            order.sort_by(|&a, &b| {
                matrix.submitted[a]
                    .cmp(&matrix.submitted[b])
                    .then(matrix.systems[a].cmp(&matrix.systems[b]))
            });
            // Expanding window: each system is predicted from every system submitted strictly earlier,
            // once at least 3 earlier systems exist.
            let folds = order
                .iter()
                .map(|&s| Fold {
                    train: order
                        .iter()
                        .copied()
                        .filter(|&o| matrix.submitted[o] < matrix.submitted[s])
                        .collect(),
                    test: vec![s],
                })
                .filter(|f| f.train.len() >= 3)
                .collect::<Vec<_>>();
            if folds.is_empty() {
                return Err(ProxyError::TooFewForProtocol {
                    protocol: protocol.name(),
                    need: "at least 3 systems submitted before another",
                });
            }
            Ok(one_round(folds))
        }
    }
}

/// A predicted and an actual score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemPrediction {
    pub system: String,
    pub predicted: f64,
    pub actual: f64,
    /// The unweighted subset mean (the rank predictor).
    pub subset_mean: f64,
}

/// Share of ordered pairs of `predictions` whose proxy decision (predicted difference > δ) is the
/// completed record's (actual difference > δ); None with fewer than two systems.
pub fn decision_agreement_at(predictions: &[SystemPrediction], delta: f64) -> Option<f64> {
    let cut = delta + crate::engine::settings::EPSILON;
    let (mut agree, mut pairs) = (0u32, 0u32);
    for a in predictions {
        for b in predictions {
            if !std::ptr::eq(a, b) {
                pairs += 1;
                agree +=
                    u32::from((a.predicted - b.predicted > cut) == (a.actual - b.actual > cut));
            }
        }
    }
    (pairs > 0).then(|| f64::from(agree) / f64::from(pairs))
}

/// The metrics of one method, protocol and subset size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProxyResult {
    pub method: &'static str,
    pub protocol: &'static str,
    pub budget: Option<f64>,
    pub size: usize,
    /// Ridge predictions: scores.
    pub spearman: Option<f64>,
    pub kendall: Option<f64>,
    pub r2: Option<f64>,
    pub mae_pp: f64,
    pub pair_accuracy: Option<f64>,
    /// Spearman of the subset mean (the rank predictor).
    pub subset_mean_spearman: Option<f64>,
    /// Agreement of proxy pair decisions (predicted difference > δ) with completed-record decisions at
    /// 0, 5 and 10 pp.
    pub decision_agreement: Vec<f64>,
    pub task_share: f64,
    pub cost_share: Option<f64>,
    /// Rounds averaged (splits), else 1.
    pub rounds: usize,
    /// Folds fitted (over every round, and every seed of the random method), and of those the folds
    /// whose subset no training system tells apart from another: every chosen task has the same
    /// outcome for all of them (`empty_folds`: no task chosen at all). The ridge's prediction there is
    /// the training systems' mean score whatever the held-out system did; when every fold is so, the
    /// ridge's figures (ρ, τ-b, R², pairs, agreement) are left out: under leave-one-out a mean of
    /// the others ranks the systems backwards by construction (ρ = −1), which says nothing of the
    /// subset.
    pub folds: usize,
    pub constant_folds: usize,
    pub empty_folds: usize,
    pub systems: Vec<SystemPrediction>,
}

impl ProxyResult {
    /// Whether every fold's prediction is the training mean (see [`ProxyResult::constant_folds`]).
    pub fn uninformative(&self) -> bool {
        self.folds > 0 && self.constant_folds == self.folds
    }

    /// What a reader must know before reading the row's figures: subsets that no training system
    /// tells apart, in every fold or in some. None when every fold's subset separates some systems.
    pub fn fold_note(&self) -> Option<String> {
        if self.constant_folds == 0 {
            return None;
        }
        let at = match self.budget {
            Some(b) => format!("{}%", (b * 100.0).round()),
            None => format!("k = {}", self.size),
        };
        let what = if self.empty_folds == self.folds {
            if self.method == Method::Midrange.name() {
                "is empty (no task's training pass rate lies in the widest band, [0.15, 0.85])"
            } else {
                "is empty"
            }
        } else if self.empty_folds > 0 {
            "is empty or holds only tasks every training system scored alike"
        } else {
            "holds only tasks every training system scored alike"
        };
        Some(if self.uninformative() {
            format!(
                "{} at {at} ({}): in every fold the subset {what}, so each prediction is the training \
                 systems' mean score; ρ, τ-b, R², pairs and agreement are left out (a mean of the \
                 others ranks the held-out systems backwards by construction)",
                self.method, self.protocol
            )
        } else {
            format!(
                "{} at {at} ({}): in {} of {} folds the subset {what}; those folds predict the \
                 training systems' mean score",
                self.method, self.protocol, self.constant_folds, self.folds
            )
        })
    }
}

/// The greedy forward-selection path of every fold up to `size` tasks (folds in parallel). Paths are
/// nested, so one path per fold serves every smaller subset size of a budget sweep.
/// `cancelled` is checked before each path (a path of the split protocol's 100 rounds takes tens of
/// milliseconds on SWE-bench), so a replaced explorer job stops within one path.
pub fn greedy_paths(
    matrix: &ProxyMatrix,
    rounds: &[Vec<Fold>],
    size: usize,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<Vec<Vec<usize>>>, ProxyError> {
    use rayon::prelude::*;
    let paths: Vec<Vec<Vec<usize>>> = rounds
        .par_iter()
        .map(|folds| {
            folds
                .par_iter()
                .map(|fold| {
                    if cancelled() {
                        Vec::new()
                    } else {
                        greedy_path(matrix, &fold.train, size)
                    }
                })
                .collect()
        })
        .collect();
    if cancelled() {
        return Err(ProxyError::Cancelled);
    }
    Ok(paths)
}

/// Runs one method under one protocol at subset size `size`. `paths` (from [`greedy_paths`], at least
/// `size` long) spare greedy-k its forward selection.
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    matrix: &ProxyMatrix,
    method: Method,
    protocol: Protocol,
    size: usize,
    budget: Option<f64>,
    rounds: &[Vec<Fold>],
    seed: u64,
    paths: Option<&[Vec<Vec<usize>>]>,
) -> ProxyResult {
    let mut per_round: Vec<Vec<SystemPrediction>> = Vec::new();
    let mut cost_shares = Vec::new();
    let mut sizes = Vec::new();
    let (mut folds, mut constant_folds, mut empty_folds) = (0, 0, 0);
    for (round, round_folds) in rounds.iter().enumerate() {
        let mut predictions = Vec::new();
        for (index, fold) in round_folds.iter().enumerate() {
            let chosen = match paths
                .and_then(|p| p.get(round)?.get(index))
                .filter(|_| method == Method::GreedyK)
            {
                Some(path) => {
                    let mut chosen = path[..size.min(path.len())].to_vec();
                    chosen.sort_unstable();
                    chosen
                }
                None => select(matrix, &fold.train, method, size, seed),
            };
            sizes.push(chosen.len());
            folds += 1;
            if chosen.is_empty() {
                empty_folds += 1;
            }
            // A task the training systems all scored alike is a column the centred ridge gives no
            // weight: with only such tasks it predicts the training mean.
            let separates = |t: usize| {
                let mut scores = fold.train.iter().map(|&s| matrix.value(s, t));
                let first = scores.next();
                scores.any(|v| Some(v) != first)
            };
            if !chosen.iter().any(|&t| separates(t)) {
                constant_folds += 1;
            }
            if let Some(cost) = &matrix.task_cost {
                let total: f64 = cost.iter().sum();
                if total > 0.0 {
                    cost_shares.push(chosen.iter().map(|&t| cost[t]).sum::<f64>() / total);
                }
            }
            let k = chosen.len();
            let rows = |s: usize| chosen.iter().map(move |&t| matrix.value(s, t));
            let x: Vec<f64> = fold.train.iter().flat_map(|&s| rows(s)).collect();
            let y: Vec<f64> = fold.train.iter().map(|&s| matrix.full[s]).collect();
            let ridge = Ridge::fit(&x, fold.train.len(), k, &y, RIDGE_ALPHA);
            for &s in &fold.test {
                let row: Vec<f64> = rows(s).collect();
                predictions.push(SystemPrediction {
                    system: matrix.systems[s].clone(),
                    predicted: ridge.predict(&row),
                    actual: matrix.full[s],
                    subset_mean: row.iter().sum::<f64>() / k.max(1) as f64,
                });
            }
        }
        per_round.push(predictions);
    }
    // The ridge's figures of a row whose every fold predicts the training mean are left out (see
    // `ProxyResult::constant_folds`); the subset mean's ρ reads the held-out rows and stays.
    let uninformative = folds > 0 && constant_folds == folds;
    let metric = |f: &dyn Fn(&[SystemPrediction]) -> Option<f64>| -> Option<f64> {
        let values: Vec<f64> = per_round.iter().filter_map(|p| f(p)).collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let columns = |p: &[SystemPrediction]| -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        (
            p.iter().map(|x| x.predicted).collect(),
            p.iter().map(|x| x.actual).collect(),
            p.iter().map(|x| x.subset_mean).collect(),
        )
    };
    let ridge_metric = |f: &dyn Fn(&[SystemPrediction]) -> Option<f64>| -> Option<f64> {
        if uninformative { None } else { metric(f) }
    };
    let decision_agreement = if uninformative {
        Vec::new()
    } else {
        // No round with two held-out systems has no pair to agree on: left out, not 0 (a split of
        // seven systems or fewer holds out one a round).
        DECISION_THRESHOLDS_PP
            .iter()
            .map_while(|&pp| metric(&|p| decision_agreement_at(p, pp / 100.0)))
            .collect()
    };
    // A method of its own size (midrange) chooses per fold: the mean over the folds, to the nearest
    // task for `size` and exact for the share (truncated, 82.9 tasks of GAIA's 164 read as 82 and a
    // share of 0.5, and folds of 1, 0 and 1 tasks as k 0 beside a ρ).
    let mean_size = if sizes.is_empty() {
        size as f64
    } else {
        sizes.iter().sum::<usize>() as f64 / sizes.len() as f64
    };
    let size_used = mean_size.round() as usize;
    ProxyResult {
        method: method.name(),
        protocol: protocol.name(),
        budget,
        size: size_used,
        spearman: ridge_metric(&|p| {
            let (predicted, actual, _) = columns(p);
            spearman(&predicted, &actual)
        }),
        kendall: ridge_metric(&|p| {
            let (predicted, actual, _) = columns(p);
            kendall_tau_b(&predicted, &actual)
        }),
        r2: ridge_metric(&|p| {
            let (predicted, actual, _) = columns(p);
            r_squared(&predicted, &actual)
        }),
        mae_pp: metric(&|p| {
            let (predicted, actual, _) = columns(p);
            Some(mean_absolute_error(&predicted, &actual) * 100.0)
        })
        .unwrap_or(0.0),
        pair_accuracy: ridge_metric(&|p| {
            let (predicted, actual, _) = columns(p);
            pairwise_accuracy(&predicted, &actual)
        }),
        subset_mean_spearman: metric(&|p| {
            let (_, actual, mean) = columns(p);
            spearman(&mean, &actual)
        }),
        decision_agreement,
        task_share: mean_size / matrix.n_tasks as f64,
        cost_share: (!cost_shares.is_empty())
            .then(|| cost_shares.iter().sum::<f64>() / cost_shares.len() as f64),
        rounds: per_round.len(),
        folds,
        constant_folds,
        empty_folds,
        systems: if per_round.len() == 1 {
            per_round.remove(0)
        } else {
            Vec::new()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: &[&[f64]]) -> ProxyMatrix {
        let n_tasks = rows[0].len();
        let x: Vec<f64> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        let full = rows
            .iter()
            .map(|r| r.iter().sum::<f64>() / n_tasks as f64)
            .collect();
        ProxyMatrix {
            systems: (0..rows.len()).map(|i| format!("s{i}")).collect(),
            scaffolds: vec![Some("a".into()); rows.len()],
            submitted: vec![None; rows.len()],
            n_tasks,
            x,
            groups: vec![0; n_tasks],
            task_cost: None,
            full,
            left_out: 0,
            coverage_note: None,
            pooled_note: None,
        }
    }

    #[test]
    fn the_midrange_band_widens_until_a_tenth_of_tasks_qualify() {
        // 20 tasks: none in [0.30, 0.70], one at 0.27 and one at 0.8 → [0.25, 0.75] has 1 (< 2), [0.15, 0.85] has 2.
        let mut rates = vec![0.0; 18];
        rates.extend([0.27, 0.8]);
        let (band, tasks) = midrange_band(&rates);
        assert_eq!(band, (0.15, 0.85));
        assert_eq!(tasks, [18, 19]);
        let (band, tasks) = midrange_band(&[0.5, 0.0, 1.0]);
        assert_eq!((band, tasks), ((0.30, 0.70), vec![0]));
    }

    #[test]
    fn easiest_hardest_and_midrange_k_follow_training_pass_rates() {
        let m = matrix(&[
            &[1.0, 1.0, 0.0, 0.0],
            &[1.0, 0.0, 1.0, 0.0],
            &[1.0, 1.0, 0.0, 0.0],
            &[0.0, 0.0, 0.0, 1.0],
        ]);
        let train = [0, 1, 2];
        // Training pass rates: 1, 2/3, 1/3, 0.
        assert_eq!(select(&m, &train, Method::EasiestK, 2, 0), [0, 1]);
        assert_eq!(select(&m, &train, Method::HardestK, 1, 0), [3]);
        assert_eq!(select(&m, &train, Method::MidrangeK, 2, 0), [1, 2]);
    }

    #[test]
    fn no_selection_or_fit_sees_the_held_out_system() {
        let rows: Vec<Vec<f64>> = (0..8)
            .map(|s| {
                (0..30)
                    .map(|t| f64::from(u8::from((s * 7 + t * 3) % 5 < 2 + s % 3)))
                    .collect()
            })
            .collect();
        let refs: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
        let base = matrix(&refs);
        let mut adversarial = matrix(&refs);
        // Rewrite the held-out system's outcomes on every task the subset does not use, and its full score.
        let held_out = 5;
        let train: Vec<usize> = (0..8).filter(|&s| s != held_out).collect();
        for method in Method::ALL {
            let chosen = select(&base, &train, method, 10, 3);
            for t in 0..30 {
                if !chosen.contains(&t) {
                    adversarial.x[held_out * 30 + t] = 1.0 - adversarial.x[held_out * 30 + t];
                }
            }
            adversarial.full[held_out] = 0.987;
            assert_eq!(
                select(&adversarial, &train, method, 10, 3),
                chosen,
                "{}",
                method.name()
            );
            let fold = vec![vec![Fold {
                train: train.clone(),
                test: vec![held_out],
            }]];
            let a = evaluate(&base, method, Protocol::Loao, 10, None, &fold, 3, None);
            let b = evaluate(
                &adversarial,
                method,
                Protocol::Loao,
                10,
                None,
                &fold,
                3,
                None,
            );
            assert_eq!(
                a.systems[0].predicted,
                b.systems[0].predicted,
                "{}",
                method.name()
            );
            adversarial = matrix(&refs);
        }
    }

    #[test]
    fn greedy_paths_are_nested_and_stratified_keeps_proportions() {
        let rows: Vec<Vec<f64>> = (0..6)
            .map(|s| {
                (0..12)
                    .map(|t| f64::from(u8::from((s + t) % 4 < s % 3 + 1)))
                    .collect()
            })
            .collect();
        let refs: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
        let mut m = matrix(&refs);
        let train = [0, 1, 2, 3, 4];
        let long = greedy_path(&m, &train, 6);
        assert_eq!(greedy_path(&m, &train, 3), long[..3]);
        // evaluate with precomputed paths selects the same tasks as without.
        let rounds = vec![vec![Fold {
            train: train.to_vec(),
            test: vec![5],
        }]];
        let paths = greedy_paths(&m, &rounds, 6, &|| false).expect("paths");
        let with = evaluate(
            &m,
            Method::GreedyK,
            Protocol::Loao,
            3,
            None,
            &rounds,
            0,
            Some(&paths),
        );
        let without = evaluate(
            &m,
            Method::GreedyK,
            Protocol::Loao,
            3,
            None,
            &rounds,
            0,
            None,
        );
        assert_eq!(with, without);
        m.groups = (0..12).map(|t| u32::from(t >= 9)).collect();
        let chosen = select(&m, &train, Method::StratifiedK, 4, 1);
        assert_eq!(chosen.iter().filter(|&&t| t >= 9).count(), 1);
        assert_eq!(chosen.len(), 4);
    }

    /// Ten systems: ten tasks every system passes, then system s alone passes s tasks of its own,
    /// so every task's training pass rate is 0, 1/9 or 1 under leave-one-out.
    fn one_owner_tasks() -> ProxyMatrix {
        let mut owners = Vec::new();
        for s in 0..10 {
            owners.extend(std::iter::repeat_n(Some(s), s));
        }
        let rows: Vec<Vec<f64>> = (0..10)
            .map(|s| {
                let shared = std::iter::repeat_n(1.0, 10);
                shared
                    .chain(owners.iter().map(|&o| f64::from(u8::from(o == Some(s)))))
                    .collect()
            })
            .collect();
        let refs: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
        matrix(&refs)
    }

    #[test]
    fn a_subset_no_training_system_tells_apart_reports_no_ranking() {
        let m = one_owner_tasks();
        let rounds = folds(&m, Protocol::Loao, 1, 0).expect("folds");
        // No pass rate lies in [0.15, 0.85]: the band is empty, each prediction the training mean,
        // whose leave-one-out ranking is exactly backwards (ρ would be −1).
        let midrange = evaluate(
            &m,
            Method::Midrange,
            Protocol::Loao,
            14,
            Some(0.25),
            &rounds,
            0,
            None,
        );
        assert_eq!(
            (
                midrange.size,
                midrange.folds,
                midrange.constant_folds,
                midrange.empty_folds
            ),
            (0, 10, 10, 10)
        );
        assert!(midrange.uninformative());
        assert_eq!(
            (
                midrange.spearman,
                midrange.kendall,
                midrange.r2,
                midrange.pair_accuracy
            ),
            (None, None, None, None)
        );
        assert!(midrange.decision_agreement.is_empty());
        let note = midrange.fold_note().expect("a note");
        assert!(
            note.contains("in every fold the subset is empty") && note.contains("[0.15, 0.85]"),
            "{note}"
        );
        // The easiest task is one every system passes: a constant column, not an empty subset.
        let easiest = evaluate(
            &m,
            Method::EasiestK,
            Protocol::Loao,
            1,
            None,
            &rounds,
            0,
            None,
        );
        assert_eq!((easiest.constant_folds, easiest.empty_folds), (10, 0));
        assert!(easiest.spearman.is_none());
        assert!(
            easiest
                .fold_note()
                .expect("a note")
                .contains("holds only tasks every training system scored alike")
        );
        // Every task but the shared ones separates two systems' training rows somewhere: random
        // subsets of 20 tasks hold one in every fold, and the ridge's figures stand.
        let random = evaluate(
            &m,
            Method::Random,
            Protocol::Loao,
            20,
            None,
            &rounds,
            0,
            None,
        );
        assert_eq!(random.constant_folds, 0);
        assert!(random.spearman.is_some() && random.fold_note().is_none());
        assert_eq!(
            random.decision_agreement.len(),
            DECISION_THRESHOLDS_PP.len()
        );
    }

    #[test]
    fn folds_of_a_single_task_that_separates_nobody_are_counted() {
        // A task only the held-out system passes: its training column is constant in that fold only.
        let m = matrix(&[
            &[1.0, 0.0, 1.0, 0.0],
            &[0.0, 1.0, 1.0, 0.0],
            &[0.0, 0.0, 1.0, 1.0],
            &[0.0, 0.0, 0.0, 1.0],
        ]);
        let rounds = folds(&m, Protocol::Loao, 1, 0).expect("folds");
        // Hardest task under each fold's training rates; which one it is, and whether it separates
        // the training systems, depends on the fold.
        let result = evaluate(
            &m,
            Method::HardestK,
            Protocol::Loao,
            1,
            None,
            &rounds,
            0,
            None,
        );
        let expected = rounds[0]
            .iter()
            .filter(|fold| {
                let chosen = select(&m, &fold.train, Method::HardestK, 1, 0);
                let t = chosen[0];
                fold.train
                    .iter()
                    .all(|&s| m.value(s, t) == m.value(fold.train[0], t))
            })
            .count();
        assert!(
            expected > 0 && expected < 4,
            "the case needs some constant folds and some not"
        );
        assert_eq!((result.folds, result.constant_folds), (4, expected));
        assert!(!result.uninformative() && result.spearman.is_some());
        let note = result.fold_note().expect("a note");
        assert!(
            note.contains(&format!("in {expected} of 4 folds")),
            "{note}"
        );
    }
}
