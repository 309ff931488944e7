//! Cheap, rigorous bounds on the exact bootstrap tails of 0/±1 differences, used to settle a bootstrap
//! decision without summing the exact distribution. A decision only asks whether one tail is at most the
//! cutoff a; most count patterns are far from it on one side, and two O(1) bounds say so:
//!
//! - above: a Chernoff bound, P(S* ≤ m) ≤ e^{tm}·E[e^{−tS*}] for every t ≥ 0, at the minimising t
//!   (a root of a quadratic for three-point draws);
//! - below: the Berry–Esseen inequality, |P(S* ≤ x) − Φ((x − nμ)/(σ√n))| ≤ C·ρ/(σ³√n) with
//!   C = 0.4748 (Shevtsova 2011, identically distributed summands), where μ, σ² and ρ = E|X − μ|³ are
//!   the moments of one resampled difference.
//!
//! What the two bounds leave open, an exact sum over narrower windows with a bound on its error
//! usually settles ([`coarse_tails`]). A case is settled only when it clears the cutoff by
//! [`SETTLE_MARGIN`], far more than the exact tail's rounding (about 1e-14), so a settled action is the
//! one the exact tail would give.

use super::bootstrap::{Tails, binary_tails_to};
use super::stats::{LnFactorial, normal_cdf};

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

/// Relative cutoff of the binomial windows in [`coarse_tails`]: about ±4.8 standard deviations
/// instead of ±9.3, leaving out a few millionths of the mass.
const COARSE_WINDOW: f64 = 1e-5;

/// Rounding allowance of a tail summed over windows (measured errors are about 1e-14).
const ROUNDING: f64 = 1e-10;

/// Both tails of a pattern at cut m summed over coarse windows, with the bound on their error
/// ([`binary_tails_to`]): about half the work of the exact tails, and decisive ([`settle_near`]) unless
/// the deciding tail lies within a few millionths of the cutoff.
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
pub fn settle_near(tail: f64, error: f64, cutoff: f64) -> Option<bool> {
    let slack = error + ROUNDING;
    TailBounds {
        lower: tail - slack,
        upper: tail + slack,
    }
    .settle(cutoff)
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
    /// σ√n, the standard deviation of S*.
    spread: f64,
    /// The Berry–Esseen bound on the distance between the distribution of S* and its normal.
    berry_esseen: f64,
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
        let third = p_pos * (1.0 - mean).abs().powi(3)
            + p_neg * (1.0 + mean).abs().powi(3)
            + p_zero * mean.abs().powi(3);
        let spread = variance.sqrt() * count.sqrt();
        Some(Draw {
            n: count,
            p_neg,
            p_zero,
            p_pos,
            mean,
            spread,
            berry_esseen: BERRY_ESSEEN * third / (variance * spread),
        })
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
            lower: self.lower_at_most(m as f64),
            upper: self.upper_at_most(m as f64),
        }
    }

    /// Bounds on P*(S* > m) = P*(−S* ≤ −m − 1).
    pub fn above(self, m: i64) -> TailBounds {
        self.mirrored().at_most(-m - 1)
    }

    /// Whether P*(S* ≤ m) is surely at most `cutoff` (`Some(true)`), surely above it (`Some(false)`),
    /// or too close to tell (`None`). The cheaper upper bound is tried first.
    pub fn settle_at_most(self, m: i64, cutoff: f64) -> Option<bool> {
        let upper = self.upper_at_most(m as f64);
        if upper <= cutoff - SETTLE_MARGIN {
            return Some(true);
        }
        let lower = self.lower_at_most(m as f64);
        TailBounds { lower, upper }.settle(cutoff)
    }

    /// [`Draw::settle_at_most`] for P*(S* > m).
    pub fn settle_above(self, m: i64, cutoff: f64) -> Option<bool> {
        self.mirrored().settle_at_most(-m - 1, cutoff)
    }

    fn upper_at_most(self, m: f64) -> f64 {
        chernoff_at_most(self.n, self.p_neg, self.p_zero, self.p_pos, m).min(1.0)
    }

    /// S* is an integer, so P(S* ≤ m) = P(S* < m + 1): the normal term may be taken at m + 1.
    fn lower_at_most(self, m: f64) -> f64 {
        (normal_cdf((m + 1.0 - self.n * self.mean) / self.spread) - self.berry_esseen).max(0.0)
    }
}

/// min over t ≥ 0 of e^{tm}·(p₊e^{−t} + p₀ + p₋e^{t})^n. Setting the derivative to zero gives, for
/// u = e^t, (n + m)·p₋·u² + m·p₀·u + (m − n)·p₊ = 0. Any t ≥ 0 gives a valid bound, so a root that is
/// not quite the minimum only loosens it; where no root lies above u = 1 the bound is 1 (or 0 when the
/// sum cannot reach down to m at all).
fn chernoff_at_most(n: f64, p_neg: f64, p_zero: f64, p_pos: f64, m: f64) -> f64 {
    let lowest_sum = if p_neg > 0.0 { -n } else { 0.0 };
    if m < lowest_sum {
        return 0.0;
    }
    let (a, b, c) = ((n + m) * p_neg, m * p_zero, (m - n) * p_pos);
    let u = if a > 0.0 {
        let discriminant = b * b - 4.0 * a * c;
        if discriminant < 0.0 {
            return 1.0;
        }
        (-b + discriminant.sqrt()) / (2.0 * a)
    } else if b > 0.0 {
        -c / b
    } else if p_neg == 0.0 && m == 0.0 {
        // No −1 draws: P(S* ≤ 0) = P(no +1 draw) = p₀ⁿ, the bound's limit as t → ∞.
        return p_zero.powf(n);
    } else {
        return 1.0;
    };
    if u.is_nan() || u <= 1.0 || u.is_infinite() {
        return 1.0;
    }
    let log_bound = u.ln() * m + n * (p_pos / u + p_zero + p_neg * u).ln();
    log_bound.exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bootstrap::exact_binary_tails;
    use crate::engine::stats::LnFactorial;

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
                                if let Some(within) = settle(draw, m, cutoff) {
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
        let bound = chernoff_at_most(10.0, 0.5, 0.0, 0.5, -6.0);
        let expected = 1.25f64.powi(10) / 64.0;
        assert!((bound - expected).abs() < 1e-12, "{bound} vs {expected}");
        // Above the mean the bound is useless (1), and below the reachable range it is 0.
        assert_eq!(chernoff_at_most(10.0, 0.5, 0.0, 0.5, 1.0), 1.0);
        assert_eq!(chernoff_at_most(10.0, 0.0, 0.5, 0.5, -1.0), 0.0);
        // No −1 draws and m = 0: the bound is exact, P(no +1 draw) = 0.5^10.
        assert_eq!(chernoff_at_most(10.0, 0.0, 0.5, 0.5, 0.0), 0.5f64.powi(10));
    }
}
