//! `pareval replay` output: the paper's tables from one or more replays (one per preset), as text (a
//! compact summary per preset and threshold, then the per-budget table), CSV, JSON and Markdown. All four
//! are rendered from one [`ReplayReport`], so they carry the same numbers. JSON field names are a contract
//! with scripts: `results[]` with `preset`, `threshold_pp`, `orders`, `pairs`, `min_sufficient_budget`
//! `monitor`, `looks`, `validity`, `family`, `adjust` and `rows[]` with `budget`, `fpr`, `frr`,
//! `ever_wrong`, `fwer`, `false_decision_rate`, `coverage_failure`, `unresolved`, `unresolved_lo`,
//! `unresolved_hi`, `sufficient`.

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

use super::Render;
use super::pairs::ReplayAt;
use super::table::{Align, natural_width, render_split};
use crate::engine::Replay;
use crate::engine::settings::{Adjust, BootstrapMode, Construction, Family, Monitor, Rule};
use crate::engine::walk::metrics::BudgetRow;
use crate::format::{csv_field, interval, percent, trim_number};

#[derive(Debug, Clone, Serialize)]
pub struct ReplayReport {
    pub results: Vec<ResultBlock>,
    pub notes: Vec<String>,
    /// Pairs and groups at one budget (`--pairs-at`, the explorer's exports); absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pairs_at: Vec<ReplayAt>,
    /// Where the early-stopped outcomes came from (`replay --early`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub early: Option<EarlySource>,
}

/// The halting records a replay read its observed outcomes from.
#[derive(Debug, Clone, Serialize)]
pub struct EarlySource {
    pub file: String,
    pub tau: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_precision: Option<f64>,
    pub trajectories: usize,
    pub halted: usize,
}

impl EarlySource {
    pub fn of(early: &crate::dataset::EarlyOutcomes) -> Self {
        EarlySource {
            file: early.file.clone(),
            tau: early.tau,
            target_precision: early.target_precision,
            trajectories: early.trajectories,
            halted: early.halted,
        }
    }

