//! Discovery documents: legacy (`/api` APIVersions, `/apis` APIGroupList, `/apis/<g>`
//! APIGroup, `/api/v1` and `/apis/<g>/<v>` APIResourceList) and aggregated
//! (`apidiscovery.k8s.io/v2` or `v2beta1` APIGroupDiscoveryList, chosen from the Accept
//! header), plus the media-type negotiation they and Tables share.

use crate::fixture::{Cluster, ResourceType};
use serde_json::{json, Value};

/// One media range of an Accept header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaRange {
    /// `type/subtype`, lower-cased.
    pub mime: String,
    /// Parameters (`as`, `g`, `v`, ...), names lower-cased.
    pub params: Vec<(String, String)>,
}

impl MediaRange {
    /// Value of a parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn is_json(&self) -> bool {
        matches!(
            self.mime.as_str(),
            "application/json" | "application/*" | "*/*"
        )
    }
}

/// Splits an Accept header into media ranges, in the client's order.
pub fn parse_accept(accept: &str) -> Vec<MediaRange> {
    accept
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|part| {
            let mut it = part.split(';');
            let mime = it.next().unwrap_or("").trim().to_ascii_lowercase();
            let params = it
                .filter_map(|p| {
                    let (k, v) = p.split_once('=')?;
                    Some((
                        k.trim().to_ascii_lowercase(),
                        v.trim().trim_matches('"').to_string(),
                    ))
                })
                .collect();
            MediaRange { mime, params }
        })
        .collect()
}

/// What representation a request gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Representation {
    /// Plain JSON (objects, lists, legacy discovery).
    Json,
    /// Aggregated discovery, `apidiscovery.k8s.io/<version>`.
    Aggregated(String),
    /// Server-side Table, `meta.k8s.io/<version>`.
    Table(String),
}

/// Picks the first representation of the Accept header that the server can produce.
/// `aggregated` and `table` say whether those are possible for this path.
pub fn negotiate(accept: Option<&str>, aggregated: bool, table: bool) -> Representation {
    let accept = accept.unwrap_or("application/json");
    for r in parse_accept(accept) {
        if !r.is_json() {
            continue;
        }
        let (g, v) = (r.param("g"), r.param("v"));
        match r.param("as") {
            None => return Representation::Json,
            Some("APIGroupDiscoveryList")
                if aggregated
                    && g == Some("apidiscovery.k8s.io")
                    && matches!(v, Some("v2" | "v2beta1")) =>
            {
                return Representation::Aggregated(v.unwrap_or_default().to_string());
            }
            Some("Table")
                if table && g == Some("meta.k8s.io") && matches!(v, Some("v1" | "v1beta1")) =>
            {
                return Representation::Table(v.unwrap_or_default().to_string());
            }
            _ => {}
        }
    }
    Representation::Json
}

/// Content-Type of an aggregated discovery response.
pub fn aggregated_content_type(version: &str) -> String {
    format!("application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList")
}

fn status_verbs() -> Value {
    json!(["get", "patch", "update"])
}

/// Legacy `/api`.
pub fn api_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            { "clientCIDR": "0.0.0.0/0", "serverAddress": server_address }
        ]
    })
}

fn group_entry(name: &str, versions: &[String]) -> Value {
    let vs: Vec<Value> = versions
        .iter()
        .map(|v| json!({ "groupVersion": format!("{name}/{v}"), "version": v }))
        .collect();
    json!({
        "name": name,
        "versions": vs,
        "preferredVersion": vs.first().cloned().unwrap_or(Value::Null),
    })
}

/// Legacy `/apis`.
pub fn api_group_list(cluster: &Cluster) -> Value {
    let groups: Vec<Value> = cluster
        .groups
        .iter()
        .filter(|g| !g.name.is_empty())
        .map(|g| group_entry(&g.name, &g.versions))
        .collect();
    json!({ "kind": "APIGroupList", "apiVersion": "v1", "groups": groups })
}

/// Legacy `/apis/<group>`, if served.
pub fn api_group(cluster: &Cluster, group: &str) -> Option<Value> {
    let g = cluster
        .groups
        .iter()
        .find(|g| g.name == group && !group.is_empty())?;
    let mut v = group_entry(&g.name, &g.versions);
    let obj = v.as_object_mut()?;
    obj.insert("kind".into(), json!("APIGroup"));
    obj.insert("apiVersion".into(), json!("v1"));
    Some(v)
}

