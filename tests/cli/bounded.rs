//! Bounded inputs (SPEC §9, issue 10): a topology, catalog, inventory or kubeconfig over
//! 1 MiB or nested deeper than 64 levels is refused before parsing — fast (400 KB of `[`
//! took over a minute in a YAML parser), exit 1, a clear message, nothing written, and no
//! kubectl or ssh run.

use std::fs;
use std::time::{Duration, Instant};

use snapbox::str;

use crate::harness::Table;
use crate::support::*;

fn deep() -> String {
    "[".repeat(400 * 1024)
}

/// `args` refused before parsing (exit 1, nothing written or run); its outcome recorded in
/// `cases` as `args` (`expected` names what the refusal is about).
fn refused(cases: &Table, bed: &Bed, args: &[&str], expected: &str) {
    let before = bed.tree();
    let started = Instant::now();
    let out = bed.cmd().args(args).run();
    let took = started.elapsed();
    let err = stderr_of(&out);
    out.code(1).stderr_has_hint();
    cases.add(&format!("{args:?} ({expected})"), &out);
    let _ = err;
    assert!(took < Duration::from_secs(5), "{args:?} took {took:?}");
    assert_eq!(stdout_of(&out), "", "{args:?}");
    assert_eq!(bed.tree(), before, "{args:?}: nothing written");
    assert!(bed.reads().is_empty(), "{args:?}: no kubectl read");
    assert!(bed.calls("ssh").is_empty(), "{args:?}: no ssh");
}

