//! The replay server: a `TcpListener` on loopback, one thread per connection, HTTP/1.1
//! keep-alive, serving discovery, lists, single objects and Tables from a compiled
//! [`Cluster`](crate::fixture::Cluster), with fault rules, per-request latency and the
//! request audit. Anything but GET/HEAD is answered 405 and recorded.

use crate::audit::{Audit, AuditEntry};
use crate::discovery::{self, negotiate, Representation};
use crate::fault::{FaultAction, FaultRule};
use crate::fixture::{Cluster, Fixture, ResourceType};
use crate::http::{self, ReadOutcome, Request, Response};
use crate::select::{self, FieldSelector, LabelSelector};
use crate::status::{self, RequestInfo};
use crate::table::{self, IncludeObject};
use crate::timeline::Stage;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How a server is started.
#[derive(Debug, Clone)]
pub struct Config {
    /// The cluster to serve.
    pub fixture: Fixture,
    /// Address to listen on; `127.0.0.1:0` picks a free port.
    pub listen: String,
    /// Added before every answer (including `/version`).
    pub latency: Duration,
    /// Fault rules, first match wins.
    pub faults: Vec<FaultRule>,
    /// Append every audit entry as a JSON line to this file.
    pub audit_file: Option<PathBuf>,
    /// User name used in 403 messages.
    pub user: String,
    /// Serve aggregated discovery (`apidiscovery.k8s.io/v2`) when asked; when false only
    /// the legacy documents are served, as by an apiserver older than 1.26.
    pub aggregated_discovery: bool,
    /// Later states of the cluster ([`crate::timeline`]), sorted by `after`.
    pub stages: Vec<Stage>,
    /// The path whose answered GETs move the cluster through `stages`.
    pub stage_path: String,
    /// `/readyz?verbose`'s body (kube-apiserver's, all passing, unless a test says otherwise).
    pub readyz_verbose: String,
}

impl Config {
    /// Defaults: `127.0.0.1:0`, no latency, no fault, no audit file, user `nestor`,
    /// aggregated discovery on.
    pub fn new(fixture: Fixture) -> Config {
        Config {
            fixture,
            listen: "127.0.0.1:0".into(),
            latency: Duration::ZERO,
            faults: Vec::new(),
            audit_file: None,
            user: "nestor".into(),
            aggregated_discovery: true,
            stages: Vec::new(),
            stage_path: crate::timeline::NODES_PATH.into(),
            readyz_verbose: READYZ_VERBOSE.into(),
        }
    }

    /// Serves `fixture` instead once `after` GETs of the stage path (`/api/v1/nodes` unless
    /// [`Config::stage_path`] says otherwise) have been answered.
    pub fn then_after(mut self, after: u64, fixture: Fixture) -> Config {
        self.stages.push(Stage { after, fixture });
        self.stages.sort_by_key(|s| s.after);
        self
    }

    /// Sets the path counted by [`Config::then_after`].
    pub fn stage_path(mut self, path: &str) -> Config {
        self.stage_path = path.into();
        self
    }

    /// Sets the listen address.
    pub fn listen(mut self, addr: &str) -> Config {
        self.listen = addr.into();
        self
    }

    /// Sets the per-request latency in milliseconds.
    /// Answers `/readyz?verbose` with `body` (a hostile or contradictory one).
    pub fn readyz_verbose(mut self, body: &str) -> Config {
        self.readyz_verbose = body.into();
        self
    }

    pub fn latency_ms(mut self, ms: u64) -> Config {
        self.latency = Duration::from_millis(ms);
        self
    }

    /// Adds a fault rule in the `GET /apis/ceph.rook.io=403` syntax.
    pub fn fault(mut self, spec: &str) -> Result<Config, String> {
        self.faults.push(FaultRule::parse(spec)?);
        Ok(self)
    }

    /// Appends the audit to a JSON-lines file.
    pub fn audit_file(mut self, path: &Path) -> Config {
        self.audit_file = Some(path.to_path_buf());
        self
    }

    /// Sets the user named in 403 messages.
    pub fn user(mut self, user: &str) -> Config {
        self.user = user.into();
        self
    }

