//! From checked rows to a [`Dataset`]: duplicate keys, groups that change within a task, system
//! attributes, the task and system side tables, run averaging and the system-coverage filter. Every
//! check that needs more than one row lives here; per-value checks live in `records`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::columns;
use super::error::{LoadError, Offenders, quote};
pub use super::options::LoadOptions;
use super::read::{RawTable, read_live_table, read_table};
use super::records::{Rows, Status, TextColumn};
use crate::dataset::{Dataset, GroupColumn, InputFile, NO_GROUP, SystemInfo, no_group_label};

/// A file's name without its extensions (`gaia.csv.gz` → `gaia`), as its benchmark's name.
fn benchmark_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.split('.')
        .next()
        .filter(|stem| !stem.is_empty())
        .unwrap_or(&name)
        .to_string()
}

/// How many files of one format the notes name "read as …" before counting the rest.
const READ_AS_NAMED: usize = 3;

/// Reads, checks and assembles record files into one dataset.
pub fn load(paths: &[PathBuf], options: &LoadOptions) -> Result<Dataset, LoadError> {
    if paths.is_empty() {
        return Err(LoadError::new("input", "no record files given"));
    }
    if let Some(fraction) = options.min_system_coverage
        && !(0.0..=1.0).contains(&fraction)
    {
        return Err(LoadError::new(
            "options",
            format!("--min-system-coverage '{fraction}' must be in [0, 1]"),
        ));
    }
    for name in &options.ignore_columns {
        if [columns::SYSTEM, columns::TASK, columns::OUTCOME].contains(&name.as_str()) {
            return Err(LoadError::new(
                "options",
                format!("--ignore-col '{name}': a required column cannot be left out"),
            ));
        }
    }
    // A folder of result files (a log folder, an eval set) is its files, as `watch` follows them.
    let mut notes = Vec::new();
    for folder in paths {
        if folder.is_dir() && !super::import::is_run_folder(folder) {
            notes.extend(super::import::unread_subfolder_notes(folder));
        }
    }
    let paths = &super::import::expand_paths(paths)?;
    refuse_a_file_given_twice(paths)?;
    // The importers mark the format choices they read: one given and never read is noted below.
    let choices_read = std::cell::Cell::new(0u8);
    let settings = super::import::ImportSettings {
        read: Some(&choices_read),
        ..options.import_settings()
    };
    let mut rows = Rows::default();
    // Per file read (as `rows.files`), whether an importer read it.
    let mut imported: Vec<bool> = Vec::new();
    let mut inspect_logs = 0;
    // Per file read (as `rows.files`), whether it was a Harbor job or trial: a collision between
    // two of them gets a hint.
    let mut harbor: Vec<bool> = Vec::new();
    let mut read_as: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    // Each harness file's bytes and systems, and its name: a copy is refused.
    let mut harness_files: HashMap<(String, Vec<String>), String> = HashMap::new();
    for path in paths {
        super::import::refuse_lfs_pointer(path)?;
        let file_benchmark = options.benchmark_per_file.then(|| benchmark_name(path));
        let native = if options.from.is_some() || super::import::may_be_native(path) {
            super::import::read_native(path, options.from, &settings)?
        } else {
            None
        };
        let read_by_importer = native.is_some();
        let read_as_harbor = native
            .as_ref()
            .is_some_and(|(_, format, _)| *format == super::import::ImportFormat::Harbor);
        // A Terminal-Bench results.json carries its run's id: the same bytes are the same run.
        let run_with_id = native
            .as_ref()
            .is_some_and(|(_, format, _)| *format == super::import::ImportFormat::TerminalBench);
        let table = match native {
            Some((table, format, import_notes)) => {
                inspect_logs += usize::from(format == super::import::ImportFormat::Inspect);
                let read = read_as.entry(format.name()).or_insert(0);
                *read += 1;
                // A suite of hundreds of run folders is named three times, then counted.
                if *read <= READ_AS_NAMED {
                    notes.push(format!(
                        "{}: read as {} {}",
                        table.file,
                        format.name(),
                        if options.from.is_some() {
                            "(--from)"
                        } else if path.is_dir() {
                            // A run folder (aider, OSWorld, HELM, Harbor, …) is told by its layout.
                            "(recognised by its layout)"
                        } else {
                            "(recognised by its keys)"
                        }
                    ));
                }
                // One note for what several files of one run folder each say in the same words.
                for note in import_notes {
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
                table
            }
            None => {
                let table = if options.live {
                    let (table, unfinished) = read_live_table(
                        path,
                        options.set_aside_last_line_of.as_deref() == Some(path.as_path()),
                    )?;
                    notes.extend(unfinished);
                    // A file a run has created and not written yet.
                    let Some(table) = table else {
                        continue;
                    };
                    table
                } else {
                    read_table(path)?
                };
                if let Some(name) = &options.system_name {
                    notes.push(format!(
                        "{}: --system-name names every row's system '{name}'",
                        table.file
                    ));
                }
                table
            }
        };
        if run_with_id {
            refuse_a_copy(&table, &mut harness_files)?;
        }
        // Beside `rows.files`, one entry a table read (a file with no rows yet adds none).
        imported.push(read_by_importer);
        harbor.push(read_as_harbor);
        rows.add_table(table, options, file_benchmark.as_deref())?;
    }
    // A choice no importer read (a --split given to tau2, a mistyped --metric for a format
    // without metrics, any of them for record tables) changed nothing: said, in every command.
    let given = [
        options.split.is_some(),
        options.filter.is_some(),
        options.scorer.is_some(),
        options.score_scale.is_some(),
        options.score_key.is_some(),
        options.metric.is_some(),
        options.aider_tries.is_some(),
    ];
    let by = match read_as.keys().copied().collect::<Vec<_>>().as_slice() {
        [] => ": no file here is read through an importer, so it changed nothing".to_string(),
        [one] => format!(" by the {one} importer: it changed nothing"),
        many => format!(" by the {} importers: it changed nothing", many.join(", ")),
    };
    for flag in settings.unread(given) {
        notes.push(format!("{flag} is not read{by}"));
    }
    for (format, &read) in &read_as {
        if read > READ_AS_NAMED {
            notes.push(format!(
                "… and {} more files read as {format}",
                read - READ_AS_NAMED
            ));
        }
    }
    assemble(rows, &imported, &harbor, options, notes).map_err(|mut error| {
        // Inspect sample ids are unique only within a task: logs of several tasks repeat them.
        let collision = error.message.starts_with("duplicate (system, task, run) keys")
            || error.message.contains("a task's group must be the same on every row");
        if inspect_logs > 1
            && collision
            && options.inspect_task_key != super::import::InspectTaskKey::TaskId
        {
            error.message.push_str(
                " (Inspect logs of different tasks repeat sample ids, and --inspect-task-key task-id keys them <task>/<sample id>; two logs of one task and model are two evals of it, to be read one at a time)",
            );
        }
        // HAL keeps one leaderboard database per benchmark, and benchmarks share task ids ('5').
        if read_as.get("hal").is_some_and(|&files| files > 1)
            && collision
            && !options.benchmark_per_file
        {
            error.message.push_str(
                " (HAL's leaderboard databases are one benchmark each and benchmarks repeat task ids: --benchmark-per-file keys each file's tasks by its benchmark)",
            );
        }
        if read_as.get("deepeval").is_some_and(|&runs| runs > 1) && collision {
            error.message.push_str(
                " (two DeepEval test runs of one system are two runs of it: give their results folder, which numbers them in time order)",
            );
        }
        if read_as.get("openai-evals").is_some_and(|&runs| runs > 1) && collision {
            error.message.push_str(
                " (two OpenAI Evals logs of one completion function on one eval are two runs of it: give their folder, which numbers them by the spec's created_at)",
            );
        }
        if read_as.get("swebench").is_some_and(|&reports| reports > 1) && collision {
            error.message.push_str(
                " (a SWE-bench run report stores no system name, so reports in folders of one name (two runs' `output/final_report.json`) name one system: give each run's folder its own name, or import each with --system-name and read the CSVs together)",
            );
        }
        // BigCodeBench names its files `<model>--<revision>--bigcodebench-<subset><split>--…`, one per
        // split, subset and calibration, all naming the model alike.
        if read_as.get("bigcodebench").is_some_and(|&files| files > 1) && collision {
            error.message.push_str(
                " (BigCodeBench writes a file per model and split (complete, instruct), subset (full, hard) and calibration, each naming the model alike: read one split's files at a time, or import each with --system-name and read the CSVs together)",
            );
        }
        if read_as.get("helm").is_some_and(|&runs| runs > 1) && collision {
            error.message.push_str(
                " (two HELM runs of one model on one scenario, a rerun or the same run in two suites, are two evaluations of it: read them one at a time)",
            );
        }
        error
    })
}

/// The message context for checks across rows: the one file, or "input" when several were read.
fn context(rows: &Rows) -> String {
    if rows.files.len() == 1 {
        rows.files[0].clone()
    } else {
        "input".to_string()
    }
}

fn assemble(
    mut rows: Rows,
    imported: &[bool],
    harbor: &[bool],
    options: &LoadOptions,
    mut notes: Vec<String>,
) -> Result<Dataset, LoadError> {
    notes.append(&mut rows.notes);
    // A `--col` source no file has is skipped file by file where the file has the target column
    // (files may spell a column differently), but in no file at all it is a typo.
    if let Some((target, source)) = options
        .columns
        .renames()
        .find(|(_, source)| !rows.col_sources_found.contains(*source))
        && let Some((file, columns)) = &rows.first_columns
    {
        return Err(LoadError::new(
            file,
            format!(
                "--col {target}={source}: no record file has a column '{source}' (this one's columns: {columns})"
            ),
        ));
    }
    for name in &options.ignore_columns {
        if !rows.ignored_found.contains(name) {
            notes.push(format!(
                "--ignore-col '{name}': no file has this column, so nothing was left out"
            ));
        }
    }
    let context = context(&rows);
    let placeholders_filled = check_duplicates(&rows, imported, harbor, &context, &mut notes)?;
    notes.extend(names_apart_only_by_spaces(&rows.systems.names, "systems"));
    // Task ids too: " t1" and "t1" are two tasks, so two systems that ran one task share none of
    // it (info said 3 tasks and a median of 1 shared, without a word).
    // (Distinct ids: one id in two benchmarks is two tasks that print apart.)
    let task_ids: Vec<String> = rows
        .task_names
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .cloned()
        .collect();
    notes.extend(names_apart_only_by_spaces(&task_ids, "tasks"));
    notes.extend(super::hold_runs::hold_short_tasks(&mut rows, &options.runs));
    let n_sys = rows.systems.len();
    let n_tasks = rows.task_names.len();

    let mut attributes: Vec<(String, Vec<Option<String>>)> = Vec::new();
    let mut unused_columns = Vec::new();
    for (name, column) in &rows.attributes {
        match per_task(&rows, column, n_tasks) {
            Ok(values) => {
                // Said of every column some file lacks and that reads as a group column (its
                // values constant per task among the files that have it).
                if let Some(&file) = column.absent_in.first()
                    && values.iter().any(Option::is_some)
                {
                    let lacking = column.absent_in.len();
                    notes.push(format!(
                        "{} has no column '{name}'{}: {} read from the files that have it",
                        rows.files[file as usize],
                        if lacking > 1 {
                            format!(" (nor have {} more files)", lacking - 1)
                        } else {
                            String::new()
                        },
                        if name == columns::GROUP {
                            "the tasks' groups are".to_string()
                        } else {
                            format!("the tasks' values of '{name}' (a group column) are")
                        }
                    ));
                }
                attributes.push((name.clone(), values))
            }
            Err((task, first, second)) if name == columns::GROUP => {
                return Err(group_conflict(&rows, column, &context, task, first, second));
            }
            Err(_) => unused_columns.push(name.clone()),
        }
    }
    let mut systems = system_infos(&rows, &placeholders_filled, &context, &mut notes)?;
    if let Some(path) = &options.task_table {
        join_task_table(&rows, path, options, &mut attributes, &mut notes)?;
    }
    if let Some(path) = &options.system_table {
        join_system_table(path, options, &mut systems, &mut notes)?;
    }

    let averages = average_runs(&rows, options.exclude_errors, n_sys, n_tasks);
    if options.exclude_errors {
        let excluded: usize = systems.iter().map(|s| s.errored).sum();
        notes.push(format!(
            "{excluded} errored runs left out of the averages (--exclude-errors)"
        ));
    }
    let mut group_columns: Vec<GroupColumn> = attributes
        .into_iter()
        .filter(|(_, values)| values.iter().any(Option::is_some))
        .map(|(name, values)| group_column(name, &values))
        .collect();
    for column in &group_columns {
        let no_value = column.labels.last().filter(|l| l.starts_with("(no value"));
        if let (Some(label), true) = (no_value, column.labels.iter().any(|l| l == NO_GROUP)) {
            notes.push(format!(
                "group column '{}': '{NO_GROUP}' is one of its values, so the tasks with no value \
                 there form the group '{label}'",
                column.name
            ));
        }
    }
    if rows.benchmarks.len() > 1 && group_columns.iter().all(|c| c.name != columns::BENCHMARK) {
        let values: Vec<Option<String>> = rows
            .task_benchmark
            .iter()
            .map(|&b| Some(rows.benchmarks.names[b as usize].clone()))
            .collect();
        group_columns.push(group_column(columns::BENCHMARK.to_string(), &values));
    }

    let mut dataset = Dataset {
        systems,
        tasks: rows.task_names.clone(),
        benchmarks: rows.benchmarks.names.clone(),
        task_benchmark: rows.task_benchmark.clone(),
        outcome: averages.outcome,
        runs: averages.runs,
        cost: rows.has_cost.then_some(averages.cost),
        seconds: rows.has_seconds.then_some(averages.seconds),
        group_columns,
        inputs: input_files(&rows),
        n_rows: rows.len(),
        cost_rows: rows.cost.iter().filter(|x| !x.is_nan()).count(),
        seconds_rows: rows.seconds.iter().filter(|x| !x.is_nan()).count(),
        min_shared: options.min_shared,
        unused_columns,
        notes,
        early: None,
        task_origins: options
            .task_origins
            .as_deref()
            .map(|systems| first_rows_of_tasks(&rows, imported, systems))
            .unwrap_or_default(),
    };
    if let Some(fraction) = options.min_system_coverage {
        drop_low_coverage(&mut dataset, fraction);
    }
    if options.min_shared > 1 {
        // Out of the pairs that share a task at all: two systems with no task in common were never
        // a pair (a system with no outcome counted as 8 pairs left out).
        let n = dataset.n_systems();
        let shared = dataset.shared_counts();
        let all = (0..n * n)
            .filter(|&i| i / n != i % n && shared[i] > 0)
            .count();
        let kept = dataset.directed_pairs().len();
        dataset.notes.push(format!(
            "{} of {all} directed pairs left out for sharing fewer than {} tasks (--min-shared)",
            all - kept,
            options.min_shared
        ));
    }
    if !options.keep_groups.is_empty() {
        dataset = keep_groups(dataset, &options.keep_groups)?;
    }
    Ok(dataset)
}

/// The record restricted to the tasks of some groups (`--keep-groups COLUMN=LABEL[,LABEL…]`, as
/// the explorer's group filter restricts it): the labels named for one column are kept together,
/// and several columns must all hold. A value that is a label as a whole (commas and all) is that
/// label; otherwise it is a comma-separated list of labels.
fn keep_groups(dataset: Dataset, specs: &[String]) -> Result<Dataset, LoadError> {
    let refuse = |message: String| LoadError::new("options", format!("--keep-groups: {message}"));
    let mut wanted: Vec<(usize, Vec<u32>)> = Vec::new();
    for spec in specs {
        let Some((name, value)) = spec.split_once('=') else {
            return Err(refuse(format!(
                "'{spec}' is not COLUMN=LABEL (e.g. group=django)"
            )));
        };
        let Some(at) = dataset.group_columns.iter().position(|c| c.name == name) else {
            let names: Vec<&str> = dataset
                .group_columns
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            return Err(refuse(format!(
                "'{name}' is not a group column of the record (its group columns: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        };
        let column = &dataset.group_columns[at];
        let labels: Vec<&str> = if column.labels.iter().any(|l| l == value) {
            vec![value]
        } else {
            value.split(',').map(str::trim).collect()
        };
        let mut indices = Vec::new();
        for label in labels {
            let Some(index) = column.labels.iter().position(|l| l == label) else {
                return Err(refuse(format!(
                    "column '{name}' has no group '{label}' (its groups: {})",
                    column.labels.join(", ")
                )));
            };
            indices.push(index as u32);
        }
        match wanted.iter_mut().find(|(column, _)| *column == at) {
            Some((_, kept)) => kept.extend(indices),
            None => wanted.push((at, indices)),
        }
    }
    // Said as the flag reads: a column's labels together, the columns joined by "and".
    let described = wanted
        .iter()
        .map(|(at, kept)| {
            let column = &dataset.group_columns[*at];
            let labels: Vec<&str> = kept
                .iter()
                .map(|&i| column.labels[i as usize].as_str())
                .collect();
            format!("{}={}", column.name, labels.join(","))
        })
        .collect::<Vec<_>>()
        .join(" and ");
    let keep: Vec<bool> = (0..dataset.n_tasks())
        .map(|t| {
            wanted
                .iter()
                .all(|(at, kept)| kept.contains(&dataset.group_columns[*at].of_task[t]))
        })
        .collect();
    let kept = keep.iter().filter(|&&k| k).count();
    if kept == 0 {
        return Err(refuse(format!("no task is in {described}")));
    }
    let mut restricted = dataset.restrict_tasks(&keep);
    restricted.notes.push(format!(
        "kept the {kept} of {} tasks in {} (--keep-groups)",
        dataset.n_tasks(),
        described
    ));
    Ok(restricted)
}

fn input_files(rows: &Rows) -> Vec<InputFile> {
    let mut counts = vec![0; rows.files.len()];
    for &(file, _) in &rows.origin {
        counts[file as usize] += 1;
    }
    rows.files
        .iter()
        .zip(&rows.hashes)
        .zip(counts)
        .map(|((path, sha256), rows)| InputFile {
            path: path.clone(),
            rows,
            sha256: sha256.clone(),
        })
        .collect()
}

/// Where each task's first row with an outcome stands (else its first row), by task name, among
/// the rows of `systems` (all when empty): "file line N" where a row has a line (a record table's,
/// or a harness file's read line by line), "file record N" for an element of a JSON record file,
/// and the row's `source` for a row an importer gathered from several files or elements (its
/// "record N" counts the importer's rows, which no file holds).
fn first_rows_of_tasks(
    rows: &Rows,
    imported: &[bool],
    systems: &[String],
) -> HashMap<String, String> {
    let wanted: Vec<bool> = rows
        .systems
        .names
        .iter()
        .map(|name| systems.is_empty() || systems.contains(name))
        .collect();
    let mut first: Vec<Option<usize>> = vec![None; rows.task_names.len()];
    for (row, &task) in rows.task.iter().enumerate() {
        if !wanted[rows.system[row] as usize] {
            continue;
        }
        let slot = &mut first[task as usize];
        let better = match *slot {
            None => true,
            Some(earlier) => rows.outcome[earlier].is_nan() && !rows.outcome[row].is_nan(),
        };
        if better {
            *slot = Some(row);
        }
    }
    let source = rows.source.as_ref();
    let mut origins = HashMap::new();
    for (task, row) in first.into_iter().enumerate() {
        let Some(row) = row else {
            continue;
        };
        let (file, pos) = rows.origin[row];
        let name = &rows.files[file as usize];
        let gathered = imported.get(file as usize).copied().unwrap_or(false)
            && !matches!(pos, super::error::Pos::Line(_));
        let told = source.filter(|_| gathered).and_then(|column| {
            // `get`: a row added after the files were read (none today) has no source.
            let value = column.values.get(row).copied().flatten()?;
            Some(format!("{name}: {}", column.dict.names[value as usize]))
        });
        origins
            .entry(rows.task_names[task].clone())
            .or_insert_with(|| told.unwrap_or_else(|| format!("{name} {pos}")));
    }
    origins
}

/// A note for systems (or tasks) whose names differ only in spaces at their ends ("A" and "A "):
/// they are read as the two the files name, but print alike, so the note says which they are.
fn names_apart_only_by_spaces(names: &[String], what: &str) -> Option<String> {
    let mut by_trimmed: HashMap<&str, Vec<&str>> = HashMap::new();
    for name in names {
        by_trimmed.entry(name.trim()).or_default().push(name);
    }
    let mut alike: Vec<String> = by_trimmed
        .into_values()
        .filter(|group| group.len() > 1)
        .map(|group| {
            let quoted: Vec<String> = group.iter().map(|n| format!("{n:?}")).collect();
            quoted.join(" and ")
        })
        .collect();
    if alike.is_empty() {
        return None;
    }
    alike.sort();
    // A handful named, then counted (a file whose every task id has a trailing space).
    let count = alike.len();
    alike.truncate(5);
    let more = if count > 5 {
        format!(" and {} more", count - 5)
    } else {
        String::new()
    };
    Some(format!(
        "{what} whose names differ only in spaces at their ends are read as different {what}: {}{more} (if they are one, correct the names in the files)",
        alike.join("; ")
    ))
}

/// Refuses a run's file that holds the same bytes as one read before and names the same systems:
/// for a format whose file carries its run's id (Terminal-Bench's results.json), a copy of one run
/// (a run folder copied beside its original) was numbered as another run of its system, its every
/// row counted twice. Copies read as other systems (named after their folders) are read. Other
/// formats are left alone: a deterministic harness run again may write the same bytes.
fn refuse_a_copy(
    table: &RawTable,
    seen: &mut HashMap<(String, Vec<String>), String>,
) -> Result<(), LoadError> {
    if table.frame.height() == 0 {
        return Ok(());
    }
    let mut systems: Vec<String> = table
        .frame
        .column(columns::SYSTEM)
        .ok()
        .and_then(|column| column.str().ok().cloned())
        .map(|names| names.iter().flatten().map(str::to_string).collect())
        .unwrap_or_default();
    systems.sort_unstable();
    systems.dedup();
    match seen.entry((table.sha256.clone(), systems)) {
        std::collections::hash_map::Entry::Occupied(earlier) => Err(LoadError::new(
            &table.file,
            format!(
                "holds the same bytes as {}, for the same systems, its run id included: a copy of one run would count its every row twice (as a second run); read one of them",
                earlier.get()
            ),
        )),
        std::collections::hash_map::Entry::Vacant(slot) => {
            slot.insert(table.file.clone());
            Ok(())
        }
    }
}

/// Refuses a file read twice (named twice, or named beside a folder that holds it): its every row
/// was a duplicate key, and the message's hints were about harnesses' folder names.
fn refuse_a_file_given_twice(paths: &[PathBuf]) -> Result<(), LoadError> {
    let mut seen: HashMap<PathBuf, &PathBuf> = HashMap::with_capacity(paths.len());
    for path in paths {
        let Ok(whole) = path.canonicalize() else {
            continue;
        };
        if let Some(earlier) = seen.insert(whole, path) {
            let also = if earlier == path {
                String::new()
            } else {
                format!(" (as {})", earlier.display())
            };
            return Err(LoadError::new(
                path.display().to_string(),
                format!(
                    "the file is read twice{also} (named twice, or named beside a folder that holds it): each file is read once; name it once"
                ),
            ));
        }
    }
    Ok(())
}

/// What a key collision between two Harbor reads says.
const HARBOR_COLLISION: &str = " (Harbor names a system agent__model: a job's trials given one by one, or beside their job's folder, are each read alone, so give the job's folder alone, which numbers their attempts; two jobs of one agent and model, a rerun in a new job folder or jobs on datasets that share task names, name one system: read them one at a time, or import each with --system-name and read the CSVs together)";

/// Refuses two rows of one (system, task, run) key, but for rows with status `not_attempted` in a
/// record table: a harness may list its runs as not attempted and append each one's row as it
/// ends (watch reads such a file as it grows), so such a row is a placeholder that another row of
/// its key fills. It carries no outcome either way; the note counts them. An importer's rows not
/// attempted (an Inspect log's samples pareval stopped) are no placeholders: another eval's rows
/// for them are another evaluation, refused as before. Returns which rows are filled placeholders.
fn check_duplicates(
    rows: &Rows,
    imported: &[bool],
    harbor: &[bool],
    context: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<bool>, LoadError> {
    let placeholder = |row: usize| {
        rows.status[row] == Status::NotAttempted
            && !imported
                .get(rows.origin[row].0 as usize)
                .copied()
                .unwrap_or(false)
    };
    let mut first_row: HashMap<(u32, u32, u32), usize> = HashMap::with_capacity(rows.len());
    let mut bad = Offenders::default();
    let from_harbor = |row: usize| {
        harbor
            .get(rows.origin[row].0 as usize)
            .copied()
            .unwrap_or(false)
    };
    // Whether some key collides between two Harbor reads (any, not only those quoted).
    let mut between_harbor_reads = false;
    for row in 0..rows.len() {
        if placeholder(row) {
            continue;
        }
        let key = (rows.system[row], rows.task[row], rows.run[row]);
        if let Some(&earlier) = first_row.get(&key) {
            between_harbor_reads |= from_harbor(earlier) && from_harbor(row);
            bad.push(|| {
                format!(
                    "({}, {}, run {}) on {} and {}",
                    quote(&rows.systems.names[key.0 as usize]),
                    quote(&rows.task_names[key.1 as usize]),
                    key.2,
                    rows.place(earlier, context),
                    rows.place(row, context)
                )
            });
        } else {
            first_row.insert(key, row);
        }
    }
    bad.into_result(context, "duplicate (system, task, run) keys")
        .map_err(|mut error| {
            // Harbor names a job's system agent__model (per dataset when the job runs several):
            // two jobs of one agent and model (a rerun, or datasets that share task names) name
            // one system, and a job's trials given one by one, or beside their job's folder, are
            // each read alone (attempt 0).
            if between_harbor_reads {
                error.message.push_str(HARBOR_COLLISION);
            }
            error
        })?;
    let mut filled = vec![false; rows.len()];
    let mut first_filled: Option<(usize, usize)> = None;
    let mut count = 0usize;
    for (row, filled) in filled.iter_mut().enumerate() {
        if !placeholder(row) {
            continue;
        }
        let key = (rows.system[row], rows.task[row], rows.run[row]);
        match first_row.get(&key) {
            Some(&other) => {
                *filled = true;
                count += 1;
                first_filled.get_or_insert((row, other));
            }
            None => {
                first_row.insert(key, row);
            }
        }
    }
    if let Some((row, other)) = first_filled {
        notes.push(format!(
            "{count} {} with status not_attempted {} (system, task, run) with another row, read \
             as placeholders (a run listed before it ended; not runs still to come) (first: ({}, \
             {}, run {}) on {} and {})",
            if count == 1 { "row" } else { "rows" },
            if count == 1 {
                "shares its"
            } else {
                "share their"
            },
            quote(&rows.systems.names[rows.system[row] as usize]),
            quote(&rows.task_names[rows.task[row] as usize]),
            rows.run[row],
            rows.place(row.min(other), context),
            rows.place(row.max(other), context)
        ));
    }
    Ok(filled)
}

/// The value of a text column for every task, or the first task whose rows disagree:
/// (task, first row, disagreeing row).
fn per_task(
    rows: &Rows,
    column: &TextColumn,
    n_tasks: usize,
) -> Result<Vec<Option<String>>, (u32, usize, usize)> {
    let mut first: Vec<Option<usize>> = vec![None; n_tasks];
    // A file without the column says nothing of it: a harness's outcome file without `group` beside
    // the baseline's record with it was refused as "no group" against the record's groups (and
    // `run` decided on the files `decide` then refused).
    let absent: HashSet<u32> = column.absent_in.iter().copied().collect();
    for row in 0..rows.len() {
        if absent.contains(&rows.origin[row].0) {
            continue;
        }
        let task = rows.task[row] as usize;
        match first[task] {
            None => first[task] = Some(row),
            Some(earlier) if column.values[earlier] != column.values[row] => {
                return Err((task as u32, earlier, row));
            }
            Some(_) => {}
        }
    }
    Ok(first
        .iter()
        .map(|row| {
            row.and_then(|r| column.values[r])
                .map(|id| column.dict.names[id as usize].clone())
        })
        .collect())
}

fn group_conflict(
    rows: &Rows,
    column: &TextColumn,
    context: &str,
    task: u32,
    first: usize,
    second: usize,
) -> LoadError {
    let shown = |row: usize| match column.values[row] {
        Some(id) => quote(&column.dict.names[id as usize]),
        None => "no group".to_string(),
    };
    LoadError::new(
        context,
        format!(
            "task {} has group {} on {} but {} on {}; a task's group must be the same on every row",
            quote(&rows.task_names[task as usize]),
            shown(first),
            rows.place(first, context),
            shown(second),
            rows.place(second, context)
        ),
    )
}

fn group_column(name: String, values: &[Option<String>]) -> GroupColumn {
    let mut labels: Vec<String> = values
        .iter()
        .flatten()
        .cloned()
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    labels.sort();
    let no_value = no_group_label(values.iter().flatten().map(String::as_str));
    if values.iter().any(Option::is_none) {
        labels.push(no_value.clone());
    }
    let index: HashMap<&str, u32> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i as u32))
        .collect();
    let of_task = values
        .iter()
        .map(|v| index[v.as_deref().unwrap_or(&no_value)])
        .collect();
    GroupColumn {
        name,
        labels,
        of_task,
    }
}

/// Per-system counts and attributes. Scaffold and model must agree across a system's rows; differing
/// submission dates (re-runs on later days) keep the earliest, and the count is reported.
fn system_infos(
    rows: &Rows,
    placeholders_filled: &[bool],
    context: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<SystemInfo>, LoadError> {
    let n_sys = rows.systems.len();
    let mut infos: Vec<SystemInfo> = rows
        .systems
        .names
        .iter()
        .map(|name| SystemInfo {
            name: name.clone(),
            scaffold: None,
            model: None,
            submitted: None,
            rows: 0,
            runs: 0,
            errored: 0,
            not_attempted: 0,
        })
        .collect();
    let mut runs: HashSet<(u32, u32)> = HashSet::new();
    for (row, &filled) in placeholders_filled.iter().enumerate() {
        let s = rows.system[row] as usize;
        infos[s].rows += 1;
        runs.insert((rows.system[row], rows.run[row]));
        match rows.status[row] {
            Status::Error => infos[s].errored += 1,
            // A placeholder another row of its run fills is not a run still to come.
            Status::NotAttempted if !filled => infos[s].not_attempted += 1,
            Status::NotAttempted => {}
            Status::Ok => {}
        }
    }
    for &(s, _) in &runs {
        infos[s as usize].runs += 1;
    }
    for (label, column) in [("scaffold", &rows.scaffold), ("model", &rows.model)] {
        let mut first: Vec<Option<usize>> = vec![None; n_sys];
        let mut bad = Offenders::default();
        let mut reported: HashSet<usize> = HashSet::new();
        for row in 0..rows.len() {
            let Some(value) = column.values[row] else {
                continue;
            };
            let s = rows.system[row] as usize;
            match first[s] {
                None => first[s] = Some(row),
                Some(earlier) if column.values[earlier] != Some(value) && reported.insert(s) => {
                    let earlier_value = column.values[earlier]
                        .map_or("", |v| column.dict.names[v as usize].as_str());
                    bad.push(|| {
                        format!(
                            "system {} has {label} {} on {} but {} on {}",
                            quote(&rows.systems.names[s]),
                            quote(earlier_value),
                            rows.place(earlier, context),
                            quote(&column.dict.names[value as usize]),
                            rows.place(row, context)
                        )
                    });
                }
                Some(_) => {}
            }
        }
        bad.into_result(
            context,
            &format!(
                "a system's {label} must be the same on every row (to keep each {label} as its own system use --system-key system,{label}; to leave the column out, --ignore-col {label})"
            ),
        )?;
        for (s, row) in first.iter().enumerate() {
            infos[s].set_text(
                label,
                row.and_then(|r| column.values[r])
                    .map(|v| column.dict.names[v as usize].clone()),
            );
        }
    }
    let mut dates: Vec<HashSet<u32>> = vec![HashSet::new(); n_sys];
    for row in 0..rows.len() {
        if let Some(date) = rows.submitted.values[row] {
            dates[rows.system[row] as usize].insert(date);
        }
    }
    let mut merged = 0;
    for (s, set) in dates.iter().enumerate() {
        if set.len() > 1 {
            merged += 1;
        }
        infos[s].submitted = set
            .iter()
            .map(|&d| rows.submitted.dict.names[d as usize].clone())
            .min();
    }
    if merged > 0 {
        notes.push(format!(
            "{merged} {} rows with several submitted dates; the earliest is the system's date",
            if merged == 1 {
                "system has"
            } else {
                "systems have"
            }
        ));
    }
    Ok(infos)
}

impl SystemInfo {
    fn set_text(&mut self, label: &str, value: Option<String>) {
        match label {
            "scaffold" => self.scaffold = value,
            _ => self.model = value,
        }
    }
}

struct Averages {
    outcome: Vec<f64>,
    runs: Vec<u32>,
    cost: Vec<f64>,
    seconds: Vec<f64>,
}

/// Mean outcome, cost and seconds over the runs of each (system, task). Unattempted runs are missing
/// cells; errored runs count unless `exclude_errors`. Cost and seconds average over the runs that have them.
fn average_runs(rows: &Rows, exclude_errors: bool, n_sys: usize, n_tasks: usize) -> Averages {
    let cells = n_sys * n_tasks;
    let mut outcome_sum = vec![0.0; cells];
    let mut runs = vec![0u32; cells];
    let mut cost_sum = vec![0.0; cells];
    let mut cost_n = vec![0u32; cells];
    let mut seconds_sum = vec![0.0; cells];
    let mut seconds_n = vec![0u32; cells];
    // Each cell's runs are added in run order, not in the file's row order: a float sum depends on
    // its order, and the same rows listed otherwise gave other last bits (0.1 + 0.2 + 0.3 against
    // 0.3 + 0.2 + 0.1), moving a mean's rounded digit in `info`.
    let mut in_run_order: Vec<usize> = (0..rows.len()).collect();
    in_run_order.sort_unstable_by_key(|&row| (rows.system[row], rows.task[row], rows.run[row]));
    for row in in_run_order {
        match rows.status[row] {
            Status::NotAttempted => continue,
            Status::Error if exclude_errors => continue,
            _ => {}
        }
        let cell = rows.system[row] as usize * n_tasks + rows.task[row] as usize;
        outcome_sum[cell] += rows.outcome[row];
        runs[cell] += 1;
        if !rows.cost[row].is_nan() {
            cost_sum[cell] += rows.cost[row];
            cost_n[cell] += 1;
        }
        if !rows.seconds[row].is_nan() {
            seconds_sum[cell] += rows.seconds[row];
            seconds_n[cell] += 1;
        }
    }
    let mean = |sum: &[f64], n: &[u32]| -> Vec<f64> {
        sum.iter()
            .zip(n)
            .map(|(&s, &n)| if n == 0 { f64::NAN } else { s / f64::from(n) })
            .collect()
    };
    Averages {
        outcome: mean(&outcome_sum, &runs),
        cost: mean(&cost_sum, &cost_n),
        seconds: mean(&seconds_sum, &seconds_n),
        runs,
    }
}

/// Joins a task table: each of its columns other than `task` (and `benchmark`) becomes a task attribute.
fn join_task_table(
    rows: &Rows,
    path: &Path,
    options: &LoadOptions,
    attributes: &mut Vec<(String, Vec<Option<String>>)>,
    notes: &mut Vec<String>,
) -> Result<(), LoadError> {
    let mut table = read_table(path)?;
    let file = table.file.clone();
    options.columns.apply_known(
        &mut table.frame,
        &file,
        &[columns::TASK, columns::BENCHMARK],
    )?;
    let side = super::side::SideTable::read(&table, columns::TASK)?;
    let by_bench = side
        .column(columns::BENCHMARK)
        .filter(|_| rows.benchmarks.len() > 1 || rows.has_benchmark);
    let mut index: HashMap<(Option<&str>, &str), usize> = HashMap::new();
    for (i, key) in side.keys.iter().enumerate() {
        let bench = by_bench.and_then(|c| c[i].as_deref());
        index.insert((bench, key.as_str()), i);
    }
    let mut matched = vec![false; side.keys.len()];
    let mut rows_of_task = vec![None; rows.task_names.len()];
    for (t, name) in rows.task_names.iter().enumerate() {
        let bench =
            by_bench.map(|_| rows.benchmarks.names[rows.task_benchmark[t] as usize].as_str());
        if let Some(&i) = index.get(&(bench, name.as_str())) {
            rows_of_task[t] = Some(i);
            matched[i] = true;
        }
    }
    for (name, values) in side.attributes() {
        if name == columns::BENCHMARK {
            continue;
        }
        if attributes.iter().any(|(n, _)| n == name) {
            return Err(LoadError::new(
                &file,
                format!(
                    "column '{name}' is in both the records and the task table; rename one of them"
                ),
            ));
        }
        attributes.push((
            name.to_string(),
            rows_of_task
                .iter()
                .map(|r| r.and_then(|i| values[i].clone()))
                .collect(),
        ));
    }
    let missing = rows_of_task.iter().filter(|r| r.is_none()).count();
    let unknown = matched.iter().filter(|m| !**m).count();
    notes.push(format!(
        "task table {file}: {} of {} tasks matched{}{}",
        rows.task_names.len() - missing,
        rows.task_names.len(),
        if missing > 0 {
            format!("; {missing} tasks have no row there (and so no group)")
        } else {
            String::new()
        },
        if unknown > 0 {
            format!("; {unknown} of its rows name tasks not in the records")
        } else {
            String::new()
        },
    ));
    Ok(())
}

/// Joins a system table: `scaffold`, `model` and `submitted` fill in what the records lack and must
/// agree with what they have.
fn join_system_table(
    path: &Path,
    options: &LoadOptions,
    systems: &mut [SystemInfo],
    notes: &mut Vec<String>,
) -> Result<(), LoadError> {
    let mut table = read_table(path)?;
    let file = table.file.clone();
    options.columns.apply_known(
        &mut table.frame,
        &file,
        &[
            columns::SYSTEM,
            columns::SCAFFOLD,
            columns::MODEL,
            columns::SUBMITTED,
        ],
    )?;
    let side = super::side::SideTable::read(&table, columns::SYSTEM)?;
    let index: HashMap<&str, usize> = side
        .keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let mut bad = Offenders::default();
    let mut matched = 0;
    for info in systems.iter_mut() {
        let Some(&i) = index.get(info.name.as_str()) else {
            continue;
        };
        matched += 1;
        for label in [columns::SCAFFOLD, columns::MODEL, columns::SUBMITTED] {
            let Some(value) = side.column(label).and_then(|c| c[i].clone()) else {
                continue;
            };
            let value = if label == columns::SUBMITTED {
                match super::records::parse_date(value.trim()) {
                    Some(date) => date,
                    None => {
                        bad.push(|| {
                            format!("submitted {} on {}", quote(&value), side.positions[i])
                        });
                        continue;
                    }
                }
            } else {
                value
            };
            let slot = match label {
                columns::SCAFFOLD => &mut info.scaffold,
                columns::MODEL => &mut info.model,
                _ => &mut info.submitted,
            };
            match slot {
                Some(existing) if *existing != value => bad.push(|| {
                    format!(
                        "system {} has {label} {} in the records but {} on {}",
                        quote(&info.name),
                        quote(existing),
                        quote(&value),
                        side.positions[i]
                    )
                }),
                _ => *slot = Some(value),
            }
        }
    }
    bad.into_result(
        &file,
        "the system table disagrees with the records or holds a bad date",
    )?;
    let ignored: Vec<&str> = side
        .attributes()
        .map(|(name, _)| name)
        .filter(|n| ![columns::SCAFFOLD, columns::MODEL, columns::SUBMITTED].contains(n))
        .collect();
    notes.push(format!(
        "system table {file}: {matched} of {} systems matched{}",
        systems.len(),
        if ignored.is_empty() {
            String::new()
        } else {
            format!("; columns not used: {}", ignored.join(", "))
        }
    ));
    Ok(())
}

/// Drops systems whose outcomes cover less than `fraction` of the tasks, and says which.
fn drop_low_coverage(dataset: &mut Dataset, fraction: f64) {
    let n_tasks = dataset.n_tasks();
    let coverage: Vec<f64> = (0..dataset.n_systems())
        .map(|s| dataset.observed_tasks(s) as f64 / n_tasks as f64)
        .collect();
    let keep: Vec<usize> = (0..dataset.n_systems())
        .filter(|&s| coverage[s] + 1e-12 >= fraction)
        .collect();
    if keep.len() == dataset.n_systems() {
        dataset.notes.push(format!(
            "no system below {:.1}% task coverage (--min-system-coverage)",
            fraction * 100.0
        ));
        return;
    }
    let dropped: Vec<String> = (0..dataset.n_systems())
        .filter(|s| !keep.contains(s))
        .map(|s| format!("{} ({:.1}%)", dataset.systems[s].name, coverage[s] * 100.0))
        .collect();
    dataset.notes.push(format!(
        "{} {} below {:.1}% task coverage left out (--min-system-coverage): {}",
        dropped.len(),
        if dropped.len() == 1 {
            "system"
        } else {
            "systems"
        },
        fraction * 100.0,
        dropped.join(", ")
    ));
    dataset.outcome = select_rows(&dataset.outcome, &keep, n_tasks);
    dataset.cost = dataset
        .cost
        .as_deref()
        .map(|m| select_rows(m, &keep, n_tasks));
    dataset.seconds = dataset
        .seconds
        .as_deref()
        .map(|m| select_rows(m, &keep, n_tasks));
    dataset.runs = select_rows(&dataset.runs, &keep, n_tasks);
    dataset.systems = keep.iter().map(|&s| dataset.systems[s].clone()).collect();
}

/// The rows `keep` of a `systems × n_tasks` matrix.
fn select_rows<T: Copy>(matrix: &[T], keep: &[usize], n_tasks: usize) -> Vec<T> {
    keep.iter()
        .flat_map(|&s| matrix[s * n_tasks..(s + 1) * n_tasks].iter().copied())
        .collect()
}
