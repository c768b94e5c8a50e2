//! `gate upgrade cilium|rook`'s layer-present and per-release rules on the real-shaped
//! fixtures (tests/fixtures/gate), each in its GO, NO-GO and undecided form, and the
//! workload decoders they read through.

use super::tests::{cluster, outcome, seen};
use super::version::Version;
use super::*;

fn upgrade(gate: Gate, v: &str) -> Request {
    Request {
        gate,
        node: None,
        version: Version::parse(v),
    }
}

/// The control plane's version, and every kubelet at that same version (a consistent cluster).
fn set_apiserver(f: &mut Facts, image: &str) {
    if let Ok(pods) = &mut f.apiserver_pods {
        pods[0].images = vec![image.to_string()];
    }
    super::upgrade_tests::set_kubelets(f, image.rsplit(':').next().unwrap_or_default());
}

fn eval(req: &Request, f: &Facts) -> Evaluation {
    evaluate(req, f, builtin())
}

#[test]
fn cilium_present_needs_the_agent_and_the_operator_ready() {
    let ev = eval(&upgrade(Gate::UpgradeCilium, "1.19.0"), &cluster());
    assert_eq!(
        outcome(&ev, RuleId::CiliumPresent).note,
        "agent 4/4, operator 2/2 pods ready"
    );
    let mut f = cluster();
    if let Ok(images) = &mut f.cilium_images {
        images.retain(|i| i.container != "cilium-operator");
        for i in images.iter_mut() {
            i.pods = (3, 4);
        }
    }
    let (status, evidence, verdict) = seen(
        &eval(&upgrade(Gate::UpgradeCilium, "1.19.0"), &f),
        RuleId::CiliumPresent,
    );
    assert_eq!(
        (status, evidence, verdict.as_str()),
        (
            Status::Fails,
            vec![
                "3 of 4 pods ready".to_string(),
                "no Deployment kube-system/cilium-operator: Cilium is not installed".to_string()
            ],
            "NO-GO: 2 blockers"
        )
    );
}

#[test]
fn cilium_k8s_range_reads_the_target_releases_row() {
    // Cilium 1.19 is e2e tested on Kubernetes 1.32 to 1.35; the fixture runs 1.34.8.
    let ev = eval(&upgrade(Gate::UpgradeCilium, "1.19.1"), &cluster());
    assert_eq!(ev.verdict, Verdict::Go);
    assert_eq!(
        outcome(&ev, RuleId::CiliumK8sRange).note,
        "1.19 supports 1.32 to 1.35; the control plane runs 1.34.8"
    );
    let mut f = cluster();
    set_apiserver(&mut f, "registry.k8s.io/kube-apiserver:v1.31.4");
    let ev = eval(&upgrade(Gate::UpgradeCilium, "1.19.1"), &f);
    let o = outcome(&ev, RuleId::CiliumK8sRange);
    assert_eq!(o.status, Status::Fails);
    assert_eq!(
        o.findings[0].subject,
        "pod kube-system/kube-apiserver-dirqual1"
    );
    assert_eq!(
        o.findings[0].evidence,
        "cilium 1.19 supports Kubernetes 1.32 to 1.35; this API server runs 1.31.4 (Cilium 1.19: Kubernetes Compatibility (1.32, 1.33, 1.34, 1.35))"
    );
    // The API server, and the 4 kubelets at 1.31.4 as one entry (cilium-kubelet-range: one
    // entry per rule and subject, the nodes listed in it; v0.4 wrote four).
    assert_eq!(ev.verdict.line(), "NO-GO: 2 blockers");
    assert_eq!(
        outcome(&ev, RuleId::CiliumKubeletRange).findings[0].subject,
        "nodes dirqual1, dirqual2, dirqual3, dirqual4"
    );
    // A release the table holds no verified row for is undecided, never GO.
    let mut f = cluster();
    if let Ok(images) = &mut f.cilium_images {
        for i in images.iter_mut() {
            i.image = i.image.replace("v1.18.2", "v1.17.6");
        }
    }
    // Cilium 1.18 is e2e tested on 1.30 to 1.33.
    set_apiserver(&mut f, "registry.k8s.io/kube-apiserver:v1.31.4");
    let ev = eval(&upgrade(Gate::UpgradeCilium, "1.18.3"), &f);
    assert_eq!(
        outcome(&ev, RuleId::CiliumK8sRange).status,
        Status::Holds,
        "{:?}",
        outcome(&ev, RuleId::CiliumK8sRange).note
    );
    let ev = eval(&upgrade(Gate::UpgradeCilium, "1.17.9"), &f);
    let o = outcome(&ev, RuleId::CiliumK8sRange);
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Unknown, "cilium 1.17: the table holds no verified Kubernetes range for this release (add its platformRanges row, with its source)")
    );
    assert_eq!(
        ev.verdict.line(),
        "CANNOT TELL: cilium-k8s-range, cilium-kubelet-range undecided"
    );
}

