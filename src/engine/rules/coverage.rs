//! The coverage rule of SPEC §5: for an observed prefix of k tasks, group g (n_g shared tasks out of N)
//! requires r_g = max(1, min(n_g, ⌊k·n_g/N⌋)) observed tasks. Infeasible when Σ r_g > k, missing when
//! some group has fewer than required, ok otherwise. Integer arithmetic only.

use serde::Serialize;

/// Coverage of one observed prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CoverageStatus {
    Ok,
    Missing,
    Infeasible,
}

impl CoverageStatus {
    pub fn name(self) -> &'static str {
        match self {
            CoverageStatus::Ok => "ok",
            CoverageStatus::Missing => "missing",
            CoverageStatus::Infeasible => "infeasible",
        }
    }
}

/// Required count r_g for a prefix of `k` tasks, a group of `n_g` and `n` shared tasks.
pub fn quota(k: u32, n_g: u32, n: u32) -> u32 {
    let proportional = (u64::from(k) * u64::from(n_g) / u64::from(n.max(1))) as u32;
    proportional.min(n_g).max(1)
}

/// The quota under a coverage share q = `share`/10,000 (SPEC §9a): max(1, min(n_g, ⌊q·k·n_g/N⌋)),
/// in integers; a share of 10,000 is [`quota`].
pub fn quota_share(k: u32, n_g: u32, n: u32, share: u32) -> u32 {
    if share >= SHARE_UNITS {
        return quota(k, n_g, n);
    }
    let proportional = (u64::from(k) * u64::from(n_g) * u64::from(share)
        / (u64::from(n.max(1)) * u64::from(SHARE_UNITS))) as u32;
    proportional.min(n_g).max(1)
}

/// The units of a coverage share (those of [`crate::engine::Fraction`]).
pub const SHARE_UNITS: u32 = 10_000;

/// The status for observed counts per group (`observed[g]` of `sizes[g]` tasks).
pub fn status(k: u32, observed: &[u32], sizes: &[u32], n: u32) -> CoverageStatus {
    // Without a buffer of quotas: a sequential monitor asks at many looks.
    let mut required_total = 0u64;
    let mut missing = false;
    for (&c, &n_g) in observed.iter().zip(sizes) {
        let r = quota(k, n_g, n);
        required_total += u64::from(r);
        missing |= c < r;
    }
    verdict(k, required_total, missing)
}

/// [`status`] under a coverage share (SPEC §9a), O(groups).
pub fn status_share(k: u32, observed: &[u32], sizes: &[u32], n: u32, share: u32) -> CoverageStatus {
    let mut required_total = 0u64;
    let mut missing = false;
    for (&c, &n_g) in observed.iter().zip(sizes) {
        let r = quota_share(k, n_g, n, share);
        required_total += u64::from(r);
        missing |= c < r;
    }
    verdict(k, required_total, missing)
}

pub(crate) fn verdict(k: u32, required_total: u64, missing: bool) -> CoverageStatus {
    if required_total > u64::from(k) {
        CoverageStatus::Infeasible
    } else if missing {
        CoverageStatus::Missing
    } else {
        CoverageStatus::Ok
    }
}

/// The status when the quotas r_g of this prefix are already known.
pub fn status_from_quotas(k: u32, observed: &[u32], quotas: &[u32]) -> CoverageStatus {
    let mut required_total = 0u64;
    let mut missing = false;
    for (&c, &r) in observed.iter().zip(quotas) {
        required_total += u64::from(r);
        missing |= c < r;
    }
    verdict(k, required_total, missing)
}

/// One group's line in a coverage table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupCoverage {
    pub group: String,
    pub required: u32,
    pub observed: u32,
    pub total: u32,
}

impl GroupCoverage {
    pub fn is_missing(&self) -> bool {
        self.observed < self.required
    }
}

/// The per-group table behind a status.
pub fn table(
    k: u32,
    observed: &[u32],
    sizes: &[u32],
    n: u32,
    labels: &[String],
    share: u32,
) -> Vec<GroupCoverage> {
    observed
        .iter()
        .zip(sizes)
        .zip(labels)
        .map(|((&c, &n_g), label)| GroupCoverage {
            group: label.clone(),
            required: quota_share(k, n_g, n, share),
            observed: c,
            total: n_g,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example_gives_10_6_4() {
        // N = 100, b = 0.20 → k = 20, groups of 50/30/20.
        assert_eq!(
            [quota(20, 50, 100), quota(20, 30, 100), quota(20, 20, 100)],
            [10, 6, 4]
        );
        assert_eq!(
            status(20, &[10, 6, 4], &[50, 30, 20], 100),
            CoverageStatus::Ok
        );
        assert_eq!(
            status(20, &[12, 6, 2], &[50, 30, 20], 100),
            CoverageStatus::Missing
        );
    }

    #[test]
    fn every_group_needs_one_task_so_small_prefixes_can_be_infeasible() {
        // 12 groups, k = 5: Σ r_g ≥ 12 > 5.
        let sizes = [40u32; 12];
        assert_eq!(
            status(5, &[1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], &sizes, 480),
            CoverageStatus::Infeasible
        );
    }

    #[test]
    fn one_group_is_always_ok_once_a_task_is_seen() {
        for k in 1..=50 {
            assert_eq!(status(k, &[k], &[50], 50), CoverageStatus::Ok);
        }
    }

    #[test]
    fn quota_never_exceeds_the_group() {
        assert_eq!(quota(100, 3, 100), 3);
        assert_eq!(quota(1, 3, 100), 1);
    }
}
