//! Drawing the early-outcome view: the τ slider, training progress, the steps-saved and accuracy
//! curves against τ, the per-system table (full vs early resolve rate, Δ, halted) at the slider's τ,
//! and the drill-down of one trajectory's success and failure probabilities step by step with both
//! thresholds and the step where it halted. Everything is read from [`EarlyPanel`]; nothing is
//! computed here beyond one trajectory's halting.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, Block, Cell, Chart, Clear, Dataset, GraphType, Paragraph, Row, Table, TableState,
};

use super::widgets::{Theme, draw_chart_with_legend, legend, slider_track};
use crate::early::halting::Fired;
use crate::format::percent;
use crate::tui::early::{EarlyPanel, EarlyStatus, halting, tau_grid};

/// Keys of this view, shown in its footer.
pub const EARLY_FOOTER: &str = "←→ τ  Home/End ends  ↑↓ system  Enter trajectory (↑↓ next)  Esc close  Tab view  ? help  q quit";

/// The τ slider line and the summary at that τ.
pub fn draw_slider(frame: &mut Frame, panel: &EarlyPanel, theme: Theme, area: Rect) {
    let grid = tau_grid();
    let track = slider_track(
        grid.len(),
        panel.tau,
        None,
        area.width.saturating_sub(16) as usize,
    );
    let first = Line::from(vec![
        Span::styled(format!("τ {:>10.2} ", panel.tau_value()), theme.accent()),
        Span::raw(track),
    ]);
    let width = usize::from(area.width);
    let second = match (&panel.status, panel.current()) {
        (EarlyStatus::Ready(_), Some(c)) => {
            let values = [
                percent(c.coverage),
                optional_percent(c.accuracy),
                percent(c.steps_saved),
                c.spearman.map_or("-".to_string(), |r| format!("{r:.3}")),
                optional_percent(c.pair_agreement),
            ];
            // Under the track where it fits, else from the left edge, else in short words (at 80
            // columns the long line lost "pairs agree").
            let line = |names: [&str; 5]| -> String {
                names
                    .iter()
                    .zip(&values)
                    .map(|(name, value)| format!("{name} {value}"))
                    .collect::<Vec<_>>()
                    .join(" · ")
            };
            let long = line([
                "halted",
                "accuracy",
                "steps saved",
                "Spearman",
                "pairs agree",
            ]);
            if 13 + long.chars().count() <= width {
                format!("             {long}")
            } else if long.chars().count() <= width {
                long
            } else {
                line(["halted", "acc.", "saved", "ρ", "agree"])
            }
        }
        (EarlyStatus::Training { done, total }, _) => {
            format!("             training fold {} of {total} …", done + 1)
        }
        (EarlyStatus::Failed(error), _) => format!("             ✗ {error}"),
        _ => String::new(),
    };
    frame.render_widget(
        Paragraph::new(vec![first, Line::from(Span::styled(second, theme.dim()))]),
        area,
    );
}

fn optional_percent(x: Option<f64>) -> String {
    x.map_or("-".to_string(), percent)
}

