//! A GET whose answer is decoded while it arrives: the head is read by `read::wire`'s
//! `read_head`, the body is its `Body` (framed by `Content-Length`, `Transfer-Encoding:
//! chunked` or the end of the stream) over the socket, so a list of 40 000 custom objects
//! is never held in memory — only what its decoder keeps. Every read is bounded by the
//! deadline and by a byte cap: an answer over the cap is a failed read, never an
//! out-of-memory or an endless stream. `read::http` opens its answers here too.

use std::io::{self, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Instant;

use crate::read::wire::{read_head, Body, HttpError};

/// A streamed answer bigger than this is refused: its decoder keeps little, so the cap bounds
/// time and bandwidth, not memory.
pub const MAX_STREAMED_BYTES: u64 = 1 << 30;

/// The answer's status line and a reader over its body.
pub struct Answer {
    pub status: u16,
    pub body: Body<BufReader<TimedStream>>,
}

/// The socket with its read timeout set from the deadline before every read.
pub struct TimedStream {
    stream: UnixStream,
    deadline: Instant,
}

impl Read for TimedStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "deadline reached"));
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

// std::io::ErrorKind is #[non_exhaustive]: every other I/O error is an I/O failure.
#[allow(clippy::wildcard_enum_match_arm)]
fn io_error(e: io::Error, deadline: Instant, started: Instant) -> HttpError {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            HttpError::TimedOut(deadline.saturating_duration_since(started))
        }
        _ => HttpError::Io(e),
    }
}

/// Send `GET target` on the HTTP server at `socket` and read the answer's head; the body is
/// left to read from the returned [`Answer`].
pub fn open(
    socket: &Path,
    target: &str,
    accept: &str,
    user_agent: &str,
    deadline: Instant,
    cap: u64,
) -> Result<Answer, HttpError> {
    send(socket, target, accept, user_agent, deadline)?.answer(cap)
}

/// A request written and not yet answered: the server works on it while the caller sends
/// others (a round goes out at once on few threads, SPEC §11), its deadline running from
/// when it was sent.
pub struct Sent {
    stream: UnixStream,
    deadline: Instant,
    started: Instant,
}

/// Send `GET target` on the HTTP server at `socket`; its answer is read by [`Sent::answer`].
pub fn send(
    socket: &Path,
    target: &str,
    accept: &str,
    user_agent: &str,
    deadline: Instant,
) -> Result<Sent, HttpError> {
    let started = Instant::now();
    let mut stream = UnixStream::connect(socket).map_err(HttpError::Connect)?;
    let left = deadline.saturating_duration_since(started);
    if left.is_zero() {
        return Err(HttpError::TimedOut(left));
    }
    stream
        .set_write_timeout(Some(left))
        .map_err(HttpError::Io)?;
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: localhost\r\nAccept: {accept}\r\nUser-Agent: {user_agent}\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| io_error(e, deadline, started))?;
    Ok(Sent {
        stream,
        deadline,
        started,
    })
}

impl Sent {
    /// When the answer is due at the latest.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Read the answer's head (by the deadline set when it was sent); the body is left to
    /// read, at most `cap` bytes.
    pub fn answer(self, cap: u64) -> Result<Answer, HttpError> {
        let Sent {
            stream,
            deadline,
            started,
        } = self;
        let mut inner = BufReader::with_capacity(64 * 1024, TimedStream { stream, deadline });
        let (status, framing) = read_head(&mut inner).map_err(|e| match e {
            HttpError::Io(e) => io_error(e, deadline, started),
            e @ (HttpError::Connect(_)
            | HttpError::TimedOut(_)
            | HttpError::Malformed(_)
            | HttpError::TooLarge(_)) => e,
        })?;
        Ok(Answer {
            status,
            body: Body::new(inner, framing, cap),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The proxy's side: answers `answer` in writes of 7 bytes, then closes.
    fn serve(answer: Vec<u8>) -> (tempfile::TempDir, std::path::PathBuf) {
        crate::read::test_socket::serve(answer, 7, Duration::ZERO, Duration::ZERO, |_| {})
    }

    fn body_of(answer: &[u8], cap: u64) -> (u16, io::Result<String>, bool) {
        let (_dir, socket) = serve(answer.to_vec());
        let a = open(
            &socket,
            "/x",
            "application/json",
            "t",
            Instant::now() + Duration::from_secs(5),
            cap,
        )
        .unwrap();
        let mut body = a.body;
        let mut s = String::new();
        let r = body.read_to_string(&mut s).map(|_| s);
        (a.status, r, body.over_cap)
    }

    #[test]
    fn framings_are_removed() {
        let (status, body, _) = body_of(
            b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"items\":1}trailing",
            1 << 20,
        );
        assert_eq!((status, body.unwrap().as_str()), (200, "{\"items\":1}"));
        let (_, body, _) = body_of(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3;x=y\r\n:1}\r\n0\r\n\r\n",
            1 << 20,
        );
        assert_eq!(body.unwrap(), "{\"a\":1}");
        let (status, body, _) = body_of(b"HTTP/1.0 500 Oops\r\n\r\ndial tcp: refused\n", 1 << 20);
        assert_eq!(
            (status, body.unwrap().as_str()),
            (500, "dial tcp: refused\n")
        );
    }

    #[test]
    fn over_the_cap_is_an_error_never_a_bigger_buffer() {
        let big = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n{}",
            "x".repeat(5000)
        );
        let (_, body, over) = body_of(big.as_bytes(), 1024);
        assert!(body.unwrap_err().to_string().contains("answer over"));
        assert!(over);
    }

    #[test]
    fn cut_short_bodies_are_errors() {
        let (_, body, _) = body_of(
            b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            1 << 20,
        );
        assert!(body.is_err());
        let (_, body, _) = body_of(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            1 << 20,
        );
        assert!(body.is_err());
    }
}
