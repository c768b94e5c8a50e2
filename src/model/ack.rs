//! Acknowledged findings (SPEC §6 v0.4): a team that knowingly lives with a failing check
//! says so in its topology (`acknowledged:`), and the check is marked, never hidden. Pure:
//! the acknowledgements, the layer reports and today's date in, the marks and the warnings
//! out.
//!
//! An acknowledgement applies to a FALSE check of a DEGRADED layer only: a failed read is
//! not a finding (unknown), and an absent layer is removed from `layers:` instead. Its
//! layer keeps its state; the plan lists the layer under "acknowledged" when every failing
//! check of it is covered. Expired, too far ahead (more than [`MAX_DAYS`]) or matching
//! nothing: a warning naming the line to remove, on every run; only a valid one applies.

use crate::model::state::{CheckReport, LayerReport, State, Verdict};

/// How far ahead an `until:` may be: a finding is looked at again within a quarter.
pub const MAX_DAYS: i64 = 90;

/// One entry of a topology's `acknowledged:` list, validated when the file was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acknowledgement {
    /// `LAYER/NAME`, as `preview -o json` names the check.
    pub check: String,
    /// Applies only while the check finds exactly this (Ceph's `RECENT_MGR_MODULE_CRASH`).
    pub detail: Option<String>,
    pub reason: String,
    /// `YYYY-MM-DD` as written, and its day since the epoch.
    pub until: String,
    pub until_day: i64,
    /// `FILE:LINE` of its `check:`, for the hint that says which line to remove.
    pub at: String,
}

/// A warning about one acknowledgement: printed on stderr with its hint, every run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub message: String,
    pub hint: String,
}

/// The days an acknowledgement is judged on: the run's (its expiry, SPEC §6, issue 49: a
/// replayed snapshot never revives one) and the reading's (a snapshot's, to say so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Days {
    pub today: i64,
    pub read: i64,
}

/// Mark the failing checks `acks` cover in `reports` (judged on `days.today`); the warnings
/// for the acknowledgements that do not apply, in the order they are written.
pub fn apply(acks: &[Acknowledgement], reports: &mut [LayerReport], days: Days) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for ack in acks {
        if let Err(w) = apply_one(ack, reports, days) {
            warnings.push(w);
        }
    }
    warnings
}

fn apply_one(
    ack: &Acknowledgement,
    reports: &mut [LayerReport],
    Days { today, read }: Days,
) -> Result<(), Warning> {
    let of = format!("acknowledgement of {}", ack.check);
    let remove = format!("remove it from {}", ack.at);
    let warn = |message: String, hint: String| Warning { message, hint };
    if ack.until_day < today {
        let since = if ack.until_day >= read {
            format!(
                ", since the state judged was read on {}",
                crate::clock::date(read)
            )
        } else {
            String::new()
        };
        return Err(warn(
            format!("{of} expired on {}{since}: it no longer applies", ack.until),
            format!("{remove}, or give it a new `until:` if the finding is still accepted"),
        ));
    }
    let latest = today + MAX_DAYS;
    if ack.until_day > latest {
        return Err(warn(
            format!(
                "{of} until {} ignored: more than {MAX_DAYS} days ahead (at most {})",
                ack.until,
                crate::clock::date(latest)
            ),
            format!(
                "set its `until:` to {} or sooner, or {remove}",
                crate::clock::date(latest)
            ),
        ));
    }
    let layer_id = ack.check.split_once('/').map_or("", |(l, _)| l);
    let Some(report) = reports.iter_mut().find(|r| r.id == layer_id) else {
        return Err(warn(
            format!("{of} matches nothing: no layer `{layer_id}` in this stack's layers"),
            remove,
        ));
    };
    match report.state {
        State::Unknown => {
            return Err(warn(
                format!("{of} ignored: a failed read is not a finding"),
                format!(
                    "layer {layer_id} is unknown: fix the read; the acknowledgement ({}) covers a failing check only",
                    ack.at
                ),
            ))
        }
        State::Absent => {
            return Err(warn(
                format!("{of} ignored: layer {layer_id} is absent"),
                format!(
                    "remove the layer from `layers:` instead (and the acknowledgement, {})",
                    ack.at
                ),
            ))
        }
        State::Present | State::Degraded => {}
    }
    let named: Vec<&mut CheckReport> = report
        .checks
        .iter_mut()
        .filter(|c| c.id == ack.check)
        .collect();
    if named.is_empty() {
        let ids: Vec<String> = dedup_ids(&report.checks);
        return Err(warn(
            format!(
                "{of} matches nothing: layer {layer_id} has no such check (its checks: {})",
                ids.join(", ")
            ),
            remove,
        ));
    }
    let failing: Vec<&mut CheckReport> = named
        .into_iter()
        .filter(|c| c.verdict == Verdict::False)
        .collect();
    if failing.is_empty() {
        return Err(warn(
            format!("{of} matches nothing: the check holds"),
            remove,
        ));
    }
    let mut applied = 0;
    for check in failing {
        if ack
            .detail
            .as_deref()
            .is_none_or(|d| finds_exactly(check, d))
            && !check.acknowledged
        {
            check.acknowledged = true;
            check.until = Some(ack.until.clone());
            check.reason = Some(ack.reason.clone());
            applied += 1;
        }
    }
    match (applied, &ack.detail) {
        (0, Some(detail)) => {
            let others: Vec<String> = report
                .checks
                .iter()
                .filter(|c| c.id == ack.check && c.verdict == Verdict::False)
                // A check that itemizes findings is covered by them, not by its objects.
                .filter(|c| c.findings.is_empty())
                .flat_map(|c| uncovered(c, detail))
                .collect();
            let message = if others.is_empty() {
                format!("{of} matches nothing: the check does not find exactly `{detail}`")
            } else {
                format!(
                    "{of} does not cover the check: `{detail}` is not every object it fails on (also {})",
                    others.join(", ")
                )
            };
            Err(warn(
                message,
                format!(
                    "{remove}, or change its `detail:` to what the check finds now (`preview -v`)"
                ),
            ))
        }
        (0, None) => Err(warn(
            format!("{of} matches nothing: an earlier acknowledgement covers the check"),
            remove,
        )),
        _ => Ok(()),
    }
}

