//! Which custom objects an `all` or `count` check names as failing (what the second round
//! reads Warning Events about, SPEC §6 v0.4 "Warnings explain"): by the catalog's `kind:`,
//! only the failing ones, none without a `kind:` (an Event names a kind, never a resource);
//! a `count` short of what `atLeastField` asks names the objects that ask.

use serde_json::json;

use super::fixtures::dirqual;
use super::{all, evaluate, objects, State};
use crate::model::catalog::{AllCheck, Catalog, CountCheck, Counted, Objects, Predicate, Wanted};
use crate::model::observation::{ObjectRef, Observation, ReadRequest};

const APPLICATIONS: &str = "applications.argoproj.io";

/// dirqual with these Applications (as Argo CD writes them) in `argocd`.
fn with_apps(syncs: &[(&str, &str)]) -> Observation {
    let mut obs = dirqual();
    obs.resources.remove(APPLICATIONS);
    let items: Vec<_> = syncs
        .iter()
        .map(|(name, sync)| {
            json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                   "metadata": {"name": name, "namespace": "argocd"},
                   "status": {"sync": {"status": sync}, "health": {"status": "Healthy"}}})
        })
        .collect();
    let list = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationList",
                      "metadata": {}, "items": items});
    obs.record(
        &ReadRequest::Resource(APPLICATIONS.into()),
        Ok(&list.to_string()),
    );
    obs
}

/// The CephCluster of the fixture as its Warning Events name it: by its uid too.
fn rook_ceph() -> ObjectRef {
    let mut named = ObjectRef::new("CephCluster", "rook-ceph", "rook-ceph");
    named.uid = Some("ee4aafea-ed62-42ab-ab95-f81ebf659e89".into());
    named
}

fn apps(kind: Option<&str>) -> Objects {
    Objects {
        resource: APPLICATIONS.into(),
        kind: kind.map(str::to_string),
        namespace: None,
        name: None,
    }
}

#[test]
fn an_all_check_names_its_failing_objects_by_the_catalogs_kind() {
    let obs = with_apps(&[("guestbook", "OutOfSync"), ("shop", "Synced")]);
    let catalog = Catalog::builtin().unwrap();
    let r = evaluate(&catalog, &["gitops".to_string()], &[], &obs).remove(0);
    assert_eq!(r.state, State::Degraded);
    let synced = r
        .checks
        .iter()
        .find(|c| c.id == "gitops/apps-synced")
        .unwrap();
    assert_eq!(
        synced.objects,
        [ObjectRef::new("Application", "argocd", "guestbook")]
    );
    // A check that holds names nothing.
    let healthy = r
        .checks
        .iter()
        .find(|c| c.id == "gitops/apps-healthy")
        .unwrap();
    assert!(healthy.objects.is_empty());
}

#[test]
fn without_a_kind_no_object_is_named() {
    let obs = with_apps(&[("guestbook", "OutOfSync")]);
    let check = |kind| AllCheck {
        objects: apps(kind),
        predicate: Predicate::Field(
            crate::model::observation::FieldPath::parse(".status.sync.status").unwrap(),
            crate::model::catalog::Expect::Equals("Synced".into()),
        ),
        quote: None,
        with_field: None,
    };
    let named = all::all(&obs, &check(Some("Application")));
    assert_eq!(
        named.objects,
        [ObjectRef::new("Application", "argocd", "guestbook")]
    );
    let bare = all::all(&obs, &check(None));
    assert_eq!(bare.verdict, named.verdict);
    assert_eq!(bare.objects, Vec::<ObjectRef>::new());
    // The same for a `resource` check.
    let resource = |kind| crate::model::catalog::ResourceCheck {
        objects: apps(kind),
        field: Some(crate::model::observation::FieldPath::parse(".status.sync.status").unwrap()),
        expect: Some(crate::model::catalog::Expect::Equals("Synced".into())),
    };
    let named = objects::resource(&obs, &resource(Some("Application")));
    assert_eq!(named.objects.len(), 1);
    let bare = objects::resource(&obs, &resource(None));
    assert_eq!((bare.verdict, bare.objects.len()), (named.verdict, 0));
}

#[test]
fn a_count_short_of_what_an_object_asks_names_that_object() {
    let mut obs = dirqual();
    // The CephCluster asks for 5 mons; dirqual runs 3.
    let clusters = obs.resources.get_mut("cephclusters.ceph.rook.io").unwrap();
    let cluster = clusters.as_mut().unwrap().first_mut().unwrap();
    cluster.fields.insert(".spec.mon.count".into(), "5".into());
    let catalog = Catalog::builtin().unwrap();
    let r = evaluate(&catalog, &["ceph".to_string()], &[], &obs).remove(0);
    let count = r.checks.iter().find(|c| c.id == "ceph/mon-count").unwrap();
    assert!(count.evidence.contains("want at least 5"), "{count:?}");
    assert_eq!(count.objects, [rook_ceph()]);
    // Enough: nothing named. A plain `atLeast` count has no failing object to name.
    let enough = CountCheck {
        counted: Counted::Objects(apps(Some("Application"))),
        wanted: Wanted::AtLeast(2),
    };
    let one = with_apps(&[("guestbook", "Synced")]);
    let short = objects::count(&one, &enough);
    assert_eq!(
        (short.verdict, short.objects.len()),
        (super::Verdict::False, 0)
    );
}

#[test]
fn a_tolerate_check_names_the_object_that_is_not_tolerated() {
    let catalog = Catalog::builtin().unwrap();
    let health = |value: &str| {
        let mut obs = dirqual();
        let clusters = obs.resources.get_mut("cephclusters.ceph.rook.io").unwrap();
        let cluster = clusters.as_mut().unwrap().first_mut().unwrap();
        cluster
            .fields
            .insert(".status.ceph.health".into(), value.into());
        let r = evaluate(&catalog, &["ceph".to_string()], &[], &obs).remove(0);
        r.checks
            .into_iter()
            .find(|c| c.id == "ceph/health")
            .unwrap()
    };
    let err = health("HEALTH_ERR");
    assert_eq!(err.verdict, super::Verdict::False, "{err:?}");
    assert_eq!(err.objects, [rook_ceph()]);
    let ok = health("HEALTH_OK");
    assert_eq!((ok.verdict, ok.objects.len()), (super::Verdict::True, 0));
}

/// Issue 49 item 1: an Event counts for an object only when it names the object's uid: one
/// about a deleted object of the same name (another uid), or one naming no uid, is not about
/// it; an object whose uid was not read is matched by kind, namespace and name.
#[test]
fn an_event_is_about_the_object_whose_uid_it_names() {
    let object = rook_ceph();
    let mut same = ObjectRef::new("CephCluster", "rook-ceph", "rook-ceph");
    assert!(!object.named_by(&same), "no uid in the Event");
    same.uid = object.uid.clone();
    assert!(object.named_by(&same));
    let mut deleted = same.clone();
    deleted.uid = Some("0b7e4c1a-0000-4000-8000-000000000000".into());
    assert!(
        !object.named_by(&deleted),
        "another object of the same name"
    );
    let mut other = same.clone();
    other.name = "lab".into();
    assert!(!object.named_by(&other));
    let by_name = ObjectRef::new("CephCluster", "rook-ceph", "rook-ceph");
    assert!(by_name.named_by(&deleted) && by_name.named_by(&same));
}
