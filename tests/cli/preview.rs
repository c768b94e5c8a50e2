//! `preview`: the SPEC §1 incident as a regression test, the four layer states, target
//! confirmation, lima VMs, timeouts, JSON and snapshots.

use std::fs;
use std::time::{Duration, Instant};

use serde_json::Value;

use snapbox::str;

use crate::harness::{at_once, text_snap};

use crate::support::*;

const ENDPOINT: &str = "https://10.67.2.11:6443";

fn json_of(out: &Outcome) -> Value {
    let v = serde_json::from_slice(&out.stdout_bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", stdout_of(out)));
    crate::doc_schema::check(&v);
    v
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s["id"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn layer_state(v: &Value, id: &str) -> String {
    v["real"]["layers"]
        .as_array()
        .and_then(|a| a.iter().find(|l| l["id"] == id))
        .and_then(|l| l["state"].as_str())
        .unwrap_or("?")
        .to_string()
}

/// SPEC §1: a healthy 4-node prod cluster must never be planned as "create VMs, install
/// everything". Only the two layers really missing are to install.
#[test]
fn regression_incident_dirqual_plans_only_what_is_missing() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "--no-color"])
        .run();
    out.code(0);
    let text = stdout_of(&out);
    // (Line-wise: the temp dir's random name may hold "VM", as in /tmp/.tmpVMOhMZ.)
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("VM")),
        "prod has no VM section:\n{text}"
    );
    out.stdout_snap(str![[r#"
stack       dirqual (prod)
target      https://10.67.2.11:6443 (context kubernetes-admin@dirqual)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml

REAL (read live, not stored)
  nodes                dirqual1..4, 4/4 Ready
  k8s         present  5 checks hold
  cni         present  5 checks hold
  ceph        present  9 checks hold
  storage     present  3 checks hold
  monitoring  present  6 checks hold
  gitops      present  9 checks hold
  registry    present  2 checks hold
  dataops     present  7 checks hold
  datalake    absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs       absent   not found
    ✗ API group cert-manager.io not served

"#]]);
    // Each healthy layer `present`: the snapshot above holds the whole text.

    let out = bed
        .cmd()
        .args(["preview", "--no-input", "-o", "json"])
        .run();
    let v = json_of(&out);
    assert_eq!(ids(&v["plan"]["install"]), ["datalake", "certs"]);
    assert_eq!(ids(&v["plan"]["repair"]), Vec::<String>::new());
    assert_eq!(ids(&v["plan"]["undecided"]), Vec::<String>::new());
    assert!(
        v["real"].get("vms").is_none(),
        "prod must have no VM section at all: {}",
        v["real"]
    );
    assert_eq!(v["real"]["nodes"]["ready"], 4);
    assert_eq!(v["real"]["nodes"]["declared"], 4);
    assert_eq!(v["plan"]["vmsToCreate"], serde_json::json!([]));

    let out = bed
        .cmd()
        .args(["preview", "--no-input", "--detailed-exitcode"])
        .run();
    out.code(2);
    assert!(bed
        .calls("kubectl")
        .iter()
        .all(|c| c.iter().any(|a| a.starts_with("--kubeconfig="))));
}

#[test]
fn everything_present_is_exit_0_with_detailed_exitcode() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual_full());
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "--detailed-exitcode", "--no-color"])
        .run();
    out.code(0);
    out.stdout_has("PLAN: nothing to do");
}

