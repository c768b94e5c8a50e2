//! `gate drain NODE` through the real kubectl against the replay server (SPEC §17): GO for
//! a worker nothing holds, NO-GO for the node of CNPG's primary (its budget allows 0
//! disruptions), CANNOT TELL (never GO) when the PDB read is forbidden, a NODE the cluster
//! does not have is a usage error, `-o json` is a valid `Gate` document, and the server saw
//! nothing but GET.

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

/// The text without the target line's endpoint (a loopback port that changes per run).
pub fn stable(out: &Outcome) -> String {
    let mut lines = out.stdout.lines();
    let first = lines.next().unwrap_or_default();
    let first = match first.split_once(" on http://127.0.0.1:") {
        Some((head, tail)) => {
            let rest = tail.split_once(' ').map(|(_, r)| r).unwrap_or_default();
            format!("{head} on SERVER {rest}")
        }
        None => first.to_string(),
    };
    // The CephCluster's `lastChecked` is written 45 s before the server starts: its age
    // in whole seconds depends on when the gate ran.
    let age = |l: &str| match l.split_once(", checked ") {
        Some((head, tail)) if tail.ends_with("s ago") => format!("{head}, checked Ns ago"),
        _ => l.to_string(),
    };
    std::iter::once(first)
        .chain(lines.map(age))
        .map(|l| l + "\n")
        .collect()
}

pub const GO_DIRQUAL4: &str = r#"gate drain dirqual4 on SERVER (context replay, rule: topology)
GO
skipped:
  drain-time-sync  not read: --no-ssh
