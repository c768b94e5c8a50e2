//! The kube-apiserver static pods (kube-system, `component=kube-apiserver`), reduced to the
//! node each runs on and the NAMES of the flags on its command line. Flag values are never
//! kept: a command line can carry paths to keys, tokens in odd setups, OIDC client
//! settings; the checks only ask whether a flag is set.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// The label selector of the read (the only pods nestor reads).
pub const APISERVER_SELECTOR: &str = "component=kube-apiserver";
/// The namespace of the read.
pub const APISERVER_NAMESPACE: &str = "kube-system";

/// One kube-apiserver pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiServerPod {
    pub name: String,
    /// `spec.nodeName`.
    pub node: String,
    /// `--flag` names set with a value (or bare) in any container's command or args.
    pub flags: BTreeSet<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPod {
    metadata: RawMeta,
    spec: RawSpec,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMeta {
    name: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawSpec {
    node_name: String,
    containers: Vec<RawContainer>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawContainer {
    command: Vec<String>,
    args: Vec<String>,
}

/// `--name=value`, `--name value` or a bare `--name`: the names whose value is not empty.
fn flag_names(words: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        let Some(rest) = w.strip_prefix("--") else {
            continue;
        };
        match rest.split_once('=') {
            Some((name, value)) => {
                if !value.is_empty() {
                    out.insert(format!("--{name}"));
                }
            }
            None => {
                // `--name value`: the next word, when it is not itself a flag, is the value.
                if words.get(i).is_some_and(|n| !n.starts_with('-')) {
                    i += 1;
                }
                out.insert(format!("--{rest}"));
            }
        }
    }
    out
}

/// `kubectl get pods -n kube-system -l component=kube-apiserver -o json`.
pub fn parse_apiserver_pods(text: &str) -> Result<Vec<ApiServerPod>> {
    read_apiserver_pods(text.as_bytes(), &super::kube::unbounded())
}

/// [`parse_apiserver_pods`] as the list arrives, each pod charged to `budget`.
pub fn read_apiserver_pods<R: std::io::Read>(
    reader: R,
    budget: &crate::pool::Budget,
) -> Result<Vec<ApiServerPod>> {
    let what = format!(
        "GET /api/v1/namespaces/{APISERVER_NAMESPACE}/pods?labelSelector={APISERVER_SELECTOR}"
    );
    super::kube::decode_list(reader, &what, "", "Pod", budget, |p: RawPod| ApiServerPod {
        flags: p
            .spec
            .containers
            .iter()
            .flat_map(|c| {
                flag_names(&c.command)
                    .into_iter()
                    .chain(flag_names(&c.args))
            })
            .collect(),
        name: p.metadata.name,
        node: p.spec.node_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_names_only() {
        let text = r#"{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"kube-apiserver-cp1","namespace":"kube-system","annotations":{"kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint":"10.0.0.1:6443"}},
          "spec":{"nodeName":"cp1","containers":[{"name":"kube-apiserver","command":["kube-apiserver","--advertise-address=10.0.0.1","--audit-log-path=/var/log/kubernetes/audit.log","--audit-policy-file","/etc/kubernetes/audit.yaml","--encryption-provider-config=","--oidc-client-secret=SECRET-MARKER","--allow-privileged"]}]},
          "status":{"phase":"Running"}}]}"#;
        let pods = parse_apiserver_pods(text).unwrap();
        assert_eq!(pods[0].node, "cp1");
        assert_eq!(
            pods[0].flags.iter().map(String::as_str).collect::<Vec<_>>(),
            [
                "--advertise-address",
                "--allow-privileged",
                "--audit-log-path",
                "--audit-policy-file",
                "--oidc-client-secret"
            ]
        );
        let json = serde_json::to_string(&pods).unwrap();
        assert!(
            !json.contains("SECRET-MARKER") && !json.contains("/var/log"),
            "{json}"
        );
        assert!(parse_apiserver_pods("{}").is_err());
    }
}
