//! Tests of the one state per layer: detect and health checks over real-shaped observations.

use super::fixtures::{declared, dirqual, layers};
use super::*;
use crate::model::catalog::{CheckKind, WorkloadCheck, WorkloadKind};
use crate::model::observation::{parse_deployments, parse_nodes, FailureKind};

fn catalog() -> Catalog {
    Catalog::builtin().unwrap()
}

fn states(reports: &[LayerReport]) -> Vec<(&str, State)> {
    reports.iter().map(|r| (r.id.as_str(), r.state)).collect()
}

fn report<'a>(reports: &'a [LayerReport], id: &str) -> &'a LayerReport {
    reports.iter().find(|r| r.id == id).unwrap()
}

#[test]
fn incident_cluster_states() {
    let reports = evaluate(&catalog(), &layers(), &declared(), &dirqual());
    assert_eq!(
        states(&reports),
        [
            ("k8s", State::Present),
            ("cni", State::Present),
            ("ceph", State::Present),
            ("storage", State::Present),
            ("monitoring", State::Present),
            ("gitops", State::Present),
            ("registry", State::Present),
            ("dataops", State::Present),
            ("datalake", State::Absent),
            ("certs", State::Absent),
        ]
    );
    assert_eq!(
        report(&reports, "k8s").evidence,
        [
            "4 nodes registered",
            "4/4 declared nodes Ready",
            "4 nodes with distinct InternalIPs",
            "4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)",
            "every APIService available (1 served by a Service)"
        ]
    );
    assert_eq!(
        report(&reports, "cni").evidence,
        [
            "API group cilium.io served",
            "DaemonSet kube-system/cilium rolled out (4/4 available)",
            "Deployment kube-system/cilium-operator rolled out (2/2 available)",
            "no node tainted node.cilium.io/agent-not-ready",
            "one version: 1.16.1 (1 component)"
        ]
    );
    assert_eq!(
        report(&reports, "ceph").evidence,
        [
            "API group ceph.rook.io served",
            "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK",
            "3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a, rook-ceph-mon-b, rook-ceph-mon-c)",
            "3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster rook-ceph/rook-ceph .spec.mon.count)",
            "3/3 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0, rook-ceph-osd-1, rook-ceph-osd-2)",
            "ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty",
            "no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)",
            "mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)",
            "OSDs on 3 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2)"
        ]
    );
    assert_eq!(
        report(&reports, "dataops").evidence,
        [
            "API group postgresql.cnpg.io served",
            "Cluster dataops/pg-dagster .status.readyInstances = 3",
            "Cluster dataops/pg-dagster .status.phase = Cluster in healthy state",
            "1/1 Cluster ContinuousArchiving not False",
            "Cluster dataops/pg-dagster without .spec.backup: nothing to judge",
            "2/2 Deployment dataops/dagster-* rolled out (dagster-daemon, dagster-dagster-webserver)",
            "2/2 Deployment dataops/marquez* rolled out (marquez, marquez-web)"
        ]
    );
    assert_eq!(
        report(&reports, "gitops").evidence[5..],
        [
            "2/2 Application .status.sync.status = Synced",
            "2/2 Application .status.health.status = Healthy",
            "2/2 Application .status.operationState.phase not in Failed, Error",
            "2/2 Application without ComparisonError, InvalidSpecError, SyncError, DeletionError, UnknownError"
        ]
    );
    assert_eq!(
        report(&reports, "datalake").evidence,
        [
            "no CephObjectStore in rook-ceph",
            "no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket"
        ]
    );
    assert_eq!(
        report(&reports, "certs").evidence,
        ["API group cert-manager.io not served"]
    );
    assert_eq!(
        report(&reports, "registry").evidence,
        [
            "namespace registry exists",
            "Deployment registry/registry rolled out (1/1 available)"
        ]
    );
}

#[test]
fn ceph_health_warn_is_degraded() {
    let mut obs = dirqual();
    obs.record(
        &crate::model::observation::ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
        Ok(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/cephclusters-health-warn.json"
        ))),
    );
    let reports = evaluate(&catalog(), &["ceph".to_string()], &declared(), &obs);
    assert_eq!(reports[0].state, State::Degraded);
    assert_eq!(
        reports[0].reason,
        "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down), PG_DEGRADED (Degraded data redundancy: 1123/3369 objects degraded (33.333%), 57 pgs degraded) not on the benign list (RECENT_MGR_MODULE_CRASH)"
    );
}

