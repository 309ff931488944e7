//! Early outcome prediction inside a task (SPEC §11, EarlyEval): step-level trajectories with their
//! outcomes, the features of every prefix, and (to come) the classifiers, the halting rule and its
//! protocols. Plain Rust over [`Trajectories`]; reading the tables is `data::trajectories`.

pub mod features;
pub mod metrics;
pub mod model;
pub mod trajectories;

pub use trajectories::{Step, Trajectories, Trajectory};
