//! The rules of `gate drain NODE` (SPEC §17): what a drain of NODE would break, from the
//! budgets, Ceph's status, the mons, the pools' OSD hosts (`osd`), the control plane, etcd's
//! members, the pods of NODE and their volumes, and the other nodes' room. DaemonSet pods
//! are ignored (a drain leaves them), as are mirror pods and finished ones.

use super::facts::{Facts, Pdb, Pod};
use super::table::Table;
use super::verdict::{Check, Finding, Request};

mod osd;
mod pods;
pub(super) use osd::osd_hosts;
pub(super) use pods::{capacity, emptydir, node_bound_volumes, unmanaged_pods};

/// The pods a drain of NODE evicts.
pub(in crate::model::gate) fn evicted(pods: &[Pod]) -> impl Iterator<Item = &Pod> {
    pods.iter()
        .filter(|p| !p.is_daemonset() && !p.is_mirror() && !p.is_finished())
}

fn status_words(p: &Pdb) -> String {
    format!(
        "disruptionsAllowed {} (currentHealthy {}, desiredHealthy {}, expectedPods {})",
        p.disruptions_allowed, p.current_healthy, p.desired_healthy, p.expected_pods
    )
}

/// The owner's reason for a budget at 0, and what clears it.
fn reason(p: &Pdb, pods: &[&Pod]) -> (String, String) {
    let cnpg = pods
        .iter()
        .find_map(|pod| pod.labels.get("cnpg.io/cluster"));
    if let (Some(cluster), true) = (cnpg, p.name.ends_with("-primary")) {
        return (
            format!("CloudNativePG's primary budget: the primary of cluster {cluster} runs here"),
            format!(
                "switch over first: `kubectl cnpg promote {cluster} <replica> -n {}`",
                p.namespace
            ),
        );
    }
    if p.name.starts_with("rook-ceph-osd") {
        return (
            "Rook's OSD budget: Ceph is not clean (Rook blocks the other failure domains while PGs recover)".into(),
            "wait for active+clean: Rook then restores its default rook-ceph-osd budget".into(),
        );
    }
    if p.name == "rook-ceph-mon-pdb" {
        return (
            "Rook's mon budget: a mon is already down".into(),
            "bring the down mon back into quorum first".into(),
        );
    }
    (
        "the budget allows no disruption now".into(),
        "wait until its pods are healthy beyond desiredHealthy, or scale the workload up".into(),
    )
}

pub(super) fn pdb_blocks(req: &Request, facts: &Facts) -> Check {
    let (Ok(pdbs), Ok(pods)) = (&facts.pdbs, &facts.node_pods) else {
        return Check::Unknown("budgets or pods not read".into());
    };
    let Some(node) = req.node.as_deref() else {
        return Check::Unknown("no NODE was named".into());
    };
    let here: Vec<&Pod> = evicted(pods).collect();
    let mut findings = Vec::new();
    for p in pdbs.iter().filter(|p| p.disruptions_allowed <= 0) {
        let Some(sel) = &p.selector else { continue };
        let selected: Vec<&Pod> = here
            .iter()
            .copied()
            .filter(|pod| pod.namespace == p.namespace && sel.matches(&pod.labels))
            .collect();
        if selected.is_empty() {
            continue;
        }
        let (why, clears) = reason(p, &selected);
        let names: Vec<String> = selected.iter().map(|s| s.name.clone()).collect();
        findings.push(Finding::new(
            format!("PodDisruptionBudget {}/{}", p.namespace, p.name),
            format!(
                "{why}; {}; selects {} on {node}",
                status_words(p),
                names.join(", ")
            ),
            clears,
        ));
    }
    if findings.is_empty() {
        Check::Holds(format!(
            "{} budgets: none at 0 disruptions selects a pod on {node}",
            pdbs.len()
        ))
    } else {
        Check::Fails(findings)
    }
}

