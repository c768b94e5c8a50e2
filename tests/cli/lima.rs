//! Issue 32: `limactl list --json` as each Lima release prints it, through the real lima path
//! (the limactl stub prints the release's fixture, with Lima's own stderr warning). The
//! fixtures under `tests/fixtures/limactl/lima-VERSION.ndjson` follow Lima's source: 0.2x has
//! no `hostname`, 1.x adds it, 2.x drops `cpuType`; Go encodes `errors` by value (`{}`, or
//! `{"Op","Path","Err"}`), and 2.x deletes the empty objects (`[]`). Each holds node1
//! Running, node2 Stopped, node3 Broken (ha.pid unreadable) and an unrelated Broken
//! `default`, which must never matter.

use crate::support::*;

fn fixture(version: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/limactl/lima-{version}.ndjson",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A bench whose limactl prints `ndjson` on stdout and Lima's warnings on stderr, as
/// `limactl list` does for an instance with errors.
fn bench(ndjson: &str) -> Bed {
    let bed = Bed::new();
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("bench");
    let file = bed.tmp.path().join("limactl-list.ndjson");
    std::fs::write(&file, ndjson).expect("write");
    bed.stub(
        "limactl",
        &format!(
            "echo 'time=\"2026-12-01T21:00:00Z\" level=warning msg=\"instance \\\"default\\\" has errors\" errors=\"[host agent is running but driver is not]\"' >&2\ncat '{}'",
            file.display()
        ),
    );
    bed
}

/// The lines of a preview that speak of VMs, with the alignment's runs of spaces as one: the
/// outcome's VM counts, the VM rows of the plan and the VMs row of REAL.
fn vm_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let flat = l.split_whitespace().collect::<Vec<_>>().join(" ");
            if let Some(rest) = flat.strip_prefix("PLAN: ") {
                let vms: Vec<&str> = rest.split(", ").filter(|c| c.contains(" VM")).collect();
                return Some(format!("PLAN: {}", vms.join(", ")));
            }
            let vm_row = ["start VMs ", "create VMs ", "look at ", "VMs "]
                .iter()
                .any(|p| flat.starts_with(p));
            vm_row.then_some(flat)
        })
        .collect()
}

const NODE3: &str = "open /Users/ops/.lima/node3/ha.pid: permission denied";

