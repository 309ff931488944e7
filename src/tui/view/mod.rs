//! Drawing the explorer: layout and widgets over the app's precomputed state (the replay result, the pair
//! rows, the drill-down detail). Nothing is computed here beyond picking what to show. Status is always a
//! glyph and a word as well as a colour, and without colour (NO_COLOR, the mono theme) only modifiers
//! (bold, reversed, dim) mark things.

mod chart;
mod coverage;
mod drill;
pub mod early;
mod group_table;
mod pairs;
mod proxy;
mod widgets;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::app::{App, Tab};
use super::keys::{BINDINGS, FOOTER, fit_footer};
use crate::format::{percent, trim_number};

pub use chart::chart_series;
use chart::{draw_chart, draw_summary};
use coverage::draw_coverage;
pub use coverage::shade;
use drill::draw_drill;
pub use drill::{band_series, histogram_bins, lambda_series};
use pairs::draw_pairs;
use proxy::draw_proxy;
pub use proxy::proxy_agreement;
pub use widgets::{MIN_HEIGHT, MIN_WIDTH, Theme, slider_track};
/// Also drawn by `watch`'s charts.
pub(crate) use widgets::{draw_chart_with_legend, legend};
use widgets::{elide_front, focused_rows, overlay};

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App, theme: Theme) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        // The way out first: at 20×5 the wrapped lines lost their last, "or press q to quit".
        let text = vec![
            Line::from(vec![
                Span::raw("q quits · "),
                Span::styled("terminal too small", theme.bad()),
            ]),
            Line::from(format!(
                "pareval needs at least {MIN_WIDTH}×{MIN_HEIGHT}; this one is {}×{}.",
                area.width, area.height
            )),
            Line::from("Enlarge the window, or press q to quit."),
        ];
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    // A status wider than the screen (an error naming a file, line and value) wraps, up to three
    // lines, rather than lose its end.
    let status_lines = if app.status.is_empty() {
        Vec::new()
    } else {
        crate::format::wrap_hard(&app.status, usize::from(area.width))
    };
    let [header, slider, body, footer] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length(2),
        Constraint::Min(10),
        Constraint::Length((status_lines.len() as u16).clamp(1, 3)),
    ])
    .areas(area);
    draw_header(frame, app, theme, header);
    match (app.view.tab, &app.early) {
        (Tab::Early, Some(panel)) => {
            early::draw_slider(frame, panel, theme, slider);
            early::draw_body(frame, panel, theme, body);
        }
        (Tab::Main | Tab::Early, _) => {
            draw_slider(frame, app, theme, slider);
            draw_main(frame, app, theme, body);
        }
        (Tab::Coverage, _) => {
            draw_slider(frame, app, theme, slider);
            draw_coverage(frame, app, theme, body);
        }
        (Tab::Proxy, _) => {
            draw_slider(frame, app, theme, slider);
            draw_proxy(frame, app, theme, body);
        }
    }
    draw_footer(frame, app, theme, &status_lines, footer);
    if app.drill.is_some() {
        draw_drill(frame, app, theme, area);
    }
    if app.notes_open {
        draw_notes(frame, app, theme, area);
    }
    if app.help.is_some() {
        draw_help(frame, app, theme, area);
    }
    if app.selector.is_some() {
        draw_selector(frame, app, theme, area);
    }
}

fn draw_selector(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let Some(selector) = &app.selector else {
        return;
    };
    let lines: Vec<Line> = selector
        .labels
        .iter()
        .zip(&selector.chosen)
        .enumerate()
        .map(|(i, (label, &chosen))| {
            let mark = if chosen { "[x]" } else { "[ ]" };
            let style = if i == selector.cursor {
                theme.selected()
            } else {
                Style::default()
            };
            Line::from(Span::styled(format!("{mark} {label}"), style))
        })
        .collect();
    let rect = overlay(area, 60, (lines.len() as u16 + 2).min(area.height));
    frame.render_widget(Clear, rect);
    let title = " groups to keep · space toggles · a all · Enter applies · Esc cancels ";
    let mut state = ratatui::widgets::ListState::default().with_selected(Some(selector.cursor));
    let list = ratatui::widgets::List::new(lines).block(widgets::titled_block(title, rect.width));
    frame.render_stateful_widget(list, rect, &mut state);
}

