//! Replay metrics of SPEC §7, computed from the per-pair counts of decisions: conditional false
//! promotion and false rejection rates, coverage failure, the unresolved rate with its descriptive 95%
//! interval (percentile bootstrap over directed pairs, 2,000 resamples), sufficiency against the targets,
//! the minimum sufficient budget and the smallest budget meeting only the error and coverage targets.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::engine::settings::{Fraction, ReplaySettings, Threshold};
use crate::engine::streams::StreamKey;
use crate::engine::walk::tally::{CaseCounts, FamilyCounts, PairTally, SHARE_UNITS};

/// Resamples of directed pairs behind the unresolved interval.
pub const INTERVAL_RESAMPLES: usize = 2000;

/// One budget of one threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetRow {
    pub budget: f64,
    /// Cases: directed pairs × orders.
    pub cases: u32,
    pub completed_promote_cases: u32,
    pub completed_reject_cases: u32,
    pub promote: u32,
    pub reject: u32,
    pub abstain: u32,
    pub false_promotions: u32,
    pub false_rejections: u32,
    pub coverage_failures: u32,
    /// False promotions over cases whose completed decision is reject (null without such cases).
    pub fpr: Option<f64>,
    /// False rejections over cases whose completed decision is promote (null without such cases).
    pub frr: Option<f64>,
    pub coverage_failure: f64,
    pub unresolved: f64,
    /// The 95% interval of the unresolved rate; NaN in a quick preview, which skips it (never in the CLI).
    pub unresolved_lo: f64,
    pub unresolved_hi: f64,
    /// Agreement with the completed record among promote and reject actions (null when none).
    pub accuracy: Option<f64>,
    pub promote_rate: f64,
    pub reject_rate: f64,
    /// Mean observed tasks per case.
    pub mean_observed: f64,
    pub sufficient: bool,
    pub errors_and_coverage_met: bool,
    /// Cases that had shown a wrong promote or reject by this budget (SPEC §9: under sequential
    /// monitoring the kept decision; per-look, the decision at this or any earlier budget).
    #[serde(default)]
    pub ever_wrong_cases: u32,
    /// `ever_wrong_cases` over cases.
    #[serde(default)]
    pub ever_wrong: f64,
    /// Family-wise error rate: families × orders with at least one wrong decision here (SPEC §9b; each
    /// pair alone by default, where it is the share of wrong cases).
    #[serde(default)]
    pub fwer: f64,
    /// Wrong decisions over decisions (null when nothing was decided).
    #[serde(default)]
    pub false_decision_rate: Option<f64>,
    /// With early outcomes (`replay --early`, else null): the share of the shared tasks not run by this
    /// budget, the share of steps not run inside the tasks that ran (their runs stopped early), and the
    /// joint saving, the share of the full evaluation's steps not run (1 − steps consumed / steps of
    /// every shared task run in full), all over cases.
    #[serde(default)]
    pub tasks_not_run: Option<f64>,
    #[serde(default)]
    pub steps_not_run_inside: Option<f64>,
    #[serde(default)]
    pub joint_saving: Option<f64>,
    /// The mean share, over cases, of the tested system's cost (and seconds) over the pair's shared
    /// tasks that the observed prefix spent; null where the record has none.
    #[serde(default)]
    pub cost_spent: Option<f64>,
    #[serde(default)]
    pub seconds_spent: Option<f64>,
}

/// All budgets of one threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdMetrics {
    #[serde(skip)]
    pub threshold: Threshold,
    pub threshold_pp: f64,
    pub rows: Vec<BudgetRow>,
    /// Smallest sufficient budget of the grid (null: none).
    pub min_sufficient_budget: Option<f64>,
    /// Smallest budget meeting the error and coverage targets, ignoring the unresolved target.
    pub min_errors_coverage_budget: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    pub thresholds: Vec<ThresholdMetrics>,
}

fn ratio(numerator: u32, denominator: u32) -> Option<f64> {
    (denominator > 0).then(|| f64::from(numerator) / f64::from(denominator))
}

