//! Tests of the `nodes:` checks over kubelet-shaped Node objects: Lima's node names (SPEC
//! §18) and what a Ready node also tells (SPEC §6 v0.4).
#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};

use super::*;
use crate::model::catalog::{Count, NodesCheck};
use crate::model::observation::parse_nodes;

/// A Node as the kubelet registers it: the four kubelet conditions (Ready as given, the
/// pressures False), InternalIP, nodeInfo.
pub(super) fn node(name: &str, ready: bool) -> Value {
    let cond = |t: &str, status: &str, reason: &str, message: &str| {
        json!({"type": t, "status": status, "reason": reason, "message": message,
               "lastHeartbeatTime": "2026-12-01T08:00:00Z",
               "lastTransitionTime": "2026-11-20T10:00:00Z"})
    };
    let ip = format!("192.168.105.{}", 10 + name.len());
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {"podCIDR": "10.244.0.0/24"},
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                if ready {
                    cond("Ready", "True", "KubeletReady", "kubelet is posting ready status")
                } else {
                    cond("Ready", "False", "KubeletNotReady", "container runtime network not ready")
                },
            ],
            "nodeInfo": {"kubeletVersion": "v1.32.3", "architecture": "arm64"}
        }
    })
}

/// The observation of these Node objects (through the real parser).
pub(super) fn observed(nodes: Vec<Value>) -> Observation {
    let list = json!({"apiVersion": "v1", "kind": "NodeList", "items": nodes});
    let mut obs = Observation::skipped("test");
    obs.nodes = Ok(parse_nodes(&list.to_string()).unwrap());
    obs
}

fn ready_all(obs: &Observation, declared: &[DeclaredNode]) -> CheckOutcome {
    nodes::nodes(obs, &NodesCheck::Ready(Count::All), declared)
}

fn bench(prefix: &str) -> Vec<DeclaredNode> {
    ["node1", "node2", "node3"]
        .iter()
        .map(|n| DeclaredNode::lima(*n, &format!("{prefix}{n}")))
        .collect()
}

#[test]
fn lima_hostname_rule_is_limas() {
    assert_eq!(
        DeclaredNode::lima("cp1", "k8s_bench.cp1")
            .lima_hostname
            .as_deref(),
        Some("lima-k8s-bench-cp1")
    );
    assert_eq!(
        DeclaredNode::lima("cp1", "Bench-cp1")
            .lima_hostname
            .as_deref(),
        Some("lima-bench-cp1")
    );
    assert_eq!(DeclaredNode::named("cp1").lima_hostname, None);
}

#[test]
fn bench_nodes_registered_under_lima_hostnames_are_ready_and_named() {
    let obs = observed(vec![
        node("lima-bench-node1", true),
        node("lima-bench-node2", true),
        node("lima-bench-node3", true),
    ]);
    let o = ready_all(&obs, &bench("bench-"));
    assert_eq!(o.verdict, Verdict::True);
    assert_eq!(
        o.evidence,
        "3/3 declared nodes Ready (node1 registered as lima-bench-node1, node2 registered as lima-bench-node2, node3 registered as lima-bench-node3)"
    );
    let registered = nodes::nodes(&obs, &NodesCheck::Registered(Count::All), &bench("bench-"));
    assert_eq!(registered.verdict, Verdict::True);
}

#[test]
fn a_node_under_its_own_name_is_preferred_and_not_called_renamed() {
    let obs = observed(vec![
        node("node1", true),
        node("lima-node1", false),
        node("lima-node2", true),
        node("node3", true),
    ]);
    let o = ready_all(&obs, &bench(""));
    assert_eq!(o.verdict, Verdict::True);
    assert_eq!(
        o.evidence,
        "3/3 declared nodes Ready (node2 registered as lima-node2)"
    );
}

#[test]
fn a_not_ready_lima_node_is_named_by_its_declared_name() {
    let obs = observed(vec![node("lima-node1", true), node("lima-node2", false)]);
    let o = ready_all(&obs, &bench(""));
    assert_eq!(o.verdict, Verdict::False);
    assert_eq!(
        o.evidence,
        "1/3 declared nodes Ready (node1 registered as lima-node1, node2 registered as lima-node2): node2 NotReady, node3 not registered"
    );
}

#[test]
fn prod_nodes_never_match_a_lima_hostname() {
    let obs = observed(vec![node("lima-node1", true)]);
    let o = ready_all(&obs, &[DeclaredNode::named("node1")]);
    assert_eq!(o.verdict, Verdict::False);
    assert_eq!(o.evidence, "0/1 declared nodes Ready: node1 not registered");
}

#[test]
fn many_renamed_nodes_are_capped() {
    let names: Vec<String> = (1..=7).map(|i| format!("n{i}")).collect();
    let obs = observed(
        names
            .iter()
            .map(|n| node(&format!("lima-{n}"), true))
            .collect(),
    );
    let declared: Vec<DeclaredNode> = names.iter().map(|n| DeclaredNode::lima(n, n)).collect();
    assert_eq!(
        ready_all(&obs, &declared).evidence,
        "7/7 declared nodes Ready (n1 registered as lima-n1, n2 registered as lima-n2, n3 registered as lima-n3, n4 registered as lima-n4, n5 registered as lima-n5, and 2 more)"
    );
}
