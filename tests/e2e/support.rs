//! The end-to-end bed: a replay API server (`nestor_replay::Server`) serving a fixture
//! cluster, a temp repo with `stacks/`, a temp HOME holding the generated kubeconfig, and a
//! temp `bin/` first on PATH with `kubectl-nestor` (a symlink to the built binary) and
//! `kubectl` (a symlink to the REAL kubectl). Commands run as `kubectl nestor ...`: the real
//! kubectl finds the plugin through its own plugin discovery on PATH and execs it.
//!
//! Read-only proof: when a bed is dropped (at the end of every test that did not already
//! fail), [`assert_read_only`] checks that the server saw nothing but GET. The check is a
//! plain function so that a test can show it fails on a POST.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nestor_replay::{fixtures, AuditEntry, Config, Server};

/// The decoy API server of SPEC §10, shared by every bed of this binary, named by
/// `KUBERNETES_MASTER` in every command's environment: only this run knows its port, so any
/// request it records is ours. It serves a DIFFERENT cluster (the `degraded` fixture): a
/// read that reached it would change the plan. Beside it, kubectl's own fallback address
/// 127.0.0.1:8080 is watched by [`crate::trap`] (connections of this run's processes only).
/// Both must stay untouched in every test ([`assert_decoy_untouched`] runs when each bed is
/// dropped).
pub fn decoy() -> &'static Server {
    static DECOY: std::sync::OnceLock<Server> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| {
        let _ = crate::trap::trap();
        let fixture = fixtures::by_name("degraded").expect("degraded fixture");
        Server::start(Config::new(fixture)).expect("decoy server starts")
    })
}

/// Every command run by a bed: (start, end in unix ms, the test, argv), to name the command
/// that reached the decoy when one does.
static COMMANDS: std::sync::Mutex<Vec<(u128, u128, String, String)>> =
    std::sync::Mutex::new(Vec::new());

pub fn unix_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// The decoy saw nothing at all, and no process of this run dialled localhost:8080.
pub fn assert_decoy_untouched() {
    if let Some(trap) = crate::trap::trap() {
        let hits = trap.hits.lock().unwrap_or_else(|p| p.into_inner()).clone();
        assert!(
            hits.is_empty(),
            "a process of this run dialled kubectl's fallback 127.0.0.1:8080: {hits:#?}"
        );
    }
    let seen = decoy().audit();
    if seen.is_empty() {
        return;
    }
    let commands = COMMANDS.lock().unwrap_or_else(|p| p.into_inner());
    let suspects: Vec<String> = seen
        .iter()
        .flat_map(|e| {
            let at = u128::from(e.unix_ms);
            commands
                .iter()
                .filter(move |(start, end, _, _)| *start <= at && at <= *end)
                .map(|(_, _, test, argv)| format!("{test}: {argv}"))
        })
        .collect();
    panic!(
        "the DECOY API server ({}) received {} request(s): {:?}\nrunning then: {suspects:#?}",
        decoy().url(),
        seen.len(),
        seen.iter()
            .map(|e| format!(
                "{} {}?{} ({:?}) at {}",
                e.method, e.path, e.query, e.user_agent, e.unix_ms
            ))
            .collect::<Vec<_>>()
    );
}

/// The real kubectl: `NESTOR_E2E_KUBECTL`, else the first `kubectl` on PATH. `None` (the test
/// skips, saying so) only outside CI: with `CI` set a missing kubectl fails the test, because
/// `.ci/run` installs one.
pub fn real_kubectl() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NESTOR_E2E_KUBECTL").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join("kubectl"))
            .find(|p| p.is_file())
    });
    if found.is_none() && std::env::var_os("CI").is_some() {
        panic!("no kubectl on PATH: .ci/run installs one; the end-to-end tests need it");
    }
    found
}

/// Skip the calling test (return early, saying why) when there is no real kubectl.
#[macro_export]
macro_rules! bed_or_skip {
    ($bed:expr) => {
        match $bed {
            Some(b) => b,
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

/// The layers of the SPEC §1 stack, in the topology's order.
pub const LAYERS: &str =
    "[k8s, cni, ceph, storage, monitoring, gitops, registry, dataops, datalake, certs]";

/// The dirqual topology pointing at `endpoint`.
pub fn dirqual_topology(endpoint: &str) -> String {
    format!(
        "# generated by the e2e bed\nname: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config\n\
         endpoint: {endpoint}\nnodes:\n  - {{ name: dirqual1, role: control-plane }}\n\
         \x20 - {{ name: dirqual2, role: worker }}\n  - {{ name: dirqual3, role: worker }}\n\
         \x20 - {{ name: dirqual4, role: worker }}\nlayers: {LAYERS}\n"
    )
}

pub struct E2e {
    pub tmp: tempfile::TempDir,
    pub repo: PathBuf,
    pub stacks: PathBuf,
    pub home: PathBuf,
    pub bin: PathBuf,
    /// `$HOME/.kube/dirqual.config`, pointing at the server.
    pub kubeconfig: PathBuf,
    /// The real kubectl binary.
    pub kubectl: PathBuf,
    pub server: Server,
}

/// What one command did.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("not JSON ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr)
        })
    }

    /// The first line of stderr (the `kubectl-nestor: error: ...` line).
    pub fn first_error_line(&self) -> &str {
        self.stderr.lines().next().unwrap_or_default()
    }

    /// Exactly the two-line error of SPEC §8: `kubectl-nestor: error: ...` then `hint: ...`.
    pub fn assert_error(&self, code: i32, message: &str) {
        assert_eq!(self.code, Some(code), "{self:?}");
        let lines: Vec<&str> = self.stderr.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with("kubectl-nestor: error: "))
            .unwrap_or_else(|| panic!("no error line: {self:?}"));
        assert!(
            lines[at].contains(message),
            "want `{message}` in\n{}",
            lines[at]
        );
        assert!(
            lines.get(at + 1).is_some_and(|h| h.starts_with("hint: ")),
            "{self:?}"
        );
        assert_eq!(lines.len(), at + 2, "nothing after the hint: {self:?}");
        assert_eq!(self.stdout, "", "an error prints no result: {self:?}");
    }
}

