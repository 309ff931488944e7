//! The main view's chart of unresolved rate against budget, and the summary table beside it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Cell, Chart, Dataset, GraphType, Row, Table};

use crate::engine::walk::metrics::BudgetRow;
use crate::format::{interval_whole, percent, trim_number};
use crate::tui::app::{App, ChartMode};

use super::widgets::{Theme, draw_chart_with_legend, legend, stale};

/// One curve of the chart: its name, style and (budget %, rate %) points.
pub type Series = (String, Style, Vec<(f64, f64)>);

/// The curve data of the chart, in percent.
pub fn chart_series(app: &App, theme: Theme) -> Vec<Series> {
    let Some(replay) = app.replay() else {
        return Vec::new();
    };
    let mut series = Vec::new();
    match app.view.chart {
        ChartMode::Unresolved => {
            for (i, metrics) in replay.metrics.thresholds.iter().enumerate() {
                let points = metrics
                    .rows
                    .iter()
                    .map(|r| (r.budget * 100.0, r.unresolved * 100.0))
                    .collect();
                series.push((
                    format!("{} pp unresolved", trim_number(metrics.threshold_pp)),
                    theme.series(i),
                    points,
                ));
            }
            let eta = replay.prepared.settings.targets.eta.value() * 100.0;
            series.push((
                format!("η {}%", trim_number(eta)),
                theme.dim(),
                vec![(0.0, eta), (100.0, eta)],
            ));
        }
        ChartMode::Errors => {
            if let Some(metrics) = replay.metrics.thresholds.get(app.view.focus) {
                let t = trim_number(metrics.threshold_pp);
                let curve = |f: &dyn Fn(&BudgetRow) -> f64| -> Vec<(f64, f64)> {
                    metrics
                        .rows
                        .iter()
                        .map(|r| (r.budget * 100.0, f(r) * 100.0))
                        .collect()
                };
                series.push((
                    format!("{t} pp FPR"),
                    theme.series(0),
                    curve(&|r| r.fpr.unwrap_or(0.0)),
                ));
                series.push((
                    format!("{t} pp FRR"),
                    theme.series(1),
                    curve(&|r| r.frr.unwrap_or(0.0)),
                ));
                series.push((
                    format!("{t} pp coverage failure"),
                    theme.series(2),
                    curve(&|r| r.coverage_failure),
                ));
                let alpha = replay.prepared.settings.targets.alpha.value() * 100.0;
                series.push((
                    format!("α {}%", trim_number(alpha)),
                    theme.dim(),
                    vec![(0.0, alpha), (100.0, alpha)],
                ));
            }
        }
    }
    let x = app.budget_value() * 100.0;
    series.push((
        "cursor".to_string(),
        theme.accent(),
        vec![(x, 0.0), (x, 100.0)],
    ));
    series
}

/// The chart's curves named in their styles, short enough for the panel: "── 0 pp  ── 5 pp  ── η 25%"
/// (the title says what is plotted), or for the errors of the focused threshold "0 pp: ── FPR
/// ── FRR  ── coverage failure  ── α 5%".
fn legend_line(app: &App, series: &[Series]) -> Line<'static> {
    let mut prefix = None;
    let entries: Vec<(String, Style)> = series
        .iter()
        .filter(|(name, ..)| name != "cursor")
        .map(|(name, style, _)| {
            let label = if let Some(threshold) = name.strip_suffix(" unresolved") {
                threshold.to_string()
            } else if app.view.chart == ChartMode::Errors
                && let Some((threshold, rate)) = name.split_once(" pp ")
            {
                prefix.get_or_insert_with(|| format!("{threshold} pp: "));
                rate.to_string()
            } else {
                name.clone()
            };
            (label, *style)
        })
        .collect();
    let mut line = legend(entries);
    if let Some(prefix) = prefix {
        line.spans.insert(0, Span::raw(prefix));
    }
    line
}

