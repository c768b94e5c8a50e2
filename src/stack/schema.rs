//! The stack topology file (`stacks/<name>.yaml`, SPEC §3) parsed strictly: unknown keys,
//! wrong types, bad names, duplicate nodes and unknown layer ids are errors that name the
//! file, the line and column, and the nearest valid key.
//!
//! Validation runs inside deserialization (the validated newtypes below; the checks that
//! need the parse's context get it explicitly through the seeds of `seed.rs`) so that
//! yaml_serde attaches the position of the offending value.

pub mod acks;
mod seed;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::suggest::did_you_mean;

/// Keys of a topology file, for did-you-mean suggestions.
pub const TOPOLOGY_KEYS: &[&str] = &[
    "name",
    "target_kind",
    "kubeconfig",
    "endpoint",
    "context",
    "inventory",
    "control_group",
    "admin_conf",
    "nodes",
    "layers",
    "catalog",
    "lima",
    "acknowledged",
];
const NODE_KEYS: &[&str] = &["name", "role"];
const LIMA_KEYS: &[&str] = &["instance_prefix"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// A local bench of Lima VMs.
    Lima,
    /// Machines provisioned outside the tool; only Kubernetes is observed.
    Prod,
}

impl TargetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TargetKind::Lima => "lima",
            TargetKind::Prod => "prod",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    #[serde(rename = "control-plane")]
    ControlPlane,
    #[serde(rename = "worker")]
    Worker,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::ControlPlane => "control-plane",
            Role::Worker => "worker",
        }
    }
}

/// The file as written, every field validated; paths are not resolved yet (decoded by
/// `seed::topology`, strictly: unknown keys refused).
#[derive(Debug, Clone)]
pub struct RawTopology {
    pub name: StackName,
    pub target_kind: TargetKind,
    pub kubeconfig: Option<String>,
    pub endpoint: Option<Endpoint>,
    /// The kubeconfig's current-context when the stack was written: a switch since refuses.
    pub context: Option<String>,
    pub inventory: Option<String>,
    pub control_group: Option<String>,
    pub admin_conf: Option<RemotePath>,
    pub nodes: Vec<NodeDecl>,
    pub layers: Vec<LayerId>,
    pub catalog: Option<String>,
    pub lima: Option<LimaSection>,
    /// Failing checks the team lives with (SPEC §6 v0.4), each located at its line.
    pub acknowledged: Vec<crate::model::ack::Acknowledgement>,
}

#[derive(Debug, Clone)]
pub struct NodeDecl {
    pub name: NodeName,
    pub role: Role,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimaSection {
    #[serde(default)]
    pub instance_prefix: InstancePrefix,
}

/// Parse and validate topology text. `known_layers` are the catalog's ids (built-in plus
/// the stack's `catalog:` file); `None` skips that one check.
pub fn parse(
    text: &str,
    file: &Path,
    expected_stem: &str,
    known_layers: Option<&BTreeSet<String>>,
) -> Result<RawTopology> {
    let ctx = RefCell::new(seed::ParseContext {
        expected_stem: Some(expected_stem.to_string()),
        known_layers: known_layers.cloned(),
        ..seed::ParseContext::default()
    });
    if text.trim().is_empty() {
        Err(Error::input(
            format!("{}: the topology file is empty", file.display()),
            "a topology needs at least `name:` and `target_kind:` (an empty file is what a failed `discover ... > stacks/NAME.yaml` leaves: remove it); `kubectl nestor discover --kubeconfig FILE --emit-topology` prints a complete one",
        ))
    } else {
        let mut raw = seed::topology(yaml_serde::Deserializer::from_str(text), &ctx)
            .map_err(|e| yaml_error(&e, file))?;
        acks::locate(&mut raw.acknowledged, text, &file.display().to_string());
        Ok(raw)
    }
}

/// Turn a yaml_serde error into `file:line:col: message` with a did-you-mean hint.
pub fn yaml_error(e: &yaml_serde::Error, file: &Path) -> Error {
    // The key path serde names ("nodes[1].role") is dropped: the position says it better.
    let problem = crate::suggest::YamlProblem::of(e);
    let position = match problem.location {
        Some((line, column)) => format!("{}:{line}:{column}", file.display()),
        None => file.display().to_string(),
    };
    let (message, hint) = explain(&problem);
    Error::input(format!("{position}: {message}"), hint)
}

/// Rewrite serde's wording into ours and pick a hint.
fn explain(problem: &crate::suggest::YamlProblem) -> (String, String) {
    let message = problem.message.as_str();
    if let Some((variant, word, expected)) = problem.unknown_word() {
        if !variant {
            let valid: &[&str] = if expected.contains(&"role") {
                NODE_KEYS
            } else if expected.contains(&"until") {
                acks::ACK_KEYS
            } else if expected.contains(&"instance_prefix") && !expected.contains(&"nodes") {
                LIMA_KEYS
            } else {
                TOPOLOGY_KEYS
            };
            return (
                format!(
                    "unknown key `{word}`{}",
                    did_you_mean(word, valid.iter().copied())
                ),
                format!("valid keys here: {}", valid.join(", ")),
            );
        }
        let kind = expected.contains(&"prod");
        let valid: &[&str] = if kind {
            &["lima", "prod"]
        } else {
            &["control-plane", "worker"]
        };
        let what = if kind { "target_kind" } else { "role" };
        return (
            format!(
                "unknown {what} `{word}`{}",
                did_you_mean(word, valid.iter().copied())
            ),
            format!("{what} is one of: {}", valid.join(", ")),
        );
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let key = rest.split('`').next().unwrap_or_default();
        return (
            format!("missing required key `{key}`"),
            format!("add `{key}:`; `kubectl nestor discover --kubeconfig FILE --emit-topology` prints a complete topology"),
        );
    }
    if let Some((msg, hint)) = message.split_once(" | hint: ") {
        return (msg.to_string(), hint.to_string());
    }
    (
        message.to_string(),
        "fix the file at that line; `kubectl nestor discover --kubeconfig FILE --emit-topology` prints a valid topology to compare with".to_string(),
    )
}

/// A custom deserialization error carrying its own hint through serde's string channel.
fn invalid<E: de::Error>(message: String, hint: &str) -> E {
    E::custom(format!("{message} | hint: {hint}"))
}

/// RFC 1123 label: lowercase alphanumerics and '-', starting and ending alphanumeric, ≤ 63.
pub fn is_dns1123_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// RFC 1123 subdomain (Kubernetes node names): dot-separated labels, ≤ 253.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns1123_label)
}

