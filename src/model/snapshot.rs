//! Saved observations (`discover --save`, `preview --snapshot`): the same typed data the live
//! probes produce, with the target it was read from, so a replay can be checked against the
//! stack's declared endpoint and never silently stands in for another cluster.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::observation::Observation;
use crate::model::API_VERSION;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshot {
    pub api_version: String,
    pub kind: String,
    /// When it was read (RFC 3339, UTC).
    pub taken_at: String,
    pub target: SnapshotTarget,
    pub observation: Observation,
}

/// The cluster a document read, in the one shape every `nestor/v1` document uses:
/// `target: {rule, kubeconfig, context, endpoint, confirmedBy}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetRef {
    /// The rule that chose the kubeconfig: `flag`, `env`, `topology`, `lima-bench` or
    /// `snapshot` (empty in a snapshot written before the field existed).
    #[serde(default)]
    pub rule: String,
    pub kubeconfig: String,
    pub context: String,
    pub endpoint: String,
    /// How the target was confirmed: `prompt` (the operator said yes), `endpoint` (it is the
    /// topology's `endpoint:`), `bench` (a lima bench); `null` when nothing confirmed it (a
    /// bare `--kubeconfig`, or a stack without `endpoint:`).
    #[serde(default)]
    pub confirmed_by: Option<String>,
}

/// The target a snapshot was read from.
pub type SnapshotTarget = TargetRef;

impl Snapshot {
    pub fn new(target: SnapshotTarget, observation: Observation) -> Snapshot {
        Snapshot {
            api_version: API_VERSION.to_string(),
            kind: "Snapshot".to_string(),
            taken_at: crate::clock::now_rfc3339(),
            target,
            observation,
        }
    }

    pub fn load(path: &Path) -> Result<Snapshot> {
        let shown = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::input(
                format!("cannot read snapshot {shown}: {e}"),
                "pass a file written by `kubectl nestor discover --save FILE`",
            )
        })?;
        let snap: Snapshot = serde_json::from_str(&text).map_err(|e| {
            Error::input(
                format!(
                    "{shown}:{}:{}: not a nestor snapshot: {e}",
                    e.line(),
                    e.column()
                ),
                "pass a file written by `kubectl nestor discover --save FILE`",
            )
        })?;
        if snap.api_version != API_VERSION || snap.kind != "Snapshot" {
            return Err(Error::input(
                format!(
                    "{shown} is `{}` `{}`, not `{API_VERSION}` `Snapshot`",
                    snap.api_version, snap.kind
                ),
                "write it again with this version's `kubectl nestor discover --save FILE`",
            ));
        }
        Ok(snap)
    }

    /// Write atomically (temp file + rename), 0600 for a new file, kept mode otherwise.
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::internal(format!("cannot encode the snapshot: {e}")))?;
        json.push('\n');
        // 0600 even over an existing file of another mode: it holds what a cluster holds.
        crate::fs::write_private(path, json.as_bytes())
    }
}