    /// Turns aggregated discovery on or off.
    pub fn aggregated_discovery(mut self, on: bool) -> Config {
        self.aggregated_discovery = on;
        self
    }
}

struct Shared {
    cluster: Cluster,
    /// `(after, cluster)` of each later stage, sorted.
    later: Vec<(u64, Cluster)>,
    stage_path: String,
    /// GETs of `stage_path` answered so far.
    stage_count: AtomicU64,
    faults: RwLock<Vec<FaultRule>>,
    latency: Duration,
    user: String,
    aggregated: bool,
    readyz_verbose: String,
    audit: Audit,
    server_address: String,
    stopping: Mutex<bool>,
    stop_cv: Condvar,
    /// Open connections, each as a closure that shuts it down (on [`Server::stop`]).
    conns: Mutex<HashMap<u64, Box<dyn Fn() + Send>>>,
    next_conn: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// The cluster a request sees once `counted` GETs of the stage path were answered.
    fn cluster_at(&self, counted: u64) -> &Cluster {
        let afters: Vec<u64> = self.later.iter().map(|(a, _)| *a).collect();
        match crate::timeline::stage_index(&afters, counted) {
            0 => &self.cluster,
            i => &self.later[i - 1].1,
        }
    }

    fn is_stopping(&self) -> bool {
        *lock(&self.stopping)
    }

    /// Sleeps `d` unless the server stops first; true when it stopped.
    fn sleep_or_stop(&self, d: Duration) -> bool {
        if d.is_zero() {
            return self.is_stopping();
        }
        let deadline = Instant::now() + d;
        let mut stopped = lock(&self.stopping);
        while !*stopped {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            stopped = self
                .stop_cv
                .wait_timeout(stopped, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        true
    }
}

/// A running replay server. Stops when dropped.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl Server {
    /// Compiles the fixture, binds, and starts serving in background threads.
    pub fn start(config: Config) -> Result<Server, String> {
        let listener = TcpListener::bind(&config.listen)
            .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the listen address: {e}"))?;
        let shared = Arc::new(Shared::new(config, addr.to_string())?);
        let sh = Arc::clone(&shared);
        let acceptor = thread::Builder::new()
            .name("replay-accept".into())
            .spawn(move || accept_loop(listener.incoming(), sh))
            .map_err(|e| format!("cannot start the accept thread: {e}"))?;
        Ok(Server {
            addr,
            shared,
            acceptor: Some(acceptor),
        })
    }

    /// Serves `config` on a unix socket at `socket` (created; it must not exist) in the
    /// calling thread, until the process ends: what `kubectl proxy --unix-socket` offers
    /// nestor, for the tests/cli stub kubectl. The same handler as over TCP (fixtures,
    /// faults, latency, audit); `ready` runs once the socket accepts.
    pub fn serve_unix(config: Config, socket: &Path, ready: impl FnOnce()) -> Result<(), String> {
        let listener = UnixListener::bind(socket)
            .map_err(|e| format!("cannot listen on {}: {e}", socket.display()))?;
        let shared = Arc::new(Shared::new(config, format!("unix:{}", socket.display()))?);
        ready();
        accept_loop(listener.incoming(), shared);
        Ok(())
    }
}

impl Shared {
    fn new(config: Config, server_address: String) -> Result<Shared, String> {
        let cluster = Cluster::build(&config.fixture)?;
        let later = config
            .stages
            .iter()
            .map(|s| Cluster::build(&s.fixture).map(|c| (s.after, c)))
            .collect::<Result<Vec<_>, String>>()?;
        let audit = Audit::new(config.audit_file.as_deref()).map_err(|e| {
            format!(
                "cannot open audit file {}: {e}",
                config
                    .audit_file
                    .as_deref()
                    .unwrap_or(Path::new(""))
                    .display()
            )
        })?;
        Ok(Shared {
            cluster,
            later,
            stage_path: config.stage_path,
            stage_count: AtomicU64::new(0),
            faults: RwLock::new(config.faults),
            latency: config.latency,
            user: config.user,
            aggregated: config.aggregated_discovery,
            readyz_verbose: config.readyz_verbose,
            audit,
            server_address,
            stopping: Mutex::new(false),
            stop_cv: Condvar::new(),
            conns: Mutex::new(HashMap::new()),
            next_conn: AtomicU64::new(1),
        })
    }
}

impl Server {
    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request recorded so far.
    pub fn audit(&self) -> Vec<AuditEntry> {
        self.shared.audit.entries()
    }

