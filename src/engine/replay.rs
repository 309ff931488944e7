//! Completed-record replay (SPEC §2–§7): for every directed pair and order, one walk along the order
//! serves every budget and threshold (budgets are nested prefixes; running sums and group counts are
//! updated once per task). Each budget is a separate stopping point fixed in advance, decided by
//! `rules`. Pairs run in parallel; results are integer counts merged in pair order, so the bits do not
//! depend on the thread count. A cancel flag is checked before every order of every pair.
//!
//! One entry point, [`replay`]; its [`ReplayOptions`] say whether it extends an earlier result, is a
//! preview without the unresolved interval, or hands out decision records, and carry the caches
//! ([`Caches`]: bootstrap tails with their lock-free fronts, kept task orders), which the caller owns
//! and may pass from one replay to the next.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::bootstrap::LatticeCounts;
use super::coverage::{self, CoverageStatus};
use super::kept_orders::{OrderCache, PairOrders};
use super::metrics::{Metrics, summarise};
use super::monitor::MonitorScratch;
use super::orders::{OrderKey, OrderScratch, build_order, build_order_with};
use super::pair::{Grouping, PairData, lattice_scale, prepare_pairs};
use super::record::{DecisionRecord, Provenance, RecordCase, RecordContext};
use super::rules::{Action, Decision, Detail, LocalTails, Observed, RuleContext, TailCache};
use super::sequence::Sequence;
use super::settings::{BudgetMeasure, Monitor, ReplaySettings, SettingError};
use super::streams::StreamKey;
use super::tally::{CaseCounts, FamilyCounts, PairTally, StepSums};
use crate::dataset::Dataset;
use std::sync::Arc;

/// Why a replay did not finish.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Settings(#[from] SettingError),
    #[error("the records hold {0} system; a replay compares pairs of systems")]
    TooFewSystems(usize),
    #[error("no directed pair shares a task (with the budget measure's field)")]
    NoSharedTask,
    #[error("order index {index} is out of range: there are {orders} orders (0 to {})", orders - 1)]
    OrderIndex { index: u32, orders: u32 },
    #[error("'{tested}' and '{baseline}' share no task, so they form no directed pair")]
    NotAPair { tested: String, baseline: String },
    #[error("the replay was cancelled")]
    Cancelled,
    /// The sink of decision records failed; the message is the sink's.
    #[error("{0}")]
    Output(String),
}

/// Cancellation and progress, shared with whoever started the replay.
#[derive(Debug, Default)]
pub struct Control {
    pub cancel: AtomicBool,
    pub pairs_done: AtomicUsize,
}

impl Control {
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Caches carried from one replay to the next (the explorer's worker): bootstrap tails, valid for one
/// [`TailCache::signature`] (the caller checks it), and task orders, which check themselves.
#[derive(Clone, Default)]
pub struct Caches {
    pub tails: Option<Arc<TailCache>>,
    pub orders: Option<Arc<OrderCache>>,
}

/// Everything fixed for one replay: the pairs, the rules, the group column.
pub struct Prepared {
    pub settings: ReplaySettings,
    pub grouping: Grouping,
    pub scale: Option<u32>,
    pub pairs: Vec<PairData>,
    pub system_names: Vec<String>,
    pub rules: RuleContext,
    /// Task orders kept between replays, if any.
    pub orders: Option<Arc<OrderCache>>,
    /// What the budget measure left out (SPEC §4: the count must be reported), None when nothing.
    pub left_out: Option<LeftOut>,
}

/// Pairs and shared tasks a budget measure by seconds, cost or steps left out because the field is
/// unknown there, and the systems that lack it.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// The field the measure reads: "seconds", "cost" or "steps".
    pub field: &'static str,
    /// Directed pairs with no shared task left, so not compared at all.
    pub pairs: usize,
    /// Shared tasks left out of the pairs that stay.
    pub pair_tasks: usize,
    /// Systems with no value of the field on any task they have an outcome for, and the systems that
    /// lack it on some (with how many tasks).
    pub systems_without: Vec<String>,
    pub systems_partly: Vec<(String, usize)>,
}

impl LeftOut {
    /// The note the reports and the explorer show.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.pairs > 0 {
            parts.push(format!(
                "{} directed pairs left out (no shared task with {})",
                self.pairs, self.field
            ));
        }
        if self.pair_tasks > 0 {
            parts.push(format!(
                "{} shared pair-tasks without {} left out of the pairs compared",
                self.pair_tasks, self.field
            ));
        }
        let mut lacking = Vec::new();
        if !self.systems_without.is_empty() {
            lacking.push(format!(
                "no {} at all: {}",
                self.field,
                self.systems_without.join(", ")
            ));
        }
        if !self.systems_partly.is_empty() {
            let some: Vec<String> = self
                .systems_partly
                .iter()
                .map(|(name, n)| format!("{name} ({n} tasks)"))
                .collect();
            lacking.push(format!(
                "{} missing on some tasks: {}",
                self.field,
                some.join(", ")
            ));
        }
        format!(
            "budget by {}: {}{}",
            self.field,
            parts.join("; "),
            if lacking.is_empty() {
                String::new()
            } else {
                format!(" ({})", lacking.join("; "))
            }
        )
    }
}

