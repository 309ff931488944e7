//! Evaluation protocols of SPEC §11: which trajectories train and which are tested in each fold.
//! Leave one system out (default), leave one scaffold out, no-same-model (the held-out system's whole
//! model family is held out of training) and task-grouped 5-fold for a single system. A trajectory is
//! never on both sides of a fold.

use serde::{Deserialize, Serialize};

use super::trajectories::Trajectories;
use crate::engine::settings::{SettingError, parse_name};
use crate::engine::streams::StreamKey;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    Loao,
    Loso,
    NoSameModel,
    TaskFolds,
}

impl Protocol {
    pub const ALL: [Protocol; 4] = [
        Protocol::Loao,
        Protocol::Loso,
        Protocol::NoSameModel,
        Protocol::TaskFolds,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::Loao => "loao",
            Protocol::Loso => "loso",
            Protocol::NoSameModel => "no-same-model",
            Protocol::TaskFolds => "task-folds",
        }
    }

    pub fn parse(text: &str) -> Result<Self, SettingError> {
        parse_name(text, "protocol", &Protocol::ALL, Protocol::name)
    }

    /// The default: leave one system out, or task folds when there is one system.
    pub fn default_for(data: &Trajectories) -> Self {
        if data.systems.len() > 1 {
            Protocol::Loao
        } else {
            Protocol::TaskFolds
        }
    }
}

/// One fold: trajectory indices to train on and to test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    pub name: String,
    pub train: Vec<usize>,
    pub test: Vec<usize>,
}

/// Why a protocol cannot split these trajectories.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error(
        "protocol '{protocol}' needs a '{column}' for every system (a systems table); {missing} has none"
    )]
    MissingAttribute {
        protocol: &'static str,
        column: &'static str,
        missing: String,
    },
    #[error("protocol '{0}' needs at least two systems; use task-folds for one")]
    OneSystem(&'static str),
    /// A fold whose held-out part is everything the protocol allows to train on.
    #[error(
        "protocol '{protocol}' leaves nothing to train on when it holds out {fold}: every other system has the same {column}; use loao"
    )]
    NoTraining {
        protocol: &'static str,
        fold: String,
        column: &'static str,
    },
}

/// Task-grouped folds for a single system.
pub const TASK_FOLDS: u64 = 5;

