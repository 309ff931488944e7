//! ISO-8601 timestamps as harnesses write them (`2025-08-16T02:28:25.919476+00:00`, `…Z`, or no zone
//! for UTC), as seconds since 1970: enough to take the difference of two of them.

/// Seconds from the timestamp at `start` to the one at `end` of a JSON object: None when either is
/// missing (or null), NaN when both are written but one is no timestamp, negative when the end
/// comes first (the import reads those as unknown, with a note).
pub fn seconds_between(object: &serde_json::Value, start: &str, end: &str) -> Option<f64> {
    let at = |key: &str| {
        object
            .get(key)
            .and_then(serde_json::Value::as_str)
            .and_then(epoch_seconds)
    };
    let written = |key: &str| object.get(key).is_some_and(|v| !v.is_null());
    match (at(start), at(end)) {
        // An end before the start is kept negative, and a time written but no timestamp NaN: the
        // import's note on amounts that are no number ≥ 0 counts them and names the first (they
        // were dropped without a word).
        (Some(start), Some(end)) => Some(end - start),
        _ if written(start) && written(end) => Some(f64::NAN),
        _ => None,
    }
}

/// Seconds since 1970-01-01T00:00:00Z, or None when `text` is not such a timestamp.
pub fn epoch_seconds(text: &str) -> Option<f64> {
    let text = text.trim();
    let (date, rest) = text.split_at_checked(10)?;
    let rest = rest.strip_prefix(['T', ' '])?;
    let mut parts = date.split('-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: u32 = parts.next()?.parse().ok()?;
    let day: u32 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // The zone: Z, ±HH:MM (or ±HHMM), or none (UTC).
    let (clock, offset) = match rest.find(['Z', '+', '-']) {
        Some(at) => {
            let (clock, zone) = rest.split_at(at);
            (clock, zone_offset(zone)?)
        }
        None => (rest, 0),
    };
    let mut fields = clock.split(':');
    let hours: u32 = fields.next()?.parse().ok()?;
    let minutes: u32 = fields.next()?.parse().ok()?;
    let seconds: f64 = fields.next()?.parse().ok()?;
    if fields.next().is_some() || hours > 23 || minutes > 59 || !(0.0..61.0).contains(&seconds) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(
        (days * 86_400 + i64::from(hours) * 3_600 + i64::from(minutes) * 60 - offset) as f64
            + seconds,
    )
}

/// The zone's offset from UTC in seconds.
fn zone_offset(zone: &str) -> Option<i64> {
    if zone == "Z" {
        return Some(0);
    }
    let sign = match zone.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 {
        return None;
    }
    let hours: i64 = digits[..2].parse().ok()?;
    let minutes: i64 = digits[2..].parse().ok()?;
    Some(sign * (hours * 3_600 + minutes * 60))
}

/// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_by_hand() {
        assert_eq!(epoch_seconds("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(
            epoch_seconds("2000-03-01T00:00:00+00:00"),
            Some(951_868_800.0)
        );
        // An offset east of UTC is earlier in UTC.
        assert_eq!(
            epoch_seconds("2025-01-01T01:00:00+01:00"),
            epoch_seconds("2025-01-01T00:00:00")
        );
        let (start, end) = (
            epoch_seconds("2025-08-16T02:28:25.919476+00:00").expect("start"),
            epoch_seconds("2025-08-16T02:31:08.357726+00:00").expect("end"),
        );
        assert!((end - start - 162.43825).abs() < 1e-6);
        for bad in [
            "2025-13-01T00:00:00Z",
            "2025-01-01",
            "yesterday",
            "2025-01-01T25:00:00Z",
        ] {
            assert_eq!(epoch_seconds(bad), None, "{bad}");
        }
    }
}
