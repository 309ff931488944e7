//! The walk along one pair's orders, shared by the replay, its monitors and its families: what is
//! fixed for a replay ([`Prepared`]: pairs, rules, groups, kept orders), the state of an observed
//! prefix ([`Snapshot`]), the buffers reused between orders ([`WalkScratch`]), where a decision is
//! read ([`Look`]), cancellation ([`Control`]) and why a replay stops ([`ReplayError`]). The replay
//! tallies these walks; `monitor` and `family` read them with other looks and families.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use crate::dataset::Dataset;
use crate::engine::rules::bootstrap::LatticeCounts;
use crate::engine::rules::coverage::{self, CoverageStatus};
use crate::engine::rules::foresight::population_sums;
use crate::engine::rules::sequence::Sequence;
use crate::engine::rules::{Decision, Detail, LocalTails, Observed, RuleContext, TailCache};
use crate::engine::settings::{BudgetMeasure, OrderKind, ReplaySettings, SettingError};
use crate::engine::streams::StreamKey;
use crate::engine::walk::gate::Gate;
use crate::engine::walk::kept_orders::OrderCache;
use crate::engine::walk::orders::build_order;
use crate::engine::walk::pair::{Grouping, PairData, families, lattice_scale, prepare_pairs};
use crate::engine::walk::record::DecisionRecord;

/// Why a replay did not finish.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Settings(#[from] SettingError),
    #[error("the records hold {0} system; a replay compares pairs of systems")]
    TooFewSystems(usize),
    /// No pair shares a task (with a value of the budget measure's field, when it has one).
    #[error("no directed pair shares a task{}", .0.map_or(String::new(), |field| format!(" with a value of {field} (the budget measure's field)")))]
    NoSharedTask(Option<&'static str>),
    /// Pairs share tasks, but none as many as `--min-shared` asks.
    #[error("no directed pair shares at least {0} tasks (--min-shared {0})")]
    TooFewShared(usize),
    /// A budget measured in a field needs each pair's total of it to be positive and finite.
    #[error(
        "--budget-by {measure}: the pair '{tested}' vs '{baseline}' has a total {field} {total} over its {tasks} shared tasks, so a share of it names no budget (use --budget-by tasks)"
    )]
    MeasureTotal {
        measure: &'static str,
        field: &'static str,
        tested: String,
        baseline: String,
        total: String,
        tasks: usize,
    },
    #[error("order index {index} is out of range: there are {orders} orders (0 to {})", orders - 1)]
    OrderIndex { index: u32, orders: u32 },
    #[error("'{tested}' and '{baseline}' share no task, so they form no directed pair")]
    NotAPair { tested: String, baseline: String },
    /// The two systems share tasks, but the replay's settings leave the pair out (`why`).
    #[error(
        "'{tested}' and '{baseline}' share {shared} tasks, but {why}, so they form no directed pair here"
    )]
    PairLeftOut {
        tested: String,
        baseline: String,
        shared: usize,
        why: String,
    },
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
    /// The pairs the replay walks, once it has prepared them (0 before): fewer than the record's
    /// directed pairs when a budget measure leaves some out.
    pub pairs_total: AtomicUsize,
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
    /// This preparation among all of the process's: what a walk's scratch keys its per-pair sums by,
    /// with the pair's place, so a scratch kept across preparations never reads another's.
    instance: u64,
}

/// The next [`Prepared::instance`].
static NEXT_INSTANCE: AtomicU64 = AtomicU64::new(0);

/// Pairs and shared tasks a budget measure by seconds, cost or steps left out because the field is
/// unknown there, and the systems that lack it.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// The budget measure ("pair-cost"), as the note names it.
    pub measure: &'static str,
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
            self.measure,
            parts.join("; "),
            if lacking.is_empty() {
                String::new()
            } else {
                format!(" ({})", lacking.join("; "))
            }
        )
    }
}

