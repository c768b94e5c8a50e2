//! A gate's `--explain` (SPEC §17) through the real kubectl against the replay server: under
//! each rule, every read it was decided from, what that read showed and the command that shows
//! it by hand. Each printed command, run as printed by `sh` with the real kubectl, succeeds; the
//! commands are exactly the GETs the server received (nestor prints what it sent, nothing
//! else); a forbidden read says so in its fact.

use std::collections::BTreeSet;

use crate::bed_or_skip;
use crate::gate::stable;
use crate::support::*;

/// Run a printed command line as a person would: `sh -c LINE`, the real kubectl on PATH.
pub fn run_as_printed(bed: &E2e, line: &str) -> Outcome {
    let dir = bed.tmp.path().join("explain-bin");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let link = dir.join("kubectl");
    if !link.exists() {
        std::os::unix::fs::symlink(&bed.kubectl, &link).expect("symlink");
    }
    let mut c = Run::new("/bin/sh");
    c.args(["-c", line])
        .env("HOME", &bed.home)
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .env_remove("KUBECONFIG")
        .env("KUBERNETES_MASTER", decoy().url());
    run(&c)
}

/// The GETs the server received (path and query as sent), besides kubectl proxy's own
/// `/version` as it starts.
fn received(bed: &E2e) -> BTreeSet<String> {
    bed.server
        .audit()
        .iter()
        .filter(|e| e.path != "/version")
        .map(|e| match e.query.as_str() {
            "" => e.path.clone(),
            // kubectl's `get --raw` writes the flag-like query `verbose` as `verbose=`.
            "verbose=" => format!("{}?verbose", e.path),
            // ... and a space `%20` as `+`: the same query.
            q => format!("{}?{}", e.path, q.replace('+', "%20")),
        })
        .collect()
}

