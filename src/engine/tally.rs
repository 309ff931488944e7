//! What a replay counts: decisions over orders per (pair, threshold, budget) and coverage gaps per
//! (group, budget). Filled by `replay` and `family`, summarised by `metrics`.

use super::coverage::CoverageStatus;
use super::rules::{Action, Decision};

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

/// What one pair contributes: counts per (threshold, budget) and coverage gaps per (group, budget).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairTally {
    /// `counts[threshold * budgets + budget]`.
    pub counts: Vec<CaseCounts>,
    /// Orders at each budget whose prefix misses a local group's quota: `missing[group * budgets + budget]`.
    pub missing: Vec<u32>,
    /// Sum over orders of the observed prefix length at each budget.
    pub observed: Vec<u64>,
}

impl PairTally {
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
    }
}
