//! Parsers of the API server's List documents (what `GET /api/v1/nodes` answers) and of API
//! discovery's group versions.
//!
//! Lenient on purpose: kubectl's objects carry far more than we use and change between
//! versions, so only the fields used are declared and every one has a default. What is
//! required is the shape: the List asked for ([`super::answer`]) with an `items` array.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use std::io::Read;

use serde::{Deserialize, Serialize};

use super::meta::Deletion;
use super::node_truth::{blocking, troubles, NodeCondition, NodeTaint, RawNodeCondition};
pub(super) use super::typed_list::decode_list;
use crate::error::{Error, Result};
use crate::pool::Budget;

/// One cluster node as the state logic needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    pub name: String,
    /// `status.conditions[type=Ready].status == "True"`.
    pub ready: bool,
    /// From the labels `node-role.kubernetes.io/<role>`, sorted.
    pub roles: Vec<String>,
    /// The first `InternalIP` of `status.addresses`.
    pub internal_ip: Option<String>,
    /// `status.nodeInfo.kubeletVersion`, e.g. `v1.30.4`.
    pub kubelet_version: String,
    /// `status.nodeInfo.architecture`, e.g. `arm64` (empty in older snapshots).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub architecture: String,
    /// The keys of `spec.taints` (`node.cilium.io/agent-not-ready`), values and effects
    /// dropped. Absent in older snapshots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<String>,
    /// The conditions `MemoryPressure`, `DiskPressure`, `PIDPressure`, `NetworkUnavailable`
    /// that are `True` (SPEC §6 v0.4). Absent in older snapshots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub troubles: Vec<NodeCondition>,
    /// `spec.unschedulable: true`: cordoned. Absent in older snapshots.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unschedulable: bool,
    /// The `NoSchedule` and `NoExecute` taints of `spec.taints`, key and effect. Absent in
    /// older snapshots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocking_taints: Vec<NodeTaint>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
