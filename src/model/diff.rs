//! What changed between two observations of a cluster (`diff A B`): nodes added, removed,
//! Ready or kubelet version changed, and layers whose state or evidence changed. Pure: two
//! observations and their layer reports in, the differences out.

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::observation::{Node, Observation};
use crate::model::state::{LayerReport, State};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodesDiff {
    /// In B, not in A.
    pub added: Vec<String>,
    /// In A, not in B.
    pub removed: Vec<String>,
    pub ready_changed: Vec<Change<bool>>,
    pub kubelet_changed: Vec<Change<String>>,
    /// A side whose nodes could not be read: `A: reason` / `B: reason` (nothing compared).
    pub not_read: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Change<T> {
    pub name: String,
    pub from: T,
    pub to: T,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LayerChange {
    pub id: String,
    pub title: String,
    /// `null` when the layer was not judged on that side.
    pub from: Option<State>,
    pub to: Option<State>,
    /// Evidence lines only in A.
    pub evidence_removed: Vec<String>,
    /// Evidence lines only in B.
    pub evidence_added: Vec<String>,
}

impl NodesDiff {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.ready_changed.is_empty()
            && self.kubelet_changed.is_empty()
            && self.not_read.is_empty()
    }
}

/// The nodes of `a` against those of `b`, by name, in B's order then A's.
pub fn nodes(a: &Observation, b: &Observation) -> NodesDiff {
    let mut d = NodesDiff::default();
    let (na, nb) = match (&a.nodes, &b.nodes) {
        (Ok(na), Ok(nb)) => (na, nb),
        (ea, eb) => {
            if let Err(e) = ea {
                d.not_read.push(format!("A: {e}"));
            }
            if let Err(e) = eb {
                d.not_read.push(format!("B: {e}"));
            }
            return d;
        }
    };
    let find = |list: &'_ [Node], name: &str| -> Option<Node> {
        list.iter().find(|n| n.name == name).cloned()
    };
    for n in nb {
        match find(na, &n.name) {
            None => d.added.push(n.name.clone()),
            Some(old) => {
                if old.ready != n.ready {
                    d.ready_changed.push(Change {
                        name: n.name.clone(),
                        from: old.ready,
                        to: n.ready,
                    });
                }
                if old.kubelet_version != n.kubelet_version {
                    d.kubelet_changed.push(Change {
                        name: n.name.clone(),
                        from: old.kubelet_version.clone(),
                        to: n.kubelet_version.clone(),
                    });
                }
            }
        }
    }
    d.removed = na
        .iter()
        .filter(|n| find(nb, &n.name).is_none())
        .map(|n| n.name.clone())
        .collect();
    d
}

/// The layers whose state or evidence differ, in A's order then the ones only in B.
pub fn layers(a: &[LayerReport], b: &[LayerReport]) -> Vec<LayerChange> {
    let mut ids: Vec<&str> = a.iter().map(|r| r.id.as_str()).collect();
    for r in b {
        if !ids.contains(&r.id.as_str()) {
            ids.push(&r.id);
        }
    }
    let mut out = vec![];
    for id in ids {
        let ra = a.iter().find(|r| r.id == id);
        let rb = b.iter().find(|r| r.id == id);
        let lines = |r: Option<&LayerReport>| r.map(|r| r.evidence.clone()).unwrap_or_default();
        let (ea, eb) = (lines(ra), lines(rb));
        let from = ra.map(|r| r.state);
        let to = rb.map(|r| r.state);
        if from == to && ea == eb {
            continue;
        }
        out.push(LayerChange {
            id: id.to_string(),
            title: rb.or(ra).map(|r| r.title.clone()).unwrap_or_default(),
            from,
            to,
            evidence_removed: ea.iter().filter(|e| !eb.contains(e)).cloned().collect(),
            evidence_added: eb.iter().filter(|e| !ea.contains(e)).cloned().collect(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation::{FailureKind, ReadFailure};

    fn node(name: &str, ready: bool, kubelet: &str) -> Node {
        Node {
            name: name.into(),
            ready,
            roles: vec![],
            internal_ip: None,
            kubelet_version: kubelet.into(),
            architecture: String::new(),
            ..Default::default()
        }
    }

    fn obs(nodes: Vec<Node>) -> Observation {
        let mut o = Observation::skipped("not read");
        o.nodes = Ok(nodes);
        o
    }

    #[test]
    fn nodes_added_removed_ready_and_kubelet() {
        let a = obs(vec![
            node("n1", true, "v1.31.4"),
            node("n2", true, "v1.31.4"),
            node("n3", true, "v1.31.4"),
        ]);
        let b = obs(vec![
            node("n1", true, "v1.32.0"),
            node("n2", false, "v1.31.4"),
            node("n4", true, "v1.31.4"),
        ]);
        let d = nodes(&a, &b);
        assert_eq!(d.added, ["n4"]);
        assert_eq!(d.removed, ["n3"]);
        assert_eq!(
            d.ready_changed,
            [Change {
                name: "n2".into(),
                from: true,
                to: false
            }]
        );
        assert_eq!(d.kubelet_changed.len(), 1);
        assert_eq!(d.kubelet_changed[0].to, "v1.32.0");
        assert!(nodes(&a, &a).is_empty());
    }

    #[test]
    fn unread_nodes_are_said_not_compared() {
        let a = obs(vec![node("n1", true, "v1")]);
        let mut b = Observation::skipped("x");
        b.nodes = Err(ReadFailure::new(
            FailureKind::Forbidden,
            "nodes is forbidden",
        ));
        let d = nodes(&a, &b);
        assert!(d.removed.is_empty(), "a failed read is never a removal");
        assert_eq!(d.not_read.len(), 1);
        assert!(d.not_read[0].starts_with("B: "));
    }

    #[test]
    fn layers_changed_in_state_or_evidence_only() {
        let r = |id: &str, state, ev: &[&str]| LayerReport {
            id: id.into(),
            title: id.into(),
            state,
            evidence: ev.iter().map(|s| s.to_string()).collect(),
            reason: String::new(),
            hosts: vec![],
            checks: vec![],
            explain: vec![],
        };
        let a = [
            r("ceph", State::Present, &["HEALTH_OK"]),
            r("cni", State::Present, &["ok"]),
            r("certs", State::Absent, &["no group"]),
        ];
        let b = [
            r("ceph", State::Degraded, &["HEALTH_WARN"]),
            r("cni", State::Present, &["ok"]),
            r("certs", State::Absent, &["no group", "no namespace"]),
        ];
        let d = layers(&a, &b);
        assert_eq!(
            d.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["ceph", "certs"]
        );
        assert_eq!(d[0].from, Some(State::Present));
        assert_eq!(d[0].to, Some(State::Degraded));
        assert_eq!(d[0].evidence_removed, ["HEALTH_OK"]);
        assert_eq!(d[1].evidence_added, ["no namespace"]);
    }
}
