//! The gates on real-shaped fixtures (tests/fixtures/gate: JSON as the API server serves
//! it, decoded by `decode`): the built-in table, then each rule of `gate drain` in its GO
//! form, its NO-GO form and its failed-read form (CANNOT TELL for a blocker). The upgrade
//! gates' rules are in `upgrade_tests.rs`.

use std::collections::BTreeMap;

use super::facts::{Facts, VolumeKind};
use super::host::TimeSync;
use super::host_tests::control_plane_certs;
use super::version::Version;
use super::*;
use crate::model::observation::{FailureKind, ReadFailure};

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("../../../tests/fixtures/gate/", $name))
    };
}

/// 2026-12-01T21:42:00Z: two minutes after the CephCluster's lastChecked.
pub(super) const NOW: i64 = 1_796_161_320;

pub(crate) fn forbidden() -> ReadFailure {
    ReadFailure::new(
        FailureKind::Forbidden,
        "poddisruptionbudgets.policy is forbidden: User \"viewer\" cannot list resource",
    )
}

fn ok<T>(r: crate::error::Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("fixture does not decode: {e}"),
    }
}

/// Everything every gate reads, from the fixtures of a healthy 4-node cluster.
pub(crate) fn cluster() -> Facts {
    let mut f = Facts::unread("not read");
    f.observed_at = Some(NOW);
    f.pdbs = Ok(ok(decode::pdbs(fixture!("pdbs.json"))));
    f.node_pods = Ok(ok(decode::pods(fixture!("pods-dirqual2.json"))));
    f.cluster_pods = Ok(ok(decode::requests_per_node(fixture!("cluster-pods.json"))));
    f.nodes = Ok(ok(decode::nodes(fixture!("nodes.json"))));
    f.pvs = Ok(ok(decode::pvs(fixture!("pvs.json"))));
    f.crds = Ok(ok(decode::crds(fixture!("crds.json"))));
    f.ceph = Ok(ok(decode::ceph_clusters(fixture!("cephclusters.json"))));
    f.mon_pods = Ok(ok(decode::pods(fixture!("mon-pods.json"))));
    f.etcd_pods = Ok(ok(decode::pods(fixture!("etcd-pods.json"))));
    f.ceph_pools = Ok(ok(decode::block_pools(fixture!("cephblockpools.json"))));
    f.osd_pods = Ok(ok(decode::pods(fixture!("osd-pods.json"))));
    f.daemonsets = Ok(ok(decode::daemonsets(fixture!("daemonsets.json"))));
    f.cnpg_clusters = Ok(ok(decode::cnpg_clusters(fixture!("cnpg-clusters.json"))));
    f.apiserver_pods = Ok(ok(decode::pods(fixture!("apiserver-pods.json"))));
    f.readyz = Ok(ok(decode::readyz(fixture!("readyz.txt"))));
    let mut images = ok(decode::workload_images(
        fixture!("cilium-daemonsets.json"),
        "DaemonSet",
    ));
    images.extend(ok(decode::workload_images(
        fixture!("cilium-deployments.json"),
        "Deployment",
    )));
    f.cilium_images = Ok(images);
    let mut rook = ok(decode::rook_versions(fixture!("rook-deployments.json")));
    rook.push(ok(decode::rook_operator(fixture!("rook-operator.json"))));
    f.rook_versions = Ok(rook);
    // A stack whose component layer is its last: nothing after it (`layers_tests.rs` has
    // the later layers).
    f.layers_after = Ok(super::facts::LayersAfter {
        layer: "cni".into(),
        after: vec![],
        not_judged: vec![],
    });
    let hosts = |v: bool| -> BTreeMap<String, _> {
        ["dirqual1", "dirqual2", "dirqual3", "dirqual4"]
            .into_iter()
            .map(|h| (h.to_string(), Ok(v)))
            .collect()
    };
    f.host_time_sync = Ok(hosts(true)
        .into_iter()
        .map(|(h, r)| (h, r.map(|_: bool| TimeSync::synced())))
        .collect());
    f.host_cgroup = Ok(hosts(true));
    f.host_certs = Ok(control_plane_certs(include_bytes!(
        "../../../tests/fixtures/gate/pki/apiserver-valid.crt"
    )));
    f.components = [
        (Component::Cilium, Ok(Version::parse("v1.18.2"))),
        (Component::Rook, Ok(Version::parse("v1.14.9"))),
        (Component::CertManager, Ok(Version::parse("v1.19.1"))),
        (Component::Cnpg, Ok(None)),
    ]
    .into_iter()
    .collect();
    f
}

