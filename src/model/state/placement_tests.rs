//! `distinctNodes` on Rook's mon and OSD pods shaped as the API server lists them (labels
//! `app`, `ceph_daemon_id`, `mon`, `rook_cluster`, `spec.nodeName`): mons on 3 of 4 nodes
//! hold, on 2 degrade naming each node's daemons; a 2-node cluster holds and says why; an
//! unscheduled pod is named, never counted; a failed read, a list of another kind or a list
//! cut at the read's limit is unknown, never absent or present.

use serde_json::Value;

use super::super::fixtures::{dirqual, placement_request};
use super::super::{evaluate, LayerReport, State};
use crate::model::catalog::{Catalog, CheckKind};
use crate::model::observation::{FailureKind, Observation, ReadFailure};

const SAYS: &str = "failureDomain: host is a promise the placement does not keep";

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/kubectl/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn mons() -> Value {
    fixture("pods-rook-ceph-mon.json")
}

fn with_mons(mut obs: Observation, list: &Value) -> Observation {
    obs.record(&placement_request("mon"), Ok(&list.to_string()));
    obs
}

fn ceph(obs: &Observation) -> LayerReport {
    evaluate(
        &Catalog::builtin().unwrap(),
        &["ceph".to_string()],
        &[],
        obs,
    )
    .remove(0)
}

fn check<'r>(r: &'r LayerReport, id: &str) -> &'r super::super::checks::CheckReport {
    r.checks.iter().find(|c| c.id == id).unwrap()
}

#[test]
fn mons_and_osds_on_three_of_four_nodes_hold() {
    let r = ceph(&dirqual());
    assert_eq!(r.state, State::Present, "{r:#?}");
    assert_eq!(
        check(&r, "ceph/mon-placement").evidence,
        "mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)"
    );
    assert_eq!(
        check(&r, "ceph/osd-placement").evidence,
        "OSDs on 3 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2)"
    );
}

#[test]
fn mons_on_two_of_four_nodes_degrade_naming_each_nodes_mons() {
    let mut list = mons();
    list["items"][1]["spec"]["nodeName"] = "dirqual1".into();
    let r = ceph(&with_mons(dirqual(), &list));
    assert_eq!(r.state, State::Degraded, "{r:#?}");
    assert_eq!(
        r.reason,
        format!("mons on 2 distinct nodes of 4: dirqual1 (a, b), dirqual3 (c): {SAYS}")
    );
}

#[test]
fn a_two_node_cluster_holds_and_says_why() {
    let mut obs = dirqual();
    if let Ok(nodes) = &mut obs.nodes {
        nodes.truncate(2);
    }
    let mut list = mons();
    list["items"][2]["spec"]["nodeName"] = "dirqual2".into();
    let r = ceph(&with_mons(obs, &list));
    let mon = check(&r, "ceph/mon-placement");
    assert_eq!(
        mon.evidence,
        "mons on 2 distinct nodes of 2: dirqual1 (a), dirqual2 (b, c); the cluster has 2 nodes, fewer than 3: the spread over 3 is not asked"
    );
    assert_eq!(mon.verdict, super::super::hosts::Verdict::True);
}

#[test]
fn an_unscheduled_mon_is_named_not_counted_and_a_failed_one_left_out() {
    let mut list = mons();
    // mon d waits for a node; mon c's old pod was evicted (Failed, its node kept).
    let mut d = list["items"][0].clone();
    d["metadata"]["name"] = "rook-ceph-mon-d-84f6c7d9b-x7k2q".into();
    d["metadata"]["labels"]["ceph_daemon_id"] = "d".into();
    d["spec"].as_object_mut().unwrap().remove("nodeName");
    d["status"] = serde_json::json!({"phase": "Pending"});
    list["items"].as_array_mut().unwrap().push(d);
    list["items"][2]["status"]["phase"] = "Failed".into();
    let r = ceph(&with_mons(dirqual(), &list));
    assert_eq!(r.state, State::Degraded, "{r:#?}");
    assert_eq!(
        check(&r, "ceph/mon-placement").evidence,
        format!("mons on 2 distinct nodes of 4: dirqual1 (a), dirqual2 (b); not scheduled yet (not counted): rook-ceph-mon-d-84f6c7d9b-x7k2q (d): {SAYS}")
    );
}

