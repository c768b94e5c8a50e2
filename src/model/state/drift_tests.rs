//! The platform's drifts (SPEC §15) judged on real-shaped reads: node addresses, Cilium's
//! not-ready taint, Pod Security labels. Each failure names the node or namespace.

use super::fixtures::{declared, dirqual};
use super::*;
use crate::model::observation::{parse_namespaces, ReadRequest, WorkloadKind};

fn catalog() -> Catalog {
    Catalog::builtin().unwrap()
}

fn one(obs: &Observation, id: &str) -> LayerReport {
    evaluate(&catalog(), &[id.to_string()], &declared(), obs).remove(0)
}

/// The dirqual nodes with every InternalIP replaced by the VM NAT address (bench #3, #4).
fn nat_nodes() -> Observation {
    let mut obs = dirqual();
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/nodes-dirqual.json"
    ));
    let mut doc: serde_json::Value = serde_json::from_str(text).unwrap();
    for item in doc["items"].as_array_mut().unwrap() {
        for a in item["status"]["addresses"].as_array_mut().unwrap() {
            if a["type"] == "InternalIP" {
                a["address"] = "10.0.2.15".into();
            }
        }
    }
    obs.record(&ReadRequest::Nodes, Ok(&doc.to_string()));
    obs
}

#[test]
fn nodes_sharing_the_nat_address_make_k8s_degraded_and_are_named() {
    let r = one(&nat_nodes(), "k8s");
    assert_eq!(r.state, State::Degraded, "{:?}", r.evidence);
    assert_eq!(
        r.reason,
        "InternalIP shared: dirqual1, dirqual2, dirqual3, dirqual4 all announce 10.0.2.15"
    );
}

#[test]
fn a_node_tainted_agent_not_ready_makes_cni_degraded_and_is_named() {
    let mut obs = dirqual();
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kubectl/nodes-dirqual.json"
    ));
    let mut doc: serde_json::Value = serde_json::from_str(text).unwrap();
    doc["items"][2]["spec"]["taints"] = serde_json::json!([
        {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoSchedule"}
    ]);
    obs.record(&ReadRequest::Nodes, Ok(&doc.to_string()));
    let r = one(&obs, "cni");
    assert_eq!(r.state, State::Degraded, "{:?}", r.evidence);
    assert_eq!(r.reason, "tainted node.cilium.io/agent-not-ready: dirqual3");
    // The control plane's own NoSchedule taint is no problem.
    assert_eq!(one(&dirqual(), "cni").state, State::Present);
}

/// Namespaces as the API lists them, each with the labels given (`None`: no enforce label).
fn namespaces(list: &[(&str, Option<&str>)]) -> String {
    let items: Vec<serde_json::Value> = list
        .iter()
        .map(|(name, level)| {
            let mut labels = serde_json::json!({"kubernetes.io/metadata.name": name});
            if let Some(l) = level {
                labels["pod-security.kubernetes.io/enforce"] = (*l).into();
                labels["pod-security.kubernetes.io/enforce-version"] = "latest".into();
            }
            serde_json::json!({
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": name, "labels": labels,
                    "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"}
            })
        })
        .collect();
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

fn psa(list: &[(&str, Option<&str>)]) -> Observation {
    let mut obs = dirqual();
    obs.record(&ReadRequest::Namespaces, Ok(&namespaces(list)));
    obs
}

