//! `gate`: "may I do this now?" (SPEC §17). For now only `gate rules`, the built-in rule
//! table with each rule's severity and upstream source, which reads no cluster; `gate
//! drain NODE` and `gate upgrade COMPONENT VERSION` come with the session's gate reads.

use clap::Subcommand;

use crate::error::{Error, Exit, Result};
use crate::model::gate;
use crate::output::documents::gate::GateRulesDoc;
use crate::output::render::{self, Format};

/// `gate --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # Every gate rule, its severity and the upstream document it encodes
  kubectl nestor gate rules";

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
}

pub fn run(format: Format, command: &GateCommand) -> Result<Exit> {
    match command {
        GateCommand::Rules => rules(format),
    }
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
