//! Drawing `pareval watch`: the header (plan, tested system, rule, what is followed or replayed), one
//! row per baseline at the focused threshold (observed count, estimate, anytime band, both wealths with
//! their p-values, the action), the selected pair's estimate and band against δ over the observed
//! tasks, its wealth curves against 1/a, its coverage so far, with `--early` the runs a saved
//! predictor could halt now and the joint saving so far, the latest notices and the status bar (a
//! skipped input row names its file and line).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, Block, Cell, Chart, Dataset, GraphType, Paragraph, Row, Table, TableState,
};

use super::early::{EarlySummary, EarlyWatch};
use super::state::{PairView, WatchState};
use crate::engine::rules::Action;
use crate::engine::walk::record::DecisionRecord;
use crate::format::{percent, pp};

/// What the header says about the source, and the keys the footer lists.
pub struct Chrome<'a> {
    pub source: &'a str,
    pub keys: &'a str,
}

fn action_style(action: Action) -> Style {
    match action {
        Action::Promote => Style::default()
            .fg(Color::Green)
            .add_modifier(Modifier::BOLD),
        Action::Reject => Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
        Action::Abstain => Style::default().fg(Color::Yellow),
        Action::Continue => Style::default(),
    }
}

pub fn draw(frame: &mut Frame, state: &WatchState, selected: usize, chrome: &Chrome<'_>) {
    let area = frame.area();
    let rows = state.pairs.len() as u16 + 3;
    let early = state.early_summary();
    let [header, table, charts, early_area, coverage, notices, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(rows.min(area.height / 3).max(4)),
        Constraint::Min(8),
        Constraint::Length(if early.is_some() { EARLY_HEIGHT } else { 0 }),
        Constraint::Length(4),
        Constraint::Length(3),
        Constraint::Length(1),
    ])
    .areas(area);
    if let (Some(summary), Some(panel)) = (&early, &state.early) {
        draw_early(frame, summary, panel, early_area);
    }
    let threshold = state
        .settings
        .thresholds
        .get(state.focus)
        .map_or(0.0, |t| t.delta());
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(Span::styled(
                format!(
                    "pareval watch · {} vs {} baseline{} · plan of {} tasks · {} · δ {}",
                    state.tested,
                    state.pairs.len(),
                    if state.pairs.len() == 1 { "" } else { "s" },
                    state.plan.tasks.len(),
                    state.settings.policy.describe(),
                    pp(threshold)
                ),
                Style::default().add_modifier(Modifier::BOLD),
            )),
            Line::from(format!(
                "{} · {} rows read{}",
                chrome.source,
                state.rows_read,
                // What the guarantee rests on: anytime-valid, or valid only when read once at the limit.
                state
                    .pairs
                    .first()
                    .and_then(|p| p.records.first())
                    .map_or(String::new(), |r| format!(" · {}", r.validity))
            )),
        ]),
        header,
    );
    draw_table(frame, state, selected, table);
    let pair = state.pairs.get(selected);
    let [band, wealth] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(charts);
    if let Some(pair) = pair {
        draw_band(frame, state, pair, threshold, band);
        draw_wealth(frame, state, pair, wealth);
        draw_coverage(frame, state, pair, coverage);
    } else {
        frame.render_widget(
            Paragraph::new("No baseline has outcomes yet: waiting for rows.")
                .block(Block::bordered()),
            charts,
        );
    }
    let recent: Vec<Line> = state
        .notices
        .iter()
        .rev()
        .take(3)
        .map(|n| Line::from(n.as_str()))
        .collect();
    frame.render_widget(Paragraph::new(recent), notices);
    let problem = state
        .problem
        .as_ref()
        .or(state.early.as_ref().and_then(|e| e.problem.as_ref()));
    let status = match problem {
        Some(problem) => Line::from(Span::styled(
            problem.as_str(),
            Style::default().fg(Color::Red),
        )),
        None => Line::from(Span::styled(
            chrome.keys,
            Style::default().add_modifier(Modifier::DIM),
        )),
    };
    frame.render_widget(Paragraph::new(status), footer);
}

