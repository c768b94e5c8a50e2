//! `cni-encryption` (SPEC §15, bench #16) through the REAL kubectl: the `wireguard` fixtures
//! of `crates/replay` (healthy, one thing wrong in each other), read by the plugin on both
//! read paths; each failure gives its state and evidence in text and JSON, naming the node
//! or the agent, the off/unset cases install (never repair), and every request is a GET:
//! CiliumNodes listed, kube-system's pods only by `k8s-app=cilium`, cilium-config by name.

use nestor_replay::wireguard::{T_STALE, T_UPGRADE};

use snapbox::str;

use crate::bed_or_skip;
use crate::harness::text_snap;
use crate::support::*;

fn bed(fixture: &str) -> Option<E2e> {
    let bed = E2e::new(fixture, &[])?;
    let with = LAYERS.replace(']', ", cni-encryption]");
    bed.write_stack(
        "dirqual",
        &dirqual_topology(&bed.server.url()).replace(LAYERS, &with),
    );
    Some(bed)
}

/// The cni-encryption layer of a Preview document.
fn layer(v: &serde_json::Value) -> serde_json::Value {
    crate::support::layer(v, "cni-encryption")
}

/// What every run of these fixtures must show of its requests: GETs only, no secret, no
/// ConfigMap but cilium-config by name, no pod list but kube-system's agents by label.
fn assert_minimal_reads(bed: &E2e) {
    assert_read_only(&bed.server);
    for e in bed.server.audit() {
        assert!(!e.path.contains("/secrets"), "{}", e.path);
        if e.path.contains("/configmaps") {
            assert!(
                e.path == "/api/v1/namespaces/kube-system/configmaps/cilium-config"
                    || e.path == "/api/v1/namespaces/rook-ceph/configmaps/rook-ceph-mon-endpoints",
                "a ConfigMap read not by name: {}",
                e.path
            );
        }
        // The agents by their label; Rook's mons and OSDs by theirs (ceph's placement).
        if e.path == "/api/v1/namespaces/rook-ceph/pods" {
            assert!(
                e.query.starts_with("labelSelector=app%3Drook-ceph-mon&")
                    || e.query.starts_with("labelSelector=app%3Drook-ceph-osd&"),
                "{e:?}"
            );
        } else if e.path.ends_with("/pods") {
            assert_eq!(e.path, "/api/v1/namespaces/kube-system/pods", "{e:?}");
            assert!(
                e.query.contains("labelSelector=k8s-app%3Dcilium")
                    || e.query.contains("labelSelector=component%3Dkube-apiserver"),
                "{e:?}"
            );
        }
    }
    assert!(bed.requests_to("/api/v1/pods").is_empty());
}

/// `preview` as JSON and text: the layer is `state` with `line` in its evidence in both
/// outputs; a degraded layer is repaired, an absent one installed.
fn expect(bed: &E2e, state: &str, line: &str) -> serde_json::Value {
    let json = run(&bed.command(&["preview", "--no-input", "-o", "json"]));
    assert_eq!(json.code, Some(0), "{json:?}");
    let v = json.json();
    let text = run(&bed.command(&["preview", "--no-input", "--no-color"]));
    assert_eq!(text.code, Some(0), "{text:?}");
    let l = layer(&v);
    assert_eq!(l["state"], state, "{l}");
    assert_evidence_has(&v, "cni-encryption", line);
    // The text wraps long evidence; a present layer shows its count of checks only.
    let flat = text.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = match state {
        "present" => "cni-encryption present 3 checks hold",
        _ => line,
    };
    assert!(
        flat.contains(shown),
        "text lacks {shown:?}:\n{}",
        text.stdout
    );
    let (repair, install) = (plan_ids(&v, "repair"), plan_ids(&v, "install"));
    let id = "cni-encryption".to_string();
    match state {
        "degraded" => assert!(repair.contains(&id) && !install.contains(&id), "{v}"),
        "absent" => assert!(install.contains(&id) && !repair.contains(&id), "{v}"),
        _ => assert!(!repair.contains(&id) && !install.contains(&id), "{v}"),
    }
    assert_minimal_reads(bed);
    v
}

