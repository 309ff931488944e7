//! Several comparisons at once (SPEC §9b). A family is the set of directed pairs decided together:
//! each pair alone, a tested system against every baseline, or every pair. At each budget of an order
//! index r, the one-sided p-values of the family's pairs (each in the direction its evidence points to;
//! the anytime p-value under the anytime rule, its wealth for e-BH) are adjusted together (Bonferroni,
//! Holm, Benjamini–Hochberg, e-BH), and a pair decides only if its hypothesis is rejected. Under
//! sequential monitoring the first adjusted decision is kept. Besides the usual per-pair tallies it
//! counts the family-wise error: families × orders with at least one wrong decision at a budget.
//!
//! Pairs are walked in parallel one order index at a time; adjustment and tallies run in pair order, so
//! the bits do not depend on the thread count.

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use crate::engine::rules::coverage::CoverageStatus;
use crate::engine::rules::{Action, Decision, Detail, LocalTails, Reason, Statistic};
use crate::engine::settings::{Adjust, EPSILON, Monitor, Threshold};
use crate::engine::walk::monitor::MonitorScratch;
use crate::engine::walk::pair::PairData;
pub use crate::engine::walk::pair::families;
use crate::engine::walk::prepared::{Control, Prepared, RecordSink, ReplayError, Snapshot};
use crate::engine::walk::record::{DecisionRecord, FamilyVerdict, RecordCase, RecordContext};
use crate::engine::walk::tally::{Consumed, FamilyCounts, PairTally, StepSums};

/// One pair's evidence at one budget for one threshold.
#[derive(Debug, Clone, Copy)]
struct Evidence {
    decision: Decision,
    /// One-sided p-value in the direction `up` (promote) or not (reject); 1 when the rule could not
    /// decide (coverage, no tasks, no spread); 0 when the outcome is certain.
    p: f64,
    /// The e-value of that direction (the anytime wealth), for e-BH.
    e: f64,
    up: bool,
}

impl Evidence {
    fn of(decision: Decision, threshold: Threshold) -> Self {
        let above = decision.estimate > threshold.delta() + EPSILON;
        let none = Evidence {
            decision,
            p: 1.0,
            e: 0.0,
            up: above,
        };
        if decision.reason == Reason::Coverage {
            return none;
        }
        match decision.statistic {
            Statistic::Bootstrap {
                r_promote,
                r_reject,
                ..
            } => Evidence {
                p: if above { r_promote } else { r_reject },
                ..none
            },
            Statistic::PairedNormal {
                p_promote,
                p_reject,
                ..
            } => Evidence {
                p: if above { p_promote } else { p_reject },
                ..none
            },
            Statistic::Anytime { .. } | Statistic::Stratified { .. }
                if decision.reason == Reason::Certain =>
            {
                Evidence {
                    p: 0.0,
                    e: f64::INFINITY,
                    up: decision.action == Action::Promote,
                    ..none
                }
            }
            Statistic::Anytime { .. } | Statistic::Stratified { .. } => {
                let Some((wealth_promote, wealth_reject, p_promote, p_reject)) =
                    decision.statistic.anytime_evidence()
                else {
                    return none;
                };
                let up = p_promote < p_reject || (p_promote == p_reject && above);
                Evidence {
                    p: if up { p_promote } else { p_reject },
                    e: if up { wealth_promote } else { wealth_reject },
                    up,
                    ..none
                }
            }
            Statistic::None | Statistic::Serfling { .. } => none,
        }
    }

    /// The decision once the family has (or has not) rejected this pair's hypothesis.
    fn adjusted(&self, rejected: bool) -> Decision {
        let (action, reason) = match (rejected, self.up) {
            (true, up) => (
                if up { Action::Promote } else { Action::Reject },
                if self.decision.reason == Reason::Certain {
                    Reason::Certain
                } else {
                    Reason::Supported
                },
            ),
            (false, _) if self.decision.reason == Reason::Coverage => {
                (Action::Abstain, Reason::Coverage)
            }
            (false, _) => (Action::Abstain, Reason::Evidence),
        };
        Decision {
            action,
            reason,
            ..self.decision
        }
    }
}