/// `--detailed-exitcode` tells the three outcomes apart: 0 nothing to do and everything
/// decided, 2 work to do (the undecided ones listed too), 5 nothing to do but something
/// nestor could not tell. A harness must never read 5 as "nothing to do".
#[test]
fn detailed_exitcode_is_5_when_only_undecided_and_2_wins_over_5() {
    let forbidden = Answer::Status(403);
    let only_undecided =
        Cluster::dirqual_full().with("cephclusters.ceph.rook.io", forbidden.clone());
    let bed = Bed::dirqual(ENDPOINT, &only_undecided);
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "-o", "json", "--detailed-exitcode"])
        .run();
    out.code(5);
    let v = json_of(&out);
    assert_eq!(ids(&v["plan"]["undecided"]), ["ceph"]);
    assert_eq!(ids(&v["plan"]["install"]), Vec::<String>::new());
    assert_eq!(ids(&v["plan"]["repair"]), Vec::<String>::new());
    assert_eq!(v["plan"]["empty"], false);
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "--no-color", "--detailed-exitcode"])
        .run();
    out.code(5);
    out.stdout_has("PLAN: 1 undecided\n");
    // Without --detailed-exitcode the same plan is a success.
    let out = bed.cmd().args(["preview", "--no-input"]).run();
    out.code(0);

    let work_and_undecided = Cluster::dirqual().with("cephclusters.ceph.rook.io", forbidden);
    let bed = Bed::dirqual(ENDPOINT, &work_and_undecided);
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "-o", "json", "--detailed-exitcode"])
        .run();
    out.code(2);
    let v = json_of(&out);
    assert_eq!(ids(&v["plan"]["install"]), ["datalake", "certs"]);
    assert_eq!(
        ids(&v["plan"]["undecided"]),
        ["ceph"],
        "listed with the work"
    );
}

#[test]
fn ceph_health_warn_is_repair_never_install() {
    let cluster = Cluster::dirqual().with(
        "cephclusters.ceph.rook.io",
        Cluster::replay_read("degraded", "cephclusters.ceph.rook.io"),
    );
    let bed = Bed::dirqual(ENDPOINT, &cluster);
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "-o", "json"])
        .run();
    let v = json_of(&out);
    assert_eq!(layer_state(&v, "ceph"), "degraded");
    assert_eq!(ids(&v["plan"]["repair"]), ["ceph"]);
    assert_eq!(ids(&v["plan"]["install"]), ["datalake", "certs"]);
    let text = stdout_of(
        &bed.cmd()
            .args(["preview", "--no-input", "--no-color"])
            .run(),
    );
    text_snap(
        &bed.redact(&text),
        str![[r#"
stack       dirqual (prod)
target      https://10.67.2.11:6443 (context kubernetes-admin@dirqual)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair ceph       repair in place; never reinstall over an existing layer
    ceph: ceph/health fails

REAL (read live, not stored)
  nodes                 dirqual1..4, 4/4 Ready
  k8s         present   5 checks hold
  cni         present   5 checks hold
  ceph        degraded  1 of 9 checks fails
    ✗ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_WARN:
      OSD_DOWN (1 osds down), OSD_HOST_DOWN (1 host (1 osds) down), PG_DEGRADED
      (Degraded data redundancy: 2461/7383 objects degraded (33.333%), 97 pgs
      degraded, 97 pgs undersized) not on the benign list
      (RECENT_MGR_MODULE_CRASH)
  storage     present   3 checks hold
  monitoring  present   6 checks hold
  gitops      present   9 checks hold
  registry    present   2 checks hold
  dataops     present   7 checks hold
  datalake    absent    not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs       absent    not found
    ✗ API group cert-manager.io not served

"#]],
    );
}

#[test]
fn forbidden_cephclusters_is_unknown_never_install() {
    let cluster = Cluster::dirqual().with("cephclusters.ceph.rook.io", Answer::Status(403));
    let bed = Bed::dirqual(ENDPOINT, &cluster);
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "-o", "json", "--detailed-exitcode"])
        .run();
    out.code(2);
    let v = json_of(&out);
    assert_eq!(layer_state(&v, "ceph"), "unknown");
    assert_eq!(ids(&v["plan"]["undecided"]), ["ceph"]);
    // The whole install list: ceph not in it.
    assert_eq!(ids(&v["plan"]["install"]), ["datalake", "certs"]);
}

