//! OSWorld's results folders (`run.py`, `lib_run_single.py` of xlang-ai/OSWorld): a result folder
//! (`--result_dir`, `./results` by default) holds `<action_space>/<observation_type>/<model>/
//! <domain>/<example_id>/`, each example folder with `traj.jsonl` (one line per action) and, once
//! the example was evaluated, `result.txt` (the score `env.evaluate()` returned, one line). A model
//! name with `/` in it (`ByteDance-Seed/UI-TARS-1.5-7B`) is more than one folder. Read as follows:
//!
//! - system: `<model> (<action_space>, <observation_type>)`: one model observed or acting otherwise
//!   is another system.
//! - task: `<domain>/<example_id>` (older test sets list one id under two domains, as two tasks);
//!   group: the domain.
//! - run: OSWorld has no run index: repeated runs are other result folders. Result folders side by
//!   side (`traces/<run>/pyautogui/…`) are runs 0, 1, … of each system they hold, in path order.
//! - outcome: `result.txt`'s number (partial scores such as 0.5 are kept: OSWorld's success rate
//!   is their mean), or `True`/`False`, which some metrics return; anything else is refused.
//! - status: an example folder without `result.txt` whose `traj.jsonl` ends in `{"Error": …}` (the
//!   runner writes it for any exception, "Time limit exceeded in …") is 0 with status error: the
//!   leaderboards count it as failed over the whole test set, though `show_result.py` leaves it
//!   out; one without either is not attempted (running, or the run stopped; a resumed run repeats
//!   it). No cost is recorded.
//! - seconds: from the first action's `action_timestamp` to the last one's (whole seconds, taken as
//!   each action starts), for an example with an outcome and two or more actions: the agent's
//!   working time between them. The runner's fixed waits (60 s before the first observation, 20 s
//!   before evaluating), the first model call, the last action and the evaluation are not in it,
//!   so it ranks examples by time rather than measuring all of it (noted).
//! - WindowsAgentArena (microsoft/WindowsAgentArena, whose runner is OSWorld's) writes the same
//!   folders with its `--trial_id` ("0" by default) between the model and the domain; recognised by
//!   its example ids (`…-WOS`), that level is the run (the system's trials numbered in order), its
//!   reset line (step 0, no action) is not an action for the seconds, an error's `Exception` joins
//!   its `Error`, and a note says how its show_result.py counts (`False` as 1.0, errors left out).
//! - test set (`--split FILE`, OSWorld's `evaluation_examples/test_all.json` or another list of
//!   domain → example ids): a task of it with no example folder for a system's run is not attempted
//!   (never started, or wiped by a resume), so what a partial run skipped shows; examples outside
//!   it are kept, noted.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// OSWorld's `--observation_type` choices: the folder level that anchors the layout.
const OBSERVATIONS: [&str; 4] = ["screenshot", "a11y_tree", "screenshot_a11y_tree", "som"];
const SCORE: &str = "result.txt";
const TRAJECTORY: &str = "traj.jsonl";
/// How deep below a given folder example folders are looked for (a result folder's examples lie
/// four levels down, more for a model name with slashes).
const EXAMPLE_DEPTH: usize = 10;

/// One example folder and where the layout places it.
#[derive(Debug, Clone)]
struct Example {
    /// The result folder it lies in (`--result_dir`).
    root: PathBuf,
    system: String,
    domain: String,
    id: String,
    folder: PathBuf,
    /// WindowsAgentArena's `--trial_id` level between the model and the domain, when there is one.
    trial: Option<String>,
}

/// Whether an example id is WindowsAgentArena's: its test set's ids end in `-WOS` (`-wos` for
/// Chrome's), which OSWorld's UUIDs never do.
fn is_windows_arena_id(id: &str) -> bool {
    // Bytes, so that an id ending in a multi-byte character cannot be cut inside it.
    id.len() > 4 && id.as_bytes()[id.len() - 4..].eq_ignore_ascii_case(b"-wos")
}

/// Whether a folder holds what OSWorld writes for one example.
fn is_example(folder: &Path) -> bool {
    folder.join(SCORE).is_file() || folder.join(TRAJECTORY).is_file()
}

/// Whether a folder name is an OSWorld observation type.
fn is_observation(name: &str) -> bool {
    OBSERVATIONS.contains(&name)
}

