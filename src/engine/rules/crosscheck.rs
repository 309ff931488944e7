//! Classical cross-checks for binary outcomes, shown beside any rule's decision (SPEC §9b): the exact
//! sign (McNemar) test on the discordant tasks for δ = 0, and Newcombe's hybrid-score interval for the
//! paired difference Δ at 95% (Newcombe 1998, paired method 10, with its continuity-adjusted correlation).
//! Both use the same observed tasks as the rule, so a user can see when the bootstrap and an exact
//! classical test disagree. Outcomes that are not all 0 or 1 (graded, or averaged over runs) get none.

use serde::Serialize;

use crate::engine::rules::Action;
use crate::engine::rules::stats::LnFactorial;

/// The two-sided 95% normal quantile used by the Wilson intervals.
const Z_95: f64 = 1.959_963_984_540_054;

/// The paired 2×2 table of the observed tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PairedTable {
    pub both: u32,
    pub only_tested: u32,
    pub only_baseline: u32,
    pub neither: u32,
}

impl PairedTable {
    /// The table of paired binary outcomes (tested, baseline); `None` as soon as one is not 0 or 1.
    pub fn of_binary(outcomes: impl IntoIterator<Item = (f64, f64)>) -> Option<PairedTable> {
        let mut table = PairedTable::default();
        for (tested, baseline) in outcomes {
            match (binary(tested)?, binary(baseline)?) {
                (true, true) => table.both += 1,
                (true, false) => table.only_tested += 1,
                (false, true) => table.only_baseline += 1,
                (false, false) => table.neither += 1,
            }
        }
        Some(table)
    }

    pub fn tasks(&self) -> u32 {
        self.both + self.only_tested + self.only_baseline + self.neither
    }
}

fn binary(outcome: f64) -> Option<bool> {
    if outcome == 1.0 {
        Some(true)
    } else if outcome == 0.0 {
        Some(false)
    } else {
        None
    }
}

/// The cross-checks of one paired table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossCheck {
    pub tasks: u32,
    #[serde(flatten)]
    pub table: PairedTable,
    /// Δ̂ = (only tested − only baseline) / tasks.
    pub estimate: f64,
    /// Exact sign test on the discordant tasks, H0: Δ = 0, two-sided.
    pub sign_test_p: f64,
    /// The same test, one-sided towards "the tested system is better".
    pub sign_test_p_tested_better: f64,
    /// Newcombe's hybrid-score interval for Δ at `level`.
    pub newcombe_low: f64,
    pub newcombe_high: f64,
    pub level: f64,
}

impl CrossCheck {
    /// `None` for an empty table, where neither test says anything.
    pub fn new(table: PairedTable) -> Option<CrossCheck> {
        let tasks = table.tasks();
        if tasks == 0 {
            return None;
        }
        let (low, high) = newcombe_interval(&table);
        let (two_sided, tested_better) = sign_test(table.only_tested, table.only_baseline);
        Some(CrossCheck {
            tasks,
            table,
            estimate: (f64::from(table.only_tested) - f64::from(table.only_baseline))
                / f64::from(tasks),
            sign_test_p: two_sided,
            sign_test_p_tested_better: tested_better,
            newcombe_low: low,
            newcombe_high: high,
            level: 0.95,
        })
    }

    /// What the interval says about "better by δ": promote when it lies above δ, reject when it lies at
    /// or below δ, continue while it straddles δ.
    pub fn interval_verdict(&self, delta: f64) -> Action {
        if self.newcombe_low > delta {
            Action::Promote
        } else if self.newcombe_high <= delta {
            Action::Reject
        } else {
            Action::Continue
        }
    }

    /// Whether the rule's `action` at threshold δ disagrees with the interval's verdict; an abstention
    /// and a straddling interval both leave the question open, so they agree.
    pub fn differs_from(&self, delta: f64, action: Action) -> bool {
        !matches!(
            (self.interval_verdict(delta), action),
            (Action::Promote, Action::Promote)
                | (Action::Reject, Action::Reject)
                | (Action::Continue, Action::Continue | Action::Abstain)
        )
    }
}

/// Exact binomial(m, ½) tails for `better` successes of `m = better + worse` discordant tasks:
/// (two-sided p, one-sided p for "better").
fn sign_test(better: u32, worse: u32) -> (f64, f64) {
    let m = better + worse;
    if m == 0 {
        return (1.0, 1.0);
    }
    let ln_fact = LnFactorial::new(m as usize);
    let ln_half_m = f64::from(m) * std::f64::consts::LN_2;
    let prob = |k: u32| (ln_fact.ln_choose(m as usize, k as usize) - ln_half_m).exp();
    let lower_tail = |upto: u32| (0..=upto).map(prob).sum::<f64>();
    let two_sided = (2.0 * lower_tail(better.min(worse))).min(1.0);
    // P(X ≥ better) = P(X ≤ worse) by symmetry.
    let tested_better = lower_tail(worse).min(1.0);
    (two_sided, tested_better)
}

