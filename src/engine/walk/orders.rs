//! Task orders of SPEC §3 for one directed pair and order index. Every order is a permutation of the
//! pair's local task indices, drawn from a stream keyed by (seed, tested, baseline, order kind, r).
//!
//! `stratified` is earliest-deadline-first: the j-th task of group g is due at the smallest prefix k
//! with r_g(k) ≥ j; the group due soonest goes next, ties to the larger deficit k·n_g/N − c_g, then to a
//! random group ranking drawn once per order. Every prefix then meets the coverage quotas whenever they
//! are feasible. `neyman` uses the same rule with targets ∝ n_g·σ_g, never below the quota.
//!
//! Speed: an order's ranking matters only where it settles a tie, so `stratified` reads a per-pair
//! schedule of quota due times and `neyman` walks a per-pair tree of group sequences that forks only at
//! such ties; both draw the same tasks as the direct step-by-step walk (tested against it).

use std::cmp::Ordering;

use crate::engine::settings::OrderKind;
use crate::engine::streams::{Stream, StreamKey};
use crate::engine::walk::pair::PairData;
use crate::engine::walk::schedule::quota_due;

/// Buffers reused from one order to the next, so that building an order allocates nothing.
#[derive(Debug, Default)]
pub struct OrderScratch {
    /// Every group's members, one group after another (see [`Draws`]).
    pool: Vec<u32>,
    /// Where each group starts in the pool (and, last, where the pool ends), and where its next draw goes.
    start: Vec<u32>,
    next: Vec<u32>,
    rank: Vec<u32>,
    block: Vec<u32>,
    neyman: NeymanTree,
}

/// What identifies one order: its kind, the pair's names, the seed and the order index. The order's
/// random stream is keyed by exactly these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderKey<'a> {
    pub kind: OrderKind,
    pub names: (&'a str, &'a str),
    pub seed: u64,
    pub index: u32,
}

/// Fills `out` with the order `index` of `kind` for the pair.
pub fn build_order(
    kind: OrderKind,
    pair: &PairData,
    names: (&str, &str),
    seed: u64,
    index: u32,
    out: &mut Vec<u32>,
) {
    let key = OrderKey {
        kind,
        names,
        seed,
        index,
    };
    build_order_with(&key, pair, &mut OrderScratch::default(), usize::MAX, out);
}

/// [`build_order`] with caller-owned scratch buffers, stopping after `limit` tasks (the prefix of the
/// full order).
pub fn build_order_with(
    key: &OrderKey<'_>,
    pair: &PairData,
    scratch: &mut OrderScratch,
    limit: usize,
    out: &mut Vec<u32>,
) {
    let kind = key.kind;
    let mut rng = StreamKey::new(key.seed, "order")
        .str(key.names.0)
        .str(key.names.1)
        .str(kind.name())
        .u64(u64::from(key.index))
        .rng();
    out.clear();
    let n = pair.n();
    match kind {
        OrderKind::Uniform => {
            out.extend(0..n);
            rng.shuffle_prefix(out, limit);
            out.truncate(limit);
        }
        OrderKind::Stratified => stratified_order(pair, &mut rng, scratch, limit, out),
        OrderKind::Neyman => neyman_order(pair, &mut rng, scratch, limit, out),
        OrderKind::Cost | OrderKind::PairCost => {
            let ties: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
            out.extend(0..n);
            out.sort_by(|&x, &y| {
                let (kx, ky) = (pair.cost_key[x as usize], pair.cost_key[y as usize]);
                // Tasks without a cost go last; among equal costs the random draw decides.
                kx.is_nan()
                    .cmp(&ky.is_nan())
                    .then(kx.total_cmp(&ky))
                    .then(ties[x as usize].cmp(&ties[y as usize]))
            });
        }
        OrderKind::File => {
            out.extend(0..n);
            out.sort_by_key(|&i| pair.tasks[i as usize]);
        }
    }
}

