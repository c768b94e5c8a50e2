//! The `StackList` (`stack list`) and `Stack` (`stack show`) documents.
//! Filled by `cmd::stack`; serde field names are the nestor/v1 contract.

use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StackList {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) stacks_dir: String,
    pub(crate) active: Option<String>,
    pub(crate) stacks: Vec<StackRow>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StackRow {
    pub(crate) name: String,
    pub(crate) file: String,
    pub(crate) target_kind: Option<&'static str>,
    pub(crate) kubeconfig: Option<String>,
    pub(crate) active: bool,
    pub(crate) error: Option<String>,
    /// Isolation findings: a lima stack that would read a prod cluster, prod stacks
    /// sharing an endpoint.
    pub(crate) warnings: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StackDoc {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) name: String,
    pub(crate) file: String,
    pub(crate) target_kind: &'static str,
    pub(crate) kubeconfig: Option<String>,
    pub(crate) kubeconfig_path: Option<String>,
    pub(crate) endpoint: Option<String>,
    pub(crate) inventory: String,
    pub(crate) control_group: Option<String>,
    pub(crate) admin_conf: String,
    pub(crate) nodes: Vec<NodeRow>,
    pub(crate) layers: Vec<String>,
    pub(crate) catalog: Option<String>,
    pub(crate) instance_prefix: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct NodeRow {
    pub(crate) name: String,
    pub(crate) role: &'static str,
}

/// `stack current`: the stack a command run here would use, and why.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StackCurrent {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    /// The stack's name.
    pub(crate) name: String,
    pub(crate) file: String,
    pub(crate) target_kind: &'static str,
    /// What chose it: `flag` (--stack), `env` (NESTOR_STACK), `active` (stacks/current.yaml).
    pub(crate) source: &'static str,
    pub(crate) stacks_dir: String,
    /// The stack `stacks/current.yaml` points at (null when none), whichever chose this one.
    pub(crate) active: Option<String>,
}
