//! The anytime-valid rule under a stratified plan (SPEC §9a): a union–intersection test of per-group
//! without-replacement test supermartingales (Spertus, Sridhar & Stark 2024). Each group keeps, per test,
//! a table of log K_g(θ) on a grid of group means θ, updated for the grid points still inside the group's
//! box when one of its tasks arrives; a look minimises Σ_g log K_g(θ_g) over the allocations of the
//! threshold to the groups (Σ_g w_g θ_g = ℓ) by the greedy of the SPEC, repaired from the previous
//! look's minimiser rather than solved afresh (one group's table changes per task). The tables do not
//! depend on the threshold, so one pair of tables serves every threshold and every null of a band.
//!
//! Binary pairs (and pairs on a lattice of L ≤ [`EXACT_LATTICE`]) use the exact grid h_g = 1/(2·L·n_g) of
//! the group means the population can have, so the true means lie on it and no slack is needed; other
//! pairs use h_g = 1/(2·n_g) and the SPEC's slack Σ_g w_g h_g.

use std::cell::Cell;
use std::sync::Arc;

use serde::Serialize;

use crate::engine::rules::anytime::{Bets, certain, verdict_of};
use crate::engine::rules::decision::{Action, Reason};
use crate::engine::rules::foresight::{BoundWalk, Foresight, draw_factor};
use crate::engine::settings::EPSILON;

pub use crate::engine::rules::grid::{EXACT_LATTICE, Grid};
use crate::engine::rules::grid::{bet_scale, running_spread};

/// A sum of grid units rounded up to the grid, never below 0: exact on a lattice, where the sums are
/// whole numbers, and 1e-9 absorbs the sums' rounding off it. Written with a truncation, which is
/// the same as `(v − 1e-9).ceil().max(0.0) as u32` and, on the baseline x86-64 target, a few
/// instructions instead of a library call (this runs twice per draw and test).
#[inline]
fn grid_ceil(v: f64) -> u32 {
    let v = v - 1e-9;
    if v <= 0.0 {
        return 0;
    }
    let t = v as u32;
    if f64::from(t) < v {
        t.saturating_add(1)
    } else {
        t
    }
}

/// The largest |ln| a table's pending product may reach before it is settled: e^±600 stays far
/// inside f64's range (about e^±709) with room for the rounding of hundreds of factors.
const PENDING_LN_ROOM: f64 = 600.0;

/// The most draws a pending product holds whatever the bound says (a long run of unsettled draws
/// would only delay the logarithms, not save them).
const PENDING_MOST: u32 = 256;

/// How many draws of a group may multiply into a table's pending products before they are settled
/// into its logarithms. On an exact grid a factor 1 − c + c·x·R·M/j (x > 0, so j ≥ M·x ≥ 1 and
/// x ≥ 1/M) lies in [1/M, 1 + c_max·M·n_g], so that many factors keep the product within
/// e^±[`PENDING_LN_ROOM`] for a group of any size; off a lattice j can be tiny, so every draw is
/// settled at once.
fn pending_limit(grid: Grid, size: u32, bets: &Bets) -> u32 {
    if !grid.exact {
        return 1;
    }
    let m = f64::from(grid.per_task);
    let per_draw = (1.0 + bets.scale_max.max(0.0) * m * f64::from(size))
        .ln()
        .max(m.ln());
    if per_draw <= 0.0 {
        return PENDING_MOST;
    }
    ((PENDING_LN_ROOM / per_draw).floor() as u32).clamp(1, PENDING_MOST)
}

/// A look is skipped only when the screen's bound plus this share of (1 + |bound|) is below the
/// screen: the bound is a running sum that may stray from the exact Σ_g by rounding (about 1e-16
/// per look), and a skipped look must be one whose exact bound is below the screen.
const SCREEN_MARGIN: f64 = 1e-9;

/// A draw of a group as one test's table takes it: its factor at grid point k is
/// keep + a/(k − before) on an exact grid, and keep + a/(first + k − lo) off one (as the box after
/// the draw, [lo, …], was walked).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Draw {
    keep: f64,
    a: f64,
    before: u32,
    first: f64,
    lo: u32,
    /// Not a draw but the place where the group settled its pending products.
    settle: bool,
}

/// One test's log K_g(k·h_g) for k = 0 ..= M·n_g (valid inside the box only), kept as settled
/// logarithms plus the product of the factors since they were last settled, read lazily: a draw
/// only joins the table's log of draws, and a grid point takes the draws it has not seen yet when
/// it is read. Each point goes through the same products, in the same order, and the same
/// logarithms at the same draws ([`pending_limit`]) as if every draw had been multiplied into every
/// point of the box at once, so a value has the same bits either way; most points of a box are
/// never read, and a look reads a few.
#[derive(Debug, Clone, Default, PartialEq)]
struct Table {
    /// Per grid point: its settled logarithms, the product of the factors since, and how many of
    /// `draws` are in them (0: none, whatever the other two hold from an earlier order).
    logs: Vec<Cell<f64>>,
    pending: Vec<Cell<f64>>,
    /// ln of `pending`, computed once per read that brought a point up.
    tails: Vec<Cell<f64>>,
    applied: Vec<Cell<u32>>,
    draws: Vec<Draw>,
    /// Σ ln(1 − c) of the draws of x = 0, whose factor is the same at every θ: it shifts the table
    /// without changing its steps. Summed lazily too: `keeps` holds each such draw's 1 − c, and the
    /// first `kept` of them are in `offset` (in the draws' order, so the sum has the same bits).
    offset: Cell<f64>,
    keeps: Vec<f64>,
    kept: Cell<u32>,
}

impl Table {
    fn reset(&mut self, points: usize) {
        self.applied.clear();
        self.applied.resize(points, Cell::new(0));
        self.logs.resize(points, Cell::new(0.0));
        self.pending.resize(points, Cell::new(1.0));
        self.tails.resize(points, Cell::new(0.0));
        self.draws.clear();
        self.offset.set(0.0);
        self.keeps.clear();
        self.kept.set(0);
    }

    /// Σ ln(1 − c) of the draws of x = 0 so far.
    #[inline]
    fn offset(&self) -> f64 {
        let kept = self.kept.get() as usize;
        if kept == self.keeps.len() {
            return self.offset.get();
        }
        let mut offset = self.offset.get();
        for keep in &self.keeps[kept..] {
            offset += keep.ln();
        }
        self.offset.set(offset);
        self.kept.set(self.keeps.len() as u32);
        offset
    }

    /// log K_g at grid point k, after bringing the point up to the table's draws. The value is the
    /// settled part plus ln of the product since, as the eager tables computed it (a table whose
    /// group has just settled has a product of exactly 1 there, and ln 1 adds nothing); the
    /// logarithm of the product is kept with the point, so a point read again costs no logarithm.
    #[inline]
    fn value(&self, k: u32, exact: bool, reciprocals: &[f64]) -> f64 {
        let at = k as usize;
        let done = self.applied[at].get() as usize;
        let (log, tail) = if done == self.draws.len() {
            if done == 0 {
                (0.0, 0.0)
            } else {
                (self.logs[at].get(), self.tails[at].get())
            }
        } else {
            let (mut log, mut product) = if done == 0 {
                (0.0, 1.0)
            } else {
                (self.logs[at].get(), self.pending[at].get())
            };
            for draw in &self.draws[done..] {
                if draw.settle {
                    log += product.ln();
                    product = 1.0;
                    continue;
                }
                if exact {
                    // k lies in the box after the draw, so k − before ≥ M·x ≥ 1.
                    product *= draw.keep + draw.a * reciprocals[(k - draw.before) as usize];
                } else {
                    // Points the rounding kept just below the box would have m ≤ 0 (K = +∞
                    // there): a tiny positive j keeps them finite and lower than the truth.
                    let j = (draw.first + (f64::from(k) - f64::from(draw.lo))).max(1e-12);
                    product *= draw.keep + draw.a / j;
                }
            }
            let tail = product.ln();
            self.logs[at].set(log);
            self.pending[at].set(product);
            self.tails[at].set(tail);
            self.applied[at].set(self.draws.len() as u32);
            (log, tail)
        };
        (self.offset() + log) + tail
    }

    /// The group settled its pending products: a point takes the logarithm of its product when it
    /// reaches this place of the log (points may have read every draw already, so the place is an
    /// entry of its own). A second settle with no draw between would add ln 1 = 0, and is left out.
    fn settle(&mut self) {
        if self.draws.last().is_none_or(|last| !last.settle) {
            self.draws.push(Draw {
                settle: true,
                ..Draw::default()
            });
        }
    }
}

/// The box [k_lo, k_hi] of grid indices of one test (`reject`: on x' = 1 − x) of a group of `size`
/// tasks after `seen` of them, whose x sum to `sum_units`/M.
fn box_of(size: u32, seen: u32, sum_units: f64, grid: Grid, reject: bool) -> (u32, u32) {
    let m = f64::from(grid.per_task);
    let seen_units = if reject {
        m * f64::from(seen) - sum_units
    } else {
        sum_units
    };
    let unseen = m * f64::from(size - seen);
    (
        grid_ceil(seen_units),
        grid_ceil(seen_units + unseen).min(grid.per_task * size),
    )
}

/// One group's observed outcomes and its two tables.
#[derive(Debug, Clone, Default, PartialEq)]
struct Stratum {
    size: u32,
    seen: u32,
    /// M·Σ x of the promote test's x = (D + 1)/2 (the reject test's x' = 1 − x sums to M·seen − this).
    sum_units: f64,
    /// Running mean and Σ (x − mean)² of x (Welford), for the bet scale; not kept in an order whose
    /// bet scales a replay tabled ahead (nothing reads them then).
    mean: f64,
    squares: f64,
    /// The promote test's table ([0]) and the reject test's ([1]).
    tables: [Table; 2],
    /// Draws multiplied into the pending products since they were last settled, and how many may
    /// be (0 until the first draw of an order, which knows the bets).
    pending_draws: u32,
    pending_limit: u32,
    /// Whether the grid is exact, and 1/j for j = 0 ..= the group's grid (1/0 unused), shared by
    /// every group of the state and kept between orders.
    exact: bool,
    reciprocals: Arc<[f64]>,
}

impl Stratum {
    /// The box [k_lo, k_hi] of grid indices of one test (`reject`: on x' = 1 − x).
    fn bounds(&self, grid: Grid, reject: bool) -> (u32, u32) {
        box_of(self.size, self.seen, self.sum_units, grid, reject)
    }

    /// log K_g of one test at grid point k.
    #[inline]
    fn value(&self, side: usize, k: u32) -> f64 {
        self.tables[side].value(k, self.exact, &self.reciprocals)
    }

    /// The bet scale c of the next draw for one test, from the group's past only (SPEC §9a).
    fn bet_scale(&self, bets: &Bets, reject: bool) -> f64 {
        bet_scale(self.seen, self.mean, self.squares, bets, reject)
    }

