//! What a replay says at one budget of its grid: each directed pair's decisions over orders (the
//! explorer's pair table) and how often each group is missed (the coverage view). Computed here once
//! for the explorer's tables, `pareval replay --pairs-at` and the explorer's exports.

use std::io::{self, Write};

use serde::Serialize;

use crate::engine::Replay;
use crate::format::{csv_field, markdown_cell, percent, pp, trim_number};

/// The completed-record decision of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Completed {
    Promote,
    Reject,
}

impl Completed {
    pub fn name(self) -> &'static str {
        match self {
            Completed::Promote => "promote",
            Completed::Reject => "reject",
        }
    }
}

/// One directed pair at one threshold and budget: shares of its orders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairRow {
    /// Index of the pair in the replay.
    #[serde(skip)]
    pub pair: usize,
    pub threshold_pp: f64,
    pub tested: String,
    pub baseline: String,
    pub shared: u32,
    pub delta_full: f64,
    pub completed: Completed,
    pub promote: f64,
    pub reject: f64,
    pub abstain: f64,
    /// Share of orders whose decision disagrees with the completed record.
    pub wrong: f64,
}

/// Every pair of `replay` at threshold index `threshold` and budget index `budget`, in pair order.
pub fn pair_rows(replay: &Replay, threshold: usize, budget: usize) -> Vec<PairRow> {
    let prepared = &replay.prepared;
    let orders = f64::from(prepared.settings.orders);
    let threshold_pp = prepared.settings.thresholds[threshold].pp();
    prepared
        .pairs
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let counts = replay.pair_counts(i, threshold, budget);
            let (tested, baseline) = prepared.names(pair);
            PairRow {
                pair: i,
                threshold_pp,
                tested: tested.to_string(),
                baseline: baseline.to_string(),
                shared: pair.n(),
                delta_full: pair.delta_full(),
                completed: if replay.completed[i][threshold] {
                    Completed::Promote
                } else {
                    Completed::Reject
                },
                promote: f64::from(counts.promote) / orders,
                reject: f64::from(counts.reject) / orders,
                abstain: f64::from(counts.abstain) / orders,
                wrong: f64::from(counts.wrong) / orders,
            }
        })
        .collect()
}

/// One group of the group column at one budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupRow {
    pub group: String,
    /// Cases (pairs sharing a task of the group × orders) whose prefix misses the group's quota.
    pub missed: u32,
    pub cases: u32,
    /// missed / cases (0 without cases).
    pub missed_share: f64,
}

/// Every group label of the replay's group column at budget index `budget`.
pub fn group_rows(replay: &Replay, budget: usize) -> Vec<GroupRow> {
    replay
        .prepared
        .grouping
        .labels
        .iter()
        .enumerate()
        .map(|(g, label)| {
            let missed = replay.group_missing[g][budget];
            let cases = replay.group_cases[g];
            GroupRow {
                group: label.clone(),
                missed,
                cases,
                missed_share: f64::from(missed) / f64::from(cases.max(1)),
            }
        })
        .collect()
}

/// The pairs and groups of one replay (one preset) at one budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayAt {
    pub preset: String,
    pub budget: f64,
    /// Every pair at every threshold, thresholds in ascending order.
    pub pairs: Vec<PairRow>,
    pub groups: Vec<GroupRow>,
}

impl ReplayAt {
    /// `budget` is an index into the replay's grid.
    pub fn new(preset: &str, replay: &Replay, budget: usize) -> Self {
        let thresholds = replay.prepared.settings.thresholds.len();
        ReplayAt {
            preset: preset.to_string(),
            budget: replay.prepared.settings.grid[budget].value(),
            pairs: (0..thresholds)
                .flat_map(|t| pair_rows(replay, t, budget))
                .collect(),
            groups: group_rows(replay, budget),
        }
    }
}

pub const PAIR_CSV_HEADER: &str = "preset,budget,threshold_pp,tested,baseline,shared,delta_full,completed,promote,reject,abstain,wrong";

/// The pair rows as CSV, one line per (preset, threshold, pair).
pub fn write_pairs_csv(at: &[ReplayAt], out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{PAIR_CSV_HEADER}")?;
    for block in at {
        for row in &block.pairs {
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                csv_field(&block.preset),
                trim_number(block.budget),
                trim_number(row.threshold_pp),
                csv_field(&row.tested),
                csv_field(&row.baseline),
                row.shared,
                row.delta_full,
                row.completed.name(),
                row.promote,
                row.reject,
                row.abstain,
                row.wrong
            )?;
        }
    }
    Ok(())
}

