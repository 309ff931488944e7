//! pareval: replay completed agent-benchmark records as if each evaluation had stopped early, decide
//! every directed pair of systems under a policy fixed in advance, and explore the results.
//!
//! Modules, from the bottom up (each uses only those above it in this list):
//! - `format`: how numbers and CSV fields are written, everywhere.
//! - `dataset`: the plain hand-off (systems × tasks matrices, groups, attributes); no polars.
//! - `engine` (the replay, rules, orders, decision records) and `proxy` (proxy benchmarks): pure
//!   computation over a `Dataset`; `early`: step-level trajectories and the features of their prefixes
//!   (SPEC §11); `simulate`: the synthetic-record model, as plain vectors.
//! - `data`: every file read or written, the only module that uses polars (records in, simulated
//!   records and decision records out).
//! - `report`: the structs behind every table, rendered as text, CSV, JSON and Markdown, shared by the
//!   CLI and the explorer.
//! - `terminal`: the terminal's input thread under the explorer and `watch`'s screen.
//! - `tui` (the explorer) and `cli` (commands, exit codes) on top.

pub mod cli;
pub mod data;
pub mod dataset;
pub mod early;
pub mod engine;
pub mod format;
pub mod plan;
pub mod proxy;
pub mod report;
pub mod signals;
pub mod simulate;
pub mod terminal;
pub mod tui;
pub mod watch;