/// Which of the family's hypotheses are rejected at tail cutoff `a`.
fn rejections(adjust: Adjust, a: f64, evidence: &[Evidence], out: &mut Vec<bool>) {
    let k = evidence.len();
    out.clear();
    out.resize(k, false);
    let by = |key: &dyn Fn(&Evidence) -> f64| {
        let mut ranked: Vec<usize> = (0..k).collect();
        // Ties by position, so the ranking is the same on every run.
        ranked.sort_by(|&x, &y| {
            key(&evidence[x])
                .total_cmp(&key(&evidence[y]))
                .then(x.cmp(&y))
        });
        ranked
    };
    let kf = k as f64;
    match adjust {
        Adjust::None => {
            for (rejected, ev) in out.iter_mut().zip(evidence) {
                *rejected = ev.decision.action.is_final();
            }
        }
        Adjust::Bonferroni => {
            for (rejected, ev) in out.iter_mut().zip(evidence) {
                *rejected = ev.p <= a / kf;
            }
        }
        Adjust::Holm => {
            for (j, &i) in by(&|ev| ev.p).iter().enumerate() {
                if evidence[i].p > a / (kf - j as f64) {
                    break;
                }
                out[i] = true;
            }
        }
        Adjust::Bh => {
            let ranked = by(&|ev| ev.p);
            let last = (0..k)
                .rev()
                .find(|&j| evidence[ranked[j]].p <= (j + 1) as f64 * a / kf);
            if let Some(last) = last {
                for &i in &ranked[..=last] {
                    out[i] = true;
                }
            }
        }
        Adjust::EBh => {
            let ranked = by(&|ev| -ev.e);
            let last = (0..k)
                .rev()
                .find(|&j| evidence[ranked[j]].e >= kf / (a * (j + 1) as f64));
            if let Some(last) = last {
                for &i in &ranked[..=last] {
                    out[i] = true;
                }
            }
        }
    }
}

/// The decisions of one family at one look for one threshold, adjusted together: each decision as
/// the family leaves it, and its part in the adjustment (what a record shows). The live service's
/// entry point (`decide` with several baselines); the replay adjusts inside its walk.
pub fn adjust_decisions(
    adjust: Adjust,
    a: f64,
    decisions: &[Decision],
    threshold: Threshold,
) -> Vec<(Decision, FamilyVerdict)> {
    let evidence: Vec<Evidence> = decisions
        .iter()
        .map(|&d| Evidence::of(d, threshold))
        .collect();
    let mut rejected = Vec::new();
    rejections(adjust, a, &evidence, &mut rejected);
    evidence
        .iter()
        .zip(rejected)
        .map(|(ev, rejected)| {
            (
                ev.adjusted(rejected),
                FamilyVerdict {
                    size: decisions.len() as u32,
                    evidence: if adjust == Adjust::EBh { ev.e } else { ev.p },
                    rejected,
                },
            )
        })
        .collect()
}

/// What one order of one pair contributes before adjustment.
struct PairOrder {
    /// `evidence[budget * thresholds + threshold]`.
    evidence: Vec<Evidence>,
    observed: Vec<u32>,
    /// Steps consumed and in full by the observed prefix at each budget (zeros without early outcomes).
    consumed: Vec<Consumed>,
    /// Budgets at which each local group misses its quota: `missing[group * budgets + budget]`.
    missing: Vec<bool>,
    /// Observed tasks per local group at each budget (kept only for decision records).
    group_counts: Vec<Vec<u32>>,
}

