//! Lima's node names (issue 32 item 2, SPEC §18): a bench whose kubeadm ran without
//! `--node-name` registers its nodes under the guest hostname Lima gives each VM,
//! `lima-<instance>`. The declared nodes match them, the evidence says so, and no repair is
//! planned for a naming difference; a prod stack matches its own names only.

use crate::support::*;

/// The bench of `examples/stacks/bench.yaml`: instances bench-node1..3.
const BENCH: &str = "name: bench
target_kind: lima
lima:
  instance_prefix: \"bench-\"
nodes:
  - { name: node1, role: control-plane }
  - { name: node2, role: worker }
  - { name: node3, role: worker }
layers: [k8s, cni]
";

fn running(instance: &str) -> String {
    format!(
        r#"{{"name":"{instance}","hostname":"lima-{instance}","status":"Running","dir":"/Users/op/.lima/{instance}","vmType":"vz","arch":"aarch64","cpuType":"","cpus":4,"memory":8589934592,"disk":107374182400,"network":[{{"lima":"user-v2"}}],"sshLocalPort":60022,"sshConfigFile":"/Users/op/.lima/{instance}/ssh.config","hostAgentPID":4242,"driverPID":4242,"config":{{}},"sshAddress":"127.0.0.1","protected":false,"limaVersion":"1.0.3","HostOS":"darwin","HostArch":"aarch64","LimaHome":"/Users/op/.lima","IdentityFile":"/Users/op/.lima/_config/user"}}"#
    )
}

/// The same names declared by a prod stack: no Lima hostname rule there.
const PROD: &str = "name: lab
target_kind: prod
kubeconfig: ~/.kube/lab.config
endpoint: https://127.0.0.1:6443
nodes:
  - { name: bench-node1, role: control-plane }
  - { name: bench-node2, role: worker }
  - { name: bench-node3, role: worker }
layers: [k8s]
";

fn bench_bed(fixture: &str) -> Bed {
    let bed = Bed::new();
    bed.write_stack("bench", BENCH);
    bed.select("bench");
    let listing: String = ["bench-node1", "bench-node2", "bench-node3"]
        .iter()
        .map(|i| running(i) + "\n")
        .collect();
    bed.limactl_listing(&listing);
    bed.kubeconfig(
        &bed.repo.join("bench/lima/.work/kubeconfig"),
        "https://127.0.0.1:6443",
    );
    let fixture = nestor_replay::fixtures::by_name(fixture).expect("a replay fixture");
    bed.kubectl_cluster(&Cluster::replay(&fixture));
    bed
}

#[test]
fn a_bench_registered_under_lima_hostnames_is_present_and_says_which() {
    let bed = bench_bed("bench-lima-hostnames");
    let out = bed.stable(
        bed.cmd()
            .args(["preview", "--no-color", "-v", "--detailed-exitcode"])
            .run(),
    );
    out.code(0);
    out.stdout_eq(
        "\
stack       bench (lima)
target      https://127.0.0.1:6443 (context kubernetes-admin@dirqual)
kubeconfig  /t/repo/bench/lima/.work/kubeconfig (rule: lima-bench)

PLAN: nothing to do

REAL (read live, not stored)
  VMs             bench-node1 Running, bench-node2 Running, bench-node3 Running
  nodes           lima-bench-node1..3, 3/3 Ready
  k8s    present  5 checks hold
    ✓ 3 nodes registered
    ✓ 3/3 declared nodes Ready (node1 registered as lima-bench-node1, node2
      registered as lima-bench-node2, node3 registered as lima-bench-node3)
    ✓ 3 nodes with distinct InternalIPs
    ✓ 3/3 Ready nodes schedulable (no pressure, cordon or unexpected taint)
    ✓ every APIService available (0 served by a Service)
  cni    present  5 checks hold
    ✓ API group cilium.io served
    ✓ DaemonSet kube-system/cilium rolled out (3/3 available)
    ✓ Deployment kube-system/cilium-operator rolled out (1/1 available)
    ✓ no node tainted node.cilium.io/agent-not-ready
    ✓ no version to compare on DaemonSet kube-system/cilium (cilium-agent),
      Deployment kube-system/cilium-operator (cilium-operator)
",
    );
    let v: serde_json::Value =
        serde_json::from_str(&bed.cmd().args(["preview", "-o", "json"]).run().stdout)
            .expect("JSON");
    let k8s = &v["real"]["layers"][0];
    assert_eq!(k8s["id"], "k8s");
    assert_eq!(k8s["state"], "present");
    assert_eq!(v["plan"]["repair"], serde_json::json!([]));
}

#[test]
fn the_bench_under_its_own_names_says_nothing_of_lima() {
    let bed = bench_bed("bench");
    let v: serde_json::Value =
        serde_json::from_str(&bed.cmd().args(["preview", "-o", "json"]).run().stdout)
            .expect("JSON");
    let k8s = &v["real"]["layers"][0];
    assert_eq!(k8s["state"], "present");
    assert_eq!(k8s["evidence"][1], "3/3 declared nodes Ready");
}

#[test]
fn a_prod_stack_never_matches_lima_hostnames() {
    let bed = Bed::new();
    bed.write_stack("lab", PROD);
    bed.select("lab");
    bed.kubeconfig(&bed.home.join(".kube/lab.config"), "https://127.0.0.1:6443");
    let fixture =
        nestor_replay::fixtures::by_name("bench-lima-hostnames").expect("a replay fixture");
    bed.kubectl_cluster(&Cluster::replay(&fixture));
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "-o", "json"])
        .run();
    out.code(0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let k8s = &v["real"]["layers"][0];
    assert_eq!(k8s["state"], "degraded");
    assert_eq!(
        k8s["reason"],
        "0/3 declared nodes Ready: bench-node1 not registered, bench-node2 not registered, bench-node3 not registered"
    );
}
