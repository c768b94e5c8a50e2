//! What nestor leaves behind when a signal ends it: nothing. SIGINT, SIGTERM and SIGHUP first
//! kill every live child nestor owns (the read path's `kubectl proxy` and every one-shot
//! kubectl, limactl or ssh while it runs: a process group, or the process itself for ssh,
//! which stays in the terminal's group), then remove the temporary file of a write in
//! progress (a snapshot, a kubeconfig, a topology edit: the target is only ever replaced by
//! an atomic rename, so an interrupted write must not leave its temp file either) and the
//! proxy's private socket directory with what it holds, then take
//! their default action, so nestor still dies of the signal, within a second whatever the
//! children are doing. A handler may only touch atomics and make async-signal-safe system
//! calls: the children's registry is a chain of atomic chunks that grows (no fixed size), the
//! temp registries fixed arrays of atomics, the temp paths leaked C strings.

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Once;

/// Live children, as kill(2) addresses them: `-pgid` for a process group, `pid` for a lone
/// process (0 = free slot), in chunks of [`CHUNK`] slots chained from this first one. A chunk
/// is added (allocated outside the handler, leaked: the handler may be walking it) when every
/// slot is taken, so there is no fixed size: 594 ssh at once are 594 slots (a fixed array of
/// 128 once dropped the others silently).
static CHILDREN: Chunk = Chunk::new();
const CHUNK: usize = 64;

struct Chunk {
    slots: [AtomicI32; CHUNK],
    next: AtomicPtr<Chunk>,
}

impl Chunk {
    const fn new() -> Chunk {
        Chunk {
            slots: [const { AtomicI32::new(0) }; CHUNK],
            next: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The chunk after this one, if any.
    #[allow(unsafe_code)]
    fn next(&self) -> Option<&'static Chunk> {
        let p = self.next.load(Ordering::SeqCst);
        // SAFETY: a non-null `next` is a leaked `Box<Chunk>`: valid for the process's life.
        unsafe { p.as_ref() }
    }

    /// Every chunk, from the first.
    fn all() -> impl Iterator<Item = &'static Chunk> {
        std::iter::successors(Some(&CHILDREN), |c| c.next())
    }
}

/// A free slot set to `target`, growing the registry when every slot is taken.
fn take_slot(target: i32) -> &'static AtomicI32 {
    let mut last = &CHILDREN;
    for chunk in Chunk::all() {
        for slot in &chunk.slots {
            if slot
                .compare_exchange(0, target, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return slot;
            }
        }
        last = chunk;
    }
    // Every slot taken: a new chunk holding `target`, chained at the end (another thread may
    // chain one first: then after that one).
    let fresh: &'static Chunk = Box::leak(Box::new(Chunk::new()));
    fresh.slots[0].store(target, Ordering::SeqCst);
    let ptr = std::ptr::from_ref(fresh).cast_mut();
    loop {
        match last.next.compare_exchange(
            std::ptr::null_mut(),
            ptr,
            Ordering::SeqCst,
            Ordering::SeqCst,
        ) {
            Ok(_) => return &fresh.slots[0],
            Err(_) => {
                if let Some(n) = last.next() {
                    last = n;
                }
            }
        }
    }
}

/// Temporary files being written, and the files of a private directory (null = free slot).
/// Wide enough for the fleet's proxies, one per stack, at most 16 at once.
static TEMPS: [AtomicPtr<libc::c_char>; 64] = [const { AtomicPtr::new(std::ptr::null_mut()) }; 64];
/// Private directories, removed once their files are (null = free slot).
static DIRS: [AtomicPtr<libc::c_char>; 32] = [const { AtomicPtr::new(std::ptr::null_mut()) }; 32];
static INSTALL: Once = Once::new();
/// Spawns in progress (between spawn and tracking), and the signal being handled (0: none).
/// Once a signal is being handled no spawn starts, and the handler waits (at most
/// [`SPAWN_WAIT`]) for those in progress to track their child: it acts within a second
/// whatever the children are doing (a steady stream of ssh spawns once kept a deferred
/// signal waiting 18 s).
static SPAWNING: AtomicUsize = AtomicUsize::new(0);
static STOPPING: AtomicI32 = AtomicI32::new(0);
/// The most a handler waits for spawns in progress.
const SPAWN_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