#[test]
fn wireguard_healthy_cluster_is_present_with_every_key_and_fresh_agents() {
    let bed = bed_or_skip!(bed("wireguard"));
    let v = expect(
        &bed,
        "present",
        "every CiliumNode (4) carries network.cilium.io/wg-pub-key, values distinct",
    );
    // The whole evidence: every running cilium-agent (4) started after the ConfigMap last
    // changed (T_UPGRADE), `enable-wireguard = true`.
    let ev = serde_json::to_string_pretty(&layer(&v)["evidence"]).unwrap_or_default();
    text_snap(
        &ev,
        str![[r#"
[
  "ConfigMap kube-system/cilium-config enable-wireguard = true",
  "every CiliumNode (4) carries network.cilium.io/wg-pub-key, values distinct",
  "every running cilium-agent (4) started after ConfigMap kube-system/cilium-config last changed (2026-11-30T09:30:00Z)"
]
"#]],
    );
    // The agents' pods were asked for by label; coredns (another kube-system pod, started
    // long before) never reached a verdict: not a word of the evidence above.
    assert!(!bed
        .requests_to("/api/v1/namespaces/kube-system/pods")
        .is_empty());
}

#[test]
fn wireguard_node_without_its_key_is_named() {
    let bed = bed_or_skip!(bed("wireguard-key-missing"));
    expect(
        &bed,
        "degraded",
        "CiliumNode dirqual3 without network.cilium.io/wg-pub-key",
    );
}

#[test]
fn wireguard_two_nodes_with_one_key_are_named() {
    let bed = bed_or_skip!(bed("wireguard-key-shared"));
    expect(
        &bed,
        "degraded",
        "CiliumNode dirqual2, dirqual4 share one network.cilium.io/wg-pub-key value",
    );
}

#[test]
fn wireguard_agent_started_before_the_config_changed_is_named_with_the_time() {
    let bed = bed_or_skip!(bed("wireguard-stale-agent"));
    let v = expect(
        &bed,
        "degraded",
        &format!("cilium-agent in cilium-7qz9m (dirqual2) runs the config of before {T_UPGRADE}, when ConfigMap kube-system/cilium-config last changed: restart DaemonSet cilium"),
    );
    // Only the stale one is named (the whole evidence); its start time is the fixture's.
    let ev = serde_json::to_string_pretty(&layer(&v)["evidence"]).unwrap_or_default();
    text_snap(
        &ev,
        str![[r#"
[
  "ConfigMap kube-system/cilium-config enable-wireguard = true",
  "every CiliumNode (4) carries network.cilium.io/wg-pub-key, values distinct",
  "cilium-agent in cilium-7qz9m (dirqual2) runs the config of before 2026-11-30T09:30:00Z, when ConfigMap kube-system/cilium-config last changed: restart DaemonSet cilium"
]
"#]],
    );
    assert!(T_STALE < T_UPGRADE);
}

#[test]
fn wireguard_older_annotation_spelling_is_accepted() {
    let bed = bed_or_skip!(bed("wireguard-old-annotation"));
    expect(
        &bed,
        "present",
        "values distinct (1 by the older spelling io.cilium.network.wg-pub-key)",
    );
}

#[test]
fn wireguard_off_or_unset_is_absent_and_installed_never_degraded() {
    for (fixture, line) in [
        (
            "wireguard-off",
            "ConfigMap kube-system/cilium-config enable-wireguard = false (want true)",
        ),
        (
            "wireguard-unset",
            "ConfigMap kube-system/cilium-config has no enable-wireguard",
        ),
    ] {
        let bed = bed_or_skip!(bed(fixture));
        expect(&bed, "absent", line);
    }
}

/// `--explain`: each evidence line of the layer comes with the read that shows it by hand,
/// the CiliumNodes' two annotations and the agents' pods by their label (allowlisted forms:
/// a refused one would not be shown).
#[test]
fn wireguard_explain_shows_each_check_by_hand() {
    let bed = bed_or_skip!(bed("wireguard-stale-agent"));
    let out = bed.run(&["preview", "--no-input", "--explain", "-o", "json"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let l = layer(&out.json());
    // Every evidence line with its command, whole: the stale agent's by `get pods -n
    // kube-system -l k8s-app=cilium` (its cilium-agent container), the keys' by `get
    // ciliumnodes.cilium.io` (the wg-pub-key annotations).
    let explain = serde_json::to_string_pretty(&l["explain"]).unwrap_or_default();
    text_snap(
        &bed.stable(&explain),
        str![[r#"
[
  {
    "command": "kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get configmap cilium-config --ignore-not-found -n kube-system -o 'jsonpath={.data.enable-wireguard}'",
    "evidence": "ConfigMap kube-system/cilium-config enable-wireguard = true"
  },
  {
    "command": "kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get ciliumnodes.cilium.io -A -o 'jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations.network\\.cilium\\.io/wg-pub-key} {.metadata.annotations.io\\.cilium\\.network\\.wg-pub-key}{\"\\n\"}{end}'",
    "evidence": "every CiliumNode (4) carries network.cilium.io/wg-pub-key, values distinct"
  },
  {
    "command": "kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get pods -n kube-system -l k8s-app=cilium -o 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.containerStatuses[?(@.name==\"cilium-agent\")].state.running.startedAt}{\"\\n\"}{end}'",
    "evidence": "cilium-agent in cilium-7qz9m (dirqual2) runs the config of before 2026-11-30T09:30:00Z, when ConfigMap kube-system/cilium-config last changed: restart DaemonSet cilium"
  }
]
"#]],
    );
    assert_read_only(&bed.server);
}
