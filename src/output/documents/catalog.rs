//! The `Catalog` (`catalog list`) and `CatalogLayer` (`catalog show`) documents.
//! Filled by `cmd::catalog`; serde field names are the nestor/v1 contract.

use schemars::JsonSchema;
use serde::Serialize;

/// Where the catalog comes from.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Source {
    /// The stack whose catalog this is; `None` when no stack was found (built-in only).
    pub(crate) stack: Option<String>,
    /// The stack's `catalog:` file, when it has one.
    pub(crate) overrides: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CatalogDoc {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) source: Source,
    pub(crate) layers: Vec<LayerDoc>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CatalogLayerDoc {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) source: Source,
    #[serde(flatten)]
    pub(crate) layer: LayerDoc,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LayerDoc {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) after: Vec<String>,
    /// `false`: host-level, not visible through Kubernetes (always unknown).
    pub(crate) observable: bool,
    pub(crate) install: String,
    /// `file:line:column` of the layer's `id:`.
    pub(crate) defined_at: String,
    pub(crate) detect: Vec<CheckDoc>,
    pub(crate) healthy: Vec<CheckDoc>,
    /// Host-level checks, read over ssh on every host of an inventory group.
    pub(crate) host: Option<HostDoc>,
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct HostDoc {
    /// The inventory group whose hosts are read.
    pub(crate) group: String,
    /// The unit whose presence shows the layer installed on a host (else any checked unit).
    pub(crate) detect: Option<String>,
    pub(crate) checks: Vec<CheckDoc>,
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct CheckDoc {
    /// The check's stable id `LAYER/NAME` (what an acknowledgement names; a host check's
    /// too, `host-N` by its place when unnamed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
    /// The check kind, as the catalog key (`workload`, `tolerate`, ...).
    pub(crate) kind: &'static str,
    /// What it reads and accepts, in words.
    pub(crate) check: String,
    /// The operators' reason (`why:`), if the catalog gives one.
    pub(crate) why: Option<String>,
}