    /// Takes the next outcome x (promote scale) into the tables of the sides in `live`, then into
    /// the sums.
    fn observe(
        &mut self,
        x: f64,
        grid: Grid,
        bets: &Bets,
        live: [bool; 2],
        scales: Option<&[f64; 2]>,
    ) {
        let m = f64::from(grid.per_task);
        // R = n_g − i + 1 with i = seen + 1: the draws left before this one, this one included.
        let left = f64::from(self.size - self.seen);
        let top = grid.per_task * self.size;
        let mut multiplied = false;
        for (side, &live) in live.iter().enumerate() {
            if !live {
                continue;
            }
            let reject = side == 1;
            let c = scales.map_or_else(|| self.bet_scale(bets, reject), |c| c[side]);
            let xi = if reject { 1.0 - x } else { x };
            let before = if reject {
                m * f64::from(self.seen) - self.sum_units
            } else {
                self.sum_units
            };
            let table = &mut self.tables[side];
            if xi <= 0.0 {
                // φ = 1 − c whatever θ (the bet c/m on an outcome of 0).
                table.keeps.push(1.0 - c);
                continue;
            }
            // The box after this draw (as `bounds` will compute it): the points outside it are never
            // read again. On an exact grid it is never empty and a factor needs none of it; off a
            // lattice the sums carry rounding, so one more point each side is kept.
            let mut lo = 0;
            if !grid.exact {
                let after = before + m * xi;
                lo = grid_ceil(after).saturating_sub(1);
                let hi = (grid_ceil(after + m * (left - 1.0)).min(top) + 1).min(top);
                if hi < lo {
                    continue;
                }
            }
            // φ = 1 − c + c·x/m with m = (k/M − S)/R: 1 − c + c·x·R·M / (k − M·S). On an exact
            // grid k − M·S runs over the whole numbers from M·x ≥ 1 and 1/j is tabled, so a point
            // costs a multiply-add and a product instead of a division (M·S is a whole number
            // there: adding ½ and truncating rounds it).
            table.draws.push(Draw {
                keep: 1.0 - c,
                a: c * xi * left * m,
                before: (before + 0.5) as u32,
                first: f64::from(lo) - before,
                lo,
                settle: false,
            });
            multiplied = true;
        }
        if multiplied {
            self.pending_draws += 1;
            if self.pending_limit == 0 {
                self.pending_limit = pending_limit(grid, self.size, bets);
            }
            if self.pending_draws >= self.pending_limit {
                for (table, _) in self.tables.iter_mut().zip(live).filter(|(_, live)| *live) {
                    table.settle();
                }
                self.pending_draws = 0;
            }
        }
        self.observe_sums(x, grid, scales.is_none());
    }

    /// Takes x into the sums only (and into the running spread when `spread`: the bet scales
    /// read it unless a replay tabled them for the whole order).
    fn observe_sums(&mut self, x: f64, grid: Grid, spread: bool) {
        self.seen += 1;
        self.sum_units += f64::from(grid.per_task) * x;
        if spread {
            running_spread(self.seen, &mut self.mean, &mut self.squares, x);
        }
    }
}

/// A group and the cost of a step in it.
type GroupCost = (usize, f64);

/// One test at one threshold (or null): its target and its current minimiser.
#[derive(Debug, Clone, Default, PartialEq)]
struct Test {
    /// (ℓ + slack)·M·N: the value Σ_g k_g must take (grid indices, each step of weight 1/(M·N)).
    target: f64,
    /// k_g of the current minimiser, and the group that takes the fractional last step.
    point: Vec<u32>,
    /// Σ_g k_g (so the steps taken from the tops are Σ_g hi_g minus this, without a pass).
    point_sum: u64,
    fractional: Option<(usize, f64)>,
    /// Per group at its point: log K_g there, the cost of the next step down (+∞ at the box's
    /// bottom) and of the last step taken (−∞ at its top). Only the observed group's table changes
    /// with a draw, so only its entries (and those of groups the repair moves) are recomputed.
    values: Vec<f64>,
    next: Vec<f64>,
    last: Vec<f64>,
    /// Σ_g values: exact after a repair, moved by each screened look's change since.
    value_sum: f64,
    /// Groups whose step costs are stale: a screened look updated their value only.
    dirty: Vec<bool>,
    /// Whether `lambda` is the minimum (else an upper bound below the screen, from a screened look).
    exact: bool,
    /// The test sat out looks behind a leader of its side (see [`StratifiedState::lead`]): its
    /// point and values are those of its last solve and are brought to the tables before the next.
    stale: bool,
    /// The test leads a side that sits out a replay's window: its point is the window's, with the
    /// values and costs of the look that opened it, when each group had seen `held_seen` tasks.
    held: bool,
    held_seen: Vec<u32>,
    lambda: f64,
    max_lambda: f64,
    crossed: Option<u32>,
}

/// One threshold's two tests.
#[derive(Debug, Clone, Default, PartialEq)]
struct Level {
    certain_above: f64,
    /// The observed sum settled the completed decision (certainty never comes undone).
    settled: bool,
    promote: Test,
    reject: Test,
}

impl Level {
    fn decided(&self) -> bool {
        self.settled || self.promote.crossed.is_some() || self.reject.crossed.is_some()
    }
}

/// The statistic of a §9a decision, for records and the drill-down.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LogWealths {
    /// Λ⁺_t and Λ⁻_t (ln of the least wealth over the null's allocations; −∞ when the null holds
    /// for sure, +∞ when it cannot hold).
    pub promote: f64,
    pub reject: f64,
    /// Anytime p-values min(1, exp(−max_{s ≤ t} Λ_s)).
    pub p_promote: f64,
    pub p_reject: f64,
}

/// The state of the §9a rule along one order of one pair, for every threshold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StratifiedState {
    total: u32,
    observed: u32,
    /// S_t of the differences D (for certainty and the estimate).
    sum: f64,
    grid: Option<Grid>,
    groups: Vec<Stratum>,
    /// Each group's box [k_lo, k_hi] for the promote test ([0]) and the reject test ([1]), and their
    /// sums over the groups: kept up to date as tasks arrive (only the observed group's box moves).
    boxes: [Vec<(u32, u32)>; 2],
    box_sums: [(u64, u64); 2],
    levels: Vec<Level>,
    /// The levels by their null δ, ascending: the order in which the promote tests are led (a test
    /// at a smaller δ has the larger Λ) and, reversed, the reject tests.
    by_null: Vec<usize>,
    /// Thresholds not decided yet.
    open: usize,
    /// 1/j for j = 0 ..= the largest group's grid (1/0 unused), kept between orders and lent to
    /// every group.
    reciprocals: Arc<[f64]>,
    /// Whether looks far below ln(1/a) may skip the repair (see [`Test::solve`]); off for traces,
    /// which show Λ itself at every look and go on past the decisions.
    screened: bool,
    /// Whether the tables go on taking draws after every threshold is decided, so that a decided
    /// threshold's Λ can be read at the current look ([`StratifiedState::log_wealths`]): a live run's
    /// records show Λ now. A replay keeps each decision's own record and stops there.
    tables_past_decisions: bool,
    /// The rest of the order, when a replay told it (see [`StratifiedState::foresee`]), and what
    /// it showed of each side.
    foresight: Option<Box<Foresight>>,
    /// Per side, the looks a replay certified ahead (see [`StratifiedState::open_window`]).
    windows: [Window; 2],
    window_scratch: Box<WindowScratch>,
    /// Per side, whether it sat out the last look (its open tests hold a bound below the screen).
    sitting: [bool; 2],
}

/// The first, the widest and the narrowest stretch of looks a window tries to certify, and how many
/// looks a side waits after a window that did not open (wider windows cost fewer openings and
/// leave the leader farther from its minimiser: 64 to 2,048 measured best on SWE-bench bash-only).
const WINDOW_FIRST: u32 = 64;
const WINDOW_WIDEST: u32 = 2048;
const WINDOW_NARROWEST: u32 = 16;
const WINDOW_BACKOFF: u32 = 16;

/// How far below the screen (in ln units) a leader's Λ must be for a window to open. With less room
/// the window's point reaches the screen within a few looks, and the repair after it (from the
/// window's point, kept in the horizon's boxes) costs more than the screened looks it saved: on
/// SWE-bench bash-only 4% less CPU at 0.5 to 1 than at 0, the same decisions (a window only
/// decides which looks sit out below the screen).
const WINDOW_ROOM: f64 = 0.75;

/// One side's window: its tests sit out the looks up to `until`, whose Λ a point bounds below the
/// screen; `width` is the stretch the next window tries.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Window {
    until: u32,
    width: u32,
    retry_at: u32,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            until: 0,
            width: WINDOW_FIRST,
            retry_at: 0,
        }
    }
}

/// A group's outcomes along a window's walk.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct WindowRun {
    seen: u32,
    sum_units: f64,
}

/// Buffers of a window: a copy of the leading test placed inside the boxes at the window's end,
/// those boxes, and the groups' outcomes now and at the end.
#[derive(Debug, Clone, Default, PartialEq)]
struct WindowScratch {
    test: Test,
    bounds: Vec<(u32, u32)>,
    runs: Vec<WindowRun>,
    ahead: Vec<WindowRun>,
}

impl StratifiedState {
    /// Starts a new order of a pair whose groups have `sizes` tasks, for one pair of tests per null
    /// value δ of the differences (reusing the buffers).
    pub fn reset(&mut self, sizes: &[u32], grid: Grid, nulls: impl Iterator<Item = f64>) {
        let total: u32 = sizes.iter().sum();
        self.total = total;
        self.observed = 0;
        self.sum = 0.0;
        self.grid = Some(grid);
        self.screened = true;
        // A live run asks for its tables again after each start (`Sequence::live`).
        self.tables_past_decisions = false;
        if let Some(foresight) = &mut self.foresight {
            foresight.clear();
        }
        self.windows = [Window::default(); 2];
        self.sitting = [false; 2];
        let points = grid.per_task as usize * sizes.iter().copied().max().unwrap_or(0) as usize + 2;
        if self.reciprocals.len() < points {
            self.reciprocals = (0..points).map(|j| 1.0 / j as f64).collect();
        }
        self.groups.resize_with(sizes.len(), Stratum::default);
        for (stratum, &size) in self.groups.iter_mut().zip(sizes) {
            let points = (grid.per_task * size + 1) as usize;
            stratum.size = size;
            stratum.seen = 0;
            stratum.sum_units = 0.0;
            stratum.mean = 0.0;
            stratum.squares = 0.0;
            for table in &mut stratum.tables {
                table.reset(points);
            }
            stratum.pending_draws = 0;
            stratum.pending_limit = 0;
            stratum.exact = grid.exact;
            if !Arc::ptr_eq(&stratum.reciprocals, &self.reciprocals) {
                stratum.reciprocals = Arc::clone(&self.reciprocals);
            }
        }
        for side in 0..2 {
            self.boxes[side].clear();
            self.boxes[side].extend(sizes.iter().map(|&size| (0, grid.per_task * size)));
            self.box_sums[side] = (0, u64::from(grid.per_task) * u64::from(total));
        }
        let mn = f64::from(grid.per_task) * f64::from(total);
        // Σ_g w_g·h_g = G/(M·N), i.e. G grid steps.
        let slack = if grid.exact {
            0.0
        } else {
            sizes.iter().filter(|&&s| s > 0).count() as f64
        };
        let n = f64::from(total);
        // The levels are reset in place: their tests' buffers are kept from the last order.
        let mut count = 0;
        for delta in nulls {
            if count == self.levels.len() {
                self.levels.push(Level::default());
            }
            let level = &mut self.levels[count];
            count += 1;
            // Promote: x = (D + 1)/2 at level (δ + 1)/2; reject: x' = (1 − D)/2 at level (1 − δ)/2.
            level.certain_above = n * (delta + EPSILON);
            level.settled = false;
            level.promote.target = (delta + 1.0) / 2.0 * mn + slack;
            level.reject.target = (1.0 - delta) / 2.0 * mn + slack;
            for test in [&mut level.promote, &mut level.reject] {
                test.start(sizes, grid, mn);
            }
        }
        self.levels.truncate(count);
        self.by_null.clear();
        self.by_null.extend(0..self.levels.len());
        let null_of = |level: &Level| level.certain_above;
        let levels = &self.levels;
        self.by_null
            .sort_by(|&a, &b| null_of(&levels[a]).total_cmp(&null_of(&levels[b])));
        self.open = self.levels.len();
    }

