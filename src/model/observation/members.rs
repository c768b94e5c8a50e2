//! What [`FieldUse::Members`](super::FieldUse) keeps of a list or map, while the custom
//! objects are decoded: each member as a short word (`Ingress`, `{}`, `{…}`), nothing of
//! its content — a NetworkPolicy rule's peers and ports never reach memory.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::meta::words;

/// At most this many members of one list or map are kept (the rest counted as `…`).
const MAX_MEMBERS: usize = 16;

/// One member of a list as [`FieldUse::Members`] keeps it: a scalar as its words, `{}` for
/// an empty object, `{…}` for another, `[…]` for a list; nothing of it is held.
pub(super) struct MemberVisitor;

/// The member's text, from [`MemberVisitor`].
pub(super) struct MemberText(pub String);

impl<'de> DeserializeSeed<'de> for MemberVisitor {
    type Value = MemberText;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<MemberText, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MemberVisitor {
    type Value = MemberText;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<MemberText, E> {
        Ok(MemberText(words(v)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<MemberText, E> {
        Ok(MemberText(v.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<MemberText, E> {
        Ok(MemberText(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<MemberText, E> {
        Ok(MemberText(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<MemberText, E> {
        Ok(MemberText(v.to_string()))
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<MemberText, E> {
        Ok(MemberText("null".into()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<MemberText, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(MemberText("[…]".into()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<MemberText, A::Error> {
        let mut empty = true;
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value::<IgnoredAny>()?;
            empty = false;
        }
        Ok(MemberText(if empty { "{}" } else { "{…}" }.into()))
    }
}

/// `members` joined with `,`, at most [`MAX_MEMBERS`] of them.
pub(super) fn joined_members(members: Vec<String>) -> String {
    let more = members.len() > MAX_MEMBERS;
    let mut kept: Vec<String> = members.into_iter().take(MAX_MEMBERS).collect();
    if more {
        kept.push("…".into());
    }
    kept.join(",")
}
