//! What every checked object must also show (SPEC §6, v0.3), decoded once for all kinds:
//! whether it is being deleted (and by which finalizers it is held), whether an operator was
//! told to stop (a suspension annotation), and the words of its conditions, made safe to
//! print. Shared by the workload, namespace and custom-object parsers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `metadata.deletionTimestamp` was set: the object is going away, held by its finalizers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Deletion {
    /// The `deletionTimestamp` as the API server wrote it (RFC 3339).
    pub since: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
    /// The message of a `DeletionIsBlocked=True` condition (Rook: the buckets that block a
    /// CephObjectStore), capped and escaped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
}

impl Deletion {
    /// A deletion from the raw metadata fields; `None` without a timestamp.
    pub fn from_meta(timestamp: Option<String>, finalizers: Vec<String>) -> Option<Deletion> {
        let since = timestamp.filter(|t| !t.is_empty())?;
        Some(Deletion {
            since: words(&since),
            finalizers: finalizers.iter().map(|f| words(f)).collect(),
            blocked: None,
        })
    }

    /// "being deleted since T (finalizers: a, b)", and what blocks it.
    pub fn describe(&self) -> String {
        let mut out = format!("being deleted since {}", self.since);
        if !self.finalizers.is_empty() {
            out.push_str(&format!(" (finalizers: {})", self.finalizers.join(", ")));
        }
        if let Some(why) = &self.blocked {
            out.push_str(&format!("; deletion blocked: {why}"));
        }
        out
    }
}

/// The condition type Rook sets on an object whose deletion waits on its dependents.
pub const DELETION_BLOCKED: &str = "DeletionIsBlocked";

/// Annotations by which an operator is told to stop, with the value that stops it and what
/// nestor says then. Only these annotation keys are ever decoded (annotations can hold
/// secrets: kubectl's last-applied configuration).
pub const SUSPENSIONS: &[(&str, &str, &str)] = &[
    ("cnpg.io/hibernation", "on", "hibernated"),
    (
        "cnpg.io/reconciliationLoop",
        "disabled",
        "reconciliation disabled: its status may be stale",
    ),
    // The spelling Argo CD's own CNPG health test object uses for the same stop.
    (
        "cnpg.io/reconciliation",
        "disabled",
        "reconciliation disabled: its status may be stale",
    ),
];

/// The words a suspension annotation says, if `value` is the one that suspends.
pub fn suspension(key: &str, value: &str) -> Option<&'static str> {
    SUSPENSIONS
        .iter()
        .find(|(k, v, _)| *k == key && *v == value)
        .map(|(_, _, says)| *says)
}

/// At most this many characters of a cluster-written text are kept, counted escaped.
pub const MAX_WORDS: usize = 200;

/// A cluster-written text (a condition's message) made safe to keep and print: control
/// characters and bidirectional overrides escaped ([`crate::term::escape`]: `\n`, `\x1b`,
/// `\u{202e}`), then at most [`MAX_WORDS`] characters of the escaped text (then `…`): the
/// cap counts what is printed, so 300 ESC bytes are a 200-character quote, not 1200.
pub fn words(text: &str) -> String {
    crate::term::escape_capped(text.trim(), MAX_WORDS)
}

/// "(Reason: message)" for a condition's words; empty when it has none.
pub fn condition_words(reason: &str, message: &str) -> String {
    match (words(reason), words(message)) {
        (r, m) if r.is_empty() && m.is_empty() => String::new(),
        (r, m) if m.is_empty() => r,
        (r, m) if r.is_empty() => m,
        (r, m) => format!("{r}: {m}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_escaped_and_capped() {
        assert_eq!(words(" a\nb\x1b[31m "), "a\\nb\\x1b[31m");
        assert_eq!(words("x\u{202e}y"), "x\\u{202e}y");
        let long = "é".repeat(300);
        let w = words(&long);
        assert_eq!(w.chars().count(), MAX_WORDS + 1);
        assert!(w.ends_with('…'));
        // Issue 31: 300 ESC bytes were an 841-character quote; the cap counts escapes.
        assert_eq!(
            words(&"\u{1b}".repeat(300)),
            format!("{}…", "\\x1b".repeat(50))
        );
        assert_eq!(
            words(&format!("{}\u{202e}tail", "x".repeat(195))),
            format!("{}…", "x".repeat(195))
        );
        assert_eq!(
            condition_words("ErrInitIssuer", "secret root-ca-secret not found"),
            "ErrInitIssuer: secret root-ca-secret not found"
        );
        assert_eq!(condition_words("", "m"), "m");
        assert_eq!(condition_words("R", ""), "R");
        assert_eq!(condition_words("", ""), "");
    }

    #[test]
    fn deletion_says_since_when_and_what_holds_it() {
        assert_eq!(Deletion::from_meta(None, vec!["f".into()]), None);
        assert_eq!(Deletion::from_meta(Some(String::new()), vec![]), None);
        let mut d = Deletion::from_meta(
            Some("2026-11-30T08:00:00Z".into()),
            vec!["a".into(), "b".into()],
        )
        .unwrap_or_default();
        assert_eq!(
            d.describe(),
            "being deleted since 2026-11-30T08:00:00Z (finalizers: a, b)"
        );
        d.blocked = Some("buckets: [raw]".into());
        assert!(d.describe().ends_with("; deletion blocked: buckets: [raw]"));
        assert_eq!(suspension("cnpg.io/hibernation", "on"), Some("hibernated"));
        assert_eq!(suspension("cnpg.io/hibernation", "off"), None);
    }
}
