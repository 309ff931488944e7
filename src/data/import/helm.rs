//! HELM run folders (`benchmark_output/runs/<suite>/<run name>/`), as `helm-run`'s `Runner` writes
//! them (crfm-helm 0.5.x): `run_spec.json` names the model (`adapter_spec.model`) and the
//! leaderboard groups, `per_instance_stats.json` holds one entry per (instance, perturbation,
//! train trial, metric class) with that instance's stats. A suite folder is a folder of run folders.
//!
//! - system: `adapter_spec.model` (the run name's `model=` part is lossy: `/` becomes `_`).
//! - task: `<run name less its model= part>/<instance_id>`: instance ids are unique only within a
//!   scenario's arguments (`mmlu:subject=anatomy` and `…=philosophy` both have `id12`).
//! - run: `train_trial_index` (draws of the in-context examples); group: `groups[0]` (`mmlu`).
//! - outcome: the mean of one stat on the scenario's main split, never a perturbed copy's. HELM
//!   takes the main metric from its schema, which is not in the run folder: the built-in table below
//!   holds the schemas' `main_name`/`main_split` of the lite, classic, capabilities and mmlu
//!   leaderboards; other groups take the first of [`FALLBACK_METRICS`] the run has, or `--metric`.
//! - Perturbed entries (same `instance_id`, a `perturbation`) and instances of another split are left
//!   out with a note; an instance without the stat (HELM drops NaN stats) is not attempted, noted.
//! - seconds: the `inference_runtime` stat.
//!
//! The files are read into typed structs that skip every field but these, so a large suite needs
//! memory for its records, not for its JSON trees.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// Whether `folder` is a HELM run folder (the two files the importer reads).
pub fn is_run_folder(folder: &Path) -> bool {
    folder.join("run_spec.json").is_file() && folder.join("per_instance_stats.json").is_file()
}

/// Whether a file name is one `helm-summarize` writes beside a suite's run folders.
pub fn is_suite_summary(name: &str) -> bool {
    matches!(
        name,
        "runs.json"
            | "groups.json"
            | "groups_metadata.json"
            | "schema.json"
            | "summary.json"
            | "costs.json"
            | "run_specs.json"
            | "runs_to_run_suites.json"
    )
}

/// `(group, main metric, main split)` from HELM's schemas (`run_groups[].environment`): lite,
/// classic, capabilities and mmlu. Metrics whose lower values are better (`bits_per_byte`) and
/// metrics HELM computes only over a whole split (`classification_macro_f1`) are not here.
const MAIN_METRICS: &[(&str, &str, &str)] = &[
    ("narrative_qa", "f1_score", "test"),
    ("natural_qa_closedbook", "f1_score", "valid"),
    ("natural_qa_openbook_longans", "f1_score", "valid"),
    ("openbookqa", "exact_match", "test"),
    ("mmlu", "exact_match", "test"),
    ("gsm", "final_number_exact_match", "test"),
    (
        "math_chain_of_thought",
        "math_equiv_chain_of_thought",
        "test",
    ),
    ("legalbench", "quasi_exact_match", "test"),
    ("med_qa", "quasi_exact_match", "test"),
    ("wmt_14", "bleu_4", "test"),
    ("boolq", "quasi_exact_match", "valid"),
    ("quac", "f1_score", "valid"),
    ("hellaswag", "exact_match", "valid"),
    ("truthful_qa", "exact_match", "valid"),
    ("imdb", "quasi_exact_match", "valid"),
    ("msmarco_regular", "RR@10", "valid"),
    ("msmarco_trec", "NDCG@10", "valid"),
    ("summarization_cnndm", "rouge_2", "test"),
    ("summarization_xsum", "rouge_2", "test"),
    ("raft", "quasi_exact_match", "test"),
    ("civil_comments", "quasi_exact_match", "test"),
    ("wikifact", "quasi_exact_match", "test"),
    ("babi_qa", "quasi_exact_match", "test"),
    ("synthetic_reasoning", "quasi_exact_match", "test"),
    ("legal_support", "quasi_exact_match", "test"),
    ("lsat_qa", "quasi_exact_match", "test"),
    ("entity_matching", "quasi_exact_match", "test"),
    ("entity_data_imputation", "quasi_exact_match", "test"),
    ("bbq", "quasi_exact_match", "test"),
    ("blimp", "exact_match", "test"),
    ("dyck_language", "exact_match_indicator", "test"),
    ("math_regular", "math_equiv", "test"),
    ("code_humaneval", "pass", "test"),
    ("code_apps", "test_avg", "test"),
    ("mmlu_pro", "chain_of_thought_correctness", "test"),
    ("gpqa", "chain_of_thought_correctness", "test"),
    ("ifeval", "ifeval_strict_accuracy", "test"),
    ("wildbench", "wildbench_score_rescaled", "test"),
    ("omni_math", "omni_math_accuracy", "test"),
];