#[test]
fn a_hanging_read_is_bounded_and_unknown() {
    let cluster = Cluster::dirqual().with("clusters.postgresql.cnpg.io", Answer::Hang);
    let bed = Bed::dirqual(ENDPOINT, &cluster);
    let started = Instant::now();
    let out = bed
        .cmd()
        .args([
            "preview",
            "--no-input",
            "-o",
            "json",
            "--request-timeout",
            "1s",
        ])
        .run();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(6), "took {took:?}");
    out.code(0);
    let v = json_of(&out);
    assert_eq!(layer_state(&v, "dataops"), "unknown");
    // The whole install list: dataops not in it (unknown is never absent).
    assert_eq!(ids(&v["plan"]["install"]), ["datalake", "certs"]);
}

#[test]
fn a_hanging_cluster_is_exit_4_within_the_timeout() {
    // The API server holds every request; then a kubectl whose proxy never serves.
    let hanging = Bed::dirqual(ENDPOINT, &Cluster::empty().fault("/=hang:60"));
    let silent = Bed::dirqual(ENDPOINT, &Cluster::empty());
    silent.stub("kubectl", "sleep 60 & wait");
    // The two at once: each waits out its timeout.
    let times_out = |bed: &Bed| {
        let started = Instant::now();
        let out = bed
            .cmd()
            .args(["preview", "--no-input", "--request-timeout", "1s"])
            .run();
        assert!(
            started.elapsed() < Duration::from_secs(6),
            "took {:?}",
            started.elapsed()
        );
        out.code(4);
        out.stderr_has("unreachable");
        assert_eq!(stdout_of(&out), "");
    };
    at_once(|| times_out(&hanging), || times_out(&silent));
}

#[test]
fn connection_refused_is_exit_4_and_prints_no_plan() {
    // What kubectl proxy answers when the API server refuses its connection.
    let bed = Bed::dirqual(
        ENDPOINT,
        &Cluster::empty()
            .fault("/=proxy-error:dial tcp 10.67.2.11:6443: connect: connection refused"),
    );
    let out = bed.stable(bed.cmd().args(["preview", "--no-input"]).run());
    // An unreachable cluster must not print a plan.
    out.code(4).no_stdout().stderr_has_hint().stderr_eq(
        "kubectl-nestor: error: cluster https://10.67.2.11:6443 unreachable: Unable to connect to the server: dial tcp 10.67.2.11:6443: connect: connection refused | The connection to the server 10.67.2.11:6443 was refused - did you specify the right host or port?\n\
         hint: check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid\n",
    );
}

// ---- target confirmation (SPEC §5) ----------------------------------------------------------

#[test]
fn no_input_endpoint_mismatch_is_exit_3_with_both_urls() {
    let bed = Bed::dirqual("https://10.99.0.1:6443", &Cluster::dirqual());
    let out = bed.stable(bed.cmd().args(["preview", "--no-input"]).run());
    out.code(3).no_stdout().stderr_has_hint().stderr_eq(
        "kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it\n\
         hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)\n",
    );
    assert!(
        bed.calls("kubectl").is_empty(),
        "nothing may be read from the wrong cluster"
    );
}

#[test]
fn no_input_endpoint_match_is_normalised() {
    let bed = Bed::dirqual("HTTPS://10.67.2.11:6443/", &Cluster::dirqual());
    let out = bed.cmd().args(["preview", "--no-input"]).run();
    out.code(0);
}

#[test]
fn no_input_without_declared_endpoint_is_exit_3() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace("endpoint: https://10.67.2.11:6443\n", ""),
    );
    let out = bed.stable(bed.cmd().args(["preview"]).run()); // stdin is not a terminal
    out.code(3).no_stdout().stderr_has_hint().stderr_eq(
        "kubectl-nestor: error: stack dirqual declares no endpoint: cannot confirm target https://10.67.2.11:6443 from kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) without a prompt\n\
         hint: add `endpoint: https://10.67.2.11:6443` to /t/repo/stacks/dirqual.yaml if that is the stack's API server, or run interactively\n",
    );
}

