//! Replay invariants on real-shaped data: the same bits on 1 and 8 threads and for shuffled input rows,
//! mirrored completed decisions, the full-budget estimate, coverage failures of forced-uniform that the
//! primary policy never has, cancellation, and a replay of every public record.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pareval::data::{LoadOptions, load};
use pareval::dataset::Dataset;
use pareval::engine::ReplayOptions;
use pareval::engine::replay::{Caches, Replay};
use pareval::engine::settings::{
    BootstrapMode, BudgetMeasure, Fraction, Preset, ReplaySettings, Threshold, parse_grid,
};
use pareval::engine::{Control, ReplayError, replay};

use crate::common::{shared_data, temp_dir};

fn sample(name: &str) -> PathBuf {
    PathBuf::from(format!("{}/sample_runs/{name}", env!("CARGO_MANIFEST_DIR")))
}

fn load_path(path: PathBuf) -> Dataset {
    load(&[path], &LoadOptions::default()).expect("load")
}

fn settings(preset: Preset, bootstrap: BootstrapMode, orders: u32) -> ReplaySettings {
    let mut settings = ReplaySettings::for_preset(preset);
    settings.policy = preset.policy(bootstrap, Fraction(500));
    settings.orders = orders;
    settings.seed = 7;
    settings.group_column = Some("group".to_string());
    settings
}

/// Everything a replay reports, as JSON (shortest round-trip floats: equal text means equal bits).
fn fingerprint(dataset: &Dataset, settings: &ReplaySettings) -> String {
    fingerprint_of(
        &replay(
            dataset,
            settings,
            &Control::default(),
            ReplayOptions::default(),
        )
        .expect("replay"),
    )
}

fn fingerprint_of(result: &Replay) -> String {
    type Counts = (u32, u32, u32, u32, u32, u32);
    let counts: Vec<Vec<Counts>> = result
        .tallies
        .iter()
        .map(|t| {
            t.counts
                .iter()
                .map(|c| {
                    (
                        c.promote,
                        c.reject,
                        c.abstain,
                        c.coverage_failure,
                        c.wrong,
                        c.ever_wrong,
                    )
                })
                .collect()
        })
        .collect();
    serde_json::to_string(&(&result.metrics, counts, &result.group_missing)).expect("json")
}

fn in_pool<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
        .install(work)
}

#[test]
fn same_bits_on_one_and_eight_threads() {
    let dataset = load_path(sample("swe_repair.csv"));
    for bootstrap in [BootstrapMode::Exact, BootstrapMode::Mc { resamples: 200 }] {
        let settings = settings(Preset::Primary, bootstrap, 20);
        let one = in_pool(1, || fingerprint(&dataset, &settings));
        let eight = in_pool(8, || fingerprint(&dataset, &settings));
        assert_eq!(one, eight, "{bootstrap}");
    }
    // Sequential monitoring: the anytime wealths and the kept decisions.
    for preset in [Preset::Anytime, Preset::Peeking] {
        let settings = settings(preset, BootstrapMode::Mc { resamples: 200 }, 20);
        let one = in_pool(1, || fingerprint(&dataset, &settings));
        let eight = in_pool(8, || fingerprint(&dataset, &settings));
        assert_eq!(one, eight, "{}", preset.name());
    }
    // Families: every pair walked order by order, adjusted together.
    let mut settings = settings(Preset::Primary, BootstrapMode::Mc { resamples: 200 }, 20);
    settings.policy.family = pareval::engine::settings::Family::All;
    settings.policy.adjust = pareval::engine::settings::Adjust::Bh;
    let one = in_pool(1, || fingerprint(&dataset, &settings));
    let eight = in_pool(8, || fingerprint(&dataset, &settings));
    assert_eq!(one, eight, "family all, bh");
}

