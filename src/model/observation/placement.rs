//! Where a namespace's pods of one label selector run (SPEC §6 v0.4: Rook's mons and OSDs
//! on at least 3 distinct nodes): each pod decoded into its name, `spec.nodeName`, its
//! phase and the labels the checks name (Rook's `ceph_daemon_id`), nothing else — no spec,
//! no env, no other label. Read with `limit=`: a list the API server cut there (its
//! `metadata.continue` set) is a failed read, never a placement of the first page.

use std::collections::BTreeMap;
use std::io::Read;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::kube::decode_list;
use super::meta::words;
use crate::error::Result;
use crate::pool::Budget;

/// One pod, as a placement check needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PlacedPod {
    pub name: String,
    /// `spec.nodeName` (empty: not scheduled yet).
    pub node: String,
    /// `status.phase` (`Running`, `Pending`, `Failed`, ...).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phase: String,
    /// The labels the checks name (`ceph_daemon_id`), when the pod carries them.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
}

impl PlacedPod {
    /// Succeeded or Failed (an evicted pod keeps its node): it runs nowhere.
    pub fn is_finished(&self) -> bool {
        self.phase == "Succeeded" || self.phase == "Failed"
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPod {
    metadata: RawMeta,
    spec: RawSpec,
    status: RawStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMeta {
    name: String,
    labels: BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawSpec {
    node_name: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawStatus {
    phase: String,
}

/// `GET /api/v1/namespaces/NS/pods?labelSelector=SELECTOR&limit=N` held whole (tests).
pub fn parse_pod_placement(text: &str, labels: &[String]) -> Result<Vec<PlacedPod>> {
    read_pod_placement(text.as_bytes(), labels, &super::kube::unbounded())
}

/// [`parse_pod_placement`] as the list arrives, each pod charged to `budget`, kept with
/// the `labels` named (escaped). Sorted by name.
pub fn read_pod_placement<R: Read>(
    reader: R,
    labels: &[String],
    budget: &Budget,
) -> Result<Vec<PlacedPod>> {
    let what = "GET /api/v1/namespaces/NS/pods?labelSelector=SELECTOR";
    let mut pods = decode_list(reader, what, "", "Pod", budget, |p: RawPod| PlacedPod {
        name: words(&p.metadata.name),
        node: words(&p.spec.node_name),
        phase: words(&p.status.phase),
        labels: p
            .metadata
            .labels
            .into_iter()
            .filter(|(k, _)| labels.contains(k))
            .map(|(k, v)| (k, words(&v)))
            .collect(),
    })?;
    pods.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(pods)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pods_keep_name_node_phase_and_the_named_labels_only() {
        let text = r#"{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"7"},"items":[
          {"metadata":{"name":"rook-ceph-mon-b-5d8c","namespace":"rook-ceph","labels":{"app":"rook-ceph-mon","ceph_daemon_id":"b","mon":"b","rook_cluster":"rook-ceph"}},
           "spec":{"nodeName":"dirqual2","containers":[{"name":"mon","image":"quay.io/ceph/ceph:v19.2.0","env":[{"name":"SECRET-MARKER"}]}]},"status":{"phase":"Running"}},
          {"metadata":{"name":"rook-ceph-mon-a-6b7d","labels":{"app":"rook-ceph-mon","ceph_daemon_id":"a\u001b[31m"}},"spec":{},"status":{"phase":"Pending"}}]}"#;
        let pods = parse_pod_placement(text, &["ceph_daemon_id".to_string()]).unwrap();
        assert_eq!(pods[0].name, "rook-ceph-mon-a-6b7d");
        assert_eq!(
            (pods[0].node.as_str(), pods[0].phase.as_str()),
            ("", "Pending")
        );
        assert!(!pods[0].labels["ceph_daemon_id"].contains('\u{1b}'));
        assert_eq!(pods[1].node, "dirqual2");
        assert_eq!(
            pods[1].labels.keys().collect::<Vec<_>>(),
            ["ceph_daemon_id"]
        );
        let json = serde_json::to_string(&pods).unwrap();
        assert!(
            !json.contains("SECRET-MARKER") && !json.contains("rook_cluster"),
            "{json}"
        );
        // Not a PodList, no items, or cut at the limit: an error, never an empty placement.
        assert!(
            parse_pod_placement(r#"{"kind":"NodeList","apiVersion":"v1","items":[]}"#, &[])
                .is_err()
        );
        assert!(parse_pod_placement(r#"{"kind":"PodList","apiVersion":"v1"}"#, &[]).is_err());
        let cut =
            r#"{"kind":"PodList","apiVersion":"v1","metadata":{"continue":"eyJ9"},"items":[]}"#;
        let e = parse_pod_placement(cut, &[]).unwrap_err();
        assert!(e.message.contains("metadata.continue set"), "{e:?}");
    }
}