/// Whether an observation-type folder lies at most `depth` levels below `folder`.
fn observation_below(folder: &Path, depth: usize) -> bool {
    super::subfolders(folder).iter().any(|child| {
        child
            .file_name()
            .is_some_and(|n| is_observation(&n.to_string_lossy()))
            || (depth > 1 && observation_below(child, depth - 1))
    })
}

/// Whether a folder is (in) an OSWorld result folder: a result folder itself or its action-space
/// folder (an observation type one or two levels down), or any folder below an observation type,
/// with an example folder in it.
pub fn is_results_tree(folder: &Path) -> bool {
    if !folder.is_dir() {
        return false;
    }
    let inside = std::fs::canonicalize(folder).is_ok_and(|path| {
        path.components()
            .any(|c| is_observation(&c.as_os_str().to_string_lossy()))
    });
    (inside || observation_below(folder, 2)) && !examples_up_to(folder, 1).is_empty()
}

/// The example folders below `folder` (itself included), in path order, placed by the layout;
/// folders whose path has no observation-type level with a model, a domain and an id below it
/// are not OSWorld's and are left out.
fn examples(folder: &Path) -> Vec<Example> {
    examples_up_to(folder, usize::MAX)
}

/// [`examples`], stopping once `most` are found: whether a folder is OSWorld's needs one, and
/// every loader asks it of every folder (and `watch` twice a second).
fn examples_up_to(folder: &Path, most: usize) -> Vec<Example> {
    fn walk(
        folder: &Path,
        depth: usize,
        most: usize,
        place_at: &dyn Fn(&Path) -> Option<Example>,
        found: &mut Vec<Example>,
    ) {
        if found.len() >= most {
            return;
        }
        if is_example(folder) {
            found.extend(place_at(folder));
            return;
        }
        if depth == 0 {
            return;
        }
        for child in super::subfolders(folder) {
            walk(&child, depth - 1, most, place_at, found);
        }
    }
    let base = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    let place_at = |example: &Path| {
        let relative = example.strip_prefix(folder).unwrap_or(example);
        place(&base.join(relative), folder.join(relative))
    };
    let mut found = Vec::new();
    walk(folder, EXAMPLE_DEPTH, most, &place_at, &mut found);
    found
}

/// An example folder's place in the layout, from its absolute path (`shown` is the path messages
/// use): the last observation-type level with at least a model, a domain and an id below it.
fn place(absolute: &Path, shown: PathBuf) -> Option<Example> {
    let names: Vec<String> = absolute
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let at = (1..names.len().saturating_sub(3))
        .rev()
        .find(|&i| is_observation(&names[i]))?;
    let (domain, id) = (&names[names.len() - 2], &names[names.len() - 1]);
    let mut model_levels = &names[at + 1..names.len() - 2];
    // WindowsAgentArena's run.py puts `--trial_id` (a number, "0" by default) between the model
    // and the domain: a run of the model, not a part of its name.
    let trial = match model_levels {
        [first, .., last]
            if is_windows_arena_id(id)
                && !first.is_empty()
                && !last.is_empty()
                && last.bytes().all(|b| b.is_ascii_digit()) =>
        {
            let trial = last.clone();
            model_levels = &model_levels[..model_levels.len() - 1];
            Some(trial)
        }
        _ => None,
    };
    let model = model_levels.join("/");
    let action_space = &names[at - 1];
    let root: PathBuf = absolute.components().take(at - 1).collect();
    Some(Example {
        root,
        system: format!("{model} ({action_space}, {})", names[at]),
        domain: domain.clone(),
        id: id.clone(),
        folder: shown,
        trial,
    })
}

/// The run of a system in result folder `root`: how many result folders beside it (in path order,
/// before it) hold the same system. Runs of one setting are result folders side by side.
fn run_of(root: &Path, system: &str) -> u32 {
    let Some(parent) = root.parent() else {
        return 0;
    };
    let mut run = 0;
    for sibling in super::subfolders(parent) {
        let sibling = std::fs::canonicalize(&sibling).unwrap_or(sibling);
        if sibling.as_path() >= root {
            break;
        }
        if observation_below(&sibling, 2)
            && examples(&sibling)
                .iter()
                .any(|example| example.system == system)
        {
            run += 1;
        }
    }
    run
}