#[test]
fn extending_a_replay_with_more_orders_gives_the_same_bits_as_replaying_them_all() {
    let dataset = load_path(sample("swe_repair.csv"));
    for preset in [Preset::Primary, Preset::PairedNormal] {
        for bootstrap in [BootstrapMode::Exact, BootstrapMode::Mc { resamples: 200 }] {
            let full = settings(preset, bootstrap, 25);
            let fewer = ReplaySettings {
                orders: 10,
                ..full.clone()
            };
            let control = Control::default();
            let whole =
                replay(&dataset, &full, &control, ReplayOptions::default()).expect("replay");
            let earlier =
                replay(&dataset, &fewer, &control, ReplayOptions::default()).expect("replay");
            let extending = |settings: &ReplaySettings| {
                let extend = ReplayOptions {
                    extend: Some(&earlier),
                    ..ReplayOptions::default()
                };
                replay(&dataset, settings, &control, extend).expect("extend")
            };
            let extended = extending(&full);
            assert_eq!(
                extended.tallies,
                whole.tallies,
                "{} {bootstrap}",
                preset.name()
            );
            assert_eq!(
                extended.metrics,
                whole.metrics,
                "{} {bootstrap}",
                preset.name()
            );
            assert_eq!(extended.group_missing, whole.group_missing);
            assert_eq!(extended.group_cases, whole.group_cases);
            // Anything else changed (here the seed) is replayed from scratch, not added to.
            let reseeded = ReplaySettings {
                seed: 8,
                ..full.clone()
            };
            let fresh =
                replay(&dataset, &reseeded, &control, ReplayOptions::default()).expect("replay");
            let not_extended = extending(&reseeded);
            assert_eq!(not_extended.tallies, fresh.tallies);
        }
    }
}

#[test]
fn replays_in_one_thread_do_not_share_tails_across_settings() {
    // Each tail cache keeps lock-free fronts that later pairs and replays on the same cache take up;
    // replays with other thresholds or another bootstrap mode must not read what they hold.
    let dataset = load_path(sample("swe_repair.csv"));
    let variants: Vec<ReplaySettings> = vec![
        ReplaySettings {
            thresholds: vec![pareval::engine::Threshold(0)],
            ..settings(Preset::Primary, BootstrapMode::Exact, 6)
        },
        settings(Preset::Primary, BootstrapMode::Exact, 6),
        settings(Preset::Primary, BootstrapMode::Mc { resamples: 200 }, 6),
    ];
    let in_sequence = in_pool(1, || {
        variants
            .iter()
            .map(|v| fingerprint(&dataset, v))
            .collect::<Vec<_>>()
    });
    for (variant, seen) in variants.iter().zip(&in_sequence) {
        assert_eq!(*seen, in_pool(1, || fingerprint(&dataset, variant)));
    }
}

#[test]
fn one_tail_cache_serves_every_threshold_set() {
    // Cached tails are kept per pattern and cut: a replay with other thresholds (a subset, a new one) on the
    // cache of an earlier replay gives the bits of a replay on a fresh cache, in exact and mc modes.
    let dataset = load_path(sample("swe_repair.csv"));
    for bootstrap in [BootstrapMode::Exact, BootstrapMode::Mc { resamples: 200 }] {
        let variants: Vec<ReplaySettings> = [vec![0, 500, 1000], vec![0], vec![250, 1000]]
            .iter()
            .map(|thresholds| ReplaySettings {
                thresholds: thresholds
                    .iter()
                    .map(|&t| pareval::engine::Threshold(t))
                    .collect(),
                ..settings(Preset::Primary, bootstrap, 8)
            })
            .collect();
        // One thread and one cache for all three, as in the explorer's worker.
        let cache = Arc::new(pareval::engine::rules::TailCache::default());
        let shared: Vec<_> = in_pool(1, || {
            variants
                .iter()
                .map(|settings| {
                    let caches = Caches {
                        tails: Some(cache.clone()),
                        orders: None,
                    };
                    let options = ReplayOptions {
                        caches,
                        ..ReplayOptions::default()
                    };
                    replay(&dataset, settings, &Control::default(), options).expect("replay")
                })
                .collect()
        });
        for (settings, shared) in variants.iter().zip(&shared) {
            let fresh = replay(
                &dataset,
                settings,
                &Control::default(),
                ReplayOptions::default(),
            )
            .expect("replay");
            assert_eq!(
                shared.tallies, fresh.tallies,
                "{:?} {bootstrap}",
                settings.thresholds
            );
            assert_eq!(
                shared.metrics, fresh.metrics,
                "{:?} {bootstrap}",
                settings.thresholds
            );
        }
    }
}

