//! `namespaceLabel:` checks: a label on some namespace (detect), or on every namespace outside
//! the exemptions with an accepted value (Pod Security admission, scenario 10: a new
//! namespace without `pod-security.kubernetes.io/enforce` goes unnoticed).

use super::{capped, plural, CheckOutcome};
use crate::model::catalog::{is_exempt, NamespaceLabelCheck};
use crate::model::observation::Observation;

pub(super) fn namespace_label(obs: &Observation, check: &NamespaceLabelCheck) -> CheckOutcome {
    let list = match &obs.namespaces {
        Err(f) => return CheckOutcome::failed("namespaces", f),
        Ok(list) => list,
    };
    let label = &check.label;
    let accepted = |v: &str| check.values.is_empty() || check.values.iter().any(|a| a == v);
    let wanted = if check.values.is_empty() {
        label.clone()
    } else {
        format!("{label} = {}", check.values.join(" or "))
    };
    if check.some {
        let found: Vec<String> = list
            .iter()
            .filter_map(|n| {
                let v = n.labels.get(label)?;
                accepted(v).then(|| format!("{} ({v})", n.name))
            })
            .collect();
        return if found.is_empty() {
            CheckOutcome::no(format!("no namespace labelled {wanted}"))
        } else {
            CheckOutcome::yes(format!("labelled {label}: {}", capped(found)))
        };
    }
    let judged: Vec<_> = list
        .iter()
        .filter(|n| !is_exempt(&n.name, &check.exempt))
        .collect();
    let failing: Vec<String> = judged
        .iter()
        .filter_map(|n| match n.labels.get(label) {
            None => Some(format!("{} (no {label})", n.name)),
            Some(v) if !accepted(v) => Some(format!("{} ({v})", n.name)),
            Some(_) => None,
        })
        .collect();
    let exempt = list.len() - judged.len();
    if failing.is_empty() {
        CheckOutcome::yes(format!(
            "{} labelled {wanted} ({exempt} exempt)",
            plural(judged.len(), "namespace")
        ))
    } else {
        CheckOutcome::no(format!(
            "{}/{} namespaces not labelled {wanted}: {}",
            failing.len(),
            judged.len(),
            capped(failing)
        ))
    }
}
