//! "Why did this pair abstain?": everything about one directed pair under a policy, for `pareval pair`
//! and the explorer's drill-down. The decision records at one order and budget, the action at every budget
//! of that order, the shares of actions over all orders, the bootstrap distribution behind the tails and
//! a per-group view of who solved what. Computed with the same walk and rules as the replay.

use serde::Serialize;

use crate::dataset::Dataset;
use crate::engine::rules::anytime::Band;
use crate::engine::rules::bootstrap::{IntDistribution, exact_binary, exact_lattice};
use crate::engine::rules::coverage::CoverageStatus;
use crate::engine::rules::crosscheck::{CrossCheck, PairedTable};
use crate::engine::rules::sequence::{confidence_band, stratified_band};
use crate::engine::rules::stats::LnFactorial;
use crate::engine::rules::stratified::{StratifiedTrace, stratified_trace};
use crate::engine::rules::{Action, Detail, LocalTails};
use crate::engine::settings::Construction;
use crate::engine::settings::{Fraction, ReplaySettings};
use crate::engine::walk::monitor::MonitorScratch;
use crate::engine::walk::record::{DecisionRecord, Provenance, RecordCase, RecordContext};
use crate::engine::walk::replay::{Control, Prepared, ReplayError, Snapshot, tally_pair};
use crate::engine::walk::tally::CaseCounts;

/// The pair at one budget of one order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderStep {
    pub budget: f64,
    pub observed: u32,
    pub coverage: CoverageStatus,
    pub estimate: f64,
    /// One action per threshold.
    pub actions: Vec<Action>,
}

/// Shares of actions over all orders at one budget, per threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderRates {
    pub budget: f64,
    pub promote: f64,
    pub reject: f64,
    pub abstain: f64,
    /// Promote or reject against the completed decision.
    pub wrong: f64,
}

/// Outcomes per group on the shared tasks: both succeeded, only the tested system, only the baseline,
/// neither (a task counts as succeeded at outcome ≥ 0.5; differences decide "only").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupOutcomes {
    pub group: String,
    pub tasks: u32,
    pub both: u32,
    pub only_tested: u32,
    pub only_baseline: u32,
    pub neither: u32,
}

impl GroupOutcomes {
    /// The row of a "tasks by group" table: group, tasks, both, only tested, only baseline, neither.
    pub fn cells(&self) -> Vec<String> {
        vec![
            self.group.clone(),
            self.tasks.to_string(),
            self.both.to_string(),
            self.only_tested.to_string(),
            self.only_baseline.to_string(),
            self.neither.to_string(),
        ]
    }
}

/// The bootstrap distribution of Δ̂* at the chosen budget, as probabilities over a grid of values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BootstrapDistribution {
    /// Δ̂* of the first probability, and the step between values.
    pub first: f64,
    pub step: f64,
    pub probs: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairDetail {
    pub tested: String,
    pub baseline: String,
    pub shared: u32,
    pub left_out: usize,
    pub delta_full: f64,
    pub thresholds_pp: Vec<f64>,
    /// Completed-record decision per threshold.
    pub completed: Vec<Action>,
    pub order_index: u32,
    pub orders: u32,
    pub budget: f64,
    /// One record per threshold at (order_index, budget).
    pub records: Vec<DecisionRecord>,
    /// The chosen order at every budget of the grid.
    pub order_steps: Vec<OrderStep>,
    /// `rates[threshold][budget]` over all orders.
    pub rates: Vec<Vec<OrderRates>>,
    pub bootstrap: Option<BootstrapDistribution>,
    /// Exact sign test and Newcombe interval on the tasks observed at (order_index, budget); `None`
    /// when an outcome there is not 0 or 1, or no task is observed.
    pub cross_check: Option<CrossCheck>,
    /// Under the anytime rule: the estimate with its anytime confidence band after each task observed
    /// at (order_index, budget), for the drill-down's chart.
    pub band: Option<Band>,
    /// Under the stratified anytime rule (SPEC §9a): Λ of both tests along the order and the least
    /// favourable allocation per group, at (order_index, budget).
    pub stratified: Option<StratifiedTrace>,
    /// When the policy decides pairs in families: a note that this detail shows the pair alone (its
    /// family's adjustment needs every other pair, and is in the replay's tables).
    pub family_note: Option<String>,
    pub groups: Vec<GroupOutcomes>,
    /// Shared tasks where either system's outcome is strictly between 0 and 1 (runs averaged, or
    /// partial credit): the group table's columns then count who scored more, not who succeeded.
    pub fractional_tasks: u32,
}