/// Running trajectories the early panel lists (those furthest past their halting point first).
const EARLY_ROWS: usize = 3;
/// Rows of the early panel: borders, two summary lines, the caveat, a header and the runs.
const EARLY_HEIGHT: u16 = 6 + EARLY_ROWS as u16;

/// The early predictor's panel: the runs it could halt now and the joint saving so far.
fn draw_early(frame: &mut Frame, summary: &EarlySummary, panel: &EarlyWatch, area: Rect) {
    let tau = |t: f64| {
        if t.is_finite() {
            format!("{t:.2}")
        } else {
            "never".to_string()
        }
    };
    let share = |x: Option<f64>| x.map_or("-".to_string(), percent);
    let mut lines = vec![
        Line::from(format!(
            "{} trajectories followed, {} completed ({} had passed a halting point) · halt now: {} running",
            summary.followed,
            summary.completed,
            summary.completed_halted,
            summary.halt_now.len(),
        )),
        Line::from(format!(
            "joint saving so far {} (tasks not run {}, steps not run inside the completed runs {})",
            share(summary.joint_saving),
            percent(summary.tasks_not_run),
            share(summary.steps_not_run_inside),
        )),
        Line::from(Span::styled(
            "decisions use the real outcomes; halted runs would get the predictor's (replay --early shows what its errors do)",
            Style::default().add_modifier(Modifier::DIM),
        )),
    ];
    let cut = |text: &str, width: usize| -> String {
        if text.chars().count() <= width {
            format!("{text:width$}")
        } else {
            let head: String = text.chars().take(width - 1).collect();
            format!("{head}…")
        }
    };
    if summary.halt_now.is_empty() {
        lines.push(Line::from("no running trajectory has reached a threshold"));
    } else {
        lines.push(Line::from(Span::styled(
            format!(
                "{} {} {:>5}  {:<27} {:>11} {:>9} {:>9}",
                cut("system", 26),
                cut("task", 23),
                cut("run", 5),
                "could halt",
                "steps since",
                "p success",
                "p failure"
            ),
            Style::default().add_modifier(Modifier::BOLD),
        )));
    }
    for row in summary.halt_now.iter().take(EARLY_ROWS) {
        let action = format!(
            "{} at {} (p {:.2})",
            row.action,
            row.halt_step.unwrap_or(0),
            row.halt_probability.unwrap_or(f64::NAN)
        );
        lines.push(Line::from(format!(
            "{} {} {:>5}  {:<27} {:>11} {:>9.3} {:>9.3}",
            cut(&row.system, 26),
            cut(&row.task, 23),
            cut(&row.run, 5),
            action,
            row.steps_after_halt,
            row.p_success,
            row.p_failure
        )));
    }
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(format!(
            " early halting · {} · τ_s {} τ_f {} ",
            panel.model,
            tau(panel.thresholds.success),
            tau(panel.thresholds.failure)
        ))),
        area,
    );
}

/// A wealth in a table cell: two decimals, or powers of ten when very large or small.
fn wealth_cell(w: f64) -> String {
    // §9a's e^Λ is 0 or ∞ where a null holds or fails whatever the unseen tasks are.
    if w == 0.0 {
        "0".to_string()
    } else if w.is_infinite() {
        "∞".to_string()
    } else if (0.01..10_000.0).contains(&w) {
        format!("{w:.2}")
    } else {
        format!("{w:.1e}")
    }
}

/// A bound in percentage points without the unit (one decimal, none when whole), for the narrow
/// "empty" cell.
fn pp_short(value: Option<&f64>) -> String {
    value.map_or_else(
        || "-".to_string(),
        |v| {
            let text = format!("{:.1}", v * 100.0);
            text.strip_suffix(".0").map_or(text.clone(), str::to_string)
        },
    )
}

