//! A gate's `--explain` (SPEC §17): what each read sent (`Sent`: the GET through the proxy,
//! or the ssh nestor ran on a node) and, per read, the facts the rules decided from, in one
//! line (`fact`): counts and the names that matter, or the failed read as it failed. Pure:
//! the session records what it sent, the command layer words it as a command line.

use std::collections::BTreeMap;

use super::facts::{Facts, PerHost, Pod};
use super::{Evaluation, Read};
use crate::model::observation::{FailureKind, Read as Answer, ReadFailure};

/// One request a gate made for one of its reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// A GET through the gate's proxy: the path and query as sent.
    Get(String),
    /// One ssh: the node it asked, the connection argv up to the destination, the remote
    /// words as nestor quoted them.
    Ssh {
        node: String,
        options: Vec<String>,
        remote: Vec<String>,
    },
}

/// A request, and the read it served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Made {
    pub read: Read,
    pub sent: Sent,
}

/// A gate's answer with what it was decided from: the evaluation, the facts, each request.
#[derive(Debug, Clone)]
pub struct Gated {
    pub evaluation: Evaluation,
    pub facts: Facts,
    pub made: Vec<Made>,
}

/// A read that gave no facts: skipped (why), or how it failed.
fn failed(f: &ReadFailure) -> String {
    if f.kind == FailureKind::Skipped {
        format!("not read: {}", f.message)
    } else {
        format!("failed ({}): {}", f.kind, f.message)
    }
}

/// At most this many names in one fact line.
const NAMES: usize = 6;

fn names(all: Vec<String>) -> String {
    let more = all.len().saturating_sub(NAMES);
    let mut shown: Vec<String> = all.into_iter().take(NAMES).collect();
    if more > 0 {
        shown.push(format!("and {more} more"));
    }
    shown.join(", ")
}

fn list<T>(r: &Answer<Vec<T>>, what: &str, name: impl Fn(&T) -> String) -> String {
    match r {
        Ok(v) if v.is_empty() => format!("0 {what}"),
        Ok(v) => format!(
            "{} {what}: {}",
            v.len(),
            names(v.iter().map(name).collect())
        ),
        Err(f) => failed(f),
    }
}

fn per_host<T>(r: &Answer<PerHost<T>>, each: impl Fn(&T) -> String) -> String {
    match r {
        Ok(hosts) if hosts.is_empty() => "no node asked".to_string(),
        Ok(hosts) => hosts
            .iter()
            .map(|(node, read)| match read {
                Ok(v) => format!("{node}: {}", each(v)),
                Err(f) => format!("{node}: {}", failed(f)),
            })
            .collect::<Vec<_>>()
            .join("; "),
        Err(f) => failed(f),
    }
}

