//! The SPEC §15 checks of the exposure chain and of CSI registration: `every` (the objects a
//! field selects, each with its conditions, counts and list entries), `parents` (a route's
//! entries of one controller), `csiDriver` (the default class's driver on every node). Each
//! failing object is named with what it lacks and, where the catalog knows the reason, what
//! that means; a failed read is unknown, a group not served is an empty list.

use std::collections::BTreeSet;

use crate::model::catalog::{CsiDriverCheck, EveryCheck, Filter, Known, ParentsCheck};
use crate::model::observation::{CustomObject, FieldUse, Observation};

use super::objects::objects_of;
use super::truth::{flaw, id};
use super::{capped, CheckOutcome, Phase};

/// The condition's words, and the operators' reading of its reason when the catalog has one.
fn said(o_reasons: Option<&String>, type_: &str, known: &[Known]) -> String {
    let Some(words) = o_reasons else {
        return String::new();
    };
    let meaning = known.iter().find(|k| {
        k.condition == type_
            && (words == &k.reason || words.starts_with(&format!("{}: ", k.reason)))
    });
    match meaning {
        Some(k) => format!(" ({words}): {}", k.says),
        None => format!(" ({words})"),
    }
}

/// What a condition-bearing object lacks: each wanted condition not True, each unwanted one
/// True, in the object's words.
fn lacking(
    conditions: &std::collections::BTreeMap<String, String>,
    reasons: &std::collections::BTreeMap<String, String>,
    wanted: &[String],
    unwanted: &[String],
    known: &[Known],
) -> Vec<String> {
    let mut out = Vec::new();
    for t in wanted {
        match conditions.get(t).map(String::as_str) {
            Some("True") => {}
            Some(other) => out.push(format!("{t}={other}{}", said(reasons.get(t), t, known))),
            None => out.push(format!("no {t} condition")),
        }
    }
    for t in unwanted {
        if conditions.get(t).map(String::as_str) == Some("True") {
            out.push(format!("{t}=True{}", said(reasons.get(t), t, known)));
        }
    }
    out
}

/// The objects an `every` check selects, or the outcome that replaces it.
fn selected<'a>(
    obs: &'a Observation,
    e: &EveryCheck,
) -> Result<Vec<&'a CustomObject>, CheckOutcome> {
    let all = objects_of(obs, &e.objects)?;
    Ok(match &e.filter {
        None => all,
        Some(Filter::Equals { field, value }) => all
            .into_iter()
            .filter(|o| o.field(field) == Some(value.as_str()))
            .collect(),
        Some(Filter::NameOf {
            field,
            class,
            class_field,
            value,
        }) => {
            let names: BTreeSet<&str> = objects_of(obs, class)?
                .into_iter()
                .filter(|c| c.field(class_field) == Some(value.as_str()))
                .map(|c| c.name.as_str())
                .collect();
            all.into_iter()
                .filter(|o| o.field(field).is_some_and(|n| names.contains(n)))
                .collect()
        }
    })
}

/// Everything one selected object fails, empty when it passes.
fn judge_every(e: &EveryCheck, o: &CustomObject) -> Vec<String> {
    if let Some(f) = flaw(&e.objects, o) {
        return vec![f];
    }
    let w = &e.wants;
    let mut out = lacking(
        &o.conditions,
        &o.reasons,
        &w.conditions,
        &w.not_conditions,
        &e.known,
    );
    if let Some(a) = &w.above {
        match o.messages.get(&a.type_) {
            Some(m) if is_count_above(m, a.value) => {}
            Some(m) => out.push(format!("{} {m} (want above {})", a.type_, a.value)),
            None => out.push(format!("no {} count", a.type_)),
        }
    }
    if let Some((path, key)) = &w.non_empty {
        let label = FieldUse::items_label(path, key);
        if o.items.get(&label).is_none_or(Vec::is_empty) {
            out.push(format!("no {path}[] entry"));
        }
    }
    out
}

/// A decimal count (it may exceed 64 bits: an IPv6 pool) above `value`.
fn is_count_above(text: &str, value: u64) -> bool {
    let digits = text.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let significant = digits.trim_start_matches('0');
    match significant.parse::<u64>() {
        Ok(n) => n > value,
        // More digits than a u64 holds: above any u64.
        Err(_) => !significant.is_empty(),
    }
}

pub(crate) fn every(obs: &Observation, phase: Phase, e: &EveryCheck) -> CheckOutcome {
    let found = match selected(obs, e) {
        Ok(f) => f,
        Err(outcome) => return outcome,
    };
    let what = match &e.filter {
        Some(f) => format!("{} {}", e.objects.kind_label(), f.words()),
        None => e.objects.selector(),
    };
    if found.is_empty() {
        return match phase {
            Phase::Detect => CheckOutcome::no(format!("no {what}")),
            Phase::Healthy if e.wants.is_empty() => CheckOutcome::no(format!("no {what}")),
            Phase::Healthy => CheckOutcome::yes(format!("0 {what}: none to judge")),
        };
    }
    if e.wants.is_empty() {
        let names = found.iter().map(|o| id(&e.objects, o)).collect();
        let flaws = found.iter().filter_map(|o| flaw(&e.objects, o)).collect();
        return CheckOutcome::yes(capped(names)).with_flaws(flaws);
    }
    let bad: Vec<String> = found
        .iter()
        .filter_map(|o| {
            let fails = judge_every(e, o);
            if fails.is_empty() {
                None
            } else if fails.len() == 1 && fails[0].starts_with(&id(&e.objects, o)) {
                // A flaw names the object itself.
                fails.into_iter().next()
            } else {
                Some(format!("{} {}", id(&e.objects, o), fails.join(", ")))
            }
        })
        .collect();
    let head = format!(
        "{}/{} {what} {}",
        found.len() - bad.len(),
        found.len(),
        asks(e)
    );
    if bad.is_empty() {
        CheckOutcome::yes(head)
    } else {
        CheckOutcome::no(format!("{head}; not: {}", capped(bad)))
    }
}

