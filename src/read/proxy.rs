//! The read path's local API proxy (SPEC §9, §11): one `kubectl proxy` serving one batch of
//! reads, in the only form the allowlist accepts — a unix socket inside a fresh 0700
//! directory, GET/HEAD only, discovery and resource paths only, never secrets. kubectl keeps
//! doing what only it should do (the kubeconfig, TLS, credentials and exec plugins); nestor
//! sends plain GETs over the socket. Dropping an [`ApiProxy`] kills the child (its whole
//! process group) and then removes the directory, on every path out of a read; a signal that
//! ends nestor does both too (`signals`).

use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::read::exec::{ExecError, Failure, Service, Tool, KILL_MARGIN};
use crate::read::http::{self, HttpError, Response};
use crate::read::kubectl::Kubectl;
use crate::read::stream;

/// Sent with every request; the proxy forwards it, so the API server's audit names nestor.
pub const USER_AGENT: &str = concat!("kubectl-nestor/", env!("CARGO_PKG_VERSION"));

/// A running proxy. Field order matters: the child is stopped before its directory goes.
pub struct ApiProxy {
    service: Service,
    dir: tempfile::TempDir,
    /// The directory and its files, removed by a signal that ends nestor (after `dir`: a
    /// signal during the normal removal finds nothing more to do).
    _on_signal: crate::signals::TrackedDir,
    socket: PathBuf,
    timeout: Duration,
    /// Its `--accept-paths`: exactly the paths of the batch it was started for.
    accept: Vec<String>,
}

/// Why no proxy is serving.
#[derive(Debug)]
pub enum StartError {
    /// kubectl ran but could not serve (it exited): another way of reading may still work.
    Unavailable(String),
    /// The proxy was not serving within the request timeout (plus the kill margin).
    TimedOut { detail: String },
    /// The allowlist refused the argv, or there is no kubectl: stops the run, as for any read.
    Fatal(ExecError),
}

impl ApiProxy {
    /// Make the private directory, start `kubectl proxy` on a socket inside it and wait until
    /// the socket accepts connections.
    /// `accept` is the batch's exact path list ([`crate::read::apiread::accept_paths`]).
    pub fn start(kubectl: &Kubectl, accept: &[String]) -> Result<ApiProxy, StartError> {
        let runner = kubectl.runner();
        let dir = private_dir().map_err(|e| {
            StartError::Unavailable(format!("cannot make a private socket directory: {e}"))
        })?;
        let socket = dir.path().join("proxy.sock");
        let stderr = dir.path().join("proxy.stderr");
        let on_signal = crate::signals::TrackedDir::new(dir.path(), &[&socket, &stderr]);
        let argv = kubectl.proxy_argv(&socket, accept);
        let started = Instant::now();
        let mut service =
            runner
                .start(Tool::Kubectl, &argv, &stderr)
                .map_err(|e| match e.failure {
                    Failure::Refused { .. } | Failure::Missing { .. } => StartError::Fatal(e),
                    _ => StartError::Unavailable(format!("`{}`: {:?}", e.argv, e.failure)),
                })?;
        let limit = runner.timeout + KILL_MARGIN;
        loop {
            if let Some(failure) = service.ended() {
                let how = match failure {
                    Failure::Exit { code, .. } => format!("exited with code {code}"),
                    Failure::Signaled { signal, .. } => format!("was killed by signal {signal}"),
                    other => format!("{other:?}"),
                };
                return Err(StartError::Unavailable(format!(
                    "`{}` {how}{}",
                    service.argv(),
                    quoted_stderr(&stderr)
                )));
            }
            if UnixStream::connect(&socket).is_ok() {
                break;
            }
            if started.elapsed() >= limit {
                return Err(StartError::TimedOut {
                    detail: format!(
                        "`{}` was not serving after {:.1}s and was stopped{}",
                        service.argv(),
                        limit.as_secs_f64(),
                        quoted_stderr(&stderr)
                    ),
                });
            }
            // kubectl proxy says `Starting to serve on ...` once its socket listens: wake on
            // that line (or on its exit) instead of polling the socket every millisecond —
            // ten proxies starting at once in a fleet spent ~80 ms of CPU polling. A kubectl
            // (or wrapper) that says nothing is still found by the socket check every 20 ms.
            service.stdout_ready(
                Duration::from_millis(20).min(limit.saturating_sub(started.elapsed())),
            );
        }
        runner.trace(&format!(
            "proxy: serving after {:.3}s (pid {})",
            started.elapsed().as_secs_f64(),
            service.pid()
        ));
        Ok(ApiProxy {
            service,
            dir,
            _on_signal: on_signal,
            socket,
            timeout: runner.timeout,
            accept: accept.to_vec(),
        })
    }

    /// GET `target` (path and query) through the proxy, within the request timeout.
    pub fn get(&self, target: &str, accept: &str) -> Result<Response, HttpError> {
        http::get(
            &self.socket,
            target,
            accept,
            USER_AGENT,
            Instant::now() + self.timeout,
        )
    }

    /// GET `target` and leave its body to be read as it arrives (custom resource lists).
    pub fn open(&self, target: &str, accept: &str) -> Result<stream::Answer, HttpError> {
        stream::open(
            &self.socket,
            target,
            accept,
            USER_AGENT,
            Instant::now() + self.timeout,
            stream::MAX_STREAMED_BYTES,
        )
    }

    pub fn pid(&self) -> u32 {
        self.service.pid()
    }

    /// Every path of `accept` is one this proxy was started to accept.
    pub fn accepts(&self, accept: &[String]) -> bool {
        accept.iter().all(|a| self.accept.contains(a))
    }

    /// The child still runs (a proxy kept across batches is checked before each one).
    pub fn alive(&mut self) -> bool {
        self.service.ended().is_none()
    }

    /// What the child wrote on stderr so far, one line (for a read that failed oddly).
    pub fn stderr(&self) -> String {
        quoted_stderr(&self.dir.path().join("proxy.stderr"))
    }
}

/// A fresh directory only the user can enter, for the socket. Under the system temp dir,
/// unless that path is so long the socket path would pass the 108-byte `sun_path` limit.
fn private_dir() -> std::io::Result<tempfile::TempDir> {
    let base = std::env::temp_dir();
    let base = if base.as_os_str().len() > 80 {
        PathBuf::from("/tmp")
    } else {
        base
    };
    let dir = tempfile::Builder::new()
        .prefix("kubectl-nestor-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(base)?;
    // The umask can only have removed bits; set them exactly (the allowlist checks 0700).
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))?;
    Ok(dir)
}

/// `: <last lines of the stderr file>`, redacted and on one line, or nothing.
fn quoted_stderr(path: &Path) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    let tail = &text[text.len().saturating_sub(2048)..];
    crate::error::quoted(&crate::read::exec::redact::text(
        String::from_utf8_lossy(tail).trim(),
    ))
}
