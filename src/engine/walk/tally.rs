//! What a replay counts: decisions over orders per (pair, threshold, budget), coverage gaps per
//! (group, budget) and, with early outcomes, the steps the observed prefixes consumed. Filled by
//! `replay` and `family`, summarised by `metrics`.

use crate::engine::rules::coverage::CoverageStatus;
use crate::engine::rules::{Action, Decision};
use crate::engine::walk::pair::PairData;

/// Family-wise counts per (threshold, budget): `wrong[threshold * budgets + budget]` families × orders
/// with a wrong decision, out of `families` × orders. Kept here, below the metrics, the replay and the
/// families, so that none of them imports another for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyCounts {
    pub families: u32,
    pub wrong: Vec<u32>,
}

/// Counts over the orders of one (pair, threshold, budget), or summed over pairs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CaseCounts {
    pub promote: u32,
    pub reject: u32,
    pub abstain: u32,
    /// Promote or reject while coverage was not ok.
    pub coverage_failure: u32,
    /// Promote or reject against the completed-record decision.
    pub wrong: u32,
    /// Orders that had shown a wrong promote or reject at this budget or an earlier one (SPEC §9's
    /// ever-wrong; under sequential monitoring the kept decision, per-look any earlier budget's).
    pub ever_wrong: u32,
}

impl CaseCounts {
    /// Counts the decision standing at this budget in one case (an order of a pair), whose completed
    /// decision promotes or not; `shown_wrong` carries along the order whether a wrong decision has shown
    /// at this budget or an earlier one. Returns whether this decision is wrong.
    pub fn count(
        &mut self,
        decision: &Decision,
        completed_promotes: bool,
        shown_wrong: &mut bool,
    ) -> bool {
        match decision.action {
            Action::Promote => self.promote += 1,
            Action::Reject => self.reject += 1,
            Action::Abstain | Action::Continue => self.abstain += 1,
        }
        let mut wrong = false;
        if decision.action.is_final() {
            if decision.coverage != CoverageStatus::Ok {
                self.coverage_failure += 1;
            }
            wrong = (decision.action == Action::Promote) != completed_promotes;
            if wrong {
                self.wrong += 1;
                *shown_wrong = true;
            }
        }
        if *shown_wrong {
            self.ever_wrong += 1;
        }
        wrong
    }

    pub fn cases(&self) -> u32 {
        self.promote + self.reject + self.abstain
    }

    /// Adds another set of counts (summing over pairs).
    pub fn add(&mut self, other: &CaseCounts) {
        self.promote += other.promote;
        self.reject += other.reject;
        self.abstain += other.abstain;
        self.coverage_failure += other.coverage_failure;
        self.wrong += other.wrong;
        self.ever_wrong += other.ever_wrong;
    }
}

/// With early outcomes: per budget, sums over orders of the shared tasks, of the steps the observed
/// prefix's (early-stopped) runs consumed, of the steps the same tasks' full runs took and of the
/// steps of the whole evaluation run in full.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepTally {
    pub tasks: Vec<u64>,
    pub run: Vec<f64>,
    pub prefix_full: Vec<f64>,
    pub all_full: Vec<f64>,
    /// The pair's steps run in full on all its shared tasks.
    pub pair_full: f64,
}

/// What the first k tasks of an order consumed: with early outcomes the steps their runs took and
/// would have taken in full; where the record has them, the shares of the tested system's cost and
/// seconds over the pair's shared tasks (over the tasks where they are known).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Consumed {
    pub steps_run: f64,
    pub steps_full: f64,
    pub cost_share: Option<f64>,
    pub seconds_share: Option<f64>,
}

/// Running sums of a pair's consumption along one order (index k: the first k tasks).
#[derive(Debug, Clone, Default)]
pub struct StepSums {
    run: Vec<f64>,
    full: Vec<f64>,
    cost: Vec<f64>,
    seconds: Vec<f64>,
    cost_total: f64,
    seconds_total: f64,
}

/// Cumulative sums of `values` along `order` (unknown values add nothing), and their total.
fn running(values: &[f64], order: &[u32], out: &mut Vec<f64>) -> f64 {
    out.clear();
    if values.is_empty() {
        return 0.0;
    }
    let known = |x: f64| if x.is_nan() { 0.0 } else { x };
    let mut sum = 0.0;
    out.push(0.0);
    for &i in order {
        sum += known(values[i as usize]);
        out.push(sum);
    }
    values.iter().map(|&x| known(x)).sum()
}

impl StepSums {
    /// The sums along `order`; each left empty where the pair has nothing to count.
    pub fn fill(&mut self, pair: &PairData, order: &[u32]) {
        running(&pair.steps_run, order, &mut self.run);
        running(&pair.steps_full, order, &mut self.full);
        self.cost_total = running(&pair.spent_cost, order, &mut self.cost);
        self.seconds_total = running(&pair.spent_seconds, order, &mut self.seconds);
    }

