//! Tests of the kubectl List parsers on real-shaped fixtures.

use super::*;
use crate::model::observation::{parse_daemonsets, parse_deployments, parse_statefulsets};

const NODES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/kubectl/nodes-dirqual.json"
));
const NODES_NOT_READY: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/kubectl/nodes-dirqual3-notready.json"
));

#[test]
fn nodes_of_dirqual() {
    let nodes = parse_nodes(NODES).unwrap();
    let names: Vec<_> = nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["dirqual1", "dirqual2", "dirqual3", "dirqual4"]);
    assert!(nodes.iter().all(|n| n.ready));
    assert_eq!(
        nodes[0],
        Node {
            name: "dirqual1".into(),
            ready: true,
            roles: vec!["control-plane".into()],
            internal_ip: Some("10.67.2.11".into()),
            kubelet_version: "v1.30.4".into(),
            architecture: "amd64".into(),
            taints: vec!["node-role.kubernetes.io/control-plane".into()],
            troubles: vec![],
            unschedulable: false,
            blocking_taints: vec![NodeTaint {
                key: "node-role.kubernetes.io/control-plane".into(),
                effect: "NoSchedule".into(),
            }],
        }
    );
    assert_eq!(nodes[3].roles, ["worker"]);
    assert_eq!(nodes[3].internal_ip.as_deref(), Some("10.67.2.14"));
}

#[test]
fn not_ready_node() {
    let nodes = parse_nodes(NODES_NOT_READY).unwrap();
    let ready: Vec<_> = nodes.iter().map(|n| (n.name.as_str(), n.ready)).collect();
    assert_eq!(
        ready,
        [("dirqual1", true), ("dirqual2", true), ("dirqual3", false)]
    );
}

#[test]
fn namespaces() {
    let ns = parse_namespaces(
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/kubectl/namespaces.json"
        )),
        &BTreeSet::new(),
    )
    .unwrap();
    assert!(
        ns.iter().all(|n| n.labels.is_empty()),
        "no label named, none kept"
    );
    let names: Vec<_> = ns.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "argocd",
            "cnpg-system",
            "dataops",
            "default",
            "gitea",
            "kube-node-lease",
            "kube-public",
            "kube-system",
            "monitoring",
            "registry",
            "rook-ceph"
        ]
    );
    assert!(ns.iter().all(|n| n.phase == "Active"));
}

#[test]
fn storage_classes_with_default_annotation() {
    let sc = parse_storage_classes(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/storageclasses.json"
    )))
    .unwrap();
    assert_eq!(
        sc,
        [
            StorageClass {
                name: "ceph-block".into(),
                provisioner: "rook-ceph.rbd.csi.ceph.com".into(),
                default: true
            },
            StorageClass {
                name: "ceph-filesystem".into(),
                provisioner: "rook-ceph.cephfs.csi.ceph.com".into(),
                default: false
            },
        ]
    );
}

#[test]
fn storage_classes_with_beta_default_annotation() {
    let sc = parse_storage_classes(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/storageclasses-beta-default.json"
    )))
    .unwrap();
    let v: Vec<_> = sc
        .iter()
        .map(|s| (s.name.as_str(), s.provisioner.as_str(), s.default))
        .collect();
    assert_eq!(
        v,
        [
            ("local-path", "rancher.io/local-path", false),
            ("rook-ceph-block", "rook-ceph.rbd.csi.ceph.com", true),
        ]
    );
}

fn summary(w: &[Workload]) -> Vec<String> {
    w.iter()
        .map(|w| format!("{}/{} {}/{}", w.namespace, w.name, w.ready, w.desired))
        .collect()
}

#[test]
fn daemonsets() {
    let ds = parse_daemonsets(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/daemonsets.json"
    )))
    .unwrap();
    assert_eq!(
        summary(&ds),
        [
            "kube-system/cilium 4/4",
            "monitoring/kube-prometheus-stack-prometheus-node-exporter 4/4",
            "rook-ceph/csi-cephfsplugin 3/3",
            "rook-ceph/csi-rbdplugin 3/3",
        ]
    );
}

#[test]
fn deployments_default_ready_to_zero() {
    let d = parse_deployments(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/deployments.json"
    )))
    .unwrap();
    assert_eq!(
        summary(&d),
        [
            "argocd/argocd-repo-server 1/1",
            "argocd/argocd-server 1/1",
            "cnpg-system/cnpg-cloudnative-pg 1/1",
            "dataops/dagster-daemon 1/1",
            "dataops/dagster-dagster-webserver 1/1",
            "dataops/marquez 1/1",
            "dataops/marquez-web 1/1",
            "gitea/gitea 1/1",
            "kube-system/cilium-operator 2/2",
            "kube-system/coredns 2/2",
            "monitoring/kube-prometheus-stack-grafana 1/1",
            "monitoring/kube-prometheus-stack-operator 1/1",
            "registry/registry 1/1",
            "rook-ceph/rook-ceph-mon-a 1/1",
            "rook-ceph/rook-ceph-mon-b 1/1",
            "rook-ceph/rook-ceph-mon-c 1/1",
            "rook-ceph/rook-ceph-operator 1/1",
            "rook-ceph/rook-ceph-osd-0 1/1",
            "rook-ceph/rook-ceph-osd-1 1/1",
            "rook-ceph/rook-ceph-osd-2 1/1",
        ]
    );
    let stalled = parse_deployments(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/deployment-marquez-stalled.json"
    )))
    .unwrap();
    assert_eq!(summary(&stalled), ["dataops/marquez-web 0/1"]);
    let r = stalled[0].rollout.as_ref().unwrap();
    assert!(r.deadline_exceeded, "{r:?}");
    assert_eq!((r.generation, r.observed_generation), (2, 2));
}

