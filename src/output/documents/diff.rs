//! The `Diff` document of `diff`: two observations' sides and what changed between them.
//! Filled by `cmd::diff`; serde field names are the nestor/v1 contract.

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::diff::{LayerChange, NodesDiff};

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiffDoc {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) a: Side,
    pub(crate) b: Side,
    /// True when `--force` compared observations of different endpoints.
    pub(crate) endpoints_differ: bool,
    /// True when anything below is not empty.
    pub(crate) changed: bool,
    pub(crate) nodes: NodesDiff,
    pub(crate) layers: Vec<LayerChange>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Side {
    /// `snapshot` or `live`.
    pub(crate) source: &'static str,
    /// The snapshot file (`null` for a live read).
    pub(crate) file: Option<String>,
    /// When it was read, RFC 3339 UTC.
    pub(crate) taken_at: String,
    pub(crate) endpoint: String,
    pub(crate) context: String,
}
