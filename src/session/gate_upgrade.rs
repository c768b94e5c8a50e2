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
use crate::model::observation::{FailureKind, Observation, Read, ReadFailure, ReadRequest};
use crate::read::apiread::gate_upgrade::{self as reads, read_targets, removed_api_target};

use super::gate::{decoded, HostReads};
use super::Session;

/// A removed API's list: how many objects it holds, `None` when the server does not serve
/// it (404).
fn removed_count(text: &Result<String, ReadFailure>) -> Read<Option<usize>> {
    match text {
        Err(f) if f.kind == FailureKind::NotFound => Ok(None),
        other => decoded(other, decode::count_items).map(Some),
    }
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
        let answers = read_targets(&self.kubectl, &proxy, &targets);
        drop(proxy);
        let text = |t: &str| {
            answers
                .get(t)
                .cloned()
                .unwrap_or_else(|| Err(ReadFailure::new(FailureKind::ApiError, "not sent")))
        };
        // Unreachable is exit 4, by the same rule as preview's nodes read.
        let nodes_text = text(reads::NODES);
        let mut obs = Observation::skipped("not read");
        obs.record(
            &ReadRequest::Nodes,
            nodes_text.as_deref().map_err(Clone::clone),
        );
        self.reachable(&obs)?;
        let mut facts = Facts::unread("not read by the upgrade gate");
        facts.observed_at = Some(crate::clock::now_secs());
        facts.nodes = decoded(&nodes_text, decode::nodes);
        facts.apiserver_pods = decoded(&text(reads::APISERVER_PODS), decode::pods);
        facts.pdbs = decoded(&text(reads::PDBS), decode::pdbs);
        facts.crds = decoded(&text(reads::CRDS), decode::crds);
        facts.readyz = decoded(&text(reads::READYZ), decode::readyz);
        for (key, target) in removed {
            let read = match target {
                Some(t) => removed_count(&text(&t)),
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
