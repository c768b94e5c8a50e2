//! Tests of the SPEC §15 check kinds `every`, `parents` and `csiDriver`: the built-in
//! `gateway` layer as data, their words for `catalog show`, what they read, and the errors a
//! catalog file writing them wrongly gets.

use super::*;

fn overlay_err(text: &str) -> String {
    Catalog::builtin()
        .unwrap()
        .overlay_str(text, "stacks/layers.yaml")
        .unwrap_err()
        .message
}

fn layer_with(check: &str) -> String {
    format!("- id: extra\n  title: Extra\n  detect:\n    - apiGroup: example.com\n  healthy:\n    - {check}\n  install: x\n")
}

#[test]
fn the_gateway_layer_reads_the_chain_and_words_it() {
    let c = Catalog::builtin().unwrap();
    let g = c.get("gateway").unwrap();
    assert_eq!(g.after, ["cni"]);
    let shown: Vec<String> = g.detect.iter().map(|c| c.kind.describe(true)).collect();
    assert_eq!(
        shown,
        ["a GatewayClass with .spec.controllerName = io.cilium/gateway-controller exists"]
    );
    let healthy: Vec<String> = g.healthy.iter().map(|c| c.kind.to_string()).collect();
    assert!(
        healthy[0].contains("condition Accepted True")
            && healthy[0].contains("Accepted reason Pending means: the Cilium operator started before the Gateway API CRDs; restart cilium-operator"),
        "{healthy:#?}"
    );
    assert!(
        healthy[1].starts_with("every Gateway whose .spec.gatewayClassName names a GatewayClass with .spec.controllerName = io.cilium/gateway-controller"),
        "{}",
        healthy[1]
    );
    assert!(
        healthy[1].contains(
            "condition Accepted and Programmed True, a .status.addresses[] entry (its value)"
        ),
        "{}",
        healthy[1]
    );
    assert!(healthy[2].contains("status.parents[] entry of io.cilium/gateway-controller"));
    assert!(healthy[4].contains(
        "condition cilium.io/PoolConflict not True, condition cilium.io/IPsAvailable's count above 0"
    ));
    // The reads: the four Gateway API lists and the pools, decoded into the fields used.
    let plan = c.read_plan(&["gateway".to_string()], Workloads::InTheirNamespaces);
    for t in [
        "gatewayclasses.gateway.networking.k8s.io",
        "gateways.gateway.networking.k8s.io",
        "httproutes.gateway.networking.k8s.io",
        "grpcroutes.gateway.networking.k8s.io",
        "ciliumloadbalancerippools.cilium.io",
    ] {
        assert!(
            plan.requests.contains(&ReadRequest::Resource(t.into())),
            "{t}: {:?}",
            plan.requests
        );
    }
    let keep = &plan.scope.keep["httproutes.gateway.networking.k8s.io"];
    // The route's parents, and its uid (its Warning Events are matched by it).
    assert_eq!(
        keep.iter().collect::<Vec<_>>(),
        [
            &FieldUse::Value(crate::model::observation::FieldPath::uid()),
            &FieldUse::Parents("io.cilium/gateway-controller".into())
        ]
    );
    let gateways = &plan.scope.keep["gateways.gateway.networking.k8s.io"];
    assert!(gateways.contains(&FieldUse::Items(
        FieldPath::parse(".status.addresses").unwrap(),
        "value".into()
    )));
    assert!(gateways.contains(&FieldUse::Conditions));
}

#[test]
fn storage_checks_the_csi_driver_of_its_default_class() {
    let c = Catalog::builtin().unwrap();
    let storage = c.get("storage").unwrap();
    let csi = storage
        .healthy
        .iter()
        .find(|c| c.kind.key() == "csiDriver")
        .unwrap();
    assert!(csi.kind.to_string().contains(
        "registered as a CSIDriver and listed in every node's CSINode .spec.drivers[].name"
    ));
    let plan = c.read_plan(&["storage".to_string()], Workloads::InTheirNamespaces);
    for r in [
        ReadRequest::StorageClasses,
        ReadRequest::Nodes,
        ReadRequest::Resource("csidrivers.storage.k8s.io".into()),
        ReadRequest::Resource("csinodes.storage.k8s.io".into()),
    ] {
        assert!(plan.requests.contains(&r), "{r:?}: {:?}", plan.requests);
    }
}

#[test]
fn new_kinds_written_wrong_say_what_to_write() {
    let cases = [
        (
            "every: {resource: gateways.gateway.networking.k8s.io}",
            "`every:` needs a `where:` or something to ask",
        ),
        (
            "every: {resource: gateways.gateway.networking.k8s.io, where: {field: .spec.x}}",
            "exactly one of `equals: VALUE` or `nameOf:",
        ),
        (
            "every: {resource: gateways.gateway.networking.k8s.io, conditions: [Ready], known: [{condition: Programmed, reason: X, says: y}]}",
            "`known:` condition `Programmed` is not one of the check's `conditions:`",
        ),
        (
            "every: {resource: gateways.gateway.networking.k8s.io, conditions: [\"not a type\"]}",
            "is not a condition type",
        ),
        (
            "every: {resource: gateways.gateway.networking.k8s.io, nonEmpty: {list: .status.addresses, key: \"a.b\"}}",
            "is not a field name",
        ),
        (
            "every: {resource: gateways.gateway.networking.k8s.io, conditons: [Ready]}",
            "unknown key `conditons`, did you mean `conditions`?",
        ),
        (
            "parents: {resource: httproutes.gateway.networking.k8s.io, controllerName: cilium, conditions: [Accepted]}",
            "is not a controller name",
        ),
        (
            "parents: {resource: httproutes.gateway.networking.k8s.io, controllerName: a/b, conditions: []}",
            "`parents:` needs `conditions:`",
        ),
        (
            "csiDriver: {defaultStorageClass: false}",
            "`csiDriver:` checks `defaultStorageClass: true`",
        ),
    ];
    for (check, want) in cases {
        let e = overlay_err(&layer_with(check));
        assert!(e.contains(want), "{check}: {e}");
    }
}

#[test]
fn new_kinds_parse_from_a_catalog_file() {
    let text = layer_with(
        "every: {resource: widgets.example.com, kind: Widget, where: {field: .spec.owner, equals: me}, notConditions: [Stalled], conditionAbove: {type: example.com/Free, value: 2}}",
    );
    let mut c = Catalog::builtin().unwrap();
    c.overlay_str(&text, "stacks/layers.yaml").unwrap();
    let CheckKind::Every(e) = &c.get("extra").unwrap().healthy[0].kind else {
        panic!()
    };
    assert_eq!(e.wants.not_conditions, ["Stalled"]);
    assert_eq!(
        e.wants.above,
        Some(Above {
            type_: "example.com/Free".into(),
            value: 2
        })
    );
    assert_eq!(
        e.filter,
        Some(Filter::Equals {
            field: FieldPath::parse(".spec.owner").unwrap(),
            value: "me".into()
        })
    );
}
