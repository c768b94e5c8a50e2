//! Test bed for CLI flows: a temp repo with `stacks/`, a temp HOME, and recording stub
//! `kubectl` / `limactl` / `ssh` first on PATH. Each stub appends its argv (one call per
//! line, arguments separated by U+001F) to `calls.log` and answers from a small script.
//! The kubectl stub refuses (exit 97) any call without an explicit `--kubeconfig`, so every
//! test proves that rule for every call it makes.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use std::time::Duration;

/// The stub kubectl answers `kubectl get ... -o json` and serves no `kubectl proxy`: every
/// command of this suite reads by the processes path, asked for explicitly (nestor never
/// falls back to it by itself, issue 21).
pub const READ_PATH: &str = "processes";

pub use crate::harness::{golden_check, Outcome, Run, NESTOR};

/// `kubectl get nodes -o json` on the dirqual cluster (the replay fixture's four nodes).
pub fn nodes_dirqual() -> String {
    match Cluster::dirqual().answer("nodes") {
        Some(Answer::Ok(list)) => list,
        _ => panic!("the replay dirqual fixture serves no nodes"),
    }
}

pub struct Bed {
    pub tmp: tempfile::TempDir,
    pub repo: PathBuf,
    pub stacks: PathBuf,
    pub home: PathBuf,
    pub bin: PathBuf,
    pub log: PathBuf,
}

impl Bed {
    pub fn new() -> Bed {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().to_path_buf();
        let repo = root.join("repo");
        let stacks = repo.join("stacks");
        let home = root.join("home");
        let bin = root.join("bin");
        for d in [&stacks, &home, &bin] {
            fs::create_dir_all(d).expect("mkdir");
        }
        let log = root.join("calls.log");
        let bed = Bed {
            tmp,
            repo,
            stacks,
            home,
            bin,
            log,
        };
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

    /// A kubectl stub that prints `file`'s content for `get nodes` and fails otherwise.
    pub fn kubectl_serving_nodes(&self, nodes_json: &str) {
        let file = self.tmp.path().join("nodes.json");
        fs::write(&file, nodes_json).expect("write nodes");
        self.stub(
            "kubectl",
            &format!(
                "case \"$*\" in *'get nodes -o json'*) cat '{}';; *) echo \"stub: unexpected $*\" >&2; exit 1;; esac",
                file.display()
            ),
        );
    }

    pub fn write_stack(&self, name: &str, yaml: &str) -> PathBuf {
        let p = self.stacks.join(format!("{name}.yaml"));
        fs::write(&p, yaml).expect("write stack");
        p
    }

    pub fn select(&self, name: &str) {
        let link = self.stacks.join("current.yaml");
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink(format!("{name}.yaml"), link).expect("symlink");
    }

    /// A kubeconfig for `server` at `path` (parents created), current-context set.
    pub fn kubeconfig(&self, path: &Path, server: &str) -> PathBuf {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("mkdir");
        }
        fs::write(path, kubeconfig_text(server)).expect("write kubeconfig");
        fs::set_permissions(path, fs::Permissions::from_mode(0o600)).expect("chmod");
        path.to_path_buf()
    }

    /// `program` run from the repo root with the bed's HOME and PATH (stubs first), on the
    /// processes read path ([`READ_PATH`]); the
    /// rest of the developer's environment is scrubbed by the harness (`harness::scrub`).
    pub fn cmd_program(&self, program: impl AsRef<std::ffi::OsStr>) -> Run {
        let mut r = Run::new(program);
        r.current_dir(&self.repo)
            .env("HOME", &self.home)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env("NESTOR_READ_PATH", READ_PATH);
        r
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
        r.current_dir(&self.repo)
            .env("HOME", &self.home)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env("NESTOR", NESTOR)
            .env("NESTOR_READ_PATH", READ_PATH)
            .stdin(input)
            .timeout(Duration::from_secs(60));
        for (k, v) in env {
            r.env(k, v);
        }
        r.run()
    }

