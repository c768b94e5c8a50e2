//! The `kind: Error` document (SPEC §16): with `-o json|yaml` an error is a document on
//! stdout too (message, hint, exit code), so that `| jq` reads the failure instead of
//! breaking on an empty input; the two stderr lines are printed as always.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::Error;
use crate::output::render::{self, Format, API_VERSION};

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDoc {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// One line, credentials redacted (the stderr line without `kubectl-nestor: error: `).
    pub message: String,
    /// One line: what to do.
    pub hint: String,
    /// The process's exit code: 1 error, 3 target refused, 4 unreachable, 5 timed out.
    pub exit_code: u8,
}

impl ErrorDoc {
    pub fn new(e: &Error) -> ErrorDoc {
        let line = |s: &str| crate::redact::text(&crate::error::one_line(s));
        ErrorDoc {
            api_version: API_VERSION,
            kind: "Error",
            message: line(&e.message),
            hint: line(&e.hint),
            exit_code: e.exit.code(),
        }
    }
}

/// Print the error as a document when the output is one and no document was printed before
/// it (that one stands, and the exit code says the rest); nothing for text or JUnit.
pub fn print(printer: &render::Printer, format: Format, e: &Error) {
    match format {
        Format::Json | Format::Yaml if !printer.document_printed() => {
            let _ = printer.document(format, &ErrorDoc::new(e));
        }
        Format::Json | Format::Yaml | Format::Text | Format::Junit => {}
    }
}
