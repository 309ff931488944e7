//! The halting rule of SPEC §11 on one trajectory's calibrated probabilities: at prefix k < T, halt
//! and score 1 when the success probability reaches τ_s, else halt and score 0 when the failure
//! probability reaches τ_f (both: the larger decides); a trajectory never halted keeps its true
//! outcome at T.

use serde::Serialize;

/// Which model fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fired {
    Success,
    Failure,
}

/// Where a trajectory stopped and what it was scored.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Halt {
    /// Steps run: the prefix length k where it halted, or T.
    pub steps_run: usize,
    /// The model that fired and its probability (None when it ran to the end).
    pub fired: Option<(Fired, f64)>,
    /// The early outcome: 1 or 0 when halted, the true outcome otherwise.
    pub outcome: f64,
}

/// The thresholds of the two models.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub success: f64,
    pub failure: f64,
}

impl Thresholds {
    /// τ_s = τ_f = τ, the default.
    pub fn both(tau: f64) -> Self {
        Thresholds {
            success: tau,
            failure: tau,
        }
    }
}

/// Whether τ is a threshold a model may halt at: in (0.5, 1] (at 0.5 or below both models could
/// fire on one prefix; above 1 none ever fires).
pub fn is_threshold(tau: f64) -> bool {
    tau > 0.5 && tau <= 1.0
}

/// The SPEC's τ sweep.
pub const TAU_SWEEP: [f64; 6] = [0.75, 0.80, 0.85, 0.90, 0.95, 0.99];

/// The rule at one prefix: which model fires at probabilities (s, f), and its probability; when both
/// reach their thresholds the larger decides (a tie goes to success).
pub fn fires(s: f64, f: f64, thresholds: Thresholds) -> Option<(Fired, f64)> {
    match (s >= thresholds.success, f >= thresholds.failure) {
        (true, true) if f > s => Some((Fired::Failure, f)),
        (true, _) => Some((Fired::Success, s)),
        (false, true) => Some((Fired::Failure, f)),
        (false, false) => None,
    }
}

/// Applies the halting rule to the probabilities of prefixes k = 1 … T−1 (`p_success[k-1]`), for a
/// trajectory of `steps` steps whose true outcome is `outcome`.
pub fn halt(
    p_success: &[f64],
    p_failure: &[f64],
    thresholds: Thresholds,
    steps: usize,
    outcome: f64,
) -> Halt {
    for (k, (&s, &f)) in p_success.iter().zip(p_failure).enumerate() {
        if let Some((model, probability)) = fires(s, f, thresholds) {
            return Halt {
                steps_run: k + 1,
                fired: Some((model, probability)),
                outcome: if model == Fired::Success { 1.0 } else { 0.0 },
            };
        }
    }
    Halt {
        steps_run: steps,
        fired: None,
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_prefix_over_a_threshold_halts() {
        let tau = Thresholds::both(0.9);
        // Success reaches 0.9 at k = 3.
        let h = halt(&[0.5, 0.8, 0.9, 0.95], &[0.1, 0.1, 0.05, 0.0], tau, 5, 0.0);
        assert_eq!(h.steps_run, 3);
        assert_eq!(h.fired, Some((Fired::Success, 0.9)));
        assert_eq!(h.outcome, 1.0);
        // Failure fires at k = 2; the true outcome does not matter.
        let h = halt(&[0.1, 0.05], &[0.6, 0.97], tau, 3, 1.0);
        assert_eq!((h.steps_run, h.outcome), (2, 0.0));
        // Neither ever: the run goes to T with its true outcome.
        let h = halt(&[0.5, 0.6], &[0.4, 0.3], tau, 3, 1.0);
        assert_eq!((h.steps_run, h.fired, h.outcome), (3, None, 1.0));
    }

    #[test]
    fn both_firing_lets_the_larger_decide_and_thresholds_differ() {
        let h = halt(&[0.92], &[0.95], Thresholds::both(0.9), 2, 1.0);
        assert_eq!(h.fired, Some((Fired::Failure, 0.95)));
        let h = halt(&[0.96], &[0.95], Thresholds::both(0.9), 2, 0.0);
        assert_eq!(h.fired, Some((Fired::Success, 0.96)));
        // τ_s = 0.99 holds success back while τ_f = 0.8 lets failure fire.
        let h = halt(
            &[0.95, 0.95],
            &[0.5, 0.85],
            Thresholds {
                success: 0.99,
                failure: 0.8,
            },
            3,
            1.0,
        );
        assert_eq!((h.steps_run, h.outcome), (2, 0.0));
        // Empty probabilities (T = 1): nothing to halt at.
        assert_eq!(halt(&[], &[], Thresholds::both(0.5), 1, 1.0).steps_run, 1);
    }
}
