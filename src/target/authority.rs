//! kubectl is the one authority on what a kubeconfig means (SPEC §4). nestor's own reader
//! (`kubeconfig`) is a strict pre-check that explains errors; then kubectl itself is asked
//! what the file says for the pre-checked context (`config view --minify -o json`: a local
//! read that redacts every credential). Both must agree on the context, its cluster, its user
//! and the server URL byte for byte, and kubectl must see no `proxy-url`; any difference is a
//! file the two read differently, refused (exit 1) before any cluster read.
//!
//! The view itself is pinned (`--context`, `--server` of the pre-check): `config view` shows
//! the file's own server whatever `--server` says, and no kubectl — nor a version dispatcher in
//! front of it, which probes `/version` before running anything — ever dials a server that the
//! file does not name, or localhost:8080.

use std::path::Path;

use serde::Deserialize;

use crate::env::Environment;
use crate::error::{Error, Result};
use crate::read::exec::{Failure, Output, Runner};
use crate::read::kubectl::{Kubectl, Pin};
use crate::target::kubeconfig::{self, KubeTarget};

#[derive(Deserialize, Default)]
#[serde(default)]
struct View {
    #[serde(rename = "current-context")]
    current_context: String,
    clusters: Vec<ViewCluster>,
    contexts: Vec<ViewContext>,
    users: Vec<ViewUser>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ViewCluster {
    name: String,
    cluster: ViewClusterBody,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ViewClusterBody {
    server: String,
    #[serde(rename = "proxy-url")]
    proxy_url: String,
    #[serde(rename = "tls-server-name")]
    tls_server_name: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ViewContext {
    name: String,
    context: ViewContextBody,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ViewContextBody {
    cluster: String,
    user: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ViewUser {
    name: String,
}

/// The pin of every kubectl call to the target both readers agree on.
pub fn pin_of(target: &KubeTarget) -> Pin {
    Pin {
        context: target.context.clone(),
        server: target.server.clone(),
        tls_server_name: target.tls_server_name.clone(),
    }
}

/// nestor's pre-check of the file at `path` (no process runs).
pub fn precheck(path: &Path) -> Result<KubeTarget> {
    kubeconfig::read(path)
}

/// [`precheck`] of the file `rule` chose. A hint that offers `kubeconfig fetch` for a file
/// the operator named (`--kubeconfig`, `KUBECONFIG`) says that fetch would not write that
/// file: it writes the stack's declared `kubeconfig:`.
pub fn precheck_chosen(path: &Path, rule: crate::target::Rule) -> Result<KubeTarget> {
    use crate::target::Rule;
    let named = match rule {
        Rule::Flag => Some("--kubeconfig"),
        Rule::Env => Some("KUBECONFIG"),
        Rule::Topology | Rule::LimaBench | Rule::Snapshot => None,
    };
    precheck(path).map_err(|e| match named {
        Some(how) if e.hint.contains("kubeconfig fetch") => {
            let hint = format!(
                "{} (`kubeconfig fetch` writes the stack's declared kubeconfig:, not this {how} file)",
                e.hint
            );
            e.with_hint(hint)
        }
        _ => e,
    })
}

/// `kubectl config view [extra] -o=json` of `path`, pinned to `target`: a local read, bounded but
/// not by a cluster's request timeout (a version dispatcher in front of kubectl may spend
/// seconds on its own probe on a loaded machine). kubectl's complaint, redacted, escaped and
/// cut to 300 characters, becomes `refused(why)`; any other failure is the process layer's.
fn config_view(
    runner: &Runner,
    env: &Environment,
    path: &Path,
    target: &KubeTarget,
    extra: &[&str],
    refused: impl FnOnce(String) -> Error,
) -> Result<Output> {
    let mut local = runner.clone();
    local.timeout = local.timeout.max(std::time::Duration::from_secs(10));
    let kubectl = Kubectl::new(&local, path, pin_of(target), env);
    let mut args = vec!["config", "view"];
    args.extend_from_slice(extra);
    args.push("-o=json");
    kubectl.run(&args).map_err(|e| {
        let why = match &e.failure {
            Failure::Exit { stderr, .. } => crate::model::observation::kubectl_message(stderr),
            Failure::Refused { .. }
            | Failure::Missing { .. }
            | Failure::Spawn { .. }
            | Failure::Exhausted { .. }
            | Failure::TimedOut { .. }
            | Failure::Signaled { .. }
            | Failure::TooLarge { .. } => return e.into_error(),
        };
        let why = crate::term::escape(&crate::redact::text(&why));
        refused(why.chars().take(300).collect())
    })
}

/// Ask kubectl what the file means for the pre-checked context, and refuse any difference:
/// the pre-check's target, now agreed by both readers.
pub fn confirm(
    runner: &Runner,
    env: &Environment,
    path: &Path,
    target: KubeTarget,
) -> Result<KubeTarget> {
    let out = config_view(runner, env, path, &target, &["--minify"], |why| {
        Error::input(
            format!("kubectl cannot read kubeconfig {}: {why}", path.display()),
            "check the file with `kubectl --kubeconfig FILE config view --minify` (kubectl decides what a kubeconfig means)",
        )
    })?;
    let view: View = serde_json::from_slice(&out.stdout).map_err(|e| {
        Error::input(
            format!(
                "kubectl's view of kubeconfig {} is not the JSON expected: {e}",
                path.display()
            ),
            "run `kubectl --kubeconfig FILE config view --minify -o json` to see what kubectl makes of the file",
        )
    })?;
    agree(&target, &view, path)?;
    Ok(target)
}

/// kubectl's whole redacted view (`config view -o=json`, no `--minify`): every user with
/// the keys of its credential, every cluster with its keys; values are never kept.
#[derive(Deserialize, Default)]
#[serde(default)]
struct FullView {
    clusters: Vec<Entry<ViewClusterKeys>>,
    users: Vec<Entry<std::collections::BTreeMap<String, serde_json::Value>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Entry<T> {
    name: String,
    /// `user:` of a user entry, `cluster:` of a cluster entry.
    #[serde(rename = "user", alias = "cluster")]
    body: T,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ViewClusterKeys {
    #[serde(rename = "certificate-authority")]
    certificate_authority: String,
}

/// `kubeconfig fetch`: kubectl's own redacted view of the whole file at `path` (not only
/// the target's entries) must show the users nestor's strict reader found, each with the same
/// credential keys, and the same clusters naming a CA file — a credential nestor cannot see
/// (a merge key, a look-alike key) is one kubectl would use. `target` is nestor's reading.
pub fn agree_on_users(
    runner: &Runner,
    env: &Environment,
    path: &Path,
    target: &KubeTarget,
) -> Result<()> {
    let out = config_view(runner, env, path, target, &[], |why| {
        Error::input(
            format!("kubectl cannot read it: {why}"),
            "kubectl decides what a kubeconfig means: a file it cannot read is not written",
        )
    })?;
    let view: FullView = serde_json::from_slice(&out.stdout).map_err(|_| {
        Error::input(
            "kubectl's view of it is not the JSON expected",
            "check the kubectl on PATH (`kubectl version --client`)",
        )
    })?;
    agree_users(&view, target)
}

/// [`agree_on_users`]'s comparison, pure.
fn agree_users(view: &FullView, target: &KubeTarget) -> Result<()> {
    let mut theirs: Vec<(String, Vec<String>)> = view
        .users
        .iter()
        .map(|u| {
            let keys = u
                .body
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, _)| k.clone())
                .collect();
            (u.name.clone(), keys)
        })
        .collect();
    let mut mine: Vec<(String, Vec<String>)> = target
        .users
        .iter()
        .map(|u| (u.name.clone(), u.keys.clone()))
        .collect();
    theirs.sort();
    mine.sort();
    let names = |l: &[(String, Vec<String>)]| -> String {
        l.iter()
            .map(|(n, _)| format!("`{}`", crate::term::escape(n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let differ = |what: String| {
        Error::input(
            format!("kubectl and nestor read it differently: {what}"),
            "the file is ambiguous (a merge key, an alias, a look-alike key): a kubeadm admin.conf is plain YAML with one user holding client-certificate-data and client-key-data",
        )
    };
    if theirs.len() != mine.len() || theirs.iter().zip(&mine).any(|(a, b)| a.0 != b.0) {
        return Err(differ(format!(
            "users {} for kubectl, {} for nestor",
            names(&theirs),
            names(&mine)
        )));
    }
    for ((name, a), (_, b)) in theirs.iter().zip(&mine) {
        if a != b {
            return Err(differ(format!(
                "user `{}` has the credential keys [{}] for kubectl, [{}] for nestor",
                crate::term::escape(name),
                crate::term::escape(&a.join(", ")),
                b.join(", ")
            )));
        }
    }
    let mut cas: Vec<&str> = view
        .clusters
        .iter()
        .filter(|c| !c.body.certificate_authority.is_empty())
        .map(|c| c.name.as_str())
        .collect();
    let mut my_cas: Vec<&str> = target.ca_file_clusters.iter().map(String::as_str).collect();
    cas.sort();
    my_cas.sort();
    if cas != my_cas {
        return Err(differ(format!(
            "the clusters naming a certificate-authority file are [{}] for kubectl, [{}] for nestor",
            crate::term::escape(&cas.join(", ")),
            crate::term::escape(&my_cas.join(", "))
        )));
    }
    Ok(())
}

/// Both readers must name the same context, cluster, user and server, and kubectl no proxy.
fn agree(target: &KubeTarget, view: &View, path: &Path) -> Result<()> {
    let shown = path.display();
    let differ = |what: &str, mine: &str, theirs: &str| {
        Error::input(
            format!(
                "kubeconfig {shown} is read differently by kubectl and by nestor: {what} `{}` for kubectl, `{}` for nestor",
                crate::term::escape(theirs),
                crate::term::escape(mine)
            ),
            "the file is ambiguous (a misspelt key, a merge key, a duplicate or look-alike name): write it plainly, one entry per name, and check it with `kubectl --kubeconfig FILE config view --minify`",
        )
    };
    if view.current_context != target.context {
        return Err(differ("context", &target.context, &view.current_context));
    }
    let (Some(ctx), Some(cluster), Some(user)) = (
        view.contexts.first(),
        view.clusters.first(),
        view.users.first(),
    ) else {
        return Err(differ(
            "the resolved entries",
            "a context, a cluster and a user",
            "fewer",
        ));
    };
    if view.contexts.len() != 1 || view.clusters.len() != 1 || view.users.len() != 1 {
        return Err(differ("the number of entries", "1", "several"));
    }
    if ctx.name != target.context {
        return Err(differ("context", &target.context, &ctx.name));
    }
    if ctx.context.cluster != target.cluster || cluster.name != target.cluster {
        return Err(differ("cluster", &target.cluster, &cluster.name));
    }
    if ctx.context.user != target.user || user.name != target.user {
        return Err(differ("user", &target.user, &user.name));
    }
    if cluster.cluster.server.is_empty() {
        return Err(Error::input(
            format!(
                "kubeconfig {shown}: kubectl finds no server URL for cluster `{}`",
                crate::term::escape(&target.cluster)
            ),
            "set clusters[].cluster.server to the API server URL: kubectl would silently fall back to localhost:8080 (or KUBERNETES_MASTER), nestor never does",
        ));
    }
    if cluster.cluster.server != target.server {
        return Err(differ("server", &target.server, &cluster.cluster.server));
    }
    if !cluster.cluster.proxy_url.is_empty() {
        return Err(differ("proxy-url", "none", &cluster.cluster.proxy_url));
    }
    let tls = target.tls_server_name.as_deref().unwrap_or_default();
    if cluster.cluster.tls_server_name != tls {
        return Err(differ(
            "tls-server-name",
            tls,
            &cluster.cluster.tls_server_name,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> KubeTarget {
        KubeTarget {
            context: "admin@dirqual".into(),
            cluster: "dirqual".into(),
            user: "admin".into(),
            server: "https://10.67.2.11:6443".into(),
            namespace: None,
            tls_server_name: None,
            contexts: 1,
            command_users: vec![],
            users: vec![],
            ca_file_clusters: vec![],
        }
    }

    fn view(server: &str, extra: &str) -> View {
        let json = format!(
            r#"{{"current-context":"admin@dirqual","clusters":[{{"name":"dirqual","cluster":{{"server":"{server}"{extra}}}}}],
               "contexts":[{{"name":"admin@dirqual","context":{{"cluster":"dirqual","user":"admin"}}}}],
               "users":[{{"name":"admin","user":{{"token":"REDACTED"}}}}]}}"#
        );
        serde_json::from_str(&json).expect("view")
    }

    #[test]
    fn the_whole_view_must_show_the_same_users_and_credential_keys() {
        let mine = parse_kc(
            "users:\n- name: admin\n  user:\n    client-certificate-data: QQ==\n    client-key-data: QQ==\n",
        );
        let view = |users: &str, cas: &str| -> FullView {
            serde_json::from_str(&format!(
                r#"{{"clusters":[{{"name":"dirqual","cluster":{{"server":"https://10.67.2.11:6443"{cas}}}}}],"users":{users}}}"#
            ))
            .expect("view")
        };
        let same = r#"[{"name":"admin","user":{"client-certificate-data":"DATA+OMITTED","client-key-data":"DATA+OMITTED"}}]"#;
        assert_eq!(agree_users(&view(same, ""), &mine), Ok(()));
        // The merge-key exec user: kubectl sees exec, nestor did not.
        let exec = r#"[{"name":"admin","user":{"client-certificate-data":"DATA+OMITTED","client-key-data":"DATA+OMITTED","exec":{"command":"/bin/sh","args":null}}}]"#;
        let e = agree_users(&view(exec, ""), &mine).expect_err("exec");
        assert_eq!(e.message, "kubectl and nestor read it differently: user `admin` has the credential keys [client-certificate-data, client-key-data, exec] for kubectl, [client-certificate-data, client-key-data] for nestor");
        let two = r#"[{"name":"admin","user":{}},{"name":"other","user":{"token":"REDACTED"}}]"#;
        let e = agree_users(&view(two, ""), &mine).expect_err("users");
        assert!(
            e.message
                .contains("users `admin`, `other` for kubectl, `admin` for nestor"),
            "{}",
            e.message
        );
        let e = agree_users(&view(same, r#","certificate-authority":"/etc/ca""#), &mine)
            .expect_err("ca");
        assert!(
            e.message.contains("[dirqual] for kubectl, [] for nestor"),
            "{}",
            e.message
        );
    }

    fn parse_kc(users: &str) -> KubeTarget {
        let text = format!(
            "clusters:\n- name: dirqual\n  cluster:\n    server: https://10.67.2.11:6443\ncontexts:\n- name: admin@dirqual\n  context:\n    cluster: dirqual\n    user: admin\ncurrent-context: admin@dirqual\n{users}"
        );
        kubeconfig::parse(text.as_bytes(), Path::new("/k/c")).expect("parse")
    }

    #[test]
    fn both_readers_must_agree() {
        let p = Path::new("/k/c");
        assert_eq!(
            agree(&target(), &view("https://10.67.2.11:6443", ""), p),
            Ok(())
        );
        let e = agree(&target(), &view("", ""), p).expect_err("no server");
        assert!(
            e.message.contains("kubectl finds no server URL"),
            "{}",
            e.message
        );
        let e = agree(&target(), &view("http://127.0.0.1:8080", ""), p).expect_err("differ");
        assert_eq!(e.message, "kubeconfig /k/c is read differently by kubectl and by nestor: server `http://127.0.0.1:8080` for kubectl, `https://10.67.2.11:6443` for nestor");
        let e = agree(
            &target(),
            &view(
                "https://10.67.2.11:6443",
                r#","proxy-url":"http://127.0.0.1:8080""#,
            ),
            p,
        )
        .expect_err("proxy");
        assert!(e.message.contains("proxy-url"), "{}", e.message);
    }
}
