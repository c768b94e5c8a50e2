//! `webhooks: {namespace: cert-manager}` (SPEC §6 v0.4 "Aggregated APIs and webhooks must
//! answer"): every Validating/MutatingWebhookConfiguration webhook whose
//! `clientConfig.service` is in that namespace and whose `failurePolicy` is `Fail` (the
//! `admissionregistration.k8s.io/v1` default) has a ready endpoint — its Service's
//! EndpointSlices (`discovery.k8s.io/v1`, by `kubernetes.io/service-name`) are read in the
//! second round. An `Ignore` webhook never degrades; a webhook called by `url` is skipped.

/// At most this many Services per check have their EndpointSlices read (the second round);
/// the others are named "not inspected" and leave the check unknown, never healthy.
pub const MAX_SERVICES: usize = 8;

/// The webhooks served from one namespace answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhooksCheck {
    pub namespace: String,
}

impl std::fmt::Display for WebhooksCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "every Validating/MutatingWebhookConfiguration webhook served from namespace {} with failurePolicy Fail has a ready endpoint (its Service's EndpointSlices); Ignore webhooks never degrade, url webhooks are skipped",
            self.namespace
        )
    }
}
