//! Foundation flows: topology errors, kubeconfig target rules, the read-only process layer,
//! `target`, `stack list|show|env`, exit codes.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nestor::env::Environment;
use nestor::read::exec::{Failure, Runner, Tool};

use snapbox::str;

use crate::harness::{golden, text_snap, Table};

use crate::support::*;

// ---- SPEC §1 cause 3: the prod kubeconfig was never chosen --------------------------------

#[test]
fn prod_without_declared_kubeconfig_is_refused_and_runs_no_kubectl() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_UNDECLARED);
    bed.select("dirqual");
    // A decoy catch-all kubeconfig: it must never be used.
    bed.kubeconfig(&bed.home.join(".kube/config"), "https://10.99.99.99:6443");
    bed.kubectl_serving_nodes(&nodes_dirqual());
    let before = bed.tree();
    let out = bed.stable(bed.cmd().arg("target").run());
    out.code(3).no_stdout().stderr_has_hint().stderr_eq(
        "kubectl-nestor: error: kubeconfig target not declared for stack dirqual: add `kubeconfig: ~/.kube/dirqual.config` (no rule chose one: no --kubeconfig flag, no KUBECONFIG, no topology kubeconfig:)\n\
         hint: run `kubectl nestor stack select dirqual` (it offers to add the line), or pass `kubectl nestor --kubeconfig FILE ...`\n",
    );
    assert!(
        bed.calls("kubectl").is_empty(),
        "kubectl ran: {:?}",
        bed.calls("kubectl")
    );
    assert_eq!(stdout_of(&out), "");
    assert_eq!(bed.tree(), before, "something was written");
}

#[test]
fn stack_env_refuses_an_undeclared_prod_stack() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_UNDECLARED);
    let out = bed.cmd().args(["stack", "env", "dirqual"]).run();
    out.code(3);
    out.stderr_has("stack select dirqual");
    assert_eq!(stdout_of(&out), "");
}

// ---- kubeconfig resolution (SPEC §4) --------------------------------------------------------

#[test]
fn target_reports_rule_context_endpoint_and_nodes() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    bed.kubeconfig(
        &bed.home.join(".kube/dirqual.config"),
        "https://10.67.2.11:6443",
    );
    bed.kubectl_serving_nodes(&nodes_dirqual());
    let out = bed.cmd().args(["target", "--no-color"]).run();
    out.code(0);
    out.stdout_snap(str![[r#"
stack       dirqual (prod)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)
context     kubernetes-admin@dirqual
endpoint    https://10.67.2.11:6443 (matches the topology)
nodes       dirqual1..4, 4/4 Ready
  NAME      READY  ROLES          INTERNAL-IP  VERSION
  dirqual1  Ready  control-plane  10.67.2.11   v1.31.4
  dirqual2  Ready  <none>         10.67.2.12   v1.31.4
  dirqual3  Ready  <none>         10.67.2.13   v1.31.4
  dirqual4  Ready  <none>         10.67.2.14   v1.31.4

"#]]);
    // The one read, through the kubeconfig the topology declares: its whole argv.
    let calls = bed.reads();
    assert_eq!(calls.len(), 1);
    text_snap(&out.redact_text(&calls[0].join(" ")), str!["--kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@dirqual --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock --reject-methods=^(?:[^GH].*|G|GE|G[^E].*|GE[^T].*|GET.+|H|HE|HEA|H[^E].*|HE[^A].*|HEA[^D].*|HEAD.+)$ --accept-paths=^/api/v1/nodes$ --reject-paths=/secrets(/|$),/token(/|$),/proxy(/|$),/exec(/|$),/attach(/|$),/portforward(/|$),/log(/|$)"]);
}

#[test]
fn flag_beats_env_beats_topology() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    let topo = bed.kubeconfig(
        &bed.home.join(".kube/dirqual.config"),
        "https://10.67.2.11:6443",
    );
    let env = bed.kubeconfig(
        &bed.tmp.path().join("env.config"),
        "https://10.67.2.11:6443",
    );
    let flag = bed.kubeconfig(
        &bed.tmp.path().join("flag.config"),
        "https://10.67.2.11:6443",
    );
    bed.kubectl_serving_nodes(&nodes_dirqual());
    let json = |out: Outcome| -> serde_json::Value {
        out.code(0);
        let v = serde_json::from_slice(&out.stdout_bytes).expect("json");
        crate::doc_schema::check(&v);
        v
    };
    let v = json(bed.cmd().args(["target", "-o", "json"]).run());
    assert_eq!(
        (v["rule"].as_str(), v["kubeconfig"].as_str()),
        (Some("topology"), topo.to_str())
    );
    let v = json(
        bed.cmd()
            .args(["target", "-o", "json"])
            .env("KUBECONFIG", &env)
            .run(),
    );
    assert_eq!(
        (v["rule"].as_str(), v["kubeconfig"].as_str()),
        (Some("env"), env.to_str())
    );
    let v = json(
        bed.cmd()
            .args([
                "--kubeconfig",
                flag.to_str().unwrap_or_default(),
                "target",
                "-o",
                "json",
            ])
            .env("KUBECONFIG", &env)
            .run(),
    );
    assert_eq!(
        (v["rule"].as_str(), v["kubeconfig"].as_str()),
        (Some("flag"), flag.to_str())
    );
    assert_eq!(v["apiVersion"], "nestor/v1");
    assert_eq!(v["kind"], "Target");
    assert_eq!(v["nodes"].as_array().map(Vec::len), Some(4));
}

#[test]
fn kubeconfig_list_is_refused_for_prod() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    let a = bed.kubeconfig(&bed.tmp.path().join("a.config"), "https://10.67.2.11:6443");
    let b = bed.kubeconfig(&bed.tmp.path().join("b.config"), "https://10.67.2.12:6443");
    let before = bed.tree();
    let out = bed
        .cmd()
        .arg("target")
        .env("KUBECONFIG", format!("{}:{}", a.display(), b.display()))
        .run();
    let out = bed.stable(out);
    out.code(3).no_stdout().stderr_has_hint().stderr_eq(
        "kubectl-nestor: error: KUBECONFIG lists 2 files (/t/a.config:/t/b.config): merged files would make the target of prod stack dirqual ambiguous (rule env)\n\
         hint: one file per target: `eval \"$(kubectl nestor stack env dirqual)\"`, or `kubectl nestor --kubeconfig FILE ...`\n",
    );
    assert!(bed.calls("kubectl").is_empty());
    assert_eq!(bed.tree(), before);
}

