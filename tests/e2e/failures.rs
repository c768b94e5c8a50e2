//! The failure matrix (issue 5, SPEC §10): each failing tool, unreachable cluster and bad
//! local file, through the real kubectl and the replay server. Each test checks the message,
//! the exit code, and that nothing was written (the temp tree, kubectl's own cache aside, is
//! byte-identical before and after). The failure matrix as recorded, which names these tests,
//! is in docs/measurements-2026-12.md ("Failure matrix"; docs/testing.md points there).

use std::fs;
use std::time::Duration;

use snapbox::str;

use crate::bed_or_skip;
use crate::harness::text_snap;
use crate::support::*;

/// Run `args` and return the result, asserting that nothing in the temp tree changed.
fn run_writing_nothing(bed: &E2e, args: &[&str]) -> Outcome {
    let before = bed.tree();
    let r = bed.run(args);
    assert_eq!(bed.tree(), before, "nothing may be written: {args:?}");
    r
}

/// The read path (the proxy) does not depend on kubectl's printed output at all: the cases
/// below break kubectl's stdout, which nestor never parses (`target` reads its nodes through
/// the proxy too).
fn proxy_path_unaffected(bed: &E2e) {
    let r = run_writing_nothing(bed, &["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    assert_eq!(plan_ids(&v, "install"), ["datalake", "certs"], "{v}");
    assert_eq!(state_of(&v, "k8s"), "present", "{v}");
}

// ---- missing tools ---------------------------------------------------------------------------

#[test]
fn kubectl_missing_is_exit_1_with_an_install_hint() {
    let bed = bed_or_skip!(E2e::dirqual());
    // No kubectl at all: the plugin cannot be reached through kubectl, so run it directly.
    fs::remove_file(bed.bin.join("kubectl")).expect("rm");
    let before = bed.tree();
    let mut direct = Run::new(bed.bin.join("kubectl-nestor"));
    direct
        .args(["preview", "--no-input"])
        .current_dir(&bed.repo)
        .env("HOME", &bed.home)
        .env("PATH", bed.bin.display().to_string());
    let r = run(&direct);
    r.error(1, "kubectl not found: no `kubectl` on PATH");
    r.stderr_has("hint: install kubectl");
    assert_eq!(bed.tree(), before);
    // Through the real kubectl, with NESTOR_KUBECTL pointing nowhere.
    std::os::unix::fs::symlink(&bed.kubectl, bed.bin.join("kubectl")).expect("symlink");
    let mut c = bed.command(&["preview", "--no-input"]);
    c.env("NESTOR_KUBECTL", "/nonexistent/kubectl");
    let before = bed.tree();
    let r = run(&c);
    r.error(
        1,
        "kubectl not found: NESTOR_KUBECTL=/nonexistent/kubectl is not an executable",
    );
    assert_eq!(bed.tree(), before);
    assert!(bed.server.audit().is_empty(), "no read may happen");
}

#[test]
fn limactl_missing_for_a_lima_stack_is_exit_1() {
    let bed = bed_or_skip!(E2e::new("bench", &[]));
    bed.write_stack(
        "bench",
        "name: bench\ntarget_kind: lima\nnodes:\n  - { name: node1, role: control-plane }\n  - { name: node2, role: worker }\n  - { name: node3, role: worker }\nlayers: [k8s, cni]\n",
    );
    bed.select("bench");
    // The bed's prod stack declares this same server: the bench would read prod and be
    // refused (SPEC §14) before limactl is looked for. This bench is alone in its repo.
    fs::remove_file(bed.stacks.join("dirqual.yaml")).expect("rm");
    let bench_kc = bed.repo.join("bench/lima/.work/kubeconfig");
    fs::create_dir_all(bench_kc.parent().expect("parent")).expect("mkdir");
    bed.server.write_kubeconfig(&bench_kc).expect("kubeconfig");
    assert!(
        !std::path::Path::new("/usr/bin/limactl").exists()
            && !std::path::Path::new("/bin/limactl").exists(),
        "this test needs a machine without limactl"
    );
    let r = run_writing_nothing(&bed, &["preview"]);
    r.error(1, "limactl not found: no `limactl` on PATH");
    r.stderr_has("hint: install Lima");
}

// ---- kubectl misbehaving --------------------------------------------------------------------

/// A wrapper that drops `-o json`: the real kubectl then prints its server-side table.
const WITHOUT_OUTPUT_FLAG: &str = r#"skip=0
for a in "$@"; do
  shift
  if [ "$skip" = 1 ]; then skip=0; continue; fi
  if [ "$a" = "-o" ]; then skip=1; continue; fi
  set -- "$@" "$a"
done
exec "$REAL" "$@""#;

/// `target` through a kubectl whose printed output is broken: its nodes still read right.
fn target_unaffected(bed: &E2e) {
    let r = run_writing_nothing(bed, &["target"]);
    r.code(0);
    r.stdout_has("dirqual1..4, 4/4 Ready");
}

#[test]
fn kubectl_printing_non_json_changes_nothing_read_through_the_proxy() {
    let bed = bed_or_skip!(E2e::dirqual());
    bed.wrap_kubectl(WITHOUT_OUTPUT_FLAG);
    target_unaffected(&bed);
    proxy_path_unaffected(&bed);
}

#[test]
fn truncated_output_changes_nothing_read_through_the_proxy() {
    let bed = bed_or_skip!(E2e::dirqual());
    bed.wrap_kubectl(r#""$REAL" "$@" | head -c 1500"#);
    target_unaffected(&bed);
    proxy_path_unaffected(&bed);
}

#[test]
fn kubectl_killed_by_a_signal_is_a_failure_never_a_result() {
    // The nodes list hangs; 1 s after the proxy listens (its socket exists: counted from the
    // spawn, a loaded machine killed it before it served, a different failure) the wrapper
    // SIGKILLs its whole process group (the real kubectl, and the versioned kubectl a
    // dispatcher runs), as an OOM killer would.
    let bed = bed_or_skip!(E2e::new("dirqual", &["/api/v1/nodes=hang:20"]));
    bed.wrap_kubectl(
        r#"case " $* " in *" proxy "*)
  for a in "$@"; do case "$a" in --unix-socket=*) sock="${a#--unix-socket=}";; esac; done
  (n=0; while [ ! -S "$sock" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done; sleep 1; kill -9 0) & ;;
esac
exec "$REAL" "$@""#,
    );
    let r = run_writing_nothing(&bed, &["target"]);
    r.error(1, "cannot read the nodes of ");
    r.stderr_has("the connection closed without an answer");
    assert!(r.took < Duration::from_secs(8), "{r:?}");
    let r = run_writing_nothing(&bed, &["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    assert_eq!(state_of(&v, "k8s"), "unknown", "{r:?}");
    // The whole plan: k8s never planned for install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: datalake, certs
repair: -
undecided: k8s, cni, storage

"#]],
    );
    assert!(
        v["real"]["nodes"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("the connection closed without an answer")),
        "{r:?}"
    );
}

// ---- the cluster unreachable (exit 4) -------------------------------------------------------

/// The bed's stack and kubeconfig pointed at `server` instead of the replay server.
fn pointed_at(bed: &E2e, server: &str) {
    bed.kubeconfig_for(&bed.kubeconfig, server);
    bed.write_stack("dirqual", &dirqual_topology(server));
}

#[test]
fn connection_refused_is_exit_4_with_no_plan() {
    let bed = bed_or_skip!(E2e::dirqual());
    let url = format!("http://127.0.0.1:{}", closed_port());
    pointed_at(&bed, &url);
    let r = run_writing_nothing(&bed, &["preview", "--no-input"]);
    r.error(4, &format!("cluster {url} unreachable: "));
    r.stderr_has("was refused");
    // kubectl's klog lines (five identical ones from 1.27 on) are quoted once, without header.
    assert!(!r.stderr.contains("memcache.go"), "{r:?}");
    assert!(r.first_error_line().len() < 400, "{r:?}");
    let r = run_writing_nothing(&bed, &["target"]);
    r.error(4, &format!("cluster {url} unreachable: "));
    r.stderr_has("was refused");
}

/// A server that accepts the nodes request and never answers (for 300 s) ends the run in exit 4
/// with the timeout named, within `--request-timeout` of that request. The clock starts when
/// the hanging request reaches the server, not when nestor starts: what is proven is that the
/// wait on the hang is cut by the request timeout, and kubectl's start-up (the dispatcher,
/// then the real binary; seconds on a loaded 2-core box) is no part of that. The timeout is
/// 3 s so that every local step before the request (`config view`, the proxy coming up, each
/// bounded by timeout + kill margin = 5 s) has room even on such a box; with 1 s those local
/// steps were the ones killed under load and the run ended on another message.
#[test]
fn server_hanging_past_request_timeout_is_exit_4_in_time() {
    let hanging = || E2e::new("dirqual", &["/api/v1/nodes=hang:300"]);
    // One bed per command (each server's audit holds its own run's one nodes request), the
    // two run at once: each waits out its timeout.
    let (for_preview, for_target) = at_once(hanging, hanging);
    let (for_preview, for_target) = (bed_or_skip!(for_preview), bed_or_skip!(for_target));
    // The request timeout, the kill margin of the process layer (exec::KILL_MARGIN) and 3 s
    // to exit: under the 10 s default timeout (so it is the flag that cut the wait), and far
    // under the 300 s hang.
    let bound = Duration::from_secs(3 + 2 + 3);
    // How long ago the run's (single) nodes request reached the server.
    let after_the_hang = |bed: &E2e, r: &Outcome| {
        let asked = bed.requests_to("/api/v1/nodes");
        assert_eq!(asked.len(), 1, "one nodes request per run: {r:?}");
        assert_eq!(asked[0].status, 0, "the hang never answers: {r:?}");
        Duration::from_millis(unix_ms().saturating_sub(asked[0].unix_ms as u128) as u64)
    };
    let hangs = |bed: &E2e, args: &[&str]| {
        let r = run_writing_nothing(bed, args);
        let waited = after_the_hang(bed, &r);
        r.error(4, "unreachable (timed out): ");
        assert!(
            waited < bound,
            "ended {waited:?} after the hanging request: {r:?}"
        );
    };
    at_once(
        || {
            hangs(
                &for_preview,
                &["preview", "--no-input", "--request-timeout", "3s"],
            )
        },
        || hangs(&for_target, &["target", "--request-timeout", "3s"]),
    );
}

#[test]
fn tls_failure_is_exit_4() {
    let bed = bed_or_skip!(E2e::dirqual());
    // An https:// URL on the replay server's plain-HTTP port: the TLS handshake fails.
    let url = format!("https://{}", bed.server.addr());
    pointed_at(&bed, &url);
    let r = run_writing_nothing(&bed, &["preview", "--no-input"]);
    r.error(4, &format!("cluster {url} unreachable (TLS failure): "));
    // Through kubectl's proxy (the one read path) the handshake error is "first record does
    // not look like a TLS handshake"; kubectl's own client (a dispatcher's probe) says
    // "server gave HTTP response to HTTPS client". Both are the TLS failure they are.
    let tls = |r: &Outcome| {
        assert!(
            r.stderr
                .contains("server gave HTTP response to HTTPS client")
                || r.stderr
                    .contains("first record does not look like a TLS handshake"),
            "{r:?}"
        )
    };
    tls(&r);
    let r = run_writing_nothing(&bed, &["target"]);
    r.error(4, &format!("cluster {url} unreachable (TLS failure): "));
    tls(&r);
}

#[test]
fn unauthorized_is_exit_4() {
    let bed = bed_or_skip!(E2e::new("dirqual", &["/api=401", "/apis=401"]));
    let r = run_writing_nothing(&bed, &["preview", "--no-input"]);
    r.error(4, "unreachable (credentials refused): ");
    r.stderr_has("You must be logged in to the server");
    let r = run_writing_nothing(&bed, &["target"]);
    r.error(4, "You must be logged in to the server");
}

// ---- 403 on each read: the layers that need it are unknown, never absent --------------------

/// Preview with a 403 on `path`: exactly the `affected` layers turn unknown ("undecided"),
/// every other layer keeps its state on the healthy cluster, nothing new is installed.
fn forbidden(path: &str, affected: &[&str]) {
    forbidden_paths(&[path.to_string()], affected);
}

/// Like a ClusterRole without `list` on a workload kind: the cluster-wide list AND the list
/// in every namespace are refused (the read path lists workloads per namespace).
fn forbidden_workload(kind: &str, affected: &[&str]) {
    let mut paths = vec![format!("/apis/apps/v1/{kind}")];
    for ns in [
        "argocd",
        "cert-manager",
        "cnpg-system",
        "dataops",
        "default",
        "gitea",
        "kube-system",
        "monitoring",
        "registry",
        "rook-ceph",
    ] {
        paths.push(format!("/apis/apps/v1/namespaces/{ns}/{kind}"));
    }
    forbidden_paths(&paths, affected);
}

fn forbidden_paths(paths: &[String], affected: &[&str]) {
    let path = paths.join(" + ");
    let faults: Vec<String> = paths.iter().map(|p| format!("GET {p}=403")).collect();
    let faults: Vec<&str> = faults.iter().map(String::as_str).collect();
    let bed = bed_or_skip!(E2e::new("dirqual", &faults));
    let r = run_writing_nothing(
        &bed,
        &["preview", "--no-input", "--detailed-exitcode", "-o", "json"],
    );
    r.code(2);
    let v = r.json();
    for (id, state) in states(&v) {
        let want = if affected.contains(&id.as_str()) {
            "unknown"
        } else if id == "datalake" || id == "certs" {
            "absent"
        } else {
            "present"
        };
        assert_eq!(state, want, "{path}: {id}: {v}");
    }
    let mut undecided = plan_ids(&v, "undecided");
    undecided.sort();
    let mut want: Vec<String> = affected.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(undecided, want, "{path}");
    for id in plan_ids(&v, "install") {
        assert!(
            (id == "datalake" || id == "certs") && !affected.contains(&id.as_str()),
            "{path}: {id} planned for install"
        );
    }
    let text = serde_json::to_string(&v["real"]["layers"]).unwrap_or_default();
    assert!(
        text.contains("Forbidden"),
        "{path}: the evidence says why: {text}"
    );
    let refused: Vec<_> = paths.iter().flat_map(|p| bed.requests_to(p)).collect();
    assert!(
        !refused.is_empty() && refused.iter().all(|e| e.status == 403),
        "{path}: {refused:?}"
    );
}

#[test]
fn forbidden_nodes() {
    // cni reads the nodes too: a node tainted `node.cilium.io/agent-not-ready` (SPEC §15);
    // and storage: its CSI driver must be in every node's CSINode (SPEC §15).
    forbidden("/api/v1/nodes", &["k8s", "cni", "storage"]);
}

#[test]
fn forbidden_namespaces() {
    // Only registry is detected by its namespace; monitoring and gitops gate on their own
    // resources and workloads now. The fault covers every path under /api/v1/namespaces,
    // so ceph's mon-endpoints ConfigMap (read by name) is refused too: unknown, not absent;
    // and storage's claims, listed in each checked namespace.
    forbidden("/api/v1/namespaces", &["registry", "ceph", "storage"]);
}

#[test]
fn forbidden_persistentvolumes() {
    // storage's claims check reads every volume: a Failed one of its classes degrades it.
    forbidden("/api/v1/persistentvolumes", &["storage"]);
}

#[test]
fn forbidden_storageclasses() {
    forbidden(
        "/apis/storage.k8s.io/v1/storageclasses",
        &["storage", "datalake"],
    );
}

#[test]
fn forbidden_daemonsets() {
    forbidden_workload("daemonsets", &["cni", "registry"]);
}

#[test]
fn forbidden_deployments() {
    forbidden_workload(
        "deployments",
        &["cni", "ceph", "monitoring", "gitops", "registry", "dataops"],
    );
}

#[test]
fn forbidden_statefulsets() {
    forbidden_workload("statefulsets", &["monitoring", "gitops", "registry"]);
}

#[test]
fn forbidden_applications() {
    forbidden("/apis/argoproj.io/v1alpha1/applications", &["gitops"]);
}

#[test]
fn forbidden_prometheuses() {
    forbidden(
        "/apis/monitoring.coreos.com/v1/prometheuses",
        &["monitoring"],
    );
}

#[test]
fn forbidden_cephclusters() {
    forbidden("/apis/ceph.rook.io/v1/cephclusters", &["ceph"]);
}

#[test]
fn forbidden_cephobjectstores() {
    forbidden("/apis/ceph.rook.io/v1/cephobjectstores", &["datalake"]);
}

#[test]
fn forbidden_cnpg_clusters() {
    forbidden("/apis/postgresql.cnpg.io/v1/clusters", &["dataops"]);
}

/// A 403 on API discovery itself (`/apis`): nothing can be decided absent. kubectl 1.31
/// fails every read; kubectl 1.20 prints `api-versions` as `v1` alone and exits 0, which
/// nestor takes as a failed read (no `apps` group), never as "nothing installed".
#[test]
fn forbidden_api_discovery_leaves_nothing_absent() {
    let bed = bed_or_skip!(E2e::new("dirqual", &["GET /apis=403"]));
    let r = run_writing_nothing(
        &bed,
        &["preview", "--no-input", "--detailed-exitcode", "-o", "json"],
    );
    r.code(5);
    let v = r.json();
    for (id, state) in states(&v) {
        assert!(
            state == "unknown" || state == "present",
            "{id} {state}: {v}"
        );
        if id != "k8s" {
            assert_eq!(state, "unknown", "{id}: {v}");
        }
    }
    assert_eq!(plan_ids(&v, "install"), Vec::<String>::new());
}

/// Legacy discovery (an apiserver before 1.26, or kubectl before 1.26) with RBAC refusing
/// one group-version: its layers are unknown, never absent.
#[test]
fn forbidden_group_discovery_with_legacy_discovery_is_unknown() {
    let fixture = nestor_replay::fixtures::dirqual();
    let config = nestor_replay::Config::new(fixture)
        .aggregated_discovery(false)
        .fault("GET /apis/ceph.rook.io/v1=403")
        .expect("fault");
    let bed = bed_or_skip!(E2e::with_config(config));
    let r = run_writing_nothing(
        &bed,
        &["preview", "--no-input", "--detailed-exitcode", "-o", "json"],
    );
    r.code(2);
    let v = r.json();
    for (id, state) in states(&v) {
        let want = match id.as_str() {
            "ceph" | "datalake" => "unknown",
            "certs" => "absent",
            _ => "present",
        };
        assert_eq!(state, want, "{id}: {v}");
    }
    assert_eq!(plan_ids(&v, "install"), ["certs"]);
    assert!(bed
        .requests_to("/apis/ceph.rook.io/v1")
        .iter()
        .all(|e| e.status == 403));
}

// ---- local files ----------------------------------------------------------------------------

/// Tests run as root here, and root reads a mode-000 file: "unreadable" is made of what
/// root cannot read either — a directory, and a symlink to nothing.
#[test]
fn unreadable_kubeconfig_is_exit_1_before_any_kubectl_call() {
    let bed = bed_or_skip!(E2e::dirqual());
    fs::remove_file(&bed.kubeconfig).expect("rm");
    fs::create_dir(&bed.kubeconfig).expect("mkdir");
    let shown = bed.kubeconfig.display().to_string();
    let r = run_writing_nothing(&bed, &["preview", "--no-input"]);
    r.error(1, &format!("kubeconfig {shown} is a directory"));
    fs::remove_dir(&bed.kubeconfig).expect("rmdir");
    std::os::unix::fs::symlink(bed.home.join(".kube/gone.config"), &bed.kubeconfig)
        .expect("symlink");
    let r = run_writing_nothing(&bed, &["target"]);
    r.error(
        1,
        &format!(
            "kubeconfig {shown} is a symlink to {}, which does not exist",
            bed.home.join(".kube/gone.config").display()
        ),
    );
    assert!(bed.server.audit().is_empty());
}

#[test]
fn stacks_dir_missing_is_exit_1() {
    let bed = bed_or_skip!(E2e::dirqual());
    let mut c = bed.command(&["preview", "--no-input"]);
    c.env("NESTOR_STACKS_DIR", bed.tmp.path().join("no-such-stacks"));
    let before = bed.tree();
    let r = run(&c);
    r.error(1, "(from NESTOR_STACKS_DIR) does not exist");
    assert_eq!(bed.tree(), before);
    // No stacks/ anywhere above the current directory.
    let elsewhere = bed.tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).expect("mkdir");
    let mut c = bed.command(&["stack", "list"]);
    c.current_dir(&elsewhere);
    let before = bed.tree();
    let r = run(&c);
    r.error(1, "no stacks/ directory in");
    assert_eq!(bed.tree(), before);
    assert!(bed.server.audit().is_empty());
}

#[test]
fn dangling_current_yaml_is_exit_1() {
    let bed = bed_or_skip!(E2e::dirqual());
    bed.select("gone");
    for args in [
        &["preview", "--no-input"][..],
        &["target"],
        &["stack", "show"],
    ] {
        let r = run_writing_nothing(&bed, args);
        r.error(1, "points at gone.yaml, which does not exist");
    }
    assert!(bed.server.audit().is_empty());
}

#[test]
fn home_unset_keeps_kubectl_cache_out_of_the_repo() {
    let bed = bed_or_skip!(E2e::dirqual());
    let sys_tmp = bed.tmp.path().join("sys-tmp");
    fs::create_dir(&sys_tmp).expect("mkdir");
    let kc = bed.kubeconfig.to_str().unwrap_or_default();
    let before = bed.tree();
    let mut c = bed.command(&[
        "--kubeconfig",
        kc,
        "preview",
        "--no-input",
        "-v",
        "-o",
        "json",
    ]);
    c.env_remove("HOME").env("TMPDIR", &sys_tmp);
    let r = run(&c);
    r.code(0);
    assert_eq!(plan_ids(&r.json(), "install"), ["datalake", "certs"]);
    // A private per-user directory under the system temp dir (never the repo, never cwd).
    let uid = std::os::unix::fs::MetadataExt::uid(&fs::metadata(&sys_tmp).expect("stat"));
    let cache = sys_tmp.join(format!("kubectl-nestor-{uid}/cache"));
    assert!(
        r.stderr
            .contains(&format!("--cache-dir={}", cache.display())),
        "{}",
        r.stderr
    );
    let after = bed.tree();
    let changed: Vec<_> = after
        .iter()
        .filter(|e| !before.contains(e))
        .map(|(p, _)| p.clone())
        .collect();
    assert!(
        !changed.is_empty()
            && changed
                .iter()
                .all(|p| p.starts_with(cache.parent().unwrap_or(&cache))),
        "{changed:?}"
    );
    assert!(before.iter().all(|e| after.contains(e)));
    // Without HOME a topology's `~/` cannot be expanded: said so, nothing read.
    let requests = bed.server.audit().len();
    let mut c = bed.command(&["preview", "--no-input"]);
    c.env_remove("HOME").env("TMPDIR", &sys_tmp);
    let r = run(&c);
    r.error(1, "cannot expand `~/.kube/dirqual.config`: HOME is not set");
    assert_eq!(bed.server.audit().len(), requests);
}

#[test]
fn node_names_like_flags_or_shell_code_never_reach_kubectl() {
    let bed = bed_or_skip!(E2e::dirqual());
    let pwned = bed.tmp.path().join("pwned");
    for (name, column) in [
        ("--kubeconfig=/x".to_string(), 11),
        (format!("dirqual1;touch {}", pwned.display()), 11),
        (format!("$(touch {})", pwned.display()), 11),
        ("`reboot`".to_string(), 11),
        ("dirqual2 --all-namespaces".to_string(), 11),
    ] {
        let yaml = dirqual_topology(&bed.server.url()).replace(
            "  - { name: dirqual2, role: worker }\n",
            &format!("  - name: \"{name}\"\n    role: worker\n"),
        );
        bed.write_stack("dirqual", &yaml);
        for args in [&["preview", "--no-input"][..], &["target"]] {
            let r = run_writing_nothing(&bed, args);
            r.error(
                1,
                &format!("dirqual.yaml:8:{column}: node name `{name}` is not a valid Kubernetes node name"),
            );
        }
    }
    assert!(!pwned.exists());
    assert!(bed.server.audit().is_empty(), "no kubectl call was made");
}
