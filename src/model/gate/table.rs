//! The gates' rule table (`rules.yaml`, embedded): strict decoding like the layer catalog
//! (an unknown key, rule id, gate, severity or read is an error with line, column and a
//! did-you-mean), then the rules serde cannot express (ids unique, sources and titles not
//! empty, minors that parse, every rule id implemented exactly once).

use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde::Deserialize;

use super::cert::PkiPath;
use super::version::Minor;
use super::{Gate, Read, RuleId, Severity};
use crate::error::{Error, Result};

const BUILTIN: &str = include_str!("rules.yaml");
const BUILTIN_NAME: &str = "builtin gate rules (src/model/gate/rules.yaml)";
const FORMAT_HINT: &str = "the gate rule table is a YAML map: `rules:` (each `id`, `gate`, `severity`, `title`, `reads`, `source`, `host`), `ceph:`, `removedApis:`, `nodePrerequisites:`, `platformRanges:`, `certificates:`, `rookCephVersions:`, `componentLayers:`";

/// Where a rule or a row comes from: the upstream document or policy it encodes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub title: String,
    pub url: String,
}

/// One rule of a gate.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: RuleId,
    pub gate: Gate,
    pub severity: Severity,
    /// What holds when the rule passes, in words.
    pub title: String,
    /// What the rule needs read; a failed one makes the rule undecided.
    pub reads: Vec<Read>,
    /// What only shapes a finding's words (whom to promote), never the verdict: a failed
    /// one is said in the words; `--explain` shows it beside `reads`.
    #[serde(default, rename = "wordsFrom")]
    pub words_from: Vec<Read>,
    pub source: Source,
    /// Read over ssh (skipped by `--no-ssh`, and the output says so).
    #[serde(default)]
    pub host: bool,
}

/// How the drain gate reads Ceph's health.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CephRules {
    /// Health checks tolerated in HEALTH_WARN.
    pub benign: Vec<String>,
    /// A `status.ceph.lastChecked` older than this is stale (undecided, never healthy).
    pub max_status_age_seconds: i64,
}

/// An API version a Kubernetes minor stops serving.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemovedApi {
    pub minor: Minor,
    pub group: String,
    pub version: String,
    /// Plural resource names, as the API paths spell them.
    pub resources: Vec<String>,
}

/// What a node must run before its kubelet moves to `minor`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NodePrerequisite {
    pub minor: Minor,
    #[serde(default)]
    pub cgroup_v2: bool,
    #[serde(default)]
    pub containerd_at_least: Option<String>,
    pub source: Source,
}

/// The platform components whose supported Kubernetes range the table can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Component {
    Cilium,
    Rook,
    CertManager,
    Cnpg,
    ArgoCd,
}

impl Component {
    pub fn as_str(self) -> &'static str {
        match self {
            Component::Cilium => "cilium",
            Component::Rook => "rook",
            Component::CertManager => "cert-manager",
            Component::Cnpg => "cnpg",
            Component::ArgoCd => "argo-cd",
        }
    }
}

/// The Kubernetes minors one release of a component supports, both ends included.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformRange {
    pub component: Component,
    pub release: Minor,
    pub kubernetes: (Minor, Minor),
    pub source: Source,
}

/// The Ceph versions one Rook release supports: each entry the lowest supported version of
/// one Ceph major (a major not listed is not supported).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CephSupport {
    pub release: Minor,
    pub ceph: Vec<String>,
    pub source: Source,
}

/// The control-plane certificates the `k8s-certs-*` rules read, and the warning's window.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CertRules {
    /// A certificate whose notAfter is this close is a warning.
    pub warn_within_days: u32,
    pub files: Vec<PkiPath>,
    pub source: Source,
}

/// The stack layer (a catalog id) that holds an upgradable component: the
/// `*-layers-after-present` rules judge the layers the stack declares after it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentLayer {
    pub component: Component,
    pub layer: String,
}

/// The whole table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Table {
    pub rules: Vec<Rule>,
    pub ceph: CephRules,
    pub removed_apis: Vec<RemovedApi>,
    pub node_prerequisites: Vec<NodePrerequisite>,
    pub platform_ranges: Vec<PlatformRange>,
    pub certificates: CertRules,
    pub rook_ceph_versions: Vec<CephSupport>,
    pub component_layers: Vec<ComponentLayer>,
}

impl Table {
    /// The rule `id` (every id is in the built-in table: `parse` checks it).
    pub fn rule(&self, id: RuleId) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The row that makes a kubelet of `minor` refuse cgroup v1, if one does: the cgroup
    /// rule is asked (and its hosts read) only then.
    pub fn cgroup_v2_row(&self, minor: Minor) -> Option<&NodePrerequisite> {
        self.node_prerequisites
            .iter()
            .find(|p| p.minor <= minor && p.cgroup_v2)
    }

