//! One list item of `detect:` / `healthy:`, decoded key by key (the serde-tagged raw check
//! of issue 30 item 2): the item's kind key (`workload:`, `distinctNodes:`, ...) says which
//! kind's raw form its value is decoded as — through the kind table, no per-kind field —,
//! beside `name:`, `why:` and the keys of a flat `resource:` check. Decoding streams through
//! the YAML deserializer, so an error inside a kind's value keeps its line and column; an
//! unknown key is refused with the list of valid ones (the did-you-mean of `parse.rs`).

use std::sync::LazyLock;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, Visitor};

use super::*;

/// How one check kind is decoded: its raw form in the catalog YAML (unknown keys refused)
/// and the validation that turns it into the typed check, with a message that says what to
/// write instead. Implemented on each kind's typed check.
pub(in crate::model::catalog) trait Decode: Sized {
    type Raw: DeserializeOwned + 'static;
    /// `item` holds the item's other keys (only a flat `resource:` check has any).
    fn decode(raw: Self::Raw, item: Item) -> std::result::Result<Self, String>;
}

/// The keys of a flat `resource:` check, each spelled once: `field: Type = "key"`. Writes
/// [`Item`], its `resource_key`, its decoding of these keys and [`FLAT_KEYS`].
macro_rules! flat_resource_keys {
    ($($field:ident: $ty:ty = $key:literal,)*) => {
        /// The keys of a list item beside its kind's: `namespace:` (a check of its own, or a
        /// `resource:` check's scope) and a flat `resource:` check's.
        #[derive(Default)]
        pub(in crate::model::catalog) struct Item {
            pub namespace: Option<String>,
            $(pub $field: Option<$ty>,)*
        }

        impl Item {
            /// The first flat-`resource:` key set, in the order the keys are listed.
            pub(super) fn resource_key(&self) -> Option<&'static str> {
                [$(($key, self.$field.is_some()),)*]
                    .into_iter()
                    .find_map(|(key, set)| set.then_some(key))
            }

            /// Decodes the value of `key` when it is a flat-`resource:` key; `false` when
            /// it is none of them.
            fn set_flat<'de, A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> std::result::Result<bool, A::Error> {
                match key {
                    $($key => set(&mut self.$field, map, $key).map(|()| true),)*
                    _ => Ok(false),
                }
            }
        }

        /// The flat-`resource:` keys, in their order.
        const FLAT_KEYS: &[&str] = &[$($key,)*];
    };
}

flat_resource_keys! {
    kind: String = "kind",
    object: String = "object",
    field: String = "field",
    in_: Vec<Scalar> = "in",
    not_in: Vec<Scalar> = "notIn",
    equals: Scalar = "equals",
    equals_field: String = "equalsField",
    exists: bool = "exists",
    min_validity: String = "minValidity",
    max_age: String = "maxAge",
}

/// A kind's value, decoded, waiting for the item's other keys to be validated.
pub(super) type Pending = Box<dyn FnOnce(Item) -> std::result::Result<CheckKind, String>>;

/// A list item as written: its name and reason, its other keys, and each kind key it gives
/// (more than one is refused once the whole item is read).
pub(in crate::model::catalog) struct RawCheck {
    pub name: Option<String>,
    pub why: Option<String>,
    pub item: Item,
    pub given: Vec<(CheckKey, Pending)>,
}

/// Every key a list item may hold, in the order an unknown key's message lists them: the
/// kinds in table order with a flat `resource:` check's keys after `resource`, then `why`.
static KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut keys = vec![];
    for key in <CheckKey as strum::VariantArray>::VARIANTS {
        keys.push(key.as_str());
        if *key == CheckKey::Resource {
            // Every item's `name:` after `kind`, where the derived struct once listed it.
            keys.push(FLAT_KEYS[0]);
            keys.push("name");
            keys.extend(&FLAT_KEYS[1..]);
        }
    }
    keys.push("why");
    keys
});

/// Which key a list item's key is.
enum Key {
    Kind(CheckKey),
    Other(&'static str),
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Key, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Key, E> {
        if let Some(kind) = <CheckKey as strum::VariantArray>::VARIANTS
            .iter()
            .find(|k| k.as_str() == v)
        {
            return Ok(Key::Kind(*kind));
        }
        match KEYS.iter().find(|k| **k == v) {
            Some(k) => Ok(Key::Other(k)),
            None => Err(E::unknown_field(v, &KEYS)),
        }
    }
}

/// A kind's value decoded as `T`'s raw form; `None` for a key without a value (`null`),
/// which gives no check, as an absent key.
fn pending<'de, T: Decode + 'static, A: MapAccess<'de>>(
    map: &mut A,
    wrap: fn(T) -> CheckKind,
) -> std::result::Result<Option<Pending>, A::Error> {
    Ok(map
        .next_value::<Option<T::Raw>>()?
        .map(|raw| Box::new(move |item| T::decode(raw, item).map(wrap)) as Pending))
}

/// The kind table's callback: one arm per kind, decoding the value as its raw form.
macro_rules! decode_arms {
    ({ $key:expr, $map:expr } $( $(#[$meta:meta])* $variant:ident($check:ty), )*) => {
        match $key {
            $( CheckKey::$variant => pending::<$check, _>($map, CheckKind::$variant), )*
        }
    };
}

fn set<'de, T: serde::Deserialize<'de>, A: MapAccess<'de>>(
    slot: &mut Option<T>,
    map: &mut A,
    key: &'static str,
) -> std::result::Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(key));
    }
    *slot = map.next_value()?;
    Ok(())
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = RawCheck;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("struct RawCheck")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<RawCheck, A::Error> {
        let mut raw = RawCheck {
            name: None,
            why: None,
            item: Item::default(),
            given: vec![],
        };
        let mut seen: Vec<CheckKey> = vec![];
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let i = &mut raw.item;
            match key {
                // `namespace:` is a check of its own or a `resource:` check's scope: which
                // one is known once the whole item is read (`into_kind`).
                Key::Kind(CheckKey::Namespace) => set(&mut i.namespace, &mut map, "namespace")?,
                Key::Kind(kind) => {
                    if seen.contains(&kind) {
                        return Err(de::Error::duplicate_field(kind.as_str()));
                    }
                    seen.push(kind);
                    if let Some(p) = check_kinds!(decode_arms { kind, &mut map })? {
                        raw.given.push((kind, p));
                    }
                }
                Key::Other("name") => set(&mut raw.name, &mut map, "name")?,
                Key::Other("why") => set(&mut raw.why, &mut map, "why")?,
                Key::Other(other) => {
                    if !i.set_flat(other, &mut map)? {
                        return Err(de::Error::unknown_field(other, &KEYS));
                    }
                }
            }
        }
        Ok(raw)
    }
}

impl<'de> serde::Deserialize<'de> for RawCheck {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_map(ItemVisitor)
    }
}