/// Earliest-deadline-first by quota due time, read off the pair's precomputed schedule: items with
/// different due times keep their order; within a run of equal due times the next pick is the group with
/// the larger deficit k·n_g/N − c_g (compared exactly as k·n_g − c_g·N), then the smaller random rank.
/// This is the same sequence as scanning every group at every step, at O(N) per order.
fn stratified_order(
    pair: &PairData,
    rng: &mut Stream,
    scratch: &mut OrderScratch,
    limit: usize,
    out: &mut Vec<u32>,
) {
    let n = u64::from(pair.n());
    let OrderScratch {
        pool,
        start,
        next,
        rank,
        block,
        ..
    } = scratch;
    let mut draws = Draws::start(pair, rng, limit, pool, start, next, rank, out);
    let (schedule, slots) = (&pair.quota_schedule, &pair.slots);
    let mut position = 0;
    let end = schedule.len() as u32;
    'runs: for (run, &(block_start, block_end)) in pair
        .tie_blocks
        .iter()
        .chain(std::iter::once(&(end, end)))
        .enumerate()
    {
        // Items before the next run the ranking settles are in their fixed order.
        if !draws.take_slots(slots[position..block_start as usize].iter().copied()) {
            break 'runs;
        }
        position = block_end as usize;
        let run_slots = &slots[block_start as usize..block_end as usize];
        if let Some(Some(tree)) = pair.tie_trees.get(run) {
            let picks = tree.resolve(draws.rank).iter();
            if !draws.take_slots(picks.map(|&i| run_slots[i as usize])) {
                break 'runs;
            }
            continue;
        }
        // No tree: scan the deficits at every pick. `block` holds positions within the run; a group
        // not yet picked in the run has taken its slot's offset from its group's start.
        let run_groups = &schedule[block_start as usize..block_end as usize];
        block.clear();
        block.extend(0..run_groups.len() as u32);
        while !block.is_empty() {
            if draws.full() {
                break 'runs;
            }
            let k = draws.filled as u64 + 1;
            let mut best = 0;
            for candidate in 1..block.len() {
                let (c, b) = (block[candidate] as usize, block[best] as usize);
                let deficit = |i: usize| {
                    let x = run_groups[i].1 as usize;
                    let taken = u64::from(run_slots[i].0 - draws.start[x]);
                    (k * u64::from(pair.group_sizes[x])) as i128 - (taken * n) as i128
                };
                let (g, h) = (run_groups[c].1 as usize, run_groups[b].1 as usize);
                let (dg, db) = (deficit(c), deficit(b));
                if dg > db || (dg == db && draws.rank[g] < draws.rank[h]) {
                    best = candidate;
                }
            }
            let i = block.swap_remove(best) as usize;
            draws.take_slots(std::iter::once(run_slots[i]));
        }
    }
    let filled = draws.finish(rng);
    out.truncate(filled);
}

/// Where an earliest-deadline walk over groups stands before its k-th step.
///
/// Slack: with D(T) the quota tasks due by prefix T that are not yet taken, slack(T) = (T − k + 1) − D(T)
/// before choosing the k-th task. Taking group x (next quota task due at d_x) lowers slack(T) by one for
/// T < d_x (and leaves it for T ≥ d_x, where one due task is taken), so the choice is safe when slack ≥ 1
/// on [k, d_x − 1].
#[derive(Debug, Clone, Default)]
struct DeadlineState {
    taken: Vec<u32>,
    /// Each group's next quota due time.
    due: Vec<u64>,
    /// slack[T] for T = 0..=N (kept only under Neyman shares).
    slack: Vec<i64>,
    /// Groups with tasks left. Their order does not matter: every comparison ends in the distinct ranks.
    active: Vec<usize>,
}

impl DeadlineState {
    fn reset(&mut self, pair: &PairData, with_slack: bool) {
        let n = pair.n();
        self.taken.clear();
        self.taken.resize(pair.group_sizes.len(), 0);
        self.due.clear();
        self.due
            .extend(pair.group_sizes.iter().map(|&size| quota_due(1, size, n)));
        self.slack.clear();
        if with_slack {
            // T − Σ_g r_g(T) before any task is taken: the same for every order of a pair.
            self.slack.extend_from_slice(&pair.initial_slack);
        }
        self.active.clear();
        self.active
            .extend((0..pair.group_sizes.len()).filter(|&g| pair.group_sizes[g] > 0));
    }

    /// How far group g is behind its Neyman share before step k: k·share_g − c_g.
    fn behind_share(&self, k: u64, shares: &[f64], g: usize) -> f64 {
        k as f64 * shares[g] - f64::from(self.taken[g])
    }

    /// Group g's deficit before step k, k·n_g/N − c_g, scaled by N so it compares exactly: k·n_g − c_g·N.
    fn deficit(&self, pair: &PairData, k: u64, g: usize) -> i128 {
        i128::from(k * u64::from(pair.group_sizes[g]))
            - i128::from(u64::from(self.taken[g]) * u64::from(pair.n()))
    }

