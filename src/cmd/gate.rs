//! `gate`: "may I do this now?" (SPEC §17). `gate rules`, the built-in rule table with each
//! rule's severity and upstream source, reads no cluster; `gate drain NODE` asks the session
//! for its evaluation (the target confirmed as for preview, the drain reads through the
//! restricted proxy) and renders it: text (verdict first), `-o json|yaml` (a `Gate`
//! document), `-o junit`; exit 0 GO, 2 NO-GO, 5 CANNOT TELL.

use clap::{Args, Subcommand};

use crate::cmd::context::Invocation;
use crate::error::{Error, Exit, Result};
use crate::model::gate::{self, Gate};
use crate::output::documents::gate::{GateDoc, GateRulesDoc, Subject};
use crate::output::render::{self, Format, Paint};
use crate::read::apiread::gate::NodeName;
use crate::session::{self, gate::HostReads};

/// `gate --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # May I drain dirqual2 now? (GO, NO-GO with the blockers, or CANNOT TELL)
  kubectl nestor gate drain dirqual2

  # Every gate rule, its severity and the upstream document it encodes
  kubectl nestor gate rules";

const DRAIN_EXAMPLES: &str = "\
Examples:
  # May I drain dirqual2 now?
  kubectl nestor gate drain dirqual2

  # As JSON for a script (exit 0 GO, 2 NO-GO, 5 CANNOT TELL)
  kubectl nestor gate drain dirqual2 --no-input -o json";

const RULES_EXAMPLES: &str = "\
Examples:
  # The rules of every gate
  kubectl nestor gate rules

  # As JSON, for a script
  kubectl nestor gate rules -o json";

#[derive(Debug, Subcommand)]
pub enum GateCommand {
    /// Every gate rule: its gate, its severity (blocker or warning) and its upstream source.
    #[command(after_help = RULES_EXAMPLES)]
    Rules,
    /// May NODE be drained now? Reads PDBs, NODE's pods, the etcd and mon pods, PVs, the
    /// CephCluster and the nodes, read-only; exit 0 GO, 2 NO-GO, 5 CANNOT TELL.
    #[command(after_help = DRAIN_EXAMPLES)]
    Drain(DrainArgs),
}

#[derive(Debug, Args)]
pub struct DrainArgs {
    /// The node to drain (as `kubectl get nodes` names it).
    pub node: String,
    /// Do not read the host rules over ssh (drain-time-sync): reported as skipped.
    #[arg(long)]
    pub no_ssh: bool,
}

pub fn run(
    format: Format,
    command: &GateCommand,
    invocation: &dyn Fn() -> Result<Invocation>,
) -> Result<Exit> {
    match command {
        GateCommand::Rules => rules(format),
        GateCommand::Drain(args) => drain(&invocation()?, args),
    }
}

fn drain(invocation: &Invocation, args: &DrainArgs) -> Result<Exit> {
    let node = NodeName::parse(&args.node).map_err(|e| {
        Error::input(
            e,
            "name a node as `kubectl get nodes` lists it (`kubectl nestor target` shows them)",
        )
    })?;
    let stack = invocation.optional_topology()?;
    let session = session::resolve(invocation.ground(), stack.as_ref())?.open_live(
        None,
        &match &stack {
            Some(s) => format!("stack {} has no cluster to gate yet", s.name()),
            None => "no cluster to gate yet".to_string(),
        },
    )?;
    // The ssh allowlist has no `timedatectl show` form yet: the time-sync rule is skipped
    // and named, never read by an unreviewed remote command.
    let hosts = if args.no_ssh {
        HostReads::NoSsh
    } else {
        HostReads::FormUnavailable
    };
    let evaluation = session.drain(&node, hosts)?;
    let subject = Subject {
        gate: Gate::Drain,
        node: Some(node.as_str().to_string()),
        version: None,
    };
    let doc = GateDoc::new(
        stack.as_ref().map(|s| s.name().to_string()),
        session.target_ref(),
        subject,
        &evaluation,
    );
    let now = crate::clock::now_rfc3339();
    match invocation.format() {
        Format::Json | Format::Yaml => render::observed(invocation.format(), &doc, &now)?,
        Format::Junit => render::out(&crate::output::gate::junit(&doc, &now))?,
        Format::Text => {
            let paint = Paint {
                on: invocation.color(),
            };
            let target = session.target_ref();
            render::out(&format!(
                "gate drain {} on {} (context {}, rule: {})\n{}",
                node.as_str(),
                render::escape(&target.endpoint),
                render::escape(&target.context),
                session.chosen.rule.name(),
                crate::output::gate::text(&doc, paint, invocation.layout(false))
            ))?;
        }
    }
    Ok(evaluation.verdict.exit())
}

fn rules(format: Format) -> Result<Exit> {
    let table = gate::builtin();
    match format {
        Format::Json | Format::Yaml => {
            render::document(format, &GateRulesDoc::new(&table.rules))?;
        }
        Format::Junit => {
            return Err(Error::input(
                "`gate rules` has no JUnit form",
                "-o junit is for a gate's verdict; use -o json or -o yaml for the table",
            ))
        }
        Format::Text => {
            let mut rows = vec![["RULE", "GATE", "SEVERITY", "SSH", "SOURCE"]
                .map(String::from)
                .to_vec()];
            for r in &table.rules {
                rows.push(vec![
                    r.id.as_str().to_string(),
                    r.gate.as_str().to_string(),
                    r.severity.as_str().to_string(),
                    if r.host { "yes" } else { "-" }.to_string(),
                    r.source.url.clone(),
                ]);
            }
            render::out(&render::table(&rows))?;
        }
    }
    Ok(Exit::Ok)
}
