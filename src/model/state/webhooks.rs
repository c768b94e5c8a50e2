//! `webhooks: {namespace: NS}` (SPEC §6 v0.4 "Aggregated APIs and webhooks must answer"):
//! a webhook served from NS whose `failurePolicy` is `Fail` and whose Service has no ready
//! endpoint rejects every write it intercepts — the cert-manager webhook down that leaves
//! every Certificate write failing and namespaces stuck Terminating while the certificates
//! still read present. Its Service's EndpointSlices are read in a second round
//! ([`endpoint_reads`]), at most [`MAX_SERVICES`] Services per namespace. An `Ignore` webhook
//! never degrades; a webhook called by `url` is not served from a namespace. A failed read,
//! or a Service not inspected, leaves the check unknown: never healthy, never absent.

use std::collections::BTreeSet;

use crate::model::catalog::{WebhooksCheck, MAX_SERVICES};
use crate::model::observation::{
    words, ObjectRef, Observation, ReadRequest, ServiceRef, Webhook, WebhookKind,
};

use super::{capped, CheckOutcome, MAX_NAMED};

/// The Services of the webhooks served from `namespace` that fail closed, in name order,
/// from the configurations read (a failed list names none).
fn fail_closed_services(obs: &Observation, namespace: &str) -> Vec<ServiceRef> {
    let services: BTreeSet<ServiceRef> = served_from(obs, namespace)
        .filter(|(_, _, w)| w.fails_closed())
        .filter_map(|(_, _, w)| w.service.clone())
        .collect();
    services.into_iter().collect()
}

/// Every webhook of the configurations read whose Service is in `namespace`.
fn served_from<'o>(
    obs: &'o Observation,
    namespace: &'o str,
) -> impl Iterator<Item = (WebhookKind, &'o str, &'o Webhook)> + 'o {
    WebhookKind::ALL.into_iter().flat_map(move |kind| {
        obs.webhooks
            .get(kind.plural())
            .and_then(|r| r.as_ref().ok())
            .into_iter()
            .flatten()
            .flat_map(move |c| c.webhooks.iter().map(move |w| (kind, c.name.as_str(), w)))
            .filter(move |(_, _, w)| w.service.as_ref().is_some_and(|s| s.namespace == namespace))
    })
}

/// The second read round: the EndpointSlices of the Services of the webhooks that fail
/// closed in each of `namespaces` (the `webhooks:` checks'), at most [`MAX_SERVICES`] per
/// namespace; the others are "not inspected" ([`webhooks`]).
pub fn endpoint_reads(namespaces: &BTreeSet<String>, obs: &Observation) -> Vec<ReadRequest> {
    namespaces
        .iter()
        .flat_map(|ns| {
            fail_closed_services(obs, ns)
                .into_iter()
                .take(MAX_SERVICES)
                .map(|s| ReadRequest::EndpointSlices {
                    namespace: s.namespace,
                    service: s.name,
                })
        })
        .collect()
}

/// What the EndpointSlices of one Service say: ready, not, or unknown and why.
enum Endpoints {
    Ready,
    NoneReady,
    Unknown(String),
}

fn endpoints_of(obs: &Observation, s: &ServiceRef, inspected: &[ServiceRef]) -> Endpoints {
    let label = format!("{}/{}", words(&s.namespace), words(&s.name));
    match obs.endpoint_slices.get(&format!("{}/{}", s.namespace, s.name)) {
        Some(Ok(slices)) if slices.iter().any(|e| e.ready > 0) => Endpoints::Ready,
        Some(Ok(_)) => Endpoints::NoneReady,
        Some(Err(f)) => Endpoints::Unknown(format!(
            "read of the EndpointSlices of service {label} failed: {}",
            f.kind
        )),
        None if inspected.contains(s) => Endpoints::Unknown(format!(
            "the EndpointSlices of service {label} were not read"
        )),
        None => Endpoints::Unknown(format!(
            "service {label} not inspected (the second round reads the EndpointSlices of {MAX_SERVICES} services per namespace)"
        )),
    }
}

pub(crate) fn webhooks(obs: &Observation, c: &WebhooksCheck) -> CheckOutcome {
    for kind in WebhookKind::ALL {
        match obs.webhooks.get(kind.plural()) {
            Some(Ok(_)) => {}
            Some(Err(f)) => return CheckOutcome::failed(kind.plural(), f),
            None => return CheckOutcome::unknown(format!("{} not read", kind.plural())),
        }
    }
    let ns = c.namespace.as_str();
    let services = fail_closed_services(obs, ns);
    let inspected = &services[..services.len().min(MAX_SERVICES)];
    let (mut bad, mut unknown, mut closed, mut ignored) = (Vec::new(), Vec::new(), 0, 0);
    // The Services with no ready endpoint: what the check's Warning Events are about (the
    // EndpointSlice controller's, a Service's own), the first MAX_NAMED.
    let mut failing: Vec<ObjectRef> = Vec::new();
    for (kind, config, w) in served_from(obs, ns) {
        let Some(s) = w.service.as_ref().filter(|_| w.fails_closed()) else {
            ignored += 1;
            continue;
        };
        closed += 1;
        match endpoints_of(obs, s, inspected) {
            Endpoints::Ready => {}
            Endpoints::NoneReady => {
                let service = ObjectRef::new("Service", &s.namespace, &s.name);
                if failing.len() < MAX_NAMED && !failing.contains(&service) {
                    failing.push(service);
                }
                bad.push(format!(
                    "{} {config}/{}: service {}/{} has no ready endpoint (failurePolicy {}: every write it intercepts fails)",
                    kind.webhook(),
                    w.name,
                    words(&s.namespace),
                    words(&s.name),
                    w.failure_policy
                ))
            }
            Endpoints::Unknown(why) => {
                if !unknown.contains(&why) {
                    unknown.push(why);
                }
            }
        }
    }
    if !bad.is_empty() {
        return CheckOutcome::no(capped(bad)).with_objects(failing);
    }
    if !unknown.is_empty() {
        return CheckOutcome::unknown(capped(unknown));
    }
    let said = match closed {
        0 => format!("no webhook served from {ns} fails closed"),
        1 => format!("1 webhook served from {ns} with failurePolicy Fail has a ready endpoint"),
        n => format!("{n} webhooks served from {ns} with failurePolicy Fail have a ready endpoint"),
    };
    match ignored {
        0 => CheckOutcome::yes(said),
        n => CheckOutcome::yes(format!("{said} ({n} with failurePolicy Ignore not judged)")),
    }
}

#[cfg(test)]
#[path = "webhooks_tests.rs"]
mod tests;
