//! `pareval pair` output: one directed pair explained. Text walks through the decision at the chosen
//! order and budget (coverage table, margin, tails), then the action at every budget of that order and
//! the shares of actions over all orders. JSON is the [`PairDetail`] itself.

use std::io::{self, Write};

use super::table::{Align, render};
use crate::engine::rules::Action;
use crate::engine::walk::detail::PairDetail;
use crate::engine::walk::record::DecisionRecord;
use crate::format::{p_value, percent, pp, trim_number};

fn glyph(action: Action) -> &'static str {
    match action {
        Action::Promote => "▲ promote",
        Action::Reject => "▼ reject",
        Action::Abstain => "○ abstain",
        Action::Continue => "… continue",
    }
}

pub fn write_json(detail: &PairDetail, out: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, detail)?;
    writeln!(out)
}

/// §9a: per group what it has shown and the least favourable allocation of each threshold's nulls
/// (the group means the minimiser gives it), so the groups a decision hinges on can be read.
fn write_allocation(
    detail: &PairDetail,
    trace: &crate::engine::rules::stratified::StratifiedTrace,
    out: &mut impl Write,
    width: usize,
) -> io::Result<()> {
    writeln!(
        out,
        "least favourable allocation per group (§9a, {}; Λ against ln(1/a) = {:.3}):",
        trace.grid, trace.ln_barrier
    )?;
    let mut header = vec![
        "group".to_string(),
        "seen".to_string(),
        "Δ̄ seen".to_string(),
    ];
    for t in &detail.thresholds_pp {
        header.push(format!("{} pp null⁺", trim_number(*t)));
        header.push(format!("{} pp null⁻", trim_number(*t)));
    }
    let cell = |rows: &[Vec<f64>], t: usize, g: usize| {
        rows.get(t)
            .and_then(|r| r.get(g))
            .filter(|v| v.is_finite())
            .map_or("-".to_string(), |&v| pp(v))
    };
    let rows: Vec<Vec<String>> = trace
        .groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            let mut row = vec![
                group.group.clone(),
                format!("{}/{}", group.seen, group.size),
                group.observed_mean.map_or("-".to_string(), pp),
            ];
            for t in 0..detail.thresholds_pp.len() {
                row.push(cell(&trace.allocation_promote, t, g));
                row.push(cell(&trace.allocation_reject, t, g));
            }
            row
        })
        .collect();
    let mut align = vec![Align::Left, Align::Right, Align::Right];
    align.extend(std::iter::repeat_n(
        Align::Right,
        2 * detail.thresholds_pp.len(),
    ));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    write!(out, "{}", render(&header, &align, &rows, width, 2))?;
    for (t, threshold) in detail.thresholds_pp.iter().enumerate() {
        let last = |rows: &[Vec<f64>]| rows.get(t).and_then(|r| r.last()).copied();
        if let (Some(up), Some(down)) = (last(&trace.lambda_promote), last(&trace.lambda_reject)) {
            writeln!(
                out,
                "  {} pp: Λ⁺ = {}, Λ⁻ = {}",
                trim_number(*threshold),
                lambda_text(up),
                lambda_text(down)
            )?;
        }
    }
    writeln!(out)
}

fn lambda_text(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "+∞" } else { "−∞" }.to_string()
    } else {
        format!("{x:.3}")
    }
}

