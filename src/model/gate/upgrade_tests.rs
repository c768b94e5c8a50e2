//! `gate upgrade kubernetes|cilium|rook` on the fixtures of `tests.rs`: each rule in its GO
//! form, its NO-GO form and its failed-read form (CANNOT TELL for a blocker).

use std::collections::BTreeMap;

use super::tests::{cluster, forbidden, outcome, seen};
use super::version::Version;
use super::*;
use crate::model::observation::ReadFailure;

fn upgrade(gate: Gate, v: &str) -> Request {
    Request {
        gate,
        node: None,
        version: Version::parse(v),
    }
}

pub(super) fn k8s(v: &str) -> Request {
    upgrade(Gate::UpgradeKubernetes, v)
}

pub(super) fn eval(req: &Request, f: &Facts) -> Evaluation {
    evaluate(req, f, builtin())
}

/// The cluster with only components whose range the table knows to include 1.35.
pub(super) fn ready_for_135() -> Facts {
    let mut f = cluster();
    f.components = [
        (Component::CertManager, Ok(Version::parse("v1.19.1"))),
        (Component::Cnpg, Ok(None)),
    ]
    .into_iter()
    .collect();
    f
}

/// Every node's kubelet at `version` (`v1.30.6`).
pub(crate) fn set_kubelets(f: &mut Facts, version: &str) {
    if let Ok(nodes) = &mut f.nodes {
        for n in nodes {
            n.kubelet_version = version.to_string();
        }
    }
}

pub(super) fn set_apiserver(f: &mut Facts, image: &str) {
    if let Ok(pods) = &mut f.apiserver_pods {
        pods[0].images = vec![image.to_string()];
    }
}

#[test]
fn the_next_minor_is_go_with_the_budget_warning() {
    let ev = eval(&k8s("v1.35.0"), &ready_for_135());
    assert_eq!(ev.verdict, Verdict::Go);
    let not_holding: Vec<&str> = ev
        .outcomes
        .iter()
        .filter(|o| o.status != Status::Holds)
        .map(|o| o.rule.id.as_str())
        .collect();
    assert_eq!(not_holding, ["k8s-pdb-zero"]);
    assert_eq!(
        seen(&ev, RuleId::K8sPdbZero).1,
        ["allows 0 disruptions (currentHealthy 1, desiredHealthy 1, expectedPods 1): the drain of its pods' nodes will stop on it"]
    );
    assert_eq!(
        outcome(&ev, RuleId::K8sOneMinor).note,
        "1.34.8 -> 1.35.0: one minor up"
    );
    assert_eq!(
        outcome(&ev, RuleId::K8sKubeletSkew).note,
        "4 kubelets within the skew of 1.35"
    );
}

#[test]
fn kubelets_too_old_or_newer_than_the_api_server_block() {
    let mut f = ready_for_135();
    if let Ok(nodes) = &mut f.nodes {
        nodes[3].kubelet_version = "v1.31.2".into();
        nodes[2].kubelet_version = "v1.36.0".into();
    }
    let (status, evidence, _) = seen(&eval(&k8s("1.35.0"), &f), RuleId::K8sKubeletSkew);
    assert_eq!(status, Status::Fails);
    assert_eq!(
        evidence,
        [
            "kubelet 1.36.0 is newer than the API server would be (1.35)",
            "kubelet 1.31.2 would be more than three minors older than 1.35",
        ]
    );
}

#[test]
fn control_plane_and_readyz_block_and_cannot_tell() {
    let mut f = ready_for_135();
    if let Ok(nodes) = &mut f.nodes {
        nodes[0].ready = false;
    }
    f.readyz = decode::readyz(include_str!(
        "../../../tests/fixtures/gate/readyz-failed.txt"
    ))
    .map_err(|e| ReadFailure::skipped(e.message));
    let ev = eval(&k8s("1.35.0"), &f);
    assert_eq!(
        seen(&ev, RuleId::K8sControlPlaneReady).1,
        ["control-plane node not Ready"]
    );
    assert_eq!(seen(&ev, RuleId::K8sReadyz).1, ["[-]etcd failed"]);
    assert_eq!(ev.verdict.line(), "NO-GO: 2 blockers");
    // No node says it is a control-plane node: undecided, never GO (nor are the
    // control-plane certificates: nestor cannot tell which nodes hold them).
    let mut f = ready_for_135();
    if let Ok(nodes) = &mut f.nodes {
        nodes[0].roles.clear();
    }
    let ev = eval(&k8s("1.35.0"), &f);
    assert_eq!(
        ev.verdict.line(),
        "CANNOT TELL: k8s-control-plane-ready, k8s-certs-expired undecided"
    );
}

