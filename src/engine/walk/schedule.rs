//! The quota schedule of a pair's groups (SPEC §3, §5): when each group's j-th task falls due under
//! the coverage quotas, the runs of equal due times that an order's random ranking must settle, and how
//! many tasks each prefix can spare. Computed once per pair (`pair`) and read by every order (`orders`).

use crate::engine::rules::coverage::quota;

/// Every (due time, group) of the quota deadlines of a pair, sorted by due time (ties by group, resolved
/// per order). Due times strictly increase within a group, so each group appears at most once per due time.
pub fn quota_schedule(sizes: &[u32]) -> Vec<(u64, u32)> {
    let n: u32 = sizes.iter().sum();
    let mut items: Vec<(u64, u32)> = Vec::with_capacity(n as usize);
    for (g, &size) in sizes.iter().enumerate() {
        items.extend((1..=size).map(|j| (quota_due(j, size, n), g as u32)));
    }
    items.sort_unstable();
    items
}

/// slack[T] = T − Σ_g r_g(T) for T = 0..=N: how many tasks a prefix of T can spare beyond its quotas.
pub fn initial_slack(sizes: &[u32]) -> Vec<i64> {
    let n: u32 = sizes.iter().sum();
    (0..=n)
        .map(|t| {
            let due: u64 = sizes.iter().map(|&size| u64::from(quota(t, size, n))).sum();
            i64::from(t) - due as i64
        })
        .collect()
}

/// The runs (start, end) of two or more equal due times in a quota schedule: the only places where an
/// order's random ranking can change the group sequence.
pub fn tie_blocks(schedule: &[(u64, u32)]) -> Vec<(u32, u32)> {
    let mut blocks = Vec::new();
    let mut start = 0;
    while start < schedule.len() {
        let end = start
            + schedule[start..]
                .iter()
                .take_while(|item| item.0 == schedule[start].0)
                .count();
        if end - start > 1 {
            blocks.push((start as u32, end as u32));
        }
        start = end;
    }
    blocks
}

/// Orders, in place, the runs of equal due times in `schedule` that the deficits settle alone, and
/// returns the runs the random ranking must settle per order. At a run starting at position s, the
/// k-th pick is k = s + 1 and every group's count taken so far is its items before s, whatever any
/// earlier run's order was (each run holds a group at most once), so the deficits k·n_g − c_g·N are the
/// same in every order; only a tie for the largest deficit needs the ranking.
pub fn settle_ties(schedule: &mut [(u64, u32)], sizes: &[u32]) -> Vec<(u32, u32)> {
    let n = u64::from(sizes.iter().sum::<u32>());
    let mut taken = vec![0u64; sizes.len()];
    let mut position = 0;
    let mut ranked = Vec::new();
    let mut block = Vec::new();
    let mut settled = Vec::new();
    for (start, end) in tie_blocks(schedule) {
        for &(_, g) in &schedule[position..start as usize] {
            taken[g as usize] += 1;
        }
        block.clear();
        block.extend(
            schedule[start as usize..end as usize]
                .iter()
                .map(|item| item.1),
        );
        settled.clear();
        let mut k = u64::from(start) + 1;
        let mut by_deficit = true;
        while !block.is_empty() {
            let deficit = |x: usize| (k * u64::from(sizes[x])) as i128 - (taken[x] * n) as i128;
            let best = (0..block.len())
                .max_by_key(|&i| deficit(block[i] as usize))
                .unwrap_or(0);
            let top = deficit(block[best] as usize);
            if block
                .iter()
                .filter(|&&g| deficit(g as usize) == top)
                .count()
                > 1
            {
                by_deficit = false;
            }
            let g = block.swap_remove(best);
            taken[g as usize] += 1;
            settled.push(g);
            k += 1;
        }
        if by_deficit {
            for (item, &g) in schedule[start as usize..end as usize]
                .iter_mut()
                .zip(&settled)
            {
                item.1 = g;
            }
        } else {
            ranked.push((start, end));
        }
        position = end as usize;
    }
    ranked
}

/// The smallest prefix k at which the coverage quota asks for a j-th task of a group of `size` out of `n`.
pub fn quota_due(j: u32, size: u32, n: u32) -> u64 {
    if j <= 1 {
        1
    } else {
        (u64::from(j) * u64::from(n)).div_ceil(u64::from(size))
    }
}

/// Where each schedule item's task is drawn in an order's pool of group members (every group's members
/// one group after another): (the position of the draw, the end of its group). A group's j-th item draws
/// at its start + j − 1; each run of equal due times holds a group once, so the positions of a run's
/// items hold whichever order the run is picked in.
pub fn pool_slots(schedule: &[(u64, u32)], sizes: &[u32]) -> Vec<(u32, u32)> {
    let mut start = Vec::with_capacity(sizes.len() + 1);
    let mut total = 0;
    for &size in sizes {
        start.push(total);
        total += size;
    }
    start.push(total);
    let mut next = start.clone();
    schedule
        .iter()
        .map(|&(_, g)| {
            let g = g as usize;
            let slot = (next[g], start[g + 1]);
            next[g] += 1;
            slot
        })
        .collect()
}

