//! `apiServices: {available: true}` (SPEC §6 v0.4 "Aggregated APIs and webhooks must
//! answer"): every APIService (`apiregistration.k8s.io/v1`) served by a Service must be
//! `Available=True`. An unavailable one thins discovery of its group, so every check on that
//! group is unknown naming it, never absent (`state::apiservices::gate`). A local APIService
//! (no `spec.service`: the kube-apiserver serves the group itself) is always available.

use crate::model::observation::{FieldPath, FieldUse};

use super::Objects;

/// The type the check reads.
pub const APISERVICES: &str = "apiservices.apiregistration.k8s.io";

/// Every APIService backed by a Service `Available=True`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiServicesCheck {
    pub objects: Objects,
}

impl ApiServicesCheck {
    pub fn new() -> ApiServicesCheck {
        ApiServicesCheck {
            objects: Objects {
                resource: APISERVICES.to_string(),
                kind: Some("APIService".to_string()),
                namespace: None,
                name: None,
            },
        }
    }

    /// `.spec.group`: the group the APIService serves.
    pub fn group() -> FieldPath {
        FieldPath::of(&["spec", "group"])
    }

    /// `.spec.service.name`: absent on a local APIService.
    pub fn service() -> FieldPath {
        FieldPath::of(&["spec", "service", "name"])
    }

    /// What the read keeps of each APIService: its group, its service's name and its
    /// conditions (status, reason and message), nothing else (never `caBundle`).
    pub fn uses(&self) -> Vec<(&Objects, Vec<FieldUse>)> {
        vec![(
            &self.objects,
            vec![
                FieldUse::Value(Self::group()),
                FieldUse::Value(Self::service()),
                FieldUse::Conditions,
            ],
        )]
    }
}

impl Default for ApiServicesCheck {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Display for ApiServicesCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "every {} served by a Service Available=True (a local one always is); an unavailable one is named, and every check on its group is unknown, never absent",
            self.objects.kind_label()
        )
    }
}