/// What a budget measure leaves out of the record, or None when it leaves out nothing.
fn measure_left_out(
    dataset: &Dataset,
    settings: &ReplaySettings,
    pairs: &[PairData],
) -> Option<LeftOut> {
    let (field, matrix) = match settings.measure {
        BudgetMeasure::Tasks => return None,
        BudgetMeasure::Seconds | BudgetMeasure::PairSeconds => {
            ("seconds", dataset.seconds.as_ref())
        }
        BudgetMeasure::Cost | BudgetMeasure::PairCost => ("cost", dataset.cost.as_ref()),
        BudgetMeasure::Steps | BudgetMeasure::PairSteps => {
            ("steps", dataset.early.as_ref().map(|e| &e.steps_run))
        }
    };
    let dropped = pairs
        .iter()
        .filter(|p| p.n() == 0 && p.left_out > 0)
        .count();
    let pair_tasks: usize = pairs.iter().filter(|p| p.n() > 0).map(|p| p.left_out).sum();
    if dropped == 0 && pair_tasks == 0 {
        return None;
    }
    let n_tasks = dataset.n_tasks();
    let mut systems_without = Vec::new();
    let mut systems_partly = Vec::new();
    for (s, system) in dataset.systems.iter().enumerate() {
        let (mut with_outcome, mut lacking) = (0, 0);
        for t in 0..n_tasks {
            if dataset.outcome[s * n_tasks + t].is_nan() {
                continue;
            }
            with_outcome += 1;
            if matrix.is_none_or(|m| m[s * n_tasks + t].is_nan()) {
                lacking += 1;
            }
        }
        if lacking > 0 && lacking == with_outcome {
            systems_without.push(system.name.clone());
        } else if lacking > 0 {
            systems_partly.push((system.name.clone(), lacking));
        }
    }
    Some(LeftOut {
        field,
        pairs: dropped,
        pair_tasks,
        systems_without,
        systems_partly,
    })
}

impl Prepared {
    pub fn new(dataset: &Dataset, settings: &ReplaySettings) -> Result<Self, ReplayError> {
        Self::with_cache(dataset, settings, Caches::default())
    }

    /// [`Prepared::new`] reusing caches from earlier replays.
    pub fn with_cache(
        dataset: &Dataset,
        settings: &ReplaySettings,
        caches: Caches,
    ) -> Result<Self, ReplayError> {
        settings.validate(dataset)?;
        if dataset.n_systems() < 2 {
            return Err(ReplayError::TooFewSystems(dataset.n_systems()));
        }
        let grouping = Grouping::new(dataset, settings.group_column.as_deref());
        let scale = lattice_scale(dataset);
        let mut pairs = prepare_pairs(dataset, settings, &grouping, scale);
        let names: Vec<String> = dataset.systems.iter().map(|s| s.name.clone()).collect();
        // Pairs in name order: the unresolved-interval bootstrap resamples pairs by position.
        pairs.sort_by(|x, y| {
            (&names[x.tested], &names[x.baseline]).cmp(&(&names[y.tested], &names[y.baseline]))
        });
        let left_out = measure_left_out(dataset, settings, &pairs);
        pairs.retain(|p| p.n() > 0);
        if pairs.is_empty() {
            return Err(ReplayError::NoSharedTask);
        }
        let max_n = pairs.iter().map(|p| p.tasks.len()).max().unwrap_or(0);
        let rules = RuleContext::new(
            settings.policy,
            settings.thresholds.clone(),
            scale,
            settings.seed,
            max_n,
        );
        let largest_family = super::family::families(settings.policy.family, &pairs)
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(1);
        let mut rules = rules.for_families(largest_family);
        if let Some(tails) = caches.tails {
            rules.tails = tails;
        }
        Ok(Prepared {
            settings: settings.clone(),
            grouping,
            scale,
            pairs,
            system_names: names,
            rules,
            orders: caches.orders,
            left_out,
        })
    }

    pub fn names(&self, pair: &PairData) -> (&str, &str) {
        (
            &self.system_names[pair.tested],
            &self.system_names[pair.baseline],
        )
    }

    /// The order `index` of a pair.
    pub fn order(&self, pair: &PairData, index: u32, out: &mut Vec<u32>) {
        build_order(
            self.settings.policy.order,
            pair,
            self.names(pair),
            self.settings.seed,
            index,
            out,
        );
    }

