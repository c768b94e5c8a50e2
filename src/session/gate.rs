//! The gates' reads (SPEC §17): for `gate drain NODE`, one round of parallel GETs through a
//! restricted proxy whose accept-paths are exactly the drain rules' paths
//! (`read::apiread::gate`), each answer decoded by the gate's decoders into `Facts` (a
//! failed, forbidden or undecodable read kept as the failed read it is: its rules are
//! undecided, never GO), then the pure evaluation. A NODE the cluster does not list is the
//! operator's error (exit 1); an unreachable API server is exit 4, as for preview.

use crate::error::{Error, Result};
use crate::model::gate::explain::{Gated, Made, Sent};
use std::collections::BTreeMap;

use crate::model::gate::facts::{Ceph, CnpgCluster, Crd, Node, ObjectRef, Pdb, Pod, Pv, Resources};
use crate::model::gate::{self, decode, Facts, Gate, Read as ReadKind, Request};
use crate::model::observation::{FailureKind, Observation, Read, ReadFailure, ReadRequest};
use crate::pool::{Budget, MEMORY_BUDGET};
use crate::read::apiread::gate::{drain_accept_paths, read_drain, DrainRead, NodeName};
use crate::read::proxy::{ApiProxy, StartError};

use super::Session;

pub use super::gate_hosts::HostReads;

/// One gate read's answer, decoded while it arrived into the facts its rules use (SPEC §9
/// "Bounded per run": no answer's text is held but a small named object's or `/readyz`'s,
/// and that charged to the run's budget as it arrives), and for each kind the accessor that
/// takes it out (`None`: the answer is of another kind).
macro_rules! answers {
    ($($variant:ident($t:ty) => $take:ident,)*) => {
        pub(super) enum Answer {
            $($variant($t),)*
        }

        impl Answer {
            $(pub(super) fn $take(self) -> Option<$t> {
                if let Answer::$variant(v) = self {
                    Some(v)
                } else {
                    None
                }
            })*
        }
    };
}

answers! {
    Nodes(Vec<Node>) => nodes,
    Pods(Vec<Pod>) => pods,
    Requests(BTreeMap<String, Resources>) => requests,
    Named(Vec<ObjectRef>) => named,
    Cnpg(Vec<CnpgCluster>) => cnpg,
    Pdbs(Vec<Pdb>) => pdbs,
    Pvs(Vec<Pv>) => pvs,
    Crds(Vec<Crd>) => crds,
    Ceph(Vec<Ceph>) => ceph,
    Count(usize) => count,
    Text(String) => text,
}

/// How a gate read's answer is decoded.
#[derive(Debug, Clone, Copy)]
pub(super) enum Shape {
    Nodes,
    Pods,
    /// Every pod not terminated: its requests summed per node.
    Requests,
    /// Namespace and name of each object of a list.
    Named,
    Cnpg,
    Pdbs,
    Pvs,
    Crds,
    Ceph,
    /// A removed API's list: its items counted, none kept.
    Count,
    /// A named object, `/readyz?verbose`: held whole, charged chunk by chunk.
    Text,
}

impl Shape {
    /// Decode `body`, the answer to `GET target`, charging what is kept to `budget` (a read
    /// that would cross it fails naming it).
    pub(super) fn decode(
        self,
        target: &str,
        body: &mut dyn std::io::Read,
        budget: &Budget,
    ) -> Result<Answer> {
        let what = format!("GET {target}");
        let to = decode::Charged {
            what: &what,
            budget,
        };
        Ok(match self {
            Shape::Nodes => Answer::Nodes(decode::read_nodes(body, to)?),
            Shape::Pods => Answer::Pods(decode::read_pods(body, to)?),
            Shape::Requests => Answer::Requests(decode::read_requests_per_node(body, to)?),
            Shape::Named => Answer::Named(decode::read_daemonsets(body, to)?),
            Shape::Cnpg => Answer::Cnpg(decode::read_cnpg_clusters(body, to)?),
            Shape::Pdbs => Answer::Pdbs(decode::read_pdbs(body, to)?),
            Shape::Pvs => Answer::Pvs(decode::read_pvs(body, to)?),
            Shape::Crds => Answer::Crds(decode::read_crds(body, to)?),
            Shape::Ceph => Answer::Ceph(decode::read_ceph_clusters(body, to)?),
            Shape::Count => Answer::Count(decode::read_count_items(body)?),
            Shape::Text => Answer::Text(decode::text_from(body, to)?),
        })
    }
}

/// Every answer of a gate, by read.
pub(super) type Answers<K> = BTreeMap<K, Result<Answer, ReadFailure>>;

fn not_sent() -> ReadFailure {
    ReadFailure::new(FailureKind::ApiError, "not sent")
}

/// The answer to `key`, taken out, as `pick` wants it (a read never sent is a failed read).
pub(super) fn take<K: Ord, T>(
    answers: &mut Answers<K>,
    key: &K,
    pick: fn(Answer) -> Option<T>,
) -> Read<T> {
    match answers.remove(key) {
        Some(Ok(a)) => pick(a).ok_or_else(|| {
            ReadFailure::new(FailureKind::ApiError, "decoded as another kind of answer")
        }),
        Some(Err(f)) => Err(f),
        None => Err(not_sent()),
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
            Err(f) => return Err(f),
            Ok(t) => all.extend(
                decode(&t).map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.to_string()))?,
            ),
        }
    }
    Ok(all)
}

