//! SPEC §15's `gateway` layer and `storage`'s CSI registration through the real kubectl
//! against the replay server: the healthy chain plans nothing (on either read path, with the
//! pool CRD at `cilium.io/v2` or `v2alpha1`), each broken link is `degraded` with the
//! gateway, route, pool or node named (text and JSON), no Cilium GatewayClass is `absent`
//! (install, never degraded), and every request was a GET of what the checks name.

use crate::bed_or_skip;
use snapbox::str;

use crate::support::*;

const STACK_LAYERS: &str = "[k8s, cni, ceph, storage, gateway]";

/// The fixture `name` behind a dirqual stack declaring the gateway layer (the CSI fixtures,
/// dirqual without the Gateway API: the layers up to storage).
fn bed(name: &str) -> Option<E2e> {
    let bed = E2e::new(name, &[])?;
    let layers = if name.starts_with("csi-") {
        "[k8s, cni, ceph, storage]"
    } else {
        STACK_LAYERS
    };
    let topology = dirqual_topology(&bed.server.url()).replace(LAYERS, layers);
    bed.write_stack("dirqual", &topology);
    Some(bed)
}

/// GET only, and nothing but what the checks name: no Secret, no ConfigMap list, no pod
/// list without a selector, no single Gateway API object, no write of any kind.
fn assert_minimal_reads(bed: &E2e) {
    assert_read_only(&bed.server);
    for e in bed.server.audit() {
        let p = &e.path;
        assert_eq!(e.method, "GET", "{p}");
        assert!(!p.contains("/secrets"), "a Secret was read: {p}");
        assert!(!p.ends_with("/configmaps"), "ConfigMaps were listed: {p}");
        if p.ends_with("/pods") {
            assert!(
                p.starts_with("/api/v1/namespaces/") && e.query.contains("labelSelector="),
                "pods read without a namespace and selector: {p}?{}",
                e.query
            );
        }
        if p.contains("/services") || p.contains("/endpoints") {
            panic!("services or endpoints were read: {p}");
        }
    }
}

fn preview_json(bed: &E2e, env: &[(&str, &str)]) -> serde_json::Value {
    let mut c = bed.command(&["preview", "--no-input", "-o", "json"]);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = run(&c);
    assert_eq!(out.code, Some(0), "{out:?}");
    out.json()
}

/// The healthy chain: both layers present, the plan empty, the evidence naming what it saw.
fn healthy(bed: &E2e, env: &[(&str, &str)]) -> serde_json::Value {
    let v = preview_json(bed, env);
    for id in ["k8s", "cni", "ceph", "storage", "gateway"] {
        assert_eq!(state_of(&v, id), "present", "{id}: {}", layer(&v, id));
    }
    for list in ["install", "repair", "undecided"] {
        assert!(plan_ids(&v, list).is_empty(), "{list}: {}", v["plan"]);
    }
    let ev = evidence(&v, "gateway");
    for line in [
        "GatewayClass cilium",
        "1/1 GatewayClass with .spec.controllerName = io.cilium/gateway-controller Accepted",
        "1/1 Gateway whose .spec.gatewayClassName names a GatewayClass with .spec.controllerName = io.cilium/gateway-controller Accepted, Programmed, .status.addresses[]",
        "1/1 HTTPRoute of io.cilium/gateway-controller Accepted, ResolvedRefs",
        "1/1 GRPCRoute of io.cilium/gateway-controller Accepted, ResolvedRefs",
        "1/1 CiliumLoadBalancerIPPool not cilium.io/PoolConflict, cilium.io/IPsAvailable > 0",
    ] {
        assert!(ev.iter().any(|e| e == line), "no {line:?} in {ev:#?}");
    }
    // The Istio class and its Pending Gateway are another controller's: never judged.
    assert!(!v.to_string().contains("istio"), "{ev:#?}");
    assert!(
        evidence(&v, "storage")
            .iter()
            .any(|e| e == "CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes"),
        "{:#?}",
        evidence(&v, "storage")
    );
    assert_minimal_reads(bed);
    v
}

