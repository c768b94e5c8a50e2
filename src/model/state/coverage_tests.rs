//! The network-policy layer (SPEC §15, scenario 11) and the exemptions every namespace-wide
//! check shares, judged on NetworkPolicies and CiliumNetworkPolicies shaped as the API
//! serves them, decoded by the same read as a live cluster's (only the members kept).

use super::coverage::{cilium_policy_denies, network_policy_denies};
use super::fixtures::{declared, dirqual};
use super::*;
use crate::model::catalog::{CILIUM_NETWORK_POLICIES, NETWORK_POLICIES};
use crate::model::observation::{parse_custom_objects, ReadRequest};

const POLICIES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/kubectl/networkpolicies.json"
));

fn catalog() -> Catalog {
    Catalog::builtin().unwrap()
}

fn list(items: &[serde_json::Value]) -> String {
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

fn np(ns: &str, name: &str, spec: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": ns, "resourceVersion": "812"}, "spec": spec})
}

fn cnp(ns: &str, name: &str, spec: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"apiVersion": "cilium.io/v2", "kind": "CiliumNetworkPolicy",
        "metadata": {"name": name, "namespace": ns, "generation": 1}, "spec": spec,
        "status": {"conditions": [{"type": "Valid", "status": "True", "message": "Policy validation succeeded"}]}})
}

/// dirqual with these policies read (and both API groups served), cilium-config as given.
fn with_policies(nps: &str, cnps: &str, enable_policy: Option<&str>) -> Observation {
    let mut obs = dirqual();
    let ids: Vec<String> = catalog().ids().into_iter().map(String::from).collect();
    obs.keep = catalog().object_fields(&ids);
    if let Ok(groups) = obs.api_groups.as_mut() {
        groups.insert("networking.k8s.io".into());
        groups.insert("cilium.io".into());
    }
    obs.record(&ReadRequest::Resource(NETWORK_POLICIES.into()), Ok(nps));
    obs.record(
        &ReadRequest::Resource(CILIUM_NETWORK_POLICIES.into()),
        Ok(cnps),
    );
    let cm = catalog()
        .required_reads(&["network-policy".to_string()])
        .into_iter()
        .find(|r| r.key().as_deref() == Some("kube-system/cilium-config"))
        .unwrap();
    let text = enable_policy.map(|v| {
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cilium-config", "namespace": "kube-system"},
            "data": {"enable-policy": v, "cluster-name": "dirqual"}})
        .to_string()
    });
    let gone = crate::model::observation::ReadFailure::new(
        crate::model::observation::FailureKind::NotFound,
        "Error from server (NotFound): configmaps \"cilium-config\" not found",
    );
    obs.record(&cm, text.as_deref().ok_or(gone));
    obs
}

fn layer(obs: &Observation) -> LayerReport {
    evaluate(
        &catalog(),
        &["network-policy".to_string()],
        &declared(),
        obs,
    )
    .remove(0)
}

fn decoded(
    resource: &str,
    items: &[serde_json::Value],
) -> Vec<crate::model::observation::CustomObject> {
    let uses = catalog().object_fields(&["network-policy".to_string()]);
    parse_custom_objects(&list(items), &uses[resource]).unwrap()
}

