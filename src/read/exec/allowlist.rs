//! The read-only allowlist (SPEC §9), checked before any process is spawned. Every argv
//! nestor can emit is described here; anything else is refused. The rules are written as
//! "what may pass", never as "what to block", so a new kubectl verb is refused by default.

use std::path::Path;

use super::Tool;

/// `kubectl proxy --reject-methods`: a regexp (Go RE2, matched against the method) that
/// matches every method except GET and HEAD. RE2 has no look-ahead, hence the spelling out.
pub const PROXY_REJECT_METHODS: &str =
    "^(?:[^GH].*|G|GE|G[^E].*|GE[^T].*|GET.+|H|HE|HEA|H[^E].*|HE[^A].*|HEA[^D].*|HEAD.+)$";
/// `kubectl proxy --reject-paths`: never secrets, tokens, logs or connect-style
/// subresources, even though a GET-only proxy could not open most of them.
pub const PROXY_REJECT_PATHS: &str =
    "/secrets(/|$),/token(/|$),/proxy(/|$),/exec(/|$),/attach(/|$),/portforward(/|$),/log(/|$)";

/// Path segments no read of nestor ever names (in a proxy accept-path or a raw path).
const FORBIDDEN_SEGMENTS: &[&str] = &[
    "secrets",
    "token",
    "proxy",
    "exec",
    "attach",
    "portforward",
    "log",
    "pods",
    "configmaps",
    "events",
    "serviceaccounts",
    "watch",
];

/// `kubectl proxy --accept-paths`: a comma-separated list of anchored regexps, each the
/// exact path of one read (`^/api/v1/nodes$`, dots escaped) or a custom resource's list or
/// group-version document at any version (`^/apis/GROUP/[a-z0-9]+(/PLURAL)?$`), nothing
/// else: no alternation, no open-ended wildcard, no forbidden segment.
pub fn accept_paths_ok(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Err("kubectl proxy: --accept-paths is empty".into());
    }
    for re in value.split(',') {
        let bad = || format!("kubectl proxy: accept-path `{re}` is not an exact read path");
        let inner = re
            .strip_prefix("^/")
            .and_then(|r| r.strip_suffix('$'))
            .ok_or_else(bad)?;
        let segments: Vec<&str> = inner.split('/').collect();
        for (i, segment) in segments.iter().enumerate() {
            let plain = segment.replace("\\.", ".");
            // A namespaced pod LIST (kube-system's static pods, read by label) is the one pod
            // path nestor reads: `pods` only as the last segment after a namespace, never a
            // pod, its log, exec, attach or port-forward.
            if plain == "pods"
                && i + 1 == segments.len()
                && i >= 2
                && segments[i - 2] == "namespaces"
            {
                continue;
            }
            let ok = plain == "[a-z0-9]+" && i == 2
                || (!plain.is_empty()
                    && !plain.starts_with('.')
                    && plain.bytes().all(|b| {
                        b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b)
                    })
                    && !segment.replace("\\.", "").contains('.'));
            if !ok || FORBIDDEN_SEGMENTS.contains(&plain.as_str()) {
                return Err(bad());
            }
        }
        if !(inner == "api"
            || inner == "apis"
            || inner.starts_with("api/")
            || inner.starts_with("apis/"))
        {
            return Err(bad());
        }
    }
    Ok(())
}

/// Percent-decode a path (`%73ecrets` is `secrets`); `None` for a malformed escape or bytes
/// that are not UTF-8.
fn percent_decode(path: &str) -> Option<String> {
    let b = path.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A `get --raw` path: decoded first, then plain segments only (no `..`, no query, no
/// second encoding) and no forbidden segment.
fn raw_path_ok(path: &str) -> bool {
    let Some(decoded) = percent_decode(path) else {
        return false;
    };
    decoded.starts_with('/')
        && !decoded.contains('%')
        && !decoded.contains("..")
        && decoded
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"/.-".contains(&b))
        && !decoded.split('/').any(|s| FORBIDDEN_SEGMENTS.contains(&s))
}

/// `Ok(())` if the argv may run, else the reason it is refused.
pub fn check(tool: Tool, args: &[String]) -> Result<(), String> {
    match tool {
        Tool::Kubectl => kubectl(args),
        Tool::Limactl => limactl(args),
        Tool::Ssh => ssh(args),
    }
}

fn limactl(args: &[String]) -> Result<(), String> {
    if args == ["list", "--json"] {
        Ok(())
    } else {
        Err("limactl: only `limactl list --json` is allowed".into())
    }
}

/// Split `--flag=value` or `--flag value`; returns (value, tokens consumed).
fn flag_value<'a>(args: &'a [String], i: usize, name: &str) -> Option<(&'a str, usize)> {
    let tok = args.get(i)?;
    if let Some(v) = tok.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
        return Some((v, 1));
    }
    if tok == name {
        return args.get(i + 1).map(|v| (v.as_str(), 2));
    }
    None
}

