//! Which version a custom resource group is first fetched at (issue 30 item 2: version
//! hints are catalog data, `served.yaml`, not a `match` in `read/`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::scalars::is_dns_name;

const SERVED: &str = include_str!("served.yaml");

/// The version asked for a group no hint names.
pub const DEFAULT_VERSION: &str = "v1";

/// `served.yaml`, decoded once. A hint that does not decode is left out (a missing hint costs
/// a round trip, never a wrong answer); `tests::the_hints_all_decode` keeps the file clean.
fn hints() -> &'static BTreeMap<String, String> {
    static HINTS: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    HINTS.get_or_init(|| {
        yaml_serde::from_str::<BTreeMap<String, String>>(SERVED)
            .unwrap_or_default()
            .into_iter()
            .filter(|(group, version)| is_dns_name(group) && is_version(version))
            .collect()
    })
}

/// A Kubernetes API version name: `v1`, `v2beta1`, `v1alpha1`.
fn is_version(v: &str) -> bool {
    let Some(rest) = v.strip_prefix('v') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (major, tail) = rest.split_at(digits);
    if major.is_empty() || major.starts_with('0') {
        return false;
    }
    match tail
        .strip_prefix("alpha")
        .or_else(|| tail.strip_prefix("beta"))
    {
        Some(n) => !n.is_empty() && !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit()),
        None => tail.is_empty(),
    }
}

/// The version the list of `plural` in `group` is asked at in the first round: the type's
/// own hint (`PLURAL.GROUP`: a group serves its types at different versions, as `cilium.io`
/// serves CiliumNodes at `v2` and CiliumLoadBalancerIPPools at `v2alpha1`), else the
/// group's, else `v1`.
pub fn speculative_version(plural: &str, group: &str) -> &'static str {
    let hints = hints();
    hints
        .get(&format!("{plural}.{group}"))
        .or_else(|| hints.get(group))
        .map_or(DEFAULT_VERSION, String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hints_all_decode() {
        let raw: BTreeMap<String, String> = yaml_serde::from_str(SERVED).unwrap();
        assert_eq!(raw.len(), hints().len(), "a hint is malformed: {raw:?}");
        assert_eq!(
            speculative_version("applications", "argoproj.io"),
            "v1alpha1"
        );
        assert_eq!(speculative_version("ciliumnodes", "cilium.io"), "v2");
        assert_eq!(
            speculative_version("ciliumloadbalancerippools", "cilium.io"),
            "v2alpha1"
        );
        assert_eq!(speculative_version("cephclusters", "ceph.rook.io"), "v1");
    }

    #[test]
    fn version_names() {
        for ok in ["v1", "v2", "v1alpha1", "v2beta3", "v10"] {
            assert!(is_version(ok), "{ok}");
        }
        for bad in [
            "", "1", "v", "v0", "v01", "v1alpha", "v1beta0", "v1gamma1", "V1",
        ] {
            assert!(!is_version(bad), "{bad}");
        }
    }

    /// Every hint is for a group the built-in catalog reads (a hint for nothing is a stale line).
    #[test]
    fn every_hint_is_for_a_group_the_catalog_reads() {
        let text = super::super::BUILTIN;
        for key in hints().keys() {
            assert!(
                text.contains(&format!(".{key}"))
                    || text.contains(&format!("apiGroup: {key}"))
                    || text.contains(&format!("resource: {key}")),
                "served.yaml names {key}, which builtin.yaml does not read"
            );
        }
    }
}
