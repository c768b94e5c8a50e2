//! Which namespaces the second round reads and which Warning Events are quoted: only for a
//! degraded layer's false checks, about their failing objects, recent, newest first, three
//! per layer; a failed read or a namespace past the run's bound said, never a state change.

use super::*;
use crate::model::observation::{FailureKind, ReadFailure};
use crate::model::state::checks::CheckReport;
use crate::model::state::CheckOutcome;

const NOW: i64 = 1_796_029_200;

fn check(id: &str, verdict: Verdict, objects: &[ObjectRef]) -> CheckReport {
    let mut o = CheckOutcome::unknown(format!("{id} evidence"));
    o.verdict = verdict;
    CheckReport::of(id, &o.with_objects(objects.to_vec()))
}

fn report(state: State, checks: Vec<CheckReport>) -> LayerReport {
    LayerReport {
        id: "storage".into(),
        title: "storage".into(),
        state,
        evidence: checks.iter().map(|c| c.evidence.clone()).collect(),
        reason: "why".into(),
        hosts: vec![],
        checks,
        explain: vec![],
    }
}

fn pvc(ns: &str, name: &str) -> ObjectRef {
    ObjectRef::new("PersistentVolumeClaim", ns, name)
}

fn event(about: &ObjectRef, reason: &str, kind: &str, ago: Option<i64>) -> Event {
    Event {
        regarding: about.clone(),
        reason: reason.into(),
        note: format!("{reason} note"),
        kind: kind.into(),
        count: 2,
        last_seen: ago.map(|a| NOW - a),
    }
}

fn observed(events: &[(&str, Result<Vec<Event>, ReadFailure>)]) -> Observation {
    let mut obs = Observation::skipped("not read");
    obs.observed_at = Some(NOW);
    for (ns, read) in events {
        obs.events.insert(ns.to_string(), read.clone());
    }
    obs
}

#[test]
fn only_a_degraded_layers_false_checks_ask_for_events_in_their_namespaces() {
    let failing = [
        pvc("monitoring", "a"),
        pvc("gitea", "b"),
        ObjectRef::new("PersistentVolume", "", "pv"),
    ];
    let healthy = report(
        State::Present,
        vec![check("storage/claims", Verdict::True, &failing)],
    );
    let unknown = report(
        State::Unknown,
        vec![check("storage/claims", Verdict::False, &failing)],
    );
    assert!(namespaces(&[healthy, unknown]).is_empty());
    let degraded = report(
        State::Degraded,
        vec![
            check("storage/class", Verdict::True, &[pvc("kube-system", "x")]),
            check("storage/claims", Verdict::False, &failing),
        ],
    );
    // The PersistentVolume is cluster-scoped: its Events are in `default`.
    assert_eq!(
        namespaces(std::slice::from_ref(&degraded)),
        ["monitoring", "gitea", "default"]
    );
    let obs = observed(&[("monitoring", Ok(vec![]))]);
    assert_eq!(
        event_reads(std::slice::from_ref(&degraded), &obs),
        [
            ReadRequest::Events {
                namespace: "gitea".into()
            },
            ReadRequest::Events {
                namespace: "default".into()
            }
        ]
    );
    // At most MAX_EVENT_NAMESPACES per run, all layers together.
    let many: Vec<ObjectRef> = (0..9).map(|i| pvc(&format!("ns{i}"), "c")).collect();
    let wide = report(
        State::Degraded,
        vec![check("storage/claims", Verdict::False, &many)],
    );
    assert_eq!(namespaces(&[degraded, wide]).len(), MAX_EVENT_NAMESPACES);
}

#[test]
fn recent_warnings_about_the_failing_objects_are_quoted_newest_first_three_per_layer() {
    let (a, b) = (pvc("monitoring", "a"), pvc("gitea", "b"));
    let mut r = report(
        State::Degraded,
        vec![
            check("storage/claims", Verdict::False, &[a.clone(), b.clone()]),
            check("storage/other", Verdict::False, std::slice::from_ref(&a)),
        ],
    );
    let before = r.clone();
    let obs = observed(&[
        (
            "monitoring",
            Ok(vec![
                event(&a, "Old", "Warning", Some(RECENT_SECS + 1)),
                // Dated 2099 (issue 49): never recent, never pushes the real ones out.
                event(&a, "Future", "Warning", Some(-(73 * 365 * 86_400))),
                event(&a, "JustAhead", "Warning", Some(-(FUTURE_SKEW_SECS + 1))),
                event(&a, "Fine", "Normal", Some(10)),
                event(&pvc("monitoring", "z"), "Other", "Warning", Some(5)),
                event(&a, "Timeless", "Warning", None),
                event(&a, "Second", "Warning", Some(60)),
                event(&a, "First", "Warning", Some(30)),
            ]),
        ),
        (
            "gitea",
            Ok(vec![
                event(&b, "Third", "Warning", Some(600)),
                event(&b, "Fourth", "Warning", Some(3000)),
            ]),
        ),
    ]);
    attach(&mut r, &obs);
    let quoted: Vec<(&str, &str, &str)> = r
        .checks
        .iter()
        .flat_map(|c| {
            c.events
                .iter()
                .map(move |e| (c.id.as_str(), e.reason.as_str(), e.ago.as_str()))
        })
        .collect();
    // Each quoted once, under the first check naming its object.
    assert_eq!(
        quoted,
        [
            ("storage/claims", "First", "30s"),
            ("storage/claims", "Second", "60s"),
            ("storage/claims", "Third", "10m")
        ]
    );
    let first = &r.checks[0].events[0];
    assert_eq!(first.object, "PersistentVolumeClaim monitoring/a");
    assert_eq!(
        line(first),
        "Warning First (2×, 30s ago) on PersistentVolumeClaim monitoring/a: First note"
    );
    // Nothing else changed.
    assert_eq!(
        (r.state, &r.evidence, &r.reason),
        (before.state, &before.evidence, &before.reason)
    );
    assert_eq!(r.checks[0].verdict, Verdict::False);
}

