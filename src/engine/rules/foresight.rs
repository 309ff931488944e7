//! What a replay may use of an order it knows to the end: a certificate that one side of the §9a
//! tests (every promote test, or every reject test) stays below the screen from some look on, so
//! that side's tables and looks can stop there. Live readers never have it: they do not know the
//! rest of the run.
//!
//! The certificate is one point θ of group means, inside every box the rest of the order will give
//! (the box after the order's last draw lies inside each earlier one) and inside the null of the
//! side's leading test (Σ_g k_g at most its target). Λ_t is a minimum over that set, so
//! Λ_t ≤ U_t = Σ_g log K_g,t(θ_g) at every look, and U_t follows the order draw by draw with one
//! factor each, no table and no logarithm but at the rescalings. Where U_t stays below the screen
//! from look t₀ to the end, the leading test cannot cross there, and neither can any later test of
//! its side (their Λ is smaller, see `StratifiedState::lead`).
//!
//! The point is each group's mean over all its tasks (inside every box), raised toward the boxes'
//! tops to the null's edge. When the leading test's null holds, that is at or above the true group
//! means, where K is a test supermartingale (or falls faster) and rarely climbs: on SWE-bench
//! bash-only the certificate reached the end for 99.98% of such leaders. A leader whose null does
//! not hold is not tried: its null has no point near the truth, and points lowered below it
//! proportionally to their room passed 7% of the time, not worth the walk.

use crate::engine::rules::anytime::Bets;
use crate::engine::rules::grid::{Grid, bet_scales, running_spread};

/// A product of factors is folded into its logarithm once it leaves [1e-150, 1e150]: far inside
/// f64's range, and rare (a logarithm per fold).
const FOLD_ABOVE: f64 = 1e150;
const FOLD_BELOW: f64 = 1e-150;

/// U_t − U_s = Σ ln φ of a certificate's point along an order, walked one factor a draw against a
/// limit: kept as folded logarithms and a product, so it reaches the limit exactly when the product
/// reaches exp(limit − folded), with no logarithm but at a fold.
pub(crate) struct BoundWalk {
    folded: f64,
    product: f64,
    ceiling: f64,
    limit: f64,
}

impl BoundWalk {
    pub(crate) fn new(limit: f64) -> Self {
        BoundWalk {
            folded: 0.0,
            product: 1.0,
            ceiling: limit.exp(),
            limit,
        }
    }

    /// Takes one draw's factor; whether the sum has reached the limit. The comparison leaves room
    /// for the rounding of exp and of the products (far below the margin the limit already has).
    pub(crate) fn take(&mut self, factor: f64) -> bool {
        self.product *= factor;
        if !(FOLD_BELOW..=FOLD_ABOVE).contains(&self.product) {
            self.folded += self.product.ln();
            self.product = 1.0;
            self.ceiling = (self.limit - self.folded).exp();
        }
        self.product >= self.ceiling * (1.0 - 1e-9)
    }
}

/// A draw's factor at a grid point, as the tables take it: 1 − c + c·x·R·M / (k − M·S), where `gap`
/// is k − M·S, `left` is R and `xs` the draw's x on the test's side (1 − c for x = 0); None when the
/// point is not above M·S (it would lie outside the box after the draw).
pub(crate) fn draw_factor(c: f64, xs: f64, left: f64, m: f64, gap: f64) -> Option<f64> {
    if xs <= 0.0 {
        Some(1.0 - c)
    } else if gap <= 0.0 {
        None
    } else {
        Some(1.0 - c + c * xs * left * m / gap)
    }
}

