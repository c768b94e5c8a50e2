//! `nodes:` checks: registered and Ready counts, InternalIPs distinct (bench #3, #4: every
//! VM announced its NAT address 10.0.2.15), no node with a taint (a Cilium agent that is not
//! ready taints its node `node.cilium.io/agent-not-ready`: pods there have no network).
//!
//! A declared node of a Lima bench may register under Lima's hostname (`lima-<instance>`,
//! SPEC §18) when the bench does not pass kubeadm `--node-name`: it matches either way, and
//! the evidence says which.
//!
//! A Ready node can still keep pods away (SPEC §6 v0.4): a pressure or `NetworkUnavailable`
//! condition True, a cordon, a `NoSchedule`/`NoExecute` taint nobody expects. The taints
//! Kubernetes derives from a condition or the cordon (`node.kubernetes.io/disk-pressure`,
//! `node.kubernetes.io/unschedulable`, ...) are that finding, not a second one; a taint
//! another check judges (`withoutTaint:`, cni's `node.cilium.io/agent-not-ready`) is that
//! check's.
//!
//! A false check names its failing nodes as objects (kind `Node`, no namespace, the first
//! [`MAX_NAMED`]): the Warning Events about them, in `default`, may say why.

use std::collections::BTreeMap;

use super::{capped, plural, CheckOutcome, MAX_NAMED};
use crate::model::catalog::{
    Count, NodesCheck, SchedulableCheck, CONTROL_PLANE_EFFECT, CONTROL_PLANE_KEY,
};
use crate::model::observation::{Node, ObjectRef, Observation};

/// A node the stack declares, and the other name it may register under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredNode {
    /// The topology's node name.
    pub name: String,
    /// A Lima stack's guest hostname, `lima-<instance>`: the node name kubeadm registers
    /// when the bench does not set `--node-name`. None on prod stacks.
    pub lima_hostname: Option<String>,
}

impl DeclaredNode {
    /// A node that registers under its own name only (prod stacks, or every registered node
    /// when none is declared).
    pub fn named(name: impl Into<String>) -> DeclaredNode {
        DeclaredNode {
            name: name.into(),
            lima_hostname: None,
        }
    }

    /// A Lima bench node `name` whose VM is the instance `instance`: Lima names the guest
    /// `lima-` + the instance name with dots and underscores made dashes, and the kubelet
    /// registers the hostname lowercased.
    pub fn lima(name: impl Into<String>, instance: &str) -> DeclaredNode {
        let host: String = instance
            .chars()
            .map(|c| match c {
                '.' | '_' => '-',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        DeclaredNode {
            name: name.into(),
            lima_hostname: Some(format!("lima-{host}")),
        }
    }
}

/// What a declared node matched among the registered ones.
enum Matched<'a> {
    Node(&'a Node),
    None,
    /// Its node satisfies another declaration already.
    Taken {
        node: &'a str,
        by: &'a str,
    },
}

/// Each declared node's registered node, one declaration per node: every declaration's own
/// name first, then Lima's hostname among the nodes no declaration took.
fn match_declared<'a>(declared: &'a [DeclaredNode], list: &'a [Node]) -> Vec<Matched<'a>> {
    let mut taken: BTreeMap<&str, &str> = BTreeMap::new();
    let mut out: Vec<Matched<'a>> = declared
        .iter()
        .map(|d| match list.iter().find(|n| n.name == d.name) {
            Some(n) => match taken.get(n.name.as_str()) {
                Some(by) => Matched::Taken { node: &n.name, by },
                None => {
                    taken.insert(&n.name, &d.name);
                    Matched::Node(n)
                }
            },
            None => Matched::None,
        })
        .collect();
    for (d, m) in declared.iter().zip(out.iter_mut()) {
        let Matched::None = m else { continue };
        let Some(host) = d.lima_hostname.as_deref() else {
            continue;
        };
        let Some(n) = list.iter().find(|n| n.name == host) else {
            continue;
        };
        *m = match taken.get(n.name.as_str()) {
            Some(by) => Matched::Taken { node: &n.name, by },
            None => {
                taken.insert(&n.name, &d.name);
                Matched::Node(n)
            }
        };
    }
    out
}

pub(super) fn nodes(
    obs: &Observation,
    check: &NodesCheck,
    declared: &[DeclaredNode],
) -> CheckOutcome {
    let list = match &obs.nodes {
        Err(f) => return CheckOutcome::failed("nodes", f),
        Ok(list) => list,
    };
    let (count, want_ready) = match check {
        NodesCheck::Ready(c) => (*c, true),
        NodesCheck::Registered(c) => (*c, false),
        NodesCheck::DistinctInternalIps => return distinct_internal_ips(list),
        NodesCheck::WithoutTaint(key) => return without_taint(list, key),
        NodesCheck::Schedulable(s) => return schedulable(list, s),
    };
    let word = if want_ready { "Ready" } else { "registered" };
    match count {
        Count::AtLeast(n) => {
            let have = list.iter().filter(|node| !want_ready || node.ready).count();
            let text = format!("{} {word}", plural(have, "node"));
            if have >= n as usize {
                CheckOutcome::yes(text)
            } else {
                let not_ready = list.iter().filter(|node| want_ready && !node.ready);
                CheckOutcome::no(format!("{text} (want at least {n})"))
                    .with_objects(node_refs(not_ready.map(|node| node.name.as_str())))
            }
        }
        Count::All => {
            let every: Vec<DeclaredNode>;
            let (targets, label): (&[DeclaredNode], &str) = if declared.is_empty() {
                every = list.iter().map(|n| DeclaredNode::named(&n.name)).collect();
                (&every, "nodes")
            } else {
                (declared, "declared nodes")
            };
            if targets.is_empty() {
                return CheckOutcome::no("no node registered");
            }
            let mut problems = Vec::new();
            let mut failing: Vec<&str> = Vec::new();
            let mut renamed = Vec::new();
            // A registered node satisfies one declared node (issue 49: `node1` and
            // `lima-node1` were both satisfied by one registered `lima-node1`): own names
            // first, then Lima's hostnames among the nodes left.
            let matched = match_declared(targets, list);
            for (d, m) in targets.iter().zip(&matched) {
                let n = match m {
                    Matched::Node(n) => *n,
                    Matched::None => {
                        problems.push(format!("{} not registered", d.name));
                        continue;
                    }
                    Matched::Taken { node, by } => {
                        problems.push(format!(
                            "{} not registered (node {node} is declared {by}'s)",
                            d.name
                        ));
                        continue;
                    }
                };
                if n.name != d.name {
                    renamed.push(format!("{} registered as {}", d.name, n.name));
                }
                if want_ready && !n.ready {
                    problems.push(format!("{} NotReady", d.name));
                    // Its Events are about the name it registered under.
                    failing.push(&n.name);
                }
            }
            let good = targets.len() - problems.len();
            let mut summary = format!("{good}/{} {label} {word}", targets.len());
            if !renamed.is_empty() {
                summary.push_str(&format!(" ({})", comma_capped(renamed)));
            }
            if problems.is_empty() {
                CheckOutcome::yes(summary)
            } else {
                CheckOutcome::no(format!("{summary}: {}", problems.join(", ")))
                    .with_objects(node_refs(failing.into_iter()))
            }
        }
    }
}

/// The failing nodes a false check names, the first [`MAX_NAMED`]: cluster-scoped objects.
fn node_refs<'a>(names: impl Iterator<Item = &'a str>) -> Vec<ObjectRef> {
    names
        .take(MAX_NAMED)
        .map(|name| ObjectRef::new("Node", "", name))
        .collect()
}

/// Names joined with `, `, the first [`MAX_NAMED`] of them, then `and N more`.
fn comma_capped(names: Vec<String>) -> String {
    let n = names.len();
    let mut shown: Vec<String> = names.into_iter().take(MAX_NAMED).collect();
    if n > MAX_NAMED {
        shown.push(format!("and {} more", n - MAX_NAMED));
    }
    shown.join(", ")
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
        let objects = node_refs(tainted.iter().map(String::as_str));
        CheckOutcome::no(format!("tainted {key}: {}", capped(tainted))).with_objects(objects)
    }
}

