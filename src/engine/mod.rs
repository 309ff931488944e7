//! The replay engine (SPEC §2–§9): plain Rust over a [`crate::dataset::Dataset`], no polars, no
//! terminal, no I/O. `replay` is an ordinary function that the CLI calls inline and the explorer's
//! worker calls in the background; it is deterministic for given settings and seed on any thread count,
//! and cancellable through [`replay::Control`].

pub mod anytime;
pub mod bootstrap;
pub mod bounds;
pub mod coverage;
pub mod crosscheck;
pub mod decision;
pub mod detail;
pub mod family;
pub mod kept_orders;
pub mod live;
pub mod metrics;
pub mod monitor;
pub mod orders;
pub mod pair;
pub mod record;
pub mod replay;
pub mod rules;
pub mod schedule;
pub mod sequence;
pub mod settings;
pub mod stats;
pub mod stratified;
pub mod streams;
pub mod tally;

pub use replay::{Control, Replay, ReplayError, ReplayOptions, replay};
pub use settings::{
    BootstrapMode, BudgetMeasure, Fraction, OrderKind, Policy, Preset, ReplaySettings, Rule,
    Threshold,
};
