//! Durations as the operator writes and reads them: ONE parser and ONE formatter for every
//! flag (`--request-timeout`, `wait --timeout/--interval`) and every catalog bound
//! (`maxAge:`). Go's syntax, as kubectl takes it (`1m30s`, `250ms`, `1.5h`, `2h45m`), plus
//! bare seconds and the catalog's `d`/`w`; the arithmetic is `humantime`'s.

use std::time::Duration;

/// The units accepted: Go's (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`) and days and weeks.
/// Months and years (which `humantime` would take as 30.44 and 365.25 days) are refused:
/// a bound in them means nothing precise.
const UNITS: &[&str] = &["ns", "us", "µs", "ms", "s", "m", "h", "d", "w"];

/// Why a text is not a duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// Not a number followed by a unit, repeated (`ten`, `1h 30m`, `-5s`).
    Syntax,
    /// A unit outside [`UNITS`] (`3y`, `5x`).
    Unit,
}

/// `1m30s`, `250ms`, `1.5h`, `2h45m`, `7d`, or a bare number of seconds (`3`, `0.5`).
pub fn parse(text: &str) -> Result<Duration, Invalid> {
    let s = text.trim();
    if s.is_empty() {
        return Err(Invalid::Syntax);
    }
    if s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        let secs: f64 = s.parse().map_err(|_| Invalid::Syntax)?;
        return Duration::try_from_secs_f64(secs).map_err(|_| Invalid::Syntax);
    }
    // Each unit must be one of ours, each number plain digits (no sign, no space).
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or(Invalid::Syntax)?;
        if digits == 0 {
            return Err(Invalid::Syntax);
        }
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        if !unit.chars().all(char::is_alphabetic) {
            return Err(Invalid::Syntax);
        }
        if !UNITS.contains(&unit) {
            return Err(Invalid::Unit);
        }
        rest = &rest[unit_len..];
    }
    // humantime spells microseconds `us`/`usec`; Go also writes `µs`.
    humantime::parse_duration(&s.replace("µs", "us")).map_err(|_| Invalid::Syntax)
}

/// [`parse`] within `(0, max]`, worded for a command-line flag. The error words are the
/// ones the tests and the docs quote.
pub fn parse_flag(text: &str, max: Duration) -> Result<Duration, String> {
    let s = text.trim();
    match parse(s) {
        Ok(d) if !d.is_zero() && d <= max => Ok(d),
        Ok(_) => Err(format!(
            "`{s}` must be more than 0 and at most {}",
            format(max)
        )),
        Err(Invalid::Syntax) => Err(format!("`{s}` is not a duration (e.g. 10s, 500ms, 1m)")),
        Err(Invalid::Unit) => Err(format!("`{s}`: unit must be ms, s, m or h")),
    }
}

/// The exact duration in Go's style without its zero parts: `26h`, `1m30s`, `1h5s`, `3s`,
/// `1.5s` (under a minute, tenths of a second), `250ms`.
pub fn format(d: Duration) -> String {
    let s = d.as_secs();
    if s == 0 && d.subsec_millis() > 0 && d.subsec_millis() * 1_000_000 == d.subsec_nanos() {
        return format!("{}ms", d.subsec_millis());
    }
    if s < 60 && d.subsec_millis() > 0 {
        return format!("{:.1}s", d.as_secs_f64());
    }
    let (h, m, sec) = (s / 3600, (s % 3600) / 60, s % 60);
    let mut out = String::new();
    for (n, unit) in [(h, "h"), (m, "m"), (sec, "s")] {
        if n > 0 {
            out.push_str(&format!("{n}{unit}"));
        }
    }
    if out.is_empty() {
        out.push_str("0s");
    }
    out
}

/// An age rounded to its largest sensible unit, as `ls` would say it: `42s`, `17m`, `26h`,
/// `3d`; a negative age (a clock ahead of ours) says so.
pub fn rough(secs: i64) -> String {
    match secs {
        s if s < 0 => "from the future".to_string(),
        s if s < 120 => format!("{s}s"),
        s if s < 120 * 60 => format!("{}m", s / 60),
        s if s < 48 * 3600 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: &str) -> Option<f64> {
        parse(s).ok().map(|d| d.as_secs_f64())
    }

    #[test]
    fn go_syntax_is_accepted() {
        assert_eq!(secs("1m30s"), Some(90.0));
        assert_eq!(secs("250ms"), Some(0.25));
        assert_eq!(secs("1h"), Some(3600.0));
        assert_eq!(secs("1.5h"), Some(5400.0));
        assert_eq!(secs("2h45m"), Some(9900.0));
        assert_eq!(secs("1500us"), Some(0.0015));
        assert_eq!(secs("1500µs"), Some(0.0015));
        assert_eq!(secs("26h"), Some(93_600.0));
        assert_eq!(secs("7d"), Some(604_800.0));
        assert_eq!(secs("1w"), Some(604_800.0));
        assert_eq!(secs("3"), Some(3.0));
        assert_eq!(secs("0.5"), Some(0.5));
    }

    #[test]
    fn anything_else_is_refused_with_its_reason() {
        for bad in ["", "ten", "h", "-5s", "1h 30m", "1..5s", "5s!", ".s"] {
            assert_eq!(parse(bad), Err(Invalid::Syntax), "{bad:?}");
        }
        for bad in ["3y", "2M", "5x", "1mo"] {
            assert_eq!(parse(bad), Err(Invalid::Unit), "{bad:?}");
        }
    }

    #[test]
    fn flags_keep_their_bounds_and_words() {
        let hour = Duration::from_secs(3600);
        assert_eq!(parse_flag("1m30s", hour), Ok(Duration::from_secs(90)));
        assert_eq!(parse_flag("1h", hour), Ok(hour));
        assert_eq!(
            parse_flag("0s", hour),
            Err("`0s` must be more than 0 and at most 1h".into())
        );
        assert_eq!(
            parse_flag("ten", hour),
            Err("`ten` is not a duration (e.g. 10s, 500ms, 1m)".into())
        );
        assert_eq!(
            parse_flag("5y", hour),
            Err("`5y`: unit must be ms, s, m or h".into())
        );
    }

    #[test]
    fn formats_read_like_go_without_zero_parts() {
        let f = |s| format(Duration::from_secs(s));
        assert_eq!(f(93_600), "26h");
        assert_eq!(f(600), "10m");
        assert_eq!(f(90), "1m30s");
        assert_eq!(f(3605), "1h5s");
        assert_eq!(f(3), "3s");
        assert_eq!(f(0), "0s");
        assert_eq!(format(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format(Duration::from_millis(250)), "250ms");
    }

    #[test]
    fn ages_are_rounded() {
        assert_eq!(rough(-1), "from the future");
        assert_eq!(rough(42), "42s");
        assert_eq!(rough(17 * 60), "17m");
        assert_eq!(rough(26 * 3600), "26h");
        assert_eq!(rough(3 * 86_400), "3d");
    }
}