/// A pin value (`--context`, `--tls-server-name`): a plain name, never an option or a
/// control character.
fn is_pin_name(v: &str) -> bool {
    !v.is_empty() && !v.starts_with('-') && !v.chars().any(char::is_control)
}

/// A pinned server: an http(s) URL with no whitespace or control character.
fn is_pin_server(v: &str) -> bool {
    let lower = v.get(..8).unwrap_or(v).to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://"))
        && !v.chars().any(|c| c.is_control() || c.is_whitespace())
}

fn kubectl(args: &[String]) -> Result<(), String> {
    let (mut kubeconfigs, mut contexts, mut servers, mut caches, mut tls_names) = (0, 0, 0, 0, 0);
    let mut rest: Vec<&String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if let Some((v, n)) = flag_value(args, i, "--kubeconfig") {
            if v.is_empty() || v.starts_with('-') || v.contains(':') {
                return Err("kubectl: --kubeconfig needs one file".into());
            }
            kubeconfigs += 1;
            i += n;
        } else if let Some((v, n)) = flag_value(args, i, "--context") {
            if !is_pin_name(v) {
                return Err(format!("kubectl: bad --context `{v}`"));
            }
            contexts += 1;
            i += n;
        } else if let Some((v, n)) = flag_value(args, i, "--server") {
            if !is_pin_server(v) {
                return Err(format!("kubectl: bad --server `{v}`"));
            }
            servers += 1;
            i += n;
        } else if let Some((v, n)) = flag_value(args, i, "--tls-server-name") {
            if !is_pin_name(v) {
                return Err(format!("kubectl: bad --tls-server-name `{v}`"));
            }
            tls_names += 1;
            i += n;
        } else if let Some((v, n)) = flag_value(args, i, "--request-timeout") {
            if !v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.') || v.is_empty() {
                return Err(format!("kubectl: bad --request-timeout `{v}`"));
            }
            i += n;
        } else if let Some((v, n)) = flag_value(args, i, "--cache-dir") {
            if !v.starts_with('/') {
                return Err("kubectl: --cache-dir must be absolute".into());
            }
            caches += 1;
            i += n;
        } else if args[i] == "-s"
            || args[i].starts_with("--cluster")
            || args[i].starts_with("--user")
        {
            return Err(format!("kubectl: `{}` would unpin the target", args[i]));
        } else {
            rest.push(&args[i]);
            i += 1;
        }
    }
    if kubeconfigs != 1 {
        return Err("kubectl: every call carries exactly one explicit --kubeconfig".into());
    }
    if caches != 1 {
        return Err("kubectl: every call carries exactly one explicit --cache-dir".into());
    }
    // Every call is pinned to the confirmed target: one context, one server (SPEC §4).
    if contexts != 1 || servers != 1 || tls_names > 1 {
        return Err(
            "kubectl: every call is pinned with exactly one --context and one --server".into(),
        );
    }
    let words: Vec<&str> = rest.iter().map(|s| s.as_str()).collect();
    match words.as_slice() {
        ["get", tail @ ..] => kubectl_get(tail),
        ["version", tail @ ..] => only(tail, &[&["-o", "json"], &["--output=json"], &["-o=json"]]),
        ["api-versions"] => Ok(()),
        ["api-resources", tail @ ..] => kubectl_api_resources(tail),
        ["config", "view", tail @ ..] => {
            only_flags(tail, &["--minify", "-o=json", "--output=json", "-o=yaml"])
        }
        ["config", "current-context"] => Ok(()),
        ["config", "get-contexts", tail @ ..] => only_flags(tail, &["-o=name", "--no-headers"]),
        ["proxy", tail @ ..] => kubectl_proxy(tail),
        [verb, ..] => Err(format!(
            "kubectl: `{verb}` is not a read-only verb nestor uses"
        )),
        [] => Err("kubectl: no verb".into()),
    }
}

