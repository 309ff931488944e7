//! The SWE-bench website's leaderboard file (`data/leaderboards.json` of SWE-bench/swe-bench.github.io,
//! what swebench.com draws): `{"leaderboards": [{"name": "bash-only", "results": [entry, …]}, …]}`.
//! An entry is one submission (`name`, `folder`, `date`, the headline `resolved` in percent, `tags`,
//! …); the entries SWE-bench ran itself with mini-SWE-agent also carry `per_instance_details`
//! (`{instance_id: {resolved, cost, api_calls}}`), the only per-task outcomes in the file. Read as the
//! website's own charts read it:
//!
//! - one board (`--split NAME`, any case; default the first board with per-instance results, with a
//!   note naming the others); its entries without per-instance results are named in a note, not read;
//! - system: `name`, or `name (folder)` when two entries of the board share a name; run 0;
//! - outcome: `resolved` true → 1, false → 0 (anything else is refused naming the entry and the
//!   instance); cost: `cost` (USD); group: the repository of the instance id;
//! - an entry whose per-instance results disagree with its headline by more than one instance, and a
//!   best-of-N entry (a `System: Attempts` tag other than 1), are read with a note saying so.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::openhands::swebench_repo;
use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// How many entries a note names before it counts the rest.
const NAMED: usize = 3;

/// Whether a parsed file is the website's leaderboard file.
pub fn looks_like(object: &Map<String, Value>) -> bool {
    object
        .get("leaderboards")
        .and_then(Value::as_array)
        .and_then(|boards| boards.first())
        .and_then(Value::as_object)
        .is_some_and(|board| board.contains_key("name") && board.contains_key("results"))
}

/// One board: its name and entries.
struct Board<'a> {
    name: &'a str,
    entries: &'a [Value],
}

impl Board<'_> {
    /// The entries with per-instance results.
    fn detailed(&self) -> impl Iterator<Item = &Value> {
        self.entries
            .iter()
            .filter(|entry| entry.get("per_instance_details").is_some())
    }
}

fn boards<'a>(value: &'a Value, file: &str) -> Result<Vec<Board<'a>>, LoadError> {
    let list = value
        .get("leaderboards")
        .and_then(Value::as_array)
        .ok_or_else(|| LoadError::new(file, "'leaderboards' is not a list of boards"))?;
    list.iter()
        .enumerate()
        .map(|(index, board)| {
            let name = board.get("name").and_then(Value::as_str);
            let entries = board.get("results").and_then(Value::as_array);
            match (name, entries) {
                (Some(name), Some(entries)) => Ok(Board { name, entries }),
                _ => Err(LoadError::new(
                    file,
                    format!("board {} has no 'name' and 'results' list", index + 1),
                )),
            }
        })
        .collect()
}

/// A text field of an entry, or "" when it has none.
fn text<'a>(entry: &'a Value, key: &str) -> &'a str {
    entry.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The board to read: the one `--split` names, else the first with per-instance results.
