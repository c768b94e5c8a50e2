//! The platform's pieces that dirqual's layers add, built as their charts, operators and
//! the kubelet write them, with no knowledge of any scenario: Rook's CSI drivers and their
//! CSINode registrations, Cilium's LB-IPAM pool CRD, the kube-apiserver and
//! kube-controller-manager static pods, Argo CD Applications, what the SPEC §6 gates look at
//! (Gitea, Alertmanager, Dagster, Marquez), and cert-manager's admission webhooks
//! (Validating- and MutatingWebhookConfiguration `cert-manager-webhook` as its Helm chart
//! renders them, and the EndpointSlice the EndpointSlice controller keeps for their Service).

use serde_json::{json, Value};

use crate::builders::{
    custom, deployment, namespace, Builder, CrdSpec, K8S_VERSION, T_DATA, T_INSTALL, T_LAYERS,
};

/// Rook's CSI drivers: CSIDriver objects, and each node's CSINode listing both.
pub(crate) fn add_csi(b: &mut Builder, nodes: usize, created: &str) {
    for driver in RBD_AND_CEPHFS {
        b.obj(json!({
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": {"name": driver, "creationTimestamp": created,
                         "labels": {"app.kubernetes.io/managed-by": "rook-ceph-operator"}},
            "spec": {"attachRequired": true, "fsGroupPolicy": "File", "podInfoOnMount": false,
                     "requiresRepublish": false, "seLinuxMount": false, "storageCapacity": false,
                     "volumeLifecycleModes": ["Persistent"]}
        }));
    }
    for i in 1..=nodes {
        let node = format!("dirqual{i}");
        b.obj(json!({
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {"name": node, "creationTimestamp": created,
                         "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,kubernetes.io/vsphere-volume"},
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node,
                                              "uid": crate::fixture::uid_for(&format!("v1/Node//{node}"))}]},
            "spec": {"drivers": RBD_AND_CEPHFS.map(|d| json!({"name": d, "nodeID": node, "topologyKeys": null}))}
        }));
    }
}

/// The drivers Rook registers.
pub const RBD_AND_CEPHFS: [&str; 2] = [
    "rook-ceph.cephfs.csi.ceph.com",
    "rook-ceph.rbd.csi.ceph.com",
];

/// The version Cilium 1.16 (dirqual's) serves the pool at; 1.18 on serve `v2`.
pub(crate) const POOL_VERSION: &str = "v2alpha1";

/// Cilium's LB-IPAM pool CRD, as every Cilium install registers it (dirqual's cni layer).
pub(crate) fn add_pool_crd(b: &mut Builder, created: &str) {
    let pool_version = POOL_VERSION;
    b.crd(
        &CrdSpec {
            group: "cilium.io",
            version: pool_version,
            kind: "CiliumLoadBalancerIPPool",
            plural: "ciliumloadbalancerippools",
            namespaced: false,
            short: &["ippools", "ippool", "lbippool", "lbippools"],
            categories: &["cilium"],
            columns: &[
                ("Disabled", "boolean", ".spec.disabled"),
                (
                    "Conflicting",
                    "string",
                    ".status.conditions[?(@.type==\"cilium.io/PoolConflict\")].status",
                ),
                (
                    "IPs Available",
                    "string",
                    ".status.conditions[?(@.type==\"cilium.io/IPsAvailable\")].message",
                ),
            ],
        },
        crate::builders::small_schema(),
        created,
    );
}

/// A marker standing for a password in an Application's inline Helm values (and in kubectl's
/// last-applied annotation): it must never reach nestor's output or snapshots.
pub const HELM_PASSWORD_MARKER: &str = "NESTOR-HELM-PASSWORD-MARKER";

