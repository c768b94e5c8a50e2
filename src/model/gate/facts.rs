//! What the gate rules read, typed and reduced to the fields they use (decoded from the
//! API's JSON by `decode`). Every read is a `Read<T>`: a failed, forbidden or skipped read
//! is data, and a blocker rule that needs it is undecided (CANNOT TELL), never GO. The facts
//! a read keeps derive `Serialize` only to be weighed against the run's memory budget.

use std::collections::BTreeMap;

use super::cert::{Cert, PkiPath};
pub use super::host::TimeSync;
use super::table::Component;
use super::version::Version;
use super::Read as ReadKind;
use crate::model::observation::{Read, ReadFailure};

/// CPU in millicores and memory in bytes (`resources.requests`, `status.allocatable`).
#[derive(Debug, Clone, serde::Serialize, Copy, Default, PartialEq, Eq)]
pub struct Resources {
    pub cpu_milli: u64,
    pub memory_bytes: u64,
}

impl Resources {
    pub fn plus(self, o: Resources) -> Resources {
        Resources {
            cpu_milli: self.cpu_milli.saturating_add(o.cpu_milli),
            memory_bytes: self.memory_bytes.saturating_add(o.memory_bytes),
        }
    }
    pub fn minus(self, o: Resources) -> Resources {
        Resources {
            cpu_milli: self.cpu_milli.saturating_sub(o.cpu_milli),
            memory_bytes: self.memory_bytes.saturating_sub(o.memory_bytes),
        }
    }
}

/// `1.5 CPU, 3.0 GiB`: short enough that a line keeps its figures at 80 columns.
impl std::fmt::Display for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cpu = format!("{:.2}", self.cpu_milli as f64 / 1000.0);
        let gib = self.memory_bytes as f64 / f64::from(1u32 << 30);
        write!(
            f,
            "{} CPU, {gib:.1} GiB",
            cpu.trim_end_matches('0').trim_end_matches('.')
        )
    }
}

/// A `metav1.LabelSelector`: `matchLabels` and `matchExpressions`.
#[derive(Debug, Clone, serde::Serialize, Default, PartialEq, Eq)]
pub struct Selector {
    pub match_labels: BTreeMap<String, String>,
    pub match_expressions: Vec<Requirement>,
}

#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct Requirement {
    pub key: String,
    /// `In`, `NotIn`, `Exists`, `DoesNotExist` (anything else matches nothing).
    pub operator: String,
    pub values: Vec<String>,
}

impl Selector {
    /// Whether `labels` satisfy every term (an empty selector selects everything, as a
    /// `policy/v1` PodDisruptionBudget's does).
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|r| {
                let value = labels.get(&r.key);
                match r.operator.as_str() {
                    "In" => value.is_some_and(|v| r.values.contains(v)),
                    "NotIn" => value.is_none_or(|v| !r.values.contains(v)),
                    "Exists" => value.is_some(),
                    "DoesNotExist" => value.is_none(),
                    _ => false,
                }
            })
    }
}

/// A PodDisruptionBudget as the disruption controller writes its status.
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct Pdb {
    pub namespace: String,
    pub name: String,
    /// `None`: no `spec.selector`, which selects no pod; `{}` selects every pod of the
    /// namespace (`policy/v1`, and the eviction API since kubernetes#119732).
    pub selector: Option<Selector>,
    /// `metadata.generation` and `status.observedGeneration`: a status older than its spec
    /// is "still being processed" (the eviction API answers 429).
    pub generation: i64,
    pub observed_generation: i64,
    /// `spec.unhealthyPodEvictionPolicy: AlwaysAllow`: a running pod that is not Ready is
    /// evicted whatever the budget says.
    pub always_allow_unhealthy: bool,
    pub disruptions_allowed: i64,
    pub current_healthy: i64,
    pub desired_healthy: i64,
    pub expected_pods: i64,
}

#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct Owner {
    pub kind: String,
    pub name: String,
    pub controller: bool,
}

#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub enum VolumeKind {
    HostPath(String),
    EmptyDir,
    /// `persistentVolumeClaim.claimName`.
    Claim(String),
    Other,
}

