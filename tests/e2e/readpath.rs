//! The one read path (issue 21): `preview` reads every replay scenario through one `kubectl
//! proxy` — the REAL kubectl against `nestor_replay::Server` — and holds to its rules: no
//! redirect followed (from both servers' audits), a `null` or wrong-kind list unknown never
//! absent, failures worded from the server's own status, a kubectl that cannot serve the proxy
//! refused (never read another way). And the proxy never outlives a run: its process group
//! and its private directory are gone after success, failure, timeout and signals. (The tests
//! that compared it with the removed one-kubectl-per-read path went with that path.)
//!
//! Each test skips, saying so, when there is no kubectl on PATH (and fails instead when `CI`
//! is set: `.ci/run` installs one). `NESTOR_E2E_KUBECTL` picks another binary.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use nestor_replay::{fixtures, Config, Server};

use crate::harness::{text_snap, Outcome, Run};
use serde_json::Value;
use snapbox::str;

/// The real kubectl (the bed's rule: `NESTOR_E2E_KUBECTL`, else PATH), or skip saying so.
macro_rules! kubectl_or_skip {
    () => {
        match crate::support::real_kubectl() {
            Some(k) => k,
            None => {
                eprintln!(
                    "SKIP {}: no kubectl on PATH",
                    std::thread::current().name().unwrap_or(module_path!())
                );
                return;
            }
        }
    };
}

/// A temp repo with one stack, a temp HOME, a private TMPDIR for nestor (where the proxy's
/// socket directory goes), and the replay server.
struct Bed {
    tmp: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
    sys_tmp: PathBuf,
    kubectl: PathBuf,
    limactl: Option<PathBuf>,
    server: Server,
}

/// What readpath asks of a run beyond the harness's expectations.
impl Outcome {
    /// `kubectl-nestor: exec: kubectl ...` lines: the kubectl processes nestor started.
    /// kubectl processes that read the cluster: every one but the local `config view` by which
    /// kubectl confirms what the kubeconfig means (target::authority).
    fn kubectl_processes(&self) -> usize {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("kubectl-nestor: exec: kubectl "))
            .filter(|l| !l.contains(" config view "))
            .count()
    }
}

fn dir(p: PathBuf) -> PathBuf {
    fs::create_dir_all(&p).expect("mkdir");
    p
}

impl Bed {
    fn new(fixture: &str, faults: &[&str], kubectl: PathBuf) -> Bed {
        let mut config = Config::new(fixtures::by_name(fixture).expect("fixture"));
        for f in faults {
            config = config.fault(f).expect("fault");
        }
        let server = Server::start(config).expect("server");
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().to_path_buf();
        Bed {
            repo: dir(root.join("repo")),
            home: dir(root.join("home")),
            sys_tmp: dir(root.join("sys-tmp")),
            tmp,
            kubectl,
            limactl: None,
            server,
        }
    }

    /// The SPEC §1 prod stack `dirqual` on `fixture`, with `faults`.
    fn prod(fixture: &str, faults: &[&str], kubectl: PathBuf) -> Bed {
        let bed = Bed::new(fixture, faults, kubectl);
        let kc = bed.home.join(".kube/dirqual.config");
        dir(bed.home.join(".kube"));
        bed.server.write_kubeconfig(&kc).expect("kubeconfig");
        bed.stack(
            "dirqual",
            &crate::support::dirqual_topology(&bed.server.url()),
        );
        bed
    }

