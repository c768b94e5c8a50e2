//! The upgrade rules read from the table's per-release rows: node prerequisites (the
//! containerd minimum, cgroup v2) and each platform component's supported range.

use super::target;
use crate::model::gate::check::{Check, Finding, Request};
use crate::model::gate::facts::Facts;
use crate::model::gate::table::{Component, Table};
use crate::model::gate::version::Version;

pub(in crate::model::gate) fn node_containerd(
    req: &Request,
    facts: &Facts,
    table: &Table,
) -> Check {
    let t = match target(req) {
        Ok(t) => t.minor(),
        Err(c) => return c,
    };
    let Ok(nodes) = &facts.nodes else {
        return Check::Unknown("nodes not read".into());
    };
    let need = table
        .node_prerequisites
        .iter()
        .filter(|p| p.minor <= t)
        .filter_map(|p| {
            p.containerd_at_least
                .as_deref()
                .and_then(Version::parse)
                .map(|v| (v, p))
        })
        .max_by_key(|(v, _)| *v);
    let Some((min, row)) = need else {
        return Check::Holds(format!("the table sets no containerd minimum up to {t}"));
    };
    let mut findings = Vec::new();
    for n in nodes {
        let rt = &n.container_runtime_version;
        let Some(v) = rt.strip_prefix("containerd://").and_then(Version::parse) else {
            if rt.starts_with("containerd://") || rt.is_empty() {
                return Check::Unknown(format!(
                    "node {}: runtime `{}` does not parse",
                    n.name,
                    crate::term::escape(rt)
                ));
            }
            continue;
        };
        if v < min {
            findings.push(Finding::new(
                format!("node {}", n.name),
                format!(
                    "containerd {v}; {t} needs {min} or later ({})",
                    row.source.title
                ),
                format!("upgrade containerd to {min} or later first"),
            ));
        }
    }
    if findings.is_empty() {
        Check::Holds(format!("every containerd node runs {min} or later"))
    } else {
        Check::Fails(findings)
    }
}

pub(in crate::model::gate) fn node_cgroup_v2(req: &Request, facts: &Facts, table: &Table) -> Check {
    let t = match target(req) {
        Ok(t) => t.minor(),
        Err(c) => return c,
    };
    let Some(row) = table.cgroup_v2_row(t) else {
        return Check::Holds(format!("the table needs no cgroup v2 up to {t}"));
    };
    let (Ok(hosts), Ok(nodes)) = (&facts.host_cgroup, &facts.nodes) else {
        return Check::Unknown("cgroups or nodes not read".into());
    };
    // Every node's kubelet moves to VERSION: a node not read is undecided, never v2.
    if let Some(n) = nodes.iter().find(|n| !hosts.contains_key(&n.name)) {
        return Check::Unknown(format!("node {}: its cgroups were not read", n.name));
    }
    let findings: Vec<Finding> = hosts
        .iter()
        .filter(|(_, r)| matches!(r, Ok(false)))
        .map(|(h, _)| {
            Finding::new(
                format!("node {h}"),
                format!("no /sys/fs/cgroup/cgroup.controllers: cgroup v1; from {} the kubelet refuses it ({})", row.minor, row.source.title),
                "boot the host with the unified cgroup hierarchy (systemd.unified_cgroup_hierarchy=1) first",
            )
        })
        .collect();
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    if let Some((h, Err(f))) = hosts.iter().find(|(_, r)| r.is_err()) {
        return Check::Unknown(format!("node {h}: {f}"));
    }
    Check::Holds(format!(
        "{} nodes on cgroup v2 ({} needs it)",
        hosts.len(),
        row.minor
    ))
}

pub(in crate::model::gate) fn platform_ranges(
    req: &Request,
    facts: &Facts,
    table: &Table,
) -> Check {
    let t = match target(req) {
        Ok(t) => t.minor(),
        Err(c) => return c,
    };
    if facts.components.is_empty() {
        return Check::Unknown("no component version was read".into());
    }
    let mut findings = Vec::new();
    let mut holds = Vec::new();
    // What cannot be told for one component never hides another's definite finding.
    let mut undecided = Vec::new();
    for (component, read) in &facts.components {
        let v = match read {
            Ok(Some(v)) => *v,
            Ok(None) => continue,
            Err(f) => {
                undecided.push(format!("{}: {f}", component.as_str()));
                continue;
            }
        };
        let Some(row) = table
            .platform_ranges
            .iter()
            .find(|r| r.component == *component && r.release == v.minor())
        else {
            undecided.push(format!(
                "{} {}: the table holds no verified Kubernetes range for this release",
                component.as_str(),
                v.minor()
            ));
            continue;
        };
        let (lo, hi) = row.kubernetes;
        if t < lo || t > hi {
            findings.push(Finding::new(
                format!("{} {v}", component.as_str()),
                format!(
                    "supports Kubernetes {lo} to {hi}, not {t} ({})",
                    row.source.title
                ),
                format!(
                    "upgrade {} to a release that supports {t} first",
                    component.as_str()
                ),
            ));
        } else {
            holds.push(format!("{} {}", component.as_str(), v.minor()));
        }
    }
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    if !undecided.is_empty() {
        return Check::Unknown(undecided.join("; "));
    }
    {
        let unread: Vec<&str> = [
            Component::Cilium,
            Component::Rook,
            Component::CertManager,
            Component::Cnpg,
            Component::ArgoCd,
        ]
        .into_iter()
        .filter(|c| !facts.components.contains_key(c))
        .map(Component::as_str)
        .collect();
        Check::Holds(format!(
            "{t}: {}{}",
            if holds.is_empty() {
                "no installed component".into()
            } else {
                holds.join(", ")
            },
            if unread.is_empty() {
                String::new()
            } else {
                format!(" ({} unread)", unread.join(", "))
            }
        ))
    }
}
