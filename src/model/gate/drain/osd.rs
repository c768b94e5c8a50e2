//! `drain-osd-hosts` (SPEC §17: "NODE's OSDs may go only when every pool's replicas have
//! another host"): Ceph places each copy (or erasure-coded chunk) of a pool's data in a
//! distinct failure domain (`spec.failureDomain`, Rook's default `host`). Without NODE's
//! OSDs, a pool whose copies need more failure domains than those still holding a Ready OSD
//! cannot place every copy: its data stays undersized until NODE comes back.
//!
//! An OSD's failure domain is the `topology-location-<domain>` label Rook gives its pod
//! from the OSD's CRUSH location (`host`: the pod's node when the label is missing; `osd`:
//! its `ceph-osd-id`). A pod without the label a pool's domain needs is undecided, never
//! counted.

use std::collections::BTreeSet;

use super::super::check::{Check, Finding, Request};
use super::super::facts::{CephPool, Facts, Pod};

/// The failure domain of `pod` for `domain`, or `None` when its labels do not say.
fn domain_of<'a>(pod: &'a Pod, domain: &str) -> Option<&'a str> {
    match domain {
        "osd" => pod.labels.get("ceph-osd-id").map(String::as_str),
        "host" => Some(
            pod.labels
                .get("topology-location-host")
                .map(String::as_str)
                .unwrap_or(pod.node.as_str()),
        ),
        other => pod
            .labels
            .get(&format!("topology-location-{other}"))
            .map(String::as_str),
    }
}

/// What one pool shows without NODE: the failure domains left, or the pod that does not say.
fn left<'a>(pool: &CephPool, staying: &[&'a Pod]) -> Result<BTreeSet<&'a str>, String> {
    staying
        .iter()
        .map(|p| {
            domain_of(p, &pool.failure_domain).ok_or_else(|| {
                format!(
                    "{}: OSD pod {} has no topology-location-{} label to place it",
                    pool.owner,
                    p.reference(),
                    pool.failure_domain
                )
            })
        })
        .collect()
}