fn draw_table(frame: &mut Frame, state: &WatchState, selected: usize, area: Rect) {
    let rows: Vec<Row> = state
        .pairs
        .iter()
        .map(|pair| {
            let Some(record) = pair.records.get(state.focus) else {
                return Row::new(vec![Cell::from(pair.baseline.clone())]);
            };
            let (lo, hi) = (pair.band.lower.last(), pair.band.upper.last());
            // An empty band: a crossing the later tasks contradict (the chart's title says since when).
            let band = match (lo, hi) {
                _ if pair.band.is_empty_now() => Span::styled(
                    format!("empty {} > {}", pp_short(lo), pp_short(hi)),
                    Style::default().fg(Color::Red),
                ),
                (Some(lo), Some(hi)) => Span::raw(format!("[{}, {}]", pp(*lo), pp(*hi))),
                _ => Span::raw("-"),
            };
            // §9's wealths, or §9a's exp(Λ) (the least wealth over the groups' allocations).
            let (wp, wr) = match record.statistic.anytime_evidence() {
                Some((up, down, p_promote, p_reject)) => (
                    format!(
                        "{} (p {})",
                        wealth_cell(up),
                        crate::format::p_value(p_promote)
                    ),
                    format!(
                        "{} (p {})",
                        wealth_cell(down),
                        crate::format::p_value(p_reject)
                    ),
                ),
                None => ("-".to_string(), "-".to_string()),
            };
            Row::new(vec![
                Cell::from(pair.baseline.clone()),
                Cell::from(observed_cell(record)),
                Cell::from(pp(record.estimate)),
                Cell::from(band),
                Cell::from(wp),
                Cell::from(wr),
                Cell::from(Span::styled(
                    record.action.name(),
                    action_style(record.action),
                )),
            ])
        })
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Min(18),
            Constraint::Length(17),
            Constraint::Length(9),
            Constraint::Length(18),
            Constraint::Length(17),
            Constraint::Length(17),
            Constraint::Length(9),
        ],
    )
    .header(
        Row::new(vec![
            "baseline",
            "read (waiting)",
            "Δ̂",
            "anytime band",
            "wealth ↑",
            "wealth ↓",
            "action",
        ])
        .style(Style::default().add_modifier(Modifier::DIM)),
    )
    .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
    .block(Block::bordered().title(" decisions "));
    let mut table_state = TableState::default().with_selected(Some(selected));
    frame.render_stateful_widget(table, area, &mut table_state);
}

fn draw_band(frame: &mut Frame, state: &WatchState, pair: &PairView, threshold: f64, area: Rect) {
    let points = |values: &[f64]| -> Vec<(f64, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(k, &v)| ((k + 1) as f64, v * 100.0))
            .collect()
    };
    let (estimate, lower, upper) = (
        points(&pair.band.estimate),
        points(&pair.band.lower),
        points(&pair.band.upper),
    );
    let n = (pair.diffs.len().max(2)) as f64;
    let delta = vec![(1.0, threshold * 100.0), (n, threshold * 100.0)];
    let lo = lower
        .iter()
        .map(|p| p.1)
        .fold(threshold * 100.0, f64::min)
        .max(-100.0)
        - 5.0;
    let hi = upper
        .iter()
        .map(|p| p.1)
        .fold(threshold * 100.0, f64::max)
        .min(100.0)
        + 5.0;
    let chart = Chart::new(vec![
        Dataset::default()
            .name("Δ̂")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Cyan))
            .data(&estimate),
        Dataset::default()
            .name("band")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Gray))
            .data(&lower),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Gray))
            .data(&upper),
        Dataset::default()
            .name("δ")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Yellow))
            .data(&delta),
    ])
    .block(Block::bordered().title(format!(
        " {} vs {}: estimate and anytime band (pp){} ",
        state.tested,
        pair.baseline,
        pair.band.empty_note()
    )))
    .x_axis(Axis::default().bounds([1.0, n]).labels(vec![
        "1".to_string(),
        format!("{} observed", pair.diffs.len()),
    ]))
    .y_axis(
        Axis::default()
            .bounds([lo, hi])
            .labels(vec![format!("{lo:.0}"), format!("{hi:.0}")]),
    );
    frame.render_widget(chart, area);
}

