//! The saved early predictor (issue 21): one versioned JSON file holding everything scoring needs —
//! the fitted featurizer (settings, action kinds, TF-IDF vocabularies, idf weights, SVD bases), both
//! gradient-boosted models in forust-ml's own serde form with their Platt calibrators, the halting
//! thresholds, the inner split's operating curves (so `halt --target-precision` can choose thresholds
//! later), and where the training data came from (file hashes and counts). JSON floats round-trip
//! exactly (serde_json's `float_roundtrip`, which forust-ml turns on), so a loaded model scores bit
//! for bit as the one that was trained (tested).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::evaluate::EarlyError;
use super::features::{FeatureSettings, Featurizer, FeaturizerFile};
use super::halting::Thresholds;
use super::model::{Calibrated, ModelSettings, OutcomeModels};
use super::protocol::Protocol;
use super::target::{Grouping, InnerCurves, inner_curves};
use super::trajectories::{StepFields, Trajectories};
use crate::data::LoadError;

/// What the file says it is.
pub const FORMAT: &str = "pareval-early-model";
/// The layout this pareval writes and reads.
pub const VERSION: u32 = 1;

/// A training input file, for provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingInput {
    pub path: String,
    pub rows: usize,
    pub sha256: String,
}

/// What the model was trained on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Training {
    pub inputs: Vec<TrainingInput>,
    /// SHA-256 over the inputs' hashes in order: one value that names the training data.
    pub data_sha256: String,
    pub trajectories: usize,
    /// Trajectories long enough to train on (≥ `min_steps`).
    pub trained_on: usize,
    pub steps: usize,
    pub successes: usize,
    pub systems: Vec<String>,
    /// The step columns that carried values: a steps file to score must have each of them.
    pub fields: StepFields,
}

/// How the thresholds were set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedThresholds {
    /// None: that model never halts (it did not reach the target precision).
    pub success: Option<f64>,
    pub failure: Option<f64>,
    /// The target precision that chose them, or None for a fixed τ.
    pub target_precision: Option<f64>,
}

impl SavedThresholds {
    pub fn thresholds(&self) -> Thresholds {
        Thresholds {
            success: self.success.unwrap_or(f64::INFINITY),
            failure: self.failure.unwrap_or(f64::INFINITY),
        }
    }

    fn of(thresholds: Thresholds, target_precision: Option<f64>) -> Self {
        let finite = |x: f64| x.is_finite().then_some(x);
        SavedThresholds {
            success: finite(thresholds.success),
            failure: finite(thresholds.failure),
            target_precision,
        }
    }
}

/// Everything about a saved model but its fitted parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub pareval: String,
    pub thresholds: SavedThresholds,
    pub protocol: Protocol,
    pub inner: InnerCurves,
    pub model: ModelSettings,
    pub training: Training,
    /// Feature names in vector order (checked against the featurizer on load).
    pub features: Vec<String>,
}

/// A predictor ready to score.
pub struct Predictor {
    pub models: OutcomeModels,
    pub info: ModelInfo,
}

/// How the saved thresholds are chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ThresholdChoice {
    Tau(f64),
    TargetPrecision(f64),
}

#[derive(Serialize)]
struct FileOut<'a> {
    format: &'static str,
    version: u32,
    /// SHA-256 of the fitted parts (see [`fitted_sha256`]): a file whose trees, vocabularies or
    /// calibrators were edited or lost still parses, and would score without a word.
    fitted_sha256: String,
    info: &'a ModelInfo,
    featurizer: FeaturizerFile,
    success: &'a Calibrated,
    failure: &'a Calibrated,
}

#[derive(Deserialize)]
struct FileIn {
    /// Absent in files saved before pareval wrote it: those are read unchecked.
    fitted_sha256: Option<String>,
    info: ModelInfo,
    featurizer: FeaturizerFile,
    success: Calibrated,
    failure: Calibrated,
}

/// SHA-256 over the fitted parts (featurizer, both calibrated models) in a canonical JSON text: read
/// into JSON values, whose objects keep their keys sorted, so the hash depends on what the parts are
/// and not on how a file spaced or ordered them (a file pretty-printed by another tool still checks).
fn fitted_sha256(
    featurizer: &FeaturizerFile,
    success: &Calibrated,
    failure: &Calibrated,
) -> Result<String, String> {
    let value = serde_json::to_value((featurizer, success, failure)).map_err(|e| e.to_string())?;
    Ok(crate::data::read::sha256_hex(value.to_string().as_bytes()))
}

