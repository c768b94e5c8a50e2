//! What a gate reads besides typed Lists (those go through `model::observation`'s one List
//! decoder, `decode_list_try`): a removed API's list, only counted, and a small text answer
//! (`/readyz?verbose`, Rook's pool lists) held whole but charged to the run's [`Budget`]
//! chunk by chunk and refused past [`MAX_TEXT_BYTES`].

use std::fmt;
use std::io::Read;

use serde::de::{self, IgnoredAny, SeqAccess};
use serde::{Deserialize, Deserializer};

use crate::error::{Error, Result};
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
