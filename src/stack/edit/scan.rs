//! The line scanner behind [`super::add_kubeconfig_line`]: splits a topology into lines,
//! classifies each (top-level key, comment, document marker, continuation of a quoted
//! scalar, flow collection or block scalar) and refuses shapes a one-line insertion cannot
//! extend. It is not a YAML parser: the edit is re-parsed and compared afterwards.

/// One physical line of the topology, as the scanner saw it.
#[derive(Debug)]
pub(super) struct Line {
    /// 1-based, for messages.
    pub(super) number: usize,
    /// Byte offsets in the whole file: the content ends at `end`, the line ending is
    /// `end..next`.
    pub(super) end: usize,
    pub(super) next: usize,
    pub(super) kind: Kind,
    /// For a top-level `key:` line, the key as read (quotes removed).
    pub(super) key: Option<String>,
    /// The line ends inside a quoted scalar, a flow collection, or opens a block scalar.
    pub(super) open_after: bool,
}

impl Line {
    pub(super) fn eol<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.end..self.next]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Blank,
    Comment,
    /// `---`
    DocStart,
    /// `...`
    DocEnd,
    /// `%YAML` / `%TAG`
    Directive,
    /// A `key:` at column 0 outside any open scalar or collection.
    TopKey,
    /// `- item` at column 0: an indentless sequence, the value of the key above.
    SeqEntry,
    /// Other content at column 0 (for instance `{` of a flow mapping).
    OtherCol0,
    /// Content indented under a key.
    Indented,
    /// A line that starts inside a quoted scalar, a flow collection or a block scalar.
    Continuation,
}

impl Kind {
    pub(super) fn is_content(self) -> bool {
        !matches!(
            self,
            Kind::Blank | Kind::Comment | Kind::DocStart | Kind::DocEnd | Kind::Directive
        )
    }
}

/// Split `text` (which starts at byte `base` of the file) into lines and classify them.
/// Errors are phrased to follow "the topology of stack X".
pub(super) fn scan(text: &str, base: usize) -> std::result::Result<Vec<Line>, String> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut state = State::default();
    let mut pos = 0;
    let mut seen_content = false;
    let mut seen_doc_start = false;
    let mut seen_doc_end = false;
    while pos < bytes.len() {
        let nl = bytes[pos..].iter().position(|&b| b == b'\n');
        let next = nl.map_or(bytes.len(), |i| pos + i + 1);
        let mut end = nl.map_or(bytes.len(), |i| pos + i);
        if end > pos && bytes[end - 1] == b'\r' && nl.is_some() {
            end -= 1;
        }
        let content = &bytes[pos..end];
        let number = lines.len() + 1;
        if content.contains(&b'\r') {
            return Err(format!(
                "has a carriage return inside line {number} (bare CR line breaks are not supported)"
            ));
        }
        let (kind, key) = state.line(content);
        match kind {
            Kind::DocStart => {
                if seen_doc_start || seen_content {
                    return Err(format!(
                        "holds several YAML documents (`---` at line {number}); a topology is one document"
                    ));
                }
                let rest = &content[3..];
                let rest = rest.trim_ascii_start();
                if !rest.is_empty() && !rest.starts_with(b"#") {
                    return Err(format!(
                        "has content on its `---` line (line {number}); a topology is a block mapping of `key: value` lines"
                    ));
                }
                seen_doc_start = true;
            }
            Kind::DocEnd => seen_doc_end = true,
            Kind::Directive if seen_content => {
                return Err(format!(
                    "holds several YAML documents (a directive at line {number})"
                ))
            }
            k if k.is_content() => {
                if seen_doc_end {
                    return Err(format!(
                        "holds several YAML documents (content after `...` at line {number})"
                    ));
                }
                if !seen_content {
                    match k {
                        Kind::TopKey => {}
                        _ if content.trim_ascii_start().starts_with(b"{") => {
                            return Err(format!(
                                "is a flow mapping `{{...}}` (line {number}), not a block mapping of `key: value` lines"
                            ))
                        }
                        Kind::Indented => {
                            return Err(format!(
                                "has its top-level keys indented (line {number}); they must start at column 0"
                            ))
                        }
                        Kind::Blank
                        | Kind::Comment
                        | Kind::DocStart
                        | Kind::DocEnd
                        | Kind::Directive
                        | Kind::SeqEntry
                        | Kind::OtherCol0
                        | Kind::Continuation => {
                            return Err(format!(
                                "does not start with a `key: value` line (line {number}); a topology is a block mapping"
                            ))
                        }
                    }
                }
                seen_content = true;
            }
            Kind::Blank
            | Kind::Comment
            | Kind::Directive
            | Kind::TopKey
            | Kind::SeqEntry
            | Kind::OtherCol0
            | Kind::Indented
            | Kind::Continuation => {}
        }
        lines.push(Line {
            number,
            end: base + end,
            next: base + next,
            kind,
            key,
            open_after: state.is_open(),
        });
        pos = next;
    }
    Ok(lines)
}

