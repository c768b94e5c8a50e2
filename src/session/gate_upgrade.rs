//! `gate upgrade kubernetes VERSION` (SPEC §17): its reads (`GateRead::for_upgrade_kubernetes`:
//! nodes, kube-apiserver mirror pods, PDBs, CRDs, `/readyz?verbose`, the platform components'
//! workloads by name for `k8s-platform-ranges`, one list per API VERSION removes) through the
//! one gate read path (`gate.rs`). A removed API's 404 means it is not served (the cluster's
//! answer); a removed API whose names make no plain path is a failed read, never "none". The
//! host rules are read over ssh once the nodes are listed (`gate_hosts`): the cgroup probe
//! only when VERSION's kubelet refuses cgroup v1, the control-plane certificates on every
//! control-plane node.

use crate::error::Result;
use crate::model::gate::explain::Gated;
use crate::model::gate::version::Version;
use crate::model::gate::{self, Gate, Request};
use crate::model::observation::{FailureKind, ReadFailure};
use crate::read::apiread::gate::{removed_apis, GateRead};

use super::gate::HostReads;
use super::gate_answers::gated;
use super::Session;

impl Session<'_> {
    /// `gate upgrade kubernetes VERSION`: read what its rules need and evaluate them.
    pub(super) fn upgrade_kubernetes(&self, version: Version, hosts: HostReads) -> Result<Gated> {
        let table = gate::builtin();
        let reads = GateRead::for_upgrade_kubernetes(version);
        let mut read = self.read_gate(Gate::UpgradeKubernetes, &reads, None)?;
        let facts = &mut read.facts;
        for (key, target) in removed_apis(version) {
            if target.is_none() {
                let why = format!("the table's API {key} is not a plain path");
                let failed = Err(ReadFailure::new(FailureKind::BadOutput, why));
                facts.removed_api_objects.insert(key, failed);
            }
        }
        // Over ssh, once the nodes are listed: the cgroup probe only when VERSION's kubelet
        // refuses cgroup v1 (else its rule holds from the table), the certificates always.
        (facts.host_cgroup, facts.host_certs) = hosts.upgrade(
            self.runner,
            &facts.nodes,
            table.cgroup_v2_row(version.minor()).is_some(),
            &table.certificates.files,
        );
        read.made.extend(hosts.made());
        let request = Request {
            gate: Gate::UpgradeKubernetes,
            node: None,
            version: Some(version),
        };
        Ok(gated(&request, read.facts, read.made))
    }
}
