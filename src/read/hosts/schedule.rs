//! The host reads' scheduler (SPEC §9 "Bounded per run"): every check of every host on at
//! most [`crate::pool::SSH_IN_FLIGHT`] workers, so at most that many ssh at once whatever the
//! inventory holds, and at most [`super::MAX_SSH_PER_HOST`] of them to one host. Hosts are
//! taken in turn (the first check of each host, then the second, ...), so that a host found
//! down early spares its other checks a timeout each.

use std::sync::{Condvar, Mutex, MutexGuard};

use crate::model::observation::{FailureKind, ReadFailure};

/// Which check of which host runs next, and how many of each host are running.
struct Board {
    /// Per host: the next check not started yet, and the checks running now.
    next: Vec<usize>,
    running: Vec<usize>,
    /// Checks not started yet, all hosts together.
    left: usize,
    /// Where the next search for a host starts (hosts in turn).
    cursor: usize,
}

impl Board {
    /// The next `(host, check)` that may start now: `None` when every check has started,
    /// `Some(None)` when the hosts left are all at their own bound.
    fn take(&mut self, counts: &[usize], per_host: usize) -> Option<Option<(usize, usize)>> {
        if self.left == 0 {
            return None;
        }
        let n = counts.len();
        for step in 0..n {
            let h = (self.cursor + step) % n;
            let (Some(next), Some(running), Some(count)) =
                (self.next.get(h), self.running.get(h), counts.get(h))
            else {
                continue;
            };
            if next < count && *running < per_host {
                let c = *next;
                self.next[h] += 1;
                self.running[h] += 1;
                self.left -= 1;
                self.cursor = h + 1;
                return Some(Some((h, c)));
            }
        }
        Some(None)
    }
}

/// Gives a host's slot back when its check is done, even if the check panicked.
struct Slot<'a> {
    board: &'a Mutex<Board>,
    freed: &'a Condvar,
    host: usize,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Ok(mut b) = self.board.lock() {
            if let Some(r) = b.running.get_mut(self.host) {
                *r = r.saturating_sub(1);
            }
        }
        self.freed.notify_all();
    }
}

