//! `--explain` (SPEC §16): for each evidence line, the read a person runs by hand to see the
//! same thing — the object by name (or the list the check walks) and the fields the check
//! judged, as a JSONPath. Pure: a description of the read; `read::explain` turns it into a
//! kubectl command line and checks it against the allowlist.

use crate::model::catalog::Layer;
use crate::model::observation::Observation;
use crate::model::state::{evaluate_check, DeclaredNode, Phase};

/// A read-only kubectl read, without the target (`--kubeconfig`, `--context`), which the
/// read layer adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ByHand {
    /// `kubectl api-versions`: the served groups.
    ApiVersions,
    /// `kubectl get RESOURCE [NAME] (-n NS | -A) [-l SELECTOR] -o jsonpath=...`.
    Get {
        resource: String,
        name: Option<String>,
        /// `None` for a cluster-scoped read; `Some("")` never: all namespaces is `all`.
        namespace: Option<String>,
        all_namespaces: bool,
        selector: Option<String>,
        jsonpath: String,
    },
}

/// One evidence line and the read that shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explained {
    pub evidence: String,
    pub by_hand: ByHand,
}

/// Each check of a layer (detect, then health) with its evidence line, as `evaluate_layer`
/// words it, and the read behind it. Host-level and unobservable layers have none here.
pub fn layer(layer: &Layer, declared_nodes: &[DeclaredNode], obs: &Observation) -> Vec<Explained> {
    if layer.host.is_some() || !layer.observable {
        return vec![];
    }
    let phased = layer
        .detect
        .iter()
        .map(|c| (c, Phase::Detect))
        .chain(layer.healthy.iter().map(|c| (c, Phase::Healthy)));
    let mut out: Vec<Explained> = vec![];
    for (check, phase) in phased {
        let evidence = evaluate_check(check, phase, declared_nodes, obs).evidence;
        if out.iter().any(|e| e.evidence == evidence) {
            continue;
        }
        out.push(Explained {
            evidence,
            by_hand: by_hand(check),
        });
    }
    out
}

pub(crate) mod by_hand;
pub use by_hand::by_hand;
