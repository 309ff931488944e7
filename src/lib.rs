//! pareval: replay completed agent-benchmark records as if each evaluation had stopped early, decide
//! every directed pair of systems under a policy fixed in advance, and explore the results.
//!
//! Layers (dependencies point one way): `data` (polars, loading) → `dataset` (plain matrices) →
//! `report` (text and JSON shared by the CLI and, later, the explorer) → `cli`.

pub mod cli;
pub mod data;
pub mod dataset;
pub mod engine;
pub mod proxy;
pub mod report;
pub mod simulate;
pub mod tui;
