//! Reads through the API proxy ([`crate::read::proxy`]): every [`ReadRequest`] of a batch becomes
//! the GET that `kubectl get ... -o json` itself sends (same API paths, `Accept:
//! application/json`), at most [`crate::pool::API_READS_IN_FLIGHT`] in flight on as many
//! threads, whatever the batch holds (SPEC §9 "Bounded per run"). The List JSON
//! answered is handed to the same parsers as kubectl's stdout: a `NodeList` differs from
//! kubectl's `List` only in wrapper fields the parsers ignore.
//!
//! API groups come from discovery (`/api` + `/apis`, a few KB, as `kubectl api-versions`),
//! never from CRD objects, read in the same round as everything else (SPEC §11: nothing waits
//! for discovery). Custom resources are fetched speculatively in that round at the version
//! the catalog's hints give (`model/catalog/served.yaml`, per type or per group); discovery
//! then decides: a group that is not served means the type is absent (the read kubectl would
//! fail with "doesn't have a resource type"), an answer at a version the group serves stands,
//! and a 404 or a version the group does not serve is settled in the second round
//! ([`Unsettled`], [`settle`]) at the versions discovery names. A 403, a timeout or an error
//! stays a failed read (the layer is unknown), never "absent".
//!
//! HTTP statuses become the failures kubectl's messages gave: the message is worded as
//! kubectl prints it (`Error from server (Forbidden): ...`) and classified by the same code,
//! so layer states and exit codes do not depend on the read path.
//!
//! Files: this one, `read_round` and `each_target` (every GET sent at once, answers read by at
//! most [`crate::pool::READ_THREADS`] threads); `typed.rs`, the built-in reads decoded while
//! they arrive and `fetch_with` (one GET decoded by the caller's decoder); `paths.rs`, API
//! paths and the proxy's accept-paths; `status.rs`, HTTP statuses worded as kubectl would;
//! `discovery.rs`, what `/api` and `/apis` serve and the custom resources left to the second
//! round; `gate.rs`, every gate's reads (`GateRead`).

#[cfg(test)]
mod agents_tests;
#[cfg(test)]
mod apiservices_tests;
#[cfg(test)]
mod claims_tests;
mod discovery;
pub mod gate;
mod paths;
#[cfg(test)]
mod placement_tests;
mod status;
#[cfg(test)]
mod tests;
mod typed;
pub use typed::fetch_with;
#[cfg(test)]
mod webhooks_tests;
use typed::{builtin_targets, not_sent, take, Builtin, DecodedAnswers};

use discovery::*;
pub use discovery::{settle, Unsettled};
pub use paths::accept_paths;
use paths::*;
pub use status::{status_failure, transport_failure};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use serde::Deserialize;

use crate::model::observation::answer;
use crate::model::observation::Scope;
use crate::model::observation::{
    classify_kubectl_stderr, decode_custom_objects, CustomObject, Decoded, Decoder, FailureKind,
    FieldUse, Observation, Read, ReadFailure, ReadRequest,
};
use crate::read::http::{HttpError, Response};
use crate::read::kubectl::Kubectl;
use crate::read::proxy::ApiProxy;

const JSON: &str = "application/json";

/// The answer to one GET, or why there is none.
type Answer = Result<Response, HttpError>;

/// A custom resource list, decoded while it arrived (only the fields the checks use), or the
/// non-2xx answer that says why not.
enum Listed {
    Objects(Read<Vec<CustomObject>>),
    Status(Response),
}

/// The answer to one custom resource GET.
type ListAnswer = Result<Listed, HttpError>;

/// The version a custom resource is first fetched at: catalog data (`model/catalog/served.yaml`).
pub use crate::model::catalog::speculative_version;

