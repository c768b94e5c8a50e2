//! Agreement with the peer (SPEC §6 v0.3): Argo CD's own health test objects
//! (`resource_customizations/<group>/<Kind>/testdata`, gitops-engine's workload cases),
//! reduced to the fields that decide, for every kind the built-in catalog judges. nestor's
//! verdict on each is Argo's (Healthy → true; Degraded, Progressing → false) or stricter
//! with the reason in the evidence; it never says true where Argo says Degraded or
//! Progressing, and never "no such object" for one that exists.

use serde_json::{json, Value};

use super::fixtures::dirqual;
use super::*;
use crate::model::catalog::{Catalog, CheckKind};
use crate::model::observation::{parse_custom_objects, parse_deployments};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Argo {
    Healthy,
    Progressing,
    Degraded,
    /// Argo's Suspended: nestor is stricter (degraded, saying so).
    Suspended,
}

/// The checks of the built-in `layer` on `resource`.
fn checks_on(layer: &str, resource: &str) -> Vec<Check> {
    let c = Catalog::builtin().unwrap();
    c.get(layer)
        .unwrap()
        .healthy
        .iter()
        .filter(|ch| {
            ch.kind.object_reads().iter().any(|(o, _)| {
                o.resource == resource
                    && matches!(
                        ch.kind,
                        CheckKind::Resource(_)
                            | CheckKind::Condition(_)
                            | CheckKind::All(_)
                            | CheckKind::Tolerate(_)
                    )
            })
        })
        .cloned()
        .collect()
}

/// Every check of `layer` on `resource`, against `object` alone.
fn judge(layer: &str, resource: &str, object: Value) -> Vec<CheckOutcome> {
    let checks = checks_on(layer, resource);
    assert!(!checks.is_empty(), "{layer}: no check on {resource}");
    let mut obs = dirqual();
    let mut groups = obs.api_groups.clone().unwrap();
    groups.insert(resource.split_once('.').unwrap().1.to_string());
    obs.api_groups = Ok(groups);
    let uses = checks
        .iter()
        .flat_map(|c| c.kind.object_reads())
        .flat_map(|(_, u)| u)
        .collect();
    let list =
        json!({"apiVersion": "apps/v1", "kind": "DeploymentList", "items": [object]}).to_string();
    obs.resources.insert(
        resource.to_string(),
        Ok(parse_custom_objects(&list, &uses).unwrap()),
    );
    checks
        .iter()
        .map(|c| evaluate_check(c, Phase::Healthy, &[], &obs))
        .collect()
}

/// nestor agrees with Argo, or is stricter with a reason; never absent-like.
fn agrees(judged: &mut Vec<String>, case: &str, argo: Argo, outcomes: &[CheckOutcome]) {
    judged.push(case.to_string());
    for o in outcomes {
        assert_ne!(o.verdict, Verdict::Unknown, "{case}: {o:?}");
        assert!(
            !o.evidence.starts_with("no "),
            "{case}: an existing object reported missing: {o:?}"
        );
    }
    let all_true = outcomes.iter().all(|o| o.verdict == Verdict::True);
    match argo {
        // On these Healthy objects nestor is not even stricter: every check holds.
        Argo::Healthy => assert!(all_true, "{case}: {outcomes:?}"),
        Argo::Progressing | Argo::Degraded | Argo::Suspended => {
            assert!(
                !all_true,
                "{case}: nestor says healthy where Argo says {argo:?}: {outcomes:?}"
            );
        }
    }
}

fn terminating(api: &str, kind: &str, ns: Option<&str>) -> Value {
    // Every Argo CD `testdata/terminating.yaml`: a deletion timestamp and a finalizer.
    let mut md = json!({"name": "terminating-resource", "deletionTimestamp": "2024-01-01T00:00:00Z",
                        "finalizers": ["example.com/finalizer"]});
    if let Some(ns) = ns {
        md["namespace"] = json!(ns);
    }
    json!({"apiVersion": api, "kind": kind, "metadata": md})
}

