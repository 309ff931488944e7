//! Measures how long a replay takes to stop after its cancel flag is set (target: 50 ms). Used by
//! `bench/run replay`; not a test, because timing on a shared machine is not a pass/fail property.
//!
//! cargo run --release --example cancel_latency -- RECORDS.csv

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use pareval::data::{LoadOptions, load};
use pareval::engine::settings::{BootstrapMode, Fraction, Preset, ReplaySettings};
use pareval::engine::{Control, replay};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: cancel_latency RECORDS");
        std::process::exit(2);
    };
    let dataset = match load(&[path.into()], &LoadOptions::default()) {
        Ok(dataset) => Arc::new(dataset),
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(2);
        }
    };
    let mut settings = ReplaySettings::for_preset(Preset::Primary);
    settings.policy = Preset::Primary.policy(BootstrapMode::Mc { resamples: 200 }, Fraction(500));
    settings.group_column = dataset.group_column("group").map(|c| c.name.clone());
    settings.orders = 500;
    let mut worst = Duration::ZERO;
    for delay in [50u64, 150, 300, 600, 900] {
        let control = Arc::new(Control::default());
        let (data, flag, job) = (dataset.clone(), control.clone(), settings.clone());
        let worker = std::thread::spawn(move || {
            let _ = replay(
                &data,
                &job,
                &flag,
                pareval::engine::ReplayOptions::default(),
            );
            Instant::now()
        });
        std::thread::sleep(Duration::from_millis(delay));
        let cancelled = Instant::now();
        control.cancel.store(true, Ordering::Relaxed);
        let finished = worker.join().unwrap_or_else(|_| Instant::now());
        let latency = finished.saturating_duration_since(cancelled);
        println!(
            "  cancelled after {delay} ms: stopped {:.1} ms later",
            latency.as_secs_f64() * 1000.0
        );
        worst = worst.max(latency);
    }
    println!(
        "cancel latency: worst {:.1} ms (target ≤ 50 ms)",
        worst.as_secs_f64() * 1000.0
    );
}
