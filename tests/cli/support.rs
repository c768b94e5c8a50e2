//! Test bed for CLI flows: the shared bed (`tests/common/bed.rs`, [`Dirs`]: a temp repo
//! with `stacks/`, a temp HOME, `bin/` first on PATH) with recording stub
//! `kubectl` / `limactl` / `ssh` first on PATH. Each stub appends its argv (one call per
//! line, arguments separated by U+001F) to `calls.log` and answers from a small script.
//! The kubectl stub refuses (exit 97) any call without an explicit `--kubeconfig`, so every
//! test proves that rule for every call it makes. A cluster behind it ([`Bed::kubectl_cluster`])
//! is a replay fixture: the stub's `kubectl proxy --unix-socket=SOCK` execs `nestor-replay
//! --unix-socket SOCK` on it, so nestor reads it by its one read path, the proxy (issue 21),
//! and the server's audit says what was read ([`Bed::requests`]).

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use std::time::Duration;

pub use crate::common_bed::Dirs;
pub use crate::harness::{golden_check, Outcome, Run, NESTOR};

/// `kubectl get nodes -o json` on the dirqual cluster (the replay fixture's four nodes).
pub fn nodes_dirqual() -> String {
    match Cluster::dirqual().answer("nodes") {
        Some(Answer::Ok(list)) => list,
        _ => panic!("the replay dirqual fixture serves no nodes"),
    }
}

/// The cli bed: the shared [`Dirs`] (repo, stacks, HOME, `bin/`) with recording stubs of
/// `kubectl`, `limactl` and `ssh` in `bin/`, each logging its argv to `log`.
pub struct Bed {
    dirs: Dirs,
    pub log: PathBuf,
}

impl std::ops::Deref for Bed {
    type Target = Dirs;
    fn deref(&self) -> &Dirs {
        &self.dirs
    }
}

impl Bed {
    pub fn new() -> Bed {
        let dirs = Dirs::new();
        let log = dirs.tmp.path().join("calls.log");
        let bed = Bed { dirs, log };
        bed.stub(
            "kubectl",
            "echo 'stub kubectl: no answer for this call' >&2; exit 1",
        );
        bed.stub("limactl", "exit 0");
        bed.stub("ssh", "exit 255");
        bed
    }