fn ceph_cluster_cases(judged: &mut Vec<String>) {
    let cluster = |status: Value| {
        json!({"apiVersion": "ceph.rook.io/v1", "kind": "CephCluster",
               "metadata": {"name": "test-ceph-cluster", "namespace": "rook-ceph"},
               "spec": {"cephVersion": {"image": "quay.io/ceph/ceph:v19.2.0"}}, "status": status})
    };
    for (case, argo, object) in [
        (
            "healthy",
            Argo::Healthy,
            cluster(
                json!({"ceph": {"health": "HEALTH_OK"}, "state": "Created", "message": "Cluster created successfully"}),
            ),
        ),
        (
            "degraded_warn",
            Argo::Degraded,
            cluster(json!({"ceph": {"health": "HEALTH_WARN", "details": {
            "OSD_DOWN": {"message": "4 osds down", "severity": "HEALTH_WARN"},
            "PG_DEGRADED": {"message": "2 pools degraded", "severity": "HEALTH_WARN"}}}, "state": "Created", "message": "Cluster has warnings"})),
        ),
        (
            "degraded_error",
            Argo::Degraded,
            cluster(json!({"ceph": {"health": "HEALTH_ERR", "details": {
            "OSD_DOWN": {"message": "8 osds down", "severity": "HEALTH_ERR"}}}, "state": "Error", "message": "Cluster has critical errors"})),
        ),
        (
            "state_creating",
            Argo::Progressing,
            cluster(json!({"state": "Creating", "message": "Cluster is being created"})),
        ),
        ("no_status", Argo::Progressing, cluster(json!({}))),
        (
            "terminating",
            Argo::Progressing,
            terminating("ceph.rook.io/v1", "CephCluster", Some("rook-ceph")),
        ),
    ] {
        agrees(
            judged,
            case,
            argo,
            &judge("ceph", "cephclusters.ceph.rook.io", object),
        );
    }
}

fn ceph_object_store_cases(judged: &mut Vec<String>) {
    let store = |phase: &str| {
        json!({"apiVersion": "ceph.rook.io/v1", "kind": "CephObjectStore",
               "metadata": {"name": "ceph-objectstore", "namespace": "rook-ceph"}, "spec": {},
               "status": {"phase": phase}})
    };
    for (case, argo, object) in [
        ("healthy", Argo::Healthy, store("Ready")),
        ("degraded", Argo::Degraded, store("Failure")),
        ("progressing", Argo::Progressing, store("Pending")),
        (
            "terminating",
            Argo::Progressing,
            terminating("ceph.rook.io/v1", "CephObjectStore", Some("rook-ceph")),
        ),
    ] {
        agrees(
            judged,
            case,
            argo,
            &judge("datalake", "cephobjectstores.ceph.rook.io", object),
        );
    }
}

fn cert_manager_cases(judged: &mut Vec<String>) {
    let ready = |status: &str, reason: &str, message: &str| json!({"conditions": [{"type": "Ready", "status": status, "reason": reason, "message": message}]});
    let issuer = |kind: &str, status: Value| {
        json!({"apiVersion": "cert-manager.io/v1", "kind": kind,
               "metadata": {"name": "test-issuer", "namespace": "argocd"}, "spec": {"acme": {}}, "status": status})
    };
    for (resource, kind) in [
        ("clusterissuers.cert-manager.io", "ClusterIssuer"),
        ("issuers.cert-manager.io", "Issuer"),
    ] {
        for (case, argo, object) in [
            (
                "healthy_registered",
                Argo::Healthy,
                issuer(
                    kind,
                    ready(
                        "True",
                        "ACMEAccountRegistered",
                        "The ACME account was registered with the ACME server",
                    ),
                ),
            ),
            (
                "degraded_acmeFailed",
                Argo::Degraded,
                issuer(
                    kind,
                    ready(
                        "False",
                        "ErrRegisterACMEAccount",
                        "Failed to verify ACME account: acme: : 404 page not found\n",
                    ),
                ),
            ),
            (
                "progressing_noStatus",
                Argo::Progressing,
                issuer(kind, json!({})),
            ),
            (
                "terminating",
                Argo::Progressing,
                terminating("cert-manager.io/v1", kind, Some("argocd")),
            ),
        ] {
            let outcomes = judge("certs", resource, object);
            agrees(judged, &format!("{kind} {case}"), argo, &outcomes);
            if case == "degraded_acmeFailed" {
                assert!(outcomes.iter().any(|o| o.evidence.contains(
                    "Ready=False (ErrRegisterACMEAccount: Failed to verify ACME account: acme: : 404 page not found)"
                )), "{outcomes:?}");
            }
        }
    }
    let cert = |status: Value| {
        json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
               "metadata": {"name": "test-cert", "namespace": "argocd"},
               "spec": {"secretName": "test-secret", "issuerRef": {"kind": "Issuer", "name": "argo-cd-issuer"}},
               "status": status})
    };
    for (case, argo, object) in [
        // Argo's healthy_issued, with the notAfter cert-manager writes on an issued one.
        (
            "healthy_issued",
            Argo::Healthy,
            cert(json!({"conditions": [
            {"type": "ValidateFailed", "status": "False", "reason": "OrderValidated", "message": "Order validated"},
            {"type": "Ready", "status": "True", "reason": "CertIssued", "message": "Certificate issued successfully"}],
            "notAfter": "2026-03-03T08:00:04Z"})),
        ),
        (
            "degraded_configError",
            Argo::Degraded,
            cert(json!({"conditions": [
            {"type": "Ready", "status": "False", "reason": "ConfigError", "message": "Certificate's secret name is invalid"}]})),
        ),
        (
            "progressing_issuing",
            Argo::Progressing,
            cert(json!({"conditions": [
            {"type": "Issuing", "status": "True", "reason": "DoesNotExist", "message": "Issuing certificate as Secret does not exist"},
            {"type": "Ready", "status": "False", "reason": "DoesNotExist", "message": "Issuing certificate as Secret does not exist"}]})),
        ),
        ("progressing_noStatus", Argo::Progressing, cert(json!({}))),
        (
            "terminating",
            Argo::Progressing,
            terminating("cert-manager.io/v1", "Certificate", Some("argocd")),
        ),
    ] {
        agrees(
            judged,
            &format!("Certificate {case}"),
            argo,
            &judge("certs", "certificates.cert-manager.io", object),
        );
    }
}

