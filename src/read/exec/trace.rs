//! The runner's `-v` lines: one per step of the run's critical path and one per traced
//! event, on stderr, redacted and made terminal-safe; nothing when not verbose.

use std::io::Write as _;

use super::{redact, Runner};

impl Runner {
    /// `-v`: one step of the run's critical path, `began` and now both counted from the
    /// start of the run (`scripts/bench.sh -v` adds up each step's share of the wall).
    pub(crate) fn step(&self, name: &str, began: std::time::Duration) {
        if self.verbose {
            let now = crate::usage::since_start();
            self.trace(&format!(
                "step: {name} {:.1}..{:.1} ms",
                began.as_secs_f64() * 1e3,
                now.as_secs_f64() * 1e3
            ));
        }
    }

    /// One `-v` line on stderr (`kubectl-nestor: LINE`), only when verbose.
    pub(crate) fn trace(&self, line: &str) {
        if self.verbose {
            let line = crate::term::terminal_safe(&redact::text(line));
            let _ = writeln!(std::io::stderr(), "kubectl-nestor: {line}");
        }
    }
}
