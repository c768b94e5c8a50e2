//! kubectl argv builder: every call carries an explicit `--kubeconfig` (kubectl must never
//! fall back to `~/.kube/config`), the [`Pin`] of the confirmed target (`--context` and
//! `--server`, so a file rewritten between two calls can change nothing but credentials),
//! `--request-timeout`, and an explicit `--cache-dir` that is never inside a repo. Spawning
//! (and the hermetic environment) is left to `exec`.

use std::path::{Path, PathBuf};

use crate::env::Environment;
use crate::read::exec::allowlist::{PROXY_REJECT_METHODS, PROXY_REJECT_PATHS};
use crate::read::exec::{ExecError, Output, Runner, Tool};

/// The target every kubectl call is pinned to: the context and the server, given on the
/// command line (and the cluster's `tls-server-name`, which kubectl drops when `--server` is
/// given without it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub context: String,
    pub server: String,
    pub tls_server_name: Option<String>,
}

pub struct Kubectl<'a> {
    runner: &'a Runner,
    kubeconfig: PathBuf,
    cache_dir: PathBuf,
    pin: Pin,
}

impl<'a> Kubectl<'a> {
    /// A kubectl for `kubeconfig`, every call pinned to `pin`.
    pub fn new(runner: &'a Runner, kubeconfig: &Path, pin: Pin, env: &Environment) -> Kubectl<'a> {
        Kubectl {
            runner,
            kubeconfig: kubeconfig.to_path_buf(),
            cache_dir: crate::read::exec::hermetic::cache_dir(env.home.as_deref()),
            pin,
        }
    }

    /// The full argv for `kubectl <rest>`.
    pub fn argv(&self, rest: &[&str]) -> Vec<String> {
        let mut args = vec![
            format!("--kubeconfig={}", self.kubeconfig.display()),
            format!("--context={}", self.pin.context),
            format!("--server={}", self.pin.server),
        ];
        if let Some(name) = &self.pin.tls_server_name {
            args.push(format!("--tls-server-name={name}"));
        }
        args.push(format!(
            "--request-timeout={}s",
            self.runner.timeout.as_secs_f64().max(1.0).ceil()
        ));
        args.push(format!("--cache-dir={}", self.cache_dir.display()));
        args.extend(rest.iter().map(|s| s.to_string()));
        args
    }

    pub fn run(&self, rest: &[&str]) -> Result<Output, ExecError> {
        self.runner.run(Tool::Kubectl, &self.argv(rest))
    }

    /// The argv of the read path's proxy, in the only form the allowlist accepts (SPEC §9):
    /// a unix socket (in a private directory the caller made), GET and HEAD only, discovery
    /// and exactly the paths of the batch (`accept`, anchored regexps), never secrets.
    pub fn proxy_argv(&self, socket: &Path, accept: &[String]) -> Vec<String> {
        let socket = format!("--unix-socket={}", socket.display());
        let methods = format!("--reject-methods={PROXY_REJECT_METHODS}");
        let accept = format!("--accept-paths={}", accept.join(","));
        let reject = format!("--reject-paths={PROXY_REJECT_PATHS}");
        self.argv(&["proxy", &socket, &methods, &accept, &reject])
    }

    pub fn runner(&self) -> &Runner {
        self.runner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proxy_argv_is_the_allowlisted_form() {
        use std::os::unix::fs::PermissionsExt;
        let Ok(dir) = tempfile::tempdir() else { return };
        let _ = std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700));
        let env = Environment {
            home: Some(PathBuf::from("/home/op")),
            ..Environment::default()
        };
        let runner = Runner::new(&env, std::time::Duration::from_secs(10), false);
        let pin = Pin {
            context: "admin@dirqual".into(),
            server: "https://10.67.2.11:6443".into(),
            tls_server_name: None,
        };
        let k = Kubectl::new(
            &runner,
            Path::new("/home/op/.kube/dirqual.config"),
            pin,
            &env,
        );
        let argv = k.proxy_argv(&dir.path().join("proxy.sock"), &["^/api/v1/nodes$".into()]);
        assert_eq!(
            crate::read::exec::allowlist::check(Tool::Kubectl, &argv),
            Ok(())
        );
        assert_eq!(
            argv[..3],
            [
                "--kubeconfig=/home/op/.kube/dirqual.config",
                "--context=admin@dirqual",
                "--server=https://10.67.2.11:6443"
            ]
        );
        assert_eq!(argv[5], "proxy");
        // A socket in a directory others may enter is refused.
        let _ = std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755));
        assert!(crate::read::exec::allowlist::check(Tool::Kubectl, &argv).is_err());
    }
}
