//! Reading the real state: runs the probes' reads and records each outcome in an
//! [`Observation`]. A failed read is data (its `ReadFailure`), never an abort; only a missing
//! tool, a refused argv or a proxy that cannot start stops the run, because those are bugs or
//! setup errors, not facts about the cluster.
//!
//! Two read paths, chosen from measurements (docs/read-path.md, "Performance"), never one
//! silently for the other (issue 21): `-v` says which one read.
//! - **proxy** (the default, the only one for a real cluster): one `kubectl proxy` in its
//!   restricted form for the whole batch and every read as a parallel GET over its unix
//!   socket ([`crate::read::apiread`]): no redirect followed, statuses and bodies seen as the
//!   server sent them. A proxy that cannot start is an error, never a reason to read
//!   another way.
//! - **processes**: one `kubectl get ... -o json` per read, all in parallel threads, only when
//!   `NESTOR_READ_PATH=processes` asks for it (the stub-kubectl tests of tests/cli). kubectl's
//!   own client follows redirects there, which nestor cannot turn off: see docs/read-path.md.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;

use crate::env::ReadPath;
use crate::error::{Error, Result};
use crate::model::observation::{
    is_unreachable, parse_limactl_list, FailureKind, LimaInstance, Observation, ReadFailure,
    ReadRequest, Scope,
};
use crate::read::exec::{ExecError, Failure, Runner, Tool};
use crate::read::kubectl::Kubectl;
use crate::read::proxy::{ApiProxy, StartError};

/// Reads batches of requests from one cluster, always by the one path it was made with.
pub struct Reader<'a> {
    kubectl: &'a Kubectl<'a>,
    path: ReadPath,
    /// Keep one proxy across batches (`wait` polls) instead of one per batch.
    keep: Cell<bool>,
    kept: RefCell<Option<ApiProxy>>,
    /// A proxy started before the reader existed (the session starts it while kubectl's
    /// `config view` runs), or why it could not start: the first batch uses it.
    early: RefCell<Option<Result<ApiProxy, StartError>>>,
}

