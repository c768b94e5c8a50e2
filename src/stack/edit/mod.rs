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

use yaml_serde::{Mapping, Value};

use crate::error::{Error, Result};

mod scan;
#[cfg(test)]
mod tests;

use scan::{scan, Kind, Line};

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

    let doc: Value = yaml_serde::from_slice(original)
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
    matches!(yaml_serde::from_slice::<Value>(edited), Ok(Value::Mapping(got)) if got == *expected)
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