/// The §7 metrics of a replay's tallies. Without `intervals` (a preview) the unresolved interval is NaN.
pub fn summarise(
    settings: &ReplaySettings,
    completed: &[Vec<bool>],
    tallies: &[PairTally],
    families: &FamilyCounts,
    intervals: bool,
) -> Metrics {
    let budgets = settings.grid.len();
    let orders = settings.orders;
    let targets = settings.targets;
    // The 2,000-resample intervals dominate this function; each (threshold, budget) is independent.
    let intervals: Vec<(f64, f64)> = (0..settings.thresholds.len() * budgets)
        .into_par_iter()
        // Intervals of a constant count return at once: one a job keeps both cores on the rest.
        .with_max_len(1)
        .map(|index| {
            if !intervals {
                return (f64::NAN, f64::NAN);
            }
            let (t, b) = (index / budgets, index % budgets);
            let abstains: Vec<u32> = tallies
                .iter()
                .map(|tally| tally.counts[index].abstain)
                .collect();
            unresolved_interval(
                &abstains,
                orders,
                settings.seed,
                settings.thresholds[t],
                settings.grid[b],
            )
        })
        .collect();
    let thresholds = settings
        .thresholds
        .iter()
        .enumerate()
        .map(|(t, &threshold)| {
            let rows: Vec<BudgetRow> = settings
                .grid
                .iter()
                .enumerate()
                .map(|(b, &budget)| {
                    let index = t * budgets + b;
                    let mut total = CaseCounts::default();
                    let (
                        mut promote_cases,
                        mut reject_cases,
                        mut false_promotions,
                        mut false_rejections,
                    ) = (0, 0, 0, 0);
                    let mut observed = 0u64;
                    // Tasks, steps consumed, steps of those tasks in full, steps of all in full.
                    let mut steps: Option<(u64, f64, f64, f64)> = None;
                    let (mut cost, mut cost_cases, mut seconds, mut seconds_cases) =
                        (0u64, 0u32, 0u64, 0u32);
                    for (pair, tally) in tallies.iter().enumerate() {
                        let counts = tally.counts[index];
                        total.add(&counts);
                        observed += tally.observed[b];
                        cost += tally.spent.cost[b];
                        cost_cases += tally.spent.cost_cases[b];
                        seconds += tally.spent.seconds[b];
                        seconds_cases += tally.spent.seconds_cases[b];
                        if let Some(s) = &tally.steps {
                            let sums = steps.get_or_insert((0, 0.0, 0.0, 0.0));
                            sums.0 += s.tasks[b];
                            sums.1 += s.run[b];
                            sums.2 += s.prefix_full[b];
                            sums.3 += s.all_full[b];
                        }
                        if completed[pair][t] {
                            promote_cases += counts.cases();
                            false_rejections += counts.wrong;
                        } else {
                            reject_cases += counts.cases();
                            false_promotions += counts.wrong;
                        }
                    }
                    let cases = total.cases();
                    let (lo, hi) = intervals[index];
                    let fpr = ratio(false_promotions, reject_cases);
                    let frr = ratio(false_rejections, promote_cases);
                    let coverage_failure = ratio(total.coverage_failure, cases).unwrap_or(0.0);
                    let unresolved = ratio(total.abstain, cases).unwrap_or(0.0);
                    let decided = total.promote + total.reject;
                    let errors_and_coverage_met = fpr
                        .is_none_or(|r| r <= targets.alpha.value() + 1e-12)
                        && frr.is_none_or(|r| r <= targets.alpha.value() + 1e-12)
                        && coverage_failure <= targets.gamma.value() + 1e-12;
                    BudgetRow {
                        budget: budget.value(),
                        cases,
                        completed_promote_cases: promote_cases,
                        completed_reject_cases: reject_cases,
                        promote: total.promote,
                        reject: total.reject,
                        abstain: total.abstain,
                        false_promotions,
                        false_rejections,
                        coverage_failures: total.coverage_failure,
                        fpr,
                        frr,
                        coverage_failure,
                        unresolved,
                        unresolved_lo: lo,
                        unresolved_hi: hi,
                        accuracy: ratio(decided - false_promotions - false_rejections, decided),
                        promote_rate: ratio(total.promote, cases).unwrap_or(0.0),
                        reject_rate: ratio(total.reject, cases).unwrap_or(0.0),
                        mean_observed: if cases == 0 {
                            0.0
                        } else {
                            observed as f64 / f64::from(cases)
                        },
                        sufficient: errors_and_coverage_met
                            && unresolved <= targets.eta.value() + 1e-12,
                        errors_and_coverage_met,
                        ever_wrong_cases: total.ever_wrong,
                        ever_wrong: ratio(total.ever_wrong, cases).unwrap_or(0.0),
                        fwer: ratio(families.wrong[index], families.families * orders)
                            .unwrap_or(0.0),
                        false_decision_rate: ratio(total.wrong, decided),
                        tasks_not_run: steps.and_then(|(tasks, ..)| {
                            (tasks > 0).then(|| 1.0 - observed as f64 / tasks as f64)
                        }),
                        steps_not_run_inside: steps.and_then(|(_, run, prefix, _)| {
                            (prefix > 0.0).then(|| 1.0 - run / prefix)
                        }),
                        joint_saving: steps
                            .and_then(|(_, run, _, all)| (all > 0.0).then(|| 1.0 - run / all)),
                        cost_spent: (cost_cases > 0)
                            .then(|| cost as f64 / SHARE_UNITS / f64::from(cost_cases)),
                        seconds_spent: (seconds_cases > 0)
                            .then(|| seconds as f64 / SHARE_UNITS / f64::from(seconds_cases)),
                    }
                })
                .collect();
            let min_sufficient_budget = rows.iter().find(|r| r.sufficient).map(|r| r.budget);
            let min_errors_coverage_budget = rows
                .iter()
                .find(|r| r.errors_and_coverage_met)
                .map(|r| r.budget);
            ThresholdMetrics {
                threshold,
                threshold_pp: threshold.pp(),
                rows,
                min_sufficient_budget,
                min_errors_coverage_budget,
            }
        })
        .collect();
    Metrics { thresholds }
}