impl<'a> Reader<'a> {
    pub fn new(kubectl: &'a Kubectl<'a>, path: ReadPath) -> Reader<'a> {
        Reader {
            kubectl,
            path,
            keep: Cell::new(false),
            kept: RefCell::new(None),
            early: RefCell::new(None),
        }
    }

    /// The first batch goes through `started`, the outcome of a proxy start made before this
    /// reader (only once kubectl's view agreed with the pre-check: SPEC §4, §11); a proxy
    /// that does not accept the batch's paths is stopped and another one started.
    pub fn with_early(self, started: Option<Result<ApiProxy, StartError>>) -> Reader<'a> {
        *self.early.borrow_mut() = started;
        self
    }

    /// A reader whose proxy serves every batch until the reader is dropped (`wait`: one
    /// proxy for the whole wait, one round trip per poll). A proxy that ended is restarted.
    pub fn keeping_proxy(kubectl: &'a Kubectl<'a>, path: ReadPath) -> Reader<'a> {
        Reader {
            keep: Cell::new(true),
            ..Reader::new(kubectl, path)
        }
    }

    /// Run every request (concurrently) and record the outcomes into `obs`. The proxy, if
    /// one is started, is stopped (and its directory removed) before this returns, unless
    /// the reader keeps it.
    pub fn read_into(
        &self,
        requests: &[ReadRequest],
        scope: &Scope,
        obs: &mut Observation,
    ) -> Result<()> {
        if requests.is_empty() {
            return Ok(());
        }
        // The "now" of the checks that judge an age: when the cluster was read.
        obs.observed_at = Some(crate::clock::now_secs());
        for (t, uses) in &scope.keep {
            obs.keep
                .entry(t.clone())
                .or_default()
                .extend(uses.iter().cloned());
        }
        if self.path == ReadPath::Processes {
            self.kubectl
                .runner()
                .trace("read path: processes (NESTOR_READ_PATH=processes: one kubectl per read)");
            return read_with_processes(self.kubectl, requests, scope, obs);
        }
        self.kubectl
            .runner()
            .trace("read path: proxy (one kubectl proxy on a private unix socket)");
        // The proxy accepts exactly the paths of the batch it serves (SPEC §9).
        let accept = crate::read::apiread::accept_paths(requests, scope);
        let mut kept = self.kept.borrow_mut();
        let early = self.early.borrow_mut().take();
        match early {
            None => {}
            Some(Ok(proxy)) => *kept = Some(proxy),
            Some(Err(e)) => return self.failed_start(e, requests, obs),
        }
        if let Some(proxy) = kept.as_mut() {
            if !proxy.alive() {
                self.kubectl.runner().trace(&format!(
                    "proxy: pid {} ended; starting another",
                    proxy.pid()
                ));
                *kept = None;
            } else if !proxy.accepts(&accept) {
                self.kubectl.runner().trace(&format!(
                    "proxy: pid {} does not accept this batch's paths; starting another",
                    proxy.pid()
                ));
                *kept = None;
            }
        }
        let runner = self.kubectl.runner();
        let proxy = match kept.take() {
            Some(p) => p,
            None => {
                let began = crate::usage::since_start();
                let started = ApiProxy::start(self.kubectl, &accept);
                runner.step("proxy start (until its socket accepts)", began);
                match started {
                    Ok(p) => p,
                    Err(e) => return self.failed_start(e, requests, obs),
                }
            }
        };
        let began = crate::usage::since_start();
        crate::read::apiread::read_into(self.kubectl, &proxy, requests, scope, obs);
        runner.step(
            &format!("reads ({} through the proxy)", requests.len()),
            began,
        );
        if self.keep.get() {
            *kept = Some(proxy);
        }
        Ok(())
    }

    /// Read `requests`, then the second round `second` asks for once it has seen them (the
    /// pods of workloads that are not rolled out, SPEC §6 v0.3), through the same proxy
    /// when it accepts them: one kubectl process for both rounds.
    pub fn read_rounds(
        &self,
        requests: &[ReadRequest],
        scope: &Scope,
        obs: &mut Observation,
        second: &dyn Fn(&Observation) -> Vec<ReadRequest>,
    ) -> Result<()> {
        let kept_before = self.keep.replace(true);
        let outcome = self
            .read_into(requests, scope, obs)
            .and_then(|()| self.read_into(&second(obs), scope, obs));
        self.keep.set(kept_before);
        if !kept_before {
            // Stopped (and its directory removed) before this returns, as read_into's is.
            drop(self.kept.borrow_mut().take());
        }
        outcome
    }

    /// A proxy that could not start: an error (nothing is read another way: the one other
    /// path follows redirects), or every read of the batch timed out.
    fn failed_start(
        &self,
        error: StartError,
        requests: &[ReadRequest],
        obs: &mut Observation,
    ) -> Result<()> {
        match error {
            StartError::Fatal(e) => Err(e.into_error()),
            StartError::Unavailable(detail) => {
                self.kubectl
                    .runner()
                    .trace(&format!("proxy: unavailable ({detail}); nothing read"));
                Err(Error::input(
                    format!(
                        "kubectl cannot serve nestor's read proxy, so nothing was read: {}",
                        crate::error::one_line(&detail)
                    ),
                    "nestor reads a cluster only through `kubectl proxy` on a private unix socket (no redirect followed): make TMPDIR an existing directory you can write (or unset it), and point NESTOR_KUBECTL (or PATH) at a real kubectl",
                ))
            }
            StartError::TimedOut { detail, .. } => {
                // Reading another way would only wait as long again: every read timed out.
                let failure = ReadFailure::new(FailureKind::Timeout, detail);
                for request in requests {
                    obs.record(request, Err(failure.clone()));
                }
                Ok(())
            }
        }
    }
}

/// The reads of `requests` not already present in `done` (no read is repeated in a run).
pub fn remaining(requests: &[ReadRequest], done: &BTreeSet<ReadRequest>) -> Vec<ReadRequest> {
    requests
        .iter()
        .filter(|r| !done.contains(r))
        .cloned()
        .collect()
}

/// The processes path: one kubectl per request (per namespace for a workload read the
/// scope limits to the checks' namespaces, as the proxy path reads it), all concurrently;
/// outcomes into `obs`.
pub fn read_with_processes(
    kubectl: &Kubectl,
    requests: &[ReadRequest],
    scope: &Scope,
    obs: &mut Observation,
) -> Result<()> {
    type Outcome = Result<std::result::Result<String, ReadFailure>>;
    // One entry per request: its namespaces (None: one whole read) and their outcomes.
    let outcomes: Vec<(ReadRequest, Option<Vec<String>>, Vec<Outcome>)> =
        std::thread::scope(|threads| {
            let handles: Vec<_> = requests
                .iter()
                .map(|request| {
                    let namespaces = workload_namespaces(request, scope);
                    let argvs: Vec<Vec<String>> = match &namespaces {
                        Some(list) => list.iter().map(|ns| namespaced_args(request, ns)).collect(),
                        None => vec![crate::read::apiread::kubectl_args(request)],
                    };
                    let handles: Vec<_> = argvs
                        .into_iter()
                        .map(|args| {
                            threads.spawn(move || {
                                let rest: Vec<&str> = args.iter().map(String::as_str).collect();
                                outcome(kubectl.run(&rest))
                            })
                        })
                        .collect();
                    (request.clone(), namespaces, handles)
                })
                .collect();
            handles
                .into_iter()
                .map(|(request, namespaces, handles)| {
                    let results = handles
                        .into_iter()
                        .map(|h| {
                            h.join()
                                .unwrap_or_else(|_| Err(Error::internal("a read thread panicked")))
                        })
                        .collect();
                    (request, namespaces, results)
                })
                .collect()
        });
    for (request, namespaces, results) in outcomes {
        let results = results.into_iter().collect::<Result<Vec<_>>>()?;
        match namespaces {
            Some(list) => {
                let set: BTreeSet<String> = list.into_iter().collect();
                let parts = results
                    .iter()
                    .map(|r| r.as_deref().map_err(Clone::clone))
                    .collect();
                obs.record_parts(&request, &set, parts);
            }
            None => {
                let first = results.into_iter().next().unwrap_or_else(|| {
                    Err(ReadFailure::new(FailureKind::ApiError, "nothing was read"))
                });
                obs.record(&request, first.as_deref().map_err(Clone::clone));
            }
        }
    }
    Ok(())
}

