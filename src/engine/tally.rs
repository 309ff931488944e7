//! What a replay counts: decisions over orders per (pair, threshold, budget), coverage gaps per
//! (group, budget) and, with early outcomes, the steps the observed prefixes consumed. Filled by
//! `replay` and `family`, summarised by `metrics`.

use super::coverage::CoverageStatus;
use super::pair::PairData;
use super::rules::{Action, Decision};

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

/// Running sums of a pair's steps along one order (index k: the first k tasks).
#[derive(Debug, Clone, Default)]
pub struct StepSums {
    run: Vec<f64>,
    full: Vec<f64>,
}

impl StepSums {
    /// The sums along `order`; left empty for a pair without early outcomes.
    pub fn fill(&mut self, pair: &PairData, order: &[u32]) {
        self.run.clear();
        self.full.clear();
        if pair.steps_run.is_empty() {
            return;
        }
        let (mut run, mut full) = (0.0, 0.0);
        self.run.push(0.0);
        self.full.push(0.0);
        for &i in order {
            run += pair.steps_run[i as usize];
            full += pair.steps_full[i as usize];
            self.run.push(run);
            self.full.push(full);
        }
    }

    /// Steps consumed and steps in full of the first `k` tasks (zeros without early outcomes).
    pub fn at(&self, k: u32) -> (f64, f64) {
        let k = k as usize;
        (
            self.run.get(k).copied().unwrap_or(0.0),
            self.full.get(k).copied().unwrap_or(0.0),
        )
    }
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
        }
    }

    /// Counts the prefix of `k` tasks one order observed at budget `b` (`consumed`: its steps run and
    /// in full).
    pub fn see_prefix(&mut self, pair: &PairData, b: usize, k: u32, consumed: (f64, f64)) {
        self.observed[b] += u64::from(k);
        if let Some(steps) = &mut self.steps {
            steps.tasks[b] += u64::from(pair.n());
            steps.run[b] += consumed.0;
            steps.prefix_full[b] += consumed.1;
            steps.all_full[b] += steps.pair_full;
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
    }
}
