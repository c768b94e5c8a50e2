//! Raw HTTP tests of the replay server (no kubectl): the write detector, discovery
//! negotiation, paging, Tables, faults, latency, the audit file, and the committed
//! fixtures staying in sync with their generators.

mod common;

use common::{first_line, fixture, get, get_raw, Conn, Scratch};
use nestor_replay::fixtures;
use nestor_replay::{Config, FaultRule, Fixture, Server};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

fn dirqual() -> Server {
    Server::start(Config::new(fixture("dirqual"))).expect("server starts")
}

const AGG: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

#[test]
fn a_post_is_refused_and_reported_by_the_write_detector() {
    let server = dirqual();
    // A plain TcpStream, so nothing but this test decides what is sent.
    let mut s = TcpStream::connect(server.addr()).expect("connect");
    let body = br#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"evil"}}"#;
    write!(
        s,
        "POST /api/v1/namespaces HTTP/1.1\r\nHost: replay\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .expect("write head");
    s.write_all(body).expect("write body");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("read");
    assert!(answer.starts_with("HTTP/1.1 405 "), "{answer}");
    assert!(
        answer.contains("\"reason\":\"MethodNotAllowed\""),
        "{answer}"
    );
    let writes = server.audit_non_get();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0].method, "POST");
    assert_eq!(writes[0].path, "/api/v1/namespaces");
    assert_eq!(writes[0].status, 405);
    assert_eq!(writes[0].request_bytes, body.len() as u64);
    // And the cluster did not change.
    let ns = get(&server, "/api/v1/namespaces/evil", None);
    assert_eq!(ns.status, 404);
}

#[test]
fn every_other_write_method_is_refused_too() {
    let server = dirqual();
    let mut c = Conn::open(server.addr());
    for m in ["PUT", "PATCH", "DELETE"] {
        let a = c
            .request(m, "/api/v1/nodes/dirqual1", None, Some(b"{}"))
            .expect("answer");
        assert_eq!(a.status, 405);
        assert_eq!(a.header("connection"), Some("close"));
        c = Conn::open(server.addr());
    }
    let head = c
        .request("HEAD", "/api/v1/nodes", None, None)
        .expect("answer");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    let methods: Vec<String> = server
        .audit_non_get()
        .into_iter()
        .map(|e| e.method)
        .collect();
    assert_eq!(methods, ["PUT", "PATCH", "DELETE"]);
    assert_eq!(server.audit().len(), 4, "HEAD is recorded but is no write");
}

