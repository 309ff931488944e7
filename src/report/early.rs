//! `pareval early` output (SPEC §11): one row per (protocol, τ) with coverage, accuracy, both models'
//! precision and AUC, the steps eliminated and the agreement of the early leaderboard with the full
//! one, then the per-system resolve rates full against early. JSON `results[]` carries every field
//! with `systems[]`.

use std::io::{self, Write};

use serde::Serialize;

use super::Render;
use super::table::{Align, render, render_split};
use crate::early::evaluate::{ModelAtTarget, TargetResult, TauResult, TauSpread};
use crate::format::{csv_field, percent, trim_number};

#[derive(Debug, Clone, Serialize)]
pub struct EarlyReport {
    pub trajectories: usize,
    pub systems: usize,
    pub folds: Vec<String>,
    pub results: Vec<TauResult>,
    /// Halting by target precision on the test folds, one per --target-precision value.
    pub target: Vec<TargetResult>,
    /// The saved predictor (with --save-model).
    pub saved: Option<SavedSummary>,
}

/// What `--save-model` wrote.
#[derive(Debug, Clone, Serialize)]
pub struct SavedSummary {
    pub path: String,
    pub bytes: usize,
    pub trajectories: usize,
    pub trained_on: usize,
    /// None: that model never halts.
    pub tau_success: Option<f64>,
    pub tau_failure: Option<f64>,
    pub target_precision: Option<f64>,
    /// The inner split behind the operating curves: grouping and folds.
    pub inner_grouping: &'static str,
    pub inner_folds: usize,
}

fn tau_text(tau: Option<f64>) -> String {
    tau.map_or("never".to_string(), |t| format!("{t:.4}"))
}

impl SavedSummary {
    pub fn write_text<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        let chosen = self.target_precision.map_or("fixed".to_string(), |p| {
            format!("target precision {}", percent(p))
        });
        writeln!(
            out,
            "saved model: {} ({:.1} MB; trained on {} of {} trajectories; τ_s {}, τ_f {} ({chosen}); operating curves from an inner split by {} in {} folds)",
            self.path,
            self.bytes as f64 / 1e6,
            self.trained_on,
            self.trajectories,
            tau_text(self.tau_success),
            tau_text(self.tau_failure),
            self.inner_grouping,
            self.inner_folds
        )
    }
}

fn write_model_at_target<W: Write>(
    out: &mut W,
    name: &str,
    model: &ModelAtTarget,
    spread: TauSpread,
) -> io::Result<()> {
    let range = spread.range.map_or("no τ".to_string(), |(lo, hi)| {
        format!("τ {lo:.3} … {hi:.3}")
    });
    writeln!(
        out,
        "    {name} model: {} halts ({} of tested trajectories), precision {}, steps saved {}; {range} over folds, never halts in {} of {}",
        model.halts,
        percent(model.coverage),
        optional(model.precision, percent),
        percent(model.steps_saved),
        spread.never,
        spread.folds
    )
}

fn optional(x: Option<f64>, show: fn(f64) -> String) -> String {
    x.map_or("-".to_string(), show)
}

fn three(x: f64) -> String {
    format!("{x:.3}")
}

impl EarlyReport {
    fn rows(&self) -> Vec<Vec<String>> {
        self.results
            .iter()
            .map(|r| {
                vec![
                    r.protocol.to_string(),
                    trim_number(r.tau),
                    percent(r.coverage),
                    optional(r.accuracy, percent),
                    optional(r.success_precision, percent),
                    optional(r.failure_precision, percent),
                    percent(r.steps_saved),
                    optional(r.spearman, three),
                    optional(r.kendall, three),
                    format!("{:.1}", r.mean_abs_delta_pp),
                    format!("{:.1}", r.max_abs_delta_pp),
                    optional(r.pair_agreement, percent),
                ]
            })
            .collect()
    }

    const HEADER: [&'static str; 12] = [
        "protocol",
        "τ",
        "coverage",
        "accuracy",
        "prec. success",
        "prec. failure",
        "steps saved",
        "Spearman",
        "Kendall",
        "mean |Δ| pp",
        "max |Δ| pp",
        "pairs agree",
    ];
}

/// The per-system table's header and rows at one τ (full and early resolve rate, their difference,
/// halts), for the text and Markdown reports.
const SYSTEM_HEADER: [&str; 5] = ["system", "full", "early", "Δ pp", "halted"];

fn system_rows(result: &TauResult) -> Vec<Vec<String>> {
    result
        .systems
        .iter()
        .map(|s| {
            vec![
                s.system.clone(),
                percent(s.full),
                percent(s.early),
                format!("{:+.1}", s.delta_pp),
                format!("{} of {}", s.halted, s.trajectories),
            ]
        })
        .collect()
}

