//! Checks on custom resources: `resource`, `condition`, `count`, `tolerate` (`all` in
//! `all.rs`). Each
//! reads only the typed fields the read kept ([`CustomObject`]); a failed read or discovery
//! is unknown, a group that is not served is a clean empty list. Whatever the check, an
//! object being deleted or suspended by its operator is not healthy, and a failed condition
//! quotes its reason and message (SPEC §6 v0.3).

use crate::model::catalog::{
    ConditionCheck, CountCheck, Counted, Expect, FieldPath, Objects, ResourceCheck, TolerateCheck,
    Wanted,
};
use crate::model::observation::{CustomObject, ObjectRef, Observation};

use crate::clock::parse_rfc3339;
use crate::duration::rough as age;

use super::truth::{expiry, flaw, id, needs_time, reading_time, stale};
use super::{capped, CheckOutcome};

/// The objects a selection names, or the outcome that replaces the check: the type's group
/// not served on a successful discovery read means an empty list, cleanly; a failed
/// discovery or resource read means unknown.
pub(super) fn objects_of<'a>(
    obs: &'a Observation,
    sel: &Objects,
) -> Result<Vec<&'a CustomObject>, CheckOutcome> {
    match &obs.api_groups {
        Err(f) => return Err(CheckOutcome::failed("API groups", f)),
        Ok(groups) if !groups.contains(sel.group()) => return Ok(vec![]),
        Ok(_) => {}
    }
    let list = match obs.resources.get(&sel.resource) {
        None => {
            return Err(CheckOutcome::unknown(format!(
                "{} was not read",
                sel.resource
            )))
        }
        Some(Err(f)) => return Err(CheckOutcome::failed(&sel.resource, f)),
        Some(Ok(list)) => list,
    };
    Ok(list
        .iter()
        .filter(|o| {
            sel.namespace
                .as_ref()
                .is_none_or(|ns| o.namespace.as_ref() == Some(ns))
        })
        .filter(|o| sel.name.as_ref().is_none_or(|n| &o.name == n))
        .collect())
}

/// `Ok(shown)` when the object's field meets the expectation, `Err(why not)` otherwise.
/// An object being deleted or suspended never meets it.
pub(super) fn judge(
    sel: &Objects,
    o: &CustomObject,
    field: &FieldPath,
    expect: &Expect,
    now: i64,
) -> Result<String, String> {
    if let Some(f) = flaw(sel, o) {
        return Err(f);
    }
    let Some(value) = o.field(field) else {
        return match expect {
            // Nothing there is none of the refused values.
            Expect::NotIn(_) => Ok(format!("{} has no {field}", id(sel, o))),
            Expect::In(_)
            | Expect::Equals(_)
            | Expect::EqualsField(_)
            | Expect::Exists
            | Expect::MinValidity(_)
            | Expect::MaxAge(_) => Err(format!("{} has no {field}", id(sel, o))),
        };
    };
    let shown = format!("{} {field} = {value}", id(sel, o));
    if let Expect::MinValidity(min) = expect {
        let Some(at) = parse_rfc3339(value) else {
            return Err(format!("{shown} (not an RFC 3339 time)"));
        };
        let left = expiry(at, now);
        return if at - now > *min as i64 {
            Ok(format!("{shown} ({left})"))
        } else {
            Err(format!(
                "{shown} ({left}; want more than {})",
                age(*min as i64)
            ))
        };
    }
    if let Expect::MaxAge(max) = expect {
        let Some(at) = parse_rfc3339(value) else {
            return Err(format!("{shown} (not an RFC 3339 time)"));
        };
        return if at > now {
            Err(format!(
                "{shown} ({} after the reading: a clock ahead, never fresh)",
                age(at - now)
            ))
        } else if now - at <= *max as i64 {
            Ok(format!("{shown} ({} ago)", age(now - at)))
        } else {
            Err(format!(
                "{shown} ({} ago; want at most {})",
                age(now - at),
                age(*max as i64)
            ))
        };
    }
    let (ok, want) = match expect {
        Expect::In(allowed) => {
            let want = match allowed.as_slice() {
                [one] => one.clone(),
                many => format!("one of {}", many.join(", ")),
            };
            (allowed.iter().any(|a| a == value), want)
        }
        Expect::NotIn(refused) => (
            !refused.iter().any(|r| r == value),
            format!("none of {}", refused.join(", ")),
        ),
        Expect::Equals(x) => (value == x, x.clone()),
        Expect::EqualsField(other) => match o.field(other) {
            None => (false, format!("{other}, which is missing")),
            Some(ov) => (ov == value, format!("{other} = {ov}")),
        },
        Expect::Exists => (true, String::new()),
        Expect::MinValidity(_) | Expect::MaxAge(_) => (false, String::new()),
    };
    if ok {
        Ok(shown)
    } else {
        Err(format!("{shown} (want {want})"))
    }
}

