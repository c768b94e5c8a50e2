//! The leash (SPEC §18 "macOS processes"): no child outlives nestor, even when nestor is
//! killed with SIGKILL or crashes, on any Unix, without a parent-death signal (Linux's
//! `PR_SET_PDEATHSIG` is only an extra there; macOS has none). Before a child execs, it forks
//! a tiny watchdog that stays in the child's process group and blocks reading a pipe whose
//! only write end nestor holds (close-on-exec, so no exec'd child holds it). When nestor ends,
//! however it ends, the kernel closes that end: the watchdog reads EOF and kills the child's
//! group (SIGKILL), or the child alone with SIGTERM for ssh, which shares nestor's group. The
//! watchdog runs no program and spawns nothing: between fork and `_exit` it only makes
//! async-signal-safe system calls (signal, close, read, kill, getppid, getpgrp), having
//! closed every other descriptor first (it must never hold another child's pipes).

use std::os::fd::{AsRawFd, RawFd};

/// The write end of a child's leash: drop it once the child is reaped (its watchdog then
/// ends, killing only what is left of the child's group).
#[derive(Debug)]
pub(crate) struct Leash {
    _write: os_pipe::PipeWriter,
    read: os_pipe::PipeReader,
}

impl Leash {
    pub(crate) fn new() -> std::io::Result<Leash> {
        let (read, write) = os_pipe::pipe()?;
        Ok(Leash {
            _write: write,
            read,
        })
    }

    /// The descriptor [`arm`] passes on (the read end; the leash keeps it open).
    pub(crate) fn fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }
}

/// Arm `command` with the leash whose [`Leash::fd`] is `fd`: its child forks the watchdog
/// before it execs. `own_group`: the child leads a process group of its own
/// (`process_group(0)`), which the watchdog kills whole.
#[allow(unsafe_code)]
pub(crate) fn arm(command: &mut std::process::Command, fd: RawFd, own_group: bool) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec; it and the watchdog it
    // forks only make async-signal-safe system calls and allocate nothing.
    unsafe {
        command.pre_exec(move || fork_watchdog(fd, own_group));
    }
}

/// In the child, before exec: fork the watchdog (which never returns).
#[allow(unsafe_code)]
fn fork_watchdog(fd: RawFd, own_group: bool) -> std::io::Result<()> {
    // SAFETY: getpid(2) and fork(2) are async-signal-safe; the watchdog branch never returns.
    unsafe {
        let child = libc::getpid();
        match libc::fork() {
            -1 => Err(std::io::Error::last_os_error()),
            0 => watch(fd, child, own_group),
            _ => Ok(()),
        }
    }
}

/// The watchdog: wait for the end of nestor's write end, then kill the child.
#[allow(unsafe_code)]
unsafe fn watch(fd: RawFd, child: libc::pid_t, own_group: bool) -> ! {
    // SAFETY (whole body): async-signal-safe calls on our own descriptors and processes.
    unsafe {
        // nestor's handlers were inherited (no exec here): the defaults back, and neither the
        // terminal's Ctrl-C nor a hangup ends the watchdog before its child.
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
        close_all_but(fd);
        let mut byte = [0u8; 1];
        loop {
            let n = libc::read(fd, byte.as_mut_ptr().cast(), 1);
            // errno as std reads it on every unix (no allocation: an `Os` error is a code).
            let interrupted = std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR);
            if n == 0 || (n < 0 && !interrupted) {
                break;
            }
        }
        // The group only if the child really leads it (never nestor's own group); the child
        // alone only while it is still our parent (not a pid reused since).
        if own_group && libc::getpgrp() == child {
            libc::kill(-child, libc::SIGKILL);
        } else if libc::getppid() == child {
            libc::kill(
                child,
                if own_group {
                    libc::SIGKILL
                } else {
                    libc::SIGTERM
                },
            );
        }
        libc::_exit(0)
    }
}

/// Close every descriptor but `keep`: the child's stdio (nestor reads those to their end)
/// and whatever other pipes the fork copied.
#[allow(unsafe_code)]
unsafe fn close_all_but(keep: RawFd) {
    // SAFETY: getrlimit(2) and close(2) are async-signal-safe.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur.min(1 << 16) as RawFd
        } else {
            1024
        };
        #[cfg(target_os = "linux")]
        {
            // close_range(2) (Linux 5.9): two calls instead of up to 65536; the loop below
            // is the fallback when the kernel has none.
            let below = keep == 0
                || libc::syscall(libc::SYS_close_range, 0u32, (keep - 1) as u32, 0u32) == 0;
            let above =
                libc::syscall(libc::SYS_close_range, (keep + 1) as u32, u32::MAX, 0u32) == 0;
            if below && above {
                return;
            }
        }
        for fd in 0..max {
            if fd != keep {
                libc::close(fd);
            }
        }
    }
}
