//! Warning Events about cluster-scoped objects (SPEC §6 v0.4 "Warnings explain"): a Node or a
//! PersistentVolume has no namespace, so both of client-go's recorders write its Events into
//! `default` (`metav1.NamespaceDefault`), `regarding` (the core recorder's `involvedObject`)
//! without a namespace. Shaped as `events.k8s.io/v1` serves an Event the core recorder wrote:
//! `eventTime` null, the `deprecated*` fields set, the reporting component in
//! `deprecatedSource`. The kubelet names its node `{kind: Node, name: N, uid: N}` (its
//! `nodeRef`); the node lifecycle controller's `NodeNotReady`/status Events about a Node are
//! `Normal` (only the Pods it marks get a `NodeNotReady` Warning).
//!
//! | name | what differs from its base |
//! |---|---|
//! | `events-node` | `node-disk-pressure` with, in `default`: the kubelet's `EvictionThresholdMet` (4m ago) and `ImageGCFailed` (12m ago) Warnings about dirqual2, its Normal `NodeHasDiskPressure`, a `Rebooted` Warning about dirqual3 (another node) and an `Evicted` Warning about a Pod of `default` |
//! | `events-volume` | `claims-degraded` with, in `default`: the external-provisioner's `VolumeFailedDelete` Warning about the Failed volume (6m ago; its reclaim policy `Delete`) and one about another volume |

use serde_json::{json, Value};

use crate::builders::uid;
use crate::fixture::Fixture;
use crate::when::{from_now, MINUTE};

/// The kubelet's `nodeRef`: no namespace, the node name as its uid.
fn node_ref(name: &str) -> Value {
    json!({"kind": "Node", "name": name, "uid": name})
}

/// `events-node`: `node_disk_pressure`, the `node-disk-pressure` fixture, with the Events
/// about its nodes.
pub fn events_node(node_disk_pressure: Fixture) -> Fixture {
    let mut f = node_disk_pressure;
    let kubelet = |host: &str| json!({"component": "kubelet", "host": host});
    f.objects.extend([
        core_event(
            "dirqual2.187c9a2e5d0f1a01",
            node_ref("dirqual2"),
            kubelet("dirqual2"),
            ("EvictionThresholdMet", "Warning"),
            "Attempting to reclaim ephemeral-storage",
            (6, -4 * MINUTE),
        ),
        core_event(
            "dirqual2.187c9a2e5d0f1a02",
            node_ref("dirqual2"),
            kubelet("dirqual2"),
            ("ImageGCFailed", "Warning"),
            "Failed to garbage collect required amount of images. Attempted to free 4125097164 bytes, but only found 0 bytes eligible to free.",
            (3, -12 * MINUTE),
        ),
        core_event(
            "dirqual2.187c9a2e5d0f1a03",
            node_ref("dirqual2"),
            kubelet("dirqual2"),
            ("NodeHasDiskPressure", "Normal"),
            "Node dirqual2 status is now: NodeHasDiskPressure",
            (1, -2 * MINUTE),
        ),
        core_event(
            "dirqual3.187c9a2e5d0f1a04",
            node_ref("dirqual3"),
            kubelet("dirqual3"),
            ("Rebooted", "Warning"),
            "Node dirqual3 has been rebooted, boot id: 5c1f0e7a-3b9d-4e0a-9f2c-8d7b6a5e4c31",
            (1, -MINUTE),
        ),
        core_event(
            "web-5d8f7c6b9-x7k2p.187c9a2e5d0f1a05",
            json!({"kind": "Pod", "namespace": "default", "name": "web-5d8f7c6b9-x7k2p",
                   "uid": uid("default", "web-5d8f7c6b9-x7k2p"), "apiVersion": "v1",
                   "resourceVersion": "51877"}),
            kubelet("dirqual2"),
            ("Evicted", "Warning"),
            "The node was low on resource: ephemeral-storage. Threshold quantity: 2Gi, available: 1012Mi.",
            (1, -3 * MINUTE),
        ),
    ]);
    f
}

/// `events-volume`: `claims_degraded`, the `claims-degraded` fixture, with the Events about
/// its volumes.
pub fn events_volume(claims_degraded: Fixture) -> Fixture {
    let mut f = claims_degraded;
    let failed = format!("pvc-{}", uid("registry", "data-registry-0"));
    for v in f
        .objects
        .iter_mut()
        .filter(|o| o["kind"] == "PersistentVolume" && o["metadata"]["name"] == failed.as_str())
    {
        v["spec"]["persistentVolumeReclaimPolicy"] = json!("Delete");
    }
    let provisioner = json!({"component": "rook-ceph.rbd.csi.ceph.com_csi-rbdplugin-provisioner-7f9c6b8d5-x2kq4_b1f0"});
    let pv = |name: &str| json!({"kind": "PersistentVolume", "name": name, "uid": uid("", name), "apiVersion": "v1", "resourceVersion": "48301"});
    f.objects.extend([
        core_event(
            &format!("{failed}.187c9a2e5d0f1b01"),
            pv(&failed),
            provisioner.clone(),
            ("VolumeFailedDelete", "Warning"),
            "rpc error: code = Internal desc = rbd: ret=-16, Device or resource busy",
            (9, -6 * MINUTE),
        ),
        core_event(
            "pvc-0d5e2f4a-other.187c9a2e5d0f1b02",
            pv("pvc-0d5e2f4a-other"),
            provisioner,
            ("VolumeFailedDelete", "Warning"),
            "rpc error: code = Internal desc = rbd: ret=-16, Device or resource busy",
            (2, -5 * MINUTE),
        ),
    ]);
    f
}

/// An Event of `default` the core recorder wrote, as events.k8s.io/v1 serves it:
/// `(reason, type)`, `(count, last seen from now)`.
fn core_event(
    name: &str,
    regarding: Value,
    source: Value,
    (reason, type_): (&str, &str),
    note: &str,
    (count, last): (u64, i64),
) -> Value {
    let first = from_now(last - 20 * MINUTE);
    json!({
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": uid("default", name),
            "resourceVersion": "51902",
            "creationTimestamp": first,
        },
        "eventTime": null,
        "reportingController": source["component"],
        "reportingInstance": source["host"].as_str().unwrap_or(""),
        "reason": reason,
        "regarding": regarding,
        "note": note,
        "type": type_,
        "deprecatedSource": source,
        "deprecatedFirstTimestamp": first,
        "deprecatedLastTimestamp": from_now(last),
        "deprecatedCount": count,
    })
}
