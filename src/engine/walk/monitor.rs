//! Monitoring (SPEC §9): which decision stands at each budget of one order. Per-look, every budget is a
//! separate stopping point and the rule decides there. Sequential, the run is watched at every look
//! (after every task, or at the grid's budgets) and the first promote or reject is kept for every later
//! budget; until then the budget shows the rule's current non-final answer. The replay's tallies, its
//! decision records and the pair drill-down all read their decisions from [`Prepared::decide_along`].

use std::cell::Cell;

use crate::engine::rules::Decision;
use crate::engine::rules::coverage::CoverageStatus;
use crate::engine::settings::{Looks, Monitor};
use crate::engine::walk::pair::PairData;
use crate::engine::walk::prepared::{Look, Prepared, Snapshot, WalkScratch};

/// Buffers for one pair's orders.
#[derive(Debug, Default)]
pub struct MonitorScratch {
    pub walk: WalkScratch,
    current: Vec<Decision>,
    standing: Vec<Decision>,
    /// The kept decision of each threshold and the observed count it was made at.
    kept: Vec<Option<(Decision, u32)>>,
    decided_at: Vec<Option<u32>>,
}

/// What stands at one budget of one order, per threshold.
pub struct Standing<'a> {
    pub decisions: &'a [Decision],
    /// Sequential monitoring: where each kept decision was made (None while none is, and per-look).
    pub decided_at: &'a [Option<u32>],
}

impl Prepared {
    /// Walks `order` of `pair` under the policy's monitoring and calls `visit(budget, snapshot,
    /// standing)` at every budget of the grid. `decide(look, snapshot, out)` is the rule at one look
    /// (the caller's, so that it can remember actions or ask for full statistics).
    pub fn decide_along(
        &self,
        pair: &PairData,
        order: &[u32],
        scratch: &mut MonitorScratch,
        mut decide: impl FnMut(Look, &Snapshot, &mut Vec<Decision>),
        mut visit: impl FnMut(usize, &Snapshot, Standing<'_>),
    ) {
        let policy = self.settings.policy;
        let thresholds = self.settings.thresholds.len();
        let MonitorScratch {
            walk,
            current,
            standing,
            kept,
            decided_at,
        } = scratch;
        kept.clear();
        kept.resize(thresholds, None);
        decided_at.clear();
        decided_at.resize(thresholds, None);
        let sequential = policy.monitor == Monitor::Sequential;
        if !policy.walks_every_task() {
            // Looks at the grid's budgets only: the chunked walk.
            self.walk_with(pair, order, walk, |b, snapshot| {
                let settled = sequential && kept.iter().all(Option::is_some);
                if !settled {
                    decide(Look::Budget(b), snapshot, current);
                }
                if sequential {
                    keep_finals(kept, current, snapshot.k);
                }
                visit(
                    b,
                    snapshot,
                    standing_at(sequential, kept, current, standing, decided_at),
                );
            });
            return;
        }
        let every = policy.looks == Looks::Every;
        // Thresholds without a kept decision yet (a count, so that a look need not scan `kept`).
        let unkept = Cell::new(thresholds);
        // A look between budgets where nothing could be kept skips the rule. The walk asks this first,
        // inline, at every task: whether the gate passes is one bit, read before the walk.
        let may_keep = |snapshot: &Snapshot| {
            sequential
                && every
                && unkept.get() > 0
                && (!policy.coverage_gate || snapshot.gate_open())
        };
        // Once every threshold is kept, no look decides again and a visit reads the kept decisions.
        let settled = || sequential && unkept.get() == 0;
        self.walk_each_with(pair, order, walk, may_keep, settled, |budgets, snapshot| {
            let at_budget = !budgets.is_empty();
            if sequential && unkept.get() > 0 {
                // Between budgets the gate is open here (or off); the rule is called only when some
                // anytime verdict of a threshold not kept yet is final, since the anytime rule's action is
                // its verdict wherever the gate is open. At a budget the walk has set the coverage.
                let decides = at_budget
                    || snapshot.observed.sequence.as_ref().is_none_or(|state| {
                        state.any_final()
                            && kept
                                .iter()
                                .enumerate()
                                .any(|(t, slot)| slot.is_none() && state.verdict(t).0.is_final())
                    });
                if decides {
                    if !at_budget {
                        // The rule reads the status, which the walk sets at budgets only: an open gate
                        // says it is ok.
                        snapshot.coverage = if policy.coverage_gate {
                            CoverageStatus::Ok
                        } else {
                            snapshot.gate_status()
                        };
                    }
                    let look = if at_budget {
                        Look::Budget(budgets.start)
                    } else {
                        Look::Task(snapshot.k)
                    };
                    decide(look, snapshot, current);
                    unkept.set(unkept.get() - keep_finals(kept, current, snapshot.k));
                }
            }
            if !at_budget {
                return;
            }
            for b in budgets {
                // Sequential: the look above decided here unless every threshold was already kept.
                if !sequential {
                    decide(Look::Budget(b), snapshot, current);
                }
                visit(
                    b,
                    snapshot,
                    standing_at(sequential, kept, current, standing, decided_at),
                );
            }
        });
    }
}

/// Keeps each threshold's first promote or reject, made at observed count `k`; says how many it kept.
fn keep_finals(kept: &mut [Option<(Decision, u32)>], current: &[Decision], k: u32) -> usize {
    let mut newly = 0;
    for (slot, decision) in kept.iter_mut().zip(current) {
        if slot.is_none() && decision.action.is_final() {
            *slot = Some((*decision, k));
            newly += 1;
        }
    }
    newly
}

/// What stands at a budget: per-look, the rule's decisions there; sequential, the kept decision of each
/// threshold, else the rule's current (non-final) answer.
fn standing_at<'a>(
    sequential: bool,
    kept: &[Option<(Decision, u32)>],
    current: &'a [Decision],
    standing: &'a mut Vec<Decision>,
    decided_at: &'a mut [Option<u32>],
) -> Standing<'a> {
    if !sequential {
        return Standing {
            decisions: current,
            decided_at,
        };
    }
    standing.clear();
    for (t, slot) in kept.iter().enumerate() {
        let (decision, at) = match slot {
            Some((decision, at)) => (*decision, Some(*at)),
            None => (current[t], None),
        };
        standing.push(decision);
        decided_at[t] = at;
    }
    Standing {
        decisions: standing,
        decided_at,
    }
}