/// The namespaces a workload read is limited to, in order (None: not a workload read, or
/// not limited).
fn workload_namespaces(request: &ReadRequest, scope: &Scope) -> Option<Vec<String>> {
    match request {
        ReadRequest::DaemonSets | ReadRequest::Deployments | ReadRequest::StatefulSets => scope
            .workload_namespaces
            .get(request)
            .map(|set| set.iter().cloned().collect()),
        ReadRequest::Nodes
        | ReadRequest::ApiGroups
        | ReadRequest::Namespaces
        | ReadRequest::StorageClasses
        | ReadRequest::ApiServerPods
        | ReadRequest::Resource(_)
        | ReadRequest::ConfigMap { .. }
        | ReadRequest::Pods { .. }
        | ReadRequest::ContainerStarts { .. } => None,
    }
}

/// `get KIND -n NS -o json` for a workload read in one namespace.
fn namespaced_args(request: &ReadRequest, namespace: &str) -> Vec<String> {
    ["get", request.label(), "-n", namespace, "-o", "json"]
        .map(String::from)
        .to_vec()
}

/// Turn one kubectl run into a read outcome, or a run-stopping error.
fn outcome(
    result: std::result::Result<crate::read::exec::Output, ExecError>,
) -> Result<std::result::Result<String, ReadFailure>> {
    match result {
        Ok(out) => Ok(Ok(out.stdout_text())),
        Err(e) => match &e.failure {
            Failure::Exit { stderr, .. } => Ok(Err(ReadFailure::from_kubectl_stderr(stderr))),
            Failure::TimedOut { after, .. } => Ok(Err(ReadFailure::new(
                FailureKind::Timeout,
                format!("kubectl killed after {:.1}s", after.as_secs_f64()),
            ))),
            Failure::Signaled { signal, .. } => Ok(Err(ReadFailure::new(
                FailureKind::ApiError,
                format!("kubectl killed by signal {signal}"),
            ))),
            Failure::TooLarge { limit } => Ok(Err(ReadFailure::new(
                FailureKind::ApiError,
                format!(
                    "kubectl printed more than {} MiB and was killed: nothing of it was used",
                    limit >> 20
                ),
            ))),
            Failure::Refused { .. } | Failure::Missing { .. } | Failure::Spawn { .. } => {
                Err(e.into_error())
            }
        },
    }
}

/// The cluster-level error (exit 4) when the nodes read shows the API server unreachable.
pub fn unreachable_error(obs: &Observation, server: &str) -> Option<Error> {
    let failure = obs.nodes.as_ref().err().filter(|f| is_unreachable(f))?;
    // "unreachable (Unreachable)" said nothing twice: only a more precise cause is named.
    let cause = match failure.kind {
        FailureKind::Timeout => " (timed out)",
        FailureKind::Tls => " (TLS failure)",
        FailureKind::Unauthorized => " (credentials refused)",
        _ => "",
    };
    Some(Error::unreachable(
        format!(
            "cluster {server} unreachable{cause}: {}",
            crate::error::one_line(&failure.message)
        ),
        crate::model::observation::UNREACHABLE_HINT,
    ))
}

/// `limactl list --json`, parsed. A failure is an error: VMs must never be planned from a
/// failed read.
pub fn lima_instances(runner: &Runner) -> Result<Vec<LimaInstance>> {
    let out = runner
        .run(Tool::Limactl, &["list".to_string(), "--json".to_string()])
        .map_err(|e| e.into_error())?;
    parse_limactl_list(&out.stdout_text())
}