    /// `out` with this bed's temp dir shown as `/t`, for exact expectations.
    pub fn stable(&self, out: Outcome) -> Outcome {
        out.redacted(&self.tmp.path().display().to_string(), "/t")
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
    /// local reading of the kubeconfig that kubectl itself makes, target::authority).
    pub fn reads(&self) -> Vec<Vec<String>> {
        self.calls("kubectl")
            .into_iter()
            .filter(|c| !c.windows(2).any(|w| w[0] == "config" && w[1] == "view"))
            .collect()
    }

    /// A snapshot of every file under the temp dir (path, bytes), to prove nothing was written.
    pub fn tree(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = vec![];
        let mut stack = vec![self.tmp.path().to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(entries) = fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p == self.log {
                    continue;
                }
                let meta = fs::symlink_metadata(&p).expect("meta");
                if meta.is_dir() {
                    stack.push(p);
                } else if meta.file_type().is_symlink() {
                    let target = fs::read_link(&p).expect("readlink");
                    out.push((p, target.into_os_string().into_encoded_bytes()));
                } else {
                    out.push((p.clone(), fs::read(&p).unwrap_or_default()));
                }
            }
        }
        out.sort();
        out
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

pub fn stderr_of(out: &Outcome) -> String {
    out.stderr.clone()
}

pub fn stdout_of(out: &Outcome) -> String {
    out.stdout.clone()
}

// ---- a whole cluster behind the kubectl stub --------------------------------------------

/// The reads of the built-in catalog, as the stub is asked them (`get NAME`), and the
/// group, version and plural the replay fixture serves them at.
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

/// The ConfigMaps the built-in catalog reads by name (`get configmap NAME -n NS`).
const CONFIG_MAPS: [(&str, &str); 1] = [("rook-ceph", "rook-ceph-mon-endpoints")];

/// How the stub answers one read.
#[derive(Clone)]
pub enum Answer {
    Ok(String),
    Fail(String),
    Hang,
}

/// The answers of a cluster, keyed by the read (`nodes`, `api-versions`,
/// `cephclusters.ceph.rook.io`, ...). Unlisted resource types answer like a real server
/// without that type.
#[derive(Clone)]
pub struct Cluster(pub Vec<(String, Answer)>);

impl Cluster {
    /// The SPEC §1 prod cluster: healthy k8s, cni, ceph, storage, monitoring, gitops,
    /// registry, dataops; no datalake, no cert-manager. Described once, by the replay
    /// server's `dirqual` fixture (`nestor_replay::fixtures`): the stub answers each read
    /// with that fixture's objects, as the API server of tests/e2e serves them.
    pub fn dirqual() -> Cluster {
        Cluster::replay(&nestor_replay::fixtures::dirqual())
    }

    /// dirqual with the datalake and cert-manager installed: nothing missing (the replay
    /// server's `dirqual-full` fixture).
    pub fn dirqual_full() -> Cluster {
        Cluster::replay(&nestor_replay::fixtures::dirqual_full())
    }

    /// The answers of a replay fixture to every read of the catalog: `kubectl get T -o json`
    /// as the List of the fixture's objects of T, `api-versions` from its served groups. A
    /// type the fixture does not serve stays unlisted (the stub then answers like a server
    /// without it).
    pub fn replay(fixture: &nestor_replay::Fixture) -> Cluster {
        let served = nestor_replay::Cluster::build(fixture)
            .unwrap_or_else(|e| panic!("replay fixture does not build: {e}"));
        let mut answers = vec![];
        for (read, group, version, plural) in READS {
            let Some(i) = served.type_index(group, version, plural) else {
                continue;
            };
            let list = serde_json::json!({"apiVersion": "v1", "items": served.objects(i),
                "kind": "List", "metadata": {"resourceVersion": ""}});
            answers.push((read.to_string(), Answer::Ok(list.to_string())));
        }
        if let Some(i) = served.type_index("", "v1", "configmaps") {
            for (ns, name) in CONFIG_MAPS {
                let found = served
                    .objects(i)
                    .iter()
                    .find(|o| o["metadata"]["name"] == name && o["metadata"]["namespace"] == ns);
                if let Some(cm) = found {
                    answers.push((format!("configmap {name}"), Answer::Ok(cm.to_string())));
                }
            }
        }
        let mut versions: Vec<String> = served
            .groups
            .iter()
            .flat_map(|g| {
                g.versions.iter().map(move |v| {
                    if g.name.is_empty() {
                        v.clone()
                    } else {
                        format!("{}/{v}", g.name)
                    }
                })
            })
            .collect();
        versions.sort();
        answers.push((
            "api-versions".to_string(),
            Answer::Ok(versions.iter().map(|v| format!("{v}\n")).collect()),
        ));
        Cluster(answers)
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

    /// This cluster's answer to `read`.
    pub fn answer(&self, read: &str) -> Option<Answer> {
        self.0
            .iter()
            .find(|(k, _)| k == read)
            .map(|(_, a)| a.clone())
    }

    pub fn with(mut self, read: &str, answer: Answer) -> Cluster {
        self.0.retain(|(k, _)| k != read);
        self.0.push((read.to_string(), answer));
        self
    }
}

impl Bed {
    /// Put `cluster` behind the kubectl stub. Each answer is a file the stub cats.
    pub fn kubectl_cluster(&self, cluster: &Cluster) {
        let dir = self.tmp.path().join("answers");
        fs::create_dir_all(&dir).expect("mkdir");
        let mut cases = String::new();
        for (i, (read, answer)) in cluster.0.iter().enumerate() {
            let pattern = if read == "api-versions" {
                "*' api-versions'*".to_string()
            } else {
                format!("*' get {read} '*")
            };
            let file = dir.join(format!("{i}"));
            let action = match answer {
                Answer::Ok(body) => {
                    fs::write(&file, body).expect("write answer");
                    format!("cat '{}'", file.display())
                }
                Answer::Fail(stderr) => {
                    fs::write(&file, stderr).expect("write answer");
                    format!("cat '{}' >&2; exit 1", file.display())
                }
                Answer::Hang => "sleep 60 & wait".to_string(),
            };
            cases.push_str(&format!("  {pattern}) {action};;\n"));
        }
        let body = format!(
            "case \" $* \" in\n{cases}  *' get '*) t=$(echo \"$*\" | sed 's/.* get \\([^ ]*\\).*/\\1/'); echo \"error: the server doesn't have a resource type \\\"$t\\\"\" >&2; exit 1;;\n  *) echo \"stub kubectl: unexpected $*\" >&2; exit 1;;\nesac"
        );
        self.stub("kubectl", &body);
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
