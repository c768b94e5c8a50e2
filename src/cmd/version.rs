//! `version`: the plugin's version, as text or a nestor/v1 document.

use crate::error::{Exit, Result};
use crate::output::documents::version::Version;
use crate::output::render::Format;
use crate::output::render::{self, API_VERSION};

/// `version --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # The plugin's version
  kubectl nestor version

  # As JSON
  kubectl nestor version -o json";

pub fn run(format: Format) -> Result<Exit> {
    let version = env!("CARGO_PKG_VERSION");
    match format {
        Format::Text => render::out(&format!("kubectl-nestor {version}\n"))?,
        f => render::document(
            f,
            &Version {
                api_version: API_VERSION,
                kind: "Version",
                version,
            },
        )?,
    }
    Ok(Exit::Ok)
}
