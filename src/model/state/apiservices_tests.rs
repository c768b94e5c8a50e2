//! `apiServices` on APIServices shaped as kube-aggregator writes them: every one available
//! holds; metrics-server down (`MissingEndpoints`, `FailedDiscoveryCheck`) degrades `k8s`
//! naming the APIService, and turns every check on `metrics.k8s.io` unknown, never absent —
//! its group is out of discovery while it is installed. A local APIService is always
//! available; APIServices not read gate nothing.

use serde_json::{json, Value};

use super::fixtures::dirqual;
use super::{evaluate, State};
use crate::model::catalog::Catalog;
use crate::model::observation::{FailureKind, Observation, ReadFailure, ReadRequest};

const APISERVICES: &str = "apiservices.apiregistration.k8s.io";

const METRICS_DOWN: &str = "APIService v1beta1.metrics.k8s.io is not available (MissingEndpoints: endpointslices for service/metrics-server in \"kube-system\" have no addresses with port name \"https\"): discovery of metrics.k8s.io is partial";

fn fixture() -> Value {
    serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/apiservices.json"
    )))
    .unwrap()
}

/// dirqual with its APIServices replaced by `list`.
fn with_apiservices(list: &Value) -> Observation {
    let mut obs = dirqual();
    obs.resources.remove(APISERVICES);
    obs.record(
        &ReadRequest::Resource(APISERVICES.into()),
        Ok(&list.to_string()),
    );
    obs
}

/// The fixture with metrics-server's APIService `Available=False` for `reason`/`message`.
fn metrics_down(reason: &str, message: &str) -> Value {
    let mut list = fixture();
    let metrics = &mut list["items"][3];
    assert_eq!(metrics["metadata"]["name"], "v1beta1.metrics.k8s.io");
    metrics["status"]["conditions"][0] = json!({
        "lastTransitionTime": "2026-11-30T08:12:00Z",
        "message": message,
        "reason": reason,
        "status": "False",
        "type": "Available"
    });
    list
}

/// The built-in catalog and a layer on metrics-server's group.
fn catalog() -> Catalog {
    let mut c = Catalog::builtin().unwrap();
    c.overlay_str(
        "- id: metrics\n  title: metrics-server\n  detect:\n    - apiGroup: metrics.k8s.io\n  healthy:\n    - resource: nodes.metrics.k8s.io\n  install: helm install metrics-server\n",
        "catalog.yaml",
    )
    .unwrap();
    c
}

fn judged(obs: &Observation) -> Vec<(String, State, String)> {
    let ids = ["k8s", "ceph", "metrics"].map(String::from);
    evaluate(&catalog(), &ids, &[], obs)
        .into_iter()
        .map(|r| (r.id, r.state, r.reason))
        .collect()
}

#[test]
fn every_apiservice_available_keeps_k8s_present() {
    let obs = with_apiservices(&fixture());
    let r = &evaluate(&catalog(), &["k8s".to_string()], &[], &obs)[0];
    assert_eq!(r.state, State::Present, "{r:#?}");
    assert_eq!(
        r.evidence.last().unwrap(),
        "every APIService available (1 served by a Service)"
    );
}

#[test]
fn an_unavailable_apiservice_degrades_k8s_and_makes_its_group_unknown_never_absent() {
    let obs = with_apiservices(&metrics_down(
        "MissingEndpoints",
        "endpointslices for service/metrics-server in \"kube-system\" have no addresses with port name \"https\"",
    ));
    assert_eq!(
        judged(&obs),
        [
            ("k8s".to_string(), State::Degraded, METRICS_DOWN.to_string()),
            // ceph.rook.io's APIService is local: its checks are judged as usual.
            (
                "ceph".to_string(),
                State::Present,
                "detected and healthy".to_string()
            ),
            // Not served in discovery, and still not absent: the APIService says why.
            (
                "metrics".to_string(),
                State::Unknown,
                METRICS_DOWN.to_string()
            ),
        ]
    );
    // The same cluster with the APIServices available: the group not served is absent.
    let healthy = with_apiservices(&fixture());
    assert_eq!(judged(&healthy)[2].1, State::Absent);
}

#[test]
fn a_failed_discovery_check_is_quoted_escaped_and_capped() {
    let obs = with_apiservices(&metrics_down(
        "FailedDiscoveryCheck",
        "failing or missing response from https://10.96.0.12:443/apis/metrics.k8s.io/v1beta1: Get \"https://10.96.0.12:443/apis/metrics.k8s.io/v1beta1\": dial tcp 10.96.0.12:443: connect: connection refused\u{1b}[2J",
    ));
    assert_eq!(
        judged(&obs)[0].2,
        "APIService v1beta1.metrics.k8s.io is not available (FailedDiscoveryCheck: failing or missing response from https://10.96.0.12:443/apis/metrics.k8s.io/v1beta1: Get \"https://10.96.0.12:443/apis/metrics.k8s.io/v1beta1\": dial tcp 10.96.0.12:443: connect: connection refused\\x1b[…): discovery of metrics.k8s.io is partial"
    );
}

#[test]
fn a_local_apiservice_is_available_whatever_its_conditions_say() {
    let mut list = fixture();
    // v1.apps: no condition at all (an aggregator that has not reconciled it yet).
    list["items"][1]["status"] = json!({});
    let obs = with_apiservices(&list);
    assert_eq!(judged(&obs)[0].1, State::Present);
}

#[test]
fn an_aggregated_apiservice_without_an_available_condition_is_not_available() {
    let mut list = fixture();
    list["items"][3]["status"] = json!({});
    let obs = with_apiservices(&list);
    assert_eq!(
        judged(&obs)[0].2,
        "APIService v1beta1.metrics.k8s.io is not available (no Available condition): discovery of metrics.k8s.io is partial"
    );
}

#[test]
fn apiservices_not_read_or_failed_gate_nothing_and_say_so() {
    let mut obs = with_apiservices(&metrics_down("MissingEndpoints", "down"));
    obs.resources.insert(
        APISERVICES.into(),
        Err(ReadFailure::new(
            FailureKind::Forbidden,
            "apiservices.apiregistration.k8s.io is forbidden",
        )),
    );
    let j = judged(&obs);
    assert_eq!(j[0].1, State::Unknown, "{j:#?}");
    assert_eq!(
        j[0].2,
        "read of apiservices.apiregistration.k8s.io failed: Forbidden"
    );
    // The read failed: nothing says metrics.k8s.io is partial; its group is judged as usual.
    assert_eq!(j[2].1, State::Absent);
}

/// Discovery without apiregistration.k8s.io (a snapshot taken before nestor read
/// APIServices): the check holds with nothing to judge, and says so — never "every
/// APIService available" from a list nobody read.
#[test]
fn discovery_without_apiregistration_says_there_is_nothing_to_check() {
    let mut obs = with_apiservices(&fixture());
    obs.resources.remove(APISERVICES);
    if let Ok(groups) = &mut obs.api_groups {
        groups.retain(|g| g != "apiregistration.k8s.io");
    }
    let r = &evaluate(&catalog(), &["k8s".to_string()], &[], &obs)[0];
    assert_eq!(r.state, State::Present, "{r:#?}");
    assert_eq!(
        r.evidence.last().unwrap(),
        "no APIService to check: apiregistration.k8s.io not served (nothing aggregated)"
    );
}
