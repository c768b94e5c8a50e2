//! One memory budget per run (SPEC §9 "Bounded per run", issue 31 item 3): every answer is
//! decoded while it arrives into only what the checks use, the node list and the named
//! ConfigMaps included, so nestor's own peak stays flat however big an answer is; a read
//! whose kept fields would cross the budget is a failed read naming the read and the budget,
//! the layer unknown, never absent. Measured through the stub kubectl's replay server and
//! nestor's own `-v` usage line (getrusage of nestor alone).

use crate::support::{Bed, Cluster};

/// nestor's own peak RSS, from its `-v` usage line (`own peak rss N KiB`).
fn own_peak_kib(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.split("own peak rss ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no usage line in stderr:\n{stderr}"))
}

/// dirqual plus `n` more Nodes `worker-NNNNN` as the kubelet registers them, each named by
/// `name(i)` and carrying an annotation of `fat` bytes no check reads.
fn with_nodes(n: usize, fat: usize, name: impl Fn(usize) -> String) -> Cluster {
    let mut fixture = nestor_replay::fixtures::dirqual();
    let blob = "x".repeat(fat);
    for i in 0..n {
        let name = name(i);
        fixture.objects.push(serde_json::json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"},
                         "annotations": {"node.alpha.kubernetes.io/ttl": "0", "example.com/inventory": blob}},
            "spec": {"podCIDR": "10.244.9.0/24"},
            "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                       "addresses": [{"type": "InternalIP", "address": format!("10.70.{}.{}", i / 250, i % 250)}],
                       "nodeInfo": {"kubeletVersion": "v1.31.4", "architecture": "amd64"}}
        }));
    }
    Cluster::replay(&fixture)
}

fn preview(bed: &Bed) -> crate::support::Outcome {
    let mut run = bed.cmd();
    run.args([
        "--no-input",
        "--no-color",
        "-v",
        "--request-timeout=300s",
        "preview",
    ]);
    run.run()
}

/// 10 000 more nodes, each with a 4 KiB annotation: a 45 MB node list. It used to be held
/// whole, then decoded with every annotation (well over 100 MiB); decoded as it arrives,
/// nestor keeps each node's few fields.
#[test]
fn a_ten_thousand_node_list_is_decoded_as_it_arrives() {
    let bed = Bed::dirqual(
        "https://10.67.2.11:6443",
        &with_nodes(10_000, 4096, |i| format!("worker-{i:05}")),
    );
    let out = preview(&bed);
    assert_eq!(
        out.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stderr.contains("get: /api/v1/nodes: 200 (")
            && out.stderr.contains(" bytes, decoded as they arrived) in "),
        "{}",
        out.stderr
    );
    let peak = own_peak_kib(&out.stderr);
    eprintln!("measured: 10 004 nodes (45 MB listed), nestor's own peak RSS {peak} KiB");
    assert!(peak < 48 * 1024, "own peak RSS {peak} KiB");
}

/// A 40 MiB value in rook-ceph-mon-endpoints beside the small key ceph checks: every key but
/// the checked one is skipped unread (it used to cost 128 MiB).
#[test]
fn a_huge_config_map_is_decoded_into_its_checked_key_only() {
    let mut cluster = Cluster::dirqual();
    let cm = cluster
        .fixture
        .objects
        .iter_mut()
        .find(|o| o["kind"] == "ConfigMap" && o["metadata"]["name"] == "rook-ceph-mon-endpoints")
        .expect("dirqual has rook-ceph-mon-endpoints");
    cm["data"]["csi-cluster-config-json"] = serde_json::json!("y".repeat(40 << 20));
    let bed = Bed::dirqual("https://10.67.2.11:6443", &cluster);
    let out = preview(&bed);
    assert_eq!(
        out.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stdout.contains("ceph") && !out.stdout.contains("failed"),
        "{}",
        out.stdout
    );
    let peak = own_peak_kib(&out.stderr);
    eprintln!("measured: a 40 MiB ConfigMap, nestor's own peak RSS {peak} KiB");
    assert!(peak < 40 * 1024, "own peak RSS {peak} KiB");
}

