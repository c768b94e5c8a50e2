//! What the probes read, as data. A read either yields a typed value or a classified failure;
//! a failure is kept as data (it turns a layer `unknown`, never `absent`), and the whole
//! observation can be saved to a snapshot file and replayed.
//!
//! The parsers are pure: the read layer hands them the API's answers (as they arrive through
//! the proxy), limactl's stdout or kubectl's stderr ([`classify_kubectl_stderr`]), and they
//! never spawn anything.
//!
//! Files: `request.rs`, what a probe asks for (`ReadRequest`, the `Scope` narrowing it);
//! `failure.rs`, why a read failed; `decoded.rs`, one read's typed outcome stored in the
//! `Observation`; `repr.rs`, the snapshot form; `typed_list.rs`, a built-in List decoded item by
//! item as it arrives, each item charged to the budget (`decode_list_try`, the gates' List
//! decoder too), with `item_cap.rs`; `answer.rs`, the check every parser makes that an answer is
//! the object asked for; `classify.rs`, kubectl's errors. The typed reads: `kube.rs`,
//! `workloads.rs`, `lima.rs`, `pods.rs`, `node_truth.rs`, `meta.rs`, `status_reads.rs`,
//! `agents.rs`, `events.rs`, `webhooks.rs`, `claims.rs`, `placement.rs`, `lists.rs`,
//! `host.rs` (what hosts printed), and custom objects reduced to the catalog's field paths
//! (`objects.rs`, `object_list.rs`, `custom_object.rs`, `fields.rs`, `trie.rs`, `members.rs`).

mod agents;
pub mod answer;
mod claims;
mod classify;
mod custom_object;
mod decoded;
mod events;
mod failure;
mod fields;
pub mod host;
mod item_cap;
mod kube;
mod lima;
mod lists;
mod members;
mod meta;
mod node_truth;
mod object_list;
mod objects;
mod placement;
mod pods;
mod repr;
mod request;
mod status_reads;
mod trie;
mod typed_list;
pub(crate) use typed_list::decode_list_try;
mod webhooks;
mod workloads;

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use agents::{parse_container_starts, read_container_starts, PodStart, LAST_CHANGE};
pub use claims::{parse_claims, parse_volumes, read_claims, read_volumes, Claim, Volume};
pub use classify::{classify_kubectl_stderr, kubectl_message};
pub use decoded::{Decoded, Decoder};
pub use events::{read_events, Event, ObjectRef, EVENTS_GROUP, EVENTS_LIMIT};
pub use failure::{is_unreachable, FailureKind, ReadFailure, UNREACHABLE_HINT};
pub use fields::{annotation_field, members_key, FieldPath, FieldUse, NAMESPACES_KEEP};
pub use kube::{
    parse_api_versions, parse_namespaces, parse_nodes, parse_storage_classes, read_namespaces,
    read_nodes, read_storage_classes, Namespace, Node, Rollout, StorageClass, Workload,
    VERSION_LABELS,
};
pub use lima::{decode_limactl_list, parse_limactl_list, LimaInstance, LimaStatus};
pub use lists::{RouteParent, MAX_ITEMS};
pub use meta::{condition_words, suspension, words, Deletion, DELETION_BLOCKED, SUSPENSIONS};
pub use node_truth::{NodeCondition, NodeTaint, BLOCKING_EFFECTS, TROUBLE_CONDITIONS};
pub use object_list::{decode_custom_objects, parse_custom_objects};
pub use objects::CustomObject;
pub use placement::{parse_pod_placement, read_pod_placement, PlacedPod};
pub use pods::{
    parse_apiserver_pods, read_apiserver_pods, ApiServerPod, APISERVER_NAMESPACE,
    APISERVER_SELECTOR,
};
pub use repr::{read_map_serde, read_serde, ReadMapRepr, ReadRepr};
pub use request::{ReadRequest, Scope, WorkloadKind, WorkloadName};
pub use status_reads::{
    parse_config_map, parse_workload_pods, read_config_map, read_workload_pods, selector_of,
    ContainerStatus, PodStatus, MAX_PODS,
};
pub use webhooks::{
    read_endpoint_slices, read_webhook_configurations, EndpointSlice, ServiceRef, Webhook,
    WebhookConfiguration, WebhookKind, ADMISSION_GROUP, DISCOVERY_GROUP, SERVICE_NAME_LABEL,
};
pub use workloads::{
    parse_daemonsets, parse_deployments, parse_statefulsets, read_daemonsets, read_deployments,
    read_statefulsets,
};