/// Run `kubectl-nestor ARGS` under a pseudo-terminal with `answer` typed at the prompt.
fn under_tty(bed: &Bed, args: &str, answer: &str) -> (Option<i32>, String) {
    let cmd = format!("{} {args}", env!("CARGO_BIN_EXE_kubectl-nestor"));
    let out = bed
        .cmd_program("script")
        .args(["-qec", &cmd, "/dev/null"])
        .write_stdin(answer.to_string())
        .run();
    // The terminal's echo of the answer lands where the scheduler puts it: left out.
    let typed: Vec<String> = answer.lines().map(String::from).collect();
    (
        out.status.code(),
        crate::harness::without_echo(&stdout_of(&out), &typed),
    )
}

#[test]
fn interactive_no_is_exit_3_and_nothing_past_the_prompt() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let (code, screen) = under_tty(&bed, "preview --no-color", "n\n");
    assert_eq!(code, Some(3), "{screen}");
    // The target and its nodes, the question, then only the refusal: no REAL, no PLAN.
    text_snap(
        &bed.redact(&screen),
        str![[r#"
Target for stack dirqual (prod):
  endpoint    https://10.67.2.11:6443 (matches the topology)
  context     kubernetes-admin@dirqual
  kubeconfig  /t/home/.kube/dirqual.config (rule: topology)
  nodes       https://10.67.2.11:6443 — dirqual1..4, 4/4 Ready
Is this the stack dirqual? [y/N] kubectl-nestor: error: target https://10.67.2.11:6443 not confirmed for stack dirqual: nothing was done; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: https://10.67.2.11:6443 is the endpoint stack dirqual's topology declares: if it is not that stack's cluster, the topology itself is wrong (fix `kubeconfig:` and `endpoint:` in /t/repo/stacks/dirqual.yaml); if it is, run again and answer y

"#]],
    );
    // Only the nodes were read before the answer: one proxy, one GET (the server's audit).
    let commands: Vec<String> = bed
        .reads()
        .iter()
        .map(|c| {
            c.iter()
                .filter(|a| !a.starts_with("--"))
                .take(1)
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(commands, ["proxy"], "one proxy before the answer");
    assert_eq!(
        bed.requests(),
        ["GET /api/v1/nodes"],
        "only the nodes were read before the answer"
    );
}

#[test]
fn interactive_yes_prints_the_plan_and_reads_nodes_once() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let (code, screen) = under_tty(&bed, "preview --no-color", "y\n");
    assert_eq!(code, Some(0), "{screen}");
    text_snap(
        &bed.redact(&screen),
        str![[r#"
Target for stack dirqual (prod):
  endpoint    https://10.67.2.11:6443 (matches the topology)
  context     kubernetes-admin@dirqual
  kubeconfig  /t/home/.kube/dirqual.config (rule: topology)
  nodes       https://10.67.2.11:6443 — dirqual1..4, 4/4 Ready
Is this the stack dirqual? [y/N] stack       dirqual (prod)
target      https://10.67.2.11:6443 (context kubernetes-admin@dirqual)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml

REAL (read live, not stored)
  nodes                dirqual1..4, 4/4 Ready
  k8s         present  5 checks hold
  cni         present  5 checks hold
  ceph        present  9 checks hold
  storage     present  3 checks hold
  monitoring  present  6 checks hold
  gitops      present  9 checks hold
  registry    present  2 checks hold
  dataops     present  7 checks hold
  datalake    absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs       absent   not found
    ✗ API group cert-manager.io not served

"#]],
    );
    let node_reads = bed
        .requests()
        .iter()
        .filter(|r| r.as_str() == "GET /api/v1/nodes")
        .count();
    assert_eq!(node_reads, 1, "the nodes read for the prompt is reused");
}

// ---- lima ----------------------------------------------------------------------------------

const LIMA_NDJSON: &str = concat!(
    r#"{"name":"node1","hostname":"lima-node1","status":"Running","dir":"/Users/op/.lima/node1","vmType":"vz","arch":"aarch64","cpuType":"","cpus":4,"memory":8589934592,"disk":107374182400,"network":[{"lima":"user-v2"}],"sshLocalPort":60022,"sshConfigFile":"/Users/op/.lima/node1/ssh.config","hostAgentPID":4242,"driverPID":4242,"config":{},"sshAddress":"127.0.0.1","protected":false,"limaVersion":"1.0.3","HostOS":"darwin","HostArch":"aarch64","LimaHome":"/Users/op/.lima","IdentityFile":"/Users/op/.lima/_config/user"}"#,
    "\n",
    r#"{"name":"node2","hostname":"lima-node2","status":"Stopped","dir":"/Users/op/.lima/node2","vmType":"vz","arch":"aarch64","cpuType":"","cpus":4,"memory":8589934592,"disk":107374182400,"network":[{"lima":"user-v2"}],"sshLocalPort":0,"sshConfigFile":"/Users/op/.lima/node2/ssh.config","config":{},"sshAddress":"127.0.0.1","protected":false,"limaVersion":"1.0.3","HostOS":"darwin","HostArch":"aarch64","LimaHome":"/Users/op/.lima","IdentityFile":"/Users/op/.lima/_config/user"}"#,
    "\n",
    r#"{"name":"other","hostname":"lima-other","status":"Running","dir":"/Users/op/.lima/other","vmType":"qemu","arch":"aarch64","cpuType":"","cpus":2,"memory":4294967296,"disk":107374182400,"sshLocalPort":60023,"config":{},"sshAddress":"127.0.0.1","protected":false,"limaVersion":"1.0.3","HostOS":"darwin","HostArch":"aarch64","LimaHome":"/Users/op/.lima","IdentityFile":"/Users/op/.lima/_config/user"}"#,
    "\n"
);

/// A bench whose kubeconfig the harness has not written (SPEC §18): the cluster is not
/// bootstrapped yet, so `k8s` (and every layer on it) is absent for that reason, the VMs are
/// shown as usual, and nothing reads as a failed read (no "fix the failed read", no
/// "read of nodes failed: Skipped").
#[test]
fn lima_without_its_bench_kubeconfig_is_not_bootstrapped_yet() {
    let bed = Bed::new();
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("bench");
    bed.limactl_listing(LIMA_NDJSON);
    let repo = bed.repo.display().to_string();
    let out = bed
        .cmd()
        .args(["preview", "--no-color"])
        .env("COLUMNS", "200")
        .run()
        .redacted(&repo, "[REPO]");
    out.code(0).no_stderr().stdout_eq(
        "\
stack  bench (lima)

PLAN: 1 VM to create, 1 VM to start, 2 to install
  create VMs   node3
  start VMs    node2
  install k8s  ansible-playbook bootstrap/k8s.yaml
  install cni  ansible-playbook platform/cilium.yaml

REAL (read live, not stored)
  VMs            node1 Running, node2 Stopped, node3 missing
  nodes          not read: no bench kubeconfig at [REPO]/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  k8s    absent  not found
    ✗ no bench kubeconfig at [REPO]/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
  cni    absent  not found
    ✗ no bench kubeconfig at [REPO]/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init
",
    );
    assert!(bed.calls("kubectl").is_empty());
    assert_eq!(
        bed.calls("limactl"),
        vec![vec!["list".to_string(), "--json".to_string()]]
    );

    let v = json_of(&bed.cmd().args(["preview", "-o", "json"]).run());
    let why = format!(
        "no bench kubeconfig at {repo}/bench/lima/.work/kubeconfig: the harness writes it after kubeadm init"
    );
    assert_eq!(v["plan"]["vmsToStart"], serde_json::json!(["node2"]));
    assert_eq!(v["plan"]["vmsToCreate"], serde_json::json!(["node3"]));
    assert_eq!(v["plan"]["undecided"], serde_json::json!([]));
    assert_eq!(v["real"]["kubernetesSkipped"], serde_json::json!(why));
    for layer in ["k8s", "cni"] {
        assert_eq!(layer_state(&v, layer), "absent");
    }
    let k8s = v["real"]["layers"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["id"] == "k8s"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(k8s["evidence"], serde_json::json!([why]));
}

#[test]
fn lima_reads_the_bench_cluster_when_its_kubeconfig_exists() {
    let bed = Bed::new();
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("bench");
    bed.limactl_listing(LIMA_NDJSON);
    bed.kubeconfig(
        &bed.repo.join("bench/lima/.work/kubeconfig"),
        "https://127.0.0.1:6443",
    );
    bed.kubectl_cluster(&Cluster::dirqual());
    let out = bed.cmd().args(["preview", "-o", "json"]).run();
    out.code(0);
    let v = json_of(&out);
    assert_eq!(layer_state(&v, "cni"), "present");
    assert_eq!(v["target"]["confirmedBy"], "bench");
}

#[test]
fn failing_limactl_never_plans_vms() {
    let bed = Bed::new();
    bed.write_stack("bench", LIMA_BENCH);
    bed.select("bench");
    bed.stub(
        "limactl",
        "echo 'FATA[0000] open /Users/op/.lima: permission denied' >&2; exit 1",
    );
    let out = bed.cmd().args(["preview"]).run();
    out.code(1);
    assert_eq!(stdout_of(&out), "");
    out.stderr_has("permission denied");
}

// ---- snapshots -----------------------------------------------------------------------------

#[test]
fn discover_save_replays_through_preview_snapshot_without_kubectl() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let snap = bed.tmp.path().join("dirqual.snapshot.json");
    let out = bed
        .cmd()
        .args(["discover", "--save", snap.to_str().unwrap_or_default()])
        .run();
    out.code(0);
    let live = json_of(
        &bed.cmd()
            .args(["preview", "--no-input", "-o", "json"])
            .run(),
    );
    fs::remove_file(&bed.log).ok();
    bed.stub(
        "kubectl",
        "echo 'kubectl must not run during a replay' >&2; exit 1",
    );
    let out = bed
        .cmd()
        .args([
            "preview",
            "-o",
            "json",
            "--snapshot",
            snap.to_str().unwrap_or_default(),
        ])
        .run();
    out.code(0);
    let replayed = json_of(&out);
    assert_eq!(replayed["plan"], live["plan"]);
    assert_eq!(replayed["real"]["layers"], live["real"]["layers"]);
    assert_eq!(replayed["source"]["kind"], "snapshot");
    assert!(
        bed.calls("kubectl").is_empty(),
        "{:?}",
        bed.calls("kubectl")
    );
    let text = stdout_of(
        &bed.cmd()
            .args(["preview", "--snapshot", snap.to_str().unwrap_or_default()])
            .run(),
    );
    text_snap(
        &bed.redact(&text),
        str![[r#"
stack       dirqual (prod)
target      https://10.67.2.11:6443 (context kubernetes-admin@dirqual)
kubeconfig  /t/home/.kube/dirqual.config (rule: snapshot)

PLAN: 2 to install
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml

REAL (replayed from snapshot /t/dirqual.snapshot.json, taken
NOW; not live)
  nodes                dirqual1..4, 4/4 Ready
  k8s         present  5 checks hold
  cni         present  5 checks hold
  ceph        present  9 checks hold
  storage     present  3 checks hold
  monitoring  present  6 checks hold
  gitops      present  9 checks hold
  registry    present  2 checks hold
  dataops     present  7 checks hold
  datalake    absent   not found
    ✗ no CephObjectStore in rook-ceph
    ✗ no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  certs       absent   not found
    ✗ API group cert-manager.io not served

"#]],
    );
}

#[test]
fn a_snapshot_of_another_cluster_is_refused() {
    let bed = Bed::dirqual("https://10.99.0.1:6443", &Cluster::dirqual());
    let snap = bed.tmp.path().join("other.json");
    // `discover --kubeconfig` with no stack reads that file's cluster and names no stack (with
    // the dirqual stack active, the endpoint policy would refuse it: SPEC §5).
    fs::remove_file(bed.stacks.join("current.yaml")).expect("unselect");
    let out = bed
        .cmd()
        .args([
            "--kubeconfig",
            bed.home
                .join(".kube/dirqual.config")
                .to_str()
                .unwrap_or_default(),
            "discover",
            "--save",
            snap.to_str().unwrap_or_default(),
        ])
        .run();
    out.code(0);
    bed.select("dirqual");
    let out = bed
        .cmd()
        .args(["preview", "--snapshot", snap.to_str().unwrap_or_default()])
        .run();
    out.code(3);
    out.stderr_has("https://10.99.0.1:6443");
}

#[test]
fn a_broken_snapshot_is_exit_1() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let snap = bed.tmp.path().join("broken.json");
    fs::write(
        &snap,
        "{\"apiVersion\": \"nestor/v1\", \"kind\": \"Snapshot\"",
    )
    .expect("write");
    let out = bed
        .cmd()
        .args(["preview", "--snapshot", snap.to_str().unwrap_or_default()])
        .run();
    out.code(1);
    out.stderr_has("not a nestor snapshot");
    assert!(bed.calls("kubectl").is_empty());
}

#[test]
fn discover_emits_a_topology_that_nestor_accepts() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let out = bed.cmd().args(["discover", "--emit-topology"]).run();
    out.code(0);
    let yaml = stdout_of(&out);
    out.stdout_snap(str![[r#"
# Stack dirqual, written by `kubectl nestor discover --emit-topology` on NOW
# from https://10.67.2.11:6443 (context kubernetes-admin@dirqual). Review it: declare the layers this stack should have.
name: dirqual
target_kind: prod
kubeconfig: ~/.kube/dirqual.config
endpoint: https://10.67.2.11:6443
context: kubernetes-admin@dirqual
# no Ansible inventory found at /t/repo/bootstrap/hosts.yaml: nestor reads no host over ssh (host layers and host gate rules are skipped).
# To read them, set `inventory: PATH` to your Ansible YAML inventory (relative to the repo root).
inventory: none
nodes:
  - { name: dirqual1, role: control-plane }
  - { name: dirqual2, role: worker }
  - { name: dirqual3, role: worker }
  - { name: dirqual4, role: worker }
layers:
  - k8s
  - cni
  - ceph
  - storage
  # - datalake                absent: no CephObjectStore in rook-ceph; no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket
  # - gateway                 absent: no GatewayClass with .spec.controllerName = io.cilium/gateway-controller
  # - certs                   absent: API group cert-manager.io not served
  - monitoring
  - gitops
  - registry
  - dataops
  # - etcd-backup             unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  - audit-log
  - encryption-at-rest
  # - sshd-hardening          unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  # - os-hardening            unknown: not read: host-level, read over ssh on the hosts of a prod stack's inventory
  # - pod-security            absent: no namespace labelled pod-security.kubernetes.io/enforce
  # - kube-proxy-replacement  absent: no ConfigMap kube-system/cilium-config
  # - hubble                  absent: no ConfigMap kube-system/cilium-config
  # - cni-encryption          absent: no ConfigMap kube-system/cilium-config
  # - network-policy          absent: no NetworkPolicy; no CiliumNetworkPolicy

"#]]);
    bed.write_stack("dirqual", &yaml);
    let out = bed.cmd().args(["stack", "show", "dirqual"]).run();
    out.code(0);
}

#[test]
fn discover_works_with_only_a_kubeconfig() {
    let bed = Bed::new();
    let kc = bed.kubeconfig(&bed.tmp.path().join("any.config"), ENDPOINT);
    bed.kubectl_cluster(&Cluster::dirqual());
    let elsewhere = bed.tmp.path().join("empty");
    fs::create_dir_all(&elsewhere).expect("mkdir");
    let out = bed
        .cmd()
        .current_dir(&elsewhere)
        .args([
            "--kubeconfig",
            kc.to_str().unwrap_or_default(),
            "discover",
            "-o",
            "json",
        ])
        .run();
    out.code(0);
    let v = json_of(&out);
    assert_eq!(v["kind"], "Discovery");
    assert!(v["apiGroups"]
        .as_array()
        .is_some_and(|g| g.iter().any(|g| g == "ceph.rook.io")));
    assert!(v["storageClasses"].as_array().is_some_and(|s| s
        .iter()
        .any(|s| s["provisioner"] == "rook-ceph.rbd.csi.ceph.com" && s["default"] == true)));
}

#[test]
fn a_stack_catalog_adds_layers_that_preview_evaluates() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    fs::write(
        bed.stacks.join("layers.yaml"),
        "# site layers\n- id: vault\n  title: HashiCorp Vault\n  after: [storage]\n  detect:\n    - namespace: vault\n  healthy:\n    - workload: {kind: StatefulSet, namespace: vault, name: vault}\n  install: ansible-playbook platform/vault.yaml\n",
    )
    .expect("write");
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace(
            "layers: [k8s,",
            "catalog: layers.yaml\nlayers: [vault, k8s,",
        ),
    );
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "-o", "json"])
        .run();
    out.code(0);
    let v = json_of(&out);
    assert_eq!(layer_state(&v, "vault"), "absent");
    assert_eq!(ids(&v["plan"]["install"]), ["vault", "datalake", "certs"]);
    // Without the catalog the id is unknown: a strict error at its line and column.
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace("layers: [k8s,", "layers: [vault, k8s,"),
    );
    let out = bed.cmd().args(["preview", "--no-input"]).run();
    out.code(1);
    out.stderr_has("dirqual.yaml:10:10: unknown layer `vault`");
    assert!(bed.calls("kubectl").len() > 1);
}

#[test]
fn the_gate_script_never_reads_3_4_or_5_as_nothing_or_work_to_do() {
    let gate = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/gate.sh");
    let run = |bed: &Bed| {
        bed.cmd_program("bash")
            .arg(gate)
            .arg("dirqual")
            .env("NESTOR", env!("CARGO_BIN_EXE_kubectl-nestor"))
            .run()
    };
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let out = run(&bed);
    out.code(2);
    out.stdout_has("stack dirqual: plan not empty");
    let out = run(&Bed::dirqual(ENDPOINT, &Cluster::dirqual_full()));
    out.code(0);
    let undecided = Cluster::dirqual_full().with("cephclusters.ceph.rook.io", Answer::Status(403));
    let out = run(&Bed::dirqual(ENDPOINT, &undecided));
    out.code(5);
    out.stderr_has("could not tell");
    let out = run(&Bed::dirqual("https://10.99.0.1:6443", &Cluster::dirqual()));
    out.code(3);
    out.stderr_has("target refused");
}

/// A snapshot is written 0600, also over an existing file of another mode (issue 10).
#[test]
fn a_snapshot_is_written_0600_even_over_a_0644_file() {
    use std::os::unix::fs::PermissionsExt;
    let bed = Bed::dirqual("https://10.67.2.11:6443", &Cluster::dirqual());
    let snap = bed.tmp.path().join("snap.json");
    fs::write(&snap, "old").expect("write");
    fs::set_permissions(&snap, fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = bed
        .cmd()
        .args([
            "--no-input",
            "discover",
            "--save",
            snap.to_str().unwrap_or_default(),
        ])
        .run();
    out.code(0);
    assert_eq!(mode(&snap), 0o600);
    let saved: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&snap).expect("read")).expect("json");
    assert_eq!(
        (saved["apiVersion"].as_str(), saved["kind"].as_str()),
        (Some("nestor/v1"), Some("Snapshot"))
    );
    let leftovers: Vec<_> = fs::read_dir(bed.tmp.path())
        .expect("ls")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
