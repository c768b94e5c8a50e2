//! The one HTTP/1.x answer decoder, for both clients of the local `kubectl proxy`
//! (`read::http` buffers an answer whole, `read::stream` hands its body out as it arrives):
//! the head ([`read_head`]: status, and the framing from `Transfer-Encoding` /
//! `Content-Length`), then the body as a [`Read`] ([`Body`]: chunks, a length or the end of
//! the stream, cut at a byte cap), and the one [`HttpError`] both report. Pure over any
//! [`BufRead`]: the sockets and their deadlines stay with the clients.

use std::fmt;
use std::io::{self, BufRead, Read};
use std::time::Duration;

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

type Headers<'a> = Vec<(&'a str, &'a str)>;

fn split_head(head: &str) -> Result<(u16, Headers<'_>), HttpError> {
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

/// How the body of an answer ends.
#[derive(Debug, Clone, Copy)]
pub enum Framing {
    Length(u64),
    Chunked,
    ToEnd,
}

/// The body of an answer, as a reader over `R` (the socket, or bytes already read): framing
/// removed, cap enforced (and the deadline, by the socket's reader).
pub struct Body<R> {
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
                Framing::Length(_) | Framing::Chunked => Err(malformed("body cut short")),
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
    let (status, headers) = split_head(text)?;
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