/// 6000 nodes whose names are 10 KiB each: 60 MB of names nestor would keep, over its
/// budget. The node read fails naming the read and the budget; k8s is unknown, never absent.
#[test]
fn a_list_over_the_memory_budget_is_unknown_naming_the_read_and_the_budget() {
    let bed = Bed::dirqual(
        "https://10.67.2.11:6443",
        &with_nodes(6000, 0, |i| format!("n{i:05}-{}", "a".repeat(10 << 10))),
    );
    let out = preview(&bed);
    let said = "read of nodes failed: BadOutput: over nestor's memory budget of 48 MiB for one read of a cluster: GET /api/v1/nodes not kept (it holds more than nestor keeps)";
    let text = out.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains(said),
        "stdout:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    assert!(!text.contains("k8s absent"), "{text}");
    let peak = own_peak_kib(&out.stderr);
    eprintln!("measured: 60 MB of node names refused, nestor's own peak RSS {peak} KiB");
    assert!(peak < 96 * 1024, "own peak RSS {peak} KiB");
}

fn gate_drain(bed: &Bed) -> crate::support::Outcome {
    let mut run = bed.cmd();
    run.args([
        "--no-input",
        "--no-color",
        "-v",
        "--request-timeout=300s",
        "gate",
        "drain",
        "dirqual4",
        "--no-ssh",
    ]);
    run.run()
}

/// The drain gate reads the same 45 MB node list as it arrives, its `Node` facts charged to
/// the run's budget: it used to be held whole (and copied) before it was decoded.
#[test]
fn the_drain_gate_decodes_a_ten_thousand_node_list_as_it_arrives() {
    let plain = gate_drain(&Bed::dirqual(
        "https://10.67.2.11:6443",
        &Cluster::dirqual(),
    ));
    let bed = Bed::dirqual(
        "https://10.67.2.11:6443",
        &with_nodes(10_000, 4096, |i| format!("worker-{i:05}")),
    );
    let out = gate_drain(&bed);
    assert_eq!(
        out.code, plain.code,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    assert!(
        out.stderr.contains("get: /api/v1/nodes: 200 (")
            && out.stderr.contains(" bytes, decoded as they arrived) in ")
            && out
                .stderr
                .contains("MiB of 48 MiB kept from the gate's answers"),
        "{}",
        out.stderr
    );
    let peak = own_peak_kib(&out.stderr);
    eprintln!(
        "measured: gate drain, 10 004 nodes (45 MB listed), nestor's own peak RSS {peak} KiB"
    );
    assert!(peak < 48 * 1024, "own peak RSS {peak} KiB");
}

/// A node list whose facts would cross the budget: the gate's nodes read fails naming the
/// read and the budget, every rule that needs the nodes is undecided, and the gate is never
/// GO: CANNOT TELL, exit 5 (dirqual's Rook mons, one per node of dirqual1..3, keep their
/// majority without dirqual4, so no rule blocks).
#[test]
fn a_gate_read_over_the_memory_budget_is_undecided_naming_it_never_go() {
    let bed = Bed::dirqual(
        "https://10.67.2.11:6443",
        &with_nodes(6000, 0, |i| format!("n{i:05}-{}", "a".repeat(10 << 10))),
    );
    let out = gate_drain(&bed);
    let text = out.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        out.code == Some(5)
            && text.starts_with("gate drain dirqual4")
            && text.contains("CANNOT TELL"),
        "stdout:\n{}\nstderr:\n{}",
        out.stdout,
        out.stderr
    );
    let said = "the read of nodes failed: BadOutput: over nestor's memory budget of 48 MiB for one read of a cluster: GET /api/v1/nodes not kept (it holds more than nestor keeps)";
    for rule in ["drain-control-plane", "drain-etcd-majority"] {
        assert!(text.contains(&format!("{rule} {said}")), "{rule}: {text}");
    }
    assert!(text.contains("undecided (never GO)"), "{text}");
    let peak = own_peak_kib(&out.stderr);
    eprintln!(
        "measured: gate drain, 60 MB of node names refused, nestor's own peak RSS {peak} KiB"
    );
    assert!(peak < 96 * 1024, "own peak RSS {peak} KiB");
}