    /// Install a stub `name` whose behaviour is the shell `body` (after logging its argv).
    pub fn stub(&self, name: &str, body: &str) {
        let guard = if name == "kubectl" {
            concat!(
                "case \" $* \" in *' --kubeconfig='*|*' --kubeconfig '*) ;; *) echo 'stub kubectl: call without --kubeconfig' >&2; exit 97;; esac\n",
                // kubectl's own reading of the file (target::authority), for the block-style
                // kubeconfigs of these tests: the pinned context and server, the context's
                // cluster and user. The real kubectl is exercised by tests/e2e.
                "case \" $* \" in *' config view '*)\n",
                "  for a in \"$@\"; do case \"$a\" in --context=*) ctx=\"${a#--context=}\";; --server=*) srv=\"${a#--server=}\";; --kubeconfig=*) kc=\"${a#--kubeconfig=}\";; esac; done\n",
                // The whole file's view (`kubeconfig fetch`, no --minify): every user of the
                // block-style `users:` list with its credential keys, redacted.
                "  case \" $* \" in *' --minify '*) ;; *)\n",
                "    awk 'BEGIN{printf \"{\\\"clusters\\\":[],\\\"users\\\":[\"} /^users:/{u=1;next} u&&/^[^ -]/{u=0} u&&/^- name: /{if(n)printf \"}},\";sub(/^- name: */,\"\");printf \"{\\\"name\\\":\\\"%s\\\",\\\"user\\\":{\",$0;n=1;f=0;next} u&&/^    [A-Za-z-]+:/{k=$1;sub(/:$/,\"\",k);if(f)printf \",\";printf \"\\\"%s\\\":\\\"REDACTED\\\"\",k;f=1} END{if(n)printf \"}}\";print \"]}\"}' \"$kc\"; exit 0;;\n",
                "  esac\n",
                "  cl=$(sed -n 's/^    cluster: *//p' \"$kc\" | head -1); us=$(sed -n 's/^    user: *//p' \"$kc\" | head -1)\n",
                "  printf '{\"current-context\":\"%s\",\"contexts\":[{\"name\":\"%s\",\"context\":{\"cluster\":\"%s\",\"user\":\"%s\"}}],\"clusters\":[{\"name\":\"%s\",\"cluster\":{\"server\":\"%s\"}}],\"users\":[{\"name\":\"%s\",\"user\":{}}]}\\n' \"$ctx\" \"$ctx\" \"$cl\" \"$us\" \"$cl\" \"$srv\" \"$us\"\n",
                "  exit 0;;\nesac\n"
            )
        } else {
            ""
        };
        let script = format!(
            // One write per line: stubs run in parallel (ssh to several hosts beside kubectl)
            // and must not interleave their log lines.
            "#!/bin/sh\n_sep=$(printf '\\037')\n_line='{name}'\nfor a in \"$@\"; do _line=\"$_line$_sep$a\"; done\nprintf '%s\\n' \"$_line\" >> '{log}'\n{guard}{body}\n",
            log = self.log.display()
        );
        let path = self.bin.join(name);
        fs::write(&path, script).expect("write stub");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// A kubectl stub serving a cluster of exactly the nodes of `nodes_json` (a List, as
    /// `kubectl get nodes -o json` prints it) through its `proxy` ([`Bed::kubectl_cluster`]).
    pub fn kubectl_serving_nodes(&self, nodes_json: &str) {
        let list: serde_json::Value = serde_json::from_str(nodes_json).expect("a node List");
        let objects = list["items"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|mut node| {
                node["apiVersion"] = "v1".into();
                node["kind"] = "Node".into();
                node
            })
            .collect();
        let fixture = nestor_replay::Fixture {
            objects,
            ..nestor_replay::Fixture::default()
        };
        self.kubectl_cluster(&Cluster::replay(&fixture));
    }

    /// A kubeconfig for `server` at `path` (parents created), current-context set.
    pub fn kubeconfig(&self, path: &Path, server: &str) -> PathBuf {
        crate::common_bed::write_private(path, &kubeconfig_text(server))
    }

    /// `program` run from the repo root with the bed's HOME and PATH (stubs first); the
    /// rest of the developer's environment is scrubbed by the harness (`harness::scrub`).
    pub fn cmd_program(&self, program: impl AsRef<std::ffi::OsStr>) -> Run {
        self.run(program)
    }

    /// `kubectl-nestor` run like [`Bed::cmd_program`].
    pub fn cmd(&self) -> Run {
        self.cmd_program(NESTOR)
    }

    /// `kubectl-nestor ARGS` run under a pseudo-terminal ([`Run::pty`]), so that stdin IS a
    /// terminal and nestor may prompt; `input` is typed into it (give every answer: end of
    /// input answers no). Extra `env` pairs are added. The output mixes stdout, stderr and
    /// the terminal's echo, with CRLF line ends.
    pub fn pty(&self, args: &[&str], input: &str, env: &[(&str, &Path)]) -> Outcome {
        let mut r = self.cmd();
        r.args(args)
            .pty()
            .stdin(input)
            .timeout(Duration::from_secs(60));
        for (k, v) in env {
            r.env(k, v);
        }
        r.run()
    }

    /// Like [`Bed::pty`] with a whole `sh` command line (`$NESTOR` is the binary).
    pub fn pty_shell(&self, line: &str, input: &str, env: &[(&str, &Path)]) -> Outcome {
        let mut r = Run::pty_shell(line);
        r.redact(self.tmp.path().display().to_string(), "/t")
            .current_dir(&self.repo)
            .env("HOME", &self.home)
            .env("PATH", self.path())
            .env("NESTOR", NESTOR)
            .stdin(input)
            .timeout(Duration::from_secs(60));
        for (k, v) in env {
            r.env(k, v);
        }
        r.run()
    }

    /// Every recorded call of `tool`, as argv vectors.
    pub fn calls(&self, tool: &str) -> Vec<Vec<String>> {
        let text = fs::read_to_string(&self.log).unwrap_or_default();
        text.lines()
            .filter_map(|l| {
                let mut parts = l.split('\u{1f}');
                (parts.next() == Some(tool)).then(|| parts.map(String::from).collect())
            })
            .collect()
    }

    /// The kubectl calls that reach a cluster: every call but nestor's `config view` (the
    /// local reading of the kubeconfig that kubectl itself makes, target::authority): the
    /// `proxy` of each batch of reads. What went through a proxy: [`Bed::requests`].
    pub fn reads(&self) -> Vec<Vec<String>> {
        self.calls("kubectl")
            .into_iter()
            .filter(|c| !c.windows(2).any(|w| w[0] == "config" && w[1] == "view"))
            .collect()
    }

    /// A snapshot of every file under the temp dir (path, bytes), to prove nothing was written.
    pub fn tree(&self) -> Vec<(PathBuf, Vec<u8>)> {
        self.dirs.tree(std::slice::from_ref(&self.log), false)
    }
}

pub fn kubeconfig_text(server: &str) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    server: {server}
  name: dirqual
contexts:
- context:
    cluster: dirqual
    user: kubernetes-admin
  name: kubernetes-admin@dirqual
current-context: kubernetes-admin@dirqual
preferences: {{}}
users:
- name: kubernetes-admin
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    client-key-data: U0VDUkVULUtFWS1EQVRB
"
    )
}

