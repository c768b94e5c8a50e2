//! The end-to-end bed: a replay API server (`nestor_replay::Server`) serving a fixture
//! cluster, a temp repo with `stacks/`, a temp HOME holding the generated kubeconfig, and a
//! temp `bin/` first on PATH with `kubectl-nestor` (a symlink to the built binary) and
//! `kubectl` (a symlink to the REAL kubectl), which nestor runs for every read.
//!
//! How a command starts: [`E2e::command`] execs `bin/kubectl-nestor` by its absolute path
//! with the words after `nestor`, in the bed's environment: exactly what the real kubectl's
//! plugin discovery execs for `kubectl nestor ...` (it finds the plugin on PATH and execs
//! that path, the words and the environment unchanged). `tests/e2e/discovery.rs` proves it
//! for the kubectl in use: a plugin that prints what it was given sees the same thing both
//! ways, and every command of the read-only set gives the same exit code, output and
//! requests through discovery as run directly. Going through kubectl costs three more
//! processes per command (the Cloud SDK dispatcher and the kubectl it picks), about 50 ms
//! each time, a fifth of this binary's wall time; [`E2e::through_kubectl`] is that path.
//! The tests about kubectl's dispatch itself take it (`usage_errors`,
//! `quickstart::help_through_kubectl_says_kubectl_nestor`,
//! `scenarios::target_through_kubectl_*`), and so do the README's lines run as written
//! (through `sh`, so through kubectl).
//!
//! Read-only proof: when a bed is dropped (at the end of every test that did not already
//! fail), [`assert_read_only`] checks that the server saw nothing but GET. The check is a
//! plain function so that a test can show it fails on a POST.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

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

pub use crate::harness::unix_ms;

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

/// The e2e bed: the shared [`Dirs`] (repo, stacks, HOME, `bin/` holding the plugin and the
/// real kubectl) with a replay server and the kubeconfig that points at it.
pub struct E2e {
    dirs: Dirs,
    /// `$HOME/.kube/dirqual.config`, pointing at the server.
    pub kubeconfig: PathBuf,
    /// The real kubectl binary.
    pub kubectl: PathBuf,
    pub server: Server,
}

impl std::ops::Deref for E2e {
    type Target = Dirs;
    fn deref(&self) -> &Dirs {
        &self.dirs
    }
}

pub use crate::common_bed::Dirs;

