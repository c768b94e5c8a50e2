//! Target integrity (issue 10, SPEC §4, §5, §9, §10): the real kubectl, the declared replay
//! server and the DECOY (`support::decoy`, named by `KUBERNETES_MASTER` in every command's
//! environment, and `trap`: kubectl's fallback 127.0.0.1:8080 when free). Every bed checks on drop that the
//! decoy saw nothing. Each case here made the old main read another cluster, print a
//! credential, or let a cluster string drive the terminal.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use snapbox::str;

use crate::bed_or_skip;
use crate::harness::{text_snap, Table};
use crate::support::*;

/// A kubeconfig text: `clusters`, `contexts`, `users` and `current` written as given.
fn kubeconfig(clusters: &str, contexts: &str, users: &str, current: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n{clusters}contexts:\n{contexts}users:\n{users}current-context: {current}\n"
    )
}

const USER: &str = "- name: replay\n  user:\n    token: replay-token\n";
const CONTEXT: &str = "- name: replay\n  context:\n    cluster: replay\n    user: replay\n";

fn write(path: &Path, text: &str) {
    fs::write(path, text).expect("write kubeconfig");
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).expect("chmod");
}

/// Requests that reached the declared server other than a version dispatcher's `/version`
/// probe (the Cloud SDK's kubectl sends one before any command, even `config view`).
fn reads_of(bed: &E2e) -> Vec<String> {
    bed.server
        .audit()
        .into_iter()
        .filter(|e| e.path != "/version")
        .map(|e| e.path)
        .collect()
}

#[test]
fn kubeconfigs_read_differently_by_kubectl_are_refused_and_no_other_cluster_is_read() {
    let bed = bed_or_skip!(E2e::dirqual());
    let ok = bed.server.url();
    let bad = decoy().url();
    let families: Vec<(&str, String, &str)> = vec![
        (
            "misspelt body key: `context:` where `cluster:` belongs (kubectl sees no server)",
            kubeconfig(
                &format!("- name: replay\n  context:\n    server: {ok}\n"),
                CONTEXT,
                USER,
                "replay",
            ),
            "unknown field `context`",
        ),
        (
            "capitalised `Server:` (kubectl's decoder is case-sensitive)",
            kubeconfig(
                &format!("- name: replay\n  cluster:\n    Server: {ok}\n"),
                CONTEXT,
                USER,
                "replay",
            ),
            "unknown field `Server`",
        ),
        (
            "a cluster without server (kubectl falls back to localhost:8080 / KUBERNETES_MASTER)",
            kubeconfig(
                "- name: replay\n  cluster:\n    insecure-skip-tls-verify: true\n",
                CONTEXT,
                USER,
                "replay",
            ),
            "has no server URL",
        ),
        (
            "YAML merge key (go-yaml merges it, nestor's reader does not)",
            format!(
                "x-base: &base\n  server: {ok}\n{}",
                kubeconfig(
                    "- name: replay\n  cluster:\n    <<: *base\n",
                    CONTEXT,
                    USER,
                    "replay"
                )
            ),
            // Refused at its first anchor, before any reader resolves it (issue 21).
            "an anchor (`&name`) (near line 2, column 9): YAML readers do not all resolve it alike",
        ),
        (
            "two clusters with one name",
            kubeconfig(
                &format!(
                    "- name: replay\n  cluster:\n    server: {ok}\n- name: replay\n  cluster:\n    server: {bad}\n"
                ),
                CONTEXT,
                USER,
                "replay",
            ),
            "two clusters are named `replay`",
        ),
        (
            "a look-alike context name with a trailing space, chosen by current-context",
            kubeconfig(
                &format!(
                    "- name: replay\n  cluster:\n    server: {ok}\n- name: other\n  cluster:\n    server: {bad}\n"
                ),
                "- name: replay\n  context:\n    cluster: replay\n    user: replay\n- name: 'replay '\n  context:\n    cluster: other\n    user: replay\n",
                USER,
                "'replay '",
            ),
            "surrounding whitespace",
        ),
        (
            "a server URL with surrounding whitespace",
            kubeconfig(
                &format!("- name: replay\n  cluster:\n    server: ' {ok} '\n"),
                CONTEXT,
                USER,
                "replay",
            ),
            "holds spaces or control characters",
        ),
        (
            "proxy-url routing every request through another host",
            kubeconfig(
                &format!("- name: replay\n  cluster:\n    server: {ok}\n    proxy-url: {bad}\n"),
                CONTEXT,
                USER,
                "replay",
            ),
            "proxy-url",
        ),
    ];
    for (what, text, expected) in &families {
        write(&bed.kubeconfig, text);
        for args in [
            &["preview", "--no-input", "-o", "json"][..],
            &["discover", "--no-input"],
            &["target", "--no-input"],
        ] {
            let before = bed.tree();
            let r = bed.run(args);
            r.code(1);
            assert!(
                r.stderr.contains(expected),
                "{what}: want `{expected}`: {r:?}"
            );
            r.no_result();
            assert_eq!(bed.tree(), before, "{what}: nothing written");
            assert_decoy_untouched();
        }
    }
    assert!(reads_of(&bed).is_empty(), "{:?}", reads_of(&bed));
    // A JSON-form kubeconfig is read the same by both: accepted, the declared server read.
    let json = format!(
        r#"{{"apiVersion":"v1","kind":"Config","clusters":[{{"name":"replay","cluster":{{"server":"{ok}"}}}}],"contexts":[{{"name":"replay","context":{{"cluster":"replay","user":"replay"}}}}],"users":[{{"name":"replay","user":{{"token":"replay-token"}}}}],"current-context":"replay"}}"#
    );
    write(&bed.kubeconfig, &json);
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    assert_eq!(r.json()["target"]["endpoint"], ok.as_str());
    assert!(!reads_of(&bed).is_empty());
}

