//! `gate drain` gives the verdict the real eviction API would (SPEC §17; kubernetes
//! `pkg/registry/core/pod/storage/eviction.go` and its `eviction_test.go`), through the real
//! kubectl against the replay server: `dirqual-gates` with one object changed per case, as
//! the API server and the disruption controller write it. dirqual4 runs CNPG's replica
//! `dataops/pg-3`, selected by the replicas' budget `dataops/pg`.
//!
//! - two budgets selecting one pod: NO-GO naming both (the API answers 500); this was a GO;
//! - a budget whose status predates its spec: CANNOT TELL naming it (429), never GO; this
//!   was a GO;
//! - a Pending pod, a pod being deleted, an unready pod under `AlwaysAllow`: their budget
//!   at 0 does not hold them (GO); these were NO-GO;
//! - a pod whose controller is a Node but without the kubelet's mirror annotation is judged
//!   like any pod (NO-GO on its budget at 0); it was skipped as a mirror pod.

use serde_json::{json, Value};

use crate::support::*;

fn find<'a>(objects: &'a mut [Value], kind: &str, ns: &str, name: &str) -> &'a mut Value {
    objects
        .iter_mut()
        .find(|o| {
            o["kind"] == kind && o["metadata"]["namespace"] == ns && o["metadata"]["name"] == name
        })
        .unwrap_or_else(|| panic!("dirqual-gates has no {kind} {ns}/{name}"))
}

/// `gate drain dirqual4 --no-ssh -o json` on `dirqual-gates` changed by `change`.
fn drain4(change: impl FnOnce(&mut Vec<Value>), code: i32) -> Option<Value> {
    gate_on(change, &["drain", "dirqual4", "--no-ssh"], code)
}

fn rule(v: &Value, id: &str) -> Value {
    rule_of(v, id)
}

/// pg-3 in `phase` under its budget at 0.
fn with_phase(objects: &mut [Value], phase: &str) {
    replicas_budget_at_zero(objects);
    find(objects, "Pod", "dataops", "pg-3")["status"]["phase"] = json!(phase);
}

/// The replicas' budget with 0 allowed disruptions (one replica down already).
fn replicas_budget_at_zero(objects: &mut [Value]) {
    let b = find(objects, "PodDisruptionBudget", "dataops", "pg");
    b["status"]["disruptionsAllowed"] = json!(0);
    b["status"]["currentHealthy"] = json!(1);
    // Below its desired count: an unready pod is not let through on a healthy budget, so
    // each case reaches the rule it is about.
    b["status"]["desiredHealthy"] = json!(2);
}

macro_rules! drain4_or_skip {
    ($change:expr, $code:expr) => {
        match drain4($change, $code) {
            Some(v) => v,
            None => {
                eprintln!("skipped: no real kubectl");
                return;
            }
        }
    };
}

#[test]
fn eviction_go_a_pod_of_two_budgets_is_no_go_naming_both() {
    let v = drain4_or_skip!(
        |o| o.push(json!({
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "dataops-all", "namespace": "dataops", "generation": 1,
                         "creationTimestamp": "2026-11-30T08:00:00Z"},
            "spec": {"maxUnavailable": 1, "selector": {}},
            "status": {"observedGeneration": 1, "disruptionsAllowed": 1, "currentHealthy": 3,
                       "desiredHealthy": 2, "expectedPods": 3}
        })),
        2
    );
    let r = rule(&v, "drain-pdb-blocks");
    assert_eq!(r["status"], "fails", "{r}");
    let f = &r["findings"][0];
    assert_eq!(
        f["subject"], "PodDisruptionBudgets dataops/dataops-all and dataops/pg",
        "{r}"
    );
    assert_eq!(
        f["evidence"],
        "pg-3 on dirqual4 is selected by more than one PodDisruptionBudget: the eviction API refuses it (500 \"more than one PodDisruptionBudget\") and kubectl drain stops",
        "{r}"
    );
    assert_eq!(v["verdict"]["result"], "NO-GO", "{v}");
}

