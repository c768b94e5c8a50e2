//! The `Target` document of `target`: which cluster a stack means and why.
//! Filled by `cmd::target`; serde field names are the nestor/v1 contract.

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::observation::Node;
use crate::model::snapshot::TargetRef;

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetDoc {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) stack: Option<String>,
    pub(crate) target_kind: Option<&'static str>,
    /// The target in the shape every document shares.
    pub(crate) target: TargetRef,
    /// Deprecated: `target.rule`, `target.kubeconfig`, `target.context`, `target.endpoint`
    /// (kept within nestor/v1).
    pub(crate) rule: &'static str,
    pub(crate) kubeconfig: String,
    pub(crate) context: String,
    pub(crate) cluster: String,
    pub(crate) endpoint: String,
    pub(crate) expected_endpoint: Option<String>,
    pub(crate) endpoint_matches: Option<bool>,
    pub(crate) reachable: bool,
    pub(crate) nodes: Vec<Node>,
}
