//! Each evaluated check of a layer by its stable id `LAYER/NAME` (SPEC §6 v0.4): what
//! `-o json` lists under a layer's `checks`, what an acknowledgement names, and where an
//! applied acknowledgement is marked. Pure data.

use schemars::JsonSchema;
use serde::Serialize;

use super::{CheckOutcome, Verdict};

/// One check of a layer as it was evaluated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CheckReport {
    /// `LAYER/NAME`: the catalog's `name:` for the check, or `detect-N`/`healthy-N`.
    pub id: String,
    /// `true` holds, `false` fails, `unknown` could not be decided.
    pub verdict: Verdict,
    /// The evidence line of this check (as in the layer's `evidence`).
    pub evidence: String,
    /// The findings a detail of an acknowledgement is compared with (Ceph's health codes
    /// not on the benign list); empty when the check itemizes none.
    #[serde(skip)]
    pub findings: Vec<String>,
    /// A failing check of a degraded layer an acknowledgement of the topology covers: the
    /// layer keeps its state, the plan lists it under "acknowledged".
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub acknowledged: bool,
    /// The acknowledgement's `until:` (YYYY-MM-DD), when acknowledged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// The acknowledgement's `reason:`, when acknowledged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl CheckReport {
    pub(super) fn of(id: &str, outcome: &CheckOutcome) -> CheckReport {
        CheckReport {
            id: id.to_string(),
            verdict: outcome.verdict,
            evidence: outcome.evidence.clone(),
            findings: outcome.findings.clone(),
            acknowledged: false,
            until: None,
            reason: None,
        }
    }

    /// `acknowledged until DATE: REASON`, the words printed beside its evidence.
    pub fn acknowledgement(&self) -> Option<String> {
        match (self.acknowledged, &self.until, &self.reason) {
            (true, Some(until), Some(reason)) => {
                Some(format!("acknowledged until {until}: {reason}"))
            }
            _ => None,
        }
    }
}
