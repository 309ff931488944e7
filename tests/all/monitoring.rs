//! Sequential monitoring and the anytime rule (SPEC §9), shown rather than claimed: on constructed
//! populations whose completed difference is exactly the threshold (so every promote is wrong), the
//! anytime rule watched after every task promotes in at most about a of 2,000 uniform orders, while the
//! bootstrap watched at the grid's 19 budgets (naive peeking) clearly exceeds a and read once per budget
//! stays near it. Also: the anytime rule does decide when the difference is real, kept decisions are the
//! first per-look decisions, and the CLI names the monitoring everywhere.

use std::path::PathBuf;

use pareval::data::{LoadOptions, load};
use pareval::dataset::Dataset;
use pareval::engine::record::DecisionRecord;
use pareval::engine::settings::{
    BootstrapMode, Fraction, Looks, Monitor, OrderKind, Preset, ReplaySettings, Threshold,
};
use pareval::engine::{Control, Replay, ReplayOptions, replay};

use crate::common::{assert_refused, pareval, shared_data, stdout, temp_dir};

/// Two systems on `n` tasks: A wins `wins`, B wins `losses`, the rest are ties (alternately both
/// solved and both failed), so Δ_full(A − B) = (wins − losses) / n.
fn population(name: &str, n: usize, wins: usize, losses: usize) -> Dataset {
    let mut csv = String::from("system,task,outcome\n");
    for i in 0..n {
        let (a, b) = if i < wins {
            (1, 0)
        } else if i < wins + losses {
            (0, 1)
        } else {
            (i % 2, i % 2)
        };
        csv.push_str(&format!("A,t{i},{a}\nB,t{i},{b}\n"));
    }
    let dir = temp_dir(name);
    let path = dir.join("records.csv");
    std::fs::write(&path, csv).expect("write population");
    load(&[path], &LoadOptions::default()).expect("load population")
}

fn run(dataset: &Dataset, preset: Preset, threshold: Threshold, orders: u32) -> Replay {
    let mut settings = ReplaySettings::for_preset(preset);
    settings.policy = preset.policy(BootstrapMode::Exact, Fraction(500));
    // One group and uniform orders for every policy: the populations have no groups, and the anytime
    // guarantee (like the bootstrap's) is about uniform random orders.
    settings.policy.order = OrderKind::Uniform;
    settings.thresholds = vec![threshold];
    settings.orders = orders;
    settings.seed = 11;
    replay(
        dataset,
        &settings,
        &Control::default(),
        ReplayOptions::default(),
    )
    .expect("replay")
}

/// The share of the pair A → B's orders that had shown a wrong decision by the last budget (0.95), and
/// the largest share wrong at any single budget.
fn wrong_shares(result: &Replay) -> (f64, f64) {
    let pair = result
        .prepared
        .pairs
        .iter()
        .position(|p| result.prepared.names(p) == ("A", "B"))
        .expect("pair A → B");
    let orders = f64::from(result.prepared.settings.orders);
    let budgets = result.budgets();
    let last = result.pair_counts(pair, 0, budgets - 1);
    let worst = (0..budgets)
        .map(|b| f64::from(result.pair_counts(pair, 0, b).wrong) / orders)
        .fold(0.0, f64::max);
    (f64::from(last.ever_wrong) / orders, worst)
}

const ORDERS: u32 = 2000;

/// a plus three Monte Carlo standard errors over 2,000 orders.
fn nominal_bound() -> f64 {
    0.05 + 3.0 * (0.05f64 * 0.95 / f64::from(ORDERS)).sqrt()
}

#[test]
fn at_the_threshold_anytime_stays_within_a_and_peeking_does_not() {
    // Δ_full = (30 − 20) / 200 = 5 pp = δ: the completed decision rejects, so any promote is wrong.
    let dataset = population("at-threshold", 200, 30, 20);
    let delta = Threshold(500);
    let (anytime, _) = wrong_shares(&run(&dataset, Preset::Anytime, delta, ORDERS));
    assert!(
        anytime <= nominal_bound(),
        "anytime promoted in {anytime} of orders"
    );
    let (peeking, _) = wrong_shares(&run(&dataset, Preset::Peeking, delta, ORDERS));
    assert!(
        peeking > nominal_bound() + 0.02,
        "naive peeking at 19 looks should exceed a clearly; it erred in {peeking} of orders"
    );
    let (per_look_ever, per_look_worst) =
        wrong_shares(&run(&dataset, Preset::Primary, delta, ORDERS));
    assert!(
        per_look_worst <= nominal_bound(),
        "read once per budget the bootstrap stays near a; worst budget {per_look_worst}"
    );
    // The same decisions per budget, read by someone who stops at the first: peeking's error is what a
    // per-look table does not show.
    assert!(
        per_look_ever >= peeking - 1e-12,
        "per-look ever-wrong {per_look_ever} vs peeking {peeking}"
    );
    println!("anytime {anytime}, peeking {peeking}, per-look worst {per_look_worst}");
}

