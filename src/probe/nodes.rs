//! Transitional node parser (replaced at merge).
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    pub name: String,
    pub ready: bool,
    pub roles: Vec<String>,
    pub internal_ip: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct List {
    items: Vec<serde_json::Value>,
}

pub fn parse(json: &str) -> Result<Vec<Node>> {
    let list: List = serde_json::from_str(json).map_err(|e| {
        Error::input(
            format!("kubectl get nodes printed invalid JSON: {e}"),
            "run it yourself",
        )
    })?;
    Ok(list
        .items
        .iter()
        .map(|n| Node {
            name: n["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            ready: n["status"]["conditions"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|c| c["type"] == "Ready" && c["status"] == "True")
            }),
            roles: n["metadata"]["labels"]
                .as_object()
                .map(|l| {
                    l.keys()
                        .filter_map(|k| k.strip_prefix("node-role.kubernetes.io/"))
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default(),
            internal_ip: n["status"]["addresses"].as_array().and_then(|a| {
                a.iter()
                    .find(|a| a["type"] == "InternalIP")
                    .and_then(|a| a["address"].as_str().map(String::from))
            }),
        })
        .collect())
}

pub fn summary(nodes: &[Node]) -> String {
    let ready = nodes.iter().filter(|n| n.ready).count();
    format!("{} registered, {ready} Ready", nodes.len())
}