/// The outcome of one read: the parsed value, or why it could not be read.
pub type Read<T> = Result<T, ReadFailure>;

/// Everything read from one cluster, in one run. Saved as-is by `discover --save` and
/// replayed by `preview --snapshot`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    #[serde(with = "read_serde")]
    #[schemars(with = "ReadRepr<Vec<Node>>")]
    pub nodes: Read<Vec<Node>>,
    #[serde(with = "read_serde")]
    #[schemars(with = "ReadRepr<BTreeSet<String>>")]
    pub api_groups: Read<BTreeSet<String>>,
    #[serde(with = "read_serde")]
    #[schemars(with = "ReadRepr<Vec<Namespace>>")]
    pub namespaces: Read<Vec<Namespace>>,
    #[serde(with = "read_serde")]
    #[schemars(with = "ReadRepr<Vec<StorageClass>>")]
    pub storage_classes: Read<Vec<StorageClass>>,
    #[serde(with = "read_serde")]
    #[schemars(with = "ReadRepr<Vec<Workload>>")]
    pub daemonsets: Read<Vec<Workload>>,
    #[serde(with = "read_serde")]
    #[schemars(with = "ReadRepr<Vec<Workload>>")]
    pub deployments: Read<Vec<Workload>>,
    #[serde(with = "read_serde")]
    #[schemars(with = "ReadRepr<Vec<Workload>>")]
    pub statefulsets: Read<Vec<Workload>>,
    /// The kube-apiserver static pods (node and flag names only). Absent in older snapshots.
    #[serde(with = "read_serde", default = "not_recorded")]
    #[schemars(with = "ReadRepr<Vec<ApiServerPod>>")]
    pub apiserver_pods: Read<Vec<ApiServerPod>>,
    /// Custom resources by `plural.group`, each object reduced to the fields the checks use.
    /// A type absent from the map was not read.
    #[serde(with = "read_map_serde", default)]
    #[schemars(with = "ReadMapRepr<Vec<CustomObject>>")]
    pub resources: BTreeMap<String, Read<Vec<CustomObject>>>,
    /// Workload reads limited to some namespaces, by read label (`deployments`): preview reads
    /// only the namespaces its checks name. A workload in a namespace not listed here was not
    /// read (a check on it is unknown, never absent). Absent: every namespace was read.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub workload_scope: BTreeMap<String, BTreeSet<String>>,
    /// What the typed reads keep of each custom type's objects (from the catalog's checks);
    /// a type not listed keeps its namespace and name only. Not saved: the saved objects
    /// already hold only these fields.
    #[serde(skip)]
    pub keep: BTreeMap<String, BTreeSet<FieldUse>>,
    /// What host-level layers read over ssh (SPEC §13); empty when no host was read.
    #[serde(default, skip_serializing_if = "host::HostObservation::is_empty")]
    pub hosts: host::HostObservation,
    /// When the cluster was read (seconds since the epoch): the "now" of the checks that
    /// judge an age (a stale status, a certificate's expiry). Not saved: a snapshot's is its
    /// `takenAt`. `None`: those checks cannot be judged (unknown).
    #[serde(skip)]
    pub observed_at: Option<i64>,
    /// ConfigMaps read by name, `NS/NAME` → the keys the checks name, or `None` (`null`)
    /// when the API server says it does not exist: a fact ("no ConfigMap
    /// kube-system/kube-proxy"), not a failed read. A ConfigMap not in the map was not read.
    #[serde(
        with = "read_map_serde",
        default,
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    #[schemars(with = "ReadMapRepr<Option<BTreeMap<String, String>>>")]
    pub config_maps: BTreeMap<String, Read<Option<BTreeMap<String, String>>>>,
    /// Pods of the workloads that were not rolled out, `NS/SELECTOR` → up to three of them
    /// (the second read round).
    #[serde(
        with = "read_map_serde",
        default,
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    #[schemars(with = "ReadMapRepr<Vec<PodStatus>>")]
    pub pods: BTreeMap<String, Read<Vec<PodStatus>>>,
    /// Start times of one container of a namespace's pods, `NS/SELECTOR/CONTAINER` → every
    /// pod (SPEC §15: the cilium agents against cilium-config's last change).
    #[serde(
        with = "read_map_serde",
        default,
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    #[schemars(with = "ReadMapRepr<Vec<PodStart>>")]
    pub container_starts: BTreeMap<String, Read<Vec<PodStart>>>,
    /// The webhook configurations, by plural (`validatingwebhookconfigurations`): names,
    /// failure policies and services only. A kind not in the map was not read.
    #[serde(
        with = "read_map_serde",
        default,
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    #[schemars(with = "ReadMapRepr<Vec<WebhookConfiguration>>")]
    pub webhooks: BTreeMap<String, Read<Vec<WebhookConfiguration>>>,
    /// EndpointSlices of the Services of webhooks that fail closed, `NS/SERVICE` → each
    /// slice's endpoint and ready counts (the second read round).
    #[serde(
        with = "read_map_serde",
        default,
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    #[schemars(with = "ReadMapRepr<Vec<EndpointSlice>>")]
    pub endpoint_slices: BTreeMap<String, Read<Vec<EndpointSlice>>>,
    /// Every PersistentVolume (SPEC §6 v0.4 "Claims and volumes"). Absent in older
    /// snapshots: not read.
    #[serde(with = "read_serde", default = "not_recorded")]
    #[schemars(with = "ReadRepr<Vec<Volume>>")]
    pub volumes: Read<Vec<Volume>>,
    /// PersistentVolumeClaims by namespace, each namespace one read. A namespace not in the
    /// map was not read.
    #[serde(
        with = "read_map_serde",
        default,
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    #[schemars(with = "ReadMapRepr<Vec<Claim>>")]
    pub claims: BTreeMap<String, Read<Vec<Claim>>>,
    /// Where the pods of a namespace's label selector run, `NS/SELECTOR` → every pod's name,
    /// node, phase and the labels the checks name (`distinctNodes:`). A selector not in
    /// the map was not read.
    #[serde(
        with = "read_map_serde",
        default,
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    #[schemars(with = "ReadMapRepr<Vec<PlacedPod>>")]
    pub placements: BTreeMap<String, Read<Vec<PlacedPod>>>,
    /// Warning Events by namespace (in the second round, only when a layer is degraded: SPEC §6
    /// v0.4 "Warnings explain"). A namespace not in the map was not read.
    #[serde(
        with = "read_map_serde",
        default,
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    #[schemars(with = "ReadMapRepr<Vec<Event>>")]
    pub events: BTreeMap<String, Read<Vec<Event>>>,
}