pub(crate) fn drain(node: &str) -> Request {
    Request {
        gate: Gate::Drain,
        node: Some(node.to_string()),
        version: None,
    }
}

pub(super) fn eval(req: &Request, facts: &Facts) -> Evaluation {
    evaluate(req, facts, builtin())
}

pub(super) fn outcome(ev: &Evaluation, id: RuleId) -> &Outcome {
    match ev.outcomes.iter().find(|o| o.rule.id == id) {
        Some(o) => o,
        None => panic!("no outcome for {}", id.as_str()),
    }
}

/// The rule's status, its findings' evidence, and the verdict line.
pub(super) fn seen(ev: &Evaluation, id: RuleId) -> (Status, Vec<String>, String) {
    let o = outcome(ev, id);
    (
        o.status,
        o.findings.iter().map(|f| f.evidence.clone()).collect(),
        ev.verdict.line(),
    )
}

// ---- drain ------------------------------------------------------------------------------

#[test]
fn drain_of_a_healthy_worker_is_go_with_its_emptydir_warning() {
    let ev = eval(&drain("dirqual2"), &cluster());
    assert_eq!(ev.verdict, Verdict::Go);
    let fails: Vec<&str> = ev
        .outcomes
        .iter()
        .filter(|o| o.status != Status::Holds)
        .map(|o| o.rule.id.as_str())
        .collect();
    // CNPG keeps scratch data and shared memory in emptyDirs: a warning, never a blocker.
    assert_eq!(fails, ["drain-emptydir"]);
    assert_eq!(
        seen(&ev, RuleId::DrainEmptydir).1,
        ["emptyDir scratch-data, shm: its data is deleted with the pod"]
    );
    // The DaemonSet pod's hostPath and the finished Job pod are ignored.
    assert_eq!(
        outcome(&ev, RuleId::DrainNodeBoundVolumes).note,
        "no pod on dirqual2 has a node-bound volume"
    );
}

#[test]
fn a_cnpg_primary_on_node_blocks_with_cnpgs_words() {
    let mut f = cluster();
    // A failover put the primary on dirqual2.
    if let Ok(pods) = &mut f.node_pods {
        for p in pods.iter_mut().filter(|p| p.name == "pg-main-2") {
            p.labels
                .insert("cnpg.io/instanceRole".into(), "primary".into());
        }
    }
    if let Ok(clusters) = &mut f.cnpg_clusters {
        clusters[0].current_primary = "pg-main-2".into();
    }
    let ev = eval(&drain("dirqual2"), &f);
    let o = outcome(&ev, RuleId::DrainPdbBlocks);
    assert_eq!(o.status, Status::Fails);
    assert_eq!(
        o.findings[0].subject,
        "PodDisruptionBudget cnpg/pg-main-primary"
    );
    assert_eq!(
        o.findings[0].evidence,
        "CloudNativePG's primary budget: the primary of cluster pg-main runs here; disruptionsAllowed 0 (currentHealthy 1, desiredHealthy 1, expectedPods 1); selects pg-main-2 on dirqual2"
    );
    assert_eq!(
        o.findings[0].clears,
        "switch over first: `kubectl cnpg promote pg-main pg-main-1 -n cnpg` (Ready replicas: pg-main-1, pg-main-3)"
    );
    assert_eq!(ev.verdict.line(), "NO-GO: 1 blocker");
    // One Ready replica: named alone.
    let mut one = f.clone();
    if let Ok(clusters) = &mut one.cnpg_clusters {
        clusters[0].healthy = vec!["pg-main-2".into(), "pg-main-3".into()];
    }
    let ev = eval(&drain("dirqual2"), &one);
    assert_eq!(
        outcome(&ev, RuleId::DrainPdbBlocks).findings[0].clears,
        "switch over first: `kubectl cnpg promote pg-main pg-main-3 -n cnpg`"
    );
    // None Ready but the primary: nothing to promote yet.
    if let Ok(clusters) = &mut one.cnpg_clusters {
        clusters[0].healthy = vec!["pg-main-2".into()];
    }
    let ev = eval(&drain("dirqual2"), &one);
    assert_eq!(
        outcome(&ev, RuleId::DrainPdbBlocks).findings[0].clears,
        "no replica of pg-main is Ready (status.instancesStatus): wait for one, then switch over"
    );
    // SPEC §17: a single-instance cluster has no replica to promote.
    let mut single = f.clone();
    if let Ok(clusters) = &mut single.cnpg_clusters {
        clusters[0].instances = 1;
        clusters[0].healthy = vec!["pg-main-2".into()];
    }
    let ev = eval(&drain("dirqual2"), &single);
    let o = outcome(&ev, RuleId::DrainPdbBlocks);
    assert_eq!(
        o.findings[0].evidence,
        "CloudNativePG's primary budget: cluster pg-main has a single instance, and it runs here; disruptionsAllowed 0 (currentHealthy 1, desiredHealthy 1, expectedPods 1); selects pg-main-2 on dirqual2"
    );
    assert_eq!(
        o.findings[0].clears,
        "its only instance goes down with the node: add an instance (spec.instances: 2), or declare the node maintenance window CNPG reads (spec.nodeMaintenanceWindow.inProgress: true)"
    );
    // The Cluster unread: the words say so, and the verdict stands (the budget decides it).
    let mut unread = f.clone();
    unread.cnpg_clusters = Err(forbidden());
    let ev = eval(&drain("dirqual2"), &unread);
    assert!(
        outcome(&ev, RuleId::DrainPdbBlocks).findings[0]
            .clears
            .starts_with("switch over first: `kubectl cnpg promote pg-main <replica> -n cnpg` (Cluster cnpg/pg-main not read: Forbidden"),
        "{ev:?}"
    );
    assert_eq!(ev.verdict.line(), "NO-GO: 1 blocker");
    assert_eq!(ev.verdict.exit(), crate::error::Exit::PlanNotEmpty);
}

