//! One built-in read's answer decoded into its typed value, apart from recording it: the
//! read layer decodes each answer on the thread that reads it, while the bytes arrive
//! ([`Decoder::decode`] over any [`Read`], charged to the run's [`Budget`]), and the
//! observation then stores the values ([`Observation::store`]). A failed read goes the same
//! way (the API server's NotFound for a named ConfigMap is the fact "it does not exist").

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use super::WorkloadKind;
use super::{
    bad_output, read_apiserver_pods, read_claims, read_config_map, read_container_starts,
    read_daemonsets, read_deployments, read_endpoint_slices, read_events, read_namespaces,
    read_nodes, read_pod_placement, read_statefulsets, read_storage_classes, read_volumes,
    read_webhook_configurations, read_workload_pods, ApiServerPod, Claim, EndpointSlice, Event,
    FailureKind, FieldUse, Namespace, Node, Observation, PlacedPod, PodStart, PodStatus,
    Read as ReadOf, ReadFailure, ReadRequest, StorageClass, Volume, WebhookConfiguration,
    WebhookKind, Workload, WorkloadName, NAMESPACES_KEEP,
};
use crate::pool::Budget;

/// A built-in read's typed outcome.
#[derive(Debug)]
pub enum Decoded {
    Nodes(ReadOf<Vec<Node>>),
    Namespaces(ReadOf<Vec<Namespace>>),
    StorageClasses(ReadOf<Vec<StorageClass>>),
    /// DaemonSets, Deployments or StatefulSets (of one namespace, or of all): which one.
    Workloads(WorkloadKind, ReadOf<Vec<Workload>>),
    ApiServerPods(ReadOf<Vec<ApiServerPod>>),
    /// By the request's key (`NS/NAME`); `None`: the API server says it does not exist.
    ConfigMap(String, ReadOf<Option<BTreeMap<String, String>>>),
    /// By the request's key (`NS/SELECTOR`).
    Pods(String, ReadOf<Vec<PodStatus>>),
    /// By the request's key (`NS/SELECTOR/CONTAINER`).
    ContainerStarts(String, ReadOf<Vec<PodStart>>),
    Webhooks(WebhookKind, ReadOf<Vec<WebhookConfiguration>>),
    /// By the request's key (`NS/SERVICE`).
    EndpointSlices(String, ReadOf<Vec<EndpointSlice>>),
    Volumes(ReadOf<Vec<Volume>>),
    /// By the request's key (the namespace).
    Claims(String, ReadOf<Vec<Claim>>),
    /// By the request's key (`NS/SELECTOR`).
    Placement(String, ReadOf<Vec<PlacedPod>>),
    /// By the request's key (the namespace).
    Events(String, ReadOf<Vec<Event>>),
}

impl Decoded {
    /// The workloads of a workload read; `None` for any other read.
    pub fn into_workloads(self) -> Option<ReadOf<Vec<Workload>>> {
        match self {
            Decoded::Workloads(_, read) => Some(read),
            Decoded::Nodes(_)
            | Decoded::Namespaces(_)
            | Decoded::StorageClasses(_)
            | Decoded::ApiServerPods(_)
            | Decoded::ConfigMap(..)
            | Decoded::Pods(..)
            | Decoded::ContainerStarts(..)
            | Decoded::Webhooks(..)
            | Decoded::EndpointSlices(..)
            | Decoded::Volumes(_)
            | Decoded::Claims(..)
            | Decoded::Placement(..)
            | Decoded::Events(..) => None,
        }
    }
}

/// What decoding needs of the observation: the namespace labels the checks name, and the
/// workloads they select ([`Decoder::selecting`]).
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    labels: BTreeSet<String>,
    workloads: BTreeMap<ReadRequest, Vec<WorkloadName>>,
}

impl Observation {
    /// The decoder of this observation's reads.
    pub fn decoder(&self) -> Decoder {
        let labels = self
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
                FieldUse::ConditionMessages | FieldUse::Items(..) | FieldUse::Parents(_) => None,
            })
            .collect();
        Decoder {
            labels,
            workloads: BTreeMap::new(),
        }
    }

    /// Store a decoded read. A whole list: any earlier namespace scope of it no longer applies.
    pub fn store(&mut self, decoded: Decoded) {
        match decoded {
            Decoded::Nodes(r) => self.nodes = r,
            Decoded::Namespaces(r) => self.namespaces = r,
            Decoded::StorageClasses(r) => self.storage_classes = r,
            Decoded::Workloads(kind, r) => {
                self.workload_scope.remove(kind.plural());
                match kind {
                    WorkloadKind::DaemonSet => self.daemonsets = r,
                    WorkloadKind::Deployment => self.deployments = r,
                    WorkloadKind::StatefulSet => self.statefulsets = r,
                }
            }
            Decoded::ApiServerPods(r) => self.apiserver_pods = r,
            Decoded::ConfigMap(key, read) => {
                // Two requests for one ConfigMap: the keys of both.
                match (self.config_maps.get_mut(&key), read) {
                    (Some(Ok(Some(kept))), Ok(Some(more))) => kept.extend(more),
                    (_, read) => {
                        self.config_maps.insert(key, read);
                    }
                }
            }
            Decoded::Pods(key, read) => {
                self.pods.insert(key, read);
            }
            Decoded::ContainerStarts(key, read) => {
                self.container_starts.insert(key, read);
            }
            Decoded::Webhooks(kind, read) => {
                self.webhooks.insert(kind.plural().to_string(), read);
            }
            Decoded::EndpointSlices(key, read) => {
                self.endpoint_slices.insert(key, read);
            }
            Decoded::Volumes(r) => self.volumes = r,
            Decoded::Claims(key, read) => {
                self.claims.insert(key, read);
            }
            Decoded::Placement(key, read) => {
                self.placements.insert(key, read);
            }
            Decoded::Events(key, read) => {
                self.events.insert(key, read);
            }
        }
    }

    /// Store a workload read made of several lists (one per namespace, in order): only each
    /// namespace's own objects are kept, the items concatenated as in the one list of every
    /// namespace; the first failure fails the whole read. `namespaces` is recorded as the
    /// read's scope.
    pub fn store_parts(
        &mut self,
        kind: WorkloadKind,
        namespaces: &BTreeSet<String>,
        parts: Vec<ReadOf<Vec<Workload>>>,
    ) {
        let mut all = Vec::new();
        let mut outcome = Ok(());
        for (part, namespace) in parts.into_iter().zip(namespaces) {
            match part {
                Ok(items) => all.extend(items.into_iter().filter(|w| &w.namespace == namespace)),
                Err(f) => {
                    outcome = Err(f);
                    break;
                }
            }
        }
        self.store(Decoded::Workloads(kind, outcome.map(|()| all)));
        self.workload_scope
            .insert(kind.plural().to_string(), namespaces.clone());
    }
}

