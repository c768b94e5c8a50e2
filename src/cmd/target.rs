//! `target`: resolve and verify the target without probing layers — the rule that chose the
//! kubeconfig, the file, the context, the endpoint, reachability and the nodes.

use crate::cmd::context::Context;
use crate::error::{Error, Exit, Result};
use crate::model::observation::parse_nodes;
use crate::model::snapshot::TargetRef;
use crate::output::documents::target::TargetDoc;
use crate::output::render::Format;
use crate::output::render::{self, API_VERSION};
use crate::read::kubectl::{cluster_error, Kubectl};
use crate::stack::endpoint;
use crate::stack::TargetKind;
use crate::target::{self, confirm};

/// `target --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # Which cluster the active stack reads, chosen by which rule, and its nodes
  kubectl nestor target

  # The same for a bare kubeconfig
  kubectl nestor target --kubeconfig ~/.kube/lab.config

  # As JSON, for a script
  kubectl nestor target --no-input -o json";

pub fn run(ctx: &Context) -> Result<Exit> {
    let stack = ctx.optional_topology()?;
    let resolution = ctx.resolve_target(stack.as_ref())?;
    if let Some(s) = stack.as_ref().filter(|s| s.kind() == TargetKind::Lima) {
        if !resolution.path.exists() {
            return Err(Error::input(
                format!(
                    "bench kubeconfig {} does not exist: stack {} has no cluster to target yet",
                    resolution.path.display(),
                    s.name()
                ),
                "bring the bench up with its harness; nestor never falls back to ~/.kube/config",
            ));
        }
    }
    // SPEC §5: without a prompt, a prod stack's endpoint must match before kubectl runs
    // (`target --no-input` is the cheap pre-check of a script: exit 3 on a mismatch).
    let resolved = ctx.pinned_target(stack.as_ref(), &resolution)?;
    let kc = &resolved.kc;
    if kc.contexts > 1 {
        render::notice(&format!(
            "{} holds {} contexts: its current-context `{}` is the target",
            resolution.path.display(),
            kc.contexts,
            kc.context
        ));
    }
    let expected = stack
        .as_ref()
        .and_then(|s| s.raw.endpoint.as_ref().map(|e| e.to_string()));
    let kubectl = Kubectl::new(&ctx.runner, &resolution.path, resolved.pin(), &ctx.env);
    let out = kubectl
        .run(&["get", "nodes", "-o", "json"])
        .map_err(|e| cluster_error(e, &kc.server))?;
    let nodes = parse_nodes(&out.stdout_text())?;
    if let Some(s) = stack
        .as_ref()
        .filter(|s| s.kind() == TargetKind::Prod && ctx.interactive())
    {
        confirm::ask(s, &resolution, kc, Ok(&nodes))?;
    }
    let doc = TargetDoc {
        api_version: API_VERSION,
        kind: "Target",
        stack: stack.as_ref().map(|s| s.name().to_string()),
        target_kind: stack.as_ref().map(|s| s.kind().as_str()),
        target: TargetRef {
            rule: resolution.rule.name().to_string(),
            kubeconfig: resolution.path.display().to_string(),
            context: kc.context.clone(),
            endpoint: kc.server.clone(),
            confirmed_by: target::confirmed_by_declaration(stack.as_ref(), &kc.server)
                .map(String::from),
        },
        rule: resolution.rule.name(),
        kubeconfig: resolution.path.display().to_string(),
        context: kc.context.clone(),
        cluster: kc.cluster.clone(),
        endpoint: kc.server.clone(),
        endpoint_matches: expected.as_deref().map(|e| endpoint::same(e, &kc.server)),
        expected_endpoint: expected,
        reachable: true,
        nodes,
    };
    if ctx.format() != Format::Text {
        render::document(ctx.format(), &doc)?;
        return Ok(Exit::Ok);
    }
    let paint = render::Paint { on: ctx.color() };
    let mut rows = vec![];
    if let (Some(name), Some(kind)) = (&doc.stack, doc.target_kind) {
        rows.push(vec!["stack".to_string(), format!("{name} ({kind})")]);
    }
    rows.push(vec![
        "kubeconfig".to_string(),
        format!("{} (rule: {})", doc.kubeconfig, resolution.rule.name()),
    ]);
    rows.push(vec!["context".to_string(), doc.context.clone()]);
    let endpoint_line = match (&doc.expected_endpoint, doc.endpoint_matches) {
        (Some(_), Some(true)) => {
            format!("{} ({})", doc.endpoint, paint.green("matches the topology"))
        }
        (Some(e), _) => format!(
            "{} ({})",
            doc.endpoint,
            paint.red(&format!("topology expects {e}"))
        ),
        (None, _) => doc.endpoint.clone(),
    };
    rows.push(vec!["endpoint".to_string(), endpoint_line]);
    rows.push(vec!["nodes".to_string(), render::nodes_line(&doc.nodes)]);
    let mut text = render::table(&rows);
    text.push_str(&render::node_table(&doc.nodes, paint));
    render::out(&text)?;
    Ok(Exit::Ok)
}
