//! The fixture format and the in-memory cluster built from it.
//!
//! A fixture file is JSON:
//!
//! ```json
//! { "version": { "gitVersion": "v1.31.4", ... },          // optional: body of /version
//!   "resources": [ { "group": "ceph.rook.io", "version": "v1", "kind": "CephCluster",
//!                    "plural": "cephclusters", "namespaced": true } ],
//!   "objects":   [ { "apiVersion": "ceph.rook.io/v1", "kind": "CephCluster",
//!                    "metadata": { "name": "rook-ceph", "namespace": "rook-ceph" }, ... } ] }
//! ```
//!
//! The core types (nodes, namespaces, pods, services, persistentvolumes,
//! persistentvolumeclaims, storageclasses, daemonsets,
//! deployments, statefulsets, apiservices, validating/mutatingwebhookconfigurations,
//! endpointslices, customresourcedefinitions) are built in; `resources` only adds
//! custom types. Every `CustomResourceDefinition` object in `objects` also serves its type,
//! as a real apiserver does. Objects missing `metadata.uid`, `resourceVersion` or
//! `creationTimestamp` get deterministic values.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Verbs a real apiserver advertises for an ordinary resource.
pub const ALL_VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// Creation time given to objects that carry none.
pub const DEFAULT_CREATION: &str = "2025-01-15T09:00:00Z";

fn default_verbs() -> Vec<String> {
    ALL_VERBS.iter().map(|v| v.to_string()).collect()
}

/// An extra column of a server-side Table, as in a CRD's `additionalPrinterColumns`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrinterColumn {
    /// Column header.
    pub name: String,
    /// `string`, `integer`, `number`, `boolean` or `date`.
    #[serde(rename = "type", default = "default_col_type")]
    pub type_: String,
    /// Simple JSONPath (`.status.phase`) evaluated on the object.
    pub json_path: String,
    /// 0 = shown by default, 1 = only with `-o wide`.
    #[serde(default)]
    pub priority: i64,
    /// Free text.
    #[serde(default)]
    pub description: String,
}

fn default_col_type() -> String {
    "string".into()
}

/// One served resource type (one group/version/plural).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceType {
    /// API group, `""` for the core group.
    #[serde(default)]
    pub group: String,
    /// Version (`v1`).
    pub version: String,
    /// Kind (`CephCluster`).
    pub kind: String,
    /// Plural resource name (`cephclusters`).
    pub plural: String,
    /// Singular name; lower-cased kind when empty.
    #[serde(default)]
    pub singular: String,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// Advertised verbs (only GET/HEAD are ever answered).
    #[serde(default = "default_verbs")]
    pub verbs: Vec<String>,
    /// Short names (`ds`).
    #[serde(default)]
    pub short_names: Vec<String>,
    /// Categories (`all`).
    #[serde(default)]
    pub categories: Vec<String>,
    /// Extra Table columns after Name (custom types only; built-ins have their own).
    #[serde(default)]
    pub printer_columns: Vec<PrinterColumn>,
    /// Advertised subresources (`status`, `scale`).
    #[serde(default)]
    pub subresources: Vec<String>,
}

impl ResourceType {
    /// `group/version`, or `version` for the core group.
    pub fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `plural.group`, or `plural` for the core group (as in RBAC messages).
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// Singular name, defaulting to the lower-cased kind.
    pub fn singular_name(&self) -> String {
        if self.singular.is_empty() {
            self.kind.to_ascii_lowercase()
        } else {
            self.singular.clone()
        }
    }

    /// True for the built-in (non-CRD) types.
    pub fn is_builtin(&self) -> bool {
        builtin_types()
            .iter()
            .any(|b| b.group == self.group && b.plural == self.plural)
    }
}

