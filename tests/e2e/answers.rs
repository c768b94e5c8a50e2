//! Every answer is the object asked for (SPEC §9 v0.4, issue 31 item 4), through the REAL
//! kubectl and its proxy against the replay server: a hostile answer to a read by name (`{}`,
//! a List, a Secret, a ConfigMap of another name or namespace, a `Status` of success) or to
//! a list (a GatewayList for gatewayclasses, a list whose item is of another kind) makes the
//! layers that read it `unknown` with an evidence line saying what came back — never
//! "absent, install it" (cilium-config) nor present (ceph's mon endpoints).

use snapbox::str;

use crate::bed_or_skip;
use crate::harness::text_snap;
use crate::support::*;

const CILIUM_CONFIG: &str = "/api/v1/namespaces/kube-system/configmaps/cilium-config";
const MON_ENDPOINTS: &str = "/api/v1/namespaces/rook-ceph/configmaps/rook-ceph-mon-endpoints";

/// The drifts cluster (cilium-config configures kube-proxy replacement and Hubble) with
/// ceph and the SPEC §15 layers declared, every answer at `path` replaced by `action`.
fn bed(fixture: &str, faults: &[String]) -> Option<E2e> {
    let faults: Vec<&str> = faults.iter().map(String::as_str).collect();
    let bed = E2e::new(fixture, &faults)?;
    let with = LAYERS.replace(']', ", kube-proxy-replacement, hubble]");
    bed.write_stack(
        "dirqual",
        &dirqual_topology(&bed.server.url()).replace(LAYERS, &with),
    );
    Some(bed)
}

/// `preview -o json`: each of `ids` is unknown with exactly `line` among its evidence, and
/// none is planned (install or repair); only GET reached the server.
fn unknown_saying(bed: &E2e, ids: &[&str], line: &str) {
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    for id in ids {
        assert_eq!(state_of(&v, id), "unknown", "{id}: {}", layer(&v, id));
        let ev = evidence(&v, id);
        assert!(ev.iter().any(|e| e == line), "{id}: no {line:?} in {ev:#?}");
        for list in ["install", "repair"] {
            assert!(!plan_ids(&v, list).contains(&id.to_string()), "{id}: {v}");
        }
    }
    assert_read_only(&bed.server);
}

/// The evidence line of a by-name read of `id` answered with `came` instead.
fn by_name(id: &str, came: &str) -> String {
    let (ns, name) = id.split_once('/').unwrap_or_default();
    format!(
        "read of ConfigMap {id} failed: BadOutput: the answer was {came}, not v1 ConfigMap {ns}/{name}"
    )
}

/// One hostile answer for both ConfigMaps read by name: every layer reading them is
/// unknown, saying what came back.
fn hostile_config_maps(action: &str, cilium: &str, mon: &str) {
    let faults = [
        format!("GET {CILIUM_CONFIG}={action}"),
        format!("GET {MON_ENDPOINTS}={action}"),
    ];
    let bed = bed_or_skip!(bed("drifts", &faults));
    unknown_saying(
        &bed,
        &["kube-proxy-replacement", "hubble"],
        &by_name("kube-system/cilium-config", cilium),
    );
    unknown_saying(
        &bed,
        &["ceph"],
        &by_name("rook-ceph/rook-ceph-mon-endpoints", mon),
    );
}

#[test]
fn an_empty_object_for_a_config_map_is_unknown_never_absent_or_present() {
    let came = "an object without apiVersion, kind or name";
    hostile_config_maps("body:{}", came, came);
}

#[test]
fn a_list_for_a_config_map_is_unknown() {
    hostile_config_maps(
        "serve:/api/v1/namespaces/kube-system/configmaps",
        "v1 ConfigMapList",
        "v1 ConfigMapList",
    );
}

#[test]
fn a_secret_for_a_config_map_is_unknown() {
    let secret = r#"body:{"apiVersion":"v1","kind":"Secret","metadata":{"name":"cilium-config","namespace":"kube-system"},"type":"Opaque","data":{"kube-proxy-replacement":"dHJ1ZQ"}}"#;
    let came = "v1 Secret kube-system/cilium-config";
    hostile_config_maps(secret, came, came);
}

#[test]
fn a_config_map_of_another_name_or_namespace_is_unknown() {
    // Another name, saying what cilium-config would say to be present.
    let other = r#"body:{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hubble-config","namespace":"kube-system"},"data":{"kube-proxy-replacement":"true","enable-hubble":"true","outOfQuorum":""}}"#;
    let came = "v1 ConfigMap kube-system/hubble-config";
    hostile_config_maps(other, came, came);
    // The right name in another namespace.
    let elsewhere = r#"body:{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cilium-config","namespace":"default"},"data":{"kube-proxy-replacement":"true","enable-hubble":"true","outOfQuorum":""}}"#;
    let came = "v1 ConfigMap default/cilium-config";
    hostile_config_maps(elsewhere, came, came);
}

#[test]
fn a_status_of_success_for_a_config_map_is_unknown() {
    let status =
        r#"body:{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":200}"#;
    let came = "v1 Status (Success)";
    hostile_config_maps(status, came, came);
}

#[test]
fn a_gateway_list_for_gatewayclasses_is_unknown() {
    let faults = ["GET /apis/gateway.networking.k8s.io/v1/gatewayclasses=serve:/apis/gateway.networking.k8s.io/v1/gateways"];
    let bed = bed_or_skip!(E2e::new("gateway", &faults));
    bed.write_stack(
        "dirqual",
        &dirqual_topology(&bed.server.url()).replace(LAYERS, "[k8s, cni, ceph, storage, gateway]"),
    );
    unknown_saying(
        &bed,
        &["gateway"],
        "read of gatewayclasses.gateway.networking.k8s.io failed: BadOutput: the answer was gateway.networking.k8s.io/v1 GatewayList, not a list of gatewayclasses.gateway.networking.k8s.io",
    );
}

#[test]
fn a_list_whose_item_is_of_another_kind_is_unknown() {
    let nodes = r#"GET /api/v1/nodes=body:{"apiVersion":"v1","kind":"NodeList","metadata":{"resourceVersion":"1"},"items":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"dirqual1"}}]}"#;
    let bed = bed_or_skip!(E2e::new("dirqual", &[nodes]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    assert_eq!(state_of(&v, "k8s"), "unknown", "{}", layer(&v, "k8s"));
    assert_eq!(
        v["real"]["nodes"]["error"].as_str(),
        Some("BadOutput: the answer was a List with an item of kind Secret, not a list of Node objects"),
        "{v}"
    );
    // The whole plan: k8s never planned for install.
    text_snap(
        &plan_lines(&v),
        str![[r#"
install: datalake, certs
repair: -
undecided: k8s, cni, storage

"#]],
    );
    assert_read_only(&bed.server);
}
