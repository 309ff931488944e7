//! The coverage view: which task groups the prefixes of the orders skipped, by budget.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table};

use crate::format::{fit_names, percent};
use crate::tui::app::App;

use super::widgets::{Theme, stale};

/// Share-of-cases shading for the coverage strip: blank, ░ (<5%), ▒ (<25%), ▓ (<50%), █.
pub fn shade(rate: f64) -> char {
    if rate <= 0.0 {
        '·'
    } else if rate < 0.05 {
        '░'
    } else if rate < 0.25 {
        '▒'
    } else if rate < 0.5 {
        '▓'
    } else {
        '█'
    }
}

pub(super) fn draw_coverage(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let order = app.compute.policy().order.name();
    let share = app.compute.policy().coverage_share.0;
    let long = format!(
        " coverage gaps under the {order} order: how often a run stopped at each budget misses a group's quota "
    );
    let title = if long.chars().count() + 2 <= usize::from(area.width) {
        long
    } else {
        format!(" coverage gaps under the {order} order, by budget ")
    };
    let Some(replay) = app.replay() else {
        let block = Block::bordered().title(title);
        frame.render_widget(super::widgets::no_replay_yet(app, theme).block(block), area);
        return;
    };
    let n_tasks = app.dataset.n_tasks() as u32;
    let k = crate::engine::Fraction(app.compute.grid.get(app.view.budget).copied().unwrap_or(0))
        .tasks_of(n_tasks);
    let sizes: Vec<u32> = match app
        .compute
        .group_column
        .as_deref()
        .and_then(|c| app.dataset.group_column(c))
    {
        Some(column) => column.sizes().iter().map(|&s| s as u32).collect(),
        None => vec![n_tasks],
    };
    let budgets = replay.budgets();
    let at_budget = crate::report::pairs::group_rows(replay, app.view.budget.min(budgets - 1));
    let strips: Vec<Vec<crate::report::pairs::GroupRow>> = (0..budgets)
        .map(|b| crate::report::pairs::group_rows(replay, b))
        .collect();
    // The group column takes what the fixed ones leave (borders, four gaps); long names keep what
    // tells them apart ("scikit-learn/scikit-learn" was cut to "scikit-learn/scikit-" at 80).
    let fixed = 14 + 9 + 10 + budgets as u16 + 2 + 4;
    let group_width = usize::from(area.width.saturating_sub(2 + fixed));
    let names: Vec<&str> = at_budget.iter().map(|row| row.group.as_str()).collect();
    let labels = fit_names(&names, group_width);
    let [table, legend] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    // Groups the panel cannot hold scroll (↑↓ PgUp PgDn), and the title says which show: the table
    // stopped at the border without a word (13 of 30 groups at 80×24).
    let room = usize::from(table.height.saturating_sub(4)).max(1);
    let most = at_budget.len().saturating_sub(room);
    app.coverage_scroll_most.set(most);
    let first = app.coverage_scroll.min(most);
    let title = if at_budget.len() > room {
        let shown = format!(
            "groups {}–{} of {} ↑↓ ",
            first + 1,
            (first + room).min(at_budget.len()),
            at_budget.len()
        );
        // The range is what must stay: the long title gives way first.
        let short = format!(" coverage gaps under the {order} order · {shown}");
        let long = format!("{} · {shown}", title.trim_end());
        if long.chars().count() + 2 <= usize::from(area.width) {
            long
        } else {
            short
        }
    } else {
        title
    };
    let block = Block::bordered().title(title);
    let rows: Vec<Row> = at_budget
        .iter()
        .enumerate()
        .skip(first)
        .take(room)
        .map(|(g, row)| {
            let label = &labels[g];
            let missing = row.missed_share;
            let size = sizes.get(g).copied().unwrap_or(0);
            let strip: String = strips.iter().map(|at| shade(at[g].missed_share)).collect();
            let rate = if missing > 0.05 {
                Span::styled(format!("✗ {}", percent(missing)), theme.bad())
            } else {
                Span::styled(format!("✓ {}", percent(missing)), theme.good())
            };
            Row::new(vec![
                Cell::from(label.clone()),
                Cell::from(format!(
                    "{} ({})",
                    size,
                    percent(f64::from(size) / f64::from(n_tasks.max(1)))
                )),
                // The quota the replay counted misses by: under the coverage share (`Q`).
                Cell::from(
                    crate::engine::rules::coverage::quota_share(k, size, n_tasks, share)
                        .to_string(),
                ),
                Cell::from(rate),
                Cell::from(strip),
            ])
            .style(stale(app, theme))
        })
        .collect();
    let widths = [
        Constraint::Fill(1),
        Constraint::Length(14),
        Constraint::Length(9),
        Constraint::Length(10),
        Constraint::Length(budgets as u16 + 2),
    ];
    // Two header lines: "required at 25%" in the 9-cell column was cut to "required", losing the
    // budget the quota and the missed share are at.
    let at = format!("at {}", percent(app.budget_value()));
    let header = Row::new(vec![
        Cell::from("group"),
        Cell::from("tasks (share)"),
        Cell::from(Text::from(vec![
            Line::from("required"),
            Line::from(at.clone()),
        ])),
        Cell::from(Text::from(vec![Line::from("missed"), Line::from(at)])),
        Cell::from("5% … 95%"),
    ])
    .height(2)
    .style(theme.dim());
    frame.render_widget(Table::new(rows, widths).header(header).block(block), table);
    let long = "strip: share of cases missing the group's quota at each budget · none ░ <5% ▒ <25% ▓ <50% █ ≥50%";
    let text = if long.chars().count() <= usize::from(legend.width) {
        long
    } else {
        "strip: cases missing the quota, per budget · none ░<5% ▒<25% ▓<50% █≥50%"
    };
    frame.render_widget(Paragraph::new(text).style(theme.dim()), legend);
}
