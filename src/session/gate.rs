//! Every gate's API reads, one path for all (SPEC §17): the gate's reads
//! (`read::apiread::gate::GateRead`, one typed table), one round of GETs through the gate's
//! restricted proxy whose accept-paths are exactly those reads' (and, for `gate upgrade
//! cilium|rook`, the stack's later layers', read beside them by preview's pipeline), each
//! answer decoded as it arrives into the facts its rules use ([`Answer`]; a failed, forbidden
//! or undecodable read kept as the failed read it is: its rules are undecided, never GO),
//! then the pure evaluation. An unreachable API server is exit 4, as for preview. Each gate's
//! own part (the drain's NODE, the upgrade's removed APIs and host rules, the components'
//! named workloads) is in `gate_drain.rs`, `gate_upgrade.rs`, `gate_components.rs`.

use crate::error::{Error, Result};
use crate::model::gate::explain::{Made, Sent};
use crate::model::gate::{Facts, Gate};
use crate::model::observation::{FailureKind, Observation, ReadFailure, ReadRequest};
use crate::pool::{Budget, API_READS_IN_FLIGHT, MEMORY_BUDGET};
use crate::read::apiread::gate::{read_gate, GateRead};
use crate::read::proxy::{ApiProxy, StartError};

use super::gate_answers::{
    ceph_pools, decode, or_none_served, readyz, removed_count, take, Answer, Answers,
};
use super::gate_components::ComponentReads;
use super::gate_layers::LayersPlan;
use super::{Ground, Session};
use crate::model::gate::explain::Gated;
use crate::model::gate::version::Version;
use crate::read::apiread::gate::{ComponentGate, NodeName};
use crate::stack::Topology;

pub use super::gate_hosts::HostReads;

/// The facts of every read of `reads` from its answer, the others left as `facts` has them
/// (not read by this gate). The named workloads' facts depend on the gate
/// (`gate_components::named_facts`).
fn facts_from(gate: Gate, reads: &[GateRead], answers: &mut Answers, facts: &mut Facts) {
    super::gate_components::named_facts(gate, answers, facts);
    for read in reads {
        match read {
            GateRead::Nodes => facts.nodes = take(answers, read, Answer::nodes),
            GateRead::ApiserverPods => facts.apiserver_pods = take(answers, read, Answer::pods),
            GateRead::Pdbs => facts.pdbs = take(answers, read, Answer::pdbs),
            GateRead::NodePods(_) => facts.node_pods = take(answers, read, Answer::pods),
            GateRead::Pvs => facts.pvs = take(answers, read, Answer::pvs),
            GateRead::CephClusters => {
                facts.ceph = or_none_served(take(answers, read, Answer::ceph));
            }
            GateRead::MonPods => facts.mon_pods = take(answers, read, Answer::pods),
            GateRead::EtcdPods => facts.etcd_pods = take(answers, read, Answer::pods),
            GateRead::OsdPods => facts.osd_pods = take(answers, read, Answer::pods),
            GateRead::ClusterPods => facts.cluster_pods = take(answers, read, Answer::requests),
            GateRead::DaemonSets => facts.daemonsets = take(answers, read, Answer::named),
            GateRead::CnpgClusters => {
                facts.cnpg_clusters = or_none_served(take(answers, read, Answer::cnpg));
            }
            GateRead::Crds => facts.crds = take(answers, read, Answer::crds),
            GateRead::Readyz => facts.readyz = readyz(take(answers, read, Answer::text)),
            GateRead::RemovedApi { key, .. } => {
                let count = removed_count(take(answers, read, Answer::count));
                facts.removed_api_objects.insert(key.clone(), count);
            }
            // Rook's three pool kinds make one fact, read together.
            GateRead::CephBlockPools => facts.ceph_pools = ceph_pools(answers),
            GateRead::CephFilesystems | GateRead::CephObjectStores => {}
            // Read above, by `named_facts`.
            GateRead::CiliumAgent
            | GateRead::CiliumOperator
            | GateRead::RookOperator
            | GateRead::RookDaemons
            | GateRead::CertManager
            | GateRead::CnpgOperator => {}
        }
    }
}

/// What a gate read from the API: the facts (each read not made left "not read by this
/// gate") and each GET as sent.
pub(super) struct GateAnswers {
    pub facts: Facts,
    pub made: Vec<Made>,
}

/// What a gate command asks, its arguments parsed: the one call a command makes ([`run`]).
pub enum Ask {
    Drain {
        node: NodeName,
        no_ssh: bool,
    },
    UpgradeKubernetes {
        version: Version,
        no_ssh: bool,
    },
    /// `gate upgrade cilium|rook`.
    Component(ComponentGate, Version),
}

impl Ask {
    /// The gate asked.
    pub fn gate(&self) -> Gate {
        match self {
            Ask::Drain { .. } => Gate::Drain,
            Ask::UpgradeKubernetes { .. } => Gate::UpgradeKubernetes,
            Ask::Component(ComponentGate::Cilium, _) => Gate::UpgradeCilium,
            Ask::Component(ComponentGate::Rook, _) => Gate::UpgradeRook,
        }
    }
}

