//! The `webhooks:` check's reads (SPEC §6 v0.4, issue 34 items 2 and 7): the two
//! cluster-scoped webhook configuration lists, and in the second round the EndpointSlices of
//! the check's namespace only, by `kubernetes.io/service-name`. A configuration by name,
//! EndpointSlices of another namespace or of every namespace, Endpoints, Services and
//! Secrets stay refused.

use super::tests::accepts;
use super::*;

#[test]
fn certs_opens_the_webhook_lists_and_its_namespaces_endpointslices_only() {
    let catalog = crate::model::catalog::Catalog::builtin().unwrap();
    let plan = catalog.read_plan(
        &["certs".to_string()],
        crate::model::catalog::Workloads::InTheirNamespaces,
    );
    let accept = accept_paths(&plan.requests, &plan.scope);
    for want in [
        "^/apis/admissionregistration\\.k8s\\.io/v1/validatingwebhookconfigurations$",
        "^/apis/admissionregistration\\.k8s\\.io/v1/mutatingwebhookconfigurations$",
        "^/apis/discovery\\.k8s\\.io/v1/namespaces/cert-manager/endpointslices$",
    ] {
        assert!(accept.iter().any(|a| a == want), "{want}: {accept:#?}");
    }
    assert_eq!(
        crate::read::exec::allowlist::accept_paths_ok(&accept.join(",")),
        Ok(())
    );
    let open = |p: &str| accept.iter().any(|re| accepts(re, p));
    for p in [
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
        "/apis/discovery.k8s.io/v1/namespaces/cert-manager/endpointslices",
    ] {
        assert!(open(p), "{p} refused: {accept:#?}");
    }
    for p in [
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/cert-manager-webhook",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
        "/apis/discovery.k8s.io/v1/endpointslices",
        "/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices",
        "/apis/discovery.k8s.io/v1/namespaces/cert-manager/endpointslices/cert-manager-webhook-tr8zw",
        "/api/v1/namespaces/cert-manager/endpoints",
        "/api/v1/namespaces/cert-manager/services",
        "/api/v1/namespaces/cert-manager/secrets",
        "/api/v1/secrets",
    ] {
        assert!(!open(p), "{p} accepted: {accept:#?}");
    }
    // The second round's GET: by the Service's label, within the paths the proxy opened.
    let slices = ReadRequest::EndpointSlices {
        namespace: "cert-manager".into(),
        service: "cert-manager-webhook".into(),
    };
    let get = builtin_path(&slices).unwrap();
    assert_eq!(
        get,
        "/apis/discovery.k8s.io/v1/namespaces/cert-manager/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dcert-manager-webhook"
    );
    assert_eq!(
        accept_paths(&[slices], &plan.scope),
        ["^/apis/discovery\\.k8s\\.io/v1/namespaces/cert-manager/endpointslices$"]
    );
    // A name that is not a path segment is never sent.
    let bent = ReadRequest::EndpointSlices {
        namespace: "cert-manager".into(),
        service: "x&labelSelector=".into(),
    };
    assert_eq!(builtin_path(&bent), None);
}

#[test]
fn without_a_webhooks_check_no_endpointslice_is_open() {
    let catalog = crate::model::catalog::Catalog::builtin().unwrap();
    let plan = catalog.read_plan(
        &["k8s".to_string()],
        crate::model::catalog::Workloads::InTheirNamespaces,
    );
    let accept = accept_paths(&plan.requests, &plan.scope);
    assert!(
        !accept
            .iter()
            .any(|a| a.contains("endpointslices") || a.contains("webhookconfigurations")),
        "{accept:#?}"
    );
}