fn draw_header(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let data = &app.dataset;
    let group = match &app.compute.group_column {
        Some(name) => {
            // The record's groups, not the filtered ones: the filter says how many are chosen.
            let groups = app.base().group_column(name).map_or(0, |c| c.labels.len());
            let filter = match app.compute.group_filter.as_slice() {
                [] => String::new(),
                [one] => format!(", only '{one}'"),
                many => format!(", {} of them chosen", many.len()),
            };
            let plural = if groups == 1 { "" } else { "s" };
            format!("{name} ({groups} group{plural}{filter})")
        }
        None => "none".to_string(),
    };
    let pairs = app
        .replay()
        .map_or(app.pairs_expected, |r| r.prepared.pairs.len());
    // A budget measure that leaves pairs or tasks out says how many (SPEC §4); where the line has no
    // room for the reason, `i` gives it.
    let left_out_of = app.replay().and_then(|r| r.prepared.left_out.as_ref());
    let left_out = |long: bool| {
        left_out_of.map_or(String::new(), |l| {
            let mut parts = Vec::new();
            if l.pairs > 0 {
                parts.push(format!("{} pairs", l.pairs));
            }
            if l.pair_tasks > 0 && long {
                parts.push(format!("{} pair-tasks", l.pair_tasks));
            }
            if long {
                format!(
                    " · {} left out (no {}; i names them)",
                    parts.join(", "),
                    l.field
                )
            } else {
                format!(" · {} left out (i)", parts.join(", "))
            }
        })
    };
    // Before the group: a long group column's description is what a narrow screen cuts.
    let notes = match data.notes.len() {
        0 => String::new(),
        1 => " · 1 note (i)".to_string(),
        n => format!(" · {n} notes (i)"),
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let facts = |long: bool| {
        format!(
            "{} system{} · {} directed pair{}{} · {} task{}{notes} · group {group}",
            data.n_systems(),
            plural(data.n_systems()),
            pairs,
            plural(pairs),
            left_out(long),
            data.n_tasks(),
            plural(data.n_tasks()),
        )
    };
    let width = usize::from(area.width).max(1);
    let fits = |text: &str| "pareval ".len() + crate::format::cells(text) <= width;
    let facts = if fits(&facts(true)) {
        facts(true)
    } else {
        facts(false)
    };
    // The facts stay on one line whatever the path: a long path is shortened from the front (the
    // file name is the telling part), and below a dozen characters it says nothing, so it is left
    // out; facts still too long (a long group description) are cut at the end with '…', so the
    // header never wraps into the policy line.
    let room = width.saturating_sub("pareval ".len() + " · ".len() + crate::format::cells(&facts));
    let mut first = vec![Span::styled("pareval ", theme.accent())];
    if room >= 12 {
        first.push(Span::raw(elide_front(&app.files.join(", "), room)));
        first.push(Span::raw(" · "));
    }
    if fits(&facts) {
        first.push(Span::raw(facts));
    } else {
        let kept = crate::format::head_cells(&facts, width.saturating_sub("pareval …".len()));
        first.push(Span::raw(format!("{kept}…")));
    }
    // The settings a meeting reads first (thresholds, orders, measure, seed) come before the
    // policy's long description, so a narrow screen cuts the description, and says so with '…'.
    let thresholds: Vec<String> = app
        .compute
        .thresholds
        .iter()
        .map(|&t| trim_number(f64::from(t) / 100.0))
        .collect();
    // The family, a setting a meeting asks about, comes before the description too.
    let policy = app.compute.policy();
    let policy = format!(
        "{}{} · thresholds {} pp · {} orders · budget by {} · seed {} · {}{}",
        app.compute.preset.name(),
        if app.compute.modified() {
            " (modified)"
        } else {
            ""
        },
        thresholds.join("/"),
        app.compute.orders,
        app.compute.measure.name(),
        app.compute.seed,
        policy
            .describe_family()
            .map_or(String::new(), |family| format!("{family} · ")),
        policy.describe_without_family()
    );
    let progress = app.pending().then(|| {
        let progress = app.progress.map_or(String::new(), |(done, total)| {
            format!(" {done}/{total} pairs")
        });
        let shown = match app.preview {
            Some(orders) => format!(
                ", showing a preview from {orders} of {} orders",
                app.compute.orders
            ),
            None if app.result.is_some() => ", showing the previous result".to_string(),
            None => String::new(),
        };
        format!("⟳ replaying{progress}{shown} · ")
    });
    let first_text: String = first.iter().map(|span| span.content.as_ref()).collect();
    let mut lines: Vec<Line> = crate::format::wrap_hard(&first_text, width)
        .into_iter()
        .take(usize::from(area.height).saturating_sub(1).max(1))
        .map(|line| Line::from(header_spans(&line, theme)))
        .collect();
    // The progress goes first: while a job runs it is what the user waits on.
    let second_text = format!("{}{policy}", progress.as_deref().unwrap_or(""));
    let room = usize::from(area.height).saturating_sub(lines.len());
    let mut second = crate::format::wrap_hard(&second_text, width);
    if second.len() > room {
        second.truncate(room);
        if let Some(last) = second.last_mut() {
            let kept = crate::format::head_cells(last, width.saturating_sub(1)).to_string();
            *last = format!("{kept}…");
        }
    }
    let progress_cells = progress.as_deref().map_or(0, crate::format::cells);
    for (i, line) in second.into_iter().enumerate() {
        // The progress (on the first line) in the warning style.
        if i == 0 && progress_cells > 0 {
            let split = crate::format::head_cells(&line, progress_cells).len();
            let (head, tail) = line.split_at(split);
            lines.push(Line::from(vec![
                Span::styled(head.to_string(), theme.warn()),
                Span::raw(tail.to_string()),
            ]));
        } else {
            lines.push(Line::from(line));
        }
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// A header line with its leading "pareval " in the accent style.
fn header_spans(line: &str, theme: Theme) -> Vec<Span<'static>> {
    match line.strip_prefix("pareval ") {
        Some(rest) => vec![
            Span::styled("pareval ", theme.accent()),
            Span::raw(rest.to_string()),
        ],
        None => vec![Span::raw(line.to_string())],
    }
}

fn draw_slider(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let focused = app
        .replay()
        .and_then(|r| r.metrics.thresholds.get(app.view.focus));
    let min_sufficient = focused.and_then(|t| t.min_sufficient_budget);
    // A budget further on that is not sufficient again is named, as `replay`'s summary does.
    let only_at = focused
        .and_then(|t| crate::report::replay::held_at(&t.rows, |r| r.sufficient))
        .map_or(String::new(), |at| format!(" (sufficient only at {at})"));
    let marked = min_sufficient.and_then(|m| {
        app.compute
            .grid
            .iter()
            .position(|&b| (f64::from(b) / 10_000.0 - m).abs() < 1e-9)
    });
    let track = slider_track(
        app.budgets(),
        app.view.budget,
        marked,
        area.width.saturating_sub(16) as usize,
    );
    let first = Line::from(vec![
        Span::styled(
            format!("budget {:>5} ", percent(app.budget_value())),
            theme.accent(),
        ),
        Span::raw(track),
    ]);
    let observed = focused_rows(app)
        .and_then(|rows| rows.get(app.view.budget))
        .map_or(String::new(), |r| {
            let observed = format!("{:.0}", r.mean_observed);
            format!(
                "≈{observed} task{} observed · ",
                if observed == "1" { "" } else { "s" }
            )
        });
    let threshold = app
        .compute
        .thresholds
        .get(app.view.focus)
        .map_or(0.0, |&t| f64::from(t) / 100.0);
    let sufficient = match min_sufficient {
        Some(m) => format!(
            "▲ min. sufficient at {} pp: {}{only_at}",
            trim_number(threshold),
            percent(m)
        ),
        None if app.result.is_some() => {
            format!("no sufficient budget at {} pp", trim_number(threshold))
        }
        None => String::new(),
    };
    let play = if app.autoplay { " · ▶ autoplay" } else { "" };
    let second = Line::from(Span::styled(
        format!("             {observed}{sufficient}{play}"),
        theme.dim(),
    ));
    frame.render_widget(Paragraph::new(vec![first, second]), area);
}

fn draw_main(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let summary_height = app.compute.thresholds.len() as u16 + 3;
    let chart_height = (area.height / 2).max(8).min(area.height.saturating_sub(5));
    let [top, table] = Layout::vertical([
        Constraint::Length(chart_height.max(summary_height)),
        Constraint::Min(4),
    ])
    .areas(area);
    let [chart, summary] = Layout::horizontal([
        Constraint::Min(30),
        Constraint::Length(chart::summary_width(app, top.width)),
    ])
    .areas(top);
    draw_chart(frame, app, theme, chart);
    draw_summary(frame, app, theme, summary);
    draw_pairs(frame, app, theme, table);
}

fn draw_footer(frame: &mut Frame, app: &App, theme: Theme, status: &[String], area: Rect) {
    let lines = if !status.is_empty() {
        let style = if app.status.starts_with('✗') {
            theme.bad()
        } else {
            theme.good()
        };
        status
            .iter()
            .map(|line| Line::from(Span::styled(line.clone(), style)))
            .collect()
    } else {
        let keys = if app.view.tab == Tab::Early && app.early.is_some() {
            early::EARLY_FOOTER
        } else {
            FOOTER
        };
        vec![Line::from(Span::styled(
            fit_footer(keys, usize::from(area.width)),
            theme.dim(),
        ))]
    };
    frame.render_widget(Paragraph::new(lines), area);
}

/// The loader's notes on the record, as `pareval info` lists them: what it read each file as, what
/// it chose (a scorer among several) and what it left out, wrapped; what does not fit ends in a
/// line that says how many more there are.
fn draw_notes(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let rect = overlay(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    let width = usize::from(rect.width.saturating_sub(4)).max(1);
    let room = usize::from(rect.height.saturating_sub(2));
    let mut lines: Vec<Line> = Vec::new();
    // What the budget measure leaves out (and which systems lack its field) is the replay's note,
    // shown first: the header has room for its counts only.
    let replay_note = app
        .replay()
        .and_then(|r| r.prepared.left_out.as_ref())
        .map(|left_out| left_out.describe());
    if app.dataset.notes.is_empty() && replay_note.is_none() {
        lines.push(Line::from("the loader left no note on this record"));
    }
    for note in replay_note.iter().chain(&app.dataset.notes) {
        for (i, part) in crate::format::wrap_hard(note, width)
            .into_iter()
            .enumerate()
        {
            lines.push(Line::from(format!(
                "{} {part}",
                if i == 0 { "-" } else { " " }
            )));
        }
    }
    if lines.len() > room && room > 0 {
        let more = lines.len() - (room - 1);
        lines.truncate(room - 1);
        lines.push(Line::from(Span::styled(
            format!("… {more} more lines: pareval info lists every note"),
            theme.dim(),
        )));
    }
    let height = (lines.len() as u16 + 2).min(rect.height);
    let rect = Rect { height, ..rect };
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" the loader's notes · Esc closes ")),
        rect,
    );
}

