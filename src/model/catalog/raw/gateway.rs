//! The strict decoding of the `every`, `parents` and `csiDriver` checks (SPEC §15), each
//! rule serde cannot express worded with what to write instead.

use serde::Deserialize;

use super::objects;
use crate::model::catalog::check::{
    Above, CsiDriverCheck, EveryCheck, Filter, Known, ParentsCheck, Wants,
};
use crate::model::observation::FieldPath;

type Parsed<T> = std::result::Result<T, String>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawEvery {
    resource: String,
    kind: Option<String>,
    namespace: Option<String>,
    #[serde(rename = "where")]
    where_: Option<RawWhere>,
    #[serde(default)]
    conditions: Vec<String>,
    #[serde(default)]
    not_conditions: Vec<String>,
    condition_above: Option<RawAbove>,
    non_empty: Option<RawList>,
    #[serde(default)]
    known: Vec<RawKnown>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawWhere {
    field: String,
    equals: Option<String>,
    name_of: Option<RawClass>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawClass {
    resource: String,
    kind: Option<String>,
    field: String,
    equals: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawAbove {
    #[serde(rename = "type")]
    type_: String,
    value: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawList {
    list: String,
    key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawKnown {
    condition: String,
    reason: String,
    says: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawParents {
    resource: String,
    kind: Option<String>,
    controller_name: String,
    conditions: Vec<String>,
    #[serde(default)]
    known: Vec<RawKnown>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::model::catalog) struct RawCsiDriver {
    default_storage_class: bool,
}

/// A condition type as Kubernetes allows it: a name, optionally prefixed (`cilium.io/X`).
fn condition_type(t: &str) -> Parsed<String> {
    let ok = !t.is_empty()
        && t.len() <= 316
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b));
    if ok {
        Ok(t.to_string())
    } else {
        Err(format!(
            "`{t}` is not a condition type like `Ready` or `cilium.io/PoolConflict`"
        ))
    }
}

fn condition_types(types: Vec<String>) -> Parsed<Vec<String>> {
    types.iter().map(|t| condition_type(t)).collect()
}

fn known(list: Vec<RawKnown>, conditions: &[String]) -> Parsed<Vec<Known>> {
    list.into_iter()
        .map(|k| {
            let condition = condition_type(&k.condition)?;
            if !conditions.contains(&condition) {
                return Err(format!(
                    "`known:` condition `{condition}` is not one of the check's `conditions:`"
                ));
            }
            if k.reason.trim().is_empty() || k.says.trim().is_empty() {
                return Err("`known:` needs a `reason:` and what it `says:`".to_string());
            }
            Ok(Known {
                condition,
                reason: k.reason,
                says: k.says,
            })
        })
        .collect()
}

fn value(field: &str, v: &str) -> Parsed<String> {
    if v.is_empty() {
        Err(format!(
            "`where: {{field: {field}}}` needs a value to equal"
        ))
    } else {
        Ok(v.to_string())
    }
}

impl RawEvery {
    pub(super) fn into_check(self) -> Parsed<EveryCheck> {
        let objects = objects(self.resource, self.kind, self.namespace, None)?;
        let filter = match self.where_ {
            None => None,
            Some(w) => {
                let field = FieldPath::parse(&w.field)?;
                Some(match (w.equals, w.name_of) {
                    (Some(v), None) => Filter::Equals {
                        value: value(&w.field, &v)?,
                        field,
                    },
                    (None, Some(c)) => Filter::NameOf {
                        class: objects_of(c.resource, c.kind)?,
                        class_field: FieldPath::parse(&c.field)?,
                        value: value(&c.field, &c.equals)?,
                        field,
                    },
                    _ => {
                        return Err(
                            "`where:` needs `field:` and exactly one of `equals: VALUE` or `nameOf: {resource, field, equals}`"
                                .to_string(),
                        )
                    }
                })
            }
        };
        let conditions = condition_types(self.conditions)?;
        let wants = Wants {
            not_conditions: condition_types(self.not_conditions)?,
            above: self
                .condition_above
                .map(|a| {
                    condition_type(&a.type_).map(|type_| Above {
                        type_,
                        value: a.value,
                    })
                })
                .transpose()?,
            non_empty: self
                .non_empty
                .map(|l| {
                    let key_ok = !l.key.is_empty()
                        && l.key
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
                    if key_ok {
                        FieldPath::parse(&l.list).map(|p| (p, l.key))
                    } else {
                        Err(format!(
                            "`nonEmpty: {{key: {}}}` is not a field name",
                            l.key
                        ))
                    }
                })
                .transpose()?,
            conditions,
        };
        if filter.is_none() && wants.is_empty() {
            return Err(
                "`every:` needs a `where:` or something to ask of each object (`conditions:`, `notConditions:`, `conditionAbove:`, `nonEmpty:`)"
                    .to_string(),
            );
        }
        Ok(EveryCheck {
            known: known(self.known, &wants.conditions)?,
            objects,
            filter,
            wants,
        })
    }
}

fn objects_of(
    resource: String,
    kind: Option<String>,
) -> Parsed<crate::model::catalog::check::Objects> {
    objects(resource, kind, None, None)
}

impl RawParents {
    pub(super) fn into_check(self) -> Parsed<ParentsCheck> {
        let objects = objects_of(self.resource, self.kind)?;
        let controller_ok = self.controller_name.contains('/')
            && !self.controller_name.contains(char::is_whitespace);
        if !controller_ok {
            return Err(format!(
                "`controllerName: {}` is not a controller name like `io.cilium/gateway-controller`",
                self.controller_name
            ));
        }
        let conditions = condition_types(self.conditions)?;
        if conditions.is_empty() {
            return Err("`parents:` needs `conditions:` such as `[Accepted]`".to_string());
        }
        Ok(ParentsCheck {
            known: known(self.known, &conditions)?,
            objects,
            controller: self.controller_name,
            conditions,
        })
    }
}

impl RawCsiDriver {
    pub(super) fn into_check(self) -> Parsed<CsiDriverCheck> {
        if self.default_storage_class {
            Ok(CsiDriverCheck::new())
        } else {
            Err(
                "`csiDriver:` checks `defaultStorageClass: true` (the default class's provisioner)"
                    .to_string(),
            )
        }
    }
}
