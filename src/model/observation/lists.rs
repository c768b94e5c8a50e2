//! The two list shapes of a custom object the SPEC §15 checks read item by item, decoded
//! into the few words they use: a list's items by one key (a Gateway's `status.addresses[]`
//! `value`, a CSINode's `spec.drivers[]` `name`) and a Gateway API route's
//! `status.parents[]` entries of one controller (its `parentRef` and conditions). Everything
//! else in an item is skipped while parsing.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::kube::RawCondition;
use super::meta::{condition_words, words};

/// At most this many items of one list (or parents of one route) are kept.
pub const MAX_ITEMS: usize = 64;

/// One `status.parents[]` entry of a route: which parent, written by which controller, and
/// its conditions (type → status, and their words).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteParent {
    pub controller: String,
    /// `parentRef.kind`, `Gateway` when absent (the Gateway API default).
    pub kind: String,
    /// `parentRef.namespace`; absent means the route's own namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub conditions: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reasons: BTreeMap<String, String>,
}

impl RouteParent {
    /// `Gateway infra/cilium-gw` (`/https` with a section), in the route's namespace when
    /// the reference names none.
    pub fn label(&self, route_namespace: Option<&str>) -> String {
        let ns = self.namespace.as_deref().or(route_namespace);
        let mut out = match ns {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        };
        if let Some(s) = &self.section {
            out.push('/');
            out.push_str(s);
        }
        out
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct RawParent {
    controller_name: String,
    parent_ref: RawParentRef,
    conditions: Vec<RawCondition>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawParentRef {
    kind: String,
    namespace: String,
    name: String,
    section_name: String,
}

/// The entry as kept, if one of `controllers` wrote it.
pub(super) fn parents_of(p: RawParent, controllers: &[&String]) -> Option<RouteParent> {
    if !controllers.iter().any(|c| **c == p.controller_name) {
        return None;
    }
    let non_empty = |s: String| (!s.is_empty()).then(|| words(&s));
    let mut out = RouteParent {
        controller: words(&p.controller_name),
        kind: non_empty(p.parent_ref.kind).unwrap_or_else(|| "Gateway".to_string()),
        namespace: non_empty(p.parent_ref.namespace),
        name: words(&p.parent_ref.name),
        section: non_empty(p.parent_ref.section_name),
        ..RouteParent::default()
    };
    for c in p.conditions.into_iter().take(MAX_ITEMS) {
        if c.type_.is_empty() {
            continue;
        }
        let said = condition_words(&c.reason, &c.message);
        if !said.is_empty() {
            out.reasons.insert(words(&c.type_), said);
        }
        out.conditions.insert(words(&c.type_), words(&c.status));
    }
    Some(out)
}

/// One item of a list: the scalar at `key`, if it has one; every other key skipped.
pub(super) struct ItemSeed<'k> {
    pub(super) key: &'k str,
}

impl<'de> DeserializeSeed<'de> for ItemSeed<'_> {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// A scalar as text, anything else as nothing.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Number(serde_json::Number),
    Bool(bool),
    Other(IgnoredAny),
}

impl<'de> Visitor<'de> for ItemSeed<'_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list item")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(k) = map.next_key::<String>()? {
            if k == self.key {
                found = match map.next_value::<Scalar>()? {
                    Scalar::Text(t) => Some(words(&t)),
                    Scalar::Number(n) => Some(n.to_string()),
                    Scalar::Bool(b) => Some(b.to_string()),
                    Scalar::Other(_) => None,
                };
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::super::{parse_custom_objects, FieldPath, FieldUse};

    const CILIUM: &str = "io.cilium/gateway-controller";

    /// An HTTPRoute as Cilium's gateway controller and another controller write it: only
    /// Cilium's parent entry is kept, with its conditions' words.
    #[test]
    fn route_parents_of_one_controller_are_kept() {
        let text = r#"{"items":[{"metadata":{"name":"web","namespace":"apps"},
            "spec":{"hostnames":["web.example.com"],"rules":[{"backendRefs":[{"name":"web","port":80}]}]},
            "status":{"parents":[
              {"controllerName":"io.cilium/gateway-controller","parentRef":{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"cilium-gw","namespace":"infra","sectionName":"https"},
               "conditions":[{"type":"Accepted","status":"True","reason":"Accepted","message":"Accepted HTTPRoute","observedGeneration":1,"lastTransitionTime":"2026-11-30T08:00:00Z"},
                             {"type":"ResolvedRefs","status":"False","reason":"BackendNotFound","message":"Service \"web\" not found"}]},
              {"controllerName":"example.com/other","parentRef":{"name":"other-gw"},"conditions":[{"type":"Accepted","status":"False"}]}]}}]}"#;
        let uses: BTreeSet<FieldUse> = [FieldUse::Parents(CILIUM.into())].into();
        let objs = parse_custom_objects(text, &uses).unwrap();
        let parents = &objs[0].parents;
        assert_eq!(parents.len(), 1, "{parents:?}");
        assert_eq!(
            parents[0].label(Some("apps")),
            "Gateway infra/cilium-gw/https"
        );
        assert_eq!(parents[0].conditions["ResolvedRefs"], "False");
        assert_eq!(
            parents[0].reasons["ResolvedRefs"],
            "BackendNotFound: Service \"web\" not found"
        );
        let json = serde_json::to_string(&objs).unwrap();
        assert!(
            !json.contains("hostnames") && !json.contains("other-gw"),
            "{json}"
        );
    }

    /// A Gateway's addresses and a CSINode's drivers, by one key; an empty list is kept as
    /// empty (there, and holding nothing), an absent one is absent.
    #[test]
    fn list_items_by_key() {
        let text = r#"{"items":[
            {"metadata":{"name":"gw","namespace":"infra"},"status":{"addresses":[{"type":"IPAddress","value":"10.67.3.200"}]}},
            {"metadata":{"name":"pending","namespace":"infra"},"status":{"addresses":[]}},
            {"metadata":{"name":"new","namespace":"infra"},"status":{}}]}"#;
        let path = FieldPath::parse(".status.addresses").unwrap();
        let uses: BTreeSet<FieldUse> = [FieldUse::Items(path.clone(), "value".into())].into();
        let objs = parse_custom_objects(text, &uses).unwrap();
        let label = FieldUse::items_label(&path, "value");
        assert_eq!(label, ".status.addresses[].value");
        assert_eq!(objs[0].items[&label], ["10.67.3.200"]);
        assert!(objs[1].items[&label].is_empty());
        assert!(!objs[2].items.contains_key(&label));
    }

    #[test]
    fn condition_messages_when_asked() {
        let text = r#"{"items":[{"metadata":{"name":"pool"},"status":{"conditions":[
            {"type":"cilium.io/IPsAvailable","status":"Unknown","reason":"noreason","message":"254"},
            {"type":"cilium.io/PoolConflict","status":"False","reason":"resolved","message":""}]}}]}"#;
        let uses: BTreeSet<FieldUse> = [FieldUse::ConditionMessages, FieldUse::Conditions].into();
        let objs = parse_custom_objects(text, &uses).unwrap();
        assert_eq!(objs[0].messages["cilium.io/IPsAvailable"], "254");
        assert_eq!(objs[0].conditions["cilium.io/PoolConflict"], "False");
        let only: BTreeSet<FieldUse> = [FieldUse::Conditions].into();
        assert!(parse_custom_objects(text, &only).unwrap()[0]
            .messages
            .is_empty());
    }
}
