//! The one bounded worker pool, and the bounds of a run (SPEC §9 "Bounded per run"): API
//! reads, ssh connections and the fleet's previews run their work items on at most N scoped
//! std threads that pull the next item from a shared counter, whatever the cluster or
//! inventory holds. No global pool, no async runtime: the threads live exactly as long as the
//! call, and a thread the OS refuses never panics (the items run on fewer threads, or on the
//! caller's own). The memory a batch of reads keeps is bounded the same way: one [`Budget`]
//! its decoders charge as they keep each item.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Most API reads (GETs through the proxy) of one stack in flight at once, whatever the
/// number of workloads, namespaces or custom types: 2500 Deployments mid-rollout used to be
/// 2500 GETs and ~2400 threads at once. Large enough that a round goes out at once (SPEC
/// §11): the full catalog's first round is 57 GETs, the SPEC §1 stack's 45; at 16 in flight they
/// were three and four waves of the server's latency one after the other. They are sent at
/// once and read by at most [`READ_THREADS`] threads.
pub const API_READS_IN_FLIGHT: usize = 64;
/// Most threads reading API answers at once, per pool: the requests of a round are all sent
/// first (at most [`API_READS_IN_FLIGHT`]), these threads read and decode their answers as
/// they come (a thread per request in flight was 45 threads for one preview, and under a
/// tight `ulimit -v` glibc aborted a run that could not register a thread).
pub const READ_THREADS: usize = 16;
/// The stack of each API read thread: a read decodes its answer as it arrives (serde_json
/// refuses nesting past 128 levels), nothing deeper than that.
pub const READ_THREAD_STACK: usize = 1 << 20;
/// Most ssh connections of one run at once, all hosts together (201 hosts were ~800 ssh);
/// one host gets at most `read::hosts::MAX_SSH_PER_HOST` of them.
pub const SSH_IN_FLIGHT: usize = 8;
/// Stacks a fleet (`preview --all`) previews at once per core (issue 47: at 4, ten stacks on
/// 2 cores ran as eight then two, and the last two waited on their reads with the cores idle:
/// 1.45x the fleet's floor; at 8, all ten at once, 1.17x) ...
pub const STACKS_PER_CORE: usize = 8;
/// ... and at most this many, whatever the machine.
pub const MAX_STACKS: usize = 16;
/// The second read round reads the Warning Events of at most this many namespaces per run
/// (those a degraded layer's failing objects are in, in layer order; SPEC §6 v0.4).
pub const MAX_EVENT_NAMESPACES: usize = 4;

/// Most malloc arenas of the process (glibc). glibc gives every thread that allocates
/// while the others hold theirs a new arena, up to 8 per core, and each arena reserves
/// 64 MiB of address space: 17 threads on 2 cores measured 1 GiB of address space for
/// 14 MiB of memory, and under `ulimit -v 384 MiB` a run aborted with "memory allocation of
/// 6 bytes failed". Two arenas (the main one and one shared by the workers) keep the address
/// space of a run near its memory; the workers mostly wait on pipes, so they do not contend.
pub const MALLOC_ARENAS: i32 = 2;

/// Bound the allocator's address space ([`MALLOC_ARENAS`]), first thing in a run, before
/// the run starts a thread; on a libc other than glibc (macOS, musl) there is nothing to
/// bound.
#[allow(unsafe_code)]
pub fn bound_the_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of glibc's allocator, under the allocator's own
    // lock; it reads and writes no memory of ours.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, MALLOC_ARENAS);
    }
}

/// Address space a new thread needs beyond its stack: the signal stack std maps in the thread
/// as it starts (a failure there aborts the process: it cannot be returned), its share of the
/// allocator, the 64 KiB buffer of a read. Under an address-space limit (`ulimit -v`) a thread
/// is started only while this much and its stack are left ([`room_for_a_thread`]).
const THREAD_HEADROOM: usize = 4 << 20;
/// std's stack for a thread started without a size.
const DEFAULT_THREAD_STACK: usize = 2 << 20;

/// Whether a thread with `stack` bytes (`None`: std's default) has room under the process's
/// address-space limit. With no limit (the usual case), always. A spawn the OS refuses is
/// already handled by every caller; this keeps a thread from starting with too little left for
/// the memory std maps inside the new thread, whose failure is an abort no caller can see
/// (a loaded CI run under `ulimit -v 48 MiB`: "failed to allocate an alternative stack").
pub fn room_for_a_thread(stack: Option<usize>) -> bool {
    match address_space_left() {
        None => true,
        Some(left) => left >= stack.unwrap_or(DEFAULT_THREAD_STACK) + THREAD_HEADROOM,
    }
}

