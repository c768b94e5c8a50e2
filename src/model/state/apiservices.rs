//! `apiServices` (SPEC §6 v0.4 "Aggregated APIs and webhooks must answer"): every APIService
//! served by a Service `Available=True`, and the rule every other check obeys: a check on a
//! group whose APIService is not available is unknown, naming it ([`gate`]) — the aggregator
//! leaves that group out of discovery or answers 503 for it, so "not served" there is not
//! "absent". A local APIService (no `spec.service`) is the kube-apiserver's own: available.

use crate::model::catalog::{ApiServicesCheck, Check, CheckKind, APISERVICES};
use crate::model::observation::{CustomObject, Observation};

use super::objects::objects_of;
use super::{capped, CheckOutcome};

/// The one condition an APIService's availability is judged on.
const AVAILABLE: &str = "Available";

/// Why one APIService is not available, or `None` when it is (or is local).
fn not_available(o: &CustomObject) -> Option<String> {
    o.field(&ApiServicesCheck::service())?;
    if o.conditions.get(AVAILABLE).map(String::as_str) == Some("True") {
        return None;
    }
    let said = match (o.conditions.get(AVAILABLE), o.reasons.get(AVAILABLE)) {
        (_, Some(words)) => words.clone(),
        (Some(status), None) => format!("{AVAILABLE}={status}"),
        (None, None) => format!("no {AVAILABLE} condition"),
    };
    let group = o.field(&ApiServicesCheck::group()).unwrap_or_default();
    let group = if group.is_empty() {
        "the core group"
    } else {
        group
    };
    Some(format!(
        "APIService {} is not available ({said}): discovery of {group} is partial",
        o.name
    ))
}

pub(crate) fn api_services(obs: &Observation, c: &ApiServicesCheck) -> CheckOutcome {
    // Every kube-apiserver serves apiregistration.k8s.io; discovery without it (a snapshot
    // taken before nestor read APIServices) holds no APIService to judge: said so, never
    // worded as "every APIService available" from a list that was not read.
    if let Ok(groups) = &obs.api_groups {
        if !groups.contains(c.objects.group()) {
            return CheckOutcome::yes(format!(
                "no APIService to check: {} not served (nothing aggregated)",
                c.objects.group()
            ));
        }
    }
    let list = match objects_of(obs, &c.objects) {
        Ok(list) => list,
        Err(outcome) => return outcome,
    };
    let bad: Vec<String> = list.iter().filter_map(|o| not_available(o)).collect();
    if !bad.is_empty() {
        return CheckOutcome::no(capped(bad));
    }
    let aggregated = list
        .iter()
        .filter(|o| o.field(&ApiServicesCheck::service()).is_some())
        .count();
    CheckOutcome::yes(format!(
        "every APIService available ({aggregated} served by a Service)"
    ))
}

/// The groups a check asks discovery about: its `apiGroup`, its custom types' groups.
fn groups(check: &Check) -> Vec<&str> {
    if let CheckKind::ApiGroup(g) = &check.kind {
        return vec![g.0.as_str()];
    }
    // The check on the APIServices themselves names them; it is never gated by them.
    if let CheckKind::ApiServices(_) = &check.kind {
        return vec![];
    }
    check
        .kind
        .object_reads()
        .iter()
        .map(|(o, _)| o.group())
        .collect()
}

/// `Some(unknown)` when `check` reads a group an unavailable APIService serves (the
/// APIServices were read and say so); `None` otherwise: the check is judged as usual.
pub(crate) fn gate(check: &Check, obs: &Observation) -> Option<CheckOutcome> {
    let Some(Ok(services)) = obs.resources.get(APISERVICES) else {
        return None;
    };
    let wanted = groups(check);
    if wanted.is_empty() {
        return None;
    }
    let why: Vec<String> = services
        .iter()
        .filter(|o| {
            o.field(&ApiServicesCheck::group())
                .is_some_and(|g| wanted.contains(&g))
        })
        .filter_map(not_available)
        .collect();
    (!why.is_empty()).then(|| CheckOutcome::unknown(capped(why)))
}