    /// Recorded requests whose method is not GET or HEAD.
    pub fn audit_non_get(&self) -> Vec<AuditEntry> {
        self.shared.audit.non_get()
    }

    /// Forgets the in-memory audit (the audit file keeps its lines).
    pub fn clear_audit(&self) {
        self.shared.audit.clear();
    }

    /// Replaces the fault rules while serving.
    pub fn set_faults(&self, faults: Vec<FaultRule>) {
        *self
            .shared
            .faults
            .write()
            .unwrap_or_else(|p| p.into_inner()) = faults;
    }

    /// The compiled cluster being served (its first stage).
    pub fn cluster(&self) -> &Cluster {
        &self.shared.cluster
    }

    /// GETs of the stage path answered so far ([`Config::then_after`]).
    pub fn stage_count(&self) -> u64 {
        self.shared.stage_count.load(Ordering::SeqCst)
    }

    /// A kubeconfig (YAML) whose current context `replay` points at this server with a
    /// bearer token.
    pub fn kubeconfig(&self) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: replay\n  cluster:\n    server: {}\n\
             users:\n- name: replay\n  user:\n    token: replay-token\n\
             contexts:\n- name: replay\n  context:\n    cluster: replay\n    user: replay\n\
             current-context: replay\npreferences: {{}}\n",
            self.url()
        )
    }

    /// Writes [`kubeconfig`](Self::kubeconfig) to a file, mode 0600 on Unix.
    pub fn write_kubeconfig(&self, path: &Path) -> io::Result<()> {
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(path)?;
        f.write_all(self.kubeconfig().as_bytes())
    }

    /// Stops accepting, wakes hanging requests and closes every connection. Idempotent.
    pub fn stop(&mut self) {
        {
            let mut s = lock(&self.shared.stopping);
            if *s && self.acceptor.is_none() {
                return;
            }
            *s = true;
        }
        self.shared.stop_cv.notify_all();
        // Wake the blocking accept().
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(500));
        if let Some(h) = self.acceptor.take() {
            let _ = h.join();
        }
        for (_, shutdown) in lock(&self.shared.conns).drain() {
            shutdown();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A connection the server answers on: TCP, or a unix socket ([`Server::serve_unix`]).
trait Stream: Read + Write + Send + Sized + 'static {
    fn try_clone(&self) -> io::Result<Self>;
    fn shutdown(&self);
    fn set_nodelay(&self) {}
}

impl Stream for TcpStream {
    fn try_clone(&self) -> io::Result<Self> {
        TcpStream::try_clone(self)
    }
    fn shutdown(&self) {
        let _ = TcpStream::shutdown(self, Shutdown::Both);
    }
    fn set_nodelay(&self) {
        let _ = TcpStream::set_nodelay(self, true);
    }
}

impl Stream for UnixStream {
    fn try_clone(&self) -> io::Result<Self> {
        UnixStream::try_clone(self)
    }
    fn shutdown(&self) {
        let _ = UnixStream::shutdown(self, Shutdown::Both);
    }
}

