//! The layer catalog: which platform layers exist, how to detect them, how to tell they are
//! healthy, in which order they install. It is data (`builtin.yaml`, embedded), not code, so
//! a stack's `catalog:` file can add or replace layers without a rebuild.
//!
//! Our own input, so it is read strictly: an unknown key, a bad check, an unknown or cyclic
//! `after:` or a duplicate id is an error naming the file, the line and column, and the
//! nearest valid key.
//!
//! Files: `builtin.yaml` and `served.yaml` (data; `served.rs` reads the latter); `parse.rs`,
//! reading a catalog file and each check's id `LAYER/NAME`; `check.rs`, the one kind table
//! (`check_kinds!`), with `check/kinds.rs` (`match_kind!`), `check/key.rs` (the derived keys),
//! `check/reads.rs` (what each kind reads) and one file per kind family under `check/`; `raw.rs`
//! and `raw/`, the strict decoding (`raw/item.rs`: one list item, its key choosing its kind's
//! `Decode`; `raw/check.rs`: the one-check rule) with `scalars.rs`; `describe.rs`, each kind's
//! words for `catalog show`; `read_plan.rs` and `proxy_budget.rs`, the reads a set of layers
//! needs and their fit on the proxy's command line; `host/`, the host checks.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::model::observation::ReadRequest;

mod check;
mod served;
pub use served::speculative_version;
mod describe;
mod raw;
mod scalars;

pub use crate::model::observation::{FieldPath, FieldUse};
/// Every typed check, its parts and constants (the kinds' own modules add theirs here
/// without an edit), and the kind table's macros.
pub use check::*;
use scalars::is_dns_label;

pub mod host;
mod read_plan;
pub use host::{HostCheck, HostProbe, HostSpec};
pub use read_plan::{ReadPlan, Workloads};

mod parse;
mod proxy_budget;
use parse::*;
pub(crate) use parse::{locate_id, yaml_error_with};
#[cfg(test)]
mod agents_tests;
#[cfg(test)]
mod ceph_tests;
#[cfg(test)]
mod gateway_tests;
#[cfg(test)]
mod names_tests;
#[cfg(test)]
mod placement_tests;
#[cfg(test)]
mod tests;

const BUILTIN: &str = include_str!("builtin.yaml");
static BUILTIN_PARSES: AtomicUsize = AtomicUsize::new(0);
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

impl Layer {
    /// Every check of the layer with its stable id `LAYER/NAME` (SPEC §6 v0.4), detect
    /// checks first: `(id, healthy, check)`.
    pub fn named_checks(&self) -> Vec<(String, bool, &Check)> {
        let detect = self.detect.iter().enumerate().map(|(i, c)| (i, false, c));
        let healthy = self.healthy.iter().enumerate().map(|(i, c)| (i, true, c));
        detect
            .chain(healthy)
            .map(|(i, h, c)| (format!("{}/{}", self.id, check_name(c, h, i)), h, c))
            .collect()
    }
}

/// The catalog: layers in declared order.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    layers: Vec<Layer>,
    /// Where each layer was defined, for error messages.
    origins: BTreeMap<String, DefinedAt>,
}

#[derive(Debug, Clone, PartialEq)]
struct DefinedAt {
    file: String,
    /// 1-based line and column of the layer's `id:`, when found.
    at: Option<(usize, usize)>,
}

impl fmt::Display for DefinedAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((l, c)) => write!(f, "{}:{l}:{c}", self.file),
            None => f.write_str(&self.file),
        }
    }
}

impl Catalog {
    /// The catalog embedded in the binary (a copy of the one parse, see [`Catalog::shared`]).
    pub fn builtin() -> Result<Catalog> {
        Catalog::shared().cloned()
    }

    /// The catalog embedded in the binary, parsed once per process: every command, every
    /// stack of `preview --all` and every override starts from this one value.
    pub fn shared() -> Result<&'static Catalog> {
        static PARSED: OnceLock<Result<Catalog>> = OnceLock::new();
        PARSED
            .get_or_init(|| {
                BUILTIN_PARSES.fetch_add(1, Ordering::Relaxed);
                let mut c = Catalog {
                    layers: Vec::new(),
                    origins: BTreeMap::new(),
                };
                c.overlay_str(BUILTIN, BUILTIN_NAME)?;
                Ok(c)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// How many times this process parsed the built-in catalog (at most once).
    pub fn builtin_parses() -> usize {
        BUILTIN_PARSES.load(Ordering::Relaxed)
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
        next.link_taints();
        let every: Vec<String> = next.ids().iter().map(|id| id.to_string()).collect();
        proxy_budget::check(&next.required_reads(&every), file)?;
        *self = next;
        Ok(())
    }

    /// A taint key a `withoutTaint:` check judges (cni's `node.cilium.io/agent-not-ready`) is
    /// that check's finding: every `schedulable` check is told so, and never counts it twice.
    fn link_taints(&mut self) {
        let owned: BTreeSet<String> = self
            .layers
            .iter()
            .flat_map(|l| l.detect.iter().chain(&l.healthy))
            .filter_map(|c| {
                if let CheckKind::Nodes(NodesCheck::WithoutTaint(key)) = &c.kind {
                    Some(key.clone())
                } else {
                    None
                }
            })
            .collect();
        for layer in &mut self.layers {
            for check in layer.detect.iter_mut().chain(layer.healthy.iter_mut()) {
                if let CheckKind::Nodes(NodesCheck::Schedulable(s)) = &mut check.kind {
                    s.judged_elsewhere = owned.clone();
                }
            }
        }
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
        self.read_plan(layer_ids, Workloads::InTheirNamespaces)
            .requests
    }

    /// For each workload read these layers need, the namespaces their checks name (every
    /// workload check names one): the read path lists workloads in those namespaces only,
    /// instead of every deployment of the cluster.
    pub fn workload_namespaces(
        &self,
        layer_ids: &[String],
    ) -> BTreeMap<ReadRequest, BTreeSet<String>> {
        self.read_plan(layer_ids, Workloads::InTheirNamespaces)
            .scope
            .workload_namespaces
    }

    /// For each custom resource type these layers read, what their checks use of an object:
    /// the typed read keeps exactly this (plus namespace and name), nothing else.
    pub fn object_fields(&self, layer_ids: &[String]) -> BTreeMap<String, BTreeSet<FieldUse>> {
        self.read_plan(layer_ids, Workloads::InTheirNamespaces)
            .scope
            .keep
    }

    /// Where a layer was defined: `file:line:column` of its `id:`.
    pub fn origin(&self, id: &str) -> String {
        self.origins
            .get(id)
            .map_or_else(|| "catalog".to_string(), DefinedAt::to_string)
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
