//! The component gates' per-release rule (SPEC §17): the release `gate upgrade cilium|rook
//! VERSION` moves to must support the Kubernetes minor the control plane runs now, from the
//! table's `platformRanges` rows (each with its project's compatibility page). A release the
//! table has no verified row for is undecided (CANNOT TELL), never GO. The same row holds
//! for every kubelet (`status.nodeInfo.kubeletVersion`): a node whose kubelet is outside the
//! target release's range is a blocker naming the node and both versions.

use super::check::{each_ceph, Check, Finding, Request};
use super::facts::Facts;
use super::table::{Component, PlatformRange, Table};
use super::upgrade::{apiserver_versions, target};
use super::version::{Minor, Version};

/// The target release's row, or why the rule cannot be decided.
fn target_row<'t>(
    component: Component,
    req: &Request,
    table: &'t Table,
) -> Result<(Minor, &'t PlatformRange), Check> {
    let t = target(req)?.minor();
    table
        .platform_ranges
        .iter()
        .find(|r| r.component == component && r.release == t)
        .map(|row| (t, row))
        .ok_or_else(|| {
            Check::Unknown(format!(
                "{} {t}: the table holds no verified Kubernetes range for this release (add its platformRanges row, with its source)",
                component.as_str()
            ))
        })
}

/// Every node's kubelet within the target release's Kubernetes range.
pub(super) fn kubelet_range(
    component: Component,
    req: &Request,
    facts: &Facts,
    table: &Table,
) -> Check {
    let (t, row) = match target_row(component, req, table) {
        Ok(r) => r,
        Err(c) => return c,
    };
    let Ok(nodes) = &facts.nodes else {
        return Check::Unknown("nodes not read".into());
    };
    if nodes.is_empty() {
        return Check::Unknown("the cluster lists no node: no kubelet to check".into());
    }
    let name = component.as_str();
    let (lo, hi) = row.kubernetes;
    let mut findings = Vec::new();
    for n in nodes {
        let Some(v) = Version::parse(&n.kubelet_version) else {
            return Check::Unknown(format!(
                "node {}: kubeletVersion `{}` is not a version",
                n.name,
                crate::term::escape_capped(&n.kubelet_version, 40)
            ));
        };
        if v.minor() < lo || v.minor() > hi {
            findings.push(Finding::new(
                format!("node {}", n.name),
                format!(
                    "{name} {t} supports Kubernetes {lo} to {hi}; the kubelet runs {v} ({})",
                    row.source.title
                ),
                format!(
                    "move the kubelet into {lo}..{hi} first, or pick a {name} release that supports {}",
                    v.minor()
                ),
            ));
        }
    }
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    let runs: std::collections::BTreeSet<String> =
        nodes.iter().map(|n| n.kubelet_version.clone()).collect();
    Check::Holds(format!(
        "{t} supports {lo} to {hi}; the {} kubelets run {}",
        nodes.len(),
        runs.into_iter().collect::<Vec<_>>().join(", ")
    ))
}

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

/// The Ceph the CephCluster runs now (`status.version.version`) is one the target Rook
/// release supports: its major listed in the release's `rookCephVersions` row, at or after
/// that major's lowest version.
pub(super) fn rook_ceph_version(req: &Request, facts: &Facts, table: &Table) -> Check {
    let t = match target(req) {
        Ok(t) => t.minor(),
        Err(c) => return c,
    };
    let Some(row) = table.rook_ceph_versions.iter().find(|r| r.release == t) else {
        return Check::Unknown(format!(
            "rook {t}: the table holds no verified Ceph versions for this release (add its rookCephVersions row, with its source)"
        ));
    };
    each_ceph(facts, |c| {
        let subject = format!("CephCluster {}/{}", c.namespace, c.name);
        if c.version.is_empty() {
            return Check::Unknown(format!(
                "{subject}: Rook has not written status.version.version"
            ));
        }
        let Some(v) = Version::parse(&c.version) else {
            return Check::Unknown(format!(
                "{subject}: status.version.version `{}` is not a version",
                crate::term::escape_capped(&c.version, 40)
            ));
        };
        let supported: Vec<Version> = row.ceph.iter().filter_map(|s| Version::parse(s)).collect();
        let list = supported
            .iter()
            .map(|s| format!("{s}+"))
            .collect::<Vec<_>>()
            .join(", ");
        if supported.iter().any(|s| s.major == v.major && v >= *s) {
            return Check::Holds(format!("Ceph {v}; rook {t} supports {list}"));
        }
        Check::Fails(vec![Finding::new(
            subject,
            format!(
                "rook {t} supports Ceph {list}; this cluster runs Ceph {v} ({})",
                row.source.title
            ),
            format!(
                "upgrade Ceph to one of {list} on the Rook running now first, then Rook to {t}"
            ),
        )])
    })
}
