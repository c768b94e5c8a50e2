//! What a typed read keeps of a custom object: field paths named by the catalog's checks.
//! Defined here, below the catalog, because the reads decode by them; and [`Fields`], what
//! a decoded object holds at those paths.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};

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

    /// `.metadata.uid`: what an object's Warning Events are matched by.
    pub fn uid() -> FieldPath {
        FieldPath::of(&["metadata", "uid"])
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
    /// One annotation's value, by its exact key (`network.cilium.io/wg-pub-key`): a check
    /// names it, nothing else of `metadata.annotations` is kept. Stored under
    /// [`annotation_field`].
    Annotation(String),
    /// The members of the list or map at a path, as one text (see [`members_key`]): a
    /// list's scalars, `{}` for an empty object, `{…}` for another; a map's keys. A
    /// NetworkPolicy's `policyTypes`, its `ingress` rules (`[{}]` is `{}`: allow all).
    Members(FieldPath),
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

/// Where a kept annotation's value is stored among an object's fields:
/// `metadata.annotations[KEY]` (no leading dot: never a [`FieldPath`]).
pub fn annotation_field(key: &str) -> String {
    format!("metadata.annotations[{key}]")
}

/// The field under which [`FieldUse::Members`] of `path` is kept: `members .spec.ingress`.
pub fn members_key(path: &FieldPath) -> String {
    format!("members {path}")
}

/// The key of [`Observation::keep`](super::Observation) under which the namespace read
/// finds the labels it keeps ([`FieldUse::Label`]).
pub const NAMESPACES_KEEP: &str = "namespaces";

/// Path → value, for the few paths a check reads: a small vector (a list of 40 000 objects
/// keeps 40 000 of these; a map's node would weigh more than the values), grown one entry
/// at a time, each path shared with the list's decoder rather than copied into every
/// object. Saved as a map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(Vec<(Arc<str>, String)>);

impl Fields {
    pub fn get(&self, path: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(p, _)| &**p == path)
            .map(|(_, v)| v.as_str())
    }

    pub fn insert(&mut self, path: Arc<str>, value: String) {
        match self.0.iter_mut().find(|(p, _)| *p == path) {
            Some(slot) => slot.1 = value,
            None => {
                self.0.reserve_exact(1);
                self.0.push((path, value))
            }
        }
    }

    pub fn remove(&mut self, path: &str) {
        self.0.retain(|(p, _)| &**p != path);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Fields {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let sorted: BTreeMap<&str, &str> = self.0.iter().map(|(p, v)| (&**p, v.as_str())).collect();
        sorted.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let map: BTreeMap<String, String> = BTreeMap::deserialize(d)?;
        Ok(Fields(
            map.into_iter().map(|(p, v)| (p.into(), v)).collect(),
        ))
    }
}
