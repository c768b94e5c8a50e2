//! `schema [KIND]`: the JSON Schema of a `nestor/v1` document kind, generated from the types
//! that print it (`output::schema`), so a script can validate what it reads; without KIND,
//! the kinds. The same schemas are committed under `docs/schema/`.

use crate::output::render::Printer;
use clap::builder::PossibleValuesParser;

use crate::error::{Error, Exit, Result};
use crate::output::render::Format;
use crate::output::schema;

/// `schema --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # The document kinds
  kubectl nestor schema

  # The JSON Schema of `preview -o json`
  kubectl nestor schema Preview";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The document kind; none: list the kinds.
    #[arg(value_name = "KIND", value_parser = kinds())]
    pub kind: Option<String>,
}

/// KIND's values: clap refuses any other as a usage error (exit 1, its hint lists them) and
/// completion offers them.
fn kinds() -> PossibleValuesParser {
    PossibleValuesParser::new(schema::kinds())
}

pub fn run(printer: &Printer, format: Format, args: &Args) -> Result<Exit> {
    let Some(kind) = &args.kind else {
        let list: String = schema::kinds().map(|k| format!("{k}\n")).collect();
        printer.out(&list)?;
        return Ok(Exit::Ok);
    };
    let doc = schema::schema(kind).ok_or_else(|| {
        Error::input(
            format!("no document kind `{kind}`"),
            "`kubectl nestor schema` lists the kinds",
        )
    })?;
    let text = match format {
        Format::Yaml => yaml_serde::to_string(&doc)
            .map_err(|e| Error::internal(format!("cannot encode YAML: {e}")))?,
        Format::Text | Format::Json | Format::Junit => serde_json::to_string_pretty(&doc)
            .map(|s| s + "\n")
            .map_err(|e| Error::internal(format!("cannot encode JSON: {e}")))?,
    };
    printer.out(&text)?;
    Ok(Exit::Ok)
}
