//! The stratified anytime rule (SPEC §9a), shown rather than claimed: on populations whose completed
//! difference is exactly the threshold — one with equal groups, one whose groups differ by ±30 pp in
//! opposite directions — the rule watched after every task of 1,000 stratified orders promotes (and
//! rejects) in at most about a of them; a real 25 pp difference is promoted in nearly every order; and
//! the replay, `decide` and the records name the construction.

use pareval::data::{LoadOptions, load};
use pareval::dataset::Dataset;
use pareval::engine::anytime::Bets;
use pareval::engine::decision::Action;
use pareval::engine::settings::{
    BootstrapMode, Construction, Fraction, OrderKind, Preset, ReplaySettings, Threshold,
};
use pareval::engine::stratified::{Grid, StratifiedState};
use pareval::engine::streams::StreamKey;
use pareval::engine::{Control, ReplayOptions, replay};

use crate::common::{pareval, stdout, temp_dir};

/// Two systems over groups: `groups[g] = (tasks, wins, losses)` with the rest ties, so group g's
/// difference is (wins − losses)/tasks.
fn grouped_population(name: &str, groups: &[(usize, usize, usize)]) -> Dataset {
    let mut csv = String::from("system,task,outcome,group\n");
    for (g, &(n, wins, losses)) in groups.iter().enumerate() {
        for i in 0..n {
            let (a, b) = if i < wins {
                (1, 0)
            } else if i < wins + losses {
                (0, 1)
            } else {
                (i % 2, i % 2)
            };
            csv.push_str(&format!("A,g{g}-t{i},{a},g{g}\nB,g{g}-t{i},{b},g{g}\n"));
        }
    }
    let dir = temp_dir(name);
    let path = dir.join("records.csv");
    std::fs::write(&path, csv).expect("write population");
    load(&[path], &LoadOptions::default()).expect("load population")
}

const ORDERS: u32 = 1000;

/// a plus three Monte Carlo standard errors over 1,000 orders.
fn nominal_bound() -> f64 {
    0.05 + 3.0 * (0.05f64 * 0.95 / f64::from(ORDERS)).sqrt()
}

fn anytime_settings(threshold: Threshold, orders: u32) -> ReplaySettings {
    let mut settings = ReplaySettings::for_preset(Preset::Anytime);
    settings.policy = Preset::Anytime.policy(BootstrapMode::Exact, Fraction(500));
    settings.thresholds = vec![threshold];
    settings.orders = orders;
    settings.seed = 19;
    settings.group_column = Some("group".to_string());
    settings
}

/// The share of A → B's orders with a promote kept by the last budget, and with any decision.
fn ever_shares(dataset: &Dataset, settings: &ReplaySettings) -> (f64, f64) {
    let result = replay(
        dataset,
        settings,
        &Control::default(),
        ReplayOptions::default(),
    )
    .expect("replay");
    let pair = result
        .prepared
        .pairs
        .iter()
        .position(|p| result.prepared.names(p) == ("A", "B"))
        .expect("pair A → B");
    let last = result.pair_counts(pair, 0, result.budgets() - 1);
    let orders = f64::from(settings.orders);
    (
        f64::from(last.promote) / orders,
        f64::from(last.promote + last.reject) / orders,
    )
}

#[test]
fn the_preset_is_the_stratified_construction() {
    let policy = Preset::Anytime.policy(BootstrapMode::Exact, Fraction(500));
    assert_eq!(policy.order, OrderKind::Stratified);
    assert_eq!(policy.construction(), Some(Construction::Stratified));
    assert_eq!(policy.validity(), "anytime-valid (stratified plan)");
    let uniform = Preset::AnytimeUniform.policy(BootstrapMode::Exact, Fraction(500));
    assert_eq!(uniform.construction(), Some(Construction::Uniform));
    let mut cost = policy;
    cost.order = OrderKind::Cost;
    assert_eq!(cost.construction(), Some(Construction::Descriptive));
    assert!(cost.validity().starts_with("descriptive"));
}