fn accept_loop<S: Stream>(incoming: impl Iterator<Item = io::Result<S>>, shared: Arc<Shared>) {
    for stream in incoming {
        if shared.is_stopping() {
            break;
        }
        let Ok(stream) = stream else { continue };
        let id = shared.next_conn.fetch_add(1, Ordering::Relaxed);
        if let Ok(c) = stream.try_clone() {
            lock(&shared.conns).insert(id, Box::new(move || c.shutdown()));
        }
        let sh = Arc::clone(&shared);
        let spawned = thread::Builder::new()
            .name(format!("replay-conn-{id}"))
            .spawn(move || {
                serve_connection(stream, &sh);
                lock(&sh.conns).remove(&id);
            });
        if spawned.is_err() {
            lock(&shared.conns).remove(&id);
        }
    }
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn serve_connection<S: Stream>(stream: S, shared: &Shared) {
    stream.set_nodelay();
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let req = match http::read_request(&mut reader) {
            Ok(ReadOutcome::Request(r)) => r,
            Ok(ReadOutcome::Closed) | Err(_) => return,
            Ok(ReadOutcome::Malformed(why)) => {
                let _ = http::write_response(&mut writer, &status::bad_request(&why), false, false);
                return;
            }
        };
        if shared.is_stopping() {
            return;
        }
        let started = Instant::now();
        let arrived = unix_ms();
        let mut entry = AuditEntry {
            seq: 0,
            unix_ms: arrived,
            method: req.method.clone(),
            path: req.path.clone(),
            query: req.query.clone(),
            accept: req.header("accept").map(String::from),
            user_agent: req.header("user-agent").map(String::from),
            authorization: req.header("authorization").is_some(),
            request_bytes: req.body_len,
            status: 0,
            response_bytes: 0,
            duration_ms: 0,
            fault: None,
        };
        if shared.sleep_or_stop(shared.latency) {
            return;
        }
        let is_read = matches!(req.method.as_str(), "GET" | "HEAD");
        // The stage this request sees: a counted request sees the stage of the requests
        // answered before it, and moves the next ones on.
        let counted = if req.method == "GET" && req.path == shared.stage_path {
            shared.stage_count.fetch_add(1, Ordering::SeqCst)
        } else {
            shared.stage_count.load(Ordering::SeqCst)
        };
        let cluster = shared.cluster_at(counted);
        let rule = shared
            .faults
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|r| r.matches(&req.method, &req.path))
            .cloned();
        let mut keep_alive = req.keep_alive;
        let resp = if !is_read {
            keep_alive = false;
            status::method_not_allowed(&req.method, &req.path)
        } else {
            match &rule {
                Some(r) => {
                    entry.fault = Some(r.to_string());
                    match &r.action {
                        FaultAction::Hang(d) => {
                            let d = *d;
                            entry.duration_ms = d.as_millis() as u64;
                            shared.audit.record(entry);
                            shared.sleep_or_stop(d);
                            writer.shutdown();
                            return;
                        }
                        FaultAction::Delay(d) => {
                            if shared.sleep_or_stop(*d) {
                                return;
                            }
                            route(shared, cluster, &req)
                        }
                        FaultAction::Status(code) => {
                            let info = RequestInfo::parse(&req.path, is_watch(&req));
                            status::for_code(*code, &shared.user, &info)
                        }
                        FaultAction::Redirect(base) => {
                            let query = match req.query.as_str() {
                                "" => String::new(),
                                q => format!("?{q}"),
                            };
                            Response::redirect(&format!("{base}{}{query}", req.path))
                        }
                        FaultAction::Serve(path) => {
                            let other = Request {
                                path: path.clone(),
                                ..req.clone()
                            };
                            route(shared, cluster, &other)
                        }
                        FaultAction::ProxyError(text) => Response::text(500, &format!("{text}\n")),
                        FaultAction::Body(text) => Response {
                            body: text.clone().into_bytes(),
                            ..Response::json(200, &serde_json::Value::Null)
                        },
                        FaultAction::ItemsNull => {
                            let mut resp = route(shared, cluster, &req);
                            if let Ok(mut v) =
                                serde_json::from_slice::<serde_json::Value>(&resp.body)
                            {
                                if v.get("items").is_some() {
                                    v["items"] = serde_json::Value::Null;
                                    resp.body = serde_json::to_vec(&v).unwrap_or_default();
                                }
                            }
                            resp
                        }
                    }
                }
                None => route(shared, cluster, &req),
            }
        };
        let head_only = req.method == "HEAD";
        entry.status = resp.status;
        entry.response_bytes = if head_only { 0 } else { resp.body.len() as u64 };
        entry.duration_ms = started.elapsed().as_millis() as u64;
        // Recorded before the answer leaves, so a client that has its answer (a kubectl
        // that has exited) always finds its request in the audit.
        shared.audit.record(entry);
        let ok = http::write_response(&mut writer, &resp, keep_alive, head_only).is_ok();
        if !ok || !keep_alive {
            writer.shutdown();
            return;
        }
    }
}

