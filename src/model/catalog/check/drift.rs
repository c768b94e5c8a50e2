//! The check kinds of SPEC §15 (configured is not working): a namespace label on every
//! namespace, a key of a named ConfigMap, and objects that must be gone.

use super::WorkloadCheck;

/// `namespaceLabel: {label, in, exempt, some}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceLabelCheck {
    /// The label key, `pod-security.kubernetes.io/enforce`.
    pub label: String,
    /// Accepted values; empty: any value.
    pub values: Vec<String>,
    /// Namespaces not judged (by name).
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
    /// Accepted values (compared as text).
    pub values: Vec<String>,
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