#[test]
fn rooks_osd_and_mon_budgets_block_with_rooks_reasons() {
    let mut f = cluster();
    if let Ok(pdbs) = &mut f.pdbs {
        for p in pdbs.iter_mut() {
            if p.name == "rook-ceph-osd" || p.name == "rook-ceph-mon-pdb" {
                p.disruptions_allowed = 0;
            }
        }
    }
    let (status, evidence, verdict) = seen(&eval(&drain("dirqual2"), &f), RuleId::DrainPdbBlocks);
    assert_eq!(status, Status::Fails);
    assert_eq!(verdict, "NO-GO: 2 blockers");
    assert_eq!(
        evidence,
        [
            "Rook's mon budget: a mon is already down; disruptionsAllowed 0 (currentHealthy 3, desiredHealthy 2, expectedPods 3); selects rook-ceph-mon-b-5d8c7f9b4-zz7lm on dirqual2",
            "Rook's OSD budget: Ceph is not clean (Rook blocks the other failure domains while PGs recover); disruptionsAllowed 0 (currentHealthy 3, desiredHealthy 2, expectedPods 3); selects rook-ceph-osd-1-6c9f8d7b5-q2x8r on dirqual2",
        ]
    );
}

#[test]
fn every_drain_blocker_with_a_forbidden_read_cannot_tell() {
    type Unread = fn(&mut Facts);
    let unread: [(RuleId, Unread); 9] = [
        (RuleId::DrainPdbBlocks, |f| f.pdbs = Err(forbidden())),
        (RuleId::DrainCephHealth, |f| f.ceph = Err(forbidden())),
        (RuleId::DrainMonMajority, |f| f.mon_pods = Err(forbidden())),
        (RuleId::DrainOsdHosts, |f| f.ceph_pools = Err(forbidden())),
        (RuleId::DrainOsdHosts, |f| f.osd_pods = Err(forbidden())),
        (RuleId::DrainControlPlane, |f| f.nodes = Err(forbidden())),
        (RuleId::DrainEtcdMajority, |f| {
            f.etcd_pods = Err(forbidden())
        }),
        (RuleId::DrainNodeBoundVolumes, |f| f.pvs = Err(forbidden())),
        (RuleId::DrainTimeSync, |f| {
            let said = "ssh: connect to host 10.67.2.12 port 22: Connection timed out";
            f.host_time_sync = Err(ReadFailure::new(FailureKind::Timeout, said))
        }),
    ];
    for (id, unread) in unread {
        let mut f = cluster();
        unread(&mut f);
        let ev = eval(&drain("dirqual2"), &f);
        assert_eq!(outcome(&ev, id).status, Status::Unknown, "{}", id.as_str());
        let undecided =
            matches!(&ev.verdict, Verdict::CannotTell { undecided } if undecided.contains(&id));
        assert!(undecided, "{}: {:?}", id.as_str(), ev.verdict);
        assert_eq!(ev.verdict.exit(), crate::error::Exit::Undecided);
    }
    let mut f = cluster();
    f.ceph = Err(forbidden());
    assert_eq!(
        outcome(&eval(&drain("dirqual2"), &f), RuleId::DrainCephHealth).note,
        "the read of ceph-cluster failed: Forbidden: poddisruptionbudgets.policy is forbidden: User \"viewer\" cannot list resource"
    );
}

