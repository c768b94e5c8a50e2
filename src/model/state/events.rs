//! Warning Events as evidence (SPEC §6 v0.4 "Warnings explain"): for a degraded layer, up to
//! [`MAX_QUOTED`] recent `Warning` Events about the objects its failing checks name, quoted
//! beside those checks (reason, count, message). They never change a state: the state is
//! decided before and without them ([`super::evaluate_layer`]), and a failed or forbidden
//! Events read only says "events not read in NS: ...". Pure: which namespaces to read
//! ([`event_reads`], in the second read round) and what to quote ([`attach`]).

use std::collections::BTreeSet;

use crate::model::observation::{Event, ObjectRef, Observation, ReadRequest};
use crate::pool::MAX_EVENT_NAMESPACES;

use super::checks::EventQuote;
use super::{LayerReport, State, Verdict};

/// At most this many Events are quoted per degraded layer, all its checks together.
pub const MAX_QUOTED: usize = 3;

/// An Event last seen longer ago than this (relative to the reading time) is not quoted.
pub const RECENT_SECS: i64 = 3600;

/// An Event last seen more than this after the reading time is not recent either (SPEC §6:
/// time from the cluster is bounded both ways; events dated 2099 pushed out the real ones,
/// issue 49): the clock skew tolerated between the cluster and this machine.
pub const FUTURE_SKEW_SECS: i64 = 5 * 60;

/// Where the Events about a cluster-scoped object (a Node, a PersistentVolume) are: both
/// recorders write an Event whose `regarding` has no namespace into `default` (client-go's
/// `record` and `events` packages, `metav1.NamespaceDefault`).
pub const CLUSTER_SCOPED_EVENTS: &str = "default";

/// The namespace whose Events are about `o`: its own, or [`CLUSTER_SCOPED_EVENTS`] for a
/// cluster-scoped object.
fn events_namespace(o: &ObjectRef) -> &str {
    if o.namespace.is_empty() {
        CLUSTER_SCOPED_EVENTS
    } else {
        &o.namespace
    }
}

/// The failing objects of a degraded layer's false checks, in check order.
fn failing_objects(r: &LayerReport) -> impl Iterator<Item = &ObjectRef> {
    r.checks
        .iter()
        .filter(move |_| r.state == State::Degraded)
        .filter(|c| c.verdict == Verdict::False)
        .flat_map(|c| c.objects.iter())
}

/// The namespaces whose Warning Events the second round reads: those the failing objects of
/// the degraded layers are in ([`CLUSTER_SCOPED_EVENTS`] for a cluster-scoped one), in layer
/// and check order, at most [`MAX_EVENT_NAMESPACES`] per run. None at all when no layer is
/// degraded.
pub fn namespaces(reports: &[LayerReport]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for o in reports.iter().flat_map(failing_objects) {
        if out.len() == MAX_EVENT_NAMESPACES {
            break;
        }
        let ns = events_namespace(o);
        if !out.iter().any(|n| n == ns) {
            out.push(ns.to_string());
        }
    }
    out
}

/// In the second read round (SPEC §11), named by the first round's states: one Warning Events
/// list per namespace of [`namespaces`], those not read already.
pub fn event_reads(reports: &[LayerReport], obs: &Observation) -> Vec<ReadRequest> {
    namespaces(reports)
        .into_iter()
        .filter(|ns| !obs.events.contains_key(ns))
        .map(|namespace| ReadRequest::Events { namespace })
        .collect()
}

