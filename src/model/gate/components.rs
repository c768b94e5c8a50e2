//! The rules of `gate upgrade cilium|rook VERSION` (SPEC §17): one minor at a time, one
//! version across the component's workloads now, for Rook a Ceph that is not HEALTH_ERR, and
//! the stack's layers after the component's present.

use std::collections::BTreeSet;

use super::check::{each_ceph, Check, Finding, Request};
use super::facts::{Facts, LayerState};
use super::version::Version;

/// The step from `current` to `target`: same minor or the next, never backwards.
fn step(what: &str, current: Version, target: Version) -> Check {
    let (cm, tm) = (current.minor(), target.minor());
    if target < current {
        return Check::Fails(vec![Finding::new(
            what,
            format!("{what} runs {current}; {target} is older"),
            "name a version at or after the running one",
        )]);
    }
    if tm != cm && tm != cm.next() {
        return Check::Fails(vec![Finding::new(
            what,
            format!(
                "{what} runs {current}; {target} skips {} (one minor at a time)",
                cm.next()
            ),
            format!("upgrade to {} first", cm.next()),
        )]);
    }
    Check::Holds(format!("{current} -> {target}: one minor at most"))
}

/// The agent's and the operator's images and their versions.
fn cilium_versions(facts: &Facts) -> Result<Vec<(String, Version)>, Check> {
    let Ok(images) = &facts.cilium_images else {
        return Err(Check::Unknown("Cilium images not read".into()));
    };
    let ours: Vec<_> = images
        .iter()
        .filter(|i| i.container == "cilium-agent" || i.container == "cilium-operator")
        .collect();
    if ours.is_empty() {
        return Err(Check::Fails(vec![Finding::new(
            "cilium",
            "no cilium-agent or cilium-operator container in kube-system: Cilium is not installed",
            "install Cilium first (kubectl nestor preview says how)",
        )]));
    }
    ours.iter()
        .map(|i| {
            Version::of_image(&i.image)
                .map(|v| (format!("{} ({})", i.workload, i.container), v))
                .ok_or_else(|| {
                    Check::Unknown(format!(
                        "{}: image `{}` carries no version tag",
                        i.workload,
                        crate::term::escape(&i.image)
                    ))
                })
        })
        .collect()
}

pub(super) fn cilium_one_minor(req: &Request, facts: &Facts) -> Check {
    let Some(t) = req.version else {
        return Check::Unknown("no VERSION was named".into());
    };
    match cilium_versions(facts) {
        Ok(v) => match v.iter().map(|(_, v)| *v).max() {
            Some(current) => step("cilium", current, t),
            None => Check::Unknown("no Cilium version".into()),
        },
        Err(c) => c,
    }
}

