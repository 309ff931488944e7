//! Bootstrap tails of the resampled mean difference (SPEC §6). The observed differences D_i are held as
//! counts on an integer lattice D = v / L (v in −L..=L; L = 1 for 0/1 outcomes, L = runs for averages of
//! a few runs), so a resample is a multinomial draw of counts and the resampled sum S* = Σ v is an integer.
//! The promote side of threshold δ is S* > m with m = ⌊n·L·(δ + ε)⌋.
//!
//! - `exact`: the B → ∞ limit. For L = 1, condition on the number J of discordant draws
//!   (J ~ Bin(n, d/n)) and on the positives among them (Bin(J, n₊/d)); otherwise convolve the one-draw
//!   distribution n times. Only probability windows that matter are summed (see `stats::WINDOW_CUTOFF`).
//! - `mc`: B multinomial resamples of the counts from a caller-supplied random stream.
//! - values off any lattice: B resamples of the values themselves (`mc` only).

use crate::engine::rules::stats::{
    LnFactorial, WINDOW_CUTOFF, binomial_window, binomial_window_to, sample_binomial, unit,
};

/// Both tails at one cut point: `at_most` = P*(S* ≤ m) (R_promote), `above` = P*(S* > m) (R_reject).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tails {
    pub at_most: f64,
    pub above: f64,
}

/// Observed differences as counts on the lattice v / scale, `counts[v + scale]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LatticeCounts {
    pub scale: u32,
    pub counts: Vec<u32>,
}

impl LatticeCounts {
    pub fn n(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Σ v and Σ v² over the observed differences.
    pub fn sums(&self) -> (i64, i64) {
        let scale = i64::from(self.scale);
        let mut sum = 0;
        let mut sum_sq = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            let v = i as i64 - scale;
            sum += v * i64::from(c);
            sum_sq += v * v * i64::from(c);
        }
        (sum, sum_sq)
    }
}

/// A probability distribution over consecutive integers starting at `lo`.
#[derive(Debug, Clone, PartialEq)]
pub struct IntDistribution {
    pub lo: i64,
    pub probs: Vec<f64>,
}

impl IntDistribution {
    pub fn point(at: i64) -> Self {
        IntDistribution {
            lo: at,
            probs: vec![1.0],
        }
    }

    /// Both tails at `m`, each summed directly (not as 1 − the other) so small tails keep their precision.
    pub fn tails(&self, m: i64) -> Tails {
        let mut at_most = 0.0;
        let mut above = 0.0;
        for (i, &p) in self.probs.iter().enumerate() {
            if self.lo + i as i64 <= m {
                at_most += p;
            } else {
                above += p;
            }
        }
        Tails { at_most, above }
    }
}

/// The exact distribution of S* = X₊ − X₋ for n resampled 0/±1 differences with n₋ negatives and n₊
/// positives observed.
pub fn exact_binary(n: u32, n_neg: u32, n_pos: u32, ln_fact: &LnFactorial) -> IntDistribution {
    let discordant = n_neg + n_pos;
    if discordant == 0 || n == 0 {
        return IntDistribution::point(0);
    }
    let jw = binomial_window(n as usize, f64::from(discordant) / f64::from(n), ln_fact);
    let share_pos = f64::from(n_pos) / f64::from(discordant);
    let j_hi = (jw.lo + jw.probs.len() - 1) as i64;
    // S = 2·X₊ − J lies in [−j_hi, j_hi].
    let mut probs = vec![0.0; (2 * j_hi + 1) as usize];
    for (offset, &pj) in jw.probs.iter().enumerate() {
        let j = jw.lo + offset;
        let xw = binomial_window(j, share_pos, ln_fact);
        for (x_offset, &px) in xw.probs.iter().enumerate() {
            let s = 2 * (xw.lo + x_offset) as i64 - j as i64;
            probs[(s + j_hi) as usize] += pj * px;
        }
    }
    trim(IntDistribution { lo: -j_hi, probs })
}

/// Exact tails P*(S* ≤ m) and P*(S* > m) for 0/±1 differences at each cut in `cuts`, in O(window) per cut
/// instead of building the whole distribution. With J ~ Bin(n, d/n) discordant draws and X | J ~ Bin(J, π)
/// positives, S* = 2X − J ≤ m ⇔ X ≤ x_J = ⌊(m + J)/2⌋. Walking J upward, the binomial CDF at x_J follows
/// F_{j+1}(x) = F_j(x) − π·f_j(x) and, when x_J steps up, F_{j+1}(x+1) = F_{j+1}(x) + f_{j+1}(x+1), with each
/// pmf term computed directly from log-factorials. The upper tail G = 1 − F is carried the same way, so
/// both tails keep their absolute accuracy (about 1e-14).
pub fn exact_binary_tails(
    n: u32,
    n_neg: u32,
    n_pos: u32,
    cuts: &[i64],
    ln_fact: &LnFactorial,
) -> Vec<Tails> {
    binary_tails_to(n, n_neg, n_pos, cuts, WINDOW_CUTOFF, ln_fact).0
}

