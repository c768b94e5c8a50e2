//! A gate's `--explain` (SPEC §17): under each rule, every read it was decided from — what the
//! read showed (`model::gate::explain::fact`) and the requests the gate sent for it, worded as
//! a person runs them by hand (`read::explain`: each GET as `kubectl ... get --raw TARGET`,
//! the same path and query that went through the proxy; each ssh exactly as nestor ran it),
//! each checked against the allowlist's printed-line grammar. Orchestration only.

use crate::model::gate::explain::{fact, Gated, Sent};
use crate::model::snapshot::TargetRef;
use crate::output::documents::gate::{ExplainDoc, GateDoc};
use crate::output::render;

/// Fill each rule's `explain` from what the gate read and sent.
pub fn add(doc: &mut GateDoc, gated: &Gated, target: &TargetRef) {
    for (rule, outcome) in doc.rules.iter_mut().zip(&gated.evaluation.outcomes) {
        for read in outcome.rule.reads.iter().chain(&outcome.rule.words_from) {
            let mut commands = Vec::new();
            for made in gated.made.iter().filter(|m| m.read == *read) {
                let line = match &made.sent {
                    Sent::Get(t) => {
                        crate::read::explain::raw_command(&target.kubeconfig, &target.context, t)
                    }
                    Sent::Ssh {
                        options, remote, ..
                    } => crate::read::explain::ssh_command(options, remote),
                };
                match line {
                    Ok(c) if !commands.contains(&c) => commands.push(c),
                    Ok(_) => {}
                    Err(why) => render::notice(&format!(
                        "no --explain command for the read `{}`: the allowlist refuses it ({why})",
                        read.as_str()
                    )),
                }
            }
            rule.explain.push(ExplainDoc {
                read: *read,
                fact: fact(&gated.facts, *read),
                commands,
            });
        }
    }
}
