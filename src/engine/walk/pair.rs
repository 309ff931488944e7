//! Directed pairs prepared for replay (SPEC §2): the shared tasks T in a canonical order (sorted by
//! benchmark and task name, so that input row order cannot change a result), the differences
//! D_i = Y_A,i − Y_B,i (also as integers on the outcome lattice when there is one), each task's group
//! within the pair, and the per-task resource and cost keys a budget measure or order needs.

pub use crate::engine::rules::cut;
use crate::engine::settings::{
    BudgetMeasure, EPSILON, Family, OrderKind, ReplaySettings, Threshold,
};
use rayon::prelude::*;

use crate::dataset::Dataset;

/// The largest lattice denominator tried: averages of up to this many runs stay exact.
pub const MAX_LATTICE: u32 = 64;

/// The smallest L ≤ [`MAX_LATTICE`] such that every outcome times L is a whole number (L = 1 for 0/1
/// outcomes, 5 for averages of five runs, 12 for a mix of 1–4 runs), or `None` for finer outcomes.
pub fn lattice_scale(dataset: &Dataset) -> Option<u32> {
    // With early outcomes, the truth must lie on the same lattice as what is observed.
    let truth = dataset
        .early
        .as_ref()
        .map_or(&[][..], |e| e.truth.as_slice());
    smallest_lattice(|| dataset.outcome.iter().chain(truth).copied())
}

/// The smallest L ≤ [`MAX_LATTICE`] such that every value times L is a whole number, or `None`.
pub fn lattice_of(values: &[f64]) -> Option<u32> {
    smallest_lattice(|| values.iter().copied())
}

/// The lattice test shared by both: NaN (a missing value) fits any lattice.
fn smallest_lattice<I: Iterator<Item = f64>>(values: impl Fn() -> I) -> Option<u32> {
    (1..=MAX_LATTICE).find(|&scale| {
        values().filter(|x| !x.is_nan()).all(|x| {
            let scaled = x * f64::from(scale);
            (scaled - scaled.round()).abs() < 1e-9
        })
    })
}

/// One ordered comparison, tested A against baseline B.
#[derive(Debug, Clone)]
pub struct PairData {
    pub tested: usize,
    pub baseline: usize,
    /// Dataset task indices of the shared tasks, canonical order.
    pub tasks: Vec<u32>,
    /// D_i.
    pub diffs: Vec<f64>,
    /// D_i · scale when the outcomes lie on a lattice; empty otherwise.
    pub units: Vec<i64>,
    /// Local group index of each task (0 for every task without a group column).
    pub group_of: Vec<u32>,
    /// Shared tasks per local group.
    pub group_sizes: Vec<u32>,
    /// Dataset label index of each local group.
    pub group_labels: Vec<u32>,
    /// Standard deviation (population) of D within each local group on the completed record.
    pub group_sd: Vec<f64>,
    /// The budget measure's amount per task; empty for the `tasks` measure.
    pub resource: Vec<f64>,
    /// With early outcomes (`replay --early`): the completed record's D_i and D_i · scale, which the
    /// truth is read from (`diffs` and `units` then hold the early ones); empty otherwise.
    pub truth_diffs: Vec<f64>,
    pub truth_units: Vec<i64>,
    /// With early outcomes: the steps both systems' runs consumed on each task, and the steps their full
    /// runs took; empty otherwise.
    pub steps_run: Vec<f64>,
    pub steps_full: Vec<f64>,
    /// The sort key of cost orders per task (NaN sorts last); empty for other orders.
    pub cost_key: Vec<f64>,
    /// The cost and seconds a prefix spends per shared task, for the share of them it spent: the
    /// tested system's, or both systems' under a pair-cost (pair-seconds) budget, which runs both (NaN
    /// where unknown; empty when the record has none).
    pub spent_cost: Vec<f64>,
    pub spent_seconds: Vec<f64>,
    /// Shared tasks left out because they lack the budget measure's field.
    pub left_out: usize,
    /// Quota due times of every (group, j-th task) pair, sorted by due time: the skeleton of every
    /// stratified order of this pair (see `orders`).
    pub quota_schedule: Vec<(u64, u32)>,
    /// Runs of equal due times in `quota_schedule` that the random ranking settles per order (the
    /// runs the deficits settle alone are already in order there; see `schedule::settle_ties`).
    pub tie_blocks: Vec<(u32, u32)>,
    /// Where each item of `quota_schedule` draws in an order's pool of group members (see
    /// [`crate::engine::walk::schedule::pool_slots`]).
    pub slots: Vec<(u32, u32)>,
    /// How each run of `tie_blocks` resolves under any group ranking (None: scan its deficits per order).
    pub tie_trees: Vec<Option<crate::engine::walk::schedule::TieTree>>,
    /// The quota slack of every prefix before any task is taken (Neyman orders).
    pub initial_slack: Vec<i64>,
    /// Local task indices of each local group, in canonical order.
    pub members: Vec<Vec<u32>>,
}