    /// The line the text and Markdown reports open with.
    fn describe(&self) -> String {
        format!(
            "observed outcomes: early-stopped at {} ({}: {} of {} trajectories halted before their last step); the truth is the completed record",
            match (self.tau, self.target_precision) {
                (Some(tau), _) => format!("τ {}", trim_number(tau)),
                (None, Some(p)) => format!(
                    "target precision {} (each fold's τ_s and τ_f)",
                    trim_number(p)
                ),
                (None, None) => "an unknown τ".to_string(),
            },
            self.file,
            self.halted,
            self.trajectories
        )
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResultBlock {
    pub preset: String,
    pub policy: String,
    pub order: String,
    pub coverage_gate: bool,
    pub rule: String,
    /// The bootstrap with no discordant task: abstain or literal.
    pub degenerate: String,
    /// `per-look` or `sequential` (SPEC §9), and where a sequential monitor looks (`every` or `grid`).
    #[serde(default)]
    pub monitor: String,
    #[serde(default)]
    pub looks: String,
    /// What the error guarantee rests on: "valid when read once, at the budget", "anytime-valid",
    /// "naive peeking (invalid)" or descriptive.
    #[serde(default)]
    pub validity: String,
    /// §9's bet cap c (null for other rules, and under §9a, which does not read it).
    #[serde(default)]
    pub bet_cap: Option<f64>,
    /// §9a's clip of the bet scale, [c_min, c_max] (null for other rules and constructions: §9
    /// reads the cap instead).
    #[serde(default)]
    pub bet_scale: Option<[f64; 2]>,
    /// The share q of the coverage gate's quotas (SPEC §9a; 1 = the paper's): it changes coverage
    /// failure and the unresolved rate, and was in the policy's words only.
    #[serde(default = "one")]
    pub coverage_share: f64,
    /// The pairs decided together (`pair`, `tested`, `all`) and the adjustment over them (SPEC §9b).
    #[serde(default)]
    pub family: String,
    #[serde(default)]
    pub adjust: String,
    /// The tail cutoff a; none under the forced rule, which reads none (as its records say).
    pub tail: Option<f64>,
    pub bootstrap: Option<String>,
    pub budget_measure: String,
    pub group_column: Option<String>,
    pub seed: u64,
    pub threshold_pp: f64,
    pub orders: u32,
    pub pairs: usize,
    /// Median shared tasks over the replayed pairs.
    pub median_shared: f64,
    pub alpha: f64,
    pub gamma: f64,
    pub eta: f64,
    pub descriptive_only: bool,
    pub min_sufficient_budget: Option<f64>,
    pub min_errors_coverage_budget: Option<f64>,
    pub rows: Vec<BudgetRow>,
}

/// A spent-share column of the text table: its header and how a row gives its value.
pub type SpentColumn = (&'static str, fn(&BudgetRow) -> Option<f64>);

impl ResultBlock {
    /// Whether the block's policy was watched sequentially (its tables add the ever-wrong column).
    pub fn is_sequential(&self) -> bool {
        self.monitor == Monitor::Sequential.name()
    }

    /// The spent share the text table shows, when the budget is by cost or seconds or the order is
    /// cheap-first and the record has the field: (header, the row's value).
    pub fn spent_column(&self) -> Option<SpentColumn> {
        let by_cost = self.budget_measure.contains("cost") || self.order.contains("cost");
        let by_seconds = self.budget_measure.contains("seconds");
        let column: SpentColumn = if by_cost {
            ("cost spent", |r| r.cost_spent)
        } else if by_seconds {
            ("seconds spent", |r| r.seconds_spent)
        } else {
            return None;
        };
        self.rows
            .iter()
            .any(|r| column.1(r).is_some())
            .then_some(column)
    }

    /// Whether observed outcomes were early-stopped ones (its tables add the savings).
    pub fn has_early(&self) -> bool {
        self.rows.iter().any(|r| r.joint_saving.is_some())
    }

    /// Whether pairs were decided in families (its tables add the family-wise error and the false
    /// decision rate).
    pub fn has_families(&self) -> bool {
        self.family != Family::Pair.name() || self.adjust != Adjust::None.name()
    }
}

impl ReplayReport {
    /// One block per (replay, threshold); `labels` names each replay (its preset or "custom").
    pub fn new(replays: &[(String, &Replay)]) -> Self {
        let mut results = Vec::new();
        let mut notes = Vec::new();
        for (label, replay) in replays {
            let prep = &replay.prepared;
            let settings = &prep.settings;
            let policy = settings.policy;
            let mut shared: Vec<u32> = prep.pairs.iter().map(|p| p.n()).collect();
            shared.sort_unstable();
            let median_shared = match shared.len() {
                0 => 0.0,
                n if n % 2 == 1 => f64::from(shared[n / 2]),
                n => (f64::from(shared[n / 2 - 1]) + f64::from(shared[n / 2])) / 2.0,
            };
            let bootstrap = match policy.rule {
                Rule::Bootstrap(mode) => Some(match (mode, prep.rules.exact_bootstrap()) {
                    (BootstrapMode::Exact, false) => format!(
                        "exact unavailable (outcomes off a lattice): {}",
                        prep.rules.effective_bootstrap(mode)
                    ),
                    _ => mode.to_string(),
                }),
                _ => None,
            };
            // The header names the bootstrap that ran: `exact` off a lattice draws mc (it said
            // "exact" in text, Markdown and the JSON policy while the records said mc).
            let mut ran = policy;
            if let Rule::Bootstrap(mode) = policy.rule {
                ran.rule = Rule::Bootstrap(prep.rules.effective_bootstrap(mode));
                if ran.rule != policy.rule {
                    let note = format!(
                        "{label}: --bootstrap exact needs outcomes on a lattice; these are off one, so the bootstrap resampled ({})",
                        prep.rules.effective_bootstrap(mode)
                    );
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            }
            if !policy.order.is_random_sample() {
                let note = format!(
                    "{label}: the {} order is not a random sample of the tasks, so its results are descriptive (the bootstrap and finite-population bounds assume random sampling){}",
                    policy.order.name(),
                    if policy.order.uses_completed_record() {
                        "; neyman allocation uses σ from the completed record, which a live run lacks"
                    } else {
                        ""
                    }
                );
                if !notes.contains(&note) {
                    notes.push(note);
                }
            }
            if policy.is_naive_peeking() {
                notes.push(format!(
                    "{label}: naive peeking (invalid): a fixed-horizon rule watched at every look and stopped at its first decision; its error rates are not controlled, which is what this negative control shows (ever-wrong column)"
                ));
            } else if policy.construction() == Some(Construction::Descriptive) {
                notes.push(format!(
                    "{label}: the anytime rule's guarantee holds under uniform (§9) and stratified (§9a) orders; under the {} order its results are descriptive",
                    policy.order.name()
                ));
            }
            if let Some(left_out) = &prep.left_out {
                notes.push(format!("{label}: {}", left_out.describe()));
            }
            for metrics in &replay.metrics.thresholds {
                results.push(ResultBlock {
                    preset: label.clone(),
                    policy: ran.describe(),
                    order: policy.order.name().to_string(),
                    coverage_gate: policy.coverage_gate,
                    rule: policy.rule.name().to_string(),
                    degenerate: policy.degenerate.name().to_string(),
                    monitor: policy.monitor.name().to_string(),
                    looks: policy.looks.name().to_string(),
                    validity: policy.validity().to_string(),
                    // Each where its construction reads it: §9 the cap, §9a the scale's clip
                    // (the cap was given under §9a too, which does not read it).
                    bet_cap: match (policy.rule, policy.construction()) {
                        (Rule::Anytime { cap, .. }, Some(c)) if c != Construction::Stratified => {
                            Some(cap.value())
                        }
                        _ => None,
                    },
                    bet_scale: match (policy.rule, policy.construction()) {
                        (
                            Rule::Anytime {
                                bet_min, bet_max, ..
                            },
                            Some(Construction::Stratified),
                        ) => Some([bet_min.value(), bet_max.value()]),
                        _ => None,
                    },
                    coverage_share: policy.coverage_share.value(),
                    family: policy.family.name().to_string(),
                    adjust: policy.adjust.name().to_string(),
                    tail: policy.rule.uses_tail().then(|| policy.tail.value()),
                    bootstrap: bootstrap.clone(),
                    budget_measure: settings.measure.name().to_string(),
                    group_column: settings.group_column.clone(),
                    seed: settings.seed,
                    threshold_pp: metrics.threshold_pp,
                    orders: settings.orders,
                    pairs: prep.pairs.len(),
                    median_shared,
                    alpha: settings.targets.alpha.value(),
                    gamma: settings.targets.gamma.value(),
                    eta: settings.targets.eta.value(),
                    descriptive_only: !policy.order.is_random_sample(),
                    min_sufficient_budget: metrics.min_sufficient_budget,
                    min_errors_coverage_budget: metrics.min_errors_coverage_budget,
                    rows: metrics.rows.clone(),
                });
            }
        }
        ReplayReport {
            results,
            notes,
            pairs_at: Vec::new(),
            early: None,
        }
    }

    /// The report with every replay's pairs and groups at budget index `budget` of the grid.
    pub fn with_pairs_at(mut self, replays: &[(String, &Replay)], budget: usize) -> Self {
        self.pairs_at = replays
            .iter()
            .map(|(label, replay)| ReplayAt::new(label, replay, budget))
            .collect();
        self
    }

    /// The summary line of one block, e.g. "0 pp: minimum sufficient budget 15%; unresolved there 20.6%
    /// [17.2, 23.9]; error and coverage targets met from 10%".
    pub fn summary_line(block: &ResultBlock) -> String {
        let sufficient = match block.min_sufficient_budget {
            Some(budget) => {
                let row = block.rows.iter().find(|r| r.budget == budget);
                let there = row.map_or(String::new(), |r| {
                    format!(
                        "; unresolved there {} {}",
                        percent(r.unresolved),
                        interval(r.unresolved_lo, r.unresolved_hi, 1)
                    )
                });
                let gaps = held_at(&block.rows, |r| r.sufficient)
                    .map_or(String::new(), |at| format!("; sufficient only at {at}"));
                format!("minimum sufficient budget {}{there}{gaps}", percent(budget))
            }
            None => {
                let last = block.rows.last().map_or(String::new(), |r| {
                    format!(
                        " (unresolved at {}: {} {})",
                        percent(r.budget),
                        percent(r.unresolved),
                        interval(r.unresolved_lo, r.unresolved_hi, 1)
                    )
                });
                format!("no sufficient budget in the grid{last}")
            }
        };
        let errors = match block.min_errors_coverage_budget {
            Some(budget) => match held_at(&block.rows, |r| r.errors_and_coverage_met) {
                Some(at) => format!("error and coverage targets met only at {at}"),
                None => format!("error and coverage targets met from {}", percent(budget)),
            },
            None => "error and coverage targets never met".to_string(),
        };
        format!(
            "{} pp: {sufficient}; {errors}",
            trim_number(block.threshold_pp)
        )
    }
}

/// The budgets of the grid where `holds` is true, as runs ("5%, 40%–95%"), when they are not every
/// budget from the first one that holds to the end of the grid; `None` when they are (or when none
/// holds). A summary that says "from 5%" must not hide a budget further on where the target fails.
pub fn held_at(rows: &[BudgetRow], holds: impl Fn(&BudgetRow) -> bool) -> Option<String> {
    let first = rows.iter().position(&holds)?;
    if rows[first..].iter().all(&holds) {
        return None;
    }
    let mut runs: Vec<String> = Vec::new();
    let mut start: Option<f64> = None;
    for (index, row) in rows.iter().enumerate() {
        if holds(row) {
            start.get_or_insert(row.budget);
        }
        let ends = !holds(row) || index + 1 == rows.len();
        if let (true, Some(from)) = (ends, start) {
            let to = if holds(row) {
                row.budget
            } else {
                rows[index - 1].budget
            };
            runs.push(if from == to {
                percent(from)
            } else {
                format!("{}–{}", percent(from), percent(to))
            });
            start = None;
        }
    }
    Some(runs.join(", "))
}

impl Render for ReplayReport {
    /// One line per (preset, threshold, budget); with pairs at a budget, one line per (preset,
    /// threshold, pair) instead.
    fn write_csv<W: Write>(&self, out: &mut W) -> io::Result<()> {
        if !self.pairs_at.is_empty() {
            return super::pairs::write_pairs_csv(&self.pairs_at, out);
        }
        writeln!(
            out,
            "preset,threshold_pp,budget,orders,pairs,cases,fpr,frr,coverage_failure,unresolved,unresolved_lo,unresolved_hi,accuracy,promote_rate,reject_rate,mean_observed,sufficient,errors_and_coverage_met,monitor,ever_wrong,family,adjust,fwer,false_decision_rate,tasks_not_run,steps_not_run_inside,joint_saving,cost_spent,seconds_spent,order,coverage_gate,rule,bootstrap,tail,looks,budget_by,group_column,seed,validity,coverage_share,bet_cap,bet_scale_min,bet_scale_max"
        )?;
        for block in &self.results {
            for row in &block.rows {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    csv_field(&block.preset),
                    trim_number(block.threshold_pp),
                    trim_number(row.budget),
                    block.orders,
                    block.pairs,
                    row.cases,
                    optional(row.fpr),
                    optional(row.frr),
                    row.coverage_failure,
                    row.unresolved,
                    row.unresolved_lo,
                    row.unresolved_hi,
                    optional(row.accuracy),
                    row.promote_rate,
                    row.reject_rate,
                    row.mean_observed,
                    row.sufficient,
                    row.errors_and_coverage_met,
                    block.monitor,
                    row.ever_wrong,
                    block.family,
                    block.adjust,
                    row.fwer,
                    optional(row.false_decision_rate),
                    optional(row.tasks_not_run),
                    optional(row.steps_not_run_inside),
                    optional(row.joint_saving),
                    optional(row.cost_spent),
                    optional(row.seconds_spent),
                    // The policy, so that CSVs of several runs (a --rule or --bootstrap over a
                    // preset) say which is which: the preset's name alone did not.
                    csv_field(&block.order),
                    block.coverage_gate,
                    csv_field(&block.rule),
                    csv_field(block.bootstrap.as_deref().unwrap_or("")),
                    optional(block.tail),
                    csv_field(&block.looks),
                    csv_field(&block.budget_measure),
                    csv_field(block.group_column.as_deref().unwrap_or("")),
                    block.seed,
                    csv_field(&block.validity),
                    trim_number(block.coverage_share),
                    optional(block.bet_cap),
                    optional(block.bet_scale.map(|[low, _]| low)),
                    optional(block.bet_scale.map(|[_, high]| high))
                )?;
            }
        }
        Ok(())
    }

    fn write_text<W: Write>(&self, out: &mut W, width: usize) -> io::Result<()> {
        if let Some(early) = &self.early {
            writeln!(out, "{}", early.describe())?;
            writeln!(out)?;
        }
        let mut previous: Option<&str> = None;
        for block in &self.results {
            if previous != Some(block.preset.as_str()) {
                if previous.is_some() {
                    writeln!(out)?;
                }
                writeln!(out, "{}: {}", block.preset, block.policy)?;
                writeln!(
                    out,
                    "  {} directed pairs (median {} shared tasks) × {} orders; budget by {}; group column {}; seed {}",
                    block.pairs,
                    trim_number(block.median_shared),
                    block.orders,
                    block.budget_measure,
                    block.group_column.as_deref().unwrap_or("none"),
                    block.seed
                )?;
                writeln!(
                    out,
                    "  targets: false promotion and rejection ≤ {}, coverage failure ≤ {}, unresolved ≤ {}",
                    percent(block.alpha),
                    percent(block.gamma),
                    percent(block.eta)
                )?;
                previous = Some(block.preset.as_str());
            }
            writeln!(out)?;
            writeln!(out, "  {}", Self::summary_line(block))?;
            // Under sequential monitoring the ever-wrong share is the figure that tells valid from invalid.
            let sequential = block.is_sequential();
            let families = block.has_families();
            let early = block.has_early();
            let spent = block.spent_column();
            let rows: Vec<Vec<String>> = block
                .rows
                .iter()
                .map(|r| {
                    let mut cells = vec![percent(r.budget), format!("{:.1}", r.mean_observed)];
                    if let Some((_, value)) = spent {
                        cells.push(optional_percent(value(r)));
                    }
                    cells.extend([optional_percent(r.fpr), optional_percent(r.frr)]);
                    if sequential {
                        cells.push(percent(r.ever_wrong));
                    }
                    if families {
                        cells.push(percent(r.fwer));
                        cells.push(optional_percent(r.false_decision_rate));
                    }
                    if early {
                        cells.extend(
                            [r.tasks_not_run, r.steps_not_run_inside, r.joint_saving]
                                .map(optional_percent),
                        );
                    }
                    cells.extend([
                        percent(r.coverage_failure),
                        percent(r.unresolved),
                        interval(r.unresolved_lo, r.unresolved_hi, 1),
                        if r.sufficient {
                            "✓ yes".to_string()
                        } else {
                            "✗ no".to_string()
                        },
                    ]);
                    cells
                })
                .collect();
            let mut header = vec!["budget", "tasks"];
            if let Some((name, _)) = spent {
                header.push(name);
            }
            header.extend(["FPR", "FRR"]);
            let mut align = vec![Align::Right; header.len()];
            if sequential {
                header.push("ever-wrong");
                align.push(Align::Right);
            }
            if families {
                header.extend(["FWER", "false dec."]);
                align.extend([Align::Right, Align::Right]);
            }
            if early {
                header.extend(["tasks not run", "steps not run inside", "joint saving"]);
                align.extend([Align::Right; 3]);
            }
            header.extend(["cov.fail", "unresolved", "95% interval", "sufficient"]);
            align.extend([Align::Right, Align::Right, Align::Left, Align::Left]);
            // Too wide for the width (sequential monitoring adds ever-wrong, families and early
            // halting more): short headers and a smaller indent first, then blocks led by budget and
            // tasks.
            let mut indent = 4;
            if natural_width(&header, &rows, indent) > width {
                for name in &mut header {
                    *name = match *name {
                        "unresolved" => "unres.",
                        "sufficient" => "suff.",
                        other => other,
                    };
                }
                indent = 2;
            }
            write!(
                out,
                "{}",
                render_split(&header, &align, &rows, width, indent, 2)
            )?;
        }
        super::pairs::write_text(&self.pairs_at, out, width)?;
        if !self.notes.is_empty() {
            writeln!(out)?;
            for note in &self.notes {
                writeln!(out, "note: {note}")?;
            }
        }
        Ok(())
    }

    fn write_markdown<W: Write>(&self, out: &mut W) -> io::Result<()> {
        if let Some(early) = &self.early {
            writeln!(out, "{}.", early.describe())?;
            writeln!(out)?;
        }
        for block in &self.results {
            writeln!(
                out,
                "### {} — {} pp",
                block.preset,
                trim_number(block.threshold_pp)
            )?;
            writeln!(out)?;
            writeln!(
                out,
                "{}. {} directed pairs × {} orders, seed {}.",
                block.policy, block.pairs, block.orders, block.seed
            )?;
            writeln!(out)?;
            writeln!(out, "{}", Self::summary_line(block))?;
            writeln!(out)?;
            let sequential = block.is_sequential();
            let families = block.has_families();
            let early = block.has_early();
            writeln!(
                out,
                "| budget | tasks | FPR | FRR |{}{}{} coverage failure | unresolved | 95% interval | sufficient |",
                if sequential { " ever-wrong |" } else { "" },
                if families {
                    " FWER | false decisions |"
                } else {
                    ""
                },
                if early {
                    " tasks not run | steps not run inside | joint saving |"
                } else {
                    ""
                }
            )?;
            writeln!(
                out,
                "|---:|---:|---:|---:|{}{}{}---:|---:|---|---|",
                if sequential { "---:|" } else { "" },
                if families { "---:|---:|" } else { "" },
                if early { "---:|---:|---:|" } else { "" }
            )?;
            for r in &block.rows {
                writeln!(
                    out,
                    "| {} | {:.1} | {} | {} |{}{}{} {} | {} | {} | {} |",
                    percent(r.budget),
                    r.mean_observed,
                    optional_percent(r.fpr),
                    optional_percent(r.frr),
                    if sequential {
                        format!(" {} |", percent(r.ever_wrong))
                    } else {
                        String::new()
                    },
                    if families {
                        format!(
                            " {} | {} |",
                            percent(r.fwer),
                            optional_percent(r.false_decision_rate)
                        )
                    } else {
                        String::new()
                    },
                    if early {
                        [r.tasks_not_run, r.steps_not_run_inside, r.joint_saving]
                            .map(|x| format!(" {} |", optional_percent(x)))
                            .concat()
                    } else {
                        String::new()
                    },
                    percent(r.coverage_failure),
                    percent(r.unresolved),
                    interval(r.unresolved_lo, r.unresolved_hi, 1),
                    if r.sufficient { "yes" } else { "no" }
                )?;
            }
            writeln!(out)?;
        }
        super::pairs::write_markdown(&self.pairs_at, out)?;
        for note in &self.notes {
            writeln!(out, "> {note}")?;
        }
        Ok(())
    }
}

fn optional_percent(x: Option<f64>) -> String {
    x.map_or("-".to_string(), percent)
}

fn optional(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| v.to_string())
}

/// The coverage share of a result written before it was a field: the paper's 1.
fn one() -> f64 {
    1.0
}