fn not_recorded<T>() -> Read<T> {
    Err(ReadFailure::skipped("not in this snapshot"))
}

impl Observation {
    /// An observation where nothing was read, every read failing with `Skipped` and `reason`.
    pub fn skipped(reason: &str) -> Self {
        let f = ReadFailure::skipped(reason);
        Observation {
            nodes: Err(f.clone()),
            api_groups: Err(f.clone()),
            namespaces: Err(f.clone()),
            storage_classes: Err(f.clone()),
            daemonsets: Err(f.clone()),
            deployments: Err(f.clone()),
            statefulsets: Err(f.clone()),
            apiserver_pods: Err(f),
            resources: BTreeMap::new(),
            workload_scope: BTreeMap::new(),
            keep: BTreeMap::new(),
            hosts: host::HostObservation::default(),
            observed_at: None,
            config_maps: BTreeMap::new(),
            pods: BTreeMap::new(),
            container_starts: BTreeMap::new(),
            webhooks: BTreeMap::new(),
            endpoint_slices: BTreeMap::new(),
            volumes: Err(ReadFailure::skipped(reason)),
            claims: BTreeMap::new(),
            placements: BTreeMap::new(),
            events: BTreeMap::new(),
        }
    }

    /// Store a workload read made of several lists (one per namespace, in order), each held
    /// whole: [`Observation::store_parts`] of each list decoded. For any other read, only the
    /// first part counts.
    pub fn record_parts(
        &mut self,
        request: &ReadRequest,
        namespaces: &BTreeSet<String>,
        parts: Vec<Result<&str, ReadFailure>>,
    ) {
        let ReadRequest::Workloads(kind) = request else {
            let first = parts.into_iter().next().unwrap_or_else(|| {
                Err(ReadFailure::new(FailureKind::ApiError, "nothing was read"))
            });
            return self.record(request, first);
        };
        let decoder = self.decoder();
        let unbounded = crate::pool::Budget::new(usize::MAX);
        let decoded = parts
            .into_iter()
            .map(|part| {
                decoder
                    .decode(request, part.map(str::as_bytes), &unbounded)
                    .and_then(Decoded::into_workloads)
                    .unwrap_or_else(|| {
                        Err(ReadFailure::new(
                            FailureKind::ApiError,
                            "not a workload read",
                        ))
                    })
            })
            .collect();
        self.store_parts(*kind, namespaces, decoded)
    }

