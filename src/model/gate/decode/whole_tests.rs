//! The decoders over an answer held whole, for the tests and their fixtures: each the
//! streamed decoder over the text, with a budget that refuses nothing.

use std::collections::BTreeMap;

use super::*;

/// A decoder of an answer held whole (tests, fixtures): nothing it keeps is refused.
pub(super) fn whole<'t, T>(
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

/// PodList (pods of a node, mirror pods, mon pods).
pub fn pods(text: &str) -> Result<Vec<Pod>> {
    whole(text, "PodList", read_pods)
}

/// The requests of every pod that is not terminated, summed per node (`spec.nodeName`):
/// what the scheduler counts against a node's allocatable. Only the sums are kept; each
/// node's entry is charged to the budget when it first appears.
pub fn requests_per_node(text: &str) -> Result<BTreeMap<String, Resources>> {
    whole(text, "PodList", read_requests_per_node)
}

/// DaemonSetList: each DaemonSet's namespace and name.
pub fn daemonsets(text: &str) -> Result<Vec<ObjectRef>> {
    whole(text, "DaemonSetList", read_daemonsets)
}

/// CloudNativePG's ClusterList.
pub fn cnpg_clusters(text: &str) -> Result<Vec<CnpgCluster>> {
    whole(text, "ClusterList", read_cnpg_clusters)
}

/// NodeList.
pub fn nodes(text: &str) -> Result<Vec<Node>> {
    whole(text, "NodeList", read_nodes)
}

/// PersistentVolumeList.
pub fn pvs(text: &str) -> Result<Vec<Pv>> {
    whole(text, "PersistentVolumeList", read_pvs)
}

/// CustomResourceDefinitionList (`apiextensions.k8s.io/v1`).
pub fn crds(text: &str) -> Result<Vec<Crd>> {
    whole(text, "CustomResourceDefinitionList", read_crds)
}

/// CephClusterList: every CephCluster (a lab one beside Rook's own is judged too).
pub fn ceph_clusters(text: &str) -> Result<Vec<Ceph>> {
    whole(text, "CephClusterList", read_ceph_clusters)
}

/// [`read_count_items`] over a text.
pub fn count_items(text: &str) -> Result<usize> {
    read_count_items(text.as_bytes())
}