fn commands(doc: &serde_json::Value) -> BTreeSet<String> {
    doc["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .flat_map(|r| r["explain"].as_array().cloned().unwrap_or_default())
        .flat_map(|e| e["commands"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c.as_str().map(String::from))
        .collect()
}

/// `gate drain dirqual3 --no-ssh --explain`, the kubeconfig's path written KUBECONFIG.
const DRAIN_DIRQUAL3: &str = r#"gate drain dirqual3 on SERVER (context replay, rule: topology)
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
explain:
  drain-pdb-blocks  fails
    pdbs: 4 PodDisruptionBudgets: dataops/pg allows 1, dataops/pg-primary allows
    0, rook-ceph/rook-ceph-mon-pdb allows 1, rook-ceph/rook-ceph-osd allows 1
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /apis/policy/v1/poddisruptionbudgets
    node-pods: 3 pods: dataops/pg-1, rook-ceph/rook-ceph-mon-c-6d4f8c7b9-xcq2w,
    rook-ceph/rook-ceph-osd-2-7c9b5d6f4-k2m8p
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw '/api/v1/pods?fieldSelector=spec.nodeName%3Ddirqual3'
    cnpg-clusters: 1 Clusters: dataops/pg 3 instances, primary pg-1, Ready: pg-1
    pg-2 pg-3
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /apis/postgresql.cnpg.io/v1/clusters
  drain-ceph-health  holds
    ceph-cluster: CephCluster rook-ceph/rook-ceph: HEALTH_OK, 3 mons
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /apis/ceph.rook.io/v1/cephclusters
  drain-mon-majority  holds
    ceph-cluster: CephCluster rook-ceph/rook-ceph: HEALTH_OK, 3 mons
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /apis/ceph.rook.io/v1/cephclusters
    mon-pods: 3 pods: rook-ceph/rook-ceph-mon-a-6d4f8c7b9-xaq2w on dirqual1
    Ready quay.io/ceph/ceph:v18.2.4, rook-ceph/rook-ceph-mon-b-6d4f8c7b9-xbq2w
    on dirqual2 Ready quay.io/ceph/ceph:v18.2.4,
    rook-ceph/rook-ceph-mon-c-6d4f8c7b9-xcq2w on dirqual3 Ready
    quay.io/ceph/ceph:v18.2.4
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw '/api/v1/namespaces/rook-ceph/pods?labelSelector=app%3Drook-ceph-mon'
  drain-osd-hosts  holds
    ceph-pools: 1 pools: CephBlockPool rook-ceph/replicapool replicated size 3
    across hosts
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /apis/ceph.rook.io/v1/cephblockpools
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /apis/ceph.rook.io/v1/cephfilesystems
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /apis/ceph.rook.io/v1/cephobjectstores
    osd-pods: 4 pods: rook-ceph/rook-ceph-osd-0-7c9b5d6f4-k0m8p on dirqual1
    Ready quay.io/ceph/ceph:v18.2.4, rook-ceph/rook-ceph-osd-1-7c9b5d6f4-k1m8p
    on dirqual2 Ready quay.io/ceph/ceph:v18.2.4,
    rook-ceph/rook-ceph-osd-2-7c9b5d6f4-k2m8p on dirqual3 Ready
    quay.io/ceph/ceph:v18.2.4, rook-ceph/rook-ceph-osd-3-7c9b5d6f4-k3m8p on
    dirqual4 Ready quay.io/ceph/ceph:v18.2.4
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw '/api/v1/namespaces/rook-ceph/pods?labelSelector=app%3Drook-ceph-osd'
  drain-control-plane  holds
    nodes: 4 nodes: dirqual1 Ready kubelet v1.31.4, dirqual2 Ready kubelet
    v1.31.4, dirqual3 Ready kubelet v1.31.4, dirqual4 Ready kubelet v1.31.4
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /api/v1/nodes
  drain-single-control-plane  holds
    nodes: 4 nodes: dirqual1 Ready kubelet v1.31.4, dirqual2 Ready kubelet
    v1.31.4, dirqual3 Ready kubelet v1.31.4, dirqual4 Ready kubelet v1.31.4
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /api/v1/nodes
  drain-etcd-majority  holds
    nodes: 4 nodes: dirqual1 Ready kubelet v1.31.4, dirqual2 Ready kubelet
    v1.31.4, dirqual3 Ready kubelet v1.31.4, dirqual4 Ready kubelet v1.31.4
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /api/v1/nodes
    etcd-pods: 1 pods: kube-system/etcd-dirqual1 on dirqual1 Ready
    registry.k8s.io/etcd:3.5.16-0
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw '/api/v1/namespaces/kube-system/pods?labelSelector=component%3Detcd'
  drain-node-bound-volumes  holds
    node-pods: 3 pods: dataops/pg-1, rook-ceph/rook-ceph-mon-c-6d4f8c7b9-xcq2w,
    rook-ceph/rook-ceph-osd-2-7c9b5d6f4-k2m8p
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw '/api/v1/pods?fieldSelector=spec.nodeName%3Ddirqual3'
    pvs: 0 PersistentVolumes
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /api/v1/persistentvolumes
    nodes: 4 nodes: dirqual1 Ready kubelet v1.31.4, dirqual2 Ready kubelet
    v1.31.4, dirqual3 Ready kubelet v1.31.4, dirqual4 Ready kubelet v1.31.4
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /api/v1/nodes
  drain-unmanaged-pods  holds
    node-pods: 3 pods: dataops/pg-1, rook-ceph/rook-ceph-mon-c-6d4f8c7b9-xcq2w,
    rook-ceph/rook-ceph-osd-2-7c9b5d6f4-k2m8p
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw '/api/v1/pods?fieldSelector=spec.nodeName%3Ddirqual3'
    daemonsets: 4 DaemonSets: kube-system/cilium, kube-system/cilium-envoy,
    monitoring/kube-prometheus-stack-prometheus-node-exporter,
    rook-ceph/csi-rbdplugin
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /apis/apps/v1/daemonsets
  drain-emptydir  holds
    node-pods: 3 pods: dataops/pg-1, rook-ceph/rook-ceph-mon-c-6d4f8c7b9-xcq2w,
    rook-ceph/rook-ceph-osd-2-7c9b5d6f4-k2m8p
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw '/api/v1/pods?fieldSelector=spec.nodeName%3Ddirqual3'
  drain-capacity  holds
    nodes: 4 nodes: dirqual1 Ready kubelet v1.31.4, dirqual2 Ready kubelet
    v1.31.4, dirqual3 Ready kubelet v1.31.4, dirqual4 Ready kubelet v1.31.4
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /api/v1/nodes
    node-pods: 3 pods: dataops/pg-1, rook-ceph/rook-ceph-mon-c-6d4f8c7b9-xcq2w,
    rook-ceph/rook-ceph-osd-2-7c9b5d6f4-k2m8p
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw '/api/v1/pods?fieldSelector=spec.nodeName%3Ddirqual3'
    cluster-pods: requests of the pods not terminated on 4 nodes: dirqual1 1.5
    CPU, 3.0 GiB, dirqual2 1.5 CPU, 3.0 GiB, dirqual3 1.5 CPU, 3.0 GiB, dirqual4
    1 CPU, 2.0 GiB
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw '/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed'
  drain-time-sync  skipped
    host-time-sync: not read: --no-ssh
    nodes: 4 nodes: dirqual1 Ready kubelet v1.31.4, dirqual2 Ready kubelet
    v1.31.4, dirqual3 Ready kubelet v1.31.4, dirqual4 Ready kubelet v1.31.4
      $ kubectl --kubeconfig KUBECONFIG --context replay get --raw /api/v1/nodes
"#;

#[test]
fn gate_drain_explain_text_names_each_rules_reads_and_commands() {
    let (bed, r) = bed_or_skip!(gate(
        &[],
        &["drain", "dirqual3", "--no-ssh", "--explain"],
        2
    ));
    let text = stable(&r).replace(&bed.kubeconfig.display().to_string(), "KUBECONFIG");
    assert_eq!(text, DRAIN_DIRQUAL3, "{r:?}");
    r.stderr_eq("");
    assert_read_only(&bed.server);
}

/// The commands printed are exactly the GETs the server received, each runs as printed
/// through the real kubectl and answers what the gate read (the same list kind, or the
/// readiness checks); the same for the upgrade gates.
#[test]
fn gate_explain_prints_exactly_the_gets_it_sent_and_each_runs_as_printed() {
    for (args, code, kinds) in [
        (
            &["drain", "dirqual3", "--no-ssh"][..],
            2,
            &[
                "PodDisruptionBudgetList",
                "PodList",
                "NodeList",
                "PersistentVolumeList",
                "CephClusterList",
                "CephBlockPoolList",
                "CephFilesystemList",
                "CephObjectStoreList",
                "DaemonSetList",
                "ClusterList",
            ][..],
        ),
        (
            &["upgrade", "kubernetes", "1.32", "--no-ssh"][..],
            0,
            &[
                "NodeList",
                "PodList",
                "PodDisruptionBudgetList",
                "CustomResourceDefinitionList",
                "DaemonSet",
                "Deployment",
                "FlowSchemaList",
                "PriorityLevelConfigurationList",
                "Status",
            ][..],
        ),
        (
            &["upgrade", "rook", "1.17"][..],
            0,
            &[
                "NodeList",
                "PodList",
                "Deployment",
                "DeploymentList",
                "CephClusterList",
            ][..],
        ),
        (
            &["upgrade", "cilium", "1.19"][..],
            2,
            &["NodeList", "PodList", "DaemonSet", "Deployment"][..],
        ),
    ] {
        let bed = bed_or_skip!(E2e::new("dirqual-gates", &[]));
        // cilium|rook: the stack ends at the component's layer. The layers after it are read
        // by preview's pipeline, whose GETs `--explain` does not print as commands (their
        // fact line says each layer's state; `preview --explain` shows their commands).
        let ends_at = match args.get(1) {
            Some(&"cilium") => Some("[k8s, cni]"),
            Some(&"rook") => Some("[k8s, cni, ceph]"),
            Some(_) | None => None,
        };
        if let Some(layers) = ends_at {
            let topology = dirqual_topology(&bed.server.url()).replace(LAYERS, layers);
            bed.write_stack("dirqual", &topology);
        }
        let mut all = vec!["gate"];
        all.extend_from_slice(args);
        all.extend(["--no-input", "--explain", "-o", "json"]);
        let r = bed.run(&all);
        r.code(code);
        let doc = r.json();
        let printed = commands(&doc);
        let sent = received(&bed);
        let prefix = format!(
            "kubectl --kubeconfig {} --context replay get --raw ",
            bed.kubeconfig.display()
        );
        let targets: BTreeSet<String> = printed
            .iter()
            .map(|c| {
                let t = c.strip_prefix(&prefix).unwrap_or_else(|| panic!("{c}"));
                t.trim_matches('\'').to_string()
            })
            .collect();
        assert_eq!(targets, sent, "{args:?}");
        let before = bed.server.audit().len();
        for c in &printed {
            let out = run_as_printed(&bed, c);
            let target = c.strip_prefix(&prefix).unwrap_or_default();
            if target.contains("/readyz") {
                out.code(0);
                assert!(
                    out.stdout.ends_with("readyz check passed\n"),
                    "{c}: {}",
                    out.stdout
                );
                continue;
            }
            // A 404 (an API or object the server does not serve) is kubectl's error, as
            // the gate read it.
            if out.code == Some(0) {
                let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
                let kind = v["kind"].as_str().unwrap_or_default();
                assert!(kinds.contains(&kind), "{c}: {kind}");
            } else {
                assert!(
                    out.stderr.contains("NotFound") || out.stderr.contains("not found"),
                    "{c}: {}",
                    out.stderr
                );
            }
        }
        // Run by hand, they ask the server for nothing the gate did not.
        assert!(bed.server.audit().len() > before, "{args:?}");
        assert_eq!(received(&bed), sent, "{args:?}");
        assert_read_only(&bed.server);
    }
}

/// A forbidden read is named in the fact of every rule it decides, as it failed.
#[test]
fn gate_explain_names_a_forbidden_read_in_its_rules() {
    let (_bed, r) = bed_or_skip!(gate(
        &["GET /apis/policy/v1/poddisruptionbudgets=403"],
        &["drain", "dirqual4", "--no-ssh", "--explain", "-o", "json"],
        5
    ));
    let doc = r.json();
    let rule = doc["rules"]
        .as_array()
        .and_then(|rs| rs.iter().find(|x| x["rule"] == "drain-pdb-blocks"))
        .cloned()
        .expect("drain-pdb-blocks");
    assert_eq!(rule["status"], "unknown", "{rule}");
    assert_eq!(rule["explain"][0]["read"], "pdbs", "{rule}");
    let fact = rule["explain"][0]["fact"].as_str().unwrap_or_default();
    assert!(fact.starts_with("failed (Forbidden): "), "{fact}");
    // Without --explain, no rule carries it.
    let plain = _bed.run(&[
        "gate",
        "drain",
        "dirqual4",
        "--no-ssh",
        "--no-input",
        "-o",
        "json",
    ]);
    assert!(plain.json()["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .all(|x| x.get("explain").is_none()));
}
