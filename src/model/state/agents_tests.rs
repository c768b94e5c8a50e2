//! `cni-encryption` judged on real-shaped reads (SPEC §15, bench #16): the requests come
//! from the layer's own read plan, the answers are shaped as the API server writes them
//! (CiliumNodes with Cilium's annotation, agent pods of DaemonSet kube-system/cilium,
//! cilium-config with its managedFields).

use serde_json::{json, Value};

use super::fixtures::{declared, dirqual};
use super::*;
use crate::model::catalog::Workloads;
use crate::model::observation::{ReadRequest, LAST_CHANGE};

const ID: &str = "cni-encryption";
const T_CHANGED: &str = "2026-11-30T09:30:00Z";
const T_AFTER: &str = "2026-11-30T09:31:12Z";
const T_BEFORE: &str = "2026-11-28T16:04:51Z";
const NEW: &str = "network.cilium.io/wg-pub-key";
const OLD: &str = "io.cilium.network.wg-pub-key";

/// What the cluster shows: cilium-config's `enable-wireguard` (None: no such key), each
/// node's annotation (spelling, key) and each agent's start.
struct Cluster {
    wireguard: Option<&'static str>,
    keys: Vec<(&'static str, Option<(&'static str, String)>)>,
    agents: Vec<(&'static str, Value)>,
}

fn key(node: &str) -> String {
    format!("{node}-Zx3mW0e8nFq4hK2mF8xQvT7yL9pR5sJ1uC6bN0aDgE=")
}

fn healthy() -> Cluster {
    let nodes = ["dirqual1", "dirqual2", "dirqual3", "dirqual4"];
    Cluster {
        wireguard: Some("true"),
        keys: nodes.iter().map(|n| (*n, Some((NEW, key(n))))).collect(),
        agents: nodes
            .iter()
            .map(|n| (*n, json!({"running": {"startedAt": T_AFTER}})))
            .collect(),
    }
}

fn observe(c: &Cluster) -> Observation {
    let catalog = Catalog::builtin().unwrap();
    let plan = catalog.read_plan(&[ID.to_string()], Workloads::InTheirNamespaces);
    let mut obs = dirqual();
    obs.keep = plan.scope.keep.clone();
    let mut data = json!({"cluster-name": "dirqual", "routing-mode": "tunnel"});
    if let Some(w) = c.wireguard {
        data["enable-wireguard"] = json!(w);
    }
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cilium-config", "namespace": "kube-system", "managedFields": [
            {"manager": "helm", "operation": "Update", "time": "2025-01-15T09:12:31Z"},
            {"manager": "cilium-cli", "operation": "Update", "time": T_CHANGED}]},
        "data": data});
    let nodes: Vec<Value> = c
        .keys
        .iter()
        .map(|(node, k)| {
            let mut annotations = json!({"kubectl.kubernetes.io/last-applied-configuration": "{}"});
            if let Some((spelling, value)) = k {
                annotations[*spelling] = json!(value);
            }
            json!({"apiVersion": "cilium.io/v2", "kind": "CiliumNode",
                   "metadata": {"name": node, "annotations": annotations},
                   "spec": {"addresses": [{"ip": "10.67.2.11", "type": "InternalIP"}]}})
        })
        .collect();
    let pods: Vec<Value> = c
        .agents
        .iter()
        .enumerate()
        .map(|(i, (node, state))| {
            json!({"metadata": {"name": format!("cilium-{i}x{i}"), "namespace": "kube-system",
                                "labels": {"k8s-app": "cilium"}},
                   "spec": {"nodeName": node, "containers": [{"name": "cilium-agent"}]},
                   "status": {"containerStatuses": [{"name": "cilium-agent", "state": state}]}})
        })
        .collect();
    let mut asked = 0;
    for r in &plan.requests {
        let text = match r {
            ReadRequest::ConfigMap { keys, .. } => {
                assert!(keys.iter().any(|k| k == LAST_CHANGE), "{keys:?}");
                assert!(keys.iter().any(|k| k == "enable-wireguard"), "{keys:?}");
                config.to_string()
            }
            ReadRequest::Resource(t) if t == "ciliumnodes.cilium.io" => {
                json!({"kind": "CiliumNodeList", "items": nodes}).to_string()
            }
            ReadRequest::ContainerStarts { .. } => {
                json!({"apiVersion": "v1", "kind": "PodList", "items": pods}).to_string()
            }
            ReadRequest::Nodes
            | ReadRequest::ApiGroups
            | ReadRequest::Namespaces
            | ReadRequest::StorageClasses
            | ReadRequest::Workloads(_)
            | ReadRequest::ApiServerPods
            | ReadRequest::Resource(_)
            | ReadRequest::Pods { .. }
            | ReadRequest::WebhookConfigurations(_)
            | ReadRequest::EndpointSlices { .. }
            | ReadRequest::PersistentVolumes
            | ReadRequest::Claims { .. }
            | ReadRequest::PodPlacement { .. }
            | ReadRequest::Events { .. } => continue,
        };
        asked += 1;
        obs.record(r, Ok(&text));
    }
    assert_eq!(
        asked, 3,
        "one ConfigMap GET, the CiliumNodes, the agents: {plan:?}"
    );
    obs
}

