//! `discover`: the live cluster's inventory — node roles, namespaces, StorageClass
//! provisioners, API groups, and the catalog layers detected with their evidence. Works with
//! only `--kubeconfig`. `--save FILE` writes a snapshot that `preview --snapshot` replays;
//! `--emit-topology` prints a stack skeleton of what was found.

use std::path::PathBuf;

use serde::Serialize;

use crate::cmd::context::Context;
use crate::error::{Error, Exit, Result};
use crate::model::observation::{Node, Observation, ReadRequest, StorageClass};
use crate::model::snapshot::{Snapshot, TargetRef};
use crate::model::state::{self, LayerReport, State};
use crate::output::render::Format;
use crate::output::render::{self, Paint, API_VERSION};
use crate::read::kubectl::Kubectl;
use crate::read::reader;
use crate::stack::TargetKind;
use crate::target::kubeconfig;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Save what was read as a snapshot for `preview --snapshot FILE`.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Print a stack YAML skeleton of what was found instead of the inventory.
    #[arg(long)]
    pub emit_topology: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Discovery {
    api_version: &'static str,
    kind: &'static str,
    target: TargetRef,
    /// Deprecated: `target.rule` (kept within nestor/v1).
    rule: &'static str,
    /// Each read that failed, as `what: reason` (a failed read is never "absent").
    failed_reads: Vec<String>,
    nodes: Vec<Node>,
    namespaces: Vec<String>,
    storage_classes: Vec<StorageClass>,
    api_groups: Vec<String>,
    layers: Vec<LayerReport>,
}

pub fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let stack = ctx.optional_topology()?;
    let resolution = ctx.resolve_target(stack.as_ref())?;
    if stack.as_ref().is_some_and(|s| s.kind() == TargetKind::Lima) && !resolution.path.exists() {
        return Err(Error::input(
            format!(
                "bench kubeconfig {} does not exist: nothing to discover",
                resolution.path.display()
            ),
            "bring the bench up with its harness; nestor never falls back to ~/.kube/config",
        ));
    }
    let kc = kubeconfig::read(&resolution.path)?;
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
    let kubectl = Kubectl::new(&ctx.runner, &resolution.path, &ctx.env);
    let mut obs = Observation::skipped("not read");
    // Whole lists, no namespace scope: a saved snapshot may be judged by another catalog.
    reader::Reader::new(&kubectl, ctx.env.read_path).read_into(
        &requests,
        &crate::model::observation::Scope::default(),
        &mut obs,
    )?;
    if let Some(e) = reader::unreachable_error(&obs, &kc.server) {
        return Err(e);
    }
    let target = TargetRef {
        rule: resolution.rule.name().to_string(),
        kubeconfig: resolution.path.display().to_string(),
        context: kc.context.clone(),
        endpoint: kc.server.clone(),
        confirmed_by: crate::target::confirmed_by_declaration(stack.as_ref(), &kc.server)
            .map(String::from),
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
        let name = stack.as_ref().map(|s| s.name().to_string());
        render::out(&skeleton(&doc, name.as_deref(), ctx))?;
        return Ok(Exit::Ok);
    }
    match ctx.format() {
        Format::Text => render::out(&text(&doc, Paint { on: ctx.color() }))?,
        f => render::document(f, &doc)?,
    }
    Ok(Exit::Ok)
}

fn failed_reads(obs: &Observation) -> Vec<String> {
    let mut out = vec![];
    let mut check = |what: &str, err: Option<String>| {
        if let Some(e) = err {
            out.push(format!("{what}: {e}"));
        }
    };
    check("nodes", obs.nodes.as_ref().err().map(|e| e.to_string()));
    check(
        "API groups",
        obs.api_groups.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "namespaces",
        obs.namespaces.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "storageclasses",
        obs.storage_classes.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "daemonsets",
        obs.daemonsets.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "deployments",
        obs.deployments.as_ref().err().map(|e| e.to_string()),
    );
    check(
        "statefulsets",
        obs.statefulsets.as_ref().err().map(|e| e.to_string()),
    );
    for (t, r) in &obs.resources {
        check(t, r.as_ref().err().map(|e| e.to_string()));
    }
    out
}