    /// Fills `sizes` with the observed prefix length at each budget of the grid for this order.
    fn fill_prefix_sizes(
        &self,
        pair: &PairData,
        order: &[u32],
        running: &mut Vec<f64>,
        sizes: &mut Vec<u32>,
    ) {
        sizes.clear();
        match self.settings.measure {
            BudgetMeasure::Tasks => {
                sizes.extend(self.settings.grid.iter().map(|b| b.tasks_of(pair.n())))
            }
            _ => {
                // The running totals in this order (running[k] = the first k tasks), summed once: the
                // total is the last, so at b = 1 the whole record fits exactly.
                running.clear();
                running.push(0.0);
                let mut sum = 0.0;
                for &i in order {
                    sum += pair.resource[i as usize];
                    running.push(sum);
                }
                // Amounts are finite and ≥ 0 (the loader's check), so the totals never fall and the
                // longest prefix within each limit is a binary search, not a scan.
                let totals = &running[1..];
                for b in &self.settings.grid {
                    let limit = b.value() * sum;
                    sizes.push(totals.partition_point(|&total| total <= limit) as u32);
                }
            }
        }
    }

    /// Walks one order, calling `visit(budget index, snapshot)` at every budget of the grid.
    pub fn walk(&self, pair: &PairData, order: &[u32], visit: impl FnMut(usize, &Snapshot)) {
        self.walk_with(pair, order, &mut WalkScratch::default(), visit);
    }

    /// [`Prepared::walk`] with caller-owned buffers, reset here, so that walking allocates nothing.
    pub fn walk_with(
        &self,
        pair: &PairData,
        order: &[u32],
        scratch: &mut WalkScratch,
        mut visit: impl FnMut(usize, &Snapshot),
    ) {
        let WalkScratch {
            snapshot,
            sizes,
            running,
            quota_pair,
            quota_table,
        } = scratch;
        self.fill_prefix_sizes(pair, order, running, sizes);
        // Under the tasks measure every order of a pair stops at the same prefix lengths, so the quotas
        // r_g of each budget are computed once per pair rather than at every snapshot.
        let fixed_prefixes = self.settings.measure == BudgetMeasure::Tasks;
        let share = self.settings.policy.coverage_share.0;
        let groups = pair.group_sizes.len();
        if fixed_prefixes && *quota_pair != Some((pair.tested, pair.baseline)) {
            quota_table.clear();
            for &k in sizes.iter() {
                quota_table.extend(
                    pair.group_sizes
                        .iter()
                        .map(|&size| coverage::quota_share(k, size, pair.n(), share)),
                );
            }
            *quota_pair = Some((pair.tested, pair.baseline));
        }
        snapshot.reset(pair.n(), pair.group_sizes.len(), self.scale);
        let keep_values = self.scale.is_none();
        let mut next_budget = 0;
        let mut emit = |snapshot: &mut Snapshot, next_budget: &mut usize| {
            while *next_budget < sizes.len() && sizes[*next_budget] == snapshot.k {
                snapshot.quotas.clear();
                if fixed_prefixes {
                    let row = *next_budget * groups;
                    snapshot
                        .quotas
                        .extend_from_slice(&quota_table[row..row + groups]);
                } else {
                    snapshot.quotas.extend(
                        pair.group_sizes
                            .iter()
                            .map(|&size| coverage::quota_share(snapshot.k, size, pair.n(), share)),
                    );
                }
                if let Some(counts) = &snapshot.observed.counts {
                    let (sum, sum_sq) = counts.sums();
                    snapshot.observed.sum_units = sum;
                    snapshot.observed.sum_sq_units = sum_sq;
                }
                snapshot.coverage = coverage::status_from_quotas(
                    snapshot.k,
                    &snapshot.group_counts,
                    &snapshot.quotas,
                );
                visit(*next_budget, snapshot);
                *next_budget += 1;
            }
        };
        emit(snapshot, &mut next_budget);
        // The tasks up to the next budget, a chunk at a time: the counts need no per-task checks.
        while next_budget < sizes.len() {
            let start = snapshot.k as usize;
            let end = (sizes[next_budget] as usize).min(order.len());
            if end <= start {
                break;
            }
            let chunk = &order[start..end];
            let observed = &mut snapshot.observed;
            if let (Some(counts), Some(scale)) = (&mut observed.counts, self.scale) {
                // On the lattice the rules read exact integer sums, derived from the counts at each budget.
                for &i in chunk {
                    counts.counts[(pair.units[i as usize] + i64::from(scale)) as usize] += 1;
                }
            }
            if keep_values {
                for &i in chunk {
                    let d = pair.diffs[i as usize];
                    observed.sum += d;
                    observed.sum_sq += d * d;
                    snapshot.values.push(d);
                }
            }
            for &i in chunk {
                snapshot.group_counts[pair.group_of[i as usize] as usize] += 1;
            }
            observed.n += chunk.len() as u32;
            snapshot.k = end as u32;
            emit(snapshot, &mut next_budget);
        }
    }

