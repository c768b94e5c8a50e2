//! `podFlags`: every control-plane node's kube-apiserver runs with the named flags. Read
//! from the static pods the API serves (kube-system, `component=kube-apiserver`), whose
//! command line the read reduced to flag names.

use crate::model::catalog::PodFlagsCheck;
use crate::model::observation::{Observation, APISERVER_NAMESPACE, APISERVER_SELECTOR};

use super::{capped, CheckOutcome, Phase};

/// Node roles that mark a control plane (`node-role.kubernetes.io/<role>`).
const CONTROL_PLANE_ROLES: [&str; 2] = ["control-plane", "master"];

pub(crate) fn pod_flags(obs: &Observation, phase: Phase, check: &PodFlagsCheck) -> CheckOutcome {
    let pods = match &obs.apiserver_pods {
        Err(f) => return CheckOutcome::failed("kube-apiserver pods", f),
        Ok(p) => p,
    };
    let selector = format!("{APISERVER_NAMESPACE}, {APISERVER_SELECTOR}");
    if pods.is_empty() {
        return CheckOutcome::no(format!("no kube-apiserver pod ({selector})"));
    }
    if phase == Phase::Detect {
        let s = if pods.len() == 1 { "" } else { "s" };
        return CheckOutcome::yes(format!("{} kube-apiserver pod{s} ({selector})", pods.len()));
    }
    let nodes = match &obs.nodes {
        Err(f) => return CheckOutcome::failed("nodes", f),
        Ok(n) => n,
    };
    let mut planes: Vec<&str> = nodes
        .iter()
        .filter(|n| {
            n.roles
                .iter()
                .any(|r| CONTROL_PLANE_ROLES.contains(&r.as_str()))
        })
        .map(|n| n.name.as_str())
        .collect();
    if planes.is_empty() {
        // No node carries a control-plane role label: judge every apiserver pod seen.
        planes = pods.iter().map(|p| p.node.as_str()).collect();
    }
    planes.sort_unstable();
    planes.dedup();
    let mut bad = Vec::new();
    for node in &planes {
        let on_node: Vec<_> = pods.iter().filter(|p| p.node == *node).collect();
        if on_node.is_empty() {
            bad.push(format!("{node}: no kube-apiserver pod"));
            continue;
        }
        for p in on_node {
            let missing: Vec<&str> = check
                .flags
                .iter()
                .filter(|f| !p.flags.contains(*f))
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                bad.push(format!(
                    "{node}: {} runs without {}",
                    p.name,
                    missing.join(", ")
                ));
            }
        }
    }
    let flags = check.flags.join(", ");
    let summary = format!(
        "{}/{} control planes' kube-apiserver with {flags}",
        planes.len() - bad.len().min(planes.len()),
        planes.len()
    );
    if bad.is_empty() {
        CheckOutcome::yes(summary)
    } else {
        CheckOutcome::no(format!("{summary}; {}", capped(bad)))
    }
}