/// At most `n` items, then "… and K more".
fn first(items: &[String], n: usize) -> String {
    if items.len() <= n {
        items.join(", ")
    } else {
        format!("{}, … and {} more", items[..n].join(", "), items.len() - n)
    }
}

fn text(d: &Discovery, paint: Paint) -> String {
    let mut out = render::table(&[
        vec![
            "target".to_string(),
            format!("{} (context {})", d.target.endpoint, d.target.context),
        ],
        vec![
            "kubeconfig".to_string(),
            format!("{} (rule: {})", d.target.kubeconfig, d.target.rule),
        ],
    ]);
    out.push_str(&format!(
        "\n{}\n",
        paint.bold("DISCOVERED (read live, not stored)")
    ));
    out.push_str(&render::node_table(&d.nodes, paint));
    let classes: Vec<String> = d
        .storage_classes
        .iter()
        .map(|s| {
            format!(
                "{} ({}{})",
                s.name,
                s.provisioner,
                if s.default { ", default" } else { "" }
            )
        })
        .collect();
    out.push_str(&render::table(&[
        vec![
            format!("  namespaces ({})", d.namespaces.len()),
            first(&d.namespaces, 12),
        ],
        vec![
            format!("  storageclasses ({})", classes.len()),
            classes.join(", "),
        ],
        vec![
            format!("  API groups ({})", d.api_groups.len()),
            first(&d.api_groups, 12),
        ],
    ]));
    out.push_str(&format!(
        "\n{}\n",
        paint.bold("LAYERS (catalog, with evidence)")
    ));
    let mut rows = vec![];
    for l in &d.layers {
        let state = match l.state {
            State::Present => paint.green("present"),
            State::Degraded => paint.yellow("degraded"),
            State::Absent => "absent".to_string(),
            State::Unknown => paint.yellow("unknown"),
        };
        let why = if l.state == State::Present {
            l.evidence.join("; ")
        } else {
            l.reason.clone()
        };
        rows.push(vec![format!("  {}", l.id), state, why]);
    }
    out.push_str(&render::table(&rows));
    if !d.failed_reads.is_empty() {
        out.push_str(&format!(
            "\n{}\n",
            paint.red("FAILED READS (never counted as absent)")
        ));
        for f in &d.failed_reads {
            out.push_str(&format!("  {f}\n"));
        }
    }
    out
}

/// A stack YAML skeleton of what was found: detected layers (present or degraded) only.
fn skeleton(d: &Discovery, name: Option<&str>, ctx: &Context) -> String {
    let name = name.unwrap_or("change-me");
    let kubeconfig = match &ctx.env.home {
        Some(home) => match std::path::Path::new(&d.target.kubeconfig).strip_prefix(home) {
            Ok(rest) => format!("~/{}", rest.display()),
            Err(_) => d.target.kubeconfig.clone(),
        },
        None => d.target.kubeconfig.clone(),
    };
    let mut y = format!(
        "# Stack skeleton written by `kubectl nestor discover --emit-topology` on {}\n# from {} (context {}). Review every line; save as stacks/<name>.yaml.\n",
        crate::clock::now_rfc3339(),
        d.target.endpoint,
        d.target.context
    );
    y.push_str(&format!(
        "name: {name}\ntarget_kind: prod\nkubeconfig: {kubeconfig}\nendpoint: {}\nnodes:\n",
        d.target.endpoint
    ));
    for n in &d.nodes {
        let role = if n
            .roles
            .iter()
            .any(|r| r == "control-plane" || r == "master")
        {
            "control-plane"
        } else {
            "worker"
        };
        y.push_str(&format!("  - {{ name: {}, role: {role} }}\n", n.name));
    }
    let detected: Vec<&str> = d
        .layers
        .iter()
        .filter(|l| matches!(l.state, State::Present | State::Degraded))
        .map(|l| l.id.as_str())
        .collect();
    y.push_str(&format!("layers: [{}]\n", detected.join(", ")));
    y
}
