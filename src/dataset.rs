//! The hand-off between loading and everything else: plain matrices of run-averaged outcomes, costs and
//! seconds (systems × tasks, row-major, NaN for a missing cell), task groups per candidate group column,
//! system attributes and what the loader reported. No polars past this point; nothing here reads files.

use serde::Serialize;

/// One candidate group column: a label per group and the group of every task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupColumn {
    pub name: String,
    /// Group labels, sorted; tasks without a value share the label [`NO_GROUP`].
    pub labels: Vec<String>,
    /// Index into `labels` for every task.
    pub of_task: Vec<u32>,
}

/// The label of tasks that have no value in a group column.
pub const NO_GROUP: &str = "(none)";

/// The label for the tasks without a value in a group column whose `values` are given:
/// [`NO_GROUP`], unless some task's value is that very text; then "(no value)" (or "(no value 2)", …),
/// so that a group literally called "(none)" is never merged with the tasks that have none.
pub fn no_group_label<'a>(values: impl Iterator<Item = &'a str> + Clone) -> String {
    let taken = |label: &str| values.clone().any(|v| v == label);
    if !taken(NO_GROUP) {
        return NO_GROUP.to_string();
    }
    (1..)
        .map(|k| match k {
            1 => "(no value)".to_string(),
            k => format!("(no value {k})"),
        })
        .find(|label| !taken(label))
        .unwrap_or_else(|| NO_GROUP.to_string())
}

impl GroupColumn {
    /// Number of tasks in each group, in label order.
    pub fn sizes(&self) -> Vec<usize> {
        let mut sizes = vec![0; self.labels.len()];
        for &g in &self.of_task {
            sizes[g as usize] += 1;
        }
        sizes
    }
}

/// What is known of one system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemInfo {
    pub name: String,
    pub scaffold: Option<String>,
    pub model: Option<String>,
    /// Earliest `submitted` date of the system's rows (YYYY-MM-DD).
    pub submitted: Option<String>,
    /// Record rows of this system, including errored and unattempted ones.
    pub rows: usize,
    /// Distinct run indices.
    pub runs: usize,
    /// Rows with status `error` (kept with their outcome unless errored runs are excluded).
    pub errored: usize,
    /// Rows with status `not_attempted` (missing cells).
    pub not_attempted: usize,
}

/// An input file and how many record rows it gave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputFile {
    pub path: String,
    pub rows: usize,
    /// SHA-256 of the file's bytes, for provenance.
    pub sha256: String,
}

/// Completed records ready for replay and proxies.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    pub systems: Vec<SystemInfo>,
    /// Task ids in order of first appearance in the input (the `file` task order).
    pub tasks: Vec<String>,
    /// Benchmark names; a single empty name when the input has no `benchmark` column.
    pub benchmarks: Vec<String>,
    pub task_benchmark: Vec<u32>,
    /// Run-averaged outcomes, `systems × tasks`, NaN where a system has no outcome for a task.
    pub outcome: Vec<f64>,
    /// Runs averaged into each cell (0 for a missing cell).
    pub runs: Vec<u32>,
    /// Run-averaged cost per cell, NaN where unknown; `None` when the input has no cost at all.
    pub cost: Option<Vec<f64>>,
    pub seconds: Option<Vec<f64>>,
    pub group_columns: Vec<GroupColumn>,
    pub inputs: Vec<InputFile>,
    /// Record rows read, before any filter.
    pub n_rows: usize,
    /// Rows carrying a cost / a seconds value.
    pub cost_rows: usize,
    pub seconds_rows: usize,
    /// Directed pairs with fewer shared tasks than this are left out (at least 1).
    pub min_shared: usize,
    /// Columns that were read but are neither known nor constant per task, so not used.
    pub unused_columns: Vec<String>,
    /// Things the loader did that a user should know about (filters, excluded runs, merged dates).
    pub notes: Vec<String>,
    /// Set by `replay --early`: `outcome` then holds the early-stopped outcomes and this keeps the truth.
    pub early: Option<EarlyOutcomes>,
    /// Where each task's first row with an outcome (else its first row) stands, "file line N", by
    /// task name; kept only when the loader is asked (`LoadOptions::task_origins`), else empty.
    /// Keyed by name, so a record restricted to fewer tasks keeps it valid.
    pub task_origins: std::collections::HashMap<String, String>,
}

