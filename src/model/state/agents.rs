//! The checks of `cni-encryption` (SPEC §15), judged: every CiliumNode-like object carries
//! its annotation (present, distinct, one per node), and every agent container started after
//! its ConfigMap last changed. Bench #16: `cilium upgrade` wrote `enable-wireguard: "true"`,
//! the agents kept the configuration they had read at start, and traffic stayed plain.

use std::collections::BTreeMap;

use crate::clock::parse_rfc3339;
use crate::model::catalog::{AnnotatedCheck, StartedAfterCheck};
use crate::model::observation::{Observation, LAST_CHANGE};

use super::objects::objects_of;
use super::{capped, CheckOutcome};

/// Every object of the list carries one of the keys (non-empty), values distinct and one
/// object per registered node when asked. Each failure names its objects or nodes.
pub(super) fn annotated(obs: &Observation, a: &AnnotatedCheck) -> CheckOutcome {
    let kind = a.objects.kind_label();
    let key = a.keys.first().map(String::as_str).unwrap_or_default();
    let list = match objects_of(obs, &a.objects) {
        Ok(list) => list,
        Err(outcome) => return outcome,
    };
    let nodes = match (a.per_node, &obs.nodes) {
        (false, _) => vec![],
        (true, Err(f)) => return CheckOutcome::failed("nodes", f),
        (true, Ok(nodes)) => nodes.iter().map(|n| n.name.as_str()).collect(),
    };
    if list.is_empty() && nodes.is_empty() {
        return CheckOutcome::no(format!("no {kind} found"));
    }
    let mut missing = Vec::new();
    let mut older = 0;
    let mut by_value: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for o in &list {
        let found = a.keys.iter().enumerate().find_map(|(i, k)| {
            o.annotation(k)
                .filter(|v| !v.trim().is_empty())
                .map(|v| (i, v))
        });
        match found {
            Some((i, value)) => {
                older += usize::from(i > 0);
                by_value.entry(value.trim()).or_default().push(&o.name);
            }
            None => missing.push(o.name.as_str()),
        }
    }
    let mut problems = Vec::new();
    let without: Vec<&str> = nodes
        .iter()
        .copied()
        .filter(|n| !list.iter().any(|o| o.name == *n))
        .collect();
    if !without.is_empty() {
        problems.push(format!("no {kind} for node {}", names(&without)));
    }
    if !missing.is_empty() {
        problems.push(format!("{kind} {} without {key}", names(&missing)));
    }
    if a.distinct {
        for holders in by_value.values().filter(|h| h.len() > 1) {
            problems.push(format!("{kind} {} share one {key} value", names(holders)));
        }
    }
    if !problems.is_empty() {
        return CheckOutcome::no(capped(problems));
    }
    let distinct = if a.distinct { ", values distinct" } else { "" };
    let alias = match (older, a.keys.get(1)) {
        (0, _) | (_, None) => String::new(),
        (n, Some(old)) => format!(" ({n} by the older spelling {old})"),
    };
    CheckOutcome::yes(format!(
        "every {kind} ({}) carries {key}{distinct}{alias}",
        list.len()
    ))
}

/// Up to five names, then how many more: `a, b, c and 4 more`.
fn names(list: &[&str]) -> String {
    const SHOWN: usize = 5;
    let mut out = list
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if list.len() > SHOWN {
        out.push_str(&format!(" and {} more", list.len() - SHOWN));
    }
    out
}

/// Every running container of the pods started after the ConfigMap's last write; one
/// started before runs the configuration of before it. Neither time known: unknown.
pub(super) fn started_after(obs: &Observation, s: &StartedAfterCheck) -> CheckOutcome {
    let cm = s.config_label();
    let changed = match s
        .config_map_request()
        .key()
        .and_then(|k| obs.config_maps.get(&k))
    {
        None => return CheckOutcome::unknown(format!("{cm} was not read")),
        Some(Err(f)) => return CheckOutcome::failed(&cm, f),
        // Gone: nothing says what the agents should run (its detect check says so too).
        Some(Ok(None)) => {
            return CheckOutcome::unknown(format!("no {cm}: its last write is not known"))
        }
        Some(Ok(Some(data))) => data.get(LAST_CHANGE),
    };
    let Some((at, changed)) = changed.and_then(|t| parse_rfc3339(t).map(|at| (at, t))) else {
        return CheckOutcome::unknown(format!(
            "{cm} shows no metadata.managedFields time: when it last changed is not known"
        ));
    };
    let pods_label = format!("pods of {} with {}", s.pods.namespace, s.pods.selector);
    let [starts, _] = s.read_requests();
    let pods = match starts.key().and_then(|k| obs.container_starts.get(&k)) {
        None => return CheckOutcome::unknown(format!("{pods_label} were not read")),
        Some(Err(f)) => return CheckOutcome::failed(&pods_label, f),
        Some(Ok(pods)) => pods,
    };
    let container = &s.pods.container;
    let running: Vec<_> = pods
        .iter()
        .filter_map(|p| {
            let t = p.started.as_deref()?;
            Some((p, parse_rfc3339(t)?))
        })
        .collect();
    if running.is_empty() {
        return CheckOutcome::no(format!(
            "no {container} container running in the {pods_label} ({} pod(s))",
            pods.len()
        ));
    }
    let before: Vec<String> = running
        .iter()
        .filter(|(_, started)| *started < at)
        .map(|(p, _)| match p.node.as_str() {
            "" => p.name.clone(),
            node => format!("{} ({node})", p.name),
        })
        .collect();
    if before.is_empty() {
        return CheckOutcome::yes(format!(
            "every running {container} ({}) started after {cm} last changed ({changed})",
            running.len()
        ));
    }
    let shown: Vec<&str> = before.iter().map(String::as_str).collect();
    let repair = s
        .says
        .as_deref()
        .map(|says| format!(": {says}"))
        .unwrap_or_default();
    CheckOutcome::no(format!(
        "{container} in {} runs the config of before {changed}, when {cm} last changed{repair}",
        names(&shown)
    ))
}
