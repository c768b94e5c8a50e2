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
    /// The commit it was built from (12 hex digits), or `unknown` (a build without `.git`).
    pub(crate) commit: &'static str,
    /// The platform it runs on, `OS/ARCH` as Rust names them (`macos/aarch64`, `linux/x86_64`).
    pub(crate) platform: String,
}
