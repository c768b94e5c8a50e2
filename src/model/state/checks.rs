//! Each evaluated check of a layer by its stable id `LAYER/NAME` (SPEC §6 v0.4): what
//! `-o json` lists under a layer's `checks`, what an acknowledgement names, and where an
//! applied acknowledgement is marked. Pure data.

use schemars::JsonSchema;
use serde::Serialize;

use super::{CheckOutcome, Verdict};
use crate::model::observation::ObjectRef;

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
    /// The failing objects a false check names: what its Warning Events are about.
    #[serde(skip)]
    #[schemars(skip)]
    pub objects: Vec<ObjectRef>,
    /// A degraded layer's failing check: up to three recent Warning Events about its failing
    /// objects (SPEC §6 v0.4 "Warnings explain"), newest first. Never a state change.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventQuote>,
    /// Why Events about its failing objects could not be quoted (`events not read in NS:
    /// Forbidden`); never a state change.
    #[serde(rename = "eventsNotRead", skip_serializing_if = "Vec::is_empty")]
    pub events_not_read: Vec<String>,
}

/// One Warning Event quoted beside a failing check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventQuote {
    /// The object it is about, `Kind namespace/name` (escaped, capped).
    pub object: String,
    /// Its `reason` (escaped, capped).
    pub reason: String,
    /// How often it was seen (`series.count`, else `deprecatedCount`, else 1).
    pub count: u64,
    /// Its `note` (escaped, capped at 200 characters after escaping).
    pub message: String,
    /// When it was last seen (RFC 3339).
    pub last_seen: String,
    /// The namespace it was read in (for `--explain`'s command).
    #[serde(skip)]
    #[schemars(skip)]
    pub namespace: String,
    /// How long before the reading that was (`12m`), for the text.
    #[serde(skip)]
    #[schemars(skip)]
    pub ago: String,
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
            objects: outcome.objects.clone(),
            events: Vec::new(),
            events_not_read: Vec::new(),
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
