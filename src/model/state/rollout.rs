//! Where a workload's rollout stands, as `kubectl rollout status` would say (kubectl's
//! `polymorphichelpers/rollout_status.go` viewers; a platform workload scaled to zero
//! serves nothing), and the workloads a check selects: what both the workload checks and
//! the "why" of a failing one (its pods, its Warning events) start from.

use crate::model::catalog::{WorkloadCheck, WorkloadKind};
use crate::model::observation::{Observation, ReadFailure, Workload};

use super::CheckOutcome;

/// Where a workload's rollout stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RolloutStatus {
    Complete,
    /// Still going: what is left (`2/3 updated`).
    InProgress(String),
    /// `Progressing=False, reason ProgressDeadlineExceeded`.
    Failed(String),
    /// Zero desired replicas (or a DaemonSet scheduled on no node).
    ScaledToZero,
    /// Deployment `spec.paused: true`: stopped on purpose, nothing will finish it.
    Paused,
    /// `metadata.deletionTimestamp` set: what the deletion says.
    Deleting(String),
}

/// `kubectl rollout status`, decided on the fields it reads.
pub(crate) fn rollout_status(kind: WorkloadKind, w: &Workload) -> RolloutStatus {
    if let Some(d) = &w.deleting {
        return RolloutStatus::Deleting(d.describe());
    }
    let Some(r) = &w.rollout else {
        // A snapshot older than the rollout fields: readiness is all there is.
        return if w.desired < 1 {
            RolloutStatus::ScaledToZero
        } else if w.ready >= w.desired {
            RolloutStatus::Complete
        } else {
            RolloutStatus::InProgress(format!("{}/{} ready", w.ready, w.desired))
        };
    };
    let progress = RolloutStatus::InProgress;
    let not_observed = || {
        progress(format!(
            "spec update not observed (generation {}, observed {})",
            r.generation, r.observed_generation
        ))
    };
    let on_delete = r.strategy == "OnDelete";
    let status = match kind {
        WorkloadKind::Deployment => {
            if r.paused {
                RolloutStatus::Paused
            } else if r.generation > r.observed_generation {
                not_observed()
            } else if r.deadline_exceeded {
                RolloutStatus::Failed(format!(
                    "progress deadline exceeded ({}/{} updated, {} available)",
                    r.updated, w.desired, r.available
                ))
            } else if r.updated < w.desired {
                progress(format!("{}/{} updated", r.updated, w.desired))
            } else if r.current > r.updated {
                let old = r.current - r.updated;
                let s = if old == 1 { "" } else { "s" };
                progress(format!("{old} old replica{s} pending termination"))
            } else if r.available < r.updated {
                progress(format!("{}/{} updated available", r.available, r.updated))
            } else {
                RolloutStatus::Complete
            }
        }
        WorkloadKind::DaemonSet => {
            if r.generation > r.observed_generation {
                not_observed()
            } else if !on_delete && r.updated < w.desired {
                progress(format!("{}/{} updated", r.updated, w.desired))
            } else if r.available < w.desired {
                progress(format!("{}/{} available", r.available, w.desired))
            } else {
                RolloutStatus::Complete
            }
        }
        WorkloadKind::StatefulSet => {
            let partition = r.partition.unwrap_or(0).max(0);
            let target = (w.desired - partition).max(0);
            if r.observed_generation == 0 || r.generation > r.observed_generation {
                not_observed()
            } else if w.ready < w.desired {
                progress(format!("{}/{} ready", w.ready, w.desired))
            } else if on_delete {
                RolloutStatus::Complete
            } else if r.updated < target {
                progress(format!("{}/{target} updated", r.updated))
            } else if partition == 0 && r.current_revision != r.update_revision {
                progress(format!(
                    "{}/{} updated, revision {} not yet current",
                    r.updated, w.desired, r.update_revision
                ))
            } else {
                RolloutStatus::Complete
            }
        }
    };
    if status == RolloutStatus::Complete && w.desired < 1 {
        RolloutStatus::ScaledToZero
    } else {
        status
    }
}

fn workloads_of(obs: &Observation, kind: WorkloadKind) -> &Result<Vec<Workload>, ReadFailure> {
    match kind {
        WorkloadKind::DaemonSet => &obs.daemonsets,
        WorkloadKind::Deployment => &obs.deployments,
        WorkloadKind::StatefulSet => &obs.statefulsets,
    }
}

/// The workloads a check selects, or the outcome that replaces the check when a read it
/// needs failed or did not cover the namespace (found ones still count for detection).
pub(crate) fn select<'a>(
    obs: &'a Observation,
    check: &WorkloadCheck,
) -> (Vec<(WorkloadKind, &'a Workload)>, Option<CheckOutcome>) {
    let mut matches = Vec::new();
    let mut failure = None;
    for k in check.kinds() {
        let label = k.read_request().label().to_string();
        let unread = obs
            .workload_scope
            .get(&label)
            .is_some_and(|read| !read.contains(&check.namespace));
        match workloads_of(obs, k) {
            Ok(_) if unread => {
                failure.get_or_insert_with(|| {
                    CheckOutcome::unknown(format!("{label} in {} were not read", check.namespace))
                });
            }
            Err(f) => {
                failure.get_or_insert_with(|| CheckOutcome::failed(&label, f));
            }
            Ok(list) => matches.extend(
                list.iter()
                    .filter(|w| check.matches(&w.namespace, &w.name))
                    .map(|w| (k, w)),
            ),
        }
    }
    (matches, failure)
}
