//! `drain-pdb-blocks` against the eviction API's own cases (kubernetes
//! `pkg/registry/core/pod/storage/eviction_test.go`, `TestEviction` and
//! `TestEvictionIngorePDB`, and the rules of `eviction.go` that later releases added:
//! `unhealthyPodEvictionPolicy`, the empty selector of kubernetes#119732). Each case is named
//! after the upstream case it encodes: one pod labelled `a: "true"` on NODE, the budgets of
//! the case, and the verdict the real eviction gives (deleted: the rule holds; refused: NO-GO;
//! 429 "still being processed": CANNOT TELL). Cases about races inside one request (a delete
//! conflict, a resourceVersion precondition, dry-run options) are not a cluster's objects:
//! docs/gates.md lists them as left out. The same cases run through the real kubectl against
//! the replay server in `tests/e2e/gate_eviction.rs`.

use std::collections::BTreeMap;

use super::facts::{Facts, Owner, Pdb, Pod, Selector};
use super::tests::{cluster, drain, eval, outcome};
use super::{RuleId, Status, Verdict};

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The upstream test's pod: `default/NAME` on dirqual2, labelled `a: "true"`, owned by a
/// ReplicaSet, in `phase`, Ready or not.
fn pod(name: &str, phase: &str, ready: bool) -> Pod {
    Pod {
        namespace: "default".into(),
        name: name.into(),
        node: "dirqual2".into(),
        labels: labels(&[("a", "true")]),
        owners: vec![Owner {
            kind: "ReplicaSet".into(),
            name: "web-5d8c7f9b4".into(),
            controller: true,
        }],
        volumes: vec![],
        requests: Default::default(),
        phase: phase.into(),
        ready,
        images: vec!["registry.k8s.io/pause:3.10".into()],
        deleting: false,
        mirror: false,
    }
}

/// A budget of `default` selecting `selector` (`None`: no selector), with the status the
/// disruption controller wrote.
fn pdb(name: &str, selector: Option<&[(&str, &str)]>, allowed: i64, healthy: (i64, i64)) -> Pdb {
    Pdb {
        namespace: "default".into(),
        name: name.into(),
        selector: selector.map(|s| Selector {
            match_labels: labels(s),
            match_expressions: vec![],
        }),
        generation: 1,
        observed_generation: 1,
        always_allow_unhealthy: false,
        disruptions_allowed: allowed,
        current_healthy: healthy.0,
        desired_healthy: healthy.1,
        expected_pods: healthy.0.max(healthy.1),
    }
}

const A: &[(&str, &str)] = &[("a", "true")];

/// The cluster's facts with only `pods` on dirqual2 and only `pdbs`.
fn facts(pods: Vec<Pod>, pdbs: Vec<Pdb>) -> Facts {
    let mut f = cluster();
    f.node_pods = Ok(pods);
    f.pdbs = Ok(pdbs);
    f
}

/// The rule's status on dirqual2, its findings' subjects and evidence, its note.
fn judge(pods: Vec<Pod>, pdbs: Vec<Pdb>) -> (Status, Vec<String>, String) {
    let ev = eval(&drain("dirqual2"), &facts(pods, pdbs));
    let o = outcome(&ev, RuleId::DrainPdbBlocks);
    let words = o
        .findings
        .iter()
        .map(|f| format!("{}: {}", f.subject, f.evidence))
        .collect();
    (o.status, words, o.note.clone())
}

/// Deleted by the real eviction: the rule holds.
#[track_caller]
fn deleted(pods: Vec<Pod>, pdbs: Vec<Pdb>) {
    let (status, words, note) = judge(pods, pdbs);
    assert_eq!(status, Status::Holds, "{words:?} {note}");
}

/// Refused by the real eviction: NO-GO, one finding whose text holds `says`.
#[track_caller]
fn refused(pods: Vec<Pod>, pdbs: Vec<Pdb>, says: &str) {
    let (status, words, note) = judge(pods, pdbs);
    assert_eq!(status, Status::Fails, "{note}");
    assert_eq!(words.len(), 1, "{words:?}");
    assert!(words[0].contains(says), "{words:?}");
}

