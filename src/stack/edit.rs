//! The one edit nestor makes to a topology file: `stack select` adds the line
//! `kubeconfig: ~/.kube/<stack>.config` (SPEC §4, §7) after the operator said yes.
//!
//! Topology files are written by hand and commented; a YAML round-trip would drop the
//! comments and reformat everything. So this is a TEXT edit: one line is spliced in and every
//! other byte stays as it was (comments, blank lines, key order, quoting, trailing spaces, a
//! missing final newline, a UTF-8 BOM, CRLF line endings). A small line scanner finds where
//! the top-level keys are; it is not a YAML parser, so the result is re-parsed and must equal
//! the original mapping plus the one key, or nothing is written.
//!
//! [`crate::fs::write_atomically`] puts the bytes in place without a moment where the file is half
//! written, through a symlink if the stack file is one.

use serde_norway::{Mapping, Value};

use crate::error::{Error, Result};

const BOM: &[u8] = b"\xef\xbb\xbf";

/// The topology `original` with one line `kubeconfig: ~/.kube/<stack>.config` added at
/// column 0, and every other byte identical.
///
/// The line goes right after the top-level `target_kind:` line, else after `name:`, else
/// after the last line of the top-level mapping (before trailing comments and a `...`
/// end marker). It ends with the line ending of the line before it (CRLF stays CRLF); when
/// that line is the last one and has no final newline, the file still ends without one.
///
/// Refused: a `kubeconfig:` key already there, a document that is not one block mapping
/// (flow `{...}`, a list, several documents), a `target_kind:` value spanning lines,
/// invalid YAML, or any edit whose result does not parse back to the original plus the key.
pub fn add_kubeconfig_line(original: &[u8], stack: &str) -> Result<Vec<u8>> {
    check_stack_name(stack)?;
    let value = format!("~/.kube/{stack}.config");
    let line = format!("kubeconfig: {value}");
    let refuse = |message: String| {
        Error::input(
            message,
            format!("add the line `{line}` to the stack's topology by hand"),
        )
    };
    let what = format!("the topology of stack `{stack}`");

    let body_start = if original.starts_with(BOM) {
        BOM.len()
    } else {
        0
    };
    let text = std::str::from_utf8(&original[body_start..]).map_err(|e| {
        refuse(format!(
            "{what} is not UTF-8 text (invalid byte at offset {})",
            body_start + e.valid_up_to()
        ))
    })?;
    let lines = scan(text, body_start).map_err(|e| refuse(format!("{what} {e}")))?;

    let doc: Value = serde_norway::from_slice(original)
        .map_err(|e| refuse(format!("{what} is not valid YAML: {e}")))?;
    let Value::Mapping(mut expected) = doc else {
        return Err(refuse(format!(
            "{what} is not a YAML mapping of `key: value` lines"
        )));
    };
    if expected.contains_key("kubeconfig") {
        let at = lines
            .iter()
            .find(|l| l.key.as_deref() == Some("kubeconfig"))
            .map(|l| format!(" (line {})", l.number))
            .unwrap_or_default();
        return Err(Error::input(
            format!("{what} already declares `kubeconfig:`{at}"),
            "nothing to add: edit that line by hand if it should point elsewhere",
        ));
    }

    let anchor = choose_anchor(&lines).map_err(|e| refuse(format!("{what}: {e}")))?;
    let eol: &[u8] = match anchor.eol(original) {
        b"" => first_eol(original),
        e => e,
    };
    let mut insert = Vec::with_capacity(line.len() + 2);
    let at = if anchor.next == anchor.end {
        // The anchor is the last line and has no line ending: keep the file without one.
        insert.extend_from_slice(eol);
        insert.extend_from_slice(line.as_bytes());
        anchor.end
    } else {
        insert.extend_from_slice(line.as_bytes());
        insert.extend_from_slice(eol);
        anchor.next
    };
    let mut edited = Vec::with_capacity(original.len() + insert.len());
    edited.extend_from_slice(&original[..at]);
    edited.extend_from_slice(&insert);
    edited.extend_from_slice(&original[at..]);

    // Defence against a bad edit: the result must read as the original plus the one key.
    expected.insert(Value::from("kubeconfig"), Value::from(value.as_str()));
    if reads_as(&edited, &expected) {
        Ok(edited)
    } else {
        Err(refuse(format!(
            "{what} uses YAML this editor cannot safely extend: adding the line after line {} would change other content",
            anchor.number
        )))
    }
}

/// The defence against a bad edit: `edited` parses to exactly the mapping `expected`.
fn reads_as(edited: &[u8], expected: &Mapping) -> bool {
    matches!(serde_norway::from_slice::<Value>(edited), Ok(Value::Mapping(got)) if got == *expected)
}

