//! Warning Events (SPEC §6 v0.4 "Warnings explain"): `claims-degraded` with the Events the
//! PersistentVolume controller and the external-provisioner record about its claims, shaped
//! as `events.k8s.io/v1` serves them (k8s.io/api/events/v1 `Event`: `regarding`, `note`,
//! `reason`, `type`, `series` for a repeated Event the new recorder writes, `eventTime`,
//! `reportingController`/`reportingInstance`, `action`; the `deprecated*` fields of an Event
//! the core recorder wrote, `eventTime` then null).
//!
//! | name | what differs from `claims-degraded` |
//! |---|---|
//! | `events-app` | `app-sync-failed` with, in `argocd`, what Argo CD's controller records (core recorder, component `argocd-application-controller`): an `OperationCompleted` Warning about marquez (the failed sync, 8m ago), its Normal `OperationStarted`, and an `OperationCompleted` Warning about dagster, which is Synced and Healthy (25m ago) |
//! | `events-degraded` | in `monitoring`: a `ProvisioningFailed` Warning about the Pending alertmanager claim (a series, 2m ago), a Normal `ExternalProvisioning` about it, a Warning whose note holds an ESC and 400 characters (30m ago), a `BackOff` Warning about another object; in `gitea`: a `ClaimLost` Warning (core recorder, 10m ago), one older than an hour, and a fourth recent Warning (50m ago) past the three quoted |

use serde_json::{json, Value};

use crate::builders::uid;
use crate::fixture::Fixture;
use crate::when::{from_now, HOUR, MINUTE};

const AM: &str = "alertmanager-main-db-alertmanager-main-0";

/// The uid the server gives Application `app` of `argocd` (`fixture::fill_metadata`).
fn app_uid(app: &str) -> String {
    crate::fixture::uid_for(&format!("argoproj.io/v1alpha1/Application/argocd/{app}"))
}

/// An Application's Event as Argo CD's `AuditLogger` writes it (a core Event in the
/// Application's namespace, `involvedObject` with kind, apiVersion, the Application's uid and
/// resourceVersion), as events.k8s.io/v1 serves it: `(reason, type)`, last seen `last` from
/// now.
fn argo_event(app: &str, (reason, type_): (&str, &str), note: &str, last: i64) -> Value {
    argo_event_of(app, &app_uid(app), (reason, type_), note, last)
}

/// [`argo_event`] about the object of uid `object_uid` named `app` (a deleted one of the same
/// name has another uid).
fn argo_event_of(
    app: &str,
    object_uid: &str,
    (reason, type_): (&str, &str),
    note: &str,
    last: i64,
) -> Value {
    let name = format!("{app}.187c9b04a1e2{:04x}", (-last) % 0xffff);
    json!({
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {
            "name": name,
            "namespace": "argocd",
            "uid": uid("argocd", &name),
            "resourceVersion": "52114",
            "creationTimestamp": from_now(last),
        },
        "eventTime": null,
        "reportingController": "",
        "reportingInstance": "",
        "reason": reason,
        "regarding": {
            "kind": "Application", "namespace": "argocd", "name": app,
            "apiVersion": "argoproj.io/v1alpha1", "uid": object_uid,
            "resourceVersion": "51990",
        },
        "note": note,
        "type": type_,
        "deprecatedSource": {"component": "argocd-application-controller"},
        "deprecatedFirstTimestamp": from_now(last),
        "deprecatedLastTimestamp": from_now(last),
        "deprecatedCount": 1,
    })
}

/// `events-app`: `app_sync_failed`, the `app-sync-failed` fixture, with Argo CD's Events.
pub fn events_app(app_sync_failed: Fixture) -> Fixture {
    let mut f = app_sync_failed;
    f.objects.extend([
        argo_event(
            "marquez",
            ("OperationCompleted", "Warning"),
            "Sync operation to 9b2d7c1e5a40 failed: one or more synchronization tasks completed unsuccessfully",
            -8 * MINUTE,
        ),
        argo_event(
            "marquez",
            ("OperationStarted", "Normal"),
            "initiated automated sync to '9b2d7c1e5a40'",
            -10 * MINUTE,
        ),
        argo_event(
            "dagster",
            ("OperationCompleted", "Warning"),
            "Sync operation to 51c0e9d2b7aa failed: ComparisonError: rpc error: code = Unknown desc = authentication required",
            -25 * MINUTE,
        ),
        // About a `marquez` deleted and made again since (another uid): never quoted as the
        // present one's (issue 49 item 1).
        argo_event_of(
            "marquez",
            &uid("argocd", "marquez-before-it-was-made-again"),
            ("OperationCompleted", "Warning"),
            "Sync operation to 0c1d2e3f4a5b failed: the Application that was deleted",
            -5 * MINUTE,
        ),
    ]);
    f
}

