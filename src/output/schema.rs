//! The JSON Schema of every `nestor/v1` document kind (SPEC §16), generated from the very
//! serde types that print the documents (`schemars`, serialize contract), so a schema cannot
//! say what serde does not write. `kubectl nestor schema KIND` prints one; `docs/schema/`
//! holds them all, and the tests validate every golden document against its kind's.
//!
//! Strict on purpose: every object that has named fields admits no other (`additionalProperties:
//! false`; serde never writes an unknown field), every field serde always writes is required,
//! `apiVersion` and `kind` are constants, and `nestorVersion` (every printed document) and
//! `observedAt` (the documents of an observation) are required at the top level, as
//! `render::Printer::document`/`observed` stamp them.

use schemars::transform::RecursiveTransform;
use schemars::{generate::SchemaSettings, JsonSchema, Schema};
use serde_json::{json, Value};

use crate::model::snapshot::Snapshot;
use crate::output::documents::{
    catalog, diff, discover, fleet, gate, stack, target, version, wait,
};
use crate::output::error_doc::ErrorDoc;
use crate::output::render::API_VERSION;
use crate::output::report::Preview;

/// What the printer adds to a kind's own fields at the top level.
#[derive(Clone, Copy)]
enum Stamp {
    /// `nestorVersion` (`render::Printer::document`).
    Version,
    /// `nestorVersion` and `observedAt` (`render::Printer::observed`).
    Observed,
    /// Nothing: a file nestor writes and reads back (`Snapshot`, whose `nestorVersion` is a
    /// field of its own): its schema is what nestor accepts.
    Own,
}

/// One document kind: its name, what the printer stamps on it, and its type's schema.
struct Kind {
    name: &'static str,
    stamp: Stamp,
    root: fn(SchemaSettings) -> Schema,
}

fn root<T: JsonSchema>(settings: SchemaSettings) -> Schema {
    settings.into_generator().into_root_schema_for::<T>()
}

/// Every `nestor/v1` kind, in the order `schema` lists them.
const KINDS: &[Kind] = &[
    kind("Catalog", Stamp::Version, root::<catalog::CatalogDoc>),
    kind(
        "CatalogLayer",
        Stamp::Version,
        root::<catalog::CatalogLayerDoc>,
    ),
    kind("Diff", Stamp::Version, root::<diff::DiffDoc>),
    kind("Discovery", Stamp::Observed, root::<discover::Discovery>),
    kind("Error", Stamp::Version, root::<ErrorDoc>),
    kind("Gate", Stamp::Observed, root::<gate::GateDoc>),
    kind("GateRules", Stamp::Version, root::<gate::GateRulesDoc>),
    kind("Preview", Stamp::Observed, root::<Preview>),
    kind("PreviewList", Stamp::Observed, root::<fleet::PreviewList>),
    kind("Snapshot", Stamp::Own, root::<Snapshot>),
    kind("Stack", Stamp::Version, root::<stack::StackDoc>),
    kind("StackCurrent", Stamp::Version, root::<stack::StackCurrent>),
    kind("StackList", Stamp::Version, root::<stack::StackList>),
    kind("Target", Stamp::Observed, root::<target::TargetDoc>),
    kind("Version", Stamp::Version, root::<version::Version>),
    kind("Wait", Stamp::Observed, root::<wait::WaitDoc>),
];

const fn kind(name: &'static str, stamp: Stamp, root: fn(SchemaSettings) -> Schema) -> Kind {
    Kind { name, stamp, root }
}

/// The names of every kind.
pub(crate) fn kinds() -> impl Iterator<Item = &'static str> {
    KINDS.iter().map(|k| k.name)
}

/// The schema of `name` (case as written: `Preview`), `None` for a kind that does not exist.
pub(crate) fn schema(name: &str) -> Option<Value> {
    let k = KINDS.iter().find(|k| k.name == name)?;
    // A printed document is what serde writes; a snapshot is also what nestor reads back
    // (`preview --snapshot`), older ones included: the fields it defaults are optional.
    let mut settings = match k.stamp {
        Stamp::Version | Stamp::Observed => SchemaSettings::draft2020_12().for_serialize(),
        Stamp::Own => SchemaSettings::draft2020_12().for_deserialize(),
    };
    settings
        .transforms
        .push(Box::new(RecursiveTransform(closed_objects)));
    let mut root = (k.root)(settings).to_value();
    stamp(&mut root, k);
    Some(root)
}