/// Legacy `/api/v1` or `/apis/<g>/<v>`, if served.
pub fn api_resource_list(cluster: &Cluster, group: &str, version: &str) -> Option<Value> {
    let types: Vec<&ResourceType> = cluster
        .types
        .iter()
        .filter(|t| t.group == group && t.version == version)
        .collect();
    if types.is_empty() {
        return None;
    }
    let mut resources = Vec::new();
    for t in &types {
        let mut r = json!({
            "name": t.plural,
            "singularName": t.singular_name(),
            "namespaced": t.namespaced,
            "kind": t.kind,
            "verbs": t.verbs,
        });
        if !t.short_names.is_empty() {
            r["shortNames"] = json!(t.short_names);
        }
        if !t.categories.is_empty() {
            r["categories"] = json!(t.categories);
        }
        resources.push(r);
        for sub in &t.subresources {
            resources.push(json!({
                "name": format!("{}/{sub}", t.plural),
                "singularName": "",
                "namespaced": t.namespaced,
                "kind": if sub == "scale" { "Scale" } else { t.kind.as_str() },
                "verbs": status_verbs(),
            }));
        }
    }
    let gv = types[0].group_version();
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": gv,
        "resources": resources,
    }))
}

fn aggregated_resource(t: &ResourceType) -> Value {
    let mut r = json!({
        "resource": t.plural,
        "responseKind": { "group": "", "version": "", "kind": t.kind },
        "scope": if t.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": t.singular_name(),
        "verbs": t.verbs,
    });
    if !t.short_names.is_empty() {
        r["shortNames"] = json!(t.short_names);
    }
    if !t.categories.is_empty() {
        r["categories"] = json!(t.categories);
    }
    if !t.subresources.is_empty() {
        let subs: Vec<Value> = t
            .subresources
            .iter()
            .map(|s| {
                let kind = if s == "scale" { "Scale" } else { t.kind.as_str() };
                let group = if s == "scale" { "autoscaling" } else { "" };
                json!({
                    "subresource": s,
                    "responseKind": { "group": group, "version": if s == "scale" { "v1" } else { "" }, "kind": kind },
                    "verbs": status_verbs(),
                })
            })
            .collect();
        r["subresources"] = json!(subs);
    }
    r
}

/// Aggregated discovery: `/api` when `core` is true (core group only), else `/apis`.
pub fn aggregated(cluster: &Cluster, core: bool, version: &str) -> Value {
    let mut items = Vec::new();
    for g in &cluster.groups {
        if g.name.is_empty() != core {
            continue;
        }
        let versions: Vec<Value> = g
            .versions
            .iter()
            .map(|v| {
                let resources: Vec<Value> = cluster
                    .types
                    .iter()
                    .filter(|t| t.group == g.name && &t.version == v)
                    .map(aggregated_resource)
                    .collect();
                json!({ "version": v, "resources": resources, "freshness": "Current" })
            })
            .collect();
        let mut metadata = json!({ "creationTimestamp": null });
        if !g.name.is_empty() {
            metadata["name"] = json!(g.name);
        }
        items.push(json!({ "metadata": metadata, "versions": versions }));
    }
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{version}"),
        "metadata": {},
        "items": items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECTL_DISCOVERY: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    const KUBECTL_TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    #[test]
    fn negotiation_follows_the_client_order() {
        assert_eq!(
            negotiate(Some(KUBECTL_DISCOVERY), true, false),
            Representation::Aggregated("v2".into())
        );
        assert_eq!(
            negotiate(Some(KUBECTL_DISCOVERY), false, false),
            Representation::Json
        );
        assert_eq!(
            negotiate(Some(KUBECTL_TABLE), false, true),
            Representation::Table("v1".into())
        );
        assert_eq!(
            negotiate(Some(KUBECTL_TABLE), false, false),
            Representation::Json
        );
        assert_eq!(negotiate(None, true, true), Representation::Json);
        assert_eq!(
            negotiate(
                Some("application/json;as=Table;v=v1beta1;g=meta.k8s.io"),
                false,
                true
            ),
            Representation::Table("v1beta1".into())
        );
    }
}
