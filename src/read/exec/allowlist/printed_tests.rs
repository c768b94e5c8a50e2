//! The printed `get --raw` form of a gate's `--explain`: exactly the GETs a gate sends.

use super::super::printed_kubectl;

fn printed(target: &str) -> Result<(), String> {
    let argv: Vec<String> = [
        "--kubeconfig",
        "/k",
        "--context",
        "c",
        "--server",
        "https://pinned.invalid",
        "--cache-dir",
        "/nonexistent",
        "get",
        "--raw",
        target,
    ]
    .map(String::from)
    .to_vec();
    printed_kubectl(&argv)
}

#[test]
fn every_gate_get_is_printed_as_sent() {
    for ok in [
        "/apis/policy/v1/poddisruptionbudgets",
        "/api/v1/pods?fieldSelector=spec.nodeName%3Ddirqual2",
        "/api/v1/nodes",
        "/api/v1/persistentvolumes",
        "/apis/ceph.rook.io/v1/cephclusters",
        "/api/v1/namespaces/rook-ceph/pods?labelSelector=app%3Drook-ceph-mon",
        "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Detcd",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        "/readyz?verbose",
        "/apis/apps/v1/namespaces/kube-system/daemonsets/cilium",
        "/apis/apps/v1/namespaces/rook-ceph/deployments?labelSelector=app%20in%20%28rook-ceph-mon%2Crook-ceph-mgr%2Crook-ceph-osd%29",
        "/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas",
    ] {
        assert_eq!(printed(ok), Ok(()), "{ok}");
    }
}

#[test]
fn anything_a_gate_does_not_send_is_never_printed() {
    for bad in [
        "/api/v1/namespaces/x/secrets",
        "/api/v1/namespaces/x/secrets/s",
        "/api/v1/pods",
        "/api/v1/pods?labelSelector=a%3Db",
        "/api/v1/namespaces/x/pods",
        "/api/v1/namespaces/x/pods/p/log",
        "/api/v1/namespaces/x/pods/p/exec?command=sh",
        "/api/v1/namespaces/x/configmaps",
        "/readyz",
        "/livez?verbose",
        "/api/v1/nodes?watch=true",
        "/api/v1/nodes?labelSelector=a%3Db&watch=1",
        "/api/v1/nodes?labelSelector=a'b",
        "/api/v1/nodes?fieldSelector=a%3Db",
        "/api/v1/nodes/../secrets",
        "api/v1/nodes",
        "/metrics",
        "",
    ] {
        assert!(printed(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn discovery_and_configmaps_are_never_a_gates_raw_read() {
    for bad in [
        "/api",
        "/apis",
        "/api/v1",
        "/apis/apps/v1",
        "/api/v1/namespaces/rook-ceph/configmaps/rook-ceph-mon-endpoints",
    ] {
        assert!(printed(bad).is_err(), "{bad:?}");
    }
}
