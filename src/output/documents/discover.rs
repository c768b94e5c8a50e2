//! The `Discovery` document of `discover`: what the cluster shows, whatever the stack declares.
//! Filled by `cmd::discover`; serde field names are the nestor/v1 contract.

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::observation::{Node, StorageClass};
use crate::model::snapshot::TargetRef;
use crate::model::state::LayerReport;

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Discovery {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) target: TargetRef,
    /// Deprecated: `target.rule` (kept within nestor/v1).
    pub(crate) rule: &'static str,
    /// Each read that failed, as `what: reason` (a failed read is never "absent").
    pub(crate) failed_reads: Vec<String>,
    /// Custom resource types simply not installed (NotFound, their API group not served):
    /// read cleanly, not failed reads.
    pub(crate) not_installed: Vec<String>,
    pub(crate) nodes: Vec<Node>,
    pub(crate) namespaces: Vec<String>,
    pub(crate) storage_classes: Vec<StorageClass>,
    pub(crate) api_groups: Vec<String>,
    pub(crate) layers: Vec<LayerReport>,
}
