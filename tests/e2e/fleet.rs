//! `preview --all` (SPEC §14) through the real kubectl against several replay servers: a
//! healthy stack, a degraded one, an unreachable one and a refused one, each its own line;
//! the JSON `PreviewList`; the worst exit code; one stack's failure hiding nothing.

use std::fs;

use nestor_replay::{fixtures, Config, Server};

use crate::bed_or_skip;
use crate::support::*;

/// The layers the healthy dirqual fixture has, all present.
pub const PRESENT_LAYERS: &str = "[k8s, cni, ceph, storage, monitoring, gitops, registry, dataops]";

/// A prod topology with the dirqual nodes.
pub fn prod_stack(name: &str, endpoint: &str, layers: &str) -> String {
    format!(
        "name: {name}\ntarget_kind: prod\nkubeconfig: ~/.kube/{name}.config\nendpoint: {endpoint}\n\
         nodes:\n  - {{ name: dirqual1, role: control-plane }}\n  - {{ name: dirqual2, role: worker }}\n\
         \x20 - {{ name: dirqual3, role: worker }}\n  - {{ name: dirqual4, role: worker }}\nlayers: {layers}\n"
    )
}

/// The fleet: `prodok` (healthy, the bed's server), `staging` (the degraded fixture on a
/// second server), `edge` (a closed port), `decoy` (its kubeconfig points at the healthy
/// server, its topology declares another endpoint). `dirqual` is removed.
pub struct Fleet {
    pub bed: E2e,
    pub degraded: Server,
    /// The unreachable stack's endpoint.
    pub closed: String,
}

pub fn fleet() -> Option<Fleet> {
    let bed = E2e::dirqual()?;
    let degraded = Server::start(Config::new(fixtures::degraded())).expect("second server");
    fs::remove_file(bed.stacks.join("dirqual.yaml")).expect("rm");
    let kube = bed.home.join(".kube");
    let ok = bed.server.url();
    bed.kubeconfig_for(&kube.join("prodok.config"), &ok);
    bed.write_stack("prodok", &prod_stack("prodok", &ok, PRESENT_LAYERS));
    bed.kubeconfig_for(&kube.join("staging.config"), &degraded.url());
    bed.write_stack(
        "staging",
        &prod_stack("staging", &degraded.url(), PRESENT_LAYERS),
    );
    let closed = format!("http://127.0.0.1:{}", closed_port());
    bed.kubeconfig_for(&kube.join("edge.config"), &closed);
    bed.write_stack("edge", &prod_stack("edge", &closed, PRESENT_LAYERS));
    bed.kubeconfig_for(&kube.join("decoy.config"), &ok);
    bed.write_stack(
        "decoy",
        &prod_stack("decoy", "https://10.67.9.9:6443", PRESENT_LAYERS),
    );
    bed.select("prodok");
    Some(Fleet {
        bed,
        degraded,
        closed,
    })
}

/// The whitespace-separated cells of the line of `stack`.
fn cells(stdout: &str, stack: &str) -> Vec<String> {
    stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(stack))
        .unwrap_or_else(|| panic!("no line for {stack} in\n{stdout}"))
        .split_whitespace()
        .map(String::from)
        .collect()
}

#[test]
fn fleet_lines_one_per_stack_and_the_worst_exit_code() {
    let f = bed_or_skip!(fleet());
    let bed = &f.bed;
    let out = bed.run(&["preview", "--all"]);
    out.code(3);
    let ok = bed.server.url();
    assert_eq!(
        cells(&out.stdout, "prodok"),
        ["prodok", "ok", "prod", "4/4", "8/0/0/0", "0", &ok]
    );
    assert_eq!(
        cells(&out.stdout, "staging"),
        [
            "staging",
            "work",
            "prod",
            "3/4",
            "6/2/0/0",
            "2",
            &f.degraded.url()
        ]
    );
    assert_eq!(
        cells(&out.stdout, "edge"),
        ["edge", "unreachable", "prod", "-", "-", "-", &f.closed]
    );
    assert_eq!(
        cells(&out.stdout, "decoy"),
        [
            "decoy",
            "refused",
            "prod",
            "-",
            "-",
            "-",
            "https://10.67.9.9:6443"
        ]
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].starts_with("STACK "), "{}", out.stdout);
    // Sorted by name, then the total, then each failure's reason.
    let order: Vec<&str> = lines[1..5]
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(order, ["decoy", "edge", "prodok", "staging"]);
    assert_eq!(
        lines[5],
        "total: 4 stacks: 1 ok, 1 work, 0 undecided, 1 refused, 1 unreachable, 0 error"
    );
    // Substrings, not the whole text: edge's reason quotes kubectl's own words for the
    // refused connection, which change with its version.
    assert!(out
        .stdout
        .contains("decoy (refused): target mismatch for stack decoy"));
    out.stdout_has("edge (unreachable): cluster");
    // The columns are aligned: every row's TARGET starts at the same column.
    let col = lines[0].find("TARGET").expect("header");
    for l in &lines[1..5] {
        assert!(
            l.len() > col && l.as_bytes()[col - 1] == b' ' && l.as_bytes()[col] != b' ',
            "misaligned: {l}"
        );
    }
    // The degraded server was read; the refused target never (the endpoint check is first).
    assert!(f.degraded.audit().iter().any(|e| e.path == "/api/v1/nodes"));
    assert_read_only(&f.degraded);
}

#[test]
fn fleet_json_is_a_preview_list_with_every_preview_or_error() {
    let f = bed_or_skip!(fleet());
    let bed = &f.bed;
    let out = bed.run(&["preview", "--all", "-o", "json", "--detailed-exitcode"]);
    out.code(3);
    let v = out.json();
    assert_eq!(v["apiVersion"], "nestor/v1");
    assert_eq!(v["kind"], "PreviewList");
    let items = v["items"].as_array().expect("items");
    let by = |name: &str| {
        items
            .iter()
            .find(|i| i["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    assert_eq!(by("prodok")["outcome"], "ok");
    assert_eq!(by("prodok")["exitCode"], 0);
    assert_eq!(by("prodok")["preview"]["kind"], "Preview");
    assert_eq!(by("prodok")["preview"]["target"]["confirmedBy"], "endpoint");
    assert_eq!(by("staging")["outcome"], "work");
    assert_eq!(by("staging")["exitCode"], 2);
    assert_eq!(state_of(&by("staging")["preview"], "ceph"), "degraded");
    assert_eq!(by("edge")["outcome"], "unreachable");
    assert_eq!(by("edge")["exitCode"], 4);
    assert!(by("edge")["preview"].is_null());
    // (a substring: the message quotes kubectl's own words, which change with its version)
    assert!(by("edge")["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("unreachable")));
    assert_eq!(by("decoy")["outcome"], "refused");
    assert_eq!(by("decoy")["exitCode"], 3);
    assert!(by("decoy")["error"]["hint"].is_string());
    assert_eq!(v["total"]["stacks"], 4);
    assert_eq!(v["total"]["refused"], 1);
    assert_eq!(v["sharedEndpoints"], serde_json::json!([]));

    // Without the refused stack the worst is the unreachable one; without that too, with
    // --detailed-exitcode, the work of staging (2).
    fs::remove_file(bed.stacks.join("decoy.yaml")).expect("rm");
    assert_eq!(bed.run(&["preview", "--all"]).code, Some(4));
    fs::remove_file(bed.stacks.join("edge.yaml")).expect("rm");
    assert_eq!(bed.run(&["preview", "--all"]).code, Some(0));
    assert_eq!(
        bed.run(&["preview", "--all", "--detailed-exitcode"]).code,
        Some(2)
    );
}
