//! The built-in reads of a batch (nodes, namespaces, storage classes, workloads, the
//! kube-apiserver pods, named ConfigMaps, pod lists), each decoded on the thread that reads
//! it while its body arrives (SPEC §9 "Bounded per run"): the answer's text is never held,
//! only what the checks use ([`Decoder::decode`]), charged to the batch's [`Budget`]. A
//! non-2xx answer is read (its first 64 KiB) as the Status that says why; a body cut short,
//! timed out or over the streamed cap is the transport failure it was, never a malformed list.

use std::collections::BTreeMap;
use std::io::{self, BufReader, Read};
use std::time::Instant;

use super::paths::{builtin_path, workload_path};
use super::status::{status_failure, transport_failure};
use crate::model::observation::Scope;
use crate::model::observation::{Decoded, Decoder, FailureKind, ReadFailure, ReadRequest};
use crate::pool::Budget;
use crate::read::http::HttpError;
use crate::read::kubectl::Kubectl;
use crate::read::proxy::ApiProxy;

/// The built-in reads of the first round by GET target (a pod list two reads share is one
/// target).
pub(super) type Builtin<'r> = BTreeMap<String, Vec<&'r ReadRequest>>;

pub(super) fn builtin_targets<'r>(requests: &'r [ReadRequest], scope: &Scope) -> Builtin<'r> {
    let mut out: Builtin<'r> = BTreeMap::new();
    for request in requests {
        let targets = match request {
            ReadRequest::ApiGroups | ReadRequest::Resource(_) => Vec::new(),
            ReadRequest::Workloads(kind) => match scope.workload_namespaces.get(request) {
                Some(namespaces) => namespaces
                    .iter()
                    .map(|ns| workload_path(*kind, Some(ns)))
                    .collect(),
                None => vec![workload_path(*kind, None)],
            },
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
            | ReadRequest::Events { .. }) => builtin_path(other).into_iter().collect(),
        };
        for t in targets {
            out.entry(t).or_default().push(request);
        }
    }
    out
}

/// Every decoded answer of the first round, by target, in the order of its requests.
pub(super) type DecodedAnswers = BTreeMap<String, Vec<Decoded>>;

/// The decoded answer of `target` for `request` (the first of that target's answers left),
/// or the failed read "not sent".
pub(super) fn take(
    decoded: &mut DecodedAnswers,
    target: &str,
    request: &ReadRequest,
    decoder: &Decoder,
    budget: &crate::pool::Budget,
) -> Option<Decoded> {
    match decoded.get_mut(target).filter(|d| !d.is_empty()) {
        Some(d) => Some(d.remove(0)),
        None => decoder.decode(request, Err::<&[u8], _>(not_sent(target)), budget),
    }
}

pub(super) fn not_sent(target: &str) -> ReadFailure {
    ReadFailure::new(FailureKind::ApiError, format!("GET {target} was not sent"))
}

const JSON: &str = "application/json";

/// A non-2xx answer's body is read up to this (a Status document, or the proxy's text).
const STATUS_BYTES: u64 = 64 * 1024;

/// A reader that remembers the first I/O error it passed on (the decoder only sees serde's).
struct Watched<R> {
    inner: R,
    error: Option<io::Error>,
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).inspect_err(|e| {
            self.error
                .get_or_insert_with(|| io::Error::new(e.kind(), e.to_string()));
        })
    }
}

/// Why a body could not be read to its end, if it could not: over the cap, past the
/// deadline, cut short, or the connection lost.
// std::io::ErrorKind is #[non_exhaustive]: every other I/O error is an I/O failure.
#[allow(clippy::wildcard_enum_match_arm)]
pub(super) fn body_failure(
    target: &str,
    over_cap: bool,
    error: Option<io::Error>,
    started: Instant,
) -> Option<ReadFailure> {
    if over_cap {
        return Some(ReadFailure::new(
            FailureKind::ApiError,
            format!(
                "GET {target}: answer over {} MiB: not read (nestor bounds what it reads)",
                crate::read::stream::MAX_STREAMED_BYTES >> 20
            ),
        ));
    }
    let e = error?;
    Some(transport_failure(
        target,
        &match e.kind() {
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => {
                HttpError::TimedOut(started.elapsed())
            }
            io::ErrorKind::InvalidData => HttpError::Malformed(e.to_string()),
            _ => HttpError::Io(e),
        },
    ))
}

