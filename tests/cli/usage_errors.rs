//! Issue 31: with `-o json|yaml`, a usage error (clap's own included) is a `kind: Error`
//! document on stdout, as every other error is (SPEC §16), with the same exit code (1), the
//! hint, and the two stderr lines as always: a script piping into `jq` got nothing before.
//! The format is read from the words clap refused: the last `-o`/`--output` whose value is
//! `json` or `yaml` (docs/output.md, "kind: Error").

use crate::support::*;

/// One usage error: exit 1, exactly `stdout` (a valid `Error` document when not empty) and
/// the two lines `message`/`hint` on stderr.
fn usage_error(args: &[&str], stdout: &str, message: &str, hint: &str) {
    let bed = Bed::new();
    let out = bed.cmd().args(args).run();
    out.code(1);
    out.stdout_eq(stdout);
    out.stderr_eq(&format!("kubectl-nestor: error: {message}\nhint: {hint}\n"));
    if stdout.starts_with('{') {
        let doc = out.json();
        assert_eq!(doc["message"], message);
        assert_eq!(doc["hint"], hint);
    }
}

fn json_doc(message: &str, hint: &str) -> String {
    format!(
        "{{\n  \"apiVersion\": \"nestor/v1\",\n  \"kind\": \"Error\",\n  \"message\": {},\n  \"hint\": {},\n  \"exitCode\": 1,\n  \"nestorVersion\": \"{}\"\n}}\n",
        serde_json::to_string(message).expect("json"),
        serde_json::to_string(hint).expect("json"),
        env!("CARGO_PKG_VERSION")
    )
}

#[test]
fn a_bad_duration_with_json_output_is_an_error_document() {
    let message =
        "invalid value '5x' for '--request-timeout <DURATION>': `5x`: unit must be ms, s, m or h";
    let hint = "`kubectl nestor preview --help` shows every flag, with examples";
    usage_error(
        &["preview", "-o", "json", "--request-timeout", "5x"],
        &json_doc(message, hint),
        message,
        hint,
    );
}

#[test]
fn an_unknown_flag_before_the_output_flag_is_an_error_document() {
    let message = "unexpected argument '--bogus' found";
    let hint = "usage: kubectl nestor preview [OPTIONS]; `kubectl nestor preview --help` shows every flag, with examples";
    usage_error(
        &["preview", "--bogus", "--output=json"],
        &json_doc(message, hint),
        message,
        hint,
    );
    // YAML too, the same fields.
    usage_error(
        &["preview", "--bogus", "-o", "yaml"],
        &format!(
            "apiVersion: nestor/v1\nkind: Error\nmessage: {message}\nhint: '{hint}'\nexitCode: 1\nnestorVersion: {}\n",
            env!("CARGO_PKG_VERSION")
        ),
        message,
        hint,
    );
}

#[test]
fn wait_without_a_layer_and_a_flag_given_a_value_are_error_documents() {
    let message =
        "the following required arguments were not provided: --for <CONDITION>, <LAYER>...";
    let hint = "usage: kubectl nestor wait --for <CONDITION> <LAYER>...; `kubectl nestor wait --help` shows every flag, with examples";
    usage_error(
        &["-o", "json", "wait"],
        &json_doc(message, hint),
        message,
        hint,
    );
    let message = "unexpected value 'yes' for '--detailed-exitcode' found; no more were expected";
    let hint = "usage: kubectl nestor preview --output <OUTPUT> --detailed-exitcode; `kubectl nestor preview --help` shows every flag, with examples";
    usage_error(
        &["preview", "-ojson", "--detailed-exitcode=yes"],
        &json_doc(message, hint),
        message,
        hint,
    );
}

/// `-o xml` is itself the bad value: no format was asked for that nestor prints, so the
/// error is the two stderr lines alone (and so for text, junit, or no `-o`).
#[test]
fn a_bad_output_value_or_no_document_format_prints_no_document() {
    let message =
        "invalid value 'xml' for '--output <OUTPUT>' [possible values: text, json, yaml, junit]";
    let hint = "a similar value exists: 'yaml'; `kubectl nestor preview --help` shows every flag, with examples";
    usage_error(&["preview", "-o", "xml"], "", message, hint);
    // Given twice, the last one decides: it asked for no document.
    usage_error(
        &["preview", "-o", "json", "-o", "xml"],
        "",
        "the argument '--output <OUTPUT>' cannot be used multiple times",
        "usage: kubectl nestor preview [OPTIONS]; `kubectl nestor preview --help` shows every flag, with examples",
    );
    let message = "unexpected argument '--bogus' found";
    let hint = "usage: kubectl nestor preview [OPTIONS]; `kubectl nestor preview --help` shows every flag, with examples";
    usage_error(&["preview", "--bogus"], "", message, hint);
    usage_error(
        &["preview", "-o", "junit", "--bogus"],
        "",
        message,
        "usage: kubectl nestor preview --output <OUTPUT>; `kubectl nestor preview --help` shows every flag, with examples",
    );
}

/// Issue 51: `gate drain NODE --snapshot FILE` got clap's tip `use '-- --snapshot'`, which
/// would pass it as a node name. A gate reads live: said so, with how to try one without a
/// cluster; nothing read, nothing written.
#[test]
fn a_gate_with_a_snapshot_says_it_reads_live() {
    let message = "a gate reads the cluster live: `--snapshot` replays a saved state for `preview` only, and a gate never answers from one";
    for (args, command) in [
        (
            &["gate", "drain", "dirqual2", "--snapshot", "s.json"][..],
            "kubectl nestor gate drain",
        ),
        (
            &[
                "gate",
                "upgrade",
                "kubernetes",
                "1.32",
                "--snapshot",
                "s.json",
            ][..],
            "kubectl nestor gate upgrade",
        ),
    ] {
        let hint = format!("drop --snapshot and run the gate against the cluster; to try it without one, serve the gate fixture with the bundled replay server (`cargo run -p nestor-replay -- --generate dirqual-gates --port-file PORT`) and point a kubeconfig at it; `{command} --help` shows every flag");
        usage_error(args, "", message, &hint);
    }
    // The control: preview takes it (a missing file is its own error, not a usage error).
    let bed = Bed::new();
    let out = bed.cmd().args(["preview", "--snapshot", "nope.json"]).run();
    assert!(!out.stderr.contains("a gate reads"), "{}", out.stderr);
}

/// Issue 51: `gate upgrade k8s` was refused while the layer is `k8s` everywhere else: it is
/// Kubernetes' gate, the same words as `kubernetes` (here its version refused the same way).
#[test]
fn gate_upgrade_k8s_is_kubernetes() {
    let bed = Bed::new();
    let k8s = bed.cmd().args(["gate", "upgrade", "k8s", "1.x"]).run();
    let kubernetes = bed
        .cmd()
        .args(["gate", "upgrade", "kubernetes", "1.x"])
        .run();
    k8s.code(1);
    assert_eq!(k8s.stderr, kubernetes.stderr);
    assert!(
        k8s.stderr.contains("`1.x` is not a version"),
        "{}",
        k8s.stderr
    );
}