    /// Store the outcome of one read held whole: the tool's stdout is parsed by the matching
    /// parser (a parse error becomes a `BadOutput` failure); a failure is stored as-is.
    pub fn record(&mut self, request: &ReadRequest, outcome: Result<&str, ReadFailure>) {
        match request {
            ReadRequest::ApiGroups => {
                self.api_groups = outcome
                    .and_then(|text| parse_api_versions(text).map_err(bad_output))
                    .and_then(complete_discovery)
            }
            ReadRequest::Resource(t) => {
                let empty = BTreeSet::new();
                let keep = self.keep.get(t).unwrap_or(&empty);
                let read =
                    outcome.and_then(|text| parse_custom_objects(text, keep).map_err(bad_output));
                self.resources.insert(t.clone(), read);
            }
            other @ (ReadRequest::Nodes
            | ReadRequest::Namespaces
            | ReadRequest::StorageClasses
            | ReadRequest::Workloads(_)
            | ReadRequest::ApiServerPods
            | ReadRequest::PersistentVolumes
            | ReadRequest::Claims { .. }
            | ReadRequest::ConfigMap { .. }
            | ReadRequest::Pods { .. }
            | ReadRequest::ContainerStarts { .. }
            | ReadRequest::PodPlacement { .. }
            | ReadRequest::WebhookConfigurations(_)
            | ReadRequest::EndpointSlices { .. }
            | ReadRequest::Events { .. }) => {
                let unbounded = crate::pool::Budget::new(usize::MAX);
                let decoded = self
                    .decoder()
                    .decode(other, outcome.map(str::as_bytes), &unbounded);
                if let Some(d) = decoded {
                    self.store(d);
                }
            }
        }
    }
}

