//! Drawing the explorer: layout and widgets over the app's precomputed state (the replay result, the pair
//! rows, the drill-down detail). Nothing is computed here beyond picking what to show. Status is always a
//! glyph and a word as well as a colour, and without colour (NO_COLOR, the mono theme) only modifiers
//! (bold, reversed, dim) mark things.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, Block, Cell, Chart, Clear, Dataset, GraphType, Paragraph, Row, Table, TableState, Wrap,
};

use super::app::{App, ChartMode, Input, PairFilter, Tab};
use super::keys::{BINDINGS, FOOTER};
use crate::engine::anytime::Band;
use crate::engine::coverage::CoverageStatus;
use crate::engine::detail::PairDetail;
use crate::engine::metrics::BudgetRow;
use crate::engine::record::DecisionRecord;
use crate::engine::rules::Action;
use crate::format::{interval, p_value, percent, pp, trim_number};

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

fn glyph(action: Action) -> &'static str {
    match action {
        Action::Promote => "▲",
        Action::Reject => "▼",
        Action::Abstain => "○",
        Action::Continue => "…",
    }
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App, theme: Theme) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = vec![
            Line::from(Span::styled("terminal too small", theme.bad())),
            Line::from(format!(
                "pareval needs at least {MIN_WIDTH}×{MIN_HEIGHT}; this one is {}×{}.",
                area.width, area.height
            )),
            Line::from("Enlarge the window, or press q to quit."),
        ];
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let [header, slider, body, footer] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length(2),
        Constraint::Min(10),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_header(frame, app, theme, header);
    match (app.view.tab, &app.early) {
        (Tab::Early, Some(panel)) => {
            super::early_view::draw_slider(frame, panel, theme, slider);
            super::early_view::draw_body(frame, panel, theme, body);
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
    draw_footer(frame, app, theme, footer);
    if app.drill.is_some() {
        draw_drill(frame, app, theme, area);
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
    let list = ratatui::widgets::List::new(lines).block(Block::bordered().title(title));
    frame.render_stateful_widget(list, rect, &mut state);
}

fn draw_header(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let data = &app.dataset;
    let group = match &app.compute.group_column {
        Some(name) => {
            let groups = data.group_column(name).map_or(0, |c| c.labels.len());
            let filter = match app.compute.group_filter.as_slice() {
                [] => String::new(),
                [one] => format!(", only '{one}'"),
                many => format!(", {} of them chosen", many.len()),
            };
            format!("{name} ({groups} groups{filter})")
        }
        None => "none".to_string(),
    };
    let pairs = app
        .replay()
        .map_or(app.pairs_expected, |r| r.prepared.pairs.len());
    // A budget measure that leaves pairs or tasks out says how many (SPEC §4).
    let left_out = app
        .replay()
        .and_then(|r| r.prepared.left_out.as_ref())
        .map_or(String::new(), |l| {
            let mut parts = Vec::new();
            if l.pairs > 0 {
                parts.push(format!("{} pairs", l.pairs));
            }
            if l.pair_tasks > 0 {
                parts.push(format!("{} pair-tasks", l.pair_tasks));
            }
            format!(" · {} left out (no {})", parts.join(", "), l.field)
        });
    let facts = format!(
        "{} systems · {} directed pairs{left_out} · {} tasks · group {group}",
        data.n_systems(),
        pairs,
        data.n_tasks()
    );
    // The facts must stay on one line whatever the path: a long path is shortened from the front
    // (the file name is the telling part), so the header never wraps into the policy line.
    // Below a dozen characters a shortened path says nothing, so it is left out.
    let room = usize::from(area.width)
        .saturating_sub("pareval ".len() + " · ".len() + facts.chars().count());
    let mut first = vec![Span::styled("pareval ", theme.accent())];
    if room >= 12 {
        first.push(Span::raw(elide_front(&app.files.join(", "), room)));
        first.push(Span::raw(" · "));
    }
    first.push(Span::raw(facts));
    let first = Line::from(first);
    let thresholds: Vec<String> = app
        .compute
        .thresholds
        .iter()
        .map(|&t| trim_number(f64::from(t) / 100.0))
        .collect();
    let policy = Span::raw(format!(
        "{} · thresholds {} pp · {} orders · budget by {} · seed {}",
        app.policy_text(),
        thresholds.join("/"),
        app.compute.orders,
        app.compute.measure.name(),
        app.compute.seed
    ));
    let mut second = Vec::new();
    if app.pending() {
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
        // The progress goes first: while a job runs it is what the user waits on, and on a
        // narrow terminal the tail of the policy line is what gets cut.
        second.push(Span::styled(
            format!("⟳ replaying{progress}{shown} · "),
            theme.warn(),
        ));
    }
    second.push(policy);
    frame.render_widget(
        Paragraph::new(vec![first, Line::from(second)]).wrap(Wrap { trim: true }),
        area,
    );
}

/// `text` cut to at most `max` characters by dropping its start behind an ellipsis.
fn elide_front(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let kept: String = text.chars().skip(count - (max - 1)).collect();
    format!("…{kept}")
}

fn focused_rows(app: &App) -> Option<&[BudgetRow]> {
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

fn draw_slider(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let min_sufficient = app
        .replay()
        .and_then(|r| r.metrics.thresholds.get(app.view.focus))
        .and_then(|t| t.min_sufficient_budget);
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
            format!("≈{:.0} tasks observed · ", r.mean_observed)
        });
    let threshold = app
        .compute
        .thresholds
        .get(app.view.focus)
        .map_or(0.0, |&t| f64::from(t) / 100.0);
    let sufficient = match min_sufficient {
        Some(m) => format!(
            "▲ min. sufficient at {} pp: {}",
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
    let [chart, summary] =
        Layout::horizontal([Constraint::Min(30), Constraint::Length(50)]).areas(top);
    draw_chart(frame, app, theme, chart);
    draw_summary(frame, app, theme, summary);
    draw_pairs(frame, app, theme, table);
}

fn stale(app: &App, theme: Theme) -> Style {
    if app.pending() {
        theme.dim()
    } else {
        Style::default()
    }
}

/// One curve of the chart: its name, style and (budget %, rate %) points.
pub type Series = (String, Style, Vec<(f64, f64)>);

/// The curve data of the chart, in percent.
pub fn chart_series(app: &App, theme: Theme) -> Vec<Series> {
    let Some(replay) = app.replay() else {
        return Vec::new();
    };
    let mut series = Vec::new();
    match app.view.chart {
        ChartMode::Unresolved => {
            for (i, metrics) in replay.metrics.thresholds.iter().enumerate() {
                let points = metrics
                    .rows
                    .iter()
                    .map(|r| (r.budget * 100.0, r.unresolved * 100.0))
                    .collect();
                series.push((
                    format!("{} pp unresolved", trim_number(metrics.threshold_pp)),
                    theme.series(i),
                    points,
                ));
            }
            let eta = replay.prepared.settings.targets.eta.value() * 100.0;
            series.push((
                format!("η {}%", trim_number(eta)),
                theme.dim(),
                vec![(0.0, eta), (100.0, eta)],
            ));
        }
        ChartMode::Errors => {
            if let Some(metrics) = replay.metrics.thresholds.get(app.view.focus) {
                let t = trim_number(metrics.threshold_pp);
                let curve = |f: &dyn Fn(&BudgetRow) -> f64| -> Vec<(f64, f64)> {
                    metrics
                        .rows
                        .iter()
                        .map(|r| (r.budget * 100.0, f(r) * 100.0))
                        .collect()
                };
                series.push((
                    format!("{t} pp FPR"),
                    theme.series(0),
                    curve(&|r| r.fpr.unwrap_or(0.0)),
                ));
                series.push((
                    format!("{t} pp FRR"),
                    theme.series(1),
                    curve(&|r| r.frr.unwrap_or(0.0)),
                ));
                series.push((
                    format!("{t} pp coverage failure"),
                    theme.series(2),
                    curve(&|r| r.coverage_failure),
                ));
                let alpha = replay.prepared.settings.targets.alpha.value() * 100.0;
                series.push((
                    format!("α {}%", trim_number(alpha)),
                    theme.dim(),
                    vec![(0.0, alpha), (100.0, alpha)],
                ));
            }
        }
    }
    let x = app.budget_value() * 100.0;
    series.push((
        "cursor".to_string(),
        theme.accent(),
        vec![(x, 0.0), (x, 100.0)],
    ));
    series
}

fn draw_chart(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let series = chart_series(app, theme);
    let title = match app.view.chart {
        ChartMode::Unresolved => " unresolved rate vs budget (c: errors) ",
        ChartMode::Errors => " FPR · FRR · coverage failure vs budget (c: unresolved) ",
    };
    let datasets: Vec<Dataset> = series
        .iter()
        .map(|(name, style, points)| {
            Dataset::default()
                .name(if name == "cursor" {
                    String::new()
                } else {
                    name.clone()
                })
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(style.patch(stale(app, theme)))
                .data(points)
        })
        .collect();
    let axis_style = theme.dim();
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(title))
        .x_axis(
            Axis::default()
                .bounds([0.0, 100.0])
                .style(axis_style)
                .labels(vec!["0%", "50%", "100%"]),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, 100.0])
                .style(axis_style)
                .labels(vec!["0", "50", "100%"]),
        );
    frame.render_widget(chart, area);
}

