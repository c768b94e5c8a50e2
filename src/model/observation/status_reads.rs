//! The two reads that say why something is unhealthy (SPEC §6 v0.3): one ConfigMap by name,
//! decoded into the keys its check names (Rook's mon quorum), and the pods of a workload
//! that is not rolled out, listed by the workload's own label selector, decoded into what
//! explains it (waiting reason, restarts, last exit code, the image's digest and node).
//! Nothing else of either is kept: a ConfigMap's other keys, a pod's env, args and mounts
//! never reach memory past the parser.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::fmt;
use std::io::Read;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::answer::{check_object, Head, HeadMeta, Scalar};
use super::kube::{decode_list, unbounded};
use super::meta::words;
use super::typed_list::weight;
use crate::error::{Error, Result};
use crate::pool::Budget;

/// At most this many pods of one workload are named in evidence.
pub const MAX_PODS: usize = 3;

/// The ConfigMap `namespace/name` (`GET /api/v1/namespaces/NS/configmaps/NAME`): only the
/// named keys, escaped and capped; with [`super::agents::LAST_CHANGE`] among them, its newest
/// `managedFields[].time` under that key. The answer must be that ConfigMap
/// ([`super::answer::check_object`]): anything else is refused, saying what came back.
pub fn parse_config_map(
    text: &str,
    namespace: &str,
    name: &str,
    keys: &[String],
) -> Result<BTreeMap<String, String>> {
    read_config_map(text.as_bytes(), namespace, name, keys, &unbounded())
}

/// [`parse_config_map`] as the object arrives: every data key but the named ones is skipped
/// unread (a 40 MiB value beside a small checked key is never held), what is kept is charged
/// to `budget`.
pub fn read_config_map<R: Read>(
    reader: R,
    namespace: &str,
    name: &str,
    keys: &[String],
    budget: &Budget,
) -> Result<BTreeMap<String, String>> {
    let what = format!("GET /api/v1/namespaces/{namespace}/configmaps/{name}");
    let malformed = |e: serde_json::Error| {
        Error::input(
            format!("malformed answer to {what}: {e}"),
            "expected one ConfigMap object",
        )
    };
    // The object is one item: its named keys cannot cost more than the budget has left
    // (plus the largest object) before they are decoded and charged.
    let cap = super::item_cap::ItemCap::default();
    cap.open(budget);
    let capped = super::item_cap::Capped {
        inner: reader,
        cap: &cap,
        what: &what,
    };
    let mut de = serde_json::Deserializer::from_reader(capped);
    let (head, mut kept, meta) = ConfigMapSeed { keys }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| {
            let text = e.to_string();
            match text.rsplit_once(" at line ") {
                Some((said, _)) if said.starts_with(crate::pool::OVER_BUDGET) => {
                    Error::input(said, "")
                }
                Some(_) | None => malformed(e),
            }
        })?;
    check_object(&head, "", "ConfigMap", Some(namespace), name).map_err(|m| Error::input(m, ""))?;
    // Its last write, when a check asks (a reserved key no data key can be).
    let last = super::agents::LAST_CHANGE;
    if keys.iter().any(|k| k == last) {
        if let Some(t) = meta.last_change() {
            kept.insert(last.to_string(), words(&t));
        }
    }
    budget
        .charge(weight(&kept), &what)
        .map_err(|m| Error::input(m, ""))?;
    Ok(kept)
}

/// A ConfigMap object: what it says it is, the named keys of its `data`, its managed fields.
struct ConfigMapSeed<'k> {
    keys: &'k [String],
}

type ConfigMapParts = (Head, BTreeMap<String, String>, super::agents::RawMeta);