/// GET `target` and decode its answer for every one of `requests` (the reads that share
/// that path: one, but for two reads of one pod list with different containers, whose
/// answer is then held once, charged to `budget`, and decoded for each).
pub(super) fn fetch_decoded(
    kubectl: &Kubectl,
    proxy: &ApiProxy,
    target: &str,
    requests: &[&ReadRequest],
    decoder: &Decoder,
    budget: &Budget,
) -> Vec<Decoded> {
    let started = Instant::now();
    let took = || started.elapsed().as_secs_f64();
    let trace = |what: String| kubectl.runner().trace(&format!("get: {target}: {what}"));
    let failed = |f: ReadFailure| -> Vec<Decoded> {
        requests
            .iter()
            .filter_map(|r| decoder.decode(r, Err::<&[u8], _>(f.clone()), budget))
            .collect()
    };
    let answer = match proxy.open(target, JSON) {
        Ok(a) => a,
        Err(e) => {
            trace(format!("{e} after {:.2}s", took()));
            return failed(transport_failure(target, &e));
        }
    };
    let status = answer.status;
    if !(200..300).contains(&status) {
        return match answer.body.text(STATUS_BYTES) {
            Ok(body) => {
                trace(format!("{status} ({} bytes) in {:.2}s", body.len(), took()));
                failed(status_failure(status, &body))
            }
            Err(e) => failed(transport_failure(target, &e)),
        };
    }
    let mut body = answer.body;
    let decoded: Vec<Decoded> = match requests {
        [one] => {
            let mut watched = Watched {
                inner: BufReader::new(&mut body),
                error: None,
            };
            let decoded = decoder.decode(one, Ok(&mut watched), budget);
            let error = watched.error;
            match body_failure(target, body.over_cap, error, started) {
                Some(f) => failed(f),
                None => decoded.into_iter().collect(),
            }
        }
        several => {
            let mut held = Vec::new();
            let read = body.read_to_end(&mut held);
            let error = read.err();
            if let Some(f) = body_failure(target, body.over_cap, error, started) {
                return failed(f);
            }
            if let Err(said) = budget.charge(held.len(), &format!("GET {target}")) {
                return failed(ReadFailure::new(FailureKind::BadOutput, said));
            }
            several
                .iter()
                .filter_map(|r| decoder.decode(r, Ok(held.as_slice()), budget))
                .collect()
        }
    };
    trace(format!(
        "{status} ({} bytes, decoded as they arrived) in {:.2}s",
        body.bytes_read(),
        took()
    ));
    decoded
}

/// GET `target` and decode its body with `decode` while it arrives (a gate's reads: SPEC §9
/// "Bounded per run"); the body is never held unless `decode` holds it. A non-2xx answer is
/// the failed read its Status says; a body over the streamed cap, timed out or cut short is
/// the transport failure it was; what `decode` refuses (a malformed list, a read over the
/// run's budget) is `BadOutput` with its message.
pub fn fetch_with<T>(
    kubectl: &Kubectl,
    proxy: &ApiProxy,
    target: &str,
    decode: impl FnOnce(&mut dyn Read) -> crate::error::Result<T>,
) -> Result<T, ReadFailure> {
    let started = Instant::now();
    let took = || started.elapsed().as_secs_f64();
    let trace = |what: String| kubectl.runner().trace(&format!("get: {target}: {what}"));
    let answer = match proxy.open(target, JSON) {
        Ok(a) => a,
        Err(e) => {
            trace(format!("{e} after {:.2}s", took()));
            return Err(transport_failure(target, &e));
        }
    };
    let status = answer.status;
    if !(200..300).contains(&status) {
        return match answer.body.text(STATUS_BYTES) {
            Ok(body) => {
                trace(format!("{status} ({} bytes) in {:.2}s", body.len(), took()));
                Err(status_failure(status, &body))
            }
            Err(e) => Err(transport_failure(target, &e)),
        };
    }
    let mut body = answer.body;
    let mut watched = Watched {
        inner: BufReader::new(&mut body),
        error: None,
    };
    let decoded = decode(&mut watched);
    let error = watched.error;
    if let Some(f) = body_failure(target, body.over_cap, error, started) {
        trace(format!("{} after {:.2}s", f.message, took()));
        return Err(f);
    }
    trace(format!(
        "{status} ({} bytes, decoded as they arrived) in {:.2}s",
        body.bytes_read(),
        took()
    ));
    decoded.map_err(|e| {
        // A budget refusal says the read and the budget, as preview's does; any other
        // refusal keeps its hint.
        if e.message.starts_with(crate::pool::OVER_BUDGET) {
            ReadFailure::new(FailureKind::BadOutput, e.message)
        } else {
            ReadFailure::new(FailureKind::BadOutput, e.to_string())
        }
    })
}
