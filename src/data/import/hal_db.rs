//! HAL's leaderboard databases: the HAL frontend (hal-frontend, `preprocessed_traces/<benchmark>.db`)
//! keeps one SQLite file per benchmark whose table `parsed_results` has a row per run:
//! `agent_name`, `date`, `run_id`, `successful_tasks` and `failed_tasks` (Python-literal lists of task
//! ids, or the text `None` for a benchmark scored otherwise), `total_cost`, `accuracy` and other
//! scores. Read as follows:
//!
//! - system: `agent_name` (HAL's `Scaffold (Model (Month Year))`); run: an agent's runs in the order
//!   of their `date`, then `run_id` (HAL repeats a run under another run id).
//! - task: each listed id, outcome 1 in `successful_tasks`, 0 in `failed_tasks`; an id a run lists in
//!   neither has no row (nothing is imputed: the coverage views show it missing); an id in both is
//!   refused naming the run.
//! - runs without lists (only scores, e.g. ColBench's) are left out, noted; group: a SWE-bench id's
//!   repository, a USACO id's division; cost: only a run's `total_cost` exists, so none per task.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::openhands::swebench_repo;
use super::{CanonicalRow, Imported, RowStatus, counted};
use crate::data::error::LoadError;

/// The first 16 bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";
const TABLE: &str = "parsed_results";
/// USACO's divisions, the second part of its task ids (`1333_platinum_good_bitstrings`).
const USACO_DIVISIONS: [&str; 4] = ["bronze", "silver", "gold", "platinum"];

/// Whether a file is an SQLite database (by its first bytes, whatever its name).
pub fn is_database(path: &Path) -> bool {
    use std::io::Read;
    if !path.is_file() {
        return false;
    }
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut head))
        .is_ok_and(|()| &head == SQLITE_MAGIC)
}

/// What a database in a folder is: None when it is not HAL's (no `parsed_results` table, or not
/// readable: a folder leaves it out, as it leaves out any file that is not a result), else whether
/// its runs list their tasks (false for a benchmark scored otherwise, such as ColBench's frontend
/// design, every run's lists `None`: a folder leaves it out, noted).
pub fn lists_tasks(path: &Path) -> Option<bool> {
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .ok()?;
    let listed = |column: &str| {
        format!("coalesce(trim(cast({column} as text)), 'None') not in ('None', '')")
    };
    let query = format!(
        "select count(*) from {TABLE} where {} or {}",
        listed("successful_tasks"),
        listed("failed_tasks")
    );
    connection
        .query_row(&query, [], |row| row.get::<_, i64>(0))
        .ok()
        .map(|count| count > 0)
}

/// The items of a Python-literal list of task ids (`['a', "b", 3]`): quoted strings with Python's
/// backslash escapes, or bare numbers; None for the text `None`. Anything else is an error saying
/// what was found.
fn python_list(text: &str) -> Result<Option<Vec<String>>, String> {
    let text = text.trim();
    if text == "None" || text.is_empty() {
        return Ok(None);
    }
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| format!("not a list: '{}'", crate::format::shorten(text, 61)))?;
    let mut items = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        let item = if first == '\'' || first == '"' {
            chars.next();
            let mut item = String::new();
            loop {
                match chars.next() {
                    Some('\\') => match chars.next() {
                        Some('n') => item.push('\n'),
                        Some('t') => item.push('\t'),
                        Some(other) => item.push(other),
                        None => return Err("a list that ends inside a string".to_string()),
                    },
                    Some(c) if c == first => break,
                    Some(c) => item.push(c),
                    None => return Err("a list that ends inside a string".to_string()),
                }
            }
            item
        } else {
            let mut item = String::new();
            while let Some(c) = chars.next_if(|c| *c != ',' && !c.is_whitespace()) {
                item.push(c);
            }
            if item.parse::<f64>().is_err() {
                return Err(format!("'{item}' is neither a quoted id nor a number"));
            }
            item
        };
        items.push(item);
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        match chars.next() {
            Some(',') | None => {}
            Some(other) => return Err(format!("'{other}' where a comma belongs")),
        }
    }
    Ok(Some(items))
}

/// The group of a task id of a benchmark: a SWE-bench id's repository, a USACO id's division.
fn group_of(benchmark: &str, id: &str) -> Option<String> {
    if benchmark.starts_with("usaco") {
        return id
            .split('_')
            .nth(1)
            .filter(|part| USACO_DIVISIONS.contains(part))
            .map(str::to_string);
    }
    swebench_repo(id)
}

/// One run of `parsed_results`.
struct Run {
    agent: String,
    date: String,
    run_id: String,
    benchmark: String,
    successful: Option<Vec<String>>,
    failed: Option<Vec<String>>,
}

