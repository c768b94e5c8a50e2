//! Admission webhooks and the endpoints behind them (SPEC §6 v0.4 "Aggregated APIs and
//! webhooks must answer"): the Validating/MutatingWebhookConfiguration lists
//! (`admissionregistration.k8s.io/v1`) decoded into each configuration's name and, per
//! webhook, its name, `failurePolicy` and `clientConfig.service` namespace and name — never
//! its `caBundle`, rules or selectors; and a Service's EndpointSlices (`discovery.k8s.io/v1`,
//! by the label `kubernetes.io/service-name`) decoded into how many endpoints each has and
//! how many of them are ready.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::kube::decode_list;
use super::meta::words;
use crate::error::Result;
use crate::pool::Budget;

/// The two kinds of webhook configuration.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum WebhookKind {
    Validating,
    Mutating,
}

impl WebhookKind {
    pub const ALL: [WebhookKind; 2] = [WebhookKind::Validating, WebhookKind::Mutating];

    /// `ValidatingWebhookConfiguration`.
    pub fn kind(self) -> &'static str {
        match self {
            WebhookKind::Validating => "ValidatingWebhookConfiguration",
            WebhookKind::Mutating => "MutatingWebhookConfiguration",
        }
    }

    /// `validatingwebhookconfigurations`: the plural, and the key of its read.
    pub fn plural(self) -> &'static str {
        match self {
            WebhookKind::Validating => "validatingwebhookconfigurations",
            WebhookKind::Mutating => "mutatingwebhookconfigurations",
        }
    }

    /// `ValidatingWebhook`: how the evidence names one webhook of it.
    pub fn webhook(self) -> &'static str {
        match self {
            WebhookKind::Validating => "ValidatingWebhook",
            WebhookKind::Mutating => "MutatingWebhook",
        }
    }
}

/// The group both configurations are served by, at the version read.
pub const ADMISSION_GROUP: &str = "admissionregistration.k8s.io";
/// The group EndpointSlices are served by.
pub const DISCOVERY_GROUP: &str = "discovery.k8s.io";
/// The label the EndpointSlice controller sets to the Service's name.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// One configuration: its name and its webhooks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookConfiguration {
    pub name: String,
    pub webhooks: Vec<Webhook>,
}

/// One webhook of a configuration, reduced to what the check uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub name: String,
    /// `failurePolicy`; `Fail` when omitted (the `admissionregistration.k8s.io/v1` default).
    pub failure_policy: String,
    /// `clientConfig.service`; `None` for a webhook called by `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceRef>,
}

impl Webhook {
    /// Whether a call that fails rejects the request it intercepts.
    pub fn fails_closed(&self) -> bool {
        self.failure_policy != "Ignore"
    }
}

/// A webhook's Service.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct ServiceRef {
    pub namespace: String,
    pub name: String,
}

