//! BALROG's results (balrog-ai/BALROG: LLM and VLM agents in BabyAI, BabaIsAI, MiniHack,
//! TextWorld, Crafter and NetHack). Its `eval.py` writes one run folder per evaluation,
//! `<output_dir>/<date>_<agent>_<model>/`, holding per episode `<env>/<task>/<task>_run_<NN>.csv`
//! (the steps, written as they happen) and, once the episode ends, `<task>_run_<NN>.json`
//! (`task`, `progression`, `num_steps`, `episode_return`, tokens, the agent and client), then
//! `<env>/<env>_summary.json` and `summary.json`. A task named with a slash (`env/goto_win`)
//! nests: `babaisai/env/goto_win/env/goto_win_run_00.json`. Read as follows:
//!
//! - files: a run folder, a folder of run folders (the leaderboard's `submissions/LLM/`), or one
//!   episode file (recognised by the layout and the keys).
//! - system: the run folder's name (the leaderboard's submission folder); the path below the
//!   folder given when two run folders share a name (`LLM/…` and `VLM/…`).
//! - task: `<env>/<task>`, the task's first segment dropped when it has one (`env/` for
//!   BabaIsAI, `BabyAI-MixedTrainLocal-v0/` for BabyAI: the same for every task of the
//!   environment) unless that makes two tasks one; group: the environment.
//! - run: NN of `_run_NN` (episodes of one task, each with its own seed).
//! - outcome: `progression` (0–1; BALROG's score, which its summaries average: binary in BabyAI,
//!   BabaIsAI and MiniHack, partial in TextWorld, Crafter and NetHack), or with `--metric
//!   success` whether it is 1.
//! - status: an episode whose steps file has no result beside it (running, or crashed: BALROG's
//!   evaluator logs the error and its summaries leave the episode out) → not attempted. While the
//!   run has no `summary.json` (going on, or stopped), the finished episodes of a task with one
//!   still to come are not attempted too: the task's outcome is the mean of its episodes, which
//!   the one to come would change (SPEC §9c). No cost or time: BALROG records token counts only.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus};
use crate::data::error::LoadError;

/// The outcomes `--metric` picks: BALROG's progression (the default) or full success.
const METRICS: [&str; 2] = ["progression", "success"];

/// How deep below the folder given an episode file may lie: a submissions folder, its track, the
/// run folder, the environment and a nested task's four levels.
const MAX_DEPTH: usize = 9;

/// The headers BALROG's evaluator has written to an episode's steps file.
const STEP_HEADERS: [&str; 2] = [
    "Step,Action,Reasoning,Observation,Reward,Done",
    "Step,Observation,Action,Reasoning,Reward,Done",
];

/// Whether a JSON object is one of BALROG's episode results.
pub fn is_episode(object: &serde_json::Map<String, Value>) -> bool {
    ["task", "progression", "num_steps", "episode_return"]
        .iter()
        .all(|key| object.contains_key(*key))
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// An episode file's name split into its task's last segment, NN and the extension (`json` or
/// `csv`): `goto_win_run_03.json` → (`goto_win`, 3, `json`).
fn episode_name(name: &str) -> Option<(&str, u32, &str)> {
    let (stem, extension) = name.rsplit_once('.')?;
    if extension != "json" && extension != "csv" {
        return None;
    }
    let (task, number) = stem.rsplit_once("_run_")?;
    if task.is_empty() || number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((task, number.parse().ok()?, extension))
}

/// How many entries recognising a folder looks at before it gives up: it runs for every folder
/// pareval is given and every subfolder of those, so a large tree of another harness must not be
/// walked whole (a BALROG run's first episode comes within a few dozen).
const RECOGNITION_ENTRIES: usize = 2_000;

/// The episode files below a folder, in path order, until `visit` says stop (false) or `budget`
/// entries were looked at; whether it was stopped. Hidden files and folders (`.DS_Store`) are
/// passed over.
fn walk_episodes(
    folder: &Path,
    depth: usize,
    budget: &mut usize,
    visit: &mut dyn FnMut(&Path) -> bool,
) -> bool {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return false;
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| !name_of(path).starts_with('.'))
        .collect();
    paths.sort();
    for path in paths {
        if *budget == 0 {
            return true;
        }
        *budget -= 1;
        let stopped = if path.is_dir() {
            depth < MAX_DEPTH && walk_episodes(&path, depth + 1, budget, visit)
        } else {
            episode_name(&name_of(&path)).is_some() && !visit(&path)
        };
        if stopped {
            return true;
        }
    }
    false
}

