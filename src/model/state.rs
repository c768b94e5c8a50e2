//! One state per layer, with evidence: present, degraded, absent or unknown (SPEC §6).
//!
//! This is where "forbidden is not missing" is enforced: every check yields true, false or
//! unknown, a failed read always gives unknown, and only a layer whose detect checks all
//! evaluated false is absent. Pure: it reads an [`Observation`], never the cluster.
//!
//! Files under `state/`: `judge.rs` (the `Judge` trait, reached through `match_kind!`) and one
//! file per kind family (`workloads.rs` with `rollout.rs`, `objects.rs`, `all.rs`, `pods.rs`,
//! `nodes.rs`, `namespaces.rs`, `configmaps.rs`, `agents.rs`, `versions.rs`, `apiservices.rs`,
//! `webhooks.rs`, `claims.rs`, `placement.rs`, `gateway.rs`, `coverage.rs`); `checks.rs`, each
//! evaluated check kept by its id; `truth.rs`, the rules every check shares; `why.rs` and
//! `events.rs`, the second read round and its evidence; `explain.rs` (`explain/by_hand.rs`: the
//! `ShowByHand` trait); `hosts.rs` (`hosts/outcomes.rs`), a host-level layer's state;
//! `no_cluster.rs`, a lima bench without a cluster.

mod agents;
mod all;
mod apiservices;
#[cfg(test)]
mod argo_operation_tests;
mod checks;
mod claims;
#[cfg(test)]
mod cnpg_backup_tests;
mod configmaps;
mod coverage;
pub mod events;
pub mod explain;
mod gateway;
pub mod hosts;
pub(crate) mod judge;
mod namespaces;
mod no_cluster;
mod nodes;
mod objects;
mod placement;
mod pods;
mod rollout;
mod truth;
mod versions;
pub mod webhooks;
pub mod why;
pub mod workloads;

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::catalog::{Catalog, Check, Layer};
use crate::model::observation::{ObjectRef, Observation, ReadFailure};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Some detect check true, every health check true.
    Present,
    /// Some detect check true, a health check false: repair, never reinstall.
    Degraded,
    /// Every detect check evaluated false: install.
    Absent,
    /// A needed read failed or the layer is not observable: never install.
    Unknown,
}

impl State {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            State::Present => "present",
            State::Degraded => "degraded",
            State::Absent => "absent",
            State::Unknown => "unknown",
        }
    }
}

/// The state of one layer and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LayerReport {
    pub id: String,
    pub title: String,
    pub state: State,
    /// What was found or missing, one line per check (duplicates removed).
    pub evidence: Vec<String>,
    /// The evidence that decided the state: the false health checks of a degraded layer,
    /// the failed reads of an unknown one, the detect checks of an absent one.
    pub reason: String,
    /// Host-level layers (SPEC §13): what each host of the group showed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<hosts::HostEvidence>,
    /// Every evaluated check by its id (`LAYER/NAME`), with its verdict and evidence, and
    /// whether an acknowledgement of the topology covers it.
    pub checks: Vec<CheckReport>,
    /// `--explain` only (SPEC §16): each evidence line with the read-only command that shows
    /// the same thing by hand. Empty (and left out of documents) otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub explain: Vec<EvidenceCommand>,
}

/// One evidence line and the command a person runs to see it by hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct EvidenceCommand {
    pub evidence: String,
    pub command: String,
}

/// The value of one check (the same three values as a host check's).
pub use checks::CheckReport;
pub use hosts::Verdict;
pub use no_cluster::without_cluster;

/// A node the stack declares (and, on a Lima bench, the hostname it may register under).
pub use nodes::DeclaredNode;

/// Whether a check is used to detect a layer or to judge its health. Only workloads differ:
/// detect means "exists", healthy means "ready".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Detect,
    Healthy,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct CheckOutcome {
    pub verdict: Verdict,
    pub evidence: String,
    /// What a true detect check saw that is not healthy (an object being deleted, a
    /// namespace Terminating): the layer exists, and is degraded by these (SPEC §6 v0.3).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flaws: Vec<String>,
    /// What a false check found, item by item, when it itemizes (Ceph's health codes not on
    /// the benign list): what an acknowledgement's `detail:` must be the only one of.
    #[serde(skip)]
    pub findings: Vec<String>,
    /// The objects a false check found failing (kind, namespace, name): what its Warning
    /// Events are about (SPEC §6 v0.4 "Warnings explain"). Never part of the verdict.
    #[serde(skip)]
    pub objects: Vec<ObjectRef>,
}

