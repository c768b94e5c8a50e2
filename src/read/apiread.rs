//! Reads through the API proxy ([`crate::read::proxy`]): every [`ReadRequest`] of a batch becomes
//! the GET that `kubectl get ... -o json` itself sends (same API paths, `Accept:
//! application/json`), and all of them go out at once, one std thread each. The List JSON
//! answered is handed to the same parsers as kubectl's stdout: a `NodeList` differs from
//! kubectl's `List` only in wrapper fields the parsers ignore.
//!
//! API groups come from discovery (`/api` + `/apis`, a few KB, as `kubectl api-versions`),
//! never from CRD objects. Custom resources are fetched speculatively in the same round at
//! their group's usual version (`v1`); discovery then decides: a group that is not served
//! means the type is absent (the read kubectl would fail with "doesn't have a resource type"),
//! a group whose preferred version is another one is fetched again at that version. A 403, a
//! timeout or an error stays a failed read (the layer is unknown), never "absent".
//!
//! HTTP statuses become the failures kubectl's messages gave: the message is worded as
//! kubectl prints it (`Error from server (Forbidden): ...`) and classified by the same code,
//! so layer states and exit codes do not depend on the read path.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use serde::Deserialize;

use crate::model::observation::Scope;
use crate::model::observation::{
    classify_kubectl_stderr, decode_custom_objects, CustomObject, FailureKind, FieldUse,
    Observation, Read, ReadFailure, ReadRequest,
};
use crate::read::http::{HttpError, Response};
use crate::read::kubectl::Kubectl;
use crate::read::proxy::ApiProxy;

/// The version a custom resource is fetched at before discovery has answered.
pub const SPECULATIVE_VERSION: &str = "v1";

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

/// The version a custom resource is fetched at before discovery has answered: `v1`, except
/// for the groups the built-in catalog reads that serve another one (one round trip saved).
pub fn speculative_version(group: &str) -> &'static str {
    match group {
        "argoproj.io" => "v1alpha1",
        _ => SPECULATIVE_VERSION,
    }
}

/// Read `requests` through `proxy` and record every outcome into `obs`. Workload reads listed
/// in `scope` are read in those namespaces only (and the scope is recorded).
pub fn read_into(
    kubectl: &Kubectl,
    proxy: &ApiProxy,
    requests: &[ReadRequest],
    scope: &Scope,
    obs: &mut Observation,
) {
    let targets = first_round(requests, scope);
    let keep = |target: &str| -> Option<&BTreeSet<FieldUse>> {
        requests.iter().find_map(|r| match r {
            ReadRequest::Resource(t) if resource_targets(t).iter().any(|p| p == target) => {
                Some(scope.keep.get(t).unwrap_or(&NOTHING))
            }
            _ => None,
        })
    };
    let (answers, mut lists) = fetch_all(kubectl, proxy, targets, &keep);
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
    let discovery = Discovery::from_answers(&answers);
    for request in requests {
        match request {
            ReadRequest::ApiGroups => {
                let groups = discovery.api_versions_text();
                obs.record(request, groups.as_deref().map_err(Clone::clone));
            }
            ReadRequest::DaemonSets | ReadRequest::Deployments | ReadRequest::StatefulSets => {
                match scope.workload_namespaces.get(request) {
                    Some(namespaces) => {
                        let texts: Vec<Result<String, ReadFailure>> = namespaces
                            .iter()
                            .map(|ns| outcome(&answers, &workload_path(request, Some(ns))))
                            .collect();
                        let parts = texts
                            .iter()
                            .map(|t| t.as_deref().map_err(Clone::clone))
                            .collect();
                        obs.record_parts(request, namespaces, parts);
                    }
                    None => {
                        let text = outcome(&answers, &workload_path(request, None));
                        obs.record(request, text.as_deref().map_err(Clone::clone));
                    }
                }
            }
            ReadRequest::Resource(_) => {}
            other => {
                let text = builtin_path(other)
                    .map(|p| outcome(&answers, &p))
                    .unwrap_or_else(|| Err(ReadFailure::new(FailureKind::ApiError, "no path")));
                obs.record(other, text.as_deref().map_err(Clone::clone));
            }
        }
    }
    // Custom resources: most are settled by the first round; the others (another preferred
    // version, or not at the expected version) are resolved in parallel.
    let resources: Vec<(&String, Resolution)> = requests
        .iter()
        .filter_map(|r| match r {
            ReadRequest::Resource(t) => Some((t, discovery.resolve(t, &mut lists))),
            _ => None,
        })
        .collect();
    let settled: Vec<(String, Read<Vec<CustomObject>>)> = std::thread::scope(|s| {
        let handles: Vec<_> = resources
            .into_iter()
            .map(|(t, resolution)| {
                let discovery = &discovery;
                (
                    t.clone(),
                    s.spawn(move || match resolution {
                        Resolution::Done(result) => result,
                        Resolution::Fetch(versions) => discovery.fetch_resource(
                            kubectl,
                            proxy,
                            t,
                            &versions,
                            scope.keep.get(t).unwrap_or(&NOTHING),
                        ),
                    }),
                )
            })
            .collect();
        handles
            .into_iter()
            .map(|(t, h)| {
                let result = h.join().unwrap_or_else(|_| {
                    Err(ReadFailure::new(
                        FailureKind::ApiError,
                        "a read thread panicked",
                    ))
                });
                (t, result)
            })
            .collect()
    });
    for (t, result) in settled {
        obs.resources.insert(t, result);
    }
}