fn draw_summary(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let policy = app.compute.policy();
    let sequential = policy.monitor == crate::engine::settings::Monitor::Sequential;
    let families = policy.decides_families();
    let mut watched = match (sequential, policy.is_naive_peeking(), policy.looks) {
        (false, ..) => String::new(),
        (true, true, _) => " · naive peeking (invalid)".to_string(),
        (true, false, looks) => format!(" · watched at {} looks", looks.name()),
    };
    if families {
        watched.push_str(&format!(
            " · family {} · {}",
            policy.family.name(),
            policy.adjust.name()
        ));
    }
    let block = Block::bordered().title(Line::from(vec![
        Span::raw(format!(" at budget {}", percent(app.budget_value()))),
        Span::styled(
            watched,
            if policy.is_naive_peeking() {
                theme.warn()
            } else {
                theme.dim()
            },
        ),
        Span::raw(" "),
    ]));
    let Some(replay) = app.replay() else {
        frame.render_widget(
            Paragraph::new("waiting for the first replay…").block(block),
            area,
        );
        return;
    };
    let rows: Vec<Row> = replay
        .metrics
        .thresholds
        .iter()
        .enumerate()
        .filter_map(|(i, metrics)| {
            let r = metrics.rows.get(app.view.budget)?;
            let verdict = if r.sufficient {
                Span::styled("✓ yes", theme.good())
            } else {
                Span::styled("✗ no", theme.bad())
            };
            let focus = if i == app.view.focus { "›" } else { " " };
            let mut cells = vec![
                Cell::from(format!("{focus}{} pp", trim_number(metrics.threshold_pp))),
                Cell::from(r.fpr.map_or("-".to_string(), percent)),
                Cell::from(r.frr.map_or("-".to_string(), percent)),
            ];
            if sequential {
                cells.push(Cell::from(percent(r.ever_wrong)));
            }
            if families {
                cells.push(Cell::from(percent(r.fwer)));
            }
            Some(
                Row::new(cells.into_iter().chain([
                    Cell::from(percent(r.coverage_failure)),
                    // Watched runs give the ever-wrong column the interval's room.
                    Cell::from(if sequential || families {
                        percent(r.unresolved)
                    } else {
                        format!(
                            "{} {}",
                            percent(r.unresolved),
                            interval(r.unresolved_lo, r.unresolved_hi, 0)
                        )
                    }),
                    Cell::from(verdict),
                ]))
                .style(stale(app, theme)),
            )
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(6),
        Constraint::Length(5),
        Constraint::Length(5),
    ];
    let mut header = vec!["thr", "FPR", "FRR"];
    if sequential {
        widths.push(Constraint::Length(5));
        header.push("ever✗");
    }
    if families {
        widths.push(Constraint::Length(5));
        header.push("FWER");
    }
    widths.extend([
        Constraint::Length(5),
        Constraint::Length(if sequential || families { 10 } else { 17 }),
        Constraint::Length(5),
    ]);
    header.extend([
        "cov.",
        if sequential || families {
            "unresolved"
        } else {
            "unresolved [95%]"
        },
        "suff.",
    ]);
    let header = Row::new(header).style(theme.dim());
    frame.render_widget(Table::new(rows, widths).header(header).block(block), area);
}

fn draw_pairs(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
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

fn draw_coverage(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let block = Block::bordered().title(format!(
        " coverage gaps under the {} order: how often a run stopped at each budget misses a group's quota ",
        app.compute.policy().order.name()
    ));
    let Some(replay) = app.replay() else {
        frame.render_widget(
            Paragraph::new("waiting for the first replay…").block(block),
            area,
        );
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
    let rows: Vec<Row> = at_budget
        .iter()
        .enumerate()
        .map(|(g, row)| {
            let label = &row.group;
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
                Cell::from(crate::engine::coverage::quota(k, size, n_tasks).to_string()),
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
    let header = Row::new(vec![
        "group".to_string(),
        "tasks (share)".to_string(),
        format!("required at {}", percent(app.budget_value())),
        "missed".to_string(),
        "5% … 95%".to_string(),
    ])
    .style(theme.dim());
    let [table, legend] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    frame.render_widget(Table::new(rows, widths).header(header).block(block), table);
    frame.render_widget(
        Paragraph::new("strip: share of cases missing the group's quota at each budget · none ░ <5% ▒ <25% ▓ <50% █ ≥50%")
            .style(theme.dim()),
        legend,
    );
}

/// Share of ordered pairs whose proxy decision (predicted difference > δ) matches the completed record.
pub fn proxy_agreement(systems: &[crate::proxy::SystemPrediction], delta: f64) -> Option<f64> {
    let (mut agree, mut pairs) = (0u32, 0u32);
    for a in systems {
        for b in systems {
            if a.system != b.system {
                pairs += 1;
                let cut = delta + crate::engine::settings::EPSILON;
                agree +=
                    u32::from((a.predicted - b.predicted > cut) == (a.actual - b.actual > cut));
            }
        }
    }
    (pairs > 0).then(|| f64::from(agree) / f64::from(pairs))
}

fn draw_proxy(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let title = format!(
        " proxy benchmark at budget {}: {} under {} (x: method, y: protocol) ",
        percent(app.budget_value()),
        app.compute.proxy_method.name(),
        app.compute.proxy_protocol.name()
    );
    let block = Block::bordered().title(title);
    let result = match (&app.proxy, &app.proxy_error) {
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
            .get(app.view.budget.min(curve.results.len().saturating_sub(1)))
            .map(|row| &row.result),
        (None, None) => None,
    };
    let Some(result) = result else {
        frame.render_widget(
            Paragraph::new("⟳ waiting for the proxy results…").block(block),
            area,
        );
        return;
    };
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [summary, body] =
        Layout::vertical([Constraint::Length(3), Constraint::Min(4)]).areas(inner);
    // Side by side with the replay at the same budget and focused threshold.
    let threshold = app
        .compute
        .thresholds
        .get(app.view.focus)
        .map_or(0.0, |&t| f64::from(t) / 10_000.0);
    let proxy_right = proxy_agreement(&result.systems, threshold);
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
    let lines = vec![
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
                    proxy_right.map_or("-".into(), percent)
                ),
                theme.accent(),
            ),
            Span::raw(format!(" · {replay_line}")),
        ]),
        Line::from(Span::styled(
            "proxy: ridge prediction of each held-out system's full score from its subset outcomes",
            theme.dim(),
        )),
    ];
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
    .block(Block::bordered().title(" predicted vs actual (%) "))
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
    frame.render_widget(chart, scatter);
    let rows: Vec<Row> = result
        .systems
        .iter()
        .map(|s| {
            Row::new(vec![
                s.system.clone(),
                format!("{:.1}", s.predicted * 100.0),
                format!("{:.1}", s.actual * 100.0),
                format!("{:+.1}", (s.predicted - s.actual) * 100.0),
            ])
        })
        .collect();
    let widths = [
        Constraint::Fill(1),
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Length(6),
    ];
    let table_widget = Table::new(rows, widths)
        .header(Row::new(vec!["system", "pred.", "actual", "error"]).style(theme.dim()))
        .block(Block::bordered().title(" per system (%) "));
    frame.render_widget(table_widget, table);
}

fn draw_footer(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let line = if !app.status.is_empty() {
        let style = if app.status.starts_with('✗') {
            theme.bad()
        } else {
            theme.good()
        };
        Line::from(Span::styled(app.status.clone(), style))
    } else if app.view.tab == Tab::Early && app.early.is_some() {
        Line::from(Span::styled(super::early_view::EARLY_FOOTER, theme.dim()))
    } else {
        Line::from(Span::styled(FOOTER, theme.dim()))
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn overlay(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

fn draw_help(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let filter = app.help.clone().unwrap_or_default().to_lowercase();
    let lines: Vec<Line> = BINDINGS
        .iter()
        .filter(|b| {
            filter.is_empty()
                || b.keys.to_lowercase().contains(&filter)
                || b.what.to_lowercase().contains(&filter)
        })
        .map(|b| {
            Line::from(vec![
                Span::styled(format!("{:>20}  ", b.keys), theme.accent()),
                Span::raw(b.what),
            ])
        })
        .collect();
    let height = (lines.len() as u16 + 4).min(area.height);
    let rect = overlay(area, 78, height);
    frame.render_widget(Clear, rect);
    let title = format!(
        " keys · filter: {}▏ · Esc closes ",
        app.help.as_deref().unwrap_or("")
    );
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        rect,
    );
}

fn draw_drill(frame: &mut Frame, app: &App, theme: Theme, area: Rect) {
    let Some(drill) = &app.drill else { return };
    let rect = overlay(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, rect);
    let detail = match &drill.detail {
        Ok(detail) => detail,
        Err(error) => {
            let text = Paragraph::new(Line::from(Span::styled(format!("✗ {error}"), theme.bad())))
                .block(Block::bordered().title(" drill-down · Esc closes "));
            frame.render_widget(text, rect);
            return;
        }
    };
    let focus = app.view.focus.min(detail.records.len().saturating_sub(1));
    let title = format!(
        " {} vs {} · order {} of {} ([ ]) · budget {}{} · Esc closes ",
        detail.tested,
        detail.baseline,
        detail.order_index,
        detail.orders,
        percent(detail.budget),
        if detail.family_note.is_some() {
            " · the pair alone (no family adjustment)"
        } else {
            ""
        }
    );
    let block = Block::bordered().title(title);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let [top, middle, bottom] = Layout::vertical([
        Constraint::Length(8),
        Constraint::Min(6),
        // Two borders and the header row besides the groups (with one less, the last group was cut).
        Constraint::Length(detail.groups.len().min(8) as u16 + 3),
    ])
    .areas(inner);
    // Why: the record's reason, the margin and the coverage.
    if let Some(record) = detail.records.get(focus) {
        let agreement = match record.agrees {
            Some(true) => Span::styled("✓ agrees with the completed record", theme.good()),
            Some(false) => Span::styled("✗ disagrees with the completed record", theme.bad()),
            None => Span::raw(""),
        };
        let action_style = match record.action {
            Action::Promote | Action::Reject => theme.good(),
            _ => theme.warn(),
        };
        let coverage_style = if record.coverage == CoverageStatus::Ok {
            theme.good()
        } else {
            theme.bad()
        };
        let missing = if record.missing_groups.is_empty() {
            String::new()
        } else {
            format!(" · missing: {}", record.missing_groups.join(", "))
        };
        let lines = vec![
            Line::from(format!(
                "{} shared tasks · Δ_full = {} · completed at {} pp: {}",
                detail.shared,
                pp(detail.delta_full),
                trim_number(record.threshold_pp),
                record.completed.map_or("-", |a| a.name())
            )),
            Line::from(vec![
                Span::styled(
                    format!("{} {} ", glyph(record.action), record.action.name()),
                    action_style,
                ),
                agreement,
            ]),
            Line::from(record.reason.clone()),
            Line::from(vec![
                Span::raw(format!(
                    "{} of {} tasks observed · coverage ",
                    record.observed, record.total
                )),
                Span::styled(
                    format!(
                        "{} {}",
                        if record.coverage == CoverageStatus::Ok {
                            "✓"
                        } else {
                            "✗"
                        },
                        record.coverage.name()
                    ),
                    coverage_style,
                ),
                Span::raw(missing),
            ]),
            Line::from(format!(
                "actions along this order: {}",
                detail
                    .order_steps
                    .iter()
                    .map(|s| s.actions.get(focus).map_or(" ", |a| glyph(*a)))
                    .collect::<Vec<_>>()
                    .join("")
            )),
            Line::from(Span::styled(
                "▲ promote  ▼ reject  ○ abstain, one mark per budget of the grid",
                theme.dim(),
            )),
            cross_check_line(detail, record, &theme),
        ];
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), top);
    }
    // The bootstrap distribution with the threshold marked.
    let [histogram, coverage] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(middle);
    // The anytime rule has no bootstrap distribution: its evidence is the band along the order, and
    // under §9a also Λ of both tests against ln(1/a).
    match (&detail.band, &detail.stratified) {
        (Some(band), Some(trace)) => {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(50); 2]).areas(histogram);
            draw_band(frame, app, theme, detail, band, focus, left);
            draw_lambda(frame, theme, trace, focus, right);
        }
        (Some(band), None) => draw_band(frame, app, theme, detail, band, focus, histogram),
        _ => draw_histogram(frame, app, theme, detail, focus, histogram),
    }
    if let Some(record) = detail.records.get(focus) {
        let rows: Vec<Row> = record
            .coverage_groups
            .iter()
            .map(|g| {
                let mark = if g.is_missing() {
                    Span::styled("✗", theme.bad())
                } else {
                    Span::styled("✓", theme.good())
                };
                Row::new(vec![
                    Cell::from(g.group.clone()),
                    Cell::from(g.required.to_string()),
                    Cell::from(g.observed.to_string()),
                    Cell::from(g.total.to_string()),
                    Cell::from(mark),
                ])
            })
            .collect();
        let widths = [
            Constraint::Fill(1),
            Constraint::Length(5),
            Constraint::Length(5),
            Constraint::Length(5),
            Constraint::Length(2),
        ];
        let table = Table::new(rows, widths)
            .header(Row::new(vec!["group", "need", "seen", "all", ""]).style(theme.dim()))
            .block(Block::bordered().title(" coverage "));
        frame.render_widget(table, coverage);
    }
    let rows: Vec<Row> = detail.groups.iter().map(|g| Row::new(g.cells())).collect();
    let widths = [
        Constraint::Fill(1),
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Length(8),
        Constraint::Length(8),
        Constraint::Length(8),
    ];
    let table = Table::new(rows, widths)
        .header(
            Row::new(vec![
                "group", "tasks", "both", "only A", "only B", "neither",
            ])
            .style(theme.dim()),
        )
        .block(Block::bordered().title(" shared tasks by group (A = tested) "));
    match &detail.stratified {
        Some(trace) => {
            let [shared, allocation] =
                Layout::horizontal([Constraint::Percentage(50); 2]).areas(bottom);
            frame.render_widget(table, shared);
            draw_allocation(frame, theme, trace, focus, allocation);
        }
        None => frame.render_widget(table, bottom),
    }
}

