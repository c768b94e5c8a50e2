//! Ceph placement (issue 34 item 5, SPEC §6 v0.4): Rook's mon and OSD pods as the API
//! server serves them (Rook's names and labels `app`, `ceph_daemon_id`, `mon`,
//! `rook_cluster`, `spec.nodeName`), through the real kubectl against the replay server.
//! dirqual's mons on 3 of 4 nodes and OSDs on 4 keep `ceph` present; mons stacked on 2
//! nodes (a fourth Pending, named) and OSDs on 2 degrade it naming each node's daemons; a
//! 2-node cluster holds and says why; a forbidden pod list or one of another kind is
//! unknown, never absent or present. The reads: two pod lists of rook-ceph by label
//! selector, with `limit`, and the nodes the run reads anyway.

use serde_json::{json, Value};

use snapbox::str;

use crate::bed_or_skip;
use crate::harness::text_snap;
use crate::support::*;

const SAYS: &str = "failureDomain: host is a promise the placement does not keep";

fn check(v: &Value, id: &str) -> Value {
    layer(v, "ceph")["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == id))
        .cloned()
        .unwrap_or_default()
}

/// Exactly one GET of each selector's pods in rook-ceph, with `limit`; no pod list of any
/// other namespace, none without a selector; the nodes listed once.
fn assert_minimal_reads(bed: &E2e) {
    assert_read_only(&bed.server);
    let audit = bed.server.audit();
    let pods: Vec<(String, String)> = audit
        .iter()
        .filter(|e| e.path.ends_with("/pods"))
        .map(|e| (e.path.clone(), e.query.clone()))
        .collect();
    for app in ["rook-ceph-mon", "rook-ceph-osd"] {
        let want = format!("labelSelector=app%3D{app}&limit=5000");
        let n = pods
            .iter()
            .filter(|(p, q)| p == "/api/v1/namespaces/rook-ceph/pods" && *q == want)
            .count();
        assert_eq!(n, 1, "{app}: {pods:#?}");
    }
    assert!(
        pods.iter()
            .all(|(p, q)| p.starts_with("/api/v1/namespaces/") && q.contains("labelSelector=")),
        "{pods:#?}"
    );
    let nodes = audit.iter().filter(|e| e.path == "/api/v1/nodes").count();
    assert_eq!(nodes, 1, "the nodes are read once: {audit:#?}");
}

#[test]
fn mons_on_three_of_four_nodes_and_osds_on_four_keep_ceph_present() {
    let bed = bed_or_skip!(E2e::dirqual());
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    assert_eq!(
        layer(&v, "ceph")["state"],
        "present",
        "{:#}",
        layer(&v, "ceph")
    );
    assert_eq!(
        check(&v, "ceph/mon-placement"),
        json!({"id": "ceph/mon-placement", "verdict": "true",
               "evidence": "mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)"})
    );
    assert_eq!(
        check(&v, "ceph/osd-placement")["evidence"],
        "OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2), dirqual4 (3)"
    );
    assert_minimal_reads(&bed);
}

#[test]
fn mons_and_osds_stacked_on_two_nodes_degrade_ceph_naming_each_nodes_daemons() {
    let bed = bed_or_skip!(E2e::new("placement-stacked", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    let l = layer(&v, "ceph");
    assert_eq!(l["state"], "degraded", "{l:#}");
    assert_eq!(
        check(&v, "ceph/mon-placement")["evidence"],
        format!("mons on 2 distinct nodes of 4: dirqual1 (a, b), dirqual2 (c); not scheduled yet (not counted): rook-ceph-mon-d-84f6c7d9b-x7k2q (d): {SAYS}")
    );
    assert_eq!(
        check(&v, "ceph/osd-placement")["evidence"],
        format!("OSDs on 2 distinct nodes of 4: dirqual1 (0, 1), dirqual2 (2, 3): {SAYS}")
    );
    assert_eq!(check(&v, "ceph/osd-placement")["verdict"], "false");
    // The whole plan: ceph to repair, never planned for install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: datalake, certs
repair: ceph
undecided: -

"#]],
    );
    assert_minimal_reads(&bed);
}

#[test]
fn a_two_node_cluster_holds_the_spread_and_says_why() {
    let bed = bed_or_skip!(E2e::new("placement-two-nodes", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    let mon = check(&v, "ceph/mon-placement");
    assert_eq!(mon["verdict"], "true", "{mon:#}");
    assert_eq!(
        mon["evidence"],
        "mons on 2 distinct nodes of 2: dirqual1 (a), dirqual2 (b, c); the cluster has 2 nodes, fewer than 3: the spread over 3 is not asked"
    );
    assert_eq!(
        check(&v, "ceph/osd-placement")["evidence"],
        "OSDs on 2 distinct nodes of 2: dirqual1 (0, 2), dirqual2 (1, 3); the cluster has 2 nodes, fewer than 3: the spread over 3 is not asked"
    );
}

#[test]
fn a_forbidden_or_wrong_kind_pod_list_is_unknown_never_absent_or_present() {
    let fault = "GET /api/v1/namespaces/rook-ceph/pods=403";
    let bed = bed_or_skip!(E2e::new("placement-stacked", &[fault]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    let l = layer(&v, "ceph");
    assert_eq!(l["state"], "unknown", "{l:#}");
    assert_eq!(
        check(&v, "ceph/mon-placement")["evidence"],
        "read of pods of rook-ceph with app=rook-ceph-mon failed: Forbidden"
    );
    // The whole plan: ceph never planned for install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: datalake, certs
repair: -
undecided: ceph

"#]],
    );
    drop(bed);
    let fault =
        "GET /api/v1/namespaces/rook-ceph/pods=serve:/api/v1/namespaces/rook-ceph/configmaps";
    let bed = bed_or_skip!(E2e::new("dirqual", &[fault]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    assert_eq!(
        layer(&v, "ceph")["state"],
        "unknown",
        "{:#}",
        layer(&v, "ceph")
    );
    let said = check(&v, "ceph/osd-placement")["evidence"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        said.starts_with("read of pods of rook-ceph with app=rook-ceph-osd failed: ")
            && said.contains("ConfigMapList"),
        "{said}"
    );
    // The whole plan: ceph never planned for install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: datalake, certs
repair: -
undecided: ceph

"#]],
    );
}