#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct Pod {
    pub namespace: String,
    pub name: String,
    /// `spec.nodeName`.
    pub node: String,
    pub labels: BTreeMap<String, String>,
    pub owners: Vec<Owner>,
    pub volumes: Vec<(String, VolumeKind)>,
    /// The sum of its containers' requests.
    pub requests: Resources,
    /// `status.phase`.
    pub phase: String,
    /// Condition `Ready` is `True`.
    pub ready: bool,
    /// Its containers' images.
    pub images: Vec<String>,
    /// `metadata.deletionTimestamp` is set: already being deleted.
    pub deleting: bool,
    /// The kubelet's `kubernetes.io/config.mirror` annotation: a static pod's mirror.
    pub mirror: bool,
}

impl Pod {
    /// The owner marked `controller: true`.
    pub fn controller(&self) -> Option<&Owner> {
        self.owners.iter().find(|o| o.controller)
    }

    pub fn is_daemonset(&self) -> bool {
        self.controller().is_some_and(|o| o.kind == "DaemonSet")
    }

    /// A pod the kubelet runs from a file: the `kubernetes.io/config.mirror` annotation, as
    /// kubectl's drain filter reads it. A Node owner alone is no proof: such a pod is judged
    /// like any other.
    pub fn is_mirror(&self) -> bool {
        self.mirror
    }

    /// Succeeded or Failed: nothing to evict.
    pub fn is_finished(&self) -> bool {
        self.phase == "Succeeded" || self.phase == "Failed"
    }

    /// The eviction API deletes it without consulting a budget (`canIgnorePDB`): terminal,
    /// `Pending`, or already being deleted.
    pub fn ignores_budgets(&self) -> bool {
        self.is_finished() || self.phase == "Pending" || self.deleting
    }

    pub fn reference(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub ready: bool,
    /// `node-role.kubernetes.io/<role>` labels.
    pub roles: Vec<String>,
    /// The `kubernetes.io/hostname` label (a local PV's node affinity names it).
    pub hostname: Option<String>,
    /// `spec.unschedulable` (cordoned).
    pub unschedulable: bool,
    /// `NoSchedule`/`NoExecute` taint keys.
    pub hard_taints: Vec<String>,
    pub kubelet_version: String,
    pub container_runtime_version: String,
    pub allocatable: Resources,
}

impl Node {
    pub fn is_control_plane(&self) -> bool {
        self.roles
            .iter()
            .any(|r| r == "control-plane" || r == "master")
    }
}

#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct Pv {
    pub name: String,
    /// `spec.claimRef` namespace and name.
    pub claim: Option<(String, String)>,
    /// `spec.local` is set.
    pub local: bool,
    /// `spec.hostPath` is set.
    pub host_path: bool,
    /// The `kubernetes.io/hostname In [...]` values of its required node affinity.
    pub pinned_hosts: Vec<String>,
}

#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct CrdVersion {
    pub name: String,
    pub served: bool,
    pub storage: bool,
}

#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct Crd {
    pub name: String,
    pub group: String,
    pub versions: Vec<CrdVersion>,
    /// `status.storedVersions`.
    pub stored_versions: Vec<String>,
}

/// A CloudNativePG `Cluster` as its operator writes it: `spec.instances`,
/// `status.currentPrimary` and the Ready instances (`status.instancesStatus.healthy`).
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct CnpgCluster {
    pub namespace: String,
    pub name: String,
    pub instances: i64,
    pub current_primary: String,
    pub healthy: Vec<String>,
}

/// A namespaced object's namespace and name (the DaemonSets the cluster has).
pub type ObjectRef = (String, String);

/// One health check of `status.ceph.details`.
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct CephCheck {
    pub name: String,
    pub severity: String,
    pub message: String,
}

/// The CephCluster's status as Rook writes it (and its mon count).
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct Ceph {
    pub namespace: String,
    pub name: String,
    /// `status.ceph.health`; empty when Rook has not written it.
    pub health: String,
    pub checks: Vec<CephCheck>,
    /// `status.ceph.lastChecked`, seconds since the epoch.
    pub last_checked: Option<i64>,
    /// `spec.mon.count` (Rook's default is 3).
    pub mon_count: u32,
    /// `status.version.version` (`18.2.4-0`); empty when Rook has not written it.
    pub version: String,
}