#[test]
fn discovery_follows_the_accept_header() {
    let server = dirqual();
    let agg = get(&server, "/apis", Some(AGG));
    assert_eq!(
        agg.header("content-type"),
        Some("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
    );
    let v = agg.json();
    assert_eq!(v["kind"], "APIGroupDiscoveryList");
    assert_eq!(v["apiVersion"], "apidiscovery.k8s.io/v2");
    let ceph = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|g| g["metadata"]["name"] == "ceph.rook.io")
        .expect("ceph group");
    let res = &ceph["versions"][0]["resources"];
    let cc = res
        .as_array()
        .expect("resources")
        .iter()
        .find(|r| r["resource"] == "cephclusters")
        .expect("cephclusters");
    assert_eq!(cc["scope"], "Namespaced");
    assert_eq!(cc["responseKind"]["kind"], "CephCluster");

    let core = get(&server, "/api", Some(AGG)).json();
    assert_eq!(core["items"][0]["versions"][0]["version"], "v1");
    let beta = get(
        &server,
        "/apis",
        Some("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"),
    )
    .json();
    assert_eq!(beta["apiVersion"], "apidiscovery.k8s.io/v2beta1");

    let legacy = get(&server, "/apis", Some("application/json, */*")).json();
    assert_eq!(legacy["kind"], "APIGroupList");
    assert!(legacy["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .any(|g| g["name"] == "objectbucket.io"));
    assert_eq!(get(&server, "/api", None).json()["kind"], "APIVersions");
    let rl = get(&server, "/apis/ceph.rook.io/v1", None).json();
    assert_eq!(rl["kind"], "APIResourceList");
    assert!(rl["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .any(|r| r["name"] == "cephclusters/status"));
    assert_eq!(get(&server, "/api/v1", None).json()["groupVersion"], "v1");
    assert_eq!(get(&server, "/apis/cert-manager.io/v1", None).status, 404);
    assert_eq!(get(&server, "/openapi/v2", None).status, 404);
    assert_eq!(
        get(&server, "/version", None).json()["gitVersion"],
        "v1.31.4"
    );
}

#[test]
fn lists_objects_and_not_found_look_like_the_apiserver() {
    let server = dirqual();
    let l = get(&server, "/apis/apps/v1/daemonsets", None).json();
    assert_eq!(l["kind"], "DaemonSetList");
    assert_eq!(l["apiVersion"], "apps/v1");
    assert!(l["metadata"]["resourceVersion"].is_string());
    assert!(
        l["items"][0].get("kind").is_none(),
        "typed list items carry no kind"
    );
    let ns = get(
        &server,
        "/apis/apps/v1/namespaces/registry/deployments",
        None,
    )
    .json();
    assert_eq!(ns["items"].as_array().expect("items").len(), 1);
    let cc = get(
        &server,
        "/apis/ceph.rook.io/v1/namespaces/rook-ceph/cephclusters",
        None,
    )
    .json();
    assert_eq!(cc["kind"], "CephClusterList");
    assert_eq!(
        cc["items"][0]["kind"], "CephCluster",
        "custom list items keep their kind"
    );
    let one = get(&server, "/api/v1/nodes/dirqual2", None).json();
    assert_eq!(one["kind"], "Node");
    assert_eq!(one["status"]["addresses"][0]["address"], "10.67.2.12");
    let missing = get(
        &server,
        "/apis/apps/v1/namespaces/registry/deployments/nope",
        None,
    );
    assert_eq!(missing.status, 404);
    assert_eq!(
        missing.json()["message"],
        "deployments.apps \"nope\" not found"
    );
    let ns = get(&server, "/api/v1/namespaces/rook-ceph", None).json();
    assert_eq!(ns["kind"], "Namespace");
    let sel = get(
        &server,
        "/apis/apps/v1/deployments?labelSelector=app.kubernetes.io%2Fname%3Dregistry",
        None,
    )
    .json();
    assert_eq!(sel["items"].as_array().expect("items").len(), 1);
    let field = get(
        &server,
        "/api/v1/nodes?fieldSelector=metadata.name%3Ddirqual4",
        None,
    )
    .json();
    assert_eq!(field["items"][0]["metadata"]["name"], "dirqual4");
    assert_eq!(get(&server, "/apis/nope.io/v1/things", None).status, 404);
    assert_eq!(get(&server, "/api/v1/nodes?watch=true", None).status, 400);
}

#[test]
fn tables_carry_columns_rows_and_the_asked_object() {
    let server = dirqual();
    let t = get(&server, "/api/v1/nodes?includeObject=Object", Some(TABLE));
    assert_eq!(
        t.header("content-type"),
        Some("application/json;as=Table;v=v1;g=meta.k8s.io")
    );
    let t = t.json();
    assert_eq!(t["kind"], "Table");
    assert_eq!(t["apiVersion"], "meta.k8s.io/v1");
    let cols: Vec<&str> = t["columnDefinitions"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    assert_eq!(&cols[..5], ["Name", "Status", "Roles", "Age", "Version"]);
    assert_eq!(t["rows"][0]["cells"][1], "Ready");
    assert_eq!(t["rows"][0]["object"]["kind"], "Node");
    let meta = get(&server, "/api/v1/nodes", Some(TABLE)).json();
    assert_eq!(meta["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    let none = get(&server, "/api/v1/nodes?includeObject=None", Some(TABLE)).json();
    assert!(none["rows"][0].get("object").is_none());
    let cc = get(&server, "/apis/ceph.rook.io/v1/cephclusters", Some(TABLE)).json();
    let cols: Vec<&str> = cc["columnDefinitions"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    let h = cols
        .iter()
        .position(|c| *c == "Health")
        .expect("printer column");
    assert_eq!(cc["rows"][0]["cells"][h], "HEALTH_OK");
    let deploy = get(
        &server,
        "/apis/apps/v1/namespaces/registry/deployments",
        Some(TABLE),
    )
    .json();
    assert_eq!(deploy["rows"][0]["cells"][1], "1/1");
}

fn many_namespaces(n: usize) -> Fixture {
    Fixture {
        objects: (0..n)
            .map(|i| fixtures::namespace(&format!("ns-{i:04}"), "2025-01-15T09:00:00Z"))
            .collect(),
        ..Fixture::default()
    }
}

#[test]
fn limit_and_continue_page_through_a_thousand_namespaces_on_one_connection() {
    let server = Server::start(Config::new(many_namespaces(1000))).expect("server");
    let mut c = Conn::open(server.addr());
    let mut seen = Vec::new();
    let mut token = String::new();
    let mut requests = 0;
    loop {
        let target = if token.is_empty() {
            "/api/v1/namespaces?limit=2".to_string()
        } else {
            format!("/api/v1/namespaces?limit=2&continue={token}")
        };
        let page = c
            .request("GET", &target, None, None)
            .expect("keep-alive answer")
            .json();
        requests += 1;
        for it in page["items"].as_array().expect("items") {
            seen.push(it["metadata"]["name"].as_str().expect("name").to_string());
        }
        match page["metadata"]["continue"].as_str() {
            Some(t) => {
                let left = page["metadata"]["remainingItemCount"]
                    .as_u64()
                    .expect("count");
                assert_eq!(left as usize, 1000 - seen.len());
                token = t
                    .replace('+', "%2B")
                    .replace('/', "%2F")
                    .replace('=', "%3D");
            }
            None => break,
        }
    }
    assert_eq!(requests, 500);
    assert_eq!(seen.len(), 1000);
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, seen);
    let bad = get(&server, "/api/v1/namespaces?limit=2&continue=%21%21", None);
    assert_eq!(bad.status, 400);
    assert!(bad.json()["message"]
        .as_str()
        .expect("message")
        .starts_with("continue key is not valid"));
}

#[test]
fn status_faults_read_like_the_real_apiserver() {
    let server = dirqual();
    server.set_faults(
        [
            "GET /apis/ceph.rook.io=403",
            "/api/v1/nodes=401",
            "GET /apis/apps/v1/namespaces/registry=404",
            "GET /apis/storage.k8s.io=500",
        ]
        .iter()
        .map(|s| FaultRule::parse(s).expect("rule"))
        .collect(),
    );
    let f = get(
        &server,
        "/apis/ceph.rook.io/v1/namespaces/rook-ceph/cephclusters",
        None,
    );
    assert_eq!(f.status, 403);
    let v = f.json();
    assert_eq!(v["kind"], "Status");
    assert_eq!(v["reason"], "Forbidden");
    assert_eq!(v["code"], 403);
    assert_eq!(
        v["message"],
        "cephclusters.ceph.rook.io is forbidden: User \"nestor\" cannot list resource \
         \"cephclusters\" in API group \"ceph.rook.io\" in the namespace \"rook-ceph\""
    );
    assert_eq!(
        v["details"],
        json!({"group": "ceph.rook.io", "kind": "cephclusters"})
    );
    assert_eq!(
        get(&server, "/api/v1/nodes", None).json()["reason"],
        "Unauthorized"
    );
    let nf = get(
        &server,
        "/apis/apps/v1/namespaces/registry/deployments/registry",
        None,
    );
    assert_eq!(nf.status, 404);
    assert_eq!(nf.json()["reason"], "NotFound");
    assert_eq!(
        get(&server, "/apis/storage.k8s.io/v1/storageclasses", None).json()["reason"],
        "InternalError"
    );
    assert_eq!(get(&server, "/apis/apps/v1/daemonsets", None).status, 200);
    let faulted = server.audit().iter().filter(|e| e.fault.is_some()).count();
    assert_eq!(faulted, 4);
}

#[test]
fn hang_closes_without_an_answer_and_stop_wakes_it() {
    let mut server = Server::start(
        Config::new(fixture("bench"))
            .fault("GET /api/v1/nodes=hang:1")
            .expect("rule"),
    )
    .expect("server");
    let t = Instant::now();
    let a = Conn::open(server.addr()).request("GET", "/api/v1/nodes", None, None);
    assert!(a.is_none(), "a hang gives no answer");
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "{:?}",
        t.elapsed()
    );
    server.set_faults(vec![
        FaultRule::parse("/api/v1/nodes=hang:60").expect("rule")
    ]);
    let addr = server.addr();
    let waiter = std::thread::spawn(move || {
        let t = Instant::now();
        let a = Conn::open(addr).request("GET", "/api/v1/nodes", None, None);
        (a.is_none(), t.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    server.stop();
    let (no_answer, waited) = waiter.join().expect("join");
    assert!(no_answer);
    assert!(waited < Duration::from_secs(10), "{waited:?}");
}

#[test]
fn latency_and_delay_slow_every_answer() {
    let server = Server::start(
        Config::new(fixture("bench"))
            .latency_ms(120)
            .fault("GET /apis=delay:200")
            .expect("rule"),
    )
    .expect("server");
    let t = Instant::now();
    assert_eq!(get(&server, "/version", None).status, 200);
    let v = t.elapsed();
    assert!(v >= Duration::from_millis(115), "{v:?}");
    let t = Instant::now();
    assert_eq!(get(&server, "/apis", None).status, 200);
    assert!(
        t.elapsed() >= Duration::from_millis(310),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn the_audit_file_gets_one_json_line_per_request() {
    let dir = Scratch::new("audit");
    let file = dir.path("audit.jsonl");
    let server = Server::start(Config::new(fixture("bench")).audit_file(&file)).expect("server");
    get(&server, "/version", Some("application/json"));
    get(&server, "/api/v1/nodes?limit=1", None);
    let mut c = Conn::open(server.addr());
    c.request("DELETE", "/api/v1/nodes/node1", None, None);
    let text = std::fs::read_to_string(&file).expect("audit file");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["path"], "/version");
    assert_eq!(lines[0]["accept"], "application/json");
    assert_eq!(lines[1]["query"], "limit=1");
    assert!(lines[1]["response_bytes"].as_u64().expect("bytes") > 100);
    assert_eq!(lines[2]["method"], "DELETE");
    assert_eq!(lines[2]["status"], 405);
}

/// Every quoted RFC 3339 time within 200 days of now replaced by `<relative>`.
fn relative_times_blanked(text: &str) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    text.split('"')
        .map(|part| match nestor_replay::table::parse_rfc3339(part) {
            Some(t) if part.len() == 20 && (t - now).abs() < 200 * 86_400 => "<relative>",
            _ => part,
        })
        .collect::<Vec<_>>()
        .join("\"")
}

#[test]
fn committed_fixtures_match_their_generators() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for name in ["dirqual", "dirqual-full", "degraded", "bench"] {
        let committed = std::fs::read_to_string(dir.join(format!("{name}.json"))).expect("file");
        let generated = fixtures::by_name(name).expect("generator").to_json_pretty();
        // Times a healthy operator keeps current (lastChecked, a renewed certificate) are
        // generated relative to now (`when::from_now`): compared without their value.
        let (committed, generated) = (
            relative_times_blanked(&committed),
            relative_times_blanked(&generated),
        );
        assert!(
            committed == generated,
            "fixtures/{name}.json is stale: run \
             `cargo run -p nestor-replay -- --generate {name} > crates/replay/fixtures/{name}.json`"
        );
    }
}

#[test]
fn big_has_the_announced_sizes() {
    let f = fixtures::big();
    let count = |k: &str| f.objects.iter().filter(|o| o["kind"] == k).count();
    assert_eq!(count("Node"), fixtures::BIG_NODES);
    assert_eq!(count("Namespace"), fixtures::BIG_NAMESPACES);
    assert_eq!(count("Deployment"), fixtures::BIG_DEPLOYMENTS);
    assert!(count("CustomResourceDefinition") >= fixtures::BIG_CRDS);
    assert_eq!(count("CephCluster"), 1);
    let server = Server::start(Config::new(f)).expect("server");
    let apis = get(&server, "/apis", Some(AGG)).json();
    let groups = apis["items"].as_array().expect("items").len();
    assert!(groups > 60, "{groups}");
    let crd = get(
        &server,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widget000s.g00.platform.example.com",
        None,
    );
    assert_eq!(crd.status, 200);
    assert!(crd.body.len() > 90_000, "{}", crd.body.len());
}

#[test]
fn the_binary_serves_writes_its_port_and_stops_on_stdin_eof() {
    use std::process::{Command, Stdio};
    let dir = Scratch::new("bin");
    let port_file = dir.path("port");
    let mut child = Command::new(env!("CARGO_BIN_EXE_nestor-replay"))
        .args([
            "--generate",
            "bench",
            "--listen",
            "127.0.0.1:0",
            "--exit-on-stdin-eof",
        ])
        .args(["--fault", "GET /apis/cilium.io=403", "--latency-ms", "1"])
        .arg("--port-file")
        .arg(&port_file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let line = first_line(&mut child.stdout.take().expect("stdout"));
    let url = line.strip_prefix("listening on http://").expect(&line);
    let port: u16 = std::fs::read_to_string(&port_file)
        .expect("port file")
        .trim()
        .parse()
        .expect("port");
    assert!(url.ends_with(&format!(":{port}")), "{url} vs {port}");
    let answer = get_raw(
        TcpStream::connect(url).expect("connect"),
        "/apis/cilium.io/v2/ciliumnodes",
    );
    assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
    drop(child.stdin.take());
    let t = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            assert!(status.success());
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "did not stop on stdin EOF"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let printed = Command::new(env!("CARGO_BIN_EXE_nestor-replay"))
        .args(["--generate", "degraded"])
        .output()
        .expect("run");
    let f: Fixture = serde_json::from_slice(&printed.stdout).expect("fixture JSON");
    assert!(f
        .objects
        .iter()
        .any(|o| o["status"]["ceph"]["health"] == "HEALTH_WARN"));
    let bad = Command::new(env!("CARGO_BIN_EXE_nestor-replay"))
        .args(["--generate", "bench", "--fault", "nonsense"])
        .output()
        .expect("run");
    assert!(!bad.status.success());
}

#[test]
fn the_binary_serves_a_unix_socket_with_faults_and_the_audit() {
    use std::os::unix::net::UnixStream;
    use std::process::{Command, Stdio};
    let dir = Scratch::new("unix");
    let socket = dir.path("api.sock");
    let audit = dir.path("audit.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_nestor-replay"))
        .args([
            "--generate",
            "dirqual",
            "--fault",
            "GET /apis/ceph.rook.io=403",
        ])
        .arg("--unix-socket")
        .arg(&socket)
        .arg("--audit")
        .arg(&audit)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let line = first_line(&mut child.stdout.take().expect("stdout"));
    assert_eq!(line, format!("listening on unix:{}", socket.display()));
    let ask = |path: &str| get_raw(UnixStream::connect(&socket).expect("connect"), path);
    let nodes = ask("/api/v1/nodes");
    assert!(nodes.starts_with("HTTP/1.1 200 "), "{nodes}");
    assert!(
        nodes.contains("\"kind\":\"NodeList\"") && nodes.contains("dirqual1"),
        "{nodes}"
    );
    let ceph = ask("/apis/ceph.rook.io/v1/cephclusters");
    assert!(ceph.starts_with("HTTP/1.1 403 "), "{ceph}");
    let _ = child.kill();
    let _ = child.wait();
    let lines = std::fs::read_to_string(&audit).expect("audit");
    let paths: Vec<String> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("audit line")["path"].to_string())
        .collect();
    assert_eq!(
        paths,
        [
            "\"/api/v1/nodes\"",
            "\"/apis/ceph.rook.io/v1/cephclusters\""
        ]
    );
    let both = Command::new(env!("CARGO_BIN_EXE_nestor-replay"))
        .args([
            "--generate",
            "bench",
            "--listen",
            "127.0.0.1:0",
            "--unix-socket",
        ])
        .arg(&socket)
        .output()
        .expect("run");
    assert!(!both.status.success());
}
