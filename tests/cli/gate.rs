//! `gate rules`: the built-in gate rule table, golden (`tests/cli/golden/gate/rules.txt`;
//! `SNAPSHOTS=overwrite cargo test --test cli gate::` rewrites it after a deliberate
//! change), as a `GateRules` document valid against its schema; no cluster, no stack read.

use std::path::Path;

use serde_json::Value;

use crate::support::*;

fn golden_file(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/golden/gate")
        .join(name)
}

#[test]
fn gate_rules_lists_every_rule_with_its_severity_and_source() {
    let bed = Bed::new();
    let out = bed.cmd().args(["gate", "rules"]).run();
    out.code(0);
    out.no_stderr();
    if let Err(e) = golden_check(&golden_file("rules.txt"), &stdout_of(&out)) {
        panic!("{e}");
    }
    // Nothing ran: no kubectl, no ssh.
    assert!(bed.calls("kubectl").is_empty() && bed.calls("ssh").is_empty());
}

#[test]
fn gate_rules_as_json_is_a_gate_rules_document() {
    let bed = Bed::new();
    let out = bed.cmd().args(["gate", "rules", "-o", "json"]).run();
    out.code(0);
    out.no_stderr();
    let v: Value = serde_json::from_slice(&out.stdout_bytes).expect("JSON");
    crate::doc_schema::check(&v);
    assert_eq!(v["kind"], "GateRules");
    let rules = v["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), nestor::model::gate::builtin().rules.len());
    assert_eq!(
        rules[0],
        serde_json::json!({
            "id": "drain-pdb-blocks",
            "gate": "drain",
            "severity": "blocker",
            "title": "the eviction API lets every pod of NODE go (one budget each, allowing a disruption)",
            "reads": ["pdbs", "node-pods"],
            "host": false,
            "source": {
                "title": "Kubernetes: the eviction subresource (pkg/registry/core/pod/storage/eviction.go)",
                "url": "https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/pod/storage/eviction.go"
            }
        })
    );
    let yaml = bed.cmd().args(["gate", "rules", "-o", "yaml"]).run();
    yaml.code(0);
    assert!(stdout_of(&yaml).starts_with("apiVersion: nestor/v1\nkind: GateRules\n"));
}

#[test]
fn gate_rules_has_no_junit_form() {
    let bed = Bed::new();
    let out = bed.cmd().args(["gate", "rules", "-o", "junit"]).run();
    out.code(1);
    out.stdout_eq("");
    out.stderr_eq("kubectl-nestor: error: `gate rules` has no JUnit form\nhint: -o junit is for a gate's verdict; use -o json or -o yaml for the table\n");
}

/// docs/gates.md lists every rule of the table with its source: the two cannot drift.
#[test]
fn docs_gates_md_lists_every_rule_with_its_source() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/gates.md"))
        .expect("docs/gates.md");
    for r in &nestor::model::gate::builtin().rules {
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", r.id.as_str())))
            .unwrap_or_else(|| panic!("docs/gates.md has no row for {}", r.id.as_str()));
        assert!(
            row.contains(&format!("]({})", r.source.url)) && row.contains(r.severity.as_str()),
            "{row}"
        );
    }
}
