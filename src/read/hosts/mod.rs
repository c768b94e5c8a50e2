//! Reads the host-level layers (SPEC §13) over ssh: which hosts (the stack's Ansible
//! inventory, the reader `kubeconfig fetch` uses), the exact remote command of each check
//! (built from the catalog's validated fields, every word shell-quoted), one ssh per check,
//! at most [`crate::pool::SSH_IN_FLIGHT`] ssh at once and [`MAX_SSH_PER_HOST`] of one host, each ssh
//! bounded by `--request-timeout`.
//!
//! The remote string ssh hands the host's shell is exactly one of SPEC §13's forms:
//! `['sudo' '-n'] 'WORD' 'WORD'...` and nothing else. `sudo -n` only where the check says
//! `sudo: true`, never when the ssh user is `root`. The allowlist (`read::exec::allowlist::hostcmd`)
//! admits exactly these forms. ssh exits with the remote command's status, or 255 for its
//! own failure (ssh(1), EXIT STATUS): 255 is a failed read of the host, any other status is
//! the command's, interpreted with its stdout and stderr (kept apart).
//!
//! Only the spawning goes through `exec`; everything else here builds argv or interprets
//! results.
//!
//! Files: this one, the remote words of each check; `run.rs`, one ssh per check and its result
//! read; `schedule.rs`, hosts in turn within the bounds; `gate.rs`, the gates' typed probes
//! (`GateProbe`), each one fixed command with its own output cap.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::error::Result;
use crate::model::catalog::host::CONTROL_PLANE;
use crate::model::catalog::{Catalog, HostCheck, HostProbe};
use crate::model::observation::{FailureKind, ReadFailure};
use crate::stack::inventory::Inventory;

pub(crate) mod gate;
mod run;
mod schedule;
pub(crate) use run::read;
#[cfg(test)]
use run::ssh_failure;
pub use run::{interpret, RemoteRun};

/// `systemctl show --property=`: what the unit checks use.
pub(crate) const UNIT_PROPERTIES: &str = "LoadState,ActiveState,SubState,Result,ExecMainStatus";
/// `find -printf`: mtime (seconds since the epoch), size in bytes, path.
pub(crate) const FIND_FORMAT: &str = "%T@ %s %p\\n";
/// Most ssh connections nestor opens to one host at once: well under OpenSSH's default
/// `MaxStartups 10:30:100` (docs/host-checks.md has the measurement).
pub(crate) const MAX_SSH_PER_HOST: usize = 4;
/// ssh's exit status for its own failure (ssh(1)): never the remote command's.
pub(crate) const SSH_FAILED: i32 = 255;

/// One host to read: how to reach it and the checks of every host layer that names it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HostJob {
    /// The inventory name (`dirqual1`), used in evidence.
    pub name: String,
    /// `[user@]address`, as passed to ssh.
    pub destination: String,
    pub user: Option<String>,
    /// The ssh argv up to and including the destination.
    pub ssh_options: Vec<String>,
    pub checks: Vec<HostCheck>,
}

/// The hosts the stack's host layers need: groups resolved, every host validated (a hostile
/// inventory value is an error here, before any ssh runs).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct HostPlan {
    pub groups: BTreeMap<String, std::result::Result<Vec<String>, ReadFailure>>,
    pub jobs: Vec<HostJob>,
}

/// The host-level layers among `layer_ids`.
pub(crate) fn host_layers<'a>(
    catalog: &'a Catalog,
    layer_ids: &[String],
) -> Vec<&'a crate::model::catalog::Layer> {
    layer_ids
        .iter()
        .filter_map(|id| catalog.get(id))
        .filter(|l| l.host.is_some())
        .collect()
}

