//! `discover`: the live cluster's inventory — node roles, namespaces, StorageClass
//! provisioners, API groups, and the catalog layers detected with their evidence. Works with
//! only `--kubeconfig`. `--save FILE` writes a snapshot that `preview --snapshot` replays;
//! `--emit-topology` prints what was found as a stack file (`stack::skeleton`).

use std::path::{Path, PathBuf};

use crate::cmd::context::Context;
use crate::cmd::hosts::Hosts;
use crate::error::{Error, Exit, Result};
use crate::model::observation::host::HostObservation;
use crate::model::observation::Scope;
use crate::model::observation::{Observation, ReadRequest};
use crate::model::snapshot::{Snapshot, TargetRef};
use crate::model::state::{self, State};
use crate::output::documents::discover::Discovery;
use crate::output::render::Format;
use crate::output::render::{self, Paint, API_VERSION};
use crate::read::kubectl::Kubectl;
use crate::read::reader;
use crate::stack::{schema, skeleton, TargetKind};
use crate::target::confirm;

mod text;
use text::*;

/// `discover --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # The inventory of the cluster of a kubeconfig (no stack needed)
  kubectl nestor discover --kubeconfig ~/.kube/lab.config

  # Start a stack file from what is there (named lab, after lab.config), make it active
  kubectl nestor discover --kubeconfig ~/.kube/lab.config --emit-topology > stacks/lab.yaml
  kubectl nestor stack select lab

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
    /// With --emit-topology: the stack's name, which is also its file name (default: the stack's, else the kubeconfig file's name, e.g. lab for ~/.kube/lab.config).
    #[arg(long, value_name = "NAME", requires = "emit_topology")]
    pub name: Option<String>,
    /// Do not read the stack's host-level layers over ssh (they stay unknown).
    #[arg(long)]
    pub no_ssh: bool,
}

