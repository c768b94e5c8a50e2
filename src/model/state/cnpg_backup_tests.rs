//! `dataops/pg-wal-archiving` and `dataops/pg-last-backup` (SPEC §6 v0.4 "The operators' own
//! status, complete"): a CNPG Cluster whose `ContinuousArchiving` condition is `False` is
//! degraded in CNPG's words, however "Cluster in healthy state" its phase reads; one with
//! backups configured (`spec.backup`) whose `status.lastSuccessfulBackup` is older than 26h,
//! or missing, is degraded. Shapes from CNPG's Cluster type and its instance manager's
//! condition (`ContinuousArchivingSuccess` / `ContinuousArchivingFailing`).

use serde_json::{json, Value};

use super::fixtures::dirqual;
use super::{evaluate, State};
use crate::model::catalog::Catalog;
use crate::model::observation::{Observation, ReadRequest};

const CLUSTERS: &str = "clusters.postgresql.cnpg.io";
/// The reading time of [`dirqual`]: 2026-01-12T08:42:20Z.
const TWO_HOURS_AGO: &str = "2026-01-12T06:42:20Z";
const THREE_DAYS_AGO: &str = "2026-01-09T08:42:20Z";

/// A healthy CNPG Cluster dataops/`name`, with `backup` as its `spec.backup` and `status`
/// merged into its status.
fn cluster(name: &str, backup: Option<Value>, status: Value) -> Value {
    let mut spec = json!({"instances": 3});
    if let Some(b) = backup {
        spec["backup"] = b;
    }
    let mut s = json!({"instances": 3, "readyInstances": 3, "phase": "Cluster in healthy state"});
    for (k, v) in status.as_object().unwrap() {
        s[k] = v.clone();
    }
    json!({"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
           "metadata": {"name": name, "namespace": "dataops"}, "spec": spec, "status": s})
}

fn barman() -> Option<Value> {
    Some(
        json!({"barmanObjectStore": {"destinationPath": "s3://pg-backups/", "endpointURL": "http://rook-ceph-rgw-s3.rook-ceph.svc"},
                "retentionPolicy": "30d"}),
    )
}

fn archiving(status: &str, reason: &str, message: &str) -> Value {
    json!([{"type": "Ready", "status": "True", "reason": "ClusterIsReady", "message": "Cluster is Ready"},
           {"type": "ContinuousArchiving", "status": status, "reason": reason, "message": message,
            "lastTransitionTime": "2026-01-12T07:00:00Z"}])
}

fn judged(items: Vec<Value>) -> (State, Vec<String>) {
    let mut obs: Observation = dirqual();
    obs.resources.remove(CLUSTERS);
    let list = json!({"apiVersion": "postgresql.cnpg.io/v1", "kind": "ClusterList",
                      "metadata": {}, "items": items});
    obs.record(
        &ReadRequest::Resource(CLUSTERS.into()),
        Ok(&list.to_string()),
    );
    let catalog = Catalog::builtin().unwrap();
    let r = evaluate(&catalog, &["dataops".to_string()], &[], &obs).remove(0);
    (r.state, r.evidence)
}

fn line<'a>(evidence: &'a [String], head: &str) -> &'a str {
    evidence
        .iter()
        .find(|l| l.contains(head))
        .map_or("<no such line>", String::as_str)
}

#[test]
fn archiving_that_failed_degrades_dataops_in_cnpgs_words() {
    let (state, evidence) = judged(vec![cluster(
        "pg",
        barman(),
        json!({"lastSuccessfulBackup": TWO_HOURS_AGO,
               "conditions": archiving("False", "ContinuousArchivingFailing",
                   "unexpected failure invoking barman-cloud-wal-archive: exit status 4")}),
    )]);
    assert_eq!(state, State::Degraded);
    assert_eq!(
        line(&evidence, "ContinuousArchiving"),
        "0/1 Cluster ContinuousArchiving not False; not: Cluster dataops/pg ContinuousArchiving=False (ContinuousArchivingFailing: unexpected failure invoking barman-cloud-wal-archive: exit status 4)"
    );
    assert_eq!(
        line(&evidence, "lastSuccessfulBackup"),
        "1/1 Cluster with .spec.backup .status.lastSuccessfulBackup at most 26h ago"
    );
}

#[test]
fn archiving_that_works_or_was_never_set_up_holds() {
    let (state, evidence) = judged(vec![
        cluster(
            "pg",
            barman(),
            json!({"lastSuccessfulBackup": TWO_HOURS_AGO,
                   "conditions": archiving("True", "ContinuousArchivingSuccess", "Continuous archiving is working")}),
        ),
        cluster("pg-scratch", None, json!({})),
    ]);
    assert_eq!(state, State::Present, "{evidence:#?}");
    assert_eq!(
        line(&evidence, "ContinuousArchiving"),
        "2/2 Cluster ContinuousArchiving not False"
    );
    assert_eq!(
        line(&evidence, "lastSuccessfulBackup"),
        "1/1 Cluster with .spec.backup .status.lastSuccessfulBackup at most 26h ago"
    );
}

#[test]
fn a_backup_older_than_26h_or_none_at_all_degrades_dataops() {
    let (state, evidence) = judged(vec![
        cluster(
            "pg",
            barman(),
            json!({"lastSuccessfulBackup": THREE_DAYS_AGO}),
        ),
        cluster("pg-new", barman(), json!({})),
        cluster(
            "pg-ahead",
            barman(),
            json!({"lastSuccessfulBackup": "2026-01-13T08:42:20Z"}),
        ),
    ]);
    assert_eq!(state, State::Degraded);
    assert_eq!(
        line(&evidence, "lastSuccessfulBackup"),
        "0/3 Cluster with .spec.backup .status.lastSuccessfulBackup at most 26h ago; not: Cluster dataops/pg .status.lastSuccessfulBackup = 2026-01-09T08:42:20Z (3d ago; want at most 26h); Cluster dataops/pg-new has no .status.lastSuccessfulBackup; Cluster dataops/pg-ahead .status.lastSuccessfulBackup = 2026-01-13T08:42:20Z (24h after the reading: a clock ahead, never fresh)"
    );
}

#[test]
fn clusters_without_backups_configured_have_nothing_to_judge() {
    let (state, evidence) = judged(vec![cluster("pg", None, json!({}))]);
    assert_eq!(state, State::Present, "{evidence:#?}");
    assert_eq!(
        line(&evidence, "without .spec.backup"),
        "Cluster dataops/pg without .spec.backup: nothing to judge"
    );
}
