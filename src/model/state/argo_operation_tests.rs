//! `gitops/apps-last-operation` and `gitops/apps-no-error-conditions` (SPEC §6 v0.4 "The
//! operators' own status, complete"): an Argo CD Application whose
//! `status.operationState.phase` is `Failed` or `Error` degrades `gitops` naming it and
//! quoting the operation's message, however Synced and Healthy it still reads; one that never
//! ran an operation (no `operationState`, as Argo CD writes a new Application) passes. An
//! Application carrying one of Argo CD's error conditions (`ComparisonError`, ... : a type and
//! a message, no status) degrades it quoting the message; a warning condition does not.
//! Shapes from Argo CD's Application type (`status.operationState.{phase,message}`,
//! `status.conditions[].{type,message,lastTransitionTime}`).

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

/// The evidence line of the check whose line starts with `head`.
fn line<'a>(evidence: &'a [String], head: &str) -> &'a str {
    evidence
        .iter()
        .find(|l| l.contains(head))
        .map_or("<no such line>", String::as_str)
}

const LAST_OPERATION: &str = "Application .status.operationState.phase not in";
const ERROR_CONDITIONS: &str = "Application without ComparisonError";

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
        line(&evidence, LAST_OPERATION),
        "1/3 Application .status.operationState.phase not in Failed, Error; not: Application argocd/dagster .status.operationState.phase = Failed (want none of Failed, Error): \"one or more synchronization tasks completed unsuccessfully\"; Application argocd/marquez .status.operationState.phase = Error (want none of Failed, Error): \"ComparisonError: rpc error\""
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
        line(&evidence, LAST_OPERATION),
        "3/3 Application .status.operationState.phase not in Failed, Error"
    );
}

/// `app` with `conditions` as its `status.conditions`.
fn with_conditions(name: &str, conditions: Value) -> Value {
    let mut a = app(name, None);
    a["status"]["conditions"] = conditions;
    a
}

#[test]
fn an_error_condition_degrades_gitops_quoting_its_message_and_a_warning_does_not() {
    let (state, evidence) = judged(vec![
        with_conditions(
            "dagster",
            json!([{"type": "ComparisonError",
                    "message": "Failed to load target state: rpc error: code = Unknown desc = authentication required",
                    "lastTransitionTime": "2026-12-01T09:12:00Z"}]),
        ),
        with_conditions(
            "guestbook",
            json!([{"type": "SharedResourceWarning",
                    "message": "ConfigMap/shared is part of applications argocd/guestbook and other",
                    "lastTransitionTime": "2026-12-01T09:12:00Z"}]),
        ),
    ]);
    assert_eq!(state, State::Degraded);
    assert_eq!(
        line(&evidence, ERROR_CONDITIONS),
        "1/2 Application without ComparisonError, InvalidSpecError, SyncError, DeletionError, UnknownError; not: Application argocd/dagster ComparisonError (Failed to load target state: rpc error: code = Unknown desc = authentication required)"
    );
}

#[test]
fn applications_without_error_conditions_hold() {
    let (state, evidence) = judged(vec![
        app("guestbook", None),
        with_conditions(
            "marquez",
            json!([{"type": "OrphanedResourceWarning", "message": "Application has 1 orphaned resources"}]),
        ),
    ]);
    assert_eq!(state, State::Present, "{evidence:#?}");
    assert_eq!(
        line(&evidence, ERROR_CONDITIONS),
        "2/2 Application without ComparisonError, InvalidSpecError, SyncError, DeletionError, UnknownError"
    );
}
