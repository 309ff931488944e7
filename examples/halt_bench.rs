//! The saved early predictor's speed figures (issue 21): loading a model file, scoring one new step
//! of a running trajectory, and `halt --follow`'s path (tail, parse, score) with 1,000 running
//! trajectories and 100 new steps a second, on one core. Used by `bench/run halt`.
//!
//! cargo run --release --example halt_bench -- MODEL STEPS.csv

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pareval::data::ColumnMap;
use pareval::data::trajectories::load_steps;
use pareval::early::running::Scoreboard;
use pareval::early::saved::Predictor;
use pareval::watch::steps::StepsFollower;

fn fail(message: String) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(model), Some(steps)) = (args.get(1), args.get(2)) else {
        fail("usage: halt_bench MODEL STEPS".to_string());
    };
    let mut best = Duration::MAX;
    let mut predictor = None;
    for _ in 0..5 {
        let started = Instant::now();
        let loaded = Predictor::load(Path::new(model)).unwrap_or_else(|e| fail(e.to_string()));
        best = best.min(started.elapsed());
        predictor = Some(loaded);
    }
    let Some(predictor) = predictor else {
        fail("no model".to_string());
    };
    let bytes = std::fs::metadata(model).map_or(0, |m| m.len());
    println!(
        "load a model ({:.1} MB): best of 5 {:.3} s (target ≤ 0.5 s)",
        bytes as f64 / 1e6,
        best.as_secs_f64()
    );
    let predictor = Arc::new(predictor);
    let thresholds = predictor.thresholds(None, None);
    let file =
        load_steps(Path::new(steps), &ColumnMap::default()).unwrap_or_else(|e| fail(e.to_string()));
    // Scoring: every step of the first 1,000 trajectories, one at a time.
    let mut board = Scoreboard::new(predictor.clone(), thresholds);
    let chosen: Vec<_> = file.trajectories.iter().take(1000).collect();
    let started = Instant::now();
    let mut pushed = 0usize;
    for (key, steps) in &chosen {
        for (i, step) in steps.iter().enumerate() {
            board
                .push(key.clone(), i + 1, step.clone())
                .unwrap_or_else(|e| fail(e));
            pushed += 1;
        }
    }
    let per_step = started.elapsed().as_secs_f64() / pushed as f64;
    println!(
        "score one new step (features + both models + the rule), {pushed} steps of {} trajectories: {:.3} ms per step (target ≤ 1 ms)",
        chosen.len(),
        per_step * 1e3
    );
    // halt --follow's path: a CSV that grows by 100 steps a second, round-robin over 1,000 running
    // trajectories, read by the follower (tail, parse, score) on this thread.
    let dir = std::env::temp_dir().join(format!("pareval-halt-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("growing.csv");
    let header =
        "system,task,run,step,role,action,observation_chars,is_error,tokens_in,tokens_out,text";
    std::fs::write(&path, format!("{header}\n")).unwrap_or_else(|e| fail(e.to_string()));
    let mut follower = StepsFollower::new(
        std::slice::from_ref(&path),
        predictor,
        thresholds,
        ColumnMap::default(),
    )
    .unwrap_or_else(|e| fail(e));
    let source = std::fs::read_to_string(steps).unwrap_or_else(|e| fail(e.to_string()));
    let mut by_trajectory: Vec<Vec<&str>> = Vec::new();
    let mut last_key = String::new();
    for line in source.lines().skip(1) {
        let key: String = line.splitn(4, ',').take(3).collect::<Vec<_>>().join(",");
        if key != last_key {
            if by_trajectory.len() == 1000 {
                break;
            }
            by_trajectory.push(Vec::new());
            last_key = key;
        }
        if let Some(t) = by_trajectory.last_mut() {
            t.push(line);
        }
    }
    let mut next = vec![0usize; by_trajectory.len()];
    let mut cursor = 0usize;
    let (mut busy, mut steps_read, mut seconds) = (Duration::ZERO, 0usize, 0);
    let mut worst = Duration::ZERO;
    for _ in 0..20 {
        // One second's worth: 100 steps from the next trajectories with steps left.
        let mut batch = String::new();
        let mut added = 0;
        let mut tries = 0;
        while added < 100 && tries < by_trajectory.len() * 2 {
            let t = cursor % by_trajectory.len();
            cursor += 1;
            tries += 1;
            if let Some(line) = by_trajectory[t].get(next[t]) {
                batch.push_str(line);
                batch.push('\n');
                next[t] += 1;
                added += 1;
            }
        }
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| fail(e.to_string()));
        f.write_all(batch.as_bytes())
            .unwrap_or_else(|e| fail(e.to_string()));
        drop(f);
        let started = Instant::now();
        let news = follower.poll().unwrap_or_else(|e| fail(e));
        let took = started.elapsed();
        busy += took;
        worst = worst.max(took);
        steps_read += added;
        seconds += 1;
        std::hint::black_box(news);
    }
    println!(
        "halt --follow's path, 1,000 running trajectories, 100 new steps a second for {seconds} s: {:.1} ms of work per second's steps (worst {:.1} ms), {:.1}% of one core; {steps_read} steps read",
        busy.as_secs_f64() * 1e3 / f64::from(seconds),
        worst.as_secs_f64() * 1e3,
        100.0 * busy.as_secs_f64() / f64::from(seconds)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
