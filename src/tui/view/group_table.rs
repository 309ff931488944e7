//! The drill-down's group tables (coverage, shared tasks, §9a's allocation): a name column that takes
//! the room the number columns leave, with long names shortened by '…' so that different groups keep
//! different labels, and number columns as wide as their header and values. When even short names
//! would not fit beside every number column, columns are left out from the right and the title says
//! so ("2 columns hidden"): a table is never cut at its border without a word.

use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Block, Row, Table};

use super::widgets::Theme;

/// The narrowest name column worth keeping columns out for ("astropy/as…" tells a group apart).
const NAME_MIN: usize = 12;

/// A bordered table of groups in `area`: `names` in the first column (headed "group"), then the
/// `headers` columns holding `rows` (one per name, one span per header). Its title is the first of
/// `titles` (full, then short) that fits with the notes (which rows show, which columns were left
/// out); the notes alone when neither does, since they say what the table does not show.
pub(super) fn group_table(
    titles: [&str; 2],
    rows_note: Option<String>,
    names: &[&str],
    headers: &[&'static str],
    rows: Vec<Vec<Span<'static>>>,
    area: Rect,
    theme: Theme,
) -> Table<'static> {
    let inner = usize::from(area.width.saturating_sub(2));
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, header)| {
            rows.iter()
                .filter_map(|row| row.get(i))
                .map(Span::width)
                .chain([crate::format::cells(header)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let longest = names
        .iter()
        .map(|name| crate::format::cells(name))
        .chain(["group".len()])
        .max()
        .unwrap_or(0);
    let room =
        |keep: usize| inner.saturating_sub(widths[..keep].iter().map(|w| w + 1).sum::<usize>());
    let mut keep = headers.len();
    while keep > 0 && room(keep) < NAME_MIN.min(longest) {
        keep -= 1;
    }
    let name_width = room(keep).min(longest).max(1);
    let labels = crate::format::fit_names(names, name_width);
    let mut notes: Vec<String> = rows_note.into_iter().collect();
    if keep < headers.len() {
        let left_out = headers.len() - keep;
        notes.push(format!(
            "{left_out} column{} hidden",
            if left_out == 1 { "" } else { "s" }
        ));
    }
    let with_notes = |title: &str| {
        [title.to_string()]
            .into_iter()
            .chain(notes.iter().cloned())
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(" · ")
    };
    let title = titles
        .into_iter()
        .map(with_notes)
        .find(|title| crate::format::cells(title) + 2 <= inner)
        .unwrap_or_else(|| with_notes(""));
    let title = format!(" {title} ");
    let table_rows: Vec<Row> = labels
        .into_iter()
        .zip(rows)
        .map(|(label, mut row)| {
            row.truncate(keep);
            Row::new([Span::raw(label)].into_iter().chain(row))
        })
        .collect();
    let constraints: Vec<Constraint> = [name_width]
        .iter()
        .chain(&widths[..keep])
        .map(|&w| Constraint::Length(w as u16))
        .collect();
    Table::new(table_rows, constraints)
        .column_spacing(1)
        .header(Row::new(["group"].iter().chain(&headers[..keep]).copied()).style(theme.dim()))
        .block(Block::bordered().title(title))
}
