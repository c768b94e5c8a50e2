//! Why a workload is not rolled out (SPEC §6 v0.3): up to three of its pods, read in a
//! second round by the workload's own selector, with their container's waiting reason,
//! restart count and last exit code. A crash loop exiting 255 of an image pinned by digest
//! on a node that is not amd64 is most likely an image built for another architecture
//! (bench findings #25 and 0e: argocd-redis and the Rook operator on arm64).

use std::collections::BTreeSet;

use crate::model::catalog::{WorkloadCheck, WorkloadKind};
use crate::model::observation::{ObjectRef, Observation, PodStatus, ReadRequest, Workload};

use super::rollout::{rollout_status, select, RolloutStatus};

/// The words of the architecture hint.
pub const OTHER_ARCHITECTURE: &str = "likely an image built for another architecture";

/// The second read round: the pods of the workloads these selections (a read plan's
/// `workloads`, one list per layer) find that are not rolled out and whose pods can tell
/// why (scaled to zero has none), by their own selector: at most the first
/// [`super::MAX_NAMED`] of each LAYER, all its checks together, in the order its checks name
/// them (SPEC §9 "Bounded per run": 2500 Deployments mid-rollout were 2500 pod lists, and a
/// layer of many checks was as many times five). The evidence says the others' pods were not
/// inspected ([`pods_of`]).
pub fn pod_reads(layers: &[Vec<WorkloadCheck>], obs: &Observation) -> Vec<ReadRequest> {
    let mut reads = BTreeSet::new();
    for selections in layers {
        let mut mine: Vec<ReadRequest> = Vec::new();
        for w in selections {
            for (kind, workload) in select(obs, w).0 {
                if mine.len() == super::MAX_NAMED {
                    break;
                }
                if let (true, Some(selector)) = (explains(kind, workload), &workload.selector) {
                    let read = ReadRequest::Pods {
                        namespace: workload.namespace.clone(),
                        selector: selector.clone(),
                    };
                    if !mine.contains(&read) {
                        mine.push(read);
                    }
                }
            }
        }
        reads.extend(mine);
    }
    reads.into_iter().collect()
}

/// Said of a workload not rolled out whose pods the second round did not read: its layer's
/// first [`super::MAX_NAMED`] were.
pub const NOT_INSPECTED: &str =
    "; its pods not inspected (the second round reads those of 5 workloads per layer)";
const _: () = assert!(super::MAX_NAMED == 5, "NOT_INSPECTED says 5");

/// Pods can tell why: the rollout is stuck or going, not stopped on purpose or emptied.
fn explains(kind: WorkloadKind, w: &Workload) -> bool {
    match rollout_status(kind, w) {
        RolloutStatus::InProgress(_) | RolloutStatus::Failed(_) => true,
        RolloutStatus::Complete
        | RolloutStatus::ScaledToZero
        | RolloutStatus::Paused
        | RolloutStatus::Deleting(_) => false,
    }
}

/// `; pod P on N: C CrashLoopBackOff, 7 restarts, last exit code 255 (...)` for each pod
/// read of this workload; empty when none was read (or the read failed: the rollout line
/// is the evidence then).
pub fn pods_of(obs: &Observation, kind: WorkloadKind, w: &Workload) -> String {
    if !explains(kind, w) {
        return String::new();
    }
    let Some(selector) = &w.selector else {
        return String::new();
    };
    let key = format!("{}/{selector}", w.namespace);
    let pods = match obs.pods.get(&key) {
        Some(Ok(pods)) => pods,
        // The read failed, or no second round ran: the rollout line is the evidence.
        Some(Err(_)) => return String::new(),
        None if obs.pods.is_empty() => return String::new(),
        // The second round ran and left this one out: its layer's five were read.
        None => return NOT_INSPECTED.to_string(),
    };
    pods.iter()
        .map(|p| format!("; {}", pod_line(obs, p)))
        .collect()
}

