//! Plain-text table layout: aligned columns that fit a width by shortening the first (name) column
//! (its names kept apart from each other, see `format::fit_names`).
//! No colours, no terminal queries; the caller decides the width.

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// The rows with each line break in a cell shown as `⏎`: a name holding one (valid in a quoted CSV
/// field) split its row of the table in two. Borrowed when no cell has one.
fn one_line_rows(rows: &[Vec<String>]) -> std::borrow::Cow<'_, [Vec<String>]> {
    let broken = |cell: &String| cell.contains(['\n', '\r']);
    if !rows.iter().flatten().any(broken) {
        return std::borrow::Cow::Borrowed(rows);
    }
    std::borrow::Cow::Owned(
        rows.iter()
            .map(|row| {
                row.iter()
                    .map(|cell| cell.replace("\r\n", "⏎").replace(['\n', '\r'], "⏎"))
                    .collect()
            })
            .collect(),
    )
}

/// Lays out `rows` under `header`, each column as wide as its widest cell, the first column shortened
/// with '…' so that a line fits in `width` cells when that is possible (widths counted in terminal
/// cells, so that names in wide characters stay aligned).
pub fn render(
    header: &[&str],
    align: &[Align],
    rows: &[Vec<String>],
    width: usize,
    indent: usize,
) -> String {
    let rows = one_line_rows(rows);
    let rows = rows.as_ref();
    let columns = header.len();
    let cells = crate::format::cells;
    let mut widths: Vec<usize> = header.iter().map(|h| cells(h)).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(columns) {
            widths[i] = widths[i].max(cells(cell));
        }
    }
    let rest: usize = widths[1..].iter().map(|w| w + 2).sum::<usize>() + indent;
    if rest + widths[0] > width {
        // Shortened, never widened: a narrow first column stays as it is when the rest is too wide.
        widths[0] = width
            .saturating_sub(rest)
            .max(cells(header[0]))
            .max(8)
            .min(widths[0]);
    }
    // The first column's cells as its width shows them, kept apart from each other where a
    // shortened name would read like another's (format::fit_names); the header is one of them.
    let firsts: Vec<&str> = std::iter::once(header[0])
        .chain(
            rows.iter()
                .filter_map(|row| row.first().map(String::as_str)),
        )
        .collect();
    let first_labels: std::collections::HashMap<&str, String> = firsts
        .iter()
        .copied()
        .zip(crate::format::fit_names(&firsts, widths[0]))
        .collect();
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let mut text = " ".repeat(indent);
        for (i, cell) in cells.iter().enumerate().take(columns) {
            let shown = match first_labels.get(cell.as_str()) {
                Some(label) if i == 0 => label.clone(),
                _ => crate::format::shorten(cell, widths[i]),
            };
            let pad = widths[i].saturating_sub(crate::format::cells(&shown));
            if i > 0 {
                text.push_str("  ");
            }
            match align[i] {
                Align::Left => {
                    text.push_str(&shown);
                    if i + 1 < columns {
                        text.push_str(&" ".repeat(pad));
                    }
                }
                Align::Right => {
                    text.push_str(&" ".repeat(pad));
                    text.push_str(&shown);
                }
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    for row in rows {
        line(row);
    }
    out
}

/// Each column's width in cells: its widest cell or its header.
fn column_widths(header: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    (0..header.len())
        .map(|i| {
            rows.iter()
                .filter_map(|row| row.get(i))
                .map(|cell| crate::format::cells(cell))
                .chain(std::iter::once(crate::format::cells(header[i])))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The cells a line of the table takes with no column shortened.
pub fn natural_width(header: &[&str], rows: &[Vec<String>], indent: usize) -> usize {
    let widths = column_widths(header, rows);
    indent + widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)
}

/// [`render`] for a table whose columns cannot all fit `width` however its first column is shortened:
/// its columns after the first `keys` are split into blocks that fit, one after another (a blank
/// line between), each repeating the `keys` columns, so that an 80-column terminal does not wrap
/// every line. A table that fits is rendered whole, as by [`render`].
pub fn render_split(
    header: &[&str],
    align: &[Align],
    rows: &[Vec<String>],
    width: usize,
    indent: usize,
    keys: usize,
) -> String {
    let rows = one_line_rows(rows);
    let rows = rows.as_ref();
    let keys = keys.clamp(1, header.len());
    let mut widths = column_widths(header, rows);
    // The first column as far as `render` would shorten it: a table that fits so is not split.
    widths[0] = widths[0].min(crate::format::cells(header[0]).max(8));
    let line = |columns: &[usize]| -> usize {
        indent
            + columns.iter().map(|&i| widths[i]).sum::<usize>()
            + 2 * columns.len().saturating_sub(1)
    };
    let all: Vec<usize> = (0..header.len()).collect();
    if line(&all) <= width || header.len() <= keys {
        return render(header, align, rows, width, indent);
    }
    // Greedy blocks of the other columns, each with the keys in front (a column too wide for any
    // block stands alone with them).
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    let mut block: Vec<usize> = (0..keys).collect();
    for i in keys..header.len() {
        block.push(i);
        if line(&block) > width && block.len() > keys + 1 {
            block.pop();
            blocks.push(std::mem::replace(
                &mut block,
                (0..keys).chain([i]).collect(),
            ));
        }
    }
    blocks.push(block);
    // As many blocks as the greedy split needs, their columns shared out evenly where that fits too
    // (the greedy one can leave a last column alone: "budget tasks suff.").
    let others: Vec<usize> = (keys..header.len()).collect();
    let count = blocks.len();
    let mut even: Vec<Vec<usize>> = Vec::new();
    let mut from = 0;
    for b in 0..count {
        let size = others.len() / count + usize::from(b < others.len() % count);
        even.push(
            (0..keys)
                .chain(others[from..from + size].iter().copied())
                .collect(),
        );
        from += size;
    }
    if even.iter().all(|block| line(block) <= width) {
        blocks = even;
    }
    blocks
        .iter()
        .map(|columns| {
            let header: Vec<&str> = columns.iter().map(|&i| header[i]).collect();
            let align: Vec<Align> = columns.iter().map(|&i| align[i]).collect();
            let rows: Vec<Vec<String>> = rows
                .iter()
                .map(|row| {
                    columns
                        .iter()
                        .map(|&i| row.get(i).cloned().unwrap_or_default())
                        .collect()
                })
                .collect();
            render(&header, &align, &rows, width, indent)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_line_break_in_a_cell_keeps_the_row_on_one_line() {
        let rows = vec![vec!["two\nlines".to_string(), "1".to_string()]];
        let table = render(&["system", "n"], &[Align::Left, Align::Right], &rows, 80, 0);
        assert_eq!(table.lines().count(), 2, "{table}");
        assert!(table.contains("two⏎lines"), "{table}");
    }

    use super::*;

    #[test]
    fn first_column_is_shortened_to_fit_the_width() {
        let rows = vec![vec![
            "a-very-long-system-name-that-does-not-fit".to_string(),
            "12".to_string(),
        ]];
        let text = render(&["system", "n"], &[Align::Left, Align::Right], &rows, 20, 0);
        for line in text.lines() {
            assert!(line.chars().count() <= 20, "{line:?}");
        }
        assert!(text.contains('…'));
    }

    #[test]
    fn shortened_names_stay_told_apart() {
        // HAL's names share their start: a cut at the edge read the same on both rows.
        let rows: Vec<Vec<String>> = [
            "HAL Generalist Agent (DeepSeek R1 (January 2025))",
            "HAL Generalist Agent (DeepSeek V3 (March 2025))",
        ]
        .iter()
        .map(|name| vec![name.to_string(), "165".to_string()])
        .collect();
        let text = render(&["system", "n"], &[Align::Left, Align::Right], &rows, 40, 0);
        let firsts: Vec<&str> = text
            .lines()
            .skip(1)
            .map(|line| {
                line.rsplit_once("  ")
                    .map_or(line, |(name, _)| name)
                    .trim_end()
            })
            .collect();
        assert_eq!(firsts.len(), 2);
        assert_ne!(firsts[0], firsts[1], "{text}");
        for line in text.lines() {
            assert!(line.chars().count() <= 40, "{line:?}");
        }
        // Names a plain cut tells apart keep it.
        let rows = vec![
            vec!["alpha-system-one".to_string(), "1".to_string()],
            vec!["beta-system-two".to_string(), "2".to_string()],
        ];
        let text = render(&["system", "n"], &[Align::Left, Align::Right], &rows, 13, 0);
        assert!(text.contains("alpha-sys…  1"), "{text}");
    }

    #[test]
    fn names_in_wide_characters_keep_the_columns_aligned() {
        let rows = vec![
            vec!["通义千问-72B".to_string(), "0.812".to_string()],
            vec!["gpt-4o".to_string(), "0.790".to_string()],
            vec![
                "文心一言 ERNIE-4.0（百度）很长的名字".to_string(),
                "0.701".to_string(),
            ],
        ];
        let text = render(
            &["system", "mean"],
            &[Align::Left, Align::Right],
            &rows,
            24,
            0,
        );
        let ends: Vec<usize> = text.lines().map(crate::format::cells).collect();
        // Every line ends at the same cell (right-aligned numbers) and fits the width.
        assert!(
            ends.iter().all(|&end| end == ends[0] && end <= 24),
            "{text}"
        );
        assert!(text.contains('…'), "{text}");
    }

    #[test]
    fn a_table_too_wide_for_the_width_is_split_into_blocks_that_fit() {
        let header = [
            "protocol",
            "τ",
            "coverage",
            "accuracy",
            "steps saved",
            "Spearman",
            "pairs agree",
        ];
        let mut align = vec![Align::Left];
        align.extend([Align::Right; 6]);
        let rows = vec![
            ["loao", "0.75", "68.7%", "55.8%", "77.4%", "-1.000", "0%"]
                .map(String::from)
                .to_vec(),
            ["loao", "0.8", "0%", "-", "0%", "1.000", "100%"]
                .map(String::from)
                .to_vec(),
        ];
        let text = render_split(&header, &align, &rows, 40, 2, 2);
        for line in text.lines() {
            assert!(crate::format::cells(line) <= 40, "{line:?}\n{text}");
        }
        // Every column is shown once, each block led by the key columns.
        for name in header {
            assert!(text.contains(name), "{name}: {text}");
        }
        let blocks: Vec<&str> = text.split("\n\n").collect();
        assert!(blocks.len() >= 2, "{text}");
        assert!(
            blocks
                .iter()
                .all(|b| b.trim_start().starts_with("protocol     τ")),
            "{text}"
        );
        // A table that fits is the plain one, and so is one that fits once its first column is
        // shortened.
        assert_eq!(
            render_split(&header, &align, &rows, 200, 2, 2),
            render(&header, &align, &rows, 200, 2)
        );
        let named = vec![
            ["a-very-long-system-name-indeed", "1", "2"]
                .map(String::from)
                .to_vec(),
            ["another-long-system-name", "3", "4"]
                .map(String::from)
                .to_vec(),
        ];
        let align = [Align::Left, Align::Right, Align::Right];
        assert_eq!(
            render_split(&["system", "n", "m"], &align, &named, 20, 0, 1),
            render(&["system", "n", "m"], &align, &named, 20, 0)
        );
    }

    #[test]
    fn numbers_align_right() {
        let rows = vec![
            vec!["a".to_string(), "1".to_string()],
            vec!["b".to_string(), "100".to_string()],
        ];
        let text = render(&["s", "n"], &[Align::Left, Align::Right], &rows, 80, 2);
        assert_eq!(text, "  s    n\n  a    1\n  b  100\n");
    }
}
