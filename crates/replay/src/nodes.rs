//! The node fixtures (SPEC §6 v0.4 "Nodes tell more than Ready", SPEC §18 node names): the
//! bench as Lima names its guests, and dirqual with one node that is Ready and still not
//! doing its job.
//!
//! | name | what differs |
//! |---|---|
//! | `bench-lima-hostnames` | the `bench` nodes registered as `lima-bench-node1..3`: the guest hostname Lima gives instance `bench-nodeN`, kubeadm run without `--node-name` |
//!
//! Node shapes as the kubelet writes them (`core/v1` NodeCondition: type, status,
//! lastHeartbeatTime, lastTransitionTime, reason, message; Taint: key, value, effect,
//! timeAdded).

use serde_json::json;

use crate::fixture::Fixture;
use crate::fixtures::bench;

/// Names accepted by [`by_name`].
pub const NAMES: [&str; 1] = ["bench-lima-hostnames"];

/// A node fixture by name.
pub fn by_name(name: &str) -> Option<Fixture> {
    Some(match name {
        "bench-lima-hostnames" => bench_lima_hostnames(),
        _ => return None,
    })
}

/// `bench` with every node named as Lima's hostname rule names instance `bench-nodeN`.
fn bench_lima_hostnames() -> Fixture {
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
    fn every_name_builds_and_serves() {
        for name in NAMES {
            let f = by_name(name).unwrap_or_else(|| panic!("{name}"));
            crate::Cluster::build(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

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