/// One line of `/readyz?verbose`: `[+]etcd ok`, `[-]etcd failed: reason withheld`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadyzCheck {
    pub name: String,
    pub ok: bool,
}

/// A container image of a workload (`DaemonSet kube-system/cilium`).
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct WorkloadImage {
    pub workload: String,
    pub container: String,
    pub image: String,
    /// The workload's pods: (ready, desired) as its controller counts them.
    pub pods: (i64, i64),
}

/// A Deployment and its `rook-version` label (the operator's: its image's tag).
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct RookLabel {
    pub deployment: String,
    pub rook_version: Option<String>,
    /// The version is the operator's image tag, not a `rook-version` label.
    pub from_image: bool,
    /// (ready, desired) replicas.
    pub pods: (i64, i64),
}

/// One Ceph pool a Rook CR declares (`spec.failureDomain`, `spec.replicated` or
/// `spec.erasureCoded`: Rook's `PoolSpec`).
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct CephPool {
    /// `CephBlockPool rook-ceph/replicapool`, `CephFilesystem rook-ceph/myfs data pool replicated`.
    pub owner: String,
    /// `spec.failureDomain`; Rook's default is `host`.
    pub failure_domain: String,
    /// How many failure domains the pool's copies need: `replicated.size` over
    /// `replicasPerFailureDomain`, or an erasure-coded pool's data + coding chunks.
    pub domains_needed: u32,
    /// `replicated size 3`, `erasure-coded 2+1`.
    pub layout: String,
}

/// A layer's state as `preview` gives it (`model::state::State`, which uses this module's
/// versions: its own copy here keeps the two modules free of a cycle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerState {
    Present,
    Degraded,
    Absent,
    Unknown,
}

impl LayerState {
    pub fn as_str(self) -> &'static str {
        match self {
            LayerState::Present => "present",
            LayerState::Degraded => "degraded",
            LayerState::Absent => "absent",
            LayerState::Unknown => "unknown",
        }
    }
}

/// One layer of the stack declared after the component's own, as `preview` judged it.
#[derive(Debug, Clone, PartialEq)]
pub struct LaterLayer {
    pub id: String,
    pub state: LayerState,
    /// The evidence that decided the state: the line `preview` prints for the layer.
    pub reason: String,
    /// Degraded, and every failing check acknowledged (SPEC §6): no work, as for preview.
    pub acknowledged: bool,
}

/// The stack's layers declared after the component's layer (`cni` for Cilium, `ceph` for
/// Rook), in the stack's order.
#[derive(Debug, Clone, PartialEq)]
pub struct LayersAfter {
    /// The component's layer.
    pub layer: String,
    pub after: Vec<LaterLayer>,
    /// Host-level layers after it, read over ssh by preview only: not judged by the gate.
    pub not_judged: Vec<String>,
}

/// Per host (inventory name): what the host check showed, or why it could not be read.
pub type PerHost<T> = BTreeMap<String, Read<T>>;

/// Everything a gate reads. A field not read is `Skipped`.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    /// When the cluster was read (seconds since the epoch): the "now" of stale statuses.
    pub observed_at: Option<i64>,
    pub pdbs: Read<Vec<Pdb>>,
    pub node_pods: Read<Vec<Pod>>,
    /// The requests of the cluster's pods that are not terminated, summed per node.
    pub cluster_pods: Read<BTreeMap<String, Resources>>,
    pub nodes: Read<Vec<Node>>,
    pub pvs: Read<Vec<Pv>>,
    pub crds: Read<Vec<Crd>>,
    /// Every CephCluster listed (none: no Rook, or no cluster of it).
    pub ceph: Read<Vec<Ceph>>,
    pub mon_pods: Read<Vec<Pod>>,
    pub etcd_pods: Read<Vec<Pod>>,
    /// Rook's pools (none when the cluster does not serve `ceph.rook.io`).
    pub ceph_pools: Read<Vec<CephPool>>,
    pub osd_pods: Read<Vec<Pod>>,
    /// Every DaemonSet of the cluster (a DaemonSet pod whose DaemonSet is gone is orphaned).
    pub daemonsets: Read<Vec<ObjectRef>>,
    /// CloudNativePG's Clusters (none when the cluster does not serve `postgresql.cnpg.io`).
    pub cnpg_clusters: Read<Vec<CnpgCluster>>,
    pub apiserver_pods: Read<Vec<Pod>>,
    pub readyz: Read<Vec<ReadyzCheck>>,
    /// `group/version/resource` → how many objects it lists, `None` when the server no
    /// longer serves it (one read per removed API of the table).
    pub removed_api_objects: BTreeMap<String, Read<Option<usize>>>,
    /// Installed components → their version (`None`: not installed).
    pub components: BTreeMap<Component, Read<Option<Version>>>,
    pub cilium_images: Read<Vec<WorkloadImage>>,
    pub rook_versions: Read<Vec<RookLabel>>,
    /// `timedatectl show` on every node that stays (keyed by node name).
    pub host_time_sync: Read<PerHost<TimeSync>>,
    /// `/sys/fs/cgroup/cgroup.controllers` exists: cgroup v2 (keyed by node name).
    pub host_cgroup: Read<PerHost<bool>>,
    /// The control-plane certificate files of each control-plane node (`None`: no such file).
    pub host_certs: Read<PerHost<Vec<CertFile>>>,
    /// The stack's layers after the component's (`gate upgrade cilium|rook`).
    pub layers_after: Read<LayersAfter>,
}

