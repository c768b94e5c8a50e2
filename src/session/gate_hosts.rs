//! The gates' host reads (SPEC §17): which hosts, decided from the stack before any ssh runs
//! (`--no-ssh`; no stack or no Ansible inventory: nothing can be read, so the host rules are
//! undecided; otherwise every inventory host's connection validated first, a hostile value an
//! input error), then, once the nodes are listed, one ssh per probe to the inventory host of
//! each node's name (`read::hosts::gate`) and each answer interpreted into the facts the
//! rules use. A node without an inventory host of its name, or whose ssh failed, is a
//! failed read of that node: its rule is undecided, never GO.

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::error::Result;
use crate::model::gate::cert::{parse_certificate, Cert, PkiPath};
use crate::model::gate::explain::{Made, Sent};
use crate::model::gate::facts::{CertFile, Node, PerHost};
use crate::model::gate::host::{parse_cgroup, parse_timedatectl, TimeSync};
use crate::model::gate::{Read as ReadKind, INVENTORY_NONE, NO_SSH};
use crate::model::observation::host::{classify_command_failure, summary};
use crate::model::observation::{FailureKind, Read, ReadFailure};
use crate::read::hosts::gate::{self as probes, GateHost, GateProbe, ProbeRun};
use crate::read::hosts::RemoteRun;
use crate::stack::Topology;

use super::Ground;

/// What a gate can read over ssh.
pub enum HostReads {
    /// The operator's `--no-ssh`: the host rules are skipped, and the output says so.
    NoSsh,
    /// The stack's `inventory: none`: the operator's choice too, written once in the
    /// topology; skipped the same way.
    NoInventory,
    /// Nothing can be read (no stack, no inventory): the reason, a failed read of each rule.
    Unavailable(String),
    /// Every host of the inventory, by its inventory name, its connection validated; and
    /// each ssh sent (`--explain`).
    Inventory(BTreeMap<String, GateHost>, String, RefCell<Vec<Made>>),
}

impl HostReads {
    /// Decide before any ssh: `--no-ssh`, the stack's inventory, every host's connection.
    pub fn prepare(ground: Ground, stack: Option<&Topology>, no_ssh: bool) -> Result<HostReads> {
        if no_ssh {
            return Ok(HostReads::NoSsh);
        }
        if stack.is_some_and(Topology::has_no_inventory) {
            return Ok(HostReads::NoInventory);
        }
        let Some(stack) = stack else {
            return Ok(HostReads::Unavailable(
                "no stack, so no Ansible inventory to reach the nodes (name one with --stack, or say --no-ssh)".into(),
            ));
        };
        let (inventory, path) = match super::hosts::load_inventory(ground, stack)? {
            Ok(loaded) => loaded,
            Err(path) => {
                return Ok(HostReads::Unavailable(format!(
                    "no Ansible inventory at {} (set `inventory:` in {}, or say --no-ssh)",
                    path.display(),
                    stack.file.display()
                )))
            }
        };
        let reach = super::hosts::reach(ground, stack);
        let mut hosts = BTreeMap::new();
        for name in inventory.hosts_of("all")? {
            let (destination, ssh_options, _) = reach.host(&inventory, &name)?;
            hosts.insert(
                name.clone(),
                GateHost {
                    name,
                    destination,
                    ssh_options,
                },
            );
        }
        Ok(HostReads::Inventory(
            hosts,
            path.display().to_string(),
            RefCell::new(Vec::new()),
        ))
    }

    /// Why nothing is read, as the failed read every host fact carries.
    fn unread(&self) -> Option<ReadFailure> {
        match self {
            HostReads::NoSsh => Some(ReadFailure::skipped(NO_SSH)),
            HostReads::NoInventory => Some(ReadFailure::skipped(INVENTORY_NONE)),
            HostReads::Unavailable(why) => Some(ReadFailure::new(FailureKind::Skipped, why)),
            HostReads::Inventory(..) => None,
        }
    }

    /// Every ssh sent so far, in the order sent (`--explain`).
    pub(super) fn made(&self) -> Vec<Made> {
        match self {
            HostReads::Inventory(_, _, made) => made.borrow().clone(),
            HostReads::NoSsh | HostReads::NoInventory | HostReads::Unavailable(_) => Vec::new(),
        }
    }

