//! The scripting contract around the target: one `target` shape in every document, one
//! vocabulary for the rule that chose the kubeconfig (text and JSON alike), refusals that
//! name that rule, `NESTOR_NO_INPUT`, the prompt saying whether the endpoint matches, and
//! `stack select` warning about an exported `KUBECONFIG`.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde_json::Value;

use snapbox::str;

use crate::harness::text_snap;
use crate::support::*;

const ENDPOINT: &str = "https://10.67.2.11:6443";
const OTHER: &str = "https://10.99.0.1:6443";

fn json_of(out: &Outcome) -> Value {
    let v = serde_json::from_slice(&out.stdout_bytes)
        .unwrap_or_else(|e| panic!("{e}: stdout {} stderr {}", stdout_of(out), stderr_of(out)));
    crate::doc_schema::check(&v);
    v
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn shape() -> BTreeSet<String> {
    ["rule", "kubeconfig", "context", "endpoint", "confirmedBy"]
        .map(String::from)
        .into_iter()
        .collect()
}

#[test]
fn every_document_has_the_same_target_shape() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let kc = bed.home.join(".kube/dirqual.config");
    let kc = kc.to_str().expect("utf-8");
    let snap = bed.tmp.path().join("dirqual.snapshot.json");

    let preview = json_of(
        &bed.cmd()
            .args(["preview", "--no-input", "-o", "json"])
            .run(),
    );
    let discovery = json_of(
        &bed.cmd()
            .args(["discover", "-o", "json", "--save"])
            .arg(&snap)
            .run(),
    );
    let target = json_of(&bed.cmd().args(["target", "-o", "json"]).run());
    let saved: Value =
        serde_json::from_str(&fs::read_to_string(&snap).expect("snapshot")).expect("json");
    let replayed = json_of(
        &bed.cmd()
            .args(["preview", "--no-input", "-o", "json", "--snapshot"])
            .arg(&snap)
            .run(),
    );
    for (kind, doc, rule, confirmed) in [
        ("Preview", &preview, "topology", Value::from("endpoint")),
        ("Discovery", &discovery, "topology", Value::from("endpoint")),
        ("Target", &target, "topology", Value::from("endpoint")),
        ("Snapshot", &saved, "topology", Value::from("endpoint")),
        ("Preview", &replayed, "snapshot", Value::from("snapshot")),
    ] {
        assert_eq!(doc["kind"], kind);
        let t = &doc["target"];
        assert_eq!(keys(t), shape(), "{kind}: {t}");
        assert_eq!(t["rule"], rule, "{kind}");
        assert_eq!(t["kubeconfig"], kc, "{kind}");
        assert_eq!(t["context"], "kubernetes-admin@dirqual", "{kind}");
        assert_eq!(t["endpoint"], ENDPOINT, "{kind}");
        assert_eq!(t["confirmedBy"], confirmed, "{kind}");
    }
    // The deprecated fields stay, equal to the new ones.
    assert_eq!(discovery["rule"], discovery["target"]["rule"]);
    for f in ["rule", "kubeconfig", "context", "endpoint"] {
        assert_eq!(target[f], target["target"][f], "Target.{f}");
    }

    // A bare --kubeconfig: rule flag, nothing confirmed it.
    let bare = Bed::new();
    bare.kubectl_cluster(&Cluster::dirqual());
    let file = bare.kubeconfig(&bare.home.join("lab.config"), ENDPOINT);
    let discovery = json_of(
        &bare
            .cmd()
            .arg("--kubeconfig")
            .arg(&file)
            .args(["discover", "-o", "json"])
            .run(),
    );
    assert_eq!(keys(&discovery["target"]), shape());
    assert_eq!(discovery["target"]["rule"], "flag");
    assert_eq!(discovery["target"]["confirmedBy"], Value::Null);
}

/// The rule is named the same way in the text and in the JSON: `flag`, `env`, `topology`.
#[test]
fn one_rule_vocabulary_in_text_and_json() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let topo = bed.home.join(".kube/dirqual.config");
    let other = bed.kubeconfig(&bed.tmp.path().join("same.config"), ENDPOINT);
    type Setup = fn(&mut Run, &Path);
    let cases: [(&str, Setup); 3] = [
        ("topology", |_, _| {}),
        ("env", |c, f| {
            c.env("KUBECONFIG", f);
        }),
        ("flag", |c, f| {
            c.arg("--kubeconfig").arg(f);
        }),
    ];
    for (rule, setup) in cases {
        for command in ["target", "preview", "discover"] {
            let mut json = bed.cmd();
            setup(&mut json, &other);
            let mut args = vec![command, "-o", "json"];
            if command == "preview" {
                args.push("--no-input");
            }
            let v = json_of(&json.args(&args).run());
            assert_eq!(v["target"]["rule"], rule, "{command} {rule}");
            let mut text = bed.cmd();
            setup(&mut text, &other);
            let out = text.args([command, "--no-color", "--no-input"]).run();
            let file = if rule == "topology" { &topo } else { &other };
            // The rule's word in the text, for 3 rules x 3 commands (their whole texts are
            // golden/text's): the same vocabulary as the JSON's `rule`.
            let line = format!("{} (rule: {rule})", file.display());
            assert!(
                stdout_of(&out).contains(&line),
                "{command} {rule}: want {line:?}\n{}{}",
                stdout_of(&out),
                stderr_of(&out)
            );
        }
    }
}

