//! Tests of the `nodes:` checks over kubelet-shaped Node objects: Lima's node names (SPEC
//! §18) and what a Ready node also tells (SPEC §6 v0.4).

use serde_json::{json, Value};

use super::*;
use crate::model::catalog::{Catalog, CheckKind, Count, NodesCheck};
use crate::model::observation::parse_nodes;

/// A Node as the kubelet registers it: the four kubelet conditions (Ready as given, the
/// pressures False), InternalIP, nodeInfo.
pub(super) fn node(name: &str, ready: bool) -> Value {
    let cond = |t: &str, status: &str, reason: &str, message: &str| {
        json!({"type": t, "status": status, "reason": reason, "message": message,
               "lastHeartbeatTime": "2026-12-01T08:00:00Z",
               "lastTransitionTime": "2026-11-20T10:00:00Z"})
    };
    let ip = format!(
        "192.168.105.{}",
        name.bytes().map(u32::from).sum::<u32>() % 200 + 10
    );
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {"podCIDR": "10.244.0.0/24"},
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                if ready {
                    cond("Ready", "True", "KubeletReady", "kubelet is posting ready status")
                } else {
                    cond("Ready", "False", "KubeletNotReady", "container runtime network not ready")
                },
            ],
            "nodeInfo": {"kubeletVersion": "v1.32.3", "architecture": "arm64"}
        }
    })
}

/// The observation of these Node objects (through the real parser).
pub(super) fn observed(nodes: Vec<Value>) -> Observation {
    let list = json!({"apiVersion": "v1", "kind": "NodeList", "items": nodes});
    let mut obs = Observation::skipped("test");
    obs.nodes = Ok(parse_nodes(&list.to_string()).unwrap());
    // Discovery read, no aggregated API served: k8s's apiServices check has nothing to judge.
    obs.api_groups = Ok(Default::default());
    obs
}

/// `node` with the control-plane role label and kubeadm's taint.
fn control_plane(name: &str) -> Value {
    let mut n = node(name, true);
    n["metadata"]["labels"]["node-role.kubernetes.io/control-plane"] = json!("");
    taint(
        &mut n,
        "node-role.kubernetes.io/control-plane",
        "NoSchedule",
    );
    n
}

fn taint(n: &mut Value, key: &str, effect: &str) {
    let spec = &mut n["spec"];
    if spec["taints"].is_null() {
        spec["taints"] = json!([]);
    }
    if let Some(list) = spec["taints"].as_array_mut() {
        list.push(json!({"key": key, "effect": effect}));
    }
}

/// Set condition `type_` of `n` (as the kubelet or the network plugin writes it).
fn condition(n: &mut Value, type_: &str, status: &str, reason: &str, message: &str, since: &str) {
    let c = json!({"type": type_, "status": status, "reason": reason, "message": message,
                   "lastHeartbeatTime": "2026-12-01T08:00:00Z", "lastTransitionTime": since});
    if let Some(list) = n["status"]["conditions"].as_array_mut() {
        match list.iter_mut().find(|x| x["type"] == type_) {
            Some(slot) => *slot = c,
            None => list.push(c),
        }
    }
}

/// The k8s layer of the built-in catalog (its `schedulable` check linked to cni's taint).
fn k8s(obs: &Observation) -> LayerReport {
    let c = Catalog::builtin().unwrap();
    evaluate(&c, &["k8s".to_string()], &[], obs).remove(0)
}

/// The built-in `nodes: {schedulable: true}` check, as the catalog links it.
fn schedulable_of(c: &Catalog) -> NodesCheck {
    c.get("k8s")
        .unwrap()
        .healthy
        .iter()
        .find_map(|ch| {
            let CheckKind::Nodes(n @ NodesCheck::Schedulable(_)) = &ch.kind else {
                return None;
            };
            Some(n.clone())
        })
        .unwrap()
}