    /// What the first `k` tasks consumed (zeros and None where nothing is counted).
    pub fn at(&self, k: u32) -> Consumed {
        let k = k as usize;
        let share = |sums: &[f64], total: f64| {
            (total > 0.0)
                .then(|| sums.get(k).map(|s| s / total))
                .flatten()
        };
        Consumed {
            steps_run: self.run.get(k).copied().unwrap_or(0.0),
            steps_full: self.full.get(k).copied().unwrap_or(0.0),
            cost_share: share(&self.cost, self.cost_total),
            seconds_share: share(&self.seconds, self.seconds_total),
        }
    }
}

/// Per budget, sums over orders of the shares of the cost and seconds (the tested system's, or the
/// pair's under a pair budget) its observed
/// prefix spent (in units of 1e-9, so that sums are exact and do not depend on the order in which
/// tallies of orders are added: extended replays and thread counts give the same bits), and how many
/// cases had one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpentTally {
    pub cost: Vec<u64>,
    pub cost_cases: Vec<u32>,
    pub seconds: Vec<u64>,
    pub seconds_cases: Vec<u32>,
}

/// The units of [`SpentTally`]'s sums per whole share.
pub const SHARE_UNITS: f64 = 1e9;

fn share_units(share: f64) -> u64 {
    (share.clamp(0.0, 1.0) * SHARE_UNITS).round() as u64
}

/// What one pair contributes: counts per (threshold, budget) and coverage gaps per (group, budget).
#[derive(Debug, Clone, PartialEq)]
pub struct PairTally {
    /// `counts[threshold * budgets + budget]`.
    pub counts: Vec<CaseCounts>,
    /// Orders at each budget whose prefix misses a local group's quota: `missing[group * budgets + budget]`.
    pub missing: Vec<u32>,
    /// Sum over orders of the observed prefix length at each budget.
    pub observed: Vec<u64>,
    /// The steps consumed, with early outcomes.
    pub steps: Option<StepTally>,
    /// The shares of the tested system's cost and seconds spent.
    pub spent: SpentTally,
}

impl PairTally {
    pub fn new(pair: &PairData, thresholds: usize, budgets: usize) -> Self {
        PairTally {
            counts: vec![CaseCounts::default(); thresholds * budgets],
            missing: vec![0; pair.group_sizes.len() * budgets],
            observed: vec![0; budgets],
            steps: (!pair.steps_run.is_empty()).then(|| StepTally {
                tasks: vec![0; budgets],
                run: vec![0.0; budgets],
                prefix_full: vec![0.0; budgets],
                all_full: vec![0.0; budgets],
                pair_full: pair.steps_full.iter().sum(),
            }),
            spent: SpentTally {
                cost: vec![0; budgets],
                cost_cases: vec![0; budgets],
                seconds: vec![0; budgets],
                seconds_cases: vec![0; budgets],
            },
        }
    }

    /// Counts the prefix of `k` tasks one order observed at budget `b` (`consumed`: what it spent).
    pub fn see_prefix(&mut self, pair: &PairData, b: usize, k: u32, consumed: Consumed) {
        self.observed[b] += u64::from(k);
        if let Some(steps) = &mut self.steps {
            steps.tasks[b] += u64::from(pair.n());
            steps.run[b] += consumed.steps_run;
            steps.prefix_full[b] += consumed.steps_full;
            steps.all_full[b] += steps.pair_full;
        }
        if let Some(share) = consumed.cost_share {
            self.spent.cost[b] += share_units(share);
            self.spent.cost_cases[b] += 1;
        }
        if let Some(share) = consumed.seconds_share {
            self.spent.seconds[b] += share_units(share);
            self.spent.seconds_cases[b] += 1;
        }
    }

    /// Adds the tally of other orders of the same pair: every field is a count over orders.
    pub fn add(&mut self, other: &PairTally) {
        for (total, more) in self.counts.iter_mut().zip(&other.counts) {
            total.add(more);
        }
        for (total, more) in self.missing.iter_mut().zip(&other.missing) {
            *total += more;
        }
        for (total, more) in self.observed.iter_mut().zip(&other.observed) {
            *total += more;
        }
        if let (Some(steps), Some(more)) = (&mut self.steps, &other.steps) {
            for b in 0..steps.tasks.len() {
                steps.tasks[b] += more.tasks[b];
                steps.run[b] += more.run[b];
                steps.prefix_full[b] += more.prefix_full[b];
                steps.all_full[b] += more.all_full[b];
            }
        }
        let (spent, more) = (&mut self.spent, &other.spent);
        for b in 0..spent.cost.len() {
            spent.cost[b] += more.cost[b];
            spent.cost_cases[b] += more.cost_cases[b];
            spent.seconds[b] += more.seconds[b];
            spent.seconds_cases[b] += more.seconds_cases[b];
        }
    }
}