/// Per-instance stats tried in this order for a group the table does not hold: HELM's accuracy
/// metrics, most used first; bookkeeping stats (`num_*`, `inference_runtime`, `logprob`) never.
pub const FALLBACK_METRICS: [&str; 17] = [
    "exact_match",
    "quasi_exact_match",
    "quasi_prefix_exact_match",
    "prefix_exact_match",
    "final_number_exact_match",
    "exact_match_indicator",
    "math_equiv_chain_of_thought",
    "math_equiv",
    "chain_of_thought_correctness",
    "f1_score",
    "ifeval_strict_accuracy",
    "omni_math_accuracy",
    "wildbench_score_rescaled",
    "rouge_2",
    "rouge_l",
    "bleu_4",
    "pass",
];

#[derive(Deserialize)]
struct RunSpec {
    name: String,
    adapter_spec: AdapterSpec,
    #[serde(default)]
    groups: Vec<String>,
}

#[derive(Deserialize)]
struct AdapterSpec {
    model: Option<String>,
    model_deployment: Option<String>,
}

#[derive(Deserialize)]
struct InstanceStats {
    instance_id: String,
    #[serde(default)]
    perturbation: Option<IgnoredAny>,
    #[serde(default)]
    train_trial_index: u32,
    stats: Vec<Stat>,
}

#[derive(Deserialize)]
struct Stat {
    name: StatName,
    #[serde(default)]
    mean: Option<f64>,
    #[serde(default)]
    sum: Option<f64>,
    #[serde(default)]
    count: Option<f64>,
}

#[derive(Deserialize)]
struct StatName {
    name: String,
    #[serde(default)]
    split: Option<String>,
    #[serde(default)]
    perturbation: Option<IgnoredAny>,
}

impl Stat {
    /// HELM writes no mean for a stat of count 0; a count-1 stat's mean is its sum.
    fn value(&self) -> Option<f64> {
        self.mean.or_else(|| match (self.sum, self.count) {
            (Some(sum), Some(count)) if count > 0.0 => Some(sum / count),
            _ => None,
        })
    }
}

/// The run folder a path names: the folder itself, or the folder of its `per_instance_stats.json`
/// or `run_spec.json`.
pub fn run_folder_of(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    }
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<(T, Vec<u8>), LoadError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| LoadError::new(&file, "the file is not UTF-8 text"))?;
    let (cleaned, _) = super::json::without_non_finite(text);
    let value = serde_json::from_str(&cleaned).map_err(|e| {
        LoadError::new(
            &file,
            format!(
                "not a HELM {}: {e}",
                path.file_name()
                    .map_or(String::new(), |n| n.to_string_lossy().into_owned())
            ),
        )
    })?;
    Ok((value, bytes))
}

