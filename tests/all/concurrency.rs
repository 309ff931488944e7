//! SPEC §9c: a simulated concurrent harness. Two systems of exactly equal score each run a stratified
//! plan in order on W workers; the tested system's failures take 2–4× as long as its successes and the
//! baseline's failures are quick, so the tasks finished at any moment over-represent the tested
//! system's successes and the baseline's failures. `decide` is asked every 10 finished rows. Reading
//! the plan's finished prefix keeps the anytime rule's promise (ever-promote ≤ a); reading every
//! finished task breaks it, which is what makes this test able to fail. The same harness with three
//! runs a task: reading a task once its first run ends breaks the promise; `--runs` keeps it.

use pareval::engine::live::{LiveCache, LivePlan, LiveSettings, Reading, decide_live_cached};
use pareval::engine::orders::build_order;
use pareval::engine::pair::PairData;
use pareval::engine::record::Provenance;
use pareval::engine::settings::{BootstrapMode, Fraction, OrderKind, Preset, Threshold};
use pareval::engine::streams::{Stream, StreamKey};

const GROUPS: u32 = 4;
const PER_GROUP: usize = 30;
const LOOK_EVERY: usize = 10;

/// A uniform draw in [0, 1).
fn uniform(rng: &mut Stream) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Each group's outcomes with exactly half successes, in a random arrangement: the two systems'
/// scores are equal in every group, so Δ = 0 and any promotion at δ = 0 is false.
fn half_successes(rng: &mut Stream) -> Vec<f64> {
    let mut outcomes = Vec::with_capacity(GROUPS as usize * PER_GROUP);
    for _ in 0..GROUPS {
        let mut group: Vec<f64> = (0..PER_GROUP)
            .map(|i| f64::from(u8::from(i < PER_GROUP / 2)))
            .collect();
        rng.shuffle(&mut group);
        outcomes.extend(group);
    }
    outcomes
}

/// When each planned task finishes for a system that runs the plan in order on `workers` workers
/// (each free worker takes the next planned task), with `duration` of the task's outcome.
fn finish_times(
    plan: &[u32],
    outcomes: &[f64],
    workers: usize,
    rng: &mut Stream,
    duration: impl Fn(f64, &mut Stream) -> f64,
) -> Vec<f64> {
    let mut free = vec![0.0f64; workers];
    let mut done = vec![0.0; plan.len()];
    for (position, &task) in plan.iter().enumerate() {
        let (worker, start) = free
            .iter()
            .copied()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((0, 0.0));
        let end = start + duration(outcomes[task as usize], rng);
        free[worker] = end;
        done[position] = end;
    }
    done
}

/// Simulated run `run`'s plan of `kind` over the groups' tasks t0…: its order (task indices) and the
/// plan the live readers take.
fn plan_of(kind: OrderKind, run: u64) -> (Vec<u32>, LivePlan) {
    let labels: Vec<u32> = (0..GROUPS * PER_GROUP as u32)
        .map(|i| i / PER_GROUP as u32)
        .collect();
    let pair = PairData::planned(&labels, GROUPS as usize, None, Vec::new());
    let mut order = Vec::new();
    build_order(kind, &pair, ("plan", ""), run, 0, &mut order);
    let plan = LivePlan {
        tasks: order.iter().map(|t| format!("t{t}")).collect(),
        groups: order.iter().map(|&t| labels[t as usize]).collect(),
        labels: (0..GROUPS).map(|g| format!("g{g}")).collect(),
    };
    (order, plan)
}

/// How long the tested system takes on a run of outcome x: its failures 2–4× as long as its successes.
fn slow_failures(x: f64, rng: &mut Stream) -> f64 {
    let base = 1.0 + uniform(rng);
    if x > 0.5 {
        base
    } else {
        base * (2.0 + 2.0 * uniform(rng))
    }
}

