//! The `Version` document of `version`.
//! Filled by `cmd::version`; serde field names are the nestor/v1 contract.

use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Version {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) version: &'static str,
}
