//! The rules of `gate drain NODE` (SPEC §17): what a drain of NODE would break, from the
//! budgets, Ceph's status, the mons, the pools' OSD hosts (`osd`), the control plane, etcd's
//! members, the pods of NODE and their volumes, and the other nodes' room. DaemonSet pods
//! are ignored (a drain leaves them), as are mirror pods and finished ones.

use super::check::{Check, Finding, Request};
use super::facts::{Facts, Pdb, Pod};
use super::table::Table;

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
fn reason(p: &Pdb, pods: &[&Pod], facts: &Facts) -> (String, String) {
    let cnpg = pods
        .iter()
        .find_map(|pod| pod.labels.get("cnpg.io/cluster"));
    if let (Some(cluster), true) = (cnpg, p.name.ends_with("-primary")) {
        return cnpg_primary(cluster, &p.namespace, facts);
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

/// What the eviction API would answer for one pod of NODE (kubernetes
/// `pkg/registry/core/pod/storage/eviction.go`), before it deletes anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::model::gate) enum Eviction<'a> {
    /// Deleted without a budget consulted, or within its budget.
    Allowed,
    /// Refused with 500: more than one budget selects it.
    SeveralBudgets(Vec<&'a Pdb>),
    /// Refused with 429 (or 403 for a negative count): its budget allows no disruption.
    Budget(&'a Pdb),
    /// Refused with 429 "still being processed": the budget's status predates its spec.
    Processing(&'a Pdb),
}

/// The budgets the eviction API consults for `pod`: those of its namespace whose selector
/// is set and matches its labels (`{}` selects every pod, a null selector none).
fn budgets_of<'a>(pod: &Pod, pdbs: &'a [Pdb]) -> Vec<&'a Pdb> {
    pdbs.iter()
        .filter(|p| p.namespace == pod.namespace)
        .filter(|p| p.selector.as_ref().is_some_and(|s| s.matches(&pod.labels)))
        .collect()
}

/// The eviction API's answer for `pod`, in its own order: terminal, `Pending` and deleting
/// pods are deleted without a budget; more than one budget is refused; a pod that is not
/// Ready is deleted when its budget says `AlwaysAllow` or is healthy (`currentHealthy >=
/// desiredHealthy > 0`); then a status older than the spec is still being processed, and
/// `disruptionsAllowed` below 1 refuses it.
pub(in crate::model::gate) fn eviction<'a>(pod: &Pod, pdbs: &'a [Pdb]) -> Eviction<'a> {
    if pod.ignores_budgets() {
        return Eviction::Allowed;
    }
    let budgets = budgets_of(pod, pdbs);
    let pdb = match budgets.as_slice() {
        [] => return Eviction::Allowed,
        [one] => *one,
        _ => return Eviction::SeveralBudgets(budgets),
    };
    if !pod.ready
        && (pdb.always_allow_unhealthy
            || (pdb.current_healthy >= pdb.desired_healthy && pdb.desired_healthy > 0))
    {
        return Eviction::Allowed;
    }
    if pdb.observed_generation < pdb.generation {
        return Eviction::Processing(pdb);
    }
    if pdb.disruptions_allowed <= 0 {
        return Eviction::Budget(pdb);
    }
    Eviction::Allowed
}

/// `item` added to the entry of `key` in `groups` (in first-seen order).
fn group<K: PartialEq, T>(groups: &mut Vec<(K, Vec<T>)>, key: K, item: T) {
    match groups.iter_mut().find(|(k, _)| *k == key) {
        Some((_, items)) => items.push(item),
        None => groups.push((key, vec![item])),
    }
}

fn reference(p: &Pdb) -> String {
    format!("{}/{}", p.namespace, p.name)
}

