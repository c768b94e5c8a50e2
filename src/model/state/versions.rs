//! `oneVersion:` (issue 34 item 5): the components of one layer run one version, else the
//! layer is degraded "upgrade half done", each component named with its version. A
//! workload's version is the tag of the named container's image (Cilium's agent and
//! operator; cilium-envoy carries Envoy's own version and is never selected) or a version
//! label (Rook's `rook-version` on its Deployments). A workload without that container or
//! label, or whose tag is no version, has nothing to compare; a failed read is unknown.

use std::collections::BTreeMap;

use super::rollout::select;
use super::{capped, CheckOutcome};
use crate::model::catalog::{OneVersionCheck, VersionFrom};
use crate::model::gate::version::Version;
use crate::model::observation::Observation;

pub(super) fn one_version(obs: &Observation, check: &OneVersionCheck) -> CheckOutcome {
    let mut by_version: BTreeMap<Version, Vec<String>> = BTreeMap::new();
    // A workload with the container whose image names no version (a digest alone,
    // `latest`): nothing says it runs the others' version (issue 49: "one version: 1.16.5
    // (1 component)" beside an agent pinned by digest only).
    let mut unversioned: Vec<String> = Vec::new();
    for v in &check.each {
        let (found, failure) = select(obs, &v.workload);
        if let Some(f) = failure {
            return f;
        }
        for (kind, w) in found {
            let version = match &v.from {
                VersionFrom::Container(c) => w.images.get(c).and_then(|i| Version::of_image(i)),
                VersionFrom::Label(l) => w.version_labels.get(l).and_then(|t| Version::parse(t)),
            };
            let named = format!("{} {}/{}", kind.as_str(), w.namespace, w.name);
            match (version, &v.from) {
                (Some(version), _) => by_version.entry(version).or_default().push(named),
                (None, VersionFrom::Container(c)) => {
                    if let Some(image) = w.images.get(c) {
                        unversioned.push(format!("{named} runs {image}"));
                    }
                }
                (None, VersionFrom::Label(_)) => {}
            }
        }
    }
    let counted: usize = by_version.values().map(Vec::len).sum();
    if !unversioned.is_empty() && !by_version.is_empty() {
        return CheckOutcome::unknown(format!(
            "cannot compare versions: {} (an image without a version tag); the others: {}",
            capped(unversioned).replace("; ", ", "),
            by_version
                .iter()
                .map(|(v, names)| format!("{v} on {}", capped(names.clone()).replace("; ", ", ")))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    match by_version.len() {
        0 => CheckOutcome::yes(format!(
            "no version to compare on {}",
            check
                .each
                .iter()
                .map(|v| format!(
                    "{} ({})",
                    v.workload.selector(),
                    match &v.from {
                        VersionFrom::Container(c) => c,
                        VersionFrom::Label(l) => l,
                    }
                ))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        1 => CheckOutcome::yes(format!(
            "one version: {} ({counted} component{})",
            by_version.keys().map(|v| v.to_string()).collect::<String>(),
            if counted == 1 { "" } else { "s" }
        )),
        _ => CheckOutcome::no(format!(
            "upgrade half done: {}",
            by_version
                .iter()
                .rev()
                .map(|(v, names)| format!("{v} on {}", capped(names.clone()).replace("; ", ", ")))
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}
