//! `claims` on PersistentVolumeClaims and PersistentVolumes shaped as the API server lists
//! them (a Rook RBD provisioned claim Bound, one just created and still Pending, a Retain
//! volume Released by a deleted claim): storage holds and names the Released volume; a
//! claim Pending past maxPending, a Lost claim or a Failed volume of the provisioner
//! degrades it naming the object, its phase and age; another provisioner's are not judged;
//! a failed or forbidden read is unknown, never absent.

use serde_json::Value;

use super::fixtures::dirqual;
use super::{evaluate, LayerReport, State};
use crate::model::catalog::Catalog;
use crate::model::observation::{
    parse_claims, parse_volumes, FailureKind, Observation, ReadFailure,
};

const PV_BOUND: &str = "pvc-3f1c2a9e-8d41-4b7e-9a53-0c6e1d2b7f10";
const RELEASED: &str = "Released, kept by their reclaim policy (not degrading): pvc-91d3e5a7-0b2c-4d8e-a6f1-3c7b9e2d4a15 (claim registry/data-registry-0)";

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/kubectl/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// dirqual with monitoring's claims and the volumes replaced by these lists.
fn with(claims: &Value, volumes: &Value) -> Observation {
    let mut obs = dirqual();
    obs.claims.insert(
        "monitoring".into(),
        Ok(parse_claims(&claims.to_string()).unwrap()),
    );
    obs.volumes = Ok(parse_volumes(&volumes.to_string()).unwrap());
    obs
}

fn storage_in(catalog: &Catalog, obs: &Observation) -> LayerReport {
    evaluate(catalog, &["storage".to_string()], &[], obs).remove(0)
}

fn storage(obs: &Observation) -> LayerReport {
    storage_in(&Catalog::builtin().unwrap(), obs)
}

/// The fixture's claims: [0] prometheus Bound, [1] alertmanager Pending (2m20s old).
fn claims() -> Value {
    fixture("persistentvolumeclaims.json")
}

/// The fixture's volumes: [0] prometheus's Bound, [1] registry's Released.
fn volumes() -> Value {
    fixture("persistentvolumes.json")
}

#[test]
fn bound_and_young_pending_claims_hold_and_a_released_volume_is_named_only() {
    let r = storage(&dirqual());
    assert_eq!(r.state, State::Present, "{r:#?}");
    assert_eq!(
        r.evidence.last().unwrap(),
        &format!("2 claims in 1 checked namespace: none Lost or Pending too long, 1 Pending for less than maxPending; 2 volumes of rook-ceph.rbd.csi.ceph.com: none Failed; {RELEASED}")
    );
}

#[test]
fn a_claim_pending_past_max_pending_degrades_naming_it_and_its_age() {
    let mut list = claims();
    list["items"][1]["metadata"]["creationTimestamp"] = "2026-01-12T08:30:00Z".into();
    let r = storage(&with(&list, &volumes()));
    assert_eq!(r.state, State::Degraded, "{r:#?}");
    assert_eq!(
        r.reason,
        format!("PersistentVolumeClaim monitoring/alertmanager-main-db-alertmanager-main-0 Pending for 12m (class ceph-block; maxPending 5m); {RELEASED}")
    );
    // The catalog's maxPending decides: an hour allows it.
    let mut catalog = Catalog::builtin().unwrap();
    catalog
        .overlay_str(
            "- id: storage\n  title: RBD\n  detect:\n    - storageClass: {provisioner: rook-ceph.rbd.csi.ceph.com}\n  healthy:\n    - claims: {provisioner: rook-ceph.rbd.csi.ceph.com, maxPending: 1h}\n  install: x\n",
            "catalog.yaml",
        )
        .unwrap();
    assert_eq!(
        storage_in(&catalog, &with(&list, &volumes())).state,
        State::Present
    );
}

#[test]
fn a_claim_without_a_class_pending_too_long_is_judged_as_the_default_class() {
    let mut list = claims();
    let pending = &mut list["items"][1];
    pending["spec"]
        .as_object_mut()
        .unwrap()
        .remove("storageClassName");
    pending["metadata"]["creationTimestamp"] = "2026-01-11T08:00:00Z".into();
    let r = storage(&with(&list, &volumes()));
    assert_eq!(r.state, State::Degraded);
    assert!(
        r.reason.starts_with("PersistentVolumeClaim monitoring/alertmanager-main-db-alertmanager-main-0 Pending for 24h (class none: the default; maxPending 5m)"),
        "{}",
        r.reason
    );
}

#[test]
fn a_lost_claim_degrades() {
    let mut list = claims();
    list["items"][0]["status"]["phase"] = "Lost".into();
    let r = storage(&with(&list, &volumes()));
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.reason,
        format!("PersistentVolumeClaim monitoring/prometheus-db-prometheus-0 Lost, created 22d ago: its volume is gone; {RELEASED}")
    );
}

