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

/// Mark the failing checks `acks` cover in `reports` (judged on day `today`); the warnings
/// for the acknowledgements that do not apply, in the order they are written.
pub fn apply(acks: &[Acknowledgement], reports: &mut [LayerReport], today: i64) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for ack in acks {
        if let Err(w) = apply_one(ack, reports, today) {
            warnings.push(w);
        }
    }
    warnings
}

fn apply_one(
    ack: &Acknowledgement,
    reports: &mut [LayerReport],
    today: i64,
) -> Result<(), Warning> {
    let of = format!("acknowledgement of {}", ack.check);
    let remove = format!("remove it from {}", ack.at);
    let warn = |message: String, hint: String| Warning { message, hint };
    if ack.until_day < today {
        return Err(warn(
            format!("{of} expired on {}: it no longer applies", ack.until),
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
        (0, Some(detail)) => Err(warn(
            format!("{of} matches nothing: the check does not find exactly `{detail}`"),
            format!("{remove}, or change its `detail:` to what the check finds now (`preview -v`)"),
        )),
        (0, None) => Err(warn(
            format!("{of} matches nothing: an earlier acknowledgement covers the check"),
            remove,
        )),
        _ => Ok(()),
    }
}

/// A check finds exactly `detail`: every finding it itemizes is `detail` (a second Ceph
/// code ends the acknowledgement); a check that itemizes none names it in its evidence, as
/// a whole word.
fn finds_exactly(check: &CheckReport, detail: &str) -> bool {
    if !check.findings.is_empty() {
        return check.findings.iter().all(|f| f == detail);
    }
    let word = |c: char| c.is_ascii_alphanumeric() || "_-./".contains(c);
    check.evidence.match_indices(detail).any(|(i, _)| {
        let before = check.evidence[..i].chars().next_back();
        let after = check.evidence[i + detail.len()..].chars().next();
        !detail.is_empty() && !before.is_some_and(word) && !after.is_some_and(word)
    })
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
