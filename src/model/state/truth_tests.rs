//! SPEC §6 "What every checked object must also show (v0.3)": each rule on the real-shaped
//! kubectl fixtures, patched the way the cluster would show the failure. Every rule makes
//! an existing object degraded, never absent.

use serde_json::{json, Value};

use super::fixtures::{declared, dirqual, with_certs};
use super::*;
use crate::model::observation::ReadRequest;
use crate::model::observation::WorkloadKind;

fn fixture(name: &str) -> Value {
    let text = match name {
        "deployments" => include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/deployments.json"
        )),
        "namespaces" => include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/namespaces.json"
        )),
        "cephclusters" => include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/cephclusters.json"
        )),
        "cephobjectstores" => include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/cephobjectstores.json"
        )),
        "cnpg" => include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/cnpg-clusters.json"
        )),
        "clusterissuers" => include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/clusterissuers.json"
        )),
        "certificates" => include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/certificates.json"
        )),
        other => panic!("no fixture {other}"),
    };
    serde_json::from_str(text).unwrap()
}

/// The fixture with the item named `name` changed by `patch`.
fn patched(name: &str, item: &str, patch: impl Fn(&mut Value)) -> String {
    let mut list = fixture(name);
    let mut found = false;
    for i in list["items"].as_array_mut().unwrap() {
        if i["metadata"]["name"] == item {
            patch(i);
            found = true;
        }
    }
    assert!(found, "no {item} in {name}");
    list.to_string()
}

fn layer(obs: &Observation, id: &str) -> LayerReport {
    evaluate(
        &Catalog::builtin().unwrap(),
        &[id.to_string()],
        &declared(),
        obs,
    )
    .remove(0)
}

/// `id` is degraded and its reason holds `line`.
fn degraded(obs: &Observation, id: &str, line: &str) -> LayerReport {
    let r = layer(obs, id);
    assert_eq!(r.state, State::Degraded, "{id}: {r:#?}");
    assert!(
        r.reason.contains(line),
        "{id}: no {line:?} in {:?}",
        r.reason
    );
    r
}

const DELETED: &str = "2026-01-12T08:30:00Z";

#[test]
fn a_workload_being_deleted_is_degraded_naming_its_finalizers() {
    let mut obs = dirqual();
    let text = patched("deployments", "gitea", |d| {
        d["metadata"]["deletionTimestamp"] = json!(DELETED);
        d["metadata"]["finalizers"] = json!(["foregroundDeletion"]);
    });
    obs.record(&ReadRequest::Workloads(WorkloadKind::Deployment), Ok(&text));
    degraded(
        &obs,
        "gitops",
        "Deployment gitea/gitea: being deleted since 2026-01-12T08:30:00Z (finalizers: foregroundDeletion)",
    );
}

#[test]
fn a_namespace_terminating_degrades_the_layer_it_detects() {
    let mut obs = dirqual();
    let text = patched("namespaces", "registry", |n| {
        n["metadata"]["deletionTimestamp"] = json!(DELETED);
        n["status"]["phase"] = json!("Terminating");
    });
    obs.record(&ReadRequest::Namespaces, Ok(&text));
    let r = degraded(
        &obs,
        "registry",
        "namespace registry: being deleted since 2026-01-12T08:30:00Z",
    );
    assert!(r
        .evidence
        .contains(&"namespace registry exists".to_string()));
    // Phase Terminating without a timestamp in the read says so too.
    let text = patched("namespaces", "registry", |n| {
        n["status"]["phase"] = json!("Terminating");
    });
    obs.record(&ReadRequest::Namespaces, Ok(&text));
    degraded(
        &obs,
        "registry",
        "namespace registry: being deleted (phase Terminating)",
    );
}