pub const PROD_DECLARED: &str = "name: dirqual
target_kind: prod
kubeconfig: ~/.kube/dirqual.config
endpoint: https://10.67.2.11:6443
nodes:
  - { name: dirqual1, role: control-plane }
  - { name: dirqual2, role: worker }
  - { name: dirqual3, role: worker }
  - { name: dirqual4, role: worker }
layers: [k8s, cni, ceph, storage, monitoring, gitops, registry, dataops, datalake, certs]
";

pub const PROD_UNDECLARED: &str = "# no kubeconfig: on purpose
name: dirqual
target_kind: prod
endpoint: https://10.67.2.11:6443
nodes:
  - { name: dirqual1, role: control-plane }
layers: [k8s, cni]
";

pub const LIMA_BENCH: &str = "name: bench
target_kind: lima
nodes:
  - { name: node1, role: control-plane }
  - { name: node2, role: worker }
  - { name: node3, role: worker }
layers: [k8s, cni]
";

/// nestor's own peak RSS, from its `-v` usage line (`own peak rss N KiB`).
pub fn own_peak_kib(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.split("own peak rss ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no usage line in stderr:\n{stderr}"))
}

pub fn stderr_of(out: &Outcome) -> String {
    out.stderr.clone()
}

pub fn stdout_of(out: &Outcome) -> String {
    out.stdout.clone()
}

// ---- a whole cluster behind the kubectl stub --------------------------------------------

/// The reads of the built-in catalog by the name a test gives them (`kubectl get NAME`'s
/// resource), and the group, version and plural the replay fixture serves them at.
const READS: [(&str, &str, &str, &str); 18] = [
    ("nodes", "", "v1", "nodes"),
    ("namespaces", "", "v1", "namespaces"),
    ("storageclasses", "storage.k8s.io", "v1", "storageclasses"),
    (
        "csidrivers.storage.k8s.io",
        "storage.k8s.io",
        "v1",
        "csidrivers",
    ),
    (
        "csinodes.storage.k8s.io",
        "storage.k8s.io",
        "v1",
        "csinodes",
    ),
    ("daemonsets", "apps", "v1", "daemonsets"),
    ("deployments", "apps", "v1", "deployments"),
    ("statefulsets", "apps", "v1", "statefulsets"),
    (
        "cephclusters.ceph.rook.io",
        "ceph.rook.io",
        "v1",
        "cephclusters",
    ),
    (
        "cephobjectstores.ceph.rook.io",
        "ceph.rook.io",
        "v1",
        "cephobjectstores",
    ),
    (
        "clusters.postgresql.cnpg.io",
        "postgresql.cnpg.io",
        "v1",
        "clusters",
    ),
    (
        "prometheuses.monitoring.coreos.com",
        "monitoring.coreos.com",
        "v1",
        "prometheuses",
    ),
    (
        "alertmanagers.monitoring.coreos.com",
        "monitoring.coreos.com",
        "v1",
        "alertmanagers",
    ),
    (
        "applications.argoproj.io",
        "argoproj.io",
        "v1alpha1",
        "applications",
    ),
    (
        "clusterissuers.cert-manager.io",
        "cert-manager.io",
        "v1",
        "clusterissuers",
    ),
    (
        "certificates.cert-manager.io",
        "cert-manager.io",
        "v1",
        "certificates",
    ),
    (
        "issuers.cert-manager.io",
        "cert-manager.io",
        "v1",
        "issuers",
    ),
    (
        "objectbucketclaims.objectbucket.io",
        "objectbucket.io",
        "v1alpha1",
        "objectbucketclaims",
    ),
];