/// Named line series drawn in Braille, one style each in order.
fn line_datasets<'a>(
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

/// §9a's Λ⁺ and Λ⁻ of the focused threshold along the order, against the barrier ln(1/a).
fn draw_lambda(
    frame: &mut Frame,
    theme: Theme,
    trace: &crate::engine::stratified::StratifiedTrace,
    focus: usize,
    area: Rect,
) {
    let series = lambda_series(trace, focus);
    let (mut low, mut high) = (-1.0f64, trace.ln_barrier + 1.0);
    for (_, points) in &series {
        for &(_, y) in points {
            low = low.min(y);
            high = high.max(y);
        }
    }
    let datasets = line_datasets(&series, &[theme.good(), theme.bad(), theme.warn()]);
    let end = trace
        .lambda_promote
        .get(focus)
        .map_or(1, |l| l.len().max(1)) as f64;
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(" §9a Λ vs ln(1/a) "))
        .x_axis(
            Axis::default()
                .bounds([1.0, end])
                .style(theme.dim())
                .labels(vec!["1".to_string(), trim_number(end)]),
        )
        .y_axis(
            Axis::default()
                .bounds([low.floor(), high.ceil()])
                .style(theme.dim())
                .labels(vec![trim_number(low.floor()), trim_number(high.ceil())]),
        );
    frame.render_widget(chart, area);
}

