//! The clusters every scenario starts from, built from [`builders`](crate::builders) and
//! [`platform`](crate::platform): `dirqual` (healthy 4-node bare-metal prod), `dirqual-full`
//! (+ datalake and cert-manager), `degraded` (Ceph HEALTH_WARN, dirqual3 NotReady), `bench`
//! (3-node lima bench, k8s + Cilium) and `big` (150 nodes, 300 CRDs with ~100 KB schemas,
//! 1000 namespaces, 2000 deployments, plus the dirqual layers), and the layers of dirqual
//! (k8s, Cilium, Rook-Ceph, storage, monitoring, gitops, registry, dataops) they are made of.
//!
//! The JSON files under `crates/replay/fixtures/` are the output of
//! `nestor-replay --generate NAME`; a test keeps them in sync with this code. Objects are
//! shaped like a real apiserver's (labels, conditions, nodeInfo, CRD status), every
//! custom type comes with its `CustomResourceDefinition`.

use crate::builders::{
    big_schema, custom, daemonset, deployment, node, small_schema, statefulset, storage_class,
    Builder, CrdSpec, NodeSpec, K8S_VERSION, T_CEPH, T_CILIUM, T_DATA, T_INSTALL, T_LAYERS,
};
use crate::fixture::Fixture;
use serde_json::{json, Value};

fn dirqual_node(i: usize, ready: bool) -> Value {
    let name = format!("dirqual{i}");
    let ip = format!("10.67.2.{}", 10 + i);
    let cidr = format!("10.244.{}.0/24", i - 1);
    node(&NodeSpec {
        name: &name,
        ip: &ip,
        control_plane: i == 1,
        ready,
        kubelet: K8S_VERSION,
        os_image: "Debian GNU/Linux 12 (bookworm)",
        kernel: "6.1.0-28-amd64",
        pod_cidr: &cidr,
        cpus: if i == 1 { 16 } else { 32 },
        memory_ki: if i == 1 { 65_765_432 } else { 131_841_244 },
    })
}

/// (kind, plural, short names, printer columns) of a Rook CRD.
type CephKind<'a> = (
    &'a str,
    &'a str,
    &'a [&'a str],
    &'a [(&'a str, &'a str, &'a str)],
);

/// Everything in dirqual, for `nodes` nodes (4 in the real one).
pub(crate) fn dirqual_layers(
    b: &mut Builder,
    nodes: usize,
    not_ready: &[usize],
    ceph_health: &str,
) {
    add_k8s(b, nodes, not_ready);
    add_cilium(b, nodes);
    add_rook_crds(b);
    add_objectbucket_crds(b);
    add_ceph_cluster(b, ceph_health);
    add_rook_daemons(b, nodes, not_ready);
    add_storage(b, nodes);
    add_monitoring(b, nodes, not_ready);
    add_gitops(b);
    add_registry(b);
    add_dataops(b);
    crate::platform::add_platform_gates(b, nodes);
}

/// The k8s layer: the base namespaces, the nodes, CoreDNS.
fn add_k8s(b: &mut Builder, nodes: usize, not_ready: &[usize]) {
    // k8s
    for ns in ["default", "kube-node-lease", "kube-public", "kube-system"] {
        b.ns(ns, T_INSTALL);
    }
    for i in 1..=nodes {
        b.obj(dirqual_node(i, !not_ready.contains(&i)));
    }
    b.obj(deployment(
        "kube-system",
        "coredns",
        "registry.k8s.io/coredns/coredns:v1.11.3",
        2,
        2,
        T_INSTALL,
    ));
}

/// The cni layer: Cilium's CRDs (the LB-IPAM pool's too), agents, operator, a CiliumNode per
/// node.
fn add_cilium(b: &mut Builder, nodes: usize) {
    let n = nodes as i64;
    // cni: Cilium
    let cilium_ver = "v2";
    let cni_kinds = [
        (
            "CiliumNetworkPolicy",
            "ciliumnetworkpolicies",
            true,
            &["cnp", "ciliumnp"][..],
        ),
        (
            "CiliumClusterwideNetworkPolicy",
            "ciliumclusterwidenetworkpolicies",
            false,
            &["ccnp"][..],
        ),
        (
            "CiliumEndpoint",
            "ciliumendpoints",
            true,
            &["cep", "ciliumep"][..],
        ),
        (
            "CiliumIdentity",
            "ciliumidentities",
            false,
            &["ciliumid"][..],
        ),
        ("CiliumNode", "ciliumnodes", false, &["cn", "ciliumn"][..]),
    ];
    for (kind, plural, namespaced, short) in cni_kinds {
        b.crd(
            &CrdSpec {
                group: "cilium.io",
                version: cilium_ver,
                kind,
                plural,
                namespaced,
                short,
                categories: &["cilium"],
                columns: &[],
            },
            small_schema(),
            T_CILIUM,
        );
    }
    crate::platform::add_pool_crd(b, T_CILIUM);
    b.obj(daemonset(
        "kube-system",
        "cilium",
        "quay.io/cilium/cilium:v1.16.5",
        n,
        n,
        T_CILIUM,
    ));
    b.obj(daemonset(
        "kube-system",
        "cilium-envoy",
        "quay.io/cilium/cilium-envoy:v1.30.8",
        n,
        n,
        T_CILIUM,
    ));
    b.obj(deployment(
        "kube-system",
        "cilium-operator",
        "quay.io/cilium/operator-generic:v1.16.5",
        2,
        2,
        T_CILIUM,
    ));
    for i in 1..=nodes {
        b.obj(custom(
            "cilium.io/v2",
            "CiliumNode",
            None,
            &format!("dirqual{i}"),
            json!({"addresses": [{"ip": format!("10.67.2.{}", 10 + i), "type": "InternalIP"}],
                   "ipam": {"podCIDRs": [format!("10.244.{}.0/24", i - 1)]}}),
            json!({"ipam": {"operator-status": {}}}),
            T_CILIUM,
        ));
    }
}