/// Whether a steps file starts with a header BALROG writes, or is still empty (the evaluator
/// opens it when the episode starts; a killed run leaves it so, unflushed).
fn is_steps_file(path: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    if file.metadata().is_ok_and(|m| m.len() == 0) {
        return true;
    }
    let mut first = String::new();
    std::io::BufReader::new(file.take(256))
        .read_line(&mut first)
        .is_ok()
        && STEP_HEADERS.contains(&first.trim_end_matches(['\r', '\n']))
}

/// Whether a folder holds BALROG's results: its first episode file (the walk stops there, as
/// `watch` asks at every poll) is a result with BALROG's keys or a steps file with its header.
pub fn is_results_tree(folder: &Path) -> bool {
    if !folder.is_dir() {
        return false;
    }
    // An empty steps file says nothing of whose it is: the first other one decides.
    let mut first = None;
    walk_episodes(folder, 0, &mut { RECOGNITION_ENTRIES }, &mut |path| {
        if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
            return true;
        }
        first = Some(path.to_path_buf());
        false
    });
    first.is_some_and(|path| {
        if path.extension().is_some_and(|e| e == "csv") {
            is_steps_file(&path)
        } else {
            super::first_file_is(&[path], is_episode)
        }
    })
}

/// The episode files below a folder (or the file given), in path order.
fn episode_files(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let mut found = Vec::new();
    walk_episodes(path, 0, &mut { usize::MAX }, &mut |file| {
        found.push(file.to_path_buf());
        true
    });
    found
}

/// Every file whose change `watch` must see: each episode's result, or its steps file before
/// the result lands (so a started episode shows as not attempted).
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    let files = episode_files(folder);
    let results: BTreeSet<PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
        .cloned()
        .collect();
    files
        .into_iter()
        .filter(|f| {
            f.extension().is_some_and(|e| e == "json")
                || !results.contains(&f.with_extension("json"))
        })
        .collect()
}

/// Where an episode file sits in a run folder: (the run folder, the environment), when the
/// folders above it spell its task as the evaluator nests it (`<env>/<task>/<task>_run_NN`).
fn placed(file: &Path, task: &str) -> Option<(PathBuf, String)> {
    let segments: Vec<&str> = task.split('/').collect();
    let k = segments.len();
    let name = name_of(file);
    let (last, _, _) = episode_name(&name)?;
    if last != segments[k - 1] {
        return None;
    }
    // Above the file: the task's first k − 1 segments, then all k, then the environment.
    let mut folder = file.parent()?;
    for expected in segments[..k - 1].iter().rev().chain(segments.iter().rev()) {
        if name_of(folder) != *expected {
            return None;
        }
        folder = folder.parent()?;
    }
    let env = name_of(folder);
    let root = folder.parent()?;
    (!env.is_empty()).then(|| (root.to_path_buf(), env))
}

/// A steps file's place when its result is missing: the task is spelled by its folders, so it
/// is read back from them, trying a task of one segment first, then two, up to four.
fn placed_steps(file: &Path) -> Option<(PathBuf, String, String)> {
    let name = name_of(file);
    let (last, _, _) = episode_name(&name)?;
    let mut ancestors: Vec<String> = Vec::new();
    let mut folder = file.parent();
    while let Some(f) = folder {
        ancestors.push(name_of(f));
        folder = f.parent();
    }
    for k in 1..=4 {
        if ancestors.len() < 2 * k {
            break;
        }
        // ancestors[0..k−1] are the task's first k − 1 segments (reversed), ancestors[k−1..2k−1]
        // all k, then the environment.
        let full: Vec<&str> = ancestors[k - 1..2 * k - 1]
            .iter()
            .rev()
            .map(String::as_str)
            .collect();
        let task = full.join("/");
        if full.last() == Some(&last)
            && let Some((root, env)) = placed(file, &task)
        {
            return Some((root, env, task));
        }
    }
    None
}

