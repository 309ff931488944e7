//! Plain-text table layout: aligned columns that fit a width by shortening the first (name) column
//! (its names kept apart from each other, see `format::fit_names`).
//! No colours, no terminal queries; the caller decides the width.

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
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
    fn numbers_align_right() {
        let rows = vec![
            vec!["a".to_string(), "1".to_string()],
            vec!["b".to_string(), "100".to_string()],
        ];
        let text = render(&["s", "n"], &[Align::Left, Align::Right], &rows, 80, 2);
        assert_eq!(text, "  s    n\n  a    1\n  b  100\n");
    }
}
