//! `drain-ceph-health` and `drain-mon-majority` over the CephClusters listed: healthy,
//! benign warnings, harmful checks and a stale status; every CephCluster judged, never the
//! first (issue 49 item 1); a status from the future (issue 49 item 2).

use super::tests::{cluster, drain, eval, outcome, seen, NOW};
use super::*;

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("../../../tests/fixtures/gate/", $name))
    };
}

fn ok<T>(r: crate::error::Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("fixture does not decode: {e}"),
    }
}

#[test]
fn ceph_health_go_benign_warn_no_go_and_stale() {
    let mut f = cluster();
    let warn = ok(decode::ceph_clusters(fixture!("cephclusters-warn.json")));
    f.ceph = Ok(warn.clone());
    let (status, evidence, verdict) = seen(&eval(&drain("dirqual2"), &f), RuleId::DrainCephHealth);
    assert_eq!(status, Status::Fails);
    // One entry for the CephCluster, its harmful checks listed (v0.4 wrote one each).
    assert_eq!(verdict, "NO-GO: 1 blocker");
    assert_eq!(
        evidence,
        ["HEALTH_WARN: OSD_DOWN (HEALTH_WARN): 3 osds down; HEALTH_WARN: PG_DEGRADED (HEALTH_WARN): Degraded data redundancy: 1204/3612 objects degraded (33.333%), 41 pgs degraded"]
    );
    // Only the benign check left: GO.
    if let Some(c) = f.ceph.as_mut().ok().and_then(|all| all.first_mut()) {
        c.checks.retain(|k| k.name == "RECENT_MGR_MODULE_CRASH");
    }
    let ev = eval(&drain("dirqual2"), &f);
    assert_eq!(outcome(&ev, RuleId::DrainCephHealth).status, Status::Holds);
    assert_eq!(ev.verdict, Verdict::Go);
    // A status Rook stopped writing 11 minutes ago is stale: never GO.
    f.observed_at = Some(NOW + 10 * 60);
    let ev = eval(&drain("dirqual2"), &f);
    assert_eq!(
        outcome(&ev, RuleId::DrainCephHealth).note,
        "CephCluster rook-ceph/rook-ceph: status.ceph is stale (last checked 11m ago, more than 10m): Rook stopped writing it"
    );
    assert_eq!(
        ev.verdict.line(),
        "CANNOT TELL: drain-ceph-health undecided"
    );
}

/// Issue 49 item 1: a lab CephCluster listed first (HEALTH_OK) never hides Rook's own in
/// HEALTH_ERR: every CephCluster is judged (v0.4 kept the first and said GO); the mons are
/// judged for the one in rook-ceph, whose mons nestor reads, and the other is named.
#[test]
fn every_ceph_cluster_is_judged_never_the_first() {
    let mut f = cluster();
    if let Ok(all) = &mut f.ceph {
        let mut lab = all[0].clone();
        lab.namespace = "ceph-lab".into();
        lab.name = "lab".into();
        all[0].health = "HEALTH_ERR".into();
        all.insert(0, lab);
    }
    let ev = eval(&drain("dirqual2"), &f);
    let o = outcome(&ev, RuleId::DrainCephHealth);
    assert_eq!(o.status, Status::Fails, "{o:?}");
    assert!(o
        .findings
        .iter()
        .all(|x| x.subject == "CephCluster rook-ceph/rook-ceph"));
    assert!(matches!(ev.verdict, Verdict::NoGo { .. }));
    assert!(
        outcome(&ev, RuleId::DrainMonMajority)
            .note
            .ends_with("(not judged: ceph-lab/lab, whose mons nestor does not read)"),
        "{:?}",
        outcome(&ev, RuleId::DrainMonMajority)
    );
}

/// Issue 49 item 2: a `lastChecked` 400 days in the future is no proof of freshness: CANNOT
/// TELL naming the clock, never GO (v0.4 read it as "checked -34559988s ago").
#[test]
fn a_ceph_status_from_the_future_cannot_tell() {
    let mut f = cluster();
    if let Some(c) = f.ceph.as_mut().ok().and_then(|all| all.first_mut()) {
        c.last_checked = Some(NOW + 400 * 86_400);
    }
    let ev = eval(&drain("dirqual2"), &f);
    let o = outcome(&ev, RuleId::DrainCephHealth);
    assert_eq!(o.status, Status::Unknown);
    assert!(
        o.note.contains("in the future of this run's clock"),
        "{o:?}"
    );
    assert!(matches!(
        ev.verdict,
        Verdict::CannotTell { .. } | Verdict::NoGo { .. }
    ));
    // Within the skew: fresh.
    if let Some(c) = f.ceph.as_mut().ok().and_then(|all| all.first_mut()) {
        c.last_checked = Some(NOW + 60);
    }
    let ev = eval(&drain("dirqual2"), &f);
    assert_eq!(outcome(&ev, RuleId::DrainCephHealth).status, Status::Holds);
}
