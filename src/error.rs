//! The one error type of the tool. Every failure the user can meet carries the exit code of
//! SPEC §8, a one-line message saying what is wrong and a `hint:` line saying what to do.

use std::fmt;

/// Exit codes of SPEC §8. The numeric values are a contract with bash harnesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Success (with `--detailed-exitcode`: nothing to do and every layer decided).
    Ok = 0,
    /// Bad input, missing tool, unexpected output.
    Error = 1,
    /// `--detailed-exitcode`: something to install, repair, create or start (the undecided
    /// layers, if any, are listed too: 2 wins over 5).
    PlanNotEmpty = 2,
    /// Target refused: kubeconfig not declared, endpoint mismatch, operator said no.
    Refused = 3,
    /// Cluster unreachable: connection refused, timeout, TLS or auth failure.
    Unreachable = 4,
    /// `--detailed-exitcode`: nothing to install, repair, create or start, but something is
    /// undecided (nestor could not tell). A harness must never read that as "nothing to do".
    /// `wait`: timed out.
    Undecided = 5,
}

impl Exit {
    pub fn code(self) -> u8 {
        self as u8
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub exit: Exit,
    pub message: String,
    pub hint: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(exit: Exit, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error {
            exit,
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// Bad input, missing tool or unexpected output (exit 1).
    pub fn input(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(Exit::Error, message, hint)
    }

    /// The target is refused (exit 3).
    pub fn refused(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(Exit::Refused, message, hint)
    }

    /// The cluster could not be reached (exit 4).
    pub fn unreachable(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(Exit::Unreachable, message, hint)
    }

    /// A bug or a refused internal request (exit 1): the hint asks for a report.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(
            Exit::Error,
            format!("internal: {}", message.into()),
            "this is a bug in kubectl-nestor; please report it with the command you ran and `-v` output",
        )
    }

    /// Replace the hint, keeping message and exit code.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = hint.into();
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kubectl-nestor: error: {}\nhint: {}",
            one_line(&self.message),
            one_line(&self.hint)
        )
    }
}

impl std::error::Error for Error {}

/// Fold a multi-line text (a child's stderr, say) into one line so every error stays two lines.
pub fn one_line(text: &str) -> String {
    text.split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}

/// `": <text on one line>"`, or nothing when `text` is blank: how a child's stderr is
/// appended to a message — summarised, never echoed wholesale: redacted, on one line, and at
/// most [`QUOTE_MAX`] characters.
pub fn quoted(text: &str) -> String {
    let line = one_line(&crate::redact::text(text));
    if line.is_empty() {
        return String::new();
    }
    if line.chars().count() > QUOTE_MAX {
        let cut: String = line.chars().take(QUOTE_MAX).collect();
        return format!(": {cut} …");
    }
    format!(": {line}")
}

/// The longest child output quoted in a message.
pub const QUOTE_MAX: usize = 300;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_two_lines_with_hint() {
        let e = Error::refused("line one\nline two", "do this");
        assert_eq!(
            e.to_string(),
            "kubectl-nestor: error: line one | line two\nhint: do this"
        );
        assert_eq!(e.exit.code(), 3);
    }
}
