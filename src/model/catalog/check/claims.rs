//! `claims: {provisioner: P, maxPending: 5m}` (SPEC §6 v0.4 "Claims and volumes"): no
//! PersistentVolumeClaim of a checked namespace `Pending` longer than `maxPending` (default
//! 5m) or `Lost`, no PersistentVolume of the provisioner's StorageClasses `Failed`; a
//! `Released` one is named, never degrading. The checked namespaces are those the read
//! layers' workload checks name (`Catalog::read_plan`); a claim of a StorageClass of another
//! provisioner is another layer's.

use std::fmt;

/// `maxPending` when the catalog does not say.
pub const DEFAULT_MAX_PENDING_SECS: u64 = 300;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimsCheck {
    /// The StorageClass provisioner whose volumes and claims the layer answers for.
    pub provisioner: String,
    /// How long a claim may stay `Pending` (seconds, more than 0).
    pub max_pending_secs: u64,
}

impl fmt::Display for ClaimsCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no PersistentVolumeClaim of a checked namespace (unless of another provisioner's class) Pending over {} or Lost, no PersistentVolume of a {} class Failed (Released: named)",
            crate::duration::format(std::time::Duration::from_secs(self.max_pending_secs)),
            self.provisioner
        )
    }
}
