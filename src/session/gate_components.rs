//! `gate upgrade cilium|rook VERSION`'s reads (SPEC §17): one round of parallel GETs through
//! a restricted proxy whose accept-paths are exactly the component rules' paths
//! (`read::apiread::gate_components`: the nodes, the kube-apiserver mirror pods, the
//! component's named workloads, Rook's daemons by selector and the CephCluster) and the
//! paths the stack's layers after the component's read (`gate_layers.rs`, preview's
//! pipeline, read beside them through the same proxy), decoded into `Facts`, then the pure
//! evaluation. A named workload's 404 is the cluster's answer (not installed:
//! `cilium-present`/`rook-present` say so); any other failure leaves its rules undecided
//! (CANNOT TELL, exit 5), never GO. Also the platform components' versions `gate upgrade
//! kubernetes` reads for `k8s-platform-ranges`.

use std::collections::BTreeMap;

use crate::error::Result;
use crate::model::gate::explain::{Gated, Made, Sent};
use crate::model::gate::facts::{RookLabel, WorkloadImage};
use crate::model::gate::version::Version;
use crate::model::gate::{self, decode, Component, Facts, Gate, Read as ReadKind, Request};
use crate::model::observation::{FailureKind, Read, ReadFailure};
use crate::pool::{Budget, API_READS_IN_FLIGHT, MEMORY_BUDGET};
use crate::read::apiread::gate_components::{self as reads, component_targets, ComponentGate};
use crate::read::apiread::gate_upgrade::{
    read_targets, upgrade_accept_paths, APISERVER_PODS, NODES,
};

use super::gate::{ceph, take, Answer, Answers, Shape};
use super::gate_layers::LayersPlan;
use super::Session;

type Texts = Answers<String>;

/// A named object's or a small list's answer, held as the text it was (charged as it came).
fn text(answers: &Texts, target: &str) -> Result<String, ReadFailure> {
    match answers.get(target) {
        Some(Ok(Answer::Text(t))) => Ok(t.clone()),
        Some(Ok(
            Answer::Nodes(_)
            | Answer::Pods(_)
            | Answer::Requests(_)
            | Answer::Named(_)
            | Answer::Cnpg(_)
            | Answer::Pdbs(_)
            | Answer::Pvs(_)
            | Answer::Crds(_)
            | Answer::Ceph(_)
            | Answer::Count(_),
        )) => Err(ReadFailure::new(
            FailureKind::ApiError,
            "decoded as another kind of answer",
        )),
        Some(Err(f)) => Err(f.clone()),
        None => Err(ReadFailure::new(FailureKind::ApiError, "not sent")),
    }
}

/// A text answer decoded, or the failure that says why there is none (an undecodable body
/// is `BadOutput`, never an empty list).
fn decoded<T>(text: &Result<String, ReadFailure>, decode: fn(&str) -> Result<T>) -> Read<T> {
    match text {
        Ok(t) => decode(t).map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.to_string())),
        Err(f) => Err(f.clone()),
    }
}

/// How a component gate's read is decoded: the nodes, the mirror pods and the CephCluster
/// as they arrive, the named workloads and Rook's few daemons as the small texts they are.
fn component_shape(target: &str) -> Shape {
    match target {
        NODES => Shape::Nodes,
        APISERVER_PODS => Shape::Pods,
        reads::CEPH_CLUSTERS => Shape::Ceph,
        _ => Shape::Text,
    }
}

/// A named object's answer: `None` for a 404 (the cluster has no such object).
fn named<T>(
    answers: &Texts,
    target: &str,
    decode: impl Fn(&str) -> crate::error::Result<T>,
) -> Read<Option<T>> {
    match text(answers, target) {
        Err(f) if f.kind == FailureKind::NotFound => Ok(None),
        Err(f) => Err(f),
        Ok(t) => decode(&t)
            .map(Some)
            .map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.to_string())),
    }
}

/// The Cilium agent's and operator's images (a 404 leaves its workload out).
fn cilium_images(answers: &Texts) -> Read<Vec<WorkloadImage>> {
    let agent = named(answers, reads::CILIUM_AGENT, |t| {
        decode::workload_object(t, "DaemonSet")
    })?;
    let operator = named(answers, reads::CILIUM_OPERATOR, |t| {
        decode::workload_object(t, "Deployment")
    })?;
    Ok(agent.into_iter().chain(operator).flatten().collect())
}

/// Rook's daemons' `rook-version` labels and its operator (a 404 leaves it out).
fn rook_versions(answers: &Texts) -> Read<Vec<RookLabel>> {
    let mut labels = decoded(&text(answers, reads::ROOK_DAEMONS), decode::rook_versions)?;
    if let Some(op) = named(answers, reads::ROOK_OPERATOR, decode::rook_operator)? {
        labels.push(op);
    }
    Ok(labels)
}

