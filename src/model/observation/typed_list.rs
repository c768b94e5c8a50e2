//! A built-in List answer (`NodeList`, `DeploymentList`, a namespace's `PodList`...) decoded
//! while it arrives, item by item, into only what the checks use (SPEC §9 "Bounded per
//! run"): each item is decoded into its typed struct (unknown fields skipped unread), turned
//! at once into what is kept, and charged to the run's [`Budget`] before it is kept, so
//! neither the answer's text nor a list of whole items is ever held. What the List says it is
//! — and what each item says — is checked as in [`super::answer`] (the head may come before
//! or after the items).

use std::fmt;
use std::io::Read;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, StringDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess,
    Visitor,
};
use serde::Serialize;

use super::answer::{self, Head, HeadMeta, Scalar};
use super::item_cap::{Capped, ItemCap};
use crate::error::{Error, Result};
use crate::pool::{Budget, OVER_BUDGET};

/// What a decoded value costs the budget: its size in place plus, as a stand-in for what it
/// owns on the heap, the length of its JSON.
pub(super) fn weight<T: Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serializing these plain structs into a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    std::mem::size_of::<T>() + count.0
}

/// Decode one List document of `kind` objects of API `group` from `reader`; `what` names the
/// read (`GET /api/v1/nodes`). Each item is decoded as `T`, kept as `convert(T)`, charged to
/// `budget`. The answer must be that list ([`super::answer::check_list`]), every item that
/// names a kind of that kind (kubectl's `List`: every item); `{"items": null}` is malformed:
/// a failed read, never an empty one.
pub(super) fn decode_list<R, T, U>(
    reader: R,
    what: &str,
    group: &str,
    kind: &str,
    budget: &Budget,
    mut convert: impl FnMut(T) -> U,
) -> Result<Vec<U>>
where
    R: Read,
    T: DeserializeOwned,
    U: Serialize,
{
    decode_list_kept(reader, what, group, kind, budget, |t| Some(convert(t)))
}

/// [`decode_list`] keeping only the items `convert` keeps (`Some`): an item it drops is
/// never kept nor charged, so a list of 20 000 workloads of which the checks select three
/// costs three (its kind is checked all the same).
pub(crate) fn decode_list_kept<R, T, U>(
    reader: R,
    what: &str,
    group: &str,
    kind: &str,
    budget: &Budget,
    mut convert: impl FnMut(T) -> Option<U>,
) -> Result<Vec<U>>
where
    R: Read,
    T: DeserializeOwned,
    U: Serialize,
{
    decode_list_try(reader, what, group, kind, budget, |t| Ok(convert(t)))
}

/// [`decode_list_kept`] whose `convert` may refuse an item (a quantity that does not parse,
/// a time that is not RFC 3339): the read stops there and fails with that error, whole.
/// The one List decoder of every read, preview's and the gates'.
pub(crate) fn decode_list_try<R, T, U>(
    reader: R,
    what: &str,
    group: &str,
    kind: &str,
    budget: &Budget,
    mut convert: impl FnMut(T) -> Result<Option<U>>,
) -> Result<Vec<U>>
where
    R: Read,
    T: DeserializeOwned,
    U: Serialize,
{
    let cap = ItemCap::default();
    let capped = Capped {
        inner: reader,
        cap: &cap,
        what,
    };
    let mut de = serde_json::Deserializer::from_reader(capped);
    let mut stop = None;
    let seed = ListSeed {
        what,
        group,
        kind,
        budget,
        cap: &cap,
        convert: &mut convert,
        stop: &mut stop,
        item: PhantomData,
    };
    let malformed = |detail: String| {
        Error::input(
            format!("malformed answer to {what}: {detail}"),
            format!("expected one JSON List document of {kind} objects with `items`"),
        )
    };
    let items = seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    if let Some(e) = stop {
        return Err(e);
    }
    let items = items.map_err(|e| {
        if let Some(said) = answer::refusal_of(&e) {
            return Error::input(said, "");
        }
        let text = e.to_string();
        if text.starts_with(OVER_BUDGET) {
            let said = text
                .rsplit_once(" at line ")
                .map_or(text.as_str(), |(s, _)| s);
            return Error::input(said, "");
        }
        malformed(text)
    })?;
    items.ok_or_else(|| malformed("invalid type: null or missing `items`".to_string()))
}

struct ListSeed<'a, T, F> {
    what: &'a str,
    group: &'a str,
    kind: &'a str,
    budget: &'a Budget,
    cap: &'a ItemCap,
    convert: &'a mut F,
    /// What stopped the decoding on our side (`convert`'s refusal), kept whole rather than
    /// as serde's text with a position.
    stop: &'a mut Option<Error>,
    item: PhantomData<fn() -> T>,
}

