//! kubectl argv builder: every call carries an explicit `--kubeconfig` (kubectl must never
//! fall back to `~/.kube/config`), `--request-timeout`, and a `--cache-dir` outside any
//! repo when HOME is unset. Spawning is left to `exec`.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::exec::{ExecError, Failure, Output, Runner, Tool};
use crate::paths::Environment;

pub struct Kubectl<'a> {
    runner: &'a Runner,
    kubeconfig: PathBuf,
    cache_dir: Option<PathBuf>,
}

impl<'a> Kubectl<'a> {
    pub fn new(runner: &'a Runner, kubeconfig: &Path, env: &Environment) -> Kubectl<'a> {
        Kubectl {
            runner,
            kubeconfig: kubeconfig.to_path_buf(),
            cache_dir: env.home.is_none().then(crate::exec::fallback_cache_dir),
        }
    }

    /// The full argv for `kubectl <rest>`.
    pub fn argv(&self, rest: &[&str]) -> Vec<String> {
        let mut args = vec![
            format!("--kubeconfig={}", self.kubeconfig.display()),
            format!(
                "--request-timeout={}s",
                self.runner.timeout.as_secs_f64().max(1.0).ceil()
            ),
        ];
        if let Some(dir) = &self.cache_dir {
            args.push(format!("--cache-dir={}", dir.display()));
        }
        args.extend(rest.iter().map(|s| s.to_string()));
        args
    }

    pub fn run(&self, rest: &[&str]) -> Result<Output, ExecError> {
        self.runner.run(Tool::Kubectl, &self.argv(rest))
    }
}

/// Why a kubectl failure means the cluster could not be reached, if it does.
pub fn unreachable_reason(stderr: &str) -> Option<&'static str> {
    let s = stderr.to_ascii_lowercase();
    if s.contains("connection refused")
        || s.contains("was refused")
        || s.contains("no route to host")
        || s.contains("no such host")
        || s.contains("network is unreachable")
    {
        Some("connection refused or host unreachable")
    } else if s.contains("x509:")
        || s.contains("tls:")
        || s.contains("certificate") && s.contains("verify")
    {
        Some("TLS failure")
    } else if s.contains("unauthorized") || s.contains("must be logged in") {
        Some("authentication failed (401)")
    } else if s.contains("deadline exceeded") || s.contains("timeout") || s.contains("timed out") {
        Some("timeout")
    } else if s.contains("unable to connect to the server") || s.contains("eof") {
        Some("cannot connect")
    } else {
        None
    }
}

/// The error for a failed cluster read: exit 4 when the cluster is unreachable (quoting
/// kubectl's own message), else the generic failure (exit 1).
pub fn cluster_error(e: ExecError, server: &str) -> Error {
    let reason = match &e.failure {
        Failure::TimedOut { .. } => Some("timeout"),
        Failure::Exit { stderr, .. } => unreachable_reason(stderr),
        _ => None,
    };
    match reason {
        Some(reason) => {
            let quoted = crate::error::one_line(e.stderr());
            let detail = if quoted.is_empty() {
                format!("`{}` was killed after the request timeout", e.argv)
            } else {
                format!("kubectl: {quoted}")
            };
            Error::unreachable(
                format!("cluster {server} unreachable ({reason}): {detail}"),
                "check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid",
            )
        }
        None => e.into_error(),
    }
}
