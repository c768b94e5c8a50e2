//! The gates' reads (SPEC §17): for `gate drain NODE`, one round of parallel GETs through a
//! restricted proxy whose accept-paths are exactly the drain rules' paths
//! (`read::apiread::gate`), each answer decoded by the gate's decoders into `Facts` (a
//! failed, forbidden or undecodable read kept as the failed read it is: its rules are
//! undecided, never GO), then the pure evaluation. A NODE the cluster does not list is the
//! operator's error (exit 1); an unreachable API server is exit 4, as for preview.

use crate::error::{Error, Result};
use crate::model::gate::explain::{Gated, Made, Sent};
use crate::model::gate::{self, decode, Facts, Gate, Read as ReadKind, Request};
use crate::model::observation::{FailureKind, Observation, Read, ReadFailure, ReadRequest};
use crate::read::apiread::gate::{drain_accept_paths, read_drain, DrainRead, NodeName};
use crate::read::proxy::{ApiProxy, StartError};

use super::Session;

pub use super::gate_hosts::HostReads;

/// A decoded answer, or the failure that says why there is none (an undecodable body is
/// `BadOutput`, never an empty list).
pub(super) fn decoded<T>(
    text: &Result<String, ReadFailure>,
    decode: fn(&str) -> Result<T>,
) -> Read<T> {
    match text {
        Ok(t) => decode(t).map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.to_string())),
        Err(f) => Err(f.clone()),
    }
}

/// Rook's pools from its three pool-holding kinds: a 404 is a kind the API server does not
/// serve (no Rook, or an older one), which holds no pool; any other failed read fails all.
fn ceph_pools(
    texts: [(Result<String, ReadFailure>, PoolDecoder); 3],
) -> Read<Vec<gate::facts::CephPool>> {
    let mut all = Vec::new();
    for (text, decode) in texts {
        match text {
            Err(f) if f.kind == FailureKind::NotFound => {}
            other => all.extend(decoded(&other, decode)?),
        }
    }
    Ok(all)
}

type PoolDecoder = fn(&str) -> Result<Vec<gate::facts::CephPool>>;

/// The CephCluster list: a 404 means the API server does not serve `ceph.rook.io/v1`
/// CephClusters at all (no Rook), which is the cluster's answer, not a failed read.
pub(super) fn ceph(text: &Result<String, ReadFailure>) -> Read<Option<gate::facts::Ceph>> {
    match text {
        Err(f) if f.kind == FailureKind::NotFound => Ok(None),
        other => decoded(other, decode::ceph_clusters),
    }
}

