//! Reading the real state: runs the probes' reads and records each outcome in an
//! [`Observation`]. A failed read is data (its `ReadFailure`), never an abort; only a missing
//! tool, a refused argv or a proxy that cannot start stops the run, because those are bugs or
//! setup errors, not facts about the cluster.
//!
//! One read path (docs/read-path.md, "One path, no fallback"): one `kubectl proxy` in its
//! restricted form for the whole batch and every read as a parallel GET over its unix socket
//! ([`crate::read::apiread`]): no redirect followed, statuses and bodies seen as the server
//! sent them. A proxy that cannot start is an error, never a reason to read another way. (The
//! other path, one `kubectl get -o json` per read, was removed in issue 21: kubectl's own
//! client follows a redirect with the credentials and turns `"items": null` into `[]`.)

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::model::observation::{
    decode_limactl_list, is_unreachable, FailureKind, LimaInstance, Observation, ReadFailure,
    ReadRequest, Scope,
};
use crate::pool::Budget;
use crate::read::apiread;
use crate::read::exec::{Runner, Tool};
use crate::read::kubectl::Kubectl;
use crate::read::proxy::{ApiProxy, StartError};

/// A later read round: the reads it asks for once it has seen what the earlier ones read.
pub type Round<'f> = dyn Fn(&Observation) -> Vec<ReadRequest> + 'f;

/// Reads batches of requests from one cluster through a proxy.
pub struct Reader<'a> {
    kubectl: &'a Kubectl<'a>,
    /// Keep one proxy across batches (`wait` polls) instead of one per batch.
    keep: Cell<bool>,
    kept: RefCell<Option<ApiProxy>>,
    /// A proxy started before the reader existed (the session starts it while kubectl's
    /// `config view` runs), or why it could not start: the first batch uses it.
    early: RefCell<Option<Result<ApiProxy, StartError>>>,
    /// A proxy the caller owns and serves other reads through meanwhile (a gate's, started on
    /// its accept-paths, which include this reader's batches): used for every batch it
    /// accepts, never stopped here.
    lent: Option<(&'a ApiProxy, usize)>,
}