/// The rest of an order of a pair, as a replay knows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Foresight {
    /// The order's draws from its first: local group and x = (D + 1)/2.
    draws: Vec<(u32, f64)>,
    /// Each draw's bet scales c of the promote and the reject test (SPEC §9a: its group's past).
    scales: Vec<[f64; 2]>,
    /// Per group: its task count and Σ x over all its tasks.
    sizes: Vec<u32>,
    population: Vec<f64>,
    /// Per group after the order's last draw: draws seen and Σ x.
    seen_at_end: Vec<u32>,
    sum_at_end: Vec<f64>,
    /// Scratch of one certificate: the point and the running statistics per group.
    point: Vec<u32>,
    room: Vec<u32>,
    run: Vec<Running>,
    /// Per side: the look from which its tests provably stay below the screen to the end of the
    /// order (its tables and looks stop there), and the leading test last tried for it.
    pub(crate) quiet_from: [Option<u32>; 2],
    pub(crate) tried: [Option<usize>; 2],
    /// How many thresholds were open at the last try (a try is due when one more is decided).
    pub(crate) open_at_try: usize,
}

/// A group's outcomes so far along a certificate's walk.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Running {
    seen: u32,
    /// Σ x' on the side's scale (x' = x promote, 1 − x reject).
    sum: f64,
    /// Running mean and Σ (x − mean)² on the promote scale, for the bet scale.
    mean: f64,
    squares: f64,
}

impl Foresight {
    /// Takes a new order: its draws (group, D) in order, and each group's Σ x over all the pair's
    /// tasks ([`population_sums`]).
    pub(crate) fn reset(
        &mut self,
        sizes: &[u32],
        draws: impl Iterator<Item = (u32, f64)>,
        population: &[f64],
        bets: &Bets,
    ) {
        let groups = sizes.len();
        self.quiet_from = [None; 2];
        self.tried = [None; 2];
        self.sizes.clear();
        self.sizes.extend_from_slice(sizes);
        self.population.clear();
        self.population.extend_from_slice(population);
        self.population.resize(groups, 0.0);
        self.draws.clear();
        self.seen_at_end.clear();
        self.seen_at_end.resize(groups, 0);
        self.sum_at_end.clear();
        self.sum_at_end.resize(groups, 0.0);
        self.scales.clear();
        self.run.clear();
        self.run.resize(groups, Running::default());
        for (g, d) in draws {
            let gi = g as usize;
            if gi >= groups {
                continue;
            }
            let x = promote_x(d);
            self.draws.push((g, x));
            self.seen_at_end[gi] += 1;
            self.sum_at_end[gi] += x;
            // The bet scales of the draw, from its group's past only (as the tables take them).
            let run = &mut self.run[gi];
            self.scales
                .push(bet_scales(run.seen, run.mean, run.squares, bets));
            run.seen += 1;
            running_spread(run.seen, &mut run.mean, &mut run.squares, x);
        }
    }

    /// Each draw's bet scales c (promote, reject), in the order's order.
    pub(crate) fn scales(&self) -> &[[f64; 2]] {
        &self.scales
    }

    /// Forgets the order (until the next [`Foresight::reset`]).
    pub(crate) fn clear(&mut self) {
        self.draws.clear();
        self.scales.clear();
        self.quiet_from = [None; 2];
        self.tried = [None; 2];
    }

    /// The order's draws from its first: local group and x = (D + 1)/2.
    pub(crate) fn draws(&self) -> &[(u32, f64)] {
        &self.draws
    }

    /// The number of draws the order holds.
    pub(crate) fn len(&self) -> u32 {
        self.draws.len() as u32
    }

    /// The first look (a count of observed draws, at least `from`) from which one side's leading
    /// test, whose null is Σ_g k_g ≤ `target` grid units, provably stays below `limit` to the end of
    /// the order; None when the certificate does not reach the end.
    pub(crate) fn certify(
        &mut self,
        reject: bool,
        target: f64,
        grid: Grid,
        limit: f64,
        from: u32,
    ) -> Option<u32> {
        if !grid.exact || !self.place(reject, target, grid) {
            return None;
        }
        let m = f64::from(grid.per_task);
        self.run.clear();
        self.run.resize(self.sizes.len(), Running::default());
        let mut walk = BoundWalk::new(limit);
        let mut last_high: Option<u32> = None;
        for (t, (&(g, x), scales)) in self.draws.iter().zip(&self.scales).enumerate() {
            let gi = g as usize;
            let run = &mut self.run[gi];
            let xs = if reject { 1.0 - x } else { x };
            // k lies in the box after the order's last draw, so k − M·S ≥ M·x > 0.
            let left = f64::from(self.sizes[gi] - run.seen);
            let gap = f64::from(self.point[gi]) - m * run.sum;
            let factor = draw_factor(scales[usize::from(reject)], xs, left, m, gap)?;
            run.seen += 1;
            run.sum += xs;
            let look = t as u32 + 1;
            if walk.take(factor) && look >= from {
                last_high = Some(look);
            }
        }
        match last_high {
            None => Some(from),
            Some(look) if look < self.len() => Some(look + 1),
            Some(_) => None,
        }
    }