/// The kube-apiserver flags of the platform's kubeadm configuration.
fn apiserver_command(ip: &str, audit_log: bool) -> Vec<String> {
    let mut flags = vec![
        "kube-apiserver".to_string(),
        format!("--advertise-address={ip}"),
        "--allow-privileged=true".into(),
        "--audit-log-maxage=30".into(),
    ];
    if audit_log {
        flags.push("--audit-log-path=/var/log/kubernetes/audit/audit.log".into());
    }
    flags.extend(
        [
            "--audit-policy-file=/etc/kubernetes/audit-policy.yaml",
            "--authorization-mode=Node,RBAC",
            "--client-ca-file=/etc/kubernetes/pki/ca.crt",
            "--enable-admission-plugins=NodeRestriction",
            "--encryption-provider-config=/etc/kubernetes/enc/encryption-config.yaml",
            "--etcd-cafile=/etc/kubernetes/pki/etcd/ca.crt",
            "--etcd-certfile=/etc/kubernetes/pki/apiserver-etcd-client.crt",
            "--etcd-keyfile=/etc/kubernetes/pki/apiserver-etcd-client.key",
            "--etcd-servers=https://127.0.0.1:2379",
            "--secure-port=6443",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file=/etc/kubernetes/pki/sa.pub",
            "--service-account-signing-key-file=/etc/kubernetes/pki/sa.key",
            "--service-cluster-ip-range=10.96.0.0/12",
            "--tls-cert-file=/etc/kubernetes/pki/apiserver.crt",
            "--tls-private-key-file=/etc/kubernetes/pki/apiserver.key",
        ]
        .map(String::from),
    );
    flags
}

/// A kubeadm static pod (`component` label, mirror pod owned by its Node).
fn static_pod(component: &str, node: &str, image: &str, command: Vec<String>) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": format!("{component}-{node}"),
            "namespace": "kube-system",
            "labels": {"component": component, "tier": "control-plane"},
            "annotations": {
                "kubernetes.io/config.source": "file",
                "kubernetes.io/config.hash": "6c1d8f0e2b7a4c3d9e5f1a0b2c3d4e5f"
            },
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node, "controller": true,
                                  "uid": crate::fixture::uid_for(&format!("v1/Node//{node}"))}],
            "creationTimestamp": T_INSTALL
        },
        "spec": {
            "nodeName": node,
            "hostNetwork": true,
            "priorityClassName": "system-node-critical",
            "containers": [{
                "name": component,
                "image": image,
                "command": command,
                "volumeMounts": [{"mountPath": "/etc/kubernetes/pki", "name": "k8s-certs", "readOnly": true}]
            }],
            "volumes": [{"name": "k8s-certs", "hostPath": {"path": "/etc/kubernetes/pki", "type": "DirectoryOrCreate"}}]
        },
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": T_INSTALL}],
            "podIP": node_ip(node)
        }
    })
}

fn node_ip(node: &str) -> String {
    let i: usize = node.trim_start_matches("dirqual").parse().unwrap_or(1);
    format!("10.67.2.{}", 10 + i)
}

/// The control-plane static pods of one node: kube-apiserver (the read's target) and
/// kube-controller-manager (another `component`, which the label selector must leave out).
pub(crate) fn control_plane_pods(b: &mut Builder, node: &str, audit_log: bool) {
    let ip = node_ip(node);
    b.obj(static_pod(
        "kube-apiserver",
        node,
        &format!("registry.k8s.io/kube-apiserver:{K8S_VERSION}"),
        apiserver_command(&ip, audit_log),
    ));
    b.obj(static_pod(
        "kube-controller-manager",
        node,
        &format!("registry.k8s.io/kube-controller-manager:{K8S_VERSION}"),
        [
            "kube-controller-manager",
            "--cluster-signing-key-file=/etc/kubernetes/pki/ca.key",
            "--use-service-account-credentials=true",
        ]
        .map(String::from)
        .to_vec(),
    ));
}

