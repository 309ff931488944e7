//! The pairs view: one row per directed pair at the current budget and threshold.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use std::collections::HashMap;

use crate::format::{fit_names, percent, pp, trim_number};
use crate::tui::app::{App, Input, PairFilter};

use super::widgets::{Theme, stale};

/// The widths of the columns after the two names: N, Δ_full, completed, prom., rej., abst., wrong.
const FIXED_COLUMNS: [u16; 7] = [5, 9, 9, 6, 6, 6, 7];

/// On a narrow screen: Δ_full with the completed decision's mark ("▲ 4.8 pp"), prom., rej., abst.,
/// wrong; N is left out. Taken when the full columns would leave a name fewer than
/// [`NARROW_NAME`] cells.
const COMPACT_COLUMNS: [u16; 5] = [10, 6, 6, 6, 7];
const NARROW_NAME: u16 = 20;

/// The cells of the columns' fixed part (their widths and one gap before each) inside the borders.
fn fixed_width(columns: &[u16]) -> u16 {
    columns.iter().sum::<u16>() + columns.len() as u16 + 1
}

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
    // The rows the panel holds (borders and the header row aside) scroll with the selection, as
    // the table keeps the selected row in view: the title says which are on screen ("30 of 30
    // shown" read as all on screen where six were).
    let visible = usize::from(area.height.saturating_sub(3)).max(1);
    let scrolled = if app.rows.len() > visible {
        let first = app.view.selected.saturating_sub(visible - 1);
        format!(" · {}–{} ↑↓", first + 1, first + visible)
    } else {
        String::new()
    };
    let title = format!(
        " directed pairs at {} · {} pp · {} of {} listed ({filter}{name}){scrolled} · sorted by {}{} ",
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
    let full_names = area.width.saturating_sub(2 + fixed_width(&FIXED_COLUMNS));
    let compact = full_names / 2 < NARROW_NAME;
    let columns: &[u16] = if compact {
        &COMPACT_COLUMNS
    } else {
        &FIXED_COLUMNS
    };
    let names_width = area.width.saturating_sub(2 + fixed_width(columns));
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
            let names = [
                Cell::from(label(&tested_labels, &row.tested)),
                Cell::from(label(baseline_labels, &row.baseline)),
            ];
            let full = if compact {
                // "▲ promote" → "▲ 4.8 pp": the mark of the completed decision beside Δ_full.
                let mark = completed.split(' ').next().unwrap_or_default();
                vec![Cell::from(format!("{mark} {}", pp(row.delta_full)))]
            } else {
                vec![
                    Cell::from(row.shared.to_string()),
                    Cell::from(pp(row.delta_full)),
                    Cell::from(completed),
                ]
            };
            let shares = [
                Cell::from(percent(row.promote)),
                Cell::from(percent(row.reject)),
                Cell::from(percent(row.abstain)),
                Cell::from(wrong),
            ];
            Row::new(names.into_iter().chain(full).chain(shares)).style(stale(app, theme))
        })
        .collect();
    let widths = [
        Constraint::Length(tested_width),
        Constraint::Length(baseline_width),
    ]
    .into_iter()
    .chain(columns.iter().map(|&width| Constraint::Length(width)));
    let header: &[&str] = if compact {
        &[
            "tested", "baseline", "Δ_full", "prom.", "rej.", "abst.", "wrong",
        ]
    } else {
        &[
            "tested",
            "baseline",
            "N",
            "Δ_full",
            "completed",
            "prom.",
            "rej.",
            "abst.",
            "wrong",
        ]
    };
    let header = Row::new(header.iter().copied()).style(theme.dim());
    let mut block = super::widgets::titled_block(title, area.width);
    // The selected pair in full below the table when its labels are shortened (`Enter` has them too).
    if let Some(row) = app.rows.get(app.view.selected)
        && (label(&tested_labels, &row.tested) != row.tested
            || label(baseline_labels, &row.baseline) != row.baseline)
    {
        // Both names whole when they fit on the border, else each in half of it, told apart.
        let room = usize::from(area.width.saturating_sub(4));
        let whole = format!("› {} vs {}", row.tested, row.baseline);
        let shown = if crate::format::cells(&whole) <= room {
            whole
        } else {
            let each = room.saturating_sub("›  vs ".len()) / 2;
            let pair = fit_names(&[row.tested.as_str(), row.baseline.as_str()], each);
            format!("› {} vs {}", pair[0], pair[1])
        };
        block = block.title_bottom(format!(" {shown} "));
    }
    let table = Table::new(rows, widths)
        .header(header)
        .block(block)
        .row_highlight_style(theme.selected());
    let mut state = TableState::default().with_selected(if app.rows.is_empty() {
        None
    } else {
        Some(app.view.selected)
    });
    frame.render_stateful_widget(table, area, &mut state);
    // A filter that leaves no pair says so under the header, rather than an empty table.
    let total = app.replay().map_or(0, |r| r.prepared.pairs.len());
    if app.rows.is_empty() && total > 0 && area.height > 3 && area.width > 2 {
        let what = match app.view.pair_filter {
            PairFilter::All => String::new(),
            PairFilter::Wrong => " wrong here".to_string(),
            PairFilter::Unresolved => " unresolved here".to_string(),
        };
        let named = if app.view.name_filter.is_empty() {
            String::new()
        } else {
            format!(" named like '{}'", app.view.name_filter)
        };
        let line = Paragraph::new(Line::from(Span::styled(
            format!("no pair{what}{named} (f: all, wrong or unresolved; / then Esc: any name)"),
            theme.dim(),
        )));
        let inside = Rect::new(area.x + 1, area.y + 2, area.width - 2, 1);
        frame.render_widget(line, inside);
    }
}