/// One EndpointSlice: how many endpoints it lists and how many are ready.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EndpointSlice {
    pub name: String,
    pub endpoints: u32,
    pub ready: u32,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawConfiguration {
    metadata: RawMeta,
    // `null` (no webhook at all) is as good as empty.
    webhooks: Option<Vec<RawWebhook>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMeta {
    name: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawWebhook {
    name: String,
    failure_policy: Option<String>,
    // Only `service` is named: `caBundle` and `url` are skipped unread.
    client_config: RawClientConfig,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawClientConfig {
    service: Option<RawService>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawService {
    namespace: String,
    name: String,
}

/// Decode a `kind` configuration list answer, charged to `budget`.
pub fn read_webhook_configurations<R: std::io::Read>(
    reader: R,
    kind: WebhookKind,
    budget: &Budget,
) -> Result<Vec<WebhookConfiguration>> {
    let what = format!("GET /apis/{ADMISSION_GROUP}/v1/{}", kind.plural());
    decode_list(
        reader,
        &what,
        ADMISSION_GROUP,
        kind.kind(),
        budget,
        |c: RawConfiguration| WebhookConfiguration {
            name: words(&c.metadata.name),
            webhooks: c
                .webhooks
                .unwrap_or_default()
                .into_iter()
                .take(super::MAX_ITEMS)
                .map(|w| Webhook {
                    name: words(&w.name),
                    failure_policy: w
                        .failure_policy
                        .map_or_else(|| "Fail".to_string(), |p| words(&p)),
                    service: w.client_config.service.map(|s| ServiceRef {
                        namespace: s.namespace,
                        name: s.name,
                    }),
                })
                .collect(),
        },
    )
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawSlice {
    metadata: RawSliceMeta,
    endpoints: Option<Vec<RawEndpoint>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawSliceMeta {
    name: String,
    namespace: String,
    labels: RawSliceLabels,
}

/// The one label an EndpointSlice is read by; the others are skipped unread.
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawSliceLabels {
    #[serde(rename = "kubernetes.io/service-name")]
    service: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawEndpoint {
    conditions: RawConditions,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawConditions {
    ready: Option<bool>,
}

/// Decode the EndpointSlice list answer of Service `service` in `namespace` (`what` names its
/// GET), charged to `budget`: a slice counts only when it is that Service's (its
/// `kubernetes.io/service-name` label, in that namespace: SPEC §9 "every answer is the object
/// asked for"; another Service's ready slice in the same answer made a webhook look served,
/// issue 49). An endpoint whose `conditions.ready` is absent counts as ready: "a nil value
/// should be interpreted as true" (`discovery.k8s.io/v1` EndpointConditions).
pub fn read_endpoint_slices<R: std::io::Read>(
    reader: R,
    (namespace, service): (&str, &str),
    what: &str,
    budget: &Budget,
) -> Result<Vec<EndpointSlice>> {
    let slices = decode_list(
        reader,
        what,
        DISCOVERY_GROUP,
        "EndpointSlice",
        budget,
        |s: RawSlice| {
            let its = s.metadata.namespace == namespace
                && s.metadata.labels.service.as_deref() == Some(service);
            let endpoints = s.endpoints.unwrap_or_default();
            let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            its.then(|| EndpointSlice {
                name: words(&s.metadata.name),
                endpoints: count(endpoints.len()),
                ready: count(
                    endpoints
                        .iter()
                        .filter(|e| e.conditions.ready != Some(false))
                        .count(),
                ),
            })
        },
    )?;
    Ok(slices.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget() -> Budget {
        Budget::new(usize::MAX)
    }

    const CA: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJ";

    #[test]
    fn configurations_keep_names_policy_and_service_never_the_ca_bundle() {
        let text = format!(
            r#"{{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfigurationList","items":[
              {{"metadata":{{"name":"cert-manager-webhook","annotations":{{"cert-manager.io/inject-ca-from-secret":"cert-manager/cert-manager-webhook-ca"}}}},
               "webhooks":[{{"name":"webhook.cert-manager.io","failurePolicy":"Fail","sideEffects":"None",
                 "clientConfig":{{"service":{{"name":"cert-manager-webhook","namespace":"cert-manager","path":"/validate","port":443}},"caBundle":"{CA}"}}}},
                 {{"name":"no-policy.example.com","clientConfig":{{"url":"https://hooks.example.com/validate","caBundle":"{CA}"}}}}]}},
              {{"metadata":{{"name":"empty"}},"webhooks":null}}]}}"#
        );
        let got = read_webhook_configurations(text.as_bytes(), WebhookKind::Validating, &budget())
            .unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].name, "cert-manager-webhook");
        assert_eq!(
            got[0].webhooks[0],
            Webhook {
                name: "webhook.cert-manager.io".into(),
                failure_policy: "Fail".into(),
                service: Some(ServiceRef {
                    namespace: "cert-manager".into(),
                    name: "cert-manager-webhook".into()
                }),
            }
        );
        // Omitted: the v1 default, Fail. Called by url: no service.
        assert_eq!(got[0].webhooks[1].failure_policy, "Fail");
        assert!(got[0].webhooks[1].fails_closed());
        assert_eq!(got[0].webhooks[1].service, None);
        assert!(got[1].webhooks.is_empty());
        let kept = serde_json::to_string(&got).unwrap();
        for never in [
            CA,
            "caBundle",
            "hooks.example.com",
            "inject-ca",
            "/validate",
        ] {
            assert!(!kept.contains(never), "{never} kept: {kept}");
        }
    }

    #[test]
    fn a_list_of_another_kind_is_refused() {
        let text = r#"{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfigurationList","items":[]}"#;
        let e = read_webhook_configurations(text.as_bytes(), WebhookKind::Validating, &budget())
            .unwrap_err();
        assert!(
            e.message.contains("MutatingWebhookConfigurationList"),
            "{e:?}"
        );
    }

    #[test]
    /// Only the asked Service's slices count: another Service's ready slice, one of the same
    /// name in another namespace and an unlabelled one are left out (issue 49).
    fn slices_count_ready_endpoints_absent_ready_is_ready() {
        let text = r#"{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSliceList","items":[
          {"metadata":{"name":"cert-manager-webhook-x7k2p","namespace":"cert-manager","labels":{"kubernetes.io/service-name":"cert-manager-webhook"}},
           "addressType":"IPv4","endpoints":[
             {"addresses":["10.244.1.17"],"conditions":{"ready":false,"serving":false,"terminating":false},"targetRef":{"kind":"Pod","name":"cert-manager-webhook-5d4f-abcde","namespace":"cert-manager"}},
             {"addresses":["10.244.2.9"],"conditions":{}},
             {"addresses":["10.244.3.4"],"conditions":{"ready":true}}],
           "ports":[{"name":"https","port":10250,"protocol":"TCP"}]},
          {"metadata":{"name":"cert-manager-webhook-empty","namespace":"cert-manager","labels":{"kubernetes.io/service-name":"cert-manager-webhook"}},"addressType":"IPv4","endpoints":null},
          {"metadata":{"name":"other-ready","namespace":"cert-manager","labels":{"kubernetes.io/service-name":"cert-manager"}},"endpoints":[{"addresses":["10.244.1.2"],"conditions":{"ready":true}}]},
          {"metadata":{"name":"elsewhere-ready","namespace":"default","labels":{"kubernetes.io/service-name":"cert-manager-webhook"}},"endpoints":[{"addresses":["10.244.1.3"],"conditions":{"ready":true}}]},
          {"metadata":{"name":"unlabelled-ready","namespace":"cert-manager"},"endpoints":[{"addresses":["10.244.1.4"],"conditions":{"ready":true}}]}]}"#;
        let asked = ("cert-manager", "cert-manager-webhook");
        let got = read_endpoint_slices(text.as_bytes(), asked, "GET slices", &budget()).unwrap();
        assert_eq!(
            got,
            [
                EndpointSlice {
                    name: "cert-manager-webhook-x7k2p".into(),
                    endpoints: 3,
                    ready: 2
                },
                EndpointSlice {
                    name: "cert-manager-webhook-empty".into(),
                    endpoints: 0,
                    ready: 0
                },
            ]
        );
        let wrong = r#"{"apiVersion":"v1","kind":"EndpointsList","items":[]}"#;
        assert!(read_endpoint_slices(wrong.as_bytes(), asked, "GET slices", &budget()).is_err());
    }
}
