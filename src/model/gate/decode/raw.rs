//! The upstream API types, reduced to the fields the gate rules use (k8s.io/api's
//! `policy/v1.PodDisruptionBudget`, `core/v1.Pod`, `Node`, `PersistentVolume`,
//! `apiextensions/v1.CustomResourceDefinition`, Rook's `CephCluster`, `apps/v1` workloads).
//! Every field is defaulted: the API server omits empty ones.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Meta {
    pub(super) name: String,
    pub(super) namespace: String,
    pub(super) labels: BTreeMap<String, String>,
    pub(super) owner_references: Vec<RawOwner>,
    /// `metadata.generation` (a PodDisruptionBudget's spec version).
    pub(super) generation: i64,
    /// `metadata.deletionTimestamp` is set: the object is being deleted.
    #[serde(deserialize_with = "present")]
    pub(super) deletion_timestamp: bool,
    /// Whether `metadata.annotations` holds the kubelet's `kubernetes.io/config.mirror`
    /// (no other annotation is kept: a mirror pod is what the kubelet says it is).
    #[serde(rename = "annotations", deserialize_with = "mirror_annotation")]
    pub(super) mirror: bool,
}

/// A field that is there and not `null`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<serde::de::IgnoredAny>::deserialize(d)?.is_some())
}

/// The kubelet's mirror-pod annotation key (`k8s.io/api/core/v1.MirrorPodAnnotationKey`).
pub(super) const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// `metadata.annotations`, reduced to whether it holds [`MIRROR_ANNOTATION`]: every key is
/// looked at as it arrives and every value skipped unread.
fn mirror_annotation<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    struct Keys;
    impl<'de> serde::de::Visitor<'de> for Keys {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of annotations")
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_none<E>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> Result<bool, D2::Error> {
            d.deserialize_map(Keys)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<bool, A::Error> {
            let mut found = false;
            while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
                found |= k == MIRROR_ANNOTATION;
                m.next_value::<serde::de::IgnoredAny>()?;
            }
            Ok(found)
        }
    }
    d.deserialize_option(Keys)
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawOwner {
    pub(super) kind: String,
    pub(super) name: String,
    pub(super) controller: bool,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawSelector {
    pub(super) match_labels: BTreeMap<String, String>,
    pub(super) match_expressions: Vec<RawRequirement>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawRequirement {
    pub(super) key: String,
    pub(super) operator: String,
    pub(super) values: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawPdb {
    pub(super) metadata: Meta,
    pub(super) spec: RawPdbSpec,
    pub(super) status: RawPdbStatus,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawPdbSpec {
    pub(super) selector: Option<RawSelector>,
    pub(super) unhealthy_pod_eviction_policy: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawPdbStatus {
    pub(super) observed_generation: i64,
    pub(super) disruptions_allowed: i64,
    pub(super) current_healthy: i64,
    pub(super) desired_healthy: i64,
    pub(super) expected_pods: i64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawPod {
    pub(super) metadata: Meta,
    pub(super) spec: RawPodSpec,
    pub(super) status: RawPodStatus,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawPodSpec {
    pub(super) node_name: String,
    pub(super) containers: Vec<RawContainer>,
    pub(super) volumes: Vec<RawVolume>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawContainer {
    pub(super) name: String,
    pub(super) image: String,
    pub(super) resources: RawResources,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawResources {
    pub(super) requests: BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawVolume {
    pub(super) name: String,
    pub(super) host_path: Option<RawHostPath>,
    pub(super) empty_dir: Option<serde::de::IgnoredAny>,
    pub(super) persistent_volume_claim: Option<RawClaim>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawHostPath {
    pub(super) path: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawClaim {
    pub(super) claim_name: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawPodStatus {
    pub(super) phase: String,
    pub(super) conditions: Vec<RawCondition>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCondition {
    #[serde(rename = "type")]
    pub(super) type_: String,
    pub(super) status: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawNode {
    pub(super) metadata: Meta,
    pub(super) spec: RawNodeSpec,
    pub(super) status: RawNodeStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawNodeSpec {
    pub(super) unschedulable: bool,
    pub(super) taints: Vec<RawTaint>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawTaint {
    pub(super) key: String,
    pub(super) effect: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawNodeStatus {
    pub(super) conditions: Vec<RawCondition>,
    pub(super) node_info: RawNodeInfo,
    pub(super) allocatable: BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawNodeInfo {
    pub(super) kubelet_version: String,
    pub(super) container_runtime_version: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawPv {
    pub(super) metadata: Meta,
    pub(super) spec: RawPvSpec,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawPvSpec {
    pub(super) claim_ref: Option<RawClaimRef>,
    pub(super) local: Option<serde::de::IgnoredAny>,
    pub(super) host_path: Option<serde::de::IgnoredAny>,
    pub(super) node_affinity: Option<RawVolumeNodeAffinity>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawClaimRef {
    pub(super) namespace: String,
    pub(super) name: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawVolumeNodeAffinity {
    pub(super) required: Option<RawNodeSelector>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawNodeSelector {
    pub(super) node_selector_terms: Vec<RawNodeSelectorTerm>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawNodeSelectorTerm {
    pub(super) match_expressions: Vec<RawRequirement>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCrd {
    pub(super) metadata: Meta,
    pub(super) spec: RawCrdSpec,
    pub(super) status: RawCrdStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCrdSpec {
    pub(super) group: String,
    pub(super) versions: Vec<RawCrdVersion>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCrdVersion {
    pub(super) name: String,
    pub(super) served: bool,
    pub(super) storage: bool,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawCrdStatus {
    pub(super) stored_versions: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCephCluster {
    pub(super) metadata: Meta,
    pub(super) spec: RawCephSpec,
    pub(super) status: RawCephStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCephSpec {
    pub(super) mon: RawMonSpec,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawMonSpec {
    pub(super) count: Option<u32>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCephStatus {
    pub(super) ceph: RawCephHealth,
    pub(super) version: RawCephVersion,
}

/// `status.version`: the Ceph image and the version Rook read from it (`18.2.4-0`).
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCephVersion {
    pub(super) version: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawCephHealth {
    pub(super) health: String,
    pub(super) details: BTreeMap<String, RawCephDetail>,
    pub(super) last_checked: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCephDetail {
    pub(super) message: String,
    pub(super) severity: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawWorkload {
    pub(super) kind: Option<String>,
    pub(super) metadata: Meta,
    pub(super) spec: RawWorkloadSpec,
    pub(super) status: RawWorkloadStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawWorkloadSpec {
    pub(super) replicas: Option<i64>,
    pub(super) template: RawTemplate,
}

/// The counts a DaemonSet's or a Deployment's controller writes.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawWorkloadStatus {
    pub(super) desired_number_scheduled: i64,
    pub(super) number_ready: i64,
    pub(super) ready_replicas: i64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawTemplate {
    pub(super) spec: RawPodSpec,
}

/// A CloudNativePG `Cluster` (`postgresql.cnpg.io/v1`): the fields the drain's words use.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCnpgCluster {
    pub(super) metadata: Meta,
    pub(super) spec: RawCnpgSpec,
    pub(super) status: RawCnpgStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawCnpgSpec {
    pub(super) instances: i64,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawCnpgStatus {
    pub(super) current_primary: String,
    /// `map[PodStatus][]string`: `healthy`, `replicating`, `failed`.
    pub(super) instances_status: BTreeMap<String, Vec<String>>,
}

/// Any namespaced object, reduced to its namespace and name.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawNamed {
    pub(super) metadata: RawName,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawName {
    pub(super) namespace: String,
    pub(super) name: String,
}
