//! The stack file `discover --emit-topology` prints: what was found, in the topology format,
//! so that `discover ... > stacks/NAME.yaml` then `stack select NAME` just works.
//!
//! `name:` is the stack's (the file name it will be saved as), `kubeconfig:`, `endpoint:` and
//! `context:` are the file, the server and the current-context that were read (a later
//! `kubectl config use-context` is refused, `target::context`), the nodes carry their roles.
//! Layers found present or degraded are declared; absent and unknown ones are written as
//! comments with their reason, so the operator decides. `inventory:` names the Ansible inventory
//! found; with none found it is `none` (SPEC §6 v0.5: host layers and host gate rules are then
//! skipped without a flag), with a comment saying where nestor looked and how to add one.
//! Everything here comes from a cluster and is
//! hostile: scalars are quoted unless plainly safe, comments are one line, control
//! characters escaped, and the length is bounded.

use crate::model::observation::Node;
use crate::model::state::{LayerReport, State};
use crate::stack::schema::{is_dns1123_label, is_dns1123_subdomain};
use crate::stack::TargetKind;

/// What the skeleton is made of.
pub struct Found<'a> {
    /// The stack name: a DNS-1123 label, the file stem it will be saved under.
    pub name: &'a str,
    /// `prod`, unless the stack discovered is a lima bench (its kubeconfig is the bench's:
    /// no `kubeconfig:` nor `endpoint:` is written for it).
    pub kind: TargetKind,
    /// The kubeconfig as the topology should say it (`~/...` under HOME).
    pub kubeconfig: &'a str,
    pub endpoint: &'a str,
    pub context: &'a str,
    /// How many contexts the kubeconfig holds (more than one: said in a comment).
    pub contexts: usize,
    pub nodes: &'a [Node],
    /// Every catalog layer, in catalog order.
    pub layers: &'a [LayerReport],
    /// When it was read (RFC 3339).
    pub taken_at: &'a str,
    /// The stack's Ansible inventory, as found on disk.
    pub inventory: &'a Inventory,
}

/// The Ansible inventory a discovered stack names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inventory {
    /// Found: its path as the topology writes it (relative to the repo root, or absolute).
    At(String),
    /// None found, and why (`no Ansible inventory found at PATH`): `inventory: none` is
    /// written, with that reason and how to add one as comments.
    None(String),
}

/// The longest reason kept in a comment, in characters.
const REASON_MAX: usize = 160;