/// The body: curves on the left, the per-system table on the right (stacked on narrow terminals).
pub fn draw_body(frame: &mut Frame, panel: &EarlyPanel, theme: Theme, area: Rect) {
    let Some(result) = panel.result() else {
        let text = match &panel.status {
            EarlyStatus::Training { done, total } => {
                let share = if *total == 0 {
                    0.0
                } else {
                    *done as f64 / *total as f64
                };
                let width = usize::from(area.width.saturating_sub(10)).min(60);
                let filled = (share * width as f64).round() as usize;
                vec![
                    Line::from(format!(
                        "Training the success and failure models, fold {} of {total} ({})",
                        (done + 1).min((*total).max(1)),
                        panel.describe
                    )),
                    Line::from(format!(
                        "[{}{}] {}",
                        "█".repeat(filled),
                        "·".repeat(width - filled),
                        percent(share)
                    )),
                    Line::from(Span::styled(
                        "The other views stay live meanwhile (Tab).",
                        theme.dim(),
                    )),
                ]
            }
            EarlyStatus::Failed(error) => vec![Line::from(Span::styled(
                format!("✗ early outcome prediction failed: {error}"),
                theme.bad(),
            ))],
            EarlyStatus::Ready(_) => Vec::new(),
        };
        frame.render_widget(
            Paragraph::new(text).block(Block::bordered().title(" early outcomes ")),
            area,
        );
        return;
    };
    let [left, right] = if area.width >= 110 {
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(area)
    } else {
        Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(area)
    };
    // Curves against τ (percent), with the slider's τ as a vertical line.
    let taus = &result.taus;
    let points = |pick: &dyn Fn(&crate::early::evaluate::TauResult) -> Option<f64>| {
        taus.iter()
            .zip(&result.sweep)
            .filter_map(|(&t, r)| pick(r).map(|v| (t * 100.0, v * 100.0)))
            .collect::<Vec<(f64, f64)>>()
    };
    let saved = points(&|r| Some(r.steps_saved));
    let accuracy = points(&|r| r.accuracy);
    let coverage = points(&|r| Some(r.coverage));
    let x = panel.tau_value() * 100.0;
    let cursor = vec![(x, 0.0), (x, 100.0)];
    let (lo, hi) = (
        taus.first().copied().unwrap_or(0.5) * 100.0,
        taus.last().copied().unwrap_or(1.0) * 100.0,
    );
    let datasets = vec![
        Dataset::default()
            .name("steps saved")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.good())
            .data(&saved),
        Dataset::default()
            .name("accuracy of halts")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.accent())
            .data(&accuracy),
        Dataset::default()
            .name("halted")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.warn())
            .data(&coverage),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.dim())
            .data(&cursor),
    ];
    let auc = result.sweep.first().and_then(|r| r.auc_success);
    let title = format!(
        " halting vs τ · {} · {} trees · AUC {} ",
        result.protocol.name(),
        result.trees,
        auc.map_or("-".to_string(), |a| format!("{a:.3}"))
    );
    let mut names = legend([
        ("steps saved".to_string(), theme.good()),
        ("accuracy of halts".to_string(), theme.accent()),
        ("halted".to_string(), theme.warn()),
    ]);
    // As `pareval early` warns: the halts of a predictor near chance follow noise. First on the
    // line, so that a narrow panel cuts a curve's name rather than the warning.
    if auc.is_some_and(crate::early::metrics::near_chance) {
        names
            .spans
            .insert(0, Span::styled("⚠ AUC near chance  ", theme.bad()));
    }
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .bounds([lo, hi])
                .style(theme.dim())
                .labels(vec![
                    format!("{:.2}", lo / 100.0),
                    format!("{:.2}", hi / 100.0),
                ]),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, 100.0])
                .style(theme.dim())
                .labels(vec!["0", "50", "100%"]),
        );
    draw_chart_with_legend(frame, Line::from(title), names, chart, left);
    match &result.target {
        Some(target) => {
            let [top, rest] =
                Layout::vertical([Constraint::Length(6), Constraint::Min(4)]).areas(right);
            draw_target(frame, target, theme, top);
            draw_systems(frame, panel, theme, rest);
        }
        None => draw_systems(frame, panel, theme, right),
    }
    if panel.drill.is_some() {
        draw_trajectory(frame, panel, theme, area);
    }
}

/// The thresholds a target precision chose on each fold's training side, and what each model's
/// halts achieved on the test folds (`early --target-precision`'s lines).
fn draw_target(
    frame: &mut Frame,
    target: &crate::early::evaluate::TargetResult,
    theme: Theme,
    area: Rect,
) {
    let row = |name: &str, model: &crate::early::evaluate::ModelAtTarget, success: bool| {
        let spread = target.spread(success);
        let range = spread
            .range
            .map_or("-".to_string(), |(lo, hi)| format!("{lo:.3}–{hi:.3}"));
        Line::from(format!(
            "{name:<8}{:>6}{:>7}{:>8}{:>7}  {range:<13}{:>7}",
            model.halts,
            percent(model.coverage),
            optional_percent(model.precision),
            percent(model.steps_saved),
            format!("{}/{}", spread.never, spread.folds)
        ))
    };
    let folds = &target.folds;
    let lines = vec![
        Line::from(Span::styled(
            format!(
                "{:<8}{:>6}{:>7}{:>8}{:>7}  {:<13}{:>7}",
                "model", "halts", "share", "prec.", "saved", "τ over folds", "never"
            ),
            theme.dim(),
        )),
        row("success", &target.success, true),
        row("failure", &target.failure, false),
        Line::from(Span::styled(
            format!(
                "both: halted {} · accuracy {} · steps saved {}",
                percent(target.coverage),
                optional_percent(target.accuracy),
                percent(target.steps_saved)
            ),
            theme.dim(),
        )),
    ];
    let grouping = folds.first().map_or("", |f| f.grouping);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(format!(
            " target precision {} · τ per model · inner split by {grouping} ",
            percent(target.precision)
        ))),
        area,
    );
}

fn draw_systems(frame: &mut Frame, panel: &EarlyPanel, theme: Theme, area: Rect) {
    let Some(current) = panel.current() else {
        return;
    };
    // The name column is what the four figures (and their gaps) leave inside the border; long
    // names keep what tells them apart (format::fit_names).
    let name_width = area.width.saturating_sub(2 + (7 + 1) * 3 + 12 + 1);
    let names: Vec<&str> = current.systems.iter().map(|s| s.system.as_str()).collect();
    let labels = crate::format::fit_names(&names, usize::from(name_width));
    let rows: Vec<Row> = current
        .systems
        .iter()
        .zip(labels)
        .map(|(s, label)| {
            let delta_style = if s.delta_pp.abs() >= 5.0 {
                theme.bad()
            } else {
                ratatui::style::Style::default()
            };
            Row::new(vec![
                Cell::from(label),
                Cell::from(percent(s.full)),
                Cell::from(percent(s.early)),
                Cell::from(Span::styled(format!("{:+.1}", s.delta_pp), delta_style)),
                Cell::from(format!("{} of {}", s.halted, s.trajectories)),
            ])
        })
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Length(name_width),
            Constraint::Length(7),
            Constraint::Length(7),
            Constraint::Length(7),
            Constraint::Length(12),
        ],
    )
    .header(Row::new(vec!["system", "full", "early", "Δ pp", "halted"]).style(theme.dim()))
    .row_highlight_style(theme.selected())
    .block(Block::bordered().title(format!(
        " resolve rate per system at τ {:.2} (Enter: a trajectory) ",
        panel.tau_value()
    )));
    let mut state = TableState::default().with_selected(Some(panel.selected));
    frame.render_stateful_widget(table, area, &mut state);
}