#[test]
fn a_deep_or_huge_kubeconfig_is_refused_before_parsing() {
    let cases = Table::new();
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let kc = bed.home.join(".kube/dirqual.config");
    fs::write(&kc, format!("apiVersion: v1\nclusters: {}", deep())).expect("write");
    for cmd in ["preview", "discover", "target"] {
        refused(
            &cases,
            &bed,
            &["--no-input", cmd],
            "nested deeper than 64 levels",
        );
    }
    fs::write(&kc, "a".repeat(2 * 1024 * 1024)).expect("write");
    refused(
        &cases,
        &bed,
        &["--no-input", "target"],
        "larger than 1024 KiB",
    );
    assert!(bed.calls("kubectl").is_empty());
    cases.table_snap(str![[r#"
== ["--no-input", "preview"] (nested deeper than 64 levels): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is nested deeper than 64 levels: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file
== ["--no-input", "discover"] (nested deeper than 64 levels): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is nested deeper than 64 levels: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file
== ["--no-input", "target"] (nested deeper than 64 levels): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is nested deeper than 64 levels: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file
== ["--no-input", "target"] (larger than 1024 KiB): exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is larger than 1024 KiB: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file

"#]]);
}

#[test]
fn a_deep_topology_or_catalog_is_refused_before_parsing() {
    let cases = Table::new();
    let bed = Bed::new();
    bed.write_stack(
        "dirqual",
        &format!("name: dirqual\ntarget_kind: prod\nlayers: {}", deep()),
    );
    bed.select("dirqual");
    refused(&cases, &bed, &["stack", "show"], "topology");
    refused(
        &cases,
        &bed,
        &["--no-input", "preview"],
        "nested deeper than 64 levels",
    );
    bed.write_stack(
        "dirqual",
        "name: dirqual\ntarget_kind: prod\nkubeconfig: ~/.kube/dirqual.config\ncatalog: layers.yaml\nlayers: [k8s]\n",
    );
    fs::write(bed.stacks.join("layers.yaml"), deep()).expect("write");
    refused(&cases, &bed, &["--no-input", "preview"], "catalog");
    cases.table_snap(str![[r#"
== ["stack", "show"] (topology): exit 1
--- stderr
kubectl-nestor: error: topology /t/repo/stacks/dirqual.yaml is nested deeper than 64 levels: refused before parsing
hint: a topology is a small hand-written file: check that the path names the right file
== ["--no-input", "preview"] (nested deeper than 64 levels): exit 1
--- stderr
kubectl-nestor: error: topology /t/repo/stacks/dirqual.yaml is nested deeper than 64 levels: refused before parsing
hint: a topology is a small hand-written file: check that the path names the right file
== ["--no-input", "preview"] (catalog): exit 1
--- stderr
kubectl-nestor: error: catalog /t/repo/stacks/layers.yaml is nested deeper than 64 levels: refused before parsing
hint: a catalog is a small hand-written file: check that the path names the right file

"#]]);
}

#[test]
fn a_deep_inventory_is_refused_before_parsing() {
    let cases = Table::new();
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.select("dirqual");
    let inventory = bed.repo.join("bootstrap/hosts.yaml");
    fs::create_dir_all(inventory.parent().expect("parent")).expect("mkdir");
    fs::write(&inventory, format!("all:\n  hosts: {}", deep())).expect("write");
    refused(
        &cases,
        &bed,
        &["--no-input", "kubeconfig", "fetch"],
        "inventory",
    );
    cases.table_snap(str![[r#"
== ["--no-input", "kubeconfig", "fetch"] (inventory): exit 1
--- stderr
kubectl-nestor: error: inventory /t/repo/bootstrap/hosts.yaml is nested deeper than 64 levels: refused before parsing
hint: a inventory is a small hand-written file: check that the path names the right file

"#]]);
}

fn mkfifo(path: &std::path::Path) {
    let _ = fs::remove_file(path);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", path.display());
}

/// Issue 21: a FIFO as kubeconfig, snapshot, inventory or stack file hung nestor forever,
/// and `--snapshot /dev/zero` ran out of memory. Each is refused, in bounded time (the run
/// is killed at 20 s, far above the refusal), naming the file, with nothing run.
#[test]
fn fifos_and_devices_are_refused_as_every_input() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let fifo = bed.tmp.path().join("input.fifo");
    mkfifo(&fifo);
    let run = |args: &[&str]| {
        let started = Instant::now();
        let out = bed.cmd().args(args).timeout(Duration::from_secs(20)).run();
        (out, started.elapsed())
    };
    let cases = Table::new();
    let check = |what: &str, args: &[&str], file: &std::path::Path| {
        let (out, took) = run(args);
        let err = stderr_of(&out);
        assert_eq!(out.code, Some(1), "{what} {args:?}: {err}");
        cases.add(&format!("{what} {}", file.display()), &out);
        assert!(
            took < Duration::from_secs(5),
            "{what} {args:?} took {took:?}"
        );
    };
    let zero = std::path::Path::new("/dev/zero");
    for input in [fifo.as_path(), zero] {
        let shown = input.to_str().unwrap_or_default();
        check(
            "kubeconfig",
            &["--no-input", "--kubeconfig", shown, "target"],
            input,
        );
        check(
            "snapshot",
            &["--no-input", "preview", "--snapshot", shown],
            input,
        );
    }
    assert!(bed.calls("kubectl").is_empty(), "no kubectl ran");

    // The inventory: a FIFO at bootstrap/hosts.yaml.
    let inventory = bed.repo.join("bootstrap/hosts.yaml");
    mkfifo(&inventory);
    check(
        "inventory",
        &["--no-input", "kubeconfig", "fetch"],
        &inventory,
    );
    assert!(bed.calls("ssh").is_empty(), "no ssh ran");
    fs::remove_file(&inventory).expect("rm");

    // A FIFO among the stack files: `stack list` reports it and ends.
    let stack = bed.stacks.join("ghost.yaml");
    mkfifo(&stack);
    let (out, took) = run(&["stack", "list"]);
    assert!(took < Duration::from_secs(5), "stack list took {took:?}");
    cases.add("stack list", &out);
    cases.table_snap(str![[r#"
== kubeconfig /t/input.fifo: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/input.fifo is not readable: a FIFO, not a regular file: refused before reading
hint: check the file's owner and permissions (it should be 0600 and yours)
== snapshot /t/input.fifo: exit 1
--- stderr
kubectl-nestor: error: cannot read snapshot /t/input.fifo: a FIFO, not a regular file: refused before reading
hint: pass a file written by `kubectl nestor discover --save FILE`
== kubeconfig /dev/zero: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /dev/zero is not readable: a device, not a regular file: refused before reading
hint: check the file's owner and permissions (it should be 0600 and yours)
== snapshot /dev/zero: exit 1
--- stderr
kubectl-nestor: error: cannot read snapshot /dev/zero: a device, not a regular file: refused before reading
hint: pass a file written by `kubectl nestor discover --save FILE`
== inventory /t/repo/bootstrap/hosts.yaml: exit 1
--- stderr
kubectl-nestor: error: cannot read inventory /t/repo/bootstrap/hosts.yaml: a FIFO, not a regular file: refused before reading
hint: check that /t/repo/bootstrap/hosts.yaml is a readable file (permissions, not a directory)
== stack list: exit 1
--- stdout
   NAME     KIND     KUBECONFIG
*  dirqual  prod     ~/.kube/dirqual.config
   ghost    invalid  -
--- stderr
kubectl-nestor: error: cannot read topology /t/repo/stacks/ghost.yaml: a FIFO, not a regular file: refused before reading
hint: check that the file exists and is readable

"#]]);
}

/// `extension: [a ', [[[...]]]]`: a quote inside a plain scalar is no quoted scalar, so the
/// brackets after it are real nesting.
fn quote_trick(levels: usize) -> String {
    format!(
        "extension: [a ', {}{}]\n",
        "[".repeat(levels),
        "]".repeat(levels)
    )
}

/// Issue 21: the depth pre-scan was fooled by a quote in a plain scalar: 300 levels were
/// accepted and handed to the YAML parser, 300 000 still ran at 120 s. Through the binary,
/// for the kubeconfig of every reading command: refused as nested too deep, in bounded time
/// (the run is killed at 30 s), nothing run.
#[test]
fn a_quote_in_a_plain_scalar_does_not_hide_deep_nesting() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let kc = bed.home.join(".kube/dirqual.config");
    let plain = fs::read_to_string(&kc).expect("read");
    let cases = Table::new();
    for levels in [300, 300_000] {
        fs::write(&kc, format!("{plain}{}", quote_trick(levels))).expect("write");
        for cmd in ["target", "preview", "discover"] {
            let started = Instant::now();
            let out = bed
                .cmd()
                .args(["--no-input", cmd])
                .timeout(Duration::from_secs(30))
                .run();
            let took = started.elapsed();
            let err = stderr_of(&out);
            assert_eq!(out.code, Some(1), "{levels} levels, {cmd}: {err}");
            cases.add(&format!("{levels} levels, {cmd}"), &out);
            assert!(
                took < Duration::from_secs(5),
                "{levels} levels, {cmd} took {took:?}"
            );
        }
    }
    cases.table_snap(str![[r#"
== 300 levels, target: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is nested deeper than 64 levels: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file
== 300 levels, preview: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is nested deeper than 64 levels: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file
== 300 levels, discover: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is nested deeper than 64 levels: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file
== 300000 levels, target: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is nested deeper than 64 levels: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file
== 300000 levels, preview: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is nested deeper than 64 levels: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file
== 300000 levels, discover: exit 1
--- stderr
kubectl-nestor: error: kubeconfig /t/home/.kube/dirqual.config is nested deeper than 64 levels: refused before parsing
hint: a kubeconfig is a small hand-written file: check that the path names the right file

"#]]);
    assert!(bed.calls("kubectl").is_empty(), "no kubectl ran");
}

/// Issue 21: a FIFO among the `stacks/*.yaml` files hung `stack list`, every lima command and
/// `preview --all` forever (it was opened blocking to list or to check isolation). Each ends
/// in bounded time (killed at 20 s), naming the FIFO; the lima commands are refused (a stack
/// file that does not load leaves isolation unchecked), the fleet reports it as its line.
#[test]
fn a_fifo_stack_file_ends_every_lima_command_and_the_fleet() {
    let bed = Bed::new();
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("bench");
    bed.limactl_listing(
        "{\"name\":\"node1\",\"status\":\"Running\",\"dir\":\"/l/node1\",\"arch\":\"x86_64\",\"cpus\":2,\"memory\":4294967296,\"disk\":107374182400}\n",
    );
    // A bench kubeconfig, so that the lima commands read Kubernetes (isolation is checked).
    let work = bed.repo.join("bench/lima/.work");
    fs::create_dir_all(&work).expect("mkdir");
    bed.kubeconfig(&work.join("kubeconfig"), "https://10.99.0.9:6443");
    let fifo = bed.stacks.join("ghost.yaml");
    mkfifo(&fifo);
    // Each command's whole output: ghost.yaml named "not a regular file"; for the lima
    // commands (and the active bench's preview) "bench/prod isolation cannot be checked".
    let table = Table::new();
    for args in [
        &["--stack", "bench", "preview"][..],
        &["--stack", "bench", "target"],
        &["--stack", "bench", "discover"],
        &["preview"],
        &["preview", "--all"],
        &["preview", "--all", "-o", "json"],
        &["stack", "list"],
    ] {
        let started = Instant::now();
        let out = bed
            .cmd()
            .args(["--no-input"])
            .args(args)
            .timeout(Duration::from_secs(20))
            .run();
        let took = started.elapsed();
        let all = format!("{}{}", stdout_of(&out), stderr_of(&out));
        assert!(out.code.is_some(), "{args:?} was killed after {took:?}");
        assert!(took < Duration::from_secs(5), "{args:?} took {took:?}");
        if args[0] == "--stack" || args == ["preview"] {
            assert_eq!(out.code, Some(3), "{args:?}: {all}");
        }
        table.add(&args.join(" "), &out);
    }
    table.table_snap(str![[r#"
== --stack bench preview: exit 3
--- stderr
kubectl-nestor: error: bench/prod isolation cannot be checked: stack file /t/repo/stacks/ghost.yaml does not load, so its endpoint is unknown: cannot read topology /t/repo/stacks/ghost.yaml: a FIFO, not a regular file: refused before reading
hint: fix that file (`kubectl nestor stack list` shows every file's error) or move it out of the stacks directory; the bench never runs unless every prod stack of its stacks directory is known, so that it can never read a prod cluster
== --stack bench target: exit 3
--- stderr
kubectl-nestor: error: bench/prod isolation cannot be checked: stack file /t/repo/stacks/ghost.yaml does not load, so its endpoint is unknown: cannot read topology /t/repo/stacks/ghost.yaml: a FIFO, not a regular file: refused before reading
hint: fix that file (`kubectl nestor stack list` shows every file's error) or move it out of the stacks directory; the bench never runs unless every prod stack of its stacks directory is known, so that it can never read a prod cluster
== --stack bench discover: exit 3
--- stderr
kubectl-nestor: error: bench/prod isolation cannot be checked: stack file /t/repo/stacks/ghost.yaml does not load, so its endpoint is unknown: cannot read topology /t/repo/stacks/ghost.yaml: a FIFO, not a regular file: refused before reading
hint: fix that file (`kubectl nestor stack list` shows every file's error) or move it out of the stacks directory; the bench never runs unless every prod stack of its stacks directory is known, so that it can never read a prod cluster
== preview: exit 3
--- stderr
kubectl-nestor: error: bench/prod isolation cannot be checked: stack file /t/repo/stacks/ghost.yaml does not load, so its endpoint is unknown: cannot read topology /t/repo/stacks/ghost.yaml: a FIFO, not a regular file: refused before reading
hint: fix that file (`kubectl nestor stack list` shows every file's error) or move it out of the stacks directory; the bench never runs unless every prod stack of its stacks directory is known, so that it can never read a prod cluster
== preview --all: exit 3
--- stdout
STACK  OUTCOME  KIND     NODES  LAYERS P/D/A/U  PLAN  TARGET
bench  refused  lima     -      -               -     -
ghost  error    invalid  -      -               -     -
total: 2 stacks: 0 ok, 0 work, 0 undecided, 1 refused, 0 unreachable, 1 error
bench (refused): bench/prod isolation cannot be checked: stack file
                 /t/repo/stacks/ghost.yaml does not load, so its
                 endpoint is unknown: cannot read topology
                 /t/repo/stacks/ghost.yaml: a FIFO, not a regular
                 file: refused before reading
  hint: fix that file (`kubectl nestor stack list` shows every file's error) or
        move it out of the stacks directory; the bench never runs unless every
        prod stack of its stacks directory is known, so that it can never read a
        prod cluster
ghost (error): cannot read topology /t/repo/stacks/ghost.yaml: a
               FIFO, not a regular file: refused before reading
  hint: check that the file exists and is readable
== preview --all -o json: exit 3
--- stdout
{
  "apiVersion": "nestor/v1",
  "kind": "PreviewList",
  "stacksDir": "/t/repo/stacks",
  "items": [
    {
      "name": "bench",
      "file": "/t/repo/stacks/bench.yaml",
      "targetKind": "lima",
      "endpoint": null,
      "outcome": "refused",
      "exitCode": 3,
      "preview": null,
      "error": {
        "message": "bench/prod isolation cannot be checked: stack file /t/repo/stacks/ghost.yaml does not load, so its endpoint is unknown: cannot read topology /t/repo/stacks/ghost.yaml: a FIFO, not a regular file: refused before reading",
        "hint": "fix that file (`kubectl nestor stack list` shows every file's error) or move it out of the stacks directory; the bench never runs unless every prod stack of its stacks directory is known, so that it can never read a prod cluster"
      }
    },
    {
      "name": "ghost",
      "file": "/t/repo/stacks/ghost.yaml",
      "targetKind": null,
      "endpoint": null,
      "outcome": "error",
      "exitCode": 1,
      "preview": null,
      "error": {
        "message": "cannot read topology /t/repo/stacks/ghost.yaml: a FIFO, not a regular file: refused before reading",
        "hint": "check that the file exists and is readable"
      }
    }
  ],
  "total": {
    "stacks": 2,
    "ok": 0,
    "work": 0,
    "undecided": 0,
    "refused": 1,
    "unreachable": 0,
    "error": 1
  },
  "sharedEndpoints": [],
  "nestorVersion": "0.1.0",
  "observedAt": "NOW"
}
== stack list: exit 1
--- stdout
   NAME   KIND     KUBECONFIG
*  bench  lima     bench/lima/.work/kubeconfig
   ghost  invalid  -
--- stderr
kubectl-nestor: warning: bench/prod isolation cannot be checked: stack file /t/repo/stacks/ghost.yaml does not load, so its endpoint is unknown: cannot read topology /t/repo/stacks/ghost.yaml: a FIFO, not a regular file: refused before reading
kubectl-nestor: error: cannot read topology /t/repo/stacks/ghost.yaml: a FIFO, not a regular file: refused before reading
hint: check that the file exists and is readable

"#]]);
}

/// Issue 31 item 8: a catalog naming 2700 ConfigMaps (204 KB, under the 1 MiB file bound)
/// would make the proxy's one `--accept-paths` argument too long for Linux (E2BIG, once
/// worded as a TMPDIR problem). It is refused when the catalog is read, before any process,
/// naming the file and the count (the built-in catalog's three ConfigMaps included): exit 1,
/// a hint, nothing written.
#[test]
fn a_catalog_whose_config_maps_overflow_the_proxy_argument_is_refused_naming_it() {
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let checks: String = (0..2700)
        .map(|i| {
            format!("    - configMapKey: {{namespace: kube-system, name: generated-config-{i:04}, key: k, in: [\"true\"]}}\n")
        })
        .collect();
    let catalog =
        format!("- id: many\n  title: Many ConfigMaps\n  detect:\n{checks}  install: make many\n");
    assert!(catalog.len() > 200_000 && catalog.len() < 1024 * 1024);
    fs::write(bed.stacks.join("layers.yaml"), catalog).expect("write");
    let stack = fs::read_to_string(bed.stacks.join("dirqual.yaml")).expect("stack");
    bed.write_stack("dirqual", &format!("{stack}catalog: layers.yaml\n"));
    let before = bed.tree();
    let out = bed.cmd().args(["--no-input", "preview"]).run();
    out.code(1);
    assert_eq!(
        stderr_of(&out),
        format!(
            "kubectl-nestor: error: catalog {} reads 2703 ConfigMaps by name: their 175 KiB of `kubectl proxy --accept-paths` are over the 96 KiB nestor allows them (one argument holds 128 KiB)\nhint: check fewer ConfigMaps (a layer's checks may share one ConfigMap: each is read once, by name), or split the catalog between stacks\n",
            bed.stacks.join("layers.yaml").display()
        )
    );
    assert_eq!(stdout_of(&out), "");
    assert_eq!(bed.tree(), before, "nothing written");
    assert!(bed.calls("kubectl").is_empty(), "no kubectl run");
}
