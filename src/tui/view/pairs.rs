//! The pairs view: one row per directed pair at the current budget and threshold.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Block, Cell, Row, Table, TableState};

use crate::format::{percent, pp, trim_number};
use crate::tui::app::{App, Input, PairFilter};

use super::widgets::{Theme, stale};

pub(super) fn draw_pairs(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let threshold = app
        .compute
        .thresholds
        .get(app.view.focus)
        .map_or(0.0, |&t| f64::from(t) / 100.0);
    let filter = match app.view.pair_filter {
        PairFilter::All => "all",
        PairFilter::Wrong => "wrong",
        PairFilter::Unresolved => "unresolved",
    };
    let name = if app.view.name_filter.is_empty() && app.input != Input::NameFilter {
        String::new()
    } else {
        format!(
            " · name '{}'{}",
            app.view.name_filter,
            if app.input == Input::NameFilter {
                "▏"
            } else {
                ""
            }
        )
    };
    let title = format!(
        " directed pairs at {} · {} pp · {} of {} shown ({filter}{name}) · sorted by {}{} ",
        percent(app.budget_value()),
        trim_number(threshold),
        app.rows.len(),
        app.replay().map_or(0, |r| r.prepared.pairs.len()),
        app.view.sort.name(),
        if app.view.descending { " ↓" } else { " ↑" }
    );
    let rows: Vec<Row> = app
        .rows
        .iter()
        .map(|row| {
            let completed = if row.completed == crate::report::pairs::Completed::Promote {
                "▲ promote"
            } else {
                "▼ reject"
            };
            let wrong = if row.wrong > 0.0 {
                Span::styled(format!("✗ {}", percent(row.wrong)), theme.bad())
            } else {
                Span::raw(percent(row.wrong))
            };
            Row::new(vec![
                Cell::from(row.tested.clone()),
                Cell::from(row.baseline.clone()),
                Cell::from(row.shared.to_string()),
                Cell::from(pp(row.delta_full)),
                Cell::from(completed),
                Cell::from(percent(row.promote)),
                Cell::from(percent(row.reject)),
                Cell::from(percent(row.abstain)),
                Cell::from(wrong),
            ])
            .style(stale(app, theme))
        })
        .collect();
    let widths = [
        Constraint::Fill(1),
        Constraint::Fill(1),
        Constraint::Length(5),
        Constraint::Length(9),
        Constraint::Length(9),
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Length(7),
    ];
    let header = Row::new(vec![
        "tested",
        "baseline",
        "N",
        "Δ_full",
        "completed",
        "prom.",
        "rej.",
        "abst.",
        "wrong",
    ])
    .style(theme.dim());
    let table = Table::new(rows, widths)
        .header(header)
        .block(Block::bordered().title(title))
        .row_highlight_style(theme.selected());
    let mut state = TableState::default().with_selected(if app.rows.is_empty() {
        None
    } else {
        Some(app.view.selected)
    });
    frame.render_stateful_widget(table, area, &mut state);
}