#[test]
fn removed_apis_still_holding_objects_block() {
    let mut f = ready_for_135();
    set_apiserver(&mut f, "registry.k8s.io/kube-apiserver:v1.31.5");
    if let Ok(nodes) = &mut f.nodes {
        for n in nodes.iter_mut() {
            n.kubelet_version = "v1.31.5".into();
        }
    }
    f.components.clear();
    f.components.insert(Component::Cnpg, Ok(None));
    let flow = "flowcontrol.apiserver.k8s.io/v1beta3";
    let objects = |n: Option<usize>| -> BTreeMap<String, _> {
        [("flowschemas", n), ("prioritylevelconfigurations", Some(0))]
            .into_iter()
            .map(|(r, n)| (format!("{flow}/{r}"), Ok(n)))
            .collect()
    };
    f.removed_api_objects = objects(Some(3));
    let (status, evidence, _) = seen(&eval(&k8s("1.32.0"), &f), RuleId::K8sRemovedApis);
    assert_eq!(status, Status::Fails);
    assert_eq!(
        evidence,
        ["still served, listing 3 objects; 1.32 stops serving it"]
    );
    f.removed_api_objects = objects(None);
    let ev = eval(&k8s("1.32.0"), &f);
    assert_eq!(
        outcome(&ev, RuleId::K8sRemovedApis).note,
        "2 APIs 1.32 removes: none holds objects"
    );
    f.removed_api_objects.clear();
    let ev = eval(&k8s("1.32.0"), &f);
    assert_eq!(
        outcome(&ev, RuleId::K8sRemovedApis).note,
        "flowcontrol.apiserver.k8s.io/v1beta3/flowschemas was not read"
    );
    assert!(
        matches!(&ev.verdict, Verdict::CannotTell { undecided } if undecided == &[RuleId::K8sRemovedApis])
    );
}

#[test]
fn a_crd_storing_an_unserved_version_blocks() {
    let mut f = ready_for_135();
    f.crds = decode::crds(include_str!(
        "../../../tests/fixtures/gate/crds-unserved.json"
    ))
    .map_err(|e| ReadFailure::skipped(e.message));
    let ev = eval(&k8s("1.35.0"), &f);
    let o = outcome(&ev, RuleId::K8sCrdUnservedStored);
    assert_eq!(o.status, Status::Fails);
    assert_eq!(
        o.findings[0].evidence,
        "status.storedVersions lists v2alpha1, which it no longer serves"
    );
    assert_eq!(o.findings[0].clears, "rewrite its objects in v2 (a storage version migration), then remove v2alpha1 from status.storedVersions");
    assert_eq!(ev.verdict.line(), "NO-GO: 1 blocker");
}