    /// The k-th step. With `shares` (Neyman), the group furthest behind its share, k·share_g − c_g, when
    /// the slack allows it; otherwise (and always without shares) the group due soonest, ties to the larger
    /// deficit k·n_g/N − c_g. Remaining ties go to the smaller `rank`; without a rank such a tie is
    /// reported as [`Step::Tie`]: the choice depends on the order's draw.
    fn choose(
        &self,
        pair: &PairData,
        k: u64,
        shares: Option<&[f64]>,
        rank: Option<&[u32]>,
    ) -> Step {
        let big_n = u64::from(pair.n());
        let active = &self.active;
        let Some(&first) = active.first() else {
            return Step::Done;
        };
        let ranked_before = |g: usize, best: usize| rank.is_some_and(|rank| rank[g] < rank[best]);
        if let Some(shares) = shares {
            let mut preferred = first;
            let mut largest = self.behind_share(k, shares, first);
            let mut tied = false;
            for &g in &active[1..] {
                let deficit = self.behind_share(k, shares, g);
                if deficit > largest {
                    (preferred, largest, tied) = (g, deficit, false);
                } else if deficit == largest {
                    tied = true;
                    if ranked_before(g, preferred) {
                        preferred = g;
                    }
                }
            }
            if tied && rank.is_none() {
                return Step::Tie;
            }
            // The earliest-due group always passes this check (no T before its due time has anything due,
            // so slack(T) = T − k + 1), so the earliest-deadline scan is needed only when this one fails.
            let end = self.due[preferred].min(big_n + 1);
            if (k..end).all(|t| self.slack[t as usize] >= 1) {
                return Step::Group(preferred);
            }
        }
        let deficit = |g: usize| self.deficit(pair, k, g);
        let mut earliest = first;
        let mut tied = false;
        for &g in &active[1..] {
            let order = self.due[g]
                .cmp(&self.due[earliest])
                .then_with(|| deficit(earliest).cmp(&deficit(g)));
            match order {
                Ordering::Less => (earliest, tied) = (g, false),
                Ordering::Equal => {
                    tied = true;
                    if ranked_before(g, earliest) {
                        earliest = g;
                    }
                }
                Ordering::Greater => {}
            }
        }
        if tied && rank.is_none() {
            Step::Tie
        } else {
            Step::Group(earliest)
        }
    }

    /// What [`DeadlineState::choose`] with Neyman `shares` decides at a tie (step k) for any ranking: the
    /// groups furthest behind their share, each with whether the slack allows taking it now, and the
    /// groups due soonest with the largest deficit, which decide when the slack does not allow the first.
    fn fork_choice(&self, pair: &PairData, k: u64, shares: &[f64]) -> ForkChoice {
        let big_n = u64::from(pair.n());
        let behind_by = |g: usize| self.behind_share(k, shares, g);
        let largest = self
            .active
            .iter()
            .map(|&g| behind_by(g))
            .fold(f64::NEG_INFINITY, f64::max);
        let behind = self
            .active
            .iter()
            .filter(|&&g| behind_by(g) == largest)
            .map(|&g| {
                let end = self.due[g].min(big_n + 1);
                (g as u32, (k..end).all(|t| self.slack[t as usize] >= 1))
            })
            .collect();
        let deficit = |g: usize| self.deficit(pair, k, g);
        let soonest = self
            .active
            .iter()
            .map(|&g| (self.due[g], -deficit(g)))
            .min();
        let due_first = self
            .active
            .iter()
            .filter(|&&g| Some((self.due[g], -deficit(g))) == soonest)
            .map(|&g| g as u32)
            .collect();
        ForkChoice { behind, due_first }
    }

    /// Takes the k-th task from group g.
    fn take(&mut self, pair: &PairData, k: u64, g: usize) {
        let n = pair.n();
        if !self.slack.is_empty() {
            let end = self.due[g].min(u64::from(n) + 1);
            for t in k..end {
                self.slack[t as usize] -= 1;
            }
        }
        self.taken[g] += 1;
        self.due[g] = quota_due(self.taken[g] + 1, pair.group_sizes[g], n);
        if self.taken[g] == pair.group_sizes[g] {
            self.active.retain(|&x| x != g);
        }
    }
}

/// One step of an earliest-deadline walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Group(usize),
    /// The choice falls to the order's random ranking.
    Tie,
    /// Every group is exhausted.
    Done,
}

/// The Neyman group sequences of one pair's orders as a tree. An order's ranking only matters at the
/// steps where it settles a tie, so orders share their group sequence up to the first tie they settle
/// differently; on SWE-bench Verified 100 orders of a pair add up to about 2% new steps beyond the first.
/// Each segment is computed once, and an order walks the tree, settling each tie with its own ranking,
/// and draws its tasks along the way, exactly as the direct step-by-step walk would (the tests compare).
#[derive(Debug, Default)]
pub struct NeymanTree {
    /// What the tree was grown from: the pair, its group sizes and spreads.
    source: (usize, usize),
    sizes: Vec<u32>,
    spread: Vec<f64>,
    shares: Vec<f64>,
    segments: Vec<Segment>,
}