/// The explorer's worker keeps task orders from one replay to the next. Through a run of setting changes
/// (group column, budget measure, every order kind, seed, thresholds, more orders, and back) and a record
/// with the same systems and tasks but other outcomes and costs, each replay on the kept orders must have
/// the bits of a fresh replay: orders kept under other inputs are never read. A cap too small for every
/// order keeps some and draws the rest, with the same bits.
#[test]
fn kept_orders_give_the_bits_of_freshly_drawn_orders() {
    use pareval::engine::OrderKind;
    use pareval::engine::kept_orders::OrderCache;
    let original = load_path(sample("swe_repair.csv"));
    // Same systems, tasks and groups; every fifth outcome flipped (other group spreads, so other Neyman
    // orders) and the costs reversed down the file (other cost orders).
    let text = std::fs::read_to_string(sample("swe_repair.csv")).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    let costs: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.rsplit(',').next().unwrap_or(""))
        .collect();
    let mut variant_text = format!("{}\n", lines[0]);
    for (i, line) in lines[1..].iter().enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        let (head, outcome) = (&fields[..2], fields[2]);
        let outcome = match (i % 5, outcome) {
            (0, "1.0") => "0.0",
            (0, "0.0") => "1.0",
            (_, other) => other,
        };
        let cost = costs[costs.len() - 1 - i];
        variant_text += &format!("{},{outcome},{},{cost}\n", head.join(","), fields[3]);
    }
    let dir = crate::common::temp_dir("kept-orders");
    std::fs::write(dir.join("variant.csv"), variant_text).expect("write");
    let variant = load_path(dir.join("variant.csv"));
    // Costs missing on some rows: under the cost measure those tasks leave the pairs.
    let domains = load_path(sample("domains_cost.csv"));

    let base = settings(Preset::Primary, BootstrapMode::Exact, 10);
    let changed = |change: &dyn Fn(&mut ReplaySettings)| {
        let mut settings = base.clone();
        change(&mut settings);
        settings
    };
    let neyman = changed(&|s| s.policy.order = OrderKind::Neyman);
    let cost_order = changed(&|s| s.policy.order = OrderKind::Cost);
    let sequence = vec![
        (&original, base.clone()),
        (&original, changed(&|s| s.group_column = None)),
        (&original, base.clone()),
        (&original, changed(&|s| s.measure = BudgetMeasure::Cost)),
        (&original, changed(&|s| s.policy.order = OrderKind::Uniform)),
        (&original, neyman.clone()),
        (&variant, neyman),
        (&original, cost_order.clone()),
        (&variant, cost_order),
        (
            &original,
            changed(&|s| s.policy.order = OrderKind::PairCost),
        ),
        (&original, changed(&|s| s.seed = 8)),
        (&original, changed(&|s| s.thresholds = vec![Threshold(200)])),
        (&original, changed(&|s| s.orders = 16)),
        (&original, base.clone()),
        (&domains, base.clone()),
        (&domains, changed(&|s| s.measure = BudgetMeasure::Cost)),
    ];
    for cap in [usize::MAX, 20_000] {
        let cache = Arc::new(OrderCache::with_cap(cap));
        for (step, (dataset, settings)) in sequence.iter().enumerate() {
            let caches = Caches {
                tails: None,
                orders: Some(cache.clone()),
            };
            let options = ReplayOptions {
                caches,
                ..ReplayOptions::default()
            };
            let kept = replay(dataset, settings, &Control::default(), options).expect("replay");
            assert_eq!(
                fingerprint_of(&kept),
                fingerprint(dataset, settings),
                "cap {cap}, step {step}"
            );
            assert!(cache.used_bytes() <= cap);
            assert!(cache.used_bytes() > 0, "step {step}: no order was kept");
        }
    }
}

