//! A gate's List answer decoded while it arrives (SPEC §9 "Bounded per run"): item by item,
//! each turned at once into the fact the rules use and charged to the run's [`Budget`]
//! before it is kept, so neither the answer's text nor a list of whole items is ever held
//! (a 10 000-node list costs what its `Node` facts cost). The shape stays as strict as
//! the whole-text decoder was: a list of another kind, an item of another kind, no `items`
//! or `items: null` is a failed read, never an empty list; a read that would cross the
//! budget is a failed read naming it.

use std::fmt;
use std::io::Read;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess};
use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Error, Result};
use crate::model::observation::item_cap::{Capped, ItemCap};
use crate::model::observation::weight;
use crate::pool::Budget;

/// The hint of a budget refusal (the read layer reports its message alone, as preview's).
const BUDGET_HINT: &str = "nestor bounds what one run keeps (SPEC §9 \"Bounded per run\"): the rules that need this read are undecided";

/// One read's decoding: its name (`GET /api/v1/nodes`, named by a budget refusal) and the
/// budget what it keeps is charged to.
#[derive(Clone, Copy)]
pub struct Charged<'a> {
    pub what: &'a str,
    pub budget: &'a Budget,
}

/// An item with its `kind` taken aside (kubectl's `List` names each item's kind).
#[derive(Deserialize)]
struct Kinded<T> {
    #[serde(default)]
    kind: Option<String>,
    #[serde(flatten)]
    item: T,
}

/// What stopped the decoding on our side (a fact that does not parse, the budget), kept whole
/// rather than as serde's text with a position.
struct Stop(Option<Error>);

/// A List of `kind` objects (`PodList`, or kubectl's `List` whose items say their kind) from
/// `reader`, each item decoded as `T` and kept as `convert(T)`, charged to `to.budget`.
pub(super) fn list_from<R, T, U>(
    reader: R,
    kind: &str,
    to: Charged<'_>,
    mut convert: impl FnMut(T) -> Result<U>,
) -> Result<Vec<U>>
where
    R: Read,
    T: DeserializeOwned,
    U: Serialize,
{
    let bad = |detail: String| {
        Error::input(
            format!("malformed {kind}List: {detail}"),
            format!("expected one JSON List of {kind} objects with `items`, as the API server serves it"),
        )
    };
    let mut stop = Stop(None);
    let mut other_item = None;
    // An item is buffered whole (its `kind` taken aside) before it is decoded: it may not
    // take more than the budget has left plus the largest object, whatever it holds.
    let cap = ItemCap::default();
    let capped = Capped {
        inner: reader,
        cap: &cap,
        what: to.what,
    };
    let mut de = serde_json::Deserializer::from_reader(capped);
    let got = ListSeed {
        kind,
        to,
        cap: &cap,
        convert: &mut convert,
        stop: &mut stop,
        other_item: &mut other_item,
        item: PhantomData::<fn() -> T>,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    if let Some(e) = stop.0 {
        return Err(e);
    }
    let (list_kind, items) = got.map_err(|e| {
        let text = e.to_string();
        match text.rsplit_once(" at line ") {
            Some((said, _)) if said.starts_with(crate::pool::OVER_BUDGET) => {
                Error::input(said, BUDGET_HINT)
            }
            Some(_) | None => bad(text),
        }
    })?;
    if list_kind != "List" && list_kind.strip_suffix("List") != Some(kind) {
        return Err(bad(format!(
            "a list of kind `{}`",
            crate::term::escape(&list_kind)
        )));
    }
    if let Some(other) = other_item {
        return Err(bad(format!(
            "an item of kind `{}`",
            crate::term::escape(&other)
        )));
    }
    Ok(items)
}

struct ListSeed<'a, T, F> {
    kind: &'a str,
    to: Charged<'a>,
    cap: &'a ItemCap,
    convert: &'a mut F,
    stop: &'a mut Stop,
    other_item: &'a mut Option<String>,
    item: PhantomData<fn() -> T>,
}

impl<'de, T, U, F> DeserializeSeed<'de> for ListSeed<'_, T, F>
where
    T: DeserializeOwned,
    U: Serialize,
    F: FnMut(T) -> Result<U>,
{
    type Value = (String, Vec<U>);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, T, U, F> de::Visitor<'de> for ListSeed<'_, T, F>
where
    T: DeserializeOwned,
    U: Serialize,
    F: FnMut(T) -> Result<U>,
{
    type Value = (String, Vec<U>);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a List document")
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let ListSeed {
            kind,
            to,
            cap,
            convert,
            stop,
            other_item,
            ..
        } = self;
        let mut list_kind = String::new();
        let mut items = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "kind" => list_kind = map.next_value()?,
                "items" if items.is_some() => return Err(de::Error::duplicate_field("items")),
                "items" => {
                    items = Some(map.next_value_seed(ItemsSeed {
                        kind,
                        to,
                        cap,
                        convert: &mut *convert,
                        stop: &mut *stop,
                        other_item: &mut *other_item,
                        item: PhantomData,
                    })?)
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let items = items.ok_or_else(|| de::Error::missing_field("items"))?;
        Ok((list_kind, items))
    }
}

struct ItemsSeed<'a, T, F> {
    kind: &'a str,
    to: Charged<'a>,
    cap: &'a ItemCap,
    convert: &'a mut F,
    stop: &'a mut Stop,
    other_item: &'a mut Option<String>,
    item: PhantomData<fn() -> T>,
}

