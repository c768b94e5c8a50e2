//! kubectl's plugin discovery, as the rest of this binary relies on it (see `support`, "How a
//! command starts"): for `kubectl nestor WORDS` the real kubectl finds `kubectl-nestor` on
//! PATH and execs that path with WORDS and its own environment, nothing added or removed. So
//! [`E2e::command`] execs that path itself, and these tests are what keeps that honest for
//! the kubectl in use (the Cloud SDK dispatcher here, Debian's 1.20 on a fresh CI machine):
//! if a kubectl ever passes something else (a variable such as `KUBECTL_PATH`, another
//! `argv[0]`, rewritten words), they fail.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::bed_or_skip;
use crate::support::*;

/// A plugin that prints the path it was run by (`$0`: for a script, the path the kernel
/// ran), each word on a line of its own, and its environment (sorted, without what `sh`
/// itself sets). `argv[0]` itself, which a script cannot see, is nestor's display name, and
/// the next test compares that (`--help`'s usage line).
const ENV_DUMP: &str = r#"#!/bin/sh
printf 'argv0=%s\n' "$0"
for w in "$@"; do printf 'word=[%s]\n' "$w"; done
env | LC_ALL=C sort | grep -v -e '^PWD=' -e '^SHLVL=' -e '^_=' -e '^OLDPWD='
"#;

#[test]
fn kubectl_execs_the_plugin_it_finds_by_that_path_with_the_words_and_environment_unchanged() {
    let bed = bed_or_skip!(E2e::dirqual());
    let dump = bed.bin.join("kubectl-dump");
    fs::write(&dump, ENV_DUMP).expect("write plugin");
    fs::set_permissions(&dump, fs::Permissions::from_mode(0o755)).expect("chmod");
    let kc = bed.kubeconfig.display().to_string();
    // Words kubectl itself would take as its own flags, a word with a space, an empty word.
    let words = [
        "preview",
        "--kubeconfig",
        &kc,
        "--context=x",
        "-o",
        "json",
        "-v=6",
        "two words",
        "",
        "--",
        "--help",
    ];
    let through = run(&bed.through_kubectl("dump", &words));
    let direct = run(&bed.plugin("kubectl-dump", &words));
    through.code(0);
    direct.code(0);
    assert_eq!(
        through.stdout, direct.stdout,
        "what kubectl hands the plugin differs from the bed's direct exec"
    );
    assert_eq!(through.stderr, direct.stderr);
    // And that is the absolute path found on PATH, every word as typed.
    let mut want = format!("argv0={}\n", dump.display());
    for w in words {
        want.push_str(&format!("word=[{w}]\n"));
    }
    assert!(
        direct.stdout.starts_with(&want),
        "want the path and the words first:\n{want}---\n{}",
        direct.stdout
    );
    // The environment is the bed's: HOME, PATH and the decoy, nothing of kubectl's.
    let env: Vec<&str> = direct.stdout[want.len()..].lines().collect();
    for (name, value) in [
        ("HOME", bed.home.display().to_string()),
        ("PATH", bed.path()),
        ("KUBERNETES_MASTER", decoy().url()),
    ] {
        let line = format!("{name}={value}");
        assert!(env.contains(&line.as_str()), "want {line} in {env:#?}");
    }
    assert!(
        !env.iter().any(|l| l.starts_with("KUBECTL_")),
        "kubectl now tells a plugin something (review display_name and this bed): {env:#?}"
    );
}

/// What varies between two runs of one command: the times of an observation, the ages
/// measured from them (`checked 50s ago`), and how long a `wait` took (`after 0.1s`: one
/// loaded CI run read 0.1s through kubectl and 0.0s direct).
fn stable(text: &str) -> String {
    let timeless = times(text);
    let mut out = Vec::new();
    let words: Vec<&str> = timeless.split(' ').collect();
    for (i, w) in words.iter().enumerate() {
        let number = w.strip_suffix(['s', 'm', 'h', 'd']).unwrap_or_default();
        let age = !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit())
            && words.get(i + 1).is_some_and(|n| n.starts_with("ago"));
        let took = i > 0
            && words.get(i - 1) == Some(&"after")
            && w.strip_suffix('s').is_some_and(|n| {
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            });
        // `wait`'s elapsed time at the head of each line (`[    0.1s] ceph present ...`).
        let elapsed = w
            .strip_suffix("s]")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
        out.push(if age {
            "AGE"
        } else if elapsed {
            "ELAPSED]"
        } else if took {
            "TOOK"
        } else {
            w
        });
    }
    out.join(" ")
}