impl E2e {
    /// A bed serving the built-in fixture `name` with `faults` (`nestor-replay --fault` syntax).
    pub fn new(name: &str, faults: &[&str]) -> Option<E2e> {
        let fixture =
            fixtures::by_name(name).unwrap_or_else(|| panic!("no built-in fixture {name}"));
        let mut config = Config::new(fixture);
        for f in faults {
            config = config.fault(f).unwrap_or_else(|e| panic!("{e}"));
        }
        E2e::with_config(config)
    }

    /// The SPEC §1 cluster, no fault.
    pub fn dirqual() -> Option<E2e> {
        E2e::new("dirqual", &[])
    }

    pub fn with_config(config: Config) -> Option<E2e> {
        let kubectl = real_kubectl()?;
        let server = Server::start(config).expect("replay server starts");
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().to_path_buf();
        let repo = root.join("repo");
        let stacks = repo.join("stacks");
        let home = root.join("home");
        let bin = root.join("bin");
        for d in [&stacks, &home.join(".kube"), &bin] {
            fs::create_dir_all(d).expect("mkdir");
        }
        let kubeconfig = home.join(".kube/dirqual.config");
        server.write_kubeconfig(&kubeconfig).expect("kubeconfig");
        std::os::unix::fs::symlink(
            env!("CARGO_BIN_EXE_kubectl-nestor"),
            bin.join("kubectl-nestor"),
        )
        .expect("plugin symlink");
        std::os::unix::fs::symlink(&kubectl, bin.join("kubectl")).expect("kubectl symlink");
        let bed = E2e {
            tmp,
            repo,
            stacks,
            home,
            bin,
            kubeconfig,
            kubectl,
            server,
        };
        bed.write_stack("dirqual", &dirqual_topology(&bed.server.url()));
        bed.select("dirqual");
        Some(bed)
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

    /// A kubeconfig at `path` like the bed's own, with its server URL replaced by `server`.
    pub fn kubeconfig_for(&self, path: &Path, server: &str) -> PathBuf {
        let text = self.server.kubeconfig().replace(&self.server.url(), server);
        fs::write(path, text).expect("write kubeconfig");
        fs::set_permissions(path, fs::Permissions::from_mode(0o600)).expect("chmod");
        path.to_path_buf()
    }

    /// Replace the `kubectl` that the PLUGIN finds on PATH by a shell script around the real
    /// one (`$REAL`). The test still invokes the plugin through the real kubectl.
    pub fn wrap_kubectl(&self, body: &str) {
        let path = self.bin.join("kubectl");
        let _ = fs::remove_file(&path);
        let script = format!("#!/bin/sh\nREAL='{}'\n{body}\n", self.kubectl.display());
        fs::write(&path, script).expect("write wrapper");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// `kubectl nestor ARGS`, through the real kubectl's plugin discovery, from the repo root,
    /// with HOME and PATH of the bed and nothing leaking in from the developer's shell.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.kubectl);
        c.arg("nestor")
            .args(args)
            .current_dir(&self.repo)
            .env("HOME", &self.home)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env_remove("KUBECONFIG")
            .env_remove("NESTOR_STACKS_DIR")
            .env_remove("NESTOR_KUBECTL")
            .env_remove("NESTOR_LIMACTL")
            .env_remove("NESTOR_SSH")
            .env_remove("NO_COLOR")
            // Everything that could redirect kubectl points at the decoy (SPEC §10).
            .env("KUBERNETES_MASTER", decoy().url())
            .stdin(Stdio::null());
        c
    }

    pub fn run(&self, args: &[&str]) -> Run {
        run(self.command(args))
    }

    /// Every file under the temp dir as (path, bytes; a symlink as its target), except
    /// kubectl's own discovery and HTTP caches under `$HOME/.kube`, which kubectl may write
    /// (SPEC §9): the proof that nestor itself wrote nothing.
    pub fn tree(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let skip = [
            self.home.join(".kube/cache"),
            self.home.join(".kube/http-cache"),
        ];
        tree_of(self.tmp.path(), &skip)
    }

    /// Requests to a path, in order.
    pub fn requests_to(&self, path: &str) -> Vec<AuditEntry> {
        self.server
            .audit()
            .into_iter()
            .filter(|e| e.path == path)
            .collect()
    }
}

impl Drop for E2e {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert_read_only(&self.server);
            assert_decoy_untouched();
        }
    }
}