impl<'de, T, U, F> DeserializeSeed<'de> for ListSeed<'_, T, F>
where
    T: DeserializeOwned,
    U: Serialize,
    F: FnMut(T) -> Result<Option<U>>,
{
    type Value = Option<Vec<U>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

/// The items' own kinds, as far as the check needs them: the first that is not the kind
/// asked for, and whether one named none.
#[derive(Default)]
struct ItemKinds {
    other: Option<String>,
    unnamed: bool,
}

impl<'de, T, U, F> Visitor<'de> for ListSeed<'_, T, F>
where
    T: DeserializeOwned,
    U: Serialize,
    F: FnMut(T) -> Result<Option<U>>,
{
    type Value = Option<Vec<U>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a List document")
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let ListSeed {
            what,
            group,
            kind,
            budget,
            cap,
            convert,
            stop,
            ..
        } = self;
        let mut head = Head::default();
        let mut items = None;
        let mut kinds = ItemKinds::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "apiVersion" => head.api_version = map.next_value()?,
                "kind" => head.kind = map.next_value()?,
                "metadata" => {
                    head.metadata = map.next_value::<Option<HeadMeta>>()?.unwrap_or_default()
                }
                "status" => head.status = map.next_value::<Option<Scalar>>()?,
                "items" => {
                    items = map.next_value_seed(ItemsSeed {
                        what,
                        kind,
                        budget,
                        cap,
                        convert: &mut *convert,
                        kinds: &mut kinds,
                        stop: &mut *stop,
                        item: PhantomData,
                    })?
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let of = answer::check_list(&head, group, kind).map_err(de::Error::custom)?;
        // A list cut at a read's `limit`: the items that came are not the whole list.
        if head.metadata.continue_token.is_some_and(|t| !t.is_empty()) {
            return Err(de::Error::custom(format!(
                "the API server cut the {kind}List at the read's limit (metadata.continue set): more items follow, so what came is not the whole list"
            )));
        }
        if let Some(other) = &kinds.other {
            answer::check_item(Some(other), of, kind).map_err(de::Error::custom)?;
        }
        if kinds.unnamed {
            answer::check_item(None, of, kind).map_err(de::Error::custom)?;
        }
        Ok(items)
    }
}

struct ItemsSeed<'l, T, F> {
    what: &'l str,
    kind: &'l str,
    budget: &'l Budget,
    cap: &'l ItemCap,
    convert: &'l mut F,
    kinds: &'l mut ItemKinds,
    stop: &'l mut Option<Error>,
    item: PhantomData<fn() -> T>,
}

impl<'de, T, U, F> DeserializeSeed<'de> for ItemsSeed<'_, T, F>
where
    T: DeserializeOwned,
    U: Serialize,
    F: FnMut(T) -> Result<Option<U>>,
{
    type Value = Option<Vec<U>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T, U, F> Visitor<'de> for ItemsSeed<'_, T, F>
where
    T: DeserializeOwned,
    U: Serialize,
    F: FnMut(T) -> Result<Option<U>>,
{
    type Value = Option<Vec<U>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of objects")
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let mut kind = None;
            // No item may cost more than the budget has left, before it is decoded.
            self.cap.open(self.budget);
            let item = seq.next_element_seed(ItemSeed::<T> {
                kind: &mut kind,
                item: PhantomData,
            });
            self.cap.close();
            let Some(item) = item? else {
                return Ok(Some(out));
            };
            match kind {
                Some(k) if k == self.kind => {}
                Some(k) => {
                    self.kinds.other.get_or_insert(k);
                }
                None => self.kinds.unnamed = true,
            }
            let kept = match (self.convert)(item) {
                Ok(Some(kept)) => kept,
                Ok(None) => continue,
                Err(e) => {
                    *self.stop = Some(e);
                    return Err(de::Error::custom("stopped"));
                }
            };
            self.budget
                .charge(weight(&kept), self.what)
                .map_err(de::Error::custom)?;
            out.push(kept);
        }
    }
}

/// One item: its `kind` noted, everything else decoded as `T` (the `kind` key hidden from it).
struct ItemSeed<'k, T> {
    kind: &'k mut Option<String>,
    item: PhantomData<fn() -> T>,
}

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for ItemSeed<'_, T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<T, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, T: DeserializeOwned> Visitor<'de> for ItemSeed<'_, T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<T, A::Error> {
        T::deserialize(MapAccessDeserializer::new(KindTap {
            inner: map,
            kind: self.kind,
        }))
    }
}