#[test]
fn a_whole_chain_plans_nothing_on_both_read_paths() {
    let bed = bed_or_skip!(bed("gateway"));
    healthy(&bed, &[]);
    let paths: Vec<String> = bed.server.audit().into_iter().map(|e| e.path).collect();
    for want in [
        "/apis/gateway.networking.k8s.io/v1/gatewayclasses",
        "/apis/gateway.networking.k8s.io/v1/gateways",
        "/apis/gateway.networking.k8s.io/v1/httproutes",
        "/apis/gateway.networking.k8s.io/v1/grpcroutes",
        "/apis/cilium.io/v2/ciliumloadbalancerippools",
        "/apis/storage.k8s.io/v1/csidrivers",
        "/apis/storage.k8s.io/v1/csinodes",
    ] {
        assert!(paths.iter().any(|p| p == want), "no GET {want}: {paths:#?}");
    }
}

/// Cilium 1.14-1.17 serve the pool at v2alpha1 only: discovery finds it there.
#[test]
fn the_pool_at_v2alpha1_is_read_where_discovery_serves_it() {
    let bed = bed_or_skip!(bed("gateway-v2alpha1"));
    healthy(&bed, &[]);
    assert!(
        bed.server
            .audit()
            .iter()
            .any(|e| e.path == "/apis/cilium.io/v2alpha1/ciliumloadbalancerippools"),
        "{:#?}",
        bed.server.audit()
    );
}

/// `id` is degraded with the exact evidence `line`, in JSON and in the text; the plan
/// repairs it and installs nothing.
fn degraded(name: &str, id: &str, line: &str, want: impl snapbox::IntoData) {
    let bed = bed_or_skip!(bed(name));
    let v = preview_json(&bed, &[]);
    assert_eq!(state_of(&v, id), "degraded", "{id}: {}", layer(&v, id));
    let ev = evidence(&v, id);
    assert!(ev.iter().any(|e| e == line), "{id}: no {line:?} in {ev:#?}");
    assert_eq!(plan_ids(&v, "repair"), [id], "{}", v["plan"]);
    assert!(plan_ids(&v, "install").is_empty(), "{}", v["plan"]);
    let text = bed.run(&["preview", "--no-input", "--no-color", "-v"]);
    assert_eq!(text.code, Some(0), "{text:?}");
    // The whole text (`-v`): the line in `id`'s evidence, `repair ID`.
    text.stdout_snap(want);
    assert_minimal_reads(&bed);
}

/// Run #10: the class waits for a controller that started before the CRDs.
#[test]
fn a_class_waiting_for_its_controller_says_restart_cilium_operator() {
    degraded(
        "gateway-waiting",
        "gateway",
        "0/1 GatewayClass with .spec.controllerName = io.cilium/gateway-controller Accepted; not: GatewayClass cilium Accepted=Unknown (Pending: Waiting for controller): the Cilium operator started before the Gateway API CRDs; restart cilium-operator", str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 1 to repair
  repair gateway  repair in place; never reinstall over an existing layer
    gateway: gateway/class-accepted fails

REAL (read live, not stored)
  nodes              dirqual1..4, 4/4 Ready
  k8s      present   5 checks hold
    ✓ 4 nodes registered
    ✓ 4/4 declared nodes Ready
    ✓ 4 nodes with distinct InternalIPs
    ✓ 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
    ✓ every APIService available (0 served by a Service)
  cni      present   5 checks hold
    ✓ API group cilium.io served
    ✓ DaemonSet kube-system/cilium rolled out (4/4 available)
    ✓ Deployment kube-system/cilium-operator rolled out (2/2 available)
    ✓ no node tainted node.cilium.io/agent-not-ready
    ✓ no version to compare on DaemonSet kube-system/cilium (cilium-agent),
      Deployment kube-system/cilium-operator (cilium-operator)
  ceph     present   9 checks hold
    ✓ API group ceph.rook.io served
    ✓ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
    ✓ 3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a,
      rook-ceph-mon-b, rook-ceph-mon-c)
    ✓ 3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster
      rook-ceph/rook-ceph .spec.mon.count)
    ✓ 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0,
      rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
    ✓ ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty
    ✓ no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)
    ✓ mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)
    ✓ OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2),
      dirqual4 (3)
  storage  present   3 checks hold
    ✓ StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)
    ✓ CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes
    ✓ 0 claims in 2 checked namespaces: none Lost or Pending too long; 0 volumes
      of rook-ceph.rbd.csi.ceph.com: none Failed
  gateway  degraded  1 of 6 checks fails
    ✓ GatewayClass cilium
    ✗ 0/1 GatewayClass with .spec.controllerName = io.cilium/gateway-controller
      Accepted; not: GatewayClass cilium Accepted=Unknown (Pending: Waiting for
      controller): the Cilium operator started before the Gateway API CRDs;
      restart cilium-operator
    ✓ 1/1 Gateway whose .spec.gatewayClassName names a GatewayClass with
      .spec.controllerName = io.cilium/gateway-controller Accepted, Programmed,
      .status.addresses[]
    ✓ 1/1 HTTPRoute of io.cilium/gateway-controller Accepted, ResolvedRefs
    ✓ 1/1 GRPCRoute of io.cilium/gateway-controller Accepted, ResolvedRefs
    ✓ 1/1 CiliumLoadBalancerIPPool not cilium.io/PoolConflict,
      cilium.io/IPsAvailable > 0