/// Rook installs every CRD it owns, object stores included.
fn add_rook_crds(b: &mut Builder) {
    // ceph: Rook installs every CRD it owns, object stores included, plus objectbucket.io.
    b.ns("rook-ceph", T_CEPH);
    let ceph_kinds: [CephKind; 6] = [
        (
            "CephCluster",
            "cephclusters",
            &[],
            &[
                ("DataDirHostPath", "string", ".spec.dataDirHostPath"),
                ("MonCount", "string", ".spec.mon.count"),
                ("Age", "date", ".metadata.creationTimestamp"),
                ("Phase", "string", ".status.phase"),
                ("Message", "string", ".status.message"),
                ("Health", "string", ".status.ceph.health"),
                ("External", "boolean", ".spec.external.enable"),
                ("FSID", "string", ".status.ceph.fsid"),
            ],
        ),
        (
            "CephBlockPool",
            "cephblockpools",
            &["cephbp"],
            &[
                ("Phase", "string", ".status.phase"),
                ("Type", "string", ".status.info.type"),
                ("FailureDomain", "string", ".status.info.failureDomain"),
                ("Age", "date", ".metadata.creationTimestamp"),
            ],
        ),
        (
            "CephFilesystem",
            "cephfilesystems",
            &[],
            &[
                ("ActiveMDS", "string", ".spec.metadataServer.activeCount"),
                ("Age", "date", ".metadata.creationTimestamp"),
                ("Phase", "string", ".status.phase"),
            ],
        ),
        (
            "CephObjectStore",
            "cephobjectstores",
            &[],
            &[
                ("Phase", "string", ".status.phase"),
                ("Endpoint", "string", ".status.info.endpoint"),
                ("SecureEndpoint", "string", ".status.info.secureEndpoint"),
                ("Age", "date", ".metadata.creationTimestamp"),
            ],
        ),
        (
            "CephObjectStoreUser",
            "cephobjectstoreusers",
            &["rcou", "objectuser"],
            &[
                ("Phase", "string", ".status.phase"),
                ("Age", "date", ".metadata.creationTimestamp"),
            ],
        ),
        (
            "CephBucketNotification",
            "cephbucketnotifications",
            &[],
            &[],
        ),
    ];
    for (kind, plural, short, columns) in ceph_kinds {
        b.crd(
            &CrdSpec {
                group: "ceph.rook.io",
                version: "v1",
                kind,
                plural,
                namespaced: true,
                short,
                categories: &[],
                columns,
            },
            small_schema(),
            T_CEPH,
        );
    }
}

/// objectbucket.io, as every Rook install has it.
fn add_objectbucket_crds(b: &mut Builder) {
    b.crds(
        "objectbucket.io",
        "v1alpha1",
        true,
        &[("ObjectBucketClaim", "objectbucketclaims")],
        T_CEPH,
    );
    b.crds(
        "objectbucket.io",
        "v1alpha1",
        false,
        &[("ObjectBucket", "objectbuckets")],
        T_CEPH,
    );
}