#[derive(Debug)]
struct Segment {
    /// The groups of consecutive steps.
    groups: Vec<u32>,
    /// Where the sequence forks after `groups`; `None` where it ends.
    fork: Option<Fork>,
}

#[derive(Debug)]
struct Fork {
    /// The step that falls to the ranking, and the walk's state before it.
    k: u64,
    state: DeadlineState,
    /// How the ranking settles step k, worked out once for every order that reaches the fork.
    choice: ForkChoice,
    /// (group taken at step k, its segment).
    children: Vec<(u32, usize)>,
}

/// See [`DeadlineState::fork_choice`].
#[derive(Debug)]
struct ForkChoice {
    behind: Vec<(u32, bool)>,
    due_first: Vec<u32>,
}

impl ForkChoice {
    /// The group an order with this ranking takes: the best-ranked group furthest behind its share if the
    /// slack allows it, else the best-ranked group due soonest (ranks are distinct, so each is unique).
    fn pick(&self, rank: &[u32]) -> Option<usize> {
        let &(g, allowed) = self.behind.iter().min_by_key(|(g, _)| rank[*g as usize])?;
        if allowed {
            return Some(g as usize);
        }
        let g = self.due_first.iter().min_by_key(|&&g| rank[g as usize])?;
        Some(*g as usize)
    }
}

impl NeymanTree {
    fn grown_from(&self, pair: &PairData) -> bool {
        !self.segments.is_empty()
            && self.source == (pair.tested, pair.baseline)
            && self.sizes == pair.group_sizes
            && self.spread == pair.group_sd
    }

    /// Starts the tree of a pair with these shares.
    fn plant(&mut self, pair: &PairData, shares: &[f64]) {
        self.source = (pair.tested, pair.baseline);
        self.sizes.clone_from(&pair.group_sizes);
        self.spread.clone_from(&pair.group_sd);
        self.shares.clear();
        self.shares.extend_from_slice(shares);
        self.segments.clear();
        let mut start = DeadlineState::default();
        start.reset(pair, true);
        self.grow(pair, start, 1, Vec::new());
    }

    /// Adds the segment that continues from `state` before step k (after `groups`) to the next fork.
    fn grow(
        &mut self,
        pair: &PairData,
        mut state: DeadlineState,
        mut k: u64,
        mut groups: Vec<u32>,
    ) -> usize {
        let fork = loop {
            match state.choose(pair, k, Some(&self.shares), None) {
                Step::Group(g) => {
                    groups.push(g as u32);
                    state.take(pair, k, g);
                    k += 1;
                }
                Step::Tie => {
                    break Some(Fork {
                        k,
                        choice: state.fork_choice(pair, k, &self.shares),
                        state,
                        children: Vec::new(),
                    });
                }
                Step::Done => break None,
            }
        };
        self.segments.push(Segment { groups, fork });
        self.segments.len() - 1
    }

    /// The segment after the fork of `segment` for this ranking, grown if no order went there before;
    /// `None` where the sequence ends.
    fn next(&mut self, pair: &PairData, segment: usize, rank: &[u32]) -> Option<usize> {
        let fork = self.segments[segment].fork.as_ref()?;
        let g = fork.choice.pick(rank)?;
        if let Some(&(_, child)) = fork.children.iter().find(|child| child.0 == g as u32) {
            return Some(child);
        }
        let (k, mut state) = (fork.k, fork.state.clone());
        state.take(pair, k, g);
        let child = self.grow(pair, state, k + 1, vec![g as u32]);
        if let Some(fork) = self.segments[segment].fork.as_mut() {
            fork.children.push((g as u32, child));
        }
        Some(child)
    }
}

/// Neyman allocation: shares ∝ n_g·σ_g, never below the quota; with no spread anywhere it is `stratified`.
fn neyman_order(
    pair: &PairData,
    rng: &mut Stream,
    scratch: &mut OrderScratch,
    limit: usize,
    out: &mut Vec<u32>,
) {
    // The tree is planted by the pair's first order; the shares are needed only then.
    if !scratch.neyman.grown_from(pair) {
        let weights: Vec<f64> = pair
            .group_sizes
            .iter()
            .zip(&pair.group_sd)
            .map(|(&size, &sd)| f64::from(size) * sd)
            .collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return stratified_order(pair, rng, scratch, limit, out);
        }
        let shares: Vec<f64> = weights.iter().map(|w| w / total).collect();
        scratch.neyman.plant(pair, &shares);
    }
    let OrderScratch {
        pool,
        start,
        next,
        rank,
        neyman: tree,
        ..
    } = scratch;
    let mut draws = Draws::start(pair, rng, limit, pool, start, next, rank, out);
    let mut segment = Some(0);
    'segments: while let Some(current) = segment {
        for &g in &tree.segments[current].groups {
            if draws.full() {
                break 'segments;
            }
            draws.next(g as usize);
        }
        if draws.full() {
            break;
        }
        segment = tree.next(pair, current, draws.rank);
    }
    let filled = draws.finish(rng);
    out.truncate(filled);
}

