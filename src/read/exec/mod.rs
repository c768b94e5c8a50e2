//! The process layer: the ONLY code that spawns processes (SPEC §9). It resolves the tool,
//! checks the argv against the read-only allowlist before spawning, passes argv vectors
//! (never a shell), bounds every child by the request timeout (killing its whole process
//! group when it runs over), registers every child while it runs so that a signal ending
//! nestor takes it along (`crate::signals`), treats a signal as a failure, and prints redacted
//! argv with `-v`. Tool modules only build argv.
//!
//! Files: this one, `Runner` (one-shot children); `child.rs`, a child's pipes read under
//! their caps and its exit status judged; `service.rs`, long-running ones (the proxy);
//! `watchdog.rs`, the leash that kills a child's group when nestor dies; `hermetic.rs`, the
//! kubectl environment and cache directory; `trace.rs`, `-v`'s step and trace lines;
//! `allowlist/`, every argv nestor may run (`mod.rs`: kubectl's `config view` and the pinned
//! proxy; `proxy.rs`: the proxy's form and raw paths; `printed.rs`: `--explain`'s printed
//! lines, a grammar the spawner never consults; `ssh.rs`: ssh's forms; `hostcmd.rs`: the host
//! checks' remote commands; `hostgate.rs`: the gates' `timedatectl show` and certificate
//! `cat`).

pub mod allowlist;
mod child;
pub(crate) mod hermetic;
pub(crate) use crate::redact;
mod service;
mod trace;
mod watchdog;

pub use service::Service;

use child::{capped_reader, classify, describe_status, kill_group, spawn_failure};

use std::path::PathBuf;
use std::process::Output as StdOutput;
use std::time::{Duration, Instant};

use crate::env::Environment;
use crate::error::Error;

/// The external tools nestor may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Kubectl,
    Limactl,
    Ssh,
}

impl Tool {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tool::Kubectl => "kubectl",
            Tool::Limactl => "limactl",
            Tool::Ssh => "ssh",
        }
    }

    fn override_var(self) -> &'static str {
        match self {
            Tool::Kubectl => "NESTOR_KUBECTL",
            Tool::Limactl => "NESTOR_LIMACTL",
            Tool::Ssh => "NESTOR_SSH",
        }
    }

    fn install_hint(self) -> &'static str {
        match self {
            Tool::Kubectl => "install kubectl (https://kubernetes.io/docs/tasks/tools/) or set NESTOR_KUBECTL=/path/to/kubectl",
            Tool::Limactl => "install Lima (https://lima-vm.io/docs/installation/, e.g. `brew install lima`) or set NESTOR_LIMACTL=/path/to/limactl",
            Tool::Ssh => "install the OpenSSH client (e.g. `apt-get install openssh-client`) or set NESTOR_SSH=/path/to/ssh",
        }
    }
}

/// A child that ran to completion with exit status 0.
#[derive(Debug, Clone)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: String,
}

/// Why a child did not produce a successful output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The allowlist refused the argv; nothing was spawned. Always a bug in nestor.
    Refused { reason: String },
    /// The tool is not installed (or the override points nowhere).
    Missing { tool: Tool, detail: String },
    /// The OS could not start it.
    Spawn { detail: String },
    /// The OS refused a process or a thread for lack of resources (memory, `ulimit -u`/`-v`).
    Exhausted { detail: String },
    /// It ran past the deadline and was killed.
    TimedOut { after: Duration, stderr: String },
    /// It was killed by a signal.
    Signaled { signal: i32, stderr: String },
    /// It exited non-zero.
    Exit { code: i32, stderr: String },
    /// It printed more than `limit` bytes (stdout, or stderr's own cap) and was killed:
    /// nothing it printed is used (`admin_conf: /dev/zero` drove nestor to 1 GiB).
    TooLarge { limit: u64 },
}

/// A failed run: the (redacted) command line and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecError {
    pub tool: Tool,
    pub argv: String,
    pub failure: Failure,
}

