//! One proxy evaluation: methods under protocols at several subset sizes, with `random` averaged over
//! seeds. This is the only computation behind both `pareval proxy` and the explorer's proxy view, so the
//! two show the same numbers for the same method, protocol, budget and seed.

use serde::Serialize;

use super::{
    Method, Protocol, ProxyError, ProxyMatrix, ProxyResult, evaluate, folds, greedy_paths,
};
use crate::engine::Fraction;

/// How an evaluation runs. The defaults are `pareval proxy`'s and the explorer's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProxySettings {
    /// Seeds `random` is averaged over: seed, seed + 1, …
    pub seeds: u32,
    /// Random 80/20 splits of the split protocol.
    pub splits: u32,
    /// Seed of splits and of random and stratified selection.
    pub seed: u64,
}

impl Default for ProxySettings {
    fn default() -> Self {
        ProxySettings {
            seeds: 10,
            splits: 100,
            seed: 0,
        }
    }
}

/// The subset sizes to evaluate.
#[derive(Debug, Clone, PartialEq)]
pub enum SubsetSizes {
    /// k = ⌈b·N⌉ (at least 1) for each budget b of N usable tasks.
    Budgets(Vec<Fraction>),
    /// One task count k, 1 ≤ k ≤ N.
    Count(usize),
}

impl SubsetSizes {
    /// (budget, k) for each size; a count outside 1..=N is an error.
    fn resolve(&self, n_tasks: usize) -> Result<Vec<(Option<f64>, usize)>, ProxyError> {
        match self {
            SubsetSizes::Count(k) if *k == 0 || *k > n_tasks => Err(ProxyError::SizeOutOfRange {
                size: *k,
                tasks: n_tasks,
            }),
            SubsetSizes::Count(k) => Ok(vec![(None, *k)]),
            SubsetSizes::Budgets(budgets) => Ok(budgets
                .iter()
                .map(|b| {
                    let k = u32::try_from(n_tasks).map_or(n_tasks, |n| b.tasks_of(n) as usize);
                    (Some(b.value()), k.max(1))
                })
                .collect()),
        }
    }
}

/// A result with the spread over seeds of the random method.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProxyRow {
    #[serde(flatten)]
    pub result: ProxyResult,
    /// Seeds averaged (random method only; its per-system predictions are those of the first seed).
    pub seeds: Option<u32>,
    /// Standard deviation over seeds of Spearman and MAE (random method only).
    pub spearman_sd: Option<f64>,
    pub mae_pp_sd: Option<f64>,
}

/// Every row of one evaluation, with the size of the matrix it ran on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProxyEvaluation {
    pub tasks: usize,
    pub tasks_left_out: usize,
    pub systems: usize,
    pub results: Vec<ProxyRow>,
    /// What a reader must know before reading the figures, in words: rows whose subsets no training
    /// system tells apart ([`crate::proxy::ProxyResult::fold_note`]), a setting the data capped.
    pub notes: Vec<String>,
}

