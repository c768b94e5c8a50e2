//! The checks of a layer, as typed data (SPEC §6 check kinds), and their strict decoding
//! from the catalog YAML. Every check may carry a `why:`: the reason the operators gate on
//! it, printed by `catalog show`.
//!
//! Kinds: `apiGroup`, `namespace`, `storageClass`, `workload` (rolled out as `kubectl rollout
//! status` says), `resource` (one exists / every one has a field value), `condition` (at
//! least one object, each with `status.conditions[type=T].status == "True"`), `all` (every
//! object of a list, possibly none, satisfies a predicate), `count` (at least N objects or
//! workloads, or as many as a field of another object says), `tolerate` (a health field OK,
//! or WARN whose every detail is benign), `podFlags` (every control-plane kube-apiserver runs
//! with these flags), `nodes`, `configMap` (a key of one ConfigMap, read by name, empty),
//! and in `agents`: `annotated` (an annotation on every object of a list) and
//! `startedAfter` (containers started after a ConfigMap's last write).

use crate::model::observation::{FieldPath, FieldUse, LAST_CHANGE};

mod drift;
pub use drift::{
    is_exempt, AbsentCheck, Absentee, ConfigMapKeyCheck, DefaultDenyCheck, NamespaceLabelCheck,
    BUILTIN_EXEMPT, CILIUM_NETWORK_POLICIES, CNP_PATHS, NETWORK_POLICIES, NP_PATHS,
};
mod agents;
pub use agents::{AnnotatedCheck, PodsOf, StartedAfterCheck};
mod nodes;
pub use nodes::{ExpectedTaint, SchedulableCheck, CONTROL_PLANE_EFFECT, CONTROL_PLANE_KEY};
mod versions;
pub use versions::{OneVersionCheck, VersionFrom, Versioned, VERSION_LABELS};
mod apiservices;
pub use apiservices::{ApiServicesCheck, APISERVICES};
mod webhooks;
pub use webhooks::{WebhooksCheck, MAX_SERVICES};
mod claims;
pub use claims::{ClaimsCheck, DEFAULT_MAX_PENDING_SECS};
mod key;
mod kinds;
pub(crate) use kinds::{kind_arms, match_kind};
mod placement;
mod reads;
pub use placement::{DistinctNodesCheck, MAX_PLACED_PODS};
pub use reads::{CheckReads, Reads};
mod gateway;
pub use gateway::{Above, CsiDriverCheck, EveryCheck, Filter, Known, ParentsCheck, Wants};

/// One check of a layer: what is tested, and why the operators test it.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub kind: CheckKind,
    /// The operators' reason for this gate (`why:`), shown by `catalog show`.
    pub why: Option<String>,
    /// The check's stable name (`name:`, lowercase `[a-z0-9-]`): its id is `LAYER/NAME`.
    /// Without one, [`check_name`] derives it from the check's place in its layer.
    pub name: Option<String>,
}

impl From<CheckKind> for Check {
    fn from(kind: CheckKind) -> Check {
        Check {
            kind,
            why: None,
            name: None,
        }
    }
}

/// The name of a check without `name:`: `detect-N` or `healthy-N`, N its 1-based place in
/// that list of its layer. Deterministic, documented (docs/health.md), and stable as long
/// as the list keeps its order; a check meant to be acknowledged is better named.
pub fn check_name(check: &Check, healthy: bool, index: usize) -> String {
    match &check.name {
        Some(n) => n.clone(),
        None if healthy => format!("healthy-{}", index + 1),
        None => format!("detect-{}", index + 1),
    }
}