/// Every kubectl call carries the confirmed context and server (and `--cache-dir`).
#[test]
fn every_kubectl_call_is_pinned_to_the_confirmed_target() {
    let bed = bed_or_skip!(E2e::dirqual());
    let r = bed.run(&["preview", "--no-input", "-v"]);
    r.code(0);
    let mut calls: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("kubectl-nestor: exec: kubectl "))
        .collect();
    assert!(calls.len() >= 2, "{}", r.stderr);
    // kubectl's `config view` and the proxy start side by side: their order is the
    // scheduler's, so sorted.
    calls.sort_unstable();
    // Each call whole: `--context=replay`, `--server=` the confirmed server, `--cache-dir=`
    // (the proxy's accept list is the read plan's, which every catalog change moves, so
    // `[..]` here: readpath.rs holds the proxy to it).
    text_snap(
        &r.redact_text(&calls.join("\n")),
        str![[r#"
kubectl-nestor: exec: kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=replay --server=http://127.0.0.1:PORT --request-timeout=10s --cache-dir=/t/home/.kube/cache config view --minify -o=json
kubectl-nestor: exec: kubectl --kubeconfig=/t/home/.kube/dirqual.config --context=replay --server=http://127.0.0.1:PORT --request-timeout=10s --cache-dir=/t/home/.kube/cache proxy --unix-socket=/tmp/kubectl-nestor-XXXXXX/proxy.sock '--reject-methods=^(?:[^GH].*|G|GE|G[^E].*|GE[^T].*|GET.+|H|HE|HEA|H[^E].*|HE[^A].*|HEA[^D].*|HEAD.+)$' '--accept-paths=[..]' '--reject-paths=/secrets(/|$),/token(/|$),/proxy(/|$),/exec(/|$),/attach(/|$),/portforward(/|$),/log(/|$)' (in the background)
"#]],
    );
}

/// The file is rewritten between nestor's reads (a good and a decoy server, swapped by
/// rename in a loop): whatever each run sees, it reads the declared server or refuses.
#[test]
fn a_kubeconfig_swapped_between_reads_never_reaches_another_cluster() {
    let bed = bed_or_skip!(E2e::dirqual());
    let ok = bed.server.url();
    let good = bed.server.kubeconfig();
    let evil = good.replace(&ok, &decoy().url());
    let stop = Arc::new(AtomicBool::new(false));
    let path = bed.kubeconfig.clone();
    let swapper = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let tmp = path.with_extension("swap");
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let text = if n % 2 == 0 { &evil } else { &good };
                let _ = fs::write(&tmp, text);
                let _ = fs::rename(&tmp, &path);
                n += 1;
                std::thread::sleep(std::time::Duration::from_millis(3));
            }
            n
        })
    };
    let mut outcomes = std::collections::BTreeMap::new();
    for _ in 0..12 {
        let r = bed.run(&["preview", "--no-input", "-o", "json"]);
        match r.code {
            Some(0) => assert_eq!(r.json()["target"]["endpoint"], ok.as_str(), "{r:?}"),
            Some(1) | Some(3) | Some(4) => {
                r.no_result();
            }
            _ => panic!("unexpected outcome {r:?}"),
        }
        *outcomes.entry(r.code).or_insert(0) += 1;
        assert_decoy_untouched();
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().expect("swapper");
    eprintln!("outcomes over {swaps} swaps: {outcomes:?}");
    write(&bed.kubeconfig, &bed.server.kubeconfig());
}