/// Whether one simulated run is ever promoted under each reading (prefix, finished), looking every
/// `LOOK_EVERY` finished rows.
fn run_once(run: u64, workers: usize, settings: &[LiveSettings; 2]) -> [bool; 2] {
    let mut rng = StreamKey::new(run, "concurrent-harness").rng();
    let (order, plan) = plan_of(settings[0].policy.order, run);
    let tested = half_successes(&mut rng);
    let baseline = half_successes(&mut rng);
    // The tested system's failures run 2–4× as long as its successes; the baseline's fail fast.
    let tested_done = finish_times(&order, &tested, workers, &mut rng, slow_failures);
    let baseline_done = finish_times(&order, &baseline, workers, &mut rng, |x, rng| {
        let base = 1.0 + uniform(rng);
        if x > 0.5 { base } else { base * 0.5 }
    });
    // Every finished row of both systems, by the time it finished.
    let mut rows: Vec<(f64, usize, usize)> = (0..order.len())
        .flat_map(|p| [(tested_done[p], 0, p), (baseline_done[p], 1, p)])
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));

    let provenance = Provenance::new(&[]);
    let mut seen = [vec![None; order.len()], vec![None; order.len()]];
    let mut caches = [LiveCache::default(), LiveCache::default()];
    let mut promoted = [false; 2];
    for (count, &(_, system, position)) in rows.iter().enumerate() {
        let outcome = if system == 0 { &tested } else { &baseline }[order[position] as usize];
        seen[system][position] = Some(outcome);
        if (count + 1) % LOOK_EVERY != 0 {
            continue;
        }
        for reading in 0..2 {
            if promoted[reading] {
                continue;
            }
            let records = decide_live_cached(
                &plan,
                ("tested", "baseline"),
                &seen[0],
                &seen[1],
                &settings[reading],
                &provenance,
                &mut caches[reading],
            );
            promoted[reading] = records
                .iter()
                .any(|r| r.action == pareval::engine::rules::Action::Promote);
        }
        if promoted.iter().all(|&p| p) {
            break;
        }
    }
    promoted
}

/// Share of `RUNS` null runs ever promoted, reading the plan's prefix and reading every finished task.
fn false_promotions(order: OrderKind, workers: usize) -> [f64; 2] {
    const RUNS: u64 = 1_000;
    let mut policy = Preset::Anytime.policy(BootstrapMode::Exact, Fraction(500));
    policy.order = order;
    // A uniform plan rarely meets the groups' quotas: the gate would hide the reading's effect.
    policy.coverage_gate = order == OrderKind::Stratified;
    let settings = [Reading::PlanPrefix, Reading::Finished].map(|reading| LiveSettings {
        policy,
        thresholds: vec![Threshold(0)],
        seed: 0,
        budget: Fraction::ONE,
        reading,
    });
    let mut promoted = [0u32; 2];
    for run in 0..RUNS {
        let [prefix, finished] = run_once(run, workers, &settings);
        promoted[0] += u32::from(prefix);
        promoted[1] += u32::from(finished);
    }
    let rates = promoted.map(|count| f64::from(count) / RUNS as f64);
    eprintln!(
        "{RUNS} null runs, {} plan, {workers} workers: ever promoted {:.1}% reading the plan's prefix, {:.1}% reading every finished task (a = 5%)",
        order.name(),
        100.0 * rates[0],
        100.0 * rates[1]
    );
    rates
}

#[test]
fn plan_prefix_reading_keeps_the_anytime_promise_under_concurrency() {
    let a = 0.05;
    for (order, workers) in [
        (OrderKind::Stratified, 32),
        (OrderKind::Stratified, 16),
        (OrderKind::Uniform, 32),
    ] {
        let [prefix, finished] = false_promotions(order, workers);
        assert!(
            prefix <= a,
            "{order:?} on {workers} workers: prefix reading promoted {:.1}% of null runs",
            100.0 * prefix
        );
        // At 16 workers the broken reading errs only a little more often than a (7.0%): shown, not
        // asserted; at 32 it is far above, which is what lets this test fail.
        assert!(
            workers < 32 || finished > 2.0 * a,
            "{order:?} on {workers} workers: reading every finished task should break the promise here ({:.1}%)",
            100.0 * finished
        );
    }
}

/// Runs per task of the tested system in [`runs_once`].
const RUNS_PER_TASK: usize = 3;

