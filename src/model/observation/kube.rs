//! Parsers of `kubectl get <type> -o json` List documents and of `kubectl api-versions`.
//!
//! Lenient on purpose: kubectl's objects carry far more than we use and change between
//! versions, so only the fields used are declared and every one has a default. What is
//! required is the shape: a JSON document with an `items` array.

use std::collections::{BTreeMap, BTreeSet};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One cluster node as the state logic needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Namespace {
    pub name: String,
    /// `Active` or `Terminating`.
    pub phase: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageClass {
    pub name: String,
    pub provisioner: String,
    /// Annotated `storageclass.kubernetes.io/is-default-class: "true"` (or the beta key).
    pub default: bool,
}

/// A DaemonSet, Deployment or StatefulSet reduced to its readiness and rollout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// The fields of a workload `kubectl rollout status` decides on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
}

#[derive(Deserialize)]
struct List<T> {
    items: Vec<T>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Meta {
    name: String,
    namespace: Option<String>,
    labels: BTreeMap<String, String>,
    annotations: BTreeMap<String, String>,
}

/// Parse one List document; `what` names the command for the error message.
fn parse_list<T: DeserializeOwned>(text: &str, what: &str) -> Result<Vec<T>> {
    serde_json::from_str::<List<T>>(text)
        .map(|l| l.items)
        .map_err(|e| {
            Error::input(
                format!("malformed output of `kubectl {what}`: {e}"),
                format!(
                    "expected one JSON List document with `items`; run `kubectl {what}` by hand to see what it prints"
                ),
            )
        })
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawNode {
    metadata: Meta,
    status: RawNodeStatus,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawNodeStatus {
    conditions: Vec<RawCondition>,
    addresses: Vec<RawAddress>,
    node_info: RawNodeInfo,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawCondition {
    #[serde(rename = "type")]
    type_: String,
    status: String,
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
}

const ROLE_LABEL: &str = "node-role.kubernetes.io/";

/// `kubectl get nodes -o json`.
pub fn parse_nodes(text: &str) -> Result<Vec<Node>> {
    let raw: Vec<RawNode> = parse_list(text, "get nodes -o json")?;
    Ok(raw
        .into_iter()
        .map(|n| Node {
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
            name: n.metadata.name,
        })
        .collect())
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

/// `kubectl get namespaces -o json`.
pub fn parse_namespaces(text: &str) -> Result<Vec<Namespace>> {
    let raw: Vec<RawNamespace> = parse_list(text, "get namespaces -o json")?;
    Ok(raw
        .into_iter()
        .map(|n| Namespace {
            name: n.metadata.name,
            phase: n.status.phase,
        })
        .collect())
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
    let raw: Vec<RawStorageClass> = parse_list(text, "get storageclasses -o json")?;
    Ok(raw
        .into_iter()
        .map(|s| {
            let annotated =
                |key: &str| s.metadata.annotations.get(key).is_some_and(|v| v == "true");
            StorageClass {
                default: annotated(DEFAULT_CLASS) || annotated(DEFAULT_CLASS_BETA),
                name: s.metadata.name,
                provisioner: s.provisioner,
            }
        })
        .collect())
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawWorkload {
    metadata: WorkloadMeta,
    spec: RawWorkloadSpec,
    status: RawWorkloadStatus,
}

/// Only what a workload check uses of `metadata` (never labels or annotations).
#[derive(Deserialize, Default)]
#[serde(default)]
struct WorkloadMeta {
    name: String,
    namespace: Option<String>,
    generation: i64,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawWorkloadSpec {
    replicas: Option<i64>,
    update_strategy: RawStrategy,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawStrategy {
    #[serde(rename = "type")]
    type_: String,
    rolling_update: RawRollingUpdate,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawRollingUpdate {
    partition: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawWorkloadStatus {
    observed_generation: i64,
    desired_number_scheduled: i64,
    number_ready: i64,
    number_available: i64,
    updated_number_scheduled: i64,
    replicas: i64,
    ready_replicas: i64,
    updated_replicas: i64,
    available_replicas: i64,
    current_revision: String,
    update_revision: String,
    conditions: Vec<RawWorkloadCondition>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawWorkloadCondition {
    #[serde(rename = "type")]
    type_: String,
    reason: String,
}

fn workload(w: RawWorkload, desired: i64, ready: i64, rollout: Rollout) -> Workload {
    Workload {
        namespace: w.metadata.namespace.unwrap_or_default(),
        name: w.metadata.name,
        desired,
        ready,
        rollout: Some(rollout),
    }
}

/// `kubectl get daemonsets --all-namespaces -o json`.
pub fn parse_daemonsets(text: &str) -> Result<Vec<Workload>> {
    let raw: Vec<RawWorkload> = parse_list(text, "get daemonsets --all-namespaces -o json")?;
    Ok(raw
        .into_iter()
        .map(|w| {
            let st = &w.status;
            let rollout = Rollout {
                generation: w.metadata.generation,
                observed_generation: st.observed_generation,
                updated: st.updated_number_scheduled,
                available: st.number_available,
                current: st.desired_number_scheduled,
                strategy: w.spec.update_strategy.type_.clone(),
                ..Rollout::default()
            };
            let (d, r) = (st.desired_number_scheduled, st.number_ready);
            workload(w, d, r, rollout)
        })
        .collect())
}

fn replicated(text: &str, what: &str, statefulset: bool) -> Result<Vec<Workload>> {
    let raw: Vec<RawWorkload> = parse_list(text, what)?;
    Ok(raw
        .into_iter()
        .map(|w| {
            let st = &w.status;
            let rollout = Rollout {
                generation: w.metadata.generation,
                observed_generation: st.observed_generation,
                updated: st.updated_replicas,
                available: st.available_replicas,
                current: st.replicas,
                strategy: if statefulset {
                    w.spec.update_strategy.type_.clone()
                } else {
                    String::new()
                },
                partition: if statefulset {
                    w.spec.update_strategy.rolling_update.partition
                } else {
                    None
                },
                current_revision: st.current_revision.clone(),
                update_revision: st.update_revision.clone(),
                deadline_exceeded: !statefulset
                    && st.conditions.iter().any(|c| {
                        c.type_ == "Progressing" && c.reason == "ProgressDeadlineExceeded"
                    }),
            };
            let (d, r) = (w.spec.replicas.unwrap_or(1), st.ready_replicas);
            workload(w, d, r, rollout)
        })
        .collect())
}

/// `kubectl get deployments --all-namespaces -o json`.
pub fn parse_deployments(text: &str) -> Result<Vec<Workload>> {
    replicated(text, "get deployments --all-namespaces -o json", false)
}

/// `kubectl get statefulsets --all-namespaces -o json`.
pub fn parse_statefulsets(text: &str) -> Result<Vec<Workload>> {
    replicated(text, "get statefulsets --all-namespaces -o json", true)
}

/// `kubectl api-versions`: one `group/version` per line (`v1` is the core group `""`).
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
                    "malformed output of `kubectl api-versions`, line {}: {line:?}",
                    n + 1
                ),
                "expected one `group/version` (or `v1`) per line; run `kubectl api-versions` by hand",
            ));
        }
        let group = line.split_once('/').map_or("", |(g, _)| g);
        groups.insert(group.to_string());
    }
    Ok(groups)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const NODES: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/nodes-dirqual.json"
    ));
    const NODES_NOT_READY: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/nodes-dirqual3-notready.json"
    ));

    #[test]
    fn nodes_of_dirqual() {
        let nodes = parse_nodes(NODES).unwrap();
        let names: Vec<_> = nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["dirqual1", "dirqual2", "dirqual3", "dirqual4"]);
        assert!(nodes.iter().all(|n| n.ready));
        assert_eq!(
            nodes[0],
            Node {
                name: "dirqual1".into(),
                ready: true,
                roles: vec!["control-plane".into()],
                internal_ip: Some("10.67.2.11".into()),
                kubelet_version: "v1.30.4".into(),
            }
        );
        assert_eq!(nodes[3].roles, ["worker"]);
        assert_eq!(nodes[3].internal_ip.as_deref(), Some("10.67.2.14"));
    }

