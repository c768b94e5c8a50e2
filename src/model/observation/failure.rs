//! Why a read failed, as data: the kind (forbidden, timeout, ...) and kubectl's or the
//! server's words. Every failure turns the layers that needed the read `unknown`, never
//! `absent`; a few kinds mean the API server itself is out of reach (exit 4).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{classify_kubectl_stderr, kubectl_message};

/// Why a read failed. Every kind turns the layers that needed the read `unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
pub enum FailureKind {
    /// RBAC refused the read (`Error from server (Forbidden)`).
    Forbidden,
    /// The credentials were refused (`You must be logged in to the server`).
    Unauthorized,
    /// The resource or resource type does not exist on the server.
    NotFound,
    /// The request or the connection timed out.
    Timeout,
    /// The API server could not be reached (refused, no route, DNS).
    Unreachable,
    /// The TLS handshake or certificate verification failed.
    Tls,
    /// The server answered with an error (internal error, unavailable, unrecognised).
    ApiError,
    /// The tool answered but its output could not be parsed.
    BadOutput,
    /// The read was not attempted (no kubeconfig, not needed, not observable).
    Skipped,
}

impl FailureKind {
    /// The name used in evidence and in snapshots (`Forbidden`, `Timeout`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Forbidden => "Forbidden",
            FailureKind::Unauthorized => "Unauthorized",
            FailureKind::NotFound => "NotFound",
            FailureKind::Timeout => "Timeout",
            FailureKind::Unreachable => "Unreachable",
            FailureKind::Tls => "Tls",
            FailureKind::ApiError => "ApiError",
            FailureKind::BadOutput => "BadOutput",
            FailureKind::Skipped => "Skipped",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed read: its kind and the tool's message, folded to one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
pub struct ReadFailure {
    pub kind: FailureKind,
    pub message: String,
}

impl ReadFailure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        ReadFailure {
            kind,
            message: crate::error::one_line(&message.into()),
        }
    }

    /// A failure built from kubectl's stderr: classified, folded to one line.
    pub fn from_kubectl_stderr(stderr: &str) -> Self {
        Self::new(classify_kubectl_stderr(stderr), kubectl_message(stderr))
    }

    /// A read that was deliberately not attempted.
    pub fn skipped(reason: impl Into<String>) -> Self {
        Self::new(FailureKind::Skipped, reason)
    }
}

impl fmt::Display for ReadFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.kind, self.message)
        }
    }
}

/// True when a failure means the API server itself could not be reached or refused us.
pub fn is_unreachable(f: &ReadFailure) -> bool {
    matches!(
        f.kind,
        FailureKind::Unreachable
            | FailureKind::Timeout
            | FailureKind::Tls
            | FailureKind::Unauthorized
    )
}

/// What to do when the API server cannot be reached.
pub const UNREACHABLE_HINT: &str = "check that the API server is up and reachable from here, and that the kubeconfig's credentials are valid";
