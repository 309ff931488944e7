//! The replay engine (SPEC §2–§9): plain Rust over a [`crate::dataset::Dataset`], no polars, no
//! terminal, no I/O. `replay` is an ordinary function that the CLI calls inline and the explorer's
//! worker calls in the background; it is deterministic for given settings and seed on any thread count,
//! and cancellable through [`replay::Control`].
//!
//! Its parts, each a folder or file, bottom up: `settings` (every choice, named) and `streams` (the
//! seeded random streams); `rules/` (the decision rules and their statistics: bootstrap, bounds,
//! the anytime rules §9 and §9a, the coverage gate, cross-checks); `walk/` (walking task orders
//! with the rules: the replay, its monitors and families, decision records, the drill-down); and
//! `live` (the live service's decisions on a run as it goes). A module imports only from its own
//! part or the parts below it; `tests/all/structure.rs` checks that no import runs up or in a circle.

pub mod live;
pub mod rules;
pub mod settings;
pub mod streams;
pub mod walk;

// The paths of the flat engine these modules had before the folders, kept for the public API.
pub use rules::{
    anytime, bootstrap, bounds, coverage, crosscheck, decision, sequence, stats, stratified,
};
pub use walk::{
    detail, family, kept_orders, metrics, monitor, orders, pair, record, replay, schedule, tally,
};

pub use settings::{
    BootstrapMode, BudgetMeasure, Fraction, OrderKind, Policy, Preset, ReplaySettings, Rule,
    Threshold,
};
pub use walk::replay::{Control, Replay, ReplayError, ReplayOptions, replay};