/// The stack name becomes part of a YAML line and a file name: a DNS-1123 label only.
fn check_stack_name(stack: &str) -> Result<()> {
    let ok = super::schema::is_dns1123_label(stack);
    if ok {
        Ok(())
    } else {
        Err(Error::input(
            format!("invalid stack name `{stack}`"),
            "a stack name is a DNS-1123 label: lowercase letters, digits and `-`, at most 63, \
             starting and ending with a letter or digit",
        ))
    }
}

fn first_eol(bytes: &[u8]) -> &'static [u8] {
    match bytes.iter().position(|&b| b == b'\n') {
        Some(i) if i > 0 && bytes[i - 1] == b'\r' => b"\r\n",
        _ => b"\n",
    }
}

/// One physical line of the topology, as the scanner saw it.
#[derive(Debug)]
struct Line {
    /// 1-based, for messages.
    number: usize,
    /// Byte offsets in the whole file: the content ends at `end`, the line ending is
    /// `end..next`.
    end: usize,
    next: usize,
    kind: Kind,
    /// For a top-level `key:` line, the key as read (quotes removed).
    key: Option<String>,
    /// The line ends inside a quoted scalar, a flow collection, or opens a block scalar.
    open_after: bool,
}

impl Line {
    fn eol<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.end..self.next]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
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
    fn is_content(self) -> bool {
        !matches!(
            self,
            Kind::Blank | Kind::Comment | Kind::DocStart | Kind::DocEnd | Kind::Directive
        )
    }
}

/// Where to put the new line: after `target_kind:`, else `name:`, else the mapping's end.
fn choose_anchor(lines: &[Line]) -> std::result::Result<&Line, String> {
    let single_line = |i: usize| -> bool {
        let l = &lines[i];
        if l.open_after {
            return false;
        }
        // The next content line must be another top-level key (or the document's end).
        match lines[i + 1..]
            .iter()
            .find(|n| n.kind != Kind::Blank && n.kind != Kind::Comment)
        {
            None => true,
            Some(n) => matches!(n.kind, Kind::TopKey | Kind::DocEnd),
        }
    };
    let find = |key: &str| lines.iter().position(|l| l.key.as_deref() == Some(key));
    if let Some(i) = find("target_kind") {
        return if single_line(i) {
            Ok(&lines[i])
        } else {
            Err(format!(
                "the value of `target_kind:` (line {}) spans several lines",
                lines[i].number
            ))
        };
    }
    if let Some(i) = find("name").filter(|&i| single_line(i)) {
        return Ok(&lines[i]);
    }
    let end = lines
        .iter()
        .position(|l| l.kind == Kind::DocEnd)
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .rev()
        .find(|l| l.kind.is_content())
        .ok_or_else(|| "has no `key: value` lines".to_string())
}

/// Split `text` (which starts at byte `base` of the file) into lines and classify them.
/// Errors are phrased to follow "the topology of stack X".
fn scan(text: &str, base: usize) -> std::result::Result<Vec<Line>, String> {
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
                        _ => {
                            return Err(format!(
                                "does not start with a `key: value` line (line {number}); a topology is a block mapping"
                            ))
                        }
                    }
                }
                seen_content = true;
            }
            _ => {}
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

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is the failure report in tests
mod tests {
    use super::*;

