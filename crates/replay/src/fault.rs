//! Fault injection rules: `[METHOD ]PATH-PREFIX=ACTION`, first matching rule wins.
//!
//! ACTION is an HTTP error code (`401`, `403`, `404`, `500`, any 4xx/5xx) answered with a
//! real-looking `Status`, `hang:SECONDS` (hold the connection, then close it without an
//! answer), `delay:MS` (answer normally, that much later), `redirect:URL` (a `302 Found`
//! to URL followed by the request's own path and query: whoever follows it sends the
//! request, credentials included, to URL), `serve:PATH` (the answer for PATH instead: a
//! ConfigMap served as the StorageClass list), `items-null` (the answer with its `items`
//! set to `null`) or `proxy-error:TEXT` (a plain-text `500` whose body is TEXT: what
//! `kubectl proxy` answers when it cannot reach the API server, e.g. `dial tcp
//! 10.67.2.11:6443: connect: connection refused`) or `body:JSON` (a `200 OK` answering that
//! JSON document: `{}`, a Secret, a `Status` of success where an object was asked for). METHOD is `GET`, `HEAD`, ... or
//! `*` (any; the default). PATH-PREFIX matches whole segments: `/api` matches `/api` and
//! `/api/v1/nodes`, not `/apis`.

use std::fmt;
use std::time::Duration;

/// What a matching rule does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultAction {
    /// Answer with this error code and a `Status` body.
    Status(u16),
    /// Hold the connection this long, then close it without an answer.
    Hang(Duration),
    /// Answer normally after this extra delay.
    Delay(Duration),
    /// `302 Found` to this base URL followed by the request's path and query.
    Redirect(String),
    /// Answer as for this path (and the request's query).
    Serve(String),
    /// Answer normally, the JSON body's `items` set to `null`.
    ItemsNull,
    /// A plain-text `500` with this body, as `kubectl proxy` answers a transport error.
    ProxyError(String),
    /// A `200 OK` whose JSON body is this text (a hostile answer: `{}`, a Secret, a `Status`
    /// of success where an object was asked for).
    Body(String),
}

/// One fault rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultRule {
    /// Upper-case method, or `*` for any.
    pub method: String,
    /// Path prefix, matched on whole segments.
    pub prefix: String,
    /// What to do.
    pub action: FaultAction,
}

impl FaultRule {
    /// Parses `GET /apis/ceph.rook.io=403`, `/api/v1/nodes=hang:30`, `* /apis=delay:200`.
    pub fn parse(spec: &str) -> Result<FaultRule, String> {
        let bad = |why: &str| {
            format!("bad fault {spec:?}: {why} (want '[METHOD ]/PATH=403|hang:SECS|delay:MS|redirect:URL|serve:PATH|items-null|proxy-error:TEXT|body:JSON')")
        };
        let (lhs, action) = spec.rsplit_once('=').ok_or_else(|| bad("no '='"))?;
        let lhs = lhs.trim();
        let (method, prefix) = match lhs.split_once(char::is_whitespace) {
            Some((m, p)) => (m.trim().to_ascii_uppercase(), p.trim().to_string()),
            None => ("*".to_string(), lhs.to_string()),
        };
        if !prefix.starts_with('/') {
            return Err(bad("the path must start with '/'"));
        }
        let action = action.trim();
        let action = if let Some(secs) = action.strip_prefix("hang:") {
            let s: f64 = secs.parse().map_err(|_| bad("hang needs seconds"))?;
            if !(0.0..=86_400.0).contains(&s) {
                return Err(bad("hang seconds out of range"));
            }
            FaultAction::Hang(Duration::from_secs_f64(s))
        } else if let Some(url) = action.strip_prefix("redirect:") {
            if !url.starts_with("http://") && !url.starts_with("https://") {
                return Err(bad("redirect needs an http(s) URL"));
            }
            FaultAction::Redirect(url.trim_end_matches('/').to_string())
        } else if let Some(path) = action.strip_prefix("serve:") {
            if !path.starts_with('/') {
                return Err(bad("serve needs a path starting with '/'"));
            }
            FaultAction::Serve(path.to_string())
        } else if let Some(text) = action.strip_prefix("proxy-error:") {
            if text.is_empty() {
                return Err(bad("proxy-error needs a text"));
            }
            FaultAction::ProxyError(text.to_string())
        } else if let Some(text) = action.strip_prefix("body:") {
            if serde_json::from_str::<serde_json::Value>(text).is_err() {
                return Err(bad("body needs a JSON document (with no '=')"));
            }
            FaultAction::Body(text.to_string())
        } else if action == "items-null" {
            FaultAction::ItemsNull
        } else if let Some(ms) = action.strip_prefix("delay:") {
            let ms: u64 = ms.parse().map_err(|_| bad("delay needs milliseconds"))?;
            FaultAction::Delay(Duration::from_millis(ms))
        } else {
            let code: u16 = action.parse().map_err(|_| bad("unknown action"))?;
            if !(400..=599).contains(&code) {
                return Err(bad("status must be 4xx or 5xx"));
            }
            FaultAction::Status(code)
        };
        Ok(FaultRule {
            method,
            prefix,
            action,
        })
    }

