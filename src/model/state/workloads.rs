//! Workload checks: a workload is healthy exactly when `kubectl rollout status` would
//! succeed (kubectl's `polymorphichelpers/rollout_status.go` viewers), and a platform
//! workload scaled to zero serves nothing, so it is not healthy either.

use crate::model::catalog::{WorkloadCheck, WorkloadKind};
use crate::model::observation::{Observation, ReadFailure, Workload};

use super::{CheckOutcome, Phase};

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

/// One workload's line of evidence.
fn show(kind: WorkloadKind, w: &Workload) -> String {
    let id = format!("{} {}/{}", kind.as_str(), w.namespace, w.name);
    match rollout_status(kind, w) {
        RolloutStatus::Complete => {
            let (n, word) = match (&w.rollout, kind) {
                (Some(r), WorkloadKind::Deployment | WorkloadKind::DaemonSet) => {
                    (r.available, "available")
                }
                _ => (w.ready, "ready"),
            };
            format!("{id} rolled out ({n}/{} {word})", w.desired)
        }
        RolloutStatus::InProgress(what) => format!("{id}: rollout in progress: {what}"),
        RolloutStatus::Failed(what) => format!("{id}: rollout failed: {what}"),
        RolloutStatus::ScaledToZero => format!("{id}: scaled to 0 replicas"),
        RolloutStatus::Paused => format!("{id}: rollout paused"),
        RolloutStatus::Deleting(what) => format!("{id}: {what}"),
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

/// `a, b, c` — at most [`super::MAX_NAMED`] names, then `and N more`.
fn capped_names(names: &[&str]) -> String {
    let mut shown: Vec<String> = names
        .iter()
        .take(super::MAX_NAMED)
        .map(|n| n.to_string())
        .collect();
    if names.len() > super::MAX_NAMED {
        shown.push(format!("and {} more", names.len() - super::MAX_NAMED));
    }
    shown.join(", ")
}

pub(crate) fn workload(obs: &Observation, phase: Phase, check: &WorkloadCheck) -> CheckOutcome {
    let (matches, failure) = select(obs, check);
    let lines = |ws: &[(WorkloadKind, &Workload)]| -> Vec<String> {
        ws.iter().map(|(k, w)| show(*k, w)).collect()
    };
    let failing: Vec<(WorkloadKind, &Workload)> = matches
        .iter()
        .filter(|(k, w)| rollout_status(*k, w) != RolloutStatus::Complete)
        .cloned()
        .collect();
    let summary = |ws: &[(WorkloadKind, &Workload)]| -> String {
        if ws.len() == 1 {
            lines(ws).join(", ")
        } else {
            let names: Vec<&str> = ws.iter().map(|(_, w)| w.name.as_str()).collect();
            format!(
                "{n}/{n} {} rolled out ({})",
                check.selector(),
                capped_names(&names),
                n = ws.len()
            )
        }
    };
    match phase {
        Phase::Detect if !matches.is_empty() => {
            let deleting = matches
                .iter()
                .filter(|(_, w)| w.deleting.is_some())
                .map(|(k, w)| show(*k, w))
                .collect();
            CheckOutcome::yes(summary(&matches)).with_flaws(deleting)
        }
        Phase::Healthy if !failing.is_empty() => {
            // Each failing workload with why: its pods, when the second round read them (the
            // first [`super::MAX_NAMED`] only: the others are counted, never inspected).
            let mut shown: Vec<String> = failing
                .iter()
                .take(super::MAX_NAMED)
                .map(|(k, w)| show(*k, w) + &super::why::pods_of(obs, *k, w))
                .collect();
            if failing.len() > super::MAX_NAMED {
                shown.push(format!(
                    "and {} more not inspected",
                    failing.len() - super::MAX_NAMED
                ));
            }
            let named = shown.join("; ");
            let objects =
                super::why::failing_objects(obs, &failing[..failing.len().min(super::MAX_NAMED)]);
            let outcome = if matches.len() > 1 {
                CheckOutcome::no(format!(
                    "{}/{} {} rolled out; {named}",
                    matches.len() - failing.len(),
                    matches.len(),
                    check.selector()
                ))
            } else {
                CheckOutcome::no(named)
            };
            outcome.with_objects(objects)
        }
        Phase::Detect | Phase::Healthy => match failure {
            Some(f) => f,
            None if matches.is_empty() => CheckOutcome::no(format!("no {}", check.selector())),
            None => CheckOutcome::yes(summary(&matches)),
        },
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::observation::Rollout;

    fn deploy(desired: i64, r: Rollout) -> Workload {
        Workload {
            namespace: "ns".into(),
            name: "d".into(),
            desired,
            ready: r.available,
            rollout: Some(r),
            deleting: None,
            selector: None,
            images: Default::default(),
            version_labels: Default::default(),
        }
    }

    fn done(n: i64) -> Rollout {
        Rollout {
            generation: 2,
            observed_generation: 2,
            updated: n,
            available: n,
            current: n,
            ..Rollout::default()
        }
    }

    #[test]
    fn deployment_follows_rollout_status() {
        let d = WorkloadKind::Deployment;
        assert_eq!(
            rollout_status(d, &deploy(3, done(3))),
            RolloutStatus::Complete
        );
        let stale = Rollout {
            generation: 3,
            ..done(3)
        };
        assert_eq!(
            rollout_status(d, &deploy(3, stale)),
            RolloutStatus::InProgress("spec update not observed (generation 3, observed 2)".into())
        );
        let mid = Rollout {
            updated: 2,
            current: 4,
            available: 2,
            ..done(3)
        };
        assert_eq!(
            rollout_status(d, &deploy(3, mid.clone())),
            RolloutStatus::InProgress("2/3 updated".into())
        );
        let old = Rollout {
            updated: 3,
            current: 4,
            ..done(3)
        };
        assert_eq!(
            rollout_status(d, &deploy(3, old)),
            RolloutStatus::InProgress("1 old replica pending termination".into())
        );
        let unavailable = Rollout {
            available: 1,
            ..done(3)
        };
        assert_eq!(
            rollout_status(d, &deploy(3, unavailable)),
            RolloutStatus::InProgress("1/3 updated available".into())
        );
        let stalled = Rollout {
            deadline_exceeded: true,
            ..mid
        };
        assert_eq!(
            show(d, &deploy(3, stalled)),
            "Deployment ns/d: rollout failed: progress deadline exceeded (2/3 updated, 2 available)"
        );
        assert_eq!(
            rollout_status(d, &deploy(0, done(0))),
            RolloutStatus::ScaledToZero
        );
        assert_eq!(
            show(d, &deploy(3, done(3))),
            "Deployment ns/d rolled out (3/3 available)"
        );
    }

    #[test]
    fn daemonset_and_statefulset() {
        let ds = WorkloadKind::DaemonSet;
        let mid = Rollout {
            updated: 3,
            ..done(4)
        };
        assert_eq!(
            rollout_status(ds, &deploy(4, mid.clone())),
            RolloutStatus::InProgress("3/4 updated".into())
        );
        let on_delete = Rollout {
            strategy: "OnDelete".into(),
            ..mid
        };
        assert_eq!(
            rollout_status(ds, &deploy(4, on_delete)),
            RolloutStatus::Complete
        );

        let sts = WorkloadKind::StatefulSet;
        let revs = |cur: &str, upd: &str, updated: i64, partition: Option<i64>| Rollout {
            updated,
            current_revision: cur.into(),
            update_revision: upd.into(),
            partition,
            ..done(3)
        };
        assert_eq!(
            rollout_status(sts, &deploy(3, revs("a", "a", 3, Some(0)))),
            RolloutStatus::Complete
        );
        assert_eq!(
            rollout_status(sts, &deploy(3, revs("a", "b", 1, Some(0)))),
            RolloutStatus::InProgress("1/3 updated".into())
        );
        assert_eq!(
            rollout_status(sts, &deploy(3, revs("a", "b", 3, None))),
            RolloutStatus::InProgress("3/3 updated, revision b not yet current".into())
        );
        // A staged rollout: partition 2 of 3 asks for one updated pod; done when it is.
        assert_eq!(
            rollout_status(sts, &deploy(3, revs("a", "b", 1, Some(2)))),
            RolloutStatus::Complete
        );
        let never_observed = Rollout {
            observed_generation: 0,
            generation: 1,
            ..done(1)
        };
        assert!(matches!(
            rollout_status(sts, &deploy(1, never_observed)),
            RolloutStatus::InProgress(_)
        ));
    }
}