pub(super) fn ceph_health(facts: &Facts, table: &Table) -> Check {
    let Ok(ceph) = &facts.ceph else {
        return Check::Unknown("CephCluster not read".into());
    };
    let Some(c) = ceph else {
        return Check::Holds("no CephCluster in the cluster".into());
    };
    let subject = format!("CephCluster {}/{}", c.namespace, c.name);
    if c.health.is_empty() {
        return Check::Unknown(format!(
            "{subject}: Rook has not written status.ceph.health"
        ));
    }
    let (Some(checked), Some(now)) = (c.last_checked, facts.observed_at) else {
        return Check::Unknown(format!(
            "{subject}: no status.ceph.lastChecked to judge its age"
        ));
    };
    let age = now.saturating_sub(checked);
    if age > table.ceph.max_status_age_seconds {
        return Check::Unknown(format!(
            "{subject}: status.ceph is stale (last checked {} ago, more than {}): Rook stopped writing it",
            crate::duration::rough(age),
            crate::duration::rough(table.ceph.max_status_age_seconds)
        ));
    }
    let harmful: Vec<_> = c
        .checks
        .iter()
        .filter(|k| !table.ceph.benign.contains(&k.name))
        .collect();
    match c.health.as_str() {
        "HEALTH_OK" => Check::Holds(format!("{subject}: HEALTH_OK, checked {}s ago", age)),
        "HEALTH_WARN" if harmful.is_empty() => Check::Holds(format!(
            "{subject}: HEALTH_WARN of benign checks only ({})",
            c.checks
                .iter()
                .map(|k| k.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        health => {
            let mut findings: Vec<Finding> = harmful
                .iter()
                .map(|k| {
                    Finding::new(
                        subject.clone(),
                        format!("{health}: {} ({}): {}", k.name, k.severity, k.message),
                        "wait for HEALTH_OK (every PG active+clean) before taking a node away",
                    )
                })
                .collect();
            if findings.is_empty() {
                findings.push(Finding::new(
                    subject,
                    format!("{health} with no check listed in status.ceph.details"),
                    "wait for HEALTH_OK before taking a node away",
                ));
            }
            Check::Fails(findings)
        }
    }
}

pub(super) fn mon_majority(req: &Request, facts: &Facts) -> Check {
    let (Ok(ceph), Ok(mons)) = (&facts.ceph, &facts.mon_pods) else {
        return Check::Unknown("CephCluster or mon pods not read".into());
    };
    let Some(c) = ceph else {
        return Check::Holds("no CephCluster in the cluster".into());
    };
    let Some(node) = req.node.as_deref() else {
        return Check::Unknown("no NODE was named".into());
    };
    let majority = c.mon_count / 2 + 1;
    let left: Vec<&Pod> = mons
        .iter()
        .filter(|m| m.ready && m.node != node && !m.is_finished())
        .collect();
    let mut hosts: Vec<&str> = left.iter().map(|m| m.node.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let words = |m: &[&Pod]| {
        m.iter()
            .map(|p| format!("{} on {}", p.name, p.node))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if (left.len() as u32) < majority {
        return Check::Fails(vec![Finding::new(
            format!("CephCluster {}/{}", c.namespace, c.name),
            format!(
                "mon count {}: without {node} {} mon(s) Ready ({}), a majority needs {majority}",
                c.mon_count,
                left.len(),
                if left.is_empty() {
                    "none".to_string()
                } else {
                    words(&left)
                }
            ),
            "bring the missing mons back into quorum before draining",
        )]);
    }
    if (hosts.len() as u32) < majority {
        return Check::Fails(vec![Finding::new(
            format!("CephCluster {}/{}", c.namespace, c.name),
            format!(
                "without {node} the Ready mons share {} node(s) ({}): one more node lost costs quorum",
                hosts.len(),
                words(&left)
            ),
            "spread the mons over distinct nodes (Rook's allowMultiplePerNode: false) first",
        )]);
    }
    Check::Holds(format!(
        "without {node}: {} of {} mons Ready on {} distinct nodes (majority {majority})",
        left.len(),
        c.mon_count,
        hosts.len()
    ))
}

pub(super) fn control_plane(req: &Request, facts: &Facts) -> Check {
    let Ok(nodes) = &facts.nodes else {
        return Check::Unknown("nodes not read".into());
    };
    let Some(name) = req.node.as_deref() else {
        return Check::Unknown("no NODE was named".into());
    };
    let Some(node) = nodes.iter().find(|n| n.name == name) else {
        return Check::Unknown(format!("the cluster has no node {name}"));
    };
    if !node.is_control_plane() {
        return Check::Holds(format!("{name} is not a control-plane node"));
    }
    let others: Vec<&str> = nodes
        .iter()
        .filter(|n| n.name != name && n.is_control_plane() && n.ready)
        .map(|n| n.name.as_str())
        .collect();
    if others.is_empty() {
        return Check::Fails(vec![Finding::new(
            format!("node {name}"),
            format!(
                "{name} is the only Ready control-plane node: the API server goes down with it"
            ),
            "add or recover another control-plane node first",
        )]);
    }
    Check::Holds(format!(
        "other Ready control-plane nodes: {}",
        others.join(", ")
    ))
}

pub(super) fn etcd_majority(req: &Request, facts: &Facts) -> Check {
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
            "bring the other etcd members back to Ready first, or the API stops with NODE",
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

pub(super) fn time_sync(req: &Request, facts: &Facts) -> Check {
    let (Ok(hosts), Ok(nodes)) = (&facts.host_time_sync, &facts.nodes) else {
        return Check::Unknown("time sync or nodes not read".into());
    };
    let drained = req.node.as_deref().unwrap_or_default();
    // Every node that stays must have been read: a node nestor could not map to a host is
    // undecided, never synchronised.
    let mut unknown: Vec<String> = nodes
        .iter()
        .filter(|n| n.name != drained && !hosts.contains_key(&n.name))
        .map(|n| format!("{} (not read)", n.name))
        .collect();
    unknown.extend(
        hosts
            .iter()
            .filter_map(|(h, r)| r.as_ref().err().map(|f| format!("{h} ({f})"))),
    );
    let findings: Vec<Finding> = hosts
        .iter()
        .filter_map(|(h, r)| r.as_ref().ok().map(|t| (h, t)))
        .filter(|(_, t)| !t.synchronized)
        .map(|(h, t)| {
            let ntp = match t.ntp {
                Some(true) => "; NTP=yes: a time service is on but has not synchronised the clock",
                Some(false) => "; NTP=no: no time service is enabled",
                None => "",
            };
            let clock = t
                .time
                .as_deref()
                .map(|c| format!("; its clock said {c}"))
                .unwrap_or_default();
            Finding::new(
                format!("node {h}"),
                format!("timedatectl show: NTPSynchronized=no{ntp}{clock}"),
                "fix its time synchronisation (chrony or systemd-timesyncd) first: Ceph raises MON_CLOCK_SKEW when a mon's clock drifts",
            )
        })
        .collect();
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    if !unknown.is_empty() {
        return Check::Unknown(format!("not read on {}", unknown.join(", ")));
    }
    Check::Holds(format!(
        "NTPSynchronized=yes on the {} nodes that stay",
        hosts.len()
    ))
}