#[test]
fn node_prerequisites_containerd_and_cgroup_v2() {
    let mut f = ready_for_135();
    set_apiserver(&mut f, "registry.k8s.io/kube-apiserver:v1.35.2");
    f.components.clear();
    f.components.insert(Component::Cnpg, Ok(None));
    let (status, evidence, _) = seen(&eval(&k8s("1.36.0"), &f), RuleId::K8sNodeContainerd);
    assert_eq!(status, Status::Fails);
    // One entry naming the four nodes.
    assert_eq!(evidence.len(), 1);
    assert_eq!(
        outcome(&eval(&k8s("1.36.0"), &f), RuleId::K8sNodeContainerd).findings[0].subject,
        "nodes dirqual1, dirqual2, dirqual3, dirqual4"
    );
    assert_eq!(
        evidence[0],
        "containerd 1.7.22; 1.36 needs 2.0.0 or later (SIG Node: Kubernetes 1.35 is the last release to support containerd 1.x)"
    );
    let ev = eval(&k8s("1.35.3"), &f);
    assert_eq!(
        outcome(&ev, RuleId::K8sNodeContainerd).note,
        "the table sets no containerd minimum up to 1.35"
    );
    // cgroup v1 on one host.
    if let Ok(hosts) = &mut f.host_cgroup {
        hosts.insert("dirqual4".into(), Ok(false));
    }
    let (status, evidence, _) = seen(&eval(&k8s("1.35.3"), &f), RuleId::K8sNodeCgroupV2);
    assert_eq!(status, Status::Fails);
    assert!(
        evidence[0].starts_with(
            "no /sys/fs/cgroup/cgroup.controllers: cgroup v1; from 1.35 the kubelet refuses it"
        ),
        "{evidence:?}"
    );
    f.host_cgroup = Err(ReadFailure::skipped("--no-ssh"));
    let ev = eval(&k8s("1.35.3"), &f);
    assert_eq!(
        outcome(&ev, RuleId::K8sNodeCgroupV2).status,
        Status::Skipped
    );
}

#[test]
fn platform_ranges_from_the_table() {
    // Cilium 1.18 and Rook 1.14 are not known to support 1.35.
    let ev = eval(&k8s("1.35.0"), &cluster());
    let (status, evidence, verdict) = seen(&ev, RuleId::K8sPlatformRanges);
    assert_eq!(
        (status, verdict.as_str()),
        (Status::Fails, "NO-GO: 2 blockers")
    );
    assert_eq!(
        evidence,
        [
            "supports Kubernetes 1.30 to 1.33, not 1.35 (Cilium 1.18: Kubernetes Compatibility)",
            "supports Kubernetes 1.25 to 1.29, not 1.35 (Rook 1.14 release notes: Kubernetes versions v1.25 through v1.29 are supported)",
        ]
    );
    // A release the table has no verified row for: undecided, never GO.
    let mut f = ready_for_135();
    f.components
        .insert(Component::Cnpg, Ok(Version::parse("1.23.6")));
    let ev = eval(&k8s("1.35.0"), &f);
    assert_eq!(
        outcome(&ev, RuleId::K8sPlatformRanges).note,
        "cnpg 1.23: the table holds no verified Kubernetes range for this release"
    );
    assert_eq!(
        ev.verdict.line(),
        "CANNOT TELL: k8s-platform-ranges undecided"
    );
    // SPEC §17: a definite blocker is NO-GO even when the same rule cannot tell about
    // another component (v0.4 said CANNOT TELL with Rook outside its range).
    let mut f = cluster();
    f.components.insert(Component::Cnpg, Err(forbidden()));
    let ev = eval(&k8s("1.35.0"), &f);
    let o = outcome(&ev, RuleId::K8sPlatformRanges);
    assert_eq!(o.status, Status::Fails);
    assert_eq!(o.findings.len(), 2, "{o:?}");
    assert!(
        o.note.starts_with("the read of component-versions failed"),
        "{o:?}"
    );
    assert!(matches!(ev.verdict, Verdict::NoGo { .. }), "{ev:?}");
}