/// The top of the chart's y axis, in percent: 100 for unresolved rates; for the error rates, which
/// sit near α, the first of 1, 2, 5, 10, 20, 50 and 100 above the highest point (α's line included)
/// with a tenth to spare, so that rates of a few percent are not all on the bottom row.
fn y_top(mode: ChartMode, series: &[Series]) -> f64 {
    if mode != ChartMode::Errors {
        return 100.0;
    }
    let highest = series
        .iter()
        .filter(|(name, ..)| name != "cursor")
        .flat_map(|(_, _, points)| points.iter().map(|&(_, y)| y))
        .fold(0.0f64, f64::max);
    [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        .into_iter()
        .find(|&top| highest * 1.1 <= top)
        .unwrap_or(100.0)
}

pub(super) fn draw_chart(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let series = chart_series(app, theme);
    // Short forms where the long title would be cut (the chart is about a third of 80 columns).
    let fits = |title: &str| title.chars().count() + 2 <= usize::from(area.width);
    let title = match app.view.chart {
        ChartMode::Unresolved if fits(" unresolved rate vs budget (c: errors) ") => {
            " unresolved rate vs budget (c: errors) "
        }
        ChartMode::Unresolved => " unresolved vs budget ",
        ChartMode::Errors if fits(" FPR · FRR · coverage failure vs budget (c: unresolved) ") => {
            " FPR · FRR · coverage failure vs budget (c: unresolved) "
        }
        ChartMode::Errors => " errors vs budget ",
    };
    let top = y_top(app.view.chart, &series);
    let cursor: Vec<(f64, f64)> = vec![
        (app.budget_value() * 100.0, 0.0),
        (app.budget_value() * 100.0, top),
    ];
    let datasets: Vec<Dataset> = series
        .iter()
        .map(|(name, style, points)| {
            let points: &[(f64, f64)] = if name == "cursor" { &cursor } else { points };
            Dataset::default()
                .name(if name == "cursor" {
                    String::new()
                } else {
                    name.clone()
                })
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(style.patch(stale(app, theme)))
                .data(points)
        })
        .collect();
    let axis_style = theme.dim();
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .bounds([0.0, 100.0])
                .style(axis_style)
                .labels(vec!["0%", "50%", "100%"]),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, top])
                .style(axis_style)
                .labels(vec![
                    "0".to_string(),
                    trim_number(top / 2.0),
                    format!("{}%", trim_number(top)),
                ]),
        );
    draw_chart_with_legend(
        frame,
        Line::from(title),
        legend_line(app, &series),
        chart,
        area,
    );
}

/// The summary panel's width in a main view `total` columns wide: 50, or as much as its table needs
/// to keep the unresolved interval beside the ever-wrong and FWER columns of a watched run or a
/// family, where the chart keeps at least 90 columns.
pub(super) fn summary_width(app: &App, total: u16) -> u16 {
    let policy = app.compute.policy();
    let extra = usize::from(policy.monitor == crate::engine::settings::Monitor::Sequential)
        + usize::from(policy.decides_families());
    if extra == 0 {
        return 50;
    }
    let threshold_width =
        threshold_label_width(app.compute.thresholds.iter().map(|&t| f64::from(t) / 100.0));
    let needed = u16::try_from(table_width(threshold_width, extra) + 17).unwrap_or(u16::MAX);
    if total >= needed.saturating_add(90) {
        needed.max(50)
    } else {
        50
    }
}

/// The threshold cell's width: its longest label ("›2.5 pp" is 7 wide, "›12.25 pp" 9), at least 3.
fn threshold_label_width(thresholds_pp: impl Iterator<Item = f64>) -> usize {
    thresholds_pp
        .map(|pp| format!(" {} pp", trim_number(pp)).chars().count())
        .max()
        .unwrap_or(0)
        .max(3)
}

/// The summary table's width but for its unresolved column: the threshold label, the 5-wide
/// columns (FPR, FRR, `extra` of ever-wrong and FWER, coverage, sufficiency), the gaps between
/// every column and the borders.
fn table_width(threshold_width: usize, extra: usize) -> usize {
    let columns = 6 + extra;
    threshold_width + 5 * (columns - 2) + (columns - 1) + 2
}

