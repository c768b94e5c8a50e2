//! The server-side read-only proof of SPEC §9: every command, run through the real kubectl,
//! sends nothing but GET to the API server — and the check that says so can fail.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::bed_or_skip;
use crate::support::*;

/// The whole command set against the dirqual bed `bed`, each with its exit code: every
/// command that reads the cluster, in each of its output forms, and the ones that do not.
pub fn command_set(bed: &E2e) -> Vec<(Vec<String>, i32)> {
    let snap = bed.tmp.path().join("snap.json");
    let snap = snap.to_str().unwrap_or_default();
    let kc = bed.kubeconfig.to_str().unwrap_or_default().to_string();
    let commands: &[(&[&str], i32)] = &[
        (&["preview", "--no-input"], 0),
        (&["preview", "--no-input", "-o", "json"], 0),
        (&["preview", "--no-input", "-o", "yaml"], 0),
        (&["preview", "--no-input", "--detailed-exitcode"], 2),
        (&["discover"], 0),
        (&["discover", "-o", "json"], 0),
        (&["discover", "--emit-topology"], 0),
        (&["discover", "--save", snap], 0),
        (&["preview", "--snapshot", snap], 0),
        (&["target"], 0),
        (&["target", "-o", "yaml"], 0),
        (&["--kubeconfig", &kc, "target"], 0),
        (&["stack", "list"], 0),
        (&["stack", "show"], 0),
        (&["stack", "show", "dirqual", "-o", "json"], 0),
        (&["stack", "env"], 0),
        // dirqual serves no policy/v1: the PDB rule undecided, never GO (its mons, one per
        // node of dirqual1..3, keep a majority without dirqual2).
        (&["gate", "drain", "dirqual2", "--no-input"], 5),
        // dirqual serves no policy/v1: the PDB rule undecided, never GO.
        (&["gate", "upgrade", "kubernetes", "1.32", "--no-input"], 5),
        (&["version"], 0),
    ];
    owned(commands)
}

/// A table of (argv, exit code) with its words owned.
pub fn owned(commands: &[(&[&str], i32)]) -> Vec<(Vec<String>, i32)> {
    (commands.iter())
        .map(|(args, code)| (args.iter().map(|a| a.to_string()).collect(), *code))
        .collect()
}

/// The whole command set against one server; then the audit is non-empty and GET-only.
#[test]
fn every_command_sends_only_get_and_the_audit_is_not_empty() {
    let bed = bed_or_skip!(E2e::dirqual());
    for (args, code) in command_set(&bed) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = bed.run(&args);
        assert_eq!(r.code, Some(code), "kubectl nestor {args:?}: {r:?}");
    }
    let audit = bed.server.audit();
    assert!(!audit.is_empty(), "the server saw no request at all");
    assert!(
        audit.len() >= 60,
        "every live command read the cluster: {} requests",
        audit.len()
    );
    assert_read_only(&bed.server);
    assert!(audit.iter().all(|e| e.method == "GET"));
    // Nothing nestor reads is a secret, and nothing is watched.
    assert!(
        audit
            .iter()
            .all(|e| !e.path.contains("secrets") && !e.query.contains("watch")),
        "{audit:?}"
    );
}

/// The detector is not a tautology: one POST sent with a plain `TcpStream` is reported by
/// the very assertion every e2e bed runs when it is dropped.
#[test]
fn the_read_only_assertion_reports_a_post() {
    let bed = bed_or_skip!(E2e::dirqual());
    assert!(read_only_violations(&bed.server).is_empty());
    let body = br#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"evil"}}"#;
    let mut s = TcpStream::connect(bed.server.addr()).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let head = format!(
        "POST /api/v1/namespaces HTTP/1.1\r\nHost: replay\r\nUser-Agent: write-detector-test\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("send head");
    s.write_all(body).expect("send body");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 405"), "{answer}");

    let bad = read_only_violations(&bed.server);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].contains("POST /api/v1/namespaces") && bad[0].contains("write-detector-test"),
        "{bad:?}"
    );
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert_read_only(&bed.server)
    }));
    let message = caught
        .err()
        .and_then(|p| p.downcast::<String>().ok())
        .map(|s| *s)
        .unwrap_or_default();
    assert!(
        message.contains("received 1 request(s) other than GET")
            && message.contains("POST /api/v1/namespaces"),
        "the assertion must fail on a POST, got: {message:?}"
    );
    // A HEAD is not a write, but nestor never sends one: the stricter check flags it too.
    let mut s = TcpStream::connect(bed.server.addr()).expect("connect");
    s.write_all(b"HEAD /api/v1/nodes HTTP/1.1\r\nHost: replay\r\nConnection: close\r\n\r\n")
        .expect("send");
    let _ = s.read_to_string(&mut String::new());
    assert_eq!(read_only_violations(&bed.server).len(), 2);
    // Leave the bed clean, or its own drop check would (rightly) fail this test.
    bed.server.clear_audit();
}