// ---- TestEviction --------------------------------------------------------------------

#[test]
fn test_eviction_matching_pdbs_with_no_disruptions_allowed_pod_running() {
    refused(
        vec![pod("t1", "Running", true)],
        vec![pdb("foo", Some(A), 0, (0, 0))],
        "PodDisruptionBudget default/foo: the budget allows no disruption now; disruptionsAllowed 0",
    );
}

#[test]
fn test_eviction_matching_pdbs_with_no_disruptions_allowed_pod_pending() {
    deleted(
        vec![pod("t2", "Pending", false)],
        vec![pdb("foo", Some(A), 0, (0, 0))],
    );
}

#[test]
fn test_eviction_matching_pdbs_with_no_disruptions_allowed_pod_succeeded() {
    deleted(
        vec![pod("t3", "Succeeded", false)],
        vec![pdb("foo", Some(A), 0, (0, 0))],
    );
}

#[test]
fn test_eviction_matching_pdbs_with_no_disruptions_allowed_pod_failed() {
    deleted(
        vec![pod("t4", "Failed", false)],
        vec![pdb("foo", Some(A), 0, (0, 0))],
    );
}

#[test]
fn test_eviction_matching_pdbs_with_disruptions_allowed() {
    deleted(
        vec![pod("t5", "Running", true)],
        vec![pdb("foo", Some(A), 1, (1, 0))],
    );
}

#[test]
fn test_eviction_non_matching_pdbs() {
    deleted(
        vec![pod("t6", "Running", true)],
        vec![pdb("foo", Some(&[("b", "true")]), 0, (0, 0))],
    );
}

// ---- TestEvictionIngorePDB -----------------------------------------------------------

#[test]
fn test_eviction_ignore_pdb_matching_pdbs_with_no_disruptions_allowed_pod_terminating() {
    let mut p = pod("t6", "Running", true);
    p.deleting = true;
    deleted(vec![p], vec![pdb("foo", Some(A), 0, (0, 0))]);
}

#[test]
fn test_eviction_ignore_pdb_no_disruptions_allowed_pod_running_pod_healthy_unhealthy_pod_not_ours()
{
    refused(
        vec![pod("t7", "Running", true)],
        vec![pdb("foo", Some(A), 0, (2, 2))],
        "disruptionsAllowed 0 (currentHealthy 2, desiredHealthy 2",
    );
}

#[test]
fn test_eviction_ignore_pdb_no_disruptions_allowed_pod_running_pod_unhealthy_unhealthy_pod_ours() {
    deleted(
        vec![pod("t8", "Running", false)],
        vec![pdb("foo", Some(A), 0, (2, 2))],
    );
}

// ---- eviction.go's later rules ---------------------------------------------------------

/// `unhealthyPodEvictionPolicy: AlwaysAllow`: a running pod that is not Ready goes even
/// when the budget is not healthy.
#[test]
fn eviction_go_always_allow_evicts_an_unready_pod_of_an_unhealthy_budget() {
    let mut b = pdb("foo", Some(A), 0, (1, 2));
    b.always_allow_unhealthy = true;
    deleted(vec![pod("t8", "Running", false)], vec![b]);
    // IfHealthyBudget (the default): the same pod is refused while the budget is unhealthy.
    refused(
        vec![pod("t8", "Running", false)],
        vec![pdb("foo", Some(A), 0, (1, 2))],
        "disruptionsAllowed 0 (currentHealthy 1, desiredHealthy 2",
    );
    // A Ready pod is guarded whatever the policy.
    let mut b = pdb("foo", Some(A), 0, (1, 2));
    b.always_allow_unhealthy = true;
    refused(vec![pod("t7", "Running", true)], vec![b], "default/foo");
}

/// `desiredHealthy > 0`: a budget that wants no healthy pod does not let an unready pod
/// through on `currentHealthy >= desiredHealthy` alone.
#[test]
fn eviction_go_an_unready_pod_of_a_budget_desiring_none_is_refused_at_zero() {
    refused(
        vec![pod("t8", "Running", false)],
        vec![pdb("foo", Some(A), 0, (0, 0))],
        "default/foo",
    );
}