#[test]
fn pod_security_every_namespace_outside_the_exemptions_enforces_baseline_or_restricted() {
    let good = [
        ("kube-system", None),
        ("kube-public", None),
        ("kube-node-lease", None),
        ("rook-ceph", Some("privileged")),
        ("cilium-secrets", None),
        ("default", Some("baseline")),
        ("argocd", Some("restricted")),
    ];
    let r = one(&psa(&good), "pod-security");
    assert_eq!(r.state, State::Present, "{:?}", r.evidence);
    assert!(
        r.evidence
            .contains(&"2 namespaces labelled pod-security.kubernetes.io/enforce = baseline or restricted (5 exempt)".to_string()),
        "{:?}",
        r.evidence
    );
    let mut bad = good.to_vec();
    bad.push(("team-a", None));
    bad.push(("team-b", Some("privileged")));
    let r = one(&psa(&bad), "pod-security");
    assert_eq!(r.state, State::Degraded, "{:?}", r.evidence);
    assert_eq!(
        r.reason,
        "2/4 namespaces not labelled pod-security.kubernetes.io/enforce = baseline or restricted: team-a (no pod-security.kubernetes.io/enforce); team-b (privileged)"
    );
}

#[test]
fn pod_security_not_configured_is_absent_and_a_failed_read_unknown() {
    let r = one(
        &psa(&[("default", None), ("kube-system", None)]),
        "pod-security",
    );
    assert_eq!(r.state, State::Absent, "{:?}", r.evidence);
    assert_eq!(
        r.reason,
        "no namespace labelled pod-security.kubernetes.io/enforce"
    );
    let mut obs = dirqual();
    obs.namespaces = Err(crate::model::observation::ReadFailure::new(
        crate::model::observation::FailureKind::Forbidden,
        "namespaces is forbidden",
    ));
    assert_eq!(one(&obs, "pod-security").state, State::Unknown);
}

#[test]
fn namespaces_keep_only_the_labels_the_catalog_names() {
    let text = namespaces(&[("default", Some("baseline"))]);
    let keep = catalog().object_fields(&["pod-security".to_string()]);
    let labels: std::collections::BTreeSet<String> = keep
        [crate::model::observation::NAMESPACES_KEEP]
        .iter()
        .filter_map(|u| match u {
            crate::model::observation::FieldUse::Label(k) => Some(k.clone()),
            crate::model::observation::FieldUse::Value(_)
            | crate::model::observation::FieldUse::Details(_)
            | crate::model::observation::FieldUse::Conditions
            | crate::model::observation::FieldUse::Annotation(_)
            | crate::model::observation::FieldUse::Members(_)
            | crate::model::observation::FieldUse::ConditionMessages
            | crate::model::observation::FieldUse::Items(..)
            | crate::model::observation::FieldUse::Parents(_) => None,
        })
        .collect();
    let ns = parse_namespaces(&text, &labels).unwrap();
    assert_eq!(
        ns[0].labels.keys().collect::<Vec<_>>(),
        ["pod-security.kubernetes.io/enforce"]
    );
    // The read asks for the namespaces list, nothing more.
    assert_eq!(
        catalog().required_reads(&["pod-security".to_string()]),
        [ReadRequest::Namespaces]
    );
}

#[test]
fn the_new_check_kinds_are_usable_from_a_catalog_file_and_refuse_vague_fields() {
    let layer = |check: &str| {
        format!("- id: extra\n  title: Extra\n  detect:\n    - namespace: extra\n  healthy:\n    - {check}\n  install: make extra\n")
    };
    let mut c = Catalog::builtin().unwrap();
    c.overlay_str(
        &layer("namespaceLabel: {label: example.com/tier, in: [gold], exempt: [default]}"),
        "stacks/layers.yaml",
    )
    .unwrap();
    assert_eq!(
        c.get("extra").unwrap().healthy[0].kind.to_string(),
        "every namespace except kube-system, kube-public, kube-node-lease, rook-ceph, cilium-secrets, default labelled example.com/tier = gold; the others are named"
    );
    for (check, needle) in [
        ("namespaceLabel: {label: 'bad key!'}", "is not a label key"),
        (
            "namespaceLabel: {label: a/b, exempt: [Bad_NS]}",
            "is not a namespace name",
        ),
        (
            "namespaceLabel: {label: a/b, some: true, exempt: [x]}",
            "`some: true`",
        ),
        ("nodes: {withoutTaint: 'no spaces'}", "is not a taint key"),
        (
            "nodes: {distinctInternalIPs: false}",
            "needs exactly one of",
        ),
        (
            "nodes: {ready: all, withoutTaint: a/b}",
            "needs exactly one of",
        ),
    ] {
        let e = Catalog::builtin()
            .unwrap()
            .overlay_str(&layer(check), "stacks/layers.yaml")
            .unwrap_err();
        assert!(e.message.contains(needle), "{check}: {}", e.message);
    }
}

