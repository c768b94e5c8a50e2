//! The list level of a custom resource answer, decoded while it arrives: the List itself
//! (its `kind` and `apiVersion` checked against the type asked for, [`super::answer`]), its
//! items, and each item's own `kind` (an item of another kind is refused); each item's
//! fields are walked by [`NodeSeed`] from the field-use trie.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use std::collections::BTreeSet;

use super::custom_object::CustomObject;
use super::objects::NodeSeed;
use super::trie::Trie;
use super::FieldUse;
use crate::error::{Error, Result};

/// Decode a List document (`{"items": [...]}`) of custom objects, keeping only `uses`.
pub fn parse_custom_objects(text: &str, uses: &BTreeSet<FieldUse>) -> Result<Vec<CustomObject>> {
    let trie = Trie::build(uses);
    let mut de = serde_json::Deserializer::from_str(text);
    let unbounded = crate::pool::Budget::new(usize::MAX);
    let cap = super::item_cap::ItemCap::default();
    let items = ListSeed {
        trie: &trie,
        budget: &unbounded,
        what: "the list",
        cap: &cap,
        of: None,
    }
    .deserialize(&mut de)
    .and_then(|items| de.end().map(|()| items));
    items.map_err(|e| {
        Error::input(
            format!("malformed output of `kubectl get <resource> --all-namespaces -o json`: {e}"),
            "expected one JSON List document with `items`; run `kubectl get <resource> -A -o json` by hand to see what it prints",
        )
    })
}

/// [`parse_custom_objects`] from a reader, decoding while the bytes arrive: only what is
/// kept is ever in memory. The error is serde's, so the caller can tell an I/O failure (a
/// timeout, a size cap) from a malformed document. The list is the API server's own list of
/// `plural.group` ([`super::answer::check_custom_list`]: a ConfigMapList, or a GatewayList
/// answered for gatewayclasses, is refused, saying what came back, never a list of its
/// objects). Each object kept is charged to `budget` (over it, the error names `what`).
pub fn decode_custom_objects<R: std::io::Read>(
    reader: R,
    uses: &BTreeSet<FieldUse>,
    (plural, group): (&str, &str),
    budget: &crate::pool::Budget,
    what: &str,
) -> std::result::Result<Vec<CustomObject>, serde_json::Error> {
    let trie = Trie::build(uses);
    let cap = super::item_cap::ItemCap::default();
    let capped = super::item_cap::Capped {
        inner: reader,
        cap: &cap,
        what,
    };
    let mut de = serde_json::Deserializer::from_reader(capped);
    let items = ListSeed {
        trie: &trie,
        budget,
        what,
        cap: &cap,
        of: Some((plural, group)),
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(items)
}

pub(super) struct ListSeed<'t> {
    pub(super) trie: &'t Trie,
    /// What each kept object is charged to, and the read it names when refused.
    pub(super) budget: &'t crate::pool::Budget,
    pub(super) what: &'t str,
    /// Bounds each item by what the budget has left while it is decoded.
    pub(super) cap: &'t super::item_cap::ItemCap,
    /// The `(plural, group)` the list must be of (the API server's list); None: kubectl's
    /// `List`.
    pub(super) of: Option<(&'t str, &'t str)>,
}

impl<'de> DeserializeSeed<'de> for ListSeed<'_> {
    type Value = Vec<CustomObject>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ListSeed<'_> {
    type Value = Vec<CustomObject>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a List document")
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let (mut items, mut kind, mut api_version) = (None, None, None);
        let mut item_kinds = std::collections::BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "items" => {
                    items = Some(map.next_value_seed(ItemsSeed {
                        trie: self.trie,
                        budget: self.budget,
                        what: self.what,
                        cap: self.cap,
                        kinds: &mut item_kinds,
                    })?)
                }
                "kind" => kind = map.next_value::<Option<String>>()?,
                "apiVersion" => api_version = map.next_value::<Option<String>>()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let Some((plural, group)) = self.of {
            let head = super::answer::Head::of_list(api_version, kind);
            super::answer::check_custom_list(&head, group, plural).map_err(de::Error::custom)?;
            // Every item that names its kind is of the list's (a Secret inside is refused).
            let of = head.kind.as_deref().and_then(|k| k.strip_suffix("List"));
            for k in &item_kinds {
                super::answer::check_item(
                    Some(k),
                    super::answer::Items::MayOmitKind,
                    of.unwrap_or_default(),
                )
                .map_err(de::Error::custom)?;
            }
        }
        items.ok_or_else(|| de::Error::missing_field("items"))
    }
}

struct ItemsSeed<'t, 'k> {
    trie: &'t Trie,
    budget: &'t crate::pool::Budget,
    what: &'t str,
    cap: &'t super::item_cap::ItemCap,
    /// The kinds the items name, each once (items that name none are not listed): 40 000
    /// Applications are one `Application`.
    kinds: &'k mut std::collections::BTreeSet<String>,
}

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_, '_> {
    type Value = Vec<CustomObject>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed<'_, '_> {
    type Value = Vec<CustomObject>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let mut object = CustomObject::default();
            let mut kind = None;
            let seed = ObjectSeed {
                trie: self.trie,
                out: &mut object,
                kind: &mut kind,
            };
            // No item may cost more than the budget has left, before it is decoded.
            self.cap.open(self.budget);
            let item = seq.next_element_seed(seed);
            self.cap.close();
            match item? {
                Some(()) => {
                    self.kinds.extend(kind);
                    // A blocked condition without a deletion timestamp blocks nothing.
                    if object.deleting.as_ref().is_some_and(|d| d.since.is_empty()) {
                        object.deleting = None;
                    }
                    object.compact();
                    self.budget
                        .charge(super::typed_list::weight(&object), self.what)
                        .map_err(de::Error::custom)?;
                    out.push(object)
                }
                None => return Ok(out),
            }
        }
    }
}

/// One item of a list: its own `kind` noted, everything else walked as the object's root.
struct ObjectSeed<'t, 'o> {
    trie: &'t Trie,
    out: &'o mut CustomObject,
    kind: &'o mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for ObjectSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ObjectSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "kind" {
                *self.kind = map.next_value::<Option<String>>()?;
            } else if let Some(child) = self.trie.children.get(&key) {
                map.next_value_seed(NodeSeed {
                    trie: child,
                    out: self.out,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}