"#]]);
}

/// Run #13: the Gateway waits for an address from the pool.
#[test]
fn a_gateway_without_an_address_is_named() {
    degraded(
        "gateway-no-address",
        "gateway",
        "0/1 Gateway whose .spec.gatewayClassName names a GatewayClass with .spec.controllerName = io.cilium/gateway-controller Accepted, Programmed, .status.addresses[]; not: Gateway infra/cilium-gw Programmed=False (AddressNotAssigned: No addresses have been assigned to the Gateway): its LoadBalancer Service has no IP; check the CiliumLoadBalancerIPPools, no .status.addresses[] entry", str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 1 to repair
  repair gateway  repair in place; never reinstall over an existing layer
    gateway: gateway/gateways fails

REAL (read live, not stored)
  nodes              dirqual1..4, 4/4 Ready
  k8s      present   5 checks hold
    ✓ 4 nodes registered
    ✓ 4/4 declared nodes Ready
    ✓ 4 nodes with distinct InternalIPs
    ✓ 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
    ✓ every APIService available (0 served by a Service)
  cni      present   5 checks hold
    ✓ API group cilium.io served
    ✓ DaemonSet kube-system/cilium rolled out (4/4 available)
    ✓ Deployment kube-system/cilium-operator rolled out (2/2 available)
    ✓ no node tainted node.cilium.io/agent-not-ready
    ✓ no version to compare on DaemonSet kube-system/cilium (cilium-agent),
      Deployment kube-system/cilium-operator (cilium-operator)
  ceph     present   9 checks hold
    ✓ API group ceph.rook.io served
    ✓ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
    ✓ 3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a,
      rook-ceph-mon-b, rook-ceph-mon-c)
    ✓ 3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster
      rook-ceph/rook-ceph .spec.mon.count)
    ✓ 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0,
      rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
    ✓ ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty
    ✓ no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)
    ✓ mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)
    ✓ OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2),
      dirqual4 (3)
  storage  present   3 checks hold
    ✓ StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)
    ✓ CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes
    ✓ 0 claims in 2 checked namespaces: none Lost or Pending too long; 0 volumes
      of rook-ceph.rbd.csi.ceph.com: none Failed
  gateway  degraded  1 of 6 checks fails
    ✓ GatewayClass cilium
    ✓ 1/1 GatewayClass with .spec.controllerName = io.cilium/gateway-controller
      Accepted
    ✗ 0/1 Gateway whose .spec.gatewayClassName names a GatewayClass with
      .spec.controllerName = io.cilium/gateway-controller Accepted, Programmed,
      .status.addresses[]; not: Gateway infra/cilium-gw Programmed=False
      (AddressNotAssigned: No addresses have been assigned to the Gateway): its
      LoadBalancer Service has no IP; check the CiliumLoadBalancerIPPools, no
      .status.addresses[] entry
    ✓ 1/1 HTTPRoute of io.cilium/gateway-controller Accepted, ResolvedRefs
    ✓ 1/1 GRPCRoute of io.cilium/gateway-controller Accepted, ResolvedRefs
    ✓ 1/1 CiliumLoadBalancerIPPool not cilium.io/PoolConflict,
      cilium.io/IPsAvailable > 0

