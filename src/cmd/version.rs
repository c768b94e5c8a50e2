//! `version`: the plugin's version, the commit it was built from and the platform, as text
//! or a nestor/v1 document.

use crate::error::{Exit, Result};
use crate::output::documents::version::Version;
use crate::output::render::Format;
use crate::output::render::Printer;
use crate::output::render::API_VERSION;

/// `version --help` examples, in kubectl's style.
pub const EXAMPLES: &str = "\
Examples:
  # The plugin's version
  kubectl nestor version

  # As JSON
  kubectl nestor version -o json";

/// The commit it was built from (`build.rs`: `unknown` without `.git`).
pub const COMMIT: &str = env!("NESTOR_COMMIT");

pub fn run(printer: &Printer, format: Format) -> Result<Exit> {
    let version = env!("CARGO_PKG_VERSION");
    let platform = format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH);
    match format {
        Format::Text => printer.out(&format!(
            "kubectl-nestor {version} (commit {COMMIT}, {platform})\n"
        ))?,
        f @ (Format::Json | Format::Yaml | Format::Junit) => printer.document(
            f,
            &Version {
                api_version: API_VERSION,
                kind: "Version",
                version,
                commit: COMMIT,
                platform,
            },
        )?,
    }
    Ok(Exit::Ok)
}