impl PairDetail {
    /// The headers of the group table's four outcome columns (both, only tested, only baseline,
    /// neither): with fractional outcomes they say what is counted, who is ahead and how ties split.
    pub fn outcome_headers(&self) -> [&'static str; 4] {
        if self.fractional_tasks > 0 {
            ["tie ≥ ½", "A ahead", "B ahead", "tie < ½"]
        } else {
            ["both", "only A", "only B", "neither"]
        }
    }
}

/// Computes the detail of the pair (tested, baseline) — system indices of the dataset — at `budget`,
/// which joins the grid if it is not on it.
pub fn pair_detail(
    dataset: &Dataset,
    settings: &ReplaySettings,
    tested: usize,
    baseline: usize,
    order_index: u32,
    budget: Fraction,
) -> Result<PairDetail, ReplayError> {
    let mut settings = settings.clone();
    if !settings.grid.contains(&budget) {
        settings.grid.push(budget);
        settings.grid.sort();
    }
    if order_index >= settings.orders {
        return Err(ReplayError::OrderIndex {
            index: order_index,
            orders: settings.orders,
        });
    }
    // The pair alone: a family's adjustment needs every other pair (see `family_note`).
    let family_note = settings.policy.decides_families().then(|| {
        format!(
            "shown alone; decided in family '{}' with adjustment '{}', which the replay's tables apply",
            settings.policy.family.name(),
            settings.policy.adjust.name()
        )
    });
    settings.policy.family = Default::default();
    settings.policy.adjust = Default::default();
    let prep = Prepared::new(dataset, &settings)?;
    let pair = prep
        .pairs
        .iter()
        .find(|p| p.tested == tested && p.baseline == baseline)
        .ok_or_else(|| not_a_pair(dataset, &settings, tested, baseline))?;
    let budget_index = settings.grid.iter().position(|&b| b == budget).unwrap_or(0);
    let completed_promotes: Vec<bool> = settings
        .thresholds
        .iter()
        .map(|&t| pair.completed_promotes(t, prep.scale))
        .collect();
    let provenance = Provenance::new(&dataset.inputs);
    let context = RecordContext::for_replay(&settings, &provenance, &prep.grouping.labels);
    let (tested_name, baseline_name) = prep.names(pair);
    let mut order = Vec::new();
    prep.order(pair, order_index, &mut order);
    let mut local = LocalTails::default();
    let mut order_steps = Vec::new();
    let mut records = Vec::new();
    let mut bootstrap = None;
    let mut observed_at_budget = 0;
    let decide = |look, snapshot: &Snapshot, out: &mut Vec<_>| {
        prep.decide(
            pair,
            order_index,
            look,
            snapshot,
            Detail::Full,
            &mut local,
            out,
        );
    };
    let mut scratch = MonitorScratch::default();
    let mut decided_counts: Vec<u32> = Vec::new();
    prep.decide_along(
        pair,
        &order,
        &mut scratch,
        decide,
        |b, snapshot, standing| {
            order_steps.push(OrderStep {
                budget: settings.grid[b].value(),
                observed: snapshot.k,
                coverage: snapshot.coverage,
                estimate: snapshot.observed.estimate(prep.scale),
                actions: standing.decisions.iter().map(|d| d.action).collect(),
            });
            if b == budget_index {
                for (t, decision) in standing.decisions.iter().enumerate() {
                    let decided_at = standing.decided_at[t];
                    let decided_group_counts =
                        pair.group_counts_at(&order, decided_at, &mut decided_counts);
                    records.push(context.record(&RecordCase {
                        tested: tested_name,
                        baseline: baseline_name,
                        threshold: settings.thresholds[t],
                        order_index: Some(order_index),
                        budget: budget.value(),
                        observed: snapshot.k,
                        total: pair.n(),
                        group_counts: &snapshot.group_counts,
                        group_sizes: &pair.group_sizes,
                        group_labels: &pair.group_labels,
                        decision: *decision,
                        decided_at,
                        decided_group_counts,
                        family: None,
                        completed: Some((completed_promotes[t], pair.delta_full())),
                    }));
                }
                // The anytime rule has no resampling distribution (its walk keeps no count pattern).
                if !settings.policy.rule.is_anytime() {
                    bootstrap = bootstrap_distribution(&snapshot.observed, prep.scale);
                }
                observed_at_budget = snapshot.k as usize;
            }
        },
    );
    let tally = tally_pair(&prep, pair, &Control::default()).ok_or(ReplayError::Cancelled)?;
    let budgets = settings.grid.len();
    let share = |x: u32| f64::from(x) / f64::from(settings.orders);
    let rates = (0..settings.thresholds.len())
        .map(|t| {
            (0..budgets)
                .map(|b| {
                    let c: CaseCounts = tally.counts[t * budgets + b];
                    OrderRates {
                        budget: settings.grid[b].value(),
                        promote: share(c.promote),
                        reject: share(c.reject),
                        abstain: share(c.abstain),
                        wrong: share(c.wrong),
                    }
                })
                .collect()
        })
        .collect();
    let groups = group_outcomes(dataset, &prep, pair);
    let fractional_tasks = pair
        .tasks
        .iter()
        .filter(|&&t| {
            [pair.tested, pair.baseline].iter().any(|&s| {
                dataset
                    .outcome(s, t as usize)
                    .is_some_and(|o| o > 0.0 && o < 1.0)
            })
        })
        .count() as u32;
    // The walk observes a prefix of the order, so the cross-checks see exactly the rule's tasks.
    let observed_order = &order[..observed_at_budget.min(order.len())];
    let diffs: Vec<f64> = observed_order
        .iter()
        .map(|&i| pair.diffs[i as usize])
        .collect();
    let groups_seen: Vec<u32> = observed_order
        .iter()
        .map(|&i| pair.group_of[i as usize])
        .collect();
    let stratified = settings.policy.construction() == Some(Construction::Stratified);
    let band = settings.policy.rule.is_anytime().then(|| {
        if stratified {
            // Nulls 1 pp apart: every null keeps its own minimiser over the groups.
            stratified_band(
                &diffs,
                &groups_seen,
                &pair.group_sizes,
                prep.scale,
                &prep.rules.bets,
                0.01,
            )
        } else {
            // Nulls 0.25 pp apart: finer than any threshold a user types, 801 tests per task.
            confidence_band(&diffs, pair.n(), &prep.rules.bets, 0.0025)
        }
    });
    let stratified = stratified.then(|| {
        let labels: Vec<String> = pair
            .group_labels
            .iter()
            .map(|&l| prep.grouping.labels[l as usize].clone())
            .collect();
        let deltas: Vec<f64> = settings.thresholds.iter().map(|t| t.delta()).collect();
        stratified_trace(
            &diffs,
            &groups_seen,
            &pair.group_sizes,
            &labels,
            prep.scale,
            &deltas,
            &prep.rules.bets,
        )
    });
    let cross_check = PairedTable::of_binary(observed_order.iter().map(|&i| {
        let task = pair.tasks[i as usize] as usize;
        (
            dataset.outcome(pair.tested, task).unwrap_or(f64::NAN),
            dataset.outcome(pair.baseline, task).unwrap_or(f64::NAN),
        )
    }))
    .and_then(CrossCheck::new);
    Ok(PairDetail {
        tested: tested_name.to_string(),
        baseline: baseline_name.to_string(),
        shared: pair.n(),
        left_out: pair.left_out,
        delta_full: pair.delta_full(),
        thresholds_pp: settings.thresholds.iter().map(|t| t.pp()).collect(),
        completed: completed_promotes
            .iter()
            .map(|&p| if p { Action::Promote } else { Action::Reject })
            .collect(),
        order_index,
        orders: settings.orders,
        budget: budget.value(),
        records,
        order_steps,
        rates,
        bootstrap,
        cross_check,
        band,
        stratified,
        family_note,
        groups,
        fractional_tasks,
    })
}

