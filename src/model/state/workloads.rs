//! Workload checks: a workload is healthy exactly when `kubectl rollout status` would
//! succeed (kubectl's `polymorphichelpers/rollout_status.go` viewers), and a platform
//! workload scaled to zero serves nothing, so it is not healthy either.

use crate::model::catalog::{WorkloadCheck, WorkloadKind};
use crate::model::observation::{Observation, Workload};

use super::rollout::{rollout_status, select, RolloutStatus};
use super::{CheckOutcome, Phase};

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
