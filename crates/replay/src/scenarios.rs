//! The platform's health gates in the fixtures (SPEC §6), and one fixture per failure the
//! operators have met: each is dirqual (or dirqual-full) with exactly one thing wrong.
//!
//! | name | what is wrong |
//! |---|---|
//! | `rollout-stalled` | Deployment kube-system/cilium-operator: new ReplicaSet never available, `ProgressDeadlineExceeded` |
//! | `rollout-progress` | Deployment registry/registry mid-rollout: 2 of 3 replicas updated, old pods still serving |
//! | `ceph-warn-benign` | CephCluster `HEALTH_WARN` with only `RECENT_MGR_MODULE_CRASH` (healthy per the operators' gate) |
//! | `ceph-warn` | CephCluster `HEALTH_WARN` with `RECENT_MGR_MODULE_CRASH` and `MON_DISK_LOW` |
//! | `ceph-nearfull` | CephCluster `HEALTH_WARN` with `RECENT_MGR_MODULE_CRASH` and the capacity code `OSD_NEARFULL` (never benign) |
//! | `app-outofsync` | Argo CD Application argocd/marquez `OutOfSync` and `Degraded` |
//! | `app-sync-failed` | Argo CD Application argocd/marquez still `Synced` and `Healthy`, its last operation `Failed` (a PostSync hook) and automated sync's `SyncError` condition |
//! | `issuer-unready` | dirqual-full whose ClusterIssuer letsencrypt-prod is `Ready=False` |
//! | `cnpg-unhealthy` | CNPG Cluster dataops/pg with 2 of 3 instances ready, failing over |
//! | `cnpg-archiving-failed` | CNPG Cluster dataops/pg "Cluster in healthy state", backups to an object store, its WAL archiving `ContinuousArchiving=False` (`ContinuousArchivingFailing`), last backup 2 hours old |
//! | `cnpg-backup-old` | the same Cluster archiving fine, its last successful backup 3 days old |
//! | `audit-missing` | three control planes (dirqual1..3); dirqual2's kube-apiserver has no `--audit-log-path` |
//! | `workload-deleting` | Deployment gitea/gitea being deleted, held by `foregroundDeletion` |
//! | `store-deleting` | dirqual-full whose CephObjectStore rook-ceph/s3 is being deleted, `DeletionIsBlocked` by its buckets (bench finding #19) |
//! | `deploy-paused` | Deployment registry/registry paused mid-rollout (`spec.paused: true`) |
//! | `cnpg-hibernated` | CNPG Cluster dataops/pg annotated `cnpg.io/hibernation: "on"` |
//! | `ceph-stale` | CephCluster `HEALTH_OK` whose `lastChecked` is 3 hours old: the operator stopped |
//! | `cert-expiring` | dirqual-full whose Certificate gitea/gitea-tls expires in 3 days: renewal is failing |
//! | `claim-pending` | dirqual-full whose ObjectBucketClaim dataops/lake-raw stays `Pending` |
//! | `crashloop-arm64` | Deployment argocd/argocd-repo-server never available: its pod on the arm64 node dirqual2 crash-loops with exit 255 (an amd64 image pinned by digest, bench finding #25); another argocd pod crash-loops too and must not be read |
//! | `drifts` | dirqual with Cilium's kube-proxy replacement and Hubble on (cilium-config), hubble-relay rolled out, kube-proxy removed, every namespace enforcing Pod Security and denying ingress by default (a NetworkPolicy each, registry a CiliumNetworkPolicy): the SPEC §15 layers present |
//! | `drifts-kube-proxy-left` | `drifts` with kubeadm's kube-proxy ConfigMap still there (bench #23) |
//! | `drifts-kube-proxy-running` | `drifts` with kube-proxy's DaemonSet still running |
//! | `drifts-strict` | `drifts` whose cilium-config says `kube-proxy-replacement: strict` |
//! | `drifts-no-relay` | `drifts` without the hubble-relay Deployment |
//! | `drifts-unlabelled-namespace` | `drifts` plus namespace `team-a` without a Pod Security label, `team-b` privileged (scenario 10) |
//! | `drifts-nat-ips` | `drifts` whose nodes all announce 10.0.2.15 (bench #3, #4) |
//! | `drifts-agent-not-ready` | `drifts` with dirqual3 tainted `node.cilium.io/agent-not-ready` |
//! | `drifts-off` | dirqual as is: no cilium-config settings for the new layers, no Pod Security label, no NetworkPolicy (the type served) |
//! | `drifts-netpol-missing` | `drifts` whose namespace dataops has no default-deny policy and monitoring's allows all (`ingress: [{}]`, scenario 11) |
//! | `drifts-policy-never` | `drifts` whose cilium-config says `enable-policy: never` |