/// Decision trees with more nodes than this are not built: such a run is resolved per order by scanning
/// its deficits (many groups of one size tie with each other in every order).
const MAX_TIE_NODES: usize = 64;

/// How one run of equal due times that the deficits do not settle resolves under any ranking of the
/// groups: inner nodes compare two groups' ranks, leaves hold the run's positions (0 for the run's
/// first schedule item) in pick order. Built once
/// per pair by replaying the per-order resolution with each tie left open, so an order reads its pick
/// order with a few rank comparisons instead of scanning the run's deficits at every pick.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TieTree {
    nodes: Vec<TieNode>,
    sequences: Vec<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TieNode {
    /// Go to `less` when rank[a] < rank[b], else to `other`.
    Compare {
        a: u32,
        b: u32,
        less: u32,
        other: u32,
    },
    /// The pick order is `sequences[start..end]`.
    Leaf { start: u32, end: u32 },
}

impl TieTree {
    /// The run's positions in pick order under the order's group ranking `rank`.
    pub fn resolve(&self, rank: &[u32]) -> &[u32] {
        let mut node = 0;
        loop {
            match self.nodes[node] {
                TieNode::Compare { a, b, less, other } => {
                    node = if rank[a as usize] < rank[b as usize] {
                        less
                    } else {
                        other
                    } as usize;
                }
                TieNode::Leaf { start, end } => {
                    return &self.sequences[start as usize..end as usize];
                }
            }
        }
    }
}

/// A run's pick order, or the first rank comparison the known outcomes do not answer.
enum Resolution {
    Picks(Vec<u32>),
    Open(u32, u32),
}

/// The per-order resolution of a run (as in `orders::stratified_order`): at each pick the group with
/// the largest deficit k·n_g − c_g·N, ties to the smaller rank, with rank comparisons answered by
/// `known` ((a, b, rank[a] < rank[b])).
fn resolve_run(
    groups: &[u32],
    first_k: u64,
    taken: &[u64],
    sizes: &[u32],
    n: u64,
    known: &[(u32, u32, bool)],
) -> Resolution {
    let less = |a: u32, b: u32| {
        known.iter().find_map(|&(x, y, x_less)| {
            if (x, y) == (a, b) {
                Some(x_less)
            } else if (x, y) == (b, a) {
                Some(!x_less)
            } else {
                None
            }
        })
    };
    let mut taken = taken.to_vec();
    let mut block = groups.to_vec();
    let mut picks = Vec::with_capacity(groups.len());
    let mut k = first_k;
    while !block.is_empty() {
        let mut best = 0;
        for candidate in 1..block.len() {
            let (g, b) = (block[candidate], block[best]);
            let deficit = |x: u32| {
                (k * u64::from(sizes[x as usize])) as i128 - (taken[x as usize] * n) as i128
            };
            let (dg, db) = (deficit(g), deficit(b));
            let better = if dg == db {
                match less(g, b) {
                    Some(answer) => answer,
                    None => return Resolution::Open(g, b),
                }
            } else {
                dg > db
            };
            if better {
                best = candidate;
            }
        }
        let g = block.swap_remove(best);
        taken[g as usize] += 1;
        picks.push(g);
        k += 1;
    }
    Resolution::Picks(picks)
}

/// A run of equal due times with what is fixed before it: its groups in schedule order and the tasks
/// taken from every group before it (each run holds a group at most once, so these counts do not
/// depend on how earlier runs were ordered).
struct RunStart {
    start: u32,
    groups: Vec<u32>,
    taken: Vec<u64>,
}

fn run_starts(schedule: &[(u64, u32)], runs: &[(u32, u32)], groups: usize) -> Vec<RunStart> {
    let mut taken = vec![0u64; groups];
    let mut position = 0;
    runs.iter()
        .map(|&(start, end)| {
            for &(_, g) in &schedule[position..start as usize] {
                taken[g as usize] += 1;
            }
            position = start as usize;
            RunStart {
                start,
                groups: schedule[start as usize..end as usize]
                    .iter()
                    .map(|item| item.1)
                    .collect(),
                taken: taken.clone(),
            }
        })
        .collect()
}