"#]]);
}

#[test]
fn a_route_whose_backend_is_not_found_is_named_with_its_gateway() {
    degraded(
        "gateway-backend",
        "gateway",
        "0/1 HTTPRoute of io.cilium/gateway-controller Accepted, ResolvedRefs; not: HTTPRoute apps/web ResolvedRefs=False (BackendNotFound: Service \"web\" not found) on Gateway infra/cilium-gw", str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 1 to repair
  repair gateway  repair in place; never reinstall over an existing layer
    gateway: gateway/http-routes fails

REAL (read live, not stored)
  nodes              dirqual1..4, 4/4 Ready
  k8s      present   5 checks hold
    ✓ 4 nodes registered
    ✓ 4/4 declared nodes Ready
    ✓ 4 nodes with distinct InternalIPs
    ✓ 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
    ✓ every APIService available (0 served by a Service)
  cni      present   5 checks hold
    ✓ API group cilium.io served
    ✓ DaemonSet kube-system/cilium rolled out (4/4 available)
    ✓ Deployment kube-system/cilium-operator rolled out (2/2 available)
    ✓ no node tainted node.cilium.io/agent-not-ready
    ✓ no version to compare on DaemonSet kube-system/cilium (cilium-agent),
      Deployment kube-system/cilium-operator (cilium-operator)
  ceph     present   9 checks hold
    ✓ API group ceph.rook.io served
    ✓ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
    ✓ 3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a,
      rook-ceph-mon-b, rook-ceph-mon-c)
    ✓ 3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster
      rook-ceph/rook-ceph .spec.mon.count)
    ✓ 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0,
      rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
    ✓ ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty
    ✓ no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)
    ✓ mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)
    ✓ OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2),
      dirqual4 (3)
  storage  present   3 checks hold
    ✓ StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)
    ✓ CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes
    ✓ 0 claims in 2 checked namespaces: none Lost or Pending too long; 0 volumes
      of rook-ceph.rbd.csi.ceph.com: none Failed
  gateway  degraded  1 of 6 checks fails
    ✓ GatewayClass cilium
    ✓ 1/1 GatewayClass with .spec.controllerName = io.cilium/gateway-controller
      Accepted
    ✓ 1/1 Gateway whose .spec.gatewayClassName names a GatewayClass with
      .spec.controllerName = io.cilium/gateway-controller Accepted, Programmed,
      .status.addresses[]
    ✗ 0/1 HTTPRoute of io.cilium/gateway-controller Accepted, ResolvedRefs; not:
      HTTPRoute apps/web ResolvedRefs=False (BackendNotFound: Service "web" not
      found) on Gateway infra/cilium-gw
    ✓ 1/1 GRPCRoute of io.cilium/gateway-controller Accepted, ResolvedRefs
    ✓ 1/1 CiliumLoadBalancerIPPool not cilium.io/PoolConflict,
      cilium.io/IPsAvailable > 0

"#]]);
}

