//! The checks of a layer, as typed data (SPEC §6 check kinds), and their strict decoding
//! from the catalog YAML. Every check may carry a `why:`: the reason the operators gate on
//! it, printed by `catalog show`.
//!
//! Kinds: `apiGroup`, `namespace`, `storageClass`, `workload` (rolled out as `kubectl rollout
//! status` says), `resource` (one exists / every one has a field value), `condition` (at
//! least one object, each with `status.conditions[type=T].status == "True"`), `all` (every
//! object of a list, possibly none, satisfies a predicate), `count` (at least N objects or
//! workloads, or as many as a field of another object says), `tolerate` (a health field OK,
//! or WARN whose every detail is benign), `podFlags` (every control-plane kube-apiserver runs
//! with these flags), `nodes`.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

use crate::model::observation::{FieldPath, FieldUse, ReadRequest};

/// One check of a layer: what is tested, and why the operators test it.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub kind: CheckKind,
    /// The operators' reason for this gate (`why:`), shown by `catalog show`.
    pub why: Option<String>,
}

impl From<CheckKind> for Check {
    fn from(kind: CheckKind) -> Check {
        Check { kind, why: None }
    }
}

/// What a check tests.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckKind {
    /// The API group is served (discovery).
    ApiGroup(String),
    /// The namespace exists.
    Namespace(String),
    /// A StorageClass with this provisioner (if given) and default flag (if given) exists.
    StorageClass {
        provisioner: Option<String>,
        default: Option<bool>,
    },
    /// detect: a matching workload exists; healthy: there is one, and every matching one is
    /// rolled out (`kubectl rollout status` semantics).
    Workload(WorkloadCheck),
    /// Objects of a custom type exist; with a field, every one (at least one) satisfies it.
    Resource(ResourceCheck),
    /// At least one object, each with the condition `type` True.
    Condition(ConditionCheck),
    /// Every object of the list satisfies the predicate; an empty list passes.
    All(AllCheck),
    /// At least N objects or workloads.
    Count(CountCheck),
    /// A health field is OK, or WARN with only benign details.
    Tolerate(TolerateCheck),
    /// detect: kube-apiserver pods are visible; healthy: each control-plane one has the flags.
    PodFlags(PodFlagsCheck),
    Nodes(NodesCheck),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
pub enum WorkloadKind {
    DaemonSet,
    Deployment,
    StatefulSet,
}

impl WorkloadKind {
    pub const ALL: [WorkloadKind; 3] = [
        WorkloadKind::DaemonSet,
        WorkloadKind::Deployment,
        WorkloadKind::StatefulSet,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadKind::DaemonSet => "DaemonSet",
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
        }
    }

    pub fn read_request(self) -> ReadRequest {
        match self {
            WorkloadKind::DaemonSet => ReadRequest::DaemonSets,
            WorkloadKind::Deployment => ReadRequest::Deployments,
            WorkloadKind::StatefulSet => ReadRequest::StatefulSets,
        }
    }
}

/// Workloads of one namespace: every kind or one, by exact name, by name prefix, or all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadCheck {
    pub kind: Option<WorkloadKind>,
    pub namespace: String,
    pub name: Option<String>,
    /// Operator-managed sets named `PREFIX...` (`rook-ceph-osd-`).
    pub name_prefix: Option<String>,
}

impl WorkloadCheck {
    pub fn kinds(&self) -> Vec<WorkloadKind> {
        self.kind.map_or(WorkloadKind::ALL.to_vec(), |k| vec![k])
    }

    pub fn matches(&self, namespace: &str, name: &str) -> bool {
        namespace == self.namespace
            && self.name.as_deref().is_none_or(|n| n == name)
            && self
                .name_prefix
                .as_deref()
                .is_none_or(|p| name.starts_with(p))
    }

    /// How the selection reads in evidence: `Deployment rook-ceph/rook-ceph-osd-*`.
    pub fn selector(&self) -> String {
        let what = self.kind.map_or("workload", WorkloadKind::as_str);
        match (&self.name, &self.name_prefix) {
            (Some(n), _) => format!("{what} {}/{n}", self.namespace),
            (None, Some(p)) => format!("{what} {}/{p}*", self.namespace),
            (None, None) => format!("{what} in {}", self.namespace),
        }
    }
}

