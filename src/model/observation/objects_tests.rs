//! Tests of the custom objects' typed decoding: only the used fields kept, details,
//! conditions, secrets in unused fields never kept, malformed lists.

use crate::model::observation::FieldPath;
use crate::model::observation::{decode_custom_objects, parse_custom_objects, FieldUse};
use std::collections::BTreeSet;

#[test]
fn a_streamed_list_must_be_of_its_group_and_kind() {
    let ok = r#"{"kind":"CephClusterList","apiVersion":"ceph.rook.io/v1","items":[{"metadata":{"name":"c"}}]}"#;
    let decode = |text: &str| {
        decode_custom_objects(
            text.as_bytes(),
            &BTreeSet::new(),
            ("cephclusters", "ceph.rook.io"),
            &crate::pool::Budget::new(usize::MAX),
            "GET /apis/ceph.rook.io/v1/cephclusters",
        )
    };
    let got = decode(ok);
    assert_eq!(got.map(|v| v.len()).ok(), Some(1));
    for bad in [
        r#"{"kind":"ConfigMapList","apiVersion":"v1","items":[{"metadata":{"name":"c"}}]}"#,
        r#"{"kind":"ClusterList","apiVersion":"postgresql.cnpg.io/v1","items":[]}"#,
        r#"{"kind":"List","apiVersion":"ceph.rook.io/v1","items":[]}"#,
        r#"{"items":null}"#,
    ] {
        assert!(decode(bad).is_err(), "{bad} was read");
    }
    // The list asked for holding an item of another kind.
    let inside = r#"{"kind":"CephClusterList","apiVersion":"ceph.rook.io/v1","items":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"c"}}]}"#;
    assert_eq!(
        super::super::answer::refusal_of(&decode(inside).unwrap_err()).unwrap(),
        "the answer was a List with an item of kind Secret, not a list of CephCluster objects"
    );
    // Same group, another kind: what came back is said.
    let other = r#"{"kind":"CephObjectStoreList","apiVersion":"ceph.rook.io/v1","items":[]}"#;
    assert_eq!(
        super::super::answer::refusal_of(&decode(other).unwrap_err()).unwrap(),
        "the answer was ceph.rook.io/v1 CephObjectStoreList, not a list of cephclusters.ceph.rook.io"
    );
}

fn uses(list: &[FieldUse]) -> BTreeSet<FieldUse> {
    list.iter().cloned().collect()
}

fn path(p: &str) -> FieldPath {
    FieldPath::parse(p).unwrap()
}

#[test]
fn only_the_used_fields_are_kept() {
    let objs = parse_custom_objects(
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/cephclusters.json"
        )),
        &uses(&[
            FieldUse::Value(path(".status.ceph.health")),
            FieldUse::Value(path(".spec.mon.count")),
            FieldUse::Details(path(".status.ceph.details")),
        ]),
    )
    .unwrap();
    assert_eq!(objs.len(), 1);
    assert_eq!(objs[0].namespace.as_deref(), Some("rook-ceph"));
    assert_eq!(objs[0].name, "rook-ceph");
    assert_eq!(
        objs[0].field(&path(".status.ceph.health")),
        Some("HEALTH_OK")
    );
    assert!(objs[0].conditions.is_empty());
    let json = serde_json::to_string(&objs[0]).unwrap();
    assert!(!json.contains("fsid"), "{json}");
    let empty = parse_custom_objects(
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/cephobjectstores-empty.json"
        )),
        &BTreeSet::new(),
    )
    .unwrap();
    assert!(empty.is_empty());
}