macro_rules! string_newtype {
    ($name:ident) => {
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Default)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

string_newtype!(StackName);
string_newtype!(NodeName);
string_newtype!(LayerId);
string_newtype!(InstancePrefix);
string_newtype!(RemotePath);
string_newtype!(Endpoint);

/// Deserialize a string through `check` inside the scalar's own visitor, so that a refusal
/// carries the scalar's line and column.
fn validated<'de, D: Deserializer<'de>>(
    d: D,
    check: impl FnOnce(&str) -> Check,
) -> Result<String, D::Error> {
    struct V<F>(F);
    impl<F: FnOnce(&str) -> Check> de::Visitor<'_> for V<F> {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
            (self.0)(v).map_err(|(message, hint)| invalid(message, &hint))?;
            Ok(v.to_string())
        }
    }
    d.deserialize_str(V(check))
}

macro_rules! validated_newtype {
    ($name:ident, $check:expr) => {
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                validated(d, $check).map($name)
            }
        }
    };
}

validated_newtype!(InstancePrefix, check_instance_prefix);
validated_newtype!(RemotePath, check_remote_path);
validated_newtype!(Endpoint, check_endpoint);

type Check = Result<(), (String, String)>;

fn check_stack_name(s: &str, expected_stem: Option<&str>) -> Check {
    if !is_dns1123_label(s) {
        return Err((
            format!("stack name `{s}` is not a DNS-1123 label"),
            "use lowercase letters, digits and '-', at most 63 characters, e.g. `dirqual`".into(),
        ));
    }
    match expected_stem.filter(|stem| *stem != s) {
        Some(stem) => Err((
            format!("stack name `{s}` differs from the file name `{stem}.yaml`"),
            format!("rename the file to `{s}.yaml` or set `name: {stem}`"),
        )),
        None => Ok(()),
    }
}

fn check_node_name(s: &str, seen: &mut BTreeSet<String>) -> Check {
    if !is_dns1123_subdomain(s) {
        return Err((
            format!("node name `{s}` is not a valid Kubernetes node name (DNS-1123)"),
            "use lowercase letters, digits, '-' and '.', starting and ending with a letter or digit".into(),
        ));
    }
    if !seen.insert(s.to_string()) {
        return Err((
            format!("duplicate node `{s}`"),
            "each node is declared once under `nodes:`".into(),
        ));
    }
    Ok(())
}

fn check_layer_id(s: &str, known: Option<&BTreeSet<String>>, seen: &mut BTreeSet<String>) -> Check {
    if let Some(known) = known.filter(|k| !k.contains(s)) {
        return Err((
            format!(
                "unknown layer `{s}`{}",
                did_you_mean(s, known.iter().map(String::as_str))
            ),
            format!(
                "known layers: {} (add others with a `catalog:` file)",
                known.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    if !seen.insert(s.to_string()) {
        return Err((
            format!("layer `{s}` is listed twice"),
            "list each layer once under `layers:`".into(),
        ));
    }
    Ok(())
}

fn check_instance_prefix(s: &str) -> Check {
    let ok = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && !s.starts_with(['-', '.']);
    if ok {
        return Ok(());
    }
    Err((
        format!("lima instance_prefix `{s}` is not a valid Lima instance name prefix"),
        "use letters, digits, '-', '_' or '.', not starting with '-' or '.'".into(),
    ))
}

/// A context name as kubeconfigs hold them: anything printable, not empty.
pub(crate) fn check_context(s: &str) -> Check {
    if !s.trim().is_empty() && s.len() <= 253 && !s.chars().any(char::is_control) {
        return Ok(());
    }
    Err((
        format!("context `{}` is not a context name", s.escape_debug()),
        "write the kubeconfig's current-context as `kubectl config current-context` prints it (at most 253 characters, no control characters), or remove the key".into(),
    ))
}

fn check_remote_path(s: &str) -> Check {
    let ok = s.starts_with('/')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b))
        && !s.contains("..");
    if ok {
        return Ok(());
    }
    Err((
        format!("admin_conf `{s}` is not a plain absolute path"),
        "use an absolute path of letters, digits, '/', '.', '_' and '-', e.g. /etc/kubernetes/admin.conf".into(),
    ))
}

fn check_endpoint(s: &str) -> Check {
    crate::stack::endpoint::parse(s)
        .map(|_| ())
        .map_err(|(what, hint)| (format!("endpoint {what}"), hint))
}
