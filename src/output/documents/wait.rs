//! The `Wait` document of `wait`: the condition, whether it was reached, each layer.
//! Filled by `cmd::wait`; serde field names are the nestor/v1 contract.

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::snapshot::TargetRef;
use crate::model::state::LayerReport;

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WaitDoc {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) stack: String,
    /// `healthy` or `present`.
    pub(crate) condition: &'static str,
    pub(crate) reached: bool,
    pub(crate) elapsed_ms: u64,
    pub(crate) polls: u64,
    pub(crate) target: Option<TargetRef>,
    pub(crate) layers: Vec<LayerDoc>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LayerDoc {
    pub(crate) reached: bool,
    #[serde(flatten)]
    pub(crate) report: LayerReport,
}
