//! The gate reads' decoders: the API server's JSON (List documents as `kubectl get -o json`
//! and the proxy serve them) into `facts`, keeping only the fields the rules use. Lenient
//! inside an object (every field defaulted, as upstream omits empty ones), strict on the
//! shape: a list of another kind, or no `items`, is a failed read, never an empty one.

use std::collections::BTreeMap;
use std::io::Read;

use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::facts::*;
use crate::error::{Error, Result};

mod pools;
mod quantity;
mod raw;
mod readyz;
pub use readyz::readyz;
mod stream;
mod workloads;
use raw::*;
use stream::{count_from, list_from};
pub use stream::{text_from, Charged, MAX_TEXT_BYTES};

pub use workloads::{
    component_version, rook_operator, rook_versions, workload_images, workload_object,
};

pub use pools::{block_pools, filesystem_pools, object_store_pools};
pub use quantity::{parse_bytes, parse_cpu_milli};

/// A List of `kind` objects (`PodList`, or kubectl's `List` whose items say their kind).
pub(super) fn list<T: DeserializeOwned>(text: &str, kind: &str) -> Result<Vec<T>> {
    #[derive(Deserialize)]
    struct Kinded<T> {
        #[serde(default)]
        kind: Option<String>,
        #[serde(flatten)]
        item: T,
    }
    #[derive(Deserialize)]
    struct List<T> {
        #[serde(default)]
        kind: String,
        items: Vec<Kinded<T>>,
    }
    let bad = |detail: String| {
        Error::input(
            format!("malformed {kind}List: {detail}"),
            format!("expected one JSON List of {kind} objects with `items`, as the API server serves it"),
        )
    };
    let l: List<T> = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    if l.kind != "List" && l.kind.strip_suffix("List") != Some(kind) {
        return Err(bad(format!(
            "a list of kind `{}`",
            crate::term::escape(&l.kind)
        )));
    }
    l.items
        .into_iter()
        .map(|k| match k.kind.as_deref() {
            None => Ok(k.item),
            Some(x) if x == kind => Ok(k.item),
            Some(other) => Err(bad(format!(
                "an item of kind `{}`",
                crate::term::escape(other)
            ))),
        })
        .collect()
}

fn selector(s: RawSelector) -> Selector {
    Selector {
        match_labels: s.match_labels,
        match_expressions: s
            .match_expressions
            .into_iter()
            .map(|r| Requirement {
                key: r.key,
                operator: r.operator,
                values: r.values,
            })
            .collect(),
    }
}

/// A decoder of an answer held whole (tests, fixtures): nothing it keeps is refused.
fn whole<'t, T>(
    text: &'t str,
    what: &str,
    read: impl FnOnce(&'t [u8], Charged<'_>) -> Result<T>,
) -> Result<T> {
    let budget = crate::pool::Budget::new(usize::MAX);
    read(
        text.as_bytes(),
        Charged {
            what,
            budget: &budget,
        },
    )
}

/// `policy/v1` PodDisruptionBudgetList.
pub fn pdbs(text: &str) -> Result<Vec<Pdb>> {
    whole(text, "PodDisruptionBudgetList", read_pdbs)
}

/// [`pdbs`] as the list arrives, each PodDisruptionBudget charged to `to`.
pub fn read_pdbs<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Pdb>> {
    list_from(reader, "PodDisruptionBudget", to, |p: RawPdb| {
        Ok(Pdb {
            namespace: p.metadata.namespace,
            name: p.metadata.name,
            selector: p.spec.selector.map(selector),
            generation: p.metadata.generation,
            observed_generation: p.status.observed_generation,
            always_allow_unhealthy: p.spec.unhealthy_pod_eviction_policy.as_deref()
                == Some("AlwaysAllow"),
            disruptions_allowed: p.status.disruptions_allowed,
            current_healthy: p.status.current_healthy,
            desired_healthy: p.status.desired_healthy,
            expected_pods: p.status.expected_pods,
        })
    })
}

fn requests(containers: &[RawContainer]) -> Result<Resources> {
    let mut sum = Resources::default();
    for c in containers {
        let r = &c.resources.requests;
        let cpu = r
            .get("cpu")
            .map(|q| parse_cpu_milli(q))
            .transpose()?
            .unwrap_or(0);
        let mem = r
            .get("memory")
            .map(|q| parse_bytes(q))
            .transpose()?
            .unwrap_or(0);
        sum = sum.plus(Resources {
            cpu_milli: cpu,
            memory_bytes: mem,
        });
    }
    Ok(sum)
}

/// PodList (pods of a node, mirror pods, mon pods).
pub fn pods(text: &str) -> Result<Vec<Pod>> {
    whole(text, "PodList", read_pods)
}