/// Rook's mon endpoints and the CephCluster, its Ceph health `ceph_health`.
fn add_ceph_cluster(b: &mut Builder, ceph_health: &str) {
    // The mon endpoints Rook keeps: every mon in quorum (`outOfQuorum` empty). Its other
    // keys are never decoded by nestor.
    b.obj(json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "rook-ceph-mon-endpoints", "namespace": "rook-ceph", "creationTimestamp": T_CEPH,
                     "ownerReferences": [{"apiVersion": "ceph.rook.io/v1", "kind": "CephCluster", "name": "rook-ceph",
                                          "uid": crate::fixture::uid_for("ceph.rook.io/v1/CephCluster/rook-ceph/rook-ceph"),
                                          "controller": true, "blockOwnerDeletion": true}]},
        "data": {
            "csi-cluster-config-json": "[{\"clusterID\":\"rook-ceph\",\"monitors\":[\"10.67.2.11:6789\",\"10.67.2.12:6789\",\"10.67.2.13:6789\"]}]",
            "data": "a=10.67.2.11:6789,b=10.67.2.12:6789,c=10.67.2.13:6789",
            "mapping": "{\"node\":{\"a\":{\"Name\":\"dirqual1\",\"Hostname\":\"dirqual1\",\"Address\":\"10.67.2.11\"}}}",
            "maxMonId": "2",
            "outOfQuorum": ""
        }
    }));
    let (ceph_details, ceph_msg) = if ceph_health == "HEALTH_OK" {
        (json!({}), "Cluster created successfully")
    } else {
        (
            json!({
                "OSD_DOWN": {"message": "1 osds down", "severity": "HEALTH_WARN"},
                "OSD_HOST_DOWN": {"message": "1 host (1 osds) down", "severity": "HEALTH_WARN"},
                "PG_DEGRADED": {"message": "Degraded data redundancy: 2461/7383 objects degraded (33.333%), 97 pgs degraded, 97 pgs undersized", "severity": "HEALTH_WARN"}
            }),
            "Cluster created successfully",
        )
    };
    b.obj(custom(
        "ceph.rook.io/v1",
        "CephCluster",
        Some("rook-ceph"),
        "rook-ceph",
        json!({
            "cephVersion": {"image": "quay.io/ceph/ceph:v18.2.4"},
            "dataDirHostPath": "/var/lib/rook",
            "mon": {"count": 3, "allowMultiplePerNode": false},
            "mgr": {"count": 2, "modules": [{"name": "rook", "enabled": true}]},
            "dashboard": {"enabled": true, "ssl": true},
            "storage": {"useAllNodes": true, "useAllDevices": false, "deviceFilter": "^nvme1n1"},
            "external": {}
        }),
        json!({
            "phase": "Ready",
            "state": "Created",
            "message": ceph_msg,
            "ceph": {
                "health": ceph_health,
                "fsid": "7c9a3f2e-51d4-4b8e-9a0c-2d6e1f4b3a85",
                // Rook checks Ceph every minute: a healthy operator wrote this just now.
                "lastChecked": crate::when::from_now(-45),
                "details": ceph_details,
                "capacity": {"bytesAvailable": 11_489_051_070_464_u64, "bytesTotal": 12_002_338_488_320_u64, "bytesUsed": 513_287_417_856_u64, "lastUpdated": "2025-03-02T07:40:58Z"},
                "versions": {"mon": {"ceph version 18.2.4 (e7ad5345525c7aa95470c26863873b581076945d) reef (stable)": 3}}
            },
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "ClusterCreated", "message": "Cluster created successfully", "lastHeartbeatTime": "2025-03-02T07:40:58Z", "lastTransitionTime": T_CEPH}
            ],
            "version": {"image": "quay.io/ceph/ceph:v18.2.4", "version": "18.2.4-0"},
            "observedGeneration": 1
        }),
        T_CEPH,
    ));
}

/// The block pool, Rook's operator, its mon, mgr and OSD Deployments and pods, the RBD CSI
/// plugin.
fn add_rook_daemons(b: &mut Builder, nodes: usize, not_ready: &[usize]) {
    let n = nodes as i64;
    b.obj(custom(
        "ceph.rook.io/v1",
        "CephBlockPool",
        Some("rook-ceph"),
        "replicapool",
        json!({"failureDomain": "host", "replicated": {"size": 3, "requireSafeReplicaSize": true}}),
        json!({"phase": "Ready", "info": {"type": "Replicated", "failureDomain": "host"}, "observedGeneration": 1}),
        T_CEPH,
    ));
    b.obj(deployment(
        "rook-ceph",
        "rook-ceph-operator",
        "docker.io/rook/ceph:v1.15.6",
        1,
        1,
        T_CEPH,
    ));
    for m in ["a", "b", "c"] {
        b.obj(deployment(
            "rook-ceph",
            &format!("rook-ceph-mon-{m}"),
            "quay.io/ceph/ceph:v18.2.4",
            1,
            1,
            T_CEPH,
        ));
    }
    b.obj(deployment(
        "rook-ceph",
        "rook-ceph-mgr-a",
        "quay.io/ceph/ceph:v18.2.4",
        1,
        1,
        T_CEPH,
    ));
    b.obj(deployment(
        "rook-ceph",
        "rook-ceph-mgr-b",
        "quay.io/ceph/ceph:v18.2.4",
        1,
        1,
        T_CEPH,
    ));
    for i in 0..nodes.min(8) {
        let ready = i64::from(!not_ready.contains(&(i + 1)));
        b.obj(deployment(
            "rook-ceph",
            &format!("rook-ceph-osd-{i}"),
            "quay.io/ceph/ceph:v18.2.4",
            1,
            ready,
            T_CEPH,
        ));
    }
    rook_daemon_pods(b, nodes, not_ready);
    b.obj(daemonset(
        "rook-ceph",
        "csi-rbdplugin",
        "quay.io/cephcsi/cephcsi:v3.12.3",
        n,
        n,
        T_CEPH,
    ));
    b.obj(deployment(
        "rook-ceph",
        "csi-rbdplugin-provisioner",
        "quay.io/cephcsi/cephcsi:v3.12.3",
        2,
        2,
        T_CEPH,
    ));
}

