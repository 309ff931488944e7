//! Harness output folders whose result files lie several levels below the folder a user names:
//! lighteval's `--output-dir` (`details/<model…>/<date>/details_<task>_<date>.parquet`, beside the
//! `results/` aggregates) and a FastChat MT-Bench or Arena-Hard-Auto bench folder
//! (`data/<bench>/`, with `model_judgment/<judge>_single.jsonl` or `model_judgment/<judge>/<model>.jsonl`
//! beside the questions and the models' answers). Such a folder, or any folder on the way down to
//! the files, is read as those files, and a note says where they were found; everything else in it
//! (answers, aggregates, questions) is not a per-sample result and stays unread.

use std::path::{Path, PathBuf};

use super::{lighteval, subfolders};
use crate::data::error::LoadError;

/// How far below the folder given lighteval's details files are looked for: `details/`, the model
/// (a name with '/' is two folders, sometimes three), the date.
const LIGHTEVAL_DEPTH: usize = 6;

/// The folder FastChat and Arena-Hard-Auto write judgments into, inside a bench folder.
const JUDGMENTS: &str = "model_judgment";

/// Result files found below a folder that holds none of its own, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct DeepLayout {
    /// The harness's words for the files, for the note.
    pub what: &'static str,
    pub files: Vec<PathBuf>,
}

impl DeepLayout {
    /// The note a loader gives: how many files, and the folders holding them (relative to `folder`).
    pub fn note(&self, folder: &Path) -> String {
        let mut places: Vec<String> = self
            .files
            .iter()
            .filter_map(|file| file.parent())
            .map(|parent| {
                let relative = parent.strip_prefix(folder).unwrap_or(parent);
                format!("{}/", relative.display())
            })
            .collect();
        places.dedup();
        let shown = places.len().min(super::FOLDERS_NAMED);
        let more = places.len() - shown;
        places.truncate(shown);
        if more > 0 {
            places.push(format!("… and {more} more"));
        }
        format!(
            "{}: its top level holds no result file; read the {} {} below it, in {}",
            folder.display(),
            self.files.len(),
            self.what,
            places.join(", ")
        )
    }
}

/// The result files a folder is read as when they lie deeper than its own level: lighteval's
/// details files anywhere in an output folder, or a bench folder's judgments. None for any other
/// folder.
pub fn deep_layout(folder: &Path) -> Option<DeepLayout> {
    judgments(folder)
        .or_else(|| lighteval_details(folder))
        .or_else(|| verifiers_runs(folder))
        .or_else(|| nemo_skills_outputs(folder))
}

/// verifiers' run folders below `folder` (`outputs/`, `outputs/evals/`, `<env>--<model>/`): their
/// `results.jsonl` or v1 `traces.jsonl` files.
fn verifiers_runs(folder: &Path) -> Option<DeepLayout> {
    let files = super::verifiers::files_below(folder);
    (!files.is_empty()).then_some(DeepLayout {
        what: "verifiers results files",
        files,
    })
}

/// NeMo-Skills' output files below `folder` (an output dir, its `eval-results/`, a folder of
/// output dirs).
fn nemo_skills_outputs(folder: &Path) -> Option<DeepLayout> {
    let files = super::nemo_skills::files_below(folder);
    (!files.is_empty()).then_some(DeepLayout {
        what: "NeMo-Skills output files",
        files,
    })
}

/// Every lighteval details file below `folder`, in path order.
fn lighteval_details(folder: &Path) -> Option<DeepLayout> {
    let mut files = Vec::new();
    collect_details(folder, LIGHTEVAL_DEPTH, &mut files);
    files.sort();
    (!files.is_empty()).then_some(DeepLayout {
        what: "lighteval details files",
        files,
    })
}

fn collect_details(folder: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    found.extend(super::files_named(folder, |name| {
        lighteval::is_details(Path::new(name))
    }));
    if depth == 0 {
        return;
    }
    for sub in subfolders(folder) {
        collect_details(&sub, depth - 1, found);
    }
}

/// A bench folder's judgments (`<bench>/model_judgment/`), or those of a `model_judgment` folder:
/// MT-Bench's `<judge>_single.jsonl` and `<judge>_pair.jsonl` files in it, Arena-Hard-Auto's
/// `<judge>/<model>.jsonl` below it.
fn judgments(folder: &Path) -> Option<DeepLayout> {
    let judgments = if folder.file_name().is_some_and(|name| name == JUDGMENTS) {
        folder.to_path_buf()
    } else {
        let inside = folder.join(JUDGMENTS);
        inside.is_dir().then_some(inside)?
    };
    let json_lines = |name: &str| name.ends_with(".jsonl");
    let mut files = super::files_named(&judgments, json_lines);
    let own = !files.is_empty();
    for judge in subfolders(&judgments) {
        files.extend(super::files_named(&judge, json_lines));
    }
    files.sort();
    if files.is_empty() {
        return None;
    }
    Some(DeepLayout {
        what: if own {
            "judgment files (MT-Bench's model_judgment/<judge>_<mode>.jsonl)"
        } else {
            "judgment files (Arena-Hard-Auto's model_judgment/<judge>/<model>.jsonl)"
        },
        files,
    })
}

/// Refuses Arena-Hard-Auto judgments of more than one judge read together: each judge rates every
/// model on the same questions, so their lines would be the same (model, question) twice, and a
/// leaderboard reads one judge's. Names the judges' folders.
pub fn refuse_several_judges(files: &[PathBuf]) -> Result<(), LoadError> {
    match several_judges(files) {
        Some((_, why)) => Err(why),
        None => Ok(()),
    }
}

/// The Arena-Hard-Auto judgment files among `files` when they come from more than one judge's
/// folder, and why they are not read together ([`refuse_several_judges`]).
pub fn several_judges(files: &[PathBuf]) -> Option<(Vec<PathBuf>, LoadError)> {
    fn judge_of(file: &Path) -> Option<&Path> {
        file.parent().filter(|judge| {
            super::has_extension(file, "jsonl")
                && judge
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|name| name == JUDGMENTS)
        })
    }
    let mut judges: Vec<&Path> = files.iter().filter_map(|file| judge_of(file)).collect();
    judges.sort();
    judges.dedup();
    if judges.len() < 2 {
        return None;
    }
    let names: Vec<String> = judges
        .iter()
        .map(|judge| {
            format!(
                "{}/",
                judge.file_name().unwrap_or_default().to_string_lossy()
            )
        })
        .collect();
    let why = LoadError::new(
        judges[0]
            .parent()
            .unwrap_or(judges[0])
            .display()
            .to_string(),
        format!(
            "Arena-Hard-Auto judgments of {} judges ({}): each judge rates the same models on the same questions, and a leaderboard reads one judge's; give one judge's folder",
            judges.len(),
            names.join(", ")
        ),
    );
    let judged = files
        .iter()
        .filter(|file| judge_of(file).is_some())
        .cloned()
        .collect();
    Some((judged, why))
}
