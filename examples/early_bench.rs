//! Early outcome prediction's speed figures (issue 10): the time of every fold of the protocol
//! (featurizer, both models, the test predictions), the sweep, the cost of scoring one prefix
//! (features + both models) and of one τ-slider step and one drill-down step in the explorer's early
//! view (update + draw on an off-screen 120×40 terminal). Used by `bench/run early`.
//!
//! cargo run --release --example early_bench -- STEPS.csv OUTCOMES.csv [TREES]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pareval::data::ColumnMap;
use pareval::data::trajectories::load_trajectories;
use pareval::early::features::{FeatureSettings, Featurizer};
use pareval::early::model::{ModelSettings, OutcomeModels};
use pareval::early::protocol::{Protocol, folds};
use pareval::tui::app::{Action, App};
use pareval::tui::early::{EarlyEvent, EarlyJob, EarlyPanel, compute};
use pareval::tui::view::{Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn fail(message: String) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(steps), Some(outcomes)) = (args.get(1), args.get(2)) else {
        fail("usage: early_bench STEPS OUTCOMES [TREES]".to_string());
    };
    let trees: usize = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(50);
    let data = load_trajectories(
        steps.as_ref(),
        outcomes.as_ref(),
        None,
        &ColumnMap::default(),
    )
    .unwrap_or_else(|e| fail(e.to_string()));
    let protocol = Protocol::default_for(&data);
    let model = ModelSettings {
        iterations: trees,
        ..ModelSettings::default()
    };
    let data = Arc::new(data);
    let job = EarlyJob {
        data: data.clone(),
        protocol,
        features: FeatureSettings::default(),
        model,
        delta: 0.0,
        target: None,
        sources: [steps.clone(), outcomes.clone()],
    };
    // Every fold, timed from one report to the next.
    let marks = Mutex::new(vec![Instant::now()]);
    let started = Instant::now();
    let result = compute(&job, &|_, _| {
        if let Ok(mut marks) = marks.lock() {
            marks.push(Instant::now());
        }
        true
    })
    .unwrap_or_else(|e| fail(e));
    let total = started.elapsed();
    let marks = marks.into_inner().unwrap_or_default();
    // marks: start, before fold 1, …, before fold n, after the last fold.
    let fold_times: Vec<Duration> = marks.windows(2).skip(1).map(|w| w[1] - w[0]).collect();
    println!(
        "{} trajectories, {} folds ({}), {trees} trees per model",
        data.trajectories.len(),
        fold_times.len(),
        protocol.name()
    );
    for (name, time) in result.predictions.folds.iter().zip(&fold_times) {
        println!("  fold {name}: {:.1} s", time.as_secs_f64());
    }
    println!(
        "training and the sweep over {} tau: {:.1} s",
        result.taus.len(),
        total.as_secs_f64()
    );

    // One prefix: features from the steps so far and both calibrated models.
    let fold = folds(&data, protocol, 0)
        .unwrap_or_else(|e| fail(e.to_string()))
        .into_iter()
        .next()
        .unwrap_or_else(|| fail("no fold".to_string()));
    let train: Vec<_> = fold.train.iter().map(|&i| &data.trajectories[i]).collect();
    let featurizer = Featurizer::fit(&train, FeatureSettings::default());
    let models =
        OutcomeModels::fit(featurizer, &train, model).unwrap_or_else(|e| fail(e.to_string()));
    let width = models.featurizer.names().len();
    let mut scored = 0usize;
    let mut checksum = 0.0;
    let scoring = Instant::now();
    for &i in fold.test.iter().take(200) {
        let t = &data.trajectories[i];
        let k = t.len().saturating_sub(1).max(1) / 2 + 1;
        let row = models.featurizer.prefix(&t.steps, k.min(t.len()));
        checksum += models.success.probabilities(&row, width)[0]
            + models.failure.probabilities(&row, width)[0];
        scored += 1;
    }
    let per_prefix = scoring.elapsed() / scored.max(1) as u32;
    println!(
        "scoring one prefix (features from scratch + both models): {:.3} ms over {scored} prefixes (target ≤ 1 ms; checksum {checksum:.3})",
        per_prefix.as_secs_f64() * 1000.0
    );

    // The explorer's early view: slider steps and drill-down steps, update + draw.
    let record = pareval::data::load(&[outcomes.into()], &pareval::data::LoadOptions::default())
        .unwrap_or_else(|e| fail(e.to_string()));
    let dataset = Arc::new(record);
    let compute_key = App::default_compute(
        &dataset,
        pareval::engine::Preset::Primary,
        vec![0, 500, 1000],
        20,
    );
    let (mut app, _) = App::new(dataset, vec![outcomes.clone()], compute_key, None);
    app.attach_early(EarlyPanel::new("bench".to_string()));
    app.update(Action::Early(EarlyEvent::Finished(Ok(Arc::new(result)))));
    let mut terminal =
        Terminal::new(TestBackend::new(120, 40)).unwrap_or_else(|e| fail(e.to_string()));
    let theme = Theme {
        color: true,
        high_contrast: false,
    };
    let mut step = |app: &mut App, action: Action| -> Duration {
        let t = Instant::now();
        app.update(action);
        let _ = terminal.draw(|frame| draw(frame, app, theme));
        t.elapsed()
    };
    let mut slider = Vec::new();
    for action in [Action::BudgetFirst]
        .into_iter()
        .chain((0..44).map(|_| Action::BudgetNext))
    {
        slider.push(step(&mut app, action));
    }
    step(&mut app, Action::BudgetLast);
    step(&mut app, Action::OpenDrill);
    let mut drill = Vec::new();
    for _ in 0..20 {
        drill.push(step(&mut app, Action::DrillNextOrder));
    }
    let report = |name: &str, times: &mut Vec<Duration>| {
        times.sort();
        let mean = times.iter().sum::<Duration>() / times.len().max(1) as u32;
        println!(
            "{name}: mean {:.2} ms, worst {:.2} ms over {} steps (target ≤ 16 ms)",
            mean.as_secs_f64() * 1000.0,
            times.last().map_or(0.0, |t| t.as_secs_f64() * 1000.0),
            times.len()
        );
    };
    report("early view: tau slider step (update + draw)", &mut slider);
    report("early view: next trajectory in the drill-down", &mut drill);
}
