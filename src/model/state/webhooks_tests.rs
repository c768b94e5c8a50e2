//! `webhooks:` judged on configurations shaped as cert-manager's Helm chart renders them
//! (`cert-manager-webhook`, webhook `webhook.cert-manager.io`, `failurePolicy: Fail`,
//! service cert-manager/cert-manager-webhook) and EndpointSlices as the EndpointSlice
//! controller writes them (`discovery.k8s.io/v1`, label `kubernetes.io/service-name`).

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::*;
use crate::model::observation::WorkloadKind;
use crate::model::observation::{FailureKind, ReadFailure};
use crate::model::state::Verdict;

const CA: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t";

fn webhook(name: &str, policy: Option<&str>, service: Option<(&str, &str)>) -> Value {
    let mut w = json!({
        "name": name,
        "admissionReviewVersions": ["v1"],
        "sideEffects": "None",
        "timeoutSeconds": 30,
        "clientConfig": {"caBundle": CA},
    });
    match service {
        Some((ns, svc)) => {
            w["clientConfig"]["service"] =
                json!({"namespace": ns, "name": svc, "path": "/validate", "port": 443})
        }
        None => w["clientConfig"]["url"] = json!("https://hooks.example.com/validate"),
    }
    if let Some(p) = policy {
        w["failurePolicy"] = json!(p);
    }
    w
}

fn list(kind: WebhookKind, configs: &[(&str, Vec<Value>)]) -> String {
    let items: Vec<Value> = configs
        .iter()
        .map(|(name, hooks)| {
            json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": kind.kind(),
                "metadata": {"name": name, "annotations": {"cert-manager.io/inject-ca-from-secret": "cert-manager/cert-manager-webhook-ca"}},
                "webhooks": hooks,
            })
        })
        .collect();
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": format!("{}List", kind.kind()), "items": items}).to_string()
}

fn slices(service: &str, ready: &[Option<bool>]) -> String {
    let endpoints: Vec<Value> = ready
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut conditions = json!({});
            if let Some(r) = r {
                conditions = json!({"ready": r, "serving": r, "terminating": false});
            }
            json!({"addresses": [format!("10.244.1.{}", 10 + i)], "conditions": conditions,
                   "targetRef": {"kind": "Pod", "namespace": "cert-manager", "name": format!("{service}-5d4f-{i}")}})
        })
        .collect();
    let items: Vec<Value> = if ready.is_empty() {
        vec![]
    } else {
        vec![json!({
            "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": format!("{service}-x7k2p"), "namespace": "cert-manager",
                         "labels": {"kubernetes.io/service-name": service, "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}},
            "addressType": "IPv4", "endpoints": endpoints,
            "ports": [{"name": "https", "port": 10250, "protocol": "TCP"}],
        })]
    };
    json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSliceList", "items": items})
        .to_string()
}

const NS: &str = "cert-manager";
const SVC: (&str, &str) = ("cert-manager", "cert-manager-webhook");

/// cert-manager's two configurations with `validating` as the validating webhooks.
fn observed(validating: Vec<Value>) -> Observation {
    let mut obs = Observation::skipped("not read");
    obs.record(
        &ReadRequest::WebhookConfigurations(WebhookKind::Validating),
        Ok(&list(
            WebhookKind::Validating,
            &[("cert-manager-webhook", validating)],
        )),
    );
    obs.record(
        &ReadRequest::WebhookConfigurations(WebhookKind::Mutating),
        Ok(&list(
            WebhookKind::Mutating,
            &[(
                "cert-manager-webhook",
                vec![webhook("webhook.cert-manager.io", Some("Fail"), Some(SVC))],
            )],
        )),
    );
    obs
}

fn cert_manager() -> Observation {
    observed(vec![webhook(
        "webhook.cert-manager.io",
        Some("Fail"),
        Some(SVC),
    )])
}

/// The second round as the session runs it: the reads it asks for, answered by `answer`.
fn second_round(obs: &mut Observation, answer: impl Fn(&str) -> Result<String, ReadFailure>) {
    let namespaces: BTreeSet<String> = [NS.to_string()].into();
    for read in endpoint_reads(&namespaces, obs) {
        let ReadRequest::EndpointSlices { service, .. } = &read else {
            panic!("{read:?}");
        };
        let body = answer(service);
        obs.record(&read, body.as_deref().map_err(Clone::clone));
    }
}

fn judged(obs: &Observation) -> CheckOutcome {
    webhooks(
        obs,
        &WebhooksCheck {
            namespace: NS.into(),
        },
    )
}

