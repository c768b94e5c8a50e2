//! Nodes tell more than Ready (SPEC §6 v0.4, issue 34 item 1): a Ready node under a
//! pressure, without pod network, cordoned or tainted by hand makes `k8s` degraded, through
//! the real kubectl against one replay fixture each (`crates/replay/src/nodes.rs`), with the
//! exact evidence in JSON and text, a repair (never an install) and GET-only reads of the one
//! node list nestor always reads.

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

const HEALTHY: &str = "4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)";

/// `k8s` is degraded with exactly `reason` (the one failing check), shown in the text, the
/// plan repairs it alone; the node list was the only node read.
fn k8s_degraded(bed: &E2e, reason: &str, want: impl snapbox::IntoData) {
    let json = bed.run(&["preview", "--no-input", "-o", "json"]);
    json.code(0);
    let v = json.json();
    assert_eq!(state_of(&v, "k8s"), "degraded", "{}", layer(&v, "k8s"));
    assert_eq!(layer(&v, "k8s")["reason"], reason);
    assert!(evidence(&v, "k8s").iter().any(|e| e == reason));
    assert_eq!(plan_ids(&v, "repair"), ["k8s"], "{v}");
    // The whole plan: k8s never planned for install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: datalake, certs
repair: k8s
undecided: -

"#]],
    );
    let text = bed.run(&["preview", "--no-input", "--no-color"]);
    text.code(0);
    // The whole text: the reason under k8s (wrapped at 80 columns), `repair k8s`.
    text.stdout_snap(want);
    assert_read_only(&bed.server);
    let node_reads: Vec<String> = bed
        .server
        .audit()
        .into_iter()
        .filter(|e| e.path.contains("/nodes"))
        .map(|e| e.path)
        .collect();
    assert!(
        node_reads.iter().all(|p| p == "/api/v1/nodes"),
        "{node_reads:?}"
    );
}

fn k8s_present(bed: &E2e) -> serde_json::Value {
    let (v, _) = preview(bed);
    assert_eq!(state_of(&v, "k8s"), "present", "{}", layer(&v, "k8s"));
    // The built-in k8s ends with its APIService check (the replay serves no aggregated
    // API); a stack's own k8s layer may leave it out.
    let mut ev = evidence(&v, "k8s");
    if ev.last().map(String::as_str) == Some("every APIService available (0 served by a Service)") {
        ev.pop();
    }
    assert_eq!(
        ev,
        [
            "4 nodes registered",
            "4/4 declared nodes Ready",
            "4 nodes with distinct InternalIPs",
            HEALTHY
        ]
    );
    v
}

#[test]
fn healthy_nodes_with_the_control_plane_taint_are_present() {
    let bed = bed_or_skip!(E2e::dirqual());
    k8s_present(&bed);
    let bed = bed_or_skip!(E2e::new("node-healthy-extras", &[]));
    k8s_present(&bed);
}

