//! The one table of check-kind names (issue 30 item 2): each catalog key is spelled here
//! once, as a variant, and everything else derives from it — `CheckKind::key`, the list in
//! "a check needs one of …", the one-check-per-item test of a raw check. A new kind is a new
//! variant; the compiler then names every match that must learn it.

use strum::{IntoStaticStr, VariantArray};

use super::CheckKind;

/// A check kind's catalog key (`apiGroup`, `distinctNodes`, …), in the order the catalog
/// documentation lists them (and error messages name them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "camelCase")]
pub enum CheckKey {
    ApiGroup,
    Namespace,
    StorageClass,
    Workload,
    Resource,
    Condition,
    All,
    Count,
    Tolerate,
    PodFlags,
    Nodes,
    ConfigMap,
    NamespaceLabel,
    ConfigMapKey,
    Absent,
    Annotated,
    StartedAfter,
    DefaultDenyIngress,
    Every,
    Parents,
    CsiDriver,
    OneVersion,
    ApiServices,
    Webhooks,
    Claims,
    DistinctNodes,
}

impl CheckKey {
    /// The key as written in a catalog (`distinctNodes`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Every key, quoted and comma-separated, for "a check needs one of …".
    pub fn listed() -> String {
        CheckKey::VARIANTS
            .iter()
            .map(|k| format!("`{}`", k.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl CheckKind {
    /// Which kind this is, as its catalog key.
    pub fn check_key(&self) -> CheckKey {
        match self {
            CheckKind::ApiGroup(_) => CheckKey::ApiGroup,
            CheckKind::Namespace(_) => CheckKey::Namespace,
            CheckKind::StorageClass { .. } => CheckKey::StorageClass,
            CheckKind::Workload(_) => CheckKey::Workload,
            CheckKind::Resource(_) => CheckKey::Resource,
            CheckKind::Condition(_) => CheckKey::Condition,
            CheckKind::All(_) => CheckKey::All,
            CheckKind::Count(_) => CheckKey::Count,
            CheckKind::Tolerate(_) => CheckKey::Tolerate,
            CheckKind::PodFlags(_) => CheckKey::PodFlags,
            CheckKind::Nodes(_) => CheckKey::Nodes,
            CheckKind::ConfigMap(_) => CheckKey::ConfigMap,
            CheckKind::NamespaceLabel(_) => CheckKey::NamespaceLabel,
            CheckKind::DefaultDenyIngress(_) => CheckKey::DefaultDenyIngress,
            CheckKind::ConfigMapKey(_) => CheckKey::ConfigMapKey,
            CheckKind::Absent(_) => CheckKey::Absent,
            CheckKind::Annotated(_) => CheckKey::Annotated,
            CheckKind::StartedAfter(_) => CheckKey::StartedAfter,
            CheckKind::Every(_) => CheckKey::Every,
            CheckKind::Parents(_) => CheckKey::Parents,
            CheckKind::CsiDriver(_) => CheckKey::CsiDriver,
            CheckKind::OneVersion(_) => CheckKey::OneVersion,
            CheckKind::ApiServices(_) => CheckKey::ApiServices,
            CheckKind::Webhooks(_) => CheckKey::Webhooks,
            CheckKind::Claims(_) => CheckKey::Claims,
            CheckKind::DistinctNodes(_) => CheckKey::DistinctNodes,
        }
    }

    /// The catalog key of the check kind (`workload`, `tolerate`, ...).
    pub fn key(&self) -> &'static str {
        self.check_key().as_str()
    }
}
