//! The coverage gate of a task-by-task walk (SPEC §5, §9): the quotas r_g of every prefix of one pair,
//! tabled once per pair and read by all its orders, and which prefixes of an order pass the gate, read
//! in one pass before the order is walked (so a look asks a bit, and the walk knows the last prefix
//! that passes). A prefix fails while some group is below its quota; that group (the blocker) stays
//! below while its count is under the quota it had when last checked, since its quota never falls, so
//! the pass compares one count with one number and reads quotas only when the blocker's count has
//! reached it; a new blocker is the group furthest below, which takes the most tasks to catch up.
//! The status equals [`coverage::status_share`] at every prefix (tested).

use crate::engine::rules::coverage::{self, CoverageStatus};

/// Tables of more quotas than this are not built (a pair of 100,000 tasks in 80 groups would need
/// 32 MB per thread); the gate then computes each quota it reads.
const MAX_TABLE: usize = 1 << 22;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gate {
    /// Whether the tables below are built (for `sizes` and `share`).
    built: bool,
    sizes: Vec<u32>,
    n: u32,
    share: u32,
    /// `table[k * groups + g]` = r_g at prefix k, for k = 0..=N (empty when too large).
    table: Vec<u32>,
    /// The groups whose quota rises at prefix k: `rising[rises_at[k]..rises_at[k + 1]]`.
    rising: Vec<u32>,
    rises_at: Vec<usize>,
    /// Bit k: whether prefix k of the order last read passes the gate (k = 0..=its length).
    open: Vec<u64>,
    /// The length and the last passing prefix of the order last read, when [`Gate::read_shared`]
    /// read it: the bits then hold for every stratified order of the pair.
    shared: Option<(usize, u32)>,
}

impl Gate {
    /// Gets ready for the orders of a pair with groups of `sizes` and coverage share `share` (in
    /// [`coverage::SHARE_UNITS`]); the tables depend on nothing else, so they are rebuilt only when
    /// either changes.
    pub fn start(&mut self, sizes: &[u32], share: u32) {
        let n: u32 = sizes.iter().sum();
        if !self.built || self.sizes != sizes || self.share != share {
            self.sizes.clear();
            self.sizes.extend_from_slice(sizes);
            self.n = n;
            self.share = share;
            self.table.clear();
            let entries = (n as usize + 1).saturating_mul(sizes.len());
            if entries <= MAX_TABLE {
                self.table.reserve(entries);
                for k in 0..=n {
                    self.table.extend(
                        sizes
                            .iter()
                            .map(|&size| coverage::quota_share(k, size, n, share)),
                    );
                }
            }
            self.built = true;
            self.shared = None;
            self.rising.clear();
            self.rises_at.clear();
            self.rises_at.push(0);
            for k in 0..=n {
                for g in 0..sizes.len() {
                    if k > 0 && self.quota(k, g) > self.quota(k - 1, g) {
                        self.rising.push(g as u32);
                    }
                }
                self.rises_at.push(self.rising.len());
            }
        }
        if self.shared.is_none() {
            self.open.clear();
        }
    }

    /// r_g at prefix `k`.
    #[inline]
    fn quota(&self, k: u32, g: usize) -> u32 {
        let groups = self.sizes.len();
        match self.table.get(k as usize * groups + g) {
            Some(&r) => r,
            None => coverage::quota_share(k, self.sizes[g], self.n, self.share),
        }
    }

    /// The quotas of prefix `k`, into `out`.
    pub fn quotas_into(&self, k: u32, out: &mut Vec<u32>) {
        out.clear();
        out.extend((0..self.sizes.len()).map(|g| self.quota(k, g)));
    }

    /// The full status of prefix `k` with `counts` observed per group, O(groups).
    pub fn status(&self, k: u32, counts: &[u32]) -> CoverageStatus {
        let mut required_total = 0u64;
        let mut missing = false;
        for (g, &c) in counts.iter().enumerate() {
            let r = self.quota(k, g);
            required_total += u64::from(r);
            missing |= c < r;
        }
        coverage::verdict(k, required_total, missing)
    }

    /// Reads an order ahead: `groups` are the groups of its tasks up to its last look. Marks each prefix
    /// that passes the gate, no group below its quota (such a prefix is feasible too: the counts sum to
    /// k, so the quotas sum to at most k), and returns the last one (0 if none). `counts` are zeros on
    /// entry and are left zeros.
    pub fn read(&mut self, groups: impl Iterator<Item = u32>, counts: &mut [u32]) -> u32 {
        self.shared = None;
        self.open.clear();
        let mut bits = 0u64;
        let mut last = 0;
        let mut k = 0u32;
        // The blocker and the quota it had to reach when last checked: it is still short while its
        // count is below that, since its quota has not fallen since. The empty prefix fails: every
        // quota is at least 1 (and a pair has a group).
        let mut blocker: Option<(usize, u32)> = Some((0, 1));
        for g in groups {
            counts[g as usize] += 1;
            k += 1;
            match blocker {
                Some((b, quota)) if counts[b] < quota => {}
                Some((b, _)) => blocker = self.furthest_below(k, counts, Some(b)),
                // The prefix before passed: only a group whose quota rose here can be short now.
                None => {
                    let rising =
                        &self.rising[self.rises_at[k as usize]..self.rises_at[k as usize + 1]];
                    blocker = rising.iter().find_map(|&h| {
                        let quota = self.quota(k, h as usize);
                        (counts[h as usize] < quota).then_some((h as usize, quota))
                    });
                }
            }
            if blocker.is_none() {
                bits |= 1 << (k % 64);
                last = k;
            }
            if k % 64 == 63 {
                self.open.push(bits);
                bits = 0;
            }
        }
        self.open.push(bits);
        counts.fill(0);
        last
    }

