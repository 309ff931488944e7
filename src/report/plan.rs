//! The text summary of `pareval plan`: what was planned, how, and the first tasks in order.

use std::io::{self, Write};
use std::path::Path;

use crate::plan::Plan;

/// Tasks listed on screen (the file has all of them).
const SHOWN: usize = 15;

pub fn write_plan_text(
    plan: &Plan,
    out_path: Option<&Path>,
    out: &mut impl Write,
) -> io::Result<()> {
    let groups = plan
        .groups
        .iter()
        .map(|(g, n)| format!("{g} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    writeln!(
        out,
        "plan of {} tasks from {}: {} order, seed {}; groups by {} ({groups})",
        plan.tasks.len(),
        plan.source,
        plan.order.name(),
        plan.seed,
        plan.group_column.as_deref().unwrap_or("none (one group)"),
    )?;
    if let Some(spreads) = &plan.spreads {
        let text = plan
            .groups
            .iter()
            .zip(spreads)
            .map(|((g, _), s)| format!("{g} {s:.3}"))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(out, "neyman spreads σ_g from the reference record: {text}")?;
    }
    if !plan.random_sample {
        writeln!(
            out,
            "note: a {} plan is not a random sample of the tasks: decisions on its prefixes are descriptive",
            plan.order.name()
        )?;
    }
    writeln!(out)?;
    let width = plan
        .tasks
        .iter()
        .take(SHOWN)
        .map(|t| crate::format::cells(&t.group))
        .max()
        .unwrap_or(0)
        .max(5);
    writeln!(out, "  position  {:<width$}  task", "group")?;
    for task in plan.tasks.iter().take(SHOWN) {
        // Padded by cells, not characters, so that groups in wide characters stay aligned.
        writeln!(
            out,
            "  {:>8}  {}{}  {}",
            task.position,
            task.group,
            crate::format::padding(&task.group, width),
            task.task
        )?;
    }
    if plan.tasks.len() > SHOWN {
        writeln!(out, "  … {} more", plan.tasks.len() - SHOWN)?;
    }
    match out_path {
        Some(path) => writeln!(
            out,
            "\nwrote {} rows to {}",
            plan.tasks.len(),
            path.display()
        ),
        None => writeln!(
            out,
            "\n(--out FILE writes the whole plan for `decide --plan`)"
        ),
    }
}
