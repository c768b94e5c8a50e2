//! Strict decoding of `webhooks: {namespace: NS}`.

use serde::Deserialize;

use crate::model::catalog::check::WebhooksCheck;
use crate::model::catalog::scalars::is_dns_label;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawWebhooks {
    namespace: String,
}

impl RawWebhooks {
    pub(super) fn into_check(self) -> Result<WebhooksCheck, String> {
        if is_dns_label(&self.namespace) {
            Ok(WebhooksCheck {
                namespace: self.namespace,
            })
        } else {
            Err(format!(
                "`webhooks: {{namespace: {}}}`: the namespace must be a DNS label (the namespace the webhooks' Service runs in, e.g. cert-manager)",
                self.namespace
            ))
        }
    }
}
