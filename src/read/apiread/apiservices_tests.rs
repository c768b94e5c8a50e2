//! The `k8s` layer's reads (SPEC §9, issue 34 item 2): the nodes and, for its APIService
//! check, discovery plus the one cluster-scoped APIService list of its group. An APIService
//! by name, its status, another apiregistration type, services and endpoints stay refused.

use super::tests::accepts;
use super::*;

#[test]
fn k8s_opens_exactly_the_nodes_discovery_and_the_apiservice_list() {
    let catalog = crate::model::catalog::Catalog::builtin().unwrap();
    let plan = catalog.read_plan(
        &["k8s".to_string()],
        crate::model::catalog::Workloads::InTheirNamespaces,
    );
    let accept = accept_paths(&plan.requests, &plan.scope);
    assert_eq!(
        accept,
        [
            "^/api$",
            "^/api/v1/nodes$",
            "^/apis$",
            "^/apis/apiregistration\\.k8s\\.io/[a-z0-9]+$",
            "^/apis/apiregistration\\.k8s\\.io/[a-z0-9]+/apiservices$",
            "^/apis/apiregistration\\.k8s\\.io/v1/apiservices$",
        ]
    );
    assert_eq!(
        crate::read::exec::allowlist::accept_paths_ok(&accept.join(",")),
        Ok(())
    );
    let open = |p: &str| accept.iter().any(|re| accepts(re, p));
    for p in [
        "/apis/apiregistration.k8s.io/v1/apiservices",
        "/apis/apiregistration.k8s.io/v1",
    ] {
        assert!(open(p), "{p} refused: {accept:#?}");
    }
    for p in [
        "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io",
        "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io/status",
        "/apis/apiregistration.k8s.io/v1/namespaces/kube-system/apiservices",
        "/apis/apiregistration.k8s.io",
        "/apis/metrics.k8s.io/v1beta1/nodes",
        "/api/v1/namespaces/kube-system/services",
        "/api/v1/namespaces/kube-system/endpoints",
        "/apis/discovery.k8s.io/v1/endpointslices",
        "/api/v1/secrets",
    ] {
        assert!(!open(p), "{p} accepted: {accept:#?}");
    }
}
