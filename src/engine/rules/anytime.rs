//! The anytime-valid rule of SPEC §9: a betting confidence sequence for a finite population sampled
//! without replacement (Waudby-Smith & Ramdas). One promote wealth and one reject wealth per threshold,
//! updated once per observed task in O(1); bets use past outcomes only, so the wealth of a null that
//! holds is a nonnegative supermartingale and crosses 1/a with probability at most a (Ville), however
//! often it is looked at. The certainty shortcut decides as soon as the observed sum settles the
//! completed decision whatever the remaining tasks hold.

use serde::Serialize;

use crate::engine::rules::decision::{Action, Reason};
use crate::engine::settings::{EPSILON, Threshold};

/// The bets' fixed settings: the tail cutoff a and the cap c on each factor's loss.
#[derive(Debug, Clone, PartialEq)]
pub struct Bets {
    /// 1/a: the wealth at which a test rejects its null.
    pub barrier: f64,
    /// c: no factor falls below 1 − c.
    pub cap: f64,
    /// ln(1/a) of the policy's own a, kept when the bets are aimed at a family's stricter barrier: §9a
    /// screens out looks whose statistic is surely below it (no p-value above a matters).
    pub ln_screen: f64,
    /// §9a's clip of the bet scale, [c_min, c_max] (0.1 and 0.9 unless set).
    pub scale_min: f64,
    pub scale_max: f64,
    /// 2·ln(1/a) / ln(1 + i) for i = 1, 2, …: the variance-adaptive bet at the i-th task is
    /// sqrt(this / (1/4 + Σ (D_j − D̄_j)²)); tabled because a logarithm per task would cost as much as
    /// the rest of the update.
    adaptive: Vec<f64>,
    /// 1/k for k = 0, 1, …, max_n (1/0 unused): two divisions per task become multiplications.
    reciprocal: Vec<f64>,
}

impl Bets {
    /// Bets for orders of up to `max_n` tasks (longer ones compute the factor as they go).
    pub fn new(tail: f64, cap: f64, max_n: usize) -> Self {
        let two_ln_inv_a = 2.0 * (1.0 / tail).ln();
        Bets {
            barrier: 1.0 / tail,
            ln_screen: (1.0 / tail).ln(),
            cap,
            scale_min: 0.1,
            scale_max: 0.9,
            adaptive: (1..=max_n)
                .map(|i| adaptive_factor(two_ln_inv_a, i as f64))
                .collect(),
            reciprocal: (0..=max_n).map(|k| 1.0 / k as f64).collect(),
        }
    }

    /// The same bets aimed at a stricter barrier 1/`tail` (a family of K adjusted at a/K needs its
    /// wealths to reach K/a, so they keep betting until there rather than stopping at 1/a).
    pub fn aimed_at(&self, tail: f64) -> Bets {
        let mut aimed = Bets::new(tail, self.cap, self.reciprocal.len().saturating_sub(1))
            .with_scale(self.scale_min, self.scale_max);
        aimed.ln_screen = self.ln_screen;
        aimed
    }

    /// The same bets with §9a's bet scale clipped to [min, max].
    pub fn with_scale(mut self, min: f64, max: f64) -> Bets {
        self.scale_min = min;
        self.scale_max = max;
        self
    }

    fn reciprocal(&self, k: u32) -> f64 {
        match self.reciprocal.get(k as usize) {
            Some(&r) => r,
            None => 1.0 / f64::from(k),
        }
    }

    fn adaptive_at(&self, i: u32) -> f64 {
        match self.adaptive.get(i as usize - 1) {
            Some(&factor) => factor,
            None => adaptive_factor(2.0 * self.barrier.ln(), f64::from(i)),
        }
    }
}

fn adaptive_factor(two_ln_inv_a: f64, i: f64) -> f64 {
    two_ln_inv_a / i.ln_1p()
}

/// The statistic of an anytime decision, for records and the drill-down.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Wealths {
    /// K⁺_t, the wealth against H0: Δ ≤ δ, and K⁻_t, against H0: Δ > δ.
    pub promote: f64,
    pub reject: f64,
    /// Anytime p-values min(1, 1 / max_{s ≤ t} K_s).
    pub p_promote: f64,
    pub p_reject: f64,
}

