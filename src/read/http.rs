//! A minimal HTTP/1.1 client for exactly one use: GET requests to the local `kubectl proxy`
//! over its unix socket (SPEC §11). One connection per request (`Connection: close`), so
//! requests run in parallel on plain threads; the answer is framed by `Content-Length`,
//! `Transfer-Encoding: chunked` (what the proxy sends when it decompressed a gzip answer),
//! or the end of the stream. Everything is bounded by a deadline. std only: no TLS, no
//! async runtime — the proxy does the TLS and authentication with the kubeconfig.

use std::fmt;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// One HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Response {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Why no answer could be read.
#[derive(Debug)]
pub enum HttpError {
    /// Nothing listens on the socket (or it is gone).
    Connect(std::io::Error),
    /// No complete answer before the deadline.
    TimedOut(Duration),
    /// The connection failed while talking.
    Io(std::io::Error),
    /// The bytes received are not an HTTP/1.x answer.
    Malformed(String),
    /// The answer passed the size cap: not read (bounded memory, never an out-of-memory).
    TooLarge(usize),
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpError::Connect(e) => write!(f, "cannot connect: {e}"),
            HttpError::TimedOut(after) => {
                write!(f, "no answer within {:.1}s", after.as_secs_f64())
            }
            HttpError::Io(e) => write!(f, "connection failed: {e}"),
            HttpError::Malformed(m) => write!(f, "malformed HTTP answer: {m}"),
            HttpError::TooLarge(cap) => write!(
                f,
                "answer over {} MiB: not read (nestor bounds what it holds in memory)",
                cap >> 20
            ),
        }
    }
}

/// A buffered answer (built-in lists, discovery) bigger than this is a failed read: nestor
/// holds it whole while decoding, so the cap bounds its memory. Custom resource lists, which
/// can be far bigger, are decoded as they arrive instead (`read::stream`).
pub const MAX_BUFFERED_BYTES: usize = 48 << 20;

/// GET `target` (path and query) on the HTTP server listening on `socket`, with `Accept:
/// accept`, reading the whole answer before `deadline`; over [`MAX_BUFFERED_BYTES`] it stops.
pub fn get(
    socket: &Path,
    target: &str,
    accept: &str,
    user_agent: &str,
    deadline: Instant,
) -> Result<Response, HttpError> {
    get_capped(
        socket,
        target,
        accept,
        user_agent,
        deadline,
        MAX_BUFFERED_BYTES,
    )
}

/// [`get`] with another size cap (tests use a small one).
pub fn get_capped(
    socket: &Path,
    target: &str,
    accept: &str,
    user_agent: &str,
    deadline: Instant,
    cap: usize,
) -> Result<Response, HttpError> {
    let budget = deadline.saturating_duration_since(Instant::now());
    let timed_out = || HttpError::TimedOut(budget);
    let mut stream = UnixStream::connect(socket).map_err(HttpError::Connect)?;
    let remaining = |deadline: Instant| {
        let left = deadline.saturating_duration_since(Instant::now());
        (!left.is_zero()).then_some(left)
    };
    stream
        .set_write_timeout(Some(remaining(deadline).ok_or_else(timed_out)?))
        .map_err(HttpError::Io)?;
    // `Host: localhost`: kubectl proxy's --accept-hosts default accepts only loopback names.
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: localhost\r\nAccept: {accept}\r\nUser-Agent: {user_agent}\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| io_error(e, budget))?;
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    // Known once the head is in and carries a Content-Length (looked for once, not per read).
    let mut total: Option<Option<usize>> = None;
    loop {
        if total.is_none() && head_end(&buf).is_some() {
            total = Some(expected_length(&buf));
        }
        if let Some(Some(complete)) = total {
            if buf.len() >= complete {
                buf.truncate(complete);
                break;
            }
        }
        stream
            .set_read_timeout(Some(remaining(deadline).ok_or_else(timed_out)?))
            .map_err(HttpError::Io)?;
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) if buf.len() + n > cap => return Err(HttpError::TooLarge(cap)),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(e, budget)),
        }
    }
    parse_response(&buf)
}

fn io_error(e: std::io::Error, budget: Duration) -> HttpError {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            HttpError::TimedOut(budget)
        }
        _ => HttpError::Io(e),
    }
}

/// The end of the head (after `\r\n\r\n`), if received.
fn head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

/// With `Content-Length`, the total length of the answer (head included) once the head is
/// in; lets the reader stop without waiting for the server to close.
fn expected_length(buf: &[u8]) -> Option<usize> {
    let end = head_end(buf)?;
    let head = std::str::from_utf8(&buf[..end]).ok()?;
    let (_, headers) = split_head(head).ok()?;
    if header(&headers, "transfer-encoding").is_some() {
        return None;
    }
    let length: usize = header(&headers, "content-length")?.trim().parse().ok()?;
    Some(end + length)
}

type Headers<'a> = Vec<(&'a str, &'a str)>;

pub(crate) fn split_head(head: &str) -> Result<(u16, Headers<'_>), HttpError> {
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let code = parts.next().unwrap_or_default();
    if !version.starts_with("HTTP/1.") {
        return Err(HttpError::Malformed(format!("status line {status_line:?}")));
    }
    let status = code
        .parse::<u16>()
        .map_err(|_| HttpError::Malformed(format!("status line {status_line:?}")))?;
    let headers = lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect();
    Ok((status, headers))
}

fn header<'a>(headers: &[(&str, &'a str)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}