/// Each WindowsAgentArena trial's run: a system's (result folder, trial) pairs numbered in order of
/// result folder, then trial number.
fn trial_runs(examples: &[Example]) -> std::collections::HashMap<(String, PathBuf, String), u32> {
    let mut trials: Vec<(String, PathBuf, u64, String)> = examples
        .iter()
        .filter_map(|e| {
            let trial = e.trial.clone()?;
            Some((
                e.system.clone(),
                e.root.clone(),
                trial.parse().unwrap_or(u64::MAX),
                trial,
            ))
        })
        .collect();
    trials.sort();
    trials.dedup();
    let mut runs = std::collections::HashMap::new();
    let mut next: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for (system, root, _, trial) in trials {
        let run = next.entry(system.clone()).or_insert(0);
        runs.insert((system, root, trial), *run);
        *run += 1;
    }
    runs
}

/// The score in a `result.txt`: a number in [0, 1], or `True`/`False`.
fn score(text: &str, file: &str) -> Result<f64, LoadError> {
    let value = text.trim();
    let score = match value {
        "True" => Some(1.0),
        "False" => Some(0.0),
        _ => value.parse::<f64>().ok(),
    };
    score
        .filter(|s| (0.0..=1.0).contains(s))
        .ok_or_else(|| {
            LoadError::new(
                file,
                format!(
                    "line 1: '{value}' is not a score (OSWorld writes a number in [0, 1], or True or False)"
                ),
            )
        })
}

/// The error a trajectory ends in (`{"Error": …}`, which the runner appends when an example fails
/// to finish), if any.
fn trajectory_error(folder: &Path) -> Option<String> {
    let text = std::fs::read_to_string(folder.join(TRAJECTORY)).ok()?;
    let last = text.lines().rev().find(|line| !line.trim().is_empty())?;
    let value: Value = serde_json::from_str(last).ok()?;
    let text = |value: &Value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    // WindowsAgentArena puts the exception's own message beside ("Exception in <domain>/<id>").
    value
        .get("Error")
        .map(|error| match value.get("Exception") {
            Some(exception) => format!("{}: {}", text(error), text(exception)),
            None => text(error),
        })
}

/// An OSWorld action timestamp (`%Y%m%d@%H%M%S`, local time, whole seconds; some runners add
/// microseconds) as seconds on a common scale: only differences of two are used.
fn action_seconds(stamp: &str) -> Option<f64> {
    let (date, time) = stamp.split_once('@')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if date.len() != 8 || time.len() < 6 || !digits(date) || !digits(time) {
        return None;
    }
    let fraction = if time.len() > 6 {
        format!(".{}", &time[6..])
    } else {
        String::new()
    };
    super::time::epoch_seconds(&format!(
        "{}-{}-{}T{}:{}:{}{fraction}",
        &date[..4],
        &date[4..6],
        &date[6..],
        &time[..2],
        &time[2..4],
        &time[4..6]
    ))
}

/// The seconds from an example's first action to its last, from the `action_timestamp` each
/// trajectory line carries (taken as the action starts): the agent's working time between them.
/// None without two readable timestamps. Err names the first line that cannot be read (not JSON,
/// or an `action_timestamp` that is no timestamp): the span would silently be another one (a
/// trajectory cut at line 9 of 16 gave 136 s for 253).
fn action_span(folder: &Path) -> Result<Option<f64>, String> {
    let Ok(bytes) = std::fs::read(folder.join(TRAJECTORY)) else {
        return Ok(None);
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(format!(
            "{}, which is not UTF-8 text",
            folder.join(TRAJECTORY).display()
        ));
    };
    let mut stamps = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let unreadable = || format!("{} line {}", folder.join(TRAJECTORY).display(), index + 1);
        let Ok(line) = serde_json::from_str::<Value>(line) else {
            return Err(unreadable());
        };
        // WindowsAgentArena's first line records the reset (step 0, no action), before the first
        // model call: not an action.
        if line.get("step_num") == Some(&Value::from(0)) && line.get("action") == Some(&Value::Null)
        {
            continue;
        }
        match line.get("action_timestamp") {
            None | Some(Value::Null) => {}
            Some(stamp) => match stamp.as_str().and_then(action_seconds) {
                Some(seconds) => stamps.push(seconds),
                None => return Err(unreadable()),
            },
        }
    }
    let first = stamps.iter().copied().reduce(f64::min);
    let last = stamps.iter().copied().reduce(f64::max);
    Ok(first
        .zip(last)
        .filter(|_| stamps.len() >= 2)
        .map(|(first, last)| last - first))
}