/// Whether one simulated run with [`RUNS_PER_TASK`] runs a task is ever promoted by `watch`'s state
/// reading the plan's prefix, without (`[0]`) and with (`[1]`) the runs declared (`--runs`). The
/// tested system's runs go to `workers` workers in plan order (a task's runs one after the other),
/// its failed runs take 2–4× as long, and its runs hold exactly half successes in every group, as
/// the baseline's completed record (one run a task) does: Δ = 0, so any promotion is false.
fn runs_once(run: u64, workers: usize, settings: &LiveSettings) -> [bool; 2] {
    use pareval::watch::follow::{Event, OutcomeRow};
    use pareval::watch::state::{Baselines, WatchState};
    let mut rng = StreamKey::new(run, "runs-per-task").rng();
    let (order, plan) = plan_of(settings.policy.order, run);
    let baseline = half_successes(&mut rng);
    // The tested system's runs: task t's are t·R … t·R + R − 1, half of each group's successes.
    let mut tested = Vec::with_capacity(baseline.len() * RUNS_PER_TASK);
    for _ in 0..GROUPS {
        let slots = PER_GROUP * RUNS_PER_TASK;
        let mut group: Vec<f64> = (0..slots)
            .map(|i| f64::from(u8::from(i < slots / 2)))
            .collect();
        rng.shuffle(&mut group);
        tested.extend(group);
    }
    let jobs: Vec<u32> = order
        .iter()
        .flat_map(|&t| (0..RUNS_PER_TASK as u32).map(move |r| t * RUNS_PER_TASK as u32 + r))
        .collect();
    let done = finish_times(&jobs, &tested, workers, &mut rng, slow_failures);
    let mut finished: Vec<(f64, u32)> = done.iter().copied().zip(jobs.iter().copied()).collect();
    finished.sort_by(|a, b| a.0.total_cmp(&b.0));

    let row = |system: &str, task: u32, run: usize, outcome: f64| Event::Row {
        file: format!("{system}.csv"),
        line: 0,
        row: OutcomeRow {
            system: system.to_string(),
            task: format!("t{task}"),
            run: run.to_string(),
            outcome,
            errored: false,
        },
    };
    let completed: Vec<Event> = (0..baseline.len())
        .map(|t| row("baseline", t as u32, 0, baseline[t]))
        .collect();
    let mut states = [false, true].map(|declared| {
        let mut state = WatchState::new(
            plan.clone(),
            "tested".to_string(),
            Baselines::Named(vec!["baseline".to_string()]),
            settings.clone(),
            Provenance::new(&[]),
        );
        if declared {
            let runs = pareval::data::DeclaredRuns::parse(&[format!("tested={RUNS_PER_TASK}")])
                .expect("a count of runs");
            state = state.with_runs(runs);
        }
        state.apply(completed.clone());
        state
    });
    let mut promoted = [false; 2];
    for chunk in finished.chunks(LOOK_EVERY) {
        let events: Vec<Event> = chunk
            .iter()
            .map(|&(_, job)| {
                let (task, run) = (job / RUNS_PER_TASK as u32, job as usize % RUNS_PER_TASK);
                row("tested", task, run, tested[job as usize])
            })
            .collect();
        for (state, promoted) in states.iter_mut().zip(&mut promoted) {
            if *promoted {
                continue;
            }
            state.apply(events.clone());
            *promoted = state
                .pairs
                .iter()
                .flat_map(|p| &p.records)
                .any(|r| r.action == pareval::engine::rules::Action::Promote);
        }
        if promoted.iter().all(|&p| p) {
            break;
        }
    }
    promoted
}

#[test]
fn a_task_read_before_its_last_run_breaks_the_anytime_promise_and_declared_runs_keep_it() {
    const RUNS: u64 = 400;
    let a = 0.05;
    let workers = 32;
    let mut policy = Preset::Anytime.policy(BootstrapMode::Exact, Fraction(500));
    policy.order = OrderKind::Stratified;
    let settings = LiveSettings {
        policy,
        thresholds: vec![Threshold(0)],
        seed: 0,
        budget: Fraction::ONE,
        reading: Reading::PlanPrefix,
    };
    let mut promoted = [0u32; 2];
    for run in 0..RUNS {
        let [undeclared, declared] = runs_once(run, workers, &settings);
        promoted[0] += u32::from(undeclared);
        promoted[1] += u32::from(declared);
    }
    let [undeclared, declared] = promoted.map(|count| f64::from(count) / RUNS as f64);
    eprintln!(
        "{RUNS} null runs, {RUNS_PER_TASK} runs a task, {workers} workers: ever promoted {:.1}% reading a task's first runs, {:.1}% with --runs {RUNS_PER_TASK} (a = 5%)",
        100.0 * undeclared,
        100.0 * declared
    );
    assert!(
        declared <= a,
        "with the runs declared {:.1}% of null runs were promoted",
        100.0 * declared
    );
    assert!(
        undeclared > 2.0 * a,
        "reading a task before its last run should break the promise here ({:.1}%)",
        100.0 * undeclared
    );
}
