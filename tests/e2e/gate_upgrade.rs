//! `gate upgrade kubernetes VERSION` through the real kubectl against the replay server
//! (SPEC §17), on the `dirqual-gates` fixture (nodes and the kube-apiserver mirror pod at
//! v1.31.4, CRDs with `status.storedVersions`, `/readyz?verbose` as kube-apiserver writes
//! it; Cilium, Rook and CloudNativePG workloads whose versions `k8s-platform-ranges` reads):
//! the next minor (GO), a skipped minor (NO-GO), a CRD storing an unserved version (NO-GO),
//! a forbidden CRD read (exit 5), a VERSION
//! or component that does not parse (exit 1, an Error document), only GETs.

use crate::bed_or_skip;
use crate::gate::stable;
use crate::support::*;

/// The next minor: every rule read here holds, the platform components' versions (Cilium
/// 1.18, Rook 1.16, CloudNativePG 1.25, read by name) included: GO, with the budget warning
/// and the host rule skipped by `--no-ssh`.
pub const NEXT_MINOR: &str = r#"gate upgrade kubernetes 1.32.0 on SERVER (context replay, rule: topology)
GO
warnings:
  k8s-pdb-zero  PodDisruptionBudget dataops/pg-primary
      allows 0 disruptions (currentHealthy 1, desiredHealthy 1, expectedPods 1):
      the drain of its pods' nodes will stop on it
      clears: plan those nodes' drains (gate drain NODE says what clears each)
skipped:
  k8s-certs-expired  not read: --no-ssh
  k8s-certs-expiring  not read: --no-ssh
holds:
  k8s-one-minor  1.31.4 -> 1.32.0: one minor up
  k8s-downgrade  1.31.4 -> 1.32.0 is not a minor downgrade
  k8s-apiservers-one-version  1 kube-apiserver pods, one version
  k8s-kubelet-skew  4 kubelets within the skew of 1.32
  k8s-control-plane-ready  1 control-plane nodes Ready
  k8s-readyz  13 readyz checks pass
  k8s-removed-apis  2 APIs 1.32 removes: none holds objects
  k8s-crd-unserved-stored  28 CRDs: every stored version is served
  k8s-node-containerd  the table sets no containerd minimum up to 1.32
  k8s-node-cgroup-v2  the table needs no cgroup v2 up to 1.32
  k8s-platform-ranges  1.32: cilium 1.18, rook 1.16, cnpg 1.25 (argo-cd unread)
"#;
pub const SKIPS_A_MINOR: &str = r#"gate upgrade kubernetes 1.33.2 on SERVER (context replay, rule: topology)
NO-GO: 3 blockers
blockers:
  k8s-one-minor  control plane
      the API server runs 1.31.4; 1.33.2 skips 1.32 (kubeadm upgrades one minor
      at a time)
      clears: upgrade to 1.32 first
  k8s-platform-ranges  rook 1.16.4
      supports Kubernetes 1.27 to 1.32, not 1.33 (Rook: Maintenance and Support
      (Rook 1.16: v1.27 to v1.32))
      clears: upgrade rook to a release that supports 1.33 first
  k8s-platform-ranges  cnpg 1.25.0
      supports Kubernetes 1.29 to 1.32, not 1.33 (CloudNativePG: Supported
      releases)
      clears: upgrade cnpg to a release that supports 1.33 first
warnings:
  k8s-pdb-zero  PodDisruptionBudget dataops/pg-primary
      allows 0 disruptions (currentHealthy 1, desiredHealthy 1, expectedPods 1):
      the drain of its pods' nodes will stop on it
      clears: plan those nodes' drains (gate drain NODE says what clears each)
skipped:
  k8s-certs-expired  not read: --no-ssh
  k8s-certs-expiring  not read: --no-ssh
