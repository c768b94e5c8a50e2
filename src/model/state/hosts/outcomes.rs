//! One host check's outcome from what it read on one host: a unit, the newest file, sshd's
//! values, the restore tools. Pure; the phrases are the per-host evidence.

use super::{clean, size, Outcome, Verdict};
use crate::model::catalog::host::{executable_key, ANY_AGE, EXECUTABLE_DIRS};
use crate::model::observation::host::{HostFact, HostReading, NewestFile, SshdConfig, UnitState};

/// `executable: [etcdutl, crictl]`: each program found as a regular file in one of
/// [`EXECUTABLE_DIRS`] (one `find` per directory); missing where every directory was read and
/// none has it; unknown where it was not found and some directory could not be read. Says
/// nothing about the layer being installed.
pub(super) fn executable_outcome(programs: &[String], reading: &HostReading) -> Outcome {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    let mut unread = Vec::new();
    for program in programs {
        let mut seen_in = None;
        let mut failed = None;
        for dir in EXECUTABLE_DIRS {
            match reading.checks.get(&executable_key(dir, program)) {
                Some(Ok(HostFact::NewestFile(n))) if n.newest.is_some() => {
                    seen_in = Some(dir);
                    break;
                }
                Some(Ok(HostFact::NewestFile(_))) => {}
                Some(Ok(_)) => {
                    failed.get_or_insert_with(|| format!("{dir}: another check kind recorded"));
                }
                Some(Err(f)) => {
                    failed.get_or_insert_with(|| format!("{dir}: {}", clean(&f.message)));
                }
                None => {
                    failed.get_or_insert_with(|| format!("{dir}: not read"));
                }
            }
        }
        match (seen_in, failed) {
            (Some(dir), _) => found.push(format!("{program} in {dir}")),
            (None, None) => missing.push(program.as_str()),
            (None, Some(why)) => unread.push(format!("{program} not read ({why})")),
        }
    }
    let dirs = EXECUTABLE_DIRS.join(", ");
    let mut phrases = found;
    if !missing.is_empty() {
        phrases.push(format!("{} missing (not in {dirs})", missing.join(", ")));
    }
    phrases.extend(unread.iter().cloned());
    let verdict = if !missing.is_empty() {
        Verdict::False
    } else if !unread.is_empty() {
        Verdict::Unknown
    } else {
        Verdict::True
    };
    Outcome {
        verdict,
        phrase: phrases.join(", "),
        detects: None,
    }
}

pub(super) fn unit_outcome(
    unit: &str,
    active: Option<bool>,
    result: Option<&str>,
    u: &UnitState,
) -> Outcome {
    if !u.exists() {
        return Outcome::new(false, format!("{unit} not installed"), Some(false));
    }
    let mut phrases = Vec::new();
    let mut ok = true;
    if let Some(want) = active {
        let is = u.active_state == "active";
        if is == want {
            phrases.push(format!(
                "{unit} {}",
                if is { "active" } else { "not active" }
            ));
        } else {
            ok = false;
            phrases.push(if want {
                format!("{unit} not active (ActiveState={})", clean(&u.active_state))
            } else {
                format!("{unit} active, expected inactive")
            });
        }
    }
    if let Some(want) = result {
        let status = u
            .exec_main_status
            .filter(|s| *s != 0)
            .map(|s| format!(", status {s}"))
            .unwrap_or_default();
        if u.result == want {
            phrases.push(if want == "success" {
                format!("last run of {unit} succeeded")
            } else {
                format!("{unit} result {want}")
            });
        } else {
            ok = false;
            phrases.push(if want == "success" {
                format!("last run of {unit} failed ({}{status})", clean(&u.result))
            } else {
                format!(
                    "{unit} result {}{status}, expected {want}",
                    clean(&u.result)
                )
            });
        }
    }
    Outcome::new(ok, phrases.join(", "), Some(true))
}

/// How far ahead of the reading a file's mtime may be (hosts' clocks drift) before it is
/// named as dated in the future.
pub(super) const FUTURE_SKEW_SECS: i64 = 300;

pub(super) fn file_outcome(
    dir: &str,
    pattern: &str,
    max_age: u64,
    min_size: u64,
    n: &NewestFile,
) -> Outcome {
    if !n.dir_exists {
        return Outcome::new(false, format!("no directory {dir}"), Some(false));
    }
    let Some(f) = &n.newest else {
        return Outcome::new(false, format!("no {pattern} in {dir}"), Some(true));
    };
    if max_age == ANY_AGE && min_size == 0 {
        return Outcome::new(
            true,
            format!("{dir}/{} present", clean(&f.name)),
            Some(true),
        );
    }
    // A file dated ahead of the reading (beyond a clock skew) is not fresh: its age says
    // nothing (issue 31 item 8: an mtime 400 days ahead, or 1e300, read as "fresh").
    if f.age_secs < -FUTURE_SKEW_SECS {
        return Outcome::new(
            false,
            format!(
                "newest {} is from the future: dated {} ahead of the reading",
                clean(&f.name),
                crate::duration::rough(f.age_secs.saturating_neg())
            ),
            Some(true),
        );
    }
    let shown_age = crate::duration::rough(f.age_secs.max(0));
    let mut problems = Vec::new();
    if f.age_secs > i64::try_from(max_age).unwrap_or(i64::MAX) {
        problems.push(format!(
            "{shown_age} old (maxAge {})",
            crate::duration::format(std::time::Duration::from_secs(max_age))
        ));
    }
    if f.size < min_size {
        problems.push(format!("{} (minSize {})", size(f.size), size(min_size)));
    }
    if problems.is_empty() {
        Outcome::new(
            true,
            format!(
                "newest {} {shown_age} old, {}",
                clean(&f.name),
                size(f.size)
            ),
            Some(true),
        )
    } else {
        Outcome::new(
            false,
            format!("newest {} is {}", clean(&f.name), problems.join(", ")),
            Some(true),
        )
    }
}

pub(super) fn sshd_outcome(
    expect: &std::collections::BTreeMap<String, Vec<String>>,
    s: &SshdConfig,
) -> Outcome {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (key, allowed) in expect {
        let allowed: Vec<&str> = allowed.iter().map(|v| sshd_alias(key, v)).collect();
        match s.values.get(key) {
            None => bad.push(format!("sshd -T shows no {key}")),
            Some(vals) if vals.iter().all(|v| allowed.contains(&sshd_alias(key, v))) => {
                good.push(format!("{key} {}", clean(&vals.join(","))))
            }
            Some(vals) => bad.push(format!(
                "{key} {} (expected {})",
                clean(&vals.join(",")),
                allowed.join(" or ")
            )),
        }
    }
    if bad.is_empty() {
        Outcome::new(true, format!("sshd: {}", good.join(", ")), Some(true))
    } else {
        Outcome::new(false, format!("sshd: {}", bad.join(", ")), Some(true))
    }
}

/// sshd's spellings of one value: `sshd -T` prints `permitrootlogin without-password` for
/// `PermitRootLogin prohibit-password` (OpenSSH keeps the old name first in its table), so the
/// two are the same value.
fn sshd_alias<'a>(key: &str, value: &'a str) -> &'a str {
    match (key, value) {
        ("permitrootlogin", "without-password") => "prohibit-password",
        _ => value,
    }
}