#[test]
fn no_mon_pod_at_all_is_no_placement() {
    let list = serde_json::json!({"apiVersion": "v1", "kind": "PodList", "items": []});
    let r = ceph(&with_mons(dirqual(), &list));
    assert_eq!(
        check(&r, "ceph/mon-placement").evidence,
        format!("mons on 0 distinct nodes of 4 (none of the pods of rook-ceph with app=rook-ceph-mon runs on a node): {SAYS}")
    );
}

#[test]
fn a_failed_pods_read_is_unknown_never_absent_or_present() {
    let mut obs = dirqual();
    obs.record(
        &placement_request("osd"),
        Err(ReadFailure::new(
            FailureKind::Forbidden,
            "pods is forbidden",
        )),
    );
    let r = ceph(&obs);
    assert_eq!(r.state, State::Unknown, "{r:#?}");
    assert_eq!(
        check(&r, "ceph/osd-placement").evidence,
        "read of pods of rook-ceph with app=rook-ceph-osd failed: Forbidden"
    );
    // Not read at all (an older snapshot): unknown too.
    let mut obs = dirqual();
    obs.placements.clear();
    assert_eq!(ceph(&obs).state, State::Unknown);
    // The nodes read failed: a spread over 3 nodes holds all the same, a narrower one is
    // unknown (whether the cluster has 3 nodes is not known).
    let mut obs = dirqual();
    obs.nodes = Err(ReadFailure::new(
        FailureKind::Forbidden,
        "nodes is forbidden",
    ));
    let r = ceph(&obs);
    let mon = check(&r, "ceph/mon-placement");
    assert_eq!(mon.verdict, super::super::hosts::Verdict::True);
    assert_eq!(
        mon.evidence,
        "mons on 3 distinct nodes (the nodes were not read): dirqual1 (a), dirqual2 (b), dirqual3 (c)"
    );
    let mut list = mons();
    list["items"][1]["spec"]["nodeName"] = "dirqual1".into();
    let r = ceph(&with_mons(obs, &list));
    let mon = check(&r, "ceph/mon-placement");
    assert_eq!(mon.verdict, super::super::hosts::Verdict::Unknown);
    assert_eq!(mon.evidence, "read of nodes failed: Forbidden");
}

#[test]
fn a_list_of_another_kind_or_cut_at_the_limit_is_a_failed_read() {
    let mut list = mons();
    list["kind"] = "ConfigMapList".into();
    let r = ceph(&with_mons(dirqual(), &list));
    assert_eq!(r.state, State::Unknown, "{r:#?}");
    let mon = check(&r, "ceph/mon-placement");
    assert!(
        mon.evidence
            .starts_with("read of pods of rook-ceph with app=rook-ceph-mon failed: ")
            && mon.evidence.contains("ConfigMapList"),
        "{}",
        mon.evidence
    );
    let mut list = mons();
    list["metadata"] =
        serde_json::json!({"resourceVersion": "91", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"});
    let r = ceph(&with_mons(dirqual(), &list));
    assert_eq!(
        check(&r, "ceph/mon-placement").evidence,
        "read of pods of rook-ceph with app=rook-ceph-mon failed: more than 5000 pods (the read's limit): their placement is not judged on a part of them"
    );
}

#[test]
fn the_read_plan_asks_the_nodes_and_one_pod_list_per_selector() {
    let catalog = Catalog::builtin().unwrap();
    let plan = catalog.required_reads(&["ceph".to_string()]);
    assert!(plan.contains(&crate::model::observation::ReadRequest::Nodes));
    assert!(plan.contains(&placement_request("mon")));
    assert!(plan.contains(&placement_request("osd")));
    let layer = catalog.get("ceph").unwrap();
    let kinds: Vec<_> = layer
        .healthy
        .iter()
        .filter(|c| matches!(c.kind, CheckKind::DistinctNodes(_)))
        .map(|c| c.name.clone().unwrap())
        .collect();
    assert_eq!(kinds, ["mon-placement", "osd-placement"]);
}