    /// True when the rule applies to this method and path.
    pub fn matches(&self, method: &str, path: &str) -> bool {
        if self.method != "*" && !self.method.eq_ignore_ascii_case(method) {
            return false;
        }
        let p = self.prefix.trim_end_matches('/');
        if p.is_empty() {
            return true;
        }
        path == p
            || path
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
    }
}

impl fmt::Display for FaultRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}=", self.method, self.prefix)?;
        match &self.action {
            FaultAction::Status(c) => write!(f, "{c}"),
            FaultAction::Hang(d) => write!(f, "hang:{}", d.as_secs_f64()),
            FaultAction::Delay(d) => write!(f, "delay:{}", d.as_millis()),
            FaultAction::Redirect(url) => write!(f, "redirect:{url}"),
            FaultAction::Serve(path) => write!(f, "serve:{path}"),
            FaultAction::ItemsNull => write!(f, "items-null"),
            FaultAction::ProxyError(text) => write!(f, "proxy-error:{text}"),
            FaultAction::Body(text) => write!(f, "body:{text}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse() {
        let r = FaultRule::parse("GET /apis/ceph.rook.io=403").expect("rule");
        assert_eq!(r.method, "GET");
        assert_eq!(r.action, FaultAction::Status(403));
        let r = FaultRule::parse("/api/v1/nodes=hang:30").expect("rule");
        assert_eq!(r.method, "*");
        assert_eq!(r.action, FaultAction::Hang(Duration::from_secs(30)));
        let r = FaultRule::parse("get /apis=delay:250").expect("rule");
        assert_eq!(r.action, FaultAction::Delay(Duration::from_millis(250)));
        assert!(FaultRule::parse("GET apis=403").is_err());
        assert!(FaultRule::parse("GET /apis=200").is_err());
        assert!(FaultRule::parse("GET /apis").is_err());
        assert!(FaultRule::parse("GET /apis=hang:x").is_err());
        let r = FaultRule::parse("/api/v1/nodes=redirect:http://127.0.0.1:9/").expect("rule");
        assert_eq!(r.action, FaultAction::Redirect("http://127.0.0.1:9".into()));
        assert!(FaultRule::parse("/api=redirect:ftp://h").is_err());
        let r = FaultRule::parse(
            "/apis/storage.k8s.io/v1/storageclasses=serve:/api/v1/namespaces/rook-ceph/configmaps",
        )
        .expect("rule");
        assert_eq!(
            r.action,
            FaultAction::Serve("/api/v1/namespaces/rook-ceph/configmaps".into())
        );
        let r = FaultRule::parse("/api/v1/nodes=items-null").expect("rule");
        assert_eq!(r.action, FaultAction::ItemsNull);
        assert_eq!(r.to_string(), "* /api/v1/nodes=items-null");
        let r =
            FaultRule::parse("/=proxy-error:dial tcp 10.67.2.11:6443: connect: connection refused")
                .expect("rule");
        assert_eq!(
            r.action,
            FaultAction::ProxyError("dial tcp 10.67.2.11:6443: connect: connection refused".into())
        );
        assert!(r.matches("GET", "/api/v1/nodes"));
        assert!(FaultRule::parse("/=proxy-error:").is_err());
    }

    #[test]
    fn prefixes_match_whole_segments() {
        let r = FaultRule::parse("GET /api=500").expect("rule");
        assert!(r.matches("GET", "/api"));
        assert!(r.matches("GET", "/api/v1/nodes"));
        assert!(!r.matches("GET", "/apis"));
        assert!(!r.matches("HEAD", "/api"));
        let r = FaultRule::parse("* /apis/ceph.rook.io/=403").expect("rule");
        assert!(r.matches("POST", "/apis/ceph.rook.io/v1"));
        assert!(!r.matches("GET", "/apis/ceph.rook.io.evil/v1"));
    }
}
