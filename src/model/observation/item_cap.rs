//! One item of a streamed list is bounded before it is decoded, not after (SPEC §9 "Bounded
//! per run", issue 31 item 3): the decoders charge each item to the run's [`Budget`] once it
//! is decoded, so without this a single item whose kept field is huge (a 900 MB condition
//! message in a list of one) would be allocated whole before the charge refused it. The
//! reader under serde counts the bytes of the item being decoded and stops at what the
//! budget has left plus [`MAX_OBJECT_BYTES`]: no item can cost more than that, whatever it
//! holds. The slack keeps an ordinary item whose skipped fields are large (4 KB of a node,
//! of which 300 bytes are kept) from being refused by its text rather than by what it keeps
//! when the budget is nearly spent: the charge after decoding decides then, as before.

use std::cell::Cell;
use std::io::{self, Read};

use crate::pool::{Budget, OVER_BUDGET};

/// The largest object the API server stores: its request body limit is 3 MiB
/// (`MaxRequestBodyBytes`, etcd's own default limit is 1.5 MiB). An item's text beyond what
/// the budget has left plus this is no object a cluster holds.
pub const MAX_OBJECT_BYTES: u64 = 3 << 20;

/// The bytes the item being decoded may still take (`None`: between items, the List's own
/// framing, unbounded here — the stream's byte cap bounds it).
#[derive(Debug, Default)]
pub struct ItemCap {
    left: Cell<Option<u64>>,
    limit_mib: Cell<usize>,
}

impl ItemCap {
    /// An item starts: it may take what `budget` has left, plus [`MAX_OBJECT_BYTES`].
    pub fn open(&self, budget: &Budget) {
        self.left.set(Some(
            (budget.left() as u64).saturating_add(MAX_OBJECT_BYTES),
        ));
        self.limit_mib.set(budget.limit() >> 20);
    }

    /// The item ended (or was never bounded).
    pub fn close(&self) {
        self.left.set(None);
    }
}

/// `inner` read through `cap`: inside an item, at most the bytes the cap has left; past
/// them an I/O error whose message starts with [`OVER_BUDGET`] and names `what`.
pub struct Capped<'c, R> {
    pub inner: R,
    pub cap: &'c ItemCap,
    pub what: &'c str,
}

impl<R: Read> Read for Capped<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(left) = self.cap.left.get() else {
            return self.inner.read(buf);
        };
        if left == 0 && !buf.is_empty() {
            return Err(io::Error::other(format!(
                "{OVER_BUDGET} of {} MiB for one read of a cluster: an item of {} is larger than what the budget has left (not decoded further)",
                self.cap.limit_mib.get(),
                self.what
            )));
        }
        let room = usize::try_from(left).unwrap_or(usize::MAX).min(buf.len());
        let n = self.inner.read(&mut buf[..room])?;
        self.cap.left.set(Some(left - n as u64));
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_stops_at_what_the_budget_has_left_and_the_framing_does_not() {
        let budget = Budget::new(8);
        budget.charge(3, "x").unwrap();
        let cap = ItemCap::default();
        let text = vec![b'x'; 8 + MAX_OBJECT_BYTES as usize];
        let mut r = Capped {
            inner: &text[..],
            cap: &cap,
            what: "GET /api/v1/nodes",
        };
        let mut buf = vec![0u8; MAX_OBJECT_BYTES as usize];
        // Between items: unbounded.
        assert_eq!(r.read(&mut buf[..2]).unwrap(), 2);
        cap.open(&budget);
        // 5 left in the budget, plus the largest object.
        assert_eq!(r.read(&mut buf).unwrap(), MAX_OBJECT_BYTES as usize);
        assert_eq!(r.read(&mut buf).unwrap(), 5);
        let e = r.read(&mut buf).unwrap_err();
        assert_eq!(
            e.to_string(),
            "over nestor's memory budget of 0 MiB for one read of a cluster: an item of GET /api/v1/nodes is larger than what the budget has left (not decoded further)"
        );
        cap.close();
        assert_eq!(r.read(&mut buf).unwrap(), 1);
    }
}
