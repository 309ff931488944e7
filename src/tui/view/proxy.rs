//! The proxy view: what proxy subsets predict and how often they agree with the completed record.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Row, Table, Wrap};

use crate::format::{percent, pp};
use crate::tui::app::App;

use super::widgets::{Theme, draw_chart_with_legend, focused_rows, legend};

/// Share of ordered pairs whose proxy decision (predicted difference > δ) matches the completed
/// record, as `pareval proxy` reports it: at 0, 5 and 10 pp the row's own figure (averaged over a
/// split's rounds and the random method's seeds); at another δ from the predictions when they are the
/// whole result (one round, one seed), else None.
pub fn proxy_agreement(row: &crate::proxy::ProxyRow, delta: f64) -> Option<f64> {
    let result = &row.result;
    if let Some(i) = crate::proxy::DECISION_THRESHOLDS_PP
        .iter()
        .position(|&pp| (pp / 100.0 - delta).abs() < 1e-12)
    {
        return result.decision_agreement.get(i).copied();
    }
    if row.seeds.is_some() || result.rounds > 1 {
        return None;
    }
    crate::proxy::decision_agreement_at(&result.systems, delta)
}

pub(super) fn draw_proxy(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let now = (
        app.compute.proxy_method.name(),
        app.compute.proxy_protocol.name(),
    );
    // While another method's or protocol's curve is computed, the last one stays on screen, dimmed,
    // under its own names (it was shown under the new ones: greedy-k's title over stratified-k's
    // figures for seconds).
    let stale = app.proxy.is_some() && app.proxy_for != app.proxy_generation;
    let shown = app
        .proxy
        .as_ref()
        .and_then(|curve| curve.results.first())
        .map_or(now, |row| (row.result.method, row.result.protocol));
    let computing = if stale && shown != now {
        format!(" · ⟳ {} under {}", now.0, now.1)
    } else {
        String::new()
    };
    let title = format!(
        " proxy benchmark at budget {}: {} under {}{computing} (x: method, y: protocol) ",
        percent(app.budget_value()),
        shown.0,
        shown.1
    );
    let block = super::widgets::titled_block(title, area.width);
    let row = match (&app.proxy, &app.proxy_error) {
        (_, Some(error)) => {
            frame.render_widget(
                Paragraph::new(Line::from(Span::styled(format!("✗ {error}"), theme.bad())))
                    .block(block),
                area,
            );
            return;
        }
        (Some(curve), None) => curve
            .results
            .get(app.view.budget.min(curve.results.len().saturating_sub(1))),
        (None, None) => None,
    };
    let Some(row) = row else {
        frame.render_widget(
            Paragraph::new("⟳ waiting for the proxy results…").block(block),
            area,
        );
        return;
    };
    let result = &row.result;
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // The row's own note, then those the curve has about the record or the protocol (tasks left
    // out by a system with few, systems a scaffold protocol never predicts), which `proxy` prints
    // under its table and the view had no place for.
    let row_note = result.fold_note();
    let mut notes: Vec<String> = row_note.iter().cloned().collect();
    if let Some(curve) = &app.proxy {
        let row_notes: Vec<String> = curve
            .results
            .iter()
            .filter_map(|row| row.result.fold_note())
            .collect();
        notes.extend(
            curve
                .notes
                .iter()
                .filter(|note| !row_notes.contains(note))
                .cloned(),
        );
    }
    // Side by side with the replay at the same budget and focused threshold.
    let threshold = app
        .compute
        .thresholds
        .get(app.view.focus)
        .map_or(0.0, |&t| f64::from(t) / 10_000.0);
    let proxy_right = proxy_agreement(row, threshold);
    // Why there is no figure: off the thresholds averaged figures are kept at, or (at one of them)
    // what the note below says of the folds; "averaged figures are at 0, 5 and 10 pp" at 0 pp misled.
    let on_kept_threshold = crate::proxy::DECISION_THRESHOLDS_PP
        .iter()
        .any(|&pp| (pp / 100.0 - threshold).abs() < 1e-12);
    let no_figure = match (on_kept_threshold, &row_note) {
        (false, _) => "- (averaged figures are at 0, 5 and 10 pp)",
        (true, Some(_)) => "- (see the note below)",
        (true, None) => "-",
    };
    let replay_line = focused_rows(app)
        .and_then(|rows| rows.get(app.view.budget))
        .map_or(String::new(), |r| {
            let cases = f64::from(r.cases.max(1));
            let correct =
                f64::from(r.promote + r.reject - r.false_promotions - r.false_rejections) / cases;
            let wrong = f64::from(r.false_promotions + r.false_rejections) / cases;
            format!(
                "partial-run policy: {} decided right, {} wrong, {} unresolved",
                percent(correct),
                percent(wrong),
                percent(r.unresolved)
            )
        });
    let mut lines = vec![
        Line::from(format!(
            "{} of {} tasks ({}) · ρ {} · τ-b {} · R² {} · MAE {:.1} pp · pairs ordered right {}",
            result.size,
            app.proxy.as_ref().map_or(0, |c| c.tasks),
            percent(result.task_share),
            result.spearman.map_or("-".into(), |v| format!("{v:.3}")),
            result.kendall.map_or("-".into(), |v| format!("{v:.3}")),
            result.r2.map_or("-".into(), |v| format!("{v:.3}")),
            result.mae_pp,
            result.pair_accuracy.map_or("-".into(), percent)
        )),
        Line::from(vec![
            Span::styled(
                format!(
                    "pair decisions at {}: proxy right {}",
                    pp(threshold),
                    proxy_right.map_or_else(|| no_figure.to_string(), percent)
                ),
                theme.accent(),
            ),
            Span::raw(format!(" · {replay_line}")),
        ]),
    ];
    if notes.is_empty() {
        lines.push(Line::from(Span::styled(
            "proxy: ridge prediction of each held-out system's full score from its subset outcomes",
            theme.dim(),
        )));
    }
    lines.extend(
        notes
            .iter()
            .map(|note| Line::from(Span::styled(format!("⚠ {note}"), theme.bad()))),
    );
    // The summary takes the rows its lines wrap onto (a note on subsets no training system tells
    // apart is long), and leaves the charts at least half of the view.
    let width = usize::from(inner.width.max(1));
    let wrapped: usize = lines
        .iter()
        .map(|line| {
            let text: String = line
                .spans
                .iter()
                .map(|span| span.content.as_ref())
                .collect();
            crate::format::wrap_hard(&text, width).len().max(1)
        })
        .sum();
    let rows = u16::try_from(wrapped)
        .unwrap_or(u16::MAX)
        .clamp(3, (inner.height / 2).max(3));
    let [summary, body] =
        Layout::vertical([Constraint::Length(rows), Constraint::Min(4)]).areas(inner);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), summary);
    let [scatter, table] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
    let points: Vec<(f64, f64)> = result
        .systems
        .iter()
        .map(|s| (s.actual * 100.0, s.predicted * 100.0))
        .collect();
    let diagonal = [(0.0, 0.0), (100.0, 100.0)];
    let chart = Chart::new(vec![
        Dataset::default()
            .name("y = x")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.dim())
            .data(&diagonal),
        Dataset::default()
            .name("systems")
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(theme.accent())
            .data(&points),
    ])
    .x_axis(
        Axis::default()
            .bounds([0.0, 100.0])
            .style(theme.dim())
            .labels(vec!["0", "actual", "100"]),
    )
    .y_axis(
        Axis::default()
            .bounds([0.0, 100.0])
            .style(theme.dim())
            .labels(vec!["0", "50", "100"]),
    );
    // Named on the first line, as every chart's curves are (ratatui's legend box sat on the
    // diagonal, or hid itself when it did not fit).
    draw_chart_with_legend(
        frame,
        Line::from(" predicted vs actual (%) "),
        legend([
            ("y = x".to_string(), theme.dim()),
            ("systems".to_string(), theme.accent()),
        ]),
        chart,
        scatter,
    );
    // The name column is what the three numbers (and their gaps) leave inside the border; names
    // that do not fit keep their head and tail, so that the rows stay told apart.
    let name_width = table.width.saturating_sub(2 + 3 * (6 + 1));
    let names: Vec<&str> = result.systems.iter().map(|s| s.system.as_str()).collect();
    let labels = crate::format::fit_names(&names, usize::from(name_width));
    // Rows that the panel cannot hold scroll (↑↓ PgUp PgDn), and its title says which show.
    let room = usize::from(table.height.saturating_sub(3)).max(1);
    let most = result.systems.len().saturating_sub(room);
    app.proxy_scroll_most.set(most);
    let first = app.proxy_scroll.min(most);
    let rows: Vec<Row> = result
        .systems
        .iter()
        .zip(labels)
        .skip(first)
        .map(|(s, label)| {
            Row::new(vec![
                label,
                format!("{:.1}", s.predicted * 100.0),
                format!("{:.1}", s.actual * 100.0),
                format!("{:+.1}", (s.predicted - s.actual) * 100.0),
            ])
        })
        .collect();
    let widths = [
        Constraint::Length(name_width),
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Length(6),
    ];
    let title = if result.systems.len() > room {
        format!(
            " per system (%) · {}–{} of {} ↑↓ ",
            first + 1,
            (first + room).min(result.systems.len()),
            result.systems.len()
        )
    } else {
        " per system (%) ".to_string()
    };
    let table_widget = Table::new(rows, widths)
        .header(Row::new(vec!["system", "pred.", "actual", "error"]).style(theme.dim()))
        .block(super::widgets::titled_block(title, table.width));
    frame.render_widget(table_widget, table);
    if stale {
        frame.buffer_mut().set_style(inner, theme.dim());
    }
}
