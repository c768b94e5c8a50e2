//! The one bounded worker pool: the fleet's previews (`preview --all`) and the host reads
//! (hosts side by side, a few ssh per host) run their work items on at most N scoped std
//! threads that pull the next item from a shared counter. No global pool, no async runtime:
//! the threads live exactly as long as the call.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` over every item on at most `max` threads (at least one), the results in the items'
/// order. An item whose worker panicked has `None` (the worker's other results are lost
/// with it); the panic does not cross this call.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    max: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<R>> = items.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..items.len().min(max.max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            for (i, r) in worker.join().unwrap_or_default() {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(r);
                }
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u64> = (0..40).collect();
        let got = map(&items, 4, |n| {
            std::thread::sleep(Duration::from_millis(40 - n));
            n * 2
        });
        let want: Vec<Option<u64>> = items.iter().map(|n| Some(n * 2)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn never_more_than_max_at_once() {
        let (running, peak) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let items = vec![(); 24];
        map(&items, 3, |_| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            running.fetch_sub(1, Ordering::SeqCst);
        });
        assert_eq!(peak.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_panic_leaves_none_and_stays_inside() {
        let items = [1, 2, 3];
        let got = map(&items, 1, |n| {
            assert!(*n != 2, "boom");
            *n
        });
        // One worker did every item: its panic on the second loses the first too.
        assert_eq!(got, vec![None, None, None]);
        let got = map(&items, 3, |n| *n);
        assert_eq!(got, vec![Some(1), Some(2), Some(3)]);
        assert!(map(&[] as &[u8], 4, |n| *n).is_empty());
        assert_eq!(map(&[7], 0, |n| *n), vec![Some(7)]);
    }
}
