//! Custom resources decoded into the few fields the catalog's checks use, never whole.
//!
//! A custom type's fields are data (the catalog names them), so no static struct fits: the
//! list is walked by a serde seed built from the field paths ([`FieldUse`]) the checks read
//! on that type. Every other key is skipped with `IgnoredAny` while parsing, so nothing else
//! is ever held in memory — not a Helm password in an Argo CD Application's inline values,
//! not a `last-applied-configuration` annotation — and nothing else can reach a snapshot.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

pub use super::custom_object::CustomObject;
use super::kube::RawCondition;
use super::lists::{parents_of, ItemSeed, RawParent, MAX_ITEMS};
use super::members::{joined_members, MemberVisitor};
use super::meta::{condition_words, suspension, words, Deletion, DELETION_BLOCKED};
use super::trie::{Keep, Trie};

/// One node of an object: keeps what the trie says, walks into its children, skips the rest.
pub(super) struct NodeSeed<'t, 'o> {
    pub(super) trie: &'t Trie,
    pub(super) out: &'o mut CustomObject,
}

impl NodeSeed<'_, '_> {
    fn scalar(self, text: String) {
        for k in &self.trie.keep {
            match k {
                Keep::Name => self.out.name = text.clone(),
                Keep::Namespace => self.out.namespace = Some(text.clone()),
                Keep::Value(p) | Keep::Members(p) => {
                    self.out.fields.insert(p.clone(), words(&text));
                }
                Keep::DeletionTimestamp if !text.is_empty() => {
                    self.out
                        .deleting
                        .get_or_insert_with(Deletion::default)
                        .since = words(&text);
                }
                Keep::Annotation(key) => {
                    if let Some(says) = suspension(key, &text) {
                        self.out.suspended.push(says.to_string());
                    }
                }
                Keep::DeletionTimestamp
                | Keep::Details(_)
                | Keep::Conditions
                | Keep::Blocked
                | Keep::Finalizers
                | Keep::Messages
                | Keep::Items(..)
                | Keep::Parents(_) => {}
            }
        }
    }

    /// The field names under which this node's members are kept.
    fn members(&self) -> Vec<std::sync::Arc<str>> {
        self.trie
            .keep
            .iter()
            .filter_map(|k| match k {
                Keep::Members(p) => Some(p.clone()),
                Keep::Name
                | Keep::Namespace
                | Keep::Value(_)
                | Keep::Details(_)
                | Keep::Conditions
                | Keep::Blocked
                | Keep::DeletionTimestamp
                | Keep::Finalizers
                | Keep::Annotation(_)
                | Keep::Messages
                | Keep::Items(..)
                | Keep::Parents(_) => None,
            })
            .collect()
    }