    #[test]
    fn not_ready_node() {
        let nodes = parse_nodes(NODES_NOT_READY).unwrap();
        let ready: Vec<_> = nodes.iter().map(|n| (n.name.as_str(), n.ready)).collect();
        assert_eq!(
            ready,
            [("dirqual1", true), ("dirqual2", true), ("dirqual3", false)]
        );
    }

    #[test]
    fn namespaces() {
        let ns = parse_namespaces(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/namespaces.json"
        )))
        .unwrap();
        let names: Vec<_> = ns.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "argocd",
                "cnpg-system",
                "dataops",
                "default",
                "gitea",
                "kube-node-lease",
                "kube-public",
                "kube-system",
                "monitoring",
                "registry",
                "rook-ceph"
            ]
        );
        assert!(ns.iter().all(|n| n.phase == "Active"));
    }

    #[test]
    fn storage_classes_with_default_annotation() {
        let sc = parse_storage_classes(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/storageclasses.json"
        )))
        .unwrap();
        assert_eq!(
            sc,
            [
                StorageClass {
                    name: "ceph-block".into(),
                    provisioner: "rook-ceph.rbd.csi.ceph.com".into(),
                    default: true
                },
                StorageClass {
                    name: "ceph-filesystem".into(),
                    provisioner: "rook-ceph.cephfs.csi.ceph.com".into(),
                    default: false
                },
            ]
        );
    }

    #[test]
    fn storage_classes_with_beta_default_annotation() {
        let sc = parse_storage_classes(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/storageclasses-beta-default.json"
        )))
        .unwrap();
        let v: Vec<_> = sc
            .iter()
            .map(|s| (s.name.as_str(), s.provisioner.as_str(), s.default))
            .collect();
        assert_eq!(
            v,
            [
                ("local-path", "rancher.io/local-path", false),
                ("rook-ceph-block", "rook-ceph.rbd.csi.ceph.com", true),
            ]
        );
    }

    fn summary(w: &[Workload]) -> Vec<String> {
        w.iter()
            .map(|w| format!("{}/{} {}/{}", w.namespace, w.name, w.ready, w.desired))
            .collect()
    }

    #[test]
    fn daemonsets() {
        let ds = parse_daemonsets(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/daemonsets.json"
        )))
        .unwrap();
        assert_eq!(
            summary(&ds),
            [
                "kube-system/cilium 4/4",
                "monitoring/kube-prometheus-stack-prometheus-node-exporter 4/4",
                "rook-ceph/csi-cephfsplugin 3/3",
                "rook-ceph/csi-rbdplugin 3/3",
            ]
        );
    }

    #[test]
    fn deployments_default_ready_to_zero() {
        let d = parse_deployments(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/deployments.json"
        )))
        .unwrap();
        assert_eq!(
            summary(&d),
            [
                "argocd/argocd-repo-server 1/1",
                "argocd/argocd-server 1/1",
                "cnpg-system/cnpg-cloudnative-pg 1/1",
                "dataops/dagster-daemon 1/1",
                "dataops/dagster-dagster-webserver 1/1",
                "dataops/marquez 1/1",
                "dataops/marquez-web 1/1",
                "gitea/gitea 1/1",
                "kube-system/cilium-operator 2/2",
                "kube-system/coredns 2/2",
                "monitoring/kube-prometheus-stack-grafana 1/1",
                "monitoring/kube-prometheus-stack-operator 1/1",
                "registry/registry 1/1",
                "rook-ceph/rook-ceph-mon-a 1/1",
                "rook-ceph/rook-ceph-mon-b 1/1",
                "rook-ceph/rook-ceph-mon-c 1/1",
                "rook-ceph/rook-ceph-operator 1/1",
                "rook-ceph/rook-ceph-osd-0 1/1",
                "rook-ceph/rook-ceph-osd-1 1/1",
                "rook-ceph/rook-ceph-osd-2 1/1",
            ]
        );
        let stalled = parse_deployments(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/deployment-marquez-stalled.json"
        )))
        .unwrap();
        assert_eq!(summary(&stalled), ["dataops/marquez-web 0/1"]);
        let r = stalled[0].rollout.as_ref().unwrap();
        assert!(r.deadline_exceeded, "{r:?}");
        assert_eq!((r.generation, r.observed_generation), (2, 2));
    }

    #[test]
    fn replicas_default_to_one() {
        let text = r#"{"apiVersion":"v1","kind":"List","items":[
            {"metadata":{"name":"x","namespace":"n"},"spec":{},"status":{}}],
            "metadata":{"resourceVersion":""}}"#;
        assert_eq!(summary(&parse_deployments(text).unwrap()), ["n/x 0/1"]);
    }

    #[test]
    fn statefulsets() {
        let s = parse_statefulsets(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/statefulsets.json"
        )))
        .unwrap();
        assert_eq!(
            summary(&s),
            [
                "argocd/argocd-application-controller 1/1",
                "monitoring/alertmanager-kube-prometheus-stack-alertmanager 1/1",
                "monitoring/prometheus-kube-prometheus-stack-prometheus 1/1",
            ]
        );
    }

    #[test]
    fn api_versions_to_groups() {
        let groups = parse_api_versions(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/api-versions.txt"
        )))
        .unwrap();
        assert!(groups.contains(""));
        assert!(groups.contains("apps"));
        assert!(groups.contains("ceph.rook.io"));
        assert!(groups.contains("objectbucket.io"));
        assert!(!groups.contains("cert-manager.io"));
        assert!(!groups.iter().any(|g| g.contains('/')));
        assert_eq!(groups.len(), 27);
        assert!(parse_api_versions("").unwrap().is_empty());
    }

    #[test]
    fn malformed_documents_say_what_and_hint() {
        let e = parse_nodes(r#"{"kind":"Node","metadata":{"name":"a"}}"#).unwrap_err();
        assert_eq!(
            e.message,
            "malformed output of `kubectl get nodes -o json`: missing field `items` at line 1 column 39"
        );
        assert!(e.hint.contains("`items`"));
        let e = parse_namespaces("").unwrap_err();
        assert!(e
            .message
            .starts_with("malformed output of `kubectl get namespaces -o json`: EOF"));
        let e = parse_daemonsets(r#"{"items": {}}"#).unwrap_err();
        assert!(
            e.message.contains("invalid type: map, expected a sequence"),
            "{}",
            e.message
        );
        let e = parse_api_versions("apps/v1\nerror: You must be logged in\n").unwrap_err();
        assert_eq!(
            e.message,
            "malformed output of `kubectl api-versions`, line 2: \"error: You must be logged in\""
        );
    }
}
