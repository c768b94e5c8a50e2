//! The `PreviewList` document of `preview --all`: one item per stack, the totals, shared endpoints.
//! Filled by `cmd::fleet`; serde field names are the nestor/v1 contract.

use schemars::JsonSchema;
use serde::Serialize;

use crate::output::report::Preview;

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PreviewList {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) stacks_dir: String,
    pub(crate) items: Vec<Item>,
    pub(crate) total: Total,
    /// Prod stacks that declare the same `endpoint:`.
    pub(crate) shared_endpoints: Vec<SharedEndpoint>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Item {
    pub(crate) name: String,
    pub(crate) file: String,
    /// `null` when the topology does not load.
    pub(crate) target_kind: Option<&'static str>,
    /// The API server read, else the topology's `endpoint:` (`null` when neither is known).
    pub(crate) endpoint: Option<String>,
    /// `ok`, `work`, `undecided`, `refused`, `unreachable` or `error`.
    pub(crate) outcome: &'static str,
    /// What `kubectl nestor --stack NAME preview` would exit with (same flags).
    pub(crate) exit_code: u8,
    pub(crate) preview: Option<Preview>,
    pub(crate) error: Option<ErrorDoc>,
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct ErrorDoc {
    pub(crate) message: String,
    pub(crate) hint: String,
}

#[derive(Serialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Total {
    pub(crate) stacks: usize,
    pub(crate) ok: usize,
    pub(crate) work: usize,
    pub(crate) undecided: usize,
    pub(crate) refused: usize,
    pub(crate) unreachable: usize,
    pub(crate) error: usize,
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct SharedEndpoint {
    pub(crate) endpoint: String,
    pub(crate) stacks: Vec<String>,
}