/// The chart series of §9a's Λ⁺ ("promote"), Λ⁻ ("reject") and the barrier against observed tasks;
/// infinite values (a null that holds or cannot hold whatever is unseen) are left out.
pub fn lambda_series(
    trace: &crate::engine::stratified::StratifiedTrace,
    focus: usize,
) -> Vec<(&'static str, Vec<(f64, f64)>)> {
    let along = |values: Option<&Vec<f64>>| -> Vec<(f64, f64)> {
        values
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, y)| y.is_finite())
            .map(|(i, &y)| ((i + 1) as f64, y))
            .collect()
    };
    let end = trace
        .lambda_promote
        .get(focus)
        .map_or(1, |l| l.len().max(1)) as f64;
    vec![
        ("Λ⁺ promote", along(trace.lambda_promote.get(focus))),
        ("Λ⁻ reject", along(trace.lambda_reject.get(focus))),
        (
            "ln(1/a)",
            vec![(1.0, trace.ln_barrier), (end, trace.ln_barrier)],
        ),
    ]
}

/// Which groups a §9a decision hinges on: per group, what it has shown and the group means the least
/// favourable allocation of each null gives it.
fn draw_allocation(
    frame: &mut Frame,
    theme: Theme,
    trace: &crate::engine::stratified::StratifiedTrace,
    focus: usize,
    area: Rect,
) {
    let at = |rows: &Vec<Vec<f64>>, g: usize| {
        rows.get(focus)
            .and_then(|r| r.get(g))
            .filter(|v| v.is_finite())
            .map_or("-".to_string(), |&v| pp(v))
    };
    let rows: Vec<Row> = trace
        .groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            Row::new(vec![
                Cell::from(group.group.clone()),
                Cell::from(format!("{}/{}", group.seen, group.size)),
                Cell::from(group.observed_mean.map_or("-".to_string(), pp)),
                Cell::from(at(&trace.allocation_promote, g)),
                Cell::from(at(&trace.allocation_reject, g)),
            ])
        })
        .collect();
    let widths = [
        Constraint::Fill(1),
        Constraint::Length(9),
        Constraint::Length(8),
        Constraint::Length(8),
        Constraint::Length(8),
    ];
    let table = Table::new(rows, widths)
        .header(Row::new(vec!["group", "seen", "Δ̄ seen", "null⁺", "null⁻"]).style(theme.dim()))
        .block(Block::bordered().title(" least favourable Δ̄ per group (§9a) "));
    frame.render_widget(table, area);
}