/// The rows of a HAL leaderboard database, the bytes read (for the content hash) and the name
/// messages use.
pub fn leaderboard(path: &Path) -> Result<(Imported, Vec<u8>, String), LoadError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| LoadError::new(&file, format!("cannot read the file: {e}")))?;
    let fail = |what: String| LoadError::new(&file, what);
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| fail(format!("cannot open the database: {e}")))?;
    let columns: Vec<String> = connection
        .prepare(&format!("pragma table_info({TABLE})"))
        .and_then(|mut statement| {
            statement
                .query_map([], |row| row.get::<_, String>(1))?
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| fail(format!("cannot read the database: {e}")))?;
    if columns.is_empty() {
        return Err(fail(format!(
            "an SQLite database without a {TABLE} table: pareval reads HAL's leaderboard databases (hal-frontend's preprocessed_traces/<benchmark>.db)"
        )));
    }
    let missing: Vec<&str> = ["agent_name", "run_id", "successful_tasks", "failed_tasks"]
        .into_iter()
        .filter(|c| !columns.iter().any(|have| have == c))
        .collect();
    if !missing.is_empty() {
        return Err(fail(format!(
            "table {TABLE} lacks {} (it has {})",
            missing.join(", "),
            columns.join(", ")
        )));
    }
    let optional = |column: &str| {
        if columns.iter().any(|have| have == column) {
            format!("cast({column} as text)")
        } else {
            "''".to_string()
        }
    };
    let query = format!(
        "select cast(agent_name as text), {}, cast(run_id as text), {}, cast(successful_tasks as text), cast(failed_tasks as text) from {TABLE} order by rowid",
        optional("date"),
        optional("benchmark_name"),
    );
    let raw: Vec<[Option<String>; 6]> = connection
        .prepare(&query)
        .and_then(|mut statement| {
            statement
                .query_map([], |row| {
                    Ok([
                        row.get(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                        row.get(5)?,
                    ])
                })?
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| fail(format!("cannot read table {TABLE}: {e}")))?;
    let mut runs = Vec::with_capacity(raw.len());
    for (index, [agent, date, run_id, benchmark, successful, failed]) in raw.into_iter().enumerate()
    {
        let run_id = run_id.unwrap_or_else(|| format!("row {}", index + 1));
        let agent = agent.filter(|a| !a.trim().is_empty()).ok_or_else(|| {
            fail(format!(
                "{TABLE} row {} (run {run_id}): no agent_name",
                index + 1
            ))
        })?;
        let list = |column: &str, text: Option<String>| {
            text.map_or(Ok(None), |text| python_list(&text))
                .map_err(|why| fail(format!("run {run_id}: {column}: {why}")))
        };
        runs.push(Run {
            agent,
            date: date.unwrap_or_default(),
            benchmark: benchmark.unwrap_or_default(),
            successful: list("successful_tasks", successful)?,
            failed: list("failed_tasks", failed)?,
            run_id,
        });
    }
    // An agent's runs in the order they were made.
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by(|&a, &b| {
        (&runs[a].agent, &runs[a].date, &runs[a].run_id).cmp(&(
            &runs[b].agent,
            &runs[b].date,
            &runs[b].run_id,
        ))
    });
    let mut next_run: HashMap<&str, u32> = HashMap::new();
    let mut rows = Vec::new();
    let mut unlisted = Vec::new();
    let mut read_runs = 0usize;
    for &at in &order {
        let run = &runs[at];
        if run.successful.is_none() && run.failed.is_none() {
            unlisted.push(run.run_id.as_str());
            continue;
        }
        read_runs += 1;
        let index = next_run.entry(run.agent.as_str()).or_insert(0);
        let mut seen: HashSet<&str> = HashSet::new();
        let lists = [(&run.successful, 1.0), (&run.failed, 0.0)];
        for (list, outcome) in lists {
            for id in list.iter().flatten() {
                if !seen.insert(id.as_str()) {
                    return Err(fail(format!(
                        "run {}: task '{id}' is listed twice (in successful_tasks and failed_tasks, or twice in one)",
                        run.run_id
                    )));
                }
                rows.push(CanonicalRow {
                    system: run.agent.clone(),
                    task: id.clone(),
                    run: *index,
                    outcome: Some(outcome),
                    status: RowStatus::Ok,
                    group: group_of(&run.benchmark, id),
                    cost_usd: None,
                    seconds: None,
                    source: format!("hal db {TABLE} run {}", run.run_id),
                });
            }
        }
        *index += 1;
    }
    let agents = next_run.len();
    let mut notes = vec![format!(
        "{file}: HAL leaderboard database ({TABLE}), {} of {}; tasks a run lists in neither successful_tasks nor failed_tasks have no row; HAL keeps each run's total_cost only, so no cost per task",
        counted(read_runs, "run", "runs"),
        counted(agents, "agent", "agents")
    )];
    if let Some(first) = unlisted.first() {
        notes.push(format!(
            "{file}: {} no per-task lists (successful_tasks and failed_tasks are None; the benchmark is scored otherwise), left out (the first: {first})",
            counted(unlisted.len(), "run has", "runs have")
        ));
    }
    if read_runs == 0 {
        return Err(fail(format!(
            "no run of table {TABLE} lists its tasks ({}; successful_tasks and failed_tasks are None: the benchmark is scored otherwise): nothing per task to read",
            counted(runs.len(), "run", "runs")
        )));
    }
    Ok((Imported::entries(rows, notes), bytes, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_lists_of_ids() {
        assert_eq!(
            python_list("['a__b-1', \"c'd\", 'e\\\\f']").ok(),
            Some(Some(vec![
                "a__b-1".to_string(),
                "c'd".to_string(),
                "e\\f".to_string()
            ]))
        );
        assert_eq!(python_list("[]").ok(), Some(Some(vec![])));
        assert_eq!(python_list("None").ok(), Some(None));
        assert_eq!(
            python_list("[1, 22]").ok(),
            Some(Some(vec!["1".to_string(), "22".to_string()]))
        );
        for bad in ["['a'", "['a' 'b']", "[abc]", "{'a': 1}"] {
            assert!(python_list(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn groups_by_benchmark() {
        assert_eq!(
            group_of("swebench_verified_mini", "django__django-11790").as_deref(),
            Some("django/django")
        );
        assert_eq!(
            group_of("usaco", "1333_platinum_good_bitstrings").as_deref(),
            Some("platinum")
        );
        assert_eq!(group_of("gaia", "0a3cd321"), None);
    }
}
