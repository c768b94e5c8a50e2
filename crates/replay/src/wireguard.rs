//! The `cni-encryption` fixtures (SPEC §15, bench #16): dirqual with Cilium's WireGuard on —
//! cilium-config saying `enable-wireguard: "true"`, every CiliumNode carrying its own public
//! key, every agent started after the config's last write — and one fixture per way it is
//! configured but not working.
//!
//! | name | what is wrong |
//! |---|---|
//! | `wireguard` | nothing: encryption on and really active |
//! | `wireguard-key-missing` | CiliumNode dirqual3 has no `network.cilium.io/wg-pub-key` |
//! | `wireguard-key-shared` | CiliumNodes dirqual2 and dirqual4 carry the same key |
//! | `wireguard-stale-agent` | cilium-config rewritten at [`T_UPGRADE`]; the agent on dirqual2 started before it |
//! | `wireguard-old-annotation` | nothing: dirqual4's agent (an older one) writes the key as `io.cilium.network.wg-pub-key` |
//! | `wireguard-off` | cilium-config says `enable-wireguard: "false"` |
//! | `wireguard-unset` | cilium-config without `enable-wireguard` |
//! | `wireguard-big` | nothing: the 150-node `big` cluster with WireGuard on (the RSS benchmark) |
//!
//! Shapes as Cilium 1.16 writes them: the agent pods of DaemonSet kube-system/cilium
//! (`k8s-app=cilium`), the operator-owned CiliumNode per node with the agent's annotation,
//! cilium-config's `managedFields` (helm at install, cilium-cli at the upgrade).

use serde_json::{json, Value};

use crate::builders::{K8S_VERSION, T_CILIUM};
use crate::clusters::{big, dirqual_builder};
use crate::fixture::{uid_for, Fixture};

/// When `cilium upgrade` rewrote cilium-config (turning WireGuard on).
pub const T_UPGRADE: &str = "2026-11-30T09:30:00Z";
/// When the agents restarted after it (every one but the stale one).
pub const T_RESTARTED: &str = "2026-11-30T09:31:12Z";
/// When the stale agent started: before the upgrade.
pub const T_STALE: &str = "2026-11-28T16:04:51Z";

/// A WireGuard public key (base64 of 32 bytes), one per node.
pub fn wg_key(node: &str) -> String {
    let n = node.trim_start_matches("dirqual");
    format!("{n}Zx3mW0e8nFq4hK2mF8xQvT7yL9pR5sJ1uC6bN0aDgE{n}=")
}

fn pod_suffix(node: &str) -> &'static str {
    match node {
        "dirqual1" => "4xk2p",
        "dirqual2" => "7qz9m",
        "dirqual3" => "b8w5n",
        _ => "t2r6c",
    }
}

/// cilium-config as helm and then `cilium upgrade` (cilium-cli) wrote it.
fn cilium_config(wireguard: Option<&str>) -> Value {
    let mut data = json!({
        "cluster-name": "dirqual",
        "cluster-pool-ipv4-cidr": "10.244.0.0/16",
        "enable-ipv4": "true",
        "enable-l7-proxy": "true",
        "ipam": "cluster-pool",
        "kube-proxy-replacement": "true",
        "routing-mode": "tunnel",
        "tunnel-protocol": "vxlan"
    });
    if let Some(w) = wireguard {
        data["enable-wireguard"] = json!(w);
    }
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {
            "name": "cilium-config", "namespace": "kube-system", "creationTimestamp": T_CILIUM,
            "labels": {"app.kubernetes.io/managed-by": "Helm"},
            "annotations": {"meta.helm.sh/release-name": "cilium", "meta.helm.sh/release-namespace": "kube-system"},
            "managedFields": [
                {"manager": "helm", "operation": "Update", "apiVersion": "v1", "time": T_CILIUM,
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {".": {}, "f:cluster-name": {}}}},
                {"manager": "cilium-cli", "operation": "Update", "apiVersion": "v1", "time": T_UPGRADE,
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:enable-wireguard": {}}}}
            ]
        },
        "data": data
    })
}

/// One agent pod of DaemonSet kube-system/cilium on `node`, its agent running since
/// `started`.
fn agent_pod(node: &str, started: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": format!("cilium-{}", pod_suffix(node)),
            "generateName": "cilium-",
            "namespace": "kube-system",
            "labels": {"app.kubernetes.io/name": "cilium-agent", "app.kubernetes.io/part-of": "cilium",
                       "controller-revision-hash": "6d9f7c8b5d", "k8s-app": "cilium", "pod-template-generation": "2"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "cilium", "controller": true,
                                 "blockOwnerDeletion": true, "uid": uid_for("apps/v1/DaemonSet/kube-system/cilium")}],
            "creationTimestamp": started
        },
        "spec": {
            "nodeName": node,
            "hostNetwork": true,
            "serviceAccountName": "cilium",
            "initContainers": [{"name": "config", "image": "quay.io/cilium/cilium:v1.16.5",
                                "command": ["cilium-dbg", "build-config"]}],
            "containers": [{
                "name": "cilium-agent",
                "image": "quay.io/cilium/cilium:v1.16.5",
                "command": ["cilium-agent"], "args": ["--config-dir=/tmp/cilium/config-map"],
                "env": [{"name": "K8S_NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]
            }]
        },
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": started}],
            "initContainerStatuses": [{"name": "config", "ready": true, "restartCount": 0,
                "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": started, "finishedAt": started}}}],
            "containerStatuses": [{
                "name": "cilium-agent", "ready": true, "started": true, "restartCount": 0,
                "image": "quay.io/cilium/cilium:v1.16.5",
                "imageID": "quay.io/cilium/cilium@sha256:758ca0793f5995bb938a2fa219dcce63dc0b3fa7fc4ce5cc851125281fb7361d",
                "state": {"running": {"startedAt": started}}
            }]
        }
    })
}

