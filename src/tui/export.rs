//! Export of the current view: the pair table (main view) or the group table (coverage view) at the
//! current budget as CSV, the same plus the per-threshold summary and the settings as JSON and Markdown,
//! and the curve chart as SVG. The contents are built from the app's state alone, so tests check them
//! without a terminal; the runner writes them to the export folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::app::{App, Tab};
use super::view::{Theme, chart_series, interval_text};
use crate::engine::settings::trim_number;
use crate::report::replay::percent;

/// The four files of one export.
#[derive(Debug, Clone, PartialEq)]
pub struct Export {
    pub csv: String,
    pub json: String,
    pub markdown: String,
    pub svg: String,
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// Builds the export of what is on screen, or says why there is nothing yet.
pub fn build(app: &App) -> Result<Export, String> {
    let replay = app
        .replay()
        .ok_or("nothing to export yet: the first replay has not finished")?;
    let budget = app.view.budget.min(replay.budgets().saturating_sub(1));
    let summary: Vec<serde_json::Value> = replay
        .metrics
        .thresholds
        .iter()
        .filter_map(|t| t.rows.get(budget).map(|row| json!({ "threshold_pp": t.threshold_pp, "min_sufficient_budget": t.min_sufficient_budget, "row": row })))
        .collect();
    let settings = json!({
        "files": app.files,
        "policy": app.policy_text(),
        "compute": app.compute,
        "budget": app.budget_value(),
        "focused_threshold_pp": app.compute.thresholds.get(app.view.focus).map(|&t| f64::from(t) / 100.0),
    });
    let (csv, table_json, table_markdown) = match app.view.tab {
        Tab::Main => {
            let mut csv = String::from(
                "tested,baseline,shared,delta_full,completed,promote,reject,abstain,wrong\n",
            );
            let mut markdown = String::from(
                "| tested | baseline | shared | Δ_full | completed | promote | reject | abstain | wrong |\n|---|---|---:|---:|---|---:|---:|---:|---:|\n",
            );
            for row in &app.rows {
                let completed = if row.completed_promote {
                    "promote"
                } else {
                    "reject"
                };
                let _ = writeln!(
                    csv,
                    "{},{},{},{},{completed},{},{},{},{}",
                    csv_field(&row.tested),
                    csv_field(&row.baseline),
                    row.shared,
                    row.delta_full,
                    row.promote,
                    row.reject,
                    row.abstain,
                    row.wrong
                );
                let _ = writeln!(
                    markdown,
                    "| {} | {} | {} | {} pp | {completed} | {} | {} | {} | {} |",
                    row.tested,
                    row.baseline,
                    row.shared,
                    trim_number((row.delta_full * 1000.0).round() / 10.0),
                    percent(row.promote),
                    percent(row.reject),
                    percent(row.abstain),
                    percent(row.wrong)
                );
            }
            let rows: Vec<serde_json::Value> = app
                .rows
                .iter()
                .map(|r| json!({ "tested": r.tested, "baseline": r.baseline, "shared": r.shared, "delta_full": r.delta_full, "completed": if r.completed_promote { "promote" } else { "reject" }, "promote": r.promote, "reject": r.reject, "abstain": r.abstain, "wrong": r.wrong }))
                .collect();
            (csv, json!({ "pairs": rows }), markdown)
        }
        Tab::Proxy => {
            let mut csv = String::from("system,predicted,actual\n");
            let mut markdown = String::from("| system | predicted | actual |\n|---|---:|---:|\n");
            let mut rows = Vec::new();
            if let Some(result) = app.proxy.as_ref().and_then(|c| c.results.get(budget)) {
                for s in &result.systems {
                    let _ = writeln!(csv, "{},{},{}", csv_field(&s.system), s.predicted, s.actual);
                    let _ = writeln!(
                        markdown,
                        "| {} | {:.3} | {:.3} |",
                        s.system, s.predicted, s.actual
                    );
                    rows.push(
                        json!({ "system": s.system, "predicted": s.predicted, "actual": s.actual }),
                    );
                }
            }
            (
                csv,
                json!({ "proxy": { "method": app.compute.proxy_method.name(), "protocol": app.compute.proxy_protocol.name(), "systems": rows } }),
                markdown,
            )
        }
        Tab::Coverage => {
            let mut csv = String::from("group,missed_share\n");
            let mut markdown = String::from("| group | missed at this budget |\n|---|---:|\n");
            let mut rows = Vec::new();
            for (g, label) in replay.prepared.grouping.labels.iter().enumerate() {
                let share = f64::from(replay.group_missing[g][budget])
                    / f64::from(replay.group_cases[g].max(1));
                let _ = writeln!(csv, "{},{share}", csv_field(label));
                let _ = writeln!(markdown, "| {label} | {} |", percent(share));
                rows.push(json!({ "group": label, "missed_share": share }));
            }
            (csv, json!({ "groups": rows }), markdown)
        }
    };
    let document = json!({ "settings": settings, "summary": summary, "table": table_json });
    let json = serde_json::to_string_pretty(&document).map_err(|e| e.to_string())? + "\n";
    let mut markdown_doc = format!(
        "## pareval view at budget {}\n\n{}\n\n",
        percent(app.budget_value()),
        app.policy_text()
    );
    markdown_doc.push_str("| threshold | FPR | FRR | coverage failure | unresolved | sufficient |\n|---:|---:|---:|---:|---:|---|\n");
    for t in &replay.metrics.thresholds {
        if let Some(r) = t.rows.get(budget) {
            let _ = writeln!(
                markdown_doc,
                "| {} pp | {} | {} | {} | {} {} | {} |",
                trim_number(t.threshold_pp),
                r.fpr.map_or("-".into(), percent),
                r.frr.map_or("-".into(), percent),
                percent(r.coverage_failure),
                percent(r.unresolved),
                interval_text(r.unresolved_lo, r.unresolved_hi, 1),
                if r.sufficient { "yes" } else { "no" }
            );
        }
    }
    markdown_doc.push('\n');
    markdown_doc.push_str(&table_markdown);
    Ok(Export {
        csv,
        json,
        markdown: markdown_doc,
        svg: svg_chart(app),
    })
}

/// The curve chart as a standalone SVG (640 × 400), the same series as on screen.
pub fn svg_chart(app: &App) -> String {
    const COLORS: [&str; 6] = [
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#7f7f7f",
    ];
    let (width, height, left, top, plot_w, plot_h) = (640.0, 400.0, 60.0, 30.0, 540.0, 300.0);
    let x = |v: f64| left + v / 100.0 * plot_w;
    let y = |v: f64| top + plot_h - v / 100.0 * plot_h;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    for tick in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let _ = writeln!(
            svg,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#ddd\"/>",
            x(0.0),
            y(tick),
            x(100.0),
            y(tick)
        );
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{tick}%</text>",
            left - 6.0,
            y(tick) + 4.0
        );
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{tick}%</text>",
            x(tick),
            top + plot_h + 18.0
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">budget</text>",
        left + plot_w / 2.0,
        height - 8.0
    );
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"18\">{}</text>",
        left,
        escape(&app.policy_text())
    );
    let series = chart_series(
        app,
        Theme {
            color: false,
            high_contrast: false,
        },
    );
    let mut legend_y = top + 12.0;
    for (i, (name, _, points)) in series.iter().enumerate() {
        let color = if name == "cursor" {
            "#000"
        } else {
            COLORS[i % COLORS.len()]
        };
        let dash = if name == "cursor" || name.starts_with('η') || name.starts_with('α') {
            " stroke-dasharray=\"4 3\""
        } else {
            ""
        };
        let path: Vec<String> = points
            .iter()
            .map(|&(px, py)| format!("{:.1},{:.1}", x(px), y(py)))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{dash} points=\"{}\"/>",
            path.join(" ")
        );
        if name != "cursor" {
            let _ = writeln!(
                svg,
                "<line x1=\"{}\" y1=\"{legend_y}\" x2=\"{}\" y2=\"{legend_y}\" stroke=\"{color}\" stroke-width=\"2\"{dash}/><text x=\"{}\" y=\"{}\">{}</text>",
                left + plot_w - 150.0,
                left + plot_w - 130.0,
                left + plot_w - 125.0,
                legend_y + 4.0,
                escape(name)
            );
            legend_y += 16.0;
        }
    }
    svg.push_str("</svg>\n");
    svg
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Writes an export next to each other as `<stem>.csv/.json/.md/.svg` in `dir`; returns the paths.
pub fn write(export: &Export, dir: &Path, stem: &str) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: cannot create the export folder: {e}", dir.display()))?;
    let mut written = Vec::new();
    for (ext, text) in [
        ("csv", &export.csv),
        ("json", &export.json),
        ("md", &export.markdown),
        ("svg", &export.svg),
    ] {
        let path = dir.join(format!("{stem}.{ext}"));
        std::fs::write(&path, text)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
