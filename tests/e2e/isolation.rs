//! Bench/prod isolation (SPEC §14): a lima stack whose kubeconfig's server is a prod
//! stack's endpoint is refused (exit 3) by every command, before any process runs and
//! before any request reaches the cluster; two prod stacks sharing an endpoint are flagged.

use std::fs;

use nestor_replay::{fixtures, Config, Server};

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::{text_snap, Table};
use crate::support::*;

const LIMA: &str =
    "name: bench\ntarget_kind: lima\nnodes:\n  - { name: node1, role: control-plane }\n\
                    \x20 - { name: node2, role: worker }\nlayers: [k8s, cni]\n";

/// The refusal of a bench whose isolation from prod cannot be checked.
const UNCHECKED: &str = "bench/prod isolation cannot be checked";

/// `wait` for the bench's k8s layer, in bounded time.
const WAIT: &[&str] = &[
    "--stack",
    "bench",
    "wait",
    "--for=healthy",
    "k8s",
    "--timeout",
    "2s",
];

/// Every command that reads a cluster for the stack, as `kubectl nestor ARGS`.
fn commands(snapshot: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["--stack", "bench", "preview"]),
        v(&["--stack", "bench", "preview", "-o", "json"]),
        v(&["--stack", "bench", "discover"]),
        v(&["--stack", "bench", "discover", "--emit-topology"]),
        v(&["--stack", "bench", "target"]),
        v(&["--stack", "bench", "target", "--no-input"]),
        v(WAIT),
        v(&["--stack", "bench", "diff", snapshot, "-"]),
        v(&["stack", "env", "bench"]),
        v(&["stack", "select", "bench"]),
    ]
}

/// The bench's own kubeconfig directory (`bench/lima/.work`), made, and the bench stack
/// (LIMA, no `kubeconfig:`) written: the set-up of every bench-on-its-harness-file case.
fn bench_work(bed: &E2e) -> std::path::PathBuf {
    let work = bed.repo.join("bench/lima/.work");
    fs::create_dir_all(&work).expect("mkdir");
    bed.write_stack("bench", LIMA);
    work
}

/// The first warning of the bench's row in a `stack list -o json` document, and the document.
fn bench_warning(list: &Outcome) -> (String, serde_json::Value) {
    let v = list.json();
    let warning = v["stacks"]
        .as_array()
        .and_then(|s| s.iter().find(|r| r["name"] == "bench"))
        .and_then(|r| r["warnings"][0].as_str())
        .unwrap_or_default()
        .to_string();
    (warning, v)
}

/// ... and the fleet's whole text is `fleet` (the bench its own refused line).
fn assert_refused_everywhere(bed: &E2e, kubeconfig_shown: &str, fleet: impl snapbox::IntoData) {
    let snap = bed.tmp.path().join("prod.snapshot.json");
    let saved = bed.run(&["discover", "--save", snap.to_str().unwrap_or_default()]);
    saved.code(0);
    let before = bed.tree();
    bed.server.clear_audit();
    let commands = commands(snap.to_str().unwrap_or_default());
    let commands: Vec<Vec<&str>> = commands
        .iter()
        .map(|a| a.iter().map(String::as_str).collect())
        .collect();
    let commands: Vec<&[&str]> = commands.iter().map(Vec::as_slice).collect();
    bed.assert_each_errs(
        &commands,
        3,
        "lima stack bench would read prod",
        &[kubeconfig_shown, "prod stack dirqual"],
        kubeconfig_shown,
    );
    assert_eq!(
        bed.server.audit(),
        vec![],
        "refused before any request reached the cluster"
    );
    // The fleet: the bench is its own refused line; the prod stack is still read.
    let out = bed.run(&["preview", "--all"]);
    out.code(3);
    let bench = out
        .stdout
        .lines()
        .find(|l| l.starts_with("bench "))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert_eq!(bench.split_whitespace().nth(1), Some("refused"), "{bench}");
    // `bench (refused): lima stack bench would read prod`; dirqual read, 4/4 nodes.
    out.stdout_snap(fleet);
    assert!(
        !bed.server.audit().is_empty(),
        "the prod stack was read by the fleet"
    );
    // stack list says it too, and stays a listing (exit 0).
    let list = bed.run(&["stack", "list", "-o", "json"]);
    list.code(0);
    let (warning, v) = bench_warning(&list);
    assert!(warning.contains("would read prod"), "{v}");
    // Nothing was written: current.yaml still points at dirqual.
    assert_eq!(bed.tree(), before);
}