/// Another pod of kube-system (coredns): it must never be read by the agents' selector.
fn decoy_pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "coredns-76f75df574-9xz2q", "namespace": "kube-system",
                     "labels": {"k8s-app": "kube-dns", "pod-template-hash": "76f75df574"}},
        "spec": {"nodeName": "dirqual1", "containers": [{"name": "coredns", "image": "registry.k8s.io/coredns/coredns:v1.11.3"}]},
        "status": {"phase": "Running", "containerStatuses": [{"name": "coredns", "ready": true, "restartCount": 0,
                   "state": {"running": {"startedAt": T_STALE}}}]}
    })
}

/// The scenarios of this module, one each (see the table above).
#[derive(Clone, Copy, PartialEq)]
enum Case {
    On,
    KeyMissing,
    KeyShared,
    StaleAgent,
    OldAnnotation,
    Off,
    Unset,
    Big,
}

pub fn wireguard() -> Fixture {
    fixture(Case::On)
}

pub fn wireguard_key_missing() -> Fixture {
    fixture(Case::KeyMissing)
}

pub fn wireguard_key_shared() -> Fixture {
    fixture(Case::KeyShared)
}

pub fn wireguard_stale_agent() -> Fixture {
    fixture(Case::StaleAgent)
}

pub fn wireguard_old_annotation() -> Fixture {
    fixture(Case::OldAnnotation)
}

pub fn wireguard_off() -> Fixture {
    fixture(Case::Off)
}

pub fn wireguard_unset() -> Fixture {
    fixture(Case::Unset)
}

pub fn wireguard_big() -> Fixture {
    fixture(Case::Big)
}

/// The fixture of one scenario.
fn fixture(case: Case) -> Fixture {
    let wireguard = match case {
        Case::Off => Some("false"),
        Case::Unset => None,
        Case::On
        | Case::KeyMissing
        | Case::KeyShared
        | Case::StaleAgent
        | Case::OldAnnotation
        | Case::Big => Some("true"),
    };
    let mut f = match case {
        // The 150-node benchmark cluster (SPEC §15: nestor's peak RSS with these reads).
        Case::Big => big(),
        _ => dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION),
    };
    let nodes: Vec<String> = f
        .objects
        .iter()
        .filter(|o| o["kind"] == "Node")
        .filter_map(|o| o["metadata"]["name"].as_str().map(String::from))
        .collect();
    f.objects.push(cilium_config(wireguard));
    f.objects.push(decoy_pod());
    for (i, node) in nodes.iter().enumerate() {
        let started = match (case, node.as_str()) {
            (Case::StaleAgent, "dirqual2") => T_STALE,
            _ => T_RESTARTED,
        };
        let mut pod = agent_pod(node, started);
        if case == Case::Big {
            pod["metadata"]["name"] = json!(format!("cilium-{i:05}"));
        }
        f.objects.push(pod);
    }
    for o in f.objects.iter_mut().filter(|o| o["kind"] == "CiliumNode") {
        let node = o["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let key = match (case, node.as_str()) {
            (Case::KeyMissing, "dirqual3") => None,
            (Case::KeyShared, "dirqual4") => Some(wg_key("dirqual2")),
            _ if wireguard.is_none() || wireguard == Some("false") => None,
            _ => Some(wg_key(&node)),
        };
        let spelling = match (case, node.as_str()) {
            (Case::OldAnnotation, "dirqual4") => "io.cilium.network.wg-pub-key",
            _ => "network.cilium.io/wg-pub-key",
        };
        let mut annotations = json!({});
        if let Some(key) = key {
            annotations[spelling] = json!(key);
        }
        o["metadata"]["annotations"] = annotations;
        o["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "Node", "name": node,
            "uid": uid_for(&format!("v1/Node//{node}"))}]);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::Cluster;

    #[test]
    fn every_wireguard_fixture_compiles_with_its_one_difference() {
        let small = crate::fixtures::SCENARIOS
            .iter()
            .filter(|(name, _)| name.starts_with("wireguard") && *name != "wireguard-big");
        let mut seen = 0;
        for (name, scenario) in small {
            seen += 1;
            let f = scenario();
            Cluster::build(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
            let keys: Vec<&Value> = f
                .objects
                .iter()
                .filter(|o| o["kind"] == "CiliumNode")
                .map(|o| &o["metadata"]["annotations"])
                .collect();
            assert_eq!(keys.len(), 4, "{name}");
            let pods = f
                .objects
                .iter()
                .filter(|o| o["kind"] == "Pod" && o["metadata"]["labels"]["k8s-app"] == "cilium");
            assert_eq!(pods.count(), 4, "{name}");
        }
        assert_eq!(seen, 7);
    }
}
