//! The gate reads' decoders: the API server's JSON (List documents as `kubectl get -o json`
//! and the proxy serve them) into `facts`, keeping only the fields the rules use. Lenient
//! inside an object (every field defaulted, as upstream omits empty ones), strict on the
//! shape: a list of another kind, or no `items`, is a failed read, never an empty one.

use std::collections::BTreeMap;
use std::io::Read;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::facts::*;
use crate::error::{Error, Result};
use crate::model::observation::decode_list_try;

mod pools;
mod quantity;
mod raw;
mod readyz;
pub use readyz::readyz;
mod stream;
mod workloads;
use raw::*;
use stream::count_from;
pub use stream::{text_from, Charged, MAX_TEXT_BYTES};

pub use workloads::{
    component_version, rook_operator, rook_versions, workload_images, workload_object,
};

pub use pools::{block_pools, filesystem_pools, object_store_pools};
pub use quantity::{parse_bytes, parse_cpu_milli};

/// A List of `kind` objects of API `group` as it arrives, through the one List decoder of
/// every read (`model::observation`'s): each item decoded as `T`, kept as `convert(T)`
/// (which may refuse it: the read fails with that error), charged to `to`.
fn list_from<R, T, U>(
    reader: R,
    group: &str,
    kind: &str,
    to: Charged<'_>,
    mut convert: impl FnMut(T) -> Result<U>,
) -> Result<Vec<U>>
where
    R: Read,
    T: DeserializeOwned,
    U: Serialize,
{
    decode_list_try(reader, to.what, group, kind, to.budget, |t| {
        convert(t).map(Some)
    })
}

/// A List held whole (a small text answer, charged as it arrived): each item's facts,
/// through the same decoder, nothing charged again.
pub(super) fn list<T, U>(
    text: &str,
    group: &str,
    kind: &str,
    each: impl FnMut(T) -> Vec<U>,
) -> Result<Vec<U>>
where
    T: DeserializeOwned,
    U: Serialize,
{
    let budget = crate::pool::Budget::new(usize::MAX);
    let what = format!("the {kind}List");
    let mut each = each;
    let lists = list_from(
        text.as_bytes(),
        group,
        kind,
        Charged {
            what: &what,
            budget: &budget,
        },
        |t| Ok(each(t)),
    )?;
    Ok(lists.into_iter().flatten().collect())
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

/// [`pdbs`] as the list arrives, each PodDisruptionBudget charged to `to`.
pub fn read_pdbs<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Pdb>> {
    list_from(reader, "policy", "PodDisruptionBudget", to, |p: RawPdb| {
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

/// [`pods`] as the list arrives, each pod charged to `to`.
pub fn read_pods<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Pod>> {
    list_from(reader, "", "Pod", to, |p: RawPod| {
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

/// [`requests_per_node`] as the list arrives.
pub fn read_requests_per_node<R: Read>(
    reader: R,
    to: Charged<'_>,
) -> Result<BTreeMap<String, Resources>> {
    let mut sums: BTreeMap<String, Resources> = BTreeMap::new();
    list_from(reader, "", "Pod", to, |p: RawPod| {
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

/// [`daemonsets`] as the list arrives.
pub fn read_daemonsets<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<ObjectRef>> {
    list_from(reader, "apps", "DaemonSet", to, |d: RawNamed| {
        Ok((d.metadata.namespace, d.metadata.name))
    })
}

/// [`cnpg_clusters`] as the list arrives.
pub fn read_cnpg_clusters<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<CnpgCluster>> {
    list_from(
        reader,
        "postgresql.cnpg.io",
        "Cluster",
        to,
        |c: RawCnpgCluster| {
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
        },
    )
}

/// [`nodes`] as the list arrives, each node charged to `to` (a 10 000-node list is never
/// held: only its `Node` facts).
pub fn read_nodes<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Node>> {
    list_from(reader, "", "Node", to, |n: RawNode| {
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

/// [`pvs`] as the list arrives, each PersistentVolume charged to `to`.
pub fn read_pvs<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Pv>> {
    list_from(reader, "", "PersistentVolume", to, |p: RawPv| {
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

/// [`crds`] as the list arrives, each CRD charged to `to`.
pub fn read_crds<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Crd>> {
    list_from(
        reader,
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        to,
        |c: RawCrd| {
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
        },
    )
}

/// [`ceph_clusters`] as the list arrives, each CephCluster charged to `to`.
pub fn read_ceph_clusters<R: Read>(reader: R, to: Charged<'_>) -> Result<Vec<Ceph>> {
    list_from(reader, "ceph.rook.io", "CephCluster", to, ceph)
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

#[cfg(test)]
mod tests;
#[cfg(test)]
mod whole_tests;
#[cfg(test)]
pub use whole_tests::*;

/// How many objects a list of a removed API holds, whatever its kind (the table names the
/// resource, not its kind): a JSON object ending in `List` with `items`, each item skipped
/// unread as it arrives, nothing kept.
pub fn read_count_items<R: Read>(reader: R) -> Result<usize> {
    count_from(reader)
}