/// An Argo CD Application, as the controller reports it.
fn application(name: &str, sync: &str, health: &str, helm_values: Option<&str>) -> Value {
    let mut source = json!({
        "repoURL": format!("http://gitea-http.gitea.svc:3000/platform/{name}.git"),
        "path": format!("charts/{name}"),
        "targetRevision": "main"
    });
    let mut app = custom(
        "argoproj.io/v1alpha1",
        "Application",
        Some("argocd"),
        name,
        json!({}),
        json!({
            "sync": {"status": sync, "revision": "4f1c2e9a7b3d"},
            "health": {"status": health},
            "operationState": {"phase": "Succeeded", "message": "successfully synced (all tasks run)"}
        }),
        T_LAYERS,
    );
    if let Some(values) = helm_values {
        source["helm"] = json!({"values": values});
        app["metadata"]["annotations"] = json!({
            "kubectl.kubernetes.io/last-applied-configuration":
                json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                       "metadata": {"name": name, "namespace": "argocd"},
                       "spec": {"source": {"helm": {"values": values}}}}).to_string()
        });
    }
    app["spec"] = json!({
        "project": "default",
        "source": source,
        "destination": {"server": "https://kubernetes.default.svc", "namespace": "dataops"},
        "syncPolicy": {"automated": {"prune": true, "selfHeal": true}}
    });
    app
}

/// What the healthy dirqual has besides its layers' operators: everything the SPEC §6 gates
/// look at (Gitea, Alertmanager, Applications, Dagster and Marquez, the kube-apiserver
/// static pods with the audit and encryption flags).
pub(crate) fn add_platform_gates(b: &mut Builder, nodes: usize) {
    let _ = nodes;
    control_plane_pods(b, "dirqual1", true);
    // monitoring: the Alertmanager resource beside its StatefulSet.
    b.obj(custom(
        "monitoring.coreos.com/v1",
        "Alertmanager",
        Some("monitoring"),
        "kube-prometheus-stack-alertmanager",
        json!({"replicas": 1, "retention": "120h", "version": "v0.27.0"}),
        json!({"availableReplicas": 1, "replicas": 1, "updatedReplicas": 1, "unavailableReplicas": 0, "paused": false,
               "conditions": [{"type": "Available", "status": "True", "lastTransitionTime": T_LAYERS},
                              {"type": "Reconciled", "status": "True", "lastTransitionTime": T_LAYERS}]}),
        T_LAYERS,
    ));
    // gitops: Gitea and the Applications Argo CD keeps in sync.
    b.obj(namespace("gitea", T_LAYERS));
    b.obj(deployment(
        "gitea",
        "gitea",
        "docker.gitea.com/gitea:1.22.6-rootless",
        1,
        1,
        T_LAYERS,
    ));
    let values = format!("postgresql:\n  auth:\n    password: {HELM_PASSWORD_MARKER}\n");
    b.obj(application("dagster", "Synced", "Healthy", Some(&values)));
    b.obj(application("marquez", "Synced", "Healthy", None));
    // dataops: Dagster and Marquez.
    for (name, image) in [
        (
            "dagster-daemon",
            "docker.io/dagster/dagster-celery-k8s:1.9.6",
        ),
        (
            "dagster-dagster-webserver",
            "docker.io/dagster/dagster-celery-k8s:1.9.6",
        ),
        ("marquez", "docker.io/marquezproject/marquez:0.50.0"),
        ("marquez-web", "docker.io/marquezproject/marquez-web:0.50.0"),
    ] {
        b.obj(deployment("dataops", name, image, 1, 1, T_DATA));
    }
}

/// `count` Argo CD Applications as [`many_applications`] has them, Synced and Healthy.
pub(crate) fn add_applications(b: &mut Builder, count: usize) {
    for i in 0..count {
        let name = format!("tenant-{i:05}");
        let values = format!(
            "replicaCount: 2\nimage:\n  tag: 1.4.{}\ndatabase:\n  password: {HELM_PASSWORD_MARKER}\n",
            i % 50
        );
        let mut app = application(&name, "Synced", "Healthy", Some(&values));
        app["status"]["resources"] = json!([
            {"kind": "Deployment", "name": name, "namespace": "dataops", "group": "apps", "version": "v1", "status": "Synced", "health": {"status": "Healthy"}},
            {"kind": "Service", "name": name, "namespace": "dataops", "version": "v1", "status": "Synced", "health": {"status": "Healthy"}}
        ]);
        b.obj(app);
    }
}