/// `/readyz?verbose` as kube-apiserver writes it (its check names, then the summary line).
const READYZ_VERBOSE: &str = "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n[+]poststarthook/start-apiserver-admission-initializer ok\n[+]poststarthook/generic-apiserver-start-informers ok\n[+]poststarthook/start-apiextensions-controllers ok\n[+]poststarthook/crd-informer-synced ok\n[+]poststarthook/bootstrap-controller ok\n[+]poststarthook/rbac/bootstrap-roles ok\n[+]poststarthook/apiservice-registration-controller ok\n[+]shutdown ok\nreadyz check passed\n";

fn is_watch(req: &Request) -> bool {
    matches!(req.query_param("watch").as_deref(), Some("true" | "1"))
}

fn route(shared: &Shared, cluster: &Cluster, req: &Request) -> Response {
    let path = req.path.trim_end_matches('/');
    let accept = req.header("accept");
    let segs: Vec<&str> = path.split('/').skip(1).collect();
    match segs.as_slice() {
        ["version"] => Response::json(200, &cluster.version),
        ["readyz"] if req.query_param("verbose").is_some() => {
            Response::text(200, &shared.readyz_verbose)
        }
        ["healthz" | "livez" | "readyz"] => Response::text(200, "ok"),
        ["api"] => match negotiate(accept, shared.aggregated, false) {
            Representation::Aggregated(v) => Response::json_typed(
                200,
                &discovery::aggregated_content_type(&v),
                &discovery::aggregated(cluster, true, &v),
            ),
            _ => Response::json(200, &discovery::api_versions(&shared.server_address)),
        },
        ["apis"] => match negotiate(accept, shared.aggregated, false) {
            Representation::Aggregated(v) => Response::json_typed(
                200,
                &discovery::aggregated_content_type(&v),
                &discovery::aggregated(cluster, false, &v),
            ),
            _ => Response::json(200, &discovery::api_group_list(cluster)),
        },
        ["api", v] => discovery::api_resource_list(cluster, "", v)
            .map(|d| Response::json(200, &d))
            .unwrap_or_else(|| Response::text(404, "404 page not found\n")),
        ["apis", g] => discovery::api_group(cluster, g)
            .map(|d| Response::json(200, &d))
            .unwrap_or_else(|| Response::text(404, "404 page not found\n")),
        ["apis", g, v] => discovery::api_resource_list(cluster, g, v)
            .map(|d| Response::json(200, &d))
            .unwrap_or_else(|| Response::text(404, "404 page not found\n")),
        ["api", _, _, ..] | ["apis", _, _, _, ..] => resource(cluster, req),
        _ => Response::text(404, "404 page not found\n"),
    }
}

/// Serializes an object, leaving out `apiVersion`/`kind` when `strip` (items of built-in
/// lists carry no type meta on a real apiserver).
struct Item<'a>(&'a Value, bool);

impl Serialize for Item<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.0, self.1) {
            (Value::Object(m), true) => {
                let mut map = s.serialize_map(None)?;
                for (k, v) in m {
                    if k != "apiVersion" && k != "kind" {
                        map.serialize_entry(k, v)?;
                    }
                }
                map.end()
            }
            (v, _) => v.serialize(s),
        }
    }
}

fn list_body(t: &ResourceType, metadata: &Value, items: &[&Value]) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + items.len() * 2048);
    let head = format!(
        "{{\"kind\":{},\"apiVersion\":{},\"metadata\":{},\"items\":[",
        json!(format!("{}List", t.kind)),
        json!(t.group_version()),
        metadata
    );
    out.extend_from_slice(head.as_bytes());
    let strip = t.is_builtin();
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = serde_json::to_writer(&mut out, &Item(it, strip));
    }
    out.extend_from_slice(b"]}");
    out
}

