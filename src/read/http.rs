//! A minimal HTTP/1.1 client for exactly one use: GET requests to the local `kubectl proxy`
//! over its unix socket (SPEC §11). One connection per request (`Connection: close`), so
//! requests run in parallel on plain threads; the answer is framed by `Content-Length`,
//! `Transfer-Encoding: chunked` (what the proxy sends when it decompressed a gzip answer),
//! or the end of the stream, and decoded by the one decoder (`read::wire`), here into one
//! buffer under a size cap. Everything is bounded by a deadline. std only: no TLS, no
//! async runtime — the proxy does the TLS and authentication with the kubeconfig.

use std::io::{BufRead, Read};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::read::wire::Body;
pub use crate::read::wire::HttpError;

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
    let answer =
        crate::read::stream::open(socket, target, accept, user_agent, deadline, cap as u64)?;
    decode_body(answer.status, answer.body, cap, budget)
}

/// The whole answer to a request already sent ([`crate::read::stream::send`]), by its
/// deadline, at most [`MAX_BUFFERED_BYTES`].
pub fn read_sent(sent: crate::read::stream::Sent) -> Result<Response, HttpError> {
    let budget = sent.deadline().saturating_duration_since(Instant::now());
    let answer = sent.answer(MAX_BUFFERED_BYTES as u64)?;
    decode_body(answer.status, answer.body, MAX_BUFFERED_BYTES, budget)
}

/// The whole body of an answer, through the one decoder (`read::stream`), at most `cap`
/// bytes; its failures as [`HttpError`]s.
fn decode_body<R: BufRead>(
    status: u16,
    mut body: Body<R>,
    cap: usize,
    budget: Duration,
) -> Result<Response, HttpError> {
    let mut out = Vec::new();
    match body.read_to_end(&mut out) {
        Ok(_) => Ok(Response { status, body: out }),
        Err(_) if body.over_cap => Err(HttpError::TooLarge(cap)),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            Err(HttpError::Malformed(e.to_string()))
        }
        Err(e) => Err(io_error(e, budget)),
    }
}

// std::io::ErrorKind is #[non_exhaustive]: every other I/O error is an I/O failure.
#[allow(clippy::wildcard_enum_match_arm)]
fn io_error(e: std::io::Error, budget: Duration) -> HttpError {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            HttpError::TimedOut(budget)
        }
        _ => HttpError::Io(e),
    }
}

/// Parse one complete HTTP/1.x answer (head and body, the stream read to its end) with the
/// same decoder as the socket reads.
#[cfg(test)]
pub(crate) fn parse_response(mut buf: &[u8]) -> Result<Response, HttpError> {
    let (status, framing) = crate::read::wire::read_head(&mut buf)?;
    decode_body(
        status,
        Body::new(buf, framing, u64::MAX),
        usize::MAX,
        Duration::ZERO,
    )
}

#[cfg(test)]
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
    fn buffered_and_socket_answers_fail_alike() {
        // One decoder: the same bytes fail with the same words from a buffer or a socket.
        for (bad, want) in [
            (
                &b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"[..],
                "body cut short",
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                "chunk size is not a number",
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
                "body cut short",
            ),
        ] {
            let want = format!("malformed HTTP answer: {want}");
            assert_eq!(parse_response(bad).unwrap_err().to_string(), want);
            let (_dir, socket) = serve(bad, Duration::ZERO);
            let e = get(
                &socket,
                "/api/v1/nodes?x=1",
                "application/json",
                "test",
                Instant::now() + Duration::from_secs(3),
            )
            .unwrap_err();
            assert_eq!(e.to_string(), want);
        }
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
