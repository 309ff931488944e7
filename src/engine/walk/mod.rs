//! The walk along task orders (SPEC §2–§7): drawing each pair's orders (`orders`, `schedule`,
//! `kept_orders`), what is fixed for a replay and the state of an observed prefix (`prepared`, with
//! the coverage gate of its task-by-task walk in `gate`), the replay that tallies every order at every
//! budget (`replay`, `tally`, `metrics`), the sequential monitors and families that read the same walks
//! at other looks (`monitor`, `family`), the decision records (`record`) and the drill-down into one
//! pair (`detail`). It decides with `rules` and never the other way round.

pub mod detail;
pub mod family;
pub mod gate;
pub mod kept_orders;
pub mod metrics;
pub mod monitor;
pub mod orders;
pub mod pair;
pub mod prepared;
pub mod record;
pub mod replay;
pub mod schedule;
pub mod tally;
