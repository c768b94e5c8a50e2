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
    /// Requests sent ahead of the threads that read their answers ([`ApiProxy::send_ahead`]):
    /// target and `Accept`, each taken by the first [`ApiProxy::open`] or [`ApiProxy::get`]
    /// of the same.
    ahead: std::sync::Mutex<Vec<(String, String, stream::Sent)>>,
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

/// The proxy's command line as an error names it: its three filter flags shortened to what
/// they hold (`--accept-paths=<62 paths>`), so that the error stays a line a person reads —
/// the whole filters are thousands of characters of expressions, and `-v` (each subprocess)
/// and `--explain` print every word.
fn named(argv: &[String]) -> String {
    let words: Vec<String> = crate::redact::argv(argv)
        .into_iter()
        .map(|word| match word.split_once('=') {
            Some(("--accept-paths", paths)) => {
                format!("--accept-paths=<{} paths>", paths.split(',').count())
            }
            Some((flag @ ("--reject-methods" | "--reject-paths"), _)) => format!("{flag}=<...>"),
            Some(_) | None => word,
        })
        .collect();
    format!("kubectl {}", crate::shell::words(&words))
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
        let socket = dir.path().join(SOCKET_NAME);
        let stderr = dir.path().join("proxy.stderr");
        let on_signal = crate::signals::TrackedDir::new(dir.path(), &[&socket, &stderr]);
        let argv = kubectl.proxy_argv(&socket, accept);
        let started = Instant::now();
        let mut service =
            runner
                .start(Tool::Kubectl, &argv, &stderr)
                .map_err(|e| match e.failure {
                    Failure::Refused { .. } | Failure::Missing { .. } => StartError::Fatal(e),
                    Failure::Spawn { .. }
                    | Failure::Exhausted { .. }
                    | Failure::TimedOut { .. }
                    | Failure::Signaled { .. }
                    | Failure::Exit { .. }
                    | Failure::TooLarge { .. } => {
                        StartError::Unavailable(format!("`{}`: {:?}", named(&argv), e.failure))
                    }
                })?;
        let limit = runner.timeout + KILL_MARGIN;
        loop {
            if let Some(failure) = service.ended() {
                let how = match failure {
                    Failure::Exit { code, .. } => format!("exited with code {code}"),
                    Failure::Signaled { signal, .. } => format!("was killed by signal {signal}"),
                    other @ (Failure::Refused { .. }
                    | Failure::Missing { .. }
                    | Failure::Spawn { .. }
                    | Failure::Exhausted { .. }
                    | Failure::TimedOut { .. }
                    | Failure::TooLarge { .. }) => format!("{other:?}"),
                };
                return Err(StartError::Unavailable(format!(
                    "`{}` {how}{}",
                    named(&argv),
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
                        named(&argv),
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
            ahead: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// Send `GET` for each of `targets` now, their answers read later by the threads that
    /// [`ApiProxy::open`] or [`ApiProxy::get`] them: a round's requests go out at once while
    /// few threads read their answers (SPEC §11, §9 "Bounded per run"). A request that cannot
    /// be sent is left to be sent again when it is opened (which then says why it fails).
    pub fn send_ahead(&self, targets: &[String], accept: &str) {
        let deadline = Instant::now() + self.timeout;
        let sent: Vec<(String, String, stream::Sent)> = targets
            .iter()
            .filter_map(|t| {
                stream::send(&self.socket, t, accept, USER_AGENT, deadline)
                    .ok()
                    .map(|s| (t.clone(), accept.to_string(), s))
            })
            .collect();
        if let Ok(mut ahead) = self.ahead.lock() {
            ahead.extend(sent);
        }
    }

    /// Forget the requests sent ahead for `targets` that nobody opened (their connections
    /// closed): a later round never reads an earlier round's answer.
    pub fn forget_ahead(&self, targets: &[String]) {
        if let Ok(mut ahead) = self.ahead.lock() {
            ahead.retain(|(t, _, _)| !targets.contains(t));
        }
    }

    /// The request for `target` sent ahead, if there is one.
    fn take_ahead(&self, target: &str, accept: &str) -> Option<stream::Sent> {
        let mut ahead = self.ahead.lock().ok()?;
        let at = ahead
            .iter()
            .position(|(t, a, _)| t == target && a == accept)?;
        Some(ahead.swap_remove(at).2)
    }

    /// GET `target` (path and query) through the proxy, within the request timeout.
    pub fn get(&self, target: &str, accept: &str) -> Result<Response, HttpError> {
        if let Some(sent) = self.take_ahead(target, accept) {
            return http::read_sent(sent);
        }
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
        if let Some(sent) = self.take_ahead(target, accept) {
            return sent.answer(stream::MAX_STREAMED_BYTES);
        }
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

/// The longest socket path this platform binds and connects to: `sun_path`'s size (104 bytes
/// on macOS and the BSDs, 108 on Linux) less the terminating NUL that Rust's std requires.
pub(crate) fn socket_path_max() -> usize {
    std::mem::size_of::<libc::sockaddr_un>() - std::mem::offset_of!(libc::sockaddr_un, sun_path) - 1
}

/// The directory's name (the prefix and tempfile's six random characters) and the socket's.
const DIR_PREFIX: &str = "kubectl-nestor-";
const SOCKET_NAME: &str = "proxy.sock";

/// The socket path a private directory under `base` gives, in bytes.
fn socket_path_len(base: &Path) -> usize {
    base.join(format!("{DIR_PREFIX}XXXXXX"))
        .join(SOCKET_NAME)
        .as_os_str()
        .len()
}

/// The first of `candidates` (the system temp dir, then the shorter `/tmp`) under which the
/// whole socket path fits in `max` bytes; else a refusal naming each and its length.
fn socket_base(candidates: &[PathBuf], max: usize) -> Result<PathBuf, String> {
    if let Some(fits) = candidates.iter().find(|b| socket_path_len(b) <= max) {
        return Ok(fits.clone());
    }
    let tried: Vec<String> = candidates
        .iter()
        .map(|b| format!("{} ({} bytes)", b.display(), socket_path_len(b)))
        .collect();
    Err(format!(
        "no directory gives the proxy's unix socket a path within this platform's limit of {max} bytes: tried {}; set TMPDIR to a shorter directory (e.g. `export TMPDIR=/tmp`)",
        tried.join(", ")
    ))
}

/// A fresh directory only the user can enter, for the socket: under the system temp dir
/// unless the socket path would pass the platform's `sun_path` limit (a long macOS TMPDIR),
/// then under `/tmp`.
fn private_dir() -> std::io::Result<tempfile::TempDir> {
    let candidates = [std::env::temp_dir(), PathBuf::from("/tmp")];
    let base = socket_base(&candidates, socket_path_max()).map_err(std::io::Error::other)?;
    let dir = tempfile::Builder::new()
        .prefix(DIR_PREFIX)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_the_platforms_sun_path_less_its_nul() {
        let want = if cfg!(any(target_os = "linux", target_os = "android")) {
            107
        } else {
            103
        };
        assert_eq!(socket_path_max(), want);
    }

    /// The whole path counts: a 77-byte TMPDIR gives a 110-byte socket path (over Linux's
    /// 107), a 120-byte one 153; both fall back to /tmp; a base that leaves 107 exactly fits.
    #[test]
    fn a_long_temp_dir_falls_back_to_tmp_and_none_fitting_is_refused() {
        let long = |n: usize| PathBuf::from(format!("/{}", "t".repeat(n - 1)));
        assert_eq!(socket_path_len(&long(77)), 110);
        for n in [77, 120] {
            let base = socket_base(&[long(n), PathBuf::from("/tmp")], 107).unwrap();
            assert_eq!(base, PathBuf::from("/tmp"));
        }
        assert_eq!(
            socket_base(&[long(74), PathBuf::from("/tmp")], 107).unwrap(),
            long(74)
        );
        assert_eq!(
            socket_base(&[long(40), PathBuf::from("/tmp")], 30).unwrap_err(),
            format!("no directory gives the proxy's unix socket a path within this platform's limit of 30 bytes: tried /{} (73 bytes), /tmp (37 bytes); set TMPDIR to a shorter directory (e.g. `export TMPDIR=/tmp`)", "t".repeat(39))
        );
    }

    /// An error names the proxy in a line: its filters by their size, every other word as
    /// it runs (the token of a `--token=` pin still redacted).
    #[test]
    fn an_error_names_the_proxy_with_its_filters_shortened() {
        let argv: Vec<String> = [
            "--context=prod",
            "--token=SECRET",
            "proxy",
            "--unix-socket=/tmp/x/proxy.sock",
            "--reject-methods=^(?:[^GH].*)$",
            "--accept-paths=^/api$,^/apis$,^/api/v1/nodes$",
            "--reject-paths=/secrets(/|$)",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            named(&argv),
            "kubectl --context=prod '--token=<redacted>' proxy --unix-socket=/tmp/x/proxy.sock '--reject-methods=<...>' '--accept-paths=<3 paths>' '--reject-paths=<...>'"
        );
    }
}
