//! The proxy's allowlisted form: GET and HEAD only, the exact read paths, a private unix
//! socket; and the raw-path check (percent-decoded first, never a connect-style subresource).

use super::*;

/// `kubectl proxy --reject-methods`: a regexp (Go RE2, matched against the method) that
/// matches every method except GET and HEAD. RE2 has no look-ahead, hence the spelling out.
pub const PROXY_REJECT_METHODS: &str =
    "^(?:[^GH].*|G|GE|G[^E].*|GE[^T].*|GET.+|H|HE|HEA|H[^E].*|HE[^A].*|HEA[^D].*|HEAD.+)$";

/// `kubectl proxy --reject-paths`: never secrets, tokens, logs or connect-style
/// subresources, even though a GET-only proxy could not open most of them.
pub const PROXY_REJECT_PATHS: &str =
    "/secrets(/|$),/token(/|$),/proxy(/|$),/exec(/|$),/attach(/|$),/portforward(/|$),/log(/|$)";

/// Path segments no read of nestor ever names (in a proxy accept-path or a raw path).
pub(super) const FORBIDDEN_SEGMENTS: &[&str] = &[
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

/// The one accept-path of Warning Events (SPEC §6 v0.4 "Warnings explain"): one namespace's
/// `events.k8s.io/v1` list, the namespace one DNS label. Never the cluster-wide list, never
/// the core `v1` Events, never one Event by name.
pub const EVENTS_ACCEPT_PATH: &str =
    "^/apis/events\\.k8s\\.io/v1/namespaces/[a-z0-9][-a-z0-9]*/events$";

/// The accept-path of the PDB list, which only a gate reads: it marks the gate's form.
pub const GATE_MARKER: &str = "^/apis/policy/v1/poddisruptionbudgets$";

/// The cluster-wide pod list, admitted only in the gate's form.
const GATE_NODE_PODS: &str = "^/api/v1/pods$";

/// The API server's readiness checks (`/readyz?verbose`, a non-resource path), admitted only
/// in the gate's form.
const GATE_READYZ: &str = "^/readyz$";

/// `kubectl proxy --accept-paths`: a comma-separated list of anchored regexps, each the
/// exact path of one read (`^/api/v1/nodes$`, dots escaped) or a custom resource's list or
/// group-version document at any version (`^/apis/GROUP/[a-z0-9]+(/PLURAL)?$`), nothing
/// else: no alternation, no open-ended wildcard, no forbidden segment.
pub fn accept_paths_ok(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Err("kubectl proxy: --accept-paths is empty".into());
    }
    // A gate's proxy form (its PDB list beside it) may also name the cluster-wide pod list,
    // which the gate reads only by `spec.nodeName` field selector, and `/readyz` (the
    // upgrade gate's `/readyz?verbose`, a non-resource path) (SPEC §17); preview's form
    // never can.
    let gate = value.split(',').any(|re| re == GATE_MARKER);
    for re in value.split(',') {
        if gate && (re == GATE_NODE_PODS || re == GATE_READYZ) || re == EVENTS_ACCEPT_PATH {
            continue;
        }
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
            // One ConfigMap by name (Rook's mon endpoints): `configmaps` only before a name,
            // right after a namespace; never the list.
            if plain == "configmaps"
                && i + 2 == segments.len()
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

pub(super) fn kubectl_proxy(tail: &[&str]) -> Result<(), String> {
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
pub(super) fn private_socket_dir(socket: &Path) -> Result<(), String> {
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
