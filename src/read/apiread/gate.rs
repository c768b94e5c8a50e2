//! Every gate's API reads (SPEC §17, §9), in one typed table: [`GateRead`], a variant per
//! read, its GET (`target`), the read kind its facts answer (`kind`), and each gate's list of
//! them (`for_drain`, `for_upgrade_kubernetes`, `for_component`). The same proxy and GET
//! client as preview's reads (`super::each_target`, `fetch_with`), exactly these paths in the
//! proxy's accept-paths ([`accept_paths`]): never a Secret, pods only by a selector, named
//! workloads by name. Every answer is decoded as it arrives by the caller's decoder, or kept
//! as the failed read it was (its rule is then undecided).

use std::collections::BTreeMap;
use std::io::Read;

use super::fetch_with;
use crate::model::gate::version::Version;
use crate::model::gate::{self, Gate, Read as ReadKind};
use crate::model::observation::{FailureKind, ReadFailure};
use crate::read::kubectl::Kubectl;
use crate::read::proxy::ApiProxy;

#[cfg(test)]
use crate::read::exec::allowlist::GATE_MARKER;

/// A node's name, validated as a DNS-1123 subdomain (what the API server accepts as a
/// Node's name) before it reaches a path or a query.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
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

/// One API read of a gate. A new read is a variant here (its GET and its kind), its decoding
/// in `session::gate` and the fact it fills; the compiler lists every place that must say it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum GateRead {
    /// The nodes: reachability (exit 4), roles, kubelets, allocatable.
    Nodes,
    /// The kube-apiserver mirror pods: the cluster's Kubernetes version.
    ApiserverPods,
    Pdbs,
    /// NODE's pods, by field selector.
    NodePods(NodeName),
    Pvs,
    CephClusters,
    MonPods,
    EtcdPods,
    CephBlockPools,
    CephFilesystems,
    CephObjectStores,
    OsdPods,
    /// Every pod not terminated (what the scheduler counts on each node), summed per node.
    ClusterPods,
    DaemonSets,
    CnpgClusters,
    Crds,
    /// `/readyz?verbose`.
    Readyz,
    /// The list of an API version VERSION removes (`key`: `group/version/resource` as the
    /// table writes it; `target`: its list GET).
    RemovedApi {
        key: String,
        target: String,
    },
    /// The Cilium agent DaemonSet, by name.
    CiliumAgent,
    CiliumOperator,
    RookOperator,
    /// Rook's mon, mgr and OSD Deployments, by label selector (their `rook-version`).
    RookDaemons,
    CertManager,
    CnpgOperator,
}

/// The component gates (`gate upgrade cilium|rook`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentGate {
    Cilium,
    Rook,
}

impl GateRead {
    /// The GET this read sends (path and query).
    pub fn target(&self) -> String {
        let fixed = match self {
            GateRead::Nodes => "/api/v1/nodes",
            GateRead::ApiserverPods => {
                "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Dkube-apiserver"
            }
            GateRead::Pdbs => "/apis/policy/v1/poddisruptionbudgets",
            GateRead::NodePods(node) => {
                return format!(
                    "/api/v1/pods?fieldSelector=spec.nodeName%3D{}",
                    node.as_str()
                )
            }
            GateRead::Pvs => "/api/v1/persistentvolumes",
            GateRead::CephClusters => "/apis/ceph.rook.io/v1/cephclusters",
            GateRead::MonPods => {
                "/api/v1/namespaces/rook-ceph/pods?labelSelector=app%3Drook-ceph-mon"
            }
            GateRead::EtcdPods => {
                "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Detcd"
            }
            GateRead::CephBlockPools => "/apis/ceph.rook.io/v1/cephblockpools",
            GateRead::CephFilesystems => "/apis/ceph.rook.io/v1/cephfilesystems",
            GateRead::CephObjectStores => "/apis/ceph.rook.io/v1/cephobjectstores",
            GateRead::OsdPods => {
                "/api/v1/namespaces/rook-ceph/pods?labelSelector=app%3Drook-ceph-osd"
            }
            // As `kubectl describe node` reads them: by a field selector.
            GateRead::ClusterPods => {
                return format!(
                    "/api/v1/pods?{}",
                    crate::read::exec::allowlist::NOT_TERMINATED_PODS
                )
            }
            GateRead::DaemonSets => "/apis/apps/v1/daemonsets",
            GateRead::CnpgClusters => "/apis/postgresql.cnpg.io/v1/clusters",
            GateRead::Crds => "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            GateRead::Readyz => "/readyz?verbose",
            GateRead::RemovedApi { target, .. } => return target.clone(),
            GateRead::CiliumAgent => "/apis/apps/v1/namespaces/kube-system/daemonsets/cilium",
            GateRead::CiliumOperator => {
                "/apis/apps/v1/namespaces/kube-system/deployments/cilium-operator"
            }
            GateRead::RookOperator => {
                "/apis/apps/v1/namespaces/rook-ceph/deployments/rook-ceph-operator"
            }
            GateRead::RookDaemons => "/apis/apps/v1/namespaces/rook-ceph/deployments?labelSelector=app%20in%20%28rook-ceph-mon%2Crook-ceph-mgr%2Crook-ceph-osd%29",
            GateRead::CertManager => {
                "/apis/apps/v1/namespaces/cert-manager/deployments/cert-manager"
            }
            GateRead::CnpgOperator => {
                "/apis/apps/v1/namespaces/cnpg-system/deployments/cnpg-controller-manager"
            }
        };
        fixed.to_string()
    }

