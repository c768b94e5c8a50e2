//! What `kubeconfig fetch` refuses (SPEC §7, §9), before anything is written: a fetched
//! file that is not a plain kubeconfig, that holds a credential which runs a command or names
//! a file of this machine, or that kubectl's own redacted `config view` reads differently from
//! nestor's strict reader; and a declared destination that is not a kubeconfig's place (a
//! shell rc file, a FIFO, an existing file that is no kubeconfig outside `~/.kube/`).
//!
//! The fetched bytes are the cluster's admin credentials: no message here quotes them; the
//! one copy kubectl reads lives in a private temporary directory removed on return.

use std::path::{Path, PathBuf};

use super::credentials::{self, Forbidden};
use super::{authority, kubeconfig};
use crate::env::Environment;
use crate::error::{Error, Result};
use crate::output::render;
use crate::read::exec::Runner;

/// The fetched bytes must name a target (cluster, user, context, resolvable current-context)
/// in plain YAML with known keys only, and hold nothing that runs or reads a local file.
pub fn validate(bytes: &[u8], source: &str) -> Result<kubeconfig::KubeTarget> {
    let fetched = kubeconfig::parse(bytes, Path::new(source)).map_err(|e| {
        Error::input(
            format!(
                "the file fetched from {source} is not a usable kubeconfig ({}); nothing was written",
                e.message
            ),
            "point `admin_conf:` in the topology at the kubeadm admin kubeconfig of the control-plane host (default /etc/kubernetes/admin.conf)",
        )
    })?;
    let Some(forbidden) =
        credentials::forbidden_in_fetched(&fetched.users, &fetched.ca_file_clusters)
    else {
        return Ok(fetched);
    };
    let hint = "a kubeadm admin.conf holds its credentials inline (client-certificate-data, client-key-data, certificate-authority-data): fetch that file, or build the kubeconfig yourself after reading what it does";
    let message = match forbidden {
        // Nothing from a fetched file runs (SPEC §9): kubectl would run an exec plugin or an
        // auth provider at the verification read, on this machine, as the operator.
        Forbidden::User { user, key } if credentials::RUNS_A_COMMAND.contains(&key) => format!(
            "the kubeconfig fetched from {source} has user `{}` with an `{key}:` credential, which would run a command on this machine; nothing was written",
            render::escape(user)
        ),
        Forbidden::User { user, key } => format!(
            "the kubeconfig fetched from {source} has user `{}` with a `{key}:` credential, which names a file of this machine (kubectl would read it and send it to the fetched server); nothing was written",
            render::escape(user)
        ),
        Forbidden::ClusterCaFile { cluster } => format!(
            "the kubeconfig fetched from {source} has cluster `{}` with a `certificate-authority:` path, which names a file of this machine (a fetched file decides nothing about local files); nothing was written",
            render::escape(cluster)
        ),
    };
    Err(Error::input(message, hint))
}

/// kubectl's own redacted reading of `bytes` must agree with nestor's on every user
/// and its credential keys (`fetched`: nestor's): the bytes go to a private temporary file for `kubectl config
/// view`, a local read that runs nothing and redacts every credential.
pub fn kubectl_agrees(
    runner: &Runner,
    env: &Environment,
    bytes: &[u8],
    fetched: &kubeconfig::KubeTarget,
    source: &str,
) -> Result<()> {
    let refused = |e: Error| {
        Error::input(
            format!(
                "the file fetched from {source} is refused: {}; nothing was written",
                e.message
            ),
            e.hint,
        )
    };
    let dir = tempfile::Builder::new()
        .prefix("kubectl-nestor-fetch-")
        .tempdir()
        .map_err(|e| {
            Error::input(
                format!("cannot make a private temporary directory for kubectl to read the fetched file: {e}; nothing was written"),
                "set TMPDIR to a writable directory of yours",
            )
        })?;
    let file = dir.path().join("fetched.kubeconfig");
    crate::fs::write_private(&file, bytes)?;
    authority::agree_on_users(runner, env, &file, fetched).map_err(refused)
}

