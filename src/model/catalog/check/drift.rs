//! The check kinds of SPEC §15 (configured is not working): a namespace label on every
//! namespace, a default-deny ingress policy in every namespace, a key of a named ConfigMap,
//! and objects that must be gone. The namespace-wide ones share the built-in exemptions.

use super::{Objects, WorkloadCheck};
use crate::model::observation::{FieldPath, FieldUse};

/// `namespaceLabel: {label, in, exempt, some}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceLabelCheck {
    /// The label key, `pod-security.kubernetes.io/enforce`.
    pub label: String,
    /// Accepted values; empty: any value.
    pub values: Vec<String>,
    /// Namespaces not judged beyond [`BUILTIN_EXEMPT`] (the catalog's `exempt:` adds).
    pub exempt: Vec<String>,
    /// `true`: some namespace has it (a detect check); `false`: every namespace not exempt.
    pub some: bool,
}

/// `configMapKey: {namespace, name, key, in: [...], says?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigMapKeyCheck {
    pub namespace: String,
    pub name: String,
    pub key: String,
    /// Accepted values (compared as text); with `negated`, the refused ones.
    pub values: Vec<String>,
    /// `notIn:`: the key must not hold one of `values`; a missing ConfigMap or key holds
    /// (`enable-policy: never` of cilium-config: no Cilium, nothing disables policies).
    pub negated: bool,
    /// What a failure means, added to its evidence (`deprecated value, use true`).
    pub says: Option<String>,
}

impl ConfigMapKeyCheck {
    /// `NAMESPACE/NAME`, the read's id.
    pub fn id(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

/// What an `absent:` check wants gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Absentee {
    Workload(WorkloadCheck),
    /// A ConfigMap `NAMESPACE/NAME`.
    ConfigMap {
        namespace: String,
        name: String,
    },
}

/// `absent: {workload: {...} | configMap: {namespace, name}, says?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbsentCheck {
    pub what: Absentee,
    /// Why it must be gone, in the evidence when it is there (`two service datapaths`).
    pub says: Option<String>,
}

/// The namespaces no namespace-wide check judges (SPEC §15): the system ones and those whose
/// pods need privileges by design (the CNI's, Ceph's OSDs). A check's `exempt:` adds to them.
pub const BUILTIN_EXEMPT: [&str; 5] = [
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "rook-ceph",
    "cilium-secrets",
];

/// Whether `namespace` is outside a namespace-wide check: built-in, or in its `exempt:`.
pub fn is_exempt(namespace: &str, added: &[String]) -> bool {
    BUILTIN_EXEMPT.contains(&namespace) || added.iter().any(|n| n == namespace)
}

/// `defaultDenyIngress: {exempt?}`: every namespace outside the exemptions has a policy that
/// denies ingress by default — a NetworkPolicy selecting every pod (empty `podSelector`)
/// with `Ingress` among its effective `policyTypes` and no ingress rule, or a
/// CiliumNetworkPolicy with an empty `endpointSelector` and an ingress section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultDenyCheck {
    /// Namespaces not judged beyond [`BUILTIN_EXEMPT`].
    pub exempt: Vec<String>,
    /// NetworkPolicies and CiliumNetworkPolicies, every namespace.
    pub policies: [Objects; 2],
}

impl DefaultDenyCheck {
    pub fn new(exempt: Vec<String>) -> DefaultDenyCheck {
        let objects = |resource: &str, kind: &str| Objects {
            resource: resource.to_string(),
            kind: Some(kind.to_string()),
            namespace: None,
            name: None,
        };
        DefaultDenyCheck {
            exempt,
            policies: [
                objects(NETWORK_POLICIES, "NetworkPolicy"),
                objects(CILIUM_NETWORK_POLICIES, "CiliumNetworkPolicy"),
            ],
        }
    }

    /// What is kept of each policy type: the members of the few paths that decide.
    pub fn uses(resource: &str) -> Vec<FieldUse> {
        let paths: &[&str] = if resource == NETWORK_POLICIES {
            &NP_PATHS
        } else {
            &CNP_PATHS
        };
        paths
            .iter()
            .filter_map(|p| FieldPath::parse(p).ok())
            .map(FieldUse::Members)
            .collect()
    }
}

/// The two policy types a [`DefaultDenyCheck`] reads.
pub const NETWORK_POLICIES: &str = "networkpolicies.networking.k8s.io";
pub const CILIUM_NETWORK_POLICIES: &str = "ciliumnetworkpolicies.cilium.io";

/// The paths of a NetworkPolicy a [`DefaultDenyCheck`] keeps (their members only).
pub const NP_PATHS: [&str; 4] = [
    ".spec.podSelector.matchLabels",
    ".spec.podSelector.matchExpressions",
    ".spec.policyTypes",
    ".spec.ingress",
];

/// The paths of a CiliumNetworkPolicy a [`DefaultDenyCheck`] keeps (their members only).
pub const CNP_PATHS: [&str; 5] = [
    ".spec.endpointSelector",
    ".spec.endpointSelector.matchLabels",
    ".spec.endpointSelector.matchExpressions",
    ".spec.ingress",
    ".spec.ingressDeny",
];
