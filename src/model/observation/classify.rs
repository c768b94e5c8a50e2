//! Turns kubectl's stderr into a [`FailureKind`], so a failed read becomes data the state
//! logic can reason about (forbidden is not missing) and the exit code can say "unreachable".
//!
//! kubectl has no machine-readable error output; these are the messages it really prints
//! (client-go's `Error from server (Reason)` for API status errors, the discovery and
//! transport messages otherwise). Order matters: a server-side status is the most specific.

use super::FailureKind;

/// Classify the stderr of a failed kubectl call.
pub fn classify_kubectl_stderr(stderr: &str) -> FailureKind {
    if let Some(reason) = server_reason(stderr) {
        return match reason {
            "Forbidden" => FailureKind::Forbidden,
            "Unauthorized" => FailureKind::Unauthorized,
            "NotFound" => FailureKind::NotFound,
            "Timeout" | "ServerTimeout" => FailureKind::Timeout,
            _ => FailureKind::ApiError,
        };
    }
    let has = |needle: &str| stderr.contains(needle);
    if stderr
        .lines()
        .any(|l| l.contains("couldn't get resource list for") && l.contains(": forbidden: "))
    {
        // Legacy discovery refused for the type's group: kubectl then says "the server
        // doesn't have a resource type", but RBAC is why.
        FailureKind::Forbidden
    } else if has("You must be logged in to the server") || has("(Unauthorized)") {
        FailureKind::Unauthorized
    } else if has("the server doesn't have a resource type")
        || has("the server could not find the requested resource")
    {
        FailureKind::NotFound
    } else if has("context deadline exceeded")
        || has("Client.Timeout exceeded")
        || has("i/o timeout")
        || has("TLS handshake timeout")
    {
        FailureKind::Timeout
    } else if has("x509:")
        || has("tls:")
        // An https:// URL on a plain-HTTP port, and the reverse: the handshake itself failed.
        || has("server gave HTTP response to HTTPS client")
        || has("first record does not look like a TLS handshake")
    {
        FailureKind::Tls
    } else if has("Unable to connect to the server")
        || has("connection refused")
        || has("was refused - did you specify the right host or port?")
        || has("no such host")
        || has("no route to host")
        || has("network is unreachable")
        || has("connection reset by peer")
    {
        FailureKind::Unreachable
    } else {
        FailureKind::ApiError
    }
}

/// kubectl's stderr as one line for a message. client-go logs through klog
/// (`E1130 09:20:08.104960   30023 memcache.go:265] "Unhandled Error" err="..."`), the
/// same line up to five times, before kubectl's own summary: the klog header and wrapper
/// are dropped and repeated lines kept once, so the message says what failed, once.
pub fn kubectl_message(stderr: &str) -> String {
    let mut kept: Vec<String> = Vec::new();
    for line in stderr.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let line = strip_klog(line);
        if !kept.contains(&line) {
            kept.push(line);
        }
    }
    crate::error::one_line(&kept.join("\n"))
}

/// `E1130 09:20:08.104960   30023 memcache.go:265] MSG` → MSG, with a structured
/// `"Unhandled Error" err="TEXT"` unwrapped to TEXT. Other lines are returned as they are.
fn strip_klog(line: &str) -> String {
    let b = line.as_bytes();
    let header = b.len() > 22
        && matches!(b[0], b'I' | b'W' | b'E' | b'F')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5] == b' '
        && b[8] == b':';
    let Some(msg) = header
        .then(|| line.split_once("] "))
        .flatten()
        .filter(|(head, _)| head.contains(".go:"))
        .map(|(_, msg)| msg)
    else {
        return line.to_string();
    };
    match msg
        .strip_prefix("\"Unhandled Error\" err=\"")
        .and_then(|m| m.strip_suffix('"'))
    {
        Some(inner) => inner.replace("\\\"", "\""),
        None => msg.to_string(),
    }
}

