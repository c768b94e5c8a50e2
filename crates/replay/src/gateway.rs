//! SPEC §15's exposure chain and CSI registration in the fixtures: every dirqual-based
//! cluster registers Rook's two CSI drivers on each node (CSIDriver and CSINode objects, as
//! the kubelet's plugin registration writes them), and the `gateway` fixture adds the
//! Gateway API v1 CRDs, Cilium's GatewayClass, a Gateway with its address, an HTTPRoute, a
//! GRPCRoute and a CiliumLoadBalancerIPPool, shaped as Cilium 1.16-1.18 writes their status.
//!
//! | name | what is wrong |
//! |---|---|
//! | `gateway` | nothing: the chain is whole (and an Istio GatewayClass, not Cilium's, is ignored) |
//! | `gateway-waiting` | GatewayClass cilium `Accepted=Unknown` (`Pending`, "Waiting for controller"): cilium-operator started before the CRDs |
//! | `gateway-no-address` | Gateway infra/cilium-gw `Programmed=False` (`AddressNotAssigned`), no `status.addresses` |
//! | `gateway-backend` | HTTPRoute apps/web `ResolvedRefs=False` (`BackendNotFound`) |
//! | `gateway-pool-conflict` | CiliumLoadBalancerIPPool lb-pool-2 `cilium.io/PoolConflict=True` (its range overlaps lb-pool's) |
//! | `gateway-pool-exhausted` | CiliumLoadBalancerIPPool lb-pool `cilium.io/IPsAvailable` 0 |
//! | `gateway-v2alpha1` | the healthy chain with the pool CRD served at `cilium.io/v2alpha1` only (Cilium 1.14-1.17) |
//! | `gateway-absent` | dirqual with the Gateway API CRDs and only the Istio GatewayClass: no Cilium class |
//! | `csi-unregistered` | dirqual whose node dirqual3's CSINode lacks the RBD driver (its plugin pod never registered) |
//! | `csi-no-driver` | dirqual without the CSIDriver `rook-ceph.rbd.csi.ceph.com` |

use serde_json::{json, Value};

use crate::builders::{custom, find, Builder, CrdSpec, K8S_VERSION, T_LAYERS};
use crate::clusters::dirqual_builder;
use crate::fixture::Fixture;
use crate::platform::{POOL_VERSION, RBD_AND_CEPHFS};
/// Cilium's gateway controller name (`spec.controllerName` of its GatewayClass).
pub const CILIUM_CONTROLLER: &str = "io.cilium/gateway-controller";

fn cond(t: &str, status: &str, reason: &str, message: &str) -> Value {
    json!({"type": t, "status": status, "reason": reason, "message": message,
           "observedGeneration": 1, "lastTransitionTime": T_LAYERS})
}

/// A route's `status.parents[]` entry written by Cilium for Gateway infra/cilium-gw.
fn parent(resolved: Value) -> Value {
    json!({
        "controllerName": CILIUM_CONTROLLER,
        "parentRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway",
                      "name": "cilium-gw", "namespace": "infra"},
        "conditions": [cond("Accepted", "True", "Accepted", "Accepted HTTPRoute"), resolved]
    })
}

fn resolved_ok() -> Value {
    cond(
        "ResolvedRefs",
        "True",
        "ResolvedRefs",
        "Service reference is valid",
    )
}

/// A LoadBalancer IP pool as Cilium's LB-IPAM writes its status: counts as the messages of
/// `cilium.io/IPsTotal`, `IPsAvailable`, `IPsUsed` (status Unknown, reason `noreason`).
fn pool(version: &str, name: &str, cidr: &str, available: &str, conflict: Option<&str>) -> Value {
    let mut conditions = vec![
        cond("cilium.io/IPsTotal", "Unknown", "noreason", "254"),
        cond("cilium.io/IPsAvailable", "Unknown", "noreason", available),
        cond("cilium.io/IPsUsed", "Unknown", "noreason", "1"),
    ];
    conditions.push(match conflict {
        Some(message) => cond("cilium.io/PoolConflict", "True", "cidr_overlap", message),
        None => cond("cilium.io/PoolConflict", "False", "resolved", ""),
    });
    custom(
        &format!("cilium.io/{version}"),
        "CiliumLoadBalancerIPPool",
        None,
        name,
        json!({"blocks": [{"cidr": cidr}], "disabled": false}),
        json!({"conditions": conditions}),
        T_LAYERS,
    )
}
/// The pool's CRD served at `version` instead (a Cilium that moved it).
fn set_pool_version(b: &mut Builder, version: &str) {
    for o in &mut b.objects {
        if o["kind"] == "CustomResourceDefinition"
            && o["metadata"]["name"] == "ciliumloadbalancerippools.cilium.io"
        {
            o["spec"]["versions"][0]["name"] = json!(version);
            o["status"]["storedVersions"] = json!([version]);
        }
    }
    for r in &mut b.resources {
        if r.group == "cilium.io" && r.plural == "ciliumloadbalancerippools" {
            r.version = version.to_string();
        }
    }
}

