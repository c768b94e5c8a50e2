//! The layer catalog: which platform layers exist, how to detect them, how to tell they are
//! healthy, in which order they install. It is data (`builtin.yaml`, embedded), not code, so
//! a stack's `catalog:` file can add or replace layers without a rebuild.
//!
//! Our own input, so it is read strictly: an unknown key, a bad check, an unknown or cyclic
//! `after:` or a duplicate id is an error naming the file, the line and column, and the
//! nearest valid key.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::observation::ReadRequest;

const BUILTIN: &str = include_str!("builtin.yaml");
const BUILTIN_NAME: &str = "builtin catalog (src/model/catalog/builtin.yaml)";
const LAYER_FORMAT_HINT: &str = "a catalog file is a YAML list of layers: `- id:`, `title:`, `after:`, `detect:`, `healthy:`, `install:`, `observable:` (the built-in catalog, src/model/catalog/builtin.yaml, is the example)";

/// One platform layer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    pub id: String,
    pub title: String,
    /// Layers that must be installed before this one.
    #[serde(default)]
    pub after: Vec<String>,
    /// Any true → the layer exists.
    #[serde(default)]
    pub detect: Vec<Check>,
    /// All true → the layer is healthy.
    #[serde(default)]
    pub healthy: Vec<Check>,
    /// Printed in the plan, never executed.
    pub install: String,
    /// `false` for host-level layers Kubernetes cannot see: always `unknown`, never planned.
    #[serde(default = "yes")]
    pub observable: bool,
}

/// One check of a layer (SPEC §6 check kinds).
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// The API group is served (`kubectl api-versions`).
    ApiGroup(String),
    /// The namespace exists.
    Namespace(String),
    /// A StorageClass with this provisioner (if given) and default flag (if given) exists.
    StorageClass {
        provisioner: Option<String>,
        default: Option<bool>,
    },
    /// detect: a matching workload exists; healthy: every matching workload is ready
    /// (ready == desired >= 1) and there is at least one.
    Workload {
        kind: Option<WorkloadKind>,
        namespace: String,
        name: Option<String>,
    },
    Resource(ResourceCheck),
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

/// Custom resources of one type, optionally narrowed to a namespace and a name.
/// Without `field`: the check is "one exists". With `field`: every matching object must
/// satisfy `expect`, and there must be at least one.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceCheck {
    /// `plural.group`, e.g. `cephclusters.ceph.rook.io`.
    pub resource: String,
    /// The kind shown in evidence (`CephCluster`); defaults to the object's own `kind`.
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub field: Option<FieldPath>,
    pub expect: Option<Expect>,
}

impl ResourceCheck {
    /// The API group of the resource type.
    pub fn group(&self) -> &str {
        self.resource.split_once('.').map_or("", |(_, g)| g)
    }
}

/// What a resource field must hold. Scalars compare by their text (`3` equals `"3"`).
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    In(Vec<String>),
    Equals(String),
    /// Equal to another field of the same object (JSON equality).
    EqualsField(FieldPath),
}

/// A dotted path into an object, `.status.ceph.health`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath(Vec<String>);

impl FieldPath {
    pub fn parse(text: &str) -> std::result::Result<FieldPath, String> {
        let segments: Vec<String> = text
            .strip_prefix('.')
            .ok_or_else(|| {
                format!("field path `{text}` must start with `.`, e.g. `.status.phase`")
            })?
            .split('.')
            .map(str::to_string)
            .collect();
        if segments
            .iter()
            .any(|s| s.is_empty() || s.contains(char::is_whitespace))
        {
            return Err(format!(
                "field path `{text}` has an empty or blank segment; write it like `.status.ceph.health`"
            ));
        }
        Ok(FieldPath(segments))
    }

    /// The value at this path, if every segment exists.
    pub fn get<'a>(&self, object: &'a Value) -> Option<&'a Value> {
        self.0.iter().try_fold(object, |v, seg| v.get(seg))
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.0 {
            write!(f, ".{s}")?;
        }
        Ok(())
    }
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