/// Bench finding #19: the store waits on its buckets, its buckets on the store.
#[test]
fn an_object_store_whose_deletion_is_blocked_quotes_the_blocking_message() {
    let mut obs = dirqual();
    let blocked = "CephObjectStore \"rook-ceph/s3\" will not be deleted until all dependents are removed: buckets [lake-raw lake-curated]";
    let text = patched("cephobjectstores", "s3", |s| {
        s["metadata"]["deletionTimestamp"] = json!(DELETED);
        s["status"]["phase"] = json!("Deleting");
        s["status"]["conditions"] = json!([{
            "type": "DeletionIsBlocked", "status": "True", "reason": "ObjectHasDependents",
            "message": blocked, "lastTransitionTime": DELETED
        }]);
    });
    obs.record(
        &ReadRequest::Resource("cephobjectstores.ceph.rook.io".into()),
        Ok(&text),
    );
    let r = degraded(
        &obs,
        "datalake",
        &format!("CephObjectStore rook-ceph/s3: being deleted since 2026-01-12T08:30:00Z (finalizers: cephobjectstore.ceph.rook.io); deletion blocked: {blocked}"),
    );
    assert!(r
        .evidence
        .iter()
        .any(|e| e == "CephObjectStore rook-ceph/s3 exists"));
    // Deleted but not blocked: no "blocked" words; blocked without a deletion: nothing.
    let text = patched("cephobjectstores", "s3", |s| {
        s["status"]["conditions"] =
            json!([{"type": "DeletionIsBlocked", "status": "True", "message": "x"}]);
    });
    let objs = crate::model::observation::parse_custom_objects(&text, &Default::default()).unwrap();
    assert_eq!(objs[0].deleting, None);
}

#[test]
fn a_paused_deployment_is_degraded_rollout_paused_not_in_progress() {
    let mut obs = dirqual();
    let text = patched("deployments", "registry", |d| {
        d["spec"]["paused"] = json!(true);
        d["status"]["replicas"] = json!(2);
    });
    obs.record(&ReadRequest::Workloads(WorkloadKind::Deployment), Ok(&text));
    let r = degraded(
        &obs,
        "registry",
        "Deployment registry/registry: rollout paused",
    );
    assert!(!r.reason.contains("in progress"), "{}", r.reason);
    // The plan's repair line is this reason (tests/e2e/truth.rs checks the printed plan).
    assert_eq!(r.reason, "Deployment registry/registry: rollout paused");
}

#[test]
fn cnpg_hibernated_or_unreconciled_says_so() {
    for (annotation, value, words) in [
        (
            "cnpg.io/hibernation",
            "on",
            "Cluster dataops/pg-dagster: hibernated",
        ),
        (
            "cnpg.io/reconciliationLoop",
            "disabled",
            "Cluster dataops/pg-dagster: reconciliation disabled: its status may be stale",
        ),
    ] {
        let mut obs = dirqual();
        let text = patched("cnpg", "pg-dagster", |c| {
            c["metadata"]["annotations"] = json!({
                annotation: value,
                "kubectl.kubernetes.io/last-applied-configuration": "{\"password\":\"ANNOTATION-MARKER\"}"
            });
        });
        obs.record(
            &ReadRequest::Resource("clusters.postgresql.cnpg.io".into()),
            Ok(&text),
        );
        degraded(&obs, "dataops", words);
        let kept = serde_json::to_string(&obs.resources).unwrap();
        assert!(!kept.contains("ANNOTATION-MARKER"), "{kept}");
        assert!(!kept.contains("last-applied"), "{kept}");
    }
    // Hibernation off is no suspension.
    let mut obs = dirqual();
    let text = patched("cnpg", "pg-dagster", |c| {
        c["metadata"]["annotations"] = json!({"cnpg.io/hibernation": "off"});
    });
    obs.record(
        &ReadRequest::Resource("clusters.postgresql.cnpg.io".into()),
        Ok(&text),
    );
    assert_eq!(layer(&obs, "dataops").state, State::Present);
}

#[test]
fn a_failed_condition_quotes_its_reason_and_message_escaped() {
    let mut obs = with_certs(dirqual());
    let text = patched("clusterissuers", "platform-ca", |i| {
        i["metadata"]["name"] = json!("internal-ca");
        i["status"]["conditions"] = json!([{
            "type": "Ready", "status": "False", "reason": "ErrInitIssuer",
            "message": "secret root-ca-secret not found\n\u{1b}[2J", "lastTransitionTime": DELETED
        }]);
    });
    obs.record(
        &ReadRequest::Resource("clusterissuers.cert-manager.io".into()),
        Ok(&text.replace("platform-ca", "internal-ca")),
    );
    let r = degraded(
        &obs,
        "certs",
        "ClusterIssuer internal-ca Ready=False (ErrInitIssuer: secret root-ca-secret not found\\n\\x1b[2J)",
    );
    assert!(!r.reason.contains('\u{1b}'));
}

