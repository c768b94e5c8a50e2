//! Layer ids known to the topology validator. Transitional: replaced by the catalog module.

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::Result;

pub fn known_ids(_catalog: Option<&Path>) -> Result<BTreeSet<String>> {
    Ok([
        "k8s",
        "cni",
        "ceph",
        "storage",
        "datalake",
        "certs",
        "monitoring",
        "gitops",
        "registry",
        "dataops",
        "etcd-backup",
        "audit-log",
        "sshd-hardening",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect())
}
