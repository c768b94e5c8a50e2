//! Warning Events as evidence (issue 34 item 4, SPEC §6 v0.4 "Warnings explain"): the
//! claims of `claims-degraded` with the Events the PersistentVolume controller and the
//! external-provisioner record about them (`events.k8s.io/v1`, shaped as the API server
//! serves them), through the real kubectl against the replay server. `storage` stays
//! degraded by its claims and quotes at most three recent Warnings about its failing
//! claims, newest first: the Normal one, the one older than an hour, the one about another
//! object and the fourth are left out; a hostile note is escaped and capped. The reads: one
//! Events list per namespace of the failing claims, by `type=Warning` with a `limit`, never
//! the cluster's; a healthy cluster sends no Events request; a forbidden one changes neither
//! the state nor the exit code.

use serde_json::json;

use crate::bed_or_skip;
use crate::support::*;

const MONITORING: &str = "/apis/events.k8s.io/v1/namespaces/monitoring/events";
const GITEA: &str = "/apis/events.k8s.io/v1/namespaces/gitea/events";
const DEFAULT: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// The storage layer's claims check (`storage/claims`).
fn claims_check(v: &serde_json::Value) -> serde_json::Value {
    layer(v, "storage")["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == "storage/claims").cloned())
        .unwrap_or_default()
}

/// Every Events request of the run, as (path, query).
fn event_reads(bed: &E2e) -> Vec<(String, String)> {
    bed.server
        .audit()
        .into_iter()
        .filter(|e| e.path.contains("events"))
        .map(|e| (e.path, e.query))
        .collect()
}

const AM: &str = "PersistentVolumeClaim monitoring/alertmanager-main-db-alertmanager-main-0";

#[test]
fn a_degraded_layer_quotes_three_recent_warnings_about_its_failing_objects() {
    let bed = bed_or_skip!(E2e::new("events-degraded", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    let l = layer(&v, "storage");
    assert_eq!(l["state"], "degraded", "{l:#}");
    assert_eq!(plan_ids(&v, "repair"), ["storage"]);
    let c = claims_check(&v);
    let quoted: Vec<serde_json::Value> = c["events"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|e| json!([e["object"], e["reason"], e["count"], e["message"]]))
        .collect();
    // Escaped first, then capped at 200 characters of what is printed.
    let head = "failed to provision volume with StorageClass \"ceph-block\": rpc error: \\x1b[2J\\x1b]0;owned\\x07 ";
    let hostile = format!("{head}{}…", "x".repeat(200 - head.chars().count()));
    assert_eq!(
        quoted,
        [
            json!([AM, "ProvisioningFailed", 14, "failed to provision volume with StorageClass \"ceph-block\": rpc error: code = DeadlineExceeded desc = context deadline exceeded"]),
            json!(["PersistentVolumeClaim gitea/data-gitea-0", "ClaimLost", 1, "Bound claim has lost its PersistentVolume. Data on the volume is lost!"]),
            json!([AM, "ProvisioningFailed", 1, hostile]),
        ],
        "{c:#}"
    );
    assert!(c.get("eventsNotRead").is_none(), "{c:#}");
    // One list per namespace of the failing claims, Warnings only, with a limit.
    let reads = event_reads(&bed);
    let mut paths: Vec<&str> = reads.iter().map(|(p, _)| p.as_str()).collect();
    paths.sort();
    // `default` too: the Failed volume's Events (it is cluster-scoped).
    assert_eq!(paths, [DEFAULT, GITEA, MONITORING], "{reads:#?}");
    for (_, q) in &reads {
        assert_eq!(q, "fieldSelector=type%3DWarning&limit=100");
    }
    assert_read_only(&bed.server);
}

#[test]
fn the_text_shows_the_warnings_under_their_check_and_explain_its_command() {
    let bed = bed_or_skip!(E2e::new("events-degraded", &[]));
    let r = bed.run(&["preview", "--no-input", "--no-color", "--explain"]);
    r.code(0);
    let text = bed.stable(&r.stdout);
    let ours: Vec<&str> = text.lines().filter(|l| l.contains("↳")).collect();
    assert_eq!(ours.len(), 3, "{text}");
    assert_eq!(
        ours,
        [
            "      ↳ Warning ProvisioningFailed (14×, 2m ago) on PersistentVolumeClaim",
            "      ↳ Warning ClaimLost (1×, 10m ago) on PersistentVolumeClaim",
            "      ↳ Warning ProvisioningFailed (1×, 30m ago) on PersistentVolumeClaim",
        ],
        "{text}"
    );
    assert!(text.contains("\\x1b[2J\\x1b]0;owned\\x07"), "{text}");
    assert!(!text.contains('\u{1b}'), "a raw ESC reached the terminal");
    assert!(
        text.contains("kubectl --kubeconfig /t/home/.kube/dirqual.config --context replay get events.events.k8s.io -n monitoring -o"),
        "{text}"
    );
}

#[test]
fn a_healthy_cluster_sends_no_events_request() {
    let bed = bed_or_skip!(E2e::new("claims-bound", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    let v = r.json();
    assert_eq!(layer(&v, "storage")["state"], "present");
    let degraded: Vec<&serde_json::Value> = v["real"]["layers"]
        .as_array()
        .map(|a| a.iter().filter(|l| l["state"] == "degraded").collect())
        .unwrap_or_default();
    assert!(degraded.is_empty(), "{degraded:#?}");
    assert_eq!(event_reads(&bed), Vec::<(String, String)>::new());
}

#[test]
fn a_forbidden_events_read_changes_neither_the_state_nor_the_exit_code() {
    let bed = bed_or_skip!(E2e::new("events-degraded", &[&format!("{MONITORING}=403")]));
    let r = bed.run(&["preview", "--no-input", "-o", "json", "--detailed-exitcode"]);
    let plain = bed_or_skip!(E2e::new("claims-degraded", &[]));
    let without = plain.run(&["preview", "--no-input", "-o", "json", "--detailed-exitcode"]);
    assert_eq!(r.code, without.code);
    let (v, w) = (r.json(), without.json());
    assert_eq!(layer(&v, "storage")["state"], "degraded");
    assert_eq!(
        layer(&v, "storage")["reason"],
        layer(&w, "storage")["reason"]
    );
    assert_eq!(
        layer(&v, "storage")["evidence"],
        layer(&w, "storage")["evidence"]
    );
    let c = claims_check(&v);
    assert_eq!(
        c["eventsNotRead"],
        json!(["events not read in monitoring: Forbidden"])
    );
    // The other namespace's Warnings are still quoted.
    let reasons: Vec<&serde_json::Value> = c["events"]
        .as_array()
        .map(|a| a.iter().map(|e| &e["reason"]).collect())
        .unwrap_or_default();
    assert_eq!(
        reasons,
        [&json!("ClaimLost"), &json!("FailedBinding")],
        "{c:#}"
    );
}

/// A saved observation keeps the Events read: `--snapshot` quotes the same Warnings, with no
/// cluster at all.
#[test]
fn a_snapshot_replays_the_same_quotes() {
    let bed = bed_or_skip!(E2e::new("events-degraded", &[]));
    let snap = bed.tmp.path().join("events.json").display().to_string();
    let live = bed.run(&["preview", "--no-input", "--save", &snap, "-o", "json"]);
    live.code(0);
    let replay = bed.run(&["preview", "--snapshot", &snap, "-o", "json"]);
    replay.code(0);
    let quoted = |v: &serde_json::Value| claims_check(v)["events"].clone();
    let want = quoted(&live.json());
    assert_eq!(want.as_array().map(Vec::len), Some(3), "{want:#}");
    assert_eq!(quoted(&replay.json()), want);
}

/// An `all` check's failing objects, by the catalog's `kind:` (issue 34 item 4): Argo CD's
/// Warning about the Application whose sync failed is quoted once, under the first failing
/// check naming it; the one about another, healthy Application and the Normal one are not.
#[test]
fn an_all_checks_failing_application_quotes_argo_cds_warning() {
    let bed = bed_or_skip!(E2e::new("events-app", &[]));
    let r = bed.run(&["preview", "--no-input", "-o", "json"]);
    r.code(0);
    let v = r.json();
    crate::doc_schema::check(&v);
    let l = layer(&v, "gitops");
    assert_eq!(l["state"], "degraded", "{l:#}");
    let quoted: Vec<serde_json::Value> = l["checks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .flat_map(|c| {
            let id = c["id"].clone();
            c["events"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |e| json!([id, e["object"], e["reason"], e["message"]]))
        })
        .collect();
    assert_eq!(
        quoted,
        [json!([
            "gitops/apps-last-operation",
            "Application argocd/marquez",
            "OperationCompleted",
            "Sync operation to 9b2d7c1e5a40 failed: one or more synchronization tasks completed unsuccessfully"
        ])],
        "{l:#}"
    );
    let reads = event_reads(&bed);
    assert_eq!(
        reads,
        [(
            "/apis/events.k8s.io/v1/namespaces/argocd/events".to_string(),
            "fieldSelector=type%3DWarning&limit=100".to_string()
        )]
    );
}