#[test]
fn a_lima_stack_declaring_the_prod_kubeconfig_is_refused_by_every_command() {
    let bed = bed_or_skip!(E2e::dirqual());
    bed.write_stack(
        "bench",
        &format!("{LIMA}kubeconfig: ~/.kube/dirqual.config\n"),
    );
    assert_refused_everywhere(
        &bed,
        ".kube/dirqual.config",
        str![[r#"
STACK    OUTCOME  KIND  NODES  LAYERS P/D/A/U  PLAN  TARGET
bench    refused  lima  -      -               -     -
dirqual  work     prod  4/4    8/0/2/0         2     http://127.0.0.1:PORT
total: 2 stacks: 0 ok, 1 work, 0 undecided, 1 refused, 0 unreachable, 0 error
bench (refused): lima stack bench would read prod: its kubeconfig
                 /t/home/.kube/dirqual.config points at
                 http://127.0.0.1:PORT, the endpoint: of prod stack dirqual
  hint: the bench never reads prod: give the lima stack its own bench kubeconfig
        (the harness writes bench/lima/.work/kubeconfig)

"#]],
    );
}

#[test]
fn a_bench_kubeconfig_whose_server_is_a_prod_endpoint_is_refused_too() {
    let bed = bed_or_skip!(E2e::dirqual());
    // The harness's own file, but pointing at prod's API server.
    let work = bench_work(&bed);
    bed.kubeconfig_for(&work.join("kubeconfig"), &format!("{}/", bed.server.url()));
    bed.server.clear_audit();
    assert_refused_everywhere(
        &bed,
        "bench/lima/.work/kubeconfig",
        str![[r#"
STACK    OUTCOME  KIND  NODES  LAYERS P/D/A/U  PLAN  TARGET
bench    refused  lima  -      -               -     -
dirqual  work     prod  4/4    8/0/2/0         2     http://127.0.0.1:PORT
total: 2 stacks: 0 ok, 1 work, 0 undecided, 1 refused, 0 unreachable, 0 error
bench (refused): lima stack bench would read prod: its kubeconfig
                 /t/repo/bench/lima/.work/kubeconfig points at
                 http://127.0.0.1:PORT/, the endpoint: of prod stack dirqual
  hint: the bench never reads prod: give the lima stack its own bench kubeconfig
        (the harness writes bench/lima/.work/kubeconfig)

"#]],
    );
}

#[test]
fn a_prod_stack_without_endpoint_is_known_by_its_kubeconfig_server() {
    let bed = bed_or_skip!(E2e::dirqual());
    let prod = fs::read_to_string(bed.stacks.join("dirqual.yaml")).expect("read");
    let without: String = prod
        .lines()
        .filter(|l| !l.starts_with("endpoint:"))
        .map(|l| format!("{l}\n"))
        .collect();
    bed.write_stack("dirqual", &without);
    bed.write_stack(
        "bench",
        &format!("{LIMA}kubeconfig: ~/.kube/dirqual.config\n"),
    );
    let out = bed.run(&["--stack", "bench", "target"]);
    out.error(3, "the kubeconfig server of prod stack dirqual");
}

#[test]
fn a_bench_on_its_own_cluster_is_read_and_shared_prod_endpoints_are_flagged() {
    let bed = bed_or_skip!(E2e::dirqual());
    let lima = Server::start(Config::new(fixtures::bench())).expect("bench server");
    bed.kubeconfig_for(&bed.home.join(".kube/bench.config"), &lima.url());
    bed.write_stack(
        "bench",
        &format!("{LIMA}kubeconfig: ~/.kube/bench.config\n"),
    );
    let out = bed.run(&["--stack", "bench", "target"]);
    out.code(0);
    out.stdout_has("node1");
    assert!(lima.audit().iter().any(|e| e.path == "/api/v1/nodes"));

    // A second prod stack declaring dirqual's endpoint: both flagged, nothing refused.
    let copy = fs::read_to_string(bed.stacks.join("dirqual.yaml"))
        .expect("read")
        .replace("name: dirqual", "name: dirqual-old")
        .replace("dirqual.config", "dirqual-old.config");
    bed.write_stack("dirqual-old", &copy);
    bed.kubeconfig_for(
        &bed.home.join(".kube/dirqual-old.config"),
        &bed.server.url(),
    );
    let list = bed.run(&["stack", "list"]);
    list.code(0);
    // Each of the two stacks is warned about, naming the other.
    list.stderr_snap(str![[r#"
kubectl-nestor: warning: prod stack dirqual-old declares the same endpoint http://127.0.0.1:PORT as prod stack dirqual: one of them targets the wrong cluster
kubectl-nestor: warning: prod stack dirqual declares the same endpoint http://127.0.0.1:PORT as prod stack dirqual-old: one of them targets the wrong cluster

"#]]);
    let fleet = bed.run(&["preview", "--all", "-o", "json"]);
    let v = fleet.json();
    assert_eq!(
        v["sharedEndpoints"][0]["stacks"],
        serde_json::json!(["dirqual", "dirqual-old"])
    );
    fleet.stderr_snap(str![[r#"
kubectl-nestor: warning: prod stacks dirqual, dirqual-old declare the same endpoint http://127.0.0.1:PORT: one of them targets the wrong cluster

"#]]);
    assert_read_only(&lima);
}

/// Issue 21: isolation compared strings, so `localhost` for prod's `127.0.0.1` read prod.
/// Every spelling of prod's listener is prod's listener (the same host and port whatever
/// the path); a spelling nestor cannot compare (userinfo, query, fragment, an ambiguous
/// IPv4) is refused outright. Either way no request reaches prod.
#[test]
fn every_spelling_of_the_prod_server_is_refused_for_the_bench() {
    let bed = bed_or_skip!(E2e::dirqual());
    let port = bed.server.addr().port();
    let work = bench_work(&bed);
    let same = [
        "http://localhost:{P}",
        "http://LOCALHOST:{P}",
        "http://localhost.:{P}/",
        "http://[::ffff:127.0.0.1]:{P}",
        "http://[::1]:{P}",
        "http://0.0.0.0:{P}",
        "http://127.0.0.1:{P}/k8s",
        "http://127.0.0.1:{P}/./",
        "https://127.0.0.1:{P}",
        "http://runsc:{P}",
    ];
    let refused = [
        "http://x@127.0.0.1:{P}",
        "http://admin:SECRETPASS21@127.0.0.1:{P}",
        "http://127.0.0.1:{P}/?a=b",
        "http://127.0.0.1:{P}/#f",
        "http://0127.0.0.1:{P}",
    ];
    for spelling in same.iter().chain(refused.iter()) {
        let server = spelling.replace("{P}", &port.to_string());
        bed.kubeconfig_for(&work.join("kubeconfig"), &server);
        bed.server.clear_audit();
        for args in [
            &["--stack", "bench", "target"][..],
            &["--stack", "bench", "preview", "-o", "json"],
        ] {
            let out = bed.run(args);
            if same.contains(spelling) {
                out.error(3, "lima stack bench would read prod");
            } else {
                assert_ne!(out.code, Some(0), "{server}: {}", out.stderr);
                assert!(out.stderr.contains("refused"), "{server}: {}", out.stderr);
            }
            assert_unprinted(&out, "SECRETPASS21", &server);
        }
        assert_eq!(bed.server.audit(), vec![], "{server} reached prod");
    }
}

/// Two prod stacks naming one server two ways are flagged by `stack list` and the fleet.
#[test]
fn two_spellings_of_one_prod_server_are_flagged() {
    let bed = bed_or_skip!(E2e::dirqual());
    let port = bed.server.addr().port();
    let copy = fs::read_to_string(bed.stacks.join("dirqual.yaml"))
        .expect("read")
        .replace("name: dirqual", "name: dirqual-old")
        .replace("dirqual.config", "dirqual-old.config")
        .replace(
            &format!("endpoint: {}", bed.server.url()),
            &format!("endpoint: http://LOCALHOST.:{port}/"),
        );
    assert!(copy.contains("LOCALHOST."), "{copy}");
    bed.write_stack("dirqual-old", &copy);
    let list = bed.run(&["stack", "list"]);
    // The whole stderr: a warning for each of the two stacks declaring the same endpoint
    // (the server's port, which changes each run, as PORT).
    let list = list.redacted(&format!("localhost.:{port}"), "localhost.:PORT");
    list.code(0).stderr_snap(str![[r#"
kubectl-nestor: warning: prod stack dirqual-old declares the same endpoint http://localhost.:PORT as prod stack dirqual: one of them targets the wrong cluster
kubectl-nestor: warning: prod stack dirqual declares the same endpoint http://localhost.:PORT as prod stack dirqual-old: one of them targets the wrong cluster

"#]]);
}

/// Issue 21: a bench kubeconfig that is a FIFO passed the isolation check (it was "not a
/// file", so nothing to check). Now the check fails closed: refused, naming the file, in
/// bounded time, and no request reaches prod.
#[test]
fn a_bench_kubeconfig_that_is_a_fifo_is_refused_not_passed() {
    let bed = bed_or_skip!(E2e::dirqual());
    let fifo = bench_work(&bed).join("kubeconfig");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    assert!(made, "mkfifo");
    bed.server.clear_audit();
    // Each command's whole output: refused, naming bench/lima/.work/kubeconfig as "not a
    // regular file".
    let table = Table::new();
    for args in [
        &["--stack", "bench", "target"][..],
        &["--stack", "bench", "preview"],
        &["stack", "select", "bench"],
    ] {
        let started = std::time::Instant::now();
        let out = bed.run(args);
        assert_ne!(out.code, Some(0), "{args:?}: {}", out.stderr);
        table.add(&args.join(" "), &out);
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
    table.table_snap(str![[r#"
== --stack bench target: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: a FIFO, not a regular file: refused before reading
hint: check the file's owner and permissions (it should be 0600 and yours)
== --stack bench preview: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: a FIFO, not a regular file: refused before reading
hint: check the file's owner and permissions (it should be 0600 and yours)
== stack select bench: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: a FIFO, not a regular file: refused before reading
hint: check the file's owner and permissions (it should be 0600 and yours)

"#]]);
    assert_eq!(bed.server.audit(), vec![]);
}

/// Issue 21: a bench kubeconfig that is not a regular file or cannot be read fails the check
/// closed: a directory, a device (a symlink to `/dev/zero`), a symlink loop, a dangling
/// symlink. Each is refused naming the file (exit 1 or 3), in bounded time, no request sent.
/// (The FIFO is the test above; the fail-closed reading itself landed in 93acd1b.)
#[test]
fn a_bench_kubeconfig_that_is_no_regular_file_or_unreadable_is_refused() {
    let bed = bed_or_skip!(E2e::dirqual());
    let work = bench_work(&bed);
    let file = work.join("kubeconfig");
    let cases: [(&str, &dyn Fn()); 4] = [
        ("a directory", &|| fs::create_dir(&file).expect("mkdir")),
        ("a device", &|| {
            std::os::unix::fs::symlink("/dev/zero", &file).expect("symlink")
        }),
        ("a symlink loop", &|| {
            std::os::unix::fs::symlink(&file, &file).expect("symlink")
        }),
        ("a dangling symlink", &|| {
            std::os::unix::fs::symlink(work.join("gone"), &file).expect("symlink")
        }),
    ];
    // Each case's whole output, naming bench/lima/.work/kubeconfig.
    let table = Table::new();
    for (what, make) in cases {
        let _ = fs::remove_file(&file);
        let _ = fs::remove_dir(&file);
        make();
        bed.server.clear_audit();
        for args in [
            &["--stack", "bench", "target"][..],
            &["--stack", "bench", "preview", "-o", "json"],
            &["stack", "env", "bench"],
        ] {
            let started = std::time::Instant::now();
            let out = bed.run(args);
            assert!(
                matches!(out.code, Some(1) | Some(3)),
                "{what} {args:?}: {out:?}"
            );
            out.stderr_has_hint().no_result();
            table.add(&format!("{what}: {}", args.join(" ")), &out);
            assert!(started.elapsed() < std::time::Duration::from_secs(20));
        }
        assert_eq!(bed.server.audit(), vec![], "{what}: a request reached prod");
    }
    table.table_snap(str![[r#"
== a directory: --stack bench target: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is a directory
hint: point kubeconfig at a file
== a directory: --stack bench preview -o json: exit 1
--- stdout
{
  "apiVersion": "nestor/v1",
  "kind": "Error",
  "message": "kubeconfig /t/repo/bench/lima/.work/kubeconfig is a directory",
  "hint": "point kubeconfig at a file",
  "exitCode": 1,
  "nestorVersion": "0.1.0"
}
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is a directory
hint: point kubeconfig at a file
== a directory: stack env bench: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is a directory
hint: point kubeconfig at a file
== a device: --stack bench target: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: a device, not a regular file: refused before reading
hint: check the file's owner and permissions (it should be 0600 and yours)
== a device: --stack bench preview -o json: exit 1
--- stdout
{
  "apiVersion": "nestor/v1",
  "kind": "Error",
  "message": "kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: a device, not a regular file: refused before reading",
  "hint": "check the file's owner and permissions (it should be 0600 and yours)",
  "exitCode": 1,
  "nestorVersion": "0.1.0"
}
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: a device, not a regular file: refused before reading
hint: check the file's owner and permissions (it should be 0600 and yours)
== a device: stack env bench: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: a device, not a regular file: refused before reading
hint: check the file's owner and permissions (it should be 0600 and yours)
== a symlink loop: --stack bench target: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: Too many levels of symbolic links (os error 40)
hint: check the file's owner and permissions (it should be 0600 and yours)
== a symlink loop: --stack bench preview -o json: exit 1
--- stdout
{
  "apiVersion": "nestor/v1",
  "kind": "Error",
  "message": "kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: Too many levels of symbolic links (os error 40)",
  "hint": "check the file's owner and permissions (it should be 0600 and yours)",
  "exitCode": 1,
  "nestorVersion": "0.1.0"
}
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: Too many levels of symbolic links (os error 40)
hint: check the file's owner and permissions (it should be 0600 and yours)
== a symlink loop: stack env bench: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is not readable: Too many levels of symbolic links (os error 40)
hint: check the file's owner and permissions (it should be 0600 and yours)
== a dangling symlink: --stack bench target: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is a symlink to /t/repo/bench/lima/.work/gone, which does not exist
hint: point the symlink at the real kubeconfig, or fetch it with `kubectl nestor kubeconfig fetch`
== a dangling symlink: --stack bench preview -o json: exit 1
--- stdout
{
  "apiVersion": "nestor/v1",
  "kind": "Error",
  "message": "kubeconfig /t/repo/bench/lima/.work/kubeconfig is a symlink to /t/repo/bench/lima/.work/gone, which does not exist",
  "hint": "point the symlink at the real kubeconfig, or fetch it with `kubectl nestor kubeconfig fetch`",
  "exitCode": 1,
  "nestorVersion": "0.1.0"
}
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is a symlink to /t/repo/bench/lima/.work/gone, which does not exist
hint: point the symlink at the real kubeconfig, or fetch it with `kubectl nestor kubeconfig fetch`
== a dangling symlink: stack env bench: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/repo/bench/lima/.work/kubeconfig is a symlink to /t/repo/bench/lima/.work/gone, which does not exist
hint: point the symlink at the real kubeconfig, or fetch it with `kubectl nestor kubeconfig fetch`

"#]]);
}

/// Issue 21: a prod topology of the stacks directory that does not load (a misspelt key, a
/// `catalog:` file that is missing) was silently left out of the check, so a bench whose
/// kubeconfig points at that prod's server read prod. Now the bench is refused, naming the
/// file; a broken file that plainly says `target_kind: lima` is no prod and blocks nothing.
#[test]
fn a_prod_topology_that_does_not_load_refuses_the_bench() {
    let bed = bed_or_skip!(E2e::dirqual());
    let work = bench_work(&bed);
    bed.kubeconfig_for(&work.join("kubeconfig"), &bed.server.url());
    let prod = fs::read_to_string(bed.stacks.join("dirqual.yaml")).expect("read");
    // stack list's whole warning for the bench, case by case.
    let mut warnings = String::new();
    for (what, broken) in [
        ("a misspelt key", prod.replace("nodes:", "nodess:")),
        (
            "a missing catalog: file",
            format!("{prod}catalog: missing-catalog.yaml\n"),
        ),
        ("not YAML", format!("{prod}: ][\n")),
    ] {
        assert_ne!(broken, prod, "{what}");
        bed.write_stack("dirqual", &broken);
        bed.server.clear_audit();
        bed.assert_each_errs(
            &[
                &["--stack", "bench", "target"],
                &["--stack", "bench", "preview", "-o", "json"],
                &["stack", "select", "bench"],
                &["stack", "env", "bench"],
            ],
            3,
            UNCHECKED,
            &["stacks/dirqual.yaml does not load"],
            what,
        );
        // stack list stays a listing and says why the bench would be refused.
        let list = bed.run(&["stack", "list", "-o", "json"]);
        let (warning, _) = bench_warning(&list);
        warnings.push_str(&format!("== {what}\n{}\n", list.redact_text(&warning)));
        assert_eq!(bed.server.audit(), vec![], "{what}: the bench read prod");
    }
    // Each says the bench/prod isolation cannot be checked, naming the file.
    text_snap(
        &warnings,
        str![[r#"
== a misspelt key
bench/prod isolation cannot be checked: stack file /t/repo/stacks/dirqual.yaml does not load, so its endpoint is unknown: /t/repo/stacks/dirqual.yaml:6:1: unknown key `nodess` (did you mean `nodes`?)
== a missing catalog: file
bench/prod isolation cannot be checked: stack file /t/repo/stacks/dirqual.yaml does not load, so its endpoint is unknown: cannot read catalog file /t/repo/stacks/missing-catalog.yaml: No such file or directory (os error 2)
== not YAML
bench/prod isolation cannot be checked: stack file /t/repo/stacks/dirqual.yaml does not load, so its endpoint is unknown: /t/repo/stacks/dirqual.yaml:12:1: did not find expected key at line 12 column 1, while parsing a block mapping

"#]],
    );
    // A broken LIMA file is no prod endpoint: a bench on its own cluster still runs.
    bed.write_stack("dirqual", &prod);
    bed.write_stack("other", "name: other\ntarget_kind: lima\nnodez: []\n");
    let lima = Server::start(Config::new(fixtures::bench())).expect("bench server");
    bed.kubeconfig_for(&work.join("kubeconfig"), &lima.url());
    bed.run(&["--stack", "bench", "target"]).code(0);
    assert_read_only(&lima);
}

/// Issue 21: a prod stack's declared kubeconfig that exists but cannot be read (a
/// directory, not a kubeconfig) was left out of its endpoints, so a bench pointing at the
/// server that file names read prod. Now that server is unknown and the bench refused.
#[test]
fn a_prod_kubeconfig_that_cannot_be_read_refuses_the_bench() {
    let bed = bed_or_skip!(E2e::dirqual());
    let work = bench_work(&bed);
    bed.kubeconfig_for(&work.join("kubeconfig"), &bed.server.url());
    // The prod stack's endpoint names another server: only its kubeconfig names this one.
    bed.write_stack("dirqual", &dirqual_topology("https://10.99.0.1:6443"));
    let prod_kubeconfig = bed.kubeconfig.clone();
    for (what, make) in [
        (
            "a directory",
            Box::new(|| fs::create_dir_all(&prod_kubeconfig).expect("mkdir")) as Box<dyn Fn()>,
        ),
        (
            "not a kubeconfig",
            Box::new(|| fs::write(&prod_kubeconfig, "clusters: [oops\n").expect("write")),
        ),
    ] {
        let _ = fs::remove_file(&prod_kubeconfig);
        let _ = fs::remove_dir(&prod_kubeconfig);
        make();
        bed.server.clear_audit();
        bed.assert_each_errs(
            &[
                &["--stack", "bench", "target"],
                &["--stack", "bench", "preview", "-o", "json"],
            ],
            3,
            UNCHECKED,
            &["prod stack dirqual's kubeconfig"],
            what,
        );
        assert_eq!(bed.server.audit(), vec![], "{what}: the bench read prod");
    }
}

/// Issue 21: `--stack /elsewhere/bench.yaml` was checked only against the stacks of its own
/// directory. It is checked against the stacks directory nestor would use from the current
/// directory too: the repo's prod stack is known, the bench refused, prod never read.
#[test]
fn a_stack_file_outside_the_stacks_directory_is_checked_against_it_too() {
    let bed = bed_or_skip!(E2e::dirqual());
    let elsewhere = bed.tmp.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).expect("mkdir");
    let kubeconfig = elsewhere.join("bench.kubeconfig");
    bed.kubeconfig_for(&kubeconfig, &bed.server.url());
    let file = elsewhere.join("bench.yaml");
    fs::write(
        &file,
        format!("{LIMA}kubeconfig: {}\n", kubeconfig.display()),
    )
    .expect("write");
    let shown = file.display().to_string();
    bed.server.clear_audit();
    bed.assert_each_errs(
        &[
            &["--stack", shown.as_str(), "target"],
            &["--stack", shown.as_str(), "preview", "-o", "json"],
        ],
        3,
        "lima stack bench would read prod",
        &["prod stack dirqual (stacks directory", "repo/stacks)"],
        "a stack file elsewhere",
    );
    // NESTOR_STACK=PATH is the same choice.
    let out = run(bed.command(&["target"]).env("NESTOR_STACK", &file));
    out.error(3, "lima stack bench would read prod");
    assert_eq!(bed.server.audit(), vec![], "the bench read prod");
}

/// Issue 21: the check read the bench kubeconfig once and the target was resolved from a
/// second read: a file swapped between the two made the bench read prod in 9/10 runs. The
/// session now pins its target to the check's own reading (and kubectl's view must agree
/// with it), so whatever each run sees, prod's audit never shows a request.
#[test]
fn a_bench_kubeconfig_swapped_in_a_loop_never_reads_prod() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let bed = bed_or_skip!(E2e::dirqual());
    let lima = Server::start(Config::new(fixtures::bench())).expect("bench server");
    let path = bench_work(&bed).join("kubeconfig");
    let bench_text = bed
        .server
        .kubeconfig()
        .replace(&bed.server.url(), &lima.url());
    let prod_text = bed.server.kubeconfig();
    fs::write(&path, &bench_text).expect("write");
    bed.server.clear_audit();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, path) = (Arc::clone(&stop), path.clone());
        std::thread::spawn(move || {
            let tmp = path.with_extension("swap");
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let text = if n % 2 == 0 { &prod_text } else { &bench_text };
                let _ = fs::write(&tmp, text);
                let _ = fs::rename(&tmp, &path);
                n += 1;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            n
        })
    };
    let mut outcomes = std::collections::BTreeMap::new();
    for _ in 0..16 {
        let out = bed.run(&["--stack", "bench", "target", "-o", "json"]);
        match out.code {
            Some(0) => assert_eq!(out.json()["target"]["endpoint"], lima.url().as_str()),
            Some(1) | Some(3) => {
                out.no_result();
            }
            _ => panic!("unexpected outcome {out:?}"),
        }
        *outcomes.entry(out.code).or_insert(0) += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().expect("swapper");
    eprintln!("outcomes over {swaps} swaps: {outcomes:?}");
    assert_eq!(bed.server.audit(), vec![], "the bench read prod");
    assert_read_only(&lima);
}

/// Issue 21 (A): a prod topology whose `endpoint:` holds a credential (`user:pass@`) or a
/// query or a fragment is refused at load. Isolation must not then fail open: the prod
/// stack's server is known by nothing else (its kubeconfig not fetched yet), and a bench
/// whose kubeconfig points at that very server (its loopback spellings) must still be
/// refused by every lima command and by the fleet — naming the stack file, never printing
/// the password — and prod must see no request. The control first: the same bench with a
/// prod stack declaring another server reads the replay server, so each refusal below is
/// the unparseable endpoint's doing, not a bench that never reads.
#[test]
fn a_prod_endpoint_nestor_cannot_parse_refuses_a_bench_on_that_server() {
    use std::os::unix::fs::PermissionsExt;
    let bed = bed_or_skip!(E2e::dirqual());
    let url = bed.server.url();
    let port = bed.server.addr().port();
    let authority = url.trim_start_matches("http://").to_string();
    // The prod kubeconfig is not there (not fetched): only `endpoint:` names prod's server.
    fs::remove_file(&bed.kubeconfig).expect("rm prod kubeconfig");
    let limactl = bed.bin.join("limactl");
    let vm = |n: &str| {
        format!("{{\"name\":\"{n}\",\"status\":\"Running\",\"dir\":\"/l/{n}\",\"arch\":\"x86_64\",\"cpus\":2,\"memory\":4294967296,\"disk\":107374182400}}")
    };
    fs::write(
        &limactl,
        format!(
            "#!/bin/sh\n[ \"$*\" = 'list --json' ] || exit 1\necho '{}'\necho '{}'\n",
            vm("node1"),
            vm("node2")
        ),
    )
    .expect("write limactl");
    fs::set_permissions(&limactl, fs::Permissions::from_mode(0o755)).expect("chmod");
    let work = bench_work(&bed);
    bed.select("bench");
    let lima_commands: [&[&str]; 6] = [
        &["--stack", "bench", "preview"],
        &["--stack", "bench", "preview", "-o", "json"],
        &["--stack", "bench", "target"],
        &["--stack", "bench", "discover"],
        &["--stack", "bench", "discover", "-v"],
        WAIT,
    ];

    // Control: prod declares another server; the bench on the replay server is read.
    bed.write_stack("dirqual", &dirqual_topology("https://10.99.0.1:6443"));
    bed.kubeconfig_for(&work.join("kubeconfig"), &url);
    bed.server.clear_audit();
    let out = bed.run(&["--stack", "bench", "target"]);
    out.code(0);
    assert!(
        bed.server.audit().iter().any(|e| e.path == "/api/v1/nodes"),
        "control: the bench must be read when prod is another server: {out:?}"
    );

    let marker = "MARK3R-PRODPASS";
    let endpoints = [
        format!("http://admin:{marker}@{authority}"),
        format!("https://admin:{marker}@{authority}"),
        format!("http://{marker}@{authority}"),
        format!("{url}/?x=y"),
        format!("{url}/#f"),
    ];
    let bench_servers = [
        url.clone(),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}/k8s"),
    ];
    // The bench's kubeconfig names `server`; prod's audit starts empty.
    let bench_on = |server: &str| {
        bed.kubeconfig_for(&work.join("kubeconfig"), server);
        bed.server.clear_audit();
    };
    // The refusal comes from the prod stack not loading, before any bench server is compared:
    // each endpoint is tried with one bench spelling, the spellings in turn, so that every
    // endpoint and every spelling is refused by every command (5 pairs of the 15, each pair
    // ten runs of nestor through the real kubectl).
    for (i, endpoint) in endpoints.iter().enumerate() {
        bed.write_stack("dirqual", &dirqual_topology(endpoint));
        let server = &bench_servers[i % bench_servers.len()];
        let what = format!("prod endpoint {endpoint}, bench server {server}");
        bench_on(server);
        bed.assert_each_refused_quietly(
            &lima_commands,
            &[UNCHECKED, "stacks/dirqual.yaml does not load"],
            marker,
            &what,
        );
        // The fleet: the bench is a refused line, the prod stack an error line.
        for args in [
            &["preview", "--all"][..],
            &["preview", "--all", "-o", "json"],
        ] {
            let out = bed.run(args);
            out.code(3);
            assert_unprinted(&out, marker, &format!("{what} {args:?}"));
            if args.len() == 2 {
                let bench = out.stdout.lines().find(|l| l.starts_with("bench "));
                assert_eq!(
                    bench.and_then(|l| l.split_whitespace().nth(1)),
                    Some("refused"),
                    "{what}: {}",
                    out.stdout
                );
                assert!(
                    out.stdout.contains("stacks/dirqual.yaml does not load"),
                    "{what}: {}",
                    out.stdout
                );
            }
        }
        // `stack select` of the bench is refused too and `stack list` says why.
        bed.run(&["stack", "select", "bench"]).error(3, UNCHECKED);
        let list = bed.run(&["stack", "list"]);
        assert_unprinted(&list, marker, &format!("{what} stack list"));
        assert_eq!(bed.server.audit(), vec![], "{what}: the bench read prod");
    }
    // The same through the prod stack's kubeconfig: its server holds the credential (the
    // endpoint names another server), so that server cannot be compared: refused.
    bed.write_stack("dirqual", &dirqual_topology("https://10.99.0.1:6443"));
    bed.kubeconfig_for(
        &bed.kubeconfig,
        &format!("http://admin:{marker}@{authority}"),
    );
    for server in &bench_servers {
        bench_on(server);
        bed.assert_each_refused_quietly(
            &lima_commands,
            &[
                UNCHECKED,
                "prod stack dirqual's kubeconfig",
                "holds a user name or password",
            ],
            marker,
            &format!("prod kubeconfig with a credential, bench {server}"),
        );
        assert_eq!(bed.server.audit(), vec![], "bench {server} read prod");
    }
}
