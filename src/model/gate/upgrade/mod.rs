//! The rules of `gate upgrade kubernetes VERSION` (SPEC §17): kubeadm's one minor at a
//! time, the version skew policy, a ready control plane, the APIs VERSION removes, CRDs
//! whose stored versions are no longer served, node prerequisites and each platform
//! component's supported range — the per-release facts from the table's rows.

use std::collections::BTreeSet;

use super::facts::{Facts, Pod};
use super::table::Table;
use super::verdict::{Check, Finding, Request};
use super::version::{Minor, Version};

mod certs;
mod platform;
pub(super) use certs::{certs_expired, certs_expiring};
pub(super) use platform::{node_cgroup_v2, node_containerd, platform_ranges};

pub(in crate::model::gate) fn target(req: &Request) -> Result<Version, Check> {
    req.version
        .ok_or_else(|| Check::Unknown("no VERSION was named".into()))
}

/// Each kube-apiserver pod and the version its image carries.
pub(in crate::model::gate) fn apiserver_versions(
    pods: &[Pod],
) -> Result<Vec<(&Pod, Version)>, Check> {
    if pods.is_empty() {
        return Err(Check::Unknown(
            "no kube-system kube-apiserver mirror pod: nestor cannot see the control plane's version".into(),
        ));
    }
    pods.iter()
        .map(|p| {
            p.images
                .iter()
                .find_map(|i| Version::of_image(i))
                .map(|v| (p, v))
                .ok_or_else(|| {
                    Check::Unknown(format!(
                        "pod {}: its image carries no version tag",
                        p.reference()
                    ))
                })
        })
        .collect()
}

pub(super) fn one_minor(req: &Request, facts: &Facts) -> Check {
    let t = match target(req) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let Ok(pods) = &facts.apiserver_pods else {
        return Check::Unknown("apiserver pods not read".into());
    };
    let versions = match apiserver_versions(pods) {
        Ok(v) => v,
        Err(c) => return c,
    };
    let Some(current) = versions.iter().map(|(_, v)| *v).max() else {
        return Check::Unknown("no apiserver version".into());
    };
    let (cm, tm) = (current.minor(), t.minor());
    if t < current {
        return Check::Fails(vec![Finding::new(
            "control plane",
            format!("the API server runs {current}; {t} is older (kubeadm does not downgrade)"),
            "name a version at or after the control plane's",
        )]);
    }
    if tm != cm && tm != cm.next() {
        return Check::Fails(vec![Finding::new(
            "control plane",
            format!("the API server runs {current}; {t} skips {} (kubeadm upgrades one minor at a time)", cm.next()),
            format!("upgrade to {} first", cm.next()),
        )]);
    }
    Check::Holds(format!("{current} -> {t}: one minor at most"))
}

pub(super) fn apiservers_one_version(facts: &Facts) -> Check {
    let Ok(pods) = &facts.apiserver_pods else {
        return Check::Unknown("apiserver pods not read".into());
    };
    let versions = match apiserver_versions(pods) {
        Ok(v) => v,
        Err(c) => return c,
    };
    let distinct: BTreeSet<Version> = versions.iter().map(|(_, v)| *v).collect();
    if distinct.len() > 1 {
        let each = versions
            .iter()
            .map(|(p, v)| format!("{} on {}: {v}", p.name, p.node))
            .collect::<Vec<_>>()
            .join(", ");
        return Check::Fails(vec![Finding::new(
            "kube-apiserver",
            format!("the API servers run {} versions: {each}", distinct.len()),
            "finish the upgrade in progress: every control-plane node on one version first",
        )]);
    }
    Check::Holds(format!(
        "{} kube-apiserver pods, one version",
        versions.len()
    ))
}

pub(super) fn kubelet_skew(req: &Request, facts: &Facts) -> Check {
    let t = match target(req) {
        Ok(t) => t.minor(),
        Err(c) => return c,
    };
    let Ok(nodes) = &facts.nodes else {
        return Check::Unknown("nodes not read".into());
    };
    let mut findings = Vec::new();
    for n in nodes {
        let Some(v) = Version::parse(&n.kubelet_version) else {
            return Check::Unknown(format!(
                "node {}: kubelet version `{}` does not parse",
                n.name,
                crate::term::escape(&n.kubelet_version)
            ));
        };
        if v.minor().behind(t) > 3 {
            findings.push(Finding::new(
                format!("node {}", n.name),
                format!("kubelet {v} would be more than three minors older than {t}"),
                format!(
                    "upgrade its kubelet to {} or later first",
                    Minor {
                        major: t.major,
                        minor: t.minor.saturating_sub(3)
                    }
                ),
            ));
        } else if v.minor() > t {
            findings.push(Finding::new(
                format!("node {}", n.name),
                format!("kubelet {v} is newer than the API server would be ({t})"),
                "a kubelet must not be newer than kube-apiserver: upgrade to its version instead",
            ));
        }
    }
    if findings.is_empty() {
        Check::Holds(format!("{} kubelets within the skew of {t}", nodes.len()))
    } else {
        Check::Fails(findings)
    }
}