#[test]
fn forbidden_cephclusters_is_unknown_not_absent() {
    let mut obs = dirqual();
    obs.resources.insert(
        "cephclusters.ceph.rook.io".into(),
        Err(ReadFailure::from_kubectl_stderr(
            "Error from server (Forbidden): cephclusters.ceph.rook.io is forbidden: User \"reader\" cannot list resource \"cephclusters\" in API group \"ceph.rook.io\" at the cluster scope",
        )),
    );
    let reports = evaluate(&catalog(), &["ceph".to_string()], &declared(), &obs);
    assert_eq!(reports[0].state, State::Unknown);
    assert_eq!(
        reports[0].reason,
        "read of cephclusters.ceph.rook.io failed: Forbidden"
    );
}

#[test]
fn failed_api_groups_make_every_cr_layer_unknown() {
    let mut obs = dirqual();
    obs.api_groups = Err(ReadFailure::new(FailureKind::Timeout, "i/o timeout"));
    let reports = evaluate(&catalog(), &layers(), &declared(), &obs);
    assert_eq!(
        states(&reports),
        [
            // Its APIServices are read as an apiregistration.k8s.io type: without discovery
            // nobody can tell whether an aggregated API is down.
            ("k8s", State::Unknown),
            // The cilium DaemonSet still proves the CNI exists and is ready.
            ("cni", State::Present),
            ("ceph", State::Unknown),
            // Its StorageClass is a built-in read, but its CSIDriver and CSINodes are read as
            // storage.k8s.io types, which discovery must list: unknown, never absent.
            ("storage", State::Unknown),
            ("monitoring", State::Unknown),
            ("gitops", State::Unknown),
            ("registry", State::Present),
            ("dataops", State::Unknown),
            ("datalake", State::Unknown),
            ("certs", State::Unknown),
        ]
    );
    assert_eq!(
        report(&reports, "datalake").reason,
        "read of API groups failed: Timeout"
    );
    assert!(!reports.iter().any(|r| r.state == State::Absent));
}

#[test]
fn no_read_ever_gives_absent() {
    let obs = Observation::skipped("bench kubeconfig absent");
    let reports = evaluate(&catalog(), &layers(), &declared(), &obs);
    assert!(
        reports.iter().all(|r| r.state == State::Unknown),
        "{reports:?}"
    );
    assert_eq!(
        report(&reports, "k8s").reason,
        "read of nodes failed: Skipped"
    );
}

#[test]
fn group_not_served_is_a_clean_empty_list() {
    let mut obs = dirqual();
    obs.resources.clear(); // never read: the group decides
    obs.api_groups = Ok(["".to_string(), "apps".to_string()].into_iter().collect());
    let reports = evaluate(&catalog(), &["datalake".to_string()], &declared(), &obs);
    assert_eq!(reports[0].state, State::Absent);
    assert_eq!(reports[0].evidence[0], "no CephObjectStore in rook-ceph");
}

#[test]
fn resource_not_read_is_unknown() {
    let mut obs = dirqual();
    obs.resources.remove("cephclusters.ceph.rook.io");
    let reports = evaluate(&catalog(), &["ceph".to_string()], &declared(), &obs);
    assert_eq!(reports[0].state, State::Unknown);
    assert_eq!(reports[0].reason, "cephclusters.ceph.rook.io was not read");
}

#[test]
fn k8s_not_ready_and_not_registered_nodes() {
    let mut obs = dirqual();
    obs.nodes = Ok(parse_nodes(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/nodes-dirqual3-notready.json"
    )))
    .unwrap());
    let reports = evaluate(&catalog(), &["k8s".to_string()], &declared(), &obs);
    assert_eq!(reports[0].state, State::Degraded);
    assert_eq!(
        reports[0].reason,
        "2/4 declared nodes Ready: dirqual3 NotReady, dirqual4 not registered"
    );
}

#[test]
fn k8s_without_declared_nodes_uses_registered_ones() {
    let reports = evaluate(&catalog(), &["k8s".to_string()], &[], &dirqual());
    assert_eq!(reports[0].state, State::Present);
    assert_eq!(reports[0].evidence[1], "4/4 nodes Ready");
}

