//! Early outcome prediction inside a task (SPEC §11, EarlyEval): step-level trajectories with their
//! outcomes, the features of every prefix, the calibrated success and failure models, the halting
//! rule and the protocols' folds. Plain Rust over [`Trajectories`]; reading the tables is
//! `data::trajectories`. Not yet here: the τ sweep's metrics, `pareval early`, early outcomes in the
//! replay and the explorer view (issue 10).

pub mod evaluate;
pub mod features;
pub mod halting;
pub mod metrics;
pub mod model;
pub mod protocol;
pub mod trajectories;

pub use trajectories::{Step, Trajectories, Trajectory};