/// The storage layer: Rook's CSI drivers registered on every node and the ceph-block class.
fn add_storage(b: &mut Builder, nodes: usize) {
    // storage: Rook's CSI drivers, registered on every node (SPEC §15)
    crate::platform::add_csi(b, nodes, T_CEPH);
    // storage
    b.obj(storage_class(
        "ceph-block",
        "rook-ceph.rbd.csi.ceph.com",
        true,
        json!({
            "clusterID": "rook-ceph",
            "pool": "replicapool",
            "imageFormat": "2",
            "imageFeatures": "layering",
            "csi.storage.k8s.io/fstype": "ext4",
            "csi.storage.k8s.io/provisioner-secret-name": "rook-csi-rbd-provisioner",
            "csi.storage.k8s.io/provisioner-secret-namespace": "rook-ceph",
            "csi.storage.k8s.io/node-stage-secret-name": "rook-csi-rbd-node",
            "csi.storage.k8s.io/node-stage-secret-namespace": "rook-ceph"
        }),
        T_CEPH,
    ));
}

/// The monitoring layer: the Prometheus operator's CRDs and workloads, node-exporter.
fn add_monitoring(b: &mut Builder, nodes: usize, not_ready: &[usize]) {
    let n = nodes as i64;
    let ready_nodes = n - not_ready.len() as i64;
    // monitoring
    b.ns("monitoring", T_LAYERS);
    b.crds(
        "monitoring.coreos.com",
        "v1",
        true,
        &[
            ("Alertmanager", "alertmanagers"),
            ("PodMonitor", "podmonitors"),
            ("Probe", "probes"),
            ("Prometheus", "prometheuses"),
            ("PrometheusRule", "prometheusrules"),
            ("ServiceMonitor", "servicemonitors"),
            ("ThanosRuler", "thanosrulers"),
        ],
        T_LAYERS,
    );
    b.obj(deployment(
        "monitoring",
        "kube-prometheus-stack-operator",
        "quay.io/prometheus-operator/prometheus-operator:v0.79.2",
        1,
        1,
        T_LAYERS,
    ));
    b.obj(deployment(
        "monitoring",
        "kube-prometheus-stack-grafana",
        "docker.io/grafana/grafana:11.4.0",
        1,
        1,
        T_LAYERS,
    ));
    b.obj(deployment(
        "monitoring",
        "kube-prometheus-stack-kube-state-metrics",
        "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.14.0",
        1,
        1,
        T_LAYERS,
    ));
    b.obj(daemonset(
        "monitoring",
        "kube-prometheus-stack-prometheus-node-exporter",
        "quay.io/prometheus/node-exporter:v1.8.2",
        n,
        ready_nodes,
        T_LAYERS,
    ));
    b.obj(statefulset(
        "monitoring",
        "prometheus-kube-prometheus-stack-prometheus",
        "quay.io/prometheus/prometheus:v3.0.1",
        1,
        1,
        T_LAYERS,
    ));
    b.obj(statefulset(
        "monitoring",
        "alertmanager-kube-prometheus-stack-alertmanager",
        "quay.io/prometheus/alertmanager:v0.27.0",
        1,
        1,
        T_LAYERS,
    ));
    b.obj(custom(
        "monitoring.coreos.com/v1",
        "Prometheus",
        Some("monitoring"),
        "kube-prometheus-stack-prometheus",
        json!({"replicas": 1, "retention": "10d", "version": "v3.0.1"}),
        json!({"availableReplicas": 1, "replicas": 1, "updatedReplicas": 1, "unavailableReplicas": 0, "paused": false,
               "conditions": [{"type": "Available", "status": "True", "lastTransitionTime": T_LAYERS}]}),
        T_LAYERS,
    ));
}

