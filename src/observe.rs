//! Reading the real state: runs the probes' reads through the process layer, concurrently
//! (std threads, one per read), and records each outcome in an [`Observation`]. A failed
//! read is data (its `ReadFailure`), never an abort; only a missing tool or a refused argv
//! stops the run, because those are bugs or setup errors, not facts about the cluster.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::exec::{ExecError, Failure, Runner, Tool};
use crate::kubectl::Kubectl;
use crate::probe::{
    parse_limactl_list, FailureKind, LimaInstance, Observation, ReadFailure, ReadRequest,
};

/// The reads of `requests` not already present in `done` (no read is repeated in a run).
pub fn remaining(requests: &[ReadRequest], done: &BTreeSet<ReadRequest>) -> Vec<ReadRequest> {
    requests
        .iter()
        .filter(|r| !done.contains(r))
        .cloned()
        .collect()
}

/// Run every request concurrently and record the outcomes into `obs`.
pub fn read_into(kubectl: &Kubectl, requests: &[ReadRequest], obs: &mut Observation) -> Result<()> {
    let outcomes: Vec<(
        ReadRequest,
        Result<std::result::Result<String, ReadFailure>>,
    )> = std::thread::scope(|scope| {
        let handles: Vec<_> = requests
            .iter()
            .map(|request| {
                let args = request.kubectl_args();
                let handle = scope.spawn(move || {
                    let rest: Vec<&str> = args.iter().map(String::as_str).collect();
                    outcome(kubectl.run(&rest))
                });
                (request.clone(), handle)
            })
            .collect();
        handles
            .into_iter()
            .map(|(request, handle)| {
                let result = handle
                    .join()
                    .unwrap_or_else(|_| Err(Error::internal("a read thread panicked")));
                (request, result)
            })
            .collect()
    });
    for (request, result) in outcomes {
        let outcome = result?;
        obs.record(&request, outcome.as_deref().map_err(Clone::clone));
    }
    Ok(())
}

/// Turn one kubectl run into a read outcome, or a run-stopping error.
fn outcome(
    result: std::result::Result<crate::exec::Output, ExecError>,
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
            Failure::Refused { .. } | Failure::Missing { .. } | Failure::Spawn { .. } => {
                Err(e.into_error())
            }
        },
    }
}

/// True when a failure means the API server itself could not be reached or refused us.
pub fn is_unreachable(f: &ReadFailure) -> bool {
    matches!(
        f.kind,
        FailureKind::Unreachable
            | FailureKind::Timeout
            | FailureKind::Tls
            | FailureKind::Unauthorized
    )
}

/// The cluster-level error (exit 4) when the nodes read shows the API server unreachable.
pub fn unreachable_error(obs: &Observation, server: &str) -> Option<Error> {
    let failure = obs.nodes.as_ref().err().filter(|f| is_unreachable(f))?;
    Some(Error::unreachable(
        format!(
            "cluster {server} unreachable ({}): {}",
            failure.kind,
            crate::error::one_line(&failure.message)
        ),
        crate::kubectl::UNREACHABLE_HINT,
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