pub fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    if let Some(name) = &args.name {
        if !schema::is_dns1123_label(name) || name == "current" {
            return Err(Error::input(
                format!("`{name}` is not a stack name"),
                "a stack name is a DNS-1123 label (lowercase letters, digits, '-'), also the file name: stacks/<name>.yaml; `current` is the active-stack link",
            ));
        }
    }
    let explicit_kubeconfig = ctx.global.kubeconfig.is_some() || ctx.env.kubeconfig.is_some();
    // `--name` describes a new stack: with an explicit kubeconfig, the active stack (another
    // cluster, most likely) has nothing to do with it.
    let stack = if args.name.is_some() && ctx.global.stack.is_none() && explicit_kubeconfig {
        None
    } else {
        ctx.optional_topology()?
    };
    let resolution = ctx.resolve_target(stack.as_ref())?;
    if stack.is_none() {
        let dir = match ctx.stacks_dir() {
            Ok(_) => String::new(),
            Err(_) => " (no stacks/ directory here or above: nothing else is needed for discover)"
                .to_string(),
        };
        render::notice(&format!(
            "no stack: discovering the cluster of {} alone (rule {}){dir}",
            resolution.path.display(),
            resolution.rule.name()
        ));
    }
    if stack.as_ref().is_some_and(|s| s.kind() == TargetKind::Lima) && !resolution.path.exists() {
        return Err(Error::input(
            format!(
                "bench kubeconfig {} does not exist: nothing to discover",
                resolution.path.display()
            ),
            "bring the bench up with its harness; nestor never falls back to ~/.kube/config",
        ));
    }
    // The target policy of SPEC §5 (endpoint check before any kubectl without a prompt), then
    // every kubectl call pinned to what kubectl and nestor agree the file names.
    let resolved = ctx.pinned_target(stack.as_ref(), &resolution)?;
    let kc = &resolved.kc;
    let catalog = crate::model::catalog::catalog_for(
        stack.as_ref().and_then(|s| s.catalog_path()).as_deref(),
    )?;
    let all: Vec<String> = catalog.ids().into_iter().map(String::from).collect();
    let mut requests = catalog.required_reads(&all);
    for r in [
        ReadRequest::Nodes,
        ReadRequest::ApiGroups,
        ReadRequest::Namespaces,
        ReadRequest::StorageClasses,
    ] {
        if !requests.contains(&r) {
            requests.push(r);
        }
    }
    // A prod stack's declared host-level layers are read too, so that a saved snapshot
    // replays them; only when the cluster is the stack's own (its declared endpoint), and with
    // the inventory validated before any process runs.
    let hosts = match stack.as_ref().filter(|s| s.kind() == TargetKind::Prod) {
        Some(s) if crate::target::confirmed_by_declaration(Some(s), &kc.server).is_some() => {
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
    let kubectl = Kubectl::new(&ctx.runner, &resolution.path, resolved.pin(), &ctx.env);
    let reader = reader::Reader::new(&kubectl, ctx.env.read_path);
    let mut obs = Observation::skipped("not read");
    // Whole lists, no namespace scope: a saved snapshot may be judged by another catalog.
    let scope = Scope {
        keep: catalog.object_fields(&all),
        ..Scope::default()
    };
    let mut done = std::collections::BTreeSet::new();
    if let Some(s) = stack
        .as_ref()
        .filter(|s| s.kind() == TargetKind::Prod && ctx.interactive())
    {
        // As preview: the operator sees the nodes and says yes before anything is printed.
        reader.read_into(&[ReadRequest::Nodes], &scope, &mut obs)?;
        if let Some(e) = reader::unreachable_error(&obs, &kc.server) {
            return Err(e);
        }
        confirm::ask(s, &resolution, kc, obs.nodes.as_ref())?;
        done.insert(ReadRequest::Nodes);
    }
    let prompted = !done.is_empty();
    let remaining = reader::remaining(&requests, &done);
    // The hosts over ssh in parallel.
    let (kube, host_obs) = std::thread::scope(|threads| {
        let host_thread = threads.spawn(|| hosts.read(ctx));
        let kube = reader.read_into(&remaining, &scope, &mut obs);
        let host_obs = host_thread.join().unwrap_or_else(|_| {
            HostObservation::skipped("not read: the host reading thread panicked")
        });
        (kube, host_obs)
    });
    kube?;
    obs.hosts = host_obs;
    if obs.hosts.is_empty() {
        // No stack's hosts were read: say so, rather than "group not read".
        obs.hosts = HostObservation::skipped(
            "not read: host-level, read over ssh on the hosts of a prod stack's inventory",
        );
    }
    if let Some(e) = reader::unreachable_error(&obs, &kc.server) {
        return Err(e);
    }
    let target = TargetRef {
        rule: resolution.rule.name().to_string(),
        kubeconfig: resolution.path.display().to_string(),
        context: kc.context.clone(),
        endpoint: kc.server.clone(),
        confirmed_by: if prompted {
            Some("prompt".to_string())
        } else {
            crate::target::confirmed_by_declaration(stack.as_ref(), &kc.server).map(String::from)
        },
    };
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
    if args.emit_topology {
        let name = stack_name(args, stack.as_ref(), &resolution.path)?;
        let kubeconfig = as_written(&resolution.path, ctx.env.home.as_deref());
        let text = skeleton::emit(&skeleton::Found {
            name: &name,
            kind: stack.as_ref().map_or(TargetKind::Prod, |s| s.kind()),
            kubeconfig: &kubeconfig,
            endpoint: &doc.target.endpoint,
            context: &doc.target.context,
            nodes: &doc.nodes,
            layers: &doc.layers,
            taken_at: &crate::clock::now_rfc3339(),
        });
        render::out(&text)?;
        return Ok(Exit::Ok);
    }
    match ctx.format() {
        Format::Text => render::out(&text(&doc, Paint { on: ctx.color() }))?,
        f => render::document(f, &doc)?,
    }
    Ok(Exit::Ok)
}

/// The emitted stack's name: `--name`, else the stack's, else the kubeconfig file's name
/// when it is a stack name (`~/.kube/lab.config` -> `lab`, the per-stack convention).
fn stack_name(
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
        "pass `--name NAME` and save it as stacks/NAME.yaml: `kubectl nestor discover --kubeconfig FILE --emit-topology --name NAME > stacks/NAME.yaml`",
    ))
}

/// The kubeconfig as a topology should say it: `~/...` under HOME, else the absolute path.
fn as_written(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}