    /// The read kind (`model::gate::Read`) this read's facts answer in `gate`: the version
    /// reads are the platform components' versions for `gate upgrade kubernetes`, the
    /// component's images or labels for its own gate.
    pub fn kind(&self, gate: Gate) -> ReadKind {
        let versions = gate == Gate::UpgradeKubernetes;
        match self {
            GateRead::Nodes => ReadKind::Nodes,
            GateRead::ApiserverPods => ReadKind::ApiserverPods,
            GateRead::Pdbs => ReadKind::Pdbs,
            GateRead::NodePods(_) => ReadKind::NodePods,
            GateRead::Pvs => ReadKind::Pvs,
            GateRead::CephClusters => ReadKind::CephCluster,
            GateRead::MonPods => ReadKind::MonPods,
            GateRead::EtcdPods => ReadKind::EtcdPods,
            GateRead::CephBlockPools | GateRead::CephFilesystems | GateRead::CephObjectStores => {
                ReadKind::CephPools
            }
            GateRead::OsdPods => ReadKind::OsdPods,
            GateRead::ClusterPods => ReadKind::ClusterPods,
            GateRead::DaemonSets => ReadKind::Daemonsets,
            GateRead::CnpgClusters => ReadKind::CnpgClusters,
            GateRead::Crds => ReadKind::Crds,
            GateRead::Readyz => ReadKind::Readyz,
            GateRead::RemovedApi { .. } => ReadKind::RemovedApiObjects,
            GateRead::CertManager | GateRead::CnpgOperator => ReadKind::ComponentVersions,
            GateRead::CiliumAgent | GateRead::RookOperator if versions => {
                ReadKind::ComponentVersions
            }
            GateRead::CiliumAgent | GateRead::CiliumOperator => ReadKind::CiliumImages,
            GateRead::RookOperator | GateRead::RookDaemons => ReadKind::RookVersions,
        }
    }

    /// `gate drain NODE`'s reads.
    pub fn for_drain(node: &NodeName) -> Vec<GateRead> {
        vec![
            GateRead::Pdbs,
            GateRead::NodePods(node.clone()),
            GateRead::Nodes,
            GateRead::Pvs,
            GateRead::CephClusters,
            GateRead::MonPods,
            GateRead::EtcdPods,
            GateRead::CephBlockPools,
            GateRead::CephFilesystems,
            GateRead::CephObjectStores,
            GateRead::OsdPods,
            GateRead::ClusterPods,
            GateRead::DaemonSets,
            GateRead::CnpgClusters,
        ]
    }

    /// The platform components' version reads `gate upgrade kubernetes` makes for
    /// `k8s-platform-ranges` (cilium-envoy is never read: it carries Envoy's own version).
    pub const PLATFORM_VERSIONS: [GateRead; 4] = [
        GateRead::CiliumAgent,
        GateRead::RookOperator,
        GateRead::CertManager,
        GateRead::CnpgOperator,
    ];