/// What an `every` check asks, shortly: `Accepted, Programmed, .status.addresses[]`.
fn asks(e: &EveryCheck) -> String {
    let w = &e.wants;
    let mut parts: Vec<String> = w.conditions.clone();
    parts.extend(w.not_conditions.iter().map(|t| format!("not {t}")));
    parts.extend(w.above.iter().map(|a| format!("{} > {}", a.type_, a.value)));
    parts.extend(w.non_empty.iter().map(|(p, _)| format!("{p}[]")));
    parts.join(", ")
}

pub(crate) fn parents(obs: &Observation, p: &ParentsCheck) -> CheckOutcome {
    let all = match objects_of(obs, &p.objects) {
        Ok(o) => o,
        Err(outcome) => return outcome,
    };
    let routes: Vec<&CustomObject> = all
        .into_iter()
        .filter(|o| o.parents.iter().any(|e| e.controller == p.controller))
        .collect();
    let mut bad = Vec::new();
    let mut failing = 0;
    for route in &routes {
        let before = bad.len();
        if let Some(f) = flaw(&p.objects, route) {
            bad.push(f);
        } else {
            for entry in route
                .parents
                .iter()
                .filter(|e| e.controller == p.controller)
            {
                let fails = lacking(
                    &entry.conditions,
                    &entry.reasons,
                    &p.conditions,
                    &[],
                    &p.known,
                );
                if !fails.is_empty() {
                    bad.push(format!(
                        "{} {} on {}",
                        id(&p.objects, route),
                        fails.join(", "),
                        entry.label(route.namespace.as_deref())
                    ));
                }
            }
        }
        if bad.len() > before {
            failing += 1;
        }
    }
    let head = format!(
        "{}/{} {} of {} {}",
        routes.len() - failing,
        routes.len(),
        p.objects.kind_label(),
        p.controller,
        p.conditions.join(", ")
    );
    if bad.is_empty() {
        CheckOutcome::yes(head)
    } else {
        CheckOutcome::no(format!("{head}; not: {}", capped(bad)))
    }
}

pub(crate) fn csi_driver(obs: &Observation, c: &CsiDriverCheck) -> CheckOutcome {
    let classes = match &obs.storage_classes {
        Err(f) => return CheckOutcome::failed("storageclasses", f),
        Ok(list) => list,
    };
    let defaults: Vec<_> = classes.iter().filter(|s| s.default).collect();
    if defaults.is_empty() {
        return CheckOutcome::no("no default StorageClass: no CSI driver to look for");
    }
    let nodes = match &obs.nodes {
        Err(f) => return CheckOutcome::failed("nodes", f),
        Ok(list) => list,
    };
    let drivers = match objects_of(obs, &c.drivers) {
        Ok(d) => d,
        Err(outcome) => return outcome,
    };
    let csinodes = match objects_of(obs, &c.nodes) {
        Ok(n) => n,
        Err(outcome) => return outcome,
    };
    let (path, key) = CsiDriverCheck::drivers_list();
    let label = FieldUse::items_label(&path, &key);
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for sc in defaults {
        let p = &sc.provisioner;
        let Some(driver) = drivers.iter().find(|d| &d.name == p) else {
            bad.push(format!(
                "no CSIDriver {p} (the provisioner of default StorageClass {}): no CSI plugin registered for it",
                sc.name
            ));
            continue;
        };
        if let Some(f) = flaw(&c.drivers, driver) {
            bad.push(f);
            continue;
        }
        let missing: Vec<String> = nodes
            .iter()
            .filter(|n| {
                !csinodes.iter().any(|cn| {
                    cn.name == n.name && cn.items.get(&label).is_some_and(|d| d.contains(p))
                })
            })
            .map(|n| n.name.clone())
            .collect();
        let on = format!(
            "CSIDriver {p} registered on {}/{} nodes",
            nodes.len() - missing.len(),
            nodes.len()
        );
        if missing.is_empty() {
            good.push(on);
        } else {
            bad.push(format!(
                "{on}; not in the CSINode of: {}",
                capped(missing).replace("; ", ", ")
            ));
        }
    }
    if bad.is_empty() {
        CheckOutcome::yes(good.join("; "))
    } else {
        CheckOutcome::no(bad.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::is_count_above;

    #[test]
    fn counts_are_decimal_and_may_be_huge() {
        assert!(is_count_above("254", 0));
        assert!(!is_count_above("0", 0));
        assert!(!is_count_above("000", 0));
        assert!(is_count_above("18446744073709551616", 0));
        assert!(!is_count_above("", 0));
        assert!(!is_count_above("-3", 0));
        assert!(!is_count_above("2.5", 0));
        assert!(!is_count_above("3", 3));
    }
}