/// One threshold's two tests along an order.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tests {
    /// N·δ, the null's total, and N·(δ + ε), which a completed sum must exceed to promote.
    null_total: f64,
    certain_above: f64,
    promote: f64,
    reject: f64,
    max_promote: f64,
    max_reject: f64,
    /// The observed count at which each wealth first reached 1/a.
    promote_crossed: Option<u32>,
    reject_crossed: Option<u32>,
}

/// The state of the rule along one order of one pair, for every threshold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnytimeState {
    total: u32,
    /// Observed tasks t, S_t, the running mean D̄_t and Σ_{j ≤ t} (D_j − D̄_j)².
    observed: u32,
    sum: f64,
    mean: f64,
    squares: f64,
    tests: Vec<Tests>,
    /// Tests that have not crossed yet.
    open: usize,
    /// The wealths take the tasks up to this observed count only (N unless a read-ahead says no look
    /// after it can use a verdict; see [`AnytimeState::bet_only_to`]).
    bets_end: u32,
    /// Whether a test's wealths go on after it crossed (a live run's records read them at the
    /// current look; a replay keeps each decision's own record and saves the bets).
    bets_past_decisions: bool,
}

impl AnytimeState {
    /// Starts a new order of a pair with `total` shared tasks (reusing the buffers).
    pub fn reset(&mut self, total: u32, thresholds: &[Threshold]) {
        self.reset_nulls(total, thresholds.iter().map(|t| t.delta()));
    }

    /// [`AnytimeState::reset`] with one pair of tests per null value μ (any value in [−1, 1], where
    /// thresholds are in (−1, 1)): the confidence band tests a whole grid of them.
    pub(crate) fn reset_nulls(&mut self, total: u32, nulls: impl Iterator<Item = f64>) {
        self.total = total;
        self.observed = 0;
        self.sum = 0.0;
        self.mean = 0.0;
        self.squares = 0.0;
        self.tests.clear();
        self.tests.extend(nulls.map(|delta| Tests {
            null_total: f64::from(total) * delta,
            certain_above: f64::from(total) * (delta + EPSILON),
            promote: 1.0,
            reject: 1.0,
            max_promote: 1.0,
            max_reject: 1.0,
            promote_crossed: None,
            reject_crossed: None,
        }));
        self.open = self.tests.len();
        self.bets_end = total;
        // A live run asks for its bets again after each start (`Sequence::live`).
        self.bets_past_decisions = false;
    }

    /// Lets the wealths stop after the `k`-th task: a caller that has read the order ahead and knows
    /// that no look after k can act on a verdict (the coverage gate is shut at every later prefix, and
    /// a shut gate abstains whatever the wealths say) saves their bets. The verdicts and wealths after
    /// k are then those at k; the running sum and the certainty shortcut stay exact.
    pub fn bet_only_to(&mut self, k: u32) {
        self.bets_end = k.min(self.total);
    }

    /// Keeps every wealth betting after its test crossed (a live run): the verdicts stay the first
    /// crossings, and the wealths and anytime p-values are those of the current look.
    pub fn keep_betting_past_decisions(&mut self) {
        self.bets_past_decisions = true;
    }

    pub fn observed(&self) -> u32 {
        self.observed
    }

    /// The bet size shared by both tests and every threshold at the next task i = t + 1: the
    /// variance-adaptive term sqrt(2·ln(1/a) / (σ̂²_{i−1} · i · ln(1 + i))), from D_1 … D_t only.
    fn adaptive_bet(&self, bets: &Bets) -> f64 {
        // σ̂²_{i−1} · i = 1/4 + Σ_{j<i} (D_j − D̄_j)², so λ = sqrt(2·ln(1/a) / (that · ln(1 + i))).
        (bets.adaptive_at(self.observed + 1) / (0.25 + self.squares)).sqrt()
    }

    /// Whether some threshold's verdict is promote or reject now (a look can keep a decision).
    pub fn any_final(&self) -> bool {
        self.open < self.tests.len() || (0..self.tests.len()).any(|t| self.verdict(t).0.is_final())
    }