/// One trajectory: both probabilities at every prefix, the thresholds and where it halted.
fn draw_trajectory(frame: &mut Frame, panel: &EarlyPanel, theme: Theme, area: Rect) {
    let (Some(result), Some(i)) = (panel.result(), panel.drilled()) else {
        return;
    };
    let t = &result.data.trajectories[i];
    let tau = panel.tau_value();
    let h = halting(result, i, tau);
    let steps = |p: &Option<Vec<f64>>| -> Vec<(f64, f64)> {
        p.iter()
            .flatten()
            .enumerate()
            .map(|(k, &v)| ((k + 1) as f64, v * 100.0))
            .collect()
    };
    let success = steps(&result.predictions.success[i]);
    let failure = steps(&result.predictions.failure[i]);
    let last = t.len().max(2) as f64;
    let threshold = vec![(1.0, tau * 100.0), (last, tau * 100.0)];
    let halted_at = h.fired.map(|_| h.steps_run as f64);
    let marker: Vec<(f64, f64)> = halted_at
        .map(|k| vec![(k, 0.0), (k, 100.0)])
        .unwrap_or_default();
    let mut datasets = vec![
        Dataset::default()
            .name("P(success)")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.good())
            .data(&success),
        Dataset::default()
            .name("P(failure)")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.bad())
            .data(&failure),
        Dataset::default()
            .name("τ (both)")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.dim())
            .data(&threshold),
    ];
    if !marker.is_empty() {
        datasets.push(
            Dataset::default()
                .name("halt")
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.warn())
                .data(&marker),
        );
    }
    let verdict = match h.fired {
        Some((model, p)) => format!(
            "halted after step {} of {} by the {} model (p {:.3}): scored {}, truly {}",
            h.steps_run,
            t.len(),
            match model {
                Fired::Success => "success",
                Fired::Failure => "failure",
            },
            p,
            if h.outcome >= 0.5 {
                "success"
            } else {
                "failure"
            },
            if t.success() { "success" } else { "failure" }
        ),
        None => format!(
            "ran all {} steps (no probability reached τ {tau:.2}): {}",
            t.len(),
            if t.success() { "success" } else { "failure" }
        ),
    };
    let count = panel.drill_trajectories().len();
    // The overlay covers the whole body, in a border of its own: inset and borderless, it left a
    // column of the panel beneath showing down its left edge. The title names the trajectory, the
    // bottom border the keys, and the verdict wraps (cut with '…' past two lines), so at 80
    // columns neither the count nor the true outcome is lost.
    frame.render_widget(Clear, area);
    let block = super::widgets::titled_block(
        format!(
            " {} · {} · run {} ({} of {count}) ",
            result.data.systems[t.system as usize].name,
            result.data.tasks[t.task as usize],
            t.run,
            panel.drill.map_or(0, |d| d + 1)
        ),
        area.width,
    )
    .title_bottom(" ↑↓ next · Esc closes ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width).max(1);
    let mut verdict_lines = crate::format::wrap(&verdict, width);
    if verdict_lines.len() > 2 {
        verdict_lines.truncate(2);
        if let Some(last) = verdict_lines.last_mut() {
            let kept = crate::format::head_cells(last, width.saturating_sub(1)).to_string();
            *last = format!("{kept}…");
        }
    }
    let [head, body] = Layout::vertical([
        Constraint::Length(verdict_lines.len() as u16),
        Constraint::Min(5),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(
            verdict_lines
                .into_iter()
                .map(Line::from)
                .collect::<Vec<_>>(),
        ),
        head,
    );
    // The curves are named on the chart's first line, as every chart's are: ratatui's own legend
    // box hides itself when it does not fit (at 120 columns and less it never did).
    let mut names = vec![
        ("P(success)".to_string(), theme.good()),
        ("P(failure)".to_string(), theme.bad()),
        ("τ (both)".to_string(), theme.dim()),
    ];
    if !marker.is_empty() {
        names.push(("halt".to_string(), theme.warn()));
    }
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .bounds([1.0, last])
                .style(theme.dim())
                .labels(vec!["1".to_string(), format!("{}", t.len())]),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, 100.0])
                .style(theme.dim())
                .labels(vec!["0", "50", "100%"]),
        );
    draw_chart_with_legend(
        frame,
        Line::from(" calibrated probabilities by step "),
        legend(names),
        chart,
        body,
    );
}
