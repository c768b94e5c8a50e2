//! One version per layer (issue 34 item 5, SPEC §6 v0.4) through the real kubectl against
//! the replay server: a Cilium agent at 1.19.1 with its operator still at 1.18.2, and Rook's
//! mon a labelled rook-version v1.17.0 beside daemons at v1.16.4 (`dirqual-half-upgraded`),
//! make `cni` and `ceph` degraded "upgrade half done", each component named with its
//! version, and the plan says repair, never install; the same cluster on one version each
//! (`dirqual-gates`) keeps both present. The versions come from the workload lists preview
//! already reads (no new request), cilium-envoy never among them.

use snapbox::str;

use crate::bed_or_skip;
use crate::support::*;

#[test]
fn preview_an_upgrade_half_done_is_degraded_naming_each_version() {
    let bed = bed_or_skip!(E2e::new("dirqual-half-upgraded", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    crate::doc_schema::check(&v);
    assert_eq!(state_of(&v, "cni"), "degraded", "{}", layer(&v, "cni"));
    assert_eq!(state_of(&v, "ceph"), "degraded", "{}", layer(&v, "ceph"));
    let cni = evidence(&v, "cni");
    assert!(
        cni.iter().any(|e| e
            == "upgrade half done: 1.19.1 on DaemonSet kube-system/cilium; 1.18.2 on Deployment kube-system/cilium-operator"),
        "{cni:#?}"
    );
    let ceph = evidence(&v, "ceph");
    assert!(
        ceph.iter().any(|e| e
            == "upgrade half done: 1.17.0 on Deployment rook-ceph/rook-ceph-mon-a; 1.16.4 on Deployment rook-ceph/rook-ceph-mgr-a, Deployment rook-ceph/rook-ceph-mgr-b, Deployment rook-ceph/rook-ceph-mon-b, Deployment rook-ceph/rook-ceph-mon-c, Deployment rook-ceph/rook-ceph-osd-0, and 3 more"),
        "{ceph:#?}"
    );
    assert!(
        !cni.iter().chain(&ceph).any(|e| e.contains("cilium-envoy")),
        "{cni:#?}"
    );
    r.code(0);
    // Degraded is repair, never install (`--detailed-exitcode`: 2, work to do).
    let text = bed.run(&["preview", "--no-input", "--detailed-exitcode"]);
    text.code(2);
    // The whole text: `repair cni, ceph`, neither among the installs.
    text.stdout_snap(str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 2 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair cni, ceph  repair in place; never reinstall over an existing layer
    cni: cni/one-version fails
    ceph: ceph/one-version fails

REAL (read live, not stored)
  nodes                 dirqual1..4, 4/4 Ready
  k8s         present   5 checks hold
  cni         degraded  1 of 5 checks fails
    ✗ upgrade half done: 1.19.1 on DaemonSet kube-system/cilium; 1.18.2 on
      Deployment kube-system/cilium-operator
  ceph        degraded  1 of 9 checks fails
    ✗ upgrade half done: 1.17.0 on Deployment rook-ceph/rook-ceph-mon-a; 1.16.4
      on Deployment rook-ceph/rook-ceph-mgr-a, Deployment
      rook-ceph/rook-ceph-mgr-b, Deployment rook-ceph/rook-ceph-mon-b,
      Deployment rook-ceph/rook-ceph-mon-c, Deployment
      rook-ceph/rook-ceph-osd-0, and 3 more
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
    assert_read_only(&bed.server);
}

#[test]
fn preview_one_version_per_layer_stays_present() {
    let bed = bed_or_skip!(E2e::new("dirqual-gates", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    for (id, line) in [
        ("cni", "one version: 1.18.2 (2 components)"),
        ("ceph", "one version: 1.16.4 (9 components)"),
    ] {
        assert_eq!(state_of(&v, id), "present", "{}", layer(&v, id));
        let ev = evidence(&v, id);
        assert!(ev.iter().any(|e| e == line), "{id}: {ev:#?}");
    }
    assert_read_only(&bed.server);
}