pub struct Namespace {
    pub name: String,
    /// `Active` or `Terminating`.
    pub phase: String,
    /// `metadata.deletionTimestamp` set: the namespace is being deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleting: Option<Deletion>,
    /// The labels the catalog's checks name (`pod-security.kubernetes.io/enforce`), nothing
    /// else. Absent in older snapshots.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
pub struct StorageClass {
    pub name: String,
    pub provisioner: String,
    /// Annotated `storageclass.kubernetes.io/is-default-class: "true"` (or the beta key).
    pub default: bool,
}

/// A DaemonSet, Deployment or StatefulSet reduced to its readiness and rollout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
pub struct Workload {
    pub namespace: String,
    pub name: String,
    /// DaemonSet: `status.desiredNumberScheduled`; others: `spec.replicas` (default 1).
    pub desired: i64,
    /// DaemonSet: `status.numberReady`; others: `status.readyReplicas` (default 0).
    pub ready: i64,
    /// What `kubectl rollout status` looks at. Absent in snapshots older than 0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout: Option<Rollout>,
    /// `metadata.deletionTimestamp` set: the workload is being deleted (SPEC §6 v0.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleting: Option<Deletion>,
    /// `spec.selector.matchLabels` as a label selector (`k=v,k2=v2`), when valid: how its
    /// pods are listed when it is not rolled out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// Its pod template's containers' images, by container name (the version checks).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub images: BTreeMap<String, String>,
    /// Its [`VERSION_LABELS`] (`rook-version`), never any other label.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub version_labels: BTreeMap<String, String>,
}

/// The labels a workload read keeps: the version labels operators write on their
/// Deployments (Rook's `rook-version`), never any other.
pub const VERSION_LABELS: [&str; 2] = ["rook-version", "app.kubernetes.io/version"];

/// The fields of a workload `kubectl rollout status` decides on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Rollout {
    /// `metadata.generation`.
    pub generation: i64,
    /// `status.observedGeneration`.
    pub observed_generation: i64,
    /// Deployment/StatefulSet `status.updatedReplicas`; DaemonSet `updatedNumberScheduled`.
    pub updated: i64,
    /// Deployment/StatefulSet `status.availableReplicas`; DaemonSet `numberAvailable`.
    pub available: i64,
    /// Deployment: `status.replicas` (old and new pods together).
    pub current: i64,
    /// DaemonSet/StatefulSet `spec.updateStrategy.type` (empty: RollingUpdate).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub strategy: String,
    /// StatefulSet `spec.updateStrategy.rollingUpdate.partition`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<i64>,
    /// StatefulSet `status.currentRevision` / `status.updateRevision`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub current_revision: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub update_revision: String,
    /// Deployment: condition `Progressing` with reason `ProgressDeadlineExceeded`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deadline_exceeded: bool,
    /// Deployment `spec.paused: true`: the rollout was stopped on purpose.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
#[serde(rename_all = "camelCase")]
struct Meta {
    name: String,
    namespace: Option<String>,
    labels: BTreeMap<String, String>,
    annotations: BTreeMap<String, String>,
    deletion_timestamp: Option<String>,
    finalizers: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawNode {
    metadata: Meta,
    spec: RawNodeSpec,
    status: RawNodeStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawNodeSpec {
    taints: Vec<RawTaint>,
    unschedulable: bool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawTaint {
    key: String,
    effect: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawNodeStatus {
    conditions: Vec<RawNodeCondition>,
    addresses: Vec<RawAddress>,
    node_info: RawNodeInfo,
}

/// A `status.conditions[]` entry: its type and status only.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCondition {
    #[serde(rename = "type")]
    pub(super) type_: String,
    pub(super) status: String,
    pub(super) reason: String,
    pub(super) message: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawAddress {
    #[serde(rename = "type")]
    type_: String,
    address: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawNodeInfo {
    kubelet_version: String,
    architecture: String,
}

const ROLE_LABEL: &str = "node-role.kubernetes.io/";

/// `kubectl get nodes -o json`, held whole.
pub fn parse_nodes(text: &str) -> Result<Vec<Node>> {
    read_nodes(text.as_bytes(), &unbounded())
}

/// The node list (`GET /api/v1/nodes`) decoded as it arrives, each node charged to `budget`.
pub fn read_nodes<R: Read>(reader: R, budget: &Budget) -> Result<Vec<Node>> {
    decode_list(
        reader,
        "GET /api/v1/nodes",
        "",
        "Node",
        budget,
        |n: RawNode| Node {
            ready: n
                .status
                .conditions
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True"),
            roles: n
                .metadata
                .labels
                .keys()
                .filter_map(|k| k.strip_prefix(ROLE_LABEL))
                .filter(|r| !r.is_empty())
                .map(str::to_string)
                .collect(),
            internal_ip: n
                .status
                .addresses
                .iter()
                .find(|a| a.type_ == "InternalIP")
                .map(|a| a.address.clone()),
            kubelet_version: n.status.node_info.kubelet_version,
            architecture: super::meta::words(&n.status.node_info.architecture),
            troubles: troubles(&n.status.conditions),
            unschedulable: n.spec.unschedulable,
            blocking_taints: blocking(
                n.spec
                    .taints
                    .iter()
                    .map(|t| (t.key.as_str(), t.effect.as_str())),
            ),
            taints: n.spec.taints.into_iter().map(|t| t.key).collect(),
            name: n.metadata.name,
        },
    )
}

/// A budget that refuses nothing: for an answer already held whole.
pub(super) fn unbounded() -> Budget {
    Budget::new(usize::MAX)
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawNamespace {
    metadata: Meta,
    status: RawPhase,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPhase {
    phase: String,
}

/// `kubectl get namespaces -o json`, keeping only the labels named in `labels`.
pub fn parse_namespaces(text: &str, labels: &BTreeSet<String>) -> Result<Vec<Namespace>> {
    read_namespaces(text.as_bytes(), labels, &unbounded())
}

/// [`parse_namespaces`] as the list arrives, each namespace charged to `budget`.
pub fn read_namespaces<R: Read>(
    reader: R,
    labels: &BTreeSet<String>,
    budget: &Budget,
) -> Result<Vec<Namespace>> {
    let what = "GET /api/v1/namespaces";
    decode_list(reader, what, "", "Namespace", budget, |n: RawNamespace| {
        Namespace {
            labels: n
                .metadata
                .labels
                .into_iter()
                .filter(|(k, _)| labels.contains(k))
                .collect(),
            name: n.metadata.name,
            phase: n.status.phase,
            deleting: Deletion::from_meta(n.metadata.deletion_timestamp, n.metadata.finalizers),
        }
    })
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawStorageClass {
    metadata: Meta,
    provisioner: String,
}

const DEFAULT_CLASS: &str = "storageclass.kubernetes.io/is-default-class";
const DEFAULT_CLASS_BETA: &str = "storageclass.beta.kubernetes.io/is-default-class";

/// `kubectl get storageclasses -o json`.
pub fn parse_storage_classes(text: &str) -> Result<Vec<StorageClass>> {
    read_storage_classes(text.as_bytes(), &unbounded())
}

/// [`parse_storage_classes`] as the list arrives, each class charged to `budget`.
pub fn read_storage_classes<R: Read>(reader: R, budget: &Budget) -> Result<Vec<StorageClass>> {
    let what = "GET /apis/storage.k8s.io/v1/storageclasses";
    decode_list(reader, what, "storage.k8s.io", "StorageClass", budget, {
        |s: RawStorageClass| {
            let annotated =
                |key: &str| s.metadata.annotations.get(key).is_some_and(|v| v == "true");
            StorageClass {
                default: annotated(DEFAULT_CLASS) || annotated(DEFAULT_CLASS_BETA),
                name: s.metadata.name,
                provisioner: s.provisioner,
            }
        }
    })
}

/// API discovery as text: one `group/version` per line (`v1` is the core group `""`).
pub fn parse_api_versions(text: &str) -> Result<BTreeSet<String>> {
    let mut groups = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let valid = !line.contains(char::is_whitespace)
            && line.matches('/').count() <= 1
            && line
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '/'));
        if !valid {
            return Err(Error::input(
                format!(
                    "malformed API discovery (/api, /apis), line {}: {line:?}",
                    n + 1
                ),
                "expected one `group/version` (or `v1`) per line",
            ));
        }
        let group = line.split_once('/').map_or("", |(g, _)| g);
        groups.insert(group.to_string());
    }
    Ok(groups)
}

#[cfg(test)]
#[path = "kube_tests.rs"]
mod tests;