/// The first two fields, read before the rest so that a file of another kind or version is named as
/// such and not as a parse error deep inside.
#[derive(Deserialize)]
struct Header {
    format: Option<String>,
    version: Option<u32>,
}

impl Predictor {
    /// Trains on every trajectory: the featurizer and both models on all of them, and the inner split
    /// (grouped as `protocol` groups) for the operating curves.
    pub fn train(
        data: &Trajectories,
        protocol: Protocol,
        features: FeatureSettings,
        model: ModelSettings,
        choice: ThresholdChoice,
    ) -> Result<Self, EarlyError> {
        let all: Vec<_> = data.trajectories.iter().collect();
        let featurizer = Featurizer::fit(&all, features);
        let models =
            OutcomeModels::fit(featurizer, &all, model).map_err(|error| EarlyError::Model {
                fold: "all trajectories".to_string(),
                error,
            })?;
        let indices: Vec<usize> = (0..data.trajectories.len()).collect();
        let inner = inner_curves(data, &indices, Grouping::of(protocol), features, model).map_err(
            |error| EarlyError::Inner {
                fold: "all trajectories".to_string(),
                error,
            },
        )?;
        let thresholds = match choice {
            ThresholdChoice::Tau(tau) => SavedThresholds::of(Thresholds::both(tau), None),
            ThresholdChoice::TargetPrecision(p) => {
                SavedThresholds::of(inner.thresholds(p), Some(p))
            }
        };
        let hashes: String = data.inputs.iter().map(|i| i.sha256.as_str()).collect();
        let training = Training {
            inputs: data
                .inputs
                .iter()
                .map(|i| TrainingInput {
                    path: i.path.clone(),
                    rows: i.rows,
                    sha256: i.sha256.clone(),
                })
                .collect(),
            data_sha256: crate::data::read::sha256_hex(hashes.as_bytes()),
            trajectories: data.trajectories.len(),
            trained_on: data
                .trajectories
                .iter()
                .filter(|t| t.len() >= model.min_steps.max(2))
                .count(),
            steps: data.steps(),
            successes: data.successes(),
            systems: data.systems.iter().map(|s| s.name.clone()).collect(),
            fields: data.fields,
        };
        let info = ModelInfo {
            pareval: env!("CARGO_PKG_VERSION").to_string(),
            thresholds,
            protocol,
            inner,
            model,
            training,
            features: models.featurizer.names(),
        };
        Ok(Predictor { models, info })
    }

    /// The file's text.
    pub fn to_json(&self) -> Result<String, String> {
        let featurizer = self.models.featurizer.to_file();
        let fitted = fitted_sha256(&featurizer, &self.models.success, &self.models.failure)?;
        serde_json::to_string(&FileOut {
            format: FORMAT,
            version: VERSION,
            fitted_sha256: fitted,
            info: &self.info,
            featurizer,
            success: &self.models.success,
            failure: &self.models.failure,
        })
        .map_err(|e| e.to_string())
    }