impl ExecError {
    /// A user-facing error (exit 1) for failures that are not about reachability.
    pub fn into_error(self) -> Error {
        let tool = self.tool.name();
        match self.failure {
            Failure::Refused { reason } => {
                Error::internal(format!("refused to run a non-read-only command: {reason}"))
            }
            Failure::Missing { detail, .. } => {
                Error::input(format!("{tool} not found: {detail}"), self.tool.install_hint())
            }
            Failure::Spawn { detail } => Error::input(
                format!("cannot start {tool}: {detail}"),
                self.tool.install_hint(),
            ),
            Failure::Exhausted { detail } => Error::input(
                format!("cannot run `{}`: {detail}", self.argv),
                format!(
                    "the system refused a thread or process: check memory and `ulimit -u`/`ulimit -v` (nestor runs at most {} API reads and {} ssh at once)",
                    crate::pool::API_READS_IN_FLIGHT,
                    crate::pool::SSH_IN_FLIGHT
                ),
            ),
            Failure::TimedOut { after, .. } => Error::unreachable(
                format!("`{}` did not finish within {:.1}s and was killed", self.argv, after.as_secs_f64()),
                "the cluster or host is slow or unreachable; raise --request-timeout or check connectivity",
            ),
            Failure::Signaled { signal, stderr } => Error::input(
                format!("`{}` was killed by signal {signal}{}", self.argv, crate::error::quoted(&stderr)),
                "a child killed by a signal is a failure: run again, and check memory limits or who killed it",
            ),
            Failure::Exit { code, stderr } => Error::input(
                format!("`{}` failed with exit code {code}{}", self.argv, crate::error::quoted(&stderr)),
                format!("run the command yourself to see the full output (add -v to see every {tool} call)"),
            ),
            Failure::TooLarge { limit } => Error::input(
                format!("`{}` printed more than {} MiB and was killed: nothing of it was used", self.argv, limit >> 20),
                "an answer that large is not what was asked for: check the file or object it reads (a device such as /dev/zero, a runaway log)",
            ),
        }
    }
}

/// How long past `--request-timeout` a child may run before it is killed: kubectl enforces the
/// timeout per request itself; this margin lets its own message win when it can.
pub const KILL_MARGIN: Duration = Duration::from_secs(2);

/// Runs allowlisted commands. Cheap to share between threads (`&Runner` is `Sync`).
#[derive(Debug, Clone)]
pub struct Runner {
    overrides: [(Tool, Option<PathBuf>); 3],
    pub timeout: Duration,
    pub verbose: bool,
    /// The topology's `admin_conf:` `kubeconfig fetch` may `cat` (`allowlist::ssh`).
    pub(crate) admin_conf: Option<String>,
}

impl Runner {
    pub fn new(env: &Environment, timeout: Duration, verbose: bool) -> Runner {
        Runner {
            overrides: [
                (Tool::Kubectl, env.kubectl.clone()),
                (Tool::Limactl, env.limactl.clone()),
                (Tool::Ssh, env.ssh.clone()),
            ],
            timeout,
            verbose,
            admin_conf: None,
        }
    }

    /// Where the tool is: its `NESTOR_*` override, else `which`.
    pub(crate) fn locate(&self, tool: Tool) -> Result<PathBuf, Failure> {
        let configured = self
            .overrides
            .iter()
            .find(|(t, _)| *t == tool)
            .and_then(|(_, p)| p.clone());
        match configured {
            Some(p) => which::which(&p).map_err(|_| Failure::Missing {
                tool,
                detail: format!(
                    "{}={} is not an executable",
                    tool.override_var(),
                    p.display()
                ),
            }),
            None => which::which(tool.name()).map_err(|_| Failure::Missing {
                tool,
                detail: format!("no `{}` on PATH", tool.name()),
            }),
        }
    }

    /// The gate every spawn goes through: the allowlist first, then the tool's path. Returns
    /// the program and the redacted command line used in messages.
    pub(super) fn admit(
        &self,
        tool: Tool,
        args: &[String],
    ) -> Result<(PathBuf, String), ExecError> {
        let shown = format!(
            "{} {}",
            tool.name(),
            crate::shell::words(&redact::argv(args))
        );
        let fail = |failure| ExecError {
            tool,
            argv: shown.clone(),
            failure,
        };
        let conf = self.admin_conf.as_deref();
        allowlist::check_fetching(tool, args, conf)
            .map_err(|why| fail(Failure::Refused { reason: why }))?;
        let program = self.locate(tool).map_err(fail)?;
        Ok((program, shown))
    }

    /// Run `tool args` and wait, bounded by the timeout plus [`KILL_MARGIN`], its stdout by
    /// [`MAX_STDOUT_BYTES`].
    pub fn run(&self, tool: Tool, args: &[String]) -> Result<Output, ExecError> {
        self.run_capped(tool, args, MAX_STDOUT_BYTES)
    }

