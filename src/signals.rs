//! What nestor leaves behind when a signal ends it: nothing. SIGINT, SIGTERM and SIGHUP first
//! kill every live child nestor owns (the read path's `kubectl proxy` and every one-shot
//! kubectl, limactl or ssh while it runs: a process group, or the process itself for ssh,
//! which stays in the terminal's group), then remove the temporary file of a write in
//! progress (a snapshot, a kubeconfig, a topology edit: the target is only ever replaced by
//! an atomic rename, so an interrupted write must not leave its temp file either) and the
//! proxy's private socket directory with what it holds, then take
//! their default action, so nestor still dies of the signal. A handler may only touch
//! atomics and make async-signal-safe system calls: the registries are fixed arrays of
//! atomics, the temp paths leaked C strings.

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Once;

/// Live children, as kill(2) addresses them: `-pgid` for a process group, `pid` for a lone
/// process (0 = free slot). Wide enough for the fleet's proxies and one-shot kubectls and
/// the host reads' ssh running at once.
static CHILDREN: [AtomicI32; 128] = [const { AtomicI32::new(0) }; 128];
/// Temporary files being written, and the files of a private directory (null = free slot).
/// Wide enough for the fleet's proxies, one per stack, at most 16 at once.
static TEMPS: [AtomicPtr<libc::c_char>; 64] = [const { AtomicPtr::new(std::ptr::null_mut()) }; 64];
/// Private directories, removed once their files are (null = free slot).
static DIRS: [AtomicPtr<libc::c_char>; 32] = [const { AtomicPtr::new(std::ptr::null_mut()) }; 32];
static INSTALL: Once = Once::new();
/// Spawns in progress (between spawn and tracking), and a signal that arrived meanwhile on
/// any thread: it waits until the child is tracked (the last `Held` re-raises it).
static SPAWNING: AtomicUsize = AtomicUsize::new(0);
static PENDING: AtomicI32 = AtomicI32::new(0);

/// A spawn in progress, from just before the spawn until the child is tracked: a signal
/// caught meanwhile, on any thread (this one included), is only marked pending, and the
/// last `Held` to go re-raises it, when the handler knows every child. No signal mask is
/// involved on purpose: a child inherits the spawning thread's mask (std does not reset it),
/// and a kubectl or ssh started with SIGINT/SIGTERM/SIGHUP blocked would ignore the
/// terminal's Ctrl-C and a plain `kill`.
pub(crate) struct Held(());

impl Held {
    pub(crate) fn new() -> Held {
        INSTALL.call_once(install);
        SPAWNING.fetch_add(1, Ordering::SeqCst);
        Held(())
    }
}

impl Default for Held {
    fn default() -> Held {
        Held::new()
    }
}

impl Drop for Held {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // The handler stores PENDING before it looks at SPAWNING: whichever order the two
        // threads run in, a deferred signal is seen here or the handler does not defer it.
        if SPAWNING.fetch_sub(1, Ordering::SeqCst) == 1 {
            let pending = PENDING.swap(0, Ordering::SeqCst);
            if pending != 0 {
                // SAFETY: raise(3) on our own process: the handler now knows every child.
                unsafe {
                    libc::raise(pending);
                }
            }
        }
    }
}

/// A child killed if a signal ends nestor, until this is dropped. Make it while a [`Held`]
/// is alive (between the spawn and the drop of the `Held`), and drop it when the child is
/// waited for.
#[derive(Debug)]
pub(crate) struct Tracked(i32);

impl Tracked {
    /// The process group led by `pid` (a child started with `process_group(0)`): a
    /// dispatcher's or wrapper's own children go with it.
    pub(crate) fn group(pid: u32) -> Tracked {
        Tracked::new(i32::try_from(pid).map_or(0, |p| -p))
    }

    /// The process `pid` alone (a child left in nestor's own process group: ssh). It gets
    /// SIGTERM, not SIGKILL, so that it can restore a terminal it was prompting on.
    pub(crate) fn process(pid: u32) -> Tracked {
        Tracked::new(i32::try_from(pid).unwrap_or(0))
    }

