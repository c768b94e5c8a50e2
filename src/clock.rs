//! UTC timestamps without a date crate: RFC 3339 (`2026-11-30T09:00:00Z`) for documents and a
//! compact form (`20261130T090000Z`) for file names.

use std::time::{SystemTime, UNIX_EPOCH};

/// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn parts(secs: i64) -> (i64, u32, u32, i64, i64, i64) {
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Seconds since the epoch, now.
pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// `2026-11-30T09:00:00Z` for `secs` since the epoch.
pub fn rfc3339(secs: i64) -> String {
    let (y, m, d, hh, mm, ss) = parts(secs);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

/// `20261130T090000Z` for `secs` since the epoch.
pub fn compact(secs: i64) -> String {
    let (y, m, d, hh, mm, ss) = parts(secs);
    format!("{y:04}{m:02}{d:02}T{hh:02}{mm:02}{ss:02}Z")
}

/// Days since 1970-01-01 of a civil date (the inverse of `civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Seconds since the epoch of an RFC 3339 UTC timestamp as the API server writes them
/// (`2026-11-30T09:00:00Z`, optionally with fractional seconds); `None` for anything else.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let t = text.trim();
    let b = t.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    if b[16] != b':' || !t.ends_with('Z') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = t.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())
            .flatten()
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let fraction = t.get(19..t.len() - 1)?;
    let fraction_ok = fraction.is_empty()
        || (fraction.len() > 1
            && fraction.starts_with('.')
            && fraction[1..].bytes().all(|c| c.is_ascii_digit()));
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    if !fraction_ok {
        return None;
    }
    let days = days_from_civil(y, mo as u32, d as u32);
    Some(days * 86_400 + h * 3600 + mi * 60 + s)
}

/// Days since the epoch of a civil date written `YYYY-MM-DD` (a topology's `until:`);
/// `None` for anything else, a day the month lacks included.
pub fn parse_date(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())
            .flatten()
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, m as u32, d as u32);
    // 2026-02-30 would be March 2nd: refused, not moved.
    (civil(days) == (y, m as u32, d as u32)).then_some(days)
}

/// `YYYY-MM-DD` of a day since the epoch.
pub fn date(days: i64) -> String {
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

pub fn now_rfc3339() -> String {
    rfc3339(now_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_029_200), "2026-11-30T09:00:00Z");
        assert_eq!(compact(1_796_029_200), "20261130T090000Z");
    }

    #[test]
    fn dates_parse_and_print() {
        assert_eq!(parse_date("2026-11-30"), Some(1_796_029_200 / 86_400));
        assert_eq!(date(1_796_029_200 / 86_400), "2026-11-30");
        assert_eq!(
            parse_date("2028-02-29").map(date).as_deref(),
            Some("2028-02-29")
        );
        for bad in [
            "",
            "2026-02-30",
            "2027-02-29",
            "2026-13-01",
            "26-11-30",
            "2026/11/30",
            "2026-11-3x",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn rfc3339_parses_what_it_formats() {
        for secs in [0, 951_782_400, 1_796_029_200, 1_796_029_200 + 86_399] {
            assert_eq!(parse_rfc3339(&rfc3339(secs)), Some(secs));
        }
        assert_eq!(
            parse_rfc3339("2026-11-30T09:00:00.123456Z"),
            Some(1_796_029_200)
        );
        for bad in [
            "",
            "2026-11-30",
            "2026-11-30T09:00:00",
            "2026-11-30T09:00:00+01:00",
            "2026-13-30T09:00:00Z",
            "2026-11-30T09:00:00.Z",
            "2026-11-30T0a:00:00Z",
            "+026-11-30T09:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
