//! What every view of the explorer draws with: the theme (colours, or modifiers alone without
//! colour), status glyphs, the slider's track, overlays, the stale-result style, Braille line series
//! and charts whose first line names their curves.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Chart, Dataset, GraphType, Paragraph, Wrap};

use crate::engine::rules::Action;
use crate::engine::walk::metrics::BudgetRow;
use crate::tui::app::App;

/// The smallest terminal the layout fits.
pub const MIN_WIDTH: u16 = 80;

pub const MIN_HEIGHT: u16 = 24;

/// Colours, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
    pub high_contrast: bool,
}

impl Theme {
    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::default().fg(color)
        } else {
            Style::default()
        }
    }

    pub fn good(self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }

    pub fn bad(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn warn(self) -> Style {
        self.fg(Color::Yellow)
    }

    pub fn accent(self) -> Style {
        self.fg(if self.high_contrast {
            Color::White
        } else {
            Color::Cyan
        })
        .add_modifier(Modifier::BOLD)
    }

    pub fn dim(self) -> Style {
        Style::default().add_modifier(Modifier::DIM)
    }

    pub fn selected(self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }

    /// One colour per threshold curve.
    pub fn series(self, index: usize) -> Style {
        const COLORS: [Color; 5] = [
            Color::Cyan,
            Color::Magenta,
            Color::Yellow,
            Color::Green,
            Color::Blue,
        ];
        self.fg(COLORS[index % COLORS.len()])
    }
}

pub(super) fn glyph(action: Action) -> &'static str {
    match action {
        Action::Promote => "▲",
        Action::Reject => "▼",
        Action::Abstain => "○",
        Action::Continue => "…",
    }
}

/// `text` cut to at most `max` cells by dropping its start behind an ellipsis.
pub(super) fn elide_front(text: &str, max: usize) -> String {
    if crate::format::cells(text) <= max {
        return text.to_string();
    }
    if max == 0 {
        return String::new();
    }
    format!("…{}", crate::format::tail_cells(text, max - 1))
}

pub(super) fn focused_rows(app: &App) -> Option<&[BudgetRow]> {
    let replay = app.replay()?;
    replay
        .metrics
        .thresholds
        .get(app.view.focus)
        .map(|t| t.rows.as_slice())
}

/// The slider's track cells: one column per cell, the grid's budgets spread evenly, the cursor (●) at the
/// current budget and the minimum sufficient budget (▲) marked.
pub fn slider_track(budgets: usize, current: usize, marked: Option<usize>, width: usize) -> String {
    let at = |i: usize| {
        if budgets <= 1 {
            0
        } else {
            i * (width.saturating_sub(1)) / (budgets - 1)
        }
    };
    (0..width)
        .map(|cell| {
            if at(current) == cell {
                '●'
            } else if marked.is_some_and(|m| at(m) == cell) {
                '▲'
            } else if (0..budgets).any(|i| at(i) == cell) {
                '┼'
            } else {
                '─'
            }
        })
        .collect()
}

pub(super) fn stale(app: &App, theme: Theme) -> Style {
    // Also after the newest settings' replay failed: the panels keep the last result, under a
    // header that names the new settings (they were drawn as if they were its figures).
    if app.pending() || app.result_for != app.generation {
        theme.dim()
    } else {
        Style::default()
    }
}