use serde_json::{json, Value};

pub use crate::builders::T_DELETED;
use crate::builders::{find, K8S_VERSION, T_LAYERS};
use crate::clusters::{
    add_cert_manager, add_datalake, bucket_claim, certificate, dirqual, dirqual_builder,
    dirqual_full,
};
use crate::fixture::Fixture;
pub use crate::platform::HELM_PASSWORD_MARKER;
use crate::platform::{add_applications, control_plane_pods};
use crate::when::{from_now, DAY, HOUR};

/// What Rook says of an object store that its buckets keep from being deleted.
pub const STORE_BLOCKED: &str =
    "object store deletion is blocked because it has dependents: buckets [lake-raw lake-curated]";

fn ceph_warn_with(details: Value) -> Fixture {
    let mut f = dirqual();
    for c in find(&mut f, "CephCluster", "rook-ceph") {
        c["status"]["ceph"]["health"] = json!("HEALTH_WARN");
        c["status"]["ceph"]["details"] = details.clone();
    }
    f
}

const MGR_CRASH: (&str, &str) = (
    "RECENT_MGR_MODULE_CRASH",
    "1 mgr modules have recently crashed",
);

/// Argo CD Applications in the [`many_applications`] fixture: 40 000 in one list.
pub const MANY_APPLICATIONS: usize = 40_000;

/// dirqual with [`MANY_APPLICATIONS`] Argo CD Applications (inline Helm values, a
/// last-applied annotation, a resource list in their status: ~700 bytes each, ~30 MB in one
/// list), all Synced and Healthy: nestor's memory must not grow with what it does not keep.
pub fn many_applications() -> Fixture {
    let mut b = dirqual_builder(&[], "HEALTH_OK");
    add_applications(&mut b, MANY_APPLICATIONS);
    b.finish(K8S_VERSION)
}

pub fn rollout_stalled() -> Fixture {
    let mut f = dirqual();
    for d in find(&mut f, "Deployment", "cilium-operator") {
        d["metadata"]["generation"] = json!(2);
        d["status"] = json!({
            "observedGeneration": 2,
            "replicas": 3,
            "updatedReplicas": 1,
            "readyReplicas": 2,
            "availableReplicas": 2,
            "unavailableReplicas": 1,
            "conditions": [
                {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                 "message": "Deployment has minimum availability.",
                 "lastTransitionTime": T_LAYERS, "lastUpdateTime": T_LAYERS},
                {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                 "message": "ReplicaSet \"cilium-operator-7f8d9c6b5\" has timed out progressing.",
                 "lastTransitionTime": T_LAYERS, "lastUpdateTime": T_LAYERS}
            ]
        });
    }
    f
}

pub fn rollout_progress() -> Fixture {
    let mut f = dirqual();
    for d in find(&mut f, "Deployment", "registry") {
        d["metadata"]["generation"] = json!(3);
        d["spec"]["replicas"] = json!(3);
        d["status"] = json!({
            "observedGeneration": 3,
            "replicas": 4,
            "updatedReplicas": 2,
            "readyReplicas": 3,
            "availableReplicas": 3,
            "unavailableReplicas": 1,
            "conditions": [
                {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                 "message": "Deployment has minimum availability.",
                 "lastTransitionTime": T_LAYERS, "lastUpdateTime": T_LAYERS},
                {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
                 "message": "ReplicaSet \"registry-6b7c8d9f4\" is progressing.",
                 "lastTransitionTime": T_LAYERS, "lastUpdateTime": T_LAYERS}
            ]
        });
    }
    f
}