impl<'de, T, U, F> DeserializeSeed<'de> for ItemsSeed<'_, T, F>
where
    T: DeserializeOwned,
    U: Serialize,
    F: FnMut(T) -> Result<U>,
{
    type Value = Vec<U>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T, U, F> de::Visitor<'de> for ItemsSeed<'_, T, F>
where
    T: DeserializeOwned,
    U: Serialize,
    F: FnMut(T) -> Result<U>,
{
    type Value = Vec<U>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Vec<U>, A::Error> {
        let mut out = Vec::new();
        loop {
            self.cap.open(self.to.budget);
            let next = seq.next_element::<Kinded<T>>();
            self.cap.close();
            let Some(k) = next? else {
                break;
            };
            match k.kind {
                Some(other) if other != self.kind => {
                    // The list is refused: nothing more is kept, the rest only checked.
                    self.other_item.get_or_insert(other);
                    continue;
                }
                Some(_) | None => {}
            }
            if self.other_item.is_some() {
                continue;
            }
            let kept = match (self.convert)(k.item) {
                Ok(kept) => kept,
                Err(e) => {
                    self.stop.0 = Some(e);
                    return Err(de::Error::custom("stopped"));
                }
            };
            if let Err(said) = self.to.budget.charge(weight(&kept), self.to.what) {
                self.stop.0 = Some(Error::input(said, BUDGET_HINT));
                return Err(de::Error::custom("stopped"));
            }
            out.push(kept);
        }
        Ok(out)
    }
}

/// How many items a List holds, whatever its kind (ending in `List`), each skipped unread
/// as it arrives.
pub(super) fn count_from<R: Read>(reader: R) -> Result<usize> {
    struct Count(usize);
    impl<'de> Deserialize<'de> for Count {
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Count, D::Error> {
            struct V;
            impl<'de> de::Visitor<'de> for V {
                type Value = Count;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a sequence")
                }
                fn visit_seq<A: SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> std::result::Result<Count, A::Error> {
                    let mut n = 0;
                    while seq.next_element::<IgnoredAny>()?.is_some() {
                        n += 1;
                    }
                    Ok(Count(n))
                }
            }
            d.deserialize_seq(V)
        }
    }
    #[derive(Deserialize)]
    struct AnyList {
        kind: String,
        items: Count,
    }
    let mut de = serde_json::Deserializer::from_reader(reader);
    let got = AnyList::deserialize(&mut de).and_then(|l| de.end().map(|()| l));
    match got {
        Ok(l) if l.kind.ends_with("List") => Ok(l.items.0),
        Ok(l) => Err(Error::input(
            format!("a list of kind `{}`", crate::term::escape(&l.kind)),
            "expected a JSON List with `items`, as the API server serves it",
        )),
        Err(e) => Err(Error::input(
            format!("malformed list: {e}"),
            "expected a JSON List with `items`, as the API server serves it",
        )),
    }
}

/// The most a small text answer holds: `/readyz?verbose` is a line per check (a few KB), a
/// Rook pool list a few objects. A 40 MB `/readyz` once took 161 MiB (issue 49).
pub const MAX_TEXT_BYTES: usize = 4 << 20;

/// A small text answer (`/readyz?verbose`, one named object), read whole but charged to the
/// budget chunk by chunk before it is held, and refused past [`MAX_TEXT_BYTES`]: one huge
/// answer is a failed read before it is kept.
pub fn text_from<R: Read>(mut reader: R, to: Charged<'_>) -> Result<String> {
    let mut held = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let n = reader.read(&mut chunk).map_err(|e| {
            Error::input(
                format!("{}: the answer could not be read: {e}", to.what),
                "retry; `kubectl nestor gate ... -v` traces each read",
            )
        })?;
        if n == 0 {
            break;
        }
        if held.len() + n > MAX_TEXT_BYTES {
            return Err(Error::input(
                format!(
                    "{}: answer over {} MiB: not read (it is a few KB on any cluster)",
                    to.what,
                    MAX_TEXT_BYTES >> 20
                ),
                BUDGET_HINT,
            ));
        }
        to.budget
            .charge(n, to.what)
            .map_err(|said| Error::input(said, BUDGET_HINT))?;
        held.extend_from_slice(chunk.get(..n).unwrap_or_default());
    }
    Ok(String::from_utf8_lossy(&held).into_owned())
}