    fn placeholder(&mut self, what: &str) {
        for k in &self.trie.keep {
            if let Keep::Value(p) = k {
                self.out.fields.insert(p.clone(), what.to_string());
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMessage {
    message: String,
}

/// A details entry: `{message, severity}` as Rook writes it, or anything else (no message).
#[derive(Deserialize)]
#[serde(untagged)]
enum RawDetail {
    Entry(RawMessage),
    Other(IgnoredAny),
}

impl RawDetail {
    fn message(self) -> String {
        match self {
            RawDetail::Entry(m) => m.message,
            RawDetail::Other(_) => String::new(),
        }
    }
}

impl<'de> Visitor<'de> for NodeSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<(), E> {
        self.scalar(v.to_string());
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<(), E> {
        self.scalar(v.to_string());
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<(), E> {
        self.scalar(v.to_string());
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<(), E> {
        self.scalar(v.to_string());
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<(), E> {
        self.scalar(v.to_string());
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> std::result::Result<(), A::Error> {
        self.placeholder("<list>");
        let has = |want: fn(&Keep) -> bool| self.trie.keep.iter().any(want);
        let conditions = has(|k| matches!(k, Keep::Conditions));
        let messages = has(|k| matches!(k, Keep::Messages));
        let (mut controllers, mut items) = (Vec::new(), Vec::new());
        for k in &self.trie.keep {
            match k {
                Keep::Parents(c) => controllers.push(c),
                Keep::Items(label, key) => items.push((label, key)),
                Keep::Name
                | Keep::Namespace
                | Keep::Value(_)
                | Keep::Details(_)
                | Keep::Conditions
                | Keep::Blocked
                | Keep::DeletionTimestamp
                | Keep::Finalizers
                | Keep::Annotation(_)
                | Keep::Members(_)
                | Keep::Messages => {}
            }
        }
        let members = self.members();
        if !members.is_empty() {
            let mut texts = Vec::new();
            while let Some(m) = seq.next_element_seed(MemberVisitor)? {
                texts.push(m.0);
            }
            let text = joined_members(texts);
            for key in members {
                self.out.fields.insert(key, text.clone());
            }
        } else if !controllers.is_empty() {
            while let Some(p) = seq.next_element::<RawParent>()? {
                if self.out.parents.len() < MAX_ITEMS {
                    self.out.parents.extend(parents_of(p, &controllers));
                }
            }
        } else if let [(label, key), ..] = items.as_slice() {
            let mut kept = Vec::new();
            while let Some(v) = seq.next_element_seed(ItemSeed { key })? {
                if kept.len() < MAX_ITEMS {
                    kept.extend(v);
                }
            }
            self.out.items.insert((*label).clone(), kept);
        } else if has(|k| matches!(k, Keep::Finalizers)) {
            let mut finalizers = Vec::new();
            while let Some(f) = seq.next_element::<String>()? {
                finalizers.push(words(&f));
            }
            if !finalizers.is_empty() {
                self.out
                    .deleting
                    .get_or_insert_with(Deletion::default)
                    .finalizers = finalizers;
            }
        } else if conditions || messages || has(|k| matches!(k, Keep::Blocked)) {
            while let Some(c) = seq.next_element::<RawCondition>()? {
                if c.type_ == DELETION_BLOCKED && c.status == "True" {
                    self.out
                        .deleting
                        .get_or_insert_with(Deletion::default)
                        .blocked = Some(words(&c.message));
                }
                if conditions && !c.type_.is_empty() {
                    let said = condition_words(&c.reason, &c.message);
                    if !said.is_empty() {
                        self.out.reasons.insert(c.type_.clone(), said);
                    }
                    if messages && !c.message.is_empty() {
                        self.out.messages.insert(c.type_.clone(), words(&c.message));
                    }
                    self.out.conditions.insert(c.type_, c.status);
                } else if messages && !c.type_.is_empty() && !c.message.is_empty() {
                    self.out.messages.insert(c.type_, words(&c.message));
                }
            }
        } else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
        }
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> std::result::Result<(), A::Error> {
        self.placeholder("<object>");
        let details: Vec<String> = self
            .trie
            .keep
            .iter()
            .filter_map(|k| match k {
                Keep::Details(p) => Some(p.clone()),
                Keep::Name
                | Keep::Namespace
                | Keep::Value(_)
                | Keep::Conditions
                | Keep::Blocked
                | Keep::DeletionTimestamp
                | Keep::Finalizers
                | Keep::Annotation(_)
                | Keep::Members(_)
                | Keep::Messages
                | Keep::Items(..)
                | Keep::Parents(_) => None,
            })
            .collect();
        let members = self.members();
        let mut keys = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if !members.is_empty() {
                keys.push(words(&key));
            }
            if !details.is_empty() {
                let message = map.next_value::<RawDetail>()?.message();
                for p in &details {
                    self.out
                        .details
                        .entry(p.clone())
                        .or_default()
                        .insert(key.clone(), message.clone());
                }
            } else if let Some(child) = self.trie.children.get(&key) {
                map.next_value_seed(NodeSeed {
                    trie: child,
                    out: self.out,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !members.is_empty() {
            let text = joined_members(keys);
            for key in members {
                self.out.fields.insert(key, text.clone());
            }
        }
        // An empty details map still says "no checks": record it as present.
        for p in details {
            self.out.details.entry(p).or_default();
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "objects_tests.rs"]
mod tests;