#[test]
fn replicas_default_to_one() {
    let text = r#"{"apiVersion":"v1","kind":"List","items":[
            {"kind":"Deployment","metadata":{"name":"x","namespace":"n"},"spec":{},"status":{}}],
            "metadata":{"resourceVersion":""}}"#;
    assert_eq!(summary(&parse_deployments(text).unwrap()), ["n/x 0/1"]);
}

#[test]
fn statefulsets() {
    let s = parse_statefulsets(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/statefulsets.json"
    )))
    .unwrap();
    assert_eq!(
        summary(&s),
        [
            "argocd/argocd-application-controller 1/1",
            "monitoring/alertmanager-kube-prometheus-stack-alertmanager 1/1",
            "monitoring/prometheus-kube-prometheus-stack-prometheus 1/1",
        ]
    );
}

#[test]
fn api_versions_to_groups() {
    let groups = parse_api_versions(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/api-versions.txt"
    )))
    .unwrap();
    assert!(groups.contains(""));
    assert!(groups.contains("apps"));
    assert!(groups.contains("ceph.rook.io"));
    assert!(groups.contains("objectbucket.io"));
    assert!(!groups.contains("cert-manager.io"));
    assert!(!groups.iter().any(|g| g.contains('/')));
    assert_eq!(groups.len(), 27);
    assert!(parse_api_versions("").unwrap().is_empty());
}

#[test]
fn malformed_documents_say_what_and_hint() {
    let e = parse_nodes(r#"{"apiVersion":"v1","kind":"NodeList","metadata":{}}"#).unwrap_err();
    assert_eq!(
        e.message,
        "malformed answer to GET /api/v1/nodes: invalid type: null or missing `items`"
    );
    assert!(e.hint.contains("`items`"));
    let e = parse_namespaces("", &BTreeSet::new()).unwrap_err();
    assert!(e
        .message
        .starts_with("malformed answer to GET /api/v1/namespaces: EOF"));
    let e = parse_daemonsets(r#"{"apiVersion":"apps/v1","kind":"DaemonSetList","items": {}}"#)
        .unwrap_err();
    assert!(
        e.message.contains("invalid type: map, expected a sequence"),
        "{}",
        e.message
    );
    let e = parse_api_versions("apps/v1\nerror: You must be logged in\n").unwrap_err();
    assert_eq!(
        e.message,
        "malformed API discovery (/api, /apis), line 2: \"error: You must be logged in\""
    );
}

#[test]
fn a_null_list_or_a_list_of_another_kind_is_malformed_never_empty() {
    // The API server's own List kinds and kubectl's `List` are read.
    assert_eq!(
        parse_storage_classes(
            r#"{"apiVersion":"storage.k8s.io/v1","kind":"StorageClassList","items":[]}"#
        )
        .map(|v| v.len())
        .ok(),
        Some(0)
    );
    assert!(parse_nodes(
        r#"{"apiVersion":"v1","kind":"List","items":[{"kind":"Node","metadata":{"name":"n1"}}]}"#
    )
    .is_ok());
    let not = ", not storage.k8s.io/v1 StorageClassList";
    // items: null, no kind, another list kind, another group, an item of another kind.
    for (text, said) in [
        (
            r#"{"apiVersion":"storage.k8s.io/v1","kind":"StorageClassList","items":null}"#,
            "malformed answer to GET /apis/storage.k8s.io/v1/storageclasses: invalid type: null or missing `items`".to_string(),
        ),
        (
            r#"{"items":[]}"#,
            format!("the answer was an object without apiVersion, kind or name{not}"),
        ),
        (
            r#"{"apiVersion":"v1","kind":"ConfigMapList","items":[{"metadata":{"name":"rook-ceph-mon-endpoints","namespace":"rook-ceph"},"data":{"csi-cluster-config-json":"[]"}}]}"#,
            format!("the answer was v1 ConfigMapList{not}"),
        ),
        (
            r#"{"apiVersion":"v1","kind":"StorageClassList","items":[]}"#,
            format!("the answer was v1 StorageClassList{not}"),
        ),
        (
            r#"{"apiVersion":"v1","kind":"List","items":[{"kind":"ConfigMap","metadata":{"name":"x"}}]}"#,
            "the answer was a List with an item of kind ConfigMap, not a list of StorageClass objects".to_string(),
        ),
        (
            r#"{"apiVersion":"storage.k8s.io/v1","kind":"StorageClassList","items":[{"kind":"Secret","metadata":{"name":"x"}}]}"#,
            "the answer was a List with an item of kind Secret, not a list of StorageClass objects".to_string(),
        ),
    ] {
        let e = parse_storage_classes(text)
            .err()
            .unwrap_or_else(|| panic!("{text} was read"));
        assert_eq!(e.message, said, "{text}");
    }
    let e = parse_nodes(r#"{"apiVersion":"v1","kind":"NodeList","items":null}"#).err();
    assert!(e.is_some());
    let e =
        parse_deployments(r#"{"apiVersion":"apps/v1","kind":"StatefulSetList","items":[]}"#).err();
    assert!(e.is_some_and(|e| e.message.ends_with("not apps/v1 DeploymentList")));
}
