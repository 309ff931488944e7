//! All integration tests build into this one binary (linking polars once instead of once per file).

mod bad_input;
mod by_hand;
mod cli;
mod common;
mod concurrency;
mod e2e;
mod early_replay;
mod engine;
mod halt;
mod import;
mod import_formats;
mod import_hle;
mod import_layouts;
mod import_opencompass;
mod import_wildbench;
mod inspect_integration;
mod live_run;
mod loading;
mod monitoring;
mod plan;
mod real_data;
mod replay_cli;
mod stratified;
mod structure;
mod trajectories;
mod tui;
