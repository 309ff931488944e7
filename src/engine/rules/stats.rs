//! Numeric kernels on plain numbers: log-factorials, binomial probability windows, the normal CDF and a
//! binomial sampler. No allocation beyond what a call returns; tolerances live here as named constants.

/// Probabilities smaller than this fraction of the largest term are dropped from a window: they cannot
/// move a tail probability by more than about 1e-16 in total.
pub const WINDOW_CUTOFF: f64 = 1e-19;

/// ln(k!) for k = 0..=n, built once per replay for the largest n it needs.
#[derive(Debug, Clone)]
pub struct LnFactorial {
    table: Vec<f64>,
    /// 1/k for k = 1..=n (index 0 holds 0), so hot loops multiply instead of divide.
    reciprocal: Vec<f64>,
}

impl LnFactorial {
    pub fn new(n: usize) -> Self {
        let mut table = Vec::with_capacity(n + 1);
        table.push(0.0);
        let mut sum = 0.0;
        for k in 1..=n {
            sum += (k as f64).ln();
            table.push(sum);
        }
        let reciprocal = (0..=n + 1)
            .map(|k| if k == 0 { 0.0 } else { 1.0 / k as f64 })
            .collect();
        LnFactorial { table, reciprocal }
    }

    /// 1/k for 1 ≤ k ≤ n + 1.
    pub fn reciprocal(&self, k: usize) -> f64 {
        self.reciprocal[k]
    }

    pub fn ln_choose(&self, n: usize, k: usize) -> f64 {
        self.table[n] - self.table[k] - self.table[n - k]
    }
}

/// The binomial(n, p) probabilities that matter: `probs[i]` is P(X = lo + i).
#[derive(Debug, Clone, PartialEq)]
pub struct BinomialWindow {
    pub lo: usize,
    pub probs: Vec<f64>,
}

/// Binomial probabilities around the mode, walking outward with the pmf ratio until terms fall below
/// [`WINDOW_CUTOFF`] of the mode's.
pub fn binomial_window(n: usize, p: f64, ln_fact: &LnFactorial) -> BinomialWindow {
    binomial_window_to(n, p, WINDOW_CUTOFF, ln_fact).0
}

/// [`binomial_window`] down to `cutoff` of the mode's term, with a bound on the probability left
/// outside the window. Past the mode each side's pmf ratios shrink, so the terms left out sum to at most
/// the first of them over (1 − the next ratio).
pub fn binomial_window_to(
    n: usize,
    p: f64,
    cutoff: f64,
    ln_fact: &LnFactorial,
) -> (BinomialWindow, f64) {
    if p <= 0.0 {
        let window = BinomialWindow {
            lo: 0,
            probs: vec![1.0],
        };
        return (window, 0.0);
    }
    if p >= 1.0 {
        let window = BinomialWindow {
            lo: n,
            probs: vec![1.0],
        };
        return (window, 0.0);
    }
    let mode = (((n + 1) as f64) * p).floor().min(n as f64) as usize;
    let ln_mode =
        ln_fact.ln_choose(n, mode) + mode as f64 * p.ln() + (n - mode) as f64 * (1.0 - p).ln();
    let peak = ln_mode.exp();
    let odds = p / (1.0 - p);
    let left_out = |term: f64, next_ratio: f64| {
        if next_ratio < 1.0 {
            term / (1.0 - next_ratio)
        } else {
            f64::INFINITY
        }
    };
    // Terms fall below `cutoff` of the mode's about √(2·ln(1/cutoff)) standard deviations out.
    let reach =
        ((2.0 * (1.0 / cutoff).ln()).sqrt() * (n as f64 * p * (1.0 - p)).sqrt()) as usize + 2;
    let mut outside = 0.0;
    // One buffer: the terms below the mode (pushed walking down, then reversed), the mode, the terms
    // above it.
    let mut probs = Vec::with_capacity(2 * reach.min(n) + 1);
    let mut term = peak;
    let mut k = mode;
    while k > 0 {
        term *= k as f64 / (n - k + 1) as f64 / odds;
        k -= 1;
        if term < peak * cutoff {
            outside += left_out(term, k as f64 / (n - k + 1) as f64 / odds);
            break;
        }
        probs.push(term);
    }
    let lo = mode - probs.len();
    probs.reverse();
    probs.push(peak);
    let mut term = peak;
    let mut k = mode;
    while k < n {
        term *= (n - k) as f64 / (k + 1) as f64 * odds;
        k += 1;
        if term < peak * cutoff {
            outside += left_out(term, (n - k) as f64 / (k + 1) as f64 * odds);
            break;
        }
        probs.push(term);
    }
    // The mode's value carries the rounding of ln-factorial sums (~1e-12 relative at n = 500); the window
    // holds all but ~1e-17 of the mass, so normalising removes that error.
    let total: f64 = probs.iter().sum();
    for p in &mut probs {
        *p /= total;
    }
    (BinomialWindow { lo, probs }, outside)
}

