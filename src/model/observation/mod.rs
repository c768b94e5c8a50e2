//! What the probes read, as data. A read either yields a typed value or a classified failure;
//! a failure is kept as data (it turns a layer `unknown`, never `absent`), and the whole
//! observation can be saved to a snapshot file and replayed.
//!
//! The parsers are pure: the process layer hands them kubectl/limactl stdout (or stderr for
//! [`classify_kubectl_stderr`]) and they never spawn anything.

mod agents;
pub mod answer;
mod classify;
mod failure;
mod fields;
pub mod host;
mod kube;
mod lima;
mod lists;
mod members;
mod meta;
mod node_truth;
mod object_list;
mod objects;
mod pods;
mod repr;
mod request;
mod status_reads;
mod trie;
mod workloads;

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use agents::{parse_container_starts, PodStart, LAST_CHANGE};
pub use classify::{classify_kubectl_stderr, kubectl_message};
pub use failure::{is_unreachable, FailureKind, ReadFailure, UNREACHABLE_HINT};
pub use fields::{annotation_field, members_key, FieldPath, FieldUse, NAMESPACES_KEEP};
pub use kube::{
    parse_api_versions, parse_namespaces, parse_nodes, parse_storage_classes, Namespace, Node,
    Rollout, StorageClass, Workload, VERSION_LABELS,
};
pub use lima::{parse_limactl_list, LimaInstance, LimaStatus};
pub use lists::{RouteParent, MAX_ITEMS};
pub use meta::{condition_words, suspension, words, Deletion, DELETION_BLOCKED, SUSPENSIONS};
pub use node_truth::{NodeCondition, NodeTaint, BLOCKING_EFFECTS, TROUBLE_CONDITIONS};
pub use objects::{decode_custom_objects, parse_custom_objects, CustomObject};
pub use pods::{parse_apiserver_pods, ApiServerPod, APISERVER_NAMESPACE, APISERVER_SELECTOR};
pub use repr::{read_map_serde, read_serde, ReadMapRepr, ReadRepr};
pub use request::{ReadRequest, Scope};
pub use status_reads::{
    parse_config_map, parse_workload_pods, selector_of, ContainerStatus, PodStatus, MAX_PODS,
};
pub use workloads::{parse_daemonsets, parse_deployments, parse_statefulsets};

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
        }
    }

    /// Store a workload read made of several lists (one per namespace, in order): each list
    /// goes through the read's parser and the items are concatenated, as in the one list of
    /// every namespace; the first failure fails the whole read. `namespaces` is recorded as
    /// the read's scope. For any other read, only the first part counts.
    pub fn record_parts(
        &mut self,
        request: &ReadRequest,
        namespaces: &BTreeSet<String>,
        parts: Vec<Result<&str, ReadFailure>>,
    ) {
        let parse: fn(&str) -> crate::error::Result<Vec<Workload>> = match request {
            ReadRequest::DaemonSets => parse_daemonsets,
            ReadRequest::Deployments => parse_deployments,
            ReadRequest::StatefulSets => parse_statefulsets,
            other @ (ReadRequest::Nodes
            | ReadRequest::ApiGroups
            | ReadRequest::Namespaces
            | ReadRequest::StorageClasses
            | ReadRequest::ApiServerPods
            | ReadRequest::Resource(_)
            | ReadRequest::ConfigMap { .. }
            | ReadRequest::Pods { .. }
            | ReadRequest::ContainerStarts { .. }) => {
                let first = parts.into_iter().next().unwrap_or_else(|| {
                    Err(ReadFailure::new(FailureKind::ApiError, "nothing was read"))
                });
                return self.record(other, first);
            }
        };
        let mut all = Vec::new();
        let mut outcome = Ok(());
        // Part i is the read of the i-th namespace: only that namespace's objects are kept
        // (a list of one namespace holds no other; an answer that does says nothing of them).
        for (part, namespace) in parts.into_iter().zip(namespaces) {
            match part.and_then(|text| parse(text).map_err(bad_output)) {
                Ok(items) => all.extend(items.into_iter().filter(|w| &w.namespace == namespace)),
                Err(f) => {
                    outcome = Err(f);
                    break;
                }
            }
        }
        let read = outcome.map(|()| all);
        match request {
            ReadRequest::DaemonSets => self.daemonsets = read,
            ReadRequest::Deployments => self.deployments = read,
            ReadRequest::StatefulSets => self.statefulsets = read,
            // Returned above: only the three workload reads come in parts.
            ReadRequest::Nodes
            | ReadRequest::ApiGroups
            | ReadRequest::Namespaces
            | ReadRequest::StorageClasses
            | ReadRequest::ApiServerPods
            | ReadRequest::Resource(_)
            | ReadRequest::ConfigMap { .. }
            | ReadRequest::Pods { .. }
            | ReadRequest::ContainerStarts { .. } => {}
        }
        self.workload_scope
            .insert(request.label().to_string(), namespaces.clone());
    }

    /// Store the outcome of one read: the tool's stdout is parsed by the matching parser
    /// (a parse error becomes a `BadOutput` failure); a failure is stored as-is.
    pub fn record(&mut self, request: &ReadRequest, outcome: Result<&str, ReadFailure>) {
        fn parsed<T>(
            outcome: Result<&str, ReadFailure>,
            parse: fn(&str) -> crate::error::Result<T>,
        ) -> Read<T> {
            let text = outcome?;
            parse(text).map_err(bad_output)
        }
        // A whole list: any earlier namespace scope of this read no longer applies.
        self.workload_scope.remove(request.label());
        match request {
            ReadRequest::Nodes => self.nodes = parsed(outcome, parse_nodes),
            ReadRequest::ApiGroups => {
                self.api_groups = parsed(outcome, parse_api_versions).and_then(complete_discovery)
            }
            ReadRequest::Namespaces => {
                let labels: BTreeSet<String> = self
                    .keep
                    .get(NAMESPACES_KEEP)
                    .into_iter()
                    .flatten()
                    .filter_map(|u| match u {
                        FieldUse::Label(k) => Some(k.clone()),
                        FieldUse::Value(_)
                        | FieldUse::Details(_)
                        | FieldUse::Conditions
                        | FieldUse::Annotation(_)
                        | FieldUse::Members(_) => None,
                        FieldUse::ConditionMessages
                        | FieldUse::Items(..)
                        | FieldUse::Parents(_) => None,
                    })
                    .collect();
                self.namespaces =
                    outcome.and_then(|text| parse_namespaces(text, &labels).map_err(bad_output));
            }
            ReadRequest::StorageClasses => {
                self.storage_classes = parsed(outcome, parse_storage_classes)
            }
            ReadRequest::DaemonSets => self.daemonsets = parsed(outcome, parse_daemonsets),
            ReadRequest::Deployments => self.deployments = parsed(outcome, parse_deployments),
            ReadRequest::StatefulSets => self.statefulsets = parsed(outcome, parse_statefulsets),
            ReadRequest::ApiServerPods => {
                self.apiserver_pods = parsed(outcome, parse_apiserver_pods)
            }
            ReadRequest::ConfigMap {
                namespace,
                name,
                keys,
            } => {
                let key = request.key().unwrap_or_default();
                let gone = format!("configmaps \"{name}\" not found");
                let read = match outcome {
                    // GET of a named object: the API server's own NotFound for it says it
                    // does not exist, a fact. A 404 that is not the API server's Status for
                    // this ConfigMap (a path it does not serve) stays a failed read.
                    Err(f) if f.kind == FailureKind::NotFound && f.message.contains(&gone) => {
                        Ok(None)
                    }
                    other => other
                        .and_then(|text| {
                            parse_config_map(text, namespace, name, keys).map_err(bad_output)
                        })
                        .map(Some),
                };
                // Two requests for one ConfigMap: the keys of both.
                match (self.config_maps.get_mut(&key), read) {
                    (Some(Ok(Some(kept))), Ok(Some(more))) => kept.extend(more),
                    (_, read) => {
                        self.config_maps.insert(key, read);
                    }
                }
            }
            ReadRequest::Pods { .. } => {
                let key = request.key().unwrap_or_default();
                self.pods.insert(key, parsed(outcome, parse_workload_pods));
            }
            ReadRequest::ContainerStarts { container, .. } => {
                let key = request.key().unwrap_or_default();
                let read = outcome
                    .and_then(|text| parse_container_starts(text, container).map_err(bad_output));
                self.container_starts.insert(key, read);
            }
            ReadRequest::Resource(t) => {
                let empty = BTreeSet::new();
                let keep = self.keep.get(t).unwrap_or(&empty);
                let read =
                    outcome.and_then(|text| parse_custom_objects(text, keep).map_err(bad_output));
                self.resources.insert(t.clone(), read);
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
#[allow(clippy::unwrap_used)]
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
        obs.record_parts(&ReadRequest::Deployments, &scope, vec![Ok(&a), Ok(&b)]);
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
            &ReadRequest::Deployments,
            &scope,
            vec![Ok(&a), Err(denied.clone())],
        );
        assert_eq!(obs.deployments, Err(denied));
        obs.record(&ReadRequest::Deployments, Ok(&b));
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
        assert_eq!(ReadRequest::DaemonSets.group(), None);
    }
}
