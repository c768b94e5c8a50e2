//! Plain YAML only, for every kubeconfig nestor validates (SPEC §9): no anchor (`&a`), no
//! alias (`*a`), no tag (`!!merge`, `!x`) and no merge key (`<<`). YAML readers do not all
//! resolve these alike — kubectl's reader applies `<<:` merges, nestor's serde reader sees a
//! key named `<<` — so an `exec:` user hidden under a merge key was invisible to nestor and
//! ran under kubectl. A kubeconfig never needs any of them: one is refused outright.
//!
//! The scan walks the YAML event stream of an independent parser (`yaml-rust2`); a file that
//! parser cannot read is not plain either (the caller refuses it once its own reader has had
//! its say, so a plain syntax error keeps its usual message).

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::Marker;

/// What the scan found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scan {
    /// Plain YAML: none of the constructs below.
    Plain,
    /// `what` (an anchor, an alias, a tag, a merge key) at 1-based `(line, column)`.
    Refused {
        what: &'static str,
        at: (usize, usize),
    },
    /// The event parser could not read the file (at that line, column).
    Unreadable { at: (usize, usize) },
}

/// Scan `text` (already bounded in size and depth by the caller).
pub fn scan(text: &str) -> Scan {
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = match parser.next_token() {
            Ok(e) => e,
            Err(e) => return Scan::Unreadable { at: at(e.marker()) },
        };
        let found = match &event {
            Event::StreamEnd => return Scan::Plain,
            Event::Alias(_) => Some("an alias (`*name`)"),
            Event::Scalar(_, _, anchor, _)
            | Event::SequenceStart(anchor, _)
            | Event::MappingStart(anchor, _)
                if *anchor != 0 =>
            {
                Some("an anchor (`&name`)")
            }
            Event::Scalar(_, _, _, Some(_))
            | Event::SequenceStart(_, Some(_))
            | Event::MappingStart(_, Some(_)) => Some("a tag (`!name`)"),
            Event::Scalar(value, _, _, None) if value == "<<" => Some("a merge key (`<<`)"),
            Event::Nothing
            | Event::StreamStart
            | Event::DocumentStart
            | Event::DocumentEnd
            | Event::Scalar(..)
            | Event::SequenceStart(..)
            | Event::SequenceEnd
            | Event::MappingStart(..)
            | Event::MappingEnd => None,
        };
        if let Some(what) = found {
            return Scan::Refused {
                what,
                at: at(&mark),
            };
        }
    }
}

fn at(mark: &Marker) -> (usize, usize) {
    (mark.line(), mark.col() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn what(text: &str) -> Option<&'static str> {
        match scan(text) {
            Scan::Refused { what, .. } => Some(what),
            Scan::Plain | Scan::Unreadable { .. } => None,
        }
    }

    #[test]
    fn plain_kubeconfigs_pass_and_every_indirection_is_refused() {
        let plain = "apiVersion: v1\nusers:\n- name: a&b\n  user:\n    token: 'x*y'\n    password: \"<<\"\n";
        // A quoted `<<` value is still refused: no kubeconfig needs one anywhere.
        assert_eq!(what(plain), Some("a merge key (`<<`)"));
        let plain = plain.replace("\"<<\"", "p");
        assert_eq!(scan(&plain), Scan::Plain);
        assert_eq!(
            what("users:\n- name: u\n  user:\n    <<: {exec: {command: /bin/sh}}\n"),
            Some("a merge key (`<<`)")
        );
        assert_eq!(
            what("a: &x {exec: {command: sh}}\nb: *x\n"),
            Some("an anchor (`&name`)")
        );
        assert_eq!(what("b: *x\n"), None, "an undefined alias is a parse error");
        assert!(matches!(scan("b: *x\n"), Scan::Unreadable { .. }));
        assert_eq!(what("a: !!binary aGk=\n"), Some("a tag (`!name`)"));
        assert_eq!(what("a: !!merge x\n"), Some("a tag (`!name`)"));
        assert!(matches!(scan("a: [\n"), Scan::Unreadable { at: (_, _) }));
    }

    #[test]
    fn the_position_is_reported() {
        assert_eq!(
            scan("a: 1\nusers:\n  - user: {<<: x}\n"),
            Scan::Refused {
                what: "a merge key (`<<`)",
                at: (3, 12)
            }
        );
    }
}
