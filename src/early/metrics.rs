//! Metrics of early outcome prediction (SPEC §11). So far: the area under the ROC curve of a model's
//! probabilities on test prefixes, and where it counts as near chance.

/// AUC by the Mann–Whitney statistic, ties at their mid-rank; `None` without both classes.
pub fn auc(scores: &[f64], positive: &[bool]) -> Option<f64> {
    let ranks = crate::proxy::stats::ranks(scores);
    let positives = positive.iter().filter(|&&p| p).count() as f64;
    let negatives = scores.len() as f64 - positives;
    let rank_sum: f64 = ranks
        .iter()
        .zip(positive)
        .filter(|(_, p)| **p)
        .map(|(r, _)| r)
        .sum();
    (positives > 0.0 && negatives > 0.0)
        .then(|| (rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives))
}

/// Below this held-out AUC a predictor barely tells outcomes apart (the independent check of issue
/// 21 found no signal at 0.53–0.59): halts at a fixed τ then follow noise, and the reports say so.
pub const NEAR_CHANCE_AUC: f64 = 0.6;

/// Whether a held-out AUC is near chance or below it.
pub fn near_chance(auc: f64) -> bool {
    auc < NEAR_CHANCE_AUC
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_counts_ordered_pairs_and_half_ties() {
        // Positives 0.9, 0.4; negatives 0.5, 0.1: pairs (0.9>0.5, 0.9>0.1, 0.4<0.5, 0.4>0.1) → 3/4.
        assert_eq!(
            auc(&[0.9, 0.4, 0.5, 0.1], &[true, true, false, false]),
            Some(0.75)
        );
        // A tie between a positive and a negative counts one half.
        assert_eq!(auc(&[0.5, 0.5], &[true, false]), Some(0.5));
        assert_eq!(auc(&[0.2, 0.3], &[true, true]), None);
    }
}
