//! nestor's own reading of a kubeconfig file: the PRE-CHECK that explains errors well (its
//! `current-context`, that context's cluster and user, the cluster's server URL). It is never
//! the authority on the target — kubectl is (`target::authority`) — so it is strict where
//! YAML readers disagree: every entry must have exactly its own body key (`cluster:` in
//! `clusters`, `context:` in `contexts`, `user:` in `users`), known keys only in cluster and
//! context bodies, every key of kubectl's own types and no other (a misspelt `tokenfile:` is
//! refused, not skipped), plain YAML only (no anchor, alias, tag or merge key:
//! `target::plain_yaml`), no duplicate name, no name or server with surrounding whitespace or
//! control characters, no `proxy-url`. The current-context is authoritative
//! (no `--context` guessing), and each way a file can fail to name a target is its own
//! error. Credentials are never decoded (only which credential keys each user has:
//! `target::credentials`), never printed.

use std::path::Path;

use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::target::credentials::{Present, UserBody, UserCredentials};
use crate::target::plain_yaml::{self, Scan};

/// What a kubeconfig says about its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeTarget {
    pub context: String,
    pub cluster: String,
    pub user: String,
    pub server: String,
    pub namespace: Option<String>,
    /// The cluster's `tls-server-name`, passed along when the server is pinned.
    pub tls_server_name: Option<String>,
    /// Number of contexts in the file (a notice is printed when more than one).
    pub contexts: usize,
    /// Users (any, not only the target's) whose credential runs a command or a provider:
    /// `(name, "exec" | "auth-provider")`.
    pub command_users: Vec<(String, &'static str)>,
    /// Every user and the credential keys it has (never the values), in file order.
    pub users: Vec<UserCredentials>,
    /// The clusters naming a `certificate-authority` file of this machine.
    pub ca_file_clusters: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct File {
    #[serde(rename = "apiVersion")]
    api_version: IgnoredAny,
    kind: IgnoredAny,
    preferences: IgnoredAny,
    extensions: IgnoredAny,
    #[serde(rename = "current-context")]
    current_context: Option<String>,
    contexts: Vec<NamedContext>,
    clusters: Vec<NamedCluster>,
    users: Vec<NamedUser>,
    #[serde(rename = "<<")]
    merge: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NamedContext {
    name: String,
    context: ContextBody,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NamedCluster {
    name: String,
    cluster: ClusterBody,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NamedUser {
    name: String,
    user: UserBody,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct ContextBody {
    cluster: String,
    user: String,
    namespace: Option<String>,
    extensions: IgnoredAny,
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct ClusterBody {
    server: String,
    #[serde(rename = "tls-server-name")]
    tls_server_name: Option<String>,
    #[serde(rename = "proxy-url")]
    proxy_url: Option<String>,
    #[serde(rename = "insecure-skip-tls-verify")]
    insecure_skip_tls_verify: IgnoredAny,
    #[serde(rename = "certificate-authority")]
    certificate_authority: Present,
    #[serde(rename = "certificate-authority-data")]
    certificate_authority_data: IgnoredAny,
    #[serde(rename = "disable-compression")]
    disable_compression: IgnoredAny,
    extensions: IgnoredAny,
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
    let bytes = crate::bounded::read(path, "kubeconfig").map_err(|e| unreadable(path, &e))??;
    parse(&bytes, path)
}

fn unreadable(path: &Path, e: &std::io::Error) -> Error {
    Error::input(
        format!("kubeconfig {} is not readable: {e}", path.display()),
        "check the file's owner and permissions (it should be 0600 and yours)",
    )
}

const REFETCH: &str = "fix the file, or fetch it again with `kubectl nestor kubeconfig fetch`";

/// Parse kubeconfig bytes; `path` is only used in messages.
pub fn parse(bytes: &[u8], path: &Path) -> Result<KubeTarget> {
    let shown = path.display();
    crate::bounded::check_depth(bytes, path, "kubeconfig")?;
    let text = std::str::from_utf8(bytes).map_err(|_| {
        Error::input(
            format!("kubeconfig {shown} is not UTF-8 text"),
            "check the file, or fetch it again with `kubectl nestor kubeconfig fetch`",
        )
    })?;
    if text.trim().is_empty() {
        return Err(Error::input(
            format!("kubeconfig {shown} is empty"),
            "fetch it again with `kubectl nestor kubeconfig fetch`",
        ));
    }
    // Plain YAML first: a merge key or an alias is refused before any reading of it.
    let plain = plain_yaml::scan(text);
    if let Scan::Refused { what, at } = plain {
        return Err(not_plain(path, what, at));
    }
    let file: File = yaml_serde::from_str(text).map_err(|e| {
        // The YAML error may quote the file's content: keep only its position, and the
        // structural complaint (an unknown, missing or duplicate key) that names no value.
        let problem = crate::suggest::YamlProblem::of(&e);
        let at = problem
            .location
            .map(|(line, column)| format!(" (line {line}, column {column})"))
            .unwrap_or_default();
        // `clusters[0]: unknown field `context`, expected ...`: the path and the complaint.
        let structural = ["unknown field", "missing field", "duplicate field"]
            .iter()
            .any(|p| problem.message.contains(p));
        let what = match &problem.path {
            Some(path) => format!("{path}: {}", problem.message),
            None => problem.message.clone(),
        };
        // A key is the file's content too: a shadow line read as a kubeconfig is one long
        // "unknown field" (issue 49). Only a plain key (letters, digits, `-_.`, at most 40) is
        // named; anything else is said to be there, not what it is.
        let detail = if structural && crate::suggest::plain_keys_only(&what) {
            format!(": {}", crate::term::escape(&what))
        } else if structural {
            ": a key that is not a kubeconfig's (not shown: the file's content is never quoted)"
                .to_string()
        } else {
            String::new()
        };
        Error::input(
            format!("kubeconfig {shown} is not a valid kubeconfig YAML{at}{detail}"),
            "every cluster entry is `{name, cluster: {server: ...}}`, every context `{name, context: {cluster, user}}`, every user `{name, user: {...}}`; fix the file, or fetch it again with `kubectl nestor kubeconfig fetch`",
        )
    })?;
    if file.merge.is_some() {
        return Err(merge_key(path));
    }
    if let Scan::Unreadable { at } = plain {
        // serde's reader took it, the event parser did not: two readers disagree.
        return Err(not_plain(path, "YAML that another reader cannot parse", at));
    }
    for (list, names) in [
        (
            "clusters",
            file.clusters.iter().map(|c| &c.name).collect::<Vec<_>>(),
        ),
        ("contexts", file.contexts.iter().map(|c| &c.name).collect()),
        ("users", file.users.iter().map(|u| &u.name).collect()),
    ] {
        for (i, n) in names.iter().enumerate() {
            check_name(n, list, path)?;
            if names[..i].contains(n) {
                return Err(Error::input(
                    format!(
                        "kubeconfig {shown}: two {list} are named `{}`: kubectl refuses such a file",
                        crate::term::escape(n)
                    ),
                    format!("keep one entry per name in {list}; {REFETCH}"),
                ));
            }
        }
    }
    let current = match file.current_context.as_deref() {
        Some(c) if !c.trim().is_empty() => c.to_string(),
        _ => {
            let names: Vec<String> = file
                .contexts
                .iter()
                .map(|c| crate::term::escape(&c.name))
                .collect();
            return Err(Error::input(
                format!("kubeconfig {shown} has no current-context"),
                format!(
                    "nestor never guesses a context: set one with `kubectl --kubeconfig {shown} config use-context NAME` (contexts: {})",
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                ),
            ));
        }
    };
    check_name(&current, "current-context", path)?;
    if current.starts_with('-') {
        // kubectl would read `--context -x` as a flag (issue 31 item 8): a usage error, never
        // an argv the allowlist must refuse as nestor's bug.
        return Err(Error::input(
            format!(
                "kubeconfig {shown}: current-context `{}` starts with `-`: kubectl would read it as a flag",
                crate::term::escape(&current)
            ),
            "rename the context so it does not start with `-` (and point current-context at it), or fetch the file again with `kubectl nestor kubeconfig fetch`",
        ));
    }
    let ctx = file
        .contexts
        .iter()
        .find(|c| c.name == current)
        .ok_or_else(|| {
            Error::input(
                format!(
                    "kubeconfig {shown}: current-context `{}` names no context",
                    crate::term::escape(&current)
                ),
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
                    "kubeconfig {shown}: context `{}` names cluster `{}`, which is not in the file",
                    crate::term::escape(&current),
                    crate::term::escape(&ctx.context.cluster)
                ),
                "fix the context's cluster, or fetch the file again with `kubectl nestor kubeconfig fetch`",
            )
        })?;
    let server = &cluster.cluster.server;
    if server.trim().is_empty() {
        return Err(Error::input(
            format!(
                "kubeconfig {shown}: cluster `{}` has no server URL",
                crate::term::escape(&cluster.name)
            ),
            "set clusters[].cluster.server to the API server URL: kubectl would silently fall back to localhost:8080 (or KUBERNETES_MASTER), nestor never does",
        ));
    }
    if server.trim() != server || server.chars().any(|c| c.is_control() || c == ' ') {
        return Err(Error::input(
            format!(
                "kubeconfig {shown}: the server URL of cluster `{}` holds spaces or control characters",
                crate::term::escape(&cluster.name)
            ),
            format!("write the URL alone, e.g. `server: https://10.0.0.1:6443`; {REFETCH}"),
        ));
    }
    if let Err((what, hint)) = crate::stack::endpoint::parse(server) {
        return Err(Error::input(
            format!(
                "kubeconfig {shown}: the server URL of cluster `{}` is refused: {}",
                crate::term::escape(&cluster.name),
                crate::term::escape(&what)
            ),
            format!("{hint}; {REFETCH}"),
        ));
    }
    if let Some(proxy) = cluster
        .cluster
        .proxy_url
        .as_deref()
        .filter(|p| !p.is_empty())
    {
        return Err(Error::input(
            format!(
                "kubeconfig {shown}: cluster `{}` sends its requests through proxy-url {}: nestor reads only an API server it reaches directly",
                crate::term::escape(&cluster.name),
                crate::term::escape(&crate::redact::redact_url(proxy))
            ),
            "a proxy decides where requests really go and cannot be pinned on kubectl's command line: use a kubeconfig without proxy-url (an ssh tunnel to a loopback port is one way)",
        ));
    }
    if !file.users.iter().any(|u| u.name == ctx.context.user) {
        return Err(Error::input(
            format!(
                "kubeconfig {shown}: context `{}` names user `{}`, which is not in the file",
                crate::term::escape(&current),
                crate::term::escape(&ctx.context.user)
            ),
            "fix the context's user, or fetch the file again with `kubectl nestor kubeconfig fetch`",
        ));
    }
    let users: Vec<UserCredentials> = file
        .users
        .iter()
        .map(|u| UserCredentials {
            name: u.name.clone(),
            keys: u.user.keys(),
        })
        .collect();
    let command_users = users
        .iter()
        .filter_map(|u| {
            let has = |k: &str| u.keys.iter().any(|x| x == k);
            match (has("exec"), has("auth-provider")) {
                (true, _) => Some((u.name.clone(), "exec")),
                (false, true) => Some((u.name.clone(), "auth-provider")),
                (false, false) => None,
            }
        })
        .collect();
    let ca_file_clusters = file
        .clusters
        .iter()
        .filter(|c| {
            c.cluster.certificate_authority != Present::Null
                && c.cluster.certificate_authority != Present::Empty
        })
        .map(|c| c.name.clone())
        .collect();
    Ok(KubeTarget {
        context: current,
        cluster: cluster.name.clone(),
        user: ctx.context.user.clone(),
        server: server.clone(),
        namespace: ctx.context.namespace.clone(),
        tls_server_name: cluster
            .cluster
            .tls_server_name
            .clone()
            .filter(|t| !t.is_empty()),
        contexts: file.contexts.len(),
        command_users,
        users,
        ca_file_clusters,
    })
}

fn not_plain(path: &Path, what: &str, (line, column): (usize, usize)) -> Error {
    Error::input(
        format!(
            "kubeconfig {}: {what} (near line {line}, column {column}): YAML readers do not all resolve it alike, and kubectl may see entries nestor does not",
            path.display()
        ),
        format!("write every entry out in full, without anchors, aliases, tags or merge keys; {REFETCH}"),
    )
}

fn merge_key(path: &Path) -> Error {
    Error::input(
        format!(
            "kubeconfig {}: a YAML merge key (`<<`) is not read the same way by every reader",
            path.display()
        ),
        format!("write the entries out in full; {REFETCH}"),
    )
}

/// Names are compared byte for byte by kubectl: one with surrounding whitespace or a control
/// character is one a human cannot tell from another.
fn check_name(name: &str, what: &str, path: &Path) -> Result<()> {
    if name == "<<" {
        return Err(merge_key(path));
    }
    if name.is_empty() || name.trim() != name || name.chars().any(char::is_control) {
        return Err(Error::input(
            format!(
                "kubeconfig {}: a name in {what} (`{}`) is empty or holds surrounding whitespace or control characters",
                path.display(),
                crate::term::escape(name)
            ),
            format!("names are compared byte for byte; {REFETCH}"),
        ));
    }
    Ok(())
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
            err(&GOOD.replace("kubernetes-admin@dirqual", "-x")),
            "kubeconfig /k/c: current-context `-x` starts with `-`: kubectl would read it as a flag"
        );
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

    /// Issue 21: an `exec:` user under a merge key, a misspelt key and an unknown top-level
    /// key were skipped by nestor's reader (kubectl reads the first as an exec user).
    #[test]
    fn merge_keys_aliases_and_unknown_keys_are_refused() {
        let merged = GOOD.replace(
            "    client-key-data: LS0tLS1CRUdJTg==\n",
            "    client-key-data: LS0tLS1CRUdJTg==\n    <<: {exec: {command: /bin/sh}}\n",
        );
        assert_eq!(
            err(&merged),
            "kubeconfig /k/c: a merge key (`<<`) (near line 23, column 5): YAML readers do not all resolve it alike, and kubectl may see entries nestor does not"
        );
        let aliased = GOOD.replace(
            "    client-key-data: LS0tLS1CRUdJTg==\n",
            "    client-key-data: &k LS0tLS1CRUdJTg==\n    token: *k\n",
        );
        assert!(
            err(&aliased).contains("an anchor (`&name`)"),
            "{}",
            err(&aliased)
        );
        let misspelt = GOOD.replace("client-key-data:", "tokenfile:");
        assert!(
            err(&misspelt).contains("users[0].user: unknown field `tokenfile`"),
            "{}",
            err(&misspelt)
        );
        let top = format!("{GOOD}shadow: x\n");
        assert!(
            err(&top).contains("unknown field `shadow`"),
            "{}",
            err(&top)
        );
    }

    #[test]
    fn credential_keys_and_ca_files_are_recorded_never_their_values() {
        let text = GOOD
            .replace(
                "    certificate-authority-data: LS0tLS1CRUdJTg==\n",
                "    certificate-authority: /etc/ca.crt\n",
            )
            .replace(
                "    client-key-data: LS0tLS1CRUdJTg==\n",
                "    tokenFile: ~/.vault-token\n",
            );
        let t = parse(text.as_bytes(), Path::new("/k/c")).expect("parse");
        assert_eq!(
            t.users,
            [UserCredentials {
                name: "kubernetes-admin".into(),
                keys: vec!["client-certificate-data".into(), "tokenFile".into()],
            }]
        );
        assert_eq!(t.ca_file_clusters, ["dirqual"]);
        assert_eq!(t.command_users, []);
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
