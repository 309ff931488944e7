//! How numbers and fields are written in every output (reports, exports, the explorer, decision
//! records): one place, so the CLI and the explorer print a figure the same way.

/// Prints a number without trailing zeros ("0.05", "5", "12.5"), at most four decimals.
pub fn trim_number(x: f64) -> String {
    let text = format!("{x:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// A probability as the decision reasons write it: four decimals at most, and a tiny one that is
/// not 0 in scientific notation ("1.4e-9"), so that it does not read as 0.
pub fn probability(x: f64) -> String {
    if x != 0.0 && x < 1e-4 {
        format!("{x:.1e}")
    } else {
        trim_number(x)
    }
}

/// "15%", "20.6%": a fraction as a percentage with at most one decimal.
pub fn percent(x: f64) -> String {
    format!("{}%", trim_number((x * 1000.0).round() / 10.0))
}

/// "5 pp", "-2.5 pp": a difference of fractions in percentage points with at most one decimal.
pub fn pp(x: f64) -> String {
    format!("{} pp", trim_number((x * 1000.0).round() / 10.0))
}

/// An interval of fractions in percent with `decimals` decimals ("[17.2, 23.9]"), or "[…]" while it is
/// not computed yet (NaN: an explorer preview skips it).
pub fn interval(lo: f64, hi: f64, decimals: usize) -> String {
    if lo.is_nan() || hi.is_nan() {
        "[…]".to_string()
    } else {
        format!("[{:.decimals$}, {:.decimals$}]", lo * 100.0, hi * 100.0)
    }
}

/// An interval of fractions in whole percent, rounded outward ("[99, 100]" around 99.9%), where the
/// room allows no decimal: rounded to the nearest, [99.8, 100.0] read "[100, 100]" beside its own
/// point estimate of 99.9% outside it.
pub fn interval_whole(lo: f64, hi: f64) -> String {
    if lo.is_nan() || hi.is_nan() {
        "[…]".to_string()
    } else {
        // The products' rounding must not push a whole percent outward by one (0.25 × 100).
        let down = (lo * 100.0 + 1e-9).floor().max(0.0);
        let up = (hi * 100.0 - 1e-9).ceil().clamp(0.0, 100.0) + 0.0;
        format!("[{down}, {up}]")
    }
}

/// A CSV field, quoted (with doubled quotes) when it holds a comma, a quote or a line break.
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// A p-value or tail probability: four decimals, or scientific notation below 1e-4 where decimals would
/// show zero.
pub fn p_value(p: f64) -> String {
    if p == 0.0 {
        // A null that cannot hold any more (Λ = +∞).
        "0".to_string()
    } else if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// The terminal cells `text` takes: a CJK character two, a combining mark none (what ratatui and a
/// terminal give it), where counting characters misaligned columns of such names.
pub fn cells(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

fn char_cells(c: char) -> usize {
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)
}

/// The longest start of `text` that takes at most `width` cells.
pub fn head_cells(text: &str, width: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += char_cells(c);
        if used > width {
            return &text[..at];
        }
    }
    text
}

/// The longest end of `text` that takes at most `width` cells.
pub fn tail_cells(text: &str, width: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices().rev() {
        used += char_cells(c);
        if used > width {
            return &text[at + c.len_utf8()..];
        }
    }
    text
}

/// `text` shortened to `width` cells, ending in '…' when cut.
pub fn shorten(text: &str, width: usize) -> String {
    if cells(text) <= width {
        text.to_string()
    } else {
        format!("{}…", head_cells(text, width.saturating_sub(1)))
    }
}

/// Spaces that fill `text` up to `width` cells (none when it is as wide or wider).
pub fn padding(text: &str, width: usize) -> String {
    " ".repeat(width.saturating_sub(cells(text)))
}

/// Wraps text at spaces to lines of at most `width` cells (a longer word stands alone).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && cells(&line) + 1 + cells(word) > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// [`wrap`], then every line still wider than `width` (a long path, a word longer than the line)
/// broken into pieces of at most `width` cells, so that nothing is cut at the edge.
pub fn wrap_hard(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    wrap(text, width)
        .into_iter()
        .flat_map(|line| {
            let mut pieces = Vec::new();
            let mut rest = line.as_str();
            while !rest.is_empty() {
                let mut piece = head_cells(rest, width);
                if piece.is_empty() {
                    // A character wider than the line stands alone.
                    let first = rest.chars().next().map_or(rest.len(), char::len_utf8);
                    piece = &rest[..first];
                }
                pieces.push(piece.to_string());
                rest = &rest[piece.len()..];
            }
            pieces
        })
        .collect()
}

/// A line of key hints (separated by two spaces) that fits `width` cells: the leading hints in
/// order as far as they fit, then always the last `kept`, so a narrow screen drops hints from the
/// middle instead of cutting the way out (and to the help, where there is one).
pub fn fit_hints(hints: &str, width: usize, kept: usize) -> String {
    let hints: Vec<&str> = hints.split("  ").collect();
    let (leading, last) = hints.split_at(hints.len().saturating_sub(kept));
    let mut used = last
        .iter()
        .map(|h| cells(h) + 2)
        .sum::<usize>()
        .saturating_sub(2);
    let mut shown = Vec::new();
    for hint in leading {
        if used + cells(hint) + 2 > width {
            break;
        }
        used += cells(hint) + 2;
        shown.push(*hint);
    }
    shown.extend_from_slice(last);
    shown.join("  ")
}

/// Names as a column of `width` characters shows them, one label per name in `names`: all whole
/// when they fit; else each longer one as its head, "…" and its tail, split at one place for the
/// whole column, chosen so that as many different names as possible keep different labels: the
/// plain cut at the end ("head…") when it is such a place, else the middle one of them (by head
/// length), so that a label keeps some of each end.
/// A plain cut at the column's edge made rows that read the same ("HAL Generalist Agent
/// (DeepSeek " for R1 and V3, HAL's GAIA leaderboard at 120 columns): what tells names apart is
/// often at their end (the model after a shared scaffold), and what groups them at their start.
pub fn fit_names(names: &[&str], width: usize) -> Vec<String> {
    let widths: Vec<usize> = names.iter().map(|name| cells(name)).collect();
    if widths.iter().all(|&w| w <= width) {
        return names.iter().map(|name| name.to_string()).collect();
    }
    if width == 0 {
        return vec![String::new(); names.len()];
    }
    // A long name's label at head width `head`: its first `head` and last `width − 1 − head` cells
    // (fewer where a wide character would cross the edge).
    let label = |i: usize, head: usize| -> (&str, &str) {
        let name = names[i];
        if widths[i] <= width {
            return (name, "");
        }
        (head_cells(name, head), tail_cells(name, width - 1 - head))
    };
    // A label as shown: its parts and whether it is elided ("abc" and "abc…" differ).
    let told_apart: Vec<usize> = (0..width)
        .map(|head| {
            (0..names.len())
                .map(|i| (label(i, head), widths[i] > width))
                .collect::<std::collections::HashSet<((&str, &str), bool)>>()
                .len()
        })
        .collect();
    let most = told_apart.iter().copied().max().unwrap_or(0);
    let best: Vec<usize> = (0..width)
        .filter(|&head| told_apart[head] == most)
        .collect();
    let head = if told_apart[width - 1] == most {
        width - 1
    } else {
        best.get(best.len() / 2).copied().unwrap_or(width - 1)
    };
    (0..names.len())
        .map(|i| match label(i, head) {
            (whole, "") if widths[i] <= width => whole.to_string(),
            (head, tail) => format!("{head}…{tail}"),
        })
        .collect()
}

/// A value as one Markdown table cell: `|` escaped and line breaks as spaces (a system named
/// `a|b` split its row into one cell too many).
pub fn markdown_cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_interval_holds_its_point_estimate() {
        // Rounded to the nearest, [99.8, 100.0] read "[100, 100]" beside 99.9%.
        assert_eq!(interval_whole(0.998, 1.0), "[99, 100]");
        assert_eq!(interval_whole(0.198, 0.292), "[19, 30]");
        // Whole percents stay where they are, the products' rounding aside.
        assert_eq!(interval_whole(0.25, 0.29), "[25, 29]");
        assert_eq!(interval_whole(0.0, 0.0), "[0, 0]");
        assert_eq!(interval_whole(f64::NAN, 0.5), "[…]");
    }

    #[test]
    fn a_markdown_cell_keeps_its_row_whole() {
        assert_eq!(markdown_cell("a|pipe"), "a\\|pipe");
        assert_eq!(markdown_cell("two\nlines"), "two lines");
    }

    #[test]
    fn a_tiny_probability_does_not_read_as_zero() {
        // The drill-down's R line wrote 1.4e-9 as "0" beside a reason that said 1.4e-9.
        assert_eq!(probability(1.4e-9), "1.4e-9");
        assert_eq!(probability(0.0), "0");
        assert_eq!(probability(0.0497), "0.0497");
    }

    #[test]
    fn numbers_and_fields_are_written_one_way() {
        assert_eq!(trim_number(0.05), "0.05");
        assert_eq!(trim_number(5.0), "5");
        assert_eq!(trim_number(-0.00001), "0");
        assert_eq!(percent(0.2064), "20.6%");
        assert_eq!(percent(0.15), "15%");
        assert_eq!(pp(-0.025), "-2.5 pp");
        assert_eq!(interval(0.172, 0.2391, 1), "[17.2, 23.9]");
        assert_eq!(interval(f64::NAN, 0.2, 1), "[…]");
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(p_value(0.77441), "0.7744");
        assert_eq!(p_value(4.9e-5), "4.9e-5");
        assert_eq!(p_value(0.0), "0");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn hard_wrapping_breaks_what_spaces_cannot() {
        assert_eq!(
            wrap_hard("see /a/very/long/path.jsonl: read", 10),
            ["see", "/a/very/lo", "ng/path.js", "onl:", "read"]
        );
        assert_eq!(wrap_hard("short words here", 10), ["short", "words here"]);
        assert_eq!(wrap_hard("x", 0), ["x"]);
    }

    #[test]
    fn widths_are_counted_in_terminal_cells() {
        // A CJK character takes two cells, a combining mark none.
        assert_eq!(cells("通义千问"), 8);
        assert_eq!(cells("Δ̂"), 1);
        assert_eq!(head_cells("通义千问-72B", 5), "通义");
        assert_eq!(tail_cells("通义千问-72B", 5), "-72B");
        assert_eq!(shorten("通义千问-72B-Chat", 8), "通义千…");
        assert_eq!(padding("通义", 6), "  ");
        for piece in wrap_hard("模型评测结果目录/很长的文件名.jsonl", 7) {
            assert!(cells(&piece) <= 7, "{piece}");
        }
        // Names in wide characters are fitted to cells, and kept apart.
        let names = [
            "通义千问 Qwen2.5-72B-Instruct（阿里云）",
            "通义千问 Qwen2.5-7B-Instruct（阿里云）",
            "文心一言 ERNIE-4.0（百度）",
        ];
        let labels = fit_names(&names, 20);
        let distinct: std::collections::HashSet<&String> = labels.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{labels:?}");
        for (label, name) in labels.iter().zip(names) {
            assert!(cells(label) <= 20, "{label}");
            let (head, tail) = label.split_once('…').expect("elided");
            assert!(name.starts_with(head) && name.ends_with(tail), "{label}");
        }
    }

    #[test]
    fn names_that_do_not_fit_keep_what_tells_them_apart() {
        // HAL's GAIA names: a cut at 30 characters shows R1 and V3 as one name.
        let names = [
            "HAL Generalist Agent (DeepSeek R1 (January 2025))",
            "HAL Generalist Agent (DeepSeek V3 (March 2025))",
            "HF Open Deep Research (DeepSeek R1 (January 2025))",
            "HF Open Deep Research (Claude Sonnet 4.5 (September 2025))",
            "HF Open Deep Research (Claude Sonnet 4.5 High (September 2025))",
            "o3",
        ];
        let labels = fit_names(&names, 30);
        let distinct: std::collections::HashSet<&String> = labels.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{labels:?}");
        for (label, name) in labels.iter().zip(names) {
            assert!(label.chars().count() <= 30, "{label}");
            if name.len() <= 30 {
                assert_eq!(label, name);
            } else {
                let (head, tail) = label.split_once('…').expect("elided");
                assert!(name.starts_with(head) && name.ends_with(tail), "{label}");
                assert!(head.chars().count() >= 2, "{label}");
            }
        }
        // Names that fit stay whole, and a plain cut is kept where it tells the names apart.
        assert_eq!(fit_names(&["a", "bc"], 2), ["a", "bc"]);
        // The plain cut tells these two apart, and is kept.
        assert_eq!(
            fit_names(&["alpha-one-x", "beta-two-x"], 6),
            ["alpha…", "beta-…"]
        );
        // A name that fits and another's cut head read differently ("abc" and "abc…").
        assert_eq!(fit_names(&["abc", "abcdef"], 4), ["abc", "abc…"]);
        // Only the tails tell these apart.
        assert_eq!(
            fit_names(&["agent (model-a)", "agent (model-b)"], 8),
            ["age…l-a)", "age…l-b)"]
        );
        // Repeated names share a label; a width of 0 or 1 cannot show more than the mark.
        assert_eq!(
            fit_names(&["same-long", "same-long"], 5),
            ["same…", "same…"]
        );
        assert_eq!(fit_names(&["long"], 1), ["…"]);
        assert_eq!(fit_names(&["long"], 0), [""]);
    }
}