/// RFC 3339 times in `text` (`2026-12-03T17:30:10Z`, with or without fractions) shown as
/// TIME.
fn times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let at = |j: usize| b.get(i + j).copied().unwrap_or(0);
        let digits = |from: usize, n: usize| (from..from + n).all(|j| at(j).is_ascii_digit());
        let date = digits(0, 4) && at(4) == b'-' && digits(5, 2) && at(7) == b'-' && digits(8, 2);
        if date && at(10) == b'T' && digits(11, 2) && at(13) == b':' && digits(14, 2) {
            let mut j = 16;
            while at(j).is_ascii_digit() || matches!(at(j), b':' | b'.') {
                j += 1;
            }
            if at(j) == b'Z' {
                j += 1;
            }
            out.push_str("TIME");
            i += j;
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or('\u{0}');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// Every command of the read-only set (`readonly::command_set`) through kubectl's plugin
/// discovery and run as [`E2e::command`] runs it: the same exit code, the same stdout and
/// stderr (but for the times of the observation), the same requests to the API server.
#[test]
fn every_command_through_plugin_discovery_is_the_direct_run() {
    let bed = bed_or_skip!(E2e::dirqual());
    let requests = || {
        let mut seen: Vec<String> = (bed.server.audit().into_iter())
            .map(|e| format!("{} {}?{} {:?}", e.method, e.path, e.query, e.user_agent))
            .collect();
        seen.sort();
        bed.server.clear_audit();
        seen
    };
    let mut commands = crate::readonly::command_set(&bed);
    assert!(commands.len() >= 19, "{commands:?}");
    // And what the set leaves out: help, completion, a usage error, wait, a refused target.
    let extra: &[(&[&str], i32)] = &[
        (&["--help"], 0),
        (&["preview", "--help"], 0),
        (&["completion", "bash"], 0),
        (&["__complete", "preview", "--"], 0),
        (&["preview", "--no-such-flag"], 1),
        (&["wait", "--for=present", "ceph", "--timeout", "10s"], 0),
        (&["gate", "drain", "dirqual4", "--no-ssh", "--no-input"], 5),
        (&["--context", "elsewhere", "preview", "--no-input"], 1),
    ];
    commands.extend(crate::readonly::owned(extra));
    for (args, code) in commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        bed.server.clear_audit();
        let through = run(&bed.through_kubectl("nestor", &args));
        let through_requests = requests();
        let direct = run(&bed.command(&args));
        let direct_requests = requests();
        assert_eq!(
            through.code,
            Some(code),
            "kubectl nestor {args:?}: {through:?}"
        );
        assert_eq!(direct.code, through.code, "{args:?}: {direct:?}");
        assert_eq!(
            stable(&direct.stdout),
            stable(&through.stdout),
            "{args:?}: stdout"
        );
        assert_eq!(
            stable(&direct.stderr),
            stable(&through.stderr),
            "{args:?}: stderr"
        );
        assert_eq!(direct_requests, through_requests, "{args:?}: requests");
    }
}

#[test]
fn the_time_filter_replaces_only_times() {
    assert_eq!(
        stable("observed 2026-12-03T17:30:10Z, 2026-12-03T17:30:10.123456+00:00 and 2026-12-03"),
        "observed TIME, TIME+00:00 and 2026-12-03"
    );
    assert_eq!(
        stable("HEALTH_OK, checked 50s ago\n 3d ago) 12 ago 4s later"),
        "HEALTH_OK, checked AGE ago\n AGE ago) 12 ago 4s later"
    );
}