    /// A lima bench (3 VMs, k8s + cni) on the `bench` fixture: limactl (a stub listing the
    /// three VMs Running) and kubectl are read in parallel.
    fn lima(kubectl: PathBuf) -> Bed {
        let mut bed = Bed::new("bench", &[], kubectl);
        let kc = dir(bed.repo.join("bench/lima/.work")).join("kubeconfig");
        bed.server.write_kubeconfig(&kc).expect("kubeconfig");
        bed.stack(
            "bench",
            "name: bench\ntarget_kind: lima\nnodes:\n  - { name: node1, role: control-plane }\n  - { name: node2, role: worker }\n  - { name: node3, role: worker }\nlayers: [k8s, cni]\n",
        );
        let listing: String = (1..=3)
            .map(|i| format!("{{\"name\":\"node{i}\",\"status\":\"Running\",\"dir\":\"/l/node{i}\",\"arch\":\"x86_64\",\"cpus\":2,\"memory\":4294967296,\"disk\":107374182400}}\n"))
            .collect();
        let data = bed.tmp.path().join("limactl-list.ndjson");
        fs::write(&data, listing).expect("write");
        let stub = bed.tmp.path().join("limactl");
        fs::write(
            &stub,
            format!(
                "#!/bin/sh\n[ \"$*\" = 'list --json' ] || exit 1\ncat '{}'\n",
                data.display()
            ),
        )
        .expect("write");
        fs::set_permissions(&stub, fs::Permissions::from_mode(0o755)).expect("chmod");
        bed.limactl = Some(stub);
        bed
    }

    fn stack(&self, name: &str, yaml: &str) {
        let stacks = dir(self.repo.join("stacks"));
        fs::write(stacks.join(format!("{name}.yaml")), yaml).expect("write stack");
        let link = stacks.join("current.yaml");
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink(format!("{name}.yaml"), link).expect("symlink");
    }

    /// `kubectl-nestor -v ARGS`.
    fn run(&self, args: &[&str]) -> Outcome {
        self.run_with(&self.kubectl, args)
    }

    fn run_with(&self, kubectl: &Path, args: &[&str]) -> Outcome {
        let mut c = Run::nestor();
        c.current_dir(&self.repo)
            .arg("-v")
            .args(args)
            .env("HOME", &self.home)
            .env("TMPDIR", &self.sys_tmp)
            .env("NESTOR_KUBECTL", kubectl)
            .env(
                "NESTOR_LIMACTL",
                self.limactl
                    .as_deref()
                    .unwrap_or(Path::new("/nonexistent/limactl")),
            );
        c.run()
    }

    /// Nothing of a proxy left: no file under nestor's TMPDIR, no process naming it.
    fn assert_no_leftovers(&self) {
        let files: Vec<PathBuf> = fs::read_dir(&self.sys_tmp)
            .expect("read TMPDIR")
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(files.is_empty(), "left in TMPDIR: {files:?}");
        let marker = self.sys_tmp.display().to_string();
        let alive = wait_until_gone(|p| p.cmdline.contains(&marker));
        assert!(alive.is_empty(), "still running: {alive:?}");
    }

    fn assert_only_gets(&self) {
        assert_eq!(self.server.audit_non_get(), vec![], "only GET may arrive");
    }
}

/// One process as /proc shows it.
#[derive(Debug)]
pub(crate) struct Proc {
    pub(crate) pid: u32,
    pub(crate) pgrp: u32,
    pub(crate) cmdline: String,
}

