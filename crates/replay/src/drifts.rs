//! The SPEC §15 fixtures ("configured is not working"): `drifts` is dirqual with Cilium's
//! kube-proxy replacement and Hubble configured, hubble-relay rolled out, kube-proxy
//! removed and every namespace enforcing Pod Security; each other `drifts-*` fixture has
//! exactly one thing wrong (see the table in `scenarios`).

use serde_json::{json, Value};

use crate::builders::{
    daemonset, deployment, find, namespace, Builder, K8S_VERSION, T_CILIUM, T_INSTALL, T_LAYERS,
};
use crate::clusters::dirqual;
use crate::clusters::dirqual_builder;
use crate::fixture::Fixture;

/// No policy at all (the NetworkPolicy API served, as on every cluster).
pub fn drifts_off() -> Fixture {
    dirqual()
}

pub fn drifts_netpol_missing() -> Fixture {
    let mut f = drifts();
    f.objects
        .retain(|o| !(o["kind"] == "NetworkPolicy" && o["metadata"]["namespace"] == "dataops"));
    // "Fixed" by allowing everything: one ingress rule that matches every source.
    for p in find(&mut f, "NetworkPolicy", "default-deny-ingress") {
        if p["metadata"]["namespace"] == "monitoring" {
            p["spec"]["ingress"] = json!([{}]);
        }
    }
    f
}

pub fn drifts_policy_never() -> Fixture {
    let mut f = drifts();
    for c in find(&mut f, "ConfigMap", "cilium-config") {
        c["data"]["enable-policy"] = json!("never");
    }
    f
}

pub fn drifts_kube_proxy_left() -> Fixture {
    let mut b = drifts_builder("true");
    b.obj(kube_proxy_config_map());
    b.finish(K8S_VERSION)
}

pub fn drifts_kube_proxy_running() -> Fixture {
    let mut b = drifts_builder("true");
    b.obj(daemonset(
        "kube-system",
        "kube-proxy",
        "registry.k8s.io/kube-proxy:v1.31.4",
        4,
        4,
        T_INSTALL,
    ));
    b.finish(K8S_VERSION)
}

pub fn drifts_strict() -> Fixture {
    drifts_builder("strict").finish(K8S_VERSION)
}

pub fn drifts_no_relay() -> Fixture {
    let mut f = drifts();
    f.objects
        .retain(|o| !(o["kind"] == "Deployment" && o["metadata"]["name"] == "hubble-relay"));
    f
}

pub fn drifts_unlabelled_namespace() -> Fixture {
    let mut b = drifts_builder("true");
    b.obj(namespace("team-a", T_LAYERS));
    let mut team_b = namespace("team-b", T_LAYERS);
    team_b["metadata"]["labels"][PSA_ENFORCE] = json!("privileged");
    b.obj(team_b);
    let mut f = b.finish(K8S_VERSION);
    label_namespaces(&mut f, &["team-a", "team-b"]);
    f
}

pub fn drifts_nat_ips() -> Fixture {
    let mut f = drifts();
    for n in f.objects.iter_mut().filter(|o| o["kind"] == "Node") {
        if let Some(addresses) = n["status"]["addresses"].as_array_mut() {
            for a in addresses.iter_mut().filter(|a| a["type"] == "InternalIP") {
                a["address"] = json!("10.0.2.15");
            }
        }
    }
    f
}

pub fn drifts_agent_not_ready() -> Fixture {
    let mut f = drifts();
    for n in find(&mut f, "Node", "dirqual3") {
        n["spec"]["taints"] = json!([
            {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoSchedule"}
        ]);
    }
    f
}

/// The Pod Security admission label (Kubernetes `pod-security.kubernetes.io/enforce`).
const PSA_ENFORCE: &str = "pod-security.kubernetes.io/enforce";

/// The namespaces that need privileged pods, exempt from the built-in pod-security gate.
const PSA_EXEMPT: [&str; 5] = [
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "rook-ceph",
    "cilium-secrets",
];

/// cilium-config as the Cilium Helm chart writes it (1.16), shortened to the keys a reader
/// of it would see on the bench; the last write by `cilium upgrade` in managedFields.
fn cilium_config(kube_proxy_replacement: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "cilium-config",
            "namespace": "kube-system",
            "labels": {"app.kubernetes.io/managed-by": "Helm"},
            "annotations": {"meta.helm.sh/release-name": "cilium", "meta.helm.sh/release-namespace": "kube-system"},
            "creationTimestamp": T_CILIUM,
            "managedFields": [
                {"manager": "helm", "operation": "Update", "apiVersion": "v1", "time": T_CILIUM,
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {".": {}}}}
            ]
        },
        "data": {
            "cluster-name": "dirqual",
            "cluster-pool-ipv4-cidr": "10.244.0.0/16",
            "enable-hubble": "true",
            "enable-ipv4": "true",
            "enable-policy": "default",
            "hubble-listen-address": ":4244",
            "ipam": "kubernetes",
            "kube-proxy-replacement": kube_proxy_replacement,
            "routing-mode": "tunnel",
            "tunnel-protocol": "vxlan"
        }
    })
}