    fn new(target: i32) -> Tracked {
        INSTALL.call_once(install);
        if target == 0 || target == i32::MIN {
            return Tracked(0);
        }
        for slot in &CHILDREN {
            if slot
                .compare_exchange(0, target, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return Tracked(target);
            }
        }
        Tracked(0)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if self.0 == 0 {
            return;
        }
        for slot in &CHILDREN {
            if slot
                .compare_exchange(self.0, 0, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return;
            }
        }
    }
}

/// Remove the file at `path` if a signal ends nestor before [`untrack_temp`]. The path's C
/// string is leaked on purpose: a handler may still be reading it on another thread.
pub fn track_temp(path: &Path) -> Option<usize> {
    track_in(&TEMPS, path)
}

fn track_in(registry: &[AtomicPtr<libc::c_char>], path: &Path) -> Option<usize> {
    INSTALL.call_once(install);
    use std::os::unix::ffi::OsStrExt;
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    let ptr = c.into_raw();
    for (i, slot) in registry.iter().enumerate() {
        if slot
            .compare_exchange(
                std::ptr::null_mut(),
                ptr,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
        {
            return Some(i);
        }
    }
    None
}

/// The temp file was renamed into place (or removed): forget it.
pub(crate) fn untrack_temp(slot: Option<usize>) {
    if let Some(s) = slot.and_then(|i| TEMPS.get(i)) {
        s.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

/// A private directory (the read path's proxy socket directory) that a signal must not leave
/// behind: while this lives, a signal removes `files` (what nestor or its child puts in it),
/// then the directory itself. Dropping it forgets them (the owner removes the directory on
/// its normal way out).
#[derive(Debug)]
pub struct TrackedDir {
    files: Vec<Option<usize>>,
    dir: Option<usize>,
}

impl TrackedDir {
    pub fn new(dir: &Path, files: &[&Path]) -> TrackedDir {
        TrackedDir {
            files: files.iter().map(|f| track_in(&TEMPS, f)).collect(),
            dir: track_in(&DIRS, dir),
        }
    }
}

impl Drop for TrackedDir {
    fn drop(&mut self) {
        for slot in &self.files {
            untrack_temp(*slot);
        }
        if let Some(s) = self.dir.and_then(|i| DIRS.get(i)) {
            s.store(std::ptr::null_mut(), Ordering::SeqCst);
        }
    }
}

#[allow(unsafe_code)]
extern "C" fn on_signal(signal: libc::c_int) {
    // First say it is pending, then look: a `Held` dropped in between on another thread
    // still sees it (see `Held::drop`).
    PENDING.store(signal, Ordering::SeqCst);
    if SPAWNING.load(Ordering::SeqCst) > 0 {
        // A child is being spawned on another thread and not tracked yet: the spawner
        // re-raises this signal once it is.
        return;
    }
    for slot in &CHILDREN {
        let target = slot.load(Ordering::SeqCst);
        // kill(2) is async-signal-safe; rustix makes the raw system call.
        if target < 0 {
            if let Some(group) = rustix::process::Pid::from_raw(-target) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
        } else if let Some(pid) = rustix::process::Pid::from_raw(target) {
            // A lone process is ssh, which may hold the terminal with echo off (a passphrase
            // prompt): SIGTERM lets it restore the terminal before it exits; SIGKILL would not.
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
    }
    for slot in &TEMPS {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: unlink(2) is async-signal-safe; `path` is a leaked, never-freed C string.
            unsafe {
                libc::unlink(path);
            }
        }
    }
    // The directories last: empty now, unless someone else put a file there.
    for slot in &DIRS {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: rmdir(2) is async-signal-safe; `path` is a leaked, never-freed C string.
            unsafe {
                libc::rmdir(path);
            }
        }
    }
    // SAFETY: signal(2) and raise(3) are async-signal-safe: back to the default action,
    // and the signal again, so nestor ends as it would have without the handler.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Handle the three signals, except one the parent made us ignore (nohup).
#[allow(unsafe_code)]
fn install() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: sigaction(2) with zeroed, then filled structs we own; the handler only
        // makes async-signal-safe calls.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}
