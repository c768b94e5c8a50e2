//! Shared by the test binaries that signal nestor (tests/cli, tests/e2e).

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Start the child with SIGINT, SIGTERM and SIGHUP at their default action. A script that
/// starts the tests in the background hands them SIGINT ignored (`nohup`, SIGHUP), and nestor
/// keeps an ignored signal ignored, as `nohup` expects: what a test of nestor's signal
/// handling proves must not depend on how the test run itself was started.
/// (Test code only: `unsafe_code` stays denied in the crate; a `pre_exec` hook needs it.)
#[allow(unsafe_code)]
pub fn with_default_signals(c: &mut Command) -> &mut Command {
    // SAFETY: between fork and exec the closure only calls signal(2), which is
    // async-signal-safe, and allocates nothing.
    unsafe {
        c.pre_exec(|| {
            for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                if libc::signal(s, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        })
    }
}
