//! Timestamps relative to the moment a fixture is built. A healthy operator writes its
//! status every minute and a certificate is renewed before it expires, so a fixture that
//! shows them healthy cannot hold fixed dates: those age while the tests do not change.

use std::time::{SystemTime, UNIX_EPOCH};

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// RFC 3339 UTC (`2026-11-30T09:00:00Z`) of `secs` since the epoch (Howard Hinnant's
/// civil_from_days).
pub fn rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The time `delta` seconds from now (negative: ago), in RFC 3339.
pub fn from_now(delta: i64) -> String {
    rfc3339(now() + delta)
}

pub const MINUTE: i64 = 60;
pub const HOUR: i64 = 3600;
pub const DAY: i64 = 86_400;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants_and_round_trips_with_the_table_parser() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_029_200), "2026-11-30T09:00:00Z");
        let t = from_now(-3 * HOUR);
        let back = crate::table::parse_rfc3339(&t).unwrap_or(0);
        assert!((now() - 3 * HOUR - back).abs() <= 2, "{t}");
    }
}