/// The tail must be empty or exactly one of the allowed spellings.
fn only(tail: &[&str], allowed: &[&[&str]]) -> Result<(), String> {
    if tail.is_empty() || allowed.contains(&tail) {
        Ok(())
    } else {
        Err(format!(
            "kubectl: arguments `{}` are not allowed",
            tail.join(" ")
        ))
    }
}

fn only_flags(tail: &[&str], allowed: &[&str]) -> Result<(), String> {
    match tail.iter().find(|t| !allowed.contains(t)) {
        None => Ok(()),
        Some(t) => Err(format!("kubectl: `{t}` is not allowed here")),
    }
}

fn kubectl_api_resources(tail: &[&str]) -> Result<(), String> {
    for t in tail {
        let ok = matches!(*t, "-o=name" | "-o=wide" | "--no-headers" | "--cached")
            || t.strip_prefix("--api-group=").is_some_and(is_name_list);
        if !ok {
            return Err(format!("kubectl: `{t}` is not allowed for api-resources"));
        }
    }
    Ok(())
}

fn is_name_list(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b".-,/".contains(&b))
}

fn names_secret(resource: &str) -> bool {
    resource.split([',', '/']).any(|r| {
        let kind = r.split('.').next().unwrap_or_default();
        kind == "secret" || kind == "secrets"
    })
}

fn kubectl_get(tail: &[&str]) -> Result<(), String> {
    let mut resources = 0;
    let mut i = 0;
    while i < tail.len() {
        let t = tail[i];
        let next = tail.get(i + 1).copied();
        match t {
            "-A" | "--all-namespaces" | "--ignore-not-found" => i += 1,
            "-o" | "--output" => {
                output_format(next.unwrap_or_default())?;
                i += 2;
            }
            "-n" | "--namespace" | "-l" | "--selector" => {
                match next {
                    Some(v) if !v.starts_with('-') && !v.is_empty() => {}
                    _ => return Err(format!("kubectl get: `{t}` needs a value")),
                }
                i += 2;
            }
            "--raw" => {
                let path = next.unwrap_or_default();
                if !raw_path_ok(path) {
                    return Err(format!("kubectl get --raw: path `{path}` is not allowed"));
                }
                resources += 1;
                i += 2;
            }
            _ if t.starts_with("-o=") || t.starts_with("--output=") => {
                output_format(t.split_once('=').map(|x| x.1).unwrap_or_default())?;
                i += 1;
            }
            _ if t.starts_with("--chunk-size=")
                && t["--chunk-size=".len()..]
                    .bytes()
                    .all(|b| b.is_ascii_digit()) =>
            {
                i += 1
            }
            _ if t.starts_with("--namespace=") || t.starts_with("--selector=") => i += 1,
            _ if t.starts_with('-') => {
                return Err(format!("kubectl get: flag `{t}` is not allowed"));
            }
            _ => {
                if !is_name_list(t) {
                    return Err(format!("kubectl get: `{t}` is not a resource name"));
                }
                if names_secret(t) {
                    return Err("kubectl get: secrets are never read".into());
                }
                resources += 1;
                i += 1;
            }
        }
    }
    if resources == 0 {
        return Err("kubectl get: no resource named".into());
    }
    Ok(())
}

fn output_format(f: &str) -> Result<(), String> {
    if matches!(f, "json" | "yaml" | "name") || f.starts_with("jsonpath=") {
        Ok(())
    } else {
        Err(format!("kubectl get: output `{f}` is not allowed"))
    }
}