    /// Observes the next difference D ∈ [−1, 1]: every wealth takes one factor whose bet was fixed
    /// before D was seen, then the running sums take D.
    #[inline]
    pub fn observe(&mut self, d: f64, bets: &Bets) {
        if self.observed >= self.total {
            return;
        }
        let next = self.observed + 1;
        let open = (self.open > 0 || self.bets_past_decisions) && self.observed < self.bets_end;
        if open {
            self.bet(d, bets);
        }
        self.observed = next;
        self.sum += d;
        // The spread feeds only the bets still made; once every test has crossed it is not needed.
        if open {
            let mean = self.sum * bets.reciprocal(next);
            self.mean = mean;
            self.squares += (d - mean) * (d - mean);
        }
    }

    /// [`AnytimeState::observe`] for each of `diffs` in turn. Once no test bets any more (all have
    /// crossed, or the bets were stopped) the rest only add to the running sum, kept in a register.
    pub fn observe_run(&mut self, diffs: impl Iterator<Item = f64>, bets: &Bets) {
        let mut diffs = diffs;
        while (self.open > 0 || self.bets_past_decisions) && self.observed < self.bets_end {
            match diffs.next() {
                Some(d) => self.observe(d, bets),
                None => return,
            }
        }
        let (mut observed, mut sum) = (self.observed, self.sum);
        for d in diffs.take((self.total - observed) as usize) {
            observed += 1;
            sum += d;
        }
        (self.observed, self.sum) = (observed, sum);
    }

    /// Multiplies the wealths of the tests still open by their factor for the next difference `d`.
    fn bet(&mut self, d: f64, bets: &Bets) {
        let adaptive = self.adaptive_bet(bets);
        // m_i(δ) = (N·δ − S_{i−1}) / (N − i + 1): the mean of the next difference under the null Δ = δ.
        let remaining = bets.reciprocal(self.total - self.observed);
        let next = self.observed + 1;
        // λ = min(adaptive, c / (1 ± m)), divided out only when the cap binds.
        let capped = |scale: f64| {
            if adaptive * scale <= bets.cap {
                adaptive
            } else {
                bets.cap / scale
            }
        };
        let past = self.bets_past_decisions;
        for test in &mut self.tests {
            // A test that has crossed keeps its verdict (the p-value is a running minimum), so its wealth
            // stays where it crossed and the work goes to the tests still open; a live run's go on
            // (their maxima too), without a second crossing.
            let crossed = test.promote_crossed.is_some() || test.reject_crossed.is_some();
            if crossed && !past {
                continue;
            }
            let m = (test.null_total - self.sum) * remaining;
            let (up, down) = if m.abs() >= 1.0 {
                (0.0, 0.0)
            } else {
                (capped(1.0 + m), capped(1.0 - m))
            };
            test.promote *= 1.0 + up * (d - m);
            test.reject *= 1.0 - down * (d - m);
            if test.promote > test.max_promote {
                test.max_promote = test.promote;
                if !crossed && test.promote >= bets.barrier {
                    test.promote_crossed = Some(next);
                    self.open -= 1;
                    if !past {
                        continue;
                    }
                }
            }
            if test.reject > test.max_reject {
                test.max_reject = test.reject;
                if !crossed && test.promote_crossed.is_none() && test.reject >= bets.barrier {
                    test.reject_crossed = Some(next);
                    self.open -= 1;
                }
            }
        }
    }

    /// The rule's verdict for threshold `t` on what has been observed: certain when the observed sum
    /// settles the completed decision, else a crossing of 1/a (the earlier one if both crossed), else
    /// abstain for want of evidence.
    pub fn verdict(&self, t: usize) -> (Action, Reason) {
        let test = &self.tests[t];
        let crossing = match (test.promote_crossed, test.reject_crossed) {
            (Some(up), Some(down)) if down < up => Some((Action::Reject, down)),
            (Some(up), _) => Some((Action::Promote, up)),
            (None, Some(down)) => Some((Action::Reject, down)),
            (None, None) => None,
        };
        verdict_of(crossing, self.certain(t), self.observed)
    }

    /// The completed decision of threshold `t` when the observed sum settles it whatever the unseen
    /// tasks hold.
    pub fn certain(&self, t: usize) -> Option<Action> {
        certain(
            (self.observed, self.total),
            self.sum,
            self.tests[t].certain_above,
        )
    }

    /// Both wealths of threshold `t` and their anytime p-values.
    pub fn wealths(&self, t: usize) -> Wealths {
        let test = &self.tests[t];
        Wealths {
            promote: test.promote,
            reject: test.reject,
            p_promote: (1.0 / test.max_promote).min(1.0),
            p_reject: (1.0 / test.max_reject).min(1.0),
        }
    }

