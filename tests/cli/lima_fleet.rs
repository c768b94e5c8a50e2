//! Issue 32: `preview --all` on a laptop whose Lima holds an unrelated Broken `default` VM
//! beside two benches (Lima 2.0.3 as it prints it, object errors and all): each stack is
//! judged on its own instances only, the Broken `default` is never a stack's VM, never a
//! failed read, never in the fleet's output.

use crate::support::*;

const SOLO: &str = "name: solo
target_kind: lima
nodes:
  - { name: node1, role: control-plane }
layers: [k8s]
";

#[test]
fn the_fleet_never_counts_an_unrelated_broken_vm() {
    let bed = Bed::new();
    bed.write_stack("bench", LIMA_BENCH);
    bed.write_stack("solo", SOLO);
    let fixture = format!(
        "{}/tests/fixtures/limactl/lima-2.0.3.ndjson",
        env!("CARGO_MANIFEST_DIR")
    );
    bed.stub("limactl", &format!("cat '{fixture}'"));
    let out = bed
        .cmd()
        .args(["preview", "--all", "--no-color"])
        .env("COLUMNS", "200")
        .run();
    out.code(0);
    out.stdout_eq(
        "STACK  OUTCOME  KIND  NODES  LAYERS P/D/A/U  PLAN  TARGET
bench  work     lima  ?/3    0/0/2/0         4     -
solo   work     lima  ?/1    0/0/1/0         1     -
total: 2 stacks: 0 ok, 2 work, 0 undecided, 0 refused, 0 unreachable, 0 error
",
    );

    let out = bed.cmd().args(["preview", "--all", "-o", "json"]).run();
    out.code(0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout_bytes).expect("json");
    crate::doc_schema::check(&v);
    let stacks: Vec<serde_json::Value> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            let p = &i["preview"];
            serde_json::json!({
                "name": i["name"], "outcome": i["outcome"], "vms": p["real"]["vms"],
                "toStart": p["plan"]["vmsToStart"], "broken": p["plan"]["vmsBroken"],
                "undecided": p["plan"]["vmsUndecided"], "error": i["error"],
            })
        })
        .collect();
    assert_eq!(
        serde_json::Value::Array(stacks),
        serde_json::json!([
            {"name": "bench", "outcome": "work", "error": null,
             "vms": [{"name": "node1", "status": "Running"}, {"name": "node2", "status": "Stopped"},
                     {"name": "node3", "status": "Broken", "errors": [NODE3]}],
             "toStart": ["node2"], "broken": ["node3"], "undecided": []},
            {"name": "solo", "outcome": "work", "error": null,
             "vms": [{"name": "node1", "status": "Running"}],
             "toStart": [], "broken": [], "undecided": []},
        ])
    );
    // The unrelated instance is nobody's: not a VM, not an error, not a word of the output.
    assert!(!out.stdout.contains("\"default\""), "{}", out.stdout);
}

const NODE3: &str = "open /Users/ops/.lima/node3/ha.pid: permission denied";