    /// `gate upgrade kubernetes VERSION`'s reads: the fixed ones, the platform components'
    /// versions, one list per API VERSION removes whose names make a plain path.
    pub fn for_upgrade_kubernetes(version: Version) -> Vec<GateRead> {
        let mut reads = vec![
            GateRead::Nodes,
            GateRead::ApiserverPods,
            GateRead::Pdbs,
            GateRead::Crds,
            GateRead::Readyz,
        ];
        reads.extend(GateRead::PLATFORM_VERSIONS);
        reads.extend(
            removed_apis(version)
                .into_iter()
                .filter_map(|(key, target)| {
                    Some(GateRead::RemovedApi {
                        key,
                        target: target?,
                    })
                }),
        );
        reads
    }

    /// `gate upgrade cilium|rook`'s reads: the nodes, the kube-apiserver mirror pods, then
    /// the component's own.
    pub fn for_component(which: ComponentGate) -> Vec<GateRead> {
        let mut reads = vec![GateRead::Nodes, GateRead::ApiserverPods];
        reads.extend(match which {
            ComponentGate::Cilium => vec![GateRead::CiliumAgent, GateRead::CiliumOperator],
            ComponentGate::Rook => vec![
                GateRead::RookOperator,
                GateRead::RookDaemons,
                GateRead::CephClusters,
            ],
        });
        reads
    }
}

/// Each API VERSION removes (`group/version/resource`) and its list GET (`None`: its names
/// do not make a plain path).
pub fn removed_apis(version: Version) -> Vec<(String, Option<String>)> {
    let mut removed = Vec::new();
    for row in gate::builtin()
        .removed_apis
        .iter()
        .filter(|r| r.minor == version.minor())
    {
        for resource in &row.resources {
            let key = format!("{}/{}/{resource}", row.group, row.version);
            removed.push((key, removed_api_target(&row.group, &row.version, resource)));
        }
    }
    removed
}

/// The list GET of a removed API (`group`, `version`, `resource`, as the table writes
/// them; the core group is `""`), or `None` when a name is not a plain path segment.
pub fn removed_api_target(group: &str, version: &str, resource: &str) -> Option<String> {
    let plain = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b))
    };
    if !plain(version) || !plain(resource) || !(group.is_empty() || plain(group)) {
        return None;
    }
    Some(if group.is_empty() {
        format!("/api/{version}/{resource}")
    } else {
        format!("/apis/{group}/{version}/{resource}")
    })
}

