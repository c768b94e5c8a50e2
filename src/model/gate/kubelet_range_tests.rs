//! `cilium-kubelet-range` and `rook-kubelet-range`: every kubelet inside the target release's
//! Kubernetes range, else NO-GO naming the node and both versions; nodes unread: undecided.

use super::tests::cluster;
use super::upgrade_tests::set_kubelets;
use super::version::Version;
use super::{builtin, evaluate, Gate, Request, RuleId, Status, Verdict};

fn upgrade(gate: Gate, v: &str) -> Request {
    Request {
        gate,
        node: None,
        version: Version::parse(v),
    }
}
use crate::model::observation::{FailureKind, ReadFailure};

fn rule(gate: Gate, version: &str, f: &super::Facts, id: RuleId) -> super::Outcome {
    let ev = evaluate(&upgrade(gate, version), f, builtin());
    ev.outcomes
        .into_iter()
        .find(|o| o.rule.id == id)
        .expect("the rule is evaluated")
}

#[test]
fn every_kubelet_in_the_target_releases_range_holds() {
    let mut f = cluster();
    set_kubelets(&mut f, "v1.33.5");
    let o = rule(
        Gate::UpgradeCilium,
        "1.19.1",
        &f,
        RuleId::CiliumKubeletRange,
    );
    assert_eq!(
        (o.status, o.note.as_str()),
        (
            Status::Holds,
            "1.19 supports 1.32 to 1.35; the 4 kubelets run v1.33.5"
        )
    );
}

#[test]
fn a_kubelet_outside_the_target_releases_range_is_no_go_naming_the_node() {
    let mut f = cluster();
    set_kubelets(&mut f, "v1.30.6");
    if let Ok(nodes) = &mut f.nodes {
        nodes[3].kubelet_version = "v1.36.0".into();
    }
    let o = rule(Gate::UpgradeRook, "1.17.2", &f, RuleId::RookKubeletRange);
    assert_eq!(o.status, Status::Fails);
    let shown: Vec<(String, String)> = o
        .findings
        .iter()
        .map(|x| (x.subject.clone(), x.evidence.clone()))
        .collect();
    assert_eq!(
        shown,
        [(
            format!("node {}", o.findings[0].subject.trim_start_matches("node ")),
            "rook 1.17 supports Kubernetes 1.28 to 1.33; the kubelet runs 1.36.0 (Rook: Maintenance and Support (Rook 1.17: v1.28 to v1.33))".to_string()
        )]
    );
    assert_eq!(
        o.findings[0].clears,
        "move the kubelet into 1.28..1.33 first, or pick a rook release that supports 1.36"
    );
    let ev = evaluate(&upgrade(Gate::UpgradeRook, "1.17.2"), &f, builtin());
    assert!(
        matches!(ev.verdict, Verdict::NoGo { .. }),
        "{:?}",
        ev.verdict
    );
}

#[test]
fn unread_nodes_or_an_unlisted_release_never_go() {
    let mut f = cluster();
    f.nodes = Err(ReadFailure::new(
        FailureKind::Forbidden,
        "nodes is forbidden",
    ));
    let o = rule(
        Gate::UpgradeCilium,
        "1.19.0",
        &f,
        RuleId::CiliumKubeletRange,
    );
    assert_eq!(o.status, Status::Unknown);
    let f = cluster();
    let o = rule(
        Gate::UpgradeCilium,
        "1.17.0",
        &f,
        RuleId::CiliumKubeletRange,
    );
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Unknown, "cilium 1.17: the table holds no verified Kubernetes range for this release (add its platformRanges row, with its source)")
    );
}
