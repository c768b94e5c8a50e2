//! Request attributes as the apiserver's authorizer sees them (verb, group, resource,
//! namespace, name), and `meta/v1 Status` error bodies worded like a real apiserver's.

use crate::http::Response;
use serde_json::{json, Value};

/// What a request path means to the authorizer (`RequestInfoFactory` in the apiserver).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestInfo {
    /// `list`, `get` or `watch` (`get` for non-resource paths).
    pub verb: String,
    /// True for `/api/v1/...` and `/apis/<g>/<v>/...` paths that name a resource.
    pub is_resource: bool,
    /// API group, `""` for core.
    pub group: String,
    /// API version.
    pub version: String,
    /// Namespace, empty at the cluster scope.
    pub namespace: String,
    /// Plural resource.
    pub resource: String,
    /// Object name, empty for collections.
    pub name: String,
    /// Subresource (`status`), usually empty.
    pub subresource: String,
    /// The request path.
    pub path: String,
}

impl RequestInfo {
    /// Parses a request path (and `watch` query) the way the apiserver does.
    pub fn parse(path: &str, watch: bool) -> RequestInfo {
        let mut info = RequestInfo {
            verb: "get".into(),
            is_resource: false,
            group: String::new(),
            version: String::new(),
            namespace: String::new(),
            resource: String::new(),
            name: String::new(),
            subresource: String::new(),
            path: path.to_string(),
        };
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let rest: &[&str] = match parts.as_slice() {
            ["api", v, rest @ ..] if !rest.is_empty() => {
                info.version = v.to_string();
                rest
            }
            ["apis", g, v, rest @ ..] if !rest.is_empty() => {
                info.group = g.to_string();
                info.version = v.to_string();
                rest
            }
            _ => return info,
        };
        info.is_resource = true;
        let mut cur: &[&str] = rest;
        if cur[0] == "namespaces" && cur.len() > 1 {
            info.namespace = cur[1].to_string();
            if cur.len() > 2 && cur[2] != "status" && cur[2] != "finalize" {
                cur = &cur[2..];
            }
        }
        if cur.len() >= 3 {
            info.subresource = cur[2].to_string();
        }
        if cur.len() >= 2 {
            info.name = cur[1].to_string();
        }
        info.resource = cur[0].to_string();
        info.verb = if watch {
            "watch".into()
        } else if info.name.is_empty() {
            "list".into()
        } else {
            "get".into()
        };
        info
    }

    /// `resource.group` (or `resource` for core), as in error messages.
    pub fn qualified_resource(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }
}

/// A `Status` object with the given code, reason and message.
pub fn status(code: u16, reason: &str, message: &str, details: Option<Value>) -> Value {
    let mut v = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    });
    if let Some(d) = details {
        v["details"] = d;
    }
    v
}

fn details(info: &RequestInfo) -> Value {
    let mut d = json!({ "group": info.group, "kind": info.resource });
    if !info.name.is_empty() {
        d["name"] = json!(info.name);
    }
    d
}

/// 403 worded like the RBAC authorizer's denial.
pub fn forbidden(user: &str, info: &RequestInfo) -> Response {
    if !info.is_resource {
        let msg = format!(
            "forbidden: User {user:?} cannot {} path {:?}",
            info.verb, info.path
        );
        return Response::json(403, &status(403, "Forbidden", &msg, Some(json!({}))));
    }
    let mut resource = info.resource.clone();
    if !info.subresource.is_empty() {
        resource = format!("{resource}/{}", info.subresource);
    }
    let scope = if info.namespace.is_empty() {
        "at the cluster scope".to_string()
    } else {
        format!("in the namespace {:?}", info.namespace)
    };
    let why = format!(
        "User {user:?} cannot {} resource {resource:?} in API group {:?} {scope}",
        info.verb, info.group
    );
    let msg = if info.name.is_empty() {
        format!("{} is forbidden: {why}", info.qualified_resource())
    } else {
        format!(
            "{} {:?} is forbidden: {why}",
            info.qualified_resource(),
            info.name
        )
    };
    Response::json(403, &status(403, "Forbidden", &msg, Some(details(info))))
}

