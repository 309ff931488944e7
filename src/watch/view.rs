//! Drawing `pareval watch`: the header (plan, tested system, rule, what is followed or replayed), one
//! row per baseline at the focused threshold (observed count, estimate, anytime band, both wealths with
//! their p-values, the action), the selected pair's estimate and band against δ over the observed
//! tasks, its wealth curves against 1/a, its coverage so far, with `--early` the runs a saved
//! predictor could halt now and the joint saving so far, the latest notices and the status bar (a
//! skipped input row names its file and line). The header, the pair's detail and the notices wrap
//! to the screen's width rather than being cut, and a narrow table leaves out the columns the charts
//! repeat before it squeezes the evidence.

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
use crate::tui::view::{draw_chart_with_legend, legend};

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
    let threshold = state
        .settings
        .thresholds
        .get(state.focus)
        .map_or(0.0, |t| t.delta());
    let heading = header_lines(state, chrome, threshold, area.width);
    let pair = state.pairs.get(selected);
    let detail = pair.map_or_else(Vec::new, |pair| coverage_lines(state, pair, area.width));
    // The header and the pair's detail take the lines they wrap to, but never more than a quarter
    // of the screen each.
    let problem = state
        .problem
        .as_ref()
        .or(state.early.as_ref().and_then(|e| e.problem.as_ref()));
    // A problem names file, line and value, often wider than the screen: it wraps, up to three
    // lines, rather than lose its end.
    let problem_lines: Vec<Line> = problem.map_or_else(Vec::new, |p| {
        fit(
            p,
            usize::from(area.width.max(1)),
            Style::default().fg(Color::Red),
        )
    });
    let footer_height = (problem_lines.len() as u16).clamp(1, 3);
    let quarter = (area.height / 4).max(2);
    let header_height = (heading.len() as u16).clamp(2, quarter);
    let detail_height = (detail.len() as u16).clamp(3, quarter.max(3));
    let [header, table, charts, early_area, coverage, notices, footer] = Layout::vertical([
        Constraint::Length(header_height),
        Constraint::Length(rows.min(area.height / 3).max(4)),
        Constraint::Min(8),
        Constraint::Length(if early.is_some() { EARLY_HEIGHT } else { 0 }),
        Constraint::Length(detail_height),
        Constraint::Length(3),
        Constraint::Length(footer_height),
    ])
    .areas(area);
    if let (Some(summary), Some(panel)) = (&early, &state.early) {
        draw_early(frame, summary, panel, early_area);
    }
    frame.render_widget(Paragraph::new(heading), header);
    draw_table(frame, state, selected, table);
    let [band, wealth] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(charts);
    if let Some(pair) = pair {
        let baselines: Vec<&str> = state.pairs.iter().map(|p| p.baseline.as_str()).collect();
        draw_band(frame, pair, &baselines, threshold, band);
        draw_wealth(frame, state, pair, wealth);
        frame.render_widget(Paragraph::new(detail), coverage);
    } else {
        frame.render_widget(
            Paragraph::new("No baseline has outcomes yet: waiting for rows.")
                .block(Block::bordered()),
            charts,
        );
    }
    // The newest notices first, each wrapped, as many as the panel's rows hold.
    let recent: Vec<Line> = state
        .notices
        .iter()
        .rev()
        .flat_map(|n| fit(n, usize::from(area.width.max(1)), Style::default()))
        .take(usize::from(notices.height))
        .collect();
    frame.render_widget(Paragraph::new(recent), notices);
    let status = if problem_lines.is_empty() {
        // The last hint (q quit) stays whatever the width.
        vec![Line::from(Span::styled(
            crate::format::fit_hints(chrome.keys, usize::from(area.width), 1),
            Style::default().add_modifier(Modifier::DIM),
        ))]
    } else {
        problem_lines
    };
    frame.render_widget(Paragraph::new(status), footer);
}

/// The header: what is watched (bold), the policy in words, and where the rows come from with what
/// the guarantee rests on, each wrapped at spaces to the screen's width. The policy's words name the
/// family and its adjustment at the end, so it has a line of its own rather than being cut off.
fn header_lines(
    state: &WatchState,
    chrome: &Chrome<'_>,
    threshold: f64,
    width: u16,
) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let what = format!(
        "pareval watch · {} vs {} baseline{} · plan of {} tasks · δ {}",
        state.tested,
        state.pairs.len(),
        if state.pairs.len() == 1 { "" } else { "s" },
        state.plan.tasks.len(),
        pp(threshold)
    );
    let source = format!(
        "{} · {} rows read{}",
        chrome.source,
        state.rows_read,
        // What the guarantee rests on: anytime-valid, or valid only when read once at the limit.
        state
            .pairs
            .first()
            .and_then(|p| p.records.first())
            .map_or(String::new(), |r| format!(" · {}", r.validity))
    );
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let mut lines = fit(&what, width, bold);
    lines.extend(fit(
        &state.settings.policy.describe(),
        width,
        Style::default(),
    ));
    // Errored runs count in the decisions (usually as 0): the header says how many, before the
    // source line, whose long paths a small screen cuts first.
    if let Some(note) = state.errored_note() {
        lines.extend(fit(&note, width, Style::default().fg(Color::Yellow)));
    }
    if let Some(note) = state.runs_note() {
        lines.extend(fit(&note, width, Style::default()));
    }
    lines.extend(fit(&source, width, Style::default()));
    lines
}