#[test]
fn each_lima_release_is_read_and_an_unrelated_broken_vm_never_matters() {
    // Each release's whole text: the unrelated `default` instance is not a word of it.
    let table = crate::harness::Table::new();
    for version in ["0.23.2", "1.0.6", "1.2.2", "2.0.3", "2.0.3-strings"] {
        let bed = bench(&fixture(version));
        let out = bed
            .cmd()
            .args(["preview", "--no-color"])
            .env("COLUMNS", "200")
            .run();
        out.code(0);
        let text = stdout_of(&out);
        assert_eq!(
            vm_lines(&text),
            [
                "PLAN: 1 VM to start, 1 VM to look at".to_string(),
                "start VMs node2".to_string(),
                "look at node3 broken: look at `limactl list`; never recreated over".to_string(),
                format!("VMs node1 Running, node2 Stopped, node3 Broken ({NODE3})"),
            ],
            "Lima {version}:\n{text}"
        );
        table.add(&format!("Lima {version}"), &out);

        let out = bed.cmd().args(["preview", "-o", "json"]).run();
        out.code(0);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout_bytes).expect("json");
        crate::doc_schema::check(&v);
        assert_eq!(
            v["real"]["vms"],
            serde_json::json!([
                {"name": "node1", "status": "Running"},
                {"name": "node2", "status": "Stopped"},
                {"name": "node3", "status": "Broken", "errors": [NODE3]},
            ]),
            "Lima {version}"
        );
        assert_eq!(v["plan"]["vmsToStart"], serde_json::json!(["node2"]));
        assert_eq!(v["plan"]["vmsBroken"], serde_json::json!(["node3"]));
        assert_eq!(v["plan"]["vmsToCreate"], serde_json::json!([]));
    }
    table.table_snap(snapbox::str![[r#"
== Lima 0.23.2: exit 0
--- stdout
stack  bench (lima)

PLAN: 1 VM to start, 1 VM to look at, 2 to install
  start VMs      node2
  look at node3  broken: look at `limactl list`; never recreated over
  install k8s    ansible-playbook bootstrap/k8s.yaml
  install cni    ansible-playbook platform/cilium.yaml

REAL (read live, not stored)
  VMs            node1 Running, node2 Stopped, node3 Broken (open /Users/ops/.lima/node3/ha.pid: permission denied)
  nodes          not read: no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  k8s    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  cni    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
== Lima 1.0.6: exit 0
--- stdout
stack  bench (lima)

PLAN: 1 VM to start, 1 VM to look at, 2 to install
  start VMs      node2
  look at node3  broken: look at `limactl list`; never recreated over
  install k8s    ansible-playbook bootstrap/k8s.yaml
  install cni    ansible-playbook platform/cilium.yaml

REAL (read live, not stored)
  VMs            node1 Running, node2 Stopped, node3 Broken (open /Users/ops/.lima/node3/ha.pid: permission denied)
  nodes          not read: no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  k8s    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  cni    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
== Lima 1.2.2: exit 0
--- stdout
stack  bench (lima)

PLAN: 1 VM to start, 1 VM to look at, 2 to install
  start VMs      node2
  look at node3  broken: look at `limactl list`; never recreated over
  install k8s    ansible-playbook bootstrap/k8s.yaml
  install cni    ansible-playbook platform/cilium.yaml

REAL (read live, not stored)
  VMs            node1 Running, node2 Stopped, node3 Broken (open /Users/ops/.lima/node3/ha.pid: permission denied)
  nodes          not read: no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  k8s    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  cni    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
== Lima 2.0.3: exit 0
--- stdout
stack  bench (lima)

PLAN: 1 VM to start, 1 VM to look at, 2 to install
  start VMs      node2
  look at node3  broken: look at `limactl list`; never recreated over
  install k8s    ansible-playbook bootstrap/k8s.yaml
  install cni    ansible-playbook platform/cilium.yaml

REAL (read live, not stored)
  VMs            node1 Running, node2 Stopped, node3 Broken (open /Users/ops/.lima/node3/ha.pid: permission denied)
  nodes          not read: no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  k8s    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  cni    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
== Lima 2.0.3-strings: exit 0
--- stdout
stack  bench (lima)

PLAN: 1 VM to start, 1 VM to look at, 2 to install
  start VMs      node2
  look at node3  broken: look at `limactl list`; never recreated over
  install k8s    ansible-playbook bootstrap/k8s.yaml
  install cni    ansible-playbook platform/cilium.yaml

REAL (read live, not stored)
  VMs            node1 Running, node2 Stopped, node3 Broken (open /Users/ops/.lima/node3/ha.pid: permission denied)
  nodes          not read: no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  k8s    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  cni    absent  not found
    ✗ no bench kubeconfig at /t/repo/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init

"#]]);
}

/// A stack instance Broken with only plain errors (`{}` in 1.x, deleted in 2.x): no text in
/// the JSON, so the row says where Lima prints it.
#[test]
fn a_broken_stack_vm_without_text_says_where_lima_prints_it() {
    for (version, from, to) in [
        ("1.0.6", "\"name\":\"default\"", "\"name\":\"node1\""),
        ("2.0.3", "\"name\":\"default\"", "\"name\":\"node1\""),
    ] {
        let listing: String = fixture(version)
            .lines()
            .filter(|l| !l.contains("\"name\":\"node1\""))
            .map(|l| format!("{}\n", l.replace(from, to)))
            .collect();
        let bed = bench(&listing);
        let out = bed
            .cmd()
            .args(["preview", "--no-color"])
            .env("COLUMNS", "200")
            .run();
        out.code(0);
        let text = stdout_of(&out);
        assert_eq!(
            vm_lines(&text)[3],
            format!("VMs node1 Broken (no reason in its JSON: `limactl list node1` prints it), node2 Stopped, node3 Broken ({NODE3})"),
            "Lima {version}:\n{text}"
        );
    }
}