fn one_version(what: &str, each: &[(String, Version)], clears: &str) -> Check {
    let distinct: BTreeSet<Version> = each.iter().map(|(_, v)| *v).collect();
    if distinct.len() > 1 {
        return Check::Fails(vec![Finding::new(
            what,
            format!(
                "{} versions run now: {}",
                distinct.len(),
                each.iter()
                    .map(|(w, v)| format!("{w} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            clears,
        )]);
    }
    Check::Holds(format!("{} workloads on one version", each.len()))
}

pub(super) fn cilium_one_version(facts: &Facts) -> Check {
    match cilium_versions(facts) {
        Ok(v) => one_version(
            "cilium",
            &v,
            "finish the rollout in progress: agent and operator on one version first",
        ),
        Err(c) => c,
    }
}

fn rook_labels(facts: &Facts) -> Result<Vec<(String, Version)>, Check> {
    let Ok(labels) = &facts.rook_versions else {
        return Err(Check::Unknown("rook-version labels not read".into()));
    };
    let mut out = Vec::new();
    for l in labels {
        let Some(text) = &l.rook_version else {
            continue;
        };
        let v = Version::parse(text).ok_or_else(|| {
            Check::Unknown(format!(
                "Deployment {}: rook-version `{}` does not parse",
                l.deployment,
                crate::term::escape(text)
            ))
        })?;
        let how = if l.from_image { " (image)" } else { "" };
        out.push((format!("Deployment {}{how}", l.deployment), v));
    }
    if out.is_empty() {
        return Err(Check::Unknown(
            "no Deployment in rook-ceph carries a rook-version label, and no operator was read"
                .into(),
        ));
    }
    Ok(out)
}

pub(super) fn rook_one_minor(req: &Request, facts: &Facts) -> Check {
    let Some(t) = req.version else {
        return Check::Unknown("no VERSION was named".into());
    };
    match rook_labels(facts) {
        Ok(v) => match v.iter().map(|(_, v)| *v).max() {
            Some(current) => step("rook", current, t),
            None => Check::Unknown("no Rook version".into()),
        },
        Err(c) => c,
    }
}

pub(super) fn rook_one_version(facts: &Facts) -> Check {
    match rook_labels(facts) {
        Ok(v) => one_version("rook", &v, "wait until every Rook Deployment shows one rook-version (the last upgrade is still rolling)"),
        Err(c) => c,
    }
}

pub(super) fn ceph_not_error(facts: &Facts) -> Check {
    each_ceph(facts, |c| match c.health.as_str() {
        "" => Check::Unknown(format!(
            "CephCluster {}/{}: Rook has not written status.ceph.health",
            c.namespace, c.name
        )),
        "HEALTH_ERR" => Check::Fails(vec![Finding::new(
            format!("CephCluster {}/{}", c.namespace, c.name),
            format!(
                "HEALTH_ERR: {}",
                c.checks
                    .iter()
                    .map(|k| format!("{}: {}", k.name, k.message))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            "clear the HEALTH_ERR checks first: Rook does not upgrade Ceph in HEALTH_ERR",
        )]),
        health => Check::Holds(format!("CephCluster {}/{}: {health}", c.namespace, c.name)),
    })
}

/// A workload's pods, ready as its controller counts them, or the finding that says not.
fn ready(workload: &str, (ready, desired): (i64, i64), clears: &str) -> Option<Finding> {
    (desired == 0 || ready < desired)
        .then(|| Finding::new(workload, format!("{ready} of {desired} pods ready"), clears))
}

pub(super) fn cilium_present(facts: &Facts) -> Check {
    let Ok(images) = &facts.cilium_images else {
        return Check::Unknown("Cilium images not read".into());
    };
    let mut findings = Vec::new();
    let mut holds = Vec::new();
    for (w, short) in [
        ("DaemonSet kube-system/cilium", "agent"),
        ("Deployment kube-system/cilium-operator", "operator"),
    ] {
        match images.iter().find(|i| i.workload == w) {
            None => findings.push(Finding::new(
                w,
                format!("no {w}: Cilium is not installed"),
                "install Cilium first (kubectl nestor preview says how)",
            )),
            Some(i) => match ready(
                w,
                i.pods,
                "let Cilium's rollout finish first (kubectl nestor preview shows the cni layer)",
            ) {
                Some(f) => findings.push(f),
                None => holds.push(format!("{short} {}/{}", i.pods.0, i.pods.1)),
            },
        }
    }
    if findings.is_empty() {
        Check::Holds(format!("{} pods ready", holds.join(", ")))
    } else {
        Check::Fails(findings)
    }
}

pub(super) fn rook_present(facts: &Facts) -> Check {
    let Ok(labels) = &facts.rook_versions else {
        return Check::Unknown("rook-version labels not read".into());
    };
    let w = "Deployment rook-ceph/rook-ceph-operator";
    match labels.iter().find(|l| l.from_image) {
        None => Check::Fails(vec![Finding::new(
            w,
            format!("no {w}: Rook is not installed"),
            "install Rook first (kubectl nestor preview says how)",
        )]),
        Some(op) => match ready(w, op.pods, "let the Rook operator's rollout finish first") {
            Some(f) => Check::Fails(vec![f]),
            None => Check::Holds(format!("operator {}/{} pods ready", op.pods.0, op.pods.1)),
        },
    }
}

/// `cilium|rook-layers-after-present`: every layer the stack declares after the component's
/// is present; an absent or degraded one is a blocker with preview's evidence — an
/// acknowledged degraded layer too, the acknowledgement shown beside it (SPEC §6: an
/// acknowledgement never opens a gate); an unknown one leaves the rule undecided (a failed
/// read is never "present").
pub(super) fn layers_after_present(facts: &Facts) -> Check {
    let Ok(l) = &facts.layers_after else {
        return Check::Unknown("the layers after the component's were not judged".into());
    };
    let mut findings = Vec::new();
    let mut unknown = Vec::new();
    for a in &l.after {
        let clears = match a.state {
            LayerState::Present => continue,
            LayerState::Degraded if a.acknowledged => format!(
                "repair {} first: its findings are acknowledged for preview, but an acknowledgement never opens a gate",
                a.id
            ),
            LayerState::Unknown => {
                unknown.push(format!("{}: {}", a.id, a.reason));
                continue;
            }
            LayerState::Degraded => format!(
                "repair {} first (kubectl nestor preview shows what it lacks), then upgrade",
                a.id
            ),
            LayerState::Absent => format!(
                "install {} first (kubectl nestor preview's plan), or remove it from the stack's layers:",
                a.id
            ),
        };
        let acknowledged = if a.acknowledged {
            " (acknowledged)"
        } else {
            ""
        };
        findings.push(Finding::new(
            format!("layer {}", a.id),
            format!("{}{acknowledged}: {}", a.state.as_str(), a.reason),
            clears,
        ));
    }
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    if !unknown.is_empty() {
        return Check::Unknown(format!("unknown: {}", unknown.join("; ")));
    }
    let mut note = match l.after.len() {
        0 => format!("no layer after {} in the stack", l.layer),
        n => format!(
            "{n} layers after {} present: {}",
            l.layer,
            l.after
                .iter()
                .map(|a| a.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    if !l.not_judged.is_empty() {
        note.push_str(&format!(
            "; host-level, not judged (preview reads them over ssh): {}",
            l.not_judged.join(", ")
        ));
    }
    Check::Holds(note)
}