    /// The group below its quota at prefix `k` that is furthest below, with that quota (the blocker
    /// `was` if it is still below: its count reached the quota it had, but the quota has risen since),
    /// or None.
    #[inline(never)]
    fn furthest_below(&self, k: u32, counts: &[u32], was: Option<usize>) -> Option<(usize, u32)> {
        if let Some(b) = was {
            let quota = self.quota(k, b);
            if counts[b] < quota {
                return Some((b, quota));
            }
        }
        let mut furthest = None;
        let mut deficit = 0;
        for (g, &c) in counts.iter().enumerate() {
            let r = self.quota(k, g);
            if c < r && r - c > deficit {
                deficit = r - c;
                furthest = Some((g, r));
            }
        }
        debug_assert_eq!(
            furthest.is_none(),
            self.status(k, counts) == CoverageStatus::Ok
        );
        furthest
    }

    /// [`Gate::read`] for a stratified order under the full quotas (share 1), read once per pair.
    ///
    /// Such an order places the pair's (group, j-th task) items by their quota due times, the
    /// earliest first, whatever breaks the ties among equal ones (`orders::stratified_order`). So
    /// its first Σ_g r_g(k) positions hold every item due by k: a prefix k passes exactly when
    /// Σ_g r_g(k) ≤ k, which depends on the group sizes alone. The reading of the first order is
    /// kept for every later order of the same length (tests read every order of several group
    /// layouts, and check each bit against the order's own counts on real records).
    pub fn read_shared(
        &mut self,
        groups: impl ExactSizeIterator<Item = u32>,
        counts: &mut [u32],
    ) -> u32 {
        let len = groups.len();
        if let Some((read_len, last)) = self.shared
            && read_len == len
        {
            return last;
        }
        let last = self.read(groups, counts);
        self.shared = Some((len, last));
        last
    }

    /// Whether prefix `k` of the order last read passes the gate.
    #[inline]
    pub fn is_open(&self, k: u32) -> bool {
        self.open
            .get(k as usize / 64)
            .is_some_and(|bits| bits & (1 << (k % 64)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::streams::StreamKey;

    #[test]
    fn the_gate_and_the_status_match_the_counts_at_every_prefix() {
        for (case, sizes) in [
            vec![50u32, 30, 20],
            vec![1, 1, 7, 3],
            vec![12],
            vec![5, 9, 2, 2, 30],
        ]
        .into_iter()
        .enumerate()
        {
            let n: u32 = sizes.iter().sum();
            let mut tasks: Vec<u32> = sizes
                .iter()
                .enumerate()
                .flat_map(|(g, &size)| std::iter::repeat_n(g as u32, size as usize))
                .collect();
            for share in [coverage::SHARE_UNITS, 9_000, 5_000] {
                let mut tabled = Gate::default();
                let mut computed = Gate::default();
                for r in 0..30 {
                    StreamKey::new(3, "coverage")
                        .u64(case as u64)
                        .u64(r)
                        .rng()
                        .shuffle(&mut tasks);
                    tabled.start(&sizes, share);
                    computed.start(&sizes, share);
                    computed.table.clear();
                    let mut zeros = vec![0u32; sizes.len()];
                    let mut lasts = Vec::new();
                    for gate in [&mut tabled, &mut computed] {
                        lasts.push(gate.read(tasks.iter().copied(), &mut zeros));
                        assert!(zeros.iter().all(|&c| c == 0));
                    }
                    let mut counts = vec![0u32; sizes.len()];
                    let mut last_ok = 0;
                    for (k, &g) in tasks.iter().enumerate() {
                        counts[g as usize] += 1;
                        let k = k as u32 + 1;
                        let expected = coverage::status_share(k, &counts, &sizes, n, share);
                        if expected == CoverageStatus::Ok {
                            last_ok = k;
                        }
                        for gate in [&tabled, &computed] {
                            assert_eq!(gate.status(k, &counts), expected, "{sizes:?} k={k}");
                            assert_eq!(
                                gate.is_open(k),
                                expected == CoverageStatus::Ok,
                                "{sizes:?} k={k} share={share}"
                            );
                            let mut quotas = Vec::new();
                            gate.quotas_into(k, &mut quotas);
                            let direct: Vec<u32> = sizes
                                .iter()
                                .map(|&s| coverage::quota_share(k, s, n, share))
                                .collect();
                            assert_eq!(quotas, direct);
                        }
                    }
                    assert!(!tabled.is_open(0));
                    assert_eq!(lasts, vec![last_ok, last_ok], "{sizes:?} share={share}");
                }
            }
        }
    }

    #[test]
    fn a_gate_moved_to_other_groups_rebuilds_its_table() {
        let mut gate = Gate::default();
        gate.start(&[2, 2], coverage::SHARE_UNITS);
        assert_eq!(gate.quota(4, 0), 2);
        gate.start(&[1, 3], coverage::SHARE_UNITS);
        assert_eq!(gate.quota(4, 0), 1);
        assert_eq!(gate.quota(4, 1), 3);
    }
}