/// A replay that tallies actions only settles most exact-bootstrap cases by bounds and remembers each
/// count pattern's actions per pair; one that writes decision records computes every decision. Both
/// must count the same actions (exact and mc, with the coverage gate on and off).
#[test]
fn tallies_settled_by_bounds_equal_tallies_from_exact_tails() {
    let mut cases = vec![(
        load_path(sample("domains_cost.csv")),
        BudgetMeasure::Cost,
        12,
    )];
    if let Some(root) = shared_data() {
        let real = load_path(root.join("swebench_verified_bash_only/records.csv"));
        cases.push((real.clone(), BudgetMeasure::Cost, 8));
        cases.push((real, BudgetMeasure::Tasks, 8));
    }
    let variants = [
        (vec![0, 500, 1000], 500, BootstrapMode::Exact, true),
        (vec![200, 1500], 1000, BootstrapMode::Exact, false),
        (
            vec![0, 500],
            500,
            BootstrapMode::Mc { resamples: 200 },
            true,
        ),
    ];
    for (dataset, measure, orders) in cases {
        for (thresholds, tail, bootstrap, gate) in variants.clone() {
            let mut settings = settings(Preset::Primary, bootstrap, orders);
            settings.policy.coverage_gate = gate;
            settings.measure = measure;
            settings.thresholds = thresholds.into_iter().map(Threshold).collect();
            settings.policy.tail = Fraction(tail);
            let mut count = 0;
            let mut sink = |records: Vec<_>| {
                count += records.len();
                Ok(())
            };
            let options = ReplayOptions {
                records: Some(&mut sink),
                ..ReplayOptions::default()
            };
            let with_records = replay(&dataset, &settings, &Control::default(), options)
                .expect("replay with records");
            let cases = with_records.prepared.pairs.len()
                * (settings.orders as usize)
                * settings.grid.len()
                * settings.thresholds.len();
            assert_eq!(count, cases, "one record per case and threshold");
            assert_eq!(
                fingerprint(&dataset, &settings),
                fingerprint_of(&with_records),
                "{measure:?}, {:?}",
                settings.thresholds
            );
        }
    }
}

#[test]
fn shuffled_input_rows_give_the_same_bits() {
    let text = std::fs::read_to_string(sample("swe_repair.csv")).expect("read");
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.remove(0);
    // A fixed permutation: reverse, then interleave halves.
    lines.reverse();
    let (first, second) = lines.split_at(lines.len() / 2);
    let mut shuffled = vec![header.to_string()];
    for (a, b) in first.iter().zip(second) {
        shuffled.push(a.to_string());
        shuffled.push(b.to_string());
    }
    let dir = temp_dir("shuffled");
    let path = dir.join("shuffled.csv");
    std::fs::write(&path, shuffled.join("\n") + "\n").expect("write");
    let original = load_path(sample("swe_repair.csv"));
    let permuted = load_path(path);
    assert_ne!(
        original.tasks, permuted.tasks,
        "the permutation must change the input order"
    );
    for preset in [Preset::Primary, Preset::ForcedUniform, Preset::PairedNormal] {
        let settings = settings(preset, BootstrapMode::Mc { resamples: 200 }, 10);
        assert_eq!(
            fingerprint(&original, &settings),
            fingerprint(&permuted, &settings),
            "{}",
            preset.name()
        );
    }
}

#[test]
fn swapping_tested_and_baseline_mirrors_the_completed_decision() {
    let dataset = load_path(sample("app_use.csv"));
    let result = replay(
        &dataset,
        &settings(Preset::ForcedUniform, BootstrapMode::Exact, 1),
        &Control::default(),
        ReplayOptions::default(),
    )
    .expect("replay");
    let pairs = &result.prepared.pairs;
    let mut checked = 0;
    for (i, pair) in pairs.iter().enumerate() {
        let mirror = pairs
            .iter()
            .position(|p| p.tested == pair.baseline && p.baseline == pair.tested)
            .expect("mirror");
        assert!((pair.delta_full() + pairs[mirror].delta_full()).abs() < 1e-12);
        // At 0 pp: never both promote; exactly one promotes unless the record is a tie.
        let (here, there) = (result.completed[i][0], result.completed[mirror][0]);
        assert!(!(here && there));
        if pair.delta_full().abs() > 1e-12 {
            assert!(here ^ there);
        }
        checked += 1;
    }
    assert_eq!(checked, 132);
}

#[test]
fn at_the_full_budget_the_estimate_equals_the_completed_difference() {
    let dataset = load_path(sample("timed_runs.csv")); // averages of 3 runs: a lattice of thirds
    let mut settings = settings(Preset::Primary, BootstrapMode::Exact, 3);
    settings.grid = parse_grid("0.5,1").expect("grid");
    settings.group_column = None;
    let prepared = pareval::engine::replay::Prepared::new(&dataset, &settings).expect("prepare");
    assert_eq!(prepared.scale, Some(3));
    for pair in &prepared.pairs {
        for r in 0..3 {
            let mut order = Vec::new();
            prepared.order(pair, r, &mut order);
            let mut full = None;
            prepared.walk(pair, &order, |b, snapshot| {
                if b == 1 {
                    full = Some(snapshot.observed.estimate(prepared.scale));
                }
            });
            let estimate = full.expect("budget 1 visited");
            assert!(
                (estimate - pair.delta_full()).abs() < 1e-12,
                "{estimate} vs {}",
                pair.delta_full()
            );
        }
    }
}

