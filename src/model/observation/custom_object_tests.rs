//! Tests of the custom object's layout: what it keeps in place and behind its one pointer,
//! and that its saved form is the plain struct's.

use super::*;
use std::collections::BTreeSet;

use crate::model::observation::{decode_custom_objects, FieldUse};
use crate::pool::Budget;

#[test]
fn an_object_in_a_list_costs_its_name_and_fields_in_place_the_rest_behind_one_pointer() {
    // A list of 40 000 keeps 40 000 of these side by side (and a Vec's growth doubles it).
    assert!(
        std::mem::size_of::<CustomObject>() <= 80,
        "{}",
        std::mem::size_of::<CustomObject>()
    );
}

#[test]
fn an_object_with_only_fields_allocates_no_rest_and_one_with_conditions_does() {
    let uses: BTreeSet<FieldUse> = [
        FieldUse::Value(FieldPath::parse(".status.sync.status").unwrap()),
        FieldUse::Conditions,
    ]
    .into();
    let list = r#"{"kind":"ApplicationList","apiVersion":"argoproj.io/v1alpha1","items":[
        {"metadata":{"name":"a","namespace":"argocd"},"status":{"sync":{"status":"Synced"}}},
        {"metadata":{"name":"b","namespace":"argocd"},"status":{"sync":{"status":"Synced"},
         "conditions":[{"type":"SyncError","status":"True","message":"boom"}]}}]}"#;
    let budget = Budget::new(1 << 20);
    let got = decode_custom_objects(
        list.as_bytes(),
        &uses,
        ("applications", "argoproj.io"),
        &budget,
        "GET /apis/argoproj.io/v1alpha1/applications",
    )
    .unwrap();
    assert!(got[0].more.is_none());
    assert!(got[0].conditions.is_empty() && got[0].deleting.is_none());
    assert_eq!(got[1].conditions["SyncError"], "True");
    assert!(got[1].more.is_some());
}

#[test]
fn the_saved_form_is_the_plain_objects_field_for_field_and_reads_back_equal() {
    let mut o = CustomObject {
        namespace: Some("rook-ceph".into()),
        name: "ceph".into(),
        ..CustomObject::default()
    };
    o.fields.insert(".status.phase".into(), "Ready".into());
    o.conditions.insert("Ready".into(), "True".into());
    o.items
        .insert(".spec.drivers[].name".into(), vec!["rbd".into()]);
    let json = serde_json::to_string(&o).unwrap();
    assert_eq!(
        json,
        r#"{"namespace":"rook-ceph","name":"ceph","fields":{".status.phase":"Ready"},"conditions":{"Ready":"True"},"items":{".spec.drivers[].name":["rbd"]}}"#
    );
    let back: CustomObject = serde_json::from_str(&json).unwrap();
    assert_eq!(back, o);
    // Nothing but a name: no rest allocated, `namespace: null` as before.
    let bare: CustomObject = serde_json::from_str(r#"{"namespace":null,"name":"x"}"#).unwrap();
    assert!(bare.more.is_none());
    assert_eq!(
        serde_json::to_string(&bare).unwrap(),
        r#"{"namespace":null,"name":"x"}"#
    );
    // An empty rest equals none.
    let mut touched = bare.clone();
    touched.suspended.clear();
    assert!(touched.more.is_some());
    assert_eq!(touched, bare);
}