/// [`exact_binary_tails`] with both binomial windows cut at `cutoff` of their modes, and a bound on how
/// far each tail may then be from the exact one. A normalised window that leaves out mass D moves a
/// weighted sum of values in [0, 1] by at most D/(1 − D) ≤ 2D; the J window weighs the tails, and the
/// start window's error in F and G is carried unchanged by the walk's updates, which add exact terms.
pub fn binary_tails_to(
    n: u32,
    n_neg: u32,
    n_pos: u32,
    cuts: &[i64],
    cutoff: f64,
    ln_fact: &LnFactorial,
) -> (Vec<Tails>, f64) {
    let error = |outside: f64| {
        if outside <= 0.5 {
            2.0 * outside
        } else {
            f64::INFINITY
        }
    };
    let discordant = n_neg + n_pos;
    if discordant == 0 || n == 0 {
        let tails = cuts
            .iter()
            .map(|&m| IntDistribution::point(0).tails(m))
            .collect();
        return (tails, 0.0);
    }
    let (jw, j_outside) = binomial_window_to(
        n as usize,
        f64::from(discordant) / f64::from(n),
        cutoff,
        ln_fact,
    );
    let pi = f64::from(n_pos) / f64::from(discordant);
    if n_pos == 0 || n_neg == 0 {
        // X = 0 or X = J with certainty: S* = ∓J.
        let sign = if n_pos == 0 { -1 } else { 1 };
        let dist = IntDistribution {
            lo: 0,
            probs: Vec::new(),
        };
        let tails = cuts
            .iter()
            .map(|&m| {
                let mut tails = dist.tails(m);
                for (offset, &w) in jw.probs.iter().enumerate() {
                    let s = sign * (jw.lo + offset) as i64;
                    if s <= m {
                        tails.at_most += w
                    } else {
                        tails.above += w
                    }
                }
                tails
            })
            .collect();
        return (tails, error(j_outside));
    }
    let (ln_pi, ln_rest) = (pi.ln(), (1.0 - pi).ln());
    let pmf = |j: usize, x: i64| -> f64 {
        if x < 0 || x as usize > j {
            0.0
        } else {
            let x = x as usize;
            (ln_fact.ln_choose(j, x) + x as f64 * ln_pi + (j - x) as f64 * ln_rest).exp()
        }
    };
    // Bin(j0, π) is the same for every cut: build its window once.
    let j0 = jw.lo;
    let (start, x_outside) = binomial_window_to(j0, pi, cutoff, ln_fact);
    let odds = pi / (1.0 - pi);
    // One walk per cut, advanced side by side: the cuts' update chains are independent, so the processor
    // overlaps them; each cut still sees exactly the same operations in the same order.
    struct Walk {
        m: i64,
        x: i64,
        f: f64,
        f_low: f64,
        g_high: f64,
        tails: Tails,
    }
    let mut walks: Vec<Walk> = cuts
        .iter()
        .map(|&m| {
            let x = (m + j0 as i64).div_euclid(2);
            // F and G of Bin(j0, π) at x, summed over the window on each side.
            let (mut f_low, mut g_high) = (0.0, 0.0);
            for (offset, &p) in start.probs.iter().enumerate() {
                if (start.lo + offset) as i64 <= x {
                    f_low += p
                } else {
                    g_high += p
                }
            }
            Walk {
                m,
                x,
                // The pmf of Bin(j, π) at x, carried by ratios; recomputed from log-factorials when it is
                // tiny (a ratio cannot lift an underflowed 0) or x lies outside [0, j].
                f: pmf(j0, x),
                f_low,
                g_high,
                tails: Tails {
                    at_most: 0.0,
                    above: 0.0,
                },
            }
        })
        .collect();
    for (offset, &w) in jw.probs.iter().enumerate() {
        let j = j0 + offset;
        for walk in &mut walks {
            let Walk {
                m,
                x,
                f,
                f_low,
                g_high,
                tails,
            } = walk;
            tails.at_most += w * f_low.clamp(0.0, 1.0);
            tails.above += w * g_high.clamp(0.0, 1.0);
            if offset + 1 == jw.probs.len() {
                // The last J: no step to J + 1, which may lie past the log-factorial table.
                continue;
            }
            // Advance from Bin(j, π) at x to Bin(j + 1, π) at x_{j+1}.
            let moved = pi * *f;
            *f_low -= moved;
            *g_high += moved;
            let exact = *f < 1e-250 || *x < 0 || *x as usize > j;
            // pmf(j + 1, x) = pmf(j, x) · (j + 1)/(j + 1 − x) · (1 − π)
            *f = if exact {
                pmf(j + 1, *x)
            } else {
                *f * (j + 1) as f64 * ln_fact.reciprocal(j + 1 - *x as usize) * (1.0 - pi)
            };
            let next_x = (*m + j as i64 + 1).div_euclid(2);
            if next_x > *x {
                // pmf(j + 1, x + 1) = pmf(j + 1, x) · (j + 1 − x)/(x + 1) · π/(1 − π)
                *f = if exact || *x < 0 || *x as usize > j {
                    pmf(j + 1, next_x)
                } else {
                    *f * (j + 1 - *x as usize) as f64 * ln_fact.reciprocal(*x as usize + 1) * odds
                };
                *f_low += *f;
                *g_high -= *f;
                *x = next_x;
            }
        }
    }
    let tails = walks.into_iter().map(|walk| walk.tails).collect();
    (tails, error(j_outside) + error(x_outside))
}