#[test]
fn a_failed_volume_of_the_provisioner_degrades() {
    let mut list = volumes();
    list["items"][0]["status"]["phase"] = "Failed".into();
    let r = storage(&with(&claims(), &list));
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.reason,
        format!("PersistentVolume {PV_BOUND} (claim monitoring/prometheus-db-prometheus-0) Failed; {RELEASED}")
    );
    // The failing object its Warning Events are about: cluster-scoped, the Released one not.
    let check = r.checks.iter().find(|c| c.id == "storage/claims").unwrap();
    assert_eq!(
        check.objects,
        [crate::model::observation::ObjectRef::new(
            "PersistentVolume",
            "",
            PV_BOUND
        )]
    );
}

#[test]
fn another_provisioners_claims_and_volumes_are_not_judged() {
    let (mut c, mut v) = (claims(), volumes());
    c["items"][0]["status"]["phase"] = "Lost".into();
    c["items"][0]["spec"]["storageClassName"] = "ceph-filesystem".into();
    v["items"][0]["status"]["phase"] = "Failed".into();
    v["items"][0]["spec"]["storageClassName"] = "ceph-filesystem".into();
    v["items"][1]["spec"]["storageClassName"] = "ceph-filesystem".into();
    let r = storage(&with(&c, &v));
    assert_eq!(r.state, State::Present, "{r:#?}");
    assert_eq!(
        r.evidence.last().unwrap(),
        "1 claim in 1 checked namespace: none Lost or Pending too long, 1 Pending for less than maxPending; 0 volumes of rook-ceph.rbd.csi.ceph.com: none Failed"
    );
}

#[test]
fn a_forbidden_or_failed_read_is_unknown_never_absent() {
    let forbidden = |what: &str| {
        ReadFailure::new(
            FailureKind::Forbidden,
            format!("{what} is forbidden: User \"nestor\" cannot list resource"),
        )
    };
    let mut obs = dirqual();
    obs.claims.insert(
        "monitoring".into(),
        Err(forbidden("persistentvolumeclaims")),
    );
    let r = storage(&obs);
    assert_eq!(r.state, State::Unknown, "{r:#?}");
    assert_eq!(
        r.reason,
        "read of persistentvolumeclaims in monitoring failed: Forbidden"
    );
    let mut obs = dirqual();
    obs.volumes = Err(forbidden("persistentvolumes"));
    let r = storage(&obs);
    assert_eq!(r.state, State::Unknown);
    assert_eq!(r.reason, "read of persistentvolumes failed: Forbidden");
    // An older snapshot without the volumes: not recorded, unknown.
    let mut obs = dirqual();
    obs.volumes = Err(ReadFailure::skipped("not in this snapshot"));
    assert_eq!(storage(&obs).state, State::Unknown);
}

#[test]
fn a_pending_claim_without_a_reading_time_is_unknown() {
    let mut obs = dirqual();
    obs.observed_at = None;
    let r = storage(&obs);
    assert_eq!(r.state, State::Unknown);
    assert_eq!(r.reason, "no reading time recorded: ages cannot be judged");
    // Nothing Pending: nothing to age, judged.
    let mut list = claims();
    list["items"][1]["status"]["phase"] = "Bound".into();
    let mut obs = with(&list, &volumes());
    obs.observed_at = None;
    assert_eq!(storage(&obs).state, State::Present);
}

#[test]
fn the_check_reads_the_checked_namespaces_claims_and_the_volumes() {
    use crate::model::catalog::Workloads;
    use crate::model::observation::ReadRequest;
    let catalog = Catalog::builtin().unwrap();
    let ids: Vec<String> = ["storage", "monitoring", "gitops"].map(String::from).into();
    let plan = catalog.read_plan(&ids, Workloads::InTheirNamespaces);
    let claims: Vec<&str> = plan
        .requests
        .iter()
        .filter_map(|r| {
            if let ReadRequest::Claims { namespace } = r {
                Some(namespace.as_str())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(claims, ["argocd", "gitea", "monitoring"]);
    assert!(plan.requests.contains(&ReadRequest::PersistentVolumes));
    // storage alone names no namespace: no claim is read, the volumes still are.
    let plan = catalog.read_plan(&["storage".to_string()], Workloads::InTheirNamespaces);
    assert!(!plan
        .requests
        .iter()
        .any(|r| matches!(r, ReadRequest::Claims { .. })));
}

#[test]
fn the_catalog_form_is_strict() {
    let parse = |check: &str| {
        let mut c = Catalog::builtin().unwrap();
        c.overlay_str(
            &format!("- id: s\n  title: s\n  detect:\n    - {check}\n  install: x\n"),
            "catalog.yaml",
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    assert_eq!(
        parse("claims: {provisioner: rook-ceph.rbd.csi.ceph.com}"),
        Ok(())
    );
    for bad in [
        "claims: {provisioner: p, maxPending: 0s}",
        "claims: {provisioner: p, maxPending: soon}",
        "claims: {provisioner: p, pending: 5m}",
        "claims: {maxPending: 5m}",
    ] {
        assert!(parse(bad).is_err(), "{bad} accepted");
    }
}