fn walk_order(
    walker: &Prepared,
    pair: &PairData,
    r: u32,
    local: &mut LocalTails,
    keep_groups: bool,
    scratch: &mut MonitorScratch,
) -> PairOrder {
    let budgets = walker.settings.grid.len();
    let thresholds = &walker.settings.thresholds;
    let mut order = Vec::new();
    walker.order(pair, r, &mut order);
    let mut out = PairOrder {
        evidence: Vec::with_capacity(budgets * thresholds.len()),
        observed: vec![0; budgets],
        consumed: vec![Consumed::default(); budgets],
        missing: vec![false; pair.group_sizes.len() * budgets],
        group_counts: Vec::new(),
    };
    let mut step_sums = StepSums::default();
    step_sums.fill(pair, &order);
    // An adjustment rejects a pair only on a p-value at or below a (Bonferroni's and Holm's a/K up
    // to BH's a), or an e-value at or above 1/a (e-BH's K/(a·k)), and ranks the pairs it rejects
    // by those alone. Where an anytime p-value is above a, §9a may keep a bound instead: a look
    // screened below ln(1/a), or a side its read-ahead certified to stay below it to the order's
    // end. So without records (which show the exact statistic) the walk reads actions and reads
    // ahead, and every adjusted decision is the same. The bootstrap's actions drop the tails the
    // adjustment needs, so it keeps the full detail.
    let anytime_actions = !keep_groups && walker.settings.policy.construction().is_some();
    let detail = if anytime_actions {
        Detail::Actions
    } else {
        Detail::Full
    };
    let decide = |look, snapshot: &Snapshot, decisions: &mut Vec<Decision>| {
        walker.decide(pair, r, look, snapshot, detail, local, decisions);
    };
    scratch.walk.read_ahead(anytime_actions);
    walker.decide_along(pair, &order, scratch, decide, |b, snapshot, standing| {
        out.observed[b] = snapshot.k;
        out.consumed[b] = step_sums.at(snapshot.k);
        if keep_groups {
            out.group_counts.push(snapshot.group_counts.clone());
        }
        for (g, (&c, &required)) in snapshot
            .group_counts
            .iter()
            .zip(&snapshot.quotas)
            .enumerate()
        {
            out.missing[g * budgets + b] = c < required;
        }
        out.evidence.extend(
            standing
                .decisions
                .iter()
                .zip(thresholds)
                .map(|(d, &t)| Evidence::of(*d, t)),
        );
    });
    out
}

