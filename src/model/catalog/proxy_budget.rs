//! A catalog's ConfigMap reads must fit the read proxy's command line (issue 31 item 8):
//! each ConfigMap read by name is one anchored `--accept-paths` pattern of the one `kubectl
//! proxy` argument, and Linux holds one argument to 128 KiB (`MAX_ARG_STRLEN`). A catalog
//! naming more than that would fail only at spawn time (`E2BIG`, which reads like a missing
//! TMPDIR); it is refused when the catalog is read instead, naming the file and the count.

use crate::error::{Error, Result};
use crate::model::observation::ReadRequest;

/// The bytes of `--accept-paths` the ConfigMaps of a catalog may take: 96 KiB of the 128 KiB
/// one argument holds, the rest left to discovery, the built-in lists and custom types.
pub const CONFIG_MAP_PATHS_BUDGET: usize = 96 * 1024;

/// The accept-paths pattern of one ConfigMap read by name, as the read layer writes it
/// (`^/api/v1/namespaces/NS/configmaps/NAME$`, dots escaped), plus its comma.
fn pattern_len(namespace: &str, name: &str) -> usize {
    let dots = namespace.matches('.').count() + name.matches('.').count();
    "^/api/v1/namespaces//configmaps/$,".len() + namespace.len() + name.len() + dots
}

/// Refuse a catalog (`file`) whose ConfigMap reads (of every layer) would not fit.
pub(super) fn check(reads: &[ReadRequest], file: &str) -> Result<()> {
    let (mut count, mut bytes) = (0usize, 0usize);
    for r in reads {
        if let ReadRequest::ConfigMap {
            namespace, name, ..
        } = r
        {
            count += 1;
            bytes += pattern_len(namespace, name);
        }
    }
    if bytes <= CONFIG_MAP_PATHS_BUDGET {
        return Ok(());
    }
    Err(Error::input(
        format!(
            "catalog {file} reads {count} ConfigMaps by name: their {} KiB of `kubectl proxy --accept-paths` are over the {} KiB nestor allows them (one argument holds 128 KiB)",
            bytes.div_ceil(1024),
            CONFIG_MAP_PATHS_BUDGET / 1024
        ),
        "check fewer ConfigMaps (a layer's checks may share one ConfigMap: each is read once, by name), or split the catalog between stacks",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cm(i: usize) -> ReadRequest {
        ReadRequest::ConfigMap {
            namespace: "kube-system".into(),
            name: format!("generated-config-{i:04}"),
            keys: vec!["k".into()],
        }
    }

    #[test]
    fn the_config_maps_of_a_catalog_fit_one_proxy_argument() {
        assert_eq!(
            pattern_len("rook-ceph", "rook-ceph-mon-endpoints"),
            "^/api/v1/namespaces/rook-ceph/configmaps/rook-ceph-mon-endpoints$,".len()
        );
        let few: Vec<ReadRequest> = (0..100).map(cm).collect();
        assert!(check(&few, "c.yaml").is_ok());
        let many: Vec<ReadRequest> = (0..2700).map(cm).collect();
        let e = check(&many, "stacks/big.catalog.yaml").unwrap_err();
        assert_eq!(
            e.message,
            "catalog stacks/big.catalog.yaml reads 2700 ConfigMaps by name: their 175 KiB of `kubectl proxy --accept-paths` are over the 96 KiB nestor allows them (one argument holds 128 KiB)"
        );
    }
}