const DOWN: &str = "ValidatingWebhook cert-manager-webhook/webhook.cert-manager.io: service cert-manager/cert-manager-webhook has no ready endpoint (failurePolicy Fail: every write it intercepts fails); MutatingWebhook cert-manager-webhook/webhook.cert-manager.io: service cert-manager/cert-manager-webhook has no ready endpoint (failurePolicy Fail: every write it intercepts fails)";

#[test]
fn a_ready_endpoint_holds_and_absent_ready_counts_as_ready() {
    for ready in [vec![Some(true)], vec![None], vec![Some(false), Some(true)]] {
        let mut obs = cert_manager();
        second_round(&mut obs, |s| Ok(slices(s, &ready)));
        let out = judged(&obs);
        assert_eq!(out.verdict, Verdict::True, "{ready:?}: {out:?}");
        assert_eq!(
            out.evidence,
            "2 webhooks served from cert-manager with failurePolicy Fail have a ready endpoint"
        );
    }
}

#[test]
fn no_ready_endpoint_or_no_slice_degrades_naming_each_webhook() {
    for ready in [vec![Some(false)], vec![]] {
        let mut obs = cert_manager();
        second_round(&mut obs, |s| Ok(slices(s, &ready)));
        let out = judged(&obs);
        assert_eq!(out.verdict, Verdict::False, "{ready:?}: {out:?}");
        assert_eq!(out.evidence, DOWN);
        // The Service both webhooks call, once: what the layer's Warning Events are about.
        assert_eq!(
            out.objects,
            vec![ObjectRef::new("Service", NS, "cert-manager-webhook")]
        );
    }
}

#[test]
fn an_omitted_failure_policy_is_fail() {
    let mut obs = observed(vec![webhook("webhook.cert-manager.io", None, Some(SVC))]);
    second_round(&mut obs, |s| Ok(slices(s, &[Some(false)])));
    assert_eq!(judged(&obs).evidence, DOWN);
}

#[test]
fn ignore_webhooks_never_degrade_and_are_not_read() {
    let mut obs = observed(vec![webhook(
        "webhook.cert-manager.io",
        Some("Ignore"),
        Some(("cert-manager", "other-webhook")),
    )]);
    let namespaces: BTreeSet<String> = [NS.to_string()].into();
    // Only the mutating webhook's Service (Fail) is read; the Ignore one's never.
    assert_eq!(
        endpoint_reads(&namespaces, &obs),
        [ReadRequest::EndpointSlices {
            namespace: NS.into(),
            service: "cert-manager-webhook".into()
        }]
    );
    second_round(&mut obs, |s| Ok(slices(s, &[Some(true)])));
    let out = judged(&obs);
    assert_eq!(out.verdict, Verdict::True, "{out:?}");
    assert_eq!(
        out.evidence,
        "1 webhook served from cert-manager with failurePolicy Fail has a ready endpoint (1 with failurePolicy Ignore not judged)"
    );
}

#[test]
fn url_webhooks_and_other_namespaces_are_skipped() {
    let mut obs = observed(vec![
        webhook("by-url.example.com", Some("Fail"), None),
        webhook(
            "kyverno.example.com",
            Some("Fail"),
            Some(("kyverno", "kyverno-svc")),
        ),
    ]);
    let namespaces: BTreeSet<String> = [NS.to_string()].into();
    assert_eq!(endpoint_reads(&namespaces, &obs).len(), 1);
    second_round(&mut obs, |s| Ok(slices(s, &[Some(true)])));
    let out = judged(&obs);
    assert_eq!(out.verdict, Verdict::True, "{out:?}");
    assert_eq!(
        out.evidence,
        "1 webhook served from cert-manager with failurePolicy Fail has a ready endpoint"
    );
}

#[test]
fn forbidden_reads_are_unknown_never_absent_or_healthy() {
    let forbidden = ReadFailure::new(FailureKind::Forbidden, "endpointslices is forbidden");
    let mut obs = cert_manager();
    second_round(&mut obs, |_| Err(forbidden.clone()));
    let out = judged(&obs);
    assert_eq!(out.verdict, Verdict::Unknown, "{out:?}");
    assert_eq!(
        out.evidence,
        "read of the EndpointSlices of service cert-manager/cert-manager-webhook failed: Forbidden"
    );
    // A configuration list refused: unknown, naming it.
    let mut obs = cert_manager();
    obs.webhooks.insert(
        WebhookKind::Mutating.plural().into(),
        Err(ReadFailure::new(FailureKind::Forbidden, "no")),
    );
    let out = judged(&obs);
    assert_eq!(out.verdict, Verdict::Unknown);
    assert_eq!(
        out.evidence,
        "read of mutatingwebhookconfigurations failed: Forbidden"
    );
    // Not read at all (an older snapshot): unknown too.
    let out = judged(&Observation::skipped("old"));
    assert_eq!(out.verdict, Verdict::Unknown);
    // The second round never ran: nothing says the endpoints are ready.
    let out = judged(&cert_manager());
    assert_eq!(out.verdict, Verdict::Unknown);
    assert_eq!(
        out.evidence,
        "the EndpointSlices of service cert-manager/cert-manager-webhook were not read"
    );
}