/// A check finds exactly `detail`: every finding it itemizes is `detail` (a second Ceph
/// code ends the acknowledgement); every object it fails on is the one `detail` names (an
/// acknowledgement of `argocd/platform-monitoring` never covers `platform-registry` failing
/// beside it: SPEC §6, issue 49); a check that itemizes neither names it in its evidence, as
/// a whole word.
fn finds_exactly(check: &CheckReport, detail: &str) -> bool {
    if !check.findings.is_empty() {
        return check.findings.iter().all(|f| f == detail);
    }
    if !check.objects.is_empty() {
        return uncovered(check, detail).is_empty();
    }
    let word = |c: char| c.is_ascii_alphanumeric() || "_-./".contains(c);
    check.evidence.match_indices(detail).any(|(i, _)| {
        let before = check.evidence[..i].chars().next_back();
        let after = check.evidence[i + detail.len()..].chars().next();
        !detail.is_empty() && !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The objects `check` fails on that `detail` does not name (`NAME`, `NAMESPACE/NAME` or
/// `Kind NAMESPACE/NAME`), as the evidence labels them.
fn uncovered(check: &CheckReport, detail: &str) -> Vec<String> {
    check
        .objects
        .iter()
        .filter(|o| {
            detail != o.name
                && detail != format!("{}/{}", o.namespace, o.name)
                && detail != o.label()
        })
        .map(|o| o.label())
        .collect()
}

fn dedup_ids(checks: &[CheckReport]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for c in checks {
        if !ids.contains(&c.id) {
            ids.push(c.id.clone());
        }
    }
    ids
}

/// Every failing check of a degraded layer is acknowledged: no work, listed apart.
pub fn fully_acknowledged(r: &LayerReport) -> bool {
    // A check that could not be decided is no finding to live with: such a layer stays
    // under repair, its acknowledged checks still marked.
    // A host that could not be read is undecided too, even where another host fails.
    let undecided = r.checks.iter().any(|c| c.verdict == Verdict::Unknown)
        || r.hosts.iter().any(|h| h.verdict == Verdict::Unknown);
    let mut failing = r
        .checks
        .iter()
        .filter(|c| c.verdict == Verdict::False)
        .peekable();
    r.state == State::Degraded
        && !undecided
        && failing.peek().is_some()
        && failing.all(|c| c.acknowledged)
}

/// What a fully acknowledged layer says in the plan and in JUnit: each acknowledgement of
/// its checks once, `acknowledged until DATE: REASON`, joined with `; `.
pub fn words(r: &LayerReport) -> String {
    let mut said: Vec<String> = Vec::new();
    for words in r.checks.iter().filter_map(CheckReport::acknowledgement) {
        if !said.contains(&words) {
            said.push(words);
        }
    }
    said.join("; ")
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod host_tests;