#[test]
fn disk_pressure_on_a_ready_node_is_degraded_since_when() {
    k8s_degraded(
        &bed_or_skip!(E2e::new("node-disk-pressure", &[])),
        "3/4 Ready nodes schedulable: dirqual2 DiskPressure=True since 2026-11-30T08:12:00Z (KubeletHasDiskPressure: kubelet has disk pressure)", str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair k8s        repair in place; never reinstall over an existing layer
    k8s: k8s/schedulable fails

REAL (read live, not stored)
  nodes                 dirqual1..4, 4/4 Ready
  k8s         degraded  1 of 5 checks fails
    ✗ 3/4 Ready nodes schedulable: dirqual2 DiskPressure=True since
      2026-11-30T08:12:00Z (KubeletHasDiskPressure: kubelet has disk pressure)
  cni         present   5 checks hold
  ceph        present   9 checks hold
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

"#]]);
}

#[test]
fn memory_pressure_on_a_ready_node_is_degraded_since_when() {
    k8s_degraded(
        &bed_or_skip!(E2e::new("node-memory-pressure", &[])),
        "3/4 Ready nodes schedulable: dirqual1 MemoryPressure=True since 2026-11-30T08:12:00Z (KubeletHasInsufficientMemory: kubelet has insufficient memory available)",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair k8s        repair in place; never reinstall over an existing layer
    k8s: k8s/schedulable fails

REAL (read live, not stored)
  nodes                 dirqual1..4, 4/4 Ready
  k8s         degraded  1 of 5 checks fails
    ✗ 3/4 Ready nodes schedulable: dirqual1 MemoryPressure=True since
      2026-11-30T08:12:00Z (KubeletHasInsufficientMemory: kubelet has
      insufficient memory available)
  cni         present   5 checks hold
  ceph        present   9 checks hold
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
fn pid_pressure_on_a_ready_node_is_degraded_since_when() {
    k8s_degraded(
        &bed_or_skip!(E2e::new("node-pid-pressure", &[])),
        "3/4 Ready nodes schedulable: dirqual3 PIDPressure=True since 2026-11-30T08:12:00Z (KubeletHasInsufficientPID: kubelet has insufficient PID available)",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair k8s        repair in place; never reinstall over an existing layer
    k8s: k8s/schedulable fails

REAL (read live, not stored)
  nodes                 dirqual1..4, 4/4 Ready
  k8s         degraded  1 of 5 checks fails
    ✗ 3/4 Ready nodes schedulable: dirqual3 PIDPressure=True since
      2026-11-30T08:12:00Z (KubeletHasInsufficientPID: kubelet has insufficient
      PID available)
  cni         present   5 checks hold
  ceph        present   9 checks hold
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
fn network_unavailable_on_a_ready_node_is_degraded() {
    k8s_degraded(
        &bed_or_skip!(E2e::new("node-network-unavailable", &[])),
        "3/4 Ready nodes schedulable: dirqual4 NetworkUnavailable=True since 2026-11-29T17:40:00Z (NoRouteCreated: Node created without a route)", str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair k8s        repair in place; never reinstall over an existing layer
    k8s: k8s/schedulable fails

REAL (read live, not stored)
  nodes                 dirqual1..4, 4/4 Ready
  k8s         degraded  1 of 5 checks fails
    ✗ 3/4 Ready nodes schedulable: dirqual4 NetworkUnavailable=True since
      2026-11-29T17:40:00Z (NoRouteCreated: Node created without a route)
  cni         present   5 checks hold
  ceph        present   9 checks hold
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

"#]]);
}

#[test]
fn a_cordoned_node_is_degraded_once() {
    k8s_degraded(
        &bed_or_skip!(E2e::new("node-cordoned", &[])),
        "3/4 Ready nodes schedulable: dirqual3 cordoned (spec.unschedulable)",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair k8s        repair in place; never reinstall over an existing layer
    k8s: k8s/schedulable fails

REAL (read live, not stored)
  nodes                 dirqual1..4, 4/4 Ready
  k8s         degraded  1 of 5 checks fails
    ✗ 3/4 Ready nodes schedulable: dirqual3 cordoned (spec.unschedulable)
  cni         present   5 checks hold
  ceph        present   9 checks hold
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
fn an_unexpected_no_execute_taint_is_degraded() {
    k8s_degraded(
        &bed_or_skip!(E2e::new("node-tainted", &[])),
        "3/4 Ready nodes schedulable: dirqual4 tainted maintenance.example.com/drain:NoExecute",
        str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 2 to install, 1 to repair
  install datalake  ansible-playbook platform/datalake.yaml
  install certs     ansible-playbook platform/cert-manager.yaml
  repair k8s        repair in place; never reinstall over an existing layer
    k8s: k8s/schedulable fails

REAL (read live, not stored)
  nodes                 dirqual1..4, 4/4 Ready
  k8s         degraded  1 of 5 checks fails
    ✗ 3/4 Ready nodes schedulable: dirqual4 tainted
      maintenance.example.com/drain:NoExecute
  cni         present   5 checks hold
  ceph        present   9 checks hold
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

/// Cilium's agent-not-ready taint is cni's finding (SPEC §15), never k8s's too.
#[test]
fn the_cilium_agent_taint_is_cnis_finding_only() {
    let bed = bed_or_skip!(E2e::new("node-agent-not-ready", &[]));
    let (v, _) = preview(&bed);
    assert_eq!(state_of(&v, "k8s"), "present", "{}", layer(&v, "k8s"));
    assert!(evidence(&v, "k8s").iter().any(|e| e == HEALTHY));
    assert_eq!(state_of(&v, "cni"), "degraded");
    assert_eq!(
        layer(&v, "cni")["reason"],
        "tainted node.cilium.io/agent-not-ready: dirqual2"
    );
}

/// A taint the stack's catalog lists under `expectedTaints:` is no finding.
#[test]
fn a_catalog_expected_taint_is_present() {
    let bed = bed_or_skip!(E2e::new("node-tainted", &[]));
    std::fs::write(
        bed.stacks.join("layers.yaml"),
        "- id: k8s\n  title: Kubernetes (kubeadm)\n  detect:\n    - nodes: {registered: 1}\n  healthy:\n    - nodes: {ready: all}\n    - nodes: {distinctInternalIPs: true}\n    - nodes: {schedulable: true, expectedTaints: [maintenance.example.com/drain:NoExecute]}\n  install: ansible-playbook bootstrap/k8s.yaml\n",
    )
    .expect("write catalog");
    let topology =
        dirqual_topology(&bed.server.url()).replace("layers:", "catalog: layers.yaml\nlayers:");
    bed.write_stack("dirqual", &topology);
    k8s_present(&bed);
    let show = bed.run(&["catalog", "show", "k8s", "--stack", "dirqual"]);
    show.code(0);
    assert!(
        show.stdout
            .contains("maintenance.example.com/drain:NoExecute"),
        "{}",
        show.stdout
    );
}
