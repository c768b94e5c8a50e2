//! The claim and volume fixtures (SPEC §6 v0.4 "Claims and volumes"): dirqual with the
//! PersistentVolumeClaims its layers' StatefulSets own and the PersistentVolumes Rook's RBD
//! provisioner made for them.
//!
//! | name | what differs |
//! |---|---|
//! | `claims-bound` | prometheus's and gitea's claims `Bound`, alertmanager's created a minute ago and still `Pending`, a Retain volume `Released` by a deleted registry claim |
//! | `claims-degraded` | alertmanager's claim `Pending` for 2 hours, gitea's `Lost` (its volume gone), and the Released volume's reclaim `Failed`; a claim of the CephFS class (its StorageClass added) `Lost` too: another provisioner's, not judged |
//!
//! Shapes as the API server and the external-provisioner write them (`core/v1`
//! PersistentVolumeClaim: the `pv.kubernetes.io/bind-completed` and
//! `volume.kubernetes.io/storage-provisioner` annotations, the `kubernetes.io/pvc-protection`
//! finalizer, `spec.volumeName` once bound, `status.capacity`; PersistentVolume: the
//! `pv.kubernetes.io/provisioned-by` annotation, `spec.csi`, `spec.claimRef`,
//! `status.lastPhaseTransitionTime`).

use serde_json::{json, Value};

use crate::builders::{storage_class, uid, K8S_VERSION, T_LAYERS};
use crate::clusters::dirqual_builder;
use crate::fixture::Fixture;
use crate::when::{from_now, HOUR, MINUTE};

const RBD: &str = "rook-ceph.rbd.csi.ceph.com";

pub fn claims_bound() -> Fixture {
    claims(false)
}

pub fn claims_degraded() -> Fixture {
    claims(true)
}

/// dirqual's claims and volumes, `degraded` or not.
fn claims(degraded: bool) -> Fixture {
    let mut f = dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION);
    let (am_age, gitea_phase, released_phase) = if degraded {
        (2 * HOUR, "Lost", "Failed")
    } else {
        (MINUTE, "Bound", "Released")
    };
    f.objects.extend([
        claim(
            "monitoring",
            "prometheus-db-prometheus-0",
            "ceph-block",
            "Bound",
            T_LAYERS,
        ),
        claim(
            "monitoring",
            "alertmanager-main-db-alertmanager-main-0",
            "ceph-block",
            "Pending",
            &from_now(-am_age),
        ),
        claim("gitea", "data-gitea-0", "ceph-block", gitea_phase, T_LAYERS),
        volume(
            "prometheus-db-prometheus-0",
            "monitoring",
            "ceph-block",
            "Bound",
        ),
        volume("data-registry-0", "registry", "ceph-block", released_phase),
    ]);
    // A Lost claim's volume is gone: that is what Lost says.
    if !degraded {
        f.objects
            .push(volume("data-gitea-0", "gitea", "ceph-block", "Bound"));
    }
    if degraded {
        f.objects.push(storage_class(
            "ceph-filesystem",
            "rook-ceph.cephfs.csi.ceph.com",
            false,
            json!({"clusterID": "rook-ceph", "fsName": "cephfs", "pool": "cephfs-replicated"}),
            T_LAYERS,
        ));
        f.objects.push(claim(
            "gitea",
            "shared-gitea-0",
            "ceph-filesystem",
            "Lost",
            T_LAYERS,
        ));
    }
    f
}

fn claim(namespace: &str, name: &str, class: &str, phase: &str, created: &str) -> Value {
    let provisioner = if class == "ceph-filesystem" {
        "rook-ceph.cephfs.csi.ceph.com"
    } else {
        RBD
    };
    let id = uid(namespace, name);
    let mut annotations = json!({
        "volume.beta.kubernetes.io/storage-provisioner": provisioner,
        "volume.kubernetes.io/storage-provisioner": provisioner,
    });
    let mut spec = json!({
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "10Gi"}},
        "storageClassName": class,
        "volumeMode": "Filesystem",
    });
    let status = if phase == "Pending" {
        json!({"phase": "Pending"})
    } else {
        annotations["pv.kubernetes.io/bind-completed"] = json!("yes");
        annotations["pv.kubernetes.io/bound-by-controller"] = json!("yes");
        spec["volumeName"] = json!(format!("pvc-{id}"));
        json!({"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"}, "phase": phase})
    };
    json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": id,
            "creationTimestamp": created,
            "annotations": annotations,
            "finalizers": ["kubernetes.io/pvc-protection"],
        },
        "spec": spec,
        "status": status,
    })
}

fn volume(claim: &str, namespace: &str, class: &str, phase: &str) -> Value {
    let id = uid(namespace, claim);
    let reclaim = if phase == "Bound" { "Delete" } else { "Retain" };
    json!({
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": format!("pvc-{id}"),
            "creationTimestamp": T_LAYERS,
            "annotations": {"pv.kubernetes.io/provisioned-by": RBD},
            "finalizers": ["external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection"],
        },
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": "10Gi"},
            "claimRef": {
                "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "name": claim, "namespace": namespace, "uid": id,
            },
            "csi": {
                "driver": RBD,
                "fsType": "ext4",
                "volumeAttributes": {"clusterID": "rook-ceph", "pool": "replicapool", "imageName": format!("csi-vol-{id}")},
                "volumeHandle": format!("0001-0009-rook-ceph-0000000000000002-{id}"),
            },
            "persistentVolumeReclaimPolicy": reclaim,
            "storageClassName": class,
            "volumeMode": "Filesystem",
        },
        "status": {"phase": phase, "lastPhaseTransitionTime": T_LAYERS},
    })
}