pub(super) fn draw_summary(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let policy = app.compute.policy();
    let sequential = policy.monitor == crate::engine::settings::Monitor::Sequential;
    let families = policy.decides_families();
    // The family and its adjustment first: a narrow panel cuts the title's end, and which
    // adjustment the figures are under is what a switch of `A` changes.
    let mut watched = if families {
        format!(
            " · {} family, {}",
            policy.family.name(),
            match policy.adjust {
                crate::engine::settings::Adjust::None => "unadjusted",
                adjust => adjust.name(),
            }
        )
    } else {
        String::new()
    };
    watched.push_str(
        &match (sequential, policy.is_naive_peeking(), policy.looks) {
            (false, ..) => String::new(),
            (true, true, _) => " · naive peeking (invalid)".to_string(),
            // Short for the panel's title: "watched at every task" or "at grid budgets".
            (true, false, looks) => format!(
                " · watched at {}",
                match looks {
                    crate::engine::settings::Looks::Every => "every task",
                    crate::engine::settings::Looks::Grid => "grid budgets",
                }
            ),
        },
    );
    let block = super::widgets::titled_block(
        Line::from(vec![
            Span::raw(format!(" at budget {}", percent(app.budget_value()))),
            Span::styled(
                watched,
                if policy.is_naive_peeking() {
                    theme.warn()
                } else {
                    theme.dim()
                },
            ),
            Span::raw(" "),
        ]),
        area.width,
    );
    let Some(replay) = app.replay() else {
        frame.render_widget(super::widgets::no_replay_yet(app, theme).block(block), area);
        return;
    };
    let threshold_width =
        threshold_label_width(replay.metrics.thresholds.iter().map(|m| m.threshold_pp));
    // Watched runs (ever-wrong) and families (FWER) take columns of their own: the unresolved
    // interval keeps its room where the panel has it (it was dropped at any width).
    let fixed = table_width(
        threshold_width,
        usize::from(sequential) + usize::from(families),
    );
    let with_interval = !(sequential || families) || usize::from(area.width) >= fixed + 17;
    let rows: Vec<Row> = replay
        .metrics
        .thresholds
        .iter()
        .enumerate()
        .filter_map(|(i, metrics)| {
            let r = metrics.rows.get(app.view.budget)?;
            let verdict = if r.sufficient {
                Span::styled("✓ yes", theme.good())
            } else {
                Span::styled("✗ no", theme.bad())
            };
            let focus = if i == app.view.focus { "›" } else { " " };
            let mut cells = vec![
                Cell::from(format!("{focus}{} pp", trim_number(metrics.threshold_pp))),
                Cell::from(r.fpr.map_or("-".to_string(), percent)),
                Cell::from(r.frr.map_or("-".to_string(), percent)),
            ];
            if sequential {
                cells.push(Cell::from(percent(r.ever_wrong)));
            }
            if families {
                cells.push(Cell::from(percent(r.fwer)));
            }
            Some(
                Row::new(cells.into_iter().chain([
                    Cell::from(percent(r.coverage_failure)),
                    Cell::from(if !with_interval {
                        percent(r.unresolved)
                    } else {
                        format!(
                            "{} {}",
                            percent(r.unresolved),
                            interval_whole(r.unresolved_lo, r.unresolved_hi)
                        )
                    }),
                    Cell::from(verdict),
                ]))
                .style(stale(app, theme)),
            )
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(threshold_width as u16),
        Constraint::Length(5),
        Constraint::Length(5),
    ];
    let mut header = vec!["thr", "FPR", "FRR"];
    if sequential {
        widths.push(Constraint::Length(5));
        header.push("ever✗");
    }
    if families {
        widths.push(Constraint::Length(5));
        header.push("FWER");
    }
    widths.extend([
        Constraint::Length(5),
        Constraint::Length(if with_interval { 17 } else { 10 }),
        Constraint::Length(5),
    ]);
    header.extend([
        "cov.",
        if with_interval {
            "unresolved [95%]"
        } else {
            "unresolved"
        },
        "suff.",
    ]);
    let header = Row::new(header).style(theme.dim());
    frame.render_widget(Table::new(rows, widths).header(header).block(block), area);
}
