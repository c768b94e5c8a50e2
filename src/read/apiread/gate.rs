//! The drain gate's reads (SPEC §17, §9): the same proxy and GET client as preview, exactly
//! the paths the drain rules name — PodDisruptionBudgets, NODE's pods by field selector,
//! the etcd, Rook mon and OSD pods by label, PersistentVolumes, the CephCluster and Rook's
//! pool objects (CephBlockPools, CephFilesystems, CephObjectStores), the nodes — and
//! the proxy's accept-paths for exactly those. Never a Secret, pods only by a selector.
//! Every answer is decoded as it arrives by the caller's decoder (`model::gate::decode`),
//! or kept as the failed read it was (the rule is then undecided).

use std::collections::BTreeMap;
use std::io::Read;

use super::fetch_with;
use crate::model::observation::ReadFailure;
use crate::read::kubectl::Kubectl;
use crate::read::proxy::ApiProxy;

#[cfg(test)]
use crate::read::exec::allowlist::GATE_MARKER;

/// A node's name, validated as a DNS-1123 subdomain (what the API server accepts as a
/// Node's name) before it reaches a path or a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeName(String);

impl NodeName {
    /// `Err` names what is wrong (the caller adds the hint).
    pub fn parse(s: &str) -> Result<NodeName, String> {
        let label_ok = |l: &str| {
            !l.is_empty()
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        };
        if s.is_empty() || s.len() > 253 || !s.split('.').all(label_ok) {
            return Err(format!(
                "`{}` is not a node name (a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253 characters)",
                crate::term::terminal_safe(&s.chars().take(80).collect::<String>())
            ));
        }
        Ok(NodeName(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One read of the drain gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DrainRead {
    Pdbs,
    NodePods,
    Nodes,
    Pvs,
    CephClusters,
    MonPods,
    EtcdPods,
    CephBlockPools,
    CephFilesystems,
    CephObjectStores,
    OsdPods,
    ClusterPods,
    DaemonSets,
    CnpgClusters,
}

impl DrainRead {
    pub const ALL: [DrainRead; 14] = [
        DrainRead::Pdbs,
        DrainRead::NodePods,
        DrainRead::Nodes,
        DrainRead::Pvs,
        DrainRead::CephClusters,
        DrainRead::MonPods,
        DrainRead::EtcdPods,
        DrainRead::CephBlockPools,
        DrainRead::CephFilesystems,
        DrainRead::CephObjectStores,
        DrainRead::OsdPods,
        DrainRead::ClusterPods,
        DrainRead::DaemonSets,
        DrainRead::CnpgClusters,
    ];

    /// The GET this read sends (path and query).
    pub fn target(self, node: &NodeName) -> String {
        match self {
            DrainRead::Pdbs => "/apis/policy/v1/poddisruptionbudgets".to_string(),
            DrainRead::NodePods => format!(
                "/api/v1/pods?fieldSelector=spec.nodeName%3D{}",
                node.as_str()
            ),
            DrainRead::Nodes => "/api/v1/nodes".to_string(),
            DrainRead::Pvs => "/api/v1/persistentvolumes".to_string(),
            DrainRead::CephClusters => "/apis/ceph.rook.io/v1/cephclusters".to_string(),
            DrainRead::MonPods => {
                "/api/v1/namespaces/rook-ceph/pods?labelSelector=app%3Drook-ceph-mon".to_string()
            }
            DrainRead::EtcdPods => {
                "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Detcd".to_string()
            }
            DrainRead::CephBlockPools => "/apis/ceph.rook.io/v1/cephblockpools".to_string(),
            DrainRead::CephFilesystems => "/apis/ceph.rook.io/v1/cephfilesystems".to_string(),
            DrainRead::CephObjectStores => "/apis/ceph.rook.io/v1/cephobjectstores".to_string(),
            DrainRead::OsdPods => {
                "/api/v1/namespaces/rook-ceph/pods?labelSelector=app%3Drook-ceph-osd".to_string()
            }
            // What the scheduler counts on each node: the pods not terminated, by a field
            // selector (as `kubectl describe node` reads them), summed as they arrive.
            DrainRead::ClusterPods => format!(
                "/api/v1/pods?{}",
                crate::read::exec::allowlist::NOT_TERMINATED_PODS
            ),
            DrainRead::DaemonSets => "/apis/apps/v1/daemonsets".to_string(),
            DrainRead::CnpgClusters => "/apis/postgresql.cnpg.io/v1/clusters".to_string(),
        }
    }
}

/// The drain gate's `--accept-paths`: each read's path (the query is not part of what the
/// proxy matches), anchored, dots escaped, sorted.
pub fn drain_accept_paths(node: &NodeName) -> Vec<String> {
    let mut out: Vec<String> = DrainRead::ALL
        .iter()
        .map(|r| {
            let target = r.target(node);
            let path = target.split('?').next().unwrap_or_default().to_string();
            format!("^{}$", path.replace('.', "\\."))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every drain read through `proxy`, in parallel on the run's bounded pool (at most
/// [`crate::pool::API_READS_IN_FLIGHT`], like every API read): each body decoded by
/// `decode(read, target, body)` while it arrives, or the failed read (a 403 stays Forbidden,
/// a 404 NotFound, a lost proxy a transport failure, what `decode` refuses BadOutput).
pub fn read_drain<T: Send>(
    kubectl: &Kubectl,
    proxy: &ApiProxy,
    node: &NodeName,
    decode: impl Fn(DrainRead, &str, &mut dyn Read) -> crate::error::Result<T> + Sync,
) -> BTreeMap<DrainRead, Result<T, ReadFailure>> {
    kubectl.runner().trace(&format!(
        "round 1: the gate's {} GETs at once (at most {} in flight)",
        DrainRead::ALL.len(),
        crate::pool::API_READS_IN_FLIGHT
    ));
    let reads = (&DrainRead::ALL[..], |r: &DrainRead| r.target(node));
    let answers = super::each_target(proxy, reads, crate::pool::API_READS_IN_FLIGHT, |r| {
        let target = r.target(node);
        fetch_with(kubectl, proxy, &target, |body| decode(*r, &target, body))
    });
    DrainRead::ALL
        .iter()
        .zip(answers)
        .map(|(r, text)| {
            let text = text.unwrap_or_else(|| {
                Err(ReadFailure::new(
                    crate::model::observation::FailureKind::ApiError,
                    "a read thread panicked",
                ))
            });
            (*r, text)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::exec::allowlist::accept_paths_ok;

    #[test]
    fn node_names_are_dns_subdomains() {
        for ok in ["dirqual2", "node-1.example.com", "a"] {
            assert_eq!(
                NodeName::parse(ok).map(|n| n.as_str().to_string()),
                Ok(ok.into())
            );
        }
        for bad in [
            "",
            "Dirqual2",
            "-a",
            "a-",
            "a..b",
            ".a",
            "a/b",
            "a&b=c",
            "a%3Db",
            "a b",
            "a\u{1b}[31m",
        ] {
            assert!(NodeName::parse(bad).is_err(), "{bad:?}");
        }
        assert!(NodeName::parse(&"a".repeat(254)).is_err());
        let err = NodeName::parse("a\u{1b}[31m").expect_err("refused");
        assert!(!err.contains('\u{1b}'), "{err}");
    }

    #[test]
    fn drain_targets_are_the_rules_reads_only() {
        let node = NodeName::parse("dirqual2").expect("a node name");
        let targets: Vec<String> = DrainRead::ALL.iter().map(|r| r.target(&node)).collect();
        assert_eq!(
            targets,
            [
                "/apis/policy/v1/poddisruptionbudgets",
                "/api/v1/pods?fieldSelector=spec.nodeName%3Ddirqual2",
                "/api/v1/nodes",
                "/api/v1/persistentvolumes",
                "/apis/ceph.rook.io/v1/cephclusters",
                "/api/v1/namespaces/rook-ceph/pods?labelSelector=app%3Drook-ceph-mon",
                "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Detcd",
                "/apis/ceph.rook.io/v1/cephblockpools",
                "/apis/ceph.rook.io/v1/cephfilesystems",
                "/apis/ceph.rook.io/v1/cephobjectstores",
                "/api/v1/namespaces/rook-ceph/pods?labelSelector=app%3Drook-ceph-osd",
                "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed",
                "/apis/apps/v1/daemonsets",
                "/apis/postgresql.cnpg.io/v1/clusters",
            ]
        );
        assert!(targets.iter().all(|t| !t.contains("secret")));
    }

    /// The gate's accept-paths pass the proxy allowlist as they are, and the cluster-wide
    /// pod list is admitted only beside the gate's marker (never in preview's form).
    #[test]
    fn drain_accept_paths_pass_the_allowlist_only_in_the_gate_form() {
        let node = NodeName::parse("dirqual2").expect("a node name");
        let accept = drain_accept_paths(&node);
        assert_eq!(
            accept,
            [
                "^/api/v1/namespaces/kube-system/pods$",
                "^/api/v1/namespaces/rook-ceph/pods$",
                "^/api/v1/nodes$",
                "^/api/v1/persistentvolumes$",
                "^/api/v1/pods$",
                "^/apis/apps/v1/daemonsets$",
                "^/apis/ceph\\.rook\\.io/v1/cephblockpools$",
                "^/apis/ceph\\.rook\\.io/v1/cephclusters$",
                "^/apis/ceph\\.rook\\.io/v1/cephfilesystems$",
                "^/apis/ceph\\.rook\\.io/v1/cephobjectstores$",
                "^/apis/policy/v1/poddisruptionbudgets$",
                "^/apis/postgresql\\.cnpg\\.io/v1/clusters$",
            ]
        );
        assert!(accept.iter().any(|p| p == GATE_MARKER));
        assert_eq!(accept_paths_ok(&accept.join(",")), Ok(()));
        let without_marker: Vec<&String> = accept.iter().filter(|p| *p != GATE_MARKER).collect();
        let joined = without_marker
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(",");
        assert!(accept_paths_ok(&joined).is_err(), "{joined}");
        assert!(accept_paths_ok("^/api/v1/pods$").is_err());
    }
}
