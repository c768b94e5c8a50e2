//! `annotated:` and `startedAfter:` from a `catalog:` file: usable for any list and any
//! agent, and every name validated before it can reach a read.

use super::*;
use crate::model::observation::{FieldUse, ReadRequest, LAST_CHANGE};

const LAYER: &str = r#"
- id: node-agent
  title: A node agent's keys
  detect:
    - apiGroup: example.io
  healthy:
    - annotated:
        resource: agentnodes.example.io
        kind: AgentNode
        keys: [example.io/pub-key]
    - startedAfter:
        pods: {namespace: agents, selector: "app=agent,tier=node", container: agent}
        configMap: {namespace: agents, name: agent-config}
  install: make agent
"#;

fn overlay(text: &str) -> Result<Catalog> {
    let mut c = Catalog::builtin().unwrap();
    c.overlay_str(text, "stacks/layers.yaml").map(|()| c)
}

#[test]
fn a_catalog_file_uses_both_kinds_and_gets_their_reads() {
    let c = overlay(LAYER).unwrap();
    let plan = c.read_plan(&["node-agent".to_string()], Workloads::InTheirNamespaces);
    assert!(plan.requests.contains(&ReadRequest::ContainerStarts {
        namespace: "agents".into(),
        selector: "app=agent,tier=node".into(),
        container: "agent".into(),
    }));
    assert!(plan.requests.contains(&ReadRequest::ConfigMap {
        namespace: "agents".into(),
        name: "agent-config".into(),
        keys: vec![LAST_CHANGE.to_string()],
    }));
    // Not perNode: the nodes are not needed; the objects keep their one annotation (and
    // their uid, which their Warning Events are matched by).
    assert!(!plan.requests.contains(&ReadRequest::Nodes));
    assert_eq!(
        plan.scope.keep["agentnodes.example.io"],
        [
            FieldUse::Value(crate::model::observation::FieldPath::uid()),
            FieldUse::Annotation("example.io/pub-key".into())
        ]
        .into_iter()
        .collect()
    );
    let words: Vec<String> = c
        .get("node-agent")
        .unwrap()
        .healthy
        .iter()
        .map(|h| h.kind.to_string())
        .collect();
    assert_eq!(
        words[0],
        "every AgentNode carries the annotation example.io/pub-key; the ones that fail are named"
    );
    assert!(words[1].starts_with("every running agent container of the pods of agents with app=agent,tier=node started after ConfigMap agents/agent-config last changed"), "{}", words[1]);
}

#[test]
fn bad_names_are_refused_with_what_to_write() {
    for (from, to, says) in [
        ("keys: [example.io/pub-key]", "keys: []", "needs `keys:`"),
        (
            "keys: [example.io/pub-key]",
            "keys: [\"a b\"]",
            "is not an annotation key",
        ),
        (
            "\"app=agent,tier=node\"",
            "\"tier=node,app=agent\"",
            "in key order",
        ),
        ("\"app=agent,tier=node\"", "app", "is not a label selector"),
        (
            "\"app=agent,tier=node\"",
            "\"app=a&b\"",
            "is not a label selector",
        ),
        (
            "container: agent",
            "container: Agent_1",
            "is not a container name",
        ),
        ("name: agent-config", "name: a/b", "read by name"),
        (
            "kind: AgentNode",
            "kind: AgentNode\n        namespace: x",
            "unknown key `namespace`",
        ),
    ] {
        assert!(LAYER.contains(from), "{from}");
        let e = overlay(&LAYER.replace(from, to)).unwrap_err();
        assert!(e.message.contains(says), "{to}: {}", e.message);
    }
}