fn verdict(good: Vec<String>, bad: Vec<String>) -> CheckOutcome {
    if bad.is_empty() {
        CheckOutcome::yes(capped(good))
    } else {
        CheckOutcome::no(capped(bad))
    }
}

/// `o` as its Warning Events name it (`regarding`): by the kind the catalog names (`kind:`).
/// None without one: an Event names an object's kind, never its resource, so nothing could
/// match (and a namespace of the run's few would be read for nothing).
pub(super) fn event_ref(sel: &Objects, o: &CustomObject) -> Option<ObjectRef> {
    let kind = sel.kind.as_deref()?;
    let mut named = ObjectRef::new(kind, o.namespace.as_deref().unwrap_or(""), &o.name);
    named.uid = o
        .field(&crate::model::observation::FieldPath::uid())
        .map(str::to_string);
    Some(named)
}

/// [`verdict`] of each object judged, the failing ones named as objects (their Warning
/// Events may explain them), by the kind the catalog names.
fn verdict_of(sel: &Objects, judged: Vec<(&CustomObject, Result<String, String>)>) -> CheckOutcome {
    let failing = judged
        .iter()
        .filter(|(_, r)| r.is_err())
        .filter_map(|(o, _)| event_ref(sel, o))
        .collect();
    let (good, bad): (Vec<_>, Vec<_>) = judged.into_iter().map(|(_, r)| r).partition(Result::is_ok);
    verdict(
        good.into_iter().flatten().collect(),
        bad.into_iter().filter_map(Result::err).collect(),
    )
    .with_objects(failing)
}

pub(crate) fn resource(obs: &Observation, r: &ResourceCheck) -> CheckOutcome {
    let matching = match objects_of(obs, &r.objects) {
        Ok(o) => o,
        Err(outcome) => return outcome,
    };
    if matching.is_empty() {
        return CheckOutcome::no(format!("no {}", r.objects.selector()));
    }
    let (Some(field), Some(expect)) = (&r.field, &r.expect) else {
        // "One exists": it does, even being deleted; that makes its layer degraded.
        let found = matching
            .iter()
            .map(|o| format!("{} exists", id(&r.objects, o)))
            .collect();
        let flaws = matching
            .iter()
            .filter_map(|o| flaw(&r.objects, o))
            .collect();
        return CheckOutcome::yes(capped(found)).with_flaws(flaws);
    };
    let now = match needs_time(expect).then(|| reading_time(obs)) {
        Some(Err(unknown)) => return unknown,
        Some(Ok(t)) => t,
        None => 0,
    };
    let judged: Vec<_> = matching
        .iter()
        .map(|o| (*o, judge(&r.objects, o, field, expect, now)))
        .collect();
    verdict_of(&r.objects, judged)
}

/// " (Reason: message)" of the object's condition `type_`, empty when it says nothing.
pub(super) fn said(o: &CustomObject, type_: &str) -> String {
    o.reasons
        .get(type_)
        .map(|w| format!(" ({w})"))
        .unwrap_or_default()
}

/// The condition `type_` is True; a failed one says its reason and message.
pub(super) fn condition_of(sel: &Objects, o: &CustomObject, type_: &str) -> Result<String, String> {
    if let Some(f) = flaw(sel, o) {
        return Err(f);
    }
    match o.conditions.get(type_).map(String::as_str) {
        Some("True") => Ok(format!("{} {type_}", id(sel, o))),
        Some(other) => Err(format!("{} {type_}={other}{}", id(sel, o), said(o, type_))),
        None => Err(format!("{} has no {type_} condition", id(sel, o))),
    }
}

pub(crate) fn condition(obs: &Observation, c: &ConditionCheck) -> CheckOutcome {
    let matching = match objects_of(obs, &c.objects) {
        Ok(o) => o,
        Err(outcome) => return outcome,
    };
    if matching.is_empty() {
        return CheckOutcome::no(format!("no {}", c.objects.selector()));
    }
    let judged: Vec<_> = matching
        .iter()
        .map(|o| (*o, condition_of(&c.objects, o, &c.type_)))
        .collect();
    verdict_of(&c.objects, judged)
}

