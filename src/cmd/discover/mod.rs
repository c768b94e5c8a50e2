//! `discover`: the live cluster's inventory — node roles, namespaces, StorageClass
//! provisioners, API groups, and the catalog layers detected with their evidence. Works with
//! only `--kubeconfig`. `--save FILE` writes a snapshot that `preview --snapshot` replays;
//! `--emit-topology` prints what was found as a stack file (`stack::skeleton`).

use std::path::{Path, PathBuf};

use crate::cmd::context::Invocation;
use crate::cmd::hosts::Hosts;
use crate::error::{Error, Exit, Result};
use crate::model::catalog::Workloads;
use crate::model::observation::host::HostObservation;
use crate::model::observation::{Observation, ReadRequest};
use crate::model::snapshot::Snapshot;
use crate::model::state;
use crate::output::documents::discover::Discovery;
use crate::output::render::Format;
use crate::output::render::{self, Paint, API_VERSION};
use crate::session::{self, Session};
use crate::stack::{schema, skeleton, TargetKind};

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

pub fn run(ctx: &Invocation, args: &Args) -> Result<Exit> {
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
    let explicit_kubeconfig = ctx.global.kubeconfig.is_some() || ctx.env.kubeconfig.is_some();
    // A file the operator named (`--kubeconfig F`, no `--stack`) is discovered alone, whatever
    // stack is active: the active stack's endpoint policy is about its own cluster, not the
    // one being onboarded (SPEC §16). So is any explicit kubeconfig with `--name`, which
    // describes a new stack.
    let named_file =
        ctx.global.kubeconfig.is_some() || (args.name.is_some() && explicit_kubeconfig);
    let stack = if ctx.global.stack.is_none() && named_file {
        None
    } else {
        ctx.optional_topology()?
    };
    let catalog = crate::model::catalog::catalog_for(
        stack.as_ref().and_then(|s| s.catalog_path()).as_deref(),
    )?;
    let all: Vec<String> = catalog.ids().into_iter().map(String::from).collect();
    // Whole lists, no namespace scope: a saved snapshot may be judged by another catalog.
    let plan = catalog.read_plan(&all, Workloads::Everywhere).also(&[
        ReadRequest::Nodes,
        ReadRequest::ApiGroups,
        ReadRequest::Namespaces,
        ReadRequest::StorageClasses,
    ]);
    // The target policy of SPEC §5 (endpoint check before any kubectl without a prompt, the
    // prompt with the nodes otherwise), then every kubectl call pinned; the proxy of the
    // reads starts while kubectl's view of the file is checked.
    // --write: the file it will create is known, and refused if it exists, before anything
    // is read.
    let mut write_to = None;
    let opened = Session::open_for(ctx.ground(), stack.as_ref(), Some(&plan), |resolution| {
        if args.write {
            write_to = Some(write::destination(
                ctx,
                args,
                stack.as_ref(),
                &resolution.path,
            )?);
        }
        if stack.is_none() {
            let (what, dir) = match ctx.stacks_dir().map(|d| d.active_name()) {
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
                resolution.path.display(),
                resolution.rule.name()
            ));
        }
        if stack.as_ref().is_some_and(|s| s.kind() == TargetKind::Lima) && !resolution.path.exists()
        {
            return Err(session::no_bench(resolution, "nothing to discover"));
        }
        Ok(())
    })?;
    let Some(session) = opened else {
        return Err(Error::internal(
            "an absent bench kubeconfig was refused above",
        ));
    };
    let resolution = &session.resolution;
    let kc = &session.kc;
    if kc.contexts > 1 && (emit || stack.is_none()) {
        render::notice(&format!(
            "warning: {} holds {} contexts: nestor reads its current-context {} only{}",
            resolution.path.display(),
            kc.contexts,
            kc.context,
            if emit {
                format!(" (the topology records it: `context: {}`)", kc.context)
            } else {
                String::new()
            }
        ));
    }
    // A prod stack's declared host-level layers are read too, so that a saved snapshot
    // replays them; only when the cluster is the stack's own (its declared endpoint), and with
    // the inventory validated before any process runs.
    let hosts = match stack.as_ref().filter(|s| s.kind() == TargetKind::Prod) {
        Some(s) if session::is_declared_endpoint(s, &kc.server) => {
            Hosts::prepare(ctx, s, &catalog, &s.layer_ids(), args.no_ssh)?
        }
        Some(s) if !crate::read::hosts::host_layers(&catalog, &s.layer_ids()).is_empty() => {
            Hosts::Skipped(format!(
                "not read: {} is not the declared endpoint of stack {}",
                kc.server,
                s.name()
            ))
        }
        _ => Hosts::None,
    };
    let mut obs = session.read(&session.reader(), &plan, Some(&|| hosts.read(ctx)))?;
    if obs.hosts.is_empty() {
        // No stack's hosts were read: say so, rather than "group not read".
        obs.hosts = HostObservation::skipped(
            "not read: host-level, read over ssh on the hosts of a prod stack's inventory",
        );
    }
    session.reachable(&obs)?;
    let target = session.target_ref();
    // Detection judges the cluster as found: its registered nodes are the declared ones.
    let registered: Vec<String> = obs
        .nodes
        .as_ref()
        .map(|n| n.iter().map(|n| n.name.clone()).collect())
        .unwrap_or_default();
    let reports = state::evaluate(&catalog, &all, &registered, &obs);
    if let Some(path) = &args.save {
        let path = ctx.env.absolute(path);
        Snapshot::new(target.clone(), obs.clone()).save(&path)?;
        render::notice(&format!("snapshot saved to {}", path.display()));
    }
    let doc = Discovery {
        api_version: API_VERSION,
        kind: "Discovery",
        rule: resolution.rule.name(),
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
        layers: reports,
        target,
    };
    if emit {
        let name = stack_name(args, stack.as_ref(), &resolution.path)?;
        let kubeconfig = as_written(&resolution.path, ctx.env.home.as_deref());
        let text = skeleton::emit(&skeleton::Found {
            name: &name,
            kind: stack.as_ref().map_or(TargetKind::Prod, |s| s.kind()),
            kubeconfig: &kubeconfig,
            endpoint: &doc.target.endpoint,
            context: &doc.target.context,
            contexts: kc.contexts,
            nodes: &doc.nodes,
            layers: &doc.layers,
            taken_at: &crate::clock::now_rfc3339(),
        });
        match &write_to {
            Some(path) => write::create(path, &name, &text)?,
            None => render::out(&text)?,
        }
        return Ok(Exit::Ok);
    }
    match ctx.format() {
        Format::Text => render::out(&text(&doc, Paint { on: ctx.color() }, ctx.layout(false)))?,
        f => render::observed(f, &doc, &crate::clock::now_rfc3339())?,
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

/// The kubeconfig as a topology should say it: `~/...` under HOME, else the absolute path.
fn as_written(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}