thread_local! {
    /// This thread is between a spawn and its tracking (a handler that runs on this thread
    /// does not wait for itself).
    static IN_SPAWN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A spawn in progress, from just before the spawn until the child is tracked: a signal
/// caught meanwhile, on any thread, waits for it (briefly) before it kills the children. No
/// signal mask is involved on purpose: a child inherits the spawning thread's mask (std does
/// not reset it), and a kubectl or ssh started with SIGINT/SIGTERM/SIGHUP blocked would
/// ignore the terminal's Ctrl-C and a plain `kill`. Once a signal is being handled, a new
/// `Held` never returns: nestor is about to end, and nothing more is spawned.
pub struct Held(());

impl Held {
    pub fn new() -> Held {
        INSTALL.call_once(install);
        // Count first, then look: the handler stores STOPPING before it reads SPAWNING, so
        // either it waits for this spawn or this spawn sees it and never happens.
        SPAWNING.fetch_add(1, Ordering::SeqCst);
        if STOPPING.load(Ordering::SeqCst) != 0 {
            SPAWNING.fetch_sub(1, Ordering::SeqCst);
            loop {
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
        }
        IN_SPAWN.with(|n| n.set(n.get() + 1));
        Held(())
    }
}

impl Default for Held {
    fn default() -> Held {
        Held::new()
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        IN_SPAWN.with(|n| n.set(n.get().saturating_sub(1)));
        SPAWNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A child killed if a signal ends nestor, until this is dropped. Make it while a [`Held`]
/// is alive (between the spawn and the drop of the `Held`), and drop it when the child is
/// waited for.
#[derive(Debug)]
pub struct Tracked(Option<(&'static AtomicI32, i32)>);

impl Tracked {
    /// The process group led by `pid` (a child started with `process_group(0)`): a
    /// dispatcher's or wrapper's own children go with it.
    pub fn group(pid: u32) -> Tracked {
        Tracked::new(i32::try_from(pid).map_or(0, |p| -p))
    }

    /// The process `pid` alone (a child left in nestor's own process group: ssh). It gets
    /// SIGTERM, not SIGKILL, so that it can restore a terminal it was prompting on.
    pub fn process(pid: u32) -> Tracked {
        Tracked::new(i32::try_from(pid).unwrap_or(0))
    }

    fn new(target: i32) -> Tracked {
        INSTALL.call_once(install);
        if target == 0 || target == i32::MIN {
            return Tracked(None);
        }
        Tracked(Some((take_slot(target), target)))
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some((slot, target)) = self.0 {
            let _ = slot.compare_exchange(target, 0, Ordering::SeqCst, Ordering::SeqCst);
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
    // First say a signal is being handled (no spawn starts from now on), then wait for the
    // spawns in progress to track their child, but not for one this thread was interrupted
    // in, and never longer than SPAWN_WAIT (a child spawned and not tracked dies with nestor
    // anyway: its parent-death signal or watchdog, `read::exec::service`).
    STOPPING.store(signal, Ordering::SeqCst);
    let own = IN_SPAWN.with(std::cell::Cell::get);
    let step = libc::timespec {
        tv_sec: 0,
        tv_nsec: 5_000_000,
    };
    let steps = SPAWN_WAIT.as_millis() / 5;
    for _ in 0..steps {
        if SPAWNING.load(Ordering::SeqCst) <= own {
            break;
        }
        // SAFETY: nanosleep(2) is async-signal-safe; `step` is ours, the remainder unused.
        unsafe {
            libc::nanosleep(&step, std::ptr::null_mut());
        }
    }
    for slot in Chunk::all().flat_map(|c| c.slots.iter()) {
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
