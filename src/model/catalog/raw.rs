//! The strict decoding of a check from the catalog YAML: one `Raw*` struct per check kind
//! (unknown keys refused, so a typo is an error with a did-you-mean), then the rules serde
//! cannot express, each with a message that says what to write instead.

use serde::de::{self, Deserializer};
use serde::Deserialize;

use crate::model::observation::FieldPath;

use super::check::*;
use super::scalars::{is_dns_label, is_dns_name, is_flag_name, Scalar};

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
