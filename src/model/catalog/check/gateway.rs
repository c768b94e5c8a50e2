//! The check kinds of SPEC §15's exposure chain and CSI registration, where the kinds of
//! SPEC §6 cannot say it:
//!
//! - `every`: the objects of a type selected by a field (`.spec.controllerName =
//!   io.cilium/gateway-controller`), or by naming an object so selected (a Gateway whose
//!   `.spec.gatewayClassName` is a Cilium GatewayClass), each with conditions True, others
//!   not True, a condition's message counting above N, a list not empty;
//! - `parents`: every route whose `status.parents[]` holds an entry of one controller, each
//!   such entry with conditions True;
//! - `csiDriver`: the default StorageClass's provisioner registered as a CSIDriver and in
//!   every node's CSINode.
//!
//! A condition's known reasons (`known:`) add the operators' words to the evidence
//! ("restart cilium-operator").

use super::Objects;
use crate::model::observation::{FieldPath, FieldUse};

/// Which objects of the type an `every` check judges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// The field holds this value.
    Equals { field: FieldPath, value: String },
    /// The field names (by `metadata.name`) an object of `class` whose `class_field` holds
    /// `value`.
    NameOf {
        field: FieldPath,
        class: Objects,
        class_field: FieldPath,
        value: String,
    },
}

impl Filter {
    pub fn field(&self) -> &FieldPath {
        match self {
            Filter::Equals { field, .. } | Filter::NameOf { field, .. } => field,
        }
    }

    /// `with .spec.controllerName = X`, `whose .spec.gatewayClassName names a GatewayClass
    /// with .spec.controllerName = X`.
    pub fn words(&self) -> String {
        match self {
            Filter::Equals { field, value } => format!("with {field} = {value}"),
            Filter::NameOf {
                field,
                class,
                class_field,
                value,
            } => format!(
                "whose {field} names a {} with {class_field} = {value}",
                class.kind_label()
            ),
        }
    }
}

/// A condition whose count is its message (`cilium.io/IPsAvailable: "254"`), above `value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Above {
    pub type_: String,
    pub value: u64,
}

/// What an `every` check asks of each selected object. Nothing asked: they exist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wants {
    /// Each condition `True`.
    pub conditions: Vec<String>,
    /// None of these conditions `True` (absent is fine).
    pub not_conditions: Vec<String>,
    pub above: Option<Above>,
    /// The list at the path holds at least one item (read by this key).
    pub non_empty: Option<(FieldPath, String)>,
}

impl Wants {
    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty()
            && self.not_conditions.is_empty()
            && self.above.is_none()
            && self.non_empty.is_none()
    }

    pub fn reads_conditions(&self) -> bool {
        !self.conditions.is_empty() || !self.not_conditions.is_empty() || self.above.is_some()
    }
}

/// What the operators know a condition's reason to mean (the evidence adds `says`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    pub condition: String,
    pub reason: String,
    pub says: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EveryCheck {
    pub objects: Objects,
    pub filter: Option<Filter>,
    pub wants: Wants,
    pub known: Vec<Known>,
}

impl EveryCheck {
    pub fn uses(&self) -> Vec<(&Objects, Vec<FieldUse>)> {
        let mut used: Vec<FieldUse> = self
            .filter
            .iter()
            .map(|f| FieldUse::Value(f.field().clone()))
            .collect();
        if self.wants.reads_conditions() {
            used.push(FieldUse::Conditions);
        }
        if self.wants.above.is_some() {
            used.push(FieldUse::ConditionMessages);
        }
        if let Some((path, key)) = &self.wants.non_empty {
            used.push(FieldUse::Items(path.clone(), key.clone()));
        }
        let mut out = vec![(&self.objects, used)];
        if let Some(Filter::NameOf {
            class, class_field, ..
        }) = &self.filter
        {
            out.push((class, vec![FieldUse::Value(class_field.clone())]));
        }
        out
    }
}

/// Every object of the type with a `status.parents[]` entry of `controller`: each such entry
/// has every condition True (none such passes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParentsCheck {
    pub objects: Objects,
    pub controller: String,
    pub conditions: Vec<String>,
    pub known: Vec<Known>,
}

/// The CSI driver of the default StorageClass: a CSIDriver of that name, and every node's
/// CSINode listing it in `.spec.drivers[].name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsiDriverCheck {
    pub drivers: Objects,
    pub nodes: Objects,
}

impl CsiDriverCheck {
    pub fn new() -> CsiDriverCheck {
        let of = |resource: &str, kind: &str| Objects {
            resource: resource.to_string(),
            kind: Some(kind.to_string()),
            namespace: None,
            name: None,
        };
        CsiDriverCheck {
            drivers: of("csidrivers.storage.k8s.io", "CSIDriver"),
            nodes: of("csinodes.storage.k8s.io", "CSINode"),
        }
    }

    /// The path and key of a CSINode's registered drivers.
    pub fn drivers_list() -> (FieldPath, String) {
        (FieldPath::of(&["spec", "drivers"]), "name".to_string())
    }

    pub fn uses(&self) -> Vec<(&Objects, Vec<FieldUse>)> {
        let (path, key) = Self::drivers_list();
        vec![
            (&self.drivers, vec![]),
            (&self.nodes, vec![FieldUse::Items(path, key)]),
        ]
    }
}

impl Default for CsiDriverCheck {
    fn default() -> Self {
        Self::new()
    }
}

fn listed(types: &[String]) -> String {
    match types {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `catalog show`'s words for the checks of this file.
impl std::fmt::Display for EveryCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match &self.filter {
            Some(filter) => format!("{} {}", self.objects.selector(), filter.words()),
            None => self.objects.selector(),
        };
        if self.wants.is_empty() {
            return write!(f, "a {what} exists");
        }
        let mut asks = Vec::new();
        if !self.wants.conditions.is_empty() {
            asks.push(format!("condition {} True", listed(&self.wants.conditions)));
        }
        if !self.wants.not_conditions.is_empty() {
            asks.push(format!(
                "condition {} not True",
                listed(&self.wants.not_conditions)
            ));
        }
        if let Some(a) = &self.wants.above {
            asks.push(format!("condition {}'s count above {}", a.type_, a.value));
        }
        if let Some((path, key)) = &self.wants.non_empty {
            asks.push(format!("a {path}[] entry (its {key})"));
        }
        write!(
            f,
            "every {what} (none is fine once detected): {}; the ones that fail are named",
            asks.join(", ")
        )?;
        known_words(f, &self.known)
    }
}

fn known_words(f: &mut std::fmt::Formatter<'_>, known: &[Known]) -> std::fmt::Result {
    for k in known {
        write!(f, "; {} reason {} means: {}", k.condition, k.reason, k.says)?;
    }
    Ok(())
}

impl std::fmt::Display for ParentsCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "every {} with a status.parents[] entry of {} (none is fine): condition {} True on each such entry; the ones that fail are named with their parent",
            self.objects.selector(),
            self.controller,
            listed(&self.conditions)
        )?;
        known_words(f, &self.known)
    }
}

impl std::fmt::Display for CsiDriverCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the default StorageClass's provisioner registered as a {} and listed in every node's {} .spec.drivers[].name; the nodes without it are named",
            self.drivers.kind_label(),
            self.nodes.kind_label()
        )
    }
}