/// A check name: 1 to 63 of lowercase `[a-z0-9-]`, starting with a letter or digit.
pub fn is_check_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && !name.starts_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// THE table of check kinds (issue 30 item 2), in the order the catalog documentation lists
/// them (and error messages name them): one row per kind, `Variant(TypedCheck)`. Each row
/// is a catalog key too — [`CheckKey`], derived from the variant (`distinctNodes` for
/// `DistinctNodes`) — so a kind's name is spelled once, here. The table hands its rows to a
/// callback (`check/kinds.rs`): `define_check_kind` writes `CheckKind` from it below, and
/// every per-kind dispatch (decoding, reads, words, evaluation, the by-hand read) is a
/// `match_kind!` over it. A new kind is a row here, its `mod`, and the traits on its typed
/// check (ARCHITECTURE.md, "How to add a layer check kind").
macro_rules! check_kinds {
    ($($callback:ident)::+ { $($args:tt)* }) => {
        $($callback)::+! { { $($args)* }

        /// The API group is served (discovery).
        ApiGroup(ApiGroupCheck),
        /// The namespace exists.
        Namespace(NamespaceCheck),
        /// A StorageClass with this provisioner (if given) and default flag (if given) exists.
        StorageClass(StorageClassCheck),
        /// detect: a matching workload exists; healthy: there is one, and every matching one is
        /// rolled out (`kubectl rollout status` semantics).
        Workload(WorkloadCheck),
        /// Objects of a custom type exist; with a field, every one (at least one) satisfies it.
        Resource(ResourceCheck),
        /// At least one object, each with the condition `type` True.
        Condition(ConditionCheck),
        /// Every object of the list satisfies the predicate; an empty list passes.
        All(AllCheck),
        /// At least N objects or workloads.
        Count(CountCheck),
        /// A health field is OK, or WARN with only benign details.
        Tolerate(TolerateCheck),
        /// detect: kube-apiserver pods are visible; healthy: each control-plane one has the flags.
        PodFlags(PodFlagsCheck),
        Nodes(NodesCheck),
        /// One ConfigMap, read by name: a key of it empty (or absent). Rook's
        /// `rook-ceph-mon-endpoints` `outOfQuorum` lists the mons out of quorum.
        ConfigMap(ConfigMapCheck),
        /// A namespace label: on some namespace (detect), or on every namespace outside the
        /// exemptions, with one of the accepted values (Pod Security admission).
        NamespaceLabel(NamespaceLabelCheck),
        /// A key of a named ConfigMap holds one of the accepted values (detect: cilium-config
        /// says `enable-hubble: "true"`).
        ConfigMapKey(ConfigMapKeyCheck),
        /// No such object: a workload or a named ConfigMap that must be gone (kube-proxy once
        /// Cilium replaces it).
        Absent(AbsentCheck),
        /// Every object of a list carries an annotation (one of its spellings), values
        /// distinct if asked, one object per node if asked (Cilium's WireGuard keys).
        Annotated(AnnotatedCheck),
        /// Every running container of some pods started after a ConfigMap's last write (the
        /// agents run the configuration it says).
        StartedAfter(StartedAfterCheck),
        /// Every namespace outside the exemptions denies ingress by default (network-policy).
        DefaultDenyIngress(DefaultDenyCheck),
        /// The objects of a type selected by a field (or by naming an object so selected), each
        /// with the conditions, counts and list entries asked (SPEC §15: the Gateway chain).
        Every(EveryCheck),
        /// Every route whose `status.parents[]` names a controller: those entries' conditions.
        Parents(ParentsCheck),
        /// The default StorageClass's provisioner registered as a CSIDriver, on every node.
        CsiDriver(CsiDriverCheck),
        /// The layer's components run one version (image tags or version labels).
        OneVersion(OneVersionCheck),
        /// Every APIService backed by a Service is `Available=True`.
        ApiServices(ApiServicesCheck),
        /// Every webhook served from a namespace that fails closed has a ready endpoint.
        Webhooks(WebhooksCheck),
        /// No claim of a checked namespace Pending too long or Lost, no volume of the
        /// provisioner Failed.
        Claims(ClaimsCheck),
        /// The pods a selector takes in one namespace run on at least N distinct nodes once
        /// the cluster has N (Rook's mons and OSDs: `failureDomain: host`).
        DistinctNodes(DistinctNodesCheck),
        }
    };
}
pub(crate) use check_kinds;