#[test]
fn with_a_real_difference_anytime_decides_and_is_right() {
    // Δ_full = (70 − 20) / 200 = 25 pp against δ = 5 pp: a valid rule that never decided would pass
    // the test above; this one must promote in nearly every order.
    let dataset = population("real-difference", 200, 70, 20);
    let result = run(&dataset, Preset::Anytime, Threshold(500), 200);
    let pair = result
        .prepared
        .pairs
        .iter()
        .position(|p| result.prepared.names(p) == ("A", "B"))
        .expect("pair");
    let last = result.pair_counts(pair, 0, result.budgets() - 1);
    assert!(last.promote >= 190, "{last:?}");
    assert_eq!(last.wrong, 0);
    // Decisions are kept: promotes never fall from one budget to the next.
    let promotes: Vec<u32> = (0..result.budgets())
        .map(|b| result.pair_counts(pair, 0, b).promote)
        .collect();
    assert!(promotes.windows(2).all(|w| w[0] <= w[1]), "{promotes:?}");
}

fn records_of(dataset: &Dataset, settings: &ReplaySettings) -> Vec<DecisionRecord> {
    let mut all = Vec::new();
    let mut sink = |records: Vec<DecisionRecord>| {
        all.extend(records);
        Ok(())
    };
    let options = ReplayOptions {
        records: Some(&mut sink),
        ..ReplayOptions::default()
    };
    replay(dataset, settings, &Control::default(), options).expect("replay with records");
    all
}