/// `(group, version, plural)` of the read named `read`.
fn read_type(read: &str) -> (&'static str, &'static str, &'static str) {
    READS
        .iter()
        .find(|(name, ..)| *name == read)
        .map(|(_, g, v, p)| (*g, *v, *p))
        .unwrap_or_else(|| panic!("no read named {read} in support::READS"))
}

/// The cluster-wide list path of `read` (`/api/v1/nodes`, `/apis/G/V/PLURAL`).
fn list_path(read: &str) -> String {
    match read_type(read) {
        ("", v, p) => format!("/api/{v}/{p}"),
        (g, v, p) => format!("/apis/{g}/{v}/{p}"),
    }
}

/// How the cluster answers one read, through the stub's `kubectl proxy`.
#[derive(Clone)]
pub enum Answer {
    /// A List (JSON) whose items are served as that type's objects instead of the fixture's.
    Ok(String),
    /// The API server answers the type's list with this HTTP status (a real `Status`).
    Status(u16),
    /// The API server holds the request and never answers.
    Hang,
}

/// A cluster behind the stub kubectl: a replay fixture (`nestor_replay::fixtures`) served by
/// `nestor-replay --unix-socket` where `kubectl proxy --unix-socket` was asked for, and the
/// replay server's fault rules (`nestor-replay --fault` syntax), as tests/e2e serves it over
/// TCP behind the real kubectl.
#[derive(Clone)]
pub struct Cluster {
    pub fixture: nestor_replay::Fixture,
    pub faults: Vec<String>,
}

impl Cluster {
    /// The SPEC §1 prod cluster: healthy k8s, cni, ceph, storage, monitoring, gitops,
    /// registry, dataops; no datalake, no cert-manager (the replay server's `dirqual`).
    pub fn dirqual() -> Cluster {
        Cluster::replay(&nestor_replay::fixtures::dirqual())
    }

    /// dirqual with the datalake and cert-manager installed: nothing missing (the replay
    /// server's `dirqual-full` fixture).
    pub fn dirqual_full() -> Cluster {
        Cluster::replay(&nestor_replay::fixtures::dirqual_full())
    }

    /// A cluster with no object at all (the built-in types served, empty).
    pub fn empty() -> Cluster {
        Cluster::replay(&nestor_replay::Fixture::default())
    }

    /// `fixture`, served as it is.
    pub fn replay(fixture: &nestor_replay::Fixture) -> Cluster {
        Cluster {
            fixture: fixture.clone(),
            faults: vec![],
        }
    }

    /// The answer of the built-in replay fixture `name` (`nestor_replay::fixtures::NAMES`)
    /// to `read`: a variant of dirqual taken from where it is described.
    pub fn replay_read(name: &str, read: &str) -> Answer {
        let fixture = nestor_replay::fixtures::by_name(name)
            .unwrap_or_else(|| panic!("no built-in replay fixture {name}"));
        Cluster::replay(&fixture)
            .answer(read)
            .unwrap_or_else(|| panic!("replay fixture {name} serves no {read}"))
    }

