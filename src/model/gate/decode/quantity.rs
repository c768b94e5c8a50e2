//! Kubernetes resource quantities (`resource.Quantity`): `250m`, `2`, `1.5`, `128Mi`,
//! `1G`, `1e3` — CPU to millicores and memory to bytes, rounded up as the scheduler counts.

use crate::error::{Error, Result};

fn bad(q: &str) -> Error {
    Error::input(
        format!("`{}` is not a Kubernetes quantity", crate::term::escape(q)),
        "quantities look like 250m, 2, 128Mi or 1G (k8s.io/apimachinery resource.Quantity)",
    )
}

/// The number and its multiplier as a ratio (numerator, denominator).
fn split(q: &str) -> Result<(f64, f64)> {
    let q = q.trim();
    let at = q
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(q.len());
    let (num, suffix) = q.split_at(at);
    let (num, suffix) = match suffix.strip_prefix(['e', 'E']) {
        Some(exp) if exp.parse::<i32>().is_ok() => (format!("{num}e{exp}"), ""),
        _ => (num.to_string(), suffix),
    };
    let n: f64 = num.parse().map_err(|_| bad(q))?;
    if !n.is_finite() || n < 0.0 {
        return Err(bad(q));
    }
    let k = 1024f64;
    let mult = match suffix {
        "" => 1.0,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => k,
        "Mi" => k * k,
        "Gi" => k * k * k,
        "Ti" => k * k * k * k,
        "Pi" => k * k * k * k * k,
        "Ei" => k * k * k * k * k * k,
        _ => return Err(bad(q)),
    };
    Ok((n, mult))
}

fn to_u64(x: f64) -> u64 {
    if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x.ceil() as u64
    }
}

/// CPU in millicores (`250m` → 250, `2` → 2000).
pub fn parse_cpu_milli(q: &str) -> Result<u64> {
    let (n, m) = split(q)?;
    Ok(to_u64(n * m * 1000.0 - 1e-9))
}

/// Bytes (`128Mi` → 134217728).
pub fn parse_bytes(q: &str) -> Result<u64> {
    let (n, m) = split(q)?;
    Ok(to_u64(n * m - 1e-9))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_as_the_api_writes_them() {
        assert_eq!(parse_cpu_milli("250m").ok(), Some(250));
        assert_eq!(parse_cpu_milli("2").ok(), Some(2000));
        assert_eq!(parse_cpu_milli("1.5").ok(), Some(1500));
        assert_eq!(parse_bytes("128Mi").ok(), Some(134_217_728));
        assert_eq!(parse_bytes("1G").ok(), Some(1_000_000_000));
        assert_eq!(parse_bytes("16334620Ki").ok(), Some(16_726_650_880));
        assert_eq!(parse_bytes("1e3").ok(), Some(1000));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("1Zi").is_err());
        assert!(parse_cpu_milli("-1").is_err());
    }
}