pub(crate) fn processes() -> Vec<Proc> {
    let mut out = vec![];
    for entry in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        if fields.first() == Some(&"Z") {
            continue; // a zombie is dead, only not yet reaped by its (new) parent
        }
        let pgrp = fields.get(2).and_then(|f| f.parse().ok()).unwrap_or(0);
        let cmdline = fs::read(entry.path().join("cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        out.push(Proc { pid, pgrp, cmdline });
    }
    out
}

/// How long a killed child may take to disappear from /proc. Every child these tests look
/// for would otherwise live 30 s or more (a `sleep 30`, a proxy that serves until stopped, a
/// request to a server that hangs for minutes): gone within 10 s is gone because nestor killed
/// it, and 10 s leaves room for a SIGKILLed process to be scheduled on a loaded 2-core box.
const GONE_WITHIN: Duration = Duration::from_secs(10);

/// The processes matching `f`, after giving them up to [`GONE_WITHIN`] to disappear.
pub(crate) fn wait_until_gone(f: impl Fn(&Proc) -> bool) -> Vec<Proc> {
    let deadline = Instant::now() + GONE_WITHIN;
    loop {
        let alive: Vec<Proc> = processes().into_iter().filter(|p| f(p)).collect();
        if alive.is_empty() || Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn json(run: &Outcome) -> Value {
    let v = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {run:?}"));
    crate::doc_schema::check(&v);
    v
}

/// `preview` (JSON, and text with `text: true`) exits `code` having read through one proxy:
/// one kubectl process read the cluster, `-v` says which path read, only GETs arrived and
/// nothing is left behind.
fn assert_proxy_preview(bed: &Bed, text: bool, code: i32) {
    let mut formats = vec![vec!["preview", "--no-input", "-o", "json"]];
    if text {
        formats.push(vec!["preview", "--no-input", "--no-color"]);
    }
    for args in formats {
        let r = bed.run(&args);
        r.code(code);
        if args.contains(&"json") {
            json(&r);
        }
        r.stderr_has("read path: proxy");
        r.stderr_has("kubectl-nestor: proxy: serving after");
        assert_eq!(r.kubectl_processes(), 1, "{r:?}");
    }
    bed.assert_only_gets();
    bed.assert_no_leftovers();
}

#[test]
fn one_proxy_reads_dirqual() {
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &[], k);
    assert_proxy_preview(&bed, true, 0);
    let after = json(&bed.run(&["preview", "--no-input", "-o", "json"]));
    let install: Vec<&str> = after["plan"]["install"]
        .as_array()
        .map(|a| a.iter().filter_map(|l| l["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(install, ["datalake", "certs"]);
    // The proxy path's requests are nestor's own GETs, forwarded as they are.
    let ours = bed
        .server
        .audit()
        .into_iter()
        .filter(|e| {
            e.user_agent
                .as_deref()
                .is_some_and(|u| u.starts_with("kubectl-nestor/"))
        })
        .count();
    assert!(ours >= 10, "{:?}", bed.server.audit());
    // Workloads only in the namespaces the checks name: never a cluster-wide workload list.
    let apps: Vec<String> = bed
        .server
        .audit()
        .into_iter()
        .map(|e| e.path)
        .filter(|p| p.starts_with("/apis/apps/v1/"))
        .collect();
    assert!(!apps.is_empty(), "{:?}", bed.server.audit());
    for p in &apps {
        assert!(p.starts_with("/apis/apps/v1/namespaces/"), "{p}: {apps:?}");
    }
}

#[test]
fn one_proxy_reads_dirqual_full() {
    let k = kubectl_or_skip!();
    assert_proxy_preview(&Bed::prod("dirqual-full", &[], k), false, 0);
}

#[test]
fn one_proxy_reads_degraded() {
    let k = kubectl_or_skip!();
    assert_proxy_preview(&Bed::prod("degraded", &[], k), true, 0);
}

#[test]
fn one_proxy_reads_the_lima_bench() {
    let k = kubectl_or_skip!();
    let bed = Bed::lima(k);
    assert_proxy_preview(&bed, true, 0);
    let v = json(&bed.run(&["preview", "--no-input", "-o", "json"]));
    assert_eq!(v["real"]["vms"].as_array().map(Vec::len), Some(3), "{v}");
}

/// A layer's `reason` on the proxy path, which reads the API itself: the server's own status,
/// whatever the kubectl.
fn proxy_reason(bed: &Bed, id: &str) -> String {
    let v = json(&bed.run(&["preview", "--no-input", "-o", "json"]));
    let layer = v["real"]["layers"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["id"] == id))
        .cloned()
        .unwrap_or_default();
    assert_eq!(layer["state"], "unknown", "{id}: {v}");
    layer["reason"].as_str().unwrap_or_default().to_string()
}

#[test]
fn ceph_forbidden_is_the_servers_reason() {
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &["GET /apis/ceph.rook.io=403"], k);
    assert_proxy_preview(&bed, true, 0);
    assert_eq!(
        proxy_reason(&bed, "ceph"),
        "read of cephclusters.ceph.rook.io failed: Forbidden"
    );
}

#[test]
fn nodes_forbidden_is_worded_as_kubectl_words_it() {
    // The nodes' error is printed in kubectl's own words, from the server's Status.
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &["GET /api/v1/nodes=403"], k);
    assert_proxy_preview(&bed, true, 0);
    let v = json(&bed.run(&["preview", "--no-input", "-o", "json"]));
    assert_eq!(
        v["real"]["nodes"]["error"],
        "Forbidden: Error from server (Forbidden): nodes is forbidden: User \"nestor\" cannot list resource \"nodes\" in API group \"\" at the cluster scope"
    );
}

#[test]
fn an_api_error_on_cnpg_is_the_servers_reason() {
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &["GET /apis/postgresql.cnpg.io=500"], k);
    assert_proxy_preview(&bed, false, 0);
    assert_eq!(
        proxy_reason(&bed, "dataops"),
        "read of clusters.postgresql.cnpg.io failed: ApiError"
    );
}

#[test]
fn unauthorized_is_exit_4() {
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &["/api=401", "/apis=401"], k);
    let url = bed.server.url();
    let r = bed.run(&["preview", "--no-input"]);
    r.code(4);
    assert!(
        r.stderr.contains(&format!(
            "cluster {url} unreachable (credentials refused): "
        )),
        "{r:?}"
    );
    r.stderr_has("You must be logged in to the server");
    bed.assert_no_leftovers();
}