/// Keeps nothing but namespace and name (a type no check reads a field of).
static NOTHING: BTreeSet<FieldUse> = BTreeSet::new();

/// The first-round GET of a custom resource type (at its speculative version).
fn resource_targets(t: &str) -> Vec<String> {
    split_type(t)
        .map(|(plural, group)| vec![resource_path(group, speculative_version(group), plural)])
        .unwrap_or_default()
}

/// The proxy's `--accept-paths` for this batch (SPEC §9): exactly the paths these reads can
/// GET, each an anchored regexp — the first round's paths as literals, and for each custom
/// resource type its group's version documents and lists at any version (discovery picks
/// the version). Never pods, logs, configmaps, events, service accounts or secrets.
pub fn accept_paths(requests: &[ReadRequest], scope: &Scope) -> Vec<String> {
    let literal = |p: &str| format!("^{}$", p.replace('.', "\\."));
    // kubectl proxy matches the path only: a query (`?labelSelector=`) is not part of it.
    let mut out: Vec<String> = first_round(requests, scope)
        .iter()
        .map(|p| literal(p.split('?').next().unwrap_or_default()))
        .collect();
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
            ReadRequest::DaemonSets | ReadRequest::Deployments | ReadRequest::StatefulSets => {
                match scope.workload_namespaces.get(request) {
                    Some(namespaces) => {
                        targets.extend(namespaces.iter().map(|ns| workload_path(request, Some(ns))))
                    }
                    None => {
                        targets.insert(workload_path(request, None));
                    }
                }
            }
            ReadRequest::Resource(t) => targets.extend(resource_targets(t)),
            other => {
                if let Some(p) = builtin_path(other) {
                    targets.insert(p);
                }
            }
        }
    }
    targets.into_iter().collect()
}

/// GET every target at once; one thread per request, answers by target. Targets `keep`
/// names (custom resource lists) are decoded while they arrive, into what the checks use.
fn fetch_all<'k>(
    kubectl: &Kubectl,
    proxy: &ApiProxy,
    targets: Vec<String>,
    keep: &(dyn Fn(&str) -> Option<&'k BTreeSet<FieldUse>> + Sync),
) -> (BTreeMap<String, Answer>, BTreeMap<String, ListAnswer>) {
    enum Got {
        Buffered(Answer),
        Listed(ListAnswer),
    }
    let got: Vec<(String, Got)> = std::thread::scope(|s| {
        let handles: Vec<_> = targets
            .into_iter()
            .map(|t| {
                let handle = s.spawn({
                    let t = t.clone();
                    move || match keep(&t) {
                        Some(uses) => Got::Listed(fetch_list(kubectl, proxy, &t, uses)),
                        None => Got::Buffered(fetch(kubectl, proxy, &t)),
                    }
                });
                (t, handle)
            })
            .collect();
        handles
            .into_iter()
            .map(|(t, h)| {
                let answer = h.join().unwrap_or_else(|_| {
                    Got::Buffered(Err(HttpError::Malformed(
                        "a read thread panicked".to_string(),
                    )))
                });
                (t, answer)
            })
            .collect()
    });
    let mut answers = BTreeMap::new();
    let mut lists = BTreeMap::new();
    for (t, g) in got {
        match g {
            Got::Buffered(a) => {
                answers.insert(t, a);
            }
            Got::Listed(l) => {
                lists.insert(t, l);
            }
        }
    }
    (answers, lists)
}