    /// The running estimate S_t / t (0 before any task).
    pub fn estimate(&self) -> f64 {
        if self.observed == 0 {
            0.0
        } else {
            self.sum / f64::from(self.observed)
        }
    }
}

/// The anytime confidence band for Δ along an order: after each observed task t, the estimate S_t/t
/// and the bounds [lower, upper] no null of which the tests have rejected yet (on a grid of nulls
/// `step` apart), narrowed by what the observed sum alone settles. Promote at δ happens when the
/// lower bound passes δ, reject when the upper bound falls to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Band {
    pub estimate: Vec<f64>,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
}

impl Band {
    /// The first observed task (1-based) after which the band is empty (lower above upper), if it
    /// is: the tests crossed at some null that the tasks since, or the settled sum, contradict, so
    /// one of those crossings was a false decision (each has a chance of at most a). The band stays
    /// empty from there, since each bound only ever narrows.
    pub fn empty_since(&self) -> Option<usize> {
        self.lower
            .iter()
            .zip(&self.upper)
            .position(|(lo, hi)| lo > &(hi + 1e-12))
            .map(|t| t + 1)
    }

    /// What a chart title adds for a band that has gone empty (nothing otherwise).
    pub fn empty_note(&self) -> String {
        match self.empty_since() {
            Some(t) => format!(" · empty since task {t}: a crossing was false"),
            None => String::new(),
        }
    }

    /// Whether the band after the last observed task is empty.
    pub fn is_empty_now(&self) -> bool {
        matches!((self.lower.last(), self.upper.last()), (Some(lo), Some(hi)) if *lo > hi + 1e-12)
    }
}

impl AnytimeState {
    /// The band after the last observed task, for tests reset on the grid `nulls`: (estimate, lower,
    /// upper), narrowed by what the observed sum alone settles.
    pub(crate) fn band_point(&self, nulls: &[f64]) -> (f64, f64, f64) {
        let unseen = f64::from(self.total - self.observed);
        let n = f64::from(self.total.max(1));
        // Rejected "Δ ≤ μ" for every μ up to the largest crossed; rejected "Δ > μ" from the smallest.
        let lower = self
            .tests
            .iter()
            .zip(nulls)
            .filter(|(test, _)| test.promote_crossed.is_some())
            .map(|(_, &mu)| mu)
            .fold(-1.0, f64::max);
        let upper = self
            .tests
            .iter()
            .zip(nulls)
            .filter(|(test, _)| test.reject_crossed.is_some())
            .map(|(_, &mu)| mu)
            .fold(1.0, f64::min);
        (
            self.estimate(),
            lower.max((self.sum - unseen) / n),
            upper.min((self.sum + unseen) / n),
        )
    }
}

/// The completed decision when `observed` of `total` outcomes, summing to `sum`, settle it whatever
/// the unseen ones hold: (S_t ∓ (N − t)) / N against the threshold's edge, multiplied out
/// (`certain_above` = N·(δ + ε)). Shared by §9 and §9a.
pub(crate) fn certain(
    (observed, total): (u32, u32),
    sum: f64,
    certain_above: f64,
) -> Option<Action> {
    let unseen = f64::from(total - observed);
    if observed == 0 {
        None
    } else if sum - unseen > certain_above {
        Some(Action::Promote)
    } else if sum + unseen <= certain_above {
        Some(Action::Reject)
    } else {
        None
    }
}