#[test]
fn rook_present_and_its_range() {
    let mut f = cluster();
    set_apiserver(&mut f, "registry.k8s.io/kube-apiserver:v1.30.6");
    let ev = eval(&upgrade(Gate::UpgradeRook, "1.15.0"), &f);
    assert_eq!(ev.verdict, Verdict::Go, "{:?}", ev.outcomes);
    assert_eq!(
        outcome(&ev, RuleId::RookPresent).note,
        "operator 1/1 pods ready"
    );
    assert_eq!(
        outcome(&ev, RuleId::RookOneVersion).note,
        "4 workloads on one version"
    );
    // The running cluster's 1.34.8 is past Rook 1.15's 1.31.
    let (status, evidence, _) = seen(
        &eval(&upgrade(Gate::UpgradeRook, "1.15.0"), &cluster()),
        RuleId::RookK8sRange,
    );
    assert_eq!(status, Status::Fails);
    assert_eq!(
        evidence,
        ["rook 1.15 supports Kubernetes 1.26 to 1.31; this API server runs 1.34.8 (Rook: Maintenance and Support (Rook 1.15: v1.26 to v1.31))"]
    );
    let mut gone = f.clone();
    if let Ok(l) = &mut gone.rook_versions {
        l.retain(|l| !l.from_image);
    }
    let (status, evidence, _) = seen(
        &eval(&upgrade(Gate::UpgradeRook, "1.15.0"), &gone),
        RuleId::RookPresent,
    );
    assert_eq!(
        (status, evidence),
        (
            Status::Fails,
            vec!["no Deployment rook-ceph/rook-ceph-operator: Rook is not installed".to_string()]
        )
    );
    if let Ok(l) = &mut f.rook_versions {
        for op in l.iter_mut().filter(|l| l.from_image) {
            op.pods = (0, 1);
            op.rook_version = Some("v1.15.1".into());
        }
    }
    let ev = eval(&upgrade(Gate::UpgradeRook, "1.15.0"), &f);
    assert_eq!(seen(&ev, RuleId::RookPresent).1, ["0 of 1 pods ready"]);
    assert_eq!(
        seen(&ev, RuleId::RookOneVersion).1,
        ["2 versions run now: Deployment rook-ceph-mgr-a 1.14.9, Deployment rook-ceph-mon-a 1.14.9, Deployment rook-ceph-osd-1 1.14.9, Deployment rook-ceph-operator (image) 1.15.1"]
    );
}

#[test]
fn named_workloads_decode_strictly() {
    let op = decode::rook_operator(include_str!(
        "../../../tests/fixtures/gate/rook-operator.json"
    ));
    assert_eq!(
        op.map(|l| (l.deployment, l.rook_version, l.from_image, l.pods))
            .ok(),
        Some((
            "rook-ceph-operator".to_string(),
            Some("v1.14.9".to_string()),
            true,
            (1, 1)
        ))
    );
    let ds = r#"{"kind":"DaemonSet","apiVersion":"apps/v1","metadata":{"name":"cilium","namespace":"kube-system"},"spec":{"template":{"spec":{"containers":[{"name":"cilium-agent","image":"quay.io/cilium/cilium:v1.18.2@sha256:858f807ea4e20e85e3ea3240a762e1f4b29f1cb5bbd0463b8aa77e7b097c0667"}]}}},"status":{"desiredNumberScheduled":4,"numberReady":3}}"#;
    assert_eq!(
        decode::component_version(ds, "DaemonSet", Some("cilium-agent"))
            .map(|v| v.to_string())
            .ok()
            .as_deref(),
        Some("1.18.2")
    );
    assert_eq!(
        decode::workload_object(ds, "DaemonSet")
            .map(|w| w[0].pods)
            .ok(),
        Some((3, 4))
    );
    let err = |r: crate::error::Result<Version>| r.err().map(|e| e.message).unwrap_or_default();
    assert_eq!(
        err(decode::component_version(ds, "Deployment", None)),
        "malformed Deployment: an object of kind `DaemonSet`"
    );
    assert_eq!(
        err(decode::component_version(
            ds,
            "DaemonSet",
            Some("cilium-operator")
        )),
        "DaemonSet has no container `cilium-operator`"
    );
    assert_eq!(
        err(decode::component_version(
            &ds.replace(":v1.18.2@", ":latest@"),
            "DaemonSet",
            None
        )),
        "DaemonSet kube-system/cilium: image `quay.io/cilium/cilium:latest@sha256:858f807ea4e20e85e3ea3240a762e1f4b29f1cb5bbd0463b8aa77e7b097c0667` carries no version tag"
    );
}

fn with_ceph_version(v: &str) -> Facts {
    let mut f = cluster();
    if let Some(c) = f.ceph.as_mut().ok().and_then(|all| all.first_mut()) {
        c.version = v.to_string();
    }
    f
}

#[test]
fn rook_ceph_version_needs_a_ceph_the_target_release_supports() {
    let req = upgrade(Gate::UpgradeRook, "1.17.0");
    let ev = eval(&req, &with_ceph_version("18.2.4-0"));
    let o = outcome(&ev, RuleId::RookCephVersion);
    assert_eq!(
        (o.status, o.note.as_str()),
        (
            Status::Holds,
            "Ceph 18.2.4; rook 1.17 supports 18.2.0+, 19.2.0+"
        )
    );
    for (v, status) in [
        ("17.2.6-0", Status::Fails),
        ("20.2.0-0", Status::Fails),
        ("19.1.9-0", Status::Fails),
        ("", Status::Unknown),
        ("squid", Status::Unknown),
    ] {
        let ev = eval(&req, &with_ceph_version(v));
        assert_eq!(outcome(&ev, RuleId::RookCephVersion).status, status, "{v}");
    }
    // A release without a verified row is undecided, never GO.
    let ev = eval(
        &upgrade(Gate::UpgradeRook, "1.11.0"),
        &with_ceph_version("18.2.4-0"),
    );
    assert_eq!(
        outcome(&ev, RuleId::RookCephVersion).status,
        Status::Unknown
    );
}
