//! Documents for scripts (SPEC §16), through the real kubectl: with `-o json|yaml` an error
//! is a `kind: Error` document on stdout as well as the two stderr lines — for a bad input
//! (1), a refused target (3) and an unreachable cluster (4) — and every document carries
//! `nestorVersion`, a document of an observation `observedAt` too.

use crate::bed_or_skip;
use snapbox::str;

use crate::support::*;

/// The Error document of a failed run, checked against its exit code and stderr lines.
fn error_document(r: &Outcome, code: i32, message: &str) -> serde_json::Value {
    assert_eq!(r.code, Some(code), "{r:?}");
    let lines: Vec<&str> = r.stderr.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("kubectl-nestor: error: "))
        .unwrap_or_else(|| panic!("no error line: {r:?}"));
    assert!(
        lines.get(at + 1).is_some_and(|h| h.starts_with("hint: ")),
        "{r:?}"
    );
    let doc = r.json();
    assert_eq!(doc["apiVersion"], "nestor/v1", "{doc}");
    assert_eq!(doc["kind"], "Error", "{doc}");
    assert_eq!(doc["exitCode"], code, "{doc}");
    assert_eq!(doc["nestorVersion"], env!("CARGO_PKG_VERSION"), "{doc}");
    let msg = doc["message"].as_str().expect("message");
    assert!(msg.contains(message), "{msg}");
    assert_eq!(
        format!("kubectl-nestor: error: {msg}"),
        lines[at],
        "the document says what stderr says"
    );
    assert_eq!(
        format!("hint: {}", doc["hint"].as_str().expect("hint")),
        lines[at + 1]
    );
    doc
}

#[test]
fn an_error_is_a_document_too_for_exits_1_3_and_4() {
    let bed = bed_or_skip!(E2e::dirqual());
    // 1: bad input.
    let r = bed.run(&["--stack", "nope", "preview", "--no-input", "-o", "json"]);
    error_document(&r, 1, "nope");
    // 3: the target refused (the kubeconfig reads another server than the declared one).
    bed.write_stack(
        "moved",
        &dirqual_topology("https://10.67.2.11:6443").replace("name: dirqual", "name: moved"),
    );
    let r = bed.run(&["--stack", "moved", "preview", "--no-input", "-o", "json"]);
    error_document(&r, 3, "target mismatch");
    // YAML too.
    let r = bed.run(&["--stack", "moved", "preview", "--no-input", "-o", "yaml"]);
    assert_eq!(r.code, Some(3));
    r.stdout_snap(str![[r#"
apiVersion: nestor/v1
kind: Error
message: 'target mismatch for stack moved: the kubeconfig''s server is http://127.0.0.1:PORT, the topology''s endpoint is https://10.67.2.11:6443; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology''s kubeconfig:) chose it'
hint: 'the topology''s kubeconfig: and endpoint: disagree: fix whichever is wrong in stack moved''s file (`kubectl nestor target` shows both)'
exitCode: 3
nestorVersion: 0.1.0

"#]]);
    // 4: the cluster unreachable.
    let url = format!("http://127.0.0.1:{}", closed_port());
    bed.kubeconfig_for(&bed.kubeconfig, &url);
    bed.write_stack("dirqual", &dirqual_topology(&url));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    error_document(&r, 4, "unreachable");
    // Text output: no document, the two lines only.
    let r = bed.run(&["preview", "--no-input"]);
    r.error(4, "unreachable").no_stdout();
}

#[test]
fn every_document_says_its_nestor_and_an_observation_when_it_was_read() {
    let bed = bed_or_skip!(E2e::dirqual());
    for args in [
        &["preview", "--no-input", "-o", "json"][..],
        &["discover", "-o", "json"],
        &["target", "--no-input", "-o", "json"],
    ] {
        let doc = bed.run(args).json();
        assert_eq!(doc["nestorVersion"], env!("CARGO_PKG_VERSION"), "{args:?}");
        let at = doc["observedAt"]
            .as_str()
            .unwrap_or_else(|| panic!("{args:?}: {doc}"));
        // RFC 3339 UTC: 2026-12-01T09:38:20Z
        let b = at.as_bytes();
        assert!(
            at.len() == 20 && b[4] == b'-' && b[10] == b'T' && at.ends_with('Z'),
            "{at}"
        );
    }
    for args in [
        &["stack", "list", "-o", "json"][..],
        &["version", "-o", "json"],
    ] {
        let doc = bed.run(args).json();
        assert_eq!(doc["nestorVersion"], env!("CARGO_PKG_VERSION"), "{args:?}");
        assert!(
            doc.get("observedAt").is_none(),
            "{args:?} read no cluster: {doc}"
        );
    }
}