    /// [`Runner::run`] for a consumer that reads at most `stdout_cap` bytes (a host check's
    /// 1 MiB): the output is cut there while it is read, the child killed, and the run is
    /// `TooLarge { limit: stdout_cap }` (never buffered to the larger cap first).
    pub fn run_capped(
        &self,
        tool: Tool,
        args: &[String],
        stdout_cap: u64,
    ) -> Result<Output, ExecError> {
        let whole = |r: &mut dyn std::io::Read| {
            let mut bytes = Vec::new();
            let _ = r.read_to_end(&mut bytes);
            bytes
        };
        let (stdout, stderr) =
            self.run_reading(tool, args, stdout_cap.min(MAX_STDOUT_BYTES), whole)?;
        Ok(Output { stdout, stderr })
    }

    /// [`Runner::run`] whose stdout is handed to `read` while it arrives, never buffered
    /// (`limactl list --json`, decoded into what nestor keeps): at most `stdout_cap` bytes go
    /// by, one more kills the child (`TooLarge`). What `read` leaves unread is drained. Its
    /// result counts only when the child exits 0; the child's stderr comes with it.
    pub fn run_reading<T: Send + 'static>(
        &self,
        tool: Tool,
        args: &[String],
        stdout_cap: u64,
        read: impl FnOnce(&mut dyn std::io::Read) -> T + Send + 'static,
    ) -> Result<(T, String), ExecError> {
        let (program, shown) = self.admit(tool, args)?;
        let fail = |failure| ExecError {
            tool,
            argv: shown.clone(),
            failure,
        };
        self.trace(&format!("exec: {shown}"));
        let started = Instant::now();
        let deadline = self.timeout + KILL_MARGIN;
        // kubectl may be a dispatcher that runs the real binary as a grandchild: a process
        // group of its own lets a timeout kill both. ssh keeps the terminal's group so that
        // it can still ask for a passphrase or a host-key confirmation.
        let own_group = tool != Tool::Ssh;
        // Output through pipes read by capped threads, never buffered whole (`stdout_capture`
        // had no limit): past the cap the child is killed and the run is `TooLarge`.
        let spawn_err = |e: std::io::Error| {
            fail(Failure::Spawn {
                detail: e.to_string(),
            })
        };
        // Killed with nestor however it ends, SIGKILL included (`watchdog`): dropped only
        // once the child is reaped, at the end of this call.
        let leash = watchdog::Leash::new().map_err(spawn_err)?;
        let leash_fd = leash.fd();
        let (out_r, out_w) = os_pipe::pipe().map_err(spawn_err)?;
        let (err_r, err_w) = os_pipe::pipe().map_err(spawn_err)?;
        let expression = duct::cmd(&program, args)
            .stdin_null()
            .stdout_file(out_w)
            .stderr_file(err_w)
            .env_remove("KUBECONFIG")
            .unchecked()
            .before_spawn(move |command| {
                if tool == Tool::Kubectl {
                    hermetic::apply(command);
                }
                if own_group {
                    std::os::unix::process::CommandExt::process_group(command, 0);
                }
                watchdog::arm(command, leash_fd, own_group);
                Ok(())
            });
        // Killed with nestor if a signal ends it (signals.rs), like a service: the group, or
        // ssh alone (it shares nestor's group). A signal caught between the spawn and the
        // tracking waits for it; `tracked` lives until the child is reaped below.
        let held = crate::signals::Held::new();
        let started_child = expression.start();
        let tracked: Vec<crate::signals::Tracked> = match &started_child {
            Ok(handle) => handle
                .pids()
                .into_iter()
                .map(|pid| {
                    if own_group {
                        crate::signals::Tracked::group(pid)
                    } else {
                        crate::signals::Tracked::process(pid)
                    }
                })
                .collect(),
            Err(_) => vec![],
        };
        drop(held);
        // The expression holds the pipes' write ends: closed here, so that the readers see
        // the end of the output when the child (and its children) are gone.
        drop(expression);
        let handle = started_child.map_err(|e| fail(spawn_failure(&e)))?;
        let overflow = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // A reader thread the OS refuses is an error with a hint, never a panic: the child
        // (already running) is killed and reaped first.
        let readers = capped_reader(out_r, stdout_cap, overflow.clone(), read).and_then(|out| {
            let whole = |r: &mut dyn std::io::Read| {
                let mut bytes = Vec::new();
                let _ = r.read_to_end(&mut bytes);
                bytes
            };
            capped_reader(err_r, MAX_STDERR_BYTES, overflow.clone(), whole).map(|err| (out, err))
        });
        let (stdout, stderr_reader) = match readers {
            Ok(r) => r,
            Err(e) => {
                if own_group {
                    for pid in handle.pids() {
                        kill_group(pid);
                    }
                }
                let _ = handle.kill();
                let _ = handle.wait();
                drop(tracked);
                return Err(fail(Failure::Exhausted {
                    detail: format!("cannot start a thread to read its output: {e}"),
                }));
            }
        };
        let until = started + deadline;
        let finished = loop {
            let step = until
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(20));
            let status = handle.wait_timeout(step).map_err(spawn_err)?.cloned();
            if status.is_some() || overflow.load(std::sync::atomic::Ordering::SeqCst) {
                break status;
            }
            if Instant::now() >= until {
                break None;
            }
        };
        let kill = || {
            if own_group {
                for pid in handle.pids() {
                    kill_group(pid);
                }
            }
            let _ = handle.kill();
            let _ = handle.wait();
        };
        if finished.is_none() || overflow.load(std::sync::atomic::Ordering::SeqCst) {
            kill();
        }
        let remaining = until.saturating_duration_since(Instant::now()) + KILL_MARGIN;
        let collected = (
            stdout.recv_timeout(remaining),
            stderr_reader.recv_timeout(remaining),
        );
        // Read after both readers answered: a reader sets the flag before it sends, and the
        // child may have died of the closed pipe before the loop above saw the flag.
        let too_large = overflow.load(std::sync::atomic::Ordering::SeqCst);
        if too_large {
            drop(tracked);
            self.trace(&format!("exec: killed, output over its cap: {shown}"));
            return Err(fail(Failure::TooLarge { limit: stdout_cap }));
        }
        let (output, read) = match (finished, collected) {
            (Some(o), (Ok(read), Ok(err))) => (
                StdOutput {
                    status: o.status,
                    stdout: Vec::new(),
                    stderr: err,
                },
                read,
            ),
            (_, (_, err)) => {
                let stderr = redact::text(String::from_utf8_lossy(&err.unwrap_or_default()).trim());
                if own_group {
                    for pid in handle.pids() {
                        kill_group(pid);
                    }
                }
                drop(tracked);
                self.trace(&format!(
                    "exec: killed after {:.1}s: {shown}",
                    started.elapsed().as_secs_f64()
                ));
                return Err(fail(Failure::TimedOut {
                    after: deadline,
                    stderr,
                }));
            }
        };
        drop(tracked);
        self.trace(&format!(
            "exec: {} in {:.2}s: {}",
            describe_status(&output),
            started.elapsed().as_secs_f64(),
            tool.name()
        ));
        classify(output).map(|o| (read, o.stderr)).map_err(fail)
    }
}