check_kinds!(kinds::define_check_kind {
    /// What a check tests: one variant per row of [`check_kinds!`].
    #[derive(Debug, Clone, PartialEq, strum::EnumDiscriminants)]
    #[strum_discriminants(
        name(CheckKey),
        vis(pub),
        derive(PartialOrd, Ord, strum::IntoStaticStr, strum::VariantArray),
        strum(serialize_all = "camelCase")
    )]
});

/// `apiGroup: GROUP`: the API group is served (discovery).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiGroupCheck(pub String);

/// `namespace: NAME`: the namespace exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceCheck(pub String);

/// `storageClass: {provisioner, default}`: such a StorageClass exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageClassCheck {
    pub provisioner: Option<String>,
    pub default: Option<bool>,
}

/// `configMap: {namespace, name, key, empty: true}` (Rook's mon quorum).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigMapCheck {
    pub namespace: String,
    pub name: String,
    pub key: String,
}

pub use crate::model::observation::WorkloadKind;

/// Workloads of one namespace: every kind or one, by exact name, by name prefix, or all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadCheck {
    pub kind: Option<WorkloadKind>,
    pub namespace: String,
    pub name: Option<String>,
    /// Operator-managed sets named `PREFIX...` (`rook-ceph-osd-`).
    pub name_prefix: Option<String>,
}

impl WorkloadCheck {
    pub fn kinds(&self) -> Vec<WorkloadKind> {
        self.kind.map_or(WorkloadKind::ALL.to_vec(), |k| vec![k])
    }

    pub fn matches(&self, namespace: &str, name: &str) -> bool {
        namespace == self.namespace
            && self.name.as_deref().is_none_or(|n| n == name)
            && self
                .name_prefix
                .as_deref()
                .is_none_or(|p| name.starts_with(p))
    }

    /// How the selection reads in evidence: `Deployment rook-ceph/rook-ceph-osd-*`.
    pub fn selector(&self) -> String {
        let what = self.kind.map_or("workload", WorkloadKind::as_str);
        match (&self.name, &self.name_prefix) {
            (Some(n), _) => format!("{what} {}/{n}", self.namespace),
            (None, Some(p)) => format!("{what} {}/{p}*", self.namespace),
            (None, None) => format!("{what} in {}", self.namespace),
        }
    }
}

/// The objects of one custom type a check looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Objects {
    /// `plural.group`, e.g. `cephclusters.ceph.rook.io`.
    pub resource: String,
    /// The kind shown in evidence (`CephCluster`); defaults to the resource name.
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

impl Objects {
    /// The API group of the resource type.
    pub fn group(&self) -> &str {
        self.resource.split_once('.').map_or("", |(_, g)| g)
    }

    /// The kind named in evidence.
    pub fn kind_label(&self) -> &str {
        self.kind.as_deref().unwrap_or(&self.resource)
    }

    /// `CephCluster in rook-ceph`, `ClusterIssuer letsencrypt`, ...
    pub fn selector(&self) -> String {
        let kind = self.kind_label();
        match (&self.namespace, &self.name) {
            (Some(ns), Some(n)) => format!("{kind} {ns}/{n}"),
            (Some(ns), None) => format!("{kind} in {ns}"),
            (None, Some(n)) => format!("{kind} {n}"),
            (None, None) => kind.to_string(),
        }
    }
}

/// Without `field`: "one exists". With it: every matching object (at least one) satisfies
/// `expect`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceCheck {
    pub objects: Objects,
    pub field: Option<FieldPath>,
    pub expect: Option<Expect>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionCheck {
    pub objects: Objects,
    /// The condition type (`Ready`, `Available`).
    pub type_: String,
}

