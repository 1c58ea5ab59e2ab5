//! Spans of time as a person reads them (`in 23 min`, `2 h 5 min ago`), for the status table
//! and tick's progress lines. Machine output keeps epoch milliseconds and ISO 8601.

/// `12 s`, `7 min 30 s`, `23 min`, `2 h 5 min`, `3 d 4 h`: two units at most, rounded down.
pub fn span(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, hours, mins, s) = (
        secs / 86_400,
        secs % 86_400 / 3600,
        secs % 3600 / 60,
        secs % 60,
    );
    match (days, hours, mins) {
        (0, 0, 0) => format!("{s} s"),
        (0, 0, m) if m < 10 && s > 0 => format!("{m} min {s} s"),
        (0, 0, m) => format!("{m} min"),
        (0, h, 0) => format!("{h} h"),
        (0, h, m) => format!("{h} h {m} min"),
        (d, 0, _) => format!("{d} d"),
        (d, h, _) => format!("{d} d {h} h"),
    }
}

/// `in 23 min` when `at_ms` is ahead of `now_ms`, `5 min ago` when behind, `now` within a second.
pub fn relative(at_ms: u64, now_ms: u64) -> String {
    if at_ms.abs_diff(now_ms) < 1000 {
        "now".to_string()
    } else if at_ms > now_ms {
        format!("in {}", span(at_ms - now_ms))
    } else {
        format!("{} ago", span(now_ms - at_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_like_a_person_would_say_them() {
        assert_eq!(span(0), "0 s");
        assert_eq!(span(12_999), "12 s");
        assert_eq!(span(450_000), "7 min 30 s");
        assert_eq!(span(23 * 60_000 + 59_000), "23 min");
        assert_eq!(span(2 * 3_600_000), "2 h");
        assert_eq!(span(2 * 3_600_000 + 5 * 60_000), "2 h 5 min");
        assert_eq!(span(86_400_000), "1 d");
        assert_eq!(span(3 * 86_400_000 + 4 * 3_600_000 + 1), "3 d 4 h");
    }

    #[test]
    fn relative_times_point_forward_or_back() {
        let now = 1_800_000_000_000;
        assert_eq!(relative(now + 23 * 60_000 + 30_000, now), "in 23 min");
        assert_eq!(relative(now - 5 * 60_000, now), "5 min ago");
        assert_eq!(relative(now + 400, now), "now");
    }
}
