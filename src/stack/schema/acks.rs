//! A topology's `acknowledged:` list (SPEC §6 v0.4), decoded as strictly as every topology
//! key: unknown keys refused with file:line:column, `check` a `LAYER/NAME` id, `reason`
//! non-empty, `until` a real `YYYY-MM-DD` day, `detail` one short line. Whether `until` is
//! past or too far ahead is decided at each run against the day of the reading
//! (`model::ack`), never here: a file valid today stays readable tomorrow.

use serde::de::Deserializer;
use serde::Deserialize;

use super::{validated, Check};
use crate::model::ack::Acknowledgement;

/// The keys of one acknowledgement, for the did-you-mean.
pub const ACK_KEYS: &[&str] = &["check", "detail", "reason", "until"];

/// One entry as written; its place in the file is found after the parse.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAck {
    #[serde(deserialize_with = "check_id")]
    check: String,
    #[serde(default, deserialize_with = "detail")]
    detail: Option<String>,
    #[serde(deserialize_with = "reason")]
    reason: String,
    #[serde(deserialize_with = "until")]
    until: String,
}

fn check_id<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    validated(d, |s| {
        let ok = s.split_once('/').is_some_and(|(layer, name)| {
            super::is_dns1123_label(layer) && crate::model::catalog::is_check_name(name)
        });
        match ok {
            true => Ok(()),
            false => Err((
                format!("`check: {}` is not a check id LAYER/NAME", crate::output::render::escape(s)),
                "name the check as `preview -o json` does (`ceph/health`); `kubectl nestor catalog show LAYER` lists a layer's check ids".into(),
            )),
        }
    })
}

fn one_line(s: &str) -> bool {
    !s.trim().is_empty() && s.len() <= 512 && !s.chars().any(char::is_control)
}

fn detail<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    validated(d, |s| match one_line(s) {
        true => Ok(()),
        false => Err((
            "`detail:` is empty, longer than 512 bytes or not one line".into(),
            "write what the check's evidence names (`RECENT_MGR_MODULE_CRASH`), or leave `detail:` out".into(),
        )),
    })
    .map(Some)
}

fn reason<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    validated(d, |s| match one_line(s) {
        true => Ok(()),
        false => Err((
            "`reason:` is empty, longer than 512 bytes or not one line".into(),
            "say in one line why the finding is accepted and where it is tracked".into(),
        )),
    })
}

fn until<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    validated(d, |s| -> Check {
        match crate::clock::parse_date(s) {
            Some(_) => Ok(()),
            None => Err((
                format!("`until: {}` is not a day YYYY-MM-DD", crate::output::render::escape(s)),
                "write the last day the acknowledgement applies, at most 90 days ahead, e.g. `until: 2026-12-31`".into(),
            )),
        }
    })
}

/// The acknowledgements as written, not yet located (see [`locate`]).
pub fn from_raw(raw: Vec<RawAck>) -> Vec<Acknowledgement> {
    raw.into_iter()
        .map(|a| Acknowledgement {
            until_day: crate::clock::parse_date(&a.until).unwrap_or(i64::MIN),
            check: a.check,
            detail: a.detail,
            reason: a.reason,
            until: a.until,
            at: String::new(),
        })
        .collect()
}

/// Each acknowledgement's `FILE:LINE`, its `check:` key's line (the n-th `check:` key after
/// the `acknowledged:` line is the n-th entry).
pub fn locate(acks: &mut [Acknowledgement], text: &str, file: &str) {
    let start = text
        .lines()
        .position(|l| l.starts_with("acknowledged:"))
        .unwrap_or(0);
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .skip(start)
        .filter(|(_, l)| {
            let rest = l.trim_start();
            let rest = rest.strip_prefix("- ").unwrap_or(rest).trim_start();
            let rest = rest.strip_prefix('{').unwrap_or(rest).trim_start();
            rest.starts_with("check:")
        })
        .map(|(n, _)| n + 1)
        .collect();
    for (i, a) in acks.iter_mut().enumerate() {
        a.at = lines
            .get(i)
            .map_or(file.to_string(), |line| format!("{file}:{line}"));
    }
}