/// The gitops layer: Argo CD's CRDs and workloads.
fn add_gitops(b: &mut Builder) {
    // gitops
    b.ns("argocd", T_LAYERS);
    b.crds(
        "argoproj.io",
        "v1alpha1",
        true,
        &[
            ("Application", "applications"),
            ("ApplicationSet", "applicationsets"),
            ("AppProject", "appprojects"),
        ],
        T_LAYERS,
    );
    for d in [
        "argocd-server",
        "argocd-repo-server",
        "argocd-redis",
        "argocd-applicationset-controller",
        "argocd-notifications-controller",
        "argocd-dex-server",
    ] {
        b.obj(deployment(
            "argocd",
            d,
            "quay.io/argoproj/argocd:v2.13.2",
            1,
            1,
            T_LAYERS,
        ));
    }
    b.obj(statefulset(
        "argocd",
        "argocd-application-controller",
        "quay.io/argoproj/argocd:v2.13.2",
        1,
        1,
        T_LAYERS,
    ));
    b.obj(custom(
        "argoproj.io/v1alpha1",
        "AppProject",
        Some("argocd"),
        "default",
        json!({"clusterResourceWhitelist": [{"group": "*", "kind": "*"}], "destinations": [{"namespace": "*", "server": "*"}], "sourceRepos": ["*"]}),
        json!({}),
        T_LAYERS,
    ));
}

/// The registry layer.
fn add_registry(b: &mut Builder) {
    // registry
    b.ns("registry", T_LAYERS);
    b.obj(deployment(
        "registry",
        "registry",
        "docker.io/library/registry:2.8.3",
        1,
        1,
        T_LAYERS,
    ));
}

/// The dataops layer: CloudNativePG and its Cluster dataops/pg.
fn add_dataops(b: &mut Builder) {
    // dataops: CloudNativePG
    b.ns("cnpg-system", T_DATA);
    b.ns("dataops", T_DATA);
    b.crds(
        "postgresql.cnpg.io",
        "v1",
        true,
        &[
            ("Backup", "backups"),
            ("Cluster", "clusters"),
            ("Pooler", "poolers"),
            ("ScheduledBackup", "scheduledbackups"),
        ],
        T_DATA,
    );
    b.obj(deployment(
        "cnpg-system",
        "cnpg-controller-manager",
        "ghcr.io/cloudnative-pg/cloudnative-pg:1.25.0",
        1,
        1,
        T_DATA,
    ));
    b.obj(custom(
        "postgresql.cnpg.io/v1",
        "Cluster",
        Some("dataops"),
        "pg",
        json!({"instances": 3, "imageName": "ghcr.io/cloudnative-pg/postgresql:16.6", "storage": {"size": "50Gi", "storageClass": "ceph-block"}, "primaryUpdateStrategy": "unsupervised"}),
        json!({"instances": 3, "readyInstances": 3, "phase": "Cluster in healthy state", "currentPrimary": "pg-1", "targetPrimary": "pg-1",
               "instanceNames": ["pg-1", "pg-2", "pg-3"], "latestGeneratedNode": 3,
               "instancesStatus": {"healthy": ["pg-1", "pg-2", "pg-3"]},
               "conditions": [{"type": "Ready", "status": "True", "reason": "ClusterIsReady", "message": "Cluster is Ready", "lastTransitionTime": T_DATA}]}),
        T_DATA,
    ));
}

/// Rook's mon pods (a, b, c on dirqual1..3) and OSD pods (one per node, at most 8), named
/// and labelled as Rook's operator does (`app`, `ceph_daemon_type`, `ceph_daemon_id`, the
/// legacy `mon`/`osd`/`ceph-osd-id` and `mon_cluster`, `rook_cluster`; an OSD's CRUSH
/// location as `topology-location-*`). A pod on a NotReady node is not Ready.
pub(crate) fn rook_daemon_pods(b: &mut Builder, nodes: usize, not_ready: &[usize]) {
    let ceph = "quay.io/ceph/ceph:v18.2.4";
    let mut place = |name: String, node: usize, labels: Value, owner: String| {
        let host = format!("dirqual{node}");
        let mut p = crate::builders::pod(
            "rook-ceph",
            &name,
            &host,
            labels,
            ("ReplicaSet", &owner),
            ceph,
        );
        if not_ready.contains(&node) {
            p["status"]["conditions"][0]["status"] = json!("False");
        }
        b.obj(p);
    };
    for (i, m) in ["a", "b", "c"].into_iter().enumerate().take(nodes) {
        place(
            format!("rook-ceph-mon-{m}-6d4f8c7b9-x{m}q2w"),
            i + 1,
            json!({"app": "rook-ceph-mon", "app.kubernetes.io/name": "ceph-mon", "app.kubernetes.io/instance": m,
                   "app.kubernetes.io/part-of": "rook-ceph", "app.kubernetes.io/managed-by": "rook-ceph-operator",
                   "ceph_daemon_type": "mon", "ceph_daemon_id": m, "mon": m, "mon_cluster": "rook-ceph",
                   "rook_cluster": "rook-ceph", "pod-template-hash": "6d4f8c7b9"}),
            format!("rook-ceph-mon-{m}-6d4f8c7b9"),
        );
    }
    for i in 0..nodes.min(8) {
        let host = format!("dirqual{}", i + 1);
        place(
            format!("rook-ceph-osd-{i}-7c9b5d6f4-k{i}m8p"),
            i + 1,
            json!({"app": "rook-ceph-osd", "app.kubernetes.io/name": "ceph-osd", "app.kubernetes.io/instance": i.to_string(),
                   "app.kubernetes.io/part-of": "rook-ceph", "app.kubernetes.io/managed-by": "rook-ceph-operator",
                   "ceph-osd-id": i.to_string(), "ceph_daemon_type": "osd", "ceph_daemon_id": i.to_string(),
                   "osd": i.to_string(), "rook_cluster": "rook-ceph", "failure-domain": host, "portable": "false",
                   "topology-location-host": host, "topology-location-root": "default", "pod-template-hash": "7c9b5d6f4"}),
            format!("rook-ceph-osd-{i}-7c9b5d6f4"),
        );
    }
}