/// cilium-config and kube-proxy as the API serves them (GET by name), shortened.
fn cilium_config(kpr: &str, hubble: &str) -> String {
    serde_json::json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cilium-config", "namespace": "kube-system",
            "managedFields": [{"manager": "helm", "operation": "Update", "apiVersion": "v1",
                "time": "2026-11-20T09:12:03Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {}}}]},
        "data": {"kube-proxy-replacement": kpr, "enable-hubble": hubble, "cluster-name": "dirqual",
            "enable-wireguard": "true", "ipam": "kubernetes"}
    })
    .to_string()
}

/// The read plan's one request for the named kube-system ConfigMap (the keys of all the
/// built-in checks that name it).
fn cm_request(name: &str) -> ReadRequest {
    let ids: Vec<String> = catalog().ids().into_iter().map(String::from).collect();
    catalog()
        .required_reads(&ids)
        .into_iter()
        .find(|r| r.key().as_deref() == Some(&format!("kube-system/{name}")))
        .unwrap()
}

fn with_config_maps(cilium: Option<&str>, kube_proxy: Option<&str>) -> Observation {
    let mut obs = dirqual();
    obs.keep = catalog().object_fields(
        &catalog()
            .ids()
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>(),
    );
    let gone = |name: &str| {
        crate::model::observation::ReadFailure::new(
            crate::model::observation::FailureKind::NotFound,
            format!("Error from server (NotFound): configmaps \"{name}\" not found"),
        )
    };
    let cm = cm_request("cilium-config");
    obs.record(&cm, cilium.ok_or_else(|| gone("cilium-config")));
    let kp = cm_request("kube-proxy");
    let kp_text = kube_proxy.map(|_| {
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kube-proxy","namespace":"kube-system"},"data":{"config.conf":"apiVersion: kubeproxy.config.k8s.io/v1alpha1\nmode: iptables\n"}}"#
    });
    obs.record(&kp, kp_text.ok_or_else(|| gone("kube-proxy")));
    obs
}

#[test]
fn kube_proxy_replacement_with_kube_proxy_left_is_degraded_naming_both_leftovers() {
    let on = cilium_config("true", "false");
    // dirqual's fixtures have no kube-proxy DaemonSet; its ConfigMap is still there.
    let r = one(
        &with_config_maps(Some(&on), Some("kube-proxy")),
        "kube-proxy-replacement",
    );
    assert_eq!(r.state, State::Degraded, "{:?}", r.evidence);
    assert_eq!(
        r.reason,
        "ConfigMap kube-system/kube-proxy exists: the next kubeadm upgrade reinstalls kube-proxy"
    );
    let r = one(&with_config_maps(Some(&on), None), "kube-proxy-replacement");
    assert_eq!(r.state, State::Present, "{:?}", r.evidence);
    assert!(r
        .evidence
        .contains(&"no DaemonSet kube-system/kube-proxy".to_string()));
    // The DaemonSet itself, as kubeadm deploys it.
    let mut obs = with_config_maps(Some(&on), None);
    if let Ok(list) = obs.daemonsets.as_mut() {
        let mut kp = list[0].clone();
        kp.name = "kube-proxy".into();
        kp.namespace = "kube-system".into();
        list.push(kp);
    }
    let r = one(&obs, "kube-proxy-replacement");
    assert_eq!(r.state, State::Degraded);
    assert_eq!(
        r.reason,
        "DaemonSet kube-system/kube-proxy exists: two service datapaths"
    );
}

