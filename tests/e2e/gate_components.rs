//! `gate upgrade cilium|rook VERSION` through the real kubectl against the replay server
//! (SPEC §17, issue 33), and the platform versions `gate upgrade kubernetes` now reads.
//! `dirqual-gates` runs Cilium 1.18.2 (agent DaemonSet and operator Deployment as the Cilium
//! chart writes them, images pinned by tag and digest) and Rook 1.16.4 (the operator's image,
//! the mon/mgr/OSD Deployments' `rook-version` labels) on Kubernetes 1.31.4;
//! `dirqual-half-upgraded` is the same cluster mid-upgrade (agent 1.19.1, operator 1.18.2;
//! Rook's operator and mon a at 1.17.0). Each rule in its GO and NO-GO form, a forbidden
//! read of each blocker's read (exit 5, never GO), usage errors (exit 1), only GETs.

use crate::bed_or_skip;
use crate::gate::stable;
use crate::support::*;

/// `gate upgrade WHAT VERSION` with the dirqual stack ending at WHAT's layer (`cni`, `ceph`):
/// these tests are the component's own rules; the layers after it (`*-layers-after-present`,
/// which then holds reading nothing) are `gate_layers.rs`'s.
fn upgrade(bed: &E2e, what: &str, version: &str, json: bool) -> Outcome {
    let layers = match what {
        "cilium" => "[k8s, cni]",
        _ => "[k8s, cni, ceph]",
    };
    bed.write_stack(
        "dirqual",
        &dirqual_topology(&bed.server.url()).replace(LAYERS, layers),
    );
    let mut args = vec!["gate", "upgrade", what, version, "--no-input"];
    if json {
        args.extend(["-o", "json"]);
    }
    bed.run(&args)
}