fn kubectl_proxy(tail: &[&str]) -> Result<(), String> {
    let mut socket = None;
    let mut methods = false;
    let mut accept = false;
    let mut reject = false;
    for t in tail {
        if let Some(p) = t.strip_prefix("--unix-socket=") {
            socket = Some(p);
        } else if t.strip_prefix("--reject-methods=") == Some(PROXY_REJECT_METHODS) {
            methods = true;
        } else if let Some(value) = t.strip_prefix("--accept-paths=") {
            accept_paths_ok(value)?;
            accept = true;
        } else if t.strip_prefix("--reject-paths=") == Some(PROXY_REJECT_PATHS) {
            reject = true;
        } else {
            return Err(format!("kubectl proxy: `{t}` is not the restricted form"));
        }
    }
    let socket = socket.ok_or("kubectl proxy: only on a --unix-socket")?;
    if !(methods && accept && reject) {
        return Err("kubectl proxy: --reject-methods, --accept-paths and --reject-paths are required in their restricted form".into());
    }
    private_socket_dir(Path::new(socket))
}

/// The socket must live in a private directory (a real directory, mode 0700).
fn private_socket_dir(socket: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let dir = socket
        .parent()
        .filter(|_| socket.is_absolute())
        .ok_or("kubectl proxy: the socket path must be absolute")?;
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| format!("kubectl proxy: socket directory {}: {e}", dir.display()))?;
    if !meta.is_dir() || meta.mode() & 0o777 != 0o700 {
        return Err(format!(
            "kubectl proxy: socket directory {} must be a private 0700 directory",
            dir.display()
        ));
    }
    Ok(())
}

fn ssh(args: &[String]) -> Result<(), String> {
    let mut i = 0;
    let (mut port, mut key, mut timeout, mut batch) = (false, false, false, false);
    while i < args.len() && args[i].starts_with('-') {
        let value = args.get(i + 1).map(String::as_str).unwrap_or_default();
        match args[i].as_str() {
            "-p" if !port && value.parse::<u16>().is_ok_and(|p| p > 0) => port = true,
            "-i" if !key && value.starts_with('/') => key = true,
            "-o" if !timeout
                && value
                    .strip_prefix("ConnectTimeout=")
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
            {
                timeout = true
            }
            "-o" if !batch && value == "BatchMode=yes" => batch = true,
            other => return Err(format!("ssh: option `{other} {value}` is not allowed")),
        }
        i += 2;
    }
    if !timeout {
        return Err("ssh: -o ConnectTimeout=N is required".into());
    }
    let dest = args.get(i).map(String::as_str).unwrap_or_default();
    if !is_destination(dest) {
        return Err(format!("ssh: destination `{dest}` is not [user@]host"));
    }
    let command: Vec<&str> = args[i + 1..].iter().map(String::as_str).collect();
    match command.as_slice() {
        ["true"] => Ok(()),
        ["sudo", "-n", "cat", path] | ["cat", path] if is_remote_path(path) => Ok(()),
        // The host checks of SPEC §13, each word quoted (their own grammar).
        words => super::hostcmd::admits(dest, words),
    }
}

/// `user@host` or a bare `host` (ssh then picks the user): the same host rules either way.
fn is_destination(dest: &str) -> bool {
    match dest.split_once('@') {
        Some((user, host)) => is_ssh_user(user) && is_ssh_host(host),
        None => is_ssh_host(dest),
    }
}

/// A login name nestor may put in an ssh destination (POSIX-ish, never an option).
pub fn is_ssh_user(user: &str) -> bool {
    user.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && user
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
}

/// A host name or IP address nestor may put in an ssh destination (never an option).
pub fn is_ssh_host(host: &str) -> bool {
    !host.is_empty()
        && !host.starts_with('-')
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".:-[]".contains(&b))
}