impl<'de> DeserializeSeed<'de> for ConfigMapSeed<'_> {
    type Value = ConfigMapParts;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ConfigMapSeed<'_> {
    type Value = ConfigMapParts;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a ConfigMap object")
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let (mut head, mut kept) = (Head::default(), BTreeMap::new());
        let mut meta = super::agents::RawMeta::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "apiVersion" => head.api_version = map.next_value()?,
                "kind" => head.kind = map.next_value()?,
                "status" => head.status = map.next_value::<Option<Scalar>>()?,
                "metadata" => {
                    meta = map.next_value::<Option<_>>()?.unwrap_or_default();
                    head.metadata = HeadMeta {
                        name: meta.name.clone(),
                        namespace: meta.namespace.clone(),
                        continue_token: None,
                    };
                }
                "data" => kept = map.next_value_seed(DataSeed { keys: self.keys })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok((head, kept, meta))
    }
}

/// A ConfigMap's `data`: the named keys' values (strings), every other value skipped unread.
struct DataSeed<'k> {
    keys: &'k [String],
}

impl<'de> DeserializeSeed<'de> for DataSeed<'_> {
    type Value = BTreeMap<String, String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DataSeed<'_> {
    type Value = BTreeMap<String, String>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of strings")
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
        Ok(BTreeMap::new())
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut kept = BTreeMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if self.keys.contains(&key) {
                let value: String = map.next_value()?;
                kept.insert(key, words(&value));
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(kept)
    }
}

/// A label selector from a workload's `spec.selector.matchLabels`, `k=v,k2=v2` (sorted):
/// `None` when empty or when a key or value is not a valid label (hostile data never
/// reaches a query or an argv).
pub fn selector_of(labels: &BTreeMap<String, String>) -> Option<String> {
    let value_ok = |v: &str| {
        v.len() <= 63
            && v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    let key_ok = |k: &str| {
        let (prefix, name) = k.rsplit_once('/').unwrap_or(("", k));
        !name.is_empty()
            && value_ok(name)
            && prefix.len() <= 253
            && prefix
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b))
    };
    if labels.is_empty() || !labels.iter().all(|(k, v)| key_ok(k) && value_ok(v)) {
        return None;
    }
    Some(
        labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// One pod of a workload, as the evidence needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodStatus {
    pub name: String,
    /// `spec.nodeName` (empty: not scheduled).
    pub node: String,
    /// The first container not ready, by `status.containerStatuses`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<ContainerStatus>,
}

