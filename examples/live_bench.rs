//! Measures one look of a live run under the stratified anytime rule (SPEC §9a): `decide` on the
//! outcomes so far, and `watch`'s whole refresh (the decisions, the §9a band and the Λ curves) after
//! each poll of 10 tasks, with 12 groups and 2,000 planned tasks (target ≤ 1 ms per look). Used by
//! `bench/run live`; not a test, because timing on a shared machine is not a pass/fail property.
//!
//! cargo run --release --example live_bench

use std::time::Instant;

use pareval::engine::live::{LivePlan, LiveSettings, decide_live};
use pareval::engine::record::Provenance;
use pareval::engine::settings::{BootstrapMode, Fraction, Preset, Threshold};
use pareval::engine::streams::StreamKey;
use pareval::watch::follow::{Event, OutcomeRow};
use pareval::watch::state::{Baselines, WatchState};

const TASKS: usize = 2000;
const GROUPS: usize = 12;

fn main() {
    // Groups of unequal size (about 2:1 from the first to the last), tasks in a quota-meeting
    // interleaving (largest proportional deficit first), as `pareval plan` would run them.
    let sizes: Vec<usize> = {
        let weights: Vec<usize> = (0..GROUPS).map(|g| 24 - g).collect();
        let total: usize = weights.iter().sum();
        let mut sizes: Vec<usize> = weights.iter().map(|w| w * TASKS / total).collect();
        let short = TASKS - sizes.iter().sum::<usize>();
        sizes[0] += short;
        sizes
    };
    let mut taken = [0usize; GROUPS];
    let mut groups = Vec::with_capacity(TASKS);
    for k in 1..=TASKS {
        let g = (0..GROUPS)
            .filter(|&g| taken[g] < sizes[g])
            .max_by_key(|&g| (k * sizes[g]) as i64 * 1000 / TASKS as i64 - taken[g] as i64 * 1000)
            .expect("a group with tasks left");
        taken[g] += 1;
        groups.push(g as u32);
    }
    let plan = LivePlan {
        tasks: (0..TASKS).map(|i| format!("t{i:04}")).collect(),
        groups,
        labels: (0..GROUPS).map(|g| format!("g{g:02}")).collect(),
    };
    // A strong (70%) and a weak (64%) system: close enough that neither test decides early.
    let mut rng = StreamKey::new(1, "live-bench").rng();
    let mut draw = |p: f64| {
        f64::from(u8::from(
            (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p,
        ))
    };
    let strong: Vec<f64> = (0..TASKS).map(|_| draw(0.70)).collect();
    let weak: Vec<f64> = (0..TASKS).map(|_| draw(0.64)).collect();
    let mut policy = Preset::Anytime.policy(BootstrapMode::Exact, Fraction(500));
    policy.order = pareval::engine::OrderKind::Stratified;
    let provenance = Provenance::new(&[]);
    let mut all_settings = Vec::new();
    for thresholds in [
        vec![Threshold(0)],
        vec![Threshold(0), Threshold(500), Threshold(1000)],
    ] {
        let live = LiveSettings {
            policy,
            thresholds,
            seed: 0,
            budget: Fraction::ONE,
            reading: Default::default(),
        };
        println!(
            "decide under §9a, {GROUPS} groups, {TASKS} planned tasks, thresholds {} (target ≤ 1 ms per look)",
            live.thresholds
                .iter()
                .map(|t| format!("{} pp", t.pp()))
                .collect::<Vec<_>>()
                .join("/")
        );
        for observed in [250, 500, 1000, 2000] {
            let prefix = |outcomes: &[f64]| -> Vec<Option<f64>> {
                (0..TASKS)
                    .map(|i| (i < observed).then_some(outcomes[i]))
                    .collect()
            };
            let (tested, baseline) = (prefix(&strong), prefix(&weak));
            // 15 batches of 10 looks: the median batch says what a look costs here, the best one
            // what it costs when nothing else on the machine gets in the way.
            let mut batches = Vec::with_capacity(15);
            let mut actions = String::new();
            for _ in 0..15 {
                let started = Instant::now();
                for _ in 0..10 {
                    let records = decide_live(
                        &plan,
                        ("strong", "weak"),
                        &tested,
                        &baseline,
                        &live,
                        &provenance,
                    );
                    actions = records
                        .iter()
                        .map(|r| r.action.name())
                        .collect::<Vec<_>>()
                        .join("/");
                }
                batches.push(started.elapsed().as_secs_f64() * 1000.0 / 10.0);
            }
            batches.sort_by(f64::total_cmp);
            println!(
                "  {observed:>4} observed: {:.2} ms per look (median of 15 batches; best {:.2}) ({actions})",
                batches[batches.len() / 2],
                batches[0]
            );
        }
        all_settings.push(live);
    }
    // watch: one poll of 10 new tasks at 2,000 − 10 observed, then the whole refresh.
    let rows = |upto: usize, from: usize| -> Vec<Event> {
        (from..upto)
            .flat_map(|i| {
                [("strong", strong[i]), ("weak", weak[i])].map(|(system, outcome)| Event::Row {
                    file: "live.csv".to_string(),
                    line: i as u64 + 2,
                    row: OutcomeRow {
                        system: system.to_string(),
                        task: plan.tasks[i].clone(),
                        run: "0".to_string(),
                        outcome,
                        errored: false,
                    },
                })
            })
            .collect()
    };
    for settings in all_settings {
        let mut state = WatchState::new(
            plan.clone(),
            "strong".to_string(),
            Baselines::Named(vec!["weak".to_string()]),
            settings.clone(),
            provenance.clone(),
        );
        // Polls of 10 tasks each from 1,000 to 2,000 observed: the mean and the slowest refresh.
        state.apply(rows(TASKS / 2, 0));
        let (mut total, mut worst, mut polls) = (0.0f64, 0.0f64, 0);
        for from in (TASKS / 2..TASKS).step_by(10) {
            let events = rows(from + 10, from);
            let started = Instant::now();
            state.apply(events);
            let took = started.elapsed().as_secs_f64() * 1000.0;
            total += took;
            worst = worst.max(took);
            polls += 1;
        }
        println!(
            "watch refresh after each poll of 10 tasks from {} to {TASKS} observed, {} thresholds (decisions, §9a band on a 2 pp grid of nulls, curves): {:.2} ms on average, slowest {:.2} ms (target ≤ 1 ms per look)",
            TASKS / 2,
            settings.thresholds.len(),
            total / f64::from(polls),
            worst
        );
    }
}