type PoolDecoder = fn(&str) -> Result<Vec<gate::facts::CephPool>>;

/// The CephCluster list: a 404 means the API server does not serve `ceph.rook.io/v1`
/// CephClusters at all (no Rook), which is the cluster's answer, not a failed read.
pub(super) fn ceph<K: Ord>(answers: &mut Answers<K>, key: &K) -> Read<Vec<gate::facts::Ceph>> {
    match take(answers, key, Answer::ceph) {
        Err(f) if f.kind == FailureKind::NotFound => Ok(vec![]),
        other => other,
    }
}

/// How each drain read is decoded.
fn drain_shape(r: DrainRead) -> Shape {
    match r {
        DrainRead::Pdbs => Shape::Pdbs,
        DrainRead::NodePods | DrainRead::MonPods | DrainRead::EtcdPods => Shape::Pods,
        DrainRead::Nodes => Shape::Nodes,
        DrainRead::Pvs => Shape::Pvs,
        DrainRead::CephClusters => Shape::Ceph,
        DrainRead::OsdPods => Shape::Pods,
        DrainRead::ClusterPods => Shape::Requests,
        DrainRead::DaemonSets => Shape::Named,
        DrainRead::CnpgClusters => Shape::Cnpg,
        DrainRead::CephBlockPools | DrainRead::CephFilesystems | DrainRead::CephObjectStores => {
            Shape::Text
        }
    }
}

impl Session<'_> {
    /// Exit 4 when a gate's nodes read shows the API server unreachable (the rule of
    /// preview's nodes read).
    pub(super) fn nodes_reachable(
        &self,
        nodes: Option<&Result<Answer, ReadFailure>>,
    ) -> Result<()> {
        if let Some(Err(f)) = nodes {
            let mut obs = Observation::skipped("not read");
            obs.record(&ReadRequest::Nodes, Err(f.clone()));
            self.reachable(&obs)?;
        }
        Ok(())
    }

    /// `-v`: what a gate's reads kept of the run's memory budget.
    pub(super) fn gate_budget_trace(&self, budget: &Budget) {
        self.kubectl.runner().trace(&format!(
            "memory budget: {:.1} MiB of {} MiB kept from the gate's answers",
            budget.used() as f64 / f64::from(1 << 20),
            MEMORY_BUDGET >> 20
        ));
    }

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
        let budget = Budget::new(MEMORY_BUDGET);
        let mut answers = read_drain(&self.kubectl, &proxy, node, |r, target, body| {
            drain_shape(r).decode(target, body, &budget)
        });
        drop(proxy);
        self.gate_budget_trace(&budget);
        // Unreachable is exit 4, by the same rule as preview's nodes read.
        self.nodes_reachable(answers.get(&DrainRead::Nodes))?;
        let nodes = take(&mut answers, &DrainRead::Nodes, Answer::nodes);
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
        facts.pdbs = take(&mut answers, &DrainRead::Pdbs, Answer::pdbs);
        facts.node_pods = take(&mut answers, &DrainRead::NodePods, Answer::pods);
        facts.nodes = nodes;
        facts.pvs = take(&mut answers, &DrainRead::Pvs, Answer::pvs);
        facts.ceph = ceph(&mut answers, &DrainRead::CephClusters);
        facts.mon_pods = take(&mut answers, &DrainRead::MonPods, Answer::pods);
        facts.etcd_pods = take(&mut answers, &DrainRead::EtcdPods, Answer::pods);
        // Rook's few pools, as the small texts they are (charged chunk by chunk).
        facts.ceph_pools = ceph_pools([
            (
                take(&mut answers, &DrainRead::CephBlockPools, Answer::text),
                decode::block_pools,
            ),
            (
                take(&mut answers, &DrainRead::CephFilesystems, Answer::text),
                decode::filesystem_pools,
            ),
            (
                take(&mut answers, &DrainRead::CephObjectStores, Answer::text),
                decode::object_store_pools,
            ),
        ]);
        facts.osd_pods = take(&mut answers, &DrainRead::OsdPods, Answer::pods);
        facts.cluster_pods = take(&mut answers, &DrainRead::ClusterPods, Answer::requests);
        facts.daemonsets = take(&mut answers, &DrainRead::DaemonSets, Answer::named);
        // A 404: the cluster does not serve CloudNativePG's Clusters (no CNPG), none to name.
        facts.cnpg_clusters = match take(&mut answers, &DrainRead::CnpgClusters, Answer::cnpg) {
            Err(f) if f.kind == FailureKind::NotFound => Ok(vec![]),
            other => other,
        };
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
                    DrainRead::ClusterPods => ReadKind::ClusterPods,
                    DrainRead::DaemonSets => ReadKind::Daemonsets,
                    DrainRead::CnpgClusters => ReadKind::CnpgClusters,
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
