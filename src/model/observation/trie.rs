//! What the custom-object decoder keeps at each node of an object's tree: the paths the
//! catalog's checks name, plus what every object must show (deletion, suspension, blocking
//! conditions). Built once per list, walked by the seeds in `objects.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::meta::SUSPENSIONS;
use super::{annotation_field, members_key, FieldUse};

/// What to keep at one node of the object's tree.
#[derive(Debug, Default)]
pub(super) struct Trie {
    pub(super) children: BTreeMap<String, Trie>,
    pub(super) keep: Vec<Keep>,
}

#[derive(Debug, Clone)]
pub(super) enum Keep {
    Name,
    Namespace,
    Value(Arc<str>),
    Details(String),
    Conditions,
    /// `status.conditions`, for `DeletionIsBlocked` only (read on every object).
    Blocked,
    DeletionTimestamp,
    Finalizers,
    /// One suspension annotation ([`SUSPENSIONS`]): its key.
    Annotation(String),
    /// The members of a list or map, under this field name ([`FieldUse::Members`]).
    Members(Arc<str>),
    Messages,
    /// A list's items: the label they are kept under, and the key read on each.
    Items(String, String),
    /// `status.parents[]`: the entries of this controller.
    Parents(String),
}

impl Trie {
    pub(super) fn build(uses: &BTreeSet<FieldUse>) -> Trie {
        let mut root = Trie::default();
        let mut add = |segments: &[String], keep: Keep| {
            let mut node = &mut root;
            for s in segments {
                node = node.children.entry(s.clone()).or_default();
            }
            node.keep.push(keep);
        };
        add(&["metadata".into(), "name".into()], Keep::Name);
        add(&["metadata".into(), "namespace".into()], Keep::Namespace);
        let meta = |k: &str| vec!["metadata".to_string(), k.to_string()];
        add(&meta("deletionTimestamp"), Keep::DeletionTimestamp);
        add(&meta("finalizers"), Keep::Finalizers);
        for (key, _, _) in SUSPENSIONS {
            let path = ["metadata", "annotations", key].map(String::from);
            add(&path, Keep::Annotation(key.to_string()));
        }
        add(&["status".into(), "conditions".into()], Keep::Blocked);
        for u in uses {
            match u {
                FieldUse::Value(p) => add(p.segments(), Keep::Value(p.to_string().into())),
                FieldUse::Details(p) => add(p.segments(), Keep::Details(p.to_string())),
                FieldUse::Conditions => {
                    add(&["status".into(), "conditions".into()], Keep::Conditions)
                }
                FieldUse::Label(k) => add(
                    &["metadata".into(), "labels".into(), k.clone()],
                    Keep::Value(format!("label {k}").into()),
                ),
                FieldUse::Annotation(key) => {
                    let path = ["metadata", "annotations", key].map(String::from);
                    add(&path, Keep::Value(annotation_field(key).into()));
                }
                FieldUse::Members(p) => add(p.segments(), Keep::Members(members_key(p).into())),
                FieldUse::ConditionMessages => {
                    add(&["status".into(), "conditions".into()], Keep::Messages)
                }
                FieldUse::Items(p, key) => add(
                    p.segments(),
                    Keep::Items(FieldUse::items_label(p, key), key.clone()),
                ),
                FieldUse::Parents(c) => add(
                    &["status".into(), "parents".into()],
                    Keep::Parents(c.clone()),
                ),
            }
        }
        root
    }
}