fn draw_wealth(frame: &mut Frame, state: &WatchState, pair: &PairView, area: Rect) {
    // log10 of the wealths: the barrier 1/a is a horizontal line.
    let log = |values: &[f64]| -> Vec<(f64, f64)> {
        values
            .iter()
            .enumerate()
            // e^Λ = ∞ (the null cannot hold any more) is drawn at the top of the chart, not at ∞.
            .map(|(k, &w)| ((k + 1) as f64, w.clamp(1e-6, 1e12).log10()))
            .collect()
    };
    let (up, down) = (log(&pair.wealth_promote), log(&pair.wealth_reject));
    let n = (pair.diffs.len().max(2)) as f64;
    let barrier = (1.0 / state.settings.policy.tail.value()).log10();
    let line = vec![(1.0, barrier), (n, barrier)];
    let top = up.iter().chain(&down).map(|p| p.1).fold(barrier, f64::max) + 0.5;
    // Under §9a the curves are exp(Λ): the least wealth over the groups' allocations.
    let stratified = state.settings.policy.construction()
        == Some(crate::engine::settings::Construction::Stratified);
    let (name_up, name_down, title) = if stratified {
        (
            "e^Λ⁺ promote",
            "e^Λ⁻ reject",
            " least wealth e^Λ, §9a (log10) ",
        )
    } else {
        ("K⁺ promote", "K⁻ reject", " wealth (log10) ")
    };
    let chart = Chart::new(vec![
        Dataset::default()
            .name(name_up)
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Green))
            .data(&up),
        Dataset::default()
            .name(name_down)
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Red))
            .data(&down),
        Dataset::default()
            .name("1/a")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Yellow))
            .data(&line),
    ])
    .block(Block::bordered().title(title))
    .x_axis(Axis::default().bounds([1.0, n]))
    .y_axis(Axis::default().bounds([-3.0, top]).labels(vec![
        "0.001".to_string(),
        wealth_cell(10f64.powf(top).round()),
    ]));
    frame.render_widget(chart, area);
}

fn draw_coverage(frame: &mut Frame, state: &WatchState, pair: &PairView, area: Rect) {
    let Some(record) = pair.records.get(state.focus) else {
        return;
    };
    let groups = record
        .coverage_groups
        .iter()
        .map(|g| {
            format!(
                "{} {}/{} (needs {})",
                g.group, g.observed, g.total, g.required
            )
        })
        .collect::<Vec<_>>()
        .join(" · ");
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(format!(
                "coverage {} · {} of {} planned tasks read ({}){}{}",
                record.coverage.name(),
                record.observed,
                record.total,
                percent(f64::from(record.observed) / f64::from(record.total.max(1))),
                reading_note(record),
                record
                    .decided_at
                    .map(|at| format!(" · {} after {at} tasks", record.action.name()))
                    .unwrap_or_default()
            )),
            Line::from(groups),
            Line::from(Span::styled(
                record.reason.as_str(),
                Style::default().add_modifier(Modifier::DIM),
            )),
        ])
        .wrap(ratatui::widgets::Wrap { trim: true }),
        area,
    );
}

/// "41 of 400", or "41 of 400 (+16)" when 16 finished tasks wait behind the plan's prefix.
fn observed_cell(record: &DecisionRecord) -> String {
    let waiting = record
        .finished
        .unwrap_or(record.observed)
        .saturating_sub(record.observed);
    if waiting > 0 {
        format!("{} of {} (+{waiting})", record.observed, record.total)
    } else {
        format!("{} of {}", record.observed, record.total)
    }
}

/// What the pair's reading rests on (SPEC §9c): " · 41 usable of 57 finished · waiting on q017 for
/// new-agent" under the plan-prefix reading, a warning under the descriptive one.
fn reading_note(record: &DecisionRecord) -> String {
    let mut note = String::new();
    if record.reading == Some("finished") {
        note.push_str(" · every finished task read: descriptive");
    } else if let Some(finished) = record.finished.filter(|&f| f > record.observed) {
        note.push_str(&format!(
            " · {} usable of {finished} finished",
            record.observed
        ));
    }
    if let Some(waiting) = &record.waiting_on {
        note.push_str(" · ");
        note.push_str(&waiting.describe());
    }
    note
}