#[test]
fn no_node_at_all_is_absent_k8s() {
    let mut obs = dirqual();
    obs.nodes = Ok(vec![]);
    let reports = evaluate(&catalog(), &["k8s".to_string()], &declared(), &obs);
    assert_eq!(reports[0].state, State::Absent);
    assert_eq!(reports[0].reason, "0 nodes registered (want at least 1)");
}

#[test]
fn cert_manager_webhook_not_ready_is_degraded() {
    let mut obs = super::fixtures::with_certs(dirqual());
    let mut deploys = parse_deployments(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/deployments-cert-manager.json"
    )))
    .unwrap();
    let ids = ["certs".to_string()];
    obs.deployments = Ok(deploys.clone());
    let reports = evaluate(&catalog(), &ids, &declared(), &obs);
    assert_eq!(reports[0].state, State::Present);
    assert_eq!(
        reports[0].evidence,
        [
            "API group cert-manager.io served",
            "Deployment cert-manager/cert-manager rolled out (1/1 available)",
            "Deployment cert-manager/cert-manager-cainjector rolled out (1/1 available)",
            "Deployment cert-manager/cert-manager-webhook rolled out (1/1 available)",
            "ClusterIssuer platform-ca Ready",
            "1/1 Issuer Ready",
            "1/1 Certificate Ready",
            "1/1 Certificate .status.notAfter more than 7d away",
            "2 webhooks served from cert-manager with failurePolicy Fail have a ready endpoint",
        ]
    );
    if let Some(r) = deploys[2].rollout.as_mut() {
        r.available = 0;
    }
    obs.deployments = Ok(deploys);
    let reports = evaluate(&catalog(), &ids, &declared(), &obs);
    assert_eq!(reports[0].state, State::Degraded);
    assert_eq!(
        reports[0].reason,
        "Deployment cert-manager/cert-manager-webhook: rollout in progress: 0/1 updated available"
    );
}

#[test]
fn workload_without_kind_and_a_failed_read() {
    let mut obs = dirqual();
    obs.statefulsets = Err(ReadFailure::new(FailureKind::Forbidden, "no"));
    let check = Check::from(CheckKind::Workload(WorkloadCheck {
        kind: None,
        namespace: "registry".into(),
        name: None,
        name_prefix: None,
    }));
    // Found in a successful read: exists. Readiness of every match cannot be proven.
    assert_eq!(
        evaluate_check(&check, Phase::Detect, &[], &obs),
        CheckOutcome::yes("Deployment registry/registry rolled out (1/1 available)")
    );
    assert_eq!(
        evaluate_check(&check, Phase::Healthy, &[], &obs).verdict,
        Verdict::Unknown
    );
    let empty_ns = Check::from(CheckKind::Workload(WorkloadCheck {
        kind: Some(WorkloadKind::DaemonSet),
        namespace: "registry".into(),
        name: None,
        name_prefix: None,
    }));
    assert_eq!(
        evaluate_check(&empty_ns, Phase::Healthy, &[], &obs),
        CheckOutcome::no("no DaemonSet in registry")
    );
}

#[test]
fn a_namespace_outside_a_scoped_workload_read_is_unknown_never_absent() {
    let mut obs = dirqual();
    obs.workload_scope.insert(
        "daemonsets".into(),
        ["kube-system".to_string()].into_iter().collect(),
    );
    let in_scope = Check::from(CheckKind::Workload(WorkloadCheck {
        kind: Some(WorkloadKind::DaemonSet),
        namespace: "kube-system".into(),
        name: Some("cilium".into()),
        name_prefix: None,
    }));
    assert_eq!(
        evaluate_check(&in_scope, Phase::Healthy, &[], &obs).verdict,
        Verdict::True
    );
    let outside = Check::from(CheckKind::Workload(WorkloadCheck {
        kind: Some(WorkloadKind::DaemonSet),
        namespace: "monitoring".into(),
        name: None,
        name_prefix: None,
    }));
    assert_eq!(
        evaluate_check(&outside, Phase::Detect, &[], &obs),
        CheckOutcome {
            verdict: Verdict::Unknown,
            evidence: "daemonsets in monitoring were not read".into(),
            flaws: vec![],
            findings: vec![],
            objects: vec![],
        }
    );
}