/// The exact distribution of Δ̂* on a lattice (none off it, where only resamples exist).
fn bootstrap_distribution(
    observed: &crate::engine::rules::Observed,
    scale: Option<u32>,
) -> Option<BootstrapDistribution> {
    let (counts, scale) = (observed.counts.as_ref()?, scale?);
    if observed.n == 0 {
        return None;
    }
    let dist: IntDistribution = if scale == 1 {
        exact_binary(
            observed.n,
            counts.counts[0],
            counts.counts[2],
            &LnFactorial::new(observed.n as usize),
        )
    } else {
        exact_lattice(counts)
    };
    let unit = f64::from(observed.n) * f64::from(scale);
    Some(BootstrapDistribution {
        first: dist.lo as f64 / unit,
        step: 1.0 / unit,
        probs: dist.probs,
    })
}

fn group_outcomes(
    dataset: &Dataset,
    prep: &Prepared,
    pair: &crate::engine::walk::pair::PairData,
) -> Vec<GroupOutcomes> {
    let mut out: Vec<GroupOutcomes> = pair
        .group_labels
        .iter()
        .zip(&pair.group_sizes)
        .map(|(&label, &size)| GroupOutcomes {
            group: prep.grouping.labels[label as usize].clone(),
            tasks: size,
            both: 0,
            only_tested: 0,
            only_baseline: 0,
            neither: 0,
        })
        .collect();
    for (i, &t) in pair.tasks.iter().enumerate() {
        let entry = &mut out[pair.group_of[i] as usize];
        let d = pair.diffs[i];
        let tested_outcome = dataset.outcome(pair.tested, t as usize).unwrap_or(0.0);
        if d > 0.0 {
            entry.only_tested += 1;
        } else if d < 0.0 {
            entry.only_baseline += 1;
        } else if tested_outcome >= 0.5 {
            entry.both += 1;
        } else {
            entry.neither += 1;
        }
    }
    out
}