/// One round: every GET `requests` name at once through `proxy`, at most `in_flight` at a
/// time, each outcome recorded into `obs` (workload reads listed in `scope` in those
/// namespaces only), what is kept charged to `budget`. Custom resources served at another
/// version than the one asked are left [`Unsettled`] for the next round ([`settle`]).
pub fn read_round(
    kubectl: &Kubectl,
    (proxy, in_flight, round): (&ApiProxy, usize, u8),
    requests: &[ReadRequest],
    scope: &Scope,
    obs: &mut Observation,
    budget: &crate::pool::Budget,
) -> Unsettled {
    let targets = first_round(requests, scope);
    kubectl.runner().trace(&format!(
        "round {round}: {} reads, {} GETs at once (at most {in_flight} in flight)",
        requests.len(),
        targets.len()
    ));
    let keep = |target: &str| -> Option<&BTreeSet<FieldUse>> {
        requests
            .iter()
            .filter_map(ReadRequest::custom_type)
            .find(|t| resource_targets(t).iter().any(|p| p == target))
            .map(|t| scope.keep.get(t).unwrap_or(&NOTHING))
    };
    let decoder = obs.decoder().selecting(&scope.workload_names);
    let builtin = builtin_targets(requests, scope);
    let fetched = fetch_all(
        kubectl,
        (proxy, in_flight),
        targets,
        &keep,
        &builtin,
        &decoder,
        budget,
    );
    let (answers, mut lists, mut decoded) = fetched;
    let lost =
        |a: &Result<(), &HttpError>| matches!(a, Err(HttpError::Connect(_) | HttpError::Io(_)));
    if answers.values().any(|a| lost(&a.as_ref().map(|_| ())))
        || lists.values().any(|a| lost(&a.as_ref().map(|_| ())))
    {
        // The proxy went away under us: what it said is the best clue.
        kubectl.runner().trace(&format!(
            "proxy: lost (pid {}); its stderr{}",
            proxy.pid(),
            proxy.stderr()
        ));
    }
    let discovery = ApiDiscovery::from_answers(&answers);
    for request in requests {
        match request {
            ReadRequest::ApiGroups => {
                let groups = discovery.api_versions_text();
                obs.record(request, groups.as_deref().map_err(Clone::clone));
            }
            ReadRequest::Workloads(kind) => match scope.workload_namespaces.get(request) {
                Some(namespaces) => {
                    let parts = namespaces
                        .iter()
                        .map(|ns| {
                            let target = workload_path(*kind, Some(ns));
                            take(&mut decoded, &target, request, &decoder, budget)
                                .and_then(Decoded::into_workloads)
                                .unwrap_or_else(|| Err(not_sent(&target)))
                        })
                        .collect();
                    obs.store_parts(*kind, namespaces, parts);
                }
                None => {
                    let target = workload_path(*kind, None);
                    if let Some(d) = take(&mut decoded, &target, request, &decoder, budget) {
                        obs.store(d);
                    }
                }
            },
            ReadRequest::Resource(_) => {}
            other @ (ReadRequest::Nodes
            | ReadRequest::Namespaces
            | ReadRequest::StorageClasses
            | ReadRequest::ApiServerPods
            | ReadRequest::PersistentVolumes
            | ReadRequest::Claims { .. }
            | ReadRequest::ConfigMap { .. }
            | ReadRequest::Pods { .. }
            | ReadRequest::ContainerStarts { .. }
            | ReadRequest::PodPlacement { .. }
            | ReadRequest::WebhookConfigurations(_)
            | ReadRequest::EndpointSlices { .. }
            | ReadRequest::Events { .. }) => {
                let d = match builtin_path(other) {
                    Some(target) => take(&mut decoded, &target, other, &decoder, budget),
                    None => decoder.decode(
                        other,
                        Err::<&[u8], _>(ReadFailure::new(FailureKind::ApiError, "no path")),
                        budget,
                    ),
                };
                if let Some(d) = d {
                    obs.store(d);
                }
            }
        }
    }
    // Custom resources: most are settled by this round; the others (another preferred
    // version, or not at the expected version) are left for the next.
    let mut fetches = Vec::new();
    let mut keep = BTreeMap::new();
    for t in requests.iter().filter_map(ReadRequest::custom_type) {
        match discovery.resolve(t, &mut lists) {
            TypeRead::Done(result) => {
                obs.resources.insert(t.clone(), result);
            }
            TypeRead::Fetch(versions) => {
                keep.insert(t.clone(), scope.keep.get(t).cloned().unwrap_or_default());
                fetches.push((t.clone(), versions));
            }
        }
    }
    Unsettled {
        discovery,
        fetches,
        keep,
    }
}

/// Keeps nothing but namespace and name (a type no check reads a field of).
pub(super) static NOTHING: BTreeSet<FieldUse> = BTreeSet::new();

