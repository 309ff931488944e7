//! The drill-down into one pair: why it stands where it does (the bootstrap histogram, §9a's Λ and
//! allocation, the anytime band, the classical cross-checks).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Clear, Paragraph, Wrap};

use crate::engine::rules::Action;
use crate::engine::rules::anytime::Band;
use crate::engine::rules::coverage::CoverageStatus;
use crate::engine::walk::detail::PairDetail;
use crate::engine::walk::record::DecisionRecord;
use crate::format::{p_value, percent, pp, trim_number};
use crate::tui::app::App;

use super::group_table::{Column, group_table};
use super::widgets::{Theme, draw_chart_with_legend, glyph, legend, line_datasets, overlay};

pub(super) fn draw_drill(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let Some(drill) = &app.drill else { return };
    let rect = overlay(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, rect);
    let detail = match &drill.detail {
        Ok(detail) => detail,
        Err(error) => {
            let text = Paragraph::new(Line::from(Span::styled(format!("✗ {error}"), theme.bad())))
                .block(Block::bordered().title(" drill-down · Esc closes "));
            frame.render_widget(text, rect);
            return;
        }
    };
    let focus = app.view.focus.min(detail.records.len().saturating_sub(1));
    // The pair's names open the text below, wrapped: in the title, long leaderboard names pushed
    // the order, the budget and the way out past the edge (HAL's TAU-bench at 100 columns).
    let title = format!(
        " order {} of {} ([ ]) · budget {}{} · Esc closes ",
        detail.order_index,
        detail.orders,
        percent(detail.budget),
        if detail.family_note.is_some() {
            " · the pair alone (no family adjustment)"
        } else {
            ""
        }
    );
    let mut block = Block::bordered().title(title);
    let inner = block.inner(rect);
    let names = crate::format::wrap_hard(
        &format!("{} vs {}", detail.tested, detail.baseline),
        usize::from(inner.width.max(1)),
    );
    let top_rows = 8 + names.len() as u16;
    let below_text = inner.height.saturating_sub(top_rows);
    let table_rows = match group_table_rows(below_text, detail.groups.len()) {
        Ok(rows) => rows,
        Err(more) => {
            block = block.title_bottom(format!(" the group tables need {more} more rows "));
            0
        }
    };
    frame.render_widget(block, rect);
    let [top, middle, bottom] = Layout::vertical([
        Constraint::Length(top_rows),
        Constraint::Fill(1),
        Constraint::Length(table_rows),
    ])
    .areas(inner);
    // Why: the record's reason, the margin and the coverage.
    if let Some(record) = detail.records.get(focus) {
        let agreement = match record.agrees {
            Some(true) => Span::styled("✓ agrees with the completed record", theme.good()),
            Some(false) => Span::styled("✗ disagrees with the completed record", theme.bad()),
            None => Span::raw(""),
        };
        let action_style = match record.action {
            Action::Promote | Action::Reject => theme.good(),
            _ => theme.warn(),
        };
        let coverage_style = if record.coverage == CoverageStatus::Ok {
            theme.good()
        } else {
            theme.bad()
        };
        let missing = if record.missing_groups.is_empty() {
            String::new()
        } else {
            format!(" · missing: {}", record.missing_groups.join(", "))
        };
        let mut lines: Vec<Line> = names
            .iter()
            .map(|line| {
                Line::from(Span::styled(
                    line.clone(),
                    Style::default().add_modifier(Modifier::BOLD),
                ))
            })
            .collect();
        lines.extend([
            Line::from(format!(
                "{} shared tasks · Δ_full = {} · completed at {} pp: {}",
                detail.shared,
                pp(detail.delta_full),
                trim_number(record.threshold_pp),
                record.completed.map_or("-", |a| a.name())
            )),
            Line::from(vec![
                Span::styled(
                    format!("{} {} ", glyph(record.action), record.action.name()),
                    action_style,
                ),
                agreement,
            ]),
            Line::from(record.reason.clone()),
            Line::from(vec![
                Span::raw(format!(
                    "{} of {} tasks observed · coverage ",
                    record.observed, record.total
                )),
                Span::styled(
                    format!(
                        "{} {}",
                        if record.coverage == CoverageStatus::Ok {
                            "✓"
                        } else {
                            "✗"
                        },
                        record.coverage.name()
                    ),
                    coverage_style,
                ),
                Span::raw(missing),
            ]),
            Line::from(format!(
                "actions along this order: {}",
                detail
                    .order_steps
                    .iter()
                    .map(|s| s.actions.get(focus).map_or(" ", |a| glyph(*a)))
                    .collect::<Vec<_>>()
                    .join("")
            )),
            Line::from(Span::styled(
                "▲ promote  ▼ reject  ○ abstain, one mark per budget of the grid",
                theme.dim(),
            )),
            cross_check_line(detail, record, &theme),
        ]);
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), top);
    }
    // The bootstrap distribution with the threshold marked.
    let [histogram, coverage] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(middle);
    // The anytime rule has no bootstrap distribution: its evidence is the band along the order, and
    // under §9a also Λ of both tests against ln(1/a).
    match (&detail.band, &detail.stratified) {
        (Some(band), Some(trace)) => {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(50); 2]).areas(histogram);
            draw_band(frame, app, theme, detail, band, focus, left);
            draw_lambda(frame, theme, trace, focus, right);
        }
        (Some(band), None) => draw_band(frame, app, theme, detail, band, focus, histogram),
        _ => draw_histogram(frame, app, theme, detail, focus, histogram),
    }
    if let Some(record) = detail.records.get(focus) {
        let (shown, note) = window(&record.coverage_groups, drill.group_scroll, coverage.height);
        let names: Vec<&str> = shown.iter().map(|g| g.group.as_str()).collect();
        let rows: Vec<Vec<Span<'static>>> = shown
            .iter()
            .map(|g| {
                let mark = if g.is_missing() {
                    Span::styled("✗", theme.bad())
                } else {
                    Span::styled("✓", theme.good())
                };
                vec![
                    Span::raw(g.required.to_string()),
                    Span::raw(g.observed.to_string()),
                    Span::raw(g.total.to_string()),
                    mark,
                ]
            })
            .collect();
        // A kept decision's record gives the coverage of the look that made it.
        let (full, short) = match record.decided_at {
            Some(at) if at < record.observed => (
                format!("coverage at the look that decided ({at})"),
                format!("coverage at {at}"),
            ),
            _ => ("coverage".to_string(), "coverage".to_string()),
        };
        let table = group_table(
            [full.as_str(), short.as_str()],
            note,
            &names,
            // The ✓/✗ mark and the quota are what the table is for.
            &[
                Column {
                    header: "need",
                    keep_rank: 2,
                },
                Column {
                    header: "seen",
                    keep_rank: 2,
                },
                Column {
                    header: "all",
                    keep_rank: 1,
                },
                Column {
                    header: "",
                    keep_rank: 3,
                },
            ],
            rows,
            coverage,
            theme,
        );
        frame.render_widget(table, coverage);
    }
    let (shown, note) = window(&detail.groups, drill.group_scroll, bottom.height);
    let names: Vec<&str> = shown.iter().map(|g| g.group.as_str()).collect();
    let rows: Vec<Vec<Span<'static>>> = shown
        .iter()
        .map(|g| g.cells().into_iter().skip(1).map(Span::raw).collect())
        .collect();
    let [both, only_tested, only_baseline, neither] = detail.outcome_headers();
    let headers = [
        Column {
            header: "tasks",
            keep_rank: 1,
        },
        Column {
            header: both,
            keep_rank: 2,
        },
        Column {
            header: only_tested,
            keep_rank: 3,
        },
        Column {
            header: only_baseline,
            keep_rank: 3,
        },
        Column {
            header: neither,
            keep_rank: 2,
        },
    ];
    // Outcomes between 0 and 1 are counted by who scored more; the title says why.
    let titles = if detail.fractional_tasks > 0 {
        [
            "shared tasks by group (A = tested; runs averaged)",
            "shared tasks (A = tested; averaged)",
        ]
    } else {
        [
            "shared tasks by group (A = tested)",
            "shared tasks (A = tested)",
        ]
    };
    let table_in = |area: Rect| {
        group_table(
            titles,
            note.clone(),
            &names,
            &headers,
            rows.clone(),
            area,
            theme,
        )
    };
    match &detail.stratified {
        Some(trace) => {
            let [shared, allocation] =
                Layout::horizontal([Constraint::Percentage(50); 2]).areas(bottom);
            frame.render_widget(table_in(shared), shared);
            draw_allocation(frame, theme, trace, focus, drill.group_scroll, allocation);
        }
        None => frame.render_widget(table_in(bottom), bottom),
    }
}

