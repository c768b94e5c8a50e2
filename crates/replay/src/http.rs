//! Minimal HTTP/1.1 on a blocking stream (TCP or a unix socket): request parsing (request line, headers,
//! Content-Length bodies), query strings, percent-decoding, and response writing with
//! Content-Length and keep-alive. No TLS, no chunked request bodies (those close the
//! connection), no compression.

use std::io::{self, BufRead, BufReader, Read, Write};

/// Largest request head (request line + headers) accepted, in bytes.
const MAX_HEAD: usize = 64 * 1024;
/// Largest request body read and discarded, in bytes; beyond that the connection is closed.
const MAX_BODY: u64 = 1024 * 1024;

/// One parsed HTTP request.
#[derive(Debug, Clone)]
pub struct Request {
    /// Method as sent (`GET`, `POST`, ...).
    pub method: String,
    /// Path, percent-decoded, without the query string.
    pub path: String,
    /// Raw query string (after `?`), empty when absent.
    pub query: String,
    /// Headers in arrival order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Size of the request body that was read (and discarded).
    pub body_len: u64,
    /// False when the client asked `Connection: close` or spoke HTTP/1.0.
    pub keep_alive: bool,
}

impl Request {
    /// First header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Decoded value of the first query parameter with this name.
    pub fn query_param(&self, name: &str) -> Option<String> {
        parse_query(&self.query)
            .into_iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }
}

/// Outcome of reading one request from a connection.
pub enum ReadOutcome {
    /// A complete request.
    Request(Request),
    /// The peer closed the connection cleanly before a new request.
    Closed,
    /// Garbage or an over-long head: answer 400 and close.
    Malformed(String),
}

/// Reads one request head and its Content-Length body (discarded).
pub fn read_request<R: io::Read>(reader: &mut BufReader<R>) -> io::Result<ReadOutcome> {
    let mut line = String::new();
    // Skip the empty lines some clients send between requests.
    loop {
        line.clear();
        let n = read_line_limited(reader, &mut line)?;
        if n == 0 {
            return Ok(ReadOutcome::Closed);
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let request_line = line.trim_end().to_string();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Ok(ReadOutcome::Malformed(format!(
            "bad request line {request_line:?}"
        )));
    };
    if !version.starts_with("HTTP/1.") {
        return Ok(ReadOutcome::Malformed(format!(
            "unsupported version {version:?}"
        )));
    }
    let mut headers = Vec::new();
    let mut head_len = request_line.len();
    loop {
        line.clear();
        let n = read_line_limited(reader, &mut line)?;
        if n == 0 {
            return Ok(ReadOutcome::Malformed(
                "connection closed inside headers".into(),
            ));
        }
        head_len += n;
        if head_len > MAX_HEAD {
            return Ok(ReadOutcome::Malformed("request head too large".into()));
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((name, value)) = l.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let (raw_path, query) = match target.split_once('?') {
        Some((p, q)) => (p, q.to_string()),
        None => (target, String::new()),
    };
    let mut req = Request {
        method: method.to_string(),
        path: percent_decode(raw_path),
        query,
        headers,
        body_len: 0,
        keep_alive: version == "HTTP/1.1",
    };
    if let Some(c) = req.header("connection") {
        let c = c.to_ascii_lowercase();
        if c.contains("close") {
            req.keep_alive = false;
        } else if c.contains("keep-alive") {
            req.keep_alive = true;
        }
    }
    if req.header("transfer-encoding").is_some() {
        // Chunked bodies are not parsed: answer, then close.
        req.keep_alive = false;
    } else if let Some(cl) = req.header("content-length") {
        let len: u64 = cl.trim().parse().unwrap_or(0);
        if len > MAX_BODY {
            req.keep_alive = false;
        } else {
            let copied = io::copy(&mut reader.by_ref().take(len), &mut io::sink())?;
            req.body_len = copied;
        }
    }
    Ok(ReadOutcome::Request(req))
}

fn read_line_limited<R: io::Read>(
    reader: &mut BufReader<R>,
    line: &mut String,
) -> io::Result<usize> {
    let mut buf = Vec::new();
    let n = reader
        .by_ref()
        .take(MAX_HEAD as u64)
        .read_until(b'\n', &mut buf)?;
    line.push_str(&String::from_utf8_lossy(&buf));
    Ok(n)
}

/// Splits and percent-decodes `a=b&c=d` (`+` is a space).
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (
                percent_decode(&k.replace('+', " ")),
                percent_decode(&v.replace('+', " ")),
            )
        })
        .collect()
}

/// Decodes `%XX` escapes; invalid escapes are kept as they are.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
            if let Ok(b) = u8::from_str_radix(hex, 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A response ready to be written.
#[derive(Debug, Clone)]
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// Content-Type header value.
    pub content_type: String,
    /// Body bytes (not sent for HEAD, but still counted in Content-Length).
    pub body: Vec<u8>,
    /// A `Location` header (a redirect).
    pub location: Option<String>,
}

impl Response {
    /// A JSON response with `application/json`.
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response::json_typed(status, "application/json", value)
    }

    /// A JSON response with an explicit Content-Type (aggregated discovery, Table).
    pub fn json_typed(status: u16, content_type: &str, value: &serde_json::Value) -> Response {
        Response {
            status,
            content_type: content_type.to_string(),
            body: serde_json::to_vec(value).unwrap_or_default(),
            location: None,
        }
    }

    /// A plain-text response, as the real apiserver sends for unknown paths.
    pub fn text(status: u16, text: &str) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8".to_string(),
            body: text.as_bytes().to_vec(),
            location: None,
        }
    }

    /// A `302 Found` to `location`, as a misbehaving front (or a hijacked server) sends.
    pub fn redirect(location: &str) -> Response {
        Response {
            location: Some(location.to_string()),
            ..Response::text(302, "Found")
        }
    }
}

/// Reason phrase for the status codes this server uses.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        410 => "Gone",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Writes status line, headers and (unless `head_only`) the body.
pub fn write_response(
    stream: &mut impl Write,
    resp: &Response,
    keep_alive: bool,
    head_only: bool,
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-cache, private\r\n",
        resp.status,
        reason_phrase(resp.status),
        resp.content_type,
        resp.body.len()
    );
    if let Some(location) = &resp.location {
        head.push_str(&format!("Location: {location}\r\n"));
    }
    head.push_str(if keep_alive {
        "Connection: keep-alive\r\n"
    } else {
        "Connection: close\r\n"
    });
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(&resp.body)?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_is_split_and_decoded() {
        let q = parse_query("limit=500&labelSelector=app%3Dx%2Cb&continue=");
        assert_eq!(q[0], ("limit".into(), "500".into()));
        assert_eq!(q[1], ("labelSelector".into(), "app=x,b".into()));
        assert_eq!(q[2], ("continue".into(), String::new()));
    }

    #[test]
    fn bad_escapes_are_kept() {
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("a%zz"), "a%zz");
        assert_eq!(percent_decode("%41"), "A");
    }
}