/// The field a budget measure reads (None for tasks).
pub(crate) fn measure_field(measure: BudgetMeasure) -> Option<&'static str> {
    match measure {
        BudgetMeasure::Tasks => None,
        BudgetMeasure::Seconds | BudgetMeasure::PairSeconds => Some("seconds"),
        BudgetMeasure::Cost | BudgetMeasure::PairCost => Some("cost"),
        BudgetMeasure::Steps | BudgetMeasure::PairSteps => Some("steps"),
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
    // Named by name, not in the files' order of first appearance.
    systems_without.sort();
    systems_partly.sort();
    Some(LeftOut {
        measure: settings.measure.name(),
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
        let field = measure_field(settings.measure);
        if pairs.is_empty()
            && dataset.min_shared > 1
            && dataset.shared_counts().iter().any(|&n| n > 0)
        {
            return Err(ReplayError::TooFewShared(dataset.min_shared));
        }
        if pairs.is_empty() {
            return Err(ReplayError::NoSharedTask(field));
        }
        if let Some(field) = field {
            // All of a zero total fits in any share of it (every budget would read every task), and
            // an infinite one in none.
            for pair in &pairs {
                let total: f64 = pair.resource.iter().sum();
                if !(total.is_finite() && total > 0.0) {
                    return Err(ReplayError::MeasureTotal {
                        measure: settings.measure.name(),
                        field,
                        tested: names[pair.tested].clone(),
                        baseline: names[pair.baseline].clone(),
                        total: if total.is_finite() {
                            format!("of {total}")
                        } else {
                            "beyond the range of a 64-bit float".to_string()
                        },
                        tasks: pair.n() as usize,
                    });
                }
            }
        }
        let max_n = pairs.iter().map(|p| p.tasks.len()).max().unwrap_or(0);
        let rules = RuleContext::new(
            settings.policy,
            settings.thresholds.clone(),
            scale,
            settings.seed,
            max_n,
        );
        let largest_family = families(settings.policy.family, &pairs)
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
            instance: NEXT_INSTANCE.fetch_add(1, Ordering::Relaxed),
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
            ..
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
    /// task, `visit(budgets, snapshot)` with the budgets of the grid whose prefix ends there, and after
    /// a task where no budget ends only if `look(snapshot)` says so (asked inline at every task, so it
    /// must be cheap: [`Snapshot::gate_open`] is O(1)). `snapshot.coverage` and the quotas are set at
    /// budgets. Under the anytime rule the snapshot's `observed.sequence` holds the wealths until
    /// `settled()` says, after a visit, that the caller reads nothing more of them (a sequential
    /// monitor that has kept every threshold's decision): the rest of the order is then walked from
    /// budget to budget without the rule, whose state stays as it was at that task.
    pub fn walk_each_with(
        &self,
        pair: &PairData,
        order: &[u32],
        scratch: &mut WalkScratch,
        mut look: impl FnMut(&Snapshot) -> bool,
        settled: impl Fn() -> bool,
        mut visit: impl FnMut(std::ops::Range<usize>, &mut Snapshot),
    ) {
        let WalkScratch {
            snapshot,
            sizes,
            running,
            foresee,
            population,
            population_of,
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
        snapshot
            .gate
            .start(&pair.group_sizes, self.settings.policy.coverage_share.0);
        let last = sizes.last().map_or(0, |&k| k as usize).min(order.len());
        if *foresee && let Some(sequence) = &mut snapshot.observed.sequence {
            let at = |i: &u32| (pair.group_of[*i as usize], pair.diffs[*i as usize]);
            // The groups' sums over all tasks, once per pair: keyed by this preparation and where
            // the pair and its outcomes are (a pair's data does not change while it is borrowed).
            let key = (
                self.instance,
                std::ptr::from_ref(pair) as usize,
                pair.diffs.as_ptr() as usize,
            );
            if *population_of != Some(key) {
                let tasks = pair
                    .group_of
                    .iter()
                    .copied()
                    .zip(pair.diffs.iter().copied());
                population_sums(tasks, pair.group_sizes.len(), population);
                *population_of = Some(key);
            }
            sequence.foresee(order[..last].iter().map(at), population, &self.rules.bets);
        }
        // Which prefixes pass the gate, read before the walk: a look asks a bit. Past the last that
        // passes every look abstains on coverage whatever the wealths say, so no look between budgets
        // can decide (the walk goes from budget to budget without asking `look`), and a caller that
        // reads actions only lets the bets stop there (uniform orders meet the quotas rarely).
        let mut quiet_from = last;
        if self.settings.policy.coverage_gate {
            let groups = order[..last].iter().map(|&i| pair.group_of[i as usize]);
            let policy = &self.settings.policy;
            let open_until = if policy.order == OrderKind::Stratified
                && policy.coverage_share.0 >= coverage::SHARE_UNITS
            {
                snapshot
                    .gate
                    .read_shared(groups, &mut snapshot.group_counts)
            } else {
                snapshot.gate.read(groups, &mut snapshot.group_counts)
            };
            if *foresee && let Some(sequence) = &mut snapshot.observed.sequence {
                sequence.bet_only_to(open_until);
            }
            quiet_from = open_until as usize;
        }
        let mut next_budget = 0;
        let budgets_here = |snapshot: &mut Snapshot, next_budget: &mut usize| {
            let start = *next_budget;
            while *next_budget < sizes.len() && sizes[*next_budget] == snapshot.k {
                *next_budget += 1;
            }
            if *next_budget > start {
                snapshot.gate.quotas_into(snapshot.k, &mut snapshot.quotas);
                snapshot.coverage = coverage::status_from_quotas(
                    snapshot.k,
                    &snapshot.group_counts,
                    &snapshot.quotas,
                );
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
        let bets = &self.rules.bets;
        let scale = self.scale;
        let take = |snapshot: &mut Snapshot, i: u32| {
            let i = i as usize;
            let observed = &mut snapshot.observed;
            if let Some(scale) = scale {
                let units = pair.units[i];
                observed.sum_units += units;
                if keep_pattern && let Some(counts) = &mut observed.counts {
                    counts.counts[(units + i64::from(scale)) as usize] += 1;
                    observed.sum_sq_units += units * units;
                }
            }
            let d = pair.diffs[i];
            if scale.is_none() {
                observed.sum += d;
                observed.sum_sq += d * d;
            }
            if keep_values {
                snapshot.values.push(d);
            }
            let group = pair.group_of[i];
            if let Some(state) = &mut observed.sequence {
                state.observe(d, group, bets);
            }
            observed.n += 1;
            snapshot.group_counts[group as usize] += 1;
            snapshot.k += 1;
        };
        // The anytime rule's walk over a run of tasks with no look: the sums in registers, stored
        // once, and the rule told the run at once (`quiet`: a stretch where it can change no
        // verdict, see below; else the rest of the order, `rule_read` when it is still read).
        let take_run = |snapshot: &mut Snapshot, chunk: &[u32], quiet: bool, rule_read: bool| {
            let observed = &mut snapshot.observed;
            let (mut sum_units, mut sum, mut sum_sq) =
                (observed.sum_units, observed.sum, observed.sum_sq);
            for &i in chunk {
                let i = i as usize;
                if scale.is_some() {
                    sum_units += pair.units[i];
                } else {
                    let d = pair.diffs[i];
                    sum += d;
                    sum_sq += d * d;
                }
                snapshot.group_counts[pair.group_of[i] as usize] += 1;
            }
            (observed.sum_units, observed.sum, observed.sum_sq) = (sum_units, sum, sum_sq);
            if rule_read && let Some(state) = &mut observed.sequence {
                let tasks = chunk
                    .iter()
                    .map(|&i| (pair.group_of[i as usize], pair.diffs[i as usize]));
                if quiet {
                    state.observe_quiet_run(tasks, bets);
                } else {
                    state.observe_run(tasks, bets);
                }
            }
            observed.n += chunk.len() as u32;
            snapshot.k += chunk.len() as u32;
        };
        let gate_on = self.settings.policy.coverage_gate;
        let mut at = quiet_from;
        let mut rule_read = true;
        let mut position = 0;
        while position < quiet_from {
            take(snapshot, order[position]);
            position += 1;
            let budgets = budgets_here(snapshot, &mut next_budget);
            let looked = !budgets.is_empty() || look(snapshot);
            if looked {
                visit(budgets, snapshot);
                if anytime && settled() {
                    // Nothing reads the rule again: its observations would be work for no one.
                    rule_read = false;
                    at = position;
                    break;
                }
            }
            // A replay of §9a may know that no verdict can change for a while (its windows and
            // certificates): after a look that kept every final verdict (it was visited with the
            // gate open), the tasks up to then, short of the next budget, go into the rule's tables
            // and the sums with no look at all.
            if !(looked && (!gate_on || snapshot.gate_open())) {
                continue;
            }
            let Some(state) = &snapshot.observed.sequence else {
                continue;
            };
            let budget_k = sizes.get(next_budget).map_or(quiet_from, |&k| k as usize);
            let end = (state.quiet_until() as usize)
                .min(budget_k.saturating_sub(1))
                .min(quiet_from);
            if position < end {
                take_run(snapshot, &order[position..end], true, true);
                position = end;
            }
        }
        // The quiet rest, a chunk from budget to budget.
        while at < last {
            let end = sizes
                .get(next_budget)
                .map_or(last, |&k| (k as usize).min(last));
            let chunk = &order[at..end];
            if keep_pattern {
                // The bootstrap's walk (the anytime rule's `rule_read` stays true here).
                for &i in chunk {
                    take(snapshot, i);
                }
            } else {
                take_run(snapshot, chunk, false, rule_read);
            }
            let budgets = budgets_here(snapshot, &mut next_budget);
            if !budgets.is_empty() {
                visit(budgets, snapshot);
            }
            at = end;
        }
        if anytime {
            snapshot.spare_sequence = snapshot.observed.sequence.take();
        }
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
    /// The coverage gate of a task-by-task walk (only [`Prepared::walk_each_with`] keeps it).
    gate: Gate,
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
            gate: Gate::default(),
        }
    }
}

impl Snapshot {
    /// Whether this prefix passes the coverage gate, during a task-by-task walk: one bit, read ahead
    /// (see [`Gate`]). Then its status is `Ok`.
    #[inline]
    pub fn gate_open(&self) -> bool {
        self.gate.is_open(self.k)
    }

    /// The full coverage status of this prefix during a task-by-task walk, O(groups).
    pub fn gate_status(&self) -> CoverageStatus {
        self.gate.status(self.k, &self.group_counts)
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
    /// Whether the anytime state may read each order to its end before walking it (see
    /// [`WalkScratch::read_ahead`]).
    foresee: bool,
    /// Each group's Σ x over all the pair's tasks, for the read-ahead, and the pair it was summed
    /// for (its preparation, where it and its outcomes are).
    population: Vec<f64>,
    population_of: Option<(u64, usize, usize)>,
}

impl WalkScratch {
    /// Lets §9a's state read each order to its last look before walking it, so that a side whose
    /// tests provably stay below the screen stops early. The decisions are the same; the statistics
    /// of such a side are bounds, so only a caller that reads nothing but actions may ask for it.
    pub fn read_ahead(&mut self, on: bool) {
        self.foresee = on;
    }
}

/// Where decision records go (a file writer, a test's collector).
pub type RecordSink<'a> = dyn FnMut(Vec<DecisionRecord>) -> Result<(), String> + 'a;