/// The run name less its `model=` and `model_deployment=` parts: the scenario with its arguments.
fn scenario_key(run_name: &str) -> String {
    let (head, arguments) = run_name.split_once(':').unwrap_or((run_name, ""));
    let kept: Vec<&str> = arguments
        .split(',')
        .filter(|part| {
            !part.is_empty()
                && !part.starts_with("model=")
                && !part.starts_with("model_deployment=")
        })
        .collect();
    if kept.is_empty() {
        head.to_string()
    } else {
        format!("{head}:{}", kept.join(","))
    }
}

/// The metric and split that decide an instance, and where the choice came from.
struct MainMetric {
    metric: String,
    split: Option<String>,
    from: &'static str,
}

fn main_metric(
    groups: &[String],
    entries: &[InstanceStats],
    chosen: Option<&str>,
) -> Option<MainMetric> {
    let split_of_table = groups.iter().find_map(|group| {
        MAIN_METRICS
            .iter()
            .find(|(name, _, _)| name == group)
            .map(|&(_, metric, split)| (metric, split))
    });
    // Without a table entry, the test split when any instance has one (HELM's usual main split).
    let split = split_of_table
        .map(|(_, split)| split.to_string())
        .or_else(|| {
            let splits = || {
                entries
                    .iter()
                    .flat_map(|e| e.stats.iter())
                    .filter_map(|s| s.name.split.as_deref())
            };
            if splits().any(|s| s == "test") {
                Some("test".to_string())
            } else {
                splits().next().map(str::to_string)
            }
        });
    let has = |metric: &str| {
        entries.iter().any(|entry| {
            entry
                .stats
                .iter()
                .any(|stat| stat.name.name == metric && stat.name.perturbation.is_none())
        })
    };
    if let Some(metric) = chosen {
        return Some(MainMetric {
            metric: metric.to_string(),
            split,
            from: "--metric",
        });
    }
    if let Some((metric, _)) = split_of_table
        && has(metric)
    {
        return Some(MainMetric {
            metric: metric.to_string(),
            split,
            from: "HELM's schema for the group",
        });
    }
    FALLBACK_METRICS
        .iter()
        .find(|metric| has(metric))
        .map(|metric| MainMetric {
            metric: metric.to_string(),
            split,
            from: "the first accuracy metric the run has (the group is not in pareval's table of HELM schemas)",
        })
}