pub fn run(mut c: Command) -> Run {
    let started = Instant::now();
    let from = unix_ms();
    let out = c.output().expect("command runs");
    let argv = format!(
        "{} {}",
        c.get_program().to_string_lossy(),
        c.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let test = std::thread::current().name().unwrap_or("?").to_string();
    COMMANDS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((from, unix_ms(), test, argv));
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: started.elapsed(),
    }
}

pub fn tree_of(root: &Path, skip: &[PathBuf]) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = vec![];
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if skip.iter().any(|s| p.starts_with(s)) {
                continue;
            }
            let Ok(meta) = fs::symlink_metadata(&p) else {
                continue;
            };
            if meta.is_dir() {
                out.push((p.clone(), b"<dir>".to_vec()));
                stack.push(p);
            } else if meta.file_type().is_symlink() {
                let target = fs::read_link(&p).unwrap_or_default();
                out.push((p, target.into_os_string().into_encoded_bytes()));
            } else {
                out.push((p.clone(), fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// One line per request that is not a plain GET (HEAD counts: nestor has no use for it).
pub fn read_only_violations(server: &Server) -> Vec<String> {
    let mut bad: Vec<AuditEntry> = server.audit_non_get();
    for e in server.audit() {
        if e.method != "GET" && !bad.iter().any(|b| b.seq == e.seq) {
            bad.push(e);
        }
    }
    bad.sort_by_key(|e| e.seq);
    bad.iter()
        .map(|e| {
            format!(
                "#{} {} {}{}{} (user agent {:?})",
                e.seq,
                e.method,
                e.path,
                if e.query.is_empty() { "" } else { "?" },
                e.query,
                e.user_agent.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

/// The read-only proof (SPEC §9): the API server saw nothing but GET.
pub fn assert_read_only(server: &Server) {
    let bad = read_only_violations(server);
    assert!(
        bad.is_empty(),
        "the API server received {} request(s) other than GET:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// A loopback port where a connection is refused, reserved for the rest of the run: a TCP
/// socket bound to it and never listening (so a connect gets a reset) and never closed. A
/// port bound and then released, as before, was free for anyone: while the suite runs beside
/// other suites, replay servers bind port 0 all the time, and the next bind on the machine
/// returns the port just released about once in 3000; a server taking it turned "connection
/// refused" into a real cluster (a `wait` then reached it, or waited its whole timeout), and
/// that test's requests landed in another test's audit. Bound, the port is also never picked
/// as the local end of an outgoing connection (no self-connect).
pub fn closed_port() -> u16 {
    use rustix::net::{bind, getsockname, socket, AddressFamily, SocketAddrAny, SocketType};
    let fd = socket(AddressFamily::INET, SocketType::STREAM, None).expect("socket");
    let any = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    bind(&fd, &any).expect("bind 127.0.0.1:0");
    let bound: std::net::SocketAddr = getsockname(&fd)
        .ok()
        .and_then(|a: SocketAddrAny| a.try_into().ok())
        .expect("getsockname");
    // Kept for the whole run: the reservation is the point (one descriptor per call).
    std::mem::forget(fd);
    bound.port()
}

/// The layer states of a Preview document, as (id, state).
pub fn states(v: &serde_json::Value) -> Vec<(String, String)> {
    v["real"]["layers"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|l| {
                    (
                        l["id"].as_str().unwrap_or("?").to_string(),
                        l["state"].as_str().unwrap_or("?").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn state_of(v: &serde_json::Value, id: &str) -> String {
    states(v)
        .into_iter()
        .find(|(i, _)| i == id)
        .map(|(_, s)| s)
        .unwrap_or_else(|| "?".to_string())
}

/// The ids of a plan list (`install`, `repair`, `undecided`).
pub fn plan_ids(v: &serde_json::Value, list: &str) -> Vec<String> {
    v["plan"][list]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s["id"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `expected` from `tests/e2e/golden/NAME`, or write it with NESTOR_UPDATE_GOLDEN=1.
pub fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/e2e/golden")
        .join(name);
    if std::env::var_os("NESTOR_UPDATE_GOLDEN").is_some() {
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (NESTOR_UPDATE_GOLDEN=1 cargo test --test e2e writes it)",
            path.display()
        )
    });
    assert_eq!(
        actual,
        expected,
        "{} differs (NESTOR_UPDATE_GOLDEN=1 rewrites it)",
        path.display()
    );
}

impl E2e {
    /// `text` with this bed's variable parts made stable: the server's URL (its port) and
    /// the temp dir.
    pub fn stable(&self, text: &str) -> String {
        text.replace(&self.server.url(), "http://127.0.0.1:PORT")
            .replace(&self.tmp.path().display().to_string(), "/t")
    }
}
