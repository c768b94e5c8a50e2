//! `target`: resolve and verify the target without probing layers — the rule that chose the
//! kubeconfig, the file, the context, the endpoint, reachability and the nodes.

use crate::cmd::context::Invocation;
use crate::error::{Exit, Result};
use crate::output::documents::target::TargetDoc;
use crate::output::render::Format;
use crate::output::render::{self, API_VERSION};
use crate::session;

/// `target --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # Which cluster the active stack reads, chosen by which rule, and its nodes
  kubectl nestor target

  # The same for a bare kubeconfig
  kubectl nestor target --kubeconfig ~/.kube/lab.config

  # As JSON, for a script
  kubectl nestor target --no-input -o json";

pub fn run(invocation: &Invocation) -> Result<Exit> {
    let stack = invocation.stacks.optional_topology()?;
    // SPEC §5: without a prompt, a prod stack's endpoint must match before kubectl runs
    // (`target --no-input` is the cheap pre-check of a script: exit 3 on a mismatch); with
    // one, the operator sees the nodes and says yes.
    let session = session::resolve(invocation.ground(), stack.as_ref())?.open_live(
        None,
        &match &stack {
            Some(s) => format!("stack {} has no cluster to target yet", s.name()),
            None => "no cluster to target yet".to_string(),
        },
    )?;
    let chosen = &session.chosen;
    let agreed = &session.agreed;
    if agreed.contexts > 1 {
        render::notice(&format!(
            "{} holds {} contexts: its current-context `{}` is the target",
            chosen.path.display(),
            agreed.contexts,
            agreed.context
        ));
    }
    let declared = session.declared_endpoint();
    let nodes = session.nodes()?;
    let doc = TargetDoc {
        api_version: API_VERSION,
        kind: "Target",
        stack: stack.as_ref().map(|s| s.name().to_string()),
        target_kind: stack.as_ref().map(|s| s.kind().as_str()),
        target: session.target_ref(),
        rule: chosen.rule.name(),
        kubeconfig: chosen.path.display().to_string(),
        context: agreed.context.clone(),
        cluster: agreed.cluster.clone(),
        endpoint: agreed.server.clone(),
        endpoint_matches: declared.map(|(_, matches)| matches),
        expected_endpoint: declared.map(|(e, _)| e.to_string()),
        reachable: true,
        nodes,
    };
    if invocation.global.output != Format::Text {
        invocation.printer.observed(
            invocation.global.output,
            &doc,
            &crate::clock::now_rfc3339(),
        )?;
        return Ok(Exit::Ok);
    }
    let paint = render::Paint {
        on: invocation.printer.color(),
    };
    let mut rows = vec![];
    if let (Some(name), Some(kind)) = (&doc.stack, doc.target_kind) {
        rows.push(vec!["stack".to_string(), format!("{name} ({kind})")]);
    }
    rows.push(vec![
        "kubeconfig".to_string(),
        format!("{} (rule: {})", doc.kubeconfig, chosen.rule.name()),
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
    invocation.printer.out(&text)?;
    Ok(Exit::Ok)
}
