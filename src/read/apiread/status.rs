//! HTTP statuses and transport errors as the failures kubectl would report, worded as it does.
use super::*;

/// A GET that got no answer: a timeout is a timeout, anything else an error of the proxy.
pub fn transport_failure(target: &str, e: &HttpError) -> ReadFailure {
    match e {
        HttpError::TimedOut(after) => ReadFailure::new(
            FailureKind::Timeout,
            format!(
                "GET {target}: no answer within {:.1}s (--request-timeout), through kubectl proxy",
                after.as_secs_f64()
            ),
        ),
        other @ (HttpError::Connect(_)
        | HttpError::Io(_)
        | HttpError::Malformed(_)
        | HttpError::TooLarge(_)) => ReadFailure::new(
            FailureKind::ApiError,
            format!("GET {target} through kubectl proxy: {other}"),
        ),
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Status {
    kind: String,
    reason: String,
    message: String,
}

/// A non-2xx answer as the failure kubectl would have reported: an API `Status` worded as
/// kubectl prints it; a plain-text 5xx from the proxy itself (it could not reach the API
/// server: refused, TLS, timeout) classified like kubectl's own transport errors.
pub fn status_failure(status: u16, body: &str) -> ReadFailure {
    let api_status = serde_json::from_str::<Status>(body)
        .ok()
        .filter(|s| s.kind == "Status");
    let (reason, message) = match &api_status {
        Some(s) => (
            if s.reason.is_empty() {
                default_reason(status).to_string()
            } else {
                s.reason.clone()
            },
            s.message.clone(),
        ),
        None => (default_reason(status).to_string(), body.trim().to_string()),
    };
    match status {
        401 => ReadFailure::new(
            FailureKind::Unauthorized,
            format!(
                "error: You must be logged in to the server ({})",
                if api_status.is_some() && !message.is_empty() {
                    message.as_str()
                } else {
                    "Unauthorized"
                }
            ),
        ),
        403 => ReadFailure::new(
            FailureKind::Forbidden,
            format!("Error from server (Forbidden): {message}"),
        ),
        404 if api_status.is_none() => ReadFailure::new(
            FailureKind::NotFound,
            "Error from server (NotFound): the server could not find the requested resource",
        ),
        404 => ReadFailure::new(
            FailureKind::NotFound,
            format!("Error from server (NotFound): {message}"),
        ),
        _ if api_status.is_some() => {
            let text = format!("Error from server ({reason}): {message}");
            ReadFailure::new(classify_kubectl_stderr(&text), text)
        }
        _ => match classify_kubectl_stderr(&message) {
            kind @ (FailureKind::Unreachable | FailureKind::Tls | FailureKind::Timeout) => {
                ReadFailure::new(kind, unable_to_connect(&message))
            }
            FailureKind::Forbidden
            | FailureKind::Unauthorized
            | FailureKind::NotFound
            | FailureKind::ApiError
            | FailureKind::BadOutput
            | FailureKind::Skipped => ReadFailure::new(
                FailureKind::ApiError,
                format!(
                    "Error from server ({reason}): an error on the server ({message:?}) has prevented the request from succeeding"
                ),
            ),
        },
    }
}

/// kubectl's words for a transport error the proxy met (`dial tcp H:P: connect: connection
/// refused` becomes "The connection to the server H:P was refused ...").
pub(super) fn unable_to_connect(detail: &str) -> String {
    if detail.contains("connection refused") {
        let host = detail
            .split("dial tcp ")
            .nth(1)
            .and_then(|rest| rest.split(": ").next())
            .unwrap_or("");
        format!(
            "Unable to connect to the server: {detail} | The connection to the server {host} was refused - did you specify the right host or port?"
        )
    } else {
        format!("Unable to connect to the server: {detail}")
    }
}

pub(super) fn default_reason(status: u16) -> &'static str {
    match status {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        409 => "Conflict",
        410 => "Expired",
        429 => "TooManyRequests",
        500 => "InternalError",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "Unknown",
    }
}
