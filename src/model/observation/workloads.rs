//! Parsers of DaemonSet, Deployment and StatefulSet lists: the few fields `kubectl rollout
//! status` looks at, turned into a [`Rollout`] per workload.

use serde::Deserialize;

use std::io::Read;

use super::kube::{unbounded, Rollout, Workload};
use super::meta::Deletion;
use super::request::WorkloadName;
use super::typed_list::decode_list_kept;
use crate::error::Result;
use crate::pool::Budget;

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawWorkload {
    metadata: WorkloadMeta,
    spec: RawWorkloadSpec,
    status: RawWorkloadStatus,
}

/// Only what a workload check uses of `metadata` (its version labels only, never another
/// label or an annotation).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct WorkloadMeta {
    name: String,
    labels: std::collections::BTreeMap<String, String>,
    namespace: Option<String>,
    generation: i64,
    deletion_timestamp: Option<String>,
    finalizers: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawWorkloadSpec {
    replicas: Option<i64>,
    template: RawTemplate,
    update_strategy: RawStrategy,
    paused: bool,
    selector: RawSelector,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawSelector {
    match_labels: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawTemplate {
    spec: RawPodSpec,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPodSpec {
    containers: Vec<RawContainer>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawContainer {
    name: String,
    image: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawStrategy {
    #[serde(rename = "type")]
    type_: String,
    rolling_update: RawRollingUpdate,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawRollingUpdate {
    partition: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawWorkloadStatus {
    observed_generation: i64,
    desired_number_scheduled: i64,
    number_ready: i64,
    number_available: i64,
    updated_number_scheduled: i64,
    replicas: i64,
    ready_replicas: i64,
    updated_replicas: i64,
    available_replicas: i64,
    current_revision: String,
    update_revision: String,
    conditions: Vec<RawWorkloadCondition>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawWorkloadCondition {
    #[serde(rename = "type")]
    type_: String,
    reason: String,
}

fn workload(w: RawWorkload, desired: i64, ready: i64, rollout: Rollout) -> Workload {
    Workload {
        namespace: w.metadata.namespace.unwrap_or_default(),
        name: w.metadata.name,
        desired,
        ready,
        rollout: Some(rollout),
        deleting: Deletion::from_meta(w.metadata.deletion_timestamp, w.metadata.finalizers),
        selector: super::status_reads::selector_of(&w.spec.selector.match_labels),
        images: w
            .spec
            .template
            .spec
            .containers
            .iter()
            .map(|c| (c.name.clone(), c.image.clone()))
            .collect(),
        version_labels: w
            .metadata
            .labels
            .iter()
            .filter(|(k, _)| super::kube::VERSION_LABELS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    }
}

/// The DaemonSet list (`GET /apis/apps/v1/daemonsets`, or one namespace's).
pub fn parse_daemonsets(text: &str) -> Result<Vec<Workload>> {
    read_daemonsets(text.as_bytes(), &unbounded(), None)
}

/// Whether `keep` (the checks' selections; `None`: every workload) takes `w`.
fn selected(keep: Option<&[WorkloadName]>, w: &RawWorkload) -> bool {
    let namespace = w.metadata.namespace.as_deref().unwrap_or_default();
    keep.is_none_or(|names| names.iter().any(|n| n.matches(namespace, &w.metadata.name)))
}

/// [`parse_daemonsets`] as the list arrives, each workload `keep` selects (`None`: every one)
/// charged to `budget`, the others dropped as they go by.
pub fn read_daemonsets<R: Read>(
    reader: R,
    budget: &Budget,
    keep: Option<&[WorkloadName]>,
) -> Result<Vec<Workload>> {
    let what = "GET /apis/apps/v1/daemonsets";
    decode_list_kept(
        reader,
        what,
        "apps",
        "DaemonSet",
        budget,
        |w: RawWorkload| {
            if !selected(keep, &w) {
                return None;
            }
            let st = &w.status;
            let rollout = Rollout {
                generation: w.metadata.generation,
                observed_generation: st.observed_generation,
                updated: st.updated_number_scheduled,
                available: st.number_available,
                current: st.desired_number_scheduled,
                strategy: w.spec.update_strategy.type_.clone(),
                ..Rollout::default()
            };
            let (d, r) = (st.desired_number_scheduled, st.number_ready);
            Some(workload(w, d, r, rollout))
        },
    )
}

fn replicated<R: Read>(
    reader: R,
    what: &str,
    statefulset: bool,
    budget: &Budget,
    keep: Option<&[WorkloadName]>,
) -> Result<Vec<Workload>> {
    let kind = if statefulset {
        "StatefulSet"
    } else {
        "Deployment"
    };
    decode_list_kept(reader, what, "apps", kind, budget, |w: RawWorkload| {
        if !selected(keep, &w) {
            return None;
        }
        let st = &w.status;
        let rollout = Rollout {
            generation: w.metadata.generation,
            observed_generation: st.observed_generation,
            updated: st.updated_replicas,
            available: st.available_replicas,
            current: st.replicas,
            strategy: if statefulset {
                w.spec.update_strategy.type_.clone()
            } else {
                String::new()
            },
            partition: if statefulset {
                w.spec.update_strategy.rolling_update.partition
            } else {
                None
            },
            current_revision: st.current_revision.clone(),
            update_revision: st.update_revision.clone(),
            deadline_exceeded: !statefulset
                && st
                    .conditions
                    .iter()
                    .any(|c| c.type_ == "Progressing" && c.reason == "ProgressDeadlineExceeded"),
            paused: !statefulset && w.spec.paused,
        };
        let (d, r) = (w.spec.replicas.unwrap_or(1), st.ready_replicas);
        Some(workload(w, d, r, rollout))
    })
}

/// The Deployment list (`GET /apis/apps/v1/deployments`, or one namespace's).
pub fn parse_deployments(text: &str) -> Result<Vec<Workload>> {
    read_deployments(text.as_bytes(), &unbounded(), None)
}

/// [`parse_deployments`] as the list arrives, each workload `keep` selects charged to
/// `budget`.
pub fn read_deployments<R: Read>(
    reader: R,
    budget: &Budget,
    keep: Option<&[WorkloadName]>,
) -> Result<Vec<Workload>> {
    replicated(reader, "GET /apis/apps/v1/deployments", false, budget, keep)
}

/// The StatefulSet list (`GET /apis/apps/v1/statefulsets`, or one namespace's).
pub fn parse_statefulsets(text: &str) -> Result<Vec<Workload>> {
    read_statefulsets(text.as_bytes(), &unbounded(), None)
}

/// [`parse_statefulsets`] as the list arrives, each workload `keep` selects charged to
/// `budget`.
pub fn read_statefulsets<R: Read>(
    reader: R,
    budget: &Budget,
    keep: Option<&[WorkloadName]>,
) -> Result<Vec<Workload>> {
    replicated(reader, "GET /apis/apps/v1/statefulsets", true, budget, keep)
}

#[cfg(test)]
#[path = "workloads_select_tests.rs"]
mod select_tests;