/// A container's state: why it waits, how often it restarted, how it last ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContainerStatus {
    pub name: String,
    /// `state.waiting.reason`: `CrashLoopBackOff`, `ImagePullBackOff`, ...
    #[serde(skip_serializing_if = "String::is_empty")]
    pub waiting: String,
    pub restarts: i64,
    /// `lastState.terminated.exitCode` (or `state.terminated`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// The image is pinned by digest (`@sha256:` in the spec's image or the status' image).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub by_digest: bool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPod {
    metadata: RawName,
    spec: RawPodSpec,
    status: RawPodStatus,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawName {
    name: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawPodSpec {
    node_name: String,
    containers: Vec<RawSpecContainer>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawSpecContainer {
    name: String,
    image: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawPodStatus {
    container_statuses: Vec<RawContainerStatus>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawContainerStatus {
    name: String,
    ready: bool,
    restart_count: i64,
    image: String,
    state: RawState,
    last_state: RawState,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawState {
    waiting: Option<RawReason>,
    terminated: Option<RawTerminated>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawReason {
    reason: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawTerminated {
    exit_code: Option<i64>,
}

/// `kubectl get pods -n NS -l SELECTOR -o json`, at most [`MAX_PODS`] pods (not-ready ones
/// first, then by name).
pub fn parse_workload_pods(text: &str) -> Result<Vec<PodStatus>> {
    read_workload_pods(text.as_bytes(), &unbounded())
}

/// [`parse_workload_pods`] as the list arrives, each pod charged to `budget`.
pub fn read_workload_pods<R: Read>(reader: R, budget: &Budget) -> Result<Vec<PodStatus>> {
    let what = "GET /api/v1/namespaces/NS/pods?labelSelector=SELECTOR";
    let mut pods = decode_list(reader, what, "", "Pod", budget, |p: RawPod| {
        let digests: BTreeSet<String> = p
            .spec
            .containers
            .iter()
            .filter(|c| c.image.contains("@sha256:"))
            .map(|c| c.name.clone())
            .collect();
        let container = p
            .status
            .container_statuses
            .into_iter()
            .find(|c| !c.ready)
            .map(|c| ContainerStatus {
                by_digest: digests.contains(&c.name) || c.image.contains("@sha256:"),
                name: words(&c.name),
                waiting: c
                    .state
                    .waiting
                    .map(|w| words(&w.reason))
                    .unwrap_or_default(),
                restarts: c.restart_count,
                exit_code: c
                    .last_state
                    .terminated
                    .and_then(|t| t.exit_code)
                    .or_else(|| c.state.terminated.and_then(|t| t.exit_code)),
            });
        PodStatus {
            name: words(&p.metadata.name),
            node: words(&p.spec.node_name),
            container,
        }
    })?;
    pods.sort_by(|a, b| (a.container.is_none(), &a.name).cmp(&(b.container.is_none(), &b.name)));
    pods.truncate(MAX_PODS);
    Ok(pods)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_map_keeps_only_the_named_keys() {
        let text = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"rook-ceph-mon-endpoints","namespace":"rook-ceph"},
            "data":{"data":"a=10.0.0.1:6789,b=10.0.0.2:6789","mapping":"{\"node\":{}}","maxMonId":"2","outOfQuorum":"b","csi-cluster-config-json":"SECRETISH"}}"#;
        let parse = |text: &str, keys: &[String]| {
            parse_config_map(text, "rook-ceph", "rook-ceph-mon-endpoints", keys)
        };
        let kept = parse(text, &["outOfQuorum".to_string()]).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept["outOfQuorum"], "b");
        assert!(parse("not json", &[]).is_err());
        let typed = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"rook-ceph-mon-endpoints","namespace":"rook-ceph"},"data":{"k":1}}"#;
        // A checked key must hold a string; a key no check names is skipped unread.
        assert!(parse(typed, &["k".to_string()]).is_err());
        assert_eq!(parse(typed, &[]).unwrap().len(), 0);
        // `{}` is not that ConfigMap, never an empty one (issue 31: ceph read as present).
        assert_eq!(
            parse("{}", &["outOfQuorum".to_string()]).unwrap_err().message,
            "the answer was an object without apiVersion, kind or name, not v1 ConfigMap rook-ceph/rook-ceph-mon-endpoints"
        );
    }

    /// Issue 31 item 3: a checked key of 6 MiB against a 1 MiB budget is stopped while it is
    /// read (1 MiB left plus the largest object), never allocated and then refused.
    #[test]
    fn a_checked_key_bigger_than_the_budget_has_left_is_stopped_while_it_is_read() {
        let huge = "x".repeat(6 << 20);
        let text = format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"cilium-config","namespace":"kube-system"}},"data":{{"enable-wireguard":"{huge}"}}}}"#
        );
        let keys = ["enable-wireguard".to_string()];
        let read =
            |b: &Budget| read_config_map(text.as_bytes(), "kube-system", "cilium-config", &keys, b);
        let small = Budget::new(1 << 20);
        assert_eq!(
            read(&small).unwrap_err().message,
            "over nestor's memory budget of 1 MiB for one read of a cluster: an item of GET /api/v1/namespaces/kube-system/configmaps/cilium-config is larger than what the budget has left (not decoded further)"
        );
        assert_eq!(small.used(), 0);
        assert_eq!(read(&Budget::new(32 << 20)).unwrap().len(), 1);
    }

    #[test]
    fn selectors_are_built_from_valid_labels_only() {
        let l = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            selector_of(&l(&[
                ("app.kubernetes.io/name", "argocd-redis"),
                ("tier", "x")
            ])),
            Some("app.kubernetes.io/name=argocd-redis,tier=x".into())
        );
        assert_eq!(selector_of(&l(&[])), None);
        assert_eq!(selector_of(&l(&[("a", "b,c=d")])), None);
        assert_eq!(selector_of(&l(&[("a b", "c")])), None);
        assert_eq!(selector_of(&l(&[("a", "x&y")])), None);
    }
}