pub(crate) fn count(obs: &Observation, c: &CountCheck) -> CheckOutcome {
    let (have, what) = match &c.counted {
        Counted::Objects(sel) => match objects_of(obs, sel) {
            Ok(o) => (o.len(), sel.selector()),
            Err(outcome) => return outcome,
        },
        Counted::Workloads(w) => match super::rollout::select(obs, w) {
            (_, Some(failure)) => return failure,
            (found, None) => (found.len(), w.selector()),
        },
    };
    // The objects that say how many (`atLeastField`): what their Warning Events may say
    // about the ones missing.
    let mut asking: Vec<ObjectRef> = Vec::new();
    let (want, source) = match &c.wanted {
        Wanted::AtLeast(n) => (*n as usize, String::new()),
        Wanted::AtLeastField {
            objects,
            field,
            default,
        } => {
            let others = match objects_of(obs, objects) {
                Ok(o) => o,
                Err(outcome) => return outcome,
            };
            let Some(first) = others.first() else {
                return CheckOutcome::no(format!(
                    "{have} {what}; no {} says how many",
                    objects.selector()
                ));
            };
            // An absent field is the operator's default, where the catalog gives one.
            let mut defaulted = false;
            let values: Vec<(String, Option<usize>)> = others
                .iter()
                .map(|o| {
                    let v = match (o.field(field), default) {
                        (Some(t), _) => t.parse::<usize>().ok(),
                        (None, Some(d)) => {
                            defaulted = true;
                            Some(*d as usize)
                        }
                        (None, None) => None,
                    };
                    (id(objects, o), v)
                })
                .collect();
            let said = if defaulted {
                " (absent: the operator's default)"
            } else {
                ""
            };
            asking = others
                .iter()
                .filter_map(|o| event_ref(objects, o))
                .collect();
            match values.iter().filter_map(|(_, v)| *v).max() {
                Some(n) => (n, format!(": {} {field}{said}", id(objects, first))),
                None => {
                    return CheckOutcome::no(format!(
                        "{} has no number at {field}",
                        id(objects, first)
                    ))
                }
            }
        }
    };
    let text = format!("{have} {what} (want at least {want}{source})");
    if have >= want {
        CheckOutcome::yes(text)
    } else {
        asking.truncate(super::MAX_NAMED);
        CheckOutcome::no(text).with_objects(asking)
    }
}

pub(crate) fn tolerate(obs: &Observation, t: &TolerateCheck) -> CheckOutcome {
    let matching = match objects_of(obs, &t.objects) {
        Ok(o) => o,
        Err(outcome) => return outcome,
    };
    if matching.is_empty() {
        return CheckOutcome::no(format!("no {}", t.objects.selector()));
    }
    let now = match t.last_checked.as_ref().map(|_| reading_time(obs)) {
        Some(Err(unknown)) => return unknown,
        Some(Ok(now)) => Some(now),
        None => None,
    };
    let mut good = Vec::new();
    let mut bad = Vec::new();
    // Item by item, what an acknowledgement's `detail:` is compared with: the codes not on
    // the benign list, or the whole line of what is wrong otherwise.
    let mut codes: Vec<String> = Vec::new();
    let mut coded: Vec<usize> = Vec::new();
    // The objects that fail, by the catalog's `kind:` (their Warning Events may say why).
    let mut failing: Vec<ObjectRef> = Vec::new();
    for o in matching {
        let before = bad.len();
        'one: {
            if let Some(f) = flaw(&t.objects, o) {
                bad.push(f);
                break 'one;
            }
            if let Some(stale) = stale(t, o, now) {
                bad.push(stale);
                break 'one;
            }
            let Some(value) = o.field(&t.field) else {
                bad.push(format!("{} has no {}", id(&t.objects, o), t.field));
                break 'one;
            };
            let shown = format!("{} {} = {value}", id(&t.objects, o), t.field);
            if t.ok.iter().any(|ok| ok == value) {
                good.push(shown);
                break 'one;
            }
            if value != t.warn {
                bad.push(format!("{shown} (want {})", t.ok.join(" or ")));
                break 'one;
            }
            let details = o.details.get(&t.details.to_string());
            let listed = |keys: &mut dyn Iterator<Item = (&String, &String)>| -> String {
                keys.map(|(k, m)| {
                    if m.is_empty() {
                        k.clone()
                    } else {
                        format!("{k} ({m})")
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
            };
            match details {
                Some(d) if !d.is_empty() && d.keys().all(|k| t.benign.contains(k)) => {
                    good.push(format!(
                        "{shown}, tolerated: only benign checks: {}",
                        listed(&mut d.iter())
                    ));
                }
                Some(d) if !d.is_empty() => {
                    codes.extend(d.keys().filter(|k| !t.benign.contains(k)).cloned());
                    coded.push(bad.len());
                    let other = listed(&mut d.iter().filter(|(k, _)| !t.benign.contains(k)));
                    let benign = if t.benign.is_empty() {
                        "none".to_string()
                    } else {
                        t.benign.join(", ")
                    };
                    bad.push(format!(
                        "{shown}: {other} not on the benign list ({benign})"
                    ));
                }
                _ => bad.push(format!("{shown} with no {} to tell why", t.details)),
            }
        }
        if bad.len() > before {
            failing.extend(event_ref(&t.objects, o));
        }
    }
    let whole = bad.iter().enumerate().filter(|(i, _)| !coded.contains(i));
    codes.extend(whole.map(|(_, b)| b.clone()));
    failing.truncate(super::MAX_NAMED);
    verdict(good, bad)
        .with_findings(codes)
        .with_objects(failing)
}