/// An object with named fields admits no other: serde writes only its fields. Maps (no
/// `properties`) and objects that already say what else they admit are left as they are.
fn closed_objects(schema: &mut Schema) {
    if schema.get("properties").is_some() && schema.get("additionalProperties").is_none() {
        schema.insert("additionalProperties".into(), Value::Bool(false));
    }
}

/// The top level as printed: the kind's constants, and what the printer adds.
fn stamp(root: &mut Value, k: &Kind) {
    let Some(obj) = root.as_object_mut() else {
        return;
    };
    obj.insert("title".into(), json!(format!("nestor/v1 {}", k.name)));
    let mut add = |field: &str, schema: Value, required: bool| {
        if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
            props.insert(field.into(), schema);
        }
        if required {
            match obj.get_mut("required").and_then(Value::as_array_mut) {
                Some(list) if !list.iter().any(|f| f == field) => list.push(json!(field)),
                Some(_) => {}
                None => {
                    obj.insert("required".into(), json!([field]));
                }
            }
        }
    };
    add("apiVersion", json!({"const": API_VERSION}), true);
    add("kind", json!({"const": k.name}), true);
    let version = json!({"type": "string", "description": "The nestor that printed it."});
    let observed = json!({
        "type": "string",
        "format": "date-time",
        "description": "When the cluster was read (RFC 3339)."
    });
    match k.stamp {
        Stamp::Version => add("nestorVersion", version, true),
        Stamp::Observed => {
            add("nestorVersion", version, true);
            add("observedAt", observed, true);
        }
        Stamp::Own => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_closed_schema_with_its_constants() {
        for name in kinds() {
            let s = schema(name).unwrap();
            assert_eq!(s["properties"]["kind"]["const"], name, "{name}");
            assert_eq!(s["additionalProperties"], false, "{name}");
            let required = s["required"].as_array().unwrap();
            assert!(required.iter().any(|r| r == "kind"), "{name}");
        }
        assert!(schema("Nope").is_none());
    }

    /// `target.rule` and `target.confirmedBy` are written by hand-written serializers whose
    /// schemas are written by hand too: every value serde writes is in them.
    #[test]
    fn the_target_schema_admits_every_rule_and_confirmation_serde_writes() {
        use crate::model::snapshot::{Confirmation, Rule, TargetRef};
        let s = schema("Target").unwrap();
        let props = &s["$defs"]["TargetRef"]["properties"];
        let rules = props["rule"]["enum"].as_array().unwrap();
        let confirmations = props["confirmedBy"]["enum"].as_array().unwrap();
        // Exhaustive: a new variant does not compile until it is listed here.
        let rule = |r: Option<Rule>| match r {
            None
            | Some(Rule::Flag | Rule::Env | Rule::Topology | Rule::LimaBench | Rule::Snapshot) => r,
        };
        let confirmation = |c: Confirmation| match c {
            Confirmation::Prompt
            | Confirmation::Endpoint
            | Confirmation::Bench
            | Confirmation::Snapshot
            | Confirmation::Unconfirmed => c,
        };
        let all_rules = [
            None,
            Some(Rule::Flag),
            Some(Rule::Env),
            Some(Rule::Topology),
            Some(Rule::LimaBench),
            Some(Rule::Snapshot),
        ];
        let all_confirmations = [
            Confirmation::Prompt,
            Confirmation::Endpoint,
            Confirmation::Bench,
            Confirmation::Snapshot,
            Confirmation::Unconfirmed,
        ];
        for (r, c) in all_rules
            .into_iter()
            .zip(all_confirmations.into_iter().cycle())
        {
            let t = TargetRef {
                rule: rule(r),
                kubeconfig: String::new(),
                context: String::new(),
                endpoint: String::new(),
                confirmed_by: confirmation(c),
            };
            let v = serde_json::to_value(&t).unwrap();
            assert!(rules.contains(&v["rule"]), "{v}");
            assert!(confirmations.contains(&v["confirmedBy"]), "{v}");
        }
        assert_eq!(rules.len(), all_rules.len());
        assert_eq!(confirmations.len(), all_confirmations.len());
    }
}