    /// Walks one order a task at a time (a sequential monitor's looks, the anytime wealths): after every
    /// task, `visit(budgets, snapshot)` with the budgets of the grid whose prefix ends there (usually
    /// none). `snapshot.coverage` and the quotas are set at budgets; between them the coverage is kept
    /// up to date in O(1) per task and a visitor that needs it calls [`Prepared::coverage_now`]. Under
    /// the anytime rule the snapshot's `observed.sequence` holds the wealths.
    pub fn walk_each_with(
        &self,
        pair: &PairData,
        order: &[u32],
        scratch: &mut WalkScratch,
        mut visit: impl FnMut(std::ops::Range<usize>, &mut Snapshot),
    ) {
        let WalkScratch {
            snapshot,
            sizes,
            running,
            ..
        } = scratch;
        self.fill_prefix_sizes(pair, order, running, sizes);
        snapshot.reset(pair.n(), pair.group_sizes.len(), self.scale);
        let construction = self.settings.policy.construction();
        let anytime = construction.is_some();
        if let Some(construction) = construction {
            snapshot.observed.sequence = Some(Sequence::start(
                construction,
                &pair.group_sizes,
                self.scale,
                &self.settings.thresholds,
                snapshot.spare_sequence.take(),
            ));
        }
        snapshot.running.reset(pair.group_sizes.len(), &pair.due_by);
        // Under a coverage share below 1 the running quotas (built on the full quotas) do not apply:
        // the gate is computed from the counts at each look instead, O(groups).
        let share = self.settings.policy.coverage_share.0;
        snapshot.gate_share = (share < coverage::SHARE_UNITS).then_some((share, pair.n()));
        snapshot.sizes.clear();
        snapshot.sizes.extend_from_slice(&pair.group_sizes);
        let last = sizes.last().map_or(0, |&k| k as usize).min(order.len());
        let mut next_budget = 0;
        let budgets_here = |snapshot: &mut Snapshot, next_budget: &mut usize| {
            let start = *next_budget;
            while *next_budget < sizes.len() && sizes[*next_budget] == snapshot.k {
                *next_budget += 1;
            }
            if *next_budget > start {
                snapshot.coverage = snapshot.gate_now();
                snapshot.quotas.clear();
                match snapshot.gate_share {
                    None => snapshot.quotas.extend_from_slice(snapshot.running.quotas()),
                    Some((share, n)) => {
                        let k = snapshot.k;
                        let quotas = snapshot
                            .sizes
                            .iter()
                            .map(|&size| coverage::quota_share(k, size, n, share));
                        snapshot.quotas.extend(quotas);
                    }
                }
            }
            start..*next_budget
        };
        let budgets = budgets_here(snapshot, &mut next_budget);
        if !budgets.is_empty() {
            visit(budgets, snapshot);
        }
        // The anytime rule reads its wealths and the estimate only: the count pattern and the values,
        // which the bootstrap needs, are left empty (and the drill-down shows no bootstrap for it).
        let keep_pattern = !anytime;
        let keep_values = self.scale.is_none() && keep_pattern;
        for &i in &order[..last] {
            let i = i as usize;
            let observed = &mut snapshot.observed;
            if let Some(scale) = self.scale {
                let units = pair.units[i];
                observed.sum_units += units;
                if keep_pattern && let Some(counts) = &mut observed.counts {
                    counts.counts[(units + i64::from(scale)) as usize] += 1;
                    observed.sum_sq_units += units * units;
                }
            }
            let d = pair.diffs[i];
            if self.scale.is_none() {
                observed.sum += d;
                observed.sum_sq += d * d;
            }
            if keep_values {
                snapshot.values.push(d);
            }
            let group = pair.group_of[i];
            if let Some(state) = &mut observed.sequence {
                state.observe(d, group, &self.rules.bets);
            }
            observed.n += 1;
            snapshot.group_counts[group as usize] += 1;
            snapshot.k += 1;
            snapshot.running.advance(
                snapshot.k,
                group,
                &snapshot.group_counts,
                &pair.quota_schedule,
                &pair.due_by,
            );
            let budgets = budgets_here(snapshot, &mut next_budget);
            visit(budgets, snapshot);
        }
        if anytime {
            snapshot.spare_sequence = snapshot.observed.sequence.take();
        }
    }

    /// The coverage status of a snapshot's prefix during [`Prepared::walk_each_with`], in O(1).
    pub fn coverage_now(&self, snapshot: &Snapshot) -> CoverageStatus {
        snapshot.gate_now()
    }

    /// The random stream key of a bootstrap off the lattice for one case at a look.
    pub fn case_key(&self, pair: &PairData, order: u32, look: Look) -> StreamKey {
        let (tested, baseline) = self.names(pair);
        let key = StreamKey::new(self.settings.seed, "bootstrap-case")
            .str(tested)
            .str(baseline)
            .str(self.settings.policy.order.name())
            .u64(u64::from(order));
        match look {
            Look::Budget(budget) => key.u64(budget as u64),
            // A look between budgets (a sequential monitor looking after every task) has its own stream.
            Look::Task(k) => key.str("task").u64(u64::from(k)),
        }
    }

