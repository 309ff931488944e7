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
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// Wraps text at spaces to lines of at most `width` characters (a longer word stands alone).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
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

/// A line of key hints (separated by two spaces) that fits `width` cells: the leading hints in
/// order as far as they fit, then always the last `kept`, so a narrow screen drops hints from the
/// middle instead of cutting the way out (and to the help, where there is one).
pub fn fit_hints(hints: &str, width: usize, kept: usize) -> String {
    let hints: Vec<&str> = hints.split("  ").collect();
    let (leading, last) = hints.split_at(hints.len().saturating_sub(kept));
    let cells = |hint: &str| hint.chars().count();
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