pub(crate) fn dirqual_builder(not_ready: &[usize], ceph_health: &str) -> Builder {
    let mut b = Builder::default();
    dirqual_layers(&mut b, 4, not_ready, ceph_health);
    b
}

pub(crate) fn add_datalake(b: &mut Builder) {
    b.obj(custom(
        "ceph.rook.io/v1",
        "CephObjectStore",
        Some("rook-ceph"),
        "s3",
        json!({"metadataPool": {"failureDomain": "host", "replicated": {"size": 3}},
               "dataPool": {"failureDomain": "host", "erasureCoded": {"dataChunks": 2, "codingChunks": 1}},
               "preservePoolsOnDelete": true, "gateway": {"port": 80, "instances": 2}}),
        json!({"phase": "Ready", "info": {"endpoint": "http://rook-ceph-rgw-s3.rook-ceph.svc:80"}, "observedGeneration": 1,
               "conditions": [{"type": "Connected", "status": "True", "reason": "ObjectStoreConnected", "lastTransitionTime": T_DATA}]}),
        T_DATA,
    ));
    b.obj(deployment(
        "rook-ceph",
        "rook-ceph-rgw-s3-a",
        "quay.io/ceph/ceph:v18.2.4",
        2,
        2,
        T_DATA,
    ));
    b.obj(storage_class(
        "ceph-bucket",
        "rook-ceph.ceph.rook.io/bucket",
        false,
        json!({"objectStoreName": "s3", "objectStoreNamespace": "rook-ceph"}),
        T_DATA,
    ));
    b.obj(bucket_claim("lake-raw", "Bound"));
}

/// An ObjectBucketClaim of the ceph-bucket class in dataops, in `phase` (lib-bucket-provisioner
/// writes Pending, then Bound once the bucket and its Secret exist).
pub(crate) fn bucket_claim(name: &str, phase: &str) -> Value {
    let mut claim = custom(
        "objectbucket.io/v1alpha1",
        "ObjectBucketClaim",
        Some("dataops"),
        name,
        json!({"bucketName": name, "storageClassName": "ceph-bucket",
               "additionalConfig": {"maxObjects": "1000000"}}),
        json!({"phase": phase}),
        T_DATA,
    );
    claim["metadata"]["finalizers"] = json!(["objectbucket.io/finalizer"]);
    if phase == "Bound" {
        claim["spec"]["objectBucketName"] = json!(format!("obc-dataops-{name}"));
    }
    claim
}

