//! The rules of `gate upgrade kubernetes VERSION` (SPEC §17): kubeadm's one minor at a
//! time, the version skew policy, a ready control plane, the APIs VERSION removes, CRDs
//! whose stored versions are no longer served, node prerequisites and each platform
//! component's supported range — the per-release facts from the table's rows.

use std::collections::BTreeSet;

use super::check::{Check, Finding, Request};
use super::facts::{Facts, Pod};
use super::table::Table;
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

/// The control plane's version, when the kube-apiserver pods tell it (a bare `MAJOR.MINOR`
/// VERSION is judged against it before the gate answers).
pub fn control_plane_version(facts: &Facts) -> Option<Version> {
    current(facts).ok()
}

/// The control plane's version as kubeadm sees it: the newest kube-apiserver's (in the
/// middle of an HA upgrade the upgraded ones answer for the cluster).
fn current(facts: &Facts) -> Result<Version, Check> {
    let Ok(pods) = &facts.apiserver_pods else {
        return Err(Check::Unknown("apiserver pods not read".into()));
    };
    apiserver_versions(pods)?
        .iter()
        .map(|(_, v)| *v)
        .max()
        .ok_or_else(|| Check::Unknown("no apiserver version".into()))
}

/// kubeadm's version policy (`cmd/kubeadm/app/phases/upgrade/policy.go`,
/// `EnforceVersionPolicies`): at most one minor up, at most one minor down; a patch up or
/// down within the minor, or the same version, is allowed.
pub(super) fn one_minor(req: &Request, facts: &Facts) -> Check {
    let (t, current) = match (target(req), current(facts)) {
        (Ok(t), Ok(c)) => (t, c),
        (Err(c), _) | (_, Err(c)) => return c,
    };
    let (cm, tm) = (current.minor(), t.minor());
    if tm.major != cm.major || tm.minor > cm.minor.saturating_add(1) {
        return Check::Fails(vec![Finding::new(
            "control plane",
            format!("the API server runs {current}; {t} skips {} (kubeadm upgrades one minor at a time)", cm.next()),
            format!("upgrade to {} first", cm.next()),
        )]);
    }
    if tm.minor.saturating_add(1) < cm.minor {
        let one_down = Minor {
            major: cm.major,
            minor: cm.minor - 1,
        };
        return Check::Fails(vec![Finding::new(
            "control plane",
            format!("the API server runs {current}; {t} is more than one minor older (kubeadm downgrades one minor at a time)"),
            format!("downgrade to {one_down} first, if you must (upstream does not support downgrades)"),
        )]);
    }
    let step = match (tm.cmp(&cm), t.cmp(&current)) {
        (std::cmp::Ordering::Greater, _) => "one minor up",
        (std::cmp::Ordering::Less, _) => "one minor down (k8s-downgrade warns)",
        (std::cmp::Ordering::Equal, std::cmp::Ordering::Greater) => "a patch up",
        (std::cmp::Ordering::Equal, std::cmp::Ordering::Less) => {
            "a patch down, which kubeadm allows"
        }
        (std::cmp::Ordering::Equal, std::cmp::Ordering::Equal) => "the version it runs",
    };
    Check::Holds(format!("{current} -> {t}: {step}"))
}

/// kubeadm lets VERSION be one minor below the control plane's, but upstream does not
/// support a downgrade: a warning.
pub(super) fn downgrade(req: &Request, facts: &Facts) -> Check {
    let (t, current) = match (target(req), current(facts)) {
        (Ok(t), Ok(c)) => (t, c),
        (Err(c), _) | (_, Err(c)) => return c,
    };
    if t.minor() < current.minor() {
        return Check::Fails(vec![Finding::new(
            "control plane",
            format!("the API server runs {current}; {t} is a downgrade of one minor: kubeadm allows it, upstream does not support it (objects stored by the newer API server may not read back)"),
            "restore the control plane from an etcd snapshot taken before the upgrade instead, if you have one",
        )]);
    }
    Check::Holds(format!("{current} -> {t} is not a minor downgrade"))
}

/// The version skew policy for kube-apiservers: during the upgrade to VERSION every one is
/// within one minor of VERSION, and the newest and oldest within one minor of each other
/// (an HA upgrade half done is that); differing patches are named, never a blocker.
pub(super) fn apiservers_one_version(req: &Request, facts: &Facts) -> Check {
    let t = match target(req) {
        Ok(t) => t.minor(),
        Err(c) => return c,
    };
    let Ok(pods) = &facts.apiserver_pods else {
        return Check::Unknown("apiserver pods not read".into());
    };
    let versions = match apiserver_versions(pods) {
        Ok(v) => v,
        Err(c) => return c,
    };
    let each = || {
        versions
            .iter()
            .map(|(p, v)| format!("{} on {}: {v}", p.name, p.node))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let minors: BTreeSet<Minor> = versions.iter().map(|(_, v)| v.minor()).collect();
    let (Some(oldest), Some(newest)) = (minors.first(), minors.last()) else {
        return Check::Unknown("no apiserver version".into());
    };
    if oldest.behind(*newest) > 1 {
        return Check::Fails(vec![Finding::new(
            "kube-apiserver",
            format!(
                "the newest and oldest API servers are more than one minor apart: {}",
                each()
            ),
            "finish the upgrade in progress: every control-plane node within one minor first",
        )]);
    }
    // All on one minor: how far VERSION is from it is k8s-one-minor's to judge. Two
    // minors (an upgrade under way): each must be within one minor of VERSION.
    let off: Vec<String> = versions
        .iter()
        .filter(|_| minors.len() > 1)
        .filter(|(_, v)| v.minor().behind(t) > 1 || t.behind(v.minor()) > 1)
        .map(|(p, v)| format!("{} on {}: {v}", p.name, p.node))
        .collect();
    if !off.is_empty() {
        return Check::Fails(vec![Finding::new(
            "kube-apiserver",
            format!(
                "an upgrade is under way and {t} is more than one minor from {}",
                off.join(", ")
            ),
            format!("finish the upgrade in progress first, then go on to {t}"),
        )]);
    }
    let distinct: BTreeSet<Version> = versions.iter().map(|(_, v)| *v).collect();
    if distinct.len() > 1 {
        return Check::Holds(format!(
            "{} kube-apiserver pods within one minor of {t} and of each other ({})",
            versions.len(),
            each()
        ));
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