    /// The stack layer that holds `component` (the `componentLayers` row).
    pub fn layer_of(&self, component: Component) -> Option<&str> {
        self.component_layers
            .iter()
            .find(|c| c.component == component)
            .map(|c| c.layer.as_str())
    }

    /// The rules of one gate, in table order.
    pub fn of(&self, gate: Gate) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(move |r| r.gate == gate)
    }
}

/// The built-in table, parsed once per process.
pub fn builtin() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| match parse(BUILTIN, BUILTIN_NAME) {
        Ok(t) => t,
        // The built-in table is tested (`builtin_table_parses`): this is a build defect.
        Err(e) => panic!("{e}"),
    })
}

/// Parse a table: strict YAML, then the rules serde cannot express.
pub fn parse(text: &str, file: &str) -> Result<Table> {
    let table: Table = yaml_serde::from_str(text)
        .map_err(|e| crate::model::catalog::yaml_error_with(file, &e, FORMAT_HINT))?;
    validate(&table, text, file)?;
    Ok(table)
}

fn validate(table: &Table, text: &str, file: &str) -> Result<()> {
    let fail = |id: Option<RuleId>, msg: String| {
        let place = id
            .and_then(|id| crate::model::catalog::locate_id(text, id.as_str(), 0))
            .map(|(l, c)| format!("{file}:{l}:{c}"))
            .unwrap_or_else(|| file.to_string());
        Err(Error::input(format!("{place}: {msg}"), FORMAT_HINT))
    };
    let mut seen = BTreeSet::new();
    for r in &table.rules {
        if !seen.insert(r.id) {
            return fail(
                Some(r.id),
                format!("rule `{}` is defined twice", r.id.as_str()),
            );
        }
        if r.gate != r.id.gate() {
            return fail(
                Some(r.id),
                format!(
                    "rule `{}` belongs to gate `{}`, not `{}`",
                    r.id.as_str(),
                    r.id.gate().as_str(),
                    r.gate.as_str()
                ),
            );
        }
        if r.title.trim().is_empty() || r.source.title.trim().is_empty() {
            return fail(
                Some(r.id),
                format!("rule `{}` needs a title and a source title", r.id.as_str()),
            );
        }
        if !r.source.url.starts_with("https://") {
            return fail(
                Some(r.id),
                format!("rule `{}`: its source url must be https://", r.id.as_str()),
            );
        }
        if r.reads.is_empty() {
            return fail(
                Some(r.id),
                format!("rule `{}` reads nothing", r.id.as_str()),
            );
        }
        if r.host != r.reads.iter().any(|read| read.is_host()) {
            return fail(
                Some(r.id),
                format!(
                    "rule `{}`: `host: true` exactly when it reads over ssh (`host-*`)",
                    r.id.as_str()
                ),
            );
        }
    }
    if let Some(missing) = RuleId::ALL.iter().find(|id| !seen.contains(id)) {
        return fail(
            None,
            format!(
                "rule `{}` is implemented but not in the table",
                missing.as_str()
            ),
        );
    }
    for p in &table.platform_ranges {
        if p.kubernetes.0 > p.kubernetes.1 {
            return fail(
                None,
                format!(
                    "platformRanges: {} {}: its range ends before it starts",
                    p.component.as_str(),
                    p.release
                ),
            );
        }
    }
    for r in &table.rook_ceph_versions {
        let majors: BTreeSet<u32> = r
            .ceph
            .iter()
            .filter_map(|v| super::version::Version::parse(v).map(|v| v.major))
            .collect();
        if r.ceph.is_empty() || majors.len() != r.ceph.len() {
            return fail(
                None,
                format!(
                    "rookCephVersions {}: `ceph` lists one version per Ceph major (at least one), each a version",
                    r.release
                ),
            );
        }
    }
    let mut components = BTreeSet::new();
    for c in &table.component_layers {
        let id = !c.layer.is_empty()
            && c.layer
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !components.insert(c.component) || !id {
            return fail(
                None,
                format!(
                    "componentLayers: {} names one layer, once, as the catalog spells its id",
                    c.component.as_str()
                ),
            );
        }
    }
    for gated in [Component::Cilium, Component::Rook] {
        if !components.contains(&gated) {
            return fail(
                None,
                format!("componentLayers: no row for {}", gated.as_str()),
            );
        }
    }
    let certs = &table.certificates;
    let distinct: BTreeSet<&PkiPath> = certs.files.iter().collect();
    if certs.files.is_empty() || distinct.len() != certs.files.len() || certs.warn_within_days == 0
    {
        return fail(
            None,
            "certificates: `files` lists each certificate once (at least one), `warnWithinDays` is at least 1".into(),
        );
    }
    for n in &table.node_prerequisites {
        if let Some(v) = &n.containerd_at_least {
            if super::version::Version::parse(v).is_none() {
                return fail(
                    None,
                    format!("nodePrerequisites {}: `{v}` is not a version", n.minor),
                );
            }
        }
    }
    Ok(())
}
