//! The sequential statistic an anytime decision reads along an order: SPEC §9's wealths for a uniform
//! (or any non-stratified) order, §9a's stratified test for a stratified one. One type for the walkers
//! (replay, decide, watch) so that each reads the construction its policy's order calls for.

use super::anytime::{AnytimeState, Bets};
use super::decision::{Action, Reason};
use super::rules::Statistic;
use super::settings::{Construction, Threshold};
use super::stratified::{Grid, StratifiedState};

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
        let total: u32 = sizes.iter().sum();
        match construction {
            Construction::Stratified => {
                let mut state = match spare {
                    Some(Sequence::Stratified(state)) => state,
                    _ => StratifiedState::default(),
                };
                state.reset(
                    sizes,
                    Grid::for_scale(scale),
                    thresholds.iter().map(|t| t.delta()),
                );
                Sequence::Stratified(state)
            }
            Construction::Uniform | Construction::Descriptive => {
                let mut state = match spare {
                    Some(Sequence::Uniform(state)) => state,
                    _ => AnytimeState::default(),
                };
                state.reset(total, thresholds);
                Sequence::Uniform(state)
            }
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

    pub fn verdict(&self, t: usize) -> (Action, Reason) {
        match self {
            Sequence::Uniform(state) => state.verdict(t),
            Sequence::Stratified(state) => state.verdict(t),
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
            Sequence::Stratified(state) => {
                let w = state.log_wealths_as_kept(t);
                Statistic::Stratified {
                    log_promote: w.promote,
                    log_reject: w.reject,
                    p_promote: w.p_promote,
                    p_reject: w.p_reject,
                }
            }
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
            Sequence::Stratified(state) => {
                let w = state.log_wealths(t);
                Statistic::Stratified {
                    log_promote: w.promote,
                    log_reject: w.reject,
                    p_promote: w.p_promote,
                    p_reject: w.p_reject,
                }
            }
        }
    }
}