/// Rows the charts want: with fewer their axis labels crowd the curves (at 80×24 they had one row).
const CHART_ROWS: u16 = 10;
/// The fewest rows of a group table: two borders, the header and two groups.
const FEWEST_TABLE_ROWS: u16 = 5;

/// The rows of the bottom group tables, out of the `below_text` rows under the drill-down's text.
/// The charts come first, with the coverage table beside them: they want [`CHART_ROWS`] and every
/// group's row; the tables below take what is left, up to every group (a tall window shows them all,
/// where eight used to be the most), never fewer than [`FEWEST_TABLE_ROWS`] (or every group's, when
/// fewer), and scroll through the rest. Where the charts and those fewest rows do not both fit, the
/// tables give way: Err holds how many more rows they need, for the drill-down's border to say.
pub(super) fn group_table_rows(below_text: u16, groups: usize) -> Result<u16, u16> {
    // Two borders and the header row besides the groups (with one less, the last group was cut).
    let every_group = u16::try_from(groups).unwrap_or(u16::MAX).saturating_add(3);
    let fewest = FEWEST_TABLE_ROWS.min(every_group);
    if below_text < CHART_ROWS + fewest {
        return Err(CHART_ROWS + fewest - below_text);
    }
    let charts = CHART_ROWS.max(every_group);
    Ok(every_group
        .min(below_text.saturating_sub(charts))
        .max(fewest))
}

