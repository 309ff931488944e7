//! The sequential statistic an anytime decision reads along an order: SPEC §9's wealths for a uniform
//! (or any non-stratified) order, §9a's stratified test for a stratified one. One type for the walkers
//! (replay, decide, watch) so that each reads the construction its policy's order calls for.

use crate::engine::rules::anytime::{AnytimeState, Band, Bets};
use crate::engine::rules::decision::{Action, Reason, Statistic};
use crate::engine::rules::stratified::{Grid, StratifiedState};
use crate::engine::settings::{Construction, Threshold};

#[derive(Debug, Clone, PartialEq)]
pub enum Sequence {
    Uniform(AnytimeState),
    Stratified(StratifiedState),
}

impl Sequence {
    /// A new order of a pair: `sizes` are its local groups' task counts (their sum is N) and `scale`
    /// the lattice of its outcomes; `spare` lends the buffers of an earlier order.
    pub fn start(
        construction: Construction,
        sizes: &[u32],
        scale: Option<u32>,
        thresholds: &[Threshold],
        spare: Option<Sequence>,
    ) -> Sequence {
        let nulls: Vec<f64> = thresholds.iter().map(|t| t.delta()).collect();
        Sequence::start_nulls(construction, sizes, scale, &nulls, spare)
    }

    /// [`Sequence::start`] with one pair of tests per null value μ of Δ (any value in [−1, 1]; a band
    /// tests a whole grid of them).
    pub fn start_nulls(
        construction: Construction,
        sizes: &[u32],
        scale: Option<u32>,
        nulls: &[f64],
        spare: Option<Sequence>,
    ) -> Sequence {
        let total: u32 = sizes.iter().sum();
        match construction {
            Construction::Stratified => {
                let mut state = match spare {
                    Some(Sequence::Stratified(state)) => state,
                    _ => StratifiedState::default(),
                };
                state.reset(sizes, Grid::for_scale(scale), nulls.iter().copied());
                Sequence::Stratified(state)
            }
            Construction::Uniform | Construction::Descriptive => {
                let mut state = match spare {
                    Some(Sequence::Uniform(state)) => state,
                    _ => AnytimeState::default(),
                };
                state.reset_nulls(total, nulls.iter().copied());
                Sequence::Uniform(state)
            }
        }
    }

    /// The same sequence solved exactly at every look and going on past the decisions (§9a; §9's
    /// wealths are exact at every look and go on betting), for curves drawn along the order.
    pub fn traced(mut self) -> Sequence {
        match &mut self {
            // §9's wealths are exact at every look; a curve shows them going on past the crossing.
            Sequence::Uniform(state) => state.keep_betting_past_decisions(),
            Sequence::Stratified(state) => state.trace_every_look(),
        }
        self
    }

    /// The same sequence for a live run: §9's wealths go on betting after their tests crossed and
    /// §9a's tables go on after every threshold is decided, so that a decided threshold's statistic
    /// is read at the current look (the verdicts stay the first crossings).
    pub fn live(mut self) -> Sequence {
        match &mut self {
            Sequence::Uniform(state) => state.keep_betting_past_decisions(),
            Sequence::Stratified(state) => state.keep_tables_past_decisions(),
        }
        self
    }

    /// Tells a new order's §9a state the order ahead (see [`StratifiedState::foresee`]); the uniform
    /// rule has no use for it.
    pub fn foresee(
        &mut self,
        draws: impl Iterator<Item = (u32, f64)>,
        population: &[f64],
        bets: &Bets,
    ) {
        if let Sequence::Stratified(state) = self {
            state.foresee(draws, population, bets);
        }
    }

    /// Tells the state that no look after the `k`-th task can act on a verdict (see
    /// [`AnytimeState::bet_only_to`]). §9a's state ignores it: its stratified orders meet the gate at
    /// almost every prefix, so there is nothing to save.
    pub fn bet_only_to(&mut self, k: u32) {
        if let Sequence::Uniform(state) = self {
            state.bet_only_to(k);
        }
    }

    /// The next difference D, of local group `group`.
    #[inline]
    pub fn observe(&mut self, d: f64, group: u32, bets: &Bets) {
        match self {
            Sequence::Uniform(state) => state.observe(d, bets),
            Sequence::Stratified(state) => state.observe(d, group, bets),
        }
    }

    /// The observed count up to which no verdict can change (the count now when nothing says so):
    /// a §9a replay's windows and certificates (see [`StratifiedState::quiet_until`]).
    pub fn quiet_until(&self) -> u32 {
        match self {
            Sequence::Uniform(state) => state.observed(),
            Sequence::Stratified(state) => state.quiet_until(),
        }
    }

    /// The differences D (with their local groups) of a stretch [`Sequence::quiet_until`] vouched
    /// for: no look is taken.
    pub fn observe_quiet_run(&mut self, tasks: impl Iterator<Item = (u32, f64)>, bets: &Bets) {
        match self {
            Sequence::Uniform(state) => tasks.for_each(|(_, d)| state.observe(d, bets)),
            Sequence::Stratified(state) => state.observe_quiet_run(tasks, bets),
        }
    }

    /// [`Sequence::observe`] for each of `tasks` (local group, D) in turn, in one loop.
    pub fn observe_run(&mut self, tasks: impl Iterator<Item = (u32, f64)>, bets: &Bets) {
        match self {
            Sequence::Uniform(state) => state.observe_run(tasks.map(|(_, d)| d), bets),
            Sequence::Stratified(state) => {
                tasks.for_each(|(group, d)| state.observe(d, group, bets))
            }
        }
    }