pub(crate) fn add_cert_manager(b: &mut Builder) {
    b.ns("cert-manager", T_LAYERS);
    b.crds(
        "cert-manager.io",
        "v1",
        true,
        &[
            ("Certificate", "certificates"),
            ("CertificateRequest", "certificaterequests"),
            ("Issuer", "issuers"),
        ],
        T_LAYERS,
    );
    b.crds(
        "cert-manager.io",
        "v1",
        false,
        &[("ClusterIssuer", "clusterissuers")],
        T_LAYERS,
    );
    b.crds(
        "acme.cert-manager.io",
        "v1",
        true,
        &[("Challenge", "challenges"), ("Order", "orders")],
        T_LAYERS,
    );
    for (d, img) in [
        (
            "cert-manager",
            "quay.io/jetstack/cert-manager-controller:v1.16.2",
        ),
        (
            "cert-manager-cainjector",
            "quay.io/jetstack/cert-manager-cainjector:v1.16.2",
        ),
        (
            "cert-manager-webhook",
            "quay.io/jetstack/cert-manager-webhook:v1.16.2",
        ),
    ] {
        b.obj(deployment("cert-manager", d, img, 1, 1, T_LAYERS));
    }
    b.obj(custom(
        "cert-manager.io/v1",
        "ClusterIssuer",
        None,
        "letsencrypt-prod",
        json!({"acme": {"server": "https://acme-v02.api.letsencrypt.org/directory",
                        "privateKeySecretRef": {"name": "letsencrypt-prod-account-key"},
                        "solvers": [{"http01": {"ingress": {"ingressClassName": "cilium"}}}]}}),
        json!({"acme": {"uri": "https://acme-v02.api.letsencrypt.org/acme/acct/1987654321"},
               "conditions": [{"type": "Ready", "status": "True", "reason": "ACMEAccountRegistered",
                               "message": "The ACME account was registered with the ACME server",
                               "lastTransitionTime": T_LAYERS, "observedGeneration": 1}]}),
        T_LAYERS,
    ));
    // A namespaced Issuer and a Certificate it issued, renewed two weeks ago (90 days).
    b.obj(custom(
        "cert-manager.io/v1",
        "Issuer",
        Some("gitea"),
        "gitea-ca",
        json!({"ca": {"secretName": "gitea-ca-key-pair"}}),
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "KeyPairVerified",
                               "message": "Signing CA verified", "lastTransitionTime": T_LAYERS,
                               "observedGeneration": 1}]}),
        T_LAYERS,
    ));
    b.obj(certificate(
        "gitea-tls",
        -14 * crate::when::DAY,
        90 * crate::when::DAY,
    ));
    // Its admission webhooks and the ready endpoint of their Service.
    for c in crate::platform::configurations() {
        b.obj(c);
    }
    b.obj(crate::platform::endpoint_slice(true));
}

/// A cert-manager Certificate in namespace gitea, issued `issued` seconds from now (negative:
/// ago) for `lifetime` seconds, Ready as cert-manager reports an issued one.
pub(crate) fn certificate(name: &str, issued: i64, lifetime: i64) -> Value {
    use crate::when::from_now;
    custom(
        "cert-manager.io/v1",
        "Certificate",
        Some("gitea"),
        name,
        json!({"secretName": name, "commonName": "git.dirqual.internal",
               "dnsNames": ["git.dirqual.internal"],
               "issuerRef": {"group": "cert-manager.io", "kind": "Issuer", "name": "gitea-ca"},
               "privateKey": {"algorithm": "ECDSA", "size": 256}}),
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
                               "message": "Certificate is up to date and has not expired",
                               "lastTransitionTime": from_now(issued), "observedGeneration": 1}],
               "notBefore": from_now(issued),
               "notAfter": from_now(issued + lifetime),
               "renewalTime": from_now(issued + lifetime * 2 / 3),
               "revision": 3}),
        T_LAYERS,
    )
}

/// Healthy 4-node bare-metal prod: k8s, Cilium, Rook-Ceph, ceph-block, monitoring, gitops,
/// registry, dataops. No CephObjectStore object (its type is served: Rook ships all its
/// CRDs), no cert-manager.
pub fn dirqual() -> Fixture {
    dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION)
}

/// dirqual plus datalake (CephObjectStore rook-ceph/s3 Ready, ceph-bucket class) and
/// cert-manager (three deployments ready).
pub fn dirqual_full() -> Fixture {
    let mut b = dirqual_builder(&[], "HEALTH_OK");
    add_datalake(&mut b);
    add_cert_manager(&mut b);
    b.finish(K8S_VERSION)
}

/// dirqual with Ceph HEALTH_WARN and node dirqual3 NotReady (Ready=Unknown, unreachable
/// taints); nothing else differs but the node-exporter and osd-2 readiness on that node.
pub fn degraded() -> Fixture {
    dirqual_builder(&[3], "HEALTH_WARN").finish(K8S_VERSION)
}

/// 3-node lima bench (node1 control plane, node2..3 workers): k8s + Cilium only.
pub fn bench() -> Fixture {
    let mut b = Builder::default();
    let created = "2025-02-20T16:02:11Z";
    for ns in ["default", "kube-node-lease", "kube-public", "kube-system"] {
        b.ns(ns, created);
    }
    for i in 1..=3 {
        let name = format!("node{i}");
        let ip = format!("192.168.105.{}", 10 + i);
        let cidr = format!("10.244.{}.0/24", i - 1);
        b.obj(node(&NodeSpec {
            name: &name,
            ip: &ip,
            control_plane: i == 1,
            ready: true,
            kubelet: "v1.32.3",
            os_image: "Ubuntu 24.04.2 LTS",
            kernel: "6.8.0-53-generic",
            pod_cidr: &cidr,
            cpus: 4,
            memory_ki: 8_136_908,
        }));
        if let Some(n) = b.objects.last_mut() {
            n["metadata"]["creationTimestamp"] = json!(created);
        }
    }
    b.obj(deployment(
        "kube-system",
        "coredns",
        "registry.k8s.io/coredns/coredns:v1.11.3",
        2,
        2,
        created,
    ));
    for (kind, plural, namespaced) in [
        ("CiliumNetworkPolicy", "ciliumnetworkpolicies", true),
        (
            "CiliumClusterwideNetworkPolicy",
            "ciliumclusterwidenetworkpolicies",
            false,
        ),
        ("CiliumEndpoint", "ciliumendpoints", true),
        ("CiliumIdentity", "ciliumidentities", false),
        ("CiliumNode", "ciliumnodes", false),
    ] {
        b.crd(
            &CrdSpec {
                group: "cilium.io",
                version: "v2",
                kind,
                plural,
                namespaced,
                short: &[],
                categories: &["cilium"],
                columns: &[],
            },
            small_schema(),
            created,
        );
    }
    b.obj(daemonset(
        "kube-system",
        "cilium",
        "quay.io/cilium/cilium:v1.16.5",
        3,
        3,
        created,
    ));
    b.obj(deployment(
        "kube-system",
        "cilium-operator",
        "quay.io/cilium/operator-generic:v1.16.5",
        1,
        1,
        created,
    ));
    b.finish("v1.32.3")
}