/// Parse one complete HTTP/1.x answer (head and body, the stream read to its end).
pub fn parse_response(buf: &[u8]) -> Result<Response, HttpError> {
    let end = head_end(buf).ok_or_else(|| {
        HttpError::Malformed(if buf.is_empty() {
            "the connection closed without an answer".to_string()
        } else {
            "the connection closed before the end of the headers".to_string()
        })
    })?;
    let head = std::str::from_utf8(&buf[..end])
        .map_err(|_| HttpError::Malformed("headers are not UTF-8".to_string()))?;
    let (status, headers) = split_head(head)?;
    let raw = &buf[end..];
    let chunked = header(&headers, "transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        dechunk(raw)?
    } else if let Some(length) = header(&headers, "content-length") {
        let length: usize = length
            .trim()
            .parse()
            .map_err(|_| HttpError::Malformed(format!("Content-Length {length:?}")))?;
        if raw.len() < length {
            return Err(HttpError::Malformed(format!(
                "body cut short: {} of {length} bytes",
                raw.len()
            )));
        }
        raw[..length].to_vec()
    } else {
        raw.to_vec()
    };
    Ok(Response { status, body })
}

/// Decode a `Transfer-Encoding: chunked` body; it must end with the last (zero) chunk.
fn dechunk(mut raw: &[u8]) -> Result<Vec<u8>, HttpError> {
    let mut out = Vec::with_capacity(raw.len());
    loop {
        let line_end = raw
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| HttpError::Malformed("chunked body cut short".to_string()))?;
        let size_text = std::str::from_utf8(&raw[..line_end])
            .map_err(|_| HttpError::Malformed("chunk size is not text".to_string()))?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| HttpError::Malformed(format!("chunk size {size_text:?}")))?;
        raw = &raw[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if raw.len() < size + 2 || &raw[size..size + 2] != b"\r\n" {
            return Err(HttpError::Malformed("chunked body cut short".to_string()));
        }
        out.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn content_length_body() {
        let r = parse_response(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
        )
        .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.body, b"{\"a\":1}");
        assert!(r.ok());
    }

    #[test]
    fn chunked_body_with_extension_and_trailer() {
        let r = parse_response(
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n4\r\n{\"a\"\r\n3;x=y\r\n:1}\r\n0\r\nX-T: 1\r\n\r\n",
        )
        .unwrap();
        assert_eq!(r.body, b"{\"a\":1}");
    }

    #[test]
    fn body_to_end_of_stream_without_length() {
        let r = parse_response(b"HTTP/1.0 500 Internal Server Error\r\n\r\ndial tcp: refused\n")
            .unwrap();
        assert_eq!(r.status, 500);
        assert_eq!(r.body_text(), "dial tcp: refused\n");
        assert!(!r.ok());
    }

    #[test]
    fn malformed_answers_are_errors() {
        for bad in [
            &b""[..],
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n",
            b"SSH-2.0-OpenSSH\r\n\r\n",
            b"HTTP/1.1 abc OK\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ] {
            assert!(
                matches!(parse_response(bad), Err(HttpError::Malformed(_))),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn content_length_completes_without_waiting_for_close() {
        assert_eq!(
            expected_length(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\na"),
            Some(40)
        );
        assert_eq!(expected_length(b"HTTP/1.1 200 OK\r\nContent-Le"), None);
        assert_eq!(
            expected_length(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"),
            None
        );
    }

    /// The proxy's side: checks the request, answers `answer` in two writes (so the reader
    /// must loop), then keeps the connection open for `linger`.
    fn serve(answer: &'static [u8], linger: Duration) -> (tempfile::TempDir, std::path::PathBuf) {
        fn check(text: &str) {
            assert!(
                text.starts_with("GET /api/v1/nodes?x=1 HTTP/1.1\r\n"),
                "{text}"
            );
            assert!(text.contains("\r\nHost: localhost\r\n"), "{text}");
            assert!(text.contains("\r\nAccept: application/json\r\n"), "{text}");
        }
        let half = answer.len().div_ceil(2);
        crate::read::test_socket::serve(
            answer.to_vec(),
            half,
            Duration::from_millis(20),
            linger,
            check,
        )
    }

    #[test]
    fn get_over_a_unix_socket() {
        // The server keeps the connection open: Content-Length alone ends the read.
        let (_dir, socket) = serve(
            b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"items\":1}",
            Duration::from_secs(5),
        );
        let started = Instant::now();
        let r = get(
            &socket,
            "/api/v1/nodes?x=1",
            "application/json",
            "test",
            Instant::now() + Duration::from_secs(3),
        )
        .unwrap();
        assert_eq!(r.body_text(), "{\"items\":1}");
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn get_times_out_at_the_deadline() {
        let (_dir, socket) = serve(b"HTTP/1.1 200 OK\r\nContent-Le", Duration::from_secs(5));
        let started = Instant::now();
        let e = get(
            &socket,
            "/api/v1/nodes?x=1",
            "application/json",
            "test",
            Instant::now() + Duration::from_millis(300),
        )
        .unwrap_err();
        assert!(matches!(e, HttpError::TimedOut(_)), "{e}");
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn an_answer_over_the_cap_is_too_large() {
        let (_dir, socket) = serve(
            b"HTTP/1.1 200 OK\r\nContent-Length: 4000\r\n\r\n{\"items\":1}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            Duration::from_secs(5),
        );
        let e = get_capped(
            &socket,
            "/api/v1/nodes?x=1",
            "application/json",
            "test",
            Instant::now() + Duration::from_secs(3),
            40,
        )
        .unwrap_err();
        assert!(matches!(e, HttpError::TooLarge(40)), "{e}");
        assert!(
            e.to_string().starts_with("answer over 0 MiB: not read"),
            "{e}"
        );
    }

    #[test]
    fn nobody_listening_is_a_connect_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = get(
            &dir.path().join("none"),
            "/",
            "application/json",
            "test",
            Instant::now() + Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(matches!(e, HttpError::Connect(_)), "{e}");
    }
}