/// The topology text.
pub fn emit(f: &Found) -> String {
    let mut y = String::new();
    y.push_str(&format!(
        "# Stack {}, written by `kubectl nestor discover --emit-topology` on {}\n",
        comment(f.name),
        comment(f.taken_at)
    ));
    y.push_str(&format!(
        "# from {} (context {}). Review it: declare the layers this stack should have.\n",
        comment(f.endpoint),
        comment(f.context)
    ));
    if f.contexts > 1 {
        y.push_str(&format!(
            "# The kubeconfig holds {} contexts: this stack is its current-context, {} (nestor reads no other).\n",
            f.contexts,
            comment(f.context)
        ));
    }
    y.push_str(&format!("name: {}\n", scalar(f.name)));
    y.push_str(&format!("target_kind: {}\n", f.kind.as_str()));
    if f.kind == TargetKind::Prod {
        y.push_str(&format!("kubeconfig: {}\n", scalar(f.kubeconfig)));
        y.push_str(&format!("endpoint: {}\n", scalar(f.endpoint)));
        if crate::stack::schema::check_context(f.context).is_ok() {
            y.push_str(&format!("context: {}\n", scalar(f.context)));
        }
    }
    match f.inventory {
        Inventory::At(path) => y.push_str(&format!("inventory: {}\n", scalar(path))),
        Inventory::None(why) => {
            y.push_str(&format!(
                "# {}: nestor reads no host over ssh (host layers and host gate rules are skipped).\n",
                comment(why)
            ));
            y.push_str("# To read them, set `inventory: PATH` to your Ansible YAML inventory (relative to the repo root).\n");
            y.push_str(&format!("inventory: {}\n", crate::stack::NO_INVENTORY));
        }
    }
    let (valid, invalid): (Vec<&Node>, Vec<&Node>) =
        f.nodes.iter().partition(|n| is_dns1123_subdomain(&n.name));
    if valid.is_empty() {
        y.push_str("nodes: []\n");
    } else {
        y.push_str("nodes:\n");
    }
    for n in &valid {
        let role = if n
            .roles
            .iter()
            .any(|r| r == "control-plane" || r == "master")
        {
            "control-plane"
        } else {
            "worker"
        };
        y.push_str(&format!(
            "  - {{ name: {}, role: {role} }}\n",
            scalar(&n.name)
        ));
    }
    for n in &invalid {
        y.push_str(&format!(
            "  # node {} left out: not a valid Kubernetes node name\n",
            comment(&n.name)
        ));
    }
    let declared: Vec<&LayerReport> = f
        .layers
        .iter()
        .filter(|l| matches!(l.state, State::Present | State::Degraded))
        .collect();
    y.push_str(if declared.is_empty() {
        "layers: []\n"
    } else {
        "layers:\n"
    });
    let width = f.layers.iter().map(|l| l.id.len()).max().unwrap_or(0);
    for l in f.layers {
        match l.state {
            State::Present | State::Degraded if is_dns1123_label(&l.id) => {
                y.push_str(&format!("  - {}\n", l.id));
                if l.state == State::Degraded {
                    y.push_str(&format!("    # degraded: {}\n", comment(&clip(&l.reason))));
                }
            }
            State::Present | State::Degraded => {}
            State::Absent | State::Unknown => {
                let state = if l.state == State::Absent {
                    "absent"
                } else {
                    "unknown"
                };
                y.push_str(&format!(
                    "  # - {:<width$}  {state}: {}\n",
                    comment(&l.id),
                    comment(&clip(&l.reason))
                ));
            }
        }
    }
    y
}

/// `s` as a YAML scalar: plain when it is plainly a string (names, paths, URLs), else a
/// double-quoted scalar (JSON string syntax is valid YAML).
fn scalar(s: &str) -> String {
    let plain_chars = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._/:~@+-".contains(&b));
    let starts_well = s
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'~' || b == b'/');
    let has_letter = s.bytes().any(|b| b.is_ascii_alphabetic());
    let keyword = matches!(
        s.to_ascii_lowercase().as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~"
    );
    if plain_chars && starts_well && has_letter && !keyword && !s.ends_with(':') {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
    }
}

/// One comment line's worth of `s`: control characters (line breaks included) and
/// bidirectional overrides escaped by [`crate::term::escape`], the one escaping, so nothing
/// read from a cluster can end the comment and write YAML, nor reorder what a reader sees.
fn comment(s: &str) -> String {
    crate::term::escape(s)
}

