//! `gate upgrade kubernetes VERSION`'s reads (SPEC §17): one round of parallel GETs through
//! a restricted proxy whose accept-paths are exactly the upgrade rules' paths
//! (`read::apiread::gate_upgrade`: nodes, kube-apiserver mirror pods, PDBs, CRDs,
//! `/readyz?verbose`, one list per API VERSION removes), decoded by the gate's decoders
//! into `Facts`, then the pure evaluation. A removed API's 404 means it is not served (the
//! cluster's answer); any other failure leaves its rule undecided (CANNOT TELL, never GO).
//! The platform components' versions are read by name (`session::gate_components`) for
//! `k8s-platform-ranges`. The host rules are read over ssh once the nodes are listed
//! (`gate_hosts`): the cgroup probe only when VERSION's kubelet refuses cgroup v1, the
//! control-plane certificates on every control-plane node.

use crate::error::Result;
use crate::model::gate::explain::{Gated, Made, Sent};
use crate::model::gate::version::Version;
use crate::model::gate::{self, decode, Facts, Gate, Read as ReadKind, Request};
use crate::model::observation::{FailureKind, Read, ReadFailure};
use crate::pool::{Budget, MEMORY_BUDGET};
use crate::read::apiread::gate_upgrade::{self as reads, read_targets, removed_api_target};

use super::gate::{take, Answer, Answers, HostReads, Shape};
use super::Session;

/// A removed API's list: how many objects it holds, `None` when the server does not serve
/// it (404).
fn removed_count(answers: &mut Answers<String>, target: &String) -> Read<Option<usize>> {
    match take(answers, target, Answer::count) {
        Err(f) if f.kind == FailureKind::NotFound => Ok(None),
        other => other.map(Some),
    }
}

/// `/readyz?verbose`'s text decoded.
fn readyz(read: Read<String>) -> Read<Vec<gate::facts::ReadyzCheck>> {
    read.and_then(|t| {
        decode::readyz(&t).map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.to_string()))
    })
}

/// Each API VERSION removes (`group/version/resource`) and its list GET (`None`: not a plain
/// path).
fn removed_reads(version: Version) -> Vec<(String, Option<String>)> {
    let mut removed = Vec::new();
    for row in gate::builtin()
        .removed_apis
        .iter()
        .filter(|r| r.minor == version.minor())
    {
        for resource in &row.resources {
            let key = format!("{}/{}/{resource}", row.group, row.version);
            removed.push((key, removed_api_target(&row.group, &row.version, resource)));
        }
    }
    removed
}

/// The accept-paths of `gate upgrade kubernetes VERSION`'s proxy (started while the session
/// opens: `Resolved::open_gate`).
pub fn upgrade_kubernetes_accept(version: Version) -> Vec<String> {
    let removed: Vec<String> = removed_reads(version)
        .into_iter()
        .filter_map(|(_, t)| t)
        .collect();
    reads::upgrade_accept_paths(&reads::upgrade_targets(&removed))
}

impl Session<'_> {
    /// `gate upgrade kubernetes VERSION`: read what its rules need and evaluate them.
    pub fn upgrade_kubernetes(&self, version: Version, hosts: HostReads) -> Result<Gated> {
        let table = gate::builtin();
        let removed = removed_reads(version);
        let removed_targets: Vec<String> = removed.iter().filter_map(|(_, t)| t.clone()).collect();
        let targets = reads::upgrade_targets(&removed_targets);
        let proxy = self.gate_proxy(&reads::upgrade_accept_paths(&targets))?;
        let budget = Budget::new(MEMORY_BUDGET);
        // The lists as they arrive; `/readyz` and the named workloads as the small texts
        // they are, charged as they arrive.
        let shape = |t: &str| match t {
            reads::NODES => Shape::Nodes,
            reads::APISERVER_PODS => Shape::Pods,
            reads::PDBS => Shape::Pdbs,
            reads::CRDS => Shape::Crds,
            t if removed_targets.iter().any(|r| r == t) => Shape::Count,
            _ => Shape::Text,
        };
        let mut answers = read_targets(&self.kubectl, &proxy, &targets, |t, body| {
            shape(t).decode(t, body, &budget)
        });
        drop(proxy);
        self.gate_budget_trace(&budget);
        // Unreachable is exit 4, by the same rule as preview's nodes read.
        self.nodes_reachable(answers.get(reads::NODES))?;
        let mut facts = Facts::unread("not read by the upgrade gate");
        facts.observed_at = Some(crate::clock::now_secs());
        let key = |t: &str| t.to_string();
        facts.nodes = take(&mut answers, &key(reads::NODES), Answer::nodes);
        facts.apiserver_pods = take(&mut answers, &key(reads::APISERVER_PODS), Answer::pods);
        facts.pdbs = take(&mut answers, &key(reads::PDBS), Answer::pdbs);
        facts.crds = take(&mut answers, &key(reads::CRDS), Answer::crds);
        facts.readyz = readyz(take(&mut answers, &key(reads::READYZ), Answer::text));
        for (key, target) in removed {
            let read = match target {
                Some(t) => removed_count(&mut answers, &t),
                None => Err(ReadFailure::new(
                    FailureKind::BadOutput,
                    format!("the table's API {key} is not a plain path"),
                )),
            };
            facts.removed_api_objects.insert(key, read);
        }
        facts.components = super::gate_components::platform_versions(&answers);
        // Over ssh, once the nodes are listed: the cgroup probe only when VERSION's kubelet
        // refuses cgroup v1 (else its rule holds from the table), the certificates always.
        (facts.host_cgroup, facts.host_certs) = hosts.upgrade(
            self.runner,
            &facts.nodes,
            table.cgroup_v2_row(version.minor()).is_some(),
            &table.certificates.files,
        );
        let request = Request {
            gate: Gate::UpgradeKubernetes,
            node: None,
            version: Some(version),
        };
        let mut made: Vec<Made> = targets
            .iter()
            .map(|t| Made {
                read: match t.as_str() {
                    reads::NODES => ReadKind::Nodes,
                    reads::APISERVER_PODS => ReadKind::ApiserverPods,
                    reads::PDBS => ReadKind::Pdbs,
                    reads::CRDS => ReadKind::Crds,
                    reads::READYZ => ReadKind::Readyz,
                    t if removed_targets.iter().any(|r| r == t) => ReadKind::RemovedApiObjects,
                    // What is left is the platform components' versions (`upgrade_targets`).
                    _ => ReadKind::ComponentVersions,
                },
                sent: Sent::Get(t.clone()),
            })
            .collect();
        made.extend(hosts.made());
        Ok(Gated {
            evaluation: gate::evaluate(&request, &facts, table),
            facts,
            made,
        })
    }
}
