//! The drill-down's group tables (coverage, shared tasks, §9a's allocation): a name column that takes
//! the room the number columns leave, with long names shortened by '…' so that different groups keep
//! different labels, and number columns as wide as their header and values. When even short names
//! would not fit beside every number column, the least telling columns are hidden first and the
//! title says so ("2 columns hidden"): a table is never cut at its border without a word.

use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Block, Row, Table};

use super::widgets::Theme;

/// The narrowest name column worth keeping columns out for ("astropy/as…" tells a group apart).
const NAME_MIN: usize = 12;

/// A number column of a group table: its header and its rank in what stays when the table is
/// narrow (the lowest rank is hidden first).
pub(super) struct Column {
    pub header: &'static str,
    pub keep_rank: u8,
}

/// A bordered table of groups in `area`: `names` in the first column (headed "group"), then the
/// `columns` holding `rows` (one per name, one span per column). Its title is the first of
/// `titles` (full, then short) that fits with the notes (which rows show, which columns were
/// hidden); the notes alone when neither does, since they say what the table does not show.
pub(super) fn group_table(
    titles: [&str; 2],
    rows_note: Option<String>,
    names: &[&str],
    columns: &[Column],
    rows: Vec<Vec<Span<'static>>>,
    area: Rect,
    theme: Theme,
) -> Table<'static> {
    // Hidden first: the lowest rank, and of equal ranks the rightmost.
    let mut hide_order: Vec<usize> = (0..columns.len()).collect();
    hide_order.sort_by_key(|&i| (columns[i].keep_rank, std::cmp::Reverse(i)));
    let headers: Vec<&'static str> = columns.iter().map(|c| c.header).collect();
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
    // The columns shown when the `hidden` first of `hide_order` are not, in their own order.
    let shown = |hidden: usize| -> Vec<usize> {
        (0..columns.len())
            .filter(|i| !hide_order[..hidden].contains(i))
            .collect()
    };
    let room = |kept: &[usize]| inner.saturating_sub(kept.iter().map(|&i| widths[i] + 1).sum());
    let mut hidden = 0;
    while hidden < columns.len() && room(&shown(hidden)) < NAME_MIN.min(longest) {
        hidden += 1;
    }
    let kept = shown(hidden);
    let name_width = room(&kept).min(longest).max(1);
    let labels = crate::format::fit_names(names, name_width);
    let mut notes: Vec<String> = rows_note.into_iter().collect();
    if hidden > 0 {
        let left_out = hidden;
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
        .map(|(label, row)| {
            let cells: Vec<Span> = row
                .into_iter()
                .enumerate()
                .filter(|(i, _)| kept.contains(i))
                .map(|(_, cell)| cell)
                .collect();
            Row::new([Span::raw(label)].into_iter().chain(cells))
        })
        .collect();
    let constraints: Vec<Constraint> = [name_width]
        .into_iter()
        .chain(kept.iter().map(|&i| widths[i]))
        .map(|w| Constraint::Length(w as u16))
        .collect();
    let header = ["group"]
        .into_iter()
        .chain(kept.iter().map(|&i| headers[i]));
    Table::new(table_rows, constraints)
        .column_spacing(1)
        .header(Row::new(header).style(theme.dim()))
        .block(Block::bordered().title(title))
}
