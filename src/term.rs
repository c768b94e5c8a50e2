//! Terminal safety: every string from a cluster, a host or a file is made inert before it
//! reaches a terminal, and only nestor's own SGR colours pass when colour is on. Base layer,
//! because `target` and `read` word errors with cluster strings as well as `output`.

/// One string from a cluster, a host or a file, made inert for a terminal: every control
/// character (C0 including newline and carriage return, DEL, C1) and every bidirectional
/// override is written as a visible escape (`\x1b`, `\r`, `\u{202e}`).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    out
}

/// [`escape`], then at most `max` characters of the escaped text: the cap counts what is
/// printed (an ESC is the four characters `\x1b`), so a string of control bytes cannot make
/// a capped quote four times longer, and an escape is never cut in half. `…` follows a cut
/// one (so the result is at most `max + 1` characters).
pub fn escape_capped(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max * 4));
    let mut len = 0;
    let mut one = String::new();
    for c in s.chars() {
        one.clear();
        push_escaped(&mut one, c);
        let n = one.chars().count();
        if len + n > max {
            out.push('…');
            break;
        }
        out.push_str(&one);
        len += n;
    }
    out
}

fn dangerous(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x100 && dangerous(c) => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if dangerous(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// Whether `text` holds a character text output escapes (besides line breaks and tabs).
pub fn has_unsafe(text: &str) -> bool {
    text.chars().any(|c| c != '\n' && c != '\t' && dangerous(c))
}

/// A JSON document as serde_json wrote it, with every character text output escapes
/// written as a JSON `\uXXXX` escape instead (serde_json escapes only U+0000..U+001F): the
/// same value for every JSON reader, and a terminal never sees a raw DEL, C1 control or bidi
/// override (SPEC §9, issue 49). Such characters occur only inside strings, where the escape
/// means the character itself.
pub fn json_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c != '\n' && c != '\t' && dangerous(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{:04x}", u));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Text about to be written to the terminal (stderr, or stdout without colours), made safe
/// as a whole: line breaks stay, every other control character is escaped. Cursor moves,
/// erases, carriage returns and title changes never pass, whatever a cluster string holds.
pub fn terminal_safe(text: &str) -> String {
    terminal_safe_painted(text, false)
}

/// [`terminal_safe`], except that with `color` an ESC survives as a complete SGR colour
/// sequence (`ESC [ digits;... m`) — nestor's own `Paint`, on a run whose printer paints
/// (`output::render::Printer`).
pub fn terminal_safe_painted(text: &str, color: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\n' || c == '\t' {
            out.push(c);
        } else if c == '\u{1b}' && color && sgr_len(&text[i..]).is_some() {
            let n = sgr_len(&text[i..]).unwrap_or(1);
            out.push_str(&text[i..i + n]);
            while chars.peek().is_some_and(|(j, _)| *j < i + n) {
                chars.next();
            }
        } else {
            push_escaped(&mut out, c);
        }
    }
    out
}

/// The length of an SGR sequence at the start of `s` (`ESC [ [0-9;]* m`).
fn sgr_len(s: &str) -> Option<usize> {
    let rest = s.strip_prefix("\u{1b}[")?;
    let params = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    (rest.as_bytes().get(params) == Some(&b'm')).then_some(2 + params + 1)
}

#[cfg(test)]
mod json_tests {
    #[test]
    fn json_keeps_every_value_and_no_raw_control_or_bidi() {
        let value = serde_json::json!({"name": "vm\u{202e}1\u{7f}\u{85}\u{1b}[2J", "n": "é ok"});
        let raw = serde_json::to_string_pretty(&value).unwrap_or_default();
        let safe = super::json_safe(&raw);
        assert!(
            !safe.chars().any(|c| c != '\n' && super::dangerous(c)),
            "{safe}"
        );
        assert!(
            safe.contains("\\u202e") && safe.contains("\\u007f") && safe.contains("\\u0085"),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap_or_default();
        assert_eq!(back, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_strings_never_drive_the_terminal() {
        let evil = "HEALTH_WARN\u{1b}[1A\u{1b}[2K\rHEALTH_OK present\u{9b}2J\u{202e}x";
        let e = escape(evil);
        assert!(!e.chars().any(dangerous), "{e}");
        assert_eq!(
            e,
            "HEALTH_WARN\\x1b[1A\\x1b[2K\\rHEALTH_OK present\\x9b2J\\u{202e}x"
        );
        let t = terminal_safe(&format!("a\n{evil}\n"));
        assert!(!t.contains('\u{1b}') && !t.contains('\r'), "{t}");
        assert_eq!(t.lines().count(), 2);
        let green = "\u{1b}[32mok\u{1b}[0m";
        let t = terminal_safe_painted(&format!("{green} {evil}"), true);
        assert!(t.starts_with("\u{1b}[32mok\u{1b}[0m "), "{t:?}");
        assert!(!t.contains("\u{1b}[1A") && !t.contains('\r'), "{t:?}");
        assert!(
            !terminal_safe(green).contains('\u{1b}'),
            "stderr never paints"
        );
    }

    /// Issue 31: the cap counted raw characters, so 300 ESC bytes became an 841-character
    /// quote. It counts escaped characters now, and never cuts an escape in half.
    #[test]
    fn the_cap_counts_what_is_printed() {
        assert_eq!(escape_capped("short", 10), "short");
        assert_eq!(escape_capped(&"\u{1b}".repeat(300), 10), "\\x1b\\x1b…");
        assert_eq!(
            escape_capped(&"\u{1b}".repeat(300), 200).chars().count(),
            201
        );
        assert_eq!(escape_capped("ab\u{202e}cd", 5), "ab…");
        assert_eq!(escape_capped("ab\u{202e}cd", 10), "ab\\u{202e}…");
        assert_eq!(escape_capped("ab\u{202e}cd", 11), "ab\\u{202e}c…");
        assert_eq!(escape_capped("ab\u{202e}cd", 12), "ab\\u{202e}cd");
        assert_eq!(escape_capped(&"é".repeat(5), 3), "ééé…");
    }
}