/// The most a child may print on stdout: as much as the proxy path buffers for one answer.
pub const MAX_STDOUT_BYTES: u64 = crate::read::http::MAX_BUFFERED_BYTES as u64;
/// The most of a child's stderr kept: 1 MiB (a longer one kills the child too).
const MAX_STDERR_BYTES: u64 = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_background_child_is_checked_before_it_is_spawned() {
        // A recording stub: had it run, the log would exist.
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("ran");
        let stub = dir.path().join("kubectl");
        std::fs::write(&stub, format!("#!/bin/sh\ntouch '{}'\n", log.display())).expect("stub");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let env = Environment {
            kubectl: Some(stub),
            ..Environment::default()
        };
        let r = Runner::new(&env, Duration::from_secs(1), false);
        let stderr = dir.path().join("stderr");
        for loose in [
            vec!["--kubeconfig=/k", "proxy"],
            vec!["--kubeconfig=/k", "proxy", "--port=8001"],
            vec!["--kubeconfig=/k", "proxy", "--unix-socket=/tmp/s"],
            vec!["--kubeconfig=/k", "port-forward", "p", "80"],
        ] {
            let args: Vec<String> = loose.iter().map(|s| s.to_string()).collect();
            let e = r.start(Tool::Kubectl, &args, &stderr).expect_err("refused");
            assert!(matches!(e.failure, Failure::Refused { .. }), "{loose:?}");
        }
        assert!(!log.exists(), "a refused command ran");
    }

    #[test]
    fn refused_argv_never_spawns() {
        let env = Environment {
            kubectl: Some(PathBuf::from("/nonexistent/kubectl")),
            ..Environment::default()
        };
        let r = Runner::new(&env, Duration::from_secs(1), false);
        let e = r.run(Tool::Kubectl, &["delete".into(), "ns".into(), "x".into()]);
        assert!(matches!(
            e,
            Err(ExecError {
                failure: Failure::Refused { .. },
                ..
            })
        ));
    }
}
