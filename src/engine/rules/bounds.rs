//! Cheap, rigorous bounds on the exact bootstrap tails of 0/±1 differences, used to settle a bootstrap
//! decision without summing the exact distribution. A decision only asks whether one tail is at most the
//! cutoff a; most count patterns are far from it on one side, and O(1) bounds say so:
//!
//! - above: Bernstein's inequality (no logarithm needed), then a Chernoff bound,
//!   P(S* ≤ m) ≤ e^{tm}·E[e^{−tS*}] for every t ≥ 0, at the minimising t (a root of a quadratic for
//!   three-point draws);
//! - below: the Berry–Esseen inequality, |P(S* ≤ x) − Φ((x − nμ)/(σ√n))| ≤ C·ρ/(σ³√n) with
//!   C = 0.4748 (Shevtsova 2011, identically distributed summands), where μ, σ² and ρ = E|X − μ|³ are
//!   the moments of one resampled difference.
//!
//! What the bounds leave open, an exact sum over narrower windows with a bound on its error
//! usually settles ([`coarse_tails`]). A case is settled only when it clears the cutoff by
//! [`SETTLE_MARGIN`], far more than the exact tail's rounding (about 1e-14), so a settled action is the
//! one the exact tail would give.

use crate::engine::rules::bootstrap::{Tails, binary_tails_to};
use crate::engine::rules::stats::{LnFactorial, normal_cdf};

/// The Berry–Esseen constant for sums of identically distributed terms (Shevtsova 2011).
const BERRY_ESSEEN: f64 = 0.4748;

/// How far a bound must clear the cutoff to settle a decision.
pub const SETTLE_MARGIN: f64 = 1e-9;

/// Bounds on one tail probability: `lower ≤ P ≤ upper`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TailBounds {
    pub lower: f64,
    pub upper: f64,
}

impl TailBounds {
    /// `Some(true)` when the tail is surely at most `cutoff`, `Some(false)` when surely above it,
    /// `None` when the bounds come within [`SETTLE_MARGIN`] of it (the exact tail must decide).
    pub fn settle(self, cutoff: f64) -> Option<bool> {
        if self.upper <= cutoff - SETTLE_MARGIN {
            Some(true)
        } else if self.lower >= cutoff + SETTLE_MARGIN {
            Some(false)
        } else {
            None
        }
    }
}

/// A tail cutoff a, with the logarithm the upper bounds are compared against (computed once).
#[derive(Debug, Clone, Copy)]
pub struct Cutoff {
    value: f64,
    /// ln(a − margin): an upper bound whose logarithm is at most this settles "within a".
    ln_settle: f64,
}

impl Cutoff {
    pub fn new(value: f64) -> Self {
        // A cutoff within the margin of 0 gives NaN or −∞ here, so no upper bound settles it.
        Cutoff {
            value,
            ln_settle: (value - SETTLE_MARGIN).ln(),
        }
    }
}

/// Relative cutoff of the binomial windows in [`coarse_tails`]: about ±3.7 standard deviations
/// instead of ±9.3, leaving out about a ten-thousandth of the mass.
const COARSE_WINDOW: f64 = 1e-3;

/// Rounding allowance of a tail summed over windows (measured errors are about 1e-14).
const ROUNDING: f64 = 1e-10;

/// Both tails of a pattern at cut m summed over coarse windows, with the bound on their error
/// ([`binary_tails_to`]): under half the work of the exact tails, and decisive ([`settle_near`]) unless
/// the deciding tail lies within about 1e-3 of the cutoff.
pub fn coarse_tails(n: u32, n_neg: u32, n_pos: u32, m: i64, ln_fact: &LnFactorial) -> (Tails, f64) {
    let (tails, error) = binary_tails_to(n, n_neg, n_pos, &[m], COARSE_WINDOW, ln_fact);
    match tails.first() {
        Some(&tails) => (tails, error),
        // One cut in, one tail out; an unbounded error could never settle anything.
        None => (
            Tails {
                at_most: 0.0,
                above: 0.0,
            },
            f64::INFINITY,
        ),
    }
}

/// Settles a tail known to within `error` of `tail` against `cutoff`.
pub fn settle_near(tail: f64, error: f64, cutoff: Cutoff) -> Option<bool> {
    let slack = error + ROUNDING;
    TailBounds {
        lower: tail - slack,
        upper: tail + slack,
    }
    .settle(cutoff.value)
}

/// One resampled difference of a 0/±1 count pattern: n_neg differences of −1, n_pos of +1 and the rest
/// 0 (out of n). S* is the sum of n such draws.
#[derive(Debug, Clone, Copy)]
pub struct Draw {
    n: f64,
    p_neg: f64,
    p_zero: f64,
    p_pos: f64,
    mean: f64,
    /// σ², the variance of one draw.
    variance: f64,
}