/// The catalog: layers in declared order.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    layers: Vec<Layer>,
    /// Where each layer was defined, for error messages.
    origins: BTreeMap<String, Origin>,
}

#[derive(Debug, Clone, PartialEq)]
struct Origin {
    file: String,
    /// 1-based line and column of the layer's `id:`, when found.
    at: Option<(usize, usize)>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((l, c)) => write!(f, "{}:{l}:{c}", self.file),
            None => f.write_str(&self.file),
        }
    }
}

impl Catalog {
    /// The catalog embedded in the binary.
    pub fn builtin() -> Result<Catalog> {
        let mut c = Catalog {
            layers: Vec::new(),
            origins: BTreeMap::new(),
        };
        c.overlay_str(BUILTIN, BUILTIN_NAME)?;
        Ok(c)
    }

    /// The built-in catalog with a stack's `catalog:` file applied.
    pub fn with_overrides(path: &Path) -> Result<Catalog> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::input(
                format!("cannot read catalog file {}: {e}", path.display()),
                "fix the `catalog:` path of the stack (it is relative to the stacks directory)",
            )
        })?;
        let mut c = Catalog::builtin()?;
        c.overlay_str(&text, &path.display().to_string())?;
        Ok(c)
    }

    /// Apply one catalog file's text: a layer with a known id replaces it in place, a new id
    /// is appended. `file` names the text in error messages. On error `self` is unchanged.
    pub fn overlay_str(&mut self, text: &str, file: &str) -> Result<()> {
        let parsed = parse_layers(text, file)?;
        let mut next = self.clone();
        let mut seen = BTreeSet::new();
        for (layer, origin) in parsed {
            if !seen.insert(layer.id.clone()) {
                return Err(Error::input(
                    format!("{origin}: duplicate layer id `{}`", layer.id),
                    "each layer id appears once per catalog file; merge the two entries",
                ));
            }
            next.origins.insert(layer.id.clone(), origin);
            match next.layers.iter_mut().find(|l| l.id == layer.id) {
                Some(slot) => *slot = layer,
                None => next.layers.push(layer),
            }
        }
        next.validate_after()?;
        *self = next;
        Ok(())
    }

    /// Layer ids in catalog order.
    pub fn ids(&self) -> Vec<&str> {
        self.layers.iter().map(|l| l.id.as_str()).collect()
    }

    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    pub fn get(&self, id: &str) -> Option<&Layer> {
        self.layers.iter().find(|l| l.id == id)
    }

    /// Every layer that must be installed before `id`, transitively (not `id` itself).
    pub fn ancestors(&self, id: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut todo = vec![id.to_string()];
        while let Some(cur) = todo.pop() {
            for dep in self
                .get(&cur)
                .map(|l| l.after.as_slice())
                .unwrap_or_default()
            {
                if dep != id && out.insert(dep.clone()) {
                    todo.push(dep.clone());
                }
            }
        }
        out
    }

    /// The reads needed to evaluate these layers, deduplicated, cheap built-ins first.
    /// Unknown ids are ignored (the topology validates ids).
    pub fn required_reads(&self, layer_ids: &[String]) -> Vec<ReadRequest> {
        let mut reads = BTreeSet::new();
        for layer in layer_ids.iter().filter_map(|id| self.get(id)) {
            for check in layer.detect.iter().chain(&layer.healthy) {
                match check {
                    Check::ApiGroup(_) => {
                        reads.insert(ReadRequest::ApiGroups);
                    }
                    Check::Namespace(_) => {
                        reads.insert(ReadRequest::Namespaces);
                    }
                    Check::StorageClass { .. } => {
                        reads.insert(ReadRequest::StorageClasses);
                    }
                    Check::Workload { kind, .. } => match kind {
                        Some(k) => {
                            reads.insert(k.read_request());
                        }
                        None => reads.extend(WorkloadKind::ALL.map(WorkloadKind::read_request)),
                    },
                    Check::Resource(r) => {
                        reads.insert(ReadRequest::ApiGroups);
                        reads.insert(ReadRequest::Resource(r.resource.clone()));
                    }
                    Check::Nodes(_) => {
                        reads.insert(ReadRequest::Nodes);
                    }
                }
            }
        }
        reads.into_iter().collect()
    }

    /// For each workload read these layers need, the namespaces their checks name (every
    /// workload check names one): the read path lists workloads in those namespaces only,
    /// instead of every deployment of the cluster.
    pub fn workload_namespaces(
        &self,
        layer_ids: &[String],
    ) -> BTreeMap<ReadRequest, BTreeSet<String>> {
        let mut out: BTreeMap<ReadRequest, BTreeSet<String>> = BTreeMap::new();
        for layer in layer_ids.iter().filter_map(|id| self.get(id)) {
            for check in layer.detect.iter().chain(&layer.healthy) {
                if let Check::Workload {
                    kind, namespace, ..
                } = check
                {
                    let kinds = kind.map_or(WorkloadKind::ALL.to_vec(), |k| vec![k]);
                    for k in kinds {
                        out.entry(k.read_request())
                            .or_default()
                            .insert(namespace.clone());
                    }
                }
            }
        }
        out
    }

    fn origin(&self, id: &str) -> String {
        self.origins
            .get(id)
            .map_or_else(|| "catalog".to_string(), Origin::to_string)
    }

    /// Every `after:` id exists and the `after:` graph has no cycle.
    fn validate_after(&self) -> Result<()> {
        let ids = self.ids();
        for layer in &self.layers {
            for dep in &layer.after {
                if self.get(dep).is_none() {
                    let suggestion = crate::suggest::nearest(dep, ids.iter().copied())
                        .map(|n| format!(" (did you mean `{n}`?)"))
                        .unwrap_or_default();
                    return Err(Error::input(
                        format!(
                            "{}: layer `{}`: `after:` names unknown layer `{dep}`{suggestion}",
                            self.origin(&layer.id),
                            layer.id
                        ),
                        format!("known layers: {}", ids.join(", ")),
                    ));
                }
            }
        }
        // Depth-first search; `path` is the current chain, a repeat on it is a cycle.
        fn visit<'a>(
            c: &'a Catalog,
            id: &'a str,
            path: &mut Vec<&'a str>,
            done: &mut BTreeSet<&'a str>,
        ) -> std::result::Result<(), Vec<&'a str>> {
            if done.contains(id) {
                return Ok(());
            }
            if let Some(pos) = path.iter().position(|p| *p == id) {
                let mut cycle = path[pos..].to_vec();
                cycle.push(id);
                return Err(cycle);
            }
            path.push(id);
            for dep in c.get(id).map(|l| l.after.as_slice()).unwrap_or_default() {
                visit(c, dep, path, done)?;
            }
            path.pop();
            done.insert(id);
            Ok(())
        }
        let mut done = BTreeSet::new();
        for layer in &self.layers {
            if let Err(cycle) = visit(self, &layer.id, &mut Vec::new(), &mut done) {
                return Err(Error::input(
                    format!(
                        "{}: cycle in `after:`: {}",
                        self.origin(cycle[0]),
                        cycle.join(" -> ")
                    ),
                    "`after:` must describe an install order; remove one of these dependencies",
                ));
            }
        }
        Ok(())
    }
}