    pub fn observed(&self) -> u32 {
        self.observed
    }

    /// Tells a new order's state the whole order ahead (each draw's local group and difference D,
    /// in order) and every task of the pair: a side whose tests then provably stay below the screen
    /// from some look to the end stops its tables and looks there (see [`Foresight`]). The
    /// decisions are those of the state without it; the statistics kept for the silent side are
    /// bounds below the screen, so a caller that reads Λ or p-values at each look (records, families)
    /// must not use it. Only on exact grids, before the first draw, and not for traces.
    pub fn foresee(
        &mut self,
        draws: impl Iterator<Item = (u32, f64)>,
        population: &[f64],
        bets: &Bets,
    ) {
        let Some(grid) = self.grid else { return };
        if !grid.exact || !self.screened || self.observed > 0 {
            return;
        }
        let sizes: Vec<u32> = self.groups.iter().map(|s| s.size).collect();
        let foresight = self.foresight.get_or_insert_with(Box::default);
        foresight.reset(&sizes, draws, population, bets);
        self.try_both(bets);
    }

    /// Tries both sides' certificates, and notes how many thresholds were open then.
    fn try_both(&mut self, bets: &Bets) {
        for side in 0..2 {
            self.try_quiet(side, bets);
        }
        let open = self.open;
        if let Some(foresight) = self.foresight.as_deref_mut() {
            foresight.open_at_try = open;
        }
    }

    /// The open test that leads one side (see [`StratifiedState::lead`]).
    fn leader(&self, side: usize) -> Option<usize> {
        let open = |t: &usize| !self.levels[*t].decided();
        if side == 0 {
            self.by_null.iter().copied().find(open)
        } else {
            self.by_null.iter().rev().copied().find(open)
        }
    }

    /// The screen below which a look's bound skips the repair, less the margin a certificate keeps.
    fn quiet_limit(bets: &Bets) -> f64 {
        let screen = bets.ln_screen.min(bets.barrier.ln());
        screen - SCREEN_MARGIN * (1.0 + screen.abs())
    }

    /// Tries the certificate for one side's current leader, once per leader.
    fn try_quiet(&mut self, side: usize, bets: &Bets) {
        let Some(grid) = self.grid else { return };
        let leader = self.leader(side);
        let from = self.observed;
        let Some(foresight) = self.foresight.as_deref_mut() else {
            return;
        };
        let Some(leader) = leader else { return };
        if foresight.len() == 0
            || foresight.quiet_from[side].is_some()
            || foresight.tried[side] == Some(leader)
        {
            return;
        }
        foresight.tried[side] = Some(leader);
        let level = &self.levels[leader];
        let target = if side == 0 {
            level.promote.target
        } else {
            level.reject.target
        };
        foresight.quiet_from[side] =
            foresight.certify(side == 1, target, grid, Self::quiet_limit(bets), from);
    }

    /// Whether one side's tests still need their tables and looks at look `look`.
    fn side_live(&self, side: usize, look: u32) -> bool {
        self.foresight
            .as_ref()
            .and_then(|foresight| foresight.quiet_from[side])
            .is_none_or(|from| look < from)
    }

    /// Solves every look exactly and goes on past the decisions (a trace or a live curve shows Λ
    /// itself after every task); the decisions stay the first crossings.
    pub fn trace_every_look(&mut self) {
        self.screened = false;
    }

    /// Keeps the tables going after the decisions (a live run, whose records read Λ at the current
    /// look of thresholds decided earlier too).
    pub fn keep_tables_past_decisions(&mut self) {
        self.tables_past_decisions = true;
    }

    pub fn grid(&self) -> Option<Grid> {
        self.grid
    }

    /// Observes the next difference D ∈ [−1, 1] of local group `group`: the group's tables take it,
    /// then every open threshold's minimisers are repaired and their Λ compared with ln(1/a).
    pub fn observe(&mut self, d: f64, group: u32, bets: &Bets) {
        let Some(grid) = self.grid else { return };
        let g = group as usize;
        if !self.takes(g) {
            return;
        }
        // A trace (unscreened) keeps every table going after the decisions, and so does a live run.
        let open = self.open > 0 || !self.screened;
        self.take(d, g, grid, bets, open || self.tables_past_decisions);
        if !open {
            return;
        }
        let barrier = bets.barrier.ln();
        let screen = if self.screened {
            bets.ln_screen.min(barrier)
        } else {
            f64::NEG_INFINITY
        };
        let next = self.observed;
        let unseen = f64::from(self.total - self.observed);
        let trace = !self.screened;
        if trace {
            self.trace_look(g, next, unseen, barrier);
            return;
        }
        // Certainty first: it reads the sums only, and a settled threshold's tests stop.
        for level in &mut self.levels {
            if !level.decided()
                && (self.sum - unseen > level.certain_above
                    || self.sum + unseen <= level.certain_above)
            {
                level.settled = true;
                self.open -= 1;
            }
        }
        // A side's leader changes only when a threshold is decided: then its certificate is tried.
        if self
            .foresight
            .as_ref()
            .is_some_and(|foresight| foresight.open_at_try != self.open)
        {
            self.try_both(bets);
        }
        for side in 0..2 {
            if !self.side_live(side, next) || self.windows[side].until >= next {
                // A side that sat out the last look too has its tests' bounds set already.
                if !self.sitting[side] {
                    self.silence(side, bets);
                    self.sitting[side] = true;
                }
            } else {
                self.sitting[side] = false;
                self.lead(side, g, screen);
                self.open_window(side, bets);
            }
        }
        if self.sitting[0] && self.sitting[1] {
            // Every open test's Λ is a bound below the screen: no crossing at this look.
            return;
        }
        for level in &mut self.levels {
            if level.decided() {
                continue;
            }
            // A crossing decides the threshold (promote first when both cross at one look, as the
            // uniform rule keeps the earlier, and at one look the promote side is read first).
            if level.promote.lambda >= barrier {
                level.promote.crossed = Some(next);
            } else if level.reject.lambda >= barrier {
                level.reject.crossed = Some(next);
            }
            if level.decided() {
                self.open -= 1;
            }
        }
    }

    /// The observed count up to which no verdict can change, in a replay that reads its order ahead:
    /// every side of an open threshold sits out the looks until then (a certificate to the end of
    /// the order, or a window), and the observed sum cannot settle any open threshold by then (it
    /// moves by at most 1 a task, and the unseen count by 1). The count now when nothing is known.
    pub fn quiet_until(&self) -> u32 {
        let now = self.observed;
        if !self.screened || self.open == 0 || self.foresight.is_none() {
            return now;
        }
        let mut until = self.total;
        for side in 0..2 {
            if self.side_live(side, now + 1) {
                until = until.min(self.windows[side].until.max(now));
            }
        }
        if until <= now {
            return now;
        }
        let unseen = f64::from(self.total - now);
        for level in &self.levels {
            if level.decided() {
                continue;
            }
            // After j more tasks, sum − unseen rises by at most 2j and sum + unseen falls by at
            // most 2j: certainty needs sum − unseen > the edge, or sum + unseen ≤ it. One task less
            // than the bounds allow keeps rounding out of it.
            let below = (level.certain_above - (self.sum - unseen)) / 2.0;
            let above = ((self.sum + unseen) - level.certain_above) / 2.0;
            let room = below.min(above).floor() - 1.0;
            if room < 1.0 {
                return now;
            }
            until = until.min(now.saturating_add(room.min(f64::from(self.total)) as u32));
        }
        until
    }

    /// Takes the differences D (with their local groups) of a stretch that
    /// [`StratifiedState::quiet_until`] vouched for: the groups' tables and the sums only, no look
    /// (the sides sit out, and nothing settles). No look reads the boxes inside the stretch, so the
    /// boxes of the groups that took tasks are brought up once at its end.
    pub fn observe_quiet_run(&mut self, tasks: impl Iterator<Item = (u32, f64)>, bets: &Bets) {
        let Some(grid) = self.grid else { return };
        for side in 0..2 {
            if !self.sitting[side] {
                self.silence(side, bets);
                self.sitting[side] = true;
            }
        }
        // Groups that took a task: a bit each (all of them past 64 groups).
        let mut touched = 0u64;
        for (group, d) in tasks {
            let g = group as usize;
            if !self.takes(g) {
                continue;
            }
            self.take_without_boxes(d, g, grid, bets, true);
            touched |= 1u64.checked_shl(group).unwrap_or(u64::MAX);
        }
        for g in 0..self.groups.len() {
            if touched & 1u64.checked_shl(g as u32).unwrap_or(u64::MAX) != 0 {
                self.update_boxes(g, grid);
            }
        }
    }

    /// Whether a task of local group `g` can be taken (the order and the group have room for it).
    fn takes(&self, g: usize) -> bool {
        self.observed < self.total && self.groups.get(g).is_some_and(|s| s.seen < s.size)
    }

    /// Takes D of local group `g` into the group's tables (those of the sides still live, when
    /// `tables` and a side is) and its sums, the boxes and the observed sum.
    fn take(&mut self, d: f64, g: usize, grid: Grid, bets: &Bets, tables: bool) {
        self.take_without_boxes(d, g, grid, bets, tables);
        self.update_boxes(g, grid);
    }

    /// Brings group g's boxes (both tests) and their sums up to its outcomes.
    #[inline]
    fn update_boxes(&mut self, g: usize, grid: Grid) {
        let stratum = &self.groups[g];
        for side in 0..2 {
            let (lo, hi) = stratum.bounds(grid, side == 1);
            let (old_lo, old_hi) = self.boxes[side][g];
            let sums = &mut self.box_sums[side];
            sums.0 = sums.0 + u64::from(lo) - u64::from(old_lo);
            sums.1 = sums.1 + u64::from(hi) - u64::from(old_hi);
            self.boxes[side][g] = (lo, hi);
        }
    }

    /// [`StratifiedState::take`] but for the boxes, which the caller brings up.
    #[inline]
    fn take_without_boxes(&mut self, d: f64, g: usize, grid: Grid, bets: &Bets, tables: bool) {
        let x = ((d + 1.0) / 2.0).clamp(0.0, 1.0);
        let look = self.observed + 1;
        let live = [self.side_live(0, look), self.side_live(1, look)];
        if tables && (live[0] || live[1]) {
            // A replay tabled the bet scales of its order's draws.
            let scales = self
                .foresight
                .as_deref()
                .and_then(|foresight| foresight.scales().get(self.observed as usize));
            self.groups[g].observe(x, grid, bets, live, scales);
        } else {
            // Every threshold is decided, or both sides sit out the rest of the order: only the sums
            // go on (for the estimate and certainty), and the spread unless the scales are tabled.
            let tabled = self
                .foresight
                .as_deref()
                .is_some_and(|foresight| foresight.len() > 0);
            self.groups[g].observe_sums(x, grid, !tabled);
        }
        self.observed += 1;
        self.sum += d;
    }

