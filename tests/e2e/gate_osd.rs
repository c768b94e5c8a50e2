//! `drain-osd-hosts` through the real kubectl against the replay server (SPEC §17: "NODE's
//! OSDs may go only when every pool's replicas have another host"): GO on `dirqual-gates`
//! (four OSD hosts, replicapool size 3), NO-GO on `dirqual-gates-ec` (an object store's
//! erasure-coded 2+2 data pool needs all four hosts) with the pool, its layout and the hosts
//! left named, CANNOT TELL (exit 5, never GO) when a pool kind or the OSD pods are
//! forbidden, and a kind the server does not serve holds no pool.

use crate::bed_or_skip;

use crate::gate::stable;
use crate::support::*;

fn rule<'a>(v: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    v["rules"]
        .as_array()
        .and_then(|a| a.iter().find(|r| r["rule"] == id))
        .unwrap_or_else(|| panic!("no rule {id} in {v}"))
}

pub const NO_GO_EC_DIRQUAL4: &str = r#"gate drain dirqual4 on SERVER (context replay, rule: topology)
NO-GO: 1 blocker
blockers:
  drain-osd-hosts  CephObjectStore rook-ceph/s3 data pool
      erasure-coded 2+2, failureDomain host: its copies need 4 hosts; without
      dirqual4's 1 OSD(s) 3 host(s) with a Ready OSD remain (dirqual1, dirqual2,
      dirqual3)
      clears: add a host with OSDs before draining dirqual4: Ceph cannot place
      every copy elsewhere
skipped:
  drain-time-sync  not read: --no-ssh
holds:
  drain-pdb-blocks  4 budgets: the eviction API lets every pod of dirqual4 go
  drain-ceph-health  CephCluster rook-ceph/rook-ceph: HEALTH_OK, checked Ns ago
  drain-mon-majority  without dirqual4: 3 of 3 mons Ready on 3 distinct nodes (…
  drain-control-plane  dirqual4 is not a control-plane node
  drain-single-control-plane  dirqual4 is not a control-plane node
  drain-etcd-majority  no etcd member runs on dirqual4 (1 mirror pods)
  drain-node-bound-volumes  no pod on dirqual4 has a node-bound volume
  drain-unmanaged-pods  every pod's controller exists
  drain-emptydir  no evicted pod keeps data in an emptyDir
  drain-capacity  needs 1 CPU, 2.0 GiB; 2 nodes have 61 CPU, 245.3 GiB free
"#;

#[test]
fn gate_drain_an_ec_pool_that_needs_every_osd_host_is_no_go() {
    let bed = bed_or_skip!(E2e::new("dirqual-gates-ec", &[]));
    let r = bed.run(&["gate", "drain", "dirqual4", "--no-ssh", "--no-input"]);
    r.code(2);
    assert_eq!(stable(&r), NO_GO_EC_DIRQUAL4, "{r:?}");
    let j = bed.run(&[
        "gate",
        "drain",
        "dirqual4",
        "--no-ssh",
        "--no-input",
        "-o",
        "json",
    ]);
    j.code(2);
    let v = j.json();
    let osd = rule(&v, "drain-osd-hosts");
    assert_eq!(osd["status"], "fails", "{osd}");
    assert_eq!(osd["findings"].as_array().map(Vec::len), Some(1), "{osd}");
    assert_read_only(&bed.server);
}

#[test]
fn gate_drain_four_osd_hosts_hold_a_size_3_pool() {
    let (bed, r) = bed_or_skip!(gate(
        &[],
        &["drain", "dirqual2", "--no-ssh", "-o", "json"],
        0
    ));
    let v = r.json();
    let osd = rule(&v, "drain-osd-hosts");
    assert_eq!(osd["status"], "holds", "{osd}");
    assert_eq!(
        osd["note"],
        "without dirqual2's 1 OSD(s): 3 hosts left, CephBlockPool rook-ceph/replicapool needs 3",
        "{osd}"
    );
    assert_read_only(&bed.server);
}

#[test]
fn gate_drain_forbidden_pools_or_osd_pods_cannot_tell_never_go() {
    // A fault matches the path, not the query: rook-ceph's pods are its mons' and OSDs'.
    for (fault, undecided) in [
        (
            "GET /apis/ceph.rook.io/v1/cephblockpools=403",
            &["drain-osd-hosts"][..],
        ),
        (
            "GET /apis/ceph.rook.io/v1/cephobjectstores=403",
            &["drain-osd-hosts"][..],
        ),
        (
            "GET /api/v1/namespaces/rook-ceph/pods=403",
            &["drain-mon-majority", "drain-osd-hosts"][..],
        ),
    ] {
        let (bed, r) = bed_or_skip!(gate(
            &[fault],
            &["drain", "dirqual4", "--no-ssh", "-o", "json"],
            5
        ));
        assert_cannot_tell(&bed, &r.json(), undecided);
    }
}

/// A pool kind the server does not serve (an older Rook without CephObjectStores) is the
/// cluster's answer, no pool of that kind, not a failed read.
#[test]
fn gate_drain_a_pool_kind_not_served_holds_no_pool() {
    let (bed, r) = bed_or_skip!(gate(
        &["GET /apis/ceph.rook.io/v1/cephobjectstores=404"],
        &["drain", "dirqual4", "--no-ssh", "-o", "json"],
        0
    ));
    let v = r.json();
    assert_eq!(rule(&v, "drain-osd-hosts")["status"], "holds", "{v}");
    assert_read_only(&bed.server);
}
