//! The strict decoding of a check from the catalog YAML: one `Raw*` struct per check kind
//! (unknown keys refused, so a typo is an error with a did-you-mean), then the rules serde
//! cannot express, each with a message that says what to write instead.

use serde::de::{self, Deserializer};
use serde::Deserialize;

use crate::model::observation::FieldPath;

use super::check::*;
use super::scalars::{is_dns_label, is_dns_name, is_flag_name, is_label_key, Scalar};

mod agents;
mod all;
mod apiservices;
mod check;
mod claims;
mod gateway;
mod item;
use item::RawCheck;
pub(in crate::model::catalog) use item::{Decode, Item};
mod placement;
mod versions;
mod webhooks;
use gateway::{RawCsiDriver, RawEvery, RawParents};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawConfigMap {
    namespace: String,
    name: String,
    key: String,
    /// The one expectation: the key is empty (or absent).
    empty: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawConfigMapKey {
    namespace: String,
    name: String,
    key: String,
    #[serde(rename = "in", default)]
    in_: Vec<Scalar>,
    #[serde(default)]
    not_in: Vec<Scalar>,
    says: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawDefaultDeny {
    #[serde(default)]
    exempt: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawConfigMapRef {
    namespace: String,
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawAbsent {
    workload: Option<RawWorkload>,
    config_map: Option<RawConfigMapRef>,
    says: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawStorageClass {
    provisioner: Option<String>,
    default: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawWorkload {
    kind: Option<WorkloadKind>,
    namespace: String,
    name: Option<String>,
    name_prefix: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawCondition {
    resource: String,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    #[serde(rename = "type")]
    type_: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawAll {
    resource: String,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    field: Option<String>,
    #[serde(rename = "in")]
    in_: Option<Vec<Scalar>>,
    not_in: Option<Vec<Scalar>>,
    equals: Option<Scalar>,
    equals_field: Option<String>,
    exists: Option<bool>,
    min_validity: Option<String>,
    max_age: Option<String>,
    condition: Option<String>,
    no_conditions: Option<Vec<String>>,
    not_false: Option<String>,
    quote: Option<String>,
    with_field: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawCount {
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
pub(in crate::model::catalog) struct RawFieldRef {
    resource: String,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    field: String,
    default: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawTolerate {
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
    #[serde(rename = "lastChecked")]
    last_checked: Option<String>,
    #[serde(rename = "maxStatusAge")]
    max_status_age: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawPodFlags {
    flags: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawNodes {
    ready: Option<Count>,
    registered: Option<Count>,
    #[serde(rename = "distinctInternalIPs")]
    distinct_internal_ips: Option<bool>,
    without_taint: Option<String>,
    schedulable: Option<bool>,
    expected_taints: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawNamespaceLabel {
    label: String,
    #[serde(rename = "in", default)]
    in_: Vec<Scalar>,
    #[serde(default)]
    exempt: Vec<String>,
    #[serde(default)]
    some: bool,
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
        let name = raw.name.clone();
        if let Some(bad) = name.as_deref().filter(|n| !is_check_name(n)) {
            return Err(de::Error::custom(format!(
                "`name: {bad}` is not a check name: 1 to 63 lowercase letters, digits and `-` (its id is `LAYER/NAME`, e.g. `ceph/health`)"
            )));
        }
        raw.into_kind()
            .map(|kind| Check { kind, why, name })
            .map_err(de::Error::custom)
    }
}

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

/// A duration of the catalog (`10m`, `7d`), with what the key is for in the error.
fn duration(key: &str, text: &str) -> std::result::Result<u64, String> {
    super::host::parse_duration(text).ok_or_else(|| {
        format!("`{key}: {text}` is not a duration like `10m`, `26h` or `7d` (s, m, h, d, w)")
    })
}

/// What a check says of its field, as written: at most one may be given.
pub(super) struct Given {
    pub(super) in_: Option<Vec<Scalar>>,
    pub(super) not_in: Option<Vec<Scalar>>,
    pub(super) equals: Option<Scalar>,
    pub(super) equals_field: Option<String>,
    pub(super) exists: Option<bool>,
    pub(super) min_validity: Option<String>,
    pub(super) max_age: Option<String>,
}

/// The one expectation of a field (`in`, `notIn`, `equals`, `equalsField`, `exists: true`,
/// `minValidity` or `maxAge`).
fn expectation(
    field: Option<&FieldPath>,
    given: Given,
) -> std::result::Result<Option<Expect>, String> {
    let Given {
        in_,
        not_in,
        equals,
        equals_field,
        exists,
        min_validity,
        max_age,
    } = given;
    let mut expects = Vec::new();
    if let Some(d) = min_validity {
        expects.push(Expect::MinValidity(duration("minValidity", &d)?));
    }
    if let Some(d) = max_age {
        expects.push(Expect::MaxAge(duration("maxAge", &d)?));
    }
    if let Some(values) = in_ {
        if values.is_empty() {
            return Err("`in:` needs at least one value".to_string());
        }
        expects.push(Expect::In(values.into_iter().map(|s| s.0).collect()));
    }
    if let Some(values) = not_in {
        if values.is_empty() {
            return Err("`notIn:` needs at least one value".to_string());
        }
        expects.push(Expect::NotIn(values.into_iter().map(|s| s.0).collect()));
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
            "`field: {f}` needs one of `in:`, `notIn:`, `equals:`, `equalsField:`, `exists: true`, `minValidity:` or `maxAge:`"
        )),
        (_, None) => Err(
            "`in:`/`notIn:`/`equals:`/`equalsField:`/`exists:`/`minValidity:`/`maxAge:` need a `field:`".to_string(),
        ),
        _ => Err(
            "use only one of `in:`, `notIn:`, `equals:`, `equalsField:`, `exists:`, `minValidity:` or `maxAge:`"
                .to_string(),
        ),
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