    /// Run each node's probes (nodes by name), all in one bounded round: per node, each
    /// probe's run, or why the node could not be asked.
    fn ask(
        &self,
        runner: &crate::read::exec::Runner,
        wanted: &[(String, Vec<GateProbe>)],
    ) -> Read<BTreeMap<String, Read<Vec<ProbeRun>>>> {
        if let Some(f) = self.unread() {
            return Err(f);
        }
        let HostReads::Inventory(hosts, inventory, made) = self else {
            return Err(ReadFailure::new(FailureKind::ApiError, "no inventory"));
        };
        let mut out = BTreeMap::new();
        let mut jobs = Vec::new();
        for (node, probes) in wanted {
            match hosts.get(node) {
                Some(h) => jobs.push((h.clone(), probes.clone())),
                None => {
                    out.insert(
                        node.clone(),
                        Err(ReadFailure::new(
                            FailureKind::Skipped,
                            format!("no host `{node}` in the inventory {inventory}; hint: name the inventory's hosts as the cluster names its nodes"),
                        )),
                    );
                }
            }
        }
        for (host, list) in &jobs {
            for probe in list {
                let argv = probes::argv(host, probe);
                made.borrow_mut().push(Made {
                    read: match probe {
                        GateProbe::TimeSync => ReadKind::HostTimeSync,
                        GateProbe::Cgroup => ReadKind::HostCgroup,
                        GateProbe::Cert(_) => ReadKind::HostCerts,
                    },
                    sent: Sent::Ssh {
                        node: host.name.clone(),
                        options: host.ssh_options.clone(),
                        remote: argv[host.ssh_options.len().min(argv.len())..].to_vec(),
                    },
                });
            }
        }
        for ((host, _), runs) in jobs.iter().zip(probes::run(runner, &jobs)) {
            // Every probe failing the same way (ssh down) is the node unread.
            let read = match runs.iter().find_map(|r| r.as_ref().err()) {
                Some(f) if runs.iter().all(|r| r.is_err()) => Err(f.clone()),
                _ => Ok(runs),
            };
            out.insert(host.name.clone(), read);
        }
        Ok(out)
    }

    /// `timedatectl show` on every node but `drained` (the nodes that stay).
    pub(super) fn time_sync(
        &self,
        runner: &crate::read::exec::Runner,
        nodes: &Read<Vec<Node>>,
        drained: &str,
    ) -> Read<PerHost<TimeSync>> {
        if let Some(f) = self.unread() {
            return Err(f);
        }
        let names: Vec<String> = nodes_of(nodes)?
            .iter()
            .filter(|n| n.name != drained)
            .map(|n| n.name.clone())
            .collect();
        let wanted: Vec<(String, Vec<GateProbe>)> = names
            .into_iter()
            .map(|n| (n, vec![GateProbe::TimeSync]))
            .collect();
        let asked = self.ask(runner, &wanted)?;
        Ok(per_node(asked, |runs| first(runs).and_then(time_sync)))
    }