fn keyed<K: Ord, T>(
    m: &BTreeMap<K, Answer<Option<T>>>,
    key: impl Fn(&K) -> String,
    each: impl Fn(&T) -> String,
    none: &str,
) -> String {
    if m.is_empty() {
        return "nothing to read".to_string();
    }
    m.iter()
        .map(|(k, read)| match read {
            Ok(Some(v)) => format!("{} {}", key(k), each(v)),
            Ok(None) => format!("{} {none}", key(k)),
            Err(f) => format!("{} {}", key(k), failed(f)),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A pod with its node, readiness and first image (mirror pods, mons).
fn placed(p: &Pod) -> String {
    let image = p
        .images
        .first()
        .map(|i| format!(" {i}"))
        .unwrap_or_default();
    format!(
        "{} on {}{}{image}",
        p.reference(),
        p.node,
        if p.ready { " Ready" } else { " not Ready" }
    )
}

/// What `read` showed, in one line.
pub fn fact(facts: &Facts, read: Read) -> String {
    match read {
        Read::Pdbs => list(&facts.pdbs, "PodDisruptionBudgets", |p| {
            format!(
                "{}/{} allows {}",
                p.namespace, p.name, p.disruptions_allowed
            )
        }),
        Read::NodePods => list(&facts.node_pods, "pods", |p| p.reference()),
        Read::ClusterPods => match &facts.cluster_pods {
            Ok(sums) => format!(
                "requests of the pods not terminated on {} nodes: {}",
                sums.len(),
                sums.iter()
                    .map(|(n, r)| format!("{n} {r}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(f) => failed(f),
        },
        Read::Nodes => list(&facts.nodes, "nodes", |n| {
            format!(
                "{} {} kubelet {}",
                n.name,
                if n.ready { "Ready" } else { "NotReady" },
                n.kubelet_version
            )
        }),
        Read::Pvs => list(&facts.pvs, "PersistentVolumes", |p| p.name.clone()),
        Read::Crds => match &facts.crds {
            Ok(v) => format!("{} CustomResourceDefinitions", v.len()),
            Err(f) => failed(f),
        },
        Read::CephCluster => match &facts.ceph {
            Ok(all) if all.is_empty() => {
                "no CephCluster (none listed, or ceph.rook.io not served)".to_string()
            }
            Ok(all) => all
                .iter()
                .map(|c| {
                    format!(
                        "CephCluster {}/{}: {}, {} mons",
                        c.namespace, c.name, c.health, c.mon_count
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
            Err(f) => failed(f),
        },
        Read::MonPods => list(&facts.mon_pods, "pods", placed),
        Read::EtcdPods => list(&facts.etcd_pods, "pods", placed),
        Read::CephPools => list(&facts.ceph_pools, "pools", |p| {
            format!("{} {} across {}s", p.owner, p.layout, p.failure_domain)
        }),
        Read::OsdPods => list(&facts.osd_pods, "pods", placed),
        Read::Daemonsets => list(&facts.daemonsets, "DaemonSets", |(ns, n)| {
            format!("{ns}/{n}")
        }),
        Read::CnpgClusters => list(&facts.cnpg_clusters, "Clusters", |c| {
            format!(
                "{}/{} {} instances, primary {}, Ready: {}",
                c.namespace,
                c.name,
                c.instances,
                c.current_primary,
                c.healthy.join(" ")
            )
        }),
        Read::ApiserverPods => list(&facts.apiserver_pods, "pods", placed),
        Read::Readyz => match &facts.readyz {
            Ok(v) => {
                let failing: Vec<String> =
                    v.iter().filter(|c| !c.ok).map(|c| c.name.clone()).collect();
                match failing.is_empty() {
                    true => format!("{} checks, all ok", v.len()),
                    false => format!("{} checks, failing: {}", v.len(), names(failing)),
                }
            }
            Err(f) => failed(f),
        },
        Read::RemovedApiObjects => keyed(
            &facts.removed_api_objects,
            String::clone,
            |n| format!("{n} objects"),
            "not served",
        ),
        Read::ComponentVersions => keyed(
            &facts.components,
            |c| c.as_str().to_string(),
            |v| v.to_string(),
            "not installed",
        ),
        Read::CiliumImages => list(&facts.cilium_images, "workloads", |w| {
            format!(
                "{} {} ({}/{} ready)",
                w.workload, w.image, w.pods.0, w.pods.1
            )
        }),
        Read::RookVersions => list(&facts.rook_versions, "Deployments", |r| {
            format!(
                "{} {}",
                r.deployment,
                r.rook_version.as_deref().unwrap_or("without a version")
            )
        }),
        Read::HostTimeSync => per_host(&facts.host_time_sync, |t| {
            format!(
                "NTPSynchronized={}",
                if t.synchronized { "yes" } else { "no" }
            )
        }),
        Read::HostCgroup => per_host(&facts.host_cgroup, |v2| {
            if *v2 { "cgroup v2" } else { "cgroup v1" }.to_string()
        }),
        Read::HostCerts => per_host(&facts.host_certs, |files| {
            let read = files
                .iter()
                .filter(|f| matches!(f.read, Ok(Some(_))))
                .count();
            format!("{read} of {} certificate files read", files.len())
        }),
        Read::LayersAfter => match &facts.layers_after {
            Ok(l) if l.after.is_empty() => format!("no layer after {}", l.layer),
            Ok(l) => format!(
                "{} layers after {}: {}",
                l.after.len(),
                l.layer,
                names(
                    l.after
                        .iter()
                        .map(|a| format!("{} {}", a.id, a.state.as_str()))
                        .collect()
                )
            ),
            Err(f) => failed(f),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gate::facts::Node;

    #[test]
    fn a_fact_names_what_was_read_or_how_the_read_failed() {
        let mut facts = Facts::unread("not read by this gate");
        assert_eq!(fact(&facts, Read::Nodes), "not read: not read by this gate");
        let node = |name: &str, ready: bool| Node {
            name: name.into(),
            ready,
            roles: vec![],
            hostname: None,
            unschedulable: false,
            hard_taints: vec![],
            kubelet_version: "v1.31.4".into(),
            container_runtime_version: "containerd://2.0.5".into(),
            allocatable: Default::default(),
        };
        facts.nodes = Ok((1..=8).map(|i| node(&format!("n{i}"), i != 2)).collect());
        assert_eq!(
            fact(&facts, Read::Nodes),
            "8 nodes: n1 Ready kubelet v1.31.4, n2 NotReady kubelet v1.31.4, n3 Ready kubelet v1.31.4, n4 Ready kubelet v1.31.4, n5 Ready kubelet v1.31.4, n6 Ready kubelet v1.31.4, and 2 more"
        );
        facts.pdbs = Err(ReadFailure::new(
            FailureKind::Forbidden,
            "pdbs is forbidden",
        ));
        assert_eq!(
            fact(&facts, Read::Pdbs),
            "failed (Forbidden): pdbs is forbidden"
        );
        facts.ceph = Ok(vec![]);
        assert_eq!(
            fact(&facts, Read::CephCluster),
            "no CephCluster (none listed, or ceph.rook.io not served)"
        );
        assert_eq!(fact(&facts, Read::RemovedApiObjects), "nothing to read");
    }
}
