//! `distinctNodes:` is data a `catalog:` file can use: read strictly (an unknown key with
//! its did-you-mean, a selector that is not one, a spread of one node), described by
//! `catalog show` from the same value the evaluation runs on.

use super::*;

fn layer(check: &str) -> String {
    format!(
        "- id: spread\n  title: Spread\n  detect:\n    - namespace: apps\n  healthy:\n    - distinctNodes: {check}\n      name: spread\n  install: make spread\n"
    )
}

fn refusal(check: &str) -> String {
    Catalog::builtin()
        .unwrap()
        .overlay_str(&layer(check), "stacks/layers.yaml")
        .unwrap_err()
        .message
}

#[test]
fn a_user_catalog_can_ask_a_spread_and_catalog_show_says_it() {
    let mut c = Catalog::builtin().unwrap();
    c.overlay_str(
        &layer("{namespace: apps, selector: app=web, atLeast: 2}"),
        "stacks/layers.yaml",
    )
    .unwrap();
    let check = &c.get("spread").unwrap().healthy[0];
    let CheckKind::DistinctNodes(d) = &check.kind else {
        panic!("{check:?}")
    };
    assert_eq!((d.at_least, d.noun()), (2, "pods app=web".to_string()));
    assert_eq!(check.kind.key(), "distinctNodes");
    assert_eq!(
        check.kind.describe(false),
        "the pods of apps with app=web run on at least 2 distinct nodes when the cluster has 2 or more (each node named with its pods; unscheduled pods named, not counted)"
    );
    let ceph = c.get("ceph").unwrap();
    let mon = ceph
        .healthy
        .iter()
        .find(|c| c.name.as_deref() == Some("mon-placement"));
    assert_eq!(
        mon.unwrap().kind.describe(false),
        "the pods of rook-ceph with app=rook-ceph-mon run on at least 3 distinct nodes when the cluster has 3 or more (each node named with its pods' ceph_daemon_id; unscheduled pods named, not counted); else: failureDomain: host is a promise the placement does not keep"
    );
}

#[test]
fn a_bad_spread_is_refused_with_what_to_write() {
    let e = refusal("{namespace: apps, selector: app=web, atleast: 3}");
    assert_eq!(
        e,
        "stacks/layers.yaml:6:59: [0].healthy[0].distinctNodes: unknown key `atleast`, did you mean `atLeast`?"
    );
    let e = refusal("{namespace: apps, selector: 'app in (web)', atLeast: 3}");
    assert!(
        e.contains("is not a label selector like `app=rook-ceph-mon`"),
        "{e}"
    );
    let e = refusal("{namespace: apps, selector: app=web, atLeast: 1}");
    assert!(
        e.contains("`distinctNodes.atLeast: 1` must be from 2 to 64"),
        "{e}"
    );
    let e = refusal("{namespace: Apps, selector: app=web, atLeast: 3}");
    assert!(
        e.contains("`distinctNodes.namespace: Apps` is not a namespace name"),
        "{e}"
    );
    let e = refusal("{namespace: apps, selector: app=web, atLeast: 3, daemonLabel: 'a b'}");
    assert!(
        e.contains("is not a label key like `ceph_daemon_id`"),
        "{e}"
    );
    let e = refusal("{namespace: apps, selector: app=web, atLeast: 3, says: ' '}");
    assert!(e.contains("`distinctNodes.says:` must be 1 to 200"), "{e}");
}