    /// One side's tests at a look, led by the open test most likely to cross. Λ of a promote test
    /// falls as δ rises (a larger δ allows more allocations to its null), and Λ of a reject test
    /// rises with δ, so once the leader (the smallest open δ for promote, the largest for reject)
    /// is below the screen, every later test of the side is too: those sit the look out with the
    /// leader's value as their bound, and are brought to the tables when they lead or follow a
    /// leader at the screen. A test that sits out misses only looks below ln(1/a), so its p-value
    /// is exact whenever it is ≤ a, as a screened look's is.
    fn lead(&mut self, side: usize, changed: usize, screen: f64) {
        let StratifiedState {
            groups,
            boxes,
            box_sums,
            levels,
            by_null,
            ..
        } = self;
        let mut quiet: Option<f64> = None;
        let count = by_null.len();
        for i in 0..count {
            let t = by_null[if side == 0 { i } else { count - 1 - i }];
            let level = &mut levels[t];
            if level.decided() {
                continue;
            }
            let test = if side == 0 {
                &mut level.promote
            } else {
                &mut level.reject
            };
            if let Some(bound) = quiet {
                test.lambda = bound;
                test.exact = false;
                test.stale = true;
                continue;
            }
            if test.held {
                test.release(groups, &boxes[side], side);
            } else if test.stale {
                test.resync(groups, &boxes[side], side);
            }
            test.lambda = test.solve(groups, &boxes[side], box_sums[side], side, changed, screen);
            // A screened look's bound is below ln(1/a): the p-value is exact whenever it is ≤ a.
            if test.exact && test.lambda > test.max_lambda {
                test.max_lambda = test.lambda;
            }
            if test.lambda + SCREEN_MARGIN * (1.0 + test.lambda.abs()) < screen {
                quiet = Some(test.lambda);
            }
        }
    }

    /// A replay's window for one side after a look that left its leader below the screen: the
    /// looks up to the window's end sit out when one point provably keeps Λ below the screen there.
    ///
    /// The point is the leader's point of this look clamped into the boxes at the horizon (this look
    /// plus the side's width) and taken down by whole steps, cheapest first, into its null
    /// ([`Test::place_inside`]): the boxes only shrink, so it lies in every box up to the horizon
    /// and in every open test's null of the side (see [`StratifiedState::lead`]), and
    /// Λ_t ≤ U_t = Σ_g log K_g,t(θ_g) there. U_t follows the order draw by draw with one factor each
    /// (as [`Foresight`]'s certificate does); the window ends before the first look where it
    /// reaches the screen. The side's tables take every draw meanwhile; the leader keeps the
    /// window's point and is brought back to the tables after the window ([`Test::release`]).
    fn open_window(&mut self, side: usize, bets: &Bets) {
        let Some(grid) = self.grid else { return };
        let look = self.observed;
        let Some(foresight) = self.foresight.as_deref() else {
            return;
        };
        let last = foresight.len();
        let window = self.windows[side];
        if look < window.retry_at || look + 1 >= last {
            return;
        }
        let Some(leader) = self.leader(side) else {
            return;
        };
        let limit = Self::quiet_limit(bets);
        let reject = side == 1;
        let level = &self.levels[leader];
        let test = if reject {
            &level.reject
        } else {
            &level.promote
        };
        // A leader that sat out looks has no point to start from until it is brought back.
        if test.stale || test.lambda.is_nan() || test.lambda >= limit - WINDOW_ROOM {
            return;
        }
        let horizon = (look + window.width).min(last);
        let draws = &foresight.draws()[look as usize..horizon as usize];
        let scales = &foresight.scales()[look as usize..horizon as usize];
        let m = f64::from(grid.per_task);
        let WindowScratch {
            test: point,
            bounds,
            runs,
            ahead,
        } = &mut *self.window_scratch;
        // Each group's outcomes now, then at the horizon: its box there.
        runs.clear();
        runs.extend(self.groups.iter().map(|s| WindowRun {
            seen: s.seen,
            sum_units: s.sum_units,
        }));
        ahead.clone_from(runs);
        for &(g, x) in draws {
            let run = &mut ahead[g as usize];
            run.seen += 1;
            run.sum_units += m * x;
        }
        bounds.clear();
        bounds.extend(
            self.groups
                .iter()
                .zip(ahead.iter())
                .map(|(s, run)| box_of(s.size, run.seen, run.sum_units, grid, reject)),
        );
        point.copy_from(test);
        let start = point.place_inside(&self.groups, bounds, side);
        let opened = if start.is_nan() || start >= limit {
            look
        } else {
            walk_window(
                &point.point,
                &self.groups,
                runs,
                draws,
                scales,
                grid,
                reject,
                limit - start,
                look,
            )
        };
        if opened > look {
            // The leader takes the window's point: after the window only the groups that took
            // tasks meanwhile are read again.
            let level = &mut self.levels[leader];
            let test = if reject {
                &mut level.reject
            } else {
                &mut level.promote
            };
            std::mem::swap(test, point);
            test.held = true;
            test.held_seen.clear();
            test.held_seen.extend(self.groups.iter().map(|s| s.seen));
        }
        let window = &mut self.windows[side];
        if opened > look {
            window.until = opened;
        } else {
            window.retry_at = look + WINDOW_BACKOFF;
        }
        window.width = if opened == horizon {
            (window.width * 2).min(WINDOW_WIDEST)
        } else {
            (window.width / 2).max(WINDOW_NARROWEST)
        };
    }

    /// The open tests of a side that sits out the rest of the order: the certificate's limit bounds
    /// their Λ from above at every look left.
    fn silence(&mut self, side: usize, bets: &Bets) {
        let bound = Self::quiet_limit(bets);
        for level in &mut self.levels {
            if level.decided() {
                continue;
            }
            let test = if side == 0 {
                &mut level.promote
            } else {
                &mut level.reject
            };
            test.lambda = bound;
            test.exact = false;
            test.stale = true;
        }
    }

    /// A look of a trace: every test solved exactly at every look, going on past its decision (a
    /// trace shows Λ and the allocation as they go on; the decision itself stays the first one).
    fn trace_look(&mut self, g: usize, next: u32, unseen: f64, barrier: f64) {
        for level in &mut self.levels {
            let was_decided = level.decided();
            if !was_decided
                && (self.sum - unseen > level.certain_above
                    || self.sum + unseen <= level.certain_above)
            {
                level.settled = true;
                self.open -= 1;
            }
            for (side, test) in [&mut level.promote, &mut level.reject]
                .into_iter()
                .enumerate()
            {
                test.lambda = test.solve(
                    &self.groups,
                    &self.boxes[side],
                    self.box_sums[side],
                    side,
                    g,
                    f64::NEG_INFINITY,
                );
                if test.lambda > test.max_lambda {
                    test.max_lambda = test.lambda;
                }
            }
            if level.decided() {
                continue;
            }
            if level.promote.lambda >= barrier {
                level.promote.crossed = Some(next);
            } else if level.reject.lambda >= barrier {
                level.reject.crossed = Some(next);
            }
            if level.decided() {
                self.open -= 1;
            }
        }
    }

    /// Whether some threshold's verdict is promote or reject now.
    pub fn any_final(&self) -> bool {
        self.open < self.levels.len()
            || (0..self.levels.len()).any(|t| self.verdict(t).0.is_final())
    }

    /// The rule's verdict for threshold `t`: certain when the observed sum settles the completed
    /// decision, else a crossing of ln(1/a), else abstain for want of evidence.
    pub fn verdict(&self, t: usize) -> (Action, Reason) {
        let level = &self.levels[t];
        let crossing = match (level.promote.crossed, level.reject.crossed) {
            (Some(at), _) => Some((Action::Promote, at)),
            (None, Some(at)) => Some((Action::Reject, at)),
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
            self.levels[t].certain_above,
        )
    }

    /// Λ of both tests of threshold `t` and their anytime p-values.
    pub fn log_wealths(&self, t: usize) -> LogWealths {
        let level = &self.levels[t];
        let p = |max: f64| (-max).exp().min(1.0);
        // A screened look left an upper bound: the minimum itself is solved on a copy. A decided
        // threshold's tests stopped at its decision while the tables went on with the open ones, so
        // its copy is first brought to the tables and boxes as they are now. A replay's tables may
        // stop (a side certified quiet, every threshold decided), so there a test left exact at its
        // decision keeps that minimum; a live run's tables go on past the decisions, and its
        // decided tests are solved again for the current look.
        let stale = level.decided() && self.screened;
        let now = stale && self.tables_past_decisions;
        let exact = |side: usize, test: &Test| {
            if test.exact && !now {
                return test.lambda;
            }
            let mut copy = test.clone();
            if stale || test.stale {
                copy.resync(&self.groups, &self.boxes[side], side);
            }
            copy.solve(
                &self.groups,
                &self.boxes[side],
                self.box_sums[side],
                side,
                0,
                f64::NEG_INFINITY,
            )
        };
        let (promote, reject) = (exact(0, &level.promote), exact(1, &level.reject));
        // This look's own minimum counts for the running maximum too (screened looks did not add
        // theirs, which were below ln(1/a)).
        LogWealths {
            promote,
            reject,
            p_promote: p(level.promote.max_lambda.max(promote)),
            p_reject: p(level.reject.max_lambda.max(reject)),
        }
    }

    /// [`StratifiedState::log_wealths`] without solving screened looks: Λ may be an upper bound
    /// below ln(1/a) there.
    pub fn log_wealths_as_kept(&self, t: usize) -> LogWealths {
        let level = &self.levels[t];
        let p = |max: f64| (-max).exp().min(1.0);
        LogWealths {
            promote: level.promote.lambda,
            reject: level.reject.lambda,
            p_promote: p(level.promote.max_lambda),
            p_reject: p(level.reject.max_lambda),
        }
    }