impl Draw {
    /// `None` when the draws have no spread (the bounds need σ > 0).
    pub fn new(n: u32, n_neg: u32, n_pos: u32) -> Option<Self> {
        if n == 0 || n_neg + n_pos > n {
            return None;
        }
        let count = f64::from(n);
        let (p_neg, p_pos) = (f64::from(n_neg) / count, f64::from(n_pos) / count);
        let p_zero = f64::from(n - n_neg - n_pos) / count;
        let mean = p_pos - p_neg;
        let variance = p_pos + p_neg - mean * mean;
        if variance <= 0.0 {
            return None;
        }
        Some(Draw {
            n: count,
            p_neg,
            p_zero,
            p_pos,
            mean,
            variance,
        })
    }

    /// σ√n, the standard deviation of S*.
    fn spread(self) -> f64 {
        self.variance.sqrt() * self.n.sqrt()
    }

    /// The Berry–Esseen bound C·ρ/(σ³√n) on the distance between the distribution of S* and its
    /// normal (computed only where the lower bound is needed).
    fn berry_esseen(self) -> f64 {
        let third = self.p_pos * (1.0 - self.mean).abs().powi(3)
            + self.p_neg * (1.0 + self.mean).abs().powi(3)
            + self.p_zero * self.mean.abs().powi(3);
        BERRY_ESSEEN * third / (self.variance * self.spread())
    }

    /// The same draw with signs swapped (−S* for S*).
    fn mirrored(self) -> Self {
        Draw {
            p_neg: self.p_pos,
            p_pos: self.p_neg,
            mean: -self.mean,
            ..self
        }
    }

    /// Bounds on P*(S* ≤ m).
    pub fn at_most(self, m: i64) -> TailBounds {
        TailBounds {
            lower: self.lower_at_most(m as f64, self.berry_esseen()),
            upper: self.upper_at_most(m as f64),
        }
    }

    /// Bounds on P*(S* > m) = P*(−S* ≤ −m − 1).
    pub fn above(self, m: i64) -> TailBounds {
        self.mirrored().at_most(-m - 1)
    }

    /// Whether P*(S* ≤ m) is surely at most the cutoff (`Some(true)`), surely above it (`Some(false)`),
    /// or too close to tell (`None`). Cheapest first: Bernstein's bound (no logarithm), then the
    /// Chernoff bound, then the Berry–Esseen lower bound.
    pub fn settle_at_most(self, m: i64, cutoff: Cutoff) -> Option<bool> {
        let m = m as f64;
        if self.ln_bernstein_at_most(m) <= cutoff.ln_settle
            || ln_chernoff_at_most(self.n, self.p_neg, self.p_zero, self.p_pos, m)
                <= cutoff.ln_settle
        {
            return Some(true);
        }
        let berry_esseen = self.berry_esseen();
        // With m + 1 at or above the mean the normal term is at least 1/2, no error function needed.
        let sure_floor =
            m + 1.0 >= self.n * self.mean && 0.5 - berry_esseen >= cutoff.value + SETTLE_MARGIN;
        if sure_floor || self.lower_at_most(m, berry_esseen) >= cutoff.value + SETTLE_MARGIN {
            Some(false)
        } else {
            None
        }
    }

    /// [`Draw::settle_at_most`] for P*(S* > m).
    pub fn settle_above(self, m: i64, cutoff: Cutoff) -> Option<bool> {
        self.mirrored().settle_at_most(-m - 1, cutoff)
    }

    /// ln of Bernstein's bound P(S* ≤ m) ≤ exp(−g²/(2(nσ² + b·g/3))) for m = nμ − g below the mean,
    /// with every |X − μ| ≤ b = 1 + |μ|; 0 (the trivial bound) for m at or above the mean.
    fn ln_bernstein_at_most(self, m: f64) -> f64 {
        let gap = self.n * self.mean - m;
        if gap <= 0.0 {
            return 0.0;
        }
        let reach = 1.0 + self.mean.abs();
        -gap * gap / (2.0 * (self.n * self.variance + reach * gap / 3.0))
    }

    fn upper_at_most(self, m: f64) -> f64 {
        ln_chernoff_at_most(self.n, self.p_neg, self.p_zero, self.p_pos, m)
            .exp()
            .min(1.0)
    }

    /// The Berry–Esseen lower bound, given the draw's [`Draw::berry_esseen`] term. S* is an integer, so
    /// P(S* ≤ m) = P(S* < m + 1): the normal term may be taken at m + 1.
    fn lower_at_most(self, m: f64, berry_esseen: f64) -> f64 {
        (normal_cdf((m + 1.0 - self.n * self.mean) / self.spread()) - berry_esseen).max(0.0)
    }
}

