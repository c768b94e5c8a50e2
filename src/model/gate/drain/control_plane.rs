//! The control plane under a drain of NODE: another Ready control-plane node, a majority of
//! etcd members without NODE, and the only control-plane node's warning (a drain leaves its
//! static pods running).

use crate::model::gate::check::{Check, Finding, Request};
use crate::model::gate::facts::{Facts, Node, Pod};

/// NODE's role: `Err` is the rule's answer when NODE cannot be judged; `Ok(None)` a worker;
/// `Ok(Some(others))` a control-plane node and the other control-plane nodes.
fn control_plane_peers<'a>(
    req: &Request,
    facts: &'a Facts,
) -> Result<Option<Vec<&'a Node>>, Check> {
    let Ok(nodes) = &facts.nodes else {
        return Err(Check::Unknown("nodes not read".into()));
    };
    let Some(name) = req.node.as_deref() else {
        return Err(Check::Unknown("no NODE was named".into()));
    };
    let Some(node) = nodes.iter().find(|n| n.name == name) else {
        return Err(Check::Unknown(format!("the cluster has no node {name}")));
    };
    if !node.is_control_plane() {
        return Ok(None);
    }
    Ok(Some(
        nodes
            .iter()
            .filter(|n| n.name != name && n.is_control_plane())
            .collect(),
    ))
}

/// A control-plane NODE of a cluster with several needs another Ready one, or the API goes
/// down with it. The only control-plane node is `drain-single-control-plane`'s warning.
pub(in crate::model::gate) fn control_plane(req: &Request, facts: &Facts) -> Check {
    let name = req.node.as_deref().unwrap_or_default();
    let others = match control_plane_peers(req, facts) {
        Err(c) => return c,
        Ok(None) => return Check::Holds(format!("{name} is not a control-plane node")),
        Ok(Some(o)) if o.is_empty() => {
            return Check::Holds(format!(
                "{name} is the only control-plane node: drain-single-control-plane says what that costs"
            ))
        }
        Ok(Some(o)) => o,
    };
    let ready: Vec<&str> = others
        .iter()
        .filter(|n| n.ready)
        .map(|n| n.name.as_str())
        .collect();
    if ready.is_empty() {
        let down: Vec<&str> = others.iter().map(|n| n.name.as_str()).collect();
        return Check::Fails(vec![Finding::new(
            format!("node {name}"),
            format!(
                "{name} is the only Ready control-plane node (not Ready: {}): the API server goes down with it",
                down.join(", ")
            ),
            "bring another control-plane node back to Ready first",
        )]);
    }
    Check::Holds(format!(
        "other Ready control-plane nodes: {}",
        ready.join(", ")
    ))
}

/// The only control-plane node: a drain leaves its static pods (API server, etcd) running,
/// and the API is unavailable only while the node restarts (as kubeadm's own upgrade of
/// such a node does): a warning, never a blocker.
pub(in crate::model::gate) fn single_control_plane(req: &Request, facts: &Facts) -> Check {
    let name = req.node.as_deref().unwrap_or_default();
    match control_plane_peers(req, facts) {
        Err(c) => c,
        Ok(None) => Check::Holds(format!("{name} is not a control-plane node")),
        Ok(Some(o)) if o.is_empty() => Check::Fails(vec![Finding::new(
            format!("node {name}"),
            format!("{name} is the cluster's only control-plane node: a drain leaves its static pods (kube-apiserver, etcd) running, but the API is unavailable while {name} restarts"),
            "restart it in a maintenance window, or add control-plane nodes first (kubeadm's highly available topology)",
        )]),
        Ok(Some(o)) => Check::Holds(format!(
            "{} other control-plane node(s): {}",
            o.len(),
            o.iter().map(|n| n.name.as_str()).collect::<Vec<_>>().join(", ")
        )),
    }
}

pub(in crate::model::gate) fn etcd_majority(req: &Request, facts: &Facts) -> Check {
    let Ok(etcd) = &facts.etcd_pods else {
        return Check::Unknown("etcd pods not read".into());
    };
    let Some(name) = req.node.as_deref() else {
        return Check::Unknown("no NODE was named".into());
    };
    if etcd.is_empty() {
        return no_etcd_pod(name, facts);
    }
    let members = etcd.len() as u32;
    if !etcd.iter().any(|p| p.node == name) {
        return Check::Holds(format!(
            "no etcd member runs on {name} ({members} mirror pods)"
        ));
    }
    // A drain leaves static pods running: on the only control-plane node its member stays
    // up through the drain (the restart is drain-single-control-plane's warning).
    if let Ok(Some(others)) = control_plane_peers(req, facts) {
        if others.is_empty() {
            return Check::Holds(format!(
                "{name} is the only control-plane node: a drain leaves its etcd member running"
            ));
        }
    }
    let majority = members / 2 + 1;
    let ready: Vec<&Pod> = etcd.iter().filter(|p| p.node != name && p.ready).collect();
    if (ready.len() as u32) < majority {
        let not_ready: Vec<String> = etcd
            .iter()
            .filter(|p| p.node != name && !p.ready)
            .map(|p| p.reference())
            .collect();
        return Check::Fails(vec![Finding::new(
            format!("etcd on {name}"),
            format!(
                "{members} etcd members: without {name} {} Ready, a majority needs {majority}{}",
                ready.len(),
                if not_ready.is_empty() {
                    String::new()
                } else {
                    format!(" (not Ready: {})", not_ready.join(", "))
                }
            ),
            format!(
                "bring the other etcd members back to Ready first, or the API stops with {name}"
            ),
        )]);
    }
    Check::Holds(format!(
        "without {name}: {} of {members} etcd members Ready (majority {majority})",
        ready.len()
    ))
}

/// No etcd mirror pod at all: a worker holds no stacked member, but for a control-plane
/// NODE finding none is no evidence (external etcd, or pods nestor's selector misses).
fn no_etcd_pod(name: &str, facts: &Facts) -> Check {
    let Ok(nodes) = &facts.nodes else {
        return Check::Unknown("nodes not read".into());
    };
    match nodes.iter().find(|n| n.name == name) {
        None => Check::Unknown(format!("the cluster has no node {name}")),
        Some(n) if !n.is_control_plane() => Check::Holds(format!(
            "no etcd member runs on {name}: it is not a control-plane node"
        )),
        Some(_) => Check::Unknown(
            "no etcd mirror pod found in kube-system (component=etcd): external etcd? nestor cannot tell the quorum".into(),
        ),
    }
}
