//! The one HTTP answer decoder, and a GET whose answer is decoded while it arrives: the head
//! is read by [`read_head`], the body is a [`Read`] ([`Body`], framed by `Content-Length`,
//! `Transfer-Encoding: chunked` or the end of the stream), so a list of 40 000 custom
//! objects is never held in memory — only what its decoder keeps. The buffered client
//! (`read::http`) reads its answers through the same two pieces. Every read is
//! bounded by the deadline and by a byte cap: an answer over the cap is a failed read, never
//! an out-of-memory or an endless stream.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Instant;

use crate::read::http::HttpError;

/// A streamed answer bigger than this is refused: its decoder keeps little, so the cap bounds
/// time and bandwidth, not memory.
pub const MAX_STREAMED_BYTES: u64 = 1 << 30;

/// The answer's status line and a reader over its body.
pub struct Answer {
    pub status: u16,
    pub body: Body,
}

/// How the body of an answer ends.
#[derive(Debug, Clone, Copy)]
pub enum Framing {
    Length(u64),
    Chunked,
    ToEnd,
}

/// The body of an answer, as a reader over `R` (the socket, or bytes already read): framing
/// removed, cap enforced (and the deadline, by the socket's reader).
pub struct Body<R = BufReader<TimedStream>> {
    inner: R,
    framing: Framing,
    /// Bytes left in the current chunk (chunked) or in the body (length).
    left: u64,
    done: bool,
    read: u64,
    cap: u64,
    /// Set when the cap stopped the read: the caller reports "too large", not "malformed".
    pub over_cap: bool,
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

fn malformed(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

impl<R: BufRead> Body<R> {
    /// A body framed by `framing`, read from `inner`, refused past `cap` bytes.
    pub fn new(inner: R, framing: Framing, cap: u64) -> Body<R> {
        Body {
            inner,
            framing,
            left: match framing {
                Framing::Length(n) => n,
                Framing::Chunked | Framing::ToEnd => 0,
            },
            done: matches!(framing, Framing::Length(0)),
            read: 0,
            cap,
            over_cap: false,
        }
    }

    /// Start the next chunk; `false` at the last (zero) chunk.
    fn next_chunk(&mut self) -> io::Result<bool> {
        let mut line = String::new();
        if self.left == 0 && self.read > 0 {
            // The CRLF that ends the previous chunk's data.
            self.inner.read_line(&mut line)?;
            if line != "\r\n" {
                return Err(malformed("chunk not followed by CRLF"));
            }
            line.clear();
        }
        if self.inner.read_line(&mut line)? == 0 {
            return Err(malformed("chunked body cut short"));
        }
        let size = line.trim_end().split(';').next().unwrap_or_default().trim();
        let size =
            u64::from_str_radix(size, 16).map_err(|_| malformed("chunk size is not a number"))?;
        self.left = size;
        Ok(size > 0)
    }
}

impl<R: BufRead> Read for Body<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        if let Framing::Chunked = self.framing {
            if self.left == 0 && !self.next_chunk()? {
                self.done = true;
                return Ok(0);
            }
        }
        let want = match self.framing {
            Framing::Length(_) | Framing::Chunked => (buf.len() as u64).min(self.left) as usize,
            Framing::ToEnd => buf.len(),
        };
        if want == 0 {
            self.done = true;
            return Ok(0);
        }
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return match self.framing {
                Framing::ToEnd => {
                    self.done = true;
                    Ok(0)
                }
                _ => Err(malformed("body cut short")),
            };
        }
        self.read += n as u64;
        if !matches!(self.framing, Framing::ToEnd) {
            self.left -= n as u64;
        }
        if self.read > self.cap {
            self.over_cap = true;
            return Err(io::Error::other(format!(
                "answer over {} MiB",
                self.cap >> 20
            )));
        }
        if matches!(self.framing, Framing::Length(_)) && self.left == 0 {
            self.done = true;
        }
        Ok(n)
    }
}

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
    let mut inner = BufReader::with_capacity(64 * 1024, TimedStream { stream, deadline });
    let (status, framing) = read_head(&mut inner).map_err(|e| match e {
        HttpError::Io(e) => io_error(e, deadline, started),
        e => e,
    })?;
    Ok(Answer {
        status,
        body: Body::new(inner, framing, cap),
    })
}

/// Read an answer's head (status line and headers, at most 64 KiB) from `inner`, leaving
/// it at the first byte of the body: the status and how the body is framed.
pub fn read_head<R: BufRead>(inner: &mut R) -> Result<(u16, Framing), HttpError> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        inner.read_until(b'\n', &mut head).map_err(HttpError::Io)?;
        if head.len() == before {
            return Err(HttpError::Malformed(if head.is_empty() {
                "the connection closed without an answer".to_string()
            } else {
                "the connection closed before the end of the headers".to_string()
            }));
        }
        if head.ends_with(b"\r\n\r\n") {
            break;
        }
        if head.len() > 64 * 1024 {
            return Err(HttpError::Malformed("headers over 64 KiB".to_string()));
        }
    }
    let text = std::str::from_utf8(&head)
        .map_err(|_| HttpError::Malformed("headers are not UTF-8".to_string()))?;
    let (status, headers) = crate::read::http::split_head(text)?;
    let find = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    };
    let framing =
        if find("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
            Framing::Chunked
        } else if let Some(length) = find("content-length") {
            Framing::Length(
                length
                    .trim()
                    .parse()
                    .map_err(|_| HttpError::Malformed(format!("Content-Length {length:?}")))?,
            )
        } else {
            Framing::ToEnd
        };
    Ok((status, framing))
}

impl<R: BufRead> Body<R> {
    /// Bytes of body read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    /// The rest of the body as text, at most `max` bytes (for error statuses, whose body is
    /// a short `Status` or a line of the proxy's).
    pub fn text(mut self, max: u64) -> Result<String, HttpError> {
        let mut out = Vec::new();
        (&mut self)
            .take(max)
            .read_to_end(&mut out)
            .map_err(HttpError::Io)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
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
