//! The node fixtures (SPEC §6 v0.4 "Nodes tell more than Ready", SPEC §18 node names): the
//! bench as Lima names its guests, and dirqual with one node that is Ready and still not
//! doing its job.
//!
//! | name | what differs |
//! |---|---|
//! | `bench-lima-hostnames` | the `bench` nodes registered as `lima-bench-node1..3`: the guest hostname Lima gives instance `bench-nodeN`, kubeadm run without `--node-name` |
//! | `node-disk-pressure` | dirqual2 Ready with `DiskPressure=True` since [`T_PRESSURE`] and the kubelet's `node.kubernetes.io/disk-pressure:NoSchedule` taint |
//! | `node-memory-pressure` | dirqual1 Ready with `MemoryPressure=True` (`KubeletHasInsufficientMemory`) since [`T_PRESSURE`] and its `node.kubernetes.io/memory-pressure:NoSchedule` taint |
//! | `node-pid-pressure` | dirqual3 Ready with `PIDPressure=True` (`KubeletHasInsufficientPID`) since [`T_PRESSURE`] and its `node.kubernetes.io/pid-pressure:NoSchedule` taint |
//! | `node-network-unavailable` | dirqual4 Ready with `NetworkUnavailable=True` (the route controller's `NoRouteCreated`) and its `node.kubernetes.io/network-unavailable:NoSchedule` taint |
//! | `node-cordoned` | dirqual3 `spec.unschedulable: true` (kubectl cordon) with its `node.kubernetes.io/unschedulable:NoSchedule` taint |
//! | `node-tainted` | dirqual4 tainted `maintenance.example.com/drain=true:NoExecute` (and `example.com/soft:PreferNoSchedule`, never judged) |
//! | `node-agent-not-ready` | dirqual2 tainted `node.cilium.io/agent-not-ready:NoSchedule`: cni's finding, not k8s's |
//! | `node-healthy-extras` | nothing wrong: Cilium's `NetworkUnavailable=False` (`CiliumIsUp`) on every node, every pressure False, a `PreferNoSchedule` taint |
//!
//! Node shapes as the kubelet writes them (`core/v1` NodeCondition: type, status,
//! lastHeartbeatTime, lastTransitionTime, reason, message; Taint: key, value, effect,
//! timeAdded).

use serde_json::{json, Value};

use crate::builders::K8S_VERSION;
use crate::clusters::{bench, dirqual_builder};
use crate::fixture::Fixture;

/// When dirqual2's disk filled up (its DiskPressure condition turned True).
pub const T_PRESSURE: &str = "2026-11-30T08:12:00Z";
/// When the cordon, the drain taint and the route trouble began.
pub const T_CORDON: &str = "2026-11-29T17:40:00Z";

pub fn node_disk_pressure() -> Fixture {
    with_node("dirqual2", |n| {
        condition(
            n,
            "DiskPressure",
            "True",
            "KubeletHasDiskPressure",
            "kubelet has disk pressure",
            T_PRESSURE,
        );
        taint(
            n,
            "node.kubernetes.io/disk-pressure",
            None,
            "NoSchedule",
            T_PRESSURE,
        );
    })
}

// The kubelet's own words (its node status setters): reason and message per pressure.
pub fn node_memory_pressure() -> Fixture {
    with_node("dirqual1", |n| {
        condition(
            n,
            "MemoryPressure",
            "True",
            "KubeletHasInsufficientMemory",
            "kubelet has insufficient memory available",
            T_PRESSURE,
        );
        taint(
            n,
            "node.kubernetes.io/memory-pressure",
            None,
            "NoSchedule",
            T_PRESSURE,
        );
    })
}

pub fn node_pid_pressure() -> Fixture {
    with_node("dirqual3", |n| {
        condition(
            n,
            "PIDPressure",
            "True",
            "KubeletHasInsufficientPID",
            "kubelet has insufficient PID available",
            T_PRESSURE,
        );
        taint(
            n,
            "node.kubernetes.io/pid-pressure",
            None,
            "NoSchedule",
            T_PRESSURE,
        );
    })
}

pub fn node_network_unavailable() -> Fixture {
    with_node("dirqual4", |n| {
        condition(
            n,
            "NetworkUnavailable",
            "True",
            "NoRouteCreated",
            "Node created without a route",
            T_CORDON,
        );
        taint(
            n,
            "node.kubernetes.io/network-unavailable",
            None,
            "NoSchedule",
            T_CORDON,
        );
    })
}