/// `--kubeconfig a:b` is refused in one plain sentence (it was "and rule flag takes the
/// --kubeconfig flag"), naming the rule at the end as every refusal does.
#[test]
fn a_kubeconfig_flag_list_is_refused_in_one_plain_sentence() {
    let bed = Bed::new();
    let out = bed
        .cmd()
        .args(["--kubeconfig", "/k/a.config:/k/b.config", "discover"])
        .run();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        stderr_of(&out),
        "kubectl-nestor: error: --kubeconfig lists 2 files (/k/a.config:/k/b.config), but takes one: merged files would make the target ambiguous (rule flag)\n\
         hint: one file per target: `kubectl nestor --kubeconfig FILE ...`\n"
    );
    assert!(bed.calls("kubectl").is_empty());
}

/// A broken file named by `--kubeconfig`: the hint may offer `kubeconfig fetch`, but says
/// that fetch writes the stack's declared kubeconfig, not that file. The topology's own file
/// keeps the plain hint.
#[test]
fn a_fetch_hint_for_a_named_kubeconfig_says_fetch_writes_the_declared_one() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    let missing = bed.tmp.path().join("absent.config");
    let out = bed
        .cmd()
        .args([
            "--no-input",
            "--kubeconfig",
            missing.to_str().unwrap_or_default(),
            "target",
        ])
        .run();
    assert_eq!(out.status.code(), Some(1));
    out.stderr_snap(str![[r#"
kubectl-nestor: error: kubeconfig /t/absent.config does not exist
hint: fetch it with `kubectl nestor kubeconfig fetch`, or fix the path (`kubeconfig fetch` writes the stack's declared kubeconfig:, not this --kubeconfig file)

"#]]);
    // The declared file: fetch is the right advice, said plainly.
    let out = bed.cmd().args(["--no-input", "target"]).run();
    assert_eq!(out.status.code(), Some(1));
    out.stderr_snap(str![[r#"
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config does not exist
hint: fetch it with `kubectl nestor kubeconfig fetch`, or fix the path

"#]]);
}

#[test]
fn lima_bench_kubeconfig_is_authoritative_over_exported_kubeconfig() {
    let bed = Bed::new();
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("bench");
    let bench = bed.kubeconfig(
        &bed.repo.join("bench/lima/.work/kubeconfig"),
        "https://127.0.0.1:6443",
    );
    let prod = bed.kubeconfig(
        &bed.home.join(".kube/dirqual.config"),
        "https://10.67.2.11:6443",
    );
    bed.kubectl_serving_nodes(&nodes_dirqual());
    let out = bed
        .cmd()
        .args(["target", "-o", "json"])
        .env("KUBECONFIG", &prod)
        .run();
    out.code(0);
    out.stderr_snap(str![[r#"
kubectl-nestor: the KUBECONFIG environment variable (/t/home/.kube/dirqual.config) ignored: stack bench is a lima bench, its kubeconfig /t/repo/bench/lima/.work/kubeconfig is authoritative (rule lima-bench)

"#]]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout_bytes).expect("json");
    crate::doc_schema::check(&v);
    assert_eq!(v["rule"], "lima-bench");
    assert_eq!(v["kubeconfig"].as_str(), bench.to_str());
    // Every kubectl call, each through the bench's kubeconfig: the whole argv of each.
    // (sorted: were the `config view` and the proxy ever started side by side, their order
    // would be the scheduler's)
    let mut calls: Vec<String> = bed.calls("kubectl").iter().map(|c| c.join(" ")).collect();
    calls.sort_unstable();
    text_snap(
        &out.redact_text(&calls.join("\n")),
        str![[r#"
--kubeconfig=/t/repo/bench/lima/.work/kubeconfig --context=kubernetes-admin@dirqual --server=https://127.0.0.1:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache config view --minify -o=json
--kubeconfig=/t/repo/bench/lima/.work/kubeconfig --context=kubernetes-admin@dirqual --server=https://127.0.0.1:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock --reject-methods=^(?:[^GH].*|G|GE|G[^E].*|GE[^T].*|GET.+|H|HE|HEA|H[^E].*|HE[^A].*|HEA[^D].*|HEAD.+)$ --accept-paths=^/api/v1/nodes$ --reject-paths=/secrets(/|$),/token(/|$),/proxy(/|$),/exec(/|$),/attach(/|$),/portforward(/|$),/log(/|$)
"#]],
    );
}

#[test]
fn lima_without_bench_kubeconfig_never_falls_back() {
    let bed = Bed::new();
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("bench");
    bed.kubeconfig(&bed.home.join(".kube/config"), "https://10.99.99.99:6443");
    let out = bed.cmd().arg("target").run();
    out.code(1);
    out.stderr_has("bench kubeconfig");
    out.stderr_has("does not exist");
    assert!(bed.calls("kubectl").is_empty());
}

/// Each way a kubeconfig can fail to name its target is its own error, exit 1, no kubectl.
#[test]
fn current_context_rules() {
    let good = kubeconfig_text("https://10.67.2.11:6443");
    let cases: Vec<(&str, String, &str)> = vec![
        ("missing", String::new(), "does not exist"),
        ("empty", "\n".into(), "is empty"),
        (
            "no current-context",
            good.replace("current-context: kubernetes-admin@dirqual\n", ""),
            "has no current-context",
        ),
        (
            "dangling current-context",
            good.replace(
                "current-context: kubernetes-admin@dirqual",
                "current-context: gone",
            ),
            "current-context `gone` names no context",
        ),
        (
            "context without cluster",
            good.replace("    cluster: dirqual\n", "    cluster: elsewhere\n"),
            "names cluster `elsewhere`, which is not in the file",
        ),
        (
            "not yaml",
            "clusters: [\n".into(),
            "is not a valid kubeconfig YAML",
        ),
    ];
    let table = Table::new();
    for (what, content, expected) in cases {
        let bed = Bed::new();
        bed.write_stack("dirqual", PROD_DECLARED);
        bed.select("dirqual");
        let path = bed.home.join(".kube/dirqual.config");
        if what != "missing" {
            bed.kubeconfig(&path, "x");
            fs::write(&path, &content).expect("write");
        }
        bed.kubectl_serving_nodes(&nodes_dirqual());
        let out = bed.cmd().arg("target").run();
        let err = stderr_of(&out);
        out.code(1).stderr_has_hint();
        table.add(&format!("{what} ({expected})"), &out);
        assert!(!err.contains("U0VDUkVU"), "{what}: secret leaked: {err}");
        assert!(bed.calls("kubectl").is_empty(), "{what}");
    }
    table.table_snap(str![[r#"
== missing (does not exist): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config does not exist
hint: fetch it with `kubectl nestor kubeconfig fetch`, or fix the path
== empty (is empty): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is empty
hint: fetch it again with `kubectl nestor kubeconfig fetch`
== no current-context (has no current-context): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config has no current-context
hint: nestor never guesses a context: set one with `kubectl --kubeconfig /t/home/.kube/dirqual.config config use-context NAME` (contexts: kubernetes-admin@dirqual)
== dangling current-context (current-context `gone` names no context): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config: current-context `gone` names no context
hint: fix current-context, or fetch the file again with `kubectl nestor kubeconfig fetch`
== context without cluster (names cluster `elsewhere`, which is not in the file): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config: context `kubernetes-admin@dirqual` names cluster `elsewhere`, which is not in the file
hint: fix the context's cluster, or fetch the file again with `kubectl nestor kubeconfig fetch`
== not yaml (is not a valid kubeconfig YAML): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is not a valid kubeconfig YAML (line 2, column 1)
hint: every cluster entry is `{name, cluster: {server: ...}}`, every context `{name, context: {cluster, user}}`, every user `{name, user: {...}}`; fix the file, or fetch it again with `kubectl nestor kubeconfig fetch`

"#]]);
}

/// Issue 31 item 8: a context named `-x...` is a usage error (kubectl would read `--context
/// -x` as a flag), exit 1 with a hint, nothing written, no kubectl — never "internal ... a
/// bug in kubectl-nestor" from the allowlist.
#[test]
fn a_context_starting_with_a_dash_is_a_usage_error() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    let path = bed.home.join(".kube/dirqual.config");
    bed.kubeconfig(&path, "x");
    let text = kubeconfig_text("https://10.67.2.11:6443")
        .replace("kubernetes-admin@dirqual", "-x@dirqual");
    fs::write(&path, text).expect("write");
    bed.kubectl_serving_nodes(&nodes_dirqual());
    for cmd in ["target", "preview"] {
        let before = bed.tree();
        let out = bed.cmd().args(["--no-input", cmd]).run();
        out.code(1);
        assert_eq!(
            stderr_of(&out),
            format!(
                "kubectl-nestor: error: kubeconfig {}: current-context `-x@dirqual` starts with `-`: kubectl would read it as a flag\nhint: rename the context so it does not start with `-` (and point current-context at it), or fetch the file again with `kubectl nestor kubeconfig fetch`\n",
                path.display()
            ),
            "{cmd}"
        );
        assert_eq!(stdout_of(&out), "", "{cmd}");
        assert_eq!(bed.tree(), before, "{cmd}: nothing written");
        assert!(bed.calls("kubectl").is_empty(), "{cmd}: no kubectl");
    }
}

#[test]
fn unreadable_kubeconfig_is_its_own_error() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    // A directory where the file should be: readable by root too, unlike chmod 000.
    fs::create_dir_all(bed.home.join(".kube/dirqual.config")).expect("mkdir");
    let out = bed.cmd().arg("target").run();
    out.code(1);
    out.stderr_has("is a directory");
}

#[test]
fn several_contexts_use_current_context_with_a_notice() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    let path = bed.home.join(".kube/dirqual.config");
    bed.kubeconfig(&path, "https://10.67.2.11:6443");
    let text = fs::read_to_string(&path).expect("read").replace(
        "current-context:",
        "- context:\n    cluster: dirqual\n    user: kubernetes-admin\n  name: other\ncurrent-context:",
    );
    fs::write(&path, text).expect("write");
    bed.kubectl_serving_nodes(&nodes_dirqual());
    let out = bed.cmd().arg("target").run();
    out.code(0);
    out.stderr_snap(str![[r#"
kubectl-nestor: /t/home/.kube/dirqual.config holds 2 contexts: its current-context `kubernetes-admin@dirqual` is the target

"#]]);
}

// ---- target: unreachable cluster, timeouts, signals (exit 4 / 1) ---------------------------

fn declared_bed() -> Bed {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    bed.kubeconfig(
        &bed.home.join(".kube/dirqual.config"),
        "https://10.67.2.11:6443",
    );
    bed
}

#[test]
fn connection_refused_is_exit_4_quoting_kubectl() {
    // What kubectl proxy answers when the API server refuses its connection.
    let bed = declared_bed();
    bed.kubectl_cluster(
        &Cluster::dirqual()
            .fault("/=proxy-error:dial tcp 10.67.2.11:6443: connect: connection refused"),
    );
    let out = bed.stable(bed.cmd().arg("target").run());
    out.code(4).no_stdout().stderr_has_hint().stderr_eq(
        "kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable: Unable to connect to the server: dial tcp 10.67.2.11:6443: connect: connection refused | The connection to the server 10.67.2.11:6443 was refused - did you specify the right host or port?\n\
         hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid\n",
    );
}

#[test]
fn unauthorized_and_tls_are_exit_4() {
    let table = Table::new();
    for (fault, message) in [
        (
            "/api=401",
            "error: You must be logged in to the server (Unauthorized)",
        ),
        (
            "/=proxy-error:tls: failed to verify certificate: x509: certificate signed by unknown authority",
            "Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority",
        ),
    ] {
        let bed = declared_bed();
        bed.kubectl_cluster(&Cluster::dirqual().fault(fault));
        let out = bed.cmd().arg("target").run();
        out.code(4);
        table.add(&format!("{fault} ({message})"), &out);
    }
    table.table_snap(str![[r#"
== /api=401 (error: You must be logged in to the server (Unauthorized)): exit 4
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable (credentials refused): error: You must be logged in to the server (Unauthorized)
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid
== /=proxy-error:tls: failed to verify certificate: x509: certificate signed by unknown authority (Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority): exit 4
--- stderr
kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable (TLS failure): Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid

"#]]);
}

#[test]
fn nodes_forbidden_is_exit_1_quoting_the_server() {
    let bed = declared_bed();
    bed.kubectl_cluster(&Cluster::dirqual().fault("GET /api/v1/nodes=403"));
    let out = bed.cmd().arg("target").run();
    out.code(1).no_stdout().stderr_has_hint();
    out.stderr_has("kubectl-nestor: error: cannot read the nodes of https://10.67.2.11:6443: Error from server (Forbidden): nodes is forbidden");
}

#[test]
fn hanging_kubectl_is_killed_with_its_children_after_the_timeout() {
    let bed = declared_bed();
    // Like the Cloud SDK dispatcher: the real work happens in a grandchild.
    bed.stub("kubectl", "sleep 30 & wait");
    let started = Instant::now();
    let out = bed.cmd().args(["target", "--request-timeout", "1s"]).run();
    let took = started.elapsed();
    out.code(4);
    assert!(took < Duration::from_secs(8), "took {took:?}");
    out.stderr_has("was not serving after");
}

#[test]
fn kubectl_killed_by_a_signal_is_a_failure() {
    let bed = declared_bed();
    bed.stub("kubectl", "kill -9 $$");
    let out = bed.cmd().arg("target").run();
    out.code(1);
    out.stderr_has("was killed by signal 9");
}

#[test]
fn kubectl_printing_garbage_is_exit_1() {
    let bed = declared_bed();
    // Its `proxy` prints garbage and exits at once: no proxy, nothing read another way.
    bed.stub("kubectl", "echo 'this is not json'");
    let out = bed.cmd().arg("target").run();
    out.code(1);
    out.stderr_has("kubectl cannot serve nestor's read proxy, so nothing was read");
    out.stderr_has("hint:");
}

#[test]
fn missing_kubectl_says_how_to_install_it() {
    let bed = declared_bed();
    fs::remove_file(bed.bin.join("kubectl")).expect("rm");
    let out = bed
        .cmd()
        .arg("target")
        .env("PATH", bed.bin.display().to_string())
        .run();
    let out = bed.stable(out);
    out.code(1).no_stdout().stderr_has_hint().stderr_eq(
        "kubectl-nestor: error: kubectl not found: no `kubectl` on PATH\n\
         hint: install kubectl (https://kubernetes.io/docs/tasks/tools/) or set NESTOR_KUBECTL=/path/to/kubectl\n",
    );
}

#[test]
fn nestor_kubectl_override_is_used() {
    let bed = declared_bed();
    bed.kubectl_serving_nodes(&nodes_dirqual());
    fs::rename(bed.bin.join("kubectl"), bed.tmp.path().join("my-kubectl")).expect("mv");
    let out = bed
        .cmd()
        .arg("target")
        .env("NESTOR_KUBECTL", bed.tmp.path().join("my-kubectl"))
        .run();
    out.code(0);
    assert_eq!(bed.reads().len(), 1);
}

#[test]
fn verbose_prints_argv_without_secrets() {
    let bed = declared_bed();
    bed.kubectl_serving_nodes(&nodes_dirqual());
    let out = bed.cmd().args(["target", "-v"]).run();
    out.code(0);
    let err = stderr_of(&out);
    out.stderr_snap(str![[r#"
kubectl-nestor: exec: kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@dirqual --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache config view --minify -o=json
kubectl-nestor: exec: exit 0 in #.#s: kubectl
kubectl-nestor: step: authority (kubectl config view) #.#..#.# ms
kubectl-nestor: read path: proxy (one kubectl proxy on a private unix socket)
kubectl-nestor: exec: kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=kubernetes-admin@dirqual --server=https://10.67.2.11:6443 --request-timeout=10s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock '--reject-methods=^(?:[^GH].*|G|GE|G[^E].*|GE[^T].*|GET.+|H|HE|HEA|H[^E].*|HE[^A].*|HEA[^D].*|HEAD.+)$' '--accept-paths=^/api/v1/nodes$' '--reject-paths=/secrets(/|$),/token(/|$),/proxy(/|$),/exec(/|$),/attach(/|$),/portforward(/|$),/log(/|$)' (in the background)
kubectl-nestor: proxy: serving after #.#s (pid #)
kubectl-nestor: step: proxy start (until its socket accepts) #.#..#.# ms
kubectl-nestor: round 1: 1 reads, 1 GETs at once (at most 64 in flight)
kubectl-nestor: get: /api/v1/nodes: 200 (9221 bytes, decoded as they arrived) in #.#s
kubectl-nestor: step: reads round 1 (1 reads) #.#..#.# ms
kubectl-nestor: memory budget: 0.0 MiB of 48 MiB kept from this run's answers
kubectl-nestor: exec: stopped after #.#s: kubectl
kubectl-nestor: usage: own cpu # ms (user # + sys #), own peak rss # KiB; children cpu # ms, largest child rss # KiB
kubectl-nestor: step: run #.#..#.# ms

"#]]);
    assert!(!err.contains("U0VDUkVU"), "{err}");
}

#[test]
fn home_unset_passes_a_cache_dir_outside_the_repo() {
    let bed = Bed::new();
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace("~/.kube/dirqual.config", "/KC"),
    );
    bed.select("dirqual");
    let kc = bed.kubeconfig(&bed.tmp.path().join("kc"), "https://10.67.2.11:6443");
    bed.kubectl_serving_nodes(&nodes_dirqual());
    let out = bed
        .cmd()
        .arg("target")
        .env_remove("HOME")
        .args(["--kubeconfig", kc.to_str().unwrap_or_default()])
        .run();
    out.code(0);
    let calls = bed.calls("kubectl");
    let cache = calls[0]
        .iter()
        .find(|a| a.starts_with("--cache-dir="))
        .cloned()
        .unwrap_or_default();
    assert!(!cache.is_empty(), "{calls:?}");
    assert!(!cache.contains(bed.repo.to_str().unwrap_or("?")), "{cache}");
}

// ---- the allowlist, through the real process layer and a recording stub ---------------------

#[test]
fn allowlist_refuses_before_spawning() {
    let bed = Bed::new();
    let env = Environment {
        kubectl: Some(bed.bin.join("kubectl")),
        limactl: Some(bed.bin.join("limactl")),
        ssh: Some(bed.bin.join("ssh")),
        ..Environment::default()
    };
    let runner = Runner::new(&env, Duration::from_secs(5), false);
    let k = |s: &str| {
        let mut v = vec!["--kubeconfig=/tmp/k".to_string()];
        v.extend(s.split_whitespace().map(String::from));
        v
    };
    let refused: Vec<(Tool, Vec<String>)> = vec![
        (Tool::Kubectl, k("apply -f x.yaml")),
        (Tool::Kubectl, k("create namespace x")),
        (Tool::Kubectl, k("patch node dirqual1 -p {}")),
        (Tool::Kubectl, k("delete namespace rook-ceph")),
        (Tool::Kubectl, k("edit node dirqual1")),
        (Tool::Kubectl, k("label node dirqual1 a=b")),
        (Tool::Kubectl, k("annotate node dirqual1 a=b")),
        (Tool::Kubectl, k("scale deployment x --replicas=0")),
        (Tool::Kubectl, k("rollout restart deployment x")),
        (Tool::Kubectl, k("drain dirqual2")),
        (Tool::Kubectl, k("cordon dirqual2")),
        (Tool::Kubectl, k("exec -it pod -- sh")),
        (Tool::Kubectl, k("port-forward pod 8080:80")),
        (Tool::Kubectl, k("proxy")),
        (Tool::Kubectl, k("proxy --port=8001")),
        (Tool::Kubectl, k("proxy --unix-socket=/tmp/s")),
        (
            Tool::Kubectl,
            k("proxy --unix-socket=/tmp/s --reject-methods=^POST$"),
        ),
        (Tool::Kubectl, k("config use-context other")),
        (Tool::Kubectl, k("config set-context other")),
        (Tool::Kubectl, k("auth can-i list nodes")),
        (Tool::Kubectl, k("get secrets -A -o json")),
        (Tool::Kubectl, k("get nodes --watch")),
        (Tool::Kubectl, vec!["get".into(), "nodes".into()]),
        (Tool::Limactl, vec!["start".into(), "node1".into()]),
        (Tool::Limactl, vec!["stop".into(), "node1".into()]),
        (Tool::Limactl, vec!["delete".into(), "node1".into()]),
        (Tool::Limactl, vec!["shell".into(), "node1".into()]),
        (
            Tool::Ssh,
            [
                "-o",
                "ConnectTimeout=5",
                "root@10.67.2.11",
                "rm",
                "-rf",
                "/",
            ]
            .map(String::from)
            .to_vec(),
        ),
        (
            Tool::Ssh,
            [
                "-o",
                "ConnectTimeout=5",
                "-o",
                "StrictHostKeyChecking=no",
                "root@h",
                "true",
            ]
            .map(String::from)
            .to_vec(),
        ),
    ];
    for (tool, argv) in refused {
        let result = runner.run(tool, &argv);
        match result {
            Err(e) => assert!(
                matches!(e.failure, Failure::Refused { .. }),
                "{argv:?}: {e:?}"
            ),
            Ok(_) => panic!("{argv:?} ran"),
        }
        let msg = runner.run(tool, &argv).err().map(|e| e.into_error());
        assert!(msg.is_some_and(|e| e.message.starts_with("internal: refused to run")));
    }
    assert_eq!(
        fs::read_to_string(&bed.log).unwrap_or_default(),
        "",
        "a refused command ran"
    );
    // The recording stub does run what is allowed: the check above can fail.
    let ok = runner.run(Tool::Limactl, &["list".to_string(), "--json".to_string()]);
    assert!(ok.is_ok());
    assert_eq!(
        bed.calls("limactl"),
        vec![vec!["list".to_string(), "--json".to_string()]]
    );
}

// ---- topology errors: message, line:column, exit 1, nothing written -------------------------

#[test]
fn topology_errors_name_file_line_column() {
    let cases: &[(&str, &str, &str)] = &[
        ("name: a\ntarget_kind: prod\nkubconfig: x\n", "a.yaml:3:1: unknown key `kubconfig` (did you mean `kubeconfig`?)", "valid keys here: name, target_kind"),
        ("name: a\ntarget_kind: prd\n", "a.yaml:2:14: unknown target_kind `prd` (did you mean `prod`?)", "target_kind is one of: lima, prod"),
        ("name: b\ntarget_kind: prod\n", "a.yaml:1:7: stack name `b` differs from the file name `a.yaml`", "rename the file"),
        ("name: a\ntarget_kind: prod\nnodes:\n  - {name: n1, role: worker}\n  - {name: n1, role: worker}\n", "a.yaml:5:12: duplicate node `n1`", "declared once"),
        ("name: a\ntarget_kind: prod\nnodes:\n  - name: n1\n    rol: worker\n", "a.yaml:5:5: unknown key `rol` (did you mean `role`?)", "valid keys here: name, role"),
        ("name: a\ntarget_kind: prod\nnodes:\n  - name: \"--kubeconfig=/x\"\n    role: worker\n", "a.yaml:4:11: node name `--kubeconfig=/x` is not a valid Kubernetes node name", "lowercase"),
        ("name: a\ntarget_kind: prod\nnodes:\n  - name: \"n1;reboot\"\n    role: worker\n", "a.yaml:4:11: node name `n1;reboot` is not a valid", "lowercase"),
        ("name: a\ntarget_kind: prod\nlayers: [k8s, cpeh]\n", "a.yaml:3:15: unknown layer `cpeh` (did you mean `ceph`?)", "known layers:"),
        ("name: a\ntarget_kind: prod\nlayers: [k8s, k8s]\n", "a.yaml:3:15: layer `k8s` is listed twice", "once"),
        ("name: a\ntarget_kind: foo\n", "a.yaml:2:14: unknown target_kind `foo`", "lima, prod"),
        ("name: a\ntarget_kind: prod\nnodes:\n  - name: n1\n    role: master\n", "a.yaml:5:11: unknown role `master`", "control-plane, worker"),
        ("name: a\ntarget_kind: prod\nendpoint: 10.0.0.1:6443\n", "a.yaml:3:11: endpoint `10.0.0.1:6443` is not an http(s) URL", "https://"),
        ("target_kind: prod\n", "a.yaml:1:1: missing required key `name`", "add `name:`"),
        ("name: a\ntarget_kind: prod\nnodes: 3\n", "a.yaml:3:8: invalid type: integer `3`, expected a sequence", "fix the file"),
        ("name: a\ntarget_kind: lima\nlima:\n  instance_prefx: x\n", "a.yaml:4:3: unknown key `instance_prefx` (did you mean `instance_prefix`?)", "instance_prefix"),
        ("name: a\ntarget_kind: prod\nadmin_conf: \"/etc/k; rm -rf /\"\n", "a.yaml:3:13: admin_conf `/etc/k; rm -rf /` is not a plain absolute path", "absolute"),
        ("name: a\ntarget_kind: prod\ncontext: \"\"\n", "a.yaml:3:10: context `` is not a context name", "kubectl config current-context"),
        ("name: a\ntarget_kind: prod\ncontext: \"a\\u001b[2J\"\n", "a.yaml:3:10: context `a\\u{1b}[2J` is not a context name", "no control characters"),
        ("", "a.yaml: the topology file is empty", "name:"),
    ];
    // Each case's whole output (an error line, a hint, nothing on stdout) in one table; the
    // case's name is the message and the hint it must hold.
    let table = Table::new();
    for (yaml, message, hint) in cases {
        let bed = Bed::new();
        bed.write_stack("a", yaml);
        let before = bed.tree();
        let out = bed.cmd().args(["--stack", "a", "stack", "show"]).run();
        out.code(1).no_stdout().stderr_has_hint();
        table.add(&format!("{message} / {hint}"), &out);
        assert_eq!(bed.tree(), before);
    }
    table.table_snap(str![[r#"
== a.yaml:3:1: unknown key `kubconfig` (did you mean `kubeconfig`?) / valid keys here: name, target_kind: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:3:1: unknown key `kubconfig` (did you mean `kubeconfig`?)
hint: valid keys here: name, target_kind, kubeconfig, endpoint, context, inventory, control_group, admin_conf, nodes, layers, catalog, lima, acknowledged
== a.yaml:2:14: unknown target_kind `prd` (did you mean `prod`?) / target_kind is one of: lima, prod: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:2:14: unknown target_kind `prd` (did you mean `prod`?)
hint: target_kind is one of: lima, prod
== a.yaml:1:7: stack name `b` differs from the file name `a.yaml` / rename the file: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:1:7: stack name `b` differs from the file name `a.yaml`
hint: rename the file to `b.yaml` or set `name: a`
== a.yaml:5:12: duplicate node `n1` / declared once: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:5:12: duplicate node `n1`
hint: each node is declared once under `nodes:`
== a.yaml:5:5: unknown key `rol` (did you mean `role`?) / valid keys here: name, role: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:5:5: unknown key `rol` (did you mean `role`?)
hint: valid keys here: name, role
== a.yaml:4:11: node name `--kubeconfig=/x` is not a valid Kubernetes node name / lowercase: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:4:11: node name `--kubeconfig=/x` is not a valid Kubernetes node name (DNS-1123)
hint: use lowercase letters, digits, '-' and '.', starting and ending with a letter or digit
== a.yaml:4:11: node name `n1;reboot` is not a valid / lowercase: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:4:11: node name `n1;reboot` is not a valid Kubernetes node name (DNS-1123)
hint: use lowercase letters, digits, '-' and '.', starting and ending with a letter or digit
== a.yaml:3:15: unknown layer `cpeh` (did you mean `ceph`?) / known layers:: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:3:15: unknown layer `cpeh` (did you mean `ceph`?)
hint: known layers: audit-log, ceph, certs, cni, cni-encryption, datalake, dataops, encryption-at-rest, etcd-backup, gateway, gitops, hubble, k8s, kube-proxy-replacement, monitoring, network-policy, os-hardening, pod-security, registry, sshd-hardening, storage (add others with a `catalog:` file)
== a.yaml:3:15: layer `k8s` is listed twice / once: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:3:15: layer `k8s` is listed twice
hint: list each layer once under `layers:`
== a.yaml:2:14: unknown target_kind `foo` / lima, prod: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:2:14: unknown target_kind `foo`
hint: target_kind is one of: lima, prod
== a.yaml:5:11: unknown role `master` / control-plane, worker: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:5:11: unknown role `master`
hint: role is one of: control-plane, worker
== a.yaml:3:11: endpoint `10.0.0.1:6443` is not an http(s) URL / https://: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:3:11: endpoint `10.0.0.1:6443` is not an http(s) URL
hint: write the API server URL alone, e.g. https://10.67.2.11:6443
== a.yaml:1:1: missing required key `name` / add `name:`: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:1:1: missing required key `name`
hint: add `name:`; `kubectl nestor discover --kubeconfig FILE --emit-topology` prints a complete topology
== a.yaml:3:8: invalid type: integer `3`, expected a sequence / fix the file: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:3:8: invalid type: integer `3`, expected a sequence
hint: fix the file at that line; `kubectl nestor discover --kubeconfig FILE --emit-topology` prints a valid topology to compare with
== a.yaml:4:3: unknown key `instance_prefx` (did you mean `instance_prefix`?) / instance_prefix: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:4:3: unknown key `instance_prefx` (did you mean `instance_prefix`?)
hint: valid keys here: instance_prefix
== a.yaml:3:13: admin_conf `/etc/k; rm -rf /` is not a plain absolute path / absolute: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:3:13: admin_conf `/etc/k; rm -rf /` is not a plain absolute path
hint: use an absolute path of letters, digits, '/', '.', '_' and '-', e.g. /etc/kubernetes/admin.conf
== a.yaml:3:10: context `` is not a context name / kubectl config current-context: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:3:10: context `` is not a context name
hint: write the kubeconfig's current-context as `kubectl config current-context` prints it (at most 253 characters, no control characters), or remove the key
== a.yaml:3:10: context `a\u{1b}[2J` is not a context name / no control characters: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml:3:10: context `a\u{1b}[2J` is not a context name
hint: write the kubeconfig's current-context as `kubectl config current-context` prints it (at most 253 characters, no control characters), or remove the key
== a.yaml: the topology file is empty / name:: exit 1
--- stderr
kubectl-nestor: error: /t/repo/stacks/a.yaml: the topology file is empty
hint: a topology needs at least `name:` and `target_kind:` (an empty file is what a failed `discover ... > stacks/NAME.yaml` leaves: remove it); `kubectl nestor discover --kubeconfig FILE --emit-topology` prints a complete one

"#]]);
}

#[test]
fn stacks_dir_and_active_stack_errors() {
    let bed = Bed::new();
    let nowhere = bed.tmp.path().join("nowhere");
    fs::create_dir_all(&nowhere).expect("mkdir");
    // No stacks/ walking up from a directory outside the repo.
    let out = bed
        .cmd()
        .current_dir(&nowhere)
        .args(["stack", "list"])
        .run();
    out.code(1);
    out.stderr_has("no stacks/ directory in");
    // An explicit stacks dir that does not exist.
    let out = bed
        .cmd()
        .args(["--stacks-dir", "/does/not/exist", "stack", "list"])
        .run();
    out.code(1).no_stdout().stderr_snap(str![[r#"
kubectl-nestor: error: stacks directory /does/not/exist (from --stacks-dir) does not exist
hint: pass the `stacks/` directory of your platform repo with --stacks-dir

"#]]);
    // No active stack.
    bed.write_stack("dirqual", PROD_DECLARED);
    let out = bed.cmd().args(["stack", "show"]).run();
    out.code(1);
    out.stderr_has("no active stack");
    out.stderr_has("hint: run `kubectl nestor stack select NAME`");
    // A dangling current.yaml.
    bed.select("gone");
    let out = bed.cmd().args(["stack", "show"]).run();
    out.code(1);
    out.stderr_has("points at gone.yaml, which does not exist");
    // An unknown stack name, with a suggestion.
    let out = bed.cmd().args(["--stack", "dirqal", "stack", "show"]).run();
    out.code(1);
    out.stderr_has("no stack `dirqal` in");
    out.stderr_has("(did you mean `dirqual`?)");
    // NESTOR_STACKS_DIR is honoured.
    let out = bed
        .cmd()
        .current_dir(&nowhere)
        .env("NESTOR_STACKS_DIR", &bed.stacks)
        .args(["stack", "list"])
        .run();
    out.code(0);
    out.stdout_has("dirqual  prod");
}

// ---- stack list / show / env ----------------------------------------------------------------

#[test]
fn stack_list_marks_the_active_stack_and_flags_invalid_files() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("dirqual");
    let out = bed.cmd().args(["stack", "list"]).run();
    out.code(0);
    assert_eq!(
        stdout_of(&out),
        "   NAME     KIND  KUBECONFIG\n   bench    lima  bench/lima/.work/kubeconfig\n*  dirqual  prod  ~/.kube/dirqual.config\n"
    );
    // A catalog file beside the stacks is not a stack.
    fs::write(
        bed.stacks.join("layers.yaml"),
        "- id: extra\n  title: Extra\n  detect: [{namespace: extra}]\n",
    )
    .expect("write");
    let out = bed.cmd().args(["stack", "list"]).run();
    out.code(0);
    out.stdout_snap(str![[r#"
   NAME     KIND  KUBECONFIG
   bench    lima  bench/lima/.work/kubeconfig
*  dirqual  prod  ~/.kube/dirqual.config

"#]]);
    bed.write_stack("broken", "name: broken\ntarget_kind: prod\nfoo: 1\n");
    let out = bed.cmd().args(["stack", "list", "-o", "json"]).run();
    out.code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout_bytes).expect("json");
    crate::doc_schema::check(&v);
    assert_eq!(v["kind"], "StackList");
    assert_eq!(v["active"], "dirqual");
    assert_eq!(v["stacks"][1]["name"], "broken");
    // The whole document: the broken stack's error included.
    out.stdout_snap(str![[r#"
{
  "apiVersion": "nestor/v1",
  "kind": "StackList",
  "stacksDir": "/t/repo/stacks",
  "active": "dirqual",
  "stacks": [
    {
      "name": "bench",
      "file": "/t/repo/stacks/bench.yaml",
      "targetKind": "lima",
      "kubeconfig": "bench/lima/.work/kubeconfig",
      "active": false,
      "error": null,
      "warnings": []
    },
    {
      "name": "broken",
      "file": "/t/repo/stacks/broken.yaml",
      "targetKind": null,
      "kubeconfig": null,
      "active": false,
      "error": "/t/repo/stacks/broken.yaml:3:1: unknown key `foo`",
      "warnings": []
    },
    {
      "name": "dirqual",
      "file": "/t/repo/stacks/dirqual.yaml",
      "targetKind": "prod",
      "kubeconfig": "~/.kube/dirqual.config",
      "active": true,
      "error": null,
      "warnings": []
    }
  ],
  "nestorVersion": "0.1.0"
}

"#]]);
    out.stderr_has("broken.yaml:3:1: unknown key `foo`");
}

/// Several invalid stack files: each is named in the error, with its own line, not only the
/// first; and the hints point at what a krew user has (`discover --emit-topology`), never at
/// the repository's examples/.
#[test]
fn stack_list_reports_every_invalid_file() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.write_stack("broken", "name: broken\ntarget_kind: prod\nfoo: 1\n");
    bed.write_stack("empty", "");
    bed.write_stack("nokind", "name: nokind\n");
    let out = bed.cmd().args(["stack", "list"]).run();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with("kubectl-nestor: error: 3 stack files are invalid: "),
        "{err}"
    );
    assert!(lines[1].starts_with("hint: "), "{err}");
    // The whole stderr: each invalid file named, the hint naming `--emit-topology`.
    out.stderr_snap(str![[r#"
kubectl-nestor: error: 3 stack files are invalid: /t/repo/stacks/broken.yaml:3:1: unknown key `foo`; /t/repo/stacks/empty.yaml: the topology file is empty; /t/repo/stacks/nokind.yaml:1:1: missing required key `target_kind`
hint: valid keys here: name, target_kind, kubeconfig, endpoint, context, inventory, control_group, admin_conf, nodes, layers, catalog, lima, acknowledged; a topology needs at least `name:` and `target_kind:` (an empty file is what a failed `discover ... > stacks/NAME.yaml` leaves: remove it); `kubectl nestor discover --kubeconfig FILE --emit-topology` prints a complete one; add `target_kind:`; `kubectl nestor discover --kubeconfig FILE --emit-topology` prints a complete topology

"#]]);
    // Every stack is still listed, the invalid ones as such.
    let text = stdout_of(&out);
    for name in ["broken", "empty", "nokind"] {
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == [name, "invalid", "-"]),
            "{name}: {text}"
        );
    }
    out.stdout_snap(str![[r#"
   NAME     KIND     KUBECONFIG
   broken   invalid  -
   dirqual  prod     ~/.kube/dirqual.config
   empty    invalid  -
   nokind   invalid  -

"#]]);
}

#[test]
fn stack_env_prints_a_shell_safe_export() {
    let bed = Bed::new();
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace("~/.kube/dirqual.config", "\"~/it's here/dirqual.config\""),
    );
    let out = bed.cmd().args(["stack", "env", "dirqual"]).run();
    out.code(0);
    let line = stdout_of(&out);
    let expected_path = bed.home.join("it's here/dirqual.config");
    // Let a real shell read it back.
    let echoed = Run::new("sh")
        .arg("-c")
        .arg(format!("{line}\nprintf %s \"$KUBECONFIG\""))
        .run();
    assert_eq!(
        String::from_utf8_lossy(&echoed.stdout_bytes),
        expected_path.to_string_lossy()
    );
    assert!(line.starts_with("export KUBECONFIG='"), "{line}");
}

#[test]
fn stack_show_resolves_paths_against_the_repo_root() {
    let bed = Bed::new();
    bed.write_stack(
        "dirqual",
        &format!("{PROD_DECLARED}inventory: bootstrap/hosts.yaml\n"),
    );
    let out = bed
        .cmd()
        .args(["stack", "show", "dirqual", "-o", "json"])
        .run();
    out.code(0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout_bytes).expect("json");
    crate::doc_schema::check(&v);
    assert_eq!(
        v["inventory"].as_str(),
        bed.repo.join("bootstrap/hosts.yaml").to_str()
    );
    assert_eq!(
        v["kubeconfigPath"].as_str(),
        bed.home.join(".kube/dirqual.config").to_str()
    );
    assert_eq!(v["nodes"][0]["role"], "control-plane");
    // A --stack PATH: its own directory is the stacks dir.
    let elsewhere = bed.tmp.path().join("other/stacks");
    fs::create_dir_all(&elsewhere).expect("mkdir");
    fs::write(elsewhere.join("dirqual.yaml"), PROD_DECLARED).expect("write");
    let out = bed
        .cmd()
        .args([
            "--stack",
            elsewhere.join("dirqual.yaml").to_str().unwrap_or_default(),
            "stack",
            "show",
            "-o",
            "json",
        ])
        .run();
    out.code(0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout_bytes).expect("json");
    crate::doc_schema::check(&v);
    assert_eq!(
        v["inventory"].as_str(),
        bed.tmp.path().join("other/bootstrap/hosts.yaml").to_str()
    );
}

// ---- CLI contract ---------------------------------------------------------------------------

#[test]
fn usage_errors_exit_1_not_2() {
    let bed = Bed::new();
    let out = bed.cmd().arg("frobnicate").run();
    out.code(1);
    let out = bed
        .cmd()
        .args(["--request-timeout", "ten", "version"])
        .run();
    out.code(1);
    let out = bed.cmd().arg("--help").run();
    out.code(0);
    // The whole help (every command listed), as help.rs keeps it.
    golden(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/golden/help/kubectl-nestor.txt"),
        &out.stdout,
    );
}

#[test]
fn version_text_and_json() {
    let bed = Bed::new();
    let out = bed.cmd().arg("version").run();
    // This checkout's HEAD, read the way build.rs reads it (a worktree's `.git` is a file).
    let head = {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dotgit = root.join(".git");
        let gitdir = match fs::read_to_string(&dotgit) {
            Ok(t) => PathBuf::from(t.trim().trim_start_matches("gitdir:").trim()),
            Err(_) => dotgit,
        };
        let head = fs::read_to_string(gitdir.join("HEAD")).unwrap_or_default();
        match head.trim().strip_prefix("ref: ") {
            Some(r) => {
                let common = fs::read_to_string(gitdir.join("commondir"))
                    .map(|c| gitdir.join(c.trim()))
                    .unwrap_or(gitdir.clone());
                fs::read_to_string(gitdir.join(r))
                    .or_else(|_| fs::read_to_string(common.join(r)))
                    .unwrap_or_default()
            }
            None => head,
        }
    };
    let commit: String = match head.trim() {
        "" => "unknown".to_string(),
        id => id.chars().take(12).collect(),
    };
    let platform = format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH);
    assert_eq!(
        stdout_of(&out),
        format!(
            "kubectl-nestor {} (commit {commit}, {platform})\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    let out = bed.cmd().args(["version", "-o", "json"]).run();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout_bytes).expect("json");
    crate::doc_schema::check(&v);
    assert_eq!(v["kind"], "Version");
    assert_eq!(v["commit"], commit.as_str());
    assert_eq!(v["platform"], platform.as_str());
}

// ---- NESTOR_READ_PATH is gone (issue 21) -------------------------------------------------------

/// The processes read path was removed: a shell that still sets `NESTOR_READ_PATH` (to
/// `processes`, `proxy` or nothing at all) is refused before anything runs or is written,
/// never silently read another way.
#[test]
fn nestor_read_path_set_to_anything_is_refused_before_anything_runs() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let before = bed.tree();
    for value in ["processes", "proxy", ""] {
        for args in [
            &["preview", "--no-input"][..],
            &["target"],
            &["discover", "--no-input"],
        ] {
            let out = bed.cmd().args(args).env("NESTOR_READ_PATH", value).run();
            out.code(1).no_stdout().stderr_eq(
                "kubectl-nestor: error: NESTOR_READ_PATH is no longer read: nestor reads a cluster only through kubectl proxy, its one read path\n\
                 hint: unset NESTOR_READ_PATH\n",
            );
        }
        // With -o json the error is the Error document too (SPEC §16).
        let out = bed
            .cmd()
            .args(["preview", "--no-input", "-o", "json"])
            .env("NESTOR_READ_PATH", value)
            .run();
        out.code(1);
        let doc = out.json();
        assert_eq!(
            (
                doc["kind"].as_str(),
                doc["exitCode"].as_u64(),
                doc["hint"].as_str()
            ),
            (Some("Error"), Some(1), Some("unset NESTOR_READ_PATH"))
        );
    }
    assert!(
        bed.calls("kubectl").is_empty(),
        "kubectl ran: {:?}",
        bed.calls("kubectl")
    );
    assert!(bed.requests().is_empty(), "{:?}", bed.requests());
    assert_eq!(bed.tree(), before, "something was written");
    // Unset, the same bed reads (through the proxy).
    bed.cmd().args(["preview", "--no-input"]).run().code(0);
    assert!(!bed.requests().is_empty());
}