/// Every GET of the first round, deduplicated, in a stable order.
fn first_round(requests: &[ReadRequest], scope: &Scope) -> Vec<String> {
    let mut targets = BTreeSet::new();
    let resources = requests
        .iter()
        .any(|r| matches!(r, ReadRequest::Resource(_)));
    if requests.contains(&ReadRequest::ApiGroups) {
        targets.insert("/api".to_string());
    }
    if requests.contains(&ReadRequest::ApiGroups) || resources {
        targets.insert("/apis".to_string());
    }
    for request in requests {
        match request {
            ReadRequest::ApiGroups => {}
            ReadRequest::Workloads(kind) => match scope.workload_namespaces.get(request) {
                Some(namespaces) => {
                    targets.extend(namespaces.iter().map(|ns| workload_path(*kind, Some(ns))))
                }
                None => {
                    targets.insert(workload_path(*kind, None));
                }
            },
            ReadRequest::Resource(t) => targets.extend(resource_targets(t)),
            other @ (ReadRequest::Nodes
            | ReadRequest::Namespaces
            | ReadRequest::StorageClasses
            | ReadRequest::ApiServerPods
            | ReadRequest::PersistentVolumes
            | ReadRequest::Claims { .. }
            | ReadRequest::ConfigMap { .. }
            | ReadRequest::Pods { .. }
            | ReadRequest::ContainerStarts { .. }
            | ReadRequest::PodPlacement { .. }
            | ReadRequest::WebhookConfigurations(_)
            | ReadRequest::EndpointSlices { .. }
            | ReadRequest::Events { .. }) => {
                if let Some(p) = builtin_path(other) {
                    targets.insert(p);
                }
            }
        }
    }
    targets.into_iter().collect()
}

/// GET every target through the proxy, at most `in_flight` at once. Targets `keep`
/// names (custom resource lists) and the `builtin` ones are decoded while they arrive, into
/// what the checks use, charged to `budget`; the others (discovery) are held whole.
fn fetch_all<'k>(
    kubectl: &Kubectl,
    (proxy, in_flight): (&ApiProxy, usize),
    targets: Vec<String>,
    keep: &(dyn Fn(&str) -> Option<&'k BTreeSet<FieldUse>> + Sync),
    builtin: &Builtin<'_>,
    decoder: &Decoder,
    budget: &crate::pool::Budget,
) -> (
    BTreeMap<String, Answer>,
    BTreeMap<String, ListAnswer>,
    DecodedAnswers,
) {
    enum Got {
        Buffered(Answer),
        Listed(ListAnswer),
        Decoded(Vec<Decoded>),
    }
    let got = each_target(proxy, (&targets, String::clone), in_flight, |t| {
        if let Some(requests) = builtin.get(t) {
            return Got::Decoded(typed::fetch_decoded(
                kubectl, proxy, t, requests, decoder, budget,
            ));
        }
        match keep(t) {
            Some(uses) => Got::Listed(fetch_list(kubectl, proxy, t, uses, budget)),
            None => Got::Buffered(fetch(kubectl, proxy, t)),
        }
    });
    let got = targets.into_iter().zip(got).map(|(t, g)| {
        let answer = g.unwrap_or_else(|| {
            Got::Buffered(Err(HttpError::Malformed(
                "a read thread panicked".to_string(),
            )))
        });
        (t, answer)
    });
    let (mut answers, mut lists, mut decoded) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    for (t, g) in got {
        match g {
            Got::Buffered(a) => {
                answers.insert(t, a);
            }
            Got::Listed(l) => {
                lists.insert(t, l);
            }
            Got::Decoded(d) => {
                decoded.insert(t, d);
            }
        }
    }
    (answers, lists, decoded)
}

/// `f` for each of `items` on the run's bounded pool, the GET of every item (its `target`)
/// sent first (SPEC §11: a round goes out at once): at most `in_flight` requests at the
/// server at any time, at most [`crate::pool::READ_THREADS`] threads reading the answers. A
/// request sent ahead that no thread opened is forgotten before this returns.
pub(crate) fn each_target<T: Sync, R: Send>(
    proxy: &ApiProxy,
    (items, target): (&[T], impl Fn(&T) -> String),
    in_flight: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    let threads = items
        .len()
        .min(in_flight)
        .clamp(1, crate::pool::READ_THREADS);
    // A thread sends an item past these only once it has read one of them whole: never more
    // than `in_flight` at the server.
    let ahead = items.len().min(in_flight);
    let sent: Vec<String> = items.iter().take(ahead).map(target).collect();
    proxy.send_ahead(&sent, JSON);
    let out = crate::pool::map_reads(items, threads, f);
    proxy.forget_ahead(&sent);
    out
}

