//! The `gate upgrade kubernetes VERSION` reads (SPEC §17, §9): the same proxy and GET
//! client as preview and the drain gate, exactly the paths the upgrade rules name — the
//! nodes, the kube-apiserver mirror pods by label, the PodDisruptionBudgets, the CRDs, the
//! API server's `/readyz?verbose` (a non-resource path the allowlist admits in a gate's
//! proxy form only) and one list per API VERSION removes — and the accept-paths for exactly
//! those. Every answer is decoded as it arrives by the caller's decoder, or kept as the
//! failed read it was.

use std::collections::BTreeMap;
use std::io::Read;

use super::fetch_with;
use crate::model::observation::{FailureKind, ReadFailure};
use crate::read::kubectl::Kubectl;
use crate::read::proxy::ApiProxy;

pub use super::gate_components::{APISERVER_PODS, NODES};
pub const PDBS: &str = "/apis/policy/v1/poddisruptionbudgets";
pub const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
pub const READYZ: &str = "/readyz?verbose";

/// The list GET of a removed API (`group`, `version`, `resource`, as the table writes
/// them; the core group is `""`), or `None` when a name is not a plain path segment.
pub fn removed_api_target(group: &str, version: &str, resource: &str) -> Option<String> {
    let plain = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b))
    };
    if !plain(version) || !plain(resource) || !(group.is_empty() || plain(group)) {
        return None;
    }
    Some(if group.is_empty() {
        format!("/api/{version}/{resource}")
    } else {
        format!("/apis/{group}/{version}/{resource}")
    })
}

/// Every GET of the upgrade gate: the fixed reads, the platform components' versions
/// (`gate_components::PLATFORM_VERSIONS`), then `removed` (the removed APIs' lists).
pub fn upgrade_targets(removed: &[String]) -> Vec<String> {
    [NODES, APISERVER_PODS, PDBS, CRDS, READYZ]
        .iter()
        .chain(super::gate_components::PLATFORM_VERSIONS.iter())
        .map(|s| s.to_string())
        .chain(removed.iter().cloned())
        .collect()
}

/// The upgrade gate's `--accept-paths`: each read's path (the query is not part of what the
/// proxy matches), anchored, dots escaped, sorted.
pub fn upgrade_accept_paths(targets: &[String]) -> Vec<String> {
    let mut out: Vec<String> = targets
        .iter()
        .map(|t| {
            let path = t.split('?').next().unwrap_or_default();
            format!("^{}$", path.replace('.', "\\."))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every target through `proxy`, in parallel on the run's bounded pool (at most
/// [`crate::pool::API_READS_IN_FLIGHT`]): each body decoded by `decode(target, body)` while
/// it arrives (the streamed cap applies: an over-cap answer is a failed read), or the failed
/// read (403 Forbidden, 404 NotFound, what `decode` refuses BadOutput).
pub fn read_targets<T: Send>(
    kubectl: &Kubectl,
    proxy: &ApiProxy,
    targets: &[String],
    decode: impl Fn(&str, &mut dyn Read) -> crate::error::Result<T> + Sync,
) -> BTreeMap<String, Result<T, ReadFailure>> {
    kubectl.runner().trace(&format!(
        "round 1: the gate's {} GETs at once (at most {} in flight)",
        targets.len(),
        crate::pool::API_READS_IN_FLIGHT
    ));
    let reads = (targets, String::clone);
    let answers = super::each_target(proxy, reads, crate::pool::API_READS_IN_FLIGHT, |t| {
        fetch_with(kubectl, proxy, t, |body| decode(t, body))
    });
    targets
        .iter()
        .zip(answers)
        .map(|(t, text)| {
            let text = text.unwrap_or_else(|| {
                Err(ReadFailure::new(
                    FailureKind::ApiError,
                    "a read thread panicked",
                ))
            });
            (t.clone(), text)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::exec::allowlist::accept_paths_ok;

    #[test]
    fn removed_api_targets_are_plain_list_paths() {
        assert_eq!(
            removed_api_target("flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas").as_deref(),
            Some("/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas")
        );
        assert_eq!(
            removed_api_target("", "v1", "componentstatuses").as_deref(),
            Some("/api/v1/componentstatuses")
        );
        for (g, v, r) in [
            ("a/b", "v1", "x"),
            ("g", "v1", "x?y"),
            ("g", "", "x"),
            ("g", "v1", "X"),
        ] {
            assert_eq!(removed_api_target(g, v, r), None, "{g} {v} {r}");
        }
    }

    /// The upgrade gate's accept-paths are exactly its reads; they pass the allowlist in
    /// the gate's form (the PDB list beside them), and `/readyz` never in preview's form.
    #[test]
    fn upgrade_accept_paths_pass_the_allowlist_only_in_the_gate_form() {
        let removed = vec!["/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas".to_string()];
        let accept = upgrade_accept_paths(&upgrade_targets(&removed));
        assert_eq!(
            accept,
            [
                "^/api/v1/namespaces/kube-system/pods$",
                "^/api/v1/nodes$",
                "^/apis/apiextensions\\.k8s\\.io/v1/customresourcedefinitions$",
                "^/apis/apps/v1/namespaces/cert-manager/deployments/cert-manager$",
                "^/apis/apps/v1/namespaces/cnpg-system/deployments/cnpg-controller-manager$",
                "^/apis/apps/v1/namespaces/kube-system/daemonsets/cilium$",
                "^/apis/apps/v1/namespaces/rook-ceph/deployments/rook-ceph-operator$",
                "^/apis/flowcontrol\\.apiserver\\.k8s\\.io/v1beta3/flowschemas$",
                "^/apis/policy/v1/poddisruptionbudgets$",
                "^/readyz$",
            ]
        );
        assert_eq!(accept_paths_ok(&accept.join(",")), Ok(()));
        let preview: Vec<&str> = accept
            .iter()
            .map(String::as_str)
            .filter(|p| *p != crate::read::exec::allowlist::GATE_MARKER)
            .collect();
        assert!(accept_paths_ok(&preview.join(",")).is_err());
        assert!(accept_paths_ok("^/readyz$").is_err());
        assert!(accept_paths_ok("^/api/v1/nodes$,^/readyz$").is_err());
    }
}
