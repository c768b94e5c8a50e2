//! Gates (SPEC §17): "may I do this now?" — drain a node, upgrade Kubernetes, Cilium or
//! Rook — answered from what the cluster shows, read-only. The rules are data
//! (`rules.yaml`: severity, reads, upstream source; per-release facts as rows); this module
//! holds their typed inputs (`facts`, decoded from the API's own JSON by `decode`) and
//! their pure evaluation (`evaluate`), which gives a `Verdict`: GO, NO-GO with the
//! blockers in the owners' words, or CANNOT TELL when a read a blocker rule needs failed.
//! No process, no network: the reads are the session's.
//!
//! Files: `rules.rs` (the one rule table, `gate_rules!`: a row per rule, its gate and the
//! function that judges it) and `rules.yaml` (each rule's severity, reads and upstream
//! source); `table.rs` (the release facts as rows: removed APIs, platform ranges, Rook's Ceph
//! versions, component layers); `check.rs` (what a rule's code is given and returns);
//! `verdict.rs` (`evaluate`: each rule run on what was read, the verdict); `facts.rs` (the
//! typed inputs) and `decode/` (the API's JSON into them, Lists through preview's one List
//! decoder); `drain/` (the eviction API's semantics, budgets, control plane, OSDs),
//! `upgrade/` (kubeadm's version policy and the skew policy, certificates, platform
//! ranges), `components.rs` (cilium|rook), `host.rs` (host rules' facts), `cert.rs`,
//! `release.rs`, `version.rs`; `explain.rs` (each read's fact in one line, `--explain`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod cert;
mod check;
mod components;
pub mod decode;
mod drain;
pub mod explain;
pub mod facts;
pub mod host;
mod release;
mod rules;
pub use rules::RuleId;
mod table;
mod upgrade;
pub use upgrade::control_plane_version;
mod verdict;
pub mod version;

pub use facts::Facts;
pub use table::{
    builtin, parse, CertRules, Component, PlatformRange, RemovedApi, Rule, Source, Table,
};
pub use verdict::{
    evaluate, Check, Evaluation, Finding, Outcome, Request, Status, Verdict, INVENTORY_NONE, NO_SSH,
};

#[cfg(test)]
mod ceph_tests;
#[cfg(test)]
mod components_tests;
#[cfg(test)]
mod eviction_tests;
#[cfg(test)]
mod host_tests;
#[cfg(test)]
mod kubelet_range_tests;
#[cfg(test)]
mod layers_tests;
#[cfg(test)]
mod table_tests;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
pub(crate) mod upgrade_tests;
#[cfg(test)]
mod version_policy_tests;

/// The four gates.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Gate {
    Drain,
    UpgradeKubernetes,
    UpgradeCilium,
    UpgradeRook,
}

impl Gate {
    pub const ALL: [Gate; 4] = [
        Gate::Drain,
        Gate::UpgradeKubernetes,
        Gate::UpgradeCilium,
        Gate::UpgradeRook,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Gate::Drain => "drain",
            Gate::UpgradeKubernetes => "upgrade-kubernetes",
            Gate::UpgradeCilium => "upgrade-cilium",
            Gate::UpgradeRook => "upgrade-rook",
        }
    }
}

/// A blocker stops the change (NO-GO); a warning is printed and does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Blocker,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Blocker => "blocker",
            Severity::Warning => "warning",
        }
    }
}

/// What a rule reads (`host-*`: over ssh).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Read {
    /// PodDisruptionBudgets of every namespace (`policy/v1`).
    Pdbs,
    /// The pods of NODE (`spec.nodeName=NODE` field selector).
    NodePods,
    /// Every pod's node and requests (the other nodes' free allocatable).
    ClusterPods,
    Nodes,
    /// PersistentVolumes (their claim, `local`, `nodeAffinity`).
    Pvs,
    /// CustomResourceDefinitions (served versions, `status.storedVersions`).
    Crds,
    /// The CephCluster (`status.ceph`, `spec.mon.count`).
    CephCluster,
    /// The mon pods (`app=rook-ceph-mon` in rook-ceph).
    MonPods,
    /// The etcd mirror pods (`component=etcd` in kube-system).
    EtcdPods,
    /// Rook's pools: CephBlockPools, CephFilesystems' and CephObjectStores' pools.
    CephPools,
    /// The OSD pods (`app=rook-ceph-osd` in rook-ceph) and their topology labels.
    OsdPods,
    /// Every DaemonSet's namespace and name.
    Daemonsets,
    /// CloudNativePG's Clusters (`spec.instances`, `status.currentPrimary`, the Ready ones).
    CnpgClusters,
    /// The kube-apiserver mirror pods (`component=kube-apiserver` in kube-system).
    ApiserverPods,
    /// `/readyz?verbose`.
    Readyz,
    /// The objects of every API version VERSION removes that the server still serves.
    RemovedApiObjects,
    /// The installed platform components' versions (images, `rook-version` labels).
    ComponentVersions,
    /// The Cilium agent DaemonSet's and operator Deployment's images.
    CiliumImages,
    /// The `rook-version` labels of rook-ceph's Deployments.
    RookVersions,
    /// `timedatectl show` on every node.
    HostTimeSync,
    /// `/sys/fs/cgroup/cgroup.controllers` on every node.
    HostCgroup,
    /// The public `*.crt` files under `/etc/kubernetes/pki` of every control-plane node.
    HostCerts,
    /// The stack's layers declared after the component's own, judged as `preview` judges
    /// them (their checks' reads, through the session's pipeline).
    LayersAfter,
}

impl Read {
    pub fn is_host(self) -> bool {
        matches!(
            self,
            Read::HostTimeSync | Read::HostCgroup | Read::HostCerts
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Read::Pdbs => "pdbs",
            Read::NodePods => "node-pods",
            Read::ClusterPods => "cluster-pods",
            Read::Nodes => "nodes",
            Read::Pvs => "pvs",
            Read::Crds => "crds",
            Read::CephCluster => "ceph-cluster",
            Read::MonPods => "mon-pods",
            Read::EtcdPods => "etcd-pods",
            Read::CephPools => "ceph-pools",
            Read::OsdPods => "osd-pods",
            Read::Daemonsets => "daemonsets",
            Read::CnpgClusters => "cnpg-clusters",
            Read::ApiserverPods => "apiserver-pods",
            Read::Readyz => "readyz",
            Read::RemovedApiObjects => "removed-api-objects",
            Read::ComponentVersions => "component-versions",
            Read::CiliumImages => "cilium-images",
            Read::RookVersions => "rook-versions",
            Read::HostTimeSync => "host-time-sync",
            Read::HostCgroup => "host-cgroup",
            Read::HostCerts => "host-certs",
            Read::LayersAfter => "layers-after",
        }
    }
}