fn clip(s: &str) -> String {
    if s.chars().count() <= REASON_MAX {
        s.to_string()
    } else {
        let cut: String = s.chars().take(REASON_MAX).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::Path;

    fn node(name: &str, roles: &[&str]) -> Node {
        Node {
            name: name.to_string(),
            ready: true,
            roles: roles.iter().map(|r| r.to_string()).collect(),
            internal_ip: None,
            kubelet_version: "v1.31.0".to_string(),
            architecture: String::new(),
            ..Default::default()
        }
    }

    fn layer(id: &str, state: State, reason: &str) -> LayerReport {
        LayerReport {
            id: id.to_string(),
            title: id.to_string(),
            state,
            evidence: vec![],
            reason: reason.to_string(),
            hosts: vec![],
            checks: vec![],
            explain: vec![],
        }
    }

    fn no_inventory() -> Inventory {
        Inventory::None("no Ansible inventory found at /r/bootstrap/hosts.yaml".into())
    }

    fn known() -> BTreeSet<String> {
        ["k8s", "ceph", "datalake", "etcd-backup", "monitoring"]
            .map(String::from)
            .into_iter()
            .collect()
    }

    #[test]
    fn declares_what_was_found_and_comments_the_rest() {
        let nodes = [node("lab1", &["control-plane"]), node("lab2", &[])];
        let layers = [
            layer("k8s", State::Present, "2/2 Ready"),
            layer("ceph", State::Degraded, "HEALTH_WARN"),
            layer("datalake", State::Absent, "no CephObjectStore in rook-ceph"),
            layer(
                "etcd-backup",
                State::Unknown,
                "not observable from Kubernetes",
            ),
        ];
        let text = emit(&Found {
            name: "lab",
            kind: TargetKind::Prod,
            kubeconfig: "~/.kube/lab.config",
            endpoint: "https://10.0.0.1:6443",
            context: "admin@lab",
            contexts: 1,
            nodes: &nodes,
            layers: &layers,
            taken_at: "2026-11-30T15:00:00Z",
            inventory: &Inventory::At("ops/hosts.yaml".into()),
        });
        let body: Vec<&str> = text.lines().filter(|l| !l.starts_with("# ")).collect();
        assert_eq!(
            body,
            [
                "name: lab",
                "target_kind: prod",
                "kubeconfig: ~/.kube/lab.config",
                "endpoint: https://10.0.0.1:6443",
                "context: admin@lab",
                "inventory: ops/hosts.yaml",
                "nodes:",
                "  - { name: lab1, role: control-plane }",
                "  - { name: lab2, role: worker }",
                "layers:",
                "  - k8s",
                "  - ceph",
                "    # degraded: HEALTH_WARN",
                "  # - datalake     absent: no CephObjectStore in rook-ceph",
                "  # - etcd-backup  unknown: not observable from Kubernetes",
            ]
        );
        let raw = crate::stack::schema::parse(&text, Path::new("lab.yaml"), "lab", Some(&known()))
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(raw.layers.len(), 2);
        assert_eq!(raw.nodes.len(), 2);
        assert_eq!(raw.inventory.as_deref(), Some("ops/hosts.yaml"));
    }

    /// Issue 51: no inventory found: `inventory: none`, where nestor looked, and how to add
    /// one, so that the gates answer without `--no-ssh` on the stack as written.
    #[test]
    fn no_inventory_found_is_written_as_none_with_how_to_add_one() {
        let text = emit(&Found {
            name: "lab",
            kind: TargetKind::Prod,
            kubeconfig: "~/.kube/lab.config",
            endpoint: "https://10.0.0.1:6443",
            context: "admin@lab",
            contexts: 1,
            nodes: &[node("lab1", &["control-plane"])],
            layers: &[],
            taken_at: "t",
            inventory: &no_inventory(),
        });
        assert!(
            text.contains(
                "context: admin@lab\n\
                 # no Ansible inventory found at /r/bootstrap/hosts.yaml: nestor reads no host over ssh (host layers and host gate rules are skipped).\n\
                 # To read them, set `inventory: PATH` to your Ansible YAML inventory (relative to the repo root).\n\
                 inventory: none\n\
                 nodes:\n"
            ),
            "{text}"
        );
        let raw = crate::stack::schema::parse(&text, Path::new("lab.yaml"), "lab", Some(&known()))
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(raw.inventory.as_deref(), Some(crate::stack::NO_INVENTORY));
    }

    #[test]
    fn an_acknowledged_finding_is_never_written() {
        let mut ceph = layer("ceph", State::Degraded, "HEALTH_WARN");
        ceph.checks = vec![crate::model::state::CheckReport {
            id: "ceph/health".into(),
            verdict: crate::model::state::Verdict::False,
            evidence: "HEALTH_WARN".into(),
            findings: vec!["MON_DISK_LOW".into()],
            acknowledged: true,
            until: Some("2026-12-31".into()),
            reason: Some("tracked".into()),
            objects: vec![],
            events: vec![],
            events_not_read: vec![],
        }];
        let text = emit(&Found {
            name: "lab",
            kind: TargetKind::Prod,
            kubeconfig: "~/.kube/lab.config",
            endpoint: "https://10.0.0.1:6443",
            context: "admin@lab",
            contexts: 1,
            nodes: &[node("lab1", &["control-plane"])],
            layers: &[ceph],
            taken_at: "2026-11-30T15:00:00Z",
            inventory: &no_inventory(),
        });
        // Acknowledging is the team's decision, written by hand: discover never proposes one.
        assert!(!text.contains("acknowledged"), "{text}");
        assert!(!text.contains("ceph/health"), "{text}");
    }

    #[test]
    fn hostile_values_stay_data() {
        let nodes = [node("evil\nlayers: [k8s]", &[]), node("true", &[])];
        let layers = [layer(
            "datalake",
            State::Absent,
            "gone\nkubeconfig: /tmp/x\r # ",
        )];
        let text = emit(&Found {
            name: "lab",
            kind: TargetKind::Prod,
            kubeconfig: "/tmp/a b#c.config",
            endpoint: "https://h:6443",
            context: "ctx\n- injected",
            contexts: 3,
            nodes: &nodes,
            layers: &layers,
            taken_at: "t",
            inventory: &no_inventory(),
        });
        let raw = crate::stack::schema::parse(&text, Path::new("lab.yaml"), "lab", Some(&known()))
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(
            raw.kubeconfig.as_deref(),
            Some("/tmp/a b#c.config"),
            "{text}"
        );
        assert!(raw.layers.is_empty(), "{text}");
        assert_eq!(raw.nodes.len(), 1, "{text}");
        assert_eq!(raw.nodes[0].name.as_str(), "true");
        assert!(
            text.contains("# node evil\\nlayers: [k8s] left out"),
            "{text}"
        );
        assert!(!text.contains("\nkubeconfig: /tmp/x"), "{text}");
    }

    #[test]
    fn a_lima_bench_keeps_its_bench_kubeconfig() {
        let text = emit(&Found {
            name: "bench",
            kind: TargetKind::Lima,
            kubeconfig: "bench/lima/.work/kubeconfig",
            endpoint: "https://127.0.0.1:6443",
            context: "c",
            contexts: 1,
            nodes: &[node("node1", &["control-plane"])],
            layers: &[],
            taken_at: "t",
            inventory: &no_inventory(),
        });
        let raw =
            crate::stack::schema::parse(&text, Path::new("bench.yaml"), "bench", Some(&known()))
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(raw.target_kind, TargetKind::Lima);
        assert!(raw.kubeconfig.is_none() && raw.endpoint.is_none(), "{text}");
    }

    #[test]
    fn nothing_found_is_still_a_loadable_topology() {
        let text = emit(&Found {
            name: "empty",
            kind: TargetKind::Prod,
            kubeconfig: "/k",
            endpoint: "https://h:6443",
            context: "c",
            contexts: 1,
            nodes: &[],
            layers: &[layer("ceph", State::Absent, "no group")],
            taken_at: "t",
            inventory: &no_inventory(),
        });
        let raw =
            crate::stack::schema::parse(&text, Path::new("empty.yaml"), "empty", Some(&known()))
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(raw.layers.is_empty() && raw.nodes.is_empty());
    }

    /// Issue 30: a comment holding a bidirectional override or a line break stays one
    /// visible line (the private copy let the overrides through).
    #[test]
    fn comments_escape_bidi_overrides_and_line_breaks() {
        assert_eq!(
            comment("ctx\u{202e}\u{2067}\nkind: Evil"),
            "ctx\\u{202e}\\u{2067}\\nkind: Evil"
        );
    }
}