/// The folds of a protocol, in a fixed order (held-out system, scaffold or fold number).
pub fn folds(
    data: &Trajectories,
    protocol: Protocol,
    seed: u64,
) -> Result<Vec<Fold>, ProtocolError> {
    let all = 0..data.trajectories.len();
    let by = |test: &dyn Fn(usize) -> bool, train: &dyn Fn(usize) -> bool, name: String| Fold {
        name,
        test: all.clone().filter(|&i| test(i)).collect(),
        train: all.clone().filter(|&i| train(i) && !test(i)).collect(),
    };
    let system_of = |i: usize| data.trajectories[i].system as usize;
    let attribute =
        |column: &'static str, pick: fn(&super::trajectories::SystemInfo) -> &Option<String>| {
            data.systems
                .iter()
                .map(|s| {
                    pick(s)
                        .clone()
                        .ok_or_else(|| ProtocolError::MissingAttribute {
                            protocol: protocol.name(),
                            column,
                            missing: s.name.clone(),
                        })
                })
                .collect::<Result<Vec<String>, _>>()
        };
    let folds: Vec<Fold> = match protocol {
        Protocol::TaskFolds => Ok((0..TASK_FOLDS)
            .map(|f| {
                let fold_of = |i: usize| {
                    let task = &data.tasks[data.trajectories[i].task as usize];
                    StreamKey::new(seed, "task-folds")
                        .str(task)
                        .rng()
                        .next_u64()
                        % TASK_FOLDS
                };
                by(&|i| fold_of(i) == f, &|_| true, format!("fold {}", f + 1))
            })
            .collect()),
        _ if data.systems.len() < 2 => Err(ProtocolError::OneSystem(protocol.name())),
        Protocol::Loao => Ok((0..data.systems.len())
            .map(|s| {
                by(
                    &|i| system_of(i) == s,
                    &|_| true,
                    data.systems[s].name.clone(),
                )
            })
            .collect()),
        Protocol::Loso => {
            let scaffolds = attribute("scaffold", |s| &s.scaffold)?;
            let mut names = scaffolds.clone();
            names.sort();
            names.dedup();
            Ok(names
                .iter()
                .map(|name| {
                    by(
                        &|i| &scaffolds[system_of(i)] == name,
                        &|_| true,
                        name.clone(),
                    )
                })
                .collect())
        }
        Protocol::NoSameModel => {
            let models = attribute("model", |s| &s.model)?;
            Ok((0..data.systems.len())
                .map(|s| {
                    by(
                        &|i| system_of(i) == s,
                        &|i| models[system_of(i)] != models[s],
                        data.systems[s].name.clone(),
                    )
                })
                .collect())
        }
    }?;
    let column = match protocol {
        Protocol::Loso => "scaffold",
        Protocol::NoSameModel => "model",
        _ => return Ok(folds),
    };
    match folds
        .iter()
        .find(|f| f.train.is_empty() && !f.test.is_empty())
    {
        Some(fold) => Err(ProtocolError::NoTraining {
            protocol: protocol.name(),
            fold: format!("'{}'", fold.name),
            column,
        }),
        None => Ok(folds),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::early::trajectories::{StepFields, SystemInfo, Trajectory};

    fn data(systems: &[(&str, &str, &str)], per_system: usize) -> Trajectories {
        let trajectories = (0..systems.len() * per_system)
            .map(|i| Trajectory {
                system: (i / per_system) as u32,
                task: (i % per_system) as u32,
                run: "0".to_string(),
                outcome: 0.0,
                steps: Vec::new(),
            })
            .collect();
        Trajectories {
            systems: systems
                .iter()
                .map(|(n, s, m)| SystemInfo {
                    name: n.to_string(),
                    scaffold: Some(s.to_string()),
                    model: Some(m.to_string()),
                })
                .collect(),
            tasks: (0..per_system).map(|t| format!("t{t}")).collect(),
            trajectories,
            fields: StepFields::default(),
            inputs: Vec::new(),
        }
    }

    #[test]
    fn folds_never_train_on_what_they_test() {
        let d = data(
            &[
                ("a", "react", "gpt"),
                ("b", "react", "claude"),
                ("c", "swe", "gpt"),
            ],
            4,
        );
        for protocol in [
            Protocol::Loao,
            Protocol::Loso,
            Protocol::NoSameModel,
            Protocol::TaskFolds,
        ] {
            let folds = folds(&d, protocol, 1).expect("folds");
            let mut tested: Vec<usize> = folds.iter().flat_map(|f| f.test.clone()).collect();
            tested.sort_unstable();
            assert_eq!(
                tested,
                (0..12).collect::<Vec<_>>(),
                "{protocol:?}: every trajectory tested once"
            );
            for fold in &folds {
                assert!(fold.train.iter().all(|i| !fold.test.contains(i)));
            }
        }
        let loso = folds(&d, Protocol::Loso, 1).expect("loso");
        assert_eq!(loso.len(), 2);
        // Holding out system a also holds out c, which shares its model.
        let no_same = folds(&d, Protocol::NoSameModel, 1).expect("no-same-model");
        assert_eq!(no_same[0].train, vec![4, 5, 6, 7]);
        // Task folds keep every run of a task on one side.
        for fold in folds(&d, Protocol::TaskFolds, 1).expect("task folds") {
            for &i in &fold.test {
                let task = d.trajectories[i].task;
                assert!(fold.train.iter().all(|&j| d.trajectories[j].task != task));
            }
        }
    }

    #[test]
    fn a_fold_with_nothing_to_train_on_is_refused_naming_why() {
        // Both systems on one model (or one scaffold): holding one out leaves no training side.
        // It read "no training trajectory has 10 steps or more (the longest has 0): lower
        // --min-steps", which no --min-steps could fix.
        let same_model = data(&[("a", "x", "m"), ("b", "y", "m")], 3);
        assert_eq!(
            folds(&same_model, Protocol::NoSameModel, 0)
                .unwrap_err()
                .to_string(),
            "protocol 'no-same-model' leaves nothing to train on when it holds out 'a': every other system has the same model; use loao"
        );
        let same_scaffold = data(&[("a", "x", "m"), ("b", "x", "n")], 3);
        assert!(
            folds(&same_scaffold, Protocol::Loso, 0)
                .unwrap_err()
                .to_string()
                .contains("holds out 'x': every other system has the same scaffold")
        );
        assert!(folds(&same_model, Protocol::Loso, 0).is_ok());
    }

    #[test]
    fn missing_attributes_and_single_systems_are_refused() {
        let mut d = data(&[("a", "x", "m"), ("b", "y", "n")], 2);
        d.systems[1].scaffold = None;
        assert!(
            folds(&d, Protocol::Loso, 0)
                .unwrap_err()
                .to_string()
                .contains("needs a 'scaffold' for every system")
        );
        let one = data(&[("a", "x", "m")], 3);
        assert_eq!(Protocol::default_for(&one), Protocol::TaskFolds);
        assert!(folds(&one, Protocol::Loao, 0).is_err());
    }
}
