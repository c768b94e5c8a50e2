//! `gitops/apps-last-operation` (SPEC §6 v0.4 "The operators' own status, complete"): an
//! Argo CD Application whose `status.operationState.phase` is `Failed` or `Error` degrades
//! `gitops` naming it, however Synced and Healthy it still reads; one that never ran an
//! operation (no `operationState`, as Argo CD writes a new Application) passes. Shapes from
//! Argo CD's Application type (`status.operationState.{phase,message}`).
#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};

use super::fixtures::dirqual;
use super::{evaluate, State};
use crate::model::catalog::Catalog;
use crate::model::observation::{Observation, ReadRequest};

const APPLICATIONS: &str = "applications.argoproj.io";

/// A Synced, Healthy Application with `operation` as its `status.operationState`.
fn app(name: &str, operation: Option<Value>) -> Value {
    let mut status = json!({"sync": {"status": "Synced"}, "health": {"status": "Healthy"}});
    if let Some(op) = operation {
        status["operationState"] = op;
    }
    json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
           "metadata": {"name": name, "namespace": "argocd"}, "status": status})
}

fn judged(items: Vec<Value>) -> (State, Vec<String>) {
    let mut obs: Observation = dirqual();
    obs.resources.remove(APPLICATIONS);
    let list = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationList",
                      "metadata": {}, "items": items});
    obs.record(
        &ReadRequest::Resource(APPLICATIONS.into()),
        Ok(&list.to_string()),
    );
    let catalog = Catalog::builtin().unwrap();
    let r = evaluate(&catalog, &["gitops".to_string()], &[], &obs).remove(0);
    (r.state, r.evidence)
}

#[test]
fn a_failed_or_errored_last_operation_degrades_gitops_naming_the_application() {
    let (state, evidence) = judged(vec![
        app(
            "guestbook",
            Some(json!({"phase": "Succeeded", "message": "successfully synced (all tasks run)"})),
        ),
        app(
            "dagster",
            Some(
                json!({"phase": "Failed", "message": "one or more synchronization tasks completed unsuccessfully"}),
            ),
        ),
        app(
            "marquez",
            Some(json!({"phase": "Error", "message": "ComparisonError: rpc error"})),
        ),
    ]);
    assert_eq!(state, State::Degraded);
    assert_eq!(
        evidence.last().unwrap(),
        "1/3 Application .status.operationState.phase not in Failed, Error; not: Application argocd/dagster .status.operationState.phase = Failed (want none of Failed, Error); Application argocd/marquez .status.operationState.phase = Error (want none of Failed, Error)"
    );
}

#[test]
fn a_succeeded_running_or_absent_operation_holds() {
    let (state, evidence) = judged(vec![
        app("guestbook", Some(json!({"phase": "Succeeded"}))),
        app("dagster", Some(json!({"phase": "Running"}))),
        app("fresh", None),
    ]);
    assert_eq!(state, State::Present, "{evidence:#?}");
    assert_eq!(
        evidence.last().unwrap(),
        "3/3 Application .status.operationState.phase not in Failed, Error"
    );
}