/// The group rows as CSV, one line per (preset, group).
pub fn write_groups_csv(at: &[ReplayAt], out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "preset,budget,group,missed,cases,missed_share")?;
    for block in at {
        for row in &block.groups {
            writeln!(
                out,
                "{},{},{},{},{},{}",
                csv_field(&block.preset),
                trim_number(block.budget),
                csv_field(&row.group),
                row.missed,
                row.cases,
                row.missed_share
            )?;
        }
    }
    Ok(())
}

/// The pair and group tables as Markdown, one section per preset and threshold.
pub fn write_markdown(at: &[ReplayAt], out: &mut impl Write) -> io::Result<()> {
    for block in at {
        let mut thresholds: Vec<f64> = block.pairs.iter().map(|r| r.threshold_pp).collect();
        thresholds.dedup();
        for threshold in thresholds {
            writeln!(
                out,
                "### {} — pairs at budget {}, {} pp\n",
                block.preset,
                percent(block.budget),
                trim_number(threshold)
            )?;
            writeln!(
                out,
                "| tested | baseline | shared | Δ_full | completed | promote | reject | abstain | wrong |"
            )?;
            writeln!(out, "|---|---|---:|---:|---|---:|---:|---:|---:|")?;
            for row in block.pairs.iter().filter(|r| r.threshold_pp == threshold) {
                writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    markdown_cell(&row.tested),
                    markdown_cell(&row.baseline),
                    row.shared,
                    pp(row.delta_full),
                    row.completed.name(),
                    percent(row.promote),
                    percent(row.reject),
                    percent(row.abstain),
                    percent(row.wrong)
                )?;
            }
            writeln!(out)?;
        }
        writeln!(
            out,
            "### {} — groups missed at budget {}\n",
            block.preset,
            percent(block.budget)
        )?;
        writeln!(out, "| group | missed | cases | missed share |")?;
        writeln!(out, "|---|---:|---:|---:|")?;
        for row in &block.groups {
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                markdown_cell(&row.group),
                row.missed,
                row.cases,
                percent(row.missed_share)
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The pair tables as text, one per preset and threshold, fitted to `width`.
pub fn write_text(at: &[ReplayAt], out: &mut impl Write, width: usize) -> io::Result<()> {
    use super::table::{Align, render};
    for block in at {
        let mut thresholds: Vec<f64> = block.pairs.iter().map(|r| r.threshold_pp).collect();
        thresholds.dedup();
        for threshold in thresholds {
            writeln!(out)?;
            writeln!(
                out,
                "{}: pairs at budget {}, {} pp (shares of orders)",
                block.preset,
                percent(block.budget),
                trim_number(threshold)
            )?;
            let rows: Vec<Vec<String>> = block
                .pairs
                .iter()
                .filter(|r| r.threshold_pp == threshold)
                .map(|r| {
                    vec![
                        r.shared.to_string(),
                        pp(r.delta_full),
                        r.completed.name().to_string(),
                        percent(r.promote),
                        percent(r.reject),
                        percent(r.abstain),
                        percent(r.wrong),
                        format!("{} vs {}", r.tested, r.baseline),
                    ]
                })
                .collect();
            // The pair's names come last and whole: leaderboard names are long and share their
            // start ("HAL Generalist Agent (…", "20250807_mini-v1.7.0_…"), so a first column cut
            // to fit 80 characters read the same on every row. Past the edge a terminal wraps them
            // and the numbers stay in their columns.
            let header = [
                "shared",
                "Δ_full",
                "completed",
                "promote",
                "reject",
                "abstain",
                "wrong",
                "tested vs baseline",
            ];
            let mut align = [Align::Right; 8];
            align[2] = Align::Left;
            align[7] = Align::Left;
            write!(out, "{}", render(&header, &align, &rows, width, 2))?;
        }
        // The groups a stop at this budget missed, as Markdown and JSON give them (text left
        // them out).
        writeln!(out)?;
        writeln!(
            out,
            "{}: groups missed at budget {} (cases whose prefix misses the group's quota)",
            block.preset,
            percent(block.budget)
        )?;
        let rows: Vec<Vec<String>> = block
            .groups
            .iter()
            .map(|row| {
                vec![
                    row.missed.to_string(),
                    row.cases.to_string(),
                    percent(row.missed_share),
                    row.group.clone(),
                ]
            })
            .collect();
        let header = ["missed", "cases", "share", "group"];
        let align = [Align::Right, Align::Right, Align::Right, Align::Left];
        write!(out, "{}", render(&header, &align, &rows, width, 2))?;
    }
    Ok(())
}