fn schedulable(obs: &Observation) -> CheckOutcome {
    nodes::nodes(obs, &schedulable_of(&Catalog::builtin().unwrap()), &[])
}

fn ready_all(obs: &Observation, declared: &[DeclaredNode]) -> CheckOutcome {
    nodes::nodes(obs, &NodesCheck::Ready(Count::All), declared)
}

fn bench(prefix: &str) -> Vec<DeclaredNode> {
    ["node1", "node2", "node3"]
        .iter()
        .map(|n| DeclaredNode::lima(*n, &format!("{prefix}{n}")))
        .collect()
}

#[test]
fn lima_hostname_rule_is_limas() {
    assert_eq!(
        DeclaredNode::lima("cp1", "k8s_bench.cp1")
            .lima_hostname
            .as_deref(),
        Some("lima-k8s-bench-cp1")
    );
    assert_eq!(
        DeclaredNode::lima("cp1", "Bench-cp1")
            .lima_hostname
            .as_deref(),
        Some("lima-bench-cp1")
    );
    assert_eq!(DeclaredNode::named("cp1").lima_hostname, None);
}

#[test]
fn bench_nodes_registered_under_lima_hostnames_are_ready_and_named() {
    let obs = observed(vec![
        node("lima-bench-node1", true),
        node("lima-bench-node2", true),
        node("lima-bench-node3", true),
    ]);
    let o = ready_all(&obs, &bench("bench-"));
    assert_eq!(o.verdict, Verdict::True);
    assert_eq!(
        o.evidence,
        "3/3 declared nodes Ready (node1 registered as lima-bench-node1, node2 registered as lima-bench-node2, node3 registered as lima-bench-node3)"
    );
    let registered = nodes::nodes(&obs, &NodesCheck::Registered(Count::All), &bench("bench-"));
    assert_eq!(registered.verdict, Verdict::True);
}

#[test]
fn a_node_under_its_own_name_is_preferred_and_not_called_renamed() {
    let obs = observed(vec![
        node("node1", true),
        node("lima-node1", false),
        node("lima-node2", true),
        node("node3", true),
    ]);
    let o = ready_all(&obs, &bench(""));
    assert_eq!(o.verdict, Verdict::True);
    assert_eq!(
        o.evidence,
        "3/3 declared nodes Ready (node2 registered as lima-node2)"
    );
}

#[test]
fn a_not_ready_lima_node_is_named_by_its_declared_name() {
    let obs = observed(vec![node("lima-node1", true), node("lima-node2", false)]);
    let o = ready_all(&obs, &bench(""));
    assert_eq!(o.verdict, Verdict::False);
    assert_eq!(
        o.evidence,
        "1/3 declared nodes Ready (node1 registered as lima-node1, node2 registered as lima-node2): node2 NotReady, node3 not registered"
    );
    // Its Events are about the name it registered under; an unregistered node has none.
    assert_eq!(o.objects, [node_ref("lima-node2")]);
}

/// Issue 49: declared `node1` (Lima guest `lima-node1`) and `lima-node1` were both satisfied
/// by one registered `lima-node1`. A registered node satisfies one declaration.
#[test]
fn one_registered_node_satisfies_one_declared_node() {
    let obs = observed(vec![node("lima-node1", true)]);
    let declared = [
        DeclaredNode::lima("node1", "node1"),
        DeclaredNode::lima("lima-node1", "lima-node1"),
    ];
    let o = ready_all(&obs, &declared);
    assert_eq!(o.verdict, Verdict::False);
    assert_eq!(
        o.evidence,
        "1/2 declared nodes Ready: node1 not registered (node lima-node1 is declared lima-node1's)"
    );
    // The control: each declaration has its own node.
    let obs = observed(vec![node("node1", true), node("lima-node1", true)]);
    assert_eq!(ready_all(&obs, &declared).verdict, Verdict::True);
}

fn node_ref(name: &str) -> ObjectRef {
    ObjectRef::new("Node", "", name)
}