#[test]
fn a_pool_in_conflict_is_named_with_cilium_s_words() {
    degraded(
        "gateway-pool-conflict",
        "gateway",
        "1/2 CiliumLoadBalancerIPPool not cilium.io/PoolConflict, cilium.io/IPsAvailable > 0; not: CiliumLoadBalancerIPPool lb-pool-2 cilium.io/PoolConflict=True (cidr_overlap: Pool conflicts since range '10.67.3.128/25' overlaps range '10.67.3.0/24' from IP Pool 'lb-pool'), cilium.io/IPsAvailable 0 (want above 0)", str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 1 to repair
  repair gateway  repair in place; never reinstall over an existing layer
    gateway: gateway/ip-pools fails

REAL (read live, not stored)
  nodes              dirqual1..4, 4/4 Ready
  k8s      present   5 checks hold
    ✓ 4 nodes registered
    ✓ 4/4 declared nodes Ready
    ✓ 4 nodes with distinct InternalIPs
    ✓ 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
    ✓ every APIService available (0 served by a Service)
  cni      present   5 checks hold
    ✓ API group cilium.io served
    ✓ DaemonSet kube-system/cilium rolled out (4/4 available)
    ✓ Deployment kube-system/cilium-operator rolled out (2/2 available)
    ✓ no node tainted node.cilium.io/agent-not-ready
    ✓ no version to compare on DaemonSet kube-system/cilium (cilium-agent),
      Deployment kube-system/cilium-operator (cilium-operator)
  ceph     present   9 checks hold
    ✓ API group ceph.rook.io served
    ✓ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
    ✓ 3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a,
      rook-ceph-mon-b, rook-ceph-mon-c)
    ✓ 3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster
      rook-ceph/rook-ceph .spec.mon.count)
    ✓ 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0,
      rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
    ✓ ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty
    ✓ no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)
    ✓ mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)
    ✓ OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2),
      dirqual4 (3)
  storage  present   3 checks hold
    ✓ StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)
    ✓ CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes
    ✓ 0 claims in 2 checked namespaces: none Lost or Pending too long; 0 volumes
      of rook-ceph.rbd.csi.ceph.com: none Failed
  gateway  degraded  1 of 6 checks fails
    ✓ GatewayClass cilium
    ✓ 1/1 GatewayClass with .spec.controllerName = io.cilium/gateway-controller
      Accepted
    ✓ 1/1 Gateway whose .spec.gatewayClassName names a GatewayClass with
      .spec.controllerName = io.cilium/gateway-controller Accepted, Programmed,
      .status.addresses[]
    ✓ 1/1 HTTPRoute of io.cilium/gateway-controller Accepted, ResolvedRefs
    ✓ 1/1 GRPCRoute of io.cilium/gateway-controller Accepted, ResolvedRefs
    ✗ 1/2 CiliumLoadBalancerIPPool not cilium.io/PoolConflict,
      cilium.io/IPsAvailable > 0; not: CiliumLoadBalancerIPPool lb-pool-2
      cilium.io/PoolConflict=True (cidr_overlap: Pool conflicts since range
      '10.67.3.128/25' overlaps range '10.67.3.0/24' from IP Pool 'lb-pool'),
      cilium.io/IPsAvailable 0 (want above 0)

"#]]);
}

#[test]
fn an_exhausted_pool_is_named() {
    degraded(
        "gateway-pool-exhausted",
        "gateway",
        "0/1 CiliumLoadBalancerIPPool not cilium.io/PoolConflict, cilium.io/IPsAvailable > 0; not: CiliumLoadBalancerIPPool lb-pool cilium.io/IPsAvailable 0 (want above 0)", str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 1 to repair
  repair gateway  repair in place; never reinstall over an existing layer
    gateway: gateway/ip-pools fails

REAL (read live, not stored)
  nodes              dirqual1..4, 4/4 Ready
  k8s      present   5 checks hold
    ✓ 4 nodes registered
    ✓ 4/4 declared nodes Ready
    ✓ 4 nodes with distinct InternalIPs
    ✓ 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
    ✓ every APIService available (0 served by a Service)
  cni      present   5 checks hold
    ✓ API group cilium.io served
    ✓ DaemonSet kube-system/cilium rolled out (4/4 available)
    ✓ Deployment kube-system/cilium-operator rolled out (2/2 available)
    ✓ no node tainted node.cilium.io/agent-not-ready
    ✓ no version to compare on DaemonSet kube-system/cilium (cilium-agent),
      Deployment kube-system/cilium-operator (cilium-operator)
  ceph     present   9 checks hold
    ✓ API group ceph.rook.io served
    ✓ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
    ✓ 3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a,
      rook-ceph-mon-b, rook-ceph-mon-c)
    ✓ 3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster
      rook-ceph/rook-ceph .spec.mon.count)
    ✓ 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0,
      rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
    ✓ ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty
    ✓ no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)
    ✓ mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)
    ✓ OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2),
      dirqual4 (3)
  storage  present   3 checks hold
    ✓ StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)
    ✓ CSIDriver rook-ceph.rbd.csi.ceph.com registered on 4/4 nodes
    ✓ 0 claims in 2 checked namespaces: none Lost or Pending too long; 0 volumes
      of rook-ceph.rbd.csi.ceph.com: none Failed
  gateway  degraded  1 of 6 checks fails
    ✓ GatewayClass cilium
    ✓ 1/1 GatewayClass with .spec.controllerName = io.cilium/gateway-controller
      Accepted
    ✓ 1/1 Gateway whose .spec.gatewayClassName names a GatewayClass with
      .spec.controllerName = io.cilium/gateway-controller Accepted, Programmed,
      .status.addresses[]
    ✓ 1/1 HTTPRoute of io.cilium/gateway-controller Accepted, ResolvedRefs
    ✓ 1/1 GRPCRoute of io.cilium/gateway-controller Accepted, ResolvedRefs
    ✗ 0/1 CiliumLoadBalancerIPPool not cilium.io/PoolConflict,
      cilium.io/IPsAvailable > 0; not: CiliumLoadBalancerIPPool lb-pool
      cilium.io/IPsAvailable 0 (want above 0)

