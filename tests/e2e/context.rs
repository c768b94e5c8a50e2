//! Issue 32, SPEC §18: the context a stack was written for is recorded (`context:`), and a
//! later `kubectl config use-context` of its kubeconfig refuses every command (exit 3) with
//! the line that restores it. The other context's cluster is the DECOY: it never sees a
//! request (checked here and by every bed on drop).

use std::fs;

use crate::bed_or_skip;
use snapbox::str;

use crate::harness::{text_snap, Table};
use crate::support::*;

#[test]
fn a_switched_current_context_refuses_every_command_and_the_other_cluster_sees_nothing() {
    let bed = bed_or_skip!(E2e::dirqual());
    // One file, two contexts: `replay` (current) and `edge`, whose cluster is the decoy.
    let kc = bed.home.join(".kube/lab.config");
    let text = bed.server.kubeconfig().replace(
        "contexts:\n",
        "contexts:\n- name: edge\n  context:\n    cluster: edge\n    user: replay\n",
    );
    let text = text.replace(
        "clusters:\n",
        &format!(
            "clusters:\n- name: edge\n  cluster:\n    server: {}\n    insecure-skip-tls-verify: true\n",
            decoy().url()
        ),
    );
    fs::write(&kc, text).expect("write");
    let kc_s = kc.to_str().unwrap_or_default().to_string();
    let r = bed.run(&[
        "--kubeconfig",
        &kc_s,
        "discover",
        "--no-input",
        "--write",
        "--name",
        "lab",
    ]);
    r.code(0);
    r.stderr_snap(str![[r#"
kubectl-nestor: not stack dirqual (active here): discovering the cluster of /t/home/.kube/lab.config alone (rule flag)
kubectl-nestor: warning: /t/home/.kube/lab.config holds 2 contexts: nestor reads its current-context replay only (the topology records it: `context: replay`)
kubectl-nestor: wrote /t/repo/stacks/lab.yaml (stack lab): review its layers, then `kubectl nestor stack select lab`

"#]]);
    // The whole file written: `kubeconfig: ~/.kube/lab.config`, the endpoint, `context:
    // replay`.
    let written = fs::read_to_string(bed.stacks.join("lab.yaml")).expect("lab.yaml");
    text_snap(
        &bed.stable(&written),
        str![[r#"
# Stack lab, written by `kubectl nestor discover --emit-topology` on NOW
# from http://127.0.0.1:PORT (context replay). Review it: declare the layers this stack should have.
# The kubeconfig holds 2 contexts: this stack is its current-context, replay (nestor reads no other).
name: lab
target_kind: prod
kubeconfig: ~/.kube/lab.config
endpoint: http://127.0.0.1:PORT
context: replay
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

"#]],
    );
    let r = bed.run(&["--stack", "lab", "target", "--no-input"]);
    r.code(0);

    // The operator switches the file to the other cluster.
    let switched = run(bed.program(&bed.kubectl).args([
        "--kubeconfig",
        &kc_s,
        "config",
        "use-context",
        "edge",
    ]));
    switched.code(0);
    let reads_before = bed.server.audit().len();
    // Each command's whole output: the context change named, the hint `kubectl
    // --kubeconfig FILE config use-context replay`.
    let table = Table::new();
    for args in [
        &["--stack", "lab", "preview", "--no-input"][..],
        &["--stack", "lab", "preview", "--no-input", "-o", "json"],
        &["--stack", "lab", "target", "--no-input"],
        &["--stack", "lab", "discover", "--no-input"],
        &[
            "--stack",
            "lab",
            "wait",
            "--no-input",
            "--for",
            "present",
            "--timeout",
            "2s",
            "k8s",
        ],
    ] {
        let before = bed.tree();
        let r = bed.run(args);
        r.error(
            3,
            &format!(
                "current-context of {kc_s} changed from replay to edge since stack lab was written"
            ),
        );
        table.add(&args.join(" "), &r);
        assert_eq!(bed.tree(), before, "{args:?}: nothing written");
    }
    table.table_snap(str![[r#"
== --stack lab preview --no-input: exit 3
--- stderr
kubectl-nestor: error: current-context of /t/home/.kube/lab.config changed from replay to edge since stack lab was written
hint: switch it back: `kubectl --kubeconfig /t/home/.kube/lab.config config use-context replay`; if edge is now this stack's target, set `context: edge` in /t/repo/stacks/lab.yaml
== --stack lab preview --no-input -o json: exit 3
--- stdout
{
  "apiVersion": "nestor/v1",
  "kind": "Error",
  "message": "current-context of /t/home/.kube/lab.config changed from replay to edge since stack lab was written",
  "hint": "switch it back: `kubectl --kubeconfig /t/home/.kube/lab.config config use-context replay`; if edge is now this stack's target, set `context: edge` in /t/repo/stacks/lab.yaml",
  "exitCode": 3,
  "nestorVersion": "0.1.0"
}
--- stderr
kubectl-nestor: error: current-context of /t/home/.kube/lab.config changed from replay to edge since stack lab was written
hint: switch it back: `kubectl --kubeconfig /t/home/.kube/lab.config config use-context replay`; if edge is now this stack's target, set `context: edge` in /t/repo/stacks/lab.yaml
== --stack lab target --no-input: exit 3
--- stderr
kubectl-nestor: error: current-context of /t/home/.kube/lab.config changed from replay to edge since stack lab was written
hint: switch it back: `kubectl --kubeconfig /t/home/.kube/lab.config config use-context replay`; if edge is now this stack's target, set `context: edge` in /t/repo/stacks/lab.yaml
== --stack lab discover --no-input: exit 3
--- stderr
kubectl-nestor: error: current-context of /t/home/.kube/lab.config changed from replay to edge since stack lab was written
hint: switch it back: `kubectl --kubeconfig /t/home/.kube/lab.config config use-context replay`; if edge is now this stack's target, set `context: edge` in /t/repo/stacks/lab.yaml
== --stack lab wait --no-input --for present --timeout 2s k8s: exit 3
--- stderr
kubectl-nestor: error: current-context of /t/home/.kube/lab.config changed from replay to edge since stack lab was written
hint: switch it back: `kubectl --kubeconfig /t/home/.kube/lab.config config use-context replay`; if edge is now this stack's target, set `context: edge` in /t/repo/stacks/lab.yaml

"#]]);
    assert_decoy_untouched();
    assert_eq!(
        bed.server.audit().len(),
        reads_before,
        "no read of lab's own cluster either"
    );
    // The fleet shows lab refused, for the same reason; dirqual (the same cluster, its own
    // file) is read as usual.
    let r = bed.run(&["preview", "--all", "--no-input"]);
    r.code(3);
    // The whole fleet: `lab (refused): current-context of ... changed from replay to edge
    // since stack lab was written`, its hint `switch it back: ...`.
    r.stdout_snap(str![[r#"
STACK    OUTCOME  KIND  NODES  LAYERS P/D/A/U  PLAN  TARGET
dirqual  work     prod  4/4    8/0/2/0         2     http://127.0.0.1:PORT
lab      refused  prod  -      -               -     http://127.0.0.1:PORT
total: 2 stacks: 0 ok, 1 work, 0 undecided, 1 refused, 0 unreachable, 0 error
lab (refused): current-context of /t/home/.kube/lab.config changed
               from replay to edge since stack lab was written
  hint: switch it back: `kubectl --kubeconfig
        /t/home/.kube/lab.config config use-context replay`; if
        edge is now this stack's target, set `context: edge` in
        /t/repo/stacks/lab.yaml

"#]]);
    assert_decoy_untouched();

    // What the printed line does (run by hand it is the operator's kubectl, and a version
    // dispatcher in front of it probes the current cluster's /version first: the decoy).
    let text = fs::read_to_string(&kc).expect("read");
    fs::write(
        &kc,
        text.replace("current-context: edge", "current-context: replay"),
    )
    .expect("write");
    bed.run(&["--stack", "lab", "target", "--no-input"]).code(0);
}
