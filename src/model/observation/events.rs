//! Warning Events (SPEC §6 v0.4 "Warnings explain"): one namespace's `events.k8s.io/v1`
//! EventList, read by `fieldSelector=type=Warning` with a `limit`, decoded while it arrives
//! into what the evidence quotes — the object it is about (`regarding`: kind, namespace,
//! name), `reason`, `note` (escaped and capped here), `type`, the count (`series.count`, else
//! `deprecatedCount`, else 1) and when it was last seen (`series.lastObservedTime`, else
//! `eventTime`, else `deprecatedLastTimestamp`). Nothing else of an Event is kept.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::meta::words;
use super::typed_list::decode_list;
use crate::error::Result;
use crate::pool::Budget;

/// The group Events are read from (never the core `v1` Events).
pub const EVENTS_GROUP: &str = "events.k8s.io";

/// At most this many Events of one namespace are read (the GET's `limit`): the newest are
/// not guaranteed among them on a namespace with more (the API server lists by name).
pub const EVENTS_LIMIT: usize = 100;

/// An object an Event is about, or a failing check names.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub struct ObjectRef {
    pub kind: String,
    /// Empty for a cluster-scoped object.
    #[serde(default)]
    pub namespace: String,
    pub name: String,
    /// The object's `metadata.uid`, when it was read: an Event is about this object only
    /// when it names the same uid (one about a deleted object of the same name is not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

impl ObjectRef {
    pub fn new(kind: &str, namespace: &str, name: &str) -> ObjectRef {
        ObjectRef {
            kind: kind.to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
            uid: None,
        }
    }

    /// Whether an Event's `regarding` names this object: the same kind, namespace and name,
    /// and, when this object's uid was read, the same uid (an Event about a deleted object of
    /// the same name, or one that names no uid, is not about this one).
    pub fn named_by(&self, regarding: &ObjectRef) -> bool {
        (&self.kind, &self.namespace, &self.name)
            == (&regarding.kind, &regarding.namespace, &regarding.name)
            && self
                .uid
                .as_ref()
                .is_none_or(|u| regarding.uid.as_ref() == Some(u))
    }

    /// `Kind ns/name` (escaped), as the evidence names an object.
    pub fn label(&self) -> String {
        if self.namespace.is_empty() {
            format!("{} {}", words(&self.kind), words(&self.name))
        } else {
            format!(
                "{} {}/{}",
                words(&self.kind),
                words(&self.namespace),
                words(&self.name)
            )
        }
    }
}

/// One Event, reduced to what the evidence quotes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub regarding: ObjectRef,
    /// Escaped and capped.
    pub reason: String,
    /// Escaped and capped ([`words`]).
    pub note: String,
    /// `Warning` or `Normal` (the server filters by type; this is checked again).
    #[serde(rename = "type")]
    pub kind: String,
    pub count: u64,
    /// When it was last seen (seconds since the epoch); `None`: no readable time.
    pub last_seen: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawEvent {
    regarding: RawRef,
    reason: String,
    note: String,
    #[serde(rename = "type")]
    kind: String,
    series: Option<RawSeries>,
    deprecated_count: Option<u64>,
    event_time: Option<String>,
    deprecated_last_timestamp: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawRef {
    kind: String,
    namespace: String,
    name: String,
    uid: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawSeries {
    count: Option<u64>,
    last_observed_time: Option<String>,
}

/// Decode one namespace's EventList answer (`what` names its GET), each Event charged to
/// `budget`; the List must be an `EventList` of `events.k8s.io` whose items are Events.
pub fn read_events<R: std::io::Read>(reader: R, what: &str, budget: &Budget) -> Result<Vec<Event>> {
    decode_list(
        reader,
        what,
        EVENTS_GROUP,
        "Event",
        budget,
        |e: RawEvent| {
            let time = |t: &Option<String>| t.as_deref().and_then(crate::clock::parse_rfc3339);
            let series = e.series.unwrap_or_default();
            Event {
                regarding: ObjectRef {
                    kind: e.regarding.kind,
                    namespace: e.regarding.namespace,
                    name: e.regarding.name,
                    uid: Some(words(&e.regarding.uid)).filter(|u| !u.is_empty()),
                },
                reason: words(&e.reason),
                note: words(&e.note),
                kind: words(&e.kind),
                count: series.count.or(e.deprecated_count).unwrap_or(1).max(1),
                last_seen: time(&series.last_observed_time)
                    .or_else(|| time(&e.event_time))
                    .or_else(|| time(&e.deprecated_last_timestamp)),
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget() -> Budget {
        Budget::new(usize::MAX)
    }

    #[test]
    fn an_event_keeps_regarding_reason_note_count_and_last_seen() {
        // Shaped as the API server serves events.k8s.io/v1 (k8s.io/api/events/v1 Event).
        let text = r#"{"kind":"EventList","apiVersion":"events.k8s.io/v1","metadata":{"resourceVersion":"77"},"items":[
          {"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"web.17f1","namespace":"shop"},
           "eventTime":null,"reportingController":"kubelet","reportingInstance":"node-1","action":"",
           "reason":"BackOff","regarding":{"kind":"Pod","namespace":"shop","name":"web-1","apiVersion":"v1","fieldPath":"spec.containers{web}"},
           "note":"Back-off restarting failed container web\u001b[31m","type":"Warning",
           "deprecatedSource":{"component":"kubelet","host":"node-1"},
           "deprecatedFirstTimestamp":"2026-11-30T08:00:00Z","deprecatedLastTimestamp":"2026-11-30T09:00:00Z","deprecatedCount":12},
          {"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"pvc.1","namespace":"shop"},
           "eventTime":"2026-11-30T08:00:00.123456Z","series":{"count":4,"lastObservedTime":"2026-11-30T09:30:00.000001Z"},
           "reportingController":"persistentvolume-controller","reportingInstance":"","action":"Provisioning",
           "reason":"ProvisioningFailed","regarding":{"kind":"PersistentVolumeClaim","namespace":"shop","name":"data"},
           "note":"storageclass.storage.k8s.io \"gold\" not found","type":"Warning"}]}"#;
        let got = read_events(text.as_bytes(), "GET events", &budget()).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].regarding, ObjectRef::new("Pod", "shop", "web-1"));
        assert_eq!(
            got[0].note,
            "Back-off restarting failed container web\\x1b[31m"
        );
        assert_eq!((got[0].count, got[0].last_seen), (12, Some(1_796_029_200)));
        assert_eq!(got[1].reason, "ProvisioningFailed");
        assert_eq!((got[1].count, got[1].last_seen), (4, Some(1_796_031_000)));
        assert_eq!(got[1].kind, "Warning");
    }

    #[test]
    fn only_an_event_list_of_events_k8s_io_is_an_answer() {
        let core = r#"{"kind":"EventList","apiVersion":"v1","items":[]}"#;
        assert!(read_events(core.as_bytes(), "GET events", &budget()).is_err());
        let other = r#"{"kind":"PodList","apiVersion":"events.k8s.io/v1","items":[]}"#;
        assert!(read_events(other.as_bytes(), "GET events", &budget()).is_err());
        let item = r#"{"kind":"EventList","apiVersion":"events.k8s.io/v1","items":[{"kind":"Pod","apiVersion":"v1"}]}"#;
        assert!(read_events(item.as_bytes(), "GET events", &budget()).is_err());
    }
}