/// Each platform component's version for `k8s-platform-ranges`, from its workload read
/// by name (`None`: not installed). Argo CD is not read: the table holds no verified range.
pub(super) fn platform_versions(answers: &Texts) -> BTreeMap<Component, Read<Option<Version>>> {
    let v = |target: &str, kind: &'static str, container: Option<&'static str>| {
        named(answers, target, move |t| {
            decode::component_version(t, kind, container)
        })
    };
    [
        (
            Component::Cilium,
            v(reads::CILIUM_AGENT, "DaemonSet", Some("cilium-agent")),
        ),
        (
            Component::Rook,
            v(
                reads::ROOK_OPERATOR,
                "Deployment",
                Some("rook-ceph-operator"),
            ),
        ),
        (
            Component::CertManager,
            v(reads::CERT_MANAGER, "Deployment", None),
        ),
        (Component::Cnpg, v(reads::CNPG, "Deployment", None)),
    ]
    .into_iter()
    .collect()
}

/// What `gate upgrade cilium|rook` reads, decided before any process: the component's
/// named reads and the stack's layers after the component's layer.
pub struct ComponentReads<'s> {
    which: ComponentGate,
    targets: Vec<String>,
    layers: LayersPlan<'s>,
}

impl<'s> ComponentReads<'s> {
    pub fn new(which: ComponentGate, stack: Option<&'s crate::stack::Topology>) -> Self {
        let component = match which {
            ComponentGate::Cilium => Component::Cilium,
            ComponentGate::Rook => Component::Rook,
        };
        ComponentReads {
            which,
            targets: component_targets(which),
            layers: LayersPlan::new(component, stack),
        }
    }

    /// The gate these reads serve.
    pub fn gate(&self) -> Gate {
        match self.which {
            ComponentGate::Cilium => Gate::UpgradeCilium,
            ComponentGate::Rook => Gate::UpgradeRook,
        }
    }

    /// The gate proxy's accept-paths: exactly the component's reads and the later layers'.
    pub fn accept_paths(&self) -> Vec<String> {
        let mut all = upgrade_accept_paths(&self.targets);
        all.extend(self.layers.accept_paths());
        all.sort();
        all.dedup();
        all
    }
}

impl Session<'_> {
    /// `gate upgrade cilium|rook VERSION`: read what its rules need and evaluate them.
    pub fn upgrade_component(&self, plan: &ComponentReads, version: Version) -> Result<Gated> {
        let (which, targets) = (plan.which, &plan.targets);
        let proxy = self.gate_proxy(&plan.accept_paths())?;
        let budget = Budget::new(MEMORY_BUDGET);
        // The component's GETs (a few, each its own thread) beside the later layers' through
        // the same proxy, the layers' batches given what is left of the run's bound.
        let in_flight = API_READS_IN_FLIGHT.saturating_sub(targets.len()).max(1);
        let kubectl = &self.kubectl;
        let (answers, layers_after) = crate::pool::beside(
            || {
                read_targets(kubectl, &proxy, targets, |t, body| {
                    component_shape(t).decode(t, body, &budget)
                })
            },
            || self.layers_after(&proxy, &plan.layers, in_flight),
        );
        drop(proxy);
        let mut answers = answers.unwrap_or_else(|| {
            let lost =
                ReadFailure::new(FailureKind::ApiError, "the gate's reading thread panicked");
            targets
                .iter()
                .map(|t| (t.clone(), Err(lost.clone())))
                .collect()
        });
        // Unreachable is exit 4, by the same rule as preview's nodes read.
        self.nodes_reachable(answers.get(NODES))?;
        let layers_after = layers_after?;
        self.gate_budget_trace(&budget);
        let mut facts = Facts::unread("not read by this gate");
        facts.observed_at = Some(crate::clock::now_secs());
        facts.layers_after = layers_after;
        facts.apiserver_pods = take(&mut answers, &APISERVER_PODS.to_string(), Answer::pods);
        // Every kubelet against the target release's range (cilium|rook-kubelet-range).
        facts.nodes = take(&mut answers, &NODES.to_string(), Answer::nodes);
        match which {
            ComponentGate::Cilium => facts.cilium_images = cilium_images(&answers),
            ComponentGate::Rook => {
                facts.rook_versions = rook_versions(&answers);
                facts.ceph = ceph(&mut answers, &reads::CEPH_CLUSTERS.to_string());
            }
        }
        let gate = plan.gate();
        let request = Request {
            gate,
            node: None,
            version: Some(version),
        };
        let made = targets
            .iter()
            .filter_map(|t| {
                let read = match t.as_str() {
                    NODES => ReadKind::Nodes,
                    APISERVER_PODS => ReadKind::ApiserverPods,
                    reads::CILIUM_AGENT | reads::CILIUM_OPERATOR => ReadKind::CiliumImages,
                    reads::ROOK_OPERATOR | reads::ROOK_DAEMONS => ReadKind::RookVersions,
                    reads::CEPH_CLUSTERS => ReadKind::CephCluster,
                    _ => return None,
                };
                Some(Made {
                    read,
                    sent: Sent::Get(t.clone()),
                })
            })
            .collect();
        Ok(Gated {
            evaluation: gate::evaluate(&request, &facts, gate::builtin()),
            facts,
            made,
        })
    }
}
