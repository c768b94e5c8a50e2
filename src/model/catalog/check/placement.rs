//! `distinctNodes: {namespace, selector, atLeast, daemonLabel?, what?, says?}` (SPEC §6 v0.4,
//! "mons and OSDs must run on at least 3 distinct nodes when the cluster has 3 or more"):
//! the pods a label selector takes in one namespace run on at least `atLeast` distinct
//! nodes, once the cluster has that many. Written for Rook's mons and OSDs
//! (`failureDomain: host` is a promise only a placement on as many hosts keeps), named for
//! what it counts, usable by any `catalog:` file.

use std::fmt;

#[cfg(doc)]
use crate::model::observation::ReadRequest;

/// At most this many pods are read by one placement check (`limit=` of its one GET): a
/// list cut there (`metadata.continue` set) is a failed read, never a partial placement.
pub const MAX_PLACED_PODS: usize = 5000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistinctNodesCheck {
    pub namespace: String,
    /// `k=v[,k2=v2]`, label characters only, in key order (as `selector_of` builds it).
    pub selector: String,
    /// The fewest distinct nodes (at least 2); a cluster of fewer nodes holds the check.
    pub at_least: u32,
    /// A label naming each pod's daemon in the evidence (Rook's `ceph_daemon_id`: mon `a`,
    /// OSD `0`); without one, or on a pod without it, the pod's name.
    pub daemon_label: Option<String>,
    /// What the pods are, in the evidence (`mons`); default `pods SELECTOR`.
    pub what: Option<String>,
    /// Said after a failure (`failureDomain: host is a promise the placement does not keep`).
    pub says: Option<String>,
}

impl DistinctNodesCheck {
    /// The key of its read in the observation (`NS/SELECTOR`, as
    /// [`ReadRequest::PodPlacement`]'s): the read plan makes one read per namespace and
    /// selector, with the daemon labels of every check that shares it.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.selector)
    }

    /// `mons`, or `pods app=x`.
    pub fn noun(&self) -> String {
        self.what
            .clone()
            .unwrap_or_else(|| format!("pods {}", self.selector))
    }
}

impl fmt::Display for DistinctNodesCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the pods of {} with {} run on at least {} distinct nodes when the cluster has {} or more (each node named with its {}; unscheduled pods named, not counted)",
            self.namespace,
            self.selector,
            self.at_least,
            self.at_least,
            self.daemon_label
                .as_deref()
                .map_or("pods".to_string(), |l| format!("pods' {l}"))
        )?;
        match &self.says {
            Some(says) => write!(f, "; else: {says}"),
            None => Ok(()),
        }
    }
}
