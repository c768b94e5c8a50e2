//! `configMapKey:` and `absent:` checks: a setting of a named ConfigMap (cilium-config says
//! `kube-proxy-replacement: "true"`), and objects that must be gone (bench #23: kube-proxy's
//! DaemonSet beside Cilium's replacement is two service datapaths, and its ConfigMap makes
//! the next `kubeadm upgrade` reinstall it).

use super::rollout::select;
use super::{capped, CheckOutcome};
use crate::model::catalog::{AbsentCheck, Absentee, ConfigMapKeyCheck};
use crate::model::observation::Observation;

/// `: SAYS` when the check says what a failure means.
fn meaning(says: Option<&String>) -> String {
    says.map(|s| format!(": {s}")).unwrap_or_default()
}

pub(super) fn config_map_key(obs: &Observation, check: &ConfigMapKeyCheck) -> CheckOutcome {
    let id = check.id();
    let key = &check.key;
    match obs.config_maps.get(&id) {
        None => CheckOutcome::failed(&format!("ConfigMap {id}"), &not_read()),
        Some(Err(f)) => CheckOutcome::failed(&format!("ConfigMap {id}"), f),
        // `notIn:`: nothing there sets the refused value.
        Some(Ok(None)) if check.negated => CheckOutcome::yes(format!("no ConfigMap {id}")),
        Some(Ok(None)) => CheckOutcome::no(format!("no ConfigMap {id}")),
        Some(Ok(Some(data))) if check.negated => match data.get(key) {
            None => CheckOutcome::yes(format!("ConfigMap {id} has no {key}")),
            Some(v) if check.values.iter().any(|a| a == v) => CheckOutcome::no(format!(
                "ConfigMap {id} {key} = {}{}",
                clean(v),
                meaning(check.says.as_ref())
            )),
            Some(v) => CheckOutcome::yes(format!("ConfigMap {id} {key} = {}", clean(v))),
        },
        Some(Ok(Some(data))) => match data.get(key) {
            None => CheckOutcome::no(format!("ConfigMap {id} has no {key}")),
            Some(v) if check.values.iter().any(|a| a == v) => {
                CheckOutcome::yes(format!("ConfigMap {id} {key} = {}", clean(v)))
            }
            Some(v) => CheckOutcome::no(format!(
                "ConfigMap {id} {key} = {} (want {}){}",
                clean(v),
                check.values.join(" or "),
                meaning(check.says.as_ref())
            )),
        },
    }
}

pub(super) fn absent(obs: &Observation, check: &AbsentCheck) -> CheckOutcome {
    match &check.what {
        Absentee::ConfigMap { namespace, name } => {
            let id = format!("{namespace}/{name}");
            match obs.config_maps.get(&id) {
                None => CheckOutcome::failed(&format!("ConfigMap {id}"), &not_read()),
                Some(Err(f)) => CheckOutcome::failed(&format!("ConfigMap {id}"), f),
                Some(Ok(None)) => CheckOutcome::yes(format!("no ConfigMap {id}")),
                Some(Ok(Some(_))) => CheckOutcome::no(format!(
                    "ConfigMap {id} exists{}",
                    meaning(check.says.as_ref())
                )),
            }
        }
        Absentee::Workload(w) => {
            let (found, failure) = select(obs, w);
            if !found.is_empty() {
                let names: Vec<String> = found
                    .iter()
                    .map(|(k, x)| format!("{} {}/{}", k.as_str(), x.namespace, x.name))
                    .collect();
                return CheckOutcome::no(format!(
                    "{} exists{}",
                    capped(names),
                    meaning(check.says.as_ref())
                ));
            }
            match failure {
                Some(f) => f,
                None => CheckOutcome::yes(format!("no {}", w.selector())),
            }
        }
    }
}

fn not_read() -> crate::model::observation::ReadFailure {
    crate::model::observation::ReadFailure::skipped("not read")
}

/// A value read from the cluster never drives the terminal: [`crate::term::escape`] (control characters
/// and bidirectional overrides written visibly, `\x1b`, `\u{202e}`), the one escaping.
fn clean(s: &str) -> String {
    crate::term::escape(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 30: this private escaping let bidirectional overrides through; it is
    /// `term::escape` now, which writes them visibly.
    #[test]
    fn a_value_with_bidi_overrides_or_escapes_is_written_visibly() {
        assert_eq!(
            clean("true\u{202e}eslaf\u{2066}x\u{1b}[2J"),
            "true\\u{202e}eslaf\\u{2066}x\\x1b[2J"
        );
    }
}
