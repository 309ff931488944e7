//! Plain-text table layout: aligned columns that fit a width by shortening the first (name) column.
//! No colours, no terminal queries; the caller decides the width.

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// Lays out `rows` under `header`, each column as wide as its widest cell, the first column shortened
/// with '…' so that a line fits in `width` characters when that is possible.
pub fn render(
    header: &[&str],
    align: &[Align],
    rows: &[Vec<String>],
    width: usize,
    indent: usize,
) -> String {
    let columns = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(columns) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let rest: usize = widths[1..].iter().map(|w| w + 2).sum::<usize>() + indent;
    if rest + widths[0] > width {
        // Shortened, never widened: a narrow first column stays as it is when the rest is too wide.
        widths[0] = width
            .saturating_sub(rest)
            .max(header[0].chars().count())
            .max(8)
            .min(widths[0]);
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let mut text = " ".repeat(indent);
        for (i, cell) in cells.iter().enumerate().take(columns) {
            let shown = shorten(cell, widths[i]);
            let pad = widths[i] - shown.chars().count();
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

/// Shortens `text` to `width` characters, ending in '…' when cut.
pub fn shorten(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
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
    fn numbers_align_right() {
        let rows = vec![
            vec!["a".to_string(), "1".to_string()],
            vec!["b".to_string(), "100".to_string()],
        ];
        let text = render(&["s", "n"], &[Align::Left, Align::Right], &rows, 80, 2);
        assert_eq!(text, "  s    n\n  a    1\n  b  100\n");
    }
}
