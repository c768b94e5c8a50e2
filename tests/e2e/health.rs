//! Health that tells the truth (SPEC §6): one replay fixture per failure the operators have
//! met, read by the real kubectl through the plugin; each must give the right state and
//! evidence in `preview`, as text and as JSON.

use crate::bed_or_skip;
use crate::support::*;

/// `id` is `state`, its evidence holds `line`, the text output shows the line too, and the
/// plan repairs it (degraded) or leaves it alone (present); datalake and certs keep being
/// what the fixture makes them, and nothing else changes.
fn expect(bed: &E2e, id: &str, state: &str, line: &str) -> (serde_json::Value, String) {
    let (v, text) = preview(bed);
    assert_eq!(state_of(&v, id), state, "{id}: {}", layer(&v, id));
    let ev = evidence(&v, id);
    assert!(
        ev.iter().any(|e| e.contains(line)),
        "{id}: no {line:?} in {ev:#?}"
    );
    assert!(text.contains(line), "text output lacks {line:?}:\n{text}");
    let repair = plan_ids(&v, "repair");
    if state == "degraded" {
        assert_eq!(repair, [id], "{v}");
        assert!(text.contains(&format!("repair {id}")), "{text}");
    } else {
        assert!(repair.is_empty(), "{v}");
    }
    for install in plan_ids(&v, "install") {
        assert!(install == "datalake" || install == "certs", "{install}");
    }
    assert_read_only(&bed.server);
    (v, text)
}

#[test]
fn stalled_rollout_is_degraded_rollout_failed() {
    let bed = bed_or_skip!(E2e::new("rollout-stalled", &[]));
    let (v, _) = expect(
        &bed,
        "cni",
        "degraded",
        "Deployment kube-system/cilium-operator: rollout failed: progress deadline exceeded (1/2 updated, 2 available)",
    );
    // Two of three pods are ready: the old readiness rule would have said "present".
    assert_eq!(
        layer(&v, "cni")["reason"],
        "Deployment kube-system/cilium-operator: rollout failed: progress deadline exceeded (1/2 updated, 2 available)"
    );
}

#[test]
fn rollout_in_progress_is_degraded_with_its_progress() {
    let bed = bed_or_skip!(E2e::new("rollout-progress", &[]));
    expect(
        &bed,
        "registry",
        "degraded",
        "Deployment registry/registry: rollout in progress: 2/3 updated",
    );
}

#[test]
fn benign_ceph_warn_is_present_with_the_warning_in_evidence() {
    let bed = bed_or_skip!(E2e::new("ceph-warn-benign", &[]));
    let (v, _) = expect(
        &bed,
        "ceph",
        "present",
        "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN, tolerated: only benign checks: RECENT_MGR_MODULE_CRASH (1 mgr modules have recently crashed)",
    );
    assert_eq!(plan_ids(&v, "install"), ["datalake", "certs"]);
}

#[test]
fn ceph_warn_with_another_check_is_degraded_naming_it() {
    let bed = bed_or_skip!(E2e::new("ceph-warn", &[]));
    expect(
        &bed,
        "ceph",
        "degraded",
        "HEALTH_WARN: MON_DISK_LOW (mon a is low on available space) not on the benign list (RECENT_MGR_MODULE_CRASH)",
    );
}

#[test]
fn out_of_sync_application_is_degraded_and_named() {
    let bed = bed_or_skip!(E2e::new("app-outofsync", &[]));
    let (v, _) = expect(
        &bed,
        "gitops",
        "degraded",
        "1/2 Application .status.sync.status = Synced; not: Application argocd/marquez .status.sync.status = OutOfSync (want Synced)",
    );
    assert!(
        evidence(&v, "gitops").iter().any(|e| e
            == "1/2 Application .status.health.status = Healthy; not: Application argocd/marquez .status.health.status = Degraded (want Healthy)"),
        "{v}"
    );
}

#[test]
fn unready_cluster_issuer_is_degraded() {
    let bed = bed_or_skip!(E2e::new("issuer-unready", &[]));
    let (v, _) = expect(
        &bed,
        "certs",
        "degraded",
        "ClusterIssuer letsencrypt-prod Ready=False",
    );
    assert_eq!(state_of(&v, "datalake"), "present", "{v}");
}

#[test]
fn unhealthy_cnpg_cluster_is_degraded() {
    let bed = bed_or_skip!(E2e::new("cnpg-unhealthy", &[]));
    let (v, _) = expect(
        &bed,
        "dataops",
        "degraded",
        "Cluster dataops/pg .status.readyInstances = 2 (want .status.instances = 3)",
    );
    assert!(
        evidence(&v, "dataops").iter().any(|e| e
            == "Cluster dataops/pg .status.phase = Failing over (want Cluster in healthy state)"),
        "{v}"
    );
}

/// The SPEC §1 stack plus the two layers read from the kube-apiserver's flags.
fn with_hardening(bed: &E2e) {
    let topology = dirqual_topology(&bed.server.url()).replace(
        "datalake, certs]",
        "datalake, certs, audit-log, encryption-at-rest]",
    );
    bed.write_stack("dirqual", &topology);
}

