//! The reads a set of layers needs, gathered from each check's `CheckKind::reads` (the ONE
//! exhaustive `match` over the kinds, `check/reads.rs`): the
//! requests (cheap built-ins first), the scope (the namespaces workload reads are limited
//! to and the workloads they keep, the fields kept of each custom type) and the host-level layers read over ssh. A new
//! check kind does not compile until its read is decided in `reads()`. Pure: the session runs it.

use std::collections::{BTreeMap, BTreeSet};

use super::check::{WorkloadCheck, WorkloadKind};
use super::Catalog;
use crate::model::observation::{FieldUse, ReadRequest, Scope, WorkloadName, NAMESPACES_KEEP};

/// Whether workload reads are limited to the namespaces the checks name, keeping only the
/// workloads they select (`preview`, `wait`:
/// the same verdicts for a fraction of the bytes) or list every namespace (`discover`: a
/// saved snapshot may be judged by another catalog).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workloads {
    InTheirNamespaces,
    Everywhere,
}

/// What to read for a set of layers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadPlan {
    pub requests: Vec<ReadRequest>,
    pub scope: Scope,
    /// The host-level layers among them (read over ssh, not through kubectl).
    pub host_layers: Vec<String>,
    /// The workload selections of the checks, one list per layer (in the layers' order):
    /// those not rolled out have their pods read in a second round, at most
    /// `state::MAX_NAMED` workloads per layer (SPEC §6 v0.3 and §9, `state::why::pod_reads`).
    pub workloads: Vec<Vec<WorkloadCheck>>,
}

impl ReadPlan {
    /// `request` read first if the checks do not already need it (the nodes: always shown,
    /// and read for the confirmation).
    pub fn first(mut self, request: ReadRequest) -> ReadPlan {
        if !self.requests.contains(&request) {
            self.requests.insert(0, request);
        }
        self
    }

    /// `requests` read too, after the checks' own.
    pub fn also(mut self, requests: &[ReadRequest]) -> ReadPlan {
        for r in requests {
            if !self.requests.contains(r) {
                self.requests.push(r.clone());
            }
        }
        self
    }
}

impl Catalog {
    /// The plan of `layer_ids` (unknown ids are ignored: the topology validates ids).
    pub fn read_plan(&self, layer_ids: &[String], workloads: Workloads) -> ReadPlan {
        let mut reads = BTreeSet::new();
        let mut config_maps: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        let mut scope = Scope::default();
        let mut selections: Vec<Vec<WorkloadCheck>> = Vec::new();
        // The namespaces the layers' workload checks name: where a `claims` check reads
        // PersistentVolumeClaims (SPEC §6 v0.4 "a checked namespace").
        let mut checked: BTreeSet<String> = BTreeSet::new();
        let mut claims = false;
        let mut placements: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        for layer in layer_ids.iter().filter_map(|id| self.get(id)) {
            let mut mine: Vec<WorkloadCheck> = Vec::new();
            for check in layer.detect.iter().chain(&layer.healthy).map(|c| &c.kind) {
                let wants = check.reads();
                reads.extend(wants.requests);
                for label in wants.namespace_labels {
                    // The namespaces list, keeping only the labels the checks name.
                    scope
                        .keep
                        .entry(NAMESPACES_KEEP.to_string())
                        .or_default()
                        .insert(FieldUse::Label(label.to_string()));
                }
                scope
                    .webhook_namespaces
                    .extend(wants.webhook_namespace.map(String::from));
                claims |= wants.claims;
                // Two checks of one selector share one read.
                if let Some((namespace, selector, label)) = wants.placement {
                    placements
                        .entry((namespace.to_string(), selector.to_string()))
                        .or_default()
                        .extend(label.map(String::from));
                }
                for (namespace, name, key) in wants.config_maps {
                    let keys = config_maps
                        .entry((namespace.to_string(), name.to_string()))
                        .or_default();
                    keys.extend(key.map(String::from));
                }
                for w in wants.workloads {
                    checked.insert(w.namespace.clone());
                    if !mine.contains(w) {
                        mine.push(w.clone());
                    }
                    for k in w.kinds() {
                        reads.insert(WorkloadKind::read_request(k));
                        if workloads == Workloads::InTheirNamespaces {
                            scope
                                .workload_namespaces
                                .entry(k.read_request())
                                .or_default()
                                .insert(w.namespace.clone());
                            let names = scope.workload_names.entry(k.read_request()).or_default();
                            let name = WorkloadName {
                                namespace: w.namespace.clone(),
                                name: w.name.clone(),
                                prefix: w.name_prefix.clone(),
                            };
                            if !names.contains(&name) {
                                names.push(name);
                            }
                        }
                    }
                }
                for (objects, used) in wants.objects {
                    reads.insert(ReadRequest::ApiGroups);
                    reads.insert(ReadRequest::Resource(objects.resource.clone()));
                    scope
                        .keep
                        .entry(objects.resource.clone())
                        .or_default()
                        .extend(used);
                }
            }
            if !mine.is_empty() {
                selections.push(mine);
            }
        }
        if claims {
            reads.extend(
                checked
                    .into_iter()
                    .map(|namespace| ReadRequest::Claims { namespace }),
            );
        }
        // ONE GET per namespace and selector, keeping the labels of all its checks.
        for ((namespace, selector), labels) in placements {
            reads.insert(ReadRequest::PodPlacement {
                namespace,
                selector,
                labels: labels.into_iter().collect(),
            });
        }
        // ONE GET per ConfigMap, decoded into the keys of all the checks that name it.
        for ((namespace, name), keys) in config_maps {
            reads.insert(ReadRequest::ConfigMap {
                namespace,
                name,
                keys: keys.into_iter().collect(),
            });
        }
        let host_layers = layer_ids
            .iter()
            .filter(|id| self.get(id).is_some_and(|l| l.host.is_some()))
            .cloned()
            .collect();
        ReadPlan {
            requests: reads.into_iter().collect(),
            scope,
            host_layers,
            workloads: selections,
        }
    }
}

#[cfg(test)]
#[path = "read_plan_tests.rs"]
mod tests;
