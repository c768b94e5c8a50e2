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

/// `kill -SIGNAL child` (`INT`, `TERM` or `HUP`), then reap it: it must die of that very
/// signal, not exit by itself.
pub fn signal_and_reap(child: &mut std::process::Child, signal: &str) {
    use std::os::unix::process::ExitStatusExt;
    let number = match signal {
        "INT" => libc::SIGINT,
        "TERM" => libc::SIGTERM,
        "HUP" => libc::SIGHUP,
        other => panic!("signal_and_reap: no signal {other}"),
    };
    let status = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{signal}: {status:?}");
    let status = child.wait().expect("wait");
    assert_eq!(status.signal(), Some(number), "{signal}: {status:?}");
}

/// This test binary run again for the one test `name` alone (`--exact`, one thread), with
/// `var` naming `value` and its output discarded: the child half of a test that signals a
/// process of its own (the test sees `var` set and plays the child).
#[allow(dead_code)]
pub fn rerun_this_test(name: &str, var: &str, value: &std::path::Path) -> Command {
    let exe = std::env::current_exe().expect("the test binary");
    let mut c = Command::new(exe);
    c.args(["--exact", name, "--test-threads=1"])
        .env(var, value)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    c
}