fn draw_help(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    const KEYS: usize = 22;
    let filter = app.help.clone().unwrap_or_default().to_lowercase();
    // As wide as the screen allows up to 100 cells; a description longer than its room wraps under
    // itself rather than being cut at the border.
    let rect_width = area.width.min(100);
    let room = usize::from(rect_width.saturating_sub(2))
        .saturating_sub(KEYS)
        .max(10);
    let lines: Vec<Line> = BINDINGS
        .iter()
        .filter(|b| {
            filter.is_empty()
                || b.keys.to_lowercase().contains(&filter)
                || b.what.to_lowercase().contains(&filter)
        })
        .flat_map(|b| {
            crate::format::wrap_hard(b.what, room)
                .into_iter()
                .enumerate()
                .map(|(i, part)| {
                    let keys = if i == 0 { b.keys } else { "" };
                    Line::from(vec![
                        Span::styled(format!("{keys:>20}  "), theme.accent()),
                        Span::raw(part),
                    ])
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let height = (lines.len() as u16 + 4).min(area.height);
    let rect = overlay(area, rect_width, height);
    frame.render_widget(Clear, rect);
    // A screen too short for the list scrolls it (↑↓, PgUp/PgDn), and the border says what is
    // above and below.
    let room = usize::from(rect.height.saturating_sub(2)).max(1);
    app.help_scroll_most.set(lines.len().saturating_sub(room));
    let first = app.help_scroll.min(lines.len().saturating_sub(room));
    let below = lines.len().saturating_sub(first + room);
    let title = format!(
        " keys · filter: {}▏ · Esc closes{} ",
        app.help.as_deref().unwrap_or(""),
        if first > 0 || below > 0 {
            " · ↑↓ scroll"
        } else {
            ""
        }
    );
    let mut block = Block::bordered().title(title);
    if first > 0 || below > 0 {
        block = block.title_bottom(format!(" {first} lines above · {below} below "));
    }
    let shown: Vec<Line> = lines.into_iter().skip(first).take(room).collect();
    frame.render_widget(Paragraph::new(shown).block(block), rect);
}