    /// A hand-written prod topology: comments everywhere, both quoting styles, trailing
    /// spaces, a flow list spanning lines back to column 0, block and flow node entries.
    const PROD: &str = "\
# dirqual: the 4-node prod cluster in room 2.
#   owner: platform team   (keep this file out of git)

---   # one document
name: \"dirqual\"   
# the kind decides VM vs prod reasoning
target_kind: prod     # never lima here
endpoint: 'https://10.67.2.11:6443'

inventory: bootstrap/hosts.yaml # Ansible
control_group: control_plane
nodes:
  # control plane first
  - { name: dirqual1, role: control-plane }   # the API server
  - name: dirqual2   
    role: worker
  # storage nodes
  - {name: dirqual3,
     role: worker}
  - name: dirqual4
    role: worker
layers: [k8s, cni, ceph, storage,
monitoring, gitops, \"registry\", 'dataops']   # flow list back at column 0
notes: |
  target_kind: is not a key here
  # nor is this a comment
description: \"a quoted value
spanning: lines\"
# trailing comment after the mapping

# and another, after a blank line
";

    const LINE: &str = "kubeconfig: ~/.kube/dirqual.config";

    /// `original` with `insert` spliced in at byte `at`: the only change allowed.
    fn spliced(original: &[u8], at: usize, insert: &[u8]) -> Vec<u8> {
        [&original[..at], insert, &original[at..]].concat()
    }

    /// Offset just after the line that contains `needle`.
    fn after_line(text: &[u8], needle: &str) -> usize {
        let i = text
            .windows(needle.len())
            .position(|w| w == needle.as_bytes())
            .unwrap();
        i + text[i..].iter().position(|&b| b == b'\n').unwrap() + 1
    }

    fn refused(text: &str) -> Error {
        add_kubeconfig_line(text.as_bytes(), "dirqual").unwrap_err()
    }

    #[test]
    fn golden_prod_topology_gains_exactly_one_line() {
        let original = PROD.as_bytes();
        let got = add_kubeconfig_line(original, "dirqual").unwrap();
        let at = after_line(original, "target_kind: prod");
        assert_eq!(
            String::from_utf8(got.clone()).unwrap(),
            String::from_utf8(spliced(original, at, format!("{LINE}\n").as_bytes())).unwrap()
        );
        // byte diff: common prefix up to `at`, common suffix after the line, nothing else
        assert_eq!(&got[..at], &original[..at]);
        assert_eq!(&got[at + LINE.len() + 1..], &original[at..]);
        let parsed: Value = serde_norway::from_slice(&got).unwrap();
        assert_eq!(parsed["kubeconfig"], Value::from("~/.kube/dirqual.config"));
        assert_eq!(parsed["name"], Value::from("dirqual"));
        let keys: Vec<&str> = parsed
            .as_mapping()
            .unwrap()
            .keys()
            .map(|k| k.as_str().unwrap())
            .collect();
        assert_eq!(
            keys,
            [
                "name",
                "target_kind",
                "kubeconfig",
                "endpoint",
                "inventory",
                "control_group",
                "nodes",
                "layers",
                "notes",
                "description"
            ]
        );
    }

    #[test]
    fn golden_crlf_file_gets_a_crlf_line() {
        let original = PROD.replace('\n', "\r\n").into_bytes();
        let got = add_kubeconfig_line(&original, "dirqual").unwrap();
        let at = after_line(&original, "target_kind: prod");
        assert_eq!(
            got,
            spliced(&original, at, format!("{LINE}\r\n").as_bytes())
        );
    }

    #[test]
    fn golden_no_final_newline_stays_without_one() {
        // target_kind in the middle: the last bytes are untouched
        let original = PROD.trim_end_matches('\n').as_bytes();
        let got = add_kubeconfig_line(original, "dirqual").unwrap();
        let at = after_line(original, "target_kind: prod");
        assert_eq!(got, spliced(original, at, format!("{LINE}\n").as_bytes()));
        assert!(got.ends_with(b"after a blank line"));
        // target_kind is the very last line, without a newline
        let original = b"name: dirqual\r\ntarget_kind: prod";
        let got = add_kubeconfig_line(original, "dirqual").unwrap();
        assert_eq!(
            got,
            b"name: dirqual\r\ntarget_kind: prod\r\nkubeconfig: ~/.kube/dirqual.config"
        );
    }

    #[test]
    fn golden_bom_is_kept() {
        let original = [BOM, PROD.as_bytes()].concat();
        let got = add_kubeconfig_line(&original, "dirqual").unwrap();
        let at = after_line(&original, "target_kind: prod");
        assert_eq!(got, spliced(&original, at, format!("{LINE}\n").as_bytes()));
        assert!(got.starts_with(BOM));
    }

    #[test]
    fn after_name_when_no_target_kind_and_quoted_keys_count() {
        let original = "# c\n'name': dirqual # n\nnodes:\n- {name: a}\n";
        let got = add_kubeconfig_line(original.as_bytes(), "dirqual").unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("# c\n'name': dirqual # n\n{LINE}\nnodes:\n- {{name: a}}\n")
        );
        let original = "\"target_kind\": prod\nname: dirqual\n";
        let got = add_kubeconfig_line(original.as_bytes(), "dirqual").unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("\"target_kind\": prod\n{LINE}\nname: dirqual\n")
        );
    }

    #[test]
    fn at_the_end_of_the_mapping_before_trailing_comments_and_end_marker() {
        let original =
            "endpoint: https://x:6443\nnodes:\n  - a   \n  # inside\n\n# after\n...\n# tail\n";
        let got = add_kubeconfig_line(original.as_bytes(), "dirqual").unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("endpoint: https://x:6443\nnodes:\n  - a   \n{LINE}\n  # inside\n\n# after\n...\n# tail\n")
        );
    }

    #[test]
    fn refuses_an_existing_kubeconfig_key() {
        let e = refused("name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/other.config\n");
        assert_eq!(
            e.message,
            "the topology of stack `dirqual` already declares `kubeconfig:` (line 3)"
        );
        assert_eq!(e.exit.code(), 1);
    }

    #[test]
    fn refuses_flow_mappings_lists_and_several_documents() {
        let e = refused("{name: dirqual, target_kind: prod}\n");
        assert_eq!(
            e.message,
            "the topology of stack `dirqual` is a flow mapping `{...}` (line 1), not a block mapping of `key: value` lines"
        );
        assert_eq!(
            e.hint,
            "add the line `kubeconfig: ~/.kube/dirqual.config` to the stack's topology by hand"
        );
        let e = refused("# c\n--- {name: dirqual}\n");
        assert!(
            e.message.contains("has content on its `---` line (line 2)"),
            "{}",
            e.message
        );
        let e = refused("---\nname: dirqual\n---\nname: other\n");
        assert_eq!(
            e.message,
            "the topology of stack `dirqual` holds several YAML documents (`---` at line 3); a topology is one document"
        );
        let e = refused("name: dirqual\n...\nname: other\n");
        assert!(
            e.message.contains("content after `...` at line 3"),
            "{}",
            e.message
        );
        let e = refused("- name: dirqual\n");
        assert!(
            e.message
                .contains("does not start with a `key: value` line"),
            "{}",
            e.message
        );
        let e = refused("  name: dirqual\n  target_kind: prod\n");
        assert!(
            e.message.contains("top-level keys indented (line 1)"),
            "{}",
            e.message
        );
        let e = refused("");
        assert!(e.message.contains("is not a YAML mapping"), "{}", e.message);
    }

    #[test]
    fn refuses_a_target_kind_spanning_lines() {
        for text in [
            "name: dirqual\ntarget_kind:\n  prod\n",
            "name: dirqual\ntarget_kind: \"pr\nod\"\n",
            "name: dirqual\ntarget_kind: |\n  prod\n",
            "name: dirqual\ntarget_kind: prod\n  # a comment is fine but this is not\n  more\n",
            "target_kind: [prod,\n lima]\n",
            "target_kind:\n- prod\n",
        ] {
            let e = refused(text);
            assert!(
                e.message
                    .starts_with("the topology of stack `dirqual`: the value of `target_kind:`")
                    || e.message.contains("is not valid YAML"),
                "{text:?}: {}",
                e.message
            );
        }
        let e = refused("name: dirqual\ntarget_kind: |\n  prod\n");
        assert_eq!(
            e.message,
            "the topology of stack `dirqual`: the value of `target_kind:` (line 2) spans several lines"
        );
    }

    #[test]
    fn refuses_invalid_yaml_bad_names_and_bare_cr() {
        let e = refused("name: dirqual\ntarget_kind: [prod\n");
        assert!(
            e.message
                .starts_with("the topology of stack `dirqual` is not valid YAML: "),
            "{}",
            e.message
        );
        let e = add_kubeconfig_line(b"name: x\n", "Bad_Name").unwrap_err();
        assert_eq!(e.message, "invalid stack name `Bad_Name`");
        let e = add_kubeconfig_line(b"name: x\n", "-x").unwrap_err();
        assert_eq!(e.message, "invalid stack name `-x`");
        let e = refused("name: dirqual\rtarget_kind: prod\r");
        assert!(e.message.contains("bare CR"), "{}", e.message);
        let e = add_kubeconfig_line(b"name: caf\xe9\n", "dirqual").unwrap_err();
        assert!(e.message.contains("is not UTF-8 text"), "{}", e.message);
    }

    #[test]
    fn a_bad_edit_is_caught_by_the_reparse() {
        let original = "name: dirqual\nnotes: |\n  line one\n  line two\ntarget_kind: prod\n";
        let Value::Mapping(mut expected) = serde_norway::from_str(original).unwrap() else {
            panic!("not a mapping")
        };
        expected.insert("kubeconfig".into(), "~/.kube/dirqual.config".into());
        let line = format!("{LINE}\n");
        let good = after_line(original.as_bytes(), "target_kind");
        assert!(reads_as(
            &spliced(original.as_bytes(), good, line.as_bytes()),
            &expected
        ));
        // a splice inside the block scalar parses, but to something else: caught
        let inside = after_line(original.as_bytes(), "line one");
        assert!(!reads_as(
            &spliced(original.as_bytes(), inside, line.as_bytes()),
            &expected
        ));
        // a splice that breaks the YAML: caught
        assert!(!reads_as(
            &spliced(original.as_bytes(), 2, line.as_bytes()),
            &expected
        ));
    }

    #[test]
    fn a_keep_block_scalar_at_the_end_keeps_its_blank_lines() {
        let original = "endpoint: x\nnotes: |+\n  text\n\n";
        let got = add_kubeconfig_line(original.as_bytes(), "dirqual").unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("endpoint: x\nnotes: |+\n  text\n\n{LINE}\n")
        );
    }
}
