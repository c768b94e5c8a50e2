//! The platform components' version reads (SPEC §17; issue 33): named objects only — the
//! Cilium agent DaemonSet and operator Deployment, the Rook operator, cert-manager's and
//! CloudNativePG's controllers, each in the namespace the built-in catalog's layers read —
//! and Rook's mon, mgr and OSD Deployments by label selector (their `rook-version`
//! labels). `gate upgrade cilium|rook` reads its component's, `gate upgrade kubernetes`
//! every component's; cilium-envoy is never read (it carries Envoy's own version).

/// The nodes (reachability, exit 4; the kubelets' versions), read by every upgrade gate.
pub const NODES: &str = "/api/v1/nodes";
/// The kube-apiserver mirror pods: the cluster's Kubernetes version, read by every upgrade
/// gate.
pub const APISERVER_PODS: &str =
    "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Dkube-apiserver";

pub const CILIUM_AGENT: &str = "/apis/apps/v1/namespaces/kube-system/daemonsets/cilium";
pub const CILIUM_OPERATOR: &str =
    "/apis/apps/v1/namespaces/kube-system/deployments/cilium-operator";
pub const ROOK_OPERATOR: &str = "/apis/apps/v1/namespaces/rook-ceph/deployments/rook-ceph-operator";
/// Rook's daemons: `app in (rook-ceph-mon,rook-ceph-mgr,rook-ceph-osd)`.
pub const ROOK_DAEMONS: &str = "/apis/apps/v1/namespaces/rook-ceph/deployments?labelSelector=app%20in%20%28rook-ceph-mon%2Crook-ceph-mgr%2Crook-ceph-osd%29";
pub const CEPH_CLUSTERS: &str = "/apis/ceph.rook.io/v1/cephclusters";
pub const CERT_MANAGER: &str = "/apis/apps/v1/namespaces/cert-manager/deployments/cert-manager";
pub const CNPG: &str = "/apis/apps/v1/namespaces/cnpg-system/deployments/cnpg-controller-manager";

/// Which component gate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentGate {
    Cilium,
    Rook,
}

/// Every GET of `gate upgrade cilium|rook`: the nodes (reachability, exit 4), the
/// kube-apiserver mirror pods (the cluster's Kubernetes version), then the component's own.
pub fn component_targets(gate: ComponentGate) -> Vec<String> {
    let own: &[&str] = match gate {
        ComponentGate::Cilium => &[CILIUM_AGENT, CILIUM_OPERATOR],
        ComponentGate::Rook => &[ROOK_OPERATOR, ROOK_DAEMONS, CEPH_CLUSTERS],
    };
    [NODES, APISERVER_PODS]
        .iter()
        .chain(own)
        .map(|s| s.to_string())
        .collect()
}

/// The version reads `gate upgrade kubernetes` adds for `k8s-platform-ranges`.
pub const PLATFORM_VERSIONS: [&str; 4] = [CILIUM_AGENT, ROOK_OPERATOR, CERT_MANAGER, CNPG];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::apiread::gate_upgrade::upgrade_accept_paths;
    use crate::read::exec::allowlist::accept_paths_ok;

    /// Each component gate's accept-paths are exactly its reads: named objects, one
    /// namespaced list by selector, the CephCluster list; the allowlist admits them, and
    /// never a cluster-wide workload list.
    #[test]
    fn component_accept_paths_are_exactly_the_named_reads() {
        let cilium = upgrade_accept_paths(&component_targets(ComponentGate::Cilium));
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
        let rook = upgrade_accept_paths(&component_targets(ComponentGate::Rook));
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
