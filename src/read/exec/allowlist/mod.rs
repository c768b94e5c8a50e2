//! The read-only allowlist (SPEC §9), checked before any process is spawned. Every argv
//! nestor can emit is described here; anything else is refused. The rules are written as
//! "what may pass", never as "what to block", so a new kubectl verb is refused by default.

use std::path::Path;

use super::Tool;

mod proxy;
use proxy::*;
pub use proxy::{accept_paths_ok, GATE_MARKER, PROXY_REJECT_METHODS, PROXY_REJECT_PATHS};
pub mod hostcmd;
mod ssh;
use ssh::*;
pub use ssh::{is_ssh_host, is_ssh_user};
#[cfg(test)]
mod tests;

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

/// The kind a `get` argument names (`pods`, `configmap` of `configmap.v1`, `cm/x`).
fn kinds_of(resource: &str) -> impl Iterator<Item = &str> {
    resource
        .split(',')
        .map(|r| r.split(['/', '.']).next().unwrap_or_default())
}

/// Pods and ConfigMaps have one allowed form each (SPEC §6, §9): a namespace's pods by a
/// label selector (`get pods -n NS -l k=v`), one ConfigMap by name (`get configmap NAME -n
/// NS`). Never every pod, never a ConfigMap list.
fn pods_and_configmaps(
    positional: &[&str],
    namespace: Option<&str>,
    selector: Option<&str>,
    all_namespaces: bool,
) -> Result<(), String> {
    let is = |names: &[&str]| {
        positional
            .iter()
            .any(|p| kinds_of(p).any(|k| names.contains(&k)))
    };
    let label_chars = |v: &str| {
        v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=,".contains(&b))
    };
    if is(&["pod", "pods", "po"]) {
        let ok = matches!(positional, ["pods"])
            && namespace.is_some()
            && !all_namespaces
            && selector.is_some_and(|s| s.contains('=') && label_chars(s));
        if !ok {
            return Err(
                "kubectl get: pods are read only as `get pods -n NAMESPACE -l KEY=VALUE` (a workload's own selector)"
                    .into(),
            );
        }
    }
    if is(&["configmap", "configmaps", "cm"]) {
        let ok = matches!(positional, ["configmap", name] if !name.contains([',', '/']))
            && namespace.is_some()
            && !all_namespaces
            && selector.is_none();
        if !ok {
            return Err(
                "kubectl get: ConfigMaps are read only by name (`get configmap NAME -n NAMESPACE`), never listed"
                    .into(),
            );
        }
    }
    Ok(())
}

/// The `get` forms nestor still checks: `--explain`'s by-hand lines, printed for a person and
/// never run (`-n`, `-A`, `-l`, `--ignore-not-found`, `-o jsonpath=`). nestor itself reads a
/// cluster only through the proxy (issue 21: the verification reads of `target`, `stack
/// select` and `kubeconfig fetch` too); the forms only the removed processes path used
/// (`--show-managed-fields`, `--chunk-size`) and `--raw` (used by nothing) are refused.
fn kubectl_get(tail: &[&str]) -> Result<(), String> {
    let mut resources = 0;
    let mut positional: Vec<&str> = Vec::new();
    let (mut namespace, mut selector, mut all_namespaces) = (None, None, false);
    let mut i = 0;
    while i < tail.len() {
        let t = tail[i];
        let next = tail.get(i + 1).copied();
        match t {
            "-A" | "--all-namespaces" => {
                all_namespaces = true;
                i += 1
            }
            "--ignore-not-found" => i += 1,
            "-o" | "--output" => {
                output_format(next.unwrap_or_default())?;
                i += 2;
            }
            "-n" | "--namespace" | "-l" | "--selector" => {
                match next {
                    Some(v) if !v.starts_with('-') && !v.is_empty() => {
                        if t.starts_with("-n") || t == "--namespace" {
                            namespace = Some(v);
                        } else {
                            selector = Some(v);
                        }
                    }
                    _ => return Err(format!("kubectl get: `{t}` needs a value")),
                }
                i += 2;
            }
            _ if t.starts_with("-o=") || t.starts_with("--output=") => {
                output_format(t.split_once('=').map(|x| x.1).unwrap_or_default())?;
                i += 1;
            }
            _ if t.starts_with("--namespace=") => {
                namespace = t.split_once('=').map(|x| x.1);
                i += 1
            }
            _ if t.starts_with("--selector=") => {
                selector = t.split_once('=').map(|x| x.1);
                i += 1
            }
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
                positional.push(t);
                resources += 1;
                i += 1;
            }
        }
    }
    if resources == 0 {
        return Err("kubectl get: no resource named".into());
    }
    pods_and_configmaps(&positional, namespace, selector, all_namespaces)
}

fn output_format(f: &str) -> Result<(), String> {
    if matches!(f, "json" | "yaml" | "name") || f.starts_with("jsonpath=") {
        Ok(())
    } else {
        Err(format!("kubectl get: output `{f}` is not allowed"))
    }
}
