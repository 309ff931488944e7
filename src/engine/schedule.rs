//! The quota schedule of a pair's groups (SPEC §3, §5): when each group's j-th task falls due under
//! the coverage quotas, the runs of equal due times that an order's random ranking must settle, and how
//! many tasks each prefix can spare. Computed once per pair (`pair`) and read by every order (`orders`).

use super::coverage::quota;

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
