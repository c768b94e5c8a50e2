//! `preview --explain` (SPEC §16): beside each evidence line, the read-only command that
//! shows the same thing by hand — kubectl for a Kubernetes check (`read::explain::command`,
//! from the check's pure read description), ssh for a host check (exactly nestor's own ssh
//! argv). Orchestration only: every command is worded and allowlist-checked in `read`.

use crate::model::catalog::{Catalog, HostSpec};
use crate::model::observation::Observation;
use crate::model::state;
use crate::output::render;
use crate::output::report::Preview;
use crate::read::hosts::HostPlan;

/// `--explain`: each Kubernetes evidence line gets the kubectl command that shows it by hand,
/// through the kubeconfig and context that were read; each host check its ssh command.
pub fn add(
    preview: &mut Preview,
    catalog: &Catalog,
    hosts: Option<&HostPlan>,
    declared: &[state::DeclaredNode],
    obs: &Observation,
) {
    let Some(target) = preview.target.clone() else {
        return;
    };
    for report in &mut preview.real.layers {
        let Some(layer) = catalog.get(&report.id) else {
            continue;
        };
        if let (Some(spec), Some(plan)) = (&layer.host, hosts) {
            explain_hosts(report, spec, plan);
            continue;
        }
        // A quoted Warning Event: the namespace's Warning Events by hand.
        let events: Vec<(String, String)> = report
            .checks
            .iter()
            .flat_map(|c| c.events.iter())
            .map(|q| (state::events::line(q), q.namespace.clone()))
            .collect();
        for (evidence, namespace) in events {
            match crate::read::explain::command(
                &target.kubeconfig,
                &target.context,
                &state::events::by_hand(&namespace),
            ) {
                Ok(command) => report
                    .explain
                    .push(state::EvidenceCommand { evidence, command }),
                Err(why) => render::notice(&format!(
                    "no --explain command for `{evidence}`: the allowlist refuses it ({why})"
                )),
            }
        }
        let items = state::explain::layer(layer, declared, obs);
        // Only the checks that were judged (an absent layer's health checks never ran).
        for item in items
            .into_iter()
            .filter(|i| report.evidence.contains(&i.evidence))
        {
            match crate::read::explain::command(&target.kubeconfig, &target.context, &item.by_hand)
            {
                Ok(command) => report.explain.push(state::EvidenceCommand {
                    evidence: item.evidence,
                    command,
                }),
                Err(why) => render::notice(&format!(
                    "no --explain command for `{}`: the allowlist refuses it ({why})",
                    item.evidence
                )),
            }
        }
    }
}

/// A host layer's evidence is one line per host (`dirqual1: ...`): under it, the ssh command
/// of each of the layer's checks on that host, exactly as nestor ran it.
fn explain_hosts(report: &mut state::LayerReport, spec: &HostSpec, plan: &HostPlan) {
    for job in &plan.jobs {
        let prefix = format!("{}: ", job.name);
        let Some(line) = report
            .evidence
            .iter()
            .find(|e| e.starts_with(&prefix))
            .cloned()
        else {
            continue;
        };
        // What ran: an `executable:` check is read as several `newestFile` checks.
        for check in spec
            .checks
            .iter()
            .flat_map(|c| c.reads())
            .filter(|c| job.checks.iter().any(|j| j.key() == c.key()))
        {
            let Some(remote) = crate::read::hosts::remote_words(&check, job.user.as_deref()) else {
                continue;
            };
            match crate::read::explain::ssh_command(&job.ssh_options, &remote) {
                Ok(command) => report.explain.push(state::EvidenceCommand {
                    evidence: line.clone(),
                    command,
                }),
                Err(why) => render::notice(&format!(
                    "no --explain command for `{line}`: the allowlist refuses it ({why})"
                )),
            }
        }
    }
}