/// [`pods`] as the list arrives, each pod charged to `to`.
pub fn read_pods<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Pod>> {
    list_from(reader, "Pod", to, |p: RawPod| {
        Ok(Pod {
            requests: requests(&p.spec.containers)?,
            images: p.spec.containers.iter().map(|c| c.image.clone()).collect(),
            deleting: p.metadata.deletion_timestamp,
            mirror: p.metadata.mirror,
            namespace: p.metadata.namespace,
            name: p.metadata.name,
            node: p.spec.node_name,
            labels: p.metadata.labels,
            owners: p
                .metadata
                .owner_references
                .into_iter()
                .map(|o| Owner {
                    kind: o.kind,
                    name: o.name,
                    controller: o.controller,
                })
                .collect(),
            volumes: p
                .spec
                .volumes
                .into_iter()
                .map(|v| {
                    let kind = if let Some(h) = v.host_path {
                        VolumeKind::HostPath(h.path)
                    } else if v.empty_dir.is_some() {
                        VolumeKind::EmptyDir
                    } else if let Some(c) = v.persistent_volume_claim {
                        VolumeKind::Claim(c.claim_name)
                    } else {
                        VolumeKind::Other
                    };
                    (v.name, kind)
                })
                .collect(),
            phase: p.status.phase,
            ready: p
                .status
                .conditions
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True"),
        })
    })
}

/// The requests of every pod that is not terminated, summed per node (`spec.nodeName`):
/// what the scheduler counts against a node's allocatable. Only the sums are kept; each
/// node's entry is charged to the budget when it first appears.
pub fn requests_per_node(text: &str) -> Result<BTreeMap<String, Resources>> {
    whole(text, "PodList", read_requests_per_node)
}

/// [`requests_per_node`] as the list arrives.
pub fn read_requests_per_node<R: Read>(
    reader: R,
    to: Charged<'_>,
) -> Result<BTreeMap<String, Resources>> {
    let mut sums: BTreeMap<String, Resources> = BTreeMap::new();
    list_from(reader, "Pod", to, |p: RawPod| {
        let terminated = p.status.phase == "Succeeded" || p.status.phase == "Failed";
        if terminated || p.spec.node_name.is_empty() {
            return Ok(None);
        }
        let r = requests(&p.spec.containers)?;
        let first = !sums.contains_key(&p.spec.node_name);
        let sum = sums.entry(p.spec.node_name.clone()).or_default();
        *sum = sum.plus(r);
        Ok(first.then_some(p.spec.node_name))
    })?;
    Ok(sums)
}

/// DaemonSetList: each DaemonSet's namespace and name.
pub fn daemonsets(text: &str) -> Result<Vec<ObjectRef>> {
    whole(text, "DaemonSetList", read_daemonsets)
}

/// [`daemonsets`] as the list arrives.
pub fn read_daemonsets<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<ObjectRef>> {
    list_from(reader, "DaemonSet", to, |d: RawNamed| {
        Ok((d.metadata.namespace, d.metadata.name))
    })
}

/// CloudNativePG's ClusterList.
pub fn cnpg_clusters(text: &str) -> Result<Vec<CnpgCluster>> {
    whole(text, "ClusterList", read_cnpg_clusters)
}

/// [`cnpg_clusters`] as the list arrives.
pub fn read_cnpg_clusters<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<CnpgCluster>> {
    list_from(reader, "Cluster", to, |c: RawCnpgCluster| {
        let mut status = c.status;
        let mut healthy = status
            .instances_status
            .remove("healthy")
            .unwrap_or_default();
        healthy.sort();
        Ok(CnpgCluster {
            namespace: c.metadata.namespace,
            name: c.metadata.name,
            instances: c.spec.instances,
            current_primary: status.current_primary,
            healthy,
        })
    })
}

/// NodeList.
pub fn nodes(text: &str) -> Result<Vec<Node>> {
    whole(text, "NodeList", read_nodes)
}

