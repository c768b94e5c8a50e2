//! `nodes: {schedulable: true, expectedTaints: [...]}` (SPEC §6 v0.4): every Ready node is
//! doing its job — no pressure or `NetworkUnavailable` condition True, not cordoned, no
//! `NoSchedule`/`NoExecute` taint but the expected ones.

use std::collections::BTreeSet;
use std::fmt;

/// The taint kubeadm puts on every control-plane node (key and effect): expected on the
/// nodes with the control-plane role, always.
pub const CONTROL_PLANE_KEY: &str = "node-role.kubernetes.io/control-plane";
pub const CONTROL_PLANE_EFFECT: &str = "NoSchedule";

/// `nodes: {schedulable: true}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchedulableCheck {
    /// The catalog's `expectedTaints:`, besides the built-in control-plane taint (expected
    /// on the nodes with the control-plane role).
    pub expected: Vec<ExpectedTaint>,
    /// Taint keys another check of the catalog judges (`withoutTaint:`, cni's
    /// `node.cilium.io/agent-not-ready`): that check's finding, never counted twice. Filled
    /// when the catalog is assembled, never written.
    pub judged_elsewhere: BTreeSet<String>,
}

/// One `expectedTaints:` entry: `KEY:EFFECT`, or `KEY` for either blocking effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedTaint {
    pub key: String,
    /// `NoSchedule` or `NoExecute`; None: either.
    pub effect: Option<String>,
}

impl ExpectedTaint {
    /// Parse `KEY` or `KEY:EFFECT`; `is_key` validates the key (a label key).
    pub(crate) fn parse(text: &str, is_key: impl Fn(&str) -> bool) -> Result<Self, String> {
        let (key, effect) = match text.rsplit_once(':') {
            Some((k, e)) => (k, Some(e)),
            None => (text, None),
        };
        if !is_key(key) {
            return Err(format!(
                "`expectedTaints: [{text}]`: `{key}` is not a taint key like `dedicated.example.com/gpu`"
            ));
        }
        match effect {
            None => Ok(ExpectedTaint {
                key: key.to_string(),
                effect: None,
            }),
            Some(e @ ("NoSchedule" | "NoExecute")) => Ok(ExpectedTaint {
                key: key.to_string(),
                effect: Some(e.to_string()),
            }),
            Some(other) => Err(format!(
                "`expectedTaints: [{text}]`: effect `{other}` is not `NoSchedule` or `NoExecute` (PreferNoSchedule taints are never judged)"
            )),
        }
    }

    /// Whether a taint of `key` and `effect` is this one.
    pub fn matches(&self, key: &str, effect: &str) -> bool {
        self.key == key && self.effect.as_deref().is_none_or(|e| e == effect)
    }
}

impl fmt::Display for ExpectedTaint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.effect {
            Some(e) => write!(f, "{}:{e}", self.key),
            None => f.write_str(&self.key),
        }
    }
}