#[test]
fn dataops_instances_mismatch_and_missing_field() {
    let mut obs = dirqual();
    let mut objs = match &obs.resources["clusters.postgresql.cnpg.io"] {
        Ok(o) => o.clone(),
        Err(_) => unreachable!(),
    };
    objs[0]
        .fields
        .insert(".status.readyInstances".into(), "2".into());
    let mut second = objs[0].clone();
    second.name = "pg-marquez".into();
    second.fields.remove(".status.readyInstances");
    objs.push(second);
    obs.resources
        .insert("clusters.postgresql.cnpg.io".into(), Ok(objs));
    let reports = evaluate(&catalog(), &["dataops".to_string()], &declared(), &obs);
    assert_eq!(reports[0].state, State::Degraded);
    assert_eq!(
        reports[0].reason,
        "Cluster dataops/pg-dagster .status.readyInstances = 2 (want .status.instances = 3); Cluster dataops/pg-marquez has no .status.readyInstances"
    );
}

#[test]
fn host_level_layers_are_unknown() {
    let ids = ["etcd-backup", "sshd-hardening", "nope"].map(String::from);
    let reports = evaluate(&catalog(), &ids, &declared(), &dirqual());
    assert_eq!(
        reports
            .iter()
            .map(|r| r.reason.as_str())
            .collect::<Vec<_>>(),
        [
            "hosts of group `control_plane` not read",
            "hosts of group `all` not read",
            "layer `nope` is not in the catalog"
        ]
    );
    assert!(reports.iter().all(|r| r.state == State::Unknown));
}

#[test]
fn storage_without_default_is_degraded() {
    let mut obs = dirqual();
    if let Ok(sc) = &mut obs.storage_classes {
        sc.iter_mut().for_each(|s| s.default = false);
    }
    let reports = evaluate(&catalog(), &["storage".to_string()], &declared(), &obs);
    assert_eq!(reports[0].state, State::Degraded);
    assert_eq!(
        reports[0].reason,
        "no default StorageClass with provisioner rook-ceph.rbd.csi.ceph.com; no default StorageClass: no CSI driver to look for"
    );
}

/// Every check of the built-in catalog (every check kind: `model::catalog`'s tests prove the
/// catalog uses them all), evaluated with nothing read, in both phases: never a definite no —
/// a failed read is never "absent".
#[test]
fn with_nothing_read_no_builtin_check_says_no() {
    let c = crate::model::catalog::Catalog::builtin().unwrap();
    let nothing_read = crate::model::observation::Observation::skipped("not read");
    for id in c.ids() {
        let layer = c.get(id).unwrap();
        for (phase, check) in layer
            .detect
            .iter()
            .map(|c| (Phase::Detect, c))
            .chain(layer.healthy.iter().map(|c| (Phase::Healthy, c)))
        {
            let outcome = evaluate_check(check, phase, &[], &nothing_read);
            assert_ne!(
                outcome.verdict,
                Verdict::False,
                "{id} {}: {}",
                check.kind.key(),
                outcome.evidence
            );
        }
    }
}

/// A CephCluster in HEALTH_WARN with these `status.ceph.details` (Rook copies Ceph's checks:
/// severity and message per code).
/// (SPEC §6 v0.4: Ceph's capacity codes are never benign.)
fn ceph_warn_with(details: serde_json::Value) -> Observation {
    let list = serde_json::json!({"apiVersion": "ceph.rook.io/v1", "kind": "CephClusterList", "items": [{
        "apiVersion": "ceph.rook.io/v1", "kind": "CephCluster",
        "metadata": {"name": "rook-ceph", "namespace": "rook-ceph"},
        "spec": {"mon": {"count": 3}},
        "status": {"phase": "Ready", "ceph": {"health": "HEALTH_WARN", "details": details}}}]});
    let mut obs = dirqual();
    obs.record(
        &crate::model::observation::ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
        Ok(&list.to_string()),
    );
    obs
}

#[test]
fn a_nearfull_warning_is_degraded_beside_a_benign_one() {
    let obs = ceph_warn_with(serde_json::json!({
        "RECENT_MGR_MODULE_CRASH": {"message": "1 mgr modules have recently crashed", "severity": "HEALTH_WARN"},
        "OSD_NEARFULL": {"message": "1 nearfull osd(s)", "severity": "HEALTH_WARN"}
    }));
    let r = evaluate(&catalog(), &["ceph".into()], &[], &obs).remove(0);
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.reason,
        "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_NEARFULL (1 nearfull osd(s)) not on the benign list (RECENT_MGR_MODULE_CRASH)"
    );
}