#[test]
fn warnings_with_a_failed_read_are_undecided_but_never_decide_the_verdict() {
    let mut f = cluster();
    f.cluster_pods = Err(forbidden());
    let ev = eval(&drain("dirqual2"), &f);
    assert_eq!(outcome(&ev, RuleId::DrainCapacity).status, Status::Unknown);
    assert_eq!(ev.verdict, Verdict::Go);
}

#[test]
fn mon_majority_go_and_no_go() {
    let ev = eval(&drain("dirqual2"), &cluster());
    assert_eq!(
        outcome(&ev, RuleId::DrainMonMajority).note,
        "without dirqual2: 2 of 3 mons Ready on 2 distinct nodes (majority 2)"
    );
    let mut f = cluster();
    if let Ok(mons) = &mut f.mon_pods {
        mons[2].ready = false;
    }
    let (status, evidence, verdict) = seen(&eval(&drain("dirqual2"), &f), RuleId::DrainMonMajority);
    assert_eq!(
        (status, verdict.as_str()),
        (Status::Fails, "NO-GO: 1 blocker")
    );
    assert_eq!(
        evidence,
        ["mon count 3: without dirqual2 1 mon(s) Ready (rook-ceph-mon-a-6b7d9c5f8-2lq9x on dirqual1), a majority needs 2"]
    );
    // Two mons left, but on one node: one more node lost costs quorum.
    let mut f = cluster();
    if let Ok(mons) = &mut f.mon_pods {
        mons[2].node = "dirqual1".into();
    }
    let (status, evidence, _) = seen(&eval(&drain("dirqual2"), &f), RuleId::DrainMonMajority);
    assert_eq!(status, Status::Fails);
    assert!(
        evidence[0].starts_with("without dirqual2 the Ready mons share 1 node(s)"),
        "{evidence:?}"
    );
}