/// The chart series of the anytime band in percentage points against observed tasks: the estimate,
/// the lower and upper bounds, the threshold δ, and a vertical mark where the kept decision was made.
pub fn band_series(
    band: &Band,
    delta_pp: f64,
    decided_at: Option<u32>,
) -> Vec<(&'static str, Vec<(f64, f64)>)> {
    let along = |values: &[f64]| -> Vec<(f64, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(t, &v)| ((t + 1) as f64, 100.0 * v))
            .collect()
    };
    let end = band.estimate.len().max(1) as f64;
    let mut series = vec![
        ("upper", along(&band.upper)),
        ("lower", along(&band.lower)),
        ("estimate", along(&band.estimate)),
        ("δ", vec![(1.0, delta_pp), (end, delta_pp)]),
    ];
    if let Some(at) = decided_at {
        series.push((
            "decided",
            vec![(f64::from(at), -100.0), (f64::from(at), 100.0)],
        ));
    }
    series
}

#[allow(clippy::too_many_arguments)] // the frame, the app's theme and the drill-down's parts
fn draw_band(
    frame: &mut Frame,
    app: &App,
    theme: Theme,
    detail: &PairDetail,
    band: &Band,
    focus: usize,
    area: Rect,
) {
    let record = detail.records.get(focus);
    let delta_pp = app
        .compute
        .thresholds
        .get(focus)
        .map_or(0.0, |&t| f64::from(t) / 100.0);
    let decided_at = record.and_then(|r| r.decided_at);
    let series = band_series(band, delta_pp, decided_at);
    // The y range: the band after its first few tasks (the first bounds are the whole [−100, 100]).
    let settled = band.estimate.len() / 10;
    let (mut low, mut high) = (delta_pp, delta_pp);
    for (&lo, &hi) in band.lower.iter().zip(&band.upper).skip(settled) {
        low = low.min(100.0 * lo);
        high = high.max(100.0 * hi);
    }
    let (low, high) = ((low - 2.0).floor(), (high + 2.0).ceil());
    let styles = [
        theme.dim(),
        theme.dim(),
        theme.accent(),
        theme.warn(),
        theme.good(),
    ];
    let datasets = line_datasets(&series, &styles);
    let end = band.estimate.len().max(1) as f64;
    let empty = band.empty_note();
    let title = match (record, decided_at) {
        (Some(record), Some(at)) => format!(
            " anytime band for Δ (pp) · {} after {at} tasks{empty} ",
            record.action.name()
        ),
        _ => format!(" anytime band for Δ (pp) vs observed tasks · no decision yet{empty} "),
    };
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(title))
        .x_axis(
            Axis::default()
                .bounds([1.0, end])
                .style(theme.dim())
                .labels(vec!["1".to_string(), format!("{}", band.estimate.len())]),
        )
        .y_axis(
            Axis::default()
                .bounds([low, high])
                .style(theme.dim())
                .labels(vec![trim_number(low), trim_number(high)]),
        );
    frame.render_widget(chart, area);
}