pub fn ceph_warn_benign() -> Fixture {
    ceph_warn_with(json!({
        MGR_CRASH.0: {"message": MGR_CRASH.1, "severity": "HEALTH_WARN"}
    }))
}

pub fn ceph_warn() -> Fixture {
    ceph_warn_with(json!({
        MGR_CRASH.0: {"message": MGR_CRASH.1, "severity": "HEALTH_WARN"},
        "MON_DISK_LOW": {"message": "mon a is low on available space", "severity": "HEALTH_WARN"}
    }))
}

/// Ceph's own words for a filling OSD (its health check OSD_NEARFULL).
pub fn ceph_nearfull() -> Fixture {
    ceph_warn_with(json!({
        MGR_CRASH.0: {"message": MGR_CRASH.1, "severity": "HEALTH_WARN"},
        "OSD_NEARFULL": {"message": "1 nearfull osd(s)", "severity": "HEALTH_WARN"}
    }))
}

pub fn app_outofsync() -> Fixture {
    let mut f = dirqual();
    for a in find(&mut f, "Application", "marquez") {
        a["status"]["sync"]["status"] = json!("OutOfSync");
        a["status"]["health"]["status"] = json!("Degraded");
    }
    f
}

pub fn app_sync_failed() -> Fixture {
    let mut f = dirqual();
    for a in find(&mut f, "Application", "marquez") {
        // As Argo CD's controller writes them: the operation's phase and message, and
        // the automated sync's condition (a type, a message, no status).
        a["status"]["operationState"] = json!({
            "phase": "Failed",
            "message": "one or more synchronization tasks completed unsuccessfully",
            "startedAt": "2026-12-01T09:10:00Z",
            "finishedAt": "2026-12-01T09:12:00Z",
            "operation": {"sync": {"revision": "9b2d7c1e5a40"}, "retry": {"limit": 5}}
        });
        a["status"]["conditions"] = json!([{
            "type": "SyncError",
            "message": "Failed sync attempt to 9b2d7c1e5a40: one or more synchronization tasks completed unsuccessfully (retried 5 times).",
            "lastTransitionTime": "2026-12-01T09:12:00Z"
        }]);
    }
    f
}

pub fn issuer_unready() -> Fixture {
    let mut b = dirqual_builder(&[], "HEALTH_OK");
    add_datalake(&mut b);
    add_cert_manager(&mut b);
    let mut f = b.finish(K8S_VERSION);
    for i in find(&mut f, "ClusterIssuer", "letsencrypt-prod") {
        i["status"]["conditions"] = json!([{
            "type": "Ready", "status": "False", "reason": "ErrRegisterACMEAccount",
            "message": "Failed to register ACME account: 403 urn:ietf:params:acme:error:unauthorized",
            "lastTransitionTime": T_LAYERS, "observedGeneration": 1
        }]);
    }
    f
}

pub fn cnpg_unhealthy() -> Fixture {
    let mut f = dirqual();
    for c in find(&mut f, "Cluster", "pg") {
        c["status"]["readyInstances"] = json!(2);
        c["status"]["phase"] = json!("Failing over");
        c["status"]["phaseReason"] = json!("Failing over from pg-1 to pg-2");
    }
    f
}

pub fn cnpg_archiving_failed() -> Fixture {
    cnpg_backups(
        (
            "False",
            "ContinuousArchivingFailing",
            "unexpected failure invoking barman-cloud-wal-archive: exit status 4",
        ),
        -2 * HOUR,
    )
}

pub fn cnpg_backup_old() -> Fixture {
    cnpg_backups(
        (
            "True",
            "ContinuousArchivingSuccess",
            "Continuous archiving is working",
        ),
        -3 * DAY,
    )
}

pub fn audit_missing() -> Fixture {
    let mut b = dirqual_builder(&[], "HEALTH_OK");
    for node in ["dirqual2", "dirqual3"] {
        control_plane_pods(&mut b, node, node != "dirqual2");
    }
    let mut f = b.finish(K8S_VERSION);
    for node in ["dirqual2", "dirqual3"] {
        for n in find(&mut f, "Node", node) {
            n["metadata"]["labels"]["node-role.kubernetes.io/control-plane"] = json!("");
        }
    }
    f
}