    /// `gate upgrade kubernetes`'s host reads in one round: the cgroup probe on every node
    /// when `cgroup` (VERSION needs v2; else that rule holds from the table and nothing is
    /// asked), each of `files` on every control-plane node.
    pub(super) fn upgrade(
        &self,
        runner: &crate::read::exec::Runner,
        nodes: &Read<Vec<Node>>,
        cgroup: bool,
        files: &[PkiPath],
    ) -> (Read<PerHost<bool>>, Read<PerHost<Vec<CertFile>>>) {
        let not_asked = || {
            if cgroup {
                None
            } else {
                Some(Ok(PerHost::new()))
            }
        };
        let listed = match (self.unread(), nodes_of(nodes)) {
            (Some(f), _) | (None, Err(f)) => {
                return (not_asked().unwrap_or_else(|| Err(f.clone())), Err(f))
            }
            (None, Ok(listed)) => listed,
        };
        let certs: Vec<GateProbe> = files.iter().cloned().map(GateProbe::Cert).collect();
        let wanted: Vec<(String, Vec<GateProbe>)> = listed
            .iter()
            .map(|n| {
                let mut probes = Vec::new();
                if cgroup {
                    probes.push(GateProbe::Cgroup);
                }
                if n.is_control_plane() {
                    probes.extend(certs.iter().cloned());
                }
                (n.name.clone(), probes)
            })
            .filter(|(_, probes)| !probes.is_empty())
            .collect();
        let asked = match self.ask(runner, &wanted) {
            Ok(a) => a,
            Err(f) => return (not_asked().unwrap_or_else(|| Err(f.clone())), Err(f)),
        };
        let skip = usize::from(cgroup);
        let v2 = match not_asked() {
            Some(done) => done,
            None => Ok(per_node(asked.clone(), |runs| {
                first(runs).and_then(cgroup_of)
            })),
        };
        let control: Vec<&str> = listed
            .iter()
            .filter(|n| n.is_control_plane())
            .map(|n| n.name.as_str())
            .collect();
        let on_control = asked
            .into_iter()
            .filter(|(node, _)| control.contains(&node.as_str()))
            .collect();
        let pki = per_node(on_control, |runs| {
            Ok(files
                .iter()
                .zip(runs.iter().skip(skip))
                .map(|(path, run)| CertFile {
                    path: path.clone(),
                    read: run.clone().and_then(|r| cert(&r, path)),
                })
                .collect())
        });
        (v2, Ok(pki))
    }
}

fn nodes_of(nodes: &Read<Vec<Node>>) -> Read<&Vec<Node>> {
    nodes.as_ref().map_err(|f| {
        ReadFailure::new(
            f.kind,
            format!("the nodes were not read, so nestor cannot tell which hosts to ask: {f}"),
        )
    })
}

fn per_node<T>(
    asked: BTreeMap<String, Read<Vec<ProbeRun>>>,
    f: impl Fn(&[ProbeRun]) -> Read<T>,
) -> PerHost<T> {
    asked
        .into_iter()
        .map(|(node, runs)| (node, runs.and_then(|r| f(&r))))
        .collect()
}

fn first(runs: &[ProbeRun]) -> Read<RemoteRun> {
    runs.first()
        .cloned()
        .unwrap_or_else(|| Err(ReadFailure::new(FailureKind::ApiError, "no probe was run")))
}

/// A remote command that exited non-zero, as a failed read (sudo, permission, 127, or its
/// own words).
fn failed(run: &RemoteRun) -> ReadFailure {
    classify_command_failure(run.status, &run.stderr).unwrap_or_else(|| {
        ReadFailure::new(
            FailureKind::ApiError,
            format!("exit status {}: {}", run.status, summary(&run.stderr)),
        )
    })
}

fn bad(message: String) -> ReadFailure {
    ReadFailure::new(FailureKind::BadOutput, message)
}

/// `timedatectl show`'s run → the clock facts.
pub(crate) fn time_sync(run: RemoteRun) -> Read<TimeSync> {
    if run.status != 0 {
        return Err(failed(&run));
    }
    parse_timedatectl(&String::from_utf8_lossy(&run.stdout)).map_err(bad)
}

/// The cgroup probe's run → cgroup v2 or not (a missing `/sys/fs/cgroup` is a failed read).
pub(crate) fn cgroup_of(run: RemoteRun) -> Read<bool> {
    if run.status != 0 {
        return Err(failed(&run));
    }
    parse_cgroup(&String::from_utf8_lossy(&run.stdout)).map_err(bad)
}

/// `cat PATH`'s run → the certificate, `None` when cat says the file does not exist.
pub(crate) fn cert(run: &RemoteRun, path: &PkiPath) -> Read<Option<Cert>> {
    if run.status != 0 {
        let missing = run.stderr.lines().any(|l| {
            l.starts_with("cat: ")
                && l.contains(path.as_str())
                && l.ends_with("No such file or directory")
        });
        return if missing { Ok(None) } else { Err(failed(run)) };
    }
    parse_certificate(&run.stdout).map(Some).map_err(bad)
}

#[cfg(test)]
#[path = "gate_hosts_tests.rs"]
mod tests;