#[test]
fn eviction_go_a_budget_still_being_processed_cannot_tell_never_go() {
    let v = drain4_or_skip!(
        |o| {
            let b = find(o, "PodDisruptionBudget", "dataops", "pg");
            b["metadata"]["generation"] = json!(2);
        },
        5
    );
    assert_eq!(v["verdict"]["result"], "CANNOT TELL", "{v}");
    assert_eq!(
        v["verdict"]["undecided"],
        json!(["drain-pdb-blocks"]),
        "{v}"
    );
    let r = rule(&v, "drain-pdb-blocks");
    assert_eq!(
        r["note"],
        "the disruption controller has not processed the latest spec of PodDisruptionBudget dataops/pg (generation 2, status.observedGeneration 1; selects pg-3): the eviction API answers 429 until it has",
        "{r}"
    );
}

#[test]
fn test_eviction_matching_pdbs_with_no_disruptions_allowed_pod_running_is_no_go() {
    let v = drain4_or_skip!(|o| replicas_budget_at_zero(o), 2);
    let r = rule(&v, "drain-pdb-blocks");
    assert_eq!(
        r["findings"][0]["subject"], "PodDisruptionBudget dataops/pg",
        "{r}"
    );
}

#[test]
fn test_eviction_matching_pdbs_with_no_disruptions_allowed_pod_pending_is_go() {
    let v = drain4_or_skip!(
        |o| {
            replicas_budget_at_zero(o);
            let p = find(o, "Pod", "dataops", "pg-3");
            p["status"] = json!({"phase": "Pending", "conditions": [
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-30T08:00:00Z"}]});
        },
        0
    );
    assert_eq!(rule(&v, "drain-pdb-blocks")["status"], "holds", "{v}");
}

#[test]
fn test_eviction_ignore_pdb_pod_terminating_is_go() {
    let v = drain4_or_skip!(
        |o| {
            replicas_budget_at_zero(o);
            let p = find(o, "Pod", "dataops", "pg-3");
            p["metadata"]["deletionTimestamp"] = json!("2026-12-01T21:41:00Z");
            p["metadata"]["deletionGracePeriodSeconds"] = json!(30);
        },
        0
    );
    assert_eq!(rule(&v, "drain-pdb-blocks")["status"], "holds", "{v}");
}

/// `unhealthyPodEvictionPolicy: AlwaysAllow` lets an unready running pod go while its
/// budget is at 0; without it (IfHealthyBudget) the same pod of an unhealthy budget is held.
#[test]
fn eviction_go_always_allow_lets_an_unready_pod_go() {
    let unready = |o: &mut Vec<Value>| {
        replicas_budget_at_zero(o);
        let p = find(o, "Pod", "dataops", "pg-3");
        p["status"]["conditions"] = json!([{"type": "Ready", "status": "False",
            "reason": "ContainersNotReady", "lastTransitionTime": "2026-12-01T21:30:00Z"}]);
        let b = find(o, "PodDisruptionBudget", "dataops", "pg");
        b["status"]["desiredHealthy"] = json!(2);
    };
    let v = drain4_or_skip!(
        |o| {
            unready(o);
            let b = find(o, "PodDisruptionBudget", "dataops", "pg");
            b["spec"]["unhealthyPodEvictionPolicy"] = json!("AlwaysAllow");
        },
        0
    );
    assert_eq!(rule(&v, "drain-pdb-blocks")["status"], "holds", "{v}");
    let v = drain4_or_skip!(unready, 2);
    assert_eq!(rule(&v, "drain-pdb-blocks")["status"], "fails", "{v}");
}

/// A pod whose controller is a Node but which has no `kubernetes.io/config.mirror`
/// annotation is not a mirror pod: kubectl drain evicts it, into its budget at 0.
#[test]
fn a_node_owned_pod_without_the_mirror_annotation_is_judged_like_any_pod() {
    let v = drain4_or_skip!(
        |o| {
            replicas_budget_at_zero(o);
            let p = find(o, "Pod", "dataops", "pg-3");
            p["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "Node",
                "name": "dirqual4", "uid": "uid-dirqual4", "controller": true}]);
        },
        2
    );
    let r = rule(&v, "drain-pdb-blocks");
    assert_eq!(
        r["findings"][0]["subject"], "PodDisruptionBudget dataops/pg",
        "{r}"
    );
}

/// SPEC §17: the only control-plane node drains with a warning, not a blocker (a drain
/// leaves its static pods running; kubeadm's upgrade drains it the same way). v0.4 said
/// NO-GO here while `gate upgrade kubernetes` said GO for the upgrade that drains it.
#[test]
fn the_only_control_plane_node_drains_with_a_warning() {
    let v = drain4_or_skip!(|_| {}, 0);
    assert_eq!(v["verdict"]["result"], "GO", "{v}");
    let Some(bed) = E2e::new("dirqual-gates", &[]) else {
        return;
    };
    let r = bed.run(&[
        "gate",
        "drain",
        "dirqual1",
        "--no-ssh",
        "--no-input",
        "-o",
        "json",
    ]);
    r.code(0);
    let v = r.json();
    assert_eq!(v["verdict"]["result"], "GO", "{v}");
    let single = rule(&v, "drain-single-control-plane");
    assert_eq!(single["status"], "fails", "{single}");
    assert_eq!(single["severity"], "warning", "{single}");
    assert_eq!(
        single["findings"][0]["evidence"],
        "dirqual1 is the cluster's only control-plane node: a drain leaves its static pods (kube-apiserver, etcd) running, but the API is unavailable while dirqual1 restarts",
        "{single}"
    );
    assert_eq!(rule(&v, "drain-control-plane")["status"], "holds", "{v}");
    assert_eq!(rule(&v, "drain-etcd-majority")["status"], "holds", "{v}");
    assert_read_only(&bed.server);
}

/// kubectl's `daemonSetFilter`: a DaemonSet pod whose DaemonSet no longer exists is refused
/// without `--force`, then deleted for good: a warning naming it (v0.4 was silent).
#[test]
fn drain_filters_an_orphaned_daemonset_pod_is_a_warning() {
    let v = drain4_or_skip!(
        |o| o.push(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "old-agent-x7k2p", "namespace": "kube-system",
                         "creationTimestamp": "2026-11-30T08:00:00Z",
                         "labels": {"app": "old-agent"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                             "name": "old-agent", "uid": "uid-old-agent", "controller": true,
                             "blockOwnerDeletion": true}]},
            "spec": {"nodeName": "dirqual4", "containers": [{"name": "agent",
                     "image": "registry.example/old-agent:1.0"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
        })),
        0
    );
    let r = rule(&v, "drain-unmanaged-pods");
    assert_eq!(r["status"], "fails", "{r}");
    assert_eq!(r["severity"], "warning", "{r}");
    assert_eq!(
        r["findings"][0]["subject"], "pod kube-system/old-agent-x7k2p",
        "{r}"
    );
    assert_eq!(
        r["findings"][0]["evidence"],
        "its DaemonSet kube-system/old-agent no longer exists: kubectl drain refuses it without --force, then deletes it for good",
        "{r}"
    );
}