pub(in crate::model::gate) fn osd_hosts(req: &Request, facts: &Facts) -> Check {
    let (Ok(pools), Ok(osds)) = (&facts.ceph_pools, &facts.osd_pods) else {
        return Check::Unknown("pools or OSD pods not read".into());
    };
    let Some(node) = req.node.as_deref() else {
        return Check::Unknown("no NODE was named".into());
    };
    let on_node: Vec<&Pod> = osds
        .iter()
        .filter(|p| p.node == node && !p.is_finished())
        .collect();
    if on_node.is_empty() {
        return Check::Holds(format!("no OSD runs on {node}"));
    }
    if pools.is_empty() {
        return Check::Holds(format!(
            "{} OSD(s) on {node}, no pool declared (CephBlockPool, CephFilesystem, CephObjectStore)",
            on_node.len()
        ));
    }
    // The OSDs that still serve once NODE is gone: Ready, elsewhere.
    let staying: Vec<&Pod> = osds
        .iter()
        .filter(|p| p.node != node && p.ready && !p.is_finished())
        .collect();
    let not_ready = osds
        .iter()
        .filter(|p| p.node != node && !p.ready && !p.is_finished())
        .count();
    let mut findings = Vec::new();
    let mut undecided = Vec::new();
    let mut held = Vec::new();
    for pool in pools {
        let domains = match left(pool, &staying) {
            Ok(d) => d,
            Err(why) => {
                undecided.push(why);
                continue;
            }
        };
        let have = domains.len() as u32;
        if have >= pool.domains_needed {
            held.push(format!(
                "{have} {}s left, {} needs {}",
                pool.failure_domain, pool.owner, pool.domains_needed
            ));
            continue;
        }
        let names: Vec<&str> = domains.into_iter().collect();
        findings.push(Finding::new(
            pool.owner.clone(),
            format!(
                "{}, failureDomain {}: its copies need {} {}s; without {node}'s {} OSD(s) {have} {}(s) with a Ready OSD remain ({}){}",
                pool.layout,
                pool.failure_domain,
                pool.domains_needed,
                pool.failure_domain,
                on_node.len(),
                pool.failure_domain,
                if names.is_empty() { "none".to_string() } else { names.join(", ") },
                if not_ready > 0 {
                    format!("; {not_ready} OSD pod(s) elsewhere are not Ready")
                } else {
                    String::new()
                }
            ),
            if not_ready > 0 {
                format!(
                    "bring the OSDs that are not Ready back, or add a {} with OSDs, before draining {node}: Ceph cannot place every copy elsewhere",
                    pool.failure_domain
                )
            } else {
                format!(
                    "add a {} with OSDs before draining {node}: Ceph cannot place every copy elsewhere",
                    pool.failure_domain
                )
            },
        ));
    }
    if !findings.is_empty() {
        return Check::Fails(findings);
    }
    if !undecided.is_empty() {
        return Check::Unknown(undecided.join("; "));
    }
    Check::Holds(format!(
        "without {node}'s {} OSD(s): {}",
        on_node.len(),
        held.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gate::facts::Owner;
    use crate::model::gate::Gate;
    use crate::model::observation::{FailureKind, ReadFailure};

    fn osd(id: u32, node: &str, ready: bool, host_label: Option<&str>) -> Pod {
        let mut labels: std::collections::BTreeMap<String, String> = [
            ("app", "rook-ceph-osd".to_string()),
            ("ceph-osd-id", id.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        if let Some(h) = host_label {
            labels.insert("topology-location-host".into(), h.into());
            labels.insert("topology-location-root".into(), "default".into());
        }
        Pod {
            namespace: "rook-ceph".into(),
            name: format!("rook-ceph-osd-{id}-7c9b5d6f4-abcde"),
            node: node.into(),
            labels,
            owners: vec![Owner {
                kind: "ReplicaSet".into(),
                name: format!("rook-ceph-osd-{id}-7c9b5d6f4"),
                controller: true,
            }],
            volumes: vec![],
            requests: Default::default(),
            phase: "Running".into(),
            ready,
            deleting: false,
            mirror: false,
            images: vec!["quay.io/ceph/ceph:v18.2.4".into()],
        }
    }

    fn pool(owner: &str, domain: &str, needed: u32, layout: &str) -> CephPool {
        CephPool {
            owner: owner.into(),
            failure_domain: domain.into(),
            domains_needed: needed,
            layout: layout.into(),
        }
    }

    fn drain(node: &str) -> Request {
        Request {
            gate: Gate::Drain,
            node: Some(node.into()),
            version: None,
        }
    }

    fn facts(pools: Vec<CephPool>, osds: Vec<Pod>) -> Facts {
        let mut f = Facts::unread("test");
        f.ceph_pools = Ok(pools);
        f.osd_pods = Ok(osds);
        f
    }

    fn replicapool() -> CephPool {
        pool(
            "CephBlockPool rook-ceph/replicapool",
            "host",
            3,
            "replicated size 3",
        )
    }

    #[test]
    fn four_osd_hosts_leave_three_for_a_size_3_pool() {
        let osds = (1..=4)
            .map(|i| osd(i, &format!("n{i}"), true, Some(&format!("n{i}"))))
            .collect();
        let c = osd_hosts(&drain("n2"), &facts(vec![replicapool()], osds));
        assert_eq!(
            c,
            Check::Holds(
                "without n2's 1 OSD(s): 3 hosts left, CephBlockPool rook-ceph/replicapool needs 3"
                    .into()
            )
        );
    }

    #[test]
    fn three_osd_hosts_leave_two_for_a_size_3_pool_a_blocker() {
        let osds = (1..=3)
            .map(|i| osd(i, &format!("n{i}"), true, None))
            .collect();
        let Check::Fails(f) = osd_hosts(&drain("n3"), &facts(vec![replicapool()], osds)) else {
            panic!("expected a blocker")
        };
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].subject, "CephBlockPool rook-ceph/replicapool");
        assert_eq!(
            f[0].evidence,
            "replicated size 3, failureDomain host: its copies need 3 hosts; without n3's 1 OSD(s) 2 host(s) with a Ready OSD remain (n1, n2)"
        );
    }

    #[test]
    fn a_down_osd_elsewhere_does_not_count_and_is_named() {
        let osds = vec![
            osd(1, "n1", true, None),
            osd(2, "n2", true, None),
            osd(3, "n3", true, None),
            osd(4, "n4", false, None),
        ];
        let Check::Fails(f) = osd_hosts(&drain("n2"), &facts(vec![replicapool()], osds)) else {
            panic!("expected a blocker")
        };
        assert!(f[0].evidence.contains("(n1, n3)"), "{}", f[0].evidence);
        assert!(
            f[0].evidence
                .ends_with("1 OSD pod(s) elsewhere are not Ready"),
            "{}",
            f[0].evidence
        );
    }

    /// Rook names a portable (PVC) OSD's CRUSH host after its PVC: two OSDs on one node
    /// may be two hosts, and the label, not the node, is what Ceph counts.
    #[test]
    fn the_crush_host_label_wins_over_the_node() {
        let osds = vec![
            osd(1, "n1", true, Some("set1-data-0-abcde")),
            osd(2, "n1", true, Some("set1-data-1-fghij")),
            osd(3, "n2", true, Some("set1-data-2-klmno")),
            osd(4, "n3", true, Some("set1-data-3-pqrst")),
        ];
        let c = osd_hosts(&drain("n3"), &facts(vec![replicapool()], osds));
        assert!(matches!(c, Check::Holds(_)), "{c:?}");
    }

    #[test]
    fn erasure_coded_needs_data_plus_coding_domains_and_osd_domain_counts_osds() {
        let osds = vec![
            osd(1, "n1", true, None),
            osd(2, "n1", true, None),
            osd(3, "n2", true, None),
        ];
        let ec = pool(
            "CephBlockPool rook-ceph/ecpool",
            "host",
            3,
            "erasure-coded 2+1",
        );
        let per_osd = pool(
            "CephBlockPool rook-ceph/osdpool",
            "osd",
            2,
            "replicated size 2",
        );
        let Check::Fails(f) = osd_hosts(&drain("n2"), &facts(vec![ec, per_osd], osds)) else {
            panic!("expected a blocker")
        };
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].subject, "CephBlockPool rook-ceph/ecpool");
        assert!(
            f[0].evidence
                .contains("1 host(s) with a Ready OSD remain (n1)"),
            "{}",
            f[0].evidence
        );
    }

    #[test]
    fn a_domain_the_pods_do_not_label_is_undecided_never_go() {
        let osds = vec![osd(1, "n1", true, None), osd(2, "n2", true, None)];
        let rack = pool(
            "CephBlockPool rook-ceph/rackpool",
            "rack",
            2,
            "replicated size 2",
        );
        let c = osd_hosts(&drain("n2"), &facts(vec![rack], osds));
        assert_eq!(
            c,
            Check::Unknown(
                "CephBlockPool rook-ceph/rackpool: OSD pod rook-ceph/rook-ceph-osd-1-7c9b5d6f4-abcde has no topology-location-rack label to place it".into()
            )
        );
    }

    #[test]
    fn no_osd_on_node_or_no_pool_holds_and_unread_is_unknown() {
        let osds = vec![osd(1, "n1", true, None)];
        let c = osd_hosts(&drain("n2"), &facts(vec![replicapool()], osds.clone()));
        assert_eq!(c, Check::Holds("no OSD runs on n2".into()));
        let c = osd_hosts(&drain("n1"), &facts(vec![], osds.clone()));
        assert!(
            matches!(c, Check::Holds(ref w) if w.contains("no pool declared")),
            "{c:?}"
        );
        let mut f = facts(vec![replicapool()], osds);
        f.ceph_pools = Err(ReadFailure::new(FailureKind::Forbidden, "forbidden"));
        assert!(matches!(osd_hosts(&drain("n1"), &f), Check::Unknown(_)));
    }
}
