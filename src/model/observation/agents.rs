//! When node agents started, and when the configuration they read last changed (SPEC §15,
//! `cni-encryption`): `cilium upgrade` wrote `enable-wireguard: "true"` into cilium-config
//! while the agents kept running the configuration they had read at start (bench #16).
//!
//! Two decoders, each keeping one thing: a pod list decoded into pod name, node and one
//! container's `state.running.startedAt` (nothing of the spec, env or mounts), and a
//! ConfigMap's newest `metadata.managedFields[].time` (its last write), asked for with the
//! reserved key [`LAST_CHANGE`] among the keys of the one ConfigMap request.

use serde::{Deserialize, Serialize};

use super::kube::{decode_list, unbounded};
use super::meta::words;
use crate::clock::parse_rfc3339;
use crate::error::Result;

/// The reserved "key" of a ConfigMap read that asks for its newest
/// `metadata.managedFields[].time`. Brackets are not allowed in a ConfigMap's data keys
/// (`[-._a-zA-Z0-9]+`), so it can never be one of them.
pub const LAST_CHANGE: &str = "metadata.managedFields[].time";

/// One pod of an agent DaemonSet, as the start-time check needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PodStart {
    pub name: String,
    /// `spec.nodeName` (empty: not scheduled).
    pub node: String,
    /// The named container's `state.running.startedAt`; `None` when it is not running (it
    /// will read the configuration as it is when it starts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPod {
    metadata: RawName,
    spec: RawSpec,
    status: RawStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawName {
    name: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawSpec {
    node_name: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawStatus {
    container_statuses: Vec<RawContainer>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawContainer {
    name: String,
    state: RawState,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawState {
    running: Option<RawRunning>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawRunning {
    started_at: String,
}

/// `kubectl get pods -n NS -l SELECTOR -o json`: every pod, with `container`'s start time
/// (a timestamp that does not parse is dropped, as not running). Sorted by name.
pub fn parse_container_starts(text: &str, container: &str) -> Result<Vec<PodStart>> {
    read_container_starts(text.as_bytes(), container, &unbounded())
}

/// [`parse_container_starts`] as the list arrives, each pod charged to `budget`.
pub fn read_container_starts<R: std::io::Read>(
    reader: R,
    container: &str,
    budget: &crate::pool::Budget,
) -> Result<Vec<PodStart>> {
    let what = "GET /api/v1/namespaces/NS/pods?labelSelector=SELECTOR";
    let mut pods = decode_list(reader, what, "", "Pod", budget, |p: RawPod| PodStart {
        started: p
            .status
            .container_statuses
            .into_iter()
            .find(|c| c.name == container)
            .and_then(|c| c.state.running)
            .map(|r| r.started_at)
            .filter(|t| parse_rfc3339(t).is_some()),
        name: words(&p.metadata.name),
        node: words(&p.spec.node_name),
    })?;
    pods.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(pods)
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawMeta {
    pub(super) name: Option<String>,
    pub(super) namespace: Option<String>,
    #[serde(rename = "managedFields")]
    managed_fields: Vec<RawManagedField>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawManagedField {
    time: String,
}

impl RawMeta {
    /// The newest `managedFields[].time` that parses, as written; `None` without one.
    pub(super) fn last_change(&self) -> Option<String> {
        self.managed_fields
            .iter()
            .filter_map(|m| parse_rfc3339(&m.time).map(|t| (t, m.time.trim())))
            .max_by_key(|(t, _)| *t)
            .map(|(_, text)| text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cilium agent pod as the API server lists it (Cilium 1.16 DaemonSet), trimmed.
    fn pod(name: &str, node: &str, agent_state: &str) -> String {
        format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"kube-system","labels":{{"k8s-app":"cilium"}}}},
              "spec":{{"nodeName":"{node}","containers":[{{"name":"cilium-agent","image":"quay.io/cilium/cilium:v1.16.5","env":[{{"name":"K8S_NODE_NAME"}}]}}]}},
              "status":{{"phase":"Running","containerStatuses":[
                {{"name":"cilium-agent","ready":true,"restartCount":0,"state":{agent_state}}},
                {{"name":"sidecar","state":{{"running":{{"startedAt":"2026-11-30T08:00:00Z"}}}}}}]}}}}"#
        )
    }

    #[test]
    fn pods_keep_name_node_and_the_named_containers_start_only() {
        let text = format!(
            r#"{{"apiVersion":"v1","kind":"PodList","items":[{},{},{}]}}"#,
            pod(
                "cilium-b",
                "dirqual2",
                r#"{"running":{"startedAt":"2026-11-30T09:12:44Z"}}"#
            ),
            pod(
                "cilium-a",
                "dirqual1",
                r#"{"waiting":{"reason":"CrashLoopBackOff"}}"#
            ),
            pod(
                "cilium-c",
                "dirqual3",
                r#"{"running":{"startedAt":"yesterday"}}"#
            ),
        );
        let pods = parse_container_starts(&text, "cilium-agent").unwrap();
        let seen: Vec<_> = pods
            .iter()
            .map(|p| (p.name.as_str(), p.node.as_str(), p.started.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [
                ("cilium-a", "dirqual1", None),
                ("cilium-b", "dirqual2", Some("2026-11-30T09:12:44Z")),
                ("cilium-c", "dirqual3", None),
            ]
        );
        assert!(parse_container_starts("{}", "cilium-agent").is_err());
    }

    #[test]
    fn the_last_change_is_the_newest_managed_fields_time() {
        let meta: RawMeta = serde_json::from_str(
            r#"{"managedFields":[
                {"manager":"helm","operation":"Update","time":"2026-11-29T10:00:00Z"},
                {"manager":"cilium-cli","operation":"Update","time":"2026-11-30T09:30:00Z"},
                {"manager":"x","operation":"Update","time":"not a time"}]}"#,
        )
        .unwrap();
        assert_eq!(meta.last_change().as_deref(), Some("2026-11-30T09:30:00Z"));
        assert_eq!(RawMeta::default().last_change(), None);
    }
}
