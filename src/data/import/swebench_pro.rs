//! SWE-Bench Pro's evaluation results (scaleapi/SWE-bench_Pro-os): `swe_bench_pro_eval.py` writes
//! `<output_dir>/eval_results.json` once every patch is evaluated, a JSON object mapping each
//! evaluated instance id to whether its patch passed (every fail-to-pass and pass-to-pass test of
//! the instance passed); the public leaderboard's runs keep theirs as `traj/<run>/eval_results.json`.
//!
//! - system: the file's folder (the run's `output_dir`, `traj/<run>`), noted; `--system-name` names
//!   it otherwise.
//! - task: the instance id; group: its repository (`instance_<org>__<repo>-<commit>-v<…>` →
//!   `<org>/<repo>`).
//! - outcome: true → 1, false → 0. The script also writes false when an evaluation raised or
//!   returned nothing (it prints those, the file does not tell them apart), so every false is a 0
//!   with status ok, as its accuracy counts them.
//! - The file lists the instances the run was given patches for, and the script's accuracy divides
//!   by them while the leaderboard divides by the whole public set: `--split FILE` (the split's
//!   instance ids: a CSV with an `instance_id` column, as the dataset exports, or one per line) adds
//!   the split's other instances as 0, noted, and refuses a listed instance outside it.
//! - No cost or time (the trajectories with them are kept elsewhere). The file is written once at
//!   the end, so a run cannot be followed live from it.

use std::path::Path;

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus};
use crate::data::error::LoadError;

/// The prefix every SWE-Bench Pro instance id has.
const ID_PREFIX: &str = "instance_";

/// Whether a parsed JSON value is an `eval_results.json`: a non-empty object of instance ids, each
/// true or false.
pub fn is_eval_results(value: &Value) -> bool {
    value.as_object().is_some_and(|object| {
        !object.is_empty()
            && object
                .iter()
                .all(|(id, passed)| id.starts_with(ID_PREFIX) && passed.is_boolean())
    })
}

/// Whether a file is SWE-Bench Pro's `eval_results.json`, told by its name and its first bytes
/// (`json.dump` writes the object on one line: `{"instance_…`) without parsing it: a folder holding
/// it is the run's `output_dir`, whose per-instance folders are the evaluation's working files.
pub fn is_eval_results_file(path: &Path) -> bool {
    use std::io::Read;
    if path
        .file_name()
        .is_none_or(|name| name != "eval_results.json")
    {
        return false;
    }
    let mut head = [0u8; 64];
    let Ok(read) = std::fs::File::open(path).and_then(|mut file| file.read(&mut head)) else {
        return false;
    };
    let text = String::from_utf8_lossy(&head[..read]);
    let text = text.trim_start();
    text.strip_prefix('{')
        .map(str::trim_start)
        .is_some_and(|rest| rest.starts_with(&format!("\"{ID_PREFIX}")))
}

/// The repository of an instance id `instance_<org>__<repo>-<40-hex commit>[-v<…>]`.
fn repository(id: &str) -> Option<String> {
    let (org, rest) = id.strip_prefix(ID_PREFIX)?.split_once("__")?;
    // The repository name may hold '-' (element-web): it ends where the commit hash starts.
    let commit_at = rest.match_indices('-').map(|(at, _)| at).find(|&at| {
        let hash = rest.get(at + 1..at + 41);
        hash.is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            && matches!(rest.as_bytes().get(at + 41), None | Some(b'-'))
    })?;
    let repo = &rest[..commit_at];
    (!org.is_empty() && !repo.is_empty()).then(|| format!("{org}/{repo}"))
}

/// The rows of one `eval_results.json`.
pub fn results(
    value: &Value,
    path: &Path,
    file: &str,
    split: Option<&str>,
) -> Result<Imported, LoadError> {
    let object = value.as_object().ok_or_else(|| {
        LoadError::new(
            file,
            "not a SWE-Bench Pro eval_results.json (a JSON object mapping instance ids to true or false)",
        )
    })?;
    let folder = super::folder_of_file(path, "swebench-pro");
    let mut notes = vec![format!(
        "{file}: SWE-Bench Pro's eval_results.json stores no system name; it is named after its folder, '{folder}'"
    )];
    let row = |id: &str, outcome: f64, why: &str| CanonicalRow {
        system: folder.clone(),
        task: id.to_string(),
        run: 0,
        outcome: Some(outcome),
        status: RowStatus::Ok,
        group: repository(id),
        cost_usd: None,
        seconds: None,
        source: format!("swebench-pro {why}"),
    };
    let mut rows = Vec::with_capacity(object.len());
    for (id, passed) in object {
        let passed = passed.as_bool().ok_or_else(|| {
            LoadError::new(
                file,
                format!(
                    "instance '{id}' is {}, not true or false",
                    super::value_or_missing(Some(passed))
                ),
            )
        })?;
        rows.push(if passed {
            row(id, 1.0, "passed")
        } else {
            row(id, 0.0, "failed")
        });
    }
    if let Some(split) = split {
        let (listed, unscored) = super::swebench::unscored_in_split(
            split,
            object.keys(),
            |id| object.contains_key(id),
            file,
            "instances",
            "SWE-Bench Pro's split is a file of its instance ids (a CSV with an instance_id column, or one per line)",
        )?;
        notes.push(format!(
            "{file}: scored against the {listed} instances listed in {split} (--split){}",
            match unscored.len() {
                0 => String::new(),
                missing => format!(
                    "; the file has no result for {missing} of them (no patch was evaluated): read as 0, as the leaderboard scores them"
                ),
            }
        ));
        for id in unscored {
            rows.push(row(&id, 0.0, "not evaluated (no patch)"));
        }
    }
    rows.sort_by(|a, b| a.task.cmp(&b.task));
    Ok(Imported::entries(rows, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repositories_from_instance_ids() {
        let hash = "25858f9f0c165df25742acf8309ce909773f0cdd";
        assert_eq!(
            repository(&format!(
                "instance_internetarchive__openlibrary-{hash}-v13642507b4fc1f8d234172bf8129942da2c2ca26"
            ))
            .as_deref(),
            Some("internetarchive/openlibrary")
        );
        assert_eq!(
            repository(&format!("instance_element-hq__element-web-{hash}-vnan")).as_deref(),
            Some("element-hq/element-web")
        );
        assert_eq!(
            repository(&format!("instance_NodeBB__NodeBB-{hash}")).as_deref(),
            Some("NodeBB/NodeBB")
        );
        for other in [
            "instance_org__repo-1234",
            "django__django-11099",
            &format!("instance___repo-{hash}"),
            &format!("instance_org__-{hash}"),
        ] {
            assert_eq!(repository(other), None, "{other}");
        }
    }

    #[test]
    fn only_an_object_of_instance_ids_and_booleans_is_recognised() {
        let json = |text: &str| serde_json::from_str::<Value>(text).expect("JSON");
        assert!(is_eval_results(&json(
            r#"{"instance_a__b-1": true, "instance_c__d-2": false}"#
        )));
        assert!(!is_eval_results(&json("{}")));
        assert!(!is_eval_results(&json(r#"{"instance_a__b-1": 1}"#)));
        assert!(!is_eval_results(&json(r#"{"django__django-1": true}"#)));
        assert!(!is_eval_results(&json(r#"[true]"#)));
    }
}