impl CheckOutcome {
    fn yes(evidence: impl Into<String>) -> Self {
        CheckOutcome {
            verdict: Verdict::True,
            evidence: evidence.into(),
            flaws: Vec::new(),
            findings: Vec::new(),
            objects: Vec::new(),
        }
    }
    fn no(evidence: impl Into<String>) -> Self {
        CheckOutcome {
            verdict: Verdict::False,
            evidence: evidence.into(),
            flaws: Vec::new(),
            findings: Vec::new(),
            objects: Vec::new(),
        }
    }
    fn unknown(evidence: impl Into<String>) -> Self {
        CheckOutcome {
            verdict: Verdict::Unknown,
            evidence: evidence.into(),
            flaws: Vec::new(),
            findings: Vec::new(),
            objects: Vec::new(),
        }
    }
    /// A failed read; an answer that was not the object asked for says what came back.
    fn failed(what: &str, failure: &ReadFailure) -> Self {
        // What came back, or the budget it would have crossed: said whole.
        if failure
            .message
            .starts_with(crate::model::observation::answer::NOT_ASKED)
            || failure.message.starts_with(crate::pool::OVER_BUDGET)
        {
            return CheckOutcome::unknown(format!("read of {what} failed: {failure}"));
        }
        CheckOutcome::unknown(format!("read of {what} failed: {}", failure.kind))
    }
    /// With the findings it itemizes.
    fn with_findings(mut self, findings: Vec<String>) -> Self {
        self.findings = findings;
        self
    }
    /// With the failing objects it names (their Warning Events may explain it).
    fn with_objects(mut self, objects: Vec<ObjectRef>) -> Self {
        self.objects = objects;
        self
    }
    /// True, with what makes the thing found unhealthy.
    fn with_flaws(mut self, flaws: Vec<String>) -> Self {
        self.flaws = flaws;
        self
    }
}

pub(crate) const NOT_OBSERVABLE: &str = "not observable through Kubernetes";

/// Evaluate the given layers, in the given order. `declared_nodes` are the node names of the
/// stack (what `nodes: {ready: all}` means); empty means "every registered node".
pub fn evaluate(
    catalog: &Catalog,
    layer_ids: &[String],
    declared_nodes: &[DeclaredNode],
    obs: &Observation,
) -> Vec<LayerReport> {
    layer_ids
        .iter()
        .map(|id| match catalog.get(id) {
            Some(layer) => {
                let mut r = evaluate_layer(layer, declared_nodes, obs);
                // Decided without them: the Warning Events only say why.
                events::attach(&mut r, obs);
                r
            }
            None => {
                let why = format!("layer `{id}` is not in the catalog");
                LayerReport {
                    id: id.clone(),
                    title: id.clone(),
                    state: State::Unknown,
                    evidence: vec![why.clone()],
                    reason: why,
                    hosts: Vec::new(),
                    checks: Vec::new(),
                    explain: Vec::new(),
                }
            }
        })
        .collect()
}