/// What the scanner carries from one line to the next.
#[derive(Debug, Default)]
struct State {
    /// Inside a quoted scalar opened by this quote byte.
    quote: Option<u8>,
    /// Depth of open `[` / `{`.
    flow: usize,
    /// Inside a block scalar (`|` or `>`) whose indicator sat on a line of this indentation.
    block: Option<usize>,
}

impl State {
    fn is_open(&self) -> bool {
        self.quote.is_some() || self.flow > 0 || self.block.is_some()
    }

    /// Classify one line (without its line ending) and advance the state over it.
    fn line(&mut self, s: &[u8]) -> (Kind, Option<String>) {
        let indent = s.iter().take_while(|&&b| b == b' ').count();
        let blank = s.iter().all(|&b| b == b' ' || b == b'\t');
        if let Some(parent) = self.block {
            if blank || indent > parent {
                return (Kind::Continuation, None);
            }
            self.block = None;
        }
        if self.quote.is_some() || self.flow > 0 {
            self.tokens(s, 0, indent);
            return (Kind::Continuation, None);
        }
        if blank {
            return (Kind::Blank, None);
        }
        let first_non_ws = s.iter().position(|&b| b != b' ' && b != b'\t').unwrap_or(0);
        if s[first_non_ws] == b'#' {
            return (Kind::Comment, None);
        }
        if first_non_ws > 0 {
            self.tokens(s, first_non_ws, indent);
            return (Kind::Indented, None);
        }
        let marker =
            |m: &[u8]| s.starts_with(m) && s.get(3).is_none_or(|&b| b == b' ' || b == b'\t');
        if marker(b"---") {
            return (Kind::DocStart, None);
        }
        if marker(b"...") {
            return (Kind::DocEnd, None);
        }
        if s[0] == b'%' {
            return (Kind::Directive, None);
        }
        if s[0] == b'-' && s.get(1).is_none_or(|&b| b == b' ' || b == b'\t') {
            self.tokens(s, 0, indent);
            return (Kind::SeqEntry, None);
        }
        match top_key(s) {
            Some((key, after_colon)) => {
                self.tokens(s, after_colon, indent);
                (Kind::TopKey, Some(key))
            }
            None => {
                self.tokens(s, 0, indent);
                (Kind::OtherCol0, None)
            }
        }
    }