fn cnpg_cluster_cases(judged: &mut Vec<String>) {
    let cluster = |annotations: Value, status: Value| {
        json!({"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
               "metadata": {"name": "cluster-example", "namespace": "default", "annotations": annotations},
               "spec": {"instances": 3}, "status": status})
    };
    let healthy = json!({"instances": 3, "readyInstances": 3, "phase": "Cluster in healthy state",
                         "conditions": [{"type": "Ready", "status": "True", "reason": "ClusterIsReady"}]});
    for (case, argo, object) in [
        (
            "cluster_healthy",
            Argo::Healthy,
            cluster(json!({}), healthy.clone()),
        ),
        (
            "cluster_progressing",
            Argo::Progressing,
            cluster(
                json!({}),
                json!({"instances": 1,
            "phase": "Setting up primary", "phaseReason": "Creating primary instance cluster-example-1"}),
            ),
        ),
        (
            "cluster_degraded",
            Argo::Degraded,
            cluster(
                json!({}),
                json!({"instances": 3, "readyInstances": 2,
            "phase": "Failing over", "phaseReason": "Initiating a failover from cluster-example-2"}),
            ),
        ),
        (
            "cluster_suspended",
            Argo::Suspended,
            cluster(
                json!({"cnpg.io/hibernation": "on"}),
                json!({"instances": 3,
            "phase": "Cluster in healthy state"}),
            ),
        ),
        (
            "cluster_reconcile_suspended",
            Argo::Suspended,
            cluster(
                json!({"cnpg.io/reconciliation": "disabled"}),
                healthy.clone(),
            ),
        ),
        (
            "cluster_no_status",
            Argo::Progressing,
            cluster(json!({}), json!({})),
        ),
        (
            "terminating",
            Argo::Progressing,
            terminating("postgresql.cnpg.io/v1", "Cluster", Some("default")),
        ),
    ] {
        let outcomes = judge("dataops", "clusters.postgresql.cnpg.io", object);
        agrees(judged, case, argo, &outcomes);
        if case == "cluster_reconcile_suspended" {
            assert!(
                outcomes.iter().any(|o| o
                    .evidence
                    .contains("reconciliation disabled: its status may be stale")),
                "{outcomes:?}"
            );
        }
    }
}

fn prometheus_and_alertmanager_cases(judged: &mut Vec<String>) {
    for (layer_resource, kind) in [
        ("prometheuses.monitoring.coreos.com", "Prometheus"),
        ("alertmanagers.monitoring.coreos.com", "Alertmanager"),
    ] {
        let object = |conditions: Value| {
            json!({"apiVersion": "monitoring.coreos.com/v1", "kind": kind,
                   "metadata": {"name": "kube-prometheus-stack", "namespace": "monitoring"},
                   "status": {"conditions": conditions}})
        };
        for (case, argo, o) in [
            (
                "healthy",
                Argo::Healthy,
                object(
                    json!([{"type": "Available", "status": "True"}, {"type": "Reconciled", "status": "True"}]),
                ),
            ),
            (
                "degraded",
                Argo::Degraded,
                object(
                    json!([{"type": "Available", "status": "False", "reason": "NoPodReady", "message": "shard 0: pod prometheus-0: containers with incomplete status: [init-config-reloader]"}]),
                ),
            ),
            (
                "progressing",
                Argo::Progressing,
                object(
                    json!([{"type": "Available", "status": "Degraded", "reason": "SomePodsNotReady"}]),
                ),
            ),
            (
                "terminating",
                Argo::Progressing,
                terminating("monitoring.coreos.com/v1", kind, Some("monitoring")),
            ),
        ] {
            agrees(
                judged,
                &format!("{kind} {case}"),
                argo,
                &judge("monitoring", layer_resource, o),
            );
        }
    }
}