/// The address space left under `RLIMIT_AS`, or `None` when there is no limit (or it cannot
/// be read: then the OS's own refusal is the only bound, as before).
fn address_space_left() -> Option<usize> {
    let limit = address_space_limit()?;
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().next()?.parse().ok()?;
    Some(limit.saturating_sub(pages.saturating_mul(page_size()?)))
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn address_space_limit() -> Option<usize> {
    static LIMIT: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one rlimit struct, ours, and reads nothing else.
        let got = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) };
        if got != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
            return None;
        }
        usize::try_from(lim.rlim_cur).ok()
    })
}

#[cfg(not(target_os = "linux"))]
fn address_space_limit() -> Option<usize> {
    None
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn page_size() -> Option<usize> {
    // SAFETY: sysconf reads a constant of the system and touches no memory of ours.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).ok().filter(|s| *s > 0)
}

#[cfg(not(target_os = "linux"))]
fn page_size() -> Option<usize> {
    None
}

/// What nestor keeps of one stack's read of a cluster, at most (SPEC §9 "Bounded per run"):
/// the decoded fields of every answer of a batch together, counted as they are decoded, and
/// the few answers still held whole (discovery, error statuses). A read that would cross it is
/// a failed read naming the read and this budget; with the threads, the 64 KiB read buffer of
/// each read in flight and the documents printed, nestor's own peak stays under 64 MiB.
pub const MEMORY_BUDGET: usize = 48 << 20;

/// Every message of a read refused by a [`Budget`] starts with this.
pub const OVER_BUDGET: &str = "over nestor's memory budget";

/// A memory budget shared by the reads of one batch (on any number of threads): each
/// decoded value is charged its weight before it is kept; a charge that would cross the
/// limit is refused, and the read that asked fails.
#[derive(Debug)]
pub struct Budget {
    used: AtomicUsize,
    limit: usize,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Budget {
        Budget {
            used: AtomicUsize::new(0),
            limit,
        }
    }

    /// Charge `bytes`; over the limit nothing is charged and the refusal says so, naming
    /// `what` (the read).
    pub fn charge(&self, bytes: usize, what: &str) -> Result<(), String> {
        let mut now = self.used.load(Ordering::Relaxed);
        loop {
            let next = now.saturating_add(bytes);
            if next > self.limit {
                return Err(format!(
                    "{OVER_BUDGET} of {} MiB for one read of a cluster: {what} not kept (it holds more than nestor keeps)",
                    self.limit >> 20
                ));
            }
            match self
                .used
                .compare_exchange_weak(now, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Ok(()),
                Err(seen) => now = seen,
            }
        }
    }

    /// The bytes that may still be charged.
    pub fn left(&self) -> usize {
        self.limit.saturating_sub(self.used())
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The bytes charged so far.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

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
    map_on(items, max, None, f)
}

/// [`map`] for API reads: each thread with a stack of [`READ_THREAD_STACK`].
pub fn map_reads<T: Sync, R: Send>(
    items: &[T],
    max: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    map_on(items, max, Some(READ_THREAD_STACK), f)
}

fn map_on<T: Sync, R: Send>(
    items: &[T],
    max: usize,
    stack: Option<usize>,
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
            if !room_for_a_thread(stack) {
                break;
            }
            let builder = std::thread::Builder::new();
            let builder = match stack {
                Some(bytes) => builder.stack_size(bytes),
                None => builder,
            };
            match builder.spawn_scoped(scope, work) {
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
        let handle = if room_for_a_thread(None) {
            std::thread::Builder::new().spawn_scoped(scope, run)
        } else {
            Err(std::io::Error::from(std::io::ErrorKind::OutOfMemory))
        };
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
    fn a_budget_refuses_what_would_cross_it_and_keeps_counting_the_rest() {
        let b = Budget::new(100);
        assert_eq!(b.charge(60, "GET /a"), Ok(()));
        assert_eq!(
            b.charge(41, "GET /api/v1/nodes"),
            Err("over nestor's memory budget of 0 MiB for one read of a cluster: GET /api/v1/nodes not kept (it holds more than nestor keeps)".to_string())
        );
        assert_eq!(b.used(), 60);
        assert_eq!(b.charge(40, "GET /b"), Ok(()));
        assert!(b.charge(1, "GET /c").is_err());
        assert!(Budget::new(MEMORY_BUDGET).charge(usize::MAX, "x").is_err());
    }

    #[test]
    fn beside_runs_both_and_keeps_a_panic_inside() {
        let (side, main) = beside(|| 1 + 1, || "main");
        assert_eq!((side, main), (Some(2), "main"));
        let (side, main) = beside(|| -> u8 { panic!("boom") }, || 3);
        assert_eq!((side, main), (None, 3));
    }
}
