//! The reads of `cni-encryption` (SPEC §15) through the one read path: the proxy accepts
//! exactly the CiliumNodes list, kube-system's pod list and cilium-config by name. Other pods,
//! every secret and ConfigMap lists stay refused, as `kubectl get` forms too.

use super::*;
use crate::model::catalog::{Catalog, Workloads};
use crate::read::exec::allowlist::{accept_paths_ok, check};
use crate::read::exec::Tool;

fn plan() -> crate::model::catalog::ReadPlan {
    Catalog::builtin().unwrap().read_plan(
        &["cni-encryption".to_string()],
        Workloads::InTheirNamespaces,
    )
}

#[test]
fn the_proxy_accepts_exactly_the_paths_of_cni_encryption() {
    let p = plan();
    let accept = accept_paths(&p.requests, &p.scope);
    assert_eq!(
        accept,
        [
            "^/api$",
            "^/api/v1/namespaces/kube-system/configmaps/cilium-config$",
            "^/api/v1/namespaces/kube-system/pods$",
            "^/api/v1/nodes$",
            "^/apis$",
            "^/apis/cilium\\.io/[a-z0-9]+$",
            "^/apis/cilium\\.io/[a-z0-9]+/ciliumnodes$",
            "^/apis/cilium\\.io/v2/ciliumnodes$",
        ]
    );
    assert_eq!(accept_paths_ok(&accept.join(",")), Ok(()));
    // The pods are asked for by the agents' label only.
    let starts = p
        .requests
        .iter()
        .find(|r| matches!(r, ReadRequest::ContainerStarts { .. }))
        .unwrap();
    assert_eq!(
        builtin_path(starts).as_deref(),
        Some("/api/v1/namespaces/kube-system/pods?labelSelector=k8s-app%3Dcilium")
    );
    // Nothing wider: every pod, a pod's log, a ConfigMap list, a secret.
    for wider in [
        "^/api/v1/pods$",
        "^/api/v1/namespaces/kube-system/pods/cilium-4xk2p/log$",
        "^/api/v1/namespaces/kube-system/configmaps$",
        "^/api/v1/configmaps$",
        "^/api/v1/namespaces/kube-system/secrets/cilium-ipsec-keys$",
        "^/api/v1/namespaces/kube-system/secrets$",
    ] {
        assert!(!accept.iter().any(|a| a == wider), "{wider}");
        let widened = format!("{},{wider}", accept.join(","));
        assert!(accept_paths_ok(&widened).is_err(), "{wider}");
    }
}

#[test]
fn the_wider_kubectl_get_forms_of_its_objects_are_refused() {
    const PIN: &str =
        "--kubeconfig /k/c --context c --server https://10.0.0.1:6443 --cache-dir=/h/.kube/cache";
    let kube = |args: &[String]| {
        let mut argv: Vec<String> = PIN.split_whitespace().map(String::from).collect();
        argv.extend(args.iter().cloned());
        check(Tool::Kubectl, &argv)
    };
    let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    for refused in [
        "get configmap cilium-config -n kube-system -o json --show-managed-fields",
        "get pods -n kube-system -o json",
        "get pods -A -l k8s-app=cilium -o json",
        "get pods -n kube-system -l k8s-app=cilium -o json --show-managed-fields",
        "get configmaps -n kube-system -o json --show-managed-fields",
        "get configmap -n kube-system -o json --show-managed-fields",
        "get secrets -n kube-system -o json --show-managed-fields",
        "get secret cilium-ipsec-keys -n kube-system -o json",
        "get ciliumnodes.cilium.io -o json --show-managed-fields",
    ] {
        assert!(kube(&words(refused)).is_err(), "{refused}");
    }
}