holds:
  k8s-downgrade  1.31.4 -> 1.33.2 is not a minor downgrade
  k8s-apiservers-one-version  1 kube-apiserver pods, one version
  k8s-kubelet-skew  4 kubelets within the skew of 1.33
  k8s-control-plane-ready  1 control-plane nodes Ready
  k8s-readyz  13 readyz checks pass
  k8s-removed-apis  0 APIs 1.33 removes: none holds objects
  k8s-crd-unserved-stored  28 CRDs: every stored version is served
  k8s-node-containerd  the table sets no containerd minimum up to 1.33
  k8s-node-cgroup-v2  the table needs no cgroup v2 up to 1.33
"#;

#[test]
fn gate_upgrade_kubernetes_next_minor() {
    let (bed, r) = bed_or_skip!(gate(&[], &["upgrade", "kubernetes", "1.32", "--no-ssh"], 0));
    assert_eq!(stable(&r), NEXT_MINOR, "{r:?}");
    assert_read_only(&bed.server);
}

#[test]
fn gate_upgrade_kubernetes_skipping_a_minor_is_no_go() {
    let (bed, r) = bed_or_skip!(gate(
        &[],
        &["upgrade", "kubernetes", "v1.33.2", "--no-ssh"],
        2
    ));
    assert_eq!(stable(&r), SKIPS_A_MINOR, "{r:?}");
    assert_read_only(&bed.server);
}

/// A forbidden CRD read leaves both CRD rules undecided: exit 5, never GO.
#[test]
fn gate_upgrade_kubernetes_forbidden_crds_cannot_tell() {
    let (bed, r) = bed_or_skip!(gate(
        &["GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions=403"],
        &["upgrade", "kubernetes", "1.32", "--no-ssh", "-o", "json"],
        5
    ));
    let v = r.json();
    assert_eq!(v["subject"]["version"], "1.32.0", "{v}");
    assert_cannot_tell(&bed, &v, &["k8s-removed-apis", "k8s-crd-unserved-stored"]);
}

/// A VERSION that does not parse, or a component nestor has no gate for, is a usage error
/// (exit 1, a hint, an Error document with `-o json`) and reads nothing.
#[test]
fn gate_upgrade_bad_version_or_component_is_a_usage_error() {
    let (bed, r) = bed_or_skip!(gate(&[], &["upgrade", "kubernetes", "1.x"], 1));
    assert_eq!(r.stdout, "", "{r:?}");
    r.stderr_eq(
        "kubectl-nestor: error: `1.x` is not a version\n\
         hint: write VERSION as kubeadm does: MAJOR.MINOR.PATCH, optionally with a leading v, a -pre-release or a +build (1.32.4, v1.32.4, v1.33.0-rc.1), or MAJOR.MINOR for that minor's .0\n",
    );
    for bad in ["1", "1.32.4.1", "containerd://1.32", "1.32-rc.1", "latest"] {
        let j = bed.run(&[
            "gate",
            "upgrade",
            "kubernetes",
            bad,
            "--no-input",
            "-o",
            "json",
        ]);
        j.code(1);
        let v = j.json();
        assert_eq!(v["kind"], "Error", "{bad}: {v}");
    }
    let k = bed.run(&[
        "gate",
        "upgrade",
        "kubelet",
        "1.32",
        "--no-input",
        "-o",
        "json",
    ]);
    k.code(1);
    assert_eq!(k.json()["kind"], "Error", "{k:?}");
    assert!(bed.server.audit().is_empty(), "{:?}", bed.server.audit());
}