impl PairData {
    /// Observed tasks per local group in the first `decided_at` tasks of `order`, in `out`: a
    /// sequential monitor's kept decision is described at the look that made it (the walk keeps
    /// only the current counts). None without a kept decision.
    pub fn group_counts_at<'a>(
        &self,
        order: &[u32],
        decided_at: Option<u32>,
        out: &'a mut Vec<u32>,
    ) -> Option<&'a [u32]> {
        let k = decided_at? as usize;
        out.clear();
        out.resize(self.group_sizes.len(), 0);
        for &i in &order[..k.min(order.len())] {
            out[self.group_of[i as usize] as usize] += 1;
        }
        Some(out)
    }

    pub fn n(&self) -> u32 {
        self.tasks.len() as u32
    }

    /// The completed record's differences: the observed ones unless early outcomes stand in for them.
    fn truth(&self) -> (&[f64], &[i64]) {
        if self.truth_diffs.is_empty() {
            (&self.diffs, &self.units)
        } else {
            (&self.truth_diffs, &self.truth_units)
        }
    }

    /// Δ_full, the mean difference on the completed shared record.
    pub fn delta_full(&self) -> f64 {
        let (diffs, _) = self.truth();
        if diffs.is_empty() {
            0.0
        } else {
            diffs.iter().sum::<f64>() / diffs.len() as f64
        }
    }

    /// The completed-record decision: promote iff Δ_full > δ + ε.
    pub fn completed_promotes(&self, threshold: Threshold, scale: Option<u32>) -> bool {
        match scale {
            Some(scale) => self.truth().1.iter().sum::<i64>() > cut(self.n(), scale, threshold),
            None => self.delta_full() > threshold.delta() + EPSILON,
        }
    }
}

/// The local view of a group column: every task's label index (one label when there is no column).
pub struct Grouping {
    pub labels: Vec<String>,
    pub of_task: Vec<u32>,
}

impl Grouping {
    pub fn new(dataset: &Dataset, column: Option<&str>) -> Self {
        match column.and_then(|name| dataset.group_column(name)) {
            Some(column) => Grouping {
                labels: column.labels.clone(),
                of_task: column.of_task.clone(),
            },
            None => Grouping {
                labels: vec!["all tasks".to_string()],
                of_task: vec![0; dataset.n_tasks()],
            },
        }
    }
}

/// Prepares every directed pair of the dataset for the given settings.
pub fn prepare_pairs(
    dataset: &Dataset,
    settings: &ReplaySettings,
    grouping: &Grouping,
    scale: Option<u32>,
) -> Vec<PairData> {
    let canonical = dataset.tasks_in_canonical_order();
    // Each pair is prepared on its own; the collected vector keeps the pairs' order.
    dataset
        .directed_pairs()
        .into_par_iter()
        .map(|(a, b)| prepare_pair(dataset, settings, grouping, scale, &canonical, a, b))
        .collect()
}

