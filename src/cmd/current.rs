//! `stack current`: the stack a command run here would use, and why — `--stack`, this
//! shell's `NESTOR_STACK`, or the repository's `stacks/current.yaml` (SPEC §16). With one
//! active stack per repository and one `NESTOR_STACK` per shell, two terminals can target
//! two stacks: this is the question "which one am I on?" answered without reading a cluster.

use crate::cmd::context::Invocation;
use crate::error::{Exit, Result};
use crate::output::documents::stack::StackCurrent;
use crate::output::render::{self, escape, Format, API_VERSION};
use crate::stack::StackSource;
use crate::stack::Topology;

pub const EXAMPLES: &str = "\
Examples:
  # Which stack would `kubectl nestor preview` use here, and why
  kubectl nestor stack current

  # One stack per shell (export NESTOR_STACK=staging), whatever the active stack is
  NESTOR_STACK=staging kubectl nestor stack current -o json";

pub fn run(invocation: &Invocation) -> Result<Exit> {
    let dir = invocation.stacks.stacks_dir()?;
    let (named, source) = match invocation.stacks.named() {
        Some((s, source)) => (Some(s), source),
        None => (None, StackSource::Active),
    };
    let file = invocation.stacks.select_file(named, &dir)?;
    let t = Topology::load(&file, &dir.path)?;
    let doc = StackCurrent {
        api_version: API_VERSION,
        kind: "StackCurrent",
        name: t.name().to_string(),
        file: t.file.display().to_string(),
        target_kind: t.kind().as_str(),
        source: source.name(),
        stacks_dir: dir.path.display().to_string(),
        active: dir.active_name(),
    };
    match invocation.global.output {
        Format::Text => invocation.printer.out(&text(&doc, source, named))?,
        f @ (Format::Json | Format::Yaml | Format::Junit) => {
            invocation.printer.document(f, &doc)?
        }
    }
    Ok(Exit::Ok)
}

fn text(d: &StackCurrent, source: StackSource, named: Option<&str>) -> String {
    let active = match &d.active {
        Some(a) => format!("the active stack (stacks/current.yaml) is {}", escape(a)),
        None => "no active stack (stacks/current.yaml)".to_string(),
    };
    let why = match source {
        StackSource::Flag => format!("--stack {}; {active}", escape(named.unwrap_or_default())),
        StackSource::Env => format!(
            "NESTOR_STACK={} in this shell; {active}",
            escape(named.unwrap_or_default())
        ),
        StackSource::Active => format!(
            "stacks/current.yaml, the active stack of {} (--stack or NESTOR_STACK would override it)",
            escape(&d.stacks_dir)
        ),
    };
    render::table(&[
        vec![
            "stack".to_string(),
            format!("{} ({})", escape(&d.name), d.target_kind),
        ],
        vec!["file".to_string(), escape(&d.file)],
        vec!["chosen by".to_string(), why],
    ])
}