/// Tallies every pair under the family's adjustment. `walker` is the replay's preparation read
/// per-look (the adjustment needs every budget's evidence; `monitor` says whether the adjusted
/// decisions are then kept). `None` when cancelled.
/// With `records`, every decision record goes to the sink, one order index at a time (pairs in pair
/// order, then budgets, then thresholds), each with its family verdict.
pub(crate) fn tally_families(
    prep: &Prepared,
    walker: &Prepared,
    control: &Control,
    mut records: Option<(&RecordContext<'_>, &mut RecordSink<'_>)>,
) -> Result<(Vec<PairTally>, FamilyCounts), ReplayError> {
    let settings = &prep.settings;
    let policy = settings.policy;
    let budgets = settings.grid.len();
    let thresholds = settings.thresholds.len();
    let sequential = policy.monitor == Monitor::Sequential;
    let families = families(policy.family, &prep.pairs);
    let completed: Vec<Vec<bool>> = prep
        .pairs
        .iter()
        .map(|p| {
            settings
                .thresholds
                .iter()
                .map(|&t| p.completed_promotes(t, prep.scale))
                .collect()
        })
        .collect();
    let mut tallies: Vec<PairTally> = prep
        .pairs
        .iter()
        .map(|pair| PairTally::new(pair, thresholds, budgets))
        .collect();
    let mut family_counts = FamilyCounts {
        families: families.len() as u32,
        wrong: vec![0; thresholds * budgets],
    };
    let a = policy.tail.value();
    // The kept decision, the observed count that made it and the budget index it was made at.
    let mut kept: Vec<Option<(Decision, u32, usize)>> = vec![None; prep.pairs.len() * thresholds];
    let mut built: Vec<Vec<DecisionRecord>> = vec![Vec::new(); prep.pairs.len()];
    let with_records = records.is_some();
    let mut shown_wrong = vec![false; prep.pairs.len() * thresholds];
    let mut standing: Vec<Decision> = Vec::new();
    let mut members: Vec<Evidence> = Vec::new();
    let mut rejected: Vec<bool> = Vec::new();
    // Families walk order by order over every pair: the progress moves by a share of the pairs per
    // order, so a watcher sees it move rather than sit at 0 until the last order.
    let done_before = control.pairs_done.load(Ordering::Relaxed);
    let orders = settings.orders.max(1) as usize;
    for r in 0..settings.orders {
        if control.cancelled() {
            return Err(ReplayError::Cancelled);
        }
        let walked: Vec<PairOrder> = walker
            .pairs
            .par_iter()
            // A walk's scratch (the coverage gate's tables, which depend on the group sizes alone,
            // and the rule's buffers) serves the next pair of the same job: built afresh for every
            // pair and order, the gate's tables were an eighth of a §9a family replay.
            .map_init(MonitorScratch::default, |scratch, pair| {
                let mut local = walker.rules.tails.take_front();
                let walked = walk_order(walker, pair, r, &mut local, with_records, scratch);
                walker.rules.tails.put_front(local);
                walked
            })
            .collect();
        kept.fill(None);
        shown_wrong.fill(false);
        for ((tally, one), pair) in tallies.iter_mut().zip(&walked).zip(&prep.pairs) {
            for (b, &k) in one.observed.iter().enumerate() {
                tally.see_prefix(pair, b, k, one.consumed[b]);
            }
            for (total, &missing) in tally.missing.iter_mut().zip(&one.missing) {
                *total += u32::from(missing);
            }
        }
        for b in 0..budgets {
            for t in 0..thresholds {
                // The adjusted decision of every pair, family by family.
                standing.clear();
                // Every pair is in exactly one family, so every slot is set below.
                standing.resize(
                    prep.pairs.len(),
                    Decision::bare(Action::Abstain, CoverageStatus::Ok),
                );
                for family in &families {
                    members.clear();
                    members.extend(
                        family
                            .iter()
                            .map(|&i| walked[i].evidence[b * thresholds + t]),
                    );
                    rejections(policy.adjust, a, &members, &mut rejected);
                    for ((&i, ev), &rejected) in family.iter().zip(&members).zip(&rejected) {
                        let adjusted = if policy.adjust == Adjust::None {
                            ev.decision
                        } else {
                            ev.adjusted(rejected)
                        };
                        let slot = &mut kept[i * thresholds + t];
                        let k = walked[i].observed[b];
                        let (decision, decided) = match slot {
                            Some((decision, at, b_at)) if sequential => {
                                (*decision, Some((*at, *b_at)))
                            }
                            _ => {
                                if sequential && adjusted.action.is_final() {
                                    *slot = Some((adjusted, k, b));
                                    (adjusted, Some((k, b)))
                                } else {
                                    (adjusted, None)
                                }
                            }
                        };
                        standing[i] = decision;
                        if let Some((context, _)) = &records {
                            let pair = &prep.pairs[i];
                            let (tested, baseline) = prep.names(pair);
                            built[i].push(
                                context.record(&RecordCase {
                                    tested,
                                    baseline,
                                    threshold: settings.thresholds[t],
                                    order_index: Some(r),
                                    budget: settings.grid[b].value(),
                                    observed: k,
                                    total: pair.n(),
                                    group_counts: &walked[i].group_counts[b],
                                    group_sizes: &pair.group_sizes,
                                    group_labels: &pair.group_labels,
                                    decision,
                                    decided_at: decided.map(|(at, _)| at),
                                    decided_group_counts: decided
                                        .map(|(_, b_at)| walked[i].group_counts[b_at].as_slice()),
                                    family: Some(FamilyVerdict {
                                        size: family.len() as u32,
                                        evidence: if policy.adjust == Adjust::EBh {
                                            ev.e
                                        } else {
                                            ev.p
                                        },
                                        rejected,
                                    }),
                                    completed: Some((completed[i][t], pair.delta_full())),
                                }),
                            );
                        }
                    }
                    let mut any_wrong = false;
                    for &i in family {
                        any_wrong |= tallies[i].counts[t * budgets + b].count(
                            &standing[i],
                            completed[i][t],
                            &mut shown_wrong[i * thresholds + t],
                        );
                    }
                    family_counts.wrong[t * budgets + b] += u32::from(any_wrong);
                }
            }
        }
        if let Some((_, sink)) = &mut records {
            // Pair by pair; each pair's records were built budget by budget, threshold by threshold.
            let mut order_records = Vec::new();
            for pair_records in &mut built {
                pair_records.sort_by_key(|record| {
                    (
                        settings
                            .grid
                            .iter()
                            .position(|g| g.value() == record.budget),
                        settings
                            .thresholds
                            .iter()
                            .position(|th| th.pp() == record.threshold_pp),
                    )
                });
                order_records.append(pair_records);
            }
            sink(order_records).map_err(ReplayError::Output)?;
        }
        control.pairs_done.store(
            done_before + prep.pairs.len() * (r as usize + 1) / orders,
            Ordering::Relaxed,
        );
    }
    Ok((tallies, family_counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(p: f64, e: f64) -> Evidence {
        Evidence {
            decision: Decision::bare(Action::Abstain, CoverageStatus::Ok),
            p,
            e,
            up: true,
        }
    }

    fn rejected(adjust: Adjust, ps: &[f64]) -> Vec<bool> {
        let evidence: Vec<Evidence> = ps.iter().map(|&p| evidence(p, 1.0 / p)).collect();
        let mut out = Vec::new();
        rejections(adjust, 0.05, &evidence, &mut out);
        out
    }

    #[test]
    fn the_procedures_reject_what_the_textbook_examples_say() {
        // Four p-values at a = 0.05: Bonferroni's cut 0.0125; Holm 0.0125, 0.0167, 0.025, 0.05 stepping
        // down; BH 0.0125, 0.025, 0.0375, 0.05 stepping up.
        let ps = [0.01, 0.04, 0.03, 0.005];
        assert_eq!(
            rejected(Adjust::Bonferroni, &ps),
            [true, false, false, true]
        );
        assert_eq!(rejected(Adjust::Holm, &ps), [true, false, false, true]);
        // BH: sorted 0.005, 0.01, 0.03, 0.04; the largest j with p_(j) ≤ j·0.0125 is j = 4 (0.04 ≤ 0.05).
        assert_eq!(rejected(Adjust::Bh, &ps), [true, true, true, true]);
        // Holm goes further than Bonferroni: with K = 3, 0.012 ≤ a/3 for both, but 0.02 passes only Holm's
        // second cut a/2 = 0.025, not a/3 = 0.0167.
        assert_eq!(
            rejected(Adjust::Holm, &[0.012, 0.02, 0.9]),
            [true, true, false]
        );
        assert_eq!(
            rejected(Adjust::Bonferroni, &[0.012, 0.02, 0.9]),
            [true, false, false]
        );
        // BH on 0.01, 0.03, 0.2: 0.03 ≤ 2·0.05/3 = 0.033, so both small ones, though 0.03 > a/3 alone;
        // on 0.02, 0.04, 0.2 neither 0.04 ≤ 0.033 nor 0.02 ≤ 0.0167 holds: nothing.
        assert_eq!(
            rejected(Adjust::Bh, &[0.2, 0.01, 0.03]),
            [false, true, true]
        );
        assert_eq!(
            rejected(Adjust::Bh, &[0.2, 0.02, 0.04]),
            [false, false, false]
        );
        // e-BH with e = 1/p: K = 3, the largest j with e_(j) ≥ 3/(0.05 j): e = 50, 25, 5 → j = 2 (25 ≥ 30? no),
        // j = 1 (50 ≥ 60? no): nothing; with e = 100, 40: j = 2 (40 ≥ 30).
        assert_eq!(
            rejected(Adjust::EBh, &[0.02, 0.04, 0.2]),
            [false, false, false]
        );
        assert_eq!(
            rejected(Adjust::EBh, &[0.01, 0.025, 0.2]),
            [true, true, false]
        );
    }
}