/// The objects of one custom type a check looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Objects {
    /// `plural.group`, e.g. `cephclusters.ceph.rook.io`.
    pub resource: String,
    /// The kind shown in evidence (`CephCluster`); defaults to the resource name.
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

impl Objects {
    /// The API group of the resource type.
    pub fn group(&self) -> &str {
        self.resource.split_once('.').map_or("", |(_, g)| g)
    }

    /// The kind named in evidence.
    pub fn kind_label(&self) -> &str {
        self.kind.as_deref().unwrap_or(&self.resource)
    }

    /// `CephCluster in rook-ceph`, `ClusterIssuer letsencrypt`, ...
    pub fn selector(&self) -> String {
        let kind = self.kind_label();
        match (&self.namespace, &self.name) {
            (Some(ns), Some(n)) => format!("{kind} {ns}/{n}"),
            (Some(ns), None) => format!("{kind} in {ns}"),
            (None, Some(n)) => format!("{kind} {n}"),
            (None, None) => kind.to_string(),
        }
    }
}

/// Without `field`: "one exists". With it: every matching object (at least one) satisfies
/// `expect`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceCheck {
    pub objects: Objects,
    pub field: Option<FieldPath>,
    pub expect: Option<Expect>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionCheck {
    pub objects: Objects,
    /// The condition type (`Ready`, `Available`).
    pub type_: String,
}

/// What every object of an `all` check must satisfy.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    Field(FieldPath, Expect),
    Condition(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct AllCheck {
    pub objects: Objects,
    pub predicate: Predicate,
}

/// What a `count` counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counted {
    Objects(Objects),
    Workloads(WorkloadCheck),
}

/// How many a `count` wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    AtLeast(u32),
    /// As many as an integer field of other objects says (the largest, if several match).
    AtLeastField {
        objects: Objects,
        field: FieldPath,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountCheck {
    pub counted: Counted,
    pub wanted: Wanted,
}

/// `field` in `ok` → true; `field == warn` and every key of the map at `details` in
/// `benign` → true, the warning kept in the evidence; anything else → false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TolerateCheck {
    pub objects: Objects,
    pub field: FieldPath,
    pub ok: Vec<String>,
    pub warn: String,
    pub details: FieldPath,
    pub benign: Vec<String>,
}

/// The kube-apiserver static pods (kube-system, `component=kube-apiserver`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodFlagsCheck {
    /// `--audit-log-path`, ... : each must be set (with a non-empty value) on every
    /// control-plane node's kube-apiserver.
    pub flags: Vec<String>,
}

/// What a resource field must hold. Scalars compare by their text (`3` equals `"3"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    In(Vec<String>),
    Equals(String),
    /// Equal to another field of the same object.
    EqualsField(FieldPath),
    /// The field is there, whatever its value.
    Exists,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodesCheck {
    /// Nodes registered (whatever their condition): `all` declared nodes, or at least N.
    Registered(Count),
    /// Nodes Ready: `all` declared nodes, or at least N.
    Ready(Count),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// Every node declared in the stack (every registered node if none is declared).
    All,
    AtLeast(u32),
}

impl CheckKind {
    /// The custom resource types this check reads, with the fields it reads on each.
    pub fn object_reads(&self) -> Vec<(&Objects, Vec<FieldUse>)> {
        let fields = |f: &FieldPath| FieldUse::Value(f.clone());
        match self {
            CheckKind::Resource(r) => {
                let mut used: Vec<FieldUse> = r.field.iter().map(fields).collect();
                if let Some(Expect::EqualsField(other)) = &r.expect {
                    used.push(fields(other));
                }
                vec![(&r.objects, used)]
            }
            CheckKind::Condition(c) => vec![(&c.objects, vec![FieldUse::Conditions])],
            CheckKind::All(a) => {
                let used = match &a.predicate {
                    Predicate::Field(f, Expect::EqualsField(o)) => vec![fields(f), fields(o)],
                    Predicate::Field(f, _) => vec![fields(f)],
                    Predicate::Condition(_) => vec![FieldUse::Conditions],
                };
                vec![(&a.objects, used)]
            }
            CheckKind::Count(c) => {
                let mut out = Vec::new();
                if let Counted::Objects(o) = &c.counted {
                    out.push((o, vec![]));
                }
                if let Wanted::AtLeastField { objects, field } = &c.wanted {
                    out.push((objects, vec![fields(field)]));
                }
                out
            }
            CheckKind::Tolerate(t) => vec![(
                &t.objects,
                vec![fields(&t.field), FieldUse::Details(t.details.clone())],
            )],
            _ => vec![],
        }
    }

