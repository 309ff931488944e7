//! Scoring trajectories that are still running (issue 21): each (system, task, run) keeps a
//! [`PrefixCursor`], so a new step costs one feature update and one pass of both models, and the
//! halting rule of SPEC §11 is applied to every prefix as it arrives (the run is unfinished, so each
//! step so far is a prefix). A trajectory halts once, at the first prefix where a calibrated
//! probability reaches its threshold, and stays halted. Steps must arrive numbered 1, 2, … per
//! trajectory; a repeat or a gap is refused and that trajectory is scored no further.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;

use super::features::PrefixCursor;
use super::halting::{Fired, Thresholds, fires};
use super::saved::Predictor;
use super::trajectories::Step;

/// A trajectory's identity as the files name it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunKey {
    pub system: String,
    pub task: String,
    pub run: String,
}

impl std::fmt::Display for RunKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {}, run {})", self.system, self.task, self.run)
    }
}

/// Where a trajectory halted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HaltPoint {
    pub model: Fired,
    /// The prefix length where the probability reached the threshold.
    pub step: usize,
    pub probability: f64,
}

/// One running trajectory's state.
#[derive(Debug)]
pub struct RunState {
    pub key: RunKey,
    cursor: PrefixCursor,
    /// Both calibrated probabilities after the last step so far.
    pub last: (f64, f64),
    pub halted: Option<HaltPoint>,
    /// Why it is no longer scored (a repeated step).
    pub broken: Option<String>,
    /// Steps that arrived before their turn (step 6 written before step 5), scored once the steps
    /// before them are in: a finished file is scored in step order whatever its line order, and a
    /// followed one must end where it does.
    ahead: std::collections::BTreeMap<usize, Step>,
}

impl RunState {
    pub fn steps(&self) -> usize {
        self.cursor.steps()
    }

    /// Steps run after the halting point (what halting there would have saved so far).
    /// The first step missing before steps that arrived ahead of it, as a problem ("… jumps to
    /// step 7 (step 6 is missing)"): what a finished file with that gap is refused for.
    pub fn gap(&self) -> Option<String> {
        let first = self.first_ahead()?;
        Some(format!(
            "{} jumps to step {first} (step {} is missing); its later steps are not scored",
            self.key,
            self.steps() + 1
        ))
    }

    /// The first of the steps waiting for their turn.
    pub fn first_ahead(&self) -> Option<usize> {
        self.ahead.first_key_value().map(|(&number, _)| number)
    }

    pub fn steps_after_halt(&self) -> usize {
        self.halted.map_or(0, |h| self.steps() - h.step)
    }

    pub fn action(&self) -> &'static str {
        match self.halted.map(|h| h.model) {
            Some(Fired::Success) => "halt success",
            Some(Fired::Failure) => "halt failure",
            None => "continue",
        }
    }

    /// The row `halt` prints.
    pub fn row(&self) -> HaltRow {
        HaltRow {
            system: self.key.system.clone(),
            task: self.key.task.clone(),
            run: self.key.run.clone(),
            steps: self.steps(),
            p_success: self.last.0,
            p_failure: self.last.1,
            action: self.action(),
            halt_step: self.halted.map(|h| h.step),
            halt_probability: self.halted.map(|h| h.probability),
            steps_after_halt: self.steps_after_halt(),
        }
    }
}

/// One trajectory's state as `halt` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HaltRow {
    pub system: String,
    pub task: String,
    pub run: String,
    /// Steps so far.
    pub steps: usize,
    /// Both calibrated probabilities after the last step so far.
    pub p_success: f64,
    pub p_failure: f64,
    /// `halt success`, `halt failure` or `continue`.
    pub action: &'static str,
    /// The step where a probability first reached its threshold, and that probability.
    pub halt_step: Option<usize>,
    pub halt_probability: Option<f64>,
    /// Steps the trajectory ran after its halting step.
    pub steps_after_halt: usize,
}

/// What a new step changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The first step of a trajectory not seen before.
    New,
    /// It halted at this step.
    Halted,
    Nothing,
}

/// Every running trajectory, in the order each was first seen.
pub struct Scoreboard {
    predictor: Arc<Predictor>,
    pub thresholds: Thresholds,
    index: HashMap<RunKey, usize>,
    pub runs: Vec<RunState>,
}

impl Scoreboard {
    pub fn new(predictor: Arc<Predictor>, thresholds: Thresholds) -> Self {
        Scoreboard {
            predictor,
            thresholds,
            index: HashMap::new(),
            runs: Vec::new(),
        }
    }

    /// Takes out the trajectories `leave` picks (a followed file read again from its start) and
    /// returns them.
    /// The steps trajectory `key` has scored so far (0 for one not seen).
    pub fn steps_of(&self, key: &RunKey) -> usize {
        self.index.get(key).map_or(0, |&at| self.runs[at].steps())
    }

    pub fn take_where(&mut self, leave: impl Fn(&RunKey) -> bool) -> Vec<RunState> {
        let (gone, kept): (Vec<RunState>, Vec<RunState>) = std::mem::take(&mut self.runs)
            .into_iter()
            .partition(|run| leave(&run.key));
        self.runs = kept;
        self.index = self
            .runs
            .iter()
            .enumerate()
            .map(|(i, run)| (run.key.clone(), i))
            .collect();
        gone
    }