#[test]
fn a_stale_ceph_status_is_not_health() {
    let mut obs = dirqual();
    obs.observed_at = obs.observed_at.map(|t| t + 3 * 3600);
    degraded(
        &obs,
        "ceph",
        "CephCluster rook-ceph/rook-ceph: Ceph status last checked 3h ago: the operator is not reconciling",
    );
    // Ten minutes is still fresh; no reading time is unknown, never a guess.
    obs.observed_at = crate::clock::parse_rfc3339("2026-01-12T08:51:20Z");
    assert_eq!(layer(&obs, "ceph").state, State::Present);
    obs.observed_at = None;
    assert_eq!(layer(&obs, "ceph").state, State::Unknown);
}

#[test]
fn an_omitted_mon_count_is_the_operator_default_not_a_repair() {
    let mut obs = dirqual();
    let text = patched("cephclusters", "rook-ceph", |c| {
        c["spec"]["mon"].as_object_mut().unwrap().remove("count");
    });
    obs.record(
        &ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
        Ok(&text),
    );
    let r = layer(&obs, "ceph");
    assert_eq!(r.state, State::Present, "{r:#?}");
    assert!(r.evidence.iter().any(|e| e
        == "3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster rook-ceph/rook-ceph .spec.mon.count (absent: the operator's default))"), "{:#?}", r.evidence);
}

#[test]
fn certificates_must_be_ready_and_valid_for_seven_days() {
    let mut obs = with_certs(dirqual());
    assert_eq!(layer(&obs, "certs").state, State::Degraded); // no cert-manager Deployments
    let certs = |obs: &mut Observation, text: &str| {
        obs.record(
            &ReadRequest::Resource("certificates.cert-manager.io".into()),
            Ok(text),
        )
    };
    let expiring = patched("certificates", "gitea-tls", |c| {
        c["status"]["notAfter"] = json!("2026-01-15T08:42:20Z");
    });
    certs(&mut obs, &expiring);
    degraded(
        &obs,
        "certs",
        "Certificate gitea/gitea-tls .status.notAfter = 2026-01-15T08:42:20Z (expires in 3d; want more than 7d)",
    );
    let failing = patched("certificates", "gitea-tls", |c| {
        c["status"]["conditions"] = json!([{"type": "Ready", "status": "False", "reason": "DoesNotExist",
            "message": "Issuing certificate as Secret does not exist"}]);
        c["status"].as_object_mut().unwrap().remove("notAfter");
    });
    certs(&mut obs, &failing);
    let r = degraded(
        &obs,
        "certs",
        "Certificate gitea/gitea-tls Ready=False (DoesNotExist: Issuing certificate as Secret does not exist)",
    );
    assert!(r
        .reason
        .contains("Certificate gitea/gitea-tls has no .status.notAfter"));
}

#[test]
fn a_bucket_claim_not_bound_degrades_the_datalake() {
    let mut obs = dirqual();
    obs.record(
        &ReadRequest::Resource("cephobjectstores.ceph.rook.io".into()),
        Ok(&fixture("cephobjectstores").to_string()),
    );
    let claims = json!({"kind": "List", "apiVersion": "v1", "items": [{
        "apiVersion": "objectbucket.io/v1alpha1", "kind": "ObjectBucketClaim",
        "metadata": {"name": "lake-raw", "namespace": "dataops", "generation": 1},
        "spec": {"bucketName": "lake-raw", "storageClassName": "ceph-bucket"},
        "status": {"phase": "Pending"}
    }]});
    obs.record(
        &ReadRequest::Resource("objectbucketclaims.objectbucket.io".into()),
        Ok(&claims.to_string()),
    );
    let r = layer(&obs, "datalake");
    assert_ne!(r.state, State::Absent);
    assert!(
        r.evidence.iter().any(|e| e
            == "0/1 ObjectBucketClaim .status.phase = Bound; not: ObjectBucketClaim dataops/lake-raw .status.phase = Pending (want Bound)"),
        "{:#?}",
        r.evidence
    );
}

#[test]
fn a_mon_out_of_quorum_degrades_ceph_and_an_unread_config_map_is_unknown() {
    let mut obs = dirqual();
    let key = "rook-ceph/rook-ceph-mon-endpoints".to_string();
    let r = layer(&obs, "ceph");
    assert_eq!(r.state, State::Present);
    assert!(r
        .evidence
        .contains(&"ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty".to_string()));
    obs.config_maps
        .get_mut(&key)
        .and_then(|r| r.as_mut().ok())
        .and_then(Option::as_mut)
        .unwrap()
        .insert("outOfQuorum".into(), "b".into());
    degraded(
        &obs,
        "ceph",
        "ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum = b (want empty)",
    );
    // Only the named key was kept of the ConfigMap.
    obs = dirqual();
    assert_eq!(
        obs.config_maps[&key]
            .as_ref()
            .unwrap()
            .as_ref()
            .unwrap()
            .len(),
        1
    );
    obs.config_maps.insert(
        key,
        Err(crate::model::observation::ReadFailure::new(
            crate::model::observation::FailureKind::NotFound,
            "configmaps \"rook-ceph-mon-endpoints\" not found",
        )),
    );
    assert_eq!(layer(&obs, "ceph").state, State::Unknown);
}