    pub fn verdict(&self, t: usize) -> (Action, Reason) {
        match self {
            Sequence::Uniform(state) => state.verdict(t),
            Sequence::Stratified(state) => state.verdict(t),
        }
    }

    /// The completed decision of threshold `t` when the observed outcomes settle it.
    pub fn certain(&self, t: usize) -> Option<Action> {
        match self {
            Sequence::Uniform(state) => state.certain(t),
            Sequence::Stratified(state) => state.certain(t),
        }
    }

    pub fn any_final(&self) -> bool {
        match self {
            Sequence::Uniform(state) => state.any_final(),
            Sequence::Stratified(state) => state.any_final(),
        }
    }

    pub fn observed(&self) -> u32 {
        match self {
            Sequence::Uniform(state) => state.observed(),
            Sequence::Stratified(state) => state.observed(),
        }
    }

    pub fn estimate(&self) -> f64 {
        match self {
            Sequence::Uniform(state) => state.estimate(),
            Sequence::Stratified(state) => state.estimate(),
        }
    }

    /// The statistic as the walk kept it: §9a's Λ may be the screen's upper bound (below ln(1/a))
    /// where a look skipped the repair; the p-values are exact whenever they are ≤ a.
    pub fn statistic_as_kept(&self, t: usize) -> Statistic {
        match self {
            Sequence::Stratified(state) => stratified_statistic(state.log_wealths_as_kept(t)),
            Sequence::Uniform(_) => self.statistic(t),
        }
    }

    /// The statistic of threshold `t` for records: both wealths (or Λ) with their anytime p-values.
    pub fn statistic(&self, t: usize) -> Statistic {
        match self {
            Sequence::Uniform(state) => {
                let w = state.wealths(t);
                Statistic::Anytime {
                    wealth_promote: w.promote,
                    wealth_reject: w.reject,
                    p_promote: w.p_promote,
                    p_reject: w.p_reject,
                }
            }
            Sequence::Stratified(state) => stratified_statistic(state.log_wealths(t)),
        }
    }
}

/// §9a's Λ of both tests and their anytime p-values as a decision's statistic.
fn stratified_statistic(w: crate::engine::rules::stratified::LogWealths) -> Statistic {
    Statistic::Stratified {
        log_promote: w.promote,
        log_reject: w.reject,
        p_promote: w.p_promote,
        p_reject: w.p_reject,
    }
}

/// The anytime confidence band for Δ grown one task at a time (a live screen extends it as outcomes
/// arrive instead of recomputing it): tests on a grid of nulls `step` apart under the construction's
/// rule, and after each task the estimate and the bounds no null of which has been rejected yet,
/// narrowed by what the observed sum alone settles.
#[derive(Debug, Clone, PartialEq)]
pub struct BandTracker {
    state: Sequence,
    nulls: Vec<f64>,
    pub band: Band,
}

impl BandTracker {
    pub fn new(construction: Construction, sizes: &[u32], scale: Option<u32>, step: f64) -> Self {
        let steps = (2.0 / step).round() as usize;
        let nulls: Vec<f64> = (0..=steps).map(|i| -1.0 + i as f64 * step).collect();
        BandTracker {
            state: Sequence::start_nulls(construction, sizes, scale, &nulls, None),
            nulls,
            band: Band {
                estimate: Vec::new(),
                lower: Vec::new(),
                upper: Vec::new(),
            },
        }
    }

    /// The next difference D, of local group `group`.
    pub fn observe(&mut self, d: f64, group: u32, bets: &Bets) {
        self.state.observe(d, group, bets);
        let (estimate, lower, upper) = match &self.state {
            Sequence::Uniform(state) => state.band_point(&self.nulls),
            Sequence::Stratified(state) => state.band_point(&self.nulls),
        };
        self.band.estimate.push(estimate);
        self.band.lower.push(lower);
        self.band.upper.push(upper);
    }
}

/// §9's anytime confidence band for Δ along a uniform order: after each observed task, the estimate and
/// the bounds no null of which (on a grid `step` apart) the tests have rejected yet, narrowed by what
/// the observed sum alone settles. Promote at δ happens when the lower bound passes δ, reject when the
/// upper bound falls to it.
pub fn confidence_band(diffs: &[f64], total: u32, bets: &Bets, step: f64) -> Band {
    let mut tracker = BandTracker::new(Construction::Uniform, &[total], None, step);
    for &d in diffs {
        tracker.observe(d, 0, bets);
    }
    tracker.band
}

/// §9a's anytime confidence band for Δ along a stratified order (the §9 band's counterpart): after
/// each observed task, the estimate and the bounds no null of which (on a grid `step` apart) the tests
/// have rejected yet, narrowed by what the observed sum alone settles. `groups[i]` is the local group
/// of `diffs[i]`, `sizes` the groups' planned task counts.
pub fn stratified_band(
    diffs: &[f64],
    groups: &[u32],
    sizes: &[u32],
    scale: Option<u32>,
    bets: &Bets,
    step: f64,
) -> Band {
    let mut tracker = BandTracker::new(Construction::Stratified, sizes, scale, step);
    for (&d, &g) in diffs.iter().zip(groups) {
        tracker.observe(d, g, bets);
    }
    tracker.band
}