impl Session<'_> {
    /// A gate's restricted proxy on `accept`, or the error that says why there is none.
    pub(super) fn gate_proxy(&self, accept: &[String]) -> Result<ApiProxy> {
        // The proxy `open_gate` started beside kubectl's `config view`, if it has these very
        // accept-paths (a prompt's nodes proxy is not the gate's).
        let early = match self.early.borrow_mut().take() {
            Some(Ok(p)) if p.accepts(accept) => Some(Ok(p)),
            Some(Err(e)) => Some(Err(e)),
            Some(Ok(_)) | None => None,
        };
        match early.unwrap_or_else(|| ApiProxy::start(&self.kubectl, accept)) {
            Ok(p) => Ok(p),
            Err(StartError::Fatal(e)) => Err(e.into_error()),
            Err(StartError::Unavailable(detail)) => {
                Err(Error::input(
                    format!(
                        "kubectl cannot serve nestor's read proxy, so nothing was read: {}",
                        crate::error::one_line(&detail)
                    ),
                    "nestor reads a cluster only through `kubectl proxy` on a private unix socket: make TMPDIR an existing directory you can write (or unset it), and point NESTOR_KUBECTL (or PATH) at a real kubectl",
                ))
            }
            Err(StartError::TimedOut { detail, .. }) => {
                Err(Error::unreachable(format!(
                    "the API server {} did not answer: {}",
                    self.agreed.server,
                    crate::error::one_line(&detail)
                ),
                    "check that the API server is up and reachable from here (`kubectl nestor target`)",
                ))
            }
        }
    }

    /// `gate drain NODE`: read what the drain rules need and evaluate them.
    pub fn drain(&self, node: &NodeName, hosts: HostReads) -> Result<Gated> {
        let accept = drain_accept_paths(node);
        let proxy = self.gate_proxy(&accept)?;
        let observed_at = crate::clock::now_secs();
        let answers = read_drain(&self.kubectl, &proxy, node);
        drop(proxy);
        let text = |r: DrainRead| {
            answers
                .get(&r)
                .cloned()
                .unwrap_or_else(|| Err(ReadFailure::new(FailureKind::ApiError, "not sent")))
        };
        // Unreachable is exit 4, by the same rule as preview's nodes read.
        let nodes_text = text(DrainRead::Nodes);
        let mut obs = Observation::skipped("not read");
        obs.record(
            &ReadRequest::Nodes,
            nodes_text.as_deref().map_err(Clone::clone),
        );
        self.reachable(&obs)?;
        let nodes = decoded(&nodes_text, decode::nodes);
        if let Ok(listed) = &nodes {
            if !listed.iter().any(|n| n.name == node.as_str()) {
                let names: Vec<&str> = listed.iter().map(|n| n.name.as_str()).collect();
                return Err(Error::input(
                    format!(
                        "the cluster at {} has no node `{}`",
                        self.agreed.server,
                        node.as_str()
                    ),
                    format!(
                        "its nodes are: {} (`kubectl nestor target` lists them)",
                        crate::term::terminal_safe(&names.join(", "))
                    ),
                ));
            }
        }
        let mut facts = Facts::unread("not read by the drain gate");
        facts.observed_at = Some(observed_at);
        facts.pdbs = decoded(&text(DrainRead::Pdbs), decode::pdbs);
        facts.node_pods = decoded(&text(DrainRead::NodePods), decode::pods);
        facts.nodes = nodes;
        facts.pvs = decoded(&text(DrainRead::Pvs), decode::pvs);
        facts.ceph = ceph(&text(DrainRead::CephClusters));
        facts.mon_pods = decoded(&text(DrainRead::MonPods), decode::pods);
        facts.etcd_pods = decoded(&text(DrainRead::EtcdPods), decode::pods);
        facts.ceph_pools = ceph_pools([
            (text(DrainRead::CephBlockPools), decode::block_pools),
            (text(DrainRead::CephFilesystems), decode::filesystem_pools),
            (
                text(DrainRead::CephObjectStores),
                decode::object_store_pools,
            ),
        ]);
        facts.osd_pods = decoded(&text(DrainRead::OsdPods), decode::pods);
        // Every pod of the cluster would be a list without a selector: never read (SPEC §9).
        facts.cluster_pods = Err(ReadFailure::skipped(
            "pods only by a selector (every pod of the cluster is a list without one)",
        ));
        // Over ssh, once the nodes say which hosts stay (every node but NODE).
        facts.host_time_sync = hosts.time_sync(self.runner, &facts.nodes, node.as_str());
        let request = Request {
            gate: Gate::Drain,
            node: Some(node.as_str().to_string()),
            version: None,
        };
        let mut made: Vec<Made> = DrainRead::ALL
            .iter()
            .map(|r| Made {
                read: match r {
                    DrainRead::Pdbs => ReadKind::Pdbs,
                    DrainRead::NodePods => ReadKind::NodePods,
                    DrainRead::Nodes => ReadKind::Nodes,
                    DrainRead::Pvs => ReadKind::Pvs,
                    DrainRead::CephClusters => ReadKind::CephCluster,
                    DrainRead::MonPods => ReadKind::MonPods,
                    DrainRead::EtcdPods => ReadKind::EtcdPods,
                    DrainRead::CephBlockPools
                    | DrainRead::CephFilesystems
                    | DrainRead::CephObjectStores => ReadKind::CephPools,
                    DrainRead::OsdPods => ReadKind::OsdPods,
                },
                sent: Sent::Get(r.target(node)),
            })
            .collect();
        made.extend(hosts.made());
        Ok(Gated {
            evaluation: gate::evaluate(&request, &facts, gate::builtin()),
            facts,
            made,
        })
    }
}
