//! `defaultDenyIngress:` (the network-policy layer, SPEC §15, scenario 11): every namespace
//! outside the exemptions has a policy that denies ingress by default. Hardening proved once
//! by hand has no standing check otherwise: a namespace created later without one goes
//! unnoticed, and `ingress: [{}]` looks like a policy while it allows everything.

use super::objects::objects_of;
use super::{capped, plural, CheckOutcome};
use crate::model::catalog::{is_exempt, DefaultDenyCheck, CILIUM_NETWORK_POLICIES};
use crate::model::observation::{members_key, CustomObject, FieldPath, Observation};

/// The members kept at `path` ([`FieldUse::Members`](crate::model::observation::FieldUse)):
/// `None` when the path is absent (or null).
fn members<'a>(o: &'a CustomObject, path: &str) -> Option<&'a str> {
    let path = FieldPath::parse(path).ok()?;
    o.fields.get(&members_key(&path))
}

/// Nothing at the path, or an empty list or map.
fn empty(o: &CustomObject, path: &str) -> bool {
    members(o, path).is_none_or(str::is_empty)
}

/// A NetworkPolicy that denies ingress to every pod of its namespace: an empty
/// `podSelector`, `Ingress` among its effective `policyTypes` (omitted: Ingress is implied)
/// and no ingress rule — `ingress: [{}]` is one rule that allows everything.
pub fn network_policy_denies(o: &CustomObject) -> bool {
    let selects_all =
        empty(o, ".spec.podSelector.matchLabels") && empty(o, ".spec.podSelector.matchExpressions");
    let ingress_type = match members(o, ".spec.policyTypes") {
        None | Some("") => true,
        Some(types) => types.split(',').any(|t| t == "Ingress"),
    };
    selects_all && ingress_type && empty(o, ".spec.ingress")
}

/// A CiliumNetworkPolicy that puts every endpoint of its namespace in default deny for
/// ingress: an empty `endpointSelector` (present, selecting all) and an ingress section
/// (`ingress:` or `ingressDeny:`, even `[{}]`, which Cilium reads as "allow nothing").
pub fn cilium_policy_denies(o: &CustomObject) -> bool {
    members(o, ".spec.endpointSelector").is_some()
        && empty(o, ".spec.endpointSelector.matchLabels")
        && empty(o, ".spec.endpointSelector.matchExpressions")
        && (members(o, ".spec.ingress").is_some() || members(o, ".spec.ingressDeny").is_some())
}

pub(super) fn default_deny_ingress(obs: &Observation, check: &DefaultDenyCheck) -> CheckOutcome {
    let namespaces = match &obs.namespaces {
        Err(f) => return CheckOutcome::failed("namespaces", f),
        Ok(list) => list,
    };
    // (namespace, "Kind name") of every policy that denies ingress by default.
    let mut denying: Vec<(String, String)> = Vec::new();
    for objects in &check.policies {
        let list = match objects_of(obs, objects) {
            Err(unknown) => return unknown,
            Ok(list) => list,
        };
        let cilium = objects.resource == CILIUM_NETWORK_POLICIES;
        for o in list {
            let denies = if cilium {
                cilium_policy_denies(o)
            } else {
                network_policy_denies(o)
            };
            if let (true, Some(ns)) = (denies, &o.namespace) {
                let kind = objects.kind.as_deref().unwrap_or(&objects.resource);
                denying.push((ns.clone(), format!("{kind} {}", o.name)));
            }
        }
    }
    let judged: Vec<&str> = namespaces
        .iter()
        .map(|n| n.name.as_str())
        .filter(|n| !is_exempt(n, &check.exempt))
        .collect();
    let missing: Vec<String> = judged
        .iter()
        .filter(|ns| !denying.iter().any(|(d, _)| d == *ns))
        .map(|ns| ns.to_string())
        .collect();
    let exempt = namespaces.len() - judged.len();
    if missing.is_empty() {
        CheckOutcome::yes(format!(
            "{} with a default-deny ingress policy ({exempt} exempt)",
            plural(judged.len(), "namespace")
        ))
    } else {
        CheckOutcome::no(format!(
            "{}/{} namespaces without a default-deny ingress policy: {}",
            missing.len(),
            judged.len(),
            capped(missing)
        ))
    }
}
