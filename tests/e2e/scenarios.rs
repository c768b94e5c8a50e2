//! The SPEC's clusters, read by the real kubectl from the replay server, with the plugin
//! invoked as `kubectl nestor ...`.

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

/// SPEC §1, end to end: on the healthy 4-node prod cluster the plan installs exactly the
/// datalake and cert-manager, in that order, with no VM section anywhere.
#[test]
fn regression_incident_dirqual_plans_exactly_datalake_and_certs() {
    let bed = bed_or_skip!(E2e::dirqual());
    // The text, exactly: tests/e2e/golden/text-dirqual.txt (golden_text.rs). Here: no VM
    // section anywhere, and the same plan in the document.
    let text = bed.run(&["preview", "--no-input", "--no-color"]);
    text.code(0);
    text.stdout_snap(str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml

REAL (read live, not stored)
  nodes                dirqual1..4, 4/4 Ready
  k8s         present  5 checks hold
  cni         present  5 checks hold
  ceph        present  9 checks hold
  storage     present  3 checks hold
  monitoring  present  6 checks hold
  gitops      present  9 checks hold
  registry    present  2 checks hold
  dataops     present  7 checks hold
  datalake    absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs       absent   not found
    ✗ API group cert-manager.io not served

"#]]);

    let json = bed.run(&["preview", "--no-input", "-o", "json"]);
    json.code(0);
    let v = json.json();
    assert_eq!(plan_ids(&v, "install"), ["datalake", "certs"]);
    assert_eq!(plan_ids(&v, "repair"), Vec::<String>::new());
    assert_eq!(plan_ids(&v, "undecided"), Vec::<String>::new());
    assert!(v["real"].get("vms").is_none(), "{}", v["real"]);
    assert_eq!(v["plan"]["vmsToCreate"], serde_json::json!([]));
    assert_eq!(v["real"]["nodes"]["ready"], 4);
    assert_eq!(v["source"]["kind"], "live");
    assert_eq!(v["target"]["endpoint"], bed.server.url());
    assert_eq!(v["target"]["confirmedBy"], "endpoint");
    assert_eq!(v["target"]["rule"], "topology");
    for (id, state) in states(&v) {
        let want = if id == "datalake" || id == "certs" {
            "absent"
        } else {
            "present"
        };
        assert_eq!(state, want, "{id}");
    }

    let detailed = bed.run(&["preview", "--no-input", "--detailed-exitcode"]);
    detailed.code(2);

    // The reads really went through kubectl (its proxy) to the server: every list the catalog needs.
    for path in [
        "/api/v1/nodes",
        "/api/v1/namespaces",
        "/apis/storage.k8s.io/v1/storageclasses",
        // Workloads are listed only in the namespaces the catalog's checks name.
        "/apis/apps/v1/namespaces/kube-system/daemonsets",
        "/apis/apps/v1/namespaces/registry/deployments",
        "/apis/apps/v1/namespaces/registry/statefulsets",
        "/apis/apps/v1/namespaces/cert-manager/deployments",
        "/apis/ceph.rook.io/v1/cephclusters",
        "/apis/ceph.rook.io/v1/cephobjectstores",
        "/apis/postgresql.cnpg.io/v1/clusters",
    ] {
        let seen = bed.requests_to(path);
        assert_eq!(seen.len(), 3, "{path}: one list per preview: {seen:?}");
        assert!(seen.iter().all(
            |e| e.status == 200 && e.user_agent.as_deref().unwrap_or("").starts_with("kubectl")
        ));
    }
}

#[test]
fn dirqual_full_is_exit_0_with_detailed_exitcode() {
    let bed = bed_or_skip!(E2e::new("dirqual-full", &[]));
    let r = bed.run(&["preview", "--no-input", "--detailed-exitcode", "--no-color"]);
    r.code(0);
    r.stdout_has("PLAN: nothing to do");
    let v = bed
        .run(&["preview", "--no-input", "--detailed-exitcode", "-o", "json"])
        .json();
    assert_eq!(v["plan"]["empty"], true);
    assert!(states(&v).iter().all(|(_, s)| s == "present"), "{v}");
}

/// Ceph HEALTH_WARN and a node gone NotReady: both are "repair", never "install".
#[test]
fn degraded_ceph_and_a_notready_node_are_repair_never_install() {
    let bed = bed_or_skip!(E2e::new("degraded", &[]));
    let r = bed.run(&["preview", "--no-input", "--detailed-exitcode", "-o", "json"]);
    r.code(2);
    let v = r.json();
    assert_eq!(state_of(&v, "ceph"), "degraded");
    assert_eq!(state_of(&v, "k8s"), "degraded");
    // The whole plan: ceph and k8s to repair, datalake and certs to install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: datalake, certs
repair: k8s, ceph
undecided: -

"#]],
    );
    assert_eq!(v["real"]["nodes"]["ready"], 3);
    // The evidence names the node: k8s's whole evidence.
    text_snap(
        &serde_json::to_string_pretty(&layer(&v, "k8s")["evidence"]).unwrap_or_default(),
        str![[r#"
[
  "4 nodes registered",
  "3/4 declared nodes Ready: dirqual3 NotReady",
  "4 nodes with distinct InternalIPs",
  "3/3 Ready nodes schedulable (no pressure, cordon or unexpected taint)",
  "every APIService available (0 served by a Service)"
]
"#]],
    );
    // The text's `  repair k8s, ceph` line is in its whole snapshot.
    let text = bed.run(&["preview", "--no-input", "--no-color"]);
    text.stdout_snap(str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 2 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair k8s, ceph  repair in place; never reinstall over an existing layer
    k8s: k8s/nodes-ready fails
    ceph: ceph/health and 1 more check fail

REAL (read live, not stored)
  nodes                 dirqual1..4, 3/4 Ready
  k8s         degraded  1 of 5 checks fails
    ✗ 3/4 declared nodes Ready: dirqual3 NotReady
  cni         present   5 checks hold
  ceph        degraded  2 of 9 checks fail
    ✗ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN:
      OSD_DOWN (1 osds down), OSD_HOST_DOWN (1 host (1 osds) down), PG_DEGRADED
      (Degraded data redundancy: 2461/7383 objects degraded (33.333%), 97 pgs
      degraded, 97 pgs undersized) not on the benign list
      (RECENT_MGR_MODULE_CRASH)
    ✗ 3/4 Deployment rook-ceph/rook-ceph-osd-* rolled out; Deployment
      rook-ceph/rook-ceph-osd-2: rollout in progress: 0/1 updated available
  storage     present   3 checks hold
  monitoring  present   6 checks hold
  gitops      present   9 checks hold
  registry    present   2 checks hold
  dataops     present   7 checks hold
  datalake    absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs       absent    not found
    ✗ API group cert-manager.io not served

"#]]);
}

/// RBAC refuses the CephCluster list: ceph is unknown ("undecided"), never installed.
#[test]
fn forbidden_cephclusters_is_unknown_never_install() {
    let bed = bed_or_skip!(E2e::new(
        "dirqual",
        &["GET /apis/ceph.rook.io/v1/cephclusters=403"]
    ));
    let r = bed.run(&["preview", "--no-input", "--detailed-exitcode", "-o", "json"]);
    r.code(2);
    let v = r.json();
    assert_eq!(state_of(&v, "ceph"), "unknown");
    assert_eq!(plan_ids(&v, "undecided"), ["ceph"]);
    assert_eq!(plan_ids(&v, "install"), ["datalake", "certs"]);
    // ceph's whole evidence: the list Forbidden.
    text_snap(
        &serde_json::to_string_pretty(&layer(&v, "ceph")["evidence"]).unwrap_or_default(),
        str![[r#"
[
  "API group ceph.rook.io served",
  "read of cephclusters.ceph.rook.io failed: Forbidden",
  "3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a, rook-ceph-mon-b, rook-ceph-mon-c)",
  "4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0, rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)",
  "ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty",
  "no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)",
  "mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)",
  "OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2), dirqual4 (3)"
]
"#]],
    );
    assert!(bed
        .requests_to("/apis/ceph.rook.io/v1/cephclusters")
        .iter()
        .all(|e| e.status == 403));
}

#[test]
fn target_through_kubectl_names_rule_endpoint_and_nodes() {
    let bed = bed_or_skip!(E2e::dirqual());
    let r = run(&bed.through_kubectl("nestor", &["target", "-o", "json"]));
    r.code(0);
    let v = r.json();
    assert_eq!(v["kind"], "Target");
    assert_eq!(v["rule"], "topology");
    assert_eq!(v["context"], "replay");
    assert_eq!(v["endpoint"], bed.server.url());
    assert_eq!(v["endpointMatches"], true);
    assert_eq!(v["reachable"], true);
    let nodes = v["nodes"].as_array().cloned().unwrap_or_default();
    assert_eq!(nodes.len(), 4);
    assert_eq!(nodes[0]["name"], "dirqual1");
    assert_eq!(nodes[0]["roles"], serde_json::json!(["control-plane"]));
    assert_eq!(nodes[0]["internalIp"], "10.67.2.11");
    assert!(nodes.iter().all(|n| n["ready"] == true));
    let text = run(&bed.through_kubectl("nestor", &["target", "--no-color"]));
    text.code(0);
    text.stdout_snap(str![[r#"
stack       dirqual (prod)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)
context     replay
endpoint    http://127.0.0.1:PORT (matches the topology)
nodes       dirqual1..4, 4/4 Ready
  NAME      READY  ROLES          INTERNAL-IP  VERSION
  dirqual1  Ready  control-plane  10.67.2.11   v1.31.4
  dirqual2  Ready  <none>         10.67.2.12   v1.31.4
  dirqual3  Ready  <none>         10.67.2.13   v1.31.4
  dirqual4  Ready  <none>         10.67.2.14   v1.31.4

"#]]);
    // `target` reads the nodes and nothing else.
    let lists: Vec<String> = bed
        .server
        .audit()
        .into_iter()
        .filter(|e| e.query.contains("limit="))
        .map(|e| e.path)
        .collect();
    assert!(lists.iter().all(|p| p == "/api/v1/nodes"), "{lists:?}");
}

/// `discover --save` writes exactly the file named; `preview --snapshot` replays it
/// without a single request to the server, and plans what the live preview plans.
#[test]
fn discover_save_then_preview_snapshot_reads_nothing() {
    let bed = bed_or_skip!(E2e::dirqual());
    let snap = bed.tmp.path().join("dirqual.snapshot.json");
    let snap_arg = snap.to_str().unwrap_or_default();
    let before = bed.tree();
    let r = bed.run(&["discover", "--save", snap_arg]);
    r.code(0);
    r.stderr_has("snapshot saved to");
    let after = bed.tree();
    let added: Vec<_> = after
        .iter()
        .filter(|e| !before.contains(e))
        .map(|(p, _)| p.clone())
        .collect();
    assert_eq!(
        added,
        std::slice::from_ref(&snap),
        "discover --save writes one file"
    );
    assert!(before.iter().all(|e| after.contains(e)), "nothing changed");

    let live = bed.run(&["preview", "--no-input", "-o", "json"]).json();
    let requests = bed.server.audit().len();
    let replay = bed.run(&["preview", "--snapshot", snap_arg, "-o", "json"]);
    replay.code(0);
    let v = replay.json();
    assert_eq!(v["source"]["kind"], "snapshot");
    assert_eq!(v["plan"], live["plan"]);
    assert_eq!(v["real"]["layers"], live["real"]["layers"]);
    assert_eq!(
        bed.server.audit().len(),
        requests,
        "a replay sends no request: {:?}",
        &bed.server.audit()[requests..]
    );
}