impl<'a> Reader<'a> {
    pub fn new(kubectl: &'a Kubectl<'a>) -> Reader<'a> {
        Reader {
            kubectl,
            keep: Cell::new(false),
            kept: RefCell::new(None),
            early: RefCell::new(None),
            lent: None,
        }
    }

    /// A reader whose batches go through `proxy` when it accepts them, at most `in_flight`
    /// GETs at once (a gate reads its own requests through the same proxy at the same time).
    pub fn lending(kubectl: &'a Kubectl<'a>, proxy: &'a ApiProxy, in_flight: usize) -> Reader<'a> {
        Reader {
            lent: Some((proxy, in_flight)),
            ..Reader::new(kubectl)
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
    pub fn keeping_proxy(kubectl: &'a Kubectl<'a>) -> Reader<'a> {
        Reader {
            keep: Cell::new(true),
            ..Reader::new(kubectl)
        }
    }

    /// Run every request (concurrently) and record the outcomes into `obs`: one round, and a
    /// second only for custom resources discovery says are served at another version. The
    /// proxy, if one is started, is stopped (and its directory removed) before this returns,
    /// unless the reader keeps it.
    pub fn read_into(
        &self,
        requests: &[ReadRequest],
        scope: &Scope,
        obs: &mut Observation,
    ) -> Result<()> {
        self.read_rounds(requests, scope, obs, &|_| Vec::new())
    }

    /// Read `requests` in one round of parallel GETs, then, in ONE second round, what `later`
    /// asks for once it has seen the first (the pods of workloads that are not rolled out,
    /// SPEC §6 v0.3; the EndpointSlices of webhooks that fail closed and a degraded layer's
    /// Warning Events, v0.4) beside the custom resources discovery says are served at another
    /// version (SPEC §11: one round, plus at most one for what the first names). One proxy
    /// serves both rounds, and one memory budget everything the run keeps. A second round
    /// asking for nothing sends nothing.
    pub fn read_rounds(
        &self,
        requests: &[ReadRequest],
        scope: &Scope,
        obs: &mut Observation,
        later: &Round,
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
        self.kubectl
            .runner()
            .trace("read path: proxy (one kubectl proxy on a private unix socket)");
        // The proxy accepts exactly the paths of the batch it serves (SPEC §9).
        let accept = crate::read::apiread::accept_paths(requests, scope);
        let budget = Budget::new(crate::pool::MEMORY_BUDGET);
        if let Some(via) = self.lent.filter(|(p, _)| p.accepts(&accept)) {
            self.kubectl
                .runner()
                .trace("read path: through the gate's proxy, beside the gate's own GETs");
            let refused = self.both_rounds(via, requests, scope, obs, later, &budget);
            return self.elsewhere(refused, scope, obs);
        }
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
        let via = (&proxy, crate::pool::API_READS_IN_FLIGHT);
        let refused = self.both_rounds(via, requests, scope, obs, later, &budget);
        if self.keep.get() {
            *kept = Some(proxy);
        }
        drop(kept);
        self.elsewhere(refused, scope, obs)
    }

    /// The second round's reads the run's proxy was not started for (`discover` reads
    /// workloads in every namespace, so a not-rolled-out workload's pods are in a namespace
    /// no accept-path named): read through a proxy started for them, one more round.
    fn elsewhere(
        &self,
        refused: Vec<ReadRequest>,
        scope: &Scope,
        obs: &mut Observation,
    ) -> Result<()> {
        if refused.is_empty() {
            return Ok(());
        }
        self.kubectl.runner().trace(&format!(
            "round 3: {} reads the proxy was not started for, through another",
            refused.len()
        ));
        let reader = Reader::new(self.kubectl);
        reader.read_into(&refused, scope, obs)
    }

    /// The first round of `requests` through `via`, then the second: what `later` names
    /// beside the first round's unsettled custom resources, at most `in_flight` GETs at once
    /// over both. Returns the reads of the second round the proxy does not accept.
    fn both_rounds(
        &self,
        (proxy, in_flight): (&ApiProxy, usize),
        requests: &[ReadRequest],
        scope: &Scope,
        obs: &mut Observation,
        later: &Round,
        budget: &Budget,
    ) -> Vec<ReadRequest> {
        let runner = self.kubectl.runner();
        let began = crate::usage::since_start();
        let via = (proxy, in_flight, 1);
        let unsettled = apiread::read_round(self.kubectl, via, requests, scope, obs, budget);
        runner.step(&format!("reads round 1 ({} reads)", requests.len()), began);
        let next: Vec<ReadRequest> = later(obs);
        if next.is_empty() && unsettled.is_empty() {
            budget_trace(self.kubectl, budget);
            return Vec::new();
        }
        let began = crate::usage::since_start();
        let (accepted, refused): (Vec<ReadRequest>, Vec<ReadRequest>) = next
            .into_iter()
            .partition(|r| proxy.accepts(&apiread::accept_paths(std::slice::from_ref(r), scope)));
        if !unsettled.is_empty() {
            runner.trace(&format!(
                "round 2: {} custom resources at the version discovery named, beside",
                unsettled.len()
            ));
        }
        // Both halves at once, the in-flight bound shared between them.
        let settling = unsettled.len().min(in_flight / 2).max(1);
        let rest = in_flight.saturating_sub(settling).max(1);
        let kubectl = self.kubectl;
        let (settled, ()) = crate::pool::beside(
            || {
                let mut got = Observation::skipped("not read");
                apiread::settle(kubectl, (proxy, settling), unsettled, &mut got, budget);
                got.resources
            },
            || {
                if !accepted.is_empty() {
                    let via = (proxy, rest, 2);
                    let left = apiread::read_round(kubectl, via, &accepted, scope, obs, budget);
                    // The second round names no custom resource: nothing is left to settle.
                    debug_assert!(left.is_empty());
                }
            },
        );
        match settled {
            Some(resources) => obs.resources.extend(resources),
            None => runner.trace("round 2: the settling thread panicked"),
        }
        runner.step(&format!("reads round 2 ({} reads)", accepted.len()), began);
        budget_trace(self.kubectl, budget);
        refused
    }

    /// A proxy that could not start: an error (nothing is read another way), or every read
    /// of the batch timed out.
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

/// The cluster-level error (exit 4) when the nodes read shows the API server unreachable.
pub fn unreachable_error(obs: &Observation, server: &str) -> Option<Error> {
    let failure = obs.nodes.as_ref().err().filter(|f| is_unreachable(f))?;
    // "unreachable (Unreachable)" said nothing twice: only a more precise cause is named.
    let cause = match failure.kind {
        FailureKind::Timeout => " (timed out)",
        FailureKind::Tls => " (TLS failure)",
        FailureKind::Unauthorized => " (credentials refused)",
        FailureKind::Forbidden
        | FailureKind::NotFound
        | FailureKind::Unreachable
        | FailureKind::ApiError
        | FailureKind::BadOutput
        | FailureKind::Skipped => "",
    };
    Some(Error::unreachable(
        format!(
            "cluster {server} unreachable{cause}: {}",
            crate::error::one_line(&failure.message)
        ),
        crate::model::observation::UNREACHABLE_HINT,
    ))
}

/// What the limactl listing may keep: an eighth of the run's budget, beside the cluster's
/// reads (the instances of the stack, and every name once).
pub const LIMA_BUDGET: usize = crate::pool::MEMORY_BUDGET / 8;

/// `limactl list --json`, decoded as it arrives into the instances `declared` names (issue
/// 49 item 9): never buffered, at most [`crate::read::stream::MAX_STREAMED_BYTES`] read,
/// what is kept charged to a budget of [`LIMA_BUDGET`]. A failure is an error: VMs must
/// never be planned from a failed read.
pub fn lima_instances(runner: &Runner, declared: &[String]) -> Result<Vec<LimaInstance>> {
    let declared = declared.to_vec();
    let decode = move |r: &mut dyn std::io::Read| {
        let budget = Budget::new(LIMA_BUDGET);
        let keep = |name: &str| declared.iter().any(|d| d == name);
        let kept = decode_limactl_list(r, &keep, &budget);
        (kept, budget.used())
    };
    let args = ["list".to_string(), "--json".to_string()];
    let cap = crate::read::stream::MAX_STREAMED_BYTES;
    let ((kept, used), _) = runner
        .run_reading(Tool::Limactl, &args, cap, decode)
        .map_err(|e| e.into_error())?;
    runner.trace(&format!(
        "limactl list: {:.1} MiB of {} MiB kept (decoded as it arrived)",
        used as f64 / f64::from(1 << 20),
        LIMA_BUDGET >> 20
    ));
    kept
}

/// `-v`: what the run's reads kept of its memory budget.
fn budget_trace(kubectl: &Kubectl, budget: &Budget) {
    kubectl.runner().trace(&format!(
        "memory budget: {:.1} MiB of {} MiB kept from this run's answers",
        budget.used() as f64 / f64::from(1 << 20),
        crate::pool::MEMORY_BUDGET >> 20
    ));
}