/// Parse one catalog file into layers with their origin.
fn parse_layers(text: &str, file: &str) -> Result<Vec<(Layer, Origin)>> {
    let blank = text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if blank {
        return Ok(Vec::new());
    }
    let layers: Vec<Layer> = serde_norway::from_str(text).map_err(|e| yaml_error(file, &e))?;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::with_capacity(layers.len());
    for layer in layers {
        let nth = seen.entry(layer.id.clone()).or_insert(0);
        let origin = Origin {
            file: file.to_string(),
            at: locate_id(text, &layer.id, *nth),
        };
        *nth += 1;
        validate_layer(&layer, &origin)?;
        out.push((layer, origin));
    }
    Ok(out)
}

/// Line and column (1-based) of the `nth` (0-based) `id: <id>` in the text.
fn locate_id(text: &str, id: &str, nth: usize) -> Option<(usize, usize)> {
    text.lines()
        .enumerate()
        .filter_map(|(n, line)| {
            let trimmed = line.trim_start();
            let rest = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
            let value = rest.strip_prefix("id:")?;
            let value = value.split(" #").next().unwrap_or_default().trim();
            let value = value.trim_matches(|c| c == '"' || c == '\'');
            (value == id).then(|| (n + 1, line.len() - rest.len() + 1))
        })
        .nth(nth)
}