#[test]
fn a_hanging_read_times_out_and_the_proxy_is_stopped() {
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &["/api/v1/nodes=hang:30"], k);
    let r = bed.run(&["preview", "--no-input", "--request-timeout", "1s"]);
    r.code(4);
    r.stderr_has("unreachable (timed out): ");
    assert!(r.took < Duration::from_secs(6), "{r:?}");
    assert_eq!(r.kubectl_processes(), 1, "{r:?}");
    bed.assert_no_leftovers();
    bed.assert_only_gets();
}

/// A kubectl wrapper: `proxy` calls run `proxy_body`, anything else the real kubectl.
fn wrapper(bed: &Bed, proxy_body: &str) -> PathBuf {
    wrapper_of(bed, " proxy ", proxy_body)
}

/// A kubectl wrapper: calls whose argv holds `words` run `body`, anything else the real
/// kubectl.
fn wrapper_of(bed: &Bed, words: &str, body: &str) -> PathBuf {
    let path = bed.tmp.path().join("kubectl-wrapper");
    fs::write(
        &path,
        format!(
            "#!/bin/sh\ncase \" $* \" in\n  *'{words}'*) {body};;\n  *) exec '{}' \"$@\";;\nesac\n",
            bed.kubectl.display()
        ),
    )
    .expect("write");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// `run` refused because no proxy could serve: nothing read, nothing read another way (no
/// `kubectl get`), the reason and the hint said.
fn assert_refused_unread(bed: &Bed, r: &Outcome, why: &str) {
    r.code(1);
    r.stderr_has("kubectl cannot serve nestor's read proxy, so nothing was read: ");
    r.stderr_has(why);
    r.stderr_has("hint: nestor reads a cluster only through `kubectl proxy`");
    assert!(
        !r.stderr.contains("exec: kubectl") || !r.stderr.contains(" get "),
        "no kubectl get: {r:?}"
    );
    assert!(
        bed.server.audit().iter().all(|e| e.path == "/version"),
        "nothing was read: {:?}",
        bed.server.audit()
    );
    bed.assert_no_leftovers();
}

/// Issue 21: a kubectl that cannot serve the proxy is an error, never a switch to another
/// way of reading.
#[test]
fn a_kubectl_without_proxy_is_refused_never_read_another_way() {
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &[], k);
    let no_proxy = wrapper(&bed, "echo 'error: unknown command \"proxy\"' >&2; exit 1");
    let r = bed.run_with(&no_proxy, &["preview", "--no-input", "-o", "json"]);
    assert_refused_unread(&bed, &r, "unknown command");
    assert_eq!(
        r.kubectl_processes(),
        1,
        "the failed proxy start only: {r:?}"
    );
}