pub(super) fn overlay(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// Draws `chart` in a bordered panel titled `title`, whose first line is `legend`: the curves named
/// in their styles. ratatui hides a chart's own legend when it takes more than a quarter of the
/// chart's width or height, which in the explorer's panels it always did, leaving curves no one
/// could tell apart; its own legend is turned off here.
pub(crate) fn draw_chart_with_legend(
    frame: &mut Frame,
    title: Line<'_>,
    legend: Line<'_>,
    chart: Chart<'_>,
    area: Rect,
) {
    let block = titled_block(title, area.width);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = pack_legend(legend, usize::from(inner.width));
    let [legend_rows, plot] =
        Layout::vertical([Constraint::Length(rows.len() as u16), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(rows), legend_rows);
    frame.render_widget(chart.legend_position(None), plot);
}

/// The most rows a chart's legend takes from its plot.
const LEGEND_ROWS: usize = 2;

/// A legend laid out in `width` columns: one row when it fits, else its entries (the runs of spans
/// between the two-space gaps [`legend`] puts between them) packed onto up to [`LEGEND_ROWS`] rows,
/// the last ending in "…" if some still do not fit; a curve's name is never cut in silence.
fn pack_legend(legend: Line<'_>, width: usize) -> Vec<Line<'_>> {
    if legend.width() <= width {
        return vec![legend];
    }
    let mut entries: Vec<Vec<Span<'_>>> = vec![Vec::new()];
    for span in legend.spans {
        if span.content == "  " {
            entries.push(Vec::new());
        } else if let Some(last) = entries.last_mut() {
            last.push(span);
        }
    }
    let entry_width = |entry: &[Span<'_>]| entry.iter().map(Span::width).sum::<usize>();
    let mut rows: Vec<Line<'_>> = Vec::new();
    for entry in entries.into_iter().filter(|e| !e.is_empty()) {
        let needed = entry_width(&entry);
        let fits = rows
            .last()
            .is_some_and(|row| row.width() + 2 + needed <= width);
        if fits && let Some(row) = rows.last_mut() {
            row.spans.push(Span::raw("  "));
            row.spans.extend(entry);
        } else if rows.len() == LEGEND_ROWS {
            // No room left: the last row says that more was left out.
            if let Some(row) = rows.last_mut() {
                if row.width() + 2 <= width {
                    row.spans.push(Span::raw(" …"));
                } else {
                    cut_with_ellipsis(row, width);
                }
            }
            break;
        } else {
            rows.push(Line::from(entry));
        }
    }
    for row in &mut rows {
        if row.width() > width {
            cut_with_ellipsis(row, width);
        }
    }
    rows
}

/// A bordered block for a panel `width` cells wide whose title, where it does not fit between the
/// corners, is cut with "…" (ratatui cuts a title silently, mid-word: "anytime band … vs ob").
pub(crate) fn titled_block<'a>(title: impl Into<Line<'a>>, width: u16) -> Block<'a> {
    let mut title = title.into();
    let room = usize::from(width.saturating_sub(2));
    if title.width() > room {
        cut_with_ellipsis(&mut title, room);
    }
    Block::bordered().title(title)
}

/// Cuts a row to `width - 1` columns and ends it with "…".
fn cut_with_ellipsis(row: &mut Line<'_>, width: usize) {
    let mut room = width.saturating_sub(1);
    let mut kept = Vec::new();
    for span in row.spans.drain(..) {
        if room == 0 {
            break;
        }
        let text: String = span.content.chars().take(room).collect();
        room = room.saturating_sub(text.chars().count());
        kept.push(Span::styled(text, span.style));
    }
    kept.push(Span::raw("…"));
    row.spans = kept;
}

/// A legend line: "── name" per curve in its style, two spaces apart.
pub(crate) fn legend<'a>(entries: impl IntoIterator<Item = (String, Style)>) -> Line<'a> {
    let mut spans = Vec::new();
    for (name, style) in entries {
        if !spans.is_empty() {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::styled(format!("── {name}"), style));
    }
    Line::from(spans)
}

/// Named line series drawn in Braille, one style each in order.
pub(super) fn line_datasets<'a>(
    series: &'a [(&'static str, Vec<(f64, f64)>)],
    styles: &[Style],
) -> Vec<Dataset<'a>> {
    series
        .iter()
        .zip(styles)
        .map(|((name, points), &style)| {
            Dataset::default()
                .name(*name)
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(style)
                .data(points)
        })
        .collect()
}

/// What a panel shows before it has a replay: why the replay failed, or that it is on its way.
pub(super) fn no_replay_yet(app: &App, theme: Theme) -> Paragraph<'static> {
    match &app.replay_error {
        Some(error) => Paragraph::new(Line::from(Span::styled(
            format!("✗ the replay failed: {error}"),
            theme.bad(),
        )))
        .wrap(Wrap { trim: true }),
        None => Paragraph::new("waiting for the first replay…"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(rows: &[Line<'_>]) -> Vec<String> {
        rows.iter().map(|row| row.to_string()).collect()
    }

    #[test]
    fn a_title_too_long_for_its_panel_ends_in_an_ellipsis() {
        use ratatui::{Terminal, backend::TestBackend};
        let mut terminal = Terminal::new(TestBackend::new(20, 3)).expect("terminal");
        terminal
            .draw(|frame| {
                let area = frame.area();
                frame.render_widget(titled_block(" anytime band for Δ (pp) ", area.width), area);
            })
            .expect("draw");
        let top: String = (0..20)
            .map(|x| terminal.backend().buffer()[(x, 0)].symbol().to_string())
            .collect();
        assert_eq!(top, "┌ anytime band for…┐");
    }

    #[test]
    fn a_legend_too_wide_for_its_panel_takes_a_second_row_and_then_says_it_is_cut() {
        let entries = |names: &[&str]| {
            legend(
                names
                    .iter()
                    .map(|n| (n.to_string(), Style::default()))
                    .collect::<Vec<_>>(),
            )
        };
        let names = entries(&["band", "Δ̂", "δ", "decided"]);
        assert_eq!(
            text(&pack_legend(names.clone(), 40)),
            ["── band  ── Δ̂  ── δ  ── decided"]
        );
        // 29 columns: the last name went off the panel's edge ("── decide"); it moves down whole.
        assert_eq!(
            text(&pack_legend(names, 29)),
            ["── band  ── Δ̂  ── δ", "── decided"]
        );
        // Two rows full: the second says more was left out.
        let many = entries(&["0 pp", "5 pp", "10 pp", "η 25%", "α 5%", "cursor"]);
        assert_eq!(
            text(&pack_legend(many, 16)),
            ["── 0 pp  ── 5 pp", "── 10 pp …"]
        );
        // A single entry wider than the panel is cut with "…".
        let wide = entries(&["coverage failure of the focused threshold"]);
        assert_eq!(text(&pack_legend(wide, 12)), ["── coverage…"]);
    }
}