    /// The workload selections this check reads.
    pub fn workload_reads(&self) -> Vec<&WorkloadCheck> {
        match self {
            CheckKind::Workload(w) => vec![w],
            CheckKind::Count(CountCheck {
                counted: Counted::Workloads(w),
                ..
            }) => vec![w],
            _ => vec![],
        }
    }
}

// ---- strict deserialization ------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCheck {
    api_group: Option<String>,
    namespace: Option<String>,
    storage_class: Option<RawStorageClass>,
    workload: Option<RawWorkload>,
    resource: Option<String>,
    kind: Option<String>,
    name: Option<String>,
    field: Option<String>,
    #[serde(rename = "in")]
    in_: Option<Vec<Scalar>>,
    equals: Option<Scalar>,
    equals_field: Option<String>,
    exists: Option<bool>,
    condition: Option<RawCondition>,
    all: Option<RawAll>,
    count: Option<RawCount>,
    tolerate: Option<RawTolerate>,
    pod_flags: Option<RawPodFlags>,
    nodes: Option<RawNodes>,
    why: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStorageClass {
    provisioner: Option<String>,
    default: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawWorkload {
    kind: Option<WorkloadKind>,
    namespace: String,
    name: Option<String>,
    name_prefix: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCondition {
    resource: String,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    #[serde(rename = "type")]
    type_: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawAll {
    resource: String,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    field: Option<String>,
    #[serde(rename = "in")]
    in_: Option<Vec<Scalar>>,
    equals: Option<Scalar>,
    equals_field: Option<String>,
    exists: Option<bool>,
    condition: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCount {
    resource: Option<String>,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    workload: Option<RawWorkload>,
    at_least: Option<u32>,
    at_least_field: Option<RawFieldRef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFieldRef {
    resource: String,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    field: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTolerate {
    resource: String,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    field: String,
    ok: Vec<Scalar>,
    warn: Scalar,
    details: String,
    #[serde(default)]
    benign: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPodFlags {
    flags: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNodes {
    ready: Option<Count>,
    registered: Option<Count>,
}

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let raw = RawCheck::deserialize(d)?;
        let why = raw.why.clone();
        if why.as_deref().is_some_and(|w| w.trim().is_empty()) {
            return Err(de::Error::custom(
                "`why:` is empty; say why the operators check this, or leave it out",
            ));
        }
        raw.into_kind()
            .map(|kind| Check { kind, why })
            .map_err(de::Error::custom)
    }
}

pub(crate) const CHECK_KINDS: &str = "`apiGroup`, `namespace`, `storageClass`, `workload`, `resource`, `condition`, `all`, `count`, `tolerate`, `podFlags`, `nodes`";

fn objects(
    resource: String,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
) -> std::result::Result<Objects, String> {
    let valid = resource.contains('.') && resource.split('.').all(is_dns_label);
    if !valid {
        return Err(format!(
            "`resource: {resource}` must be `plural.group`, e.g. `cephclusters.ceph.rook.io`"
        ));
    }
    if let Some(ns) = &namespace {
        if !is_dns_label(ns) {
            return Err(format!("`namespace: {ns}` is not a namespace name"));
        }
    }
    Ok(Objects {
        resource,
        kind,
        namespace,
        name,
    })
}

/// The one expectation of a field (`in`, `equals`, `equalsField` or `exists: true`).
fn expectation(
    field: Option<&FieldPath>,
    in_: Option<Vec<Scalar>>,
    equals: Option<Scalar>,
    equals_field: Option<String>,
    exists: Option<bool>,
) -> std::result::Result<Option<Expect>, String> {
    let mut expects = Vec::new();
    if let Some(values) = in_ {
        if values.is_empty() {
            return Err("`in:` needs at least one value".to_string());
        }
        expects.push(Expect::In(values.into_iter().map(|s| s.0).collect()));
    }
    if let Some(v) = equals {
        expects.push(Expect::Equals(v.0));
    }
    if let Some(f) = equals_field {
        expects.push(Expect::EqualsField(FieldPath::parse(&f)?));
    }
    match exists {
        Some(true) => expects.push(Expect::Exists),
        Some(false) => return Err("`exists:` can only be `true`".to_string()),
        None => {}
    }
    match (expects.len(), field) {
        (0, None) => Ok(None),
        (1, Some(_)) => Ok(expects.pop()),
        (0, Some(f)) => Err(format!(
            "`field: {f}` needs one of `in:`, `equals:`, `equalsField:` or `exists: true`"
        )),
        (_, None) => Err("`in:`/`equals:`/`equalsField:`/`exists:` need a `field:`".to_string()),
        _ => Err("use only one of `in:`, `equals:`, `equalsField:` or `exists:`".to_string()),
    }
}

fn workload(w: RawWorkload) -> std::result::Result<WorkloadCheck, String> {
    if !is_dns_label(&w.namespace) {
        return Err(format!(
            "`namespace: {}` is not a namespace name",
            w.namespace
        ));
    }
    if w.name.is_some() && w.name_prefix.is_some() {
        return Err("a workload check names `name:` or `namePrefix:`, not both".to_string());
    }
    if let Some(p) = &w.name_prefix {
        let ok = !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
        if !ok {
            return Err(format!(
                "`namePrefix: {p}` must be the start of an object name, like `rook-ceph-osd-`"
            ));
        }
    }
    Ok(WorkloadCheck {
        kind: w.kind,
        namespace: w.namespace,
        name: w.name,
        name_prefix: w.name_prefix,
    })
}

impl RawCheck {
    fn into_kind(self) -> std::result::Result<CheckKind, String> {
        let present = [
            ("apiGroup", self.api_group.is_some()),
            (
                "namespace",
                self.namespace.is_some() && self.resource.is_none(),
            ),
            ("storageClass", self.storage_class.is_some()),
            ("workload", self.workload.is_some()),
            ("resource", self.resource.is_some()),
            ("condition", self.condition.is_some()),
            ("all", self.all.is_some()),
            ("count", self.count.is_some()),
            ("tolerate", self.tolerate.is_some()),
            ("podFlags", self.pod_flags.is_some()),
            ("nodes", self.nodes.is_some()),
        ];
        let kinds: Vec<&str> = present
            .iter()
            .filter(|(_, p)| *p)
            .map(|(k, _)| *k)
            .collect();
        match kinds.as_slice() {
            [] => return Err(format!("a check needs one of {CHECK_KINDS}")),
            [_] => {}
            many => {
                return Err(format!(
                    "one check per list item, found {}; write each as its own `- ` item",
                    many.iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ))
            }
        }
        if self.resource.is_none() {
            let siblings = [
                ("kind", self.kind.is_some()),
                ("name", self.name.is_some()),
                ("field", self.field.is_some()),
                ("in", self.in_.is_some()),
                ("equals", self.equals.is_some()),
                ("equalsField", self.equals_field.is_some()),
                ("exists", self.exists.is_some()),
            ];
            if let Some((key, _)) = siblings.iter().find(|(_, set)| *set) {
                return Err(format!("`{key}` only goes with a `resource:` check"));
            }
        }
        if let Some(group) = self.api_group {
            return if is_dns_name(&group) {
                Ok(CheckKind::ApiGroup(group))
            } else {
                Err(format!(
                    "`apiGroup: {group}` is not an API group name like `ceph.rook.io`"
                ))
            };
        }
        if let Some(sc) = self.storage_class {
            return Ok(CheckKind::StorageClass {
                provisioner: sc.provisioner,
                default: sc.default,
            });
        }
        if let Some(w) = self.workload {
            return workload(w).map(CheckKind::Workload);
        }
        if let Some(n) = self.nodes {
            return match (n.ready, n.registered) {
                (Some(c), None) => Ok(CheckKind::Nodes(NodesCheck::Ready(c))),
                (None, Some(c)) => Ok(CheckKind::Nodes(NodesCheck::Registered(c))),
                _ => Err("`nodes:` needs exactly one of `ready:` or `registered:`".to_string()),
            };
        }
        if let Some(c) = self.condition {
            if c.type_.trim().is_empty() {
                return Err("`condition:` needs a `type:` such as `Ready`".to_string());
            }
            return Ok(CheckKind::Condition(ConditionCheck {
                objects: objects(c.resource, c.kind, c.namespace, c.name)?,
                type_: c.type_,
            }));
        }
        if let Some(a) = self.all {
            let objs = objects(a.resource, a.kind, a.namespace, a.name)?;
            let field = a.field.as_deref().map(FieldPath::parse).transpose()?;
            let expect = expectation(field.as_ref(), a.in_, a.equals, a.equals_field, a.exists)?;
            let predicate =
                match (field, expect, a.condition) {
                    (Some(f), Some(e), None) => Predicate::Field(f, e),
                    (None, None, Some(t)) if !t.trim().is_empty() => Predicate::Condition(t),
                    _ => return Err(
                        "`all:` needs either `field:` with its expectation, or `condition: TYPE`"
                            .to_string(),
                    ),
                };
            return Ok(CheckKind::All(AllCheck {
                objects: objs,
                predicate,
            }));
        }
        if let Some(c) = self.count {
            let counted = match (c.resource, c.workload) {
                (Some(r), None) => Counted::Objects(objects(r, c.kind, c.namespace, c.name)?),
                (None, Some(w))
                    if c.kind.is_none() && c.namespace.is_none() && c.name.is_none() =>
                {
                    Counted::Workloads(workload(w)?)
                }
                _ => {
                    return Err(
                        "`count:` counts either `resource:` objects or a `workload:` selection"
                            .to_string(),
                    )
                }
            };
            let wanted = match (c.at_least, c.at_least_field) {
                (Some(n), None) if n >= 1 => Wanted::AtLeast(n),
                (None, Some(f)) => Wanted::AtLeastField {
                    objects: objects(f.resource, f.kind, f.namespace, f.name)?,
                    field: FieldPath::parse(&f.field)?,
                },
                _ => return Err(
                    "`count:` needs `atLeast: N` (1 or more) or `atLeastField: {resource, field}`"
                        .to_string(),
                ),
            };
            return Ok(CheckKind::Count(CountCheck { counted, wanted }));
        }
        if let Some(t) = self.tolerate {
            if t.ok.is_empty() {
                return Err("`tolerate:` needs at least one `ok:` value".to_string());
            }
            return Ok(CheckKind::Tolerate(TolerateCheck {
                objects: objects(t.resource, t.kind, t.namespace, t.name)?,
                field: FieldPath::parse(&t.field)?,
                ok: t.ok.into_iter().map(|s| s.0).collect(),
                warn: t.warn.0,
                details: FieldPath::parse(&t.details)?,
                benign: t.benign,
            }));
        }
        if let Some(p) = self.pod_flags {
            if p.flags.is_empty() {
                return Err("`podFlags:` needs at least one flag".to_string());
            }
            if let Some(bad) = p.flags.iter().find(|f| !is_flag_name(f)) {
                return Err(format!(
                    "`{bad}` is not a flag name like `--audit-log-path` (no value, no `=`)"
                ));
            }
            return Ok(CheckKind::PodFlags(PodFlagsCheck { flags: p.flags }));
        }
        if let Some(resource) = self.resource {
            let objs = objects(resource, self.kind, self.namespace, self.name)?;
            let field = self.field.as_deref().map(FieldPath::parse).transpose()?;
            let expect = expectation(
                field.as_ref(),
                self.in_,
                self.equals,
                self.equals_field,
                self.exists,
            )?;
            return Ok(CheckKind::Resource(ResourceCheck {
                objects: objs,
                field,
                expect,
            }));
        }
        match self.namespace {
            Some(ns) if is_dns_label(&ns) => Ok(CheckKind::Namespace(ns)),
            Some(ns) => Err(format!("`namespace: {ns}` is not a namespace name")),
            None => Err(format!("a check needs one of {CHECK_KINDS}")),
        }
    }
}

/// `--name-with-dashes`.
fn is_flag_name(s: &str) -> bool {
    s.strip_prefix("--").is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    })
}

/// A YAML scalar kept as text: `3`, `true` and `"3"` all compare as text.
struct Scalar(String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, number or boolean")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`all` or a number of nodes (1 or more)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Count, E> {
                if v == "all" {
                    Ok(Count::All)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Count, E> {
                match u32::try_from(v) {
                    Ok(n) if n >= 1 => Ok(Count::AtLeast(n)),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Count, E> {
                match u64::try_from(v) {
                    Ok(u) => self.visit_u64(u),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A DNS-1123 label: lowercase alphanumerics and `-`, starting and ending alphanumeric.
pub(crate) fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// A DNS subdomain such as an API group: labels separated by dots.
fn is_dns_name(s: &str) -> bool {
    s.split('.').all(is_dns_label)
}