/// Every API server since Kubernetes 1.9 serves the `apps` group (nestor reads its
/// workloads). A listing without it is not the cluster's: client-go's legacy discovery
/// ignores a 403 (or 404) on `/apis`, and `kubectl api-versions` then prints only `v1` and
/// exits 0. Taken as is, every layer detected by its API group would turn "absent —
/// install it" on a healthy cluster; as a failed read, they are unknown.
fn complete_discovery(groups: BTreeSet<String>) -> Read<BTreeSet<String>> {
    if groups.contains("apps") {
        return Ok(groups);
    }
    Err(ReadFailure::new(
        FailureKind::ApiError,
        format!(
            "API discovery (/api, /apis) listed no apps/v1 group (only: {}): /apis was refused or incomplete",
            groups
                .iter()
                .map(|g| if g.is_empty() { "v1" } else { g.as_str() })
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// A parser's error as a failed read; an answer that is not the object asked for says what
/// came back, alone (its evidence quotes it whole).
fn bad_output(e: crate::error::Error) -> ReadFailure {
    if e.message.starts_with(answer::NOT_ASKED) || e.hint.is_empty() {
        return ReadFailure::new(FailureKind::BadOutput, e.message);
    }
    ReadFailure::new(
        FailureKind::BadOutput,
        format!("{} ({})", e.message, e.hint),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_serializes_readably_and_round_trips() {
        let mut obs = Observation::skipped("bench kubeconfig absent");
        obs.api_groups = Ok(["".to_string(), "apps".to_string()].into_iter().collect());
        obs.resources.insert(
            "cephclusters.ceph.rook.io".to_string(),
            Err(ReadFailure::new(FailureKind::Forbidden, "no\nway")),
        );
        let json = serde_json::to_value(&obs).unwrap();
        assert_eq!(json["apiGroups"], serde_json::json!({"ok": ["", "apps"]}));
        assert_eq!(
            json["nodes"],
            serde_json::json!({"failed": {"kind": "Skipped", "message": "bench kubeconfig absent"}})
        );
        assert_eq!(
            json["resources"]["cephclusters.ceph.rook.io"],
            serde_json::json!({"failed": {"kind": "Forbidden", "message": "no | way"}})
        );
        let back: Observation = serde_json::from_value(json).unwrap();
        assert_eq!(back, obs);
    }

    #[test]
    fn record_parses_stdout_and_keeps_failures() {
        let mut obs = Observation::skipped("not read");
        obs.record(
            &ReadRequest::Nodes,
            Ok(include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/nodes-dirqual.json"
            ))),
        );
        assert_eq!(obs.nodes.as_ref().map(Vec::len), Ok(4));
        obs.record(&ReadRequest::Namespaces, Ok("not json"));
        assert_eq!(
            obs.namespaces.as_ref().map_err(|f| f.kind),
            Err(FailureKind::BadOutput)
        );
        let ceph = ReadRequest::Resource("cephclusters.ceph.rook.io".to_string());
        obs.record(
            &ceph,
            Err(ReadFailure::from_kubectl_stderr(
                "Error from server (Forbidden): cephclusters.ceph.rook.io is forbidden",
            )),
        );
        assert_eq!(
            obs.resources["cephclusters.ceph.rook.io"]
                .as_ref()
                .map_err(|f| f.kind),
            Err(FailureKind::Forbidden)
        );
    }

    /// Regression: with a 403 on `/apis`, kubectl 1.20 (Debian's kubernetes-client) prints
    /// `v1` alone and exits 0; ceph, monitoring, gitops and dataops were then planned for
    /// install on a healthy cluster.
    #[test]
    fn regression_api_versions_without_apps_is_a_failed_read_not_an_empty_cluster() {
        let mut obs = Observation::skipped("not read");
        obs.record(&ReadRequest::ApiGroups, Ok("v1\n"));
        let f = obs.api_groups.clone().unwrap_err();
        assert_eq!(f.kind, FailureKind::ApiError);
        assert!(
            f.message
                .starts_with("API discovery (/api, /apis) listed no apps/v1 group (only: v1)"),
            "{f}"
        );
        obs.record(
            &ReadRequest::ApiGroups,
            Ok(include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/kubectl/api-versions.txt"
            ))),
        );
        assert!(obs.api_groups.unwrap().contains("ceph.rook.io"));
    }

    #[test]
    fn record_parts_concatenates_namespace_lists_and_records_the_scope() {
        let mut obs = Observation::skipped("not read");
        let list = |ns: &str, name: &str| {
            format!(
                r#"{{"apiVersion":"apps/v1","kind":"DeploymentList","items":[{{"metadata":{{"namespace":"{ns}","name":"{name}"}},"spec":{{"replicas":2}},"status":{{"readyReplicas":2}}}}]}}"#
            )
        };
        let (a, b) = (list("cert-manager", "cm"), list("registry", "registry"));
        let scope: BTreeSet<String> = ["cert-manager", "registry"].map(String::from).into();
        obs.record_parts(
            &ReadRequest::Workloads(WorkloadKind::Deployment),
            &scope,
            vec![Ok(&a), Ok(&b)],
        );
        let names: Vec<_> = obs
            .deployments
            .as_ref()
            .unwrap()
            .iter()
            .map(|w| format!("{}/{}", w.namespace, w.name))
            .collect();
        assert_eq!(names, ["cert-manager/cm", "registry/registry"]);
        assert_eq!(obs.workload_scope["deployments"], scope);
        let json = serde_json::to_value(&obs).unwrap();
        assert_eq!(
            json["workloadScope"]["deployments"],
            serde_json::json!(["cert-manager", "registry"])
        );
        // One failed part fails the read; a whole list clears the scope.
        let denied = ReadFailure::new(FailureKind::Forbidden, "no");
        obs.record_parts(
            &ReadRequest::Workloads(WorkloadKind::Deployment),
            &scope,
            vec![Ok(&a), Err(denied.clone())],
        );
        assert_eq!(obs.deployments, Err(denied));
        obs.record(&ReadRequest::Workloads(WorkloadKind::Deployment), Ok(&b));
        assert!(obs.workload_scope.is_empty());
        assert!(serde_json::to_value(&obs)
            .unwrap()
            .get("workloadScope")
            .is_none());
    }

    #[test]
    fn requests_know_their_group() {
        let ceph = ReadRequest::Resource("cephclusters.ceph.rook.io".to_string());
        assert_eq!(ceph.group(), Some("ceph.rook.io"));
        assert_eq!(
            ReadRequest::Workloads(WorkloadKind::DaemonSet).group(),
            None
        );
    }
}