/// `text` wrapped at spaces to lines of `width` cells in one style; a word longer than the screen
/// (a long path) is broken, not cut. The panels whose words must all stay on screen (the header,
/// the selected pair's decision) take as many rows as this gives.
fn fit(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    crate::format::wrap_hard(text, width)
        .into_iter()
        .map(|piece| Line::from(Span::styled(piece, style)))
        .collect()
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
        let shown = crate::format::shorten(text, width);
        let pad = crate::format::padding(&shown, width);
        format!("{shown}{pad}")
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

/// The decisions table's columns and their widths (0: the baseline, which takes the rest).
const COLUMNS: [(&str, u16); 7] = [
    ("baseline", 0),
    ("read (waiting)", 17),
    // "-33.3 pp" and "[-44.5, 92.5] pp" at their longest.
    ("Δ̂", 8),
    ("anytime band", 16),
    // "8.9e19 (p 1.1e-20)": a wealth past 10,000 and its p-value below 1e-4 (HAL's GAIA).
    ("wealth ↑", 18),
    ("wealth ↓", 18),
    ("action", 9),
];
/// The baseline's column's width when there is room, and the least it gives way to (the other
/// columns keep their full widths on an 80-column screen).
const BASELINE_WIDTH: u16 = 18;
const BASELINE_NARROWEST: u16 = 8;
/// Columns a narrow screen leaves out, first to last: the band and the estimate are drawn in the
/// chart below, while the wealths with their p-values and the action are the decision's evidence
/// and are never squeezed.
const DROPPED_WHEN_NARROW: [usize; 2] = [3, 2];

/// Which columns fit `inner` cells (a space between columns), the width the baseline's column keeps
/// at least, and the width it gets (the rest of the row).
fn shown_columns(inner: u16) -> ([bool; 7], u16, u16) {
    let mut shown = [true; 7];
    let needed = |shown: &[bool; 7]| -> u16 {
        let (count, width) = COLUMNS.iter().zip(shown).filter(|&(_, &keep)| keep).fold(
            (0u16, 0u16),
            |(count, width), (&(_, w), _)| {
                (count + 1, width + if w == 0 { BASELINE_WIDTH } else { w })
            },
        );
        width + count.saturating_sub(1)
    };
    for column in DROPPED_WHEN_NARROW {
        if needed(&shown) <= inner {
            break;
        }
        shown[column] = false;
    }
    let others = needed(&shown) - BASELINE_WIDTH;
    let rest = inner.saturating_sub(others);
    (
        shown,
        rest.clamp(BASELINE_NARROWEST, BASELINE_WIDTH),
        rest.max(BASELINE_NARROWEST),
    )
}

/// The baselines' names as a column of `width` cells shows them: as they are when every name fits,
/// else without the words they all share with the tested system (HAL's "Inspect ReAct Agent (…)"),
/// marked by "…", and those still too long shortened by `format::fit_names`, so that a narrow column
/// still tells them apart (the chart's title names the selected baseline, whole where it fits).
fn baseline_labels(tested: &str, baselines: &[&str], width: usize) -> Vec<String> {
    if baselines
        .iter()
        .all(|name| crate::format::cells(name) <= width)
    {
        return baselines.iter().map(|name| name.to_string()).collect();
    }
    // The characters every name starts with, cut back to the end of a word (after a space or an
    // opening bracket), so that no name loses part of what tells it apart.
    let shared = baselines
        .iter()
        .fold(tested.chars().count(), |shared, name| {
            tested
                .chars()
                .zip(name.chars())
                .take(shared)
                .take_while(|(a, b)| a == b)
                .count()
        });
    let prefix: String = tested.chars().take(shared).collect();
    let cut = prefix
        .char_indices()
        .rfind(|&(_, c)| c == ' ' || c == '(' || c == '[')
        .map_or(0, |(at, c)| at + c.len_utf8());
    let dropped = prefix[..cut].chars().count();
    let labels: Vec<String> = baselines
        .iter()
        .map(|name| {
            if dropped == 0 || crate::format::cells(name) <= width {
                name.to_string()
            } else {
                format!("…{}", name.chars().skip(dropped).collect::<String>())
            }
        })
        .collect();
    // Labels still too long (baselines of several scaffolds share nothing with the tested system:
    // HAL's GAIA read "HAL Generalist Agent (Cl" on every row) keep what tells them apart.
    let shown: Vec<&str> = labels.iter().map(String::as_str).collect();
    crate::format::fit_names(&shown, width)
}

fn draw_table(frame: &mut Frame, state: &WatchState, selected: usize, area: Rect) {
    let (shown, baseline_width, label_width) = shown_columns(area.width.saturating_sub(2));
    let names: Vec<&str> = state.pairs.iter().map(|p| p.baseline.as_str()).collect();
    let labels = baseline_labels(&state.tested, &names, usize::from(label_width));
    let rows: Vec<Row> = state
        .pairs
        .iter()
        .zip(labels)
        .map(|(pair, label)| {
            let Some(record) = pair.records.get(state.focus) else {
                return Row::new(vec![Cell::from(label)]);
            };
            let (lo, hi) = (pair.band.lower.last(), pair.band.upper.last());
            // An empty band: a crossing the later tasks contradict (the chart's title says since when).
            let band = match (lo, hi) {
                _ if pair.band.is_empty_now() => Span::styled(
                    format!("empty {} > {}", pp_short(lo), pp_short(hi)),
                    Style::default().fg(Color::Red),
                ),
                // One unit for both ends: "[-44.5 pp, 92.5 pp]" did not fit its column.
                (Some(lo), Some(hi)) => Span::raw(format!(
                    "[{}, {}] pp",
                    pp_short(Some(lo)),
                    pp_short(Some(hi))
                )),
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
            let cells = [
                Cell::from(label),
                Cell::from(observed_cell(record)),
                Cell::from(pp(record.estimate)),
                Cell::from(band),
                Cell::from(wp),
                Cell::from(wr),
                Cell::from(Span::styled(
                    record.action.name(),
                    action_style(record.action),
                )),
            ];
            Row::new(
                cells
                    .into_iter()
                    .zip(&shown)
                    .filter_map(|(cell, &keep)| keep.then_some(cell)),
            )
        })
        .collect();
    let pick = |items: [&'static str; 7]| -> Vec<&'static str> {
        items
            .into_iter()
            .zip(&shown)
            .filter_map(|(item, &keep)| keep.then_some(item))
            .collect()
    };
    let widths: Vec<Constraint> = COLUMNS
        .iter()
        .zip(&shown)
        .filter(|&(_, &keep)| keep)
        .map(|(&(_, width), _)| {
            if width == 0 {
                Constraint::Min(baseline_width)
            } else {
                Constraint::Length(width)
            }
        })
        .collect();
    let table = Table::new(rows, widths)
        .header(
            Row::new(pick(COLUMNS.map(|(name, _)| name)))
                .style(Style::default().add_modifier(Modifier::DIM)),
        )
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .block(Block::bordered().title(" decisions "));
    let mut table_state = TableState::default().with_selected(Some(selected));
    frame.render_stateful_widget(table, area, &mut table_state);
}

fn draw_band(frame: &mut Frame, pair: &PairView, baselines: &[&str], threshold: f64, area: Rect) {
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
    // 5 pp of room around the band and δ, but never past ±100 pp: the axis's labels are its ends,
    // and a difference of two success rates cannot lie outside [−100, 100].
    let lo = (lower.iter().map(|p| p.1).fold(threshold * 100.0, f64::min) - 5.0).max(-100.0);
    let hi = (upper.iter().map(|p| p.1).fold(threshold * 100.0, f64::max) + 5.0).min(100.0);
    let names = legend([
        ("Δ̂".to_string(), Style::default().fg(Color::Cyan)),
        ("band".to_string(), Style::default().fg(Color::Gray)),
        ("δ".to_string(), Style::default().fg(Color::Yellow)),
    ]);
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
    .x_axis(Axis::default().bounds([1.0, n]).labels(vec![
        "1".to_string(),
        format!("{} observed", pair.diffs.len()),
    ]))
    .y_axis(
        Axis::default()
            .bounds([lo, hi])
            .labels(vec![format!("{lo:.0}"), format!("{hi:.0}")]),
    );
    // The tested system is in the header, and what the chart draws comes first: a long baseline
    // ("… vs ReAct (…): estim" at 120 columns, "…sonnet-4-5-20250929: estimate and" on SWE-bench)
    // is shortened to the room the border leaves.
    let words = " estimate and band (pp) against ";
    let note = pair.band.empty_note();
    let room =
        usize::from(area.width).saturating_sub(words.chars().count() + note.chars().count() + 3);
    // Shortened as every baseline would be at that width, so that the label tells this one
    // apart from the others (a cut at the end read "20250720…" for most of SWE-bench's).
    let labels = crate::format::fit_names(baselines, room);
    let label = baselines
        .iter()
        .position(|&name| name == pair.baseline)
        .and_then(|at| labels.get(at).cloned())
        .unwrap_or_else(|| pair.baseline.clone());
    let title = format!("{words}{label}{note} ");
    draw_chart_with_legend(frame, Line::from(title), names, chart, area);
}

/// The largest wealth the chart draws as itself; larger ones, and ∞, sit on its top edge.
const WEALTH_CEILING: f64 = 1e12;

fn draw_wealth(frame: &mut Frame, state: &WatchState, pair: &PairView, area: Rect) {
    // log10 of the wealths: the barrier 1/a is a horizontal line.
    let log = |values: &[f64]| -> Vec<(f64, f64)> {
        values
            .iter()
            .enumerate()
            // e^Λ = ∞ (the null cannot hold any more) is drawn at the top of the chart, not at ∞.
            .map(|(k, &w)| ((k + 1) as f64, w.clamp(1e-6, WEALTH_CEILING).log10()))
            .collect()
    };
    let (up, down) = (log(&pair.wealth_promote), log(&pair.wealth_reject));
    let n = (pair.diffs.len().max(2)) as f64;
    let barrier = (1.0 / state.settings.policy.tail.value()).log10();
    let line = vec![(1.0, barrier), (n, barrier)];
    let highest = up.iter().chain(&down).map(|p| p.1).fold(barrier, f64::max);
    // A wealth at the ceiling (∞ once certain) is drawn on the top edge, and the axis says the
    // top stands for that much or more: its half-decade of room read as a wealth ("3.2e12").
    let ceiling = WEALTH_CEILING.log10();
    let (top, top_label) = if highest >= ceiling {
        (ceiling, format!("≥{}", wealth_cell(WEALTH_CEILING)))
    } else {
        let top = highest + 0.5;
        (top, wealth_cell(10f64.powf(top).round()))
    };
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
    let names = legend([
        (name_up.to_string(), Style::default().fg(Color::Green)),
        (name_down.to_string(), Style::default().fg(Color::Red)),
        ("1/a".to_string(), Style::default().fg(Color::Yellow)),
    ]);
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
    .x_axis(Axis::default().bounds([1.0, n]))
    .y_axis(
        Axis::default()
            .bounds([-3.0, top])
            .labels(vec!["0.001".to_string(), top_label]),
    );
    draw_chart_with_legend(frame, Line::from(title), names, chart, area);
}

/// The selected pair's coverage so far, its groups and the reason of its decision, wrapped to
/// `width` (the reason names the evidence and a family's adjustment: the words a user reads first).
fn coverage_lines(state: &WatchState, pair: &PairView, width: u16) -> Vec<Line<'static>> {
    let Some(record) = pair.records.get(state.focus) else {
        return Vec::new();
    };
    let width = usize::from(width.max(1));
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
    let status = format!(
        "coverage {} · {} of {} planned tasks read ({}){}{}",
        record.coverage_words(),
        record.observed,
        record.total,
        percent(f64::from(record.observed) / f64::from(record.total.max(1))),
        reading_note(record),
        record
            .decided_at
            .map(|at| format!(" · {} after {at} tasks", record.action.name()))
            .unwrap_or_default()
    );
    let mut lines = fit(&status, width, Style::default());
    lines.extend(fit(&groups, width, Style::default()));
    lines.extend(fit(
        &record.reason,
        width,
        Style::default().add_modifier(Modifier::DIM),
    ));
    if let Some(then) = &record.reason_at_decision {
        lines.extend(fit(
            &format!("at the look that decided ({}): {then}", record.made_at()),
            width,
            Style::default().add_modifier(Modifier::DIM),
        ));
    }
    lines
}

/// Whether a fixed-horizon rule read the plan's prefix up to its budget limit of more finished tasks
/// (under the plan-prefix reading, finished tasks beyond the read ones with nothing waited on).
fn read_at_limit(record: &DecisionRecord) -> bool {
    record.monitor == "per-look"
        && record.reading == Some("plan-prefix")
        && record.waiting_on.is_none()
        && record.finished.is_some_and(|f| f > record.observed)
}

/// "41 of 400", or "41 of 400 (+16)" when 16 finished tasks wait behind the plan's prefix (not
/// when a fixed-horizon rule stopped reading at its limit: nothing waits there).
fn observed_cell(record: &DecisionRecord) -> String {
    let waiting = record
        .finished
        .unwrap_or(record.observed)
        .saturating_sub(record.observed);
    if waiting > 0 && !read_at_limit(record) {
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
    } else if read_at_limit(record) {
        note.push_str(&format!(
            " · read at the budget limit ({} finished)",
            record.finished.unwrap_or(record.observed)
        ));
    } else if let Some(finished) = record.finished.filter(|&f| f > record.observed) {
        note.push_str(&format!(
            " · {} usable of {finished} finished",
            record.observed
        ));
    }
    // A final decision stands whatever the task waited on brings, so it is not named then.
    if let Some(waiting) = record
        .waiting_on
        .as_ref()
        .filter(|_| !record.action.is_final())
    {
        note.push_str(" · ");
        note.push_str(&waiting.describe());
    }
    note
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::engine::live::LivePlan;
    use crate::engine::settings::{
        Adjust, BootstrapMode, Family, Fraction, OrderKind, Preset, Rule, Threshold,
    };
    use crate::watch::follow::{Event, OutcomeRow};

    /// A family watch (A against B and C, Holm) that has read 18 rows; its source is a long path.
    fn family_state() -> WatchState {
        family_state_of(["A", "B", "C"])
    }

    /// The family watch of `systems[0]` against the other two.
    fn family_state_of(systems: [&str; 3]) -> WatchState {
        let tasks = 40;
        let plan = LivePlan {
            tasks: (0..tasks).map(|i| format!("t{i}")).collect(),
            groups: (0..tasks).map(|i| (i % 2) as u32).collect(),
            labels: vec!["odd".into(), "even".into()],
        };
        let mut policy = Preset::Primary.policy(BootstrapMode::Exact, Fraction(500));
        policy.rule = Rule::ANYTIME;
        policy.order = OrderKind::Stratified;
        policy.family = Family::Tested;
        policy.adjust = Adjust::Holm;
        let mut state = WatchState::for_tests(
            plan,
            systems[0],
            &systems[1..],
            policy,
            vec![Threshold(0), Threshold(500)],
        );
        let mut events = Vec::new();
        for (line, (system, task)) in systems
            .iter()
            .flat_map(|s| (0..6).map(move |t| (*s, t)))
            .enumerate()
        {
            events.push(Event::Row {
                file: "runs.csv".into(),
                line: line as u64 + 2,
                row: OutcomeRow {
                    system: system.into(),
                    task: format!("t{task}"),
                    run: "0".into(),
                    outcome: f64::from(u8::from(system == systems[0] || task % 2 == 0)),
                    errored: false,
                },
            });
        }
        state.apply(events);
        state
    }

    #[test]
    fn a_decision_from_an_earlier_look_shows_why_it_was_made_there() {
        let mut state = family_state();
        let record = &mut state.pairs[0].records[0];
        record.action = crate::engine::rules::Action::Promote;
        record.decided_at = Some(4);
        record.reason_at_decision = Some("promote: Λ⁺ = 3.002 at its look".to_string());
        record.waiting_on = Some(crate::engine::walk::record::WaitingOn {
            task: "t7".to_string(),
            systems: vec!["B".to_string()],
        });
        let text = words(&screen(&state, 120, 48).join(" "));
        assert!(
            text.contains("at the look that decided (4): promote: Λ⁺ = 3.002 at its look"),
            "{text}"
        );
        // The decision stands whatever t7 brings: the line does not say it waits on it.
        assert!(!text.contains("waiting on t7"), "{text}");
        state.pairs[0].records[0].action = crate::engine::rules::Action::Continue;
        let text = words(&screen(&state, 120, 48).join(" "));
        assert!(text.contains("waiting on t7"), "{text}");
    }

    #[test]
    fn a_fixed_horizon_rule_read_at_its_limit_shows_no_tasks_waiting() {
        use crate::engine::live::{LiveSettings, Reading, decide_live};
        use crate::engine::walk::record::Provenance;
        let plan = LivePlan {
            tasks: (0..20).map(|i| format!("t{i}")).collect(),
            groups: (0..20).map(|i| i % 2).collect(),
            labels: vec!["odd".into(), "even".into()],
        };
        // Both systems have finished the whole plan; the limit at budget 0.5 is its first 10 tasks.
        let tested: Vec<Option<f64>> = (0..20).map(|i| Some(f64::from(i % 3 == 0))).collect();
        let baseline: Vec<Option<f64>> = (0..20).map(|i| Some(f64::from(i % 4 == 0))).collect();
        let settings = LiveSettings {
            policy: Preset::Primary.policy(BootstrapMode::Exact, Fraction(500)),
            thresholds: vec![Threshold(0)],
            seed: 0,
            budget: Fraction(5000),
            reading: Reading::PlanPrefix,
        };
        let records = decide_live(
            &plan,
            ("A", "B"),
            &tested,
            &baseline,
            &settings,
            &Provenance::new(&[]),
        );
        assert_eq!(observed_cell(&records[0]), "10 of 20");
        assert_eq!(
            reading_note(&records[0]),
            " · read at the budget limit (20 finished)"
        );
    }

    fn screen(state: &WatchState, width: u16, height: u16) -> Vec<String> {
        screen_at(state, 0, width, height)
    }

    /// The screen with baseline `selected` chosen.
    fn screen_at(state: &WatchState, selected: usize, width: u16, height: u16) -> Vec<String> {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
        let source = format!(
            "following /home/someone/{}/results.csv",
            "a-very-long-folder".repeat(8)
        );
        let chrome = Chrome {
            source: &source,
            keys: "space pause  → step  r restart  + - speed  ↑↓ pair  t threshold  q quit",
        };
        terminal
            .draw(|frame| draw(frame, state, selected, &chrome))
            .expect("draw");
        let buffer = terminal.backend().buffer();
        (0..height)
            .map(|y| {
                (0..width)
                    .map(|x| buffer[(x, y)].symbol().to_string())
                    .collect::<String>()
            })
            .collect()
    }

    #[test]
    fn a_narrow_screen_leaves_out_the_band_before_it_cuts_the_evidence() {
        let state = family_state();
        assert_eq!(state.pairs.len(), 2);
        for width in [80u16, 94, 95, 100, 111, 112, 120, 170] {
            let rows = screen(&state, width, 48);
            let at = rows
                .iter()
                .position(|row| row.contains("decisions"))
                .expect("the table's top border");
            let heading = &rows[at + 1];
            for (i, pair) in state.pairs.iter().enumerate() {
                let row = &rows[at + 2 + i];
                let record = &pair.records[0];
                let (up, down, p_up, p_down) = record
                    .statistic
                    .anytime_evidence()
                    .expect("anytime evidence");
                for cell in [
                    format!("{} (p {})", wealth_cell(up), crate::format::p_value(p_up)),
                    format!(
                        "{} (p {})",
                        wealth_cell(down),
                        crate::format::p_value(p_down)
                    ),
                    observed_cell(record),
                    record.action.name().to_string(),
                ] {
                    assert!(
                        row.contains(&cell),
                        "width {width}: {cell:?} cut in {row:?}"
                    );
                }
                // The baseline's name keeps its start.
                assert!(
                    row.contains(&format!("│{}", &pair.baseline[..1])),
                    "{row:?}"
                );
            }
            // The band is shown whenever the screen has room for every column.
            assert_eq!(
                heading.contains("anytime band"),
                width >= 112,
                "width {width}: {heading:?}"
            );
            assert_eq!(
                heading.contains("Δ̂"),
                width >= 95,
                "width {width}: {heading:?}"
            );
        }
    }

    /// Text joined at whitespace, so that words wrapped across rows compare with the one-line text.
    fn words(text: &str) -> String {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn the_selected_pairs_reason_the_newest_notice_and_the_way_out_stay_on_a_narrow_screen() {
        let mut state = family_state();
        let notice = format!(
            "A vs {} at 0 pp: promote after 31 of 40 tasks (seen at 36); holm over a family of 2",
            "a-baseline-with-a-long-name ".repeat(3).trim_end()
        );
        state.notices.push("an older notice".into());
        state.notices.push(notice.clone());
        let reason = state.pairs[0].records[0].reason.clone();
        assert!(reason.len() > 60, "{reason}");
        for width in [60u16, 80, 170] {
            let rows = screen(&state, width, 48);
            // Below the charts' bottom border: the pair's detail, the notices and the footer.
            let below = rows
                .iter()
                .rposition(|row| row.starts_with('└'))
                .expect("the charts' bottom border");
            let text = words(&rows[below + 1..].join(" "));
            for part in [&reason, &notice] {
                assert!(
                    text.contains(&words(part)),
                    "width {width}: {part:?} cut in {:#?}",
                    &rows[below + 1..]
                );
            }
            // The footer drops hints from the middle, never the way out.
            let footer = rows.last().expect("a footer").trim_end();
            assert!(footer.ends_with("  q quit"), "width {width}: {footer:?}");
            assert!(
                footer.starts_with("space pause"),
                "width {width}: {footer:?}"
            );
        }
    }

    #[test]
    fn a_problem_wider_than_the_screen_wraps_in_the_status_bar_rather_than_lose_its_end() {
        let mut state = family_state();
        let problem = "✗ logs/run-2026-12-05/results.csv, line 29: status 'skipped' of new-agent on task-0007 is not ok, error or not_attempted (skipped)";
        state.problem = Some(problem.to_string());
        for width in [60u16, 100] {
            let rows = screen(&state, width, 48);
            let tail = words(&rows[rows.len() - 3..].join(" "));
            assert!(
                tail.contains(&words(problem)),
                "width {width}: {:#?}",
                &rows[rows.len() - 3..]
            );
        }
    }

    #[test]
    fn the_header_says_how_many_errored_runs_were_read_as_outcomes() {
        let mut state = family_state();
        assert!(
            screen(&state, 100, 48)
                .iter()
                .all(|r| !r.contains("status error"))
        );
        let tested = state.tested.clone();
        state.apply(vec![Event::Row {
            file: "runs.csv".into(),
            line: 99,
            row: OutcomeRow {
                system: tested.clone(),
                task: "t7".into(),
                run: "0".into(),
                outcome: 0.0,
                errored: true,
            },
        }]);
        for width in [60u16, 100] {
            let rows = screen(&state, width, 48);
            let top = words(&rows[..12].join(" "));
            assert!(
                top.contains(&words(&format!(
                    "runs with status error, read as their outcomes (a harness failure counts as the agent's unless the harness runs it again): {tested} 1"
                ))),
                "width {width}: {:#?}",
                &rows[..12]
            );
        }
    }

    #[test]
    fn a_tiny_terminal_draws_without_panicking() {
        let mut state = family_state();
        state.notices.push("a notice ".repeat(20));
        for (width, height) in [(1, 1), (2, 3), (10, 5), (20, 10), (40, 12), (200, 6)] {
            let rows = screen(&state, width, height);
            assert_eq!(rows.len(), usize::from(height));
        }
    }

    #[test]
    fn a_wealth_cell_fits_its_column_far_past_the_barrier() {
        // HAL's GAIA at 100 columns cut "8.9e19 (p 1.1e-20" and showed "∞ (p 0.0e0)".
        let cell = |w: f64, p: f64| format!("{} (p {})", wealth_cell(w), crate::format::p_value(p));
        for (w, p) in [
            (8.9e19, 1.1e-20),
            (3.96, 0.2526),
            (7.4e-4, 1.0),
            (f64::INFINITY, 0.0),
        ] {
            for column in [4, 5] {
                assert!(
                    cell(w, p).chars().count() <= usize::from(COLUMNS[column].1),
                    "{}",
                    cell(w, p)
                );
            }
        }
        assert_eq!(cell(f64::INFINITY, 0.0), "∞ (p 0)");
    }

    #[test]
    fn both_charts_name_their_curves_on_their_first_line() {
        // ratatui hides a chart's legend that would take a quarter of the chart: at 120×40 it did
        // for both charts, leaving the estimate, the band and δ (and the two wealths) unnamed.
        let state = family_state();
        let text = screen(&state, 120, 40).join("\n");
        assert!(text.contains("── band  ── δ "), "{text}");
        assert!(
            text.contains("│── e^Λ⁺ promote  ── e^Λ⁻ reject  ── 1/a "),
            "{text}"
        );
    }

    #[test]
    fn the_estimate_charts_axis_stays_inside_what_a_difference_can_be() {
        // The first looks' band is about the whole [−100, 100] pp, and the padding around it read
        // "103" and "-103" on the axis, values no difference of two success rates can take.
        let state = family_state();
        let text = screen(&state, 120, 40);
        let top = text
            .iter()
            .position(|line| line.contains(" estimate and band (pp) against "))
            .unwrap_or_else(|| panic!("{}", text.join("\n")));
        let labels: Vec<f64> = text[top + 1..]
            .iter()
            .take_while(|line| !line.starts_with('└'))
            .filter_map(|line| line.trim_start_matches('│').split('│').next())
            .filter_map(|cell| cell.trim().parse::<f64>().ok())
            .collect();
        assert_eq!(labels.len(), 2, "{}", text.join("\n"));
        assert!(
            labels.iter().all(|v| (-100.0..=100.0).contains(v)),
            "{labels:?}\n{}",
            text.join("\n")
        );
    }

    #[test]
    fn an_infinite_wealth_tops_the_chart_whose_axis_says_so() {
        // Once certain, e^Λ is ∞; drawn at 1e12 with half a decade of room, the axis read "3.2e12".
        let mut state = family_state();
        let before = screen(&state, 120, 40).join("\n");
        assert!(!before.contains("≥1.0e12"), "{before}");
        let wealth = &mut state.pairs[0].wealth_promote;
        if let Some(last) = wealth.last_mut() {
            *last = f64::INFINITY;
        }
        let text = screen(&state, 120, 40).join("\n");
        assert!(text.contains("│≥1.0e12│"), "{text}");
        assert!(!text.contains("3.2e12"), "{text}");
    }

    #[test]
    fn the_estimate_charts_title_says_what_it_draws_before_a_long_baseline() {
        // SWE-bench's names cut the title after "…sonnet-4-5-20250929: estimate and" at 120.
        let long = "20250929_mini-v1.13.3_sonnet-4-5-20250929-with-a-longer-tail";
        let state = family_state_of(["A", long, "C"]);
        for width in [100u16, 120, 160] {
            let text = screen(&state, width, 40).join("\n");
            let line = text
                .lines()
                .find(|line| line.contains(" estimate and band (pp) against "))
                .unwrap_or_else(|| panic!("{text}"));
            let after = line
                .split(" estimate and band (pp) against ")
                .nth(1)
                .expect("the baseline");
            // The label ends before the border goes on: whole, or shortened around "…".
            let label = after.split(['─', '┐']).next().expect("label").trim_end();
            let shortened = label
                .split_once('…')
                .is_some_and(|(head, tail)| long.starts_with(head) && long.ends_with(tail));
            assert!(label == long || shortened, "{width}: '{label}' in {line}");
        }
    }

    #[test]
    fn the_estimate_charts_title_tells_the_selected_baseline_from_the_others() {
        // SWE-bench's names share their start: cut at the end, every title read "20250720_mini…".
        let state = family_state_of([
            "A",
            "20250720_mini-v1.0.0_o3-2025-04-16",
            "20250720_mini-v1.0.0_gpt-5-mini-2025-08-07",
        ]);
        let title = |selected: usize| -> String {
            let text = screen_at(&state, selected, 90, 40).join("\n");
            let line = text
                .lines()
                .find(|line| line.contains(" estimate and band (pp) against "))
                .unwrap_or_else(|| panic!("{text}"))
                .to_string();
            line.split(" estimate and band (pp) against ")
                .nth(1)
                .expect("the baseline")
                .split(['─', '┐'])
                .next()
                .expect("label")
                .trim_end()
                .to_string()
        };
        let (first, second) = (title(0), title(1));
        assert!(first.contains('…'), "{first}");
        assert_ne!(first, second);
    }

    #[test]
    fn a_narrow_column_tells_baselines_apart_by_what_their_names_do_not_share() {
        let tested = "Inspect ReAct Agent (claude-3-7-sonnet-20250219)";
        let baselines = [
            "Inspect ReAct Agent (gpt-4o-2024-11-20)",
            "Inspect ReAct Agent (gpt-4o-mini-2024-07-18)",
        ];
        // Names that fit stay whole; a shared start is dropped at a word's end only.
        assert_eq!(baseline_labels(tested, &baselines, 60), baselines);
        assert_eq!(
            baseline_labels(tested, &baselines, 24),
            ["…gpt-4o-2024-11-20)", "…gpt-4o-mini-2024-07-18)"]
        );
        // No shared word to drop: the labels keep what tells the names apart (a cut at the
        // column's edge read "agent" for both).
        assert_eq!(
            baseline_labels("agent-v2", &["agent-v1", "agent-v10"], 5),
            ["ag…v1", "ag…10"]
        );
        // Baselines of two scaffolds share no word with the tested system (HAL's GAIA).
        let gaia = [
            "HAL Generalist Agent (Claude Opus 4 (May 2025))",
            "HAL Generalist Agent (Claude Opus 4 High (May 2025))",
            "HF Open Deep Research (Claude Opus 4 (May 2025))",
        ];
        let labels = baseline_labels(
            "HAL Generalist Agent (Claude Sonnet 4.5 (September 2025))",
            &gaia,
            24,
        );
        let distinct: std::collections::HashSet<&String> = labels.iter().collect();
        assert_eq!(distinct.len(), 3, "{labels:?}");
        assert!(labels.iter().all(|l| l.chars().count() <= 24), "{labels:?}");
        let state = family_state_of([tested, baselines[0], baselines[1]]);
        for width in [80u16, 90, 100] {
            let rows = screen(&state, width, 48);
            for label in ["…gpt-4o-2", "…gpt-4o-m"] {
                assert!(
                    rows.iter().any(|row| row.starts_with(&format!("│{label}"))),
                    "width {width}: {label} in {rows:#?}"
                );
            }
        }
        let rows = screen(&state, 170, 48);
        assert!(
            rows.iter()
                .any(|row| row.starts_with(&format!("│{}", baselines[1])))
        );
    }

    #[test]
    fn the_header_wraps_so_the_family_and_what_the_guarantee_rests_on_stay_on_screen() {
        let state = family_state();
        let policy = state.settings.policy.describe();
        assert!(
            policy.ends_with("family tested adjusted by holm"),
            "{policy}"
        );
        for width in [60, 100, 170] {
            let rows = screen(&state, width, 48);
            // The header is the text down to the table's top border; its words, joined again,
            // must hold every part of the header in full.
            let header: Vec<&str> = rows
                .iter()
                .take_while(|row| !row.starts_with('┌'))
                .map(|row| row.trim_end())
                .collect();
            let joined = header.join(" ");
            let joined_words = words(&joined);
            for part in [
                "pareval watch · A vs 2 baselines · plan of 40 tasks · δ 0 pp".to_string(),
                policy.clone(),
                "18 rows read".to_string(),
                "anytime-valid".to_string(),
            ] {
                assert!(
                    joined_words.contains(&words(&part)),
                    "width {width}: {part:?} missing from the header {header:#?}"
                );
            }
            // The long path is broken across lines, not cut: every one of its characters is there.
            let unbroken: String = header.concat().split_whitespace().collect();
            assert_eq!(
                unbroken.matches("a-very-long-folder").count(),
                8,
                "width {width}: {header:#?}"
            );
        }
    }
}
