//! Tests of the proxy read path: paths, statuses, discovery.

use super::*;
use crate::model::observation::WorkloadKind;

fn ok(body: &str) -> Answer {
    Ok(Response {
        status: 200,
        body: body.as_bytes().to_vec(),
    })
}

fn status(code: u16, body: &str) -> Answer {
    Ok(Response {
        status: code,
        body: body.as_bytes().to_vec(),
    })
}

const APIS: &str = r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[
        {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
        {"name":"ceph.rook.io","versions":[{"groupVersion":"ceph.rook.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"ceph.rook.io/v1","version":"v1"}},
        {"name":"cert-manager.io","versions":[{"groupVersion":"cert-manager.io/v2","version":"v2"},{"groupVersion":"cert-manager.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"cert-manager.io/v2","version":"v2"}},
        {"name":"moved.example.com","versions":[{"groupVersion":"moved.example.com/v2","version":"v2"}],"preferredVersion":{"groupVersion":"moved.example.com/v2","version":"v2"}}]}"#;

fn answers(extra: Vec<(&str, Answer)>) -> BTreeMap<String, Answer> {
    let mut m: BTreeMap<String, Answer> = [
        (
            "/api".to_string(),
            ok(r#"{"kind":"APIVersions","versions":["v1"]}"#),
        ),
        ("/apis".to_string(), ok(APIS)),
    ]
    .into_iter()
    .collect();
    m.extend(extra.into_iter().map(|(k, v)| (k.to_string(), v)));
    m
}

#[test]
fn the_proxy_accepts_exactly_the_paths_of_the_batch() {
    let requests = vec![
        ReadRequest::Nodes,
        ReadRequest::ApiGroups,
        ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
    ];
    let accept = accept_paths(&requests, &Scope::default());
    assert_eq!(
        accept,
        [
            "^/api$",
            "^/api/v1/nodes$",
            "^/apis$",
            "^/apis/ceph\\.rook\\.io/[a-z0-9]+$",
            "^/apis/ceph\\.rook\\.io/[a-z0-9]+/cephclusters$",
            "^/apis/ceph\\.rook\\.io/v1/cephclusters$",
        ]
    );
    // Every path the batch can GET is accepted by the allowlist's own check.
    let value = accept.join(",");
    assert_eq!(
        crate::read::exec::allowlist::accept_paths_ok(&value),
        Ok(())
    );
}

#[test]
fn first_round_asks_discovery_lists_and_speculative_resources_at_once() {
    let requests = vec![
        ReadRequest::Nodes,
        ReadRequest::ApiGroups,
        ReadRequest::Namespaces,
        ReadRequest::StorageClasses,
        ReadRequest::Workloads(WorkloadKind::DaemonSet),
        ReadRequest::Workloads(WorkloadKind::Deployment),
        ReadRequest::Resource("cephclusters.ceph.rook.io".to_string()),
    ];
    let scope = Scope {
        workload_namespaces: [(
            ReadRequest::Workloads(WorkloadKind::Deployment),
            ["registry", "cert-manager"]
                .map(String::from)
                .into_iter()
                .collect(),
        )]
        .into_iter()
        .collect(),
        ..Scope::default()
    };
    assert_eq!(
        first_round(&requests, &scope),
        [
            "/api",
            "/api/v1/namespaces",
            "/api/v1/nodes",
            "/apis",
            "/apis/apps/v1/daemonsets",
            "/apis/apps/v1/namespaces/cert-manager/deployments",
            "/apis/apps/v1/namespaces/registry/deployments",
            "/apis/ceph.rook.io/v1/cephclusters",
            "/apis/storage.k8s.io/v1/storageclasses",
        ]
    );
    // Custom resources alone still need the groups, not the core versions.
    assert_eq!(
        first_round(
            &[ReadRequest::Resource("clusters.postgresql.cnpg.io".into())],
            &Scope::default()
        ),
        ["/apis", "/apis/postgresql.cnpg.io/v1/clusters"]
    );
}

#[test]
fn secrets_and_odd_names_never_become_paths() {
    assert_eq!(split_type("secrets.core"), None);
    assert_eq!(split_type("x.../../secrets"), None);
    assert_eq!(split_type("a.b/c"), None);
    assert_eq!(
        split_type("cephclusters.ceph.rook.io"),
        Some(("cephclusters", "ceph.rook.io"))
    );
    assert_eq!(
        workload_path(WorkloadKind::Deployment, Some("../x")),
        "/apis/apps/v1/deployments"
    );
}

#[test]
fn api_versions_text_is_what_kubectl_prints() {
    let d = ApiDiscovery::from_answers(&answers(vec![]));
    assert_eq!(
        d.api_versions_text().unwrap(),
        "apps/v1\nceph.rook.io/v1\ncert-manager.io/v1\ncert-manager.io/v2\nmoved.example.com/v2\nv1\n"
    );
    let groups =
        crate::model::observation::parse_api_versions(&d.api_versions_text().unwrap()).unwrap();
    assert!(groups.contains("") && groups.contains("ceph.rook.io"));
    let forbidden = answers(vec![(
        "/apis",
        status(
            403,
            r#"{"kind":"Status","reason":"Forbidden","message":"forbidden: User \"x\" cannot get path \"/apis\"","code":403}"#,
        ),
    )]);
    let f = ApiDiscovery::from_answers(&forbidden)
        .api_versions_text()
        .unwrap_err();
    assert_eq!(f.kind, FailureKind::Forbidden);
}

/// The custom resource answers of `a` as the streamed reads give them.
fn lists(a: &BTreeMap<String, Answer>) -> BTreeMap<String, ListAnswer> {
    a.iter()
        .filter(|(k, _)| k.matches('/').count() >= 4)
        .map(|(k, v)| {
            let l = match v {
                Ok(r) if r.ok() => Ok(Listed::Objects(
                    crate::model::observation::parse_custom_objects(
                        &r.body_text(),
                        &BTreeSet::new(),
                    )
                    .map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.message)),
                )),
                Ok(r) => Ok(Listed::Status(r.clone())),
                Err(HttpError::TimedOut(d)) => Err(HttpError::TimedOut(*d)),
                Err(e) => Err(HttpError::Malformed(e.to_string())),
            };
            (k.clone(), l)
        })
        .collect()
}

#[test]
fn resources_are_settled_by_discovery() {
    let list = r#"{"kind":"CephClusterList","items":[]}"#;
    let a = answers(vec![
        ("/apis/ceph.rook.io/v1/cephclusters", ok(list)),
        (
            "/apis/ceph.rook.io/v1/nope",
            status(404, "404 page not found"),
        ),
        (
            "/apis/gone.example.com/v1/things",
            status(
                403,
                r#"{"kind":"Status","reason":"Forbidden","message":"no","code":403}"#,
            ),
        ),
        ("/apis/cert-manager.io/v1/certificates", ok(list)),
        ("/apis/moved.example.com/v1/things", ok(list)),
    ]);
    let d = ApiDiscovery::from_answers(&a);
    assert!(
        matches!(d.resolve("cephclusters.ceph.rook.io", &mut lists(&a)), TypeRead::Done(Ok(t)) if t.is_empty())
    );
    // Group not served: absent cleanly, whatever the speculative GET said.
    match d.resolve("things.gone.example.com", &mut lists(&a)) {
        TypeRead::Done(Err(f)) => {
            assert_eq!(f.kind, FailureKind::NotFound);
            assert_eq!(
                f.message,
                "error: the server doesn't have a resource type \"things\""
            );
        }
        TypeRead::Done(_) | TypeRead::Fetch(_) => panic!("not settled"),
    }
    // Another preferred version, the asked one served too: the answer stands (the same
    // objects; the catalog's checks are written for the version it asks), no second GET.
    assert!(matches!(
        d.resolve("certificates.cert-manager.io", &mut lists(&a)),
        TypeRead::Done(Ok(t)) if t.is_empty()
    ));
    // The asked version not served at all: whatever its GET said, fetched at the served ones.
    assert!(matches!(
        d.resolve("things.moved.example.com", &mut lists(&a)),
        TypeRead::Fetch(v) if v == ["v2"]
    ));
    // Group served, type not at v1: the other versions are looked at (none here).
    assert!(
        matches!(d.resolve("nope.ceph.rook.io", &mut lists(&a)), TypeRead::Fetch(v) if v.is_empty())
    );
    // A failed discovery fails every custom resource read the same way.
    let broken = answers(vec![(
        "/apis",
        Err(HttpError::TimedOut(std::time::Duration::from_secs(1))),
    )]);
    let d = ApiDiscovery::from_answers(&broken);
    assert!(matches!(
        d.resolve("cephclusters.ceph.rook.io", &mut lists(&broken)),
        TypeRead::Done(Err(f)) if f.kind == FailureKind::Timeout
    ));
}

#[test]
fn a_403_on_a_served_group_stays_forbidden() {
    let a = answers(vec![(
        "/apis/ceph.rook.io/v1/cephclusters",
        status(
            403,
            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"cephclusters.ceph.rook.io is forbidden: User \"nestor\" cannot list resource \"cephclusters\" in API group \"ceph.rook.io\" at the cluster scope","reason":"Forbidden","details":{"group":"ceph.rook.io","kind":"cephclusters"},"code":403}"#,
        ),
    )]);
    let d = ApiDiscovery::from_answers(&a);
    match d.resolve("cephclusters.ceph.rook.io", &mut lists(&a)) {
        TypeRead::Done(Err(f)) => {
            assert_eq!(f.kind, FailureKind::Forbidden);
            assert_eq!(f.message, "Error from server (Forbidden): cephclusters.ceph.rook.io is forbidden: User \"nestor\" cannot list resource \"cephclusters\" in API group \"ceph.rook.io\" at the cluster scope");
        }
        TypeRead::Done(_) | TypeRead::Fetch(_) => panic!("not settled"),
    }
}

#[test]
fn statuses_map_to_the_kinds_kubectl_messages_gave() {
    let st = |code: u16, reason: &str, msg: &str| {
        format!(
            r#"{{"kind":"Status","apiVersion":"v1","status":"Failure","message":"{msg}","reason":"{reason}","code":{code}}}"#
        )
    };
    let cases = [
        (
            401,
            st(401, "Unauthorized", "Unauthorized"),
            FailureKind::Unauthorized,
            "error: You must be logged in to the server (Unauthorized)",
        ),
        (
            403,
            st(403, "Forbidden", "nodes is forbidden"),
            FailureKind::Forbidden,
            "Error from server (Forbidden): nodes is forbidden",
        ),
        (
            404,
            st(404, "NotFound", "namespaces \\\"x\\\" not found"),
            FailureKind::NotFound,
            "Error from server (NotFound): namespaces \"x\" not found",
        ),
        (
            404,
            "404 page not found".to_string(),
            FailureKind::NotFound,
            "Error from server (NotFound): the server could not find the requested resource",
        ),
        (
            500,
            st(500, "InternalError", "Internal error occurred: boom"),
            FailureKind::ApiError,
            "Error from server (InternalError): Internal error occurred: boom",
        ),
        (
            503,
            st(503, "ServiceUnavailable", "try later"),
            FailureKind::ApiError,
            "Error from server (ServiceUnavailable): try later",
        ),
        (
            504,
            st(504, "Timeout", "took too long"),
            FailureKind::Timeout,
            "Error from server (Timeout): took too long",
        ),
        (
            429,
            st(429, "", "slow down"),
            FailureKind::ApiError,
            "Error from server (TooManyRequests): slow down",
        ),
    ];
    for (code, body, kind, message) in cases {
        let f = status_failure(code, &body);
        assert_eq!(
            (f.kind, f.message.as_str()),
            (kind, message),
            "{code} {body}"
        );
    }
}

#[test]
fn proxy_transport_errors_are_unreachable_tls_or_timeout() {
    let f = status_failure(500, "dial tcp 127.0.0.1:1: connect: connection refused\n");
    assert_eq!(f.kind, FailureKind::Unreachable);
    assert!(
        f.message
            .contains("The connection to the server 127.0.0.1:1 was refused"),
        "{}",
        f.message
    );
    let f = status_failure(
        500,
        "tls: failed to verify certificate: x509: certificate signed by unknown authority",
    );
    assert_eq!(f.kind, FailureKind::Tls);
    assert!(f
        .message
        .starts_with("Unable to connect to the server: tls: failed"));
    let f = status_failure(502, "dial tcp 10.0.0.1:6443: i/o timeout");
    assert_eq!(f.kind, FailureKind::Timeout);
    let f = status_failure(500, "something odd");
    assert_eq!(f.kind, FailureKind::ApiError);
    assert!(f.message.contains("\"something odd\""), "{}", f.message);
    let t = transport_failure(
        "/api/v1/nodes",
        &HttpError::TimedOut(std::time::Duration::from_secs(1)),
    );
    assert_eq!(t.kind, FailureKind::Timeout);
    assert!(
        t.message
            .starts_with("GET /api/v1/nodes: no answer within 1.0s"),
        "{}",
        t.message
    );
    let c = transport_failure("/api", &HttpError::Malformed("x".into()));
    assert_eq!(c.kind, FailureKind::ApiError);
}

/// Whether an accept-path regexp as [`accept_paths`] writes it (`^` literal segments with
/// `\.` escapes or `[a-z0-9]+` `$`) matches `path`: the two shapes the allowlist admits.
pub(super) fn accepts(re: &str, path: &str) -> bool {
    let Some(inner) = re.strip_prefix("^/").and_then(|r| r.strip_suffix('$')) else {
        return false;
    };
    let want: Vec<&str> = inner.split('/').collect();
    let have: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    want.len() == have.len()
        && want.iter().zip(&have).all(|(w, h)| {
            if *w == "[a-z0-9]+" {
                !h.is_empty()
                    && h.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            } else {
                w.replace("\\.", ".") == *h
            }
        })
}

/// SPEC §15: the gateway and storage layers' reads open exactly their lists (cluster-scoped
/// GatewayClasses, CSIDrivers, CSINodes, pools; every namespace's Gateways and routes) and
/// their groups' discovery; a Secret, a ConfigMap list, any pod, a single Gateway or a
/// Service stays refused by the proxy.
#[test]
fn the_gateway_and_csi_reads_open_exactly_their_paths() {
    let catalog = crate::model::catalog::Catalog::builtin().unwrap();
    let ids = ["storage", "gateway"].map(String::from);
    let plan = catalog.read_plan(&ids, crate::model::catalog::Workloads::InTheirNamespaces);
    let accept = accept_paths(&plan.requests, &plan.scope);
    assert_eq!(
        crate::read::exec::allowlist::accept_paths_ok(&accept.join(",")),
        Ok(())
    );
    let open = |p: &str| accept.iter().any(|re| accepts(re, p));
    for p in [
        "/apis/gateway.networking.k8s.io/v1/gatewayclasses",
        "/apis/gateway.networking.k8s.io/v1/gateways",
        "/apis/gateway.networking.k8s.io/v1/httproutes",
        "/apis/gateway.networking.k8s.io/v1/grpcroutes",
        "/apis/gateway.networking.k8s.io/v1",
        "/apis/cilium.io/v2/ciliumloadbalancerippools",
        "/apis/cilium.io/v2alpha1/ciliumloadbalancerippools",
        "/apis/cilium.io/v2alpha1",
        "/apis/storage.k8s.io/v1/csidrivers",
        "/apis/storage.k8s.io/v1/csinodes",
        "/apis/storage.k8s.io/v1/storageclasses",
        "/api/v1/nodes",
    ] {
        assert!(open(p), "{p} refused: {accept:#?}");
    }
    for p in [
        "/api/v1/secrets",
        "/api/v1/namespaces/infra/secrets/wildcard-tls",
        "/api/v1/configmaps",
        "/api/v1/namespaces/kube-system/configmaps",
        "/api/v1/pods",
        "/api/v1/namespaces/kube-system/pods",
        "/api/v1/namespaces/apps/services",
        "/apis/gateway.networking.k8s.io/v1/namespaces/infra/gateways/cilium-gw",
        "/apis/gateway.networking.k8s.io/v1/referencegrants",
        "/apis/gateway.networking.k8s.io/v1/gateways/status",
        "/apis/cilium.io/v2/ciliumnetworkpolicies",
        "/apis/storage.k8s.io/v1/volumeattachments",
    ] {
        assert!(!open(p), "{p} accepted: {accept:#?}");
    }
}

/// SPEC §6 v0.4: a run that may read Warning Events has the proxy accept their one
/// namespaced form from the start (the second round then needs no other proxy); an Events
/// read GETs one namespace's list by `type=Warning` with a limit.
#[test]
fn events_are_accepted_by_their_one_form_and_read_with_a_selector_and_a_limit() {
    let scope = Scope {
        events: true,
        ..Scope::default()
    };
    let first = accept_paths(&[ReadRequest::Nodes], &scope);
    assert_eq!(
        first,
        [
            "^/api/v1/nodes$",
            crate::read::exec::allowlist::EVENTS_ACCEPT_PATH
        ]
    );
    let read = ReadRequest::Events {
        namespace: "monitoring".into(),
    };
    let third = accept_paths(std::slice::from_ref(&read), &Scope::default());
    assert_eq!(third, [crate::read::exec::allowlist::EVENTS_ACCEPT_PATH]);
    assert!(third.iter().all(|a| first.contains(a)));
    assert_eq!(
        super::paths::builtin_path(&read).as_deref(),
        Some("/apis/events.k8s.io/v1/namespaces/monitoring/events?fieldSelector=type%3DWarning&limit=100")
    );
    // A namespace that is not one path segment is never read.
    let odd = ReadRequest::Events {
        namespace: "a/../b".into(),
    };
    assert_eq!(super::paths::builtin_path(&odd), None);
    // Without it, no Events path at all.
    assert!(!accept_paths(&[ReadRequest::Nodes], &Scope::default())
        .iter()
        .any(|a| a.contains("events")));
}
