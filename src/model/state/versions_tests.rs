//! `oneVersion:`: decoded strictly from a catalog, and judged on workloads as the parser
//! keeps them (images by container, version labels only): one version holds, a mix is
//! degraded "upgrade half done" naming each version, a failed read is unknown.

use std::collections::BTreeMap;

use super::fixtures::dirqual;
use super::versions::one_version;
use super::Verdict;
use crate::model::catalog::{Catalog, CheckKind, OneVersionCheck};
use crate::model::observation::{FailureKind, ReadFailure, Workload};

fn check_of(layer: &str) -> OneVersionCheck {
    let c = Catalog::builtin().unwrap();
    let l = c.get(layer).unwrap();
    l.healthy
        .iter()
        .find_map(|c| {
            let CheckKind::OneVersion(o) = &c.kind else {
                return None;
            };
            Some(o.clone())
        })
        .unwrap()
}

fn set_image(ws: &mut [Workload], name: &str, container: &str, image: &str) {
    for w in ws.iter_mut().filter(|w| w.name == name) {
        w.images = BTreeMap::from([(container.to_string(), image.to_string())]);
    }
}

#[test]
fn cilium_agent_and_operator_on_one_version_or_half_done() {
    let cni = check_of("cni");
    let mut obs = dirqual();
    if let Ok(ds) = &mut obs.daemonsets {
        set_image(ds, "cilium", "cilium-agent", "quay.io/cilium/cilium:v1.19.1@sha256:858f807ea4e20e85e3ea3240a762e1f4b29f1cb5bbd0463b8aa77e7b097c0667");
        set_image(
            ds,
            "cilium-envoy",
            "cilium-envoy",
            "quay.io/cilium/cilium-envoy:v1.35.3",
        );
    }
    if let Ok(d) = &mut obs.deployments {
        set_image(
            d,
            "cilium-operator",
            "cilium-operator",
            "quay.io/cilium/operator-generic:v1.18.2",
        );
    }
    let o = one_version(&obs, &cni);
    assert_eq!(
        (o.verdict, o.evidence.as_str()),
        (
            Verdict::False,
            "upgrade half done: 1.19.1 on DaemonSet kube-system/cilium; 1.18.2 on Deployment kube-system/cilium-operator"
        )
    );
    if let Ok(d) = &mut obs.deployments {
        set_image(
            d,
            "cilium-operator",
            "cilium-operator",
            "quay.io/cilium/operator-generic:v1.19.1",
        );
    }
    let o = one_version(&obs, &cni);
    assert_eq!(
        (o.verdict, o.evidence.as_str()),
        (Verdict::True, "one version: 1.19.1 (2 components)")
    );
    // Issue 49: the agent pinned by digest only says no version; never "one version (1
    // component)", the check cannot compare.
    let mut pinned = obs.clone();
    if let Ok(ds) = &mut pinned.daemonsets {
        set_image(ds, "cilium", "cilium-agent", "quay.io/cilium/cilium@sha256:858f807ea4e20e85e3ea3240a762e1f4b29f1cb5bbd0463b8aa77e7b097c0667");
    }
    let o = one_version(&pinned, &cni);
    assert_eq!(
        (o.verdict, o.evidence.as_str()),
        (
            Verdict::Unknown,
            "cannot compare versions: DaemonSet kube-system/cilium runs quay.io/cilium/cilium@sha256:858f807ea4e20e85e3ea3240a762e1f4b29f1cb5bbd0463b8aa77e7b097c0667 (an image without a version tag); the others: 1.19.1 on Deployment kube-system/cilium-operator"
        )
    );
    obs.daemonsets = Err(ReadFailure::new(
        FailureKind::Forbidden,
        "daemonsets.apps is forbidden",
    ));
    assert!(matches!(one_version(&obs, &cni).verdict, Verdict::Unknown));
}

#[test]
fn rooks_version_labels_agree_or_the_upgrade_is_half_done() {
    let ceph = check_of("ceph");
    let mut obs = dirqual();
    if let Ok(d) = &mut obs.deployments {
        for w in d.iter_mut().filter(|w| w.namespace == "rook-ceph") {
            let v = if w.name == "rook-ceph-mon-a" {
                "v1.17.0"
            } else {
                "v1.16.4"
            };
            w.version_labels = BTreeMap::from([("rook-version".to_string(), v.to_string())]);
        }
    }
    let o = one_version(&obs, &ceph);
    assert_eq!(o.verdict, Verdict::False);
    assert!(
        o.evidence.starts_with(
            "upgrade half done: 1.17.0 on Deployment rook-ceph/rook-ceph-mon-a; 1.16.4 on "
        ),
        "{}",
        o.evidence
    );
}

#[test]
fn one_version_is_decoded_strictly() {
    let err = |entry: &str| {
        Catalog::builtin()
            .unwrap()
            .overlay_str(
                &format!("- id: x\n  title: X\n  install: make x\n  detect: [{{namespace: x}}]\n  healthy:\n    - oneVersion: [{entry}]\n"),
                "stacks/layers.yaml",
            )
            .unwrap_err()
            .message
    };
    assert!(
        err("{kind: Deployment, namespace: x, name: a, label: team}")
            .contains("`label: team` is not a version label nestor reads (one of rook-version, app.kubernetes.io/version)"),
        "{}",
        err("{kind: Deployment, namespace: x, name: a, label: team}")
    );
    assert!(
        err("{kind: Deployment, namespace: x, name: a, container: c, label: rook-version}")
            .contains("names exactly one of `container: NAME`")
    );
    assert_eq!(
        err("{kind: Deployment, namespace: x, name: a, image: c}"),
        "stacks/layers.yaml:6:62: [0].healthy[0].oneVersion[0]: unknown key `image`"
    );
}