/// §9a's Λ⁺ and Λ⁻ of the focused threshold along the order, against the barrier ln(1/a).
pub(super) fn draw_lambda(
    frame: &mut Frame,
    theme: Theme,
    trace: &crate::engine::rules::stratified::StratifiedTrace,
    focus: usize,
    area: Rect,
) {
    let series = lambda_series(trace, focus);
    let (mut low, mut high) = (-1.0f64, trace.ln_barrier + 1.0);
    for (_, points) in &series {
        for &(_, y) in points {
            low = low.min(y);
            high = high.max(y);
        }
    }
    let styles = [theme.good(), theme.bad(), theme.warn()];
    // Short for a third of the drill-down: Λ⁺ is the promote test's, Λ⁻ the reject test's.
    let names = legend(series.iter().zip(styles).map(|((name, _), style)| {
        let short = name.split_whitespace().next().unwrap_or(name);
        (short.to_string(), style)
    }));
    let datasets = line_datasets(&series, &styles);
    let end = trace
        .lambda_promote
        .get(focus)
        .map_or(1, |l| l.len().max(1)) as f64;
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .bounds([1.0, end])
                .style(theme.dim())
                .labels(vec!["1".to_string(), trim_number(end)]),
        )
        .y_axis(
            Axis::default()
                .bounds([low.floor(), high.ceil()])
                .style(theme.dim())
                .labels(vec![trim_number(low.floor()), trim_number(high.ceil())]),
        );
    draw_chart_with_legend(frame, Line::from(" §9a Λ vs ln(1/a) "), names, chart, area);
}

