//! `pareval info`: what a user checks first about a record: systems with their coverage and scores,
//! tasks, candidate group columns with group sizes, cost and seconds presence, directed pairs and the
//! median shared overlap, and everything the loader reported. JSON field names are a contract with
//! scripts (`n_rows`, `n_systems`, `n_tasks`, `n_directed_pairs`, `group_columns`, `systems`).

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::table::{Align, render};
use crate::dataset::Dataset;
use crate::format::wrap;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InfoReport {
    pub files: Vec<FileSummary>,
    pub n_rows: usize,
    pub n_systems: usize,
    pub n_tasks: usize,
    pub n_directed_pairs: usize,
    /// Median shared tasks over directed pairs (null without pairs).
    pub median_shared_tasks: Option<f64>,
    pub min_shared: usize,
    /// Column name → number of groups.
    pub group_columns: BTreeMap<String, usize>,
    /// Every candidate group column with its group sizes, largest first.
    pub groups: Vec<GroupSummary>,
    pub benchmarks: Vec<BenchmarkSummary>,
    pub cost_rows: usize,
    pub seconds_rows: usize,
    pub systems: Vec<SystemSummary>,
    pub unused_columns: Vec<String>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileSummary {
    pub path: String,
    pub rows: usize,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupSummary {
    pub column: String,
    pub sizes: Vec<GroupSize>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupSize {
    pub group: String,
    pub tasks: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchmarkSummary {
    pub benchmark: String,
    pub tasks: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemSummary {
    pub system: String,
    /// Tasks with an outcome.
    pub tasks: usize,
    /// `tasks` over all tasks of the record.
    pub coverage: f64,
    /// Mean run-averaged outcome over the system's tasks (null when it has no task with an outcome:
    /// every row not attempted, say, which is no score of 0).
    pub mean_outcome: Option<f64>,
    /// Distinct run indices.
    pub runs: usize,
    pub rows: usize,
    pub errored: usize,
    pub not_attempted: usize,
    /// Sum over tasks of the run-averaged cost: what one pass over the benchmark cost (null if unknown).
    pub cost_usd_per_pass: Option<f64>,
    pub seconds_per_pass: Option<f64>,
    /// How many of the system's `tasks` those sums cover (a task without a cost adds nothing, so a sum
    /// over fewer than `tasks` understates a pass; the text marks it with `*` and a note says so).
    pub cost_usd_tasks: usize,
    pub seconds_tasks: usize,
    pub scaffold: Option<String>,
    pub model: Option<String>,
    pub submitted: Option<String>,
}

impl InfoReport {
    pub fn new(dataset: &Dataset) -> Self {
        let n_tasks = dataset.n_tasks();
        let n_sys = dataset.n_systems();
        let shared = dataset.shared_counts();
        let pairs = dataset.directed_pairs();
        let mut overlaps: Vec<usize> = pairs.iter().map(|&(a, b)| shared[a * n_sys + b]).collect();
        overlaps.sort_unstable();
        let median_shared_tasks = match overlaps.len() {
            0 => None,
            n if n % 2 == 1 => Some(overlaps[n / 2] as f64),
            n => Some((overlaps[n / 2 - 1] + overlaps[n / 2]) as f64 / 2.0),
        };
        // Sums go over the tasks by name, as `pair` and `replay` take them: in the file's order
        // (first appearance) the same rows listed otherwise gave other last bits, and a rounded
        // mean moved (0.452 against 0.453 on Terminal-Bench core, its rows shuffled).
        let canonical = dataset.tasks_in_canonical_order();
        // None for a system without a single value (an empty f64 sum is -0.0, printed "-0.00"), and
        // how many of its tasks with an outcome the sum covers.
        let per_pass = |matrix: &Option<Vec<f64>>, s: usize| {
            let Some(m) = matrix.as_ref() else {
                return (None, 0);
            };
            let outcomes = dataset.outcome_row(s);
            let row = &m[s * n_tasks..(s + 1) * n_tasks];
            let known: Vec<f64> = canonical
                .iter()
                .map(|&t| (row[t as usize], outcomes[t as usize]))
                .filter(|(x, outcome)| !x.is_nan() && !outcome.is_nan())
                .map(|(x, _)| x)
                .collect();
            let sum = (!known.is_empty()).then(|| known.iter().sum::<f64>());
            (sum, known.len())
        };
        let mut notes = dataset.notes.clone();
        // By name, not by first appearance in the files (so are the notes made on the way).
        let mut by_name: Vec<(usize, &crate::dataset::SystemInfo)> =
            dataset.systems.iter().enumerate().collect();
        by_name.sort_by(|a, b| a.1.name.cmp(&b.1.name));
        let systems = by_name
            .into_iter()
            .map(|(s, info)| {
                let outcomes = dataset.outcome_row(s);
                let observed: Vec<f64> = canonical
                    .iter()
                    .map(|&t| outcomes[t as usize])
                    .filter(|x| !x.is_nan())
                    .collect();
                let mean = (!observed.is_empty())
                    .then(|| observed.iter().sum::<f64>() / observed.len() as f64);
                let (cost, cost_tasks) = per_pass(&dataset.cost, s);
                let (seconds, seconds_tasks) = per_pass(&dataset.seconds, s);
                for (sum, covered, what) in [(cost, cost_tasks, "cost"), (seconds, seconds_tasks, "seconds")] {
                    if sum.is_some_and(|v| !v.is_finite()) {
                        notes.push(format!(
                            "{}: its {what} per pass is too large to add up (past 1.8e308); shown as -",
                            info.name
                        ));
                    } else if sum.is_some() && covered < observed.len() {
                        notes.push(format!(
                            "{}: its {what} per pass (marked *) adds up the {covered} of its {} tasks that have a {what} value; it understates a pass",
                            info.name,
                            observed.len()
                        ));
                    }
                }
                let finite = |v: Option<f64>| v.filter(|v| v.is_finite());
                SystemSummary {
                    system: info.name.clone(),
                    tasks: observed.len(),
                    coverage: if n_tasks == 0 {
                        0.0
                    } else {
                        observed.len() as f64 / n_tasks as f64
                    },
                    mean_outcome: mean,
                    runs: info.runs,
                    rows: info.rows,
                    errored: info.errored,
                    not_attempted: info.not_attempted,
                    cost_usd_per_pass: finite(cost),
                    seconds_per_pass: finite(seconds),
                    cost_usd_tasks: cost_tasks,
                    seconds_tasks,
                    scaffold: info.scaffold.clone(),
                    model: info.model.clone(),
                    submitted: info.submitted.clone(),
                }
            })
            .collect();
        let groups: Vec<GroupSummary> = dataset
            .group_columns
            .iter()
            .map(|column| {
                let mut sizes: Vec<GroupSize> = column
                    .labels
                    .iter()
                    .zip(column.sizes())
                    .map(|(label, tasks)| GroupSize {
                        group: label.clone(),
                        tasks,
                    })
                    .collect();
                sizes.sort_by(|a, b| b.tasks.cmp(&a.tasks).then_with(|| a.group.cmp(&b.group)));
                GroupSummary {
                    column: column.name.clone(),
                    sizes,
                }
            })
            .collect();
        let benchmarks = if dataset.benchmarks.len() > 1 {
            let mut counts = vec![0; dataset.benchmarks.len()];
            for &b in &dataset.task_benchmark {
                counts[b as usize] += 1;
            }
            dataset
                .benchmarks
                .iter()
                .zip(counts)
                .map(|(name, tasks)| BenchmarkSummary {
                    benchmark: name.clone(),
                    tasks,
                })
                .collect()
        } else {
            Vec::new()
        };
        InfoReport {
            files: dataset
                .inputs
                .iter()
                .map(|f| FileSummary {
                    path: f.path.clone(),
                    rows: f.rows,
                    sha256: f.sha256.clone(),
                })
                .collect(),
            n_rows: dataset.n_rows,
            n_systems: n_sys,
            n_tasks,
            n_directed_pairs: pairs.len(),
            median_shared_tasks,
            min_shared: dataset.min_shared,
            group_columns: groups
                .iter()
                .map(|g| (g.column.clone(), g.sizes.len()))
                .collect(),
            groups,
            benchmarks,
            cost_rows: dataset.cost_rows,
            seconds_rows: dataset.seconds_rows,
            systems,
            unused_columns: dataset.unused_columns.clone(),
            notes,
        }
    }

    pub fn write_json(&self, out: &mut impl Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self)?;
        writeln!(out)
    }

    /// A readable summary that fits in `width` columns (80 in a terminal).
    pub fn write_text(&self, out: &mut impl Write, width: usize) -> io::Result<()> {
        // A suite of hundreds of files (HELM runs, aider exercises) is named a few times, then counted.
        const NAMED: usize = 8;
        for file in self.files.iter().take(NAMED) {
            writeln!(out, "records   {} ({} rows)", file.path, file.rows)?;
        }
        if self.files.len() > NAMED {
            let rest = &self.files[NAMED..];
            writeln!(
                out,
                "records   … and {} more files ({} rows; `info --format json` lists every file)",
                rest.len(),
                rest.iter().map(|f| f.rows).sum::<usize>()
            )?;
        }
        writeln!(out, "systems   {}", self.n_systems)?;
        writeln!(out, "tasks     {}", self.n_tasks)?;
        let median = self
            .median_shared_tasks
            .map_or("-".to_string(), |m| format!("{m}"));
        let filter = if self.min_shared > 1 {
            format!(", at least {} shared", self.min_shared)
        } else {
            String::new()
        };
        writeln!(
            out,
            "pairs     {} directed (median {median} shared tasks{filter})",
            self.n_directed_pairs
        )?;
        writeln!(out, "cost      {}", presence(self.cost_rows, self.n_rows))?;
        writeln!(
            out,
            "seconds   {}",
            presence(self.seconds_rows, self.n_rows)
        )?;
        if !self.benchmarks.is_empty() {
            let list: Vec<String> = self
                .benchmarks
                .iter()
                .map(|b| format!("{} ({})", b.benchmark, b.tasks))
                .collect();
            writeln!(out, "benchmarks {}", list.join(", "))?;
        }
        writeln!(out)?;
        if self.groups.is_empty() {
            writeln!(out, "group columns: none (every task in one group)")?;
        } else {
            writeln!(out, "group columns")?;
            for group in &self.groups {
                let n = group.sizes.len();
                let plural = if n == 1 { "" } else { "s" };
                writeln!(out, "  {} ({n} group{plural})", group.column)?;
                let shown: Vec<String> = group
                    .sizes
                    .iter()
                    .take(8)
                    .map(|g| format!("{} {}", g.group, g.tasks))
                    .collect();
                let mut line = shown.join(", ");
                if group.sizes.len() > 8 {
                    line.push_str(&format!(", … {} more", group.sizes.len() - 8));
                }
                for wrapped in wrap(&line, width.saturating_sub(4).max(20)) {
                    writeln!(out, "    {wrapped}")?;
                }
            }
        }
        writeln!(out)?;
        writeln!(out, "systems, by mean outcome")?;
        let mut order: Vec<&SystemSummary> = self.systems.iter().collect();
        // Systems without a mean come last.
        let mean_or_below = |s: &SystemSummary| s.mean_outcome.unwrap_or(f64::NEG_INFINITY);
        order.sort_by(|a, b| {
            mean_or_below(b)
                .total_cmp(&mean_or_below(a))
                .then_with(|| a.system.cmp(&b.system))
        });
        let with_cost = self.cost_rows > 0;
        let with_seconds = self.seconds_rows > 0;
        let with_status = self.systems.iter().any(|s| s.errored + s.not_attempted > 0);
        let mut header = vec!["system", "tasks", "mean", "runs"];
        let mut align = vec![Align::Left, Align::Right, Align::Right, Align::Right];
        for (present, name) in [
            (with_cost, "$/pass"),
            (with_seconds, "s/pass"),
            (with_status, "err"),
            (with_status, "n/a"),
        ] {
            if present {
                header.push(name);
                align.push(Align::Right);
            }
        }
        let rows: Vec<Vec<String>> = order
            .iter()
            .map(|s| {
                let mut row = vec![
                    s.system.clone(),
                    s.tasks.to_string(),
                    s.mean_outcome
                        .map_or("-".to_string(), |mean| format!("{mean:.3}")),
                    s.runs.to_string(),
                ];
                // `*`: the sum leaves out tasks without a value (a note names how many).
                let partial = |covered: usize| if covered < s.tasks { "*" } else { "" };
                if with_cost {
                    row.push(s.cost_usd_per_pass.map_or("-".to_string(), |c| {
                        format!("{c:.2}{}", partial(s.cost_usd_tasks))
                    }));
                }
                if with_seconds {
                    row.push(s.seconds_per_pass.map_or("-".to_string(), |c| {
                        format!("{c:.0}{}", partial(s.seconds_tasks))
                    }));
                }
                if with_status {
                    row.push(s.errored.to_string());
                    row.push(s.not_attempted.to_string());
                }
                row
            })
            .collect();
        write!(out, "{}", render(&header, &align, &rows, width, 2))?;
        if !self.unused_columns.is_empty() {
            writeln!(out)?;
            writeln!(
                out,
                "columns not used (they vary within a task): {}",
                self.unused_columns.join(", ")
            )?;
        }
        if !self.notes.is_empty() {
            writeln!(out)?;
            writeln!(out, "notes")?;
            for note in &self.notes {
                for (i, wrapped) in wrap(note, width.saturating_sub(4).max(20))
                    .iter()
                    .enumerate()
                {
                    writeln!(out, "  {}{wrapped}", if i == 0 { "- " } else { "  " })?;
                }
            }
        }
        Ok(())
    }
}

fn presence(rows: usize, total: usize) -> String {
    match rows {
        0 => "none".to_string(),
        n if n == total => format!("on every row ({n})"),
        n => format!("on {n} of {total} rows"),
    }
}