/// Build the plan: each host layer's group resolved in `inventory` (`control_plane` is the
/// stack's control-plane group, as `kubeconfig fetch` picks it), then one job per host with
/// the union of its checks, each host reached as `reach` says.
pub(crate) fn plan(
    catalog: &Catalog,
    layer_ids: &[String],
    inventory: &Inventory,
    control_group: Option<&str>,
    reach: Reach,
) -> Result<HostPlan> {
    let mut out = HostPlan::default();
    let mut checks: BTreeMap<String, Vec<HostCheck>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for layer in host_layers(catalog, layer_ids) {
        let Some(spec) = &layer.host else { continue };
        let group = if spec.group == CONTROL_PLANE {
            inventory.control_group_name(control_group)
        } else {
            Ok(spec.group.clone())
        };
        let hosts = group.and_then(|g| inventory.hosts_of(&g)).map_err(|e| {
            ReadFailure::new(
                FailureKind::Skipped,
                format!("{}; hint: {}", e.message, e.hint),
            )
        });
        if let Ok(hosts) = &hosts {
            for h in hosts {
                if !order.contains(h) {
                    order.push(h.clone());
                }
                let list = checks.entry(h.clone()).or_default();
                for c in spec.checks.iter().flat_map(HostCheck::reads) {
                    if !list.iter().any(|x| x.key() == c.key()) {
                        list.push(c);
                    }
                }
            }
        }
        out.groups.insert(spec.group.clone(), hosts);
    }
    for name in order {
        let (destination, ssh_options, user) = reach.host(inventory, &name)?;
        out.jobs.push(HostJob {
            checks: checks.remove(&name).unwrap_or_default(),
            name,
            destination,
            user,
            ssh_options,
        });
    }
    Ok(out)
}

/// How every host of a run is reached: relative key paths anchored at `repo_root` (as
/// Ansible does), `~` expanded with `home`, ssh's timeout, `batch` when no prompt is possible.
#[derive(Clone, Copy)]
pub(crate) struct Reach<'a> {
    pub repo_root: &'a Path,
    pub home: Option<&'a Path>,
    pub timeout: Duration,
    pub batch: bool,
}

impl Reach<'_> {
    /// One inventory host's validated connection (the one rule of preview's host reads and
    /// the gates'): `[user@]address`, the ssh argv up to it, the user. A hostile inventory
    /// value is an error here, before any ssh runs.
    pub(crate) fn host(
        &self,
        inventory: &Inventory,
        name: &str,
    ) -> Result<(String, Vec<String>, Option<String>)> {
        let target = inventory.ssh_target(name, self.home)?;
        let key = target.key.as_ref().map(|k| {
            if k.is_absolute() {
                k.clone()
            } else {
                self.repo_root.join(k)
            }
        });
        let (destination, ssh_options) = crate::read::ssh::connection(
            &target,
            key.as_deref(),
            self.timeout,
            self.batch,
            name,
            inventory.path(),
        )?;
        Ok((destination, ssh_options, target.user))
    }
}

/// The words of one check's command, unquoted; `None` for a check read through its parts
/// (`executable:`, see `HostCheck::reads`), which is never one command.
pub(crate) fn command_words(probe: &HostProbe) -> Option<Vec<String>> {
    let words = match probe {
        HostProbe::Unit { unit, .. } => vec![
            "systemctl".into(),
            "show".into(),
            unit.clone(),
            format!("--property={UNIT_PROPERTIES}"),
        ],
        HostProbe::NewestFile { dir, pattern, .. } => [
            "find",
            dir,
            "-maxdepth",
            "1",
            "-type",
            "f",
            "-name",
            pattern,
            "-printf",
            FIND_FORMAT,
        ]
        .map(String::from)
        .to_vec(),
        HostProbe::Sshd { .. } => vec!["sshd".into(), "-T".into()],
        HostProbe::Executable { .. } => return None,
    };
    Some(words)
}

/// One word for a POSIX shell: single-quoted, a `'` inside written `'\''`.
pub(crate) fn sh_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The remote command words (after the destination) of one check: exactly one of SPEC §13's
/// forms, every word quoted, `sudo -n` first where the check says so and never for `root`.
/// `None` for a check that is not one command (see [`command_words`]).
pub(crate) fn remote_words(check: &HostCheck, user: Option<&str>) -> Option<Vec<String>> {
    let command = command_words(&check.probe)?;
    let mut words = Vec::new();
    if check.sudo && user != Some("root") {
        words.extend([sh_quote("sudo"), sh_quote("-n")]);
    }
    words.extend(command.iter().map(|w| sh_quote(w)));
    Some(words)
}

/// The whole ssh argv of one check of `job`: the connection argv, then its remote words.
pub(crate) fn check_argv(job: &HostJob, check: &HostCheck) -> Option<Vec<String>> {
    let mut argv = job.ssh_options.clone();
    argv.extend(remote_words(check, job.user.as_deref())?);
    Some(argv)
}

#[cfg(test)]
mod tests;