/// A gate proxy's `--accept-paths` for `reads`: each read's path (the query is not part of
/// what the proxy matches), anchored, dots escaped, sorted.
pub fn accept_paths(reads: &[GateRead]) -> Vec<String> {
    let mut out: Vec<String> = reads
        .iter()
        .map(|r| {
            let target = r.target();
            let path = target.split('?').next().unwrap_or_default().to_string();
            format!("^{}$", path.replace('.', "\\."))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every read of `reads` through `proxy`, all sent at once (at most
/// [`crate::pool::API_READS_IN_FLIGHT`] in flight, like every API read): each body decoded
/// by `decode(read, target, body)` while it arrives, or the failed read (a 403 stays
/// Forbidden, a 404 NotFound, a lost proxy a transport failure, what `decode` refuses
/// BadOutput).
pub fn read_gate<T: Send>(
    kubectl: &Kubectl,
    proxy: &ApiProxy,
    reads: &[GateRead],
    in_flight: usize,
    decode: impl Fn(&GateRead, &str, &mut dyn Read) -> crate::error::Result<T> + Sync,
) -> BTreeMap<GateRead, Result<T, ReadFailure>> {
    kubectl.runner().trace(&format!(
        "round 1: the gate's {} GETs at once (at most {} in flight)",
        reads.len(),
        crate::pool::API_READS_IN_FLIGHT
    ));
    let sent = (reads, GateRead::target);
    let answers = super::each_target(proxy, sent, in_flight, |r| {
        let target = r.target();
        fetch_with(kubectl, proxy, &target, |body| decode(r, &target, body))
    });
    reads
        .iter()
        .zip(answers)
        .map(|(r, answer)| {
            let answer = answer.unwrap_or_else(|| {
                Err(ReadFailure::new(
                    FailureKind::ApiError,
                    "a read thread panicked",
                ))
            });
            (r.clone(), answer)
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
        let targets: Vec<String> = GateRead::for_drain(&node)
            .iter()
            .map(GateRead::target)
            .collect();
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
        let accept = accept_paths(&GateRead::for_drain(&node));
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

    /// The upgrade gate's accept-paths with one removed API's list (`target`) among its reads.
    fn upgrade_accept_paths(removed: &[String]) -> Vec<String> {
        let mut reads = GateRead::for_upgrade_kubernetes(
            crate::model::gate::version::Version::parse("1.1.0").expect("a version"),
        );
        reads.retain(|r| !matches!(r, GateRead::RemovedApi { .. }));
        reads.extend(removed.iter().map(|t| GateRead::RemovedApi {
            key: t.clone(),
            target: t.clone(),
        }));
        accept_paths(&reads)
    }

    #[test]
    fn removed_api_targets_are_plain_list_paths() {
        assert_eq!(
            removed_api_target("flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas").as_deref(),
            Some("/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas")
        );
        assert_eq!(
            removed_api_target("", "v1", "componentstatuses").as_deref(),
            Some("/api/v1/componentstatuses")
        );
        for (g, v, r) in [
            ("a/b", "v1", "x"),
            ("g", "v1", "x?y"),
            ("g", "", "x"),
            ("g", "v1", "X"),
        ] {
            assert_eq!(removed_api_target(g, v, r), None, "{g} {v} {r}");
        }
    }

    /// The upgrade gate's accept-paths are exactly its reads; they pass the allowlist in
    /// the gate's form (the PDB list beside them), and `/readyz` never in preview's form.
    #[test]
    fn upgrade_accept_paths_pass_the_allowlist_only_in_the_gate_form() {
        let removed = vec!["/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas".to_string()];
        let accept = upgrade_accept_paths(&removed);
        assert_eq!(
            accept,
            [
                "^/api/v1/namespaces/kube-system/pods$",
                "^/api/v1/nodes$",
                "^/apis/apiextensions\\.k8s\\.io/v1/customresourcedefinitions$",
                "^/apis/apps/v1/namespaces/cert-manager/deployments/cert-manager$",
                "^/apis/apps/v1/namespaces/cnpg-system/deployments/cnpg-controller-manager$",
                "^/apis/apps/v1/namespaces/kube-system/daemonsets/cilium$",
                "^/apis/apps/v1/namespaces/rook-ceph/deployments/rook-ceph-operator$",
                "^/apis/flowcontrol\\.apiserver\\.k8s\\.io/v1beta3/flowschemas$",
                "^/apis/policy/v1/poddisruptionbudgets$",
                "^/readyz$",
            ]
        );
        assert_eq!(accept_paths_ok(&accept.join(",")), Ok(()));
        let preview: Vec<&str> = accept
            .iter()
            .map(String::as_str)
            .filter(|p| *p != crate::read::exec::allowlist::GATE_MARKER)
            .collect();
        assert!(accept_paths_ok(&preview.join(",")).is_err());
        assert!(accept_paths_ok("^/readyz$").is_err());
        assert!(accept_paths_ok("^/api/v1/nodes$,^/readyz$").is_err());
    }
    #[test]
    fn component_accept_paths_are_exactly_the_named_reads() {
        let cilium = accept_paths(&GateRead::for_component(ComponentGate::Cilium));
        assert_eq!(
            cilium,
            [
                "^/api/v1/namespaces/kube-system/pods$",
                "^/api/v1/nodes$",
                "^/apis/apps/v1/namespaces/kube-system/daemonsets/cilium$",
                "^/apis/apps/v1/namespaces/kube-system/deployments/cilium-operator$",
            ]
        );
        assert_eq!(accept_paths_ok(&cilium.join(",")), Ok(()));
        let rook = accept_paths(&GateRead::for_component(ComponentGate::Rook));
        assert_eq!(
            rook,
            [
                "^/api/v1/namespaces/kube-system/pods$",
                "^/api/v1/nodes$",
                "^/apis/apps/v1/namespaces/rook-ceph/deployments$",
                "^/apis/apps/v1/namespaces/rook-ceph/deployments/rook-ceph-operator$",
                "^/apis/ceph\\.rook\\.io/v1/cephclusters$",
            ]
        );
        assert_eq!(accept_paths_ok(&rook.join(",")), Ok(()));
        assert!(!rook.iter().any(|p| p == "^/apis/apps/v1/deployments$"));
    }
}
