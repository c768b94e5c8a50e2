//! Every answer is the object asked for (SPEC §9 v0.4, STYLE 22): before any field of an
//! answer is used, what it says it is — its `apiVersion`, `kind`, and for a read by name its
//! `metadata.name` and `namespace` — is compared with what was asked. A read by name must
//! return that kind of that group with that name in that namespace; a list must be a List
//! of the requested kind (`NodeList` of `v1`; kubectl's own `List` only when every item says
//! it is of that kind). Anything else (`{}`, a `ConfigMapList` for a ConfigMap, a Secret,
//! another name or namespace, a `Status` of success, a `GatewayList` answered for
//! gatewayclasses) is a failed read whose message says what came back (escaped, capped),
//! never an empty or healthy object. Every parser of `observation` calls these functions,
//! so no read can skip them.

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::meta::words;

/// Every message of an answer that is not the object asked for starts with this (the
/// state layer quotes such a message whole in the evidence).
pub const NOT_ASKED: &str = "the answer was ";

/// At most this many characters of each word of what came back are quoted.
const MAX_QUOTED: usize = 64;

/// What an answer says it is: its top-level `apiVersion`, `kind`, `metadata` name and
/// namespace, and (for a `Status`) its `status`. Everything else is skipped.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct Head {
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub metadata: HeadMeta,
    pub status: Option<Scalar>,
}

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct HeadMeta {
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// A List's `metadata.continue`: set, the API server cut the list at the read's
    /// `limit` and more items follow.
    #[serde(rename = "continue")]
    pub continue_token: Option<String>,
}

/// A `Status` document's `status` (`Success`): a string, anything else ignored.
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Scalar {
    Text(String),
    Other(IgnoredAnyEq),
}

/// [`IgnoredAny`] with the comparisons [`Head`] derives.
#[derive(Debug, PartialEq, Eq)]
pub struct IgnoredAnyEq;

impl<'de> Deserialize<'de> for IgnoredAnyEq {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d).map(|_| IgnoredAnyEq)
    }
}

impl Head {
    /// What a list says it is, read field by field (a streamed list's head).
    pub fn of_list(api_version: Option<String>, kind: Option<String>) -> Head {
        Head {
            api_version,
            kind,
            ..Head::default()
        }
    }
}

/// The group a Kubernetes `apiVersion` names (`apps/v1` → `apps`, `v1` → the core `""`).
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// A word of what came back, escaped and capped.
fn quoted(s: &str) -> String {
    let w = words(s);
    match w.char_indices().nth(MAX_QUOTED) {
        Some((at, _)) => format!("{}…", &w[..at]),
        None => w,
    }
}

/// What came back, in a few words: `v1 Secret kube-system/cilium-config`, `v1 Status
/// (Success)`, `an object without apiVersion, kind or name`.
pub fn describe(head: &Head) -> String {
    let some = |o: &Option<String>| o.as_deref().filter(|s| !s.is_empty()).map(quoted);
    let (api, kind, name) = (
        some(&head.api_version),
        some(&head.kind),
        some(&head.metadata.name),
    );
    if api.is_none() && kind.is_none() && name.is_none() {
        return "an object without apiVersion, kind or name".to_string();
    }
    let mut out = format!(
        "{} {}",
        api.unwrap_or_else(|| "(no apiVersion)".into()),
        kind.unwrap_or_else(|| "(no kind)".into())
    );
    if let Some(name) = name {
        out.push(' ');
        if let Some(ns) = some(&head.metadata.namespace) {
            out.push_str(&ns);
            out.push('/');
        }
        out.push_str(&name);
    }
    if let Some(Scalar::Text(status)) = &head.status {
        out.push_str(&format!(" ({})", quoted(status)));
    }
    out
}

fn refused(head: &Head, asked: &str) -> String {
    format!("{NOT_ASKED}{}, not {asked}", describe(head))
}

/// `apps/v1` or `v1` for the group.
fn api_of(group: &str) -> String {
    if group.is_empty() {
        "v1".to_string()
    } else {
        format!("{group}/v1")
    }
}

/// A read by name: `kind` of `group` named `name` (in `namespace`, for a namespaced kind).
pub fn check_object(
    head: &Head,
    group: &str,
    kind: &str,
    namespace: Option<&str>,
    name: &str,
) -> Result<(), String> {
    let asked = match namespace {
        Some(ns) => format!("{} {kind} {ns}/{name}", api_of(group)),
        None => format!("{} {kind} {name}", api_of(group)),
    };
    let api = head.api_version.as_deref().unwrap_or_default();
    let ok = head.kind.as_deref() == Some(kind)
        && !api.is_empty()
        && group_of(api) == group
        && head.metadata.name.as_deref() == Some(name)
        && head.metadata.namespace.as_deref() == namespace;
    if ok {
        Ok(())
    } else {
        Err(refused(head, &asked))
    }
}