    /// Decisions at one snapshot, for every threshold.
    #[allow(clippy::too_many_arguments)] // the case, what to report, and reused buffers
    pub fn decide(
        &self,
        pair: &PairData,
        order: u32,
        look: Look,
        snapshot: &Snapshot,
        detail: Detail,
        local: &mut LocalTails,
        out: &mut Vec<Decision>,
    ) {
        self.rules.decide(
            &snapshot.observed,
            snapshot.coverage,
            &snapshot.values,
            || self.case_key(pair, order, look),
            detail,
            local,
            out,
        );
    }
}

/// Where along an order a decision is taken: at a budget of the grid (its index), or after the k-th
/// task between budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    Budget(usize),
    Task(u32),
}

/// The state of an observed prefix.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub k: u32,
    pub observed: Observed,
    pub group_counts: Vec<u32>,
    /// Required tasks per local group at this prefix (r_g).
    pub quotas: Vec<u32>,
    pub coverage: CoverageStatus,
    /// The observed differences in order (kept only off the lattice, where the bootstrap needs them).
    pub values: Vec<f64>,
    /// The anytime state's buffers between orders.
    spare_sequence: Option<Sequence>,
    /// Coverage kept up to date task by task (only by [`Prepared::walk_each_with`]).
    running: coverage::RunningCoverage,
    /// A coverage share below 1 and N (the gate then reads the counts against `sizes` at each look).
    gate_share: Option<(u32, u32)>,
    sizes: Vec<u32>,
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot {
            k: 0,
            observed: Observed::default(),
            group_counts: Vec::new(),
            quotas: Vec::new(),
            coverage: CoverageStatus::Ok,
            values: Vec::new(),
            spare_sequence: None,
            running: Default::default(),
            gate_share: None,
            sizes: Vec::new(),
        }
    }
}

impl Snapshot {
    /// The gate's coverage status of this prefix during a task-by-task walk.
    fn gate_now(&self) -> CoverageStatus {
        match self.gate_share {
            None => self.running.status(self.k),
            Some((share, n)) => {
                coverage::status_share(self.k, &self.group_counts, &self.sizes, n, share)
            }
        }
    }
}

impl Snapshot {
    fn reset(&mut self, total: u32, groups: usize, scale: Option<u32>) {
        self.k = 0;
        let counts = self.observed.counts.take();
        self.observed = Observed {
            total,
            ..Observed::default()
        };
        self.observed.counts = scale.map(|scale| {
            let mut counts = counts.unwrap_or(LatticeCounts {
                scale,
                counts: Vec::new(),
            });
            counts.scale = scale;
            counts.counts.clear();
            counts.counts.resize((2 * scale + 1) as usize, 0);
            counts
        });
        self.group_counts.clear();
        self.group_counts.resize(groups, 0);
        self.coverage = CoverageStatus::Ok;
        self.values.clear();
    }
}

/// Buffers for walking orders, reused from one order to the next.
#[derive(Debug, Default)]
pub struct WalkScratch {
    snapshot: Snapshot,
    sizes: Vec<u32>,
    /// Running totals of the budget measure along the order.
    running: Vec<f64>,
    /// The pair whose per-budget quotas `quota_table` holds (`quota_table[budget * groups + g]`).
    quota_pair: Option<(usize, usize)>,
    quota_table: Vec<u32>,
}

/// A finished replay.
pub struct Replay {
    pub prepared: Prepared,
    /// Completed-record decision per pair and threshold: `completed[pair][threshold]` (true = promote).
    pub completed: Vec<Vec<bool>>,
    pub tallies: Vec<PairTally>,
    pub metrics: Metrics,
    /// Orders whose prefix misses each group's quota, by dataset group label and budget.
    pub group_missing: Vec<Vec<u32>>,
    /// Cases in which each group label is present (pairs sharing a task of it × orders), by label.
    pub group_cases: Vec<u32>,
}

impl Replay {
    pub fn budgets(&self) -> usize {
        self.prepared.settings.grid.len()
    }

    /// Counts of one pair at one threshold and budget.
    pub fn pair_counts(&self, pair: usize, threshold: usize, budget: usize) -> CaseCounts {
        self.tallies[pair].counts[threshold * self.budgets() + budget]
    }
}

/// Tallies one pair over all its orders; `None` when cancelled.
pub(crate) fn tally_pair(prep: &Prepared, pair: &PairData, control: &Control) -> Option<PairTally> {
    tally_pair_records(prep, pair, control, 0..prep.settings.orders, None, None)
        .map(|(tally, _)| tally)
}

