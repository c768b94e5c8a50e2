//! The shared harness (tests/common/run.rs) itself: its scrub, its expectations and their
//! failure messages, so that a test written with it cannot pass by accident.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::harness::{diff, scrubbed, Run};

/// The message of the panic `f` raises (it must raise one).
fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("the expectation must fail");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn the_scrub_removes_what_redirects_nestor_or_kubectl_and_keeps_the_rest() {
    for name in [
        "KUBECONFIG",
        "KUBERNETES_MASTER",
        "KUBECTL_KUBERC",
        "NESTOR_KUBECTL",
        "NESTOR_NO_INPUT",
        "NO_COLOR",
        "COLUMNS",
        "SSH_AUTH_SOCK",
    ] {
        assert!(scrubbed(name.as_ref()), "{name} must be scrubbed");
    }
    for name in ["PATH", "HOME", "TMPDIR", "LANG"] {
        assert!(!scrubbed(name.as_ref()), "{name} must be kept");
    }
    // And in a real child: a variable set by the caller survives, an inherited one does not.
    let out = Run::new("/usr/bin/env")
        .env("NESTOR_STACKS_DIR", "/set/by/the/test")
        .run();
    out.success()
        .stdout_has("NESTOR_STACKS_DIR=/set/by/the/test\n");
    for line in out.stdout.lines() {
        let name = line.split('=').next().unwrap_or_default();
        assert!(
            name == "NESTOR_STACKS_DIR" || !scrubbed(name.as_ref()),
            "{line} leaked into the child"
        );
    }
}

#[test]
fn a_wrong_expectation_fails_with_a_diff_and_the_whole_run() {
    let out = Run::new("/bin/sh")
        .args(["-c", "printf 'one\\ntwo\\n'; echo oops >&2; exit 3"])
        .run();
    out.code(3).stdout_eq("one\ntwo\n").stderr_eq("oops\n");
    let msg = panic_message(|| {
        out.stdout_eq("one\nthree\n");
    });
    // Substrings of a panic message: it prints the run's time (`after 1.2ms`), which no
    // snapshot can fix.
    assert!(msg.contains("-three\n"), "{msg}");
    assert!(msg.contains("+two\n"), "{msg}");
    assert!(msg.contains("exited Some(3)"), "{msg}");
    assert!(msg.contains("--- stderr\noops\n"), "{msg}");
    assert!(panic_message(|| {
        out.code(0);
    })
    .contains("exit code"));
    assert!(panic_message(|| {
        out.no_stdout();
    })
    .contains("stdout not empty"));
    // No `kubectl-nestor: error:` / `hint:` pair here.
    assert!(panic_message(|| {
        out.stderr_has_hint();
    })
    .contains("no `kubectl-nestor: error:` line"));
    assert_eq!(diff("a\n", "a\n"), "");
}

#[test]
fn stdin_reaches_the_child_and_a_pty_is_a_terminal() {
    Run::new("/bin/cat")
        .stdin("typed\n")
        .run()
        .success()
        .stdout_eq("typed\n");
    // Without input: end of file at once, never the test runner's own stdin.
    Run::new("/bin/cat").run().success().no_stdout();
    let tty = Run::new("/bin/sh")
        .args(["-c", "test -t 0 && echo tty"])
        .pty()
        .run();
    tty.success().stdout_has("tty");
}
