//! Turns the timestamps GitHub sends (HTTP-dates in `date` and `retry-after`, ISO 8601 in
//! GraphQL `resetAt`) into epoch milliseconds, by hand: the core carries no date library.

/// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Epoch milliseconds of a UTC civil time; `None` when a field is out of range or before 1970.
pub fn epoch_ms(
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
) -> Option<u64> {
    // A leap second (:60) is accepted by the formats; counting it as :59 keeps times monotonic.
    let second = if second == 60 { 59 } else { second };
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second);
    u64::try_from(secs).ok().map(|s| s * 1000)
}

/// The civil date and time of epoch milliseconds, UTC: (year, month, day, hour, minute, second).
pub fn civil_from_ms(ms: u64) -> (i64, u32, u32, u32, u32, u32) {
    let secs = (ms / 1000) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Inverse of days_from_civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        month,
        day,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

/// ISO 8601 / RFC 3339 UTC text of epoch milliseconds, e.g. `2026-11-30T04:06:54Z`.
pub fn format_iso8601(ms: u64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_ms(ms);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

fn month_number(name: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    MONTHS
        .iter()
        .position(|m| m.eq_ignore_ascii_case(name))
        .map(|i| i as u32 + 1)
}

fn is_day_name(name: &str) -> bool {
    const SHORT: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const LONG: [&str; 7] = [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    SHORT
        .iter()
        .chain(LONG.iter())
        .any(|d| d.eq_ignore_ascii_case(name))
}

fn digits(text: &str, min: usize, max: usize) -> Option<u32> {
    if text.len() < min || text.len() > max || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn clock(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.split(':');
    let h = digits(parts.next()?, 2, 2)?;
    let m = digits(parts.next()?, 2, 2)?;
    let s = digits(parts.next()?, 2, 2)?;
    parts.next().is_none().then_some((h, m, s))
}

/// Parses an HTTP-date (RFC 9110 section 5.6.7): IMF-fixdate, and the obsolete RFC 850 and
/// asctime forms that recipients must still accept. Returns epoch milliseconds.
pub fn parse_http_date(text: &str) -> Option<u64> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    match tokens.as_slice() {
        // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
        [day_name, day, month, year, time, "GMT"] => {
            if !is_day_name(day_name.strip_suffix(',')?) {
                return None;
            }
            let (h, mi, s) = clock(time)?;
            epoch_ms(
                i64::from(digits(year, 4, 4)?),
                month_number(month)?,
                digits(day, 1, 2)?,
                h,
                mi,
                s,
            )
        }
        // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
        [day_name, date, time, "GMT"] => {
            if !is_day_name(day_name.strip_suffix(',')?) {
                return None;
            }
            let mut parts = date.split('-');
            let day = digits(parts.next()?, 2, 2)?;
            let month = month_number(parts.next()?)?;
            let yy = i64::from(digits(parts.next()?, 2, 2)?);
            if parts.next().is_some() {
                return None;
            }
            // Two-digit years: RFC 9110 asks for the past century reading when the result would
            // be more than 50 years ahead; for timestamps GitHub sends, 70..99 is 19xx.
            let year = if yy >= 70 { 1900 + yy } else { 2000 + yy };
            let (h, mi, s) = clock(time)?;
            epoch_ms(year, month, day, h, mi, s)
        }
        // asctime: "Sun Nov  6 08:49:37 1994"
        [day_name, month, day, time, year] => {
            if !is_day_name(day_name) {
                return None;
            }
            let (h, mi, s) = clock(time)?;
            epoch_ms(
                i64::from(digits(year, 4, 4)?),
                month_number(month)?,
                digits(day, 1, 2)?,
                h,
                mi,
                s,
            )
        }
        _ => None,
    }
}

/// Parses an ISO 8601 date-time with seconds and an explicit zone (`Z` or `±HH:MM`), such as
/// GraphQL's `resetAt` (`2026-11-30T05:00:00Z`). Fractions are truncated. Returns epoch ms.
pub fn parse_iso8601(text: &str) -> Option<u64> {
    // Non-ASCII never belongs in this format, and checking it first keeps the slicing safe.
    if !text.is_ascii() {
        return None;
    }
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let year = digits(&text[0..4], 4, 4)?;
    let month = digits(&text[5..7], 2, 2)?;
    let day = digits(&text[8..10], 2, 2)?;
    let hour = digits(&text[11..13], 2, 2)?;
    let minute = digits(&text[14..16], 2, 2)?;
    let second = digits(&text[17..19], 2, 2)?;
    let mut rest = &text[19..];
    let mut millis = 0u64;
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        let padded = format!("{:0<3}", &frac[..n.min(3)]);
        millis = padded.parse().ok()?;
        rest = &frac[n..];
    }
    let base = epoch_ms(i64::from(year), month, day, hour, minute, second)? + millis;
    match rest {
        "Z" | "z" => Some(base),
        zone if zone.len() == 6 && zone.as_bytes()[3] == b':' => {
            let sign: i64 = match zone.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let zh = digits(&zone[1..3], 2, 2)?;
            let zm = digits(&zone[4..6], 2, 2)?;
            if zh > 23 || zm > 59 {
                return None;
            }
            // Local time = UTC + offset, so UTC = local - offset.
            let offset_ms = sign * (i64::from(zh) * 3_600_000 + i64::from(zm) * 60_000);
            u64::try_from(base as i64 - offset_ms).ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for ms in [0u64, 951_782_400_000, 1_800_000_000_000, 4_102_444_800_000] {
            let (y, mo, d, h, mi, s) = civil_from_ms(ms);
            assert_eq!(epoch_ms(y, mo, d, h, mi, s), Some(ms));
        }
    }
}
