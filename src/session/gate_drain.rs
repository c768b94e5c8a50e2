//! `gate drain NODE` (SPEC §17): the drain's reads (`GateRead::for_drain`) through the one
//! gate read path (`gate.rs`), NODE checked against the nodes listed (a NODE the cluster does
//! not list is the operator's error, exit 1), then the host rule over ssh on the nodes that
//! stay, then the pure evaluation.

use crate::error::{Error, Result};
use crate::model::gate::explain::Gated;
use crate::model::gate::{Gate, Request};
use crate::read::apiread::gate::{GateRead, NodeName};

use super::gate::HostReads;
use super::gate_answers::gated;
use super::Session;

impl Session<'_> {
    /// `gate drain NODE`: read what the drain rules need and evaluate them.
    pub(super) fn drain(&self, node: &NodeName, hosts: HostReads) -> Result<Gated> {
        let reads = GateRead::for_drain(node);
        let mut read = self.read_gate(Gate::Drain, &reads, None)?;
        if let Ok(listed) = &read.facts.nodes {
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
        // Over ssh, once the nodes say which hosts stay (every node but NODE).
        read.facts.host_time_sync = hosts.time_sync(self.runner, &read.facts.nodes, node.as_str());
        read.made.extend(hosts.made());
        let request = Request {
            gate: Gate::Drain,
            node: Some(node.as_str().to_string()),
            version: None,
        };
        Ok(gated(&request, read.facts, read.made))
    }
}
