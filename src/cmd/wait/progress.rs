//! What `wait` shows while it polls: on a terminal one live line per layer, redrawn in place
//! and cut to the terminal width; piped, one line per state change.

use super::*;
use crate::output::layout::cut;

/// Progress on stderr: live lines on a terminal, one line per change otherwise.
pub(super) struct Progress {
    live: bool,
    width: usize,
    drawn: usize,
    last: Vec<Option<State>>,
    paint: Paint,
}

impl Progress {
    pub(super) fn new(invocation: &Invocation, ids: &[String]) -> Progress {
        let live = std::io::stderr().is_terminal();
        Progress {
            live,
            // The terminal's own width (bash does not export `COLUMNS`), asked once: a
            // resize during the wait shows from the next run.
            width: invocation
                .width_stderr()
                .max(crate::output::layout::MIN_WIDTH),
            drawn: 0,
            last: vec![None; ids.len()],
            paint: Paint {
                on: live && invocation.color_stderr(),
            },
        }
    }

    pub(super) fn update(
        &mut self,
        elapsed: Duration,
        reports: &[LayerReport],
        condition: WaitFor,
    ) {
        let mut err = std::io::stderr().lock();
        let secs = elapsed.as_secs_f64();
        if self.live {
            let mut frame = String::new();
            if self.drawn > 0 {
                frame.push_str(&format!("\x1b[{}A", self.drawn));
            }
            for r in reports {
                let mark = if reached(condition, r) {
                    self.paint.green("✓")
                } else {
                    "…".to_string()
                };
                let line = format!(
                    "{mark} {:<12} {:<9} {:>7.1}s  {}",
                    r.id,
                    r.state.as_str(),
                    secs,
                    escape(&r.reason)
                );
                frame.push_str("\r\x1b[2K");
                // One column short of the width: a line that fills the last column would make some
                // terminals wrap, and the redraw would then leave a stale line behind.
                frame.push_str(&cut(&line, self.width.saturating_sub(1)));
                frame.push('\n');
            }
            self.drawn = reports.len();
            let _ = err.write_all(frame.as_bytes());
        } else {
            for (i, r) in reports.iter().enumerate() {
                if self.last.get(i).copied().flatten() == Some(r.state) {
                    continue;
                }
                let _ = writeln!(
                    err,
                    "[{secs:7.1}s] {} {}{}: {}",
                    r.id,
                    r.state.as_str(),
                    if reached(condition, r) {
                        " (reached)"
                    } else {
                        ""
                    },
                    escape(&r.reason)
                );
            }
        }
        for (i, r) in reports.iter().enumerate() {
            if let Some(slot) = self.last.get_mut(i) {
                *slot = Some(r.state);
            }
        }
        let _ = err.flush();
    }

    pub(super) fn finish(&mut self) {
        self.drawn = 0;
    }
}