/// The `Reason` of the first `Error from server (Reason): ...` line, if any.
fn server_reason(stderr: &str) -> Option<&str> {
    let rest = stderr.split("Error from server (").nth(1)?;
    let (reason, _) = rest.split_once(')')?;
    Some(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> FailureKind {
        classify_kubectl_stderr(s)
    }

    #[test]
    fn forbidden() {
        assert_eq!(
            kind("Error from server (Forbidden): cephclusters.ceph.rook.io is forbidden: User \"system:serviceaccount:ci:reader\" cannot list resource \"cephclusters\" in API group \"ceph.rook.io\" at the cluster scope\n"),
            FailureKind::Forbidden
        );
    }

    #[test]
    fn unauthorized() {
        assert_eq!(
            kind("error: You must be logged in to the server (Unauthorized)\n"),
            FailureKind::Unauthorized
        );
        assert_eq!(
            kind("error: You must be logged in to the server (the server has asked for the client to provide credentials)\n"),
            FailureKind::Unauthorized
        );
    }

    #[test]
    fn not_found() {
        assert_eq!(
            kind("Error from server (NotFound): namespaces \"rook-ceph\" not found\n"),
            FailureKind::NotFound
        );
        assert_eq!(
            kind("error: the server doesn't have a resource type \"cephclusters\"\n"),
            FailureKind::NotFound
        );
    }

    #[test]
    fn unreachable() {
        assert_eq!(
            kind("Unable to connect to the server: dial tcp 127.0.0.1:1: connect: connection refused\n"),
            FailureKind::Unreachable
        );
        assert_eq!(
            kind("E0512 10:01:02.123456   4242 memcache.go:265] couldn't get current server API group list: Get \"https://127.0.0.1:1/api?timeout=32s\": dial tcp 127.0.0.1:1: connect: connection refused\nThe connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n"),
            FailureKind::Unreachable
        );
        assert_eq!(
            kind("Unable to connect to the server: dial tcp: lookup dirqual-api.example.org on 127.0.0.53:53: no such host\n"),
            FailureKind::Unreachable
        );
    }

    #[test]
    fn timeout() {
        assert_eq!(
            kind("Unable to connect to the server: context deadline exceeded\n"),
            FailureKind::Timeout
        );
        assert_eq!(
            kind("Unable to connect to the server: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)\n"),
            FailureKind::Timeout
        );
        assert_eq!(
            kind("Unable to connect to the server: dial tcp 10.67.2.11:6443: i/o timeout\n"),
            FailureKind::Timeout
        );
        assert_eq!(
            kind("Unable to connect to the server: net/http: TLS handshake timeout\n"),
            FailureKind::Timeout
        );
        assert_eq!(
            kind("Error from server (Timeout): the server was unable to return a response in the time allotted, but may still be processing the request (get nodes)\n"),
            FailureKind::Timeout
        );
    }

    #[test]
    fn tls() {
        assert_eq!(
            kind("Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority\n"),
            FailureKind::Tls
        );
        assert_eq!(
            kind("Unable to connect to the server: http: server gave HTTP response to HTTPS client\n"),
            FailureKind::Tls
        );
        assert_eq!(
            kind("Unable to connect to the server: x509: certificate has expired or is not yet valid: current time 2026-01-10T10:00:00Z is after 2025-12-31T09:00:00Z\n"),
            FailureKind::Tls
        );
    }

    #[test]
    fn forbidden_discovery_of_the_group_is_forbidden_not_missing() {
        assert_eq!(
            kind("E1130 09:27:51.320220   15048 memcache.go:287] \"Unhandled Error\" err=\"couldn't get resource list for ceph.rook.io/v1: forbidden: User \\\"nestor\\\" cannot get path \\\"/apis/ceph.rook.io/v1\\\"\"\nerror: the server doesn't have a resource type \"cephclusters\"\n"),
            FailureKind::Forbidden
        );
    }

    #[test]
    fn messages_drop_klog_noise_and_repeats() {
        let refused = "E1130 09:20:08.104960   30023 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server API group list: Get \\\"http://127.0.0.1:1/api?timeout=10s\\\": dial tcp 127.0.0.1:1: connect: connection refused\"\n".repeat(5)
            + "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n";
        assert_eq!(
            kubectl_message(&refused),
            "couldn't get current server API group list: Get \"http://127.0.0.1:1/api?timeout=10s\": dial tcp 127.0.0.1:1: connect: connection refused | The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"
        );
        // kubectl 1.20's klog lines carry no structured wrapper.
        assert_eq!(
            kubectl_message("E0512 10:01:02.123456    4242 memcache.go:196] couldn't get resource list for ceph.rook.io/v1: forbidden\nerror: the server doesn't have a resource type \"cephclusters\"\n"),
            "couldn't get resource list for ceph.rook.io/v1: forbidden | error: the server doesn't have a resource type \"cephclusters\""
        );
        // Anything else is kept as written, folded to one line.
        assert_eq!(
            kubectl_message("Error from server (Forbidden): nodes is forbidden\n"),
            "Error from server (Forbidden): nodes is forbidden"
        );
        assert_eq!(kubectl_message("E1 short] x\n\n"), "E1 short] x");
        assert_eq!(kubectl_message(""), "");
    }

    #[test]
    fn api_error() {
        assert_eq!(
            kind("Error from server (InternalError): an error on the server (\"\") has prevented the request from succeeding (get cephclusters.ceph.rook.io)\n"),
            FailureKind::ApiError
        );
        assert_eq!(
            kind("Error from server (ServiceUnavailable): the server is currently unable to handle the request (get cephclusters.ceph.rook.io)\n"),
            FailureKind::ApiError
        );
        assert_eq!(kind("something nobody expected"), FailureKind::ApiError);
    }
}