/// The rule's settings after its name: the bootstrap's tails (exact, or mc:B with the resamples,
/// as replay's header names them; `--bootstrap exact` off the lattice draws mc:200) and a.
fn rule_settings(record: &DecisionRecord) -> String {
    let mode = match (record.bootstrap_mode, record.bootstrap_resamples) {
        (Some("mc"), Some(resamples)) => Some(format!("mc:{resamples}")),
        (Some(mode), _) => Some(mode.to_string()),
        (None, _) => None,
    };
    let tail = record.tail.map(|a| format!("a = {}", trim_number(a)));
    let parts: Vec<String> = mode.into_iter().chain(tail).collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

pub fn write_text(detail: &PairDetail, out: &mut impl Write, width: usize) -> io::Result<()> {
    writeln!(out, "tested    {}", detail.tested)?;
    writeln!(out, "baseline  {}", detail.baseline)?;
    let left_out = if detail.left_out > 0 {
        format!(" ({} left out for the budget measure)", detail.left_out)
    } else {
        String::new()
    };
    writeln!(
        out,
        "shared    {} tasks{left_out}; completed difference Δ_full = {}",
        detail.shared,
        pp(detail.delta_full)
    )?;
    let completed: Vec<String> = detail
        .thresholds_pp
        .iter()
        .zip(&detail.completed)
        .map(|(t, a)| format!("{} pp → {}", trim_number(*t), a.name()))
        .collect();
    writeln!(out, "completed {}", completed.join(", "))?;
    if let Some(record) = detail.records.first() {
        writeln!(
            out,
            "policy    {} order, coverage gate {}, rule {}{}",
            record.order,
            if record.coverage_gate { "on" } else { "off" },
            record.rule,
            rule_settings(record)
        )?;
        if let Some(note) = &detail.family_note {
            writeln!(out, "family    {note}")?;
        }
        if let Some(construction) = record.construction {
            writeln!(out, "anytime   {construction}; {}", record.validity)?;
        }
        if record.monitor != "per-look" {
            writeln!(
                out,
                "monitor   {} ({}), first decision kept; {}",
                record.monitor,
                crate::engine::settings::Looks::parse(record.looks)
                    .map_or(record.looks, |looks| looks.in_words()),
                record.validity
            )?;
        }
        writeln!(out)?;
        writeln!(
            out,
            "order {} of {}, budget {}: {} of {} tasks observed, coverage {}",
            detail.order_index,
            detail.orders,
            percent(detail.budget),
            record.observed,
            record.total,
            record.coverage.name()
        )?;
        let rows: Vec<Vec<String>> = record
            .coverage_groups
            .iter()
            .map(|g| {
                vec![
                    g.group.clone(),
                    g.required.to_string(),
                    g.observed.to_string(),
                    g.total.to_string(),
                    if g.is_missing() {
                        "✗ missing".to_string()
                    } else {
                        "✓".to_string()
                    },
                ]
            })
            .collect();
        let align = [
            Align::Left,
            Align::Right,
            Align::Right,
            Align::Right,
            Align::Left,
        ];
        write!(
            out,
            "{}",
            render(
                &["group", "required", "observed", "total", ""],
                &align,
                &rows,
                width,
                2
            )
        )?;
        writeln!(out)?;
        for record in &detail.records {
            let agreement = match record.agrees {
                Some(true) => " (agrees with the completed record)",
                Some(false) => " (DISAGREES with the completed record)",
                None => "",
            };
            writeln!(
                out,
                "  {} pp: {}{agreement}",
                trim_number(record.threshold_pp),
                glyph(record.action)
            )?;
            writeln!(out, "    {}", record.reason)?;
            if let Some(at) = record.decided_at
                && at < record.observed
            {
                writeln!(out, "    decided after {at} tasks and kept since")?;
            }
        }
        writeln!(out)?;
        if let Some(trace) = &detail.stratified {
            write_allocation(detail, trace, out, width)?;
        }
        write_cross_check(detail, out)?;
    }
    writeln!(out)?;
    writeln!(out, "order {} at every budget", detail.order_index)?;
    let mut header = vec![
        "budget".to_string(),
        "tasks".to_string(),
        "coverage".to_string(),
        "Δ̂".to_string(),
    ];
    header.extend(
        detail
            .thresholds_pp
            .iter()
            .map(|t| format!("{} pp", trim_number(*t))),
    );
    let rows: Vec<Vec<String>> = detail
        .order_steps
        .iter()
        .map(|step| {
            let mut row = vec![
                percent(step.budget),
                step.observed.to_string(),
                step.coverage.name().to_string(),
                pp(step.estimate),
            ];
            row.extend(step.actions.iter().map(|a| glyph(*a).to_string()));
            row
        })
        .collect();
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut align = vec![Align::Right, Align::Right, Align::Left, Align::Right];
    align.extend(detail.thresholds_pp.iter().map(|_| Align::Left));
    write!(out, "{}", render(&header_refs, &align, &rows, width, 2))?;
    for (t, rates) in detail.rates.iter().enumerate() {
        writeln!(out)?;
        writeln!(
            out,
            "all {} orders at {} pp: shares of actions",
            detail.orders,
            trim_number(detail.thresholds_pp[t])
        )?;
        let rows: Vec<Vec<String>> = rates
            .iter()
            .map(|r| {
                vec![
                    percent(r.budget),
                    percent(r.promote),
                    percent(r.reject),
                    percent(r.abstain),
                    percent(r.wrong),
                ]
            })
            .collect();
        let align = [
            Align::Right,
            Align::Right,
            Align::Right,
            Align::Right,
            Align::Right,
        ];
        write!(
            out,
            "{}",
            render(
                &["budget", "promote", "reject", "abstain", "wrong"],
                &align,
                &rows,
                width,
                2
            )
        )?;
    }
    if let Some(dist) = &detail.bootstrap {
        let mean: f64 = dist
            .probs
            .iter()
            .enumerate()
            .map(|(i, p)| p * (dist.first + i as f64 * dist.step))
            .sum();
        writeln!(out)?;
        writeln!(
            out,
            "bootstrap distribution of Δ̂* at budget {}: mean {}, {} values",
            percent(detail.budget),
            pp(mean),
            dist.probs.len()
        )?;
    }
    writeln!(out)?;
    writeln!(out, "tasks by group (shared tasks)")?;
    if detail.fractional_tasks > 0 {
        writeln!(
            out,
            "  {} of them {} an outcome between 0 and 1 (runs averaged or partial credit): the columns count which system scored more, and a tie by whether A's outcome is at least ½",
            detail.fractional_tasks,
            if detail.fractional_tasks == 1 {
                "has"
            } else {
                "have"
            }
        )?;
    }
    let [both, only_tested, only_baseline, neither] = detail.outcome_headers();
    let rows: Vec<Vec<String>> = detail.groups.iter().map(|g| g.cells()).collect();
    let align = [
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Right,
    ];
    write!(
        out,
        "{}",
        render(
            &["group", "tasks", both, only_tested, only_baseline, neither],
            &align,
            &rows,
            width,
            2
        )
    )?;
    Ok(())
}

/// The classical cross-checks beside the rule's decisions, one verdict line per threshold.
fn write_cross_check(detail: &PairDetail, out: &mut impl Write) -> io::Result<()> {
    let Some(check) = &detail.cross_check else {
        return writeln!(
            out,
            "cross-check: none (needs observed tasks whose outcomes are all 0 or 1)"
        );
    };
    let t = &check.table;
    writeln!(
        out,
        "cross-check on the {} observed tasks: both {}, only tested {}, only baseline {}, neither {}",
        check.tasks, t.both, t.only_tested, t.only_baseline, t.neither
    )?;
    writeln!(
        out,
        "  exact sign (McNemar) test, δ = 0: p = {} two-sided, {} one-sided (tested better)",
        p_value(check.sign_test_p),
        p_value(check.sign_test_p_tested_better)
    )?;
    writeln!(
        out,
        "  Newcombe {} interval for Δ: [{}, {}]",
        percent(check.level),
        pp(check.newcombe_low),
        pp(check.newcombe_high)
    )?;
    for record in &detail.records {
        let delta = record.threshold_pp / 100.0;
        let classical = check.interval_verdict(delta);
        let differs = check.differs_from(delta, record.action);
        writeln!(
            out,
            "  {} pp: interval says {}, rule says {}{}",
            trim_number(record.threshold_pp),
            classical.name(),
            record.action.name(),
            if differs { "  ← they differ" } else { "" }
        )?;
    }
    Ok(())
}
