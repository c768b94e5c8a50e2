//! `discover`: the live cluster's inventory — node roles, namespaces, StorageClass
//! provisioners, API groups, and the catalog layers detected with their evidence. Works with
//! only `--kubeconfig`. `--save FILE` writes a snapshot that `preview --snapshot` replays;
//! `--emit-topology` prints what was found as a stack file (`stack::skeleton`).

use std::path::{Path, PathBuf};

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::model::snapshot::Snapshot;
use crate::output::documents::discover::Discovery;
use crate::output::render::Format;
use crate::output::render::{self, Paint, API_VERSION};
use crate::session::{self, observe::Survey};
use crate::stack::{schema, skeleton, TargetKind, Topology, DEFAULT_INVENTORY};

mod text;
mod write;
use text::*;

/// `discover --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # The inventory of the cluster of a kubeconfig (no stack needed)
  kubectl nestor discover --kubeconfig ~/.kube/lab.config

  # Start a stack file from what is there: writes stacks/staging.yaml (named after the
  # kubeconfig file; --name NAME to choose), whatever stack is active; then make it active
  kubectl nestor discover --kubeconfig ~/.kube/staging.config --write
  kubectl nestor stack select staging

  # Print the stack file instead of writing it
  kubectl nestor discover --kubeconfig ~/.kube/lab.config --emit-topology --name lab

  # Save what the active stack's cluster holds, to replay with `preview --snapshot`
  kubectl nestor discover --save dirqual.snapshot.json";

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Save what was read as a snapshot for `preview --snapshot FILE`.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Print what was found as a stack file (save it as stacks/NAME.yaml): kubeconfig and endpoint as read, nodes with roles, the layers found declared, the absent and undecided ones as comments.
    #[arg(long)]
    pub emit_topology: bool,
    /// With --emit-topology or --write: the stack's name, which is also its file name (default: the stack's, else the kubeconfig file's name, e.g. staging for ~/.kube/staging.config).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Write the topology to stacks/NAME.yaml itself (implies --emit-topology): atomically, never over an existing file, and only after the cluster was read.
    #[arg(long)]
    pub write: bool,
    /// Do not read the stack's host-level layers over ssh (they stay unknown).
    #[arg(long)]
    pub no_ssh: bool,
}

pub fn run(invocation: &Invocation, args: &Args) -> Result<Exit> {
    let emit = args.emit_topology || args.write;
    if args.name.is_some() && !emit {
        return Err(Error::input(
            "--name names the stack file that --emit-topology prints or --write creates",
            "add --write (writes stacks/NAME.yaml) or --emit-topology (prints it)",
        ));
    }
    if let Some(name) = &args.name {
        if !schema::is_dns1123_label(name) || name == "current" {
            return Err(Error::input(
                format!("`{name}` is not a stack name"),
                "a stack name is a DNS-1123 label (lowercase letters, digits, '-'), also the file name: stacks/<name>.yaml; `current` is the active-stack link",
            ));
        }
    }
    // A file the operator named (`--kubeconfig F`, no `--stack`) is discovered alone, whatever
    // stack is active: the active stack's endpoint policy is about its own cluster, not the
    // one being onboarded (SPEC §16). So is any explicit kubeconfig with `--name`, which
    // describes a new stack.
    let named_file = invocation.global.kubeconfig.is_some()
        || (args.name.is_some() && invocation.stacks.explicit_kubeconfig);
    let stack = if invocation.global.stack.is_none() && named_file {
        None
    } else {
        invocation.stacks.optional_topology()?
    };
    // Which file, checked against the bench's isolation rule; no process yet. --write: the
    // file it will create is known, and refused if it exists, before anything is read.
    let resolved = session::resolve(invocation.ground(), stack.as_ref())?;
    let chosen = &resolved.chosen;
    let write_to = match args.write {
        true => Some(write::destination(
            invocation,
            args,
            stack.as_ref(),
            &chosen.path,
        )?),
        false => None,
    };
    if stack.is_none() {
        let (what, dir) = match invocation.stacks.stacks_dir().map(|d| d.active_name()) {
            Ok(Some(active)) => (format!("not stack {active} (active here): "), String::new()),
            Ok(None) => ("no stack: ".to_string(), String::new()),
            Err(_) => (
                "no stack: ".to_string(),
                " (no stacks/ directory here or above: nothing else is needed for discover)"
                    .to_string(),
            ),
        };
        render::notice(&format!(
            "{what}discovering the cluster of {} alone (rule {}){dir}",
            chosen.path.display(),
            chosen.rule.name()
        ));
    }
    // The target policy of SPEC §5 (endpoint check before any kubectl without a prompt, the
    // prompt with the nodes otherwise), then every kubectl call pinned; the proxy of the
    // reads starts while kubectl's view of the file is checked.
    let survey = Survey::open(resolved)?;
    let agreed = &survey.session.agreed;
    if agreed.contexts > 1 && (emit || stack.is_none()) {
        render::notice(&format!(
            "warning: {} holds {} contexts: nestor reads its current-context {} only{}",
            survey.session.chosen.path.display(),
            agreed.contexts,
            agreed.context,
            if emit {
                format!(" (the topology records it: `context: {}`)", agreed.context)
            } else {
                String::new()
            }
        ));
    }
    let contexts = agreed.contexts;
    let found = survey.read(args.no_ssh)?;
    let (obs, target, chosen) = (found.observation, found.target, found.chosen);
    if let Some(path) = &args.save {
        let path = invocation.env.absolute(path);
        Snapshot::new(target.clone(), obs.clone()).save(&path)?;
        render::notice(&format!("snapshot saved to {}", path.display()));
    }
    let doc = Discovery {
        api_version: API_VERSION,
        kind: "Discovery",
        rule: chosen.rule.name(),
        failed_reads: failed_reads(&obs),
        not_installed: not_installed(&obs),
        nodes: obs.nodes.clone().unwrap_or_default(),
        namespaces: obs
            .namespaces
            .as_ref()
            .map(|n| n.iter().map(|n| n.name.clone()).collect())
            .unwrap_or_default(),
        storage_classes: obs.storage_classes.clone().unwrap_or_default(),
        api_groups: obs
            .api_groups
            .as_ref()
            .map(|g| g.iter().filter(|g| !g.is_empty()).cloned().collect())
            .unwrap_or_default(),
        layers: found.layers,
        target,
    };
    if emit {
        let name = stack_name(args, stack.as_ref(), &chosen.path)?;
        let kubeconfig = as_written(&chosen.path, invocation.env.home.as_deref());
        let text = skeleton::emit(&skeleton::Found {
            name: &name,
            kind: stack.as_ref().map_or(TargetKind::Prod, |s| s.kind()),
            kubeconfig: &kubeconfig,
            endpoint: &doc.target.endpoint,
            context: &doc.target.context,
            contexts,
            nodes: &doc.nodes,
            layers: &doc.layers,
            taken_at: &crate::clock::now_rfc3339(),
            inventory: &inventory_found(invocation, stack.as_ref()),
        });
        match &write_to {
            Some(path) => write::create(path, &name, &text)?,
            None => invocation.printer.out(&text)?,
        }
        return Ok(Exit::Ok);
    }
    match invocation.global.output {
        Format::Text => invocation.printer.out(&text(
            &doc,
            Paint {
                on: invocation.printer.color(),
            },
            invocation.layout,
        ))?,
        f @ (Format::Json | Format::Yaml | Format::Junit) => {
            invocation
                .printer
                .observed(f, &doc, &crate::clock::now_rfc3339())?
        }
    }
    Ok(Exit::Ok)
}