/// `events-degraded`: `claims_degraded`, the `claims-degraded` fixture, with the Events about
/// its claims.
pub fn events_degraded(claims_degraded: Fixture) -> Fixture {
    let mut f = claims_degraded;
    let hostile = format!(
        "failed to provision volume with StorageClass \"ceph-block\": rpc error: \u{1b}[2J\u{1b}]0;owned\u{7} {}",
        "x".repeat(400)
    );
    f.objects.extend([
        new_event(
            "monitoring",
            &format!("{AM}.181d3a7c9b2e4f10"),
            claim_ref("monitoring", AM),
            "ProvisioningFailed",
            "Warning",
            "failed to provision volume with StorageClass \"ceph-block\": rpc error: code = DeadlineExceeded desc = context deadline exceeded",
            Some((14, -2 * MINUTE)),
            -40 * MINUTE,
        ),
        new_event(
            "monitoring",
            &format!("{AM}.181d3a7c9b2e4f11"),
            claim_ref("monitoring", AM),
            "ExternalProvisioning",
            "Normal",
            "Waiting for a volume to be created either by the external provisioner 'rook-ceph.rbd.csi.ceph.com' or manually by the system administrator.",
            Some((30, -MINUTE)),
            -HOUR,
        ),
        new_event(
            "monitoring",
            &format!("{AM}.181d3a7c9b2e4f12"),
            claim_ref("monitoring", AM),
            "ProvisioningFailed",
            "Warning",
            &hostile,
            None,
            -30 * MINUTE,
        ),
        new_event(
            "monitoring",
            "prometheus-k8s-0.181d3a7c9b2e4f13",
            json!({"kind": "Pod", "namespace": "monitoring", "name": "prometheus-k8s-0", "apiVersion": "v1", "fieldPath": "spec.containers{prometheus}"}),
            "BackOff",
            "Warning",
            "Back-off restarting failed container prometheus in pod prometheus-k8s-0_monitoring",
            Some((7, -3 * MINUTE)),
            -20 * MINUTE,
        ),
        core_event(
            "gitea",
            "data-gitea-0.181d3a7c9b2e4f20",
            "ClaimLost",
            "Bound claim has lost its PersistentVolume. Data on the volume is lost!",
            1,
            -10 * MINUTE,
        ),
        core_event(
            "gitea",
            "data-gitea-0.181d3a7c9b2e4f21",
            "ClaimMisbound",
            "Two claims are bound to the same volume, this one is bound incorrectly",
            3,
            -2 * HOUR,
        ),
        core_event(
            "gitea",
            "data-gitea-0.181d3a7c9b2e4f22",
            "FailedBinding",
            "volume \"pvc-data-gitea-0\" already bound to a different claim.",
            2,
            -50 * MINUTE,
        ),
    ]);
    f
}

fn claim_ref(namespace: &str, name: &str) -> Value {
    json!({
        "kind": "PersistentVolumeClaim",
        "namespace": namespace,
        "name": name,
        "uid": uid(namespace, name),
        "apiVersion": "v1",
        "resourceVersion": "48211",
    })
}

/// An Event the events.k8s.io recorder wrote: `eventTime`, a `series` when repeated
/// (`(count, last seen from now)`), no `deprecated*` fields.
#[allow(clippy::too_many_arguments)]
fn new_event(
    namespace: &str,
    name: &str,
    regarding: Value,
    reason: &str,
    type_: &str,
    note: &str,
    series: Option<(u64, i64)>,
    first: i64,
) -> Value {
    let controller = if reason == "ExternalProvisioning" || reason == "ProvisioningFailed" {
        "rook-ceph.rbd.csi.ceph.com_csi-rbdplugin-provisioner-7f9c6b8d5-x2kq4_b1f0"
    } else {
        "kubelet"
    };
    let mut e = json!({
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid(namespace, name),
            "resourceVersion": "48260",
            "creationTimestamp": from_now(first),
        },
        "eventTime": format!("{}", from_now(first).replace('Z', ".412093Z")),
        "reportingController": controller,
        "reportingInstance": controller,
        "action": "Provisioning",
        "reason": reason,
        "regarding": regarding,
        "note": note,
        "type": type_,
    });
    if let Some((count, last)) = series {
        e["series"] =
            json!({"count": count, "lastObservedTime": from_now(last).replace('Z', ".118204Z")});
    }
    e
}

/// An Event the core recorder wrote, as events.k8s.io/v1 serves it: `eventTime` null, the
/// `deprecated*` fields set (PersistentVolume controller, claim `data-gitea-0`).
fn core_event(
    namespace: &str,
    name: &str,
    reason: &str,
    note: &str,
    count: u64,
    last: i64,
) -> Value {
    json!({
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid(namespace, name),
            "resourceVersion": "48270",
            "creationTimestamp": from_now(last - HOUR),
        },
        "eventTime": null,
        "reportingController": "",
        "reportingInstance": "",
        "reason": reason,
        "regarding": claim_ref(namespace, "data-gitea-0"),
        "note": note,
        "type": "Warning",
        "deprecatedSource": {"component": "persistentvolume-controller"},
        "deprecatedFirstTimestamp": from_now(last - HOUR),
        "deprecatedLastTimestamp": from_now(last),
        "deprecatedCount": count,
    })
}