impl Render for EarlyReport {
    fn write_text<W: Write>(&self, out: &mut W, width: usize) -> io::Result<()> {
        writeln!(
            out,
            "early outcome prediction: {} trajectories of {} systems, {} folds",
            self.trajectories,
            self.systems,
            self.folds.len()
        )?;
        if let Some(first) = self.results.first() {
            writeln!(
                out,
                "  AUC on test prefixes: success model {}, failure model {}",
                optional(first.auc_success, three),
                optional(first.auc_failure, three)
            )?;
            let weakest = [first.auc_success, first.auc_failure]
                .into_iter()
                .flatten()
                .fold(f64::INFINITY, f64::min);
            if crate::early::metrics::near_chance(weakest) {
                let warning = format!(
                    "⚠ near chance (AUC below {}): the models barely tell successes from failures on held-out trajectories, so halts at a fixed τ follow noise (read the rank agreement below); --target-precision P halts only where P is measured to hold",
                    crate::early::metrics::NEAR_CHANCE_AUC
                );
                for line in crate::format::wrap(&warning, width.saturating_sub(4).max(20)) {
                    writeln!(out, "    {line}")?;
                }
            }
        }
        writeln!(out)?;
        let mut align = vec![Align::Left];
        align.extend([Align::Right; 11]);
        write!(
            out,
            "{}",
            render_split(&Self::HEADER, &align, &self.rows(), width, 2, 2)
        )?;
        if let Some(last) = self.results.last() {
            writeln!(out)?;
            writeln!(
                out,
                "  resolve rate per system at τ = {}",
                trim_number(last.tau)
            )?;
            let rows = system_rows(last);
            let header = SYSTEM_HEADER;
            let align = [
                Align::Left,
                Align::Right,
                Align::Right,
                Align::Right,
                Align::Right,
            ];
            write!(out, "{}", render(&header, &align, &rows, width, 4))?;
        }
        for target in &self.target {
            let grouping = target.folds.first().map_or("", |f| f.grouping);
            writeln!(out)?;
            writeln!(
                out,
                "  target precision {}: τ_s and τ_f chosen on each fold's training side (inner split by {grouping}), measured on the test folds",
                percent(target.precision)
            )?;
            write_model_at_target(out, "success", &target.success, target.spread(true))?;
            write_model_at_target(out, "failure", &target.failure, target.spread(false))?;
            writeln!(
                out,
                "    both: coverage {}, accuracy {}, steps saved {}",
                percent(target.coverage),
                optional(target.accuracy, percent),
                percent(target.steps_saved)
            )?;
        }
        if let Some(saved) = &self.saved {
            writeln!(out)?;
            saved.write_text(out)?;
        }
        Ok(())
    }

    fn write_csv<W: Write>(&self, out: &mut W) -> io::Result<()> {
        writeln!(
            out,
            "protocol,tau,coverage,accuracy,success_precision,failure_precision,steps_saved,tokens_in_saved,tokens_out_saved,auc_success,auc_failure,spearman,kendall,exact_rank_share,mean_abs_delta_pp,max_abs_delta_pp,pair_agreement"
        )?;
        let o = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
        for r in &self.results {
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                csv_field(r.protocol),
                r.tau,
                r.coverage,
                o(r.accuracy),
                o(r.success_precision),
                o(r.failure_precision),
                r.steps_saved,
                o(r.tokens_in_saved),
                o(r.tokens_out_saved),
                o(r.auc_success),
                o(r.auc_failure),
                o(r.spearman),
                o(r.kendall),
                r.exact_rank_share,
                r.mean_abs_delta_pp,
                r.max_abs_delta_pp,
                o(r.pair_agreement)
            )?;
        }
        Ok(())
    }

    /// The text report's parts as Markdown: the counts and AUC (with the near-chance warning) as
    /// paragraphs, the two tables with their cells escaped (`mean |Δ| pp` broke the header row into
    /// 16 cells over a 12-cell rule, so no renderer drew a table), and the target-precision and
    /// saved-model lines as the text report writes them, in a text block.
    fn write_markdown<W: Write>(&self, out: &mut W) -> io::Result<()> {
        let table = |out: &mut W, header: &[&str], rows: &[Vec<String>]| -> io::Result<()> {
            let cells = |row: &mut dyn Iterator<Item = String>| {
                row.map(|c| crate::format::markdown_cell(&c))
                    .collect::<Vec<_>>()
                    .join(" | ")
            };
            writeln!(
                out,
                "| {} |",
                cells(&mut header.iter().map(|h| h.to_string()))
            )?;
            writeln!(out, "|---|{}", "---:|".repeat(header.len() - 1))?;
            for row in rows {
                writeln!(out, "| {} |", cells(&mut row.iter().cloned()))?;
            }
            Ok(())
        };
        // The text report's lines before its first table (counts, AUC, the warning), as paragraphs.
        let mut text = Vec::new();
        self.write_text(&mut text, 10_000)?;
        let text = String::from_utf8_lossy(&text);
        for line in text.lines().take_while(|line| !line.trim().is_empty()) {
            writeln!(out, "{}  ", line.trim())?;
        }
        writeln!(out)?;
        table(out, &Self::HEADER, &self.rows())?;
        if let Some(last) = self.results.last() {
            writeln!(
                out,
                "\nResolve rate per system at τ = {}:\n",
                trim_number(last.tau)
            )?;
            table(out, &SYSTEM_HEADER, &system_rows(last))?;
        }
        // Target precision and the saved model: the text report's own lines after its tables.
        if let Some(start) = text
            .find("\n  target precision")
            .or_else(|| self.saved.as_ref().and_then(|_| text.find("\nsaved model")))
        {
            writeln!(out, "\n```text\n{}\n```", text[start..].trim())?;
        }
        Ok(())
    }
}