/// Issue 25: nestor wakes on the proxy's own `Starting to serve on ...` line, but a kubectl
/// (or a wrapper) that says nothing on stdout is still found by its socket: with stdout
/// closed at once (then the socket is polled) and with stdout held open and silent (then it
/// is checked between waits). Each reads the same plan as the real kubectl does.
#[test]
fn a_proxy_that_says_nothing_is_still_found_by_its_socket() {
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &[], k);
    let plan = |r: &Outcome| plan_install(&json(r));
    let real = bed.run(&["preview", "--no-input", "-o", "json"]);
    real.code(0);
    assert_eq!(plan(&real), ["datalake", "certs"]);
    let kubectl = bed.kubectl.display().to_string();
    for (what, body) in [
        (
            "stdout closed",
            format!("exec '{kubectl}' \"$@\" >/dev/null"),
        ),
        (
            "stdout open and silent",
            format!("'{kubectl}' \"$@\" >/dev/null & wait"),
        ),
    ] {
        let silent = wrapper(&bed, &body);
        let r = bed.run_with(&silent, &["preview", "--no-input", "-o", "json"]);
        assert_eq!(r.code, Some(0), "{what}: {r:?}");
        assert_eq!(plan(&r), plan(&real), "{what}: {r:?}");
        r.stderr_has("kubectl-nestor: proxy: serving after");
    }
    bed.assert_only_gets();
    bed.assert_no_leftovers();
}

/// Issue 21: `TMPDIR=/nonexistent` (no private socket directory can be made) is refused
/// with a hint, for every command that reads (it once fell back to one kubectl per read).
#[test]
fn a_missing_tmpdir_is_refused_never_read_another_way() {
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &[], k);
    for args in [
        &["preview", "--no-input"][..],
        &["preview", "--no-input", "-o", "json"],
        &["discover", "--no-input"],
        &[
            "wait",
            "--no-input",
            "--for=healthy",
            "k8s",
            "--timeout",
            "5s",
        ],
    ] {
        let mut c = Run::nestor();
        c.current_dir(&bed.repo)
            .arg("-v")
            .args(args)
            .env("HOME", &bed.home)
            .env("TMPDIR", "/nonexistent")
            .env("NESTOR_KUBECTL", &bed.kubectl)
            .env("NESTOR_LIMACTL", "/nonexistent/limactl");
        let r = c.run();
        assert_refused_unread(&bed, &r, "cannot make a private socket directory");
    }
}