/// Standard normal CDF Φ(x), accurate to about 1e-15 (via the complementary error function).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// Uniform in [0, 1) from 53 random bits, the same on every platform.
pub fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A binomial(n, p) draw by inversion from the smaller side: exact, and O(n·min(p, 1−p)) steps,
/// which is cheap for the tens-to-hundreds of tasks a bootstrap resamples.
pub fn sample_binomial(n: u32, p: f64, mut next: impl FnMut() -> u64) -> u32 {
    if n == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    if p > 0.5 {
        return n - sample_binomial(n, 1.0 - p, next);
    }
    let q = 1.0 - p;
    let odds = p / q;
    let mut prob = q.powi(n as i32);
    if prob <= 0.0 {
        // n·p is so large that q^n underflows; sum Bernoulli draws instead (rare, still exact).
        return (0..n).filter(|_| unit(next()) < p).count() as u32;
    }
    let mut u = unit(next());
    let mut k = 0u32;
    while u >= prob && k < n {
        u -= prob;
        prob *= odds * f64::from(n - k) / f64::from(k + 1);
        k += 1;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_choose_matches_small_values() {
        let table = LnFactorial::new(20);
        assert!((table.ln_choose(10, 3).exp() - 120.0).abs() < 1e-9);
        assert!((table.ln_choose(20, 10).exp() - 184_756.0).abs() < 1e-6);
    }

    #[test]
    fn a_coarse_window_bounds_the_mass_it_leaves_out() {
        let table = LnFactorial::new(500);
        let pmf = |n: usize, p: f64, k: usize| {
            (table.ln_choose(n, k) + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp()
        };
        for &(n, p) in &[(10, 0.3), (60, 0.5), (250, 0.3), (500, 0.02), (500, 0.97)] {
            for cutoff in [1e-2, 1e-5, 1e-9] {
                let (window, outside) = binomial_window_to(n, p, cutoff, &table);
                let hi = window.lo + window.probs.len();
                let left_out: f64 = (0..window.lo).chain(hi..=n).map(|k| pmf(n, p, k)).sum();
                assert!(
                    left_out <= outside * (1.0 + 1e-9) && outside < 10.0 * cutoff,
                    "n={n} p={p} cutoff={cutoff}: {left_out} vs {outside}"
                );
            }
        }
    }

    #[test]
    fn binomial_window_sums_to_one_and_matches_the_pmf() {
        let table = LnFactorial::new(500);
        for &(n, p) in &[(1, 0.5), (10, 0.3), (100, 0.01), (500, 0.37), (500, 0.999)] {
            let window = binomial_window(n, p, &table);
            let total: f64 = window.probs.iter().sum();
            assert!((total - 1.0).abs() < 1e-12, "n={n} p={p} total={total}");
            let k = window.lo + window.probs.len() / 2;
            let direct =
                (table.ln_choose(n, k) + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp();
            assert!((window.probs[k - window.lo] - direct).abs() < 1e-10 * direct.max(1e-300));
        }
        assert_eq!(
            binomial_window(7, 0.0, &table),
            BinomialWindow {
                lo: 0,
                probs: vec![1.0]
            }
        );
        assert_eq!(
            binomial_window(7, 1.0, &table),
            BinomialWindow {
                lo: 7,
                probs: vec![1.0]
            }
        );
    }

    #[test]
    fn normal_cdf_reference_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-15);
        assert!((normal_cdf(1.959_963_984_540_054) - 0.975).abs() < 1e-12);
        assert!((normal_cdf(-1.644_853_626_951_472_2) - 0.05).abs() < 1e-12);
    }

    #[test]
    fn binomial_sampler_has_the_right_mean_and_variance() {
        let mut state = 12345u64;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        for &(n, p) in &[(50u32, 0.2), (200, 0.7), (500, 0.05)] {
            let draws: Vec<f64> = (0..20_000)
                .map(|_| f64::from(sample_binomial(n, p, &mut next)))
                .collect();
            let mean = draws.iter().sum::<f64>() / draws.len() as f64;
            let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64;
            let (m, v) = (f64::from(n) * p, f64::from(n) * p * (1.0 - p));
            assert!(
                (mean - m).abs() < 4.0 * (v / 20_000.0).sqrt(),
                "n={n} p={p} mean={mean}"
            );
            assert!((var / v - 1.0).abs() < 0.05, "n={n} p={p} var={var}");
        }
    }
}