/// How the items of an accepted list must say their kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Items {
    /// The API server's typed list (`NodeList`): an item may omit its kind.
    MayOmitKind,
    /// kubectl's `List`: every item must say it is of the kind asked for.
    MustSayKind,
}

/// A list of `kind` objects of `group`: the API server's `{kind}List`, or kubectl's `List`.
pub fn check_list(head: &Head, group: &str, kind: &str) -> Result<Items, String> {
    let api = head.api_version.as_deref().unwrap_or_default();
    match head.kind.as_deref() {
        Some(k) if k.strip_suffix("List") == Some(kind) && !api.is_empty() => {
            if group_of(api) == group {
                return Ok(Items::MayOmitKind);
            }
        }
        Some("List") if api == "v1" => return Ok(Items::MustSayKind),
        Some(_) | None => {}
    }
    Err(refused(head, &format!("{} {kind}List", api_of(group))))
}

/// One item of an accepted list: of the kind asked for.
pub fn check_item(item_kind: Option<&str>, items: Items, kind: &str) -> Result<(), String> {
    match (item_kind, items) {
        (Some(k), Items::MayOmitKind | Items::MustSayKind) if k == kind => Ok(()),
        (None, Items::MayOmitKind) => Ok(()),
        (None, Items::MustSayKind) => Err(format!(
            "{NOT_ASKED}a List with an item of no kind, not a list of {kind} objects"
        )),
        (Some(other), Items::MayOmitKind | Items::MustSayKind) => Err(format!(
            "{NOT_ASKED}a List with an item of kind {}, not a list of {kind} objects",
            quoted(other)
        )),
    }
}

/// Whether `plural` is a resource name Kubernetes gives `kind`: lower case, then `s`, `es`
/// (`prometheuses`) or `y` → `ies` (`networkpolicies`; client-go's
/// `UnsafeGuessKindToResource`), or the kind itself (`endpoints`). A custom list's kind is
/// known only this way before its resource list is read; a CRD whose plural is none of these
/// reads `unknown`, never absent.
pub fn plural_of_kind(kind: &str, plural: &str) -> bool {
    let k = kind.to_ascii_lowercase();
    if k.is_empty() {
        return false;
    }
    let ies = k.strip_suffix('y').map(|stem| format!("{stem}ies"));
    plural == k
        || plural == format!("{k}s")
        || plural == format!("{k}es")
        || ies.is_some_and(|p| p == plural)
}

/// A custom resource list: `...List` of `group` whose kind's plural is `plural`.
pub fn check_custom_list(head: &Head, group: &str, plural: &str) -> Result<(), String> {
    let api = head.api_version.as_deref().unwrap_or_default();
    let ok = head
        .kind
        .as_deref()
        .and_then(|k| k.strip_suffix("List"))
        .is_some_and(|k| plural_of_kind(k, plural))
        && !api.is_empty()
        && group_of(api) == group;
    if ok {
        Ok(())
    } else {
        Err(refused(head, &format!("a list of {plural}.{group}")))
    }
}

/// A discovery document (`APIVersions` at `/api`, `APIGroupList` at `/apis`,
/// `APIResourceList` at `/apis/GROUP/VERSION`): its kind alone (the first has no apiVersion).
pub fn check_discovery(text: &str, kind: &str) -> Result<(), String> {
    let head: Head = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if head.kind.as_deref() == Some(kind) {
        return Ok(());
    }
    Err(refused(&head, kind))
}