#[test]
fn too_few_ready_nodes_name_the_not_ready_ones_as_objects() {
    let obs = observed(vec![node("a", true), node("b", false), node("c", false)]);
    let o = nodes::nodes(&obs, &NodesCheck::Ready(Count::AtLeast(3)), &[]);
    assert_eq!(o.evidence, "1 node Ready (want at least 3)");
    assert_eq!(o.objects, [node_ref("b"), node_ref("c")]);
    let held = nodes::nodes(&obs, &NodesCheck::Ready(Count::AtLeast(1)), &[]);
    assert_eq!((held.verdict, held.objects.len()), (Verdict::True, 0));
}

#[test]
fn prod_nodes_never_match_a_lima_hostname() {
    let obs = observed(vec![node("lima-node1", true)]);
    let o = ready_all(&obs, &[DeclaredNode::named("node1")]);
    assert_eq!(o.verdict, Verdict::False);
    assert_eq!(o.evidence, "0/1 declared nodes Ready: node1 not registered");
}

#[test]
fn many_renamed_nodes_are_capped() {
    let names: Vec<String> = (1..=7).map(|i| format!("n{i}")).collect();
    let obs = observed(
        names
            .iter()
            .map(|n| node(&format!("lima-{n}"), true))
            .collect(),
    );
    let declared: Vec<DeclaredNode> = names.iter().map(|n| DeclaredNode::lima(n, n)).collect();
    assert_eq!(
        ready_all(&obs, &declared).evidence,
        "7/7 declared nodes Ready (n1 registered as lima-n1, n2 registered as lima-n2, n3 registered as lima-n3, n4 registered as lima-n4, n5 registered as lima-n5, and 2 more)"
    );
}

// ---- a Ready node that keeps pods away (SPEC §6 v0.4) -------------------------------------

#[test]
fn healthy_nodes_with_the_control_plane_taint_are_schedulable() {
    let obs = observed(vec![control_plane("dirqual1"), node("dirqual2", true)]);
    let o = schedulable(&obs);
    assert_eq!(o.verdict, Verdict::True);
    assert_eq!(
        o.evidence,
        "2/2 Ready nodes schedulable (no pressure, cordon or unexpected taint)"
    );
    assert_eq!(k8s(&obs).state, State::Present);
}

#[test]
fn each_pressure_and_network_unavailable_is_named_with_since_when() {
    let mut n2 = node("dirqual2", true);
    condition(
        &mut n2,
        "DiskPressure",
        "True",
        "KubeletHasDiskPressure",
        "kubelet has disk pressure",
        "2026-11-30T08:12:00Z",
    );
    taint(&mut n2, "node.kubernetes.io/disk-pressure", "NoSchedule");
    let mut n3 = node("dirqual3", true);
    condition(
        &mut n3,
        "MemoryPressure",
        "True",
        "KubeletHasInsufficientMemory",
        "kubelet has insufficient memory available",
        "2026-11-30T09:00:00Z",
    );
    condition(
        &mut n3,
        "PIDPressure",
        "True",
        "KubeletHasInsufficientPID",
        "kubelet has insufficient PID available",
        "2026-11-30T09:01:00Z",
    );
    let mut n4 = node("dirqual4", true);
    condition(
        &mut n4,
        "NetworkUnavailable",
        "True",
        "NoRouteCreated",
        "Node created without a route",
        "2026-11-30T10:00:00Z",
    );
    // What Cilium writes once it is up: False, never a finding.
    let mut n1 = control_plane("dirqual1");
    condition(
        &mut n1,
        "NetworkUnavailable",
        "False",
        "CiliumIsUp",
        "Cilium is running on this node",
        "2026-11-20T10:00:00Z",
    );
    let obs = observed(vec![n1, n2, n3, n4]);
    let r = k8s(&obs);
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.reason,
        "1/4 Ready nodes schedulable: \
dirqual2 DiskPressure=True since 2026-11-30T08:12:00Z (KubeletHasDiskPressure: kubelet has disk pressure); \
dirqual3 MemoryPressure=True since 2026-11-30T09:00:00Z (KubeletHasInsufficientMemory: kubelet has insufficient memory available); \
dirqual3 PIDPressure=True since 2026-11-30T09:01:00Z (KubeletHasInsufficientPID: kubelet has insufficient PID available); \
dirqual4 NetworkUnavailable=True since 2026-11-30T10:00:00Z (NoRouteCreated: Node created without a route)"
    );
}