/// Every file whose change `watch` must see: the scores and trajectories of every example.
pub fn tracked_files(folder: &Path) -> Vec<PathBuf> {
    examples(folder)
        .iter()
        .flat_map(|example| [example.folder.join(SCORE), example.folder.join(TRAJECTORY)])
        .filter(|file| file.is_file())
        .collect()
}

/// The rows of an OSWorld result folder (or of any folder of its layout, or an example's file),
/// the bytes read (for the content hash) and the name messages use.
/// The tasks of a test set file (`{"<domain>": ["<example id>", …], …}`), as (domain, id) in the
/// file's order (an id listed twice under one domain once).
fn test_set(file: &str) -> Result<Vec<(String, String)>, LoadError> {
    let bytes = std::fs::read(file)
        .map_err(|e| LoadError::new(file, format!("cannot read the test set: {e}")))?;
    let (value, _) = super::json::parse_lenient(&bytes, file)?;
    let domains = value.as_object().ok_or_else(|| {
        LoadError::new(
            file,
            "an OSWorld test set is a JSON object of domains, each a list of example ids",
        )
    })?;
    let mut tasks = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (domain, ids) in domains {
        let ids = ids.as_array().ok_or_else(|| {
            LoadError::new(
                file,
                format!("domain '{domain}': a list of example ids, found {ids}"),
            )
        })?;
        for id in ids {
            let id = id.as_str().ok_or_else(|| {
                LoadError::new(file, format!("domain '{domain}': the id {id} is not text"))
            })?;
            if seen.insert((domain.clone(), id.to_string())) {
                tasks.push((domain.clone(), id.to_string()));
            }
        }
    }
    Ok(tasks)
}