/// Evaluate one layer of the catalog.
pub(crate) fn evaluate_layer(
    layer: &Layer,
    declared_nodes: &[DeclaredNode],
    obs: &Observation,
) -> LayerReport {
    let report = |state, evidence: Vec<String>, reason: String| LayerReport {
        id: layer.id.clone(),
        title: layer.title.clone(),
        state,
        evidence: dedup(evidence),
        reason,
        hosts: Vec::new(),
        checks: Vec::new(),
        explain: Vec::new(),
    };
    if let Some(spec) = &layer.host {
        return hosts::report(layer, spec, &obs.hosts);
    }
    if !layer.observable {
        return report(
            State::Unknown,
            vec![NOT_OBSERVABLE.to_string()],
            NOT_OBSERVABLE.to_string(),
        );
    }
    let named = layer.named_checks();
    let run = |healthy: bool, phase| -> Vec<(String, CheckOutcome)> {
        named
            .iter()
            .filter(|(_, h, _)| *h == healthy)
            .map(|(id, _, c)| (id.clone(), evaluate_check(c, phase, declared_nodes, obs)))
            .collect()
    };
    let with_checks = |mut r: LayerReport, ran: &[(String, CheckOutcome)]| {
        r.checks = ran.iter().map(|(id, o)| CheckReport::of(id, o)).collect();
        r
    };
    let detect_ran = run(false, Phase::Detect);
    let detect: Vec<CheckOutcome> = detect_ran.iter().map(|(_, o)| o.clone()).collect();
    let all = |o: &[CheckOutcome]| o.iter().map(|o| o.evidence.clone()).collect::<Vec<_>>();
    if !detect.iter().any(|o| o.verdict == Verdict::True) {
        let evidence = all(&detect);
        let r = if detect.iter().any(|o| o.verdict == Verdict::Unknown) {
            report(State::Unknown, evidence, joined(&detect, Verdict::Unknown))
        } else {
            let reason = evidence.join("; ");
            report(State::Absent, evidence, reason)
        };
        return with_checks(r, &detect_ran);
    }
    let mut ran = detect_ran.clone();
    ran.extend(run(true, Phase::Healthy));
    // What detection found but is not healthy (being deleted) degrades the layer, never
    // hides it: the layer exists. Each flaw is a finding of the detect check that saw it.
    ran.extend(
        detect_ran
            .iter()
            .filter(|(_, o)| o.verdict == Verdict::True)
            .flat_map(|(id, o)| o.flaws.iter().map(|f| (id.clone(), CheckOutcome::no(f)))),
    );
    let healthy: Vec<CheckOutcome> = ran[detect_ran.len()..]
        .iter()
        .map(|(_, o)| o.clone())
        .collect();
    let mut evidence: Vec<String> = detect
        .iter()
        .filter(|o| o.verdict == Verdict::True)
        .map(|o| o.evidence.clone())
        .collect();
    evidence.extend(all(&healthy));
    let r = if healthy.iter().any(|o| o.verdict == Verdict::False) {
        report(State::Degraded, evidence, joined(&healthy, Verdict::False))
    } else if healthy.iter().any(|o| o.verdict == Verdict::Unknown) {
        report(State::Unknown, evidence, joined(&healthy, Verdict::Unknown))
    } else {
        report(State::Present, evidence, "detected and healthy".to_string())
    };
    with_checks(r, &ran)
}

fn joined(outcomes: &[CheckOutcome], verdict: Verdict) -> String {
    dedup(
        outcomes
            .iter()
            .filter(|o| o.verdict == verdict)
            .map(|o| o.evidence.clone())
            .collect(),
    )
    .join("; ")
}

fn dedup(lines: Vec<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    lines
        .into_iter()
        .filter(|l| seen.insert(l.clone()))
        .collect()
}

/// Evaluate one check against the observation.
pub(crate) fn evaluate_check(
    check: &Check,
    phase: Phase,
    declared_nodes: &[DeclaredNode],
    obs: &Observation,
) -> CheckOutcome {
    // A group an unavailable APIService serves is not "absent": its checks are unknown.
    if let Some(unknown) = apiservices::gate(check, obs) {
        return unknown;
    }
    let cx = judge::Judging {
        obs,
        phase,
        declared_nodes,
    };
    crate::model::catalog::match_kind!(&check.kind, |c| judge::Judge::judge(c, &cx))
}

/// At most this many objects are named in one line of evidence; the rest are counted.
pub(crate) const MAX_NAMED: usize = 5;

/// Lines joined with `; `, the first [`MAX_NAMED`] of them, then `and N more`.
fn capped(lines: Vec<String>) -> String {
    let n = lines.len();
    let mut shown: Vec<String> = lines.into_iter().take(MAX_NAMED).collect();
    if n > MAX_NAMED {
        shown.push(format!("and {} more", n - MAX_NAMED));
    }
    shown.join("; ")
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod agents_tests;
#[cfg(test)]
mod apiservices_tests;
#[cfg(test)]
mod argo_tests;
#[cfg(test)]
mod claims_tests;
#[cfg(test)]
mod coverage_tests;
#[cfg(test)]
mod drift_tests;
/// Observations shared by the state and plan tests, built from the kubectl fixtures.
#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod nodes_tests;
#[cfg(test)]
mod objects_events_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod truth_tests;
#[cfg(test)]
mod versions_tests;
