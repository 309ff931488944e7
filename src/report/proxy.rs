//! `pareval proxy` output: one row per method, protocol and subset size with the metrics of SPEC §10,
//! plus per-system predictions, as text, CSV, JSON and Markdown from one list of results. JSON field names
//! are a contract with scripts: `results[]` with `method`, `protocol`, `budget`, `size`, `spearman`,
//! `kendall`, `r2`, `mae_pp`, `pair_accuracy` and `systems[]` (`system`, `predicted`, `actual`).

use std::io::{self, Write};

use super::Render;
use super::table::{Align, render, render_split};
use crate::proxy::ProxyResult;
/// The report is the evaluation itself ([`crate::proxy::evaluate_protocols`] or Pace's
/// leave-one-model-out); this module only renders it.
pub use crate::proxy::{ProxyEvaluation as ProxyReport, ProxyRow};

/// The pair-decision agreement at the i-th threshold, or empty when it was not measured (Pace).
fn agreement(result: &ProxyResult, i: usize) -> String {
    result
        .decision_agreement
        .get(i)
        .map_or(String::new(), |a| a.to_string())
}

fn num(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{v:.3}"))
}

impl Render for ProxyReport {
    fn write_csv<W: Write>(&self, out: &mut W) -> io::Result<()> {
        writeln!(
            out,
            "method,protocol,budget,size,spearman,kendall,r2,mae_pp,pair_accuracy,subset_mean_spearman,agreement_0pp,agreement_5pp,agreement_10pp,task_share,cost_share,rounds,spearman_sd,mae_pp_sd,folds,constant_folds,empty_folds"
        )?;
        for row in &self.results {
            let r = &row.result;
            let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.method,
                r.protocol,
                opt(r.budget),
                r.size,
                opt(r.spearman),
                opt(r.kendall),
                opt(r.r2),
                r.mae_pp,
                opt(r.pair_accuracy),
                opt(r.subset_mean_spearman),
                agreement(r, 0),
                agreement(r, 1),
                agreement(r, 2),
                r.task_share,
                opt(r.cost_share),
                r.rounds,
                opt(row.spearman_sd),
                opt(row.mae_pp_sd),
                r.folds,
                r.constant_folds,
                r.empty_folds
            )?;
        }
        Ok(())
    }

    fn write_text<W: Write>(&self, out: &mut W, width: usize) -> io::Result<()> {
        writeln!(
            out,
            "{} systems · {} task{} with an outcome for every system{}",
            self.systems,
            self.tasks,
            if self.tasks == 1 { "" } else { "s" },
            if self.tasks_left_out > 0 {
                format!(
                    " ({} task{} left out)",
                    self.tasks_left_out,
                    if self.tasks_left_out == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            }
        )?;
        for line in crate::format::wrap(
            "ρ, τ-b, R², MAE, pairs: ridge predictions (α = 1) vs full scores; ρ mean: the subset mean's rank correlation; \
             agree 0pp: share of ordered pairs whose proxy decision matches the completed record at 0 pp",
            width,
        ) {
            writeln!(out, "{line}")?;
        }
        writeln!(out)?;
        let mut align = vec![Align::Left, Align::Left];
        align.extend([Align::Right; 9]);
        write!(
            out,
            "{}",
            render_split(&HEADER, &align, &self.rows(), width, 0, 4)
        )?;
        if !self.notes.is_empty() {
            writeln!(out)?;
            for note in &self.notes {
                for line in crate::format::wrap(&format!("note: {note}"), width) {
                    writeln!(out, "{line}")?;
                }
            }
        }
        if let [row] = self.results.as_slice() {
            writeln!(out)?;
            writeln!(
                out,
                "per system ({} under {})",
                row.result.method, row.result.protocol
            )?;
            let rows: Vec<Vec<String>> = row
                .result
                .systems
                .iter()
                .map(|s| {
                    vec![
                        s.system.clone(),
                        format!("{:.3}", s.predicted),
                        format!("{:.3}", s.actual),
                        format!("{:+.1}", (s.predicted - s.actual) * 100.0),
                    ]
                })
                .collect();
            write!(
                out,
                "{}",
                render(
                    &["system", "predicted", "actual", "error pp"],
                    &[Align::Left, Align::Right, Align::Right, Align::Right],
                    &rows,
                    width,
                    2
                )
            )?;
        }
        Ok(())
    }

    fn write_markdown<W: Write>(&self, out: &mut W) -> io::Result<()> {
        writeln!(out, "| {} |", HEADER.join(" | "))?;
        writeln!(
            out,
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        )?;
        for row in self.rows() {
            writeln!(out, "| {} |", row.join(" | "))?;
        }
        // The notes say which figures are left out and why: a table pasted without them reads a
        // `-` as a missing measurement.
        for note in &self.notes {
            writeln!(out, "\nNote: {note}")?;
        }
        Ok(())
    }
}

impl ProxyReport {
    fn rows(&self) -> Vec<Vec<String>> {
        self.results
            .iter()
            .map(|row| {
                let r = &row.result;
                let spread = row
                    .spearman_sd
                    .map_or(String::new(), |sd| format!("±{sd:.3}"));
                vec![
                    r.method.to_string(),
                    r.protocol.to_string(),
                    r.budget
                        .map_or("-".to_string(), |b| format!("{:.0}%", b * 100.0)),
                    r.size.to_string(),
                    format!("{}{spread}", num(r.spearman)),
                    num(r.kendall),
                    num(r.r2),
                    format!("{:.1}", r.mae_pp),
                    num(r.pair_accuracy),
                    num(r.subset_mean_spearman),
                    r.decision_agreement
                        .first()
                        .map_or("-".to_string(), |a| format!("{a:.3}")),
                ]
            })
            .collect()
    }
}

const HEADER: [&str; 11] = [
    "method",
    "protocol",
    "budget",
    "k",
    "ρ",
    "τ-b",
    "R²",
    "MAE pp",
    "pairs",
    "ρ mean",
    "agree 0pp",
];