fn sample(name: &str) -> PathBuf {
    PathBuf::from(format!("{}/sample_runs/{name}", env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn a_sequential_monitor_keeps_the_first_per_look_decision() {
    let dataset = load(&[sample("swe_repair.csv")], &LoadOptions::default()).expect("load");
    let mut settings = ReplaySettings::for_preset(Preset::Primary);
    settings.group_column = grouped(&dataset);
    settings.policy.rule = pareval::engine::Rule::Bootstrap(BootstrapMode::Exact);
    settings.orders = 4;
    let per_look = records_of(&dataset, &settings);
    settings.policy.monitor = Monitor::Sequential;
    settings.policy.looks = Looks::Grid;
    let sequential = records_of(&dataset, &settings);
    assert_eq!(per_look.len(), sequential.len());
    let budgets = settings.grid.len();
    let thresholds = settings.thresholds.len();
    // Records come per (pair, order) with budgets outer and thresholds inner.
    let mut kept_somewhere = 0;
    for (case, (looks, watched)) in per_look
        .chunks(budgets * thresholds)
        .zip(sequential.chunks(budgets * thresholds))
        .enumerate()
    {
        for t in 0..thresholds {
            let mut first: Option<&DecisionRecord> = None;
            for b in 0..budgets {
                let look = &looks[b * thresholds + t];
                let kept = &watched[b * thresholds + t];
                if first.is_none() && look.action.is_final() {
                    first = Some(look);
                }
                match first {
                    Some(decision) => {
                        assert_eq!(kept.action, decision.action, "case {case} t {t} b {b}");
                        assert_eq!(kept.decided_at, Some(decision.observed));
                        assert_eq!(kept.estimate, decision.estimate);
                        kept_somewhere += 1;
                    }
                    None => {
                        assert_eq!(kept.action, look.action, "case {case} t {t} b {b}");
                        assert_eq!(kept.decided_at, None);
                    }
                }
                assert_eq!(kept.monitor, "sequential");
                assert_eq!(kept.validity, "naive peeking (invalid)");
            }
        }
    }
    assert!(kept_somewhere > 0);
}

#[test]
fn anytime_records_carry_both_wealths_and_the_anytime_p_values() {
    let dataset = load(&[sample("swe_repair.csv")], &LoadOptions::default()).expect("load");
    // §9 (uniform orders); §9a's records are tested in stratified.rs.
    let mut settings = ReplaySettings::for_preset(Preset::AnytimeUniform);
    settings.orders = 3;
    settings.group_column = None;
    let records = records_of(&dataset, &settings);
    let mut crossings = 0;
    for record in &records {
        assert_eq!(
            (record.rule, record.monitor, record.looks),
            ("anytime", "sequential", "every")
        );
        assert_eq!(record.validity, "anytime-valid (uniform plan)");
        assert_eq!(record.bet_cap, Some(0.5));
        let statistic = serde_json::to_value(record.statistic).expect("json");
        if record.action.is_final() {
            assert!(record.decided_at.is_some_and(|at| at <= record.observed));
        }
        if statistic["kind"] == "anytime" {
            let (up, p_up) = (
                statistic["wealth_promote"].as_f64().expect("wealth"),
                statistic["p_promote"].as_f64().expect("p"),
            );
            assert!(up > 0.0 && p_up > 0.0 && p_up <= 1.0);
            if record.reason_code == pareval::engine::rules::Reason::Supported
                && record.action == pareval::engine::rules::Action::Promote
            {
                // A promote by crossing: the anytime p-value is at most a.
                assert!(p_up <= 0.05 + 1e-12, "{statistic}");
                crossings += 1;
            }
        }
    }
    assert!(crossings > 0, "some pair of the sample should cross");
}

#[test]
fn the_cli_names_the_monitoring_and_refuses_bad_values() {
    let path = sample("swe_repair.csv");
    let path = path.to_str().expect("path");
    let out = pareval(&[
        "replay",
        path,
        "--preset",
        "anytime-uniform,peeking",
        "--orders",
        "5",
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let results = json["results"].as_array().expect("results");
    assert_eq!(results[0]["monitor"], "sequential");
    assert_eq!(results[0]["looks"], "every");
    assert_eq!(results[0]["validity"], "anytime-valid (uniform plan)");
    assert_eq!(results[0]["bet_cap"], 0.5);
    let peeking = results
        .iter()
        .find(|r| r["preset"] == "peeking")
        .expect("peeking");
    assert_eq!(peeking["validity"], "naive peeking (invalid)");
    assert!(peeking["rows"][0]["ever_wrong"].is_number());
    let text = stdout(&pareval(&[
        "replay", path, "--preset", "peeking", "--orders", "5",
    ]));
    assert!(text.contains("ever-wrong"), "{text}");
    assert!(text.contains("naive peeking (invalid)"), "{text}");
    // The budget table with its ever-wrong column fits 80 columns (it took 87): "suff." heads the
    // last column and the rest comes in blocks led by budget and tasks. Prose lines may run on, a
    // table's may not.
    let table: Vec<&str> = text
        .lines()
        .filter(|line| {
            let cells = line.trim_start();
            cells.starts_with("budget") || cells.split(' ').next().is_some_and(|c| c.ends_with('%'))
        })
        .collect();
    assert!(table.len() >= 40, "{text}");
    assert!(table.iter().any(|line| line.ends_with("suff.")), "{text}");
    for line in &table {
        assert!(pareval::format::cells(line) <= 80, "{line}\n{text}");
    }
    assert_refused(
        &pareval(&["replay", path, "--monitor", "often"]),
        "monitor 'often' is not one of per-look, sequential",
    );
    assert_refused(
        &pareval(&["replay", path, "--looks", "sometimes"]),
        "looks 'sometimes' is not one of every, grid",
    );
    assert_refused(
        &pareval(&["replay", path, "--preset", "anytime", "--bet-cap", "1"]),
        "--bet-cap '1' must be in (0, 1)",
    );
}

#[test]
fn on_appworld_anytime_errs_less_than_peeking() {
    let Some(root) = shared_data() else { return };
    let path = root.join("hal_appworld/records.csv");
    let dataset = load(&[path], &LoadOptions::default()).expect("load");
    let mut shares = Vec::new();
    for preset in [Preset::Anytime, Preset::Peeking] {
        let mut settings = ReplaySettings::for_preset(preset);
        // AppWorld's groups, as `replay` reads them by default: preset anytime is §9a over them.
        settings.group_column = grouped(&dataset);
        settings.orders = 100;
        settings.policy.rule = match preset {
            Preset::Peeking => pareval::engine::Rule::Bootstrap(BootstrapMode::Exact),
            _ => settings.policy.rule,
        };
        let result = replay(
            &dataset,
            &settings,
            &Control::default(),
            ReplayOptions::default(),
        )
        .expect("replay");
        let rows = &result.metrics.thresholds[0].rows;
        // Kept decisions make ever-wrong non-decreasing in the budget.
        assert!(rows.windows(2).all(|w| w[0].ever_wrong <= w[1].ever_wrong));
        shares.push(rows.last().expect("rows").ever_wrong);
    }
    assert!(
        shares[0] < shares[1],
        "anytime {} vs peeking {}",
        shares[0],
        shares[1]
    );
}

/// (promote, reject, abstain, coverage failures, wrong) per pair, threshold and budget.
type Counts = (u32, u32, u32, u32, u32);

fn counts_of(result: &Replay) -> Vec<Vec<Counts>> {
    result
        .tallies
        .iter()
        .map(|t| {
            t.counts
                .iter()
                .map(|c| (c.promote, c.reject, c.abstain, c.coverage_failure, c.wrong))
                .collect()
        })
        .collect()
}

fn replay_with(dataset: &Dataset, settings: &ReplaySettings) -> Replay {
    replay(
        dataset,
        settings,
        &Control::default(),
        ReplayOptions::default(),
    )
    .expect("replay")
}

#[test]
fn families_decide_like_pairs_alone_until_they_are_adjusted() {
    use pareval::engine::settings::{Adjust, Family};
    let dataset = load(&[sample("swe_repair.csv")], &LoadOptions::default()).expect("load");
    let mut settings = ReplaySettings::for_preset(Preset::Primary);
    settings.group_column = grouped(&dataset);
    settings.policy.rule = pareval::engine::Rule::Bootstrap(BootstrapMode::Exact);
    settings.orders = 6;
    let alone = replay_with(&dataset, &settings);
    // A family that is not adjusted decides exactly as its pairs alone, and so does a family of one
    // pair under Bonferroni (a/1 = a); only the family-wise error differs.
    settings.policy.family = Family::Tested;
    let tested = replay_with(&dataset, &settings);
    assert_eq!(counts_of(&alone), counts_of(&tested));
    settings.policy.family = Family::Pair;
    settings.policy.adjust = Adjust::Bonferroni;
    let one = replay_with(&dataset, &settings);
    assert_eq!(counts_of(&alone), counts_of(&one));
    // Watched at the grid's budgets, the family's kept decisions are the monitor's.
    settings.policy.monitor = Monitor::Sequential;
    let watched_one = replay_with(&dataset, &settings);
    settings.policy.adjust = Adjust::None;
    let watched = replay_with(&dataset, &settings);
    assert_eq!(counts_of(&watched), counts_of(&watched_one));
    assert_ne!(counts_of(&watched), counts_of(&alone));
    settings.policy.monitor = Monitor::PerLook;
    let row = |r: &Replay, b: usize| r.metrics.thresholds[0].rows[b].clone();
    for b in 0..settings.grid.len() {
        // Each pair alone: the family-wise error is the share of wrong cases.
        let plain = row(&alone, b);
        assert_eq!(
            plain.fwer,
            f64::from(plain.false_promotions + plain.false_rejections) / f64::from(plain.cases)
        );
        // A tested system's family errs whenever one of its pairs does, so at least as often.
        assert!(row(&tested, b).fwer >= plain.fwer);
    }
    // Adjusting over every pair decides less and errs less often as a family.
    settings.policy.family = Family::All;
    settings.policy.adjust = Adjust::Holm;
    let holm = replay_with(&dataset, &settings);
    settings.policy.adjust = Adjust::None;
    let none = replay_with(&dataset, &settings);
    let mut fewer = 0;
    for b in 0..settings.grid.len() {
        let (h, n) = (row(&holm, b), row(&none, b));
        assert!(h.promote + h.reject <= n.promote + n.reject, "budget {b}");
        assert!(h.fwer <= n.fwer, "budget {b}: {} > {}", h.fwer, n.fwer);
        fewer += usize::from(h.promote + h.reject < n.promote + n.reject);
    }
    assert!(fewer > 0);
}

#[test]
fn a_family_reads_the_same_decisions_with_and_without_records() {
    use pareval::engine::settings::{Adjust, Family};
    // Without records a §9a family walks with screened looks and sides certified quiet, whose
    // statistics are bounds where the p-value is above a; with records every look is solved. The
    // adjusted decisions must not tell them apart, under every adjustment, on the bundled sample
    // and on real records; and the bootstrap, whose actions drop the tails an adjustment reads,
    // must keep them.
    for dataset in sample_and_shared(&["hal_taubench", "terminal_bench_core"]) {
        for (preset, adjust, family) in [
            (Preset::Anytime, Adjust::Holm, Family::Tested),
            (Preset::Anytime, Adjust::Bh, Family::Tested),
            (Preset::Anytime, Adjust::EBh, Family::All),
            (Preset::Anytime, Adjust::Bonferroni, Family::All),
            (Preset::Primary, Adjust::Holm, Family::Tested),
        ] {
            let mut settings = ReplaySettings::for_preset(preset);
            settings.group_column = grouped(&dataset);
            settings.orders = 6;
            settings.policy.adjust = adjust;
            settings.policy.family = family;
            if preset == Preset::Primary {
                // The exact bootstrap's actions are the ones that skip tails.
                settings.policy.rule = pareval::engine::Rule::Bootstrap(BootstrapMode::Exact);
            }
            let plain = replay_with(&dataset, &settings);
            let mut sink = |_: Vec<DecisionRecord>| Ok(());
            let options = ReplayOptions {
                records: Some(&mut sink),
                ..ReplayOptions::default()
            };
            let recorded = replay(&dataset, &settings, &Control::default(), options)
                .expect("replay with records");
            assert_eq!(
                counts_of(&plain),
                counts_of(&recorded),
                "{preset:?} {adjust:?} {family:?}"
            );
            let rows = |r: &Replay| {
                r.metrics.thresholds[0]
                    .rows
                    .iter()
                    .map(|row| row.fwer)
                    .collect::<Vec<f64>>()
            };
            assert_eq!(rows(&plain), rows(&recorded));
        }
    }
}

#[test]
fn adjustments_are_refused_where_they_cannot_apply_and_recorded_where_they_do() {
    let path = sample("swe_repair.csv");
    let path = path.to_str().expect("path");
    assert_refused(
        &pareval(&["replay", path, "--adjust", "e-bh"]),
        "--adjust e-bh needs the anytime rule",
    );
    assert_refused(
        &pareval(&[
            "replay",
            path,
            "--preset",
            "forced-uniform",
            "--adjust",
            "holm",
        ]),
        "--adjust needs a rule with p-values",
    );
    assert_refused(
        &pareval(&["replay", path, "--family", "some"]),
        "family 'some' is not one of pair, tested, all",
    );
    // Records of a family carry its size, the evidence the adjustment read and its verdict.
    let dir = temp_dir("family-records");
    let records = dir.join("records.jsonl");
    let out = pareval(&[
        "replay",
        path,
        "--family",
        "all",
        "--adjust",
        "bh",
        "--orders",
        "2",
        "--bootstrap",
        "exact",
        "--records",
        &records.to_string_lossy(),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let text = std::fs::read_to_string(&records).expect("records");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("record"))
        .collect();
    let pairs = json["results"][0]["pairs"].as_u64().expect("pairs");
    assert_eq!(lines.len() as u64, pairs * 2 * 19 * 3);
    let promotes = lines
        .iter()
        .filter(|r| r["budget"] == 0.5 && r["threshold_pp"] == 0.0 && r["action"] == "promote")
        .count();
    let row = json["results"][0]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|row| row["budget"] == 0.5)
        .expect("row at 50%");
    assert_eq!(promotes as u64, row["promote"].as_u64().expect("promote"));
    for record in &lines {
        assert_eq!(
            (&record["family"], &record["adjust"]),
            (&"all".into(), &"bh".into())
        );
        assert_eq!(record["family_size"].as_u64(), Some(pairs));
        assert!(record["family_evidence"].is_number());
        assert!(
            record["reason"]
                .as_str()
                .expect("reason")
                .contains("bh over a family of")
        );
    }
    let out = pareval(&[
        "replay", path, "--preset", "anytime", "--family", "tested", "--adjust", "e-bh",
        "--orders", "4", "--format", "json",
    ]);
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["results"][0]["family"], "tested");
    assert_eq!(json["results"][0]["adjust"], "e-bh");
    assert!(json["results"][0]["rows"][0]["fwer"].is_number());
    let text = stdout(&pareval(&[
        "replay", path, "--family", "all", "--adjust", "holm", "--orders", "4",
    ]));
    assert!(
        text.contains("FWER") && text.contains("false dec."),
        "{text}"
    );
    assert!(text.contains("family all adjusted by holm"), "{text}");
}

/// §9's monitor walks with shortcuts: the coverage gate of every prefix read before the walk, bets that
/// stop after the last prefix that passes it, and a walk from budget to budget (asking no look) after
/// that prefix. They keep exactly the decisions of a brute-force watch: the wealths updated at every
/// task, the coverage status recomputed from the counts at every prefix, and the first look whose gate
/// passes with a final verdict kept. On the bundled sample and on SWE-bench bash-only.
#[test]
fn the_uniform_monitor_keeps_what_a_brute_force_watch_keeps() {
    use pareval::engine::rules::anytime::AnytimeState;
    let datasets = sample_and_shared(&["swebench_verified_bash_only"]);
    for dataset in &datasets {
        let (settings, result, prepared) = replayed(dataset, Preset::AnytimeUniform, 12);
        let (thresholds, budgets) = (settings.thresholds.len(), settings.grid.len());
        let share = settings.policy.coverage_share.0;
        let mut order = Vec::new();
        let mut kept_somewhere = 0;
        // (tested, baseline, order, threshold) → the brute-force watch's kept decision and its look.
        let mut first = std::collections::HashMap::new();
        for (p, pair) in prepared.pairs.iter().enumerate() {
            let n = pair.n();
            let mut tally = KeptTally::new(thresholds, budgets);
            for r in 0..settings.orders {
                prepared.order(pair, r, &mut order);
                let mut state = AnytimeState::default();
                state.reset(n, &settings.thresholds);
                let kept = watch_order(
                    &mut state,
                    &order,
                    pair,
                    share,
                    thresholds,
                    |state, i| state.observe(pair.diffs[i], &prepared.rules.bets),
                    |state, t| state.verdict(t).0,
                );
                let (tested, baseline) = prepared.names(pair);
                for (t, slot) in kept.iter().enumerate() {
                    let Some((action, at)) = *slot else { continue };
                    first.insert(
                        (tested.to_string(), baseline.to_string(), r, t),
                        (action, at),
                    );
                    tally.add(&settings, n, t, action, at);
                }
            }
            tally.assert_matches(&result, p);
            kept_somewhere += tally.kept;
        }
        assert!(kept_somewhere > 0, "some order should keep a decision");
        // Records (whose wealths are updated at every task) name the look each decision was kept at.
        let mut checked = 0;
        let mut sink = |records: Vec<DecisionRecord>| {
            for record in records {
                let t = settings
                    .thresholds
                    .iter()
                    .position(|th| th.pp() == record.threshold_pp)
                    .expect("threshold");
                let key = (
                    record.tested,
                    record.baseline,
                    record.order_index.expect("order"),
                    t,
                );
                let expected = first.get(&key).filter(|(_, at)| *at <= record.observed);
                let got = record.decided_at.map(|at| (record.action, at));
                assert_eq!(got, expected.copied(), "{key:?} at {}", record.observed);
                checked += 1;
            }
            Ok(())
        };
        let options = ReplayOptions {
            records: Some(&mut sink),
            ..ReplayOptions::default()
        };
        replay(dataset, &settings, &Control::default(), options).expect("replay with records");
        assert!(checked > 0);
    }
}

#[test]
fn the_stratified_monitor_keeps_what_a_watch_without_read_ahead_keeps() {
    // A §9a replay reads each order ahead (certificates, windows, stretches walked with no look);
    // a plain watch feeds the same order to a state that knows nothing ahead and keeps each
    // threshold's first final verdict at a look where coverage is met. Per pair, threshold and
    // budget the kept promotes and rejects must be the same.
    use pareval::engine::rules::stratified::{Grid, StratifiedState};
    let datasets = sample_and_shared(&["swebench_verified_bash_only", "hal_appworld"]);
    let mut kept_somewhere = 0;
    for dataset in &datasets {
        let (settings, result, prepared) = replayed(dataset, Preset::Anytime, 8);
        let (thresholds, budgets) = (settings.thresholds.len(), settings.grid.len());
        let share = settings.policy.coverage_share.0;
        let nulls: Vec<f64> = settings.thresholds.iter().map(|t| t.delta()).collect();
        let bets = &prepared.rules.bets;
        let mut order = Vec::new();
        for (p, pair) in prepared.pairs.iter().enumerate() {
            let n = pair.n();
            let mut tally = KeptTally::new(thresholds, budgets);
            for r in 0..settings.orders {
                prepared.order(pair, r, &mut order);
                let mut state = StratifiedState::default();
                state.reset(
                    &pair.group_sizes,
                    Grid::for_scale(prepared.scale),
                    nulls.iter().copied(),
                );
                let kept = watch_order(
                    &mut state,
                    &order,
                    pair,
                    share,
                    thresholds,
                    |state, i| state.observe(pair.diffs[i], pair.group_of[i], bets),
                    |state, t| state.verdict(t).0,
                );
                for (t, slot) in kept.iter().enumerate() {
                    let Some((action, at)) = *slot else { continue };
                    tally.add(&settings, n, t, action, at);
                }
            }
            tally.assert_matches(&result, p);
            kept_somewhere += tally.kept;
        }
    }
    assert!(kept_somewhere > 100, "only {kept_somewhere} kept decisions");
}

/// A brute-force watch's kept decisions of one pair, counted per threshold and budget as a replay's
/// tallies count them (a decision kept at look `at` stands at every budget from there on).
struct KeptTally {
    promotes: Vec<u32>,
    rejects: Vec<u32>,
    thresholds: usize,
    budgets: usize,
    /// (threshold, budget) cells a kept decision stands in.
    kept: usize,
}

impl KeptTally {
    fn new(thresholds: usize, budgets: usize) -> Self {
        KeptTally {
            promotes: vec![0; thresholds * budgets],
            rejects: vec![0; thresholds * budgets],
            thresholds,
            budgets,
            kept: 0,
        }
    }

    fn add(
        &mut self,
        settings: &ReplaySettings,
        n: u32,
        t: usize,
        action: pareval::engine::rules::Action,
        at: u32,
    ) {
        for (b, budget) in settings.grid.iter().enumerate() {
            if at <= budget.tasks_of(n) {
                match action {
                    pareval::engine::rules::Action::Promote => {
                        self.promotes[t * self.budgets + b] += 1
                    }
                    _ => self.rejects[t * self.budgets + b] += 1,
                }
                self.kept += 1;
            }
        }
    }

    /// The replay's promotes and rejects of pair `p` are these, at every threshold and budget.
    fn assert_matches(&self, result: &Replay, p: usize) {
        for t in 0..self.thresholds {
            for b in 0..self.budgets {
                let counts = result.pair_counts(p, t, b);
                let cell = t * self.budgets + b;
                assert_eq!(
                    (counts.promote, counts.reject),
                    (self.promotes[cell], self.rejects[cell]),
                    "pair {p} threshold {t} budget {b}"
                );
            }
        }
    }
}

/// A plain watch of one order of a pair: `observe(state, i)` feeds task i, and at every look where
/// coverage is met each threshold keeps its first final verdict (`verdict(state, t)`) with the look.
fn watch_order<S>(
    state: &mut S,
    order: &[u32],
    pair: &pareval::engine::walk::pair::PairData,
    share: u32,
    thresholds: usize,
    observe: impl Fn(&mut S, usize),
    verdict: impl Fn(&S, usize) -> pareval::engine::rules::Action,
) -> Vec<Option<(pareval::engine::rules::Action, u32)>> {
    use pareval::engine::rules::coverage::{CoverageStatus, status_share};
    let n = pair.n();
    let mut counts = vec![0u32; pair.group_sizes.len()];
    let mut kept = vec![None; thresholds];
    for (k, &i) in order.iter().enumerate() {
        let i = i as usize;
        observe(state, i);
        counts[pair.group_of[i] as usize] += 1;
        let k = k as u32 + 1;
        if status_share(k, &counts, &pair.group_sizes, n, share) != CoverageStatus::Ok {
            continue;
        }
        for (t, slot) in kept.iter_mut().enumerate() {
            let action = verdict(state, t);
            if slot.is_none() && action.is_final() {
                *slot = Some((action, k));
            }
        }
    }
    kept
}

/// A task-by-task walk reads each order's coverage gate before walking it, and keeps a stratified
/// order's reading for the pair's later orders (such an order places items by quota due time, so
/// every one passes at the same prefixes). At every budget the gate's bit must be the status of that
/// order's own counts, for every order kind, with one scratch walking a pair's orders in turn as a
/// replay does; uniform orders show both states, so a reading kept across them would be caught.
#[test]
fn each_order_is_gated_on_its_own_counts() {
    use pareval::engine::replay::Prepared;
    use pareval::engine::rules::coverage::{CoverageStatus, status_share};
    use pareval::engine::rules::{Detail, LocalTails};
    use pareval::engine::walk::monitor::MonitorScratch;
    let datasets = sample_and_shared(&["swebench_verified_bash_only"]);
    let mut uniform_closed = 0;
    for dataset in &datasets {
        for kind in [OrderKind::Stratified, OrderKind::Uniform, OrderKind::Neyman] {
            let mut settings = ReplaySettings::for_preset(Preset::Anytime);
            settings.policy.order = kind;
            settings.group_column = grouped(dataset);
            let prepared = Prepared::new(dataset, &settings).expect("prepare");
            let share = settings.policy.coverage_share.0;
            let (mut checked, mut closed) = (0, 0);
            let mut order = Vec::new();
            let mut local = LocalTails::default();
            for pair in prepared.pairs.iter().take(12) {
                let mut scratch = MonitorScratch::default();
                for r in 0..8 {
                    prepared.order(pair, r, &mut order);
                    let decide = |look, snapshot: &_, out: &mut Vec<_>| {
                        prepared.decide(pair, r, look, snapshot, Detail::Actions, &mut local, out);
                    };
                    prepared.decide_along(pair, &order, &mut scratch, decide, |b, snapshot, _| {
                        let counts = &snapshot.group_counts;
                        let own =
                            status_share(snapshot.k, counts, &pair.group_sizes, pair.n(), share)
                                == CoverageStatus::Ok;
                        assert_eq!(snapshot.gate_open(), own, "{kind:?} order {r} budget {b}");
                        checked += 1;
                        closed += usize::from(!own);
                    });
                }
            }
            assert!(checked > 100, "{kind:?}: only {checked} budgets checked");
            if kind == OrderKind::Uniform {
                uniform_closed += closed;
            }
        }
    }
    // The bundled sample's few groups pass at every budget; SWE-bench bash-only's twelve do not.
    if datasets.len() > 1 {
        assert!(
            uniform_closed > 0,
            "uniform orders should fail the gate at some budget"
        );
    }
}

/// The record's group column as the CLI picks it by default (`group`), so that a test's replay
/// stratifies as a user's does.
fn grouped(dataset: &Dataset) -> Option<String> {
    dataset.resolve_group_column(None).expect("group column")
}

/// The bundled sample, then each named record of the shared data when it is there.
fn sample_and_shared(names: &[&str]) -> Vec<Dataset> {
    let mut datasets =
        vec![load(&[sample("swe_repair.csv")], &LoadOptions::default()).expect("load")];
    if let Some(root) = shared_data() {
        for name in names {
            let path = root.join(name).join("records.csv");
            datasets.push(load(&[path], &LoadOptions::default()).expect("load"));
        }
    }
    datasets
}

/// A preset's replay of `orders` orders per pair, stratified by the record's group column, with the
/// preparation a test walks the same orders on.
fn replayed(
    dataset: &Dataset,
    preset: Preset,
    orders: u32,
) -> (ReplaySettings, Replay, pareval::engine::replay::Prepared) {
    let mut settings = ReplaySettings::for_preset(preset);
    settings.orders = orders;
    settings.group_column = grouped(dataset);
    let result = replay_with(dataset, &settings);
    let prepared = pareval::engine::replay::Prepared::new(dataset, &settings).expect("prepare");
    (settings, result, prepared)
}

#[test]
fn a_family_replay_s_progress_moves_with_each_order() {
    use pareval::engine::settings::{Adjust, Family};
    let dataset = load(&[sample("swe_repair.csv")], &LoadOptions::default()).expect("load");
    let mut settings = ReplaySettings::for_preset(Preset::Primary);
    settings.policy.rule = pareval::engine::Rule::Bootstrap(BootstrapMode::Exact);
    settings.policy.family = Family::Tested;
    settings.policy.adjust = Adjust::Holm;
    settings.orders = 4;
    let control = Control::default();
    // The sink is called once per order, after its pairs are walked: the progress seen there.
    let mut seen = Vec::new();
    let mut sink = |_: Vec<DecisionRecord>| -> Result<(), String> {
        seen.push(
            control
                .pairs_done
                .load(std::sync::atomic::Ordering::Relaxed),
        );
        Ok(())
    };
    let options = ReplayOptions {
        records: Some(&mut sink),
        ..ReplayOptions::default()
    };
    let result = replay(&dataset, &settings, &control, options).expect("replay");
    let pairs = result.prepared.pairs.len();
    // Before the last order's share is added: 0, ¼, ½, ¾ of the pairs; all of them at the end.
    assert_eq!(seen, vec![0, pairs / 4, pairs / 2, pairs * 3 / 4]);
    assert_eq!(
        control
            .pairs_done
            .load(std::sync::atomic::Ordering::Relaxed),
        pairs
    );
}

/// A kept decision's record describes the coverage of the look that made it, like its estimate and
/// reason: under a uniform order a group can fall below its larger quota after the decision, and the
/// record at a later budget said `coverage: ok` beside that budget's short groups.
#[test]
fn a_kept_decisions_coverage_table_is_the_deciding_looks() {
    use pareval::engine::rules::coverage::CoverageStatus;
    use pareval::engine::settings::{Adjust, Family};
    let dataset = load(&[sample("swe_repair.csv")], &LoadOptions::default()).expect("load");
    let mut settings = ReplaySettings::for_preset(Preset::Primary);
    settings.group_column = grouped(&dataset);
    settings.policy.rule = pareval::engine::Rule::Bootstrap(BootstrapMode::Exact);
    settings.policy.order = OrderKind::Uniform;
    settings.policy.monitor = Monitor::Sequential;
    settings.orders = 4;
    for (looks, family) in [
        (Looks::Every, Family::Pair),
        (Looks::Grid, Family::Pair),
        (Looks::Grid, Family::Tested),
    ] {
        settings.policy.looks = looks;
        settings.policy.family = family;
        settings.policy.adjust = match family {
            Family::Pair => Adjust::None,
            _ => Adjust::Holm,
        };
        let records = records_of(&dataset, &settings);
        let mut kept_before_the_budget = 0;
        for record in &records {
            let Some(at) = record.decided_at else {
                continue;
            };
            let counted: u32 = record.coverage_groups.iter().map(|g| g.observed).sum();
            assert_eq!(counted, at, "{looks:?} {family:?}: {record:?}");
            let short: Vec<&String> = record
                .coverage_groups
                .iter()
                .filter(|g| g.observed < g.required)
                .map(|g| &g.group)
                .collect();
            assert_eq!(short, record.missing_groups.iter().collect::<Vec<_>>());
            if record.coverage == CoverageStatus::Ok {
                assert!(record.missing_groups.is_empty(), "{record:?}");
            }
            if at < record.observed {
                kept_before_the_budget += 1;
            }
        }
        assert!(kept_before_the_budget > 0, "{looks:?} {family:?}");
    }
}

/// `pair`'s records (the explorer's drill-down) describe a kept decision's coverage at its look too.
#[test]
fn pair_records_give_a_kept_decisions_coverage_at_its_look() {
    let path = sample("swe_repair.csv");
    let output = pareval(&[
        "pair",
        path.to_str().expect("path"),
        "--tested",
        "ReAct (cirrus-1)",
        "--baseline",
        "CodeAct (ember-1)",
        "--order",
        "uniform",
        "--monitor",
        "sequential",
        "--looks",
        "every",
        "--budget",
        "0.9",
        "--order-index",
        "7",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    let kept = json["records"]
        .as_array()
        .expect("records")
        .iter()
        .find(|r| r["threshold_pp"] == 10.0)
        .expect("the 10 pp record");
    // Decided at 123 of the budget's 135 tasks; two groups fell short of their quotas after it.
    assert_eq!(
        (kept["observed"].as_u64(), kept["decided_at"].as_u64()),
        (Some(135), Some(123))
    );
    assert_eq!(kept["coverage"], "ok");
    assert_eq!(kept["missing_groups"], serde_json::json!([]));
    let counted: u64 = kept["coverage_groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| g["observed"].as_u64().expect("count"))
        .sum();
    assert_eq!(counted, 123);
}