/// One custom resource GET, decoded as it arrives; traced with `-v`.
fn fetch_list(
    kubectl: &Kubectl,
    proxy: &ApiProxy,
    target: &str,
    uses: &BTreeSet<FieldUse>,
    budget: &crate::pool::Budget,
) -> ListAnswer {
    let started = Instant::now();
    let took = || started.elapsed().as_secs_f64();
    let answer = match proxy.open(target, JSON) {
        Ok(a) => a,
        Err(e) => {
            kubectl
                .runner()
                .trace(&format!("get: {target}: {e} after {:.2}s", took()));
            return Err(e);
        }
    };
    if !(200..300).contains(&answer.status) {
        let status = answer.status;
        let body = answer.body.text(64 * 1024)?;
        kubectl.runner().trace(&format!(
            "get: {target}: {status} ({} bytes) in {:.2}s",
            body.len(),
            took()
        ));
        return Ok(Listed::Status(Response {
            status,
            body: body.into_bytes(),
        }));
    }
    let mut body = answer.body;
    // `/apis/GROUP/VERSION/PLURAL`: the list the answer must be.
    let segments: Vec<&str> = target.split('/').collect();
    let (group, plural) = match segments.as_slice() {
        ["", "apis", group, _, plural] => (*group, *plural),
        _ => ("", ""),
    };
    let what = format!("GET {target}");
    let reader = std::io::BufReader::new(&mut body);
    let decoded = decode_custom_objects(reader, uses, (plural, group), budget, &what);
    let bytes = body.bytes_read();
    kubectl.runner().trace(&format!(
        "get: {target}: {} ({bytes} bytes, decoded as they arrived) in {:.2}s",
        answer.status,
        took()
    ));
    Ok(Listed::Objects(decoded.map_err(|e| {
        if body.over_cap {
            ReadFailure::new(
                FailureKind::ApiError,
                format!(
                    "GET {target}: answer over {} MiB: not read (nestor bounds what it reads)",
                    crate::read::stream::MAX_STREAMED_BYTES >> 20
                ),
            )
        } else if matches!(
            e.io_error_kind(),
            Some(std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock)
        ) {
            transport_failure(target, &HttpError::TimedOut(started.elapsed()))
        } else if let Some(said) = answer::refusal_of(&e).or_else(|| over_budget(&e)) {
            ReadFailure::new(FailureKind::BadOutput, said)
        } else if e.is_io() {
            transport_failure(target, &HttpError::Io(std::io::Error::other(e.to_string())))
        } else {
            ReadFailure::new(
                FailureKind::BadOutput,
                format!("malformed list from GET {target}: {e}"),
            )
        }
    })))
}

/// The refusal of the budget a streamed decoder raised (its position dropped), if `e` is one.
fn over_budget(e: &serde_json::Error) -> Option<String> {
    let text = e.to_string();
    let said = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(s, _)| s);
    said.starts_with(crate::pool::OVER_BUDGET)
        .then(|| said.to_string())
}

/// A custom resource list's outcome: its objects, or the failed read.
fn listed(target: &str, answer: ListAnswer) -> Read<Vec<CustomObject>> {
    match answer {
        Ok(Listed::Objects(read)) => read,
        Ok(Listed::Status(r)) => Err(status_failure(r.status, &r.body_text())),
        Err(e) => Err(transport_failure(target, &e)),
    }
}

/// One GET, traced with `-v`.
fn fetch(kubectl: &Kubectl, proxy: &ApiProxy, target: &str) -> Answer {
    let started = Instant::now();
    let answer = proxy.get(target, JSON);
    let took = started.elapsed().as_secs_f64();
    kubectl.runner().trace(&match &answer {
        Ok(r) => format!(
            "get: {target}: {} ({} bytes) in {took:.2}s",
            r.status,
            r.body.len()
        ),
        Err(e) => format!("get: {target}: {e} after {took:.2}s"),
    });
    answer
}

fn text_of(target: &str, answer: &Answer) -> Result<String, ReadFailure> {
    match answer {
        Ok(r) if r.ok() => Ok(r.body_text()),
        Ok(r) => Err(status_failure(r.status, &r.body_text())),
        Err(e) => Err(transport_failure(target, e)),
    }
}
