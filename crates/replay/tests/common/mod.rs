//! Shared helpers for the integration tests: fixture loading, scratch directories, a tiny
//! HTTP/1.1 client over `TcpStream`, and finding and running the real `kubectl`.

#![allow(dead_code)]

use nestor_replay::{Fixture, Server};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// A committed fixture from `crates/replay/fixtures/`.
pub fn fixture(name: &str) -> Fixture {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(format!("{name}.json"));
    Fixture::load(&p).expect("fixture loads")
}

/// A fresh scratch directory under the system temp dir, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static N: AtomicU32 = AtomicU32::new(0);
        let p = std::env::temp_dir().join(format!(
            "nestor-replay-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("scratch dir");
        Scratch(p)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The first line `stdout` holds (a spawned binary's `listening on ...`), read a byte at a
/// time so that nothing after the newline is taken from the pipe.
pub fn first_line(stdout: &mut impl Read) -> String {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while stdout.read(&mut byte).expect("read") == 1 && byte[0] != b'\n' {
        line.push(byte[0]);
    }
    String::from_utf8(line).expect("utf8")
}

/// `GET path` sent as-is over `stream` (TCP or a Unix socket) with `Connection: close`; the
/// whole answer, status line and headers included.
pub fn get_raw<S: Read + Write>(mut stream: S, path: &str) -> String {
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .expect("write");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    answer
}

/// A raw HTTP answer.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// One keep-alive HTTP/1.1 connection.
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    pub fn open(addr: SocketAddr) -> Conn {
        let s = TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        Conn {
            writer: s.try_clone().expect("clone"),
            reader: BufReader::new(s),
        }
    }

    /// Sends a request (no body unless given) and reads one answer.
    pub fn request(
        &mut self,
        method: &str,
        target: &str,
        accept: Option<&str>,
        body: Option<&[u8]>,
    ) -> Option<Answer> {
        let mut req =
            format!("{method} {target} HTTP/1.1\r\nHost: replay\r\nUser-Agent: replay-test\r\n");
        if let Some(a) = accept {
            req.push_str(&format!("Accept: {a}\r\n"));
        }
        if let Some(b) = body {
            req.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            ));
        }
        req.push_str("\r\n");
        self.writer.write_all(req.as_bytes()).ok()?;
        if let Some(b) = body {
            self.writer.write_all(b).ok()?;
        }
        self.read_answer(method == "HEAD")
    }

    fn read_answer(&mut self, head_only: bool) -> Option<Answer> {
        let mut line = String::new();
        if self.reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let status: u16 = line.split(' ').nth(1)?.parse().ok()?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).ok()?;
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (n, v) = l.split_once(':')?;
            headers.push((n.trim().to_string(), v.trim().to_string()));
        }
        let len: usize = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; if head_only { 0 } else { len }];
        self.reader.read_exact(&mut body).ok()?;
        Some(Answer {
            status,
            headers,
            body,
        })
    }
}

/// One GET on a fresh connection.
pub fn get(server: &Server, target: &str, accept: Option<&str>) -> Answer {
    Conn::open(server.addr())
        .request("GET", target, accept, None)
        .expect("an answer")
}

/// The real kubectl on PATH, or None (the caller prints why it skips).
pub fn kubectl() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("kubectl"))
        .find(|p| p.is_file())
}

/// Skips the calling test (returns early) when kubectl is not on PATH.
#[macro_export]
macro_rules! require_kubectl {
    () => {
        match common::kubectl() {
            Some(k) => k,
            None => {
                eprintln!(
                    "SKIP {}: no kubectl on PATH",
                    std::thread::current().name().unwrap_or(module_path!())
                );
                return;
            }
        }
    };
}

/// Runs the real kubectl against a server: generated kubeconfig and `--cache-dir` in a
/// scratch directory, HOME pointed there too so nothing lands in the real `~/.kube`.
pub struct Kubectl {
    pub bin: PathBuf,
    pub scratch: Scratch,
}

impl Kubectl {
    pub fn new(bin: PathBuf, server: &Server) -> Kubectl {
        let scratch = Scratch::new("kubectl");
        server
            .write_kubeconfig(&scratch.path("kubeconfig"))
            .expect("kubeconfig");
        Kubectl { bin, scratch }
    }

    pub fn run(&self, args: &[&str]) -> Output {
        let kubeconfig = self.scratch.path("kubeconfig");
        let cache = self.scratch.path("cache");
        Command::new(&self.bin)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .arg("--cache-dir")
            .arg(&cache)
            .args(args)
            .env("HOME", &self.scratch.0)
            .env_remove("KUBECONFIG")
            .output()
            .expect("kubectl runs")
    }

    /// Runs and insists on exit 0; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "kubectl {args:?} failed: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// Every request a read-only client made was a GET.
pub fn assert_only_gets(server: &Server) {
    let audit = server.audit();
    assert!(!audit.is_empty(), "the server saw no request at all");
    assert!(
        server.audit_non_get().is_empty(),
        "{:?}",
        server.audit_non_get()
    );
    for e in &audit {
        assert_eq!(e.method, "GET", "{e:?}");
    }
}