/// One custom resource GET, decoded as it arrives; traced with `-v`.
fn fetch_list(
    kubectl: &Kubectl,
    proxy: &ApiProxy,
    target: &str,
    uses: &BTreeSet<FieldUse>,
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
    let decoded = decode_custom_objects(std::io::BufReader::new(&mut body), uses);
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

/// The API path of a built-in list (what `kubectl get <type> -o json` requests).
fn builtin_path(request: &ReadRequest) -> Option<String> {
    Some(
        match request {
            ReadRequest::Nodes => "/api/v1/nodes",
            ReadRequest::Namespaces => "/api/v1/namespaces",
            ReadRequest::StorageClasses => "/apis/storage.k8s.io/v1/storageclasses",
            ReadRequest::ApiServerPods => {
                "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Dkube-apiserver"
            }
            _ => return None,
        }
        .to_string(),
    )
}

/// `/apis/apps/v1/PLURAL`, or in one namespace.
fn workload_path(request: &ReadRequest, namespace: Option<&str>) -> String {
    let plural = match request {
        ReadRequest::DaemonSets => "daemonsets",
        ReadRequest::Deployments => "deployments",
        _ => "statefulsets",
    };
    match namespace.filter(|ns| is_segment(ns)) {
        Some(ns) => format!("/apis/apps/v1/namespaces/{ns}/{plural}"),
        None => format!("/apis/apps/v1/{plural}"),
    }
}

fn resource_path(group: &str, version: &str, plural: &str) -> String {
    format!("/apis/{group}/{version}/{plural}")
}

/// `plural.group` split, both parts safe as path segments (catalog names are DNS labels);
/// never secrets.
fn split_type(t: &str) -> Option<(&str, &str)> {
    let (plural, group) = t.split_once('.')?;
    (is_segment(plural) && is_segment(group) && plural != "secrets").then_some((plural, group))
}

fn is_segment(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && !s.contains("..")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
}

/// The body of a successful answer, or the failed read.
fn outcome(answers: &BTreeMap<String, Answer>, target: &str) -> Result<String, ReadFailure> {
    match answers.get(target) {
        Some(answer) => text_of(target, answer),
        None => Err(ReadFailure::new(
            FailureKind::ApiError,
            format!("GET {target} was not sent"),
        )),
    }
}

fn text_of(target: &str, answer: &Answer) -> Result<String, ReadFailure> {
    match answer {
        Ok(r) if r.ok() => Ok(r.body_text()),
        Ok(r) => Err(status_failure(r.status, &r.body_text())),
        Err(e) => Err(transport_failure(target, e)),
    }
}

/// A GET that got no answer: a timeout is a timeout, anything else an error of the proxy.
pub fn transport_failure(target: &str, e: &HttpError) -> ReadFailure {
    match e {
        HttpError::TimedOut(after) => ReadFailure::new(
            FailureKind::Timeout,
            format!(
                "GET {target}: no answer within {:.1}s (--request-timeout), through kubectl proxy",
                after.as_secs_f64()
            ),
        ),
        other => ReadFailure::new(
            FailureKind::ApiError,
            format!("GET {target} through kubectl proxy: {other}"),
        ),
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Status {
    kind: String,
    reason: String,
    message: String,
}

/// A non-2xx answer as the failure kubectl would have reported: an API `Status` worded as
/// kubectl prints it; a plain-text 5xx from the proxy itself (it could not reach the API
/// server: refused, TLS, timeout) classified like kubectl's own transport errors.
pub fn status_failure(status: u16, body: &str) -> ReadFailure {
    let api_status = serde_json::from_str::<Status>(body)
        .ok()
        .filter(|s| s.kind == "Status");
    let (reason, message) = match &api_status {
        Some(s) => (
            if s.reason.is_empty() {
                default_reason(status).to_string()
            } else {
                s.reason.clone()
            },
            s.message.clone(),
        ),
        None => (default_reason(status).to_string(), body.trim().to_string()),
    };
    match status {
        401 => ReadFailure::new(
            FailureKind::Unauthorized,
            format!(
                "error: You must be logged in to the server ({})",
                if api_status.is_some() && !message.is_empty() {
                    message.as_str()
                } else {
                    "Unauthorized"
                }
            ),
        ),
        403 => ReadFailure::new(
            FailureKind::Forbidden,
            format!("Error from server (Forbidden): {message}"),
        ),
        404 if api_status.is_none() => ReadFailure::new(
            FailureKind::NotFound,
            "Error from server (NotFound): the server could not find the requested resource",
        ),
        404 => ReadFailure::new(
            FailureKind::NotFound,
            format!("Error from server (NotFound): {message}"),
        ),
        _ if api_status.is_some() => {
            let text = format!("Error from server ({reason}): {message}");
            ReadFailure::new(classify_kubectl_stderr(&text), text)
        }
        _ => match classify_kubectl_stderr(&message) {
            kind @ (FailureKind::Unreachable | FailureKind::Tls | FailureKind::Timeout) => {
                ReadFailure::new(kind, unable_to_connect(&message))
            }
            _ => ReadFailure::new(
                FailureKind::ApiError,
                format!(
                    "Error from server ({reason}): an error on the server ({message:?}) has prevented the request from succeeding"
                ),
            ),
        },
    }
}

/// kubectl's words for a transport error the proxy met (`dial tcp H:P: connect: connection
/// refused` becomes "The connection to the server H:P was refused ...").
fn unable_to_connect(detail: &str) -> String {
    if detail.contains("connection refused") {
        let host = detail
            .split("dial tcp ")
            .nth(1)
            .and_then(|rest| rest.split(": ").next())
            .unwrap_or("");
        format!(
            "Unable to connect to the server: {detail} | The connection to the server {host} was refused - did you specify the right host or port?"
        )
    } else {
        format!("Unable to connect to the server: {detail}")
    }
}

fn default_reason(status: u16) -> &'static str {
    match status {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        409 => "Conflict",
        410 => "Expired",
        429 => "TooManyRequests",
        500 => "InternalError",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "Unknown",
    }
}

/// One API group as `/apis` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    name: String,
    /// Served versions, in the server's order of preference.
    versions: Vec<String>,
    preferred: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawGroupList {
    groups: Vec<RawGroup>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawGroup {
    name: String,
    versions: Vec<RawGroupVersion>,
    preferred_version: RawGroupVersion,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawGroupVersion {
    group_version: String,
    version: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawApiVersions {
    versions: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawResourceList {
    resources: Vec<RawResource>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawResource {
    name: String,
}

/// What discovery said: the core versions (`/api`) and the groups (`/apis`), or why not.
struct Discovery {
    core: Option<Result<Vec<String>, ReadFailure>>,
    groups: Option<Result<Vec<Group>, ReadFailure>>,
}

/// How one custom resource read ends.
enum Resolution {
    Done(Read<Vec<CustomObject>>),
    /// Fetch it at the first of these versions that serves the type.
    Fetch(Vec<String>),
}

fn bad_discovery(target: &str, e: serde_json::Error) -> ReadFailure {
    ReadFailure::new(
        FailureKind::BadOutput,
        format!("malformed discovery answer for GET {target}: {e}"),
    )
}

impl Discovery {
    fn from_answers(answers: &BTreeMap<String, Answer>) -> Discovery {
        let core = answers.get("/api").map(|a| {
            text_of("/api", a).and_then(|text| {
                serde_json::from_str::<RawApiVersions>(&text)
                    .map(|v| v.versions)
                    .map_err(|e| bad_discovery("/api", e))
            })
        });
        let groups = answers.get("/apis").map(|a| {
            text_of("/apis", a).and_then(|text| {
                serde_json::from_str::<RawGroupList>(&text)
                    .map(|l| {
                        l.groups
                            .into_iter()
                            .map(|g| Group {
                                versions: g.versions.into_iter().map(|v| v.version).collect(),
                                preferred: g.preferred_version.version,
                                name: g.name,
                            })
                            .collect()
                    })
                    .map_err(|e| bad_discovery("/apis", e))
            })
        });
        Discovery { core, groups }
    }

    /// What `kubectl api-versions` prints: every `group/version` (and `v1`), sorted.
    fn api_versions_text(&self) -> Result<String, ReadFailure> {
        let missing = || ReadFailure::new(FailureKind::ApiError, "discovery was not read");
        let core = self.core.clone().ok_or_else(missing)??;
        let groups = self.groups.clone().ok_or_else(missing)??;
        let mut lines: Vec<String> = core;
        for g in &groups {
            lines.extend(g.versions.iter().map(|v| format!("{}/{v}", g.name)));
        }
        lines.sort();
        lines.dedup();
        Ok(lines.iter().map(|l| format!("{l}\n")).collect())
    }

    /// Settle a custom resource read from the first round, or say which versions to try.
    fn resolve(&self, t: &str, lists: &mut BTreeMap<String, ListAnswer>) -> Resolution {
        let Some((plural, group)) = split_type(t) else {
            return Resolution::Done(Err(no_such_type(t)));
        };
        let groups = match &self.groups {
            Some(Ok(groups)) => groups,
            Some(Err(f)) => return Resolution::Done(Err(f.clone())),
            None => {
                return Resolution::Done(Err(ReadFailure::new(
                    FailureKind::ApiError,
                    "discovery was not read",
                )))
            }
        };
        let Some(g) = groups.iter().find(|g| g.name == group) else {
            return Resolution::Done(Err(no_such_type(plural)));
        };
        let mut order = vec![g.preferred.clone()];
        order.extend(g.versions.iter().filter(|v| **v != g.preferred).cloned());
        let speculative = speculative_version(group);
        if g.preferred != speculative {
            return Resolution::Fetch(order);
        }
        let target = resource_path(group, speculative, plural);
        match lists.remove(&target) {
            // Not at the preferred version: maybe at another one, as kubectl would find.
            Some(Ok(Listed::Status(r))) if r.status == 404 => {
                Resolution::Fetch(order[1..].to_vec())
            }
            Some(answer) => Resolution::Done(listed(&target, answer)),
            None => Resolution::Fetch(order),
        }
    }

    /// Second round for one type: the first version (in preference order) whose resource
    /// list names the type, then its list. The preferred version is fetched directly.
    fn fetch_resource(
        &self,
        kubectl: &Kubectl,
        proxy: &ApiProxy,
        t: &str,
        versions: &[String],
        uses: &BTreeSet<FieldUse>,
    ) -> Read<Vec<CustomObject>> {
        let Some((plural, group)) = split_type(t) else {
            return Err(no_such_type(t));
        };
        let preferred = match &self.groups {
            Some(Ok(groups)) => groups
                .iter()
                .find(|g| g.name == group)
                .map(|g| g.preferred.clone()),
            _ => None,
        };
        for version in versions {
            if Some(version) != preferred.as_ref() {
                let list_target = format!("/apis/{group}/{version}");
                let served = fetch(kubectl, proxy, &list_target);
                let text = text_of(&list_target, &served)?;
                let list: RawResourceList =
                    serde_json::from_str(&text).map_err(|e| bad_discovery(&list_target, e))?;
                if !list.resources.iter().any(|r| r.name == plural) {
                    continue;
                }
            }
            let target = resource_path(group, version, plural);
            let answer = fetch_list(kubectl, proxy, &target, uses);
            match &answer {
                Ok(Listed::Status(r)) if r.status == 404 && Some(version) == preferred.as_ref() => {
                    continue
                }
                _ => return listed(&target, answer),
            }
        }
        Err(no_such_type(plural))
    }
}

/// kubectl's words when discovery does not list the type.
fn no_such_type(plural: &str) -> ReadFailure {
    ReadFailure::new(
        FailureKind::NotFound,
        format!("error: the server doesn't have a resource type \"{plural}\""),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ok(body: &str) -> Answer {
        Ok(Response {
            status: 200,
            body: body.as_bytes().to_vec(),
        })
    }

    fn status(code: u16, body: &str) -> Answer {
        Ok(Response {
            status: code,
            body: body.as_bytes().to_vec(),
        })
    }

    const APIS: &str = r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[
        {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
        {"name":"ceph.rook.io","versions":[{"groupVersion":"ceph.rook.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"ceph.rook.io/v1","version":"v1"}},
        {"name":"cert-manager.io","versions":[{"groupVersion":"cert-manager.io/v2","version":"v2"},{"groupVersion":"cert-manager.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"cert-manager.io/v2","version":"v2"}}]}"#;

    fn answers(extra: Vec<(&str, Answer)>) -> BTreeMap<String, Answer> {
        let mut m: BTreeMap<String, Answer> = [
            (
                "/api".to_string(),
                ok(r#"{"kind":"APIVersions","versions":["v1"]}"#),
            ),
            ("/apis".to_string(), ok(APIS)),
        ]
        .into_iter()
        .collect();
        m.extend(extra.into_iter().map(|(k, v)| (k.to_string(), v)));
        m
    }

    #[test]
    fn the_proxy_accepts_exactly_the_paths_of_the_batch() {
        let requests = vec![
            ReadRequest::Nodes,
            ReadRequest::ApiGroups,
            ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
        ];
        let accept = accept_paths(&requests, &Scope::default());
        assert_eq!(
            accept,
            [
                "^/api$",
                "^/api/v1/nodes$",
                "^/apis$",
                "^/apis/ceph\\.rook\\.io/[a-z0-9]+$",
                "^/apis/ceph\\.rook\\.io/[a-z0-9]+/cephclusters$",
                "^/apis/ceph\\.rook\\.io/v1/cephclusters$",
            ]
        );
        // Every path the batch can GET is accepted by the allowlist's own check.
        let value = accept.join(",");
        assert_eq!(
            crate::read::exec::allowlist::accept_paths_ok(&value),
            Ok(())
        );
    }

    #[test]
    fn first_round_asks_discovery_lists_and_speculative_resources_at_once() {
        let requests = vec![
            ReadRequest::Nodes,
            ReadRequest::ApiGroups,
            ReadRequest::Namespaces,
            ReadRequest::StorageClasses,
            ReadRequest::DaemonSets,
            ReadRequest::Deployments,
            ReadRequest::Resource("cephclusters.ceph.rook.io".to_string()),
        ];
        let scope = Scope {
            workload_namespaces: [(
                ReadRequest::Deployments,
                ["registry", "cert-manager"]
                    .map(String::from)
                    .into_iter()
                    .collect(),
            )]
            .into_iter()
            .collect(),
            ..Scope::default()
        };
        assert_eq!(
            first_round(&requests, &scope),
            [
                "/api",
                "/api/v1/namespaces",
                "/api/v1/nodes",
                "/apis",
                "/apis/apps/v1/daemonsets",
                "/apis/apps/v1/namespaces/cert-manager/deployments",
                "/apis/apps/v1/namespaces/registry/deployments",
                "/apis/ceph.rook.io/v1/cephclusters",
                "/apis/storage.k8s.io/v1/storageclasses",
            ]
        );
        // Custom resources alone still need the groups, not the core versions.
        assert_eq!(
            first_round(
                &[ReadRequest::Resource("clusters.postgresql.cnpg.io".into())],
                &Scope::default()
            ),
            ["/apis", "/apis/postgresql.cnpg.io/v1/clusters"]
        );
    }

    #[test]
    fn secrets_and_odd_names_never_become_paths() {
        assert_eq!(split_type("secrets.core"), None);
        assert_eq!(split_type("x.../../secrets"), None);
        assert_eq!(split_type("a.b/c"), None);
        assert_eq!(
            split_type("cephclusters.ceph.rook.io"),
            Some(("cephclusters", "ceph.rook.io"))
        );
        assert_eq!(
            workload_path(&ReadRequest::Deployments, Some("../x")),
            "/apis/apps/v1/deployments"
        );
    }

    #[test]
    fn api_versions_text_is_what_kubectl_prints() {
        let d = Discovery::from_answers(&answers(vec![]));
        assert_eq!(
            d.api_versions_text().unwrap(),
            "apps/v1\nceph.rook.io/v1\ncert-manager.io/v1\ncert-manager.io/v2\nv1\n"
        );
        let groups =
            crate::model::observation::parse_api_versions(&d.api_versions_text().unwrap()).unwrap();
        assert!(groups.contains("") && groups.contains("ceph.rook.io"));
        let forbidden = answers(vec![(
            "/apis",
            status(
                403,
                r#"{"kind":"Status","reason":"Forbidden","message":"forbidden: User \"x\" cannot get path \"/apis\"","code":403}"#,
            ),
        )]);
        let f = Discovery::from_answers(&forbidden)
            .api_versions_text()
            .unwrap_err();
        assert_eq!(f.kind, FailureKind::Forbidden);
    }

    /// The custom resource answers of `a` as the streamed reads give them.
    fn lists(a: &BTreeMap<String, Answer>) -> BTreeMap<String, ListAnswer> {
        a.iter()
            .filter(|(k, _)| k.matches('/').count() >= 4)
            .map(|(k, v)| {
                let l = match v {
                    Ok(r) if r.ok() => Ok(Listed::Objects(
                        crate::model::observation::parse_custom_objects(
                            &r.body_text(),
                            &BTreeSet::new(),
                        )
                        .map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.message)),
                    )),
                    Ok(r) => Ok(Listed::Status(r.clone())),
                    Err(HttpError::TimedOut(d)) => Err(HttpError::TimedOut(*d)),
                    Err(e) => Err(HttpError::Malformed(e.to_string())),
                };
                (k.clone(), l)
            })
            .collect()
    }

    #[test]
    fn resources_are_settled_by_discovery() {
        let list = r#"{"kind":"CephClusterList","items":[]}"#;
        let a = answers(vec![
            ("/apis/ceph.rook.io/v1/cephclusters", ok(list)),
            (
                "/apis/ceph.rook.io/v1/nope",
                status(404, "404 page not found"),
            ),
            (
                "/apis/gone.example.com/v1/things",
                status(
                    403,
                    r#"{"kind":"Status","reason":"Forbidden","message":"no","code":403}"#,
                ),
            ),
            ("/apis/cert-manager.io/v1/certificates", ok(list)),
        ]);
        let d = Discovery::from_answers(&a);
        assert!(
            matches!(d.resolve("cephclusters.ceph.rook.io", &mut lists(&a)), Resolution::Done(Ok(t)) if t.is_empty())
        );
        // Group not served: absent cleanly, whatever the speculative GET said.
        match d.resolve("things.gone.example.com", &mut lists(&a)) {
            Resolution::Done(Err(f)) => {
                assert_eq!(f.kind, FailureKind::NotFound);
                assert_eq!(
                    f.message,
                    "error: the server doesn't have a resource type \"things\""
                );
            }
            _ => panic!("not settled"),
        }
        // Another preferred version: fetched again there (then the others).
        assert!(matches!(
            d.resolve("certificates.cert-manager.io", &mut lists(&a)),
            Resolution::Fetch(v) if v == ["v2", "v1"]
        ));
        // Group served, type not at v1: the other versions are looked at (none here).
        assert!(
            matches!(d.resolve("nope.ceph.rook.io", &mut lists(&a)), Resolution::Fetch(v) if v.is_empty())
        );
        // A failed discovery fails every custom resource read the same way.
        let broken = answers(vec![(
            "/apis",
            Err(HttpError::TimedOut(std::time::Duration::from_secs(1))),
        )]);
        let d = Discovery::from_answers(&broken);
        assert!(matches!(
            d.resolve("cephclusters.ceph.rook.io", &mut lists(&broken)),
            Resolution::Done(Err(f)) if f.kind == FailureKind::Timeout
        ));
    }

    #[test]
    fn a_403_on_a_served_group_stays_forbidden() {
        let a = answers(vec![(
            "/apis/ceph.rook.io/v1/cephclusters",
            status(
                403,
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"cephclusters.ceph.rook.io is forbidden: User \"nestor\" cannot list resource \"cephclusters\" in API group \"ceph.rook.io\" at the cluster scope","reason":"Forbidden","details":{"group":"ceph.rook.io","kind":"cephclusters"},"code":403}"#,
            ),
        )]);
        let d = Discovery::from_answers(&a);
        match d.resolve("cephclusters.ceph.rook.io", &mut lists(&a)) {
            Resolution::Done(Err(f)) => {
                assert_eq!(f.kind, FailureKind::Forbidden);
                assert_eq!(f.message, "Error from server (Forbidden): cephclusters.ceph.rook.io is forbidden: User \"nestor\" cannot list resource \"cephclusters\" in API group \"ceph.rook.io\" at the cluster scope");
            }
            _ => panic!("not settled"),
        }
    }

    #[test]
    fn statuses_map_to_the_kinds_kubectl_messages_gave() {
        let st = |code: u16, reason: &str, msg: &str| {
            format!(
                r#"{{"kind":"Status","apiVersion":"v1","status":"Failure","message":"{msg}","reason":"{reason}","code":{code}}}"#
            )
        };
        let cases = [
            (
                401,
                st(401, "Unauthorized", "Unauthorized"),
                FailureKind::Unauthorized,
                "error: You must be logged in to the server (Unauthorized)",
            ),
            (
                403,
                st(403, "Forbidden", "nodes is forbidden"),
                FailureKind::Forbidden,
                "Error from server (Forbidden): nodes is forbidden",
            ),
            (
                404,
                st(404, "NotFound", "namespaces \\\"x\\\" not found"),
                FailureKind::NotFound,
                "Error from server (NotFound): namespaces \"x\" not found",
            ),
            (
                404,
                "404 page not found".to_string(),
                FailureKind::NotFound,
                "Error from server (NotFound): the server could not find the requested resource",
            ),
            (
                500,
                st(500, "InternalError", "Internal error occurred: boom"),
                FailureKind::ApiError,
                "Error from server (InternalError): Internal error occurred: boom",
            ),
            (
                503,
                st(503, "ServiceUnavailable", "try later"),
                FailureKind::ApiError,
                "Error from server (ServiceUnavailable): try later",
            ),
            (
                504,
                st(504, "Timeout", "took too long"),
                FailureKind::Timeout,
                "Error from server (Timeout): took too long",
            ),
            (
                429,
                st(429, "", "slow down"),
                FailureKind::ApiError,
                "Error from server (TooManyRequests): slow down",
            ),
        ];
        for (code, body, kind, message) in cases {
            let f = status_failure(code, &body);
            assert_eq!(
                (f.kind, f.message.as_str()),
                (kind, message),
                "{code} {body}"
            );
        }
    }

    #[test]
    fn proxy_transport_errors_are_unreachable_tls_or_timeout() {
        let f = status_failure(500, "dial tcp 127.0.0.1:1: connect: connection refused\n");
        assert_eq!(f.kind, FailureKind::Unreachable);
        assert!(
            f.message
                .contains("The connection to the server 127.0.0.1:1 was refused"),
            "{}",
            f.message
        );
        let f = status_failure(
            500,
            "tls: failed to verify certificate: x509: certificate signed by unknown authority",
        );
        assert_eq!(f.kind, FailureKind::Tls);
        assert!(f
            .message
            .starts_with("Unable to connect to the server: tls: failed"));
        let f = status_failure(502, "dial tcp 10.0.0.1:6443: i/o timeout");
        assert_eq!(f.kind, FailureKind::Timeout);
        let f = status_failure(500, "something odd");
        assert_eq!(f.kind, FailureKind::ApiError);
        assert!(f.message.contains("\"something odd\""), "{}", f.message);
        let t = transport_failure(
            "/api/v1/nodes",
            &HttpError::TimedOut(std::time::Duration::from_secs(1)),
        );
        assert_eq!(t.kind, FailureKind::Timeout);
        assert!(
            t.message
                .starts_with("GET /api/v1/nodes: no answer within 1.0s"),
            "{}",
            t.message
        );
        let c = transport_failure("/api", &HttpError::Malformed("x".into()));
        assert_eq!(c.kind, FailureKind::ApiError);
    }
}
