//! The answers a decision gives, shared by every rule (SPEC §6, §9, §9a): the action, why it was taken
//! and the rule's own statistic. Kept below the rules and the sequential statistics so that both can
//! name them without importing each other.

use serde::Serialize;

/// What a policy reports for one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Promote,
    Reject,
    Abstain,
    Continue,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Promote => "promote",
            Action::Reject => "reject",
            Action::Abstain => "abstain",
            Action::Continue => "continue",
        }
    }

    pub fn is_final(self) -> bool {
        matches!(self, Action::Promote | Action::Reject)
    }
}

/// Why the action was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Before the budget limit.
    BeforeLimit,
    /// The coverage gate is on and coverage is not ok.
    Coverage,
    /// Nothing observed yet.
    NoTasks,
    /// No spread in the observed differences (paired-normal's se = 0).
    NoVariance,
    /// The evidence did not clear the rule.
    Evidence,
    /// The rule's condition for the action held.
    Supported,
    /// The observed outcomes settle the completed decision whatever the unseen tasks hold (anytime rule).
    Certain,
}

/// The rule's own statistic for one case.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Statistic {
    None,
    /// R_promote = P*(Δ̂* ≤ δ), R_reject = P*(Δ̂* > δ).
    Bootstrap {
        r_promote: f64,
        r_reject: f64,
        exact: bool,
    },
    /// Φ(−(Δ̂−δ)/se) and Φ((Δ̂−δ)/se).
    PairedNormal {
        se: f64,
        p_promote: f64,
        p_reject: f64,
    },
    /// The finite-population half-width t.
    Serfling {
        t: f64,
    },
    /// Both wealths of the anytime rule and their anytime p-values.
    Anytime {
        wealth_promote: f64,
        wealth_reject: f64,
        p_promote: f64,
        p_reject: f64,
    },
    /// The stratified anytime rule (SPEC §9a): Λ of both tests (ln of the least wealth over the
    /// null's allocations to the groups) and their anytime p-values exp(−max Λ).
    Stratified {
        log_promote: f64,
        log_reject: f64,
        p_promote: f64,
        p_reject: f64,
    },
}

impl Statistic {
    /// The e-values of an anytime statistic (the wealths, or exp(Λ)) with its anytime p-values:
    /// (e promote, e reject, p promote, p reject).
    pub fn anytime_evidence(&self) -> Option<(f64, f64, f64, f64)> {
        match *self {
            Statistic::Anytime {
                wealth_promote,
                wealth_reject,
                p_promote,
                p_reject,
            } => Some((wealth_promote, wealth_reject, p_promote, p_reject)),
            Statistic::Stratified {
                log_promote,
                log_reject,
                p_promote,
                p_reject,
            } => Some((log_promote.exp(), log_reject.exp(), p_promote, p_reject)),
            _ => None,
        }
    }
}
