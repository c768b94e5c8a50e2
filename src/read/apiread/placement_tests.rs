//! The `distinctNodes` checks' reads (SPEC §6 v0.4, §9, issue 34 items 5 and 7): each
//! namespace's pods by the check's label selector, with `limit`, and the accept-paths
//! extended by exactly that namespace's pod list — no pod by name, no cluster-wide pod
//! list, no other namespace's.

use super::tests::accepts;
use super::*;

fn spread(namespace: &str) -> crate::model::catalog::Catalog {
    let mut c = crate::model::catalog::Catalog::builtin().unwrap();
    c.overlay_str(
        &format!("- id: spread\n  title: Spread\n  detect:\n    - namespace: {namespace}\n  healthy:\n    - distinctNodes: {{namespace: {namespace}, selector: app=web, atLeast: 3, daemonLabel: app.kubernetes.io/instance}}\n  install: make spread\n"),
        "stacks/layers.yaml",
    )
    .unwrap();
    c
}

#[test]
fn a_placement_check_gets_its_selector_with_a_limit_and_one_more_accept_path() {
    let c = spread("apps");
    let plan = c.read_plan(
        &["spread".to_string()],
        crate::model::catalog::Workloads::InTheirNamespaces,
    );
    let request = ReadRequest::PodPlacement {
        namespace: "apps".into(),
        selector: "app=web".into(),
        labels: vec!["app.kubernetes.io/instance".into()],
    };
    assert_eq!(
        plan.requests,
        [ReadRequest::Nodes, ReadRequest::Namespaces, request.clone()]
    );
    assert_eq!(
        builtin_path(&request).as_deref(),
        Some("/api/v1/namespaces/apps/pods?labelSelector=app%3Dweb&limit=5000")
    );
    let accept = accept_paths(&plan.requests, &plan.scope);
    assert_eq!(
        accept,
        [
            "^/api/v1/namespaces$",
            "^/api/v1/namespaces/apps/pods$",
            "^/api/v1/nodes$"
        ]
    );
    assert_eq!(
        crate::read::exec::allowlist::accept_paths_ok(&accept.join(",")),
        Ok(())
    );
    let open = |p: &str| accept.iter().any(|re| accepts(re, p));
    for p in [
        "/api/v1/pods",
        "/api/v1/namespaces/apps/pods/web-0",
        "/api/v1/namespaces/apps/pods/web-0/log",
        "/api/v1/namespaces/default/pods",
        "/api/v1/namespaces/apps/secrets",
    ] {
        assert!(!open(p), "{p} accepted: {accept:#?}");
    }
}