    /// Takes step `number` of trajectory `key` and returns what changed, and the trajectory's index
    /// in [`Scoreboard::runs`]. A step out of order is an error (the message names the trajectory
    /// and the steps); that trajectory takes no more steps.
    pub fn push(
        &mut self,
        key: RunKey,
        number: usize,
        step: Step,
    ) -> Result<(Change, usize), String> {
        let at = match self.index.get(&key) {
            Some(&at) => at,
            None => {
                let at = self.runs.len();
                self.index.insert(key.clone(), at);
                self.runs.push(RunState {
                    key,
                    cursor: self.predictor.models.featurizer.cursor(),
                    last: (f64::NAN, f64::NAN),
                    halted: None,
                    broken: None,
                    ahead: std::collections::BTreeMap::new(),
                });
                at
            }
        };
        let run = &mut self.runs[at];
        if run.broken.is_some() {
            return Ok((Change::Nothing, at));
        }
        let expected = run.steps() + 1;
        if number < expected || run.ahead.contains_key(&number) {
            let problem = format!(
                "{} repeats step {number} (it has {} steps)",
                run.key,
                run.steps().max(number)
            );
            run.broken = Some(problem.clone());
            return Err(format!("{problem}; its later steps are not scored"));
        }
        if number > expected {
            // Scored when the steps before it are in (see `ahead`); a run is new to its readers
            // once its first step is scored (announced at an early step, it showed no
            // probabilities, NaN, and was not announced again).
            run.ahead.insert(number, step);
            return Ok((Change::Nothing, at));
        }
        let mut change = if expected == 1 {
            Change::New
        } else {
            Change::Nothing
        };
        let mut next = Some(step);
        while let Some(step) = next {
            let number = run.steps() + 1;
            let models = &self.predictor.models;
            let vector = run.cursor.push(&models.featurizer, step);
            let (s, f) = models.score(&vector);
            run.last = (s, f);
            if run.halted.is_none()
                && let Some((model, probability)) = fires(s, f, self.thresholds)
            {
                run.halted = Some(HaltPoint {
                    model,
                    step: number,
                    probability,
                });
                change = Change::Halted;
            }
            next = run.ahead.remove(&(number + 1));
        }
        Ok((change, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::early::protocol::Protocol;
    use crate::early::saved::tests::{small_settings, synthetic};
    use crate::early::saved::{Predictor, ThresholdChoice};

    fn key(run: &str) -> RunKey {
        RunKey {
            system: "new".to_string(),
            task: "t".to_string(),
            run: run.to_string(),
        }
    }

    #[test]
    fn steps_out_of_order_wait_for_their_turn_and_a_halt_happens_once() {
        let data = synthetic();
        let (features, model) = small_settings();
        let predictor = Arc::new(
            Predictor::train(
                &data,
                Protocol::Loao,
                features,
                model,
                ThresholdChoice::Tau(0.9),
            )
            .expect("train"),
        );
        // Thresholds that every probability reaches: the first step halts.
        let mut board = Scoreboard::new(predictor.clone(), Thresholds::both(0.0));
        let step = data.trajectories[0].steps[0].clone();
        assert_eq!(
            board.push(key("a"), 1, step.clone()),
            Ok((Change::Halted, 0))
        );
        assert_eq!(
            board.push(key("a"), 2, step.clone()),
            Ok((Change::Nothing, 0))
        );
        assert_eq!(board.runs[0].steps_after_halt(), 1);
        assert_eq!(board.runs[0].halted.map(|h| h.step), Some(1));
        let repeat = board.push(key("a"), 2, step.clone()).unwrap_err();
        assert!(
            repeat.contains("(new, t, run a) repeats step 2"),
            "{repeat}"
        );
        // Once broken, a trajectory is scored no further.
        assert_eq!(
            board.push(key("a"), 3, step.clone()),
            Ok((Change::Nothing, 0))
        );
        assert_eq!(board.runs[0].steps(), 2);
        // A step before its turn waits for the steps before it (a file is scored in step order,
        // whatever its line order); one still waiting is a gap.
        let mut late = Scoreboard::new(predictor.clone(), Thresholds::both(f64::INFINITY));
        assert_eq!(
            late.push(key("b"), 2, step.clone()),
            Ok((Change::Nothing, 0))
        );
        assert_eq!(late.runs[0].steps(), 0);
        let gap = late.runs[0].gap().expect("a gap");
        assert!(gap.contains("jumps to step 2 (step 1 is missing)"), "{gap}");
        assert_eq!(
            late.push(key("b"), 3, step.clone()),
            Ok((Change::Nothing, 0))
        );
        // New to its readers once its first step is scored, with its probabilities.
        assert_eq!(late.push(key("b"), 1, step.clone()), Ok((Change::New, 0)));
        assert!(!late.runs[0].last.0.is_nan());
        assert_eq!(late.runs[0].steps(), 3);
        assert_eq!(late.runs[0].gap(), None);
        // The halt of a step scored late is the step's own.
        let mut halting = Scoreboard::new(predictor.clone(), Thresholds::both(0.0));
        assert_eq!(
            halting.push(key("d"), 2, step.clone()),
            Ok((Change::Nothing, 0))
        );
        assert_eq!(
            halting.push(key("d"), 1, step.clone()),
            Ok((Change::Halted, 0))
        );
        assert_eq!(halting.runs[0].halted.map(|h| h.step), Some(1));
        let twice = halting.push(key("e"), 3, step.clone());
        assert!(twice.is_ok());
        let repeat = halting.push(key("e"), 3, step.clone()).unwrap_err();
        assert!(repeat.contains("repeats step 3"), "{repeat}");
        // Thresholds no probability reaches: it continues.
        let mut never = Scoreboard::new(predictor, Thresholds::both(f64::INFINITY));
        assert_eq!(never.push(key("c"), 1, step), Ok((Change::New, 0)));
        assert_eq!(never.runs[0].action(), "continue");
        let gone = never.take_where(|k| k.run == "c");
        assert_eq!(gone.len(), 1);
        assert!(never.runs.is_empty());
    }
}
