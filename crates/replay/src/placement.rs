//! The placement fixtures (SPEC §6 v0.4: Rook's mons and OSDs on at least 3 distinct nodes
//! when the cluster has 3 or more): dirqual with its Rook daemon pods moved.
//!
//! | name | what differs |
//! |---|---|
//! | `placement-stacked` | mon b's pod on dirqual1 beside mon a (Rook's `allowMultiplePerNode`), a fourth mon d Pending with no node; OSDs 0 and 1 on dirqual1, 2 and 3 on dirqual2 |
//! | `placement-two-nodes` | a 2-node cluster: dirqual3 and dirqual4 gone, mon c and every OSD on dirqual1 and dirqual2 |
//!
//! The pods keep Rook's names and labels (`app`, `ceph_daemon_type`, `ceph_daemon_id`,
//! `mon`, `rook_cluster`, ...): only `spec.nodeName` (and mon d's phase) move.

use serde_json::{json, Value};

use crate::builders::K8S_VERSION;
use crate::clusters::dirqual_builder;
use crate::fixture::Fixture;

pub fn placement_stacked() -> Fixture {
    let mut f = dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION);
    let mut d = None;
    for o in &mut f.objects {
        match pod_name(o).as_deref() {
            Some(n) if n.starts_with("rook-ceph-mon-a-") => d = Some(o.clone()),
            Some(n) if n.starts_with("rook-ceph-mon-b-") => move_to(o, "dirqual1"),
            Some(n) if n.starts_with("rook-ceph-mon-c-") => move_to(o, "dirqual2"),
            Some(n) if n.starts_with("rook-ceph-osd-0-") => move_to(o, "dirqual1"),
            Some(n) if n.starts_with("rook-ceph-osd-1-") => move_to(o, "dirqual1"),
            Some(n) if n.starts_with("rook-ceph-osd-2-") => move_to(o, "dirqual2"),
            Some(n) if n.starts_with("rook-ceph-osd-3-") => move_to(o, "dirqual2"),
            _ => {}
        }
    }
    // mon d: created by the operator, not scheduled (no node fits its anti-affinity).
    let mut d = d.expect("dirqual runs mon a");
    d["metadata"]["name"] = json!("rook-ceph-mon-d-84f6c7d9b-x7k2q");
    for (k, v) in [
        ("ceph_daemon_id", "d"),
        ("mon", "d"),
        ("app.kubernetes.io/instance", "d"),
        ("pod-template-hash", "84f6c7d9b"),
    ] {
        d["metadata"]["labels"][k] = json!(v);
    }
    d["metadata"]["ownerReferences"][0]["name"] = json!("rook-ceph-mon-d-84f6c7d9b");
    if let Some(spec) = d["spec"].as_object_mut() {
        spec.remove("nodeName");
    }
    d["status"] = json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
        "reason": "Unschedulable", "message": "0/4 nodes are available: 4 node(s) didn't match pod anti-affinity rules."}]});
    f.objects.push(d);
    f
}

pub fn placement_two_nodes() -> Fixture {
    let mut f = dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION);
    f.objects.retain(|o| {
        let node = o["kind"] == "Node"
            && matches!(
                o["metadata"]["name"].as_str(),
                Some("dirqual3" | "dirqual4")
            );
        !node
    });
    for o in &mut f.objects {
        match pod_name(o).as_deref() {
            Some(n) if n.starts_with("rook-ceph-mon-c-") => move_to(o, "dirqual2"),
            Some(n) if n.starts_with("rook-ceph-osd-2-") => move_to(o, "dirqual1"),
            Some(n) if n.starts_with("rook-ceph-osd-3-") => move_to(o, "dirqual2"),
            _ => {}
        }
    }
    f
}

fn pod_name(o: &Value) -> Option<String> {
    (o["kind"] == "Pod").then(|| o["metadata"]["name"].as_str().map(str::to_string))?
}

fn move_to(pod: &mut Value, node: &str) {
    pod["spec"]["nodeName"] = json!(node);
}