#[test]
fn a_failed_read_or_a_namespace_past_the_bound_is_said_never_a_state_change() {
    let (a, b) = (pvc("monitoring", "a"), pvc("gitea", "b"));
    let mut r = report(
        State::Degraded,
        vec![check("storage/claims", Verdict::False, &[a.clone(), b])],
    );
    let forbidden = ReadFailure::new(FailureKind::Forbidden, "events.events.k8s.io is forbidden");
    let obs = observed(&[("monitoring", Err(forbidden))]);
    attach(&mut r, &obs);
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.checks[0].events_not_read,
        [
            "events not read in gitea (a run reads the Warning Events of 4 namespaces, those the first read round found failing)",
            "events not read in monitoring: Forbidden"
        ]
    );
    // No Events round at all (nothing read): nothing said.
    let mut quiet = report(
        State::Degraded,
        vec![check("storage/claims", Verdict::False, &[a])],
    );
    attach(&mut quiet, &observed(&[]));
    assert!(quiet.checks[0].events_not_read.is_empty() && quiet.checks[0].events.is_empty());
    // A present layer never quotes, whatever was read.
    let mut present = report(
        State::Present,
        vec![check("storage/claims", Verdict::True, &[pvc("gitea", "b")])],
    );
    attach(
        &mut present,
        &observed(&[(
            "gitea",
            Ok(vec![event(&pvc("gitea", "b"), "X", "Warning", Some(1))]),
        )]),
    );
    assert!(present.checks[0].events.is_empty());
}

fn node(name: &str) -> ObjectRef {
    ObjectRef::new("Node", "", name)
}

#[test]
fn a_cluster_scoped_objects_warnings_are_read_in_default_and_matched_without_namespace() {
    let failing = [
        node("dirqual2"),
        ObjectRef::new("PersistentVolume", "", "pv-1"),
    ];
    let k8s = report(
        State::Degraded,
        vec![check("k8s/schedulable", Verdict::False, &failing)],
    );
    assert_eq!(namespaces(std::slice::from_ref(&k8s)), ["default"]);
    // Two nodes failing: `default` is read once.
    let two = report(
        State::Degraded,
        vec![check(
            "k8s/nodes-ready",
            Verdict::False,
            &[node("a"), node("b")],
        )],
    );
    assert_eq!(namespaces(&[k8s.clone(), two]), ["default"]);
    let mut r = k8s;
    let obs = observed(&[
        (
            "default",
            Ok(vec![
                event(
                    &node("dirqual2"),
                    "EvictionThresholdMet",
                    "Warning",
                    Some(240),
                ),
                // Another node, a namespaced object of the same kind and name, a Pod of
                // `default`, a Normal one: none is about the failing node.
                event(&node("dirqual3"), "Rebooted", "Warning", Some(60)),
                event(
                    &ObjectRef::new("Node", "default", "dirqual2"),
                    "Odd",
                    "Warning",
                    Some(30),
                ),
                event(
                    &ObjectRef::new("Pod", "default", "dirqual2"),
                    "BackOff",
                    "Warning",
                    Some(20),
                ),
                event(&node("dirqual2"), "NodeHasDiskPressure", "Normal", Some(10)),
                event(
                    &ObjectRef::new("PersistentVolume", "", "pv-1"),
                    "VolumeFailedDelete",
                    "Warning",
                    Some(600),
                ),
            ]),
        ),
        // A cluster-scoped object's Event read anywhere but `default` is not its.
        (
            "monitoring",
            Ok(vec![event(
                &node("dirqual2"),
                "Elsewhere",
                "Warning",
                Some(5),
            )]),
        ),
    ]);
    attach(&mut r, &obs);
    let quoted: Vec<(&str, &str)> = r.checks[0]
        .events
        .iter()
        .map(|e| (e.reason.as_str(), e.object.as_str()))
        .collect();
    assert_eq!(
        quoted,
        [
            ("EvictionThresholdMet", "Node dirqual2"),
            ("VolumeFailedDelete", "PersistentVolume pv-1")
        ]
    );
    // --explain's command reads the namespace the Event was read in.
    assert_eq!(r.checks[0].events[0].namespace, "default");
    assert!(r.checks[0].events_not_read.is_empty());
}

#[test]
fn a_forbidden_default_says_so_under_the_node_check_only() {
    let mut r = report(
        State::Degraded,
        vec![
            check("k8s/schedulable", Verdict::False, &[node("dirqual2")]),
            check("k8s/other", Verdict::False, &[pvc("monitoring", "a")]),
        ],
    );
    let forbidden = ReadFailure::new(FailureKind::Forbidden, "events.events.k8s.io is forbidden");
    let obs = observed(&[("default", Err(forbidden)), ("monitoring", Ok(vec![]))]);
    attach(&mut r, &obs);
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.checks[0].events_not_read,
        ["events not read in default: Forbidden"]
    );
    assert!(r.checks[1].events_not_read.is_empty());
}