    /// Follow quotes, flow brackets and block scalar indicators from `s[from..]`, where a
    /// node may begin. Comments end the scan.
    fn tokens(&mut self, s: &[u8], from: usize, indent: usize) {
        let ws = |i: usize| s.get(i).is_none_or(|&b| b == b' ' || b == b'\t');
        let flow_indicator = |b: u8| matches!(b, b',' | b'[' | b']' | b'{' | b'}');
        let mut i = from;
        let mut start = true;
        while i < s.len() {
            if let Some(q) = self.quote {
                match s[i] {
                    b'\\' if q == b'"' => i += 2,
                    b'\'' if q == b'\'' && s.get(i + 1) == Some(&b'\'') => i += 2,
                    b if b == q => {
                        self.quote = None;
                        start = false;
                        i += 1;
                    }
                    _ => i += 1,
                }
                continue;
            }
            let c = s[i];
            match c {
                b' ' | b'\t' => i += 1,
                b'#' if i == 0 || ws(i - 1) => return,
                b'\'' | b'"' if start => {
                    self.quote = Some(c);
                    i += 1;
                }
                b'[' | b'{' if start || self.flow > 0 => {
                    self.flow += 1;
                    start = true;
                    i += 1;
                }
                b']' | b'}' if self.flow > 0 => {
                    self.flow -= 1;
                    start = false;
                    i += 1;
                }
                b',' if self.flow > 0 => {
                    start = true;
                    i += 1;
                }
                b':' if ws(i + 1)
                    || (self.flow > 0 && s.get(i + 1).is_some_and(|&b| flow_indicator(b)))
                    || (self.flow > 0 && !start) =>
                {
                    start = true;
                    i += 1;
                }
                b'-' | b'?' if start && ws(i + 1) => i += 1,
                b'&' | b'!' | b'*' if start => {
                    while i < s.len() && !ws(i) && !(self.flow > 0 && flow_indicator(s[i])) {
                        i += 1;
                    }
                    start = c != b'*';
                }
                b'|' | b'>' if start && self.flow == 0 => {
                    self.block = Some(indent);
                    return;
                }
                _ => {
                    // A plain scalar: up to `: `, ` #`, or a flow indicator inside a flow.
                    start = false;
                    i += 1;
                    while i < s.len() {
                        let b = s[i];
                        if (b == b':' && (ws(i + 1) || self.flow > 0))
                            || (b == b'#' && ws(i - 1))
                            || (self.flow > 0 && flow_indicator(b))
                        {
                            break;
                        }
                        i += 1;
                    }
                }
            }
        }
    }
}

/// A top-level `key:` at the start of `s`: the key (quotes removed) and the offset just
/// after its colon. `None` if the line does not start with a simple key.
fn top_key(s: &[u8]) -> Option<(String, usize)> {
    let (key, mut i) = match s[0] {
        q @ (b'"' | b'\'') => {
            let mut key = Vec::new();
            let mut i = 1;
            loop {
                let b = *s.get(i)?;
                if q == b'\'' && b == b'\'' && s.get(i + 1) == Some(&b'\'') {
                    key.push(b'\'');
                    i += 2;
                } else if q == b'"' && b == b'\\' {
                    key.push(*s.get(i + 1)?);
                    i += 2;
                } else if b == q {
                    break;
                } else {
                    key.push(b);
                    i += 1;
                }
            }
            (String::from_utf8(key).ok()?, i + 1)
        }
        b'[' | b'{' | b'&' | b'*' | b'!' | b'?' | b'|' | b'>' | b'#' | b'@' | b'`' => return None,
        _ => {
            let colon = (0..s.len()).find(|&i| {
                s[i] == b':' && s.get(i + 1).is_none_or(|&b| b == b' ' || b == b'\t')
                    || (s[i] == b'#' && i > 0 && (s[i - 1] == b' ' || s[i - 1] == b'\t'))
            })?;
            if s[colon] != b':' {
                return None;
            }
            let key = std::str::from_utf8(&s[..colon])
                .ok()?
                .trim_end()
                .to_string();
            (key, colon)
        }
    };
    while i < s.len() && (s[i] == b' ' || s[i] == b'\t') {
        i += 1;
    }
    if s.get(i) != Some(&b':') || !s.get(i + 1).is_none_or(|&b| b == b' ' || b == b'\t') {
        return None;
    }
    Some((key, i + 1))
}