#[test]
fn a_cordoned_node_is_named_once_not_again_for_its_taint() {
    let mut n = node("dirqual3", true);
    n["spec"]["unschedulable"] = json!(true);
    taint(&mut n, "node.kubernetes.io/unschedulable", "NoSchedule");
    let o = schedulable(&observed(vec![node("dirqual2", true), n]));
    assert_eq!(o.verdict, Verdict::False);
    assert_eq!(
        o.evidence,
        "1/2 Ready nodes schedulable: dirqual3 cordoned (spec.unschedulable)"
    );
    assert_eq!(o.objects, [node_ref("dirqual3")]);
}

#[test]
fn unexpected_blocking_taints_are_named_and_prefer_no_schedule_is_not() {
    let mut n2 = node("dirqual2", true);
    taint(&mut n2, "maintenance.example.com/drain", "NoExecute");
    taint(&mut n2, "dedicated.example.com/gpu", "PreferNoSchedule");
    // kubeadm's control-plane taint on a worker keeps its capacity away.
    let mut n3 = node("dirqual3", true);
    taint(
        &mut n3,
        "node-role.kubernetes.io/control-plane",
        "NoSchedule",
    );
    // A condition's taint left without its condition is a taint like any other.
    let mut n4 = node("dirqual4", true);
    taint(&mut n4, "node.kubernetes.io/disk-pressure", "NoSchedule");
    let o = schedulable(&observed(vec![control_plane("dirqual1"), n2, n3, n4]));
    assert_eq!(
        o.evidence,
        "1/4 Ready nodes schedulable: dirqual2 tainted maintenance.example.com/drain:NoExecute; \
dirqual3 tainted node-role.kubernetes.io/control-plane:NoSchedule; \
dirqual4 tainted node.kubernetes.io/disk-pressure:NoSchedule"
    );
    let named = ["dirqual2", "dirqual3", "dirqual4"].map(node_ref);
    assert_eq!(o.objects, named);
}

#[test]
fn cilium_agent_not_ready_is_cnis_finding_not_k8s() {
    let mut n = node("dirqual2", true);
    taint(&mut n, "node.cilium.io/agent-not-ready", "NoSchedule");
    let obs = observed(vec![control_plane("dirqual1"), n]);
    assert_eq!(schedulable(&obs).verdict, Verdict::True);
    let cni = nodes::nodes(
        &obs,
        &NodesCheck::WithoutTaint("node.cilium.io/agent-not-ready".into()),
        &[],
    );
    assert_eq!(
        cni.evidence,
        "tainted node.cilium.io/agent-not-ready: dirqual2"
    );
    assert_eq!(cni.objects, [node_ref("dirqual2")]);
}

#[test]
fn a_not_ready_node_is_judged_by_ready_alone() {
    let mut n = node("dirqual3", false);
    taint(&mut n, "node.kubernetes.io/unreachable", "NoExecute");
    condition(
        &mut n,
        "DiskPressure",
        "True",
        "KubeletHasDiskPressure",
        "x",
        "2026-11-30T08:12:00Z",
    );
    let o = schedulable(&observed(vec![node("dirqual2", true), n]));
    assert_eq!(o.verdict, Verdict::True);
    assert_eq!(
        o.evidence,
        "1/1 Ready nodes schedulable (no pressure, cordon or unexpected taint)"
    );
}

