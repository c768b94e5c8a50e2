//! Long-running children: today only the read path's `kubectl proxy` (SPEC §9, §11). Same
//! rules as a one-shot run — the allowlist is checked before anything is spawned, argv
//! vectors, no shell, `-v` shows the redacted argv — plus an owner: a [`Service`] kills its
//! child's whole process group and reaps it when dropped, on every path (success, error,
//! early return, panic unwinding).
//!
//! The child runs in a process group of its own (so a wrapper's or dispatcher's children go
//! with it), which also keeps the terminal's Ctrl-C from reaching it. So that nestor killed by
//! a signal leaves no proxy behind: SIGINT, SIGTERM and SIGHUP first kill every live child
//! (`crate::signals`; one-shot runs are registered the same way), then take their default
//! action; every child is on a leash (`watchdog`: a tiny watchdog in its group kills it when
//! nestor's end of a pipe closes, however nestor ends, SIGKILL included, on any Unix); and on
//! Linux the child also gets `PR_SET_PDEATHSIG=SIGKILL` (only for a kubectl executed
//! directly: the Cloud SDK dispatcher's Go runtime re-executes from another thread, which
//! drops the setting).

use std::fs::File;
use std::path::Path;
use std::process::{Child, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use super::{kill_group, ExecError, Failure, Runner, Tool};

/// Tests only (docs/testing.md): set, a service gets no Linux parent-death signal, so that a
/// test proves the watchdog alone takes it along when nestor is SIGKILLed (as on macOS).
pub const NO_PARENT_DEATH_SIGNAL: &str = "NESTOR_TEST_NO_PARENT_DEATH_SIGNAL";

/// A running child that nestor owns until it is dropped.
///
/// With `PR_SET_PDEATHSIG`, Linux kills the child when the *thread* that spawned it ends:
/// keep a `Service` on the thread that started it (the read path starts and stops its proxy
/// within one call).
#[derive(Debug)]
pub struct Service {
    child: Child,
    tool: Tool,
    shown: String,
    started: Instant,
    verbose: bool,
    reaped: bool,
    /// Killed with nestor by a signal until it is reaped.
    tracked: Option<crate::signals::Tracked>,
    /// The read end of the child's stdout, kept open while it runs (closing it would kill a
    /// child that writes once more with SIGPIPE); `None` once it reached its end.
    stdout: Option<ChildStdout>,
    /// Its watchdog's leash (`watchdog`): the child dies with nestor, SIGKILL included.
    /// Dropped after the child is reaped.
    _leash: super::watchdog::Leash,
}

impl Runner {
    /// Start `tool args` in the background, its stdout on a pipe that [`Service::stdout_ready`]
    /// waits on (what it says is discarded unread: nothing from it is ever shown or parsed)
    /// and its stderr written to `stderr_to` (a file, so a chatty child can never block on a
    /// full pipe; a service says one line on stdout when it is ready, kubectl proxy's
    /// `Starting to serve on ...`). The argv is
    /// checked against the allowlist first: a refused argv spawns nothing.
    pub fn start(
        &self,
        tool: Tool,
        args: &[String],
        stderr_to: &Path,
    ) -> Result<Service, ExecError> {
        let (program, shown) = self.admit(tool, args)?;
        let fail = |failure| ExecError {
            tool,
            argv: shown.clone(),
            failure,
        };
        let stderr = File::create(stderr_to).map_err(|e| {
            fail(Failure::Spawn {
                detail: format!("cannot create {}: {e}", stderr_to.display()),
            })
        })?;
        self.trace(&format!("exec: {shown} (in the background)"));
        let mut command = std::process::Command::new(&program);
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .env_remove("KUBECONFIG");
        if tool == Tool::Kubectl {
            super::hermetic::apply(&mut command);
        }
        // A group of its own: stopping it also stops what a dispatcher or wrapper started.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        // The watchdog on every platform; Linux's parent-death signal besides, unless a test
        // turns it off to prove the watchdog alone is enough.
        let leash = super::watchdog::Leash::new().map_err(|e| fail(super::spawn_failure(&e)))?;
        super::watchdog::arm(&mut command, leash.fd(), true);
        if std::env::var_os(NO_PARENT_DEATH_SIGNAL).is_none() {
            die_with_parent(&mut command);
        }
        // A SIGTERM between the spawn and the tracking would kill nestor before it knows the
        // group to take along: a signal caught until it does waits (`Held`, no signal mask:
        // the child would inherit it).
        let held = crate::signals::Held::new();
        let spawned = command.spawn();
        let tracked = spawned
            .as_ref()
            .ok()
            .map(|child| crate::signals::Tracked::group(child.id()));
        drop(held);
        let mut child = spawned.map_err(|e| fail(super::spawn_failure(&e)))?;
        let stdout = child.stdout.take();
        Ok(Service {
            child,
            tool,
            shown,
            started: Instant::now(),
            verbose: self.verbose,
            reaped: false,
            tracked,
            stdout,
            _leash: leash,
        })
    }
}

impl Service {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The redacted command line, for messages.
    pub fn argv(&self) -> &str {
        &self.shown
    }

    /// Wait at most `timeout` for the child to write to its stdout (or close it): true when
    /// it did, so the caller checks at once whatever that announces (the proxy's socket)
    /// instead of polling it every millisecond. What was written is read (at most 4 KiB a
    /// call) and dropped. Once the stdout reached its end, or when it cannot be waited on,
    /// this only sleeps a millisecond (the caller's loop checks the socket itself).
    pub fn stdout_ready(&mut self, timeout: Duration) -> bool {
        use rustix::event::{poll, PollFd, PollFlags, Timespec};
        use std::io::Read;
        let Some(out) = self.stdout.as_mut() else {
            std::thread::sleep(Duration::from_millis(1));
            return false;
        };
        let wait = Timespec {
            tv_sec: i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(timeout.subsec_nanos()),
        };
        let mut fds = [PollFd::new(&*out, PollFlags::IN)];
        match poll(&mut fds, Some(&wait)) {
            Ok(0) => false,
            Ok(_) => {
                let mut buf = [0u8; 4096];
                match out.read(&mut buf) {
                    Ok(n) if n > 0 => {}
                    Ok(_) | Err(_) => self.stdout = None,
                }
                true
            }
            Err(_) => {
                self.stdout = None;
                false
            }
        }
    }

    /// `Some` when the child has already ended (a service should run until stopped): how it
    /// ended, without its stderr (the caller owns the file it went to).
    pub fn ended(&mut self) -> Option<Failure> {
        use std::os::unix::process::ExitStatusExt;
        let status = match self.child.try_wait() {
            Ok(Some(status)) => status,
            Ok(None) => return None,
            Err(e) => {
                return Some(Failure::Spawn {
                    detail: format!("cannot wait for it: {e}"),
                })
            }
        };
        self.reaped = true;
        self.tracked = None;
        let stderr = String::new();
        Some(match (status.code(), status.signal()) {
            (Some(code), _) => Failure::Exit { code, stderr },
            (None, Some(signal)) => Failure::Signaled { signal, stderr },
            (None, None) => Failure::Signaled { signal: 0, stderr },
        })
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        // Not once it is reaped: its pid may then belong to someone else.
        if !self.reaped {
            kill_group(self.child.id());
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        self.tracked = None;
        if self.verbose {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "kubectl-nestor: exec: stopped after {:.2}s: {}",
                self.started.elapsed().as_secs_f64(),
                self.tool.name()
            );
        }
    }
}

/// Linux: the child gets SIGKILL when the thread that spawned it ends, so a nestor killed by
/// a signal (Ctrl-C, OOM) leaves no proxy behind. Elsewhere a no-op.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    // SAFETY: the closure runs in the forked child before exec and only makes
    // async-signal-safe system calls (prctl, getppid); it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            use rustix::process::{getppid, set_parent_process_death_signal, Signal};
            set_parent_process_death_signal(Some(Signal::KILL))?;
            // The parent may have died between fork and prctl: then nobody would kill us.
            if getppid().map(|p| p.as_raw_pid()) != i32::try_from(parent).ok() {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut std::process::Command) {}
