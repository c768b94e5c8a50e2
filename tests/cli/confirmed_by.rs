//! Every document's `target.confirmedBy` is the target policy that ran, the same word in every
//! command (one `Session` decides it): `prompt` after the operator said yes at a terminal,
//! `endpoint` without a prompt (the kubeconfig's server is the topology's `endpoint:`),
//! `bench` for a lima stack, `snapshot` for a replay, `null` for a kubeconfig named with no
//! stack.

use serde_json::Value;

use crate::support::*;

const ENDPOINT: &str = "https://10.67.2.11:6443";

/// The JSON document on a pseudo-terminal's screen (after the prompt and the echo).
fn json_on_screen(out: &Outcome) -> Value {
    let screen = out.stdout.replace("\r\n", "\n");
    let start = screen
        .find("{\n  \"apiVersion\"")
        .unwrap_or_else(|| panic!("no document on the screen:\n{screen}"));
    let end = screen.rfind('}').map_or(screen.len(), |i| i + 1);
    let v = serde_json::from_str(&screen[start..end])
        .unwrap_or_else(|e| panic!("{e}: screen:\n{screen}"));
    crate::doc_schema::check(&v);
    v
}

fn confirmed(bed: &Bed, args: &[&str]) -> Value {
    bed.cmd().args(args).run().code(0).json()["target"]["confirmedBy"].clone()
}

fn prompted(bed: &Bed, args: &[&str]) -> Value {
    let out = bed.pty(args, "y\n", &[]);
    out.code(0).stdout_has("Is this the stack dirqual? [y/N]");
    json_on_screen(&out)["target"]["confirmedBy"].clone()
}

#[test]
fn preview_says_prompt_endpoint_bench_or_snapshot() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    assert_eq!(
        prompted(&bed, &["preview", "--no-color", "-o", "json"]),
        "prompt"
    );
    assert_eq!(
        confirmed(&bed, &["preview", "--no-input", "-o", "json"]),
        "endpoint"
    );
    let snap = bed.tmp.path().join("dirqual.snapshot.json");
    let snap = snap.to_str().expect("utf-8");
    bed.cmd()
        .args(["discover", "--no-input", "-o", "json", "--save", snap])
        .run()
        .code(0);
    assert_eq!(
        confirmed(
            &bed,
            &["preview", "--no-input", "-o", "json", "--snapshot", snap]
        ),
        "snapshot"
    );

    let lima = Bed::new();
    lima.write_stack("bench", LIMA_BENCH);
    lima.select("bench");
    lima.limactl_listing("");
    lima.kubeconfig(
        &lima.repo.join("bench/lima/.work/kubeconfig"),
        "https://127.0.0.1:6443",
    );
    lima.kubectl_cluster(&Cluster::dirqual());
    assert_eq!(confirmed(&lima, &["preview", "-o", "json"]), "bench");
}

#[test]
fn discover_says_prompt_endpoint_or_null_for_a_bare_kubeconfig() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    assert_eq!(
        prompted(&bed, &["discover", "--no-color", "-o", "json"]),
        "prompt"
    );
    assert_eq!(
        confirmed(&bed, &["discover", "--no-input", "-o", "json"]),
        "endpoint"
    );
    let bare = Bed::new();
    bare.kubectl_cluster(&Cluster::dirqual());
    let file = bare.kubeconfig(&bare.home.join("lab.config"), ENDPOINT);
    let file = file.to_str().expect("utf-8");
    assert_eq!(
        confirmed(&bare, &["--kubeconfig", file, "discover", "-o", "json"]),
        Value::Null
    );
}

/// `target` used to say `endpoint` (or null) after a prompt: now the policy that ran.
#[test]
fn target_says_prompt_after_a_prompt() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    assert_eq!(
        prompted(&bed, &["target", "--no-color", "-o", "json"]),
        "prompt"
    );
    assert_eq!(
        confirmed(&bed, &["target", "--no-input", "-o", "json"]),
        "endpoint"
    );
    let bare = Bed::new();
    bare.kubectl_cluster(&Cluster::dirqual());
    let file = bare.kubeconfig(&bare.home.join("lab.config"), ENDPOINT);
    let file = file.to_str().expect("utf-8");
    assert_eq!(
        confirmed(&bare, &["--kubeconfig", file, "target", "-o", "json"]),
        Value::Null
    );
}

#[test]
fn wait_says_prompt_or_endpoint() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let args = [
        "wait",
        "--for",
        "present",
        "k8s",
        "--timeout",
        "30s",
        "-o",
        "json",
    ];
    assert_eq!(
        confirmed(&bed, &[&["--no-input"], &args[..]].concat()),
        "endpoint"
    );
    assert_eq!(
        prompted(&bed, &[&["--no-color"], &args[..]].concat()),
        "prompt"
    );
}

#[test]
fn the_fleet_says_endpoint_for_each_prod_stack() {
    let bed = Bed::dirqual(ENDPOINT, &Cluster::dirqual());
    let v = bed
        .cmd()
        .args(["preview", "--all", "-o", "json"])
        .run()
        .json();
    let items = v["items"].as_array().cloned().unwrap_or_default();
    assert!(!items.is_empty(), "{v}");
    for item in &items {
        assert_eq!(
            item["preview"]["target"]["confirmedBy"], "endpoint",
            "{item}"
        );
    }
}

/// `stack select`'s verification read has no document: the policy that ran shows in what was
/// dialled. With a declared `endpoint:` the kubeconfig's server must be it BEFORE kubectl
/// runs (a mismatch is never dialled, and the fetch is offered); when it is, the nodes are read.
#[test]
fn stack_select_verifies_by_the_declared_endpoint_before_dialling() {
    let bed = Bed::new();
    bed.write_stack("dirqual", PROD_DECLARED);
    bed.kubeconfig(
        &bed.home.join(".kube/dirqual.config"),
        "https://10.99.0.1:6443",
    );
    bed.kubectl_serving_nodes(&nodes_dirqual());
    bed.pty(&["--no-color", "stack", "select", "dirqual"], "n\n", &[])
        .code(0)
        .stdout_has("target mismatch for stack dirqual")
        .stdout_has("Fetch it now with kubectl nestor kubeconfig fetch? [y/N]");
    assert!(
        bed.calls("kubectl").is_empty(),
        "{:?}",
        bed.calls("kubectl")
    );

    bed.kubeconfig(&bed.home.join(".kube/dirqual.config"), ENDPOINT);
    bed.pty(&["--no-color", "stack", "select", "dirqual"], "", &[])
        .code(0)
        .stdout_has("cluster https://10.67.2.11:6443 reachable through");
    assert_eq!(bed.reads().len(), 1, "{:?}", bed.reads());
}