/// Each rule's status in the `Gate` document, in table order.
fn statuses(r: &Outcome) -> Vec<(String, String)> {
    let v = r.json();
    crate::doc_schema::check(&v);
    v["rules"]
        .as_array()
        .map(|rules| {
            rules
                .iter()
                .map(|r| {
                    (
                        r["rule"].as_str().unwrap_or_default().to_string(),
                        r["status"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn pairs(want: &[(&str, &str)]) -> Vec<(String, String)> {
    want.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

pub const CILIUM_PATCH_GO: &str =
    "gate upgrade cilium 1.18.5 on SERVER (context replay, rule: topology)
GO
holds:
  cilium-one-minor  1.18.2 -> 1.18.5: one minor at most
  cilium-one-version  2 workloads on one version
  cilium-present  agent 4/4, operator 2/2 pods ready
  cilium-k8s-range  1.18 supports 1.30 to 1.33; the control plane runs 1.31.4
  cilium-kubelet-range  1.18 supports 1.30 to 1.33; the 4 kubelets run v1.31.4
  cilium-layers-after-present  no layer after cni in the stack
";

pub const CILIUM_119_NO_GO: &str =
    "gate upgrade cilium 1.19.0 on SERVER (context replay, rule: topology)
NO-GO: 2 blockers
blockers:
  cilium-k8s-range  pod kube-system/kube-apiserver-dirqual1
      cilium 1.19 supports Kubernetes 1.32 to 1.35; this API server runs 1.31.4
      (Cilium 1.19: Kubernetes Compatibility (1.32, 1.33, 1.34, 1.35))
      clears: move Kubernetes into 1.32..1.35 first, or pick a cilium release
      that supports 1.31
  cilium-kubelet-range  nodes dirqual1, dirqual2, dirqual3, dirqual4
      cilium 1.19 supports Kubernetes 1.32 to 1.35; the kubelet runs 1.31.4
      (Cilium 1.19: Kubernetes Compatibility (1.32, 1.33, 1.34, 1.35))
      clears: move the kubelet into 1.32..1.35 first, or pick a cilium release
      that supports 1.31
holds:
  cilium-one-minor  1.18.2 -> 1.19.0: one minor at most
  cilium-one-version  2 workloads on one version
  cilium-present  agent 4/4, operator 2/2 pods ready
  cilium-layers-after-present  no layer after cni in the stack
";

/// A patch of the running minor whose range holds the cluster: GO, every rule holding.
/// The next minor, 1.19, is e2e tested on 1.32 to 1.35 only: NO-GO on its range alone.
#[test]
fn gate_upgrade_cilium_go_and_its_range_no_go() {
    let bed = bed_or_skip!(E2e::new("dirqual-gates", &[]));
    let r = upgrade(&bed, "cilium", "1.18.5", false);
    assert_eq!(stable(&r), CILIUM_PATCH_GO, "{r:?}");
    r.code(0);
    let r = upgrade(&bed, "cilium", "1.19", false);
    assert_eq!(stable(&r), CILIUM_119_NO_GO, "{r:?}");
    r.code(2);
    assert_read_only(&bed.server);
    // Exactly the component reads reached the API server: never cilium-envoy, never a
    // cluster-wide workload list.
    let paths: std::collections::BTreeSet<String> =
        bed.server.audit().into_iter().map(|e| e.path).collect();
    assert!(
        paths.iter().all(|p| !p.contains("cilium-envoy")
            && p != "/apis/apps/v1/daemonsets"
            && p != "/apis/apps/v1/deployments"),
        "{paths:?}"
    );
    assert!(
        paths.contains("/apis/apps/v1/namespaces/kube-system/daemonsets/cilium"),
        "{paths:?}"
    );
}

/// Skipping a minor is a blocker; the table has no verified row for 1.20, so its range
/// rule is undecided beside it (NO-GO wins).
#[test]
fn gate_upgrade_cilium_skipping_a_minor_is_no_go() {
    let bed = bed_or_skip!(E2e::new("dirqual-gates", &[]));
    let r = upgrade(&bed, "cilium", "v1.20.0", true);
    r.code(2);
    assert_eq!(
        statuses(&r),
        pairs(&[
            ("cilium-one-minor", "fails"),
            ("cilium-one-version", "holds"),
            ("cilium-present", "holds"),
            ("cilium-k8s-range", "unknown"),
            ("cilium-kubelet-range", "unknown"),
            ("cilium-layers-after-present", "holds"),
        ])
    );
    let v = r.json();
    assert_eq!(
        v["rules"][0]["findings"][0]["evidence"],
        "cilium runs 1.18.2; 1.20.0 skips 1.19 (one minor at a time)",
        "{v}"
    );
    assert_eq!(
        v["verdict"]["undecided"],
        serde_json::json!(["cilium-k8s-range", "cilium-kubelet-range"]),
        "{v}"
    );
    assert_read_only(&bed.server);
}

/// The agent rolled to 1.19.1 while the operator still runs 1.18.2: an upgrade half done
/// is a blocker, each workload named with its version.
#[test]
fn gate_upgrade_cilium_half_done_is_no_go() {
    let bed = bed_or_skip!(E2e::new("dirqual-half-upgraded", &[]));
    let r = upgrade(&bed, "cilium", "1.19.1", false);
    r.code(2);
    let out = stable(&r);
    let blocker = out
        .split("blockers:\n")
        .nth(1)
        .and_then(|s| s.split("  cilium-k8s-range").next())
        .unwrap_or_default();
    assert_eq!(
        blocker,
        "  cilium-one-version  cilium
      2 versions run now: DaemonSet kube-system/cilium (cilium-agent) 1.19.1,
      Deployment kube-system/cilium-operator (cilium-operator) 1.18.2
      clears: finish the rollout in progress: agent and operator on one version
      first
",
        "{r:?}"
    );
    assert_read_only(&bed.server);
}

/// No operator Deployment (404: the cluster's answer) is "not installed", a blocker; a
/// forbidden agent read leaves every rule that reads the images undecided: exit 5.
#[test]
fn gate_upgrade_cilium_absent_is_no_go_and_forbidden_cannot_tell() {
    let bed = bed_or_skip!(E2e::new(
        "dirqual-gates",
        &["GET /apis/apps/v1/namespaces/kube-system/deployments/cilium-operator=404"]
    ));
    let r = upgrade(&bed, "cilium", "1.18.5", true);
    r.code(2);
    let v = r.json();
    assert_eq!(
        v["rules"][2]["findings"][0]["evidence"],
        "no Deployment kube-system/cilium-operator: Cilium is not installed",
        "{v}"
    );
    let bed = bed_or_skip!(E2e::new(
        "dirqual-gates",
        &["GET /apis/apps/v1/namespaces/kube-system/daemonsets/cilium=403"]
    ));
    let r = upgrade(&bed, "cilium", "1.18.5", true);
    r.code(5);
    assert_eq!(
        r.json()["verdict"]["undecided"],
        serde_json::json!(["cilium-one-minor", "cilium-one-version", "cilium-present"])
    );
    let bed = bed_or_skip!(E2e::new(
        "dirqual-gates",
        &["GET /api/v1/namespaces/kube-system/pods=403"]
    ));
    let r = upgrade(&bed, "cilium", "1.18.5", true);
    r.code(5);
    assert_eq!(
        r.json()["verdict"]["undecided"],
        serde_json::json!(["cilium-k8s-range"])
    );
    assert_read_only(&bed.server);
}

pub const ROOK_GO: &str = "gate upgrade rook 1.17.0 on SERVER (context replay, rule: topology)
GO
holds:
  rook-one-minor  1.16.4 -> 1.17.0: one minor at most
  rook-one-version  10 workloads on one version
  rook-ceph-not-error  CephCluster rook-ceph/rook-ceph: HEALTH_OK
  rook-present  operator 1/1 pods ready
  rook-k8s-range  1.17 supports 1.28 to 1.33; the control plane runs 1.31.4
  rook-ceph-version  Ceph 18.2.4; rook 1.17 supports 18.2.0+, 19.2.0+
  rook-kubelet-range  1.17 supports 1.28 to 1.33; the 4 kubelets run v1.31.4
  rook-layers-after-present  no layer after ceph in the stack
";

/// The next minor: GO. Skipping one: NO-GO on `rook-one-minor` alone.
#[test]
fn gate_upgrade_rook_go_and_skipping_a_minor_no_go() {
    let bed = bed_or_skip!(E2e::new("dirqual-gates", &[]));
    let r = upgrade(&bed, "rook", "1.17", false);
    assert_eq!(stable(&r), ROOK_GO, "{r:?}");
    r.code(0);
    let r = upgrade(&bed, "rook", "1.18.1", true);
    r.code(2);
    assert_eq!(
        statuses(&r),
        pairs(&[
            ("rook-one-minor", "fails"),
            ("rook-one-version", "holds"),
            ("rook-ceph-not-error", "holds"),
            ("rook-present", "holds"),
            ("rook-k8s-range", "holds"),
            ("rook-ceph-version", "holds"),
            ("rook-kubelet-range", "holds"),
            ("rook-layers-after-present", "holds"),
        ])
    );
    assert_eq!(
        r.json()["rules"][0]["findings"][0]["evidence"],
        "rook runs 1.16.4; 1.18.1 skips 1.17 (one minor at a time)"
    );
    assert_read_only(&bed.server);
}

/// Rook's operator and mon a at 1.17.0, the other daemons at 1.16.4: half done, a blocker.
#[test]
fn gate_upgrade_rook_half_done_is_no_go() {
    let bed = bed_or_skip!(E2e::new("dirqual-half-upgraded", &[]));
    let r = upgrade(&bed, "rook", "1.17.0", true);
    r.code(2);
    let v = r.json();
    assert_eq!(v["rules"][1]["rule"], "rook-one-version", "{v}");
    assert_eq!(
        v["rules"][1]["findings"][0]["evidence"],
        "2 versions run now: Deployment rook-ceph-mgr-a 1.16.4, Deployment rook-ceph-mgr-b 1.16.4, Deployment rook-ceph-mon-a 1.17.0, Deployment rook-ceph-mon-b 1.16.4, Deployment rook-ceph-mon-c 1.16.4, Deployment rook-ceph-osd-0 1.16.4, Deployment rook-ceph-osd-1 1.16.4, Deployment rook-ceph-osd-2 1.16.4, Deployment rook-ceph-osd-3 1.16.4, Deployment rook-ceph-operator (image) 1.17.0",
        "{v}"
    );
    assert_eq!(v["verdict"]["blockers"], 1, "{v}");
    assert_read_only(&bed.server);
}

const CEPH_ERR: &str = r#"GET /apis/ceph.rook.io/v1/cephclusters=body:{"kind":"CephClusterList","apiVersion":"ceph.rook.io/v1","metadata":{"resourceVersion":"9"},"items":[{"apiVersion":"ceph.rook.io/v1","kind":"CephCluster","metadata":{"name":"rook-ceph","namespace":"rook-ceph"},"spec":{"mon":{"count":3}},"status":{"phase":"Ready","ceph":{"health":"HEALTH_ERR","lastChecked":"2026-12-01T21:40:00Z","details":{"MON_DOWN":{"message":"2/3 mons down, quorum a","severity":"HEALTH_ERR"}}}}}]}"#;

/// A CephCluster as Rook writes it, on Ceph Quincy (17.2.6): Rook 1.17 supports Reef and Squid.
const CEPH_QUINCY: &str = r#"GET /apis/ceph.rook.io/v1/cephclusters=body:{"kind":"CephClusterList","apiVersion":"ceph.rook.io/v1","metadata":{"resourceVersion":"9"},"items":[{"apiVersion":"ceph.rook.io/v1","kind":"CephCluster","metadata":{"name":"rook-ceph","namespace":"rook-ceph"},"spec":{"mon":{"count":3},"cephVersion":{"image":"quay.io/ceph/ceph:v17.2.6"}},"status":{"phase":"Ready","ceph":{"health":"HEALTH_OK","lastChecked":"2026-12-01T21:40:00Z"},"version":{"image":"quay.io/ceph/ceph:v17.2.6","version":"17.2.6-0"}}}]}"#;

const APISERVER_134: &str = r#"GET /api/v1/namespaces/kube-system/pods=body:{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"kube-apiserver-dirqual1","namespace":"kube-system","labels":{"component":"kube-apiserver","tier":"control-plane"},"ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"dirqual1","uid":"3f8a","controller":true}]},"spec":{"nodeName":"dirqual1","containers":[{"name":"kube-apiserver","image":"registry.k8s.io/kube-apiserver:v1.34.1"}]},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}]}"#;

/// Ceph in HEALTH_ERR (Rook does not upgrade it), no operator (404), a control plane
/// past the target release's range, a Ceph the target release does not support: each a
/// blocker of its own rule.
#[test]
fn gate_upgrade_rook_ceph_error_absent_and_out_of_range_are_no_go() {
    for (fault, rule, evidence) in [
        (CEPH_ERR, "rook-ceph-not-error", "HEALTH_ERR: MON_DOWN: 2/3 mons down, quorum a"),
        (
            "GET /apis/apps/v1/namespaces/rook-ceph/deployments/rook-ceph-operator=404",
            "rook-present",
            "no Deployment rook-ceph/rook-ceph-operator: Rook is not installed",
        ),
        (
            APISERVER_134,
            "rook-k8s-range",
            "rook 1.17 supports Kubernetes 1.28 to 1.33; this API server runs 1.34.1 (Rook: Maintenance and Support (Rook 1.17: v1.28 to v1.33))",
        ),
        (
            CEPH_QUINCY,
            "rook-ceph-version",
            "rook 1.17 supports Ceph 18.2.0+, 19.2.0+; this cluster runs Ceph 17.2.6 (Rook: Maintenance and Support (Rook 1.17: Ceph Reef v18.2.0+, Squid v19.2.0+))",
        ),
    ] {
        let bed = bed_or_skip!(E2e::new("dirqual-gates", &[fault]));
        let r = upgrade(&bed, "rook", "1.17", true);
        r.code(2);
        let v = r.json();
        let failing: Vec<&serde_json::Value> = v["rules"]
            .as_array()
            .map(|a| a.iter().filter(|r| r["status"] == "fails").collect())
            .unwrap_or_default();
        assert_eq!(failing.len(), 1, "{rule}: {v}");
        assert_eq!(failing[0]["rule"], rule, "{v}");
        assert_eq!(failing[0]["findings"][0]["evidence"], evidence, "{v}");
        assert_read_only(&bed.server);
    }
}

/// A forbidden (or, for the CephCluster, failed) read of each Rook blocker's read: CANNOT TELL (exit 5), never GO.
#[test]
fn gate_upgrade_rook_forbidden_reads_cannot_tell() {
    for (fault, undecided) in [
        (
            "GET /apis/apps/v1/namespaces/rook-ceph/deployments=403",
            serde_json::json!(["rook-one-minor", "rook-one-version", "rook-present"]),
        ),
        (
            "GET /apis/ceph.rook.io/v1/cephclusters=403",
            serde_json::json!(["rook-ceph-not-error", "rook-ceph-version"]),
        ),
        (
            "GET /apis/ceph.rook.io/v1/cephclusters=500",
            serde_json::json!(["rook-ceph-not-error", "rook-ceph-version"]),
        ),
        (
            "GET /api/v1/namespaces/kube-system/pods=403",
            serde_json::json!(["rook-k8s-range"]),
        ),
    ] {
        let bed = bed_or_skip!(E2e::new("dirqual-gates", &[fault]));
        let r = upgrade(&bed, "rook", "1.17", true);
        r.code(5);
        let v = r.json();
        assert_eq!(v["verdict"]["result"], "CANNOT TELL", "{fault}: {v}");
        assert_eq!(v["verdict"]["undecided"], undecided, "{fault}: {v}");
        assert_read_only(&bed.server);
    }
}

/// A VERSION that does not parse is a usage error for cilium and rook too: exit 1, a hint,
/// an Error document with `-o json`, nothing read.
#[test]
fn gate_upgrade_cilium_or_rook_bad_version_is_a_usage_error() {
    let bed = bed_or_skip!(E2e::new("dirqual-gates", &[]));
    let r = upgrade(&bed, "cilium", "1.x", false);
    r.code(1);
    r.stdout_eq("");
    r.stderr_eq(
        "kubectl-nestor: error: `1.x` is not a version\n\
         hint: write VERSION as MAJOR.MINOR or MAJOR.MINOR.PATCH, optionally with a leading v: 1.18, 1.18.2, v1.18.2\n",
    );
    for bad in ["latest", "1", "v1.18.2-rc.1"] {
        let j = upgrade(&bed, "rook", bad, true);
        j.code(1);
        let v = j.json();
        assert_eq!(v["kind"], "Error", "{bad}: {v}");
    }
    assert!(bed.server.audit().is_empty(), "{:?}", bed.server.audit());
}

const ROOK_115: &str = r#"GET /apis/apps/v1/namespaces/rook-ceph/deployments/rook-ceph-operator=body:{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"rook-ceph-operator","namespace":"rook-ceph","labels":{"operator":"rook","storage-backend":"ceph"}},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"rook-ceph-operator","image":"docker.io/rook/ceph:v1.15.6"}]}}},"status":{"replicas":1,"readyReplicas":1}}"#;

/// `k8s-platform-ranges` fed by the versions read: a Rook 1.15 operator (Kubernetes 1.26 to
/// 1.31) stops the move to 1.32; a forbidden Cilium agent read leaves it undecided.
#[test]
fn gate_upgrade_kubernetes_platform_ranges_no_go_and_forbidden() {
    let bed = bed_or_skip!(E2e::new("dirqual-gates", &[ROOK_115]));
    let r = bed.run(&[
        "gate",
        "upgrade",
        "kubernetes",
        "1.32",
        "--no-input",
        "--no-ssh",
        "-o",
        "json",
    ]);
    r.code(2);
    let v = r.json();
    let ranges = v["rules"]
        .as_array()
        .and_then(|a| a.iter().find(|r| r["rule"] == "k8s-platform-ranges"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(ranges["status"], "fails", "{v}");
    assert_eq!(ranges["findings"][0]["subject"], "rook 1.15.6", "{v}");
    assert_eq!(
        ranges["findings"][0]["evidence"],
        "supports Kubernetes 1.26 to 1.31, not 1.32 (Rook: Maintenance and Support (Rook 1.15: v1.26 to v1.31))",
        "{v}"
    );
    let bed = bed_or_skip!(E2e::new(
        "dirqual-gates",
        &["GET /apis/apps/v1/namespaces/kube-system/daemonsets/cilium=403"]
    ));
    let r = bed.run(&[
        "gate",
        "upgrade",
        "kubernetes",
        "1.32",
        "--no-input",
        "--no-ssh",
        "-o",
        "json",
    ]);
    r.code(5);
    assert_eq!(
        r.json()["verdict"]["undecided"],
        serde_json::json!(["k8s-platform-ranges"])
    );
    assert_read_only(&bed.server);
}