/// The chart series of §9a's Λ⁺ ("promote"), Λ⁻ ("reject") and the barrier against observed tasks;
/// infinite values (a null that holds or cannot hold whatever is unseen) are left out.
pub fn lambda_series(
    trace: &crate::engine::rules::stratified::StratifiedTrace,
    focus: usize,
) -> Vec<(&'static str, Vec<(f64, f64)>)> {
    let along = |values: Option<&Vec<f64>>| -> Vec<(f64, f64)> {
        values
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, y)| y.is_finite())
            .map(|(i, &y)| ((i + 1) as f64, y))
            .collect()
    };
    let end = trace
        .lambda_promote
        .get(focus)
        .map_or(1, |l| l.len().max(1)) as f64;
    vec![
        ("Λ⁺ promote", along(trace.lambda_promote.get(focus))),
        ("Λ⁻ reject", along(trace.lambda_reject.get(focus))),
        (
            "ln(1/a)",
            vec![(1.0, trace.ln_barrier), (end, trace.ln_barrier)],
        ),
    ]
}

/// Which groups a §9a decision hinges on: per group, what it has shown and the group means the least
/// favourable allocation of each null gives it.
pub(super) fn draw_allocation(
    frame: &mut Frame,
    theme: Theme,
    trace: &crate::engine::rules::stratified::StratifiedTrace,
    focus: usize,
    scroll: usize,
    area: Rect,
) {
    let at = |rows: &Vec<Vec<f64>>, g: usize| {
        rows.get(focus)
            .and_then(|r| r.get(g))
            .filter(|v| v.is_finite())
            .map_or("-".to_string(), |&v| pp(v))
    };
    let (shown, note) = window(&trace.groups, scroll, area.height);
    let first = scroll.min(trace.groups.len().saturating_sub(shown.len()));
    let names: Vec<&str> = shown.iter().map(|group| group.group.as_str()).collect();
    let rows: Vec<Vec<Span<'static>>> = shown
        .iter()
        .enumerate()
        .map(|(i, group)| (first + i, group))
        .map(|(g, group)| {
            vec![
                Span::raw(format!("{}/{}", group.seen, group.size)),
                Span::raw(group.observed_mean.map_or("-".to_string(), pp)),
                Span::raw(at(&trace.allocation_promote, g)),
                Span::raw(at(&trace.allocation_reject, g)),
            ]
        })
        .collect();
    let table = group_table(
        ["least favourable Δ̄ per group (§9a)", "least favourable Δ̄"],
        note,
        &names,
        // The allocation of each null is what the table is for.
        &[
            Column {
                header: "seen",
                keep_rank: 1,
            },
            Column {
                header: "Δ̄ seen",
                keep_rank: 2,
            },
            Column {
                header: "null⁺",
                keep_rank: 3,
            },
            Column {
                header: "null⁻",
                keep_rank: 3,
            },
        ],
        rows,
        area,
        theme,
    );
    frame.render_widget(table, area);
}

/// The rows of a group table that fit in `height` (two borders and a header besides), from row
/// `scroll` on (never past the last screenful), and, when not all do, a note for its title saying
/// which rows show, so a table is never cut without a word.
pub fn window<T>(rows: &[T], scroll: usize, height: u16) -> (&[T], Option<String>) {
    let fit = usize::from(height.saturating_sub(3)).max(1);
    if rows.len() <= fit {
        return (rows, None);
    }
    let first = scroll.min(rows.len() - fit);
    (
        &rows[first..first + fit],
        Some(format!(
            "{}–{} of {} ↑↓",
            first + 1,
            first + fit,
            rows.len()
        )),
    )
}

/// The chart series of the anytime band in percentage points against observed tasks: the estimate,
/// the lower and upper bounds, the threshold δ, and a vertical mark where the kept decision was made.
pub fn band_series(
    band: &Band,
    delta_pp: f64,
    decided_at: Option<u32>,
) -> Vec<(&'static str, Vec<(f64, f64)>)> {
    let along = |values: &[f64]| -> Vec<(f64, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(t, &v)| ((t + 1) as f64, 100.0 * v))
            .collect()
    };
    let end = band.estimate.len().max(1) as f64;
    let mut series = vec![
        ("upper", along(&band.upper)),
        ("lower", along(&band.lower)),
        ("estimate", along(&band.estimate)),
        ("δ", vec![(1.0, delta_pp), (end, delta_pp)]),
    ];
    if let Some(at) = decided_at {
        series.push((
            "decided",
            vec![(f64::from(at), -100.0), (f64::from(at), 100.0)],
        ));
    }
    series
}