/// The random draws of one deadline order: the group ranking first, then one lazy Fisher–Yates step per
/// task over its group's remaining members, so a task is drawn only when the order reaches it.
///
/// Speed: the members of every group sit in one pool (group g from `start[g]` to `start[g + 1]`, its
/// next draw at `next[g]`), the order is written into a slice of its final length, and the generator
/// is a copy owned by the draws: with plain slices and a local generator the per-task step keeps its
/// state in registers instead of reloading vector headers. The draws are those of one list per group.
struct Draws<'a> {
    rng: Stream,
    pool: &'a mut [u32],
    start: &'a [u32],
    next: &'a mut [u32],
    rank: &'a [u32],
    /// The order, filled from the front.
    out: &'a mut [u32],
    filled: usize,
}

impl<'a> Draws<'a> {
    /// Draws the group ranking and makes room for `min(limit, N)` tasks in `out`.
    #[allow(clippy::too_many_arguments)]
    fn start(
        pair: &PairData,
        rng: &Stream,
        limit: usize,
        pool: &'a mut Vec<u32>,
        start: &'a mut Vec<u32>,
        next: &'a mut Vec<u32>,
        rank: &'a mut Vec<u32>,
        out: &'a mut Vec<u32>,
    ) -> Self {
        let mut rng = rng.clone();
        let groups = pair.group_sizes.len();
        rank.clear();
        rank.extend(0..groups as u32);
        rng.shuffle(rank);
        pool.clear();
        start.clear();
        for members in &pair.members {
            start.push(pool.len() as u32);
            pool.extend_from_slice(members);
        }
        // One more start, the pool's end, so that group g ends where g + 1 starts.
        start.push(pool.len() as u32);
        next.clear();
        next.extend_from_slice(&start[..groups]);
        out.clear();
        out.resize(limit.min(pool.len()), 0);
        Draws {
            rng,
            pool,
            start,
            next,
            rank,
            out,
            filled: 0,
        }
    }

    /// Whether the order has all the tasks asked for.
    #[inline(always)]
    fn full(&self) -> bool {
        self.filled >= self.out.len()
    }

    /// Appends the next task of group g (the caller checks [`Draws::full`] first).
    #[inline(always)]
    fn next(&mut self, g: usize) {
        let t = self.next[g] as usize;
        let end = self.start[g + 1] as usize;
        let pick = t + self.rng.below(end - t);
        // A swap of t and pick whose t side is never read again: t is behind next[g] from now on.
        self.out[self.filled] = self.pool[pick];
        self.pool[pick] = self.pool[t];
        self.filled += 1;
        self.next[g] += 1;
    }

    /// Draws the task of each slot (position, end of its group in the pool) in turn until the order is
    /// full; false if it filled up. The same draws as [`Draws::next`] for the slots' groups (a slot is
    /// the position `next` would hold), in a loop that keeps the generator and the fill position in
    /// locals (registers) and carries no count from one draw to the next through memory.
    #[inline(always)]
    fn take_slots(&mut self, slots: impl Iterator<Item = (u32, u32)>) -> bool {
        let mut rng = self.rng.clone();
        let mut filled = self.filled;
        let (pool, out) = (&mut *self.pool, &mut *self.out);
        let mut complete = true;
        for (t, end) in slots {
            if filled >= out.len() {
                complete = false;
                break;
            }
            let t = t as usize;
            let pick = t + rng.below(end as usize - t);
            // A swap of t and pick whose t side is never read again: t is behind the group's next draw.
            out[filled] = pool[pick];
            pool[pick] = pool[t];
            filled += 1;
        }
        self.rng = rng;
        self.filled = filled;
        complete
    }

