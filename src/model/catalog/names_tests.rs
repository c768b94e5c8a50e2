//! Tests of check names (SPEC §6 v0.4): every built-in check is named, names are validated
//! and unique within a layer (errors at file:line:column), an unnamed check's name is
//! derived from its place.

use super::*;

fn overlay(text: &str) -> Result<Catalog> {
    let mut c = Catalog::builtin()?;
    c.overlay_str(text, "stacks/layers.yaml")?;
    Ok(c)
}

#[test]
fn every_builtin_check_is_named_and_the_ids_are_unique() {
    let c = Catalog::builtin().unwrap();
    let mut all = BTreeSet::new();
    for layer in c.layers() {
        for (id, _, check) in layer.named_checks() {
            assert!(check.name.is_some(), "{id} has no name: in builtin.yaml");
            assert!(all.insert(id.clone()), "{id} twice");
        }
        for (id, check) in layer.host.iter().flat_map(|h| h.named_checks(&layer.id)) {
            assert!(check.name.is_some(), "{id} has no name: in builtin.yaml");
            assert!(all.insert(id.clone()), "{id} twice");
        }
    }
    let ceph: Vec<String> = c
        .get("ceph")
        .unwrap()
        .named_checks()
        .into_iter()
        .map(|(id, _, _)| id)
        .collect();
    assert_eq!(
        ceph,
        [
            "ceph/api",
            "ceph/health",
            "ceph/mons",
            "ceph/mon-count",
            "ceph/osds",
            "ceph/mon-quorum",
            "ceph/one-version",
            "ceph/mon-placement",
            "ceph/osd-placement"
        ]
    );
}

#[test]
fn an_unnamed_check_gets_its_place_as_name() {
    let c = overlay(
        "- id: extra\n  title: Extra\n  detect:\n    - apiGroup: extra.io\n  healthy:\n    - namespace: extra\n      name: ns\n    - namespace: extra-two\n  install: make extra\n",
    )
    .unwrap();
    let ids: Vec<(String, bool)> = c
        .get("extra")
        .unwrap()
        .named_checks()
        .into_iter()
        .map(|(id, healthy, _)| (id, healthy))
        .collect();
    assert_eq!(
        ids,
        [
            ("extra/detect-1".to_string(), false),
            ("extra/ns".to_string(), true),
            ("extra/healthy-2".to_string(), true)
        ]
    );
}

#[test]
fn a_bad_check_name_is_an_error_at_its_place() {
    let e = overlay(
        "- id: extra\n  title: Extra\n  detect:\n    - apiGroup: extra.io\n      name: Extra_API\n  install: make extra\n",
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "stacks/layers.yaml:4:5: [0].detect: `name: Extra_API` is not a check name: 1 to 63 lowercase letters, digits and `-` (its id is `LAYER/NAME`, e.g. `ceph/health`)"
    );
}

#[test]
fn two_checks_of_a_layer_with_one_name_is_an_error_at_the_second() {
    let e = overlay(
        "- id: extra\n  title: Extra\n  detect:\n    - apiGroup: extra.io\n      name: api\n  healthy:\n    - namespace: extra\n      name: api\n  install: make extra\n",
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "stacks/layers.yaml:8:7: two checks of layer `extra` are named `extra/api`"
    );
    assert_eq!(
        e.hint,
        "give each check of a layer its own `name:` (lowercase letters, digits and `-`); a check without one is `detect-N`, `healthy-N` or `host-N` by its place"
    );
    // A written name that takes a derived one's place is the same error, at that name.
    let e = overlay(
        "- id: extra\n  title: Extra\n  detect:\n    - apiGroup: extra.io\n  healthy:\n    - namespace: extra\n      name: detect-1\n  install: make extra\n",
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "stacks/layers.yaml:7:7: two checks of layer `extra` are named `extra/detect-1`"
    );
}

#[test]
fn a_flat_resource_check_names_its_object_with_object() {
    let c = overlay(
        "- id: extra\n  title: Extra\n  detect:\n    - resource: widgets.example.io\n      kind: Widget\n      namespace: extra\n      object: main\n      name: widget\n  install: make extra\n",
    )
    .unwrap();
    let layer = c.get("extra").unwrap();
    let CheckKind::Resource(r) = &layer.detect[0].kind else {
        panic!("{:?}", layer.detect[0]);
    };
    assert_eq!(r.objects.name.as_deref(), Some("main"));
    assert_eq!(layer.named_checks()[0].0, "extra/widget");
    let e = overlay(
        "- id: extra\n  title: Extra\n  detect:\n    - apiGroup: extra.io\n      object: main\n  install: make extra\n",
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "stacks/layers.yaml:4:5: [0].detect: `object` only goes with a `resource:` check"
    );
}

#[test]
fn host_checks_are_named_validated_and_unique_like_the_others() {
    let host = |checks: &str| {
        overlay(&format!(
            "- id: extra\n  title: Extra\n  host:\n    group: all\n    checks:\n{checks}  install: make extra\n"
        ))
    };
    let c = host("      - unit: a.service\n        active: true\n        name: a\n      - unit: b.service\n        active: true\n").unwrap();
    let ids: Vec<String> = c
        .get("extra")
        .unwrap()
        .host
        .as_ref()
        .unwrap()
        .named_checks("extra")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ids, ["extra/a", "extra/host-2"]);
    let e = host("      - unit: a.service\n        active: true\n        name: A\n").unwrap_err();
    assert!(
        e.message == "stacks/layers.yaml:6:7: [0].host.checks: `name: A` is not a check name: 1 to 63 lowercase letters, digits and `-` (its id is `LAYER/NAME`, e.g. `etcd-backup/timer`)",
        "{}",
        e.message
    );
    let e = host("      - unit: a.service\n        active: true\n        name: a\n      - unit: b.service\n        active: true\n        name: a\n").unwrap_err();
    assert_eq!(
        e.message,
        "stacks/layers.yaml:11:9: two checks of layer `extra` are named `extra/a`"
    );
}
