//! The request audit: every request the server saw, in memory and optionally appended as
//! JSON lines to a file (flushed per line, so a crashed run still leaves its trail).

use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// One recorded request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// 1-based recording order (a request is recorded just before its answer is written, a hang when it
    /// starts).
    pub seq: u64,
    /// Milliseconds since the Unix epoch when the request was read.
    pub unix_ms: u64,
    /// Method as sent.
    pub method: String,
    /// Decoded path, without the query string.
    pub path: String,
    /// Raw query string, empty when none.
    pub query: String,
    /// Accept header, if any.
    pub accept: Option<String>,
    /// User-Agent header, if any.
    pub user_agent: Option<String>,
    /// Whether an Authorization header was sent (its value is never recorded).
    pub authorization: bool,
    /// Request body bytes received.
    pub request_bytes: u64,
    /// Status code sent; 0 when the connection was held and closed without an answer.
    pub status: u16,
    /// Response body bytes (Content-Length).
    pub response_bytes: u64,
    /// Time from reading the request to the answer being ready (latency and delays
    /// included), in milliseconds; a hang's length for a hang.
    pub duration_ms: u64,
    /// The fault rule that applied, if any.
    pub fault: Option<String>,
}

impl AuditEntry {
    /// True for anything but GET and HEAD: what a read-only client must never send.
    pub fn is_write(&self) -> bool {
        !matches!(self.method.as_str(), "GET" | "HEAD")
    }
}

/// Shared audit log.
#[derive(Debug, Default)]
pub struct Audit {
    entries: Mutex<Vec<AuditEntry>>,
    file: Option<Mutex<File>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Audit {
    /// An audit kept in memory, and appended to `file` when given.
    pub fn new(file: Option<&Path>) -> io::Result<Audit> {
        let file = match file {
            Some(p) => Some(Mutex::new(
                OpenOptions::new().create(true).append(true).open(p)?,
            )),
            None => None,
        };
        Ok(Audit {
            entries: Mutex::new(Vec::new()),
            file,
        })
    }

    /// Records an entry (its `seq` is assigned here).
    pub fn record(&self, mut entry: AuditEntry) {
        let mut entries = lock(&self.entries);
        entry.seq = entries.len() as u64 + 1;
        if let Some(f) = &self.file {
            if let Ok(mut line) = serde_json::to_string(&entry) {
                line.push('\n');
                let mut f = lock(f);
                let _ = f.write_all(line.as_bytes());
                let _ = f.flush();
            }
        }
        entries.push(entry);
    }

    /// A copy of every entry so far.
    pub fn entries(&self) -> Vec<AuditEntry> {
        lock(&self.entries).clone()
    }

    /// Entries whose method is not GET or HEAD.
    pub fn non_get(&self) -> Vec<AuditEntry> {
        lock(&self.entries)
            .iter()
            .filter(|e| e.is_write())
            .cloned()
            .collect()
    }

    /// Forgets the entries kept in memory (the file is left as it is).
    pub fn clear(&self) {
        lock(&self.entries).clear();
    }
}
