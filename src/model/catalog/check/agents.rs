//! The check kinds of `cni-encryption` (SPEC §15): an annotation on every object of a list
//! (present, distinct, one object per node), and a comparison of two timestamps (node
//! agents started after their ConfigMap last changed). Written for Cilium's WireGuard keys
//! and agents, named for what they compare, usable by any `catalog:` file.

use super::Objects;
use crate::model::observation::{FieldUse, ReadRequest, LAST_CHANGE};

/// `annotated: {resource, kind?, keys: [...], distinct?, perNode?}`: every object of the
/// list carries one of `keys` (aliases in order of preference: a newer spelling first) with
/// a non-empty value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotatedCheck {
    /// A cluster-wide list (`ciliumnodes.cilium.io`); `namespace`/`name` are not used.
    pub objects: Objects,
    /// The annotation key and its older spellings (`network.cilium.io/wg-pub-key`,
    /// `io.cilium.network.wg-pub-key`).
    pub keys: Vec<String>,
    /// No two objects share a value (each node's own WireGuard public key).
    pub distinct: bool,
    /// One object per registered node, by the node's name (a CiliumNode is named after its
    /// node): a node without one is named too.
    pub per_node: bool,
}

impl AnnotatedCheck {
    /// What the typed read keeps of each object: the annotation keys, nothing else.
    pub fn field_uses(&self) -> Vec<FieldUse> {
        self.keys
            .iter()
            .map(|k| FieldUse::Annotation(k.clone()))
            .collect()
    }
}

/// Which pods, and which of their containers, a start-time check reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodsOf {
    pub namespace: String,
    /// `k=v[,k2=v2]`, label characters only.
    pub selector: String,
    pub container: String,
}

/// `startedAfter: {pods: {namespace, selector, container}, configMap: {namespace, name},
/// says?}`: every running `container` of those pods started after the ConfigMap's last
/// write (its newest `metadata.managedFields[].time`); one started before runs the
/// configuration of before that write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartedAfterCheck {
    pub pods: PodsOf,
    pub config_namespace: String,
    pub config_name: String,
    /// The repair, in the evidence of a failure (`restart DaemonSet cilium`).
    pub says: Option<String>,
}

impl StartedAfterCheck {
    /// Its two reads: the pods' start times, and the ConfigMap by name for its last write.
    pub fn read_requests(&self) -> [ReadRequest; 2] {
        [
            ReadRequest::ContainerStarts {
                namespace: self.pods.namespace.clone(),
                selector: self.pods.selector.clone(),
                container: self.pods.container.clone(),
            },
            self.config_map_request(),
        ]
    }

    pub fn config_map_request(&self) -> ReadRequest {
        ReadRequest::ConfigMap {
            namespace: self.config_namespace.clone(),
            name: self.config_name.clone(),
            keys: vec![LAST_CHANGE.to_string()],
        }
    }

    /// `ConfigMap NS/NAME`.
    pub fn config_label(&self) -> String {
        format!("ConfigMap {}/{}", self.config_namespace, self.config_name)
    }
}
