//! Early outcome prediction inside a task (SPEC §11, EarlyEval): step-level trajectories with their
//! outcomes, the features of every prefix, the calibrated success and failure models, the halting
//! rule, the protocols' folds and the τ sweep's metrics. Plain Rust over [`Trajectories`]; reading the
//! tables is `data::trajectories`, early outcomes in the replay are `data::halts`, the command's
//! report is `report::early` and the explorer's view is `tui::early`.

pub mod evaluate;
pub mod features;
pub mod halting;
pub mod metrics;
pub mod model;
pub mod protocol;
pub mod running;
pub mod saved;
pub mod target;
pub mod trajectories;

pub use trajectories::{Step, Trajectories, Trajectory};
