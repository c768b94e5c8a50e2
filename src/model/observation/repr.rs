//! How a [`Read`] is saved in a snapshot: `{"ok": ...}` or `{"failed": {...}}`, readable
//! by a person and by `jq`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Read, ReadFailure};

/// The readable serialized form of a [`Read`]: `{"ok": ...}` or `{"failed": {...}}`; also
/// the JSON Schema of a `Read` field (`#[schemars(with = "ReadRepr<T>")]`).
#[derive(Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadRepr<T> {
    Ok(T),
    Failed(ReadFailure),
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum ReadReprRef<'a, T> {
    Ok(&'a T),
    Failed(&'a ReadFailure),
}

/// The JSON Schema of a map of [`Read`]s (`read_map_serde`).
pub type ReadMapRepr<T> = std::collections::BTreeMap<String, ReadRepr<T>>;

impl<'a, T> From<&'a Read<T>> for ReadReprRef<'a, T> {
    fn from(r: &'a Read<T>) -> Self {
        match r {
            Ok(v) => ReadReprRef::Ok(v),
            Err(f) => ReadReprRef::Failed(f),
        }
    }
}

impl<T> From<ReadRepr<T>> for Read<T> {
    fn from(r: ReadRepr<T>) -> Self {
        match r {
            ReadRepr::Ok(v) => Ok(v),
            ReadRepr::Failed(f) => Err(f),
        }
    }
}

/// `#[serde(with)]` helper for one [`Read`] field.
pub mod read_serde {
    use super::super::Read;
    use super::{ReadRepr, ReadReprRef};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(r: &Read<T>, s: S) -> Result<S::Ok, S::Error> {
        ReadReprRef::from(r).serialize(s)
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Read<T>, D::Error> {
        ReadRepr::deserialize(d).map(Read::from)
    }
}

/// `#[serde(with)]` helper for a map of [`Read`]s.
pub mod read_map_serde {
    use super::super::Read;
    use super::{ReadRepr, ReadReprRef};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<T: Serialize, S: Serializer>(
        m: &BTreeMap<String, Read<T>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let view: BTreeMap<&String, ReadReprRef<'_, T>> =
            m.iter().map(|(k, v)| (k, ReadReprRef::from(v))).collect();
        view.serialize(s)
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Read<T>>, D::Error> {
        let raw: BTreeMap<String, ReadRepr<T>> = BTreeMap::deserialize(d)?;
        Ok(raw.into_iter().map(|(k, v)| (k, Read::from(v))).collect())
    }
}