#[test]
fn forced_uniform_fails_coverage_where_primary_never_does() {
    let dataset = load_path(sample("swe_repair.csv"));
    let forced = replay(
        &dataset,
        &settings(Preset::ForcedUniform, BootstrapMode::Exact, 50),
        &Control::default(),
        ReplayOptions::default(),
    )
    .expect("replay");
    let primary = replay(
        &dataset,
        &settings(Preset::Primary, BootstrapMode::Exact, 50),
        &Control::default(),
        ReplayOptions::default(),
    )
    .expect("replay");
    let failures = |r: &pareval::engine::Replay| -> Vec<u32> {
        r.metrics
            .thresholds
            .iter()
            .flat_map(|t| t.rows.iter().map(|row| row.coverage_failures))
            .collect()
    };
    assert!(
        failures(&forced).iter().any(|&f| f > 0),
        "forced-uniform should decide with groups missing"
    );
    assert!(failures(&primary).iter().all(|&f| f == 0));
}

#[test]
fn a_cancelled_replay_stops_promptly() {
    let dataset = Arc::new(load_path(sample("swe_repair.csv")));
    let control = Arc::new(Control::default());
    let settings = settings(
        Preset::Primary,
        BootstrapMode::Mc { resamples: 200 },
        100_000,
    );
    let worker = {
        let (dataset, control) = (dataset.clone(), control.clone());
        std::thread::spawn(move || {
            let result = replay(&dataset, &settings, &control, ReplayOptions::default());
            (result.err(), Instant::now())
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    let cancelled_at = Instant::now();
    control
        .cancel
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let (error, finished) = worker.join().expect("join");
    assert_eq!(error, Some(ReplayError::Cancelled));
    // The flag is checked before every order; bench/run measures the latency (target 50 ms). Here only a
    // generous bound, so a loaded machine does not fail the test.
    assert!(finished.duration_since(cancelled_at) < Duration::from_secs(2));
}

#[test]
fn settings_errors_name_the_setting() {
    let refused = |dataset: &Dataset, settings: &ReplaySettings, what: &str| {
        replay(
            dataset,
            settings,
            &Control::default(),
            ReplayOptions::default(),
        )
        .err()
        .expect(what)
    };
    let dataset = load_path(sample("app_use.csv"));
    let mut bad = settings(Preset::CostAware, BootstrapMode::Exact, 5);
    let error = refused(&dataset, &bad, "no cost");
    assert_eq!(
        error.to_string(),
        "order 'cost' needs a cost_usd column, and the records have none"
    );
    bad = settings(Preset::Primary, BootstrapMode::Exact, 5);
    bad.group_column = Some("repo".into());
    let error = refused(&dataset, &bad, "bad group");
    assert_eq!(
        error.to_string(),
        "group column 'repo' is not a candidate; candidates: group, or none for one group"
    );
    assert!(matches!(
        error,
        ReplayError::Settings(pareval::engine::settings::SettingError::UnknownGroupColumn(
            _
        ))
    ));
    bad.group_column = None;
    bad.measure = pareval::engine::BudgetMeasure::Seconds;
    let error = refused(&dataset, &bad, "no seconds");
    assert_eq!(
        error.to_string(),
        "budget measure 'seconds' needs a seconds column, and the records have none"
    );
}

#[test]
fn every_public_record_replays() {
    let Some(root) = shared_data() else { return };
    let mut files: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(&root).expect("shared data") {
        let dir = entry.expect("entry").path();
        if dir.join("records.csv").exists() {
            files.push(dir.join("records.csv"));
        }
    }
    files.push(root.join("pace/targets.csv"));
    for path in files {
        let dataset = load_path(path.clone());
        if dataset.n_systems() < 2 {
            continue; // tau_bench_historical has one system: no pairs to replay
        }
        let mut settings = settings(Preset::Primary, BootstrapMode::Exact, 5);
        settings.group_column = dataset.group_column("group").map(|c| c.name.clone());
        let result = replay(
            &dataset,
            &settings,
            &Control::default(),
            ReplayOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!result.metrics.thresholds[0].rows.is_empty());
    }
}
