//! The rules of `gate drain NODE` (SPEC §17): what a drain of NODE would break, from the
//! budgets, Ceph's status, the mons, the pools' OSD hosts (`osd`), the control plane, etcd's
//! members, the pods of NODE and their volumes, and the other nodes' room. DaemonSet pods
//! are ignored (a drain leaves them), as are mirror pods and finished ones.

use super::check::{each_ceph, Check, Finding, Request};
use super::facts::{Ceph, Facts, Pod};
use super::table::Table;

mod budgets;
mod control_plane;
mod osd;
mod pods;
pub(super) use budgets::pdb_blocks;
pub(super) use control_plane::{control_plane, etcd_majority, single_control_plane};
pub(super) use osd::osd_hosts;
pub(super) use pods::{capacity, emptydir, node_bound_volumes, unmanaged_pods};

/// The pods a drain of NODE evicts.
pub(in crate::model::gate) fn evicted(pods: &[Pod]) -> impl Iterator<Item = &Pod> {
    pods.iter()
        .filter(|p| !p.is_daemonset() && !p.is_mirror() && !p.is_finished())
}

/// Each CephCluster's health, fresh: a `lastChecked` older than the table's bound is stale,
/// and one more than [`CLOCK_SKEW`] in the future is no proof of freshness (SPEC §6: time
/// from the cluster is bounded both ways).
pub(super) fn ceph_health(facts: &Facts, table: &Table) -> Check {
    each_ceph(facts, |c| one_ceph_health(c, facts, table))
}

/// How far in the future a cluster's timestamp may be before nestor calls the clocks wrong.
pub(in crate::model::gate) const CLOCK_SKEW: i64 = 5 * 60;

fn one_ceph_health(c: &Ceph, facts: &Facts, table: &Table) -> Check {
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
    if checked > now.saturating_add(CLOCK_SKEW) {
        return Check::Unknown(format!(
            "{subject}: status.ceph.lastChecked is {} in the future of this run's clock: a clock is wrong, so its freshness cannot be told",
            crate::duration::rough(checked - now)
        ));
    }
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

/// The mons nestor reads are Rook's in `rook-ceph`: the CephCluster there is judged, and
/// any other one is named as not judged (never "the first" of the list).
pub(super) fn mon_majority(req: &Request, facts: &Facts) -> Check {
    let (Ok(all), Ok(mons)) = (&facts.ceph, &facts.mon_pods) else {
        return Check::Unknown("CephCluster or mon pods not read".into());
    };
    let others: Vec<String> = all
        .iter()
        .filter(|c| c.namespace != MON_NAMESPACE)
        .map(|c| format!("{}/{}", c.namespace, c.name))
        .collect();
    let Some(c) = all.iter().find(|c| c.namespace == MON_NAMESPACE) else {
        return match others.as_slice() {
            [] => Check::Holds("no CephCluster in the cluster".into()),
            _ => Check::Unknown(format!(
                "no CephCluster in {MON_NAMESPACE}, whose mons nestor reads; not judged: {}",
                others.join(", ")
            )),
        };
    };
    let not_judged = if others.is_empty() {
        String::new()
    } else {
        format!(
            " (not judged: {}, whose mons nestor does not read)",
            others.join(", ")
        )
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
        "without {node}: {} of {} mons Ready on {} distinct nodes (majority {majority}){not_judged}",
        left.len(),
        c.mon_count,
        hosts.len()
    ))
}

/// Where nestor reads Rook's mon pods (`app=rook-ceph-mon`).
const MON_NAMESPACE: &str = "rook-ceph";

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