pub(super) fn control_plane_ready(facts: &Facts) -> Check {
    let Ok(nodes) = &facts.nodes else {
        return Check::Unknown("nodes not read".into());
    };
    let cp: Vec<_> = nodes.iter().filter(|n| n.is_control_plane()).collect();
    if cp.is_empty() {
        return Check::Unknown("no node has a control-plane role label".into());
    }
    let findings: Vec<Finding> = cp
        .iter()
        .filter(|n| !n.ready)
        .map(|n| {
            Finding::new(
                format!("node {}", n.name),
                "control-plane node not Ready",
                "bring it back to Ready before upgrading",
            )
        })
        .collect();
    if findings.is_empty() {
        Check::Holds(format!("{} control-plane nodes Ready", cp.len()))
    } else {
        Check::Fails(findings)
    }
}

pub(super) fn readyz(facts: &Facts) -> Check {
    let Ok(checks) = &facts.readyz else {
        return Check::Unknown("readyz not read".into());
    };
    let findings: Vec<Finding> = checks
        .iter()
        .filter(|c| !c.ok)
        .map(|c| {
            Finding::new(
                "kube-apiserver /readyz",
                format!("[-]{} failed", c.name),
                "fix what the check names (kubectl get --raw '/readyz?verbose') before upgrading",
            )
        })
        .collect();
    if findings.is_empty() {
        Check::Holds(format!("{} readyz checks pass", checks.len()))
    } else {
        Check::Fails(findings)
    }
}

pub(super) fn removed_apis(req: &Request, facts: &Facts, table: &Table) -> Check {
    let t = match target(req) {
        Ok(t) => t.minor(),
        Err(c) => return c,
    };
    let Ok(crds) = &facts.crds else {
        return Check::Unknown("CRDs not read".into());
    };
    let mut findings = Vec::new();
    let mut checked = 0;
    for row in table.removed_apis.iter().filter(|r| r.minor == t) {
        for resource in &row.resources {
            let key = format!("{}/{}/{resource}", row.group, row.version);
            checked += 1;
            match facts.removed_api_objects.get(&key) {
                None => return Check::Unknown(format!("{key} was not read")),
                Some(Err(f)) => return Check::Unknown(format!("{key}: {f}")),
                Some(Ok(None | Some(0))) => {}
                Some(Ok(Some(n))) => findings.push(Finding::new(
                    format!("{}/{} {resource}", row.group, row.version),
                    format!("still served, listing {n} objects; {t} stops serving it"),
                    format!("move every manifest and client off {}/{} (the objects stay readable in its successor)", row.group, row.version),
                )),
            }
        }
        for crd in crds.iter().filter(|c| c.group == row.group) {
            if crd.stored_versions.contains(&row.version) {
                findings.push(Finding::new(
                    format!("CustomResourceDefinition {}", crd.name),
                    format!("status.storedVersions lists {}, which {t} removes", row.version),
                    "migrate the stored objects to a served version, then drop it from storedVersions",
                ));
            }
        }
    }
    if findings.is_empty() {
        Check::Holds(format!("{checked} APIs {t} removes: none holds objects"))
    } else {
        Check::Fails(findings)
    }
}

pub(super) fn crd_unserved_stored(facts: &Facts) -> Check {
    let Ok(crds) = &facts.crds else {
        return Check::Unknown("CRDs not read".into());
    };
    let mut findings = Vec::new();
    for c in crds {
        for stored in &c.stored_versions {
            let served = c.versions.iter().any(|v| &v.name == stored && v.served);
            if !served {
                let storage = c
                    .versions
                    .iter()
                    .find(|v| v.storage)
                    .map_or("the storage version", |v| v.name.as_str());
                findings.push(Finding::new(
                    format!("CustomResourceDefinition {}", c.name),
                    format!("status.storedVersions lists {stored}, which it no longer serves"),
                    format!("rewrite its objects in {storage} (a storage version migration), then remove {stored} from status.storedVersions"),
                ));
            }
        }
    }
    if findings.is_empty() {
        Check::Holds(format!(
            "{} CRDs: every stored version is served",
            crds.len()
        ))
    } else {
        Check::Fails(findings)
    }
}

pub(super) fn pdb_zero(facts: &Facts) -> Check {
    let Ok(pdbs) = &facts.pdbs else {
        return Check::Unknown("budgets not read".into());
    };
    let findings: Vec<Finding> = pdbs
        .iter()
        .filter(|p| p.disruptions_allowed <= 0 && p.selector.is_some() && p.expected_pods > 0)
        .map(|p| {
            Finding::new(
                format!("PodDisruptionBudget {}/{}", p.namespace, p.name),
                format!(
                    "allows 0 disruptions (currentHealthy {}, desiredHealthy {}, expectedPods {}): the drain of its pods' nodes will stop on it",
                    p.current_healthy, p.desired_healthy, p.expected_pods
                ),
                "plan those nodes' drains (gate drain NODE says what clears each)",
            )
        })
        .collect();
    if findings.is_empty() {
        Check::Holds(format!("{} budgets: none at 0 disruptions", pdbs.len()))
    } else {
        Check::Fails(findings)
    }
}