impl Decoder {
    /// This decoder keeping, of each workload read listed in `workloads`, only the workloads
    /// one of its selections takes (a scope's `workload_names`); the others go by unkept.
    pub fn selecting(mut self, workloads: &BTreeMap<ReadRequest, Vec<WorkloadName>>) -> Decoder {
        self.workloads = workloads.clone();
        self
    }

    /// Decode `outcome` (an answer's body, read as it arrives, or why there is none) as the
    /// answer to `request`, charging what is kept to `budget`. `None` for the reads that are
    /// not built-in objects (API discovery, custom resources: their own decoders).
    pub fn decode<R: Read>(
        &self,
        request: &ReadRequest,
        outcome: Result<R, ReadFailure>,
        budget: &Budget,
    ) -> Option<Decoded> {
        fn typed<R, T>(
            outcome: Result<R, ReadFailure>,
            read: impl FnOnce(R) -> crate::error::Result<T>,
        ) -> ReadOf<T> {
            read(outcome?).map_err(bad_output)
        }
        let key = || request.key().unwrap_or_default();
        let keep = self.workloads.get(request).map(Vec::as_slice);
        Some(match request {
            ReadRequest::ApiGroups | ReadRequest::Resource(_) => return None,
            ReadRequest::Nodes => Decoded::Nodes(typed(outcome, |r| read_nodes(r, budget))),
            ReadRequest::Namespaces => {
                Decoded::Namespaces(typed(outcome, |r| read_namespaces(r, &self.labels, budget)))
            }
            ReadRequest::StorageClasses => {
                Decoded::StorageClasses(typed(outcome, |r| read_storage_classes(r, budget)))
            }
            ReadRequest::Workloads(kind) => {
                let read = match kind {
                    WorkloadKind::DaemonSet => typed(outcome, |r| read_daemonsets(r, budget, keep)),
                    WorkloadKind::Deployment => {
                        typed(outcome, |r| read_deployments(r, budget, keep))
                    }
                    WorkloadKind::StatefulSet => {
                        typed(outcome, |r| read_statefulsets(r, budget, keep))
                    }
                };
                Decoded::Workloads(*kind, read)
            }
            ReadRequest::ApiServerPods => {
                Decoded::ApiServerPods(typed(outcome, |r| read_apiserver_pods(r, budget)))
            }
            ReadRequest::ConfigMap {
                namespace,
                name,
                keys,
            } => {
                let gone = format!("configmaps \"{name}\" not found");
                Decoded::ConfigMap(
                    key(),
                    match outcome {
                        // GET of a named object: the API server's own NotFound for it says it
                        // does not exist, a fact. A 404 that is not the API server's Status for
                        // this ConfigMap (a path it does not serve) stays a failed read.
                        Err(f) if f.kind == FailureKind::NotFound && f.message.contains(&gone) => {
                            Ok(None)
                        }
                        other => typed(other, |r| {
                            read_config_map(r, namespace, name, keys, budget).map(Some)
                        }),
                    },
                )
            }
            ReadRequest::Pods { .. } => {
                Decoded::Pods(key(), typed(outcome, |r| read_workload_pods(r, budget)))
            }
            ReadRequest::PersistentVolumes => {
                Decoded::Volumes(typed(outcome, |r| read_volumes(r, budget)))
            }
            ReadRequest::Claims { .. } => {
                Decoded::Claims(key(), typed(outcome, |r| read_claims(r, budget)))
            }
            ReadRequest::ContainerStarts { container, .. } => Decoded::ContainerStarts(
                key(),
                typed(outcome, |r| read_container_starts(r, container, budget)),
            ),
            ReadRequest::PodPlacement { labels, .. } => Decoded::Placement(
                key(),
                typed(outcome, |r| read_pod_placement(r, labels, budget)),
            ),
            ReadRequest::WebhookConfigurations(kind) => Decoded::Webhooks(
                *kind,
                typed(outcome, |r| read_webhook_configurations(r, *kind, budget)),
            ),
            ReadRequest::EndpointSlices { namespace, service } => {
                let what = format!(
                    "GET /apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices?labelSelector=kubernetes.io/service-name={service}"
                );
                Decoded::EndpointSlices(
                    key(),
                    typed(outcome, |r| {
                        read_endpoint_slices(r, (namespace, service), &what, budget)
                    }),
                )
            }
            ReadRequest::Events { namespace } => {
                let what = format!(
                    "GET /apis/events.k8s.io/v1/namespaces/{namespace}/events?fieldSelector=type=Warning"
                );
                Decoded::Events(key(), typed(outcome, |r| read_events(r, &what, budget)))
            }
        })
    }
}
