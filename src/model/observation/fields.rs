//! What a typed read keeps of a custom object: field paths named by the catalog's checks.
//! Defined here, below the catalog, because the reads decode by them.

use std::fmt;

/// A dotted path into an object, `.status.ceph.health`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FieldPath(Vec<String>);

impl FieldPath {
    pub fn parse(text: &str) -> std::result::Result<FieldPath, String> {
        let segments: Vec<String> = text
            .strip_prefix('.')
            .ok_or_else(|| {
                format!("field path `{text}` must start with `.`, e.g. `.status.phase`")
            })?
            .split('.')
            .map(str::to_string)
            .collect();
        if segments
            .iter()
            .any(|s| s.is_empty() || s.contains(char::is_whitespace))
        {
            return Err(format!(
                "field path `{text}` has an empty or blank segment; write it like `.status.ceph.health`"
            ));
        }
        if segments.first().is_some_and(|s| s == "metadata") {
            return Err(format!(
                "field path `{text}`: checks read `.spec` and `.status`, never `.metadata` (annotations can hold secrets)"
            ));
        }
        Ok(FieldPath(segments))
    }

    /// A path the code itself names (`.spec.drivers`), not read from a catalog.
    pub fn of(segments: &[&str]) -> FieldPath {
        FieldPath(segments.iter().map(|s| s.to_string()).collect())
    }

    pub fn segments(&self) -> &[String] {
        &self.0
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.0 {
            write!(f, ".{s}")?;
        }
        Ok(())
    }
}

/// One thing a check reads on a custom object: what the typed read keeps of it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum FieldUse {
    /// The value at a path (scalars as text).
    Value(FieldPath),
    /// The keys of the map at a path, with each entry's `.message`.
    Details(FieldPath),
    /// `status.conditions`: type → status.
    Conditions,
    /// One label of `metadata.labels`, by key (namespaces' Pod Security labels).
    Label(String),
    /// `status.conditions`' messages, type → message (Cilium writes a pool's free address
    /// count as its `cilium.io/IPsAvailable` message).
    ConditionMessages,
    /// The `key` of each item of the list at a path (`.status.addresses` `value`, a
    /// CSINode's `.spec.drivers` `name`), kept as [`FieldUse::items_label`].
    Items(FieldPath, String),
    /// The `status.parents[]` entries this controller wrote (Gateway API routes): their
    /// `parentRef` and conditions.
    Parents(String),
}

impl FieldUse {
    /// How a list's items are keyed in a custom object: `.spec.drivers[].name`.
    pub fn items_label(path: &FieldPath, key: &str) -> String {
        format!("{path}[].{key}")
    }
}

/// The key of [`Observation::keep`](super::Observation) under which the namespace read
/// finds the labels it keeps ([`FieldUse::Label`]).
pub const NAMESPACES_KEEP: &str = "namespaces";