#[test]
fn at_most_eight_services_are_inspected_the_rest_leave_the_check_unknown() {
    let hooks: Vec<Value> = (0..10)
        .map(|i| {
            webhook(
                &format!("w{i}.example.com"),
                Some("Fail"),
                Some(("cert-manager", &format!("svc-{i:02}"))),
            )
        })
        .collect();
    let mut obs = observed(hooks);
    let namespaces: BTreeSet<String> = [NS.to_string()].into();
    let reads = endpoint_reads(&namespaces, &obs);
    // cert-manager-webhook (the mutating one) and svc-00..svc-06: the first 8 by name.
    assert_eq!(reads.len(), MAX_SERVICES);
    second_round(&mut obs, |s| Ok(slices(s, &[Some(true)])));
    let out = judged(&obs);
    assert_eq!(out.verdict, Verdict::Unknown, "{out:?}");
    assert_eq!(
        out.evidence,
        "service cert-manager/svc-07 not inspected (the second round reads the EndpointSlices of 8 services per namespace); service cert-manager/svc-08 not inspected (the second round reads the EndpointSlices of 8 services per namespace); service cert-manager/svc-09 not inspected (the second round reads the EndpointSlices of 8 services per namespace)"
    );
    // One of the inspected ones down: degraded, whatever was not inspected.
    let mut obs = observed(
        (0..10)
            .map(|i| {
                webhook(
                    &format!("w{i}.example.com"),
                    Some("Fail"),
                    Some(("cert-manager", &format!("svc-{i:02}"))),
                )
            })
            .collect(),
    );
    second_round(&mut obs, |s| Ok(slices(s, &[Some(s != "svc-03")])));
    let out = judged(&obs);
    assert_eq!(out.verdict, Verdict::False, "{out:?}");
    assert!(out.evidence.starts_with("ValidatingWebhook cert-manager-webhook/w3.example.com: service cert-manager/svc-03 has no ready endpoint"), "{}", out.evidence);
}

#[test]
fn the_builtin_certs_layer_is_degraded_by_its_webhook_without_a_ready_endpoint() {
    let mut obs =
        crate::model::state::fixtures::with_certs(crate::model::state::fixtures::dirqual());
    obs.record(
        &ReadRequest::Workloads(WorkloadKind::Deployment),
        Ok(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/deployments-cert-manager.json"
        ))),
    );
    let catalog = crate::model::catalog::Catalog::builtin().unwrap();
    let ids = ["certs".to_string()];
    // The plan asks for both lists and opens the second round in cert-manager only.
    let plan = catalog.read_plan(&ids, crate::model::catalog::Workloads::InTheirNamespaces);
    for kind in WebhookKind::ALL {
        assert!(plan
            .requests
            .contains(&ReadRequest::WebhookConfigurations(kind)));
    }
    assert_eq!(
        plan.scope.webhook_namespaces,
        [NS.to_string()].into_iter().collect::<BTreeSet<_>>()
    );
    let r = &crate::model::state::evaluate(&catalog, &ids, &[], &obs)[0];
    assert_eq!(r.state, crate::model::state::State::Present, "{r:#?}");
    // The webhook pod lost readiness: the Deployment may still count it available a while.
    let mut text: Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/endpointslices-cert-manager-webhook.json"
    )))
    .unwrap();
    text["items"][0]["endpoints"][0]["conditions"] =
        json!({"ready": false, "serving": false, "terminating": false});
    obs.record(
        &ReadRequest::EndpointSlices {
            namespace: NS.into(),
            service: "cert-manager-webhook".into(),
        },
        Ok(&text.to_string()),
    );
    let r = &crate::model::state::evaluate(&catalog, &ids, &[], &obs)[0];
    assert_eq!(r.state, crate::model::state::State::Degraded, "{r:#?}");
    assert_eq!(r.reason, DOWN);
}
