//! The grid of SPEC §9a's tables and the bets of its groups: what the stratified test's state and
//! the replay's certificate (`foresight`) both compute, so that both take each draw's factor alike.

use serde::Serialize;

use crate::engine::rules::anytime::Bets;

/// The largest lattice whose grid is exact: a finer one costs 2·L grid points per task and group.
pub const EXACT_LATTICE: u32 = 8;

/// The grid of one state: M grid points per task of a group (h_g = 1/(M·n_g)), and whether every
/// group mean the population can have lies on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Grid {
    pub per_task: u32,
    pub exact: bool,
}

impl Grid {
    /// The grid for outcomes on a lattice of `scale` (differences are multiples of 1/scale), or off any
    /// lattice (`None`).
    pub fn for_scale(scale: Option<u32>) -> Grid {
        match scale {
            Some(l) if l <= EXACT_LATTICE => Grid {
                per_task: 2 * l,
                exact: true,
            },
            _ => Grid {
                per_task: 2,
                exact: false,
            },
        }
    }

    /// In words, for records and headers.
    pub fn describe(&self) -> String {
        if self.exact {
            format!("exact grid h_g = 1/({}·n_g)", self.per_task)
        } else {
            format!(
                "grid h_g = 1/({}·n_g), slack Σ w_g·h_g (outcomes off a small lattice)",
                self.per_task
            )
        }
    }
}

/// The bet scale c of a group's next draw for one test (`reject`: on x' = 1 − x), from the running
/// mean and Σ (x − mean)² of its `seen` past outcomes x on the promote scale (SPEC §9a).
pub(crate) fn bet_scale(seen: u32, mean: f64, squares: f64, bets: &Bets, reject: bool) -> f64 {
    let (mean, sd) = match seen {
        0 => (0.5, 0.25),
        1 => (mean, 0.25),
        i => (mean, (squares / f64::from(i - 1)).sqrt()),
    };
    let mean = if reject { 1.0 - mean } else { mean };
    (mean - sd).clamp(bets.scale_min, bets.scale_max)
}

/// [`bet_scale`] of both tests at once (one square root): [promote, reject].
pub(crate) fn bet_scales(seen: u32, mean: f64, squares: f64, bets: &Bets) -> [f64; 2] {
    let (mean, sd) = match seen {
        0 => (0.5, 0.25),
        1 => (mean, 0.25),
        i => (mean, (squares / f64::from(i - 1)).sqrt()),
    };
    [
        (mean - sd).clamp(bets.scale_min, bets.scale_max),
        ((1.0 - mean) - sd).clamp(bets.scale_min, bets.scale_max),
    ]
}

/// Welford's update of a running mean and Σ (x − mean)² by the `seen`-th outcome x.
pub(crate) fn running_spread(seen: u32, mean: &mut f64, squares: &mut f64, x: f64) {
    let delta = x - *mean;
    *mean += delta / f64::from(seen);
    *squares += delta * (x - *mean);
}