/// "This pod has more than one PodDisruptionBudget, which the eviction subresource does not
/// support." (500): refused even when both budgets allow a disruption.
#[test]
fn eviction_go_more_than_one_budget_is_refused_naming_both() {
    let (status, words, _) = judge(
        vec![pod("t1", "Running", true), pod("t2", "Running", true)],
        vec![
            pdb("foo", Some(A), 1, (2, 1)),
            pdb("bar", Some(&[]), 1, (2, 1)),
        ],
    );
    assert_eq!(status, Status::Fails);
    assert_eq!(
        words,
        ["PodDisruptionBudgets default/foo and default/bar: t1, t2 on dirqual2 are selected by more than one PodDisruptionBudget: the eviction API refuses it (500 \"more than one PodDisruptionBudget\") and kubectl drain stops"]
    );
    let ev = eval(
        &drain("dirqual2"),
        &facts(
            vec![pod("t1", "Running", true)],
            vec![
                pdb("foo", Some(A), 1, (2, 1)),
                pdb("bar", Some(A), 1, (2, 1)),
            ],
        ),
    );
    assert_eq!(ev.verdict, Verdict::NoGo { blockers: 1 });
}

/// A status older than its spec: the API answers 429 "still being processed" (CANNOT TELL,
/// naming it, never GO); an unready pod the budget lets through is not held by it.
#[test]
fn eviction_go_a_budget_still_being_processed_cannot_tell() {
    let mut b = pdb("foo", Some(A), 1, (2, 1));
    b.generation = 3;
    b.observed_generation = 2;
    let (status, _, note) = judge(vec![pod("t1", "Running", true)], vec![b.clone()]);
    assert_eq!(status, Status::Unknown);
    assert_eq!(
        note,
        "the disruption controller has not processed the latest spec of PodDisruptionBudget default/foo (generation 3, status.observedGeneration 2; selects t1): the eviction API answers 429 until it has"
    );
    let ev = eval(
        &drain("dirqual2"),
        &facts(vec![pod("t1", "Running", true)], vec![b.clone()]),
    );
    assert!(matches!(ev.verdict, Verdict::CannotTell { .. }), "{ev:?}");
    deleted(vec![pod("t8", "Running", false)], vec![b]);
}

/// A negative `disruptionsAllowed` is refused (403 "pdb disruptions allowed is negative").
#[test]
fn eviction_go_negative_disruptions_allowed_is_refused() {
    refused(
        vec![pod("t1", "Running", true)],
        vec![pdb("foo", Some(A), -1, (0, 1))],
        "disruptionsAllowed -1",
    );
}

/// kubernetes#119732: `{}` selects every pod of the namespace; a null selector none; a
/// budget of another namespace never.
#[test]
fn eviction_go_empty_selector_selects_all_null_selector_none() {
    refused(
        vec![pod("t1", "Running", true)],
        vec![pdb("everything", Some(&[]), 0, (1, 1))],
        "default/everything",
    );
    deleted(
        vec![pod("t1", "Running", true)],
        vec![pdb("nothing", None, 0, (0, 0))],
    );
    let mut other = pdb("foo", Some(&[]), 0, (1, 1));
    other.namespace = "kube-system".into();
    deleted(vec![pod("t1", "Running", true)], vec![other]);
}

/// kubectl's drain filters: a mirror pod (the kubelet's annotation) is skipped, a pod whose
/// controller is a Node without it is judged like any pod (SPEC §17).
#[test]
fn drain_filters_a_mirror_pod_is_the_annotation_not_a_node_owner() {
    let mut node_owned = pod("static-web", "Running", true);
    node_owned.owners = vec![Owner {
        kind: "Node".into(),
        name: "dirqual2".into(),
        controller: true,
    }];
    refused(
        vec![node_owned.clone()],
        vec![pdb("foo", Some(A), 0, (1, 1))],
        "static-web",
    );
    let mut mirror = node_owned;
    mirror.mirror = true;
    deleted(vec![mirror], vec![pdb("foo", Some(A), 0, (1, 1))]);
}