/// What every object of an `all` check must satisfy.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    Field(FieldPath, Expect),
    Condition(String),
    /// None of these condition types present, unless its status says `False`. Argo CD's
    /// error conditions (`ComparisonError`, `SyncError`, ...) carry a type and a message and
    /// no status: being there is the error.
    NoConditions(Vec<String>),
    /// The condition is not `False`; absent holds (CNPG writes `ContinuousArchiving` only
    /// once archiving is set up).
    NotFalse(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct AllCheck {
    pub objects: Objects,
    pub predicate: Predicate,
    /// A field whose text is quoted beside each object that fails (`quote:`; an Argo CD
    /// operation's `.status.operationState.message`), escaped and capped.
    pub quote: Option<FieldPath>,
    /// Only the objects with this field set are judged (`withField: .spec.backup`: the CNPG
    /// Clusters with backups configured).
    pub with_field: Option<FieldPath>,
}

/// What a `count` counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counted {
    Objects(Objects),
    Workloads(WorkloadCheck),
}

/// How many a `count` wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    AtLeast(u32),
    /// As many as an integer field of other objects says (the largest, if several match).
    AtLeastField {
        objects: Objects,
        field: FieldPath,
        /// The operator's default when the field is absent (`default:`; Rook's mon count is
        /// 3): an omitted field is not a missing one (SPEC §6 v0.3).
        default: Option<u32>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountCheck {
    pub counted: Counted,
    pub wanted: Wanted,
}

/// Ceph's capacity health codes (SPEC §6 v0.4): a cluster filling up is never benign, so a
/// `benign:` list naming one is refused when the catalog is read.
pub const NEVER_BENIGN: [&str; 5] = [
    "OSD_NEARFULL",
    "OSD_BACKFILLFULL",
    "OSD_FULL",
    "POOL_NEARFULL",
    "POOL_FULL",
];

/// `field` in `ok` → true; `field == warn` and every key of the map at `details` in
/// `benign` → true, the warning kept in the evidence; anything else → false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TolerateCheck {
    pub objects: Objects,
    pub field: FieldPath,
    pub ok: Vec<String>,
    pub warn: String,
    pub details: FieldPath,
    pub benign: Vec<String>,
    /// When the operator last wrote `field` (`.status.ceph.lastChecked`): older than
    /// `max_status_age` seconds, the status is stale and not trusted (SPEC §6 v0.3).
    pub last_checked: Option<FieldPath>,
    pub max_status_age: u64,
}

/// `maxStatusAge` when a `tolerate` check names `lastChecked` without one: 10 minutes.
pub const DEFAULT_MAX_STATUS_AGE: u64 = 600;

/// The kube-apiserver static pods (kube-system, `component=kube-apiserver`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodFlagsCheck {
    /// `--audit-log-path`, ... : each must be set (with a non-empty value) on every
    /// control-plane node's kube-apiserver.
    pub flags: Vec<String>,
}

/// What a resource field must hold. Scalars compare by their text (`3` equals `"3"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    In(Vec<String>),
    /// None of these values; an object without the field passes (an Argo CD Application
    /// that never ran an operation has no `.status.operationState`).
    NotIn(Vec<String>),
    Equals(String),
    /// Equal to another field of the same object.
    EqualsField(FieldPath),
    /// The field is there, whatever its value.
    Exists,
    /// A timestamp more than this many seconds after the reading (`minValidity: 7d`: a
    /// Certificate's `.status.notAfter`).
    MinValidity(u64),
    /// A timestamp at most this many seconds before the reading (`maxAge: 26h`: a CNPG
    /// Cluster's `.status.lastSuccessfulBackup`); missing is a failure (never backed up).
    MaxAge(u64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodesCheck {
    /// Nodes registered (whatever their condition): `all` declared nodes, or at least N.
    Registered(Count),
    /// Nodes Ready: `all` declared nodes, or at least N.
    Ready(Count),
    /// No two nodes announce the same InternalIP (bench #3, #4: every node said 10.0.2.15,
    /// the NAT address of its VM).
    DistinctInternalIps,
    /// No node carries a taint with this key (`node.cilium.io/agent-not-ready`).
    WithoutTaint(String),
    /// Every Ready node doing its job: no pressure or NetworkUnavailable condition True, not
    /// cordoned, no NoSchedule/NoExecute taint but the expected ones (SPEC §6 v0.4).
    Schedulable(SchedulableCheck),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// Every node declared in the stack (every registered node if none is declared).
    All,
    AtLeast(u32),
}