/// 401 as sent for a missing or rejected token.
pub fn unauthorized() -> Response {
    Response::json(401, &status(401, "Unauthorized", "Unauthorized", None))
}

/// 404 for a named object that does not exist.
pub fn object_not_found(info: &RequestInfo) -> Response {
    let msg = format!("{} {:?} not found", info.qualified_resource(), info.name);
    Response::json(404, &status(404, "NotFound", &msg, Some(details(info))))
}

/// 404 for a resource path the server does not serve.
pub fn resource_not_found() -> Response {
    Response::json(
        404,
        &status(
            404,
            "NotFound",
            "the server could not find the requested resource",
            Some(json!({})),
        ),
    )
}

/// 500 internal error.
pub fn internal(message: &str) -> Response {
    Response::json(
        500,
        &status(
            500,
            "InternalError",
            &format!("Internal error occurred: {message}"),
            Some(json!({ "causes": [ { "message": message } ] })),
        ),
    )
}

/// 405 for every method but GET and HEAD.
pub fn method_not_allowed(method: &str, path: &str) -> Response {
    Response::json(
        405,
        &status(
            405,
            "MethodNotAllowed",
            &format!("{method} {path} is not allowed: the replay server is read-only (GET and HEAD only)"),
            Some(json!({})),
        ),
    )
}

/// 400 bad request.
pub fn bad_request(message: &str) -> Response {
    Response::json(400, &status(400, "BadRequest", message, None))
}

/// Any other error code, with the reason a real apiserver would use.
pub fn for_code(code: u16, user: &str, info: &RequestInfo) -> Response {
    match code {
        401 => unauthorized(),
        403 => forbidden(user, info),
        404 if info.is_resource && !info.name.is_empty() => object_not_found(info),
        404 => resource_not_found(),
        500 => internal("replay fault injected"),
        _ => {
            let reason = match code {
                400 => "BadRequest",
                409 => "Conflict",
                410 => "Expired",
                429 => "TooManyRequests",
                503 => "ServiceUnavailable",
                504 => "Timeout",
                _ => "InternalError",
            };
            Response::json(
                code,
                &status(code, reason, &format!("replay fault {code}"), None),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: &Response) -> String {
        let v: Value = serde_json::from_slice(&r.body).expect("json");
        v["message"].as_str().expect("message").to_string()
    }

    #[test]
    fn forbidden_reads_like_rbac() {
        let i = RequestInfo::parse("/apis/ceph.rook.io/v1/cephclusters", false);
        assert_eq!(
            msg(&forbidden("x", &i)),
            "cephclusters.ceph.rook.io is forbidden: User \"x\" cannot list resource \
             \"cephclusters\" in API group \"ceph.rook.io\" at the cluster scope"
        );
        let i = RequestInfo::parse("/api/v1/namespaces/kube-system/pods/p", false);
        assert_eq!(
            msg(&forbidden("x", &i)),
            "pods \"p\" is forbidden: User \"x\" cannot get resource \"pods\" in API group \"\" \
             in the namespace \"kube-system\""
        );
        let i = RequestInfo::parse("/apis/ceph.rook.io/v1", false);
        assert_eq!(
            msg(&forbidden("x", &i)),
            "forbidden: User \"x\" cannot get path \"/apis/ceph.rook.io/v1\""
        );
    }

    #[test]
    fn namespace_paths_parse_like_the_apiserver() {
        let i = RequestInfo::parse("/api/v1/namespaces/x", false);
        assert_eq!((i.resource.as_str(), i.name.as_str()), ("namespaces", "x"));
        assert_eq!(i.namespace, "x");
        let i = RequestInfo::parse("/apis/apps/v1/namespaces/a/deployments", true);
        assert_eq!(i.verb, "watch");
        assert_eq!(i.resource, "deployments");
    }
}
