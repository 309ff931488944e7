//! The pairs view: one row per directed pair at the current budget and threshold.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Block, Cell, Row, Table, TableState};

use std::collections::HashMap;

use crate::format::{fit_names, percent, pp, trim_number};
use crate::tui::app::{App, Input, PairFilter};

use super::widgets::{Theme, stale};

/// The widths of the columns after the two names: N, Δ_full, completed, prom., rej., abst., wrong.
const FIXED_COLUMNS: [u16; 7] = [5, 9, 9, 6, 6, 6, 7];

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
    // The name columns share what the fixed ones leave (borders, 8 gaps of one cell); names that
    // do not fit are shortened over every system of the record, so a label is the same whichever
    // rows are shown.
    let fixed: u16 = FIXED_COLUMNS.iter().sum::<u16>() + FIXED_COLUMNS.len() as u16 + 1;
    let names_width = area.width.saturating_sub(2 + fixed);
    let (tested_width, baseline_width) = (names_width - names_width / 2, names_width / 2);
    let systems: Vec<&str> = app
        .dataset
        .systems
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    let label_map = |width: u16| -> HashMap<&str, String> {
        systems
            .iter()
            .copied()
            .zip(fit_names(&systems, usize::from(width)))
            .collect()
    };
    // The two columns are one width apart at most: equal widths share one labelling.
    let tested_labels = label_map(tested_width);
    let other_labels;
    let baseline_labels = if baseline_width == tested_width {
        &tested_labels
    } else {
        other_labels = label_map(baseline_width);
        &other_labels
    };
    let label = |labels: &HashMap<&str, String>, name: &str| {
        labels
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string())
    };
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
                Cell::from(label(&tested_labels, &row.tested)),
                Cell::from(label(baseline_labels, &row.baseline)),
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
        Constraint::Length(tested_width),
        Constraint::Length(baseline_width),
    ]
    .into_iter()
    .chain(FIXED_COLUMNS.iter().map(|&width| Constraint::Length(width)));
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