/// Quote, beside each false check of a degraded layer, the recent Warning Events read about
/// its failing objects: newest first, at most [`MAX_QUOTED`] for the layer. Events of
/// another type, older than [`RECENT_SECS`] or about another object are left out; an Event
/// is about an object when its `regarding` is that kind, namespace (empty for a
/// cluster-scoped one) and name and it was read where that object's Events are. A
/// namespace whose read failed is said once per check; one not read (past the run's
/// namespaces, or failing only by what the second round read) too. The state, verdicts and evidence stay as
/// they are.
pub fn attach(report: &mut LayerReport, obs: &Observation) {
    if report.state != State::Degraded || obs.events.is_empty() {
        return;
    }
    let now = obs.observed_at;
    // Every candidate of the layer: (last seen, check index, event, namespace read in).
    let mut found: Vec<(i64, usize, &Event, &str)> = Vec::new();
    for (i, check) in report.checks.iter_mut().enumerate() {
        if check.verdict != Verdict::False {
            continue;
        }
        let spaces: BTreeSet<&str> = check.objects.iter().map(events_namespace).collect();
        for ns in spaces {
            match obs.events.get_key_value(ns) {
                Some((ns, Ok(events))) => {
                    let wanted: Vec<&ObjectRef> = check
                        .objects
                        .iter()
                        .filter(|o| events_namespace(o) == ns)
                        .collect();
                    let Some(now) = now else {
                        check
                            .events_not_read
                            .push("events not judged: no reading time".to_string());
                        continue;
                    };
                    found.extend(
                        events
                            .iter()
                            .filter(|e| {
                                e.kind == "Warning"
                                    && wanted.iter().any(|o| o.named_by(&e.regarding))
                            })
                            .filter_map(|e| e.last_seen.map(|t| (t, e)))
                            .filter(|(t, _)| {
                                now.saturating_sub(*t) <= RECENT_SECS
                                    && *t <= now.saturating_add(FUTURE_SKEW_SECS)
                            })
                            .map(|(t, e)| (t, i, e, ns.as_str())),
                    );
                }
                Some((_, Err(f))) => check.events_not_read.push(format!(
                    "events not read in {}: {}",
                    crate::term::escape(ns),
                    f.kind
                )),
                None => check.events_not_read.push(format!(
                    "events not read in {} (a run reads the Warning Events of {MAX_EVENT_NAMESPACES} namespaces, those the first read round found failing)",
                    crate::term::escape(ns)
                )),
            }
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    // An Event about an object two checks name is quoted once, under the first.
    let mut taken: Vec<&Event> = Vec::new();
    for (t, i, e, ns) in found {
        if taken.len() == MAX_QUOTED {
            break;
        }
        if taken.iter().any(|k| std::ptr::eq(*k, e)) {
            continue;
        }
        taken.push(e);
        if let Some(check) = report.checks.get_mut(i) {
            check.events.push(EventQuote {
                object: e.regarding.label(),
                reason: e.reason.clone(),
                count: e.count,
                message: e.note.clone(),
                last_seen: crate::clock::rfc3339(t),
                namespace: ns.to_string(),
                ago: now
                    .map(|n| crate::duration::rough((n - t).max(0)))
                    .unwrap_or_default(),
            });
        }
    }
}

/// The words of one quoted Event under its check: `Warning REASON (N×, AGE ago) on OBJECT:
/// MESSAGE`, its parts escaped and capped when they were read.
pub fn line(q: &EventQuote) -> String {
    let age = if q.ago.is_empty() {
        String::new()
    } else {
        format!(", {} ago", q.ago)
    };
    format!(
        "Warning {} ({}×{age}) on {}: {}",
        q.reason, q.count, q.object, q.message
    )
}

/// The read a person runs to see a namespace's Warning Events (`--explain`).
pub fn by_hand(namespace: &str) -> super::explain::ByHand {
    super::explain::ByHand::Get {
        resource: "events.events.k8s.io".to_string(),
        name: None,
        namespace: Some(namespace.to_string()),
        all_namespaces: false,
        selector: None,
        jsonpath: "{range .items[?(@.type==\"Warning\")]}{.regarding.kind} {.regarding.namespace}/{.regarding.name} {.reason} {.note}{\"\\n\"}{end}".to_string(),
    }
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