/// ln of the minimum over t ≥ 0 of e^{tm}·(p₊e^{−t} + p₀ + p₋e^{t})^n. Setting the derivative to zero gives, for
/// u = e^t, (n + m)·p₋·u² + m·p₀·u + (m − n)·p₊ = 0. Any t ≥ 0 gives a valid bound, so a root that is
/// not quite the minimum only loosens it; where no root lies above u = 1 the bound is 1 (ln 0), or 0
/// (ln −∞) when the sum cannot reach down to m at all.
fn ln_chernoff_at_most(n: f64, p_neg: f64, p_zero: f64, p_pos: f64, m: f64) -> f64 {
    let lowest_sum = if p_neg > 0.0 { -n } else { 0.0 };
    if m < lowest_sum {
        return f64::NEG_INFINITY;
    }
    let (a, b, c) = ((n + m) * p_neg, m * p_zero, (m - n) * p_pos);
    let u = if a > 0.0 {
        let discriminant = b * b - 4.0 * a * c;
        if discriminant < 0.0 {
            return 0.0;
        }
        (-b + discriminant.sqrt()) / (2.0 * a)
    } else if b > 0.0 {
        -c / b
    } else if p_neg == 0.0 && m == 0.0 {
        // No −1 draws: P(S* ≤ 0) = P(no +1 draw) = p₀ⁿ, the bound's limit as t → ∞.
        return n * p_zero.ln();
    } else {
        return 0.0;
    };
    if u.is_nan() || u <= 1.0 || u.is_infinite() {
        return 0.0;
    }
    u.ln() * m + n * (p_pos / u + p_zero + p_neg * u).ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::bootstrap::exact_binary_tails;
    use crate::engine::rules::stats::LnFactorial;

    /// Every bound contains the exact tail, over all patterns of small n and cuts across the range.
    #[test]
    fn bounds_contain_the_exact_tails() {
        let table = LnFactorial::new(80);
        let mut settled = 0;
        let mut cases = 0;
        for n in [1u32, 2, 5, 12, 30, 61, 80] {
            for n_neg in 0..=n {
                for n_pos in 0..=(n - n_neg) {
                    let cuts: Vec<i64> = (-(n as i64) - 1..=n as i64).collect();
                    let exact = exact_binary_tails(n, n_neg, n_pos, &cuts, &table);
                    let Some(draw) = Draw::new(n, n_neg, n_pos) else {
                        assert!(n_neg + n_pos == 0 || n_neg == n || n_pos == n);
                        continue;
                    };
                    for (&m, tails) in cuts.iter().zip(&exact) {
                        let bernstein = [
                            (draw.ln_bernstein_at_most(m as f64), tails.at_most),
                            (
                                draw.mirrored().ln_bernstein_at_most((-m - 1) as f64),
                                tails.above,
                            ),
                        ];
                        for (ln_bound, exact) in bernstein {
                            assert!(
                                exact <= ln_bound.exp() + 1e-12,
                                "n={n} neg={n_neg} pos={n_pos} m={m}"
                            );
                        }
                        for (bounds, exact, settle) in [
                            (
                                draw.at_most(m),
                                tails.at_most,
                                Draw::settle_at_most as fn(_, _, _) -> _,
                            ),
                            (draw.above(m), tails.above, Draw::settle_above),
                        ] {
                            cases += 1;
                            assert!(
                                bounds.lower <= exact + 1e-12 && exact <= bounds.upper + 1e-12,
                                "n={n} neg={n_neg} pos={n_pos} m={m}: {bounds:?} vs {exact}"
                            );
                            for cutoff in [0.01, 0.05, 0.1] {
                                if let Some(within) = settle(draw, m, Cutoff::new(cutoff)) {
                                    settled += 1;
                                    assert_eq!(
                                        within,
                                        exact <= cutoff,
                                        "n={n} neg={n_neg} pos={n_pos} m={m}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        // The bounds must do their job, not merely be true: most cases settle.
        assert!(settled * 2 > cases * 3, "{settled} settled of {cases} × 3");
    }

    #[test]
    fn chernoff_bound_on_worked_numbers() {
        // n = 10 draws of ±1 with equal chance, P(S ≤ −6): u = 2 from 4u² − 6u − 4 = 0 (scaled),
        // bound = 2^−6 · ((1/2)/2 + 2/2)^10 = 1.25^10 / 64.
        let chernoff_at_most =
            |n, p_neg, p_zero, p_pos, m| ln_chernoff_at_most(n, p_neg, p_zero, p_pos, m).exp();
        let bound = chernoff_at_most(10.0, 0.5, 0.0, 0.5, -6.0);
        let expected = 1.25f64.powi(10) / 64.0;
        assert!((bound - expected).abs() < 1e-12, "{bound} vs {expected}");
        // Above the mean the bound is useless (1), and below the reachable range it is 0.
        assert_eq!(chernoff_at_most(10.0, 0.5, 0.0, 0.5, 1.0), 1.0);
        assert_eq!(chernoff_at_most(10.0, 0.0, 0.5, 0.5, -1.0), 0.0);
        // No −1 draws and m = 0: the bound is exact, P(no +1 draw) = 0.5^10.
        assert!((chernoff_at_most(10.0, 0.0, 0.5, 0.5, 0.0) - 0.5f64.powi(10)).abs() < 1e-15);
    }
}
