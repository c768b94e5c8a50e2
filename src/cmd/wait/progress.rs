//! What `wait` shows while it polls: on a terminal one live line per layer, redrawn in place
//! and cut to the terminal width; piped, one line per state change.

use super::*;

/// Progress on stderr: live lines on a terminal, one line per change otherwise.
pub(super) struct Progress {
    live: bool,
    width: usize,
    drawn: usize,
    last: Vec<Option<State>>,
    paint: Paint,
}

impl Progress {
    pub(super) fn new(ctx: &Invocation, ids: &[String]) -> Progress {
        let live = std::io::stderr().is_terminal();
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse::<usize>().ok())
            .filter(|w| *w >= 20)
            .unwrap_or(80);
        Progress {
            live,
            width,
            drawn: 0,
            last: vec![None; ids.len()],
            paint: Paint {
                on: live && !ctx.global.no_color && !ctx.env.no_color,
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
                let mark = if reached(condition, r.state) {
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
                frame.push_str(&truncate(&line, self.width.saturating_sub(1)));
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
                    if reached(condition, r.state) {
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

/// At most `max` visible characters (colour sequences kept whole), `…` when cut.
pub(super) fn truncate(line: &str, max: usize) -> String {
    let mut out = String::new();
    let mut visible = 0;
    let mut in_escape = false;
    for c in line.chars() {
        if in_escape {
            out.push(c);
            in_escape = c != 'm';
            continue;
        }
        if c == '\u{1b}' {
            in_escape = true;
            out.push(c);
            continue;
        }
        if visible + 1 >= max && visible + 1 < line.chars().count() {
            out.push('…');
            return out;
        }
        out.push(c);
        visible += 1;
    }
    out
}
