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
/// appended to a message — summarised, never echoed wholesale: redacted, on one line,
/// escaped and at most [`QUOTE_MAX`] characters ([`capped_line`]).
pub fn quoted(text: &str) -> String {
    let line = capped_line(&crate::redact::text(text));
    if line.is_empty() {
        return String::new();
    }
    format!(": {line}")
}

/// `text` on one line ([`one_line`]), control characters escaped ([`crate::term::escape`]),
/// then at most [`QUOTE_MAX`] characters of the escaped text and ` …` when it was cut: the
/// cap counts what is printed (an ESC is the four characters `\x1b`), and an escape is never
/// cut in half. How a child's stderr or a host's output is quoted anywhere.
pub fn capped_line(text: &str) -> String {
    let line = one_line(text);
    let capped = crate::term::escape_capped(&line, QUOTE_MAX);
    match capped.strip_suffix('…') {
        Some(cut) if capped != crate::term::escape(&line) => format!("{cut} …"),
        Some(_) | None => capped,
    }
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

    /// Issue 31: the cap counted raw characters, so 300 ESC bytes were 1200 printed ones.
    #[test]
    fn quotes_are_escaped_then_capped() {
        assert_eq!(quoted("  \n "), "");
        assert_eq!(quoted("a\u{1b}[2Jb\nc"), ": a\\x1b[2Jb | c");
        assert_eq!(
            quoted(&"\u{1b}".repeat(300)),
            format!(": {} …", "\\x1b".repeat(QUOTE_MAX / 4))
        );
        assert_eq!(capped_line("ends with …"), "ends with …");
        assert_eq!(capped_line(&"y".repeat(QUOTE_MAX)), "y".repeat(QUOTE_MAX));
    }
}