fn prepare_pair(
    dataset: &Dataset,
    settings: &ReplaySettings,
    grouping: &Grouping,
    scale: Option<u32>,
    canonical: &[u32],
    a: usize,
    b: usize,
) -> PairData {
    let n_tasks = dataset.n_tasks();
    let cell = |s: usize, t: u32| s * n_tasks + t as usize;
    let amount = |matrix: &Option<Vec<f64>>, s: usize, t: u32| {
        matrix.as_ref().map_or(f64::NAN, |m| m[cell(s, t)])
    };
    let early = dataset.early.as_ref();
    let steps_run = early.map(|e| e.steps_run.clone());
    let resource_of = |t: u32| -> Option<f64> {
        match settings.measure {
            BudgetMeasure::Tasks => None,
            BudgetMeasure::Seconds => Some(amount(&dataset.seconds, a, t)),
            BudgetMeasure::PairSeconds => {
                Some(amount(&dataset.seconds, a, t) + amount(&dataset.seconds, b, t))
            }
            BudgetMeasure::Cost => Some(amount(&dataset.cost, a, t)),
            BudgetMeasure::PairCost => {
                Some(amount(&dataset.cost, a, t) + amount(&dataset.cost, b, t))
            }
            BudgetMeasure::Steps => Some(amount(&steps_run, a, t)),
            BudgetMeasure::PairSteps => Some(amount(&steps_run, a, t) + amount(&steps_run, b, t)),
        }
    };
    let mut tasks = Vec::new();
    let mut resource = Vec::new();
    let mut left_out = 0;
    for &t in canonical {
        let (ya, yb) = (dataset.outcome[cell(a, t)], dataset.outcome[cell(b, t)]);
        if ya.is_nan() || yb.is_nan() {
            continue;
        }
        match resource_of(t) {
            Some(value) if value.is_nan() => left_out += 1,
            Some(value) => {
                tasks.push(t);
                resource.push(value);
            }
            None => tasks.push(t),
        }
    }
    let diffs: Vec<f64> = tasks
        .iter()
        .map(|&t| dataset.outcome[cell(a, t)] - dataset.outcome[cell(b, t)])
        .collect();
    let on_lattice = |diffs: &[f64]| match scale {
        Some(scale) => diffs
            .iter()
            .map(|d| (d * f64::from(scale)).round() as i64)
            .collect(),
        None => Vec::new(),
    };
    let units = on_lattice(&diffs);
    let pair_sum = |matrix: &[f64]| -> Vec<f64> {
        tasks
            .iter()
            .map(|&t| matrix[cell(a, t)] + matrix[cell(b, t)])
            .collect()
    };
    let (truth_diffs, steps_run, steps_full) = match early {
        Some(early) => (
            tasks
                .iter()
                .map(|&t| early.truth[cell(a, t)] - early.truth[cell(b, t)])
                .collect(),
            pair_sum(&early.steps_run),
            pair_sum(&early.steps_full),
        ),
        None => (Vec::new(), Vec::new(), Vec::new()),
    };
    let truth_units = on_lattice(&truth_diffs);
    let labels: Vec<u32> = tasks
        .iter()
        .map(|&t| grouping.of_task[t as usize])
        .collect();
    let (group_of, group_labels) = local_groups(&labels, grouping.labels.len());
    let mut group_sizes = vec![0u32; group_labels.len()];
    let mut group_sum = vec![0.0; group_labels.len()];
    let mut group_sq = vec![0.0; group_labels.len()];
    for (&g, &d) in group_of.iter().zip(&diffs) {
        group_sizes[g as usize] += 1;
        group_sum[g as usize] += d;
        group_sq[g as usize] += d * d;
    }
    let group_sd = (0..group_labels.len())
        .map(|g| {
            let n = f64::from(group_sizes[g]);
            let mean = group_sum[g] / n;
            (group_sq[g] / n - mean * mean).max(0.0).sqrt()
        })
        .collect();
    let cost_key = match settings.policy.order {
        OrderKind::Cost => tasks.iter().map(|&t| amount(&dataset.cost, a, t)).collect(),
        OrderKind::PairCost => tasks
            .iter()
            .map(|&t| amount(&dataset.cost, a, t) + amount(&dataset.cost, b, t))
            .collect(),
        _ => Vec::new(),
    };
    // A pair budget spends both systems' cost (seconds): its share is of the pair's.
    let spent = |matrix: &Option<Vec<f64>>, both: bool| match matrix {
        Some(_) => tasks
            .iter()
            .map(|&t| amount(matrix, a, t) + if both { amount(matrix, b, t) } else { 0.0 })
            .collect(),
        None => Vec::new(),
    };
    let (spent_cost, spent_seconds) = (
        spent(&dataset.cost, settings.measure == BudgetMeasure::PairCost),
        spent(
            &dataset.seconds,
            settings.measure == BudgetMeasure::PairSeconds,
        ),
    );
    let schedules = Schedules::of(&group_of, &group_sizes);
    PairData {
        tested: a,
        baseline: b,
        tasks,
        diffs,
        units,
        group_of,
        group_sizes,
        group_labels,
        group_sd,
        resource,
        truth_diffs,
        truth_units,
        steps_run,
        steps_full,
        cost_key,
        spent_cost,
        spent_seconds,
        left_out,
        quota_schedule: schedules.quota_schedule,
        tie_blocks: schedules.tie_blocks,
        slots: schedules.slots,
        tie_trees: schedules.tie_trees,
        initial_slack: schedules.initial_slack,
        members: schedules.members,
    }
}

