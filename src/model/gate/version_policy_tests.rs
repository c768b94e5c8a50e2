//! `gate upgrade kubernetes`'s version rules against upstream's own cases: kubeadm's
//! `TestEnforceVersionPolicies` (cmd/kubeadm/app/phases/upgrade/policy_test.go) for
//! `k8s-one-minor` and `k8s-downgrade`, and the version skew policy's kube-apiserver rule
//! for `k8s-apiservers-one-version` (an HA upgrade half done is GO). The same verdicts run
//! through the real kubectl in `tests/e2e/gate_upgrade.rs`.

use super::tests::{outcome, seen};
use super::upgrade_tests::{eval, k8s, ready_for_135, set_apiserver, set_kubelets};
use super::{RuleId, Status, Verdict};

/// kubeadm's `TestEnforceVersionPolicies` (cmd/kubeadm/app/phases/upgrade/policy_test.go),
/// each case whose inputs are the cluster's (its API server's version, VERSION): the verdict
/// of `k8s-one-minor` is kubeadm's mandatory error or its absence; `k8s-downgrade` warns
/// where kubeadm allows a minor down. The cases about the kubeadm binary's own version and
/// the --allow-*-upgrades flags are not the cluster's objects (docs/gates.md).
#[test]
fn kubeadm_enforce_version_policies_cases() {
    let at = |apiserver: &str, version: &str| {
        let mut f = ready_for_135();
        set_apiserver(
            &mut f,
            &format!("registry.k8s.io/kube-apiserver:{apiserver}"),
        );
        let ev = eval(&k8s(version), &f);
        (
            outcome(&ev, RuleId::K8sOneMinor).status,
            outcome(&ev, RuleId::K8sDowngrade).status,
        )
    };
    let (holds, fails) = (Status::Holds, Status::Fails);
    // "minor upgrade" (v1.3.3 -> v1.3.5: a patch up).
    assert_eq!(at("v1.34.3", "1.34.5"), (holds, holds));
    // "major upgrade" (v1.3.3 -> v1.4.0: the next minor).
    assert_eq!(at("v1.34.3", "1.35.0"), (holds, holds));
    // "downgrade" (v1.3.3 -> v1.3.2: a patch down is allowed; v0.4 said "kubeadm does not
    // downgrade").
    assert_eq!(at("v1.34.3", "1.34.2"), (holds, holds));
    // "same version upgrade".
    assert_eq!(at("v1.34.3", "1.34.3"), (holds, holds));
    // "upgrading two minor versions in one go is not supported" (v1.11.3 -> v1.13.0).
    assert_eq!(at("v1.34.3", "1.36.0"), (fails, holds));
    // "downgrading two minor versions in one go is not supported" (v1.6 -> v1.4).
    assert_eq!(at("v1.36.0", "1.34.0"), (fails, fails));
    // "new version must be higher than v1.12.0" (v1.12.3 -> v1.10.10): two minors down.
    assert_eq!(at("v1.34.3", "1.32.10"), (fails, fails));
    // MaximumAllowedMinorVersionDowngradeSkew = 1: one minor down is allowed, with a warning.
    assert_eq!(at("v1.35.1", "1.34.8"), (holds, fails));
    // "build release supported at MinimumControlPlaneVersion" (v1.3.0 -> v1.3.0+build).
    assert_eq!(at("v1.34.0", "1.34.0"), (holds, holds));
    // Another major is never "one minor".
    assert_eq!(at("v1.34.3", "2.0.0"), (fails, holds));

    let mut f = ready_for_135();
    set_apiserver(&mut f, "registry.k8s.io/kube-apiserver:v1.34.8");
    let ev = eval(&k8s("1.36.1"), &f);
    assert_eq!(
        seen(&ev, RuleId::K8sOneMinor).1,
        ["the API server runs 1.34.8; 1.36.1 skips 1.35 (kubeadm upgrades one minor at a time)"]
    );
    let ev = eval(&k8s("1.32.0"), &f);
    assert_eq!(
        seen(&ev, RuleId::K8sOneMinor).1,
        ["the API server runs 1.34.8; 1.32.0 is more than one minor older (kubeadm downgrades one minor at a time)"]
    );
    let ev = eval(&k8s("1.34.2"), &f);
    assert_eq!(ev.verdict, Verdict::Go, "{ev:?}");
    assert_eq!(
        outcome(&ev, RuleId::K8sOneMinor).note,
        "1.34.8 -> 1.34.2: a patch down, which kubeadm allows"
    );
    // The kubelets already at the older minor (none may be newer than the API server).
    set_kubelets(&mut f, "v1.33.5");
    let ev = eval(&k8s("1.33.5"), &f);
    assert_eq!(ev.verdict, Verdict::Go, "{ev:?}");
    assert_eq!(
        seen(&ev, RuleId::K8sDowngrade).1,
        ["the API server runs 1.34.8; 1.33.5 is a downgrade of one minor: kubeadm allows it, upstream does not support it (objects stored by the newer API server may not read back)"]
    );
}