#[test]
fn at_the_threshold_with_equal_groups_promotes_in_at_most_about_a_of_orders() {
    // Four groups of 100, each with Δ_g = (25 − 20)/100 = 5 pp = δ: every promote is wrong.
    let dataset = grouped_population("strat-equal", &[(100, 25, 20); 4]);
    let (promoted, _) = ever_shares(&dataset, &anytime_settings(Threshold(500), ORDERS));
    assert!(
        promoted <= nominal_bound(),
        "promoted in {promoted} of orders (bound {})",
        nominal_bound()
    );
    println!("equal groups: ever promoted {promoted}");
}

#[test]
fn at_the_threshold_with_opposed_groups_promotes_in_at_most_about_a_of_orders() {
    // Δ = 0 overall: group 0 at +30 pp, group 1 at −30 pp (200 tasks each). A rule that pooled the
    // groups as if the order were uniform would see the strong group's early share and could err.
    let dataset = grouped_population("strat-opposed", &[(200, 80, 20), (200, 20, 80)]);
    let (promoted, _) = ever_shares(&dataset, &anytime_settings(Threshold(0), ORDERS));
    assert!(
        promoted <= nominal_bound(),
        "promoted in {promoted} of orders (bound {})",
        nominal_bound()
    );
    println!("opposed groups: ever promoted {promoted}");
}

#[test]
fn the_reject_test_also_holds_its_level_at_the_threshold() {
    // The reject test's null is Δ ≥ δ, which holds at Δ = δ: crossing it there is a type I error too.
    // Driven through the state itself: the replay counts a reject at Δ = δ as right.
    let groups = [(60u32, 20u32, 14u32), (90, 21, 30), (50, 15, 12)];
    let mut population: Vec<(f64, u32)> = Vec::new();
    for (g, &(n, wins, losses)) in groups.iter().enumerate() {
        for i in 0..n {
            let d = if i < wins {
                1.0
            } else if i < wins + losses {
                -1.0
            } else {
                0.0
            };
            population.push((d, g as u32));
        }
    }
    let total: f64 = population.iter().map(|p| p.0).sum();
    let delta = total / population.len() as f64;
    let sizes: Vec<u32> = groups.iter().map(|g| g.0).collect();
    let bets = Bets::new(0.05, 0.5, 400);
    let mut crossed = [0u32; 2];
    let mut state = StratifiedState::default();
    for r in 0..ORDERS {
        // A stratified order's law inside each group: uniform; the group sequence is fixed by the
        // quotas, never by outcomes, so any fixed interleaving gives the same guarantee.
        let mut by_group: Vec<Vec<f64>> = vec![Vec::new(); groups.len()];
        for &(d, g) in &population {
            by_group[g as usize].push(d);
        }
        let mut rng = StreamKey::new(5, "strat-reject").u64(u64::from(r)).rng();
        for members in &mut by_group {
            rng.shuffle(members);
        }
        state.reset(&sizes, Grid::for_scale(Some(1)), [delta].into_iter());
        let mut taken = vec![0usize; groups.len()];
        let mut decided = None;
        for k in 1..=population.len() {
            // Largest proportional deficit first (a quota-meeting interleaving).
            let g = (0..groups.len())
                .filter(|&g| taken[g] < by_group[g].len())
                .max_by(|&a, &b| {
                    let need = |g: usize| k as f64 * f64::from(sizes[g]) - taken[g] as f64 * 200.0;
                    need(a).total_cmp(&need(b)).then(b.cmp(&a))
                })
                .expect("a group with tasks left");
            state.observe(by_group[g][taken[g]], g as u32, &bets);
            taken[g] += 1;
            let (action, reason) = state.verdict(0);
            if action.is_final() && reason != pareval::engine::decision::Reason::Certain {
                decided = Some(action);
                break;
            }
        }
        match decided {
            Some(Action::Promote) => crossed[0] += 1,
            Some(Action::Reject) => crossed[1] += 1,
            _ => {}
        }
    }
    for (side, &count) in ["promote", "reject"].iter().zip(&crossed) {
        let share = f64::from(count) / f64::from(ORDERS);
        assert!(
            share <= nominal_bound(),
            "{side} test crossed at the null in {share} of orders"
        );
    }
}