/// Issue 21: a server answering 302 to another server: the other one never sees a request
/// (so never the bearer token), and the read fails — when the proxy reads, and when no proxy
/// can start (nestor once fell back then to one kubectl per read, whose client followed it).
#[test]
fn a_redirect_is_never_followed() {
    let k = kubectl_or_skip!();
    let other = Server::start(Config::new(fixtures::dirqual())).expect("second server");
    let nodes = format!("GET /api/v1/nodes=redirect:{}", other.url());
    let sc = format!("GET /apis/storage.k8s.io=redirect:{}", other.url());
    let bed = Bed::prod("dirqual", &[&nodes, &sc], k);
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.stderr_has("read path: proxy");
    let v = json(&r);
    // The 302 is a failed read (kubectl's words for an unexpected status), never followed.
    assert_eq!(layer_state(&v, "k8s"), "unknown", "{r:?}");
    assert_eq!(layer_state(&v, "storage"), "unknown", "{r:?}");
    assert!(
        v["real"]["nodes"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("Found")),
        "{r:?}"
    );
    let mut c = Run::nestor();
    c.current_dir(&bed.repo)
        .args(["-v", "preview", "--no-input", "-o", "json"])
        .env("HOME", &bed.home)
        .env("TMPDIR", "/nonexistent")
        .env("NESTOR_KUBECTL", &bed.kubectl)
        .env("NESTOR_LIMACTL", "/nonexistent/limactl");
    let r2 = c.run();
    r2.code(1);
    // The verification read of `target` (once `kubectl get nodes`, kubectl's client, which
    // followed the 302): through the proxy too, a failed read, exit 1.
    let r3 = bed.run(&["target"]);
    r3.code(1);
    r3.stderr_has("cannot read the nodes of ");
    r3.stderr_has("read path: proxy");
    assert_eq!(
        other.audit(),
        vec![],
        "the redirect target was reached: {r:?}\n{r2:?}\n{r3:?}"
    );
    // The redirect was answered to the proxy (nestor's own GET), which never followed it.
    assert!(
        bed.server
            .audit()
            .iter()
            .any(|e| e.path == "/api/v1/nodes" && e.status == 302),
        "{:?}",
        bed.server.audit()
    );
    bed.assert_only_gets();
    bed.assert_no_leftovers();
}