/// Runs every method under every protocol at every size, rows in the order protocol, size, method.
/// `cancelled` is checked before each size.
pub fn evaluate_protocols(
    matrix: &ProxyMatrix,
    methods: &[Method],
    protocols: &[Protocol],
    sizes: &SubsetSizes,
    settings: &ProxySettings,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<ProxyEvaluation, ProxyError> {
    if settings.seeds == 0 {
        return Err(ProxyError::Zero("--seeds"));
    }
    if settings.splits == 0 {
        return Err(ProxyError::Zero("--splits"));
    }
    if settings.seeds > super::error::MOST_REPEATS {
        return Err(ProxyError::TooMany("--seeds"));
    }
    if settings.splits > super::error::MOST_REPEATS {
        return Err(ProxyError::TooMany("--splits"));
    }
    let sizes = sizes.resolve(matrix.n_tasks)?;
    let mut rows = Vec::new();
    let mut notes: Vec<String> = matrix
        .pooled_note
        .iter()
        .chain(&matrix.coverage_note)
        .cloned()
        .collect();
    // A subset of every task is the benchmark itself: its perfect figures say nothing of a proxy.
    // Sizes grow with the budget, so every budget from the first such one is the benchmark too.
    if let Some(&(budget, size)) = sizes.iter().find(|&&(_, size)| size >= matrix.n_tasks) {
        notes.push(format!(
            "{} {} the subset holds all {} tasks every system has: it is the benchmark itself, so its figures say nothing of a proxy",
            if sizes.len() > 1 { "from" } else { "at" },
            budget.map_or(format!("--size {size}"), crate::format::percent),
            matrix.n_tasks
        ));
    }
    for &protocol in protocols {
        let rounds = folds(matrix, protocol, settings.splits, settings.seed)?;
        notes.extend(unpredicted_note(matrix, protocol, &rounds));
        notes.extend(pairless_note(protocol, &rounds));
        let largest = sizes.iter().map(|&(_, k)| k).max().unwrap_or(1);
        let paths = methods
            .contains(&Method::GreedyK)
            .then(|| greedy_paths(matrix, &rounds, largest, cancelled))
            .transpose()?;
        for &(budget, size) in &sizes {
            if cancelled() {
                return Err(ProxyError::Cancelled);
            }
            for &method in methods {
                let row = if method == Method::Random {
                    let runs: Vec<ProxyResult> = (0..settings.seeds)
                        .map(|s| {
                            let seed = settings.seed + u64::from(s);
                            evaluate(matrix, method, protocol, size, budget, &rounds, seed, None)
                        })
                        .collect();
                    average_over_seeds(runs, settings.seeds).ok_or(ProxyError::Zero("--seeds"))?
                } else {
                    ProxyRow {
                        result: evaluate(
                            matrix,
                            method,
                            protocol,
                            size,
                            budget,
                            &rounds,
                            settings.seed,
                            paths.as_deref(),
                        ),
                        seeds: None,
                        spearman_sd: None,
                        mae_pp_sd: None,
                    }
                };
                rows.push(row);
            }
        }
    }
    notes.extend(rows.iter().filter_map(|row| row.result.fold_note()));
    Ok(ProxyEvaluation {
        tasks: matrix.n_tasks,
        tasks_left_out: matrix.left_out,
        systems: matrix.systems.len(),
        results: rows,
        notes,
    })
}

/// A protocol none of whose rounds holds out two systems (a split of seven systems or fewer holds
/// out one a round): the figures that compare held-out systems have no pair to read, and their
/// dashes (and the agreement that read as 0) went unexplained.
fn pairless_note(protocol: Protocol, rounds: &[Vec<super::Fold>]) -> Option<String> {
    let held_out = |folds: &Vec<super::Fold>| folds.iter().map(|f| f.test.len()).sum::<usize>();
    let most = rounds.iter().map(held_out).max()?;
    (most < 2).then(|| {
        format!(
            "{}: each round holds out {most} system{}, so there is no pair of held-out systems: ρ, τ-b, R², pairs, agreement and the subset mean's ρ are left out (MAE is read); --protocol loao ranks every system",
            protocol.name(),
            if most == 1 { "" } else { "s" }
        )
    })
}

/// Systems that no fold of a scaffold protocol holds out, named: a fold needs at least two systems
/// to train on (within a scaffold, two others of the system's own; leaving a scaffold out, two of
/// the others), so its figures are over fewer systems than the record has, which went unsaid.
fn unpredicted_note(
    matrix: &ProxyMatrix,
    protocol: Protocol,
    rounds: &[Vec<super::Fold>],
) -> Option<String> {
    if !matches!(protocol, Protocol::WithinScaffold | Protocol::Loso) {
        return None;
    }
    let mut predicted = vec![false; matrix.systems.len()];
    for fold in rounds.iter().flatten() {
        for &system in &fold.test {
            predicted[system] = true;
        }
    }
    let missing: Vec<String> = matrix
        .systems
        .iter()
        .zip(&predicted)
        .filter(|(_, p)| !**p)
        .map(|(name, _)| crate::data::error::quote(name))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let shown = if missing.len() > 5 {
        format!("{}, …", missing[..5].join(", "))
    } else {
        missing.join(", ")
    };
    let rest = matrix.systems.len() - missing.len();
    Some(format!(
        "{}: {} of {} systems {} not predicted, no fold having at least 2 systems to train on without them ({shown}); its figures are over the other {rest} system{}",
        protocol.name(),
        missing.len(),
        matrix.systems.len(),
        if missing.len() == 1 { "is" } else { "are" },
        if rest == 1 { "" } else { "s" }
    ))
}

/// Mean and population standard deviation of the values a metric has over seeds (None without any).
pub(super) fn mean_and_sd(values: &[f64]) -> (Option<f64>, Option<f64>) {
    if values.is_empty() {
        return (None, None);
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64).sqrt();
    (Some(mean), Some(sd))
}

/// The first seed's result with every metric replaced by its mean over seeds (metrics are averaged, not
/// computed on an averaged prediction); None without runs.
fn average_over_seeds(runs: Vec<ProxyResult>, seeds: u32) -> Option<ProxyRow> {
    let over = |f: &dyn Fn(&ProxyResult) -> Option<f64>| {
        mean_and_sd(&runs.iter().filter_map(f).collect::<Vec<_>>())
    };
    let (spearman, spearman_sd) = over(&|r| r.spearman);
    let (mae, mae_pp_sd) = over(&|r| Some(r.mae_pp));
    let kendall = over(&|r| r.kendall).0;
    let r2 = over(&|r| r.r2).0;
    let pair_accuracy = over(&|r| r.pair_accuracy).0;
    let subset_mean_spearman = over(&|r| r.subset_mean_spearman).0;
    // Seeds whose every fold predicted the training mean have no agreement (see
    // `ProxyResult::constant_folds`): averaged over the others, none when no seed has one.
    let decision_agreement = (0..super::DECISION_THRESHOLDS_PP.len())
        .map_while(|i| over(&|r| r.decision_agreement.get(i).copied()).0)
        .collect();
    let folds = runs.iter().map(|r| r.folds).sum();
    let constant_folds = runs.iter().map(|r| r.constant_folds).sum();
    let empty_folds = runs.iter().map(|r| r.empty_folds).sum();
    let mut result = runs.into_iter().next()?;
    result.folds = folds;
    result.constant_folds = constant_folds;
    result.empty_folds = empty_folds;
    result.spearman = spearman;
    result.mae_pp = mae.unwrap_or(0.0);
    result.kendall = kendall;
    result.r2 = r2;
    result.pair_accuracy = pair_accuracy;
    result.subset_mean_spearman = subset_mean_spearman;
    result.decision_agreement = decision_agreement;
    Some(ProxyRow {
        result,
        seeds: Some(seeds),
        spearman_sd,
        mae_pp_sd,
    })
}

/// The explorer's proxy view: one method under one protocol at every budget of the grid, with the
/// defaults of `pareval proxy` (so `pareval proxy --method M --protocol P --budget GRID --seed S` prints
/// the same rows).
pub fn proxy_curve(
    dataset: &crate::dataset::Dataset,
    group_column: Option<&str>,
    method: Method,
    protocol: Protocol,
    grid: &[Fraction],
    seed: u64,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<ProxyEvaluation, ProxyError> {
    let matrix = ProxyMatrix::new(dataset, group_column)?;
    let settings = ProxySettings {
        seed,
        ..ProxySettings::default()
    };
    evaluate_protocols(
        &matrix,
        &[method],
        &[protocol],
        &SubsetSizes::Budgets(grid.to_vec()),
        &settings,
        cancelled,
    )
}