/// 95% percentile bootstrap over directed pairs of the mean per-pair unresolved rate (descriptive), from
/// each pair's count of unresolved orders out of `orders`. Percentiles by nearest rank: the 50th and
/// 1,950th of 2,000 sorted resample means. Each resample sums whole counts, so its mean is the exact
/// rational Σ counts / (pairs · orders) rounded once; identical counts everywhere need no resampling.
pub fn unresolved_interval(
    abstains: &[u32],
    orders: u32,
    seed: u64,
    threshold: Threshold,
    budget: Fraction,
) -> (f64, f64) {
    let n = abstains.len();
    if n == 0 || orders == 0 {
        return (0.0, 0.0);
    }
    let mean_of = |sum: u64| sum as f64 / (n as f64 * f64::from(orders));
    if abstains.iter().all(|&count| count == abstains[0]) {
        let mean = mean_of(u64::from(abstains[0]) * n as u64);
        return (mean, mean);
    }
    let mut rng = StreamKey::new(seed, "unresolved-interval")
        // Sign-extended, so a threshold ≥ 0 keeps the stream it always had.
        .u64(i64::from(threshold.0) as u64)
        .u64(u64::from(budget.0))
        .rng();
    // Plain loops over a local generator, so its state stays in registers (2,000 × pairs draws).
    let mut sums: Vec<u64> = Vec::with_capacity(INTERVAL_RESAMPLES);
    for _ in 0..INTERVAL_RESAMPLES {
        let mut sum = 0u64;
        for _ in 0..n {
            sum += u64::from(abstains[rng.below(n)]);
        }
        sums.push(sum);
    }
    sums.sort_unstable();
    let rank = |q: f64| {
        mean_of(
            sums[((q * INTERVAL_RESAMPLES as f64).ceil() as usize).clamp(1, INTERVAL_RESAMPLES)
                - 1],
        )
    };
    (rank(0.025), rank(0.975))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_counts_give_a_point_interval_at_their_rate() {
        let (lo, hi) = unresolved_interval(&[3; 40], 20, 1, Threshold(0), Fraction(250));
        assert_eq!((lo, hi), (0.15, 0.15));
    }

    #[test]
    fn two_pairs_resample_to_all_three_means() {
        // Means 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4: the 2.5% and 97.5% points are the extremes.
        let (lo, hi) = unresolved_interval(&[0, 10], 10, 1, Threshold(0), Fraction(250));
        assert_eq!((lo, hi), (0.0, 1.0));
    }

    #[test]
    fn many_pairs_match_the_normal_approximation() {
        // 200 pairs, half never and half always unresolved: mean 0.5, standard error 0.5/√200.
        let counts: Vec<u32> = (0..200).map(|i| if i % 2 == 0 { 0 } else { 7 }).collect();
        let (lo, hi) = unresolved_interval(&counts, 7, 3, Threshold(500), Fraction(500));
        let half_width = 1.96 * 0.5 / 200f64.sqrt();
        assert!((lo - (0.5 - half_width)).abs() < 0.012, "{lo}");
        assert!((hi - (0.5 + half_width)).abs() < 0.012, "{hi}");
        let again = unresolved_interval(&counts, 7, 3, Threshold(500), Fraction(500));
        assert_eq!((lo, hi), again);
    }
}