holds:
  drain-pdb-blocks  4 budgets: the eviction API lets every pod of dirqual4 go
  drain-ceph-health  CephCluster rook-ceph/rook-ceph: HEALTH_OK, checked Ns ago
  drain-mon-majority  without dirqual4: 3 of 3 mons Ready on 3 distinct nodes (…
  drain-osd-hosts  without dirqual4's 1 OSD(s): 3 hosts left, CephBlockPool roo…
  drain-control-plane  dirqual4 is not a control-plane node
  drain-single-control-plane  dirqual4 is not a control-plane node
  drain-etcd-majority  no etcd member runs on dirqual4 (1 mirror pods)
  drain-node-bound-volumes  no pod on dirqual4 has a node-bound volume
  drain-unmanaged-pods  every pod's controller exists
  drain-emptydir  no evicted pod keeps data in an emptyDir
  drain-capacity  needs 1 CPU, 2.0 GiB; 2 nodes have 61 CPU, 245.3 GiB free
"#;

pub const NO_GO_DIRQUAL3: &str = r#"gate drain dirqual3 on SERVER (context replay, rule: topology)
NO-GO: 1 blocker
blockers:
  drain-pdb-blocks  PodDisruptionBudget dataops/pg-primary
      CloudNativePG's primary budget: the primary of cluster pg runs here;
      disruptionsAllowed 0 (currentHealthy 1, desiredHealthy 1, expectedPods 1);
      selects pg-1 on dirqual3
      clears: switch over first: `kubectl cnpg promote pg pg-2 -n dataops`
      (Ready replicas: pg-2, pg-3)
skipped:
  drain-time-sync  not read: --no-ssh
holds:
  drain-ceph-health  CephCluster rook-ceph/rook-ceph: HEALTH_OK, checked Ns ago
  drain-mon-majority  without dirqual3: 2 of 3 mons Ready on 2 distinct nodes (…
  drain-osd-hosts  without dirqual3's 1 OSD(s): 3 hosts left, CephBlockPool roo…
  drain-control-plane  dirqual3 is not a control-plane node
  drain-single-control-plane  dirqual3 is not a control-plane node
  drain-etcd-majority  no etcd member runs on dirqual3 (1 mirror pods)
  drain-node-bound-volumes  no pod on dirqual3 has a node-bound volume
  drain-unmanaged-pods  every pod's controller exists
  drain-emptydir  no evicted pod keeps data in an emptyDir
  drain-capacity  needs 1.5 CPU, 3.0 GiB; 2 nodes have 61.5 CPU, 246.3 GiB free
"#;

#[test]
fn gate_drain_go_for_a_worker_nothing_holds() {
    let (bed, r) = bed_or_skip!(gate(&[], &["drain", "dirqual4", "--no-ssh"], 0));
    assert_eq!(stable(&r), GO_DIRQUAL4, "{r:?}");
    assert_read_only(&bed.server);
}

#[test]
fn gate_drain_no_go_for_the_cnpg_primarys_node() {
    let (bed, r) = bed_or_skip!(gate(&[], &["drain", "dirqual3", "--no-ssh"], 2));
    assert_eq!(stable(&r), NO_GO_DIRQUAL3, "{r:?}");
    assert_read_only(&bed.server);
}

#[test]
fn gate_drain_forbidden_pdbs_cannot_tell_never_go() {
    let (bed, r) = bed_or_skip!(gate(
        &["GET /apis/policy/v1/poddisruptionbudgets=403"],
        &["drain", "dirqual4", "--no-ssh", "-o", "json"],
        5
    ));
    assert_cannot_tell(&bed, &r.json(), &["drain-pdb-blocks"]);
}

/// A host blocker nestor cannot read (this bed's stack has no Ansible inventory, so no node
/// can be reached) is undecided, never skipped: only the operator's `--no-ssh` skips it, and
/// says so (`gate_hosts.rs` reads it through real sshd servers).
#[test]
fn gate_drain_with_its_time_sync_unread_cannot_tell_never_go() {
    let (bed, r) = bed_or_skip!(gate(&[], &["drain", "dirqual4", "-o", "json"], 5));
    assert_cannot_tell(&bed, &r.json(), &["drain-time-sync"]);
}

#[test]
fn gate_drain_json_is_a_gate_document() {
    let (_bed, r) = bed_or_skip!(gate(&[], &["drain", "dirqual3", "-o", "json"], 2));
    // `json()` validates the document against `schema Gate`.
    let v = r.json();
    assert_eq!(v["kind"], "Gate");
    assert_eq!(v["subject"]["node"], "dirqual3");
    assert_eq!(v["verdict"]["result"], "NO-GO", "{v}");
    assert_eq!(v["verdict"]["exitCode"], 2, "{v}");
}

#[test]
fn gate_drain_unknown_node_is_a_usage_error() {
    let (bed, r) = bed_or_skip!(gate(&[], &["drain", "dirqual9"], 1));
    assert_eq!(r.stdout, "", "{r:?}");
    let url = bed.server.url();
    r.stderr_eq(&format!(
        "kubectl-nestor: error: the cluster at {url} has no node `dirqual9`\n\
         hint: its nodes are: dirqual1, dirqual2, dirqual3, dirqual4 (`kubectl nestor target` lists them)\n"
    ));
    let j = bed.run(&["gate", "drain", "dirqual9", "--no-input", "-o", "json"]);
    j.code(1);
    let v = j.json();
    assert_eq!(v["kind"], "Error", "{v}");
    // A name that is not a DNS-1123 subdomain never reaches a path: nothing is read.
    let before = bed.server.audit().len();
    let bad = bed.run(&["gate", "drain", "a&fieldSelector=x", "--no-input"]);
    bad.code(1);
    assert_eq!(bed.server.audit().len(), before, "{bad:?}");
    assert_read_only(&bed.server);
}

/// Every request the gate sent is a GET, and it read pods only by a selector.
#[test]
fn gate_drain_sends_only_get_and_pods_only_by_selector() {
    let bed = bed_or_skip!(E2e::new("dirqual-gates", &[]));
    bed.run(&["gate", "drain", "dirqual2", "--no-input"]);
    let audit = bed.server.audit();
    assert!(!audit.is_empty());
    assert!(audit.iter().all(|e| e.method == "GET"), "{audit:?}");
    for e in &audit {
        assert!(!e.path.contains("secrets"), "{e:?}");
        if e.path.ends_with("/pods") {
            assert!(
                e.query.contains("fieldSelector=") || e.query.contains("labelSelector="),
                "{e:?}"
            );
        }
    }
    assert_read_only(&bed.server);
}

/// The "Before you touch it" outputs, of the README and of docs/gates.md, are the ones these
/// tests assert, not hand-written: the README's one `text` block is the command and then
/// exactly [`NO_GO_DIRQUAL3`]; docs/gates.md's are the command and then exactly
/// `gate_hosts`' `GO_DIRQUAL4_OVER_SSH` (through real sshd servers), [`GO_DIRQUAL4`],
/// [`NO_GO_DIRQUAL3`] and `gate_upgrade`'s `NEXT_MINOR` and `SKIPS_A_MINOR`.
#[test]
fn readme_shows_the_recorded_go_and_no_go() {
    let blocks = |file: &str| -> Vec<String> {
        let section = crate::common_readme::section(file, "## Before you touch it");
        crate::common_readme::fenced(&section, "text")
            .iter()
            .map(|b| b.iter().map(|l| format!("{l}\n")).collect())
            .collect()
    };
    let no_go = format!("$ kubectl nestor gate drain dirqual3 --no-ssh\n{NO_GO_DIRQUAL3}");
    assert_eq!(blocks("README.md"), std::slice::from_ref(&no_go));
    assert_eq!(
        blocks("docs/gates.md"),
        [
            format!(
                "$ kubectl nestor gate drain dirqual4\n{}",
                crate::gate_hosts::GO_DIRQUAL4_OVER_SSH
            ),
            format!("$ kubectl nestor gate drain dirqual4 --no-ssh\n{GO_DIRQUAL4}"),
            no_go,
            format!(
                "$ kubectl nestor gate upgrade kubernetes 1.32 --no-ssh\n{}",
                crate::gate_upgrade::NEXT_MINOR
            ),
            format!(
                "$ kubectl nestor gate upgrade kubernetes v1.33.2 --no-ssh\n{}",
                crate::gate_upgrade::SKIPS_A_MINOR
            ),
        ]
    );
}

/// The README's way to try the gates without a cluster (issue 51 item 3), its line run as
/// written through `sh` from the repo root with the real kubectl on PATH:
/// `scripts/try-gate.sh` serves `dirqual-gates` on loopback, points a throwaway kubeconfig and
/// stack at it, and prints exactly the README's recorded verdict ([`NO_GO_DIRQUAL3`]); the
/// server is stopped and its temp directory removed on exit.
#[test]
fn readme_try_gate_line_prints_the_recorded_verdict() {
    let kubectl = bed_or_skip!(real_kubectl());
    let section = crate::common_readme::section("README.md", "## Before you touch it");
    let lines: Vec<&str> = section
        .split('`')
        .filter(|s| s.starts_with("bash scripts/try-gate.sh"))
        .collect();
    assert_eq!(lines, ["bash scripts/try-gate.sh"], "{section}");
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = kubectl.parent().expect("kubectl's directory");
    let path = std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let mut c = Run::new("/bin/sh");
    c.args(["-c", lines[0]])
        .current_dir(crate::common_readme::ROOT)
        .env("PATH", path)
        .env("TMPDIR", tmp.path())
        .timeout(std::time::Duration::from_secs(600));
    let r = run(&c);
    r.code(0);
    let out = &r.stdout;
    let (head, rest) = out
        .split_once("$ kubectl nestor gate drain dirqual3 --no-ssh\n")
        .unwrap_or_else(|| panic!("{r:?}"));
    let verdict = rest
        .strip_suffix("exit 2: NO-GO\n")
        .unwrap_or_else(|| panic!("{r:?}"));
    let port = head
        .split_once("on http://127.0.0.1:")
        .and_then(|(_, t)| t.split(';').next())
        .unwrap_or_else(|| panic!("{r:?}"));
    let stable: String = verdict
        .lines()
        .map(|l| {
            let l = l.replace(&format!("http://127.0.0.1:{port}"), "SERVER");
            match l.split_once(", checked ") {
                Some((h, t)) if t.ends_with("s ago") => format!("{h}, checked Ns ago\n"),
                _ => format!("{l}\n"),
            }
        })
        .collect();
    assert_eq!(stable, NO_GO_DIRQUAL3);
    // Stopped on exit: no process runs with its temp directory (its `--port-file` there),
    // nothing is left in TMPDIR.
    let ours = tmp.path().display().to_string();
    for p in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        assert!(!cmdline.contains(&ours), "still running: {cmdline}");
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("ls")
        .flatten()
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// `--no-ssh` names the host rule it skipped; `-o yaml` is the same Gate document; `-o
/// junit` fails the suite on the CNPG primary's budget, one testcase per drain rule.
#[test]
fn gate_drain_no_ssh_yaml_and_junit() {
    let (bed, r) = bed_or_skip!(gate(&[], &["drain", "dirqual4", "--no-ssh"], 0));
    // The whole verdict, `skipped:` drain-time-sync "not read: --no-ssh" included.
    text_snap(
        &stable(&r),
        str![[r#"
gate drain dirqual4 on SERVER (context replay, rule: topology)
GO
skipped:
  drain-time-sync  not read: --no-ssh
holds:
  drain-pdb-blocks  4 budgets: the eviction API lets every pod of dirqual4 go
  drain-ceph-health  CephCluster rook-ceph/rook-ceph: HEALTH_OK, checked Ns ago
  drain-mon-majority  without dirqual4: 3 of 3 mons Ready on 3 distinct nodes (…
  drain-osd-hosts  without dirqual4's 1 OSD(s): 3 hosts left, CephBlockPool roo…
  drain-control-plane  dirqual4 is not a control-plane node
  drain-single-control-plane  dirqual4 is not a control-plane node
  drain-etcd-majority  no etcd member runs on dirqual4 (1 mirror pods)
  drain-node-bound-volumes  no pod on dirqual4 has a node-bound volume
  drain-unmanaged-pods  every pod's controller exists
  drain-emptydir  no evicted pod keeps data in an emptyDir
  drain-capacity  needs 1 CPU, 2.0 GiB; 2 nodes have 61 CPU, 245.3 GiB free

"#]],
    );
    let y = bed.run(&["gate", "drain", "dirqual3", "--no-input", "-o", "yaml"]);
    y.code(2);
    let v: serde_json::Value = yaml_serde::from_str(&y.stdout).expect("yaml");
    crate::doc_schema::check(&v);
    assert_eq!(v["kind"], "Gate", "{v}");
    assert_eq!(v["verdict"]["blockers"], 1, "{v}");
    let j = bed.run(&["gate", "drain", "dirqual3", "--no-input", "-o", "junit"]);
    j.code(2);
    assert_eq!(j.stdout.matches("<testcase ").count(), 12, "{}", j.stdout);
    assert_eq!(j.stdout.matches("<failure ").count(), 1, "{}", j.stdout);
    // The whole suite (its timestamp as NOW): the one failure names pg-primary's budget.
    j.stdout_snap(str![[r#"
<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="kubectl-nestor" tests="12" failures="1" errors="0" skipped="1">
  <testsuite name="gate drain dirqual3" tests="12" failures="1" errors="0" skipped="1" timestamp="NOW">
    <testcase name="drain-pdb-blocks" classname="nestor.gate.drain">
      <failure type="blocker" message="the eviction API lets every pod of NODE go (one budget each, allowing a disruption)">PodDisruptionBudget dataops/pg-primary: CloudNativePG&apos;s primary budget: the primary of cluster pg runs here; disruptionsAllowed 0 (currentHealthy 1, desiredHealthy 1, expectedPods 1); selects pg-1 on dirqual3 (clears: switch over first: `kubectl cnpg promote pg pg-2 -n dataops` (Ready replicas: pg-2, pg-3))</failure>
    </testcase>
    <testcase name="drain-ceph-health" classname="nestor.gate.drain"/>
    <testcase name="drain-mon-majority" classname="nestor.gate.drain"/>
    <testcase name="drain-osd-hosts" classname="nestor.gate.drain"/>
    <testcase name="drain-control-plane" classname="nestor.gate.drain"/>
    <testcase name="drain-single-control-plane" classname="nestor.gate.drain"/>
    <testcase name="drain-etcd-majority" classname="nestor.gate.drain"/>
    <testcase name="drain-node-bound-volumes" classname="nestor.gate.drain"/>
    <testcase name="drain-unmanaged-pods" classname="nestor.gate.drain"/>
    <testcase name="drain-emptydir" classname="nestor.gate.drain"/>
    <testcase name="drain-capacity" classname="nestor.gate.drain"/>
    <testcase name="drain-time-sync" classname="nestor.gate.drain">
      <skipped message="unknown: host-time-sync not read: no Ansible inventory at /t/repo/bootstrap/hosts.yaml (set `inventory:` in /t/repo/stacks/dirqual.yaml, or say --no-ssh)"/>
    </testcase>
  </testsuite>
</testsuites>

"#]]);
    assert_read_only(&bed.server);
}

/// The target policy and reachability are preview's: a prod stack whose declared endpoint is
/// not the kubeconfig's server is refused before anything is read (exit 3); credentials
/// refused on the nodes read are exit 4, never a verdict.
#[test]
fn gate_drain_wrong_target_is_3_and_unreachable_is_4() {
    let bed = bed_or_skip!(E2e::new("dirqual-gates", &[]));
    bed.write_stack("dirqual", &dirqual_topology("https://10.67.2.11:6443"));
    let r = bed.run(&["gate", "drain", "dirqual4", "--no-input"]);
    r.code(3);
    assert_eq!(r.stdout, "", "{r:?}");
    r.stderr_snap(str![[r#"
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is http://127.0.0.1:PORT, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)

"#]]);
    assert!(bed.server.audit().is_empty(), "{:?}", bed.server.audit());

    let (bed, r) = bed_or_skip!(gate(&["GET /api/v1/nodes=401"], &["drain", "dirqual4"], 4));
    assert_eq!(r.stdout, "", "{r:?}");
    r.stderr_snap(str![[r#"
kubectl-nestor: error: cluster http://127.0.0.1:PORT unreachable (credentials refused): error: You must be logged in to the server (Unauthorized)
hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid

"#]]);
    assert_read_only(&bed.server);
}