pub fn workload_deleting() -> Fixture {
    let mut f = dirqual();
    for d in find(&mut f, "Deployment", "gitea") {
        d["metadata"]["deletionTimestamp"] = json!(T_DELETED);
        d["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        d["metadata"]["finalizers"] = json!(["foregroundDeletion"]);
    }
    f
}

pub fn store_deleting() -> Fixture {
    let mut f = dirqual_full();
    for s in find(&mut f, "CephObjectStore", "s3") {
        s["metadata"]["deletionTimestamp"] = json!(T_DELETED);
        s["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        s["metadata"]["finalizers"] = json!(["cephobjectstore.ceph.rook.io"]);
        s["status"]["phase"] = json!("Deleting");
        s["status"]["conditions"] = json!([{
            "type": "DeletionIsBlocked", "status": "True", "reason": "ObjectHasDependents",
            "message": STORE_BLOCKED, "lastTransitionTime": T_DELETED
        }]);
    }
    f
}

pub fn deploy_paused() -> Fixture {
    let mut f = dirqual();
    for d in find(&mut f, "Deployment", "registry") {
        d["metadata"]["generation"] = json!(3);
        d["spec"]["paused"] = json!(true);
        d["status"]["observedGeneration"] = json!(3);
        d["status"]["replicas"] = json!(2);
        d["status"]["updatedReplicas"] = json!(1);
        d["status"]["conditions"] = json!([
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
             "message": "Deployment has minimum availability.",
             "lastTransitionTime": T_LAYERS, "lastUpdateTime": T_LAYERS},
            {"type": "Progressing", "status": "Unknown", "reason": "DeploymentPaused",
             "message": "Deployment is paused",
             "lastTransitionTime": T_LAYERS, "lastUpdateTime": T_LAYERS}
        ]);
    }
    f
}

pub fn cnpg_hibernated() -> Fixture {
    let mut f = dirqual();
    for c in find(&mut f, "Cluster", "pg") {
        c["metadata"]["annotations"] = json!({"cnpg.io/hibernation": "on"});
    }
    f
}

pub fn ceph_stale() -> Fixture {
    let mut f = dirqual();
    for c in find(&mut f, "CephCluster", "rook-ceph") {
        c["status"]["ceph"]["lastChecked"] = json!(from_now(-3 * HOUR - 60));
    }
    f
}

pub fn cert_expiring() -> Fixture {
    let mut f = dirqual_full();
    f.objects.retain(|o| o["kind"] != "Certificate");
    // Issued 87 days ago for 90: three days (and an hour) left, renewal failing.
    f.objects
        .push(certificate("gitea-tls", -87 * DAY + HOUR, 90 * DAY));
    f
}

pub fn claim_pending() -> Fixture {
    let mut f = dirqual_full();
    f.objects.retain(|o| o["kind"] != "ObjectBucketClaim");
    f.objects.push(bucket_claim("lake-raw", "Pending"));
    f
}

pub fn crashloop_arm64() -> Fixture {
    let mut f = dirqual();
    for n in find(&mut f, "Node", "dirqual2") {
        n["status"]["nodeInfo"]["architecture"] = json!("arm64");
        n["metadata"]["labels"]["kubernetes.io/arch"] = json!("arm64");
    }
    let image = format!("quay.io/argoproj/argocd@sha256:{}", "7e1c".repeat(16));
    for d in find(&mut f, "Deployment", "argocd-repo-server") {
        d["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image);
        d["status"] = json!({
            "observedGeneration": 1, "replicas": 1, "updatedReplicas": 1,
            "unavailableReplicas": 1,
            "conditions": [
                {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
                 "message": "Deployment does not have minimum availability.",
                 "lastTransitionTime": T_LAYERS, "lastUpdateTime": T_LAYERS},
                {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
                 "message": "ReplicaSet \"argocd-repo-server-6f7d8c9b5\" is progressing.",
                 "lastTransitionTime": T_LAYERS, "lastUpdateTime": T_LAYERS}
            ]
        });
    }
    f.objects.push(crash_looping_pod(
        "argocd-repo-server-6f7d8c9b5-x7k2p",
        "argocd-repo-server",
        &image,
        "dirqual2",
    ));
    // Another workload's pod in the same namespace: not the repo server's selector.
    f.objects.push(crash_looping_pod(
        "argocd-redis-7c9d8b6f4-q2w3e",
        "argocd-redis",
        "public.ecr.aws/docker/library/redis@sha256:0f97c1c9daf5b69b93390ccbe8d3e2971617ec4801fd0882c72bf7cad3a13494",
        "dirqual2",
    ));
    f
}

/// A Deployment's pod (label `app.kubernetes.io/name: APP`) whose one container crash-loops
/// with exit code 255, seven restarts in: what an amd64 binary does on an arm64 node.
fn crash_looping_pod(name: &str, app: &str, image: &str, node: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "argocd",
            "labels": {"app.kubernetes.io/name": app, "pod-template-hash": "6f7d8c9b5"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "controller": true,
                                  "blockOwnerDeletion": true,
                                  "name": name.rsplit_once('-').map(|(rs, _)| rs).unwrap_or(name),
                                  "uid": crate::fixture::uid_for(&format!("apps/v1/ReplicaSet/argocd/{app}"))}],
            "creationTimestamp": T_LAYERS
        },
        "spec": {
            "nodeName": node,
            "serviceAccountName": app,
            "containers": [{
                "name": app,
                "image": image,
                "args": ["/usr/local/bin/entrypoint.sh"],
                "env": [{"name": "REDIS_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "argocd-redis", "key": "auth"}}}],
                "ports": [{"containerPort": 8081, "protocol": "TCP"}]
            }]
        },
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "Ready", "status": "False", "reason": "ContainersNotReady",
                 "message": format!("containers with unready status: [{app}]"), "lastTransitionTime": T_LAYERS},
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": T_LAYERS}
            ],
            "hostIP": "10.67.2.12",
            "podIP": "10.0.2.41",
            "containerStatuses": [{
                "name": app,
                "ready": false,
                "started": false,
                "restartCount": 7,
                "image": image,
                "imageID": image,
                "containerID": "containerd://4b1f0c2d9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c",
                "state": {"waiting": {"reason": "CrashLoopBackOff",
                                      "message": format!("back-off 5m0s restarting failed container={app} pod={name}_argocd")}},
                "lastState": {"terminated": {"exitCode": 255, "reason": "Error",
                                             "startedAt": T_LAYERS, "finishedAt": T_LAYERS,
                                             "containerID": "containerd://4b1f0c2d9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c"}}
            }]
        }
    })
}