fn versioned_kubectl(version: &str) -> Option<PathBuf> {
    let real = real_kubectl()?;
    let dir = fs::canonicalize(&real).ok()?.parent()?.to_path_buf();
    let p = dir.join(format!("kubectl.{version}"));
    p.is_file().then_some(p)
}

/// kubectl 1.33's preference file may default `--context` for `get` and `proxy` and turn the
/// proxy's filter off: nestor's kubectl calls never read it.
#[test]
fn kuberc_never_redirects_nestor_kubectl_calls() {
    let Some(k133) = versioned_kubectl("1.33") else {
        eprintln!("SKIP kuberc_never_redirects_nestor_kubectl_calls: no kubectl.1.33 beside kubectl (kuberc needs kubectl >= 1.33)");
        return;
    };
    let bed = bed_or_skip!(E2e::dirqual());
    let ok = bed.server.url();
    let bad = decoy().url();
    write(
        &bed.kubeconfig,
        &kubeconfig(
            &format!(
                "- name: replay\n  cluster:\n    server: {ok}\n- name: other\n  cluster:\n    server: {bad}\n"
            ),
            "- name: replay\n  context:\n    cluster: replay\n    user: replay\n- name: other\n  context:\n    cluster: other\n    user: replay\n",
            USER,
            "replay",
        ),
    );
    fs::write(
        bed.home.join(".kube/kuberc"),
        "apiVersion: kubectl.config.k8s.io/v1alpha1\nkind: Preference\noverrides:\n\
         - command: get\n  flags:\n  - name: context\n    default: other\n\
         - command: proxy\n  flags:\n  - name: context\n    default: other\n  - name: disable-filter\n    default: \"true\"\n\
         - command: config view\n  flags:\n  - name: context\n    default: other\n",
    )
    .expect("kuberc");
    // The preference file is live for this kubectl: a plain `get` follows it to the decoy's
    // context (proved without dialling it: the error names the other context's server).
    let probe = Run::new(&k133)
        .args([
            &format!("--kubeconfig={}", bed.kubeconfig.display()),
            "config",
            "view",
            "--minify",
            "-o",
            "jsonpath={.current-context}",
        ])
        .env("HOME", &bed.home)
        .env("KUBECTL_KUBERC", "true")
        .run();
    probe.stdout_eq("other");
    let mut c = bed.command(&["preview", "--no-input", "-o", "json"]);
    c.env("NESTOR_KUBECTL", &k133).env("KUBECTL_KUBERC", "true");
    let r = run(&c);
    r.code(0);
    assert_eq!(r.json()["target"]["endpoint"], ok.as_str());
    assert_eq!(r.json()["target"]["context"], "replay");
    assert_decoy_untouched();
}

/// A relative HOME: kubectl's cache never lands in the repo (or the current directory).
#[test]
fn a_relative_home_leaves_the_repo_tree_unchanged() {
    let bed = bed_or_skip!(E2e::dirqual());
    let kc = bed.kubeconfig.to_str().unwrap_or_default().to_string();
    let before = tree_of(&bed.repo, &[]);
    for args in [
        &["--kubeconfig", &kc, "preview", "--no-input"][..],
        &["--kubeconfig", &kc, "discover", "--no-input"],
        &["--kubeconfig", &kc, "target", "--no-input"],
    ] {
        let mut c = bed.command(args);
        c.env("HOME", "relhome");
        let r = run(&c);
        r.code(0);
    }
    assert_eq!(tree_of(&bed.repo, &[]), before, "the repo tree changed");
    assert!(!bed.repo.join("relhome").exists());
}

