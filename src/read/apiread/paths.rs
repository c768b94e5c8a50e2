//! What each read request asks for, built here in the read layer from the pure request: the
//! GET it becomes through the proxy, and the exact paths the proxy accepts.
use super::*;
use crate::model::observation::WorkloadKind;

/// The first-round GET of a custom resource type (at its speculative version).
pub(super) fn resource_targets(t: &str) -> Vec<String> {
    split_type(t)
        .map(|(plural, group)| {
            vec![resource_path(
                group,
                speculative_version(plural, group),
                plural,
            )]
        })
        .unwrap_or_default()
}

/// The proxy's `--accept-paths` for this batch (SPEC §9): exactly the paths these reads can
/// GET, each an anchored regexp — the first round's paths as literals, and for each custom
/// resource type its group's version documents and lists at any version (discovery picks
/// the version). Never a pod, logs, a configmap list, service accounts or secrets: pods only
/// as a namespace's list (a label selector names which), ConfigMaps only by name, Events
/// only as one namespace's `events.k8s.io/v1` list (never the cluster's).
pub fn accept_paths(requests: &[ReadRequest], scope: &Scope) -> Vec<String> {
    let literal = |p: &str| format!("^{}$", p.replace('.', "\\."));
    // kubectl proxy matches the path only: a query (`?labelSelector=`) is not part of it.
    // An Events list is accepted by its one form below (so one proxy serves every round).
    let mut out: Vec<String> = first_round(requests, scope)
        .iter()
        .filter(|p| !p.starts_with("/apis/events.k8s.io/"))
        .map(|p| literal(p.split('?').next().unwrap_or_default()))
        .collect();
    // The second round's pod lists (a not-rolled-out workload's own pods, by its selector:
    // SPEC §6 v0.3) in the namespaces the workload checks name, so one proxy serves both.
    let pods = scope
        .workload_namespaces
        .iter()
        .filter(|(r, _)| requests.contains(r))
        .flat_map(|(_, namespaces)| namespaces)
        .filter(|ns| is_segment(ns));
    out.extend(pods.map(|ns| literal(&format!("/api/v1/namespaces/{ns}/pods"))));
    // The second round's EndpointSlice lists (the Services of the webhooks that fail closed,
    // by `kubernetes.io/service-name`: SPEC §6 v0.4) in the `webhooks:` checks' namespaces,
    // when the configurations are read in this batch.
    if requests
        .iter()
        .any(|r| matches!(r, ReadRequest::WebhookConfigurations(_)))
    {
        let slices = scope.webhook_namespaces.iter().filter(|ns| is_segment(ns));
        out.extend(slices.map(|ns| {
            literal(&format!(
                "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices"
            ))
        }));
    }
    // The second round's Warning Events (SPEC §6 v0.4), one namespace's list by its one path
    // form, when this run may read them.
    if scope.events
        || requests
            .iter()
            .any(|r| matches!(r, ReadRequest::Events { .. }))
    {
        out.push(crate::read::exec::allowlist::EVENTS_ACCEPT_PATH.to_string());
    }
    for request in requests {
        if let ReadRequest::Resource(t) = request {
            if let Some((plural, group)) = split_type(t) {
                let group = group.replace('.', "\\.");
                out.push(format!("^/apis/{group}/[a-z0-9]+$"));
                out.push(format!("^/apis/{group}/[a-z0-9]+/{plural}$"));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The API path of a built-in list (what `kubectl get <type> -o json` requests).
pub(super) fn builtin_path(request: &ReadRequest) -> Option<String> {
    Some(
        match request {
            ReadRequest::Nodes => "/api/v1/nodes",
            ReadRequest::Namespaces => "/api/v1/namespaces",
            ReadRequest::StorageClasses => "/apis/storage.k8s.io/v1/storageclasses",
            ReadRequest::PersistentVolumes => "/api/v1/persistentvolumes",
            // One checked namespace's claims (SPEC §6 v0.4: never every namespace's).
            ReadRequest::Claims { namespace } if is_segment(namespace) => {
                return Some(format!(
                    "/api/v1/namespaces/{namespace}/persistentvolumeclaims"
                ))
            }
            ReadRequest::ApiServerPods => {
                "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Dkube-apiserver"
            }
            // One ConfigMap by name (SPEC §6: never listed).
            ReadRequest::ConfigMap {
                namespace, name, ..
            } if is_segment(namespace) && is_segment(name) => {
                return Some(format!("/api/v1/namespaces/{namespace}/configmaps/{name}"))
            }
            // A workload's own pods, by its selector (validated labels; `=` and `,` encoded).
            ReadRequest::Pods {
                namespace,
                selector,
            }
            | ReadRequest::ContainerStarts {
                namespace,
                selector,
                ..
            } if is_segment(namespace) && selector_ok(selector) => {
                let query = encoded_selector(selector);
                return Some(format!(
                    "/api/v1/namespaces/{namespace}/pods?labelSelector={query}"
                ));
            }
            // Where a selector's pods run (`distinctNodes:`), with a `limit`: a list cut
            // there says so (`metadata.continue`) and is a failed read.
            ReadRequest::PodPlacement {
                namespace,
                selector,
                ..
            } if is_segment(namespace) && selector_ok(selector) => {
                let query = encoded_selector(selector);
                return Some(format!(
                    "/api/v1/namespaces/{namespace}/pods?labelSelector={query}&limit={}",
                    crate::model::catalog::MAX_PLACED_PODS
                ));
            }
            // Every configuration of one kind: cluster-scoped, at the GA version.
            ReadRequest::WebhookConfigurations(kind) => {
                return Some(format!("/apis/admissionregistration.k8s.io/v1/{}", kind.plural()))
            }
            // A Service's EndpointSlices, by the label the EndpointSlice controller sets.
            ReadRequest::EndpointSlices { namespace, service }
                if is_segment(namespace) && is_segment(service) =>
            {
                return Some(format!(
                    "/apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D{service}"
                ));
            }
            // One namespace's Warning Events (SPEC §6 v0.4 "Warnings explain"), by the field
            // selector events.k8s.io/v1 accepts (`type`), bounded by `limit`.
            ReadRequest::Events { namespace } if is_segment(namespace) => {
                return Some(format!(
                    "/apis/events.k8s.io/v1/namespaces/{namespace}/events?fieldSelector=type%3DWarning&limit={}",
                    crate::model::observation::EVENTS_LIMIT
                ));
            }
            ReadRequest::ApiGroups
            | ReadRequest::Workloads(_)
            | ReadRequest::Resource(_)
            | ReadRequest::Events { .. }
            | ReadRequest::Claims { .. }
            | ReadRequest::ConfigMap { .. }
            | ReadRequest::Pods { .. }
            | ReadRequest::ContainerStarts { .. }
            | ReadRequest::PodPlacement { .. }
            | ReadRequest::EndpointSlices { .. } => return None,
        }
        .to_string(),
    )
}

/// A valid selector ([`selector_ok`]) as a query value: `/`, `=` and `,` percent-encoded.
fn encoded_selector(selector: &str) -> String {
    selector
        .replace('/', "%2F")
        .replace('=', "%3D")
        .replace(',', "%2C")
}

/// A selector as [`crate::model::observation::selector_of`] builds it: `k=v` pairs joined by
/// `,`, label characters only (nothing a query could be bent with).
pub(super) fn selector_ok(selector: &str) -> bool {
    !selector.is_empty()
        && selector.split(',').all(|pair| {
            pair.split_once('=').is_some_and(|(k, v)| {
                !k.is_empty()
                    && k.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b))
                    && v.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
            })
        })
}

/// `/apis/apps/v1/PLURAL`, or in one namespace.
pub(super) fn workload_path(kind: WorkloadKind, namespace: Option<&str>) -> String {
    let plural = kind.plural();
    match namespace.filter(|ns| is_segment(ns)) {
        Some(ns) => format!("/apis/apps/v1/namespaces/{ns}/{plural}"),
        None => format!("/apis/apps/v1/{plural}"),
    }
}

pub(super) fn resource_path(group: &str, version: &str, plural: &str) -> String {
    format!("/apis/{group}/{version}/{plural}")
}

/// `plural.group` split, both parts safe as path segments (catalog names are DNS labels);
/// never secrets.
pub(super) fn split_type(t: &str) -> Option<(&str, &str)> {
    let (plural, group) = t.split_once('.')?;
    (is_segment(plural) && is_segment(group) && plural != "secrets").then_some((plural, group))
}

pub(super) fn is_segment(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && !s.contains("..")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
}