    /// This cluster's objects of `read` as the List `kubectl get READ -o json` prints (None:
    /// the fixture does not serve that type).
    pub fn answer(&self, read: &str) -> Option<Answer> {
        let served = nestor_replay::Cluster::build(&self.fixture)
            .unwrap_or_else(|e| panic!("replay fixture does not build: {e}"));
        let (group, version, plural) = read_type(read);
        let i = served.type_index(group, version, plural)?;
        let list = serde_json::json!({"apiVersion": "v1", "items": served.objects(i),
            "kind": "List", "metadata": {"resourceVersion": ""}});
        Some(Answer::Ok(list.to_string()))
    }

    /// This cluster with `read` answered by `answer`.
    pub fn with(mut self, read: &str, answer: Answer) -> Cluster {
        let path = list_path(read);
        match answer {
            Answer::Ok(list) => {
                let served = nestor_replay::Cluster::build(&self.fixture)
                    .unwrap_or_else(|e| panic!("replay fixture does not build: {e}"));
                let (group, version, plural) = read_type(read);
                let kind = served
                    .type_index(group, version, plural)
                    .map(|i| served.types[i].kind.clone())
                    .unwrap_or_else(|| panic!("the fixture serves no {read}"));
                let list: serde_json::Value =
                    serde_json::from_str(&list).expect("Answer::Ok holds a List");
                let api_group = |o: &serde_json::Value| {
                    let v = o["apiVersion"].as_str().unwrap_or_default();
                    v.rsplit_once('/')
                        .map(|(g, _)| g.to_string())
                        .unwrap_or_default()
                };
                self.fixture
                    .objects
                    .retain(|o| !(o["kind"] == kind.as_str() && api_group(o) == group));
                let items = list["items"].as_array().cloned().unwrap_or_default();
                self.fixture.objects.extend(items);
            }
            Answer::Status(code) => self.faults.push(format!("GET {path}={code}")),
            Answer::Hang => self.faults.push(format!("GET {path}=hang:60")),
        }
        self
    }

    /// This cluster with one more replay fault rule (`GET /api/v1/nodes=items-null`).
    pub fn fault(mut self, rule: &str) -> Cluster {
        nestor_replay::FaultRule::parse(rule).expect("a replay fault rule");
        self.faults.push(rule.to_string());
        self
    }
}

/// The `nestor-replay` binary of this build, built once per test process (`cargo build -p
/// nestor-replay`: a dev-dependency's binary is not built for this package's tests).
pub fn replay_bin() -> &'static Path {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        // target/<profile>/deps/cli-HASH -> target/<profile>
        let exe = std::env::current_exe().expect("current_exe");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test binary lives in target/PROFILE/deps")
            .to_path_buf();
        let target_dir = profile_dir.parent().expect("target dir").to_path_buf();
        let profile = profile_dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("debug")
            .to_string();
        let profile = if profile == "debug" {
            "dev".to_string()
        } else {
            profile
        };
        let status = std::process::Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "--locked",
                "-p",
                "nestor-replay",
                "--bin",
            ])
            .arg("nestor-replay")
            .arg("--profile")
            .arg(&profile)
            .arg("--manifest-path")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
            .arg("--target-dir")
            .arg(&target_dir)
            .status()
            .expect("run cargo build -p nestor-replay");
        assert!(status.success(), "cargo build -p nestor-replay failed");
        let bin = profile_dir.join("nestor-replay");
        assert!(bin.is_file(), "no {}", bin.display());
        bin
    })
}

