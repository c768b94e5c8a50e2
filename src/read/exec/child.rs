//! How a one-shot child's output is read and judged: each pipe read on a thread of its own
//! under a byte cap (stdout handed to its reader as it arrives), the exit status classified
//! (a signal is a failure), a group killed.

use std::io::Read;
use std::process::Output as StdOutput;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{redact, Failure, Output};

/// Read `pipe` to its end on a thread through `read`, at most `cap` bytes: one more sets
/// `overflow` (the caller kills the child) and stops reading. What `read` leaves is
/// drained (counted, never kept); its result arrives on the channel.
pub(super) fn capped_reader<T: Send + 'static>(
    pipe: os_pipe::PipeReader,
    cap: u64,
    overflow: Arc<AtomicBool>,
    read: impl FnOnce(&mut dyn Read) -> T + Send + 'static,
) -> std::io::Result<std::sync::mpsc::Receiver<T>> {
    let (tx, rx) = std::sync::mpsc::channel();
    if !crate::pool::room_for_a_thread(None) {
        return Err(std::io::Error::from_raw_os_error(libc::ENOMEM));
    }
    std::thread::Builder::new().spawn(move || {
        let mut limited = pipe.take(cap + 1);
        let got = read(&mut limited);
        let _ = std::io::copy(&mut limited, &mut std::io::sink());
        if limited.limit() == 0 {
            overflow.store(true, Ordering::SeqCst);
        }
        // The pipe is closed only now, after the flag: the child's SIGPIPE comes after it.
        drop(limited);
        let _ = tx.send(got);
    })?;
    Ok(rx)
}

/// Why a spawn failed: the system out of resources (`EAGAIN`, `ENOMEM`), or another reason.
pub(super) fn spawn_failure(e: &std::io::Error) -> Failure {
    let detail = e.to_string();
    match e.raw_os_error() {
        Some(libc::EAGAIN | libc::ENOMEM) => Failure::Exhausted { detail },
        _ => Failure::Spawn { detail },
    }
}

pub(super) fn describe_status(o: &StdOutput) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (o.status.code(), o.status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => "unknown status".to_string(),
    }
}

pub(super) fn redacted_stderr(o: &StdOutput) -> String {
    redact::text(String::from_utf8_lossy(&o.stderr).trim())
}

/// Exit 0 is success; a signal or a non-zero code is a failure (never `unwrap_or(0)`).
pub(super) fn classify(o: StdOutput) -> Result<Output, Failure> {
    use std::os::unix::process::ExitStatusExt;
    let stderr = redacted_stderr(&o);
    match (o.status.code(), o.status.signal()) {
        (Some(0), _) => Ok(Output {
            stdout: o.stdout,
            stderr,
        }),
        (Some(code), _) => Err(Failure::Exit { code, stderr }),
        (None, Some(signal)) => Err(Failure::Signaled { signal, stderr }),
        (None, None) => Err(Failure::Signaled { signal: 0, stderr }),
    }
}

/// SIGKILL the process group led by `pid` (the child was started as a group leader).
pub(super) fn kill_group(pid: u32) {
    let group = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(group) = group {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}