    /// The least favourable allocation of threshold `t`'s promote (or reject) null to the groups, as
    /// each group's mean difference D̄_g (the minimiser of the last look; before any look, the start;
    /// NaN where Λ is ±∞, when the null holds or fails whatever the unseen tasks are).
    pub fn allocation(&self, t: usize, reject: bool) -> Vec<f64> {
        let Some(grid) = self.grid else {
            return Vec::new();
        };
        let level = &self.levels[t];
        let test = if reject {
            &level.reject
        } else {
            &level.promote
        };
        if !test.lambda.is_finite() {
            // The null holds, or cannot hold, whatever the unseen tasks are: no allocation to show.
            return vec![f64::NAN; self.groups.len()];
        }
        let m = f64::from(grid.per_task);
        self.groups
            .iter()
            .enumerate()
            .map(|(g, stratum)| {
                let mut k = f64::from(test.point.get(g).copied().unwrap_or(0));
                if let Some((fg, f)) = test.fractional
                    && fg == g
                {
                    k -= f;
                }
                let theta = k / (m * f64::from(stratum.size.max(1)));
                if reject {
                    1.0 - 2.0 * theta
                } else {
                    2.0 * theta - 1.0
                }
            })
            .collect()
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

impl StratifiedState {
    /// The band after the last observed task, for tests reset on the grid `nulls`: (estimate, lower,
    /// upper), narrowed by what the observed sum alone settles.
    pub(crate) fn band_point(&self, nulls: &[f64]) -> (f64, f64, f64) {
        let unseen = f64::from(self.total - self.observed);
        let n = f64::from(self.total.max(1));
        let lower = self
            .levels
            .iter()
            .zip(nulls)
            .filter(|(level, _)| level.promote.crossed.is_some())
            .map(|(_, &mu)| mu)
            .fold(-1.0, f64::max);
        let upper = self
            .levels
            .iter()
            .zip(nulls)
            .filter(|(level, _)| level.reject.crossed.is_some())
            .map(|(_, &mu)| mu)
            .fold(1.0, f64::min);
        (
            self.estimate(),
            lower.max((self.sum - unseen) / n),
            upper.min((self.sum + unseen) / n),
        )
    }
}

/// The last look of a window (at least `look`): U_t − U_look = Σ ln φ of the draws after `look` at
/// the groups' grid points `point`, each factor as the tables take it, stays below `room` up to it.
/// `runs` holds each group's outcomes at `look` (walked on here).
#[allow(clippy::too_many_arguments)]
fn walk_window(
    point: &[u32],
    groups: &[Stratum],
    runs: &mut [WindowRun],
    draws: &[(u32, f64)],
    scales: &[[f64; 2]],
    grid: Grid,
    reject: bool,
    room: f64,
    look: u32,
) -> u32 {
    let m = f64::from(grid.per_task);
    let mut walk = BoundWalk::new(room);
    for (i, (&(g, x), scales)) in draws.iter().zip(scales).enumerate() {
        let gi = g as usize;
        let run = &mut runs[gi];
        let xs = if reject { 1.0 - x } else { x };
        let seen_units = if reject {
            m * f64::from(run.seen) - run.sum_units
        } else {
            run.sum_units
        };
        let left = f64::from(groups[gi].size - run.seen);
        // k lies in the box after the window's last draw, so k − M·S ≥ M·x > 0.
        let gap = f64::from(point[gi]) - seen_units;
        let Some(factor) = draw_factor(scales[usize::from(reject)], xs, left, m, gap) else {
            return look + i as u32;
        };
        run.seen += 1;
        run.sum_units += m * x;
        if walk.take(factor) {
            return look + i as u32;
        }
    }
    look + draws.len() as u32
}

/// Why a §9a pair stands where it does: Λ of both tests after each observed task against ln(1/a),
/// and at the last task the least favourable allocation of each null to the groups (as each group's
/// mean difference) beside what each group has shown, so the groups a decision hinges on can be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StratifiedTrace {
    pub ln_barrier: f64,
    pub grid: String,
    /// `lambda_promote[threshold][task]`, `lambda_reject[threshold][task]`.
    pub lambda_promote: Vec<Vec<f64>>,
    pub lambda_reject: Vec<Vec<f64>>,
    /// Per group (local order): its label, tasks seen and planned, and observed mean difference.
    pub groups: Vec<TraceGroup>,
    /// `allocation_promote[threshold][group]`: the group means D̄_g of the minimiser.
    pub allocation_promote: Vec<Vec<f64>>,
    pub allocation_reject: Vec<Vec<f64>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceGroup {
    pub group: String,
    pub seen: u32,
    pub size: u32,
    /// The observed mean difference (null before any task of the group).
    pub observed_mean: Option<f64>,
}

/// The trace of the §9a tests along `diffs` (local groups `groups`, group sizes `sizes`, labels
/// `labels`) for the null values `deltas`.
pub fn stratified_trace(
    diffs: &[f64],
    groups: &[u32],
    sizes: &[u32],
    labels: &[String],
    scale: Option<u32>,
    deltas: &[f64],
    bets: &Bets,
) -> StratifiedTrace {
    let grid = Grid::for_scale(scale);
    let mut state = StratifiedState::default();
    state.reset(sizes, grid, deltas.iter().copied());
    state.trace_every_look();
    let mut lambda_promote = vec![Vec::with_capacity(diffs.len()); deltas.len()];
    let mut lambda_reject = vec![Vec::with_capacity(diffs.len()); deltas.len()];
    for (&d, &g) in diffs.iter().zip(groups) {
        state.observe(d, g, bets);
        for t in 0..deltas.len() {
            let w = state.log_wealths(t);
            lambda_promote[t].push(w.promote);
            lambda_reject[t].push(w.reject);
        }
    }
    StratifiedTrace {
        ln_barrier: bets.barrier.ln(),
        grid: grid.describe(),
        lambda_promote,
        lambda_reject,
        groups: state
            .groups
            .iter()
            .enumerate()
            .map(|(g, s)| TraceGroup {
                group: labels.get(g).cloned().unwrap_or_default(),
                seen: s.seen,
                size: s.size,
                // x = (D + 1)/2, so D̄ = 2·x̄ − 1.
                observed_mean: (s.seen > 0).then_some(2.0 * s.mean - 1.0),
            })
            .collect(),
        allocation_promote: (0..deltas.len())
            .map(|t| state.allocation(t, false))
            .collect(),
        allocation_reject: (0..deltas.len())
            .map(|t| state.allocation(t, true))
            .collect(),
    }
}

impl Test {
    /// Becomes a copy of `other` in its own buffers (a derived `clone_from` allocates a new test).
    /// Written field by field from a full destructuring, so a new field cannot be forgotten.
    fn copy_from(&mut self, other: &Test) {
        let Test {
            target,
            point,
            point_sum,
            fractional,
            values,
            next,
            last,
            value_sum,
            dirty,
            exact,
            stale,
            held,
            held_seen,
            lambda,
            max_lambda,
            crossed,
        } = other;
        self.target = *target;
        self.point.clone_from(point);
        self.point_sum = *point_sum;
        self.fractional = *fractional;
        self.values.clone_from(values);
        self.next.clone_from(next);
        self.last.clone_from(last);
        self.value_sum = *value_sum;
        self.dirty.clone_from(dirty);
        self.exact = *exact;
        self.stale = *stale;
        self.held = *held;
        self.held_seen.clone_from(held_seen);
        self.lambda = *lambda;
        self.max_lambda = *max_lambda;
        self.crossed = *crossed;
    }

    /// The first minimiser: every group lowered from the top in proportion to its size (all tables
    /// are 0 before any task, so any split is a minimiser; later looks repair it).
    fn start(&mut self, sizes: &[u32], grid: Grid, mn: f64) {
        self.point.clear();
        self.point_sum = 0;
        self.value_sum = 0.0;
        self.values.clear();
        self.next.clear();
        self.last.clear();
        self.dirty.clear();
        self.dirty.resize(sizes.len(), false);
        self.exact = true;
        self.stale = false;
        self.held = false;
        let descent = (mn - self.target).max(0.0);
        let total: u32 = sizes.iter().sum();
        for &size in sizes {
            let top = grid.per_task * size;
            let share = (descent * f64::from(size) / f64::from(total.max(1))).floor();
            let k = top.saturating_sub(share as u32);
            self.point.push(k);
            self.point_sum += u64::from(k);
            self.values.push(0.0);
            self.next.push(if k > 0 { 0.0 } else { f64::INFINITY });
            self.last
                .push(if k < top { 0.0 } else { f64::NEG_INFINITY });
        }
        self.fractional = None;
        self.lambda = 0.0;
        self.max_lambda = 0.0;
        self.crossed = None;
    }

    /// Moves the test's point (values fresh, costs fresh unless marked dirty) to a grid point of its
    /// null inside the boxes `bounds` (inside the current ones): each group clamped into its box,
    /// then whole steps down, cheapest first, until Σ_g k_g is at most the target. Returns
    /// Σ_g log K_g there (+∞ when no such point is found).
    fn place_inside(&mut self, groups: &[Stratum], bounds: &[(u32, u32)], side: usize) -> f64 {
        for (g, (stratum, &(lo, hi))) in groups.iter().zip(bounds).enumerate() {
            let k = self.point[g];
            let clamped = k.clamp(lo, hi);
            if clamped != k {
                self.point[g] = clamped;
                self.values[g] = stratum.value(side, clamped);
                self.dirty[g] = true;
            }
            let k = self.point[g];
            self.next[g] = if k <= lo {
                f64::INFINITY
            } else if self.dirty[g] {
                stratum.value(side, k - 1) - self.values[g]
            } else {
                self.next[g]
            };
        }
        let cap = (self.target - 1e-9).floor();
        let mut excess = self.point.iter().map(|&k| f64::from(k)).sum::<f64>() - cap;
        while excess > 0.0 {
            let Some((g, cost)) = self.cheapest().filter(|(_, cost)| cost.is_finite()) else {
                return f64::INFINITY;
            };
            self.point[g] -= 1;
            self.values[g] += cost;
            self.last[g] = cost;
            let k = self.point[g];
            self.next[g] = if k <= bounds[g].0 {
                f64::INFINITY
            } else {
                groups[g].value(side, k - 1) - self.values[g]
            };
            excess -= 1.0;
        }
        self.values.iter().sum()
    }

    /// Brings a test held by a window back to the tables: its point into the boxes as they are now,
    /// and the values of the groups that took tasks meanwhile read afresh (their costs stale).
    fn release(&mut self, groups: &[Stratum], bounds: &[(u32, u32)], side: usize) {
        for (g, (stratum, &(lo, hi))) in groups.iter().zip(bounds).enumerate() {
            let k = self.point[g];
            let clamped = k.clamp(lo, hi);
            if clamped != k || stratum.seen != self.held_seen[g] {
                self.point[g] = clamped;
                self.values[g] = stratum.value(side, clamped);
                self.dirty[g] = true;
            }
            // A cost that says a box edge stops the step was read against the window's boxes, which
            // are narrower than these: read it again.
            if self.next[g] == f64::INFINITY || self.last[g] == f64::NEG_INFINITY {
                self.dirty[g] = true;
            }
        }
        self.point_sum = self.point.iter().map(|&k| u64::from(k)).sum();
        self.value_sum = self.values.iter().sum();
        self.fractional = None;
        self.held = false;
        self.stale = false;
    }

    /// Brings a test that stopped looking back to the tables: every point into its group's box as it
    /// is now, and every value and step cost read afresh.
    fn resync(&mut self, groups: &[Stratum], bounds: &[(u32, u32)], side: usize) {
        for (g, (stratum, &(lo, hi))) in groups.iter().zip(bounds).enumerate() {
            self.point[g] = self.point[g].clamp(lo, hi);
            self.refresh(g, stratum, (lo, hi), side);
            self.dirty[g] = false;
        }
        self.point_sum = self.point.iter().map(|&k| u64::from(k)).sum();
        self.value_sum = self.values.iter().sum();
        self.stale = false;
    }

    /// Recomputes group g's cached value and step costs at its point.
    #[inline]
    fn refresh(&mut self, g: usize, stratum: &Stratum, bounds: (u32, u32), side: usize) {
        self.values[g] = stratum.value(side, self.point[g]);
        self.refresh_costs(g, stratum, bounds, side);
    }

    /// Recomputes group g's step costs around its cached value (which a screened look left fresh).
    #[inline]
    fn refresh_costs(&mut self, g: usize, stratum: &Stratum, (lo, hi): (u32, u32), side: usize) {
        let k = self.point[g];
        let here = self.values[g];
        self.next[g] = if k > lo {
            stratum.value(side, k - 1) - here
        } else {
            f64::INFINITY
        };
        self.last[g] = if k < hi {
            here - stratum.value(side, k + 1)
        } else {
            f64::NEG_INFINITY
        };
    }

    /// Moves group g one step down (`down`) or up, reusing the cached neighbour: one table read
    /// instead of three.
    #[inline]
    fn step(&mut self, g: usize, down: bool, stratum: &Stratum, (lo, hi): (u32, u32), side: usize) {
        if down {
            self.point[g] -= 1;
            self.point_sum -= 1;
            let k = self.point[g];
            self.values[g] += self.next[g];
            self.last[g] = self.next[g];
            self.next[g] = if k > lo {
                stratum.value(side, k - 1) - self.values[g]
            } else {
                f64::INFINITY
            };
        } else {
            self.point[g] += 1;
            self.point_sum += 1;
            let k = self.point[g];
            self.values[g] -= self.last[g];
            self.next[g] = self.last[g];
            self.last[g] = if k < hi {
                self.values[g] - stratum.value(side, k + 1)
            } else {
                f64::NEG_INFINITY
            };
        }
    }

    /// Swaps steps between `up` (which takes steps back up) and `down` (which takes more steps down)
    /// for as long as each further swap lowers the sum: by convexity the s-th swap's saving in `up`
    /// falls and its cost in `down` rises with s, so the last improving s is found by doubling and
    /// bisection, reading O(log s) table points instead of 2·s. The points probed last are reused for
    /// the costs at the new points, so a pair that swaps once reads two points, as a plain swap does.
    fn gallop(
        &mut self,
        up: usize,
        down: usize,
        groups: &[Stratum],
        bounds: &[(u32, u32)],
        side: usize,
    ) {
        let (ku, kd) = (self.point[up], self.point[down]);
        let ((_, hi_up), (lo_down, _)) = (bounds[up], bounds[down]);
        let room = (hi_up - ku).min(kd - lo_down);
        let (tu, td) = (&groups[up], &groups[down]);
        // log K of `up` at ku + s and of `down` at kd − s.
        let read = |s: u32| (tu.value(side, ku + s), td.value(side, kd - s));
        // A probe of the s-th swap: s and the points at s − 1 and s, and whether it still lowers
        // the sum. The last improving one and the last failing one are kept: the next probe, and the
        // costs at the new points, read their points instead of the tables.
        type Probe = (u32, (f64, f64), (f64, f64));
        let probe = |s: u32, known: &Probe| -> (Probe, bool) {
            let before = if known.0 == s - 1 {
                known.2
            } else {
                read(s - 1)
            };
            let after = read(s);
            // Saving in `up` against the cost in `down`.
            let improves = before.0 - after.0 > after.1 - before.1;
            ((s, before, after), improves)
        };
        // The first swap improves (the cached costs said so).
        let mut good: Probe = (
            1,
            (self.values[up], self.values[down]),
            (
                self.values[up] - self.last[up],
                self.values[down] + self.next[down],
            ),
        );
        let mut bad: Option<Probe> = None;
        let mut limit = room + 1;
        let mut next = 2u32;
        while next <= room {
            let (p, improves) = probe(next, &good);
            if improves {
                good = p;
                next = next.saturating_mul(2);
            } else {
                limit = next;
                bad = Some(p);
                break;
            }
        }
        while limit - good.0 > 1 {
            let mid = good.0 + (limit - good.0) / 2;
            let (p, improves) = probe(mid, &good);
            if improves {
                good = p;
            } else {
                limit = mid;
                bad = Some(p);
            }
        }
        let (good, (u_prev, d_prev), (u_here, d_here)) = good;
        let (u_past, d_past) = match bad {
            Some((s, _, after)) if s == good + 1 => after,
            _ if good < room => read(good + 1),
            _ => (f64::NAN, f64::NAN),
        };
        let (k_up, k_down) = (ku + good, kd - good);
        // One group up and one down by the same count: Σ_g k_g is unchanged.
        self.point[up] = k_up;
        self.point[down] = k_down;
        self.values[up] = u_here;
        self.next[up] = u_prev - u_here;
        self.last[up] = if k_up >= hi_up {
            f64::NEG_INFINITY
        } else if good < room {
            u_here - u_past
        } else {
            u_here - tu.value(side, k_up + 1)
        };
        self.values[down] = d_here;
        self.last[down] = d_here - d_prev;
        self.next[down] = if k_down <= lo_down {
            f64::INFINITY
        } else if good < room {
            d_past - d_here
        } else {
            td.value(side, k_down - 1) - d_here
        };
    }

    /// The group with the cheapest next step down and the group whose last step down was dearest,
    /// with their costs, in one pass (the ±∞ of a group at the edge of its box never wins).
    #[inline]
    fn extremes(&self) -> (Option<GroupCost>, Option<GroupCost>) {
        let (mut cheap, mut cheap_cost) = (usize::MAX, f64::INFINITY);
        let (mut dear, mut dear_cost) = (usize::MAX, f64::NEG_INFINITY);
        for (g, (&next, &last)) in self.next.iter().zip(&self.last).enumerate() {
            if next < cheap_cost {
                (cheap, cheap_cost) = (g, next);
            }
            if last > dear_cost {
                (dear, dear_cost) = (g, last);
            }
        }
        (
            (cheap != usize::MAX).then_some((cheap, cheap_cost)),
            (dear != usize::MAX).then_some((dear, dear_cost)),
        )
    }

    /// The group with the cheapest next step down, and its cost (None when every group is at the
    /// bottom of its box).
    #[inline]
    fn cheapest(&self) -> Option<(usize, f64)> {
        let (mut best, mut cost) = (usize::MAX, f64::INFINITY);
        for (g, &next) in self.next.iter().enumerate() {
            if next < cost {
                (best, cost) = (g, next);
            }
        }
        (best != usize::MAX).then_some((best, cost))
    }

    /// The group whose last step down was dearest, and its cost.
    #[inline]
    fn dearest(&self) -> Option<(usize, f64)> {
        let (mut best, mut cost) = (usize::MAX, f64::NEG_INFINITY);
        for (g, &last) in self.last.iter().enumerate() {
            if last > cost {
                (best, cost) = (g, last);
            }
        }
        (best != usize::MAX).then_some((best, cost))
    }

    /// Λ at this look: the greedy minimum of Σ_g T_g[k_g] over Σ_g k_g = target inside the boxes,
    /// repaired from the previous minimiser after a draw of group `changed` (−∞ when the null holds
    /// whatever the unseen tasks are, +∞ when it cannot hold).
    ///
    /// The screen of SPEC §9a: when a feasible point kept near the previous minimiser (see
    /// [`Test::screened`]) has a value below `screen` (ln(1/a)), that value bounds Λ from above, so
    /// the test cannot cross here and the repair waits for a later look; `exact` is then false and
    /// the bound is returned.
    fn solve(
        &mut self,
        groups: &[Stratum],
        bounds: &[(u32, u32)],
        sums: (u64, u64),
        side: usize,
        changed: usize,
        screen: f64,
    ) -> f64 {
        if screen > f64::NEG_INFINITY
            && let Some(bound) = self.screened(groups, bounds, sums, side, changed)
            && bound + SCREEN_MARGIN * (1.0 + bound.abs()) < screen
        {
            self.exact = false;
            return bound;
        }
        self.exact = true;
        for g in 0..self.dirty.len() {
            if self.dirty[g] {
                self.dirty[g] = false;
                self.refresh_costs(g, &groups[g], bounds[g], side);
            }
        }
        self.repair(groups, bounds, sums, side, changed)
    }

    /// The whole grid steps down from the top of every box and the fractional last one that bring
    /// Σ_g k_g to the target; Err(−∞) when even the tops keep the mean at or below the null's level,
    /// Err(+∞) when no allocation inside the boxes reaches it (the null cannot hold).
    fn descent(&self, (lo_sum, hi_sum): (u64, u64)) -> Result<(u64, f64), f64> {
        let descent = hi_sum as f64 - self.target;
        if descent < 0.0 {
            return Err(f64::NEG_INFINITY);
        }
        // descent ≥ 0: truncation is the floor (and cheaper than a call to it).
        let full = descent as u64;
        let fraction = descent - full as f64;
        if full > hi_sum - lo_sum || (full == hi_sum - lo_sum && fraction > 0.0) {
            return Err(f64::INFINITY);
        }
        Ok((full, fraction))
    }

    /// The grid steps the current point has taken down from the tops of the boxes (`hi_sum`:
    /// Σ_g hi_g; every k_g is inside its box, so this is Σ_g (hi_g − k_g)).
    fn taken(&self, hi_sum: u64) -> u64 {
        hi_sum - self.point_sum
    }

    /// The screen's upper bound: the value of a feasible point near the previous minimiser, kept with
    /// no table read but the changed group's. The changed group's point is first clamped into its new
    /// box (a draw moves one end of it by M·x or M·(1 − x) grid steps); grid units over the target
    /// are then shed by whole steps down in groups whose costs are fresh, cheapest first, and the
    /// fractional rest by one more, while units under the target are kept (the tables are
    /// non-increasing in θ, so a point whose Σ_g w_g θ_g is below the null's level bounds Λ from above
    /// too). Every group moved or changed has its costs marked stale. None when no fresh group is
    /// left to step in, or when the null may not hold (the repair then decides).
    ///
    /// Clamping instead of repairing matters: most draws move the box edge of a group whose point
    /// sits on it (the minimiser puts groups with flat tables at their bottoms), and a repair there
    /// costs a gallop across the box for a look that is far below ln(1/a) anyway.
    fn screened(
        &mut self,
        groups: &[Stratum],
        bounds: &[(u32, u32)],
        sums: (u64, u64),
        side: usize,
        changed: usize,
    ) -> Option<f64> {
        let (full, fraction) = self.descent(sums).ok()?;
        if full >= sums.1 - sums.0 {
            return None;
        }
        let (lo, hi) = bounds[changed];
        let k = self.point[changed];
        let clamped = k.clamp(lo, hi);
        self.point[changed] = clamped;
        self.point_sum = self.point_sum + u64::from(clamped) - u64::from(k);
        let here = groups[changed].value(side, clamped);
        self.value_sum += here - self.values[changed];
        self.values[changed] = here;
        self.dirty[changed] = true;
        // Σ_g k_g − target in grid units; the minimiser's Σ_g k_g is `hi_sum − full`, whose excess
        // is `fraction` (written so, it is that very number whenever no point was clamped).
        let required = sums.1 - full;
        let mut excess = fraction + (self.point_sum as f64 - required as f64);
        while excess > 1.0 {
            let g = self.cheapest_fresh()?;
            let cost = self.next[g];
            self.point[g] -= 1;
            self.point_sum -= 1;
            self.values[g] += cost;
            self.value_sum += cost;
            self.last[g] = cost;
            self.dirty[g] = true;
            excess -= 1.0;
        }
        let sum = self.value_sum;
        if excess > 0.0 {
            let step = self.next[self.cheapest_fresh()?];
            Some(sum + excess * step)
        } else {
            Some(sum)
        }
    }

    /// The group with fresh costs whose next step down is cheapest (None when no fresh group can step
    /// down).
    #[inline]
    fn cheapest_fresh(&self) -> Option<usize> {
        let (mut best, mut cost) = (usize::MAX, f64::INFINITY);
        for (g, (&next, &dirty)) in self.next.iter().zip(&self.dirty).enumerate() {
            if !dirty && next < cost {
                (best, cost) = (g, next);
            }
        }
        (best != usize::MAX).then_some(best)
    }

    /// The greedy repair of the minimiser (every group's costs fresh but the changed group's), after
    /// which the running Σ_g values is exact again whichever way the repair ended.
    fn repair(
        &mut self,
        groups: &[Stratum],
        bounds: &[(u32, u32)],
        sums: (u64, u64),
        side: usize,
        changed: usize,
    ) -> f64 {
        // The walk may end early (certain, or infeasible); either way Σ_g values is made exact after.
        let lambda = 'walk: {
            let (lo, hi) = bounds[changed];
            let k = self.point[changed];
            let clamped = k.clamp(lo, hi);
            self.point_sum = self.point_sum + u64::from(clamped) - u64::from(k);
            self.point[changed] = clamped;
            self.refresh(changed, &groups[changed], bounds[changed], side);
            self.fractional = None;
            let (full, fraction) = match self.descent(sums) {
                Ok(steps) => steps,
                Err(certain) => break 'walk certain,
            };
            let mut taken = self.taken(sums.1);
            while taken < full {
                let Some((g, _)) = self.cheapest() else {
                    break 'walk f64::INFINITY;
                };
                self.step(g, true, &groups[g], bounds[g], side);
                taken += 1;
            }
            while taken > full {
                let Some((g, _)) = self.dearest() else {
                    break;
                };
                self.step(g, false, &groups[g], bounds[g], side);
                taken -= 1;
            }
            // Swap dear steps for cheaper ones in another group until no such pair is left (each swap
            // lowers the sum, so this ends; steps within a group come sorted by convexity). The extreme
            // pair is moved in one go as far as its swaps still lower the sum: the first repairs of an
            // order, and those after a long screened stretch, move groups across much of their boxes.
            while let (Some((down, cheap)), Some((up, dear))) = self.extremes() {
                if up == down || dear <= cheap {
                    break;
                }
                self.gallop(up, down, groups, bounds, side);
            }
            let mut value: f64 = self.values.iter().sum();
            if fraction > 0.0 {
                match self.cheapest() {
                    Some((g, cost)) => {
                        value += fraction * cost;
                        self.fractional = Some((g, fraction));
                    }
                    None => break 'walk f64::INFINITY,
                }
            }
            value
        };
        self.value_sum = self.values.iter().sum();
        lambda
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::foresight::population_sums;

    fn bets() -> Bets {
        Bets::new(0.05, 0.5, 1000)
    }

    /// Brute force: the least Σ_g log K_g(θ_g) over every on-grid allocation with Σ_g w_g θ_g ≤ ℓ
    /// inside the boxes, each log K_g recomputed from the group's outcomes alone.
    fn brute_force(state: &StratifiedState, t: usize, reject: bool, extra: f64) -> f64 {
        let grid = state.grid.unwrap();
        let test = if reject {
            &state.levels[t].reject
        } else {
            &state.levels[t].promote
        };
        let bounds: Vec<(u32, u32)> = state
            .groups
            .iter()
            .map(|s| s.bounds(grid, reject))
            .collect();
        let mut best = f64::INFINITY;
        let mut point: Vec<u32> = bounds.iter().map(|b| b.0).collect();
        loop {
            let sum: u64 = point.iter().map(|&k| u64::from(k)).sum();
            if sum as f64 <= test.target + extra + 1e-9 {
                let value: f64 = point
                    .iter()
                    .enumerate()
                    .map(|(g, &k)| {
                        let s = &state.groups[g];
                        s.value(usize::from(reject), k)
                    })
                    .sum();
                best = best.min(value);
            }
            // Next point in the product of the boxes.
            let mut g = 0;
            loop {
                if g == point.len() {
                    return best;
                }
                if point[g] < bounds[g].1 {
                    point[g] += 1;
                    break;
                }
                point[g] = bounds[g].0;
                g += 1;
            }
        }
    }

    /// log K_g(θ) recomputed from the group's outcomes x (promote scale) with the bets of the SPEC.
    fn log_wealth_direct(xs: &[f64], size: u32, theta: f64, bets: &Bets) -> f64 {
        let mut stratum = Stratum {
            size,
            ..Stratum::default()
        };
        let mut total = 0.0;
        let mut sum = 0.0;
        for (i, &x) in xs.iter().enumerate() {
            let c = stratum.bet_scale(bets, false);
            let m = (f64::from(size) * theta - sum) / (f64::from(size) - i as f64);
            total += if m > 0.0 {
                (1.0 - c + c * x / m).ln()
            } else if x > 0.0 {
                f64::INFINITY
            } else {
                (1.0 - c).ln()
            };
            sum += x;
            // The bet's running statistics only.
            stratum.seen += 1;
            let delta = x - stratum.mean;
            stratum.mean += delta / f64::from(stratum.seen);
            stratum.squares += delta * (x - stratum.mean);
        }
        total
    }

    #[test]
    fn the_tables_are_the_groups_log_wealths() {
        // Group 0 takes 11 draws (fewer than its pending limit: read through the pending products),
        // group 1 three.
        let bets = bets();
        let mut state = StratifiedState::default();
        state.reset(&[20, 4], Grid::for_scale(Some(1)), [0.0].into_iter());
        let group0 = [1.0, -1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 1.0, 0.0, 1.0, 1.0];
        let mut draws: Vec<(f64, u32)> = group0.iter().map(|&d| (d, 0)).collect();
        draws.insert(2, (0.0, 1));
        draws.insert(5, (1.0, 1));
        draws.push((-1.0, 1));
        for &(d, g) in &draws {
            state.observe(d, g, &bets);
        }
        let xs0: Vec<f64> = group0.iter().map(|d| (d + 1.0) / 2.0).collect();
        let s = &state.groups[0];
        let (lo, hi) = s.bounds(state.grid.unwrap(), false);
        // M·S = 2·Σx = 15; the top adds 2 per unseen task (9 of them).
        assert_eq!((lo, hi), (15, 33));
        for k in lo..=hi {
            let theta = f64::from(k) / 40.0;
            let direct = log_wealth_direct(&xs0, 20, theta, &bets);
            assert!(
                (s.value(0, k) - direct).abs() < 1e-10,
                "k {k}: {} vs {direct}",
                s.value(0, k)
            );
        }
        // Convex and non-increasing inside the box.
        let t: Vec<f64> = (lo..=hi).map(|k| s.value(0, k)).collect();
        assert!(t.windows(2).all(|w| w[0] >= w[1] - 1e-12));
        assert!(t.windows(3).all(|w| w[0] - w[1] >= w[1] - w[2] - 1e-12));
    }

    #[test]
    fn settled_tables_are_the_groups_log_wealths() {
        // A group of 1,000 tasks may hold floor(600 / ln(1 + c_max·2·1000)) draws unsettled: 300
        // draws settle it several times, and the last ones are still pending.
        let bets = bets();
        let grid = Grid::for_scale(Some(1));
        let limit = pending_limit(grid, 1000, &bets);
        assert!((2..100).contains(&limit), "limit {limit}");
        let mut state = StratifiedState::default();
        state.reset(&[1000, 5], grid, [0.0].into_iter());
        // Tables go on after the threshold is decided only in a trace.
        state.trace_every_look();
        let mut rng = crate::engine::streams::StreamKey::new(5, "stratified-settle").rng();
        let diffs: Vec<f64> = (0..300)
            .map(|_| [-1.0, 0.0, 0.0, 1.0, 1.0][(rng.next_u64() % 5) as usize])
            .collect();
        for &d in &diffs {
            state.observe(d, 0, &bets);
        }
        let s = &state.groups[0];
        assert_eq!(s.pending_limit, limit);
        assert!(s.pending_draws > 0 && s.pending_draws < limit);
        let xs: Vec<f64> = diffs.iter().map(|d| (d + 1.0) / 2.0).collect();
        let (lo, hi) = s.bounds(grid, false);
        for k in (lo..=hi).step_by(7) {
            let direct = log_wealth_direct(&xs, 1000, f64::from(k) / 2000.0, &bets);
            assert!(
                (s.value(0, k) - direct).abs() < 1e-9 * (1.0 + direct.abs()),
                "k {k}: {} vs {direct}",
                s.value(0, k)
            );
        }
    }

    #[test]
    fn pending_products_stay_inside_the_range_of_f64() {
        // The largest factor a draw can multiply in is 1 + c_max·M·n_g, the smallest 1/M: the
        // limit keeps both extremes of a full pending product finite and non-zero.
        for (scale, size, bet_max) in [
            (Some(1), 10, 0.9),
            (Some(8), 1_000_000, 0.99),
            (Some(2), 3, 0.0),
        ] {
            let grid = Grid::for_scale(scale);
            let mut bets = bets();
            bets.scale_max = bet_max;
            let limit = pending_limit(grid, size, &bets);
            assert!((1..=PENDING_MOST).contains(&limit));
            let m = f64::from(grid.per_task);
            let top = (1.0 + bet_max * m * f64::from(size)).powi(limit as i32);
            let bottom = (1.0 / m).powi(limit as i32);
            assert!(top.is_finite() && top < 1e270, "{scale:?} {size}: {top}");
            assert!(bottom > 1e-270, "{scale:?} {size}: {bottom}");
        }
        assert_eq!(pending_limit(Grid::for_scale(None), 10, &bets()), 1);
    }

    #[test]
    fn a_bet_is_fixed_before_the_outcome_it_bets_on() {
        // With the bet scale c and the null mean m fixed by the past, a draw multiplies K_g(θ) by
        // 1 − c + c·x/m: affine in the new outcome x. A bet that read x (in c or in m) would bend it.
        let bets = bets();
        let past = [(1.0, 0), (0.0, 0), (-1.0, 1), (1.0, 0)];
        let factor = |d: f64| {
            let mut state = StratifiedState::default();
            state.reset(&[10, 6], Grid::for_scale(Some(1)), [0.0].into_iter());
            for &(x, g) in &past {
                state.observe(x, g, &bets);
            }
            // θ = 0.9 for group 0 stays inside the box whatever the next draw is.
            let before = state.groups[0].value(0, 18);
            state.observe(d, 0, &bets);
            (state.groups[0].value(0, 18) - before).exp()
        };
        let f: Vec<f64> = [-1.0, 0.0, 1.0].iter().map(|&d| factor(d)).collect();
        assert!(((f[2] - f[1]) - (f[1] - f[0])).abs() < 1e-12, "{f:?}");
        assert!(f[2] > f[1] && f[1] > f[0], "{f:?}");
        assert!(f[0] >= 1.0 - bets.scale_max - 1e-12, "{f:?}");
    }

    #[test]
    fn the_greedy_is_never_above_the_brute_force_minimum() {
        let bets = bets();
        let mut rng = crate::engine::streams::StreamKey::new(3, "stratified-brute").rng();
        let (mut screened, mut stale) = (0, 0);
        for case in 0..200 {
            let sizes = [3 + (case % 3) as u32, 2 + (case % 4) as u32, 4];
            let mut tasks: Vec<(f64, u32)> = Vec::new();
            for (g, &size) in sizes.iter().enumerate() {
                for _ in 0..size {
                    let d = [-1.0, 0.0, 0.0, 1.0, 1.0][rng.below(5)];
                    tasks.push((d, g as u32));
                }
            }
            rng.shuffle(&mut tasks);
            let nulls = [-0.2, 0.0, 0.1, 0.3];
            let mut state = StratifiedState::default();
            state.reset(&sizes, Grid::for_scale(Some(1)), nulls.into_iter());
            for &(d, g) in &tasks[..tasks.len() - 2] {
                state.observe(d, g, &bets);
                for t in 0..nulls.len() {
                    // A threshold decided by a crossing has its screened test solved on the tables
                    // as they are now (kept while another threshold is open); one that was exact
                    // keeps the Λ of its last look. Certainty (±∞) is another matter.
                    let level = &state.levels[t];
                    let decided = level.decided();
                    let certain = state.verdict(t).1 == Reason::Certain;
                    if decided && (state.open == 0 || level.settled || certain) {
                        continue;
                    }
                    for reject in [false, true] {
                        let test = if reject {
                            &state.levels[t].reject
                        } else {
                            &state.levels[t].promote
                        };
                        if decided && test.exact {
                            continue;
                        }
                        stale += usize::from(decided);
                        let w = state.log_wealths(t);
                        let lambda = if reject { w.reject } else { w.promote };
                        let brute = brute_force(&state, t, reject, 0.0);
                        assert!(
                            lambda <= brute + 1e-9,
                            "case {case} t {t} reject {reject}: {lambda} > {brute}"
                        );
                        // And no looser than the relaxation allows: one more grid step of room
                        // cannot go below it (the fractional step lies between the two).
                        let roomier = brute_force(&state, t, reject, 1.0);
                        assert!(
                            lambda >= roomier - 1e-9,
                            "case {case} t {t} reject {reject}: {lambda} < {roomier}"
                        );
                        // A screened look keeps an upper bound below the screen: it never claims
                        // less than the minimum, so it can never cross where the minimum would not.
                        if !test.exact && !decided {
                            screened += 1;
                            assert!(test.lambda >= lambda - 1e-9 && test.lambda < bets.ln_screen);
                        }
                    }
                }
            }
        }
        assert!(screened > 0, "the screen should skip some looks");
        assert!(stale > 0, "some decided thresholds should be solved again");
    }

    #[test]
    fn a_decided_threshold_is_solved_on_the_tables_as_they_are_now() {
        // A strong pair: the low null is promoted early, the high one stays open, so the tables and
        // boxes go on moving under the decided threshold's stopped tests.
        let bets = bets();
        let mut rng = crate::engine::streams::StreamKey::new(9, "stratified-stale").rng();
        let mut checked = 0;
        for case in 0..40 {
            let sizes = [14u32, 10, 8];
            let mut tasks: Vec<(f64, u32)> = Vec::new();
            for (g, &size) in sizes.iter().enumerate() {
                for _ in 0..size {
                    let d = [-1.0, 0.0, 1.0, 1.0, 1.0, 1.0][rng.below(6)];
                    tasks.push((d, g as u32));
                }
            }
            rng.shuffle(&mut tasks);
            let nulls = [-0.6, 0.4];
            let mut state = StratifiedState::default();
            state.reset(&sizes, Grid::for_scale(Some(1)), nulls.into_iter());
            for &(d, g) in &tasks {
                state.observe(d, g, &bets);
                let level = &state.levels[0];
                if !level.decided() || state.open == 0 || state.verdict(0).1 == Reason::Certain {
                    continue;
                }
                for reject in [false, true] {
                    let test = if reject {
                        &level.reject
                    } else {
                        &level.promote
                    };
                    if test.exact {
                        continue;
                    }
                    let w = state.log_wealths(0);
                    let lambda = if reject { w.reject } else { w.promote };
                    let brute = brute_force(&state, 0, reject, 0.0);
                    let roomier = brute_force(&state, 0, reject, 1.0);
                    assert!(
                        lambda <= brute + 1e-9 && lambda >= roomier - 1e-9,
                        "case {case} reject {reject}: {lambda} outside [{roomier}, {brute}]"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 20, "only {checked} decided looks checked");
    }

    #[test]
    fn certainty_decides_once_the_rest_cannot_change_the_answer() {
        let bets = bets();
        let mut state = StratifiedState::default();
        state.reset(&[5, 5], Grid::for_scale(Some(1)), [0.0].into_iter());
        for g in [0, 1, 0, 1, 0] {
            state.observe(1.0, g, &bets);
        }
        assert_ne!(state.verdict(0).1, Reason::Certain);
        state.observe(1.0, 1, &bets);
        assert_eq!(state.verdict(0), (Action::Promote, Reason::Certain));
    }

    /// Random orders of a pair whose groups are stratified as the plans interleave them: (D, group)
    /// draws of every task, with a tested system `edge` better on average.
    fn random_pair(
        rng: &mut crate::engine::streams::Stream,
        sizes: &[u32],
        edge: usize,
    ) -> Vec<(f64, u32)> {
        let mut tasks: Vec<(f64, u32)> = Vec::new();
        for (g, &size) in sizes.iter().enumerate() {
            // Per group a different mix of ties, wins and losses.
            let losses = 1 + (g + rng.below(3)) % 3;
            let wins = losses + edge + rng.below(2);
            for _ in 0..size {
                let pick = rng.below(4 + losses + wins);
                let d = if pick < 4 {
                    0.0
                } else if pick < 4 + losses {
                    -1.0
                } else {
                    1.0
                };
                tasks.push((d, g as u32));
            }
        }
        rng.shuffle(&mut tasks);
        tasks
    }

    /// One order's states on a binary pair: solved exactly at every look (a trace), and screened
    /// reading the order's first `last` draws ahead.
    fn exact_and_ahead(
        sizes: &[u32],
        nulls: &[f64],
        tasks: &[(f64, u32)],
        last: usize,
        bets: &Bets,
    ) -> (StratifiedState, StratifiedState) {
        let mut exact = StratifiedState::default();
        exact.reset(sizes, Grid::for_scale(Some(1)), nulls.iter().copied());
        exact.trace_every_look();
        let mut ahead = StratifiedState::default();
        ahead.reset(sizes, Grid::for_scale(Some(1)), nulls.iter().copied());
        let swap = |&(d, g): &(f64, u32)| (g, d);
        let mut population = Vec::new();
        population_sums(tasks.iter().map(swap), sizes.len(), &mut population);
        ahead.foresee(tasks[..last].iter().map(swap), &population, bets);
        (exact, ahead)
    }

    #[test]
    fn screens_leaders_and_read_ahead_keep_the_exact_first_crossings() {
        // Three states on every order: solved exactly at every look (the truth), screened with
        // leaders (the live readers), and screened reading the order ahead (the replay). Their
        // verdicts must agree at every look, and the replay's state must silence some sides.
        let bets = bets();
        let mut rng = crate::engine::streams::StreamKey::new(21, "stratified-ahead").rng();
        let nulls = [-0.1, 0.0, 0.05, 0.1, 0.2];
        let sizes = [40u32, 17, 9, 3, 1];
        let (mut silenced, mut decided) = (0, 0);
        for case in 0..120 {
            let tasks = random_pair(&mut rng, &sizes, case % 4);
            let last = tasks.len() - tasks.len() / 20;
            let (mut exact, mut ahead) = exact_and_ahead(&sizes, &nulls, &tasks, last, &bets);
            let mut live = StratifiedState::default();
            live.reset(&sizes, Grid::for_scale(Some(1)), nulls.into_iter());
            live.keep_tables_past_decisions();
            for (k, &(d, g)) in tasks[..last].iter().enumerate() {
                exact.observe(d, g, &bets);
                live.observe(d, g, &bets);
                ahead.observe(d, g, &bets);
                for t in 0..nulls.len() {
                    let truth = exact.verdict(t);
                    assert_eq!(
                        live.verdict(t),
                        truth,
                        "case {case} look {} null {t}",
                        k + 1
                    );
                    assert_eq!(
                        ahead.verdict(t),
                        truth,
                        "case {case} look {} null {t}",
                        k + 1
                    );
                }
            }
            silenced += ahead
                .foresight
                .as_ref()
                .map_or(0, |f| f.quiet_from.iter().flatten().count());
            decided += (0..nulls.len())
                .filter(|&t| exact.verdict(t).0.is_final())
                .count();
        }
        assert!(silenced > 40, "only {silenced} sides were silenced");
        assert!(decided > 100, "only {decided} thresholds decided");
    }

    #[test]
    fn a_silenced_side_stays_below_the_screen_to_the_end() {
        // What the certificate and the windows claim, checked against the exact minimum: from the
        // look a side is silenced at, and at every look a window covers, every open test of that
        // side has Λ below the screen.
        let bets = bets();
        let screen = bets.ln_screen;
        let mut rng = crate::engine::streams::StreamKey::new(22, "stratified-quiet").rng();
        let nulls = [0.0, 0.05, 0.1];
        let sizes = [30u32, 12, 6, 2];
        let (mut checked, mut windowed) = (0, 0);
        for case in 0..150 {
            let tasks = random_pair(&mut rng, &sizes, case % 3);
            let (mut exact, mut ahead) =
                exact_and_ahead(&sizes, &nulls, &tasks, tasks.len(), &bets);
            for &(d, g) in &tasks {
                exact.observe(d, g, &bets);
                ahead.observe(d, g, &bets);
                let look = exact.observed();
                for side in 0..2 {
                    // A side sits out a look when its certificate silenced it to the end, or when
                    // a window covers the look.
                    let in_window = ahead.windows[side].until >= look;
                    if ahead.side_live(side, look) && !in_window {
                        continue;
                    }
                    if ahead.side_live(side, look)
                        && (0..nulls.len()).any(|t| !ahead.levels[t].decided())
                    {
                        windowed += 1;
                    }
                    for t in 0..nulls.len() {
                        if ahead.levels[t].decided() {
                            continue;
                        }
                        let w = exact.log_wealths(t);
                        let lambda = if side == 0 { w.promote } else { w.reject };
                        assert!(
                            lambda < screen,
                            "case {case} look {look} null {t} side {side}: {lambda}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "only {checked} silenced looks checked");
        assert!(windowed > 200, "only {windowed} looks sat out in windows");
    }

    #[test]
    fn read_ahead_is_left_alone_off_an_exact_grid() {
        let bets = bets();
        let mut state = StratifiedState::default();
        state.reset(&[6, 4], Grid::for_scale(None), [0.0].into_iter());
        let draws = [(0u32, 0.25), (1, -0.5), (0, 0.0)];
        let mut population = Vec::new();
        population_sums(draws.into_iter(), 2, &mut population);
        state.foresee(draws.into_iter(), &population, &bets);
        assert!(state.foresight.is_none());
    }

    #[test]
    fn a_crossing_is_kept_when_later_outcomes_settle_the_record_the_other_way() {
        // Two groups of 20; the first 16 draws (8 a group, in turn) all favour the tested system,
        // the other 24 the baseline. Λ⁺ crosses on the way; read to the end the completed record is
        // a reject, and the promote stays (SPEC §9a: the decision is kept).
        let bets = bets();
        let sizes = [20u32, 20];
        let mut state = StratifiedState::default();
        state.reset(&sizes, Grid::for_scale(Some(1)), [0.0].into_iter());
        state.keep_tables_past_decisions();
        let mut crossed = false;
        for i in 0..40u32 {
            let d = if i < 16 { 1.0 } else { -1.0 };
            state.observe(d, i % 2, &bets);
            crossed |= state.verdict(0) == (Action::Promote, Reason::Supported);
        }
        assert!(crossed);
        assert_eq!(state.certain(0), Some(Action::Reject));
        assert_eq!(state.verdict(0), (Action::Promote, Reason::Supported));
    }

    #[test]
    fn a_live_run_reads_decided_thresholds_at_the_current_look() {
        // Strong pairs decide every threshold early; a live state's records go on reading Λ after
        // that. Each decided threshold's Λ must be the one a trace (every look solved, every
        // table going on) has at the same look, and its p-value no smaller than the trace's (the
        // looks between the decision and now are not solved, so their Λ are not in its maximum).
        let bets = bets();
        let mut rng = crate::engine::streams::StreamKey::new(3, "live-decided").rng();
        let (mut compared, mut after_all_decided) = (0, 0);
        for case in 0..200 {
            let sizes = [14u32, 10, 8];
            let mut tasks: Vec<(f64, u32)> = Vec::new();
            for (g, &size) in sizes.iter().enumerate() {
                for _ in 0..size {
                    let d = [-1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0][rng.below(7)];
                    tasks.push((d, g as u32));
                }
            }
            rng.shuffle(&mut tasks);
            let nulls = [0.0, 0.05, 0.1];
            let mut live = StratifiedState::default();
            live.reset(&sizes, Grid::for_scale(Some(1)), nulls.into_iter());
            live.keep_tables_past_decisions();
            let mut trace = StratifiedState::default();
            trace.reset(&sizes, Grid::for_scale(Some(1)), nulls.into_iter());
            trace.trace_every_look();
            for (i, &(d, g)) in tasks.iter().enumerate() {
                live.observe(d, g, &bets);
                trace.observe(d, g, &bets);
                for t in 0..nulls.len() {
                    if !live.levels[t].decided() || live.verdict(t).1 == Reason::Certain {
                        continue;
                    }
                    assert_eq!(live.verdict(t), trace.verdict(t), "case {case} look {i}");
                    let (now, truth) = (live.log_wealths(t), trace.log_wealths(t));
                    for (x, y, px, py) in [
                        (now.promote, truth.promote, now.p_promote, truth.p_promote),
                        (now.reject, truth.reject, now.p_reject, truth.p_reject),
                    ] {
                        if x.is_finite() || y.is_finite() {
                            assert!(
                                (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
                                "case {case} look {} threshold {t}: {x} vs the trace's {y}",
                                i + 1
                            );
                            assert!(px >= py - 1e-12, "case {case}: p {px} below {py}");
                            compared += 1;
                            after_all_decided += usize::from(live.open == 0);
                        }
                    }
                }
            }
        }
        assert!(
            compared > 1000 && after_all_decided > 500,
            "{compared} decided looks compared, {after_all_decided} after every threshold was decided"
        );
    }
}