/// One episode as read, before the task names and systems are settled.
struct Episode {
    root: PathBuf,
    env: String,
    task: String,
    run: u32,
    /// None for a steps file with no result.
    progression: Option<f64>,
    file: PathBuf,
    /// The system of a result found outside the layout (its client's model), which then has no
    /// environment.
    outside: Option<String>,
}

fn read_result(file: &Path, bytes: &mut Vec<u8>) -> Result<Episode, LoadError> {
    let shown = file.display().to_string();
    let text = std::fs::read(file)
        .map_err(|e| LoadError::new(&shown, format!("cannot read the file: {e}")))?;
    let (value, _) = super::json::parse_lenient(&text, &shown)?;
    let Some(object) = value.as_object().filter(|o| is_episode(o)) else {
        let summary = value.as_object().and_then(|o| summary_hint(o, file));
        return Err(LoadError::new(
            &shown,
            summary.unwrap_or_else(|| {
                "not a BALROG episode result (task, progression, num_steps, episode_return)"
                    .to_string()
            }),
        ));
    };
    bytes.extend_from_slice(&text);
    let task = object["task"]
        .as_str()
        .filter(|t| !t.is_empty() && !t.split('/').any(str::is_empty))
        .ok_or_else(|| {
            LoadError::new(
                &shown,
                format!("task is {}, not a task name", object["task"]),
            )
        })?
        .to_string();
    let progression = object["progression"]
        .as_f64()
        .filter(|p| (0.0..=1.0).contains(p))
        .ok_or_else(|| {
            LoadError::new(
                &shown,
                format!(
                    "progression is {}, not a number from 0 to 1",
                    object["progression"]
                ),
            )
        })?;
    let (_, run, _) = episode_name(&name_of(file)).unwrap_or(("", 0, ""));
    let (root, env, outside) = match placed(file, &task) {
        Some((root, env)) => (root, env, None),
        None => {
            // Moved out of its run folder: the client's model names the system.
            let model = object
                .get("client")
                .and_then(|c| c.get("model_id"))
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
                .unwrap_or("balrog");
            let parent = file.parent().unwrap_or(Path::new("."));
            (parent.to_path_buf(), String::new(), Some(model.to_string()))
        }
    };
    Ok(Episode {
        root,
        env,
        task,
        run,
        progression: Some(progression),
        file: file.to_path_buf(),
        outside,
    })
}

/// The task names as rows name them, per (environment, BALROG's task): the first segment is
/// dropped where the environment's tasks stay distinct without it.
fn task_names(episodes: &[Episode]) -> BTreeMap<(String, String), String> {
    let mut by_env: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for episode in episodes.iter().filter(|e| e.outside.is_none()) {
        by_env
            .entry(&episode.env)
            .or_default()
            .insert(&episode.task);
    }
    let mut names = BTreeMap::new();
    for (env, tasks) in by_env {
        let short = |task: &str| {
            task.split_once('/')
                .map_or(task, |(_, rest)| rest)
                .to_string()
        };
        let distinct: BTreeSet<String> = tasks.iter().map(|t| short(t)).collect();
        let keep_full = distinct.len() < tasks.len();
        for task in tasks {
            let name = if keep_full {
                task.to_string()
            } else {
                short(task)
            };
            names.insert((env.to_string(), task.to_string()), format!("{env}/{name}"));
        }
    }
    names
}

/// The system of each run folder: its name, or its path below the folder given when names repeat.
fn system_names(episodes: &[Episode], given: &Path) -> BTreeMap<PathBuf, String> {
    let roots: BTreeSet<&PathBuf> = episodes
        .iter()
        .filter(|e| e.outside.is_none())
        .map(|e| &e.root)
        .collect();
    let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
    for root in &roots {
        *by_name.entry(name_of(root)).or_default() += 1;
    }
    roots
        .into_iter()
        .map(|root| {
            let name = name_of(root);
            let system = if by_name[&name] > 1 {
                root.strip_prefix(given)
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| root.display().to_string())
            } else {
                name
            };
            (root.clone(), system)
        })
        .collect()
}

