//! End-to-end tests with the REAL kubectl (whatever `kubectl` is first on PATH) talking to
//! the replay server over a generated kubeconfig. Each test skips, saying so, only when no
//! kubectl is on PATH.

mod common;

use common::{assert_only_gets, fixture, Kubectl};
use nestor_replay::{fixtures, Config, Server};
use serde_json::Value;
use std::time::{Duration, Instant};

fn start(config: Config) -> Server {
    Server::start(config).expect("server starts")
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("kubectl printed no JSON ({e}): {s}"))
}

#[test]
fn get_nodes_json_returns_the_four_dirqual_nodes() {
    let bin = require_kubectl!();
    let server = start(Config::new(fixture("dirqual")));
    let k = Kubectl::new(bin, &server);
    let v = json(&k.ok(&["get", "nodes", "-o", "json"]));
    let names: Vec<&str> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|n| n["metadata"]["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["dirqual1", "dirqual2", "dirqual3", "dirqual4"]);
    for n in v["items"].as_array().expect("items") {
        assert_eq!(n["kind"], "Node");
        let ready = n["status"]["conditions"]
            .as_array()
            .expect("conditions")
            .iter()
            .find(|c| c["type"] == "Ready")
            .expect("Ready condition");
        assert_eq!(ready["status"], "True");
    }
    let list = server
        .audit()
        .into_iter()
        .find(|e| e.path == "/api/v1/nodes")
        .expect("nodes were listed");
    assert_eq!(list.status, 200);
    assert!(list.query.contains("limit=500"), "{list:?}");
    assert_only_gets(&server);
}

#[test]
fn plain_get_nodes_prints_a_server_side_table() {
    let bin = require_kubectl!();
    let server = start(Config::new(fixture("degraded")));
    let k = Kubectl::new(bin, &server);
    let out = k.ok(&["get", "nodes"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
    assert!(lines[1].starts_with("dirqual1") && lines[1].contains("control-plane"));
    assert!(
        lines[3].starts_with("dirqual3") && lines[3].contains("NotReady"),
        "{out}"
    );
    assert!(lines[4].contains(" Ready ") && lines[4].contains("v1.31.4"));
    let wide = k.ok(&["get", "nodes", "-o", "wide"]);
    assert!(
        wide.contains("INTERNAL-IP") && wide.contains("10.67.2.14"),
        "{wide}"
    );
    let asked = server
        .audit()
        .into_iter()
        .find(|e| e.path == "/api/v1/nodes")
        .expect("nodes were listed");
    assert!(
        asked
            .accept
            .as_deref()
            .unwrap_or("")
            .contains("as=Table;v=v1;g=meta.k8s.io"),
        "{asked:?}"
    );
    assert_only_gets(&server);
}

#[test]
fn api_versions_lists_the_fixture_groups() {
    let bin = require_kubectl!();
    let server = start(Config::new(fixture("dirqual")));
    let k = Kubectl::new(bin, &server);
    let out = k.ok(&["api-versions"]);
    let lines: Vec<&str> = out.lines().collect();
    for gv in [
        "ceph.rook.io/v1",
        "cilium.io/v2",
        "objectbucket.io/v1alpha1",
        "monitoring.coreos.com/v1",
        "argoproj.io/v1alpha1",
        "postgresql.cnpg.io/v1",
        "apps/v1",
        "v1",
    ] {
        assert!(lines.contains(&gv), "{gv} missing from {out}");
    }
    assert!(!out.contains("cert-manager.io"), "{out}");
    // Aggregated discovery: two documents, no per-group fetch.
    let paths: Vec<String> = server.audit().into_iter().map(|e| e.path).collect();
    assert!(paths.contains(&"/api".to_string()) && paths.contains(&"/apis".to_string()));
    assert!(!paths.iter().any(|p| p.starts_with("/apis/")), "{paths:?}");
    assert_only_gets(&server);
}

#[test]
fn legacy_discovery_serves_kubectl_too() {
    let bin = require_kubectl!();
    let server = start(Config::new(fixture("dirqual-full")).aggregated_discovery(false));
    let k = Kubectl::new(bin, &server);
    let out = k.ok(&["api-versions"]);
    assert!(out.lines().any(|l| l == "cert-manager.io/v1"), "{out}");
    let v = json(&k.ok(&["get", "cephobjectstores.ceph.rook.io", "-A", "-o", "json"]));
    assert_eq!(v["items"][0]["status"]["phase"], "Ready");
    let paths: Vec<String> = server.audit().into_iter().map(|e| e.path).collect();
    assert!(
        paths.contains(&"/apis/ceph.rook.io/v1".to_string()),
        "{paths:?}"
    );
    assert_only_gets(&server);
}

#[test]
fn get_cephclusters_across_namespaces() {
    let bin = require_kubectl!();
    let server = start(Config::new(fixture("dirqual")));
    let k = Kubectl::new(bin, &server);
    let v = json(&k.ok(&["get", "cephclusters.ceph.rook.io", "-A", "-o", "json"]));
    let items = v["items"].as_array().expect("items");
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["metadata"]["namespace"], "rook-ceph");
    assert_eq!(items[0]["status"]["ceph"]["health"], "HEALTH_OK");
    let table = k.ok(&["get", "cephclusters", "-A"]);
    assert!(
        table.contains("HEALTH") && table.contains("HEALTH_OK"),
        "{table}"
    );
    let none = k.run(&["get", "cephobjectstores.ceph.rook.io", "-A", "-o", "json"]);
    assert!(none.status.success());
    assert_eq!(
        json(&String::from_utf8_lossy(&none.stdout))["items"],
        serde_json::json!([])
    );
    assert_only_gets(&server);
}

#[test]
fn several_types_in_one_call() {
    let bin = require_kubectl!();
    let server = start(Config::new(fixture("dirqual")));
    let k = Kubectl::new(bin, &server);
    let v = json(&k.ok(&["get", "ns,sc", "-o", "json"]));
    let kinds: Vec<&str> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|o| o["kind"].as_str().expect("kind"))
        .collect();
    assert!(kinds.contains(&"Namespace") && kinds.contains(&"StorageClass"));
    let sc = k.ok(&["get", "sc"]);
    assert!(sc.contains("ceph-block (default)") && sc.contains("rook-ceph.rbd.csi.ceph.com"));
    let ds = json(&k.ok(&["get", "ds", "-n", "kube-system", "cilium", "-o", "json"]));
    assert_eq!(ds["status"]["numberReady"], 4);
    let dep = k.ok(&["get", "deploy", "-n", "registry"]);
    assert!(dep.contains("registry") && dep.contains("1/1"), "{dep}");
    let pg = json(&k.ok(&[
        "get",
        "clusters.postgresql.cnpg.io",
        "-n",
        "dataops",
        "pg",
        "-o",
        "json",
    ]));
    assert_eq!(pg["status"]["readyInstances"], 3);
    let raw = json(&k.ok(&["get", "--raw", "/apis"]));
    assert_eq!(raw["kind"], "APIGroupList");
    let version = json(&k.ok(&["version", "-o", "json"]));
    assert_eq!(version["serverVersion"]["gitVersion"], "v1.31.4");
    assert_only_gets(&server);
}

#[test]
fn forbidden_fault_makes_kubectl_exit_1() {
    let bin = require_kubectl!();
    let server = start(
        Config::new(fixture("dirqual"))
            .user("x")
            // The list only: a kubectl before 1.26 (Debian's kubernetes-client, what .ci/run
            // installs on a fresh machine) uses legacy discovery, and a 403 on
            // /apis/ceph.rook.io/v1 itself would make it say "no resource type" instead.
            .fault("GET /apis/ceph.rook.io/v1/cephclusters=403")
            .expect("rule"),
    );
    let k = Kubectl::new(bin, &server);
    let out = k.run(&["get", "cephclusters.ceph.rook.io", "-A", "-o", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Forbidden"), "{stderr}");
    assert!(
        stderr.contains(
            "cephclusters.ceph.rook.io is forbidden: User \"x\" cannot list resource \
             \"cephclusters\" in API group \"ceph.rook.io\" at the cluster scope"
        ),
        "{stderr}"
    );
    // Other reads are untouched.
    k.ok(&["get", "nodes", "-o", "name"]);
    let denied: Vec<_> = server
        .audit()
        .into_iter()
        .filter(|e| e.status == 403)
        .collect();
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert!(denied[0].fault.is_some());
    assert_only_gets(&server);
}

#[test]
fn hang_fault_times_kubectl_out() {
    let bin = require_kubectl!();
    let mut server = start(
        Config::new(fixture("dirqual"))
            .fault("GET /api/v1/nodes=hang:30")
            .expect("rule"),
    );
    let k = Kubectl::new(bin, &server);
    let t = Instant::now();
    let out = k.run(&["get", "nodes", "-o", "json", "--request-timeout=1s"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    let hung = server
        .audit()
        .into_iter()
        .find(|e| e.path == "/api/v1/nodes")
        .expect("recorded");
    assert_eq!(hung.status, 0);
    let t = Instant::now();
    server.stop();
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "stop waited for the hang"
    );
}

#[test]
fn chunked_lists_page_through_the_big_cluster() {
    let bin = require_kubectl!();
    let server = start(Config::new(fixtures::big()));
    let k = Kubectl::new(bin, &server);
    // kubectl's own client-side limiter (5 QPS, burst 10) makes --chunk-size=2 over 1000
    // namespaces (500 requests) last ~100 s; 50 per page still pages 20 times.
    let v = json(&k.ok(&["get", "ns", "--chunk-size=50", "-o", "json"]));
    let items = v["items"].as_array().expect("items");
    assert_eq!(items.len(), fixtures::BIG_NAMESPACES);
    let mut names: Vec<&str> = items
        .iter()
        .map(|o| o["metadata"]["name"].as_str().expect("name"))
        .collect();
    names.dedup();
    assert_eq!(
        names.len(),
        fixtures::BIG_NAMESPACES,
        "duplicates across pages"
    );
    let pages: Vec<_> = server
        .audit()
        .into_iter()
        .filter(|e| e.path == "/api/v1/namespaces")
        .collect();
    assert_eq!(pages.len(), 20);
    assert!(pages[1..].iter().all(|e| e.query.contains("continue=")));
    let out = k.ok(&["get", "deploy", "-A", "-o", "name"]);
    assert_eq!(out.lines().count(), fixtures::BIG_DEPLOYMENTS);
    let nodes = k.ok(&["get", "nodes", "-o", "name"]);
    assert_eq!(nodes.lines().count(), fixtures::BIG_NODES);
    assert_only_gets(&server);
}

#[test]
fn chunk_size_two_over_dirqual_namespaces() {
    let bin = require_kubectl!();
    let server = start(Config::new(fixture("dirqual")));
    let k = Kubectl::new(bin, &server);
    let v = json(&k.ok(&["get", "ns", "--chunk-size=2", "-o", "json"]));
    let n = v["items"].as_array().expect("items").len();
    let pages = server
        .audit()
        .into_iter()
        .filter(|e| e.path == "/api/v1/namespaces")
        .count();
    let expected = fixture("dirqual")
        .objects
        .iter()
        .filter(|o| o["kind"] == "Namespace")
        .count();
    assert_eq!(n, expected);
    assert_eq!(pages, expected.div_ceil(2));
    assert_only_gets(&server);
}