/// `--kubeconfig a:b` is a list, refused like a `KUBECONFIG` list (exit 3), nothing read.
#[test]
fn a_kubeconfig_flag_list_is_refused() {
    let bed = bed_or_skip!(E2e::dirqual());
    let list = format!("{}:{}", bed.kubeconfig.display(), bed.kubeconfig.display());
    for cmd in ["preview", "discover", "target"] {
        let r = bed.run(&["--kubeconfig", &list, cmd, "--no-input"]);
        r.error(3, "--kubeconfig lists 2 files");
    }
    assert!(bed.server.audit().is_empty());
}

/// SPEC §5 for `discover` (plain, `--save`, `--emit-topology`) and `target`: a stack whose
/// kubeconfig points at another cluster is refused without a prompt, before kubectl runs,
/// naming the rule that chose the kubeconfig.
#[test]
fn discover_and_target_follow_the_endpoint_policy() {
    let bed = bed_or_skip!(E2e::dirqual());
    bed.kubeconfig_for(&bed.kubeconfig, &decoy().url());
    let snap = bed.tmp.path().join("snap.json");
    let snap = snap.to_str().unwrap_or_default();
    let table = Table::new();
    for args in [
        &["discover", "--no-input"][..],
        &["discover", "--no-input", "-o", "json"],
        &["discover", "--no-input", "--emit-topology"],
        &["discover", "--no-input", "--save", snap],
        &["target", "--no-input"],
        &["target", "--no-input", "-o", "json"],
        &["preview", "--no-input"],
    ] {
        let before = bed.tree();
        // (the decoy's port changes each run: DECOY)
        let r = bed
            .run(args)
            .redacted(&decoy().url(), "http://127.0.0.1:DECOY");
        r.error(3, "target mismatch for stack dirqual");
        table.add(&args.join(" "), &r);
        assert_eq!(bed.tree(), before, "{args:?}: nothing written");
    }
    // Each command's whole output: the mismatch, chosen by `(rule topology: the topology's
    // kubeconfig:)`.
    table.table_snap(str![[r#"
== discover --no-input: exit 3
--- stderr
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:DECOY, the topology's endpoint is http://127.0.0.1:PORT; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)
== discover --no-input -o json: exit 3
--- stdout
{
  "apiVersion": "nestor/v1",
  "kind": "Error",
  "message": "target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:DECOY, the topology's endpoint is http://127.0.0.1:PORT; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it",
  "hint": "the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)",
  "exitCode": 3,
  "nestorVersion": "0.1.0"
}
--- stderr
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:DECOY, the topology's endpoint is http://127.0.0.1:PORT; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)
== discover --no-input --emit-topology: exit 3
--- stderr
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:DECOY, the topology's endpoint is http://127.0.0.1:PORT; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)
== discover --no-input --save /t/snap.json: exit 3
--- stderr
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:DECOY, the topology's endpoint is http://127.0.0.1:PORT; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)
== target --no-input: exit 3
--- stderr
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:DECOY, the topology's endpoint is http://127.0.0.1:PORT; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)
== target --no-input -o json: exit 3
--- stdout
{
  "apiVersion": "nestor/v1",
  "kind": "Error",
  "message": "target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:DECOY, the topology's endpoint is http://127.0.0.1:PORT; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it",
  "hint": "the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)",
  "exitCode": 3,
  "nestorVersion": "0.1.0"
}
--- stderr
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:DECOY, the topology's endpoint is http://127.0.0.1:PORT; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)
== preview --no-input: exit 3
--- stderr
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:DECOY, the topology's endpoint is http://127.0.0.1:PORT; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)

"#]]);
    assert!(bed.server.audit().is_empty());
    // Without a stack, `discover --kubeconfig` reads that file's cluster and names none.
    bed.kubeconfig_for(&bed.kubeconfig, &bed.server.url());
    fs::remove_file(bed.stacks.join("current.yaml")).expect("unselect");
    let kc = bed.kubeconfig.to_str().unwrap_or_default().to_string();
    let r = bed.run(&[
        "--kubeconfig",
        &kc,
        "discover",
        "--no-input",
        "--emit-topology",
    ]);
    // The whole topology: `endpoint:` that file's server, no stack named.
    r.code(0).stdout_snap(str![[r#"
# Stack dirqual, written by `kubectl nestor discover --emit-topology` on NOW
# from http://127.0.0.1:PORT (context replay). Review it: declare the layers this stack should have.
name: dirqual
target_kind: prod
kubeconfig: ~/.kube/dirqual.config
endpoint: http://127.0.0.1:PORT
context: replay
# no Ansible inventory found at /t/repo/bootstrap/hosts.yaml: nestor reads no host over ssh (host layers and host gate rules are skipped).
# To read them, set `inventory: PATH` to your Ansible YAML inventory (relative to the repo root).
inventory: none
nodes:
  - { name: dirqual1, role: control-plane }
  - { name: dirqual2, role: worker }
  - { name: dirqual3, role: worker }
  - { name: dirqual4, role: worker }
layers:
  - k8s
  - cni
  - ceph
  - storage
  # - datalake                absent: no CephObjectStore in rook-ceph; no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  # - gateway                 absent: no GatewayClass with .spec.controllerName = io.cilium/gateway-controller
  # - certs                   absent: API group cert-manager.io not served
  - monitoring
  - gitops
  - registry
  - dataops
  # - etcd-backup             unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  - audit-log
  - encryption-at-rest
  # - sshd-hardening          unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  # - os-hardening            unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  # - pod-security            absent: no namespace labelled pod-security.kubernetes.io/enforce
  # - kube-proxy-replacement  absent: no ConfigMap kube-system/cilium-config
  # - hubble                  absent: no ConfigMap kube-system/cilium-config
  # - cni-encryption          absent: no ConfigMap kube-system/cilium-config
  # - network-policy          absent: no NetworkPolicy; no CiliumNetworkPolicy

"#]]);
}

const MARKERS: [&str; 4] = [
    "MARKERTOKEN7f3a",
    "MARKERPASSWORD7f3a",
    "TUFSS0VSS0VZREFUQTdmM2E=",
    "77 65 82 75 69 82",
];

/// Credentials are marker strings; no output and no written file of any command holds one —
/// including when kubectl would dump every user entry (two users with one name).
#[test]
fn no_credential_reaches_any_output_or_file() {
    let bed = bed_or_skip!(E2e::dirqual());
    let ok = bed.server.url();
    let users = "- name: replay\n  user:\n    token: MARKERTOKEN7f3a\n\
                 - name: spare\n  user:\n    username: op\n    password: MARKERPASSWORD7f3a\n    client-key-data: TUFSS0VSS0VZREFUQTdmM2E=\n";
    let clean = kubeconfig(
        &format!("- name: replay\n  cluster:\n    server: {ok}\n"),
        CONTEXT,
        users,
        "replay",
    );
    let duplicate = kubeconfig(
        &format!("- name: replay\n  cluster:\n    server: {ok}\n"),
        CONTEXT,
        &format!("{users}- name: replay\n  user:\n    token: MARKERTOKEN7f3a\n    client-key-data: TUFSS0VSS0VZREFUQTdmM2E=\n"),
        "replay",
    );
    let snap = bed.tmp.path().join("snap.json");
    let snap_s = snap.to_str().unwrap_or_default().to_string();
    let kc = bed.kubeconfig.to_str().unwrap_or_default().to_string();
    for (what, text, code) in [
        ("clean", &clean, None),
        ("duplicate users", &duplicate, Some(1)),
    ] {
        write(&bed.kubeconfig, text);
        for args in [
            &["preview", "--no-input"][..],
            &["preview", "--no-input", "-v", "-o", "json"],
            &["preview", "--no-input", "-o", "yaml"],
            &["discover", "--no-input", "-v"],
            &["discover", "--no-input", "-o", "json"],
            &["discover", "--no-input", "--emit-topology"],
            &["discover", "--no-input", "--save", &snap_s],
            &["target", "--no-input", "-v"],
            &["target", "--no-input", "-o", "yaml"],
            &["--kubeconfig", &kc, "target", "--no-input"],
            &["stack", "show"],
            &["stack", "env"],
        ] {
            let r = bed.run(args);
            if let Some(c) = code.filter(|_| args.first() != Some(&"stack")) {
                assert_eq!(r.code, Some(c), "{what} {args:?}: {r:?}");
            }
            for m in MARKERS {
                assert!(
                    !r.stdout.contains(m) && !r.stderr.contains(m),
                    "{what}: `{m}` printed by {args:?}: {r:?}"
                );
            }
        }
        for (path, bytes) in bed.tree() {
            if path == bed.kubeconfig {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            for m in MARKERS {
                assert!(
                    !text.contains(m),
                    "{what}: `{m}` written to {}",
                    path.display()
                );
            }
        }
    }
    assert!(snap.exists(), "the clean run saved a snapshot");
    write(&bed.kubeconfig, &bed.server.kubeconfig());
}

/// A CephCluster health holding cursor moves and a carriage return reaches the terminal
/// escaped: it cannot redraw a degraded layer as present.
#[test]
fn escape_sequences_in_cluster_data_are_escaped() {
    let mut fixture = nestor_replay::fixtures::by_name("dirqual").expect("fixture");
    let evil = "HEALTH_WARN\u{1b}[1A\u{1b}[2K\rHEALTH_OK";
    let mut found = false;
    for o in fixture.objects.iter_mut() {
        if o["kind"] == "CephCluster" {
            o["status"]["ceph"]["health"] = serde_json::Value::from(evil);
            o["status"]["message"] =
                serde_json::Value::from(format!("ok\u{1b}]0;owned\u{7}{evil}"));
            found = true;
        }
    }
    assert!(found, "the dirqual fixture has a CephCluster");
    let bed = bed_or_skip!(E2e::with_config(nestor_replay::Config::new(fixture)));
    for args in [
        &["preview", "--no-input"][..],
        &["preview", "--no-input", "--detailed-exitcode"],
        &["discover", "--no-input"],
    ] {
        let r = bed.run(args);
        assert!(
            matches!(r.code, Some(0) | Some(2) | Some(5)),
            "{args:?}: {r:?}"
        );
        for (name, out) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            assert!(
                !out.contains('\u{1b}') && !out.contains('\r') && !out.contains('\u{7}'),
                "{args:?}: raw control characters on {name}: {out:?}"
            );
        }
        r.stdout_has("\\x1b[1A");
    }
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    assert_eq!(state_of(&r.json(), "ceph"), "degraded", "{}", r.stdout);
}

/// The proxy starts while kubectl's `config view` runs (issue 25, SPEC §11), but serves
/// nothing before kubectl's view agrees with the pre-check: here kubectl's view (slowed, so
/// that the proxy is serving well before it arrives) names another server. nestor refuses
/// as ever, the proxy was started and stopped unused, and the declared server's audit holds
/// no request from it (nor anything but a dispatcher's `/version`), the decoy nothing.
#[test]
fn a_disagreement_stops_the_early_proxy_having_served_nothing() {
    let bed = bed_or_skip!(E2e::dirqual());
    bed.wrap_kubectl(&format!(
        r#"case " $* " in *" config view "*) sleep 0.5; "$REAL" "$@" | sed 's#{}#{}#g'; exit 0 ;; esac
exec "$REAL" "$@""#,
        bed.server.url(),
        decoy().url()
    ));
    for args in [
        &["preview", "--no-input", "-o", "json", "-v"][..],
        &["discover", "--no-input", "-v"],
        &[
            "-v",
            "wait",
            "--for=present",
            "k8s",
            "--no-input",
            "--timeout",
            "5s",
        ],
    ] {
        let before = bed.tree();
        let r = bed.run(args);
        r.code(1);
        r.stderr_has("is read differently by kubectl and by nestor: server");
        // The overlap really happened: the proxy was serving before the refusal.
        r.stderr_has(" proxy --unix-socket=");
        r.stderr_has("proxy: serving after ");
        r.stderr_has("stopped unused: kubectl's view of the kubeconfig disagrees");
        // With -o json the refusal is also the Error document on stdout (SPEC §16), and
        // nothing else.
        if args.contains(&"json") {
            assert_eq!(r.json()["kind"], "Error", "{args:?}");
        } else {
            assert_eq!(r.stdout, "", "{args:?}");
        }
        assert_eq!(bed.tree(), before, "{args:?}: nothing written");
        let from_proxy: Vec<String> = bed
            .server
            .audit()
            .into_iter()
            .filter(|e| {
                e.user_agent
                    .as_deref()
                    .is_some_and(|u| u.starts_with("kubectl-nestor/"))
            })
            .map(|e| e.path)
            .collect();
        assert!(from_proxy.is_empty(), "{args:?}: {from_proxy:?}");
        assert!(reads_of(&bed).is_empty(), "{args:?}: {:?}", reads_of(&bed));
        assert_decoy_untouched();
    }
    // The same file, kubectl unwrapped: agreed, and the early proxy serves the reads.
    bed.wrap_kubectl(r#"exec "$REAL" "$@""#);
    let r = bed.run(&["preview", "--no-input", "-o", "json", "-v"]);
    r.code(0);
    assert_eq!(
        r.stderr.matches("(in the background)").count(),
        1,
        "one proxy for the whole preview: {}",
        r.stderr
    );
    assert!(!reads_of(&bed).is_empty());
}

/// Credentials written in URLs (issue 21 item 4): a server's `user:pass@` (kubectl sends it
/// as an Authorization header), a bare `user@`, a `proxy-url`'s, a topology endpoint's, a
/// snapshot's endpoint. Each is a unique marker; every command is run on each, and stdout,
/// stderr and every file under the bed (but the inputs that hold the marker) must never hold
/// it. The kubeconfigs are refused before any read, naming why with a hint.
#[test]
fn no_url_credential_is_ever_printed_or_written() {
    let bed = bed_or_skip!(E2e::dirqual());
    let ok = bed.server.url();
    let authority = ok.trim_start_matches("http://").to_string();
    let topology = bed.stacks.join("dirqual.yaml");
    let plain_topology = fs::read_to_string(&topology).expect("topology");
    let plain_kubeconfig = bed.server.kubeconfig();
    let lima_kc = bed.repo.join("bench/lima/.work/kubeconfig");
    fs::create_dir_all(lima_kc.parent().expect("parent")).expect("mkdir");
    bed.write_stack(
        "bench",
        "name: bench\ntarget_kind: lima\nnodes:\n  - { name: node1, role: control-plane }\nlayers: [k8s, cni]\n",
    );
    let limactl = bed.bin.join("limactl");
    fs::write(
        &limactl,
        "#!/bin/sh\n[ \"$*\" = 'list --json' ] || exit 1\necho '{\"name\":\"node1\",\"status\":\"Running\",\"dir\":\"/l/node1\",\"arch\":\"x86_64\",\"cpus\":2,\"memory\":4294967296,\"disk\":107374182400}'\n",
    )
    .expect("write limactl");
    fs::set_permissions(&limactl, fs::Permissions::from_mode(0o755)).expect("chmod");
    // A snapshot of the clean cluster, saved before any marker is written.
    let clean_snap = bed.tmp.path().join("clean.json");
    let clean_s = clean_snap.to_str().unwrap_or_default().to_string();
    bed.run(&["discover", "--no-input", "--save", &clean_s])
        .code(0);
    let snap = bed.tmp.path().join("out.json");
    let snap_s = snap.to_str().unwrap_or_default().to_string();
    let kc = bed.kubeconfig.to_str().unwrap_or_default().to_string();
    let hostile_snap = bed.tmp.path().join("hostile.json");
    let hostile_s = hostile_snap.to_str().unwrap_or_default().to_string();
    let with_server = |server: &str| plain_kubeconfig.replace(&ok, server);
    let with_proxy = plain_kubeconfig.replacen(
        &format!("server: {ok}"),
        &format!("server: {ok}\n    proxy-url: http://squid:MARK3R-PROXY@{authority}"),
        1,
    );
    assert!(with_proxy.contains("MARK3R-PROXY"), "{with_proxy}");
    // (what, marker, stack, kubeconfig text, topology text)
    let cases: Vec<(&str, &str, &str, String, String)> = vec![
        (
            "server user:pass@",
            "MARK3R-PASS",
            "dirqual",
            with_server(&format!("http://admin:MARK3R-PASS@{authority}")),
            plain_topology.clone(),
        ),
        (
            "server user@",
            "MARK3R-USER",
            "dirqual",
            with_server(&format!("http://MARK3R-USER@{authority}")),
            plain_topology.clone(),
        ),
        (
            "proxy-url user:pass@",
            "MARK3R-PROXY",
            "dirqual",
            with_proxy,
            plain_topology.clone(),
        ),
        (
            "topology endpoint user:pass@",
            "MARK3R-ENDPOINT",
            "dirqual",
            plain_kubeconfig.clone(),
            plain_topology.replace(&ok, &format!("http://op:MARK3R-ENDPOINT@{authority}")),
        ),
        (
            "lima server user:pass@",
            "MARK3R-LIMA",
            "bench",
            with_server(&format!("http://admin:MARK3R-LIMA@{authority}")),
            plain_topology.clone(),
        ),
    ];
    let markers: Vec<&str> = cases.iter().map(|c| c.1).chain(["MARK3R-SNAP"]).collect();
    for (what, marker, stack, kubeconfig_text, topology_text) in &cases {
        bed.server.clear_audit();
        write(&bed.kubeconfig, kubeconfig_text);
        // The bench reads nothing but in its own case (a closed port otherwise).
        let closed = format!("http://127.0.0.1:{}", closed_port());
        match *stack {
            "bench" => write(&lima_kc, kubeconfig_text),
            _ => write(&lima_kc, &with_server(&closed)),
        }
        fs::write(&topology, topology_text).expect("topology");
        bed.select(stack);
        let _ = fs::remove_file(&snap);
        for args in [
            &["target", "--no-input"][..],
            &["target", "--no-input", "-v", "-o", "json"],
            &["target", "--no-input", "-o", "yaml"],
            &["preview", "--no-input"],
            &["preview", "--no-input", "-v"],
            &["preview", "--no-input", "-o", "json"],
            &["preview", "--no-input", "-o", "yaml"],
            &["preview", "--no-input", "-o", "junit"],
            &["discover", "--no-input", "-v"],
            &["discover", "--no-input", "-o", "json"],
            &["discover", "--no-input", "--emit-topology"],
            &["discover", "--no-input", "--save", &snap_s],
            &["--kubeconfig", &kc, "target", "--no-input", "-v"],
            &["preview", "--no-input", "--all"],
            &["preview", "--no-input", "--all", "-o", "json"],
            &["diff", "--no-input", &clean_s, "-"],
            &[
                "wait",
                "--no-input",
                "--for=healthy",
                "k8s",
                "--timeout",
                "2s",
            ],
            &["stack", "list"],
            &["stack", "show"],
            &["stack", "show", "-o", "json"],
            &["stack", "env"],
        ] {
            let r = bed.run(args);
            assert!(
                !r.stdout.contains(marker) && !r.stderr.contains(marker),
                "{what}: `{marker}` printed by {args:?}: {r:?}"
            );
            if args.first() == Some(&"preview") {
                // Refused at the pre-check, with the reason and a hint.
                assert_ne!(r.code, Some(0), "{what} {args:?}: {r:?}");
                let said = format!("{} {}", r.stdout, r.stderr)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                assert!(
                    said.contains("holds a user name or password")
                        || said.contains("through proxy-url http://<redacted>@"),
                    "{what} {args:?}: {r:?}"
                );
            }
        }
        assert!(
            bed.server.audit().iter().all(|e| e.path == "/version"),
            "{what}: refused before any read: {:?}",
            bed.server.audit()
        );
        for (path, bytes) in bed.tree() {
            if path == bed.kubeconfig || path == lima_kc || path == topology {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            for m in &markers {
                assert!(
                    !text.contains(m),
                    "{what}: `{m}` written to {}",
                    path.display()
                );
            }
        }
    }
    // A snapshot (another machine's, or edited) whose endpoint holds a credential.
    write(&bed.kubeconfig, &plain_kubeconfig);
    fs::write(&topology, &plain_topology).expect("topology");
    bed.select("dirqual");
    let saved = fs::read_to_string(&clean_snap).expect("snapshot");
    assert!(saved.contains(&ok), "{saved}");
    let hostile = saved.replace(&ok, &format!("http://admin:MARK3R-SNAP@{authority}"));
    assert_ne!(hostile, saved);
    fs::write(&hostile_snap, hostile).expect("write");
    for args in [
        &["diff", "--no-input", &hostile_s, &clean_s][..],
        &["diff", "--no-input", &hostile_s, &clean_s, "--force"],
        &["diff", "--no-input", &hostile_s, "-"],
        &["diff", "--no-input", &hostile_s, "-", "-o", "json"],
        &["preview", "--no-input", "--snapshot", &hostile_s],
        &[
            "preview",
            "--no-input",
            "--snapshot",
            &hostile_s,
            "-o",
            "json",
        ],
    ] {
        let r = bed.run(args);
        assert!(
            !r.stdout.contains("MARK3R-SNAP") && !r.stderr.contains("MARK3R-SNAP"),
            "snapshot: printed by {args:?}: {r:?}"
        );
        // Refused, saying why, whatever the other side.
        r.code(1);
        let said = r.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            said.contains("holds a user name or password"),
            "snapshot {args:?}: {r:?}"
        );
    }
    let _ = fs::remove_file(&hostile_snap);
    for (path, bytes) in bed.tree() {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("MARK3R-SNAP"),
            "snapshot: written to {}",
            path.display()
        );
    }
}
