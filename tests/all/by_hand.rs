//! The replay metrics of SPEC §7 on a record small enough to count by hand: three systems, four tasks
//! in two groups, the `file` order (every order is the record's own, so each case is known exactly).
//! Every figure below is worked out in the comments from the outcomes alone, not read from the program.
//!
//! ```text
//!          t1 t2 | t3 t4      groups: t1, t2 in g1; t3, t4 in g2
//!     A     1  1 |  0  0      mean 0.5
//!     B     0  0 |  1  1      mean 0.5
//!     C     0  0 |  0  0      mean 0
//! ```
//!
//! Directed pairs and Δ_full at δ = 0: A−B 0, B−A 0, C−A −0.5, C−B −0.5 (completed: reject, 4 pairs);
//! A−C 0.5, B−C 0.5 (completed: promote, 2 pairs).

use pareval::data::{LoadOptions, load};
use pareval::engine::metrics::BudgetRow;
use pareval::engine::settings::{
    BootstrapMode, Fraction, OrderKind, Policy, ReplaySettings, Rule, Threshold,
};
use pareval::engine::{Control, replay};

use crate::common::temp_dir;

const RECORD: &str = "system,task,group,outcome
A,t1,g1,1
A,t2,g1,1
A,t3,g2,0
A,t4,g2,0
B,t1,g1,0
B,t2,g1,0
B,t3,g2,1
B,t4,g2,1
C,t1,g1,0
C,t2,g1,0
C,t3,g2,0
C,t4,g2,0
";

/// The rows of the 0 pp threshold at budgets 25%, 50% and 75% (k = 1, 2, 3 tasks), 3 orders per pair.
fn rows(coverage_gate: bool, rule: Rule) -> Vec<BudgetRow> {
    let dir = temp_dir("by-hand");
    let path = dir.join("record.csv");
    std::fs::write(&path, RECORD).expect("write record");
    let dataset = load(&[path], &LoadOptions::default()).expect("load");
    let settings = ReplaySettings {
        policy: Policy {
            order: OrderKind::File,
            coverage_gate,
            rule,
            tail: Fraction(500),
            degenerate: Default::default(),
            monitor: Default::default(),
            looks: Default::default(),
            family: Default::default(),
            adjust: Default::default(),
            coverage_share: Fraction::ONE,
        },
        thresholds: vec![Threshold(0)],
        grid: vec![Fraction(2500), Fraction(5000), Fraction(7500)],
        orders: 3,
        group_column: Some("group".to_string()),
        ..ReplaySettings::for_preset(pareval::engine::Preset::Primary)
    };
    let result = replay(
        &dataset,
        &settings,
        &Control::default(),
        pareval::engine::ReplayOptions::default(),
    )
    .expect("replay");
    result.metrics.thresholds[0].rows.clone()
}

/// (promote, reject, abstain, false promotions, false rejections, coverage failures) per budget, over
/// 6 pairs × 3 orders = 18 cases, and the four rates.
fn check(row: &BudgetRow, counts: [u32; 6], rates: (Option<f64>, Option<f64>, f64, f64)) {
    assert_eq!(row.cases, 18, "budget {}", row.budget);
    assert_eq!(row.completed_reject_cases, 12);
    assert_eq!(row.completed_promote_cases, 6);
    let seen = [
        row.promote,
        row.reject,
        row.abstain,
        row.false_promotions,
        row.false_rejections,
        row.coverage_failures,
    ];
    assert_eq!(seen, counts, "budget {}", row.budget);
    assert_eq!(
        (row.fpr, row.frr, row.coverage_failure, row.unresolved),
        rates,
        "budget {}",
        row.budget
    );
}

#[test]
fn forced_decisions_without_the_gate_count_by_hand() {
    let rows = rows(false, Rule::Forced);
    // k = 1 (t1) and k = 2 (t1, t2) see only g1. Differences on the prefix:
    //   A−B +1 → promote (false), B−A −1 → reject, A−C +1 → promote, C−A −1 → reject,
    //   B−C 0 → reject (false: completed promote), C−B 0 → reject.
    // Coverage: k = 1 has quotas 1 + 1 > 1 (infeasible); k = 2 has quota 1 in g2 and none observed
    // (missing). Every decision is made without coverage: 6 of 6 pairs.
    // FPR = 1 of 4 completed-reject pairs; FRR = 1 of 2 completed-promote pairs.
    for row in &rows[..2] {
        check(row, [6, 12, 0, 3, 3, 18], (Some(0.25), Some(0.5), 1.0, 0.0));
    }
    // k = 3 (t1, t2, t3): quotas 1 and 1, observed 2 and 1: coverage ok.
    //   A−B (1, 1, −1) +1/3 → promote (false); B−A → reject; A−C (1, 1, 0) → promote;
    //   C−A → reject; B−C (0, 0, 1) +1/3 → promote; C−B → reject. FPR 1/4, FRR 0.
    check(
        &rows[2],
        [9, 9, 0, 3, 0, 0],
        (Some(0.25), Some(0.0), 0.0, 0.0),
    );
}

#[test]
fn the_coverage_gate_abstains_where_groups_are_missing() {
    let rows = rows(true, Rule::Forced);
    // k = 1 and 2 miss g2 (see above): every case abstains, so nothing is promoted or rejected.
    for row in &rows[..2] {
        check(row, [0, 0, 18, 0, 0, 0], (Some(0.0), Some(0.0), 0.0, 1.0));
    }
    // k = 3 covers both groups: the forced decisions of the test above.
    check(
        &rows[2],
        [9, 9, 0, 3, 0, 0],
        (Some(0.25), Some(0.0), 0.0, 0.0),
    );
}

#[test]
fn exact_bootstrap_decisions_count_by_hand() {
    let rows = rows(true, Rule::Bootstrap(BootstrapMode::Exact));
    // k = 3, a = 0.05. Resampling 3 differences with replacement:
    //   A−B (1, 1, −1): R_promote = P(mean* ≤ 0) = P(at least two −1) = 3·(1/3)²·(2/3) + (1/3)³ = 7/27 → abstain
    //   B−A (−1, −1, 1): R_reject = P(mean* > 0) = 7/27 → abstain
    //   A−C (1, 1, 0): R_promote = P(all three draws 0) = 1/27 ≈ 0.037 ≤ 0.05 → promote (right)
    //   C−A (−1, −1, 0): R_reject = P(mean* > 0) = 0 → reject (right)
    //   B−C (0, 0, 1): R_promote = P(all three draws 0) = 8/27 → abstain
    //   C−B (0, 0, −1): R_reject = P(mean* > 0) = 0 → reject (right)
    // Unresolved 3 of 6 pairs; no wrong decision; coverage ok.
    check(
        &rows[2],
        [3, 6, 9, 0, 0, 0],
        (Some(0.0), Some(0.0), 0.0, 0.5),
    );
}
