//! The component gates' per-release rule (SPEC §17): the release `gate upgrade cilium|rook
//! VERSION` moves to must support the Kubernetes minor the control plane runs now, from the
//! table's `platformRanges` rows (each with its project's compatibility page). A release the
//! table has no verified row for is undecided (CANNOT TELL), never GO.

use super::facts::Facts;
use super::table::{Component, Table};
use super::upgrade::{apiserver_versions, target};
use super::verdict::{Check, Finding, Request};

pub(super) fn k8s_range(
    component: Component,
    req: &Request,
    facts: &Facts,
    table: &Table,
) -> Check {
    let t = match target(req) {
        Ok(t) => t.minor(),
        Err(c) => return c,
    };
    let name = component.as_str();
    let Some(row) = table
        .platform_ranges
        .iter()
        .find(|r| r.component == component && r.release == t)
    else {
        return Check::Unknown(format!(
            "{name} {t}: the table holds no verified Kubernetes range for this release (add its platformRanges row, with its source)"
        ));
    };
    let Ok(pods) = &facts.apiserver_pods else {
        return Check::Unknown("apiserver pods not read".into());
    };
    let versions = match apiserver_versions(pods) {
        Ok(v) => v,
        Err(c) => return c,
    };
    let (lo, hi) = row.kubernetes;
    let findings: Vec<Finding> = versions
        .iter()
        .filter(|(_, v)| v.minor() < lo || v.minor() > hi)
        .map(|(p, v)| {
            Finding::new(
                format!("pod {}", p.reference()),
                format!(
                    "{name} {t} supports Kubernetes {lo} to {hi}; this API server runs {v} ({})",
                    row.source.title
                ),
                format!(
                    "move Kubernetes into {lo}..{hi} first, or pick a {name} release that supports {}",
                    v.minor()
                ),
            )
        })
        .collect();
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    let runs: std::collections::BTreeSet<String> =
        versions.iter().map(|(_, v)| v.to_string()).collect();
    Check::Holds(format!(
        "{t} supports {lo} to {hi}; the control plane runs {}",
        runs.into_iter().collect::<Vec<_>>().join(", ")
    ))
}