/// The CA bundle the cainjector writes (a stand-in PEM, base64): never to be kept by nestor.
pub const CA_BUNDLE: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkekNDQVIyZ0F3SUJBZ0lRYk1WZ0x6b0pDRnRxRzVxd0hFZ3dQREFLQmdncWhrak9QUVFEQWpBaU1TQXcKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";

fn labels() -> Value {
    json!({
        "app": "webhook",
        "app.kubernetes.io/component": "webhook",
        "app.kubernetes.io/instance": "cert-manager",
        "app.kubernetes.io/name": "webhook",
        "app.kubernetes.io/version": "v1.16.2",
    })
}

/// cert-manager's two webhook configurations.
pub fn configurations() -> [Value; 2] {
    let one = |kind: &str, path: &str, operations: Value, resources: Value| {
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": kind,
            "metadata": {
                "name": "cert-manager-webhook",
                "labels": labels(),
                "annotations": {"cert-manager.io/inject-ca-from-secret": "cert-manager/cert-manager-webhook-ca"},
                "creationTimestamp": T_LAYERS,
            },
            "webhooks": [{
                "name": "webhook.cert-manager.io",
                "rules": [{
                    "apiGroups": ["cert-manager.io", "acme.cert-manager.io"],
                    "apiVersions": ["v1"],
                    "operations": operations,
                    "resources": resources,
                    "scope": "*",
                }],
                "admissionReviewVersions": ["v1"],
                "matchPolicy": "Equivalent",
                "timeoutSeconds": 30,
                "failurePolicy": "Fail",
                "sideEffects": "None",
                "namespaceSelector": {},
                "objectSelector": {},
                "clientConfig": {
                    "service": {"name": "cert-manager-webhook", "namespace": "cert-manager", "path": path, "port": 443},
                    "caBundle": CA_BUNDLE,
                },
            }],
        })
    };
    let mut validating = one(
        "ValidatingWebhookConfiguration",
        "/validate",
        json!(["CREATE", "UPDATE"]),
        json!(["*/*"]),
    );
    validating["webhooks"][0]["namespaceSelector"] = json!({"matchExpressions": [
        {"key": "cert-manager.io/disable-validation", "operator": "NotIn", "values": ["true"]}
    ]});
    let mut mutating = one(
        "MutatingWebhookConfiguration",
        "/mutate",
        json!(["CREATE"]),
        json!(["certificaterequests"]),
    );
    mutating["webhooks"][0]["reinvocationPolicy"] = json!("Never");
    [validating, mutating]
}

/// The EndpointSlice of Service cert-manager/cert-manager-webhook: one endpoint, `ready`.
pub fn endpoint_slice(ready: bool) -> Value {
    let mut labels = labels();
    labels["endpointslice.kubernetes.io/managed-by"] = json!("endpointslice-controller.k8s.io");
    labels["kubernetes.io/service-name"] = json!("cert-manager-webhook");
    json!({
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": "cert-manager-webhook-tr8zw",
            "namespace": "cert-manager",
            "generateName": "cert-manager-webhook-",
            "labels": labels,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Service", "name": "cert-manager-webhook",
                                 "controller": true, "blockOwnerDeletion": true,
                                 "uid": "0b9f6c3a-7e21-4d5c-8f3e-6a1d2c4b5e70"}],
            "creationTimestamp": T_LAYERS,
        },
        "addressType": "IPv4",
        "endpoints": [{
            "addresses": ["10.244.2.14"],
            "conditions": {"ready": ready, "serving": ready, "terminating": false},
            "nodeName": "dirqual2",
            "targetRef": {"kind": "Pod", "namespace": "cert-manager", "name": "cert-manager-webhook-7f9c6b8d4-x2mkq"},
        }],
        "ports": [{"name": "https", "port": 10250, "protocol": "TCP"}],
    })
}