pub(super) fn pdb_blocks(req: &Request, facts: &Facts) -> Check {
    let (Ok(pdbs), Ok(pods)) = (&facts.pdbs, &facts.node_pods) else {
        return Check::Unknown("budgets or pods not read".into());
    };
    let Some(node) = req.node.as_deref() else {
        return Check::Unknown("no NODE was named".into());
    };
    // One entry per subject: the budget (or the set of budgets), the pods it refuses listed.
    let mut refused: Vec<(Vec<&Pdb>, Vec<&Pod>)> = Vec::new();
    let mut processing: Vec<(&Pdb, Vec<&Pod>)> = Vec::new();
    for pod in evicted(pods) {
        match eviction(pod, pdbs) {
            Eviction::Allowed => {}
            Eviction::SeveralBudgets(b) => group(&mut refused, b, pod),
            Eviction::Budget(b) => group(&mut refused, vec![b], pod),
            Eviction::Processing(b) => group(&mut processing, b, pod),
        }
    }
    // In the order of the budget list, as the API server serves it.
    let at = |b: &Pdb| pdbs.iter().position(|p| std::ptr::eq(p, b));
    refused.sort_by_key(|(k, _)| k.first().and_then(|b| at(b)));
    let names = |pods: &[&Pod]| {
        pods.iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let findings: Vec<Finding> = refused
        .iter()
        .map(|(budgets, selected)| match budgets.as_slice() {
            [p] => {
                let (why, clears) = reason(p, selected, facts);
                Finding::new(
                    format!("PodDisruptionBudget {}", reference(p)),
                    format!(
                        "{why}; {}; selects {} on {node}",
                        status_words(p),
                        names(selected)
                    ),
                    clears,
                )
            }
            several => {
                let refs: Vec<String> = several.iter().map(|p| reference(p)).collect();
                Finding::new(
                    format!("PodDisruptionBudgets {}", refs.join(" and ")),
                    format!(
                        "{} on {node} {} selected by more than one PodDisruptionBudget: the eviction API refuses it (500 \"more than one PodDisruptionBudget\") and kubectl drain stops",
                        names(selected),
                        if selected.len() == 1 { "is" } else { "are" }
                    ),
                    "make the budgets' selectors disjoint, or delete one of them",
                )
            }
        })
        .collect();
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    if !processing.is_empty() {
        let words: Vec<String> = processing
            .iter()
            .map(|(p, selected)| {
                format!(
                    "PodDisruptionBudget {} (generation {}, status.observedGeneration {}; selects {})",
                    reference(p),
                    p.generation,
                    p.observed_generation,
                    names(selected)
                )
            })
            .collect();
        return Check::Unknown(format!(
            "the disruption controller has not processed the latest spec of {}: the eviction API answers 429 until it has",
            words.join(", ")
        ));
    }
    Check::Holds(format!(
        "{} budgets: the eviction API lets every pod of {node} go",
        pdbs.len()
    ))
}

/// CloudNativePG's primary budget at 0, in CNPG's words for the Cluster's state: its only
/// instance cannot be switched over; otherwise promote a Ready replica by name (the
/// Cluster's `status.instancesStatus.healthy` without `status.currentPrimary` and without
/// the instances on NODE; the status carries no replication lag, so the names are sorted
/// and the first is offered).
fn cnpg_primary(cluster: &str, namespace: &str, facts: &Facts) -> (String, String) {
    let why = format!("CloudNativePG's primary budget: the primary of cluster {cluster} runs here");
    let promote = |replica: &str| {
        format!("switch over first: `kubectl cnpg promote {cluster} {replica} -n {namespace}`")
    };
    let found = match &facts.cnpg_clusters {
        Ok(all) => all
            .iter()
            .find(|c| c.name == *cluster && c.namespace == namespace),
        Err(f) => {
            return (
                why,
                format!(
                    "{} (Cluster {namespace}/{cluster} not read: {f})",
                    promote("<replica>")
                ),
            )
        }
    };
    let Some(c) = found else {
        return (
            why,
            format!(
                "{} (no Cluster {namespace}/{cluster} listed)",
                promote("<replica>")
            ),
        );
    };
    if c.instances <= 1 {
        return (
            format!("CloudNativePG's primary budget: cluster {cluster} has a single instance, and it runs here"),
            "its only instance goes down with the node: add an instance (spec.instances: 2), or declare the node maintenance window CNPG reads (spec.nodeMaintenanceWindow.inProgress: true)".into(),
        );
    }
    // A replica on NODE goes down with it too: never the one to promote.
    let on_node = |n: &str| {
        facts
            .node_pods
            .as_ref()
            .is_ok_and(|pods| pods.iter().any(|p| p.namespace == namespace && p.name == n))
    };
    let replicas: Vec<&str> = c
        .healthy
        .iter()
        .map(String::as_str)
        .filter(|n| *n != c.current_primary && !on_node(n))
        .collect();
    match replicas.as_slice() {
        [] => (
            why,
            format!("no replica of {cluster} is Ready (status.instancesStatus): wait for one, then switch over"),
        ),
        [one] => (why, promote(one)),
        [first, ..] => (
            why,
            format!("{} (Ready replicas: {})", promote(first), replicas.join(", ")),
        ),
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

/// NODE's role: `Err` is the rule's answer when NODE cannot be judged; `Ok(None)` a worker;
/// `Ok(Some(others))` a control-plane node and the other control-plane nodes.
fn control_plane_peers<'a>(
    req: &Request,
    facts: &'a Facts,
) -> Result<Option<Vec<&'a super::facts::Node>>, Check> {
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
pub(super) fn control_plane(req: &Request, facts: &Facts) -> Check {
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
pub(super) fn single_control_plane(req: &Request, facts: &Facts) -> Check {
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