/// An anytime rule's verdict from its first crossing (the action and the look) and what the observed
/// sums settle (`certain`), shared by §9 and §9a: certainty decides, unless a crossing at an earlier
/// look decided otherwise. The rule keeps its decision (SPEC §9): a run read on after it promoted (a
/// `decide` on the completed files, say) is still the run that promoted, and its records say what
/// the completed record says beside it (see `engine::live`). A crossing at this very look yields to
/// certainty, as it always has; without certainty the crossing decides, else the rule abstains.
pub(crate) fn verdict_of(
    crossing: Option<(Action, u32)>,
    certain: Option<Action>,
    observed: u32,
) -> (Action, Reason) {
    match (crossing, certain) {
        (Some((action, at)), Some(certain)) if action != certain && at < observed => {
            (action, Reason::Supported)
        }
        (_, Some(certain)) => (certain, Reason::Certain),
        (Some((action, _)), None) => (action, Reason::Supported),
        (None, None) => (Action::Abstain, Reason::Evidence),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::sequence::confidence_band;
    use crate::engine::streams::StreamKey;

    #[test]
    fn a_band_is_empty_from_the_task_its_bounds_cross() {
        let band = |lower: Vec<f64>, upper: Vec<f64>| Band {
            estimate: vec![0.0; lower.len()],
            lower,
            upper,
        };
        let crossed = band(vec![-1.0, -0.1, -0.1, -0.1], vec![1.0, 0.0, -0.121, -0.121]);
        assert_eq!(crossed.empty_since(), Some(3));
        assert!(crossed.is_empty_now());
        // Bounds that meet (the completed record settles Δ exactly) are not empty.
        let settled = band(vec![-1.0, -0.121], vec![1.0, -0.121]);
        assert_eq!(settled.empty_since(), None);
        assert!(!settled.is_empty_now());
        assert!(!band(Vec::new(), Vec::new()).is_empty_now());
    }

    fn run(diffs: &[f64], thresholds: &[Threshold], bets: &Bets) -> AnytimeState {
        let mut state = AnytimeState::default();
        state.reset(diffs.len() as u32, thresholds);
        for &d in diffs {
            state.observe(d, bets);
        }
        state
    }

    /// The factor a task multiplies the promote wealth by, given the tasks before it.
    fn promote_factor(past: &[f64], d: f64, total: u32, bets: &Bets) -> f64 {
        let mut state = AnytimeState::default();
        state.reset(total, &[Threshold(0)]);
        for &x in past {
            state.observe(x, bets);
        }
        let before = state.wealths(0).promote;
        state.observe(d, bets);
        state.wealths(0).promote / before
    }

    /// The wealths of threshold δ after each task, from SPEC §9's formulas alone (no state).
    fn wealths_by_the_formula(diffs: &[f64], delta: f64, bets: &Bets) -> Vec<(f64, f64)> {
        let total = diffs.len() as f64;
        let (mut sum, mut squares) = (0.0, 0.0);
        let (mut promote, mut reject) = (1.0, 1.0);
        let mut out = Vec::new();
        for (k, &d) in diffs.iter().enumerate() {
            let i = (k + 1) as f64;
            let adaptive = (2.0 * bets.barrier.ln() / ((0.25 + squares) * i.ln_1p())).sqrt();
            let m = (total * delta - sum) / (total - i + 1.0);
            let (up, down) = if m.abs() >= 1.0 {
                (0.0, 0.0)
            } else {
                (
                    adaptive.min(bets.cap / (1.0 + m)),
                    adaptive.min(bets.cap / (1.0 - m)),
                )
            };
            promote *= 1.0 + up * (d - m);
            reject *= 1.0 - down * (d - m);
            sum += d;
            let mean = sum / i;
            squares += (d - mean) * (d - mean);
            out.push((promote, reject));
        }
        out
    }

    #[test]
    fn a_live_run_reads_the_wealths_of_decided_thresholds_at_the_current_look() {
        // Strong pairs cross early; a live state's wealths go on as the formulas have them at every
        // look, its p-values are their running minima, and its verdicts are a replay's.
        let bets = Bets::new(0.05, 0.5, 1000);
        let thresholds = [Threshold(0), Threshold(500), Threshold(1000)];
        let mut rng = StreamKey::new(4, "live-wealths").rng();
        let mut past_crossing = 0;
        for case in 0..50 {
            let diffs: Vec<f64> = (0..120)
                .map(|_| [-1.0, 0.0, 0.0, 1.0, 1.0, 1.0][rng.below(6)])
                .collect();
            let mut live = AnytimeState::default();
            live.reset(diffs.len() as u32, &thresholds);
            live.keep_betting_past_decisions();
            let mut replay = AnytimeState::default();
            replay.reset(diffs.len() as u32, &thresholds);
            let formula: Vec<Vec<(f64, f64)>> = thresholds
                .iter()
                .map(|t| wealths_by_the_formula(&diffs, t.delta(), &bets))
                .collect();
            for (k, &d) in diffs.iter().enumerate() {
                live.observe(d, &bets);
                replay.observe(d, &bets);
                for (t, by_formula) in formula.iter().enumerate() {
                    assert_eq!(live.verdict(t), replay.verdict(t), "case {case} look {k}");
                    let w = live.wealths(t);
                    let (promote, reject) = by_formula[k];
                    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * y.abs().max(1.0);
                    assert!(
                        close(w.promote, promote) && close(w.reject, reject),
                        "case {case} look {k}"
                    );
                    let max = |side: fn(&(f64, f64)) -> f64| {
                        by_formula[..=k].iter().map(side).fold(1.0, f64::max)
                    };
                    assert!(
                        close(w.p_promote, 1.0 / max(|w| w.0)),
                        "case {case} look {k}"
                    );
                    assert!(
                        close(w.p_reject, 1.0 / max(|w| w.1)),
                        "case {case} look {k}"
                    );
                    past_crossing += usize::from(live.verdict(t).1 == Reason::Supported);
                }
            }
        }
        assert!(
            past_crossing > 1000,
            "{past_crossing} looks after a crossing"
        );
    }

    #[test]
    fn a_crossing_is_kept_when_later_outcomes_settle_the_record_the_other_way() {
        // The first 14 tasks all favour the tested system (its wealth crosses 1/a), the last 26 the
        // baseline: read to the end, the completed record is a reject, and the promote made on the
        // way is kept (SPEC §9: the decision is kept), a false promotion, not healed by certainty.
        let bets = Bets::new(0.05, 0.5, 1000);
        let diffs: Vec<f64> = (0..40).map(|i| if i < 14 { 1.0 } else { -1.0 }).collect();
        let mut state = AnytimeState::default();
        state.reset(diffs.len() as u32, &[Threshold(0)]);
        state.keep_betting_past_decisions();
        let mut crossed_at = None;
        for (k, &d) in diffs.iter().enumerate() {
            state.observe(d, &bets);
            if crossed_at.is_none() && state.verdict(0).0 == Action::Promote {
                crossed_at = Some(k + 1);
            }
        }
        assert!(crossed_at.is_some_and(|at| at <= 14), "{crossed_at:?}");
        assert_eq!(state.certain(0), Some(Action::Reject));
        assert_eq!(state.verdict(0), (Action::Promote, Reason::Supported));
        // Certainty reached before any crossing decides, as it always did.
        let mut settled = AnytimeState::default();
        settled.reset(4, &[Threshold(0)]);
        for d in [-1.0, -1.0, -1.0] {
            settled.observe(d, &bets);
        }
        assert_eq!(settled.verdict(0), (Action::Reject, Reason::Certain));
    }

    #[test]
    fn bets_are_fixed_before_the_outcome_they_bet_on() {
        // A predictable bet makes each factor affine in the new outcome: 1 + λ(D − m) with λ and m from
        // the past. A bet that used the current outcome (in σ̂² or in m) would bend this line.
        let bets = Bets::new(0.05, 0.5, 1000);
        let past = [1.0, 0.0, -1.0, 1.0, 1.0, 0.0];
        let f: Vec<f64> = [-1.0, 0.0, 1.0]
            .iter()
            .map(|&d| promote_factor(&past, d, 40, &bets))
            .collect();
        assert!(((f[2] - f[1]) - (f[1] - f[0])).abs() < 1e-12, "{f:?}");
        assert!(
            f[2] > f[1] && f[1] > f[0],
            "a promote bet is positive: {f:?}"
        );
        // The factor never falls below 1 − c.
        assert!(f[0] >= 1.0 - bets.cap - 1e-12);
    }

    #[test]
    fn the_first_bet_uses_the_prior_variance_only() {
        // i = 1: σ̂²_0 = 1/4, λ = min(c/(1+m), sqrt(2 ln 20 / (0.25 · ln 2))), m = (N·δ − 0)/N = δ.
        let bets = Bets::new(0.05, 0.5, 1000);
        let f = promote_factor(&[], 1.0, 10, &bets);
        let adaptive = (2.0 * 20f64.ln() / (0.25 * 2f64.ln())).sqrt();
        let lambda = adaptive.min(0.5 / (1.0 + 0.0));
        assert!((f - (1.0 + lambda * 1.0)).abs() < 1e-12, "{f}");
    }

    #[test]
    fn certainty_decides_once_the_rest_cannot_change_the_answer() {
        // N = 10, δ = 0: after 6 wins S = 6 > the 4 unseen tasks, so Δ_full > 0 for sure.
        let bets = Bets::new(0.05, 0.5, 1000);
        let mut state = AnytimeState::default();
        state.reset(10, &[Threshold(0)]);
        for _ in 0..5 {
            state.observe(1.0, &bets);
        }
        assert_ne!(state.verdict(0).1, Reason::Certain);
        state.observe(1.0, &bets);
        assert_eq!(state.verdict(0), (Action::Promote, Reason::Certain));
        // Five losses and five unseen at δ = 0: (−5 + 5)/10 = 0 ≤ δ, so reject is certain.
        let mut longer = AnytimeState::default();
        longer.reset(10, &[Threshold(0)]);
        for _ in 0..5 {
            longer.observe(-1.0, &bets);
        }
        assert_eq!(longer.verdict(0), (Action::Reject, Reason::Certain));
    }

    /// A population of N differences with Σ D = N·δ exactly (Δ_full = δ, so "promote" is always wrong).
    fn population_at(delta_units: i32, n: usize) -> Vec<f64> {
        // 60% ties, the rest split so that wins − losses = n·δ.
        let target = (n as i32 * delta_units) / 100;
        let discordant = (n as i32 * 2) / 5;
        let wins = (discordant + target) / 2;
        let losses = discordant - wins;
        let mut out = vec![0.0; n];
        for x in out.iter_mut().take(wins as usize) {
            *x = 1.0;
        }
        for x in out.iter_mut().skip(wins as usize).take(losses as usize) {
            *x = -1.0;
        }
        assert_eq!(wins - losses, target);
        out
    }

    #[test]
    fn a_true_null_is_crossed_in_at_most_about_a_of_uniform_orders() {
        // Δ_full = δ = 5 pp on 200 tasks: promote is wrong in every order. Ville bounds the share of orders
        // in which the promote wealth ever reaches 20 by a = 0.05, watched after every task.
        let bets = Bets::new(0.05, 0.5, 1000);
        let population = population_at(5, 200);
        let thresholds = [Threshold(500)];
        let orders = 2000;
        let mut crossed = 0;
        let mut diffs = population.clone();
        for r in 0..orders {
            diffs.copy_from_slice(&population);
            StreamKey::new(7, "anytime-validity")
                .u64(r)
                .rng()
                .shuffle(&mut diffs);
            let state = run(&diffs, &thresholds, &bets);
            if state.tests[0].promote_crossed.is_some() {
                crossed += 1;
            }
        }
        let share = f64::from(crossed) / f64::from(orders as u32);
        // a plus three Monte Carlo standard errors.
        let bound = 0.05 + 3.0 * (0.05f64 * 0.95 / f64::from(orders as u32)).sqrt();
        assert!(share <= bound, "ever crossed in {share} of orders");
    }

    #[test]
    fn the_band_holds_the_estimate_and_narrows_to_the_truth() {
        let bets = Bets::new(0.05, 0.5, 1000);
        let population = population_at(10, 300);
        let mut diffs = population.clone();
        StreamKey::new(5, "band").rng().shuffle(&mut diffs);
        let band = confidence_band(&diffs, 300, &bets, 0.005);
        assert_eq!(band.estimate.len(), 300);
        for t in 0..300 {
            assert!(band.lower[t] <= band.upper[t] + 1e-12, "t {t}");
        }
        // At the end every task is seen: the band is the completed difference itself.
        let truth = population.iter().sum::<f64>() / 300.0;
        assert!((band.lower[299] - truth).abs() < 1e-12 && (band.upper[299] - truth).abs() < 1e-12);
        // It only narrows, and the promote test at 0 crossing means the lower bound passed 0.
        assert!(band.lower.windows(2).all(|w| w[0] <= w[1] + 1e-12));
        assert!(band.upper.windows(2).all(|w| w[0] + 1e-12 >= w[1]));
        let mut state = AnytimeState::default();
        state.reset(300, &[Threshold(0)]);
        for (t, &d) in diffs.iter().enumerate() {
            state.observe(d, &bets);
            if state.tests[0].promote_crossed == Some(t as u32 + 1) {
                assert!(
                    band.lower[t] >= 0.0,
                    "crossed at {t} with lower {}",
                    band.lower[t]
                );
            }
        }
    }
}
