//! cert-manager's admission webhooks (SPEC §6 v0.4 "Aggregated APIs and webhooks must
//! answer"), built in [`platform`](crate::platform) for every `dirqual-full`: the
//! Validating- and MutatingWebhookConfiguration `cert-manager-webhook` as
//! cert-manager's Helm chart renders them (webhook `webhook.cert-manager.io`,
//! `failurePolicy: Fail`, service cert-manager/cert-manager-webhook, the CA bundle the
//! cainjector writes), and the EndpointSlice the EndpointSlice controller keeps for that
//! Service (`discovery.k8s.io/v1`, label `kubernetes.io/service-name`, one endpoint).
//!
//! | name | what differs from `dirqual-full` |
//! |---|---|
//! | `webhook-no-endpoint` | the webhook pod lost readiness: its endpoint `ready: false` (`serving: false`), so every write the webhook intercepts is refused |

use crate::clusters::dirqual_full;
use crate::fixture::Fixture;
use crate::platform::endpoint_slice;

pub fn webhook_no_endpoint() -> Fixture {
    let mut f = dirqual_full();
    for o in &mut f.objects {
        if o["kind"] == "EndpointSlice" && o["metadata"]["name"] == "cert-manager-webhook-tr8zw" {
            *o = endpoint_slice(false);
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_webhook_keeps_one_endpoint_slice() {
        let f = webhook_no_endpoint();
        let slices = f.objects.iter().filter(|o| o["kind"] == "EndpointSlice");
        assert_eq!(slices.count(), 1);
    }
}