pub fn results(
    path: &Path,
    test_set_file: Option<&str>,
) -> Result<(Imported, Vec<u8>, String), LoadError> {
    // An example's own result.txt or traj.jsonl is read as its folder.
    let path = match path.parent() {
        Some(folder) if path.is_file() && is_example(folder) => folder,
        _ => path,
    };
    let shown = path.display().to_string();
    let examples = examples(path);
    if examples.is_empty() {
        return Err(LoadError::new(
            &shown,
            "no OSWorld example folder here (<result_dir>/<action_space>/<observation_type>/<model>/<domain>/<example_id>/ with result.txt or traj.jsonl)",
        ));
    }
    let mut rows = Vec::with_capacity(examples.len());
    let mut bytes = Vec::new();
    let mut runs: std::collections::HashMap<(PathBuf, String), u32> =
        std::collections::HashMap::new();
    let (mut errors, mut unfinished, mut timed) = (Vec::new(), 0usize, 0usize);
    let mut untimed: Vec<String> = Vec::new();
    let trial_runs = trial_runs(&examples);
    for example in &examples {
        let run = match &example.trial {
            Some(trial) => trial_runs
                .get(&(example.system.clone(), example.root.clone(), trial.clone()))
                .copied()
                .unwrap_or_default(),
            None => *runs
                .entry((example.root.clone(), example.system.clone()))
                .or_insert_with(|| run_of(&example.root, &example.system)),
        };
        let score_file = example.folder.join(SCORE);
        bytes.extend_from_slice(example.folder.to_string_lossy().as_bytes());
        let (outcome, status, detail) = if score_file.is_file() {
            let file = score_file.display().to_string();
            let text = std::fs::read_to_string(&score_file)
                .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
            bytes.extend_from_slice(text.as_bytes());
            (Some(score(&text, &file)?), RowStatus::Ok, String::new())
        } else if let Some(error) = trajectory_error(&example.folder) {
            bytes.extend_from_slice(error.as_bytes());
            let detail = format!(", no {SCORE}: {error}");
            errors.push(error);
            (Some(0.0), RowStatus::Error, detail)
        } else {
            unfinished += 1;
            (None, RowStatus::NotAttempted, format!(", no {SCORE} yet"))
        };
        let seconds = match outcome.map(|_| action_span(&example.folder)) {
            Some(Ok(seconds)) => seconds,
            Some(Err(line)) => {
                untimed.push(line);
                None
            }
            None => None,
        };
        if let Some(seconds) = seconds {
            // The timestamps read are part of what the rows rest on.
            bytes.extend_from_slice(format!("{seconds}").as_bytes());
            timed += 1;
        }
        rows.push(CanonicalRow {
            system: example.system.clone(),
            task: format!("{}/{}", example.domain, example.id),
            run,
            outcome,
            status,
            group: Some(example.domain.clone()),
            cost_usd: None,
            seconds,
            source: match &example.trial {
                Some(trial) => format!(
                    "osworld {} (trial {trial}){detail}",
                    example.folder.display()
                ),
                None => format!("osworld {}{detail}", example.folder.display()),
            },
        });
    }
    let mut systems: Vec<&str> = examples.iter().map(|e| e.system.as_str()).collect();
    systems.sort_unstable();
    systems.dedup();
    let mut test_set_notes = Vec::new();
    if let Some(file) = test_set_file {
        let tasks = test_set(file)?;
        let listed: std::collections::HashSet<String> = tasks
            .iter()
            .map(|(domain, id)| format!("{domain}/{id}"))
            .collect();
        let outside = rows
            .iter()
            .filter(|row| !listed.contains(&row.task))
            .count();
        // Each system's runs, as the rows found them.
        let mut runs: Vec<(String, u32)> = rows.iter().map(|r| (r.system.clone(), r.run)).collect();
        runs.sort();
        runs.dedup();
        let present: std::collections::HashSet<(String, u32, String)> = rows
            .iter()
            .map(|r| (r.system.clone(), r.run, r.task.clone()))
            .collect();
        let mut unstarted = 0usize;
        for (system, run) in &runs {
            for (domain, id) in &tasks {
                let task = format!("{domain}/{id}");
                if present.contains(&(system.clone(), *run, task.clone())) {
                    continue;
                }
                unstarted += 1;
                rows.push(CanonicalRow {
                    system: system.clone(),
                    task,
                    run: *run,
                    outcome: None,
                    status: RowStatus::NotAttempted,
                    group: Some(domain.clone()),
                    cost_usd: None,
                    seconds: None,
                    source: format!("osworld test set {file}: no example folder"),
                });
            }
        }
        test_set_notes.push(format!(
            "{shown}: test set {file} ({}): {} of a system's run with no example folder (never started, or wiped by a resumed run): not attempted",
            counted(tasks.len(), "task", "tasks"),
            counted(unstarted, "task", "tasks")
        ));
        if outside > 0 {
            test_set_notes.push(format!(
                "{shown}: {} not in the test set {file}: read all the same",
                counted(outside, "example is", "examples are")
            ));
        }
    }
    let mut notes = vec![format!(
        "{shown}: OSWorld results, {} of {}; the outcome is result.txt's score (partial scores kept: OSWorld's success rate is their mean)",
        counted(examples.len(), "example folder", "example folders"),
        systems.join(", ")
    )];
    if examples.iter().any(|e| e.trial.is_some()) {
        notes.push(format!(
            "{shown}: WindowsAgentArena's layout (example ids ending in -WOS): the level between the model and the domain is run.py's --trial_id, read as the run (the system's trials, in order of result folder and trial number); its show_result.py counts a result.txt of False as 1.0 (float(bool(text))) and leaves errored examples out, where here False is 0 and an errored example 0 with status error (--exclude-errors leaves them out); WAA's start scripts never set --action_space or --observation_type, so those levels are run.py's defaults, not the agent's setting"
        ));
    }
    if let Some(first) = errors.first() {
        notes.push(format!(
            "{shown}: {} ended in an error with no {SCORE} (the first: {first}): 0, status error (show_result.py leaves them out; a success rate over the whole test set counts them as failed)",
            counted(errors.len(), "example", "examples")
        ));
    }
    if timed > 0 {
        notes.push(format!(
            "{shown}: seconds for {} of {}: from the first action's action_timestamp to the last one's (whole seconds); the runner's fixed waits (OSWorld's: 60 s before the first observation, 20 s before evaluating), the first model call, the last action and the evaluation are not in it, so seconds budgets rank examples by the agent's working time rather than measure all of it",
            counted(timed, "example", "examples"),
            examples.len()
        ));
    }
    if let Some(first) = untimed.first() {
        notes.push(format!(
            "{shown}: {} no seconds: its {TRAJECTORY} cannot be read whole (the first: {first}), so the span of its actions is unknown",
            counted(untimed.len(), "example has", "examples have")
        ));
    }
    if unfinished > 0 {
        notes.push(format!(
            "{shown}: {} neither {SCORE} nor an error (running, or the run stopped; a resumed run repeats them): not attempted",
            counted(unfinished, "example folder has", "example folders have")
        ));
    }
    notes.extend(test_set_notes);
    Ok((Imported::entries(rows, notes), bytes, shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_arenas_reset_line_is_not_an_action() {
        let folder = std::env::temp_dir().join(format!("pareval-waa-span-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("folder");
        let line = |step: u32, stamp: &str, action: &str| {
            format!(r#"{{"step_num": {step}, "action_timestamp": "{stamp}", "action": {action}}}"#)
        };
        let trajectory = [
            line(0, "20261206@050900", "null"),
            line(1, "20261206@050935", r#""click""#),
            line(2, "20261206@050937", r#""DONE""#),
        ]
        .join("\n");
        std::fs::write(folder.join(TRAJECTORY), trajectory).expect("write");
        assert_eq!(action_span(&folder), Ok(Some(2.0)));
        std::fs::remove_dir_all(&folder).expect("clean up");
        assert!(is_windows_arena_id(
            "02F10F89-7171-4D37-8550-A00BA8930CDF-WOS"
        ));
        assert!(is_windows_arena_id(
            "06fe7178-4491-4589-810f-2e2bc9502122-wos"
        ));
        assert!(!is_windows_arena_id("bb5e4c0d-f964-439c-97b6-bdb9747de3f4"));
        assert!(!is_windows_arena_id("x€€"));
    }

    #[test]
    fn action_timestamps_give_differences_across_midnight_and_with_microseconds() {
        let at = |s: &str| action_seconds(s);
        assert_eq!(
            at("20250205@000010")
                .zip(at("20250204@235950"))
                .map(|(b, a)| b - a),
            Some(20.0)
        );
        assert_eq!(
            at("20250301@000000")
                .zip(at("20250228@235959"))
                .map(|(b, a)| b - a),
            Some(1.0)
        );
        let fine = at("20250204@235950250000").zip(at("20250204@235950"));
        assert!(fine.is_some_and(|(b, a)| (b - a - 0.25).abs() < 1e-9));
        for bad in [
            "2025-02-04",
            "20250204@23595",
            "2025020@235950",
            "x0250204@235950",
            "",
        ] {
            assert_eq!(at(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn scores_are_numbers_in_the_unit_interval_or_booleans() {
        assert_eq!(score("0.0\n", "f").ok(), Some(0.0));
        assert_eq!(score("1\n", "f").ok(), Some(1.0));
        assert_eq!(score("0.5", "f").ok(), Some(0.5));
        assert_eq!(score("True\n", "f").ok(), Some(1.0));
        assert_eq!(score("False\n", "f").ok(), Some(0.0));
        for bad in ["None\n", "nan", "1.5", "-0.1", ""] {
            assert!(score(bad, "f").is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_layout_places_a_model_name_with_slashes() {
        let example = place(
            Path::new("/r/results/pyautogui/screenshot/ByteDance-Seed/UI-TARS-1.5-7B/chrome/abc"),
            PathBuf::from("shown"),
        )
        .expect("placed");
        assert_eq!(
            example.system,
            "ByteDance-Seed/UI-TARS-1.5-7B (pyautogui, screenshot)"
        );
        assert_eq!(
            (example.domain.as_str(), example.id.as_str()),
            ("chrome", "abc")
        );
        assert_eq!(example.root, Path::new("/r/results"));
        assert!(
            place(
                Path::new("/r/results/pyautogui/other/m/chrome/abc"),
                PathBuf::new()
            )
            .is_none()
        );
    }
}