fn is_remote_path(p: &str) -> bool {
    p.starts_with('/')
        && !p.contains("..")
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    const PIN: &str =
        "--kubeconfig /k/c --context c --server https://10.0.0.1:6443 --cache-dir=/h/.kube/cache";

    fn kube(s: &str) -> Result<(), String> {
        check(Tool::Kubectl, &argv(&format!("{PIN} {s}")))
    }

    #[test]
    fn every_call_is_pinned() {
        for unpinned in [
            "--kubeconfig /k/c --cache-dir=/c get nodes -o json",
            "--kubeconfig /k/c --context c --cache-dir=/c get nodes -o json",
            "--kubeconfig /k/c --server https://x --cache-dir=/c get nodes -o json",
            "--kubeconfig /k/c --context c --server https://x get nodes -o json",
            "--kubeconfig /k/c --context c --context d --server https://x --cache-dir=/c get nodes",
            "--kubeconfig /k/c --context c --server https://x --server https://y --cache-dir=/c get nodes",
            "--kubeconfig /k/c --context c --server localhost:8080 --cache-dir=/c get nodes",
            "--kubeconfig /k/a:/k/b --context c --server https://x --cache-dir=/c get nodes",
            "--kubeconfig /k/c --cache-dir=/c config view --minify -o=json",
        ] {
            assert!(check(Tool::Kubectl, &argv(unpinned)).is_err(), "{unpinned}");
        }
        for escape in ["-s https://y", "--cluster=x", "--user=x"] {
            assert!(kube(&format!("{escape} get nodes")).is_err(), "{escape}");
        }
        assert_eq!(kube("--tls-server-name=api.lan get nodes -o json"), Ok(()));
        assert_eq!(kube("config view --minify -o=json"), Ok(()));
    }

    #[test]
    fn reads_pass() {
        for ok in [
            "get nodes -o json",
            "--request-timeout=10s get nodes,namespaces -o json",
            "get daemonsets -A -o json",
            "get cephclusters.ceph.rook.io -n rook-ceph -o json",
            "get --raw /apis",
            "api-versions",
            "version -o json",
            "config current-context",
            "get ns --chunk-size=500 -o json",
        ] {
            assert_eq!(kube(ok), Ok(()), "{ok}");
        }
        assert_eq!(check(Tool::Limactl, &argv("list --json")), Ok(()));
        assert_eq!(
            check(
                Tool::Ssh,
                &argv("-p 2222 -i /k/id -o ConnectTimeout=5 -o BatchMode=yes root@10.0.0.1 cat /etc/kubernetes/admin.conf")
            ),
            Ok(())
        );
        assert_eq!(
            check(
                Tool::Ssh,
                &argv("-o ConnectTimeout=5 ops@cp1 sudo -n cat /etc/kubernetes/admin.conf")
            ),
            Ok(())
        );
    }

    #[test]
    fn ssh_destination_without_user_is_a_validated_host() {
        for ok in [
            "-o ConnectTimeout=5 cp1.lan sudo -n cat /etc/kubernetes/admin.conf",
            "-p 2222 -o ConnectTimeout=1 -o BatchMode=yes 10.67.2.11 cat /etc/kubernetes/admin.conf",
            "-o ConnectTimeout=5 fe80::1 true",
        ] {
            assert_eq!(check(Tool::Ssh, &argv(ok)), Ok(()), "{ok}");
        }
        for bad in [
            "-o ConnectTimeout=5 @cp1 true",
            "-o ConnectTimeout=5 ops@ true",
            "-o ConnectTimeout=5 1ops@cp1 true",
            "-o ConnectTimeout=5 cp1;id true",
            "-o ConnectTimeout=5 cp1$(id) true",
            "-o ConnectTimeout=5 ops@-oProxyCommand=x true",
            "-o ConnectTimeout=5",
        ] {
            assert!(check(Tool::Ssh, &argv(bad)).is_err(), "{bad}");
        }
        let bare = vec![
            "-o".to_string(),
            "ConnectTimeout=5".into(),
            "cp 1".into(),
            "true".into(),
        ];
        assert!(check(Tool::Ssh, &bare).is_err());
        assert!(is_ssh_host("cp1.lan") && !is_ssh_host("-x") && !is_ssh_host(""));
        assert!(is_ssh_user("ops") && !is_ssh_user("-l") && !is_ssh_user(""));
    }

    #[test]
    fn mutations_and_escapes_are_refused() {
        for bad in [
            "apply -f x.yaml",
            "create ns x",
            "patch node a -p {}",
            "delete ns x",
            "edit node a",
            "label node a x=y",
            "annotate node a x=y",
            "scale deploy a --replicas=0",
            "rollout restart deploy a",
            "drain a",
            "cordon a",
            "exec -it p -- sh",
            "port-forward p 80",
            "proxy",
            "proxy --port=8001",
            "config use-context x",
            "config set-context x",
            "config view --raw",
            "get nodes --watch",
            "get nodes -w",
            "get secrets -A -o json",
            "get secret/x -o json",
            "get nodes -o go-template-file=/x",
            "get --raw /api/v1/secrets",
            "get --raw /api/v1/%73ecrets",
            "get --raw /api/v1/%2573ecrets",
            "get --raw /api/v1/namespaces/x/pods/p/proxy",
            "get --raw /api/v1/namespaces/x/pods/p/log",
            "get --raw /api/v1/namespaces/x/pods/p/exec",
            "get --raw /api/v1/namespaces/x/services/s:80/proxy/",
            "get --raw /api/v1/nodes/n/proxy/metrics",
            "get --raw /api/v1/nodes?watch=true",
            "get --raw /apis/%2e%2e/x",
            "auth can-i get nodes",
            "get",
        ] {
            assert!(kube(bad).is_err(), "{bad} passed");
        }
        assert!(check(Tool::Kubectl, &argv("get nodes -o json")).is_err());
        assert!(check(
            Tool::Kubectl,
            &argv(&format!("{PIN} --kubeconfig /b get nodes"))
        )
        .is_err());
        for bad in [
            "start x",
            "stop x",
            "delete x",
            "shell x",
            "list",
            "list --json x",
        ] {
            assert!(check(Tool::Limactl, &argv(bad)).is_err(), "{bad}");
        }
        for bad in [
            "-o ConnectTimeout=5 root@h rm -rf /",
            "-o ConnectTimeout=5 -o StrictHostKeyChecking=no root@h true",
            "-o ConnectTimeout=5 root@h cat /etc/kubernetes/admin.conf;id",
            "root@h true",
            "-o ConnectTimeout=5 -oProxyCommand=x root@h true",
            "-o ConnectTimeout=5 --x root@h true",
        ] {
            assert!(check(Tool::Ssh, &argv(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn proxy_only_in_restricted_form() {
        let dir = tempfile::tempdir().ok();
        let Some(dir) = dir else { return };
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700));
        let sock = dir.path().join("s");
        let good = vec![
            "--kubeconfig=/k".to_string(),
            "--context=c".into(),
            "--server=https://10.0.0.1:6443".into(),
            "--cache-dir=/h/.kube/cache".into(),
            "proxy".into(),
            format!("--unix-socket={}", sock.display()),
            format!("--reject-methods={PROXY_REJECT_METHODS}"),
            "--accept-paths=^/api/v1/nodes$,^/apis/ceph\\.rook\\.io/[a-z0-9]+/cephclusters$,^/api/v1/namespaces/kube-system/pods$"
                .to_string(),
            format!("--reject-paths={PROXY_REJECT_PATHS}"),
        ];
        assert_eq!(check(Tool::Kubectl, &good), Ok(()));
        let mut loose = good.clone();
        loose[6] = "--reject-methods=^POST$".into();
        assert!(check(Tool::Kubectl, &loose).is_err());
        for wide in [
            "^/(version|api|apis)(/[a-z0-9.-]+)*/?$",
            "^/api/v1/configmaps$",
            "^/api/v1/namespaces/x/pods/p/log$",
            "^/api/v1/namespaces/x/pods/p$",
            "^/api/v1/pods$",
            "^/api/v1/namespaces/x/pods?labelSelector=a$",
            "^/api/v1/events$",
            "^/api/v1/serviceaccounts$",
            "^/api/v1/secrets$",
            "^/api/v1/watch/nodes$",
            "/api/v1/nodes",
            "^/api/v1/nodes",
            "^/api/v1/.*$",
            "^/apis/x/[a-z0-9]+/[a-z0-9]+$",
            "^/api/v1/no.es$",
            "",
        ] {
            let mut l = good.clone();
            l[7] = format!("--accept-paths={wide}");
            assert!(check(Tool::Kubectl, &l).is_err(), "{wide}");
        }
        let _ = std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755));
        assert!(check(Tool::Kubectl, &good).is_err());
    }
}