/// Early-stopped outcomes fed to the replay (SPEC §11 "With replay"): the observed outcomes are the
/// early ones (in `Dataset::outcome`), the truth stays the completed record's, and every cell keeps
/// the steps its runs consumed and the steps the full runs took. Matrices are `systems × tasks`,
/// run-averaged like `outcome`, NaN where the record has no cell.
#[derive(Debug, Clone, PartialEq)]
pub struct EarlyOutcomes {
    /// The halting-records file and the τ read from it, or the target precision whose per-fold
    /// thresholds made the records read.
    pub file: String,
    pub tau: Option<f64>,
    pub target_precision: Option<f64>,
    pub truth: Vec<f64>,
    pub steps_run: Vec<f64>,
    pub steps_full: Vec<f64>,
    /// Trajectories matched, and those halted before their last step.
    pub trajectories: usize,
    pub halted: usize,
}

/// The labels that some kept task still has, in their order, and each kept task's index among them.
/// A group (or benchmark) left with no task is no group of a restricted record: it would be counted
/// with 0 tasks in headers and offered to the explorer's group filter with nothing in it.
fn compact_labels(labels: &[String], of_task: &[u32], kept: &[usize]) -> (Vec<String>, Vec<u32>) {
    if kept.is_empty() {
        // Nothing kept: the labels stay, so a record with no benchmark column keeps its one name.
        return (labels.to_vec(), Vec::new());
    }
    let mut used = vec![false; labels.len()];
    for &t in kept {
        used[of_task[t] as usize] = true;
    }
    let mut renumbered = vec![0u32; labels.len()];
    let mut compacted = Vec::new();
    for (index, label) in labels.iter().enumerate() {
        if used[index] {
            renumbered[index] = compacted.len() as u32;
            compacted.push(label.clone());
        }
    }
    let of_kept = kept
        .iter()
        .map(|&t| renumbered[of_task[t] as usize])
        .collect();
    (compacted, of_kept)
}

impl Dataset {
    pub fn n_systems(&self) -> usize {
        self.systems.len()
    }

    pub fn n_tasks(&self) -> usize {
        self.tasks.len()
    }

