//! The grammar of the kubectl lines `--explain` prints for a person to run by hand (SPEC
//! §16): `get` of a named object or a list, `-n`/`-A`, `-l`, `--ignore-not-found`, `-o
//! jsonpath=`; never a Secret, pods only by a namespace and a label selector, ConfigMaps only
//! by name. Printed, never spawned: [`super::check`], which admits what SPAWNS, refuses
//! every `get` (SPEC §9 v0.4), so this grammar cannot widen what runs.
//!
//! A gate's `--explain` prints each GET it sent through its proxy as `get --raw TARGET`
//! ([`raw`]): the path must be one a gate's proxy admits (the same accept-path check, in the
//! gate's form), the query only a `labelSelector`, a `fieldSelector` or `verbose`.

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

/// The `get` forms `--explain` prints (`-n`, `-A`, `-l`, `--ignore-not-found`, `-o
/// jsonpath=`). nestor itself reads a cluster only through the proxy (issue 21); the forms
/// only the removed processes path used (`--show-managed-fields`, `--chunk-size`) and
/// `--raw` are refused here too.
pub(super) fn get(tail: &[&str]) -> Result<(), String> {
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

/// The one cluster-wide pod query a gate sends besides NODE's: every pod not terminated
/// (what the scheduler counts against each node's allocatable), by field selector.
pub const NOT_TERMINATED_PODS: &str =
    "fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed";

/// `get --raw TARGET` (a gate's `--explain`): TARGET is a path a gate's proxy admits
/// ([`super::accept_paths_ok`] in the gate's form: never a Secret, pods only as a namespaced
/// list or the gate's cluster-wide list by field selector, `/readyz`) and at most one query
/// parameter, `labelSelector=`, `fieldSelector=` (percent-encoded, plain characters) or
/// `verbose`.
pub(super) fn raw(target: &str) -> Result<(), String> {
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (target, None),
    };
    // A list or a named object, never discovery (`/api`, `/apis/GROUP/VERSION`) nor a
    // ConfigMap (a gate reads none).
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let deep = match segments.first() {
        Some(&"api") => segments.len() >= 3,
        Some(&"apis") => segments.len() >= 4,
        _ => path == "/readyz",
    };
    if !deep || segments.contains(&"configmaps") {
        return Err(format!(
            "kubectl get --raw: `{}` is not a gate's read",
            crate::term::escape(path)
        ));
    }
    let anchored = format!("^{}$", path.replace('.', "\\."));
    super::accept_paths_ok(&format!("{anchored},{}", super::GATE_MARKER))
        .map_err(|why| format!("kubectl get --raw: `{path}` is not a gate's read ({why})"))?;
    let plain = |v: &str| {
        !v.is_empty()
            && v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"%-_.".contains(&b))
    };
    let query_ok = match query {
        None => true,
        Some("verbose") => path == "/readyz",
        Some(q) => match q.split_once('=') {
            Some(("labelSelector", v)) => plain(v),
            Some(("fieldSelector", v)) => path == "/api/v1/pods" && plain(v),
            _ => false,
        },
    };
    // Pods only by a selector: a namespace's by label, the cluster's by `spec.nodeName` or
    // as the pods not terminated.
    let pods_ok = match path {
        "/readyz" => query == Some("verbose"),
        "/api/v1/pods" => query.is_some_and(|q| {
            q.starts_with("fieldSelector=spec.nodeName%3D") || q == NOT_TERMINATED_PODS
        }),
        p if p.ends_with("/pods") => query.is_some_and(|q| q.starts_with("labelSelector=")),
        _ => true,
    };
    if !query_ok || !pods_ok {
        return Err(format!(
            "kubectl get --raw: `{}` is not a query a gate sends",
            crate::term::escape(target)
        ));
    }
    Ok(())
}

#[cfg(test)]
#[path = "printed_tests.rs"]
mod tests;