#[test]
fn a_real_difference_is_promoted_in_nearly_every_order() {
    // Δ = 25 pp (four groups of 100 at 25 pp each, 20% ties... 35 wins and 10 losses each) against δ = 0.
    let dataset = grouped_population("strat-real", &[(100, 35, 10); 4]);
    let (promoted, _) = ever_shares(&dataset, &anytime_settings(Threshold(0), 200));
    assert!(promoted >= 0.95, "promoted in only {promoted} of orders");
}

#[test]
fn decide_reads_the_plan_order_and_says_what_the_guarantee_rests_on() {
    let dir = temp_dir("strat-decide");
    // A strong and a weak system on a 200-task plan in 4 groups, the plan's first 120 tasks observed.
    let mut tasks = String::from("task,group\n");
    for i in 0..200 {
        tasks.push_str(&format!("t{i:03},g{}\n", i % 4));
    }
    std::fs::write(dir.join("tasks.csv"), tasks).expect("tasks");
    let plan = dir.join("plan.csv");
    let tasks_path = dir.join("tasks.csv");
    let out = pareval(&[
        "plan",
        tasks_path.to_str().unwrap(),
        "--out",
        plan.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The plan's first 120 tasks, written in task-name order; decide reads them in the plan's order.
    let planned = std::fs::read_to_string(&plan).expect("plan");
    let task_column = planned
        .lines()
        .next()
        .and_then(|header| header.split(',').position(|c| c == "task"))
        .expect("task column");
    let mut observed: Vec<usize> = planned
        .lines()
        .skip(1)
        .take(120)
        .map(|line| {
            let task = line.split(',').nth(task_column).expect("task");
            task[1..].parse().expect("t###")
        })
        .collect();
    observed.sort_unstable();
    let mut rows = String::from("system,task,outcome\n");
    for i in observed {
        rows.push_str(&format!("strong,t{i:03},{}\n", u8::from(i % 5 != 0)));
        rows.push_str(&format!("weak,t{i:03},{}\n", u8::from(i % 5 == 0)));
    }
    let rows_path = dir.join("rows.csv");
    std::fs::write(&rows_path, rows).expect("rows");
    let text = decide_strong_against_weak(&rows_path, &plan, &[]);
    assert!(
        text.contains("plan order stratified")
            && text.contains("§9a")
            && text.contains("anytime-valid (stratified plan)"),
        "{text}"
    );
    assert!(text.contains(": promote ("), "{text}");
    assert!(text.contains("Λ promote"), "{text}");
    // JSON records carry the construction and the validity.
    let json = decide_strong_against_weak(&rows_path, &plan, &["--format", "json"]);
    let record: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(record["order"], "stratified");
    assert_eq!(record["validity"], "anytime-valid (stratified plan)");
    assert_eq!(record["statistic"]["kind"], "stratified");
    // A plan without an order column is the file's own order: §9, descriptive.
    let plain = decide_strong_against_weak(&rows_path, &tasks_path, &[]);
    assert!(
        plain.contains("plan order file (the plan has no order column")
            && plain.contains("descriptive"),
        "{plain}"
    );
}

/// `pareval decide ROWS --plan PLAN --tested strong --baseline weak --rule anytime` with `extra`
/// flags (`--format text` unless they name a format): what it prints.
fn decide_strong_against_weak(
    rows: &std::path::Path,
    plan: &std::path::Path,
    extra: &[&str],
) -> String {
    let mut args = vec![
        "decide",
        rows.to_str().unwrap(),
        "--plan",
        plan.to_str().unwrap(),
        "--tested",
        "strong",
        "--baseline",
        "weak",
        "--rule",
        "anytime",
    ];
    if !extra.contains(&"--format") {
        args.extend(["--format", "text"]);
    }
    args.extend(extra);
    stdout(&pareval(&args))
}

#[test]
fn a_uniform_plan_held_back_by_coverage_says_so_and_a_coverage_share_lets_it_through() {
    let dir = temp_dir("strat-uniform-plan");
    let tasks = dir.join("tasks.csv");
    let mut text = String::from("task,group\n");
    for i in 0..400 {
        text.push_str(&format!("t{i:03},g{}\n", i % 4));
    }
    std::fs::write(&tasks, text).expect("tasks");
    let decide_at = |order: &str, k: usize, extra: &[&str]| -> String {
        let plan = dir.join(format!("plan-{order}.csv"));
        let out = pareval(&[
            "plan",
            tasks.to_str().unwrap(),
            "--order",
            order,
            "--seed",
            "2",
            "--out",
            plan.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        let plan_text = std::fs::read_to_string(&plan).expect("plan");
        let mut rows = String::from("system,task,run,outcome\n");
        for (i, line) in plan_text.lines().skip(1).take(k).enumerate() {
            let task = line.split(',').nth(1).expect("task");
            rows.push_str(&format!(
                "strong,{task},0,{}\nweak,{task},0,{}\n",
                u8::from(i % 5 != 0),
                u8::from(i % 2 == 0)
            ));
        }
        let rows_path = dir.join("rows.csv");
        std::fs::write(&rows_path, rows).expect("rows");
        decide_strong_against_weak(&rows_path, &plan, extra)
    };
    // A 30 pp difference: under the stratified plan §9a promotes within the first 50 tasks.
    let stratified = decide_at("stratified", 50, &[]);
    assert!(stratified.contains("0 pp: promote"), "{stratified}");
    // Under the uniform plan §9's wealth has crossed by 100 tasks, but a group is short of its quota.
    let uniform = decide_at("uniform", 100, &[]);
    assert!(
        uniform.contains("plan order uniform")
            && uniform.contains("anytime-valid (uniform plan)")
            && uniform.contains("0 pp: continue")
            && uniform.contains("coverage alone holds the decision back")
            && uniform.contains("--coverage-share"),
        "{uniform}"
    );
    let shared = decide_at("uniform", 100, &["--coverage-share", "0.8"]);
    assert!(shared.contains("0 pp: promote"), "{shared}");
    // Shares outside (0, 1] are refused.
    let zero = pareval(&["replay", "sample_runs/app_use.csv", "--coverage-share", "0"]);
    crate::common::assert_refused(&zero, "--coverage-share '0' must be in (0, 1]");
    let above = pareval(&[
        "replay",
        "sample_runs/app_use.csv",
        "--coverage-share",
        "1.5",
    ]);
    crate::common::assert_refused(&above, "--coverage-share");
}

/// A real order in which the rule errs: AppWorld's FullCodeRefl against ReAct (gpt-4o) under the
/// plan `pareval plan … --seed 11` draws. After 187 tasks, with the estimate at −1.1 pp, the band's
/// test of "Δ ≤ −10 pp" crosses; the completed record says −12.1 pp, so that crossing was one of the
/// false decisions the rule allows with chance ≤ a. `watch` must show
/// the band as empty from where the tasks contradict it, not as an interval whose ends are swapped.
#[test]
fn watch_shows_a_band_the_later_tasks_contradict_as_empty() {
    use pareval::engine::live::LiveSettings;
    use pareval::engine::record::Provenance;
    use pareval::watch::follow::{Event, OutcomeRow};
    use pareval::watch::state::{Baselines, WatchState};

    let Some(root) = crate::common::shared_data() else {
        return;
    };
    let records = root.join("hal_appworld/records.csv");
    let dir = temp_dir("stratified-empty-band");
    let plan_path = dir.join("plan.csv");
    let out = pareval(&[
        "plan",
        records.to_str().expect("path"),
        "--seed",
        "11",
        "--out",
        plan_path.to_str().expect("path"),
    ]);
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    let plan = pareval::data::load_plan(&plan_path, None).expect("plan");
    let (tested, baseline) = (
        "FullCodeRefl (gpt-4o-2024-05-13)",
        "ReAct (gpt-4o-2024-05-13)",
    );
    let text = std::fs::read_to_string(&records).expect("records");
    let mut outcomes = std::collections::HashMap::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        if fields[0] == tested || fields[0] == baseline {
            outcomes.insert(
                (fields[0], fields[1]),
                fields[2].parse::<f64>().expect("outcome"),
            );
        }
    }
    let mut state = WatchState::new(
        plan.plan.clone(),
        tested.to_string(),
        Baselines::Named(vec![baseline.to_string()]),
        LiveSettings {
            policy: Preset::Anytime.policy(BootstrapMode::Exact, Fraction(500)),
            thresholds: vec![Threshold(0)],
            seed: 11,
            budget: Fraction::ONE,
            reading: Default::default(),
        },
        Provenance::new(&[]),
    );
    let mut line = 1;
    let mut events = Vec::new();
    for task in &plan.tasks {
        for system in [tested, baseline] {
            line += 1;
            events.push(Event::Row {
                file: "live.csv".to_string(),
                line,
                row: OutcomeRow {
                    system: system.to_string(),
                    task: task.clone(),
                    run: "0".to_string(),
                    outcome: outcomes[&(system, task.as_str())],
                    errored: false,
                },
            });
        }
    }
    state.apply(events);
    let band = &state.pairs[0].band;
    assert_eq!(band.estimate.len(), 585);
    assert!(
        (band.estimate[584] + 0.121).abs() < 0.001,
        "{}",
        band.estimate[584]
    );
    assert!(band.is_empty_now());
    // Empty once the settled sum passes the −10 pp crossing, late in the run, and not before it.
    let since = band.empty_since().expect("empty");
    // The false crossing: the lower bound reaches −10 pp while the estimate says about 0.
    let crossed = band
        .lower
        .iter()
        .position(|&lo| lo >= -0.1 - 1e-9)
        .expect("a crossing at -10 pp");
    assert!(
        (150..250).contains(&crossed),
        "crossed after {} tasks",
        crossed + 1
    );
    assert!(band.estimate[crossed] > -0.05, "{}", band.estimate[crossed]);
    assert!((300..585).contains(&since), "empty since task {since}");
    assert!(
        band.lower[..since - 1]
            .iter()
            .zip(&band.upper)
            .all(|(lo, hi)| lo <= hi)
    );
    assert!(
        band.empty_note()
            .contains(&format!("empty since task {since}"))
    );
    assert!(
        state
            .notices
            .iter()
            .any(|n| n.contains(&format!("band empty since task {since}"))),
        "{:?}",
        state.notices
    );
    // The decision at 0 pp stands: the completed record rejects.
    assert_eq!(state.pairs[0].records[0].action, Action::Reject);
}

/// A group with no observed task needs one whatever the coverage share (its quota never drops below
/// one task), so a decision held back by it names the group instead of recommending a share that
/// cannot help: a stratified plan read with `--reading finished`, its one-task group unfinished.
#[test]
fn a_group_with_no_task_yet_is_named_rather_than_a_coverage_share_recommended() {
    let dir = temp_dir("strat-empty-group");
    let tasks = dir.join("tasks.csv");
    let mut text = String::from("task,group\nlonely,rare\n");
    for i in 0..300 {
        text.push_str(&format!("t{i:03},g{}\n", i % 3));
    }
    std::fs::write(&tasks, text).expect("tasks");
    let plan = dir.join("plan.csv");
    let out = pareval(&[
        "plan",
        tasks.to_str().unwrap(),
        "--out",
        plan.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    let plan_text = std::fs::read_to_string(&plan).expect("plan");
    let mut rows = String::from("system,task,outcome\n");
    for (i, line) in plan_text.lines().skip(1).take(120).enumerate() {
        let task = line.split(',').nth(1).expect("task");
        if task == "lonely" {
            continue;
        }
        rows.push_str(&format!(
            "strong,{task},{}\nweak,{task},{}\n",
            u8::from(i % 10 != 0),
            u8::from(i % 2 == 0)
        ));
    }
    let rows_path = dir.join("rows.csv");
    std::fs::write(&rows_path, rows).expect("rows");
    let decide = |extra: &[&str]| {
        let read_every_finished = [&["--reading", "finished"][..], extra].concat();
        decide_strong_against_weak(&rows_path, &plan, &read_every_finished)
    };
    let held = decide(&[]);
    assert!(
        held.contains("0 pp: continue")
            && held.contains("coverage alone holds the decision back")
            && held
                .contains("no coverage share lowers a quota below one task, and rare has none yet")
            && !held.contains("--coverage-share q < 1 relaxes"),
        "{held}"
    );
    // And indeed a share does not let it through.
    let shared = decide(&["--coverage-share", "0.5"]);
    assert!(shared.contains("0 pp: continue"), "{shared}");
}