    /// System indices sorted by name: sums over systems taken in this order do not follow the files.
    pub fn systems_by_name(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.n_systems()).collect();
        order.sort_by(|&a, &b| self.systems[a].name.cmp(&self.systems[b].name));
        order
    }

    /// Task indices sorted by (benchmark, task name): independent of the order rows arrived in, so
    /// that whatever draws from the tasks (replay orders, proxy samples) does not follow the file.
    pub fn tasks_in_canonical_order(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.n_tasks() as u32).collect();
        order.sort_by(|&x, &y| {
            let key = |t: u32| {
                (
                    &self.benchmarks[self.task_benchmark[t as usize] as usize],
                    &self.tasks[t as usize],
                )
            };
            key(x).cmp(&key(y))
        });
        order
    }

    /// The run-averaged outcome of system `s` on task `t`, if there is one.
    pub fn outcome(&self, s: usize, t: usize) -> Option<f64> {
        let value = self.outcome[s * self.n_tasks() + t];
        (!value.is_nan()).then_some(value)
    }

    /// The outcome row of system `s` (NaN for missing).
    pub fn outcome_row(&self, s: usize) -> &[f64] {
        let n = self.n_tasks();
        &self.outcome[s * n..(s + 1) * n]
    }

    /// Tasks with an outcome, per system.
    pub fn observed_tasks(&self, s: usize) -> usize {
        self.outcome_row(s).iter().filter(|x| !x.is_nan()).count()
    }

    /// Number of tasks both systems have outcomes for, for every ordered pair (`systems × systems`).
    pub fn shared_counts(&self) -> Vec<usize> {
        let n_sys = self.n_systems();
        let words = self.n_tasks().div_ceil(64);
        let masks: Vec<Vec<u64>> = (0..n_sys)
            .map(|s| {
                let mut mask = vec![0u64; words];
                for (t, x) in self.outcome_row(s).iter().enumerate() {
                    if !x.is_nan() {
                        mask[t / 64] |= 1 << (t % 64);
                    }
                }
                mask
            })
            .collect();
        let mut shared = vec![0; n_sys * n_sys];
        for a in 0..n_sys {
            for b in a..n_sys {
                let count: u32 = masks[a]
                    .iter()
                    .zip(&masks[b])
                    .map(|(x, y)| (x & y).count_ones())
                    .sum();
                shared[a * n_sys + b] = count as usize;
                shared[b * n_sys + a] = count as usize;
            }
        }
        shared
    }

    /// Ordered pairs (tested, baseline) of distinct systems with at least `min_shared` shared tasks.
    pub fn directed_pairs(&self) -> Vec<(usize, usize)> {
        let n_sys = self.n_systems();
        let shared = self.shared_counts();
        let least = self.min_shared.max(1);
        let mut pairs = Vec::new();
        for a in 0..n_sys {
            for b in 0..n_sys {
                if a != b && shared[a * n_sys + b] >= least {
                    pairs.push((a, b));
                }
            }
        }
        pairs
    }

    /// The same record restricted to the tasks where `keep` is true (systems keep their rows; group
    /// columns keep their labels). Used by the explorer's group filter.
    pub fn restrict_tasks(&self, keep: &[bool]) -> Dataset {
        let n = self.n_tasks();
        let kept: Vec<usize> = (0..n).filter(|&t| keep[t]).collect();
        let take = |matrix: &[f64]| -> Vec<f64> {
            (0..self.n_systems())
                .flat_map(|s| kept.iter().map(move |&t| matrix[s * n + t]))
                .collect()
        };
        let (benchmarks, task_benchmark) =
            compact_labels(&self.benchmarks, &self.task_benchmark, &kept);
        Dataset {
            tasks: kept.iter().map(|&t| self.tasks[t].clone()).collect(),
            benchmarks,
            task_benchmark,
            outcome: take(&self.outcome),
            runs: (0..self.n_systems())
                .flat_map(|s| kept.iter().map(move |&t| self.runs[s * n + t]))
                .collect(),
            cost: self.cost.as_deref().map(take),
            seconds: self.seconds.as_deref().map(take),
            early: self.early.as_ref().map(|early| EarlyOutcomes {
                truth: take(&early.truth),
                steps_run: take(&early.steps_run),
                steps_full: take(&early.steps_full),
                ..early.clone()
            }),
            group_columns: self
                .group_columns
                .iter()
                .map(|c| {
                    let (labels, of_task) = compact_labels(&c.labels, &c.of_task, &kept);
                    GroupColumn {
                        name: c.name.clone(),
                        labels,
                        of_task,
                    }
                })
                .collect(),
            ..self.clone()
        }
    }

    /// Each task's index by its name.
    pub fn task_indices(&self) -> std::collections::HashMap<&str, usize> {
        self.tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_str(), i))
            .collect()
    }

    /// The group column with this name, if it is a candidate.
    pub fn group_column(&self, name: &str) -> Option<&GroupColumn> {
        self.group_columns.iter().find(|c| c.name == name)
    }

    /// What a group-column setting means, the same in every command and the explorer: absent, the
    /// `group` column when the record has one (else one group); [`ONE_GROUP`], one group; any other name,
    /// that candidate column, or an error naming the candidates. `None` in the result is one group.
    pub fn resolve_group_column(
        &self,
        setting: Option<&str>,
    ) -> Result<Option<String>, UnknownGroupColumn> {
        match setting {
            None => Ok(self.group_column("group").map(|c| c.name.clone())),
            Some(ONE_GROUP) => Ok(None),
            Some(name) => match self.group_column(name) {
                Some(column) => Ok(Some(column.name.clone())),
                None => Err(UnknownGroupColumn {
                    name: name.to_string(),
                    candidates: self.group_columns.iter().map(|c| c.name.clone()).collect(),
                }),
            },
        }
    }
}

/// The group-column setting that puts every task in one group.
pub const ONE_GROUP: &str = "none";

/// A group column that is not a candidate of the record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "group column '{name}' is not a candidate; candidates: {}",
    if candidates.is_empty() { "none (the record has no group column)".to_string() } else { candidates.join(", ") + ", or none for one group" }
)]
pub struct UnknownGroupColumn {
    pub name: String,
    pub candidates: Vec<String>,
}
