//! `drain-pdb-blocks`: what the eviction API would answer for each pod of NODE (kubernetes
//! `pkg/registry/core/pod/storage/eviction.go`), one entry per budget, in the budget
//! owner's words (CloudNativePG's primary, Rook's OSD and mon budgets).

use super::evicted;
use crate::model::gate::check::{Check, Finding, Request};
use crate::model::gate::facts::{Facts, Pdb, Pod};

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
enum Eviction<'a> {
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
fn eviction<'a>(pod: &Pod, pdbs: &'a [Pdb]) -> Eviction<'a> {
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

pub(in crate::model::gate) fn pdb_blocks(req: &Request, facts: &Facts) -> Check {
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
