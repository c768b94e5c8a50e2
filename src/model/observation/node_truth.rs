//! What a node says beyond Ready (SPEC §6 v0.4 "Nodes tell more than Ready"): the pressure
//! and `NetworkUnavailable` conditions that are True, and the taints that keep pods away.
//!
//! Shapes are Kubernetes `core/v1`: a `NodeCondition` has `type`, `status`, `reason`,
//! `message`, `lastHeartbeatTime` and `lastTransitionTime`; a `Taint` has `key`, `value`,
//! `effect` (`NoSchedule`, `PreferNoSchedule`, `NoExecute`) and `timeAdded`. Only the fields
//! the `nodes: {schedulable: true}` check uses are kept; every cluster-written text is
//! escaped and capped ([`words`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::meta::words;

/// The node conditions whose `True` means the node is not doing its job although it may be
/// Ready: the kubelet's pressures and the network plugin's `NetworkUnavailable`.
pub const TROUBLE_CONDITIONS: [&str; 4] = [
    "MemoryPressure",
    "DiskPressure",
    "PIDPressure",
    "NetworkUnavailable",
];

/// The taint effects that keep pods away (`PreferNoSchedule` only prefers).
pub const BLOCKING_EFFECTS: [&str; 2] = ["NoSchedule", "NoExecute"];

/// One of [`TROUBLE_CONDITIONS`] with status `True`, with its words.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeCondition {
    /// `MemoryPressure`, `DiskPressure`, `PIDPressure` or `NetworkUnavailable`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `reason` (escaped).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `message` (escaped, capped).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// `lastTransitionTime`: since when the condition is True (empty when not given).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub last_transition_time: String,
}

/// A `NoSchedule` or `NoExecute` taint: key and effect, its value dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
pub struct NodeTaint {
    pub key: String,
    /// `NoSchedule` or `NoExecute`.
    pub effect: String,
}

/// A node's `status.conditions[]` entry as decoded: what Ready and the trouble conditions
/// need, nothing else (no heartbeat).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawNodeCondition {
    #[serde(rename = "type")]
    pub(super) type_: String,
    pub(super) status: String,
    reason: String,
    message: String,
    last_transition_time: String,
}

/// `status.conditions[]` reduced to the trouble conditions that are True.
pub(super) fn troubles(conditions: &[RawNodeCondition]) -> Vec<NodeCondition> {
    conditions
        .iter()
        .filter(|c| TROUBLE_CONDITIONS.contains(&c.type_.as_str()) && c.status == "True")
        .map(|c| NodeCondition {
            type_: c.type_.clone(),
            reason: words(&c.reason),
            message: words(&c.message),
            last_transition_time: words(&c.last_transition_time),
        })
        .collect()
}

/// `spec.taints[]` reduced to the blocking ones, key and effect.
pub(super) fn blocking<'a>(taints: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<NodeTaint> {
    taints
        .filter(|(_, effect)| BLOCKING_EFFECTS.contains(effect))
        .map(|(key, effect)| NodeTaint {
            key: words(key),
            effect: effect.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation::parse_nodes;

    /// A kubelet-shaped node under DiskPressure, cordoned, with every taint effect.
    const NODE: &str = r#"{"apiVersion":"v1","kind":"NodeList","items":[{
      "apiVersion":"v1","kind":"Node","metadata":{"name":"dirqual2"},
      "spec":{"unschedulable":true,"taints":[
        {"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule","timeAdded":"2026-11-30T08:00:00Z"},
        {"key":"node.kubernetes.io/disk-pressure","effect":"NoSchedule","timeAdded":"2026-11-30T08:12:05Z"},
        {"key":"example.com/soft","value":"yes","effect":"PreferNoSchedule"},
        {"key":"example.com/evict","value":"secret-looking-value","effect":"NoExecute"}]},
      "status":{"conditions":[
        {"type":"MemoryPressure","status":"False","reason":"KubeletHasSufficientMemory","message":"kubelet has sufficient memory available","lastHeartbeatTime":"2026-12-01T08:00:00Z","lastTransitionTime":"2026-11-20T10:00:00Z"},
        {"type":"DiskPressure","status":"True","reason":"KubeletHasDiskPressure","message":"kubelet has disk pressure\u001b[0m","lastHeartbeatTime":"2026-12-01T08:00:00Z","lastTransitionTime":"2026-11-30T08:12:00Z"},
        {"type":"PIDPressure","status":"Unknown","reason":"NodeStatusUnknown","message":"?","lastHeartbeatTime":"2026-12-01T08:00:00Z","lastTransitionTime":"2026-11-30T08:12:00Z"},
        {"type":"Ready","status":"True","reason":"KubeletReady","message":"kubelet is posting ready status","lastHeartbeatTime":"2026-12-01T08:00:00Z","lastTransitionTime":"2026-11-20T10:00:00Z"}]}}]}"#;

    #[test]
    fn a_node_keeps_only_its_true_troubles_cordon_and_blocking_taints() {
        let n = parse_nodes(NODE).unwrap().remove(0);
        assert!(n.ready);
        assert!(n.unschedulable);
        assert_eq!(
            n.troubles,
            [NodeCondition {
                type_: "DiskPressure".into(),
                reason: "KubeletHasDiskPressure".into(),
                message: "kubelet has disk pressure\\x1b[0m".into(),
                last_transition_time: "2026-11-30T08:12:00Z".into(),
            }]
        );
        let taints: Vec<String> = n
            .blocking_taints
            .iter()
            .map(|t| format!("{}:{}", t.key, t.effect))
            .collect();
        assert_eq!(
            taints,
            [
                "node.kubernetes.io/unschedulable:NoSchedule",
                "node.kubernetes.io/disk-pressure:NoSchedule",
                "example.com/evict:NoExecute"
            ]
        );
        // A taint's value is never kept.
        assert!(!serde_json::to_string(&n)
            .unwrap()
            .contains("secret-looking-value"));
    }

    #[test]
    fn an_older_snapshot_node_has_none_of_them() {
        let old =
            r#"{"name":"n1","ready":true,"roles":[],"internalIp":null,"kubeletVersion":"v1.30.4"}"#;
        let n: crate::model::observation::Node = serde_json::from_str(old).unwrap();
        assert!(n.troubles.is_empty() && !n.unschedulable && n.blocking_taints.is_empty());
    }
}
