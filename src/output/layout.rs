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

    /// The same layout, every evidence line shown when `all` (`--explain`) too.
    pub fn showing_all(self, all: bool) -> Layout {
        Layout {
            all: self.all || all,
            ..self
        }
    }
}

impl Default for Layout {
    fn default() -> Layout {
        Layout::new(DEFAULT_WIDTH, false)
    }
}

/// The columns one character takes on a terminal (Unicode's East Asian Width, through the
/// `unicode-width` crate): 2 for a wide (CJK) character, 0 for a combining mark or another
/// zero-width one, 1 otherwise. A control character counts 0: text is escaped before it is
/// laid out, so the only one left is the ESC of nestor's own colours.
fn columns(c: char) -> usize {
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)
}

/// Visible width in terminal columns, SGR colour sequences (`ESC [ ... m`) not counted.
/// Each character's width is summed, so an emoji sequence a terminal draws as one glyph may
/// count wider than it shows: a line is sometimes cut early, never too late.
pub fn visible_width(s: &str) -> usize {
    let mut n = 0;
    let mut in_escape = false;
    for c in s.chars() {
        match (in_escape, c) {
            (false, '\u{1b}') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, c) => n += columns(c),
        }
    }
    n
}

/// `s` followed by spaces up to `width` terminal columns (`format!("{:<w$}")` pads by
/// characters, which misaligns a column holding a wide character).
pub fn pad(s: &str, width: usize) -> String {
    let mut out = s.to_string();
    out.push_str(&" ".repeat(width.saturating_sub(visible_width(s))));
    out
}

/// At most `width` terminal columns; a cut line ends with `…` (and a colour reset when it
/// was cut inside a coloured span, so the colour does not run on). A wide character that
/// would straddle the edge goes whole, never half; zero-width marks stay with their base.
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
        // Room for this character and the ellipsis after it.
        let w = columns(c);
        if visible + w + 1 > width {
            break;
        }
        out.push(c);
        visible += w;
    }
    out.push('…');
    if coloured {
        out.push_str("\u{1b}[0m");
    }
    out
}

/// `text` wrapped into lines of at most `width` columns, each starting with `indent`
/// spaces: broken at spaces, a word longer than a line broken where it must be (between
/// characters, never inside a wide one). Plain text only (evidence is escaped, never
/// coloured).
pub fn wrap(text: &str, indent: usize, width: usize) -> Vec<String> {
    let room = width.saturating_sub(indent).max(MIN_WIDTH / 2);
    wrap_rooms(text, room, room)
        .into_iter()
        .map(|l| format!("{}{l}", " ".repeat(indent)))
        .collect()
}

/// The words of `text` in lines of at most `first` columns (the first line), then `room`.
fn wrap_rooms(text: &str, first: usize, room: usize) -> Vec<String> {
    let mut lines = vec![];
    let mut line = String::new();
    let mut len = 0;
    let room_now = |lines: &Vec<String>| if lines.is_empty() { first } else { room };
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_string();
        loop {
            let word_w = visible_width(&word);
            let need = if len == 0 { word_w } else { len + 1 + word_w };
            if need <= room_now(&lines) {
                if len > 0 {
                    line.push(' ');
                }
                line.push_str(&word);
                len = need;
                break;
            }
            if len > 0 {
                lines.push(std::mem::take(&mut line));
                len = 0;
                continue;
            }
            // A word longer than a whole line: break it where the columns run out (at least
            // one character per line, so a line narrower than one wide character still ends).
            let (head, rest) = split_at_columns(&word, room_now(&lines));
            lines.push(head.to_string());
            word = rest.to_string();
        }
    }
    if len > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `s` split where its first `room` columns end (zero-width marks kept with the character
/// before them); the head holds at least one character.
fn split_at_columns(s: &str, room: usize) -> (&str, &str) {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = columns(c);
        if i > 0 && w > 0 && used + w > room {
            return s.split_at(i);
        }
        used += w;
    }
    (s, "")
}

