//! Ceph's capacity codes are never benign (SPEC §6 v0.4, issue 34 item 5): a catalog that
//! lists one under a `tolerate:` check's `benign:` is refused when it is read, with its
//! position (a HEALTH_WARN carrying one is degraded: `model::state` tests).

use super::*;

fn ceph_layer(benign: &str) -> String {
    format!(
        "- id: ceph\n  title: Rook-Ceph cluster\n  detect:\n    - apiGroup: ceph.rook.io\n  healthy:\n    - tolerate: {{resource: cephclusters.ceph.rook.io, kind: CephCluster, namespace: rook-ceph, field: .status.ceph.health, ok: [HEALTH_OK], warn: HEALTH_WARN, details: .status.ceph.details, benign: [{benign}]}}\n  install: ansible-playbook platform/ceph.yaml\n"
    )
}

#[test]
fn a_catalog_that_calls_a_capacity_code_benign_is_refused() {
    for code in NEVER_BENIGN {
        let err = Catalog::builtin()
            .unwrap()
            .overlay_str(
                &ceph_layer(&format!("RECENT_MGR_MODULE_CRASH, {code}")),
                "stacks/layers.yaml",
            )
            .unwrap_err();
        assert_eq!(
            err.message,
            format!("stacks/layers.yaml:6:5: [0].healthy: `benign: [{code}]`: {code} is a capacity warning and never benign (OSD_NEARFULL, OSD_BACKFILLFULL, OSD_FULL, POOL_NEARFULL, POOL_FULL): a cluster filling up is repaired, not tolerated; remove it from `benign:`"),
            "{code}"
        );
    }
    // Its neighbours are accepted.
    Catalog::builtin()
        .unwrap()
        .overlay_str(
            &ceph_layer("RECENT_MGR_MODULE_CRASH, OSD_SLOW_PING_TIME_BACK"),
            "x",
        )
        .unwrap();
}