/// A CRD whose `status.storedVersions` still lists a version it no longer serves (as
/// cert-manager's did after v1alpha2 was dropped) is a blocker of any upgrade: NO-GO from
/// the data, with what clears it.
#[test]
fn gate_upgrade_kubernetes_crd_with_an_unserved_stored_version_is_no_go() {
    let crds = r#"{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","metadata":{"resourceVersion":"8123"},"items":[{"metadata":{"name":"certificates.cert-manager.io"},"spec":{"group":"cert-manager.io","names":{"plural":"certificates","singular":"certificate","kind":"Certificate","listKind":"CertificateList"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true}]},"status":{"acceptedNames":{"plural":"certificates","kind":"Certificate"},"storedVersions":["v1alpha2","v1"]}}]}"#;
    let fault = format!("GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions=body:{crds}");
    let (bed, r) = bed_or_skip!(gate(
        &[&fault],
        &["upgrade", "kubernetes", "1.32", "-o", "json"],
        2
    ));
    let v = r.json();
    assert_eq!(v["verdict"]["result"], "NO-GO", "{v}");
    assert_eq!(v["verdict"]["blockers"], 1, "{v}");
    let text = bed.run(&["gate", "upgrade", "kubernetes", "1.32", "--no-input"]);
    text.code(2);
    let out = stable(&text);
    let blockers = out
        .split("blockers:\n")
        .nth(1)
        .and_then(|s| s.split("undecided (never GO):\n").next())
        .unwrap_or_default();
    assert_eq!(
        blockers,
        "  k8s-crd-unserved-stored  CustomResourceDefinition certificates.cert-manager.io\n      status.storedVersions lists v1alpha2, which it no longer serves\n      clears: rewrite its objects in v1 (a storage version migration), then\n      remove v1alpha2 from status.storedVersions\n",
        "{text:?}"
    );
    assert_read_only(&bed.server);
}

/// kubeadm's version policy through the real kubectl (the cluster runs v1.31.4): VERSION in
/// kubeadm's forms (`+build`, a pre-release) is read as its numbers; a patch down is GO
/// (kubeadm allows it; v0.4 said "kubeadm does not downgrade"); one minor down is GO with
/// `k8s-downgrade`'s warning; a bare `1.31` is the control plane's own minor: a usage error
/// naming the version it runs (v0.4 read it as 1.31.0 and said NO-GO "older").
#[test]
fn gate_upgrade_kubernetes_follows_kubeadms_version_policy() {
    let Some(bed) = E2e::new("dirqual-gates", &[]) else {
        return;
    };
    let run = |version: &str, code: i32| {
        let r = bed.run(&[
            "gate",
            "upgrade",
            "kubernetes",
            version,
            "--no-ssh",
            "--no-input",
            "-o",
            "json",
        ]);
        r.code(code);
        r.json()
    };
    let rule = |v: &serde_json::Value, id: &str| {
        v["rules"]
            .as_array()
            .and_then(|a| a.iter().find(|r| r["rule"] == id))
            .cloned()
            .unwrap_or_default()
    };
    let v = run("v1.32.0+build.7", 0);
    assert_eq!(v["subject"]["version"], "1.32.0", "{v}");
    let v = run("v1.31.2", 0);
    assert_eq!(
        rule(&v, "k8s-one-minor")["note"],
        "1.31.4 -> 1.31.2: a patch down, which kubeadm allows",
        "{v}"
    );
    let v = run("1.30.9", 2);
    let down = rule(&v, "k8s-downgrade");
    assert_eq!(down["status"], "fails", "{down}");
    assert_eq!(rule(&v, "k8s-one-minor")["status"], "holds", "{v}");
    // The kubelets at 1.31 would be newer than a 1.30 API server: the skew policy's blocker.
    assert_eq!(rule(&v, "k8s-kubelet-skew")["status"], "fails", "{v}");
    let r = bed.run(&[
        "gate",
        "upgrade",
        "kubernetes",
        "1.31",
        "--no-ssh",
        "--no-input",
    ]);
    r.code(1);
    assert_eq!(r.stdout, "", "{r:?}");
    r.stderr_eq(
        "kubectl-nestor: error: `1.31` is the control plane's own minor: it runs 1.31.4\n\
         hint: name the patch you mean (`gate upgrade kubernetes 1.31.N`), or the next minor 1.32\n",
    );
    assert_read_only(&bed.server);
}
