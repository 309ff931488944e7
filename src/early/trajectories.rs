//! The plain hand-off of step-level records: systems, tasks and trajectories (system, task, run) with
//! their steps in order and their outcome. Built and checked by `data::trajectories`; no polars here.

use crate::dataset::InputFile;

/// One agent step as the log tells it; every field but the order is optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Step {
    /// The command, tool call or game move (cut to 200 characters in the public tables).
    pub action: Option<String>,
    pub role: Option<String>,
    /// Length of the environment's answer to the step.
    pub observation_chars: Option<f64>,
    pub is_error: Option<bool>,
    pub tokens_in: Option<f64>,
    pub tokens_out: Option<f64>,
    /// The agent's own words for the step.
    pub text: Option<String>,
    pub cost_usd: Option<f64>,
    pub seconds: Option<f64>,
}

/// One trajectory: steps 1 … T in order and the final outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory {
    /// Indices into [`Trajectories::systems`] and [`Trajectories::tasks`].
    pub system: u32,
    pub task: u32,
    /// The run as written in the files (an index or a label).
    pub run: String,
    /// Outcome in [0, 1]; ≥ 0.5 is success.
    pub outcome: f64,
    pub steps: Vec<Step>,
}

impl Trajectory {
    pub fn success(&self) -> bool {
        self.outcome >= 0.5
    }

    /// T, the number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// A system's attributes from a systems table, for the leave-one-scaffold-out and no-same-model
/// protocols.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SystemInfo {
    pub name: String,
    pub scaffold: Option<String>,
    pub model: Option<String>,
}

/// Every trajectory of a steps table and an outcomes table, checked against each other.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectories {
    pub systems: Vec<SystemInfo>,
    pub tasks: Vec<String>,
    /// By system, task and run (a canonical order: the files' row order does not matter).
    pub trajectories: Vec<Trajectory>,
    /// Which optional step fields any row carries (the feature families use only what is there).
    pub fields: StepFields,
    pub inputs: Vec<InputFile>,
}

/// The optional step columns present with at least one value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StepFields {
    pub action: bool,
    pub observation_chars: bool,
    pub is_error: bool,
    /// Either token column (what the token figures read).
    pub tokens: bool,
    /// Each token column: the features read them apart, so a model needs each it was trained on
    /// (absent from model files saved before they were kept, which `tokens` then stands for).
    #[serde(default)]
    pub tokens_in: bool,
    #[serde(default)]
    pub tokens_out: bool,
    pub text: bool,
    pub cost: bool,
    pub seconds: bool,
}

impl Trajectories {
    pub fn steps(&self) -> usize {
        self.trajectories.iter().map(Trajectory::len).sum()
    }

    pub fn successes(&self) -> usize {
        self.trajectories.iter().filter(|t| t.success()).count()
    }
}
