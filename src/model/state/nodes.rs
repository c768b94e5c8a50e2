//! `nodes:` checks: registered and Ready counts, InternalIPs distinct (bench #3, #4: every
//! VM announced its NAT address 10.0.2.15), no node with a taint (a Cilium agent that is not
//! ready taints its node `node.cilium.io/agent-not-ready`: pods there have no network).

use std::collections::BTreeMap;

use super::{capped, plural, CheckOutcome};
use crate::model::catalog::{Count, NodesCheck};
use crate::model::observation::{Node, Observation};

pub(super) fn nodes(obs: &Observation, check: &NodesCheck, declared: &[String]) -> CheckOutcome {
    let list = match &obs.nodes {
        Err(f) => return CheckOutcome::failed("nodes", f),
        Ok(list) => list,
    };
    let (count, want_ready) = match check {
        NodesCheck::Ready(c) => (*c, true),
        NodesCheck::Registered(c) => (*c, false),
        NodesCheck::DistinctInternalIps => return distinct_internal_ips(list),
        NodesCheck::WithoutTaint(key) => return without_taint(list, key),
    };
    let word = if want_ready { "Ready" } else { "registered" };
    match count {
        Count::AtLeast(n) => {
            let have = list.iter().filter(|node| !want_ready || node.ready).count();
            let text = format!("{} {word}", plural(have, "node"));
            if have >= n as usize {
                CheckOutcome::yes(text)
            } else {
                CheckOutcome::no(format!("{text} (want at least {n})"))
            }
        }
        Count::All => {
            let (targets, label): (Vec<&str>, &str) = if declared.is_empty() {
                (list.iter().map(|n| n.name.as_str()).collect(), "nodes")
            } else {
                (
                    declared.iter().map(String::as_str).collect(),
                    "declared nodes",
                )
            };
            if targets.is_empty() {
                return CheckOutcome::no("no node registered");
            }
            let mut problems = Vec::new();
            for name in &targets {
                match list.iter().find(|n| n.name == *name) {
                    None => problems.push(format!("{name} not registered")),
                    Some(n) if want_ready && !n.ready => problems.push(format!("{name} NotReady")),
                    Some(_) => {}
                }
            }
            let good = targets.len() - problems.len();
            let summary = format!("{good}/{} {label} {word}", targets.len());
            if problems.is_empty() {
                CheckOutcome::yes(summary)
            } else {
                CheckOutcome::no(format!("{summary}: {}", problems.join(", ")))
            }
        }
    }
}

/// No two nodes with the same InternalIP: each shared address names its nodes. A node
/// without an InternalIP is not judged here.
fn distinct_internal_ips(list: &[Node]) -> CheckOutcome {
    let mut by_ip: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for n in list {
        if let Some(ip) = n.internal_ip.as_deref() {
            by_ip.entry(ip).or_default().push(n.name.as_str());
        }
    }
    let shared: Vec<String> = by_ip
        .iter()
        .filter(|(_, names)| names.len() > 1)
        .map(|(ip, names)| format!("{} all announce {ip}", names.join(", ")))
        .collect();
    if shared.is_empty() {
        CheckOutcome::yes(format!(
            "{} with distinct InternalIPs",
            plural(by_ip.len(), "node")
        ))
    } else {
        CheckOutcome::no(format!("InternalIP shared: {}", capped(shared)))
    }
}

fn without_taint(list: &[Node], key: &str) -> CheckOutcome {
    let tainted: Vec<String> = list
        .iter()
        .filter(|n| n.taints.iter().any(|t| t == key))
        .map(|n| n.name.clone())
        .collect();
    if tainted.is_empty() {
        CheckOutcome::yes(format!("no node tainted {key}"))
    } else {
        CheckOutcome::no(format!("tainted {key}: {}", capped(tainted)))
    }
}
