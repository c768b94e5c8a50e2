//! `claims` (SPEC §6 v0.4 "Claims and volumes"): a PersistentVolumeClaim of a checked
//! namespace `Pending` longer than `maxPending` (its age from `creationTimestamp` to the
//! reading time) or `Lost`, or a PersistentVolume of one of the provisioner's StorageClasses
//! `Failed`, degrades the layer, each named with its phase and age. A `Released` volume is
//! named in the evidence, never degrading. A claim of a class of another provisioner is not
//! judged (another layer's); one without a class, or of a class that does not exist, is
//! (the default class is this layer's, and a missing class leaves it Pending). Any of the
//! reads failed: unknown, never absent.

use crate::clock::parse_rfc3339;
use crate::duration::rough;
use crate::model::catalog::ClaimsCheck;
use crate::model::observation::{Claim, ObjectRef, Observation};

use super::truth::reading_time;
use super::{capped, plural, CheckOutcome};

pub(crate) fn claims(obs: &Observation, c: &ClaimsCheck) -> CheckOutcome {
    let classes = match &obs.storage_classes {
        Ok(list) => list,
        Err(f) => return CheckOutcome::failed("storageclasses", f),
    };
    let volumes = match &obs.volumes {
        Ok(list) => list,
        Err(f) => return CheckOutcome::failed("persistentvolumes", f),
    };
    let mut claims: Vec<&Claim> = Vec::new();
    for (namespace, read) in &obs.claims {
        match read {
            Ok(list) => claims.extend(list),
            Err(f) => {
                return CheckOutcome::failed(&format!("persistentvolumeclaims in {namespace}"), f)
            }
        }
    }
    let ours = |class: &str| {
        classes
            .iter()
            .any(|s| s.name == class && s.provisioner == c.provisioner)
    };
    let foreign = |class: &str| {
        classes
            .iter()
            .any(|s| s.name == class && s.provisioner != c.provisioner)
    };
    let judged: Vec<&Claim> = claims
        .into_iter()
        .filter(|k| k.storage_class.is_empty() || !foreign(&k.storage_class))
        .collect();
    let mut bad = Vec::new();
    let mut objects = Vec::new();
    let mut young = 0;
    for k in &judged {
        let id = format!("PersistentVolumeClaim {}/{}", k.namespace, k.name);
        let created = parse_rfc3339(&k.created);
        match k.phase.as_str() {
            "Lost" => {
                let age = match (created, obs.observed_at) {
                    (Some(t), Some(now)) => format!(", created {} ago", rough(now - t)),
                    _ => String::new(),
                };
                bad.push(format!("{id} Lost{age}: its volume is gone"));
                objects.push(ObjectRef::new(
                    "PersistentVolumeClaim",
                    &k.namespace,
                    &k.name,
                ));
            }
            "Pending" => {
                let now = match reading_time(obs) {
                    Ok(now) => now,
                    Err(unknown) => return unknown,
                };
                let Some(t) = created else {
                    return CheckOutcome::unknown(format!(
                        "{id} Pending since an unreadable creationTimestamp `{}`: its age cannot be judged",
                        k.created
                    ));
                };
                if now - t > c.max_pending_secs as i64 {
                    objects.push(ObjectRef::new(
                        "PersistentVolumeClaim",
                        &k.namespace,
                        &k.name,
                    ));
                    bad.push(format!(
                        "{id} Pending for {} (class {}; maxPending {})",
                        rough(now - t),
                        class_of(k),
                        crate::duration::format(std::time::Duration::from_secs(c.max_pending_secs))
                    ));
                } else {
                    young += 1;
                }
            }
            _ => {}
        }
    }
    let mine: Vec<_> = volumes.iter().filter(|v| ours(&v.storage_class)).collect();
    let claim_of = |claim: &str| {
        if claim.is_empty() {
            String::new()
        } else {
            format!(" (claim {claim})")
        }
    };
    for v in mine.iter().filter(|v| v.phase == "Failed") {
        bad.push(format!(
            "PersistentVolume {}{} Failed",
            v.name,
            claim_of(&v.claim)
        ));
        // Cluster-scoped: its Events are in `default`.
        objects.push(ObjectRef::new("PersistentVolume", "", &v.name));
    }
    let released: Vec<String> = mine
        .iter()
        .filter(|v| v.phase == "Released")
        .map(|v| format!("{}{}", v.name, claim_of(&v.claim)))
        .collect();
    let released = if released.is_empty() {
        String::new()
    } else {
        format!(
            "; Released, kept by their reclaim policy (not degrading): {}",
            capped(released)
        )
    };
    if !bad.is_empty() {
        return CheckOutcome::no(format!("{}{released}", capped(bad))).with_objects(objects);
    }
    let pending = if young == 0 {
        String::new()
    } else {
        format!(", {young} Pending for less than maxPending")
    };
    CheckOutcome::yes(format!(
        "{} in {}: none Lost or Pending too long{pending}; {} of {}: none Failed{released}",
        plural(judged.len(), "claim"),
        plural(obs.claims.len(), "checked namespace"),
        plural(mine.len(), "volume"),
        c.provisioner
    ))
}

fn class_of(k: &Claim) -> &str {
    if k.storage_class.is_empty() {
        "none: the default"
    } else {
        &k.storage_class
    }
}