fn argo_application_cases(judged: &mut Vec<String>) {
    let app = |sync: &str, health: &str| {
        json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
               "metadata": {"name": "guestbook", "namespace": "argocd"},
               "status": {"sync": {"status": sync}, "health": {"status": health}}})
    };
    for (case, argo, object) in [
        ("healthy", Argo::Healthy, app("Synced", "Healthy")),
        (
            "application-progressing",
            Argo::Progressing,
            app("Synced", "Progressing"),
        ),
        (
            "application-missing",
            Argo::Degraded,
            app("OutOfSync", "Missing"),
        ),
        (
            "application-suspended",
            Argo::Suspended,
            app("Synced", "Suspended"),
        ),
        ("degraded", Argo::Degraded, app("Synced", "Degraded")),
        (
            "terminating",
            Argo::Progressing,
            terminating("argoproj.io/v1alpha1", "Application", Some("argocd")),
        ),
    ] {
        agrees(
            judged,
            case,
            argo,
            &judge("gitops", "applications.argoproj.io", object),
        );
    }
}

/// gitops-engine's Deployment cases: rolled out → Healthy; still updating → Progressing;
/// past its deadline → Degraded; paused → Suspended; being deleted → Progressing.
fn deployment_cases(judged: &mut Vec<String>) {
    let check = Check::from(CheckKind::Workload(crate::model::catalog::WorkloadCheck {
        kind: Some(crate::model::catalog::WorkloadKind::Deployment),
        namespace: "argocd".into(),
        name: Some("guestbook-ui".into()),
        name_prefix: None,
    }));
    let deploy = |spec: Value, status: Value, meta: Value| {
        let mut md = json!({"name": "guestbook-ui", "namespace": "argocd", "generation": 4});
        for (k, v) in meta.as_object().unwrap() {
            md[k] = v.clone();
        }
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md, "spec": spec, "status": status})
    };
    let done = json!({"observedGeneration": 4, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1});
    for (case, argo, object) in [
        (
            "healthy",
            Argo::Healthy,
            deploy(json!({"replicas": 1}), done.clone(), json!({})),
        ),
        (
            "progressing",
            Argo::Progressing,
            deploy(
                json!({"replicas": 1}),
                json!({"observedGeneration": 4, "replicas": 2,
            "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1, "unavailableReplicas": 1}),
                json!({}),
            ),
        ),
        (
            "observed-generation-behind",
            Argo::Progressing,
            deploy(
                json!({"replicas": 1}),
                json!({"observedGeneration": 3, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1}),
                json!({}),
            ),
        ),
        (
            "degraded",
            Argo::Degraded,
            deploy(
                json!({"replicas": 1}),
                json!({"observedGeneration": 4, "replicas": 2,
            "updatedReplicas": 1, "availableReplicas": 1,
            "conditions": [{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}]}),
                json!({}),
            ),
        ),
        (
            "suspended",
            Argo::Suspended,
            deploy(
                json!({"replicas": 1, "paused": true}),
                done.clone(),
                json!({}),
            ),
        ),
        (
            "terminating",
            Argo::Progressing,
            deploy(
                json!({"replicas": 1}),
                done.clone(),
                json!({"deletionTimestamp": "2024-01-01T00:00:00Z", "finalizers": ["example.com/finalizer"]}),
            ),
        ),
    ] {
        let mut obs = dirqual();
        let list = json!({"apiVersion": "apps/v1", "kind": "DeploymentList", "items": [object]})
            .to_string();
        obs.deployments = Ok(parse_deployments(&list).unwrap());
        obs.workload_scope.clear();
        let outcome = evaluate_check(&check, Phase::Healthy, &[], &obs);
        agrees(judged, case, argo, &[outcome]);
    }
}

/// The tally of the peer agreement (issue 34's "still 50/50"): every kind's cases judged
/// in one test, so a case dropped from a kind, or a kind dropped, fails here by count.
#[test]
fn agrees_with_argo_on_all_50_of_its_test_objects() {
    let mut tally = Vec::new();
    for (kind, cases) in [
        ("CephCluster", ceph_cluster_cases as fn(&mut Vec<String>)),
        ("CephObjectStore", ceph_object_store_cases),
        ("cert-manager", cert_manager_cases),
        ("CNPG Cluster", cnpg_cluster_cases),
        (
            "Prometheus, Alertmanager",
            prometheus_and_alertmanager_cases,
        ),
        ("Application", argo_application_cases),
        ("Deployment", deployment_cases),
    ] {
        let mut judged = Vec::new();
        cases(&mut judged);
        assert!(!judged.is_empty(), "{kind}: no case judged");
        tally.extend(judged.into_iter().map(|c| format!("{kind} {c}")));
    }
    assert_eq!(tally.len(), 50, "{tally:#?}");
}
