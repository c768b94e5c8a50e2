//! Running the host checks: one ssh per check, at most [`crate::pool::SSH_IN_FLIGHT`] at once
//! for the whole inventory and at most [`MAX_SSH_PER_HOST`] checks of one host at a time
//! (`schedule`); ssh's exit status, stdout and stderr turned into facts or failed reads (see
//! the parent module and docs/host-checks.md).

use std::collections::BTreeSet;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{check_argv, HostJob, HostPlan, SSH_FAILED};
use crate::model::catalog::{HostCheck, HostProbe};
use crate::model::observation::host::{
    self, classify_command_failure, summary, HostFact, HostObservation, HostReading, NewestFile,
    MAX_HOST_OUTPUT,
};
use crate::model::observation::{FailureKind, ReadFailure};
use crate::read::exec::{ExecError, Failure, Runner, Tool};

/// Read every host of the plan, hosts side by side within the run's ssh bound; each ssh is
/// bounded by the runner's timeout.
pub(crate) fn read(runner: &Runner, plan: &HostPlan) -> HostObservation {
    let mut obs = HostObservation {
        groups: plan.groups.clone(),
        ..HostObservation::default()
    };
    let runs = run_checks(runner, &plan.jobs);
    let results = plan
        .jobs
        .iter()
        .zip(runs)
        .map(|(job, runs)| (job.name.clone(), reading(job, runs)));
    obs.hosts.extend(results);
    obs
}

fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// What one check's ssh brought back when the remote command ran: its exit status, its
/// stdout, and stderr (the command's and ssh's, redacted). The process layer keeps stdout only
/// for status 0; a failed command is read from its status and stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteRun {
    pub status: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

/// One host's checks, each its own ssh, into its reading. When no check reached the host
/// (every ssh failed: unreachable, refused, host key, timed out), the host is unread, with
/// the first check's reason; otherwise each check has its own result.
fn reading(job: &HostJob, runs: Vec<Run>) -> std::result::Result<HostReading, ReadFailure> {
    if let Some(Err(first)) = runs.first() {
        if runs.iter().all(|r| r.is_err()) {
            return Err(first.clone());
        }
    }
    let now = now_secs();
    let mut reading = HostReading::default();
    for (check, run) in job.checks.iter().zip(runs) {
        let fact = run.and_then(|r| interpret(&check.probe, &r, now));
        reading.checks.insert(check.key(), fact);
    }
    Ok(reading)
}

/// What one check's ssh gave.
type Run = std::result::Result<RemoteRun, ReadFailure>;

/// The checks of every job (`schedule::run_all`: the run's ssh bound and the host's), results
/// by job in check order. Once an ssh finds a host unreachable, refusing or out of time, that
/// host's checks not yet started get that failure instead of waiting out another timeout.
fn run_checks(runner: &Runner, jobs: &[HostJob]) -> Vec<Vec<Run>> {
    let counts: Vec<usize> = jobs.iter().map(|j| j.checks.len()).collect();
    super::schedule::run_ssh(&counts, |h, c| {
        let Some(job) = jobs.get(h) else {
            return Err(ReadFailure::new(FailureKind::ApiError, "no such host job"));
        };
        let Some(check) = job.checks.get(c) else {
            return Err(ReadFailure::new(FailureKind::ApiError, "no such check"));
        };
        run_check(runner, job, check)
    })
}

/// One check's ssh: `Ok` when the remote command ran, whatever its status; `Err` when ssh
/// itself failed (exit 255, killed at the deadline, refused by the allowlist, not found).
fn run_check(
    runner: &Runner,
    job: &HostJob,
    check: &HostCheck,
) -> std::result::Result<RemoteRun, ReadFailure> {
    let Some(argv) = check_argv(job, check) else {
        return Err(ReadFailure::new(
            FailureKind::ApiError,
            format!("`{check}` is read through its parts, never as one command"),
        ));
    };
    // Cut at the bound the evidence states while it is read (four hosts printing 40 MB each
    // were 700-850 MiB when buffered to the process layer's own cap first).
    run_remote(
        runner,
        &argv,
        MAX_HOST_OUTPUT as u64,
        &job.destination,
        |limit| {
            format!(
            "the command printed more than the {} MiB nestor reads: cut there while it was read, nothing of it used",
            limit >> 20
        )
        },
    )
}

/// The one ssh of every host read (preview's checks, the gates' probes): `argv` run with
/// its output cut at `cap` while it is read. `Ok` when the remote command ran, whatever its
/// status; `Err` when ssh itself failed (exit 255, killed at the deadline, refused by the
/// allowlist, not found) or the output passed `cap` (`too_large` says so).
pub(crate) fn run_remote(
    runner: &Runner,
    argv: &[String],
    cap: u64,
    destination: &str,
    too_large: impl FnOnce(u64) -> String,
) -> std::result::Result<RemoteRun, ReadFailure> {
    match runner.run_capped(Tool::Ssh, argv, cap) {
        Ok(out) => Ok(RemoteRun {
            status: 0,
            stdout: out.stdout,
            stderr: out.stderr,
        }),
        Err(ExecError {
            failure: Failure::Exit { code, stderr },
            ..
        }) if code != SSH_FAILED => Ok(RemoteRun {
            status: code,
            stdout: Vec::new(),
            stderr,
        }),
        Err(ExecError {
            failure: Failure::TooLarge { limit },
            ..
        }) => Err(ReadFailure::new(FailureKind::BadOutput, too_large(limit))),
        Err(e) => Err(ssh_failure(e, destination)),
    }
}