/// Run folders below the folder given that hold BALROG's summaries but no episode files (the
/// leaderboard's older submissions).
fn summary_only(given: &Path, read: &BTreeSet<&PathBuf>) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![(given.to_path_buf(), 0usize)];
    while let Some((folder, depth)) = stack.pop() {
        if folder.join("summary.json").is_file() && !read.contains(&folder) {
            if super::first_file_is(&[folder.join("summary.json")], |o| {
                o.contains_key("average_progress") && o.contains_key("environments")
            }) {
                found.push(folder.display().to_string());
            }
            continue;
        }
        if depth < 3
            && let Ok(entries) = std::fs::read_dir(&folder)
        {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() && !name_of(&path).starts_with('.') {
                    stack.push((path, depth + 1));
                }
            }
        }
    }
    found.sort();
    found
}

/// What a BALROG summary file is, for the message that it cannot be read: the run's
/// `summary.json` (`average_progress`, `environments`) or an environment's `<env>_summary.json`
/// (`progression_percentage`, `episodes_played`, `tasks`).
pub fn summary_hint(object: &serde_json::Map<String, Value>, file: &Path) -> Option<String> {
    let run = object.contains_key("average_progress") && object.contains_key("environments");
    let env = ["progression_percentage", "episodes_played", "tasks"]
        .iter()
        .all(|key| object.contains_key(*key));
    if !run && !env {
        return None;
    }
    let folder = file
        .parent()
        .map(|f| if env { f.parent().unwrap_or(f) } else { f });
    let episodes = folder.is_some_and(|f| {
        let mut any = false;
        walk_episodes(f, 0, &mut { RECOGNITION_ENTRIES }, &mut |_| {
            any = true;
            false
        });
        any
    });
    Some(format!(
        "BALROG's summary of {} (averages, not outcomes per episode); {}",
        if run { "a run" } else { "an environment" },
        match folder {
            Some(f) if episodes => format!(
                "give its run folder {} to read the episodes' results (<env>/<task>/<task>_run_NN.json)",
                f.display()
            ),
            _ => "its run folder holds no episode results (<env>/<task>/<task>_run_NN.json; the leaderboard's older submissions publish only summaries), and averages cannot be replayed".to_string(),
        }
    ))
}