/// A map with its `kind` entry taken out (into `kind`) as it goes by: the item's struct reads
/// the rest straight from the answer, nothing buffered.
struct KindTap<'k, A> {
    inner: A,
    kind: &'k mut Option<String>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for KindTap<'_, A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> std::result::Result<Option<K::Value>, A::Error> {
        loop {
            match self.inner.next_key::<String>()? {
                None => return Ok(None),
                Some(k) if k == "kind" => *self.kind = self.inner.next_value()?,
                Some(k) => {
                    return seed
                        .deserialize(StringDeserializer::<A::Error>::new(k))
                        .map(Some)
                }
            }
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> std::result::Result<V::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation::{read_nodes, Node};

    /// A NodeList of `n` nodes produced while it is read, each with a fat annotation the
    /// checks never use: only a reader, never the whole text.
    struct Generated {
        n: usize,
        next: usize,
        pending: Vec<u8>,
        served: usize,
    }

    impl Read for Generated {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.pending.is_empty() {
                self.pending = match self.next {
                    0 => br#"{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":["#.to_vec(),
                    i if i <= self.n => format!(
                        r#"{}{{"metadata":{{"name":"node{i}","labels":{{"kubernetes.io/hostname":"node{i}"}},"annotations":{{"fat":"{}"}}}},"status":{{"conditions":[{{"type":"Ready","status":"True"}}],"nodeInfo":{{"kubeletVersion":"v1.31.4"}}}}}}"#,
                        if i == 1 { "" } else { "," },
                        "x".repeat(4096)
                    )
                    .into_bytes(),
                    i if i == self.n + 1 => b"]}".to_vec(),
                    _ => return Ok(0),
                };
                self.next += 1;
            }
            let k = buf.len().min(self.pending.len());
            buf[..k].copy_from_slice(&self.pending[..k]);
            self.pending.drain(..k);
            self.served += k;
            Ok(k)
        }
    }

    fn nodes(n: usize) -> Generated {
        Generated {
            n,
            next: 0,
            pending: Vec::new(),
            served: 0,
        }
    }

    #[test]
    fn a_list_is_decoded_as_it_arrives_and_charged_item_by_item() {
        let budget = Budget::new(8 << 20);
        let mut body = nodes(10_000);
        let kept = read_nodes(std::io::BufReader::new(&mut body), &budget).unwrap();
        assert_eq!(kept.len(), 10_000);
        assert_eq!(kept[9_999].name, "node10000");
        assert!(kept.iter().all(|n| n.ready));
        // 41 MB went by; what was charged is what is kept, a few hundred bytes a node.
        assert!(body.served > 40_000_000, "{}", body.served);
        let per_node = budget.used() / 10_000;
        assert!(
            (std::mem::size_of::<Node>()..600).contains(&per_node),
            "{per_node}"
        );
    }

    #[test]
    fn a_list_over_the_budget_is_a_failed_read_naming_it() {
        let budget = Budget::new(1 << 20);
        let e = read_nodes(std::io::BufReader::new(nodes(10_000)), &budget).unwrap_err();
        assert_eq!(
            e.message,
            "over nestor's memory budget of 1 MiB for one read of a cluster: GET /api/v1/nodes not kept (it holds more than nestor keeps)"
        );
        assert!(budget.used() <= 1 << 20);
    }

    /// Issue 31 item 3: one item whose kept field alone is far bigger than the budget (a
    /// node name of 6 MiB against a 1 MiB budget, more than it has left plus the largest
    /// object) is stopped by the reader while it is decoded, before its field is allocated
    /// and charged.
    #[test]
    fn one_item_bigger_than_what_the_budget_has_left_is_stopped_while_it_is_decoded() {
        let budget = Budget::new(1 << 20);
        let huge = "n".repeat(6 << 20);
        let text = format!(
            r#"{{"kind":"NodeList","apiVersion":"v1","items":[{{"kind":"Node","metadata":{{"name":"a"}}}},{{"kind":"Node","metadata":{{"name":"{huge}"}}}}]}}"#
        );
        let e = read_nodes(text.as_bytes(), &budget).unwrap_err();
        assert_eq!(
            e.message,
            "over nestor's memory budget of 1 MiB for one read of a cluster: an item of GET /api/v1/nodes is larger than what the budget has left (not decoded further)"
        );
        // Only the first node was charged: the second never reached the budget.
        assert!(budget.used() < 4096, "{}", budget.used());
        // A 6 MiB item passes a budget that has room for it, and costs what it keeps.
        let roomy = Budget::new(16 << 20);
        assert_eq!(read_nodes(text.as_bytes(), &roomy).unwrap().len(), 2);
    }

    #[test]
    fn the_head_may_follow_the_items_and_items_are_checked_wherever_it_is() {
        let unbounded = Budget::new(usize::MAX);
        let read = |text: &str| read_nodes(text.as_bytes(), &unbounded);
        let after = r#"{"items":[{"kind":"Node","metadata":{"name":"a"}}],"kind":"NodeList","apiVersion":"v1"}"#;
        assert_eq!(read(after).unwrap()[0].name, "a");
        let secret = r#"{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"a"}},{"kind":"Secret","metadata":{"name":"s"}}]}"#;
        assert_eq!(
            read(secret).unwrap_err().message,
            "the answer was a List with an item of kind Secret, not a list of Node objects"
        );
        let unnamed = r#"{"kind":"List","apiVersion":"v1","items":[{"metadata":{"name":"a"}}]}"#;
        assert_eq!(
            read(unnamed).unwrap_err().message,
            "the answer was a List with an item of no kind, not a list of Node objects"
        );
        let status = r#"{"kind":"Status","apiVersion":"v1","status":"Success","items":[]}"#;
        assert_eq!(
            read(status).unwrap_err().message,
            "the answer was v1 Status (Success), not v1 NodeList"
        );
    }
}