/// The failing workloads as objects, each followed by its pods the second round read: what
/// their Warning Events are about.
pub(super) fn failing_objects(
    obs: &Observation,
    failing: &[(WorkloadKind, &Workload)],
) -> Vec<ObjectRef> {
    let mut out = Vec::new();
    for (kind, w) in failing {
        out.push(ObjectRef::new(kind.as_str(), &w.namespace, &w.name));
        let pods = w
            .selector
            .as_ref()
            .and_then(|s| obs.pods.get(&format!("{}/{s}", w.namespace)))
            .and_then(|r| r.as_ref().ok());
        out.extend(
            pods.into_iter()
                .flatten()
                .map(|p| ObjectRef::new("Pod", &w.namespace, &p.name)),
        );
    }
    out
}

fn pod_line(obs: &Observation, p: &PodStatus) -> String {
    let on = if p.node.is_empty() {
        " (not scheduled)".to_string()
    } else {
        format!(" on {}", p.node)
    };
    let Some(c) = &p.container else {
        return format!("pod {}{on}: containers ready", p.name);
    };
    let mut said = vec![];
    if !c.waiting.is_empty() {
        said.push(c.waiting.clone());
    }
    said.push(match c.restarts {
        1 => "1 restart".to_string(),
        n => format!("{n} restarts"),
    });
    if let Some(code) = c.exit_code {
        said.push(format!("last exit code {code}"));
    }
    let arch = obs
        .nodes
        .as_ref()
        .ok()
        .and_then(|nodes| nodes.iter().find(|n| n.name == p.node))
        .map(|n| n.architecture.as_str())
        .unwrap_or_default();
    let hint = if c.exit_code == Some(255)
        && c.waiting == "CrashLoopBackOff"
        && c.by_digest
        && !arch.is_empty()
        && arch != "amd64"
    {
        format!(" ({OTHER_ARCHITECTURE}: the node is {arch})")
    } else {
        String::new()
    };
    format!("pod {}{on}: {} {}{hint}", p.name, c.name, said.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::state::Phase;

    /// `n` Deployments `app-0000`... in `ns`, each mid-rollout (1 of 3 updated and
    /// available), with their own selector: an upgrade in progress, as the API lists it.
    fn mid_rollout(n: usize) -> Observation {
        let items: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                serde_json::json!({
                    "apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": format!("app-{i:04}"), "namespace": "ns", "generation": 2},
                    "spec": {"replicas": 3, "selector": {"matchLabels": {"app": format!("app-{i:04}")}}},
                    "status": {"observedGeneration": 2, "replicas": 4, "updatedReplicas": 1,
                               "readyReplicas": 3, "availableReplicas": 1}
                })
            })
            .collect();
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
        let mut obs = Observation::skipped("not read");
        obs.record(
            &ReadRequest::Workloads(WorkloadKind::Deployment),
            Ok(&list.to_string()),
        );
        obs
    }

    #[test]
    fn the_second_round_inspects_at_most_five_workloads_of_a_selection() {
        let obs = mid_rollout(2500);
        let check = WorkloadCheck {
            kind: Some(WorkloadKind::Deployment),
            namespace: "ns".into(),
            name: None,
            name_prefix: Some("app-".into()),
        };
        let mut obs = obs;
        let reads = pod_reads(&[vec![check.clone()]], &obs);
        let want: Vec<ReadRequest> = (0..5)
            .map(|i| ReadRequest::Pods {
                namespace: "ns".into(),
                selector: format!("app=app-{i:04}"),
            })
            .collect();
        assert_eq!(reads, want);
        for read in &reads {
            obs.record(
                read,
                Ok(r#"{"apiVersion":"v1","kind":"PodList","items":[]}"#),
            );
        }
        let outcome = super::super::workloads::workload(&obs, Phase::Healthy, &check);
        let named: Vec<String> = (0..5)
            .map(|i| format!("Deployment ns/app-{i:04}: rollout in progress: 1/3 updated"))
            .collect();
        assert_eq!(
            outcome.evidence,
            format!(
                "0/2500 Deployment ns/app-* rolled out; {}; and 2495 more not inspected",
                named.join("; ")
            )
        );
        // Five or fewer: every one is inspected, nothing is counted.
        let few = mid_rollout(5);
        assert_eq!(pod_reads(&[vec![check.clone()]], &few).len(), 5);
        let outcome = super::super::workloads::workload(&few, Phase::Healthy, &check);
        assert!(!outcome.evidence.contains("more"), "{}", outcome.evidence);
    }
}

#[cfg(test)]
#[path = "why_layer_tests.rs"]
mod layer_tests;