/// The exact distribution of S* for n draws from the observed lattice counts, by n-fold convolution.
pub fn exact_lattice(counts: &LatticeCounts) -> IntDistribution {
    let n = counts.n();
    if n == 0 {
        return IntDistribution::point(0);
    }
    let scale = i64::from(counts.scale);
    let one: Vec<f64> = counts
        .counts
        .iter()
        .map(|&c| f64::from(c) / f64::from(n))
        .collect();
    let mut current = IntDistribution::point(0);
    for _ in 0..n {
        let mut next = vec![0.0; current.probs.len() + one.len() - 1];
        for (i, &p) in current.probs.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            for (k, &q) in one.iter().enumerate() {
                next[i + k] += p * q;
            }
        }
        current = trim(IntDistribution {
            lo: current.lo - scale,
            probs: next,
        });
    }
    current
}

/// Drops edge terms below the window cutoff of the largest term, so repeated convolutions stay narrow.
fn trim(mut dist: IntDistribution) -> IntDistribution {
    let peak = dist.probs.iter().copied().fold(0.0, f64::max);
    let keep = |p: &f64| *p >= peak * crate::engine::rules::stats::WINDOW_CUTOFF;
    let first = dist.probs.iter().position(keep).unwrap_or(0);
    let last = dist
        .probs
        .iter()
        .rposition(keep)
        .unwrap_or(dist.probs.len() - 1);
    dist.lo += first as i64;
    dist.probs = dist.probs[first..=last].to_vec();
    dist
}

/// Monte Carlo tails from `resamples` multinomial resamples of the counts, at every cut point in `cuts`.
pub fn mc_lattice(
    counts: &LatticeCounts,
    cuts: &[i64],
    resamples: u32,
    mut next: impl FnMut() -> u64,
) -> Vec<Tails> {
    let n = counts.n();
    let scale = i64::from(counts.scale);
    let mut above = vec![0u32; cuts.len()];
    let categories: Vec<(i64, u32)> = counts
        .counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(i, &c)| (i as i64 - scale, c))
        .collect();
    for _ in 0..resamples {
        // Sequential conditional binomials give a multinomial draw.
        let mut left_n = n;
        let mut left_count = n;
        let mut sum = 0i64;
        for (index, &(value, count)) in categories.iter().enumerate() {
            if left_n == 0 {
                break;
            }
            let drawn = if index + 1 == categories.len() {
                left_n
            } else {
                sample_binomial(left_n, f64::from(count) / f64::from(left_count), &mut next)
            };
            sum += value * i64::from(drawn);
            left_n -= drawn;
            left_count -= count;
        }
        for (slot, &m) in above.iter_mut().zip(cuts) {
            if sum > m {
                *slot += 1;
            }
        }
    }
    above
        .iter()
        .map(|&a| tails_from_count(a, resamples))
        .collect()
}

