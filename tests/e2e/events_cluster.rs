//! Warning Events about cluster-scoped failing objects (issue 34 item 4): a Node degrading
//! `k8s` and a Failed PersistentVolume degrading `storage` have no namespace, so their Events
//! are in `default` (fixtures `events-node`, `events-volume`: shaped as events.k8s.io/v1
//! serves what the kubelet and the external-provisioner recorded). Through the real kubectl
//! against the replay server: `default` read once by `type=Warning` with a `limit`, an Event
//! matched by kind and name with no namespace; another node's, a Pod's and a Normal one left
//! out; a forbidden `default` only says so.

use serde_json::json;

use crate::bed_or_skip;
use crate::support::*;

const DEFAULT: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

fn check(v: &serde_json::Value, layer_id: &str, id: &str) -> serde_json::Value {
    layer(v, layer_id)["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == id).cloned())
        .unwrap_or_default()
}

/// (object, reason, count, message) of each Event quoted under the check.
fn quoted(c: &serde_json::Value) -> Vec<serde_json::Value> {
    c["events"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|e| json!([e["object"], e["reason"], e["count"], e["message"]]))
        .collect()
}

/// Every Events request of the run, as (path, query), sorted.
fn event_reads(bed: &E2e) -> Vec<(String, String)> {
    let mut reads: Vec<(String, String)> = bed
        .server
        .audit()
        .into_iter()
        .filter(|e| e.path.contains("events"))
        .map(|e| (e.path, e.query))
        .collect();
    reads.sort();
    reads
}

const WARNINGS: &str = "fieldSelector=type%3DWarning&limit=100";

#[test]
fn a_node_under_disk_pressure_quotes_its_kubelets_warnings_from_default() {
    let bed = bed_or_skip!(E2e::new("events-node", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    assert_eq!(layer(&v, "k8s")["state"], "degraded");
    let c = check(&v, "k8s", "k8s/schedulable");
    // Newest first; dirqual3's Rebooted, the evicted Pod's and the Normal one left out.
    assert_eq!(
        quoted(&c),
        [
            json!(["Node dirqual2", "EvictionThresholdMet", 6, "Attempting to reclaim ephemeral-storage"]),
            json!(["Node dirqual2", "ImageGCFailed", 3, "Failed to garbage collect required amount of images. Attempted to free 4125097164 bytes, but only found 0 bytes eligible to free."]),
        ],
        "{c:#}"
    );
    assert!(c.get("eventsNotRead").is_none(), "{c:#}");
    // `default` once, Warnings only, with a limit; never the cluster's Events.
    assert_eq!(
        event_reads(&bed),
        [(DEFAULT.to_string(), WARNINGS.to_string())]
    );
    assert_read_only(&bed.server);
}

#[test]
fn the_text_quotes_the_node_and_explain_reads_default() {
    let bed = bed_or_skip!(E2e::new("events-node", &[]));
    let r = bed.run(&["preview", "--no-input", "--no-color", "--explain"]);
    r.code(0);
    let text = bed.stable(&r.stdout);
    let ours: Vec<&str> = text.lines().filter(|l| l.contains("↳")).collect();
    assert_eq!(
        ours,
        [
            "      ↳ Warning EvictionThresholdMet (6×, 4m ago) on Node dirqual2: Attempting",
            "      ↳ Warning ImageGCFailed (3×, 12m ago) on Node dirqual2: Failed to garbage",
        ],
        "{text}"
    );
    assert!(!text.contains("Rebooted"), "{text}");
    assert!(
        text.contains("--context replay get events.events.k8s.io -n default -o"),
        "{text}"
    );
}

#[test]
fn a_forbidden_default_adds_events_not_read_and_changes_nothing_else() {
    let bed = bed_or_skip!(E2e::new("events-node", &[&format!("{DEFAULT}=403")]));
    let r = bed.run(&["preview", "--no-input", "-o", "json", "--detailed-exitcode"]);
    let plain = bed_or_skip!(E2e::new("node-disk-pressure", &[]));
    let without = plain.run(&["preview", "--no-input", "-o", "json", "--detailed-exitcode"]);
    assert_eq!(r.code, without.code);
    let (v, w) = (r.json(), without.json());
    assert_eq!(states(&v), states(&w));
    for key in ["state", "reason", "evidence"] {
        assert_eq!(layer(&v, "k8s")[key], layer(&w, "k8s")[key], "{key}");
    }
    assert_eq!(plan_ids(&v, "repair"), plan_ids(&w, "repair"));
    let c = check(&v, "k8s", "k8s/schedulable");
    assert_eq!(
        c["eventsNotRead"],
        json!(["events not read in default: Forbidden"])
    );
    assert!(c.get("events").is_none(), "{c:#}");
    // Without the Events the check is what it was.
    let mut bare = c.clone();
    if let Some(o) = bare.as_object_mut() {
        o.remove("eventsNotRead");
    }
    assert_eq!(bare, check(&w, "k8s", "k8s/schedulable"));
}

#[test]
fn a_failed_volume_quotes_its_warnings_from_default_beside_the_claims() {
    let bed = bed_or_skip!(E2e::new("events-volume", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    assert_eq!(layer(&v, "storage")["state"], "degraded");
    let c = check(&v, "storage", "storage/claims");
    let failed = c["evidence"]
        .as_str()
        .and_then(|e| e.split("PersistentVolume ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default()
        .to_string();
    assert!(failed.starts_with("pvc-"), "{c:#}");
    // The other volume's Event is left out.
    assert_eq!(
        quoted(&c),
        [json!([
            format!("PersistentVolume {failed}"),
            "VolumeFailedDelete",
            9,
            "rpc error: code = Internal desc = rbd: ret=-16, Device or resource busy"
        ])],
        "{c:#}"
    );
    let paths: Vec<String> = event_reads(&bed).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        paths,
        [
            DEFAULT,
            "/apis/events.k8s.io/v1/namespaces/gitea/events",
            "/apis/events.k8s.io/v1/namespaces/monitoring/events",
        ]
    );
}