#[test]
fn every_upgrade_blocker_with_a_failed_read_cannot_tell() {
    type Case = (Gate, &'static str, RuleId, fn(&mut Facts));
    let cases: [Case; 12] = [
        (
            Gate::UpgradeKubernetes,
            "1.35.0",
            RuleId::K8sOneMinor,
            |f| f.apiserver_pods = Err(forbidden()),
        ),
        (
            Gate::UpgradeKubernetes,
            "1.35.0",
            RuleId::K8sApiserversOneVersion,
            |f| f.apiserver_pods = Err(forbidden()),
        ),
        (
            Gate::UpgradeKubernetes,
            "1.35.0",
            RuleId::K8sKubeletSkew,
            |f| f.nodes = Err(forbidden()),
        ),
        (
            Gate::UpgradeKubernetes,
            "1.35.0",
            RuleId::K8sControlPlaneReady,
            |f| f.nodes = Err(forbidden()),
        ),
        (Gate::UpgradeKubernetes, "1.35.0", RuleId::K8sReadyz, |f| {
            f.readyz = Err(forbidden())
        }),
        (
            Gate::UpgradeKubernetes,
            "1.35.0",
            RuleId::K8sRemovedApis,
            |f| f.crds = Err(forbidden()),
        ),
        (
            Gate::UpgradeKubernetes,
            "1.35.0",
            RuleId::K8sCrdUnservedStored,
            |f| f.crds = Err(forbidden()),
        ),
        (
            Gate::UpgradeKubernetes,
            "1.35.0",
            RuleId::K8sNodeContainerd,
            |f| f.nodes = Err(forbidden()),
        ),
        (
            Gate::UpgradeKubernetes,
            "1.35.0",
            RuleId::K8sPlatformRanges,
            |f| {
                f.components.insert(Component::Cilium, Err(forbidden()));
            },
        ),
        (Gate::UpgradeCilium, "1.19.0", RuleId::CiliumOneMinor, |f| {
            f.cilium_images = Err(forbidden())
        }),
        (Gate::UpgradeRook, "1.15.0", RuleId::RookOneVersion, |f| {
            f.rook_versions = Err(forbidden())
        }),
        (Gate::UpgradeRook, "1.15.0", RuleId::RookCephNotError, |f| {
            f.ceph = Err(forbidden())
        }),
    ];
    for (gate, v, id, break_it) in cases {
        let mut f = ready_for_135();
        if gate == Gate::UpgradeRook {
            // Rook 1.15 supports Kubernetes 1.26 to 1.31 (rook-k8s-range, rook-kubelet-range).
            set_apiserver(&mut f, "registry.k8s.io/kube-apiserver:v1.30.6");
            set_kubelets(&mut f, "v1.30.6");
        }
        break_it(&mut f);
        let ev = eval(&upgrade(gate, v), &f);
        assert_eq!(outcome(&ev, id).status, Status::Unknown, "{}", id.as_str());
        assert!(
            matches!(&ev.verdict, Verdict::CannotTell { undecided } if undecided.contains(&id)),
            "{}: {:?}",
            id.as_str(),
            ev.verdict
        );
    }
}

#[test]
fn cilium_one_minor_and_one_version() {
    let ev = eval(&upgrade(Gate::UpgradeCilium, "v1.19.0"), &cluster());
    assert_eq!(ev.verdict, Verdict::Go);
    assert_eq!(
        outcome(&ev, RuleId::CiliumOneVersion).note,
        "2 workloads on one version"
    );
    let (_, evidence, verdict) = seen(
        &eval(&upgrade(Gate::UpgradeCilium, "1.20.0"), &cluster()),
        RuleId::CiliumOneMinor,
    );
    assert_eq!(
        (evidence[0].as_str(), verdict.as_str()),
        (
            "cilium runs 1.18.2; 1.20.0 skips 1.19 (one minor at a time)",
            "NO-GO: 1 blocker"
        )
    );
    let mut f = cluster();
    if let Ok(images) = &mut f.cilium_images {
        for i in images
            .iter_mut()
            .filter(|i| i.container == "cilium-operator")
        {
            i.image = "quay.io/cilium/operator-generic:v1.17.4".into();
        }
    }
    let (_, evidence, _) = seen(
        &eval(&upgrade(Gate::UpgradeCilium, "1.19.0"), &f),
        RuleId::CiliumOneVersion,
    );
    assert_eq!(
        evidence,
        ["2 versions run now: DaemonSet kube-system/cilium (cilium-agent) 1.18.2, Deployment kube-system/cilium-operator (cilium-operator) 1.17.4"]
    );
    f.cilium_images = Ok(vec![]);
    let (_, evidence, _) = seen(
        &eval(&upgrade(Gate::UpgradeCilium, "1.19.0"), &f),
        RuleId::CiliumOneVersion,
    );
    assert_eq!(
        evidence,
        ["no cilium-agent or cilium-operator container in kube-system: Cilium is not installed"]
    );
}

#[test]
fn rook_one_minor_one_version_and_ceph_not_in_error() {
    let cluster = || {
        let mut f = super::tests::cluster();
        // Rook 1.15 supports Kubernetes 1.26 to 1.31 (rook-k8s-range, rook-kubelet-range).
        set_apiserver(&mut f, "registry.k8s.io/kube-apiserver:v1.30.6");
        set_kubelets(&mut f, "v1.30.6");
        f
    };
    let ev = eval(&upgrade(Gate::UpgradeRook, "v1.15.2"), &cluster());
    assert_eq!(ev.verdict, Verdict::Go);
    let (_, evidence, _) = seen(
        &eval(&upgrade(Gate::UpgradeRook, "v1.16.0"), &cluster()),
        RuleId::RookOneMinor,
    );
    assert_eq!(
        evidence,
        ["rook runs 1.14.9; 1.16.0 skips 1.15 (one minor at a time)"]
    );
    let mut f = cluster();
    if let Ok(labels) = &mut f.rook_versions {
        labels[3].rook_version = Some("v1.13.10".into());
    }
    let (status, evidence, _) = seen(
        &eval(&upgrade(Gate::UpgradeRook, "1.15.0"), &f),
        RuleId::RookOneVersion,
    );
    assert_eq!(status, Status::Fails);
    assert!(
        evidence[0].starts_with("2 versions run now: Deployment rook-ceph-mgr-a 1.14.9"),
        "{evidence:?}"
    );
    let mut f = cluster();
    if let Some(c) = f.ceph.as_mut().ok().and_then(|all| all.first_mut()) {
        c.health = "HEALTH_ERR".into();
        c.checks = vec![facts::CephCheck {
            name: "MON_DOWN".into(),
            severity: "HEALTH_ERR".into(),
            message: "2/3 mons down, quorum a".into(),
        }];
    }
    let (status, evidence, verdict) = seen(
        &eval(&upgrade(Gate::UpgradeRook, "1.15.0"), &f),
        RuleId::RookCephNotError,
    );
    assert_eq!(
        (status, verdict.as_str()),
        (Status::Fails, "NO-GO: 1 blocker")
    );
    assert_eq!(evidence, ["HEALTH_ERR: MON_DOWN: 2/3 mons down, quorum a"]);
}

#[test]
fn a_removed_api_in_a_crds_stored_versions_blocks() {
    // A row for a custom group (as a release of a platform component would add one).
    let text = include_str!("rules.yaml").replacen(
        "removedApis:\n",
        "removedApis:\n  - {minor: \"1.35\", group: cilium.io, version: v2alpha1, resources: [ciliumloadbalancerippools]}\n",
        1,
    );
    let table = parse(&text, "rules.yaml").unwrap_or_else(|e| panic!("{}", e.message));
    let mut f = ready_for_135();
    f.removed_api_objects.insert(
        "cilium.io/v2alpha1/ciliumloadbalancerippools".into(),
        Ok(None),
    );
    let ev = evaluate(&k8s("1.35.0"), &f, &table);
    assert_eq!(outcome(&ev, RuleId::K8sRemovedApis).status, Status::Holds);
    f.crds = decode::crds(include_str!(
        "../../../tests/fixtures/gate/crds-unserved.json"
    ))
    .map_err(|e| ReadFailure::skipped(e.message));
    let ev = evaluate(&k8s("1.35.0"), &f, &table);
    let o = outcome(&ev, RuleId::K8sRemovedApis);
    assert_eq!(o.status, Status::Fails);
    assert_eq!(
        o.findings[0].subject,
        "CustomResourceDefinition ciliumloadbalancerippools.cilium.io"
    );
    assert_eq!(
        o.findings[0].evidence,
        "status.storedVersions lists v2alpha1, which 1.35 removes"
    );
}
