//! `target`: resolve and verify the target without probing layers — the rule that chose the
//! kubeconfig, the file, the context, the endpoint, reachability and the nodes.

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::output::documents::target::TargetDoc;
use crate::output::render::Format;
use crate::output::render::{self, API_VERSION};
use crate::session::{self, Session};
use crate::stack::endpoint;
use crate::stack::TargetKind;

/// `target --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # Which cluster the active stack reads, chosen by which rule, and its nodes
  kubectl nestor target

  # The same for a bare kubeconfig
  kubectl nestor target --kubeconfig ~/.kube/lab.config

  # As JSON, for a script
  kubectl nestor target --no-input -o json";

pub fn run(ctx: &Invocation) -> Result<Exit> {
    let stack = ctx.optional_topology()?;
    // SPEC §5: without a prompt, a prod stack's endpoint must match before kubectl runs
    // (`target --no-input` is the cheap pre-check of a script: exit 3 on a mismatch); with
    // one, the operator sees the nodes and says yes.
    let opened = Session::open(ctx.ground(), stack.as_ref(), |resolution| {
        match stack.as_ref().filter(|s| s.kind() == TargetKind::Lima) {
            Some(s) if !resolution.path.exists() => Err(session::no_bench(
                resolution,
                &format!("stack {} has no cluster to target yet", s.name()),
            )),
            Some(_) | None => Ok(()),
        }
    })?;
    let Some(session) = opened else {
        return Err(Error::internal(
            "an absent bench kubeconfig was refused above",
        ));
    };
    let resolution = &session.resolution;
    let kc = &session.kc;
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
    let nodes = session.nodes()?;
    let doc = TargetDoc {
        api_version: API_VERSION,
        kind: "Target",
        stack: stack.as_ref().map(|s| s.name().to_string()),
        target_kind: stack.as_ref().map(|s| s.kind().as_str()),
        target: session.target_ref(),
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
        render::observed(ctx.format(), &doc, &crate::clock::now_rfc3339())?;
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
