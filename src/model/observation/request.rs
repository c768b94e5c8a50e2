//! What a probe asks the read layer for: one [`ReadRequest`] per read (ordered so the cheap,
//! always needed reads come first) and the [`Scope`] that narrows them (workloads only in the
//! checks' namespaces, custom objects decoded into the fields the catalog uses). The read
//! plan (`Catalog::read_plan`) makes them; `read::` performs them; the [`Observation`]
//! (`super`) records what came back.
//!
//! [`Observation`]: super::Observation

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{FieldUse, WebhookKind};

/// One read the caller must perform. Ordered so a set of requests lists the cheap, always
/// needed reads first and the custom resources last, by type name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ReadRequest {
    Nodes,
    ApiGroups,
    Namespaces,
    StorageClasses,
    /// One kind of workload (every namespace, or the checks' namespaces of the [`Scope`]),
    /// decoded into what the rollout checks use.
    Workloads(WorkloadKind),
    /// The kube-apiserver static pods: kube-system, `component=kube-apiserver` only.
    ApiServerPods,
    /// Every PersistentVolume (cluster-scoped), decoded into name, class, phase and claim.
    PersistentVolumes,
    /// One namespace's PersistentVolumeClaims, decoded into name, phase, class and age.
    Claims {
        namespace: String,
    },
    /// A custom resource type as `plural.group`, e.g. `cephclusters.ceph.rook.io`.
    Resource(String),
    /// One ConfigMap by name (never a list), decoded into `keys` only.
    ConfigMap {
        namespace: String,
        name: String,
        keys: Vec<String>,
    },
    /// The pods of a workload that is not rolled out: its namespace, by its own
    /// `spec.selector.matchLabels` (`k=v,k2=v2`, validated by [`selector_of`]).
    Pods {
        namespace: String,
        selector: String,
    },
    /// When one container of a namespace's pods (by a label selector) started: every pod,
    /// decoded into name, node and that container's `state.running.startedAt` (SPEC §15:
    /// kube-system's `k8s-app=cilium` agents).
    ContainerStarts {
        namespace: String,
        selector: String,
        container: String,
    },
    /// Where a namespace's pods of a label selector run (`distinctNodes:`): every pod, up to
    /// `MAX_PLACED_PODS` (`limit=`), decoded into name, node, phase and these labels only.
    PodPlacement {
        namespace: String,
        selector: String,
        labels: Vec<String>,
    },
    /// Every Validating- or MutatingWebhookConfiguration (cluster-scoped), decoded into
    /// names, failure policies and services only (SPEC §6 v0.4).
    WebhookConfigurations(WebhookKind),
    /// A Service's EndpointSlices in its namespace, by `kubernetes.io/service-name` (the
    /// second round: the services of webhooks that fail closed).
    EndpointSlices {
        namespace: String,
        service: String,
    },
    /// One namespace's Warning Events (`events.k8s.io/v1`, `type=Warning`, with a limit):
    /// the second round, only for the namespaces a degraded layer's failing objects are in.
    Events {
        namespace: String,
    },
}

impl ReadRequest {
    /// What the read is about, for evidence and `-v` output.
    pub fn label(&self) -> &str {
        match self {
            ReadRequest::Nodes => "nodes",
            ReadRequest::ApiGroups => "API groups",
            ReadRequest::Namespaces => "namespaces",
            ReadRequest::StorageClasses => "storageclasses",
            ReadRequest::Workloads(kind) => kind.plural(),
            ReadRequest::ApiServerPods => "kube-apiserver pods",
            ReadRequest::PersistentVolumes => "persistentvolumes",
            ReadRequest::Claims { .. } => "persistentvolumeclaims",
            ReadRequest::Resource(t) => t,
            ReadRequest::ConfigMap { .. } => "configmap",
            ReadRequest::Pods { .. } => "pods",
            ReadRequest::ContainerStarts { .. } => "pods (start times)",
            ReadRequest::PodPlacement { .. } => "pods (placement)",
            ReadRequest::WebhookConfigurations(k) => k.plural(),
            ReadRequest::EndpointSlices { .. } => "endpointslices",
            ReadRequest::Events { .. } => "events",
        }
    }