/// What one command did: the harness's [`Outcome`] (exact expectations, diffs).
pub use crate::harness::{at_once, Outcome, Run};

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
        let dirs = Dirs::new();
        let (home, bin) = (&dirs.home, &dirs.bin);
        fs::create_dir_all(home.join(".kube")).expect("mkdir");
        let kubeconfig = home.join(".kube/dirqual.config");
        server.write_kubeconfig(&kubeconfig).expect("kubeconfig");
        std::os::unix::fs::symlink(
            env!("CARGO_BIN_EXE_kubectl-nestor"),
            bin.join("kubectl-nestor"),
        )
        .expect("plugin symlink");
        std::os::unix::fs::symlink(&kubectl, bin.join("kubectl")).expect("kubectl symlink");
        let bed = E2e {
            dirs,
            kubeconfig,
            kubectl,
            server,
        };
        bed.write_stack("dirqual", &dirqual_topology(&bed.server.url()));
        bed.select("dirqual");
        Some(bed)
    }

    /// A kubeconfig at `path` like the bed's own, with its server URL replaced by `server`.
    pub fn kubeconfig_for(&self, path: &Path, server: &str) -> PathBuf {
        let text = self.server.kubeconfig().replace(&self.server.url(), server);
        crate::common_bed::write_private(path, &text)
    }

    /// Replace the `kubectl` that the plugin finds on PATH by a shell script around the real
    /// one (`$REAL`).
    pub fn wrap_kubectl(&self, body: &str) {
        let path = self.bin.join("kubectl");
        let _ = fs::remove_file(&path);
        let script = format!("#!/bin/sh\nREAL='{}'\n{body}\n", self.kubectl.display());
        fs::write(&path, script).expect("write wrapper");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// `kubectl nestor ARGS` as kubectl's plugin discovery runs it: `bin/kubectl-nestor`
    /// (the path kubectl finds on the bed's PATH) with `args`, from the repo root, with HOME
    /// and PATH of the bed; the rest of the developer's environment is scrubbed by the
    /// harness, and `KUBERNETES_MASTER` names the decoy (SPEC §10). See the module's "How a
    /// command starts" for why this is not a shortcut.
    pub fn command(&self, args: &[&str]) -> Run {
        self.plugin("kubectl-nestor", args)
    }

    /// The plugin `name` on the bed's `bin/`, run as kubectl's plugin discovery runs it.
    pub fn plugin(&self, name: &str, args: &[&str]) -> Run {
        let mut c = self.program(self.bin.join(name));
        c.args(args);
        c
    }

    /// `kubectl WORD ARGS` (`nestor`, or another plugin's word) through the real kubectl and
    /// its plugin discovery, otherwise as [`E2e::plugin`].
    pub fn through_kubectl(&self, word: &str, args: &[&str]) -> Run {
        let mut c = self.program(&self.kubectl);
        c.arg(word).args(args);
        c
    }

    /// `program` with the environment of [`E2e::command`].
    pub fn program(&self, program: impl AsRef<std::ffi::OsStr>) -> Run {
        let mut c = self.dirs.run(program);
        // Everything that could redirect kubectl points at the decoy (SPEC §10).
        c.env("KUBERNETES_MASTER", decoy().url())
            .redact(self.server.url(), "http://127.0.0.1:PORT");
        c
    }

    pub fn run(&self, args: &[&str]) -> Outcome {
        run(&self.command(args))
    }

    /// Runs each of `commands`: each is the SPEC §8 error of exit `code` whose error line
    /// holds `error`, its stderr holding every one of `also` too. `what` names the case.
    #[track_caller]
    pub fn assert_each_errs(
        &self,
        commands: &[&[&str]],
        code: i32,
        error: &str,
        also: &[&str],
        what: &str,
    ) {
        for args in commands {
            let out = self.run(args);
            out.error(code, error);
            assert!(
                also.iter().all(|a| out.stderr.contains(a)),
                "{what} {args:?}: want {also:?} on stderr: {}",
                out.stderr
            );
        }
    }

    /// Runs each of `commands`: each exits 3 with no result, its stderr holding every one of
    /// `says`, and `secret` is printed on neither stream. `what` names the case.
    #[track_caller]
    pub fn assert_each_refused_quietly(
        &self,
        commands: &[&[&str]],
        says: &[&str],
        secret: &str,
        what: &str,
    ) {
        for args in commands {
            let out = self.run(args);
            out.code(3).no_result();
            assert!(
                says.iter().all(|s| out.stderr.contains(s)),
                "{what} {args:?}: want {says:?} on stderr: {}",
                out.stderr
            );
            assert_unprinted(&out, secret, &format!("{what} {args:?}"));
        }
    }

    /// Every file under the temp dir as (path, bytes; a symlink as its target), except
    /// kubectl's own discovery and HTTP caches under `$HOME/.kube`, which kubectl may write
    /// (SPEC §9): the proof that nestor itself wrote nothing.
    pub fn tree(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let skip = [
            self.home.join(".kube/cache"),
            self.home.join(".kube/http-cache"),
        ];
        self.dirs.tree(&skip, true)
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

/// `secret` (a credential, a marker) is printed on neither stream of `out`.
#[track_caller]
pub fn assert_unprinted(out: &Outcome, secret: &str, what: &str) {
    assert!(
        !out.stdout.contains(secret) && !out.stderr.contains(secret),
        "{what}: `{secret}` printed: {out:?}"
    );
}

/// Run `c`, recording when and what for [`assert_decoy_untouched`]'s message.
pub fn run(c: &Run) -> Outcome {
    let out = c.run();
    let test = std::thread::current().name().unwrap_or("?").to_string();
    COMMANDS.lock().unwrap_or_else(|p| p.into_inner()).push((
        out.started_ms,
        out.ended_ms,
        test,
        out.argv.clone(),
    ));
    out
}

pub fn tree_of(root: &Path, skip: &[PathBuf]) -> Vec<(PathBuf, Vec<u8>)> {
    crate::common_bed::tree_of(root, skip, true)
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

/// The layer's JSON object in a Preview document (panics, naming the document, when absent).
pub fn layer(v: &serde_json::Value, id: &str) -> serde_json::Value {
    v["real"]["layers"]
        .as_array()
        .and_then(|a| a.iter().find(|l| l["id"] == id))
        .cloned()
        .unwrap_or_else(|| panic!("no layer {id} in {v}"))
}

/// The evidence lines of one layer of a Preview document.
pub fn evidence(v: &serde_json::Value, id: &str) -> Vec<String> {
    layer(v, id)["evidence"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| e.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Asserts that an evidence line of layer `id` of a Preview document holds `line`.
#[track_caller]
pub fn assert_evidence_has(v: &serde_json::Value, id: &str, line: &str) {
    let ev = evidence(v, id);
    assert!(
        ev.iter().any(|e| e.contains(line)),
        "{id}: no {line:?} in {ev:#?}"
    );
}

/// `preview` as JSON and as text (`-v`, no colour) on the bed; both succeed. The text comes
/// back as one line (evidence is wrapped to the width).
pub fn preview(bed: &E2e) -> (serde_json::Value, String) {
    let (v, text) = preview_runs(bed);
    // Read back as one line (evidence is wrapped to the width).
    let flat = text.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    (v, flat)
}

/// `preview -o json` (its document) and `preview --no-color -v` (`-v`: every evidence line;
/// a present layer is one summary line otherwise), both exit 0.
pub fn preview_runs(bed: &E2e) -> (serde_json::Value, Outcome) {
    let json = bed.run(&["preview", "--no-input", "-o", "json"]);
    json.code(0);
    let text = bed.run(&["preview", "--no-input", "--no-color", "-v"]);
    text.code(0);
    (json.json(), text)
}

/// `kubectl nestor gate ARGS --no-input` on the `dirqual-gates` fixture with `faults` (replay
/// `--fault` rules): the gate tests' one setup. The bed (its server's audit) and the run,
/// which exited `code`; `None` without a kubectl (`bed_or_skip!`).
pub fn gate(faults: &[&str], args: &[&str], code: i32) -> Option<(E2e, Outcome)> {
    let bed = E2e::new("dirqual-gates", faults)?;
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    all.push("--no-input");
    let r = bed.run(&all);
    r.code(code);
    Some((bed, r))
}

/// A `Gate` document whose verdict is CANNOT TELL with exactly the rules `undecided`
/// undecided (never GO); the server saw only GETs.
#[track_caller]
pub fn assert_cannot_tell(bed: &E2e, v: &serde_json::Value, undecided: &[&str]) {
    assert_eq!(v["kind"], "Gate", "{v}");
    assert_eq!(v["verdict"]["result"], "CANNOT TELL", "{v}");
    assert_eq!(
        v["verdict"]["undecided"],
        serde_json::json!(undecided),
        "{v}"
    );
    assert_read_only(&bed.server);
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

/// The whole plan as ids, one line per part (`install: datalake, certs`), for a snapshot
/// of every part at once: stronger than asking whether one id is (or is not) in one part.
pub fn plan_lines(v: &serde_json::Value) -> String {
    ["install", "repair", "undecided"]
        .iter()
        .map(|part| match plan_ids(v, part).join(", ") {
            ids if ids.is_empty() => format!("{part}: -\n"),
            ids => format!("{part}: {ids}\n"),
        })
        .collect()
}

/// `actual` compared with `tests/e2e/golden/NAME` (a diff on failure;
/// `SNAPSHOTS=overwrite` rewrites it).
#[track_caller]
pub fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/e2e/golden")
        .join(name);
    crate::harness::golden(&path, actual);
}

impl E2e {
    /// `text` with this bed's variable parts made stable: the server's URL (its port) and
    /// the temp dir.
    pub fn stable(&self, text: &str) -> String {
        text.replace(&self.server.url(), "http://127.0.0.1:PORT")
            .replace(&self.tmp.path().display().to_string(), "/t")
    }
}

/// The lines of the first ```sh block of the section `heading` of `file` (e.g. `README.md`,
/// `## On your own cluster`), blank and comment-only lines left out: what a reader types, as
/// written.
pub fn doc_block(file: &str, heading: &str) -> Vec<String> {
    crate::common_readme::fenced(&crate::common_readme::section(file, heading), "sh")
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no ```sh block under `{heading}` in {file}"))
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

impl E2e {
    /// One line (or a whole script) through `sh -c` from the repo root, with the environment
    /// of [`E2e::command`]: README lines as a reader's shell runs them (`kubectl nestor`
    /// found on PATH).
    pub fn sh(&self, line: &str) -> Outcome {
        let mut c = self.program("/bin/sh");
        c.args(["-c", line]);
        run(&c)
    }
}

/// `gate ARGS --no-input -o json` on `dirqual-gates` changed by `change` (its objects as the
/// API server and controllers write them), exiting `code`, the server seeing only GETs: the
/// Gate document, or `None` without a real kubectl.
pub fn gate_on(
    change: impl FnOnce(&mut Vec<serde_json::Value>),
    args: &[&str],
    code: i32,
) -> Option<serde_json::Value> {
    let mut fixture = fixtures::by_name("dirqual-gates").expect("dirqual-gates");
    change(&mut fixture.objects);
    let bed = E2e::with_config(Config::new(fixture))?;
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    all.extend(["--no-input", "-o", "json"]);
    let r = bed.run(&all);
    r.code(code);
    assert_read_only(&bed.server);
    Some(r.json())
}

/// Rule `id`'s outcome in a Gate document.
pub fn rule_of(v: &serde_json::Value, id: &str) -> serde_json::Value {
    v["rules"]
        .as_array()
        .and_then(|a| a.iter().find(|r| r["rule"] == id))
        .cloned()
        .unwrap_or_else(|| panic!("no rule {id} in {v}"))
}