#[test]
fn details_keys_and_conditions() {
    let text = r#"{"kind":"List","items":[{"metadata":{"name":"a","namespace":"n","annotations":{"x":"y"}},
        "status":{"ceph":{"health":"HEALTH_WARN","details":{"RECENT_MGR_MODULE_CRASH":{"message":"1 mgr modules have recently crashed","severity":"HEALTH_WARN"}}},
        "conditions":[{"type":"Ready","status":"True","message":"long"},{"type":"Progressing","status":"False"}]}}]}"#;
    let objs = parse_custom_objects(
        text,
        &uses(&[
            FieldUse::Details(path(".status.ceph.details")),
            FieldUse::Conditions,
            FieldUse::Value(path(".status.ceph")),
        ]),
    )
    .unwrap();
    let o = &objs[0];
    assert_eq!(
        o.details[".status.ceph.details"]["RECENT_MGR_MODULE_CRASH"],
        "1 mgr modules have recently crashed"
    );
    assert_eq!(o.conditions["Ready"], "True");
    assert_eq!(o.conditions["Progressing"], "False");
    assert_eq!(o.field(&path(".status.ceph")), Some("<object>"));
}

/// An Argo CD Application carries inline Helm values (a password) and kubectl's
/// last-applied annotation: neither is kept.
#[test]
fn secrets_in_unused_fields_are_never_kept() {
    let text = r#"{"items":[{"apiVersion":"argoproj.io/v1alpha1","kind":"Application",
        "metadata":{"name":"app","namespace":"argocd","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"password\":\"SECRET-MARKER\"}"}},
        "spec":{"source":{"helm":{"values":"adminPassword: SECRET-MARKER"}}},
        "status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}]}"#;
    let objs = parse_custom_objects(
        text,
        &uses(&[
            FieldUse::Value(path(".status.sync.status")),
            FieldUse::Value(path(".status.health.status")),
        ]),
    )
    .unwrap();
    let json = serde_json::to_string(&objs).unwrap();
    assert!(!json.contains("SECRET-MARKER"), "{json}");
    assert_eq!(objs[0].field(&path(".status.sync.status")), Some("Synced"));
}

#[test]
fn malformed_lists_are_errors() {
    let e = parse_custom_objects(r#"{"kind":"X"}"#, &BTreeSet::new()).unwrap_err();
    assert!(e.message.contains("missing field `items`"), "{}", e.message);
    let e = parse_custom_objects(r#"{"items":{}}"#, &BTreeSet::new()).unwrap_err();
    assert!(e.message.contains("malformed output"), "{}", e.message);
    assert!(parse_custom_objects(r#"{"items":[]} x"#, &BTreeSet::new()).is_err());
}

/// Issue 31 item 3: a custom object whose kept field (a condition message of 6 MiB) is more
/// than the budget has left plus the largest object is stopped while it is decoded.
#[test]
fn one_object_bigger_than_what_the_budget_has_left_is_stopped_while_it_is_decoded() {
    let uses: BTreeSet<FieldUse> = [FieldUse::Conditions].into_iter().collect();
    let huge = "m".repeat(6 << 20);
    let text = format!(
        r#"{{"kind":"CephClusterList","apiVersion":"ceph.rook.io/v1","items":[{{"kind":"CephCluster","metadata":{{"name":"c"}},"status":{{"conditions":[{{"type":"Ready","status":"False","message":"{huge}"}}]}}}}]}}"#
    );
    let decode = |budget: &crate::pool::Budget| {
        decode_custom_objects(
            text.as_bytes(),
            &uses,
            ("cephclusters", "ceph.rook.io"),
            budget,
            "GET /apis/ceph.rook.io/v1/cephclusters",
        )
    };
    let small = crate::pool::Budget::new(1 << 20);
    // Stopped 4 MiB in (1 MiB left plus the 3 MiB largest object), of 6 MiB.
    assert_eq!(
        decode(&small)
            .unwrap_err()
            .to_string()
            .replace(" at line 1 column 4194370", ""),
        "over nestor's memory budget of 1 MiB for one read of a cluster: an item of GET /apis/ceph.rook.io/v1/cephclusters is larger than what the budget has left (not decoded further)"
    );
    assert_eq!(small.used(), 0);
    assert_eq!(
        decode(&crate::pool::Budget::new(32 << 20)).unwrap().len(),
        1
    );
}