/// [`tally_pair`] over the order indices `orders` only, also building every decision record when
/// `records` gives their context. Order r is the same whatever range it is tallied in. With `kept`
/// (this pair's orders from the replay's order cache), kept orders are read rather than drawn, and
/// newly drawn ones are kept.
fn tally_pair_records(
    prep: &Prepared,
    pair: &PairData,
    control: &Control,
    orders: std::ops::Range<u32>,
    records: Option<&RecordContext<'_>>,
    mut kept: Option<(&OrderCache, &mut PairOrders)>,
) -> Option<(PairTally, Vec<DecisionRecord>)> {
    let mut built = Vec::new();
    let budgets = prep.settings.grid.len();
    let thresholds = prep.settings.thresholds.len();
    let completed: Vec<bool> = prep
        .settings
        .thresholds
        .iter()
        .map(|&t| pair.completed_promotes(t, prep.scale))
        .collect();
    let mut tally = PairTally::new(pair, thresholds, budgets);
    let mut step_sums = StepSums::default();
    let mut order = Vec::with_capacity(pair.tasks.len());
    let mut order_scratch = OrderScratch::default();
    // Under the tasks measure no budget looks past the last grid prefix, so orders stop there; the prefix
    // is the same as the full order's (orders draw their tasks one at a time). Kept orders are whole, so
    // that a replay under another measure can read them.
    let limit = match prep.settings.measure {
        BudgetMeasure::Tasks if kept.is_none() => prep
            .settings
            .grid
            .last()
            .map_or(pair.tasks.len(), |b| b.tasks_of(pair.n()) as usize),
        _ => pair.tasks.len(),
    };
    let mut scratch = MonitorScratch::default();
    // Whether each threshold has shown a wrong decision at a budget so far in this order.
    let mut shown_wrong: Vec<bool> = Vec::with_capacity(thresholds);
    // Records carry each decision's statistic; tallies read only the action.
    let detail = if records.is_some() {
        Detail::Full
    } else {
        Detail::Actions
    };
    let mut local = prep.rules.tails.take_front();
    let mut actions = ActionMemo::for_pair(prep, records.is_none());
    for r in orders {
        if control.cancelled() {
            prep.rules.tails.put_front(local);
            return None;
        }
        let read = kept
            .as_ref()
            .is_some_and(|(_, kept)| kept.read(r, &mut order));
        if !read {
            order.clear();
            let key = OrderKey {
                kind: prep.settings.policy.order,
                names: prep.names(pair),
                seed: prep.settings.seed,
                index: r,
            };
            build_order_with(&key, pair, &mut order_scratch, limit, &mut order);
            if let Some((cache, kept)) = kept.as_mut() {
                cache.keep(kept, r, &order);
            }
        }
        shown_wrong.clear();
        shown_wrong.resize(thresholds, false);
        step_sums.fill(pair, &order);
        let decide = |look: Look, snapshot: &Snapshot, out: &mut Vec<Decision>| {
            let remembered = actions.recall(snapshot);
            match remembered {
                Some(bits) => ActionMemo::unpack(bits, thresholds, out, snapshot.coverage),
                None => {
                    prep.decide(pair, r, look, snapshot, detail, &mut local, out);
                    actions.keep(snapshot, out);
                }
            }
        };
        prep.decide_along(
            pair,
            &order,
            &mut scratch,
            decide,
            |b, snapshot, standing| {
                tally.see_prefix(pair, b, snapshot.k, step_sums.at(snapshot.k));
                for (g, (&c, &required)) in snapshot
                    .group_counts
                    .iter()
                    .zip(&snapshot.quotas)
                    .enumerate()
                {
                    if c < required {
                        tally.missing[g * budgets + b] += 1;
                    }
                }
                if let Some(context) = records {
                    let (tested, baseline) = prep.names(pair);
                    for (t, decision) in standing.decisions.iter().enumerate() {
                        built.push(context.record(&RecordCase {
                            tested,
                            baseline,
                            threshold: prep.settings.thresholds[t],
                            order_index: Some(r),
                            budget: prep.settings.grid[b].value(),
                            observed: snapshot.k,
                            total: pair.n(),
                            group_counts: &snapshot.group_counts,
                            group_sizes: &pair.group_sizes,
                            group_labels: &pair.group_labels,
                            decision: *decision,
                            decided_at: standing.decided_at[t],
                            family: None,
                            completed: Some((completed[t], pair.delta_full())),
                        }));
                    }
                }
                for (t, decision) in standing.decisions.iter().enumerate() {
                    tally.counts[t * budgets + b].count(
                        decision,
                        completed[t],
                        &mut shown_wrong[t],
                    );
                }
            },
        );
    }
    control.pairs_done.fetch_add(1, Ordering::Relaxed);
    prep.rules.tails.put_front(local);
    Some((tally, built))
}

/// The actions of a pair's decisions per observed count pattern, direct-mapped, when they are a function
/// of the pattern alone: an action-only tally under a bootstrap rule on 0/±1 differences (its tails
/// depend only on the counts and the cut, its `mc` stream is keyed by the counts) at a snapshot whose
/// coverage lets the rule decide. Orders of one pair meet the same patterns again and again; a hit
/// skips the whole decision. Records need each decision's statistic, so they never use it.
struct ActionMemo {
    /// (packed counts, two bits of action per threshold); empty when the memo is off. 4,096 entries
    /// (64 KiB): on SWE-bench bash-only, 1,024 leave half the speed-up on the table, 8,192 add nothing.
    entries: Vec<(u64, u64)>,
    gate: bool,
}

