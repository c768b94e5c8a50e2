//! Which hosts a read covers (SPEC §13): decided from the stack before any process runs, so a
//! hostile inventory is refused before the first ssh; then read by the session beside the
//! Kubernetes reads.

use crate::error::Result;
use crate::model::observation::host::HostObservation;
use crate::output::render;
use crate::read::exec::Runner;
use crate::read::hosts::{self as hostread, HostPlan};
use crate::stack::inventory::Inventory;
use crate::stack::Topology;

use super::{Ground, Prompt};

/// What to do about the hosts.
pub enum Hosts {
    /// No host-level layer is declared: nothing to read, nothing to say.
    None,
    /// Host layers are declared but not read; the reason is their evidence.
    Skipped(String),
    Read(HostPlan),
}

/// The stack's inventory, loaded and its warnings printed, with its path; `Err(path)` when
/// there is no file there (the callers say why nothing is read). Preview's host reads and
/// the gates' decide from the same load.
pub(super) fn load_inventory(
    ground: Ground,
    stack: &Topology,
) -> Result<std::result::Result<(Inventory, std::path::PathBuf), std::path::PathBuf>> {
    let path = stack.inventory(ground.env)?;
    if !path.exists() {
        return Ok(Err(path));
    }
    let inventory = Inventory::load(&path)?;
    for w in inventory.warnings() {
        render::notice(&format!("warning: {w}"));
    }
    Ok(Ok((inventory, path)))
}

/// How this run reaches a stack's hosts: its keys anchored at the stack's repository, ssh
/// in batch mode when no prompt is possible.
pub(super) fn reach<'a>(ground: Ground<'a>, stack: &'a Topology) -> hostread::Reach<'a> {
    hostread::Reach {
        repo_root: &stack.repo_root,
        home: ground.env.home.as_deref(),
        timeout: ground.runner.timeout,
        batch: ground.prompt == Prompt::Never,
    }
}

impl Hosts {
    /// Decide from the stack: no host layer among `host_layers` (the read plan's), `--no-ssh`,
    /// no inventory file, or the validated plan.
    pub fn prepare(
        ground: Ground,
        stack: &Topology,
        host_layers: &[String],
        no_ssh: bool,
    ) -> Result<Hosts> {
        if host_layers.is_empty() {
            return Ok(Hosts::None);
        }
        if no_ssh {
            return Ok(Hosts::Skipped("not read: --no-ssh".to_string()));
        }
        if stack.has_no_inventory() {
            return Ok(Hosts::Skipped(format!(
                "not read: {} says `inventory: none` (no hosts to read over ssh)",
                stack.file.display()
            )));
        }
        let inventory = match load_inventory(ground, stack)? {
            Ok((inventory, _)) => inventory,
            Err(path) => {
                return Ok(Hosts::Skipped(format!(
                    "not read: no Ansible inventory at {} (set `inventory:` in {})",
                    path.display(),
                    stack.file.display()
                )))
            }
        };
        let plan = hostread::plan(
            &stack.catalog,
            host_layers,
            &inventory,
            stack.raw.control_group.as_deref(),
            reach(ground, stack),
        )?;
        Ok(Hosts::Read(plan))
    }

    /// Host layers declared (`host_layers`), none read, for `why`.
    pub fn skipped_if_any(host_layers: &[String], why: impl Into<String>) -> Hosts {
        if host_layers.is_empty() {
            Hosts::None
        } else {
            Hosts::Skipped(why.into())
        }
    }

    /// Read them (one ssh per check, hosts and checks in parallel), or say why not.
    pub fn read(&self, runner: &Runner) -> HostObservation {
        match self {
            Hosts::None => HostObservation::default(),
            Hosts::Skipped(why) => HostObservation::skipped(why.clone()),
            Hosts::Read(plan) => hostread::read(runner, plan),
        }
    }

    /// The plan of what is read over ssh, when something is (for `--explain`).
    pub fn into_plan(self) -> Option<HostPlan> {
        match self {
            Hosts::Read(plan) => Some(plan),
            Hosts::None | Hosts::Skipped(_) => None,
        }
    }
}