/// The decision tree of every run the ranking must settle (`runs`, from [`settle_ties`]), in the same
/// order; `None` for a run whose tree would exceed [`MAX_TIE_NODES`].
pub fn tie_trees(
    schedule: &[(u64, u32)],
    runs: &[(u32, u32)],
    sizes: &[u32],
) -> Vec<Option<TieTree>> {
    let n = u64::from(sizes.iter().sum::<u32>());
    run_starts(schedule, runs, sizes.len())
        .into_iter()
        .map(|run| {
            let mut tree = TieTree::default();
            let first_k = u64::from(run.start) + 1;
            let context = (first_k, run.taken.as_slice(), sizes, n);
            grow(&mut tree, &run.groups, context, &mut Vec::new()).map(|_| tree)
        })
        .collect()
}

/// What a run's resolution needs besides its groups: the first pick's k, the counts taken before the
/// run, the group sizes and N.
type RunContext<'a> = (u64, &'a [u64], &'a [u32], u64);

/// Adds the subtree under the comparisons `known` to `tree`; returns its node index, or None past the cap.
fn grow(
    tree: &mut TieTree,
    groups: &[u32],
    context: RunContext<'_>,
    known: &mut Vec<(u32, u32, bool)>,
) -> Option<u32> {
    let (first_k, taken, sizes, n) = context;
    if tree.nodes.len() >= MAX_TIE_NODES {
        return None;
    }
    let index = tree.nodes.len() as u32;
    match resolve_run(groups, first_k, taken, sizes, n, known) {
        Resolution::Picks(picks) => {
            let start = tree.sequences.len() as u32;
            // Leaves hold positions within the run (each group stands there once), not group ids.
            tree.sequences.extend(
                picks
                    .iter()
                    .filter_map(|g| groups.iter().position(|x| x == g).map(|i| i as u32)),
            );
            tree.nodes.push(TieNode::Leaf {
                start,
                end: tree.sequences.len() as u32,
            });
        }
        Resolution::Open(a, b) => {
            tree.nodes.push(TieNode::Compare {
                a,
                b,
                less: 0,
                other: 0,
            });
            known.push((a, b, true));
            let less = grow(tree, groups, context, known);
            known.pop();
            known.push((a, b, false));
            let other = grow(tree, groups, context, known);
            known.pop();
            tree.nodes[index as usize] = TieNode::Compare {
                a,
                b,
                less: less?,
                other: other?,
            };
        }
    }
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::streams::StreamKey;

    /// Every run's tree gives the pick order of scanning the deficits with the ranking's answers.
    #[test]
    fn tie_trees_pick_as_the_deficit_scan_does_under_any_ranking() {
        for sizes in [
            vec![231u32, 75, 44, 34, 32, 22, 22, 19, 11, 6, 3, 1],
            vec![6, 6, 6, 3],
            vec![9, 9, 4, 4, 1],
        ] {
            let n = u64::from(sizes.iter().sum::<u32>());
            let mut schedule = quota_schedule(&sizes);
            let runs = settle_ties(&mut schedule, &sizes);
            let trees = tie_trees(&schedule, &runs, &sizes);
            assert!(trees.iter().any(Option::is_some), "{sizes:?}");
            for (run, tree) in run_starts(&schedule, &runs, sizes.len()).iter().zip(&trees) {
                for seed in 0..50 {
                    let mut rank: Vec<u32> = (0..sizes.len() as u32).collect();
                    StreamKey::new(seed, "rank").rng().shuffle(&mut rank);
                    let answers: Vec<(u32, u32, bool)> = (0..sizes.len() as u32)
                        .flat_map(|a| (0..sizes.len() as u32).map(move |b| (a, b)))
                        .map(|(a, b)| (a, b, rank[a as usize] < rank[b as usize]))
                        .collect();
                    let first_k = u64::from(run.start) + 1;
                    let Resolution::Picks(scan) =
                        resolve_run(&run.groups, first_k, &run.taken, &sizes, n, &answers)
                    else {
                        panic!("every comparison is answered");
                    };
                    if let Some(tree) = tree {
                        let picks: Vec<u32> = tree
                            .resolve(&rank)
                            .iter()
                            .map(|&i| run.groups[i as usize])
                            .collect();
                        assert_eq!(picks, scan, "{sizes:?} run at {} seed {seed}", run.start);
                    }
                }
            }
        }
    }

    #[test]
    fn runs_of_many_equal_groups_are_left_to_the_scan() {
        // Twelve groups of one size tie at every pick: the tree would need a node per ranking.
        let sizes = [10u32; 12];
        let mut schedule = quota_schedule(&sizes);
        let runs = settle_ties(&mut schedule, &sizes);
        let trees = tie_trees(&schedule, &runs, &sizes);
        assert!(!runs.is_empty() && trees.iter().all(Option::is_none));
    }

    #[test]
    fn pool_slots_count_each_group_from_its_start() {
        let schedule = [(1, 0), (1, 1), (2, 0), (3, 0), (3, 1)];
        assert_eq!(
            pool_slots(&schedule, &[3, 2]),
            [(0, 3), (3, 5), (1, 3), (2, 3), (4, 5)]
        );
    }
}