#[test]
fn kube_proxy_replacement_strict_is_degraded_deprecated_and_off_is_absent() {
    let strict = cilium_config("strict", "false");
    let r = one(
        &with_config_maps(Some(&strict), None),
        "kube-proxy-replacement",
    );
    assert_eq!(r.state, State::Degraded, "{:?}", r.evidence);
    assert_eq!(
        r.reason,
        "ConfigMap kube-system/cilium-config kube-proxy-replacement = strict (want true): deprecated value, use true"
    );
    let off = cilium_config("false", "false");
    let r = one(
        &with_config_maps(Some(&off), Some("kube-proxy")),
        "kube-proxy-replacement",
    );
    assert_eq!(r.state, State::Absent, "{:?}", r.evidence);
    // No Cilium at all: absent, never degraded.
    let r = one(
        &with_config_maps(None, Some("kube-proxy")),
        "kube-proxy-replacement",
    );
    assert_eq!(r.state, State::Absent);
    assert_eq!(r.reason, "no ConfigMap kube-system/cilium-config");
}

#[test]
fn a_config_map_that_cannot_be_read_is_unknown_never_absent() {
    let mut obs = with_config_maps(None, None);
    let denied = crate::model::observation::ReadFailure::new(
        crate::model::observation::FailureKind::Forbidden,
        "configmaps \"cilium-config\" is forbidden",
    );
    obs.record(&cm_request("cilium-config"), Err(denied));
    for id in ["kube-proxy-replacement", "hubble"] {
        assert_eq!(one(&obs, id).state, State::Unknown, "{id}");
    }
    // A 404 that is not the API server's answer for this ConfigMap is not its absence.
    let odd = crate::model::observation::ReadFailure::new(
        crate::model::observation::FailureKind::NotFound,
        "Error from server (NotFound): the server could not find the requested resource",
    );
    obs.record(&cm_request("cilium-config"), Err(odd));
    assert_eq!(one(&obs, "hubble").state, State::Unknown);
}

#[test]
fn hubble_on_needs_its_relay_rolled_out() {
    let on = cilium_config("true", "true");
    let r = one(&with_config_maps(Some(&on), None), "hubble");
    // dirqual has no hubble-relay Deployment.
    assert_eq!(r.state, State::Degraded, "{:?}", r.evidence);
    assert_eq!(r.reason, "no Deployment kube-system/hubble-relay");
    let off = cilium_config("true", "false");
    assert_eq!(
        one(&with_config_maps(Some(&off), None), "hubble").state,
        State::Absent
    );
}

#[test]
fn the_config_map_read_keeps_only_the_named_keys_and_reads_by_name() {
    let on = cilium_config("true", "true");
    let obs = with_config_maps(Some(&on), None);
    let Some(Ok(Some(cm))) = obs.config_maps.get("kube-system/cilium-config") else {
        panic!("{:?}", obs.config_maps)
    };
    assert!(
        cm.keys().all(|k| k != "cluster-name" && k != "ipam"),
        "{cm:?}"
    );
    assert!(cm.contains_key("enable-hubble") && cm.contains_key("kube-proxy-replacement"));
    let ids = ["kube-proxy-replacement".to_string(), "hubble".to_string()];
    let reads = catalog().required_reads(&ids);
    let cm = |name: &str, keys: &[&str]| ReadRequest::ConfigMap {
        namespace: "kube-system".into(),
        name: name.into(),
        keys: keys.iter().map(|k| k.to_string()).collect(),
    };
    // ONE request per ConfigMap, the keys of both layers' checks merged.
    assert_eq!(
        reads,
        [
            ReadRequest::Workloads(WorkloadKind::DaemonSet),
            ReadRequest::Workloads(WorkloadKind::Deployment),
            cm(
                "cilium-config",
                &["enable-hubble", "kube-proxy-replacement"]
            ),
            cm("kube-proxy", &[]),
        ]
    );
}