/// The rows of one run folder; the bytes read (for the content hash) and the file named in messages.
pub fn run(
    folder: &Path,
    chosen_metric: Option<&str>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let spec_path = folder.join("run_spec.json");
    let stats_path = folder.join("per_instance_stats.json");
    let file = stats_path.display().to_string();
    if !spec_path.is_file() {
        return Err(LoadError::new(
            &file,
            "a HELM per_instance_stats.json needs its run_spec.json beside it (the model and groups are there)",
        ));
    }
    let (spec, spec_bytes): (RunSpec, _) = read_json(&spec_path)?;
    let (entries, mut bytes): (Vec<InstanceStats>, _) = read_json(&stats_path)?;
    bytes.extend_from_slice(&spec_bytes);
    let system = spec
        .adapter_spec
        .model
        .clone()
        .or(spec.adapter_spec.model_deployment.clone())
        .ok_or_else(|| {
            LoadError::new(
                spec_path.display().to_string(),
                "adapter_spec has no model (nor model_deployment)",
            )
        })?;
    let scenario = scenario_key(&spec.name);
    let group = spec.groups.first().cloned();
    let Some(main) = main_metric(&spec.groups, &entries, chosen_metric) else {
        return Err(LoadError::new(
            &file,
            format!(
                "no accuracy metric among the per-instance stats of run '{}' (groups {:?}); name the stat with --metric",
                spec.name, spec.groups
            ),
        ));
    };
    // One instance (and train trial) may have several entries, one per metric class: merged.
    #[derive(Default)]
    struct Instance {
        outcome: Option<f64>,
        seconds: Option<f64>,
        off_split: bool,
    }
    let mut instances: BTreeMap<(String, u32), Instance> = BTreeMap::new();
    let mut perturbed = 0usize;
    for entry in &entries {
        if entry.perturbation.is_some() {
            perturbed += 1;
            continue;
        }
        let instance = instances
            .entry((entry.instance_id.clone(), entry.train_trial_index))
            .or_default();
        for stat in &entry.stats {
            if stat.name.perturbation.is_some() {
                continue;
            }
            // A stat without a split (older writers) counts on every split.
            let on_split =
                main.split.is_none() || stat.name.split.is_none() || stat.name.split == main.split;
            if stat.name.name == main.metric {
                if on_split {
                    instance.outcome = stat.value().or(instance.outcome);
                } else {
                    instance.off_split = true;
                }
            } else if stat.name.name == "inference_runtime" && on_split {
                instance.seconds = stat.value();
            }
        }
    }
    let split_text = main.split.as_deref().unwrap_or("any");
    let mut rows = Vec::with_capacity(instances.len());
    let (mut off_split, mut missing) = (0usize, 0usize);
    for ((instance_id, trial), instance) in instances {
        if instance.outcome.is_none() && instance.off_split {
            off_split += 1;
            continue;
        }
        if let Some(value) = instance.outcome
            && !(0.0..=1.0).contains(&value)
        {
            return Err(LoadError::new(
                &file,
                format!(
                    "instance {instance_id}, trial {trial}: {} is {value}, outside [0, 1] (an outcome is a score in [0, 1]; name another stat with --metric)",
                    main.metric
                ),
            ));
        }
        missing += usize::from(instance.outcome.is_none());
        rows.push(CanonicalRow {
            system: system.clone(),
            task: format!("{scenario}/{instance_id}"),
            run: trial,
            outcome: instance.outcome,
            status: if instance.outcome.is_some() {
                RowStatus::Ok
            } else {
                RowStatus::NotAttempted
            },
            group: group.clone(),
            cost_usd: None,
            seconds: instance.seconds,
            source: format!(
                "helm {} {instance_id} trial {trial}, {} on {split_text}",
                spec.name, main.metric
            ),
        });
    }
    let mut notes = Vec::new();
    if main.from != "HELM's schema for the group" {
        notes.push(format!(
            "{file}: outcome = {} on split {split_text}, chosen by {}",
            main.metric, main.from
        ));
    }
    if perturbed > 0 {
        notes.push(format!(
            "{file}: {} of perturbed instances (data augmentation) left out: a perturbed copy is not another task",
            counted(perturbed, "entry", "entries")
        ));
    }
    if off_split > 0 {
        notes.push(format!(
            "{file}: {} of another split than {split_text} (HELM's main split for the scenario) left out",
            counted(off_split, "instance", "instances")
        ));
    }
    if missing > 0 {
        notes.push(format!(
            "{file}: {} no {} stat (HELM drops a NaN stat): read as not attempted",
            counted(missing, "instance has", "instances have"),
            main.metric
        ));
    }
    Ok((Imported::entries(rows, notes), bytes, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_keys_drop_the_model_parts() {
        assert_eq!(
            scenario_key("mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"),
            "mmlu:subject=philosophy,method=multiple_choice_joint"
        );
        assert_eq!(
            scenario_key("narrative_qa:model=openai_gpt2"),
            "narrative_qa"
        );
        assert_eq!(
            scenario_key("simple_mcqa:model=simple_model1,data_augmentation=lower"),
            "simple_mcqa:data_augmentation=lower"
        );
        assert_eq!(scenario_key("plain"), "plain");
    }

    #[test]
    fn the_table_names_each_group_once() {
        let mut groups: Vec<&str> = MAIN_METRICS.iter().map(|(g, _, _)| *g).collect();
        groups.sort();
        let before = groups.len();
        groups.dedup();
        assert_eq!(groups.len(), before);
    }
}