/// The declared destination `dest` must be a kubeconfig's place: under `~/.kube/`, or a path
/// that does not exist yet or already holds a kubeconfig; never a shell startup file, never
/// anything but a regular file. Checked on the path and on its final target (a symlink).
pub fn destination(env: &Environment, dest: &Path, topology: &Path) -> Result<()> {
    let real = crate::fs::final_target(dest)?;
    let refuse = |why: String| {
        Error::input(
            format!(
                "refusing to write the fetched kubeconfig to {}{}: {why}; nothing was fetched or written",
                dest.display(),
                if real == dest { String::new() } else { format!(" (a symlink to {})", real.display()) }
            ),
            format!(
                "declare `kubeconfig: ~/.kube/NAME.config` in {} (kubeconfig fetch writes under ~/.kube/, or a new file, or over a kubeconfig)",
                topology.display()
            ),
        )
    };
    for p in [dest, real.as_path()] {
        if let Some(name) = p.file_name().map(|n| n.to_string_lossy()) {
            if is_startup_file(&name) {
                return Err(refuse(format!(
                    "`{}` is a shell or tool startup file, never a kubeconfig",
                    render::escape(&name)
                )));
            }
        }
    }
    let meta = match std::fs::metadata(&real) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(refuse(format!("it cannot be read ({e})"))),
        Ok(m) => m,
    };
    if !meta.is_file() {
        return Err(refuse("it exists and is not a regular file".to_string()));
    }
    if under_kube(env, &real) || under_kube(env, dest) {
        return Ok(());
    }
    let looks = crate::bounded::read(&real, "kubeconfig")
        .ok()
        .and_then(|r| r.ok())
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|t| yaml_serde::from_str::<yaml_serde::Value>(&t).ok())
        .is_some_and(|v| {
            v.get("kind").and_then(|k| k.as_str()) == Some("Config")
                || (v.get("clusters").is_some() && v.get("users").is_some())
        });
    if looks {
        Ok(())
    } else {
        Err(refuse(
            "it exists outside ~/.kube/ and is not a kubeconfig".to_string(),
        ))
    }
}

fn under_kube(env: &Environment, p: &Path) -> bool {
    let Some(home) = env.home.as_deref() else {
        return false;
    };
    let kube: PathBuf = home.join(".kube");
    let canonical = std::fs::canonicalize(&kube).ok();
    // Lexically under it, with no `..` climbing back out.
    let inside = |root: &Path| {
        p.strip_prefix(root).is_ok_and(|rest| {
            rest.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
                && rest.components().next().is_some()
        })
    };
    inside(&kube) || canonical.as_deref().is_some_and(inside)
}

/// A file a shell or a tool runs or reads at start-up: `.bashrc`, `.profile`, `config.fish`,
/// any `.NAMErc`.
fn is_startup_file(name: &str) -> bool {
    const NAMED: &[&str] = &[
        ".profile",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".login",
        ".logout",
        "config.fish",
        "authorized_keys",
        "environment",
    ];
    NAMED.contains(&name) || (name.starts_with('.') && name.ends_with("rc"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startup_files_are_known() {
        for n in [
            ".bashrc",
            ".zshrc",
            ".profile",
            "config.fish",
            ".netrc",
            ".kshrc",
        ] {
            assert!(is_startup_file(n), "{n}");
        }
        for n in ["dirqual.config", "config", "admin.conf", "rc"] {
            assert!(!is_startup_file(n), "{n}");
        }
    }
}

#[cfg(test)]
mod shadow_tests {
    /// Issue 49: an `admin_conf:` symlinked to a shadow-format file; nothing of its content is
    /// ever quoted, only where the parse stopped.
    #[test]
    fn a_file_that_is_no_kubeconfig_is_never_quoted() {
        let shadow = "root:$y$j9T$Qm9vYmFy$c2VjcmV0aGFzaA:19700:0:99999:7:::\ndaemon:*:19700:0:99999:7:::\nops:$6$salt$hashedpassword:19700:0:99999:7:::\n";
        let e = super::validate(shadow.as_bytes(), "ops@cp1:/etc/kubernetes/x.conf").unwrap_err();
        let said = format!("{}\n{}", e.message, e.hint);
        for secret in [
            "$y$",
            "j9T",
            "c2VjcmV0aGFzaA",
            "hashedpassword",
            "root:",
            "daemon",
        ] {
            assert!(!said.contains(secret), "{secret} quoted: {said}");
        }
        assert!(said.contains("is not a usable kubeconfig"), "{said}");
    }
}