    /// Hands the generator back, advanced by every draw, and returns the tasks drawn.
    fn finish(self, rng: &mut Stream) -> usize {
        *rng = self.rng;
        self.filled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::coverage::{CoverageStatus, status};
    use crate::engine::walk::schedule::{initial_slack, quota_schedule, settle_ties, tie_blocks};

    /// The direct earliest-deadline walk, every step scanned with the order's ranking: the reference for
    /// the schedule-based stratified order and for the Neyman tree.
    fn deadline_order(
        pair: &PairData,
        shares: Option<&[f64]>,
        rng: &mut Stream,
        out: &mut Vec<u32>,
    ) {
        let (mut pool, mut start, mut next, mut rank) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut draws = Draws::start(
            pair,
            rng,
            usize::MAX,
            &mut pool,
            &mut start,
            &mut next,
            &mut rank,
            out,
        );
        let mut walk = DeadlineState::default();
        walk.reset(pair, shares.is_some());
        for k in 1..=u64::from(pair.n()) {
            let Step::Group(g) = walk.choose(pair, k, shares, Some(draws.rank)) else {
                break;
            };
            draws.next(g);
            walk.take(pair, k, g);
        }
        let filled = draws.finish(rng);
        out.truncate(filled);
    }

    fn pair_with_groups(sizes: &[u32]) -> PairData {
        let mut group_of = Vec::new();
        for (g, &size) in sizes.iter().enumerate() {
            group_of.extend(std::iter::repeat_n(g as u32, size as usize));
        }
        let n = group_of.len();
        let group_of_all = group_of.clone();
        let mut schedule = quota_schedule(sizes);
        let tie_blocks = settle_ties(&mut schedule, sizes);
        let tie_trees = crate::engine::walk::schedule::tie_trees(&schedule, &tie_blocks, sizes);
        let slots = crate::engine::walk::schedule::pool_slots(&schedule, sizes);
        PairData {
            tested: 0,
            baseline: 1,
            tasks: (0..n as u32).collect(),
            diffs: vec![0.0; n],
            units: vec![0; n],
            group_of,
            group_sizes: sizes.to_vec(),
            group_labels: (0..sizes.len() as u32).collect(),
            group_sd: vec![0.5; sizes.len()],
            resource: Vec::new(),
            truth_diffs: Vec::new(),
            truth_units: Vec::new(),
            steps_run: Vec::new(),
            steps_full: Vec::new(),
            cost_key: (0..n).map(|i| (n - i) as f64).collect(),
            spent_cost: Vec::new(),
            spent_seconds: Vec::new(),
            left_out: 0,
            quota_schedule: schedule,
            tie_blocks,
            slots,
            tie_trees,
            initial_slack: initial_slack(sizes),
            members: sizes
                .iter()
                .enumerate()
                .map(|(g, _)| {
                    (0..n as u32)
                        .filter(|&i| group_of_all[i as usize] == g as u32)
                        .collect()
                })
                .collect(),
        }
    }

    fn is_permutation(order: &[u32], n: usize) -> bool {
        let mut seen = vec![false; n];
        order.len() == n
            && order
                .iter()
                .all(|&i| !std::mem::replace(&mut seen[i as usize], true))
    }

    /// Group layouts the stratified order's tests run on: uneven, SWE-bench bash-only's
    /// repositories, two singletons, one group, and equal groups.
    const LAYOUTS: [&[u32]; 5] = [
        &[50, 30, 20],
        &[231, 75, 44, 34, 32, 22, 22, 19, 11, 6, 3, 1],
        &[1, 1, 98],
        &[7],
        &[3, 3, 3, 3, 3],
    ];

    #[test]
    fn stratified_prefixes_meet_every_feasible_quota() {
        for sizes in LAYOUTS {
            let pair = pair_with_groups(sizes);
            let n = pair.n();
            for r in 0..40 {
                let mut order = Vec::new();
                build_order(OrderKind::Stratified, &pair, ("a", "b"), 3, r, &mut order);
                assert!(is_permutation(&order, n as usize));
                let mut counts = vec![0u32; sizes.len()];
                for (k, &i) in order.iter().enumerate() {
                    counts[pair.group_of[i as usize] as usize] += 1;
                    let k = k as u32 + 1;
                    let state = status(k, &counts, sizes, n);
                    assert_ne!(
                        state,
                        CoverageStatus::Missing,
                        "sizes {sizes:?} order {r} prefix {k}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_stratified_order_of_a_pair_passes_the_gate_at_the_same_prefixes() {
        use crate::engine::rules::coverage::SHARE_UNITS;
        use crate::engine::walk::gate::Gate;
        for sizes in LAYOUTS {
            let pair = pair_with_groups(sizes);
            let n = pair.n();
            let mut zeros = vec![0u32; sizes.len()];
            // Under stratified orders the first reading holds for all; uniform orders show that a
            // reading kept from another order would be wrong (so this test can fail).
            let mut kept_was_wrong = false;
            for kind in [OrderKind::Stratified, OrderKind::Uniform] {
                let (mut shared, mut each) = (Gate::default(), Gate::default());
                for r in 0..40 {
                    let mut order = Vec::new();
                    build_order(kind, &pair, ("a", "b"), 5, r, &mut order);
                    shared.start(sizes, SHARE_UNITS);
                    each.start(sizes, SHARE_UNITS);
                    let groups = || order.iter().map(|&i| pair.group_of[i as usize]);
                    let last_shared = shared.read_shared(groups(), &mut zeros);
                    let last = each.read(groups(), &mut zeros);
                    let same = last_shared == last
                        && (0..=n).all(|k| shared.is_open(k) == each.is_open(k));
                    if kind == OrderKind::Stratified {
                        assert!(same, "sizes {sizes:?} order {r}");
                    } else {
                        kept_was_wrong |= !same;
                    }
                }
            }
            assert!(kept_was_wrong || sizes.len() == 1, "sizes {sizes:?}");
        }
    }

    #[test]
    fn neyman_keeps_every_quota_and_moves_variable_groups_forward_within_the_slack() {
        // Twelve groups of ten; only group 0 varies. Quotas leave slack only inside each quota window:
        // after one task of every group (k = 12), the next quota for all is due at k = 24, so Neyman
        // takes group 0's second task first, while stratified picks a random group.
        let mut pair = pair_with_groups(&[10; 12]);
        pair.group_sd = vec![0.0; 12];
        pair.group_sd[0] = 0.9;
        let n = pair.n();
        let mut stratified_first = 0;
        for r in 0..20 {
            let mut order = Vec::new();
            build_order(OrderKind::Neyman, &pair, ("a", "b"), 1, r, &mut order);
            assert!(is_permutation(&order, n as usize));
            let mut counts = vec![0u32; 12];
            for (k, &i) in order.iter().enumerate() {
                counts[pair.group_of[i as usize] as usize] += 1;
                assert_ne!(
                    status(k as u32 + 1, &counts, &pair.group_sizes, n),
                    CoverageStatus::Missing
                );
            }
            assert_eq!(pair.group_of[order[12] as usize], 0, "order {r}");
            build_order(OrderKind::Stratified, &pair, ("a", "b"), 1, r, &mut order);
            stratified_first += u32::from(pair.group_of[order[12] as usize] == 0);
        }
        assert!(
            stratified_first < 10,
            "stratified took group 0 first in {stratified_first} of 20 orders"
        );
    }

    #[test]
    fn the_schedule_based_stratified_order_equals_the_full_scan() {
        for sizes in [
            vec![231u32, 75, 44, 34, 32, 22, 22, 19, 11, 6, 3, 1],
            vec![10; 12],
            vec![50, 30, 20],
            vec![3, 3, 1, 9],
        ] {
            let pair = pair_with_groups(&sizes);
            for seed in 0..25 {
                let (mut fast, mut scan) = (Vec::new(), Vec::new());
                stratified_order(
                    &pair,
                    &mut StreamKey::new(seed, "t").rng(),
                    &mut OrderScratch::default(),
                    usize::MAX,
                    &mut fast,
                );
                deadline_order(&pair, None, &mut StreamKey::new(seed, "t").rng(), &mut scan);
                assert_eq!(fast, scan, "sizes {sizes:?} seed {seed}");
            }
        }
    }

    #[test]
    fn settled_runs_leave_the_ranking_only_the_ties_of_deficits() {
        // SWE-bench bash-only's repository sizes: two groups of 22 tie, the rest settle by deficit.
        let sizes = [231u32, 75, 44, 34, 32, 22, 22, 19, 11, 6, 3, 1];
        let plain = quota_schedule(&sizes);
        let runs = tie_blocks(&plain);
        let mut settled = plain.clone();
        let ranked = settle_ties(&mut settled, &sizes);
        assert!(
            !ranked.is_empty() && ranked.len() * 4 < runs.len(),
            "{} of {}",
            ranked.len(),
            runs.len()
        );
        assert!(ranked.iter().all(|run| runs.contains(run)));
        // Same due times and, within each run, the same groups: only their order may change.
        for &(start, end) in &runs {
            let (start, end) = (start as usize, end as usize);
            let mut a: Vec<_> = plain[start..end].to_vec();
            let mut b: Vec<_> = settled[start..end].to_vec();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b);
        }
        // Equal sizes tie everywhere: every run stays with the ranking.
        let mut equal = quota_schedule(&[10; 4]);
        assert_eq!(
            settle_ties(&mut equal, &[10; 4]),
            tie_blocks(&quota_schedule(&[10; 4]))
        );
    }

    #[test]
    fn the_neyman_tree_gives_the_orders_of_the_direct_walk() {
        // Equal sizes, equal and zero spreads: ties that the ranking settles at many steps.
        let cases: Vec<(Vec<u32>, Vec<f64>)> = vec![
            (
                vec![22, 231, 34, 2, 1, 8, 22, 10, 19, 32, 44, 75],
                vec![
                    0.54, 0.53, 0.48, 0.0, 0.0, 0.66, 0.48, 0.0, 0.48, 0.5, 0.5, 0.52,
                ],
            ),
            (vec![10; 12], [vec![0.9], vec![0.0; 11]].concat()),
            (vec![5, 5, 5, 3, 3], vec![0.5, 0.5, 0.2, 0.0, 0.0]),
            (vec![40, 25, 10, 5], vec![0.1, 0.5, 0.5, 0.3]),
        ];
        // One scratch for every pair and order, as a replay keeps it: the tree must follow the pair.
        let mut scratch = OrderScratch::default();
        let mut grown = 0;
        for (case, (sizes, spread)) in cases.iter().enumerate() {
            let mut pair = pair_with_groups(sizes);
            pair.group_sd.clone_from(spread);
            pair.tested = case;
            let total: f64 = sizes
                .iter()
                .zip(spread)
                .map(|(&n, &sd)| f64::from(n) * sd)
                .sum();
            let shares: Vec<f64> = sizes
                .iter()
                .zip(spread)
                .map(|(&n, &sd)| f64::from(n) * sd / total)
                .collect();
            for index in 0..60 {
                let key = OrderKey {
                    kind: OrderKind::Neyman,
                    names: ("a", "b"),
                    seed: 11,
                    index,
                };
                let mut from_tree = Vec::new();
                build_order_with(&key, &pair, &mut scratch, usize::MAX, &mut from_tree);
                let mut direct = Vec::new();
                let mut rng = StreamKey::new(11, "order")
                    .str("a")
                    .str("b")
                    .str("neyman")
                    .u64(u64::from(index))
                    .rng();
                deadline_order(&pair, Some(&shares), &mut rng, &mut direct);
                assert_eq!(from_tree, direct, "sizes {sizes:?} order {index}");
            }
            grown += scratch.neyman.segments.len();
        }
        assert!(grown > 4, "no order ever settled a tie differently");
    }

    #[test]
    fn a_limited_order_is_the_prefix_of_the_full_order() {
        let pair = pair_with_groups(&[40, 25, 10, 5]);
        for kind in [OrderKind::Uniform, OrderKind::Stratified, OrderKind::Neyman] {
            let build = |limit: usize| {
                let key = OrderKey {
                    kind,
                    names: ("a", "b"),
                    seed: 5,
                    index: 3,
                };
                let mut order = Vec::new();
                build_order_with(&key, &pair, &mut OrderScratch::default(), limit, &mut order);
                order
            };
            let (full, short) = (build(usize::MAX), build(57));
            assert_eq!(short.len(), 57);
            assert_eq!(short[..], full[..57], "{}", kind.name());
            assert!(is_permutation(&full, 80));
        }
    }

    #[test]
    fn neyman_without_spread_is_stratified() {
        let pair = pair_with_groups(&[20, 10, 5]);
        let mut zero = pair.clone();
        zero.group_sd = vec![0.0; 3];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        build_order(OrderKind::Neyman, &zero, ("a", "b"), 4, 2, &mut a);
        build_order(OrderKind::Stratified, &zero, ("a", "b"), 4, 2, &mut b);
        let groups = |order: &[u32]| {
            order
                .iter()
                .map(|&i| zero.group_of[i as usize])
                .collect::<Vec<_>>()
        };
        assert_eq!(groups(&a), groups(&b));
    }

    #[test]
    fn uniform_orders_differ_by_index_and_repeat_by_key() {
        let pair = pair_with_groups(&[30]);
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        build_order(OrderKind::Uniform, &pair, ("x", "y"), 9, 0, &mut a);
        build_order(OrderKind::Uniform, &pair, ("x", "y"), 9, 0, &mut b);
        build_order(OrderKind::Uniform, &pair, ("x", "y"), 9, 1, &mut c);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(is_permutation(&a, 30));
        // The reverse direction draws its own orders.
        let mut d = Vec::new();
        build_order(OrderKind::Uniform, &pair, ("y", "x"), 9, 0, &mut d);
        assert_ne!(a, d);
    }

    #[test]
    fn cost_orders_are_cheapest_first_with_missing_costs_last() {
        let mut pair = pair_with_groups(&[5]);
        pair.cost_key = vec![3.0, f64::NAN, 1.0, 3.0, 2.0];
        let mut order = Vec::new();
        build_order(OrderKind::Cost, &pair, ("a", "b"), 0, 0, &mut order);
        assert_eq!(order[0], 2);
        assert_eq!(order[1], 4);
        assert!(order[2] == 0 || order[2] == 3);
        assert_eq!(order[4], 1);
        build_order(OrderKind::File, &pair, ("a", "b"), 0, 0, &mut order);
        assert_eq!(order, [0, 1, 2, 3, 4]);
    }
}
