//! The strict decoding of `annotated:` and `startedAfter:` (SPEC §15, `cni-encryption`):
//! every name validated before it can reach a read (an annotation key, a label selector, a
//! container and a ConfigMap name).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::objects;
use crate::model::catalog::check::{AnnotatedCheck, PodsOf, StartedAfterCheck};
use crate::model::catalog::scalars::{is_dns_label, is_dns_name, is_label_key};
use crate::model::observation::selector_of;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawAnnotated {
    resource: String,
    kind: Option<String>,
    keys: Vec<String>,
    #[serde(default)]
    distinct: bool,
    #[serde(default)]
    per_node: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawStartedAfter {
    pods: RawPodsOf,
    config_map: RawConfigMapName,
    says: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawPodsOf {
    namespace: String,
    selector: String,
    container: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawConfigMapName {
    namespace: String,
    name: String,
}

impl RawAnnotated {
    pub(super) fn into_check(self) -> Result<AnnotatedCheck, String> {
        if self.keys.is_empty() {
            return Err("`annotated:` needs `keys:` with at least one annotation key".into());
        }
        if let Some(bad) = self.keys.iter().find(|k| !is_label_key(k)) {
            return Err(format!(
                "`{bad}` is not an annotation key like `network.cilium.io/wg-pub-key`"
            ));
        }
        Ok(AnnotatedCheck {
            objects: objects(self.resource, self.kind, None, None)?,
            keys: self.keys,
            distinct: self.distinct,
            per_node: self.per_node,
        })
    }
}

/// A selector as nestor would build it from labels: `k=v[,k2=v2]`, in key order, valid
/// (`example` shows one in the error).
pub(super) fn label_selector(selector: &str, example: &str) -> Result<(), String> {
    let labels: Option<BTreeMap<String, String>> = selector
        .split(',')
        .map(|pair| {
            pair.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    if labels.and_then(|l| selector_of(&l)).as_deref() != Some(selector) {
        return Err(format!(
            "`selector: {selector}` is not a label selector like `{example}` (KEY=VALUE pairs joined by `,`, in key order)"
        ));
    }
    Ok(())
}

impl RawStartedAfter {
    pub(super) fn into_check(self) -> Result<StartedAfterCheck, String> {
        let p = self.pods;
        if !is_dns_label(&p.namespace) {
            return Err(format!(
                "`namespace: {}` is not a namespace name",
                p.namespace
            ));
        }
        label_selector(&p.selector, "k8s-app=cilium")?;
        if !is_dns_label(&p.container) {
            return Err(format!(
                "`container: {}` is not a container name",
                p.container
            ));
        }
        let c = self.config_map;
        if !(is_dns_label(&c.namespace) && c.name.len() <= 253 && is_dns_name(&c.name)) {
            return Err(format!(
                "`configMap:` needs a namespace and a ConfigMap name (read by name), not `{}/{}`",
                c.namespace, c.name
            ));
        }
        if self.says.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err("`says:` is empty; say what repairs it, or leave it out".into());
        }
        Ok(StartedAfterCheck {
            pods: PodsOf {
                namespace: p.namespace,
                selector: p.selector,
                container: p.container,
            },
            config_namespace: c.namespace,
            config_name: c.name,
            says: self.says,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::is_label_key;

    /// Annotation keys share the label key syntax (an optional DNS prefix, `/`, a name).
    #[test]
    fn annotation_keys_follow_kubernetes_syntax() {
        for ok in [
            "network.cilium.io/wg-pub-key",
            "io.cilium.network.wg-pub-key",
            "plain",
        ] {
            assert!(is_label_key(ok), "{ok}");
        }
        for bad in ["", "a/", "/b", "A_B.io/x", "x/-y", "a b", "x/y/z"] {
            assert!(!is_label_key(bad), "{bad}");
        }
    }
}