/// SPEC §17: a single-instance CloudNativePG cluster has no replica to promote: the words
/// say so (v0.4 told the operator to `kubectl cnpg promote` a replica it does not have).
#[test]
fn a_single_instance_cnpg_cluster_is_not_told_to_promote() {
    let v = drain4_or_skip!(
        |o| {
            let c = find(o, "Cluster", "dataops", "pg");
            c["spec"]["instances"] = json!(1);
            c["status"]["instancesStatus"] = json!({"healthy": ["pg-3"]});
            c["status"]["currentPrimary"] = json!("pg-3");
            let p = find(o, "Pod", "dataops", "pg-3");
            p["metadata"]["labels"]["cnpg.io/instanceRole"] = json!("primary");
            p["metadata"]["labels"]["role"] = json!("primary");
        },
        2
    );
    let r = rule(&v, "drain-pdb-blocks");
    let f = &r["findings"][0];
    assert_eq!(
        f["subject"], "PodDisruptionBudget dataops/pg-primary",
        "{r}"
    );
    assert_eq!(
        f["clears"],
        "its only instance goes down with the node: add an instance (spec.instances: 2), or declare the node maintenance window CNPG reads (spec.nodeMaintenanceWindow.inProgress: true)",
        "{r}"
    );
}

/// The rest of `eviction_test.go`'s cases that a cluster's objects express, each on
/// dirqual4's replica `dataops/pg-3` and its budget `dataops/pg`, through the real kubectl:
/// the change to the fixture, and whether `drain-pdb-blocks` holds (the eviction would go
/// through) or fails (it would be refused).
#[test]
fn eviction_test_go_cases_through_the_real_kubectl() {
    type Change = fn(&mut Vec<Value>);
    let cases: [(&str, Change, &str); 8] = [
        // TestEviction "matching pdbs with no disruptions allowed, pod succeeded" / "failed".
        ("pod succeeded", |o| with_phase(o, "Succeeded"), "holds"),
        ("pod failed", |o| with_phase(o, "Failed"), "holds"),
        // TestEviction "matching pdbs with disruptions allowed" (the fixture as it is).
        ("disruptions allowed", |_| {}, "holds"),
        // TestEviction "non-matching pdbs": the budget at 0 selects other labels.
        (
            "non-matching pdbs",
            |o| {
                replicas_budget_at_zero(o);
                find(o, "PodDisruptionBudget", "dataops", "pg")["spec"]["selector"] =
                    json!({"matchLabels": {"cnpg.io/cluster": "other"}});
            },
            "holds",
        ),
        // TestEvictionIngorePDB "pod running, pod unhealthy, unhealthy pod ours":
        // currentHealthy >= desiredHealthy > 0 lets the unready pod go.
        (
            "unhealthy pod ours",
            |o| {
                let b = find(o, "PodDisruptionBudget", "dataops", "pg");
                b["status"] = json!({"observedGeneration": 1, "disruptionsAllowed": 0,
                "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 3});
                find(o, "Pod", "dataops", "pg-3")["status"]["conditions"] =
                    json!([{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}]);
            },
            "holds",
        ),
        // TestEvictionIngorePDB "pod running, pod healthy, unhealthy pod not ours".
        (
            "healthy pod, unhealthy pod not ours",
            |o| {
                find(o, "PodDisruptionBudget", "dataops", "pg")["status"] = json!({
                "observedGeneration": 1, "disruptionsAllowed": 0,
                "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 3});
            },
            "fails",
        ),
        // eviction.go: a negative count is refused (403).
        (
            "negative disruptions allowed",
            |o| {
                find(o, "PodDisruptionBudget", "dataops", "pg")["status"]["disruptionsAllowed"] =
                    json!(-1);
            },
            "fails",
        ),
        // A null selector selects nothing (eviction.go, kubernetes#119732).
        (
            "null selector",
            |o| {
                replicas_budget_at_zero(o);
                find(o, "PodDisruptionBudget", "dataops", "pg")["spec"]["selector"] = json!(null);
            },
            "holds",
        ),
    ];
    let code = |status: &str| if status == "holds" { 0 } else { 2 };
    for (name, change, want) in cases {
        let Some(v) = drain4(change, code(want)) else {
            return;
        };
        assert_eq!(rule(&v, "drain-pdb-blocks")["status"], want, "{name}: {v}");
    }
}