impl ActionMemo {
    const SIZE: usize = 4096;
    const EMPTY: u64 = u64::MAX;

    fn for_pair(prep: &Prepared, actions_only: bool) -> Self {
        let on = actions_only
            && matches!(
                prep.settings.policy.rule,
                super::settings::Rule::Bootstrap(_)
            )
            && prep.scale == Some(1)
            && prep.settings.thresholds.len() <= 32;
        ActionMemo {
            entries: if on {
                vec![(Self::EMPTY, 0); Self::SIZE]
            } else {
                Vec::new()
            },
            gate: prep.settings.policy.coverage_gate,
        }
    }

    /// The pattern's key and slot, when the memo applies to this snapshot.
    fn key(&self, snapshot: &Snapshot) -> Option<(u64, usize)> {
        if self.entries.is_empty() || (self.gate && snapshot.coverage != CoverageStatus::Ok) {
            return None;
        }
        let key = super::rules::pack(snapshot.observed.counts.as_ref()?)?;
        // The high bits of a multiplicative hash: SIZE is a power of two.
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::SIZE.trailing_zeros()))
            as usize;
        Some((key, slot))
    }

    fn recall(&self, snapshot: &Snapshot) -> Option<u64> {
        let (key, slot) = self.key(snapshot)?;
        let (known, bits) = self.entries[slot];
        (known == key).then_some(bits)
    }

    fn keep(&mut self, snapshot: &Snapshot, decisions: &[Decision]) {
        if let Some((key, slot)) = self.key(snapshot) {
            let bits = decisions.iter().enumerate().fold(0u64, |bits, (t, d)| {
                let code = match d.action {
                    Action::Promote => 1,
                    Action::Reject => 2,
                    Action::Abstain | Action::Continue => 0,
                };
                bits | code << (2 * t)
            });
            self.entries[slot] = (key, bits);
        }
    }

    /// Decisions with the remembered actions (the reason and statistic, which an action-only tally
    /// does not read, are left plain).
    fn unpack(bits: u64, thresholds: usize, out: &mut Vec<Decision>, coverage: CoverageStatus) {
        out.clear();
        out.extend((0..thresholds).map(|t| {
            let action = match (bits >> (2 * t)) & 3 {
                1 => Action::Promote,
                2 => Action::Reject,
                _ => Action::Abstain,
            };
            Decision::bare(action, coverage)
        }));
    }
}

/// What a replay does besides tallying every order: the caller's caches, an earlier result to extend,
/// a preview without the unresolved interval, or decision records. The default is a plain replay.
#[derive(Default)]
pub struct ReplayOptions<'a> {
    /// Caches carried over from earlier replays (see [`Caches`]); the default starts empty ones.
    pub caches: Caches,
    /// A replay of the same settings with fewer orders ([`extends`]): only the orders beyond it are
    /// walked and its tallies added, which gives the bits of a full replay. Ignored when the settings
    /// differ in anything but a larger number of orders, and when records are asked for (records cover
    /// every order).
    pub extend: Option<&'a Replay>,
    /// Skip the unresolved interval (NaN), whose 2,000 resamples per budget and threshold would delay a
    /// quick preview; extending the preview computes it.
    pub preview: bool,
    /// Hand every decision record to this sink, pair by pair in pair order; its error stops the replay.
    pub records: Option<&'a mut RecordSink<'a>>,
}

/// Where decision records go (a file writer, a test's collector).
pub type RecordSink<'a> = dyn FnMut(Vec<DecisionRecord>) -> Result<(), String> + 'a;

/// Whether `settings` only adds orders to `earlier` (so a replay of `earlier` can be extended to it).
pub fn extends(earlier: &ReplaySettings, settings: &ReplaySettings) -> bool {
    earlier.orders < settings.orders
        && *earlier
            == ReplaySettings {
                orders: earlier.orders,
                ..settings.clone()
            }
}

/// Replays the dataset under the settings: every directed pair, order and budget, tallied and
/// summarised. Deterministic for given settings on any thread count; stops with
/// [`ReplayError::Cancelled`] when `control` is cancelled.
pub fn replay(
    dataset: &Dataset,
    settings: &ReplaySettings,
    control: &Control,
    options: ReplayOptions<'_>,
) -> Result<Replay, ReplayError> {
    let ReplayOptions {
        caches,
        extend,
        preview,
        records,
    } = options;
    let prepared = Prepared::with_cache(dataset, settings, caches.clone())?;
    if settings.policy.decides_families() {
        // The adjustment reads every budget's evidence of every pair: walk them per-look.
        let mut per_look = settings.clone();
        per_look.policy.monitor = Monitor::PerLook;
        let walker = Prepared::with_cache(dataset, &per_look, caches)?;
        let provenance = Provenance::new(&dataset.inputs);
        let context = RecordContext::for_replay(settings, &provenance, &prepared.grouping.labels);
        let records = records.map(|sink| (&context, sink));
        let (tallies, families) =
            super::family::tally_families(&prepared, &walker, control, records)?;
        return finish(prepared, tallies, Some(families), !preview);
    }
    let tallies = match records {
        Some(sink) => tally_with_records(dataset, &prepared, control, sink)?,
        None => {
            let earlier = extend.filter(|e| extends(&e.prepared.settings, settings));
            tally_orders(&prepared, control, earlier)?
        }
    };
    finish(prepared, tallies, None, !preview)
}