#[test]
fn condition_words_are_escaped_and_capped() {
    let mut n = node("dirqual2", true);
    let long = format!("disk \u{1b}[31mfull\n{}", "x".repeat(300));
    condition(
        &mut n,
        "DiskPressure",
        "True",
        "Kubelet\u{202e}HasDiskPressure",
        &long,
        "2026-11-30T08:12:00Z\n",
    );
    let o = schedulable(&observed(vec![n]));
    let want = format!(
        "0/1 Ready nodes schedulable: dirqual2 DiskPressure=True since 2026-11-30T08:12:00Z (Kubelet\\u{{202e}}HasDiskPressure: disk \\x1b[31mfull\\n{}…)",
        // The cap counts what is printed (SPEC §9): the escaped prefix is 19 characters.
        "x".repeat(200 - r"disk \x1b[31mfull\n".chars().count())
    );
    assert_eq!(o.evidence, want);
}

#[test]
fn a_catalogs_expected_taints_are_not_findings() {
    let mut c = Catalog::builtin().unwrap();
    c.overlay_str(
        "- id: k8s\n  title: K\n  detect:\n    - nodes: {registered: 1}\n  healthy:\n    - nodes: {schedulable: true, expectedTaints: [dedicated.example.com/gpu, maintenance.example.com/drain:NoExecute]}\n  install: x\n",
        "stacks/layers.yaml",
    )
    .unwrap();
    let mut n = node("gpu1", true);
    taint(&mut n, "dedicated.example.com/gpu", "NoSchedule");
    taint(&mut n, "dedicated.example.com/gpu", "NoExecute");
    taint(&mut n, "maintenance.example.com/drain", "NoExecute");
    taint(&mut n, "maintenance.example.com/drain", "NoSchedule");
    let o = nodes::nodes(&observed(vec![n]), &schedulable_of(&c), &[]);
    assert_eq!(
        o.evidence,
        "0/1 Ready nodes schedulable: gpu1 tainted maintenance.example.com/drain:NoSchedule"
    );
    // A catalog without cni's withoutTaint check would count agent-not-ready here: the
    // link is what the catalog holds, not a name in the code.
    let NodesCheck::Schedulable(s) = schedulable_of(&c) else {
        unreachable!()
    };
    assert_eq!(
        s.judged_elsewhere.into_iter().collect::<Vec<_>>(),
        ["node.cilium.io/agent-not-ready"]
    );
}

#[test]
fn bad_expected_taints_are_catalog_errors() {
    let cases = [
        (
            "{schedulable: true, expectedTaints: [example.com/x:PreferNoSchedule]}",
            "stacks/layers.yaml:4:5: [0].detect: `expectedTaints: [example.com/x:PreferNoSchedule]`: effect `PreferNoSchedule` is not `NoSchedule` or `NoExecute` (PreferNoSchedule taints are never judged)",
        ),
        (
            "{schedulable: true, expectedTaints: [\"bad key!\"]}",
            "stacks/layers.yaml:4:5: [0].detect: `expectedTaints: [bad key!]`: `bad key!` is not a taint key like `dedicated.example.com/gpu`",
        ),
        (
            "{ready: all, expectedTaints: [example.com/x]}",
            "stacks/layers.yaml:4:5: [0].detect: `expectedTaints:` goes with `schedulable: true` (the taints a schedulable node may carry)",
        ),
        (
            "{schedulable: true, expectedTaint: [example.com/x]}",
            "stacks/layers.yaml:4:34: [0].detect[0].nodes: unknown key `expectedTaint`, did you mean `expectedTaints`?",
        ),
    ];
    for (nodes, want) in cases {
        let text = format!(
            "- id: extra\n  title: Extra\n  detect:\n    - nodes: {nodes}\n  install: make extra\n"
        );
        let err = Catalog::builtin()
            .unwrap()
            .overlay_str(&text, "stacks/layers.yaml")
            .unwrap_err();
        assert_eq!(err.message, want, "for {nodes}");
    }
}