#[allow(clippy::too_many_arguments)] // the frame, the app's theme and the drill-down's parts
pub(super) fn draw_band(
    frame: &mut Frame,
    app: &App,
    theme: Theme,
    detail: &PairDetail,
    band: &Band,
    focus: usize,
    area: Rect,
) {
    let record = detail.records.get(focus);
    let delta_pp = app
        .compute
        .thresholds
        .get(focus)
        .map_or(0.0, |&t| f64::from(t) / 100.0);
    let decided_at = record.and_then(|r| r.decided_at);
    let series = band_series(band, delta_pp, decided_at);
    // The y range: the band after its first few tasks (the first bounds are the whole [−100, 100]).
    let settled = band.estimate.len() / 10;
    let (mut low, mut high) = (delta_pp, delta_pp);
    for (&lo, &hi) in band.lower.iter().zip(&band.upper).skip(settled) {
        low = low.min(100.0 * lo);
        high = high.max(100.0 * hi);
    }
    let (low, high) = ((low - 2.0).floor(), (high + 2.0).ceil());
    let styles = [
        theme.dim(),
        theme.dim(),
        theme.accent(),
        theme.warn(),
        theme.good(),
    ];
    // The band's two edges are one entry ("band"); short for a third of the drill-down.
    let names = legend(
        series
            .iter()
            .zip(styles)
            .filter(|((name, _), _)| *name != "lower")
            .map(|((name, _), style)| {
                let name = match *name {
                    "upper" => "band",
                    "estimate" => "Δ̂",
                    other => other,
                };
                (name.to_string(), style)
            }),
    );
    let datasets = line_datasets(&series, &styles);
    let end = band.estimate.len().max(1) as f64;
    let empty = band.empty_note();
    let title = match (record, decided_at) {
        (Some(record), Some(at)) => format!(
            " anytime band for Δ (pp) · {} after {at} tasks{empty} ",
            record.action.name()
        ),
        _ => format!(" anytime band for Δ (pp) vs observed tasks · no decision yet{empty} "),
    };
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .bounds([1.0, end])
                .style(theme.dim())
                .labels(vec!["1".to_string(), format!("{}", band.estimate.len())]),
        )
        .y_axis(
            Axis::default()
                .bounds([low, high])
                .style(theme.dim())
                .labels(vec![trim_number(low), trim_number(high)]),
        );
    draw_chart_with_legend(frame, Line::from(title), names, chart, area);
}

/// Bins of the bootstrap distribution for a histogram `width` columns wide: (Δ̂* at bin start, mass).
/// Edges below 1/1000 of the peak are left out so the bars use the width (the exact distribution keeps
/// tails down to 1e-19).
pub fn histogram_bins(first: f64, step: f64, probs: &[f64], width: usize) -> Vec<(f64, f64)> {
    if probs.is_empty() || width == 0 {
        return Vec::new();
    }
    let peak = probs.iter().copied().fold(0.0, f64::max);
    let visible = |p: &f64| *p >= peak * 1e-3;
    let lo = probs.iter().position(visible).unwrap_or(0);
    let hi = probs.iter().rposition(visible).unwrap_or(probs.len() - 1);
    let (first, probs) = (first + lo as f64 * step, &probs[lo..=hi]);
    let per_bin = probs.len().div_ceil(width);
    probs
        .chunks(per_bin)
        .enumerate()
        .map(|(i, chunk)| (first + (i * per_bin) as f64 * step, chunk.iter().sum()))
        .collect()
}