/// Monte Carlo tails for differences off any lattice: resample the values themselves. The promote side
/// is a resampled mean above `cut` (δ + ε).
pub fn mc_values(
    values: &[f64],
    cuts: &[f64],
    resamples: u32,
    mut next: impl FnMut() -> u64,
) -> Vec<Tails> {
    let n = values.len();
    let mut above = vec![0u32; cuts.len()];
    if n == 0 {
        return cuts
            .iter()
            .map(|&c| {
                if 0.0 > c {
                    tails_from_count(resamples, resamples)
                } else {
                    tails_from_count(0, resamples)
                }
            })
            .collect();
    }
    for _ in 0..resamples {
        let mut sum = 0.0;
        for _ in 0..n {
            let index = ((unit(next()) * n as f64) as usize).min(n - 1);
            sum += values[index];
        }
        let mean = sum / n as f64;
        for (slot, &cut) in above.iter_mut().zip(cuts) {
            if mean > cut {
                *slot += 1;
            }
        }
    }
    above
        .iter()
        .map(|&a| tails_from_count(a, resamples))
        .collect()
}

fn tails_from_count(above: u32, resamples: u32) -> Tails {
    let b = f64::from(resamples);
    Tails {
        at_most: f64::from(resamples - above) / b,
        above: f64::from(above) / b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P(S* > m) by enumerating every ordered resample (n^n of them) for tiny n.
    fn brute_force(values: &[i64], m: i64) -> f64 {
        let n = values.len();
        let total = n.pow(n as u32);
        let mut above = 0usize;
        for code in 0..total {
            let mut rest = code;
            let mut sum = 0;
            for _ in 0..n {
                sum += values[rest % n];
                rest /= n;
            }
            if sum > m {
                above += 1;
            }
        }
        above as f64 / total as f64
    }

    fn lattice(values: &[i64], scale: u32) -> LatticeCounts {
        let mut counts = vec![0; (2 * scale + 1) as usize];
        for &v in values {
            counts[(v + i64::from(scale)) as usize] += 1;
        }
        LatticeCounts { scale, counts }
    }

    #[test]
    fn exact_binary_tails_equal_brute_force_enumeration() {
        let table = LnFactorial::new(16);
        let cases: &[&[i64]] = &[
            &[1, 0, -1],
            &[1, 1, 0, -1, 0],
            &[1, 1, 1, -1, 0, 0, 1],
            &[0, 0, 0, 1],
            &[-1, -1, 1, 0, 0, 1, 1],
        ];
        for values in cases {
            let n = values.len() as u32;
            let n_pos = values.iter().filter(|&&v| v == 1).count() as u32;
            let n_neg = values.iter().filter(|&&v| v == -1).count() as u32;
            let dist = exact_binary(n, n_neg, n_pos, &table);
            for m in -(n as i64)..=(n as i64) {
                let expected = brute_force(values, m);
                let tails = dist.tails(m);
                assert!(
                    (tails.above - expected).abs() < 1e-12,
                    "{values:?} m={m}: {} vs {expected}",
                    tails.above
                );
                assert!((tails.at_most + tails.above - 1.0).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn exact_lattice_tails_equal_brute_force_enumeration() {
        // Averages of two runs: differences in halves (scale 2).
        let cases: &[&[i64]] = &[&[2, -1, 0, 1], &[1, 1, -2, 0, 2], &[-1, 0, 0, 1, 1, 2]];
        for values in cases {
            let dist = exact_lattice(&lattice(values, 2));
            let n = values.len() as i64;
            for m in -2 * n..=2 * n {
                let expected = brute_force(values, m);
                assert!(
                    (dist.tails(m).above - expected).abs() < 1e-12,
                    "{values:?} m={m}"
                );
            }
        }
    }

    #[test]
    fn lattice_and_binary_paths_agree_on_binary_data() {
        let table = LnFactorial::new(200);
        let values: Vec<i64> = (0..120).map(|i| [1, 0, -1, 1, 0][i % 5]).collect();
        let counts = lattice(&values, 1);
        let a = exact_binary(120, counts.counts[0], counts.counts[2], &table);
        let b = exact_lattice(&counts);
        for m in [-10, 0, 6, 12, 24, 30] {
            assert!((a.tails(m).above - b.tails(m).above).abs() < 1e-12, "m={m}");
        }
    }

    /// (n, negatives, positives): small and large, balanced and one-sided, nearly all discordant.
    const PATTERNS: [(u32, u32, u32); 9] = [
        (25, 3, 9),
        (100, 30, 12),
        (250, 40, 41),
        (475, 60, 110),
        (500, 0, 80),
        (60, 7, 0),
        (30, 15, 15),
        (1, 0, 1),
        (300, 1, 290),
    ];

    #[test]
    fn fast_binary_tails_equal_the_full_distribution() {
        let table = LnFactorial::new(600);
        for (n, neg, pos) in PATTERNS {
            let dist = exact_binary(n, neg, pos, &table);
            let cuts: Vec<i64> = (-(n as i64)..=(n as i64))
                .step_by(((n / 25).max(1)) as usize)
                .collect();
            let fast = exact_binary_tails(n, neg, pos, &cuts, &table);
            for (&m, tails) in cuts.iter().zip(&fast) {
                let full = dist.tails(m);
                assert!(
                    (tails.above - full.above).abs() < 1e-12,
                    "n={n} neg={neg} pos={pos} m={m}: {} vs {}",
                    tails.above,
                    full.above
                );
                assert!(
                    (tails.at_most - full.at_most).abs() < 1e-12,
                    "n={n} neg={neg} pos={pos} m={m}"
                );
            }
        }
    }

    #[test]
    fn coarse_windows_stay_within_their_error_bound() {
        let table = LnFactorial::new(600);
        let mut tight = 0;
        for (n, neg, pos) in PATTERNS {
            let cuts: Vec<i64> = (-(n as i64)..=(n as i64)).step_by(7).collect();
            let exact = exact_binary_tails(n, neg, pos, &cuts, &table);
            for cutoff in [1e-3, 1e-5, 1e-8] {
                let (coarse, error) = binary_tails_to(n, neg, pos, &cuts, cutoff, &table);
                tight += usize::from(error < 1e-4);
                for (m, (a, b)) in cuts.iter().zip(coarse.iter().zip(&exact)) {
                    assert!(
                        (a.at_most - b.at_most).abs() <= error + 1e-12
                            && (a.above - b.above).abs() <= error + 1e-12,
                        "n={n} neg={neg} pos={pos} m={m} cutoff={cutoff}: {a:?} vs {b:?}, {error}"
                    );
                }
            }
        }
        assert!(tight >= 18, "{tight}");
    }

    #[test]
    fn every_task_discordant_needs_no_factorial_past_n() {
        // A replay sizes its log-factorial table to the largest pair. With every task discordant the
        // J window reaches n, and a tiny pmf at the cut must not ask for ln((n + 1)!).
        let table = LnFactorial::new(400);
        let dist = exact_binary(400, 3, 397, &table);
        let fast = exact_binary_tails(400, 3, 397, &[0, 20, 40], &table);
        for (m, tails) in [0, 20, 40].into_iter().zip(fast) {
            assert!((tails.above - dist.tails(m).above).abs() < 1e-12, "m={m}");
        }
    }

    #[test]
    fn no_discordant_tasks_put_all_mass_on_zero() {
        let table = LnFactorial::new(10);
        let dist = exact_binary(10, 0, 0, &table);
        assert_eq!(
            dist.tails(0),
            Tails {
                at_most: 1.0,
                above: 0.0
            }
        );
        assert_eq!(
            dist.tails(-1),
            Tails {
                at_most: 0.0,
                above: 1.0
            }
        );
    }

    #[test]
    fn mc_tails_converge_to_exact_as_resamples_grow() {
        let table = LnFactorial::new(100);
        let values: Vec<i64> = (0..60).map(|i| [1, 0, -1, 1, 0, 0][i % 6]).collect();
        let counts = lattice(&values, 1);
        let exact = exact_binary(60, counts.counts[0], counts.counts[2], &table)
            .tails(3)
            .above;
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut errors = Vec::new();
        for resamples in [200, 5_000, 200_000] {
            let mc = mc_lattice(&counts, &[3], resamples, &mut next)[0].above;
            errors.push((mc - exact).abs());
            let sd = (exact * (1.0 - exact) / f64::from(resamples)).sqrt();
            assert!(
                (mc - exact).abs() < 5.0 * sd + 1e-12,
                "B={resamples}: {mc} vs {exact}"
            );
        }
        assert!(errors[2] < 0.005);
    }

    #[test]
    fn mc_values_matches_exact_on_lattice_values() {
        let values = [0.5, -0.5, 1.0, 0.0, 0.5, -1.0, 0.5, 0.0];
        let ints: Vec<i64> = values.iter().map(|v| (v * 2.0) as i64).collect();
        let exact = exact_lattice(&lattice(&ints, 2)).tails(2).above; // mean > 2/(8·2) = 0.125
        let mut state = 99u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mc = mc_values(&values, &[0.125 + 1e-9], 100_000, &mut next)[0].above;
        assert!((mc - exact).abs() < 0.01, "{mc} vs {exact}");
    }
}
