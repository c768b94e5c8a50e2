//! The one bounded worker pool, and the bounds of a run (SPEC §9 "Bounded per run"): API
//! reads, ssh connections and the fleet's previews run their work items on at most N scoped
//! std threads that pull the next item from a shared counter, whatever the cluster or
//! inventory holds. No global pool, no async runtime: the threads live exactly as long as the
//! call, and a thread the OS refuses never panics (the items run on fewer threads, or on the
//! caller's own).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Most API reads (GETs through the proxy) of one stack in flight at once, whatever the
/// number of workloads, namespaces or custom types: 2500 Deployments mid-rollout used to be
/// 2500 GETs and ~2400 threads at once.
pub const API_READS_IN_FLIGHT: usize = 16;
/// Most ssh connections of one run at once, all hosts together (201 hosts were ~800 ssh);
/// one host gets at most `read::hosts::MAX_SSH_PER_HOST` of them.
pub const SSH_IN_FLIGHT: usize = 8;
/// Stacks a fleet (`preview --all`) previews at once per core ...
pub const STACKS_PER_CORE: usize = 4;
/// ... and at most this many, whatever the machine.
pub const MAX_STACKS: usize = 16;

/// `f` over every item on at most `max` threads (at least one), the results in the items'
/// order. An item whose worker panicked has `None` (the worker's other results are lost
/// with it); the panic does not cross this call. When the OS refuses a thread (a tight
/// `ulimit -v`, a thread limit), the items run on the workers already started, or on the
/// calling thread when there is none: slower, never a panic.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    max: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<R>> = items.iter().map(|_| None).collect();
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(item) = items.get(i) else { break };
            done.push((i, f(item)));
        }
        done
    };
    std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for _ in 0..items.len().min(max.max(1)) {
            match std::thread::Builder::new().spawn_scoped(scope, work) {
                Ok(w) => workers.push(w),
                Err(_) => break,
            }
        }
        let mut results: Vec<Vec<(usize, R)>> = Vec::new();
        if workers.is_empty() {
            results.push(work());
        }
        for worker in workers {
            results.push(worker.join().unwrap_or_default());
        }
        for (i, r) in results.into_iter().flatten() {
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(r);
            }
        }
    });
    out
}

/// `side()` on a scoped thread while `main()` runs on this one, both results (`None`: `side`
/// panicked). When the OS refuses the thread, `side()` runs here after `main()`: slower,
/// never a panic.
pub fn beside<S: Send, M>(
    side: impl FnOnce() -> S + Send,
    main: impl FnOnce() -> M,
) -> (Option<S>, M) {
    let cell = std::sync::Mutex::new(Some(side));
    let run = || {
        let f = cell.lock().ok().and_then(|mut c| c.take());
        f.map(|f| f())
    };
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new().spawn_scoped(scope, run);
        let m = main();
        let s = match handle {
            Ok(h) => h.join().ok().flatten(),
            Err(_) => run(),
        };
        (s, m)
    })
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

    #[test]
    fn beside_runs_both_and_keeps_a_panic_inside() {
        let (side, main) = beside(|| 1 + 1, || "main");
        assert_eq!((side, main), (Some(2), "main"));
        let (side, main) = beside(|| -> u8 { panic!("boom") }, || 3);
        assert_eq!((side, main), (None, 3));
    }
}
