//! The answers a decision gives, shared by every rule (SPEC §6, §9, §9a): the action and why it was taken.
//! Kept below the rules and the sequential statistics so that both can name them.

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