/// One certificate file of a control-plane node: what it showed, `None` when the node has no
/// such file (an external etcd has no `etcd/*.crt`), or why it could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct CertFile {
    pub path: PkiPath,
    pub read: Read<Option<Cert>>,
}

impl Facts {
    /// Nothing read yet: every read `Skipped` with `reason`.
    pub fn unread(reason: &str) -> Facts {
        fn f<T>(reason: &str) -> Read<T> {
            Err(ReadFailure::skipped(reason))
        }
        Facts {
            observed_at: None,
            pdbs: f(reason),
            node_pods: f(reason),
            cluster_pods: f(reason),
            nodes: f(reason),
            pvs: f(reason),
            crds: f(reason),
            ceph: f(reason),
            mon_pods: f(reason),
            etcd_pods: f(reason),
            ceph_pools: f(reason),
            osd_pods: f(reason),
            daemonsets: f(reason),
            cnpg_clusters: f(reason),
            apiserver_pods: f(reason),
            readyz: f(reason),
            removed_api_objects: BTreeMap::new(),
            components: BTreeMap::new(),
            cilium_images: f(reason),
            rook_versions: f(reason),
            host_time_sync: f(reason),
            host_cgroup: f(reason),
            host_certs: f(reason),
            layers_after: f(reason),
        }
    }

    /// Why `read` is not known, if it is not.
    pub fn failure(&self, read: ReadKind) -> Option<&ReadFailure> {
        fn err<T>(r: &Read<T>) -> Option<&ReadFailure> {
            r.as_ref().err()
        }
        match read {
            ReadKind::Pdbs => err(&self.pdbs),
            ReadKind::NodePods => err(&self.node_pods),
            ReadKind::ClusterPods => err(&self.cluster_pods),
            ReadKind::Nodes => err(&self.nodes),
            ReadKind::Pvs => err(&self.pvs),
            ReadKind::Crds => err(&self.crds),
            ReadKind::CephCluster => err(&self.ceph),
            ReadKind::MonPods => err(&self.mon_pods),
            ReadKind::EtcdPods => err(&self.etcd_pods),
            ReadKind::CephPools => err(&self.ceph_pools),
            ReadKind::OsdPods => err(&self.osd_pods),
            ReadKind::Daemonsets => err(&self.daemonsets),
            ReadKind::CnpgClusters => err(&self.cnpg_clusters),
            ReadKind::ApiserverPods => err(&self.apiserver_pods),
            ReadKind::Readyz => err(&self.readyz),
            ReadKind::RemovedApiObjects => self.removed_api_objects.values().find_map(err),
            ReadKind::ComponentVersions => self.components.values().find_map(err),
            ReadKind::CiliumImages => err(&self.cilium_images),
            ReadKind::RookVersions => err(&self.rook_versions),
            ReadKind::HostTimeSync => err(&self.host_time_sync),
            ReadKind::HostCgroup => err(&self.host_cgroup),
            ReadKind::HostCerts => err(&self.host_certs),
            ReadKind::LayersAfter => err(&self.layers_after),
        }
    }
}