/// The emitted stack's name: `--name`, else the stack's, else the kubeconfig file's name
/// when it is a stack name (`~/.kube/lab.config` -> `lab`, the per-stack convention).
pub(super) fn stack_name(
    args: &Args,
    stack: Option<&crate::stack::Topology>,
    kubeconfig: &Path,
) -> Result<String> {
    if let Some(n) = &args.name {
        return Ok(n.clone());
    }
    if let Some(s) = stack {
        return Ok(s.name().to_string());
    }
    let stem = kubeconfig
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem.split('.').next().unwrap_or_default().to_string();
    if schema::is_dns1123_label(&stem) && stem != "config" && stem != "current" {
        return Ok(stem);
    }
    Err(Error::input(
        format!(
            "no stack name for the topology of {}",
            kubeconfig.display()
        ),
        "name it with `--name NAME`: `kubectl nestor discover --kubeconfig FILE --name NAME --write` writes stacks/NAME.yaml",
    ))
}

/// The Ansible inventory the topology names: the stack's (its `inventory:`, else the default
/// under its repo root) or, with no stack, the default under the stacks directory's parent,
/// when that file exists; else `none` and where nestor looked (SPEC §6 v0.5). A `--write`
/// lands in the same stacks directory, so a relative path stays right as written.
fn inventory_found(invocation: &Invocation, stack: Option<&Topology>) -> skeleton::Inventory {
    use skeleton::Inventory;
    let (written, path) = match stack {
        Some(s) if s.has_no_inventory() => {
            return Inventory::None(format!("stack {} says `inventory: none`", s.name()))
        }
        Some(s) => (
            s.raw
                .inventory
                .clone()
                .unwrap_or_else(|| DEFAULT_INVENTORY.to_string()),
            s.inventory(&invocation.env),
        ),
        None => match invocation.stacks.stacks_dir() {
            Ok(dir) => (
                DEFAULT_INVENTORY.to_string(),
                Ok(dir.repo_root().join(DEFAULT_INVENTORY)),
            ),
            Err(_) => {
                return Inventory::None(format!(
                    "no Ansible inventory found (no stacks/ directory, so no repo root to find {DEFAULT_INVENTORY} in)"
                ))
            }
        },
    };
    match path {
        Ok(p) if p.is_file() => Inventory::At(written),
        Ok(p) => Inventory::None(format!("no Ansible inventory found at {}", p.display())),
        Err(e) => Inventory::None(format!(
            "no Ansible inventory found at {written}: {}",
            e.message
        )),
    }
}

/// The kubeconfig as a topology should say it: `~/...` under HOME, else the absolute path.
fn as_written(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}
