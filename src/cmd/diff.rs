//! `diff A B`: what changed between two observations of the same cluster. Each side is a
//! snapshot file (`discover --save`, `preview --save`) or `-`, a live read of the stack under
//! the usual target policy. Both are judged by the same catalog and layers (the stack's when
//! one is found, else every catalog layer) and compared: nodes, then layers. Observations of
//! different endpoints are refused (exit 3) unless `--force`.

use std::path::Path;

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::model::diff as obsdiff;
use crate::model::observation::Observation;
use crate::model::snapshot::Snapshot;
use crate::model::state;
use crate::output::documents::diff::{DiffDoc, Side};
use crate::output::render::{self, escape, Format, Paint, API_VERSION};
use crate::session::observe;
use crate::stack::endpoint;
use crate::stack::Topology;

pub const EXAMPLES: &str = "\
Examples:
  # What changed since yesterday's snapshot: compare it with a live read of the stack
  kubectl nestor diff yesterday.snapshot.json -

  # Two saved observations (discover --save or preview --save)
  kubectl nestor diff before.json after.json -o json

  # In a script: exit 2 when something changed since yesterday, 0 when nothing did
  kubectl nestor diff yesterday.snapshot.json - --detailed-exitcode

  # Observations of two different endpoints, compared anyway
  kubectl nestor diff old-cluster.json new-cluster.json --force";

/// The long `--help` text.
pub const LONG_ABOUT: &str = "What changed between two observations of the same cluster: nodes added or removed, Ready and kubelet version changes, layers whose state or evidence changed.\n\nA and B are snapshot files written by `discover --save FILE` or `preview --save FILE`, or `-` for a live read of the stack (under the usual target policy). Layers are judged by the stack's catalog and declared layers when a stack is found, else by every catalog layer. Observations of different endpoints are refused (exit 3) unless --force. Exit 0 whether or not something changed; with --detailed-exitcode, 2 when something did.";

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The earlier observation: a snapshot file, or `-` for a live read of the stack.
    #[arg(value_name = "A")]
    pub a: String,
    /// The later observation: a snapshot file, or `-` for a live read of the stack.
    #[arg(value_name = "B")]
    pub b: String,
    /// Compare observations of different endpoints anyway.
    #[arg(long)]
    pub force: bool,
    /// A live read does not read host-level layers over ssh (they stay unknown).
    #[arg(long)]
    pub no_ssh: bool,
    /// Exit 2 when something changed, 0 when nothing did (without it: 0 either way).
    #[arg(long)]
    pub detailed_exitcode: bool,
}

struct Loaded {
    side: Side,
    obs: Observation,
}

pub fn run(invocation: &Invocation, args: &Args) -> Result<Exit> {
    let (a, b, force) = (args.a.as_str(), args.b.as_str(), args.force);
    if a == "-" && b == "-" {
        return Err(Error::input(
            "diff - - would compare a live read with itself",
            "give one side as a snapshot file: `kubectl nestor diff SNAPSHOT -` (write one with `preview --save FILE`)",
        ));
    }
    let live = a == "-" || b == "-";
    // A live read needs the stack; two files use it when there is one (its catalog and
    // layers judge both sides), else every catalog layer.
    let stack = if live || invocation.stacks.named().is_some() {
        Some(invocation.stacks.topology(None)?)
    } else {
        invocation.stacks.topology(None).ok()
    };
    // Files first: a bad file is reported before any cluster is read.
    let load = |arg: &str| -> Result<Option<Loaded>> {
        if arg == "-" {
            return Ok(None);
        }
        let path = invocation.env.absolute(Path::new(arg));
        let snap = Snapshot::load(&path)?;
        Ok(Some(Loaded {
            side: Side {
                source: "snapshot",
                file: Some(path.display().to_string()),
                taken_at: snap.taken_at,
                endpoint: snap.target.endpoint,
                context: snap.target.context,
            },
            obs: snap.observation,
        }))
    };
    let (la, lb) = (load(a)?, load(b)?);
    let file_endpoint = la.as_ref().or(lb.as_ref()).map(|l| l.side.endpoint.clone());
    let (la, lb) = match (la, lb) {
        (Some(x), Some(y)) => (x, y),
        (x, y) => {
            let stack = stack
                .as_ref()
                .ok_or_else(|| Error::internal("a live side without a stack"))?;
            let now = read_live(
                invocation,
                stack,
                file_endpoint.as_deref(),
                force,
                args.no_ssh,
            )?;
            match (x, y) {
                (Some(x), None) => (x, now),
                (None, Some(y)) => (now, y),
                _ => return Err(Error::internal("diff sides")),
            }
        }
    };
    let differ = !endpoint::same(&la.side.endpoint, &lb.side.endpoint);
    if differ && !force {
        return Err(different_endpoints(&la.side.endpoint, &lb.side.endpoint));
    }
    let (catalog, ids, declared) = match &stack {
        Some(s) => (s.catalog.clone(), s.layer_ids(), s.declared_nodes()),
        None => {
            let c = crate::model::catalog::catalog_for(None)?;
            let ids = c.ids().into_iter().map(String::from).collect();
            // No declaration: every node either side saw is expected.
            let mut names: Vec<state::DeclaredNode> = vec![];
            for o in [&la.obs, &lb.obs] {
                for n in o.nodes.as_ref().map(|n| n.as_slice()).unwrap_or_default() {
                    if !names.iter().any(|d| d.name == n.name) {
                        names.push(state::DeclaredNode::named(&n.name));
                    }
                }
            }
            (c, ids, names)
        }
    };
    let ra = state::evaluate(&catalog, &ids, &declared, &la.obs);
    let rb = state::evaluate(&catalog, &ids, &declared, &lb.obs);
    let nodes = obsdiff::nodes(&la.obs, &lb.obs);
    let layers = obsdiff::layers(&ra, &rb);
    let doc = DiffDoc {
        api_version: API_VERSION,
        kind: "Diff",
        changed: !nodes.is_empty() || !layers.is_empty(),
        a: la.side,
        b: lb.side,
        endpoints_differ: differ,
        nodes,
        layers,
    };
    match invocation.global.output {
        Format::Text => invocation.printer.out(&text(
            &doc,
            Paint {
                on: invocation.printer.color(),
            },
        ))?,
        f @ (Format::Json | Format::Yaml | Format::Junit) => {
            invocation.printer.document(f, &doc)?
        }
    }
    Ok(exit_code(doc.changed, args.detailed_exitcode))
}