/// `f(host, check)` for every check of every host (`counts[host]` checks each), on at most
/// `workers` threads and at most `per_host` of one host at a time; the results by host, in
/// check order (`None` for a check whose worker panicked). A thread the OS refuses is not a
/// panic: the checks run on the workers started, or on the calling thread.
pub(super) fn run_all<R: Send>(
    counts: &[usize],
    workers: usize,
    per_host: usize,
    f: impl Fn(usize, usize) -> R + Sync,
) -> Vec<Vec<Option<R>>> {
    let per_host = per_host.max(1);
    let board = Mutex::new(Board {
        next: vec![0; counts.len()],
        running: vec![0; counts.len()],
        left: counts.iter().sum(),
        cursor: 0,
    });
    let freed = Condvar::new();
    let work = || {
        let mut done: Vec<(usize, usize, R)> = Vec::new();
        let lock = || {
            board
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        let mut b: MutexGuard<'_, Board> = lock();
        loop {
            match b.take(counts, per_host) {
                None => break,
                Some(None) => {
                    b = freed
                        .wait(b)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                }
                Some(Some((host, check))) => {
                    drop(b);
                    let slot = Slot {
                        board: &board,
                        freed: &freed,
                        host,
                    };
                    done.push((host, check, f(host, check)));
                    drop(slot);
                    b = lock();
                }
            }
        }
        done
    };
    let mut out: Vec<Vec<Option<R>>> = counts
        .iter()
        .map(|n| (0..*n).map(|_| None).collect())
        .collect();
    let total: usize = counts.iter().sum();
    let results: Vec<Vec<(usize, usize, R)>> = std::thread::scope(|scope| {
        let mut started = Vec::new();
        for _ in 0..total.min(workers.max(1)) {
            if !crate::pool::room_for_a_thread(None) {
                break;
            }
            match std::thread::Builder::new().spawn_scoped(scope, work) {
                Ok(w) => started.push(w),
                Err(_) => break,
            }
        }
        if started.is_empty() {
            return vec![work()];
        }
        started
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    for (host, check, r) in results.into_iter().flatten() {
        if let Some(slot) = out.get_mut(host).and_then(|h| h.get_mut(check)) {
            *slot = Some(r);
        }
    }
    out
}

/// [`run_all`] of the ssh reads with the run's bounds ([`crate::pool::SSH_IN_FLIGHT`], and
/// [`super::MAX_SSH_PER_HOST`] to one host): `f(host, job)` for every job of every host, the
/// results by host in job order. Once an ssh finds a host unreachable, refusing or out of time
/// ([`host_down`]), that host's jobs not yet started get that failure instead of
/// waiting out another timeout; a job whose worker panicked is a failed read saying so.
pub(super) fn run_ssh<T: Send>(
    counts: &[usize],
    f: impl Fn(usize, usize) -> Result<T, ReadFailure> + Sync,
) -> Vec<Vec<Result<T, ReadFailure>>> {
    let panicked = || ReadFailure::new(FailureKind::ApiError, "the ssh thread panicked");
    let down: Vec<Mutex<Option<ReadFailure>>> = counts.iter().map(|_| Mutex::new(None)).collect();
    let runs = run_all(
        counts,
        crate::pool::SSH_IN_FLIGHT,
        super::MAX_SSH_PER_HOST,
        |h, j| {
            let Some(down) = down.get(h) else {
                return Err(panicked());
            };
            let known = down.lock().map(|d| d.clone()).unwrap_or(None);
            let r = match known {
                Some(failure) => Err(failure),
                None => f(h, j),
            };
            if let Err(e) = &r {
                if host_down(e) {
                    if let Ok(mut d) = down.lock() {
                        d.get_or_insert_with(|| e.clone());
                    }
                }
            }
            r
        },
    );
    runs.into_iter()
        .map(|host| {
            host.into_iter()
                .map(|r| r.unwrap_or_else(|| Err(panicked())))
                .collect()
        })
        .collect()
}

/// A failure that says the host, not the check, cannot be read: the schedule stops that
/// host's other jobs on it.
pub(super) fn host_down(f: &ReadFailure) -> bool {
    matches!(
        f.kind,
        FailureKind::Unreachable | FailureKind::Timeout | FailureKind::Unauthorized
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn never_more_than_the_bounds_and_every_result_in_place() {
        // 40 hosts of 3 checks and one of 12: 8 at once overall, 4 of one host.
        let mut counts = vec![3; 40];
        counts.push(12);
        let total = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let on_big = AtomicUsize::new(0);
        let peak_big = AtomicUsize::new(0);
        let got = run_all(&counts, 8, 4, |h, c| {
            let now = total.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            if h == 40 {
                let b = on_big.fetch_add(1, Ordering::SeqCst) + 1;
                peak_big.fetch_max(b, Ordering::SeqCst);
            }
            std::thread::sleep(Duration::from_millis(if h == 40 { 30 } else { 2 }));
            if h == 40 {
                on_big.fetch_sub(1, Ordering::SeqCst);
            }
            total.fetch_sub(1, Ordering::SeqCst);
            h * 100 + c
        });
        assert_eq!(peak.load(Ordering::SeqCst), 8);
        assert_eq!(peak_big.load(Ordering::SeqCst), 4);
        let want: Vec<Vec<Option<usize>>> = counts
            .iter()
            .enumerate()
            .map(|(h, n)| (0..*n).map(|c| Some(h * 100 + c)).collect())
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn one_host_alone_gets_its_own_bound_and_a_panic_stays_inside() {
        let running = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let got = run_all(&[10], 8, 4, |_, c| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(10));
            running.fetch_sub(1, Ordering::SeqCst);
            c
        });
        assert_eq!(peak.load(Ordering::SeqCst), 4);
        assert_eq!(got, vec![(0..10).map(Some).collect::<Vec<_>>()]);
        // A panicking check frees its host's slot: the others still run (on fewer workers).
        let got = run_all(&[3, 0, 2], 2, 1, |h, c| {
            assert!(!(h == 0 && c == 0), "boom");
            h * 10 + c
        });
        assert_eq!(got.get(1), Some(&vec![]));
        assert!(got.iter().flatten().filter(|r| r.is_some()).count() >= 2);
        assert!(run_all(&[], 8, 4, |h, _| h).is_empty());
    }
}
