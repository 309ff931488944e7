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
    if app.pending() {
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
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [legend_row, plot] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(legend), legend_row);
    frame.render_widget(chart.legend_position(None), plot);
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
