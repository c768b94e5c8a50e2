//! The host-level part of `preview` (SPEC §13): which hosts to read (before any process runs,
//! so a hostile inventory is refused before the first ssh), then the reads themselves.

use crate::cmd::context::Invocation;
use crate::error::Result;
use crate::model::catalog::Catalog;
use crate::model::observation::host::HostObservation;
use crate::output::render;
use crate::read::hosts::{self as hostread, HostPlan};
use crate::stack::inventory::Inventory;
use crate::stack::Topology;

/// What to do about the hosts.
pub enum Hosts {
    /// No host-level layer is declared: nothing to read, nothing to say.
    None,
    /// Host layers are declared but not read; the reason is their evidence.
    Skipped(String),
    Read(HostPlan),
}

impl Hosts {
    /// Decide from the stack: `--no-ssh`, no inventory file, or the validated plan.
    pub fn prepare(
        ctx: &Invocation,
        stack: &Topology,
        catalog: &Catalog,
        layer_ids: &[String],
        no_ssh: bool,
    ) -> Result<Hosts> {
        if hostread::host_layers(catalog, layer_ids).is_empty() {
            return Ok(Hosts::None);
        }
        if no_ssh {
            return Ok(Hosts::Skipped("not read: --no-ssh".to_string()));
        }
        let path = stack.inventory(&ctx.env)?;
        if !path.exists() {
            return Ok(Hosts::Skipped(format!(
                "not read: no Ansible inventory at {} (set `inventory:` in {})",
                path.display(),
                stack.file.display()
            )));
        }
        let inventory = Inventory::load(&path)?;
        for w in inventory.warnings() {
            render::notice(&format!("warning: {w}"));
        }
        let plan = hostread::plan(
            catalog,
            layer_ids,
            &inventory,
            stack.raw.control_group.as_deref(),
            &stack.repo_root,
            ctx.env.home.as_deref(),
            ctx.runner.timeout,
            !ctx.interactive(),
        )?;
        Ok(Hosts::Read(plan))
    }

    /// Read them (one ssh per check, hosts and checks in parallel), or say why not.
    pub fn read(&self, ctx: &Invocation) -> HostObservation {
        match self {
            Hosts::None => HostObservation::default(),
            Hosts::Skipped(why) => HostObservation::skipped(why.clone()),
            Hosts::Read(plan) => hostread::read(&ctx.runner, plan),
        }
    }
}