/// Local group numbering of a pair's tasks: each task's local group, numbered in label order (so that
/// per-group tables list groups the same way in every pair), and the label of each local group.
fn local_groups(labels: &[u32], n_labels: usize) -> (Vec<u32>, Vec<u32>) {
    let mut local_of_label: Vec<Option<u32>> = vec![None; n_labels];
    let mut group_labels = Vec::new();
    let mut group_of = Vec::with_capacity(labels.len());
    for &label in labels {
        let local = *local_of_label[label as usize].get_or_insert_with(|| {
            group_labels.push(label);
            group_labels.len() as u32 - 1
        });
        group_of.push(local);
    }
    let mut by_label: Vec<u32> = (0..group_labels.len() as u32).collect();
    by_label.sort_by_key(|&g| group_labels[g as usize]);
    let mut renumber = vec![0u32; group_labels.len()];
    for (new, &old) in by_label.iter().enumerate() {
        renumber[old as usize] = new as u32;
    }
    let group_of = group_of.iter().map(|&g| renumber[g as usize]).collect();
    let group_labels = by_label
        .iter()
        .map(|&old| group_labels[old as usize])
        .collect();
    (group_of, group_labels)
}

/// What every stratified or Neyman order of a pair reads: the quota schedule and its helpers (see the
/// fields of [`PairData`]), a function of the groups alone.
struct Schedules {
    quota_schedule: Vec<(u64, u32)>,
    tie_blocks: Vec<(u32, u32)>,
    slots: Vec<(u32, u32)>,
    tie_trees: Vec<Option<crate::engine::walk::schedule::TieTree>>,
    initial_slack: Vec<i64>,
    members: Vec<Vec<u32>>,
}

impl Schedules {
    fn of(group_of: &[u32], group_sizes: &[u32]) -> Self {
        let mut quota_schedule = crate::engine::walk::schedule::quota_schedule(group_sizes);
        let tie_blocks =
            crate::engine::walk::schedule::settle_ties(&mut quota_schedule, group_sizes);
        let tie_trees =
            crate::engine::walk::schedule::tie_trees(&quota_schedule, &tie_blocks, group_sizes);
        let slots = crate::engine::walk::schedule::pool_slots(&quota_schedule, group_sizes);
        let initial_slack = crate::engine::walk::schedule::initial_slack(group_sizes);
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); group_sizes.len()];
        for (i, &g) in group_of.iter().enumerate() {
            members[g as usize].push(i as u32);
        }
        Schedules {
            quota_schedule,
            tie_blocks,
            slots,
            tie_trees,
            initial_slack,
            members,
        }
    }
}

impl PairData {
    /// The task list of a plan (`pareval plan`) as a pair, so that a plan is drawn by the same order
    /// builder as the replay: `labels[i]` is task i's group label (of `n_labels`), `sd_by_label` the
    /// spread Neyman orders allocate by (per label; zeros when absent), `cost_key` the cheap-first key.
    /// It has no outcomes.
    pub fn planned(
        labels: &[u32],
        n_labels: usize,
        sd_by_label: Option<&[f64]>,
        cost_key: Vec<f64>,
    ) -> PairData {
        let (group_of, group_labels) = local_groups(labels, n_labels);
        let mut group_sizes = vec![0u32; group_labels.len()];
        for &g in &group_of {
            group_sizes[g as usize] += 1;
        }
        let group_sd = group_labels
            .iter()
            .map(|&label| sd_by_label.map_or(0.0, |sd| sd[label as usize]))
            .collect();
        let schedules = Schedules::of(&group_of, &group_sizes);
        PairData {
            tested: 0,
            baseline: 0,
            tasks: (0..labels.len() as u32).collect(),
            diffs: vec![0.0; labels.len()],
            units: Vec::new(),
            group_of,
            group_sizes,
            group_labels,
            group_sd,
            resource: Vec::new(),
            truth_diffs: Vec::new(),
            truth_units: Vec::new(),
            steps_run: Vec::new(),
            steps_full: Vec::new(),
            cost_key,
            spent_cost: Vec::new(),
            spent_seconds: Vec::new(),
            left_out: 0,
            quota_schedule: schedules.quota_schedule,
            tie_blocks: schedules.tie_blocks,
            slots: schedules.slots,
            tie_trees: schedules.tie_trees,
            initial_slack: schedules.initial_slack,
            members: schedules.members,
        }
    }
}

/// The families of a replay's pairs, as lists of pair indices in pair order.
pub fn families(family: Family, pairs: &[PairData]) -> Vec<Vec<usize>> {
    match family {
        Family::Pair => (0..pairs.len()).map(|i| vec![i]).collect(),
        Family::All => vec![(0..pairs.len()).collect()],
        Family::Tested => {
            let mut tested: Vec<usize> = pairs.iter().map(|p| p.tested).collect();
            tested.sort_unstable();
            tested.dedup();
            tested
                .iter()
                .map(|&t| (0..pairs.len()).filter(|&i| pairs[i].tested == t).collect())
                .collect()
        }
    }
}
