//! One custom resource as the checks see it, laid out for lists of 40 000 (SPEC §9 "Bounded
//! per run"): what nearly every object keeps (namespace, name, the few field values) in
//! place, and what few objects have (details, conditions, a deletion, route parents...)
//! behind one pointer that stays null when they have none. Its saved form and its JSON
//! Schema are those of the plain struct ([`Saved`]), field for field.
//!
//! The rarer parts read as the object's own fields: `CustomObject` dereferences to
//! [`More`] (an empty one when it has none), and writing one of them allocates it.

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::fields::Fields;
use super::lists::RouteParent;
use super::meta::Deletion;
use super::{annotation_field, FieldPath};

/// One custom resource as the checks see it.
#[derive(Debug, Clone, Default)]
pub struct CustomObject {
    /// `None` for a cluster-scoped resource.
    pub namespace: Option<String>,
    pub name: String,
    /// The value at each field path the checks read (`.status.phase` → `Ready`).
    pub fields: Fields,
    /// The rest, when the object has any of it.
    more: Option<Box<More>>,
}

/// What few custom objects keep: see [`Saved`] for each field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct More {
    pub details: BTreeMap<String, BTreeMap<String, String>>,
    pub conditions: BTreeMap<String, String>,
    pub reasons: BTreeMap<String, String>,
    pub deleting: Option<Deletion>,
    pub suspended: Vec<String>,
    pub messages: BTreeMap<String, String>,
    pub items: BTreeMap<String, Vec<String>>,
    pub parents: Vec<RouteParent>,
}

/// What an object without any of [`More`] reads.
static NONE: More = More {
    details: BTreeMap::new(),
    conditions: BTreeMap::new(),
    reasons: BTreeMap::new(),
    deleting: None,
    suspended: Vec::new(),
    messages: BTreeMap::new(),
    items: BTreeMap::new(),
    parents: Vec::new(),
};

impl Deref for CustomObject {
    type Target = More;
    fn deref(&self) -> &More {
        self.more.as_deref().unwrap_or(&NONE)
    }
}

impl DerefMut for CustomObject {
    fn deref_mut(&mut self) -> &mut More {
        self.more.get_or_insert_with(Box::default)
    }
}

impl PartialEq for CustomObject {
    fn eq(&self, other: &CustomObject) -> bool {
        (&self.namespace, &self.name, &self.fields, self.deref())
            == (&other.namespace, &other.name, &other.fields, other.deref())
    }
}

impl Eq for CustomObject {}

impl CustomObject {
    pub fn field(&self, path: &FieldPath) -> Option<&str> {
        self.fields.get(&path.to_string())
    }

    /// A kept annotation's value ([`FieldUse::Annotation`](super::FieldUse)).
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.fields.get(&annotation_field(key))
    }

    /// Drops an empty [`More`] (a write that kept nothing still allocated it).
    pub(super) fn compact(&mut self) {
        if self.more.as_deref().is_some_and(|m| *m == NONE) {
            self.more = None;
        }
    }
}

/// One custom resource as the checks see it.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "CustomObject")]
struct Saved {
    /// `None` for a cluster-scoped resource.
    namespace: Option<String>,
    name: String,
    /// The value at each field path the checks read (`.status.phase` → `Ready`); scalars as
    /// text, `<object>`/`<list>` for the rest. A path absent here is absent (or null).
    #[serde(default, skip_serializing_if = "Fields::is_empty")]
    #[schemars(with = "BTreeMap<String, String>")]
    fields: Fields,
    /// For each path whose map keys the checks read (`.status.ceph.details`): key → its
    /// `.message`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    details: BTreeMap<String, BTreeMap<String, String>>,
    /// `status.conditions`, when a check reads them: type → status (`Ready` → `True`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    conditions: BTreeMap<String, String>,
    /// The same conditions' words: type → "Reason: message" (escaped, capped), when they
    /// have any.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    reasons: BTreeMap<String, String>,
    /// `metadata.deletionTimestamp` set: being deleted (and what blocks it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deleting: Option<Deletion>,
    /// What a suspension annotation says (`hibernated`), one per annotation that suspends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    suspended: Vec<String>,
    /// Condition messages, type → message (escaped, capped), when a check reads them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    messages: BTreeMap<String, String>,
    /// Lists whose items a check reads, `PATH[].KEY` → each item's KEY (escaped, capped).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    items: BTreeMap<String, Vec<String>>,
    /// The `status.parents[]` entries of the controllers a check names (Gateway API routes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    parents: Vec<RouteParent>,
}

/// [`Saved`] borrowed from an object, to print or weigh it without a copy.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Shown<'a> {
    namespace: &'a Option<String>,
    name: &'a str,
    #[serde(skip_serializing_if = "Fields::is_empty")]
    fields: &'a Fields,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    details: &'a BTreeMap<String, BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    conditions: &'a BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    reasons: &'a BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deleting: &'a Option<Deletion>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suspended: &'a Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    messages: &'a BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    items: &'a BTreeMap<String, Vec<String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parents: &'a Vec<RouteParent>,
}

impl Serialize for CustomObject {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.deref();
        Shown {
            namespace: &self.namespace,
            name: &self.name,
            fields: &self.fields,
            details: &m.details,
            conditions: &m.conditions,
            reasons: &m.reasons,
            deleting: &m.deleting,
            suspended: &m.suspended,
            messages: &m.messages,
            items: &m.items,
            parents: &m.parents,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for CustomObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CustomObject, D::Error> {
        let s = Saved::deserialize(d)?;
        let mut object = CustomObject {
            namespace: s.namespace,
            name: s.name,
            fields: s.fields,
            more: Some(Box::new(More {
                details: s.details,
                conditions: s.conditions,
                reasons: s.reasons,
                deleting: s.deleting,
                suspended: s.suspended,
                messages: s.messages,
                items: s.items,
                parents: s.parents,
            })),
        };
        object.compact();
        Ok(object)
    }
}

impl JsonSchema for CustomObject {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        Saved::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        Saved::schema_id()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Saved::json_schema(generator)
    }
}

#[cfg(test)]
#[path = "custom_object_tests.rs"]
mod tests;
