//! Strict decoding of `oneVersion:`: a list of workload selections, each naming exactly one
//! of `container:` (whose image tag is the version) or `label:` (one of the version labels
//! a workload read keeps).

use serde::Deserialize;

use super::{workload, RawWorkload, WorkloadKind};
use crate::model::catalog::check::{OneVersionCheck, VersionFrom, Versioned, VERSION_LABELS};

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawVersioned {
    kind: Option<WorkloadKind>,
    namespace: String,
    name: Option<String>,
    name_prefix: Option<String>,
    container: Option<String>,
    label: Option<String>,
}

pub(super) fn one_version(each: Vec<RawVersioned>) -> Result<OneVersionCheck, String> {
    if each.is_empty() {
        return Err("`oneVersion:` lists the workloads whose versions must agree".into());
    }
    let each = each
        .into_iter()
        .map(|v| {
            let from = match (v.container, v.label) {
                (Some(c), None) if !c.trim().is_empty() => VersionFrom::Container(c),
                (None, Some(l)) if VERSION_LABELS.contains(&l.as_str()) => VersionFrom::Label(l),
                (None, Some(l)) => {
                    return Err(format!(
                        "`label: {l}` is not a version label nestor reads (one of {})",
                        VERSION_LABELS.join(", ")
                    ))
                }
                _ => {
                    return Err(
                        "each `oneVersion:` entry names exactly one of `container: NAME` (its image tag) or `label: KEY`"
                            .into(),
                    )
                }
            };
            let w = workload(RawWorkload {
                kind: v.kind,
                namespace: v.namespace,
                name: v.name,
                name_prefix: v.name_prefix,
            })?;
            Ok(Versioned { workload: w, from })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(OneVersionCheck { each })
}
