//! cert-manager's admission webhooks (SPEC §6 v0.4 "Aggregated APIs and webhooks must
//! answer"): the Validating- and MutatingWebhookConfiguration `cert-manager-webhook` as
//! cert-manager's Helm chart renders them (webhook `webhook.cert-manager.io`,
//! `failurePolicy: Fail`, service cert-manager/cert-manager-webhook, the CA bundle the
//! cainjector writes), and the EndpointSlice the EndpointSlice controller keeps for that
//! Service (`discovery.k8s.io/v1`, label `kubernetes.io/service-name`, one endpoint).
//!
//! | name | what differs from `dirqual-full` |
//! |---|---|
//! | `webhook-no-endpoint` | the webhook pod lost readiness: its endpoint `ready: false` (`serving: false`), so every write the webhook intercepts is refused |

use serde_json::{json, Value};

use crate::fixture::Fixture;
use crate::fixtures::T_LAYERS;

/// Names accepted by [`by_name`].
pub const NAMES: [&str; 1] = ["webhook-no-endpoint"];

/// The CA bundle the cainjector writes (a stand-in PEM, base64): never to be kept by nestor.
pub const CA_BUNDLE: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkekNDQVIyZ0F3SUJBZ0lRYk1WZ0x6b0pDRnRxRzVxd0hFZ3dQREFLQmdncWhrak9QUVFEQWpBaU1TQXcKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";

fn labels() -> Value {
    json!({
        "app": "webhook",
        "app.kubernetes.io/component": "webhook",
        "app.kubernetes.io/instance": "cert-manager",
        "app.kubernetes.io/name": "webhook",
        "app.kubernetes.io/version": "v1.16.2",
    })
}

/// cert-manager's two webhook configurations.
pub fn configurations() -> [Value; 2] {
    let one = |kind: &str, path: &str, operations: Value, resources: Value| {
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": kind,
            "metadata": {
                "name": "cert-manager-webhook",
                "labels": labels(),
                "annotations": {"cert-manager.io/inject-ca-from-secret": "cert-manager/cert-manager-webhook-ca"},
                "creationTimestamp": T_LAYERS,
            },
            "webhooks": [{
                "name": "webhook.cert-manager.io",
                "rules": [{
                    "apiGroups": ["cert-manager.io", "acme.cert-manager.io"],
                    "apiVersions": ["v1"],
                    "operations": operations,
                    "resources": resources,
                    "scope": "*",
                }],
                "admissionReviewVersions": ["v1"],
                "matchPolicy": "Equivalent",
                "timeoutSeconds": 30,
                "failurePolicy": "Fail",
                "sideEffects": "None",
                "namespaceSelector": {},
                "objectSelector": {},
                "clientConfig": {
                    "service": {"name": "cert-manager-webhook", "namespace": "cert-manager", "path": path, "port": 443},
                    "caBundle": CA_BUNDLE,
                },
            }],
        })
    };
    let mut validating = one(
        "ValidatingWebhookConfiguration",
        "/validate",
        json!(["CREATE", "UPDATE"]),
        json!(["*/*"]),
    );
    validating["webhooks"][0]["namespaceSelector"] = json!({"matchExpressions": [
        {"key": "cert-manager.io/disable-validation", "operator": "NotIn", "values": ["true"]}
    ]});
    let mut mutating = one(
        "MutatingWebhookConfiguration",
        "/mutate",
        json!(["CREATE"]),
        json!(["certificaterequests"]),
    );
    mutating["webhooks"][0]["reinvocationPolicy"] = json!("Never");
    [validating, mutating]
}

/// The EndpointSlice of Service cert-manager/cert-manager-webhook: one endpoint, `ready`.
pub fn endpoint_slice(ready: bool) -> Value {
    let mut labels = labels();
    labels["endpointslice.kubernetes.io/managed-by"] = json!("endpointslice-controller.k8s.io");
    labels["kubernetes.io/service-name"] = json!("cert-manager-webhook");
    json!({
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": "cert-manager-webhook-tr8zw",
            "namespace": "cert-manager",
            "generateName": "cert-manager-webhook-",
            "labels": labels,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Service", "name": "cert-manager-webhook",
                                 "controller": true, "blockOwnerDeletion": true,
                                 "uid": "0b9f6c3a-7e21-4d5c-8f3e-6a1d2c4b5e70"}],
            "creationTimestamp": T_LAYERS,
        },
        "addressType": "IPv4",
        "endpoints": [{
            "addresses": ["10.244.2.14"],
            "conditions": {"ready": ready, "serving": ready, "terminating": false},
            "nodeName": "dirqual2",
            "targetRef": {"kind": "Pod", "namespace": "cert-manager", "name": "cert-manager-webhook-7f9c6b8d4-x2mkq"},
        }],
        "ports": [{"name": "https", "port": 10250, "protocol": "TCP"}],
    })
}

/// A webhook fixture by name.
pub fn by_name(name: &str) -> Option<Fixture> {
    let ready = match name {
        "webhook-no-endpoint" => false,
        _ => return None,
    };
    let mut f = crate::fixtures::dirqual_full();
    for o in &mut f.objects {
        if o["kind"] == "EndpointSlice" && o["metadata"]["name"] == "cert-manager-webhook-tr8zw" {
            *o = endpoint_slice(ready);
        }
    }
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_builds_and_serves() {
        for name in NAMES {
            let f = by_name(name).unwrap_or_else(|| panic!("{name}"));
            let slices = f.objects.iter().filter(|o| o["kind"] == "EndpointSlice");
            assert_eq!(slices.count(), 1, "{name}");
            crate::Cluster::build(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