/// SPEC §17: the only control-plane node of a cluster is a warning, never a blocker: a drain
/// leaves its static pods (API server, etcd) running, as kubeadm's own upgrade drains it.
/// (v0.4 said NO-GO, "the API server goes down with it", while `gate upgrade kubernetes`
/// said GO for the upgrade that drains that very node.)
#[test]
fn a_lone_control_plane_node_is_a_warning_and_its_etcd_member_stays() {
    let ev = eval(&drain("dirqual1"), &cluster());
    assert_eq!(ev.verdict, Verdict::Go, "{ev:?}");
    assert_eq!(
        outcome(&ev, RuleId::DrainControlPlane).note,
        "dirqual1 is the only control-plane node: drain-single-control-plane says what that costs"
    );
    let single = seen(&ev, RuleId::DrainSingleControlPlane);
    assert_eq!(single.0, Status::Fails);
    assert_eq!(
        single.1,
        ["dirqual1 is the cluster's only control-plane node: a drain leaves its static pods (kube-apiserver, etcd) running, but the API is unavailable while dirqual1 restarts"]
    );
    assert_eq!(
        outcome(&ev, RuleId::DrainEtcdMajority).note,
        "dirqual1 is the only control-plane node: a drain leaves its etcd member running"
    );
    // Two control-plane nodes, the other one not Ready: the API goes down with dirqual1.
    let mut f = cluster();
    if let (Ok(nodes), Ok(etcd)) = (&mut f.nodes, &mut f.etcd_pods) {
        for n in nodes.iter_mut().filter(|n| n.name == "dirqual2") {
            n.roles = vec!["control-plane".into()];
            n.ready = false;
        }
        let mut p = etcd[0].clone();
        p.node = "dirqual2".into();
        p.name = "etcd-dirqual2".into();
        p.ready = false;
        etcd.push(p);
    }
    let ev = eval(&drain("dirqual1"), &f);
    assert_eq!(
        seen(&ev, RuleId::DrainControlPlane).1,
        ["dirqual1 is the only Ready control-plane node (not Ready: dirqual2): the API server goes down with it"]
    );
    let etcd = outcome(&ev, RuleId::DrainEtcdMajority);
    assert_eq!(
        etcd.findings[0].evidence,
        "2 etcd members: without dirqual1 0 Ready, a majority needs 2 (not Ready: kube-system/etcd-dirqual2)"
    );
    assert_eq!(
        etcd.findings[0].clears,
        "bring the other etcd members back to Ready first, or the API stops with dirqual1"
    );
    assert_eq!(
        outcome(&ev, RuleId::DrainSingleControlPlane).status,
        Status::Holds
    );
    assert_eq!(ev.verdict, Verdict::NoGo { blockers: 2 });
    // A worker has no etcd member and is no control-plane node.
    let ev = eval(&drain("dirqual3"), &cluster());
    assert_eq!(
        outcome(&ev, RuleId::DrainControlPlane).note,
        "dirqual3 is not a control-plane node"
    );
    assert_eq!(
        outcome(&ev, RuleId::DrainEtcdMajority).note,
        "no etcd member runs on dirqual3 (1 mirror pods)"
    );
    // Three control-plane nodes, etcd on each: dirqual1 may go.
    let mut f = cluster();
    if let (Ok(nodes), Ok(etcd)) = (&mut f.nodes, &mut f.etcd_pods) {
        for n in nodes.iter_mut().filter(|n| n.name != "dirqual4") {
            n.roles = vec!["control-plane".into()];
        }
        for name in ["dirqual2", "dirqual3"] {
            let mut p = etcd[0].clone();
            p.node = name.into();
            p.name = format!("etcd-{name}");
            etcd.push(p);
        }
    }
    let ev = eval(&drain("dirqual1"), &f);
    assert_eq!(
        outcome(&ev, RuleId::DrainControlPlane).status,
        Status::Holds
    );
    assert_eq!(
        outcome(&ev, RuleId::DrainEtcdMajority).note,
        "without dirqual1: 2 of 3 etcd members Ready (majority 2)"
    );
}

#[test]
fn no_etcd_pod_on_a_control_plane_node_cannot_tell_but_a_worker_holds() {
    // A control-plane NODE and no etcd mirror pod at all: finding none is no evidence.
    let mut f = cluster();
    f.etcd_pods = Ok(vec![]);
    let ev = eval(&drain("dirqual1"), &f);
    let o = outcome(&ev, RuleId::DrainEtcdMajority);
    assert_eq!(
        (o.status, o.note.as_str()),
        (
            Status::Unknown,
            "no etcd mirror pod found in kube-system (component=etcd): external etcd? nestor cannot tell the quorum"
        )
    );
    // A worker holds no stacked etcd member; a NODE the cluster lacks is never "none there".
    let ev = eval(&drain("dirqual3"), &f);
    let o = outcome(&ev, RuleId::DrainEtcdMajority);
    assert_eq!(
        (o.status, o.note.as_str()),
        (
            Status::Holds,
            "no etcd member runs on dirqual3: it is not a control-plane node"
        )
    );
    let ev = eval(&drain("dirqual9"), &f);
    let o = outcome(&ev, RuleId::DrainEtcdMajority);
    assert_eq!(
        (o.status, o.note.as_str()),
        (Status::Unknown, "the cluster has no node dirqual9")
    );
}