/// The taint the node lifecycle controller adds for each trouble condition (TaintNodesByCondition)
/// and for a cordon: reported through that condition or cordon, never twice.
const DERIVED_TAINTS: [(&str, &str); 5] = [
    ("node.kubernetes.io/memory-pressure", "MemoryPressure"),
    ("node.kubernetes.io/disk-pressure", "DiskPressure"),
    ("node.kubernetes.io/pid-pressure", "PIDPressure"),
    (
        "node.kubernetes.io/network-unavailable",
        "NetworkUnavailable",
    ),
    ("node.kubernetes.io/unschedulable", CORDONED),
];
const CORDONED: &str = "spec.unschedulable";

/// Every Ready node schedulable as expected; the others named with what keeps pods away.
fn schedulable(list: &[Node], check: &SchedulableCheck) -> CheckOutcome {
    let ready: Vec<&Node> = list.iter().filter(|n| n.ready).collect();
    let mut findings = Vec::new();
    let mut failing: Vec<&str> = Vec::new();
    for n in &ready {
        let found = node_findings(n, check);
        if !found.is_empty() {
            failing.push(&n.name);
        }
        findings.extend(found);
    }
    let bad = failing.len();
    let summary = format!(
        "{}/{} Ready nodes schedulable",
        ready.len() - bad,
        ready.len()
    );
    if findings.is_empty() {
        CheckOutcome::yes(format!(
            "{summary} (no pressure, cordon or unexpected taint)"
        ))
    } else {
        CheckOutcome::no(format!("{summary}: {}", capped(findings)))
            .with_objects(node_refs(failing.into_iter()))
    }
}

/// What keeps pods away from one Ready node, one line each.
fn node_findings(n: &Node, check: &SchedulableCheck) -> Vec<String> {
    let mut out = Vec::new();
    let mut reported: Vec<&str> = Vec::new();
    for c in &n.troubles {
        let mut line = format!("{} {}=True", n.name, c.type_);
        if !c.last_transition_time.is_empty() {
            line.push_str(&format!(" since {}", c.last_transition_time));
        }
        // Escaped and capped when decoded: joined as they are.
        let words: Vec<&str> = [c.reason.as_str(), c.message.as_str()]
            .into_iter()
            .filter(|w| !w.is_empty())
            .collect();
        if !words.is_empty() {
            line.push_str(&format!(" ({})", words.join(": ")));
        }
        out.push(line);
        reported.push(c.type_.as_str());
    }
    if n.unschedulable {
        out.push(format!("{} cordoned ({CORDONED})", n.name));
        reported.push(CORDONED);
    }
    let control_plane = n.roles.iter().any(|r| r == "control-plane");
    for t in &n.blocking_taints {
        let derived = DERIVED_TAINTS
            .iter()
            .any(|(key, by)| t.key == *key && reported.contains(by));
        let expected =
            (control_plane && t.key == CONTROL_PLANE_KEY && t.effect == CONTROL_PLANE_EFFECT)
                || check.expected.iter().any(|e| e.matches(&t.key, &t.effect))
                || check.judged_elsewhere.contains(&t.key);
        if !derived && !expected {
            out.push(format!("{} tainted {}:{}", n.name, t.key, t.effect));
        }
    }
    out
}
