//! Clusters that change while being served, for tests of `kubectl nestor wait`: a server
//! starts on its [`Config`](crate::Config) fixture and moves to the next [`Stage`] once it
//! has answered a number of requests to one path (`/api/v1/nodes`: every read of the real
//! state reads the nodes once, so "after N node reads" is "after N polls").
//!
//! The built-in evolution is the one a platform team waits for on its bench: the RGW of the
//! datalake comes up late ([`rgw_rollout`]), while the Ceph cluster stays in a `HEALTH_WARN`
//! that is not benign and never clears.

use crate::clusters;
use crate::fixture::Fixture;
use serde_json::{json, Value};

/// The path counted by [`Config::then_after`](crate::Config::then_after) by default.
pub const NODES_PATH: &str = "/api/v1/nodes";

/// One later state of the served cluster.
#[derive(Debug, Clone)]
pub struct Stage {
    /// Served once this many requests to the counted path have been answered.
    pub after: u64,
    pub fixture: Fixture,
}

/// The index of the stage a request sees: the last one whose `after` is at most `counted`
/// (0 is the initial fixture, `i + 1` is `stages[i]`). Stages are kept sorted by `after`.
pub fn stage_index(stages_after: &[u64], counted: u64) -> usize {
    stages_after.iter().take_while(|a| **a <= counted).count()
}

/// The RGW rollout: `(before, after)`. Both are `dirqual-full` with the CephCluster in
/// `HEALTH_WARN` for `MON_DISK_LOW` (never benign, never clearing). Before, the object store
/// `rook-ceph/s3` is in phase `Progressing` and its RGW Deployment `rook-ceph-rgw-s3-a` has
/// 0 of 2 replicas available (the datalake is degraded); after, phase `Ready` and 2 of 2
/// (the datalake is present).
pub fn rgw_rollout() -> (Fixture, Fixture) {
    let mut base = clusters::dirqual_full();
    for o in base.objects.iter_mut() {
        if is(o, "CephCluster", "rook-ceph") {
            o["status"]["ceph"]["health"] = json!("HEALTH_WARN");
            o["status"]["ceph"]["details"] = json!({
                "MON_DISK_LOW": {"message": "mon a is low on available space", "severity": "HEALTH_WARN"}
            });
        }
    }
    let after = base.clone();
    let mut before = base;
    for o in before.objects.iter_mut() {
        if is(o, "Deployment", "rook-ceph-rgw-s3-a") {
            set_unavailable(o);
        }
        if is(o, "CephObjectStore", "s3") {
            o["status"]["phase"] = json!("Progressing");
            o["status"]["conditions"] = json!([
                {"type": "Connected", "status": "False", "reason": "ObjectStoreCreating",
                 "message": "waiting for the rgw pods to be ready"}
            ]);
        }
    }
    (before, after)
}

fn is(o: &Value, kind: &str, name: &str) -> bool {
    o["kind"].as_str() == Some(kind) && o["metadata"]["name"].as_str() == Some(name)
}

/// A Deployment whose pods are created but none is ready yet.
fn set_unavailable(o: &mut Value) {
    let replicas = o["spec"]["replicas"].as_i64().unwrap_or(1);
    let status = &mut o["status"];
    if let Some(m) = status.as_object_mut() {
        m.remove("readyReplicas");
        m.remove("availableReplicas");
    }
    status["unavailableReplicas"] = json!(replicas);
    status["conditions"] = json!([
        {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
         "message": "Deployment does not have minimum availability."},
        {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
         "message": "ReplicaSet \"rook-ceph-rgw-s3-a-7f9c5d8b4\" is progressing."}
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_index_counts_the_stages_reached() {
        assert_eq!(stage_index(&[], 10), 0);
        assert_eq!(stage_index(&[3], 2), 0);
        assert_eq!(stage_index(&[3], 3), 1);
        assert_eq!(stage_index(&[3, 5], 4), 1);
        assert_eq!(stage_index(&[3, 5], 9), 2);
    }

    #[test]
    fn rgw_rollout_differs_only_in_the_object_store_and_its_rgw() {
        let (before, after) = rgw_rollout();
        assert_eq!(before.objects.len(), after.objects.len());
        let differing: Vec<&str> = before
            .objects
            .iter()
            .zip(&after.objects)
            .filter(|(a, b)| a != b)
            .filter_map(|(a, _)| a["metadata"]["name"].as_str())
            .collect();
        assert_eq!(differing, ["s3", "rook-ceph-rgw-s3-a"]);
        let rgw = |f: &Fixture| {
            f.objects
                .iter()
                .find(|o| is(o, "Deployment", "rook-ceph-rgw-s3-a"))
                .map(|o| o["status"]["availableReplicas"].clone())
        };
        assert_eq!(rgw(&before), Some(Value::Null));
        assert_eq!(rgw(&after), Some(json!(2)));
    }
}
