//! Confirming that the cluster a kubeconfig (or a snapshot) points at is the stack's: the
//! `[y/N]` prompt's text, the comparison with the topology's `endpoint:` when nobody is
//! there to answer, and refusals (exit 3) that always name the rule and the file that chose
//! the target, with a hint for that rule. Shared by every command that confirms a target:
//! `preview`, `discover`, `target`, and the verification reads of `stack select` and
//! `kubeconfig fetch`; without a prompt the endpoint is checked BEFORE any kubectl runs
//! (`session::Resolved::open`, which alone decides the policy), so a wrong target is never
//! dialled.

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::observation::{Node, ReadFailure};
use crate::output::render;
use crate::stack::{endpoint, Topology};
use crate::target::kubeconfig::KubeTarget;
use crate::target::{Chosen, Rule};

/// Where the target to confirm comes from, so a refusal names the rule that chose it.
pub struct Provenance<'a> {
    /// "the kubeconfig's server", "the snapshot's endpoint".
    pub what: &'a str,
    pub rule: Rule,
    /// The kubeconfig (or snapshot) file.
    pub file: &'a Path,
}

impl<'a> Provenance<'a> {
    /// The server of the kubeconfig the target rules `chosen`.
    pub fn kubeconfig(chosen: &'a Chosen) -> Provenance<'a> {
        Provenance {
            what: "the kubeconfig's server",
            rule: chosen.rule,
            file: &chosen.path,
        }
    }

    /// The endpoint recorded in a snapshot file.
    pub fn snapshot(file: &'a Path) -> Provenance<'a> {
        Provenance {
            what: "the snapshot's endpoint",
            rule: Rule::Snapshot,
            file,
        }
    }

    /// `kubeconfig /k (rule env: the KUBECONFIG environment variable)`.
    pub fn describe(&self) -> String {
        let kind = if self.rule == Rule::Snapshot {
            "snapshot"
        } else {
            "kubeconfig"
        };
        format!(
            "{kind} {} (rule {}: {})",
            self.file.display(),
            self.rule.name(),
            self.rule.origin()
        )
    }
}

/// Without a prompt, the target must be the declared `endpoint:` (compared normalised).
/// Every refusal names the file and the rule that chose it.
pub fn by_endpoint(stack: &Topology, actual: &str, origin: &Provenance) -> Result<()> {
    let Some(expected) = stack.raw.endpoint.as_ref().map(|e| e.to_string()) else {
        return Err(Error::refused(
            format!(
                "stack {} declares no endpoint: cannot confirm target {actual} from {} without a prompt",
                stack.name(),
                origin.describe()
            ),
            format!(
                "add `endpoint: {actual}` to {} if that is the stack's API server, or run interactively",
                stack.file.display()
            ),
        ));
    };
    if !endpoint::same(&expected, actual) {
        return Err(Error::refused(
            format!(
                "target mismatch for stack {}: {} is {actual}, the topology's endpoint is {expected}; {} chose it",
                stack.name(),
                origin.what,
                origin.describe()
            ),
            origin.rule.mismatch_hint(stack.name()),
        ));
    }
    Ok(())
}

/// `Is this the stack NAME?` (the prompt adds ` [y/N]`).
pub fn question(stack: &Topology) -> String {
    format!("Is this the stack {}?", stack.name())
}

/// The operator said no (exit 3): nothing was done, and which rule chose that target. The
/// hint follows what the prompt showed: when the endpoint matched the topology's, nothing
/// disagrees, and only the topology itself can be wrong.
pub fn declined(stack: &Topology, chosen: &Chosen, server: &str) -> Error {
    let matched =
        (stack.raw.endpoint.as_ref()).is_some_and(|e| endpoint::same(&e.to_string(), server));
    let hint = if matched {
        format!(
            "{server} is the endpoint stack {}'s topology declares: if it is not that stack's cluster, the topology itself is wrong (fix `kubeconfig:` and `endpoint:` in {}); if it is, run again and answer y",
            stack.name(),
            stack.file.display()
        )
    } else {
        format!(
            "if it is not the stack's cluster: {}",
            chosen.rule.mismatch_hint(stack.name())
        )
    };
    Error::refused(
        format!(
            "target {server} not confirmed for stack {}: nothing was done; {} chose it",
            stack.name(),
            Provenance::kubeconfig(chosen).describe()
        ),
        hint,
    )
}

/// What the operator sees before `Is this the stack NAME? [y/N]`: the endpoint and whether it
/// matches the topology's (or a WARNING naming the rule), the context, the kubeconfig and
/// its rule, and `nodes` (the nodes seen, or why they could not be read).
pub fn prompt_block(stack: &Topology, chosen: &Chosen, target: &KubeTarget, nodes: &str) -> String {
    let expected = stack.raw.endpoint.as_ref().map(|e| e.to_string());
    let matches = expected
        .as_deref()
        .map(|e| endpoint::same(e, &target.server));
    let endpoint_line = match (&expected, matches) {
        (Some(_), Some(true)) => format!("{} (matches the topology)", target.server),
        (Some(e), _) => format!("{} (the topology's endpoint is {e})", target.server),
        (None, _) => format!("{} (the topology declares no endpoint)", target.server),
    };
    let mut rows = vec![
        vec!["  endpoint".to_string(), endpoint_line],
        vec!["  context".to_string(), target.context.clone()],
        vec![
            "  kubeconfig".to_string(),
            format!("{} (rule: {})", chosen.path.display(), chosen.rule.name()),
        ],
        vec![
            "  nodes".to_string(),
            format!("{} — {nodes}", target.server),
        ],
    ];
    if let (Some(e), Some(false)) = (&expected, matches) {
        rows.push(vec![
            "  WARNING".to_string(),
            format!(
                "this is not the topology's endpoint {e}: {} chose this kubeconfig",
                chosen.rule.explained()
            ),
        ]);
    }
    format!(
        "Target for stack {} ({}):\n{}",
        stack.name(),
        stack.kind().as_str(),
        render::table(&rows)
    )
}

/// The prompt of every command that confirms a target interactively: the block (with the
/// nodes seen, or why they could not be read), `Is this the stack NAME? [y/N]`, and on
/// anything but yes the refusal naming the rule (exit 3).
pub fn ask(
    stack: &Topology,
    chosen: &Chosen,
    target: &KubeTarget,
    nodes: std::result::Result<&Vec<Node>, &ReadFailure>,
) -> Result<()> {
    let nodes = match nodes {
        Ok(n) => render::nodes_line(n),
        Err(f) => format!("nodes not readable: {f}"),
    };
    render::notice_raw(&prompt_block(stack, chosen, target, &nodes));
    if crate::output::prompt::confirm(&question(stack)) {
        Ok(())
    } else {
        Err(declined(stack, chosen, &target.server))
    }
}