/// Wilson score interval for `successes` of `n`.
fn wilson(successes: u32, n: u32) -> (f64, f64) {
    let n = f64::from(n);
    let p = f64::from(successes) / n;
    let z2 = Z_95 * Z_95;
    let centre = p + z2 / (2.0 * n);
    let spread = Z_95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let denominator = 1.0 + z2 / n;
    (
        ((centre - spread) / denominator).max(0.0),
        ((centre + spread) / denominator).min(1.0),
    )
}

/// Newcombe (1998) paired method 10: the Wilson intervals of both success rates, squared and added with
/// the continuity-adjusted correlation φ of the table.
fn newcombe_interval(table: &PairedTable) -> (f64, f64) {
    let (a, b, c, d) = (
        f64::from(table.both),
        f64::from(table.only_tested),
        f64::from(table.only_baseline),
        f64::from(table.neither),
    );
    let n = table.tasks();
    let total = f64::from(n);
    let tested_successes = table.both + table.only_tested;
    let baseline_successes = table.both + table.only_baseline;
    let p1 = f64::from(tested_successes) / total;
    let p2 = f64::from(baseline_successes) / total;
    let (l1, u1) = wilson(tested_successes, n);
    let (l2, u2) = wilson(baseline_successes, n);
    let margins = (a + b) * (c + d) * (a + c) * (b + d);
    let phi = if margins == 0.0 {
        0.0
    } else {
        let cross = a * d - b * c;
        let adjusted = if cross > total / 2.0 {
            cross - total / 2.0
        } else if cross >= 0.0 {
            0.0
        } else {
            cross
        };
        adjusted / margins.sqrt()
    };
    let delta = p1 - p2;
    let below =
        ((p1 - l1).powi(2) - 2.0 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2).powi(2)).max(0.0);
    let above =
        ((p2 - l2).powi(2) - 2.0 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1).powi(2)).max(0.0);
    (
        (delta - below.sqrt()).max(-1.0),
        (delta + above.sqrt()).min(1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(both: u32, only_tested: u32, only_baseline: u32, neither: u32) -> PairedTable {
        PairedTable {
            both,
            only_tested,
            only_baseline,
            neither,
        }
    }

    #[test]
    fn newcombe_matches_the_published_example() {
        // Cavo et al. (2012) as worked in Fagerland, Lydersen & Laake, "Statistical Analysis of
        // Contingency Tables", ch. 8: estimate −0.0621, 95% CI −0.1186 to −0.0046.
        let check = CrossCheck::new(table(59, 6, 16, 80)).expect("non-empty");
        assert!((check.estimate - (-0.0621)).abs() < 5e-5);
        assert!((check.newcombe_low - (-0.1186)).abs() < 5e-5, "{check:?}");
        assert!((check.newcombe_high - (-0.0046)).abs() < 5e-5, "{check:?}");
    }

    #[test]
    fn sign_test_is_the_exact_binomial_tail() {
        // 8 against 2: P(X ≤ 2 | 10, ½) = (1 + 10 + 45) / 1024.
        let (two, one) = sign_test(8, 2);
        assert!((two - 112.0 / 1024.0).abs() < 1e-12);
        assert!((one - 56.0 / 1024.0).abs() < 1e-12);
        // The other direction: P(X ≥ 2 | 10, ½) = 1 − 11/1024.
        let (two_rev, one_rev) = sign_test(2, 8);
        assert!((two_rev - two).abs() < 1e-12);
        assert!((one_rev - (1.0 - 11.0 / 1024.0)).abs() < 1e-12);
        // A balanced split is capped at 1, and no discordant task says nothing.
        assert_eq!(sign_test(5, 5).0, 1.0);
        assert_eq!(sign_test(0, 0), (1.0, 1.0));
    }

    #[test]
    fn binary_tables_refuse_graded_outcomes() {
        let t =
            PairedTable::of_binary([(1.0, 1.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0), (1.0, 0.0)])
                .expect("binary");
        assert_eq!(t, table(1, 2, 1, 1));
        assert!(PairedTable::of_binary([(1.0, 0.5)]).is_none());
        assert!(CrossCheck::new(PairedTable::default()).is_none());
    }

    #[test]
    fn interval_verdicts_follow_the_threshold() {
        let check = CrossCheck::new(table(10, 30, 2, 10)).expect("non-empty");
        assert!(
            check.newcombe_low > 0.3 && check.newcombe_high < 0.75,
            "{check:?}"
        );
        assert_eq!(check.interval_verdict(0.0), Action::Promote);
        assert_eq!(check.interval_verdict(0.5), Action::Continue);
        assert_eq!(check.interval_verdict(0.9), Action::Reject);
        assert!(!check.differs_from(0.0, Action::Promote));
        assert!(check.differs_from(0.0, Action::Reject));
        assert!(!check.differs_from(0.5, Action::Abstain));
        assert!(check.differs_from(0.5, Action::Promote));
        // The interval always holds the estimate.
        assert!(check.newcombe_low < check.estimate && check.estimate < check.newcombe_high);
    }
}