/// `'...'` for sh.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl Bed {
    /// Put `cluster` behind the kubectl stub: its `proxy --unix-socket=SOCK` execs
    /// `nestor-replay --unix-socket SOCK` on the cluster's fixture and faults (every request
    /// appended to [`Bed::audit_file`]); any other call that would reach a cluster fails
    /// (nestor reads only through the proxy, issue 21).
    pub fn kubectl_cluster(&self, cluster: &Cluster) {
        let dir = self.tmp.path().join("cluster");
        fs::create_dir_all(&dir).expect("mkdir");
        let fixture = dir.join("fixture.json");
        fs::write(&fixture, cluster.fixture.to_json_pretty()).expect("write fixture");
        let faults: String = cluster
            .faults
            .iter()
            .map(|f| format!(" --fault {}", sh_quote(f)))
            .collect();
        let body = format!(
            "case \" $* \" in\n\
             \x20 *' proxy '*) for a in \"$@\"; do case \"$a\" in --unix-socket=*) sock=\"${{a#--unix-socket=}}\";; esac; done\n\
             \x20   exec {bin} --fixture {fixture} --unix-socket \"$sock\" --audit {audit}{faults};;\n\
             \x20 *) echo \"stub kubectl: unexpected $*\" >&2; exit 1;;\n\
             esac",
            bin = sh_quote(&replay_bin().display().to_string()),
            fixture = sh_quote(&fixture.display().to_string()),
            audit = sh_quote(&self.audit_file().display().to_string()),
        );
        self.stub("kubectl", &body);
    }

    /// A kubectl stub whose `proxy` cannot serve: it prints `stderr` and exits 1 at once (an
    /// old or wrapped kubectl); every other call fails the same way.
    pub fn kubectl_failing(&self, stderr: &str) {
        self.stub(
            "kubectl",
            &format!("printf '%s\\n' {} >&2; exit 1", sh_quote(stderr)),
        );
    }

    /// Where the replay servers of this bed append every request they answered.
    pub fn audit_file(&self) -> PathBuf {
        self.tmp.path().join("replay-audit.jsonl")
    }

    /// Every request the cluster behind the stub answered, as `METHOD PATH[?QUERY]`.
    pub fn requests(&self) -> Vec<String> {
        let text = fs::read_to_string(self.audit_file()).unwrap_or_default();
        text.lines()
            .map(|l| {
                let e: serde_json::Value = serde_json::from_str(l).expect("an audit line");
                let query = e["query"].as_str().unwrap_or_default();
                let query = if query.is_empty() {
                    String::new()
                } else {
                    format!("?{query}")
                };
                format!(
                    "{} {}{query}",
                    e["method"].as_str().unwrap_or_default(),
                    e["path"].as_str().unwrap_or_default()
                )
            })
            .collect()
    }

    /// The paths the cluster was asked (GET only, no query), sorted, deduplicated.
    pub fn paths(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .requests()
            .iter()
            .filter_map(|r| r.strip_prefix("GET "))
            .map(|r| r.split('?').next().unwrap_or_default().to_string())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// A limactl stub printing `ndjson` for `list --json`.
    pub fn limactl_listing(&self, ndjson: &str) {
        let file = self.tmp.path().join("limactl-list.ndjson");
        fs::write(&file, ndjson).expect("write");
        self.stub("limactl", &format!("cat '{}'", file.display()));
    }

    /// The prod dirqual bed: stack selected, its kubeconfig at ~/.kube/dirqual.config
    /// pointing at `server`, and `cluster` behind kubectl.
    pub fn dirqual(server: &str, cluster: &Cluster) -> Bed {
        let bed = Bed::new();
        bed.write_stack("dirqual", PROD_DECLARED);
        bed.select("dirqual");
        bed.kubeconfig(&bed.home.join(".kube/dirqual.config"), server);
        bed.kubectl_cluster(cluster);
        bed
    }
}
/// The permission bits of `p` (symlinks followed).
pub fn mode(p: &Path) -> u32 {
    fs::metadata(p).expect("metadata").permissions().mode() & 0o7777
}

/// `original` with `insert` spliced in right after the line containing `needle`.
pub fn spliced_after(original: &[u8], needle: &str, insert: &[u8]) -> Vec<u8> {
    let i = original
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .expect("needle");
    let at = i
        + original[i..]
            .iter()
            .position(|&b| b == b'\n')
            .expect("line end")
        + 1;
    [&original[..at], insert, &original[at..]].concat()
}

/// An admin.conf as kubeadm writes it, every secret field holding [`SECRET_MARKER`].
pub fn admin_conf(server: &str) -> String {
    format!(
        "apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: {m}CA
    server: {server}
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
kind: Config
preferences: {{}}
users:
- name: kubernetes-admin
  user:
    client-certificate-data: {m}CERT
    client-key-data: {m}KEY
    token: {m}TOKEN
",
        m = SECRET_MARKER
    )
}

/// Stands for certificate, key and token data in fixtures: it must never be printed.
pub const SECRET_MARKER: &str = "NESTORSECRETMARKER";