/// Why two systems form no pair of the replay: they share no task, or they do and the settings
/// leave the pair out (the budget measure's field unknown on every shared task, or fewer shared
/// tasks than `--min-shared`), which "share no task" would misstate.
fn not_a_pair(
    dataset: &Dataset,
    settings: &ReplaySettings,
    tested: usize,
    baseline: usize,
) -> ReplayError {
    let (tested_name, baseline_name) = (
        dataset.systems[tested].name.clone(),
        dataset.systems[baseline].name.clone(),
    );
    let shared = dataset
        .outcome_row(tested)
        .iter()
        .zip(dataset.outcome_row(baseline))
        .filter(|(a, b)| !a.is_nan() && !b.is_nan())
        .count();
    let why = match crate::engine::walk::prepared::measure_field(settings.measure) {
        _ if shared == 0 => None,
        _ if shared < dataset.min_shared => Some(format!(
            "fewer than --min-shared {} asks",
            dataset.min_shared
        )),
        // The pair measures read both systems' amounts, the others the tested system's only.
        Some(field) => Some(format!(
            "none with a value of {field} for {} (--budget-by {} reads it; --budget-by tasks reads every shared task)",
            if settings.measure.name().starts_with("pair-") {
                "both".to_string()
            } else {
                format!(
                    "the tested system {}",
                    crate::data::error::quote(&dataset.systems[tested].name)
                )
            },
            settings.measure.name()
        )),
        None => None,
    };
    match why {
        Some(why) => ReplayError::PairLeftOut {
            tested: tested_name,
            baseline: baseline_name,
            shared,
            why,
        },
        None => ReplayError::NotAPair {
            tested: tested_name,
            baseline: baseline_name,
        },
    }
}