/// [`nodes`] as the list arrives, each node charged to `to` (a 10 000-node list is never
/// held: only its `Node` facts).
pub fn read_nodes<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Node>> {
    list_from(reader, "Node", to, |n: RawNode| {
        let a = &n.status.allocatable;
        let allocatable = Resources {
            cpu_milli: a
                .get("cpu")
                .map(|q| parse_cpu_milli(q))
                .transpose()?
                .unwrap_or(0),
            memory_bytes: a
                .get("memory")
                .map(|q| parse_bytes(q))
                .transpose()?
                .unwrap_or(0),
        };
        let roles = n
            .metadata
            .labels
            .keys()
            .filter_map(|k| k.strip_prefix("node-role.kubernetes.io/"))
            .filter(|r| !r.is_empty())
            .map(str::to_string)
            .collect();
        Ok(Node {
            ready: n
                .status
                .conditions
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True"),
            roles,
            hostname: n.metadata.labels.get("kubernetes.io/hostname").cloned(),
            unschedulable: n.spec.unschedulable,
            hard_taints: n
                .spec
                .taints
                .into_iter()
                .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
                .map(|t| t.key)
                .collect(),
            kubelet_version: n.status.node_info.kubelet_version,
            container_runtime_version: n.status.node_info.container_runtime_version,
            allocatable,
            name: n.metadata.name,
        })
    })
}

/// PersistentVolumeList.
pub fn pvs(text: &str) -> Result<Vec<Pv>> {
    whole(text, "PersistentVolumeList", read_pvs)
}

/// [`pvs`] as the list arrives, each PersistentVolume charged to `to`.
pub fn read_pvs<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Pv>> {
    list_from(reader, "PersistentVolume", to, |p: RawPv| {
        Ok(Pv {
            claim: p.spec.claim_ref.map(|c| (c.namespace, c.name)),
            local: p.spec.local.is_some(),
            host_path: p.spec.host_path.is_some(),
            pinned_hosts: p
                .spec
                .node_affinity
                .and_then(|a| a.required)
                .map(|r| r.node_selector_terms)
                .unwrap_or_default()
                .into_iter()
                .flat_map(|t| t.match_expressions)
                .filter(|e| e.key == "kubernetes.io/hostname" && e.operator == "In")
                .flat_map(|e| e.values)
                .collect(),
            name: p.metadata.name,
        })
    })
}

/// CustomResourceDefinitionList (`apiextensions.k8s.io/v1`).
pub fn crds(text: &str) -> Result<Vec<Crd>> {
    whole(text, "CustomResourceDefinitionList", read_crds)
}

/// [`crds`] as the list arrives, each CRD charged to `to`.
pub fn read_crds<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Crd>> {
    list_from(reader, "CustomResourceDefinition", to, |c: RawCrd| {
        Ok(Crd {
            name: c.metadata.name,
            group: c.spec.group,
            versions: c
                .spec
                .versions
                .into_iter()
                .map(|v| CrdVersion {
                    name: v.name,
                    served: v.served,
                    storage: v.storage,
                })
                .collect(),
            stored_versions: c.status.stored_versions,
        })
    })
}

/// CephClusterList: every CephCluster (a lab one beside Rook's own is judged too).
pub fn ceph_clusters(text: &str) -> Result<Vec<Ceph>> {
    whole(text, "CephClusterList", read_ceph_clusters)
}

/// [`ceph_clusters`] as the list arrives, each CephCluster charged to `to`.
pub fn read_ceph_clusters<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Ceph>> {
    list_from(reader, "CephCluster", to, ceph)
}

fn ceph(c: RawCephCluster) -> Result<Ceph> {
    let last_checked = match c.status.ceph.last_checked.as_deref() {
        None | Some("") => None,
        Some(t) => Some(crate::clock::parse_rfc3339(t).ok_or_else(|| {
            Error::input(
                format!(
                    "CephCluster status.ceph.lastChecked `{}` is not an RFC 3339 time",
                    crate::term::escape(t)
                ),
                "Rook writes it as 2024-05-01T10:00:00Z",
            )
        })?),
    };
    Ok(Ceph {
        namespace: c.metadata.namespace,
        name: c.metadata.name,
        health: c.status.ceph.health,
        checks: c
            .status
            .ceph
            .details
            .into_iter()
            .map(|(name, d)| CephCheck {
                name,
                severity: d.severity,
                message: d.message,
            })
            .collect(),
        last_checked,
        mon_count: c.spec.mon.count.unwrap_or(3),
        version: c.status.version.version,
    })
}

/// How many objects a List holds (the objects of a removed API the server still serves).
pub fn count(text: &str, kind: &str) -> Result<usize> {
    Ok(list::<BTreeMap<String, serde::de::IgnoredAny>>(text, kind)?.len())
}

#[cfg(test)]
mod tests;

/// How many objects a list of a removed API holds, whatever its kind (the table names the
/// resource, not its kind): a JSON object ending in `List` with `items`.
pub fn count_items(text: &str) -> Result<usize> {
    count_from(text.as_bytes())
}

/// [`count_items`] as the list arrives: each item skipped unread, nothing kept.
pub fn read_count_items<R: Read>(reader: R) -> Result<usize> {
    count_from(reader)
}
