//! The drain rules about the pods of NODE themselves: volumes bound to NODE, pods no
//! controller recreates, `emptyDir` data, and whether the other nodes have room for them.

use super::evicted;
use crate::model::gate::check::{Check, Finding, Request};
use crate::model::gate::facts::{Facts, Node, Resources, VolumeKind};

pub(in crate::model::gate) fn node_bound_volumes(req: &Request, facts: &Facts) -> Check {
    let (Ok(pods), Ok(pvs)) = (&facts.node_pods, &facts.pvs) else {
        return Check::Unknown("pods or volumes not read".into());
    };
    let Some(name) = req.node.as_deref() else {
        return Check::Unknown("no NODE was named".into());
    };
    let node: Option<&Node> = facts
        .nodes
        .as_ref()
        .ok()
        .and_then(|ns| ns.iter().find(|n| n.name == name));
    let hostname = node.and_then(|n| n.hostname.as_deref()).unwrap_or(name);
    let mut findings = Vec::new();
    for pod in evicted(pods) {
        let statefulset = pod.controller().filter(|o| o.kind == "StatefulSet");
        for (vol, kind) in &pod.volumes {
            match kind {
                VolumeKind::Claim(claim) => {
                    let Some(pv) = pvs.iter().find(|pv| {
                        pv.claim
                            .as_ref()
                            .is_some_and(|(ns, n)| ns == &pod.namespace && n == claim)
                    }) else {
                        continue;
                    };
                    let pinned = pv.pinned_hosts.iter().any(|h| h == hostname || h == name);
                    if pv.local || pv.host_path || pinned {
                        findings.push(Finding::new(
                            format!("pod {}", pod.reference()),
                            format!(
                                "volume {vol}: claim {claim} is bound to PersistentVolume {}, {} {name}: the pod cannot move",
                                pv.name,
                                if pv.local { "a local volume on" } else { "bound by node affinity to" }
                            ),
                            "move its data off NODE first, or accept that the pod stays Pending until NODE returns",
                        ));
                    }
                }
                VolumeKind::HostPath(path) => {
                    if let Some(sts) = statefulset {
                        findings.push(Finding::new(
                            format!("pod {}", pod.reference()),
                            format!("StatefulSet {} keeps volume {vol} in hostPath {path} on {name}: its data stays there", sts.name),
                            "move the data to a PersistentVolume, or accept the pod's downtime until NODE returns",
                        ));
                    }
                }
                VolumeKind::EmptyDir | VolumeKind::Other => {}
            }
        }
    }
    if findings.is_empty() {
        Check::Holds(format!("no pod on {name} has a node-bound volume"))
    } else {
        Check::Fails(findings)
    }
}

/// kubectl's drain filters for pods nothing recreates: a pod without a controller
/// (`unreplicatedFilter`) and a DaemonSet pod whose DaemonSet no longer exists
/// (`daemonSetFilter`): both refused without `--force`, then deleted for good. Finished
/// pods pass silently.
pub(in crate::model::gate) fn unmanaged_pods(facts: &Facts) -> Check {
    let (Ok(pods), Ok(daemonsets)) = (&facts.node_pods, &facts.daemonsets) else {
        return Check::Unknown("pods or DaemonSets not read".into());
    };
    let mut findings: Vec<Finding> = evicted(pods)
        .filter(|p| p.controller().is_none())
        .map(|p| {
            Finding::new(
                format!("pod {}", p.reference()),
                "no controller owns it: a drain deletes it and nothing recreates it",
                "run it under a Deployment or StatefulSet, or accept its loss (kubectl drain --force)",
            )
        })
        .collect();
    let orphans = pods.iter().filter(|p| !p.is_finished()).filter_map(|p| {
        let ds = p.controller().filter(|o| o.kind == "DaemonSet")?;
        let exists = daemonsets
            .iter()
            .any(|(ns, name)| *ns == p.namespace && *name == ds.name);
        (!exists).then_some((p, ds))
    });
    findings.extend(orphans.map(|(p, ds)| {
        Finding::new(
            format!("pod {}", p.reference()),
            format!(
                "its DaemonSet {}/{} no longer exists: kubectl drain refuses it without --force, then deletes it for good",
                p.namespace, ds.name
            ),
            "delete the orphaned pod yourself, or drain with --force (nothing recreates it)",
        )
    }));
    if findings.is_empty() {
        Check::Holds("every pod's controller exists".into())
    } else {
        Check::Fails(findings)
    }
}

pub(in crate::model::gate) fn emptydir(facts: &Facts) -> Check {
    let Ok(pods) = &facts.node_pods else {
        return Check::Unknown("pods not read".into());
    };
    let findings: Vec<Finding> = evicted(pods)
        .filter_map(|p| {
            let dirs: Vec<&str> = p
                .volumes
                .iter()
                .filter(|(_, k)| *k == VolumeKind::EmptyDir)
                .map(|(n, _)| n.as_str())
                .collect();
            (!dirs.is_empty()).then(|| {
                Finding::new(
                    format!("pod {}", p.reference()),
                    format!("emptyDir {}: its data is deleted with the pod", dirs.join(", ")),
                    "accept the loss (kubectl drain --delete-emptydir-data) or keep the data in a PersistentVolume",
                )
            })
        })
        .collect();
    if findings.is_empty() {
        Check::Holds("no evicted pod keeps data in an emptyDir".into())
    } else {
        Check::Fails(findings)
    }
}

pub(in crate::model::gate) fn capacity(req: &Request, facts: &Facts) -> Check {
    let (Ok(nodes), Ok(pods), Ok(all)) = (&facts.nodes, &facts.node_pods, &facts.cluster_pods)
    else {
        return Check::Unknown("nodes or pods not read".into());
    };
    let Some(name) = req.node.as_deref() else {
        return Check::Unknown("no NODE was named".into());
    };
    let need = evicted(pods).fold(Resources::default(), |s, p| s.plus(p.requests));
    let room: Vec<&Node> = nodes
        .iter()
        .filter(|n| n.name != name && n.ready && !n.unschedulable && n.hard_taints.is_empty())
        .collect();
    let free = room.iter().fold(Resources::default(), |s, n| {
        let used = all.get(&n.name).copied().unwrap_or_default();
        s.plus(n.allocatable.minus(used))
    });
    if need.cpu_milli > free.cpu_milli || need.memory_bytes > free.memory_bytes {
        return Check::Fails(vec![Finding::new(
            format!("node {name}"),
            format!(
                "its pods request {}; the {} other schedulable nodes have {} free",
                need,
                room.len(),
                free
            ),
            "free or add capacity first, or some pods stay Pending",
        )]);
    }
    Check::Holds(format!(
        "needs {}; {} nodes have {} free",
        need,
        room.len(),
        free
    ))
}
