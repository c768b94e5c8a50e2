//! A cluster that changes while served (`Config::then_after`): the stage moves after the
//! counted GETs of `/api/v1/nodes` were answered, and only those count.

mod common;

use common::*;
use nestor_replay::{timeline, Config, Server};

const RGW: &str = "/apis/apps/v1/namespaces/rook-ceph/deployments/rook-ceph-rgw-s3-a";

fn available(server: &Server) -> serde_json::Value {
    get(server, RGW, None).json()["status"]["availableReplicas"].clone()
}

#[test]
fn the_rgw_comes_up_after_two_node_reads_and_ceph_never_clears() {
    let (before, after) = timeline::rgw_rollout();
    let server = Server::start(Config::new(before).then_after(2, after)).expect("start");
    // Other paths do not move the stage.
    for _ in 0..5 {
        assert_eq!(available(&server), serde_json::Value::Null);
    }
    assert_eq!(get(&server, "/api/v1/nodes", None).status, 200);
    assert_eq!(available(&server), serde_json::Value::Null);
    // The second node read still sees the first stage; the reads after it the second.
    let nodes = get(&server, "/api/v1/nodes", None).json();
    assert_eq!(nodes["items"].as_array().map(Vec::len), Some(4));
    assert_eq!(server.stage_count(), 2);
    assert_eq!(available(&server), serde_json::json!(2));
    let ceph = get(
        &server,
        "/apis/ceph.rook.io/v1/namespaces/rook-ceph/cephclusters/rook-ceph",
        None,
    )
    .json();
    assert_eq!(ceph["status"]["ceph"]["health"], "HEALTH_WARN");
}