/// Every refusal of a target names the rule that chose it (and the file), and the hint
/// fits that rule: an exported KUBECONFIG is not fixed like a wrong topology.
#[test]
fn every_target_refusal_names_the_rule() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let wrong = bed.kubeconfig(&bed.tmp.path().join("other.config"), OTHER);
    let refused = |cmd: &mut Run| {
        let out = cmd.run();
        out.code(3);
        out.no_stdout();
        stderr_of(&out)
    };

    let err = refused(
        bed.cmd()
            .args(["preview", "--no-input"])
            .env("KUBECONFIG", &wrong),
    );
    text_snap(
        &bed.redact(&err),
        str![[r#"
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/other.config (rule env: the KUBECONFIG environment variable) chose it
hint: an exported KUBECONFIG wins over the topology: `unset KUBECONFIG`, or `eval "$(kubectl nestor stack env dirqual)"`

"#]],
    );

    let err = refused(
        bed.cmd()
            .arg("--kubeconfig")
            .arg(&wrong)
            .args(["preview", "--no-input"]),
    );
    text_snap(
        &bed.redact(&err),
        str![[r#"
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/other.config (rule flag: the --kubeconfig flag) chose it
hint: --kubeconfig chose that file: pass stack dirqual's own kubeconfig, or drop the flag to use the topology's

"#]],
    );

    bed.kubeconfig(&bed.home.join(".kube/dirqual.config"), OTHER);
    let err = refused(bed.cmd().args(["preview", "--no-input"]));
    text_snap(
        &bed.redact(&err),
        str![[r#"
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)

"#]],
    );

    // A snapshot of another cluster: the snapshot is blamed, not the kubeconfig.
    bed.kubeconfig(&bed.home.join(".kube/dirqual.config"), ENDPOINT);
    let snap = bed.tmp.path().join("snap.json");
    let out = bed
        .cmd()
        .args(["discover", "-o", "json", "--save"])
        .arg(&snap)
        .run();
    out.code(0);
    bed.write_stack("dirqual", &PROD_DECLARED.replace(ENDPOINT, OTHER));
    let err = refused(
        bed.cmd()
            .args(["preview", "--no-input", "--snapshot"])
            .arg(&snap),
    );
    text_snap(
        &bed.redact(&err),
        str![[r#"
kubectl-nestor: error: target mismatch for stack dirqual: the snapshot's endpoint is https://10.67.2.11:6443, the topology's endpoint is https://10.99.0.1:6443; snapshot /t/snap.json (rule snapshot: a replayed snapshot) chose it
hint: the snapshot was read from another cluster: replay a snapshot of stack dirqual (`kubectl nestor --stack dirqual discover --save FILE`)

"#]],
    );

    // No endpoint declared: the refusal still says where the target came from.
    bed.write_stack(
        "dirqual",
        &PROD_DECLARED.replace(&format!("endpoint: {ENDPOINT}\n"), ""),
    );
    let err = refused(bed.cmd().args(["preview", "--no-input"]));
    text_snap(
        &bed.redact(&err),
        str![[r#"
kubectl-nestor: error: stack dirqual declares no endpoint: cannot confirm target https://10.67.2.11:6443 from kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) without a prompt
hint: add `endpoint: https://10.67.2.11:6443` to /t/repo/stacks/dirqual.yaml if that is the stack's API server, or run interactively

"#]],
    );

    // No rule chose a kubeconfig at all: it says so.
    bed.write_stack("dirqual", PROD_UNDECLARED);
    let err = refused(bed.cmd().args(["preview", "--no-input"]));
    text_snap(
        &bed.redact(&err),
        str![[r#"
kubectl-nestor: error: kubeconfig target not declared for stack dirqual: add `kubeconfig: ~/.kube/dirqual.config` (no rule chose one: no --kubeconfig flag, no KUBECONFIG, no topology kubeconfig:)
hint: run `kubectl nestor stack select dirqual` (it offers to add the line), or pass `kubectl nestor --kubeconfig FILE ...`

"#]],
    );
}

/// `watch kubectl nestor preview` and `2>log`: stdin is a terminal, stderr is not. The
/// question would go where nobody reads it, so nestor never asks: the non-interactive rule
/// (the endpoint must be the topology's) applies, as with `--no-input`.
#[test]
fn a_terminal_whose_stderr_is_not_a_terminal_never_prompts() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let err = bed.tmp.path().join("stderr.txt");
    let line = format!(
        "\"$NESTOR\" preview -o json 2>'{}'; echo \"exit=$?\"",
        err.display()
    );
    // No answer typed: a prompt would read end of input as no and refuse (exit 3).
    let out = bed.pty_shell(&line, "", &[]);
    let screen = stdout_of(&out);
    let stderr = fs::read_to_string(&err).expect("stderr file");
    out.stdout_snap(str![[r#"
{
  "apiVersion": "nestor/v1",
  "kind": "Preview",
  "stack": {
    "name": "dirqual",
    "targetKind": "prod",
    "file": "/t/repo/stacks/dirqual.yaml"
  },
  "source": {
    "kind": "live"
  },
  "target": {
    "rule": "topology",
    "kubeconfig": "/t/home/.kube/dirqual.config",
    "context": "kubernetes-admin@dirqual",
    "endpoint": "https://10.67.2.11:6443",
    "confirmedBy": "endpoint"
  },
  "real": {
    "kubernetesSkipped": null,
    "nodes": {
      "declared": 4,
      "registered": 4,
      "ready": 4,
      "error": null,
      "items": [
        {
          "name": "dirqual1",
          "ready": true,
          "roles": [
            "control-plane"
          ],
          "internalIp": "10.67.2.11",
          "kubeletVersion": "v1.31.4",
          "architecture": "amd64",
          "taints": [
            "node-role.kubernetes.io/control-plane"
          ],
          "blockingTaints": [
            {
              "key": "node-role.kubernetes.io/control-plane",
              "effect": "NoSchedule"
            }
          ]
        },
        {
          "name": "dirqual2",
          "ready": true,
          "roles": [],
          "internalIp": "10.67.2.12",
          "kubeletVersion": "v1.31.4",
          "architecture": "amd64"
        },
        {
          "name": "dirqual3",
          "ready": true,
          "roles": [],
          "internalIp": "10.67.2.13",
          "kubeletVersion": "v1.31.4",
          "architecture": "amd64"
        },
        {
          "name": "dirqual4",
          "ready": true,
          "roles": [],
          "internalIp": "10.67.2.14",
          "kubeletVersion": "v1.31.4",
          "architecture": "amd64"
        }
      ]
    },
    "layers": [
      {
        "id": "k8s",
        "title": "Kubernetes (kubeadm)",
        "state": "present",
        "evidence": [
          "4 nodes registered",
          "4/4 declared nodes Ready",
          "4 nodes with distinct InternalIPs",
          "4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)",
          "every APIService available (0 served by a Service)"
        ],
        "reason": "detected and healthy",
        "checks": [
          {
            "id": "k8s/registered",
            "verdict": "true",
            "evidence": "4 nodes registered"
          },
          {
            "id": "k8s/nodes-ready",
            "verdict": "true",
            "evidence": "4/4 declared nodes Ready"
          },
          {
            "id": "k8s/distinct-ips",
            "verdict": "true",
            "evidence": "4 nodes with distinct InternalIPs"
          },
          {
            "id": "k8s/schedulable",
            "verdict": "true",
            "evidence": "4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)"
          },
          {
            "id": "k8s/apiservices-available",
            "verdict": "true",
            "evidence": "every APIService available (0 served by a Service)"
          }
        ]
      },
      {
        "id": "cni",
        "title": "Cilium CNI",
        "state": "present",
        "evidence": [
          "API group cilium.io served",
          "DaemonSet kube-system/cilium rolled out (4/4 available)",
          "Deployment kube-system/cilium-operator rolled out (2/2 available)",
          "no node tainted node.cilium.io/agent-not-ready",
          "no version to compare on DaemonSet kube-system/cilium (cilium-agent), Deployment kube-system/cilium-operator (cilium-operator)"
        ],
        "reason": "detected and healthy",
        "checks": [
          {
            "id": "cni/api",
            "verdict": "true",
            "evidence": "API group cilium.io served"
          },
          {
            "id": "cni/agent-exists",
            "verdict": "true",
            "evidence": "DaemonSet kube-system/cilium rolled out (4/4 available)"
          },
          {
            "id": "cni/agent",
            "verdict": "true",
            "evidence": "DaemonSet kube-system/cilium rolled out (4/4 available)"
          },
          {
            "id": "cni/operator",
            "verdict": "true",
            "evidence": "Deployment kube-system/cilium-operator rolled out (2/2 available)"
          },
          {
            "id": "cni/agent-ready-taint",
            "verdict": "true",
            "evidence": "no node tainted node.cilium.io/agent-not-ready"
          },
          {
            "id": "cni/one-version",
            "verdict": "true",
            "evidence": "no version to compare on DaemonSet kube-system/cilium (cilium-agent), Deployment kube-system/cilium-operator (cilium-operator)"
          }
        ]
      },
      {
        "id": "ceph",
        "title": "Rook-Ceph cluster",
        "state": "present",
        "evidence": [
          "API group ceph.rook.io served",
          "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK",
          "3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a, rook-ceph-mon-b, rook-ceph-mon-c)",
          "3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster rook-ceph/rook-ceph .spec.mon.count)",
          "4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0, rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)",
          "ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty",
          "no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)",
          "mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)",
          "OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2), dirqual4 (3)"
        ],
        "reason": "detected and healthy",
        "checks": [
          {
            "id": "ceph/api",
            "verdict": "true",
            "evidence": "API group ceph.rook.io served"
          },
          {
            "id": "ceph/health",
            "verdict": "true",
            "evidence": "CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK"
          },
          {
            "id": "ceph/mons",
            "verdict": "true",
            "evidence": "3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a, rook-ceph-mon-b, rook-ceph-mon-c)"
          },
          {
            "id": "ceph/mon-count",
            "verdict": "true",
            "evidence": "3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster rook-ceph/rook-ceph .spec.mon.count)"
          },
          {
            "id": "ceph/osds",
            "verdict": "true",
            "evidence": "4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0, rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)"
          },
          {
            "id": "ceph/mon-quorum",
            "verdict": "true",
            "evidence": "ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty"
          },
          {
            "id": "ceph/one-version",
            "verdict": "true",
            "evidence": "no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)"
          },
          {
            "id": "ceph/mon-placement",
            "verdict": "true",
            "evidence": "mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)"
          },
          {
            "id": "ceph/osd-placement",
            "verdict": "true",
            "evidence": "OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2), dirqual4 (3)"
          }
        ]
      },
      {
        "id": "storage",
        "title": "Ceph RBD storage classes",
        "state": "present",
        "evidence": [
          "StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)",
          "CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes",
          "0 claims in 8 checked namespaces: none Lost or Pending too long; 0 volumes of rook-ceph.rbd.csi.ceph.com: none Failed"
        ],
        "reason": "detected and healthy",
        "checks": [
          {
            "id": "storage/class",
            "verdict": "true",
            "evidence": "StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)"
          },
          {
            "id": "storage/default-class",
            "verdict": "true",
            "evidence": "StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)"
          },
          {
            "id": "storage/csi-driver",
            "verdict": "true",
            "evidence": "CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes"
          },
          {
            "id": "storage/claims",
            "verdict": "true",
            "evidence": "0 claims in 8 checked namespaces: none Lost or Pending too long; 0 volumes of rook-ceph.rbd.csi.ceph.com: none Failed"
          }
        ]
      },
      {
        "id": "monitoring",
        "title": "Monitoring (kube-prometheus-stack)",
        "state": "present",
        "evidence": [
          "API group monitoring.coreos.com served",
          "Prometheus monitoring/kube-prometheus-stack-prometheus Available",
          "Alertmanager monitoring/kube-prometheus-stack-alertmanager Available",
          "StatefulSet monitoring/prometheus-kube-prometheus-stack-prometheus rolled out (1/1 ready)",
          "StatefulSet monitoring/alertmanager-kube-prometheus-stack-alertmanager rolled out (1/1 ready)",
          "Deployment monitoring/kube-prometheus-stack-grafana rolled out (1/1 available)"
        ],
        "reason": "detected and healthy",
        "checks": [
          {
            "id": "monitoring/api",
            "verdict": "true",
            "evidence": "API group monitoring.coreos.com served"
          },
          {
            "id": "monitoring/prometheus",
            "verdict": "true",
            "evidence": "Prometheus monitoring/kube-prometheus-stack-prometheus Available"
          },
          {
            "id": "monitoring/alertmanager",
            "verdict": "true",
            "evidence": "Alertmanager monitoring/kube-prometheus-stack-alertmanager Available"
          },
          {
            "id": "monitoring/prometheus-pods",
            "verdict": "true",
            "evidence": "StatefulSet monitoring/prometheus-kube-prometheus-stack-prometheus rolled out (1/1 ready)"
          },
          {
            "id": "monitoring/alertmanager-pods",
            "verdict": "true",
            "evidence": "StatefulSet monitoring/alertmanager-kube-prometheus-stack-alertmanager rolled out (1/1 ready)"
          },
          {
            "id": "monitoring/grafana",
            "verdict": "true",
            "evidence": "Deployment monitoring/kube-prometheus-stack-grafana rolled out (1/1 available)"
          }
        ]
      },
      {
        "id": "gitops",
        "title": "GitOps (Argo CD + Gitea)",
        "state": "present",
        "evidence": [
          "API group argoproj.io served",
          "Deployment argocd/argocd-server rolled out (1/1 available)",
          "Deployment argocd/argocd-repo-server rolled out (1/1 available)",
          "StatefulSet argocd/argocd-application-controller rolled out (1/1 ready)",
          "Deployment gitea/gitea rolled out (1/1 available)",
          "2/2 Application .status.sync.status = Synced",
          "2/2 Application .status.health.status = Healthy",
          "2/2 Application .status.operationState.phase not in Failed, Error",
          "2/2 Application without ComparisonError, InvalidSpecError, SyncError, DeletionError, UnknownError"
        ],
        "reason": "detected and healthy",
        "checks": [
          {
            "id": "gitops/api",
            "verdict": "true",
            "evidence": "API group argoproj.io served"
          },
          {
            "id": "gitops/server",
            "verdict": "true",
            "evidence": "Deployment argocd/argocd-server rolled out (1/1 available)"
          },
          {
            "id": "gitops/repo-server",
            "verdict": "true",
            "evidence": "Deployment argocd/argocd-repo-server rolled out (1/1 available)"
          },
          {
            "id": "gitops/application-controller",
            "verdict": "true",
            "evidence": "StatefulSet argocd/argocd-application-controller rolled out (1/1 ready)"
          },
          {
            "id": "gitops/gitea",
            "verdict": "true",
            "evidence": "Deployment gitea/gitea rolled out (1/1 available)"
          },
          {
            "id": "gitops/apps-synced",
            "verdict": "true",
            "evidence": "2/2 Application .status.sync.status = Synced"
          },
          {
            "id": "gitops/apps-healthy",
            "verdict": "true",
            "evidence": "2/2 Application .status.health.status = Healthy"
          },
          {
            "id": "gitops/apps-last-operation",
            "verdict": "true",
            "evidence": "2/2 Application .status.operationState.phase not in Failed, Error"
          },
          {
            "id": "gitops/apps-no-error-conditions",
            "verdict": "true",
            "evidence": "2/2 Application without ComparisonError, InvalidSpecError, SyncError, DeletionError, UnknownError"
          }
        ]
      },
      {
        "id": "registry",
        "title": "Container registry",
        "state": "present",
        "evidence": [
          "namespace registry exists",
          "Deployment registry/registry rolled out (1/1 available)"
        ],
        "reason": "detected and healthy",
        "checks": [
          {
            "id": "registry/namespace",
            "verdict": "true",
            "evidence": "namespace registry exists"
          },
          {
            "id": "registry/workloads",
            "verdict": "true",
            "evidence": "Deployment registry/registry rolled out (1/1 available)"
          }
        ]
      },
      {
        "id": "dataops",
        "title": "DataOps (CloudNativePG + Dagster + Marquez)",
        "state": "present",
        "evidence": [
          "API group postgresql.cnpg.io served",
          "Cluster dataops/pg .status.readyInstances = 3",
          "Cluster dataops/pg .status.phase = Cluster in healthy state",
          "1/1 Cluster ContinuousArchiving not False",
          "Cluster dataops/pg without .spec.backup: nothing to judge",
          "2/2 Deployment dataops/dagster-* rolled out (dagster-daemon, dagster-dagster-webserver)",
          "2/2 Deployment dataops/marquez* rolled out (marquez, marquez-web)"
        ],
        "reason": "detected and healthy",
        "checks": [
          {
            "id": "dataops/api",
            "verdict": "true",
            "evidence": "API group postgresql.cnpg.io served"
          },
          {
            "id": "dataops/pg-instances",
            "verdict": "true",
            "evidence": "Cluster dataops/pg .status.readyInstances = 3"
          },
          {
            "id": "dataops/pg-phase",
            "verdict": "true",
            "evidence": "Cluster dataops/pg .status.phase = Cluster in healthy state"
          },
          {
            "id": "dataops/pg-wal-archiving",
            "verdict": "true",
            "evidence": "1/1 Cluster ContinuousArchiving not False"
          },
          {
            "id": "dataops/pg-last-backup",
            "verdict": "true",
            "evidence": "Cluster dataops/pg without .spec.backup: nothing to judge"
          },
          {
            "id": "dataops/dagster",
            "verdict": "true",
            "evidence": "2/2 Deployment dataops/dagster-* rolled out (dagster-daemon, dagster-dagster-webserver)"
          },
          {
            "id": "dataops/marquez",
            "verdict": "true",
            "evidence": "2/2 Deployment dataops/marquez* rolled out (marquez, marquez-web)"
          }
        ]
      },
      {
        "id": "datalake",
        "title": "S3 datalake (Ceph object store)",
        "state": "absent",
        "evidence": [
          "no CephObjectStore in rook-ceph",
          "no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket"
        ],
        "reason": "no CephObjectStore in rook-ceph; no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket",
        "checks": [
          {
            "id": "datalake/object-store",
            "verdict": "false",
            "evidence": "no CephObjectStore in rook-ceph"
          },
          {
            "id": "datalake/bucket-class-exists",
            "verdict": "false",
            "evidence": "no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket"
          }
        ]
      },
      {
        "id": "certs",
        "title": "cert-manager",
        "state": "absent",
        "evidence": [
          "API group cert-manager.io not served"
        ],
        "reason": "API group cert-manager.io not served",
        "checks": [
          {
            "id": "certs/api",
            "verdict": "false",
            "evidence": "API group cert-manager.io not served"
          }
        ]
      }
    ]
  },
  "plan": {
    "empty": false,
    "install": [
      {
        "id": "datalake",
        "title": "S3 datalake (Ceph object store)",
        "hint": "ansible-playbook platform/datalake.yaml",
        "reason": "no CephObjectStore in rook-ceph; no StorageClass with provisioner rook-ceph.ceph.rook.io/bucket"
      },
      {
        "id": "certs",
        "title": "cert-manager",
        "hint": "ansible-playbook platform/cert-manager.yaml",
        "reason": "API group cert-manager.io not served"
      }
    ],
    "repair": [],
    "acknowledged": [],
    "undecided": [],
    "vmsToCreate": [],
    "vmsToStart": [],
    "vmsBroken": [],
    "vmsUndecided": []
  },
  "nestorVersion": "0.1.0",
  "observedAt": "NOW"
}
exit=0

"#]]);
    text_snap(&bed.redact(&stderr), str![]);
    let json = screen
        .find('{')
        .and_then(|i| screen.rfind('}').map(|j| &screen[i..=j]))
        .expect("a document on the terminal");
    let v: Value = serde_json::from_str(&json.replace("\r\n", "\n")).expect("json");
    crate::doc_schema::check(&v);
    assert_eq!(v["target"]["confirmedBy"], "endpoint", "{v}");
    // Another cluster is then refused by the endpoint check, not asked about.
    let wrong = bed.kubeconfig(&bed.tmp.path().join("other.config"), OTHER);
    let out = bed.pty_shell(&line, "", &[("KUBECONFIG", &wrong)]);
    let stderr = fs::read_to_string(&err).expect("stderr file");
    out.stdout_snap(str![[r#"
{
  "apiVersion": "nestor/v1",
  "kind": "Error",
  "message": "target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/other.config (rule env: the KUBECONFIG environment variable) chose it",
  "hint": "an exported KUBECONFIG wins over the topology: `unset KUBECONFIG`, or `eval \"$(kubectl nestor stack env dirqual)\"`",
  "exitCode": 3,
  "nestorVersion": "0.1.0"
}
exit=3

"#]]);
    text_snap(
        &bed.redact(&stderr),
        str![[r#"
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/other.config (rule env: the KUBECONFIG environment variable) chose it
hint: an exported KUBECONFIG wins over the topology: `unset KUBECONFIG`, or `eval "$(kubectl nestor stack env dirqual)"`

"#]],
    );
}

#[test]
fn the_operator_saying_no_names_the_rule() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let out = bed.pty(&["preview", "--no-color"], "n\n", &[]);
    out.code(3);
    out.stdout_snap(str![[r#"
Target for stack dirqual (prod):
  endpoint    https://10.67.2.11:6443 (matches the topology)
  context     kubernetes-admin@dirqual
  kubeconfig  /t/home/.kube/dirqual.config (rule: topology)
  nodes       https://10.67.2.11:6443 — dirqual1..4, 4/4 Ready
Is this the stack dirqual? [y/N] kubectl-nestor: error: target https://10.67.2.11:6443 not confirmed for stack dirqual: nothing was done; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: https://10.67.2.11:6443 is the endpoint stack dirqual's topology declares: if it is not that stack's cluster, the topology itself is wrong (fix `kubeconfig:` and `endpoint:` in /t/repo/stacks/dirqual.yaml); if it is, run again and answer y

"#]]);
    // The prompt said the endpoint matches the topology: the hint does not claim that the
    // topology's kubeconfig: and endpoint: disagree.
    // When it did not match (an exported KUBECONFIG chose another cluster), the hint says
    // what chose it and how to undo that.
    let wrong = bed.kubeconfig(&bed.tmp.path().join("other.config"), OTHER);
    let out = bed.pty(&["preview", "--no-color"], "n\n", &[("KUBECONFIG", &wrong)]);
    let screen = stdout_of(&out);
    assert_eq!(out.status.code(), Some(3), "{screen}");
    out.stdout_snap(str![[r#"
Target for stack dirqual (prod):
  endpoint    https://10.99.0.1:6443 (the topology's endpoint is https://10.67.2.11:6443)
  context     kubernetes-admin@dirqual
  kubeconfig  /t/other.config (rule: env)
  nodes       https://10.99.0.1:6443 — dirqual1..4, 4/4 Ready
  WARNING     this is not the topology's endpoint https://10.67.2.11:6443: rule env (the KUBECONFIG environment variable) chose this kubeconfig
Is this the stack dirqual? [y/N] kubectl-nestor: error: target https://10.99.0.1:6443 not confirmed for stack dirqual: nothing was done; kubeconfig /t/other.config (rule env: the KUBECONFIG environment variable) chose it
hint: if it is not the stack's cluster: an exported KUBECONFIG wins over the topology: `unset KUBECONFIG`, or `eval "$(kubectl nestor stack env dirqual)"`

"#]]);
}

/// The prompt says whether the endpoint matches the topology; a mismatch is a warning that
/// names the rule.
#[test]
fn the_prompt_says_whether_the_endpoint_matches_the_topology() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let out = bed.pty(&["preview", "--no-color"], "n\n", &[]);
    out.stdout_snap(str![[r#"
Target for stack dirqual (prod):
  endpoint    https://10.67.2.11:6443 (matches the topology)
  context     kubernetes-admin@dirqual
  kubeconfig  /t/home/.kube/dirqual.config (rule: topology)
  nodes       https://10.67.2.11:6443 — dirqual1..4, 4/4 Ready
Is this the stack dirqual? [y/N] kubectl-nestor: error: target https://10.67.2.11:6443 not confirmed for stack dirqual: nothing was done; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: https://10.67.2.11:6443 is the endpoint stack dirqual's topology declares: if it is not that stack's cluster, the topology itself is wrong (fix `kubeconfig:` and `endpoint:` in /t/repo/stacks/dirqual.yaml); if it is, run again and answer y

"#]]);

    let wrong = bed.kubeconfig(&bed.tmp.path().join("other.config"), OTHER);
    let out = bed.pty(&["preview", "--no-color"], "n\n", &[("KUBECONFIG", &wrong)]);
    out.code(3);
    out.stdout_snap(str![[r#"
Target for stack dirqual (prod):
  endpoint    https://10.99.0.1:6443 (the topology's endpoint is https://10.67.2.11:6443)
  context     kubernetes-admin@dirqual
  kubeconfig  /t/other.config (rule: env)
  nodes       https://10.99.0.1:6443 — dirqual1..4, 4/4 Ready
  WARNING     this is not the topology's endpoint https://10.67.2.11:6443: rule env (the KUBECONFIG environment variable) chose this kubeconfig
Is this the stack dirqual? [y/N] kubectl-nestor: error: target https://10.99.0.1:6443 not confirmed for stack dirqual: nothing was done; kubeconfig /t/other.config (rule env: the KUBECONFIG environment variable) chose it
hint: if it is not the stack's cluster: an exported KUBECONFIG wins over the topology: `unset KUBECONFIG`, or `eval "$(kubectl nestor stack env dirqual)"`

"#]]);
}

/// `NESTOR_NO_INPUT=1` is `--no-input`: no prompt even on a terminal, the endpoint decides.
#[test]
fn nestor_no_input_means_no_input() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let one = Path::new("1");
    let out = bed.pty(&["preview", "--no-color"], "", &[("NESTOR_NO_INPUT", one)]);
    out.code(0);
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
    let out = bed
        .cmd()
        .args(["preview", "-o", "json"])
        .env("NESTOR_NO_INPUT", "1")
        .run();
    assert_eq!(json_of(&out)["target"]["confirmedBy"], "endpoint");

    // With a wrong target it refuses (exit 3) instead of asking.
    let wrong = bed.kubeconfig(&bed.tmp.path().join("other.config"), OTHER);
    let out = bed.pty(
        &["preview", "--no-color"],
        "y\n",
        &[("NESTOR_NO_INPUT", one), ("KUBECONFIG", &wrong)],
    );
    out.code(3);
    out.stdout_snap(str![[r#"
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/other.config (rule env: the KUBECONFIG environment variable) chose it
hint: an exported KUBECONFIG wins over the topology: `unset KUBECONFIG`, or `eval "$(kubectl nestor stack env dirqual)"`

"#]]);

    // NESTOR_NO_INPUT=0 is not "no input": the prompt is back.
    let out = bed.pty(
        &["preview", "--no-color"],
        "n\n",
        &[("NESTOR_NO_INPUT", Path::new("0"))],
    );
    out.code(3);
    out.stdout_snap(str![[r#"
Target for stack dirqual (prod):
  endpoint    https://10.67.2.11:6443 (matches the topology)
  context     kubernetes-admin@dirqual
  kubeconfig  /t/home/.kube/dirqual.config (rule: topology)
  nodes       https://10.67.2.11:6443 — dirqual1..4, 4/4 Ready
Is this the stack dirqual? [y/N] kubectl-nestor: error: target https://10.67.2.11:6443 not confirmed for stack dirqual: nothing was done; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: https://10.67.2.11:6443 is the endpoint stack dirqual's topology declares: if it is not that stack's cluster, the topology itself is wrong (fix `kubeconfig:` and `endpoint:` in /t/repo/stacks/dirqual.yaml); if it is, run again and answer y

"#]]);
}

/// `stack select` says at once that an exported KUBECONFIG overrides the selection, instead
/// of the next preview failing with a mismatch.
#[test]
fn stack_select_warns_when_an_exported_kubeconfig_overrides_it() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    let own = bed.kubeconfig(&bed.home.join(".kube/dirqual.config"), ENDPOINT);
    let other = bed.kubeconfig(&bed.tmp.path().join("other.config"), OTHER);
    let out = bed
        .cmd()
        .args(["stack", "select", "dirqual"])
        .env("KUBECONFIG", &other)
        .run();
    out.code(0).stdout_snap(str![[r#"
selected stack dirqual (prod): /t/repo/stacks/current.yaml -> dirqual.yaml

"#]]).stderr_snap(str![[r#"
kubectl-nestor: warning: KUBECONFIG is exported (/t/other.config) and overrides stack dirqual's selection: rule env wins over the topology, so the next commands read that file's cluster, not its kubeconfig /t/home/.kube/dirqual.config; `unset KUBECONFIG`, or `eval "$(kubectl nestor stack env dirqual)"`

"#]]);
    // The stack's own file exported (after `eval "$(kubectl nestor stack env)"`): silent.
    let out = bed
        .cmd()
        .args(["stack", "select", "dirqual"])
        .env("KUBECONFIG", &own)
        .run();
    out.code(0).stderr_snap(str![]);
    // Nothing exported: silent.
    let out = bed.cmd().args(["stack", "select", "dirqual"]).run();
    out.code(0).stderr_snap(str![]);
    assert!(
        bed.calls("kubectl").is_empty(),
        "select without a terminal reads no cluster"
    );
}

/// The NAME column starts at the same place with and without an active stack (the `*`
/// column is one character wide either way).
#[test]
fn stack_list_columns_do_not_shift_with_an_active_stack() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.write_stack("bench", LIMA_BENCH);
    let list = || {
        let out = bed.cmd().args(["stack", "list"]).run();
        out.code(0);
        stdout_of(&out)
    };
    let none = list();
    bed.select("dirqual");
    let one = list();
    assert_eq!(
        none,
        "   NAME     KIND  KUBECONFIG\n   bench    lima  bench/lima/.work/kubeconfig\n   dirqual  prod  ~/.kube/dirqual.config\n"
    );
    assert_eq!(
        one,
        "   NAME     KIND  KUBECONFIG\n   bench    lima  bench/lima/.work/kubeconfig\n*  dirqual  prod  ~/.kube/dirqual.config\n"
    );
}

/// The exit-code contract, every code in one place, each with the same command a script
/// runs: `preview --no-input --detailed-exitcode -o json`.
#[test]
fn every_exit_code_of_the_contract() {
    let script = ["preview", "--no-input", "--detailed-exitcode", "-o", "json"];
    let code = |bed: &Bed| {
        let out = bed.cmd().args(script).run();
        (out.status.code(), stdout_of(&out), stderr_of(&out))
    };
    let forbidden = Answer::Status(403);

    // 0: nothing to do and everything decided.
    let (c, out, err) = code(&Bed::dirqual(ENDPOINT, &Cluster::dirqual_full()));
    assert_eq!(c, Some(0), "{err}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).expect("json")["plan"]["empty"],
        true
    );

    // 1: bad input (no stacks directory anywhere).
    let bed = Bed::new();
    let out = bed
        .cmd()
        .args(script)
        .arg("--stacks-dir")
        .arg(bed.tmp.path().join("none"))
        .run();
    out.code(1);
    // With -o json the error is a document on stdout too (SPEC §16).
    let doc = out.json();
    assert_eq!(
        (doc["kind"].as_str(), doc["exitCode"].as_u64()),
        (Some("Error"), Some(1))
    );

    // 2: work to do (datalake and certs to install).
    let (c, _, err) = code(&Bed::dirqual(ENDPOINT, &Cluster::dirqual()));
    assert_eq!(c, Some(2), "{err}");

    // 3: target refused (the kubeconfig points at another cluster).
    let mismatched = Bed::dirqual(OTHER, &Cluster::dirqual());
    let run = mismatched.cmd().args(script).run();
    // The whole error: the target mismatch, both endpoints, the hint.
    run.code(3).stderr_snap(str![[r#"
kubectl-nestor: error: target mismatch for stack dirqual: the kubeconfig's server is https://10.99.0.1:6443, the topology's endpoint is https://10.67.2.11:6443; kubeconfig /t/home/.kube/dirqual.config (rule topology: the topology's kubeconfig:) chose it
hint: the topology's kubeconfig: and endpoint: disagree: fix whichever is wrong in stack dirqual's file (`kubectl nestor target` shows both)

"#]]);
    let doc: Value = serde_json::from_str(&run.stdout).expect("an Error document, no plan");
    crate::doc_schema::check(&doc);
    assert_eq!(
        (doc["kind"].as_str(), doc["exitCode"].as_u64()),
        (Some("Error"), Some(3))
    );

    // 4: cluster unreachable.
    let bed = Bed::dirqual(
        ENDPOINT,
        &Cluster::empty()
            .fault("/=proxy-error:dial tcp 10.67.2.11:6443: connect: connection refused"),
    );
    let (c, out, err) = code(&bed);
    assert_eq!(c, Some(4), "{err}");
    let doc: Value = serde_json::from_str(&out).expect("an Error document, no plan");
    crate::doc_schema::check(&doc);
    assert_eq!(
        (doc["kind"].as_str(), doc["exitCode"].as_u64()),
        (Some("Error"), Some(4))
    );

    // 5: nothing to do that nestor knows of, but something undecided.
    let (c, out, err) = code(&Bed::dirqual(
        ENDPOINT,
        &Cluster::dirqual_full().with("cephclusters.ceph.rook.io", forbidden),
    ));
    assert_eq!(c, Some(5), "{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    crate::doc_schema::check(&v);
    assert_eq!(v["plan"]["empty"], false);
    assert_eq!(v["plan"]["undecided"][0]["id"], "ceph");
}

/// Issue 31 item 8: a snapshot dated ahead of this machine's clock (here 2999) is refused,
/// named as from the future, never replayed as fresh: exit 1 with a hint, nothing on stdout,
/// nothing written, no kubectl. The days ahead depend on today's date, so the line is
/// compared up to them.
#[test]
fn a_snapshot_from_the_future_is_refused_naming_it() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let snap = bed.tmp.path().join("future.json");
    bed.cmd()
        .args(["discover", "-o", "json", "--save"])
        .arg(&snap)
        .run()
        .code(0);
    let mut saved: Value =
        serde_json::from_str(&fs::read_to_string(&snap).expect("snapshot")).expect("json");
    saved["takenAt"] = Value::from("2999-01-01T00:00:00Z");
    fs::write(&snap, saved.to_string()).expect("write");
    let calls = bed.calls("kubectl").len();
    let before = bed.tree();
    let out = bed
        .cmd()
        .args(["preview", "--no-input", "--snapshot"])
        .arg(&snap)
        .run();
    // The whole error; how far ahead (in days) and this machine's clock change with the
    // day the test runs, so they are `[..]`.
    out.code(1).stderr_snap(str![[r#"
kubectl-nestor: error: snapshot /t/future.json is from the future: taken 2999-01-01T00:00:00Z, [..]d ahead of this machine's clock ([..])
hint: check this machine's clock and the one that took it, or take the snapshot again with `kubectl nestor discover --save FILE`

"#]]);
    assert_eq!(stdout_of(&out), "");
    assert_eq!(bed.tree(), before, "nothing written");
    assert_eq!(bed.calls("kubectl").len(), calls, "no kubectl");
}
