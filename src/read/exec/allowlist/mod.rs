//! The read-only allowlist (SPEC §9), checked before any process is spawned. Every argv
//! nestor can emit is described here; anything else is refused. The rules are written as
//! "what may pass", never as "what to block", so a new kubectl verb is refused by default.

use std::path::Path;

use super::Tool;

mod printed;
pub use printed::NOT_TERMINATED_PODS;
mod proxy;
use proxy::*;
pub use proxy::{
    accept_paths_ok, EVENTS_ACCEPT_PATH, GATE_MARKER, PROXY_REJECT_METHODS, PROXY_REJECT_PATHS,
};
pub mod hostcmd;
mod hostgate;
mod ssh;
use ssh::*;
pub use ssh::{is_kubeconfig_path, is_ssh_host, is_ssh_user};
#[cfg(test)]
mod tests;

/// `Ok(())` if the argv may run, else the reason it is refused.
pub fn check(tool: Tool, args: &[String]) -> Result<(), String> {
    check_fetching(tool, args, None)
}

/// [`check`], the ssh kubeconfig fetch also admitting `cat ADMIN_CONF` for the topology's
/// `admin_conf` (besides kubeadm's `/etc/kubernetes/admin.conf`).
pub fn check_fetching(tool: Tool, args: &[String], admin_conf: Option<&str>) -> Result<(), String> {
    match tool {
        Tool::Kubectl => kubectl(args),
        Tool::Limactl => limactl(args),
        Tool::Ssh => ssh(args, admin_conf),
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

/// The words after kubectl's pins, once every pin is checked: exactly one explicit
/// `--kubeconfig`, `--cache-dir`, `--context` and `--server` (SPEC §4), nothing unpinning.
fn pinned_words(args: &[String]) -> Result<Vec<&str>, String> {
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
    Ok(rest.iter().map(|s| s.as_str()).collect())
}

/// What nestor runs (SPEC §9 v0.4), exactly: kubectl's own reading of the kubeconfig
/// (`config view --minify -o=json` for the target, `config view -o=json` for `kubeconfig
/// fetch`'s users) and the one pinned `proxy`. Every other form — `get`, `version`,
/// `api-resources`, `config current-context`, ... — is refused like a write: a form no
/// command uses never passes.
fn kubectl(args: &[String]) -> Result<(), String> {
    let words = pinned_words(args)?;
    match words.as_slice() {
        ["config", "view", "--minify", "-o=json"] | ["config", "view", "-o=json"] => Ok(()),
        ["proxy", tail @ ..] => kubectl_proxy(tail),
        [verb, ..] => Err(format!(
            "kubectl: `{}` is not a form nestor runs (only `config view [--minify] -o=json` and the pinned `proxy`)",
            crate::term::escape(verb)
        )),
        [] => Err("kubectl: no verb".into()),
    }
}

/// A kubectl line `--explain` PRINTS for a person (never spawned: [`check`] refuses it):
/// the same pins, then `get` in its read-only forms ([`printed::get`]), `api-versions`, or a
/// gate's GET as it sent it, `get --raw TARGET` ([`printed::raw`]).
pub fn printed_kubectl(args: &[String]) -> Result<(), String> {
    let words = pinned_words(args)?;
    match words.as_slice() {
        ["get", "--raw", target] => printed::raw(target),
        ["get", tail @ ..] => printed::get(tail),
        ["api-versions"] => Ok(()),
        [verb, ..] => Err(format!(
            "kubectl: `{}` is not a read a person is shown",
            crate::term::escape(verb)
        )),
        [] => Err("kubectl: no verb".into()),
    }
}