/// A gate, whole, as `observe::preview` is preview: the target resolved and confirmed, the
/// gate's proxy started beside kubectl's `config view`, the hosts decided (and every host's
/// connection validated) before any ssh, one round of reads, the evaluation. The session is
/// returned for the answer's header (endpoint, context, rule).
pub fn run<'r>(
    ground: Ground<'r>,
    stack: Option<&Topology>,
    ask: &Ask,
) -> Result<(Session<'r>, Gated)> {
    let what = match stack {
        Some(s) => format!("stack {} has no cluster to gate yet", s.name()),
        None => "no cluster to gate yet".to_string(),
    };
    let open = |accept: Vec<String>| super::resolve(ground, stack)?.open_gate(accept, &what);
    let accept = |reads: Vec<GateRead>| crate::read::apiread::gate::accept_paths(&reads);
    Ok(match ask {
        Ask::Drain { node, no_ssh } => {
            let session = open(accept(GateRead::for_drain(node)))?;
            let gated = session.drain(node, HostReads::prepare(ground, stack, *no_ssh)?)?;
            (session, gated)
        }
        Ask::UpgradeKubernetes { version, no_ssh } => {
            let session = open(accept(GateRead::for_upgrade_kubernetes(*version)))?;
            let hosts = HostReads::prepare(ground, stack, *no_ssh)?;
            let gated = session.upgrade_kubernetes(*version, hosts)?;
            (session, gated)
        }
        // Its reads decided from the stack (the later layers) before any process.
        Ask::Component(which, version) => {
            let reads = ComponentReads::new(*which, stack);
            let session = open(reads.accept_paths())?;
            let gated = session.upgrade_component(&reads, *version)?;
            (session, gated)
        }
    })
}

impl Session<'_> {
    /// Exit 4 when a gate's nodes read shows the API server unreachable (the rule of
    /// preview's nodes read).
    fn nodes_reachable(&self, nodes: Option<&Result<Answer, ReadFailure>>) -> Result<()> {
        if let Some(Err(f)) = nodes {
            let mut obs = Observation::skipped("not read");
            obs.record(&ReadRequest::Nodes, Err(f.clone()));
            self.reachable(&obs)?;
        }
        Ok(())
    }

    /// A gate's API reads: every GET of `reads` at once through the gate's proxy, the later
    /// layers of `layers` read beside them through the same proxy (their batches given what
    /// is left of the run's bound), all of it charged to one budget; exit 4 when the API
    /// server is unreachable.
    pub(super) fn read_gate(
        &self,
        gate: Gate,
        reads: &[GateRead],
        layers: Option<&LayersPlan>,
    ) -> Result<GateAnswers> {
        let mut accept = crate::read::apiread::gate::accept_paths(reads);
        if let Some(l) = layers {
            accept.extend(l.accept_paths());
            accept.sort();
            accept.dedup();
        }
        let proxy = self.gate_proxy(&accept)?;
        let observed_at = crate::clock::now_secs();
        let budget = Budget::new(MEMORY_BUDGET);
        let kubectl = &self.kubectl;
        let ours = || {
            let in_flight = match layers {
                Some(_) => reads.len().max(1),
                None => API_READS_IN_FLIGHT,
            };
            read_gate(kubectl, &proxy, reads, in_flight, |r, target, body| {
                decode(r, target, body, &budget)
            })
        };
        let (answers, layers_after) = match layers {
            None => (Some(ours()), None),
            Some(plan) => {
                let in_flight = API_READS_IN_FLIGHT.saturating_sub(reads.len()).max(1);
                let (answers, after) =
                    crate::pool::beside(ours, || self.layers_after(&proxy, plan, in_flight));
                (answers, Some(after))
            }
        };
        drop(proxy);
        let mut answers = answers.unwrap_or_else(|| {
            let lost =
                ReadFailure::new(FailureKind::ApiError, "the gate's reading thread panicked");
            reads
                .iter()
                .map(|r| (r.clone(), Err(lost.clone())))
                .collect()
        });
        // Unreachable is exit 4, by the same rule as preview's nodes read.
        self.nodes_reachable(answers.get(&GateRead::Nodes))?;
        self.kubectl.runner().trace(&format!(
            "memory budget: {:.1} MiB of {} MiB kept from the gate's answers",
            budget.used() as f64 / f64::from(1 << 20),
            MEMORY_BUDGET >> 20
        ));
        let mut facts = Facts::unread(match gate {
            Gate::Drain => "not read by the drain gate",
            Gate::UpgradeKubernetes => "not read by the upgrade gate",
            Gate::UpgradeCilium | Gate::UpgradeRook => "not read by this gate",
        });
        facts.observed_at = Some(observed_at);
        if let Some(after) = layers_after {
            facts.layers_after = after?;
        }
        facts_from(gate, reads, &mut answers, &mut facts);
        let made = reads
            .iter()
            .map(|r| Made {
                read: r.kind(gate),
                sent: Sent::Get(r.target()),
            })
            .collect();
        Ok(GateAnswers { facts, made })
    }

    /// A gate's restricted proxy on `accept`, or the error that says why there is none.
    fn gate_proxy(&self, accept: &[String]) -> Result<ApiProxy> {
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
}