/// Turn a serde_norway error into `file:line:column: message` with a did-you-mean.
fn yaml_error(file: &str, e: &serde_norway::Error) -> Error {
    let mut message = e.to_string();
    let mut place = file.to_string();
    if let Some(loc) = e.location() {
        place = format!("{file}:{}:{}", loc.line(), loc.column());
        let suffix = format!(" at line {} column {}", loc.line(), loc.column());
        if let Some(stripped) = message.strip_suffix(&suffix) {
            message = stripped.to_string();
        }
    }
    // serde_norway prefixes the path of the value, `.[0].detect[0]: `; drop the root dot.
    if let Some(stripped) = message.strip_prefix('.') {
        message = stripped.to_string();
    }
    for (what, noun) in [("unknown field `", "key"), ("unknown variant `", "value")] {
        if let Some(start) = message.find(what) {
            let prefix = &message[..start];
            let rest = &message[start + what.len()..];
            let Some((bad, expected)) = rest.split_once('`') else {
                break;
            };
            let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
            let suggestion = crate::suggest::nearest(bad, valid.iter().copied())
                .map(|n| format!(", did you mean `{n}`?"))
                .unwrap_or_default();
            let list = valid
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", ");
            return Error::input(
                format!("{place}: {prefix}unknown {noun} `{bad}`{suggestion}"),
                format!("valid {noun}s here: {list}"),
            );
        }
    }
    Error::input(format!("{place}: {message}"), LAYER_FORMAT_HINT)
}

// ---- strict deserialization ------------------------------------------------------------

fn yes() -> bool {
    true
}

/// Rules on one layer that serde cannot express; `origin` locates the layer.
fn validate_layer(layer: &Layer, origin: &Origin) -> Result<()> {
    let fail = |msg: String| Err(Error::input(format!("{origin}: {msg}"), LAYER_FORMAT_HINT));
    if !is_dns_label(&layer.id) {
        return fail(format!(
            "layer id `{}` must be lowercase letters, digits and `-`",
            layer.id
        ));
    }
    if layer.title.trim().is_empty() {
        return fail(format!("layer `{}` has an empty title", layer.id));
    }
    if layer.observable && layer.detect.is_empty() {
        return fail(format!(
            "layer `{}` has no `detect:` check; add one, or `observable: false` for a host-level layer",
            layer.id
        ));
    }
    if !layer.observable && (!layer.detect.is_empty() || !layer.healthy.is_empty()) {
        return fail(format!(
            "layer `{}` is `observable: false` (host-level) and cannot have `detect:` or `healthy:` checks",
            layer.id
        ));
    }
    Ok(())
}

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
    nodes: Option<RawNodes>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStorageClass {
    provisioner: Option<String>,
    default: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkload {
    kind: Option<WorkloadKind>,
    namespace: String,
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNodes {
    ready: Option<Count>,
    registered: Option<Count>,
}

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        RawCheck::deserialize(d)?
            .into_check()
            .map_err(de::Error::custom)
    }
}

const CHECK_KINDS: &str =
    "`apiGroup`, `namespace`, `storageClass`, `workload`, `resource`, `nodes`";

