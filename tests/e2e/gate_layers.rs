//! `cilium|rook-layers-after-present` (SPEC §17 "the layer and the layers after it are
//! present") through the real kubectl against the replay server: the stack's layers declared
//! after the component's (`cni` for Cilium, `ceph` for Rook) judged as preview judges them,
//! through the gate's own proxy. GO when every later layer is present (or degraded and fully
//! acknowledged), NO-GO naming each absent or degraded one with preview's evidence, CANNOT
//! TELL (exit 5) when a later layer's read is forbidden or the stack has no component layer;
//! a stack with nothing after the layer sends no layer read at all. Only GETs.

use crate::bed_or_skip;
use crate::common_bed::day;
use crate::gate::stable;
use crate::support::*;
use nestor_replay::{fixtures, Config};

/// The layers of `dirqual-gates` that preview finds present (datalake and certs are absent).
const PRESENT: &str = "[k8s, cni, ceph, storage, monitoring, gitops, registry, dataops]";

/// A bed serving `fixture` whose dirqual stack declares `layers` (and `extra` after them).
fn stack_bed(fixture: &str, faults: &[&str], layers: &str, extra: &str) -> Option<E2e> {
    let bed = E2e::new(fixture, faults)?;
    let yaml = dirqual_topology(&bed.server.url()).replace(LAYERS, layers) + extra;
    bed.write_stack("dirqual", &yaml);
    Some(bed)
}

fn gate(bed: &E2e, what: &str, version: &str, json: bool) -> Outcome {
    let mut args = vec!["gate", "upgrade", what, version, "--no-input"];
    if json {
        args.extend(["-o", "json"]);
    }
    bed.run(&args)
}

/// The rule's entry in the `Gate` document (the document checked against its schema).
fn rule(r: &Outcome, id: &str) -> serde_json::Value {
    let v = r.json();
    crate::doc_schema::check(&v);
    v["rules"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["rule"] == id).cloned())
        .unwrap_or_else(|| panic!("no {id} in {v}"))
}

/// The paths the server was asked for, besides kubectl proxy's own `/version`.
fn paths(bed: &E2e) -> std::collections::BTreeSet<String> {
    bed.server
        .audit()
        .into_iter()
        .map(|e| e.path)
        .filter(|p| p != "/version")
        .collect()
}

/// The CephCluster as Rook writes it in HEALTH_WARN on a check that is not benign (fresh).
fn ceph_warn() -> String {
    format!(
        r#"GET /apis/ceph.rook.io/v1/cephclusters=body:{{"kind":"CephClusterList","apiVersion":"ceph.rook.io/v1","metadata":{{"resourceVersion":"9"}},"items":[{{"apiVersion":"ceph.rook.io/v1","kind":"CephCluster","metadata":{{"name":"rook-ceph","namespace":"rook-ceph"}},"spec":{{"mon":{{"count":3}}}},"status":{{"phase":"Ready","ceph":{{"health":"HEALTH_WARN","lastChecked":"{}","details":{{"MON_DISK_LOW":{{"message":"mon a is low on available space","severity":"HEALTH_WARN"}}}}}},"version":{{"image":"quay.io/ceph/ceph:v18.2.4","version":"18.2.4-0"}}}}}}]}}"#,
        nestor_replay::when::from_now(-45)
    )
}

const CILIUM_GO: &str = "gate upgrade cilium 1.18.5 on SERVER (context replay, rule: topology)
GO
holds:
  cilium-one-minor  1.18.2 -> 1.18.5: one minor at most
  cilium-one-version  2 workloads on one version
  cilium-present  agent 4/4, operator 2/2 pods ready
  cilium-k8s-range  1.18 supports 1.30 to 1.33; the control plane runs 1.31.4
  cilium-kubelet-range  1.18 supports 1.30 to 1.33; the 4 kubelets run v1.31.4
  cilium-layers-after-present  6 layers after cni present: ceph, storage, monit…
