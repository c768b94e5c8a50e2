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

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::model::observation::ReadRequest;

mod check;
mod describe;
mod raw;
mod scalars;

pub use crate::model::observation::{FieldPath, FieldUse};
pub use check::{
    AllCheck, Check, CheckKind, ConditionCheck, Count, CountCheck, Counted, Expect, NodesCheck,
    Objects, PodFlagsCheck, Predicate, ResourceCheck, TolerateCheck, Wanted, WorkloadCheck,
    WorkloadKind,
};
use scalars::is_dns_label;

pub mod host;
pub use host::{HostCheck, HostProbe, HostSpec};

const BUILTIN: &str = include_str!("builtin.yaml");
const BUILTIN_NAME: &str = "builtin catalog (src/model/catalog/builtin.yaml)";
const LAYER_FORMAT_HINT: &str = "a catalog file is a YAML list of layers: `- id:`, `title:`, `after:`, `detect:`, `healthy:`, `install:`, `observable:`, `host:` (the built-in catalog, src/model/catalog/builtin.yaml, is the example)";

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
    /// A host-level layer read over ssh (SPEC §13) instead of through Kubernetes.
    #[serde(default)]
    pub host: Option<HostSpec>,
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
        let bytes = crate::bounded::read(path, "catalog").map_err(|e| {
            Error::input(
                format!("cannot read catalog file {}: {e}", path.display()),
                "fix the `catalog:` path of the stack (it is relative to the stacks directory)",
            )
        })??;
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::input(
                format!("catalog file {} is not UTF-8 text", path.display()),
                "save the file as UTF-8",
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

    /// Every check of these layers (unknown ids are ignored: the topology validates ids).
    fn checks<'a>(&'a self, layer_ids: &'a [String]) -> impl Iterator<Item = &'a CheckKind> {
        layer_ids
            .iter()
            .filter_map(|id| self.get(id))
            .flat_map(|l| l.detect.iter().chain(&l.healthy))
            .map(|c| &c.kind)
    }

    /// The reads needed to evaluate these layers, deduplicated, cheap built-ins first.
    /// Unknown ids are ignored (the topology validates ids).
    pub fn required_reads(&self, layer_ids: &[String]) -> Vec<ReadRequest> {
        let mut reads = BTreeSet::new();
        for check in self.checks(layer_ids) {
            match check {
                CheckKind::ApiGroup(_) => {
                    reads.insert(ReadRequest::ApiGroups);
                }
                CheckKind::Namespace(_) => {
                    reads.insert(ReadRequest::Namespaces);
                }
                CheckKind::StorageClass { .. } => {
                    reads.insert(ReadRequest::StorageClasses);
                }
                CheckKind::Nodes(_) => {
                    reads.insert(ReadRequest::Nodes);
                }
                CheckKind::PodFlags(_) => {
                    // Which nodes are control planes decides whose kube-apiserver must run.
                    reads.insert(ReadRequest::Nodes);
                    reads.insert(ReadRequest::ApiServerPods);
                }
                _ => {}
            }
            for w in check.workload_reads() {
                reads.extend(w.kinds().into_iter().map(WorkloadKind::read_request));
            }
            for (objects, _) in check.object_reads() {
                reads.insert(ReadRequest::ApiGroups);
                reads.insert(ReadRequest::Resource(objects.resource.clone()));
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
        for check in self.checks(layer_ids) {
            for w in check.workload_reads() {
                for k in w.kinds() {
                    out.entry(k.read_request())
                        .or_default()
                        .insert(w.namespace.clone());
                }
            }
        }
        out
    }

    /// For each custom resource type these layers read, what their checks use of an object:
    /// the typed read keeps exactly this (plus namespace and name), nothing else.
    pub fn object_fields(&self, layer_ids: &[String]) -> BTreeMap<String, BTreeSet<FieldUse>> {
        let mut out: BTreeMap<String, BTreeSet<FieldUse>> = BTreeMap::new();
        for check in self.checks(layer_ids) {
            for (objects, used) in check.object_reads() {
                out.entry(objects.resource.clone())
                    .or_default()
                    .extend(used);
            }
        }
        out
    }

    /// Where a layer was defined: `file:line:column` of its `id:`.
    pub fn origin(&self, id: &str) -> String {
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
    let problem = crate::suggest::YamlProblem::of(e);
    let place = match problem.location {
        Some((line, column)) => format!("{file}:{line}:{column}"),
        None => file.to_string(),
    };
    let prefix = problem
        .path
        .as_deref()
        .map(|p| format!("{p}: "))
        .unwrap_or_default();
    if let Some((variant, bad, valid)) = problem.unknown_word() {
        let noun = if variant { "value" } else { "key" };
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
    Error::input(
        format!("{place}: {prefix}{}", problem.message),
        LAYER_FORMAT_HINT,
    )
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
    if let Some(spec) = &layer.host {
        if !layer.detect.is_empty() || !layer.healthy.is_empty() || !layer.observable {
            return fail(format!(
                "layer `{}` is read on hosts (`host:`) and cannot have `detect:`, `healthy:` or `observable: false`",
                layer.id
            ));
        }
        return host::validate(spec).or_else(|m| fail(format!("layer `{}`: {m}", layer.id)));
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
                "encryption-at-rest",
                "sshd-hardening"
            ]
        );
        let ceph = c.get("ceph").unwrap();
        assert_eq!(ceph.after, ["cni"]);
        assert_eq!(
            ceph.detect,
            [Check::from(CheckKind::ApiGroup("ceph.rook.io".into()))]
        );
        let CheckKind::Tolerate(t) = &ceph.healthy[0].kind else {
            panic!("{:?}", ceph.healthy[0]);
        };
        assert_eq!(t.objects.resource, "cephclusters.ceph.rook.io");
        assert_eq!(t.ok, ["HEALTH_OK"]);
        assert_eq!(t.warn, "HEALTH_WARN");
        assert_eq!(t.benign, ["RECENT_MGR_MODULE_CRASH"]);
        assert!(ceph.healthy[0]
            .why
            .as_deref()
            .unwrap()
            .contains("RECENT_MGR_MODULE_CRASH"));
        // Every built-in health check says why the operators gate on it.
        for layer in c.layers() {
            for check in &layer.healthy {
                assert!(check.why.is_some(), "{}: {check:?}", layer.id);
            }
        }
        assert_eq!(ceph.install, "ansible-playbook platform/ceph.yaml");
        assert!(c.get("sshd-hardening").unwrap().host.is_some());
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
        assert!(datalake
            .detect
            .contains(&Check::from(CheckKind::StorageClass {
                provisioner: Some("rook-ceph.ceph.rook.io/bucket".into()),
                default: None
            })));
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
                (
                    ReadRequest::Deployments,
                    ns(&["cert-manager", "kube-system", "registry", "rook-ceph"])
                ),
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
            "valid keys here: `id`, `title`, `after`, `detect`, `healthy`, `install`, `observable`, `host`"
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
                "stacks/layers.yaml:4:5: [0].detect: `field: .status.phase` needs one of `in:`, `equals:`, `equalsField:` or `exists: true`",
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
    fn new_check_kinds_are_validated_with_position() {
        let cases = [
            (
                "    - workload: {kind: Deployment, namespace: x, name: a, namePrefix: a-}\n",
                "stacks/layers.yaml:4:5: [0].detect: a workload check names `name:` or `namePrefix:`, not both",
            ),
            (
                "    - workload: {namespace: x, namePrefix: A_}\n",
                "stacks/layers.yaml:4:5: [0].detect: `namePrefix: A_` must be the start of an object name, like `rook-ceph-osd-`",
            ),
            (
                "    - condition: {resource: a.b.io, type: \"\"}\n",
                "stacks/layers.yaml:4:5: [0].detect: `condition:` needs a `type:` such as `Ready`",
            ),
            (
                "    - all: {resource: a.b.io}\n",
                "stacks/layers.yaml:4:5: [0].detect: `all:` needs either `field:` with its expectation, or `condition: TYPE`",
            ),
            (
                "    - count: {resource: a.b.io}\n",
                "stacks/layers.yaml:4:5: [0].detect: `count:` needs `atLeast: N` (1 or more) or `atLeastField: {resource, field}`",
            ),
            (
                "    - tolerate: {resource: a.b.io, field: .status.h, ok: [], warn: W, details: .status.d}\n",
                "stacks/layers.yaml:4:5: [0].detect: `tolerate:` needs at least one `ok:` value",
            ),
            (
                "    - podFlags: {flags: [--audit-log-path=/x]}\n",
                "stacks/layers.yaml:4:5: [0].detect: `--audit-log-path=/x` is not a flag name like `--audit-log-path` (no value, no `=`)",
            ),
            (
                "    - resource: a.b.io\n      field: .metadata.annotations\n      exists: true\n",
                "stacks/layers.yaml:4:5: [0].detect: field path `.metadata.annotations`: checks read `.spec` and `.status`, never `.metadata` (annotations can hold secrets)",
            ),
            (
                "    - namespace: x\n      why: \"  \"\n",
                "stacks/layers.yaml:4:5: [0].detect: `why:` is empty; say why the operators check this, or leave it out",
            ),
        ];
        for (check, want) in cases {
            let text =
                format!("- id: extra\n  title: Extra\n  detect:\n{check}  install: make extra\n");
            assert_eq!(overlay_err(&text).message, want, "for {check:?}");
        }
        let e = overlay_err(
            "- id: extra\n  title: Extra\n  detect:\n    - all: {resource: a.b.io, feild: .status.x, equals: y}\n  install: make extra\n",
        );
        assert!(
            e.message
                .contains("unknown key `feild`, did you mean `field`?"),
            "{}",
            e.message
        );
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
    fn field_paths_parse_and_print() {
        let p = FieldPath::parse(".status.ceph.health").unwrap();
        assert_eq!(p.to_string(), ".status.ceph.health");
        assert_eq!(p.segments(), ["status", "ceph", "health"]);
        assert!(FieldPath::parse(".a..b").is_err());
        let e = FieldPath::parse(".metadata.annotations.x").unwrap_err();
        assert!(e.contains("never `.metadata`"), "{e}");
    }

    #[test]
    fn nearest_key() {
        let keys = ["detect", "healthy"];
        assert_eq!(crate::suggest::nearest("helthy", keys), Some("healthy"));
        assert_eq!(crate::suggest::nearest("zzzzzz", keys), None);
    }
}