    pub fn load(path: &Path) -> Result<Self, LoadError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| LoadError::new(&name, format!("cannot read the model: {e}")))?;
        Self::from_json(&text).map_err(|message| LoadError::new(&name, message))
    }

    /// Reads a model file's text, saying what is wrong with one that is not a model this pareval
    /// reads.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let not_a_model =
            "not a pareval early model (`pareval early … --save-model FILE` writes them)";
        if text.trim().is_empty() {
            return Err(format!("the file is empty: {not_a_model}"));
        }
        // A file cut in the middle of a number ("0." of "0.25") reads as an invalid number at its
        // very end, not as an end of input: cut short all the same (a test's cut landed there
        // whenever the temporary folder's name made the file that long).
        let at_the_end = |e: &serde_json::Error| {
            let last = text.trim_end().rsplit('\n').next().unwrap_or("");
            e.line() == text.trim_end().lines().count().max(1) && e.column() >= last.chars().count()
        };
        let header: Header = serde_json::from_str(text).map_err(|e| {
            if e.is_eof() || at_the_end(&e) {
                format!(
                    "the model file ends early at line {}, column {} (cut short while it was written or copied?)",
                    e.line(),
                    e.column()
                )
            } else {
                format!("{not_a_model}: {e}")
            }
        })?;
        match header.format.as_deref() {
            Some(FORMAT) => {}
            Some(other) => return Err(format!("its format is '{other}': {not_a_model}")),
            None => return Err(format!("it has no 'format' field: {not_a_model}")),
        }
        match header.version {
            Some(VERSION) => {}
            Some(other) => {
                return Err(format!(
                    "model file version {other}; this pareval ({}) reads version {VERSION}: train it again with --save-model",
                    env!("CARGO_PKG_VERSION")
                ));
            }
            None => return Err("the model file has no 'version' field".to_string()),
        }
        let file: FileIn =
            serde_json::from_str(text).map_err(|e| format!("the model file is damaged: {e}"))?;
        if let Some(saved) = &file.fitted_sha256 {
            let now = fitted_sha256(&file.featurizer, &file.success, &file.failure)?;
            if &now != saved {
                return Err(format!(
                    "the model file is damaged: its fitted parts (featurizer, trees, calibrators) \
                     hash to {now}, not to the fitted_sha256 {saved} it was saved with (edited or \
                     cut after it was written?): train it again with --save-model"
                ));
            }
        }
        let featurizer = Featurizer::from_file(file.featurizer)
            .map_err(|e| format!("the model file is damaged: {e}"))?;
        if featurizer.names() != file.info.features {
            return Err(
                "the model file is damaged: its feature names do not match its featurizer"
                    .to_string(),
            );
        }
        let width = featurizer.names().len();
        for (name, model) in [("success", &file.success), ("failure", &file.failure)] {
            model
                .check_trees(width)
                .map_err(|e| format!("the model file is damaged: the {name} model's {e}"))?;
        }
        // `early` saves thresholds in (0.5, 1], as --tau takes them: another one (an edited file)
        // would halt every trajectory at its first step, or none.
        let saved = &file.info.thresholds;
        for (name, tau) in [("success", saved.success), ("failure", saved.failure)] {
            if let Some(tau) = tau
                && !crate::early::halting::is_threshold(tau)
            {
                return Err(format!(
                    "the model file is damaged: its {name} threshold {tau} is not in (0.5, 1], as early --tau takes it"
                ));
            }
        }
        Ok(Predictor {
            models: OutcomeModels {
                featurizer,
                success: file.success,
                failure: file.failure,
            },
            info: file.info,
        })
    }

    /// A steps file must carry every step column the model learned from: a missing one would be
    /// read as "no value" at every step and bend the probabilities without a word.
    /// Only the columns the model's feature families read count: a model without the textual and
    /// milestone families never reads `text` (it refused a file without one all the same).
    pub fn check_columns(&self, present: StepFields, file: &str) -> Result<(), String> {
        let trained = self.info.training.fields;
        let families = self.models.featurizer.settings;
        // The error flags, observation sizes and tokens feed the behavioral family alone; the text
        // feeds the textual blocks and the milestones; actions feed every family.
        let behavioral = families.behavioral;
        let text_read = families.textual || families.milestones;
        let missing: Vec<(&str, &str)> = [
            (trained.action && !present.action, "action", "action"),
            (
                behavioral && trained.observation_chars && !present.observation_chars,
                "observation_chars",
                "observation_chars",
            ),
            (
                behavioral && trained.is_error && !present.is_error,
                "is_error",
                "is_error",
            ),
            // A model saved before the two were kept apart needs either.
            (
                behavioral
                    && trained.tokens
                    && !(trained.tokens_in || trained.tokens_out)
                    && !present.tokens,
                "tokens_in/tokens_out",
                "tokens_in",
            ),
            (
                behavioral && trained.tokens_in && !present.tokens_in,
                "tokens_in",
                "tokens_in",
            ),
            (
                behavioral && trained.tokens_out && !present.tokens_out,
                "tokens_out",
                "tokens_out",
            ),
            (text_read && trained.text && !present.text, "text", "text"),
        ]
        .into_iter()
        .filter_map(|(missing, name, column)| missing.then_some((name, column)))
        .collect();
        let Some(&(_, first)) = missing.first() else {
            return Ok(());
        };
        let names: Vec<&str> = missing.iter().map(|m| m.0).collect();
        Err(format!(
            "{file}: the model was trained on steps with {}, which this file lacks (rename a column with --col {first}=NAME)",
            names.join(", ")
        ))
    }

    /// The thresholds to halt at: τ for both models, those of a target precision on the saved inner
    /// split, or the saved ones.
    pub fn thresholds(&self, tau: Option<f64>, target_precision: Option<f64>) -> Thresholds {
        match (tau, target_precision) {
            (Some(tau), _) => Thresholds::both(tau),
            (None, Some(p)) => self.info.inner.thresholds(p),
            (None, None) => self.info.thresholds.thresholds(),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::early::running::{Change, RunKey, Scoreboard};
    use crate::early::trajectories::{Step, SystemInfo, Trajectory};
    use crate::engine::streams::StreamKey;

    /// Three systems × 12 tasks whose successes take more "test" steps and fewer errors.
    pub(crate) fn synthetic() -> Trajectories {
        let mut trajectories = Vec::new();
        for system in 0..3u32 {
            for task in 0..12u32 {
                let mut rng = StreamKey::new(7, "synthetic")
                    .u64(u64::from(system * 100 + task))
                    .rng();
                let success = (rng.next_u64() % 4) < 1 + u64::from(system);
                let steps = 4 + (rng.next_u64() % 6) as usize;
                let steps = (0..steps)
                    .map(|k| {
                        let draw = rng.next_u64() % 10;
                        Step {
                            action: Some(
                                if success && draw < 6 {
                                    "pytest -q"
                                } else {
                                    "ls -la"
                                }
                                .to_string(),
                            ),
                            observation_chars: Some((draw * 100 + k as u64) as f64),
                            is_error: Some(!success && draw < 7),
                            text: Some(format!(
                                "step {k} looks {}",
                                if success { "fine" } else { "bad" }
                            )),
                            ..Step::default()
                        }
                    })
                    .collect();
                trajectories.push(Trajectory {
                    system,
                    task,
                    run: "0".to_string(),
                    outcome: f64::from(u8::from(success)),
                    steps,
                });
            }
        }
        Trajectories {
            systems: (0..3)
                .map(|s| SystemInfo {
                    name: format!("sys{s}"),
                    ..SystemInfo::default()
                })
                .collect(),
            tasks: (0..12).map(|t| format!("task{t}")).collect(),
            trajectories,
            fields: StepFields {
                action: true,
                observation_chars: true,
                is_error: true,
                text: true,
                ..StepFields::default()
            },
            inputs: Vec::new(),
        }
    }

    pub(crate) fn small_settings() -> (FeatureSettings, ModelSettings) {
        (
            FeatureSettings {
                svd_dims: 3,
                ..FeatureSettings::default()
            },
            ModelSettings {
                iterations: 8,
                max_depth: 3,
                min_steps: 2,
                ..ModelSettings::default()
            },
        )
    }

    fn trained(choice: ThresholdChoice) -> (Trajectories, Predictor) {
        let data = synthetic();
        let (features, model) = small_settings();
        let predictor =
            Predictor::train(&data, Protocol::Loao, features, model, choice).expect("train");
        (data, predictor)
    }

    /// A file without its hash (as saved before the hash was kept) is read unchecked: a tree that
    /// splits on a feature past the featurizer's, or points back to its own node, ended the process
    /// inside forust (index out of bounds, exit 101) or would loop; it is refused as damaged.
    #[test]
    fn a_damaged_tree_is_refused_rather_than_walked() {
        let (_, trained) = trained(ThresholdChoice::Tau(0.9));
        let text = trained.to_json().expect("json");
        let damaged = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut value: serde_json::Value = serde_json::from_str(&text).expect("value");
            value
                .as_object_mut()
                .expect("object")
                .remove("fitted_sha256");
            edit(&mut value["success"]["booster"]["trees"][0]["nodes"][0]);
            Predictor::from_json(&value.to_string()).err()
        };
        assert_eq!(
            damaged(&|_| {}),
            None,
            "an unedited file without its hash loads"
        );
        let far = damaged(&|node| node["split_feature"] = 99_999.into()).expect("refused");
        assert!(
            far.starts_with("the model file is damaged: the success model's tree 0, node 0 splits on feature 99999 of "),
            "{far}"
        );
        let looping = damaged(&|node| node["left_child"] = 0.into()).expect("refused");
        assert!(looping.contains("node 0 has child 0"), "{looping}");
    }

    #[test]
    fn a_saved_model_scores_bit_for_bit_as_the_trained_one() {
        let (data, trained) = trained(ThresholdChoice::Tau(0.9));
        let text = trained.to_json().expect("json");
        let loaded = Predictor::from_json(&text).expect("load");
        assert_eq!(loaded.info, trained.info);
        assert!(loaded.check_columns(data.fields, "steps.csv").is_ok());
        let without_text = StepFields {
            text: false,
            ..data.fields
        };
        assert_eq!(
            loaded.check_columns(without_text, "steps.csv").unwrap_err(),
            "steps.csv: the model was trained on steps with text, which this file lacks (rename a column with --col text=NAME)"
        );
        // Each token column the model read is needed: without `tokens_out` its features would
        // read 0 for every step and the probabilities move without a word.
        let tokens = StepFields {
            tokens: true,
            tokens_in: true,
            tokens_out: true,
            ..data.fields
        };
        let mut with_tokens = Predictor::from_json(&text).expect("load");
        with_tokens.info.training.fields = tokens;
        assert!(with_tokens.check_columns(tokens, "steps.csv").is_ok());
        let without_out = StepFields {
            tokens_out: false,
            ..tokens
        };
        assert_eq!(
            with_tokens
                .check_columns(without_out, "steps.csv")
                .unwrap_err(),
            "steps.csv: the model was trained on steps with tokens_out, which this file lacks (rename a column with --col tokens_out=NAME)"
        );
        // A file saved before the columns were kept apart needs either.
        with_tokens.info.training.fields = StepFields {
            tokens_in: false,
            tokens_out: false,
            ..tokens
        };
        assert!(with_tokens.check_columns(without_out, "steps.csv").is_ok());
        assert_eq!(
            loaded.to_json().expect("again"),
            text,
            "the file is a fixed point"
        );
        let width = trained.models.featurizer.names().len();
        let thresholds = loaded.thresholds(None, None);
        let mut board = Scoreboard::new(std::sync::Arc::new(loaded), thresholds);
        for t in &data.trajectories {
            // In process, all prefixes at once (as `pareval early` scores a fold's test trajectories).
            let rows: Vec<f64> = trained.models.featurizer.prefixes(&t.steps).concat();
            let success = trained.models.success.probabilities(&rows, width);
            let failure = trained.models.failure.probabilities(&rows, width);
            assert!(success.iter().chain(&failure).all(|p| *p > 0.0 && *p < 1.0));
            // Loaded, one step at a time as `halt` scores a running trajectory.
            let key = RunKey {
                system: data.systems[t.system as usize].name.clone(),
                task: data.tasks[t.task as usize].clone(),
                run: t.run.clone(),
            };
            for (k, step) in t.steps[..t.len() - 1].iter().enumerate() {
                let (change, at) = board
                    .push(key.clone(), k + 1, step.clone())
                    .expect("in order");
                assert!(k > 0 || change == Change::New);
                let last = board.runs[at].last;
                assert_eq!(
                    last.0.to_bits(),
                    success[k].to_bits(),
                    "{key} step {}",
                    k + 1
                );
                assert_eq!(
                    last.1.to_bits(),
                    failure[k].to_bits(),
                    "{key} step {}",
                    k + 1
                );
            }
        }
    }

    #[test]
    fn files_that_are_not_models_are_named_as_such() {
        let (_, trained) = trained(ThresholdChoice::Tau(0.9));
        let text = trained.to_json().expect("json");
        let error = |text: &str| Predictor::from_json(text).err().expect("refused");
        assert!(
            error(&text[..text.len() / 2]).contains("ends early"),
            "{}",
            error(&text[..text.len() / 2])
        );
        assert!(error("").contains("empty"));
        // Cut anywhere, inside a number too ("0." of "0.25" reads as an invalid number at the
        // very end): cut short all the same.
        for cut in (1..text.trim_end().len()).step_by(11) {
            if text.is_char_boundary(cut) {
                let said = error(&text[..cut]);
                assert!(said.contains("ends early"), "cut at {cut}: {said}");
            }
        }
        assert!(error("system,task\nA,t\n").contains("not a pareval early model"));
        assert!(error(r#"{"format":"other"}"#).contains("its format is 'other'"));
        let newer = text.replacen("\"version\":1", "\"version\":2", 1);
        assert!(
            error(&newer).contains("model file version 2"),
            "{}",
            error(&newer)
        );
        let renamed = text.replacen("\"features\":[\"k\"", "\"features\":[\"kk\"", 1);
        assert!(error(&renamed).contains("feature names do not match"));
        // An edited threshold would halt every trajectory at its first step, or none.
        for (from, to, said) in [
            (
                "\"success\":0.9",
                "\"success\":1.7",
                "its success threshold 1.7 is not in (0.5, 1]",
            ),
            (
                "\"failure\":0.9",
                "\"failure\":-0.2",
                "its failure threshold -0.2 is not in (0.5, 1]",
            ),
        ] {
            let edited = text
                .replacen(
                    &format!("\"thresholds\":{{{from}"),
                    &format!("\"thresholds\":{{{to}"),
                    1,
                )
                .replacen(&format!(",{from},\"target"), &format!(",{to},\"target"), 1);
            assert_ne!(edited, text, "{from}");
            assert!(error(&edited).contains(said), "{}", error(&edited));
        }
    }

    #[test]
    fn a_model_whose_fitted_parts_were_edited_is_refused() {
        let (_, trained) = trained(ThresholdChoice::Tau(0.9));
        let text = trained.to_json().expect("json");
        let value: serde_json::Value = serde_json::from_str(&text).expect("json");
        // Pretty-printed by another tool, with its keys in another order: the same model.
        let pretty = serde_json::to_string_pretty(&value).expect("pretty");
        assert_ne!(pretty, text);
        assert!(Predictor::from_json(&pretty).is_ok());
        // A tree dropped from the success model (or a leaf's weight changed) still parses, and
        // would score differently without a word.
        let mut fewer = value.clone();
        let trees = fewer["success"]["booster"]["trees"]
            .as_array_mut()
            .expect("the booster's trees");
        assert_eq!(trees.len(), 8);
        trees.pop();
        let error = Predictor::from_json(&fewer.to_string())
            .err()
            .expect("refused");
        assert!(
            error.starts_with("the model file is damaged: its fitted parts (featurizer, trees, calibrators) hash to")
                && error.ends_with("(edited or cut after it was written?): train it again with --save-model"),
            "{error}"
        );
        let mut calibrator = value.clone();
        let platt = calibrator["failure"]["platt"]
            .as_object_mut()
            .expect("the failure calibrator");
        let (_, first) = platt.iter_mut().next().expect("a parameter");
        *first = serde_json::json!(first.as_f64().expect("a number") + 0.5);
        assert!(Predictor::from_json(&calibrator.to_string()).is_err());
        // A file saved before the hash was written is read as it is.
        let mut older = value;
        older
            .as_object_mut()
            .expect("an object")
            .remove("fitted_sha256");
        assert!(Predictor::from_json(&older.to_string()).is_ok());
    }

    #[test]
    fn target_precision_thresholds_come_from_the_inner_curves() {
        let (data, p) = trained(ThresholdChoice::TargetPrecision(0.8));
        let expected = p.info.inner.thresholds(0.8);
        assert_eq!(p.info.thresholds.thresholds(), expected);
        assert_eq!(p.info.thresholds.target_precision, Some(0.8));
        assert_eq!(p.thresholds(None, Some(0.8)), expected);
        assert_eq!(p.thresholds(Some(0.7), Some(0.8)), Thresholds::both(0.7));
        assert_eq!(p.info.inner.grouping, Grouping::System);
        assert_eq!(p.info.inner.folds, 3);
        assert_eq!(p.info.inner.trajectories, data.trajectories.len());
    }
}