/// Walks the orders that `earlier` (same settings, fewer orders) has not, adding its tallies; every
/// order without it. Orders are read from and kept in the order cache when there is one.
fn tally_orders(
    prepared: &Prepared,
    control: &Control,
    earlier: Option<&Replay>,
) -> Result<Vec<PairTally>, ReplayError> {
    let settings = &prepared.settings;
    let done = earlier.map_or(0, |replay| replay.prepared.settings.orders);
    let tallies: Vec<Option<PairTally>> = prepared
        .pairs
        .par_iter()
        .enumerate()
        .map(|(index, pair)| {
            let cache = prepared.orders.as_deref();
            let mut kept = cache.map(|cache| {
                let (kind, seed) = (settings.policy.order, settings.seed);
                cache.take(index, kind, seed, prepared.names(pair), pair)
            });
            let tallied = tally_pair_records(
                prepared,
                pair,
                control,
                done..settings.orders,
                None,
                cache.zip(kept.as_mut()),
            );
            // Orders kept before a cancel are still the right orders.
            if let (Some(cache), Some(kept)) = (cache, kept) {
                cache.put(index, kept);
            }
            let (mut tally, _) = tallied?;
            if let Some(earlier) = earlier {
                tally.add(&earlier.tallies[index]);
            }
            Some(tally)
        })
        .collect();
    tallies
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or(ReplayError::Cancelled)
}

/// Tallies every order and hands each pair's decision records to `sink`, in pair order. Pairs run in
/// parallel in chunks, so only a few pairs' records are held at once. The aggregates are counted from
/// the same decisions the records describe.
fn tally_with_records(
    dataset: &Dataset,
    prepared: &Prepared,
    control: &Control,
    sink: &mut RecordSink<'_>,
) -> Result<Vec<PairTally>, ReplayError> {
    let settings = &prepared.settings;
    let provenance = Provenance::new(&dataset.inputs);
    let context = RecordContext::for_replay(settings, &provenance, &prepared.grouping.labels);
    let chunk = (2 * rayon::current_num_threads()).max(2);
    let mut tallies = Vec::with_capacity(prepared.pairs.len());
    for pairs in prepared.pairs.chunks(chunk) {
        let results: Vec<Option<(PairTally, Vec<DecisionRecord>)>> = pairs
            .par_iter()
            .map(|pair| {
                tally_pair_records(
                    prepared,
                    pair,
                    control,
                    0..settings.orders,
                    Some(&context),
                    None,
                )
            })
            .collect();
        for result in results {
            let (tally, records) = result.ok_or(ReplayError::Cancelled)?;
            sink(records).map_err(ReplayError::Output)?;
            tallies.push(tally);
        }
    }
    Ok(tallies)
}

/// Aggregates pair tallies (in pair order) into the replay result, skipping the unresolved interval
/// (NaN) unless `intervals`.
fn finish(
    prepared: Prepared,
    tallies: Vec<PairTally>,
    families: Option<FamilyCounts>,
    intervals: bool,
) -> Result<Replay, ReplayError> {
    let budgets = prepared.settings.grid.len();
    let completed: Vec<Vec<bool>> = prepared
        .pairs
        .iter()
        .map(|p| {
            prepared
                .settings
                .thresholds
                .iter()
                .map(|&t| p.completed_promotes(t, prepared.scale))
                .collect()
        })
        .collect();
    let labels = prepared.grouping.labels.len();
    let mut group_missing = vec![vec![0u32; budgets]; labels];
    let mut group_cases = vec![0u32; labels];
    for (pair, tally) in prepared.pairs.iter().zip(&tallies) {
        for (g, &label) in pair.group_labels.iter().enumerate() {
            group_cases[label as usize] += prepared.settings.orders;
            let missing = &tally.missing[g * budgets..(g + 1) * budgets];
            for (total, &count) in group_missing[label as usize].iter_mut().zip(missing) {
                *total += count;
            }
        }
    }
    // Each pair alone: a family's wrong decision is the pair's.
    let families = families.unwrap_or_else(|| FamilyCounts {
        families: tallies.len() as u32,
        wrong: (0..prepared.settings.thresholds.len() * budgets)
            .map(|index| tallies.iter().map(|t| t.counts[index].wrong).sum())
            .collect(),
    });
    let metrics = summarise(
        &prepared.settings,
        &completed,
        &tallies,
        &families,
        intervals,
    );
    Ok(Replay {
        prepared,
        completed,
        tallies,
        metrics,
        group_missing,
        group_cases,
    })
}
