//! The width rule of every line a person reads (SPEC §16): a line is cut to the terminal's
//! width with `…`, a block of evidence is wrapped under its layer. Pure: the width comes from
//! the caller (`cmd::context` asks the terminal), so the same text is produced in a test.

/// How the human text is laid out: the width every line fits in, and whether every evidence
/// line is shown (`-v`, `--explain`) or only the failing ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub width: usize,
    pub all: bool,
}

/// Below this a terminal is treated as this wide: a narrower one cannot show a layer id and
/// its state on one line anyway.
pub const MIN_WIDTH: usize = 20;

/// The width of a terminal that says nothing (a pipe without `COLUMNS`).
pub const DEFAULT_WIDTH: usize = 80;

impl Layout {
    pub fn new(width: usize, all: bool) -> Layout {
        Layout {
            width: width.max(MIN_WIDTH),
            all,
        }
    }
}

impl Default for Layout {
    fn default() -> Layout {
        Layout::new(DEFAULT_WIDTH, false)
    }
}

/// Visible width: characters, SGR colour sequences (`ESC [ ... m`) not counted.
pub fn visible_width(s: &str) -> usize {
    let mut n = 0;
    let mut in_escape = false;
    for c in s.chars() {
        match (in_escape, c) {
            (false, '\u{1b}') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, _) => n += 1,
        }
    }
    n
}

/// At most `width` visible characters; a cut line ends with `…` (and a colour reset when it
/// was cut inside a coloured span, so the colour does not run on).
pub fn cut(line: &str, width: usize) -> String {
    if visible_width(line) <= width {
        return line.to_string();
    }
    let mut out = String::new();
    let mut visible = 0;
    let mut in_escape = false;
    let mut coloured = false;
    for c in line.chars() {
        if in_escape {
            out.push(c);
            in_escape = c != 'm';
            continue;
        }
        if c == '\u{1b}' {
            in_escape = true;
            coloured = true;
            out.push(c);
            continue;
        }
        if visible + 1 >= width {
            break;
        }
        out.push(c);
        visible += 1;
    }
    out.push('…');
    if coloured {
        out.push_str("\u{1b}[0m");
    }
    out
}

/// `text` wrapped into lines of at most `width` characters, each starting with `indent`
/// spaces: broken at spaces, a word longer than a line broken where it must be. Plain text
/// only (evidence is escaped, never coloured).
pub fn wrap(text: &str, indent: usize, width: usize) -> Vec<String> {
    let room = width.saturating_sub(indent).max(MIN_WIDTH / 2);
    let pad = " ".repeat(indent);
    let mut lines = vec![];
    let mut line = String::new();
    let mut len = 0;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let need = if len == 0 {
                word.len()
            } else {
                len + 1 + word.len()
            };
            if need <= room {
                if len > 0 {
                    line.push(' ');
                }
                line.extend(word.iter());
                len = need;
                break;
            }
            if len > 0 {
                lines.push(format!("{pad}{line}"));
                line.clear();
                len = 0;
                continue;
            }
            // A word longer than a whole line: break it.
            let rest = word.split_off(room);
            lines.push(format!("{pad}{}", word.iter().collect::<String>()));
            word = rest;
        }
    }
    if len > 0 || lines.is_empty() {
        lines.push(format!("{pad}{line}"));
    }
    lines
}

/// `prefix` then `text`, wrapped: the first line starts with `prefix` (of visible width
/// `indent`), the next ones with `indent` spaces. When the prefix leaves less than a third of
/// the width, the text starts on its own line under it.
pub fn hang(prefix: &str, text: &str, indent: usize, width: usize) -> Vec<String> {
    if indent + MIN_WIDTH / 2 > width || indent > width * 2 / 3 {
        let mut lines = vec![cut(prefix.trim_end(), width)];
        lines.extend(wrap(text, 6, width));
        return lines;
    }
    let mut lines = wrap(text, indent, width);
    if let Some(first) = lines.first_mut() {
        *first = format!("{prefix}{}", &first[indent..]);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_the_width_and_says_so() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("exactly10!", 10), "exactly10!");
        let c = cut("a line that is too long", 10);
        assert_eq!(c, "a line th…");
        assert_eq!(visible_width(&c), 10);
        let coloured = format!("\u{1b}[32m{}\u{1b}[0m", "x".repeat(30));
        let c = cut(&coloured, 12);
        assert_eq!(visible_width(&c), 12);
        assert!(c.ends_with("…\u{1b}[0m"), "{c:?}");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_never_exceeds_the_width() {
        let text = "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN: OSD_DOWN (1 osds down)";
        let lines = wrap(text, 4, 40);
        assert!(lines.len() > 1, "{lines:?}");
        for l in &lines {
            assert!(l.chars().count() <= 40, "{l:?}");
            assert!(l.starts_with("    ") && !l.starts_with("     "), "{l:?}");
        }
        let back: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
        assert_eq!(back.join(" "), text);
        let long = wrap(&"x".repeat(50), 2, 22);
        assert_eq!(long.len(), 3, "{long:?}");
        assert!(long.iter().all(|l| l.chars().count() <= 22));
        assert_eq!(wrap("", 2, 40), vec!["  ".to_string()]);
    }

    #[test]
    fn hang_puts_the_prefix_first_and_moves_under_it_when_narrow() {
        let lines = hang("  install x  ", "ansible-playbook a/b.yaml now", 13, 30);
        assert_eq!(lines[0], "  install x  ansible-playbook");
        assert_eq!(lines[1], "             a/b.yaml now");
        let narrow = hang(&format!("  {}  ", "y".repeat(30)), "the text", 34, 40);
        assert_eq!(narrow[1], "      the text");
        assert!(narrow.iter().all(|l| visible_width(l) <= 40), "{narrow:?}");
    }
}