#[test]
fn a_network_policy_denies_ingress_only_with_every_pod_ingress_effective_and_no_rule() {
    let judge = |spec: serde_json::Value| {
        network_policy_denies(&decoded(NETWORK_POLICIES, &[np("a", "p", spec)])[0])
    };
    assert!(judge(
        serde_json::json!({"podSelector": {}, "policyTypes": ["Ingress"]})
    ));
    assert!(judge(
        serde_json::json!({"podSelector": {}, "policyTypes": ["Ingress", "Egress"]})
    ));
    // policyTypes omitted: Ingress is implied.
    assert!(judge(serde_json::json!({"podSelector": {}})));
    assert!(judge(
        serde_json::json!({"podSelector": {"matchLabels": {}}, "ingress": []})
    ));
    // `ingress: [{}]` is one rule allowing every source: not a default deny.
    assert!(!judge(
        serde_json::json!({"podSelector": {}, "ingress": [{}]})
    ));
    assert!(!judge(
        serde_json::json!({"podSelector": {}, "policyTypes": ["Ingress"], "ingress": [{}]})
    ));
    // Egress only, or some pods only.
    assert!(!judge(
        serde_json::json!({"podSelector": {}, "policyTypes": ["Egress"]})
    ));
    assert!(!judge(
        serde_json::json!({"podSelector": {"matchLabels": {"app": "web"}}, "policyTypes": ["Ingress"]})
    ));
    assert!(!judge(
        serde_json::json!({"podSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}})
    ));
}

#[test]
fn a_cilium_policy_denies_ingress_with_an_empty_endpoint_selector_and_an_ingress_section() {
    let judge = |spec: serde_json::Value| {
        cilium_policy_denies(&decoded(CILIUM_NETWORK_POLICIES, &[cnp("a", "p", spec)])[0])
    };
    // Cilium's documented default deny: an empty rule selects no source.
    assert!(judge(
        serde_json::json!({"endpointSelector": {}, "ingress": [{}]})
    ));
    assert!(judge(
        serde_json::json!({"endpointSelector": {}, "ingressDeny": [{"fromEntities": ["world"]}]})
    ));
    assert!(!judge(
        serde_json::json!({"endpointSelector": {}, "egress": [{}]})
    ));
    assert!(!judge(
        serde_json::json!({"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [{}]})
    ));
    // A host policy selects nodes, not the namespace's endpoints.
    assert!(!judge(
        serde_json::json!({"nodeSelector": {}, "ingress": [{}]})
    ));
}

#[test]
fn only_the_members_of_the_paths_that_decide_are_kept() {
    let objs = decoded(
        NETWORK_POLICIES,
        &serde_json::from_str::<serde_json::Value>(POLICIES).unwrap()["items"]
            .as_array()
            .unwrap()
            .clone(),
    );
    let json = serde_json::to_string(&objs).unwrap();
    assert!(
        !json.contains("do-not-keep") && !json.contains("metadata.name") && !json.contains("3000"),
        "{json}"
    );
    assert!(json.contains("members .spec.policyTypes"), "{json}");
}

#[test]
fn every_namespace_covered_is_present_and_exemptions_are_not_judged() {
    let r = layer(&with_policies(POLICIES, &list(&[]), Some("default")));
    assert_eq!(r.state, State::Present, "{:?}", r.evidence);
    assert!(
        r.evidence
            .contains(&"7 namespaces with a default-deny ingress policy (4 exempt)".to_string()),
        "{:?}",
        r.evidence
    );
}

#[test]
fn a_namespace_without_default_deny_is_named_and_allow_all_is_not_one() {
    let mut v: serde_json::Value = serde_json::from_str(POLICIES).unwrap();
    let items = v["items"].as_array_mut().unwrap();
    // dataops lost its policy; monitoring's was "fixed" to allow everything.
    items.retain(|i| i["metadata"]["namespace"] != "dataops");
    for i in items.iter_mut() {
        if i["metadata"]["namespace"] == "monitoring" {
            i["spec"]["ingress"] = serde_json::json!([{}]);
        }
    }
    let r = layer(&with_policies(&v.to_string(), &list(&[]), None));
    assert_eq!(r.state, State::Degraded, "{:?}", r.evidence);
    assert_eq!(
        r.reason,
        "2/7 namespaces without a default-deny ingress policy: dataops; monitoring"
    );
    // A CiliumNetworkPolicy covers dataops instead.
    let cilium = list(&[cnp(
        "dataops",
        "default-deny",
        serde_json::json!({"endpointSelector": {}, "ingress": [{}]}),
    )]);
    let r = layer(&with_policies(&v.to_string(), &cilium, None));
    assert_eq!(
        r.reason,
        "1/7 namespaces without a default-deny ingress policy: monitoring"
    );
}

#[test]
fn a_catalog_exempt_adds_to_the_built_in_exemptions() {
    let mut v: serde_json::Value = serde_json::from_str(POLICIES).unwrap();
    v["items"]
        .as_array_mut()
        .unwrap()
        .retain(|i| i["metadata"]["namespace"] != "default");
    let obs = with_policies(&v.to_string(), &list(&[]), None);
    assert_eq!(layer(&obs).state, State::Degraded);
    let mut c = catalog();
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/model/catalog/builtin.yaml"
    ));
    let start = text.find("- id: network-policy").unwrap();
    let ours = text[start..].replace(
        "    - defaultDenyIngress: {}",
        "    - defaultDenyIngress: {exempt: [default]}",
    );
    c.overlay_str(&ours, "stacks/layers.yaml").unwrap();
    let r = evaluate(&c, &["network-policy".to_string()], &declared(), &obs).remove(0);
    assert_eq!(r.state, State::Present, "{:?}", r.evidence);
    assert!(r
        .evidence
        .contains(&"6 namespaces with a default-deny ingress policy (5 exempt)".to_string()));
    assert!(c.get("network-policy").unwrap().healthy[0]
        .kind
        .to_string()
        .starts_with("every namespace except kube-system, kube-public, kube-node-lease, rook-ceph, cilium-secrets, default has"));
    assert!(c
        .overlay_str(&ours.replace("[default]", "[Bad_NS]"), "stacks/layers.yaml")
        .unwrap_err()
        .message
        .contains("is not a namespace name"));
}

#[test]
fn policies_not_enforced_by_cilium_is_degraded() {
    let r = layer(&with_policies(POLICIES, &list(&[]), Some("never")));
    assert_eq!(r.state, State::Degraded, "{:?}", r.evidence);
    assert_eq!(
        r.reason,
        "ConfigMap kube-system/cilium-config enable-policy = never: policies are not enforced"
    );
}

#[test]
fn no_policy_at_all_is_absent_never_degraded_and_a_failed_read_is_unknown() {
    let r = layer(&with_policies(&list(&[]), &list(&[]), Some("default")));
    assert_eq!(r.state, State::Absent, "{:?}", r.evidence);
    // No Cilium CRDs: the CiliumNetworkPolicy read is not served, still absent.
    let mut obs = with_policies(&list(&[]), &list(&[]), None);
    if let Ok(groups) = obs.api_groups.as_mut() {
        groups.remove("cilium.io");
    }
    assert_eq!(layer(&obs).state, State::Absent);
    let mut obs = with_policies(POLICIES, &list(&[]), None);
    obs.record(
        &ReadRequest::Resource(NETWORK_POLICIES.into()),
        Err(crate::model::observation::ReadFailure::new(
            crate::model::observation::FailureKind::Forbidden,
            "networkpolicies.networking.k8s.io is forbidden",
        )),
    );
    assert_eq!(layer(&obs).state, State::Unknown);
}