/// The Gateway API v1 CRDs (standard channel 1.2: GRPCRoute is v1); the pool's CRD at
/// `pool_version`.
fn add_crds(b: &mut Builder, pool_version: &str) {
    for (kind, plural, namespaced, short) in [
        ("GatewayClass", "gatewayclasses", false, &["gc"][..]),
        ("Gateway", "gateways", true, &["gtw"][..]),
        ("HTTPRoute", "httproutes", true, &[][..]),
        ("GRPCRoute", "grpcroutes", true, &[][..]),
    ] {
        b.crd(
            &CrdSpec {
                group: "gateway.networking.k8s.io",
                version: "v1",
                kind,
                plural,
                namespaced,
                short,
                categories: &["gateway-api"],
                columns: &[],
            },
            crate::builders::small_schema(),
            T_LAYERS,
        );
    }
    if pool_version != POOL_VERSION {
        set_pool_version(b, pool_version);
    }
}

fn gateway_class(name: &str, controller: &str, accepted: Value) -> Value {
    custom(
        "gateway.networking.k8s.io/v1",
        "GatewayClass",
        None,
        name,
        json!({"controllerName": controller}),
        json!({"conditions": [accepted]}),
        T_LAYERS,
    )
}

/// The healthy chain on dirqual, the pool at `pool_version`.
fn chain(pool_version: &str) -> Builder {
    let mut b = dirqual_builder(&[], "HEALTH_OK");
    add_crds(&mut b, pool_version);
    b.ns("infra", T_LAYERS);
    b.ns("apps", T_LAYERS);
    b.obj(gateway_class(
        "cilium",
        CILIUM_CONTROLLER,
        cond("Accepted", "True", "Accepted", "Valid GatewayClass"),
    ));
    // Another controller's class, its Gateway waiting: none of Cilium's business.
    b.obj(gateway_class(
        "istio",
        "istio.io/gateway-controller",
        cond("Accepted", "Unknown", "Pending", "Waiting for controller"),
    ));
    b.obj(custom(
        "gateway.networking.k8s.io/v1",
        "Gateway",
        Some("infra"),
        "cilium-gw",
        json!({"gatewayClassName": "cilium",
               "listeners": [{"name": "https", "port": 443, "protocol": "HTTPS", "hostname": "*.dirqual.example.com",
                              "tls": {"mode": "Terminate", "certificateRefs": [{"kind": "Secret", "name": "wildcard-tls"}]},
                              "allowedRoutes": {"namespaces": {"from": "All"}}}]}),
        json!({"addresses": [{"type": "IPAddress", "value": "10.67.3.200"}],
               "conditions": [cond("Accepted", "True", "Accepted", "Gateway successfully scheduled"),
                              cond("Programmed", "True", "Programmed", "Gateway successfully reconciled")],
               "listeners": [{"name": "https", "attachedRoutes": 2,
                              "supportedKinds": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute"},
                                                 {"group": "gateway.networking.k8s.io", "kind": "GRPCRoute"}],
                              "conditions": [cond("Programmed", "True", "Programmed", "Listener Programmed")]}]}),
        T_LAYERS,
    ));
    b.obj(custom(
        "gateway.networking.k8s.io/v1",
        "Gateway",
        Some("infra"),
        "istio-gw",
        json!({"gatewayClassName": "istio", "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}),
        json!({"conditions": [cond("Accepted", "Unknown", "Pending", "Waiting for controller"),
                              cond("Programmed", "Unknown", "Pending", "Waiting for controller")]}),
        T_LAYERS,
    ));
    b.obj(custom(
        "gateway.networking.k8s.io/v1",
        "HTTPRoute",
        Some("apps"),
        "web",
        json!({"parentRefs": [{"name": "cilium-gw", "namespace": "infra"}],
               "hostnames": ["web.dirqual.example.com"],
               "rules": [{"backendRefs": [{"name": "web", "port": 8080}]}]}),
        json!({"parents": [parent(resolved_ok())]}),
        T_LAYERS,
    ));
    b.obj(custom(
        "gateway.networking.k8s.io/v1",
        "GRPCRoute",
        Some("apps"),
        "echo",
        json!({"parentRefs": [{"name": "cilium-gw", "namespace": "infra"}],
               "rules": [{"backendRefs": [{"name": "echo", "port": 9000}]}]}),
        json!({"parents": [parent(resolved_ok())]}),
        T_LAYERS,
    ));
    b.obj(pool(pool_version, "lb-pool", "10.67.3.0/24", "253", None));
    b
}

pub fn gateway() -> Fixture {
    chain("v2").finish(K8S_VERSION)
}

pub fn gateway_v2alpha1() -> Fixture {
    chain("v2alpha1").finish(K8S_VERSION)
}

pub fn gateway_waiting() -> Fixture {
    let mut f = chain("v2").finish(K8S_VERSION);
    for c in find(&mut f, "GatewayClass", "cilium") {
        c["status"]["conditions"] = json!([cond(
            "Accepted",
            "Unknown",
            "Pending",
            "Waiting for controller"
        )]);
    }
    f
}

pub fn gateway_no_address() -> Fixture {
    let mut f = chain("v2").finish(K8S_VERSION);
    for g in find(&mut f, "Gateway", "cilium-gw") {
        g["status"]["addresses"] = json!([]);
        g["status"]["conditions"] = json!([
            cond(
                "Accepted",
                "True",
                "Accepted",
                "Gateway successfully scheduled"
            ),
            cond(
                "Programmed",
                "False",
                "AddressNotAssigned",
                "No addresses have been assigned to the Gateway"
            )
        ]);
    }
    f
}

pub fn gateway_backend() -> Fixture {
    let mut f = chain("v2").finish(K8S_VERSION);
    for r in find(&mut f, "HTTPRoute", "web") {
        r["status"]["parents"] = json!([parent(cond(
            "ResolvedRefs",
            "False",
            "BackendNotFound",
            "Service \"web\" not found"
        ))]);
    }
    f
}

pub fn gateway_pool_conflict() -> Fixture {
    let mut b = chain("v2");
    b.obj(pool(
        "v2",
        "lb-pool-2",
        "10.67.3.128/25",
        "0",
        Some("Pool conflicts since range '10.67.3.128/25' overlaps range '10.67.3.0/24' from IP Pool 'lb-pool'"),
    ));
    b.finish(K8S_VERSION)
}

pub fn gateway_pool_exhausted() -> Fixture {
    let mut f = chain("v2").finish(K8S_VERSION);
    for p in find(&mut f, "CiliumLoadBalancerIPPool", "lb-pool") {
        p["status"]["conditions"][1]["message"] = json!("0");
        p["status"]["conditions"][2]["message"] = json!("254");
    }
    f
}

pub fn gateway_absent() -> Fixture {
    let mut f = chain("v2").finish(K8S_VERSION);
    let cilium =
        |o: &Value, kind: &str, name: &str| o["kind"] == kind && o["metadata"]["name"] == name;
    f.objects.retain(|o| {
        let kind = o["kind"].as_str().unwrap_or_default();
        !cilium(o, "GatewayClass", "cilium")
            && !cilium(o, "Gateway", "cilium-gw")
            && !["HTTPRoute", "GRPCRoute", "CiliumLoadBalancerIPPool"].contains(&kind)
    });
    f
}

pub fn csi_unregistered() -> Fixture {
    let mut f = dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION);
    for n in find(&mut f, "CSINode", "dirqual3") {
        n["spec"]["drivers"] =
            json!([{"name": RBD_AND_CEPHFS[0], "nodeID": "dirqual3", "topologyKeys": null}]);
    }
    f
}

pub fn csi_no_driver() -> Fixture {
    let mut f = dirqual_builder(&[], "HEALTH_OK").finish(K8S_VERSION);
    f.objects
        .retain(|o| !(o["kind"] == "CSIDriver" && o["metadata"]["name"] == RBD_AND_CEPHFS[1]));
    f
}