    /// The key of a ConfigMap or pods read in [`Observation`]: `NS/NAME`, `NS/SELECTOR`.
    pub fn key(&self) -> Option<String> {
        match self {
            ReadRequest::ConfigMap {
                namespace, name, ..
            } => Some(format!("{namespace}/{name}")),
            ReadRequest::Pods {
                namespace,
                selector,
            } => Some(format!("{namespace}/{selector}")),
            ReadRequest::ContainerStarts {
                namespace,
                selector,
                container,
            } => Some(format!("{namespace}/{selector}/{container}")),
            ReadRequest::EndpointSlices { namespace, service } => {
                Some(format!("{namespace}/{service}"))
            }
            ReadRequest::PodPlacement {
                namespace,
                selector,
                ..
            } => Some(format!("{namespace}/{selector}")),
            ReadRequest::Claims { namespace } | ReadRequest::Events { namespace } => {
                Some(namespace.clone())
            }
            ReadRequest::PersistentVolumes
            | ReadRequest::Nodes
            | ReadRequest::ApiGroups
            | ReadRequest::Namespaces
            | ReadRequest::StorageClasses
            | ReadRequest::Workloads(_)
            | ReadRequest::ApiServerPods
            | ReadRequest::WebhookConfigurations(_)
            | ReadRequest::Resource(_) => None,
        }
    }

    /// The `plural.group` of a custom resource request, `None` for built-ins (matched
    /// exhaustively: a new kind of request decides here whether it is a custom resource).
    pub fn custom_type(&self) -> Option<&String> {
        match self {
            ReadRequest::Resource(t) => Some(t),
            ReadRequest::Nodes
            | ReadRequest::ApiGroups
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
            | ReadRequest::Events { .. } => None,
        }
    }

    /// The API group of a custom resource request (`ceph.rook.io`), `None` for built-ins.
    pub fn group(&self) -> Option<&str> {
        self.custom_type()
            .and_then(|t| t.split_once('.').map(|(_, g)| g))
    }
}

/// Reads that may be narrowed: workload reads listed here are read in these namespaces only
/// (on both read paths: one GET or one kubectl per namespace). Empty: read everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    pub workload_namespaces: BTreeMap<ReadRequest, BTreeSet<String>>,
    /// What the typed reads keep of each custom type (the catalog's field uses).
    pub keep: BTreeMap<String, BTreeSet<FieldUse>>,
    /// Workload reads listed here keep only the workloads one of these selects, each other
    /// one dropped while the list arrives, before it is kept or charged (20 000 Deployments
    /// of kube-system, of which the checks name a few). Not listed: every workload is kept.
    pub workload_names: BTreeMap<ReadRequest, Vec<WorkloadName>>,
    /// The namespaces whose webhooks' Services have their EndpointSlices read in the second
    /// round (a `webhooks:` check's namespace), the only namespaces of that list the proxy
    /// accepts.
    pub webhook_namespaces: BTreeSet<String>,
    /// Whether this run may read Warning Events in the second round (`preview`: only when a
    /// layer is degraded, in the namespaces its failing objects are in); the proxy then
    /// accepts the namespaced events.k8s.io list form, never the cluster-wide list.
    pub events: bool,
}

/// The workloads one check selects, as the read layer filters by it: its namespace and the
/// name or name prefix the check names (neither: every workload of that namespace).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct WorkloadName {
    pub namespace: String,
    pub name: Option<String>,
    pub prefix: Option<String>,
}

impl WorkloadName {
    /// Whether this selection takes the workload `namespace/name` (the catalog's
    /// `WorkloadCheck::matches`, the same rule).
    pub fn matches(&self, namespace: &str, name: &str) -> bool {
        namespace == self.namespace
            && self.name.as_deref().is_none_or(|n| n == name)
            && self.prefix.as_deref().is_none_or(|p| name.starts_with(p))
    }
}

/// The three kinds of workload the rollout checks read.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::VariantArray,
)]
pub enum WorkloadKind {
    DaemonSet,
    Deployment,
    StatefulSet,
}

impl WorkloadKind {
    /// Every kind, in order (derived: a new kind is in it).
    pub const ALL: &'static [WorkloadKind] = <WorkloadKind as strum::VariantArray>::VARIANTS;

    /// The resource's plural, as its API path and `-v` name it.
    pub fn plural(self) -> &'static str {
        match self {
            WorkloadKind::DaemonSet => "daemonsets",
            WorkloadKind::Deployment => "deployments",
            WorkloadKind::StatefulSet => "statefulsets",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadKind::DaemonSet => "DaemonSet",
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
        }
    }

    pub fn read_request(self) -> ReadRequest {
        ReadRequest::Workloads(self)
    }
}