";

/// Every layer after cni (and after ceph) present: GO, the layers' reads made through the
/// gate's proxy; a stack whose component layer is its last sends no layer read.
#[test]
fn every_later_layer_present_is_go() {
    let bed = bed_or_skip!(stack_bed("dirqual-gates", &[], PRESENT, ""));
    let r = gate(&bed, "cilium", "1.18.5", false);
    assert_eq!(stable(&r), CILIUM_GO, "{r:?}");
    r.code(0);
    r.stderr_eq("");
    // The later layers' reads reached the server (ceph's CephCluster, monitoring's
    // workloads), only GETs.
    let sent = paths(&bed);
    for p in [
        "/apis/ceph.rook.io/v1/cephclusters",
        "/apis/apps/v1/namespaces/monitoring/deployments",
        "/apis/postgresql.cnpg.io/v1/clusters",
    ] {
        assert!(sent.contains(p), "{p}: {sent:?}");
    }
    assert_read_only(&bed.server);
    // One proxy for the whole gate: the layers' batch went through the gate's own (the `-v`
    // trace, whose timings vary: substring checks).
    let v = bed.run(&["-v", "gate", "upgrade", "cilium", "1.18.5", "--no-input"]);
    v.code(0);
    assert_eq!(v.stderr.matches("proxy start").count(), 1, "{}", v.stderr);
    assert!(
        v.stderr.contains("read path: through the gate's proxy"),
        "{}",
        v.stderr
    );
    let r = gate(&bed, "rook", "1.17", true);
    r.code(0);
    assert_eq!(
        rule(&r, "rook-layers-after-present"),
        serde_json::json!({
            "rule": "rook-layers-after-present",
            "title": "every layer the stack declares after Rook's (ceph) is present, as preview judges it",
            "severity": "blocker",
            "host": false,
            "status": "holds",
            "note": "5 layers after ceph present: storage, monitoring, gitops, registry, dataops",
            "findings": [],
            "source": {
                "title": "Rook: Health Verification (begin the upgrades in a fully healthy state; the rolling upgrade keeps the application pods that use the storage running)",
                "url": "https://rook.io/docs/rook/latest-release/Upgrade/health-verification/"
            }
        })
    );
    // Nothing after ceph: the rule holds and the gate reads only its own requests.
    let bed = bed_or_skip!(stack_bed("dirqual-gates", &[], "[k8s, cni, ceph]", ""));
    let r = gate(&bed, "rook", "1.17", true);
    r.code(0);
    assert_eq!(
        rule(&r, "rook-layers-after-present")["note"],
        "no layer after ceph in the stack"
    );
    assert_eq!(
        paths(&bed),
        [
            "/api/v1/namespaces/kube-system/pods",
            "/api/v1/nodes",
            "/apis/apps/v1/namespaces/rook-ceph/deployments",
            "/apis/apps/v1/namespaces/rook-ceph/deployments/rook-ceph-operator",
            "/apis/ceph.rook.io/v1/cephclusters",
        ]
        .map(String::from)
        .into_iter()
        .collect()
    );
    assert_read_only(&bed.server);
}

