//! The `all` check: every object of a selection (those with `withField:` set, when it is
//! given; none is fine) satisfies one predicate — a field's expectation, a condition True or
//! not False, none of some conditions present — and a failure quotes `quote:`'s field.

use crate::duration::rough as age;
use crate::model::catalog::{AllCheck, Expect, Objects, Predicate};
use crate::model::observation::{CustomObject, Observation};

use super::objects::{condition_of, event_ref, judge, objects_of, said};
use super::truth::{flaw, id, needs_time, reading_time};
use super::{capped, CheckOutcome};

pub(crate) fn all(obs: &Observation, a: &AllCheck) -> CheckOutcome {
    let mut matching = match objects_of(obs, &a.objects) {
        Ok(o) => o,
        Err(outcome) => return outcome,
    };
    // `withField:` judges only the objects that have it (the Clusters with backups set up);
    // when none has it, those left out are named.
    if let Some(w) = &a.with_field {
        let (with, without): (Vec<_>, Vec<_>) =
            matching.into_iter().partition(|o| o.field(w).is_some());
        if with.is_empty() && !without.is_empty() {
            let names = without.iter().map(|o| id(&a.objects, o)).collect();
            return CheckOutcome::yes(format!("{} without {w}: nothing to judge", capped(names)));
        }
        matching = with;
    }
    let (what, results): (String, Vec<Result<String, String>>) = match &a.predicate {
        Predicate::Field(field, expect) => {
            let now = match needs_time(expect).then(|| reading_time(obs)) {
                Some(Err(unknown)) => return unknown,
                Some(Ok(t)) => t,
                None => 0,
            };
            (
                match expect {
                    Expect::Equals(x) => format!("{field} = {x}"),
                    Expect::In(xs) => format!("{field} in {}", xs.join(", ")),
                    Expect::NotIn(xs) => format!("{field} not in {}", xs.join(", ")),
                    Expect::EqualsField(o) => format!("{field} = {o}"),
                    Expect::Exists => format!("{field} set"),
                    Expect::MinValidity(min) => {
                        format!("{field} more than {} away", age(*min as i64))
                    }
                    Expect::MaxAge(max) => format!("{field} at most {} ago", age(*max as i64)),
                },
                matching
                    .iter()
                    .map(|o| judge(&a.objects, o, field, expect, now))
                    .collect(),
            )
        }
        Predicate::Condition(t) => (
            t.clone(),
            matching
                .iter()
                .map(|o| condition_of(&a.objects, o, t))
                .collect(),
        ),
        Predicate::NotFalse(t) => (
            format!("{t} not False"),
            matching
                .iter()
                .map(|o| not_false(&a.objects, o, t))
                .collect(),
        ),
        Predicate::NoConditions(ts) => (
            format!("without {}", ts.join(", ")),
            matching
                .iter()
                .map(|o| without_conditions(&a.objects, o, ts))
                .collect(),
        ),
    };
    // A failure quotes the object's own words when the check names where they are.
    let results = results.into_iter().zip(&matching).map(|(r, o)| {
        r.map_err(|line| match a.quote.as_ref().and_then(|q| o.field(q)) {
            Some(said) if !said.is_empty() => format!("{line}: \"{said}\""),
            Some(_) | None => line,
        })
    });
    let results: Vec<Result<String, String>> = results.collect();
    // The failing objects, by the catalog's `kind:`: what their Warning Events are about.
    let failing = results
        .iter()
        .zip(&matching)
        .filter(|(r, _)| r.is_err())
        .filter_map(|(_, o)| event_ref(&a.objects, o))
        .take(super::MAX_NAMED)
        .collect();
    let total = results.len();
    let bad: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    if let (Some(w), 0) = (&a.with_field, total) {
        return CheckOutcome::yes(format!(
            "0 {} with {w}: nothing to judge",
            a.objects.selector()
        ));
    }
    let with = a
        .with_field
        .as_ref()
        .map(|w| format!(" with {w}"))
        .unwrap_or_default();
    let head = format!(
        "{}/{total} {}{with} {what}",
        total - bad.len(),
        a.objects.selector()
    );
    if bad.is_empty() {
        CheckOutcome::yes(head)
    } else {
        CheckOutcome::no(format!("{head}; not: {}", capped(bad))).with_objects(failing)
    }
}

/// The condition `type_` is not `False` (absent holds); a False one says its words.
fn not_false(sel: &Objects, o: &CustomObject, type_: &str) -> Result<String, String> {
    if let Some(f) = flaw(sel, o) {
        return Err(f);
    }
    match o.conditions.get(type_).map(String::as_str) {
        Some("False") => Err(format!("{} {type_}=False{}", id(sel, o), said(o, type_))),
        Some(other) => Ok(format!("{} {type_}={other}", id(sel, o))),
        None => Ok(format!("{} has no {type_} condition", id(sel, o))),
    }
}

/// None of `types` is present with a status other than `False`; each present one is named
/// with its words (Argo CD's error conditions have a message and no status).
fn without_conditions(sel: &Objects, o: &CustomObject, types: &[String]) -> Result<String, String> {
    if let Some(f) = flaw(sel, o) {
        return Err(f);
    }
    let present: Vec<String> = types
        .iter()
        .filter(|t| o.conditions.get(*t).is_some_and(|status| status != "False"))
        .map(|t| format!("{t}{}", said(o, t)))
        .collect();
    if present.is_empty() {
        Ok(format!("{} without {}", id(sel, o), types.join(", ")))
    } else {
        Err(format!("{} {}", id(sel, o), present.join("; ")))
    }
}