    /// Places the certificate's point for one side: each group's mean over all its tasks, moved to
    /// the null's edge inside the box after the order's last draw. False when no point of that box
    /// lies in the null (the null cannot hold by then, so the test may cross).
    fn place(&mut self, reject: bool, target: f64, grid: Grid) -> bool {
        let m = f64::from(grid.per_task);
        self.point.clear();
        self.room.clear();
        let mut sum: i64 = 0;
        for g in 0..self.sizes.len() {
            let size = self.sizes[g];
            let (end, whole) = if reject {
                (
                    f64::from(self.seen_at_end[g]) - self.sum_at_end[g],
                    f64::from(size) - self.population[g],
                )
            } else {
                (self.sum_at_end[g], self.population[g])
            };
            let unseen = f64::from(size - self.seen_at_end[g]);
            let lo = grid_units(m * end);
            let hi = grid_units(m * (end + unseen)).min(grid.per_task * size);
            let k = grid_units(m * whole).clamp(lo, hi);
            self.point.push(k);
            self.room.push(hi - k);
            sum += i64::from(k);
        }
        // Σ_g k_g may be at most the target (a whole number of grid units below it, with room for
        // the target's own rounding).
        let cap = (target - 1e-9).floor() as i64;
        let shift = cap - sum;
        if shift < 0 {
            return false;
        }
        let total: u64 = self.room.iter().map(|&r| u64::from(r)).sum();
        let need = shift.unsigned_abs().min(total);
        if need == 0 {
            return true;
        }
        // Each group rises in proportion to its room, the remainder one unit at a time to the
        // groups with the most room left.
        let mut moved: u64 = 0;
        for g in 0..self.point.len() {
            let step = (u128::from(need) * u128::from(self.room[g]) / u128::from(total)) as u32;
            self.raise_point(g, step);
            moved += u64::from(step);
        }
        while moved < need {
            let Some(g) = (0..self.room.len())
                .filter(|&g| self.room[g] > 0)
                .max_by_key(|&g| (self.room[g], std::cmp::Reverse(g)))
            else {
                break;
            };
            self.raise_point(g, 1);
            moved += 1;
        }
        true
    }

    fn raise_point(&mut self, g: usize, step: u32) {
        self.point[g] += step;
        self.room[g] -= step;
    }
}

/// Each of `groups` local groups' Σ x over every task of a pair, `tasks` being (group, D) in the
/// pair's task order (a replay sums them once per pair, not once per order).
pub fn population_sums(tasks: impl Iterator<Item = (u32, f64)>, groups: usize, out: &mut Vec<f64>) {
    out.clear();
    out.resize(groups, 0.0);
    for (g, d) in tasks {
        if let Some(sum) = out.get_mut(g as usize) {
            *sum += promote_x(d);
        }
    }
}

/// x = (D + 1)/2 on [0, 1], as the tables take it.
fn promote_x(d: f64) -> f64 {
    ((d + 1.0) / 2.0).clamp(0.0, 1.0)
}

/// A sum of grid units as the whole number it is on an exact grid (rounded up past 1e-9 of
/// rounding, as the boxes are).
fn grid_units(v: f64) -> u32 {
    let v = v - 1e-9;
    if v <= 0.0 { 0 } else { v.ceil() as u32 }
}