/// The state of layer `id` in a preview JSON.
fn layer_state(v: &Value, id: &str) -> String {
    v["real"]["layers"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["id"] == id))
        .map(|l| l["state"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// Issue 21: `{"items": null}` and a ConfigMap list served as the StorageClass list (or as a
/// custom resource's) are failed reads (unknown), never "absent, install it" — through the
/// real kubectl.
#[test]
fn a_null_or_wrong_kind_list_is_unknown_never_absent() {
    let k = kubectl_or_skip!();
    let configmaps = "serve:/api/v1/namespaces/rook-ceph/configmaps";
    let wrong = format!("GET /apis/storage.k8s.io/v1/storageclasses={configmaps}");
    let wrong_cr = format!("GET /apis/ceph.rook.io/v1/cephclusters={configmaps}");
    let bed = Bed::prod("dirqual", &[&wrong, &wrong_cr], k.clone());
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = json(&r);
    for (id, read) in [
        ("storage", "storageclasses"),
        ("ceph", "cephclusters.ceph.rook.io"),
    ] {
        assert_eq!(layer_state(&v, id), "unknown", "{id}: {r:?}");
        r.stdout_has(&format!("read of {read} failed: BadOutput"));
    }
    assert!(
        plan_install(&v)
            .iter()
            .all(|id| id != "storage" && id != "ceph"),
        "{r:?}"
    );
    bed.assert_no_leftovers();
    drop(bed);
    let null = [
        "GET /api/v1/nodes=items-null",
        "GET /apis/apps/v1/namespaces/registry/deployments=items-null",
    ];
    let bed = Bed::prod("dirqual", &null, k);
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = json(&r);
    assert_eq!(layer_state(&v, "k8s"), "unknown", "{r:?}");
    assert_eq!(layer_state(&v, "registry"), "unknown", "{r:?}");
    // The whole error: the node list's `items` refused as "invalid type: null".
    text_snap(v["real"]["nodes"]["error"].as_str().unwrap_or_default(), str!["BadOutput: malformed answer to GET /api/v1/nodes: invalid type: null or missing `items` (expected one JSON List document of Node objects with `items`)"]);
    assert!(
        plan_install(&v)
            .iter()
            .all(|id| id != "k8s" && id != "registry"),
        "{r:?}"
    );
    bed.assert_no_leftovers();
}

fn plan_install(v: &Value) -> Vec<String> {
    v["plan"]["install"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| l["id"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_proxy_that_never_serves_is_killed_with_its_group() {
    let k = kubectl_or_skip!();
    let bed = Bed::prod("dirqual", &[], k);
    let pid_file = bed.tmp.path().join("proxy.pid");
    // Like a dispatcher whose real work happens in a child: the group must go, not only $$.
    let stuck = wrapper(
        &bed,
        &format!("echo $$ > '{}'; sleep 30 & wait", pid_file.display()),
    );
    let r = bed.run_with(
        &stuck,
        &["preview", "--no-input", "--request-timeout", "1s"],
    );
    r.code(4);
    r.stderr_has("unreachable (timed out): ");
    r.stderr_has("was not serving after");
    assert!(r.took < Duration::from_secs(7), "{r:?}");
    let leader: u32 = fs::read_to_string(&pid_file)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .expect("the wrapper ran");
    let alive = wait_until_gone(|p| p.pgrp == leader || p.pid == leader);
    assert!(alive.is_empty(), "{alive:?}");
    bed.assert_no_leftovers();
    // Nothing was read (a version dispatcher in front of kubectl may probe /version).
    assert!(
        bed.server.audit().iter().all(|e| e.path == "/version"),
        "nothing was read: {:?}",
        bed.server.audit()
    );
}

/// `kubectl-nestor -v ARGS` started in the background (stderr to a file of the bed, printed
/// when the test fails).
fn spawn_nestor(bed: &Bed, kubectl: &Path, args: &[&str]) -> Child {
    let mut r = Run::nestor();
    r.current_dir(&bed.repo)
        .arg("-v")
        .args(args)
        .env("HOME", &bed.home)
        .env("TMPDIR", &bed.sys_tmp)
        .env("NESTOR_KUBECTL", kubectl)
        .default_signals();
    r.command()
        .stdout(Stdio::null())
        .stderr(fs::File::create(bed.tmp.path().join("nestor.stderr")).expect("stderr file"))
        .spawn()
        .expect("spawn kubectl-nestor")
}

/// Wait for `ready` (polled every 20 ms) while nestor runs: synchronised on the event, not
/// on a guess of how long start-up takes on a loaded machine. Fails if nestor ends first.
fn until_ready<T>(bed: &Bed, nestor: &mut Child, what: &str, ready: impl Fn() -> Option<T>) -> T {
    loop {
        if let Some(t) = ready() {
            return t;
        }
        if let Ok(Some(status)) = nestor.try_wait() {
            panic!(
                "nestor ended ({status:?}) before {what}: {}",
                fs::read_to_string(bed.tmp.path().join("nestor.stderr")).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn nestor_killed_by_a_signal_takes_its_proxy_along() {
    let k = kubectl_or_skip!();
    for signal in ["TERM", "INT", "HUP"] {
        let bed = Bed::prod("dirqual", &[], k.clone());
        let pid_file = bed.tmp.path().join("proxy.pid");
        let stuck = wrapper(
            &bed,
            &format!("echo $$ > '{}'; sleep 30 & wait", pid_file.display()),
        );
        let mut nestor = spawn_nestor(&bed, &stuck, &["preview", "--no-input"]);
        let leader: u32 = until_ready(&bed, &mut nestor, "the proxy started", || {
            fs::read_to_string(&pid_file)
                .ok()
                .and_then(|s| s.trim().parse().ok())
        });
        crate::common_signals::signal_and_reap(&mut nestor, signal);
        let alive = wait_until_gone(|p| p.pgrp == leader || p.pid == leader);
        assert!(alive.is_empty(), "{signal}: {alive:?}");
    }
}

/// Not only the proxy: a one-shot kubectl goes with nestor too — here the local `config view`
/// (kubectl's reading of the kubeconfig, the one-shot call every read starts with), made to
/// hang with a child of its own, as a dispatcher's real kubectl is.
#[test]
fn nestor_killed_by_a_signal_takes_its_one_shot_kubectl_along() {
    let k = kubectl_or_skip!();
    for signal in ["TERM", "INT", "HUP"] {
        let bed = Bed::prod("dirqual", &[], k.clone());
        let started = bed.tmp.path().join("view.started");
        let view = wrapper_of(
            &bed,
            " config view ",
            &format!("touch '{}'; sleep 300 & wait", started.display()),
        );
        let mut nestor = spawn_nestor(&bed, &view, &["target", "--request-timeout", "120s"]);
        // Every kubectl nestor runs names the bed's kubeconfig on its command line.
        let marker = bed.home.display().to_string();
        until_ready(&bed, &mut nestor, "kubectl's config view started", || {
            started.exists().then_some(())
        });
        let running: Vec<Proc> = processes()
            .into_iter()
            .filter(|p| p.cmdline.contains(&marker))
            .collect();
        assert!(!running.is_empty(), "no kubectl running to be killed");
        crate::common_signals::signal_and_reap(&mut nestor, signal);
        let alive = wait_until_gone(|p| p.cmdline.contains(&marker));
        assert!(alive.is_empty(), "{signal}: {alive:?} (of {running:?})");
    }
}

/// `kubectl-nestor -v ARGS` under a pseudo-terminal (`script`), `answer` typed at the prompt.
fn under_tty(bed: &Bed, args: &str, answer: &str) -> Outcome {
    let line = format!("{} -v {args}", env!("CARGO_BIN_EXE_kubectl-nestor"));
    let mut c = Run::pty_shell(&line);
    c.current_dir(&bed.repo)
        .env("HOME", &bed.home)
        .env("TMPDIR", &bed.sys_tmp)
        .env("NESTOR_KUBECTL", &bed.kubectl)
        .stdin(answer);
    c.run()
}

#[test]
fn the_prompt_waits_with_no_proxy_running_and_the_nodes_are_read_once() {
    let k = kubectl_or_skip!();
    if Run::new("script").arg("--version").try_run().is_err() {
        eprintln!("SKIP: no `script` (util-linux) for a pseudo-terminal");
        return;
    }
    let bed = Bed::prod("dirqual", &[], k);
    let nodes_reads = |bed: &Bed| {
        bed.server
            .audit()
            .iter()
            .filter(|e| e.path == "/api/v1/nodes")
            .count()
    };
    let r = under_tty(&bed, "preview --no-color", "y\n");
    r.code(0);
    // -v goes to the terminal too: the first proxy stops before the question is asked.
    let screen = &r.stdout;
    let prompt = screen.find("Is this the stack dirqual?").expect("prompt");
    let stopped = screen.find("exec: stopped after").expect("stopped");
    assert!(stopped < prompt, "{screen}");
    // kubectl's local `config view` (the target check), then the two proxies.
    assert_eq!(
        screen.matches("kubectl-nestor: exec: kubectl ").count(),
        3,
        "{screen}"
    );
    assert_eq!(screen.matches(" config view ").count(), 1, "{screen}");
    assert!(screen.contains("PLAN: 2 to install"), "{screen}");
    assert_eq!(
        nodes_reads(&bed),
        1,
        "the nodes read for the prompt is reused"
    );
    bed.assert_no_leftovers();

    bed.server.clear_audit();
    let r = under_tty(&bed, "preview --no-color", "n\n");
    r.code(3);
    // (The Cloud SDK dispatcher asks /version for itself before running kubectl.)
    let paths: Vec<String> = bed
        .server
        .audit()
        .into_iter()
        .filter(|e| {
            !e.user_agent
                .as_deref()
                .unwrap_or("")
                .starts_with("kubectl-dispatcher")
        })
        .map(|e| e.path)
        .collect();
    assert_eq!(paths, ["/api/v1/nodes"], "only the nodes before the answer");
    bed.assert_no_leftovers();
    bed.assert_only_gets();
}