"#]]);
}

/// Bench #9 and #22: the class existed, no plugin answered on one node.
#[test]
fn a_node_without_the_csi_driver_is_named() {
    degraded(
        "csi-unregistered",
        "storage",
        "CSIDriver rook-ceph.rbd.csi.ceph.com registered on 3/4 nodes; not in the CSINode of: dirqual3", str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 1 to repair
  repair storage  repair in place; never reinstall over an existing layer
    storage: storage/csi-driver fails

REAL (read live, not stored)
  nodes              dirqual1..4, 4/4 Ready
  k8s      present   5 checks hold
    ✓ 4 nodes registered
    ✓ 4/4 declared nodes Ready
    ✓ 4 nodes with distinct InternalIPs
    ✓ 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
    ✓ every APIService available (0 served by a Service)
  cni      present   5 checks hold
    ✓ API group cilium.io served
    ✓ DaemonSet kube-system/cilium rolled out (4/4 available)
    ✓ Deployment kube-system/cilium-operator rolled out (2/2 available)
    ✓ no node tainted node.cilium.io/agent-not-ready
    ✓ no version to compare on DaemonSet kube-system/cilium (cilium-agent),
      Deployment kube-system/cilium-operator (cilium-operator)
  ceph     present   9 checks hold
    ✓ API group ceph.rook.io served
    ✓ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
    ✓ 3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a,
      rook-ceph-mon-b, rook-ceph-mon-c)
    ✓ 3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster
      rook-ceph/rook-ceph .spec.mon.count)
    ✓ 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0,
      rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
    ✓ ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty
    ✓ no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)
    ✓ mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)
    ✓ OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2),
      dirqual4 (3)
  storage  degraded  1 of 3 checks fails
    ✓ StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)
    ✗ CSIDriver rook-ceph.rbd.csi.ceph.com registered on 3/4 nodes; not in the
      CSINode of: dirqual3
    ✓ 0 claims in 2 checked namespaces: none Lost or Pending too long; 0 volumes
      of rook-ceph.rbd.csi.ceph.com: none Failed

"#]]);
}

