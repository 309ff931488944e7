//! `pareval early` output (SPEC §11): one row per (protocol, τ) with coverage, accuracy, both models'
//! precision and AUC, the steps eliminated and the agreement of the early leaderboard with the full
//! one, then the per-system resolve rates full against early. JSON `results[]` carries every field
//! with `systems[]`.

use std::io::{self, Write};

use serde::Serialize;

use super::Render;
use super::table::{Align, render};
use crate::early::evaluate::TauResult;
use crate::format::{csv_field, percent, trim_number};

#[derive(Debug, Clone, Serialize)]
pub struct EarlyReport {
    pub trajectories: usize,
    pub systems: usize,
    pub folds: Vec<String>,
    pub results: Vec<TauResult>,
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
        }
        writeln!(out)?;
        let mut align = vec![Align::Left];
        align.extend([Align::Right; 11]);
        write!(
            out,
            "{}",
            render(&Self::HEADER, &align, &self.rows(), width, 2)
        )?;
        if let Some(last) = self.results.last() {
            writeln!(out)?;
            writeln!(
                out,
                "  resolve rate per system at τ = {}",
                trim_number(last.tau)
            )?;
            let rows: Vec<Vec<String>> = last
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
                .collect();
            let header = ["system", "full", "early", "Δ pp", "halted"];
            let align = [
                Align::Left,
                Align::Right,
                Align::Right,
                Align::Right,
                Align::Right,
            ];
            write!(out, "{}", render(&header, &align, &rows, width, 4))?;
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

    fn write_markdown<W: Write>(&self, out: &mut W) -> io::Result<()> {
        writeln!(out, "| {} |", Self::HEADER.join(" | "))?;
        writeln!(out, "|---|{}", "---:|".repeat(Self::HEADER.len() - 1))?;
        for row in self.rows() {
            writeln!(out, "| {} |", row.join(" | "))?;
        }
        Ok(())
    }
}