fn resource(cluster: &Cluster, req: &Request) -> Response {
    let watch = is_watch(req);
    let info = RequestInfo::parse(&req.path, watch);
    let Some(ti) = cluster.type_index(&info.group, &info.version, &info.resource) else {
        return status::resource_not_found();
    };
    let t = &cluster.types[ti];
    if !t.namespaced && !info.namespace.is_empty() && info.resource != "namespaces" {
        return status::resource_not_found();
    }
    if watch {
        return status::bad_request("watch is not supported by the replay server");
    }
    let representation = negotiate(req.header("accept"), false, true);
    let crd_columns = if t.printer_columns.is_empty() {
        cluster
            .crd_for(t)
            .and_then(|crd| {
                crate::fixture::types_from_crd(crd)
                    .into_iter()
                    .find(|x| x.version == t.version)
            })
            .map(|x| x.printer_columns)
            .unwrap_or_default()
    } else {
        t.printer_columns.clone()
    };
    let include = IncludeObject::parse(req.query_param("includeObject").as_deref());

    // A single object (or its status subresource).
    if !info.name.is_empty() {
        if !info.subresource.is_empty() && info.subresource != "status" {
            return status::resource_not_found();
        }
        let ns = if t.namespaced {
            info.namespace.as_str()
        } else {
            ""
        };
        if t.namespaced && ns.is_empty() {
            return status::object_not_found(&info);
        }
        let found = cluster.objects(ti).iter().find(|o| {
            o["metadata"]["name"].as_str() == Some(info.name.as_str())
                && o["metadata"]["namespace"].as_str().unwrap_or_default() == ns
        });
        return match (found, representation) {
            (None, _) => status::object_not_found(&info),
            (Some(o), Representation::Table(tv)) => {
                let md = json!({ "resourceVersion": o["metadata"]["resourceVersion"] });
                let tbl = table::table(t, &crd_columns, &[o], md, include, &tv);
                Response::json_typed(200, &table_content_type(&tv), &tbl)
            }
            (Some(o), _) => Response::json(200, o),
        };
    }

    // A list.
    let labels = match LabelSelector::parse(&req.query_param("labelSelector").unwrap_or_default()) {
        Ok(l) => l,
        Err(e) => return status::bad_request(&format!("unable to parse requirement: {e}")),
    };
    let fields = match FieldSelector::parse(&req.query_param("fieldSelector").unwrap_or_default()) {
        Ok(f) => f,
        Err(e) => return status::bad_request(&e),
    };
    let start_after = match req.query_param("continue").filter(|c| !c.is_empty()) {
        Some(tok) => match select::decode_continue(&tok) {
            Ok(k) => Some(k),
            Err(e) => return status::bad_request(&e),
        },
        None => None,
    };
    let limit: usize = match req.query_param("limit").filter(|l| !l.is_empty()) {
        Some(l) => match l.parse::<i64>() {
            Ok(n) if n > 0 => n as usize,
            Ok(_) => usize::MAX,
            Err(_) => return status::bad_request(&format!("invalid limit {l:?}")),
        },
        None => usize::MAX,
    };
    let ns = if t.namespaced {
        info.namespace.as_str()
    } else {
        ""
    };
    let matching: Vec<&Value> = cluster
        .objects(ti)
        .iter()
        .filter(|o| ns.is_empty() || o["metadata"]["namespace"].as_str() == Some(ns))
        .filter(|o| labels.matches(o) && fields.matches(o))
        .filter(|o| match &start_after {
            Some(k) => select::object_key(o).as_str() > k.as_str(),
            None => true,
        })
        .collect();
    let page: Vec<&Value> = matching.iter().take(limit).copied().collect();
    let remaining = matching.len() - page.len();
    let mut metadata = json!({ "resourceVersion": cluster.resource_version });
    if remaining > 0 {
        if let Some(last) = page.last() {
            metadata["continue"] = json!(select::encode_continue(
                &cluster.resource_version,
                &select::object_key(last)
            ));
            if labels.is_empty() && fields.is_empty() {
                metadata["remainingItemCount"] = json!(remaining);
            }
        }
    }
    match representation {
        Representation::Table(tv) => {
            let tbl = table::table(t, &crd_columns, &page, metadata, include, &tv);
            Response::json_typed(200, &table_content_type(&tv), &tbl)
        }
        _ => Response {
            status: 200,
            content_type: "application/json".into(),
            body: list_body(t, &metadata, &page),
            location: None,
        },
    }
}

fn table_content_type(version: &str) -> String {
    format!("application/json;as=Table;v={version};g=meta.k8s.io")
}