/// `prefix` then `text`, wrapped: the first line starts with `prefix`, the next ones with
/// `indent` spaces (the prefix's width, when the caller aligns them). When the prefix leaves
/// less than a third of the width, the text starts on its own line under it.
pub fn hang(prefix: &str, text: &str, indent: usize, width: usize) -> Vec<String> {
    let prefix_w = visible_width(prefix).max(indent);
    // The lines after the first start under the text, whatever the caller counted: a prefix
    // holding wide characters is wider in columns than in characters.
    let indent = prefix_w;
    if prefix_w + MIN_WIDTH / 2 > width || prefix_w > width * 2 / 3 {
        let mut lines = vec![cut(prefix.trim_end(), width)];
        lines.extend(wrap(text, 6, width));
        return lines;
    }
    let pad = " ".repeat(indent);
    let mut lines = wrap_rooms(text, width - prefix_w, width - indent);
    for (n, l) in lines.iter_mut().enumerate() {
        *l = format!("{}{l}", if n == 0 { prefix } else { &pad });
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
            assert!(visible_width(l) <= 40, "{l:?}");
            assert!(l.starts_with("    ") && !l.starts_with("     "), "{l:?}");
        }
        let back: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
        assert_eq!(back.join(" "), text);
        let long = wrap(&"x".repeat(50), 2, 22);
        assert_eq!(long.len(), 3, "{long:?}");
        assert!(long.iter().all(|l| visible_width(l) <= 22));
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

    /// A prefix of wide characters: the continuation lines start under the text, and a
    /// padded label fills columns, not characters.
    #[test]
    fn hang_and_pad_count_columns() {
        let lines = hang("名前名前: ", "one two three four five six", 4, 24);
        assert_eq!(
            lines,
            ["名前名前: one two three", "          four five six"]
        );
        assert_eq!(pad("名前", 6), "名前  ");
        assert_eq!(pad("ab", 6), "ab    ");
        assert_eq!(pad("toolong", 3), "toolong");
    }

    /// Issue 31: the width rule counted characters, so 60 CJK characters were 114 columns
    /// at a width of 60. Wide characters count two columns, combining marks zero.
    #[test]
    fn widths_are_terminal_columns() {
        assert_eq!(visible_width("名前"), 4);
        assert_eq!(
            visible_width("e\u{301}"),
            1,
            "e and a combining acute accent"
        );
        assert_eq!(visible_width("\u{1b}[31m漢字\u{1b}[0m"), 4);
        assert_eq!(visible_width("ＡＢ"), 4, "fullwidth Latin");
    }

    #[test]
    fn cut_never_splits_a_wide_character_and_keeps_marks_with_their_base() {
        let cjk = "漢".repeat(60);
        // 60 columns: 29 wide characters (58) and the ellipsis (59): a 30th would need 61.
        assert_eq!(cut(&cjk, 60), format!("{}…", "漢".repeat(29)));
        assert_eq!(cut(&cjk, 61), format!("{}…", "漢".repeat(30)));
        assert_eq!(visible_width(&cut(&cjk, 61)), 61);
        assert_eq!(cut(&"漢".repeat(5), 10), "漢".repeat(5));
        // The mark after the last kept base stays: the cut falls before the next base.
        assert_eq!(cut("ae\u{301}bcdef", 4), "ae\u{301}b…");
        assert_eq!(cut("ae\u{301}bcdef", 7), "ae\u{301}bcdef");
    }

    #[test]
    fn wrap_and_hang_count_columns() {
        let cjk = "漢".repeat(60);
        let lines = wrap(&cjk, 6, 60);
        assert_eq!(
            lines,
            vec![
                format!("      {}", "漢".repeat(27)),
                format!("      {}", "漢".repeat(27)),
                format!("      {}", "漢".repeat(6)),
            ]
        );
        // An odd room: the wide character that would straddle it goes to the next line.
        let odd = wrap(&"漢".repeat(9), 0, 15);
        assert_eq!(odd, ["漢".repeat(7), "漢".repeat(2)]);
        let words = wrap("名前は 長い 言葉です", 2, 12);
        assert_eq!(words, ["  名前は", "  長い", "  言葉です"]);
        // A prefix of wide characters takes its columns on the first line.
        let h = hang("  漢字漢字: ", &"x".repeat(40), 12, 30);
        assert_eq!(h[0], format!("  漢字漢字: {}", "x".repeat(18)));
        assert_eq!(h[1], format!("{}{}", " ".repeat(12), "x".repeat(18)));
        assert!(h.iter().all(|l| visible_width(l) <= 30), "{h:?}");
    }
}