/// One check's command result → its fact, or why it failed. Pure: `now` is the moment the
/// output arrived (seconds since the epoch).
pub fn interpret(
    probe: &HostProbe,
    run: &RemoteRun,
    now: f64,
) -> std::result::Result<HostFact, ReadFailure> {
    for (what, len) in [("stdout", run.stdout.len()), ("stderr", run.stderr.len())] {
        if len > MAX_HOST_OUTPUT {
            return Err(ReadFailure::new(
                FailureKind::BadOutput,
                format!(
                    "the command printed {len} bytes on {what}, over the {} MiB nestor reads",
                    MAX_HOST_OUTPUT >> 20
                ),
            ));
        }
    }
    let stderr = run.stderr.as_str();
    if let HostProbe::NewestFile { dir, .. } = probe {
        if run.status != 0 && names_missing_dir(stderr, dir) {
            return Ok(HostFact::NewestFile(NewestFile::default()));
        }
    }
    if run.status != 0 {
        return Err(
            classify_command_failure(run.status, stderr).unwrap_or_else(|| {
                ReadFailure::new(
                    FailureKind::ApiError,
                    format!("exit status {}: {}", run.status, summary(stderr)),
                )
            }),
        );
    }
    let text = String::from_utf8_lossy(&run.stdout);
    let bad = |m: String| ReadFailure::new(FailureKind::BadOutput, m);
    match probe {
        HostProbe::Unit { .. } => host::parse_unit(&text).map(HostFact::Unit).map_err(bad),
        HostProbe::NewestFile { .. } => Ok(HostFact::NewestFile(host::parse_find(&text, now))),
        HostProbe::Sshd { expect } => {
            let keys: BTreeSet<String> = expect.keys().cloned().collect();
            host::parse_sshd(&text, &keys)
                .map(HostFact::Sshd)
                .map_err(bad)
        }
        HostProbe::Executable { .. } => Err(ReadFailure::new(
            FailureKind::ApiError,
            "an `executable:` check is read through its parts, never as one command",
        )),
    }
}

/// Does find's stderr say that `dir` itself does not exist (`find: 'DIR': No such file or
/// directory`, `‘DIR’` in a UTF-8 locale)? Not when sudo spoke, nor for a file inside it.
fn names_missing_dir(stderr: &str, dir: &str) -> bool {
    !stderr.contains("sudo:")
        && stderr.lines().any(|l| {
            l.contains("No such file or directory")
                && (l.contains(&format!("{dir}': ")) || l.contains(&format!("{dir}’: ")))
        })
}

/// What a failed ssh means, as a failed read with its hint: unreachable, refused, the host key,
/// timed out. Never "absent".
pub(crate) fn ssh_failure(e: ExecError, destination: &str) -> ReadFailure {
    let (code, stderr) = match &e.failure {
        Failure::Exit { code, stderr } => (*code, stderr.clone()),
        Failure::TimedOut { after, .. } => {
            return ReadFailure::new(
                FailureKind::Timeout,
                format!(
                    "ssh to {destination} did not finish within {:.0}s; hint: check the host, or raise --request-timeout",
                    after.as_secs_f64()
                ),
            )
        }
        Failure::Refused { reason } => {
            return ReadFailure::new(
                FailureKind::ApiError,
                format!("refused to run a non-read-only command: {reason}"),
            )
        }
        Failure::Missing { .. }
        | Failure::Spawn { .. }
        | Failure::Exhausted { .. }
        | Failure::Signaled { .. }
        | Failure::TooLarge { .. } => {
            let err = e.into_error();
            return ReadFailure::new(
                FailureKind::ApiError,
                format!("{}; hint: {}", err.message, err.hint),
            );
        }
    };
    let lower = stderr.to_ascii_lowercase();
    let has = |n: &str| lower.contains(&n.to_ascii_lowercase());
    let said = summary(&stderr);
    if has("REMOTE HOST IDENTIFICATION HAS CHANGED") || has("Host key verification failed") {
        return ReadFailure::new(
            FailureKind::Unauthorized,
            format!("ssh to {destination}: host key verification failed ({said}); hint: nestor never weakens host-key checking: verify the host's key out of band, then connect once with ssh"),
        );
    }
    if code == 255 && crate::read::ssh::UNREACHABLE.iter().any(|n| has(n)) {
        let kind = if has("timed out") {
            FailureKind::Timeout
        } else {
            FailureKind::Unreachable
        };
        return ReadFailure::new(
            kind,
            format!("unreachable over ssh ({said}); hint: check that the host is up and the inventory's ansible_host/ansible_port"),
        );
    }
    if code == 255 && has("Permission denied") {
        return ReadFailure::new(
            FailureKind::Unauthorized,
            format!("ssh to {destination}: authentication refused ({said}); hint: check ansible_user and ansible_ssh_private_key_file, and that your key is loaded (`ssh-add -l`)"),
        );
    }
    ReadFailure::new(
        FailureKind::ApiError,
        format!("ssh to {destination} failed with exit code {code}: {said}"),
    )
}