#[test]
fn audit_flag_missing_on_one_of_three_control_planes_is_degraded() {
    let bed = bed_or_skip!(E2e::new("audit-missing", &[]));
    with_hardening(&bed);
    let (v, _) = expect(
        &bed,
        "audit-log",
        "degraded",
        "2/3 control planes' kube-apiserver with --audit-policy-file, --audit-log-path; dirqual2: kube-apiserver-dirqual2 runs without --audit-log-path",
    );
    assert_eq!(state_of(&v, "encryption-at-rest"), "present", "{v}");
    // Only the kube-apiserver pods of kube-system were asked for, by label.
    let pods = bed.requests_to("/api/v1/namespaces/kube-system/pods");
    assert!(!pods.is_empty(), "{:?}", bed.server.audit());
    assert!(pods
        .iter()
        .all(|e| e.query.contains("labelSelector=component%3Dkube-apiserver")));
    assert!(bed.requests_to("/api/v1/pods").is_empty());
}

#[test]
fn healthy_cluster_has_audit_log_and_encryption_at_rest_present() {
    let bed = bed_or_skip!(E2e::dirqual());
    with_hardening(&bed);
    let (v, text) = preview(&bed);
    assert_eq!(state_of(&v, "audit-log"), "present", "{v}");
    assert_eq!(state_of(&v, "encryption-at-rest"), "present", "{v}");
    assert_eq!(plan_ids(&v, "install"), ["datalake", "certs"]);
    assert!(
        text.contains("1/1 control planes' kube-apiserver with --encryption-provider-config"),
        "{text}"
    );
}

/// An Application's inline Helm values (a password) and kubectl's last-applied annotation
/// never reach an output, a `-v` line or a snapshot: the read keeps only the fields the
/// checks use.
#[test]
fn helm_values_in_an_application_never_reach_output_or_snapshot() {
    let bed = bed_or_skip!(E2e::dirqual());
    let marker = nestor_replay::scenarios::HELM_PASSWORD_MARKER;
    // The server does serve it.
    assert!(bed
        .server
        .cluster()
        .types
        .iter()
        .any(|t| t.plural == "applications"));
    let snap = bed.tmp.path().join("snap.json");
    let snap_arg = snap.to_str().unwrap_or_default();
    for args in [
        &["preview", "--no-input", "-v"][..],
        &["preview", "--no-input", "-o", "json", "-v"],
        &["discover", "--save", snap_arg, "-o", "json"],
    ] {
        let r = bed.run(args);
        r.code(0);
        assert!(!r.stdout.contains(marker), "{args:?} stdout");
        assert!(!r.stderr.contains(marker), "{args:?} stderr");
    }
    let saved = std::fs::read_to_string(&snap).unwrap_or_default();
    assert!(saved.contains("applications.argoproj.io"), "{saved}");
    assert!(!saved.contains(marker), "the snapshot holds the password");
    assert!(
        !saved.contains("last-applied"),
        "the snapshot holds annotations"
    );
    assert!(!saved.contains("helm"), "the snapshot holds the spec");
    let replay = bed.run(&["preview", "--snapshot", snap_arg, "-o", "json"]);
    replay.code(0);
    assert_eq!(state_of(&replay.json(), "gitops"), "present");
}

/// Every built-in layer's reads go out in one round after the proxy starts: each custom
/// resource is asked once, at the version its group serves (Argo CD's `v1alpha1` included),
/// and no group-version document is fetched for a second round.
#[test]
fn every_builtin_layer_is_read_in_one_round() {
    let bed = bed_or_skip!(E2e::new("dirqual-full", &[]));
    with_hardening(&bed);
    let (v, _) = preview(&bed);
    assert!(states(&v).iter().all(|(_, s)| s == "present"), "{v}");
    let audit = bed.server.audit();
    let nestor: Vec<_> = audit
        .iter()
        .filter(|e| {
            e.user_agent
                .as_deref()
                .unwrap_or("")
                .starts_with("kubectl-nestor")
        })
        .collect();
    for resource in [
        "/apis/ceph.rook.io/v1/cephclusters",
        "/apis/argoproj.io/v1alpha1/applications",
        "/apis/cert-manager.io/v1/clusterissuers",
        "/apis/monitoring.coreos.com/v1/prometheuses",
        "/apis/postgresql.cnpg.io/v1/clusters",
    ] {
        let n = nestor.iter().filter(|e| e.path == resource).count();
        assert_eq!(n, 2, "{resource}: once per preview (text and JSON)");
    }
    let second_round: Vec<_> = nestor
        .iter()
        .filter(|e| {
            e.status == 404 || (e.path.starts_with("/apis/") && e.path.matches('/').count() == 3)
        })
        .map(|e| e.path.clone())
        .collect();
    assert!(second_round.is_empty(), "{second_round:?}");
}