/// The refusal a streamed decoder raised (serde's error, its position dropped), if `e` is one.
pub fn refusal_of(e: &serde_json::Error) -> Option<String> {
    let text = e.to_string();
    if !text.starts_with(NOT_ASKED) {
        return None;
    }
    Some(match text.rsplit_once(" at line ") {
        Some((said, _)) => said.to_string(),
        None => text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(json: &str) -> Head {
        serde_json::from_str(json).unwrap()
    }

    const CM: &str = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cilium-config","namespace":"kube-system"},"data":{}}"#;

    fn cm(json: &str) -> Result<(), String> {
        check_object(
            &head(json),
            "",
            "ConfigMap",
            Some("kube-system"),
            "cilium-config",
        )
    }

    #[test]
    fn a_read_by_name_is_that_object_or_says_what_came_back() {
        assert_eq!(cm(CM), Ok(()));
        let not = ", not v1 ConfigMap kube-system/cilium-config";
        for (answer, came) in [
            ("{}", "an object without apiVersion, kind or name"),
            (
                r#"{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[]}"#,
                "v1 ConfigMapList",
            ),
            (
                r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"cilium-config","namespace":"kube-system"}}"#,
                "v1 Secret kube-system/cilium-config",
            ),
            (
                r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other","namespace":"kube-system"}}"#,
                "v1 ConfigMap kube-system/other",
            ),
            (
                r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cilium-config","namespace":"default"}}"#,
                "v1 ConfigMap default/cilium-config",
            ),
            (
                r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}"#,
                "v1 Status (Success)",
            ),
            (
                r#"{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"cilium-config","namespace":"kube-system"}}"#,
                "apps/v1 ConfigMap kube-system/cilium-config",
            ),
            (
                r#"{"kind":"ConfigMap","metadata":{"name":"cilium-config","namespace":"kube-system"}}"#,
                "(no apiVersion) ConfigMap kube-system/cilium-config",
            ),
        ] {
            assert_eq!(
                cm(answer),
                Err(format!("{NOT_ASKED}{came}{not}")),
                "{answer}"
            );
        }
    }

    #[test]
    fn what_came_back_is_escaped_and_capped() {
        let long = "x".repeat(500);
        let answer = format!(
            r#"{{"apiVersion":"v1","kind":"Secret\u001b[2J","metadata":{{"name":"{long}"}}}}"#
        );
        assert_eq!(
            describe(&head(&answer)),
            format!("v1 Secret\\x1b[2J {}…", "x".repeat(64))
        );
    }

    #[test]
    fn a_list_is_of_the_kind_asked_for() {
        let list = |j: &str| check_list(&head(j), "storage.k8s.io", "StorageClass");
        assert_eq!(
            list(r#"{"apiVersion":"storage.k8s.io/v1","kind":"StorageClassList","items":[]}"#),
            Ok(Items::MayOmitKind)
        );
        assert_eq!(
            list(r#"{"apiVersion":"v1","kind":"List","items":[]}"#),
            Ok(Items::MustSayKind)
        );
        let not = ", not storage.k8s.io/v1 StorageClassList";
        for (answer, came) in [
            ("{}", "an object without apiVersion, kind or name"),
            (
                r#"{"apiVersion":"v1","kind":"ConfigMapList","items":[]}"#,
                "v1 ConfigMapList",
            ),
            (
                r#"{"apiVersion":"v1","kind":"StorageClassList","items":[]}"#,
                "v1 StorageClassList",
            ),
            (
                r#"{"apiVersion":"storage.k8s.io/v1","kind":"CSIDriverList","items":[]}"#,
                "storage.k8s.io/v1 CSIDriverList",
            ),
        ] {
            assert_eq!(
                list(answer),
                Err(format!("{NOT_ASKED}{came}{not}")),
                "{answer}"
            );
        }
        assert_eq!(check_item(None, Items::MayOmitKind, "Node"), Ok(()));
        assert_eq!(check_item(Some("Node"), Items::MustSayKind, "Node"), Ok(()));
        assert_eq!(
            check_item(Some("Secret"), Items::MayOmitKind, "Node"),
            Err(format!(
                "{NOT_ASKED}a List with an item of kind Secret, not a list of Node objects"
            ))
        );
        assert!(check_item(None, Items::MustSayKind, "Node").is_err());
    }

    #[test]
    fn discovery_is_of_its_kind() {
        assert_eq!(
            check_discovery(r#"{"kind":"APIVersions","versions":["v1"]}"#, "APIVersions"),
            Ok(())
        );
        assert_eq!(
            check_discovery("{}", "APIGroupList"),
            Err(format!(
                "{NOT_ASKED}an object without apiVersion, kind or name, not APIGroupList"
            ))
        );
    }

    #[test]
    fn a_custom_list_is_of_the_group_and_the_kind_of_its_plural() {
        let gwc =
            |j: &str| check_custom_list(&head(j), "gateway.networking.k8s.io", "gatewayclasses");
        assert_eq!(
            gwc(
                r#"{"apiVersion":"gateway.networking.k8s.io/v1","kind":"GatewayClassList","items":[]}"#
            ),
            Ok(())
        );
        assert_eq!(
            gwc(r#"{"apiVersion":"gateway.networking.k8s.io/v1","kind":"GatewayList","items":[]}"#),
            Err(format!("{NOT_ASKED}gateway.networking.k8s.io/v1 GatewayList, not a list of gatewayclasses.gateway.networking.k8s.io"))
        );
        for (kind, plural) in [
            ("CephCluster", "cephclusters"),
            ("Prometheus", "prometheuses"),
            ("CiliumLoadBalancerIPPool", "ciliumloadbalancerippools"),
            ("NetworkPolicy", "networkpolicies"),
            ("Endpoints", "endpoints"),
            ("Gateway", "gateways"),
            ("GatewayClass", "gatewayclasses"),
        ] {
            assert!(plural_of_kind(kind, plural), "{kind} {plural}");
        }
        assert!(!plural_of_kind("Gateway", "gatewayclasses"));
        assert!(!plural_of_kind("", "s"));
    }
}