#[test]
fn no_csi_driver_for_the_default_class_is_degraded() {
    degraded(
        "csi-no-driver",
        "storage",
        "no CSIDriver rook-ceph.rbd.csi.ceph.com (the provisioner of default StorageClass ceph-block): no CSI plugin registered for it", str![[r#"
stack       dirqual (prod)
target      http://127.0.0.1:PORT (context replay)
kubeconfig  /t/home/.kube/dirqual.config (rule: topology)

PLAN: 1 to repair
  repair storage  repair in place; never reinstall over an existing layer
    storage: storage/csi-driver fails

REAL (read live, not stored)
  nodes              dirqual1..4, 4/4 Ready
  k8s      present   5 checks hold
    ✓ 4 nodes registered
    ✓ 4/4 declared nodes Ready
    ✓ 4 nodes with distinct InternalIPs
    ✓ 4/4 Ready nodes schedulable (no pressure, cordon or unexpected taint)
    ✓ every APIService available (0 served by a Service)
  cni      present   5 checks hold
    ✓ API group cilium.io served
    ✓ DaemonSet kube-system/cilium rolled out (4/4 available)
    ✓ Deployment kube-system/cilium-operator rolled out (2/2 available)
    ✓ no node tainted node.cilium.io/agent-not-ready
    ✓ no version to compare on DaemonSet kube-system/cilium (cilium-agent),
      Deployment kube-system/cilium-operator (cilium-operator)
  ceph     present   9 checks hold
    ✓ API group ceph.rook.io served
    ✓ CephCluster rook-ceph/rook-ceph .status.ceph.health = HEALTH_OK
    ✓ 3/3 Deployment rook-ceph/rook-ceph-mon-* rolled out (rook-ceph-mon-a,
      rook-ceph-mon-b, rook-ceph-mon-c)
    ✓ 3 Deployment rook-ceph/rook-ceph-mon-* (want at least 3: CephCluster
      rook-ceph/rook-ceph .spec.mon.count)
    ✓ 4/4 Deployment rook-ceph/rook-ceph-osd-* rolled out (rook-ceph-osd-0,
      rook-ceph-osd-1, rook-ceph-osd-2, rook-ceph-osd-3)
    ✓ ConfigMap rook-ceph/rook-ceph-mon-endpoints outOfQuorum empty
    ✓ no version to compare on Deployment rook-ceph/rook-ceph-* (rook-version)
    ✓ mons on 3 distinct nodes of 4: dirqual1 (a), dirqual2 (b), dirqual3 (c)
    ✓ OSDs on 4 distinct nodes of 4: dirqual1 (0), dirqual2 (1), dirqual3 (2),
      dirqual4 (3)
  storage  degraded  1 of 3 checks fails
    ✓ StorageClass ceph-block (rook-ceph.rbd.csi.ceph.com, default)
    ✗ no CSIDriver rook-ceph.rbd.csi.ceph.com (the provisioner of default
      StorageClass ceph-block): no CSI plugin registered for it
    ✓ 0 claims in 2 checked namespaces: none Lost or Pending too long; 0 volumes
      of rook-ceph.rbd.csi.ceph.com: none Failed

"#]]);
}

/// Only another controller's GatewayClass: the layer is not there (install), never
/// degraded; and a cluster without the Gateway API at all says the same.
#[test]
fn no_cilium_gateway_class_is_absent_and_planned_for_install() {
    for name in ["gateway-absent", "dirqual"] {
        let bed = bed_or_skip!(bed(name));
        let v = preview_json(&bed, &[]);
        assert_eq!(
            state_of(&v, "gateway"),
            "absent",
            "{name}: {}",
            layer(&v, "gateway")
        );
        assert_eq!(
            evidence(&v, "gateway"),
            ["no GatewayClass with .spec.controllerName = io.cilium/gateway-controller"],
            "{name}"
        );
        assert_eq!(
            plan_ids(&v, "install"),
            ["gateway"],
            "{name}: {}",
            v["plan"]
        );
        assert!(plan_ids(&v, "repair").is_empty(), "{name}: {}", v["plan"]);
        assert_minimal_reads(&bed);
    }
}

/// A 403 on the routes is unknown (undecided), never absent or degraded.
#[test]
fn forbidden_routes_are_undecided() {
    let bed = bed_or_skip!(E2e::new(
        "gateway",
        &["GET /apis/gateway.networking.k8s.io/v1/httproutes=403"]
    ));
    let topology = dirqual_topology(&bed.server.url()).replace(LAYERS, STACK_LAYERS);
    bed.write_stack("dirqual", &topology);
    let out = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = out.json();
    assert_eq!(
        state_of(&v, "gateway"),
        "unknown",
        "{}",
        layer(&v, "gateway")
    );
    assert_eq!(plan_ids(&v, "undecided"), ["gateway"], "{}", v["plan"]);
    assert_minimal_reads(&bed);
}