#[test]
fn no_rook_holds_the_ceph_rules_and_a_cephcluster_without_mon_pods_blocks() {
    // Rook not installed: the CephCluster list is a 404 (the session makes it `None`) and the
    // rook-ceph namespace lists no mon pod. Both Ceph rules hold: nothing to keep in quorum.
    let mut f = cluster();
    f.ceph = Ok(vec![]);
    f.mon_pods = Ok(vec![]);
    let ev = eval(&drain("dirqual2"), &f);
    for id in [RuleId::DrainCephHealth, RuleId::DrainMonMajority] {
        let o = outcome(&ev, id);
        assert_eq!(
            (o.status, o.note.as_str()),
            (Status::Holds, "no CephCluster in the cluster"),
            "{}",
            id.as_str()
        );
    }
    // A CephCluster of 3 mons and no mon pod found: no majority is left, a NO-GO (never GO).
    let mut f = cluster();
    f.mon_pods = Ok(vec![]);
    let (status, evidence, _) = seen(&eval(&drain("dirqual2"), &f), RuleId::DrainMonMajority);
    assert_eq!(status, Status::Fails);
    assert_eq!(
        evidence,
        ["mon count 3: without dirqual2 0 mon(s) Ready (none), a majority needs 2"]
    );
}

#[test]
fn node_bound_volumes_block() {
    let mut f = cluster();
    f.pvs = Ok(ok(decode::pvs(fixture!("pvs-local.json"))));
    let (status, evidence, verdict) =
        seen(&eval(&drain("dirqual2"), &f), RuleId::DrainNodeBoundVolumes);
    assert_eq!(
        (status, verdict.as_str()),
        (Status::Fails, "NO-GO: 1 blocker")
    );
    assert_eq!(
        evidence,
        ["volume pgdata: claim pg-main-2 is bound to PersistentVolume local-pv-dirqual2-nvme0, a local volume on dirqual2: the pod cannot move"]
    );
    // A StatefulSet pod keeping a hostPath.
    let mut f = cluster();
    if let Ok(pods) = &mut f.node_pods {
        for p in pods.iter_mut().filter(|p| p.name.starts_with("web-")) {
            p.owners[0].kind = "StatefulSet".into();
            p.owners[0].name = "web".into();
            p.volumes
                .push(("data".into(), VolumeKind::HostPath("/srv/web".into())));
        }
    }
    let (_, evidence, _) = seen(&eval(&drain("dirqual2"), &f), RuleId::DrainNodeBoundVolumes);
    assert_eq!(evidence, ["StatefulSet web keeps volume data in hostPath /srv/web on dirqual2: its data stays there"]);
}

#[test]
fn pods_without_a_controller_and_emptydirs_are_warnings() {
    let mut f = cluster();
    if let Ok(pods) = &mut f.node_pods {
        for p in pods.iter_mut() {
            p.volumes
                .retain(|(_, k)| *k != VolumeKind::EmptyDir || p.name.starts_with("cilium"));
            if p.name.starts_with("web-") {
                p.owners.clear();
            }
        }
    }
    let ev = eval(&drain("dirqual2"), &f);
    assert_eq!(
        outcome(&ev, RuleId::DrainEmptydir).note,
        "no evicted pod keeps data in an emptyDir"
    );
    let o = outcome(&ev, RuleId::DrainUnmanagedPods);
    assert_eq!(o.status, Status::Fails);
    assert_eq!(o.findings[0].subject, "pod apps/web-7d9c6b8f5-4kq2n");
    assert_eq!(ev.verdict, Verdict::Go);
    let ev = eval(&drain("dirqual2"), &cluster());
    assert_eq!(
        outcome(&ev, RuleId::DrainUnmanagedPods).status,
        Status::Holds
    );
}

#[test]
fn capacity_is_a_sum_and_a_warning() {
    let ev = eval(&drain("dirqual2"), &cluster());
    // dirqual1 is tainted NoSchedule: only dirqual3 and dirqual4 take pods.
    assert_eq!(
        outcome(&ev, RuleId::DrainCapacity).note,
        "needs 2.25 CPU, 6.2 GiB; 2 nodes have 14.25 CPU, 25.6 GiB free"
    );
    let mut f = cluster();
    if let Ok(nodes) = &mut f.nodes {
        for n in nodes.iter_mut().filter(|n| n.name == "dirqual3") {
            n.unschedulable = true;
        }
        for n in nodes.iter_mut().filter(|n| n.name == "dirqual4") {
            n.allocatable.cpu_milli = 2000;
        }
    }
    let ev = eval(&drain("dirqual2"), &f);
    let (status, evidence, verdict) = seen(&ev, RuleId::DrainCapacity);
    assert_eq!((status, verdict.as_str()), (Status::Fails, "GO"));
    assert_eq!(evidence, ["its pods request 2.25 CPU, 6.2 GiB; the 1 other schedulable nodes have 1 CPU, 11.4 GiB free"]);
}