const CILIUM_ABSENT: &str = "gate upgrade cilium 1.18.5 on SERVER (context replay, rule: topology)
NO-GO: 2 blockers
blockers:
  cilium-layers-after-present  layer datalake
      absent: no CephObjectStore in rook-ceph; no StorageClass with provisioner
      rook-ceph.ceph.rook.io/bucket
      clears: install datalake first (kubectl nestor preview's plan), or remove
      it from the stack's layers:
  cilium-layers-after-present  layer certs
      absent: API group cert-manager.io not served
      clears: install certs first (kubectl nestor preview's plan), or remove it
      from the stack's layers:
holds:
  cilium-one-minor  1.18.2 -> 1.18.5: one minor at most
  cilium-one-version  2 workloads on one version
  cilium-present  agent 4/4, operator 2/2 pods ready
  cilium-k8s-range  1.18 supports 1.30 to 1.33; the control plane runs 1.31.4
  cilium-kubelet-range  1.18 supports 1.30 to 1.33; the 4 kubelets run v1.31.4
";

/// The SPEC §1 stack declares datalake and certs, which dirqual lacks: each is a blocker
/// with preview's evidence; a degraded later layer (Ceph in HEALTH_WARN on a check that is
/// not benign) is one too, in the same words as preview's.
#[test]
fn an_absent_or_degraded_later_layer_is_no_go() {
    let bed = bed_or_skip!(stack_bed("dirqual-gates", &[], LAYERS, ""));
    let r = gate(&bed, "cilium", "1.18.5", false);
    assert_eq!(stable(&r), CILIUM_ABSENT, "{r:?}");
    r.code(2);
    // Rook's gate on the same stack: the same two layers come after ceph.
    let r = gate(&bed, "rook", "1.17", true);
    r.code(2);
    let subjects: Vec<serde_json::Value> = rule(&r, "rook-layers-after-present")["findings"]
        .as_array()
        .map(|f| f.iter().map(|f| f["subject"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(subjects, ["layer datalake", "layer certs"]);
    assert_eq!(r.json()["verdict"]["blockers"], 2);
    assert_read_only(&bed.server);
    let warn = ceph_warn();
    let bed = bed_or_skip!(stack_bed("dirqual-gates", &[&warn], PRESENT, ""));
    let r = gate(&bed, "cilium", "1.18.5", true);
    r.code(2);
    let v = r.json();
    assert_eq!(v["verdict"]["blockers"], 1, "{v}");
    let preview = bed.run(&["preview", "--no-input", "-o", "json"]);
    let reason = layer(&preview.json(), "ceph")["reason"].clone();
    assert_eq!(
        rule(&r, "cilium-layers-after-present")["findings"],
        serde_json::json!([{
            "subject": "layer ceph",
            "evidence": format!("degraded: {}", reason.as_str().unwrap_or_default()),
            "clears": "repair ceph first (kubectl nestor preview shows what it lacks), then upgrade"
        }])
    );
    assert!(
        reason.as_str().unwrap_or_default().contains("MON_DISK_LOW"),
        "{reason}"
    );
    assert_read_only(&bed.server);
}

/// SPEC §6 and issue 49 item 5: an acknowledgement never opens a gate. A degraded later
/// layer whose every failing check the topology acknowledges is no work for preview, but the
/// gate stays NO-GO on it, the acknowledgement shown beside the blocker (v0.4 said GO).
#[test]
fn a_fully_acknowledged_later_layer_still_blocks_the_gate() {
    let warn = ceph_warn();
    let ack = format!(
        "acknowledged:\n  - check: ceph/health\n    reason: mon a disk replaced on Friday\n    until: {}\n",
        day(30)
    );
    let bed = bed_or_skip!(stack_bed("dirqual-gates", &[&warn], PRESENT, &ack));
    let r = gate(&bed, "cilium", "1.18.5", true);
    r.code(2);
    r.stderr_eq("");
    let rule = rule(&r, "cilium-layers-after-present");
    assert_eq!(rule["status"], "fails", "{rule}");
    assert_eq!(rule["findings"][0]["subject"], "layer ceph", "{rule}");
    assert!(
        rule["findings"][0]["evidence"]
            .as_str()
            .unwrap_or_default()
            .starts_with("degraded (acknowledged): "),
        "{rule}"
    );
    assert_eq!(
        rule["findings"][0]["clears"],
        "repair ceph first: its findings are acknowledged for preview, but an acknowledgement never opens a gate",
        "{rule}"
    );
}

/// A later layer whose read is forbidden is unknown: CANNOT TELL (exit 5), never GO, even
/// though every other rule holds; a stack without the component's layer cannot be judged
/// (exit 5, naming it), nor can a run without a stack.
#[test]
fn an_unknown_later_layer_or_no_component_layer_cannot_tell() {
    let bed = bed_or_skip!(stack_bed(
        "dirqual-gates",
        &["GET /apis/monitoring.coreos.com/v1/prometheuses=403"],
        PRESENT,
        ""
    ));
    let r = gate(&bed, "cilium", "1.18.5", true);
    r.code(5);
    let v = r.json();
    assert_eq!(
        v["verdict"]["undecided"],
        serde_json::json!(["cilium-layers-after-present"]),
        "{v}"
    );
    let note = rule(&r, "cilium-layers-after-present")["note"].clone();
    assert!(
        note.as_str()
            .unwrap_or_default()
            .starts_with("unknown: monitoring: "),
        "{note}"
    );
    assert_read_only(&bed.server);
    let bed = bed_or_skip!(stack_bed("dirqual-gates", &[], "[k8s, ceph, storage]", ""));
    let r = gate(&bed, "cilium", "1.18.5", true);
    r.code(5);
    assert_eq!(
        rule(&r, "cilium-layers-after-present")["note"],
        "layers-after not read: stack dirqual declares no cni layer (its layers: k8s, ceph, storage): nothing says which layers come after cilium"
    );
    // No stack at all (a kubeconfig named by flag, no active stack): the rule cannot be
    // judged either, and says how to name one.
    std::fs::remove_file(bed.stacks.join("current.yaml")).expect("unselect");
    let kubeconfig = bed.kubeconfig.display().to_string();
    let r = bed.run(&[
        "--kubeconfig",
        &kubeconfig,
        "gate",
        "upgrade",
        "rook",
        "1.17",
        "--no-input",
        "-o",
        "json",
    ]);
    r.code(5);
    assert_eq!(
        rule(&r, "rook-layers-after-present")["note"],
        "layers-after not read: no stack: the layers after ceph are a stack's (name one with --stack, or select one)"
    );
    assert_read_only(&bed.server);
}

/// The most GETs the server had in flight at one instant (each answer delayed so that
/// concurrent ones overlap), kubectl proxy's own `/version` left out.
fn peak_in_flight(bed: &E2e) -> usize {
    let mut edges: Vec<(u64, i64)> = Vec::new();
    for e in bed
        .server
        .audit()
        .into_iter()
        .filter(|e| e.path != "/version")
    {
        // Half-open intervals: an answer at t and an arrival at t do not overlap.
        edges.push((e.unix_ms, 1));
        edges.push((e.unix_ms + e.duration_ms.max(1), -1));
    }
    edges.sort_by_key(|(t, d)| (*t, *d));
    let (mut now, mut peak) = (0i64, 0i64);
    for (_, d) in edges {
        now += d;
        peak = peak.max(now);
    }
    usize::try_from(peak).unwrap_or(0)
}

/// The layers are read beside the component's own GETs, through the same proxy, in the same
/// round, and the two together stay within the run's bound of reads in flight
/// (`API_READS_IN_FLIGHT`, 64): more than the layers' GETs at once proves they overlap.
#[test]
fn the_layers_are_read_beside_the_component_within_the_bound() {
    let fixture = fixtures::by_name("dirqual-gates").expect("dirqual-gates");
    let bed = bed_or_skip!(E2e::with_config(Config::new(fixture).latency_ms(150)));
    bed.write_stack(
        "dirqual",
        &dirqual_topology(&bed.server.url()).replace(LAYERS, PRESENT),
    );
    let r = gate(&bed, "cilium", "1.18.5", false);
    r.code(0);
    let peak = peak_in_flight(&bed);
    eprintln!("measured: {peak} GETs in flight at most");
    assert!(peak <= 64, "{peak} GETs in flight at once");
    // The layers' first round is 32 GETs (PRESENT's layers), the component's own 4.
    assert!(
        peak > 32,
        "the component's and the layers' reads did not overlap: {peak}"
    );
    assert_read_only(&bed.server);
}