/// Bins of the bootstrap distribution for a histogram `width` columns wide: (Δ̂* at bin start, mass).
/// Edges below 1/1000 of the peak are left out so the bars use the width (the exact distribution keeps
/// tails down to 1e-19).
pub fn histogram_bins(first: f64, step: f64, probs: &[f64], width: usize) -> Vec<(f64, f64)> {
    if probs.is_empty() || width == 0 {
        return Vec::new();
    }
    let peak = probs.iter().copied().fold(0.0, f64::max);
    let visible = |p: &f64| *p >= peak * 1e-3;
    let lo = probs.iter().position(visible).unwrap_or(0);
    let hi = probs.iter().rposition(visible).unwrap_or(probs.len() - 1);
    let (first, probs) = (first + lo as f64 * step, &probs[lo..=hi]);
    let per_bin = probs.len().div_ceil(width);
    probs
        .chunks(per_bin)
        .enumerate()
        .map(|(i, chunk)| (first + (i * per_bin) as f64 * step, chunk.iter().sum()))
        .collect()
}

fn draw_histogram(
    frame: &mut Frame,
    app: &App,
    theme: Theme,
    detail: &PairDetail,
    focus: usize,
    area: Rect,
) {
    let block = Block::bordered().title(" bootstrap distribution of Δ̂* (│ threshold) ");
    let Some(dist) = &detail.bootstrap else {
        frame.render_widget(
            Paragraph::new("no exact distribution (outcomes off a lattice)").block(block),
            area,
        );
        return;
    };
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let bins = histogram_bins(
        dist.first,
        dist.step,
        &dist.probs,
        inner.width.saturating_sub(2) as usize,
    );
    let peak = bins.iter().map(|b| b.1).fold(0.0, f64::max).max(1e-300);
    let threshold = app
        .compute
        .thresholds
        .get(focus)
        .map_or(0.0, |&t| f64::from(t) / 10_000.0);
    let rows = inner.height.saturating_sub(2) as usize;
    // Few lattice values: draw each bar several columns wide so the histogram fills the box.
    let repeat = (inner.width.saturating_sub(2) as usize / bins.len().max(1)).max(1);
    let levels = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let mut lines: Vec<Line> = Vec::new();
    for row in (0..rows).rev() {
        let spans: Vec<Span> = bins
            .iter()
            .enumerate()
            .map(|(i, &(x, mass))| {
                let next = bins.get(i + 1).map_or(x + dist.step, |b| b.0);
                let height = mass / peak * rows as f64;
                let fill = (height - row as f64).clamp(0.0, 1.0);
                let c = levels[(fill * 8.0).round() as usize];
                let above = x >= threshold;
                let style = if x <= threshold && threshold < next {
                    theme.accent()
                } else if above {
                    theme.good()
                } else {
                    theme.bad()
                };
                if x <= threshold && threshold < next && c == ' ' {
                    Span::styled("│".repeat(repeat), style)
                } else {
                    Span::styled(c.to_string().repeat(repeat), style)
                }
            })
            .collect();
        lines.push(Line::from(spans));
    }
    if let Some(record) = detail.records.get(focus) {
        let tails = match record.statistic {
            crate::engine::rules::Statistic::Bootstrap {
                r_promote,
                r_reject,
                ..
            } => {
                format!(
                    "R_promote {} · R_reject {} · a {}",
                    trim_number(r_promote),
                    trim_number(r_reject),
                    record.tail.map_or("-".into(), trim_number)
                )
            }
            _ => format!("rule {}", record.rule),
        };
        lines.pop();
        let (low, high) = (
            bins.first().map_or(dist.first, |b| b.0),
            bins.last().map_or(dist.first, |b| b.0),
        );
        lines.push(Line::from(Span::styled(
            format!("{} … {} · δ = {}", pp(low), pp(high), pp(threshold)),
            theme.dim(),
        )));
        lines.push(Line::from(Span::styled(tails, theme.dim())));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The classical cross-checks of the drill-down for the focused threshold, marked when they disagree
/// with the rule.
fn cross_check_line(detail: &PairDetail, record: &DecisionRecord, theme: &Theme) -> Line<'static> {
    let Some(check) = &detail.cross_check else {
        return Line::from(Span::styled(
            "cross-check: none (outcomes here are not all 0 or 1)",
            theme.dim(),
        ));
    };
    let delta = record.threshold_pp / 100.0;
    let text = format!(
        "cross-check: sign test p = {} · Newcombe {} [{}, {}] → {}",
        p_value(check.sign_test_p),
        percent(check.level),
        pp(check.newcombe_low),
        pp(check.newcombe_high),
        check.interval_verdict(delta).name()
    );
    if check.differs_from(delta, record.action) {
        Line::from(vec![
            Span::raw(text),
            Span::styled("  ≠ rule", theme.warn()),
        ])
    } else {
        Line::from(text)
    }
}
