//! What this process used: CPU time and peak memory from getrusage(2), for `-v` and
//! `scripts/bench.sh`. Not a spawner: it only asks the kernel about nestor itself.

use std::time::Duration;

/// What this process itself used so far (not its children): CPU time and peak resident
/// memory, from getrusage(2). `-v` prints it at the end of a run; `scripts/bench.sh` reads it.
///
/// Run as `kubectl nestor`, this process began as kubectl, which exec'd nestor: the kernel
/// keeps counting CPU time (and getrusage's peak RSS) across exec. Hence [`Usage::since`]
/// for the CPU, and the peak RSS of nestor's own memory image (`VmHWM`) on Linux.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub user: Duration,
    pub system: Duration,
    /// Peak resident set size in KiB.
    pub max_rss_kib: u64,
}

impl Usage {
    /// The CPU time used since `earlier` (the peak RSS is kept as is).
    pub fn since(self, earlier: Usage) -> Usage {
        Usage {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
            max_rss_kib: self.max_rss_kib,
        }
    }
}

/// `VmHWM` of /proc/self/status: the peak RSS of this memory image, reset by exec.
fn peak_rss_of_image() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[allow(unsafe_code)]
fn rusage(who: libc::c_int) -> Option<Usage> {
    // SAFETY: getrusage(2) only writes into the zeroed struct we own.
    let mut raw: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut raw) } != 0 {
        return None;
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    let rss = u64::try_from(raw.ru_maxrss).unwrap_or(0);
    Some(Usage {
        user: time(raw.ru_utime),
        system: time(raw.ru_stime),
        // Linux counts KiB, macOS bytes.
        max_rss_kib: if cfg!(target_os = "macos") {
            rss / 1024
        } else {
            rss
        },
    })
}

/// [`Usage`] of this process alone (CPU since the process began, even before an exec).
pub fn own_usage() -> Option<Usage> {
    rusage(libc::RUSAGE_SELF).map(|u| Usage {
        max_rss_kib: peak_rss_of_image().unwrap_or(u.max_rss_kib),
        ..u
    })
}

/// [`Usage`] of the children waited for (CPU summed, RSS of the largest).
pub fn children_usage() -> Option<Usage> {
    rusage(libc::RUSAGE_CHILDREN)
}

/// When `run` began (set by [`mark_start`]; the first call to [`since_start`] otherwise).
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Remember now as the start of the run: `-v`'s `step:` lines count from here.
pub fn mark_start() {
    let _ = STARTED.get_or_init(std::time::Instant::now);
}

/// The time since [`mark_start`].
pub fn since_start() -> Duration {
    STARTED.get_or_init(std::time::Instant::now).elapsed()
}