#[allow(clippy::too_many_arguments)]
fn builtin(
    group: &str,
    version: &str,
    kind: &str,
    plural: &str,
    namespaced: bool,
    short: &[&str],
    categories: &[&str],
    status: bool,
) -> ResourceType {
    ResourceType {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
        plural: plural.into(),
        singular: kind.to_ascii_lowercase(),
        namespaced,
        verbs: default_verbs(),
        short_names: short.iter().map(|s| s.to_string()).collect(),
        categories: categories.iter().map(|s| s.to_string()).collect(),
        printer_columns: vec![],
        subresources: if status {
            vec!["status".into()]
        } else {
            vec![]
        },
    }
}

/// The built-in types every replay cluster serves, in discovery order.
pub fn builtin_types() -> Vec<ResourceType> {
    vec![
        builtin(
            "",
            "v1",
            "Namespace",
            "namespaces",
            false,
            &["ns"],
            &[],
            true,
        ),
        builtin(
            "",
            "v1",
            "ConfigMap",
            "configmaps",
            true,
            &["cm"],
            &[],
            false,
        ),
        builtin("", "v1", "Node", "nodes", false, &["no"], &[], true),
        builtin(
            "",
            "v1",
            "PersistentVolume",
            "persistentvolumes",
            false,
            &["pv"],
            &[],
            true,
        ),
        builtin(
            "",
            "v1",
            "PersistentVolumeClaim",
            "persistentvolumeclaims",
            true,
            &["pvc"],
            &[],
            true,
        ),
        builtin("", "v1", "Pod", "pods", true, &["po"], &["all"], true),
        builtin(
            "",
            "v1",
            "Service",
            "services",
            true,
            &["svc"],
            &["all"],
            true,
        ),
        builtin(
            "apps",
            "v1",
            "DaemonSet",
            "daemonsets",
            true,
            &["ds"],
            &["all"],
            true,
        ),
        builtin(
            "apps",
            "v1",
            "Deployment",
            "deployments",
            true,
            &["deploy"],
            &["all"],
            true,
        ),
        builtin(
            "apps",
            "v1",
            "StatefulSet",
            "statefulsets",
            true,
            &["sts"],
            &["all"],
            true,
        ),
        builtin(
            "networking.k8s.io",
            "v1",
            "NetworkPolicy",
            "networkpolicies",
            true,
            &["netpol"],
            &[],
            false,
        ),
        builtin(
            "storage.k8s.io",
            "v1",
            "StorageClass",
            "storageclasses",
            false,
            &["sc"],
            &[],
            false,
        ),
        builtin(
            "storage.k8s.io",
            "v1",
            "CSIDriver",
            "csidrivers",
            false,
            &[],
            &[],
            false,
        ),
        builtin(
            "storage.k8s.io",
            "v1",
            "CSINode",
            "csinodes",
            false,
            &[],
            &[],
            false,
        ),
        builtin(
            "apiregistration.k8s.io",
            "v1",
            "APIService",
            "apiservices",
            false,
            &[],
            &["api-extensions"],
            true,
        ),
        builtin(
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingWebhookConfiguration",
            "validatingwebhookconfigurations",
            false,
            &[],
            &["api-extensions"],
            false,
        ),
        builtin(
            "admissionregistration.k8s.io",
            "v1",
            "MutatingWebhookConfiguration",
            "mutatingwebhookconfigurations",
            false,
            &[],
            &["api-extensions"],
            false,
        ),
        builtin(
            "events.k8s.io",
            "v1",
            "Event",
            "events",
            true,
            &["ev"],
            &[],
            false,
        ),
        builtin(
            "discovery.k8s.io",
            "v1",
            "EndpointSlice",
            "endpointslices",
            true,
            &[],
            &[],
            false,
        ),
        builtin(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            false,
            &["crd", "crds"],
            &["api-extensions"],
            true,
        ),
    ]
}

/// A fixture as stored in a JSON file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fixture {
    /// Body of `/version`; a v1.31 server when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Value>,
    /// Custom resource types served besides the built-ins and the fixture's CRDs.
    #[serde(default)]
    pub resources: Vec<ResourceType>,
    /// Full Kubernetes objects.
    #[serde(default)]
    pub objects: Vec<Value>,
}

