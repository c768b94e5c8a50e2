//! The APIService fixtures (SPEC §6 v0.4 "Aggregated APIs and webhooks must answer"): dirqual
//! with the APIServices kube-aggregator keeps — local ones for the built-in and CRD groups
//! (`spec.service` absent, `Available=True` reason `Local`) and metrics-server's aggregated
//! `v1beta1.metrics.k8s.io` (`spec.service` kube-system/metrics-server:443).
//!
//! | name | what differs |
//! |---|---|
//! | `apiservice-available` | metrics-server's APIService `Available=True` (`Passed`: "all checks passed") |
//! | `apiservice-unavailable` | metrics-server down: `Available=False` (`MissingEndpoints`, the message kube-aggregator's available controller writes), so the aggregator serves no `metrics.k8s.io` in discovery |
//!
//! Shapes as kube-aggregator's `apiregistration.k8s.io/v1` types and its
//! available-condition controller write them (`APIServiceSpec`: group, version,
//! groupPriorityMinimum, versionPriority, service; `APIServiceCondition`: type, status,
//! lastTransitionTime, reason, message).

use serde_json::{json, Value};

use crate::builders::{K8S_VERSION, T_INSTALL, T_LAYERS};
use crate::clusters::dirqual_builder;
use crate::fixture::Fixture;

/// When metrics-server lost its last ready endpoint.
pub const T_DOWN: &str = "2026-11-30T08:12:00Z";

/// The message kube-aggregator writes when the service has no ready endpoint.
pub const MISSING_ENDPOINTS: &str =
    "endpointslices for service/metrics-server in \"kube-system\" have no addresses with port name \"https\"";

pub fn apiservice_available() -> Fixture {
    with_metrics(condition("True", "Passed", "all checks passed", T_LAYERS))
}

pub fn apiservice_unavailable() -> Fixture {
    with_metrics(condition(
        "False",
        "MissingEndpoints",
        MISSING_ENDPOINTS,
        T_DOWN,
    ))
}

/// dirqual's local APIServices and metrics-server's, whose `Available` condition is `metrics`.
fn with_metrics(metrics: Value) -> Fixture {
    let mut f = dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION);
    for (group, version, priority) in [
        ("", "v1", 18000),
        ("apps", "v1", 17800),
        ("storage.k8s.io", "v1", 16800),
        ("ceph.rook.io", "v1", 1000),
        ("postgresql.cnpg.io", "v1", 1000),
    ] {
        f.objects.push(local(group, version, priority));
    }
    f.objects.push(json!({
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {
            "name": "v1beta1.metrics.k8s.io",
            "labels": {"k8s-app": "metrics-server"},
            "creationTimestamp": T_LAYERS,
        },
        "spec": {
            "group": "metrics.k8s.io",
            "version": "v1beta1",
            "insecureSkipTLSVerify": true,
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
            "service": {"namespace": "kube-system", "name": "metrics-server", "port": 443},
        },
        "status": {"conditions": [metrics]},
    }));
    f
}

fn condition(status: &str, reason: &str, message: &str, since: &str) -> Value {
    json!({
        "type": "Available", "status": status, "lastTransitionTime": since,
        "reason": reason, "message": message,
    })
}

/// A local APIService: the kube-apiserver (or the CRD registration controller) serves the
/// group itself; named `VERSION.GROUP` (`v1.` for the core group, which has no `spec.group`).
fn local(group: &str, version: &str, priority: u32) -> Value {
    let mut spec =
        json!({"version": version, "groupPriorityMinimum": priority, "versionPriority": 15});
    if !group.is_empty() {
        spec["group"] = json!(group);
    }
    let managed = if group.contains('.') && !group.ends_with("k8s.io") {
        "true"
    } else {
        "onstart"
    };
    json!({
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {
            "name": format!("{version}.{group}"),
            "labels": {"kube-aggregator.kubernetes.io/automanaged": managed},
            "creationTimestamp": T_INSTALL,
        },
        "spec": spec,
        "status": {"conditions": [condition(
            "True", "Local", "Local APIServices are always available", T_INSTALL,
        )]},
    })
}
