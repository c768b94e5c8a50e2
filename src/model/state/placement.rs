//! `distinctNodes` (SPEC §6 v0.4): the pods of a namespace's label selector run on at least
//! `atLeast` distinct nodes once the cluster has that many nodes (Rook's mons and OSDs:
//! `failureDomain: host` is otherwise a promise the placement does not keep). The number of
//! nodes is the nodes the run reads anyway (needed only when the spread is too narrow: a
//! failed nodes read leaves that case unknown, and a wide enough spread holds). A pod not scheduled yet (no `spec.nodeName`) is
//! named, never counted (a mon Pending is the mons check's business); a finished one
//! (Succeeded, Failed: evicted) runs nowhere and is left out. Either read failed: unknown.

use std::collections::BTreeMap;

use crate::model::catalog::{DistinctNodesCheck, MAX_PLACED_PODS};
use crate::model::observation::{Observation, PlacedPod};

use super::{plural, CheckOutcome, MAX_NAMED};

/// At most this many daemons are named on one node; the rest are counted.
const DAEMONS_NAMED: usize = 8;

pub(crate) fn distinct_nodes(obs: &Observation, d: &DistinctNodesCheck) -> CheckOutcome {
    let what = format!("pods of {} with {}", d.namespace, d.selector);
    let pods = match obs.placements.get(&d.key()) {
        None => return CheckOutcome::unknown(format!("{what} were not read")),
        Some(Err(f)) if f.message.contains("metadata.continue") => {
            return CheckOutcome::unknown(format!(
                "read of {what} failed: more than {MAX_PLACED_PODS} pods (the read's limit): their placement is not judged on a part of them"
            ))
        }
        Some(Err(f)) => return CheckOutcome::failed(&what, f),
        Some(Ok(pods)) => pods,
    };
    let daemon = |p: &PlacedPod| {
        d.daemon_label
            .as_ref()
            .and_then(|l| p.labels.get(l))
            .cloned()
            .unwrap_or_else(|| p.name.clone())
    };
    let mut on: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut waiting: Vec<String> = Vec::new();
    for p in pods.iter().filter(|p| !p.is_finished()) {
        if p.node.is_empty() {
            let id = daemon(p);
            waiting.push(if id == p.name {
                id
            } else {
                format!("{} ({id})", p.name)
            });
        } else {
            on.entry(&p.node).or_default().push(daemon(p));
        }
    }
    let distinct = on.len();
    let want = d.at_least as usize;
    // The cluster's size matters only to a spread too narrow: a wide enough one holds
    // whatever the nodes read said.
    let nodes = match &obs.nodes {
        Ok(list) => Some(list.len()),
        Err(_) if distinct >= want => None,
        Err(f) => return CheckOutcome::failed("nodes", f),
    };
    let of = nodes.map_or(" (the nodes were not read)".to_string(), |n| {
        format!(" of {n}")
    });
    let mut line = format!("{} on {}{of}", d.noun(), plural(distinct, "distinct node"));
    if on.is_empty() {
        line.push_str(&format!(" (none of the {what} runs on a node)"));
    } else {
        line.push_str(": ");
        line.push_str(&placement(&on));
    }
    if !waiting.is_empty() {
        line.push_str(&format!(
            "; not scheduled yet (not counted): {}",
            names(waiting)
        ));
    }
    if distinct >= want {
        return CheckOutcome::yes(line);
    }
    if let Some(n) = nodes.filter(|n| *n < want) {
        return CheckOutcome::yes(format!(
            "{line}; the cluster has {}, fewer than {want}: the spread over {want} is not asked",
            plural(n, "node")
        ));
    }
    match &d.says {
        Some(says) => CheckOutcome::no(format!("{line}: {says}")),
        None => CheckOutcome::no(format!("{line} (want at least {want})")),
    }
}

/// `dirqual1 (a, b), dirqual2 (c)`: the first [`MAX_NAMED`] nodes, each with its first
/// [`DAEMONS_NAMED`] daemons, the rest counted.
fn placement(on: &BTreeMap<&str, Vec<String>>) -> String {
    let mut shown: Vec<String> = on
        .iter()
        .take(MAX_NAMED)
        .map(|(node, daemons)| format!("{node} ({})", capped(daemons, DAEMONS_NAMED)))
        .collect();
    if on.len() > MAX_NAMED {
        shown.push(format!("and {} more nodes", on.len() - MAX_NAMED));
    }
    shown.join(", ")
}

fn capped(items: &[String], max: usize) -> String {
    let mut shown: Vec<&str> = items.iter().take(max).map(String::as_str).collect();
    let more = items.len().saturating_sub(max);
    let tail = format!("+{more}");
    if more > 0 {
        shown.push(&tail);
    }
    shown.join(", ")
}

fn names(items: Vec<String>) -> String {
    let n = items.len();
    let mut shown: Vec<String> = items.into_iter().take(MAX_NAMED).collect();
    if n > MAX_NAMED {
        shown.push(format!("and {} more", n - MAX_NAMED));
    }
    shown.join(", ")
}

#[cfg(test)]
#[path = "placement_tests.rs"]
mod tests;