/// 2 when something changed and the caller asked (`--detailed-exitcode`, as `preview`'s
/// "something to do"), else 0.
fn exit_code(changed: bool, detailed: bool) -> Exit {
    if changed && detailed {
        Exit::PlanNotEmpty
    } else {
        Exit::Ok
    }
}

fn different_endpoints(a: &str, b: &str) -> Error {
    Error::refused(
        format!("A was read from {a}, B from {b}: observations of different clusters"),
        "compare observations of one cluster, or pass --force to compare them anyway",
    )
}

/// The live side: the stack read as `preview` reads it (target policy, isolation). Without
/// --force, a non-interactive read whose endpoint differs from the file's is refused before
/// any read: the stack's declared endpoint is known.
fn read_live(
    invocation: &Invocation,
    stack: &Topology,
    file_endpoint: Option<&str>,
    force: bool,
    no_ssh: bool,
) -> Result<Loaded> {
    if let (Some(file), Some(declared), false) = (file_endpoint, &stack.raw.endpoint, force) {
        let declared = declared.to_string();
        if !endpoint::same(file, &declared) {
            return Err(different_endpoints(file, &declared).with_hint(format!(
                "the snapshot is not of stack {}: compare it with a live read of its own stack, or pass --force",
                stack.name()
            )));
        }
    }
    let built = observe::preview(invocation.ground(), stack, None, no_ssh)?;
    let Some(target) = built.preview.target else {
        return Err(Error::input(
            format!(
                "stack {}: Kubernetes was not read ({}): nothing to compare",
                stack.name(),
                built
                    .preview
                    .real
                    .kubernetes_skipped
                    .unwrap_or_else(|| "no target".into())
            ),
            "bring the bench up with its harness, then run diff again",
        ));
    };
    Ok(Loaded {
        side: Side {
            source: "live",
            file: None,
            taken_at: crate::clock::now_rfc3339(),
            endpoint: target.endpoint,
            context: target.context,
        },
        obs: built.observation,
    })
}

fn state_name(s: Option<state::State>) -> &'static str {
    s.map(|s| s.as_str()).unwrap_or("not judged")
}

fn text(d: &DiffDoc, paint: Paint) -> String {
    let side = |s: &Side| match &s.file {
        Some(f) => format!(
            "snapshot {} (taken {}), {}",
            escape(f),
            s.taken_at,
            escape(&s.endpoint)
        ),
        None => format!("live read ({}), {}", s.taken_at, escape(&s.endpoint)),
    };
    let mut out = render::table(&[
        vec!["A".to_string(), side(&d.a)],
        vec!["B".to_string(), side(&d.b)],
    ]);
    if d.endpoints_differ {
        out.push_str(&paint.red("WARNING: A and B are of different endpoints (--force)\n"));
    }
    if !d.changed {
        out.push_str(
            "no change: same nodes, every layer in the same state with the same evidence\n",
        );
        return out;
    }
    let n = &d.nodes;
    if !n.is_empty() {
        out.push_str(&format!("\n{}\n", paint.bold("NODES")));
        for name in &n.added {
            out.push_str(&format!("  + {}  added\n", escape(name)));
        }
        for name in &n.removed {
            out.push_str(&format!("  - {}  removed\n", escape(name)));
        }
        let ready = |r: bool| if r { "Ready" } else { "NotReady" };
        for c in &n.ready_changed {
            out.push_str(&format!(
                "  ~ {}  {} -> {}\n",
                escape(&c.name),
                ready(c.from),
                ready(c.to)
            ));
        }
        for c in &n.kubelet_changed {
            out.push_str(&format!(
                "  ~ {}  kubelet {} -> {}\n",
                escape(&c.name),
                escape(&c.from),
                escape(&c.to)
            ));
        }
        for e in &n.not_read {
            out.push_str(&format!("  ? nodes not read in {}\n", escape(e)));
        }
    }
    if !d.layers.is_empty() {
        out.push_str(&format!("\n{}\n", paint.bold("LAYERS")));
        for l in &d.layers {
            let states = if l.from == l.to {
                format!("{} (evidence changed)", state_name(l.to))
            } else {
                format!("{} -> {}", state_name(l.from), state_name(l.to))
            };
            out.push_str(&format!("  {}  {states}\n", l.id));
            for e in &l.evidence_removed {
                out.push_str(&format!("      - {}\n", escape(e)));
            }
            for e in &l.evidence_added {
                out.push_str(&format!("      + {}\n", escape(e)));
            }
        }
    }
    out
}
