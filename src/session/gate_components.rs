//! `gate upgrade cilium|rook VERSION` (SPEC §17): its reads (`GateRead::for_component`: the
//! nodes, the kube-apiserver mirror pods, the component's named workloads, Rook's daemons by
//! selector and the CephCluster) through the one gate read path (`gate.rs`), the stack's
//! layers after the component's read beside them by preview's pipeline (`gate_layers.rs`),
//! then the pure evaluation. A named workload's 404 is the cluster's answer (not installed:
//! `cilium-present`/`rook-present` say so); any other failure leaves its rules undecided
//! (CANNOT TELL, exit 5), never GO. Also the named workloads' facts of every gate: the
//! platform components' versions `gate upgrade kubernetes` reads for `k8s-platform-ranges`.

use std::collections::BTreeMap;

use crate::error::Result;
use crate::model::gate::explain::Gated;
use crate::model::gate::facts::{RookLabel, WorkloadImage};
use crate::model::gate::version::Version;
use crate::model::gate::{decode, Component, Facts, Gate, Request};
use crate::model::observation::{FailureKind, Read, ReadFailure};
use crate::read::apiread::gate::{ComponentGate, GateRead};

use super::gate_answers::{gated, Answer, Answers};
use super::gate_layers::LayersPlan;
use super::Session;

/// A named object's or a small list's answer, held as the text it was (charged as it came).
fn text(answers: &Answers, read: &GateRead) -> Result<String, ReadFailure> {
    match answers.get(read) {
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

/// A named object's answer: `None` for a 404 (the cluster has no such object).
fn named<T>(
    answers: &Answers,
    read: &GateRead,
    decode: impl Fn(&str) -> crate::error::Result<T>,
) -> Read<Option<T>> {
    match text(answers, read) {
        Err(f) if f.kind == FailureKind::NotFound => Ok(None),
        Err(f) => Err(f),
        Ok(t) => decode(&t)
            .map(Some)
            .map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.to_string())),
    }
}

/// The Cilium agent's and operator's images (a 404 leaves its workload out).
fn cilium_images(answers: &Answers) -> Read<Vec<WorkloadImage>> {
    let agent = named(answers, &GateRead::CiliumAgent, |t| {
        decode::workload_object(t, "DaemonSet")
    })?;
    let operator = named(answers, &GateRead::CiliumOperator, |t| {
        decode::workload_object(t, "Deployment")
    })?;
    Ok(agent.into_iter().chain(operator).flatten().collect())
}

/// Rook's daemons' `rook-version` labels and its operator (a 404 leaves it out).
fn rook_versions(answers: &Answers) -> Read<Vec<RookLabel>> {
    let mut labels = text(answers, &GateRead::RookDaemons).and_then(|t| {
        decode::rook_versions(&t)
            .map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.to_string()))
    })?;
    if let Some(op) = named(answers, &GateRead::RookOperator, decode::rook_operator)? {
        labels.push(op);
    }
    Ok(labels)
}

/// Each platform component's version for `k8s-platform-ranges`, from its workload read
/// by name (`None`: not installed). Argo CD is not read: the table holds no verified range.
fn platform_versions(answers: &Answers) -> BTreeMap<Component, Read<Option<Version>>> {
    let v = |read: GateRead, kind: &'static str, container: Option<&'static str>| {
        named(answers, &read, move |t| {
            decode::component_version(t, kind, container)
        })
    };
    [
        (
            Component::Cilium,
            v(GateRead::CiliumAgent, "DaemonSet", Some("cilium-agent")),
        ),
        (
            Component::Rook,
            v(
                GateRead::RookOperator,
                "Deployment",
                Some("rook-ceph-operator"),
            ),
        ),
        (
            Component::CertManager,
            v(GateRead::CertManager, "Deployment", None),
        ),
        (
            Component::Cnpg,
            v(GateRead::CnpgOperator, "Deployment", None),
        ),
    ]
    .into_iter()
    .collect()
}

/// The facts `gate` takes from the named workloads it read: the platform components'
/// versions (upgrade kubernetes), the component's images or labels (its own gate).
pub(super) fn named_facts(gate: Gate, answers: &Answers, facts: &mut Facts) {
    match gate {
        Gate::Drain => {}
        Gate::UpgradeKubernetes => facts.components = platform_versions(answers),
        Gate::UpgradeCilium => facts.cilium_images = cilium_images(answers),
        Gate::UpgradeRook => facts.rook_versions = rook_versions(answers),
    }
}

/// What `gate upgrade cilium|rook` reads, decided before any process: the component's
/// named reads and the stack's layers after the component's layer.
pub struct ComponentReads<'s> {
    which: ComponentGate,
    reads: Vec<GateRead>,
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
            reads: GateRead::for_component(which),
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
        let mut all = crate::read::apiread::gate::accept_paths(&self.reads);
        all.extend(self.layers.accept_paths());
        all.sort();
        all.dedup();
        all
    }
}

impl Session<'_> {
    /// `gate upgrade cilium|rook VERSION`: read what its rules need and evaluate them.
    pub(super) fn upgrade_component(
        &self,
        plan: &ComponentReads,
        version: Version,
    ) -> Result<Gated> {
        let gate = plan.gate();
        let read = self.read_gate(gate, &plan.reads, Some(&plan.layers))?;
        let request = Request {
            gate,
            node: None,
            version: Some(version),
        };
        Ok(gated(&request, read.facts, read.made))
    }
}