/// The rows of a BALROG run folder, a folder of run folders or one episode file; the bytes read
/// (for the content hash) and the name messages use.
pub fn results(
    path: &Path,
    metric: Option<&str>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let shown = path.display().to_string();
    let metric = metric.unwrap_or(METRICS[0]);
    if !METRICS.contains(&metric) {
        return Err(LoadError::new(
            &shown,
            format!(
                "--metric {metric}: BALROG's outcomes are {}",
                METRICS.join(" or ")
            ),
        ));
    }
    let files = episode_files(path);
    let results: BTreeSet<&PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
        .collect();
    let mut bytes = Vec::new();
    let mut episodes = Vec::new();
    for file in &files {
        if results.contains(file) {
            episodes.push(read_result(file, &mut bytes)?);
        } else if !results.contains(&file.with_extension("json")) && is_steps_file(file) {
            // A steps file whose episode has no result: running, or crashed.
            let Some((root, env, task)) = placed_steps(file) else {
                return Err(LoadError::new(
                    file.display().to_string(),
                    "a BALROG steps file outside its layout (<run>/<env>/<task>/<task>_run_NN.csv) and with no result beside it",
                ));
            };
            let (_, run, _) = episode_name(&name_of(file)).unwrap_or(("", 0, ""));
            episodes.push(Episode {
                root,
                env,
                task,
                run,
                progression: None,
                file: file.clone(),
                outside: None,
            });
        }
    }
    let read_roots: BTreeSet<&PathBuf> = episodes.iter().map(|e| &e.root).collect();
    let summaries_alone = if path.is_dir() {
        summary_only(path, &read_roots)
    } else {
        Vec::new()
    };
    if episodes.is_empty() {
        let why = if summaries_alone.is_empty() {
            "no BALROG episode result (<run>/<env>/<task>/<task>_run_NN.json) below it".to_string()
        } else {
            format!(
                "BALROG summaries only ({}): per-episode results (<env>/<task>/<task>_run_NN.json) are not there, and the summaries' averages cannot be replayed",
                summaries_alone.join(", ")
            )
        };
        return Err(LoadError::new(&shown, why));
    }
    let tasks = task_names(&episodes);
    let given = if path.is_dir() {
        path
    } else {
        path.parent().unwrap_or(Path::new("."))
    };
    let systems = system_names(&episodes, given);
    // A run that has not written its summary.json is going on (or was stopped): a task with an
    // episode still to come has no outcome yet, as its outcome is the mean of its episodes and the
    // evaluator runs them one after another; reading the finished ones alone would take a value
    // the later ones change (SPEC §9c). A finished run's crashed episode is missing for good, and
    // its task keeps the episodes that did finish, as BALROG's summaries keep them.
    let waiting: BTreeSet<(&PathBuf, &str)> = episodes
        .iter()
        .filter(|e| e.progression.is_none() && !e.root.join("summary.json").is_file())
        .map(|e| (&e.root, e.task.as_str()))
        .collect();
    let mut partial_envs: BTreeSet<&str> = BTreeSet::new();
    let mut partial = 0usize;
    let mut running = 0usize;
    let mut held = 0usize;
    let mut outside = 0usize;
    let mut rows = Vec::with_capacity(episodes.len());
    for episode in &episodes {
        let (system, task, group) = match &episode.outside {
            Some(model) => {
                outside += 1;
                (model.clone(), episode.task.clone(), None)
            }
            None => (
                systems[&episode.root].clone(),
                tasks[&(episode.env.clone(), episode.task.clone())].clone(),
                Some(episode.env.clone()),
            ),
        };
        let source = format!("balrog {} run {}", episode.file.display(), episode.run);
        let (outcome, status, source) = match episode.progression {
            Some(progression) if waiting.contains(&(&episode.root, episode.task.as_str())) => {
                held += 1;
                (
                    None,
                    RowStatus::NotAttempted,
                    format!(
                        "{source}: waits for the task's other episodes (progression {progression})"
                    ),
                )
            }
            Some(progression) => {
                if progression > 0.0 && progression < 1.0 {
                    partial += 1;
                    partial_envs.insert(&episode.env);
                }
                let outcome = if metric == "success" {
                    f64::from(u8::from(progression == 1.0))
                } else {
                    progression
                };
                (Some(outcome), RowStatus::Ok, source)
            }
            None => {
                running += 1;
                (
                    None,
                    RowStatus::NotAttempted,
                    format!("{source}: steps with no result yet (running, or crashed)"),
                )
            }
        };
        rows.push(CanonicalRow {
            system,
            task,
            run: episode.run,
            outcome,
            status,
            group,
            cost_usd: None,
            seconds: None,
            source,
        });
    }
    let mut notes = vec![format!(
        "{shown}: BALROG, {} of {}; systems are the run folders, tasks <env>/<task>, groups the environments, runs the episodes' _run_NN; the outcome is {}; no cost or time (BALROG records token counts only); a system's mean here is over its tasks, BALROG's average_progress the mean of its environments' means",
        super::counted(rows.len(), "episode", "episodes"),
        super::counted(
            systems.len() + usize::from(outside > 0),
            "system",
            "systems"
        ),
        if metric == "success" {
            "whether progression is 1 (--metric success)"
        } else {
            "progression, from 0 to 1 (BALROG's score; --metric success reads whether it is 1)"
        }
    )];
    if partial > 0 && metric != "success" {
        notes.push(format!(
            "{shown}: {} partial progression (between 0 and 1) in {}: read as it is",
            super::counted(partial, "episode has", "episodes have"),
            Vec::from_iter(partial_envs).join(", ")
        ));
    }
    if running > 0 {
        notes.push(format!(
            "{shown}: {} steps and no result yet (running, or crashed: BALROG's evaluator logs the error and its summaries leave the episode out): not attempted",
            super::counted(running, "episode has", "episodes have")
        ));
    }
    let full_names: BTreeSet<&str> = tasks
        .iter()
        .filter(|((env, task), name)| **name == format!("{env}/{task}") && task.contains('/'))
        .map(|((env, _), _)| env.as_str())
        .collect();
    if !full_names.is_empty() {
        notes.push(format!(
            "{shown}: tasks of {} keep their full names (without the first segment two would be one)",
            Vec::from_iter(full_names).join(", ")
        ));
    }
    if held > 0 {
        notes.push(format!(
            "{shown}: the run has no summary.json yet (running, or stopped): {} of tasks with an episode still to come {} not attempted so far (a task's outcome is the mean of its episodes)",
            super::counted(held, "finished episode", "finished episodes"),
            if held == 1 { "is" } else { "are" }
        ));
    }
    if outside > 0 {
        notes.push(format!(
            "{shown}: {} outside a run folder's <env>/<task>/ layout: system from client.model_id, task as BALROG names it, no group",
            super::counted(outside, "episode result", "episode results")
        ));
    }
    if !summaries_alone.is_empty() {
        notes.push(format!(
            "{shown}: {} only BALROG's summaries, no episode results: not read ({})",
            super::counted(
                summaries_alone.len(),
                "run folder holds",
                "run folders hold"
            ),
            summaries_alone.join(", ")
        ));
    }
    Ok((Imported::entries(rows, notes), bytes, shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn episode_files_are_named_as_the_evaluator_names_them() {
        assert_eq!(
            episode_name("goto_win_run_03.json"),
            Some(("goto_win", 3, "json"))
        );
        assert_eq!(episode_name("a_run_12.csv"), Some(("a", 12, "csv")));
        assert_eq!(episode_name("babyai_summary.json"), None);
        assert_eq!(episode_name("x_run_.json"), None);
        assert_eq!(episode_name("x_run_1a.json"), None);
        assert_eq!(episode_name("x_run_01.txt"), None);
    }

    fn episode(env: &str, task: &str) -> Episode {
        Episode {
            root: PathBuf::from("out/run"),
            env: env.to_string(),
            task: task.to_string(),
            run: 0,
            progression: Some(1.0),
            file: PathBuf::new(),
            outside: None,
        }
    }

    #[test]
    fn a_shared_first_segment_is_dropped_unless_two_tasks_become_one() {
        let names = task_names(&[
            episode("babaisai", "env/goto_win"),
            episode("babaisai", "env/make_win"),
            episode("crafter", "default"),
            episode("other", "a/goal"),
            episode("other", "b/goal"),
        ]);
        let name = |env: &str, task: &str| names[&(env.to_string(), task.to_string())].clone();
        assert_eq!(name("babaisai", "env/goto_win"), "babaisai/goto_win");
        assert_eq!(name("crafter", "default"), "crafter/default");
        assert_eq!(name("other", "a/goal"), "other/a/goal");
        assert_eq!(name("other", "b/goal"), "other/b/goal");
    }

    #[test]
    fn recognising_a_large_tree_stops_after_its_budget() {
        let root =
            std::env::temp_dir().join(format!("pareval-balrog-budget-{}", std::process::id()));
        for i in 0..30 {
            for j in 0..100 {
                std::fs::create_dir_all(root.join(format!("{i:02}/{j:03}"))).expect("folder");
            }
        }
        let mut budget = RECOGNITION_ENTRIES;
        let stopped = walk_episodes(&root, 0, &mut budget, &mut |_| true);
        assert!(
            stopped && budget == 0,
            "3,030 entries, {RECOGNITION_ENTRIES} looked at"
        );
        assert!(!is_results_tree(&root));
        let mut all = usize::MAX;
        assert!(!walk_episodes(&root, 0, &mut all, &mut |_| true));
        assert_eq!(usize::MAX - all, 3_030);
        std::fs::remove_dir_all(&root).expect("clean up");
    }

    #[test]
    fn a_nested_task_is_placed_by_its_folders() {
        let file = Path::new("out/sys/babaisai/env/goto_win/env/goto_win_run_00.json");
        assert_eq!(
            placed(file, "env/goto_win"),
            Some((PathBuf::from("out/sys"), "babaisai".to_string()))
        );
        assert_eq!(placed(file, "goto_win"), None);
        let flat = Path::new("out/sys/crafter/default/default_run_01.json");
        assert_eq!(
            placed(flat, "default"),
            Some((PathBuf::from("out/sys"), "crafter".to_string()))
        );
        assert_eq!(
            placed_steps(&file.with_extension("csv")),
            Some((
                PathBuf::from("out/sys"),
                "babaisai".to_string(),
                "env/goto_win".to_string()
            ))
        );
        assert_eq!(
            placed_steps(&flat.with_extension("csv")),
            Some((
                PathBuf::from("out/sys"),
                "crafter".to_string(),
                "default".to_string()
            ))
        );
    }
}