/// kubeadm's kube-proxy ConfigMap: while it exists, `kubeadm upgrade` re-creates kube-proxy.
fn kube_proxy_config_map() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "kube-proxy",
            "namespace": "kube-system",
            "labels": {"app": "kube-proxy"},
            "creationTimestamp": T_INSTALL
        },
        "data": {
            "config.conf": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\n",
            "kubeconfig.conf": "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://10.67.2.11:6443\n  name: default\n"
        }
    })
}

/// Every namespace of `f` outside the exemptions enforces `baseline`, unless named in
/// `except` (left as built).
fn label_namespaces(f: &mut Fixture, except: &[&str]) {
    for n in f.objects.iter_mut().filter(|o| o["kind"] == "Namespace") {
        let name = n["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if PSA_EXEMPT.contains(&name.as_str()) || except.contains(&name.as_str()) {
            continue;
        }
        n["metadata"]["labels"][PSA_ENFORCE] = json!("baseline");
        n["metadata"]["labels"]["pod-security.kubernetes.io/enforce-version"] = json!("latest");
    }
}

/// dirqual with the SPEC §15 layers configured: cilium-config, hubble-relay, no kube-proxy.
fn drifts_builder(kube_proxy_replacement: &str) -> Builder {
    let mut b = dirqual_builder(&[], "HEALTH_OK");
    b.obj(cilium_config(kube_proxy_replacement));
    b.obj(deployment(
        "kube-system",
        "hubble-relay",
        "quay.io/cilium/hubble-relay:v1.16.5",
        1,
        1,
        T_CILIUM,
    ));
    b
}

pub fn drifts() -> Fixture {
    let mut f = drifts_builder("true").finish(K8S_VERSION);
    label_namespaces(&mut f, &[]);
    default_deny_everywhere(&mut f);
    f
}

/// A default-deny ingress policy in every namespace outside the exemptions, as the team's
/// hardening playbook writes it: a NetworkPolicy in each, except `registry`, covered by a
/// CiliumNetworkPolicy (Cilium's form: an empty endpointSelector and an empty ingress
/// rule); `gitea` also has an allow rule for its web port.
fn default_deny_everywhere(f: &mut Fixture) {
    let names: Vec<String> = f
        .objects
        .iter()
        .filter(|o| o["kind"] == "Namespace")
        .filter_map(|o| o["metadata"]["name"].as_str().map(String::from))
        .filter(|n| !PSA_EXEMPT.contains(&n.as_str()))
        .collect();
    for ns in names {
        if ns == "registry" {
            f.objects.push(json!({
                "apiVersion": "cilium.io/v2", "kind": "CiliumNetworkPolicy",
                "metadata": {"name": "default-deny", "namespace": ns, "generation": 1,
                    "creationTimestamp": T_LAYERS},
                "spec": {"endpointSelector": {}, "ingress": [{}]},
                "status": {"conditions": [{"type": "Valid", "status": "True",
                    "lastTransitionTime": T_LAYERS, "message": "Policy validation succeeded"}]}
            }));
            continue;
        }
        f.objects.push(json!({
            "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "default-deny-ingress", "namespace": ns, "generation": 1,
                "creationTimestamp": T_LAYERS,
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration":
                    "{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"NetworkPolicy\"}"}},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress"]}
        }));
    }
    f.objects.push(json!({
        "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
        "metadata": {"name": "allow-web", "namespace": "gitea", "generation": 1,
            "creationTimestamp": T_LAYERS},
        "spec": {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "gitea"}},
            "policyTypes": ["Ingress"],
            "ingress": [{"ports": [{"protocol": "TCP", "port": 3000}]}]}
    }));
}