/// The row under the histogram's bars: "▲ δ" under the bin holding the threshold, or an arrow at
/// the side it lies beyond.
fn threshold_marker(
    bins: &[(f64, f64)],
    step: f64,
    threshold: f64,
    repeat: usize,
    theme: Theme,
) -> Line<'static> {
    let width = bins.len() * repeat;
    let at = bins.iter().enumerate().position(|(i, &(x, _))| {
        let next = bins.get(i + 1).map_or(x + step, |b| b.0);
        x <= threshold && threshold < next
    });
    let text = match at {
        Some(i) => {
            let column = i * repeat;
            let mut text = " ".repeat(column);
            text.push('▲');
            // "δ" beside the mark, on the side with room for it.
            if column + 3 <= width {
                text.push_str(" δ");
            } else if column >= 2 {
                text = format!("{}δ ▲", " ".repeat(column - 2));
            }
            text
        }
        None if bins.first().is_some_and(|b| threshold < b.0) => "◀ δ below".to_string(),
        None => format!("{}δ above ▶", " ".repeat(width.saturating_sub(9))),
    };
    Line::from(Span::styled(text, theme.accent()))
}

pub(super) fn draw_histogram(
    frame: &mut Frame,
    app: &App,
    theme: Theme,
    detail: &PairDetail,
    focus: usize,
    area: Rect,
) {
    // Under another fixed-horizon rule the bootstrap's distribution is context, not the evidence the
    // rule read: the title says so and the last line names the rule with its own numbers.
    let rule = detail.records.get(focus).map_or("bootstrap", |r| r.rule);
    // The long title where it fits (the box is half the drill-down, 39 cells inside at 80 columns).
    let room = usize::from(area.width.saturating_sub(2));
    let title = match (rule == "bootstrap", room >= 46) {
        (true, true) => " bootstrap distribution of Δ̂* (▲ threshold δ) ",
        (true, false) => " bootstrap Δ̂* (▲ threshold δ) ",
        (false, true) => " bootstrap Δ̂* as context (▲ δ) ",
        (false, false) => " bootstrap Δ̂*, context (▲ δ) ",
    };
    let block = Block::bordered().title(title);
    let Some(dist) = &detail.bootstrap else {
        frame.render_widget(
            Paragraph::new("no exact distribution (outcomes off a lattice)").block(block),
            area,
        );
        return;
    };
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let bins = histogram_bins(
        dist.first,
        dist.step,
        &dist.probs,
        inner.width.saturating_sub(2) as usize,
    );
    let peak = bins.iter().map(|b| b.1).fold(0.0, f64::max).max(1e-300);
    let threshold = app
        .compute
        .thresholds
        .get(focus)
        .map_or(0.0, |&t| f64::from(t) / 10_000.0);
    // One row under the bars marks δ's bin with a glyph (a colour alone says nothing without colour,
    // and a bar fills the column where δ falls).
    let rows = inner.height.saturating_sub(3) as usize;
    // Few lattice values: draw each bar several columns wide so the histogram fills the box.
    let repeat = (inner.width.saturating_sub(2) as usize / bins.len().max(1)).max(1);
    let levels = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let mut lines: Vec<Line> = Vec::new();
    // Observed differences that do not vary give every resample the same Δ̂*: one bar filling the
    // box would look like a spread, so the point is stated instead.
    let point_mass = match bins.as_slice() {
        [(x, _)] => Some(*x),
        _ => None,
    };
    if let Some(x) = point_mass {
        let side = if x > threshold {
            "above"
        } else {
            "at or below"
        };
        lines.push(Line::from(format!("every resample gives Δ̂* = {}", pp(x))));
        lines.push(Line::from(Span::styled(
            format!("(the observed differences do not vary), {side} δ"),
            theme.dim(),
        )));
        lines.extend((2..rows).map(|_| Line::from("")));
    }
    for row in (0..rows).rev().filter(|_| point_mass.is_none()) {
        let spans: Vec<Span> = bins
            .iter()
            .enumerate()
            .map(|(i, &(x, mass))| {
                let next = bins.get(i + 1).map_or(x + dist.step, |b| b.0);
                let height = mass / peak * rows as f64;
                let fill = (height - row as f64).clamp(0.0, 1.0);
                let c = levels[(fill * 8.0).round() as usize];
                let above = x >= threshold;
                let style = if x <= threshold && threshold < next {
                    theme.accent()
                } else if above {
                    theme.good()
                } else {
                    theme.bad()
                };
                if x <= threshold && threshold < next && c == ' ' {
                    Span::styled("│".repeat(repeat), style)
                } else {
                    Span::styled(c.to_string().repeat(repeat), style)
                }
            })
            .collect();
        lines.push(Line::from(spans));
    }
    if point_mass.is_none() {
        lines.push(threshold_marker(&bins, dist.step, threshold, repeat, theme));
    }
    if let Some(record) = detail.records.get(focus) {
        // The rule's own numbers, and what may be left out where the line would be cut (a and se
        // are in the reason above too; "against δ" is what the interval is read by).
        let (tails, extra) = match record.statistic {
            crate::engine::rules::Statistic::Bootstrap {
                r_promote,
                r_reject,
                ..
            } => (
                format!(
                    "R_promote {} · R_reject {}",
                    crate::format::probability(r_promote),
                    crate::format::probability(r_reject)
                ),
                format!(" · a {}", record.tail.map_or("-".into(), trim_number)),
            ),
            crate::engine::rules::Statistic::PairedNormal {
                se,
                p_promote,
                p_reject,
            } => (
                format!(
                    "paired-normal p: ↑ {} ↓ {}",
                    crate::format::probability(p_promote),
                    crate::format::probability(p_reject)
                ),
                format!(" · se {}", pp(se)),
            ),
            crate::engine::rules::Statistic::Serfling { t } => (
                format!(
                    "serfling: Δ̂ ± t = [{}, {}]",
                    pp(record.estimate - t),
                    pp(record.estimate + t)
                ),
                " against δ".to_string(),
            ),
            crate::engine::rules::Statistic::None
                if record.rule == "bootstrap"
                    && record.reason_code == crate::engine::rules::Reason::NoVariance =>
            {
                (
                    "bootstrap abstains on one point".to_string(),
                    format!(" (--degenerate {})", record.degenerate),
                )
            }
            // The coverage gate abstained before the rule was read (the reason above says so): no
            // evidence of the rule's is behind it.
            crate::engine::rules::Statistic::None
                if record.reason_code == crate::engine::rules::Reason::Coverage =>
            {
                (
                    format!("{} not read: the coverage gate abstains first", record.rule),
                    String::new(),
                )
            }
            _ if record.rule == "forced" => (
                "forced: the sign of Δ̂ − δ decides".to_string(),
                String::new(),
            ),
            _ => (format!("rule {}", record.rule), String::new()),
        };
        let fits = tails.chars().count() + extra.chars().count() <= usize::from(inner.width);
        let tails = if fits { tails + &extra } else { tails };
        let (low, high) = (
            bins.first().map_or(dist.first, |b| b.0),
            bins.last().map_or(dist.first, |b| b.0),
        );
        lines.push(Line::from(Span::styled(
            format!("{} … {} · δ = {}", pp(low), pp(high), pp(threshold)),
            theme.dim(),
        )));
        lines.push(Line::from(Span::styled(tails, theme.dim())));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The classical cross-checks of the drill-down for the focused threshold, marked when they disagree
/// with the rule.
pub(super) fn cross_check_line(
    detail: &PairDetail,
    record: &DecisionRecord,
    theme: &Theme,
) -> Line<'static> {
    let Some(check) = &detail.cross_check else {
        return Line::from(Span::styled(
            "cross-check: none (outcomes here are not all 0 or 1)",
            theme.dim(),
        ));
    };
    let delta = record.threshold_pp / 100.0;
    let text = format!(
        "cross-check: sign test p = {} · Newcombe {} [{}, {}] → {}",
        p_value(check.sign_test_p),
        percent(check.level),
        pp(check.newcombe_low),
        pp(check.newcombe_high),
        check.interval_verdict(delta).name()
    );
    if check.differs_from(delta, record.action) {
        Line::from(vec![
            Span::raw(text),
            Span::styled("  ≠ rule", theme.warn()),
        ])
    } else {
        Line::from(text)
    }
}