fn one(c: &Cluster) -> LayerReport {
    evaluate(
        &Catalog::builtin().unwrap(),
        &[ID.to_string()],
        &declared(),
        &observe(c),
    )
    .remove(0)
}

#[test]
fn wireguard_on_with_every_key_and_fresh_agents_is_present() {
    let r = one(&healthy());
    assert_eq!(r.state, State::Present, "{:?}", r.evidence);
    assert!(
        r.evidence.contains(
            &"every CiliumNode (4) carries network.cilium.io/wg-pub-key, values distinct"
                .to_string()
        ),
        "{:?}",
        r.evidence
    );
    assert!(
        r.evidence.contains(&format!(
            "every running cilium-agent (4) started after ConfigMap kube-system/cilium-config last changed ({T_CHANGED})"
        )),
        "{:?}",
        r.evidence
    );
}

#[test]
fn the_read_keeps_only_the_two_annotations_of_a_ciliumnode() {
    let obs = observe(&healthy());
    let nodes = obs.resources["ciliumnodes.cilium.io"].as_ref().unwrap();
    let json = serde_json::to_string(nodes).unwrap();
    assert!(!json.contains("last-applied"), "{json}");
    assert!(!json.contains("InternalIP"), "{json}");
    assert_eq!(nodes[0].annotation(NEW), Some(key("dirqual1").as_str()));
}

#[test]
fn a_node_without_its_key_is_named() {
    let mut c = healthy();
    c.keys[2].1 = None;
    let r = one(&c);
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.reason,
        "CiliumNode dirqual3 without network.cilium.io/wg-pub-key"
    );
}

#[test]
fn a_node_without_a_ciliumnode_is_named() {
    let mut c = healthy();
    c.keys.remove(3);
    let r = one(&c);
    assert_eq!(r.state, State::Degraded);
    assert_eq!(r.reason, "no CiliumNode for node dirqual4");
}

#[test]
fn two_nodes_sharing_one_key_are_named() {
    let mut c = healthy();
    c.keys[3].1 = Some((NEW, key("dirqual2")));
    let r = one(&c);
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.reason,
        "CiliumNode dirqual2, dirqual4 share one network.cilium.io/wg-pub-key value"
    );
}

#[test]
fn the_older_annotation_spelling_is_accepted_and_said() {
    let mut c = healthy();
    c.keys[3].1 = Some((OLD, key("dirqual4")));
    let r = one(&c);
    assert_eq!(r.state, State::Present, "{:?}", r.evidence);
    assert!(r
        .evidence
        .iter()
        .any(|e| e
            .ends_with("values distinct (1 by the older spelling io.cilium.network.wg-pub-key)")));
}

#[test]
fn an_agent_started_before_the_config_changed_is_named_with_the_time() {
    let mut c = healthy();
    c.agents[1].1 = json!({"running": {"startedAt": T_BEFORE}});
    let r = one(&c);
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.reason,
        format!("cilium-agent in cilium-1x1 (dirqual2) runs the config of before {T_CHANGED}, when ConfigMap kube-system/cilium-config last changed: restart DaemonSet cilium")
    );
}

#[test]
fn an_agent_not_running_will_read_the_new_config_and_is_not_stale() {
    let mut c = healthy();
    c.agents[1].1 = json!({"waiting": {"reason": "CrashLoopBackOff"}});
    assert_eq!(one(&c).state, State::Present);
    // None running at all: nothing encrypts.
    for a in &mut c.agents {
        a.1 = json!({"waiting": {"reason": "CrashLoopBackOff"}});
    }
    let r = one(&c);
    assert_eq!(r.state, State::Degraded);
    assert!(
        r.reason.starts_with("no cilium-agent container running"),
        "{}",
        r.reason
    );
}

#[test]
fn wireguard_off_or_unset_is_absent_never_degraded() {
    for w in [Some("false"), None] {
        let mut c = healthy();
        c.wireguard = w;
        c.keys.iter_mut().for_each(|k| k.1 = None);
        let r = one(&c);
        assert_eq!(r.state, State::Absent, "{w:?}: {:?}", r.evidence);
    }
}

#[test]
fn a_config_map_without_managed_fields_leaves_the_agents_undecided() {
    let mut obs = observe(&healthy());
    let cm = obs
        .config_maps
        .get_mut("kube-system/cilium-config")
        .unwrap();
    cm.as_mut().unwrap().as_mut().unwrap().remove(LAST_CHANGE);
    let r = evaluate(
        &Catalog::builtin().unwrap(),
        &[ID.to_string()],
        &declared(),
        &obs,
    )
    .remove(0);
    assert_eq!(r.state, State::Unknown, "{:?}", r.evidence);
    assert!(
        r.reason.contains("no metadata.managedFields time"),
        "{}",
        r.reason
    );
}

#[test]
fn forbidden_ciliumnodes_are_unknown_not_absent() {
    let mut obs = observe(&healthy());
    obs.resources.insert(
        "ciliumnodes.cilium.io".into(),
        Err(ReadFailure::new(
            crate::model::observation::FailureKind::Forbidden,
            "ciliumnodes.cilium.io is forbidden",
        )),
    );
    let r = evaluate(
        &Catalog::builtin().unwrap(),
        &[ID.to_string()],
        &declared(),
        &obs,
    )
    .remove(0);
    assert_eq!(r.state, State::Unknown);
}
