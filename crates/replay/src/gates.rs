//! `dirqual-gates`: the healthy 4-node dirqual cluster plus what `gate drain` reads, shaped
//! as the API server and the controllers write it: PodDisruptionBudgets with the status the
//! disruption controller computes (CNPG's `pg-primary` budget at 0 allowed disruptions,
//! its replicas' `pg` budget, Rook's `rook-ceph-mon-pdb` and `rook-ceph-osd`), the pods of
//! each node with `spec.nodeName` and their controller, the etcd mirror pod. Only this
//! fixture serves `policy/v1` and PersistentVolumes, so every other fixture is unchanged.
//!
//! Cilium (1.18.2) and Rook (1.16.4) are shaped as upstream writes them (`versions`).
//! `dirqual-half-upgraded`: a Cilium upgrade stopped after the agent (1.19.1, operator still
//! 1.18.2) and a Rook upgrade stopped after mon a.
//!
//! Layout: dirqual1 control plane (etcd, mon a, osd 0); dirqual2 (mon b, osd 1, pg-2);
//! dirqual3 (mon c, osd 2, pg-1: the primary); dirqual4 (osd 3, pg-3). CephBlockPool
//! replicapool (size 3, failureDomain host) keeps three OSD hosts whichever node goes.
//!
//! `dirqual-gates-ec`: the same plus CephObjectStore rook-ceph/s3 whose data pool is
//! erasure-coded 2+2 across hosts: its chunks need all four OSD hosts, so draining any of
//! them is NO-GO (`drain-osd-hosts`) while Ceph is HEALTH_OK and every budget allows one.

use serde_json::{json, Value};

use crate::builders::{pod, K8S_VERSION, T_CEPH, T_DATA};
use crate::clusters::dirqual_builder;
use crate::fixture::{Fixture, ResourceType};
use crate::versions::{one_version, shape, CILIUM, ROOK};

fn kind(group: &str, kind: &str, plural: &str, namespaced: bool) -> ResourceType {
    ResourceType {
        group: group.into(),
        version: "v1".into(),
        kind: kind.into(),
        plural: plural.into(),
        singular: kind.to_ascii_lowercase(),
        namespaced,
        verbs: crate::fixture::ALL_VERBS
            .iter()
            .map(|v| v.to_string())
            .collect(),
        short_names: vec![],
        categories: vec![],
        printer_columns: vec![],
        subresources: vec!["status".into()],
    }
}

/// A PodDisruptionBudget with the status the disruption controller writes.
pub fn pdb(ns: &str, name: &str, spec: Value, healthy: i64, desired: i64, expected: i64) -> Value {
    json!({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": ns, "creationTimestamp": T_DATA, "generation": 1},
        "spec": spec,
        "status": {
            "observedGeneration": 1,
            "disruptionsAllowed": (healthy - desired).max(0),
            "currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected,
            "conditions": [{
                "type": "DisruptionAllowed",
                "status": if healthy > desired { "True" } else { "False" },
                "reason": if healthy > desired { "SufficientPods" } else { "InsufficientPods" },
                "message": "", "observedGeneration": 1, "lastTransitionTime": T_DATA
            }]
        }
    })
}

pub fn dirqual_gates() -> Fixture {
    let mut b = dirqual_builder(&[], "HEALTH_OK");
    b.resources.push(kind(
        "policy",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        true,
    ));
    b.resources
        .push(kind("", "PersistentVolume", "persistentvolumes", false));
    // etcd: one member, the control plane's mirror pod.
    b.obj(pod(
        "kube-system",
        "etcd-dirqual1",
        "dirqual1",
        json!({"component": "etcd", "tier": "control-plane"}),
        ("Node", "dirqual1"),
        "registry.k8s.io/etcd:3.5.16-0",
    ));
    // Rook's mon and OSD pods: dirqual_builder's (mons on dirqual1..3, an OSD per node).
    let pg = "ghcr.io/cloudnative-pg/postgresql:16.6";
    for (name, node, role) in [
        ("pg-1", "dirqual3", "primary"),
        ("pg-2", "dirqual2", "replica"),
        ("pg-3", "dirqual4", "replica"),
    ] {
        b.obj(pod(
            "dataops",
            name,
            node,
            json!({"cnpg.io/cluster": "pg", "cnpg.io/instanceName": name, "cnpg.io/instanceRole": role, "role": role, "cnpg.io/podRole": "instance"}),
            ("Cluster", "pg"),
            pg,
        ));
    }
    // CNPG: the primary's budget (minAvailable 1 of 1: 0 disruptions) and the replicas'.
    b.obj(pdb(
        "dataops",
        "pg-primary",
        json!({"minAvailable": 1, "selector": {"matchLabels": {"cnpg.io/cluster": "pg", "cnpg.io/instanceRole": "primary"}}}),
        1, 1, 1,
    ));
    b.obj(pdb(
        "dataops",
        "pg",
        json!({"minAvailable": 1, "selector": {"matchLabels": {"cnpg.io/cluster": "pg", "cnpg.io/instanceRole": "replica"}}}),
        2, 1, 2,
    ));
    // Rook's managed budgets: at most one mon and one OSD down.
    b.obj(pdb(
        "rook-ceph",
        "rook-ceph-mon-pdb",
        json!({"maxUnavailable": 1, "selector": {"matchLabels": {"app": "rook-ceph-mon"}}}),
        3,
        2,
        3,
    ));
    b.obj(pdb(
        "rook-ceph",
        "rook-ceph-osd",
        json!({"maxUnavailable": 1, "selector": {"matchLabels": {"app": "rook-ceph-osd"}}}),
        4,
        3,
        4,
    ));
    let mut f = b.finish(K8S_VERSION);
    // Cilium and Rook as their charts and operators write them, on one version each.
    one_version(&mut f);
    f
}

/// `dirqual-gates` plus an object store whose erasure-coded data pool needs every OSD host.
pub fn dirqual_gates_ec() -> Fixture {
    let mut f = dirqual_gates();
    f.objects.push(crate::builders::custom(
        "ceph.rook.io/v1",
        "CephObjectStore",
        Some("rook-ceph"),
        "s3",
        json!({
            "metadataPool": {"failureDomain": "host", "replicated": {"size": 3}},
            "dataPool": {"failureDomain": "host", "erasureCoded": {"dataChunks": 2, "codingChunks": 2}},
            "preservePoolsOnDelete": true,
            "gateway": {"port": 80, "instances": 1}
        }),
        json!({"phase": "Ready", "info": {"endpoint": "http://rook-ceph-rgw-s3.rook-ceph.svc:80"}, "observedGeneration": 1}),
        T_CEPH,
    ));
    f
}

/// `dirqual-half-upgraded`: `dirqual-gates` with the agent at 1.19.1 while the operator
/// is still at 1.18.2, and Rook's operator and mon a at 1.17.0 while the rest is at 1.16.4.
pub fn dirqual_half_upgraded() -> Fixture {
    let mut f = dirqual_gates();
    shape(&mut f.objects, "v1.19.1", CILIUM, "v1.17.0", &|n| {
        if n == "rook-ceph-mon-a" {
            "v1.17.0"
        } else {
            ROOK
        }
        .to_string()
    });
    f
}