/// The version skew policy (kube-apiserver): during the upgrade to VERSION every API server
/// is within one minor of it and of the others, so an HA upgrade half done stays GO (v0.4
/// said NO-GO once the first control-plane node was upgraded); further apart is a blocker.
#[test]
fn apiservers_within_one_minor_of_version_and_of_each_other() {
    let with_second = |image: &str| {
        let mut f = ready_for_135();
        if let Ok(pods) = &mut f.apiserver_pods {
            let mut p = pods[0].clone();
            p.name = "kube-apiserver-dirqual2".into();
            p.node = "dirqual2".into();
            p.images = vec![image.into()];
            pods.push(p);
        }
        f
    };
    // The middle of the upgrade to 1.35: dirqual2 upgraded first.
    let f = with_second("registry.k8s.io/kube-apiserver:v1.35.0");
    let ev = eval(&k8s("1.35.0"), &f);
    assert_eq!(ev.verdict, Verdict::Go, "{ev:?}");
    assert_eq!(
        outcome(&ev, RuleId::K8sApiserversOneVersion).note,
        "2 kube-apiserver pods within one minor of 1.35 and of each other (kube-apiserver-dirqual1 on dirqual1: 1.34.8, kube-apiserver-dirqual2 on dirqual2: 1.35.0)"
    );
    assert_eq!(
        outcome(&ev, RuleId::K8sOneMinor).note,
        "1.35.0 -> 1.35.0: the version it runs"
    );
    // Patches differ within one minor: named, never a blocker.
    let ev = eval(
        &k8s("1.35.0"),
        &with_second("registry.k8s.io/kube-apiserver:v1.34.2"),
    );
    assert_eq!(
        outcome(&ev, RuleId::K8sApiserversOneVersion).status,
        Status::Holds
    );
    // Mid-upgrade from 1.33 to 1.34, asked about 1.35: the 1.33 one is two minors off.
    let f = with_second("registry.k8s.io/kube-apiserver:v1.33.4");
    let (status, evidence, _) = seen(&eval(&k8s("1.35.0"), &f), RuleId::K8sApiserversOneVersion);
    assert_eq!(status, Status::Fails);
    assert_eq!(
        evidence,
        ["an upgrade is under way and 1.35 is more than one minor from kube-apiserver-dirqual2 on dirqual2: 1.33.4"]
    );
    // All on one minor two below VERSION: k8s-one-minor's blocker alone, not this rule's.
    let ev = eval(&k8s("1.36.0"), &ready_for_135());
    assert_eq!(
        outcome(&ev, RuleId::K8sApiserversOneVersion).status,
        Status::Holds
    );
    assert_eq!(outcome(&ev, RuleId::K8sOneMinor).status, Status::Fails);
    // Within one minor of VERSION but two apart from each other (a downgrade to 1.34 begun
    // on a cluster at 1.33 and 1.35 cannot exist; 1.34 with 1.33 and 1.35 can): a blocker.
    let mut f = with_second("registry.k8s.io/kube-apiserver:v1.33.4");
    set_apiserver(&mut f, "registry.k8s.io/kube-apiserver:v1.35.1");
    let (status, evidence, _) = seen(&eval(&k8s("1.34.0"), &f), RuleId::K8sApiserversOneVersion);
    assert_eq!(status, Status::Fails);
    assert_eq!(
        evidence,
        ["the newest and oldest API servers are more than one minor apart: kube-apiserver-dirqual1 on dirqual1: 1.35.1, kube-apiserver-dirqual2 on dirqual2: 1.33.4"]
    );
    // An image without a tag cannot be judged: never GO.
    let mut f = ready_for_135();
    set_apiserver(&mut f, "registry.k8s.io/kube-apiserver@sha256:0123");
    let ev = eval(&k8s("1.35.0"), &f);
    assert_eq!(
        outcome(&ev, RuleId::K8sApiserversOneVersion).status,
        Status::Unknown
    );
}