#[test]
fn a_workload_not_rolled_out_says_why_from_its_pods() {
    use crate::model::observation::{ContainerStatus, PodStatus};
    let mut obs = dirqual();
    let text = patched("deployments", "registry", |d| {
        d["status"]["availableReplicas"] = json!(0);
        d["status"]["readyReplicas"] = json!(0);
        d["spec"]["selector"] = json!({"matchLabels": {"app": "registry"}});
    });
    obs.record(&ReadRequest::Workloads(WorkloadKind::Deployment), Ok(&text));
    let catalog = Catalog::builtin().unwrap();
    let plan = |ids: &[String]| {
        catalog
            .read_plan(ids, crate::model::catalog::Workloads::InTheirNamespaces)
            .workloads
    };
    let reads = super::why::pod_reads(&plan(&["registry".to_string()]), &obs);
    assert_eq!(
        reads,
        [ReadRequest::Pods {
            namespace: "registry".into(),
            selector: "app=registry".into()
        }]
    );
    // Nothing to ask of a healthy cluster.
    assert!(super::why::pod_reads(&plan(&super::fixtures::layers()), &dirqual()).is_empty());
    let pod = |node: &str, by_digest: bool, exit: i64| PodStatus {
        name: "registry-7d9f-abcde".into(),
        node: node.into(),
        container: Some(ContainerStatus {
            name: "registry".into(),
            waiting: "CrashLoopBackOff".into(),
            restarts: 7,
            exit_code: Some(exit),
            by_digest,
        }),
    };
    let mut nodes = obs.nodes.clone().unwrap();
    nodes[1].architecture = "arm64".into();
    obs.nodes = Ok(nodes);
    let key = "registry/app=registry".to_string();
    for (p, hint) in [
        (pod("dirqual2", true, 255), true),
        (pod("dirqual1", true, 255), false),  // amd64
        (pod("dirqual2", false, 255), false), // a tag, not a digest
        (pod("dirqual2", true, 1), false),
    ] {
        obs.pods.insert(key.clone(), Ok(vec![p.clone()]));
        let r = degraded(&obs, "registry", &format!(
            "Deployment registry/registry: rollout in progress: 0/1 updated available; pod registry-7d9f-abcde on {}: registry CrashLoopBackOff, 7 restarts, last exit code {}",
            p.node, p.container.as_ref().unwrap().exit_code.unwrap()
        ));
        assert_eq!(
            r.reason
                .contains("likely an image built for another architecture: the node is arm64"),
            hint,
            "{p:?}: {}",
            r.reason
        );
    }
}

#[test]
fn pods_are_decoded_into_the_fields_that_explain_them_only() {
    let text = json!({"apiVersion": "v1", "kind": "PodList", "items": [{
        "metadata": {"name": "p-1", "labels": {"app": "x"}, "annotations": {"a": "SECRET-MARKER"}},
        "spec": {"nodeName": "n2", "containers": [{"name": "c", "image": "r/x@sha256:abc",
                 "env": [{"name": "PASSWORD", "value": "SECRET-MARKER"}]}]},
        "status": {"containerStatuses": [{"name": "c", "ready": false, "restartCount": 3, "image": "r/x:1",
                   "state": {"waiting": {"reason": "ImagePullBackOff", "message": "SECRET-MARKER"}},
                   "lastState": {"terminated": {"exitCode": 1}}}]}
    }]});
    let pods = crate::model::observation::parse_workload_pods(&text.to_string()).unwrap();
    let kept = serde_json::to_string(&pods).unwrap();
    assert!(!kept.contains("SECRET-MARKER"), "{kept}");
    let c = pods[0].container.as_ref().unwrap();
    assert_eq!(
        (c.waiting.as_str(), c.restarts, c.exit_code, c.by_digest),
        ("ImagePullBackOff", 3, Some(1), true)
    );
}