pub fn node_cordoned() -> Fixture {
    with_node("dirqual3", |n| {
        n["spec"]["unschedulable"] = json!(true);
        taint(
            n,
            "node.kubernetes.io/unschedulable",
            None,
            "NoSchedule",
            T_CORDON,
        );
    })
}

pub fn node_tainted() -> Fixture {
    with_node("dirqual4", |n| {
        taint(
            n,
            "maintenance.example.com/drain",
            Some("true"),
            "NoExecute",
            T_CORDON,
        );
        taint(
            n,
            "example.com/soft",
            Some("yes"),
            "PreferNoSchedule",
            T_CORDON,
        );
    })
}

pub fn node_agent_not_ready() -> Fixture {
    with_node("dirqual2", |n| {
        taint(
            n,
            "node.cilium.io/agent-not-ready",
            None,
            "NoSchedule",
            T_CORDON,
        );
    })
}

pub fn node_healthy_extras() -> Fixture {
    let mut f = dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION);
    for n in f.objects.iter_mut().filter(|o| o["kind"] == "Node") {
        condition(
            n,
            "NetworkUnavailable",
            "False",
            "CiliumIsUp",
            "Cilium is running on this node",
            crate::builders::T_CILIUM,
        );
    }
    for n in f
        .objects
        .iter_mut()
        .filter(|o| o["metadata"]["name"] == "dirqual3")
    {
        taint(
            n,
            "example.com/soft",
            Some("yes"),
            "PreferNoSchedule",
            T_CORDON,
        );
    }
    f
}

/// dirqual with the Node `name` changed by `change`.
fn with_node(name: &str, change: impl Fn(&mut Value)) -> Fixture {
    let mut f = dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION);
    for n in f
        .objects
        .iter_mut()
        .filter(|o| o["kind"] == "Node" && o["metadata"]["name"] == name)
    {
        change(n);
    }
    f
}

/// Set the condition `type_` as the kubelet (or the route controller) writes it: replaced in
/// place when the node has one, else appended.
fn condition(n: &mut Value, type_: &str, status: &str, reason: &str, message: &str, since: &str) {
    let c = json!({
        "type": type_, "status": status, "reason": reason, "message": message,
        "lastHeartbeatTime": "2026-12-01T09:14:03Z", "lastTransitionTime": since,
    });
    if let Some(list) = n["status"]["conditions"].as_array_mut() {
        match list.iter_mut().find(|x| x["type"] == type_) {
            Some(slot) => *slot = c,
            None => list.insert(0, c),
        }
    }
}

/// Add a taint (`core/v1` Taint: key, value, effect, timeAdded).
fn taint(n: &mut Value, key: &str, value: Option<&str>, effect: &str, added: &str) {
    let mut t = json!({"key": key, "effect": effect, "timeAdded": added});
    if let Some(v) = value {
        t["value"] = json!(v);
    }
    if n["spec"]["taints"].is_null() {
        n["spec"]["taints"] = json!([]);
    }
    if let Some(list) = n["spec"]["taints"].as_array_mut() {
        list.push(t);
    }
}

/// `bench` with every node named as Lima's hostname rule names instance `bench-nodeN`.
pub fn bench_lima_hostnames() -> Fixture {
    let mut f = bench();
    for o in f.objects.iter_mut().filter(|o| o["kind"] == "Node") {
        let name = format!(
            "lima-bench-{}",
            o["metadata"]["name"].as_str().unwrap_or("")
        );
        o["metadata"]["name"] = json!(name);
        o["metadata"]["labels"]["kubernetes.io/hostname"] = json!(name);
        if let Some(addresses) = o["status"]["addresses"].as_array_mut() {
            for a in addresses.iter_mut().filter(|a| a["type"] == "Hostname") {
                a["address"] = json!(name);
            }
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lima_hostnames_rename_every_node() {
        let f = bench_lima_hostnames();
        let names: Vec<&str> = f
            .objects
            .iter()
            .filter(|o| o["kind"] == "Node")
            .filter_map(|o| o["metadata"]["name"].as_str())
            .collect();
        assert_eq!(
            names,
            ["lima-bench-node1", "lima-bench-node2", "lima-bench-node3"]
        );
    }
}
