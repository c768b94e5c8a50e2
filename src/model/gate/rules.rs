//! The one rule table (SPEC §17): each rule's id, the gate it belongs to and the code that
//! judges it, one row each; `rules.yaml` holds the same id's severity, reads, title and
//! source. `RuleId`, its id list, its spelling, its gate and the dispatch are all derived
//! from the rows below, so a new rule is a row here, its YAML entry and its function.

use super::check::{Check, Request};
use super::facts::Facts;
use super::table::{Component, Table};
use super::{components, drain, release, upgrade, Gate};

/// Every rule nestor implements; `rules.yaml` gives each its severity, reads and source.
macro_rules! gate_rules {
    (|$req:ident, $facts:ident, $table:ident| { $($variant:ident = $id:literal, $gate:ident => $body:expr;)* }) => {
        /// Every rule nestor implements; the table gives each its severity, reads and source.
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize, schemars::JsonSchema,
        )]
        pub enum RuleId {
            $(#[serde(rename = $id)] $variant,)*
        }

        impl RuleId {
            /// Every rule, in the table's order.
            pub const ALL: [RuleId; [$($id),*].len()] = [$(RuleId::$variant),*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(RuleId::$variant => $id,)*
                }
            }

            /// The gate the rule's code is written for.
            pub fn gate(self) -> Gate {
                match self {
                    $(RuleId::$variant => Gate::$gate,)*
                }
            }

            /// The rule's code on what was read.
            pub(super) fn judge(self, $req: &Request, $facts: &Facts, $table: &Table) -> Check {
                match self {
                    $(RuleId::$variant => $body,)*
                }
            }
        }
    };
}

gate_rules!(|req, facts, table| {
    DrainPdbBlocks = "drain-pdb-blocks", Drain => drain::pdb_blocks(req, facts);
    DrainCephHealth = "drain-ceph-health", Drain => drain::ceph_health(facts, table);
    DrainMonMajority = "drain-mon-majority", Drain => drain::mon_majority(req, facts);
    DrainControlPlane = "drain-control-plane", Drain => drain::control_plane(req, facts);
    DrainEtcdMajority = "drain-etcd-majority", Drain => drain::etcd_majority(req, facts);
    DrainNodeBoundVolumes = "drain-node-bound-volumes", Drain => drain::node_bound_volumes(req, facts);
    DrainUnmanagedPods = "drain-unmanaged-pods", Drain => drain::unmanaged_pods(facts);
    DrainEmptydir = "drain-emptydir", Drain => drain::emptydir(facts);
    DrainCapacity = "drain-capacity", Drain => drain::capacity(req, facts);
    DrainTimeSync = "drain-time-sync", Drain => drain::time_sync(req, facts);
    K8sOneMinor = "k8s-one-minor", UpgradeKubernetes => upgrade::one_minor(req, facts);
    K8sApiserversOneVersion = "k8s-apiservers-one-version", UpgradeKubernetes => upgrade::apiservers_one_version(req, facts);
    K8sKubeletSkew = "k8s-kubelet-skew", UpgradeKubernetes => upgrade::kubelet_skew(req, facts);
    K8sControlPlaneReady = "k8s-control-plane-ready", UpgradeKubernetes => upgrade::control_plane_ready(facts);
    K8sReadyz = "k8s-readyz", UpgradeKubernetes => upgrade::readyz(facts);
    K8sRemovedApis = "k8s-removed-apis", UpgradeKubernetes => upgrade::removed_apis(req, facts, table);
    K8sCrdUnservedStored = "k8s-crd-unserved-stored", UpgradeKubernetes => upgrade::crd_unserved_stored(facts);
    K8sNodeContainerd = "k8s-node-containerd", UpgradeKubernetes => upgrade::node_containerd(req, facts, table);
    K8sNodeCgroupV2 = "k8s-node-cgroup-v2", UpgradeKubernetes => upgrade::node_cgroup_v2(req, facts, table);
    K8sPlatformRanges = "k8s-platform-ranges", UpgradeKubernetes => upgrade::platform_ranges(req, facts, table);
    K8sPdbZero = "k8s-pdb-zero", UpgradeKubernetes => upgrade::pdb_zero(facts);
    CiliumOneMinor = "cilium-one-minor", UpgradeCilium => components::cilium_one_minor(req, facts);
    CiliumOneVersion = "cilium-one-version", UpgradeCilium => components::cilium_one_version(facts);
    RookOneMinor = "rook-one-minor", UpgradeRook => components::rook_one_minor(req, facts);
    RookOneVersion = "rook-one-version", UpgradeRook => components::rook_one_version(facts);
    RookCephNotError = "rook-ceph-not-error", UpgradeRook => components::ceph_not_error(facts);
    CiliumPresent = "cilium-present", UpgradeCilium => components::cilium_present(facts);
    CiliumK8sRange = "cilium-k8s-range", UpgradeCilium => release::k8s_range(Component::Cilium, req, facts, table);
    RookPresent = "rook-present", UpgradeRook => components::rook_present(facts);
    RookK8sRange = "rook-k8s-range", UpgradeRook => release::k8s_range(Component::Rook, req, facts, table);
    K8sCertsExpired = "k8s-certs-expired", UpgradeKubernetes => upgrade::certs_expired(facts);
    K8sCertsExpiring = "k8s-certs-expiring", UpgradeKubernetes => upgrade::certs_expiring(facts, table);
    CiliumKubeletRange = "cilium-kubelet-range", UpgradeCilium => release::kubelet_range(Component::Cilium, req, facts, table);
    RookKubeletRange = "rook-kubelet-range", UpgradeRook => release::kubelet_range(Component::Rook, req, facts, table);
    DrainOsdHosts = "drain-osd-hosts", Drain => drain::osd_hosts(req, facts);
    RookCephVersion = "rook-ceph-version", UpgradeRook => release::rook_ceph_version(req, facts, table);
    CiliumLayersAfterPresent = "cilium-layers-after-present", UpgradeCilium => components::layers_after_present(facts);
    RookLayersAfterPresent = "rook-layers-after-present", UpgradeRook => components::layers_after_present(facts);
    DrainSingleControlPlane = "drain-single-control-plane", Drain => drain::single_control_plane(req, facts);
    K8sDowngrade = "k8s-downgrade", UpgradeKubernetes => upgrade::downgrade(req, facts);
});
