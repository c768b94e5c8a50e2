//! Reading a kubeconfig file just enough to name the target: its `current-context`, that
//! context's cluster and user, and the cluster's server URL. The current-context is
//! authoritative (no `--context` guessing), and each way a file can fail to name a target
//! is its own error. Credentials are never read into memory beyond the YAML parse, and
//! never printed.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};

/// What a kubeconfig says about its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeTarget {
    pub context: String,
    pub cluster: String,
    pub user: String,
    pub server: String,
    pub namespace: Option<String>,
    /// Number of contexts in the file (a notice is printed when more than one).
    pub contexts: usize,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct File {
    #[serde(rename = "current-context")]
    current_context: Option<String>,
    contexts: Vec<Named<ContextBody>>,
    clusters: Vec<Named<ClusterBody>>,
    users: Vec<Named<serde_norway::Value>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Named<T> {
    name: String,
    #[serde(alias = "cluster", alias = "user")]
    context: T,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ContextBody {
    cluster: String,
    user: String,
    namespace: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ClusterBody {
    server: String,
}

/// Read the file at `path` (already resolved) and name its target.
pub fn read(path: &Path) -> Result<KubeTarget> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            // A symlink to nothing: `ls` shows the file, so "does not exist" would mislead.
            if let Ok(target) = std::fs::read_link(path) {
                return Error::input(
                    format!(
                        "kubeconfig {shown} is a symlink to {}, which does not exist",
                        target.display()
                    ),
                    "point the symlink at the real kubeconfig, or fetch it with `kubectl nestor kubeconfig fetch`",
                );
            }
            Error::input(
                format!("kubeconfig {shown} does not exist"),
                "fetch it with `kubectl nestor kubeconfig fetch`, or fix the path",
            )
        } else {
            unreadable(path, &e)
        }
    })?;
    if meta.is_dir() {
        return Err(Error::input(
            format!("kubeconfig {shown} is a directory"),
            "point kubeconfig at a file",
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| unreadable(path, &e))?;
    parse(&bytes, path)
}

fn unreadable(path: &Path, e: &std::io::Error) -> Error {
    Error::input(
        format!("kubeconfig {} is not readable: {e}", path.display()),
        "check the file's owner and permissions (it should be 0600 and yours)",
    )
}

/// Parse kubeconfig bytes; `path` is only used in messages.
pub fn parse(bytes: &[u8], path: &Path) -> Result<KubeTarget> {
    let shown = path.display();
    let text = String::from_utf8_lossy(bytes);
    if text.trim().is_empty() {
        return Err(Error::input(
            format!("kubeconfig {shown} is empty"),
            "fetch it again with `kubectl nestor kubeconfig fetch`",
        ));
    }
    let file: File = serde_norway::from_str(&text).map_err(|e| {
        // The YAML error may quote the file's content: keep only its position.
        let at = e
            .location()
            .map(|l| format!(" (line {}, column {})", l.line(), l.column()))
            .unwrap_or_default();
        Error::input(
            format!("kubeconfig {shown} is not a valid kubeconfig YAML{at}"),
            "check the file, or fetch it again with `kubectl nestor kubeconfig fetch`",
        )
    })?;
    let current = match file.current_context.as_deref().map(str::trim) {
        Some(c) if !c.is_empty() => c.to_string(),
        _ => {
            let names: Vec<&str> = file.contexts.iter().map(|c| c.name.as_str()).collect();
            return Err(Error::input(
                format!("kubeconfig {shown} has no current-context"),
                format!(
                    "nestor never guesses a context: set one with `kubectl --kubeconfig {shown} config use-context NAME` (contexts: {})",
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                ),
            ));
        }
    };
    let ctx = file
        .contexts
        .iter()
        .find(|c| c.name == current)
        .ok_or_else(|| {
            Error::input(
                format!("kubeconfig {shown}: current-context `{current}` names no context"),
                "fix current-context, or fetch the file again with `kubectl nestor kubeconfig fetch`",
            )
        })?;
    let cluster = file
        .clusters
        .iter()
        .find(|c| c.name == ctx.context.cluster)
        .ok_or_else(|| {
            Error::input(
                format!(
                    "kubeconfig {shown}: context `{current}` names cluster `{}`, which is not in the file",
                    ctx.context.cluster
                ),
                "fix the context's cluster, or fetch the file again with `kubectl nestor kubeconfig fetch`",
            )
        })?;
    if cluster.context.server.trim().is_empty() {
        return Err(Error::input(
            format!(
                "kubeconfig {shown}: cluster `{}` has no server URL",
                cluster.name
            ),
            "set clusters[].cluster.server to the API server URL",
        ));
    }
    if !file.users.iter().any(|u| u.name == ctx.context.user) {
        return Err(Error::input(
            format!(
                "kubeconfig {shown}: context `{current}` names user `{}`, which is not in the file",
                ctx.context.user
            ),
            "fix the context's user, or fetch the file again with `kubectl nestor kubeconfig fetch`",
        ));
    }
    Ok(KubeTarget {
        context: current,
        cluster: cluster.name.clone(),
        user: ctx.context.user.clone(),
        server: cluster.context.server.trim().to_string(),
        namespace: ctx.context.namespace.clone(),
        contexts: file.contexts.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTg==
    server: https://10.67.2.11:6443
  name: dirqual
contexts:
- context:
    cluster: dirqual
    user: kubernetes-admin
  name: kubernetes-admin@dirqual
- context:
    cluster: other
    user: kubernetes-admin
  name: other
current-context: kubernetes-admin@dirqual
users:
- name: kubernetes-admin
  user:
    client-certificate-data: LS0tLS1CRUdJTg==
    client-key-data: LS0tLS1CRUdJTg==
";

    fn err(text: &str) -> String {
        parse(text.as_bytes(), Path::new("/k/c"))
            .err()
            .map(|e| e.message)
            .unwrap_or_default()
    }

    #[test]
    fn current_context_is_the_target() {
        let t = parse(GOOD.as_bytes(), Path::new("/k/c")).ok();
        let t = t.as_ref();
        assert_eq!(
            t.map(|t| t.server.as_str()),
            Some("https://10.67.2.11:6443")
        );
        assert_eq!(
            t.map(|t| t.context.as_str()),
            Some("kubernetes-admin@dirqual")
        );
        assert_eq!(t.map(|t| t.contexts), Some(2));
    }

    #[test]
    fn each_failure_is_distinct() {
        assert_eq!(err(""), "kubeconfig /k/c is empty");
        assert_eq!(
            err(&GOOD.replace("current-context: kubernetes-admin@dirqual\n", "")),
            "kubeconfig /k/c has no current-context"
        );
        assert_eq!(
            err(&GOOD.replace(
                "current-context: kubernetes-admin@dirqual",
                "current-context: nope"
            )),
            "kubeconfig /k/c: current-context `nope` names no context"
        );
        assert_eq!(
            err(&GOOD.replace("    cluster: dirqual\n", "    cluster: gone\n")),
            "kubeconfig /k/c: context `kubernetes-admin@dirqual` names cluster `gone`, which is not in the file"
        );
        assert_eq!(
            err(&GOOD.replace("- name: kubernetes-admin\n", "- name: someone\n")),
            "kubeconfig /k/c: context `kubernetes-admin@dirqual` names user `kubernetes-admin`, which is not in the file"
        );
        assert!(err("[: not yaml").starts_with("kubeconfig /k/c is not a valid kubeconfig YAML"));
    }

    #[test]
    fn a_dangling_symlink_is_named_as_such() {
        let dir = tempfile::tempdir().expect("tempdir");
        let link = dir.path().join("dirqual.config");
        let gone = dir.path().join("gone.config");
        std::os::unix::fs::symlink(&gone, &link).expect("symlink");
        let e = read(&link).expect_err("an error");
        assert_eq!(
            e.message,
            format!(
                "kubeconfig {} is a symlink to {}, which does not exist",
                link.display(),
                gone.display()
            )
        );
        let e = read(&dir.path().join("absent.config")).expect_err("an error");
        assert!(
            e.message.ends_with("absent.config does not exist"),
            "{}",
            e.message
        );
    }

    #[test]
    fn yaml_errors_never_quote_secrets() {
        let broken = GOOD.replace(
            "client-key-data: LS0tLS1CRUdJTg==",
            "client-key-data: [SECRETKEY",
        );
        let e = parse(broken.as_bytes(), Path::new("/k/c")).err();
        let text = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(!text.contains("SECRETKEY"), "{text}");
        assert!(text.contains("not a valid kubeconfig"), "{text}");
    }
}