fn chosen<'a, 'b>(
    boards: &'b [Board<'a>],
    split: Option<&str>,
    file: &str,
    notes: &mut Vec<String>,
) -> Result<&'b Board<'a>, LoadError> {
    let detailed: Vec<&Board> = boards.iter().filter(|b| b.detailed().count() > 0).collect();
    let described = |boards: &[&Board]| {
        boards
            .iter()
            .map(|b| {
                format!(
                    "{} ({})",
                    b.name,
                    counted(b.detailed().count(), "entry", "entries")
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let per_instance = if detailed.is_empty() {
        "no board has per-instance results".to_string()
    } else {
        format!("boards with per-instance results: {}", described(&detailed))
    };
    if let Some(split) = split {
        let board = boards
            .iter()
            .find(|b| b.name.eq_ignore_ascii_case(split.trim()))
            .ok_or_else(|| {
                let names: Vec<&str> = boards.iter().map(|b| b.name).collect();
                LoadError::new(
                    file,
                    format!(
                        "--split '{split}': the file has no such board (its boards: {})",
                        names.join(", ")
                    ),
                )
            })?;
        if board.detailed().count() == 0 {
            return Err(LoadError::new(
                file,
                format!(
                    "board '{}' holds headline scores only, no per-instance results ({per_instance})",
                    board.name
                ),
            ));
        }
        return Ok(board);
    }
    let Some(first) = detailed.first() else {
        return Err(LoadError::new(
            file,
            "no entry of any board has per_instance_details: the file holds headline scores only, and pareval needs each instance's outcome",
        ));
    };
    if detailed.len() > 1 {
        notes.push(format!(
            "{file}: read board '{}'; {per_instance} (--split NAME reads another)",
            first.name
        ));
    }
    Ok(first)
}

/// The system of each entry with per-instance results, by its index in the board: its name, or
/// `name (folder)` when another such entry has the same name.
fn systems(board: &Board, file: &str, notes: &mut Vec<String>) -> BTreeMap<usize, String> {
    let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, entry) in board.entries.iter().enumerate() {
        if entry.get("per_instance_details").is_some() {
            by_name.entry(text(entry, "name")).or_default().push(index);
        }
    }
    let mut systems = BTreeMap::new();
    for (name, indices) in by_name {
        let shared = indices.len() > 1;
        for index in indices {
            let entry = &board.entries[index];
            let folder = text(entry, "folder");
            let system = match (name, shared) {
                ("", _) if !folder.is_empty() => folder.to_string(),
                ("", _) => format!("entry {}", index + 1),
                (name, true) if !folder.is_empty() => format!("{name} ({folder})"),
                (name, true) => format!("{name} (entry {})", index + 1),
                (name, false) => name.to_string(),
            };
            if shared {
                notes.push(format!(
                    "{file}: board '{}' has {} entries named '{name}'; this one is '{system}'",
                    board.name,
                    board.detailed().filter(|e| text(e, "name") == name).count()
                ));
            }
            systems.insert(index, system);
        }
    }
    systems
}

/// The rows of one entry's per-instance results, and its notes.
fn entry_rows(
    entry: &Value,
    board: &str,
    system: &str,
    file: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<CanonicalRow>, LoadError> {
    let details = entry
        .get("per_instance_details")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            LoadError::new(
                file,
                format!("board '{board}', entry '{system}': per_instance_details is not an object of instances"),
            )
        })?;
    let folder = text(entry, "folder");
    let mut rows = Vec::with_capacity(details.len());
    for (instance, detail) in details {
        let resolved = match detail.get("resolved") {
            Some(Value::Bool(resolved)) => *resolved,
            other => {
                return Err(LoadError::new(
                    file,
                    format!(
                        "board '{board}', entry '{system}', instance '{instance}': 'resolved' is {}, not true or false",
                        other.map_or("missing".to_string(), Value::to_string)
                    ),
                ));
            }
        };
        let cost = match detail.get("cost") {
            None | Some(Value::Null) => None,
            Some(Value::Number(cost)) => cost.as_f64(),
            Some(other) => {
                return Err(LoadError::new(
                    file,
                    format!(
                        "board '{board}', entry '{system}', instance '{instance}': 'cost' is {other}, not a number"
                    ),
                ));
            }
        };
        rows.push(CanonicalRow {
            system: system.to_string(),
            task: instance.clone(),
            run: 0,
            outcome: Some(if resolved { 1.0 } else { 0.0 }),
            status: RowStatus::Ok,
            group: swebench_repo(instance),
            cost_usd: cost,
            seconds: None,
            source: format!("swebench-leaderboard {board}: {folder}"),
        });
    }
    let resolved = rows.iter().filter(|r| r.outcome == Some(1.0)).count();
    if let Some(headline) = entry.get("resolved").and_then(Value::as_f64) {
        let expected = headline / 100.0 * rows.len() as f64;
        if (resolved as f64 - expected).abs() > 1.0 {
            notes.push(format!(
                "{file}: board '{board}', entry '{system}': its per-instance results resolve {resolved} of {} ({:.1}%), its headline says {headline}%; read as listed",
                rows.len(),
                100.0 * resolved as f64 / rows.len().max(1) as f64
            ));
        }
    }
    let attempts = entry
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find_map(|tag| tag.strip_prefix("System: Attempts - "));
    if let Some(attempts) = attempts.filter(|a| a.trim() != "1") {
        notes.push(format!(
            "{file}: board '{board}', entry '{system}' is tagged 'System: Attempts - {attempts}': a best-of-N (pass@k) submission, whose outcome per instance is the best of several attempts, not one run"
        ));
    }
    Ok(rows)
}

/// The rows of one board of the leaderboard file.
pub fn results(value: &Value, file: &str, split: Option<&str>) -> Result<Imported, LoadError> {
    let boards = boards(value, file)?;
    let mut notes = Vec::new();
    let board = chosen(&boards, split, file, &mut notes)?;
    let headline_only: Vec<&str> = board
        .entries
        .iter()
        .filter(|entry| entry.get("per_instance_details").is_none())
        .map(|entry| text(entry, "name"))
        .collect();
    if !headline_only.is_empty() {
        let mut names: Vec<String> = headline_only
            .iter()
            .take(NAMED)
            .map(|name| format!("'{name}'"))
            .collect();
        if headline_only.len() > NAMED {
            names.push(format!("… and {} more", headline_only.len() - NAMED));
        }
        notes.push(format!(
            "{file}: board '{}': {} with a headline score only (no per-instance results) not read: {}",
            board.name,
            counted(headline_only.len(), "entry", "entries"),
            names.join(", ")
        ));
    }
    let systems = systems(board, file, &mut notes);
    let mut rows = Vec::new();
    for (index, system) in &systems {
        rows.extend(entry_rows(
            &board.entries[*index],
            board.name,
            system,
            file,
            &mut notes,
        )?);
    }
    Ok(Imported::entries(rows, notes))
}