impl RawCheck {
    fn into_check(self) -> std::result::Result<Check, String> {
        let mut kinds = Vec::new();
        if self.api_group.is_some() {
            kinds.push("apiGroup");
        }
        if self.namespace.is_some() && self.resource.is_none() {
            kinds.push("namespace");
        }
        if self.storage_class.is_some() {
            kinds.push("storageClass");
        }
        if self.workload.is_some() {
            kinds.push("workload");
        }
        if self.resource.is_some() {
            kinds.push("resource");
        }
        if self.nodes.is_some() {
            kinds.push("nodes");
        }
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
            ];
            if let Some((key, _)) = siblings.iter().find(|(_, set)| *set) {
                return Err(format!("`{key}` only goes with a `resource:` check"));
            }
        }
        if let Some(group) = self.api_group {
            return if is_dns_name(&group) {
                Ok(Check::ApiGroup(group))
            } else {
                Err(format!(
                    "`apiGroup: {group}` is not an API group name like `ceph.rook.io`"
                ))
            };
        }
        if let Some(sc) = self.storage_class {
            return Ok(Check::StorageClass {
                provisioner: sc.provisioner,
                default: sc.default,
            });
        }
        if let Some(w) = self.workload {
            if !is_dns_label(&w.namespace) {
                return Err(format!(
                    "`namespace: {}` is not a namespace name",
                    w.namespace
                ));
            }
            return Ok(Check::Workload {
                kind: w.kind,
                namespace: w.namespace,
                name: w.name,
            });
        }
        if let Some(n) = self.nodes {
            return match (n.ready, n.registered) {
                (Some(c), None) => Ok(Check::Nodes(NodesCheck::Ready(c))),
                (None, Some(c)) => Ok(Check::Nodes(NodesCheck::Registered(c))),
                _ => Err("`nodes:` needs exactly one of `ready:` or `registered:`".to_string()),
            };
        }
        if let Some(resource) = self.resource {
            let valid = resource.contains('.') && resource.split('.').all(is_dns_label);
            if !valid {
                return Err(format!(
                    "`resource: {resource}` must be `plural.group`, e.g. `cephclusters.ceph.rook.io`"
                ));
            }
            if let Some(ns) = &self.namespace {
                if !is_dns_label(ns) {
                    return Err(format!("`namespace: {ns}` is not a namespace name"));
                }
            }
            let field = self.field.as_deref().map(FieldPath::parse).transpose()?;
            let mut expects = Vec::new();
            if let Some(values) = self.in_ {
                if values.is_empty() {
                    return Err("`in:` needs at least one value".to_string());
                }
                expects.push(Expect::In(values.into_iter().map(|s| s.0).collect()));
            }
            if let Some(v) = self.equals {
                expects.push(Expect::Equals(v.0));
            }
            if let Some(f) = self.equals_field {
                expects.push(Expect::EqualsField(FieldPath::parse(&f)?));
            }
            let expect = match (expects.len(), &field) {
                (0, None) => None,
                (1, Some(_)) => expects.pop(),
                (0, Some(f)) => {
                    return Err(format!(
                        "`field: {f}` needs one of `in:`, `equals:` or `equalsField:`"
                    ))
                }
                (_, None) => {
                    return Err("`in:`/`equals:`/`equalsField:` need a `field:`".to_string())
                }
                _ => return Err("use only one of `in:`, `equals:` or `equalsField:`".to_string()),
            };
            return Ok(Check::Resource(ResourceCheck {
                resource,
                kind: self.kind,
                namespace: self.namespace,
                name: self.name,
                field,
                expect,
            }));
        }
        match self.namespace {
            Some(ns) if is_dns_label(&ns) => Ok(Check::Namespace(ns)),
            Some(ns) => Err(format!("`namespace: {ns}` is not a namespace name")),
            None => Err(format!("a check needs one of {CHECK_KINDS}")),
        }
    }
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
fn is_dns_label(s: &str) -> bool {
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

/// The catalog for a stack whose `catalog:` resolves to `overrides` (if any).
pub fn catalog_for(overrides: Option<&Path>) -> Result<Catalog> {
    match overrides {
        Some(path) => Catalog::with_overrides(path),
        None => Catalog::builtin(),
    }
}

/// Every valid layer id for such a stack.
pub fn known_ids(overrides: Option<&Path>) -> Result<BTreeSet<String>> {
    Ok(catalog_for(overrides)?
        .ids()
        .into_iter()
        .map(String::from)
        .collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn overlay_err(text: &str) -> Error {
        Catalog::builtin()
            .unwrap()
            .overlay_str(text, "stacks/layers.yaml")
            .unwrap_err()
    }

    #[test]
    fn builtin_has_the_fixed_ids_in_order() {
        let c = Catalog::builtin().unwrap();
        assert_eq!(
            c.ids(),
            [
                "k8s",
                "cni",
                "ceph",
                "storage",
                "datalake",
                "certs",
                "monitoring",
                "gitops",
                "registry",
                "dataops",
                "etcd-backup",
                "audit-log",
                "sshd-hardening"
            ]
        );
        let ceph = c.get("ceph").unwrap();
        assert_eq!(ceph.after, ["cni"]);
        assert_eq!(ceph.detect, [Check::ApiGroup("ceph.rook.io".into())]);
        assert_eq!(
            ceph.healthy,
            [Check::Resource(ResourceCheck {
                resource: "cephclusters.ceph.rook.io".into(),
                kind: Some("CephCluster".into()),
                namespace: Some("rook-ceph".into()),
                name: None,
                field: Some(FieldPath::parse(".status.ceph.health").unwrap()),
                expect: Some(Expect::In(vec!["HEALTH_OK".into()])),
            })]
        );
        assert_eq!(ceph.install, "ansible-playbook platform/ceph.yaml");
        assert!(!c.get("sshd-hardening").unwrap().observable);
        assert!(c.get("k8s").unwrap().observable);
    }

    #[test]
    fn datalake_is_not_detected_by_objectbucket_group() {
        let c = Catalog::builtin().unwrap();
        let datalake = c.get("datalake").unwrap();
        let mentions_objectbucket = datalake
            .detect
            .iter()
            .chain(&datalake.healthy)
            .any(|ch| format!("{ch:?}").contains("objectbucket"));
        assert!(!mentions_objectbucket);
        assert!(datalake.detect.contains(&Check::StorageClass {
            provisioner: Some("rook-ceph.ceph.rook.io/bucket".into()),
            default: None
        }));
    }

    #[test]
    fn required_reads_are_deduplicated_and_ordered() {
        let c = Catalog::builtin().unwrap();
        let ids: Vec<String> = ["k8s", "ceph", "registry", "dataops", "sshd-hardening"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            c.required_reads(&ids),
            [
                ReadRequest::Nodes,
                ReadRequest::ApiGroups,
                ReadRequest::Namespaces,
                ReadRequest::DaemonSets,
                ReadRequest::Deployments,
                ReadRequest::StatefulSets,
                ReadRequest::Resource("cephclusters.ceph.rook.io".into()),
                ReadRequest::Resource("clusters.postgresql.cnpg.io".into()),
            ]
        );
        assert_eq!(c.required_reads(&["nope".to_string()]), []);
    }

    #[test]
    fn workload_namespaces_are_the_ones_checks_name() {
        let c = Catalog::builtin().unwrap();
        let ids: Vec<String> = ["cni", "registry", "certs", "ceph"]
            .map(String::from)
            .to_vec();
        let ns = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
        assert_eq!(
            c.workload_namespaces(&ids),
            [
                (ReadRequest::DaemonSets, ns(&["kube-system", "registry"])),
                (ReadRequest::Deployments, ns(&["cert-manager", "registry"])),
                (ReadRequest::StatefulSets, ns(&["registry"])),
            ]
            .into_iter()
            .collect()
        );
        assert!(c.workload_namespaces(&["k8s".to_string()]).is_empty());
    }

    #[test]
    fn overrides_replace_and_add() {
        let mut c = Catalog::builtin().unwrap();
        c.overlay_str(
            "# ours\n- id: ceph\n  title: Our Ceph\n  after: [k8s]\n  detect:\n    - namespace: rook-ceph\n  install: make ceph\n- id: vault\n  title: Vault\n  after: [certs]\n  detect:\n    - apiGroup: secrets.hashicorp.com\n  install: make vault\n",
            "stacks/layers.yaml",
        )
        .unwrap();
        let ids = c.ids();
        assert_eq!(ids[2], "ceph");
        assert_eq!(ids.last(), Some(&"vault"));
        assert_eq!(c.get("ceph").unwrap().title, "Our Ceph");
        assert_eq!(c.get("ceph").unwrap().healthy, []);
        assert_eq!(
            c.ancestors("vault"),
            ["certs", "k8s"].map(String::from).into_iter().collect()
        );
    }

    #[test]
    fn with_overrides_reads_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layers.yaml");
        std::fs::write(
            &path,
            "- id: extra\n  title: Extra\n  detect:\n    - namespace: extra\n  install: make extra\n",
        )
        .unwrap();
        let c = Catalog::with_overrides(&path).unwrap();
        assert_eq!(c.ids().last(), Some(&"extra"));
        let e = Catalog::with_overrides(&dir.path().join("missing.yaml")).unwrap_err();
        assert!(
            e.message.starts_with("cannot read catalog file "),
            "{}",
            e.message
        );
        assert!(e
            .message
            .ends_with("missing.yaml: No such file or directory (os error 2)"));
    }

    #[test]
    fn empty_override_file_changes_nothing() {
        let mut c = Catalog::builtin().unwrap();
        c.overlay_str("# nothing yet\n\n", "stacks/layers.yaml")
            .unwrap();
        assert_eq!(c, Catalog::builtin().unwrap());
    }

    #[test]
    fn unknown_layer_key_names_line_column_and_suggestion() {
        let e = overlay_err(
            "- id: extra\n  title: Extra\n  detect:\n    - namespace: extra\n  helthy:\n    - namespace: extra\n  install: make extra\n",
        );
        assert_eq!(
            e.message,
            "stacks/layers.yaml:5:3: [0]: unknown key `helthy`, did you mean `healthy`?"
        );
        assert_eq!(
            e.hint,
            "valid keys here: `id`, `title`, `after`, `detect`, `healthy`, `install`, `observable`"
        );
    }

    #[test]
    fn unknown_check_key_names_line_column_and_suggestion() {
        let e = overlay_err(
            "- id: extra\n  title: Extra\n  detect:\n    - apigroup: extra.io\n  install: make extra\n",
        );
        assert_eq!(
            e.message,
            "stacks/layers.yaml:4:7: [0].detect[0]: unknown key `apigroup`, did you mean `apiGroup`?"
        );
    }

    #[test]
    fn unknown_workload_kind_suggests_the_right_one() {
        let e = overlay_err(
            "- id: extra\n  title: Extra\n  detect:\n    - workload: {kind: Daemonset, namespace: extra}\n  install: make extra\n",
        );
        assert_eq!(
            e.message,
            "stacks/layers.yaml:4:24: [0].detect[0].workload.kind: unknown value `Daemonset`, did you mean `DaemonSet`?"
        );
        assert_eq!(
            e.hint,
            "valid values here: `DaemonSet`, `Deployment`, `StatefulSet`"
        );
    }

    #[test]
    fn bad_checks_are_errors_with_position() {
        let cases = [
            (
                "    - {apiGroup: a.io, namespace: b}\n",
                "stacks/layers.yaml:4:5: [0].detect: one check per list item, found `apiGroup` and `namespace`; write each as its own `- ` item",
            ),
            (
                "    - resource: cephclusters\n",
                "stacks/layers.yaml:4:5: [0].detect: `resource: cephclusters` must be `plural.group`, e.g. `cephclusters.ceph.rook.io`",
            ),
            (
                "    - resource: a.b.io\n      field: status.phase\n      equals: Ready\n",
                "stacks/layers.yaml:4:5: [0].detect: field path `status.phase` must start with `.`, e.g. `.status.phase`",
            ),
            (
                "    - resource: a.b.io\n      field: .status.phase\n",
                "stacks/layers.yaml:4:5: [0].detect: `field: .status.phase` needs one of `in:`, `equals:` or `equalsField:`",
            ),
            (
                "    - namespace: extra\n      field: .status.phase\n",
                "stacks/layers.yaml:4:5: [0].detect: `field` only goes with a `resource:` check",
            ),
            (
                "    - nodes: {ready: some}\n",
                "stacks/layers.yaml:4:22: [0].detect[0].nodes.ready: invalid value: string \"some\", expected `all` or a number of nodes (1 or more)",
            ),
        ];
        for (check, want) in cases {
            let text =
                format!("- id: extra\n  title: Extra\n  detect:\n{check}  install: make extra\n");
            assert_eq!(overlay_err(&text).message, want, "for {check:?}");
        }
    }

    #[test]
    fn layer_without_detect_is_an_error() {
        let e = overlay_err("- id: extra\n  title: Extra\n  install: make extra\n");
        assert_eq!(
            e.message,
            "stacks/layers.yaml:1:3: layer `extra` has no `detect:` check; add one, or `observable: false` for a host-level layer"
        );
        let e = overlay_err("- id: extra\n  install: make extra\n  detect: [{namespace: x}]\n");
        assert_eq!(
            e.message,
            "stacks/layers.yaml:1:3: [0]: missing field `title`"
        );
    }

    #[test]
    fn host_level_layer_cannot_have_checks() {
        let ok = "- id: extra\n  title: Extra\n  detect: [{namespace: x}]\n  install: make x\n";
        let e = overlay_err(&format!(
            "{ok}- id: ntp\n  title: NTP\n  observable: false\n  detect: [{{namespace: x}}]\n  install: make ntp\n"
        ));
        assert_eq!(
            e.message,
            "stacks/layers.yaml:5:3: layer `ntp` is `observable: false` (host-level) and cannot have `detect:` or `healthy:` checks"
        );
    }

    #[test]
    fn unknown_after_id_is_an_error_with_suggestion() {
        let e = overlay_err(
            "- id: extra\n  title: Extra\n  after: [cepf]\n  detect:\n    - namespace: extra\n  install: make extra\n",
        );
        assert_eq!(
            e.message,
            "stacks/layers.yaml:1:3: layer `extra`: `after:` names unknown layer `cepf` (did you mean `ceph`?)"
        );
        assert!(e.hint.starts_with("known layers: k8s, cni, ceph,"));
    }

    #[test]
    fn cycle_in_after_is_an_error() {
        let e = overlay_err(
            "- id: a\n  title: A\n  after: [b]\n  detect: [{namespace: a}]\n  install: make a\n\n- id: b\n  title: B\n  after: [a]\n  detect: [{namespace: b}]\n  install: make b\n",
        );
        assert_eq!(
            e.message,
            "stacks/layers.yaml:1:3: cycle in `after:`: a -> b -> a"
        );
        let e = overlay_err(
            "- id: k8s\n  title: K\n  after: [certs]\n  detect: [{namespace: x}]\n  install: make k\n",
        );
        assert_eq!(
            e.message,
            "stacks/layers.yaml:1:3: cycle in `after:`: k8s -> certs -> k8s"
        );
    }

    #[test]
    fn duplicate_id_is_an_error_at_the_second_one() {
        let layer = "- id: extra\n  title: Extra\n  detect: [{namespace: x}]\n  install: make x\n";
        let e = overlay_err(&format!("{layer}{layer}"));
        assert_eq!(
            e.message,
            "stacks/layers.yaml:5:3: duplicate layer id `extra`"
        );
    }

    #[test]
    fn a_mapping_is_not_a_catalog() {
        let e = overlay_err("layers:\n  - id: x\n");
        assert_eq!(
            e.message,
            "stacks/layers.yaml:1:1: invalid type: map, expected a sequence"
        );
        assert_eq!(e.hint, LAYER_FORMAT_HINT);
    }

    #[test]
    fn field_paths_read_objects() {
        let p = FieldPath::parse(".status.ceph.health").unwrap();
        let v = serde_json::json!({"status": {"ceph": {"health": "HEALTH_OK"}}});
        assert_eq!(p.get(&v), Some(&serde_json::json!("HEALTH_OK")));
        assert_eq!(p.to_string(), ".status.ceph.health");
        assert_eq!(FieldPath::parse(".spec.x").unwrap().get(&v), None);
        assert!(FieldPath::parse(".a..b").is_err());
    }

    #[test]
    fn nearest_key() {
        let keys = ["detect", "healthy"];
        assert_eq!(crate::suggest::nearest("helthy", keys), Some("healthy"));
        assert_eq!(crate::suggest::nearest("zzzzzz", keys), None);
    }
}