/// dirqual whose CNPG Cluster dataops/pg backs up to the object store: its
/// `ContinuousArchiving` condition as `archiving` (status, reason, message, as CNPG's instance
/// manager writes it) and its last successful backup `backup_at` seconds from now.
fn cnpg_backups(archiving: (&str, &str, &str), backup_at: i64) -> Fixture {
    let mut f = dirqual();
    for c in find(&mut f, "Cluster", "pg") {
        c["spec"]["backup"] = json!({
            "barmanObjectStore": {
                "destinationPath": "s3://pg-backups/",
                "endpointURL": "http://rook-ceph-rgw-s3.rook-ceph.svc",
                "s3Credentials": {"accessKeyId": {"name": "pg-backup-s3", "key": "ACCESS_KEY_ID"},
                                   "secretAccessKey": {"name": "pg-backup-s3", "key": "ACCESS_SECRET_KEY"}}
            },
            "retentionPolicy": "30d"
        });
        c["status"]["lastSuccessfulBackup"] = json!(from_now(backup_at));
        c["status"]["firstRecoverabilityPoint"] = json!(from_now(-20 * DAY));
        let (status, reason, message) = archiving;
        let mut conditions = c["status"]["conditions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        conditions.retain(|x| x["type"] != "ContinuousArchiving");
        conditions.push(
            json!({"type": "ContinuousArchiving", "status": status, "reason": reason,
                               "message": message, "lastTransitionTime": from_now(-HOUR)}),
        );
        c["status"]["conditions"] = json!(conditions);
    }
    f
}