impl Fixture {
    /// Parses a fixture from JSON text.
    pub fn from_json(text: &str) -> Result<Fixture, String> {
        serde_json::from_str(text).map_err(|e| format!("fixture is not valid: {e}"))
    }

    /// Reads and parses a fixture file.
    pub fn load(path: &Path) -> Result<Fixture, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read fixture {}: {e}", path.display()))?;
        Fixture::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Pretty JSON, as committed under `fixtures/`.
    pub fn to_json_pretty(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// Default `/version` body: a v1.31 apiserver.
pub fn default_version() -> Value {
    json!({
        "major": "1",
        "minor": "31",
        "gitVersion": "v1.31.4",
        "gitCommit": "a78aa47129b8539636eb86a9d00e31b2720fe06b",
        "gitTreeState": "clean",
        "buildDate": "2024-12-10T18:05:09Z",
        "goVersion": "go1.22.10",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

/// Kubernetes version priority: GA before beta before alpha, higher numbers first, then
/// anything else alphabetically. Smaller sorts first.
pub fn version_priority(v: &str) -> (u8, i64, i64, String) {
    let parse = |s: &str| -> Option<(u8, i64, i64)> {
        let rest = s.strip_prefix('v')?;
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let major: i64 = digits.parse().ok()?;
        let tail = &rest[digits.len()..];
        if tail.is_empty() {
            return Some((0, -major, 0));
        }
        for (i, stage) in ["beta", "alpha"].iter().enumerate() {
            if let Some(n) = tail.strip_prefix(stage) {
                let minor: i64 = n.parse().ok()?;
                return Some((i as u8 + 1, -major, -minor));
            }
        }
        None
    };
    match parse(v) {
        Some((a, b, c)) => (a, b, c, String::new()),
        None => (9, 0, 0, v.to_string()),
    }
}

/// Resource types declared by a `CustomResourceDefinition` object (served versions only).
pub fn types_from_crd(crd: &Value) -> Vec<ResourceType> {
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or_default().to_string();
    let names = &spec["names"];
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for ver in spec["versions"].as_array().into_iter().flatten() {
        if ver["served"] == Value::Bool(false) {
            continue;
        }
        let columns = ver["additionalPrinterColumns"]
            .as_array()
            .map(|cols| {
                cols.iter()
                    .filter_map(|c| serde_json::from_value::<PrinterColumn>(c.clone()).ok())
                    .collect()
            })
            .unwrap_or_default();
        let subresources = ver["subresources"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        out.push(ResourceType {
            group: group.clone(),
            version: ver["name"].as_str().unwrap_or("v1").to_string(),
            kind: names["kind"].as_str().unwrap_or_default().to_string(),
            plural: names["plural"].as_str().unwrap_or_default().to_string(),
            singular: names["singular"].as_str().unwrap_or_default().to_string(),
            namespaced: spec["scope"].as_str() == Some("Namespaced"),
            verbs: default_verbs(),
            short_names: strings(&names["shortNames"]),
            categories: strings(&names["categories"]),
            printer_columns: columns,
            subresources,
        });
    }
    out
}

/// An API group as served: its name and versions, preferred first.
#[derive(Debug, Clone)]
pub struct Group {
    /// Group name, `""` for core.
    pub name: String,
    /// Versions, preferred first.
    pub versions: Vec<String>,
}

/// The fixture compiled for serving: types indexed, objects sorted by namespace and name.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// Body of `/version`.
    pub version: Value,
    /// Served types: built-ins first, then custom types by group.
    pub types: Vec<ResourceType>,
    /// Served groups in discovery order (core first).
    pub groups: Vec<Group>,
    /// resourceVersion reported by lists.
    pub resource_version: String,
    objects: Vec<Vec<Value>>,
}

/// 64-bit FNV-1a, for deterministic uids.
fn fnv(data: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in data.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Deterministic UUID-shaped id for an object key.
pub fn uid_for(key: &str) -> String {
    let a = fnv(key);
    let b = fnv(&format!("{key}#"));
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

const BASE_RESOURCE_VERSION: u64 = 41000;

impl Cluster {
    /// Compiles a fixture; fails on objects whose type is not served or whose namespace
    /// does not fit the type's scope.
    pub fn build(fixture: &Fixture) -> Result<Cluster, String> {
        let mut types = builtin_types();
        let add = |t: ResourceType, types: &mut Vec<ResourceType>| {
            if !types
                .iter()
                .any(|e| e.group == t.group && e.version == t.version && e.plural == t.plural)
            {
                types.push(t);
            }
        };
        let n_builtin = types.len();
        for t in &fixture.resources {
            if t.plural.is_empty() || t.kind.is_empty() || t.version.is_empty() {
                return Err(format!(
                    "resource {:?} needs kind, plural and version",
                    t.qualified()
                ));
            }
            add(t.clone(), &mut types);
        }
        for o in &fixture.objects {
            if o["kind"] == "CustomResourceDefinition" {
                for t in types_from_crd(o) {
                    add(t, &mut types);
                }
            }
        }
        // Custom types by group, versions by priority; stable so plural order is kept.
        types[n_builtin..].sort_by(|a, b| {
            a.group
                .cmp(&b.group)
                .then(version_priority(&a.version).cmp(&version_priority(&b.version)))
        });

        let mut groups: Vec<Group> = Vec::new();
        for t in &types {
            match groups.iter_mut().find(|g| g.name == t.group) {
                Some(g) => {
                    if !g.versions.contains(&t.version) {
                        g.versions.push(t.version.clone());
                    }
                }
                None => groups.push(Group {
                    name: t.group.clone(),
                    versions: vec![t.version.clone()],
                }),
            }
        }
        for g in &mut groups {
            g.versions.sort_by_key(|v| version_priority(v));
        }

        let mut objects: Vec<Vec<Value>> = vec![Vec::new(); types.len()];
        let mut rv = BASE_RESOURCE_VERSION;
        for (i, o) in fixture.objects.iter().enumerate() {
            let api_version = o["apiVersion"].as_str().unwrap_or_default();
            let kind = o["kind"].as_str().unwrap_or_default();
            let name = o["metadata"]["name"].as_str().unwrap_or_default();
            if api_version.is_empty() || kind.is_empty() || name.is_empty() {
                return Err(format!(
                    "object #{i} needs apiVersion, kind and metadata.name"
                ));
            }
            let (group, version) = match api_version.split_once('/') {
                Some((g, v)) => (g, v),
                None => ("", api_version),
            };
            let Some(ti) = types
                .iter()
                .position(|t| t.group == group && t.version == version && t.kind == kind)
            else {
                return Err(format!(
                    "object #{i} {kind} {name:?}: type {api_version} {kind} is not served \
                     (add it to \"resources\" or add its CustomResourceDefinition)"
                ));
            };
            let t = &types[ti];
            let ns = o["metadata"]["namespace"].as_str().unwrap_or_default();
            if t.namespaced && ns.is_empty() {
                return Err(format!(
                    "object #{i} {kind} {name:?} needs metadata.namespace"
                ));
            }
            if !t.namespaced && !ns.is_empty() {
                return Err(format!(
                    "object #{i} {kind} {name:?} is cluster-scoped but has namespace {ns:?}"
                ));
            }
            let mut obj = o.clone();
            rv += 1;
            fill_metadata(&mut obj, &format!("{api_version}/{kind}/{ns}/{name}"), rv);
            objects[ti].push(obj);
        }
        for list in &mut objects {
            list.sort_by_cached_key(crate::select::object_key);
        }
        Ok(Cluster {
            version: fixture.version.clone().unwrap_or_else(default_version),
            types,
            groups,
            resource_version: (rv + 1).to_string(),
            objects,
        })
    }

    /// Index of the type served at `group/version/plural`.
    pub fn type_index(&self, group: &str, version: &str, plural: &str) -> Option<usize> {
        self.types
            .iter()
            .position(|t| t.group == group && t.version == version && t.plural == plural)
    }

    /// Objects of one type, sorted by namespace then name.
    pub fn objects(&self, type_index: usize) -> &[Value] {
        &self.objects[type_index]
    }

    /// The `CustomResourceDefinition` object for a type, if the fixture has one.
    pub fn crd_for(&self, t: &ResourceType) -> Option<&Value> {
        let ci = self.type_index("apiextensions.k8s.io", "v1", "customresourcedefinitions")?;
        let name = format!("{}.{}", t.plural, t.group);
        self.objects[ci]
            .iter()
            .find(|o| o["metadata"]["name"].as_str() == Some(name.as_str()))
    }

    /// Number of objects of every type, by `plural.group`.
    pub fn counts(&self) -> BTreeMap<String, usize> {
        self.types
            .iter()
            .zip(&self.objects)
            .map(|(t, o)| (format!("{}/{}", t.qualified(), t.version), o.len()))
            .collect()
    }

    /// Types grouped by group/version, for discovery.
    pub fn types_by_group_version(&self) -> HashMap<String, Vec<&ResourceType>> {
        let mut m: HashMap<String, Vec<&ResourceType>> = HashMap::new();
        for t in &self.types {
            m.entry(t.group_version()).or_default().push(t);
        }
        m
    }
}

fn fill_metadata(obj: &mut Value, key: &str, rv: u64) {
    if !obj["metadata"].is_object() {
        obj["metadata"] = Value::Object(Map::new());
    }
    let Some(md) = obj["metadata"].as_object_mut() else {
        return;
    };
    md.entry("uid")
        .or_insert_with(|| Value::String(uid_for(key)));
    md.entry("resourceVersion")
        .or_insert_with(|| Value::String(rv.to_string()));
    md.entry("creationTimestamp")
        .or_insert_with(|| Value::String(DEFAULT_CREATION.into()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_like_kubernetes() {
        let mut v = vec!["v1alpha1", "v2beta1", "v1", "foo", "v1beta2", "v2"];
        v.sort_by_key(|s| version_priority(s));
        assert_eq!(v, ["v2", "v1", "v2beta1", "v1beta2", "v1alpha1", "foo"]);
    }

    #[test]
    fn crd_objects_serve_their_type() {
        let f = Fixture::from_json(
            r#"{"objects":[
              {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
               "metadata":{"name":"widgets.example.io"},
               "spec":{"group":"example.io","scope":"Namespaced",
                 "names":{"kind":"Widget","plural":"widgets","singular":"widget"},
                 "versions":[{"name":"v1","served":true,"storage":true}]}},
              {"apiVersion":"example.io/v1","kind":"Widget",
               "metadata":{"name":"w","namespace":"a"}}]}"#,
        )
        .expect("fixture");
        let c = Cluster::build(&f).expect("cluster");
        let ti = c.type_index("example.io", "v1", "widgets").expect("served");
        assert_eq!(c.objects(ti).len(), 1);
        assert!(c.objects(ti)[0]["metadata"]["uid"].is_string());
        assert!(c.groups.iter().any(|g| g.name == "example.io"));
    }

    #[test]
    fn unknown_kind_and_bad_scope_are_refused() {
        let f = Fixture::from_json(
            r#"{"objects":[{"apiVersion":"x.io/v1","kind":"X","metadata":{"name":"a"}}]}"#,
        )
        .expect("fixture");
        assert!(Cluster::build(&f)
            .expect_err("refused")
            .contains("not served"));
        let f = Fixture::from_json(
            r#"{"objects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a","namespace":"b"}}]}"#,
        )
        .expect("fixture");
        assert!(Cluster::build(&f)
            .expect_err("refused")
            .contains("cluster-scoped"));
    }
}
