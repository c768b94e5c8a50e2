//! Webhooks without endpoints (issue 34 item 2, SPEC §6 v0.4): cert-manager's webhook
//! configurations (as its Helm chart renders them) and its webhook Service's EndpointSlice,
//! through the real kubectl against the replay server. A ready endpoint keeps `certs`
//! present; the webhook pod not ready (`ready: false`) makes `certs` degraded naming both
//! webhooks, repaired never reinstalled, while its Deployment still reads rolled out; a
//! forbidden EndpointSlice list is unknown, never absent. Two cluster-scoped list GETs, then
//! one EndpointSlice list of cert-manager by `kubernetes.io/service-name`, through the proxy.

use serde_json::json;

use snapbox::str;

use crate::bed_or_skip;
use crate::harness::text_snap;
use crate::support::*;

const VALIDATING: &str = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const MUTATING: &str = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
const SLICES: &str = "/apis/discovery.k8s.io/v1/namespaces/cert-manager/endpointslices";

const DOWN: &str = "ValidatingWebhook cert-manager-webhook/webhook.cert-manager.io: service cert-manager/cert-manager-webhook has no ready endpoint (failurePolicy Fail: every write it intercepts fails); MutatingWebhook cert-manager-webhook/webhook.cert-manager.io: service cert-manager/cert-manager-webhook has no ready endpoint (failurePolicy Fail: every write it intercepts fails)";

/// The check's evidence line in `certs`.
fn webhook_line(v: &serde_json::Value) -> serde_json::Value {
    let l = layer(v, "certs");
    let evidence = l["evidence"].as_array().cloned().unwrap_or_default();
    json!({"state": l["state"], "last": evidence.last().cloned()})
}

/// The configuration lists once each, then one EndpointSlice list by the Service's label;
/// nothing read by name, nothing of another namespace, never a Secret.
fn assert_minimal(bed: &E2e) {
    assert_read_only(&bed.server);
    let audit = bed.server.audit();
    let mine: Vec<(String, String)> = audit
        .iter()
        .filter(|e| e.path.contains("webhookconfigurations") || e.path.contains("endpointslices"))
        .map(|e| (e.path.clone(), e.query.clone()))
        .collect();
    assert_eq!(
        mine.iter().filter(|(p, _)| p == VALIDATING).count(),
        1,
        "{mine:#?}"
    );
    assert_eq!(
        mine.iter().filter(|(p, _)| p == MUTATING).count(),
        1,
        "{mine:#?}"
    );
    let slices: Vec<_> = mine
        .iter()
        .filter(|(p, _)| p.contains("endpointslices"))
        .collect();
    assert_eq!(slices.len(), 1, "{mine:#?}");
    assert_eq!(slices[0].0, SLICES);
    assert!(
        slices[0]
            .1
            .contains("labelSelector=kubernetes.io%2Fservice-name%3Dcert-manager-webhook"),
        "{:?}",
        slices[0]
    );
    assert!(
        !audit.iter().any(|e| e.path.contains("secrets")),
        "a Secret was read"
    );
}

#[test]
fn a_ready_webhook_endpoint_keeps_certs_present() {
    let bed = bed_or_skip!(E2e::new("dirqual-full", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    assert_eq!(
        webhook_line(&v),
        json!({"state": "present", "last": "2 webhooks served from cert-manager with failurePolicy Fail have a ready endpoint"})
    );
    assert_minimal(&bed);
}

#[test]
fn a_webhook_without_a_ready_endpoint_degrades_certs_repair_never_reinstall() {
    let bed = bed_or_skip!(E2e::new("webhook-no-endpoint", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    let l = layer(&v, "certs");
    assert_eq!(l["state"], "degraded", "{l:#}");
    assert_eq!(l["reason"], DOWN);
    // Its Deployment still reads rolled out: only the endpoint tells.
    assert!(
        l["evidence"].as_array().is_some_and(|e| e.iter().any(
            |x| x == "Deployment cert-manager/cert-manager-webhook rolled out (1/1 available)"
        )),
        "{l:#}"
    );
    assert_eq!(plan_ids(&v, "repair"), ["certs"]);
    // The whole plan: certs never planned for install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: -
repair: certs
undecided: -

"#]],
    );
    assert_minimal(&bed);
}

#[test]
fn a_forbidden_endpointslice_list_is_unknown_never_absent() {
    let bed = bed_or_skip!(E2e::new("webhook-no-endpoint", &[&format!("{SLICES}=403")]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    assert_eq!(
        webhook_line(&v),
        json!({"state": "unknown", "last": "read of the EndpointSlices of service cert-manager/cert-manager-webhook failed: Forbidden"})
    );
    // The whole plan: certs never planned for install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: -
repair: -
undecided: certs

"#]],
    );
}

#[test]
fn a_forbidden_configuration_list_is_unknown_never_absent() {
    let bed = bed_or_skip!(E2e::new(
        "webhook-no-endpoint",
        &[&format!("{MUTATING}=403")]
    ));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    assert_eq!(
        webhook_line(&v),
        json!({"state": "unknown", "last": "read of mutatingwebhookconfigurations failed: Forbidden"})
    );
    // The whole plan: certs never planned for install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: -
repair: -
undecided: certs

"#]],
    );
}