/// Number of nodes, CRDs, namespaces and deployments in [`big`].
pub const BIG_NODES: usize = 150;
/// CRDs in [`big`] besides the dirqual ones.
pub const BIG_CRDS: usize = 300;
/// Namespaces in [`big`], dirqual's included.
pub const BIG_NAMESPACES: usize = 1000;
/// Deployments in [`big`], dirqual's included.
pub const BIG_DEPLOYMENTS: usize = 2000;

/// A large cluster: dirqual's layers on 150 nodes (dirqual1..150), 300 extra CRDs with
/// ~100 KB OpenAPI schemas in 60 groups (all served in discovery), 1000 namespaces and
/// 2000 deployments in total.
pub fn big() -> Fixture {
    let mut b = Builder::default();
    dirqual_layers(&mut b, BIG_NODES, &[], "HEALTH_OK");
    let kinds = ["Widget", "Gadget", "Sprocket", "Gear", "Lever"];
    for c in 0..BIG_CRDS {
        let group = format!("g{:02}.platform.example.com", c / kinds.len());
        let kind = format!("{}{:03}", kinds[c % kinds.len()], c);
        let plural = format!("{}s", kind.to_ascii_lowercase());
        b.crd(
            &CrdSpec {
                group: &group,
                version: "v1",
                kind: &kind,
                plural: &plural,
                namespaced: c % 4 != 0,
                short: &[],
                categories: &[],
                columns: &[],
            },
            big_schema(c, 100),
            T_LAYERS,
        );
    }
    let ns_now = b
        .objects
        .iter()
        .filter(|o| o["kind"] == "Namespace")
        .count();
    let mut tenants = Vec::new();
    for i in 0..BIG_NAMESPACES.saturating_sub(ns_now) {
        let ns = format!("tenant-{:04}", i + 1);
        b.ns(&ns, T_DATA);
        tenants.push(ns);
    }
    let dep_now = b
        .objects
        .iter()
        .filter(|o| o["kind"] == "Deployment")
        .count();
    let apps = ["api", "web", "worker", "cache"];
    for i in 0..BIG_DEPLOYMENTS.saturating_sub(dep_now) {
        let ns = &tenants[i % tenants.len()];
        let name = format!(
            "{}-{}",
            apps[(i / tenants.len()) % apps.len()],
            i / (tenants.len() * apps.len()) + 1
        );
        b.obj(deployment(
            ns,
            &name,
            "registry.example.com/tenant/app:1.4.2",
            2,
            2,
            T_DATA,
        ));
    }
    b.finish(K8S_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(f: &Fixture, kind: &str) -> usize {
        f.objects.iter().filter(|o| o["kind"] == kind).count()
    }

    #[test]
    fn dirqual_has_what_the_spec_says() {
        let f = dirqual();
        assert_eq!(count(&f, "Node"), 4);
        assert_eq!(count(&f, "CephCluster"), 1);
        assert_eq!(count(&f, "CephObjectStore"), 0);
        assert!(!f.resources.iter().any(|r| r.group == "cert-manager.io"));
        assert!(f.resources.iter().any(|r| r.group == "objectbucket.io"));
        let full = dirqual_full();
        assert_eq!(count(&full, "CephObjectStore"), 1);
        assert!(full.resources.iter().any(|r| r.group == "cert-manager.io"));
        let d = degraded();
        let n3 = d
            .objects
            .iter()
            .find(|o| o["metadata"]["name"] == "dirqual3" && o["kind"] == "Node")
            .expect("node");
        let ready = n3["status"]["conditions"]
            .as_array()
            .expect("conds")
            .iter()
            .find(|c| c["type"] == "Ready")
            .expect("ready");
        assert_eq!(ready["status"], "Unknown");
    }
}
