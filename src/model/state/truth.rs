//! What every checked object must also show (SPEC §6 v0.3), shared by the checks: an
//! object being deleted or suspended is a flaw whatever its status says, ages are judged
//! against the reading time, a status the operator stopped writing is stale; and the two
//! checks that exist for it, a namespace (Terminating) and a ConfigMap key (mon quorum).

use crate::clock::parse_rfc3339;
use crate::duration::rough as age;
use crate::model::catalog::{ConfigMapCheck, Expect, Objects, TolerateCheck};
use crate::model::observation::{CustomObject, Namespace, Observation};

use super::{CheckOutcome, Phase};

/// `Kind ns/name` of an object, as evidence names it.
pub(super) fn id(sel: &Objects, o: &CustomObject) -> String {
    match &o.namespace {
        Some(ns) => format!("{} {ns}/{}", sel.kind_label(), o.name),
        None => format!("{} {}", sel.kind_label(), o.name),
    }
}

/// Why an object is not healthy whatever its status says: it is being deleted, or its
/// operator was told to stop (a suspension annotation).
pub(super) fn flaw(sel: &Objects, o: &CustomObject) -> Option<String> {
    if let Some(d) = &o.deleting {
        return Some(format!("{}: {}", id(sel, o), d.describe()));
    }
    if !o.suspended.is_empty() {
        return Some(format!("{}: {}", id(sel, o), o.suspended.join(", ")));
    }
    None
}

/// The reading time, for checks that judge an age; without it they are unknown.
pub(super) fn reading_time(obs: &Observation) -> Result<i64, CheckOutcome> {
    obs.observed_at
        .ok_or_else(|| CheckOutcome::unknown("no reading time recorded: ages cannot be judged"))
}

pub(super) fn needs_time(expect: &Expect) -> bool {
    matches!(expect, Expect::MinValidity(_) | Expect::MaxAge(_))
}

/// "expires in 3d" / "expired 2h ago".
pub(super) fn expiry(at: i64, now: i64) -> String {
    if at >= now {
        format!("expires in {}", age(at - now))
    } else {
        format!("expired {} ago", age(now - at))
    }
}

/// A status the operator stopped writing: its `lastChecked` older than `maxStatusAge`. An
/// absent or unreadable `lastChecked` is not judged (older operators do not write it).
pub(super) fn stale(t: &TolerateCheck, o: &CustomObject, now: Option<i64>) -> Option<String> {
    let (path, now) = (t.last_checked.as_ref()?, now?);
    let checked = parse_rfc3339(o.field(path)?)?;
    let old = now - checked;
    if old <= t.max_status_age as i64 {
        return None;
    }
    // `.status.ceph.lastChecked` is the Ceph status; `.status.lastChecked` the status.
    let segments = path.segments();
    let what = match segments.len().checked_sub(2).map(|i| segments[i].as_str()) {
        Some(parent) if parent != "status" => {
            let mut c = parent.chars();
            c.next()
                .map(|f| format!("{}{} status", f.to_uppercase(), c.as_str()))
                .unwrap_or_else(|| "status".to_string())
        }
        Some(_) | None => "status".to_string(),
    };
    Some(format!(
        "{}: {what} last checked {} ago: the operator is not reconciling",
        id(&t.objects, o),
        age(old)
    ))
}

/// A namespace exists; one being deleted (phase `Terminating`, or a deletion timestamp) is a
/// flaw when detecting and false when judging health.
pub(super) fn namespace(n: &Namespace, phase: Phase) -> CheckOutcome {
    let deleting = match (&n.deleting, n.phase.as_str()) {
        (Some(d), _) => Some(d.describe()),
        (None, "Terminating") => Some("being deleted (phase Terminating)".to_string()),
        (None, _) => None,
    };
    let ns = &n.name;
    match (deleting, phase) {
        (None, _) if n.phase == "Active" || n.phase.is_empty() => {
            CheckOutcome::yes(format!("namespace {ns} exists"))
        }
        (None, _) => CheckOutcome::yes(format!("namespace {ns} exists ({})", n.phase)),
        (Some(d), Phase::Detect) => CheckOutcome::yes(format!("namespace {ns} exists"))
            .with_flaws(vec![format!("namespace {ns}: {d}")]),
        (Some(d), Phase::Healthy) => CheckOutcome::no(format!("namespace {ns}: {d}")),
    }
}

/// A key of one ConfigMap (read by name) is empty; an absent key is empty too (what the
/// operator writes when nothing is wrong), a failed read unknown — a missing ConfigMap
/// included: nestor does not know the operator's state then.
pub(super) fn config_map(obs: &Observation, c: &ConfigMapCheck) -> CheckOutcome {
    let id = format!("ConfigMap {}/{}", c.namespace, c.name);
    let key = format!("{}/{}", c.namespace, c.name);
    match obs.config_maps.get(&key) {
        None => CheckOutcome::unknown(format!("{id} was not read")),
        Some(Err(f)) => CheckOutcome::failed(&id, f),
        // Missing: nestor does not know the operator's state (never "healthy").
        Some(Ok(None)) => CheckOutcome::unknown(format!("{id} not found")),
        Some(Ok(Some(data))) => match data.get(&c.key).map(|v| v.trim()) {
            None => CheckOutcome::yes(format!("{id} has no {} (none listed)", c.key)),
            Some("") => CheckOutcome::yes(format!("{id} {} empty", c.key)),
            Some(v) => CheckOutcome::no(format!("{id} {} = {v} (want empty)", c.key)),
        },
    }
}
